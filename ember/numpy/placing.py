"""ember.numpy's functional forms of NumPy's in-place writers (``put``, ``put_along_axis``,
``place``, ``fill_diagonal``), ``choose``, ``mask_indices``, the function form of ``astype``,
``fabs``, and the thin NumPy pass-throughs ``array_repr``, ``array_str``, ``iterable`` and
``ComplexWarning``.

ember arrays are immutable, so the writers return an updated copy; as in JAX they require
``inplace=False`` and raise otherwise.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.put(jnp.zeros(4), jnp.array([0, 2]), 5.0, inplace=False)
    Array([5., 0., 5., 0.], dtype=float32)
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from ember import dtypes, lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import check_arraylike, ensure_array, promote_dtypes_inexact
from ember.numpy.creation import _place, arange, ones
from ember.numpy.joining import resize, stack
from ember.numpy.searching import nonzero, where
from ember.numpy.shape_ops import (
  _dtype,
  _ndim,
  _shape,
  broadcast_arrays,
  ravel,
  reshape,
)
from ember.numpy.taking import take_along_axis
from ember.numpy.ufuncs import absolute

__all__ = [
  "ComplexWarning",
  "array_repr",
  "array_str",
  "astype",
  "choose",
  "fabs",
  "fill_diagonal",
  "iterable",
  "mask_indices",
  "place",
  "put",
  "put_along_axis",
]

ComplexWarning = np.exceptions.ComplexWarning
iterable = np.iterable


def _immutable_error(fun_name: str, gap: str = " ") -> ValueError:
  return ValueError(
      f"jax.numpy.{fun_name} cannot modify arrays in-place, because JAX arrays{gap}are "
      "immutable. Pass inplace=False to instead return an updated array.")


def _strong(x, dt):
  return lax._convert_element_type(ensure_array(x), dt)


# --- choose ---------------------------------------------------------------------------------

def _choice_index(a, n: int, mode: str):
  """``a`` mapped into ``[0, n)`` by ``mode`` ('raise' checks concrete values)."""
  if mode == "wrap":
    return lax.rem(lax.add(lax.rem(a, np.array(n, a.dtype)), np.array(n, a.dtype)),
                   np.array(n, a.dtype))
  if mode == "clip":
    return lax.clamp(np.array(0, a.dtype), a, np.array(n - 1, a.dtype))
  value = core.concrete_value(a)
  if value is None or isinstance(value, core.Tracer):
    raise ConcretizationTypeError(
        a, "The error occurred because jnp.choose was jit-compiled with mode='raise'. Use "
        "mode='wrap' or mode='clip' instead.")
  value = np.asarray(value)
  if value.size and (value.min() < 0 or value.max() >= n):
    raise ValueError("invalid entry in choice array")
  return a


def choose(a, choices, out=None, mode: str = "raise"):
  """``choices[a[i]][i]`` for every index ``i`` of the broadcast of ``a`` and the choices.

  ``mode`` handles entries of ``a`` outside ``[0, len(choices))``: 'raise' (needs a concrete
  ``a``, so not under ``jit``), 'wrap' (modulo) or 'clip'. The result has the choices'
  common dtype (never weakly typed).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.choose(jnp.array([0, 1, 2, 7]), [10, 20, 30], mode="clip")
      Array([10, 20, 30, 30], dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  if mode not in ("raise", "wrap", "clip"):
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  check_arraylike("choose", a)
  a = ensure_array(a)
  if not dtypes.is_integer(a.dtype):
    raise TypeError(f"choose requires an integer index array, got {a.dtype}")
  choices = list(choices)
  check_arraylike("choose", *choices)
  dt = dtypes.result_type(*choices)
  a = _choice_index(a, len(choices), mode)
  a, *choices = broadcast_arrays(a, *(_strong(c, dt) for c in choices))
  picked = take_along_axis(stack(choices), lax.expand_dims(a, (0,)), axis=0)
  return reshape(picked, _shape(a))


# --- writers --------------------------------------------------------------------------------

def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
  """``a`` with its main diagonal (``a[i, i, ..., i]``) set to ``val``, repeated as needed.

  Requires ``inplace=False``; ``wrap=True`` (NumPy's wrapping for tall matrices) is not
  supported, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fill_diagonal(jnp.zeros((2, 3), int), jnp.array([7, 8, 9]), inplace=False)
      Array([[7, 0, 0],
             [0, 8, 0]], dtype=int32)
  """
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  check_arraylike("fill_diagonal", a, val)
  a = ensure_array(a)
  shape = _shape(a)
  if len(shape) < 2:
    raise ValueError("array must be at least 2-d")
  if len(shape) > 2 and len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  n = min(shape)
  idx = arange(n)
  values = resize(_strong(val, a.dtype), (n,))
  return a.at[(idx,) * len(shape)].set(values)


def _check_put_mode(mode, fun_name: str):
  if mode == "raise":
    raise NotImplementedError(f"The 'raise' mode to jnp.{fun_name} is not supported.")
  if mode not in (None, "fill", "drop", "clip", "wrap", "promise_in_bounds"):
    raise ValueError(f"Invalid mode {mode!r} for jnp.{fun_name}")


def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
  """``a`` with ``a.ravel()[ind] = v`` applied (``v`` repeated to the length of ``ind``).

  ``mode``: None (negative indices count from the end, out-of-bound ones are dropped),
  'clip' or 'wrap'; 'raise' is not supported. Requires ``inplace=False``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.put(jnp.arange(5), jnp.array([1, 7, -1]), jnp.array([9, 8]), mode="wrap",
      ...         inplace=False)
      Array([0, 9, 8, 3, 9], dtype=int32)
  """
  if inplace:
    raise _immutable_error("put")
  _check_put_mode(mode, "put")
  check_arraylike("put", a, ind, v)
  a = ensure_array(a)
  flat, ind = ravel(a), ravel(ind)
  size = _shape(flat)[0]
  if mode == "clip":
    ind = lax.clamp(np.array(0, ind.dtype), ind, np.array(max(size - 1, 0), ind.dtype))
  elif mode == "wrap":
    ind = lax.rem(lax.add(lax.rem(ind, np.array(size, ind.dtype)), np.array(size, ind.dtype)),
                  np.array(size, ind.dtype))
  values = resize(_strong(v, a.dtype), _shape(ind))
  return reshape(flat.at[ind].set(values), _shape(a))


def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *,
                   mode: str | None = None):
  """``arr`` with ``values`` written at ``indices`` along ``axis`` (the inverse of
  :func:`take_along_axis`); ``axis=None`` works on the flattened array.

  Requires ``inplace=False``. ``mode`` is the scatter mode of ``x.at[...].set``.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.zeros((2, 3), int)
      >>> jnp.put_along_axis(x, jnp.array([[2], [0]]), 5, axis=1, inplace=False)
      Array([[0, 0, 5],
             [5, 0, 0]], dtype=int32)
  """
  if inplace:
    raise _immutable_error("put_along_axis", gap="")
  check_arraylike("put_along_axis", arr, indices, values)
  arr = ensure_array(arr)
  indices = ensure_array(indices)
  original_shape = _shape(arr)
  if axis is None:
    arr, axis = ravel(arr), 0
  nd = _ndim(arr)
  if _ndim(indices) != nd:
    raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                     f"Got arr.ndim={nd} and indices.ndim={_ndim(indices)}.")
  from ember.numpy._util import canonicalize_axis
  axis = canonicalize_axis(axis, nd)
  shape = np.broadcast_shapes(*[(1 if i == axis else d) for i, d in enumerate(_shape(arr))],
                              _shape(indices)) if nd else ()
  index = tuple(
      lax.broadcast_in_dim(indices, shape, tuple(range(nd))) if i == axis else
      lax.broadcasted_iota(dtypes.default_int_dtype(), shape, i) for i in range(nd))
  out = arr.at[index].set(_strong(values, arr.dtype), mode=mode)
  return reshape(out, original_shape)


