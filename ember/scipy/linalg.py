"""ember.scipy.linalg: SciPy's linear algebra on ember arrays, mirroring ``jax.scipy.linalg``.

Built on ember.lax.linalg's LAPACK-backed decompositions, so every function works under jit
and vmap, and is differentiable where JAX's is (the Schur, Hessenberg and Householder-based
ones are not; those with while loops, forward mode only). SciPy's ``overwrite_*`` and
``check_finite`` arguments are accepted and ignored, as in JAX. Where SciPy takes a vector or a
matrix right-hand side, so do these functions. Sections: factorizations and solves; the Schur,
Hessenberg and polar decompositions and tridiagonal eigenproblems; matrix functions (expm,
expm_frechet, sqrtm, funm, solve_sylvester); special matrices.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import linalg
    >>> linalg.solve_triangular(jnp.array([[2., 0.], [1., 1.]]), jnp.array([2., 3.]), lower=True)
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.lax import linalg as lax_linalg
from ember.numpy._util import (
    check_arraylike, is_arraylike, promote_args_inexact, promote_dtypes, promote_dtypes_complex,
    promote_dtypes_inexact)
from ember.scipy._util import inexact_arrays

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
    "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
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


# --- Schur, Hessenberg and polar decompositions, tridiagonal eigenproblems -------------------

def _check_bindable(name: str, x) -> None:
  """JAX's TypeError for a value its primitive ``name`` cannot take (a list, say)."""
  if not is_arraylike(x):
    raise TypeError(f"Error interpreting argument to {name} as a JAX value. The problematic "
                    f"value is of type {type(x)} and was passed to {name} at position 0.")


def schur(a, output: str = "real"):
  """The Schur decomposition a = z t z^H: ``[t, z]``, ``t`` quasi-upper-triangular (2 x 2
  diagonal blocks for complex conjugate eigenvalue pairs) for ``output='real'``, upper
  triangular for ``'complex'`` (which converts ``a`` to complex first). CPU only and not
  differentiable, as in JAX; a list is returned, as JAX's.

  Raises:
      ValueError: for another ``output``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> t, z = linalg.schur(jnp.array([[1., 2.], [0., 3.]]))
      >>> t
      Array([[1., 2.],
             [0., 3.]], dtype=float32)
  """
  if output not in ("real", "complex"):
    raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
  _check_bindable("schur", a)
  a = jnp.asarray(a)
  if output == "complex":
    a = a.astype(dtypes.to_complex_dtype(a.dtype))
  return lax_linalg.schur(a)


def _givens_to_triangular(t, z, m):
  """Zero ``t[m, m-1]`` (a 2 x 2 block of a real Schur form, made complex) by a complex Givens
  rotation G of rows and columns m-1, m: t <- G t G^H, z <- z G^H (SciPy's rsf2csf step)."""
  n = t.shape[-1]
  block = lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))
  mu = jnp.linalg.eigvals(block) - t[m, m]
  r = jnp.linalg.norm(jnp.stack([mu[0], t[m, m - 1]])).astype(t.dtype)
  c, s = mu[0] / r, t[m, m - 1] / r
  g = jnp.array([[c.conj(), s], [-s, c]], dtype=t.dtype)
  idx = jnp.arange(n)
  rows = lax.dynamic_slice_in_dim(t, m - 1, 2, 0)
  rows = jnp.where(idx >= m - 1, g @ jnp.where(idx >= m - 1, rows, 0), rows)
  t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, 0)
  cols = lax.dynamic_slice_in_dim(t, m - 1, 2, 1)
  upper = (idx < m + 1)[:, None]
  cols = jnp.where(upper, jnp.where(upper, cols, 0) @ g.conj().T, cols)
  t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, 1)
  z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, 1) @ g.conj().T
  return t, lax.dynamic_update_slice_in_dim(z, z_cols, m - 1, 1)


def _rsf2csf_2d(t, z):
  t, z = promote_dtypes_complex(t, z)
  n = t.shape[-1]
  if n == 1:
    return t, z
  eps = dtypes.finfo(t.dtype).eps

  def step(i, tz):
    t, z = tz
    m = n - i
    split = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
    t, z = lax.cond(split, lambda t, z: _givens_to_triangular(t, z, m),
                    lambda t, z: (t, z), t, z)
    return t.at[m, m - 1].set(0), z
  return lax.fori_loop(1, n, step, (t, z))


