"""Reduction primitives: monoid reductions, argmax/argmin and cumulative reductions.

- ``reduce_sum`` (params ``axes``, ``out_sharding``), ``reduce_prod``, ``reduce_max``,
  ``reduce_min``, ``reduce_and``, ``reduce_or``, ``reduce_xor`` (param ``axes``): fold the
  ``axes`` away with a monoid; an empty reduction gives the monoid's identity (``-inf`` for the
  max of no floats). They lower to one ``stablehlo.reduce`` whose region applies the monoid.
- ``argmax``, ``argmin`` (params ``axes`` of length one, ``index_dtype``): the first index of the
  extreme value; NaN counts as the extreme (the first NaN wins). They lower to a two-operand
  ``stablehlo.reduce`` over (values, iota) with a comparator that is commutative, so the result
  does not depend on the order in which XLA combines elements.
- ``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp`` (params ``axis``,
  ``reverse``): inclusive scans. They lower, as JAX does on CPU, to a ``stablehlo.reduce_window``
  whose window spans the whole axis, padded with the identity on one side.

Reductions keep the operand's weak type, except the logical ones and argmax/argmin.
Batched, every one of them keeps the batch axis in place and renumbers its axes around it.

Autodiff: ``reduce_sum`` and ``cumsum`` are linear (their transposes broadcast the cotangent
back, and run the scan the other way); ``reduce_prod`` differentiates through a balanced
product tree, ``reduce_max``/``reduce_min`` average the tangent over the extreme locations, the
other scans through an associative scan on (primal, tangent) pairs, all as JAX does; logical
reductions and argmax/argmin have zero (float0) tangents.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives.elementwise import (
    dtype_class, INEXACT, NUM, ORDERED, _real_dtype, apply_binary, compare)
from ember.primitives.structural import batched_axis
from ember.transforms.ad_util import (Zero, add_tangents, deflinear_unary, instantiate,
                                      tangent_aval)

__all__ = []  # primitives are reached through ember.lax

# --- shared helpers ---------------------------------------------------------------------------


def aval_str(aval: ShapedArray) -> str:
  """``float32[3,4]`` (``~float32[]`` when weakly typed), as JAX's messages print avals."""
  dims = ",".join(str(d) for d in aval.shape)
  return f"{'~' if aval.weak_type else ''}{aval.dtype.name}[{dims}]"


def _check_number(name: str, aval: ShapedArray) -> None:
  if dtype_class(aval.dtype) not in NUM:
    raise TypeError(f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are "
                    "subtypes of number.")


def _check_axes(aval: ShapedArray, axes: Sequence[int]) -> None:
  if any(not 0 <= a < aval.ndim for a in axes):
    raise ValueError(f"reduction axes {tuple(axes)} contains out-of-bounds indices for "
                     f"{aval_str(aval)}.")
  if len(set(axes)) != len(axes):
    raise ValueError(f"duplicate value in 'axes' of reduction: {tuple(axes)}")


