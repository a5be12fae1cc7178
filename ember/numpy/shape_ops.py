"""ember.numpy shape manipulation: shape queries, reshaping, transposing, adding and removing unit
axes, broadcasting, flipping and rolling; plus the shared helpers (``_shape``, ``_wrap``,
``_slice_axis``...) that the other array-manipulation modules build on.

Joining, splitting and repeating live in ``joining.py``, ``pad`` in ``padding.py``, and
``take``/``take_along_axis``/``insert``/``delete`` in ``taking.py``.

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
from ember.lax.structural import _shape_error
from ember.numpy._util import canonicalize_axis, check_arraylike, ensure_array
from ember.numpy import _util
from ember.transforms.jit import jit as _jit

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes", "moveaxis",
    "rollaxis", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
    "broadcast_arrays", "broadcast_shapes", "flip", "fliplr", "flipud", "roll", "rot90", "shape",
    "ndim", "size",
]

_range = builtins.range


# --- shared helpers (also used by the other ember.numpy modules) -------------------------------

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
    raise _shape_error(tuple(seq)) from None


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


def reshape(a, shape, order: str = "C", *, copy=None, out_sharding=None):
  """Give ``a`` a new shape with the same number of elements (one axis may be ``-1``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.reshape(jnp.arange(6), (3, 2))
      Array([[0, 1],
             [2, 3],
             [4, 5]], dtype=int32)
  """
  check_arraylike("reshape", a)
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
    raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)} (moveaxis needs "
                     f"one destination per source axis; got source={source!r}, "
                     f"destination={destination!r})")
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
    s = lax._convert_element_type(s, np.int32)
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
  shift = lax._convert_element_type(shift, np.int32) if np.ndim(shift) else shift
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
