"""Record the exception type JAX 0.10.2 raises for each bad call of the error sweep.

Run with the Python of a JAX 0.10.2 virtual environment, never from the test suite:

    /work/jaxvenv/bin/python tools/make_error_sweep_golden.py

It runs every case of tests/data/error_sweep_cases.py under JAX (except those that abort
JAX's process, ``JAX_CRASHES``, recorded as ``{"crash": true}``) and writes
tests/data/error_sweep_golden.json: for each case the exception's type name and the names of
its base classes, or what the call returned when JAX accepts it. Only types are stored, not
JAX's messages.
"""
from __future__ import annotations

import json
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
JAX_VERSION = "0.10.2"


def main() -> int:
  sys.path.insert(0, DATA)
  import error_sweep_cases as cases
  import jax
  import jax.numpy as jnp
  from jax import lax
  if jax.__version__ != JAX_VERSION:
    sys.exit(f"this is jax {jax.__version__}; the golden is JAX {JAX_VERSION}'s")
  ns = cases.namespace(jax, jnp, lax)
  out = {}
  warnings.simplefilter("ignore")
  for name in cases.CASES:
    out[name] = {"crash": True} if name in cases.JAX_CRASHES else cases.record(ns, name)
  path = os.path.join(DATA, "error_sweep_golden.json")
  with open(path, "w") as f:
    json.dump({"version": JAX_VERSION, "cases": out}, f, indent=0, sort_keys=True)
    f.write("\n")
  errors = sum("error" in r for r in out.values())
  print(f"{len(out)} cases, {errors} errors under JAX {JAX_VERSION}: wrote {path}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
