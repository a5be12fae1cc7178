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
import operator
import warnings

import numpy as np

from ember import dtypes
from ember.core import trace as core
from ember.backend.array import Array
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


def _example(doc_name: str, args: str, result: str) -> str:
  return (f"\n\n  Example:\n      >>> import ember.numpy as jnp\n      >>> from ember import lax\n"
          f"      >>> lax.{doc_name}({args})\n      {result}\n  ")


def _unary(prim, doc_name: str, example_args: str, example_result: str):
  def f(x):
    return prim.bind(x)
  f.__name__ = f.__qualname__ = doc_name
  f.__doc__ = (f"Elementwise ``{doc_name}``: binds the ``{prim.name}`` primitive."
               + _example(doc_name, example_args, example_result))
  return f


def _binary(prim, doc_name: str, example_args: str, example_result: str):
  def f(x, y):
    return prim.bind(x, y)
  f.__name__ = f.__qualname__ = doc_name
  f.__doc__ = (f"Elementwise ``{doc_name}`` of two operands of one dtype (no promotion)."
               + _example(doc_name, example_args, example_result))
  return f


neg = _unary(ew.neg_p, "neg", "2.0",
             "Array(-2., dtype=float32, weak_type=True)")
sign = _unary(ew.sign_p, "sign", "-3.0",
              "Array(-1., dtype=float32, weak_type=True)")
floor = _unary(ew.floor_p, "floor", "1.5",
               "Array(1., dtype=float32, weak_type=True)")
ceil = _unary(ew.ceil_p, "ceil", "1.5",
              "Array(2., dtype=float32, weak_type=True)")
is_finite = _unary(ew.is_finite_p, "is_finite", "1.0",
                   "Array(True, dtype=bool, weak_type=True)")
exp = _unary(ew.exp_p, "exp", "1.0",
             "Array(2.7182817, dtype=float32, weak_type=True)")
exp2 = _unary(ew.exp2_p, "exp2", "3.0",
              "Array(8., dtype=float32, weak_type=True)")
log = _unary(ew.log_p, "log", "1.0",
             "Array(0., dtype=float32, weak_type=True)")
log1p = _unary(ew.log1p_p, "log1p", "0.0",
               "Array(0., dtype=float32, weak_type=True)")
expm1 = _unary(ew.expm1_p, "expm1", "0.0",
               "Array(0., dtype=float32, weak_type=True)")
tanh = _unary(ew.tanh_p, "tanh", "0.0",
              "Array(0., dtype=float32, weak_type=True)")
logistic = _unary(ew.logistic_p, "logistic", "0.0",
                  "Array(0.5, dtype=float32, weak_type=True)")
sin = _unary(ew.sin_p, "sin", "0.0",
             "Array(0., dtype=float32, weak_type=True)")
cos = _unary(ew.cos_p, "cos", "0.0",
             "Array(1., dtype=float32, weak_type=True)")
tan = _unary(ew.tan_p, "tan", "0.0",
             "Array(0., dtype=float32, weak_type=True)")
asin = _unary(ew.asin_p, "asin", "1.0",
              "Array(1.5707964, dtype=float32, weak_type=True)")
acos = _unary(ew.acos_p, "acos", "1.0",
              "Array(0., dtype=float32, weak_type=True)")
atan = _unary(ew.atan_p, "atan", "0.0",
              "Array(0., dtype=float32, weak_type=True)")
sinh = _unary(ew.sinh_p, "sinh", "0.0",
              "Array(0., dtype=float32, weak_type=True)")
cosh = _unary(ew.cosh_p, "cosh", "0.0",
              "Array(1., dtype=float32, weak_type=True)")
asinh = _unary(ew.asinh_p, "asinh", "0.0",
               "Array(0., dtype=float32, weak_type=True)")
acosh = _unary(ew.acosh_p, "acosh", "1.0",
               "Array(0., dtype=float32, weak_type=True)")
atanh = _unary(ew.atanh_p, "atanh", "0.0",
               "Array(0., dtype=float32, weak_type=True)")
sqrt = _unary(ew.sqrt_p, "sqrt", "4.0",
              "Array(2., dtype=float32, weak_type=True)")
rsqrt = _unary(ew.rsqrt_p, "rsqrt", "4.0",
               "Array(0.5, dtype=float32, weak_type=True)")
cbrt = _unary(ew.cbrt_p, "cbrt", "8.0",
              "Array(2., dtype=float32, weak_type=True)")
bitwise_not = _unary(ew.not_p, "bitwise_not", "jnp.int32(5)",
                     "Array(-6, dtype=int32)")
population_count = _unary(ew.population_count_p, "population_count", "jnp.int32(7)",
                          "Array(3, dtype=int32)")
clz = _unary(ew.clz_p, "clz", "jnp.int32(1)",
             "Array(31, dtype=int32)")
erf = _unary(ew.erf_p, "erf", "0.0",
             "Array(0., dtype=float32, weak_type=True)")
