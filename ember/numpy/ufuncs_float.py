"""ember.numpy's elementwise rounding (floor, ceil, trunc, rint, round, clip) and floating-point
functions: classification (isnan, isinf, isfinite, signbit...) and manipulation (copysign,
frexp, ldexp, modf), plus sinc and heaviside, with JAX's type promotion.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.isnan(jnp.array([1., jnp.nan]))
    Array([False,  True], dtype=bool)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.numpy._util import check_arraylike, ensure_array, promote_args_inexact
from ember.numpy.creation import named_jit
from ember.numpy.ufuncs import _const, _dt, _is, _lax_const, _no_out, _strong, _where
from ember.numpy.ufuncs_logic import maximum, minimum

__all__ = [
    "floor", "ceil", "trunc", "rint", "round", "around", "clip", "isnan", "isinf", "isfinite",
    "isneginf", "isposinf", "signbit", "copysign", "frexp", "ldexp", "modf", "sinc", "heaviside",
]


# --- rounding ---------------------------------------------------------------------------------

def floor(x, /):
  """Elementwise floor (integers and bools come back unchanged).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.floor(jnp.array([-1.5, 1.5]))
      Array([-2.,  1.], dtype=float32)
  """
  check_arraylike("floor", x)
  x = ensure_array(x)
  return x if _is(x, "bool", "int", "uint") else lax.floor(x)


def ceil(x, /):
  """Elementwise ceiling (integers and bools come back unchanged).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ceil(jnp.array([-1.5, 1.5]))
      Array([-1.,  2.], dtype=float32)
  """
  check_arraylike("ceil", x)
  x = ensure_array(x)
  return x if _is(x, "bool", "int", "uint") else lax.ceil(x)


def _trunc(x):
  if _is(x, "bool", "int", "uint"):
    return x
  return _where(lax.lt(x, _const(x, 0)), lax.ceil(x), lax.floor(x))


_trunc_jit = named_jit(_trunc, "trunc")


def trunc(x):
  """Elementwise rounding towards zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.trunc(jnp.array([-1.5, 1.5]))
      Array([-1.,  1.], dtype=float32)
  """
  check_arraylike("trunc", x)
  return _trunc_jit(x)


def _rint(x):
  if _is(x, "bool", "int", "uint"):
    return promote_args_inexact("rint", x)[0]
  if _is(x, "complex"):
    return lax.complex(_rint_jit(lax.real(x)), _rint_jit(lax.imag(x)))
  return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


_rint_jit = named_jit(_rint, "rint")


def rint(x, /):
  """Elementwise rounding to the nearest integer, ties to even (integers become floats).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.rint(jnp.array([0.5, 1.5, 2.5]))
      Array([0., 2., 2.], dtype=float32)
  """
  check_arraylike("rint", x)
  return _rint_jit(x)


def _round(a, decimals):
  dt = _dt(a)
  if dtypes.is_integer(dt):
    if decimals < 0:
      raise NotImplementedError("integer np.round not implemented for decimals < 0")
    return a
  if dtypes.is_bool(dt):
    raise ValueError(f"data type {np.bool_} not inexact")

  def round_float(x):
    if decimals == 0:
      return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    x = lax._convert_element_type(x, np.float32) if dt == np.float16 else x
    factor = _lax_const(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
    return lax._convert_element_type(out, dt) if dt == np.float16 else out

  if decimals > np.log10(float(dtypes.finfo(dt).max)):
    return a  # rounding beyond the dtype's precision changes nothing
  if dtypes.is_complex(dt):
    return lax.complex(round_float(lax.real(a)), round_float(lax.imag(a)))
  return round_float(a)


_round_jit = named_jit(_round, "round", static_argnames=("decimals",))


def round(a, decimals: int = 0, out=None):
  """Round to ``decimals`` decimal places, ties to even (integers come back unchanged).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.round(jnp.array([0.5, 1.5, 1.234]), 1)
      Array([0.5, 1.5, 1.2], dtype=float32)
  """
  check_arraylike("round", a)
  _no_out("round", out)
  if isinstance(decimals, core.Tracer) and decimals.to_concrete_value() is None:
    from ember.core.errors import ConcretizationTypeError
    raise ConcretizationTypeError(decimals, "The 'decimals' argument of jnp.round must be "
                                  "concrete.")
  return _round_jit(ensure_array(a), decimals=operator.index(decimals))


around = round


def _clip(arr, min, max):
  if min is not None:
    arr = maximum(min, arr)
  if max is not None:
    arr = minimum(max, arr)
  return arr


_clip_jit = named_jit(_clip, "clip")


def clip(arr=None, /, min=None, max=None):
  """``arr`` limited to ``[min, max]`` (either bound may be None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.clip(jnp.arange(5), 1, 3)
      Array([1, 1, 2, 3, 3], dtype=int32)
  """
  if arr is None:
    raise ValueError("No input was provided to the clip function.")
  check_arraylike("clip", arr)
  if any(v is not None and dtypes.is_complex(dtypes.dtype(v)) for v in (arr, min, max)):
    raise ValueError(
        "Clip received a complex value either through the input or the min/max keywords. "
        "Complex values have no ordering and cannot be clipped. Please convert to a real value "
        "or array by taking the real or imaginary components via jax.numpy.real/imag "
        "respectively.")
  return _clip_jit(arr, min, max)


# --- floating-point classification ------------------------------------------------------------

def isnan(x, /):
  """Elementwise test for NaN.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isnan(jnp.array([1., jnp.nan]))
      Array([False,  True], dtype=bool)
  """
  check_arraylike("isnan", x)
  return lax.ne(x, x)


def _false_like(x):
  return lax.full(np.shape(x), np.False_)


def _isinf(x):
  if _is(x, "float"):
    return lax.eq(lax.abs(x), _strong(x, np.inf))
  if _is(x, "complex"):
    re, im = lax.real(x), lax.imag(x)
    return lax.bitwise_or(lax.eq(lax.abs(re), _strong(re, np.inf)),
                          lax.eq(lax.abs(im), _strong(im, np.inf)))
  return _false_like(x)


_isinf_jit = named_jit(_isinf, "isinf")


def isinf(x, /):
  """Elementwise test for positive or negative infinity.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isinf(jnp.array([1., -jnp.inf]))
      Array([False,  True], dtype=bool)
  """
  check_arraylike("isinf", x)
  return _isinf_jit(x)


def isfinite(x, /):
  """Elementwise test for finite values (not inf, not NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isfinite(jnp.array([1., jnp.inf, jnp.nan]))
      Array([ True, False, False], dtype=bool)
  """
  check_arraylike("isfinite", x)
  if _is(x, "float"):
    return lax.is_finite(x)
  if _is(x, "complex"):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  return lax.full(np.shape(x), np.True_)


def _isposneginf(x, value, name):
  check_arraylike(name, x)
  if _is(x, "complex"):
    raise ValueError("isposinf/isneginf are not well defined for complex types")
  if _is(x, "float"):
    return lax.eq(x, _strong(x, value))
  return _false_like(x)


def _no_posneginf_out(out) -> None:
  if out is not None:
    raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")


def isposinf(x, /, out=None):
  """Elementwise test for positive infinity.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isposinf(jnp.array([jnp.inf, -jnp.inf]))
      Array([ True, False], dtype=bool)
  """
  _no_posneginf_out(out)
  return _isposneginf(x, np.inf, "isposinf")


def isneginf(x, /, out=None):
  """Elementwise test for negative infinity.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isneginf(jnp.array([jnp.inf, -jnp.inf]))
      Array([False,  True], dtype=bool)
  """
  _no_posneginf_out(out)
  return _isposneginf(x, -np.inf, "isneginf")


_INT_OF_WIDTH = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _signbit(x):
  dt = _dt(x)
  if dtypes.is_integer(dt):
    return lax.lt(x, _const(x, 0))
  if dtypes.is_bool(dt):
    return _false_like(x)
  if dtypes.is_complex(dt):
    raise ValueError(f"jax.numpy.signbit is not well defined for {dt}")
  int_t = np.dtype(_INT_OF_WIDTH[dt.itemsize])
  bits = lax.bitcast_convert_type(x, int_t)
  shifted = lax.shift_right_arithmetic(bits, np.asarray(8 * dt.itemsize - 1, int_t)[()])
  return lax._convert_element_type(shifted, np.bool_)


_signbit_jit = named_jit(_signbit, "signbit")


def signbit(x, /):
  """Elementwise test of the sign bit (true for -0. and negative values).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.signbit(jnp.array([-0., 0., -1.]))
      Array([ True, False,  True], dtype=bool)
  """
  check_arraylike("signbit", x)
  return _signbit_jit(x)


def _copysign(x1, x2):
  x1, x2 = promote_args_inexact("copysign", x1, x2)
  if _is(x1, "complex"):
    raise TypeError("copysign does not support complex-valued inputs")
  return _where(_signbit_jit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


_copysign_jit = named_jit(_copysign, "copysign")


def copysign(x1, x2, /):
  """``|x1|`` with the sign of ``x2``, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.copysign(1, -0.)
      Array(-1., dtype=float32, weak_type=True)
  """
  check_arraylike("copysign", x1, x2)
  return _copysign_jit(x1, x2)


def _frexp(x):
  x, = promote_args_inexact("frexp", x)
  dt = _dt(x)
  if dtypes.is_complex(dt):
    raise TypeError("frexp does not support complex-valued inputs")
  info = dtypes.finfo(dt)
  int_t = np.dtype(_INT_OF_WIDTH[dt.itemsize])
  nmant, mask = int(info.nmant), (1 << int(info.nexp)) - 1
  bias = 1 - int(info.minexp)
  ic = lambda v: np.asarray(v).astype(int_t)[()]  # noqa: E731  (an int literal of int_t)
  is_sub = lax.lt(lax.abs(x), _const(x, float(info.smallest_normal)))
  x1 = _where(is_sub, lax.mul(x, _const(x, 2.0 ** nmant)), x)
  e = _where(is_sub, ic(-nmant), ic(0))
  bits = lax.bitcast_convert_type(x1, int_t)
  exp_bits = lax.bitwise_and(lax.shift_right_arithmetic(bits, ic(nmant)), ic(mask))
  e = lax.add(e, lax.add(lax.sub(exp_bits, ic(bias)), ic(1)))
  m = lax.bitwise_or(lax.bitwise_and(bits, ic(~(mask << nmant))), ic((bias - 1) << nmant))
  m = lax.bitcast_convert_type(m, dt)
  cond = lax.bitwise_or(lax.bitwise_or(_isinf_jit(x), lax.ne(x, x)), lax.eq(x, _const(x, 0)))
  e = _where(cond, lax.full_like(e, 0), e)
  m = _where(cond, x, m)
  return m, (e if e.dtype == np.int32 else lax._convert_element_type(e, np.int32))


_frexp_jit = named_jit(_frexp, "frexp")


def frexp(x, /):
  """Split ``x`` into mantissa in [0.5, 1) and int32 exponent: ``x = m * 2 ** e``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.frexp(jnp.array([8., 0.]))
      (Array([0.5, 0. ], dtype=float32), Array([4, 0], dtype=int32))
  """
  check_arraylike("frexp", x)
  return _frexp_jit(x)


def _ldexp(x1, x2):
  x1_dt, x2_dt = dtypes.dtype(x1), dtypes.dtype(x2)
  if not dtypes.is_integer(x2_dt) or dtypes.is_complex(x1_dt):
    raise ValueError(f"ldexp not supported for input types {(x1_dt, x2_dt)}")
  x1, x2 = promote_args_inexact("ldexp", x1, x2)
  m, e = _frexp_jit(x1)
  e = lax.add(lax._convert_element_type(e, _dt(x1)), x2)
  positive = lax.gt(e, _const(e, 0))
  x = _where(positive, lax.mul(m, _const(m, 2)), m)
  e = _where(lax.gt(e, _const(e, 0)), lax.sub(e, _const(e, 1)), e)
  x = lax.mul(x, lax.pow(_const(x, 2), e))
  return _where(lax.bitwise_or(_isinf_jit(x1), lax.eq(x1, _const(x1, 0))), x1, x)


_ldexp_jit = named_jit(_ldexp, "ldexp")


def ldexp(x1, x2, /):
  """``x1 * 2 ** x2`` for an integer ``x2``, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ldexp(jnp.array([1., 2.]), jnp.array([3, -1]))
      Array([8., 1.], dtype=float32)
  """
  check_arraylike("ldexp", x1, x2)
  return _ldexp_jit(x1, x2)


def _modf(x):
  x, = promote_args_inexact("modf", x)
  whole = _where(lax.ge(x, _const(x, 0)), lax.floor(x), lax.ceil(x))
  return lax.sub(x, whole), whole


_modf_jit = named_jit(_modf, "modf")


def modf(x, /, out=None):
  """The fractional and integral parts of ``x`` (both with ``x``'s sign).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.modf(jnp.array([-1.5, 2.25]))
      (Array([-0.5 ,  0.25], dtype=float32), Array([-1.,  2.], dtype=float32))
  """
  check_arraylike("modf", x)
  _no_out("modf", out)
  return _modf_jit(x)


def _sinc(x):
  x, = promote_args_inexact("sinc", x)
  eq_zero = lax.eq(x, _lax_const(x, 0))
  pi_x = lax.mul(_lax_const(x, np.pi), x)
  safe_pi_x = _where(eq_zero, _lax_const(x, 1), pi_x)
  at_zero = lax.add(lax.mul(pi_x, _lax_const(x, 0)), _lax_const(x, 1))
  return _where(eq_zero, at_zero, lax.div(lax.sin(safe_pi_x), safe_pi_x))


_sinc_jit = named_jit(_sinc, "sinc")


def sinc(x, /):
  """Elementwise normalized sinc, ``sin(pi x) / (pi x)`` (1 at 0).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sinc(jnp.array([0., 0.5]))
      Array([1.        , 0.63661975], dtype=float32)
  """
  check_arraylike("sinc", x)
  return _sinc_jit(x)


def _heaviside(x1, x2):
  x1, x2 = promote_args_inexact("heaviside", x1, x2)
  zero = _lax_const(x1, 0)
  return _where(lax.lt(x1, zero), zero,
                _where(lax.gt(x1, zero), _lax_const(x1, 1), _where(lax.ne(x1, x1), x1, x2)))


_heaviside_jit = named_jit(_heaviside, "heaviside")


def heaviside(x1, x2, /):
  """The Heaviside step function: 0 below zero, 1 above, ``x2`` at zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.heaviside(jnp.array([-1., 0., 2.]), 0.5)
      Array([0. , 0.5, 1. ], dtype=float32)
  """
  check_arraylike("heaviside", x1, x2)
  return _heaviside_jit(x1, x2)
