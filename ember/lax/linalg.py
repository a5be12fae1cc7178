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
from ember.primitives.condensed import hessenberg_p, schur_p, tridiagonal_p
from ember.primitives import gpu_linalg as _gpu_linalg  # noqa: F401 (GPU lowerings)
from ember.primitives.factorizations import (
    cholesky_p, cholesky_update_p, geqp3_p, geqrf_p, householder_product_p, lu_p,
    lu_pivots_to_permutation_p, ormqr_p, qr_p, symmetric_product_p, triangular_solve_p,
    tridiagonal_solve_p)
from ember.primitives.spectral import (
    EigImplementation, EighImplementation, SvdAlgorithm, eig_p, eigh_p, svd_p)

__all__ = ["EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky", "cholesky_p",
           "cholesky_update", "cholesky_update_p", "eig", "eig_p", "eigh", "eigh_p",
           "hessenberg", "hessenberg_p", "householder_product", "householder_product_p", "lu",
           "lu_p", "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "ormqr", "ormqr_p",
           "qdwh", "qr", "qr_p", "schur", "schur_p", "svd", "svd_p", "symmetric_product",
           "symmetric_product_p", "triangular_solve", "triangular_solve_p", "tridiagonal",
           "tridiagonal_p", "tridiagonal_solve", "tridiagonal_solve_p"]


def _as_array(x):
  from ember.numpy._util import ensure_array
  return ensure_array(x)


def _symmetrize(x):
  """(x + x^H) / 2, in the default float dtype for integer input (as JAX's true division)."""
  x = _as_array(x)
  if not dtypes.is_inexact(get_aval(x).dtype):
    x = _ew.convert_element_type(x, dtypes.canonicalize_dtype(np.float64))
  aval = get_aval(x)
  two = 2.0 if aval.dtype.kind == "f" else 2 + 0j  # a weak 2 keeps a weak x weak, as in JAX
  if not aval.weak_type or dtypes.canonicalize_dtype(type(two)) != aval.dtype:
    two = np.array(2, aval.dtype)
  return _ew.div(_ew.add(x, _fac.mH(x)), two)


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


def cholesky_update(r_matrix, w_vector):
  """The upper Cholesky factor of R^T R + w w^T, given the upper factor ``r_matrix`` (R) of a
  matrix and a vector ``w_vector`` (w), in O(n^2) (Givens rotations). Unbatched, real and not
  differentiable, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> cholesky_update(jnp.array([[2., 1.], [0., 1.]]), jnp.array([0., 1.]))
      Array([[2.       , 1.       ],
             [0.       , 1.4142135]], dtype=float32)
  """
  return cholesky_update_p.bind(_as_array(r_matrix), _as_array(w_vector))


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False):
  """alpha A A^T + beta C for a (batch of) m x n matrices A and symmetric m x m C. On CPU
  every element is computed; ``symmetrize_output`` copies the lower triangle onto the upper
  one (on GPUs only the lower one is filled otherwise). Real dtypes only, as in JAX.

  Example:
      >>> import numpy as np
      >>> a = np.array([[1., 2.], [0., 1.]], np.float32)
      >>> symmetric_product(a, np.eye(2, dtype=np.float32), alpha=2., beta=1.)
      Array([[11.,  4.],
             [ 4.,  3.]], dtype=float32)
  """
  hash((alpha, beta))  # static parameters, as in JAX (an array is refused here)
  out = symmetric_product_p.bind(_as_array(a_matrix), _as_array(c_matrix), alpha=alpha,
                                 beta=beta)
  if symmetrize_output:
    out = _ew.add(_fac.tri(out, lower=True), _fac.mT(_fac.tri(out, lower=True, k=-1)))
  return out


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


def geqp3(a, jpvt):
  """The Householder form of the QR decomposition with column pivoting ``(h, jpvt, taus)``
  (LAPACK's geqp3): as ``geqrf``, of ``a[..., :, jpvt - 1]``; nonzero entries of the input
  ``jpvt`` pin columns to the front, and the output ``jpvt`` is the 1-based permutation. Not
  differentiable."""
  return tuple(geqp3_p.bind(_as_array(a), _as_array(jpvt)))


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
  """``c`` multiplied by the Q of a QR decomposition in Householder form (``a`` holding the
  reflectors below its diagonal, ``taus`` their scales): Q c (``left``) or c Q, with Q^T (Q^H
  for complex) instead when ``transpose``; Q is never formed. Not differentiable, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> h, taus = geqrf(jnp.array([[3., 1.], [4., 2.]]))
      >>> ormqr(h, taus, jnp.array([[3., 1.], [4., 2.]]), transpose=True)  # Q^T a = r
      Array([[-5.        , -2.2       ],
             [ 0.        ,  0.39999998]], dtype=float32)
  """
  return ormqr_p.bind(_as_array(a), _as_array(taus), _as_array(c), left=bool(left),
                      transpose=bool(transpose))


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