erfc = _unary(ew.erfc_p, "erfc", "0.0",
              "Array(1., dtype=float32, weak_type=True)")
erf_inv = _unary(ew.erf_inv_p, "erf_inv", "0.0",
                 "Array(0., dtype=float32, weak_type=True)")
lgamma = _unary(ew.lgamma_p, "lgamma", "3.0",
                "Array(0.6931474, dtype=float32, weak_type=True)")
digamma = _unary(ew.digamma_p, "digamma", "1.0",
                 "Array(-0.5772154, dtype=float32, weak_type=True)")
bessel_i0e = _unary(ew.bessel_i0e_p, "bessel_i0e", "1.0",
                    "Array(0.4657596, dtype=float32, weak_type=True)")
bessel_i1e = _unary(ew.bessel_i1e_p, "bessel_i1e", "0.0",
                    "Array(0., dtype=float32, weak_type=True)")
abs = _unary(ew.abs_p, "abs", "-2.5",
             "Array(2.5, dtype=float32, weak_type=True)")
real = _unary(ew.real_p, "real", "jnp.complex64(1 + 2j)",
              "Array(1., dtype=float32)")
imag = _unary(ew.imag_p, "imag", "jnp.complex64(1 + 2j)",
              "Array(2., dtype=float32)")
square = _unary(ew.square_p, "square", "3.0",
                "Array(9., dtype=float32, weak_type=True)")
copy_p = ew.copy_p
copy = _unary(ew.copy_p, "copy", "jnp.arange(3)",
              "Array([0, 1, 2], dtype=int32)")


def conj(x):
  """Complex conjugate; float32/float64 inputs give their complex type (as in JAX), other
  real types are a TypeError.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.conj(jnp.complex64(1 + 2j))
      Array(1.-2.j, dtype=complex64)
  """
  return ew.conj_p.bind(x, input_dtype=dtypes.dtype(x, canonicalize=True))


class RoundingMethod(enum.IntEnum):
  """How ``round`` breaks ties: away from zero (the default) or to the nearest even integer.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.round(jnp.array([0.5, 1.5, 2.5]), lax.RoundingMethod.TO_NEAREST_EVEN)
      Array([0., 2., 2.], dtype=float32)
  """
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
  """Round to the nearest integer, ties away from zero (or to even).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.round(2.5), lax.round(2.5, lax.RoundingMethod.TO_NEAREST_EVEN)
      (Array(3., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
  """
  return ew.round_p.bind(x, rounding_method=RoundingMethod(int(rounding_method)))


def integer_pow(x, y: int):
  """``x ** y`` for a static Python integer ``y``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.integer_pow(jnp.float32(2), 3)
      Array(8., dtype=float32)
  """
  try:
    y = operator.index(y)
  except TypeError:
    raise TypeError(f"integer_pow: y must be a Python integer (a static exponent), got {y!r} of "
                    f"type {type(y).__name__}; use lax.pow for other exponents.") from None
  return ew.integer_pow_p.bind(x, y=y)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
  """Round ``operand`` to a float format with the given exponent and mantissa bits.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.reduce_precision(jnp.float32(1.1), exponent_bits=5, mantissa_bits=10)
      Array(1.0996094, dtype=float32)
  """
  return ew.reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                    mantissa_bits=int(mantissa_bits))


add = _binary(ew.add_p, "add", "jnp.float32(1), 2.0",
              "Array(3., dtype=float32)")
sub = _binary(ew.sub_p, "sub", "jnp.float32(1), 2.0",
              "Array(-1., dtype=float32)")
mul = _binary(ew.mul_p, "mul", "jnp.float32(3), 2.0",
              "Array(6., dtype=float32)")
div = _binary(ew.div_p, "div", "jnp.int32(7), 2",
              "Array(3, dtype=int32)")
rem = _binary(ew.rem_p, "rem", "jnp.int32(7), 2",
              "Array(1, dtype=int32)")
pow = _binary(ew.pow_p, "pow", "jnp.float32(2), 3.0",
              "Array(8., dtype=float32)")
max = _binary(ew.max_p, "max", "jnp.float32(1), 2.0",
              "Array(2., dtype=float32)")
min = _binary(ew.min_p, "min", "jnp.float32(1), 2.0",
              "Array(1., dtype=float32)")
bitwise_and = _binary(ew.and_p, "bitwise_and", "jnp.int32(6), 3",
                      "Array(2, dtype=int32)")
bitwise_or = _binary(ew.or_p, "bitwise_or", "jnp.int32(6), 3",
                     "Array(7, dtype=int32)")
bitwise_xor = _binary(ew.xor_p, "bitwise_xor", "jnp.int32(6), 3",
                      "Array(5, dtype=int32)")
shift_left = _binary(ew.shift_left_p, "shift_left", "jnp.int32(1), 3",
                     "Array(8, dtype=int32)")
shift_right_arithmetic = _binary(
    ew.shift_right_arithmetic_p, "shift_right_arithmetic", "jnp.int32(-8), 1",
    "Array(-4, dtype=int32)")
