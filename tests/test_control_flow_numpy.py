"""lax.associative_scan, and the jnp functions of the control-flow issue: piecewise (a vmapped
lax.switch, as in JAX), select, and where under grad; values against NumPy and Python loops."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax


def prefix(fn, xs):
  out = [xs[0]]
  for x in xs[1:]:
    out.append(fn(out[-1], x))
  return np.stack(out)


# --- associative_scan -------------------------------------------------------------------------

@pytest.mark.parametrize("n", [5, 8])
def test_associative_scan_matches_a_sequential_scan(n):
  rng = np.random.RandomState(n)
  x = rng.randn(n, 2).astype(np.float32)
  affine = lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1])  # noqa: E731  (not commutative)
  got = ember.jit(lambda x: lax.associative_scan(affine, (x[:, 0], x[:, 1])))(x)
  expected = prefix(lambda a, b: np.array(affine(a, b)), x)
  np.testing.assert_allclose(np.stack(got, 1), expected, rtol=1e-5)
  np.testing.assert_allclose(ember.jit(lambda x: lax.associative_scan(jnp.add, x))(x),
                             np.cumsum(x, 0), rtol=1e-5)


def test_associative_scan_reverse_axis_and_dtypes():
  scan = ember.jit(lax.associative_scan, static_argnums=(0, 2, 3))
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4) + 1
  np.testing.assert_allclose(scan(jnp.multiply, x, False, 1), np.cumprod(x, 1))
  np.testing.assert_allclose(scan(lambda a, b: a * 2 + b, np.arange(6.0), True, 0),
                             [74.0, 73.0, 36.0, 31.0, 14.0, 5.0])  # JAX's values
  b = np.array([False, True, False, False, False])
  assert scan(jnp.logical_or, b, False, 0).tolist() == [False] + [True] * 4
  assert scan(jnp.maximum, np.array([3, 1, 4, 1, 5], np.int32), False, 0).tolist() == \
      [3, 3, 4, 4, 5]


def test_associative_scan_errors_and_jaxpr():
  with pytest.raises(ValueError, match=r"Array inputs to associative_scan must have the same "
                     r"first dimension. \(saw: \[\(5,\), \(4,\)\]\)"):
    lax.associative_scan(jnp.add, (jnp.arange(5), jnp.arange(4)))
  jaxpr = ember.make_jaxpr(lambda x: lax.associative_scan(jnp.add, x))(np.ones(5, np.float32))
  assert str(jaxpr).splitlines()[-4:] == [  # the interleaving, as JAX prints it
      "    t:f32[5] = pad[padding_config=((0, 0, 1),)] s 0.0:f32[]",
      "    u:f32[5] = pad[padding_config=((1, 1, 1),)] o 0.0:f32[]",
      "    v:f32[5] = add t u",
      "  in (v,) }"]


def test_associative_scan_grad_and_vmap():
  x = np.array([0.5, 1.5, 2.0, 3.0], np.float32)
  g = ember.jit(ember.grad(lambda x: jnp.sum(lax.associative_scan(jnp.multiply, x))))(x)
  eps, fd = 1e-3, []
  for i in range(4):
    d = np.zeros(4, np.float32)
    d[i] = eps
    fd.append((np.cumprod(x + d).sum() - np.cumprod(x - d).sum()) / (2 * eps))
  np.testing.assert_allclose(g, fd, rtol=1e-3)
  xs = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  np.testing.assert_allclose(ember.jit(ember.vmap(lambda v: lax.associative_scan(jnp.add, v)))(xs),
                             np.cumsum(xs, 1))


# --- jnp -------------------------------------------------------------------------------------

def test_piecewise_applies_functions_elementwise():
  piecewise = ember.jit(jnp.piecewise, static_argnums=(2,))
  x = np.arange(6.0, dtype=np.float32) - 2
  np.testing.assert_allclose(
      piecewise(x, [x < 0, x > 1], (jnp.sin, jnp.cos, 3.0)),
      np.piecewise(x, [x < 0, x > 1], [np.sin, np.cos, 3.0]), rtol=1e-6)
  # functions see one element at a time, as in JAX (so a sum is the element itself)
  np.testing.assert_allclose(piecewise(x, [x < 0], (lambda v: v.sum(), 7)),
                             [-2.0, -1.0, 7.0, 7.0, 7.0, 7.0])
  x2 = x.reshape(2, 3)
  np.testing.assert_allclose(jnp.piecewise(x2, [x2 < 0], [lambda v, k: v * k, 1], 3.0),
                             [[-6.0, -3.0, 1.0], [1.0, 1.0, 1.0]])
  assert piecewise(np.arange(4), [np.arange(4) < 2], (lambda v: v * 2.5, 1)).tolist() == \
      [0, 2, 1, 1]
  with pytest.raises(ValueError, match="with 2 condition.s., either 2 or 3 functions are "
                     "expected; got 1"):
    jnp.piecewise(x, [x < 0, x > 1], [jnp.sin])


def test_piecewise_grad_and_vmap():
  x = np.linspace(-2.0, 3.0, 6).astype(np.float32)
  f = lambda x: jnp.piecewise(x, [x < 0], [jnp.sin, jnp.cos])  # noqa: E731
  g = ember.jit(ember.grad(lambda x: jnp.sum(f(x))))(x)
  np.testing.assert_allclose(g, np.where(x < 0, np.cos(x), -np.sin(x)), rtol=1e-6)
  np.testing.assert_allclose(ember.jit(ember.vmap(f))(x.reshape(2, 3)),
                             ember.jit(f)(x).reshape(2, 3), rtol=1e-6)


def test_select_and_where_under_grad():
  x = np.array([-1.0, 0.0, 4.0], np.float32)
  np.testing.assert_allclose(jnp.select([x < 0, x > 1], [x, 2 * x], 3.0), [-1.0, 3.0, 8.0])
  grad = lambda f: ember.jit(ember.grad(lambda x: jnp.sum(f(x))))(x)  # noqa: E731
  np.testing.assert_allclose(grad(lambda x: jnp.where(x > 0, x ** 2, -x)), [-1.0, -1.0, 8.0])
  g = grad(lambda x: jnp.select([x < 0, x > 1], [x ** 3, jnp.sin(x)], 1.0))
  np.testing.assert_allclose(g, [3.0, 0.0, np.cos(4.0)], rtol=1e-6)
  # the classic: where does not stop NaN gradients of the untaken side (as in JAX)
  g = grad(lambda x: jnp.where(x > 0, jnp.sqrt(jnp.abs(x)), 0.0))
  assert np.isnan(g[1]) and g[0] == 0.0
