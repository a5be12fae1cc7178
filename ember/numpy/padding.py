"""ember.numpy ``pad`` with all of NumPy's modes: constant, edge, wrap, reflect/symmetric (even or
odd), the statistic modes (maximum, minimum, mean, median), linear_ramp, empty, and a callable.

Pad widths must be static; ``constant_values`` may be traced.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.pad(jnp.arange(3), (1, 2), mode="edge")
    Array([0, 0, 1, 2, 2, 2], dtype=int32)
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import check_arraylike
from ember.numpy.joining import repeat, stack, unstack
from ember.numpy.shape_ops import (_broadcast_to, _concrete, _dtype, _flip_jit, _is_array, _ndim,
                                   _shape, _slice_axis, _wrap, moveaxis, reshape)
from ember.numpy.taking import _static_take
from ember.transforms.jit import jit as _jit

__all__ = ["pad"]

_range = builtins.range
_max = builtins.max
_min = builtins.min


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


def _as_array_type(value, array):
  """``value`` cast to ``array``'s dtype and weak type (padding keeps a weakly typed array weak);
  warns as JAX does when a complex value loses its imaginary part."""
  dt = _dtype(array)
  if dtypes.is_complex(dtypes.dtype(value)) and not dtypes.is_complex(dt):
    warnings.warn("Casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=2)
  return lax._convert_element_type(value, dt, dtypes.is_weakly_typed(array))


def _pad_constant(array, pw, constant_values):
  nd = _ndim(array)
  if not isinstance(constant_values, tuple):
    c = _as_array_type(constant_values, array)
    # NumPy integers in the config, as JAX's (its jaxprs print them as ``np.int64(1)``)
    return lax.pad(array, c, tuple((np.int64(b), np.int64(a), 0) for b, a in pw))
  for i in _range(nd):
    for side in (0, 1):
      if pw[i][side] == 0:
        continue
      cfg = [(0, 0, 0)] * nd
      cfg[i] = (np.int64(pw[i][0]), 0, 0) if side == 0 else (0, np.int64(pw[i][1]), 0)
      array = lax.pad(array, _as_array_type(constant_values[i][side], array), tuple(cfg))
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
  two = lax._convert_element_type(2, _dtype(array), dtypes.is_weakly_typed(array))
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
  from ember.numpy.statistics import median
  n = _shape(array)[axis]
  dt = _dtype(array)
  weak = dtypes.is_weakly_typed(array)
  fn = {"maximum": red.max, "minimum": red.min, "mean": red.mean, "median": median}[mode]
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
    stat = lax._convert_element_type(stat, dt, weak)
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
    ramp = lax._convert_element_type(ramp, dt, dtypes.is_weakly_typed(array))
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
