"""lax's structural functions: broadcasting, reshaping, slicing, padding, iota, gather/scatter.

Static arguments (shapes, axes, permutations, slice bounds) must be concrete Python or NumPy
integers; a traced value there is a TypeError naming the problem, as in JAX. No type promotion
happens here: operands that must share a dtype (``concatenate``, ``pad``,
``dynamic_update_slice``, ``scatter``) must already do.

Example:
    >>> from ember import lax
    >>> import numpy as np
    >>> lax.pad(np.arange(3, dtype=np.int32), np.int32(0), [(1, 0, 1)])
    Array([0, 0, 0, 1, 0, 2], dtype=int32)
"""
from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings
from typing import Callable

import numpy as np

from ember import dtypes
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.backend.array import Array, ArrayImpl, _host_value, device_put_value
from ember.backend import client as backend_client
from ember.primitives import elementwise as ew
from ember.primitives import structural as st
from ember.primitives import indexing as ix
from ember.primitives.indexing import (GatherDimensionNumbers, ScatterDimensionNumbers,
                                       GatherScatterMode)
from ember.transforms.jit import jit
from ember.transforms.staging import staged_scalar
from ember.backend.sharding import check_out_sharding

__all__ = [
    "broadcast", "broadcast_in_dim", "broadcast_to_rank", "broadcast_shapes", "reshape",
    "squeeze", "expand_dims", "transpose", "rev", "slice", "slice_in_dim", "index_in_dim",
    "dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_slice",
    "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "concatenate", "split",
    "pad", "iota",
    "broadcasted_iota", "full", "full_like", "collapse", "gather", "scatter", "scatter_add",
    "scatter_sub", "scatter_mul", "scatter_min", "scatter_max", "scatter_apply",
    "GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode",
]


# --- static arguments -------------------------------------------------------------------------


def _shape_error(shape, context: str = "") -> TypeError:
  msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
  if context:
    msg += f" {context}."
  tracers = [d for d in (shape if isinstance(shape, (tuple, list)) else (shape,))
             if isinstance(d, core.Tracer) and core.concrete_value(d) is None]
  if tracers:
    msg += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to smaller "
            "subfunctions.")
    for t in tracers:
      origin = t._origin_msg()
      if origin:
        msg += "\n" + origin
  return TypeError(msg)


def _dim(d) -> int:
  if isinstance(d, (float, complex, np.floating, np.complexfloating)):
    raise TypeError(d)
  if isinstance(d, (np.ndarray, Array)) and not dtypes.is_integer(d.dtype):
    raise TypeError(d)
  return operator.index(d)


def canonicalize_shape(shape, context: str = "") -> tuple[int, ...]:
  """``shape`` (an int or a sequence of ints) as a tuple of Python ints.

  Example:
      >>> canonicalize_shape([2, np.int64(3)])
      (2, 3)
  """
  if isinstance(shape, (tuple, list)):
    seq = shape
  elif isinstance(shape, np.ndarray) and shape.ndim == 1:
    seq = list(shape)
  else:
    seq = (shape,)
  try:
    return tuple(_dim(d) for d in seq)
  except Exception:  # noqa: BLE001 -- any failure means "not a concrete integer"
    raise _shape_error(shape if isinstance(shape, (tuple, list)) else tuple(seq),
                       context) from None


def _ints(seq, what: str) -> tuple[int, ...]:
  """A static sequence of ints (axes, permutations, slice bounds) as a tuple."""
  try:
    items = list(seq)
  except TypeError:
    raise TypeError(f"{what} must be a sequence of integers, got {seq!r}.") from None
  if any(isinstance(d, core.Tracer) for d in items):
    return tuple(operator.index(d) for d in items)  # raises the tracer's own error
  try:
    return tuple(operator.index(d) for d in items)
  except TypeError:
    raise TypeError(f"{what} must be a sequence of integers, got {seq!r}.") from None


def _canonicalize_axis(axis, ndim: int) -> int:
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim if ndim else axis


def _aval(x) -> ShapedArray:
  return core.get_aval(x)


def _to_array(x):
  """``x`` as an ember array (arrays and tracers pass through)."""
  if isinstance(x, Array):
    return x
  aval = _aval(x)
  return device_put_value(np.asarray(x, aval.dtype), aval, backend_client.default_device())


