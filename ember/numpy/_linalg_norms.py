"""Norms, ranks, condition numbers, pseudo-inverses, matrix powers, chained products and the
array-API spellings of ``ember.numpy.linalg`` (which re-exports them all).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.linalg.norm(jnp.array([3., 4.]))
    Array(5., dtype=float32)
"""
from __future__ import annotations

import itertools
import math
import operator

import numpy as np

import ember.numpy as jnp  # a partly initialized module: ember.numpy imports this one last
from ember import dtypes, lax
from ember.numpy._util import check_arraylike, check_out_sharding
from ember.numpy.creation import named_jit
from ember.numpy.linalg import _H, _inexact, _svd, inv, svd, svdvals
from ember.transforms.custom import custom_jvp

__all__ = ["cond", "cross", "diagonal", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "tensordot", "trace",
           "vecdot", "vector_norm"]


# --- norms and derived quantities ------------------------------------------------------------

def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
  """The ``ord``-norm of ``x`` over ``axis`` (all of x, flattened, by default): 2 (Euclidean),
  inf / -inf (max / min |x|), 0 (count of non-zeros), or any other p.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.vector_norm(jnp.array([3., -4.]), ord=1)
      Array(7., dtype=float32)
  """
  check_arraylike("jnp.linalg.vector_norm", x)
  x = jnp.asarray(x)
  if ord is None or (not isinstance(ord, str) and ord == 2):
    return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=axis, keepdims=keepdims))
  if isinstance(ord, str):
    hint = {"inf": "Use 'jax.numpy.inf' instead.", "-inf": "Use '-jax.numpy.inf' instead."}
    raise ValueError(f"Invalid order '{ord}' for vector norm." + hint.get(ord, ""))
  if ord == np.inf:
    return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims, initial=0)
  if ord == -np.inf:
    return jnp.min(jnp.abs(x), axis=axis, keepdims=keepdims)
  if ord == 0:
    real = dtypes.finfo(x.dtype).dtype  # integers raise finfo's "not inexact", as in JAX
    return jnp.sum(x != 0, dtype=real, axis=axis, keepdims=keepdims)
  if ord == 1:
    return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
  a = jnp.abs(x)
  p = np.array(ord, a.dtype)
  return jnp.power(jnp.sum(a ** p, axis=axis, keepdims=keepdims), np.array(1 / p, a.dtype))


def _matrix_norm(x, ord, row: int, col: int, keepdims: bool):
  axes = (row, col)
  if ord is None or ord in ("f", "fro"):
    return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=axes, keepdims=keepdims))
  if ord in (1, -1, np.inf, -np.inf) and not isinstance(ord, str):
    summed, other = (row, col) if abs(ord) == 1 else (col, row)
    if not keepdims and other > summed:
      other -= 1
    sums = jnp.sum(jnp.abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
      return jnp.max(sums, axis=other, keepdims=keepdims, initial=0)
    return jnp.min(sums, axis=other, keepdims=keepdims)
  if ord in ("nuc", 2, -2):
    s = _svd(jnp.moveaxis(x, axes, (-2, -1)), False, False, False, None)
    y = (jnp.max(s, axis=-1, initial=0) if ord == 2 else jnp.min(s, axis=-1) if ord == -2
         else jnp.sum(s, axis=-1))
    return jnp.expand_dims(y, axes) if keepdims else y
  raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x, ord=None, axis=None, keepdims: bool = False):
  """A vector norm (one axis) or a matrix norm (two axes: 'fro', 'nuc', 1, -1, 2, -2, inf,
  -inf); with no axis and no ord, the 2-norm of all of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.norm(jnp.array([[1., 2.], [3., 4.]]), ord=1)
      Array(6., dtype=float32)
  """
  x = _inexact("jnp.linalg.norm", x)
  return _norm_jit(x, ord=ord, axis=axis, keepdims=bool(keepdims))


def _norm(x, ord, axis, keepdims):
  nd = x.ndim
  if axis is None:
    if ord is None:
      return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), keepdims=keepdims))
    axis = tuple(range(nd))
  from ember.numpy._util import canonicalize_axis
  axis = tuple(canonicalize_axis(a, nd) for a in (axis if isinstance(axis, tuple) else (axis,)))
  if len(axis) == 1:
    return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
  if len(axis) == 2:
    return _matrix_norm(x, ord, axis[0], axis[1], keepdims)
  raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute a "
                   "vector-norm, or two axes to compute a matrix-norm.")


