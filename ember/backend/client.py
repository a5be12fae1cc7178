"""The PJRT clients (backends) and their devices, created together on first use.

Backends are JAX's: the CPU always, and a GPU when a PJRT plugin for it is installed (JAX's
``jax-cuda13-pjrt``/``jax-cuda12-pjrt`` packages, found by ``ember.backend.plugins``; ROCm and
other vendors' plugins the same way). The GPU, when present, is the default backend, as in JAX.
``JAX_PLATFORMS`` / ``ember.config.update("jax_platforms", "cpu,cuda")`` names the backends to
start, the first being the default (any that cannot start is an error);
``jax_platform_name`` picks the default among those started. ``"gpu"`` stands for whichever of
``"cuda"`` and ``"rocm"`` is present.

The number of CPU devices comes from ``ember.config.update("jax_num_cpu_devices", n)`` (before
first use) or from ``XLA_FLAGS=--xla_force_host_platform_device_count=n``. After
``ember.distributed.initialize`` the CPU client joins a run of several processes: ``devices()``
are all processes' devices, ``local_devices()`` this process's, and collectives go over gloo.

Example:
    >>> import ember
    >>> ember.default_backend()
    'cpu'
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import importlib
import logging
import os
import re
import threading

from jaxlib import xla_client as xc

from ember.config import config
from ember.backend import plugins

Device = xc.Device  # the class of every device (``ember.Device``, as ``jax.Device``)

__all__ = ["get_client", "get_backend", "backends", "devices", "local_devices", "device_count",
           "local_device_count", "default_backend", "default_device", "replicated_sharding",
           "device_list", "process_index", "process_count", "is_started", "join_processes",
           "platform_of"]

_logger = logging.getLogger("ember")
_client = None  # the CPU client, once started
_backends: dict = {}  # platform ("cpu", "cuda", "rocm"...) -> client, in priority order
_platforms: dict = {}  # id(client) -> its platform name as above (a GPU client says "gpu")
_lock = threading.RLock()
_distributed: dict = {}  # how the CPU client joins other processes (set by join_processes)
_NVIDIA_DEVICE_FILES = ("/dev/nvidia0", "/dev/nvidiactl", "/dev/dxg")


def _requested_device_count() -> int:
  n = config.jax_num_cpu_devices
  if n is not None and n > 0:
    return int(n)
  m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
  return int(m.group(1)) if m else 1


def _make_cpu_client():
  global _client
  _client = xc.make_cpu_client(asynchronous=True, num_devices=_requested_device_count(),
                               **_distributed_options())
  from ember.backend import lapack
  lapack.register()
  return _client


# --- GPU plugins -------------------------------------------------------------------------------

# NVIDIA's libraries from their pip packages (``nvidia-*``, pulled by the plugin's ``with-cuda``
# extra), loaded before the plugin so that it finds them, as JAX's plugin module does.
_NVIDIA_LIBRARIES = (
    ("cuda_runtime", "libcudart.so.12"), ("cu13", "libcudart.so.13"),
    ("cuda_nvrtc", "libnvrtc.so.12"), ("cu13", "libnvrtc.so.13"),
    ("cublas", "libcublas.so.12"), ("cublas", "libcublasLt.so.12"),
    ("cu13", "libcublas.so.13"), ("cu13", "libcublasLt.so.13"), ("nccl", "libnccl.so.2"),
    ("cuda_cupti", "libcupti.so.12"), ("cu13", "libcupti.so.13"),
    ("cusparse", "libcusparse.so.12"), ("cusolver", "libcusolver.so.11"),
    ("cu13", "libcusolver.so.12"), ("cufft", "libcufft.so.11"), ("cu13", "libcufft.so.12"),
    ("nvshmem", "libnvshmem_host.so.3"), ("cudnn", "libcudnn.so.9"))


def _load_nvidia_libraries() -> None:
  for package, library in _NVIDIA_LIBRARIES:
    try:
      folder = importlib.util.find_spec(f"nvidia.{package}")
    except (ImportError, ValueError):
      folder = None
    if folder is None or not folder.submodule_search_locations:
      continue
    path = os.path.join(list(folder.submodule_search_locations)[0], "lib", library)
    if os.path.exists(path):
      try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
      except OSError:  # the plugin reports what it then cannot find
        pass


def _has_nvidia_gpu() -> bool:
  return any(os.path.exists(f) for f in _NVIDIA_DEVICE_FILES)


def _register_kernels(platform: str, c_api) -> None:
  """Hand the plugin's GPU kernels (cuSOLVER, cuBLAS... custom-call targets) to XLA, as JAX
  registers them: through the plugin extension's handler, for platform "CUDA"/"ROCM"."""
  package = plugins.kernel_package(platform)
  if package is None:
    _logger.warning("The %s plugin's kernel package (%s) is not installed: linear algebra on "
                    "the GPU will not compile. %s", platform, " or ".join(
                        plugins._KERNEL_PACKAGES.get(platform, ())), plugins.install_hint(platform))
    return
  plugins.check_version(package.replace("_", "-"), plugins.kernel_package_version(package),
                        platform)
  xla_name = platform.upper()
  extension = importlib.import_module(f"{package}.{platform}_plugin_extension")
  xc.register_custom_call_handler(
      xla_name, functools.partial(extension.register_custom_call_target, c_api))
  if hasattr(extension, "register_custom_type"):
    xc.register_custom_type_handler(
        xla_name, functools.partial(extension.register_custom_type, c_api))
    for name, type_id in getattr(extension, "ffi_types", dict)().items():
      xc.register_custom_type(name, type_id, platform=xla_name)
  handlers = getattr(extension, "ffi_handlers", None) or getattr(extension, "ffi_registrations",
                                                                   dict)
  for name, capsule in handlers().items():
    xc.register_custom_call_target(name, capsule, platform=xla_name, api_version=1)
  for module in ("_solver", "_hybrid", "_linalg", "_prng", "_sparse", "_rnn"):
    try:
      kernels = importlib.import_module(f"{package}.{module}")
    except ImportError:
      continue
    for name, capsule in kernels.registrations().items():
      typed = name.endswith("_ffi") or module in ("_hybrid", "_linalg")
      xc.register_custom_call_target(name, capsule, platform=xla_name,
                                     api_version=1 if typed else 0)
      if (typed and module in ("_solver", "_hybrid")) or name.endswith(
          "_lu_pivots_to_permutation"):  # the ones JAX lets XLA split over a batch
        xc.register_custom_call_as_batch_partitionable(name)
  hybrid = importlib.util.find_spec(f"{package}._hybrid")
  if hybrid is not None:
    try:
      importlib.import_module(f"{package}._hybrid").initialize()
    except Exception:  # pragma: no cover - MAGMA absent: the hybrid kernels are not used
      pass


