"""ember.numpy joining, splitting and repetition: concatenate/stack and their variants, append,
split/array_split and their variants, unstack, tile, repeat and resize.

Shapes, axes, split points and repeat counts must be static (``repeat`` also takes traced
``repeats`` with a static ``total_repeat_length``), as in JAX.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.concatenate([jnp.arange(2), jnp.ones(2)])
    Array([0., 1., 1., 1.], dtype=float32)
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import (canonicalize_axis, check_arraylike, check_out_sharding,
                               promote_dtypes)
from ember.numpy.shape_ops import (_canonical_shape, _concrete, _dims_str, _dtype, _is_array, _ndim,
                                   _shape, _wrap, atleast_1d, atleast_2d, atleast_3d,
                                   expand_dims, moveaxis, ravel, reshape, transpose)
from ember.numpy.taking import _static_take, take

__all__ = [
    "concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "tile", "repeat", "resize",
    "append",
]

_range = builtins.range
_max = builtins.max


# --- joining ------------------------------------------------------------------------------------

def _as_list(arrays, fun_name: str) -> list:
  """The list of arrays in ``arrays``: a sequence, or an array split along its first axis."""
  if _is_array(arrays) or isinstance(arrays, np.ndarray):
    if _ndim(arrays) == 0:
      raise ValueError(f"Zero-dimensional arrays cannot be {fun_name}d.")
    if isinstance(arrays, np.ndarray):
      return list(arrays)
    return list(unstack(arrays))
  return list(arrays)


def _user_dtype(dtype, fun_name: str):
  if dtype is None:
    return None
  return dtypes.check_and_canonicalize_user_dtype(dtype, fun_name)


def _convert_all(arrays, dtype, fun_name: str):
  """Promote ``arrays`` to their common type, or cast them to the requested ``dtype``."""
  if dtype is None:
    return promote_dtypes(*arrays)
  dt = _user_dtype(dtype, fun_name)
  return [x if _dtype(x) == dt and not dtypes.is_weakly_typed(x)
          else lax._convert_element_type(x, dt) for x in arrays]


def _is_key(x) -> bool:
  """Whether ``x`` is a typed PRNG key array (a pytree over its uint32 key data)."""
  return isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)


def _key_dtype_check(key_dt, dtype) -> None:
  """A requested ``dtype`` of joined key arrays: only their own key type, as in JAX."""
  if dtype is None or dtype == key_dt:
    return
  if isinstance(dtype, dtypes.ExtendedDType):
    raise ValueError(f"cannot directly convert between extended dtypes: from {key_dt} to "
                     f"{dtype}. Instead, convert to and from their representation dtypes.")
  raise ValueError(f"Cannot convert_element_type from {key_dt} to {np.dtype(dtype)}")


def _check_keys(arrays, dtype) -> bool:
  """Whether ``arrays`` hold typed key arrays; if so they must all be of one key type (JAX joins
  those, and promotes no other array with them) and ``dtype`` must be that type or None."""
  keys = [a for a in arrays if _is_key(a)]
  if not keys:
    return False
  key_dt = keys[0].dtype
  if len(keys) != len(arrays) or any(k.dtype != key_dt for k in keys):
    worst = max((k.dtype for k in keys), key=str)
    raise ValueError(f"dtype={worst} is not a valid dtype for JAX type promotion.")
  _key_dtype_check(key_dt, dtype)
  return True


def _join_keys(keys, join):
  """The key array whose data is ``join`` of the list of ``keys``' key data."""
  return keys[0]._like(join([k._base_array for k in keys]))


def _atleast_each(tup, n: int, fun_name: str) -> list:
  """Each array of ``tup`` with at least ``n`` dimensions, as ``atleast_{n}d`` (typed key
  arrays too: they are reshaped the same way)."""
  if not any(_is_key(a) for a in tup):
    check_arraylike(fun_name, *tup)
  fn = {1: atleast_1d, 2: atleast_2d, 3: atleast_3d}[n]
  return [a.reshape(fn(np.empty(a.shape, np.bool_)).shape) if _is_key(a) else fn(a)
          for a in tup]


