"""ember.scipy.linalg: SciPy's linear algebra on ember arrays, mirroring ``jax.scipy.linalg``.

Built on ember.lax.linalg's LAPACK-backed factorizations (so every function works under jit,
vmap and grad). SciPy's ``overwrite_*`` and ``check_finite`` arguments are accepted and ignored,
as in JAX. Where SciPy takes a vector or a matrix right-hand side, so do these functions.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import linalg
    >>> linalg.solve_triangular(jnp.array([[2., 0.], [1., 1.]]), jnp.array([2., 3.]), lower=True)
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.lax import linalg as lax_linalg
from ember.scipy._util import inexact_arrays

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "det", "eigh", "expm",
    "hankel", "hilbert", "inv", "lu", "lu_factor", "lu_solve", "qr", "solve",
    "solve_triangular", "svd", "toeplitz",
]


def _as_matrix_rhs(b, n_dims: int):
  """``b`` as a matrix right-hand side, and whether it was a vector (of ``n_dims`` - 1 dims)."""
  return (b[..., None], True) if b.ndim == n_dims - 1 else (b, False)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """The Cholesky factor of a Hermitian positive-definite ``a``: upper ``u`` with
  ``a = u^H u`` (or lower ``l`` with ``a = l l^H``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))
      Array([[2., 1.],
             [0., 2.]], dtype=float32)
  """
  a, = inexact_arrays("cholesky", a)
  low = lax_linalg.cholesky(a)
  return low if lower else jnp.conj(jnp.swapaxes(low, -1, -2))


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """``(c, lower)``: the Cholesky factor of ``a`` and which triangle it is, for ``cho_solve``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.cho_factor(jnp.array([[4., 2.], [2., 5.]]))
      (Array([[2., 1.],
             [0., 2.]], dtype=float32), False)
  """
  return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
  """Solve ``a x = b`` given ``(c, lower)`` from ``cho_factor(a)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.cho_solve(linalg.cho_factor(jnp.array([[4., 2.], [2., 5.]])), jnp.array([6., 7.]))
      Array([1., 1.], dtype=float32)
  """
  c, lower = c_and_lower
  c, b = inexact_arrays("cho_solve", c, b)
  rhs, was_vector = _as_matrix_rhs(b, c.ndim)
  # a = l l^H: solve l y = b, then l^H x = y (with u = l^H when the upper factor is stored)
  y = lax_linalg.triangular_solve(c, rhs, left_side=True, lower=lower, transpose_a=not lower,
                                  conjugate_a=not lower)
  x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower,
                                  conjugate_a=lower)
  return x[..., 0] if was_vector else x


_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
  """Solve ``op(a) x = b`` for triangular ``a``; ``op`` is set by ``trans``: 0/'N' (a),
  1/'T' (a^T) or 2/'C' (a^H).

  Raises:
      ValueError: for another ``trans``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.solve_triangular(jnp.array([[2., 1.], [0., 4.]]), jnp.array([4., 8.]))
      Array([1., 2.], dtype=float32)
  """
  if trans not in _TRANS:
    raise ValueError(f"Invalid 'trans' value {trans}")
  trans = _TRANS[trans]
  a, b = inexact_arrays("solve_triangular", a, b)
  rhs, was_vector = _as_matrix_rhs(b, a.ndim)
  x = lax_linalg.triangular_solve(a, rhs, left_side=True, lower=lower, transpose_a=trans > 0,
                                  conjugate_a=trans == 2, unit_diagonal=unit_diagonal)
  return x[..., 0] if was_vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
  """``(lu, piv)``: L and U packed in one matrix, and LAPACK's row-swap pivots.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.lu_factor(jnp.array([[1., 2.], [3., 4.]]))[1]
      Array([1, 1], dtype=int32)
  """
  a, = inexact_arrays("lu_factor", a)
  packed, pivots, _ = lax_linalg.lu(a)
  return packed, pivots


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
  """Solve ``op(a) x = b`` given ``(lu, piv)`` from ``lu_factor(a)``; ``trans`` 0 (a),
  1 (a^T) or 2 (a^H).

  Raises:
      ValueError: for another ``trans``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> factors = linalg.lu_factor(jnp.array([[1., 2.], [3., 4.]]))
      >>> linalg.lu_solve(factors, jnp.array([5., 11.]))
      Array([1., 2.], dtype=float32)
  """
  if trans not in (0, 1, 2):
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
  packed, pivots = lu_and_piv
  packed, b = inexact_arrays("lu_solve", packed, b)
  perm = lax_linalg.lu_pivots_to_permutation(pivots, packed.shape[-1])
  rhs, was_vector = _as_matrix_rhs(b, packed.ndim)
  if trans == 1 and jnp.iscomplexobj(packed):  # a^T x = b  <=>  a^H conj(x) = conj(b)
    x = jnp.conj(lax_linalg._lu_solve(packed, perm, jnp.conj(rhs), adjoint=True))
  else:
    x = lax_linalg._lu_solve(packed, perm, rhs, adjoint=trans > 0)
  return x[..., 0] if was_vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """The pivoted LU decomposition ``a = p @ l @ u``: ``(p, l, u)``, or ``(p @ l, u)`` with
  ``permute_l``. ``l`` is m x k and ``u`` k x n for ``k = min(m, n)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> p, l, u = linalg.lu(jnp.array([[1., 2.], [3., 4.]]))
      >>> p
      Array([[0., 1.],
             [1., 0.]], dtype=float32)
  """
  a, = inexact_arrays("lu", a)
  packed, _, perm = lax_linalg.lu(a)
  m, n = a.shape[-2:]
  k = min(m, n)
  eye_k = jnp.eye(m, k, dtype=a.dtype)
  lower_part = jnp.tril(packed[..., :, :k], -1) + eye_k
  upper_part = jnp.triu(packed[..., :k, :])
  p = jnp.swapaxes(jnp.eye(m, dtype=a.dtype)[perm], -1, -2)  # rows of a are rows perm of l u
  if permute_l:
    return jnp.matmul(p, lower_part), upper_part
  return p, lower_part, upper_part


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
  """The QR decomposition: ``(q, r)`` for ``mode`` 'full' or 'economic', ``(r,)`` for 'r'
  (with a column permutation ``p`` appended when ``pivoting``).

  Raises:
      ValueError: for another ``mode``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.qr(jnp.array([[3., 1.], [4., 2.]]), mode="r")
      (Array([[-5.        , -2.2       ],
             [ 0.        ,  0.39999998]], dtype=float32),)
  """
  if mode not in ("full", "r", "economic"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  a, = inexact_arrays("qr", a)
  out = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
  if mode == "r":
    return (out[1], out[2]) if pivoting else (out[1],)
  return tuple(out)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
  """The singular value decomposition ``(u, s, vh)`` (``s`` alone without ``compute_uv``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.svd(jnp.array([[3., 0.], [0., -4.]]), compute_uv=False)
      Array([4., 3.], dtype=float32)
  """
  a, = inexact_arrays("svd", a)
  return jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
  """Eigenvalues (ascending) and eigenvectors of a Hermitian ``a``, read from its ``lower``
  (or upper) triangle.

  Raises:
      NotImplementedError: for the generalized problem (``b`` given), as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.eigh(jnp.array([[2., 1.], [1., 2.]]), eigvals_only=True)
      Array([1., 3.], dtype=float32)
  """
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  a, = inexact_arrays("eigh", a)
  vectors, values = lax_linalg.eigh(a, lower=lower, symmetrize_input=False)
  return values if eigvals_only else (values, vectors)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
  """The inverse of a square matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.inv(jnp.array([[2., 0.], [0., 4.]]))
      Array([[0.5 , 0.  ],
             [0.  , 0.25]], dtype=float32)
  """
  a, = inexact_arrays("inv", a)
  return jnp.linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
  """The determinant of a square matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.det(jnp.array([[1., 2.], [3., 4.]]))
      Array(-2., dtype=float32)
  """
  a, = inexact_arrays("det", a)
  return jnp.linalg.det(a)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
  """Solve ``a x = b`` for square ``a``; ``assume_a='pos'`` uses a Cholesky factorization
  of the ``lower`` (or upper) triangle, the other kinds a pivoted LU.

  Raises:
      ValueError: for an unknown ``assume_a``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.solve(jnp.array([[4., 2.], [2., 5.]]), jnp.array([6., 7.]), assume_a="pos")
      Array([1., 1.], dtype=float32)
  """
  kinds = ["gen", "sym", "her", "pos"]
  if assume_a not in kinds:
    raise ValueError(f"Expected assume_a to be one of {kinds}; got {assume_a!r}")
  a, b = inexact_arrays("solve", a, b)
  if assume_a == "pos":
    return cho_solve(cho_factor(a, lower=lower), b)
  rhs, was_vector = _as_matrix_rhs(b, a.ndim)
  x = jnp.linalg.solve(a, rhs)
  return x[..., 0] if was_vector else x


# --- matrix exponential -----------------------------------------------------------------------

# Pade coefficients b_0..b_m of degree 7 (float32) and 13 (float64), and the largest 1-norm for
# which each is accurate to the unit roundoff without scaling (Higham, SIAM J. Matrix Anal.
# Appl. 26(4), 2005).
_PADE = {
    7: ((17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.), 3.925724783138660),
    13: ((64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
          129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
          40840800., 960960., 16380., 182., 1.), 5.371920351148152),
}


def _pade_fraction(a, coeffs):
  """``(u, v)`` with the degree-m Pade approximant of exp(a) equal to (v - u)^-1 (v + u):
  ``u`` collects the odd terms of sum b_k a^k, ``v`` the even ones."""
  eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
  a_sq = jnp.matmul(a, a)
  power, odd, even = eye, coeffs[1] * eye, coeffs[0] * eye
  for k in range(2, len(coeffs), 2):
    power = jnp.matmul(power, a_sq)
    even = even + coeffs[k] * power
    if k + 1 < len(coeffs):
      odd = odd + coeffs[k + 1] * power
  return jnp.matmul(a, odd), even


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """The matrix exponential, by scaling and squaring with a Pade approximant.

  ``A`` is scaled by 2^-s so its 1-norm is within the approximant's range, and the result is
  squared s times (at most ``max_squarings``; the loop has a fixed trip count, so the function
  is differentiable in both modes). ``upper_triangular`` is accepted as a hint and ignored.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.expm(jnp.array([[0., 1.], [0., 0.]]))
      Array([[1., 1.],
             [0., 1.]], dtype=float32)
  """
  A, = inexact_arrays("expm", A)
  if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
    raise ValueError(f"expected A to be a (batch of) square matrices, got shape {A.shape}")
  degree = 13 if A.dtype in (np.float64, np.complex128) else 7
  coeffs, theta = _PADE[degree]
  norm = jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1)
  squarings = jnp.maximum(0, jnp.ceil(jnp.log2(norm / theta)))
  squarings = jnp.where(jnp.isfinite(squarings), squarings, 0)
  scale = jnp.exp2(-squarings).astype(A.dtype)[..., None, None]
  u, v = _pade_fraction(A * scale, coeffs)
  r = jnp.linalg.solve(v - u, v + u)

  def square(i, r):
    keep = (i >= squarings)[..., None, None]
    return jnp.where(keep, r, jnp.matmul(r, r))
  return lax.fori_loop(0, operator.index(max_squarings), square, r)


# --- special matrices -------------------------------------------------------------------------

def block_diag(*arrs):
  """The block-diagonal matrix with the given blocks (scalars and vectors count as 1-row
  matrices).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.block_diag(jnp.ones((1, 2)), 2.)
      Array([[1., 1., 0.],
             [0., 0., 2.]], dtype=float32)
  """
  if not arrs:
    return jnp.zeros((1, 0))
  blocks = [jnp.atleast_2d(b) for b in arrs]
  if any(b.ndim != 2 for b in blocks):
    raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
                     f"got {[b.ndim for b in arrs]}")
  dtype = jnp.result_type(*blocks)
  n_cols = sum(b.shape[1] for b in blocks)
  rows, start = [], 0
  for b in blocks:
    pad = ((0, 0), (start, n_cols - start - b.shape[1]))
    rows.append(jnp.pad(b.astype(dtype), pad))
    start += b.shape[1]
  return jnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
  """The Toeplitz matrix with first column ``c`` and first row ``r`` (``conj(c)`` when omitted;
  ``r[0]`` is ignored).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.toeplitz(jnp.array([1, 2, 3]), jnp.array([0, 8, 9]))
      Array([[1, 8, 9],
             [2, 1, 8],
             [3, 2, 1]], dtype=int32)
  """
  c = jnp.ravel(jnp.asarray(c))
  r = jnp.conj(c) if r is None else jnp.ravel(jnp.asarray(r))
  values = jnp.concatenate([jnp.flip(r[1:]), c.astype(jnp.result_type(c, r))])
  rows = jnp.arange(c.shape[0])[:, None]
  cols = jnp.arange(r.shape[0])[None, :]
  return values[r.shape[0] - 1 + rows - cols]


def hankel(c, r=None):
  """The Hankel matrix with first column ``c`` and last row ``r`` (zeros below the
  anti-diagonal when omitted; ``r[0]`` is ignored).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.hankel(jnp.array([1, 2, 3]), jnp.array([3, 4, 5]))
      Array([[1, 2, 3],
             [2, 3, 4],
             [3, 4, 5]], dtype=int32)
  """
  c = jnp.ravel(jnp.asarray(c))
  r = jnp.zeros_like(c) if r is None else jnp.ravel(jnp.asarray(r))
  values = jnp.concatenate([c, r[1:].astype(jnp.result_type(c, r))])
  return values[jnp.arange(c.shape[0])[:, None] + jnp.arange(r.shape[0])[None, :]]


def circulant(c):
  """The circulant matrix whose first column is ``c`` (each column the previous rolled down).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.circulant(jnp.array([1, 2, 3]))
      Array([[1, 3, 2],
             [2, 1, 3],
             [3, 2, 1]], dtype=int32)
  """
  c = jnp.asarray(c)
  n = c.shape[-1]
  index = (jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n
  return c[..., index]


def hilbert(n: int):
  """The n x n Hilbert matrix ``1 / (i + j + 1)``.

  Example:
      >>> from ember.scipy import linalg
      >>> linalg.hilbert(2)
      Array([[1.        , 0.5       ],
             [0.5       , 0.33333334]], dtype=float32)
  """
  a = jnp.arange(operator.index(n), dtype=float)
  return 1 / (a[:, None] + a[None, :] + 1)
