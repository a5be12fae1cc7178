"""Test setup: x64 restored after every test (the 8 CPU devices come from ../conftest.py)."""
import pytest

import ember

# tests/data holds fixtures and the scripts that made them with JAX (run by hand, never collected);
# the corpus programs are written in JAX's spelling and are loaded by tests/test_corpus.py.
collect_ignore_glob = ["data/*", "corpus/programs/*"]


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