# --- broadcasting -----------------------------------------------------------------------------

def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
  """Broadcast ``operand`` to ``shape``; operand dimension ``i`` becomes output dimension
  ``broadcast_dimensions[i]`` (of equal size, or size 1 stretched).

  Example:
      >>> broadcast_in_dim(np.float32(1), (2,), ())
      Array([1., 1.], dtype=float32)
  """
  if out_sharding is not None:
    check_out_sharding("broadcast_in_dim", out_sharding)
  aval = _aval(operand)
  shape = canonicalize_shape(shape)
  dims = _ints(broadcast_dimensions, "broadcast_in_dim broadcast_dimensions")
  if isinstance(operand, Array) and aval.shape == shape and dims == tuple(range(aval.ndim)) \
      and out_sharding is None:
    return operand
  return st.broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                    sharding=None)


def broadcast(operand, sizes, *, out_sharding=None):
  """Add leading dimensions of ``sizes`` to ``operand``.

  Example:
      >>> broadcast(np.int32(3), (2,))
      Array([3, 3], dtype=int32)
  """
  if out_sharding is not None:  # JAX names the op it binds
    check_out_sharding("broadcast_in_dim", out_sharding)
  sizes = canonicalize_shape(sizes)
  if not sizes and out_sharding is None:
    return _to_array(operand)
  aval = _aval(operand)
  dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
  return broadcast_in_dim(operand, sizes + aval.shape, dims)


def broadcast_to_rank(x, rank: int):
  """Add leading size-1 dimensions to ``x`` until it has rank ``rank``.

  Example:
      >>> broadcast_to_rank(np.arange(3, dtype=np.int32), 2)
      Array([[0, 1, 2]], dtype=int32)
  """
  ndim = _aval(x).ndim
  if ndim == rank:
    return _to_array(x)
  return broadcast(x, (1,) * (operator.index(rank) - ndim))


def broadcast_shapes(*shapes):
  """The NumPy broadcast of ``shapes``.

  Example:
      >>> broadcast_shapes((2, 1), (3,))
      (2, 3)
  """
  shapes = [canonicalize_shape(s) for s in shapes]
  if not shapes:
    return ()
  rank = builtins.max(len(s) for s in shapes)
  padded = [(1,) * (rank - len(s)) + s for s in shapes]
  out = []
  for sizes in zip(*padded):
    non_one = {d for d in sizes if d != 1}
    if len(non_one) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
    out.append(non_one.pop() if non_one else 1)
  return tuple(out)


# --- reshaping --------------------------------------------------------------------------------

def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
  """Reshape ``operand`` (after transposing it by ``dimensions``, if given) to ``new_sizes``.

  Example:
      >>> reshape(np.arange(6, dtype=np.int32), (2, 3)).shape
      (2, 3)
  """
  if out_sharding is not None:
    check_out_sharding("reshape", out_sharding)
  new_sizes = canonicalize_shape(new_sizes)
  aval = _aval(operand)
  dims = None if dimensions is None else _ints(dimensions, "reshape dimensions")
  if dims is not None and dims == tuple(range(aval.ndim)):
    dims = None
  if isinstance(operand, Array) and aval.shape == new_sizes and dims is None:
    return operand
  return st.reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=None)


def squeeze(array, dimensions):
  """Remove the size-1 ``dimensions`` of ``array``.

  Example:
      >>> squeeze(np.zeros((1, 2), np.float32), (0,)).shape
      (2,)
  """
  ndim = _aval(array).ndim
  dims = tuple(sorted(_canonicalize_axis(d, ndim) for d in dimensions))
  if not dims and isinstance(array, Array):
    return array
  return st.squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions):
  """Insert size-1 dimensions at positions ``dimensions`` of the result.

  Example:
      >>> expand_dims(np.zeros(2, np.float32), (0, 2)).shape
      (1, 2, 1)
  """
  dimensions = _ints(dimensions, "expand_dims dimensions")
  if len(set(dimensions)) != len(dimensions):
    raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
  aval = _aval(array)
  ndim_out = aval.ndim + len(dimensions)
  dims = [_canonicalize_axis(d, ndim_out) for d in dimensions]
  if len(set(dims)) != len(dims):
    raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
  shape = list(aval.shape)
  for d in sorted(dims):
    shape.insert(d, 1)
  kept = tuple(i for i in range(ndim_out) if i not in dims)
  return broadcast_in_dim(array, tuple(shape), kept)


