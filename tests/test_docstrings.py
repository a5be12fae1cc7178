"""Every public function should show a runnable example (``>>>``) in its docstring.

The examples themselves run as doctests (``pytest --doctest-modules ember``). This test walks
the public API and lists the callables whose docstrings have none. The list may only shrink:
``MAX_WITHOUT_EXAMPLE`` is a ratchet, to be lowered as examples are added, never raised.
Run ``pytest -s tests/test_docstrings.py`` to print the list.
"""
import types

import ember
import ember.lax
import ember.numpy
import ember.random
import ember.tree_util

MODULES = (ember, ember.numpy, ember.lax, ember.random, ember.tree_util)
MAX_WITHOUT_EXAMPLE = 128


def public_names(module):
  names = getattr(module, "__all__", None)
  if names is None:
    names = [name for name in dir(module) if not name.startswith("_")]
  return names


def callables_without_example():
  missing = []
  for module in MODULES:
    for name in public_names(module):
      obj = getattr(module, name)
      if callable(obj) and not isinstance(obj, types.ModuleType) and ">>>" not in (
          obj.__doc__ or ""):
        missing.append(f"{module.__name__}.{name}")
  return missing


def test_public_callables_have_examples():
  missing = callables_without_example()
  print(f"{len(missing)} public callables without a >>> example:", *missing, sep="\n  ")
  assert len(missing) <= MAX_WITHOUT_EXAMPLE, (
      f"{len(missing)} public callables lack a >>> example (at most {MAX_WITHOUT_EXAMPLE}): "
      "add one to the new function's docstring.")
