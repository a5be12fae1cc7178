"""Elementwise primitives: unary and binary arithmetic, comparisons, bitwise ops, select_n,
clamp, convert_element_type and friends.

All share one shape rule (operands of equal shape, or rank-0 operands that broadcast) and one
dtype rule (operands of one dtype, from the accepted set; the result is weak only if every
operand is). Each lowers to one StableHLO/CHLO op, a rank-0 operand being broadcast first.

Derivatives follow JAX's rules (same formulas, so the same jaxprs): smooth ops give a jvp that is
a sum of per-input terms, each broadcast to the output's shape; piecewise-constant ops (floor,
sign, comparisons, bitwise ops...) have zero tangents; the linear ops (add, sub, neg, mul and div
in one operand, convert_element_type, select_n, copy, real/imag/complex/conj, reduce_precision)
have transpose rules, which sum cotangents back down over implicitly broadcast dimensions.
"""
from __future__ import annotations

from typing import Callable, Sequence

import math

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives.lower_fun import lower_fun
from ember.transforms import batching
from ember.transforms.ad_util import (Zero, defjvp, deflinear, deflinear_unary,
                                      is_undefined, tangent_aval)

__all__ = []  # primitives are reached through ember.lax

# --- dtype classes ----------------------------------------------------------------------------

_BOOL, _INT, _UINT, _FLOAT, _COMPLEX = "bool", "int", "uint", "float", "complex"
NUM = (_INT, _UINT, _FLOAT, _COMPLEX)
ANY = (_BOOL,) + NUM
INEXACT = (_FLOAT, _COMPLEX)
FLOAT = (_FLOAT,)
INTEGER = (_INT, _UINT)
BOOL_OR_INT = (_BOOL, _INT, _UINT)
SIGNED_NUM = (_INT, _FLOAT, _COMPLEX)
ORDERED = (_BOOL, _INT, _UINT, _FLOAT)
REAL_NUM = (_INT, _UINT, _FLOAT)
_CLASS_NAMES = {_BOOL: "bool", _INT: "signedinteger", _UINT: "unsignedinteger",
                _FLOAT: "floating", _COMPLEX: "complexfloating"}


def dtype_class(dt) -> str:
  if dt == np.bool_:
    return _BOOL
  if dtypes.is_complex(dt):
    return _COMPLEX
  if dtypes.is_float(dt):
    return _FLOAT
  return _UINT if dtypes.is_unsigned(dt) else _INT


def _describe(accepted) -> str:
  if set(accepted) >= {_INT, _UINT} and set(accepted) - {_INT, _UINT}:
    names = ["integer" if a == _INT else _CLASS_NAMES[a] for a in accepted if a != _UINT]
  elif set(accepted) == {_INT, _UINT}:
    names = ["integer"]
  else:
    names = [_CLASS_NAMES[a] for a in accepted]
  return ", ".join(names)


def check_dtype(name: str, aval: ShapedArray, accepted) -> None:
  if dtype_class(aval.dtype) not in accepted:
    raise TypeError(f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are "
                    f"subtypes of {_describe(accepted)}.")


def broadcast_shapes(name: str, *avals: ShapedArray) -> tuple[int, ...]:
  """Equal-rank shapes whose dimensions agree or are 1 (rank-0 operands broadcast freely)."""
  shapes = [a.shape for a in avals if a.shape]
  if not shapes:
    return ()
  ranks = {len(s) for s in shapes}
  if len(ranks) > 1:
    raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                    f"{{{', '.join(str(r) for r in sorted(ranks))}}}")
  out = []
  for dims in zip(*shapes):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1:
      raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                      f"{', '.join(str(a.shape) for a in avals)}.")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def _same_dtypes(name: str, avals: Sequence[ShapedArray], tip: str | None) -> None:
  dts = [a.dtype for a in avals]
  if any(d != dts[0] for d in dts[1:]):
    msg = (f"lax.{name} requires arguments to have the same dtypes, got "
           f"{', '.join(d.name for d in dts)}.")
    if tip:
      msg += f" (Tip: jnp.{tip} is a similar function that does automatic type promotion on " \
             "inputs)."
    raise TypeError(msg)


def naryop_abstract_eval(name: str, accepted: Sequence, out_dtype: Callable | None = None,
                         tip: str | None = None, weak_result: bool = True):
  """The shared abstract-evaluation rule of an elementwise op."""
  def abstract_eval(*avals: ShapedArray, **params) -> ShapedArray:
    if len(avals) > 1:
      _same_dtypes(name, avals, tip)
    for a in avals:
      check_dtype(name, a, accepted)
    shape = broadcast_shapes(name, *avals)
    dt = avals[0].dtype if out_dtype is None else np.dtype(out_dtype(avals[0].dtype))
    weak = weak_result and all(a.weak_type for a in avals)
    return ShapedArray(shape, dt, weak)
  return abstract_eval


def broadcast_to_out(ctx: LoweringContext, x: Value, shape) -> Value:
  """Broadcast a rank-0 operand to ``shape`` (no-op when it already has it)."""
  if x.aval.shape == tuple(shape):
    return x
  out = ShapedArray(shape, x.aval.dtype, x.aval.weak_type)
  return ctx.op1("stablehlo.broadcast_in_dim", [x], out,
                 {"broadcast_dimensions": i64_array(range(len(x.aval.shape)))})


def hlo_lowering(op_name: str, attrs: Callable | dict | None = None):
  """Lower to the single op ``op_name`` after broadcasting rank-0 operands."""
  def lower(ctx: LoweringContext, *args: Value, **params) -> Value:
    out = ctx.avals_out[0]
    args = [broadcast_to_out(ctx, a, out.shape) for a in args]
    a = attrs(params, [x.aval for x in args]) if callable(attrs) else attrs
    return ctx.op1(op_name, args, out, a)
  return lower


def _prim(name: str, accepted, hlo: str, *, tip: str | None = None,
          out_dtype=None) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=naryop_abstract_eval(name, accepted, out_dtype, tip),
              lower=hlo_lowering(hlo), batch=batching.broadcast_batcher(p))
  p.def_unsupported("transpose", NOT_LINEAR)  # the linear ones (add, neg...) define one
  return p


# --- derivative helpers -----------------------------------------------------------------------

class _LazyLax:
  """``ember.lax``, imported on first use: rules compose lax functions, and ember.lax imports
  this module."""

  def __getattr__(self, name: str):
    from ember import lax as module
    value = getattr(module, name)
    setattr(self, name, value)
    return value


lax = _LazyLax()


def _const(x, value):
  """The scalar ``value`` in ``x``'s dtype (a literal in jaxprs): a Python scalar for a weakly
  typed rank-0 ``x`` (so results stay weak, as in JAX), else a NumPy scalar."""
  aval = get_aval(x)
  if aval.weak_type and not aval.shape:
    py_type = complex if dtypes.is_complex(aval.dtype) else float if dtypes.is_float(
        aval.dtype) else bool if aval.dtype == np.bool_ else int
    if dtypes.canonicalize_dtype(py_type) == aval.dtype:
      return py_type(value)
  return np.asarray(value, aval.dtype)


