"""Write tests/slow_tests.txt, the slow tier, from a pytest ``--durations`` report.

The README's test command (what CI runs) must finish in 15 minutes on 2 cores; most of the time
is XLA compiling. Tests whose call took at least ``--threshold`` seconds in the report move to the
slow tier, which runs with ``pytest --slow`` (or ``EMBER_SLOW_TESTS=1``); the end-to-end checks a
new user meets first (docs build, examples, notebooks, seeds, flags, cache, distributed) stay.

  python -m pytest -n 2 --doctest-modules ember tests --slow --durations=400 > report.txt
  python tools/slow_tests.py report.txt --threshold 1.4
"""
import argparse
import re

KEEP = re.compile(r"test_docs|test_examples|test_notebooks|test_seeds|test_flags|"
                  r"test_compilation_cache|test_distributed")
LINE = re.compile(r"^\s*([0-9.]+)s (call|setup|teardown)\s+(\S.*)$")


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("report", help="a pytest report made with --durations")
  p.add_argument("--threshold", type=float, default=1.4, help="seconds (default: 1.4)")
  p.add_argument("--out", default="tests/slow_tests.txt", help="default: tests/slow_tests.txt")
  args = p.parse_args()
  slow = {}
  with open(args.report) as f:
    for line in f:
      m = LINE.match(line)
      if m and m.group(2) == "call" and float(m.group(1)) >= args.threshold \
          and not KEEP.search(m.group(3)):
        slow[m.group(3)] = float(m.group(1))
  with open(args.out, "w") as f:
    f.write(f"# The slow tier (tools/slow_tests.py, calls >= {args.threshold} s): run with "
            "pytest --slow\n")
    for nodeid in sorted(slow):
      f.write(nodeid + "\n")
  print(f"{len(slow)} tests, {sum(slow.values()):.0f} s of calls -> {args.out}")


if __name__ == "__main__":
  main()
