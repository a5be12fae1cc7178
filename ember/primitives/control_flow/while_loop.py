"""``while``: apply a body while a predicate holds (``lax.while_loop``, ``fori_loop`` with dynamic
bounds).

``while_p`` takes ``cond_nconsts`` consts of ``cond_jaxpr``, ``body_nconsts`` consts of
``body_jaxpr``, then the carries: ``cond_jaxpr`` maps (its consts, carries) to a bool and
``body_jaxpr`` maps (its consts, carries) to new carries. It lowers to ``stablehlo.while`` with
the consts riding along in the loop state, as JAX lowers it. Rules:

- jvp: the body's jvp, the carries with nonzero tangents found by a fixed point; the predicate
  ignores the tangents;
- partial evaluation: the known carries run in a loop of their own and the whole loop is staged
  again for the unknown ones, so ``linearize`` (forward mode) works; its transpose raises JAX's
  error, reverse mode needing ``scan`` or a ``fori_loop`` with static bounds;
- batching: carries batched by a fixed point. When the predicate is batched every carry is, and
  ``cond_jaxpr`` returns one bool per example: the loop runs while any example's holds and the
  body keeps the carries of the finished examples (a select in the lowering), as in JAX.
"""
from __future__ import annotations

import numpy as np

from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Var
from ember.backend import lowering
from ember.backend.lowering import i64_array
from ember.primitives.reductions import binary_region
from ember.transforms.ad_util import Zero, instantiate, tangent_aval
from ember.transforms.batching import batch_jaxpr, matchaxis
from ember.core.jaxpr import hoist_consts
from ember.primitives.control_flow.common import (fixed_point, jvp_jaxpr, partial_eval_jaxpr,
                                                  permute, split, transformed)

__all__ = ["while_p"]

while_p = core.Primitive("while", multiple_results=True)
while_p.own_vma = True  # its outputs' varying mesh axes are its body's