def _shape(x) -> tuple[int, ...]:
  return get_aval(x).shape


def _aval(x) -> ShapedArray:
  return x.aval if is_undefined(x) else get_aval(x)


def _zero_like(x) -> Zero:
  return Zero(tangent_aval(get_aval(x)))


def broadcast_tangent(t, shape):
  """``t`` broadcast to ``shape``, stretching a rank-0 ``t`` or its size-1 dimensions.

  Example:
      >>> broadcast_tangent(np.float32(2), (2,))
      Array([2., 2.], dtype=float32)
  """
  t_shape = _shape(t)
  if t_shape == tuple(shape):
    return t
  if not t_shape:
    return lax.broadcast_in_dim(t, shape, ())
  kept = tuple(i for i, (a, b) in enumerate(zip(t_shape, shape)) if a == b)
  return lax.broadcast_in_dim(lax.reshape(t, tuple(t_shape[i] for i in kept)), shape, kept)


def unbroadcast(aval: ShapedArray, ct):
  """The transpose of implicit broadcasting: ``ct`` summed down to ``aval``'s shape.

  Example:
      >>> unbroadcast(ShapedArray((2, 1), np.dtype("float32")), np.ones((2, 3), np.float32))
      Array([[3.],
             [3.]], dtype=float32)
  """
  ct_shape = _shape(ct)
  if ct_shape == aval.shape:
    return ct
  if not aval.shape:
    return lax.reduce_sum(ct, tuple(range(len(ct_shape))))
  dims = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_shape)) if a != b)
  return lax.reshape(lax.reduce_sum(ct, dims), aval.shape)


def _defjvp(prim: Primitive, *terms: Callable | None, use_ans: bool = False) -> None:
  """``defjvp`` with each term broadcast to the output's shape (a None term marks an input
  with no derivative)."""
  defjvp(prim, *terms, use_ans=use_ans, fit=broadcast_tangent)


def _defjvp_ans(prim: Primitive, *terms: Callable | None) -> None:
  """``_defjvp`` with terms ``terms[i](t_i, ans, *primals, **params)``."""
  _defjvp(prim, *terms, use_ans=True)


def _defjvp_zero(prim: Primitive) -> None:
  """A piecewise-constant (or non-differentiable) op: its tangent is zero."""
  def jvp(primals, tangents, **params):
    ans = prim.bind(*primals, **params)
    return ans, _zero_like(ans)
  prim.def_rules(jvp=jvp)


def _linear_ct(arg, ct, fn: Callable = lambda ct: ct):
  """The cotangent of a linear operand ``arg``: ``fn(ct)`` summed down to its shape (None for
  a known operand, Zero for a zero ``ct``)."""
  if not is_undefined(arg):
    return None
  if type(ct) is Zero:
    return Zero(arg.aval)
  return unbroadcast(arg.aval, fn(ct))


def _check_one_linear(name: str, *args) -> None:
  if sum(is_undefined(a) for a in args) != 1:
    raise ValueError(f"transpose of {name}: exactly one operand must be linear (the other a "
                     f"known value), got operands {args}.")


# --- unary ------------------------------------------------------------------------------------

neg_p = _prim("neg", NUM, "stablehlo.negate")
deflinear_unary(neg_p, lambda ct, aval: neg_p.bind(ct))
sign_p = _prim("sign", NUM, "stablehlo.sign")
_defjvp_zero(sign_p)


def _sign_lower(ctx: LoweringContext, x: Value) -> Value:
  """``stablehlo.sign``, which takes no unsigned integers: those are 0 at 0 and 1 elsewhere."""
  if not dtypes.is_unsigned(x.aval.dtype):
    return ctx.op1("stablehlo.sign", [x])
  zero, one = (ctx.constant(np.array(v, x.aval.dtype), x.aval) for v in (0, 1))
  return ctx.op1("stablehlo.select", [compare(ctx, x, zero, "EQ"), zero, one])


sign_p.def_rules(lower=_sign_lower)
floor_p = _prim("floor", FLOAT, "stablehlo.floor")
_defjvp_zero(floor_p)
ceil_p = _prim("ceil", FLOAT, "stablehlo.ceil")
_defjvp_zero(ceil_p)
is_finite_p = _prim("is_finite", FLOAT, "stablehlo.is_finite", out_dtype=lambda d: np.bool_)
_defjvp_zero(is_finite_p)
exp_p = _prim("exp", INEXACT, "stablehlo.exponential")
_defjvp_ans(exp_p, lambda g, ans, x: lax.mul(g, ans))
log_p = _prim("log", INEXACT, "stablehlo.log")
_defjvp(log_p, lambda g, x: lax.div(g, x))
log1p_p = _prim("log1p", INEXACT, "stablehlo.log_plus_one")
_defjvp(log1p_p, lambda g, x: lax.div(g, lax.add(x, _const(x, 1))))
expm1_p = _prim("expm1", INEXACT, "stablehlo.exponential_minus_one")
_defjvp_ans(expm1_p, lambda g, ans, x: lax.mul(g, lax.add(ans, _const(ans, 1))))
tanh_p = _prim("tanh", INEXACT, "stablehlo.tanh")
_defjvp_ans(tanh_p, lambda g, ans, x: lax.mul(lax.add(g, lax.mul(g, ans)),
                                             lax.sub(_const(x, 1), ans)))
logistic_p = _prim("logistic", INEXACT, "stablehlo.logistic")
_defjvp_ans(logistic_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, lax.sub(_const(ans, 1), ans))))
sin_p = _prim("sin", INEXACT, "stablehlo.sine")
_defjvp(sin_p, lambda g, x: lax.mul(g, lax.cos(x)))
cos_p = _prim("cos", INEXACT, "stablehlo.cosine")
_defjvp(cos_p, lambda g, x: lax.neg(lax.mul(g, lax.sin(x))))
tan_p = _prim("tan", INEXACT, "stablehlo.tan")
_defjvp_ans(tan_p, lambda g, ans, x: lax.mul(g, lax.add(_const(x, 1), lax.square(ans))))
asin_p = _prim("asin", INEXACT, "chlo.asin")
_defjvp(asin_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(_const(x, 1), lax.square(x)))))
acos_p = _prim("acos", INEXACT, "chlo.acos")
_defjvp(acos_p,
        lambda g, x: lax.mul(g, lax.neg(lax.rsqrt(lax.sub(_const(x, 1), lax.square(x))))))
atan_p = _prim("atan", INEXACT, "chlo.atan")
_defjvp(atan_p, lambda g, x: lax.div(g, lax.add(_const(x, 1), lax.square(x))))
sinh_p = _prim("sinh", INEXACT, "chlo.sinh")
_defjvp(sinh_p, lambda g, x: lax.mul(g, lax.cosh(x)))
cosh_p = _prim("cosh", INEXACT, "chlo.cosh")
_defjvp(cosh_p, lambda g, x: lax.mul(g, lax.sinh(x)))
asinh_p = _prim("asinh", INEXACT, "chlo.asinh")
_defjvp(asinh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.add(lax.square(x), _const(x, 1)))))
acosh_p = _prim("acosh", INEXACT, "chlo.acosh")
_defjvp(acosh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(lax.square(x), _const(x, 1)))))
atanh_p = _prim("atanh", INEXACT, "chlo.atanh")
_defjvp(atanh_p, lambda g, x: lax.mul(lax.integer_pow(lax.add(_const(x, 1), x), -1),
                                      lax.div(g, lax.sub(_const(x, 1), x))))