def _start_plugin(plugin: "plugins.Plugin", explicit: bool):
  """The client of ``plugin``'s platform (loading its library by path)."""
  platform = plugin.platform
  if platform == "cuda" and not explicit and not _has_nvidia_gpu():
    return None  # JAX too skips its CUDA plugin where no NVIDIA GPU is visible
  if plugin.library is None:
    raise RuntimeError(f"the plugin module {plugin.module} has no PJRT library "
                       f"(xla_{platform}_plugin.so) beside it. Reinstall it: "
                       f"{plugins.install_hint(platform)}.")
  plugins.check_version(plugin.distribution or plugin.module, plugin.version, platform)
  if platform == "cuda" and not _has_nvidia_gpu():
    raise RuntimeError(f"no NVIDIA GPU is visible on this machine (none of "
                       f"{', '.join(_NVIDIA_DEVICE_FILES)} exists), although the CUDA plugin "
                       f"({plugin.module}) is installed. Use JAX_PLATFORMS=cpu here.")
  if platform == "cuda":
    _load_nvidia_libraries()
  options = plugins.gpu_client_options(platform) if platform in ("cuda", "rocm") else {}
  if not xc.pjrt_plugin_loaded(platform):
    c_api = xc.load_pjrt_plugin_dynamically(platform, plugin.library)
  else:
    c_api = _c_apis.get(platform)
  _c_apis[platform] = c_api
  if not xc.pjrt_plugin_initialized(platform):
    xc.initialize_pjrt_plugin(platform)
  client = xc.make_c_api_client(platform, options, None)
  if not client.devices():
    raise RuntimeError(f"Backend '{platform}' provides no devices.")
  if platform in ("cuda", "rocm"):
    _register_kernels(platform, c_api)
  return client


_c_apis: dict = {}


# --- choosing and starting the backends ---------------------------------------------------------

