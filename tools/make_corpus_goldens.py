"""Make the differential corpus's goldens: run every program in tests/corpus/programs under real
JAX 0.10.2, in a side virtual environment, and store the records in tests/corpus/goldens.

    python tools/make_corpus_goldens.py                       # all modules; makes .cache/jaxvenv
    python tools/make_corpus_goldens.py --jax-python PY autodiff.py ...

Not run in CI (CI has no JAX): run it after adding or changing programs and commit the goldens.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "tests", "corpus", "programs")
GOLDENS = os.path.join(ROOT, "tests", "corpus", "goldens")
JAX_VERSION = "0.10.2"


def side_python(path: str | None) -> str:
  """The Python of a venv with jax==JAX_VERSION, made under .cache/ when not given."""
  if path:
    return path
  venv = os.path.join(ROOT, ".cache", "jaxvenv")
  py = os.path.join(venv, "bin", "python")
  if not os.path.exists(py):
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", f"jax=={JAX_VERSION}",
                    f"jaxlib=={JAX_VERSION}", "numpy", "scipy"], check=True)
  return py


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("modules", nargs="*", help="program files or names (default: all)")
  parser.add_argument("--jax-python", help="a Python with jax==0.10.2 (default: make a venv)")
  args = parser.parse_args(argv)
  py = side_python(args.jax_python)
  version = subprocess.run([py, "-c", "import jax; print(jax.__version__)"], check=True,
                           capture_output=True, text=True).stdout.strip()
  if version != JAX_VERSION:
    sys.exit(f"{py} has jax {version}; the goldens are JAX {JAX_VERSION}'s")
  mods = [m if os.path.exists(m) else os.path.join(PROGRAMS, m if m.endswith(".py") else m + ".py")
          for m in args.modules] or sorted(glob.glob(os.path.join(PROGRAMS, "*.py")))
  env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8")
  env.pop("PYTHONPATH", None)
  harness = os.path.join(ROOT, "tests", "corpus", "harness.py")
  for m in mods:  # one process per module: no state carried between modules
    subprocess.run([py, harness, "--framework", "jax", "--out", GOLDENS, m], check=True, env=env)
  return 0


if __name__ == "__main__":
  sys.exit(main())