# Complex special values where XLA's kernels disagree with C99 and the Array API standard. Only
# those inputs change (real and float inputs lower to the single op, as in JAX).

def _patched_complex(hlo: str, patch: Callable):
  """Lower to ``hlo``; for complex ``x``, then ``patch(x, out)`` (lax ops) fixes special values."""
  def lower(ctx: LoweringContext, x: Value) -> Value:
    out = ctx.op1(hlo, [x])
    if not dtypes.is_complex(x.aval.dtype):
      return out
    return lower_fun(patch)(ctx, x, out)
  return lower


def _nan_for_nan_imag(x, out):
  """NaN + NaN j for ``a + NaN j`` with finite nonzero ``a`` (XLA's large-``|a|`` branch of
  acos/acosh returns a finite part there)."""
  re, im = lax.real(x), lax.imag(x)
  finite_nonzero = lax.bitwise_and(lax.is_finite(re), lax.ne(re, _const(re, 0)))
  nan = lax.full_like(out, complex(np.nan, np.nan))
  return lax.select(lax.bitwise_and(lax.ne(im, im), finite_nonzero), nan, out)


def _tanh_at_infinity(x, out):
  """``tanh(±inf + b j) = ±1 + copysign(0, b) j`` for finite ``b`` (XLA's zero follows sin(2b))."""
  re, im = lax.real(x), lax.imag(x)
  at_inf = lax.bitwise_and(lax.eq(lax.abs(re), _const(re, np.inf)), lax.is_finite(im))
  limit = lax.complex(lax.sign(re), lax.mul(_const(im, 0), im))
  return lax.select(at_inf, limit, out)


acos_p.def_rules(lower=_patched_complex("chlo.acos", _nan_for_nan_imag))
acosh_p.def_rules(lower=_patched_complex("chlo.acosh", _nan_for_nan_imag))
tanh_p.def_rules(lower=_patched_complex("stablehlo.tanh", _tanh_at_infinity))

sqrt_p = _prim("sqrt", INEXACT, "stablehlo.sqrt")
_defjvp_ans(sqrt_p, lambda g, ans, x: lax.mul(g, lax.div(_const(x, 0.5), ans)))
rsqrt_p = _prim("rsqrt", INEXACT, "stablehlo.rsqrt")
_defjvp_ans(rsqrt_p, lambda g, ans, x: lax.mul(g, lax.mul(_const(x, -0.5), lax.div(ans, x))))
cbrt_p = _prim("cbrt", FLOAT, "stablehlo.cbrt")
_defjvp_ans(cbrt_p,
            lambda g, ans, x: lax.mul(g, lax.mul(_const(x, 1 / 3), lax.integer_pow(ans, -2))))
not_p = _prim("not", BOOL_OR_INT, "stablehlo.not")
_defjvp_zero(not_p)
population_count_p = _prim("population_count", INTEGER, "stablehlo.popcnt")
_defjvp_zero(population_count_p)
clz_p = _prim("clz", INTEGER, "stablehlo.count_leading_zeros")
_defjvp_zero(clz_p)


def _gaussian(g, x):
  """``g * exp(-x**2)``, the shared factor of erf's and erfc's derivatives."""
  return lax.mul(g, lax.exp(lax.neg(lax.square(x))))


erf_p = _prim("erf", FLOAT, "chlo.erf")
_defjvp(erf_p, lambda g, x: lax.mul(_const(x, 2 / np.sqrt(np.pi)), _gaussian(g, x)))
erfc_p = _prim("erfc", FLOAT, "chlo.erfc")
_defjvp(erfc_p, lambda g, x: lax.mul(_const(x, -2 / np.sqrt(np.pi)), _gaussian(g, x)))
erf_inv_p = _prim("erf_inv", FLOAT, "chlo.erf_inv")
_defjvp_ans(erf_inv_p, lambda g, ans, x: lax.mul(_const(x, np.sqrt(np.pi) / 2),
                                                 lax.mul(g, lax.exp(lax.square(ans)))))
lgamma_p = _prim("lgamma", FLOAT, "chlo.lgamma")
_defjvp(lgamma_p, lambda g, x: lax.mul(g, lax.digamma(x)))
digamma_p = _prim("digamma", FLOAT, "chlo.digamma")
_defjvp(digamma_p, lambda g, x: lax.mul(g, polygamma_p.bind(_const(x, 1), x)))
bessel_i0e_p = _prim("bessel_i0e", FLOAT, "chlo.bessel_i0e")
bessel_i1e_p = _prim("bessel_i1e", FLOAT, "chlo.bessel_i1e")


def _bessel_ie(order: int):
  """Exponentially scaled modified Bessel function I_order(x) * exp(-|x|), order 0 or 1: the
  power series for |x| <= 20, the large-argument asymptotic series beyond."""
  # Asymptotic coefficients a_k = prod_{j<=k} (4 v^2 - (2j-1)^2) / (k! 8^k), with sign (-1)^k.
  coeffs, a = [1.0], 1.0
  for k in range(1, 9):
    a *= -(4 * order * order - (2 * k - 1) ** 2) / (k * 8)
    coeffs.append(a)
  # Power series of I_order(x) (x/2)^-order in u = x^2 / 400: d_k = 100^k / (k! (k+order)!);
  # 41 terms reach float64 precision for |x| <= 20.
  series_coeffs = [100.0 ** k / (math.factorial(k) * math.factorial(k + order))
                   for k in range(41)]

  def fn(x):
    from ember import lax
    dt = x.aval.dtype
    if dt in (np.float16, dtypes.bfloat16):  # its coefficients overflow float16: in float32
      return lax._convert_element_type(fn(lax._convert_element_type(x, np.float32)), dt)
    c = lambda v: np.asarray(v, dt)
    ax = lax.abs(x)
    small = lax.min(ax, c(20.0))
    u = lax.mul(lax.mul(small, small), c(0.0025))  # t / 100 with t = x^2 / 4 <= 100
    # sum_k d_k u^k by Horner's rule: u <= 1 and every coefficient is a normal float, so no
    # intermediate exceeds the sum (running products t^k overflow float32, and coefficients
    # that underflow to 0 let XLA fold the additions away into such products).
    acc = c(series_coeffs[-1])
    for coeff in reversed(series_coeffs[:-1]):
      acc = lax.add(lax.mul(acc, u), c(coeff))
    total = acc if order == 0 else lax.mul(acc, lax.mul(small, c(0.5)))
    series = lax.mul(total, lax.exp(lax.neg(small)))
    big = lax.max(ax, c(20.0))
    inv = lax.div(c(1.0), big)
    acc = c(coeffs[-1])
    for a_k in reversed(coeffs[:-1]):
      acc = lax.add(lax.mul(acc, inv), c(a_k))
    asym = lax.mul(acc, lax.rsqrt(lax.mul(big, c(2 * np.pi))))
    out = lax.select(lax.le(ax, c(20.0)), series, asym)
    return out if order == 0 else lax.mul(lax.sign(x), out)
  return fn


