"""Finding the PJRT plugins JAX's GPU packages install, without importing ``jax``.

JAX finds its plugins in two ways, and so does ember:
- modules of the ``jax_plugins`` namespace package (``jax_plugins.xla_cuda13`` from the
  ``jax-cuda13-pjrt`` wheel), and modules named by ``jax_plugins`` entry points;
- ``PJRT_NAMES_AND_LIBRARY_PATHS=name:path,...`` in the environment.
A JAX plugin module registers itself by calling into ``jax`` from its ``initialize()``, which
ember cannot do, so ember never imports it: it looks in the module's folder for the PJRT
library it would have registered (``xla_cuda_plugin.so``, ``xla_rocm_plugin.so``) and loads that
by path. The GPU kernels JAX's lowerings call (cuSOLVER, cuBLAS...) live in a second package
(``jax_cuda13_plugin``, ``jax_cuda12_plugin``, ``jax_rocm7_plugin``), whose modules do not
import ``jax``; ``kernel_package`` finds it.

Both must match the installed jaxlib's version (as JAX requires): ``check_version`` says what
was found and what to install instead.

Example:
    >>> from ember.backend import plugins
    >>> plugins.expand_platforms("gpu")
    ['cuda', 'rocm']
"""
from __future__ import annotations

import dataclasses
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import pkgutil
import re
import sys

from ember.backend._jaxlib_compat import jaxlib_version, parse_version

__all__ = ["Plugin", "discover", "expand_platforms", "known_platforms", "kernel_package",
           "check_version", "install_hint", "EXTRAS", "gpu_client_options"]

# Aliases a user may name (as JAX's): "gpu" is whichever of CUDA and ROCm is present.
_ALIASES = {"gpu": ("cuda", "rocm")}
# The kernel packages JAX looks for, newest first, and the ember extra that installs each.
_KERNEL_PACKAGES = {"cuda": ("jax_cuda13_plugin", "jax_cuda12_plugin"),
                    "rocm": ("jax_rocm7_plugin", "jax_rocm60_plugin")}
EXTRAS = {"jax_cuda13_plugin": "cuda13", "jax_cuda12_plugin": "cuda12"}
# PJRT library file names in a plugin module's folder, and the platform each one serves.
_LIBRARIES = (("xla_cuda_plugin.so", "cuda"), ("xla_rocm_plugin.so", "rocm"),
              ("pjrt_c_api_gpu_plugin.so", None))
_PRIORITY = 500  # above the CPU's (0): a GPU, when present, is the default backend (as JAX)


@dataclasses.dataclass(frozen=True)
class Plugin:
  """A PJRT plugin found on this machine.

  Attributes:
    platform: the platform it serves (``"cuda"``, ``"rocm"``, or the plugin's own name).
    module: where it was found (``"jax_plugins.xla_cuda13"``, or ``"env"``).
    library: the path of its PJRT shared library (None: the module has none).
    version: its version, when its package says (None otherwise).
    distribution: the pip package it came from, when known (``"jax-cuda13-pjrt"``).
  """
  platform: str
  module: str
  library: str | None
  version: str | None = None
  distribution: str | None = None
  priority: int = _PRIORITY


def expand_platforms(names) -> list[str]:
  """Platform names with aliases expanded, in order, without repeats: ``"cpu,gpu"`` ->
  ``['cpu', 'cuda', 'rocm']``."""
  if isinstance(names, str):
    names = names.split(",")
  out: list[str] = []
  for name in names:
    name = name.strip()
    for p in _ALIASES.get(name, (name,)):
      if p and p not in out:
        out.append(p)
  return out


def known_platforms(found=()) -> list[str]:
  """The platform names ember accepts: the CPU, JAX's GPU names, and any plugin found."""
  names = ["cpu", "gpu", "cuda", "rocm"]
  names += [p.platform for p in found if p.platform not in names]
  return names


# --- discovery ----------------------------------------------------------------------------------

def _module_folder(name: str, path=None) -> str | None:
  """The folder of module ``name`` (a package's own folder), found without importing it."""
  try:
    if path is not None and "." in name:
      parent, child = name.rsplit(".", 1)
      for folder in _package_folders(parent, path):
        spec = importlib.machinery.PathFinder.find_spec(name, [folder])
        if spec is not None:
          return _spec_folder(spec)
      return None
    spec = importlib.machinery.PathFinder.find_spec(name, path) if path is not None else \
        importlib.util.find_spec(name)
  except (ImportError, ValueError):
    return None
  return None if spec is None else _spec_folder(spec)


def _spec_folder(spec) -> str | None:
  if spec.submodule_search_locations:
    return list(spec.submodule_search_locations)[0]
  return os.path.dirname(spec.origin) if spec.origin else None


def _package_folders(name: str, path=None) -> list[str]:
  """Every folder of package ``name`` on ``path`` (a namespace package may have several)."""
  spec = importlib.machinery.PathFinder.find_spec(name, path if path is not None else sys.path)
  return list(spec.submodule_search_locations or []) if spec is not None else []


