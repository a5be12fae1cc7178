"""ember.numpy's elementwise functions (NumPy's ufuncs) with NumPy broadcasting and JAX's
type promotion.

Each function promotes its operands as JAX does (``promote_args*`` of ``_util``) and emits
the primitives JAX emits, so ``make_jaxpr`` prints the same program: ``jnp.sin`` of an int
array converts to float32 first, ``x + 1`` is ``add x 1:i32[]``, and the helpers JAX wraps in
``jit`` (``floor_divide``, ``remainder``, ``_where``...) appear as nested ``jit`` equations.

The binary functions NumPy reduces and accumulates with (``add``, ``multiply``, ``maximum``...)
are ``ufunc`` objects with ``reduce``, ``accumulate`` and ``outer`` methods, as in JAX; passing
``out=`` or ``where=`` to them raises NotImplementedError.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.add(1, 1.0), jnp.sin(jnp.arange(2))
    (Array(2., dtype=float32, weak_type=True), Array([0.        , 0.84147096], dtype=float32))
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.numpy._util import (broadcast_shapes, check_arraylike, ensure_array, fold_scalar,
                               promote_args, promote_args_inexact, promote_args_numeric,
                               promote_dtypes, promote_dtypes_inexact, promote_dtypes_numeric,
                               promote_shapes)
from ember.numpy.creation import broadcast_to, named_jit

__all__ = [
    "ufunc", "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "pow", "float_power", "mod", "remainder", "fmod", "divmod", "negative", "positive", "abs",
    "absolute", "sign", "sqrt", "cbrt", "square", "reciprocal", "exp", "exp2", "expm1", "log",
    "log2", "log10", "log1p", "logaddexp", "logaddexp2", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "deg2rad", "rad2deg",
    "degrees", "radians", "hypot", "floor", "ceil", "trunc", "rint", "round", "around", "clip",
    "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "invert", "bitwise_count",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "isnan", "isinf",
    "isfinite", "isneginf", "isposinf", "signbit", "copysign", "nextafter", "frexp", "ldexp",
    "modf", "sinc", "heaviside", "gcd", "lcm", "conj", "conjugate", "real", "imag", "angle",
    "i0", "spacing",
]

# --- shared helpers ---------------------------------------------------------------------------

def _dt(x) -> np.dtype:
  aval = getattr(x, "aval", None)
  return aval.dtype if aval is not None else dtypes.dtype(x, canonicalize=True)


def _const(x, value):
  """``value`` as a scalar constant of ``x``'s dtype, weak if ``x`` is (a literal when traced;
  like JAX's Python-scalar constants, it keeps a weak ``x``'s result weak)."""
  if dtypes.is_weakly_typed(x):
    folded = fold_scalar(value, _dt(x), True)
    if folded is not None:
      return folded
  return fold_scalar(value, _dt(x), False)


def _strong(x, value):
  """``value`` as a strong scalar constant of ``x``'s dtype (JAX's ``_lax_const``)."""
  return fold_scalar(value, _dt(x), False)


def _is(x, *kinds) -> bool:
  """Whether ``x``'s dtype is one of ``kinds`` ('bool', 'int', 'uint', 'float', 'complex')."""
  dt = _dt(x)
  test = {"bool": dtypes.is_bool, "int": dtypes.is_signed, "uint": dtypes.is_unsigned,
          "float": dtypes.is_float, "complex": dtypes.is_complex}
  return any(test[k](dt) for k in kinds)


def _where_impl(condition, x, y):
  if _dt(condition) != np.bool_:
    condition = lax.ne(condition, _const(condition, 0))
  x, y = promote_dtypes(x, y)
  shape = broadcast_shapes(np.shape(condition), np.shape(x), np.shape(y))
  condition, x, y = (broadcast_to(a, shape) for a in (condition, x, y))
  return lax.select(condition, x, y)


#: ``where(condition, x, y)`` with promotion and broadcasting (a nested ``_where`` jit, as JAX).
_where = named_jit(_where_impl, "_where")


def _unary_doc(name: str, what: str, example: str, result: str) -> str:
  return (f"{what}\n\n  Example:\n      >>> import ember.numpy as jnp\n      >>> jnp.{name}"
          f"({example})\n      {result}\n  ")


def _no_out(name: str, out) -> None:
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


# --- the ufunc class --------------------------------------------------------------------------

