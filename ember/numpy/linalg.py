"""ember.numpy.linalg: NumPy's linear algebra (mirrors ``jax.numpy.linalg``).

Decompositions come from ``ember.lax.linalg`` (LAPACK on CPU); inputs are promoted to an
inexact dtype first, so integer matrices give float32 results (float64 with x64), as in JAX.
Derivatives follow JAX's rules: ``solve`` and ``inv`` differentiate through the solve rather
than the LU factors, ``det`` through the adjugate (well defined for singular matrices of rank
n - 1), ``slogdet`` and ``pinv`` through their closed forms.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.linalg.solve(jnp.array([[2., 0.], [0., 4.]]), jnp.array([2., 2.]))
    Array([1. , 0.5], dtype=float32)
"""
from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

import ember.numpy as jnp  # a partly initialized module: ember.numpy imports this one last
from ember import dtypes, lax
from ember.core.trace import get_aval
from ember.lax import linalg as lax_linalg
from ember.numpy._util import check_arraylike, promote_dtypes_inexact
from ember.numpy.creation import named_jit
from ember.transforms.custom import custom_jvp

__all__ = ["EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky",
           "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm"]


class EighResult(NamedTuple):
  """What ``eigh`` returns: the eigenvalues (ascending) and the eigenvectors (columns).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eigh(jnp.array([[2., 0.], [0., 3.]])).eigenvalues
      Array([2., 3.], dtype=float32)
  """
  eigenvalues: object
  eigenvectors: object


class EigResult(NamedTuple):
  """What ``eig`` returns: the (complex) eigenvalues and right eigenvectors (columns).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eig(jnp.array([[2., 0.], [0., 3.]])).eigenvalues
      Array([2.+0.j, 3.+0.j], dtype=complex64)
  """
  eigenvalues: object
  eigenvectors: object


class QRResult(NamedTuple):
  """What ``qr`` returns: the orthonormal ``Q`` and the upper-triangular ``R``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.qr(jnp.array([[2., 0.], [0., 3.]])).R
      Array([[2., 0.],
             [0., 3.]], dtype=float32)
  """
  Q: object
  R: object


class SlogdetResult(NamedTuple):
  """What ``slogdet`` returns: the sign of the determinant and the log of its absolute value.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.slogdet(jnp.array([[2., 0.], [0., -3.]]))
      SlogdetResult(sign=Array(-1., dtype=float32), logabsdet=Array(1.7917595, dtype=float32))
  """
  sign: object
  logabsdet: object


class SVDResult(NamedTuple):
  """What ``svd`` returns: ``U``, the singular values ``S`` (descending) and ``Vh``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.svd(jnp.array([[2., 0.], [0., 3.]])).S
      Array([3., 2.], dtype=float32)
  """
  U: object
  S: object
  Vh: object


def _inexact(name: str, *args):
  check_arraylike(name, *args)
  out = promote_dtypes_inexact(*[jnp.asarray(a) for a in args])
  return out if len(args) > 1 else out[0]


def _H(x):
  x = jnp.matrix_transpose(x)
  return lax.conj(x) if dtypes.is_complex(get_aval(x).dtype) else x


def _check_square(x, what: str) -> None:
  shape = get_aval(x).shape
  if len(shape) < 2 or shape[-1] != shape[-2]:
    raise ValueError(f"{what} must have shape [..., n, n], got {shape}")


# --- decompositions ---------------------------------------------------------------------------

def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
  """The Cholesky factor of the Hermitian positive-definite ``a``: lower L with a = L L^H
  (upper U = L^H with ``upper``); NaNs when ``a`` is not positive definite.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))
      Array([[2., 0.],
             [1., 2.]], dtype=float32)
  """
  a = _inexact("jnp.linalg.cholesky", a)
  return _cholesky_jit(a, upper=bool(upper), symmetrize_input=bool(symmetrize_input))


def _cholesky(a, upper, symmetrize_input):
  low = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return _H(low) if upper else low


_cholesky_jit = named_jit(_cholesky, "cholesky", static_argnames=("upper", "symmetrize_input"))