def concatenate(arrays, axis: int | None = 0, dtype=None):
  """Join arrays along an existing axis (``axis=None`` flattens them first). Typed PRNG key
  arrays of one implementation join too (as in JAX), but with no other arrays.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.concatenate([jnp.arange(2), jnp.ones(2)])
      Array([0., 1., 1., 1.], dtype=float32)
  """
  if _is_array(arrays) and axis is not None:
    shp = _shape(arrays)
    if not shp:
      raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    nd = len(shp) - 1
    ax = canonicalize_axis(axis, nd)
    x = moveaxis(arrays, 0, ax)
    out = list(shp[1:])
    out[ax] *= shp[0]
    x = reshape(x, tuple(out))
    return x if dtype is None else _convert_all([x], dtype, "concatenate")[0]
  arrays = _as_list(arrays, "concatenate")
  if not arrays:
    raise ValueError("Need at least one array to concatenate.")
  keys = _check_keys(arrays, dtype)
  if not keys:
    check_arraylike("concatenate", *arrays)
  if axis is None:
    arrays = [a.reshape(-1) if _is_key(a) else ravel(a) for a in arrays]
    axis = 0
  shapes = [_shape(a) for a in arrays]
  if any(len(s) != len(shapes[0]) for s in shapes):
    raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                    f"{_dims_str(shapes)}.")
  if not shapes[0]:
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = canonicalize_axis(axis, len(shapes[0]))
  if any(s[:axis] + s[axis + 1:] != shapes[0][:axis] + shapes[0][axis + 1:] for s in shapes):
    raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                    f"than the one being concatenated: concatenating along dimension {axis} "
                    f"for shapes {_dims_str(shapes)}.")
  if keys:
    return _join_keys(arrays, lambda data: lax.concatenate(data, axis))
  arrays = _convert_all(arrays, dtype, "concatenate")
  if len(arrays) == 1:
    return _wrap(arrays[0])
  return lax.concatenate(arrays, axis)


def concat(arrays, /, *, axis: int | None = 0):
  """Array API alias of :func:`concatenate`.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.concat([jnp.zeros((1, 2)), jnp.ones((1, 2))]).shape
      (2, 2)
  """
  return concatenate(arrays, axis=axis)


def _lax_stack(arrays, axis: int):
  fn = getattr(lax, "stack", None)
  if fn is not None:
    return fn(arrays, axis)
  return lax.concatenate([expand_dims(a, axis) for a in arrays], axis)