def _reduced_shape(shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
  return tuple(d for i, d in enumerate(shape) if i not in axes)


def scalar(aval: ShapedArray) -> ShapedArray:
  return ShapedArray((), aval.dtype)


def identity(kind: str, dtype) -> np.ndarray:
  """The identity of the monoid ``kind`` (add, mul, max, min, and, or, xor) for ``dtype``."""
  dt = np.dtype(dtype)
  if kind in ("add", "or", "xor"):
    return np.zeros((), dt)
  if kind == "mul":
    return np.ones((), dt)
  if kind == "and":
    return np.array(True) if dt == np.bool_ else np.array(-1).astype(dt)
  big = kind == "min"
  if dt == np.bool_:
    return np.array(big)
  if dtypes.is_inexact(dt):
    return np.array(np.inf if big else -np.inf).astype(dt)
  info = dtypes.iinfo(dt)
  return np.array(info.max if big else info.min, dt)


def binary_region(ctx: LoweringContext, aval: ShapedArray, op_name: str) -> str:
  """A reducer region applying the elementwise StableHLO op ``op_name`` to two scalars."""
  return ctx.reduction_region([scalar(aval)],
                              lambda sub, accs, xs: [apply_binary(sub, op_name, accs[0], xs[0])])


def _reduce_lower_rule(kind: str, op_name: str):
  def lower(ctx: LoweringContext, x: Value, *, axes, **_) -> Value:
    if not axes:
      return x
    init = ctx.constant(identity(kind, x.aval.dtype), scalar(x.aval))
    return ctx.op1("stablehlo.reduce", [x, init], ctx.avals_out[0],
                   {"dimensions": i64_array(sorted(axes))},
                   regions=[binary_region(ctx, x.aval, op_name)])
  return lower


def _reduce_abstract_eval_rule(name: str, check: Callable, keep_weak: bool = True):
  def abstract_eval(x: ShapedArray, *, axes, **_) -> ShapedArray:
    check(name, x)
    _check_axes(x, axes)
    return ShapedArray(_reduced_shape(x.shape, axes), x.dtype, keep_weak and x.weak_type)
  return abstract_eval


def _check_any(name: str, aval: ShapedArray) -> None:
  pass


def _check_logical(name: str, aval: ShapedArray) -> None:
  if not (aval.dtype == np.bool_ or dtypes.is_integer(aval.dtype)):
    raise TypeError(f"logical reduction requires operand dtype bool or int, got "
                    f"{aval.dtype.name}.")


def _reduce_batch_rule(prim: Primitive):
  """The batch axis stays where it is and the reduced axes are renumbered around it (as
  np.int64: JAX's rule computes them with NumPy, and its jaxprs print them so). For every
  primitive with an ``axes`` param: the monoid reductions, argmax and argmin."""
  def batch(axis, vals, dims, *, axes, **params):
    (x,), (d,) = vals, dims
    out_d = d - sum(a < d for a in axes)
    return prim.bind(x, axes=tuple(np.int64(batched_axis(a, d)) for a in axes), **params), out_d
  return batch


def _reduction(name: str, kind: str, op_name: str, check: Callable,
               keep_weak: bool = True) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_reduce_abstract_eval_rule(name, check, keep_weak),
              lower=_reduce_lower_rule(kind, op_name), batch=_reduce_batch_rule(p))
  return p


# --- monoid reductions ------------------------------------------------------------------------

reduce_sum_p = _reduction("reduce_sum", "add", "stablehlo.add", _check_number)
reduce_prod_p = _reduction("reduce_prod", "mul", "stablehlo.multiply", _check_number)
reduce_max_p = _reduction("reduce_max", "max", "stablehlo.maximum", _check_any)
reduce_min_p = _reduction("reduce_min", "min", "stablehlo.minimum", _check_any)
reduce_and_p = _reduction("reduce_and", "and", "stablehlo.and", _check_logical, keep_weak=False)
reduce_or_p = _reduction("reduce_or", "or", "stablehlo.or", _check_logical, keep_weak=False)
reduce_xor_p = _reduction("reduce_xor", "xor", "stablehlo.xor", _check_logical, keep_weak=False)


