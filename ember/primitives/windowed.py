"""Reductions over windows, and reductions with a user computation.

Window params, shared: ``window_dimensions``, ``window_strides``, ``padding`` (one ``(low,
high)`` pair per dimension), ``base_dilation`` (holes between operand elements) and
``window_dilation`` (holes between window elements). Output element ``i`` reduces the window
starting at ``i * stride`` of the dilated, padded operand.

- ``reduce_window_sum``, ``reduce_window_max``, ``reduce_window_min`` (window params): one
  ``stablehlo.reduce_window`` with the monoid's identity as padding value. The sum is linear
  (its transpose pads the cotangent, stride holes included, and sums it over windows again);
  max and min take the tangent at each window's chosen element (``select_and_gather_add``).
- ``select_and_gather_add(tangents, operand)`` (``select_prim`` = ``ge`` or ``le``, window
  params): per window, the tangent at the element the operand's max (min) picks, by a
  two-operand reduce_window. Linear in ``tangents``; its transpose is
- ``select_and_scatter_add(source, operand)`` (``select_prim``, window dimensions, strides,
  padding): adds each window's ``source`` value at the element the operand picks.
- ``reduce_window(*operands, *init_values)`` (``jaxpr``, ``consts``, window params): any
  computation, traced to a jaxpr. Forward-mode differentiable only (as in JAX).
- ``reduce(*operands, *init_values)`` (``computation``, ``jaxpr``, ``dimensions``): a
  ``stablehlo.reduce`` with a traced computation. Its jvp reduces (primal, tangent) pairs in a
  balanced tree of the computation's jvp, so reverse mode works too.

Batching adds a window of one along the batch axis (a leading one for the two-operand and
generic ops, whose batch axis moves to the front).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.eval import eval_jaxpr, jaxpr_as_fun
from ember.core.jaxpr import ClosedJaxpr, Jaxpr
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.backend.array import check_size
from ember.core.cache import BoundedCache
from ember.backend.lowering import LoweringContext, Value, i64_array, lower_jaxpr
from ember.primitives.convolution import (check_dims, check_int64, dilate_shape, padding_attr,
                                          stride_dim, vjp_lhs_padding)
from ember.primitives.elementwise import NUM, compare, dtype_class, ge_p, le_p
from ember.primitives.reductions import aval_str, binary_region, identity, scalar
from ember.primitives.structural import pad_p
from ember.transforms import batching
from ember.transforms.ad_util import (Zero, defjvp, deflinear_unary, instantiate, is_undefined,
                                      tangent_aval)

__all__ = []  # primitives are reached through ember.lax

_WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation")

# --- shared helpers ---------------------------------------------------------------------------


def _check_positive(arg: str, values, strict: bool = True) -> None:
  if any(v <= 0 if strict else v < 0 for v in values):
    which = "strictly positive" if strict else "nonnegative"
    raise TypeError(f"reduce_window {arg} must have every element be {which}, got "
                    f"{tuple(values)}.")


def window_shape(operand: ShapedArray, window_dimensions, window_strides, padding,
                 base_dilation, window_dilation) -> tuple[int, ...]:
  """The output shape of a windowed reduction, after JAX's checks of the window params."""
  _check_positive("window_dimensions", window_dimensions)
  _check_positive("window_strides", window_strides)
  _check_positive("base_dilation", base_dilation, strict=False)
  _check_positive("window_dilation", window_dilation, strict=False)
  if operand.ndim != len(window_dimensions):
    raise TypeError("reduce_window got the wrong number of window_dimensions for operand: got "
                    f"operand shape {operand.shape} with window_dimensions "
                    f"{tuple(window_dimensions)}.")
  for name, values in zip(_WINDOW[1:], (window_strides, padding, base_dilation,
                                        window_dilation)):
    if len(values) != len(window_dimensions):
      raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got "
                      f"{name} {tuple(values)} and window_dimensions {tuple(window_dimensions)}.")
  for name, values in zip(_WINDOW, (window_dimensions, window_strides,
                                    [p for pair in padding for p in pair], base_dilation,
                                    window_dilation)):
    check_int64(f"reduce_window {name}", values)
  base = dilate_shape(operand.shape, base_dilation)
  window = dilate_shape(window_dimensions, window_dilation)
  padded = [d + lo + hi for d, (lo, hi) in zip(base, padding)]
  check_dims("reduce_window", base, f"base_dilation={tuple(base_dilation)}", TypeError)
  check_dims("reduce_window", window, f"window_dilation={tuple(window_dilation)}", TypeError)
  check_dims("reduce_window", padded, f"padding={tuple(padding)}", TypeError)
  if any(d < 0 for d in padded):
    raise ValueError(f"reduce_window padding {tuple(padding)} removes more than the whole "
                     f"operand of shape {operand.shape}.")
  out = tuple(stride_dim(d, w, s) for d, w, s in zip(padded, window, window_strides))
  check_size(out, operand.dtype)  # (an element count beyond int64 would reach XLA, which aborts)
  return out


