"""Elementwise primitives: unary and binary arithmetic, comparisons, bitwise ops, select_n,
clamp, convert_element_type and friends.

All share one shape rule (operands of equal shape, or rank-0 operands that broadcast) and one
dtype rule (operands of one dtype, from the accepted set; the result is weak only if every
operand is). Each lowers to one StableHLO/CHLO op, a rank-0 operand being broadcast first.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.backend.lowering import LoweringContext, Value, i64_array, element_type
from ember.primitives.lower_fun import lower_fun

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


def _prim(name: str, accepted, hlo: str, *, nargs: int = 1, tip: str | None = None,
          out_dtype=None) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=naryop_abstract_eval(name, accepted, out_dtype, tip),
              lower=hlo_lowering(hlo))
  p.nargs = nargs
  return p


# --- unary ------------------------------------------------------------------------------------

neg_p = _prim("neg", NUM, "stablehlo.negate")
sign_p = _prim("sign", NUM, "stablehlo.sign")
floor_p = _prim("floor", FLOAT, "stablehlo.floor")
ceil_p = _prim("ceil", FLOAT, "stablehlo.ceil")
is_finite_p = _prim("is_finite", FLOAT, "stablehlo.is_finite", out_dtype=lambda d: np.bool_)
exp_p = _prim("exp", INEXACT, "stablehlo.exponential")
log_p = _prim("log", INEXACT, "stablehlo.log")
log1p_p = _prim("log1p", INEXACT, "stablehlo.log_plus_one")
expm1_p = _prim("expm1", INEXACT, "stablehlo.exponential_minus_one")
tanh_p = _prim("tanh", INEXACT, "stablehlo.tanh")
logistic_p = _prim("logistic", INEXACT, "stablehlo.logistic")
sin_p = _prim("sin", INEXACT, "stablehlo.sine")
cos_p = _prim("cos", INEXACT, "stablehlo.cosine")
tan_p = _prim("tan", INEXACT, "stablehlo.tan")
asin_p = _prim("asin", INEXACT, "chlo.asin")
acos_p = _prim("acos", INEXACT, "chlo.acos")
atan_p = _prim("atan", INEXACT, "chlo.atan")
sinh_p = _prim("sinh", INEXACT, "chlo.sinh")
cosh_p = _prim("cosh", INEXACT, "chlo.cosh")
asinh_p = _prim("asinh", INEXACT, "chlo.asinh")
acosh_p = _prim("acosh", INEXACT, "chlo.acosh")
atanh_p = _prim("atanh", INEXACT, "chlo.atanh")
sqrt_p = _prim("sqrt", INEXACT, "stablehlo.sqrt")
rsqrt_p = _prim("rsqrt", INEXACT, "stablehlo.rsqrt")
cbrt_p = _prim("cbrt", FLOAT, "stablehlo.cbrt")
not_p = _prim("not", BOOL_OR_INT, "stablehlo.not")
population_count_p = _prim("population_count", INTEGER, "stablehlo.popcnt")
clz_p = _prim("clz", INTEGER, "stablehlo.count_leading_zeros")
erf_p = _prim("erf", FLOAT, "chlo.erf")
erfc_p = _prim("erfc", FLOAT, "chlo.erfc")
erf_inv_p = _prim("erf_inv", FLOAT, "chlo.erf_inv")
lgamma_p = _prim("lgamma", FLOAT, "chlo.lgamma")
digamma_p = _prim("digamma", FLOAT, "chlo.digamma")
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

  def fn(x):
    from ember import lax
    dt = x.aval.dtype
    c = lambda v: np.asarray(v, dt)
    ax = lax.abs(x)
    small = lax.min(ax, c(20.0))
    t = lax.mul(lax.mul(small, small), c(0.25))
    term = c(1.0) if order == 0 else lax.mul(small, c(0.5))
    total = term
    for k in range(1, 64):
      term = lax.mul(term, lax.div(t, c(k * (k + order))))
      total = lax.add(total, term)
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


bessel_i0e_p.def_rules(lower=lower_fun(_bessel_ie(0)))
bessel_i1e_p.def_rules(lower=lower_fun(_bessel_ie(1)))
copy_p = _prim("copy", ANY, "stablehlo.optimization_barrier")
copy_p.def_rules(lower=lambda ctx, x: x)
square_p = _prim("square", NUM, "stablehlo.multiply")
square_p.def_rules(lower=lambda ctx, x: ctx.op1("stablehlo.multiply", [x, x]))


def _real_dtype(dt):
  return np.dtype(np.float64 if np.dtype(dt) == np.complex128 else np.float32) \
      if dtypes.is_complex(dt) else np.dtype(dt)


abs_p = _prim("abs", SIGNED_NUM, "stablehlo.abs", out_dtype=_real_dtype)
real_p = _prim("real", (_COMPLEX,), "stablehlo.real", out_dtype=_real_dtype)
imag_p = _prim("imag", (_COMPLEX,), "stablehlo.imag", out_dtype=_real_dtype)
conj_p = _prim("conj", (_COMPLEX,), "chlo.conj")


def _conj_lower(ctx, x):
  real_aval = ShapedArray(x.aval.shape, _real_dtype(x.aval.dtype))
  re = ctx.op1("stablehlo.real", [x], real_aval)
  im = ctx.op1("stablehlo.imag", [x], real_aval)
  return ctx.op1("stablehlo.complex", [re, ctx.op1("stablehlo.negate", [im], real_aval)])


conj_p.def_rules(lower=_conj_lower)


def _round_attrs(params, avals):
  return None


round_p = Primitive("round")
round_p.def_rules(
    abstract_eval=naryop_abstract_eval("round", FLOAT),
    lower=lambda ctx, x, *, rounding_method: ctx.op1(
        "stablehlo.round_nearest_even" if int(rounding_method) == 1 else
        "stablehlo.round_nearest_afz", [x]))


def _exp2_lower(ctx, x):
  ln2 = ctx.constant(np.log(2.0), ShapedArray(x.aval.shape, x.aval.dtype))
  return ctx.op1("stablehlo.exponential", [ctx.op1("stablehlo.multiply", [x, ln2])])


exp2_p = Primitive("exp2")
exp2_p.def_rules(abstract_eval=naryop_abstract_eval("exp2", INEXACT), lower=_exp2_lower)


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


integer_pow_p = Primitive("integer_pow")
integer_pow_p.def_rules(abstract_eval=_integer_pow_abstract_eval, lower=_integer_pow_lower)


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
        attrs={"exponent_bits": f"{exponent_bits} : i32", "mantissa_bits": f"{mantissa_bits} : i32"}))

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

add_p = _prim("add", NUM, "stablehlo.add", nargs=2, tip="add")
sub_p = _prim("sub", NUM, "stablehlo.subtract", nargs=2, tip="subtract")
mul_p = _prim("mul", NUM, "stablehlo.multiply", nargs=2, tip="multiply")
div_p = _prim("div", NUM, "stablehlo.divide", nargs=2, tip="divide")
rem_p = _prim("rem", REAL_NUM, "stablehlo.remainder", nargs=2, tip="remainder")
max_p = _prim("max", ANY, "stablehlo.maximum", nargs=2, tip="maximum")
max_p.def_rules(lower=_minmax_lower("stablehlo.maximum"))
min_p = _prim("min", ANY, "stablehlo.minimum", nargs=2, tip="minimum")
min_p.def_rules(lower=_minmax_lower("stablehlo.minimum"))
and_p = _prim("and", BOOL_OR_INT, "stablehlo.and", nargs=2, tip="bitwise_and")
or_p = _prim("or", BOOL_OR_INT, "stablehlo.or", nargs=2, tip="bitwise_or")
xor_p = _prim("xor", BOOL_OR_INT, "stablehlo.xor", nargs=2, tip="bitwise_xor")
shift_left_p = _prim("shift_left", INTEGER, "stablehlo.shift_left", nargs=2, tip="left_shift")
shift_right_arithmetic_p = _prim("shift_right_arithmetic", INTEGER,
                                 "stablehlo.shift_right_arithmetic", nargs=2, tip="right_shift")
shift_right_logical_p = _prim("shift_right_logical", INTEGER, "stablehlo.shift_right_logical",
                              nargs=2, tip="right_shift")
atan2_p = _prim("atan2", FLOAT, "stablehlo.atan2", nargs=2, tip="arctan2")
nextafter_p = _prim("nextafter", FLOAT, "chlo.next_after", nargs=2, tip="nextafter")
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


pow_p.def_rules(abstract_eval=_pow_abstract_eval, lower=_pow_lower)


def _complex_dtype(dt):
  return np.dtype(np.complex128 if np.dtype(dt) == np.float64 else np.complex64)


complex_p = Primitive("complex")
complex_p.def_rules(
    abstract_eval=naryop_abstract_eval("complex", (_FLOAT,), out_dtype=_complex_dtype,
                                       tip="complex"),
    lower=hlo_lowering("stablehlo.complex"))


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
              lower=hlo_lowering("stablehlo.compare", attrs))
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
    raise TypeError("select_n requires at least one case")
  if which.dtype != np.bool_ and which.dtype != np.int32:
    raise TypeError(f"select_n `which` must be boolean or int32, got {which.dtype.name}")
  if which.dtype == np.bool_ and len(cases) > 2:
    raise TypeError("select_n with a boolean `which` cannot have more than 2 cases, got "
                    f"{len(cases)}")
  first = cases[0]
  for c in cases[1:]:
    if c.shape != first.shape:
      raise TypeError(f"select_n cases must have the same shapes, got "
                      f"{[c.shape for c in cases]}.")
    if c.dtype != first.dtype:
      raise TypeError(f"select_n cases must have the same dtypes, got "
                      f"{[c.dtype.name for c in cases]}.")
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
    bound = ctx.constant(np.int32(mid), ShapedArray(out.shape, np.int32))
    pred = ctx.op1("stablehlo.compare", [which, bound], ShapedArray(out.shape, np.bool_),
                   {"comparison_direction": "#stablehlo<comparison_direction LT>",
                    "compare_type": "#stablehlo<comparison_type SIGNED>"})
    return ctx.op1("stablehlo.select", [pred, pick(lo, mid), pick(mid, hi)])
  return pick(0, len(cases))


select_n_p = Primitive("select_n")
select_n_p.def_rules(abstract_eval=_select_n_abstract_eval, lower=_select_n_lower)


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


clamp_p = Primitive("clamp")
clamp_p.def_rules(abstract_eval=_clamp_abstract_eval, lower=_clamp_lower)


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


convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.def_rules(abstract_eval=_convert_abstract_eval, lower=_convert_lower)
convert_element_type_p.pp_params = lambda params: {  # JAX hides sharding=None
    k: v for k, v in sorted(params.items()) if not (k == "sharding" and v is None)}


def _bitcast_abstract_eval(x, *, new_dtype):
  new_dtype = np.dtype(new_dtype)
  old_bits, new_bits = x.dtype.itemsize * 8, new_dtype.itemsize * 8
  if x.dtype == np.bool_ or new_dtype == np.bool_:
    raise TypeError("lax.bitcast_convert_type does not support bool")
  if dtypes.is_complex(x.dtype) or dtypes.is_complex(new_dtype):
    raise TypeError("lax.bitcast_convert_type does not support complex types")
  if old_bits == new_bits:
    shape = x.shape
  elif old_bits > new_bits:
    if old_bits % new_bits:
      raise TypeError(f"bitcast_convert_type: {x.dtype.name} is not a multiple of "
                      f"{new_dtype.name} in size")
    shape = x.shape + (old_bits // new_bits,)
  else:
    if not x.shape or x.shape[-1] != new_bits // old_bits:
      raise TypeError(f"Attempting to convert array of shape {x.shape} from {x.dtype.name} to "
                      f"{new_dtype.name}: the last dimension must be {new_bits // old_bits}.")
    shape = x.shape[:-1]
  return ShapedArray(shape, new_dtype, False)


bitcast_convert_type_p = Primitive("bitcast_convert_type")
bitcast_convert_type_p.def_rules(
    abstract_eval=_bitcast_abstract_eval,
    lower=lambda ctx, x, *, new_dtype: ctx.op1("stablehlo.bitcast_convert", [x]))
