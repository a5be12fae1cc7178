"""Test setup shared by the doctests in ember/ and the tests in tests/: 8 CPU devices (as the
seeds and the sharding examples use), set before ember's backend starts."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
