"""ember.numpy's elementwise mathematical functions: roots, exponentials and logarithms
(logaddexp/logaddexp2 are ``ufunc`` objects), trigonometric and hyperbolic functions and their
inverses, hypot/arctan2/nextafter, integer number theory (gcd, lcm), complex numbers (conj,
real, imag, angle), i0 and spacing, with JAX's type promotion.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.hypot(3, 4)
    Array(5., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import (check_arraylike, ensure_array, promote_args_inexact,
                               promote_args_numeric, promote_dtypes_inexact)
from ember.numpy.creation import named_jit
from ember.numpy.shape_ops import broadcast_arrays
from ember.numpy.ufuncs import (_const, _dt, _floor_divide_jit, _is, _lax_const, _strong,
                                _unary_doc, _where, absolute, ufunc)
from ember.numpy.ufuncs_float import _copysign_jit

__all__ = [
    "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp",
    "logaddexp2", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
    "tanh", "arcsinh", "arccosh", "arctanh", "asin", "acos", "atan", "atan2", "asinh", "acosh",
    "atanh", "deg2rad", "rad2deg", "degrees", "radians", "hypot", "nextafter", "gcd", "lcm",
    "conj", "conjugate", "real", "imag", "angle", "i0", "spacing",
]


# --- roots, exponentials, logarithms, trigonometry --------------------------------------------

def _inexact_unary(lax_fn, name: str, what: str, example: str, result: str):
  def f(x, /):
    return lax_fn(*promote_args_inexact(name, x))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, what, example, result)
  return f


sqrt = _inexact_unary(lax.sqrt, "sqrt", "Elementwise square root (NaN for negative reals).",
                      "4", "Array(2., dtype=float32, weak_type=True)")
cbrt = _inexact_unary(lax.cbrt, "cbrt", "Elementwise real cube root.", "-8",
                      "Array(-2., dtype=float32, weak_type=True)")
exp = _inexact_unary(lax.exp, "exp", "Elementwise ``e ** x``.", "0",
                     "Array(1., dtype=float32, weak_type=True)")
exp2 = _inexact_unary(lax.exp2, "exp2", "Elementwise ``2 ** x``.", "3",
                      "Array(8., dtype=float32, weak_type=True)")
expm1 = _inexact_unary(lax.expm1, "expm1", "Elementwise ``exp(x) - 1``, accurate near 0.",
                       "0.", "Array(0., dtype=float32, weak_type=True)")
log = _inexact_unary(lax.log, "log", "Elementwise natural logarithm.", "1",
                     "Array(0., dtype=float32, weak_type=True)")
log1p = _inexact_unary(lax.log1p, "log1p", "Elementwise ``log(1 + x)``, accurate near 0.",
                       "0", "Array(0., dtype=float32, weak_type=True)")
sin = _inexact_unary(lax.sin, "sin", "Elementwise sine.", "0",
                     "Array(0., dtype=float32, weak_type=True)")
cos = _inexact_unary(lax.cos, "cos", "Elementwise cosine.", "0",
                     "Array(1., dtype=float32, weak_type=True)")
tan = _inexact_unary(lax.tan, "tan", "Elementwise tangent.", "0",
                     "Array(0., dtype=float32, weak_type=True)")
arcsin = _inexact_unary(lax.asin, "arcsin", "Elementwise inverse sine.", "0",
                        "Array(0., dtype=float32, weak_type=True)")
arccos = _inexact_unary(lax.acos, "arccos", "Elementwise inverse cosine.", "1",
                        "Array(0., dtype=float32, weak_type=True)")
arctan = _inexact_unary(lax.atan, "arctan", "Elementwise inverse tangent.", "0",
                        "Array(0., dtype=float32, weak_type=True)")
sinh = _inexact_unary(lax.sinh, "sinh", "Elementwise hyperbolic sine.", "0",
                      "Array(0., dtype=float32, weak_type=True)")
cosh = _inexact_unary(lax.cosh, "cosh", "Elementwise hyperbolic cosine.", "0",
                      "Array(1., dtype=float32, weak_type=True)")
tanh = _inexact_unary(lax.tanh, "tanh", "Elementwise hyperbolic tangent.", "0",
                      "Array(0., dtype=float32, weak_type=True)")
arcsinh = _inexact_unary(lax.asinh, "arcsinh", "Elementwise inverse hyperbolic sine.", "0",
                         "Array(0., dtype=float32, weak_type=True)")
arctanh = _inexact_unary(lax.atanh, "arctanh", "Elementwise inverse hyperbolic tangent.", "0",
                         "Array(0., dtype=float32, weak_type=True)")


def _arccosh(x):
  x, = promote_args_inexact("arccosh", x)
  result = lax.acosh(x)
  if _is(x, "complex"):  # pick the branch with a non-negative real part, as NumPy
    result = _where(lax.lt(lax.real(result), _const(lax.real(result), 0)), lax.neg(result),
                    result)
  return result


_arccosh_jit = named_jit(_arccosh, "arccosh")


def arccosh(x, /):
  """Elementwise inverse hyperbolic cosine.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.arccosh(1.)
      Array(0., dtype=float32, weak_type=True)
  """
  check_arraylike("arccosh", x)
  return _arccosh_jit(x)


asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh


def _scale_real_imag(z, make_fn):
  """``make_fn(re)`` (a function built from the real part) applied to the real and imaginary
  parts of a complex ``z``, recombined."""
  re, im = lax.real(z), lax.imag(z)
  fn = make_fn(re)
  return lax.complex(fn(re), fn(im))


def log2(x, /):
  """Elementwise base-2 logarithm.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.log2(8)  # strong, as in JAX
      Array(3., dtype=float32)
  """
  x, = promote_args_inexact("log2", x)
  r = lax.log(x)
  if _is(x, "complex"):
    def make(re):
      ln2 = lax.log(_strong(re, 2))
      return lambda p: lax.div(p, ln2)
    return _scale_real_imag(r, make)
  return lax.div(r, lax.log(_strong(x, 2)))


def log10(x, /):
  """Elementwise base-10 logarithm.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.log10(100.)  # strong, as in JAX
      Array(2., dtype=float32)
  """
  x, = promote_args_inexact("log10", x)
  r = lax.log(x)
  if _is(x, "complex"):
    return _scale_real_imag(r, lambda re: lambda p: lax.mul(p, _strong(re, 1 / np.log(10))))
  return lax.mul(r, _strong(x, 1 / np.log(10)))


def _scaled(name: str, factor: float, what: str, example: str, result: str):
  def f(x, /):
    x, = promote_args_inexact(name, x)
    return lax.mul(x, _lax_const(x, factor))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, what, example, result)
  return f


deg2rad = _scaled("deg2rad", np.pi / 180, "Degrees to radians, elementwise.", "180",
                  "Array(3.1415927, dtype=float32, weak_type=True)")
rad2deg = _scaled("rad2deg", 180 / np.pi, "Radians to degrees, elementwise.", "jnp.pi",
                  "Array(180., dtype=float32, weak_type=True)")
radians, degrees = deg2rad, rad2deg


def _logaddexp(x1, x2, log_fn, exp_fn, log_scale, period):
  amax = lax.max(x1, x2)
  if _is(x1, "float"):
    delta = lax.sub(x1, x2)
    nan = lax.ne(delta, delta)
    both = lax.add(x1, x2)
    tail = log_fn(exp_fn(lax.neg(lax.abs(delta))))
    return lax.select(nan, both, lax.add(amax, tail))
  # complex: log(exp(a) + exp(b)) = amax + log1p(exp(a + b - 2 amax)), imaginary part wrapped
  delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
  out = lax.add(amax, log_fn(exp_fn(delta)))
  re, im = lax.real(out), lax.imag(out)
  half = _const(im, period / 2)
  wrapped = lax.rem(lax.add(im, half), _const(im, period))
  wrapped = lax.select(lax.lt(wrapped, _const(im, 0)), lax.add(wrapped, _const(im, period)),
                       wrapped)
  return lax.complex(re, lax.sub(wrapped, half))


def _replace_inf(x):
  re = lax.real(x) if _is(x, "complex") else x
  shape = np.shape(x)
  zeros = _const(x, 0) if not shape else lax.broadcast_in_dim(_const(x, 0), shape, ())
  return lax.select(lax.eq(re, _const(re, np.inf)), zeros, x)


def _with_softmax_jvp(name: str, exp_fn, fn):
  """``fn`` (a logaddexp) with JAX's derivative: each tangent weighted by
  ``exp(x_i - out)`` (infinities replaced by 0), so equal arguments share it equally."""
  from ember.transforms.custom import custom_jvp
  f = custom_jvp(fn)

  def jvp(primals, tangents):
    (x1, x2), (t1, t2) = primals, tangents
    out = f(x1, x2)
    weight = lambda x: exp_fn(lax.sub(_replace_inf(x), _replace_inf(out)))  # noqa: E731
    return out, lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))
  jvp.__name__ = f"_{name}_jvp"  # as JAX's rule is named (jaxprs print it)
  f.defjvp(jvp)
  f.__name__ = name
  return f


_logaddexp_e = _with_softmax_jvp(
    "logaddexp", lax.exp, lambda x1, x2: _logaddexp(x1, x2, lax.log1p, lax.exp, None, 2 * np.pi))
_logaddexp_2 = _with_softmax_jvp(
    "logaddexp2", lax.exp2, lambda x1, x2: _logaddexp(
        x1, x2, lambda t: lax.mul(_lax_const(t, 1 / np.log(2)), lax.log1p(t)), lax.exp2, None,
        2 * np.pi / np.log(2)))


def _logaddexp_f(x1, x2, /):
  """``log(exp(x1) + exp(x2))`` without overflow.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logaddexp(0., 0.)
      Array(0.6931472, dtype=float32, weak_type=True)
  """
  x1, x2 = promote_args_inexact("logaddexp", x1, x2)
  return _logaddexp_e(x1, x2)


def _logaddexp2_f(x1, x2, /):
  """``log2(2 ** x1 + 2 ** x2)`` without overflow.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logaddexp2(1., 1.)
      Array(2., dtype=float32, weak_type=True)
  """
  x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
  return _logaddexp_2(x1, x2)


def _binary_inexact(lax_fn, name: str, what: str, example: str, result: str):
  def f(x1, x2, /):
    return lax_fn(*promote_args_inexact(name, x1, x2))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, what, example, result)
  return f


arctan2 = _binary_inexact(lax.atan2, "arctan2", "Elementwise angle of the point (x2, x1).",
                          "1, 1", "Array(0.7853982, dtype=float32, weak_type=True)")
atan2 = arctan2


def nextafter(x, y, /):
  """The next representable value after ``x`` towards ``y``, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nextafter(jnp.float32(1), 2)
      Array(1.0000001, dtype=float32)
  """
  return lax.nextafter(*promote_args_inexact("nextafter", x, y))


def _hypot(x1, x2):
  x1, x2 = promote_args_inexact("hypot", x1, x2)
  if _is(x1, "complex"):
    raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please convert "
                     "to real values first, such as by using abs(x)")
  x1, x2 = lax.abs(x1), lax.abs(x2)
  inf = _lax_const(x1, np.inf)
  idx_inf = lax.bitwise_or(lax.eq(x1, inf), lax.eq(x2, inf))
  x1, x2 = lax.max(x1, x2), lax.min(x1, x2)
  x = _where(lax.eq(x1, _const(x1, 0)), x1,
             lax.mul(x1, lax.sqrt(lax.add(_const(x1, 1), lax.square(
                 lax.div(x2, _where(lax.eq(x1, _const(x1, 0)), lax.full_like(x1, 1), x1)))))))
  return _where(idx_inf, inf, x)


_hypot_jit = named_jit(_hypot, "hypot")


def hypot(x1, x2, /):
  """Elementwise ``sqrt(x1 ** 2 + x2 ** 2)`` without overflow.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.hypot(3, 4)
      Array(5., dtype=float32, weak_type=True)
  """
  check_arraylike("hypot", x1, x2)
  return _hypot_jit(x1, x2)


# --- integer number theory --------------------------------------------------------------------

def _euclid_step(a, b):
  nonzero = lax.ne(b, _const(b, 0))
  a_new = _where(nonzero, b, a)
  b_new = _where(lax.ne(b, _const(b, 0)), lax.rem(a, b), _lax_const(b, 0))
  swap = lax.lt(a_new, b_new)
  return _where(swap, b_new, a_new), _where(lax.lt(a_new, b_new), a_new, b_new)


def _gcd(x1, x2):
  integer = dtypes.is_integer(dtypes.result_type(x1, x2))
  x1, x2 = promote_args_numeric("gcd", x1, x2)
  if not integer:
    raise ValueError("Arguments to jax.numpy.gcd must be integers.")
  a, b = broadcast_arrays(absolute(x1), absolute(x2))
  while_loop = getattr(lax, "while_loop", None)
  if while_loop is not None:
    def cond(carry):
      from ember.numpy.reductions import any as any_
      return any_(lax.ne(carry[1], _const(carry[1], 0)))
    return while_loop(cond, lambda carry: _euclid_step(*carry), (a, b))[0]
  # No while loop yet: unroll the worst case of Euclid's algorithm for this width
  # (consecutive Fibonacci numbers need about 1.44 * bits steps), with plain selects.
  zero = _const(b, 0)
  for _ in range(int(1.45 * dtypes.iinfo(_dt(a)).bits) + 2):
    nonzero = lax.ne(b, zero)
    a, b = lax.select(nonzero, b, a), lax.select(nonzero, lax.rem(a, lax.select(
        nonzero, b, lax.full_like(b, 1))), b)
  return a


_gcd_jit = named_jit(_gcd, "gcd")


def gcd(x1, x2):
  """Elementwise greatest common divisor of integers (``gcd(0, 0) == 0``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.gcd(jnp.array([12, -18]), jnp.array([8, 12]))
      Array([4, 6], dtype=int32)
  """
  check_arraylike("gcd", x1, x2)
  return _gcd_jit(x1, x2)


def _lcm(x1, x2):
  integer = dtypes.is_integer(dtypes.result_type(x1, x2))
  x1, x2 = promote_args_numeric("lcm", x1, x2)
  if not integer:
    raise ValueError("Arguments to jax.numpy.lcm must be integers.")
  x1, x2 = absolute(x1), absolute(x2)
  d = _gcd_jit(x1, x2)
  return _where(lax.eq(d, _const(d, 0)), _const(d, 0),
                lax.mul(x1, _floor_divide_jit(x2, d)))


_lcm_jit = named_jit(_lcm, "lcm")


def lcm(x1, x2):
  """Elementwise least common multiple of integers (``lcm(0, x) == 0``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.lcm(jnp.array([4, -6]), jnp.array([6, 4]))
      Array([12, 12], dtype=int32)
  """
  check_arraylike("lcm", x1, x2)
  return _lcm_jit(x1, x2)


# --- complex numbers --------------------------------------------------------------------------

def conjugate(x, /):
  """Elementwise complex conjugate (real inputs come back unchanged).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.conj(jnp.array([1 + 2j]))
      Array([1.-2.j], dtype=complex64)
  """
  check_arraylike("conjugate", x)
  x = ensure_array(x)
  return lax.conj(x) if _is(x, "complex") else x


conj = conjugate


def real(val, /):
  """The real part (real inputs come back unchanged).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.real(jnp.array([1 + 2j]))
      Array([1.], dtype=float32)
  """
  check_arraylike("real", val)
  val = ensure_array(val)
  return lax.real(val) if _is(val, "complex") else val


def imag(val, /):
  """The imaginary part (zeros of the same dtype for real inputs).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.imag(jnp.array([1 + 2j])), jnp.imag(1.5)
      (Array([2.], dtype=float32), Array(0., dtype=float32, weak_type=True))
  """
  check_arraylike("imag", val)
  val = ensure_array(val)
  return lax.imag(val) if _is(val, "complex") else lax.full_like(val, 0)


def _angle(z, deg):
  z = ensure_array(z)
  if _is(z, "complex"):
    re, im = lax.real(z), lax.imag(z)
  else:
    re, im = z, lax.full_like(z, 0)
  re, im = promote_dtypes_inexact(re, im)
  if _is(z, "float") and not np.shape(z):  # JAX makes a real scalar's angle strong
    re, im = (lax._convert_element_type(v, dtypes.default_float_dtype()) for v in (re, im))
  result = lax.atan2(im, re)
  return rad2deg(result) if deg else result


_angle_jit = named_jit(_angle, "angle", static_argnames=("deg",))


def angle(z, deg: bool = False):
  """The argument (phase angle) of complex values, in radians or degrees.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.angle(jnp.array([1j, -1]))
      Array([1.5707964, 3.1415927], dtype=float32)
  """
  check_arraylike("angle", z)
  return _angle_jit(z, deg=bool(deg))


def _i0(x):
  x, = promote_args_inexact("i0", x)
  if not _is(x, "float"):
    raise ValueError(f"Unsupported input type to jax.numpy.i0: {_dt(x)}")
  ax = lax.abs(x)
  return lax.mul(lax.exp(ax), lax.bessel_i0e(ax))


_i0_jit = named_jit(_i0, "i0")


def i0(x):
  """The modified Bessel function of the first kind, order 0, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.i0(jnp.array([0.]))  # doctest: +SKIP
      Array([1.0000001], dtype=float32)
  """
  check_arraylike("i0", x)
  return _i0_jit(x)


def spacing(x, /):
  """The distance from ``x`` to the next representable value away from zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.spacing(jnp.float32(1))
      Array(1.1920929e-07, dtype=float32)
  """
  x, = promote_args_inexact("spacing", x)
  dt = _dt(x)
  if dtypes.is_complex(dt):
    raise ValueError("jnp.spacing is not defined for complex inputs.")
  x_toward_inf = lax.nextafter(x, _copysign_jit(_strong(x, np.inf), x))
  result = lax.sub(x_toward_inf, x)
  is_zero = lax.eq(result, _strong(result, 0))
  tiny = _copysign_jit(_strong(x, float(dtypes.finfo(dt).smallest_subnormal)), x)
  return _where(is_zero, tiny, result)


# --- the ufunc objects ------------------------------------------------------------------------

logaddexp = ufunc(_logaddexp_f, "logaddexp", 2, identity=-np.inf)
logaddexp2 = ufunc(_logaddexp2_f, "logaddexp2", 2, identity=-np.inf)