def stack(arrays, axis: int = 0, out=None, dtype=None):
  """Join arrays of one shape along a new axis (typed PRNG key arrays too, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.stack([jnp.arange(2), jnp.arange(2)], axis=1)
      Array([[0, 0],
             [1, 1]], dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
  if _is_array(arrays):
    shp = _shape(arrays)
    if not shp:
      raise ValueError("Zero-dimensional arrays cannot be stacked.")
    axis = canonicalize_axis(axis, len(shp))
    x = moveaxis(arrays, 0, axis)
    return x if dtype is None else _convert_all([x], dtype, "stack")[0]
  arrays = list(arrays)
  if not arrays:
    raise ValueError("Need at least one array to stack.")
  keys = _check_keys(arrays, dtype)
  if not keys:
    check_arraylike("stack", *arrays)
  shapes = [_shape(a) for a in arrays]
  if any(len(s) != len(shapes[0]) for s in shapes):
    raise ValueError("Cannot stack arrays with different numbers of dimensions: got "
                     f"{_dims_str(shapes)}.")
  if any(s != shapes[0] for s in shapes):
    raise ValueError(f"All input arrays must have the same shape. Got {_dims_str(shapes)}.")
  axis = canonicalize_axis(axis, len(shapes[0]) + 1)
  if keys:
    return _join_keys(arrays, lambda data: _lax_stack(data, axis))
  arrays = _convert_all(arrays, dtype, "stack")
  return _lax_stack(arrays, axis)


def hstack(tup, dtype=None):
  """Join arrays column-wise: along axis 0 for 1-D inputs, else along axis 1.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.hstack([jnp.zeros(2), jnp.ones(1)])
      Array([0., 0., 1.], dtype=float32)
  """
  arrs = _atleast_each(_as_list(tup, "concatenate"), 1, "hstack")
  if not arrs:
    raise ValueError("Need at least one array to concatenate.")
  return concatenate(arrs, axis=0 if _ndim(arrs[0]) == 1 else 1, dtype=dtype)


def vstack(tup, dtype=None):
  """Join arrays row-wise (1-D inputs become rows).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.vstack([jnp.zeros(2), jnp.ones(2)]).shape
      (2, 2)
  """
  if _is_array(tup):
    return concatenate(atleast_2d(tup), axis=0, dtype=dtype)
  arrs = _atleast_each(_as_list(tup, "concatenate"), 2, "vstack")
  return concatenate(arrs, axis=0, dtype=dtype)


row_stack = vstack


def dstack(tup, dtype=None):
  """Join arrays depth-wise, along a third axis.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.dstack([jnp.zeros(2), jnp.ones(2)]).shape
      (1, 2, 2)
  """
  if _is_array(tup):
    return concatenate(atleast_3d(tup), axis=2, dtype=dtype)
  arrs = _atleast_each(_as_list(tup, "concatenate"), 3, "dstack")
  return concatenate(arrs, axis=2, dtype=dtype)


def column_stack(tup):
  """Stack 1-D arrays as columns of a 2-D array (2-D inputs are joined along axis 1).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.column_stack([jnp.arange(2), jnp.arange(2)])
      Array([[0, 0],
             [1, 1]], dtype=int32)
  """
  arrs = []
  for a in _as_list(tup, "concatenate"):
    if _is_key(a):  # typed keys: 1-D ones become a column too
      arrs.append(a if a.ndim >= 2 else a.reshape(-1, 1))
      continue
    check_arraylike("column_stack", a)
    arrs.append(a if _ndim(a) >= 2 else transpose(atleast_2d(a)))
  return concatenate(arrs, axis=1)


def append(arr, values, axis: int | None = None):
  """``values`` appended to ``arr`` (both flattened when ``axis`` is None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.append(jnp.arange(3), 5)
      Array([0, 1, 2, 5], dtype=int32)
  """
  if _is_key(arr) or _is_key(values):  # concatenate flattens typed keys itself
    return concatenate([arr, values], axis)
  check_arraylike("append", arr, values)
  if axis is None:
    return concatenate([ravel(arr), ravel(values)], 0)
  return concatenate([arr, values], axis)


# --- splitting ----------------------------------------------------------------------------------

def _split_sizes(n: int, ios, fun_name: str, equal: bool) -> list[int]:
  if np.ndim(ios) == 0 and not isinstance(ios, (list, tuple)):
    sections = operator.index(_concrete(ios, f"in {fun_name}").item()) if _is_array(ios) \
        else operator.index(ios)
    if sections <= 0:
      raise ValueError("number sections must be larger than 0.")
    if equal:
      if n % sections:
        raise ValueError(f"array split does not result in an equal division: rest is "
                         f"{n % sections}")
      return [n // sections] * sections
    q, r = divmod(n, sections)
    return [q + 1] * r + [q] * (sections - r)
  idx = _concrete(ios, f"The indices_or_sections argument of {fun_name} must be concrete.")
  if idx.size and not np.issubdtype(idx.dtype, np.integer):
    raise TypeError(f"{fun_name}: indices_or_sections must be integers, got {idx.dtype}")
  bounds = [0] + [int(i) if i >= 0 else int(i) + n for i in idx.ravel()] + [n]
  sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
  if any(s < 0 for s in sizes):
    raise ValueError(f"Sizes passed to split must be nonnegative, got {sizes}")
  return sizes


def _split_by_sizes(ary, sizes: list[int], axis: int) -> list:
  """One ``lax.split`` with NumPy-int sizes, as JAX's split functions bind it."""
  return lax.split(_wrap(ary), tuple(np.int64(n) for n in sizes), axis)


def _split(fun_name: str, ary, ios, axis: int, equal: bool) -> list:
  check_arraylike(fun_name, ary)
  axis = canonicalize_axis(axis, _ndim(ary))
  sizes = _split_sizes(_shape(ary)[axis], ios, fun_name, equal)
  return _split_by_sizes(ary, sizes, axis)


def split(ary, indices_or_sections, axis: int = 0) -> list:
  """Split ``ary`` into equal sections, or at the given indices, along ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.split(jnp.arange(4), 2)
      [Array([0, 1], dtype=int32), Array([2, 3], dtype=int32)]
  """
  return _split("split", ary, indices_or_sections, axis, equal=True)


def array_split(ary, indices_or_sections, axis: int = 0) -> list:
  """Like :func:`split`, but sections need not divide the axis equally.

  Example:
      >>> import ember.numpy as jnp
      >>> [a.shape for a in jnp.array_split(jnp.arange(5), 2)]
      [(3,), (2,)]
  """
  return _split("array_split", ary, indices_or_sections, axis, equal=False)


def hsplit(ary, indices_or_sections) -> list:
  """Split along axis 1 (axis 0 for 1-D arrays).

  Example:
      >>> import ember.numpy as jnp
      >>> [a.shape for a in jnp.hsplit(jnp.zeros((2, 4)), 2)]
      [(2, 2), (2, 2)]
  """
  check_arraylike("hsplit", ary)
  return split(ary, indices_or_sections, axis=1 if _ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections) -> list:
  """Split along axis 0.

  Example:
      >>> import ember.numpy as jnp
      >>> [a.shape for a in jnp.vsplit(jnp.zeros((4, 2)), 2)]
      [(2, 2), (2, 2)]
  """
  return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections) -> list:
  """Split along axis 2.

  Example:
      >>> import ember.numpy as jnp
      >>> [a.shape for a in jnp.dsplit(jnp.zeros((1, 1, 4)), 2)]
      [(1, 1, 2), (1, 1, 2)]
  """
  return split(ary, indices_or_sections, axis=2)