def qr(a, mode: str = "reduced"):
  """The QR decomposition: ``QRResult(Q, R)`` ("reduced": k = min(m, n) columns of Q;
  "complete": all m), only R ("r"), or the Householder form ``(h, tau)`` ("raw").

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.qr(jnp.array([[3., 0.], [4., 5.]]), mode="r")
      Array([[-5., -4.],
             [ 0.,  3.]], dtype=float32)
  """
  a = _inexact("jnp.linalg.qr", a)
  if mode not in ("reduced", "r", "full", "complete", "raw"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  out = _qr_jit(a, mode=mode)
  return out if mode == "r" else QRResult(*out)


def _qr(a, mode):
  if mode == "raw":
    h, taus = lax_linalg.geqrf(a)
    return jnp.matrix_transpose(h), taus
  q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
  return r if mode == "r" else (q, r)


_qr_jit = named_jit(_qr, "qr", static_argnames="mode")


def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
  """Eigenvalues (ascending) and eigenvectors of the Hermitian ``a``: ``EighResult``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eigh(jnp.array([[2., 1.], [1., 2.]])).eigenvalues
      Array([1., 3.], dtype=float32)
  """
  if UPLO not in (None, "L", "U"):
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
  a = _inexact("jnp.linalg.eigh", a)
  shape = get_aval(a).shape
  if len(shape) < 2 or shape[-1] != shape[-2]:  # (a TypeError, as JAX's symmetrization gives)
    raise TypeError(f"eigh: a must be a square matrix (or a batch of them) of shape [..., n, n], "
                    f"got shape {shape}.")
  return EighResult(*_eigh_jit(a, UPLO=UPLO, symmetrize_input=bool(symmetrize_input)))


def _eigh(a, UPLO, symmetrize_input):
  v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
  return w, v


_eigh_jit = named_jit(_eigh, "eigh", static_argnames=("UPLO", "symmetrize_input"))


def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
  """The eigenvalues (ascending) of the Hermitian ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eigvalsh(jnp.array([[2., 1.], [1., 2.]]))
      Array([1., 3.], dtype=float32)
  """
  return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a):
  """Eigenvalues and right eigenvectors of a general square matrix (complex): ``EigResult``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eig(jnp.array([[2., 0.], [0., 3.]])).eigenvalues
      Array([2.+0.j, 3.+0.j], dtype=complex64)
  """
  a = _inexact("jnp.linalg.eig", a)
  w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
  return EigResult(w, v)


def eigvals(a):
  """The (complex) eigenvalues of a general square matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.eigvals(jnp.array([[0., -1.], [1., 0.]]))
      Array([0.+1.j, 0.-1.j], dtype=complex64)
  """
  return _eigvals_jit(_inexact("jnp.linalg.eigvals", a))


_eigvals_jit = named_jit(lambda a: lax_linalg.eig(a, compute_left_eigenvectors=False,
                                                  compute_right_eigenvectors=False)[0],
                         "eigvals")


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
  """The singular value decomposition ``SVDResult(U, S, Vh)`` (a = U diag(S) Vh, S
  descending), or S alone without ``compute_uv``. ``hermitian`` computes it from ``eigh``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.svd(jnp.array([[3., 0.], [0., -4.]]), compute_uv=False)
      Array([4., 3.], dtype=float32)
  """
  a = _inexact("jnp.linalg.svd", a)
  subset = None if subset_by_index is None else tuple(subset_by_index)
  out = _svd_jit(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                 hermitian=bool(hermitian), subset_by_index=subset)
  return SVDResult(*out) if compute_uv else out


def _svd(a, full_matrices, compute_uv, hermitian, subset_by_index):
  if hermitian:
    return _hermitian_svd(a, compute_uv, subset_by_index)
  return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                        subset_by_index=subset_by_index)


_svd_jit = named_jit(_svd, "svd", static_argnames=("full_matrices", "compute_uv", "hermitian",
                                                   "subset_by_index"))


