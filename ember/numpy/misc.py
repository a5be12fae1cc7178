"""ember.numpy comparison and miscellaneous helpers: convolve/correlate, isclose/allclose,
array_equal/array_equiv, type predicates (isscalar, iscomplexobj, isreal...), nan_to_num,
diff/ediff1d and index helpers (tril_indices, diag_indices, indices, ix_, unravel_index,
ravel_multi_index...).

Selection by condition (``where``, ``nonzero``...) lives in ``searching.py``; counting
(``bincount``, ``histogram``, ``unique``...) in ``counting.py``.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.isclose(jnp.array([1.0, 2.0]), jnp.array([1.0 + 1e-7, 2.1]))
    Array([ True, False], dtype=bool)
"""
from __future__ import annotations

import builtins
import functools
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import (canonicalize_axis, check_arraylike, ensure_array,
                               promote_dtypes, promote_dtypes_inexact)
from ember.numpy import _util
from ember.numpy.joining import concatenate
from ember.numpy.searching import _int_array, _where_jit
from ember.numpy.shape_ops import (_broadcast_to, _dtype, _is_array, _ndim, _shape,
                                   _slice_axis, _wrap, ravel)
from ember.transforms.jit import jit as _jit

__all__ = [
    "convolve", "correlate", "isclose", "allclose", "array_equal", "array_equiv", "isscalar",
    "iscomplexobj", "isrealobj", "iscomplex", "isreal", "nan_to_num", "diff", "ediff1d",
    "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices",
    "diag_indices_from", "indices", "ix_", "unravel_index", "ravel_multi_index",
]

_range = builtins.range


def _isnan(x):
  return lax.ne(x, x)


# --- convolution ------------------------------------------------------------------------------

def _conv(a, v, *, mode, op, precision, preferred_element_type):
  """One ``conv_general_dilated`` of 1-D arrays, as JAX builds it: the shorter operand is the
  kernel (flipped for a convolution, conjugated for a correlation, whose output then runs
  backwards when the operands were swapped). Traced into one jit with no jit inside (JAX
  nests ``jit(convolve)``, ``jit(_conv)`` and ``jit(_flip)``): reverse mode cannot yet split
  a nested jit whose inputs are partly known."""
  if _ndim(a) != 1 or _ndim(v) != 1:
    raise ValueError(f"{op}() only support 1-dimensional inputs.")
  if preferred_element_type is None:
    a, v = promote_dtypes_inexact(a, v)
  else:
    a, v = promote_dtypes(a, v)
  if _shape(a)[0] == 0 or _shape(v)[0] == 0:
    raise ValueError(f"{op}: inputs cannot be empty, got shapes {_shape(a)} and {_shape(v)}.")
  swapped = _shape(a)[0] < _shape(v)[0]
  if op == "correlate":
    v = lax.conj(v) if dtypes.is_complex(_dtype(v)) else v
  if swapped:
    a, v = v, a
  if op == "convolve":
    v = lax.rev(v, (0,))
  m = _shape(v)[0]
  pads = {"valid": (0, 0), "same": (m // 2, m - m // 2 - 1), "full": (m - 1, m - 1)}
  if mode not in pads:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  out = lax.conv_general_dilated(
      lax.broadcast_in_dim(a, (1, 1) + _shape(a), (2,)),
      lax.broadcast_in_dim(v, (1, 1) + _shape(v), (2,)), (1,), [pads[mode]],
      precision=precision, preferred_element_type=preferred_element_type)
  out = lax.squeeze(out, (0, 1))
  return lax.rev(out, (0,)) if swapped and op == "correlate" else out


@functools.lru_cache(maxsize=256)
def _conv_jit(op: str, mode: str, precision, preferred_element_type):
  """The jitted 1-D convolution of one configuration: its arguments are all arrays, so cached
  calls take jit's C++ fast path (static arguments would take the slower Python one)."""
  def conv(a, v):
    return _conv(a, v, mode=mode, op=op, precision=precision,
                 preferred_element_type=preferred_element_type)
  conv.__name__ = conv.__qualname__ = op
  return _jit(conv)


def _conv_1d(op: str, a, v, mode, precision, preferred_element_type):
  check_arraylike(op, a, v)
  if isinstance(precision, list):
    precision = tuple(precision)
  return _conv_jit(op, mode, precision, preferred_element_type)(a, v)


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
  """Discrete linear convolution of two 1-D arrays: ``c[k] = sum_j a[k - j] v[j]``.

  ``mode`` is 'full' (every overlap), 'same' (as long as the longer input, centered) or
  'valid' (full overlaps only). Inputs are promoted to an inexact dtype unless
  ``preferred_element_type`` is given (then they are promoted together and accumulated in
  that dtype). Computed by one ``lax.conv_general_dilated``, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.convolve(jnp.array([1, 2, 1]), jnp.ones(10))
      Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)
  """
  return _conv_1d("convolve", a, v, mode, precision, preferred_element_type)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
  """Cross-correlation of two 1-D arrays: ``c[k] = sum_n a[n + k] * conj(v[n])``.

  Modes and dtypes as in ``convolve`` (the default mode is 'valid'). When ``a`` is shorter
  than ``v``, the result is ``correlate(conj(v), a)`` reversed, as JAX computes it.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.correlate(jnp.array([1., 2., 3.]), jnp.array([0., 1.]))
      Array([2., 3.], dtype=float32)
  """
  return _conv_1d("correlate", a, v, mode, precision, preferred_element_type)


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
  return lax._convert_element_type(v, real_dt)


def _isclose(a, b, rtol, atol, *, equal_nan):
  a, b = promote_dtypes(a, b)
  dt = _dtype(a)
  if not dtypes.is_inexact(dt):
    if dtypes.is_bool(dt):
      a, b = (lax._convert_element_type(v, dtypes.default_float_dtype()) for v in (a, b))
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
  """Whether ``a1`` and ``a2`` are equal after broadcasting. Shapes that cannot broadcast raise
  TypeError, as JAX's do (NumPy returns False).

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
    raise TypeError(f"eq got incompatible shapes for broadcasting: {_shape(a1)}, "
                    f"{_shape(a2)}.") from None
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
    pieces.insert(0, lax._convert_element_type(ravel(to_begin), dt))
  if to_end is not None:
    check_arraylike("ediff1d", to_end)
    pieces.append(lax._convert_element_type(ravel(to_end), dt))
  return lax.concatenate(pieces, 0) if len(pieces) > 1 else _wrap(out)


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
  idxs = promote_dtypes(*[lax._convert_element_type(i, dt) for i in multi_index])
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
