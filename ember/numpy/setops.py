"""ember.numpy set operations on flattened arrays: isin, union1d, intersect1d, setdiff1d,
setxor1d (``unique`` itself lives in ``counting.py``).

Every set operation sorts and marks runs of equal values, so all but ``isin`` have an output
length that depends on the values: they need concrete inputs, or a static ``size=`` under
``jit`` (the result is then truncated, or padded with ``fill_value``: by default the first
value of the result, or 0 when it is empty, as in JAX; ``setdiff1d`` pads with 0).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.setdiff1d(jnp.array([5, 1, 3, 1]), jnp.array([3, 4]))
    Array([1, 5], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import check_arraylike, ensure_array, promote_dtypes
from ember.numpy.counting import _scatter_add_1d, _sorted_rows, unique
from ember.numpy.creation import named_jit
from ember.numpy.misc import _any_nan
from ember.numpy.reductions import cumsum
from ember.numpy.searching import _nonzero_flat, _static_size
from ember.numpy.shape_ops import _dtype, _shape, ravel
from ember.numpy.sorting import searchsorted
from ember.numpy.taking import take
from ember.numpy.ufuncs import _where

__all__ = ["isin", "union1d", "intersect1d", "setdiff1d", "setxor1d"]

_AUTO_COMPARE_ALL = 1 << 16  # method='auto' compares all pairs up to this many


# --- isin ---------------------------------------------------------------------------------------

def _in1d(element, test_elements, *, method, invert):
  n, m = _shape(element)[0], _shape(test_elements)[0]
  if m == 0:
    found = lax.full((n,), False, np.bool_)
  elif method == "compare_all":
    eq = lax.eq(lax.broadcast_in_dim(element, (n, m), (0,)),
                lax.broadcast_in_dim(test_elements, (n, m), (1,)))
    found = lax.reduce_or(eq, (1,))
  else:
    srt = lax.sort(test_elements, dimension=0)
    pos = lax.min(searchsorted(srt, element), np.int32(m - 1))
    found = lax.eq(take(srt, pos), element)
  return lax.bitwise_not(found) if invert else found


_in1d_jit = named_jit(_in1d, "_in1d", static_argnames=("method", "invert"))


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
  """Whether each element of ``element`` is in ``test_elements`` (shape of ``element``).

  ``method``: 'compare_all' (every pair; fastest for small inputs), 'binary_search' or 'sort'
  (search the sorted test elements), or 'auto' (chooses by size). NaN is in nothing.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isin(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 4, 6]))
      Array([[False,  True],
             [False,  True]], dtype=bool)
  """
  check_arraylike("isin", element, test_elements)
  if method not in ("compare_all", "binary_search", "sort", "auto"):
    raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")
  element, test_elements = promote_dtypes(ensure_array(element), ensure_array(test_elements))
  flat, tests = ravel(element), ravel(test_elements)
  if method == "auto":
    big = _shape(flat)[0] * _shape(tests)[0] > _AUTO_COMPARE_ALL
    method = "binary_search" if big else "compare_all"
  elif method == "sort":
    method = "binary_search"
  found = _in1d_jit(flat, tests, method=method, invert=bool(invert))
  return lax.reshape(found, _shape(element))


# --- shared -------------------------------------------------------------------------------------

def _output_size(size, keep, fun_name: str) -> int:
  """``size`` as a static int, or the number of True entries of a concrete ``keep``."""
  if size is not None:
    return _static_size(size, fun_name)
  v = core.concrete_value(keep)
  if v is None or isinstance(v, core.Tracer):
    raise ConcretizationTypeError(
        keep, f"The error occurred in jnp.{fun_name}(): the size of its output depends on the "
        "values. To use it under jit, pass a static `size` argument.")
  return int(np.count_nonzero(np.asarray(v)))


def _compact(values, keep, size: int, fill_value, first_as_default: bool = True):
  """``values[keep]`` truncated or padded to ``size``: with ``fill_value``, else the first kept
  value (0 if none is kept or not ``first_as_default``)."""
  pos, count = _nonzero_flat(keep, size)
  out = take(values, pos, mode="clip") if _shape(values)[0] else \
      lax.full((size,), 0, _dtype(values))
  valid = lax.lt(lax.broadcasted_iota(_dtype(count), (size,), 0), count)
  if fill_value is None:
    zero = np.zeros((), _dtype(values))
    first = lax.reshape(lax.slice(out, (0,), (1,)), ()) if size else zero
    fill_value = _where(lax.gt(count, np.zeros((), _dtype(count))), first, zero) \
        if first_as_default else zero
  return _where(valid, out, lax._convert_element_type(fill_value, _dtype(values))), pos, valid


def _check_fill(fun_name: str, fill_value):
  if fill_value is not None:
    check_arraylike(fun_name, fill_value)


# --- union1d, setdiff1d -------------------------------------------------------------------------

def union1d(ar1, ar2, *, size=None, fill_value=None):
  """The sorted unique values found in either of ``ar1`` and ``ar2`` (flattened).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.union1d(jnp.array([3, 1]), jnp.array([2, 1]))
      Array([1, 2, 3], dtype=int32)
  """
  check_arraylike("union1d", ar1, ar2)
  _check_fill("union1d", fill_value)
  ar1, ar2 = promote_dtypes(ensure_array(ar1), ensure_array(ar2))
  both = lax.concatenate([ravel(ar1), ravel(ar2)], 0)
  return unique(both, size=size, fill_value=fill_value)


def _sorted_firsts(ar, assume_unique: bool):
  """Sorted 1-D ``ar``, the sorting permutation, and which entries are first of their value
  (all of them if ``assume_unique``)."""
  n = _shape(ar)[0]
  srt, perm, first = _sorted_rows(lax.reshape(ar, (n, 1)), True)
  if assume_unique:
    first = lax.full((n,), True, np.bool_)
  return lax.reshape(srt, (n,)), perm, first


def _setdiff_keep(ar1, ar2, *, assume_unique):
  """Candidates (sorted ``ar1``, or ``ar1`` itself if ``assume_unique``) and which of them
  are first of their value and absent from ``ar2``."""
  if assume_unique:
    cand, first = ar1, lax.full(_shape(ar1), True, np.bool_)
  else:
    cand, _, first = _sorted_firsts(ar1, False)
  a, b = promote_dtypes(cand, ar2)
  return cand, lax.bitwise_and(first, _in1d(a, b, method="compare_all", invert=True))


_setdiff_keep_jit = named_jit(_setdiff_keep, "setdiff1d", static_argnames=("assume_unique",))


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  """The unique values of ``ar1`` that are not in ``ar2``, sorted (in ``ar1``'s order with
  ``assume_unique``); ``ar1``'s dtype. Padding (with ``size``) defaults to 0.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.setdiff1d(jnp.array([3, 1, 2, 7]), jnp.array([2, 1]), size=3)
      Array([3, 7, 0], dtype=int32)
  """
  check_arraylike("setdiff1d", ar1, ar2)
  _check_fill("setdiff1d", fill_value)
  ar1, ar2 = ravel(ensure_array(ar1)), ravel(ensure_array(ar2))
  if _shape(ar1)[0] == 0:
    return lax.full((0 if size is None else _static_size(size, "setdiff1d"),),
                    0 if fill_value is None else fill_value, _dtype(ar1))
  cand, keep = _setdiff_keep_jit(ar1, ar2, assume_unique=bool(assume_unique))
  size = _output_size(size, keep, "setdiff1d")
  return _compact(cand, keep, size, fill_value, first_as_default=False)[0]


# --- intersect1d --------------------------------------------------------------------------------

def _intersect_keep(ar1, ar2, *, assume_unique):
  """Sorted ``ar1``, its sorting permutation, and which entries are first of a value of
  ``ar2``."""
  srt1, perm1, first1 = _sorted_firsts(ar1, assume_unique)
  keep = lax.bitwise_and(first1, _in1d(srt1, ar2, method="compare_all", invert=False))
  return srt1, perm1, keep


_intersect_keep_jit = named_jit(_intersect_keep, "intersect1d",
                                static_argnames=("assume_unique",))


def _intersect(ar1, ar2, fill_value, *, size, assume_unique):
  """Sorted common values of ``ar1`` and ``ar2`` (padded to ``size``) and their first indices
  in each (``len(ar1)``/``len(ar2)`` in the padding)."""
  n1, n2 = _shape(ar1)[0], _shape(ar2)[0]
  srt1, perm1, keep = _intersect_keep(ar1, ar2, assume_unique=assume_unique)
  values, pos, valid = _compact(srt1, keep, size, fill_value)
  srt2, perm2, _ = _sorted_firsts(ar2, True)
  at2 = lax.min(searchsorted(srt2, values), np.int32(n2 - 1))
  idx1 = _where(valid, take(perm1, pos), np.asarray(n1, _dtype(perm1)))
  idx2 = _where(valid, take(perm2, at2), np.asarray(n2, _dtype(perm2)))
  return values, idx1, idx2


_intersect_jit = named_jit(_intersect, "intersect1d", static_argnames=("size", "assume_unique"))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
  """The sorted unique values in both ``ar1`` and ``ar2`` (flattened); with ``return_indices``
  also the index of each one's first occurrence in each input.

  With ``size``, the padding entries of the index arrays hold ``len(ar1)`` and ``len(ar2)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.intersect1d(jnp.array([3, 1, 2, 2]), jnp.array([2, 1, 5]), return_indices=True)
      (Array([1, 2], dtype=int32), Array([1, 2], dtype=int32), Array([1, 0], dtype=int32))
  """
  check_arraylike("intersect1d", ar1, ar2)
  _check_fill("intersect1d", fill_value)
  ar1, ar2 = promote_dtypes(ravel(ensure_array(ar1)), ravel(ensure_array(ar2)))
  n1, n2 = _shape(ar1)[0], _shape(ar2)[0]
  if n1 == 0 or n2 == 0:
    size = 0 if size is None else _static_size(size, "intersect1d")
    it = dtypes.default_int_dtype()
    values = lax.full((size,), 0 if fill_value is None else fill_value, _dtype(ar1))
    out = (values, lax.full((size,), n1, it), lax.full((size,), n2, it))
  else:
    if size is None:
      keep = _intersect_keep_jit(ar1, ar2, assume_unique=bool(assume_unique))[2]
      size = _output_size(None, keep, "intersect1d")
    out = _intersect_jit(ar1, ar2, fill_value, size=_static_size(size, "intersect1d"),
                         assume_unique=bool(assume_unique))
  return out if return_indices else out[0]


# --- setxor1d -----------------------------------------------------------------------------------

def _setxor_keep(ar1, ar2, *, assume_unique):
  """Sorted ``ar1 ++ ar2`` and whether each entry starts a run of one value found in exactly
  one input (runs of length one if ``assume_unique``)."""
  n1, n2 = _shape(ar1)[0], _shape(ar2)[0]
  values = lax.concatenate([ar1, ar2], 0)
  source = lax.concatenate([lax.full((n1,), 0, np.int32), lax.full((n2,), 1, np.int32)], 0)
  srt, src = lax.sort((values, source), dimension=0, num_keys=2)
  n = n1 + n2
  prev, nxt = lax.slice(srt, (0,), (n - 1,)), lax.slice(srt, (1,), (n,))
  first = lax.concatenate([lax.full((1,), True, np.bool_), lax.ne(nxt, prev)], 0)
  if assume_unique:
    new_pair = lax.full((n,), True, np.bool_)
  else:  # a value's first entry from each input
    new_pair = lax.bitwise_or(first, lax.concatenate(
        [lax.full((1,), True, np.bool_),
         lax.ne(lax.slice(src, (1,), (n,)), lax.slice(src, (0,), (n - 1,)))], 0))
  run = lax.sub(cumsum(lax._convert_element_type(first, np.int32)), np.int32(1))
  members = _scatter_add_1d(n, run, lax._convert_element_type(new_pair, np.int32), np.int32)
  keep = lax.bitwise_and(first, lax.eq(take(members, run), np.int32(1)))
  if not assume_unique and dtypes.is_inexact(_dtype(srt)):  # one NaN per input
    nan = _any_nan(srt)
    repeat = lax.bitwise_and(lax.bitwise_and(lax.slice(nan, (1,), (n,)),
                                             lax.slice(nan, (0,), (n - 1,))),
                             lax.eq(lax.slice(src, (1,), (n,)), lax.slice(src, (0,), (n - 1,))))
    keep = lax.bitwise_and(keep, lax.bitwise_not(
        lax.concatenate([lax.full((1,), False, np.bool_), repeat], 0)))
  return srt, keep


_setxor_keep_jit = named_jit(_setxor_keep, "setxor1d", static_argnames=("assume_unique",))


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  """The sorted unique values found in exactly one of ``ar1`` and ``ar2`` (flattened).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.setxor1d(jnp.array([3, 1, 2, 2]), jnp.array([2, 1, 5]))
      Array([3, 5], dtype=int32)
  """
  check_arraylike("setxor1d", ar1, ar2)
  _check_fill("setxor1d", fill_value)
  ar1, ar2 = promote_dtypes(ravel(ensure_array(ar1)), ravel(ensure_array(ar2)))
  srt, keep = _setxor_keep_jit(ar1, ar2, assume_unique=bool(assume_unique))
  size = _output_size(size, keep, "setxor1d")
  return _compact(srt, keep, size, fill_value)[0]
