"""Test setup shared by the doctests in ember/ and the tests in tests/: 8 CPU devices (as the
seeds and the sharding examples use), set before ember's backend starts. The persistent
compilation cache is off (as JAX's is by default; tests/test_compilation_cache.py turns it on
in temporary directories), and points at a throwaway directory in case a test or a program it
starts turns it on: the suite never writes to the user's cache."""
import atexit
import os
import shutil
import tempfile

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("EMBER_CACHE", "0")
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
  os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="ember-test-cache-")
  atexit.register(shutil.rmtree, os.environ["JAX_COMPILATION_CACHE_DIR"], True)