def _bessel_i1e_jvp(g, ans, x):
  """d/dx i1e(x) = i0e(x) - i1e(x) * (sign(x) + 1/x), and 1/2 at |x| <= eps."""
  dtype = get_aval(x).dtype
  eps = np.asarray(dtypes.finfo(dtype).eps, dtype)  # strong: a weak |x| is promoted, as in JAX
  not_tiny = lax.gt(_convert(lax.abs(x), dtype), eps)
  safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
  dy = lax.sub(lax.bessel_i0e(safe_x),
               lax.mul(ans, lax.add(lax.sign(safe_x), lax.integer_pow(safe_x, -1))))
  return lax.mul(g, lax.select(not_tiny, dy, lax.full_like(x, 0.5)))


bessel_i0e_p.def_rules(lower=lower_fun(_bessel_ie(0)))
_defjvp_ans(bessel_i0e_p, lambda g, ans, x: lax.mul(
    g, lax.sub(lax.bessel_i1e(x), lax.mul(lax.sign(x), ans))))
bessel_i1e_p.def_rules(lower=lower_fun(_bessel_ie(1)))
_defjvp_ans(bessel_i1e_p, _bessel_i1e_jvp)
copy_p = _prim("copy", ANY, "stablehlo.optimization_barrier")
copy_p.def_rules(lower=lambda ctx, x: x)
deflinear_unary(copy_p, lambda ct, aval: copy_p.bind(ct))
square_p = _prim("square", NUM, "stablehlo.multiply")
square_p.def_rules(lower=lambda ctx, x: ctx.op1("stablehlo.multiply", [x, x]))
_defjvp(square_p, lambda g, x: lax.mul(g, lax.mul(_const(x, 2), x)))


def _real_dtype(dt):
  return np.dtype(np.float64 if np.dtype(dt) == np.complex128 else np.float32) \
      if dtypes.is_complex(dt) else np.dtype(dt)


def _abs_jvp(g, ans, x):
  """sign(x) * g for real x (1 at 0, as JAX); Re(conj(x) * g) / |x| for complex x (0 at 0)."""
  x_dtype = get_aval(x).dtype
  if not dtypes.is_complex(x_dtype):
    return lax.select(lax.ge(x, _const(x, 0)), g, lax.neg(g))
  conj_x = conj_p.bind(x, input_dtype=x_dtype)
  denom = _convert(ans, x_dtype)
  denom = lax.select(lax.eq(denom, _const(denom, 0)), lax.full_like(denom, 1), denom)
  return lax.real(lax.mul(g, lax.div(conj_x, denom)))


abs_p = _prim("abs", SIGNED_NUM, "stablehlo.abs", out_dtype=_real_dtype)
_defjvp_ans(abs_p, _abs_jvp)
real_p = _prim("real", (_COMPLEX,), "stablehlo.real", out_dtype=_real_dtype)
deflinear_unary(real_p, lambda ct, aval: lax.complex(ct, np.zeros((), get_aval(ct).dtype)))
imag_p = _prim("imag", (_COMPLEX,), "stablehlo.imag", out_dtype=_real_dtype)
deflinear_unary(imag_p,
                lambda ct, aval: lax.complex(np.zeros((), get_aval(ct).dtype), lax.neg(ct)))


def _conj_abstract_eval(x, *, input_dtype=None):
  """Complex conjugate; a float32/float64 operand gives its complex type (as in JAX)."""
  if not dtypes.is_complex(x.dtype) and x.dtype not in (np.float32, np.float64):
    raise TypeError(f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                    "of float32, complexfloating, float64.")
  return x if dtypes.is_complex(x.dtype) else x.update(dtype=_complex_dtype(x.dtype))


def _conj_lower(ctx, x, *, input_dtype=None):
  if not dtypes.is_complex(x.aval.dtype):
    return ctx.op1("stablehlo.convert", [x])
  real_aval = ShapedArray(x.aval.shape, _real_dtype(x.aval.dtype))
  re = ctx.op1("stablehlo.real", [x], real_aval)
  im = ctx.op1("stablehlo.imag", [x], real_aval)
  return ctx.op1("stablehlo.complex", [re, ctx.op1("stablehlo.negate", [im], real_aval)])


def _conj_transpose(ct, aval, *, input_dtype=None):
  """conj of ``ct`` for a complex operand; its real part for a real one."""
  if dtypes.is_complex(aval.dtype):
    return conj_p.bind(ct, input_dtype=aval.dtype)
  return real_p.bind(ct)


conj_p = Primitive("conj")
conj_p.def_rules(abstract_eval=_conj_abstract_eval, lower=_conj_lower,
                 batch=batching.broadcast_batcher(conj_p),
                 pp_params=lambda params: {k: v for k, v in params.items() if v is not None})
deflinear_unary(conj_p, _conj_transpose)


round_p = Primitive("round")
round_p.def_rules(
    abstract_eval=naryop_abstract_eval("round", FLOAT),
    lower=lambda ctx, x, *, rounding_method: ctx.op1(
        "stablehlo.round_nearest_even" if int(rounding_method) == 1 else
        "stablehlo.round_nearest_afz", [x]),
    batch=batching.broadcast_batcher(round_p))
round_p.def_unsupported("transpose", NOT_LINEAR)
_defjvp_zero(round_p)


def _exp2_lower(ctx, x):
  ln2 = ctx.constant(np.log(2.0), ShapedArray(x.aval.shape, x.aval.dtype))
  return ctx.op1("stablehlo.exponential", [ctx.op1("stablehlo.multiply", [x, ln2])])


exp2_p = Primitive("exp2")
exp2_p.def_rules(abstract_eval=naryop_abstract_eval("exp2", INEXACT), lower=_exp2_lower,
                 batch=batching.broadcast_batcher(exp2_p))
exp2_p.def_unsupported("transpose", NOT_LINEAR)
_defjvp_ans(exp2_p, lambda g, ans, x: lax.mul(lax.log(_const(x, 2)), lax.mul(g, ans)))


def _integer_pow_abstract_eval(x, *, y: int):
  check_dtype("integer_pow", x, NUM)
  if y < 0 and dtype_class(x.dtype) in (_INT, _UINT):
    raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow(x, {y})")
  return x


def _integer_pow_lower(ctx, x, *, y: int):
  if y == 0:
    return ctx.constant(np.ones((), x.aval.dtype), ctx.avals_out[0])
  base, acc, n = x, None, abs(y)
  while n:
    if n & 1:
      acc = base if acc is None else ctx.op1("stablehlo.multiply", [acc, base])
    n >>= 1
    if n:
      base = ctx.op1("stablehlo.multiply", [base, base])
  if y < 0:
    one = ctx.constant(np.ones((), x.aval.dtype), ctx.avals_out[0])
    acc = ctx.op1("stablehlo.divide", [one, acc])
  return acc


