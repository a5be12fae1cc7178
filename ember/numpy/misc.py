"""ember.numpy selection, comparison and counting helpers: where, nonzero, select, piecewise,
convolve/correlate, isclose/allclose, array_equal, nan_to_num, diff, bincount, histogram,
interp, unique and index helpers (tril_indices, unravel_index, ix_, ...).

Functions whose output shape depends on the data (``nonzero``, ``unique``, ``bincount``
without ``length``...) need concrete inputs, or a static ``size=`` under ``jit``.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.where(jnp.array([True, False]), 1.0, 2)
    Array([1., 2.], dtype=float32, weak_type=True)
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, NamedTuple

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import (canonicalize_axis, check_arraylike, ensure_array,
                               promote_dtypes, promote_dtypes_inexact)
from ember.numpy import _util
from ember.numpy.shape_ops import (_broadcast_to, _dtype, _flip_jit, _is_array, _ndim, _shape,
                                   _slice_axis, _wrap, concatenate, ravel, reshape, stack, take)
from ember.transforms.jit import jit as _jit

__all__ = [
    "where", "nonzero", "argwhere", "flatnonzero", "select",
    "piecewise", "convolve", "correlate", "isclose", "allclose", "array_equal", "array_equiv",
    "isscalar", "iscomplexobj", "isrealobj", "iscomplex", "isreal", "nan_to_num", "diff",
    "ediff1d", "bincount", "histogram", "histogram_bin_edges", "digitize", "interp", "unique",
    "unique_values", "unique_counts", "unique_inverse", "unique_all", "tril_indices",
    "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices",
    "diag_indices_from", "indices", "ix_", "unravel_index", "ravel_multi_index", "extract",
    "compress",
]

_range = builtins.range


def _isnan(x):
  return lax.ne(x, x)


def _int_array(v) -> "object":
  """A device array of the default int dtype (JAX's index dtype) from a NumPy value."""
  return ensure_array(np.asarray(v, dtype=dtypes.default_int_dtype()))


# --- where ------------------------------------------------------------------------------------

def _where(condition, x, y):
  if not dtypes.is_bool(_dtype(condition)):
    condition = lax.ne(condition, np.zeros((), _dtype(condition)))
  x, y = promote_dtypes(x, y)
  shp = _util.broadcast_shapes(_shape(condition), _shape(x), _shape(y))
  condition = _broadcast_to(condition, shp)
  x = _broadcast_to(x, shp)
  y = _broadcast_to(y, shp)
  return lax.select(condition, x, y)


_where_jit = _jit(_where)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  """``x`` where ``condition`` is true, else ``y`` (broadcast and type-promoted).

  With only ``condition`` this is :func:`nonzero` (``size``/``fill_value`` apply there).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.where(jnp.arange(4) > 1, jnp.arange(4), -1)
      Array([-1, -1,  2,  3], dtype=int32)
  """
  if x is None and y is None:
    check_arraylike("where", condition)
    return nonzero(condition, size=size, fill_value=fill_value)
  if size is not None or fill_value is not None:
    raise ValueError("size and fill_value arguments cannot be used in three-term where "
                     "function.")
  check_arraylike("where", condition, x, y)
  return _where_jit(condition, x, y)


# --- nonzero ----------------------------------------------------------------------------------

def _static_size(size, fun_name: str) -> int:
  try:
    return operator.index(size)
  except TypeError:
    raise TypeError(f"{fun_name}: size must be a static integer, got {size!r}") from None


def _nonzero_flat(mask, size: int):
  """The first ``size`` flat positions of True entries (ascending), and how many there are."""
  it = dtypes.default_int_dtype()
  flat = ravel(mask)
  n = _shape(flat)[0]
  idx = lax.broadcasted_iota(it, (n,), 0)
  _, order = lax.sort((lax.bitwise_not(flat), idx), dimension=0, is_stable=True, num_keys=1)
  count = lax.reduce_sum(lax.convert_element_type(flat, it), (0,))
  if size <= n:
    pos = lax.slice(order, (0,), (size,))
  else:
    pos = lax.pad(order, np.zeros((), it), ((0, size - n, 0),))
  return pos, count


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements of ``a``, one int32 array per dimension.

  ``size`` fixes the output length (padding with ``fill_value``, 0 by default, or
  truncating); it is required under ``jit`` since the count depends on the data.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nonzero(jnp.array([[0, 1], [2, 0]]))
      (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
  """
  check_arraylike("nonzero", a)
  shp = _shape(a)
  if not shp:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                     "jnp.atleast_1d(scalar).nonzero() instead.")
  if size is None:
    v = core.concrete_value(a)
    if v is None or isinstance(v, core.Tracer):
      raise ConcretizationTypeError(
          a, "The size argument of jnp.nonzero must be statically specified to use "
          "jnp.nonzero within JAX transformations.")
    host = np.asarray(v)
    if fill_value is None:
      return tuple(_int_array(i) for i in np.nonzero(host))
    size = int(np.count_nonzero(host))
  size = _static_size(size, "nonzero")
  nd = len(shp)
  if fill_value is None:
    fills = (0,) * nd
  elif np.ndim(fill_value) == 0 and not isinstance(fill_value, (list, tuple)):
    fills = (fill_value,) * nd
  else:
    fills = tuple(fill_value)
    if len(fills) != nd:
      raise ValueError(f"fill_value must be a scalar or a tuple of length {nd}; got "
                       f"{fill_value}")
  return _nonzero_jit(a, fills, size=size)


def _nonzero(a, fills, *, size):
  shp = _shape(a)
  mask = a if dtypes.is_bool(_dtype(a)) else lax.ne(a, np.zeros((), _dtype(a)))
  pos, count = _nonzero_flat(mask, size)
  it = dtypes.default_int_dtype()
  valid = lax.lt(lax.broadcasted_iota(it, (size,), 0), count)
  outs = []
  rem = pos
  strides = [math.prod(shp[i + 1:]) for i in _range(len(shp))]
  for d, st in enumerate(strides):
    if st == 0:
      coord = lax.full((size,), 0, it)
    else:
      coord = lax.div(rem, np.array(st, it))
      rem = lax.rem(rem, np.array(st, it))
    fill = lax.convert_element_type(fills[d], it)
    outs.append(lax.select(valid, coord, _broadcast_to(fill, (size,))))
  return tuple(outs)


_nonzero_jit = _jit(_nonzero, static_argnames=("size",))
_nonzero_jit.__name__ = "nonzero"


def flatnonzero(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements of the flattened ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.flatnonzero(jnp.array([[0, 1], [2, 0]]))
      Array([1, 2], dtype=int32)
  """
  check_arraylike("flatnonzero", a)
  return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements, one row per element: shape ``(count, a.ndim)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argwhere(jnp.array([[0, 1], [2, 0]]))
      Array([[0, 1],
             [1, 0]], dtype=int32)
  """
  check_arraylike("argwhere", a)
  if _ndim(a) == 0:
    v = core.concrete_value(a)
    if size is None:
      if v is None or isinstance(v, core.Tracer):
        raise ConcretizationTypeError(
            a, "The size argument of jnp.argwhere must be statically specified to use "
            "jnp.argwhere within JAX transformations.")
      size = 1 if np.asarray(v) != 0 else 0
    return lax.full((_static_size(size, "argwhere"), 0), 0, dtypes.default_int_dtype())
  parts = nonzero(a, size=size, fill_value=fill_value)
  return stack(parts, axis=1) if len(parts) > 1 else reshape(parts[0], (-1, 1))


def extract(condition, arr, *, size=None, fill_value=0):
  """The elements of ``arr`` where ``condition`` is true (flattened).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.extract(jnp.array([True, False, True]), jnp.array([1, 2, 3]))
      Array([1, 3], dtype=int32)
  """
  return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.compress(jnp.array([False, True]), jnp.array([[1, 2], [3, 4]]), axis=0)
      Array([[3, 4]], dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  check_arraylike("compress", condition, a)
  if _ndim(condition) != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, _ndim(a))
  n = _shape(a)[axis]
  cond = condition
  if not dtypes.is_bool(_dtype(cond)):
    cond = lax.ne(cond, np.zeros((), _dtype(cond)))
  m = _shape(cond)[0]
  if m > n:
    cv = core.concrete_value(cond)
    if cv is None or isinstance(cv, core.Tracer) or np.asarray(cv)[n:].any():
      raise IndexError(f"compress: condition of length {m} is longer than the axis ({n})")
    cond = lax.slice(cond, (0,), (n,))
  (idx,) = nonzero(cond, size=size, fill_value=n if size is not None else None)
  out = take(a, idx, axis=axis, mode="fill", fill_value=fill_value)
  return out


# --- select / piecewise -----------------------------------------------------------------------

def select(condlist, choicelist, default=0):
  """Elementwise, the choice for the first true condition, else ``default``.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.arange(4)
      >>> jnp.select([x < 1, x > 2], [x, -x], 9)
      Array([ 0,  9,  9, -3], dtype=int32)
  """
  condlist, choicelist = list(condlist), list(choicelist)
  if len(condlist) != len(choicelist):
    raise ValueError("condlist must have length equal to choicelist ({} vs {})".format(
        len(condlist), len(choicelist)))
  if not condlist:
    raise ValueError("condlist must be non-empty")
  check_arraylike("select", *condlist, *choicelist, default)
  condlist = [c if dtypes.is_bool(_dtype(c)) else lax.ne(c, np.zeros((), _dtype(c)))
              for c in condlist]
  values = promote_dtypes(default, *choicelist)
  shp = _util.broadcast_shapes(*[_shape(v) for v in values], *[_shape(c) for c in condlist])
  out = _broadcast_to(values[0], shp)
  for cond, choice in zip(condlist[::-1], values[:0:-1]):
    out = lax.select(_broadcast_to(cond, shp), _broadcast_to(choice, shp), out)
  return _wrap(out)


def piecewise(x, condlist, funclist, *args, **kw):
  """Evaluate ``funclist[i]`` (a function or a constant) where ``condlist[i]`` holds; one
  extra function gives the value where no condition holds (later conditions win).

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.arange(4.0)
      >>> jnp.piecewise(x, [x < 2], [lambda v: v * 10, lambda v: -v])
      Array([ 0., 10., -2., -3.], dtype=float32)
  """
  check_arraylike("piecewise", x)
  x = _wrap(x)
  if (_is_array(condlist) or isinstance(condlist, np.ndarray)) and _ndim(condlist) == 0:
    condlist = [condlist]
  condlist = list(condlist)  # an array's first axis indexes the conditions, as in JAX
  funclist = list(funclist)
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    other = funclist[-1]
    funclist = funclist[:-1]
  elif nf == nc:
    other = 0
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected")
  dt = _dtype(x)
  shp = _shape(x)

  def value(f):
    v = f(x, *args, **kw) if callable(f) else f
    return _broadcast_to(lax.convert_element_type(v, dt), shp)

  out = value(other)
  for cond, f in zip(condlist, funclist):
    c = _broadcast_to(cond if dtypes.is_bool(_dtype(cond)) else
                      lax.ne(cond, np.zeros((), _dtype(cond))), shp)
    out = lax.select(c, value(f), out)
  return out


# --- convolution ------------------------------------------------------------------------------

def _conv_1d(a, v, mode: str, op: str, precision, preferred_element_type):
  check_arraylike(op, a, v)
  if _ndim(a) != 1 or _ndim(v) != 1:
    raise ValueError(f"{op}() only support 1-dimensional inputs.")
  if _shape(a)[0] == 0 or _shape(v)[0] == 0:
    raise ValueError(f"{op}: inputs cannot be empty, got shapes {_shape(a)} and "
                     f"{_shape(v)}.")
  if mode not in ("full", "same", "valid"):
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  pet = None if preferred_element_type is None else \
      dtypes.check_and_canonicalize_user_dtype(preferred_element_type, op)
  if pet is not None:
    in_dt = dtypes.to_inexact_dtype(dtypes.result_type(a, v))
    if dtypes.promote_types(pet, in_dt) != pet:
      raise TypeError("`preferred_element_type` must not be narrower than the original type.")
  return _conv_jit(a, v, mode=mode, op=op, precision=precision, preferred_element_type=pet)


def _sliding_dot(a, v, mode: str, precision, dt):
  """``out[k] = sum_n a_padded[n + k] * v[n]`` for 1-D ``a`` at least as long as ``v``."""
  n, m = _shape(a)[0], _shape(v)[0]
  if mode == "valid":
    lo, hi = 0, 0
  elif mode == "same":
    lo, hi = m // 2, m - m // 2 - 1
  else:
    lo, hi = m - 1, m - 1
  if lo or hi:
    a = lax.pad(a, np.zeros((), _dtype(a)), ((lo, hi, 0),))
  length = n + lo + hi - m + 1
  windows = np.arange(length)[:, None] + np.arange(m)[None, :]
  w = take(a, np.asarray(windows, np.int32), mode="clip")
  return lax.dot_general(w, v, (((1,), (0,)), ((), ())), precision=precision,
                         preferred_element_type=dt)


def _conv(a, v, *, mode, op, precision, preferred_element_type):
  a, v = promote_dtypes_inexact(a, v)
  dt = _dtype(a) if preferred_element_type is None else preferred_element_type
  cplx = dtypes.is_complex(_dtype(a))
  if op == "convolve":
    if _shape(a)[0] < _shape(v)[0]:
      a, v = v, a
    return _sliding_dot(a, _flip_jit(v, axes=(0,)), mode, precision, dt)
  if _shape(a)[0] >= _shape(v)[0]:
    return _sliding_dot(a, lax.conj(v) if cplx else v, mode, precision, dt)
  # correlate(a, v)[k] == conj(correlate(v, a)[-k])
  out = _flip_jit(_sliding_dot(v, lax.conj(a) if cplx else a, mode, precision, dt), axes=(0,))
  return lax.conj(out) if cplx else out


_conv_jit = _jit(_conv, static_argnames=("mode", "op", "precision", "preferred_element_type"))


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
  """Discrete linear convolution of two 1-D arrays (``mode``: 'full', 'same' or 'valid').

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.convolve(jnp.array([1, 2, 1]), jnp.ones(10))
      Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)
  """
  return _conv_1d(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
  """Cross-correlation of two 1-D arrays: ``c[k] = sum_n a[n + k] * conj(v[n])``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.correlate(jnp.array([1., 2., 3.]), jnp.array([0., 1.]))
      Array([2., 3.], dtype=float32)
  """
  return _conv_1d(a, v, mode, "correlate", precision, preferred_element_type)


# --- closeness and equality -------------------------------------------------------------------

def _isfinite(x):
  dt = _dtype(x)
  if dtypes.is_complex(dt):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  if dtypes.is_float(dt):
    return lax.is_finite(x)
  return lax.full(_shape(x), True, np.bool_)


def _any_nan(x):
  if dtypes.is_complex(_dtype(x)):
    return lax.bitwise_or(_isnan(lax.real(x)), _isnan(lax.imag(x)))
  return _isnan(x)


def _is_static_scalar(v) -> bool:
  return isinstance(v, (bool, int, float, complex, np.generic))


def _as_real(v, real_dt):
  """``v`` in ``real_dt``: a literal constant for Python scalars, a cast for arrays."""
  if _is_static_scalar(v):
    return np.asarray(v, real_dt)
  return lax.convert_element_type(v, real_dt)


def _isclose(a, b, rtol, atol, *, equal_nan):
  a, b = promote_dtypes(a, b)
  dt = _dtype(a)
  if not dtypes.is_inexact(dt):
    if dtypes.is_bool(dt):
      a, b = (lax.convert_element_type(v, dtypes.default_float_dtype()) for v in (a, b))
    else:
      a, b = promote_dtypes_inexact(a, b)
    dt = _dtype(a)
  real_dt = np.dtype(dtypes.finfo(dt).dtype)
  rtol, atol = _as_real(rtol, real_dt), _as_real(atol, real_dt)
  shp = _util.broadcast_shapes(_shape(a), _shape(b))
  a, b = _broadcast_to(a, shp), _broadcast_to(b, shp)
  both_nan = lax.bitwise_and(_any_nan(a), _any_nan(b))
  finite = _isfinite(b)
  dist = lax.abs(lax.sub(a, b))
  close = lax.le(dist, lax.add(atol, lax.mul(rtol, lax.abs(b))))
  out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(finite, close))
  if equal_nan:
    out = lax.bitwise_or(out, both_nan)
  return out


def _named_jits(fun, name: str, static: tuple, maybe_static: tuple):
  """Two jitted versions of ``fun`` named ``name``: ``maybe_static`` arguments static (for
  Python scalars, which then appear as literals) or traced (for arrays)."""
  f_static = _jit(fun, static_argnames=static + maybe_static)
  f_dyn = _jit(fun, static_argnames=static)
  f_static.__name__ = f_dyn.__name__ = name

  def call(*args, **kwargs):
    if all(_is_static_scalar(kwargs[k]) or kwargs[k] is None for k in maybe_static):
      return f_static(*args, **kwargs)
    return f_dyn(*args, **kwargs)
  return call, f_dyn


_isclose_call, _isclose_dyn = _named_jits(_isclose, "isclose", ("equal_nan",), ("rtol", "atol"))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  """Elementwise ``|a - b| <= atol + rtol * |b|`` (infinities must match exactly).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isclose(jnp.array([1.0, 2.0]), jnp.array([1.0 + 1e-7, 2.1]))
      Array([ True, False], dtype=bool)
  """
  check_arraylike("isclose", a, b)
  return _isclose_call(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))


def _all(x):
  """``x.all()`` for a boolean array, as a (non-weak) bool scalar."""
  nd = _ndim(x)
  out = lax.reduce_and(x, tuple(_range(nd))) if nd else x
  if dtypes.is_weakly_typed(out):
    out = lax._convert_element_type(out, np.bool_, False)
  return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  """Whether all elements of ``a`` and ``b`` are close (see :func:`isclose`).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-9)
      Array(True, dtype=bool)
  """
  check_arraylike("allclose", a, b)
  return _allclose_call(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))


def _allclose(a, b, rtol, atol, *, equal_nan):
  return _all(_isclose_dyn(a, b, rtol, atol, equal_nan=equal_nan))


_allclose_call, _ = _named_jits(_allclose, "allclose", ("equal_nan",), ("rtol", "atol"))


def _as_array_or_none(x):
  try:
    if _is_array(x):
      return x
    return ensure_array(np.asarray(x)) if not _util.is_arraylike(x) else x
  except Exception:  # noqa: BLE001 -- anything NumPy cannot convert is simply "not equal"
    return None


def array_equal(a1, a2, equal_nan: bool = False):
  """Whether ``a1`` and ``a2`` have the same shape and elements.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.array_equal(jnp.arange(3), jnp.array([0, 1, 2]))
      Array(True, dtype=bool)
  """
  a1, a2 = _as_array_or_none(a1), _as_array_or_none(a2)
  if a1 is None or a2 is None or _shape(a1) != _shape(a2):
    return _wrap(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  eq = lax.eq(a1, a2)
  if equal_nan:
    eq = lax.bitwise_or(eq, lax.bitwise_and(_any_nan(a1), _any_nan(a2)))
  return _wrap(_all(eq))


def array_equiv(a1, a2):
  """Whether ``a1`` and ``a2`` are equal after broadcasting (False if they cannot broadcast).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.array_equiv(jnp.ones(3), jnp.ones((2, 3)))
      Array(True, dtype=bool)
  """
  a1, a2 = _as_array_or_none(a1), _as_array_or_none(a2)
  if a1 is None or a2 is None:
    return _wrap(np.bool_(False))
  try:
    shp = _util.broadcast_shapes(_shape(a1), _shape(a2))
  except ValueError:
    return _wrap(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  return _wrap(_all(lax.eq(_broadcast_to(a1, shp), _broadcast_to(a2, shp))))


# --- type predicates ----------------------------------------------------------------------------

def isscalar(element) -> bool:
  """Whether ``element`` is a scalar: a Python/NumPy scalar or a 0-d array.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isscalar(jnp.array(1.0)), jnp.isscalar([1.0])
      (True, False)
  """
  if hasattr(element, "__jax_array__"):
    element = element.__jax_array__()
  if _is_array(element) or isinstance(element, np.ndarray):
    return _ndim(element) == 0
  return bool(np.isscalar(element))


def iscomplexobj(x) -> bool:
  """Whether ``x`` has a complex dtype (regardless of its values).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.iscomplexobj(jnp.ones(2) * 1j)
      True
  """
  if x is None:
    return False
  try:
    return dtypes.is_complex(dtypes.dtype(x))
  except (TypeError, ValueError):
    return bool(np.iscomplexobj(x))


def isrealobj(x) -> bool:
  """Whether ``x`` has a non-complex dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isrealobj(jnp.ones(2))
      True
  """
  return not iscomplexobj(x)


def iscomplex(x):
  """Elementwise: whether the imaginary part is non-zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.iscomplex(jnp.array([1 + 0j, 1j]))
      Array([False,  True], dtype=bool)
  """
  check_arraylike("iscomplex", x)
  if not dtypes.is_complex(_dtype(x)):
    return lax.full(_shape(x), False, np.bool_)
  return lax.ne(lax.imag(x), 0.0)


def isreal(x):
  """Elementwise: whether the imaginary part is zero (always true for real dtypes).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isreal(jnp.array([1 + 0j, 1j]))
      Array([ True, False], dtype=bool)
  """
  check_arraylike("isreal", x)
  if not dtypes.is_complex(_dtype(x)):
    return _wrap(lax._convert_element_type(lax.full(_shape(x), True, np.bool_), np.bool_,
                                           dtypes.is_weakly_typed(x)))
  return lax.eq(lax.imag(x), 0.0)


# --- nan_to_num -------------------------------------------------------------------------------

def _nan_to_num(x, nan, posinf, neginf):
  dt = _dtype(x)
  if dtypes.is_complex(dt):
    re = _nan_to_num(lax.real(x), nan, posinf, neginf)
    im = _nan_to_num(lax.imag(x), nan, posinf, neginf)
    return lax.complex(re, im)
  info = dtypes.finfo(dt)
  posinf = info.max if posinf is None else posinf
  neginf = info.min if neginf is None else neginf
  out = _where_jit(_isnan(x), _as_real(nan, dt), x)
  out = _where_jit(lax.eq(out, np.array(np.inf, dt)), _as_real(posinf, dt), out)
  return _where_jit(lax.eq(out, np.array(-np.inf, dt)), _as_real(neginf, dt), out)


_nan_to_num_call, _ = _named_jits(lambda x, nan, posinf, neginf: _nan_to_num(x, nan, posinf,
                                                                            neginf),
                                  "nan_to_num", (), ("nan", "posinf", "neginf"))


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
  """Replace NaN with ``nan`` and infinities with ``posinf``/``neginf`` (the dtype's extremes
  by default); non-float inputs are returned unchanged.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nan_to_num(jnp.array([jnp.nan, 1.0]))
      Array([0., 1.], dtype=float32)
  """
  check_arraylike("nan_to_num", x)
  if not dtypes.is_inexact(_dtype(x)):
    return _wrap(x)
  return _nan_to_num_call(x, nan=nan, posinf=posinf, neginf=neginf)


# --- differences ------------------------------------------------------------------------------

def _diff(a, prepend, append, *, n, axis):
  parts = []
  for extra in (prepend, append):
    if extra is None:
      parts.append(None)
      continue
    if _ndim(extra) == 0:
      shp = list(_shape(a))
      shp[axis] = 1
      extra = _broadcast_to(extra, tuple(shp))
    parts.append(extra)
  if parts[0] is not None or parts[1] is not None:
    pieces = [p for p in (parts[0], a, parts[1]) if p is not None]
    a = concatenate(pieces, axis=axis)
  op = lax.ne if dtypes.is_bool(_dtype(a)) else lax.sub
  for _ in _range(n):
    m = _shape(a)[axis]
    if m == 0:
      break
    a = op(_slice_axis(a, 1, m, axis), _slice_axis(a, 0, m - 1, axis))
  return a


_diff_jit = _jit(_diff, static_argnames=("n", "axis"))
_diff_jit.__name__ = "diff"


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
  """The ``n``-th discrete difference along ``axis`` (``a[1:] - a[:-1]``; ``!=`` for bool).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.diff(jnp.array([1, 4, 9, 16]))
      Array([3, 5, 7], dtype=int32)
  """
  check_arraylike("diff", a)
  n = operator.index(n)
  if n < 0:
    raise ValueError(f"order must be non-negative but got {n}")
  if _ndim(a) == 0:
    raise ValueError(f"diff requires input that is at least one dimensional; got a={a!r}")
  if n == 0:
    return _wrap(a)
  axis = canonicalize_axis(axis, _ndim(a))
  if prepend is not None:
    check_arraylike("diff", prepend)
  if append is not None:
    check_arraylike("diff", append)
  return _diff_jit(a, prepend, append, n=n, axis=axis)


def ediff1d(ary, to_end=None, to_begin=None):
  """Differences between consecutive elements of the flattened ``ary``, optionally with
  values prepended/appended (cast to ``ary``'s dtype).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ediff1d(jnp.array([1, 2, 4]), to_begin=-1)
      Array([-1,  1,  2], dtype=int32)
  """
  check_arraylike("ediff1d", ary)
  flat = ravel(ary)
  m = _shape(flat)[0]
  out = lax.sub(_slice_axis(flat, 1, m, 0), _slice_axis(flat, 0, m - 1, 0)) if m else flat
  dt = _dtype(out)
  pieces = [out]
  if to_begin is not None:
    check_arraylike("ediff1d", to_begin)
    pieces.insert(0, lax.convert_element_type(ravel(to_begin), dt))
  if to_end is not None:
    check_arraylike("ediff1d", to_end)
    pieces.append(lax.convert_element_type(ravel(to_end), dt))
  return lax.concatenate(pieces, 0) if len(pieces) > 1 else _wrap(out)


# --- counting -----------------------------------------------------------------------------------

def _scatter_add_1d(length: int, idx, updates, dt):
  """``out[idx[i]] += updates[i]`` into zeros(length); out-of-range indices are dropped."""
  zeros = lax.full((length,), 0, dt)
  if _shape(idx)[0] == 0 or length == 0:
    return zeros
  fn = getattr(lax, "scatter_add", None)
  if fn is not None and hasattr(lax, "ScatterDimensionNumbers"):
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,),
                                        operand_batching_dims=(),
                                        scatter_indices_batching_dims=())
    n = _shape(idx)[0]
    return fn(zeros, lax.broadcast_in_dim(idx, (n, 1), (0,)), updates, dnums,
              mode=lax.GatherScatterMode.FILL_OR_DROP)
  n = _shape(idx)[0]
  onehot = lax.eq(lax.broadcast_in_dim(idx, (n, length), (0,)),
                  lax.broadcasted_iota(_dtype(idx), (n, length), 1))
  contrib = lax.select(onehot, lax.broadcast_in_dim(updates, (n, length), (0,)),
                       lax.full((n, length), 0, dt))
  return lax.reduce_sum(contrib, (0,))


def bincount(x, weights=None, minlength: int = 0, *, length=None, out_sharding=None):
  """Count occurrences of each value in the non-negative int array ``x`` (weighted if
  ``weights`` is given). Negative values count as 0; values >= ``length`` are dropped.

  ``length`` (static) is required under ``jit``; otherwise it is
  ``max(minlength, x.max() + 1)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
      Array([1, 2, 0, 1], dtype=int32)
  """
  check_arraylike("bincount", x)
  if not dtypes.is_integer(_dtype(x)):
    raise TypeError(f"x argument to bincount must have an integer type; got {_dtype(x)}")
  if _ndim(x) != 1:
    raise ValueError("only 1-dimensional input supported.")
  minlength = operator.index(minlength)
  if length is None:
    v = core.concrete_value(x)
    if v is None or isinstance(v, core.Tracer):
      raise ConcretizationTypeError(
          x, "The error occurred because of argument 'x' of jnp.bincount. To avoid this "
          "error, pass a static `length` argument.")
    host = np.asarray(v)
    length = builtins.max(minlength, int(host.max()) + 1 if host.size else 0)
  else:
    length = operator.index(length)
  if weights is None:
    dt = dtypes.default_int_dtype()
    upd = lax.full(_shape(x), 1, dt)
  else:
    check_arraylike("bincount", weights)
    dt = _dtype(weights)
    if dtypes.is_bool(dt):
      raise TypeError("bincount: weights must be numeric, got dtype bool")
    upd = _broadcast_to(weights, _shape(x))
  idx = lax.max(x, np.zeros((), _dtype(x)))
  return _scatter_add_1d(length, idx, upd, dt)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
  """The bin edges :func:`histogram` uses.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.histogram_bin_edges(jnp.array([0.0, 1.0]), bins=2)
      Array([0. , 0.5, 1. ], dtype=float32)
  """
  from ember.numpy import creation
  check_arraylike("histogram_bin_edges", a)
  if _ndim(bins) == 1 or isinstance(bins, (list, tuple)):
    edges = ensure_array(bins) if not _is_array(bins) else bins
    dt = dtypes.to_inexact_dtype(_dtype(edges))
    return lax.convert_element_type(edges, dt)
  if isinstance(bins, str):
    raise NotImplementedError("string values for `bins` are not implemented.")
  bins = operator.index(bins)
  a = ravel(a)
  dt = dtypes.to_inexact_dtype(_dtype(a))
  if range is None:
    from ember.numpy import reductions as red
    lo, hi = red.min(a), red.max(a)
  else:
    lo, hi = range
    if np.ndim(lo) or np.ndim(hi):
      raise ValueError("histogram: range must be a pair of scalars")
  lo = lax.convert_element_type(lo, dt)
  hi = lax.convert_element_type(hi, dt)
  # an empty range becomes (lo - 0.5, hi + 0.5), as in NumPy
  same = lax.eq(lo, hi)
  half = np.array(0.5, dt)
  lo = lax.select(same, lax.sub(lo, half), lo)
  hi = lax.select(same, lax.add(hi, half), hi)
  return creation.linspace(lo, hi, bins + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None):
  """Counts of ``a`` in each bin and the bin edges; the last bin includes its right edge.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.histogram(jnp.array([1.0, 2.0, 2.0, 3.0]), bins=2)[0]
      Array([1., 3.], dtype=float32)
  """
  check_arraylike("histogram", a)
  if weights is not None:
    check_arraylike("histogram", weights)
    if _shape(weights) != _shape(a):
      raise ValueError("weights should have the same shape as a.")
  edges = histogram_bin_edges(a, bins, range, weights)
  a = ravel(a)
  from ember.numpy.sorting import searchsorted
  nbins = _shape(edges)[0] - 1
  dt = _dtype(edges)
  av = lax.convert_element_type(a, dt)
  idx = lax.sub(searchsorted(edges, av, side="right"), np.int32(1))
  last = lax.eq(av, _broadcast_to(_scalar_at(edges, nbins), _shape(av)))
  idx = lax.select(last, lax.full(_shape(idx), nbins - 1, np.int32), idx)
  outside = lax.bitwise_or(lax.lt(idx, np.int32(0)), lax.ge(idx, np.int32(nbins)))
  idx = lax.select(outside, lax.full(_shape(idx), nbins, np.int32), idx)
  w = lax.full(_shape(a), 1, dt) if weights is None else \
      lax.convert_element_type(ravel(weights), dtypes.result_type(weights, dt))
  counts = _scatter_add_1d(nbins, idx, w, _dtype(w))
  if density:
    widths = lax.sub(lax.slice(edges, (1,), (nbins + 1,)), lax.slice(edges, (0,), (nbins,)))
    total = lax.reduce_sum(counts, (0,))
    counts = lax.div(lax.div(counts, total), widths)
  return counts, edges


def digitize(x, bins, right: bool = False, *, method=None):
  """Indices of the bins (monotonically increasing or decreasing) each value falls in.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.digitize(jnp.array([0.5, 1.5, 3.0]), jnp.array([1.0, 2.0]))
      Array([0, 1, 2], dtype=int32)
  """
  from ember.numpy.sorting import searchsorted
  check_arraylike("digitize", x, bins)
  if _ndim(bins) != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  n = _shape(bins)[0]
  if n == 0:
    return lax.full(_shape(x), 0, np.int32)
  side = "left" if right else "right"
  kw = {} if method is None else {"method": method}
  inc = searchsorted(bins, x, side=side, **kw)
  rb = _flip_jit(bins, axes=(0,))
  dec = lax.sub(np.int32(n), searchsorted(rb, x, side="left" if side == "right" else "right",
                                          **kw))
  increasing = lax.le(_scalar_at(bins, 0), _scalar_at(bins, n - 1))
  return lax.select(_broadcast_to(increasing, _shape(inc)), inc, dec)


def _scalar_at(x, i: int):
  return lax.reshape(lax.slice(x, (i,), (i + 1,)), ())


def interp(x, xp, fp, left=None, right=None, period=None):
  """One-dimensional piecewise linear interpolation of ``(xp, fp)`` at ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.interp(jnp.array([0.5, 1.5]), jnp.array([0., 1., 2.]), jnp.array([0., 10., 20.]))
      Array([ 5., 15.], dtype=float32)
  """
  from ember.numpy.sorting import argsort, searchsorted
  check_arraylike("interp", x, xp, fp)
  if _ndim(xp) != 1 or _ndim(fp) != 1:
    raise ValueError("xp and fp must be one-dimensional")
  if _shape(xp) != _shape(fp):
    raise ValueError("xp and fp must be of the same length")
  if _shape(xp)[0] == 0:
    raise ValueError("interp: xp and fp must not be empty")
  x, xp, fp = promote_dtypes_inexact(x, xp, fp)
  dt = _dtype(x)
  zero = np.zeros((), dt)
  if period is not None:
    if left is not None or right is not None:
      raise ValueError("left and right must be None when period is specified")
    if np.ndim(period) != 0:
      raise ValueError(f"period must be a scalar; got {period}")
    period = lax.abs(lax.convert_element_type(period, dt))

    def wrap(v):
      r = lax.rem(v, _broadcast_to(period, _shape(v)))
      return lax.select(lax.lt(r, zero), lax.add(r, _broadcast_to(period, _shape(v))), r)

    x, xp = wrap(x), wrap(xp)
    order = argsort(xp)
    xp, fp = take(xp, order), take(fp, order)
    n = _shape(xp)[0]
    p1 = lax.reshape(period, (1,))
    xp = lax.concatenate([lax.sub(lax.slice(xp, (n - 1,), (n,)), p1), xp,
                          lax.add(lax.slice(xp, (0,), (1,)), p1)], 0)
    fp = lax.concatenate([lax.slice(fp, (n - 1,), (n,)), fp, lax.slice(fp, (0,), (1,))], 0)
  n = _shape(xp)[0]
  shp = _shape(x)
  hi = np.int32(builtins.max(n - 1, 1))
  i = lax.clamp(np.int32(1), searchsorted(xp, x, side="right"), hi)
  im1 = lax.sub(i, np.int32(1))
  x0, x1 = take(xp, im1, mode="clip"), take(xp, i, mode="clip")
  f0, f1 = take(fp, im1, mode="clip"), take(fp, i, mode="clip")
  dx = lax.sub(x1, x0)
  eps = np.array(dtypes.finfo(dt).eps, np.dtype(dtypes.finfo(dt).dtype))
  flat = lax.le(lax.abs(dx), lax.convert_element_type(eps, _dtype(lax.abs(dx))))
  safe_dx = lax.select(flat, lax.full(shp, 1, dt), dx)
  f = lax.add(f0, lax.mul(lax.sub(x, x0), lax.div(lax.sub(f1, f0), safe_dx)))
  f = lax.select(flat, f0, f)
  if period is None:
    lv = _scalar_at(fp, 0) if left is None else lax.convert_element_type(left, dt)
    rv = _scalar_at(fp, n - 1) if right is None else lax.convert_element_type(right, dt)
    f = lax.select(lax.lt(x, _broadcast_to(_scalar_at(xp, 0), shp)), _broadcast_to(lv, shp), f)
    f = lax.select(lax.gt(x, _broadcast_to(_scalar_at(xp, n - 1), shp)),
                   _broadcast_to(rv, shp), f)
  return f


# --- unique (concrete) --------------------------------------------------------------------------

def _unique_host(ar, fun_name: str):
  v = core.concrete_value(ar)
  if v is None or isinstance(v, core.Tracer):
    raise ConcretizationTypeError(
        ar, f"jnp.{fun_name} needs concrete values, or a static `size` argument under jit.")
  return np.asarray(v)


def _unique_sized(ar, size: int, fill_value):
  """Sorted unique values of a traced 1-D array, padded/truncated to ``size``."""
  s = lax.sort(ar, dimension=0, is_stable=True, num_keys=1)
  n = _shape(s)[0]
  if n == 0:
    return lax.full((size,), 0 if fill_value is None else fill_value, _dtype(ar))
  first = lax.full((1,), True, np.bool_)
  neq = lax.ne(lax.slice(s, (1,), (n,)), lax.slice(s, (0,), (n - 1,)))
  if dtypes.is_inexact(_dtype(s)):  # NaNs collapse into one (equal_nan=True)
    neq = lax.bitwise_and(neq, lax.bitwise_not(lax.bitwise_and(
        _any_nan(lax.slice(s, (1,), (n,))), _any_nan(lax.slice(s, (0,), (n - 1,))))))
  mask = lax.concatenate([first, neq], 0)
  pos, count = _nonzero_flat(mask, size)
  vals = take(s, pos, mode="clip")
  fill = _scalar_at(s, 0) if fill_value is None else \
      lax.convert_element_type(fill_value, _dtype(s))
  valid = lax.lt(lax.broadcasted_iota(_dtype(count), (size,), 0), count)
  return lax.select(valid, vals, _broadcast_to(fill, (size,)))


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True, size=None,
           fill_value=None, sorted: bool = True):
  """The sorted unique elements of ``ar`` (optionally first indices, inverse and counts).

  Needs concrete input unless ``size`` is given (values only then, padded with
  ``fill_value``, by default the smallest value).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique(jnp.array([3, 1, 1, 2]))
      Array([1, 2, 3], dtype=int32)
  """
  check_arraylike("unique", ar)
  v = core.concrete_value(ar)
  if (v is None or isinstance(v, core.Tracer)) and size is not None and axis is None and \
      not (return_index or return_inverse or return_counts):
    return _unique_sized(ravel(ar), _static_size(size, "unique"), fill_value)
  host = _unique_host(ar, "unique")
  kw = {} if axis is None else {"axis": canonicalize_axis(axis, host.ndim)}
  res = np.unique(host, return_index=return_index, return_inverse=return_inverse,
                  return_counts=return_counts, equal_nan=equal_nan, **kw)
  res = res if isinstance(res, tuple) else (res,)
  vals = res[0]
  extras = list(res[1:])
  if return_inverse and axis is None:
    k = 1 + int(return_index)
    extras[k - 1] = extras[k - 1].reshape(host.shape)
  if size is not None:
    size = _static_size(size, "unique")
    ax = 0 if axis is None else kw["axis"]
    m = vals.shape[ax]
    fill = np.take(vals, [0], axis=ax) if fill_value is None else np.full_like(
        np.take(vals, [0], axis=ax) if m else np.zeros((1,), vals.dtype), fill_value)
    if m >= size:
      vals = np.take(vals, np.arange(size), axis=ax)
    else:
      vals = np.concatenate([vals] + [fill] * (size - m), axis=ax)
    pos = 0
    if return_index:
      extras[pos] = np.concatenate([extras[pos][:size], np.zeros(builtins.max(size - m, 0),
                                                                 extras[pos].dtype)])
      pos += 1
    if return_inverse:
      pos += 1
    if return_counts:
      extras[pos] = np.concatenate([extras[pos][:size], np.zeros(builtins.max(size - m, 0),
                                                                 extras[pos].dtype)])
  out_vals = lax.convert_element_type(ensure_array(vals), _dtype(ar))
  out = [out_vals] + [_int_array(e) for e in extras]
  return out[0] if len(out) == 1 else tuple(out)


class _UniqueCountsResult(NamedTuple):
  values: Any
  counts: Any


class _UniqueInverseResult(NamedTuple):
  values: Any
  inverse_indices: Any


class _UniqueAllResult(NamedTuple):
  values: Any
  indices: Any
  inverse_indices: Any
  counts: Any


def unique_values(x, /, *, size=None, fill_value=None):
  """Array API: the sorted unique values of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_values(jnp.array([2, 1, 2]))
      Array([1, 2], dtype=int32)
  """
  return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, counts)`` of the unique elements of ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_counts(jnp.array([2, 1, 2]))[1]
      Array([1, 2], dtype=int32)
  """
  return _UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, inverse_indices)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_inverse(jnp.array([2, 1, 2]))[1]
      Array([1, 0, 1], dtype=int32)
  """
  return _UniqueInverseResult(*unique(x, return_inverse=True, size=size,
                                      fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
  """Array API: ``(values, indices, inverse_indices, counts)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unique_all(jnp.array([2, 1, 2]))[3]
      Array([1, 2], dtype=int32)
  """
  return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                  return_counts=True, size=size, fill_value=fill_value))


# --- index helpers ------------------------------------------------------------------------------

def _static_int(v, what: str) -> int:
  try:
    return operator.index(v)
  except TypeError:
    raise TypeError(f"{what} must be a static integer, got {v!r}") from None


def tril_indices(n, k=0, m=None):
  """Row and column indices of the lower triangle of an ``(n, m)`` array.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tril_indices(2)
      (Array([0, 1, 1], dtype=int32), Array([0, 0, 1], dtype=int32))
  """
  n = _static_int(n, "tril_indices: n")
  m = n if m is None else _static_int(m, "tril_indices: m")
  return tuple(_int_array(i) for i in np.tril_indices(n, _static_int(k, "k"), m))


def triu_indices(n, k=0, m=None):
  """Row and column indices of the upper triangle of an ``(n, m)`` array.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.triu_indices(2)
      (Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))
  """
  n = _static_int(n, "triu_indices: n")
  m = n if m is None else _static_int(m, "triu_indices: m")
  return tuple(_int_array(i) for i in np.triu_indices(n, _static_int(k, "k"), m))


def _check_2d(arr, fun_name: str):
  if len(_shape(arr)) != 2:
    raise ValueError(f"{fun_name}: input array must be 2-D, got shape {_shape(arr)}")


def tril_indices_from(arr, k=0):
  """:func:`tril_indices` for the shape of the 2-D ``arr``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tril_indices_from(jnp.ones((2, 2)))[1]
      Array([0, 0, 1], dtype=int32)
  """
  _check_2d(arr, "tril_indices_from")
  return tril_indices(_shape(arr)[0], k, _shape(arr)[1])


def triu_indices_from(arr, k=0):
  """:func:`triu_indices` for the shape of the 2-D ``arr``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.triu_indices_from(jnp.ones((2, 2)))[1]
      Array([0, 1, 1], dtype=int32)
  """
  _check_2d(arr, "triu_indices_from")
  return triu_indices(_shape(arr)[0], k, _shape(arr)[1])


def diag_indices(n, ndim: int = 2):
  """Indices of the main diagonal of an ``ndim``-dimensional array of side ``n``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.diag_indices(2)
      (Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))
  """
  n = _static_int(n, "diag_indices: n")
  ndim = _static_int(ndim, "diag_indices: ndim")
  if n < 0:
    raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
  if ndim < 0:
    raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
  r = lax.iota(dtypes.default_int_dtype(), n)
  return (r,) * ndim


def diag_indices_from(arr):
  """:func:`diag_indices` for ``arr`` (all of whose dimensions must be equal).

  Example:
      >>> import ember.numpy as jnp
      >>> len(jnp.diag_indices_from(jnp.ones((2, 2, 2))))
      3
  """
  shp = _shape(arr)
  if len(shp) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(shp)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(shp[0], len(shp))


def indices(dimensions, dtype=None, sparse: bool = False):
  """A grid of indices: ``out[i][...]`` is the index along axis ``i``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.indices((2, 2))[0]
      Array([[0, 0],
             [1, 1]], dtype=int32)
  """
  dims = tuple(_static_int(d, "indices: dimensions") for d in dimensions)
  dt = dtypes.default_int_dtype() if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, "indices")
  nd = len(dims)
  if sparse:
    return tuple(lax.broadcast_in_dim(lax.iota(dt, d), tuple(d if j == i else 1
                                                              for j in _range(nd)), (i,))
                 for i, d in enumerate(dims))
  if nd == 0:
    return lax.full((0,), 0, dt)
  return lax.concatenate([lax.broadcast_in_dim(lax.broadcasted_iota(dt, dims, i),
                                               (1,) + dims, tuple(_range(1, nd + 1)))
                          for i in _range(nd)], 0)


def ix_(*args):
  """Open mesh from 1-D index sequences: ``a[ix_(rows, cols)]`` picks a sub-grid.

  Example:
      >>> import ember.numpy as jnp
      >>> [i.shape for i in jnp.ix_(jnp.arange(2), jnp.arange(3))]
      [(2, 1), (1, 3)]
  """
  check_arraylike("ix_", *args)
  n = len(args)
  out = []
  for i, a in enumerate(args):
    if _ndim(a) != 1:
      raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                       f"{_shape(a)}")
    if dtypes.is_bool(_dtype(a)):
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
    shp = [1] * n
    shp[i] = _shape(a)[0]
    out.append(lax.broadcast_in_dim(a, tuple(shp), (i,)))
  return tuple(out)


def unravel_index(indices, shape):
  """Coordinates of flat ``indices`` in an array of ``shape`` (negative indices count from
  the end; out-of-range ones are clipped).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unravel_index(jnp.array([5, 7]), (3, 4))
      (Array([1, 1], dtype=int32), Array([1, 3], dtype=int32))
  """
  check_arraylike("unravel_index", indices)
  shape = tuple(_static_int(d, "unravel_index: shape") for d in (
      shape if np.ndim(shape) else (shape,)))
  if not dtypes.is_integer(_dtype(indices)):
    raise TypeError(f"Only integer indices are accepted, got {_dtype(indices)}")
  total = math.prod(shape)
  dt = _dtype(indices)
  idx = indices
  if not dtypes.is_unsigned(dt):
    idx = lax.select(lax.lt(idx, np.zeros((), dt)), lax.add(idx, np.array(total, dt)), idx)
  idx = lax.clamp(np.zeros((), dt), idx, np.array(builtins.max(total - 1, 0), dt))
  outs = []
  for d in shape[::-1]:
    outs.append(lax.rem(idx, np.array(d, dt)) if d else lax.full(_shape(idx), 0, dt))
    idx = lax.div(idx, np.array(d, dt)) if d else idx
  if dtypes.is_weakly_typed(indices):
    outs = [lax._convert_element_type(o, dt, True) for o in outs]
  return tuple(outs[::-1])


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
  """Flat indices of the coordinate arrays ``multi_index`` in an array of shape ``dims``.

  ``mode`` handles out-of-range coordinates: 'raise' (needs concrete values), 'wrap' or
  'clip'.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([3, 0])), (3, 4))
      Array([7, 8], dtype=int32)
  """
  dims = tuple(_static_int(d, "ravel_multi_index: dims") for d in dims)
  multi_index = list(multi_index)
  if len(multi_index) != len(dims):
    raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
  check_arraylike("ravel_multi_index", *multi_index)
  for idx in multi_index:
    if not dtypes.is_integer(_dtype(idx)):
      raise TypeError(f"only int indices permitted, got {_dtype(idx)}")
  if order not in ("C", "F"):
    raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
  if mode == "raise":
    for idx, d in zip(multi_index, dims):
      v = core.concrete_value(idx)
      if v is None or isinstance(v, core.Tracer):
        raise ConcretizationTypeError(
            idx, "The error occurred because ravel_multi_index was jit-compiled with "
            "mode='raise'. Use mode='wrap' or mode='clip' instead.")
      h = np.asarray(v)
      if ((h < 0) | (h >= d)).any():
        raise ValueError("invalid entry in coordinates array")
  elif mode not in ("wrap", "clip"):
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
  dt = dtypes.default_int_dtype() if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, "ravel_multi_index")
  idxs = promote_dtypes(*[lax.convert_element_type(i, dt) for i in multi_index])
  shp = _util.broadcast_shapes(*[_shape(i) for i in idxs])
  strides = [math.prod(dims[i + 1:]) for i in _range(len(dims))] if order == "C" else \
      [math.prod(dims[:i]) for i in _range(len(dims))]
  out = lax.full(shp, 0, dt)
  for idx, d, st in zip(idxs, dims, strides):
    if mode == "wrap" and d:
      idx = lax.rem(idx, np.array(d, dt))
      idx = lax.select(lax.lt(idx, np.zeros((), dt)), lax.add(idx, np.array(d, dt)), idx)
    elif mode == "clip":
      idx = lax.clamp(np.zeros((), dt), idx, np.array(builtins.max(d - 1, 0), dt))
    out = lax.add(out, lax.mul(_broadcast_to(idx, shp), np.array(st, dt)))
  return out
