"""Test setup shared by the doctests in ember/ and the tests in tests/: 8 CPU devices (as the
seeds and the sharding examples use), set before ember's backend starts. The persistent
compilation cache is off (as JAX's is by default; tests/test_compilation_cache.py turns it on
in temporary directories), and points at a throwaway directory in case a test or a program it
starts turns it on: the suite never writes to the user's cache. Tracebacks keep ember's frames
(tests/test_tracebacks.py turns filtering on), so a failing test shows where it failed and
``pytest.raises(match=...)`` sees no filtering note."""
import atexit
import os
import shutil
import tempfile

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("EMBER_CACHE", "0")
os.environ.setdefault("JAX_TRACEBACK_FILTERING", "off")
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
  os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="ember-test-cache-")
  atexit.register(shutil.rmtree, os.environ["JAX_COMPILATION_CACHE_DIR"], True)


# --- the slow tier ----------------------------------------------------------------------------
# tests/slow_tests.txt (written by tools/slow_tests.py from a --durations report) names the tests
# that take longest, mostly XLA compiling large programs: they run with --slow (or
# EMBER_SLOW_TESTS=1), so that the README's test command stays inside 15 minutes on 2 cores.

_SLOW_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests", "slow_tests.txt")


def slow_test_ids() -> set:
  with open(_SLOW_LIST) as f:
    return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def pytest_addoption(parser):
  parser.addoption("--slow", action="store_true",
                   help="also run the slow tier (tests/slow_tests.txt)")


def pytest_configure(config):
  config.addinivalue_line("markers", "slow: in the slow tier (tests/slow_tests.txt)")


def pytest_collection_modifyitems(config, items):
  slow = slow_test_ids()
  if config.getoption("--slow") or os.environ.get("EMBER_SLOW_TESTS") == "1":
    for item in items:
      if item.nodeid in slow:
        item.add_marker("slow")
    return
  kept = [item for item in items if item.nodeid not in slow]
  if len(kept) != len(items):
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid in slow])
    items[:] = kept
