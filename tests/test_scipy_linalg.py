"""ember.scipy.linalg against SciPy: factorizations, solves (vector and matrix right-hand
sides), expm, the special matrices, gradients, vmap and JAX's errors."""
import numpy as np
import pytest
import scipy.linalg as sl
from ad_checks import check_jvp
from batch_checks import check_batch

import ember
from ember.scipy import linalg as el

RNG = np.random.default_rng(0)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B_VEC, B_MAT = RNG.normal(size=4), RNG.normal(size=(4, 2))


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_family(lower, x64):
  np.testing.assert_allclose(el.cholesky(SPD, lower=lower), sl.cholesky(SPD, lower=lower),
                             rtol=1e-12)
  c = el.cho_factor(SPD, lower=lower)
  assert c[1] == lower
  for b in (B_VEC, B_MAT):
    np.testing.assert_allclose(el.cho_solve(c, b), np.linalg.solve(SPD, b), rtol=1e-10)
    np.testing.assert_allclose(el.solve(SPD, b, assume_a="pos", lower=lower),
                               np.linalg.solve(SPD, b), rtol=1e-10)


def test_lu_family(x64):
  p, l, u = el.lu(A)
  sp, slo, su = sl.lu(A)
  for mine, ref in ((p, sp), (l, slo), (u, su)):
    np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-14)
  pl, u2 = el.lu(A, permute_l=True)
  np.testing.assert_allclose(pl @ u2, A, rtol=1e-12, atol=1e-14)
  wide = RNG.normal(size=(2, 3))
  for mine, ref in zip(el.lu(wide), sl.lu(wide)):
    np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-14)
  factors = el.lu_factor(A)
  ref_lu, ref_piv = sl.lu_factor(A)
  np.testing.assert_allclose(factors[0], ref_lu, rtol=1e-12)
  np.testing.assert_array_equal(factors[1], ref_piv)
  for trans in (0, 1, 2):
    for b in (B_VEC, B_MAT):
      np.testing.assert_allclose(el.lu_solve(factors, b, trans=trans),
                                 sl.lu_solve((ref_lu, ref_piv), b, trans=trans), rtol=1e-10)
  with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2"):
    el.lu_solve(factors, B_VEC, trans=3)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular(trans, lower, x64):
  tri = np.tril(A) + 4 * np.eye(4) if lower else np.triu(A) + 4 * np.eye(4)
  for b in (B_VEC, B_MAT):
    out = ember.jit(lambda t, b: el.solve_triangular(t, b, trans=trans, lower=lower))(tri, b)
    np.testing.assert_allclose(out, sl.solve_triangular(tri, b, trans=trans, lower=lower),
                               rtol=1e-10)


def test_solve_inv_det_svd_eigh_qr(x64):
  for b in (B_VEC, B_MAT):
    np.testing.assert_allclose(el.solve(A, b), sl.solve(A, b), rtol=1e-10)
  np.testing.assert_allclose(el.inv(A), sl.inv(A), rtol=1e-10)
  np.testing.assert_allclose(el.det(A), sl.det(A), rtol=1e-10)
  np.testing.assert_allclose(el.svd(A, compute_uv=False), sl.svd(A, compute_uv=False), rtol=1e-10)
  w, v = el.eigh(SPD)
  np.testing.assert_allclose(w, sl.eigh(SPD, eigvals_only=True), rtol=1e-10)
  np.testing.assert_allclose(SPD @ v, v * w, rtol=1e-9, atol=1e-10)
  tall = RNG.normal(size=(4, 3))
  for mode in ("full", "economic"):
    q, r = el.qr(tall, mode=mode)
    assert q.shape == sl.qr(tall, mode=mode)[0].shape
    np.testing.assert_allclose(q @ r, tall, rtol=1e-10, atol=1e-12)
  r, = el.qr(tall, mode="r")
  np.testing.assert_allclose(np.abs(r), np.abs(sl.qr(tall, mode="r")[0]), rtol=1e-10, atol=1e-12)
  with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
    el.qr(tall, mode="bad")
  with pytest.raises(NotImplementedError, match="b=None"):
    el.eigh(SPD, SPD)
  with pytest.raises(ValueError, match="assume_a"):
    el.solve(A, B_VEC, assume_a="foo")
  with pytest.raises(ValueError, match="Invalid 'trans'"):
    el.solve_triangular(A, B_VEC, trans="X")


@pytest.mark.parametrize("scale", [0.01, 1., 30.])
def test_expm(scale, x64):
  m = A * scale / 4
  np.testing.assert_allclose(el.expm(m), sl.expm(m), rtol=1e-9)
  m32 = (A * scale / 4).astype(np.float32)
  np.testing.assert_allclose(el.expm(m32), sl.expm(m32.astype(np.float64)), rtol=5e-4, atol=1e-5)
  rot = np.array([[0., 1.], [-1., 0.]])
  np.testing.assert_allclose(el.expm(rot), sl.expm(rot), rtol=1e-12, atol=1e-15)


def test_expm_gradient_and_vmap(x64):
  check_jvp(lambda m: el.expm(m), (A / 3,), np.random.RandomState(0), rtol=1e-6, atol=1e-8)
  g = ember.grad(lambda m: el.expm(m).sum())(A / 3)
  assert g.shape == (4, 4) and np.isfinite(np.asarray(g)).all()
  check_batch(el.expm, (np.stack([A / 3, A / 5, A]),), rtol=1e-8)


def test_batched_factorizations(x64):
  check_batch(lambda a, b: el.solve_triangular(a, b, lower=True),
              (np.stack([np.tril(A) + 4 * np.eye(4)] * 3), np.stack([B_VEC] * 3)))
  check_batch(lambda a, b: el.cho_solve(el.cho_factor(a), b), (np.stack([SPD] * 3), B_MAT),
              in_axes=(0, None), rtol=1e-8)
  check_jvp(lambda a, b: el.cho_solve(el.cho_factor(a), b), (SPD, B_VEC),
            np.random.RandomState(1), rtol=1e-6, atol=1e-9)


def test_special_matrices():
  np.testing.assert_array_equal(el.block_diag(np.ones((1, 2)), 2, np.ones((2, 1))),
                                sl.block_diag(np.ones((1, 2)), 2, np.ones((2, 1))))
  c, r = np.array([1, 2, 3]), np.array([9, 8, 7, 6])
  np.testing.assert_array_equal(el.toeplitz(c, r), sl.toeplitz(c, r))
  np.testing.assert_array_equal(el.toeplitz(c), sl.toeplitz(c))
  np.testing.assert_array_equal(el.hankel(c, r), sl.hankel(c, r))
  np.testing.assert_array_equal(el.hankel(c), sl.hankel(c))
  np.testing.assert_array_equal(el.circulant(c), sl.circulant(c))
  np.testing.assert_allclose(el.hilbert(3), sl.hilbert(3), rtol=1e-7)