def _not_installed(platform: str, found) -> RuntimeError:
  names = plugins.known_platforms(found)
  if platform in ("cuda", "rocm"):
    why = (f"no {platform.upper() if platform == 'rocm' else 'CUDA'} plugin is installed. "
           f"Install it: {plugins.install_hint(platform)}")
  elif platform == "tpu":
    why = "ember has no TPU backend (no TPU plugin is installed)."
  else:
    why = (f"Backend '{platform}' is not in the list of known backends: {names}. Check the "
           "spelling, or install the PJRT plugin that provides it.")
  return RuntimeError(why)


def plan(requested: str | None, found) -> list[tuple[str, int, bool]]:
  """(platform, priority, required) of each backend to start, in the order tried: the ones
  ``requested`` (``jax_platforms``) names, the first the default, each required (``"gpu"``
  stands for CUDA and ROCm, of which one is enough); else the CPU and every plugin found.

  Example:
      >>> from ember.backend import client, plugins
      >>> cuda = plugins.Plugin("cuda", "jax_plugins.xla_cuda13", "/x/xla_cuda_plugin.so")
      >>> client.plan(None, [cuda])
      [('cpu', 0, False), ('cuda', 500, False)]
      >>> client.plan("cpu,gpu", [cuda])
      [('cpu', 3, True), ('cuda', 2, False), ('rocm', 1, False)]
  """
  if requested:
    names: list[tuple[str, bool]] = []
    for name in (n.strip() for n in requested.split(",")):
      for p in plugins.expand_platforms(name):
        if p not in [n for n, _ in names]:
          names.append((p, name != "gpu"))
    return [(n, len(names) - i, req) for i, (n, req) in enumerate(names)]
  seen = ["cpu"]
  out = [("cpu", 0, False)]
  for p in found:
    if p.platform not in seen:
      seen.append(p.platform)
      out.append((p.platform, p.priority, False))
  return out


def _start_backends() -> dict:
  """Start every backend (once): the ones ``jax_platforms`` names, else all that are found."""
  requested = config.jax_platforms
  only_cpu = bool(requested) and all(p.strip() == "cpu" for p in requested.split(","))
  found = [] if only_cpu else plugins.discover()
  by_platform: dict = {}
  for p in found:
    by_platform.setdefault(p.platform, p)
  started: list = []
  errors: dict = {}
  for name, priority, required in plan(requested, found):
    try:
      client = _start_one(name, by_platform, found, explicit=bool(requested))
    except Exception as e:
      if requested and not required:
        errors[name] = e
        continue  # one of "gpu"'s platforms: the other may be here
      hint = ("(set JAX_PLATFORMS='' to automatically choose an available backend)" if requested
              else "(you may need to uninstall the failing plugin package, or set "
              "JAX_PLATFORMS=cpu to skip this backend.)")
      raise RuntimeError(f"Unable to initialize backend '{name}': {e} {hint}") from None
    if client is not None:
      _platforms[id(client)] = name
      started.append((priority, name, client))
  if requested and "gpu" in [n.strip() for n in requested.split(",")] and not any(
      n in ("cuda", "rocm") for _, n, _ in started):
    why = errors.get("cuda") if "cuda" in by_platform else None
    raise RuntimeError(f"Unable to initialize backend 'gpu': {why or _not_installed('cuda', found)}"
                       " (set JAX_PLATFORMS='' to automatically choose an available backend)")
  started.sort(key=lambda t: -t[0])
  return {name: client for _, name, client in started}


def _start_one(name: str, by_platform: dict, found, explicit: bool):
  if name == "cpu":
    return _make_cpu_client()
  plugin = by_platform.get(name)
  if plugin is None:
    raise _not_installed(name, found)
  return _start_plugin(plugin, explicit)


def backends() -> dict:
  """The started backends by platform name, the default first: ``{'cpu': client}`` (with a
  GPU: ``{'cuda': client, 'cpu': client}``)."""
  if not _backends:
    with _lock:
      if not _backends:
        _backends.update(_start_backends())
  return _backends


def _resolve(platform: str) -> str:
  """A started backend's platform name for ``platform`` (``"gpu"``: CUDA or ROCm), or JAX's
  error naming the backends present (with what to install, for a GPU)."""
  bs = backends()
  if platform in bs:
    return platform
  if platform == "gpu":
    for p in ("cuda", "rocm"):
      if p in bs:
        return p
  present = list(bs)
  hint = ""
  if platform in ("gpu", "cuda", "rocm"):
    kind = "rocm" if platform == "rocm" else "cuda"
    hint = (f" (no {'ROCm' if kind == 'rocm' else 'CUDA'} backend started; to install one: "
            f"{plugins.install_hint(kind)})")
  if platform == "gpu":
    raise RuntimeError(f"Unknown backend: 'gpu' requested, but no platforms that are "
                       f"instances of gpu are present. Platforms present are: "
                       f"{','.join(present)}{hint}")
  raise RuntimeError(f"Unknown backend {platform}. Available backends are {present}{hint}")