_REVERSE_MODE_ERROR = (
    "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic "
    "start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  pred = cond_jaxpr.out_avals
  if len(pred) != 1 or pred[0].dtype != np.bool_:
    raise TypeError(f"while: cond_jaxpr must return one boolean, got {pred}")
  return body_jaxpr.out_avals


def _while_lower(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  batched_pred = bool(cond_jaxpr.out_avals[0].shape)

  def predicate(sub, state):
    cc, _, carry = split(state, cond_nconsts, body_nconsts)
    return lowering.lower_jaxpr(sub, cond_jaxpr.jaxpr, [], cc + carry)[0]

  def cond_region(sub, state):
    pred = predicate(sub, state)
    return [_any(sub, pred) if batched_pred else pred]

  def body_region(sub, state):
    cc, bc, carry = split(state, cond_nconsts, body_nconsts)
    new = lowering.lower_jaxpr(sub, body_jaxpr.jaxpr, [], bc + carry)
    if batched_pred:  # examples whose predicate is false keep their carries
      pred = predicate(sub, state)
      new = [_select(sub, pred, n, c) for n, c in zip(new, carry)]
    return cc + bc + new

  avals = [v.aval for v in args]
  outs = ctx.op("stablehlo.while", list(args), avals,
                regions=[ctx.region(avals, cond_region), ctx.region(avals, body_region)])
  return outs[cond_nconsts + body_nconsts:]


def _any(ctx, pred):
  scalar = ShapedArray((), np.bool_)
  return ctx.op1("stablehlo.reduce", [pred, ctx.constant(np.False_, scalar)], scalar,
                 {"dimensions": i64_array(range(len(pred.aval.shape)))},
                 regions=[binary_region(ctx, pred.aval, "stablehlo.or")])


def _select(ctx, pred, new, old):
  """``new`` where the example's ``pred`` holds, else ``old`` (``pred`` indexes leading axes)."""
  shape = old.aval.shape
  if pred.aval.shape != shape:
    pred = ctx.op1("stablehlo.broadcast_in_dim", [pred], ShapedArray(shape, np.bool_),
                   {"broadcast_dimensions": i64_array(range(len(pred.aval.shape)))})
  return ctx.op1("stablehlo.select", [pred, new, old], old.aval)


# --- jvp --------------------------------------------------------------------------------------

def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cc, bc, init = split(primals, cond_nconsts, body_nconsts)
  _, bc_t, init_t = split(tangents, cond_nconsts, body_nconsts)
  bc_nz = [type(t) is not Zero for t in bc_t]
  carry_nz = fixed_point([type(t) is not Zero for t in init_t],
                         lambda nz: jvp_jaxpr(body_jaxpr, bc_nz + nz, nz)[1])
  cond_j, body_j, consts = transformed.memo(
      ("while-jvp", cond_jaxpr, body_jaxpr, tuple(bc_nz), tuple(carry_nz)),
      lambda: _jvp_loop(cond_jaxpr, body_jaxpr, bc_nz, carry_nz))
  outs = while_p.bind(*cc, *consts, *bc, *[t for t, nz in zip(bc_t, bc_nz) if nz], *init,
                      *[instantiate(t) for t, nz in zip(init_t, carry_nz) if nz],
                      cond_jaxpr=cond_j, body_jaxpr=body_j, cond_nconsts=cond_nconsts,
                      body_nconsts=len(consts) + body_nconsts + sum(bc_nz))
  t_out = iter(outs[len(init):])
  return outs[:len(init)], [next(t_out) if nz else Zero(tangent_aval(core.get_aval(p)))
                            for nz, p in zip(carry_nz, init)]


def _jvp_loop(cond_jaxpr, body_jaxpr, bc_nz, carry_nz):
  """The loop over (primal, tangent) carries: the body's jvp with its inputs ordered (consts,
  const tangents, carries, carry tangents); the predicate with ignored tangent inputs."""
  (jaxpr, consts), _ = jvp_jaxpr(body_jaxpr, bc_nz + carry_nz, carry_nz)
  k, nb, n = len(consts), len(bc_nz), len(carry_nz)
  nbt = sum(bc_nz)
  order = [*range(k + nb), *range(k + nb + n, k + nb + n + nbt), *range(k + nb, k + nb + n),
           *range(k + nb + n + nbt, len(jaxpr.in_avals))]
  c = cond_jaxpr.jaxpr
  carry_avals = body_jaxpr.in_avals[nb:]
  ignored = [Var(tangent_aval(a)) for a, nz in zip(carry_avals, carry_nz) if nz]
  cond = ClosedJaxpr(Jaxpr([], c.invars + ignored, c.outvars, c.eqns), [])
  return cond, permute(jaxpr, order), consts


# --- partial evaluation and transpose ------------------------------------------------------------

def _while_partial_eval(trace, args, params):
  cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
  n_c, n_b = params["cond_nconsts"], params["body_nconsts"]
  cc_uk, bc_uk, carry_uk = split([trace.is_unknown(x) for x in args], n_c, n_b)
  carry_uk = fixed_point(carry_uk, lambda uk: partial_eval_jaxpr(body_jaxpr, bc_uk + uk,
                                                                  uk).out_unknown)
  cond_pe = partial_eval_jaxpr(cond_jaxpr, cc_uk + carry_uk, [False])
  staged = trace.stage(while_p, args, params)  # the whole loop, known carries recomputed
  if all(carry_uk) or cond_pe.out_unknown[0]:
    return staged
  cond_j, cond_consts, body_j, body_consts = transformed.memo(
      ("while-pe", cond_jaxpr, body_jaxpr, tuple(cc_uk + bc_uk + carry_uk)),
      lambda: (*hoist_consts(_first_outputs(cond_pe.known, 1)), *hoist_consts(_first_outputs(
          partial_eval_jaxpr(body_jaxpr, bc_uk + carry_uk, carry_uk).known,
          carry_uk.count(False)))))
  cc, bc, init = split(args, n_c, n_b)
  known_cc = [x for x, u in zip(cc, cc_uk) if not u]
  known_bc = [x for x, u in zip(bc, bc_uk) if not u]
  with core.set_current_trace(trace.parent):
    known = while_p.bind(*cond_consts, *known_cc, *body_consts, *known_bc,
                         *[x for x, u in zip(init, carry_uk) if not u],
                         cond_jaxpr=cond_j, body_jaxpr=body_j,
                         cond_nconsts=len(cond_consts) + len(known_cc),
                         body_nconsts=len(body_consts) + len(known_bc))
  k_it = iter(known)
  return [s if u else next(k_it) for s, u in zip(staged, carry_uk)]


def _first_outputs(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
  """The known part of a split without its residual outputs."""
  j = closed.jaxpr
  return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars[:n], j.eqns), closed.consts)


def _while_transpose(cts, *args, **params):
  raise ValueError(_REVERSE_MODE_ERROR)


# --- batching ---------------------------------------------------------------------------------

def _while_batch(axis, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cc, bc, init = split(vals, cond_nconsts, body_nconsts)
  cc_d, bc_d, init_d = split(dims, cond_nconsts, body_nconsts)
  at = lambda flags: [0 if b else None for b in flags]  # noqa: E731
  batch = lambda closed, in_dims, out_at=None: batch_jaxpr(  # noqa: E731
      closed, axis.size, in_dims, axis.name, axis.spmd_name, out_dims_at=out_at)
  batched = fixed_point([d is not None for d in init_d],
                        lambda b: [d is not None for d in batch(body_jaxpr, bc_d + at(b))[2]])
  pred_batched = batch(cond_jaxpr, cc_d + at(batched))[2][0] is not None or (
      cond_jaxpr.out_avals[0].shape and any(batched))  # an inner vmap's batched predicate
  if pred_batched:
    batched = [True] * len(init)
  carry_d = at(batched)
  cond_b, cond_consts, _ = batch(cond_jaxpr, cc_d + carry_d, [0 if pred_batched else None])
  body_b, body_consts, _ = batch(body_jaxpr, bc_d + carry_d, carry_d)
  init = [matchaxis(x, d, 0, axis.size) if b else x for x, d, b in zip(init, init_d, batched)]
  outs = while_p.bind(*cond_consts, *cc, *body_consts, *bc, *init, cond_jaxpr=cond_b,
                      body_jaxpr=body_b, cond_nconsts=len(cond_consts) + len(cc),
                      body_nconsts=len(body_consts) + len(bc))
  return outs, carry_d


while_p.def_rules(abstract_eval=_while_abstract_eval, lower=_while_lower, jvp=_while_jvp,
                  partial_eval=_while_partial_eval, transpose=_while_transpose)
while_p.def_rules(batch=_while_batch, axis_names=core.refers_to_every_axis)