def _library_in(folder: str) -> tuple[str | None, str | None]:
  """The PJRT library in ``folder`` and the platform its name says (None if it does not)."""
  for filename, platform in _LIBRARIES:
    candidate = os.path.join(folder, filename)
    if os.path.exists(candidate):
      return candidate, platform
  for filename in sorted(os.listdir(folder)):  # another vendor's: xla_<name>_plugin.so
    m = re.fullmatch(r"xla_(\w+?)_plugin\.so", filename)
    if m:
      return os.path.join(folder, filename), m.group(1)
  return None, None


def _version_in(folder: str) -> str | None:
  """The version a plugin's ``version.py`` states (read as text: importing it might import
  ``jax``)."""
  try:
    with open(os.path.join(folder, "version.py")) as f:
      text = f.read()
  except OSError:
    return None
  for key in ("_release_version", "__version__", "_version"):
    m = re.search(rf"^{key}\s*(?::\s*str\s*)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    if m:
      return m.group(1)
  return None


def _distribution_version(module: str) -> tuple[str | None, str | None]:
  """(distribution, version) of the pip package that installed ``module``, when known."""
  m = re.fullmatch(r"jax_plugins\.xla_(cuda|rocm)(\d+)", module)
  if m:
    dist = f"jax-{m.group(1)}{m.group(2)}-pjrt"
  else:
    dist = module.replace("_", "-")
  try:
    return dist, importlib.metadata.version(dist)
  except importlib.metadata.PackageNotFoundError:
    return None, None


def _plugin_from_module(module: str, path=None) -> Plugin | None:
  folder = _module_folder(module, path)
  if folder is None or not os.path.isdir(folder):
    return None
  library, platform = _library_in(folder)
  m = re.fullmatch(r"(?:jax_plugins\.)?xla_(cuda|rocm)\d*", module)
  if m:
    platform = m.group(1)
  if platform is None:
    platform = module.rsplit(".", 1)[-1]
  dist, version = _distribution_version(module)
  version = _version_in(folder) or version
  return Plugin(platform, module, library, version, dist)


def _entry_point_modules(path=None) -> list[str]:
  """The modules ``jax_plugins`` entry points name, read from the installed distributions'
  ``entry_points.txt`` (a plain scan: several times cheaper than ``importlib.metadata``)."""
  modules: list[str] = []
  for folder in (sys.path if path is None else path):
    try:
      entries = os.scandir(folder or ".")
    except OSError:
      continue
    with entries:
      for entry in entries:
        if entry.name.endswith((".dist-info", ".egg-info")):
          modules += _jax_plugins_section(os.path.join(entry.path, "entry_points.txt"))
  return modules


def _jax_plugins_section(file: str) -> list[str]:
  try:
    with open(file) as f:
      text = f.read()
  except OSError:
    return []
  if "[jax_plugins]" not in text:
    return []
  section = text.split("[jax_plugins]", 1)[1].split("\n[", 1)[0]
  return [line.split("=", 1)[1].split(":", 1)[0].strip() for line in section.splitlines()
          if "=" in line and not line.lstrip().startswith(("#", ";"))]


def _env_plugins(spec: str) -> list[Plugin]:
  """``PJRT_NAMES_AND_LIBRARY_PATHS``'s plugins (``name:path,...``; JSON configs unsupported)."""
  out = []
  for item in filter(None, (s.strip() for s in spec.split(","))):
    name, sep, library = item.partition(os.pathsep)
    if not sep or not name or not library:
      raise ValueError(f"PJRT_NAMES_AND_LIBRARY_PATHS entry {item!r} is not NAME{os.pathsep}PATH.")
    if library.endswith(".json"):
      raise NotImplementedError(
          f"PJRT_NAMES_AND_LIBRARY_PATHS: ember loads plugin libraries by path, not JSON "
          f"configs ({library}); give the library's path.")
    out.append(Plugin(name, "env", library))
  return out


def discover(path=None, environ=None) -> list[Plugin]:
  """Every PJRT plugin installed: ``jax_plugins`` modules on ``path`` (default ``sys.path``),
  modules named by ``jax_plugins`` entry points, and ``PJRT_NAMES_AND_LIBRARY_PATHS``'s.

  Example:
      >>> from ember.backend import plugins
      >>> plugins.discover(path=[])
      []
  """
  modules: list[str] = []
  for folder in _package_folders("jax_plugins", path):
    for info in pkgutil.iter_modules([folder], "jax_plugins."):
      if info.name not in modules:
        modules.append(info.name)
  modules += [m for m in _entry_point_modules(path) if m not in modules]
  found = [p for p in (_plugin_from_module(m, path) for m in sorted(modules)) if p is not None]
  environ = os.environ if environ is None else environ
  found += _env_plugins(environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", ""))
  return found


def kernel_package(platform: str, path=None) -> str | None:
  """The installed package of ``platform``'s GPU kernels (``jax_cuda13_plugin``...), if any."""
  for name in _KERNEL_PACKAGES.get(platform, ()):
    if _module_folder(name, path) is not None:
      return name
  return None


def kernel_package_version(name: str, path=None) -> str | None:
  folder = _module_folder(name, path)
  version = _version_in(folder) if folder else None
  if version is None:
    try:
      version = importlib.metadata.version(name.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
      pass
  return version


# --- what to install ----------------------------------------------------------------------------

def install_hint(platform: str) -> str:
  """The command that installs ``platform``'s plugin for this jaxlib.

  Example:
      >>> from ember.backend.plugins import install_hint
      >>> install_hint("cuda").startswith("pip install -e '.[cuda13]'")
      True
  """
  if platform in ("cuda", "gpu"):
    return (f"pip install -e '.[cuda13]' (or '.[cuda12]' for CUDA 12) in ember's source folder, "
            f"which installs jax-cuda13-plugin[with-cuda]=={jaxlib_version}, the plugin built "
            f"for jaxlib {jaxlib_version}")
  if platform == "rocm":
    return f"pip install 'jax-rocm7-plugin=={jaxlib_version}' 'jax-rocm7-pjrt=={jaxlib_version}'"
  return f"the PJRT plugin package for platform '{platform}' built for jaxlib {jaxlib_version}"


def check_version(what: str, version: str | None, platform: str) -> None:
  """A RuntimeError unless ``version`` (of plugin package ``what``) is the installed jaxlib's."""
  if version is None:
    return
  try:
    same = parse_version(version)[:3] == parse_version(jaxlib_version)[:3]
  except ValueError:
    same = False
  if not same:
    raise RuntimeError(
        f"Found {what} {version}, but ember runs on jaxlib {jaxlib_version}: the {platform} "
        f"plugin must have jaxlib's version. Install the matching one: "
        f"{install_hint(platform)}.")


# --- options of a GPU client (as JAX passes them) -----------------------------------------------

_ALLOCATORS = ("default", "platform", "bfc", "cuda_async", "vmm")


def gpu_client_options(platform: str, environ=None) -> dict:
  """The options a GPU plugin's client is made with, read from the environment variables JAX
  reads: ``XLA_PYTHON_CLIENT_ALLOCATOR``, ``XLA_CLIENT_MEM_FRACTION`` (or the older
  ``XLA_PYTHON_CLIENT_MEM_FRACTION``), ``XLA_PYTHON_CLIENT_PREALLOCATE``,
  ``XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB``, ``XLA_PYTHON_CLIENT_ABORT_COLLECTIVES_ON_FAILURE``
  and ``XLA_PYTHON_CLIENT_USE_TFRT_GPU_CLIENT``.

  Example:
      >>> from ember.backend.plugins import gpu_client_options
      >>> env = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5"}
      >>> opts = gpu_client_options("cuda", env)
      >>> opts["preallocate"], opts["memory_fraction"], opts["allocator"]
      (False, 0.5, 'default')
  """
  env = os.environ if environ is None else environ
  opts: dict = {"platform_name": "ROCM" if platform == "rocm" else "cuda"}
  allocator = env.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default").lower()
  if allocator not in _ALLOCATORS:
    raise ValueError(f"XLA_PYTHON_CLIENT_ALLOCATOR must be one of {', '.join(_ALLOCATORS)}; got "
                     f"{allocator!r}.")
  opts["allocator"] = allocator
  fraction, old = env.get("XLA_CLIENT_MEM_FRACTION", ""), env.get(
      "XLA_PYTHON_CLIENT_MEM_FRACTION", "")
  if fraction and old:
    raise ValueError("Both XLA_CLIENT_MEM_FRACTION and XLA_PYTHON_CLIENT_MEM_FRACTION are set; "
                     "remove XLA_PYTHON_CLIENT_MEM_FRACTION (the older name).")
  fraction = fraction or old
  if fraction:
    opts["memory_fraction"] = _number(float, "XLA_CLIENT_MEM_FRACTION", fraction)
  preallocate = env.get("XLA_PYTHON_CLIENT_PREALLOCATE", "")
  if preallocate:
    opts["preallocate"] = preallocate not in ("false", "False", "0")
  collective = env.get("XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", "")
  if collective:
    opts["collective_memory_size"] = _number(
        int, "XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", collective) << 20
  opts["abort_collectives_on_failure"] = bool(_number(
      int, "XLA_PYTHON_CLIENT_ABORT_COLLECTIVES_ON_FAILURE",
      env.get("XLA_PYTHON_CLIENT_ABORT_COLLECTIVES_ON_FAILURE", "0")))
  opts["use_tfrt_gpu_client"] = bool(_number(
      int, "XLA_PYTHON_CLIENT_USE_TFRT_GPU_CLIENT",
      env.get("XLA_PYTHON_CLIENT_USE_TFRT_GPU_CLIENT", "0")))
  return opts


def _number(kind, name: str, text: str):
  try:
    return kind(text)
  except ValueError:
    raise ValueError(f"{name} must be a{'n integer' if kind is int else ' number'}; got "
                     f"{text!r}.") from None
