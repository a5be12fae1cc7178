"""Record the public names of every JAX 0.10.2 module a user imports, for the docs and tests.

Run with the Python of a JAX 0.10.2 virtual environment, never from the test suite (from a
directory where ``ember`` is not importable, so nothing shadows JAX):

    cd /tmp && /work/jaxvenv/bin/python /work/main/tools/make_surface.py

It writes tests/data/jax_surface.json: ``{"jax_version", "rule", "modules": {module: [names]},
"not_importable": {module: reason}}``. ``tools/make_docs_surface.py`` (ember's Python, no JAX)
compares it with ember and writes the list of missing names into docs/differences.md;
tests/test_docs_fresh.py checks that list is current.

It also writes tests/data/jax_signatures.json: ``{"jax_version", "signatures": {module: {name:
{"kind", "params"}}}}``, the parameters of every listed name Python gives a signature for
(functions, and classes' constructors), described by tests/data/describe_signatures.py as the
jax.numpy and jax.lax files are; tests/test_api_signatures.py compares ember's with them.
``jax.numpy`` and ``jax.lax`` are left out there: their own files and tests cover them.

Which modules: every public top-level module of the ``jax`` package (except ``SKIPPED``:
command-line tools and jaxlib plumbing), every public module directly inside the packages users
import submodules from (``jax.experimental``, ``jax.extend``, ``jax.interpreters``,
``jax.example_libraries``), every public module of ``jax.scipy`` at any depth
(``jax.scipy.spatial.transform``), and, repeatedly, every public submodule a listed module holds
as an attribute (``jax.numpy.fft``, ``jax.extend.core.primitives``). Deeper modules of the other
packages are left out: they are MLIR bindings (``jax.extend.mlir.dialects``) or the parts of
Pallas and other experimental packages.

Which names (``RULE``): a module's ``__all__`` when it defines one, otherwise what ``dir()`` shows;
in both cases without names that start with an underscore, without modules (submodules are
entries of their own), without objects imported from the standard library under their own
name (``Any``, ``partial`` in a module that imports them) and without JAX's internal helpers
from ``jax._src.util`` (``safe_zip``, ``split_list``, the ``map``/``zip`` it shadows builtins
with) that modules without ``__all__`` import for their own use.
"""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "jax_surface.json")
SIGNATURES_OUT = os.path.join(ROOT, "tests", "data", "jax_signatures.json")
OWN_SIGNATURE_FILES = ("jax.numpy", "jax.lax")  # jnp_signatures.json, lax_signatures.json
JAX_VERSION = "0.10.2"
SKIPPED = ("cloud_tpu_init", "collect_profile", "lib", "tools")
PACKAGES_OF_SUBMODULES = ("jax.experimental", "jax.extend", "jax.interpreters",
                          "jax.example_libraries")
PACKAGES_AT_ANY_DEPTH = ("jax.scipy",)
RULE = ("__all__ when defined, else dir(); minus names starting with '_', modules, "
        "standard-library objects imported under their own name and jax._src.util helpers")
INTERNAL_HELPERS = "jax._src.util"


def _children(package) -> list[str]:
  """The public modules found on disk directly inside ``package``."""
  path = getattr(package, "__path__", None)
  if path is None:
    return []
  return [f"{package.__name__}.{name}" for _, name, _ in pkgutil.iter_modules(path)
          if not name.startswith("_")]


def _descendants(package) -> list[str]:
  """The public modules found on disk anywhere inside ``package``."""
  prefix = package.__name__ + "."
  found = pkgutil.walk_packages(package.__path__, prefix, onerror=lambda name: None)
  return [name for _, name, _ in found if "._" not in name]


def _is_stdlib_import(obj, name: str) -> bool:
  """Whether ``obj`` is the standard library's own object of that name (an imported helper)."""
  home = getattr(obj, "__module__", None)
  if not isinstance(home, str) or home.split(".")[0] not in sys.stdlib_module_names:
    return False
  return getattr(sys.modules.get(home), name, None) is obj


