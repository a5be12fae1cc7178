"""ember.scipy.linalg's special matrices: block_diag, toeplitz, hankel, circulant, hilbert,
pascal, companion, leslie, dft, hadamard, helmert..."""
from __future__ import annotations

import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike, promote_args_inexact, promote_dtypes


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
