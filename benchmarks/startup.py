"""Start-up: ``import`` of the library and its first small eager operation, ember beside JAX.

Each round starts one fresh process per side (the order alternates from round to round). A
process times (a) ``import LIB`` plus ``LIB.numpy``, and (b) from after the import to the first
result of ``(jnp.ones(3) + 1).block_until_ready()``, which starts the backend (the PJRT client)
and compiles and runs two small programs. The figures are medians over rounds, and the
ratio ember/JAX is the median of the per-round ratios (a noisy machine drifts between rounds).
Goal (issue 19): first operation <= 1.0x of JAX's.

Both sides run with bytecode caching on, in one fresh ``PYTHONPYCACHEPREFIX`` warmed by an
untimed process per side, so neither pays for compiling its Python sources (an environment
with ``PYTHONDONTWRITEBYTECODE=1`` would make ember recompile its sources at every import,
while JAX's installed ``.pyc`` files stay usable). Each side runs with its default compilation
cache settings, as a user sees it; ``--no-cache`` turns ember's persistent cache off.

    python benchmarks/startup.py                    # 15 rounds
    python benchmarks/startup.py --rounds 31 --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import run as runner  # noqa: E402  (imports no array library)

GOAL = 1.0
SIDES = ("ember", "jax")

# The child: imports the library by the name it is given, so this file names no other library.
CHILD = """
import sys, time, json, importlib
t0 = time.perf_counter()
lib = importlib.import_module(sys.argv[1])
jnp = importlib.import_module(sys.argv[1] + ".numpy")
t1 = time.perf_counter()
(jnp.ones(3) + 1).block_until_ready()
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_op_s": t2 - t1}))
"""


def _envs(args, pycache: str) -> dict:
  """Each side's interpreter and environment (run.py's shared one, with bytecode caching)."""
  ns = argparse.Namespace(xla_flags=None, platform="cpu")
  env = runner.base_env(ns)
  env.pop("PYTHONDONTWRITEBYTECODE", None)
  env["PYTHONPYCACHEPREFIX"] = pycache
  if args.no_cache:
    env["EMBER_CACHE"] = "0"
  jax_python, _ = runner.resolve_jax_python(args.jax_python)
  return {"ember": (sys.executable, dict(env, PYTHONPATH=runner.REPO), runner.REPO),
          "jax": (jax_python, env, tempfile.gettempdir())}


def _child(side: str, python: str, env: dict, cwd: str) -> dict:
  proc = subprocess.run([python, "-c", CHILD, side], env=env, cwd=cwd, capture_output=True,
                        text=True, timeout=300)
  if proc.returncode:
    raise RuntimeError(f"{side} child failed:\n{proc.stderr[-3000:]}")
  return json.loads(proc.stdout.strip().splitlines()[-1])


def _summary(rows: list, field: str) -> dict:
  e = [r["ember"][field] for r in rows]
  j = [r["jax"][field] for r in rows]
  return {"ember_ms": statistics.median(e) * 1e3, "jax_ms": statistics.median(j) * 1e3,
          "ratio": statistics.median(a / b for a, b in zip(e, j))}


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--rounds", type=int, default=15)
  parser.add_argument("--jax-python", default=None, help="interpreter with JAX (as run.py)")
  parser.add_argument("--no-cache", action="store_true",
                      help="turn ember's persistent compilation cache off (EMBER_CACHE=0)")
  parser.add_argument("--json", help="also write every measurement here")
  args = parser.parse_args(argv)
  pycache = tempfile.mkdtemp(prefix="ember-startup-pyc-")
  try:
    sides = _envs(args, pycache)
    for side in SIDES:  # untimed: writes the bytecode (and warms the OS file cache)
      _child(side, *sides[side])
    rows = []
    for r in range(args.rounds):
      order = SIDES if r % 2 == 0 else SIDES[::-1]
      rows.append({side: _child(side, *sides[side]) for side in order})
  finally:
    shutil.rmtree(pycache, ignore_errors=True)
  result = {"import": _summary(rows, "import_s"), "first_op": _summary(rows, "first_op_s"),
            "rounds": args.rounds, "goal_first_op": GOAL}
  for name, what in (("import", "import LIB, LIB.numpy"),
                     ("first_op", "first op (jnp.ones(3) + 1)")):
    s = result[name]
    print(f"{what:28s} ember {s['ember_ms']:7.1f} ms   jax {s['jax_ms']:7.1f} ms   "
          f"ember/jax {s['ratio']:.2f}x")
  ok = result["first_op"]["ratio"] <= GOAL
  print(f"first op goal <= {GOAL:.1f}x: {'MET' if ok else 'MISS'}  ({args.rounds} rounds)")
  if args.json:
    with open(args.json, "w") as f:
      json.dump(dict(result, measurements=rows), f, indent=1)
  return result


if __name__ == "__main__":
  main()
