"""lax's stacking, tiling and array-making helpers of JAX 0.10.2: ``stack``, ``unstack``,
``tile``, ``broadcast_like``, ``index_take``, ``empty``, ``shape_as_value``, ``dtype``, ``mulhi``
and ``rng_uniform``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import lax
    >>> lax.stack([jnp.arange(2), jnp.arange(2)], axis=1)
    Array([[0, 0],
           [1, 1]], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes
from ember.core import trace as core
from ember.backend.array import Array
from ember.lax import structural as st
from ember.lax.reductions import _canonical_axis
from ember.primitives import creation, integer_ops, stacking
from ember.backend.sharding import check_out_sharding

__all__ = ["stack", "unstack", "tile", "broadcast_like", "index_take", "empty",
           "shape_as_value", "dtype", "mulhi", "rng_uniform"]


def stack(operands, axis: int = 0):
  """Join arrays of one shape and dtype along a new axis ``axis``.

  Args:
    operands: a sequence of arrays (an array is taken as the sequence of its rows).
    axis: where the new axis goes in the result (negative counts from the end).

  Returns:
    An array with one more dimension than the operands.

  Raises:
    ValueError: for operands of different shapes or an out-of-bounds ``axis``.
    TypeError: for operands of different dtypes.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.stack([jnp.array([1, 2]), jnp.array([3, 4])], axis=1)
      Array([[1, 3],
             [2, 4]], dtype=int32)
  """
  arrays = list(operands)
  ndim = core.get_aval(arrays[0]).ndim
  axis = _canonical_axis(axis, ndim + 1)
  return stacking.stack_p.bind(*arrays, axis=axis)


def unstack(x, axis: int = 0) -> tuple:
  """The slices of ``x`` along ``axis``, as a tuple (the inverse of ``stack``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.unstack(jnp.array([[1, 2], [3, 4]]), axis=1)
      (Array([1, 3], dtype=int32), Array([2, 4], dtype=int32))
  """
  axis = _canonical_axis(axis, core.get_aval(x).ndim)
  return tuple(stacking.unstack_p.bind(x, axis=axis))


def tile(operand, reps):
  """``operand`` repeated ``reps[i]`` times along each axis ``i`` (``len(reps)`` must be its
  rank).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.tile(jnp.array([1, 2, 3]), (2,))
      Array([1, 2, 3, 1, 2, 3], dtype=int32)
  """
  return stacking.tile_p.bind(operand, reps=tuple(operator.index(r) for r in reps))


def broadcast_like(arr, like_arr):
  """``arr`` broadcast (NumPy's rules) to the shape of ``like_arr``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.broadcast_like(jnp.array([1, 2]), jnp.zeros((2, 2)))
      Array([[1, 2],
             [1, 2]], dtype=int32)
  """
  aval = core.get_aval(arr)
  shape = core.get_aval(like_arr).shape
  if aval.shape == shape:
    from ember import numpy as jnp
    return arr if isinstance(arr, (Array, core.Tracer)) else jnp.asarray(arr)
  if len(shape) < aval.ndim:
    raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                     f"arr_shape={aval.shape} shape={shape}")
  lead = len(shape) - aval.ndim
  if any(d not in (1, s) for d, s in zip(aval.shape, shape[lead:])):
    requested = aval.update(shape=shape, weak_type=False)
    raise ValueError("Incompatible types for broadcasting: input type="
                     f"{aval.strip_weak_type().str_short()} and requested type="
                     f"{requested.str_short()}")
  return st.broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def index_take(src, idxs, axes):
  """Entries of ``src`` at the index tuples ``idxs[:, n]`` over ``axes`` (``idxs[k]`` indexes
  axis ``axes[k]``; negative and out-of-range indices wrap around), each with all of ``src``'s
  other axes.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> x = jnp.arange(6.0).reshape(2, 3)
      >>> lax.index_take(x, jnp.array([[0, 1], [1, -1]]), (0, 1))
      Array([1., 5.], dtype=float32)
  """
  from ember import numpy as jnp
  src_aval = core.get_aval(src)
  axes = tuple(operator.index(a) for a in axes)
  rows = core.get_aval(idxs).shape[:1]
  if rows != (len(axes),):
    raise TypeError(f"index_take: idxs must have one row per axis in axes={axes}, got idxs of "
                    f"shape {core.get_aval(idxs).shape}.")
  indices = st.concatenate([st.expand_dims(row, (1,)) for row in _rows(idxs)], 1)
  sizes = np.array([src_aval.shape[a] for a in axes])
  indices = jnp.remainder(indices, st.expand_dims(sizes, tuple(range(indices.ndim - 1))))
  slice_sizes = tuple(1 if i in axes else d for i, d in enumerate(src_aval.shape))
  dnums = st.GatherDimensionNumbers(
      offset_dims=tuple(range(1, src_aval.ndim - len(axes) + 1)),
      collapsed_slice_dims=axes, start_index_map=axes)
  return st.gather(src, indices, dnums, slice_sizes)


def _rows(x):
  """The rows of ``x``, each sliced out as JAX's iteration over an array slices it."""
  if not isinstance(x, (Array, core.Tracer)):
    yield from x
    return
  shape = core.get_aval(x).shape
  ones = (1,) * len(shape)
  for i in range(shape[0]):
    row = st.slice(x, (i,) + (0,) * (len(shape) - 1), (i + 1,) + shape[1:], ones)
    yield st.squeeze(row, (0,))


def empty(shape, dtype, *, out_sharding=None):
  """An array of ``shape`` and ``dtype`` whose values the program may leave unset (ember's
  backends give zeros). Like JAX, ``dtype`` is taken as given, not canonicalized.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.empty((2,), jnp.int32).shape
      (2,)
  """
  if out_sharding is not None:
    check_out_sharding("empty", out_sharding)
  shape = st.canonicalize_shape(shape)
  return creation.empty_p.bind(shape=shape, dtype=dtype, out_sharding=None)


def shape_as_value(shape):
  """``shape`` as an int32 array: a NumPy array, or (for ``()``) an empty ember array.

  Example:
      >>> from ember import lax
      >>> lax.shape_as_value((2, 3))
      array([2, 3], dtype=int32)
  """
  shape = tuple(shape)
  if not shape:
    return st.full((0,), np.array(0, np.int32))
  dt = np.int32 if max(int(d) for d in shape) <= np.iinfo(np.int32).max else np.int64
  return np.asarray(shape, dtype=dtypes.canonicalize_dtype(dt))


def dtype(x):
  """The dtype of a value or dtype-like, canonicalized as JAX does (Python scalars and 64-bit
  NumPy types give 32-bit dtypes with x64 off; ember arrays keep theirs).

  Example:
      >>> import numpy as np
      >>> from ember import lax
      >>> lax.dtype(1), lax.dtype(np.ones(2)), lax.dtype('bfloat16')
      (dtype('int32'), dtype('float32'), dtype(bfloat16))
  """
  if isinstance(x, (Array, core.Tracer)):
    return x.dtype
  if x is not None and (isinstance(x, (str, np.dtype)) or
                        (isinstance(x, type) and x not in (bool, int, float, complex))):
    dtypes.check_user_dtype_supported(x, "dtype")  # JAX warns of a truncated 64-bit request
  return dtypes.dtype(x, canonicalize=True)


def mulhi(x, y, /):
  """The high half of the double-width product of two integers of one dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.mulhi(jnp.uint32(2**31), jnp.uint32(6))
      Array(3, dtype=uint32)
  """
  return integer_ops.mulhi_p.bind(x, y)


def rng_uniform(a, b, shape):
  """Values uniform in ``[a, b)`` from XLA's stateful generator (they differ between calls;
  prefer ``ember.random``). ``a`` and ``b`` are scalars of one dtype.

  Example:
      >>> from ember import lax
      >>> x = lax.rng_uniform(0.0, 1.0, (3,))
      >>> x.shape, bool(((0 <= x) & (x < 1)).all())
      ((3,), True)
  """
  shape = tuple(operator.index(d) for d in shape)
  return creation.rng_uniform_p.bind(a, b, shape=shape)