def public_names(module) -> list[str]:
  """The names of ``module`` a user reaches, by ``RULE``."""
  declared = getattr(module, "__all__", None)
  names = list(declared) if declared is not None else dir(module)
  keep = []
  for name in names:
    if name.startswith("_") or not hasattr(module, name):
      continue
    obj = getattr(module, name)
    if (isinstance(obj, types.ModuleType) or _is_stdlib_import(obj, name)
        or getattr(obj, "__module__", None) == INTERNAL_HELPERS):
      continue
    keep.append(name)
  return sorted(set(keep))


def _attribute_submodules(module) -> list[str]:
  """Public submodules ``module`` holds as attributes (its own, not modules it imported)."""
  found = []
  for name in dir(module):
    obj = getattr(module, name, None)
    if (not name.startswith("_") and isinstance(obj, types.ModuleType)
        and obj.__name__ == f"{module.__name__}.{name}"):
      found.append(obj.__name__)
  return found


def collect() -> tuple[dict[str, list[str]], dict[str, str]]:
  """Import every module (see the module docstring) and list its public names."""
  import jax
  skipped = {f"jax.{name}" for name in SKIPPED}
  todo = ["jax"] + _children(jax)
  todo += [child for package in PACKAGES_OF_SUBMODULES
           for child in _children(importlib.import_module(package))]
  todo += [module for package in PACKAGES_AT_ANY_DEPTH
           for module in _descendants(importlib.import_module(package))]
  modules: dict[str, object] = {}
  failed: dict[str, str] = {}
  while todo:
    name = todo.pop()
    if name in modules or name in failed or name in skipped:
      continue
    try:
      modules[name] = importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - recorded as not importable here (e.g. needs TensorFlow)
      failed[name] = f"{type(e).__name__}: {e}".splitlines()[0]
      continue
    todo += _attribute_submodules(modules[name])
  return {name: public_names(m) for name, m in sorted(modules.items())}, dict(sorted(failed.items()))


def signatures(modules: dict[str, list[str]]) -> dict[str, dict[str, dict]]:
  """Per module, ``{name: {"kind", "params"}}`` for the names that have a signature."""
  sys.path.insert(0, os.path.join(ROOT, "tests", "data"))
  import describe_signatures as describe
  out = {}
  for module_name, names in modules.items():
    if module_name in OWN_SIGNATURE_FILES:
      continue
    module = importlib.import_module(module_name)
    found = {}
    for name in names:
      obj = getattr(module, name)
      params = describe.describe_callable(obj)
      if params is not None:
        found[name] = {"kind": describe.kind_of(obj), "params": params}
    if found:
      out[module_name] = found
  return out


def write_signatures(modules: dict[str, list[str]]) -> int:
  """Write SIGNATURES_OUT, one line per name (readable diffs); the number of names written."""
  described = signatures(modules)
  lines = []
  for module_name, names in described.items():
    entries = ",\n".join(f"  {json.dumps(n)}: {json.dumps(v)}" for n, v in names.items())
    lines.append(f" {json.dumps(module_name)}: {{\n{entries}\n }}")
  body = ",\n".join(lines)
  with open(SIGNATURES_OUT, "w") as f:
    f.write(f'{{"jax_version": {json.dumps(JAX_VERSION)}, "signatures": {{\n{body}\n}}}}\n')
  return sum(len(names) for names in described.values())


def main() -> int:
  import jax
  if jax.__version__ != JAX_VERSION:
    sys.exit(f"this is jax {jax.__version__}; the surface is JAX {JAX_VERSION}'s")
  warnings.simplefilter("ignore")
  modules, failed = collect()
  record = {"jax_version": JAX_VERSION, "rule": RULE, "modules": modules,
            "not_importable": failed}
  with open(OUT, "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
    f.write("\n")
  total = sum(len(names) for names in modules.values())
  print(f"wrote {OUT}: {len(modules)} modules, {total} names, {len(failed)} not importable")
  print(f"wrote {SIGNATURES_OUT}: {write_signatures(modules)} signatures")
  return 0


if __name__ == "__main__":
  sys.exit(main())