def _zero_jvp(prim: Primitive):
  """The jvp of a primitive without float derivatives (logical reductions, argmax, argmin)."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    return out, Zero(tangent_aval(get_aval(out)))
  return jvp


def _reduce_sum_transpose(ct, aval: ShapedArray, *, axes, out_sharding):
  """Broadcast the cotangent back over the summed axes."""
  from ember.primitives.structural import broadcast_in_dim_p
  if not axes:
    return ct
  # JAX computes these dimensions with NumPy and its jaxprs print them as np.int64.
  kept = tuple(np.int64(d) for d in range(aval.ndim) if d not in axes)
  return broadcast_in_dim_p.bind(ct, shape=aval.shape, broadcast_dimensions=kept, sharding=None)


deflinear_unary(reduce_sum_p, _reduce_sum_transpose)


def _mul_pair(a: list, b: list) -> list:
  """(x, tx) * (y, ty) = (x y, tx y + x ty): the product rule on (primal, tangent) pairs."""
  from ember import lax
  (x, tx), (y, ty) = a, b
  return [lax.mul(x, y), add_tangents(lax.mul(tx, y), lax.mul(x, ty))]


def _reduce_prod_jvp(primals, tangents, *, axes):
  """Multiply out the reduced axes pairwise in a balanced tree, applying the product rule at
  each step (as JAX does): exact with zeros in the operand, and the primal comes from the
  same tree."""
  from ember import lax
  (x,), t = primals, instantiate(tangents[0])
  aval = get_aval(x)
  kept = [d for d in range(aval.ndim) if d not in axes]
  out_shape = tuple(aval.shape[d] for d in kept)
  n = int(np.prod([aval.shape[d] for d in axes], dtype=np.int64))
  if n == 0:
    out = lax.full(out_shape, 1, aval.dtype)
    return out, Zero(tangent_aval(get_aval(out)))
  order = tuple(axes) + tuple(kept)
  pair = [lax.reshape(v, (n,) + out_shape, order) for v in (x, t)]
  one = np.ones((), aval.dtype)
  while n > 1:
    half = (n + 1) // 2
    lo = [lax.slice_in_dim(v, 0, half) for v in pair]
    hi = [lax.slice_in_dim(v, half, n) for v in pair]
    if n - half < half:
      config = [(0, 1, 0)] + [(0, 0, 0)] * len(out_shape)
      hi = [lax.pad(hi[0], one, config), lax.pad(hi[1], np.zeros((), get_aval(t).dtype), config)]
    pair, n = _mul_pair(lo, hi), half
  return lax.squeeze(pair[0], (0,)), lax.squeeze(pair[1], (0,))


reduce_prod_p.def_rules(jvp=_reduce_prod_jvp)


def _chooser_jvp(prim: Primitive):
  """The tangent at the location(s) of the extreme value, averaged over ties (NaN when the
  result is NaN, since NaN matches no element)."""
  def jvp(primals, tangents, *, axes):
    from ember import lax
    (x,), t = primals, instantiate(tangents[0])
    out = prim.bind(x, axes=axes)
    shape = tuple(1 if d in axes else s for d, s in enumerate(get_aval(x).shape))
    where = lax._convert_element_type(lax.eq(x, lax.reshape(out, shape)), get_aval(t).dtype)
    counts = lax.reduce_sum(where, axes)
    return out, lax.div(lax.reduce_sum(lax.mul(t, where), axes), counts)
  return jvp


reduce_max_p.def_rules(jvp=_chooser_jvp(reduce_max_p))
reduce_min_p.def_rules(jvp=_chooser_jvp(reduce_min_p))
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
  _p.def_rules(jvp=_zero_jvp(_p))


# --- argmax / argmin --------------------------------------------------------------------------

def _arg_abstract_eval_rule(name: str):
  def abstract_eval(x: ShapedArray, *, axes, index_dtype) -> ShapedArray:
    (axis,) = axes
    if not 0 <= axis < x.ndim:
      raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
    if dtype_class(x.dtype) not in ORDERED:
      raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                      "subtypes of integer, floating, bool.")
    if not dtypes.is_integer(index_dtype):
      raise TypeError(f"index_dtype must be an integer type, but got {np.dtype(index_dtype).name}")
    if x.shape[axis] == 0:
      raise ValueError("argmin and argmax require non-empty reduced dimension. "
                       f"operand.shape={x.shape} axis={axis}")
    return ShapedArray(_reduced_shape(x.shape, axes), index_dtype)
  return abstract_eval


def _arg_comparator(direction: str):
  """Combine (value, index) pairs: the better value wins, NaN beats numbers, ties take the
  smaller index. Symmetric in its two pairs, hence safe in any reduction order."""
  def combine(ctx: LoweringContext, accs: list[Value], xs: list[Value]) -> list[Value]:
    (a, ia), (b, ib) = accs, xs
    def op(name, *args):
      return ctx.op1(f"stablehlo.{name}", list(args), args[0].aval)
    better = compare(ctx, a, b, direction)
    same = compare(ctx, a, b, "EQ")
    if dtypes.is_inexact(a.aval.dtype):
      a_nan, b_nan = compare(ctx, a, a, "NE"), compare(ctx, b, b, "NE")
      better = op("or", better, op("and", a_nan, op("not", b_nan)))
      same = op("or", same, op("and", a_nan, b_nan))
    pick_a = op("or", better, op("and", same, compare(ctx, ia, ib, "LT")))
    return [ctx.op1("stablehlo.select", [pick_a, a, b], a.aval),
            ctx.op1("stablehlo.select", [pick_a, ia, ib], ia.aval)]
  return combine


def _arg_lower_rule(kind: str, direction: str):
  def lower(ctx: LoweringContext, x: Value, *, axes, index_dtype) -> Value:
    (axis,) = axes
    idx_aval = ShapedArray(x.aval.shape, index_dtype)
    iota = ctx.op1("stablehlo.iota", [], idx_aval, {"iota_dimension": f"{axis} : i64"})
    inits = [ctx.constant(identity(kind, x.aval.dtype), scalar(x.aval)),
             ctx.constant(np.zeros((), index_dtype), scalar(idx_aval))]
    region = ctx.reduction_region([scalar(x.aval), scalar(idx_aval)], _arg_comparator(direction))
    out = ctx.avals_out[0]
    _, idx = ctx.op("stablehlo.reduce", [x, iota] + inits, [out.update(dtype=x.aval.dtype), out],
                    {"dimensions": i64_array([axis])}, regions=[region])
    return idx
  return lower


argmax_p = Primitive("argmax")
argmax_p.def_rules(abstract_eval=_arg_abstract_eval_rule("argmax"),
                   lower=_arg_lower_rule("max", "GT"), batch=_reduce_batch_rule(argmax_p))

argmin_p = Primitive("argmin")
argmin_p.def_rules(abstract_eval=_arg_abstract_eval_rule("argmin"),
                   lower=_arg_lower_rule("min", "LT"), batch=_reduce_batch_rule(argmin_p))
argmax_p.def_rules(jvp=_zero_jvp(argmax_p))
argmin_p.def_rules(jvp=_zero_jvp(argmin_p))


# --- cumulative reductions --------------------------------------------------------------------

def _cumulative_abstract_eval_rule(name: str, accepted):
  def abstract_eval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    if dtype_class(x.dtype) not in accepted:
      kinds = "number" if accepted == NUM else "floating, complexfloating"
      raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                      f"subtypes of {kinds}.")
    if axis < 0:
      raise ValueError("XLA operations do not allow negative axes")
    if axis >= x.ndim:
      raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
    return x
  return abstract_eval


def _cumulative_lower_rule(kind: str, combine: Callable[[LoweringContext, Value, Value], Value]):
  def lower(ctx: LoweringContext, x: Value, *, axis: int, reverse: bool) -> Value:
    n = x.aval.shape[axis]
    if n <= 1:
      return x
    rank = x.aval.ndim
    window = [n if d == axis else 1 for d in range(rank)]
    pads = [0, n - 1] if reverse else [n - 1, 0]
    padding = ", ".join(f"[{pads[0]}, {pads[1]}]" if d == axis else "[0, 0]" for d in range(rank))
    attrs = {"window_dimensions": i64_array(window), "window_strides": i64_array([1] * rank),
             "padding": f"dense<[{padding}]> : tensor<{rank}x2xi64>"}
    s = scalar(x.aval)
    region = ctx.reduction_region([s], lambda sub, accs, xs: [combine(sub, accs[0], xs[0])])
    init = ctx.constant(identity(kind, x.aval.dtype), s)
    return ctx.op1("stablehlo.reduce_window", [x, init], x.aval, attrs, regions=[region])
  return lower


def _binary(op_name: str):
  return lambda ctx, a, b: apply_binary(ctx, op_name, a, b)


def _logaddexp(ctx: LoweringContext, a: Value, b: Value) -> Value:
  """log(exp(a) + exp(b)) without overflow; NaN when a - b is NaN (as for inf - inf)."""
  if dtypes.is_complex(a.aval.dtype):
    return _complex_logaddexp(ctx, a, b)
  hi = ctx.op1("stablehlo.maximum", [a, b], a.aval)
  delta = ctx.op1("stablehlo.subtract", [a, b], a.aval)
  nan = compare(ctx, delta, delta, "NE")
  mag = ctx.op1("stablehlo.negate", [ctx.op1("stablehlo.abs", [delta], a.aval)], a.aval)
  soft = ctx.op1("stablehlo.log_plus_one", [ctx.op1("stablehlo.exponential", [mag], a.aval)],
                 a.aval)
  out = ctx.op1("stablehlo.add", [hi, soft], a.aval)
  return ctx.op1("stablehlo.select", [nan, ctx.op1("stablehlo.add", [a, b], a.aval), out],
                 a.aval)


def _complex_logaddexp(ctx: LoweringContext, a: Value, b: Value) -> Value:
  """The complex log-add-exp: shift by the lexicographic max, wrap the phase into [-pi, pi)."""
  c = a.aval
  r = ShapedArray((), _real_dtype(c.dtype))
  hi = apply_binary(ctx, "stablehlo.maximum", a, b)
  two_hi = ctx.op1("stablehlo.multiply", [hi, ctx.constant(np.array(2, c.dtype), c)], c)
  delta = ctx.op1("stablehlo.subtract", [ctx.op1("stablehlo.add", [a, b], c), two_hi], c)
  out = ctx.op1("stablehlo.add", [hi, ctx.op1(
      "stablehlo.log_plus_one", [ctx.op1("stablehlo.exponential", [delta], c)], c)], c)
  pi = ctx.constant(np.array(np.pi, r.dtype), r)
  two_pi = ctx.constant(np.array(2 * np.pi, r.dtype), r)
  phase = ctx.op1("stablehlo.remainder", [ctx.op1("stablehlo.add", [
      ctx.op1("stablehlo.imag", [out], r), pi], r), two_pi], r)
  neg = compare(ctx, phase, ctx.constant(np.zeros((), r.dtype), r), "LT")
  phase = ctx.op1("stablehlo.select", [neg, ctx.op1("stablehlo.add", [phase, two_pi], r), phase],
                  r)
  phase = ctx.op1("stablehlo.subtract", [phase, pi], r)
  return ctx.op1("stablehlo.complex", [ctx.op1("stablehlo.real", [out], r), phase], c)


def _cumulative_batch_rule(prim: Primitive):
  """The scan runs along the renumbered axis; the batch axis stays where it is."""
  def batch(axis_data, vals, dims, *, axis: int, reverse: bool):
    (x,), (d,) = vals, dims
    return prim.bind(x, axis=batched_axis(axis, d), reverse=reverse), d
  return batch


def _cumulative(name: str, kind: str, combine, accepted=NUM) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_cumulative_abstract_eval_rule(name, accepted),
              lower=_cumulative_lower_rule(kind, combine), batch=_cumulative_batch_rule(p))
  return p


cumsum_p = _cumulative("cumsum", "add", _binary("stablehlo.add"))
cumprod_p = _cumulative("cumprod", "mul", _binary("stablehlo.multiply"))
cummax_p = _cumulative("cummax", "max", _binary("stablehlo.maximum"))
cummin_p = _cumulative("cummin", "min", _binary("stablehlo.minimum"))
cumlogsumexp_p = _cumulative("cumlogsumexp", "max", _logaddexp, INEXACT)

deflinear_unary(cumsum_p, lambda ct, aval, *, axis, reverse: cumsum_p.bind(
    ct, axis=axis, reverse=not reverse))


# The other scans differentiate as JAX does: the jvp of an associative scan (the odd/even
# recursion below) whose combine acts on (primal, tangent) pairs. Primal and tangent both come
# from that scan, so ties of cummax/cummin split the tangent as the scan's pairwise maxima do.

def _scan_pairs(combine: Callable, pair: list, axis: int) -> list:
  """Inclusive scan of the (primal, tangent) ``pair`` along ``axis``: combine the elements two
  by two, scan those sums recursively (they are the odd outputs), then combine each odd output
  with the next even element."""
  from ember import lax
  n = get_aval(pair[0]).shape[axis]
  if n < 2:
    return pair
  def cut(v, start, limit, stride):
    return lax.slice_in_dim(v, start, limit, stride, axis)
  odd = _scan_pairs(combine, combine([cut(v, 0, n - 1, 2) for v in pair],
                                     [cut(v, 1, n, 2) for v in pair]), axis)
  m = get_aval(odd[0]).shape[axis]
  prev = [cut(v, 0, m - 1, 1) for v in odd] if n % 2 == 0 else odd
  even = combine(prev, [cut(v, 2, n, 2) for v in pair])
  heads = [cut(v, 0, 1, 1) for v in pair]
  even = [lax.concatenate([h, e], axis) for h, e in zip(heads, even)]
  return _interleave(even, odd, axis)


def _interleave(even: list, odd: list, axis: int) -> list:
  """Merge ``even[i]`` (positions 0, 2, ...) and ``odd[i]`` (1, 3, ...) by padding each with
  zeros between elements and adding."""
  from ember import lax
  ndim = get_aval(even[0]).ndim
  same = get_aval(even[0]).shape[axis] == get_aval(odd[0]).shape[axis]
  def spread(v, low, high):
    config = [(low, high, 1) if d == axis else (0, 0, 0) for d in range(ndim)]
    return lax.pad(v, np.zeros((), get_aval(v).dtype), config)
  evens = [spread(v, 0, 1 if same else 0) for v in even]
  odds = [spread(v, 1, 0 if same else 1) for v in odd]
  return [lax.add(a, b) for a, b in zip(evens, odds)]


def _choose_pair(op: str) -> Callable:
  """max/min on (primal, tangent) pairs: each tangent counts where its primal is the result,
  halved when both are."""
  def combine(a: list, b: list) -> list:
    from ember import lax
    (x, tx), (y, ty) = a, b
    out = getattr(lax, op)(x, y)
    aval = get_aval(out)
    def where(pred, if_true, if_false):
      on, off = (lax.full(aval.shape, v, aval.dtype) for v in (if_true, if_false))
      return lax.select_n(pred, off, on)
    def term(t, mine, other):
      hit = where(lax.eq(mine, out), 1, 0)
      return lax.mul(t, lax.div(hit, where(lax.eq(other, out), 2, 1)))
    return [out, add_tangents(term(tx, x, y), term(ty, y, x))]
  return combine


def _const(x, value):
  return np.array(value, get_aval(x).dtype)


def _logaddexp_value(x, y):
  """log(exp(x) + exp(y)) from lax ops, as the cumlogsumexp lowering computes it."""
  from ember import lax
  if dtypes.is_complex(get_aval(x).dtype):
    return _complex_logaddexp_value(x, y)
  hi = lax.max(x, y)
  delta = lax.sub(x, y)
  nan = lax.ne(delta, delta)
  total = lax.add(x, y)
  out = lax.add(hi, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
  return lax.select_n(nan, out, total)


def _complex_logaddexp_value(x, y):
  from ember import lax
  hi = lax.max(x, y)
  delta = lax.sub(lax.add(x, y), lax.mul(hi, _const(x, 2)))
  out = lax.add(hi, lax.log1p(lax.exp(delta)))
  re, im = lax.real(out), lax.imag(out)
  pi, two_pi = _const(re, np.pi), _const(re, 2 * np.pi)
  phase = lax.rem(lax.add(im, pi), two_pi)
  phase = lax.select_n(lax.lt(phase, _const(re, 0)), phase, lax.add(phase, two_pi))
  return lax.complex(re, lax.sub(phase, pi))


def _finite_or_zero(x):
  """``x`` with +inf (of the real part, for complex) replaced by 0, so that inf - inf in the
  logaddexp derivative does not make NaN."""
  from ember import lax
  aval = get_aval(x)
  key = lax.real(x) if dtypes.is_complex(aval.dtype) else x
  inf = np.array(np.inf, get_aval(key).dtype)
  return lax.select_n(lax.eq(key, inf), x, lax.full(aval.shape, 0, aval.dtype))


def _logaddexp_pair(a: list, b: list) -> list:
  """logaddexp on (primal, tangent) pairs: d out = tx exp(x - out) + ty exp(y - out)."""
  from ember import lax
  (x, tx), (y, ty) = a, b
  out = _logaddexp_value(x, y)
  def term(t, v):
    return lax.mul(t, lax.exp(lax.sub(_finite_or_zero(v), _finite_or_zero(out))))
  return [out, lax.add(term(tx, x), term(ty, y))]


def _scan_jvp(combine: Callable):
  def jvp(primals, tangents, *, axis, reverse):
    from ember import lax
    pair = [primals[0], instantiate(tangents[0])]
    if reverse:
      pair = [lax.rev(v, (axis,)) for v in pair]
    pair = _scan_pairs(combine, pair, axis)
    if reverse:
      pair = [lax.rev(v, (axis,)) for v in pair]
    return pair[0], pair[1]
  return jvp


cumprod_p.def_rules(jvp=_scan_jvp(_mul_pair))
cummax_p.def_rules(jvp=_scan_jvp(_choose_pair("max")))
cummin_p.def_rules(jvp=_scan_jvp(_choose_pair("min")))
cumlogsumexp_p.def_rules(jvp=_scan_jvp(_logaddexp_pair))


# --- rules these primitives do not have -------------------------------------------------------

for _p in (reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p, reduce_xor_p,
           argmax_p, argmin_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