def get_backend(platform=None):
  """The PJRT client of ``platform`` (a name, or a client returned as it is); None: the default
  backend (``jax_platform_name``'s when set)."""
  if platform is not None and not isinstance(platform, str):
    return platform
  platform = platform or config.jax_platform_name or None
  bs = backends()
  if platform is None:
    return next(iter(bs.values()))
  return bs[_resolve(platform)]


def get_client(platform=None):
  """The default backend's PJRT client (or ``platform``'s), all backends started on first call."""
  if platform is None and _backends and not config.jax_platform_name:
    return next(iter(_backends.values()))
  return get_backend(platform)


def platform_of(client_or_device) -> str:
  """The platform name of a client or device as lowering rules use it: ``"cpu"``, ``"cuda"``,
  ``"rocm"`` (a device says ``"gpu"`` for both GPUs)."""
  client = getattr(client_or_device, "client", client_or_device)
  name = _platforms.get(id(client))
  if name is not None:
    return name
  name = client.platform
  if name == "gpu":
    version = str(getattr(client, "platform_version", "")).lower()
    return "rocm" if "rocm" in version else "cuda"
  return name


_COLLECTIVES = (None, "gloo", "mpi")


def _check_collectives(name, old, new):
  if new not in _COLLECTIVES:
    raise ValueError(f"new enum value must be None or in {list(_COLLECTIVES[1:])}, got {new!r} "
                     f"of type {type(new)}.")


config.watch("jax_cpu_collectives_implementation", _check_collectives)


def _distributed_options() -> dict:
  """The CPU client's arguments for joining other processes, with the configured collectives."""
  if not _distributed:
    return {}
  from jaxlib import _jax
  kind = config.jax_cpu_collectives_implementation
  collectives = None
  if kind == "gloo":
    collectives = _jax.make_gloo_tcp_collectives(_distributed["distributed_client"])
  elif kind == "mpi":
    collectives = _jax.make_mpi_collectives()
    collectives.Init()
    atexit.register(collectives.Finalize)
  return dict(_distributed, collectives=collectives)


def is_started() -> bool:
  """Whether the backends (the PJRT clients) have been created."""
  return bool(_backends)


def join_processes(runtime_client, process_id: int, num_processes: int) -> None:
  """Make the CPU client, when it is created, one of ``num_processes`` processes that meet
  through ``runtime_client`` (a connected distributed runtime client)."""
  assert not _backends, "processes must be joined before the backend starts"
  _distributed.update(distributed_client=runtime_client, node_id=process_id,
                      num_nodes=num_processes)


def _refuse_late_update(name, old, new):
  if _client is not None and old != new:
    raise RuntimeError(
        f"{name} must be set before ember's backend is first used (it already has "
        f"{len(_client.devices())} devices). Call ember.config.update({name!r}, {new!r}) right "
        "after importing ember.")


config.watch("jax_num_cpu_devices", _refuse_late_update)


def _check_platforms(name, old, new):
  """Once the backends have started, ``jax_platforms``/``jax_platform_name`` may only name
  started ones (the backends are not started again)."""
  if not _backends or not new or new == old:
    return
  for platform in (p.strip() for p in new.split(",")):
    if platform in _backends or (platform == "gpu" and ("cuda" in _backends or
                                                         "rocm" in _backends)):
      continue
    found = plugins.discover()
    if any(p.platform == platform for p in found):
      why = (f"ember's backends have already started ({', '.join(_backends)}); set {name} "
             "before the first operation (or JAX_PLATFORMS in the environment).")
    else:
      why = str(_not_installed("cuda" if platform == "gpu" else platform, found))
    raise RuntimeError(f"Unable to initialize backend '{platform}': {why}")


config.watch("jax_platforms", _check_platforms)
config.watch("jax_platform_name", _check_platforms)


def _named_client(backend):
  """The client a ``backend=`` argument names (a platform name, a client, or None)."""
  return get_backend(backend)


def devices(backend=None) -> list:
  """All devices of the default (or named) backend: ``[CpuDevice(id=0), ...]``.

  Example:
      >>> import ember
      >>> ember.devices()[:2]
      [CpuDevice(id=0), CpuDevice(id=1)]
      >>> ember.devices("cpu")[0]
      CpuDevice(id=0)
  """
  return list(_named_client(backend).devices())