_norm_jit = named_jit(_norm, "norm", static_argnames=("ord", "axis", "keepdims"))


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
  """The ``ord`` norm of the matrices in the last two axes of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.matrix_norm(jnp.array([[3., 0.], [0., -4.]]), ord=2)
      Array(4., dtype=float32)
  """
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
  """The number of singular values above ``rtol`` (by default the largest one times
  max(m, n) times the dtype's epsilon).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.matrix_rank(jnp.array([[1., 2.], [2., 4.]]))
      Array(1, dtype=int32)
  """
  if tol is not None:
    if rtol is not None:
      raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
    rtol = tol
  M = _inexact("jnp.linalg.matrix_rank", M)
  if M.ndim < 2:
    return jnp.any(M != 0).astype(np.int32)
  s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
  if rtol is None:
    rtol = s.max(-1) * np.array(max(M.shape[-2:]) * dtypes.finfo(s.dtype).eps, s.dtype)
  rtol = jnp.asarray(rtol)
  return jnp.sum(s > jnp.expand_dims(rtol, rtol.ndim), axis=-1)


def cond(x, p=None):
  """The condition number of ``x`` in the ``p`` norm (2 by default: largest over smallest
  singular value); inf for singular matrices.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.cond(jnp.array([[2., 0.], [0., 0.5]]))
      Array(4., dtype=float32)
  """
  check_arraylike("cond", x)
  x = jnp.asarray(x)
  if x.ndim < 2:
    raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={x.shape}")
  if x.shape[-1] == 0 or x.shape[-2] == 0:
    raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={x.shape}")
  if p is None or (not isinstance(p, str) and p == 2):
    s = svdvals(x)
    return s[..., 0] / s[..., -1]
  if not isinstance(p, str) and p == -2:
    s = svdvals(x)
    r = s[..., -1] / s[..., 0]
  else:
    if x.shape[-2] != x.shape[-1]:
      raise ValueError(f"jnp.linalg.cond: for p={p}, array must be square; got "
                       f"arr.shape={x.shape}")
    r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
  return jnp.where(jnp.isnan(r) & ~jnp.isnan(x).any(axis=(-2, -1)), np.inf, r)


def _pinv_impl(a, rtol, hermitian):
  m, n = a.shape[-2:]
  if m == 0 or n == 0:
    return jnp.zeros(a.shape[:-2] + (n, m), a.dtype)
  a = jnp.conj(a)
  if rtol is None:
    rtol = np.array(10. * max(m, n) * dtypes.finfo(a.dtype).eps,
                    dtypes.finfo(a.dtype).dtype)
  rtol = jnp.asarray(rtol)
  u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
  cutoff = jnp.expand_dims(rtol[..., None], tuple(range(s.ndim - rtol.ndim - 1))) * s[..., :1]
  s = jnp.where(s > cutoff, s, np.inf).astype(u.dtype)
  res = jnp.matmul(jnp.matrix_transpose(vh), jnp.matrix_transpose(u) / s[..., None],
                   precision=lax.Precision.HIGHEST)
  return res.astype(a.dtype)


_pinv = custom_jvp(_pinv_impl, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
  """dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P (Golub and Pereyra)."""
  (a,), (da,) = primals, tangents
  p = _pinv(a, rtol, hermitian)
  if hermitian:
    a, da = (a + _H(a)) / 2, (da + _H(da)) / 2
  m, n = a.shape[-2:]
  if m >= n:
    s = (p @ _H(p)) @ _H(da)
    t = (_H(da) @ _H(p)) @ p
    return p, -(p @ da) @ p + s - (s @ a) @ p + t - (p @ a) @ t
  s = p @ (_H(p) @ _H(da))
  t = _H(da) @ (_H(p) @ p)
  return p, -p @ (da @ p) + s - s @ (a @ p) + t - p @ (a @ t)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
  """The Moore-Penrose pseudo-inverse, from the SVD with singular values up to ``rtol`` times
  the largest (default 10 max(m, n) eps) treated as zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.pinv(jnp.array([[2., 0.], [0., 0.]]))
      Array([[0.5, 0. ],
             [0. , 0. ]], dtype=float32)
  """
  if rcond is not None:
    if rtol is not None:
      raise ValueError("pinv: only one of rtol and rcond may be specified.")
    rtol = rcond
  a = _inexact("jnp.linalg.pinv", a)
  if a.ndim < 2:
    raise ValueError(f"pinv requires an array of at least two dimensions, got shape {a.shape}")
  return _pinv(a, rtol, hermitian)


def matrix_power(a, n: int):
  """``a`` raised to the integer power ``n`` by repeated squaring (the inverse's power for
  negative n; the identity for n = 0).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.matrix_power(jnp.array([[1, 1], [0, 1]]), 3)
      Array([[1, 3],
             [0, 1]], dtype=int32)
  """
  check_arraylike("jnp.linalg.matrix_power", a)
  a = jnp.asarray(a)
  if a.ndim < 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
  if a.shape[-2] != a.shape[-1]:
    raise TypeError("Last 2 dimensions of the array must be square")
  try:
    n = operator.index(n)
  except TypeError as err:
    raise TypeError(f"exponent must be an integer, got {n}") from err
  return _matrix_power_jit(a, n=n)


def _matrix_power(a, n):
  if n == 0:
    return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
  if n < 0:
    a, n = inv(a), -n
  result, square = None, a
  while True:
    n, bit = divmod(n, 2)
    if bit:
      result = square if result is None else result @ square
    if not n:
      return result
    square = square @ square


_matrix_power_jit = named_jit(_matrix_power, "matrix_power", static_argnames="n")


def multi_dot(arrays, *, precision=None):
  """The product of a chain of matrices (the first and last may be vectors), in the order of
  multiplications with the fewest flops.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.multi_dot([jnp.ones(2), jnp.ones((2, 3)), jnp.ones(3)])
      Array(6., dtype=float32)
  """
  check_arraylike("jnp.linalg.multi_dot", *arrays)
  if len(arrays) == 1:  # as in JAX, a lone array stands for the chain of its rows
    arrays = list(arrays[0])
  arrs = [jnp.asarray(a) for a in arrays]
  if len(arrs) < 2:
    raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
  shapes = [a.shape for a in arrs]
  if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2)
          and all(a.ndim == 2 for a in arrs[1:-1])):
    raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the first "
                     "and last array which may be 1 or 2 dimensional. Got array shapes "
                     f"{shapes}")
  if any(a.shape[-1] != b.shape[0] for a, b in itertools.pairwise(arrs)):
    raise ValueError("multi_dot: last dimension of each array must match first dimension of "
                     f"following array. Got array shapes {shapes}")
  dims = [arrs[0].shape[0] if arrs[0].ndim == 2 else 1] + [a.shape[-1] for a in arrs[:-1]]
  dims.append(arrs[-1].shape[-1] if arrs[-1].ndim == 2 else 1)
  split = _chain_order(dims)

  def product(i, j):
    if i == j:
      return arrs[i]
    k = split[i][j]
    return jnp.matmul(product(i, k), product(k + 1, j), precision=precision)
  return product(0, len(arrs) - 1)


