"""ember.api: the naming helpers named_call and named_scope, and fwd_and_bwd (JAX 0.10.2's
values)."""
import numpy as np
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


def test_fwd_and_bwd_match_vjp_and_jaxs_staging():
  f = lambda x, w: jnp.sin(x) @ w  # noqa: E731
  x, w = jnp.arange(4.0).reshape(2, 2), jnp.ones((2, 2))
  fwd, bwd = ember.fwd_and_bwd(f, argnums=(0, 1))
  y, residuals = fwd(x, w)
  np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(4.0).reshape(2, 2)) @ np.ones((2, 2)),
                             rtol=1e-6)
  dx, dw = bwd(residuals, jnp.ones((2, 2)))
  want = ember.vjp(f, x, w)[1](jnp.ones((2, 2)))
  np.testing.assert_allclose(np.asarray(dx), np.asarray(want[0]), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(dw), np.asarray(want[1]), rtol=1e-6)
  # An int argnums gives one cotangent; jitted=False gives plain functions.
  fwd, bwd = ember.fwd_and_bwd(f, argnums=0, jitted=False)
  np.testing.assert_allclose(np.asarray(bwd(fwd(x, w)[1], jnp.ones((2, 2)))), np.asarray(want[0]),
                             rtol=1e-6)
  # As JAX 0.10.2 stages it: one jit named fwd returning the output and the residuals.
  fwd, _ = ember.fwd_and_bwd(f, argnums=0)
  text = str(ember.make_jaxpr(lambda x, w: fwd(x, w)[0])(x, w))
  assert "name=fwd" in text and "in (c, _, b) }" in text
  out, _, aux = ember.fwd_and_bwd(lambda x: (x * 2, {"a": x}), 0, has_aux=True)[0](1.0)
  assert float(out) == 2.0 and float(aux["a"]) == 1.0


def test_fwd_and_bwd_errors_as_jax():
  with pytest.raises(TypeError, match="Expected a callable value, got 1"):
    ember.fwd_and_bwd(1, 0)
  with pytest.raises(TypeError):
    ember.fwd_and_bwd(jnp.sin, 2.5)
  fwd, _ = ember.fwd_and_bwd(lambda x, w: x * w, argnums=5)
  with pytest.raises(ValueError, match="but got value 5 for len\\(args\\) == 2"):
    fwd(1.0, 2.0)
  fwd, _ = ember.fwd_and_bwd(lambda x, w: x * w, argnums=0)
  with pytest.raises(TypeError, match="missing 1 required positional argument: 'w'"):
    fwd(1.0, w=2.0)  # keyword arguments are not passed on, as in JAX
