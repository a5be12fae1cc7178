"""The ecosystem tier: chex's, dm-haiku's and optax's own test suites, run under ember.

Usage (from the repository root, with ember's environment):
    .venv/bin/python tools/ecosystem.py                  # install, run under ember, print the figures
    .venv/bin/python tools/ecosystem.py --library chex   # one library only
    .venv/bin/python tools/ecosystem.py --make-selection --jax-python /work/jaxvenv/bin/python

What it does:
  1. installs the libraries (``--no-deps``, pinned) and the packages their tests import, none of
     which depends on jax, into the Python that runs the tests (``--jax-python`` for the selection,
     this interpreter otherwise);
  2. downloads the libraries' source distributions and unpacks them (with their tests) under
     ``.cache/ecosystem/`` (git-ignored);
  3. runs each test suite with pytest in the unpacked tree, with tools/ecosystem_plugin.py loaded
     first: under ember it installs tools/jax_alias.py's hook, so ``import jax`` and ``import jax.X``
     give ``ember`` and ``ember.X``;
  4. prints ``name: passed/total`` over the stored selection (tools/ecosystem_selection.json: the
     tests that pass under real JAX 0.10.2), then each failing test with the first line of its error.

``--make-selection`` runs every test of the libraries under the given JAX Python instead, and
stores the node ids of those that pass. Not run in CI: it needs the package index.

Every test file of chex and haiku is run. Of optax's, all but its five slowest (``LEFT_OUT``:
optax/_src/alias_test.py, optax/contrib/_common_test.py, optax/_src/linesearch_test.py,
optax/perturbations/_make_pert_test.py, optax/assignment/_hungarian_algorithm_test.py), which
alone take most of its suite's time.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import resource
import shlex
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
CACHE = ROOT / ".cache" / "ecosystem"
SELECTION = TOOLS / "ecosystem_selection.json"

# name: (distribution, version, sdist directory, tests directory inside it)
LIBRARIES = {
    "chex": ("chex", "0.1.92", "chex-0.1.92", "chex"),
    "haiku": ("dm-haiku", "0.0.17", "dm_haiku-0.0.17", "haiku"),
    "optax": ("optax", "0.2.8", "optax-0.2.8", "optax"),
}

# Test files left out of the tier (of its selection and of its runs), the slowest of their suite:
# optax's whole suite takes some 23 CPU minutes under JAX (37 on the shared machine), these five
# 19 of them (alias_test alone 12, contrib/_common_test 7). What is left runs in about 11
# minutes under JAX, 6 under ember.
LEFT_OUT = {
    "optax": ("optax/_src/alias_test.py", "optax/contrib/_common_test.py",
              "optax/_src/linesearch_test.py", "optax/perturbations/_make_pert_test.py",
              "optax/assignment/_hungarian_algorithm_test.py"),
}

# What the test suites import besides jax, the libraries themselves and pytest, pinned, each
# installed with --no-deps (this is the whole closure; numpy and scipy are ember's own
# dependencies). Left out on purpose, so the tests that need them fail to import under JAX too
# and are not in the selection: tensorflow (haiku's transform_test, jax2tf_test), flax (haiku's
# flax tests, doctest_test; optax's _accumulation_test, linear_algebra_test). optax itself
# declares jax as a requirement: like the others it is installed with --no-deps.
TEST_DEPS = [
    "absl-py==2.5.1",       # absltest / parameterized / flags: every library
    "toolz==1.2.0",         # chex
    "typing_extensions==4.16.0",  # chex
    "dm-tree==0.1.10",      # chex tests, haiku tests
    "attrs==26.1.0",        # dm-tree
    "wrapt==2.5.2",         # dm-tree
    "cloudpickle==3.1.3",   # chex dataclass tests, haiku tests
    "jmp==0.0.4",           # haiku (mixed precision)
    "tabulate==0.10.0",     # haiku (summaries)
    "dill==0.4.1",          # haiku tests
    "mock==5.2.0",          # haiku tests
    "scikit-learn==1.9.1",  # optax's alias_test (in LEFT_OUT, but importable when run by hand)
    "joblib==1.6.0",        # scikit-learn
    "narwhals==2.29.0",     # scikit-learn
    "threadpoolctl==3.8.0",  # scikit-learn
]
PYTEST_DEPS = ["pytest==9.2.0"]


def run(cmd, **kwargs):
  print("+", " ".join(str(c) for c in cmd), flush=True)
  return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def installed_versions(python) -> dict[str, str]:
  code = ("import importlib.metadata as m, json; "
          "print(json.dumps({d.metadata['Name'].lower(): d.version for d in m.distributions()}))")
  out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
  return json.loads(out)


def _normalized(name: str) -> str:
  return re.sub(r"[-_.]+", "-", name).lower()


def install(python, names) -> None:
  """Installs the libraries and their test dependencies into ``python``'s environment."""
  wanted = TEST_DEPS + PYTEST_DEPS + [f"{LIBRARIES[n][0]}=={LIBRARIES[n][1]}" for n in names]
  have = {_normalized(k): v for k, v in installed_versions(python).items()}
  missing = [req for req in wanted
             if have.get(_normalized(req.split("==")[0])) != req.split("==")[1]]
  if missing:
    run([python, "-m", "pip", "install", "--quiet", "--no-deps", *missing])