def local_devices(process_index=None, backend=None) -> list:
  """The devices of process ``process_index`` (this process when None).

  Example:
      >>> import ember
      >>> ember.local_devices()[0], ember.local_devices(process_index=0)[1]
      (CpuDevice(id=0), CpuDevice(id=1))
  """
  client = _named_client(backend)
  if process_index is None:
    return list(client.local_devices())
  return [d for d in client.devices() if d.process_index == process_index]


def device_count(backend=None) -> int:
  """How many devices the default (or named) backend has, over all processes (ember's
  doctests run with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``).

  Example:
      >>> import ember
      >>> ember.device_count()
      8
  """
  return len(devices(backend))


def local_device_count(backend=None) -> int:
  """How many devices this process has (``device_count()`` when it runs alone).

  Example:
      >>> import ember
      >>> ember.local_device_count() == ember.device_count()
      True
  """
  return len(local_devices(backend=backend))


def process_index(backend=None) -> int:
  """This process's index among the processes of a run (0 when it runs alone).

  Example:
      >>> import ember
      >>> ember.process_index()
      0
  """
  return _named_client(backend).process_index()


def process_count(backend=None) -> int:
  """How many processes the run has (1 unless ``ember.distributed.initialize`` joined more).

  Example:
      >>> import ember
      >>> ember.process_count()
      1
  """
  return max(d.process_index for d in devices(backend)) + 1


def default_backend() -> str:
  """The platform name of the default backend: ``'gpu'`` when a GPU backend started (as JAX
  names CUDA and ROCm alike), else ``'cpu'``.

  Example:
      >>> import ember
      >>> ember.default_backend()
      'cpu'
  """
  return get_client().platform


_GPU_PLATFORMS = ("gpu", "cuda", "rocm", "tpu", "METAL")


def default_device():
  """Where arrays made without a device go: ``jax_default_device`` (a device, or a platform
  name for its first device), else this process's first device of the default backend."""
  dev = config.jax_default_device
  if dev is None:
    return get_client().local_devices()[0]
  if not isinstance(dev, str):
    return dev
  return get_backend(dev).local_devices()[0]


# --- transfer guards: jaxlib checks host-to-device transfers against these levels ------------

_GUARD_DIRECTIONS = {"jax_transfer_guard_host_to_device": "host_to_device",
                     "jax_transfer_guard_device_to_device": "device_to_device",
                     "jax_transfer_guard_device_to_host": "device_to_host"}
guards_on = False  # whether any guard is set (device_put/device_get then mark themselves)


def _apply_guards(name, old, new) -> None:
  from jaxlib import _jax
  global guards_on
  levels = {n: getattr(config, n) for n in ("jax_transfer_guard", *_GUARD_DIRECTIONS)}
  levels[name] = new
  state, level = _jax.guard_lib.global_state(), _jax.guard_lib.TransferGuardLevel
  for option, field in _GUARD_DIRECTIONS.items():
    value = levels[option] or levels["jax_transfer_guard"]
    setattr(state, field, None if value is None else getattr(level, value.upper()))
  guards_on = any(v is not None for v in levels.values())


for _name in ("jax_transfer_guard", *_GUARD_DIRECTIONS):
  config.watch(_name, _apply_guards)


@contextlib.contextmanager
def explicit_transfer(kind: str):
  """Mark the transfers inside as explicit (``kind``: ``"put"`` or ``"get"``), which the
  ``disallow`` guard level allows."""
  from jaxlib import _jax
  state = _jax.guard_lib.thread_local_state()
  field = "explicit_device_put" if kind == "put" else "explicit_device_get"
  old = getattr(state, field)
  setattr(state, field, True)
  try:
    yield
  finally:
    setattr(state, field, old)


_device_lists: dict = {}
_replicated: dict = {}


def device_list(devs) -> "xc.DeviceList":
  devs = tuple(devs)
  dl = _device_lists.get(devs)
  if dl is None:
    dl = _device_lists[devs] = xc.DeviceList(devs)
  return dl


def replicated_sharding(device) -> "xc.GSPMDSharding":
  """The exact C++ sharding that places a whole array on ``device``."""
  s = _replicated.get(device)
  if s is None:
    s = _replicated[device] = xc.GSPMDSharding(device_list((device,)), xc.HloSharding.replicate())
  return s