def _integer_pow_jvp(primals, tangents, *, y: int):
  """y * x**(y-1) * g, written as JAX does: g itself for y == 1, 2 * x * g for y == 2."""
  (x,), (g,) = primals, tangents
  ans = integer_pow_p.bind(x, y=y)
  if y == 0 or type(g) is Zero:
    return ans, _zero_like(ans)
  if y == 1:
    return ans, g
  return ans, lax.mul(g, lax.mul(_const(x, y), x if y == 2 else lax.integer_pow(x, y - 1)))


integer_pow_p = Primitive("integer_pow")
integer_pow_p.def_rules(abstract_eval=_integer_pow_abstract_eval, lower=_integer_pow_lower,
                        jvp=_integer_pow_jvp, batch=batching.broadcast_batcher(integer_pow_p))
integer_pow_p.def_unsupported("transpose", NOT_LINEAR)


def _reduce_precision_abstract_eval(x, *, exponent_bits: int, mantissa_bits: int):
  check_dtype("reduce_precision", x, FLOAT)
  if exponent_bits < 1 or mantissa_bits < 0:
    raise ValueError("reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, got "
                     f"{exponent_bits}, {mantissa_bits}")
  return x


reduce_precision_p = Primitive("reduce_precision")
reduce_precision_p.def_rules(
    abstract_eval=_reduce_precision_abstract_eval,
    lower=lambda ctx, x, *, exponent_bits, mantissa_bits: ctx.op1(
        "stablehlo.reduce_precision", [x],
        attrs={"exponent_bits": f"{exponent_bits} : i32",
               "mantissa_bits": f"{mantissa_bits} : i32"}),
    batch=batching.broadcast_batcher(reduce_precision_p))
deflinear_unary(reduce_precision_p,
                lambda ct, aval, **params: reduce_precision_p.bind(ct, **params))


def compare(ctx: LoweringContext, x: Value, y: Value, direction: str,
            compare_type: str | None = None) -> Value:
  """``stablehlo.compare`` of two values of one aval; the compare type follows the dtype."""
  ct = compare_type or _compare_type(x.aval.dtype)
  out = ShapedArray(x.aval.shape, np.bool_)
  return ctx.op1("stablehlo.compare", [x, y], out,
                 {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
                  "compare_type": f"#stablehlo<comparison_type {ct}>"})


def complex_pick(ctx: LoweringContext, a: Value, b: Value, direction: str) -> Value:
  """Whether ``a`` beats ``b`` (``direction`` GT or LT) in the lexicographic (real, imag) order
  of complex numbers, which XLA's own complex maximum/minimum do not implement."""
  r = a.aval.update(dtype=_real_dtype(a.aval.dtype), weak_type=False)
  re_a, re_b = ctx.op1("stablehlo.real", [a], r), ctx.op1("stablehlo.real", [b], r)
  im_a, im_b = ctx.op1("stablehlo.imag", [a], r), ctx.op1("stablehlo.imag", [b], r)
  return ctx.op1("stablehlo.select", [compare(ctx, re_a, re_b, "EQ"),
                                      compare(ctx, im_a, im_b, direction),
                                      compare(ctx, re_a, re_b, direction)],
                 r.update(dtype=np.bool_))


def apply_binary(ctx: LoweringContext, op_name: str, a: Value, b: Value) -> Value:
  """``op_name`` applied to two values of one aval (lexicographic max/min for complex)."""
  if op_name in ("stablehlo.maximum", "stablehlo.minimum") and dtypes.is_complex(a.aval.dtype):
    pick = complex_pick(ctx, a, b, "GT" if op_name == "stablehlo.maximum" else "LT")
    return ctx.op1("stablehlo.select", [pick, a, b], a.aval)
  return ctx.op1(op_name, [a, b], a.aval)


def _minmax_lower(op_name: str):
  def lower(ctx, x, y):
    out = ctx.avals_out[0]
    return apply_binary(ctx, op_name, broadcast_to_out(ctx, x, out.shape),
                        broadcast_to_out(ctx, y, out.shape))
  return lower


# --- binary -----------------------------------------------------------------------------------

def _add_jvp(primals, tangents):
  (x, y), (x_dot, y_dot) = primals, tangents
  ans = add_p.bind(x, y)
  if type(x_dot) is Zero and type(y_dot) is Zero:
    return ans, _zero_like(ans)
  if type(x_dot) is Zero:
    return ans, broadcast_tangent(y_dot, _shape(ans))
  if type(y_dot) is Zero:
    return ans, broadcast_tangent(x_dot, _shape(ans))
  return ans, add_p.bind(x_dot, y_dot)


def _add_transpose(ct, x, y):
  return [_linear_ct(x, ct), _linear_ct(y, ct)]


add_p = _prim("add", NUM, "stablehlo.add", tip="add")
add_p.def_rules(jvp=_add_jvp, transpose=_add_transpose)


def _sub_jvp(primals, tangents):
  (x, y), (x_dot, y_dot) = primals, tangents
  ans = sub_p.bind(x, y)
  if type(x_dot) is Zero and type(y_dot) is Zero:
    return ans, _zero_like(ans)
  if type(x_dot) is Zero:
    return ans, broadcast_tangent(neg_p.bind(y_dot), _shape(ans))
  if type(y_dot) is Zero:
    return ans, broadcast_tangent(x_dot, _shape(ans))
  return ans, sub_p.bind(x_dot, y_dot)


def _sub_transpose(ct, x, y):
  return [_linear_ct(x, ct), _linear_ct(y, ct, neg_p.bind)]


sub_p = _prim("sub", NUM, "stablehlo.subtract", tip="subtract")
sub_p.def_rules(jvp=_sub_jvp, transpose=_sub_transpose)


def _mul_transpose(ct, x, y):
  _check_one_linear("mul", x, y)
  return [_linear_ct(x, ct, lambda c: mul_p.bind(c, y)),
          _linear_ct(y, ct, lambda c: mul_p.bind(x, c))]


mul_p = _prim("mul", NUM, "stablehlo.multiply", tip="multiply")
_defjvp(mul_p, lambda g, x, y: lax.mul(g, y), lambda g, x, y: lax.mul(x, g))
mul_p.def_rules(transpose=_mul_transpose)


def _div_transpose(ct, x, y):
  if is_undefined(y):
    raise ValueError("transpose of div: div is linear in its numerator only, but the "
                     "denominator is a linear input.")
  return [_linear_ct(x, ct, lambda c: div_p.bind(c, y)), None]


div_p = _prim("div", NUM, "stablehlo.divide", tip="divide")
_defjvp(div_p, lambda g, x, y: lax.div(g, y),
        lambda g, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))
div_p.def_rules(transpose=_div_transpose)


def _rem_jvp_y(g, x, y):
  """-g * trunc(x / y): rem(x, y) = x - y * trunc(x / y)."""
  return lax.mul(lax.neg(g), lax.mul(lax.sign(lax.div(x, y)), lax.floor(lax.abs(lax.div(x, y)))))


