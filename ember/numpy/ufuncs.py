"""ember.numpy's elementwise functions (NumPy's ufuncs) with NumPy broadcasting and JAX's
type promotion: the ``ufunc`` class, the helpers the other ``ufuncs_*`` modules share, and the
arithmetic functions (add, subtract, multiply, divide, floor_divide, remainder, power, abs...).

Each function promotes its operands as JAX does (``promote_args*`` of ``_util``) and emits
the primitives JAX emits, so ``make_jaxpr`` prints the same program: ``jnp.sin`` of an int
array converts to float32 first, ``x + 1`` is ``add x 1:i32[]``, and the helpers JAX wraps in
``jit`` (``floor_divide``, ``remainder``, ``_where``...) appear as nested ``jit`` equations.

The binary functions NumPy reduces and accumulates with (``add``, ``multiply``, ``maximum``...)
are ``ufunc`` objects with ``reduce``, ``accumulate`` and ``outer`` methods, as in JAX; passing
``out=`` or ``where=`` to them raises NotImplementedError.

The other elementwise functions live in ``ufuncs_logic.py`` (comparisons, min/max, logical and
bitwise), ``ufuncs_float.py`` (rounding, clip, floating-point classification and
manipulation) and ``ufuncs_math.py`` (exponentials, logarithms, trigonometry, number theory,
complex numbers).

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
                               promote_dtypes, promote_dtypes_numeric, promote_shapes)
from ember.numpy.creation import broadcast_to, named_jit

__all__ = [
    "ufunc", "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "pow", "float_power", "mod", "remainder", "fmod", "divmod", "negative", "positive", "abs",
    "absolute", "sign", "square", "reciprocal",
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


def _lax_const(x, value):
  """``value`` in ``x``'s dtype as JAX's ``lax._const`` makes it: weak only when ``x`` is a weak
  rank-0 value, so a weak array's result becomes strong while a weak scalar's stays weak."""
  if dtypes.is_weakly_typed(x) and not np.shape(x):
    return _const(x, value)
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
  if np.ndim(condition) == 0:  # select_n takes a scalar predicate as it is, as JAX's _where
    shape = broadcast_shapes(np.shape(x), np.shape(y))
    return lax.select(condition, broadcast_to(x, shape), broadcast_to(y, shape))
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
    a = lax._convert_element_type(a, dtypes.check_and_canonicalize_user_dtype(dtype))
  axis = canonicalize_axis(axis, np.ndim(a))
  perm = (axis,) + tuple(i for i in range(np.ndim(a)) if i != axis)
  return (lax.transpose(a, perm) if axis else a), axis


def _fold_reduce(ufn, a, axis, dtype, keepdims, initial, where):
  if where is not None:
    raise NotImplementedError(f"where argument of {ufn}.reduce()")
  if axis is None or isinstance(axis, tuple):
    raise NotImplementedError(f"{ufn}.reduce supports a single integer axis.")
  x, axis = _moved_front(ufn, a, axis, dtype)
  rows = [lax.index_in_dim(x, i, 0, keepdims=False) for i in range(np.shape(x)[0])]
  if initial is None:  # as in JAX, the fold starts from the identity when there is one
    initial = ufn.identity
  if initial is not None:
    rows.insert(0, lax.full(np.shape(x)[1:], fold_scalar(initial, _dt(x), False)))
  elif not rows:
    raise ValueError(f"zero-size array to reduction operation {ufn.__name__} which has no "
                     "identity")
  acc = rows[0]
  for r in rows[1:]:
    acc = ufn(acc, r)
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
      a = lax._convert_element_type(a, dtypes.check_and_canonicalize_user_dtype(dtype))
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


def float_power(x, y, /):
  """``x ** y`` computed in floating point (integers become floats first).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.float_power(2, 3)
      Array(8., dtype=float32, weak_type=True)
  """
  return lax.pow(*promote_args_inexact("float_power", x, y))


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


# --- the ufunc objects ------------------------------------------------------------------------

add = ufunc(_add, "add", 2, identity=0, reducer=_reduction("sum"),
            accumulator=_accumulation("cumsum"))
subtract = ufunc(_subtract, "subtract", 2)
multiply = ufunc(_multiply, "multiply", 2, identity=1, reducer=_reduction("prod"),
                 accumulator=_accumulation("cumprod"))
negative = ufunc(_negative, "negative", 1)
