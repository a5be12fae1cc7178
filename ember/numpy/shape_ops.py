"""ember.numpy shape manipulation: reshaping, transposing, joining, splitting, tiling, flipping,
rolling, padding and static/dynamic indexing along an axis (``take``).

Every function follows NumPy's signature and JAX's semantics: results are ember arrays, dtypes
follow JAX's promotion rules, and shapes/axes must be static Python integers.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.backend.array import ArrayImpl
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import (canonicalize_axis, check_arraylike, ensure_array,
                               promote_dtypes)
from ember.numpy import _util
from ember.transforms.jit import jit as _jit

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes", "moveaxis",
    "rollaxis", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "broadcast_arrays", "broadcast_shapes", "concatenate", "concat", "stack",
    "hstack", "vstack", "dstack", "column_stack", "row_stack", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "unstack", "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90",
    "pad", "take", "take_along_axis", "trim_zeros", "shape", "ndim", "size", "resize", "append",
    "insert", "delete",
]

_range = builtins.range
_max = builtins.max
_min = builtins.min


# --- shared helpers (also used by linear.py, sorting.py and misc.py) ---------------------------

def _is_array(x) -> bool:
  return isinstance(x, (ArrayImpl, core.Tracer))


def _wrap(x):
  """``x`` as an ember array (arrays and tracers pass through unchanged)."""
  return x if _is_array(x) else ensure_array(x)


def _shape(x) -> tuple[int, ...]:
  return tuple(np.shape(x))


def _ndim(x) -> int:
  return len(np.shape(x))


def _dtype(x):
  return dtypes.dtype(x, canonicalize=True)


def _concrete(x, context: str):
  """The NumPy value of ``x``; a ConcretizationTypeError naming ``context`` for tracers."""
  if isinstance(x, core.Tracer):
    v = x.to_concrete_value()
    if v is None:
      raise ConcretizationTypeError(x, context)
    return np.asarray(v)
  if isinstance(x, (list, tuple)):
    return np.asarray([_concrete(e, context) for e in x])
  return np.asarray(x)


def _axis_tuple(axis) -> tuple:
  if isinstance(axis, (tuple, list)):
    return tuple(axis)
  return (axis,)


def _canonical_axes(axis, ndim: int) -> tuple[int, ...]:
  return tuple(canonicalize_axis(a, ndim) for a in _axis_tuple(axis))


def _canonical_shape(shape) -> tuple[int, ...]:
  """A static shape from an int or a sequence of (concrete) integers, with JAX's error."""
  if isinstance(shape, (list, tuple)):
    seq = list(shape)
  elif _is_array(shape) or isinstance(shape, np.ndarray):
    seq = [shape] if _ndim(shape) == 0 else list(shape)
  else:
    seq = [shape]
  try:
    return tuple(operator.index(d) for d in seq)
  except TypeError:
    raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                    f"{seq}.") from None


def _dims_str(shapes) -> str:
  return ", ".join(str(tuple(s)) for s in shapes)


def _slice_axis(x, start: int, stop: int, axis: int, strides: bool = False):
  """``x[..., start:stop, ...]`` along ``axis`` (static bounds)."""
  shp = _shape(x)
  starts = [0] * len(shp)
  limits = list(shp)
  starts[axis], limits[axis] = start, stop
  st = (1,) * len(shp) if strides else None
  return lax.slice(x, tuple(starts), tuple(limits), st)


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


# --- shape queries ------------------------------------------------------------------------------

def shape(a) -> tuple[int, ...]:
  """The shape of an array, scalar or nested sequence.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.shape(jnp.zeros((2, 3)))
      (2, 3)
  """
  return _shape(a)


def ndim(a) -> int:
  """The number of dimensions of ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ndim(3.0)
      0
  """
  return _ndim(a)


def size(a, axis=None) -> int:
  """The number of elements of ``a``, or along the given axis (or axes).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.size(jnp.zeros((2, 3)), 1)
      3
  """
  shp = _shape(a)
  if axis is None:
    return math.prod(shp)
  return math.prod(shp[canonicalize_axis(ax, len(shp))] for ax in _axis_tuple(axis))


# --- reshaping ---------------------------------------------------------------------------------