def unstack(x, /, *, axis: int = 0) -> tuple:
  """The slices of ``x`` along ``axis``, as a tuple of arrays one dimension smaller.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unstack(jnp.arange(4).reshape(2, 2))
      (Array([0, 1], dtype=int32), Array([2, 3], dtype=int32))
  """
  check_arraylike("unstack", x)
  shp = _shape(x)
  axis = canonicalize_axis(axis, len(shp))
  fn = getattr(lax, "unstack", None)
  if fn is not None:
    return tuple(fn(x, axis))
  if shp[axis] == 0:
    return ()
  return tuple(lax.squeeze(p, (axis,)) for p in _split_by_sizes(x, [1] * shp[axis], axis))


# --- repetition ---------------------------------------------------------------------------------

def tile(A, reps):
  """``A`` repeated ``reps`` times along each axis.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tile(jnp.arange(2), 3)
      Array([0, 1, 0, 1, 0, 1], dtype=int32)
  """
  check_arraylike("tile", A)
  try:
    reps = _canonical_shape(reps)
  except TypeError as e:
    raise TypeError(f"tile: reps must be an int or a sequence of ints. {e}") from None
  if any(r < 0 for r in reps):
    raise ValueError(f"tile: reps must be non-negative integers, got {reps}")
  shp = _shape(A)
  nd = _max(len(shp), len(reps))
  reps = (1,) * (nd - len(reps)) + reps
  if len(shp) < nd:
    shp = (1,) * (nd - len(shp)) + shp
    A = lax.broadcast_in_dim(A, shp, tuple(_range(nd - _ndim(A), nd)))
  if all(r == 1 for r in reps):
    return _wrap(A)
  fn = getattr(lax, "tile", None)
  if fn is not None:
    return fn(A, reps)
  inter = tuple(v for r, d in zip(reps, shp) for v in (r, d))
  dims = tuple(_range(1, 2 * nd, 2))
  return lax.reshape(lax.broadcast_in_dim(A, inter, dims),
                     tuple(r * d for r, d in zip(reps, shp)))