def rsf2csf(T, Z, check_finite: bool = True):
  """The complex Schur form ``(t, z)`` (t upper triangular, a = z t z^H) from the real one
  ``(T, Z)`` that ``schur`` gives: each 2 x 2 diagonal block is split by a complex Givens
  rotation, as SciPy's. Batch dimensions of ``T`` and ``Z`` broadcast.

  Raises:
      ValueError: for non-square or mismatched inputs.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> t, z = linalg.rsf2csf(*linalg.schur(jnp.array([[0., -1.], [1., 0.]])))
      >>> jnp.round(jnp.diag(t), 4)
      Array([0.+1.j, 0.-1.j], dtype=complex64)
  """
  T, Z = jnp.asarray(T), jnp.asarray(Z)
  if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
    raise ValueError("Input 'T' must be square.")
  if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
    raise ValueError("Input 'Z' must be square.")
  if T.shape[-1] != Z.shape[-1]:
    raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
  return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
  """The Hessenberg form ``h`` of a square ``a`` (zero below the first subdiagonal, with
  a = q h q^H), and the unitary ``q`` too with ``calc_q``. CPU only and not differentiable,
  as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> h, q = linalg.hessenberg(jnp.array([[1., 2.], [3., 4.]]), calc_q=True)
      >>> q
      Array([[1., 0.],
             [0., 1.]], dtype=float32)
  """
  _check_bindable("hessenberg", a)
  a = jnp.asarray(a)
  n = a.shape[-1]
  if n == 0:
    return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
  packed, taus = lax_linalg.hessenberg(a)
  h = jnp.triu(packed, -1)
  if not calc_q:
    return h
  q = jnp.zeros_like(packed).at[..., 0, 0].set(1)
  if n > 1:  # Q = diag(1, householder product of the reflectors below the subdiagonal)
    q = q.at[..., 1:, 1:].set(lax_linalg.householder_product(packed[..., 1:, :-1], taus))
  return h, q


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
  """The product of the Q of ``a``'s QR decomposition with ``c``, and R: ``(c @ q, r)`` for
  ``mode='right'`` (c: [..., p, m], result [..., p, k]) or ``(q @ c, r)`` for ``'left'``
  (c: [..., k, p], result [..., m, p]), k = min(m, n); ``conjugate`` uses conj(q), and
  ``pivoting`` appends the column permutation. Q is never formed (LAPACK's ormqr); a vector
  ``c`` is a row (right) or a column (left), and the result is raveled. Not differentiable,
  as in JAX.

  Raises:
      ValueError: for another ``mode``, or shapes that do not multiply.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> a = jnp.array([[3., 1.], [4., 2.]])
      >>> qc, r = linalg.qr_multiply(a, jnp.array([3., 4.]))  # (a[:, 0] @ q) is r[0, 0]
      >>> qc
      Array([-5.,  0.], dtype=float32)
  """
  a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
  if mode not in ("right", "left"):
    raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
  vector = c.ndim == 1
  if vector:
    c = c[:, None] if mode == "left" else c[None, :]
  m, n = a.shape[-2:]
  k = min(m, n)
  if mode == "left" and c.shape[-2] != k:
    raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                     f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
                     f"(expected {k}).")
  if mode == "right" and c.shape[-1] != m:
    raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                     f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
                     f"(expected {m}).")
  batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  c = jnp.broadcast_to(c, batch + c.shape[-2:])
  if pivoting:
    h, perm, taus = lax_linalg.geqp3(a, jnp.zeros(batch + (n,), jnp.int32))
    perm = perm - 1
  else:
    h, taus = lax_linalg.geqrf(a)
  if mode == "left" and m > n:  # Q @ c takes the first k columns of the m x m Q
    c = jnp.concatenate([c, jnp.zeros(batch + (m - k, c.shape[-1]), c.dtype)], axis=-2)
  if conjugate:  # conj(Q) c = (c^T Q^H)^T and c conj(Q) = (Q^H c^T)^T
    c = jnp.swapaxes(c, -1, -2)
  out = lax_linalg.ormqr(h, taus, c, left=(mode == "left") != conjugate, transpose=conjugate)
  if conjugate:
    out = jnp.swapaxes(out, -1, -2)
  if mode == "right":
    out = out[..., :k]
  if vector:
    out = out.ravel()
  r = jnp.triu(h[..., :k, :])
  return (out, r, perm) if pivoting else (out, r)


def _polar_2d(a, side: str, method: str, eps):
  m, n = a.shape
  if method == "qdwh":
    if not (m >= n and side == "right") and not (m < n and side == "left"):
      raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where "
                                "side='right' and m >= n side='left', got "
                                f"{a.shape} with {side=}")
    if eps is not None:  # JAX 0.10.2 passes eps on to qdwh as a traced value, which fails
      raise ValueError("Non-hashable static arguments are not supported: polar(..., "
                       "method='qdwh') passes eps on to qdwh as a traced value (as JAX 0.10.2 "
                       "does), which qdwh cannot take. Leave eps=None.")
    if side == "right":
      u, p, _, _ = lax_linalg.qdwh(a)
      return u, p
    u, p, _, _ = lax_linalg.qdwh(a.conj().T)
    return u.conj().T, p.conj().T
  if method == "svd":
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    if side == "right":
      return u @ vh, (vh.conj().T * s[None, :]) @ vh
    return u @ vh, (u * s[None, :]) @ u.conj().T
  raise ValueError(f"Unknown polar decomposition method {method}.")


def polar(a, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None):
  """The polar decomposition ``(u, p)``: a = u p (``side='right'``, p n x n) or a = p u
  (``'left'``, p m x m), ``u`` with orthonormal columns (rows if n > m), ``p`` Hermitian
  positive semidefinite. ``method='qdwh'`` (the QR-based dynamically weighted Halley
  iteration; right side needs m >= n, left side m < n) or ``'svd'`` (u = u_svd vh_svd).

  As in JAX 0.10.2, ``max_iterations`` is ignored and a non-None ``eps`` makes ``'qdwh'``
  fail; ``'qdwh'`` is differentiable in forward mode only (a while loop), ``'svd'`` in both.

  Raises:
      ValueError: for a 1-D ``a``, another ``side`` or ``method``.
      NotImplementedError: for ``'qdwh'`` on shapes it does not support.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> u, p = linalg.polar(jnp.array([[0., 2.], [3., 0.]]))
      >>> jnp.abs(jnp.round(u, 4)), jnp.round(p, 4)
      (Array([[0., 1.],
             [1., 0.]], dtype=float32), Array([[3., 0.],
             [0., 2.]], dtype=float32))
  """
  arr = jnp.asarray(a)
  if arr.ndim < 2:
    raise ValueError("The input `a` must be at least a 2-D array.")
  if side not in ("right", "left"):
    raise ValueError("The argument `side` must be either 'right' or 'left'.")
  sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
  fn = lambda x: _polar_2d(x, side, method, eps)
  return jnp.vectorize(fn, signature=sig)(arr)


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
  """How many eigenvalues of the symmetric tridiagonal matrix (diagonal ``alpha``, squared
  off-diagonal ``beta_sq``) are below each ``x``: the negative pivots of the LDL^T of T - x I
  (the Sturm sequence), with pivots kept away from zero by ``pivmin``."""
  q = alpha[0] - x
  count = (q < 0).astype(jnp.int32)
  q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

  def step(i, qc):
    q, count = qc
    q = alpha[i] - beta_sq[i - 1] / q - x
    small = q <= pivmin
    return jnp.where(small, jnp.minimum(q, -pivmin), q), count + small.astype(jnp.int32)
  return lax.fori_loop(1, alpha.shape[0], step, (q, count))[1]


