"""``scan``: loop a body over the leading axis of arrays, carrying state (``lax.scan``,
``lax.map``, ``fori_loop`` with static bounds).

``scan_p`` takes ``num_consts`` consts, ``num_carry`` initial carries, then the scanned arrays
(xs); ``jaxpr`` maps (consts, carries, one slice of each xs) to (new carries, one slice of each
output ys). It runs ``length`` iterations, from the last slice when ``reverse``, ``unroll`` of
them per trip of the loop. It lowers to ``stablehlo.while`` over a counter, slicing the xs and
updating the ys buffers in place, as JAX lowers it. Rules:

- jvp: the body's jvp; the carries with nonzero tangents found by a fixed point;
- partial evaluation (reverse mode): the body is split once; the known scan also returns each
  iteration's residuals stacked as extra ys (the known consts and xs the unknown part reads are
  passed to it as they are, not stacked), which the unknown scan reads as extra xs;
- transpose: a scan in the other direction over the residuals and the ys' cotangents, carrying
  the carries' cotangents and summing the consts';
- batching: carries batched by a fixed point; xs and ys keep their batch axis at 1 (a slice's at
  0), consts where it is.
"""
from __future__ import annotations

import numpy as np

from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.backend import lowering
from ember.backend.lowering import i64_array
from ember.transforms.ad_util import (Zero, instantiate, is_undefined,
                                      tangent_aval, zeros_like_aval)
from ember.transforms.batching import batch_jaxpr, matchaxis, moveaxis
from ember.core.jaxpr import hoist_consts
from ember.transforms.linearize import backward_pass
from ember.core.jaxpr import ClosedJaxpr, Jaxpr
from ember.core.eval import eval_jaxpr
from ember.primitives.control_flow.common import (fixed_point, jvp_jaxpr, partial_eval_jaxpr,
                                                  permute, split, trace_flat, transformed)

__all__ = ["scan_p"]

scan_p = core.Primitive("scan", multiple_results=True)
scan_p.own_vma = True  # its outputs' varying mesh axes are its body's
_I32 = ShapedArray((), np.int32)


def _scan_abstract_eval(*avals, jaxpr, length, num_consts, num_carry, reverse, unroll):
  ys = [a.update(shape=(length,) + a.shape) for a in jaxpr.out_avals[num_carry:]]
  return jaxpr.out_avals[:num_carry] + ys


# --- lowering ---------------------------------------------------------------------------------

def _scan_lower(ctx, *args, jaxpr, length, num_consts, num_carry, reverse, unroll):
  consts, carry, xs = split(args, num_consts, num_carry)
  ys = [_zeros(ctx, ShapedArray((length,) + a.shape, a.dtype))
        for a in jaxpr.out_avals[num_carry:]]
  unroll = max(1, min(unroll, length))
  trips, rest = divmod(length, unroll)

  def step(sub, i, consts, carry, xs, ys):
    """One iteration (``i`` a Python int when known, else the counter's value)."""
    if isinstance(i, int):
      idx = _i32(sub, length - 1 - i if reverse else i)
    else:
      idx = sub.op1("stablehlo.subtract", [_i32(sub, length - 1), i], _I32) if reverse else i
    zero = _i32(sub, 0)
    slices = [_index(sub, x, idx, zero) for x in xs]
    outs = lowering.lower_jaxpr(sub, jaxpr.jaxpr, [], consts + carry + slices)
    return outs[:num_carry], [_update(sub, buf, y, idx, zero)
                              for buf, y in zip(ys, outs[num_carry:])]

  done = 0
  if trips > 1:  # a loop of `trips` trips, `unroll` iterations each; consts ride along
    sizes = (1, num_consts, num_carry, len(xs))

    def body(sub, state):
      (i,), c, carry, x, y = split(state, *sizes)
      for _ in range(unroll):
        carry, y = step(sub, i, c, carry, x, y)
        i = sub.op1("stablehlo.add", [i, _i32(sub, 1)], _I32)
      return [i, *c, *carry, *x, *y]

    def cond(sub, state):
      return [sub.op1("stablehlo.compare", [state[0], _i32(sub, trips * unroll)],
                      ShapedArray((), np.bool_),
                      {"comparison_direction": "#stablehlo<comparison_direction LT>",
                       "compare_type": "#stablehlo<comparison_type SIGNED>"})]

    state = [_i32(ctx, 0), *consts, *carry, *xs, *ys]
    avals = [v.aval for v in state]
    out = ctx.op("stablehlo.while", state, avals,
                 regions=[ctx.region(avals, cond), ctx.region(avals, body)])
    _, _, carry, _, ys = split(out, *sizes)
    done = trips * unroll
  for i in range(done, length):  # what the loop leaves, or every iteration when unrolled
    carry, ys = step(ctx, i, consts, carry, xs, ys)
  return carry + ys


