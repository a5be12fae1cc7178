"""Writes jnp_signatures.json: jax.numpy's public names and their signatures.

Run once with the reference JAX (never from the test suite, which must not import JAX):
    /work/jaxref/bin/python tests/data/make_jnp_signatures.py tests/data/jnp_signatures.json
"""
import inspect
import json
import re
import sys

import jax
import jax.numpy as jnp


def describe(obj):
  """``[[name, kind, repr(default) or None], ...]`` of a callable, None for classes/values."""
  if isinstance(obj, type) or not callable(obj):
    return None
  try:
    sig = inspect.signature(obj)
  except (TypeError, ValueError):
    return None
  return [[p.name, p.kind.name, None if p.default is inspect.Parameter.empty else
           re.sub(r" at 0x[0-9a-f]+", "", repr(p.default))]  # deterministic reprs
          for p in sig.parameters.values()]


def kind_of(obj) -> str:
  if inspect.ismodule(obj):
    return "module"
  if isinstance(obj, type):
    return "class"
  return "function" if callable(obj) else "value"


def main(path: str) -> None:
  names = {}
  for name in sorted(n for n in dir(jnp) if not n.startswith("_")):
    obj = getattr(jnp, name)
    kind = kind_of(obj)
    names[name] = {"kind": kind, "params": describe(obj) if kind == "function" else None}
  lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in names.items())
  with open(path, "w") as f:
    f.write(f'{{"jax_version": {json.dumps(jax.__version__)}, "names": {{\n{lines}\n}}}}\n')


if __name__ == "__main__":
  main(sys.argv[1])