def _compute_newshape(shape_in: tuple, newshape: tuple) -> tuple[int, ...]:
  total = math.prod(shape_in)
  unknown = [i for i, d in enumerate(newshape) if d == -1]
  if len(unknown) > 1:
    raise TypeError("can only specify one unknown axis size with a `-1` value, got "
                    f"{newshape}")
  known = math.prod(d for d in newshape if d != -1)
  if any(d < -1 for d in newshape):
    raise TypeError(f"cannot reshape array of shape {shape_in} (size {total}) into shape "
                    f"{newshape}: axis sizes must be non-negative (or -1 for one unknown axis)")
  if unknown:
    if known == 0 or total % known:
      raise TypeError(f"cannot reshape array of shape {shape_in} (size {total}) into shape "
                      f"{newshape} because the product of specified axis sizes ({known}) does "
                      f"not evenly divide {total}")
    out = list(newshape)
    out[unknown[0]] = total // known
    return tuple(out)
  if known != total:
    raise TypeError(f"cannot reshape array of shape {shape_in} (size {total}) into shape "
                    f"{newshape} (size {known})")
  return tuple(newshape)


def _reshape_c(a, newshape: tuple):
  if _is_array(a) and _shape(a) == newshape:
    return a
  return lax.reshape(a, newshape)


def reshape(a, shape=None, order: str = "C", *, copy=None, out_sharding=None):
  """Give ``a`` a new shape with the same number of elements (one axis may be ``-1``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.reshape(jnp.arange(6), (3, 2))
      Array([[0, 1],
             [2, 3],
             [4, 5]], dtype=int32)
  """
  check_arraylike("reshape", a)
  if shape is None:
    raise TypeError("reshape() missing 1 required argument: 'shape'")
  newshape = _compute_newshape(_shape(a), _canonical_shape(shape))
  if order == "C":
    return _reshape_c(a, newshape)
  if order == "F":
    return transpose(_reshape_c(transpose(a), newshape[::-1]))
  if order == "A":
    raise NotImplementedError("np.reshape order=A is not implemented.")
  raise ValueError(f"Unexpected value for 'order' argument: {order!r}; expected 'C' or 'F'.")


def ravel(a, order: str = "C", *, out_sharding=None):
  """``a`` flattened to one dimension.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ravel(jnp.ones((2, 2)))
      Array([1., 1., 1., 1.], dtype=float32)
  """
  check_arraylike("ravel", a)
  if order == "K":
    raise NotImplementedError("Ravel not implemented for order='K'.")
  return reshape(a, (math.prod(_shape(a)),), order=order)


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


# --- transposition -----------------------------------------------------------------------------

def _transpose(a, perm: tuple):
  if perm == tuple(_range(len(perm))):
    return _wrap(a)
  return lax.transpose(a, perm)


def transpose(a, axes=None):
  """Permute the axes of ``a`` (reverse them by default).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.transpose(jnp.zeros((2, 3, 4)), (1, 0, 2)).shape
      (3, 2, 4)
  """
  check_arraylike("transpose", a)
  shp = _shape(a)
  nd = len(shp)
  if axes is None:
    perm = tuple(_range(nd - 1, -1, -1))
  else:
    perm = tuple(canonicalize_axis(i, nd) for i in _axis_tuple(axes))
    if sorted(perm) != list(_range(nd)):
      raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                      f"permutation {perm} for operand shape {shp}.")
  return _transpose(a, perm)


def permute_dims(a, /, axes):
  """Array API alias of :func:`transpose` (``axes`` is required).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.permute_dims(jnp.zeros((2, 3)), (1, 0)).shape
      (3, 2)
  """
  check_arraylike("permute_dims", a)
  return transpose(a, axes)


def matrix_transpose(x, /):
  """Swap the last two axes of ``x`` (which must have at least two).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.matrix_transpose(jnp.zeros((5, 2, 3))).shape
      (5, 3, 2)
  """
  check_arraylike("matrix_transpose", x)
  nd = _ndim(x)
  if nd < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
  return _transpose(x, tuple(_range(nd - 2)) + (nd - 1, nd - 2))


def swapaxes(a, axis1: int, axis2: int):
  """Interchange two axes of ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.swapaxes(jnp.zeros((2, 3, 4)), 0, 2).shape
      (4, 3, 2)
  """
  check_arraylike("swapaxes", a)
  perm = np.arange(_ndim(a))
  perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
  return _transpose(a, tuple(int(p) for p in perm))


def moveaxis(a, source, destination):
  """Move axes ``source`` to positions ``destination``; the others keep their order.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.moveaxis(jnp.zeros((2, 3, 4)), 0, -1).shape
      (3, 4, 2)
  """
  check_arraylike("moveaxis", a)
  nd = _ndim(a)
  src, dst = _axis_tuple(source), _axis_tuple(destination)
  if len(src) != len(dst):
    raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
  src = tuple(canonicalize_axis(s, nd) for s in src)
  dst = tuple(canonicalize_axis(d, nd) for d in dst)
  perm = [i for i in _range(nd) if i not in src]
  for d, s in sorted(zip(dst, src)):
    perm.insert(d, s)
  return transpose(a, tuple(perm))