def transpose(operand, permutation):
  """Permute the dimensions of ``operand``: output dim ``i`` is input dim ``permutation[i]``.

  Example:
      >>> transpose(np.zeros((2, 3), np.float32), (1, 0)).shape
      (3, 2)
  """
  perm = _ints(np.asarray(permutation).tolist() if isinstance(permutation, np.ndarray)
               else permutation, "transpose permutation")
  if isinstance(operand, Array) and perm == tuple(range(_aval(operand).ndim)):
    return operand
  return st.transpose_p.bind(operand, permutation=perm)


def rev(operand, dimensions):
  """Reverse ``operand`` along ``dimensions`` (nonnegative axes).

  Example:
      >>> rev(np.arange(3, dtype=np.int32), (0,))
      Array([2, 1, 0], dtype=int32)
  """
  return st.rev_p.bind(operand, dimensions=_ints(dimensions, "rev dimensions"))


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
  """Merge dimensions ``start_dimension:stop_dimension`` of ``operand`` into one.

  Example:
      >>> collapse(np.zeros((2, 3, 4), np.float32), 1).shape
      (2, 12)
  """
  shape = _aval(operand).shape
  lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
  if hi < lo:
    raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                     f"[{start_dimension}:{stop_dimension}]")
  size = math.prod(shape[lo:hi])
  return reshape(operand, shape[:lo] + (size,) + shape[hi:])


# --- static slicing ---------------------------------------------------------------------------

def slice(operand, start_indices, limit_indices, strides=None):
  """``operand[start:limit:stride]`` along every dimension, with static bounds.

  Example:
      >>> slice(np.arange(5, dtype=np.int32), (1,), (5,), (2,))
      Array([1, 3], dtype=int32)
  """
  start = _ints(start_indices, "slice start_indices")
  limit = _ints(limit_indices, "slice limit_indices")
  strides = None if strides is None else _ints(strides, "slice strides")
  return st.slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
  """``slice`` along the single dimension ``axis``; negative bounds count from the end.

  Example:
      >>> slice_in_dim(np.arange(4, dtype=np.int32), -3, None)
      Array([1, 2, 3], dtype=int32)
  """
  shape = _aval(operand).shape
  ndim = len(shape)
  axis = _canonicalize_axis(axis, ndim)
  size = shape[axis]
  start = 0 if start_index is None else operator.index(start_index)
  limit = size if limit_index is None else operator.index(limit_index)
  start = start + size if start < 0 else start
  limit = limit + size if limit < 0 else limit
  starts, limits, strides = [0] * ndim, list(shape), [1] * ndim
  starts[axis], limits[axis], strides[axis] = start, limit, operator.index(stride)
  return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
  """The ``index``-th entry of ``operand`` along ``axis`` (kept as a size-1 axis by default).

  Example:
      >>> index_in_dim(np.arange(3, dtype=np.int32), -1, keepdims=False)
      Array(2, dtype=int32)
  """
  index, axis = operator.index(index), operator.index(axis)
  size = _aval(operand).shape[axis]
  wrapped = index + size if index < 0 else index
  if not 0 <= wrapped < size:
    raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
  result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
  return result if keepdims else squeeze(result, (axis,))


# --- dynamic slicing --------------------------------------------------------------------------

def _index_dtype(i) -> np.dtype:
  if type(i) is int:
    return dtypes.default_int_dtype()
  return dtypes.dtype(i, canonicalize=True)


def _static_index(value: int, dt) -> np.ndarray:
  if dtypes.is_integer(dt):
    info = np.iinfo(dt)
    if not info.min <= value <= info.max:
      raise OverflowError(f"Python int {value} too large to convert to {np.dtype(dt).name}")
  return np.array(value, dt)


