"""ember.extend: jax.extend.core's names (jaxpr IR, trace state) and linear_util's refusals.
Expected values are JAX 0.10.2's on the same programs."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.extend import core as ecore
from ember.extend import linear_util as lu


def test_opaque_trace_state_tells_traces_apart():
  outside = ecore.get_opaque_trace_state(convention="haiku")
  assert outside == ecore.get_opaque_trace_state()
  seen = []

  def f(x):
    seen.append(ecore.get_opaque_trace_state() == ecore.get_opaque_trace_state())
    seen.append(ecore.get_opaque_trace_state() == outside)
    return x

  ember.jit(f)(1.0)
  ember.vmap(f)(jnp.ones(2))
  ember.grad(f)(1.0)
  assert seen == [True, False] * 3  # JAX: equal within one trace, different from outside
  assert ecore.get_opaque_trace_state() != object()


def test_take_current_trace_runs_the_block_eagerly():
  outside = ecore.get_opaque_trace_state()
  seen = []

  def f(x):
    with ecore.take_current_trace() as trace:
      seen.append(type(trace).__name__)
      seen.append(ecore.get_opaque_trace_state() == outside)  # JAX: True (the eval trace)
      with ecore.set_current_trace(trace):
        seen.append(ecore.get_opaque_trace_state() == outside)  # JAX: False
    return x * 2

  assert ember.jit(f)(3.0) == 6.0
  assert seen == ["DynamicJaxprTrace", True, False]


def test_trace_tags_are_all_equal():
  assert ecore.TraceTag() == ecore.TraceTag()
  assert hash(ecore.TraceTag()) == hash(ecore.TraceTag())
  assert ecore.TraceTag() != 1


def test_jaxpr_classes_are_embers():
  closed = ember.make_jaxpr(lambda x: x * 2.0)(1.0)
  assert isinstance(closed, ecore.ClosedJaxpr) and isinstance(closed.jaxpr, ecore.Jaxpr)
  (eqn,) = closed.jaxpr.eqns
  assert isinstance(eqn, ecore.JaxprEqn) and isinstance(eqn.invars[0], ecore.Var)
  assert isinstance(eqn.invars[1], ecore.Literal)
  assert ecore.jaxpr_as_fun(closed)(4.0)[0] == 8.0


def test_linear_util_imports_but_refuses_to_run():
  decorated = lu.transformation(lambda fun: (yield))  # decorating works, as a module import does
  with pytest.raises(NotImplementedError, match="linear_util.transformation"):
    decorated(None)
  with pytest.raises(NotImplementedError, match="linear_util.wrap_init"):
    lu.wrap_init(abs)


def test_extend_is_not_imported_by_ember():
  import subprocess
  import sys
  code = "import ember, sys; print('ember.extend' in sys.modules, hasattr(ember, 'extend'))"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False", "False"]  # JAX too leaves jax.extend unimported


def _prim(name, impl, abstract=lambda *avals, **_: avals[0]):
  from ember.extend.core import Primitive
  p = Primitive(name)
  p.def_impl(impl)
  p.def_abstract_eval(abstract)
  return p


def test_user_primitive_rules_through_the_registries():
  from ember.interpreters import ad, batching
  mul = _prim("my_mul", lambda x, y: x * y)
  ad.primitive_jvps[mul] = lambda p, t: (mul.bind(*p), ad.instantiate_zeros(t[0]) * p[1] +
                                         ad.instantiate_zeros(t[1]) * p[0])
  batching.defbroadcasting(mul)
  assert ad.primitive_jvps[mul] is mul.jvp and mul in batching.primitive_batchers
  x, y = jnp.arange(3.0), jnp.array(2.0)
  np.testing.assert_allclose(ember.grad(lambda a: mul.bind(a, y).sum())(x), [2.0, 2.0, 2.0])
  np.testing.assert_allclose(ember.vmap(mul.bind, in_axes=(0, None))(x, y), 2 * x)
  np.testing.assert_allclose(ember.vmap(mul.bind)(x.reshape(3, 1), jnp.ones((3, 2))),
                             np.broadcast_to(x.reshape(3, 1), (3, 2)))
  np.testing.assert_allclose(ember.jit(mul.bind)(x, y), 2 * x)
  # a linear primitive whose transpose reads its inputs (deflinear2)
  scale = _prim("my_scale", lambda x, *, k: k * x)
  ad.deflinear2(scale, lambda ct, x, *, k: [k * ct])
  assert ember.grad(lambda a: scale.bind(a, k=3.0))(1.0) == 3.0
  assert ember.jit(ember.grad(lambda a: scale.bind(a, k=3.0) * a))(2.0) == 12.0


def test_user_primitive_multiple_results_and_refusals():
  from ember.core.aval import ShapedArray
  from ember.extend.core import Primitive
  from ember.interpreters import mlir
  split = Primitive("my_split")
  split.multiple_results = True
  split.def_impl(lambda x: [x + 1, x - 1])
  split.def_abstract_eval(lambda x: [ember.ShapeDtypeStruct(x.shape, x.dtype)] * 2)
  a, b = ember.jit(split.bind)(jnp.ones(2))
  np.testing.assert_allclose(a, 2.0)
  np.testing.assert_allclose(b, 0.0)
  assert isinstance(ember.make_jaxpr(split.bind)(1.0).jaxpr.eqns[0].outvars[0].aval, ShapedArray)
  with pytest.raises(NotImplementedError, match="no rule for vmap"):
    ember.vmap(split.bind)(jnp.ones(2))
  bare = Primitive("no_impl")
  bare.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="def_impl"):
    ember.jit(bare.bind)(1.0)
  with pytest.raises(NotImplementedError, match="lower_fun"):
    mlir.register_lowering(bare, lambda ctx, x: x)
  mlir.register_lowering(bare, mlir.lower_fun(lambda x: x * 4, multiple_results=False))
  assert ember.jit(bare.bind)(1.0) == 4.0