def unpack(names) -> None:
  """Downloads the libraries' sdists and unpacks them under .cache/ecosystem/src/."""
  sdists, src = CACHE / "sdist", CACHE / "src"
  for name in names:
    dist, version, folder, _ = LIBRARIES[name]
    if (src / folder).is_dir():
      continue
    if not any(sdists.glob(f"{folder}.tar.gz")):
      run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
           f"{dist}=={version}", "-d", sdists])
    with tarfile.open(sdists / f"{folder}.tar.gz") as archive:
      archive.extractall(src, filter="data")


def _run_file(python, folder, test_file, *, alias, select_file, extra) -> dict[str, list[str]]:
  """Runs one test file in its own pytest process, as these suites expect (each *_test.py is a
  separate test binary upstream: some set the device count or flags at import)."""
  stem = test_file.replace("/", "_")[:-3]
  results = CACHE / "results" / ("ember" if alias else "jax") / f"{stem}.json"
  results.parent.mkdir(parents=True, exist_ok=True)
  results.unlink(missing_ok=True)
  pythonpath = os.pathsep.join(filter(None, [str(TOOLS), os.environ.get("PYTHONPATH")]))
  env = dict(os.environ, PYTHONPATH=pythonpath, ECOSYSTEM_RESULTS=str(results),
             ECOSYSTEM_ALIAS="1" if alias else "0")
  env.pop("ECOSYSTEM_SELECT", None)
  env.pop("XLA_FLAGS", None)
  if select_file is not None:
    env["ECOSYSTEM_SELECT"] = str(select_file)
  ini = CACHE / "pytest.ini"  # our own (empty) configuration: nothing of ember's conftest/pyproject
  ini.write_text("[pytest]\n")
  cmd = [python, "-m", "pytest", "-q", "-p", "ecosystem_plugin", "-p", "no:cacheprovider",
         "-c", ini, "--rootdir", CACHE / "src" / folder, "--confcutdir", CACHE / "src" / folder,
         "--tb=no", "-rN", *extra, test_file]
  proc = subprocess.run([str(c) for c in cmd], cwd=CACHE / "src" / folder, env=env,
                        capture_output=True, text=True)
  summary = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
  print(f"  {test_file}: {summary}", flush=True)
  if not results.exists():
    return {test_file: ["error", f"pytest wrote no results: {proc.stderr.strip()[-300:]}"]}
  return json.loads(results.read_text())


def run_tests(python, name, *, alias, select, workers, extra=()) -> dict[str, list[str]]:
  """Runs one library's tests, ``workers`` files at a time; returns {node id: [outcome, first
  line of the error]}."""
  _, _, folder, tests = LIBRARIES[name]
  root = CACHE / "src" / folder
  # largest files first, so the long ones do not start last
  paths = sorted((root / tests).rglob("*_test.py"), key=lambda p: (-p.stat().st_size, p))
  files = [str(p.relative_to(root)) for p in paths]
  files = [f for f in files if f not in LEFT_OUT.get(name, ())]
  select_file = None
  if select is not None:
    files = [f for f in files if any(t.startswith(f + "::") for t in select)]
    select_file = CACHE / f"select-{name}.json"
    select_file.write_text(json.dumps(sorted(select)))
  print(f"{name}: {len(files)} test files under {'ember' if alias else python}", flush=True)
  results: dict[str, list[str]] = {}
  with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
    for part in pool.map(lambda f: _run_file(python, folder, f, alias=alias,
                                             select_file=select_file, extra=extra), files):
      results.update(part)
  return results


