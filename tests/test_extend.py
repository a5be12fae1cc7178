"""ember.extend: jax.extend.core's names (jaxpr IR, trace state) and linear_util's refusals.
Expected values are JAX 0.10.2's on the same programs."""
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
  assert out.stdout.split() == ["False", "False"]  # as ``import jax`` leaves jax.extend alone
