"""Test setup: 8 CPU devices (as the seeds use) and x64 restored after every test."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest  # noqa: E402

import ember  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_x64():
  before = ember.config.jax_enable_x64
  yield
  if ember.config.jax_enable_x64 != before:
    ember.config.update("jax_enable_x64", before)


@pytest.fixture
def x64():
  ember.config.update("jax_enable_x64", True)
  yield
  ember.config.update("jax_enable_x64", False)