def _hermitian_svd(a, compute_uv: bool, subset_by_index):
  """From a = V diag(w) V^H: s = |w| sorted descending, U = V (reordered), Vh = (U sign(w))^H."""
  v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
  s = lax.abs(w)
  last = get_aval(s).ndim - 1
  if not compute_uv:
    return lax.rev(lax.sort(s, dimension=last), (last,))
  idx = lax.broadcasted_iota(np.int32, get_aval(s).shape, last)
  s, idx, sign = lax.sort((s, idx, lax.sign(w)), dimension=last, num_keys=1)
  s, idx, sign = (lax.rev(t, (last,)) for t in (s, idx, sign))
  u = jnp.take_along_axis(v, idx[..., None, :], axis=-1)
  return SVDResult(u, s, _H(u * sign[..., None, :].astype(get_aval(u).dtype)))


def svdvals(x, /):
  """The singular values of ``x``, descending.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.svdvals(jnp.array([[0., 2.], [1., 0.]]))
      Array([2., 1.], dtype=float32)
  """
  return svd(x, compute_uv=False)


# --- solving ------------------------------------------------------------------------------------

def _solve(a, b):
  """a x = b for matrices b, as JAX: a linear solve with the factors of ``a`` whose derivatives
  come from ``a x = b`` itself (``custom_linear_solve``), so they are right to any order."""
  lu, _, perm = lax_linalg.lu(lax.stop_gradient(a))
  complex_a = dtypes.is_complex(get_aval(a).dtype)

  def transpose_solve(_, x):  # a^T x = b: the adjoint solve of conjugates
    if complex_a:
      return jnp.conj(lax_linalg._lu_solve(lu, perm, jnp.conj(x), adjoint=True))
    return lax_linalg._lu_solve(lu, perm, x, adjoint=True)

  return lax.custom_linear_solve(lambda x: jnp.matmul(a, x), b,
                                 lambda _, x: lax_linalg._lu_solve(lu, perm, x),
                                 transpose_solve)


_solve_jit = named_jit(lambda a, b: _solve(a, b), "solve")


def solve(a, b):
  """The solution x of a x = b: ``b`` is a vector (shape (n,)) or a batch of matrices
  [..., n, k] whose batch dimensions broadcast against ``a``'s.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.solve(jnp.array([[1., 1.], [0., 2.]]), jnp.array([3., 4.]))
      Array([1., 2.], dtype=float32)
  """
  a, b = _inexact("jnp.linalg.solve", a, b)
  a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
  if len(a_shape) < 2:
    raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
  if (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1]
      and a_shape[-1] != b_shape[-2]):
    raise ValueError(
        f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, this would "
        "have been treated as a batched 1-dimensional solve. To recover this behavior, use "
        "solve(a, b[..., None]).squeeze(-1).")
  vector = len(b_shape) == 1
  signature = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
  m = b_shape[0] if vector else b_shape[-2]
  for size in (a_shape[-1], m):
    if size != a_shape[-2]:
      raise ValueError(f"inconsistent size for core dimension 'm': {size} vs {a_shape[-2]} on "
                       "vectorized function with excluded=frozenset() and signature="
                       f"'{signature}' (solve needs a of shape [..., m, m] and b of shape "
                       f"[..., m] or [..., m, n]; got a.shape={a_shape}, b.shape={b_shape})")
  if vector:
    b = b[:, None]
  batch = jnp.broadcast_shapes(a_shape[:-2], get_aval(b).shape[:-2])
  a = jnp.broadcast_to(a, batch + a_shape[-2:])
  b = jnp.broadcast_to(b, batch + get_aval(b).shape[-2:])
  x = _solve_jit(a, b)
  return x[..., 0] if vector else x


def inv(a):
  """The inverse of the square ``a`` (a batch of them).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.inv(jnp.array([[2., 0.], [0., 4.]]))
      Array([[0.5 , 0.  ],
             [0.  , 0.25]], dtype=float32)
  """
  check_arraylike("jnp.linalg.inv", a)
  a = jnp.asarray(a)
  shape = get_aval(a).shape
  if len(shape) < 2 or shape[-1] != shape[-2]:
    raise ValueError(f"Argument to inv must have shape [..., n, n], got {shape}.")
  return _inv_jit(_inexact("jnp.linalg.inv", a))