def place(arr, mask, vals, *, inplace: bool = True):
  """``arr`` with the positions where ``mask`` is true filled, in order, by ``vals``
  (repeated as needed). Works under ``jit``: the mask need not be concrete.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.place(jnp.zeros(5), jnp.array([1, 0, 1, 1, 1], bool), jnp.array([5., 6.]),
      ...           inplace=False)
      Array([5., 0., 6., 5., 6.], dtype=float32)
  """
  if inplace:
    raise _immutable_error("place")
  check_arraylike("place", arr, mask, vals)
  arr = ensure_array(arr)
  flat, mask = ravel(arr), ravel(mask)
  if not dtypes.is_bool(_dtype(mask)):
    mask = lax.ne(mask, np.zeros((), _dtype(mask)))
  vals = ravel(_strong(vals, arr.dtype))
  n = _shape(vals)[0]
  if n == 0 or _shape(flat)[0] == 0:
    return arr
  # The k-th True position takes vals[k % n]; False positions keep their value.
  rank = lax.sub(lax.cumsum(lax._convert_element_type(mask, np.int32)), np.int32(1))
  picked = take_along_axis(vals, lax.rem(lax.max(rank, np.int32(0)), np.int32(n)), axis=0)
  return reshape(where(mask, picked, flat), _shape(arr))