def hessenberg(a):
  """The reduction of a square ``a`` to upper Hessenberg form, Q^H a Q = H: ``[h, taus]`` with
  H on and above ``h``'s first subdiagonal and the Householder reflectors that make Q below it,
  their scales in ``taus`` (LAPACK's gehrd). CPU only and not differentiable, as in JAX.

  Example:
      >>> import numpy as np
      >>> h, taus = hessenberg(np.array([[1., 2.], [3., 4.]], np.float32))
      >>> h, taus.shape
      (Array([[1., 2.],
             [3., 4.]], dtype=float32), (1,))
  """
  return list(hessenberg_p.bind(_as_array(a)))


def tridiagonal(a, *, lower: bool = True):
  """The reduction of a Hermitian ``a`` (its ``lower`` or upper triangle) to real symmetric
  tridiagonal form, Q^H a Q = T: ``[a, d, e, taus]``, with T's diagonal ``d`` and off-diagonal
  ``e`` (also on ``a``'s diagonals) and the Householder reflectors that make Q in the rest of
  that triangle, their scales in ``taus`` (LAPACK's sytrd/hetrd).

  Example:
      >>> import numpy as np
      >>> _, d, e, _ = tridiagonal(np.array([[2., 1.], [1., 3.]], np.float32))
      >>> d, e
      (Array([2., 3.], dtype=float32), Array([1.], dtype=float32))
  """
  return list(tridiagonal_p.bind(_as_array(a), lower=bool(lower)))


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
  """The Schur decomposition x = Q U Q^H of a square ``x``: ``[U, Q]`` (``[U]`` without
  ``compute_schur_vectors``). U is upper triangular for complex ``x`` and quasi-upper
  triangular (2 x 2 blocks for complex conjugate eigenvalue pairs) for real ``x`` (LAPACK's
  gees). CPU only, and not differentiable, as in JAX; ``sort_eig_vals`` raises
  NotImplementedError and ``select_callable`` is unused, as in JAX.

  Example:
      >>> import numpy as np
      >>> t, q = schur(np.array([[1., 2.], [0., 3.]], np.float32))
      >>> t
      Array([[1., 2.],
             [0., 3.]], dtype=float32)
  """
  return list(schur_p.bind(_as_array(x), compute_schur_vectors=bool(compute_schur_vectors),
                           sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable))


# --- qdwh: the polar decomposition by a dynamically weighted Halley iteration ------------------

def _halley_weights(eps: float, max_iterations: int):
  """The weights (a, b, c) of the QDWH iterations (Nakatsukasa, Bai and Gygi, SIAM J. Matrix
  Anal. Appl. 31(5), 2010), started from the lower bound ``eps`` on the smallest singular value
  of the scaled matrix, up to the point where that bound reaches 1 (within 5 eps)."""
  weights, low, tol = [], eps, 5 * eps
  while low + tol < 1 and len(weights) < max_iterations:
    low2 = low * low
    dd = (4 * (1 / low2 - 1) / low2) ** (1 / 3)
    sqd = (1 + dd) ** 0.5
    a = sqd + (2 - dd + 2 * (2 - low2) / (low2 * sqd)) ** 0.5
    b = (a - 1) ** 2 / 4
    c = a + b - 1
    low = low * (a + b * low2) / (1 + c * low2)
    weights.append((a, b, c))
  return weights


def _mask(x, rows: int, cols: int, fill=None):
  """``x`` with the elements outside its top-left ``rows`` x ``cols`` block zeroed (or taken
  from ``fill``)."""
  import ember.numpy as jnp
  i, j = jnp.indices(x.shape, sparse=True)
  keep = (i < rows) & (j < cols)
  return jnp.where(keep, x, 0 if fill is None else fill)


def _qdwh_qr_step(u, m: int, n: int, e, d, sqrt_c):
  """One iteration through a QR decomposition, stable for large c: with [sqrt(c) U; I] =
  [Q1; Q2] R, U <- e U + d Q1 Q2^H, for e = b / c and d = (a - e) / sqrt(c)."""
  import ember.numpy as jnp
  from ember.lax.structural import dynamic_slice, dynamic_update_slice
  big_m, big_n = u.shape
  y = jnp.concatenate([sqrt_c * u, jnp.zeros((big_n, big_n), u.dtype)])
  y = dynamic_update_slice(y, jnp.eye(big_n, dtype=u.dtype), (m, 0))
  q, _ = qr(y, full_matrices=False)
  q1 = _mask(q[:big_m], m, n)
  q2 = _mask(dynamic_slice(q, (m, 0), (big_n, big_n)), n, n)
  return e * u + d * (q1 @ q2.conj().T)