def _window_attrs(window_dimensions, window_strides, padding, base_dilation, window_dilation):
  return {"window_dimensions": i64_array(window_dimensions),
          "window_strides": i64_array(window_strides),
          "base_dilations": i64_array(base_dilation),
          "window_dilations": i64_array(window_dilation),
          "padding": padding_attr(padding)}


def _with_unit_window(params: dict, at: int) -> dict:
  """The window params (those present) of an operand with a new axis at ``at``: a window of
  one there."""
  one = {"window_dimensions": 1, "window_strides": 1, "padding": (0, 0), "base_dilation": 1,
         "window_dilation": 1}
  return {k: (tuple(v[:at]) + (one[k],) + tuple(v[at:]) if k in one else v)
          for k, v in params.items()}


def _jaxpr_region(ctx: LoweringContext, jaxpr: Jaxpr, consts: Sequence,
                  scalar_avals: Sequence[ShapedArray]) -> str:
  """A reducer region (accumulators, then inputs) whose body is ``jaxpr``."""
  def body(sub: LoweringContext, args: list[Value]):
    const_vals = [sub.constant(c, v.aval) for c, v in zip(consts, jaxpr.constvars)]
    return lower_jaxpr(sub, jaxpr, const_vals, args)
  return ctx.region(list(scalar_avals) * 2, body)


# --- monoid windows: reduce_window_sum / max / min --------------------------------------------

def _monoid_abstract_eval(name: str):
  def abstract_eval(x: ShapedArray, **params) -> ShapedArray:
    if name == "reduce_window_sum" and dtype_class(x.dtype) not in NUM:
      raise TypeError(f"operand to reduce_window_sum must have a number dtype, got "
                      f"{x.dtype.name}")
    return ShapedArray(window_shape(x, **params), x.dtype, x.weak_type)
  return abstract_eval


def _monoid_lower(kind: str, op_name: str):
  def lower(ctx: LoweringContext, x: Value, **params) -> Value:
    init = ctx.constant(identity(kind, x.aval.dtype), scalar(x.aval))
    return ctx.op1("stablehlo.reduce_window", [x, init], ctx.avals_out[0],
                   _window_attrs(**params), regions=[binary_region(ctx, x.aval, op_name)])
  return lower


def _monoid_batch(prim: Primitive):
  def batch(axis, vals, dims, **params):
    (x,), (d,) = vals, dims
    return prim.bind(x, **_with_unit_window(params, d)), d
  return batch


def _monoid_window(name: str, kind: str, op_name: str) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_monoid_abstract_eval(name), lower=_monoid_lower(kind, op_name),
              batch=_monoid_batch(p))
  return p


reduce_window_sum_p = _monoid_window("reduce_window_sum", "add", "stablehlo.add")
reduce_window_max_p = _monoid_window("reduce_window_max", "max", "stablehlo.maximum")
reduce_window_min_p = _monoid_window("reduce_window_min", "min", "stablehlo.minimum")


def _reduce_window_sum_transpose(ct, aval: ShapedArray, *, window_dimensions, window_strides,
                                 padding, base_dilation, window_dilation):
  """Each input element receives the cotangents of the windows that cover it: pad the
  cotangent (holes for the strides; pads as NumPy ints, as JAX prints them), then sum it over
  windows again, striding by the base dilation."""
  ct_shape = get_aval(ct).shape
  pads = vjp_lhs_padding(aval.shape, window_dimensions, window_strides, ct_shape, padding,
                         base_dilation, window_dilation)
  config = tuple((lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides))
  padded = pad_p.bind(ct, np.zeros((), get_aval(ct).dtype), padding_config=config)
  n = aval.ndim
  return reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions,
                                  window_strides=base_dilation, padding=((0, 0),) * n,
                                  base_dilation=(1,) * n, window_dilation=window_dilation)


