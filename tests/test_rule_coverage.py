"""Every primitive of ember's declares each transform's rule one way or the other: a rule, or
``def_unsupported`` with the reason it has none (so a missing rule is a decision on record, and
its error names the reason). Also the one batching signature, seen from JAX's registries."""
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.core import trace as core


def _all_primitives():
  for info in pkgutil.walk_packages(ember.__path__, "ember."):
    if info.name.endswith("__main__"):
      continue
    try:
      importlib.import_module(info.name)
    except ImportError:  # optional modules (a missing extra) define no primitives of ember's
      pass
  return list(core.PRIMITIVES)


PRIMITIVES = _all_primitives()


def test_the_registry_holds_ember_primitives_only():
  names = {p.name for p in PRIMITIVES}
  assert {"sin", "add", "dot_general", "scan", "jit", "psum", "threefry2x32"} <= names
  assert len(PRIMITIVES) > 200
  from ember.extend.core import Primitive
  Primitive("a_users_primitive")
  assert "a_users_primitive" not in {p.name for p in core.PRIMITIVES}


@pytest.mark.parametrize("kind", core.REQUIRED_KINDS)
def test_every_primitive_declares_every_kind(kind):
  undeclared = sorted(p.name for p in PRIMITIVES
                      if getattr(p, kind) is None and kind not in p.unsupported)
  assert undeclared == [], f"no {kind} rule and no def_unsupported reason: {undeclared}"


def test_every_batch_rule_takes_the_axis_first():
  for p in PRIMITIVES:
    for kind in ("batch", "batch_named"):
      rule = getattr(p, kind)
      if rule is None:
        continue
      params = list(inspect.signature(rule).parameters.values())
      assert params[0].kind is inspect.Parameter.VAR_POSITIONAL or \
          params[0].name in ("axis", "axis_data"), (p.name, kind, params[:3])


def test_a_declared_missing_rule_raises_its_reason():
  sort_p = next(p for p in PRIMITIVES if p.name == "sort")
  with pytest.raises(NotImplementedError, match="sort.*transposition.*not linear"):
    sort_p.rule("transpose")


def test_def_rules_replaces_an_earlier_declaration():
  p = core.Primitive("coverage_probe")
  core.PRIMITIVES.remove(p)
  p.def_unsupported("transpose", core.NOT_LINEAR)
  p.def_rules(transpose=lambda ct, x: [ct])
  assert "transpose" not in p.unsupported and p.rule("transpose") is not None


def test_jax_registries_keep_jaxs_signatures():
  """primitive_batchers rules take (vals, dims); fancy_primitive_batchers rules the axis too;
  an ember primitive's rule read from primitive_batchers has JAX's short signature."""
  from ember.extend.core import Primitive
  from ember.interpreters import batching
  seen = []
  twice = Primitive("twice_cov")
  twice.def_impl(lambda x: 2 * x)
  twice.def_abstract_eval(lambda x: x)
  rule = lambda vals, dims: (twice.bind(vals[0]), dims[0])  # noqa: E731
  batching.primitive_batchers[twice] = rule
  np.testing.assert_allclose(ember.vmap(twice.bind)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
  assert batching.primitive_batchers[twice] is rule

  def fancy(axis_data, vals, dims):
    seen.append((axis_data.name, axis_data.size))
    return twice.bind(vals[0]), dims[0]
  batching.fancy_primitive_batchers[twice] = fancy
  out = ember.vmap(twice.bind, axis_name="i")(jnp.arange(4.0))
  np.testing.assert_allclose(out, [0.0, 2.0, 4.0, 6.0])
  assert seen == [("i", 4)]

  sin_rule = batching.primitive_batchers[ember.lax.sin_p]
  out, dim = sin_rule([jnp.zeros((2, 3))], [1])
  np.testing.assert_allclose(out, np.zeros((2, 3)))
  assert dim == 1