def _i32(ctx, v: int):
  return ctx.constant(np.int32(v), _I32)


def _zeros(ctx, aval):
  scalar = ctx.constant(np.zeros((), aval.dtype), ShapedArray((), aval.dtype))
  return ctx.op1("stablehlo.broadcast_in_dim", [scalar], aval,
                 {"broadcast_dimensions": i64_array(())})


def _index(ctx, x, idx, zero):
  """Slice ``idx`` of ``x`` along its leading axis."""
  a = x.aval
  sizes = (1,) + a.shape[1:]
  s = ctx.op1("stablehlo.dynamic_slice", [x, idx] + [zero] * (len(sizes) - 1),
              ShapedArray(sizes, a.dtype), {"slice_sizes": i64_array(sizes)})
  return ctx.op1("stablehlo.reshape", [s], ShapedArray(a.shape[1:], a.dtype))


def _update(ctx, buf, y, idx, zero):
  """``buf`` with its slice ``idx`` replaced by ``y``."""
  a = buf.aval
  y = ctx.op1("stablehlo.reshape", [y], ShapedArray((1,) + a.shape[1:], a.dtype))
  return ctx.op1("stablehlo.dynamic_update_slice", [buf, y, idx] + [zero] * (len(a.shape) - 1),
                 a)


# --- jvp --------------------------------------------------------------------------------------

def _scan_jvp(primals, tangents, *, jaxpr, length, num_consts, num_carry, reverse, unroll):
  consts, init, xs = split(primals, num_consts, num_carry)
  consts_t, init_t, xs_t = split(tangents, num_consts, num_carry)
  c_nz, x_nz = [type(t) is not Zero for t in consts_t], [type(t) is not Zero for t in xs_t]
  n_ys = len(jaxpr.out_avals) - num_carry
  carry_nz = fixed_point([type(t) is not Zero for t in init_t], lambda nz: jvp_jaxpr(
      jaxpr, c_nz + nz + x_nz, nz + [False] * n_ys)[1][:num_carry])
  body, body_consts, ys_nz = transformed.memo(
      ("scan-jvp", jaxpr, num_carry, tuple(c_nz), tuple(carry_nz), tuple(x_nz)),
      lambda: _jvp_body(jaxpr, c_nz, carry_nz, x_nz))
  nz = lambda ts, flags: [t for t, f in zip(ts, flags) if f]  # noqa: E731
  outs = scan_p.bind(*body_consts, *consts, *nz(consts_t, c_nz), *init,
                     *[instantiate(t) for t in nz(init_t, carry_nz)], *xs, *nz(xs_t, x_nz),
                     jaxpr=body, length=length, num_consts=len(body_consts) + num_consts +
                     sum(c_nz), num_carry=num_carry + sum(carry_nz), reverse=reverse,
                     unroll=unroll)
  carry, carry_t, ys, ys_t = split(outs, num_carry, sum(carry_nz), n_ys)
  avals = _scan_abstract_eval(jaxpr=jaxpr, length=length, num_consts=num_consts,
                              num_carry=num_carry, reverse=reverse, unroll=unroll)
  t_it = iter(carry_t + ys_t)
  return carry + ys, [next(t_it) if f else Zero(tangent_aval(a))
                      for f, a in zip(carry_nz + ys_nz, avals)]


def _jvp_body(jaxpr, c_nz, carry_nz, x_nz):
  """The body's jvp with inputs (consts, const tangents, carries, carry tangents, xs, xs
  tangents) and outputs (carries, carry tangents, ys, ys tangents)."""
  n = len(carry_nz)
  n_ys = len(jaxpr.out_avals) - n
  (j, consts), out_nz = jvp_jaxpr(jaxpr, c_nz + carry_nz + x_nz, carry_nz + [False] * n_ys)
  k, nc, nx = len(consts), len(c_nz), len(x_nz)
  p0, t0 = k, k + nc + n + nx
  nct, ncarry_t = sum(c_nz), sum(carry_nz)
  in_order = [*range(k), *range(p0, p0 + nc), *range(t0, t0 + nct),
              *range(p0 + nc, p0 + nc + n), *range(t0 + nct, t0 + nct + ncarry_t),
              *range(p0 + nc + n, t0), *range(t0 + nct + ncarry_t, len(j.in_avals))]
  o = n + n_ys
  out_order = [*range(n), *range(o, o + ncarry_t), *range(n, o),
               *range(o + ncarry_t, len(j.out_avals))]
  return permute(j, in_order, out_order), consts, out_nz[n:]