def _inv(a):
  shape = a.shape
  eye = lax.broadcast(jnp.eye(shape[-1], dtype=a.dtype), shape[:-2])
  return _solve_jit(a, eye)


_inv_jit = named_jit(_inv, "inv")


def tensorsolve(a, b, axes=None):
  """The x with tensordot(a, x, x.ndim) == b.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.tensorsolve(2 * jnp.eye(4).reshape(2, 2, 4), jnp.ones((2, 2))).shape
      (4,)
  """
  check_arraylike("tensorsolve", a, b)
  a, b = jnp.asarray(a), jnp.asarray(b)
  if axes is not None:
    a = jnp.moveaxis(a, axes, len(axes) * (a.ndim - 1,))
  out_shape = a.shape[b.ndim:]
  if a.shape[:b.ndim] != b.shape:
    raise ValueError("After moving axes to end, leading shape of a must match shape of b. got "
                     f"a.shape={a.shape}, b.shape={b.shape}")
  if b.size != math.prod(out_shape):
    raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
                     f"got a.shape={a.shape}, b.ndim={b.ndim}.")
  return solve(a.reshape(b.size, math.prod(out_shape)), b.ravel()).reshape(out_shape)


def tensorinv(a, ind: int = 2):
  """The inverse of ``a`` seen as a linear map from its last dimensions to its first ``ind``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.tensorinv(jnp.eye(4).reshape(4, 2, 2), ind=1).shape
      (2, 2, 4)
  """
  check_arraylike("tensorinv", a)
  a = jnp.asarray(a)
  ind = operator.index(ind)
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer; got ind={ind}")
  head, tail = a.shape[:ind], a.shape[ind:]
  if math.prod(head) != math.prod(tail):
    raise ValueError("tensorinv is only possible when the product of the first `ind` "
                     "dimensions equals that of the remaining dimensions. got "
                     f"a.shape={a.shape} with ind={ind}.")
  return inv(a.reshape(math.prod(head), math.prod(tail))).reshape(*tail, *head)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
  """The least-squares solution of a x = b: ``(x, residuals, rank, singular values)``, through
  the SVD with singular values below ``rcond`` times the largest dropped.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.lstsq(jnp.array([[1., 0.], [0., 1.], [0., 0.]]), jnp.array([1., 2., 3.]))[0]
      Array([1., 2.], dtype=float32)
  """
  a, b = _inexact("jnp.linalg.lstsq", a, b)
  if a.shape[0] != b.shape[0]:
    raise ValueError("Leading dimensions of input arrays must match")
  vector = b.ndim == 1
  if vector:
    b = b[:, None]
  if a.ndim != 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
  if b.ndim != 2:
    raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
  m, n = a.shape
  dt = a.dtype
  eps = dtypes.finfo(dt).eps
  rcond = eps * max(m, n) if rcond is None else jnp.where(jnp.asarray(rcond) < 0, eps, rcond)
  u, s, vt = lax_linalg.svd(a, full_matrices=False)
  s_max = s[0] if s.shape[0] else jnp.zeros((), s.dtype)
  keep = (s >= jnp.asarray(rcond, dtype=s.dtype) * s_max) & (s > 0)  # a zero matrix: rank 0
  rank = keep.sum()
  s_inv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(dt)[:, None]
  x = _H(vt) @ (s_inv * (_H(u) @ b))
  if numpy_resid and (rank < n or m <= n):
    resid = jnp.asarray([])  # the default float dtype, as in JAX
  else:
    resid = norm(b - a @ x, axis=0) ** 2
  return (x.ravel() if vector else x), resid, rank, s


# --- determinants -------------------------------------------------------------------------------