shift_right_logical = _binary(ew.shift_right_logical_p, "shift_right_logical", "jnp.int32(8), 1",
                              "Array(4, dtype=int32)")
atan2 = _binary(ew.atan2_p, "atan2", "jnp.float32(1), 1.0",
                "Array(0.7853982, dtype=float32)")
nextafter = _binary(ew.nextafter_p, "nextafter", "jnp.float32(1), 2.0",
                    "Array(1.0000001, dtype=float32)")
def complex(x, y):
  """The complex number ``x + 1j * y`` of two float32 (or two float64) operands; any other
  dtype, or two different ones, is a TypeError naming it, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.complex(jnp.float32(1), 2.0)
      Array(1.+2.j, dtype=complex64)
  """
  dts = [dtypes.dtype(v, canonicalize=True) for v in (x, y)]
  for pos, dt in enumerate(dts):
    if dt not in (np.float32, np.float64):
      raise TypeError(f"complex does not accept dtype {dt} at position {pos}. Accepted dtypes "
                      f"at position {pos} are subtypes of float32, float64.")
  if dts[0] != dts[1]:
    raise TypeError("lax.complex requires arguments to have the same dtypes, got "
                    f"{dts[0]}, {dts[1]}.")
  return ew.complex_p.bind(x, y)
eq = _binary(ew.eq_p, "eq", "jnp.int32(1), 1",
             "Array(True, dtype=bool)")
ne = _binary(ew.ne_p, "ne", "jnp.int32(1), 1",
             "Array(False, dtype=bool)")
lt = _binary(ew.lt_p, "lt", "jnp.int32(1), 2",
             "Array(True, dtype=bool)")
le = _binary(ew.le_p, "le", "jnp.int32(1), 2",
             "Array(True, dtype=bool)")
gt = _binary(ew.gt_p, "gt", "jnp.int32(1), 2",
             "Array(False, dtype=bool)")
ge = _binary(ew.ge_p, "ge", "jnp.int32(1), 2",
             "Array(False, dtype=bool)")


def reciprocal(x):
  """Elementwise ``1 / x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.reciprocal(jnp.float32(4))
      Array(0.25, dtype=float32)
  """
  return div(_one_like(x), x)


def _one_like(x):
  return np.ones((), dtypes.dtype(x, canonicalize=True))


def select_n(which, *cases):
  """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.select_n(jnp.array([0, 1, 2]), jnp.zeros(3), jnp.ones(3), jnp.full(3, 2.0))
      Array([0., 1., 2.], dtype=float32)
  """
  return ew.select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
  """``on_true`` where ``pred`` else ``on_false`` (note select_n's reversed case order).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.select(jnp.array([True, False]), jnp.ones(2), jnp.zeros(2))
      Array([1., 0.], dtype=float32)
  """
  return ew.select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
  """``x`` clipped to ``[min, max]``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.clamp(0.0, jnp.array([-1.0, 0.5, 2.0]), 1.0)
      Array([0. , 0.5, 1. ], dtype=float32)
  """
  return ew.clamp_p.bind(min, x, max)


def convert_element_type(operand, new_dtype):
  """Cast ``operand`` to ``new_dtype`` (canonicalized; the result is not weakly typed).

  Example:
      >>> from ember import lax
      >>> lax.convert_element_type(1.7, "int32")
      Array(1, dtype=int32)
  """
  _check_supported(new_dtype, "convert_element_type")
  if (dtypes.is_complex(core.get_aval(operand).dtype)
      and not dtypes.is_complex(dtypes.canonicalize_dtype(new_dtype))):
    warnings.warn("Casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=2)
  return _convert_element_type(operand, new_dtype)


def _check_supported(dt, fun_name: str) -> None:
  """JAX's TypeError for a dtype no array can have (object, strings, datetimes, records...)."""
  if dtypes._is_extended(dt) or (isinstance(dt, type) and dt in dtypes.python_scalar_dtypes):
    return
  np_dt = np.dtype(dt)
  if np_dt not in dtypes._SUPPORTED:
    raise TypeError(f"JAX only supports number and bool dtypes, got dtype {dt} in {fun_name} "
                    "(new_dtype must be a numeric or bool dtype).")


def _convert_element_type(operand, new_dtype, weak_type: bool = False):
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  if isinstance(operand, Array):  # already of that type: the array itself (no equation)
    aval = operand.aval
    if aval.dtype == new_dtype and aval.weak_type == bool(weak_type):
      return operand
  return ew.convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type),
                                        sharding=None)


def bitcast_convert_type(operand, new_dtype):
  """Reinterpret the bits of ``operand`` as ``new_dtype`` (same bit width: same shape).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.bitcast_convert_type(jnp.float32(1), jnp.int32)
      Array(1065353216, dtype=int32)
  """
  return ew.bitcast_convert_type_p.bind(operand,
                                        new_dtype=dtypes.canonicalize_dtype(new_dtype))