def rollaxis(a, axis: int, start: int = 0):
  """Roll ``axis`` backwards until it lies before ``start`` (prefer :func:`moveaxis`).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.rollaxis(jnp.zeros((2, 3, 4)), 2).shape
      (4, 2, 3)
  """
  check_arraylike("rollaxis", a)
  nd = _ndim(a)
  axis = canonicalize_axis(axis, nd)
  if not -nd <= start <= nd:
    raise ValueError(f"start={start} must satisfy {-nd} <= start <= {nd}")
  if start < 0:
    start += nd
  if start > axis:
    start -= 1
  return moveaxis(a, axis, start)


# --- adding and removing unit axes --------------------------------------------------------------

def squeeze(a, axis=None):
  """Remove axes of length one (all of them, or the given ones).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.squeeze(jnp.zeros((1, 3, 1))).shape
      (3,)
  """
  check_arraylike("squeeze", a)
  shp = _shape(a)
  if axis is None:
    dims = tuple(i for i, d in enumerate(shp) if d == 1)
  else:
    dims = _canonical_axes(axis, len(shp))
    if any(shp[d] != 1 for d in dims):
      raise ValueError("cannot select an axis to squeeze out which has size not equal to one, "
                       f"got shape={shp} and dimensions={dims}")
  if not dims:
    return _wrap(a)
  return lax.squeeze(a, tuple(sorted(set(dims))))


def expand_dims(a, axis):
  """Insert length-one axes at the positions ``axis`` (an int or a tuple) of the result.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.expand_dims(jnp.zeros(3), (0, 2)).shape
      (1, 3, 1)
  """
  check_arraylike("expand_dims", a)
  shp = _shape(a)
  axes = _axis_tuple(axis)
  out_nd = len(shp) + len(axes)
  dims = tuple(canonicalize_axis(ax, out_nd) for ax in axes)
  if len(set(dims)) != len(dims):
    raise ValueError(f"repeated axis in lax.expand_dims: {tuple(axes)}")
  if not dims:
    return _wrap(a)
  kept = [i for i in _range(out_nd) if i not in dims]
  out_shape = [1] * out_nd
  for i, d in zip(kept, shp):
    out_shape[i] = d
  return lax.broadcast_in_dim(a, tuple(out_shape), tuple(kept))


def _atleast(arys, nd: int, fun_name: str):
  check_arraylike(fun_name, *arys)
  outs = []
  for x in arys:
    shp = _shape(x)
    if len(shp) >= nd:
      outs.append(_wrap(x))
      continue
    if nd == 3 and len(shp) == 2:
      new, dims = shp + (1,), (0, 1)
    elif nd == 3 and len(shp) == 1:
      new, dims = (1,) + shp + (1,), (1,)
    else:
      new = (1,) * (nd - len(shp)) + shp
      dims = tuple(_range(nd - len(shp), nd))
    outs.append(lax.broadcast_in_dim(x, new, dims))
  return outs[0] if len(outs) == 1 else outs


@_jit
def atleast_1d(*arys):
  """Arrays with at least one dimension (a list if several are given).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.atleast_1d(3.0)
      Array([3.], dtype=float32, weak_type=True)
  """
  return _atleast(arys, 1, "atleast_1d")


@_jit
def atleast_2d(*arys):
  """Arrays with at least two dimensions (1-D ``(n,)`` becomes ``(1, n)``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.atleast_2d(jnp.ones(3)).shape
      (1, 3)
  """
  return _atleast(arys, 2, "atleast_2d")


@_jit
def atleast_3d(*arys):
  """Arrays with at least three dimensions (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` -> ``(m, n, 1)``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.atleast_3d(jnp.ones(3)).shape
      (1, 3, 1)
  """
  return _atleast(arys, 3, "atleast_3d")


# --- broadcasting -------------------------------------------------------------------------------

def broadcast_shapes(*shapes) -> tuple[int, ...]:
  """The shape that NumPy broadcasting of ``shapes`` gives.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.broadcast_shapes((2, 1), (3,))
      (2, 3)
  """
  if not shapes:
    return ()
  return _util.broadcast_shapes(*[_canonical_shape(s) for s in shapes])


def _broadcast_to(a, shape: tuple):
  if _is_array(a) and _shape(a) == shape:
    return a
  nd = len(shape)
  return lax.broadcast_in_dim(a, shape, tuple(_range(nd - _ndim(a), nd)))