def _det_2x2(a):
  return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
  e = [[a[..., i, j] for j in range(3)] for i in range(3)]
  return (e[0][0] * e[1][1] * e[2][2] + e[0][1] * e[1][2] * e[2][0] +
          e[0][2] * e[1][0] * e[2][1] - e[0][2] * e[1][1] * e[2][0] -
          e[0][0] * e[1][2] * e[2][1] - e[0][1] * e[1][0] * e[2][2])


def _pivot_parity(pivots):
  """The number of actual row swaps made by LU's ``pivots`` (modulo 2 is the permutation's
  parity)."""
  iota = lax.broadcasted_iota(np.int32, get_aval(pivots).shape, get_aval(pivots).ndim - 1)
  return jnp.count_nonzero(pivots != iota, axis=-1)


def _cofactor_solve(a, b):
  """(det(a), adj(a) b), well defined when a has rank n - 1 (then adj(a) has rank 1).

  With P a = L U, det(a) a^-1 b = det(a) U^-1 L^-1 P b. When U's last pivot is zero the
  product is still finite: setting that pivot to 1 / (sign * u_11 ... u_(n-1)(n-1)) and
  scaling all but the last row of L^-1 P b by det(a) gives exactly det(a) U^-1 L^-1 P b
  (for a regular a) and its limit (for rank n - 1 with the zero pivot last). Matrices of lower
  rank, whose adjugate is zero, are detected by a non-finite U'^-1 1 and give zeros.
  """
  n = a.shape[-1]
  if n == 1:
    return a[..., 0, 0], b
  lu, pivots, perm = lax_linalg.lu(a)
  diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
  sign = (1 - 2 * (_pivot_parity(pivots) % 2)).astype(a.dtype)
  partial = jnp.cumprod(diag, axis=-1) * sign[..., None]
  det = partial[..., -1]
  lu = lu.at[..., -1, -1].set(1 / partial[..., -2])
  ones = jnp.ones(lu.shape[:-1] + (1,), a.dtype)
  probe = lax_linalg.triangular_solve(lu, ones, left_side=True, lower=False)
  low_rank = jnp.any(~jnp.isfinite(probe), axis=(-2, -1))[..., None, None]
  x = jnp.where(low_rank, 0, b)
  x = jnp.take_along_axis(x, perm[..., :, None], axis=-2)
  x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
  x = jnp.concatenate([x[..., :-1, :] * det[..., None, None], x[..., -1:, :]], axis=-2)
  x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
  return det, jnp.where(low_rank, 0, x)


@custom_jvp
def _det_lu(a):
  sign, logdet = slogdet(a)
  return sign * jnp.exp(logdet).astype(sign.dtype)


@_det_lu.defjvp
def _det_lu_jvp(primals, tangents):
  """d det(a) = tr(adj(a) da)."""
  (a,), (da,) = primals, tangents
  y, z = _cofactor_solve(a, da)
  return y, jnp.trace(z, axis1=-2, axis2=-1)


def _det(a):
  n = a.shape[-1]
  return _det_2x2(a) if n == 2 else _det_3x3(a) if n == 3 else _det_lu(a)


_det_jit = named_jit(_det, "det")


def det(a):
  """The determinant of a (batch of) square matrices.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.det(jnp.array([[1, 2], [3, 4]]))
      Array(-2., dtype=float32)
  """
  a = _inexact("jnp.linalg.det", a)
  _check_square(a, "Argument to _det()")
  return _det_jit(a)


def _small_det(a):
  return a[..., 0, 0] if a.shape[-1] == 1 else _det_2x2(a)


@custom_jvp
def _slogdet_direct(a):
  """slogdet of 1 x 1 and 2 x 2 matrices from their determinant."""
  d = _small_det(a)
  return jnp.sign(d), jnp.real(jnp.log(jnp.abs(d)))