# --- partial evaluation -------------------------------------------------------------------------

def _scan_partial_eval(trace, args, params):
  unknowns = _unknowns(params, [trace.is_unknown(x) for x in args])
  if all(unknowns):
    return trace.stage(scan_p, args, params)
  with core.set_current_trace(trace.parent):
    known, operands, unknown_params, out_unknown, _ = _split_scan(args, unknowns, params)
  staged = trace.stage(scan_p, operands, unknown_params)
  k_it, u_it = iter(known), iter(staged)
  return [next(u_it) if u else next(k_it) for u in out_unknown]


def _unknowns(params, unknowns) -> list[bool]:
  """The unknown operands, with the carries that become unknown in the loop."""
  jaxpr, n_consts, n_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  c_uk, carry_uk, x_uk = split(unknowns, n_consts, n_carry)
  n_ys = len(jaxpr.out_avals) - n_carry
  return c_uk + fixed_point(carry_uk, lambda uk: partial_eval_jaxpr(
      jaxpr, c_uk + uk + x_uk, uk + [False] * n_ys, _forward(params)).out_unknown[:n_carry]) + x_uk


def _forward(params) -> list[bool]:
  """Known consts and xs are handed to the unknown scan as they are; carries get stacked."""
  n_xs = len(params["jaxpr"].in_avals) - params["num_consts"] - params["num_carry"]
  return [True] * params["num_consts"] + [False] * params["num_carry"] + [True] * n_xs


def _split_scan(args, unknowns, params):
  """Run the known part of the scan (``unknowns`` from ``_unknowns``) on the current trace.
  Returns its outputs, the unknown scan's operands and params, which outputs are unknown, and
  for each of those operands the position of the argument it is (None for residuals)."""
  jaxpr, n_consts, n_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  c_uk, carry_uk, _ = split(unknowns, n_consts, n_carry)
  n_ys = len(jaxpr.out_avals) - n_carry
  pe = partial_eval_jaxpr(jaxpr, unknowns, carry_uk + [False] * n_ys, _forward(params))
  known_body, known_consts, hoist = transformed.memo(
      ("scan-pe-known", jaxpr, tuple(unknowns), n_consts, n_carry),
      lambda: _hoisted(*hoist_consts(pe.known), c_uk.count(False), pe.out_unknown.count(False)))
  hoisted = [False] * sum(kind == "out" for kind, _ in pe.residuals) if hoist is None else \
      [not u for u in hoist.out_unknown[pe.out_unknown.count(False):]]
  body, const_res, xs_res = transformed.memo(
      ("scan-pe-unknown", jaxpr, tuple(unknowns), n_consts, n_carry, tuple(hoisted)),
      lambda: _unknown_body(pe, n_consts, n_carry, unknowns, hoisted))
  loop = dict(length=params["length"], reverse=params["reverse"], unroll=params["unroll"])
  loop_consts = [*known_consts, *[x for x, u in zip(args[:n_consts], c_uk) if not u]]
  rest = [x for x, u in zip(args[n_consts:], unknowns[n_consts:]) if not u]
  hoisted_vals = []
  if hoist is not None:  # what only the loop's constants decide is computed once, outside
    outs = eval_jaxpr(hoist.known.jaxpr, hoist.known.consts, *loop_consts)
    n_hoisted = sum(hoisted)
    hoisted_vals, computed = outs[:n_hoisted], outs[n_hoisted:]
    loop_consts = [loop_consts[i] if kind == "in" else computed[i]
                   for kind, i in hoist.residuals]
  known = scan_p.bind(*loop_consts, *rest, jaxpr=known_body, num_consts=len(loop_consts),
                      num_carry=carry_uk.count(False), **loop)
  n_known = pe.out_unknown.count(False)
  uk_c, uk_carry, uk_x = split([i for i, u in enumerate(unknowns) if u], c_uk.count(True),
                               carry_uk.count(True))
  stacked = known[n_known:]
  positions = ([None] * len(const_res) + uk_c + uk_carry + [None] * (len(stacked) + len(xs_res))
               + uk_x)
  hoisted_it = iter(hoisted_vals)
  residual = iter([args[i] if kind == "in" else next(hoisted_it) for kind, i in const_res]
                  + stacked + [args[i] for i in xs_res])
  operands = [next(residual) if i is None else args[i] for i in positions]
  unknown_params = dict(loop, jaxpr=body, num_consts=len(const_res) + len(uk_c),
                        num_carry=len(uk_carry))
  return known[:n_known], operands, unknown_params, pe.out_unknown, positions


