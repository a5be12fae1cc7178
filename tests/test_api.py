"""ember.api's naming helpers: named_call and named_scope (JAX 0.10.2's values)."""
import pytest

import ember
import ember.numpy as jnp


def test_named_call_keeps_values_and_name():
  def double(x):
    return 2 * x

  named = ember.named_call(double)
  assert named.__name__ == "double" and named.__wrapped__ is double
  assert ember.jit(named)(4.0) == 8.0
  assert ember.grad(ember.named_call(lambda x: x * x, name="sq"))(3.0) == 6.0
  # names reach no jaxpr (JAX prints the same jaxpr with or without them)
  assert str(ember.make_jaxpr(named)(1.0)) == str(ember.make_jaxpr(double)(1.0))


def test_named_scope_as_context_and_decorator():
  @ember.jit
  def layer(w, x):
    with ember.named_scope("dot_product"):
      y = w * x
    return y + 1

  assert layer(2.0, 3.0) == 7.0
  scaled = ember.named_scope("scale")(lambda x: x * 3)
  assert ember.vmap(scaled)(jnp.arange(3.0)).tolist() == [0.0, 3.0, 6.0]


def test_named_scope_rejects_non_strings():
  with pytest.raises(TypeError, match="named_scope name argument must be a string."):
    ember.named_scope(1)