def _inverse_iteration(alpha, beta, eigvals, key):
  """Eigenvectors (as rows) of the tridiagonal matrix for ``eigvals`` (ascending): inverse
  iteration from random vectors, with the vectors of clustered eigenvalues orthonormalized
  after each step (LAPACK's stein: at most 5 steps, until no norm grows by 10%)."""
  from ember import random
  n, k = alpha.shape[0], eigvals.shape[0]
  dt = jnp.result_type(alpha, beta)
  dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
  eps = dtypes.finfo(eigvals.dtype).eps
  t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
  close = eigvals[1:] - eigvals[:-1] < np.sqrt(eps) * t_norm
  left_close, right_close = jnp.pad(close, (1, 0)), jnp.pad(close, (0, 1))
  max_clusters = k // 2 + 1
  starts = jnp.nonzero(~left_close & right_close, size=max_clusters)[0]
  ends = jnp.nonzero(left_close & ~right_close, size=max_clusters)[0] + 1
  num_clusters = jnp.sum(~left_close & right_close)
  rows = jnp.arange(k)
  v = random.normal(key, (k, n), dtype=dtypes.finfo(dt).dtype).astype(dt)
  v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(dt)

  def orthonormalize(i, v):  # the QR of cluster i's vectors (moved to the top of a block)
    start, size = starts[i], ends[i] - starts[i]
    block = lax.dynamic_slice(jnp.pad(v, ((0, k), (0, 0))), (start, 0), (k, n))
    mask = (rows < size).astype(v.dtype)[:, None]
    q = jnp.linalg.qr((block * mask).T)[0].T * mask
    placed = lax.dynamic_update_slice(jnp.zeros((2 * k, n), v.dtype), q, (start, 0))[:k]
    return jnp.where(((rows >= start) & (rows < ends[i]))[:, None], placed, v)

  shifted = (alpha[None, :] - eigvals[:, None]).astype(dt)
  dl, du = jnp.broadcast_to(dl, (k, n)).astype(dt), jnp.broadcast_to(du, (k, n)).astype(dt)

  def step(state):
    i, v, norms, _ = state
    v_new = lax_linalg.tridiagonal_solve(dl, shifted, du, v[:, :, None].astype(dt),
                                         perturb_singular=True)[..., 0]
    new_norms = jnp.linalg.norm(v_new, axis=-1, keepdims=True)
    v_new = v_new / new_norms.astype(v_new.dtype)
    v_new = lax.fori_loop(0, num_clusters, orthonormalize, v_new)
    return i + 1, v_new, new_norms[:, 0], norms

  def growing(state):
    i, _, norms, old_norms = state
    return (i < 5) & jnp.any(norms >= 1.1 * old_norms)
  init = (0, v, jnp.ones(k, eigvals.dtype), jnp.zeros(k, eigvals.dtype))
  return lax.while_loop(growing, step, init)[1]


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key=None):
  """The eigenvalues (ascending) of the real symmetric (or complex Hermitian) tridiagonal
  matrix with diagonal ``d`` and off-diagonal ``e``, by bisection on Sturm sequences, and its
  eigenvectors (columns) by inverse iteration from random vectors drawn with ``key``
  (default ``random.key(42)``), unless ``eigvals_only``. ``select='i'`` computes those of
  indices ``select_range[0]`` to ``select_range[1]`` (inclusive); ``tol`` is an absolute
  tolerance for the bisection. Differentiable in forward mode only (a while loop).

  Raises:
      TypeError: for non-float or mismatched dtypes.
      ValueError: for a bad ``select``/``select_range``.
      NotImplementedError: for ``select='v'``, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> w = linalg.eigh_tridiagonal(jnp.array([2., 2.]), jnp.array([1.]), eigvals_only=True)
      >>> jnp.round(w, 4)
      Array([1., 3.], dtype=float32)
  """
  if not eigvals_only and key is None:
    from ember import random
    key = random.key(42)
  alpha, beta = jnp.asarray(d), jnp.asarray(e)
  if alpha.dtype != beta.dtype:
    raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                    f"{alpha.dtype} and {beta.dtype}")
  if alpha.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
    raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                    f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
  n = alpha.shape[0]
  if n <= 1:
    return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
  if jnp.iscomplexobj(alpha):
    alpha, beta_sq = jnp.real(alpha), jnp.real(beta * jnp.conj(beta))
    beta_abs = jnp.sqrt(beta_sq)
  else:
    beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
  if select == "a":
    targets = jnp.arange(n, dtype=jnp.int32)
  elif select == "i":
    if select_range is None:
      raise ValueError("for select='i', select_range must be specified.")
    if select_range[0] > select_range[1]:
      raise ValueError("Got empty index range in select_range.")
    targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=jnp.int32)
  elif select == "v":
    raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
  else:
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
  mid = _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol)
  if eigvals_only:
    return mid
  return mid, _inverse_iteration(alpha, beta, mid, key).T