deflinear_unary(reduce_window_sum_p, _reduce_window_sum_transpose)


def _chooser_jvp(select_prim: Primitive):
  def tangent(t, x, **params):
    return select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)
  return tangent


# --- select_and_gather_add / select_and_scatter_add -------------------------------------------

def _select_identity(select_prim: Primitive, dtype) -> np.ndarray:
  """The operand value that never gets selected: -inf for ``ge`` (max), +inf for ``le``."""
  return identity("max" if select_prim is ge_p else "min", dtype)


def _select_direction(select_prim: Primitive) -> str:
  return "GE" if select_prim is ge_p else "LE"


def _gather_abstract_eval(t: ShapedArray, x: ShapedArray, *, select_prim, **params):
  if t.shape != x.shape:
    raise TypeError("select_and_gather_add tangents and operand shapes must match, got "
                    f"{t.shape} and {x.shape}.")
  return ShapedArray(window_shape(x, **params), t.dtype)


def _gather_lower(ctx: LoweringContext, t: Value, x: Value, *, select_prim, **params) -> Value:
  """A two-operand reduce_window over (operand, tangent) pairs keeping the pair whose operand
  the select predicate prefers."""
  direction = _select_direction(select_prim)
  xs, ts = scalar(x.aval), scalar(t.aval)

  def combine(sub, accs, ins):
    (kx, vx), (ky, vy) = accs, ins
    which = compare(sub, kx, ky, direction)
    return [sub.op1("stablehlo.select", [which, kx, ky], xs),
            sub.op1("stablehlo.select", [which, vx, vy], ts)]

  inits = [ctx.constant(_select_identity(select_prim, x.aval.dtype), xs),
           ctx.constant(np.zeros((), t.aval.dtype), ts)]
  out = ctx.avals_out[0]
  _, picked = ctx.op("stablehlo.reduce_window", [x, t] + inits, [out.update(dtype=x.aval.dtype),
                                                                 out], _window_attrs(**params),
                     regions=[ctx.reduction_region([xs, ts], combine)])
  return picked


def _gather_transpose(ct, t, x, *, select_prim, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation):
  """Scatter-add each window's cotangent to the element the operand picks. A base dilation is
  undone by padding the operand with never-picked values in the holes and striding over the
  result."""
  from ember import lax
  assert is_undefined(t) and not is_undefined(x)
  if any(d != 1 for d in window_dilation):
    raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with window "
                              f"dilation, got window_dilation={window_dilation}.")
  if type(ct) is Zero:
    return [Zero(t.aval), None]
  dilated = any(d != 1 for d in base_dilation)
  if dilated:
    fill = _select_identity(select_prim, get_aval(x).dtype)
    x = lax.pad(x, fill, tuple((0, 0, d - 1) for d in base_dilation))
  out = select_and_scatter_add_p.bind(ct, x, select_prim=select_prim,
                                      window_dimensions=window_dimensions,
                                      window_strides=window_strides, padding=padding)
  if dilated:
    shape = get_aval(out).shape
    out = lax.slice(out, (0,) * len(shape), shape, base_dilation)
  return [out, None]


def _front_batch(prim: Primitive):
  """Both operands batched at the front, with a window of one along the batch."""
  def batch(axis, vals, dims, **params):
    size = batching.batch_size(vals, dims)
    vals = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    return prim.bind(*vals, **_with_unit_window(params, 0)), 0
  return batch


select_and_gather_add_p = Primitive("select_and_gather_add")
select_and_gather_add_p.def_rules(
    abstract_eval=_gather_abstract_eval, lower=_gather_lower, transpose=_gather_transpose,
    batch=_front_batch(select_and_gather_add_p))
defjvp(select_and_gather_add_p,
       lambda g, t, x, **params: select_and_gather_add_p.bind(g, x, **params), None)
defjvp(reduce_window_max_p, _chooser_jvp(ge_p))
defjvp(reduce_window_min_p, _chooser_jvp(le_p))


def _scatter_abstract_eval(source: ShapedArray, x: ShapedArray, *, select_prim,
                           window_dimensions, window_strides, padding):
  ones = (1,) * x.ndim
  expected = window_shape(x, window_dimensions, window_strides, padding, ones, ones)
  if source.shape != expected:
    raise TypeError(f"select_and_scatter_add source shape {source.shape} does not match the "
                    f"window output shape {expected} of the operand.")
  return ShapedArray(x.shape, source.dtype)


