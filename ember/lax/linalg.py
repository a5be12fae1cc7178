"""ember.lax.linalg: matrix decompositions and solves, mirroring ``jax.lax.linalg``.

Every function takes (batches of) matrices in the two minor dimensions of its operands, in
float32, float64, complex64 or complex128, and runs on LAPACK on CPU (through jaxlib's kernels).
A decomposition that fails (a Cholesky factorization of a matrix that is not positive definite,
an eigensolver that does not converge) returns NaNs, as in JAX.

Example:
    >>> import numpy as np
    >>> from ember.lax import linalg
    >>> linalg.cholesky(np.array([[4., 2.], [2., 2.]], np.float32))
    Array([[2., 0.],
           [1., 1.]], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes
from ember.core.trace import get_aval
from ember.lax import elementwise as _ew
from ember.primitives import factorizations as _fac
from ember.primitives.factorizations import (
    cholesky_p, geqrf_p, householder_product_p, lu_p, lu_pivots_to_permutation_p, qr_p,
    triangular_solve_p, tridiagonal_solve_p)
from ember.primitives.spectral import (
    EigImplementation, EighImplementation, SvdAlgorithm, eig_p, eigh_p, svd_p)

__all__ = ["EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky", "cholesky_p",
           "eig", "eig_p", "eigh", "eigh_p", "householder_product", "householder_product_p",
           "lu", "lu_p", "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "qr", "qr_p",
           "svd", "svd_p", "triangular_solve", "triangular_solve_p", "tridiagonal_solve",
           "tridiagonal_solve_p"]


def _as_array(x):
  from ember.numpy._util import ensure_array
  return ensure_array(x)


def _symmetrize(x):
  """(x + x^H) / 2, in the default float dtype for integer input (as JAX's true division)."""
  x = _as_array(x)
  if not dtypes.is_inexact(get_aval(x).dtype):
    x = _ew.convert_element_type(x, dtypes.canonicalize_dtype(np.float64))
  dt = get_aval(x).dtype
  return _ew.div(_ew.add(x, _fac.mH(x)), np.array(2, dt))


def cholesky(x, *, symmetrize_input: bool = True):
  """The lower Cholesky factor L of the Hermitian positive-definite ``x`` (x = L L^H).

  Only the lower triangle of ``x`` is read (after symmetrizing it, by default). A matrix that
  is not positive definite gives NaNs (in the lower triangle; the upper one is zero).

  Example:
      >>> import numpy as np
      >>> cholesky(np.array([[1., 2.], [2., 1.]], np.float32))
      Array([[nan,  0.],
             [nan, nan]], dtype=float32)
  """
  x = _symmetrize(x) if symmetrize_input else _as_array(x)
  return _fac.tri(cholesky_p.bind(x), lower=True)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
  """Solve op(a) x = b (``left_side``) or x op(a) = b for x, with ``a`` triangular.

  op(a) is a, its transpose, its conjugate or its conjugate transpose (``transpose_a``,
  ``conjugate_a``); only the ``lower`` (or upper) triangle of ``a`` is read, and its diagonal
  is taken to be ones with ``unit_diagonal``. ``b`` may be a vector when ``a`` is a matrix.

  Example:
      >>> import numpy as np
      >>> a = np.array([[2., 0.], [1., 1.]], np.float32)
      >>> triangular_solve(a, np.array([2., 3.], np.float32), left_side=True, lower=True)
      Array([1., 2.], dtype=float32)
  """
  a, b = _as_array(a), _as_array(b)
  conjugate_a = bool(conjugate_a) and dtypes.is_complex(get_aval(a).dtype)
  singleton = get_aval(b).ndim == get_aval(a).ndim - 1
  if singleton:
    b = _expand(b, -1 if left_side else -2)
  out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                unit_diagonal=bool(unit_diagonal))
  if singleton:
    from ember.lax.structural import squeeze
    out = squeeze(out, (get_aval(out).ndim - (1 if left_side else 2),))
  return out


def _expand(x, axis: int):
  from ember.lax.structural import expand_dims
  return expand_dims(x, (axis % (get_aval(x).ndim + 1),))


def lu(x):
  """The LU decomposition with partial pivoting: ``(lu, pivots, permutation)``.

  ``lu`` packs the unit lower-triangular L (below the diagonal) and the upper-triangular U;
  ``pivots[i]`` is the row swapped with row i at step i, and ``x[..., permutation, :] = L U``.

  Example:
      >>> import numpy as np
      >>> lu(np.array([[1., 2.], [3., 4.]], np.float32))[2]
      Array([1, 0], dtype=int32)
  """
  return tuple(lu_p.bind(_as_array(x)))