def _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol):
  """The eigenvalues of indices ``targets`` of the tridiagonal matrix, by bisection for all
  at once from a slightly widened Gershgorin interval, until the widest bracket is within
  eps * |T| (or ``tol``), or mantissa-bits + 1 steps (LAPACK's stebz strategy)."""
  radii = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
  est_max, est_min = jnp.max(alpha + radii), jnp.min(alpha - radii)
  t_norm = jnp.maximum(jnp.abs(est_min), jnp.abs(est_max))  # a bound on the 2-norm
  info = np.finfo(alpha.dtype)
  one = np.ones((), alpha.dtype)
  safemin = np.maximum(one / info.max, (one + info.eps) * info.tiny)
  pivmin = safemin * jnp.maximum(1, jnp.max(beta_sq))
  alpha0_perturbation = jnp.square(info.eps * beta_abs[0])
  abs_tol = info.eps * t_norm if tol is None else jnp.maximum(tol, info.eps * t_norm)
  fudge = 2.1
  slack = jnp.array(alpha.shape[0], alpha.dtype) * fudge * info.eps * t_norm
  shape = targets.shape
  lower = jnp.broadcast_to(est_min - slack - 2 * fudge * pivmin, shape)
  upper = jnp.broadcast_to(est_max + slack + fudge * pivmin, shape)
  pivmin = jnp.broadcast_to(pivmin, shape)
  alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

  def bisect(state):
    i, lower, mid, upper = state
    below = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid) <= targets
    lower, upper = jnp.where(below, mid, lower), jnp.where(below, upper, mid)
    return i + 1, lower, 0.5 * (lower + upper), upper

  def wide(state):
    i, lower, _, upper = state
    return (i < info.nmant + 1) & (abs_tol < jnp.max(upper - lower))
  return lax.while_loop(wide, bisect, (0, lower, 0.5 * (upper + lower), upper))[2]


# --- matrix functions -------------------------------------------------------------------------