def _pad(ctx: LoweringContext, x: Value, value, padding) -> Value:
  """``stablehlo.pad`` by ``(low, high)`` pairs (negative ones crop)."""
  lo, hi = zip(*padding)
  out = ShapedArray(tuple(d + a + b for d, (a, b) in zip(x.aval.shape, padding)), x.aval.dtype)
  return ctx.op1("stablehlo.pad", [x, ctx.constant(value, scalar(x.aval))], out, {
      "edge_padding_low": i64_array(lo), "edge_padding_high": i64_array(hi),
      "interior_padding": i64_array([0] * len(lo))})


def _scatter_lower(ctx: LoweringContext, source: Value, x: Value, *, select_prim,
                   window_dimensions, window_strides, padding) -> Value:
  """``stablehlo.select_and_scatter`` on the operand padded with never-picked values (XLA's
  CPU backend mishandles the op's own padding, as JAX notes); undoing that padding then cuts
  the padded elements off and gives zeros to cropped ones (no window picked them)."""
  xs, ss = scalar(x.aval), scalar(source.aval)
  padded = any(lo or hi for lo, hi in padding)
  if padded:
    x = _pad(ctx, x, _select_identity(select_prim, x.aval.dtype), padding)
  direction = _select_direction(select_prim)
  select = ctx.region([xs, xs], lambda sub, args: [compare(sub, args[0], args[1], direction)])
  add = "stablehlo.or" if ss.dtype == np.bool_ else "stablehlo.add"
  scatter = ctx.reduction_region([ss], lambda sub, accs, ins: [
      sub.op1(add, [accs[0], ins[0]], ss)])
  init = ctx.constant(np.zeros((), ss.dtype), ss)
  out = ctx.op1("stablehlo.select_and_scatter", [x, source, init],
                x.aval.update(dtype=ss.dtype),
                {"window_dimensions": i64_array(window_dimensions),
                 "window_strides": i64_array(window_strides),
                 "padding": padding_attr([(0, 0)] * len(padding))}, regions=[select, scatter])
  return _pad(ctx, out, np.zeros((), ss.dtype), [(-lo, -hi) for lo, hi in padding]) \
      if padded else out


def _scatter_transpose(ct, source, x, *, select_prim, window_dimensions, window_strides,
                       padding):
  """Gather back the cotangent at each window's picked element."""
  assert is_undefined(source) and not is_undefined(x)
  if type(ct) is Zero:
    return [Zero(source.aval), None]
  ones = (1,) * len(window_dimensions)
  return [select_and_gather_add_p.bind(ct, x, select_prim=select_prim,
                                       window_dimensions=window_dimensions,
                                       window_strides=window_strides, padding=padding,
                                       base_dilation=ones, window_dilation=ones), None]


select_and_scatter_add_p = Primitive("select_and_scatter_add")
select_and_scatter_add_p.def_rules(
    abstract_eval=_scatter_abstract_eval, lower=_scatter_lower, transpose=_scatter_transpose,
    batch=_front_batch(select_and_scatter_add_p))
defjvp(select_and_scatter_add_p,
       lambda g, s, x, **params: select_and_scatter_add_p.bind(g, x, **params), None)


# --- generic reduce_window --------------------------------------------------------------------

def check_window_inits(operands: Sequence[ShapedArray], inits: Sequence[ShapedArray]) -> None:
  """JAX's checks of ``reduce_window``'s init values (also run before tracing the computation)."""
  if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
    raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: got "
                    f"operand dtypes {[o.dtype for o in operands]} and init_value dtypes "
                    f"{[i.dtype for i in inits]}.")
  if any(i.ndim for i in inits):
    raise TypeError("reduce_window expected init_values to be scalars but init_values have "
                    f"shapes {[i.shape for i in inits]}.")
  _check_same_shapes("reduce_window", operands)


def check_reduce_inits(operands: Sequence[ShapedArray], inits: Sequence[ShapedArray]) -> None:
  """JAX's checks of ``reduce``'s init values (also run before tracing the computation)."""
  if any(i.shape != () for i in inits):
    raise ValueError(f"reduce found non-scalar initial value: {[i.shape for i in inits]}")
  if [o.dtype for o in operands] != [i.dtype for i in inits]:
    raise TypeError("reduce operand dtypes should match corresponding initial value dtypes, got "
                    f"operands={list(operands)} and initial_values={list(inits)}")
  _check_same_shapes("reduce", operands)