def make_selection(python, names, workers, extra) -> None:
  stored = json.loads(SELECTION.read_text()) if SELECTION.exists() else {}
  version = subprocess.run([python, "-c", "import jax; print(jax.__version__)"], check=True,
                           capture_output=True, text=True).stdout.strip()
  for name in names:
    results = run_tests(python, name, alias=False, select=None, workers=workers, extra=extra)
    passed = sorted(k for k, (outcome, _) in results.items() if outcome == "passed")
    stored[name] = {"version": LIBRARIES[name][1], "jax": version, "tests": passed}
    counts = {o: sum(1 for v in results.values() if v[0] == o) for o in ("passed", "failed",
                                                                          "skipped", "error")}
    print(f"{name} under jax {version}: {counts}")
  SELECTION.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
  print(f"wrote {SELECTION}")


def _children_cpu() -> float:
  """CPU seconds used so far by finished child processes (the test runs): on a shared machine
  a better measure of the tier's cost than wall time."""
  usage = resource.getrusage(resource.RUSAGE_CHILDREN)
  return usage.ru_utime + usage.ru_stime


def _outcome(results, test) -> list[str]:
  """A selected test's [outcome, error]; one that never ran takes its file's collection error."""
  if test in results:
    return results[test]
  file_error = results.get(test.split("::")[0])
  return file_error if file_error else ["not run", ""]


def report(names, workers, extra, files=None) -> int:
  stored = json.loads(SELECTION.read_text())
  lines, failing, causes = [], [], collections.Counter()
  for name in names:
    selection = [t for t in stored[name]["tests"]
                 if not files or any(f in t.split("::")[0] for f in files)]
    if not selection:
      continue
    start, cpu = time.perf_counter(), _children_cpu()
    results = run_tests(sys.executable, name, alias=True, select=selection, workers=workers,
                        extra=extra)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    bad = [(t, _outcome(results, t)) for t in selection if _outcome(results, t)[0] != "passed"]
    lines.append(f"{name}: {len(selection) - len(bad)}/{len(selection)}  "
                 f"({seconds:.0f} s wall, {cpu:.0f} s CPU)")
    failing += [f"{t}: {outcome}: {error}" for t, (outcome, error) in bad]
    causes.update(f"{name}: {error}" for _, (_, error) in bad)
  if failing:
    print("\nfailing tests of the selection:", *failing, sep="\n")
    print("\nfailures by first error line:",
          *(f"{n:5d}  {cause}" for cause, n in causes.most_common()), sep="\n")
  print("\n" + "\n".join(lines))
  return 1 if failing else 0


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--library", choices=sorted(LIBRARIES), action="append",
                      help="run only this library (repeatable); default: all")
  parser.add_argument("--make-selection", action="store_true",
                      help="run every test under --jax-python and store those that pass")
  parser.add_argument("--jax-python", default="/work/jaxvenv/bin/python",
                      help="a Python with jax 0.10.2 installed (for --make-selection)")
  parser.add_argument("-n", "--workers", type=int, default=2,
                      help="test files run at the same time (each in its own process)")
  parser.add_argument("--no-install", action="store_true", help="skip the pip install step")
  parser.add_argument("--pytest-args", default="",
                      help="extra pytest arguments for every test file (e.g. \"-k dataclass\")")
  parser.add_argument("--files", action="append",
                      help="report only the test files whose path contains this (repeatable)")
  args = parser.parse_args(argv)
  names = args.library or sorted(LIBRARIES)
  python = args.jax_python if args.make_selection else sys.executable
  if not args.no_install:
    install(python, names)
  unpack(names)
  if args.make_selection:
    make_selection(python, names, args.workers, shlex.split(args.pytest_args))
    return 0
  return report(names, args.workers, shlex.split(args.pytest_args), args.files)


if __name__ == "__main__":
  sys.exit(main())