def _pade_coefficients(m: int) -> list[float]:
  """b_0..b_m of the degree-m Pade approximant of exp, scaled so that b_m = 1:
  b_k = (2m - k)! / (k! (m - k)!)."""
  f = math.factorial
  return [float(f(2 * m - k) // (f(k) * f(m - k))) for k in range(m + 1)]


def _precise_dot(a, b):
  return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _pade(a, m: int):
  """``(u, v)``: the odd and even parts of the degree-m Pade numerator sum b_k a^k (the
  approximant is (v - u)^-1 (v + u)), evaluated from a^2, a^4, a^6 (and a^8), degree 13 in
  Higham's nested form."""
  b = _pade_coefficients(m)
  eye = jnp.eye(a.shape[-1], dtype=a.dtype)
  powers = [eye, _precise_dot(a, a)]  # a^0, a^2, a^4, ...
  for _ in range(min(m // 2, 3) - 1):
    powers.append(_precise_dot(powers[-1], powers[1]))
  if m == 13:
    a2, a4, a6 = powers[1:]
    u = _precise_dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
    u = _precise_dot(a, u + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = _precise_dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
    return u, v + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
  if m == 9:
    powers.append(_precise_dot(powers[-1], powers[1]))
  odd = [b[k] * powers[k // 2] for k in range(m, 0, -2)]
  even = [b[k] * powers[k // 2] for k in range(m - 1, -1, -2)]
  return _precise_dot(a, functools.reduce(operator.add, odd)), functools.reduce(operator.add,
                                                                                even)


# (degree, largest 1-norm for it) of the approximants tried by dtype, and the 1-norm above
# which the matrix is scaled by powers of 2 (Higham, SIAM J. Matrix Anal. Appl. 26(4), 2005)
_EXPM_PADE = {
    np.float64: ([3, 5, 7, 9, 13], [1.495585217958292e-2, 2.539398330063230e-1,
                                    9.504178996162932e-1, 2.097847961257068], 5.371920351148152),
    np.float32: ([3, 5, 7], [4.258730016922831e-1, 1.880152677804762], 3.925724783138660),
}


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
  """Scaling and squaring: a is scaled by 2^-s (s = max(0, floor(log2(|a|_1 / theta))))
  and a Pade approximant chosen by |a|_1; the result is squared s times, or NaN when s
  exceeds ``max_squarings``."""
  real = np.dtype(dtypes.finfo(a.dtype).dtype)
  degrees, bounds, theta = _EXPM_PADE[np.float64 if real == np.float64 else np.float32]
  norm = jnp.linalg.norm(a, 1)
  squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / theta)))
  scaled = a / 2 ** squarings.astype(a.dtype)
  which = jnp.digitize(norm, jnp.array(bounds, dtype=norm.dtype))
  u, v = lax.switch(which, [functools.partial(_pade, m=m) for m in degrees], scaled)
  p, q = u + v, v - u

  def compute(p, q):
    r = solve_triangular(q, p) if upper_triangular else jnp.linalg.solve(q, p)
    square = lambda r, i: (lax.cond(i < squarings, lambda r: _precise_dot(r, r),
                                    lambda r: r, r), None)
    return lax.scan(square, r, jnp.arange(max_squarings, dtype=squarings.dtype))[0]
  return lax.cond(squarings > max_squarings, lambda p, q: jnp.full_like(p, np.nan), compute,
                  p, q)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """The matrix exponential of a (batch of) square matrices, by scaling and squaring with a
  Pade approximant (degree 3 to 7 for 32-bit, 3 to 13 for 64-bit dtypes, chosen by the
  1-norm, as JAX's). ``upper_triangular`` solves the approximant's system as triangular.
  Matrices that need more than ``max_squarings`` squarings give NaNs, as in JAX.
  Differentiable in both modes.

  Raises:
      ValueError: unless ``A`` is a (batch of) square matrices.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.expm(jnp.array([[0., 1.], [0., 0.]]))
      Array([[1., 1.],
             [0., 1.]], dtype=float32)
  """
  A, = promote_dtypes_inexact(jnp.asarray(A))
  if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
    raise ValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")
  fn = functools.partial(_expm_2d, upper_triangular=upper_triangular,
                         max_squarings=operator.index(max_squarings))
  return jnp.vectorize(fn, signature="(n,n)->(n,n)")(A)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
  """The Frechet derivative of the matrix exponential at ``A`` in the direction ``E`` (the
  jvp of ``expm``), with ``expm(A)`` first when ``compute_expm``. ``method`` is ignored, as
  in JAX.

  Raises:
      ValueError: unless ``A`` and ``E`` are (batches of) square matrices of one shape.
      TypeError: for integer input (as ``jvp``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.expm_frechet(jnp.zeros((2, 2)), jnp.array([[0., 1.], [0., 0.]]),
      ...                     compute_expm=False)
      Array([[0., 1.],
             [0., 0.]], dtype=float32)
  """
  import ember
  A, E = jnp.asarray(A), jnp.asarray(E)
  if A.ndim < 2 or A.shape[-2] != A.shape[1]:
    raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
  if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
    raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
  if A.shape != E.shape:
    raise ValueError("expected A and E to be the same shape, got "
                     f"A.shape={A.shape} E.shape={E.shape}")
  expm_a, frechet = ember.jvp(functools.partial(expm, max_squarings=16), (A,), (E,))
  return (expm_a, frechet) if compute_expm else frechet


def _in_order(pairs):
  """Two int32 index arrays from a static list of (i, j) pairs."""
  i, j = zip(*pairs) if pairs else ((), ())
  return jnp.array(i, jnp.int32), jnp.array(j, jnp.int32)


def _sqrtm_triu(t):
  """The upper-triangular square root U of an upper-triangular ``t`` (U U = t), column by
  column upwards: U[i, j] = (t[i, j] - sum_{i<k<j} U[i, k] U[k, j]) / (U[i, i] + U[j, j]),
  and 0 where that sum equals t[i, j] (Bjorck and Hammarling, 1983)."""
  n = t.shape[0]
  root = jnp.sqrt(jnp.diag(t))
  idx = jnp.arange(n)

  def entry(u, ij):
    i, j = ij
    between = (idx > i) & (idx < j)
    s = jnp.sum(jnp.where(between, u[i, :] * u[:, j], 0))
    value = jnp.where(t[i, j] == s, 0, (t[i, j] - s) / (root[i] + root[j]))
    return u.at[i, j].set(value), None
  order = _in_order([(i, j) for j in range(n) for i in range(j - 1, -1, -1)])
  return lax.scan(entry, jnp.diag(root), order)[0]


def sqrtm(A, blocksize: int = 1):
  """The principal square root of a square matrix (complex): a complex Schur form is rooted
  upper-triangularly (Bjorck and Hammarling's method, unblocked). CPU only (``schur``), and
  not differentiable, as in JAX.

  Raises:
      NotImplementedError: for ``blocksize`` above 1, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.sqrtm(jnp.array([[4., 0.], [0., 9.]]))
      Array([[2.+0.j, 0.+0.j],
             [0.+0.j, 3.+0.j]], dtype=complex64)
  """
  if blocksize > 1:
    raise NotImplementedError("Blocked version is not implemented yet.")
  _check_bindable("schur", A)
  t, z = schur(A, output="complex")
  if t.ndim != 2:
    raise ValueError("diag input must be 1d or 2d")  # JAX's error, from its jnp.diag
  root = _sqrtm_triu(t)
  return _precise_dot(_precise_dot(z, root), jnp.conj(z.T))


def _parlett(f, t):
  """Algorithm 11.1.1 of Golub and Van Loan's Matrix Computations: the strict upper triangle
  of F = f(T) for upper-triangular ``t``, given F's diagonal in ``f``, superdiagonal by
  superdiagonal; with the smallest |T[j, j] - T[i, i]| met (the error estimate's
  denominator), starting from |T[0, 0]|."""
  n = t.shape[0]
  idx = jnp.arange(n)

  def entry(carry, ij):
    f, minden = carry
    i, j = ij
    between = (idx > i) & (idx < j)
    s = t[i, j] * (f[j, j] - f[i, i])
    s = s + (jnp.where(between, t[i], 0) @ jnp.where(between, f[:, j], 0) -
             jnp.where(between, f[i], 0) @ jnp.where(between, t[:, j], 0))
    den = t[j, j] - t[i, i]
    s = jnp.where(den != 0, s / den, s)
    return (f.at[i, j].set(s), jnp.minimum(minden, jnp.abs(den))), None
  order = _in_order([(i, i + p) for p in range(1, n) for i in range(n - p)])
  return lax.scan(entry, (f, jnp.abs(t[0, 0])), order)[0]


def funm(A, func, disp: bool = True):
  """The matrix function F = func(A) for ``func`` of a scalar (written with array
  operations), by the Schur-Parlett method: on the complex Schur form T = Z^H A Z, F's
  diagonal is func(diag(T)) and the rest follows from F T = T F. The result is complex, as
  in JAX; with ``disp=False`` an error estimate comes second. CPU only (``schur``).

  Raises:
      ValueError: unless ``A`` is one square matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.funm(jnp.array([[1., 0.], [0., 2.]]), jnp.square)
      Array([[1.+0.j, 0.+0.j],
             [0.+0.j, 4.+0.j]], dtype=complex64)
  """
  A = jnp.asarray(A)
  if A.ndim != 2 or A.shape[0] != A.shape[1]:
    raise ValueError("expected square array_like input")
  t, z = rsf2csf(*schur(A))
  f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
  f, minden = _parlett(f, t)
  f = z @ f @ z.conj().T
  if disp:
    return f
  tol = dtypes.finfo(f.dtype).eps
  minden = jnp.where(minden == 0.0, tol, minden)
  err = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
      tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))))
  return f, err


def _triangular_sylvester(r, s, f):
  """Y with R Y + Y S = F for upper-triangular R and lower-triangular S, element by element
  from the bottom-right corner (each Y[i, j] needs those below it and right of it)."""
  m, n = f.shape
  rows, cols = jnp.arange(m), jnp.arange(n)

  def entry(y, ij):
    i, j = ij
    known = jnp.sum(jnp.where(rows > i, r[i, :] * y[:, j], 0)) + \
        jnp.sum(jnp.where(cols > j, y[i, :] * s[:, j], 0))
    return y.at[i, j].set((f[i, j] - known) / (r[i, i] + s[j, j])), None
  order = _in_order([divmod(k, n) for k in range(m * n - 1, -1, -1)])
  return lax.scan(entry, jnp.zeros((m, n), f.dtype), order)[0]


def _solve_sylvester_2d(a, b, c, *, method: str, tol):
  m, n = c.shape
  if method == "schur":  # Bartels-Stewart on complex Schur forms of A and B^H
    r, u = schur(a, output="complex")
    s, v = schur(b.conj().T, output="complex")
    y = _triangular_sylvester(r, s.conj().T, u.conj().T @ c.astype(r.dtype) @ v)
    x = u @ y @ v.conj().T
  elif method == "eigen":
    wa, ua = jnp.linalg.eig(a)
    wb, ub = jnp.linalg.eig(b)
    y = solve(ua, c.astype(wa.dtype) @ ub) / (wa[:, None] + wb[None, :])
    x = ua[:m, :m] @ y[:m, :n] @ inv(ub)[:n, :n]
  else:
    raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                     "\"schur\" or \"eigen\".")
  if not jnp.iscomplexobj(c):
    x = x.real
  near_singular = jnp.any(jnp.abs(jnp.linalg.eigvals(a)[:, None] +
                                  jnp.linalg.eigvals(b)[None, :]) < tol)
  return lax.cond(near_singular, lambda: jnp.zeros_like(x) * np.nan, lambda: x)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
  """X solving the Sylvester equation A X + X B = C (A m x m, B n x n, C m x n, batch
  dimensions broadcast): by Bartels-Stewart on complex Schur forms (``method='schur'``, CPU
  only) or by eigendecompositions (``'eigen'``, for diagonalizable A and B). NaNs when some
  eigenvalue sum of A and B is within ``tol`` of 0. Differentiable (``'eigen'``) as JAX's.

  Raises:
      ValueError: for mismatched shapes or another ``method``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.solve_sylvester(jnp.eye(2), 2 * jnp.eye(2), jnp.array([[3., 6.], [9., 12.]]))
      Array([[1., 2.],
             [3., 4.]], dtype=float32)
  """
  A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
  m, n = C.shape[-2:]
  if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
    raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                     f"B: {B.shape}\nC: {C.shape}")
  fn = functools.partial(_solve_sylvester_2d, method=method, tol=tol)
  return jnp.vectorize(fn, signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


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


def _toeplitz_1d(c, r):
  """Rows i and columns j of c[i - j] (i >= j) and r[j - i] (i < j)."""
  m, n = c.shape[0], r.shape[0]
  if m == 0 or n == 0:
    return jnp.zeros((m, n), jnp.promote_types(c.dtype, r.dtype))
  values = jnp.concatenate([jnp.flip(r[1:]), c])
  diagonal = (n - 1) + jnp.arange(m)[:, None] - jnp.arange(n)
  return values[diagonal].astype(values.dtype)


def toeplitz(c, r=None):
  """The Toeplitz matrix with first column ``c`` and first row ``r`` (``conj(c)`` when
  omitted; ``r[0]`` is ignored). Leading dimensions of ``c`` and ``r`` are batch dimensions,
  broadcast together: a (2, 3) ``c`` gives (2, 3, 3).

  Raises:
      TypeError: for a non-array argument (a list).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.toeplitz(jnp.array([1, 2, 3]), jnp.array([0, 8, 9]))
      Array([[1, 8, 9],
             [2, 1, 8],
             [3, 2, 1]], dtype=int32)
  """
  if r is None:
    check_arraylike("toeplitz", c)
    r = jnp.conjugate(jnp.asarray(c))
  else:
    check_arraylike("toeplitz", c, r)
  c, r = jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r))
  return jnp.vectorize(_toeplitz_1d, signature="(m),(n)->(m,n)")(c, r)


