"""Tests for ember.numpy's polynomial functions (polynomial.py) against NumPy, under jit and
grad."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from tests.batch_checks import check_batch

rng = np.random.default_rng(3)
P = np.array([2., -3., 0.5, 1.], np.float32)
Q = np.array([1., 4.], np.float32)


def close(got, want, dtype=np.float32, rtol=1e-5, atol=1e-5):
  assert got.dtype == dtype, (got.dtype, dtype)
  np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def test_polyval():
  x = rng.standard_normal((2, 3)).astype(np.float32)
  close(jnp.polyval(P, x), np.polyval(P, x))
  close(ember.jit(lambda p, v: jnp.polyval(p, v, unroll=2))(P, x), np.polyval(P, x))
  close(jnp.polyval(np.array([1, 2, 3]), 2), 11, np.int32)
  close(jnp.polyval(np.zeros(0, np.float32), x), np.zeros_like(x))
  g = ember.grad(lambda p, v: jnp.polyval(p, v), argnums=(0, 1))(P, np.float32(0.7))
  close(g[0], 0.7 ** np.arange(3, -1, -1), rtol=1e-5)
  close(g[1], np.polyval(np.polyder(P), 0.7))
  check_batch(jnp.polyval, [np.stack([P, P + 1, P * 2]), x[0]], in_axes=(0, None))


def test_arithmetic():
  for fn, np_fn in [(jnp.polyadd, np.polyadd), (jnp.polysub, np.polysub),
                    (jnp.polymul, np.polymul)]:
    close(fn(P, Q), np_fn(P, Q))
    close(ember.jit(fn)(Q, P), np_fn(Q, P))
  close(jnp.polyadd(np.array([1, 2]), np.array([1, 2, 3])), [1, 3, 5], np.int32)
  close(jnp.polymul(np.array([1, 2]), np.array([1, 2, 3])), [1, 4, 7, 6])
  close(jnp.polymul(np.array([0., 1.]), Q, trim_leading_zeros=True), Q)
  q, r = jnp.polydiv(P, Q)
  qn, rn = np.polydiv(P, Q)
  close(q, qn)
  close(r, np.concatenate([np.zeros(len(P) - len(rn)), rn]))
  q, r = ember.jit(jnp.polydiv)(P, Q)
  close(q, qn)
  close(jnp.polydiv(P, Q, trim_leading_zeros=True)[1], rn)


def test_der_int():
  for m in (0, 1, 2, 5):
    close(jnp.polyder(P, m), np.polyder(P, m))
  close(jnp.polyder(np.array([1, 2, 3, 4])), [3., 4., 3.])
  for m, k in [(1, None), (2, None), (1, 5.), (2, np.array([1., 2.]))]:
    close(jnp.polyint(P, m, k), np.polyint(P, m, 0 if k is None else k))
  close(ember.jit(lambda p: jnp.polyint(p, 3, k=2.))(P), np.polyint(P, 3, k=[2., 2., 2.]))
  with pytest.raises(ValueError, match="Order of derivative must be positive"):
    jnp.polyder(P, -1)
  with pytest.raises(ValueError, match="Order of integral must be positive"):
    jnp.polyint(P, -1)
  with pytest.raises(ValueError, match="k must be a scalar or a rank-1 array"):
    jnp.polyint(P, 2, k=np.ones(3))


def test_poly_roots():
  z = np.array([1., -2., 0.5], np.float32)
  close(jnp.poly(z), np.poly(z))
  close(jnp.poly(3), [1., -3.])
  m = np.array([[1., 2.], [3., 4.]], np.float32)
  close(jnp.poly(m), np.poly(m), np.complex64, rtol=1e-4)
  r = jnp.roots(np.array([0., 0., 1., -3., 2.], np.float32))
  close(jnp.sort_complex(r), [1., 2.], np.complex64, rtol=1e-5)
  p = rng.standard_normal(6).astype(np.float32)
  close(jnp.sort_complex(jnp.roots(p)), np.sort_complex(np.roots(p)).astype(np.complex64),
        np.complex64, rtol=1e-3, atol=1e-4)
  close(jnp.roots(np.array([2.])), np.zeros(0), np.complex64)
  close(ember.jit(lambda c: jnp.sort_complex(jnp.roots(c, strip_zeros=False)))(P[:3]),
        np.sort_complex(np.roots(P[:3])), np.complex64, rtol=1e-5)
  with pytest.raises(ValueError, match="Input must be a rank-1 array"):
    jnp.roots(np.ones((2, 2)))
  with pytest.raises(ember.errors.ConcretizationTypeError, match="strip_zeros=False"):
    ember.jit(jnp.roots)(P)


def test_polyfit():
  x = np.linspace(-1, 2, 9).astype(np.float32)
  y = (x ** 2 - x + rng.standard_normal(9) * 0.1).astype(np.float32)
  w = rng.uniform(0.5, 2, 9).astype(np.float32)
  close(jnp.polyfit(x, y, 2), np.polyfit(x, y, 2), rtol=1e-4, atol=1e-4)
  close(ember.jit(lambda a, b, c: jnp.polyfit(a, b, 2, w=c))(x, y, w),
        np.polyfit(x, y, 2, w=w), rtol=1e-4, atol=1e-4)
  y2 = np.stack([y, 2 * y + 1], 1)
  close(jnp.polyfit(x, y2, 1), np.polyfit(x, y2, 1), rtol=1e-4, atol=1e-4)
  _, resid, rank, sv, rcond = jnp.polyfit(x, y, 2, full=True)
  _, rn, rankn, svn, rcondn = np.polyfit(x, y, 2, full=True)
  close(resid, rn, rtol=1e-3)
  close(sv, svn, rtol=1e-4)
  close(rcond, rcondn, rtol=1e-3)
  assert int(rank) == rankn
  for yy in (y, y2):
    _, cov = jnp.polyfit(x, yy, 1, cov=True)
    close(cov, np.polyfit(x, yy, 1, cov=True)[1], rtol=1e-3, atol=1e-6)
  with pytest.raises(ValueError, match="not inexact"):
    jnp.polyfit(np.arange(3), np.arange(3), 1)
  with pytest.raises(ValueError, match="expected deg >= 0"):
    jnp.polyfit(x, y, -1)