def broadcast_to(array, shape, *, out_sharding=None):
  """``array`` broadcast to ``shape`` with NumPy's rules.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.broadcast_to(jnp.arange(3), (2, 3))
      Array([[0, 1, 2],
             [0, 1, 2]], dtype=int32)
  """
  check_arraylike("broadcast_to", array)
  shape = _canonical_shape(shape)
  shp = _shape(array)
  if len(shp) > len(shape):
    raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                     f"arr_shape={shp} shape={shape}")
  tail = shape[len(shape) - len(shp):]
  if any(d < 0 for d in shape) or any(s not in (1, t) for s, t in zip(shp, tail)):
    dt = _dtype(array).name
    raise ValueError("Incompatible types for broadcasting: input type="
                     f"{dt}[{','.join(map(str, shp))}] and requested type="
                     f"{dt}[{','.join(map(str, shape))}]")
  return _broadcast_to(array, shape)


def broadcast_arrays(*args) -> list:
  """The arguments broadcast against each other.

  Example:
      >>> import ember.numpy as jnp
      >>> [a.shape for a in jnp.broadcast_arrays(jnp.ones(3), jnp.ones((2, 1)))]
      [(2, 3), (2, 3)]
  """
  check_arraylike("broadcast_arrays", *args)
  shp = broadcast_shapes(*[_shape(a) for a in args])
  return [_broadcast_to(a, shp) for a in args]


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
          else lax.convert_element_type(x, dt) for x in arrays]


def concatenate(arrays, axis: int | None = 0, dtype=None):
  """Join arrays along an existing axis (``axis=None`` flattens them first).

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
  check_arraylike("concatenate", *arrays)
  if axis is None:
    arrays = [ravel(a) for a in arrays]
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
  """Join arrays of one shape along a new axis.

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
  check_arraylike("stack", *arrays)
  shapes = [_shape(a) for a in arrays]
  if any(len(s) != len(shapes[0]) for s in shapes):
    raise ValueError("Cannot stack arrays with different numbers of dimensions: got "
                     f"{_dims_str(shapes)}.")
  if any(s != shapes[0] for s in shapes):
    raise ValueError(f"All input arrays must have the same shape. Got {_dims_str(shapes)}.")
  axis = canonicalize_axis(axis, len(shapes[0]) + 1)
  arrays = _convert_all(arrays, dtype, "stack")
  return _lax_stack(arrays, axis)


def hstack(tup, dtype=None):
  """Join arrays column-wise: along axis 0 for 1-D inputs, else along axis 1.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.hstack([jnp.zeros(2), jnp.ones(1)])
      Array([0., 0., 1.], dtype=float32)
  """
  tup = _as_list(tup, "concatenate")
  check_arraylike("hstack", *tup)
  arrs = [atleast_1d(a) for a in tup]
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
  tup = _as_list(tup, "concatenate")
  check_arraylike("vstack", *tup)
  arrs = [atleast_2d(a) for a in tup]
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
  tup = _as_list(tup, "concatenate")
  check_arraylike("dstack", *tup)
  arrs = [atleast_3d(a) for a in tup]
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
  fn = getattr(lax, "split", None)
  if fn is not None and len(sizes) > 1:
    return list(fn(ary, tuple(sizes), axis))
  outs, start = [], 0
  for s in sizes:
    outs.append(_slice_axis(ary, start, start + s, axis))
    start += s
  return outs