def lu_pivots_to_permutation(pivots, permutation_size: int):
  """The permutation of ``permutation_size`` rows made by the row swaps ``pivots``.

  Example:
      >>> import numpy as np
      >>> lu_pivots_to_permutation(np.array([2, 2], np.int32), 3)
      Array([2, 0, 1], dtype=int32)
  """
  return lu_pivots_to_permutation_p.bind(_as_array(pivots),
                                         permutation_size=operator.index(permutation_size))


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
  """The QR decomposition ``(q, r)`` of ``x`` (``(q, r, p)`` with column pivoting, where
  ``x[..., :, p] = q r``).

  ``q`` has orthonormal columns and ``r`` is upper triangular; with ``full_matrices`` q is
  m x m and r m x n, otherwise q is m x k and r k x n (k = min(m, n)).

  Example:
      >>> import numpy as np
      >>> q, r = qr(np.array([[3., 0.], [4., 5.]], np.float32))
      >>> r
      Array([[-5., -4.],
             [ 0.,  3.]], dtype=float32)
  """
  outs = qr_p.bind(_as_array(x), pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                   use_magma=use_magma)
  return tuple(outs)


def geqrf(a):
  """The Householder form of the QR decomposition ``(h, taus)`` (LAPACK's geqrf): R on and
  above ``h``'s diagonal, the reflectors' vectors below it. Not differentiable."""
  return tuple(geqrf_p.bind(_as_array(a)))


def householder_product(a, taus):
  """The product of the Householder reflectors stored below ``a``'s diagonal (with scales
  ``taus``), as LAPACK's orgqr/ungqr: the first columns of the orthogonal matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> # one reflector I - tau v v^T, with v = [1, a[1, 0]] = [1, 1] and tau = 1
      >>> householder_product(jnp.array([[0.], [1.]]), jnp.array([1.]))
      Array([[ 0.],
             [-1.]], dtype=float32)
  """
  return householder_product_p.bind(_as_array(a), _as_array(taus))


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
  """The eigendecomposition ``(v, w)`` of the Hermitian ``x``: x v = v diag(w), with the
  eigenvalues ``w`` in ascending order and the eigenvectors as the columns of ``v``.

  Example:
      >>> import numpy as np
      >>> eigh(np.array([[2., 1.], [1., 2.]], np.float32))[1]
      Array([1., 3.], dtype=float32)
  """
  x = _symmetrize(x) if symmetrize_input else _as_array(x)
  subset = None if subset_by_index is None else tuple(operator.index(i)
                                                      for i in subset_by_index)
  v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                     subset_by_index=subset, algorithm=implementation)
  return v, w


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm: SvdAlgorithm | None = None):
  """The singular value decomposition ``(u, s, vh)`` of ``x`` (x = u diag(s) vh), or only the
  singular values ``s`` (descending) when not ``compute_uv``.

  Example:
      >>> import numpy as np
      >>> svd(np.array([[3., 0.], [0., -4.]], np.float32), compute_uv=False)
      Array([4., 3.], dtype=float32)
  """
  subset = None if subset_by_index is None else tuple(operator.index(i)
                                                      for i in subset_by_index)
  outs = svd_p.bind(_as_array(x), full_matrices=bool(full_matrices),
                    compute_uv=bool(compute_uv), subset_by_index=subset, algorithm=algorithm)
  if not compute_uv:
    return outs[0]
  s, u, vh = outs
  return u, s, vh


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
  """The eigenvalues of the general square ``x`` (complex), followed by its left and right
  eigenvectors (columns of unit norm) as requested: ``[w, vl, vr]``.

  Only eigenvalues are differentiable unless ``enable_eigvec_derivs`` (right eigenvectors,
  valid for matrices with distinct eigenvalues).

  Example:
      >>> import numpy as np
      >>> eig(np.array([[0., -1.], [1., 0.]], np.float32), compute_left_eigenvectors=False,
      ...     compute_right_eigenvectors=False)[0]
      Array([0.+1.j, 0.-1.j], dtype=complex64)
  """
  return list(eig_p.bind(_as_array(x), compute_left_eigenvectors=bool(compute_left_eigenvectors),
                         compute_right_eigenvectors=bool(compute_right_eigenvectors),
                         enable_eigvec_derivs=bool(enable_eigvec_derivs),
                         implementation=implementation))


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
  """Solve T x = b for the tridiagonal T with sub-diagonal ``dl``, diagonal ``d`` and
  super-diagonal ``du`` (``dl[..., 0]`` and ``du[..., -1]`` are ignored); ``b`` is [..., m, n].

  Example:
      >>> import numpy as np
      >>> one = np.ones(2, np.float32)
      >>> tridiagonal_solve(one, 2 * one, one, np.array([[3.], [3.]], np.float32))
      Array([[1.],
             [1.]], dtype=float32)
  """
  return tridiagonal_solve_p.bind(_as_array(dl), _as_array(d), _as_array(du), _as_array(b),
                                  perturb_singular=bool(perturb_singular))


def _lu_solve(lu, permutation, b, *, adjoint: bool = False):
  """Solve a x = b (a^H x = b if ``adjoint``) given ``lu`` and ``permutation`` from ``lu(a)``;
  ``b`` is a (batch of) matrices. Used by ember.numpy.linalg."""
  return _fac.lu_solve(lu, permutation, b, adjoint=adjoint)
