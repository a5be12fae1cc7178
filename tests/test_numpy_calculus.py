"""Tests for ember.numpy finite differences and quadrature (calculus.py: gradient,
trapezoid, unwrap, vander), the window functions (windows.py), and interp/diff/ediff1d/cross,
against NumPy, under jit, vmap and grad."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from tests.batch_checks import check_batch

rng = np.random.default_rng(4)
F = rng.standard_normal((4, 5)).astype(np.float32)
XS = np.cumsum(rng.uniform(0.2, 1.0, 5)).astype(np.float32)


def close(got, want, dtype=np.float32, rtol=1e-5, atol=1e-5):
  assert got.dtype == dtype, (got.dtype, dtype)
  np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def test_gradient():
  close(jnp.gradient(F[0]), np.gradient(F[0]))
  close(jnp.gradient(np.arange(5) ** 2), np.gradient(np.arange(5) ** 2))
  for g, w in zip(jnp.gradient(F, 2., 0.5), np.gradient(F, 2., 0.5)):
    close(g, w)
  close(jnp.gradient(F, XS, axis=1), np.gradient(F, XS, axis=1), rtol=1e-4)
  close(ember.jit(lambda f, x: jnp.gradient(f, x, axis=-1))(F, XS),
        np.gradient(F, XS, axis=-1), rtol=1e-4)
  close(jnp.gradient(F, axis=(0,)), np.gradient(F, axis=(0,)))
  assert jnp.gradient(jnp.array(1.)) == []
  with pytest.raises(NotImplementedError, match="'edge_order' argument"):
    jnp.gradient(F, edge_order=2)
  with pytest.raises(ValueError, match="at least 2 elements are required"):
    jnp.gradient(jnp.ones(1))
  with pytest.raises(ValueError, match="Spacing arrays must have the same length"):
    jnp.gradient(F, XS[:3], axis=1)
  check_batch(lambda f: jnp.gradient(f, XS), [F])
  # gradient is linear in f: its vjp applied to ones is the column sums of the operator
  jac = ember.jacfwd(lambda f: jnp.gradient(f, XS))(F[0])
  want = np.stack([np.gradient(e, XS) for e in np.eye(5)], 1)
  close(jac, want, rtol=1e-4)


def test_trapezoid():
  close(jnp.trapezoid(F), np.trapezoid(F))
  close(jnp.trapezoid(F, dx=0.5, axis=0), np.trapezoid(F, dx=0.5, axis=0))
  close(jnp.trapezoid(F, XS), np.trapezoid(F, XS))
  xs2 = np.sort(rng.uniform(0, 3, F.shape), axis=0).astype(np.float32)
  close(ember.jit(lambda y, x: jnp.trapezoid(y, x, axis=0))(F, xs2),
        np.trapezoid(F, xs2, axis=0), rtol=1e-4)
  close(jnp.trapezoid(np.array([1, 2, 3])), 4.0)
  close(jnp.trapezoid(np.ones(1, np.float32)), 0.0)
  g = ember.grad(lambda y, x: jnp.trapezoid(y, x), argnums=(0, 1))(F[0], XS)
  eps = 1e-3
  for arg in (0, 1):
    fd = []
    for e in np.eye(5):
      a = [F[0].astype(np.float64), XS.astype(np.float64)]
      hi, lo = list(a), list(a)
      hi[arg], lo[arg] = a[arg] + eps * e, a[arg] - eps * e
      fd.append((np.trapezoid(*hi) - np.trapezoid(*lo)) / (2 * eps))
    close(g[arg], fd, rtol=1e-3, atol=1e-3)
  check_batch(lambda y: jnp.trapezoid(y, XS), [F])


def test_unwrap():
  p = np.cumsum(rng.uniform(-4, 4, (3, 8)), axis=1).astype(np.float32)
  close(jnp.unwrap(p), np.unwrap(p), rtol=1e-4, atol=1e-4)
  close(jnp.unwrap(p, axis=0, discont=4.0), np.unwrap(p, axis=0, discont=4.0), rtol=1e-4,
        atol=1e-4)
  close(ember.jit(lambda v: jnp.unwrap(v, period=5.0))(p), np.unwrap(p, period=5.0),
        rtol=1e-4, atol=1e-4)
  ip = np.array([0, 5, 9, 2, 13, 1], np.int32)
  close(jnp.unwrap(ip, period=8), np.unwrap(ip, period=8), np.int32)
  close(jnp.unwrap(ip, period=7), np.unwrap(ip, period=7), np.int32)
  close(jnp.unwrap(ip), np.unwrap(ip), rtol=1e-5)


def test_vander():
  x = np.array([1., 2., -0.5, 3.], np.float32)
  close(jnp.vander(x), np.vander(x))
  close(ember.jit(lambda v: jnp.vander(v, 3, increasing=True))(x), np.vander(x, 3, True))
  close(jnp.vander(np.array([1, 2, 3]), 0), np.zeros((3, 0)), np.int32)
  close(jnp.vander(np.array([1, 2, 3])), np.vander(np.array([1, 2, 3])), np.int32)
  with pytest.raises(ValueError, match="x must be a one-dimensional array"):
    jnp.vander(np.ones((2, 2)))
  with pytest.raises(ValueError, match="N must be nonnegative"):
    jnp.vander(x, -1)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows(name):
  for m in (0, 1, 2, 5, 8):
    close(getattr(jnp, name)(m), getattr(np, name)(m), atol=1e-6)


def test_kaiser():
  close(jnp.kaiser(6, np.float32(2.5)), np.kaiser(6, 2.5), rtol=1e-5)
  close(jnp.kaiser(4, jnp.zeros(())), np.kaiser(4, 0.))


def test_interp_diff_ediff1d_cross():
  xp = np.array([0., 1., 2.5, 4.], np.float32)
  fp = np.array([1., 3., -1., 2.], np.float32)
  x = np.linspace(-1, 5, 13).astype(np.float32)
  close(jnp.interp(x, xp, fp), np.interp(x, xp, fp))
  close(ember.jit(lambda v: jnp.interp(v, xp, fp, left=-9., right=9.))(x),
        np.interp(x, xp, fp, left=-9., right=9.))
  close(jnp.interp(x, xp, fp, period=3.), np.interp(x, xp, fp, period=3.), rtol=1e-4)
  g = ember.grad(lambda v: jnp.interp(v, xp, fp).sum())(np.array([0.5, 3.], np.float32))
  close(g, [2., 2.])
  close(jnp.diff(F, n=2, axis=0), np.diff(F, n=2, axis=0))
  close(jnp.diff(F, prepend=0., append=F[:, :1]), np.diff(F, prepend=0., append=F[:, :1]))
  close(jnp.ediff1d(F, to_begin=1., to_end=np.array([2., 3.])),
        np.ediff1d(F, to_begin=1., to_end=np.array([2., 3.])))
  a, b = rng.standard_normal((2, 4, 3)).astype(np.float32)
  close(jnp.cross(a, b), np.cross(a, b))
  close(jnp.cross(a[:, :2], b[:, :2]), np.cross(a[:, :2], b[:, :2]))
  close(jnp.cross(a.T, b, axisa=0), np.cross(a.T, b, axisa=0))
