"""ember.numpy indexing along an axis and adding/removing elements: ``take``,
``take_along_axis`` (static or traced indices, with JAX's ``mode``/``fill_value`` rules),
``insert``, ``delete`` and ``trim_zeros`` (which need concrete indices or values), and the
``_static_take`` helper that lowers a static index list to slices.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.take(jnp.arange(4.0), jnp.array([0, -1, 7]))
    Array([ 0.,  3., nan], dtype=float32)
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import canonicalize_axis, check_arraylike
from ember.numpy import _util
from ember.numpy.shape_ops import (_broadcast_to, _canonical_axes, _concrete, _dtype, _flip_jit,
                                   _ndim, _shape, _slice_axis, _wrap, broadcast_to, moveaxis, ravel,
                                   reshape)
from ember.transforms.jit import jit as _jit

__all__ = ["take", "take_along_axis", "trim_zeros", "insert", "delete"]

_range = builtins.range


# --- static take (also used by joining.py and padding.py) ---------------------------------------

def _static_take(x, idx: np.ndarray, axis: int):
  """``x`` indexed along ``axis`` by a static 1-D integer array, lowered to slices.

  Runs of consecutive (step +1), reversed (step -1) or repeated (step 0) indices become one
  slice each (reversed with ``rev``, repeated with ``broadcast_in_dim``), joined by
  ``concatenate``; no gather is emitted.
  """
  idx = [int(i) for i in idx]
  n = _shape(x)[axis]
  if idx == list(_range(n)):
    return _wrap(x)
  if not idx:
    return _slice_axis(x, 0, 0, axis)
  runs = []  # (first index, step, length)
  i = 0
  while i < len(idx):
    j, step = i + 1, 0
    if j < len(idx) and idx[j] - idx[i] in (-1, 0, 1):
      step = idx[j] - idx[i]
      while j < len(idx) and idx[j] - idx[j - 1] == step:
        j += 1
    runs.append((idx[i], step, j - i))
    i = j
  if len(runs) > 8:  # scattered indices: one gather beats many slices
    return _take_jit(x, np.asarray(idx, np.int32), axis=axis, mode="clip", fill_value=None,
                     unique_indices=False, indices_are_sorted=False)
  pieces = []
  for first, step, length in runs:
    if step == 1 or length == 1:
      piece = _slice_axis(x, first, first + length, axis, strides=True)
    elif step == -1:
      piece = _flip_jit(_slice_axis(x, first - length + 1, first + 1, axis, strides=True),
                        axes=(axis,))
    else:
      one = _slice_axis(x, first, first + 1, axis, strides=True)
      shp = list(_shape(one))
      shp[axis] = length
      piece = lax.broadcast_in_dim(one, tuple(shp), tuple(_range(len(shp))))
    pieces.append(piece)
  return pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)


# --- take ---------------------------------------------------------------------------------------

def _mode_enum(name: str):
  return getattr(lax.GatherScatterMode, name)


def _normalize_index(idx, n: int, use_where_jit: bool = True):
  """Negative indices counted from the end of an axis of length ``n``."""
  if dtypes.is_unsigned(_dtype(idx)):
    return idx
  dt = _dtype(idx)
  neg = lax.lt(idx, np.array(0, dt))
  wrapped = lax.add(idx, np.array(n, dt))
  if use_where_jit:
    from ember.numpy.searching import _where_jit
    return _where_jit(neg, wrapped, idx)
  return lax.select(neg, wrapped, idx)


def _take(a, indices, *, axis, mode, fill_value, unique_indices, indices_are_sorted):
  shp = _shape(a)
  n = shp[axis]
  if mode == "wrap":
    from ember.numpy import ufuncs
    indices = ufuncs.remainder(indices, np.array(n, _dtype(indices)) if n else 1)
    gmode = _mode_enum("PROMISE_IN_BOUNDS")
  elif mode == "clip":
    gmode = _mode_enum("CLIP")
  else:
    if mode == "fill":
      indices = _normalize_index(indices, n)
    gmode = _mode_enum("FILL_OR_DROP")
  idx_nd = _ndim(indices)
  idx = lax.broadcast_in_dim(indices, _shape(indices) + (1,), tuple(_range(idx_nd)))
  offset_dims = tuple(_range(axis)) + tuple(_range(axis + idx_nd, len(shp) + idx_nd - 1))
  dnums = lax.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                     start_index_map=(axis,), operand_batching_dims=(),
                                     start_indices_batching_dims=())
  slice_sizes = shp[:axis] + (1,) + shp[axis + 1:]
  return lax.gather(a, idx, dnums, slice_sizes, unique_indices=unique_indices,
                    indices_are_sorted=indices_are_sorted, mode=gmode,
                    fill_value=fill_value)


_take_jit = _jit(_take, static_argnames=("axis", "mode", "fill_value", "unique_indices",
                                         "indices_are_sorted"))


def _check_index_dtype(indices, fun_name: str):
  dt = _dtype(indices)
  if not dtypes.is_integer(dt):
    raise TypeError(f"{fun_name} indices must be of integer type, got {dt}")


def take(a, indices, axis: int | None = None, out=None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False, fill_value=None):
  """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array if None).

  Out-of-bound indices follow ``mode``: 'fill' (the default: NaN for inexact types, the
  minimum for signed and the maximum for unsigned integers, True for bool, or
  ``fill_value``), 'clip', or 'wrap'. Negative indices count from the end except in 'clip'.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.take(jnp.arange(4.0), jnp.array([0, -1, 7]))
      Array([ 0.,  3., nan], dtype=float32)
  """
  check_arraylike("take", a, indices)
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
  if axis is None:
    a = ravel(a)
    axis = 0
  axis = canonicalize_axis(axis, _ndim(a))
  if mode is None:
    mode = "fill"
  if mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
  if mode not in ("fill", "clip", "wrap"):
    raise ValueError(f"Invalid mode '{mode}' for np.take")
  if not dtypes.is_integer(_dtype(indices)):
    raise ValueError("indices must have an integer type")
  if _shape(a)[axis] == 0 and math.prod(_shape(indices)) != 0:
    raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
  if fill_value is not None:
    fill_value = _static_scalar(fill_value, "take")
  return _take_jit(a, indices, axis=axis, mode=mode, fill_value=fill_value,
                   unique_indices=bool(unique_indices),
                   indices_are_sorted=bool(indices_are_sorted))


def _static_scalar(v, fun_name: str):
  v = _concrete(v, f"{fun_name}: fill_value must be static")
  if v.shape != ():
    raise ValueError(f"{fun_name}: fill_value must be a scalar, got shape {v.shape}")
  return v.item()


def _take_along_axis(arr, indices, *, axis, mode, fill_value, wrap_negative):
  shp = _shape(arr)
  nd = len(shp)
  n = shp[axis]
  ishp = _shape(indices)
  if wrap_negative:
    indices = _normalize_index(indices, n, use_where_jit=False)
  # broadcast the non-axis dimensions of both operands together
  out_other = _util.broadcast_shapes(shp[:axis] + shp[axis + 1:], ishp[:axis] + ishp[axis + 1:])
  a_shape = out_other[:axis] + (n,) + out_other[axis:]
  i_shape = out_other[:axis] + (ishp[axis],) + out_other[axis:]
  arr = _broadcast_to(arr, a_shape)
  indices = _broadcast_to(indices, i_shape)
  idx = lax.reshape(indices, i_shape + (1,))
  batch = tuple(i for i in _range(nd) if i != axis)
  dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                     start_index_map=(axis,), operand_batching_dims=batch,
                                     start_indices_batching_dims=batch)
  gmode = {"clip": "CLIP", "promise_in_bounds": "PROMISE_IN_BOUNDS"}.get(mode, "FILL_OR_DROP")
  return lax.gather(arr, idx, dnums, (1,) * nd, mode=_mode_enum(gmode), fill_value=fill_value)


_take_along_axis_jit = _jit(_take_along_axis, static_argnames=("axis", "mode", "fill_value",
                                                               "wrap_negative"))
_take_along_axis_jit.__name__ = "take_along_axis"


def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
  """Pick values from ``arr`` at ``indices`` along ``axis`` (shapes broadcast elsewhere).

  Typically used with the output of :func:`argsort`. Negative indices count from the end
  (``wrap_negative_indices``, on by default except for ``mode='promise_in_bounds'``); indices
  still out of bounds follow ``mode``: 'fill' (the default: ``fill_value``, NaN for inexact
  types), 'clip' or 'promise_in_bounds'.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.array([[3, 1, 2]])
      >>> jnp.take_along_axis(x, jnp.argsort(x), axis=1)
      Array([[1, 2, 3]], dtype=int32)
  """
  check_arraylike("take_along_axis", arr, indices)
  if axis is None:
    if _ndim(indices) != 1:
      raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                       f"{_shape(indices)}")
    return take_along_axis(ravel(arr), indices, 0, mode=mode, fill_value=fill_value,
                           wrap_negative_indices=wrap_negative_indices)
  _check_index_dtype(indices, "take_along_axis")
  if _ndim(indices) != _ndim(arr):
    raise ValueError("indices and arr must have the same number of dimensions; "
                     f"{_ndim(indices)} vs. {_ndim(arr)}")
  axis = canonicalize_axis(axis, _ndim(arr))
  ishp, ashp = _shape(indices), _shape(arr)
  _util.broadcast_shapes(ishp, ashp[:axis] + (ishp[axis],) + ashp[axis + 1:])
  if ashp[axis] == 0:  # nothing to read: zeros of the result's shape, as JAX
    return lax.full(_util.broadcast_shapes(ishp, ashp[:axis] + (1,) + ashp[axis + 1:]), 0,
                    _dtype(arr))
  if isinstance(mode, str):
    mode = mode.lower()
  elif mode is not None:
    mode = getattr(mode, "name", str(mode)).lower()
    mode = {"fill_or_drop": "fill"}.get(mode, mode)
  if mode not in (None, "fill", "clip", "promise_in_bounds"):
    raise ValueError(f'Unknown gather mode "{mode}"')
  if fill_value is not None:
    fill_value = _static_scalar(fill_value, "take_along_axis")
  wrap = mode != "promise_in_bounds" if wrap_negative_indices is None \
      else bool(wrap_negative_indices)
  return _take_along_axis_jit(arr, indices, axis=axis, mode=mode, fill_value=fill_value,
                              wrap_negative=wrap)


# --- concrete-only helpers ----------------------------------------------------------------------

def trim_zeros(filt, trim: str = "fb", axis=None):
  """``filt`` without its leading ('f') and/or trailing ('b') zeros (needs concrete values).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.trim_zeros(jnp.array([0, 1, 0, 2, 0]))
      Array([1, 0, 2], dtype=int32)
  """
  check_arraylike("trim_zeros", filt)
  v = _concrete(filt, "Error arose in the `filt` argument of trim_zeros()")
  if v.ndim == 0:
    raise TypeError("0-d array cannot be trimmed")
  trim = trim.lower()
  axes = tuple(_range(v.ndim)) if axis is None else _canonical_axes(axis, v.ndim)
  starts, stops = [0] * v.ndim, list(v.shape)
  nz = np.nonzero(v)
  for ax in axes:
    if nz[0].size == 0:
      starts[ax], stops[ax] = 0, 0
      continue
    if "f" in trim:
      starts[ax] = int(nz[ax].min())
    if "b" in trim:
      stops[ax] = int(nz[ax].max()) + 1
  return lax.slice(filt, tuple(starts), tuple(stops))


def _index_list(obj, n: int, fun_name: str) -> np.ndarray:
  if isinstance(obj, slice):
    return np.arange(n)[obj]
  idx = _concrete(obj, f"jnp.{fun_name}(): index argument must be concrete")
  if idx.dtype == bool:
    raise ValueError(f"jnp.{fun_name}(): boolean index arrays are not supported")
  if idx.size and not np.issubdtype(idx.dtype, np.integer):
    raise IndexError(f"jnp.{fun_name}(): index arrays must be integers, got {idx.dtype}")
  return idx.astype(np.int64)


def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False):
  """``arr`` without the entries at ``obj`` (int, slice or concrete indices) along ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.delete(jnp.arange(5), jnp.array([1, 3]))
      Array([0, 2, 4], dtype=int32)
  """
  check_arraylike("delete", arr)
  if axis is None:
    arr = ravel(arr)
    axis = 0
  axis = canonicalize_axis(axis, _ndim(arr))
  n = _shape(arr)[axis]
  idx = _index_list(obj, n, "delete")
  bad = idx[(idx < -n) | (idx >= n)]
  if bad.size:  # JAX's messages: an int index is reported as if it were an axis
    if isinstance(obj, (int, np.integer)):
      raise ValueError(f"axis {obj} is out of bounds for array of dimension {n}")
    raise IndexError(f"index {bad.ravel()[0]} is out of bounds for axis {axis} with size {n}")
  keep = np.ones(n, bool)
  keep[idx % n if n else idx] = False
  return _static_take(arr, np.nonzero(keep)[0], axis)


def insert(arr, obj, values, axis: int | None = None):
  """``values`` inserted into ``arr`` before the (concrete) indices ``obj`` along ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.insert(jnp.arange(3), 1, 9)
      Array([0, 9, 1, 2], dtype=int32)
  """
  check_arraylike("insert", arr, values)
  if axis is None:
    arr = ravel(arr)
    axis = 0
  shp = _shape(arr)
  nd = len(shp)
  axis = canonicalize_axis(axis, nd)
  n = shp[axis]
  scalar_obj = not isinstance(obj, slice) and np.ndim(obj) == 0
  idx = _index_list(obj, n, "insert").ravel()
  idx = np.clip(np.where(idx < 0, idx + n, idx), 0, n)  # out-of-range indices clip, as in JAX
  values = lax._convert_element_type(values, _dtype(arr))
  vshape = _shape(values)
  if len(vshape) > nd:
    raise ValueError(f"jnp.insert: values of shape {vshape} have more dimensions than arr "
                     f"({nd})")
  values = reshape(values, (1,) * (nd - len(vshape)) + vshape)
  if scalar_obj:
    values = moveaxis(values, 0, axis)
    positions = np.full(_shape(values)[axis], idx[0])
  else:
    positions = idx
  target = list(shp)
  target[axis] = len(positions)
  values = broadcast_to(values, tuple(target))
  joined = lax.concatenate([arr, values], axis) if len(positions) else _wrap(arr)
  keys = np.concatenate([2 * np.arange(n) + 1, 2 * positions])
  return _static_take(joined, np.argsort(keys, kind="stable"), axis)
