"""ember.numpy sorting and searching: sort, argsort, lexsort, partition, argpartition,
sort_complex and searchsorted.

Floating-point keys sort in JAX's total order: ``-inf < ... < -0. < 0. < ... < inf < nan``.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.sort(jnp.array([3, 1, 2]))
    Array([1, 2, 3], dtype=int32)
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import canonicalize_axis, check_arraylike, promote_dtypes
from ember.numpy.shape_ops import _dtype, _ndim, _shape, _slice_axis, _wrap, ravel
from ember.numpy.taking import take
from ember.transforms.jit import jit as _jit

__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex",
           "searchsorted"]

_range = builtins.range


def _check_sort_kwargs(kind, order, fun_name: str):
  if kind is not None:
    raise TypeError(f"'kind' argument to {fun_name} is not supported. Use stable=True or "
                    "stable=False to specify sort stability.")
  if order is not None:
    raise TypeError(f"'order' argument to {fun_name} is not supported.")


def _rev(x, axis: int):
  return lax.rev(x, (axis,))


# --- sort / argsort ---------------------------------------------------------------------------

def _sort(a, *, axis, stable, descending):
  if axis is None:
    a, axis = ravel(a), 0
  out = lax.sort(a, dimension=axis, is_stable=stable, num_keys=1)
  return _rev(out, axis) if descending else out


_sort_jit = _jit(_sort, static_argnames=("axis", "stable", "descending"))
_sort_jit.__name__ = "sort"


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
  """A sorted copy of ``a`` along ``axis`` (the flattened array if None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0)
      Array([[0, 1],
             [3, 2]], dtype=int32)
  """
  check_arraylike("sort", a)
  _check_sort_kwargs(kind, order, "sort")
  if axis is not None:
    axis = canonicalize_axis(axis, _ndim(a))
  return _sort_jit(a, axis=axis, stable=bool(stable), descending=bool(descending))


def _argsort(a, *, axis, stable, descending, dtype):
  if axis is None:
    a, axis = ravel(a), 0
  idx = lax.broadcasted_iota(dtype, _shape(a), axis)
  if descending:
    a, idx = _rev(a, axis), _rev(idx, axis)
  _, perm = lax.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
  return _rev(perm, axis) if descending else perm


_argsort_jit = _jit(_argsort, static_argnames=("axis", "stable", "descending", "dtype"))
_argsort_jit.__name__ = "argsort"


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
  """The indices that sort ``a`` along ``axis`` (ties keep their order when ``stable``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argsort(jnp.array([3, 1, 2]))
      Array([1, 2, 0], dtype=int32)
  """
  check_arraylike("argsort", a)
  _check_sort_kwargs(kind, order, "argsort")
  if axis is not None:
    axis = canonicalize_axis(axis, _ndim(a))
  dt = np.dtype(np.int32) if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, "argsort")
  if dtype is None and dtypes.canonicalize_dtype(np.int64) == np.int64:
    dt = np.dtype(np.int64)
  return _argsort_jit(a, axis=axis, stable=bool(stable), descending=bool(descending), dtype=dt)


def sort_complex(a):
  """``a`` sorted along its last axis (real part first, then imaginary), as a complex array.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sort_complex(jnp.array([3, 1, 2]))
      Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
  """
  check_arraylike("sort_complex", a)
  out = sort(a, axis=-1 if _ndim(a) else None)
  dt = dtypes.to_complex_dtype(_dtype(out))
  return lax._convert_element_type(out, dt)


def _lexsort(*keys, axis):
  shp = _shape(keys[0])
  idx = lax.broadcasted_iota(dtypes.default_int_dtype(), shp, axis)
  outs = lax.sort(tuple(keys[::-1]) + (idx,), dimension=axis, is_stable=True,
                  num_keys=len(keys))
  return outs[-1]


_lexsort_jit = _jit(_lexsort, static_argnames=("axis",))
_lexsort_jit.__name__ = "lexsort"


def lexsort(keys, axis: int = -1):
  """Indirect stable sort by several keys; the LAST key is the primary one.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.lexsort([jnp.array([1, 0, 1]), jnp.array([2, 2, 1])])
      Array([2, 1, 0], dtype=int32)
  """
  if isinstance(keys, (list, tuple)):
    keys = list(keys)
  else:
    check_arraylike("lexsort", keys)
    n = _shape(keys)[0] if _ndim(keys) else 0
    keys = [lax.squeeze(lax.slice(keys, (i,) + (0,) * (_ndim(keys) - 1),
                                  (i + 1,) + _shape(keys)[1:]), (0,)) for i in _range(n)]
  if not keys:
    raise TypeError("need sequence of keys with len > 0 in lexsort")
  check_arraylike("lexsort", *keys)
  if len({_shape(k) for k in keys}) != 1:
    raise ValueError("all keys need to be the same shape")
  if _ndim(keys[0]) == 0:
    return _wrap(np.zeros((), dtypes.default_int_dtype()))
  axis = canonicalize_axis(axis, _ndim(keys[0]))
  return _lexsort_jit(*keys, axis=axis)


# --- partition ----------------------------------------------------------------------------------

def _kth(kth, n: int) -> int:
  k = operator.index(kth)
  if not -n <= k < n:
    raise ValueError(f"kth(={kth}) out of bounds for an axis of length {n}")
  return k % n


def partition(a, kth: int, axis: int = -1):
  """``a`` rearranged so that the ``kth`` element is where a full sort would put it.

  The first ``kth + 1`` entries are the smallest values in ascending order; the rest are
  the larger values in descending order (as JAX's top-k based implementation returns them).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2)
      Array([1, 2, 3, 5, 4], dtype=int32)
  """
  check_arraylike("partition", a)
  axis = canonicalize_axis(axis, _ndim(a))
  k = _kth(kth, _shape(a)[axis])
  return _partition_jit(a, kth=k, axis=axis)


def _partition(a, *, kth, axis):
  s = lax.sort(a, dimension=axis, is_stable=True, num_keys=1)
  n = _shape(a)[axis]
  low = _slice_axis(s, 0, kth + 1, axis)
  if kth + 1 == n:
    return low
  high = _rev(_slice_axis(s, kth + 1, n, axis), axis)
  return lax.concatenate([low, high], axis)


_partition_jit = _jit(_partition, static_argnames=("kth", "axis"))
_partition_jit.__name__ = "partition"


def argpartition(a, kth: int, axis: int = -1):
  """Indices that partition ``a`` as :func:`partition` does.

  The first ``kth + 1`` are the indices of the smallest values in ascending value order; the
  rest are the remaining indices in increasing order.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 2)
      Array([1, 3, 4, 0, 2], dtype=int32)
  """
  check_arraylike("argpartition", a)
  axis = canonicalize_axis(axis, _ndim(a))
  k = _kth(kth, _shape(a)[axis])
  return _argpartition_jit(a, kth=k, axis=axis)


def _argpartition(a, *, kth, axis):
  idx = lax.broadcasted_iota(np.int32, _shape(a), axis)
  _, perm = lax.sort((a, idx), dimension=axis, is_stable=True, num_keys=1)
  n = _shape(a)[axis]
  low = _slice_axis(perm, 0, kth + 1, axis)
  if kth + 1 == n:
    return low
  high = lax.sort(_slice_axis(perm, kth + 1, n, axis), dimension=axis, is_stable=True,
                  num_keys=1)
  return lax.concatenate([low, high], axis)


_argpartition_jit = _jit(_argpartition, static_argnames=("kth", "axis"))
_argpartition_jit.__name__ = "argpartition"


# --- searchsorted -------------------------------------------------------------------------------

def _canonicalize_float(x):
  """-0. -> 0. so that the two zeros compare equal in the total order."""
  dt = _dtype(x)
  if dtypes.is_complex(dt):
    re = _canonicalize_float(lax.real(x))
    im = _canonicalize_float(lax.imag(x))
    return lax.complex(re, im)
  if not dtypes.is_float(dt):
    return x
  zero = np.zeros((), dt)
  return lax.select(lax.eq(x, zero), lax.full(_shape(x), 0, dt), x)


def _isnan(x):
  return lax.ne(x, x)


def _total_lt(x, y):
  """``x < y`` in the total order used for sorting (NaN is the largest value)."""
  dt = _dtype(x)
  if dtypes.is_complex(dt):
    xr, xi, yr, yi = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
    return lax.bitwise_or(_total_lt(xr, yr),
                          lax.bitwise_and(_total_eq(xr, yr), _total_lt(xi, yi)))
  if dtypes.is_float(dt):
    return lax.bitwise_or(lax.lt(x, y),
                          lax.bitwise_and(lax.bitwise_not(_isnan(x)), _isnan(y)))
  if dtypes.is_bool(dt):
    return lax.bitwise_and(lax.bitwise_not(x), y)
  return lax.lt(x, y)


def _total_eq(x, y):
  dt = _dtype(x)
  if dtypes.is_float(dt):
    return lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(_isnan(x), _isnan(y)))
  return lax.eq(x, y)


def _total_le(x, y):
  return lax.bitwise_not(_total_lt(y, x))


def _searchsorted_compare_all(a, v, side):
  n = _shape(a)[0]
  vs = _shape(v)
  av = lax.broadcast_in_dim(a, (n,) + vs, (0,))
  vv = lax.broadcast_in_dim(v, (n,) + vs, tuple(_range(1, len(vs) + 1)))
  cmp = _total_lt(av, vv) if side == "left" else _total_le(av, vv)
  return lax.reduce_sum(lax._convert_element_type(cmp, np.int32), (0,))


def _searchsorted_bisect(a, v, side):
  """Binary search with a static number of steps (``n.bit_length()``), fully unrolled."""
  n = _shape(a)[0]
  vs = _shape(v)
  low = lax.full(vs, 0, np.int32)
  high = lax.full(vs, n, np.int32)
  one = np.int32(1)
  for _ in _range(n.bit_length()):
    active = lax.lt(low, high)
    mid = lax.div(lax.add(low, high), np.int32(2))
    val = take(a, mid, mode="clip")
    go_right = _total_lt(val, v) if side == "left" else _total_le(val, v)
    right = lax.bitwise_and(active, go_right)
    left = lax.bitwise_and(active, lax.bitwise_not(go_right))
    low = lax.select(right, lax.add(mid, one), low)
    high = lax.select(left, mid, high)
  return low


def _searchsorted(a, v, *, side, method):
  a, v = promote_dtypes(a, v)
  a, v = _canonicalize_float(a), _canonicalize_float(v)
  if _shape(a)[0] == 0:
    return lax.full(_shape(v), 0, np.int32)
  if method == "compare_all":
    return _searchsorted_compare_all(a, v, side)
  return _searchsorted_bisect(a, v, side)


_searchsorted_jit = _jit(_searchsorted, static_argnames=("side", "method"))
_searchsorted_jit.__name__ = "searchsorted"

_METHODS = ["compare_all", "scan", "scan_unrolled", "sort"]


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
  """Indices where ``v`` would be inserted into the sorted 1-D ``a`` to keep it sorted.

  ``side='left'`` gives the first suitable index, ``'right'`` the last. ``method`` picks the
  algorithm ('scan' and 'scan_unrolled': binary search; 'compare_all' and 'sort': compare
  every pair); all give the same result.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 0, 5]))
      Array([1, 0, 4], dtype=int32)
  """
  check_arraylike("searchsorted", a, v)
  if side not in ("left", "right"):
    raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
  if method not in _METHODS:
    raise ValueError(f"invalid argument method={method!r}, expected one of {_METHODS}")
  if _ndim(a) != 1:
    raise ValueError("a should be 1-dimensional")
  if sorter is not None:
    a = take(a, sorter)
  method = "compare_all" if method in ("compare_all", "sort") else "bisect"
  return _searchsorted_jit(a, v, side=side, method=method)