def _normalize_index(i, size: int, allow_negative: bool):
  """One start index of a dynamic slice, negative values counting from the end (as JAX)."""
  dt = _index_dtype(i)
  if dtypes.is_unsigned(dt) or not dtypes.is_integer(dt):
    return i  # unsigned: never negative; not an integer: the primitive reports it
  if isinstance(i, (int, np.integer)):
    v = int(i)
    if v < 0 and not allow_negative:
      raise ValueError(f"Index {v} is out of bounds for dimension {size} if "
                       "allow_negative_indices=False")
    return _static_index(v + size if v < 0 else v, dt)
  if not allow_negative:
    return i
  eager = core.current_trace() is core.EVAL_TRACE
  if eager and isinstance(i, (np.ndarray, ArrayImpl)):
    v = int(_host_value(i)[()] if type(i) is ArrayImpl else i[()])
    return np.asarray(v + size if v < 0 else v).astype(dt)
  if isinstance(i, np.ndarray):  # staged like JAX: the comparison happens in NumPy
    pred = np.bool_(i[()] < 0)
  else:
    pred = ew.lt_p.bind(i, np.array(0, dt))
  j = i
  if _aval(i).weak_type:
    j = ew.convert_element_type_p.bind(i, new_dtype=dt, weak_type=False, sharding=None)
  return ew.select_n_p.bind(pred, i, ew.add_p.bind(j, np.array(size, dt)))


def _split_index_array(idx) -> list:
  if isinstance(idx, np.ndarray):
    return list(idx)
  if type(idx) is ArrayImpl and core.current_trace() is core.EVAL_TRACE:
    return list(_host_value(idx))
  return [st.squeeze_p.bind(st.slice_p.bind(idx, start_indices=(k,), limit_indices=(k + 1,),
                                            strides=(1,)), dimensions=(0,))
          for k in range(_aval(idx).shape[0])]


def _dynamic_slice_indices(shape, start_indices, allow_negative_indices) -> list:
  if len(start_indices) != len(shape):
    raise ValueError("Length of slice indices must match number of operand dimensions "
                     f"({len(start_indices)} vs {shape})")
  if isinstance(start_indices, (np.ndarray, Array)):
    if start_indices.ndim != 1:
      raise ValueError(f"Slice indices must be a 1D sequence, got {start_indices.shape}")
    start_indices = _split_index_array(start_indices)
  if isinstance(allow_negative_indices, bool):
    allow_negative_indices = [allow_negative_indices] * len(start_indices)
  return [_normalize_index(i, d, bool(a))
          for i, d, a in zip(start_indices, shape, allow_negative_indices)]


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
  """The ``slice_sizes`` window of ``operand`` starting at (possibly traced) ``start_indices``.

  Start indices are clamped so the window stays in bounds; negative ones count from the end.

  Example:
      >>> dynamic_slice(np.arange(5, dtype=np.int32), (4,), (2,))
      Array([3, 4], dtype=int32)
  """
  shape = _aval(operand).shape
  idx = _dynamic_slice_indices(shape, start_indices, allow_negative_indices)
  sizes = canonicalize_shape(slice_sizes)
  return st.dynamic_slice_p.bind(operand, *idx, slice_sizes=sizes)


def _zero_like_index(i):
  if type(i) in (int, float, complex, bool):
    return type(i)(0)
  return _index_dtype(i).type(0)


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
  """``dynamic_slice`` along the single dimension ``axis``.

  Example:
      >>> dynamic_slice_in_dim(np.arange(5, dtype=np.int32), 1, 2)
      Array([1, 2], dtype=int32)
  """
  shape = _aval(operand).shape
  starts = [_zero_like_index(start_index)] * len(shape)
  sizes = list(shape)
  axis = operator.index(axis)
  starts[axis] = start_index
  sizes[axis] = canonicalize_shape((slice_size,))[0]
  return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


@functools.partial(jit, static_argnames=("axis", "keepdims", "allow_negative_indices"))
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
  """The ``index``-th (possibly traced) entry of ``operand`` along ``axis``.

  Example:
      >>> dynamic_index_in_dim(np.arange(3, dtype=np.int32), 1, keepdims=False)
      Array(1, dtype=int32)
  """
  result = dynamic_slice_in_dim(operand, index, 1, axis,
                                allow_negative_indices=allow_negative_indices)
  return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
  """``operand`` with the window at ``start_indices`` replaced by ``update`` (start indices
  clamped so that ``update`` fits).

  Example:
      >>> dynamic_update_slice(np.zeros(4, np.int32), np.ones(2, np.int32), (3,))
      Array([0, 0, 1, 1], dtype=int32)
  """
  shape = _aval(operand).shape
  idx = _dynamic_slice_indices(shape, start_indices, allow_negative_indices)
  return st.dynamic_update_slice_p.bind(operand, update, *idx)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
  """``dynamic_update_slice`` at ``start_index`` along ``axis`` (0 along the others).

  Example:
      >>> dynamic_update_slice_in_dim(np.zeros((2, 3), np.int32), np.ones((2, 1), np.int32),
      ...                             2, axis=1)
      Array([[0, 0, 1],
             [0, 0, 1]], dtype=int32)
  """
  axis = operator.index(axis)
  starts = [_zero_like_index(start_index)] * _aval(operand).ndim
  starts[axis] = start_index
  return dynamic_update_slice(operand, update, starts,
                              allow_negative_indices=allow_negative_indices)


