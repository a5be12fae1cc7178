"""ember.numpy counting and binning: bincount, histogram, histogram_bin_edges, digitize, interp,
and unique with its array-API variants (unique_values, unique_counts, unique_inverse,
unique_all).

``bincount`` without ``length`` and ``unique`` without ``size`` need concrete inputs, as their
output shape depends on the data.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
    Array([1, 2, 0, 1], dtype=int32)
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, NamedTuple

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import (canonicalize_axis, check_arraylike, check_out_sharding,
                               ensure_array, promote_dtypes_inexact)
from ember.numpy.creation import named_jit
from ember.numpy.misc import _any_nan
from ember.numpy.reductions import cumsum
from ember.numpy.searching import _nonzero_flat, _static_size
from ember.numpy.shape_ops import (_broadcast_to, _dtype, _flip_jit, _is_array, _ndim, _shape,
                                   moveaxis, ravel)
from ember.numpy.ufuncs import _where
from ember.numpy.taking import take

__all__ = [
    "bincount", "histogram", "histogram_bin_edges", "digitize", "interp", "unique",
    "unique_values", "unique_counts", "unique_inverse", "unique_all",
]


# --- counting -----------------------------------------------------------------------------------

def _scatter_add_1d(length: int, idx, updates, dt):
  """``out[idx[i]] += updates[i]`` into zeros(length); out-of-range indices are dropped."""
  zeros = lax.full((length,), 0, dt)
  if _shape(idx)[0] == 0 or length == 0:
    return zeros
  fn = getattr(lax, "scatter_add", None)
  if fn is not None and hasattr(lax, "ScatterDimensionNumbers"):
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,),
                                        operand_batching_dims=(),
                                        scatter_indices_batching_dims=())
    n = _shape(idx)[0]
    return fn(zeros, lax.broadcast_in_dim(idx, (n, 1), (0,)), updates, dnums,
              mode=lax.GatherScatterMode.FILL_OR_DROP)
  n = _shape(idx)[0]
  onehot = lax.eq(lax.broadcast_in_dim(idx, (n, length), (0,)),
                  lax.broadcasted_iota(_dtype(idx), (n, length), 1))
  contrib = lax.select(onehot, lax.broadcast_in_dim(updates, (n, length), (0,)),
                       lax.full((n, length), 0, dt))
  return lax.reduce_sum(contrib, (0,))


def bincount(x, weights=None, minlength: int = 0, *, length=None, out_sharding=None):
  """Count occurrences of each value in the non-negative int array ``x`` (weighted if
  ``weights`` is given). Negative values count as 0; values >= ``length`` are dropped.

  ``length`` (static) is required under ``jit``; otherwise it is
  ``max(minlength, x.max() + 1)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
      Array([1, 2, 0, 1], dtype=int32)
  """
  check_out_sharding("bincount", out_sharding)
  check_arraylike("bincount", x)
  if not dtypes.is_integer(_dtype(x)):
    raise TypeError(f"x argument to bincount must have an integer type; got {_dtype(x)}")
  if _ndim(x) != 1:
    raise ValueError("only 1-dimensional input supported.")
  minlength = operator.index(minlength)
  if length is None:
    v = core.concrete_value(x)
    if v is None or isinstance(v, core.Tracer):
      raise ConcretizationTypeError(
          x, "The error occurred because of argument 'x' of jnp.bincount. To avoid this "
          "error, pass a static `length` argument.")
    host = np.asarray(v)
    length = builtins.max(minlength, int(host.max()) + 1 if host.size else 0)
  else:
    length = operator.index(length)
  if weights is None:
    dt = dtypes.default_int_dtype()
    upd = lax.full(_shape(x), 1, dt)
  else:
    check_arraylike("bincount", weights)
    dt = _dtype(weights)
    if dtypes.is_bool(dt):
      raise TypeError("bincount: weights must be numeric, got dtype bool")
    upd = _broadcast_to(weights, _shape(x))
  idx = lax.max(x, np.zeros((), _dtype(x)))
  return _scatter_add_1d(length, idx, upd, dt)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
  """The bin edges :func:`histogram` uses.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.histogram_bin_edges(jnp.array([0.0, 1.0]), bins=2)
      Array([0. , 0.5, 1. ], dtype=float32)
  """
  from ember.numpy import creation
  check_arraylike("histogram_bin_edges", a)
  if _ndim(bins) == 1 or isinstance(bins, (list, tuple)):
    edges = ensure_array(bins) if not _is_array(bins) else bins
    dt = dtypes.to_inexact_dtype(_dtype(edges))
    return lax._convert_element_type(edges, dt)
  if isinstance(bins, str):
    raise NotImplementedError("string values for `bins` are not implemented.")
  bins = operator.index(bins)
  a = ravel(a)
  dt = dtypes.to_inexact_dtype(_dtype(a))
  if range is None:
    from ember.numpy import reductions as red
    lo, hi = red.min(a), red.max(a)
  else:
    lo, hi = range
    if np.ndim(lo) or np.ndim(hi):
      raise ValueError("histogram: range must be a pair of scalars")
  lo = lax._convert_element_type(lo, dt)
  hi = lax._convert_element_type(hi, dt)
  # an empty range becomes (lo - 0.5, hi + 0.5), as in NumPy
  same = lax.eq(lo, hi)
  half = np.array(0.5, dt)
  lo = lax.select(same, lax.sub(lo, half), lo)
  hi = lax.select(same, lax.add(hi, half), hi)
  return creation.linspace(lo, hi, bins + 1, dtype=dt)


def _bin_index(edges, x):
  """The int32 histogram bin of each of ``x`` among sorted ``edges``: the last bin includes
  its right edge, values outside the edges get ``len(edges) - 1`` (one past the last bin)."""
  from ember.numpy.sorting import searchsorted
  nbins = _shape(edges)[0] - 1
  idx = lax.sub(searchsorted(edges, x, side="right"), np.int32(1))
  last = lax.eq(x, _broadcast_to(_scalar_at(edges, nbins), _shape(x)))
  idx = lax.select(last, lax.full(_shape(idx), nbins - 1, np.int32), idx)
  outside = lax.bitwise_or(lax.lt(idx, np.int32(0)), lax.ge(idx, np.int32(nbins)))
  return lax.select(outside, lax.full(_shape(idx), nbins, np.int32), idx)


def histogram(a, bins=10, range=None, weights=None, density=None):
  """Counts of ``a`` in each bin and the bin edges; the last bin includes its right edge.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.histogram(jnp.array([1.0, 2.0, 2.0, 3.0]), bins=2)[0]
      Array([1., 3.], dtype=float32)
  """
  check_arraylike("histogram", a)
  if weights is not None:
    check_arraylike("histogram", weights)
    if _shape(weights) != _shape(a):
      raise ValueError("weights should have the same shape as a.")
  edges = histogram_bin_edges(a, bins, range, weights)
  a = ravel(a)
  nbins = _shape(edges)[0] - 1
  dt = _dtype(edges)
  idx = _bin_index(edges, lax._convert_element_type(a, dt))
  w = lax.full(_shape(a), 1, dt) if weights is None else \
      lax._convert_element_type(ravel(weights), dtypes.result_type(weights, dt))
  counts = _scatter_add_1d(nbins, idx, w, _dtype(w))
  if density:
    widths = lax.sub(lax.slice(edges, (1,), (nbins + 1,)), lax.slice(edges, (0,), (nbins,)))
    total = lax.reduce_sum(counts, (0,))
    counts = lax.div(lax.div(counts, total), widths)
  return counts, edges


def digitize(x, bins, right: bool = False, *, method=None):
  """Indices of the bins (monotonically increasing or decreasing) each value falls in.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.digitize(jnp.array([0.5, 1.5, 3.0]), jnp.array([1.0, 2.0]))
      Array([0, 1, 2], dtype=int32)
  """
  from ember.numpy.sorting import searchsorted
  check_arraylike("digitize", x, bins)
  if _ndim(bins) != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  n = _shape(bins)[0]
  if n == 0:
    return lax.full(_shape(x), 0, np.int32)
  side = "left" if right else "right"
  kw = {} if method is None else {"method": method}
  inc = searchsorted(bins, x, side=side, **kw)
  rb = _flip_jit(bins, axes=(0,))
  dec = lax.sub(np.int32(n), searchsorted(rb, x, side=side, **kw))
  increasing = lax.le(_scalar_at(bins, 0), _scalar_at(bins, n - 1))
  return lax.select(_broadcast_to(increasing, _shape(inc)), inc, dec)


def _scalar_at(x, i: int):
  return lax.reshape(lax.slice(x, (i,), (i + 1,)), ())


def interp(x, xp, fp, left=None, right=None, period=None):
  """One-dimensional piecewise linear interpolation of ``(xp, fp)`` at ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.interp(jnp.array([0.5, 1.5]), jnp.array([0., 1., 2.]), jnp.array([0., 10., 20.]))
      Array([ 5., 15.], dtype=float32)
  """
  from ember.numpy.sorting import argsort, searchsorted
  check_arraylike("interp", x, xp, fp)
  if _ndim(xp) != 1 or _ndim(fp) != 1:
    raise ValueError("xp and fp must be one-dimensional")
  if _shape(xp) != _shape(fp):
    raise ValueError("xp and fp must be of the same length")
  if _shape(xp)[0] == 0:
    raise ValueError("interp: xp and fp must not be empty")
  x, xp = promote_dtypes_inexact(x, xp)  # positions and values are promoted apart, as JAX's
  fp, = promote_dtypes_inexact(fp)
  dt = _dtype(x)
  out_dt = dtypes.result_type(dt, _dtype(fp))
  fp = lax._convert_element_type(fp, out_dt)
  zero = np.zeros((), dt)
  if period is not None:
    if left is not None or right is not None:
      raise ValueError("left and right must be None when period is specified")
    if np.ndim(period) != 0:
      raise ValueError(f"period must be a scalar; got {period}")
    period = lax.abs(lax._convert_element_type(period, dt))

    def wrap(v):
      r = lax.rem(v, _broadcast_to(period, _shape(v)))
      return lax.select(lax.lt(r, zero), lax.add(r, _broadcast_to(period, _shape(v))), r)

    x, xp = wrap(x), wrap(xp)
    order = argsort(xp)
    xp, fp = take(xp, order), take(fp, order)
    n = _shape(xp)[0]
    p1 = lax.reshape(period, (1,))
    xp = lax.concatenate([lax.sub(lax.slice(xp, (n - 1,), (n,)), p1), xp,
                          lax.add(lax.slice(xp, (0,), (1,)), p1)], 0)
    fp = lax.concatenate([lax.slice(fp, (n - 1,), (n,)), fp, lax.slice(fp, (0,), (1,))], 0)
  n = _shape(xp)[0]
  shp = _shape(x)
  hi = np.int32(builtins.max(n - 1, 1))
  i = lax.clamp(np.int32(1), searchsorted(xp, x, side="right"), hi)
  im1 = lax.sub(i, np.int32(1))
  x0, x1 = take(xp, im1, mode="clip"), take(xp, i, mode="clip")
  f0, f1 = take(fp, im1, mode="clip"), take(fp, i, mode="clip")
  dx = lax.sub(x1, x0)
  eps = np.array(dtypes.finfo(dt).eps, np.dtype(dtypes.finfo(dt).dtype))
  flat = lax.le(lax.abs(dx), lax._convert_element_type(eps, _dtype(lax.abs(dx))))
  safe_dx = lax.select(flat, lax.full(shp, 1, dt), dx)
  t = lax._convert_element_type(lax.div(lax.sub(x, x0), safe_dx), out_dt)
  f = lax.add(f0, lax.mul(t, lax.sub(f1, f0)))
  f = lax.select(flat, f0, f)
  if period is None:
    lv = _scalar_at(fp, 0) if left is None else lax._convert_element_type(left, out_dt)
    rv = _scalar_at(fp, n - 1) if right is None else lax._convert_element_type(right, out_dt)
    f = lax.select(lax.lt(x, _broadcast_to(_scalar_at(xp, 0), shp)), _broadcast_to(lv, shp), f)
    f = lax.select(lax.gt(x, _broadcast_to(_scalar_at(xp, n - 1), shp)),
                   _broadcast_to(rv, shp), f)
  return f


# --- unique -------------------------------------------------------------------------------------

def _sorted_rows(rows, equal_nan: bool):
  """Sort the ``(n, m)`` ``rows`` lexicographically; return them, the sorting permutation and
  the mask of each run's first row (NaNs equal to each other if ``equal_nan``)."""
  n, m = _shape(rows)
  it = dtypes.default_int_dtype()
  cols = [lax.squeeze(lax.slice_in_dim(rows, j, j + 1, axis=1), (1,)) for j in range(m)]
  *cols, perm = lax.sort((*cols, lax.broadcasted_iota(it, (n,), 0)), dimension=0,
                         is_stable=True, num_keys=builtins.max(m, 1)) if m else \
      (lax.broadcasted_iota(it, (n,), 0),)
  neq = lax.full((n - 1,), False, np.bool_)
  for c in cols:
    prev, nxt = lax.slice(c, (0,), (n - 1,)), lax.slice(c, (1,), (n,))
    differ = lax.ne(nxt, prev)
    if equal_nan and dtypes.is_inexact(_dtype(c)):
      differ = lax.bitwise_and(differ, lax.bitwise_not(lax.bitwise_and(_any_nan(nxt),
                                                                        _any_nan(prev))))
    neq = lax.bitwise_or(neq, differ)
  mask = lax.concatenate([lax.full((1,), True, np.bool_), neq], 0)
  return take(rows, perm, axis=0), perm, mask


