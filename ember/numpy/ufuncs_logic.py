"""ember.numpy's elementwise comparisons (equal, less...), maximum/minimum/fmax/fmin, and logical
and bitwise functions (logical_and..., bitwise_and..., shifts, bitwise_count), with JAX's type
promotion; ``maximum``, ``minimum`` and the logical/bitwise binary functions are ``ufunc``
objects (see ``ufuncs.py``).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.logical_not(jnp.arange(2))
    Array([ True, False], dtype=bool)
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember.numpy._util import check_arraylike, promote_args, promote_args_numeric
from ember.numpy.creation import named_jit
from ember.numpy.ufuncs import _dt, _is, _lax_const, _reduction, _unary_doc, _where, absolute, ufunc

__all__ = [
    "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "invert", "bitwise_count",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift",
]


# --- comparisons, min/max ---------------------------------------------------------------------

def _complex_compare(x, y, real_cmp):
  """Lexicographic comparison of complex numbers (real parts, then imaginary parts)."""
  return lax.select(lax.eq(lax.real(x), lax.real(y)), real_cmp(lax.imag(x), lax.imag(y)),
                    real_cmp(lax.real(x), lax.real(y)))


def _comparison(lax_fn, name: str, example: str, result: str, ordered: bool):
  def f(x, y, /):
    x, y = promote_args(name, x, y)
    if ordered and _is(x, "complex"):
      return _complex_compare(x, y, lax_fn)
    return lax_fn(x, y)
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, f"Elementwise ``{name}`` comparison (a bool array).",
                         example, result)
  return f


equal = _comparison(lax.eq, "equal", "jnp.arange(3), 1",
                    "Array([False,  True, False], dtype=bool)", False)
not_equal = _comparison(lax.ne, "not_equal", "jnp.arange(3), 1",
                        "Array([ True, False,  True], dtype=bool)", False)
less = _comparison(lax.lt, "less", "jnp.arange(3), 1",
                   "Array([ True, False, False], dtype=bool)", True)
less_equal = _comparison(lax.le, "less_equal", "jnp.arange(3), 1",
                         "Array([ True,  True, False], dtype=bool)", True)
greater = _comparison(lax.gt, "greater", "jnp.arange(3), 1",
                      "Array([False, False,  True], dtype=bool)", True)
greater_equal = _comparison(lax.ge, "greater_equal", "jnp.arange(3), 1",
                            "Array([False,  True,  True], dtype=bool)", True)


def _maximum(x, y, /):
  """Elementwise maximum, propagating NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.maximum(jnp.array([1., jnp.nan]), 0)
      Array([ 1., nan], dtype=float32)
  """
  return lax.max(*promote_args("maximum", x, y))


def _minimum(x, y, /):
  """Elementwise minimum, propagating NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.minimum(jnp.arange(3), 1)
      Array([0, 1, 1], dtype=int32)
  """
  return lax.min(*promote_args("minimum", x, y))


def _fminmax(name: str, real_cmp):
  def impl(x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    pick = _complex_compare(x1, x2, real_cmp) if _is(x1, "complex") else real_cmp(x1, x2)
    return _where(lax.bitwise_or(pick, lax.ne(x2, x2)), x1, x2)
  return named_jit(impl, name)


_fmax_jit = _fminmax("fmax", lax.gt)
_fmin_jit = _fminmax("fmin", lax.lt)


def fmax(x1, x2):
  """Elementwise maximum ignoring NaNs (NaN only where both are NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fmax(jnp.array([1., jnp.nan]), 0)
      Array([1., 0.], dtype=float32)
  """
  check_arraylike("fmax", x1, x2)
  return _fmax_jit(x1, x2)


def fmin(x1, x2):
  """Elementwise minimum ignoring NaNs (NaN only where both are NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fmin(jnp.array([1., jnp.nan]), 0)
      Array([0., 0.], dtype=float32)
  """
  check_arraylike("fmin", x1, x2)
  return _fmin_jit(x1, x2)


# --- logical and bitwise ----------------------------------------------------------------------

def _to_bool(x):
  return x if _dt(x) == np.bool_ else lax.ne(x, _lax_const(x, 0))


def _logical(lax_fn, name: str, example: str, result: str):
  def f(x1, x2, /):
    x1, x2 = promote_args(name, x1, x2)
    return lax_fn(_to_bool(x1), _to_bool(x2))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, f"Elementwise logical ``{name[8:]}`` (nonzero is true).",
                         example, result)
  return f


_logical_and = _logical(lax.bitwise_and, "logical_and", "jnp.arange(3), 1",
                        "Array([False,  True,  True], dtype=bool)")
_logical_or = _logical(lax.bitwise_or, "logical_or", "jnp.arange(3), 0",
                       "Array([False,  True,  True], dtype=bool)")
_logical_xor = _logical(lax.bitwise_xor, "logical_xor", "jnp.arange(3), 1",
                        "Array([ True, False, False], dtype=bool)")


def logical_not(x, /):
  """Elementwise logical not (nonzero is true).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logical_not(jnp.arange(2))
      Array([ True, False], dtype=bool)
  """
  x, = promote_args("logical_not", x)
  return lax.bitwise_not(_to_bool(x))


def _bitwise(lax_fn, name: str, op: str, example: str, result: str):
  def f(x1, x2, /):
    return lax_fn(*promote_args(name, x1, x2))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, f"Elementwise bitwise ``{op}`` of integers or bools.",
                         example, result)
  return f


_bitwise_and = _bitwise(lax.bitwise_and, "bitwise_and", "&", "jnp.arange(4), 2",
                        "Array([0, 0, 2, 2], dtype=int32)")
_bitwise_or = _bitwise(lax.bitwise_or, "bitwise_or", "|", "jnp.arange(4), 2",
                       "Array([2, 3, 2, 3], dtype=int32)")
_bitwise_xor = _bitwise(lax.bitwise_xor, "bitwise_xor", "^", "jnp.arange(4), 2",
                        "Array([2, 3, 0, 1], dtype=int32)")


def bitwise_not(x, /):
  """Elementwise bitwise not (``~x``); logical not for bools.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.bitwise_not(jnp.array([0, 5], jnp.uint8))
      Array([255, 250], dtype=uint8)
  """
  return lax.bitwise_not(*promote_args("bitwise_not", x))


invert = bitwise_invert = bitwise_not


def left_shift(x, y, /):
  """Elementwise ``x << y`` (bools become int32).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.left_shift(jnp.arange(3), 2)
      Array([0, 4, 8], dtype=int32)
  """
  return lax.shift_left(*promote_args_numeric("left_shift", x, y))


def right_shift(x1, x2, /):
  """Elementwise ``x1 >> x2``: arithmetic for signed, logical for unsigned integers.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.right_shift(jnp.array([-8, 8]), 2)
      Array([-2,  2], dtype=int32)
  """
  x1, x2 = promote_args_numeric("right_shift", x1, x2)
  if _is(x1, "uint"):
    return lax.shift_right_logical(x1, x2)
  return lax.shift_right_arithmetic(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def _bitwise_count(x):
  x, = promote_args_numeric("bitwise_count", x)
  return lax._convert_element_type(lax.population_count(absolute(x)), np.uint8)


_bitwise_count_jit = named_jit(_bitwise_count, "bitwise_count")


def bitwise_count(x, /):
  """The number of 1 bits in ``|x|``, as uint8.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.bitwise_count(jnp.array([7, -1], jnp.int8))
      Array([3, 1], dtype=uint8)
  """
  check_arraylike("bitwise_count", x)
  return _bitwise_count_jit(x)


# --- the ufunc objects ------------------------------------------------------------------------

maximum = ufunc(_maximum, "maximum", 2, reducer=_reduction("max", False))
minimum = ufunc(_minimum, "minimum", 2, reducer=_reduction("min", False))
logical_and = ufunc(_logical_and, "logical_and", 2, identity=True,
                    reducer=_reduction("all", False))
logical_or = ufunc(_logical_or, "logical_or", 2, identity=False,
                   reducer=_reduction("any", False))
logical_xor = ufunc(_logical_xor, "logical_xor", 2, identity=False)
bitwise_and = ufunc(_bitwise_and, "bitwise_and", 2, identity=-1)
bitwise_or = ufunc(_bitwise_or, "bitwise_or", 2, identity=0)
bitwise_xor = ufunc(_bitwise_xor, "bitwise_xor", 2, identity=0)
