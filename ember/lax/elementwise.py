"""lax's elementwise functions: strict wrappers over the elementwise primitives.

lax does not promote types: ``lax.add(1, 1.0)`` is a TypeError, ``lax.add(jnp.float32(1), 1.0)``
works (a Python scalar is weakly typed and takes the other operand's dtype class only if it
already matches).

Example:
    >>> from ember import lax
    >>> import ember.numpy as jnp
    >>> lax.add(jnp.float32(1), 1.0)
    Array(2., dtype=float32)
"""
from __future__ import annotations

import enum

import numpy as np

from ember import dtypes
from ember.primitives import elementwise as ew

__all__ = [
    "neg", "sign", "floor", "ceil", "round", "RoundingMethod", "is_finite", "exp", "exp2", "log",
    "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "asinh", "acosh", "atanh", "sqrt", "rsqrt", "cbrt", "bitwise_not", "population_count",
    "clz", "erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i0e", "bessel_i1e", "abs",
    "real", "imag", "conj", "square", "integer_pow", "reduce_precision", "add", "sub", "mul",
    "div", "rem", "pow", "max", "min", "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "atan2", "nextafter", "complex", "eq", "ne",
    "lt", "le", "gt", "ge", "select_n", "select", "clamp", "convert_element_type",
    "bitcast_convert_type", "reciprocal", "tan", "copy", "copy_p",
]


def _unary(prim, doc_name: str):
  def f(x):
    return prim.bind(x)
  f.__name__ = f.__qualname__ = doc_name
  f.__doc__ = f"Elementwise ``{doc_name}``: binds the ``{prim.name}`` primitive."
  return f


def _binary(prim, doc_name: str):
  def f(x, y):
    return prim.bind(x, y)
  f.__name__ = f.__qualname__ = doc_name
  f.__doc__ = f"Elementwise ``{doc_name}`` of two operands of one dtype (no promotion)."
  return f


neg = _unary(ew.neg_p, "neg")
sign = _unary(ew.sign_p, "sign")
floor = _unary(ew.floor_p, "floor")
ceil = _unary(ew.ceil_p, "ceil")
is_finite = _unary(ew.is_finite_p, "is_finite")
exp = _unary(ew.exp_p, "exp")
exp2 = _unary(ew.exp2_p, "exp2")
log = _unary(ew.log_p, "log")
log1p = _unary(ew.log1p_p, "log1p")
expm1 = _unary(ew.expm1_p, "expm1")
tanh = _unary(ew.tanh_p, "tanh")
logistic = _unary(ew.logistic_p, "logistic")
sin = _unary(ew.sin_p, "sin")
cos = _unary(ew.cos_p, "cos")
tan = _unary(ew.tan_p, "tan")
asin = _unary(ew.asin_p, "asin")
acos = _unary(ew.acos_p, "acos")
atan = _unary(ew.atan_p, "atan")
sinh = _unary(ew.sinh_p, "sinh")
cosh = _unary(ew.cosh_p, "cosh")
asinh = _unary(ew.asinh_p, "asinh")
acosh = _unary(ew.acosh_p, "acosh")
atanh = _unary(ew.atanh_p, "atanh")
sqrt = _unary(ew.sqrt_p, "sqrt")
rsqrt = _unary(ew.rsqrt_p, "rsqrt")
cbrt = _unary(ew.cbrt_p, "cbrt")
bitwise_not = _unary(ew.not_p, "bitwise_not")
population_count = _unary(ew.population_count_p, "population_count")
clz = _unary(ew.clz_p, "clz")
erf = _unary(ew.erf_p, "erf")
erfc = _unary(ew.erfc_p, "erfc")
erf_inv = _unary(ew.erf_inv_p, "erf_inv")
lgamma = _unary(ew.lgamma_p, "lgamma")
digamma = _unary(ew.digamma_p, "digamma")
bessel_i0e = _unary(ew.bessel_i0e_p, "bessel_i0e")
bessel_i1e = _unary(ew.bessel_i1e_p, "bessel_i1e")
abs = _unary(ew.abs_p, "abs")
real = _unary(ew.real_p, "real")
imag = _unary(ew.imag_p, "imag")
square = _unary(ew.square_p, "square")
copy_p = ew.copy_p
copy = _unary(ew.copy_p, "copy")


def conj(x):
  """Complex conjugate; real inputs become complex (as in JAX)."""
  if not dtypes.is_complex(dtypes.dtype(x)):
    x = convert_element_type(x, dtypes.to_complex_dtype(dtypes.dtype(x, canonicalize=True)))
  return ew.conj_p.bind(x)


class RoundingMethod(enum.IntEnum):
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
  """Round to the nearest integer, ties away from zero (or to even)."""
  return ew.round_p.bind(x, rounding_method=RoundingMethod(int(rounding_method)))


def integer_pow(x, y: int):
  """``x ** y`` for a static Python integer ``y``."""
  return ew.integer_pow_p.bind(x, y=int(y))


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
  return ew.reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                    mantissa_bits=int(mantissa_bits))


add = _binary(ew.add_p, "add")
sub = _binary(ew.sub_p, "sub")
mul = _binary(ew.mul_p, "mul")
div = _binary(ew.div_p, "div")
rem = _binary(ew.rem_p, "rem")
pow = _binary(ew.pow_p, "pow")
max = _binary(ew.max_p, "max")
min = _binary(ew.min_p, "min")
bitwise_and = _binary(ew.and_p, "bitwise_and")
bitwise_or = _binary(ew.or_p, "bitwise_or")
bitwise_xor = _binary(ew.xor_p, "bitwise_xor")
shift_left = _binary(ew.shift_left_p, "shift_left")
shift_right_arithmetic = _binary(ew.shift_right_arithmetic_p, "shift_right_arithmetic")
shift_right_logical = _binary(ew.shift_right_logical_p, "shift_right_logical")
atan2 = _binary(ew.atan2_p, "atan2")
nextafter = _binary(ew.nextafter_p, "nextafter")
complex = _binary(ew.complex_p, "complex")
eq = _binary(ew.eq_p, "eq")
ne = _binary(ew.ne_p, "ne")
lt = _binary(ew.lt_p, "lt")
le = _binary(ew.le_p, "le")
gt = _binary(ew.gt_p, "gt")
ge = _binary(ew.ge_p, "ge")


def reciprocal(x):
  return div(_one_like(x), x)


def _one_like(x):
  return np.ones((), dtypes.dtype(x, canonicalize=True))


def select_n(which, *cases):
  """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32."""
  return ew.select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
  """``on_true`` where ``pred`` else ``on_false`` (note select_n's reversed case order)."""
  return ew.select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
  """``x`` clipped to ``[min, max]``."""
  return ew.clamp_p.bind(min, x, max)


def convert_element_type(operand, new_dtype):
  """Cast ``operand`` to ``new_dtype`` (canonicalized; the result is not weakly typed).

  Example:
      >>> from ember import lax
      >>> lax.convert_element_type(1.7, "int32")
      Array(1, dtype=int32)
  """
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  return ew.convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=False,
                                        sharding=None)


def _convert_element_type(operand, new_dtype, weak_type: bool = False):
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  return ew.convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type),
                                        sharding=None)


def bitcast_convert_type(operand, new_dtype):
  return ew.bitcast_convert_type_p.bind(operand,
                                        new_dtype=dtypes.canonicalize_dtype(new_dtype))