def _hoisted(known_body: ClosedJaxpr, known_consts: list, n_loop_consts: int, n_outs: int):
  """The known loop's body with what depends only on its constants taken out, as JAX's scan
  partial evaluation does: ``(body, consts, split)``, where ``split`` (None when nothing is
  worth taking out) partially evaluates the body with the constants known: its known part runs
  once before the loop and returns the residuals that depend only on constants (passed to the
  unknown loop as constants instead of being stacked) and the loop's new constants. As in
  JAX, a callback that reads only constants moves out too (it runs once)."""
  n_kc = len(known_consts) + n_loop_consts
  n_in, n_res = len(known_body.in_avals), len(known_body.out_avals) - n_outs
  split_ = partial_eval_jaxpr(known_body, [False] * n_kc + [True] * (n_in - n_kc),
                              [True] * n_outs + [False] * n_res)
  if not split_.known.jaxpr.eqns:
    return known_body, known_consts, None
  return split_.unknown, known_consts, split_


def _unknown_body(pe, n_consts, n_carry, unknowns, hoisted):
  """The unknown part with inputs in scan order: (const residuals: forwarded consts and
  hoisted residuals, unknown consts; unknown carries; stacked residuals, xs residuals, unknown
  xs). Returns it, the const residuals (``("in", argument)``, or ``("hoisted", None)`` for the
  next hoisted value) and the arguments passed as xs residuals."""
  spec = pe.residuals
  is_hoisted = iter(hoisted)
  where = [("in" if i < n_consts else "xs") if kind == "in" else
           ("hoisted" if next(is_hoisted) else "stacked") for kind, i in spec]
  const_pos = [r for r, w in enumerate(where) if w in ("in", "hoisted")]
  xs_pos = [r for r, w in enumerate(where) if w == "xs"]
  stacked_pos = [r for r, w in enumerate(where) if w == "stacked"]
  c_uk, carry_uk, _ = split(unknowns, n_consts, n_carry)
  base, nc, ncarry = len(spec), sum(c_uk), sum(carry_uk)
  order = [*const_pos, *range(base, base + nc + ncarry), *stacked_pos, *xs_pos,
           *range(base + nc + ncarry, len(pe.unknown.in_avals))]
  # hoisted residuals come from the hoisted computation in this same order
  const_res = [spec[r] if where[r] == "in" else ("hoisted", None) for r in const_pos]
  return permute(pe.unknown, order), const_res, [spec[r][1] for r in xs_pos]


# --- transpose --------------------------------------------------------------------------------

def _scan_transpose(cts, *args, jaxpr, length, num_consts, num_carry, reverse, unroll):
  params = dict(jaxpr=jaxpr, length=length, num_consts=num_consts, num_carry=num_carry,
                reverse=reverse, unroll=unroll)
  unknowns = _unknowns(params, [is_undefined(x) for x in args])
  if not all(unknowns[num_consts:num_consts + num_carry]):
    # Known carries (a primal computation inside, e.g. the jvp of a scan in a jit): run them
    # forwards, then transpose the scan of the rest.
    _, operands, unknown_params, out_unknown, positions = _split_scan(args, unknowns, params)
    ct_ops = _scan_transpose([c for c, u in zip(cts, out_unknown) if u], *operands,
                             **unknown_params)
    out = [None] * len(args)
    for i, ct in zip(positions, ct_ops):
      if i is not None:
        out[i] = ct
    return out
  consts, init, xs = split(args, num_consts, num_carry)
  ct_carry, ct_ys = split(cts, num_carry)
  c_lin = tuple(is_undefined(x) for x in consts)
  x_lin = tuple(is_undefined(x) for x in xs)
  ys_zero = tuple(type(c) is Zero for c in ct_ys)
  # The carried cotangents keep the types they come in with (weak or not; a zero has the
  # output carry's type), as in JAX.
  ct_avals = tuple(c.aval if type(c) is Zero else core.get_aval(c) for c in ct_carry)
  body, body_consts = transformed.memo(
      ("scan-t", jaxpr, num_consts, num_carry, c_lin, x_lin, ys_zero, ct_avals),
      lambda: _transpose_body(jaxpr, num_consts, num_carry, c_lin, x_lin, ys_zero, ct_avals))
  ct_carry = [instantiate(c, a) for c, a in zip(ct_carry, ct_avals)]  # first, as JAX
  acc = [zeros_like_aval(x.aval) for x in consts if is_undefined(x)]
  outs = scan_p.bind(*body_consts, *[x for x in consts if not is_undefined(x)], *acc,
                     *ct_carry,
                     *[c for c, z in zip(ct_ys, ys_zero) if not z],
                     *[x for x in xs if not is_undefined(x)],
                     jaxpr=body, length=length, num_consts=len(body_consts) + c_lin.count(False),
                     num_carry=len(acc) + num_carry, reverse=not reverse, unroll=unroll)
  ct_consts, ct_init, ct_xs = split(outs, len(acc), num_carry)
  c_it, x_it = iter(ct_consts), iter(ct_xs)
  return ([next(c_it) if lin else None for lin in c_lin] +
          [c if is_undefined(x) else None for x, c in zip(init, ct_init)] +
          [next(x_it) if lin else None for lin in x_lin])