def _split(fun_name: str, ary, ios, axis: int, equal: bool) -> list:
  check_arraylike(fun_name, ary)
  axis = canonicalize_axis(axis, _ndim(ary))
  sizes = _split_sizes(_shape(ary)[axis], ios, fun_name, equal)
  if len(sizes) == 1:
    return [_wrap(ary)]
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
  reps = _canonical_shape(reps)
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
  ends = lax.cumsum(lax.convert_element_type(repeats, np.int32), 0)
  pos = lax.broadcasted_iota(np.int32, (total, n), 0)
  ge = lax.convert_element_type(lax.ge(pos, lax.broadcast_in_dim(ends, (total, n), (1,))),
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
        raise ValueError(f"repeat: repeats must be non-negative, got {k}")
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


# --- flips and rolls -----------------------------------------------------------------------------

def _flip(m, axes):
  return lax.rev(m, axes)


_flip_jit = _jit(_flip, static_argnames=("axes",))


def flip(m, axis=None):
  """Reverse the order of elements along the given axes (all axes by default).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.flip(jnp.arange(3))
      Array([2, 1, 0], dtype=int32)
  """
  check_arraylike("flip", m)
  nd = _ndim(m)
  axes = tuple(_range(nd)) if axis is None else _canonical_axes(axis, nd)
  if not axes:
    return _wrap(m)
  return _flip_jit(m, axes=tuple(sorted(set(axes))))


def fliplr(m):
  """Reverse the order of columns (axis 1).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fliplr(jnp.arange(4).reshape(2, 2))
      Array([[1, 0],
             [3, 2]], dtype=int32)
  """
  check_arraylike("fliplr", m)
  return flip(m, 1)


def flipud(m):
  """Reverse the order of rows (axis 0).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.flipud(jnp.arange(4).reshape(2, 2))
      Array([[2, 3],
             [0, 1]], dtype=int32)
  """
  check_arraylike("flipud", m)
  return flip(m, 0)


def _roll_static(a, shifts, axes):
  for shift, axis in zip(shifts, axes):
    n = _shape(a)[axis]
    if n == 0:
      continue
    s = shift % n
    if s == 0:
      continue
    a = lax.concatenate([_slice_axis(a, n - s, n, axis, strides=True),
                         _slice_axis(a, 0, n - s, axis, strides=True)], axis)
  return _wrap(a)


_roll_static_jit = _jit(_roll_static, static_argnames=("shifts", "axes"))


def _roll_dynamic(a, shifts, axes):
  for i, axis in enumerate(axes):
    n = _shape(a)[axis]
    if n == 0:
      continue
    s = shifts[i] if np.ndim(shifts) else shifts
    s = lax.convert_element_type(s, np.int32)
    s = lax.rem(lax.add(lax.rem(s, np.int32(n)), np.int32(n)), np.int32(n))
    doubled = lax.concatenate([a, a], axis)
    start = lax.sub(np.int32(n), s)
    starts = [np.int32(0)] * _ndim(a)
    starts[axis] = start
    a = lax.dynamic_slice(doubled, starts, _shape(a))
  return a


_roll_dynamic_jit = _jit(_roll_dynamic, static_argnames=("axes",))


def roll(a, shift, axis=None):
  """Shift elements cyclically along ``axis`` (the flattened array when ``axis`` is None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.roll(jnp.arange(5), 2)
      Array([3, 4, 0, 1, 2], dtype=int32)
  """
  check_arraylike("roll", a)
  if axis is None:
    return reshape(roll(ravel(a), shift, 0), _shape(a))
  nd = _ndim(a)
  axes = _canonical_axes(axis, nd)
  s = core.concrete_value(shift)
  if s is not None and not isinstance(s, core.Tracer):
    s = np.asarray(s if not isinstance(s, (list, tuple)) else
                   [_concrete(e, "roll shift") for e in s])
    b_axes, b_shift = np.broadcast_arrays(np.asarray(axes), s.astype(np.int64))
    if b_shift.ndim > 1:
      raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    return _roll_static_jit(a, shifts=tuple(int(v) for v in b_shift.ravel()),
                            axes=tuple(int(v) for v in b_axes.ravel()))
  shift = lax.convert_element_type(shift, np.int32) if np.ndim(shift) else shift
  if np.ndim(shift) > 1 or (np.ndim(shift) == 1 and _shape(shift)[0] not in (1, len(axes))
                            and len(axes) != 1):
    raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
  if np.ndim(shift) == 1 and len(axes) == 1 and _shape(shift)[0] > 1:
    axes = axes * _shape(shift)[0]
  return _roll_dynamic_jit(a, shift, axes=axes)


def _rot90(m, k, axes):
  ax1, ax2 = axes
  perm = list(_range(_ndim(m)))
  perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
  perm = tuple(perm)
  if k == 1:
    return lax.transpose(_flip_jit(m, axes=(ax2,)), perm)
  if k == 2:
    return _flip_jit(_flip_jit(m, axes=(ax1,)), axes=(ax2,))
  return _flip_jit(lax.transpose(m, perm), axes=(ax2,))


_rot90_jit = _jit(_rot90, static_argnames=("k", "axes"))
_rot90_jit.__name__ = "rot90"


def rot90(m, k: int = 1, axes: tuple[int, int] = (0, 1)):
  """Rotate ``m`` by 90 degrees ``k`` times in the plane of ``axes`` (first towards second).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.rot90(jnp.arange(4).reshape(2, 2))
      Array([[1, 3],
             [0, 2]], dtype=int32)
  """
  check_arraylike("rot90", m)
  axes = tuple(axes)
  if len(axes) != 2:
    raise ValueError(f"rot90: len(axes) must be 2, got axes={axes}")
  nd = _ndim(m)
  if nd < 2:
    raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                     f"first argument of shape {_shape(m)}, which has ndim {nd}")
  ax1, ax2 = canonicalize_axis(axes[0], nd), canonicalize_axis(axes[1], nd)
  if ax1 == ax2:
    raise ValueError("Axes must be different")
  k = operator.index(k) % 4
  if k == 0:
    return _wrap(m)
  return _rot90_jit(m, k=k, axes=(ax1, ax2))