def _check_same_shapes(name: str, operands: Sequence[ShapedArray]) -> None:
  if len({o.shape for o in operands}) > 1:
    raise TypeError(f"{name} operands must all have the same shape, got "
                    f"{[o.shape for o in operands]}.")


def _reduce_window_abstract_eval(*avals, jaxpr, consts, **params):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  check_window_inits(operands, inits)
  shape = window_shape(operands[0], **params)
  return [ShapedArray(shape, o.dtype) for o in operands]


def _reduce_window_lower(ctx: LoweringContext, *args, jaxpr, consts, **params):
  n = len(args) // 2
  inits = [scalar(a.aval) for a in args[n:]]
  return ctx.op("stablehlo.reduce_window", list(args), ctx.avals_out, _window_attrs(**params),
                regions=[_jaxpr_region(ctx, jaxpr, consts, inits)])


_jvp_jaxprs = BoundedCache(256)


def _jvp_reducer(jaxpr: Jaxpr, consts: tuple, n: int) -> ClosedJaxpr:
  """The reducer of (primal, tangent) pairs: arguments (primal accumulators, tangent
  accumulators, primal inputs, tangent inputs), results (primals, tangents)."""
  from ember.transforms.jvp import jvp_flat
  from ember.transforms.staging import trace_to_jaxpr
  key = (jaxpr, n)
  hit = _jvp_jaxprs.get(key)
  if hit is not None:
    return hit

  def pairs(*xs):
    pl, tl, pr, tr = (xs[i * n:(i + 1) * n] for i in range(4))
    outs, touts = jvp_flat(lambda *a: eval_jaxpr(jaxpr, consts, *a), [*pl, *pr], [*tl, *tr])
    return list(outs) + [instantiate(t) for t in touts]

  avals = [v.aval for v in jaxpr.invars[:n]]
  t_avals = [tangent_aval(a) for a in avals]
  closed = trace_to_jaxpr(pairs, avals + t_avals + avals + t_avals)
  _jvp_jaxprs[key] = closed
  return closed


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **params):
  """One reduce_window over (primal, tangent) pairs with the computation's jvp as reducer."""
  n = len(primals) // 2
  operands, inits = primals[:n], primals[n:]
  if any(type(t) is not Zero for t in tangents[n:]):
    raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
  t_operands = [instantiate(t) for t in tangents[:n]]
  t_inits = [np.zeros((), tangent_aval(get_aval(i)).dtype) for i in inits]
  reducer = _jvp_reducer(jaxpr, tuple(consts), n)
  outs = reduce_window_p.bind(*operands, *t_operands, *inits, *t_inits, jaxpr=reducer.jaxpr,
                              consts=tuple(reducer.consts), **params)
  return outs[:n], outs[n:]


def _reduce_window_partial_eval(trace, args, params):
  raise ValueError("Linearization failed to produce known values for all output primals. This "
                   "is typically caused by attempting to differentiate a function uses an "
                   "operation that does not support reverse-mode autodiff. (lax.reduce_window "
                   "with a custom computation is forward-mode differentiable only; with lax.add, "
                   "lax.max or lax.min and their identity as init_value it is reverse-mode "
                   "differentiable.)")


def _reduce_window_batch(axis, vals, dims, *, jaxpr, consts, **params):
  n = len(vals) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("reduce_window batching is not implemented for initial values")
  size = batching.batch_size(vals, dims)
  operands = [batching.bdim_at_front(v, d, size) for v, d in zip(vals[:n], dims[:n])]
  outs = reduce_window_p.bind(*operands, *vals[n:], jaxpr=jaxpr, consts=consts,
                              **_with_unit_window(params, 0))
  return outs, [0] * n


reduce_window_p = Primitive("reduce_window", multiple_results=True)
reduce_window_p.def_rules(abstract_eval=_reduce_window_abstract_eval, lower=_reduce_window_lower,
                          jvp=_reduce_window_jvp, partial_eval=_reduce_window_partial_eval,
                          batch=_reduce_window_batch)
