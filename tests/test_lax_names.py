"""ember.lax's public surface against jax.lax 0.10.2's: every name exists (or is on the documented
not-provided list), the primitive objects are the ones ember's jaxprs hold, under JAX's names,
and functions take JAX's parameters.

The reference is ``tests/data/lax_signatures.json``, written by running
``tests/data/describe_signatures.py jax.lax tests/data/lax_signatures.json`` in the reference
JAX's own interpreter (never from the test suite), so this test needs no JAX.
"""
import inspect
import json
import pathlib

import pytest

import ember
from ember import lax
from ember.lax._primitive_names import NOT_PROVIDED

_REF = json.loads((pathlib.Path(__file__).parent / "data" / "lax_signatures.json").read_text())
_NAMES = _REF["names"]

# Primitives whose JAX name is not their attribute name without ``_p``.
_PRIMITIVE_NAMES = {
    "linear_solve_p": "custom_linear_solve", "scatter_add_p": "scatter-add",
    "scatter_sub_p": "scatter-sub", "scatter_mul_p": "scatter-mul",
    "scatter_min_p": "scatter-min", "scatter_max_p": "scatter-max",
}

# Functions whose parameters still differ from JAX's (owned by other modules), with the reason;
# the list may only shrink.
SIGNATURE_PENDING = {
    **{name: "the `accuracy=` keyword (Tolerance/AccuracyMode) is not taken yet" for name in (
        "cbrt", "cos", "exp", "exp2", "expm1", "log", "log1p", "logistic", "rsqrt", "sin",
        "sqrt", "tan", "tanh")},
    "mul": "the `out_dtype=` keyword is not taken yet",
    "nextafter": "parameters named x, y (JAX: x1, x2)",
    "random_gamma_grad": "JAX's takes *args",
    "reduce": "the `out_sharding` parameter is not taken yet",
}


def _params(fn):
  return [(p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default))
          for p in inspect.signature(fn).parameters.values()]


def test_every_name_exists():
  missing = sorted(n for n in _NAMES if not hasattr(lax, n) and n not in NOT_PROVIDED)
  assert missing == []


def test_not_provided_names_are_absent():
  present = sorted(n for n in NOT_PROVIDED if hasattr(lax, n))
  assert present == [], "provided now: drop them from NOT_PROVIDED"


def test_primitives_have_jax_names():
  prims = [n for n in _NAMES if n.endswith("_p") and hasattr(lax, n)]
  assert len(prims) > 100
  wrong = [(n, getattr(lax, n).name) for n in prims
           if getattr(lax, n).name != _PRIMITIVE_NAMES.get(n, n[:-2])]
  assert wrong == []


@pytest.mark.parametrize("fun,prim", [
    (lambda x: lax.sin(x), "sin_p"), (lambda x: lax.stack([x, x]), "stack_p"),
    (lambda x: lax.tile(x, ()), "tile_p"), (lambda x: lax.unstack(lax.stack([x]))[0], "unstack_p"),
    (lambda x: lax.optimization_barrier(x), "optimization_barrier_p"),
    (lambda x: lax.mulhi(lax.convert_element_type(x, "int32"), 3), "mulhi_p"),
])
def test_primitives_are_the_ones_jaxprs_hold(fun, prim):
  eqns = ember.make_jaxpr(fun)(1.0).jaxpr.eqns
  assert any(e.primitive is getattr(lax, prim) for e in eqns)


def _function_names():
  return sorted(n for n, info in _NAMES.items()
                if info["kind"] == "function" and info["params"] is not None
                and hasattr(lax, n) and callable(getattr(lax, n)))


def _mismatches():
  bad = {}
  for name in _function_names():
    try:
      ours = _params(getattr(lax, name))
    except (TypeError, ValueError):
      continue
    theirs = [tuple(p) for p in _NAMES[name]["params"]]
    literal = lambda d: d if d is None or "<" not in d else "<object>"  # noqa: E731
    if [(n, k, literal(d)) for n, k, d in ours] != [(n, k, literal(d)) for n, k, d in theirs]:
      bad[name] = f"ember {ours} != jax {theirs}"
  return bad


def test_parameters_match():
  bad = {n: d for n, d in _mismatches().items() if n not in SIGNATURE_PENDING}
  assert bad == {}


def test_pending_signatures_still_differ():
  fixed = sorted(set(SIGNATURE_PENDING) - set(_mismatches()))
  assert fixed == [], "these now match JAX: drop them from SIGNATURE_PENDING"