@functools.partial(jit, static_argnames=("axis", "allow_negative_indices"))
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
  """Replace the ``index``-th entry of ``operand`` along ``axis`` by ``update`` (which may
  lack that axis).

  Example:
      >>> dynamic_update_index_in_dim(np.zeros((2, 3), np.int32), np.ones(3, np.int32), 1, 0)
      Array([[0, 0, 0],
             [1, 1, 1]], dtype=int32)
  """
  axis = operator.index(axis)
  if _aval(update).ndim != _aval(operand).ndim:
    update = expand_dims(update, (axis,))
  return dynamic_update_slice_in_dim(operand, update, index, axis,
                                     allow_negative_indices=allow_negative_indices)


# --- joining and padding ----------------------------------------------------------------------

def concatenate(operands, dimension: int):
  """Join ``operands`` (of one dtype) along ``dimension``.

  Example:
      >>> x = np.arange(2, dtype=np.int32)
      >>> concatenate([x, x], 0)
      Array([0, 1, 0, 1], dtype=int32)
  """
  operands = list(operands)
  if not operands:
    raise ValueError("concatenate requires a non-empty sequences of arrays")
  if len(operands) == 1 and isinstance(operands[0], Array):
    return operands[0]
  return st.concatenate_p.bind(*operands, dimension=operator.index(dimension))


def split(operand, sizes, axis: int = 0) -> list:
  """Cut ``operand`` along ``axis`` into pieces of ``sizes`` (which sum to that dimension).

  Example:
      >>> split(np.arange(3, dtype=np.int32), (1, 2))
      [Array([0], dtype=int32), Array([1, 2], dtype=int32)]
  """
  operand = _to_array(operand)
  sizes = tuple(sizes)
  for n in sizes:
    operator.index(n)
  return list(st.split_p.bind(operand, sizes=sizes,
                              axis=_canonicalize_axis(axis, _aval(operand).ndim)))


def pad(operand, padding_value, padding_config):
  """Pad ``operand`` with ``padding_value``: ``padding_config`` holds one
  ``(low, high, interior)`` triple per dimension; negative low/high crop.

  Example:
      >>> pad(np.arange(3, dtype=np.int32), np.int32(9), [(-1, 1, 0)])
      Array([1, 2, 9], dtype=int32)
  """
  try:
    # NumPy integers stay as given (JAX's jaxprs print them so: ``np.int64(1)``)
    config = tuple(tuple(v if isinstance(v, np.integer) else operator.index(v) for v in c)
                   for c in padding_config)
  except TypeError:
    if any(isinstance(v, core.Tracer) for c in padding_config for v in c):
      raise
    raise TypeError("padding_config must be a sequence of (low, high, interior) integer "
                    f"triples, got {padding_config!r}") from None
  return st.pad_p.bind(operand, padding_value, padding_config=config)


# --- creation ---------------------------------------------------------------------------------

def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
  """An array of ``shape`` whose values count 0, 1, ... along ``dimension``.

  Example:
      >>> broadcasted_iota(np.int32, (2, 3), 1)
      Array([[0, 1, 2],
             [0, 1, 2]], dtype=int32)
  """
  if out_sharding is not None:
    check_out_sharding("broadcasted_iota", out_sharding)
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "broadcasted_iota")
  shape = canonicalize_shape(shape)
  return st.iota_p.bind(dtype=dtype, shape=shape, dimension=operator.index(dimension),
                        sharding=None)


def iota(dtype, size: int):
  """``[0, 1, ..., size - 1]`` of ``dtype``.

  Example:
      >>> iota(np.float32, 3)
      Array([0., 1., 2.], dtype=float32)
  """
  return broadcasted_iota(dtype, (size,), 0)


