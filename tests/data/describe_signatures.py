"""Writes a JSON description of a numpy-like module's public names and their signatures.

The module is named on the command line, so this file imports no array library itself; the
reference JSON for tests/test_numpy_api_surface.py was written by running it with the reference
JAX's interpreter, in its own process (never from the test suite):
    /work/jaxref/bin/python tests/data/describe_signatures.py jax.numpy tests/data/jnp_signatures.json

``tools/make_surface.py`` uses ``describe_callable`` for the signatures of every other module
(tests/test_api_signatures.py), so all the signature tests read one description.
"""
import importlib
import inspect
import json
import re
import sys


def _params(obj):
  """``[[name, kind, repr(default) or None], ...]`` of ``obj``'s signature, None without one."""
  try:
    sig = inspect.signature(obj)
  except (TypeError, ValueError):
    return None
  return [[p.name, p.kind.name, None if p.default is inspect.Parameter.empty else
           re.sub(r" at 0x[0-9a-f]+", "", repr(p.default))]  # deterministic reprs
          for p in sig.parameters.values()]


def describe(obj):
  """``[[name, kind, repr(default) or None], ...]`` of a callable, None for classes/values."""
  if isinstance(obj, type) or not callable(obj):
    return None
  return _params(obj)


def describe_callable(obj):
  """``describe`` extended to classes (their constructor's parameters); None when Python gives
  no signature (builtin types, NumPy scalar types)."""
  return _params(obj) if callable(obj) else None


def kind_of(obj) -> str:
  if inspect.ismodule(obj):
    return "module"
  if isinstance(obj, type):
    return "class"
  return "function" if callable(obj) else "value"


def main(module_name: str, path: str) -> None:
  module = importlib.import_module(module_name)
  top = importlib.import_module(module_name.split(".")[0])
  names = {}
  for name in sorted(n for n in dir(module) if not n.startswith("_")):
    obj = getattr(module, name)
    kind = kind_of(obj)
    names[name] = {"kind": kind, "params": describe(obj) if kind == "function" else None}
  lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in names.items())
  with open(path, "w") as f:
    f.write(f'{{"jax_version": {json.dumps(top.__version__)}, "names": {{\n{lines}\n}}}}\n')


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