rem_p = _prim("rem", REAL_NUM, "stablehlo.remainder", tip="remainder")
_defjvp(rem_p, lambda g, x, y: g, _rem_jvp_y)


def _balanced_eq(x, ans, y):
  """1 where ``x`` is the max/min ``ans``, 1/2 where ``y`` ties with it, 0 elsewhere."""
  mine = lax.select(lax.eq(x, ans), lax.full_like(ans, 1), lax.full_like(ans, 0))
  return lax.div(mine, lax.select(lax.eq(y, ans), lax.full_like(ans, 2), lax.full_like(ans, 1)))


max_p = _prim("max", ANY, "stablehlo.maximum", tip="maximum")
max_p.def_rules(lower=_minmax_lower("stablehlo.maximum"))
_defjvp_ans(max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
            lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
min_p = _prim("min", ANY, "stablehlo.minimum", tip="minimum")
min_p.def_rules(lower=_minmax_lower("stablehlo.minimum"))
_defjvp_ans(min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
            lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
and_p = _prim("and", BOOL_OR_INT, "stablehlo.and", tip="bitwise_and")
_defjvp_zero(and_p)
or_p = _prim("or", BOOL_OR_INT, "stablehlo.or", tip="bitwise_or")
_defjvp_zero(or_p)
xor_p = _prim("xor", BOOL_OR_INT, "stablehlo.xor", tip="bitwise_xor")
_defjvp_zero(xor_p)
shift_left_p = _prim("shift_left", INTEGER, "stablehlo.shift_left", tip="left_shift")
_defjvp_zero(shift_left_p)
shift_right_arithmetic_p = _prim("shift_right_arithmetic", INTEGER,
                                 "stablehlo.shift_right_arithmetic", tip="right_shift")
_defjvp_zero(shift_right_arithmetic_p)
shift_right_logical_p = _prim("shift_right_logical", INTEGER, "stablehlo.shift_right_logical",
                              tip="right_shift")
_defjvp_zero(shift_right_logical_p)


def _atan2_denom(x, y):
  return lax.add(lax.square(x), lax.square(y))


atan2_p = _prim("atan2", FLOAT, "stablehlo.atan2", tip="arctan2")
_defjvp(atan2_p, lambda g, x, y: lax.mul(g, lax.div(y, _atan2_denom(x, y))),
        lambda g, x, y: lax.mul(g, lax.div(lax.neg(x), _atan2_denom(x, y))))
nextafter_p = _prim("nextafter", FLOAT, "chlo.next_after", tip="nextafter")
nextafter_p.def_unsupported("jvp", "nextafter is not differentiable (JAX defines no derivative "
                            "for it either); stop its gradient with lax.stop_gradient")
polygamma_p = _prim("polygamma", FLOAT, "chlo.polygamma")  # no lax wrapper yet


def _polygamma_jvp_m(g, m, x):
  raise ValueError("polygamma gradient with respect to m is not supported")


_defjvp(polygamma_p, _polygamma_jvp_m,
        lambda g, m, x: lax.mul(g, polygamma_p.bind(lax.add(m, _const(m, 1)), x)))
pow_p = Primitive("pow")


def _pow_abstract_eval(x, y):
  check_dtype("pow", x, INEXACT)
  check_dtype("pow", y, NUM)
  if dtype_class(y.dtype) in INEXACT and y.dtype != x.dtype:
    _same_dtypes("pow", (x, y), "power")
  shape = broadcast_shapes("pow", x, y)
  return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _pow_lower(ctx, x, y):
  out = ctx.avals_out[0]
  x, y = broadcast_to_out(ctx, x, out.shape), broadcast_to_out(ctx, y, out.shape)
  if y.aval.dtype != x.aval.dtype:
    y = ctx.op1("stablehlo.convert", [y], ShapedArray(out.shape, x.aval.dtype))
  return ctx.op1("stablehlo.power", [x, y])


def _convert(x, dtype):
  """``x`` converted to ``dtype`` and made strongly typed, as ``lax.convert_element_type``
  (on the host for a constant, as JAX folds it)."""
  aval = get_aval(x)
  if aval.dtype == dtype and not aval.weak_type:
    return x
  if isinstance(x, (int, float, complex, np.ndarray, np.generic)):
    return np.asarray(x).astype(dtype)
  return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False,
                                     sharding=None)


def _replace_zero(x):
  """``x`` with its zeros replaced by ones."""
  return lax.select(lax.eq(x, _const(x, 0)), lax.full_like(x, 1), x)


def _pow_jvp_x(g, ans, x, y):
  """g * y * x**(y-1); for an integer y, 0 where y == 0 (so x == 0 gives no nan)."""
  int_y = not dtypes.is_inexact(get_aval(y).dtype)
  x, y = _convert(x, get_aval(x).dtype), _convert(y, get_aval(x).dtype)
  if not int_y:
    return lax.mul(g, lax.mul(y, lax.pow(x, lax.sub(y, lax.full_like(y, 1)))))
  shape = broadcast_shapes("pow", get_aval(x), get_aval(y))
  x, y = broadcast_tangent(x, shape), broadcast_tangent(y, shape)
  jac = lax.select(lax.eq(y, _const(y, 0)), lax.full_like(y, 0),
                   lax.mul(_replace_zero(y), lax.pow(x, lax.sub(y, lax.full_like(y, 1)))))
  return lax.mul(g, jac)


def _pow_jvp_y(g, ans, x, y):
  """g * log(x) * x**y, taking log(x) as 0 at x == 0."""
  return _convert(lax.mul(g, lax.mul(lax.log(_replace_zero(x)), ans)), get_aval(y).dtype)


pow_p.def_rules(abstract_eval=_pow_abstract_eval, lower=_pow_lower,
                batch=batching.broadcast_batcher(pow_p))
pow_p.def_unsupported("transpose", NOT_LINEAR)
_defjvp_ans(pow_p, _pow_jvp_x, _pow_jvp_y)


def _complex_dtype(dt):
  return np.dtype(np.complex128 if np.dtype(dt) == np.float64 else np.complex64)


def _complex_transpose(ct, x, y):
  return [_linear_ct(x, ct, real_p.bind),
          _linear_ct(y, ct, lambda c: imag_p.bind(neg_p.bind(c)))]


complex_p = Primitive("complex")
complex_p.def_rules(
    abstract_eval=naryop_abstract_eval("complex", (_FLOAT,), out_dtype=_complex_dtype,
                                       tip="complex"),
    lower=hlo_lowering("stablehlo.complex"), batch=batching.broadcast_batcher(complex_p))
deflinear(complex_p, _complex_transpose)


# --- comparisons ------------------------------------------------------------------------------

def _compare_type(dt) -> str:
  cls = dtype_class(dt)
  if cls in (_FLOAT, _COMPLEX):
    return "FLOAT"
  return "SIGNED" if cls == _INT else "UNSIGNED"


def _compare(name: str, direction: str, accepted, tip: str) -> Primitive:
  def attrs(params, avals):
    return {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
            "compare_type": f"#stablehlo<comparison_type {_compare_type(avals[0].dtype)}>"}
  p = Primitive(name)
  p.def_rules(abstract_eval=naryop_abstract_eval(name, accepted, lambda d: np.bool_, tip),
              lower=hlo_lowering("stablehlo.compare", attrs), batch=batching.broadcast_batcher(p))
  p.def_unsupported("transpose", NOT_LINEAR)
  _defjvp_zero(p)
  return p


eq_p = _compare("eq", "EQ", ANY, "equal")
ne_p = _compare("ne", "NE", ANY, "not_equal")
lt_p = _compare("lt", "LT", ORDERED, "less")
le_p = _compare("le", "LE", ORDERED, "less_equal")
gt_p = _compare("gt", "GT", ORDERED, "greater")
ge_p = _compare("ge", "GE", ORDERED, "greater_equal")


# --- select_n and clamp -----------------------------------------------------------------------

def _select_n_abstract_eval(which, *cases):
  if not cases:
    raise ValueError("select_n() must have at least one case")
  if which.dtype != np.bool_ and not np.issubdtype(which.dtype, np.integer):
    raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype.name}.")
  if which.dtype == np.bool_ and len(cases) > 2:
    raise TypeError("select with boolean `which` cannot have > 2 cases.")
  first = cases[0]
  for c in cases[1:]:
    if c.shape != first.shape:
      raise TypeError(f"select cases must have the same shapes, got "
                      f"{[c.shape for c in cases]}.")
    if c.dtype != first.dtype:
      raise TypeError(f"lax.select requires arguments to have the same dtypes, got "
                      f"{', '.join(c.dtype.name for c in cases)}. (Tip: jnp.where is a similar "
                      "function that does automatic type promotion on inputs).")
  if which.shape and which.shape != first.shape:
    raise TypeError("select_n `which` must be scalar or have the same shape as cases, got "
                    f"`which` shape {which.shape} but case shape {first.shape}.")
  return ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))


