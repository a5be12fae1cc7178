"""ember.numpy's public surface against jax.numpy 0.10.2's: every name exists, and every function
has JAX's parameter names, kinds and (literal) defaults.

The reference is ``tests/data/jnp_signatures.json``, written once by
``tests/data/describe_signatures.py jax.numpy ...`` run in the reference JAX's own interpreter, so
this test needs no JAX.
"""
import inspect
import json
import pathlib

import pytest

import ember.numpy as jnp

_REF = json.loads((pathlib.Path(__file__).parent / "data" / "jnp_signatures.json").read_text())
_NAMES = _REF["names"]

# Names ember does not provide yet, each with the reason.
MISSING_OK: dict[str, str] = {}

# Functions whose signatures knowingly differ from JAX's, each with the reason.
SIGNATURE_OK = {
    "einsum": "JAX's private `_dot_general` keyword is an implementation hook, not API",
}


def _params(fn):
  return [(p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default))
          for p in inspect.signature(fn).parameters.values()]


def _missing():
  return sorted(n for n in _NAMES if not hasattr(jnp, n) and n not in MISSING_OK)


def test_every_name_exists():
  assert _missing() == []


def _function_names():
  return sorted(n for n, info in _NAMES.items()
                if info["kind"] == "function" and info["params"] is not None
                and n not in SIGNATURE_OK)


def _mismatches(check):
  """One line per function failing ``check(ours, theirs)``, for a readable failure."""
  bad = []
  for name in _function_names():
    if not hasattr(jnp, name):
      continue
    ours, theirs = _params(getattr(jnp, name)), [tuple(p) for p in _NAMES[name]["params"]]
    if not check(ours, theirs):
      bad.append(f"{name}: ember {ours} != jax {theirs}")
  return bad


def test_parameter_names_match():
  assert _mismatches(lambda a, b: [p[0] for p in a] == [p[0] for p in b]) == []


def test_parameter_kinds_match():
  assert _mismatches(lambda a, b: [p[:2] for p in a] == [p[:2] for p in b]) == []


def _literal(default):
  """A default's repr when it is a literal (None, numbers, strings...), else a placeholder."""
  return default if default is None or "<" not in default else "<object>"


def test_literal_defaults_match():
  assert _mismatches(lambda a, b: [_literal(p[2]) for p in a] == [_literal(p[2]) for p in b]
                     ) == []


@pytest.mark.parametrize("name", sorted(SIGNATURE_OK))
def test_exceptions_are_still_needed(name):
  ours, theirs = _params(getattr(jnp, name)), [tuple(p) for p in _NAMES[name]["params"]]
  assert ours != theirs, f"{name} now matches JAX: drop it from SIGNATURE_OK"