def _qdwh_cholesky_step(u, n: int, e, d, c):
  """One iteration through a Cholesky factorization: with c U^H U + I = L L^H,
  U <- e U + d U (L L^H)^-1, for e = b / c and d = a - e."""
  import ember.numpy as jnp
  eye = jnp.eye(u.shape[1], dtype=u.dtype)
  low = cholesky(_mask(c * (u.conj().T @ u) + eye, n, n, eye), symmetrize_input=False)
  z = triangular_solve(low, u.T, left_side=True, lower=True, conjugate_a=True).conj()
  z = triangular_solve(low, z, left_side=True, lower=True, transpose_a=True,
                       conjugate_a=True).T.conj()
  return e * u + d * z


def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: tuple[int, int] | None = None):
  """The polar decomposition x = u h of a full-rank M x N ``x`` (M >= N) by the QR-based
  dynamically weighted Halley iteration: ``(u, h, num_iters, is_converged)``, u with
  orthonormal columns and h Hermitian positive definite.

  The iterations run until ``|u_k - u_k-1| < (5 eps)^(1/3)`` (``eps`` defaults to the dtype's
  epsilon) or ``max_iterations`` (10) have run; ``dynamic_shape=(m, n)`` treats ``x`` as an
  m x n matrix padded with zeros. ``is_hermitian`` is unused, as in JAX. Iterations that run
  until convergence make a while loop: differentiable in forward mode only.

  Raises:
      ValueError: for M < N.

  Example:
      >>> import numpy as np
      >>> u, h, num_iters, converged = qdwh(np.array([[2., 0.], [0., 3.]], np.float32))
      >>> h, converged
      (Array([[2., 0.],
             [0., 3.]], dtype=float32), Array(True, dtype=bool))
  """
  import ember.numpy as jnp
  from ember.lax import control_flow
  bool(is_hermitian)
  max_iterations = 10 if max_iterations is None else operator.index(max_iterations)
  x = _as_array(x)
  big_m, big_n = get_aval(x).shape
  if big_m < big_n:
    raise ValueError("The input matrix of shape M x N must have M >= N.")
  m, n = (big_m, big_n) if dynamic_shape is None else dynamic_shape
  if dynamic_shape is not None:
    x = _mask(x, m, n)
  eps = float(dtypes.finfo(get_aval(x).dtype).eps) if eps is None else eps
  one_norm, inf_norm = jnp.linalg.norm(x, ord=1), jnp.linalg.norm(x, ord=np.inf)
  scale = jnp.where(one_norm == 0, 1, _ew.rsqrt(one_norm) * _ew.rsqrt(inf_norm))
  u = x * scale.astype(x.dtype)
  tol_norm = jnp.cbrt(5 * eps)
  weights = _halley_weights(eps, max_iterations)
  # large c: QR is the stable way; the parameters (e, d, sqrt(c) or c) of each step
  qr_params = [(b / c, (a - b / c) / c ** 0.5, c ** 0.5) for a, b, c in weights if c > 100]
  chol_params = [(b / c, a - b / c, c) for a, b, c in weights if c <= 100]

  def run(u, params, step):
    params = jnp.array(params).astype(x.dtype)
    def body(i, carry):
      new = step(carry[0], *params[i])
      return new, jnp.linalg.norm(new - carry[0]) > tol_norm
    return control_flow.fori_loop(0, len(params), body, (u, True))
  if qr_params:
    u, _ = run(u, qr_params, lambda u, *p: _qdwh_qr_step(u, m, n, *p))
  not_converged = True
  if chol_params:
    u, not_converged = run(u, chol_params, lambda u, *p: _qdwh_cholesky_step(u, n, *p))

  def halley(carry):  # the weights' limit a = 3, b = 1, c = 3
    k, u, _ = carry
    new = _qdwh_cholesky_step(u, n, 1 / 3, 3 - 1 / 3, 3)
    return k + 1, new, jnp.linalg.norm(new - u) > tol_norm
  num_iters, u, not_converged = control_flow.while_loop(
      lambda carry: carry[2] & (carry[0] < max_iterations), halley,
      (len(weights), u, not_converged))
  u = 1.5 * u - 0.5 * u @ (u.conj().T @ u)
  h = u.conj().T @ x
  return u, (h + h.conj().T) / 2, num_iters, jnp.logical_not(not_converged)


def _lu_solve(lu, permutation, b, *, adjoint: bool = False):
  """Solve a x = b (a^H x = b if ``adjoint``) given ``lu`` and ``permutation`` from ``lu(a)``;
  ``b`` is a (batch of) matrices. Used by ember.numpy.linalg."""
  return _fac.lu_solve(lu, permutation, b, adjoint=adjoint)