def _select_n_lower(ctx, which, *cases):
  out = ctx.avals_out[0]
  if len(cases) == 1:
    return cases[0]
  which = broadcast_to_out(ctx, which, out.shape)
  if which.aval.dtype == np.bool_:
    return ctx.op1("stablehlo.select", [which, cases[1], cases[0]])
  # Binary search over the case index, as a tree of selects.
  def pick(lo: int, hi: int) -> Value:
    if hi - lo == 1:
      return cases[lo]
    mid = (lo + hi) // 2
    w_dtype = which.aval.dtype  # any integer type
    bound = ctx.constant(np.asarray(mid, w_dtype), ShapedArray(out.shape, w_dtype))
    signed = "SIGNED" if np.issubdtype(w_dtype, np.signedinteger) else "UNSIGNED"
    pred = ctx.op1("stablehlo.compare", [which, bound], ShapedArray(out.shape, np.bool_),
                   {"comparison_direction": "#stablehlo<comparison_direction LT>",
                    "compare_type": f"#stablehlo<comparison_type {signed}>"})
    return ctx.op1("stablehlo.select", [pred, pick(lo, mid), pick(mid, hi)])
  return pick(0, len(cases))


def _select_n_jvp(primals, tangents):
  """The cases' tangents selected by ``which`` (zeros for cases with no tangent)."""
  which, *cases = primals
  ans = select_n_p.bind(which, *cases)
  case_dots = tangents[1:]
  nonzero = [t for t in case_dots if type(t) is not Zero]
  if not nonzero:
    return ans, _zero_like(ans)
  zeros = lax.full_like(nonzero[0], 0)  # made even when unused, as JAX does (same jaxprs)
  return ans, select_n_p.bind(which, *[zeros if type(t) is Zero else t for t in case_dots])


def _select_n_transpose(ct, which, *cases):
  """Case i's cotangent is ``ct`` where ``which`` picks it, zero elsewhere."""
  if is_undefined(which):
    raise ValueError("transpose of select_n: the predicate `which` cannot be a linear input.")
  if type(ct) is Zero:
    return [None] + [Zero(c.aval) if is_undefined(c) else None for c in cases]
  zeros = lax.full_like(ct, 0)
  return [None] + [
      select_n_p.bind(which, *[ct if j == i else zeros for j in range(len(cases))])
      if is_undefined(c) else None for i, c in enumerate(cases)]


select_n_p = Primitive("select_n")
select_n_p.def_rules(abstract_eval=_select_n_abstract_eval, lower=_select_n_lower,
                     jvp=_select_n_jvp, transpose=_select_n_transpose)


def _clamp_abstract_eval(lo, x, hi):
  for name, a in (("min", lo), ("max", hi)):
    if a.dtype != x.dtype:
      raise TypeError(f"lax.clamp requires arguments to have the same dtypes, got "
                      f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
    if a.shape and a.shape != x.shape:
      raise TypeError(f"clamp requires {name} to be a scalar or have the same shape as "
                      f"operand, got {name}.shape={a.shape}, operand.shape={x.shape}.")
  check_dtype("clamp", x, ORDERED)
  return ShapedArray(x.shape, x.dtype, x.weak_type and lo.weak_type and hi.weak_type)


def _clamp_lower(ctx, lo, x, hi):
  shape = ctx.avals_out[0].shape
  return ctx.op1("stablehlo.clamp", [broadcast_to_out(ctx, lo, shape), x,
                                     broadcast_to_out(ctx, hi, shape)])


def _clamp_pick(pred, g, x):
  """``g`` (broadcast to ``x``'s shape) where ``pred``, else zero."""
  return lax.select(pred, broadcast_tangent(g, _shape(x)), lax.full_like(x, 0))


clamp_p = Primitive("clamp")
clamp_p.def_rules(abstract_eval=_clamp_abstract_eval, lower=_clamp_lower)
clamp_p.def_unsupported("transpose", NOT_LINEAR)
_defjvp(clamp_p,  # ties give no derivative to anyone, as in JAX
        lambda g, lo, x, hi: _clamp_pick(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)), g, x),
        lambda g, lo, x, hi: _clamp_pick(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), g, x),
        lambda g, lo, x, hi: _clamp_pick(lax.lt(hi, x), g, x))


# --- conversions ------------------------------------------------------------------------------

def _convert_abstract_eval(x, *, new_dtype, weak_type: bool, sharding=None):
  return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_lower(ctx, x, *, new_dtype, weak_type, sharding=None):
  src, dst = x.aval.dtype, np.dtype(new_dtype)
  out = ctx.avals_out[0]
  if src == dst:
    return x
  if dtypes.is_complex(src) and not dtypes.is_complex(dst):
    x = ctx.op1("stablehlo.real", [x], ShapedArray(x.aval.shape, _real_dtype(src)))
    src = x.aval.dtype
  if dst == np.bool_ and src != np.bool_:
    zero = ctx.constant(np.zeros((), src), ShapedArray(x.aval.shape, src))
    cmp = _compare_type(src)
    return ctx.op1("stablehlo.compare", [x, zero], out,
                   {"comparison_direction": "#stablehlo<comparison_direction NE>",
                    "compare_type": f"#stablehlo<comparison_type {cmp}>"})
  return ctx.op1("stablehlo.convert", [x], out)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding=None):
  """The tangent converted likewise (complex to real keeps the real part); zero for a
  conversion to an integer or bool type."""
  (x,), (t,) = primals, tangents
  ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type,
                                    sharding=sharding)
  if type(t) is Zero or not dtypes.is_inexact(new_dtype):
    return ans, _zero_like(ans)
  return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                          sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding=None):
  aval = _aval(x)
  if type(ct) is Zero or not dtypes.is_inexact(aval.dtype):
    return [Zero(tangent_aval(aval))]
  return [convert_element_type_p.bind(ct, new_dtype=aval.dtype, weak_type=aval.weak_type,
                                      sharding=sharding)]