reduce_window_p.def_unsupported(
    "transpose", "a custom reduce_window computation is not linear; JAX differentiates it in "
    "forward mode only")


# --- generic reduce ---------------------------------------------------------------------------

def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  check_reduce_inits(operands, inits)
  ndim = operands[0].ndim
  if any(not 0 <= d < ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
    raise ValueError(f"reduce dimensions {tuple(dimensions)} must be distinct axes of the "
                     f"operand {aval_str(operands[0])}.")
  shape = tuple(s for d, s in enumerate(operands[0].shape) if d not in dimensions)
  return [ShapedArray(shape, o.dtype, o.weak_type and i.weak_type)
          for o, i in zip(operands, inits)]


def _reduce_lower(ctx: LoweringContext, *args, computation, jaxpr, dimensions):
  n = len(args) // 2
  inits = [scalar(a.aval) for a in args[n:]]
  return ctx.op("stablehlo.reduce", list(args), ctx.avals_out,
                {"dimensions": i64_array(sorted(dimensions))},
                regions=[_jaxpr_region(ctx, jaxpr.jaxpr, jaxpr.consts, inits)])


def _reduce_tree(jaxpr: ClosedJaxpr, inits: Sequence, axes: Sequence[int], *xs):
  """Reduce ``axes`` of ``xs`` by halving them repeatedly, combining the halves elementwise
  with the computation (vmapped over every kept axis); an odd half is padded with the init."""
  from ember import lax
  shape = get_aval(xs[0]).shape
  kept = [d for d in range(len(shape)) if d not in axes]
  kept_shape = tuple(shape[d] for d in kept)
  n = int(np.prod([shape[d] for d in axes], dtype=np.int64))
  xs = [lax.reshape(x, (n,) + kept_shape, tuple(axes) + tuple(kept)) for x in xs]
  reducer = jaxpr_as_fun(jaxpr)
  for _ in range(len(kept) + 1):
    reducer = batching.vmap(reducer)
  while n > 1:
    half = (n + 1) // 2
    lo = [lax.slice_in_dim(x, 0, half) for x in xs]
    hi = [lax.slice_in_dim(x, half, n) for x in xs]
    if n - half < half:
      config = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)
      hi = [lax.pad(h, i, config) for h, i in zip(hi, inits)]
    xs, n = reducer(*lo, *hi), half
  if n == 0:
    return [lax.full(kept_shape, i) for i in inits]
  return [lax.squeeze(x, (0,)) for x in xs]


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
  """The jvp of the balanced reduction tree: only the computation's own jvp is needed, and the
  tangent map it records is linear (so reverse mode works)."""
  from ember.transforms.jvp import jvp_flat
  n = len(primals) // 2
  if any(type(t) is not Zero for t in tangents[n:]):
    raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for initial "
                              "values to reduction not implemented")
  inits = primals[n:]
  return jvp_flat(lambda *xs: _reduce_tree(jaxpr, inits, dimensions, *xs), primals[:n],
                  tangents[:n])


def _reduce_batch(axis, vals, dims, *, computation, jaxpr, dimensions):
  n = len(vals) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("lax.reduce batching is not implemented for initial values that "
                              "differ between examples")
  size = batching.batch_size(vals, dims)
  operands = [batching.bdim_at_front(v, d, size) for v, d in zip(vals[:n], dims[:n])]
  outs = reduce_p.bind(*operands, *vals[n:], computation=computation, jaxpr=jaxpr,
                       dimensions=tuple(d + 1 for d in dimensions))
  return outs, [0] * n


def _reduce_pp_params(params: dict) -> dict:
  """JAX prints the computation by its repr with the address masked
  (``<function f at 0xXXXXXXXXXXXX>``), so that printed jaxprs are reproducible."""
  fn = re.sub(r"0x[0-9a-fA-F]+", "0xXXXXXXXXXXXX", repr(params["computation"]))
  return {"computation": fn, "dimensions": params["dimensions"], "jaxpr": params["jaxpr"]}


reduce_p = Primitive("reduce", multiple_results=True)
reduce_p.def_rules(abstract_eval=_reduce_abstract_eval, lower=_reduce_lower, jvp=_reduce_jvp,
                   batch=_reduce_batch)
reduce_p.def_rules(pp_params=_reduce_pp_params)


# --- rules these primitives do not have -------------------------------------------------------

for _p in (reduce_window_max_p, reduce_window_min_p, reduce_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