# --- padding ------------------------------------------------------------------------------------

def _pairs_shape_ok(shp: tuple, nd: int) -> bool:
  return shp in [(nd, 2), (1, 2), (2,), (1,), ()]


def _pad_width(pad_width, nd: int) -> tuple[tuple[int, int], ...]:
  pw = _concrete(pad_width, "jnp.pad requires a concrete pad_width")
  if pw.size and not np.issubdtype(pw.dtype, np.integer):
    raise TypeError("`pad_width` must be of integral type.")
  pw = pw.astype(np.int64)
  if not _pairs_shape_ok(pw.shape, nd):
    raise ValueError(f"jnp.pad: pad_width with nd={nd} has unsupported shape {pw.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
  pw = np.broadcast_to(pw.reshape((-1, 2) if pw.size == 2 or pw.ndim == 2 else (1, 1)),
                       (nd, 2))
  if (pw < 0).any():
    raise ValueError("index can't contain negative values")
  return tuple((int(b), int(a)) for b, a in pw)


def _pad_pairs(values, nd: int, name: str):
  """Per-axis (before, after) values from a scalar, a pair, or one pair per axis."""
  if _is_array(values):
    shp = _shape(values)
    if not _pairs_shape_ok(shp, nd):
      raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {shp}.")
    if not shp:
      return ((values, values),) * nd
    v = _broadcast_to(reshape(values, (-1, 2) if math.prod(shp) == 2 or len(shp) == 2
                              else (1, 1)), (nd, 2))
    return tuple(tuple(lax.squeeze(lax.slice(v, (i, j), (i + 1, j + 1)), (0, 1))
                       for j in (0, 1)) for i in _range(nd))
  v = np.asarray(values)
  if not _pairs_shape_ok(v.shape, nd):
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {v.shape}.")
  v = np.broadcast_to(v.reshape((-1, 2) if v.size == 2 or v.ndim == 2 else (1, 1)), (nd, 2))
  return tuple((v[i, 0].item(), v[i, 1].item()) for i in _range(nd))


def _pad_constant(array, pw, constant_values):
  nd = _ndim(array)
  dt = _dtype(array)
  if not isinstance(constant_values, tuple):
    c = lax.convert_element_type(constant_values, dt)
    return lax.pad(array, c, tuple((b, a, 0) for b, a in pw))
  for i in _range(nd):
    for side in (0, 1):
      if pw[i][side] == 0:
        continue
      cfg = [(0, 0, 0)] * nd
      cfg[i] = (pw[i][0], 0, 0) if side == 0 else (0, pw[i][1], 0)
      array = lax.pad(array, lax.convert_element_type(constant_values[i][side], dt),
                      tuple(cfg))
  return array


def _pad_edge(array, axis: int, before: int, after: int):
  n = _shape(array)[axis]
  pieces = []
  for w, (lo, hi) in ((before, (0, 1)), (after, (n - 1, n))):
    if w:
      pieces.append(repeat(_slice_axis(array, lo, hi, axis, strides=True), w, axis=axis))
    else:
      pieces.append(None)
  parts = [p for p in (pieces[0], array, pieces[1]) if p is not None]
  return lax.concatenate(parts, axis)


def _pad_wrap(array, axis: int, before: int, after: int):
  n = _shape(array)[axis]
  parts = []
  if before % n:
    parts.append(_slice_axis(array, n - before % n, n, axis, strides=True))
  parts += [array] * (before // n + 1 + after // n)
  if after % n:
    parts.append(_slice_axis(array, 0, after % n, axis, strides=True))
  return lax.concatenate(parts, axis)


def _pad_reflect(array, axis: int, before: int, after: int, mode: str, odd: bool):
  """'reflect'/'symmetric' padding, one mirror image (at most the axis length) at a time."""
  n = _shape(array)[axis]
  period = n - 1 if mode == "reflect" else n
  if period == 0:  # reflecting a single element repeats it
    return _static_take(array, np.zeros(before + n + after, np.int64), axis)
  off = 1 if mode == "reflect" else 0
  two = np.array(2, _dtype(array))
  while before or after:
    cur = _shape(array)[axis]
    if before:
      k = _min(before, period)
      piece = _flip_jit(_slice_axis(array, off, off + k, axis, strides=True), axes=(axis,))
      if odd:
        edge = _broadcast_to(_slice_axis(array, 0, 1, axis), _shape(piece))
        piece = lax.sub(lax.mul(two, edge), piece)
      array = lax.concatenate([piece, array], axis)
      before -= k
      cur += k
    if after:
      k = _min(after, period)
      piece = _flip_jit(_slice_axis(array, cur - off - k, cur - off, axis, strides=True),
                        axes=(axis,))
      if odd:
        edge = _broadcast_to(_slice_axis(array, cur - 1, cur, axis), _shape(piece))
        piece = lax.sub(lax.mul(two, edge), piece)
      array = lax.concatenate([array, piece], axis)
      after -= k
  return array


def _pad_stat(array, axis: int, before: int, after: int, mode: str, stat_length):
  from ember.numpy import reductions as red
  n = _shape(array)[axis]
  dt = _dtype(array)
  fn = {"maximum": red.max, "minimum": red.min, "mean": red.mean, "median": red.median}[mode]
  parts = {}
  for side, w in (("b", before), ("a", after)):
    if not w:
      continue
    length = n if stat_length is None else stat_length[axis][0 if side == "b" else 1]
    length = _max(_min(n, length), 1)
    part = _slice_axis(array, 0, length, axis) if side == "b" else \
        _slice_axis(array, n - length, n, axis)
    stat = fn(part, axis=axis, keepdims=True)
    if mode in ("mean", "median") and not dtypes.is_inexact(dt):
      stat = lax.round(stat, lax.RoundingMethod.TO_NEAREST_EVEN)
    stat = lax.convert_element_type(stat, dt)
    shp = list(_shape(array))
    shp[axis] = w
    parts[side] = _broadcast_to(stat, tuple(shp))
  pieces = [p for p in (parts.get("b"), array, parts.get("a")) if p is not None]
  return lax.concatenate(pieces, axis) if len(pieces) > 1 else array


def _pad_linear_ramp(array, axis: int, before: int, after: int, end_values):
  """NumPy's ramps: ``linspace(end_value, edge, width, endpoint=False)`` on each side."""
  from ember.numpy.creation import linspace
  n = _shape(array)[axis]
  dt = _dtype(array)
  parts = {}
  for side, w in (("b", before), ("a", after)):
    if not w:
      continue
    edge = _slice_axis(array, 0, 1, axis) if side == "b" else _slice_axis(array, n - 1, n, axis)
    edge = lax.squeeze(edge, (axis,))
    end = end_values[axis][0 if side == "b" else 1]
    ramp = linspace(end, edge, w, endpoint=False, dtype=dt, axis=axis)
    parts[side] = ramp if side == "b" else _flip_jit(ramp, axes=(axis,))
  pieces = [p for p in (parts.get("b"), array, parts.get("a")) if p is not None]
  return lax.concatenate(pieces, axis) if len(pieces) > 1 else array


_PAD_KWARGS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
               "linear_ramp": {"end_values"}, "maximum": {"stat_length"},
               "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
               "empty": set()}


def _pad(array, constant_values, *, pad_width, mode, reflect_type="even", stat_length=None,
         end_values=None):
  if mode in ("constant", "empty"):
    return _pad_constant(array, pad_width, constant_values)
  for axis in _range(_ndim(array)):
    before, after = pad_width[axis]
    if before == 0 and after == 0:
      continue
    n = _shape(array)[axis]
    if n == 0:
      raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
    if mode == "edge":
      array = _pad_edge(array, axis, before, after)
    elif mode == "wrap":
      array = _pad_wrap(array, axis, before, after)
    elif mode in ("reflect", "symmetric"):
      array = _pad_reflect(array, axis, before, after, mode, reflect_type == "odd")
    elif mode == "linear_ramp":
      array = _pad_linear_ramp(array, axis, before, after, end_values)
    else:
      array = _pad_stat(array, axis, before, after, mode, stat_length)
  return _wrap(array)


_pad_jit = _jit(_pad, static_argnames=("pad_width", "mode", "reflect_type", "stat_length",
                                       "end_values"))


def pad(array, pad_width, mode="constant", **kwargs):
  """Pad ``array`` with ``pad_width`` = n, (before, after) or one pair per axis.

  Modes: 'constant' (``constant_values``), 'edge', 'reflect' and 'symmetric'
  (``reflect_type``), 'wrap', 'linear_ramp' (``end_values``), 'maximum', 'minimum', 'mean',
  'median' (``stat_length``), 'empty', or a callable ``f(vector, pad_width, iaxis, kwargs)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.pad(jnp.arange(3), (1, 2), mode="edge")
      Array([0, 0, 1, 2, 2, 2], dtype=int32)
  """
  check_arraylike("pad", array)
  nd = _ndim(array)
  pw = _pad_width(pad_width, nd)
  if all(b == 0 and a == 0 for b, a in pw) and not callable(mode):
    return _wrap(array)
  if callable(mode):
    return _pad_callable(array, pw, mode, kwargs)
  if mode not in _PAD_KWARGS:
    raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
  extra = set(kwargs) - _PAD_KWARGS[mode]
  if extra:
    raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
  cv = kwargs.get("constant_values", 0)
  if not (_is_array(cv) and _ndim(cv) == 0) and np.ndim(cv) != 0:
    pairs = _pad_pairs(cv, nd, "constant_values")
    flat = [v for p in pairs for v in p]
    uniform = all(not _is_array(v) for v in flat) and all(v == flat[0] for v in flat)
    cv = flat[0] if uniform else pairs
  reflect_type = kwargs.get("reflect_type", "even")
  if reflect_type not in ("even", "odd"):
    raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
  stat_length = kwargs.get("stat_length")
  if stat_length is not None:
    stat_length = _pad_width(stat_length, nd)
  ev = None
  if mode == "linear_ramp":
    ev = _pad_pairs(_concrete(kwargs.get("end_values", 0), "jnp.pad: end_values must be static"),
                    nd, "end_values")
  return _pad_jit(array, cv, pad_width=pw, mode=mode, reflect_type=reflect_type,
                  stat_length=stat_length, end_values=ev)


def _pad_callable(array, pw, fn, kwargs):
  """NumPy's callable padding protocol, applied to each 1-D lane of each axis."""
  from ember.numpy import creation
  array = _pad_constant(array, pw, 0)
  for axis in _range(_ndim(array)):
    moved = moveaxis(array, axis, -1)
    lanes = reshape(moved, (-1, _shape(moved)[-1]))
    rows = [creation.asarray(fn(r, pw[axis], axis, kwargs)) for r in unstack(lanes)]
    if rows:
      lanes = stack(rows)
    array = moveaxis(reshape(lanes, _shape(moved)), -1, axis)
  return array


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
    from ember.numpy.misc import _where_jit
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


def _take_along_axis(arr, indices, *, axis, mode, fill_value):
  shp = _shape(arr)
  nd = len(shp)
  n = shp[axis]
  ishp = _shape(indices)
  if mode in ("fill", "promise_in_bounds") or mode is None:
    indices = _normalize_index(indices, n, use_where_jit=False)
  elif mode == "wrap":
    from ember.numpy import ufuncs
    indices = ufuncs.remainder(indices, np.array(n, _dtype(indices)) if n else 1)
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
  gmode = {"clip": "CLIP", "wrap": "PROMISE_IN_BOUNDS",
           "promise_in_bounds": "PROMISE_IN_BOUNDS"}.get(mode, "FILL_OR_DROP")
  return lax.gather(arr, idx, dnums, (1,) * nd, mode=_mode_enum(gmode), fill_value=fill_value)


_take_along_axis_jit = _jit(_take_along_axis, static_argnames=("axis", "mode", "fill_value"))
_take_along_axis_jit.__name__ = "take_along_axis"


def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
  """Pick values from ``arr`` at ``indices`` along ``axis`` (shapes broadcast elsewhere).

  Typically used with the output of :func:`argsort`. Out-of-bound indices follow ``mode`` as
  in :func:`take` ('fill' by default).

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
    return take_along_axis(ravel(arr), indices, 0, mode=mode, fill_value=fill_value)
  _check_index_dtype(indices, "take_along_axis")
  if _ndim(indices) != _ndim(arr):
    raise ValueError("indices and arr must have the same number of dimensions; "
                     f"{_ndim(indices)} vs. {_ndim(arr)}")
  axis = canonicalize_axis(axis, _ndim(arr))
  ishp, ashp = _shape(indices), _shape(arr)
  _util.broadcast_shapes(ishp, ashp[:axis] + (ishp[axis],) + ashp[axis + 1:])
  if ashp[axis] == 0 and math.prod(ishp) != 0:
    raise IndexError("Cannot do a non-empty jnp.take_along_axis() from an empty axis.")
  if isinstance(mode, str):
    mode = mode.lower()
  elif mode is not None:
    mode = getattr(mode, "name", str(mode)).lower()
    mode = {"fill_or_drop": "fill"}.get(mode, mode)
  if mode not in (None, "fill", "clip", "wrap", "promise_in_bounds"):
    raise ValueError(f"Invalid mode '{mode}' for take_along_axis")
  if fill_value is not None:
    fill_value = _static_scalar(fill_value, "take_along_axis")
  return _take_along_axis_jit(arr, indices, axis=axis, mode=mode, fill_value=fill_value)


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
  if ((idx < -n) | (idx >= n)).any():
    raise IndexError(f"index out of bounds for axis {axis} with size {n}")
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
  values = lax.convert_element_type(values, _dtype(arr))
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