def _repeat_indices_traced(repeats, n: int, total: int):
  """Source index of each of the ``total`` outputs for traced ``repeats`` (int array of n)."""
  ends = lax.cumsum(lax._convert_element_type(repeats, np.int32), 0)
  pos = lax.broadcasted_iota(np.int32, (total, n), 0)
  ge = lax._convert_element_type(lax.ge(pos, lax.broadcast_in_dim(ends, (total, n), (1,))),
                                np.int32)
  idx = lax.reduce_sum(ge, (1,))
  return lax.min(idx, np.int32(n - 1)) if n else idx


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None,
           out_sharding=None):
  """Repeat each element of ``a`` ``repeats`` times (a scalar or one count per element).

  ``repeats`` must be concrete unless ``total_repeat_length`` gives the output length (extra
  output positions repeat the last element; surplus elements are dropped).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.repeat(jnp.arange(3), jnp.array([1, 2, 0]))
      Array([0, 1, 1], dtype=int32)
  """
  check_out_sharding("repeat", out_sharding)
  check_arraylike("repeat", a)
  if axis is None:
    a = ravel(a)
    axis = 0
  shp = _shape(a)
  axis = canonicalize_axis(axis, len(shp))
  n = shp[axis]
  r = core.concrete_value(repeats)
  if r is not None:
    r = np.asarray(r)
    if not np.issubdtype(r.dtype, np.integer) and r.size:
      raise TypeError(f"repeat: repeats must be integers, got dtype {r.dtype}")
    if r.ndim == 0 or r.shape == (1,):
      k = int(r.reshape(()))
      if k < 0:
        raise TypeError(f"repeat: repeats must be non-negative, got {k}")  # (JAX's type)
      if total_repeat_length is None or total_repeat_length == n * k:
        inter = shp[:axis + 1] + (k,) + shp[axis + 1:]
        dims = tuple(_range(axis + 1)) + tuple(_range(axis + 2, len(shp) + 1))
        out = list(shp)
        out[axis] = n * k
        return lax.reshape(lax.broadcast_in_dim(a, inter, dims), tuple(out))
      r = np.full((n,), k)
    if r.shape != (n,):
      raise ValueError(f"repeat: repeats of shape {r.shape} must be a scalar or have one entry "
                       f"per element along axis {axis} (shape ({n},))")
    if (r < 0).any():
      raise ValueError("repeat: repeats must be non-negative")
    idx = np.repeat(np.arange(n), r)
    if total_repeat_length is not None:
      total = operator.index(total_repeat_length)
      pad_val = n - 1 if n else 0
      idx = np.concatenate([idx, np.full((_max(total - idx.size, 0),), pad_val, idx.dtype)])
      idx = idx[:total]
    if n == 0 and idx.size:
      raise ValueError("repeat: cannot fill a non-empty output from an empty axis")
    return _static_take(a, idx, axis)
  if total_repeat_length is None:
    raise ConcretizationTypeError(
        repeats, "jnp.repeat with a traced `repeats` requires a static "
        "`total_repeat_length`: pass total_repeat_length=<int>.")
  total = operator.index(total_repeat_length)
  if np.ndim(repeats) == 0:
    repeats = lax.broadcast_in_dim(repeats, (n,), ())
  idx = _repeat_indices_traced(repeats, n, total)
  return take(a, idx, axis=axis, mode="clip")


def resize(a, new_shape):
  """A new array of shape ``new_shape`` filled with ``a``'s elements repeated cyclically.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.resize(jnp.arange(3), (2, 2))
      Array([[0, 1],
             [2, 0]], dtype=int32)
  """
  check_arraylike("resize", a)
  new_shape = _canonical_shape(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("all elements of `new_shape` must be non-negative")
  a = ravel(a)
  new_size = math.prod(new_shape)
  n = _shape(a)[0]
  if n == 0 or new_size == 0:
    return lax.full(new_shape, 0, _dtype(a))
  reps = -(-new_size // n)
  if reps > 1:
    a = tile(a, reps)
  if reps * n != new_size:
    a = lax.slice(a, (0,), (new_size,))
  return reshape(a, new_shape)