class ufunc:
  """A binary (or unary) elementwise function with NumPy's ufunc methods.

  ``reduce`` and ``accumulate`` use the matching ember.numpy reduction where there is one
  (``add.reduce`` is ``sum``), else fold along the axis; ``outer`` applies the function to every
  pair of elements. ``at`` and ``reduceat`` are not implemented.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.add.reduce(jnp.arange(4)), jnp.multiply.outer(jnp.arange(2), jnp.arange(3))
      (Array(6, dtype=int32), Array([[0, 0, 0],
             [0, 1, 2]], dtype=int32))
  """

  def __init__(self, func, name: str, nin: int, nout: int = 1, identity=None, reducer=None,
               accumulator=None):
    self._func = func
    self.__name__ = self.__qualname__ = name
    self.__doc__ = func.__doc__
    self.nin, self.nout, self.nargs = nin, nout, nin + nout
    self.identity = identity
    self._reducer, self._accumulator = reducer, accumulator

  def __repr__(self):
    return f"<jnp.ufunc '{self.__name__}'>"

  def __call__(self, *args, out=None, where=None):
    if out is not None:
      raise NotImplementedError(f"out argument of {self}")
    if where is not None:
      raise NotImplementedError(f"where argument of {self}")
    if len(args) < self.nin:
      missing = ("'x'", "'y'")[len(args):self.nin] if self.nin == 2 else ("'x'",)
      raise TypeError(f"{self.__name__}() missing {self.nin - len(args)} required positional "
                      f"argument{'s' if len(missing) > 1 else ''}: {' and '.join(missing)}")
    if len(args) > self.nin:
      raise TypeError(f"{self.__name__}() takes {self.nin} positional argument"
                      f"{'s' if self.nin > 1 else ''} but {len(args)} were given")
    return self._func(*args)

  def outer(self, A, B, /, *, out=None, where=None):
    """``self(a, b)`` for every element ``a`` of ``A`` and ``b`` of ``B`` (shape
    ``A.shape + B.shape``)."""
    if self.nin != 2:
      raise ValueError("outer only supported for binary ufuncs")
    if out is not None or where is not None:
      raise NotImplementedError(f"out/where arguments of {self}.outer")
    check_arraylike(f"{self.__name__}.outer", A, B)
    A, B = ensure_array(A), ensure_array(B)
    a = lax.reshape(A, np.shape(A) + (1,) * np.ndim(B)) if np.ndim(B) else A
    return self._func(a, B)

  def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Reduce ``a`` along ``axis`` with this binary function (``add.reduce`` is ``sum``)."""
    if self.nin != 2:
      raise ValueError("reduce only supported for binary ufuncs")
    if out is not None:
      raise NotImplementedError(f"out argument of {self}.reduce()")
    if self._reducer is not None:
      return self._reducer(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                           where=where)
    return _fold_reduce(self, a, axis, dtype, keepdims, initial, where)

  def accumulate(self, a, axis: int = 0, dtype=None, out=None):
    """Cumulative application along ``axis`` (``add.accumulate`` is ``cumsum``)."""
    if self.nin != 2:
      raise ValueError("accumulate only supported for binary ufuncs")
    if out is not None:
      raise NotImplementedError(f"out argument of {self}.accumulate()")
    if self._accumulator is not None:
      return self._accumulator(a, axis=axis, dtype=dtype)
    return _fold_accumulate(self, a, axis, dtype)

  def at(self, *args, **kwargs):
    raise NotImplementedError(f"{self}.at is not implemented in ember; use x.at[idx].apply().")

  def reduceat(self, *args, **kwargs):
    raise NotImplementedError(f"{self}.reduceat is not implemented in ember.")


def _moved_front(ufn, a, axis, dtype):
  from ember.numpy._util import canonicalize_axis
  check_arraylike(f"{ufn.__name__}.reduce", a)
  a = ensure_array(a)
  if dtype is not None:
    a = lax.convert_element_type(a, dtypes.check_and_canonicalize_user_dtype(dtype))
  axis = canonicalize_axis(axis, np.ndim(a))
  perm = (axis,) + tuple(i for i in range(np.ndim(a)) if i != axis)
  return (lax.transpose(a, perm) if axis else a), axis


def _fold_reduce(ufn, a, axis, dtype, keepdims, initial, where):
  if where is not None:
    raise NotImplementedError(f"where argument of {ufn}.reduce()")
  if axis is None or isinstance(axis, tuple):
    raise NotImplementedError(f"{ufn}.reduce supports a single integer axis.")
  x, axis = _moved_front(ufn, a, axis, dtype)
  n = np.shape(x)[0]
  if n == 0 and initial is None:
    if ufn.identity is None:
      raise ValueError(f"zero-size array to reduction operation {ufn.__name__} which has no "
                       "identity")
    initial = ufn.identity
  rows = [lax.index_in_dim(x, i, 0, keepdims=False) for i in range(n)]
  acc = rows[0] if rows else lax.full(np.shape(x)[1:], fold_scalar(initial, _dt(x), False))
  for r in rows[1:]:
    acc = ufn(acc, r)
  if initial is not None and rows:
    acc = ufn(initial, acc)
  return lax.expand_dims(acc, (axis,)) if keepdims else acc


def _fold_accumulate(ufn, a, axis, dtype):
  x, axis = _moved_front(ufn, a, axis, dtype)
  rows = [lax.index_in_dim(x, i, 0, keepdims=True) for i in range(np.shape(x)[0])]
  outs = rows[:1]
  for r in rows[1:]:
    outs.append(ufn(outs[-1], r))
  out = lax.concatenate(outs, 0) if outs else x
  if axis:
    perm = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, np.ndim(out)))
    out = lax.transpose(out, perm)
  return out


def _reduction(name, takes_dtype=True):
  def reducer(a, *, dtype=None, **kwargs):
    from ember.numpy import reductions
    if takes_dtype:
      return getattr(reductions, name)(a, dtype=dtype, **kwargs)
    if dtype is not None:
      check_arraylike(f"{name}.reduce", a)
      a = lax.convert_element_type(a, dtypes.check_and_canonicalize_user_dtype(dtype))
    if name in ("all", "any"):
      kwargs.pop("initial", None)
    return getattr(reductions, name)(a, **kwargs)
  return reducer


def _accumulation(name):
  def accumulator(a, axis=0, dtype=None):
    from ember.numpy import reductions
    return getattr(reductions, name)(a, axis=axis, dtype=dtype)
  return accumulator


# --- arithmetic -------------------------------------------------------------------------------

def _add(x, y, /):
  """Elementwise ``x + y``; for bools it is logical or, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.add(jnp.arange(3), 1)
      Array([1, 2, 3], dtype=int32)
  """
  x, y = promote_args("add", x, y)
  return lax.bitwise_or(x, y) if _dt(x) == np.bool_ else lax.add(x, y)


def _subtract(x, y, /):
  """Elementwise ``x - y`` (a TypeError for bools, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.subtract(jnp.arange(3), 1.5)
      Array([-1.5, -0.5,  0.5], dtype=float32, weak_type=True)
  """
  return lax.sub(*promote_args("subtract", x, y))


def _multiply(x, y, /):
  """Elementwise ``x * y``; for bools it is logical and, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.multiply(2, True)
      Array(2, dtype=int32, weak_type=True)
  """
  x, y = promote_args("multiply", x, y)
  return lax.bitwise_and(x, y) if _dt(x) == np.bool_ else lax.mul(x, y)


def _negative(x, /):
  """Elementwise ``-x`` (a TypeError for bools, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.negative(jnp.arange(2))
      Array([ 0, -1], dtype=int32)
  """
  return lax.neg(*promote_args("negative", x))


def divide(x1, x2, /):
  """Elementwise true division ``x1 / x2``; integers are divided as floats.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.divide(jnp.arange(3), 2)
      Array([0. , 0.5, 1. ], dtype=float32)
  """
  return lax.div(*promote_args_inexact("divide", x1, x2))


true_divide = divide


def _float_divmod(x1, x2):
  """Python's float floor division and modulo (CPython's float_divmod), elementwise."""
  mod = lax.rem(x1, x2)
  x1_corrected = _where(lax.eq(x2, _const(x2, 0)), x1, lax.sub(x1, mod))
  div = lax.div(x1_corrected, x2)
  ind = lax.bitwise_and(lax.ne(mod, _const(mod, 0)), lax.ne(lax.sign(x2), lax.sign(mod)))
  mod = lax.select(ind, lax.add(mod, x2), mod)
  div = lax.select(ind, lax.sub(div, _const(div, 1)), div)
  return lax.round(div), mod


def _floor_divide(x1, x2):
  x1, x2 = promote_args_numeric("floor_divide", x1, x2)
  if _is(x1, "complex"):
    raise TypeError("floor_divide does not support complex-valued inputs")
  if _is(x1, "uint"):
    return lax.div(x1, x2)
  if _is(x1, "int"):
    d = lax.div(x1, x2)
    select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                             lax.ne(lax.rem(x1, x2), _const(x1, 0)))
    return _where(select, lax.sub(d, _const(d, 1)), d)
  return _float_divmod(x1, x2)[0]


_floor_divide_jit = named_jit(_floor_divide, "floor_divide")


def floor_divide(x1, x2, /):
  """Elementwise ``x1 // x2``, rounding towards minus infinity (Python's semantics).

  Integer division by zero gives what XLA gives (-1 adjusted for the signs), as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.floor_divide(jnp.array([7, -7]), 2)
      Array([ 3, -4], dtype=int32)
  """
  check_arraylike("floor_divide", x1, x2)
  return _floor_divide_jit(x1, x2)


def _remainder(x1, x2):
  x1, x2 = promote_args_numeric("remainder", x1, x2)
  if dtypes.is_integer(_dt(x2)):
    x2 = _where(lax.eq(x2, _const(x2, 0)), lax.full_like(x2, 1), x2)
  trunc_mod = lax.rem(x1, x2)
  zero = _const(trunc_mod, 0)
  trunc_mod_not_zero = lax.ne(trunc_mod, zero)
  do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, _const(x2, 0))),
                            trunc_mod_not_zero)
  return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


_remainder_jit = named_jit(_remainder, "remainder")


def remainder(x1, x2, /):
  """Elementwise remainder with the sign of the divisor (Python's ``%``); an integer
  remainder by zero is 0, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.remainder(jnp.array([7, -7]), 3)
      Array([1, 2], dtype=int32)
  """
  check_arraylike("remainder", x1, x2)
  return _remainder_jit(x1, x2)


mod = remainder


def _fmod(x1, x2):
  integer = dtypes.is_integer(dtypes.result_type(x1, x2))
  x1, x2 = promote_args_numeric("fmod", x1, x2)
  if integer:
    x2 = _where(lax.eq(x2, _const(x2, 0)), lax.full_like(x2, 1), x2)
  return lax.rem(x1, x2)


_fmod_jit = named_jit(_fmod, "fmod")


def fmod(x1, x2, /):
  """Elementwise C-style remainder, with the sign of the dividend.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fmod(jnp.array([7, -7]), 3)
      Array([ 1, -1], dtype=int32)
  """
  check_arraylike("fmod", x1, x2)
  return _fmod_jit(x1, x2)


def _divmod(x1, x2):
  x1, x2 = promote_args_numeric("divmod", x1, x2)
  if dtypes.is_integer(_dt(x1)):
    return _floor_divide_jit(x1, x2), _remainder_jit(x1, x2)
  return _float_divmod(x1, x2)


_divmod_jit = named_jit(_divmod, "divmod")


def divmod(x1, x2, /):
  """``(floor_divide(x1, x2), remainder(x1, x2))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.divmod(7, -2)
      (Array(-4, dtype=int32, weak_type=True), Array(-1, dtype=int32, weak_type=True))
  """
  check_arraylike("divmod", x1, x2)
  return _divmod_jit(x1, x2)


def _pow_int_int(x1, x2):
  """Integer ``x1 ** x2`` by unrolled binary exponentiation (6 steps, as JAX)."""
  zero, one = _const(x2, 0), _const(x2, 1)
  acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
  for _ in range(6):
    acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
    x1 = lax.mul(x1, x1)
    x2 = lax.shift_right_logical(x2, one)
  return acc


def power(x1, x2, /):
  """Elementwise ``x1 ** x2``.

  A concrete integer exponent uses ``integer_pow`` (negative ones are a TypeError for integer
  bases); integer bases with array exponents use binary exponentiation, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.power(4, 3), jnp.power(jnp.arange(3.), 2)
      (Array(64, dtype=int32, weak_type=True), Array([0., 1., 4.], dtype=float32))
  """
  check_arraylike("power", x1, x2)
  if hasattr(x1, "__jax_array__"):
    x1 = x1.__jax_array__()
  if hasattr(x2, "__jax_array__"):
    x2 = x2.__jax_array__()
  if not (isinstance(x2, core.Tracer) and x2.to_concrete_value() is None):
    try:
      y = operator.index(x2)
    except TypeError:
      pass
    else:
      x1, = promote_dtypes_numeric(x1)
      return lax.integer_pow(ensure_array(x1) if type(x1) in (int, float, complex) else x1, y)
  x1, x2 = promote_shapes("power", x1, x2)
  p1, p2 = promote_dtypes_numeric(x1, x2)
  if dtypes.is_integer(_dt(p1)):
    return _pow_int_int(p1, p2)
  if dtypes.is_inexact(_dt(x1)) and dtypes.is_integer(_dt(x2)):
    return lax.pow(x1, x2)
  return lax.pow(p1, p2)


pow = power


def float_power(x1, x2, /):
  """``x1 ** x2`` computed in floating point (integers become floats first).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.float_power(2, 3)
      Array(8., dtype=float32, weak_type=True)
  """
  return lax.pow(*promote_args_inexact("float_power", x1, x2))


def positive(x, /):
  """Elementwise ``+x`` (the input as an array).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.positive(jnp.array([-1, 2]))
      Array([-1,  2], dtype=int32)
  """
  check_arraylike("positive", x)
  return ensure_array(x)


def absolute(x, /):
  """Elementwise absolute value; complex inputs give their (real) magnitude.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.abs(jnp.array([-1.5, 2.])), jnp.abs(3 + 4j)
      (Array([1.5, 2. ], dtype=float32), Array(5., dtype=float32, weak_type=True))
  """
  check_arraylike("absolute", x)
  x = ensure_array(x)
  if _is(x, "bool", "uint"):
    return x
  return lax.abs(x)


abs = absolute


def sign(x, /):
  """Elementwise sign: -1, 0 or 1 (``x / |x|`` for complex; NaN stays NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sign(jnp.array([-2., 0., 3.]))
      Array([-1.,  0.,  1.], dtype=float32)
  """
  return lax.sign(*promote_args("sign", x))


def square(x, /):
  """Elementwise ``x * x`` (bools become int32).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.square(jnp.arange(3))
      Array([0, 1, 4], dtype=int32)
  """
  return lax.square(*promote_args_numeric("square", x))


def reciprocal(x, /):
  """Elementwise ``1 / x`` in floating point.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.reciprocal(jnp.array([2, 4]))
      Array([0.5 , 0.25], dtype=float32)
  """
  return lax.integer_pow(*promote_args_inexact("reciprocal", x), -1)


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
      >>> jnp.log2(8)
      Array(3., dtype=float32, weak_type=True)
  """
  x, = promote_args_inexact("log2", x)
  r = lax.log(x)
  if _is(x, "complex"):
    def make(re):
      ln2 = lax.log(_const(re, 2))
      return lambda p: lax.div(p, ln2)
    return _scale_real_imag(r, make)
  return lax.div(r, lax.log(_const(x, 2)))


def log10(x, /):
  """Elementwise base-10 logarithm.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.log10(100.)
      Array(2., dtype=float32, weak_type=True)
  """
  x, = promote_args_inexact("log10", x)
  r = lax.log(x)
  if _is(x, "complex"):
    return _scale_real_imag(r, lambda re: lambda p: lax.mul(p, _const(re, 1 / np.log(10))))
  return lax.mul(r, _const(x, 1 / np.log(10)))


def _scaled(name: str, factor: float, what: str, example: str, result: str):
  def f(x, /):
    x, = promote_args_inexact(name, x)
    return lax.mul(x, _const(x, factor))
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


def _logaddexp_f(x1, x2, /):
  """``log(exp(x1) + exp(x2))`` without overflow.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logaddexp(0., 0.)
      Array(0.6931472, dtype=float32, weak_type=True)
  """
  x1, x2 = promote_args_inexact("logaddexp", x1, x2)
  return _logaddexp(x1, x2, lax.log1p, lax.exp, None, 2 * np.pi)


def _logaddexp2_f(x1, x2, /):
  """``log2(2 ** x1 + 2 ** x2)`` without overflow.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logaddexp2(1., 1.)
      Array(2., dtype=float32, weak_type=True)
  """
  x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
  inv_ln2 = 1 / np.log(2)
  log_fn = lambda t: lax.mul(_const(t, inv_ln2), lax.log1p(t))  # noqa: E731
  return _logaddexp(x1, x2, log_fn, lax.exp2, None, 2 * np.pi * inv_ln2)


def _binary_inexact(lax_fn, name: str, what: str, example: str, result: str):
  def f(x1, x2, /):
    return lax_fn(*promote_args_inexact(name, x1, x2))
  f.__name__ = f.__qualname__ = name
  f.__doc__ = _unary_doc(name, what, example, result)
  return f


arctan2 = _binary_inexact(lax.atan2, "arctan2", "Elementwise angle of the point (x2, x1).",
                          "1, 1", "Array(0.7853982, dtype=float32, weak_type=True)")
atan2 = arctan2
nextafter = _binary_inexact(lax.nextafter, "nextafter",
                            "The next representable value after x1 towards x2.",
                            "jnp.float32(1), 2", "Array(1.0000001, dtype=float32)")


def _hypot(x1, x2):
  x1, x2 = promote_args_inexact("hypot", x1, x2)
  if _is(x1, "complex"):
    raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please convert "
                     "to real values first, such as by using abs(x)")
  x1, x2 = lax.abs(x1), lax.abs(x2)
  inf = _const(x1, np.inf)
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


def trunc(x, /):
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
    x = lax.convert_element_type(x, np.float32) if dt == np.float16 else x
    factor = _const(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
    return lax.convert_element_type(out, dt) if dt == np.float16 else out

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


def fmax(x1, x2, /):
  """Elementwise maximum ignoring NaNs (NaN only where both are NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fmax(jnp.array([1., jnp.nan]), 0)
      Array([1., 0.], dtype=float32)
  """
  check_arraylike("fmax", x1, x2)
  return _fmax_jit(x1, x2)


def fmin(x1, x2, /):
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
  return x if _dt(x) == np.bool_ else lax.ne(x, fold_scalar(0, _dt(x),
                                                              dtypes.is_weakly_typed(x)))


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


def left_shift(x1, x2, /):
  """Elementwise ``x1 << x2`` (bools become int32).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.left_shift(jnp.arange(3), 2)
      Array([0, 4, 8], dtype=int32)
  """
  return lax.shift_left(*promote_args_numeric("left_shift", x1, x2))


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
  return lax.convert_element_type(lax.population_count(absolute(x)), np.uint8)


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


def isposinf(x, /):
  """Elementwise test for positive infinity.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isposinf(jnp.array([jnp.inf, -jnp.inf]))
      Array([ True, False], dtype=bool)
  """
  return _isposneginf(x, np.inf, "isposinf")


def isneginf(x, /):
  """Elementwise test for negative infinity.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isneginf(jnp.array([jnp.inf, -jnp.inf]))
      Array([False,  True], dtype=bool)
  """
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
  return lax.convert_element_type(shifted, np.bool_)


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
  return m, (e if e.dtype == np.int32 else lax.convert_element_type(e, np.int32))


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
  e = lax.add(lax.convert_element_type(e, _dt(x1)), x2)
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
  eq_zero = lax.eq(x, _const(x, 0))
  pi_x = lax.mul(_const(x, np.pi), x)
  safe_pi_x = _where(eq_zero, _const(x, 1), pi_x)
  at_zero = lax.add(lax.mul(pi_x, _const(x, 0)), _const(x, 1))
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
  zero = _const(x1, 0)
  return _where(lax.lt(x1, zero), zero,
                _where(lax.gt(x1, zero), _const(x1, 1), _where(lax.ne(x1, x1), x1, x2)))


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


# --- integer number theory --------------------------------------------------------------------

def _euclid_step(a, b):
  nonzero = lax.ne(b, _const(b, 0))
  a_new = _where(nonzero, b, a)
  b_new = _where(lax.ne(b, _const(b, 0)), lax.rem(a, b), _const(b, 0))
  swap = lax.lt(a_new, b_new)
  return _where(swap, b_new, a_new), _where(lax.lt(a_new, b_new), a_new, b_new)


def _gcd(x1, x2):
  integer = dtypes.is_integer(dtypes.result_type(x1, x2))
  x1, x2 = promote_args_numeric("gcd", x1, x2)
  if not integer:
    raise ValueError("Arguments to jax.numpy.gcd must be integers.")
  a, b = absolute(x1), absolute(x2)
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


def gcd(x1, x2, /):
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


def lcm(x1, x2, /):
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

add = ufunc(_add, "add", 2, identity=0, reducer=_reduction("sum"),
            accumulator=_accumulation("cumsum"))
subtract = ufunc(_subtract, "subtract", 2)
multiply = ufunc(_multiply, "multiply", 2, identity=1, reducer=_reduction("prod"),
                 accumulator=_accumulation("cumprod"))
negative = ufunc(_negative, "negative", 1)
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
logaddexp = ufunc(_logaddexp_f, "logaddexp", 2, identity=-np.inf)
logaddexp2 = ufunc(_logaddexp2_f, "logaddexp2", 2, identity=-np.inf)