def _hankel_1d(c, r):
  values = jnp.concatenate([c, r[1:]])
  anti_diagonal = jnp.arange(c.shape[0])[:, None] + jnp.arange(r.shape[0])
  return values[anti_diagonal].astype(jnp.result_type(c, r))


def hankel(c, r=None):
  """The Hankel matrix with first column ``c`` and last row ``r`` (zeros below the
  anti-diagonal when omitted; ``r[0]`` is ignored). Leading dimensions are batch dimensions,
  broadcast together.

  Raises:
      TypeError: for a non-array argument; ValueError: for a scalar.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.hankel(jnp.array([1, 2, 3]), jnp.array([3, 4, 5]))
      Array([[1, 2, 3],
             [2, 3, 4],
             [3, 4, 5]], dtype=int32)
  """
  if r is None:
    check_arraylike("hankel", c)
    c = jnp.asarray(c)
    r = jnp.zeros_like(c)
  else:
    check_arraylike("hankel", c, r)
    c, r = jnp.asarray(c), jnp.asarray(r)
  for name, x in (("c", c), ("r", r)):
    if x.ndim == 0:
      raise ValueError(f"hankel: {name} must be at least 1-dimensional, got a scalar.")
  return jnp.vectorize(_hankel_1d, signature="(m),(n)->(m,n)")(c, r)