def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None):
  """The indices ``(rows, cols)`` where ``mask_func(ones((n, n)), k)`` is non-zero (e.g.
  ``mask_func=triu``); ``size`` pads or truncates as in :func:`nonzero`.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.mask_indices(3, jnp.triu, 1)
      (Array([0, 0, 1], dtype=int32), Array([1, 2, 2], dtype=int32))
  """
  n = operator.index(n)
  return nonzero(mask_func(ones((n, n)), k), size=size)


# --- astype and fabs ------------------------------------------------------------------------

def astype(x, dtype, /, *, copy: bool = False, device=None):
  """``x`` cast to ``dtype`` (strongly typed); ``dtype=None`` means the default float dtype.

  With ``copy=False`` an array that already has the dtype comes back unchanged. Casting
  complex to real keeps the real part and warns (a DeprecationWarning, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.astype(jnp.array([0.5, 1.7]), jnp.int32), jnp.astype(jnp.arange(2), "bool")
      (Array([0, 1], dtype=int32), Array([False,  True], dtype=bool))
  """
  check_arraylike("astype", x)
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "astype")
  x = ensure_array(x)
  if dtypes.is_complex(x.dtype) and not dtypes.is_complex(dt) and not dtypes.is_bool(dt):
    warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                  "first use jnp.real or jnp.imag to take the real/imaginary component of "
                  "your input.", DeprecationWarning, stacklevel=2)
    x = lax.real(x)
  if x.dtype != dt or x.weak_type:
    x = lax._convert_element_type(x, dt)
  elif copy:
    x = lax.copy(x)
  return _place(x, device)


def fabs(x, /):
  """Absolute values of ``x`` as floats (integers are promoted to the default float type);
  complex inputs raise, as in NumPy.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fabs(jnp.array([-1, 2]))
      Array([1., 2.], dtype=float32)
  """
  check_arraylike("fabs", x)
  if dtypes.is_complex(dtypes.dtype(x)):
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return absolute(*promote_dtypes_inexact(x))


# --- NumPy printing pass-throughs -----------------------------------------------------------

def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
  """NumPy's ``array_repr`` of ``arr``'s value (note the ``ArrayImpl`` class name, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.array_repr(jnp.arange(3))
      'ArrayImpl([0, 1, 2], dtype=int32)'
  """
  return np.array_repr(arr, max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
  """NumPy's ``array_str`` of ``a``'s value.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.array_str(jnp.array([1.0, 2.5]))
      '[1.  2.5]'
  """
  return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)