def _chain_order(dims):
  """The matrix-chain dynamic program: split[i][j] is where to split the product of matrices
  i..j (matrix i being dims[i] x dims[i + 1]) to minimize the flops."""
  n = len(dims) - 1
  cost = [[0] * n for _ in range(n)]
  split = [[0] * n for _ in range(n)]
  for length in range(1, n):
    for i in range(n - length):
      j = i + length
      cost[i][j] = math.inf
      for k in range(i, j):
        c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
        if c < cost[i][j]:
          cost[i][j], split[i][j] = c, k
  return split


# --- array-API spellings ---------------------------------------------------------------------

def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
  """``jnp.matmul``: the matrix product (stacked over leading axes).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.matmul(jnp.array([[1., 2.], [3., 4.]]), jnp.array([1., 1.]))
      Array([3., 7.], dtype=float32)
  """
  return jnp.matmul(x1, x2, precision=precision,
                       preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  """``jnp.vecdot``: the conjugated dot product along ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.vecdot(jnp.array([1j, 2.]), jnp.array([1j, 4.]))
      Array(9.+0.j, dtype=complex64)
  """
  return jnp.vecdot(x1, x2, axis=axis, precision=precision,
                       preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
  """``jnp.tensordot``, with ``axes`` keyword-only.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.tensordot(jnp.ones((2, 3)), jnp.ones((3, 2)), axes=1)
      Array([[3., 3.],
             [3., 3.]], dtype=float32)
  """
  return jnp.tensordot(x1, x2, axes, precision=precision,
                       preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def matrix_transpose(x, /):
  """The transpose of the last two axes.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.matrix_transpose(jnp.array([[1, 2, 3]]))
      Array([[1],
             [2],
             [3]], dtype=int32)
  """
  return jnp.matrix_transpose(x)


def diagonal(x, /, *, offset: int = 0):
  """The diagonals of the matrices in the last two axes.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.diagonal(jnp.arange(4).reshape(2, 2))
      Array([0, 3], dtype=int32)
  """
  return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
  """The sums of the diagonals of the matrices in the last two axes.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.trace(jnp.eye(3))
      Array(3., dtype=float32)
  """
  return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def outer(x1, x2, /):
  """The outer product of two vectors.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.outer(jnp.array([1, 2]), jnp.array([3, 4]))
      Array([[3, 4],
             [6, 8]], dtype=int32)
  """
  check_arraylike("jnp.linalg.outer", x1, x2)
  x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
  if x1.ndim != 1 or x2.ndim != 1:
    raise ValueError("Input arrays must be one-dimensional, but they are "
                     f"x1.ndim={x1.ndim} x2.ndim={x2.ndim}")
  return x1[:, None] * x2[None, :]


def cross(x1, x2, /, *, axis: int = -1):
  """The cross product of (arrays of) 3-vectors along ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linalg.cross(jnp.array([1., 0., 0.]), jnp.array([0., 1., 0.]))
      Array([0., 0., 1.], dtype=float32)
  """
  check_arraylike("jnp.linalg.outer", x1, x2)
  x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
  if x1.shape[axis] != 3 or x2.shape[axis] != 3:
    raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                     f"have x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}")
  return jnp.cross(x1, x2, axis=axis)