def circulant(c):
  """The circulant matrix whose first column is ``c`` (each column the previous rolled down);
  leading dimensions of ``c`` are batch dimensions.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.circulant(jnp.array([1, 2, 3]))
      Array([[1, 3, 2],
             [2, 1, 3],
             [3, 2, 1]], dtype=int32)
  """
  check_arraylike("circulant", c)
  c = jnp.atleast_1d(jnp.asarray(c))
  n = c.shape[-1]
  return c[..., (jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


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


def _comb(n, k):
  """Binomial coefficients through the log-gamma function, 0 outside 0 <= k <= n (as
  ``jax.scipy.special.comb``)."""
  n, k = promote_args_inexact("comb", n, k)
  ok = (k <= n) & (n >= 0) & (k >= 0)
  n, k = jnp.where(ok, n, 0.0), jnp.where(ok, k, 0.0)
  value = lax.exp(lax.lgamma(n + 1) - lax.lgamma(k + 1) - lax.lgamma(n + 1 - k))
  return jnp.where(ok, value, 0.0)


def _binom(n, k):
  """C(n, k) as exp(lgamma(n + 1) - lgamma(n - k + 1) - lgamma(k + 1)): 0 for k > n, where
  lgamma has a pole (JAX's pascal matrices)."""
  return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def invhilbert(n: int):
  """The inverse of the n x n Hilbert matrix, from its closed form in binomial coefficients
  (computed in floating point through the log-gamma function, so inexact, as JAX's).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> jnp.round(linalg.invhilbert(2))
      Array([[ 4., -6.],
             [-6., 12.]], dtype=float32)
  """
  a = jnp.arange(n, dtype=dtypes.canonicalize_dtype(np.float64))
  i, j = a[:, None], a[None, :]
  s = i + j
  return ((-1.0) ** s * (s + 1.0) * _comb(n + i, n - j - 1) * _comb(n + j, n - i - 1) *
          _comb(s, i) ** 2)


_PASCAL_KINDS = ["symmetric", "lower", "upper"]


def pascal(n: int, kind: str | None = None):
  """The n x n Pascal matrix of binomial coefficients: ``kind`` 'lower' (C(i, j)), 'upper'
  (its transpose) or 'symmetric' (the default: their product, C(i + j, i)). The entries come
  from the log-gamma function, so are approximate, and always float32, as JAX's.

  Raises:
      ValueError: for another ``kind``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> jnp.round(linalg.pascal(3))
      Array([[1., 1., 1.],
             [1., 2., 3.],
             [1., 3., 6.]], dtype=float32)
  """
  kind = "symmetric" if kind is None else kind
  if kind not in _PASCAL_KINDS:
    raise ValueError(f"Expected kind to be on of: {_PASCAL_KINDS}; got {kind}")
  a = jnp.arange(n, dtype=np.float32)
  low = _binom(a[:, None], a[None, :])
  if kind == "lower":
    return low
  return low.T if kind == "upper" else jnp.dot(low, low.T)


def invpascal(n: int, kind: str | None = None):
  """The inverse of ``pascal(n, kind)``: (-1)^(i - j) C(i, j) for 'lower', its transpose for
  'upper' and the product of those (upper times lower) for 'symmetric'; computed in floating
  point through the log-gamma function, as JAX's.

  Raises:
      ValueError: for another ``kind``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> jnp.round(linalg.invpascal(3, kind="lower")) + 0.
      Array([[ 1.,  0.,  0.],
             [-1.,  1.,  0.],
             [ 1., -2.,  1.]], dtype=float32)
  """
  kind = "symmetric" if kind is None else kind
  if kind not in _PASCAL_KINDS:
    raise ValueError(f"Expected kind to be one of: {_PASCAL_KINDS}; got {kind}")
  a = jnp.arange(n, dtype=dtypes.canonicalize_dtype(np.float64))
  i, j = a[:, None], a[None, :]
  low = (-1.0) ** (i - j) * _binom(i, j)
  if kind == "lower":
    return low
  return low.T if kind == "upper" else jnp.dot(low.T, low)


def companion(a):
  """The companion matrix of the polynomial with coefficients ``a`` (highest degree first):
  first row -a[1:] / a[0], ones on the first subdiagonal; leading dimensions of ``a`` are
  batch dimensions. A zero ``a[..., 0]`` gives infs or NaNs (not checked, as in JAX).

  Raises:
      ValueError: for fewer than two coefficients.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.companion(jnp.array([1., -3., 2.]))
      Array([[ 3., -2.],
             [ 1.,  0.]], dtype=float32)
  """
  a, = promote_args_inexact("companion", a)
  a = jnp.atleast_1d(a)
  if a.shape[-1] < 2:
    raise ValueError("The length of `a` along the last axis must be at least 2; got shape "
                     f"{a.shape}.")
  first_row = -a[..., 1:] / a[..., :1]
  m = a.shape[-1] - 1
  rows = jnp.arange(m)[:, None]
  sub = jnp.eye(m, k=-1, dtype=first_row.dtype)
  return jnp.where(rows == 0, first_row[..., None, :], sub)


def fiedler(a):
  """The symmetric Fiedler matrix |a[i] - a[j]| (leading dimensions of ``a`` are batch
  dimensions; the dtype is ``abs``'s of ``a``'s).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.fiedler(jnp.array([1, 4, 12]))
      Array([[ 0,  3, 11],
             [ 3,  0,  8],
             [11,  8,  0]], dtype=int32)
  """
  check_arraylike("fiedler", a)
  a = jnp.atleast_1d(a)
  return jnp.abs(a[..., None] - a[..., None, :])


def fiedler_companion(a):
  """The Fiedler companion matrix of the polynomial with coefficients ``a`` (highest degree
  first): a pentadiagonal (n - 1) x (n - 1) matrix with the polynomial's roots as
  eigenvalues. Leading dimensions are batch dimensions; one coefficient gives a 0 x 0
  matrix.

  Raises:
      ValueError: for no coefficients.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.fiedler_companion(jnp.array([1., -6., 11., -6.]))
      Array([[  6., -11.,   1.],
             [  1.,   0.,   0.],
             [  0.,   6.,   0.]], dtype=float32)
  """
  a, = promote_args_inexact("fiedler_companion", a)
  a = jnp.atleast_1d(a)
  if a.shape[-1] == 0:
    raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero length, "
                     f"but got an array of shape {a.shape}.")
  n = a.shape[-1] - 1
  if n == 0:
    return jnp.empty_like(a, shape=a.shape[:-1] + (0, 0))
  a = a / a[..., :1]
  if n == 1:
    return -a[..., 1:, None]
  i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
  even = i % 2 == 0
  conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even,
                (j == i + 2) & even, (j == i - 1) & even & (i >= 2),
                (j == i - 2) & ~even & (i >= 3)]
  one = jnp.ones((), a.dtype)
  choices = [-a[..., 1, None, None], one, -a[..., jnp.minimum(i + 2, n)], one,
             -a[..., jnp.minimum(i + 1, n)], one]
  return jnp.select(conditions, choices, default=jnp.zeros((), a.dtype))