@_slogdet_direct.defjvp
def _slogdet_direct_jvp(primals, tangents):
  """As ``_slogdet_jvp`` with tr(a^-1 da) = d det / det from the determinant's own formula (so
  a singular matrix gives signed infinities)."""
  (a,), (da,) = primals, tangents
  sign, logdet = _slogdet_direct(a)
  d = _small_det(a)
  if a.shape[-1] == 1:
    d_dot = da[..., 0, 0]
  else:
    d_dot = (a[..., 0, 0] * da[..., 1, 1] + da[..., 0, 0] * a[..., 1, 1]
             - a[..., 0, 1] * da[..., 1, 0] - da[..., 0, 1] * a[..., 1, 0])
  t = d_dot / d
  if dtypes.is_complex(a.dtype):
    return (sign, logdet), ((t - jnp.real(t).astype(t.dtype)) * sign, jnp.real(t))
  return (sign, logdet), (jnp.zeros_like(sign), t)


def _slogdet_from(diag, negate):
  """(sign, log|det|) of a triangular factor's ``diag``, times -1 where ``negate`` holds."""
  dt = diag.dtype
  zero = jnp.any(diag == 0, axis=-1)
  if dtypes.is_complex(dt):
    sign = jnp.prod(diag / jnp.abs(diag).astype(dt), axis=-1)
  else:
    sign = jnp.ones((), dt)
    negate = negate + jnp.count_nonzero(diag < 0, axis=-1)
  sign = jnp.where(zero, jnp.zeros((), dt), sign * (1 - 2 * (negate % 2)).astype(dt))
  logdet = jnp.where(zero, -jnp.inf, jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))
  return sign, jnp.real(logdet)


@custom_jvp
def _slogdet_lu(a):
  lu, pivots, _ = lax_linalg.lu(a)
  return _slogdet_from(jnp.diagonal(lu, axis1=-2, axis2=-1), _pivot_parity(pivots))


@custom_jvp
def _slogdet_qr(a):
  if dtypes.is_complex(a.dtype):
    raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
  h, taus = lax_linalg.geqrf(a)
  n = a.shape[-1]
  reflections = jnp.count_nonzero(taus[..., :n - 1] != 0, axis=-1)  # each has det -1
  return _slogdet_from(jnp.diagonal(h, axis1=-2, axis2=-1), reflections)


def _slogdet_jvp(primals, tangents):
  """d log|det a| = real(tr(a^-1 da)); the sign of a complex determinant turns by its
  imaginary part."""
  (a,), (da,) = primals, tangents
  sign, logdet = slogdet(a)
  lu, _, perm = lax_linalg.lu(a)  # not ``solve``, a custom_jvp function: da is a tangent here
  t = jnp.trace(lax_linalg._lu_solve(lu, perm, da), axis1=-2, axis2=-1)
  if dtypes.is_complex(a.dtype):
    return (sign, logdet), ((t - jnp.real(t).astype(t.dtype)) * sign, jnp.real(t))
  return (sign, logdet), (jnp.zeros_like(sign), t)


_slogdet_lu.defjvp(_slogdet_jvp)
_slogdet_qr.defjvp(_slogdet_jvp)


def _slogdet(a, method):
  if a.shape[-1] in (1, 2) and method != "qr":
    return _slogdet_direct(a)
  return _slogdet_qr(a) if method == "qr" else _slogdet_lu(a)


_slogdet_jit = named_jit(_slogdet, "slogdet", static_argnames="method")


def slogdet(a, *, method: str | None = None):
  """The sign (a unit complex number for complex input) and the log of the absolute value of
  the determinant, ``SlogdetResult(sign, logabsdet)``, by LU (or QR with ``method='qr'``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.slogdet(jnp.array([[-2., 0.], [0., 1.]])).sign
      Array(-1., dtype=float32)
  """
  a = _inexact("jnp.linalg.slogdet", a)
  _check_square(a, "Argument to slogdet()")
  if method not in (None, "lu", "qr"):
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), "
                     "and 'qr'.")
  return SlogdetResult(*_slogdet_jit(a, method=method))


from ember.numpy._linalg_norms import (  # noqa: E402  (they use the decompositions above)
    cond, cross, diagonal, matmul, matrix_norm, matrix_power, matrix_rank, matrix_transpose,
    multi_dot, norm, outer, pinv, tensordot, trace, vecdot, vector_norm)