def _unique_count(rows, *, equal_nan):
  return lax.reduce_sum(lax._convert_element_type(_sorted_rows(rows, equal_nan)[2],
                                                 dtypes.default_int_dtype()), (0,))


_unique_count_jit = named_jit(_unique_count, "unique_count", static_argnames=("equal_nan",))


def _unique_rows(rows, fill_value, *, size, equal_nan):
  """Values, first indices, inverse and counts of the unique rows of ``(n, m)`` ``rows``,
  padded or truncated to ``size`` (padding: ``fill_value``, else the smallest row)."""
  it = dtypes.default_int_dtype()
  srt, perm, mask = _sorted_rows(rows, equal_nan)
  pos, count = _nonzero_flat(mask, size)
  valid = lax.lt(lax.broadcasted_iota(it, (size,), 0), count)
  pos = _where(valid, pos, np.zeros((), it))  # padding repeats the smallest row
  values = take(srt, pos, axis=0)
  if fill_value is not None:
    values = _where(valid[:, None], values, lax._convert_element_type(fill_value, _dtype(rows)))
  group = lax.sub(cumsum(lax._convert_element_type(mask, it)), np.ones((), it))
  _, inverse = lax.sort((perm, group), dimension=0, num_keys=1)
  counts = _scatter_add_1d(size, group, lax.full(_shape(group), 1, it), it)
  return values, take(perm, pos), inverse, counts