def leslie(f, s):
  """The Leslie matrix of fecundities ``f`` (its first row) and survival rates ``s`` (its
  first subdiagonal); leading dimensions are batch dimensions, broadcast together.

  Raises:
      ValueError: unless ``f`` has n >= 2 entries and ``s`` n - 1.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.leslie(jnp.array([0.5, 2., 1.]), jnp.array([0.25, 0.75]))
      Array([[0.5 , 2.  , 1.  ],
             [0.25, 0.  , 0.  ],
             [0.  , 0.75, 0.  ]], dtype=float32)
  """
  check_arraylike("leslie", f, s)
  f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
  if f.shape[-1] < 2:
    raise ValueError(f"The length of f along the last axis must be at least 2; got shape "
                     f"{f.shape}.")
  if s.shape[-1] != f.shape[-1] - 1:
    raise ValueError("Incorrect lengths for f and s. The length of s along the last axis must "
                     f"be one less than the length of f; got f shape {f.shape} and s shape "
                     f"{s.shape}.")
  f, s = promote_dtypes(f, s)
  n = f.shape[-1]
  i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
  sub = jnp.where(i == j + 1, jnp.pad(s, [(0, 0)] * (s.ndim - 1) + [(0, 1)])[..., None, :],
                  jnp.zeros((), s.dtype))
  return jnp.where(i == 0, f[..., None, :], sub)


def convolution_matrix(a, n: int, mode: str = "full"):
  """The Toeplitz matrix A with ``n`` columns for which ``A @ v`` is
  ``jnp.convolve(a, v, mode)``: m + n - 1 rows for 'full', max(m, n) for 'same' and
  max(m, n) - min(m, n) + 1 for 'valid' (m = ``a.shape[-1]``; leading dimensions of ``a``
  are batch dimensions).

  Raises:
      ValueError: for n < 1, a scalar or empty ``a``, or another ``mode``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.convolution_matrix(jnp.array([1, 2]), 3)
      Array([[1, 0, 0],
             [2, 1, 0],
             [0, 2, 1],
             [0, 0, 2]], dtype=int32)
  """
  n = operator.index(n)
  if n <= 0:
    raise ValueError(f"n must be a positive integer; got {n}.")
  check_arraylike("convolution_matrix", a)
  a = jnp.asarray(a)
  if a.ndim == 0:
    raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
  m = a.shape[-1]
  if m < 1:
    raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
  if mode not in ("full", "valid", "same"):
    raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
  trim = {"full": (0, 0), "valid": (min(n, m) - 1,) * 2,
          "same": ((min(n, m) - 1) // 2, min(n, m) - 1 - (min(n, m) - 1) // 2)}[mode]
  pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
  column = jnp.pad(a, pad)  # a then zeros: the full first column
  row = jnp.pad(jnp.flip(a, axis=-1), pad)  # the full last row, reversed
  length = m + n - 1
  start, stop = trim
  return toeplitz(column[..., start:length - stop],
                  row[..., length - n - start:length - start])


def dft(n: int, scale: str | None = None, *, dtype=None):
  """The n x n discrete Fourier transform matrix, exp(-2 pi i j k / n), unscaled or scaled by
  1 / sqrt(n) (``scale='sqrtn'``, unitary) or 1 / n (``'n'``); in ``dtype`` (a complex dtype,
  the default complex one when omitted).

  Raises:
      ValueError: for another ``scale`` or a non-complex ``dtype``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> jnp.round(linalg.dft(2))
      Array([[ 1.+0.j,  1.+0.j],
             [ 1.+0.j, -1.+0.j]], dtype=complex64)
  """
  if scale is not None and scale not in ("sqrtn", "n"):
    raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
  if dtype is None:
    dtype = dtypes.canonicalize_dtype(np.complex128)
  else:
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "dft")
    if not dtypes.is_complex(dtype):
      raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
  k = jnp.arange(n, dtype=dtype)
  w = jnp.exp(-2j * np.pi * k[:, None] * k[None, :] / n)
  if scale == "sqrtn":
    return w / jnp.sqrt(n)
  return w / n if scale == "n" else w


def hadamard(n: int, dtype=int):
  """The n x n Hadamard matrix of Sylvester's construction (H_1 = [[1]], H_2m =
  [[H_m, H_m], [H_m, -H_m]]) for n a power of 2, in ``dtype``.

  Raises:
      ValueError: unless n is a positive power of 2.

  Example:
      >>> from ember.scipy import linalg
      >>> linalg.hadamard(2)
      Array([[ 1,  1],
             [ 1, -1]], dtype=int32)
  """
  if n < 1 or not math.log2(n).is_integer():
    raise ValueError(f"n must be a positive power of 2; got {n}.")
  h = jnp.ones((1, 1), dtype=dtype)
  for _ in range(int(math.log2(n))):
    h = jnp.concatenate([jnp.concatenate([h, h], axis=1), jnp.concatenate([h, -h], axis=1)])
  return h


def helmert(n: int, full: bool = False):
  """The Helmert matrix: its (n - 1) x n block of orthonormal contrasts, row k - 1 being
  (1, ..., 1, -k, 0, ..., 0) / sqrt(k (k + 1)) with k ones, and with ``full`` the row
  1 / sqrt(n) on top (n x n).

  Raises:
      ValueError: for n < 1.

  Example:
      >>> from ember.scipy import linalg
      >>> linalg.helmert(2, full=True)
      Array([[ 0.70710677,  0.70710677],
             [ 0.70710677, -0.70710677]], dtype=float32)
  """
  if n < 1:
    raise ValueError(f"n must be a positive integer; got {n}.")
  i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
  k = (i + 1).astype(dtypes.canonicalize_dtype(np.float64))
  denom = jnp.sqrt(k * (k + 1))
  h = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k / denom, jnp.zeros_like(denom)))
  if full:
    h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h])
  return h