def _transpose_body(jaxpr, num_consts, num_carry, c_lin, x_lin, ys_zero, ct_avals):
  """One iteration backwards: (const residuals, const cotangent sums, carry cotangents, nonzero
  ys cotangents, xs residuals) -> (new sums, cotangents of the carries in, of the xs); the
  operands in JAX's order."""
  j = jaxpr.jaxpr
  cv, carry_v, xv = split(j.invars, num_consts, num_carry)
  res_c, lin_c = [v for v, f in zip(cv, c_lin) if not f], [v for v, f in zip(cv, c_lin) if f]
  res_x, lin_x = [v for v, f in zip(xv, x_lin) if not f], [v for v, f in zip(xv, x_lin) if f]
  linear = Jaxpr(res_c + res_x, lin_c + carry_v + lin_x, j.outvars, j.eqns)
  y_avals = jaxpr.out_avals[num_carry:]

  def fun(*xs):
    rc, acc, ct_carry, ct_y, rx = split(xs, len(res_c), len(lin_c), num_carry,
                                        ys_zero.count(False))
    it = iter(ct_y)
    ct_ys = [Zero(tangent_aval(a)) if z else next(it) for a, z in zip(y_avals, ys_zero)]
    in_avals = [v.aval for v in lin_c] + list(ct_avals) + [v.aval for v in lin_x]
    sums = list(acc) + [None] * (num_carry + len(lin_x))
    d_c, d_carry, d_x = split(backward_pass(linear, rc + rx, ct_carry + ct_ys, in_avals, sums),
                              len(lin_c), num_carry)
    return ([instantiate(d, v.aval) for d, v in zip(d_c, lin_c)] +
            [instantiate(d, a) for d, a in zip(d_carry, ct_avals)] +
            [instantiate(d, v.aval) for d, v in zip(d_x, lin_x)])

  avals = [v.aval for v in res_c + lin_c] + list(ct_avals)
  return trace_flat(fun, avals + [a for a, z in zip(y_avals, ys_zero) if not z]
                    + [v.aval for v in res_x])


# --- batching ---------------------------------------------------------------------------------

def _scan_batch(axis, vals, dims, *, jaxpr, length, num_consts, num_carry, reverse, unroll):
  consts, init, xs = split(vals, num_consts, num_carry)
  c_d, init_d, x_d = split(dims, num_consts, num_carry)
  slice_d = [None if d is None else 0 for d in x_d]
  at = lambda flags: [0 if f else None for f in flags]  # noqa: E731
  batch = lambda in_dims, out_at=None: batch_jaxpr(  # noqa: E731
      jaxpr, axis.size, in_dims, axis.name, axis.spmd_name, out_dims_at=out_at)
  batched = fixed_point([d is not None for d in init_d], lambda b: [
      d is not None for d in batch(c_d + at(b) + slice_d)[2][:num_carry]])
  carry_d = at(batched)
  ys_b = [d is not None for d in batch(c_d + carry_d + slice_d)[2][num_carry:]]
  body, body_consts, _ = batch(c_d + carry_d + slice_d, carry_d + at(ys_b))
  init = [matchaxis(x, d, 0, axis.size) if b else x for x, d, b in zip(init, init_d, batched)]
  xs = [x if d is None else moveaxis(x, d, 1) for x, d in zip(xs, x_d)]  # after init, as JAX
  outs = scan_p.bind(*body_consts, *consts, *init, *xs, jaxpr=body, length=length,
                     num_consts=len(body_consts) + num_consts, num_carry=num_carry,
                     reverse=reverse, unroll=unroll)
  return outs, carry_d + [1 if b else None for b in ys_b]


scan_p.def_rules(abstract_eval=_scan_abstract_eval, lower=_scan_lower, jvp=_scan_jvp,
                 partial_eval=_scan_partial_eval, transpose=_scan_transpose)
scan_p.def_rules(batch=_scan_batch, axis_names=core.refers_to_every_axis)