def _scalar_of(value, dtype, weak: bool):
  """``value`` converted to ``dtype`` (weakly typed if ``weak``), as an operand to bind."""
  aval = _aval(value)
  if aval.dtype == dtype and aval.weak_type == weak:
    return value
  if isinstance(value, core.Tracer):
    return ew.convert_element_type_p.bind(value, new_dtype=dtype, weak_type=weak, sharding=None)
  host = _host_value(value) if type(value) is ArrayImpl else np.asarray(value)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    host = host.astype(dtype)
  if weak:
    py = {"i": int, "f": float, "c": complex}.get(host.dtype.kind)
    if py is not None and dtypes.canonicalize_dtype(py) == host.dtype:
      return py(host.item())  # a Python scalar: a weak literal in jaxprs, as in JAX
    return device_put_value(host, ShapedArray((), dtype, True), backend_client.default_device())
  return host


def full(shape, fill_value, dtype=None, *, sharding=None):
  """An array of ``shape`` filled with the scalar ``fill_value`` (cast to ``dtype``).

  Example:
      >>> full((2,), 1.5)
      Array([1.5, 1.5], dtype=float32, weak_type=True)
  """
  shape = canonicalize_shape(shape)
  fill_aval = _aval(fill_value)
  if fill_aval.shape:
    raise TypeError("full must be called with scalar fill_value, got fill_value.shape "
                    f"{fill_aval.shape}.")
  weak = dtype is None and dtypes.is_weakly_typed(fill_value)
  dtype = fill_aval.dtype if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, "full")
  value = _scalar_of(fill_value, dtype, weak)
  if not shape:
    staged = None if isinstance(value, core.Tracer) else \
        staged_scalar(value, ShapedArray((), dtype, weak))
    return _to_array(value) if staged is None else staged
  return st.broadcast_in_dim_p.bind(value, shape=shape, broadcast_dimensions=(), sharding=None)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  """An array like ``x`` (its shape and dtype, unless given) filled with ``fill_value``.

  Example:
      >>> full_like(np.zeros(2, np.int8), 3)
      Array([3, 3], dtype=int8)
  """
  aval = _aval(x)
  fill_shape = aval.shape if shape is None else canonicalize_shape(shape)
  weak = dtype is None and aval.weak_type
  dtype = aval.dtype if dtype is None else dtypes.check_and_canonicalize_user_dtype(
      dtype, "full_like")
  from ember.primitives.collectives import vary_like
  return vary_like(full(fill_shape, _scalar_of(fill_value, dtype, weak)), x)


# --- gather and scatter -----------------------------------------------------------------------

def _dnums(dn, cls):
  if not isinstance(dn, cls):
    raise TypeError(f"dimension_numbers must be a lax.{cls.__name__}, got {dn!r} of type "
                    f"{type(dn).__name__}.")
  return cls(*(tuple(operator.index(d) for d in f) for f in dn))


def _default_fill_value(dt):
  if dtypes.is_inexact(dt):
    return np.nan
  if dtypes.is_unsigned(dt):
    return int(np.iinfo(dt).max)
  if dtypes.is_integer(dt):
    return int(np.iinfo(dt).min)
  return True