def _convert_const_fold(x, *, new_dtype, weak_type, sharding=None):
  """While staging, a scalar constant converts in NumPy to a literal (no equation), as in JAX:
  ``x + jnp.int8(1)`` for a float32 ``x`` prints ``add a 1.0:f32[]``."""
  value = np.asarray(x)
  if np.iscomplexobj(value) and not dtypes.issubdtype(new_dtype, np.complexfloating):
    value = value.real
  return value.astype(new_dtype)[()]


def _convert_forward(avals, params):
  """A conversion to the operand's own type stages no equation (JAX's forwarding rule)."""
  same = (avals[0].dtype == params["new_dtype"] and avals[0].weak_type == params["weak_type"]
          and params.get("sharding") is None)
  return 0 if same else None


convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.def_rules(
    abstract_eval=_convert_abstract_eval, lower=_convert_lower, jvp=_convert_jvp,
    transpose=_convert_transpose, batch=batching.broadcast_batcher(convert_element_type_p),
    const_fold=_convert_const_fold, staging_forward=_convert_forward,
    pp_params=lambda params: {  # JAX hides sharding=None
        k: v for k, v in sorted(params.items()) if not (k == "sharding" and v is None)})


def _bitcast_abstract_eval(x, *, new_dtype):
  new_dtype = np.dtype(new_dtype)
  old_bits, new_bits = x.dtype.itemsize * 8, new_dtype.itemsize * 8
  odd = lambda dt: dt == np.bool_ or dtypes.is_complex(dt)  # noqa: E731
  if (odd(x.dtype) or odd(new_dtype)) and x.dtype != new_dtype:
    raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless "
                    "the operand and destination types match. Got operand "
                    f"dtype={x.dtype.name}, new_dtype={new_dtype!r}. Consider using the "
                    "arr.view() method instead.")
  if old_bits == new_bits:
    shape = x.shape
  elif old_bits > new_bits:
    if old_bits % new_bits:
      raise TypeError(f"bitcast_convert_type: {x.dtype.name} is not a multiple of "
                      f"{new_dtype.name} in size")
    shape = x.shape + (old_bits // new_bits,)
  else:
    if not x.shape or x.shape[-1] * old_bits != new_bits:
      last = x.shape[-1] if x.shape else 1
      raise ValueError(f"Attempting to convert array of shape {x.shape} from {x.dtype.name} of "
                       f"size {old_bits} bits to {new_dtype.name} of size {new_bits}, bits but "
                       f"{last} * {old_bits} != {new_bits}")
    shape = x.shape[:-1]
  return ShapedArray(shape, new_dtype, False)


bitcast_convert_type_p = Primitive("bitcast_convert_type")
bitcast_convert_type_p.def_rules(
    abstract_eval=_bitcast_abstract_eval,
    lower=lambda ctx, x, *, new_dtype: ctx.op1("stablehlo.bitcast_convert", [x]))
bitcast_convert_type_p.def_unsupported("transpose", NOT_LINEAR)
_defjvp_zero(bitcast_convert_type_p)


# --- batching -----------------------------------------------------------------------------------

def _full_batch_rule(prim: Primitive, scalar_ok: tuple[int, ...]):
  """Every operand moved (or broadcast) to the full batched shape with the batch axis first,
  except unbatched scalars in the ``scalar_ok`` positions: for select_n and clamp, whose rank-0
  operands only broadcast in those positions."""
  def rule(axis, vals, dims, **params):
    shapes = {(get_aval(v).shape, d) for v, d in zip(vals, dims)}
    if len(shapes) == 1:
      return prim.bind(*vals, **params), dims[0]
    size = batching.batch_size(vals, dims)
    full = max((get_aval(v).shape[:d] + get_aval(v).shape[d + 1:] if d is not None
                else get_aval(v).shape for v, d in zip(vals, dims)), key=len)
    args = []
    for i, (v, d) in enumerate(zip(vals, dims)):
      if i in scalar_ok and d is None and not get_aval(v).shape:
        args.append(v)  # an unbatched scalar predicate or bound stays scalar
        continue
      v = batching.bdim_at_front(v, d, size)
      shape = get_aval(v).shape
      if shape != (size,) + full:
        v = lax.broadcast_in_dim(v, (size,) + full, tuple(range(len(shape))))
      args.append(v)
    return prim.bind(*args, **params), 0
  return rule


def _bitcast_batch(axis, vals, dims, *, new_dtype):
  (x,), (d,) = vals, dims
  return bitcast_convert_type_p.bind(batching.moveaxis(x, d, 0), new_dtype=new_dtype), 0


def _select_n_batch(axis, vals, dims, **params):
  """Cases and predicate keep a shared batch axis where they have one (a scalar predicate
  stays scalar); otherwise the batch axes go to the front, unbatched cases broadcast there and a
  per-example scalar predicate broadcasts to the cases' shape."""
  (which, *cases), (wd, *cds) = vals, dims
  shape = lambda v: get_aval(v).shape
  if all(d == wd for d in cds):
    if shape(which) != shape(cases[0]):  # a per-example scalar predicate
      which = lax.broadcast_in_dim(which, shape(cases[0]), (wd,))
    return select_n_p.bind(which, *cases, **params), wd
  if not shape(which) and all(d is not None for d in cds):
    if all(d == cds[0] for d in cds) or all(shape(c) == shape(cases[0]) for c in cases):
      cases = [cases[0]] + [batching.moveaxis(c, d, cds[0]) for c, d in zip(cases[1:], cds[1:])]
      return select_n_p.bind(which, *cases, **params), cds[0]
  size = batching.batch_size(vals, dims)
  if shape(which):
    which = batching.bdim_at_front(which, wd, size)
  if any(shape(c) for c in cases):
    cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
  if 0 < len(shape(which)) < len(shape(cases[0])):
    which = lax.broadcast_in_dim(which, shape(cases[0]), (0,))
  if len(shape(which)) > len(shape(cases[0])):
    cases = [lax.broadcast_in_dim(c, shape(which), ()) for c in cases]
  return select_n_p.bind(which, *cases, **params), 0


select_n_p.def_rules(batch=_select_n_batch)
clamp_p.def_rules(batch=_full_batch_rule(clamp_p, (0, 2)))
bitcast_convert_type_p.def_rules(batch=_bitcast_batch)