_unique_rows_jit = named_jit(_unique_rows, "unique", static_argnames=("size", "equal_nan"))


def _unique_empty(ar, axis, size, fill_value, shape):
  """unique of an array with no elements along the unique axis."""
  if size and fill_value is None:
    raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, fill_value "
                     "must be specified")
  size = size or 0
  values = lax.full((size,) + shape[1:], 0 if fill_value is None else fill_value, _dtype(ar))
  zeros = lax.full((size,), 0, dtypes.default_int_dtype())
  inverse = lax.full(_shape(ar) if axis is None else (0,), 0, dtypes.default_int_dtype())
  return values, zeros, inverse, zeros


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True, size=None,
           fill_value=None, sorted: bool = True):
  """The sorted unique elements of ``ar`` (optionally first indices, inverse and counts).

  With ``axis``, the unique sub-arrays along that axis. Without ``size`` the input must be
  concrete (the output's length depends on the values); with a static ``size`` it works
  under ``jit``: the outputs are truncated or padded to ``size`` (values with ``fill_value``,
  by default the smallest value; indices with the smallest value's index; counts with 0).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique(jnp.array([3, 1, 1, 2]))
      Array([1, 2, 3], dtype=int32)
      >>> jnp.unique(jnp.array([3, 1, 1]), return_counts=True, size=3, fill_value=0)
      (Array([1, 3, 0], dtype=int32), Array([2, 1, 0], dtype=int32))
  """
  check_arraylike("unique", ar)
  ar = ensure_array(ar)
  if size is not None:
    size = _static_size(size, "unique")
  if axis is None:
    moved = ravel(ar)
  else:
    moved = moveaxis(ar, canonicalize_axis(operator.index(axis), builtins.max(_ndim(ar), 1)), 0)
  shape = _shape(moved)
  if shape[0] == 0:
    outs = _unique_empty(ar, axis, size, fill_value, shape)
  else:
    rows = lax.reshape(moved, (shape[0], math.prod(shape[1:])))
    if size is None:
      v = core.concrete_value(ar)
      if v is None or isinstance(v, core.Tracer):
        raise ConcretizationTypeError(
            ar, "The error occurred in jnp.unique(): the size of its output depends on the "
            "values. To use it under jit, pass a static `size` argument.")
      size = int(_unique_count_jit(rows, equal_nan=bool(equal_nan)))
    if fill_value is not None:
      check_arraylike("unique", fill_value)
    values, index, inverse, counts = _unique_rows_jit(rows, fill_value, size=size,
                                                      equal_nan=bool(equal_nan))
    values = lax.reshape(values, (size,) + shape[1:])
    inverse = lax.reshape(inverse, _shape(ar)) if axis is None else inverse
    outs = values, index, inverse, counts
  values = outs[0] if axis is None else moveaxis(outs[0], 0, canonicalize_axis(axis, _ndim(ar)))
  extras = [o for o, want in zip(outs[1:], (return_index, return_inverse, return_counts)) if want]
  return tuple([values] + extras) if extras else values


class _UniqueCountsResult(NamedTuple):
  values: Any
  counts: Any


class _UniqueInverseResult(NamedTuple):
  values: Any
  inverse_indices: Any


class _UniqueAllResult(NamedTuple):
  values: Any
  indices: Any
  inverse_indices: Any
  counts: Any


def unique_values(x, /, *, size=None, fill_value=None):
  """Array API: the sorted unique values of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_values(jnp.array([2, 1, 2]))
      Array([1, 2], dtype=int32)
  """
  return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, counts)`` of the unique elements of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_counts(jnp.array([2, 1, 2]))[1]
      Array([1, 2], dtype=int32)
  """
  return _UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, inverse_indices)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_inverse(jnp.array([2, 1, 2]))[1]
      Array([1, 0, 1], dtype=int32)
  """
  return _UniqueInverseResult(*unique(x, return_inverse=True, size=size,
                                      fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, indices, inverse_indices, counts)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_all(jnp.array([2, 1, 2]))[3]
      Array([1, 2], dtype=int32)
  """
  return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                  return_counts=True, size=size, fill_value=fill_value))
