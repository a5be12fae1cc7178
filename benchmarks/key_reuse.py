"""The key reuse checker's cost on eager random calls: ``random.normal(key, (3,))`` per call,
with eager checks on (``jax_debug_key_reuse=None``, ember's eager-only setting) and off
(``False``, the default).

Each call gets a key of its own (``random.key(i)``, made before the timing), so the checked
calls do not raise. Rounds alternate the two settings; each round times one batch of calls per
setting (GC off), and the result is the median over rounds of the per-call time, and the median
of the per-round ratio checked/unchecked (also the ratio of the fastest batches, steadier on a
busy machine). Goal (issue 18): at most 1.05.

    python benchmarks/key_reuse.py                # 41 rounds of 1000 calls
    python benchmarks/key_reuse.py --rounds 31 --calls 5000 --json out.json
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ember  # noqa: E402
from ember import random  # noqa: E402

GOAL = 1.05


def _batch(keys) -> float:
  """Seconds per call of ``random.normal(key, (3,))`` over ``keys``."""
  gc.disable()
  try:
    start = time.perf_counter()
    for key in keys:
      random.normal(key, (3,))
    return (time.perf_counter() - start) / len(keys)
  finally:
    gc.enable()


def _timed(setting, calls: int) -> float:
  keys = [random.key(i) for i in range(calls)]
  with ember.config._option("jax_debug_key_reuse", setting):
    return _batch(keys)


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--rounds", type=int, default=41)
  parser.add_argument("--calls", type=int, default=1000)
  parser.add_argument("--json", help="also write the results to this file")
  args = parser.parse_args(argv)
  random.normal(random.key(0), (3,)).block_until_ready()  # compile once
  _timed(False, 200), _timed(None, 200)  # warm both paths
  checked, unchecked, ratios = [], [], []
  for r in range(args.rounds):
    order = (None, False) if r % 2 == 0 else (False, None)
    times = {setting: _timed(setting, args.calls) for setting in order}
    checked.append(times[None])
    unchecked.append(times[False])
    ratios.append(times[None] / times[False])
  result = {
      "case": "eager random.normal(key, (3,)) per call",
      "checked_us": statistics.median(checked) * 1e6,
      "unchecked_us": statistics.median(unchecked) * 1e6,
      "ratio": statistics.median(ratios),
      "ratio_of_fastest": min(checked) / min(unchecked),
      "goal": GOAL,
      "rounds": args.rounds, "calls": args.calls,
  }
  result["overhead_us"] = result["checked_us"] - result["unchecked_us"]
  print(f"random.normal(key, (3,)) eager: checked {result['checked_us']:.2f} us, unchecked "
        f"{result['unchecked_us']:.2f} us per call (medians); ratio {result['ratio']:.3f} "
        f"(median of rounds), {result['ratio_of_fastest']:.3f} (fastest batches) "
        f"({'OK' if result['ratio'] <= GOAL else 'MISS'}, goal <= {GOAL})")
  if args.json:
    with open(args.json, "w") as f:
      json.dump(result, f, indent=2)
  return result


if __name__ == "__main__":
  main()
