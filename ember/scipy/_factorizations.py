"""Factorizations and solves of ember.scipy.linalg (cholesky, lu, qr, svd, eigh, inv,
det, solve...): thin layers over ember.lax.linalg and ember.numpy.linalg."""
from __future__ import annotations

from ember import numpy as jnp
from ember.lax import linalg as lax_linalg
from ember.scipy._util import inexact_arrays


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
  """Eigenvalues (ascending) and eigenvectors of a Hermitian ``a``. As JAX's, ``a`` is
  symmetrized first ((a + a^H) / 2), so ``lower`` (which triangle LAPACK reads) does not
  change the result.

  Raises:
      NotImplementedError: for the generalized problem (``b`` given), ``eigvals`` or another
          ``type``, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.eigh(jnp.array([[2., 1.], [1., 2.]]), eigvals_only=True)
      Array([1., 3.], dtype=float32)
  """
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  if type != 1:
    raise NotImplementedError("Only the type=1 case of eigh is implemented.")
  if eigvals is not None:
    raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
  a, = inexact_arrays("eigh", a)
  vectors, values = lax_linalg.eigh(a, lower=lower)
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