def _static_fill(fill_value):
  if isinstance(fill_value, core.Tracer) and core.concrete_value(fill_value) is None:
    raise TypeError("gather fill_value must be a concrete scalar, not a traced value.")
  if isinstance(fill_value, Array):
    return np.asarray(fill_value)[()]
  if isinstance(fill_value, np.ndarray):
    return fill_value[()]
  return fill_value


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
  """XLA's gather: one ``slice_sizes`` window of ``operand`` per index vector (the last axis
  of ``start_indices``), laid out by ``dimension_numbers``.

  ``mode`` defaults to PROMISE_IN_BOUNDS (XLA clamps); 'fill' returns ``fill_value`` (NaN,
  the int minimum, the uint maximum or True by default) for out-of-bounds windows.

  Example:
      >>> dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
      ...                                 start_index_map=(0,))
      >>> gather(np.arange(4, dtype=np.int32), np.array([[3], [1]]), dn, (1,))
      Array([3, 1], dtype=int32)
  """
  parsed = GatherScatterMode.from_any(
      GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
  if parsed == GatherScatterMode.FILL_OR_DROP:
    dt = _aval(operand).dtype
    fill_value = _default_fill_value(dt) if fill_value is None else _static_fill(fill_value)
  else:
    fill_value = None
  return ix.gather_p.bind(
      operand, start_indices, dimension_numbers=_dnums(dimension_numbers,
                                                       GatherDimensionNumbers),
      slice_sizes=canonicalize_shape(slice_sizes), unique_indices=bool(unique_indices),
      indices_are_sorted=bool(indices_are_sorted), mode=parsed, fill_value=fill_value)


def _scatter(prim, operand, indices, updates, dimension_numbers, indices_are_sorted,
             unique_indices, mode, update_jaxpr=None, update_consts=()):
  return prim.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                   update_consts=update_consts,
                   dimension_numbers=_dnums(dimension_numbers, ScatterDimensionNumbers),
                   indices_are_sorted=bool(indices_are_sorted),
                   unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def _combining_scatter(prim, doc: str, example_result: str):
  def f(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
        unique_indices=False, mode=None):
    jaxpr, consts = ix.combiner_jaxpr(prim.name, _aval(operand).dtype)
    return _scatter(prim, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode, jaxpr, consts)
  f.__name__ = f.__qualname__ = prim.name.replace("-", "_")
  f.__doc__ = (f"XLA's scatter combining with {doc}: each ``updates`` window is {doc}-ed "
               "into ``operand`` at its index vector; out-of-bounds windows are dropped unless "
               "``mode='clip'``.\n\n"
               "  Example (index 0 is hit twice):\n"
               "      >>> dn = ScatterDimensionNumbers(update_window_dims=(),\n"
               "      ...     inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
               "      >>> x = np.array([1, 2, 3], np.int32)\n"
               f"      >>> {f.__name__}(x, np.array([[0], [2], [0]]), "
               "np.array([4, 5, -1], np.int32), dn)\n"
               f"      {example_result}\n  ")
  return f


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
  """XLA's scatter: ``operand`` with each ``updates`` window written at its index vector
  (out-of-bounds windows dropped unless ``mode='clip'``).

  Example:
      >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
      ...                                  scatter_dims_to_operand_dims=(0,))
      >>> scatter(np.zeros(3, np.int32), np.array([[2]]), np.array([7], np.int32), dn)
      Array([0, 0, 7], dtype=int32)
  """
  return _scatter(ix.scatter_p, operand, scatter_indices, updates, dimension_numbers,
                  indices_are_sorted, unique_indices, mode)


scatter_add = _combining_scatter(ix.scatter_add_p, "add", "Array([4, 2, 8], dtype=int32)")
scatter_sub = _combining_scatter(ix.scatter_sub_p, "sub", "Array([-2,  2, -2], dtype=int32)")
scatter_mul = _combining_scatter(ix.scatter_mul_p, "mul", "Array([-4,  2, 15], dtype=int32)")
scatter_min = _combining_scatter(ix.scatter_min_p, "min", "Array([-1,  2,  3], dtype=int32)")
scatter_max = _combining_scatter(ix.scatter_max_p, "max", "Array([4, 2, 5], dtype=int32)")


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers, *,
                  update_shape=(), indices_are_sorted=False, unique_indices=False, mode=None):
  """Apply the scalar function ``func`` to the windows of ``operand`` named by
  ``scatter_indices`` (each window of shape ``update_shape``).

  Example:
      >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
      ...                              scatter_dims_to_operand_dims=(0,))
      >>> scatter_apply(np.array([1, 2, 3], np.int32), np.array([[1], [2]]), lambda v: -v, dn,
      ...               update_shape=(2,))
      Array([ 1, -2, -3], dtype=int32)
  """
  dt = _aval(operand).dtype
  unused = full(update_shape, 0, dt)
  jaxpr, consts = ix.reduction_jaxpr(lambda x, _: func(x), ShapedArray((), dt))
  if any(isinstance(c, core.Tracer) for c in consts):
    raise NotImplementedError("scatter_apply's func cannot close over traced values.")
  return _scatter(ix.scatter_p, operand, scatter_indices, unused, dimension_numbers,
                  indices_are_sorted, unique_indices, mode, jaxpr, consts)
