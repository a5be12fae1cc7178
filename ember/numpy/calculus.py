"""ember.numpy finite differences and quadrature: gradient, trapezoid, unwrap, and the
Vandermonde matrix ``vander`` (``diff``, ``ediff1d`` and ``interp`` live in ``misc.py`` and
``counting.py``).

All are compositions of jnp operations, so they differentiate, batch and jit like them.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.gradient(jnp.array([1., 4., 9., 16.]))
    Array([3., 4., 6., 7.], dtype=float32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ember import lax
from ember.numpy._util import (canonicalize_axis, check_arraylike, ensure_array, promote_dtypes,
                               promote_dtypes_inexact)
from ember.numpy.creation import named_jit
from ember.numpy.misc import diff
from ember.numpy.reductions import cumprod, cumsum
from ember.numpy.shape_ops import _dtype, _ndim, _shape, flip, moveaxis
from ember.numpy.ufuncs import _where, mod
from ember.numpy.ufuncs_logic import logical_and

__all__ = ["gradient", "trapezoid", "unwrap", "vander"]


def _along(x, start, stop, axis: int):
  return lax.slice_in_dim(x, start, stop, axis=axis)


def _gradient_axis(f, spacing, axis: int):
  """The second-order central differences of ``f`` along ``axis`` (first order at the ends);
  ``spacing`` is a scalar step or the 1-D coordinates along the axis."""
  n = _shape(f)[axis]
  if n < 2:
    raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 "
                     "elements are required.")
  lo, mid, hi = _along(f, 0, n - 2, axis), _along(f, 1, n - 1, axis), _along(f, 2, n, axis)
  first = _along(f, 1, 2, axis) - _along(f, 0, 1, axis)
  last = _along(f, n - 1, n, axis) - _along(f, n - 2, n - 1, axis)
  if _ndim(spacing) == 0:
    inner = (hi - lo) / (2 * spacing)
    first, last = first / spacing, last / spacing
  else:
    shape = tuple(-1 if i == axis else 1 for i in range(_ndim(f)))
    dx = lax.reshape(diff(spacing), tuple(n - 1 if s == -1 else s for s in shape))
    dx1, dx2 = _along(dx, 0, n - 2, axis), _along(dx, 1, n - 1, axis)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inner = a * lo + b * mid + c * hi
    first, last = first / _along(dx, 0, 1, axis), last / _along(dx, n - 2, n - 1, axis)
  return lax.concatenate([first, inner, last], axis)


def _spacings(varargs, f, axes):
  if not varargs:
    return [1.0] * len(axes)
  if len(varargs) == 1 and _ndim(varargs[0]) == 0:
    return [varargs[0]] * len(axes)
  if len(varargs) != len(axes):
    raise TypeError("Invalid number of spacing arguments")
  out = []
  for h, ax in zip(varargs, axes):
    check_arraylike("gradient", h)
    if _ndim(h) == 1 and _shape(h)[0] != _shape(f)[ax]:
      raise ValueError("Spacing arrays must have the same length as the dimension along "
                       "which the gradient is calculated.")
    if _ndim(h) > 1:
      raise ValueError("Spacing arrays must be scalars or 1-D arrays.")
    out.append(promote_dtypes_inexact(ensure_array(h))[0] if _ndim(h) else h)
  return out


def gradient(f, *varargs, axis=None, edge_order=None):
  """The gradient of ``f`` sampled on a grid: central differences inside, one-sided at the
  ends, along each axis of ``axis`` (all by default).

  ``varargs`` gives the spacing: nothing (1), one scalar for all axes, or per axis a scalar
  or the 1-D sample coordinates. ``edge_order`` is not supported, as in JAX.

  Returns:
    One array when there is one axis, else a list with one array per axis.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.gradient(jnp.array([[1., 2.], [4., 8.]]), axis=0)
      Array([[3., 6.],
             [3., 6.]], dtype=float32)
  """
  check_arraylike("gradient", f)
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  f, = promote_dtypes_inexact(ensure_array(f))
  if axis is None:
    axes = tuple(range(_ndim(f)))
  else:
    axes = tuple(canonicalize_axis(operator.index(a), _ndim(f))
                 for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
  spacings = _spacings(varargs, f, axes)
  grads = [_gradient_axis(f, h, ax) for h, ax in zip(spacings, axes)]
  return grads[0] if len(grads) == 1 else grads


_UNIT_DX = 1.0  # trapezoid's default spacing: a constant of the trace, as JAX's jit leaves it


def trapezoid(y, x=None, dx=_UNIT_DX, axis: int = -1):
  """The integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points ``x``
  (1-D, or broadcasting against ``y``) or with spacing ``dx`` (a scalar, or an array
  broadcasting against ``y`` whose last axis lies along ``axis``).

  As JAX's, a jitted function of its arrays (``axis`` static), so its errors and jaxprs match.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.trapezoid(jnp.array([1., 2., 3.]), x=jnp.array([0., 1., 3.]))
      Array(6.5, dtype=float32)
  """
  if dx is _UNIT_DX:
    return _trapezoid_jit(y, x, axis=axis)
  return _trapezoid_jit(y, x, dx, axis=axis)


def _trapezoid(y, x=None, dx=_UNIT_DX, *, axis):
  from ember.numpy.creation import asarray
  if x is None:
    check_arraylike("trapezoid", y)
    y, = promote_dtypes_inexact(ensure_array(y))
    d = asarray(dx)
    if _ndim(d):
      d = moveaxis(lax.expand_dims(d, tuple(range(_ndim(y) - _ndim(d)))), axis, -1)
  else:
    check_arraylike("trapezoid", y, x)
    y, x = promote_dtypes_inexact(ensure_array(y), ensure_array(x))
    d = diff(x) if _ndim(x) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
  y = moveaxis(y, axis, -1)
  if not _ndim(d) or _shape(d)[-1] == 1:  # one spacing along the axis: sum minus half the ends
    step = d if not _ndim(d) else d[..., 0]
    return step * (y.sum(-1) - 0.5 * (y[..., 0] + y[..., -1]))
  return 0.5 * (d * (y[..., 1:] + y[..., :-1])).sum(-1)


_trapezoid_jit = named_jit(_trapezoid, "trapezoid", static_argnames=("axis",))


def unwrap(p, discont=None, axis: int = -1, period=2 * math.pi):
  """``p`` with jumps between neighbours along ``axis`` larger than ``discont`` (default
  ``period / 2``) replaced by their remainder modulo ``period``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unwrap(jnp.array([0., 1., 7.]), period=6)
      Array([0., 1., 1.], dtype=float32)
  """
  check_arraylike("unwrap", p)
  p = ensure_array(p)
  axis = canonicalize_axis(axis, _ndim(p))
  dd = diff(p, axis=axis)
  dd, period_ = promote_dtypes(dd, ensure_array(period))
  if discont is None:
    discont = period_ / 2
  integer = np.issubdtype(_dtype(dd), np.integer)
  high = period_ // 2 if integer else period_ / 2
  ambiguous = lax.eq(mod(period_, 2), np.zeros((), _dtype(period_))) if integer else True
  low = -high
  ddmod = mod(dd - low, period_) + low
  ddmod = _where(logical_and(ambiguous, logical_and(ddmod == low, dd > 0)), high, ddmod)
  correct = _where(abs(dd) < discont, np.zeros((), _dtype(dd)), ddmod - dd)
  n = _shape(p)[axis]
  head = lax._convert_element_type(_along(p, 0, min(n, 1), axis), _dtype(dd))
  tail = lax._convert_element_type(_along(p, min(n, 1), n, axis), _dtype(dd))
  return lax.concatenate([head, tail + cumsum(correct, axis=axis)], axis)


def vander(x, N=None, increasing=False):
  """The Vandermonde matrix of the 1-D ``x``: column ``j`` holds ``x ** (N - 1 - j)``
  (``x ** j`` if ``increasing``); ``N`` defaults to ``len(x)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.vander(jnp.array([1, 2, 3]), 3)
      Array([[1, 1, 1],
             [4, 2, 1],
             [9, 3, 1]], dtype=int32)
  """
  check_arraylike("vander", x)
  x = ensure_array(x)
  if _ndim(x) != 1:
    raise ValueError("x must be a one-dimensional array")
  n = _shape(x)[0]
  N = n if N is None else operator.index(N)
  if N < 0:
    raise ValueError("N must be nonnegative")
  if N == 0:
    return lax.full((n, 0), 0, _dtype(x))
  ones = lax.full((n, 1), 1, _dtype(x))
  powers = cumprod(lax.concatenate([ones, lax.broadcast_in_dim(x, (n, N - 1), (0,))], 1),
                   axis=1)
  return powers if increasing else flip(powers, axis=1)
