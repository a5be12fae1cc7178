"""ember.numpy order statistics and moments of samples: quantile, percentile, median and their
NaN-ignoring forms, cov, corrcoef, and the multi-dimensional histograms (histogram2d,
histogramdd; ``histogram`` itself lives in ``counting.py``).

Quantiles sort the reduced axes (flattened into one) and gather at positions computed from
``q``, so they are differentiable in ``a`` and ``q`` and batch like any sort and gather. As in
JAX, ``q`` outside [0, 1] is clamped rather than rejected, an integer ``a`` gives a float32
result (float64 only from a 64-bit ``a``), and a NaN anywhere in a reduced slice makes that
slice's quantile NaN (the ``nan*`` forms skip NaNs instead).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), jnp.array([0.25, 0.5]))
    Array([1.75, 2.5 ], dtype=float32)
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import (canonicalize_axis, check_arraylike, check_out_sharding,
                               ensure_array, index_axis, promote_dtypes,
                               promote_dtypes_inexact)
from ember.numpy.counting import _bin_index, bincount, histogram_bin_edges
from ember.numpy.creation import named_jit
from ember.numpy.linear import diagonal, dot
from ember.numpy.misc import _isnan
from ember.numpy.reductions import any, average, cumsum, sum
from ember.numpy.shape_ops import _dtype, _ndim, _shape, moveaxis, reshape
from ember.numpy.taking import take_along_axis
from ember.numpy.ufuncs import _where, true_divide

__all__ = ["quantile", "percentile", "nanquantile", "nanpercentile", "median", "nanmedian",
           "cov", "corrcoef", "histogram2d", "histogramdd"]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


# --- quantiles ----------------------------------------------------------------------------------

def _gather_last(x, idx):
  """``x[..., idx]`` per row for float positions ``idx`` (already within the valid range)."""
  return take_along_axis(x, lax._convert_element_type(idx, np.int32), axis=-1)


def _interpolate(s, q, count, method: str):
  """Quantiles ``q`` of the rows of sorted ``s`` whose first ``count`` entries are valid (``q``
  and ``count`` shaped ``s.shape[:-1] + (k,)``, like the result)."""
  last = lax.sub(count, np.ones((), _dtype(s)))
  pos = lax.mul(q, last)
  low, high = lax.floor(pos), lax.ceil(pos)
  frac = lax.sub(pos, low)
  zero = np.zeros((), _dtype(s))
  v_lo = _gather_last(s, lax.max(lax.min(low, last), zero))
  v_hi = _gather_last(s, lax.max(lax.min(high, last), zero))
  if method == "lower":
    return v_lo
  if method == "higher":
    return v_hi
  if method == "midpoint":
    return lax.mul(lax.add(v_lo, v_hi), np.asarray(0.5, _dtype(s)))
  if method == "nearest":
    return _where(lax.gt(frac, np.asarray(0.5, _dtype(s))), v_hi, v_lo)
  one_minus = lax.sub(np.ones((), _dtype(s)), frac)
  return lax.add(lax.mul(v_lo, one_minus), lax.mul(v_hi, frac))


def _inverted_cdf(s, w, q, count):
  """The first sorted value whose normalized cumulative weight reaches ``q`` (shapes as in
  ``_interpolate``)."""
  cdf = cumsum(w, axis=-1)
  n, nd = _shape(cdf)[-1], _ndim(cdf)
  cdf = lax.div(cdf, lax.broadcast_in_dim(lax.slice_in_dim(cdf, n - 1, n, axis=-1), _shape(cdf),
                                          tuple(range(nd))))
  both = _shape(q) + (n,)
  below = lax.lt(lax.broadcast_in_dim(cdf, both, tuple(range(nd - 1)) + (nd,)),
                 lax.broadcast_in_dim(q, both, tuple(range(nd))))
  idx = lax._convert_element_type(sum(below, axis=-1), _dtype(s))
  last = lax.sub(count, np.ones((), _dtype(s)))
  return _gather_last(s, lax.max(lax.min(idx, last), np.zeros((), _dtype(s))))


def _quantile(a, q, weights, *, axis, method, keepdims, squash_nans, percent):
  shape, nd = _shape(a), _ndim(a)
  if percent:
    q = lax.div(q, np.asarray(100, _dtype(q)))
  kept = tuple(i for i in range(nd) if i not in axis)
  rows = tuple(shape[i] for i in kept) + (math.prod(shape[i] for i in axis),)
  a = lax.reshape(lax.transpose(a, kept + axis), rows)
  nan = _isnan(a)
  dt = _dtype(a)
  k = math.prod(_shape(q))
  out_rows = rows[:-1] + (k,)
  if squash_nans:
    count = sum(lax.bitwise_not(nan), axis=-1, keepdims=True, dtype=dt)
    count = lax.broadcast_in_dim(count, out_rows, tuple(range(len(rows))))
  else:
    count = np.asarray(rows[-1], dt)
  qv = lax.broadcast_in_dim(lax.reshape(q, (k,)), out_rows, (len(rows) - 1,))
  if method == "inverted_cdf":
    w = lax.full(rows, 1, dt) if weights is None else \
        lax.reshape(lax.transpose(weights, kept + axis), rows)
    negative = any(lax.lt(w, np.zeros((), dt)), axis=-1, keepdims=True)
    if squash_nans:
      w = _where(nan, np.zeros((), dt), w)
    s, w = lax.sort((a, w), dimension=len(rows) - 1, num_keys=1)
    out = _where(negative, np.nan, _inverted_cdf(s, w, qv, count))
  else:
    out = _interpolate(lax.sort(a, dimension=len(rows) - 1), qv, count, method)
  if squash_nans:
    out = _where(lax.eq(count, np.zeros((), dt)), np.nan, out)
  else:
    out = _where(any(nan, axis=-1, keepdims=True), np.nan, out)
  out = moveaxis(out, -1, 0)
  out_shape = tuple(1 if i in axis else shape[i] for i in range(nd)) if keepdims else \
      tuple(shape[i] for i in kept)
  return lax.reshape(out, _shape(q) + out_shape)


_quantile_jit = named_jit(_quantile, "quantile",
                          static_argnames=("axis", "method", "keepdims", "squash_nans",
                                           "percent"))


def _quantile_axes(axis, nd: int) -> tuple[int, ...]:
  if axis is None:
    return tuple(range(nd))
  axes = tuple(axis) if isinstance(axis, (tuple, list)) else (index_axis(axis),)
  canon = tuple(sorted(canonicalize_axis(ax, nd) for ax in axes))
  if len(set(canon)) != len(canon):
    raise ValueError("repeated axis")
  return canon


def _quantile_weights(weights, a, axis, method: str):
  if method != "inverted_cdf":
    raise NotImplementedError(f"{method} doesn't support weights. Only method 'inverted_cdf' "
                              "supports weights.")
  weights = lax._convert_element_type(ensure_array(weights), _dtype(a))
  reduced = tuple(_shape(a)[i] for i in axis)
  if _shape(weights) == reduced:
    dims = tuple(i for i in range(_ndim(a)) if i not in axis)
    weights = lax.expand_dims(weights, dims) if dims else weights
    weights = lax.broadcast_in_dim(weights, _shape(a), tuple(range(_ndim(a))))
  elif _shape(weights) != _shape(a):
    raise ValueError(f"Weights shape {_shape(weights)} must match reduction axes {reduced}")
  return weights


def _quantile_entry(name, a, q, axis, out, overwrite_input, method, keepdims, weights,
                    squash_nans, percent=False):
  check_arraylike(name, a, q)
  if overwrite_input or out is not None:
    raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")
  if method not in _METHODS:
    raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
                     "or 'inverted_cdf'")
  a, = promote_dtypes_inexact(ensure_array(a))
  if dtypes.is_complex(_dtype(a)):
    raise ValueError(f"{name} does not support complex input, as the operation is poorly "
                     "defined.")
  q = ensure_array(q)
  if not dtypes.is_inexact(_dtype(q)) and not percent:
    raise TypeError(f"floor does not accept dtype {_dtype(q)}. Accepted dtypes are subtypes "
                    "of floating.")
  if _ndim(q) > 1:
    raise ValueError(f"q must be have rank <= 1, got shape {_shape(q)}")
  q = lax._convert_element_type(q, _dtype(a))
  axis = _quantile_axes(axis, _ndim(a))
  if weights is not None:
    check_arraylike(name, weights)
    weights = _quantile_weights(weights, a, axis, method)
  if math.prod(_shape(a)[i] for i in axis) == 0:
    raise ValueError(f"{name} of an empty axis is undefined (the reduced axes hold no values).")
  return _quantile_jit(a, q, weights, axis=axis, method=method, keepdims=bool(keepdims),
                       squash_nans=squash_nans, percent=percent)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
  """The ``q``-th quantiles (``q`` in [0, 1], a scalar or 1-D) of ``a`` over ``axis``.

  Args:
    a: the data; integers and bools are promoted to float.
    q: the quantile(s), a float scalar or 1-D array; values outside [0, 1] are clamped.
    axis: an int, a tuple of ints, or None for all axes.
    method: 'linear' (default), 'lower', 'higher', 'midpoint', 'nearest' (ties go to the lower
      value, as in JAX) or 'inverted_cdf' (the only method accepting ``weights``).
    keepdims: keep the reduced axes with size 1.
    weights: per-element weights, shaped like ``a`` or like its reduced axes.

  Returns:
    An array of shape ``q.shape`` followed by the shape of ``a`` without the reduced axes.

  Raises:
    ValueError: unknown ``method``, complex ``a``, ``q`` of rank 2 or more, an empty axis, or
      ``out``/``overwrite_input`` given.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.quantile(jnp.array([[1., 2.], [3., 5.]]), 0.5, axis=1)
      Array([1.5, 4. ], dtype=float32)
  """
  return _quantile_entry("quantile", a, q, axis, out, overwrite_input, method, keepdims,
                         weights, False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
  """:func:`quantile` ignoring NaNs (NaN only where a slice holds nothing else).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanquantile(jnp.array([1., jnp.nan, 3.]), 0.5)
      Array(2., dtype=float32)
  """
  return _quantile_entry("nanquantile", a, q, axis, out, overwrite_input, method, keepdims,
                         weights, True)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, out_sharding=None):
  """The ``q``-th percentiles (``q`` in [0, 100]) of ``a``: :func:`quantile` of ``q / 100``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.percentile(jnp.arange(5.), jnp.array([25, 100]))
      Array([1., 4.], dtype=float32)
  """
  check_out_sharding("percentile", out_sharding)
  return _quantile_entry("percentile", a, q, axis, out, overwrite_input, method, keepdims,
                         weights, False, percent=True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
  """:func:`percentile` ignoring NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanpercentile(jnp.array([jnp.nan, 0., 10.]), 25)
      Array(2.5, dtype=float32)
  """
  return _quantile_entry("nanpercentile", a, q, axis, out, overwrite_input, method, keepdims,
                         weights, True, percent=True)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
  """The median over ``axis`` (all axes if None); NaN where a reduced slice holds a NaN.

  The mean of the two middle values for an even count (``quantile`` with 'midpoint').

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.median(jnp.array([[1., 3., 2.], [4., 6., 5.]]), axis=1)
      Array([2., 5.], dtype=float32)
  """
  return _quantile_entry("median", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims,
                         None, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
  """:func:`median` ignoring NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanmedian(jnp.array([[1., jnp.nan], [4., 6.]]), axis=1)
      Array([1., 5.], dtype=float32)
  """
  return _quantile_entry("nanmedian", a, 0.5, axis, out, overwrite_input, "midpoint",
                         keepdims, None, True)


# --- covariance ---------------------------------------------------------------------------------

def _cov_rows(m, rowvar: bool):
  """``m`` as a 2-D array with one variable per row."""
  if _ndim(m) > 2:
    raise ValueError("m has more than 2 dimensions")
  m = reshape(m, (1, -1)) if _ndim(m) < 2 else m
  if not rowvar and _shape(m)[0] != 1:
    m = lax.transpose(m, (1, 0))
  return m


def _check_frequency_weights(fweights, n: int):
  fweights = ensure_array(fweights)
  if _ndim(fweights) > 1:
    raise RuntimeError("cannot handle multidimensional fweights")
  if _shape(fweights)[0] != n:
    raise RuntimeError("incompatible numbers of samples and fweights")
  if not dtypes.is_integer(_dtype(fweights)):
    raise TypeError("fweights must be integer.")
  return lax.abs(fweights)


def _check_analytic_weights(aweights, n: int):
  aweights = ensure_array(aweights)
  if _ndim(aweights) > 1:
    raise RuntimeError("cannot handle multidimensional aweights")
  if _shape(aweights)[0] != n:
    raise RuntimeError("incompatible numbers of samples and aweights")
  return lax.abs(aweights)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
  """The covariance matrix of the variables in the rows of ``m`` (columns if not ``rowvar``).

  ``y`` adds more variables; ``ddof`` defaults to 1 (0 with ``bias``); ``fweights`` (integer
  repeat counts) and ``aweights`` (importance) weight the observations. As in JAX, weights
  count by their absolute values and the normalization ``N - ddof`` is not clamped at zero
  (NumPy rejects negative weights and clamps); no observations give NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cov(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
      Array([[ 1., -1.],
             [-1.,  1.]], dtype=float32)
  """
  check_arraylike("cov", m)
  if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
    raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype}")
  x = _cov_rows(ensure_array(m), rowvar)
  if y is not None:
    check_arraylike("cov", y)
    x = lax.concatenate(promote_dtypes_inexact(x, _cov_rows(ensure_array(y), rowvar)), 0)
  x, = promote_dtypes_inexact(x)
  if dtype is not None:
    x = lax._convert_element_type(x, dtype)
  rows, n = _shape(x)
  if rows == 0 or n == 0:
    return lax.full((rows, rows), np.nan, _dtype(x)).squeeze()
  ddof = (0 if bias else 1) if ddof is None else ddof
  w = None
  if fweights is not None:
    w = _check_frequency_weights(fweights, n)
  if aweights is not None:
    aweights = _check_analytic_weights(aweights, n)
    w = aweights if w is None else lax.mul(*promote_dtypes_inexact(w, aweights))
  avg, w_sum = average(x, axis=1, weights=w, returned=True)
  w_sum = lax.slice_in_dim(w_sum, 0, 1)[0] if _ndim(w_sum) else w_sum
  if w is None:
    fact = n - ddof
  elif ddof == 0:
    fact = w_sum
  elif aweights is None:
    fact = w_sum - ddof
  else:
    fact = w_sum - ddof * sum(w * aweights) / w_sum
  x = x - avg[:, None]
  xw = x if w is None else x * w
  c = dot(x, lax.transpose(lax.conj(xw) if dtypes.is_complex(_dtype(xw)) else xw, (1, 0)))
  c = true_divide(c, fact)
  return lax._convert_element_type(c, _dtype(x)).squeeze()


def corrcoef(x, y=None, rowvar=True, dtype=None):
  """Pearson correlation coefficients: :func:`cov` normalized by the standard deviations.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.corrcoef(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
      Array([[ 1., -1.],
             [-1.,  1.]], dtype=float32)
  """
  check_arraylike("corrcoef", x)
  c = cov(x, y, rowvar, dtype=dtype)
  if _ndim(c) == 0:
    return true_divide(c, c)
  d = diagonal(c)
  std = lax.sqrt(lax.real(d) if dtypes.is_complex(_dtype(d)) else d)
  std = lax._convert_element_type(std, _dtype(c))
  return true_divide(true_divide(c, std[:, None]), std[None, :])


# --- histograms ---------------------------------------------------------------------------------

def _per_dimension(value, d: int, what: str) -> list:
  if value is None:
    return [None] * d
  if isinstance(value, (list, tuple)) and len(value) != d:
    raise ValueError(f"The dimension of {what} must be equal to the dimension of the sample x.")
  return list(value)


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
  """A D-dimensional histogram of the ``(N, D)`` points ``sample``.

  ``bins`` is one int for every dimension, or one int or edge array per dimension; ``range``
  one ``(lo, hi)`` pair (or None) per dimension. Counts are integers unless ``weights`` or
  ``density`` make them floats.

  Returns:
    ``(hist, edges)``: ``hist`` has one axis per dimension, ``edges`` is a list of 1-D arrays.

  Example:
      >>> import ember.numpy as jnp
      >>> h, edges = jnp.histogramdd(jnp.array([[0., 0.], [1., 1.], [1., 0.]]), bins=2)
      >>> h
      Array([[1, 0],
             [1, 1]], dtype=int32)
  """
  check_arraylike("histogramdd", sample)
  sample = ensure_array(sample)
  if _ndim(sample) != 2:
    raise ValueError(f"histogramdd: sample must be a 2-D (N, D) array, got shape "
                     f"{_shape(sample)}")
  n, d = _shape(sample)
  if isinstance(bins, (list, tuple)):
    if len(bins) != d:
      raise ValueError("should be a bin for each dimension.")
    bins_per_dim = list(bins)
  elif _ndim(bins) == 1:
    bins_per_dim = [bins] * d
  else:
    bins_per_dim = [operator.index(bins)] * d
  ranges = _per_dimension(range, d, "range")
  if weights is not None:
    check_arraylike("histogramdd", weights)
    weights = ensure_array(weights)
    if _shape(weights) != (n,):
      raise ValueError(f"histogramdd: weights must have shape ({n},), got {_shape(weights)}")
  edges, flat, inside = [], np.int32(0), np.bool_(True)
  for i in builtins.range(d):
    column = sample[:, i]
    e = histogram_bin_edges(column, bins_per_dim[i], ranges[i])
    nbins = _shape(e)[0] - 1
    idx = _bin_index(e, lax._convert_element_type(column, _dtype(e)))  # nbins: outside
    inside = lax.bitwise_and(inside, lax.lt(idx, np.int32(nbins)))
    flat = lax.add(lax.mul(flat, np.int32(nbins)), idx)
    edges.append(e)
  shape = tuple(_shape(e)[0] - 1 for e in edges)
  total = math.prod(shape)
  flat = _where(inside, flat, np.int32(total))  # dropped by bincount
  hist = reshape(bincount(flat, weights, length=total), shape)
  if density:
    hist = _normalize_density(hist, edges)
  return hist, edges


def _normalize_density(hist, edges):
  """``hist / sum(hist)`` divided by every bin's volume."""
  hist = true_divide(hist, sum(hist))
  d = len(edges)
  for i, e in enumerate(edges):
    width = lax.sub(e[1:], e[:-1])
    shape = tuple(-1 if j == i else 1 for j in builtins.range(d))
    hist = true_divide(hist, reshape(width, shape))
  return hist


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
  """A 2-D histogram of the points ``(x[i], y[i])`` (see :func:`histogramdd`).

  Returns:
    ``(hist, xedges, yedges)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.histogram2d(jnp.array([0., 1., 1.]), jnp.array([0., 1., 0.]), bins=2)[0]
      Array([[1, 0],
             [1, 1]], dtype=int32)
  """
  check_arraylike("histogram2d", x, y)
  x, y = ensure_array(x), ensure_array(y)
  if _shape(x) != _shape(y) or _ndim(x) != 1:
    raise ValueError(f"histogram2d: x and y must be 1-D of the same length, got shapes "
                     f"{_shape(x)} and {_shape(y)}")
  if not isinstance(bins, (list, tuple)) and _ndim(bins) == 1:
    bins = [bins, bins]
  sample = lax.concatenate([c[:, None] for c in promote_dtypes(x, y)], 1)
  hist, (xedges, yedges) = histogramdd(sample, bins, range, weights, density)
  return hist, xedges, yedges
