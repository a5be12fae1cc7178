"""``cond``: run one of several branches, chosen by an index (``lax.cond`` and ``lax.switch``).

``cond_p`` takes an int32 index, already in range (the API clamps it), then the branches'
operands, their common consts first. ``branches`` is a tuple of const-free closed jaxprs with
equal input and output types (the output's weak types are branch 0's). It lowers to
``stablehlo.case``. Rules:

- jvp: every branch's jvp, with the union of their nonzero output tangents instantiated;
- partial evaluation (reverse mode): each branch is split into known and unknown parts; the known
  cond returns every branch's residuals (branches share slots of equal type, and fill the slots
  they don't use with zeros), the unknown cond consumes them;
- transpose: each branch transposed, the index choosing as before;
- batching: with an unbatched index each branch is batched alike; a batched index evaluates
  every branch on the whole batch and selects per example (``select_n``), as JAX does, handing a
  branch the inputs of the examples it does not take through ``stop_gradient``.
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.backend import lowering
from ember.transforms.ad_util import Zero, float0, is_undefined, tangent_aval
from ember.transforms.batching import batch_jaxpr, bdim_at_front, moveaxis
from ember.transforms.linearize import transpose_jaxpr
from ember.primitives.creation import empty_like
from ember.primitives.control_flow.common import (Traced, join_consts, partial_eval_jaxpr,
                                                  jvp_jaxpr, split, trace_flat, transformed)

__all__ = ["cond_p"]

cond_p = core.Primitive("cond", multiple_results=True)
cond_p.own_vma = True  # its outputs' varying mesh axes are its branches'


def _joined(pairs) -> tuple[tuple, list]:
  """Branch jaxprs with hoisted consts, made to take all branches' consts."""
  jaxprs, consts = join_consts([Traced(j, c, None) for j, c in pairs])
  return tuple(jaxprs), consts


def _cond_abstract_eval(index, *avals, branches, branches_platforms=None):
  if index.shape != () or index.dtype != np.int32:
    raise TypeError(f"cond: the branch index must be an int32 scalar, got {index}")
  return branches[0].out_avals


def _cond_lower(ctx, index, *args, branches, branches_platforms=None):
  if branches_platforms is not None:  # lax.platform_dependent: only this platform's branch
    from ember.primitives.platform import branch_for_platform
    branches = (branches[branch_for_platform(branches_platforms)],)
  if len(branches) == 1:
    return lowering.lower_jaxpr(ctx, branches[0].jaxpr, [], list(args))
  regions = [ctx.region([], lambda sub, _, b=b: lowering.lower_jaxpr(sub, b.jaxpr, [], list(args)))
             for b in branches]
  return ctx.op("stablehlo.case", [index], list(ctx.avals_out), regions=regions)


# --- jvp --------------------------------------------------------------------------------------

def _cond_jvp(primals, tangents, *, branches, **platforms):
  index, *ops = primals
  nonzero = tuple(type(t) is not Zero for t in tangents[1:])
  jaxprs, consts, out_nz = transformed.memo(("cond-jvp", branches, nonzero),
                                            lambda: _jvp_branches(branches, nonzero))
  outs = cond_p.bind(index, *consts, *ops, *[t for t in tangents[1:] if type(t) is not Zero],
                     branches=jaxprs, **platforms)
  avals = branches[0].out_avals
  t_out = iter(outs[len(avals):])
  return outs[:len(avals)], [next(t_out) if nz else Zero(tangent_aval(a))
                             for nz, a in zip(out_nz, avals)]


def _jvp_branches(branches, nonzero):
  n_out = len(branches[0].out_avals)
  out_nz = [any(f) for f in zip(*[jvp_jaxpr(b, nonzero, [False] * n_out)[1] for b in branches])]
  jaxprs, consts = _joined([jvp_jaxpr(b, nonzero, out_nz)[0] for b in branches])
  return jaxprs, consts, out_nz


# --- partial evaluation -------------------------------------------------------------------------

def _cond_partial_eval(trace, args, params):
  branches = params["branches"]
  platforms = {k: v for k, v in params.items() if k != "branches"}  # platform_dependent's
  index, *ops = args
  if trace.is_unknown(index):
    return trace.stage(cond_p, args, params)
  unknowns = tuple(trace.is_unknown(x) for x in ops)
  s = transformed.memo(("cond-pe", branches, unknowns),
                       lambda: _split_branches(branches, unknowns))
  known_jaxprs, known_consts, unknown_jaxprs, unknown_consts, out_unknown, in_res, n_slots = s
  with core.set_current_trace(trace.parent):
    known_outs = cond_p.bind(index, *known_consts, *[x for x, u in zip(ops, unknowns) if not u],
                             branches=known_jaxprs, **platforms)
  n_known = len(known_outs) - n_slots
  residuals = [ops[i] for i in in_res] + known_outs[n_known:]
  staged = trace.stage(cond_p, [index, *unknown_consts, *residuals,
                                *[x for x, u in zip(ops, unknowns) if u]],
                       {"branches": unknown_jaxprs, **platforms})
  k_it, u_it = iter(known_outs[:n_known]), iter(staged)
  return [next(u_it) if u else next(k_it) for u in out_unknown]


def _split_branches(branches, unknowns):
  n_out = len(branches[0].out_avals)
  first = [partial_eval_jaxpr(b, unknowns, [False] * n_out).out_unknown for b in branches]
  out_unknown = [any(f) for f in zip(*first)]
  pes = [partial_eval_jaxpr(b, unknowns, out_unknown) for b in branches]
  n_known = out_unknown.count(False)
  in_res = sorted({i for p in pes for kind, i in p.residuals if kind == "in"})
  slot_avals, slots = [], []  # residuals computed in branches share slots of equal type
  for p in pes:
    taken = []
    for a in p.known.out_avals[n_known:]:
      s = next((k for k, b in enumerate(slot_avals) if b == a and k not in taken), None)
      if s is None:
        s = len(slot_avals)
        slot_avals.append(a)
      taken.append(s)
    slots.append(taken)
  op_avals = branches[0].in_avals
  known = _joined([_known_branch(p, mine, slot_avals, n_known) for p, mine in zip(pes, slots)])
  unknown = _joined([_unknown_branch(p, mine, slot_avals, in_res, op_avals, unknowns)
                     for p, mine in zip(pes, slots)])
  return (*known, *unknown, out_unknown, in_res, len(slot_avals))


def _known_branch(pe, mine, slot_avals, n_known):
  def fun(*known_ins):
    outs = eval_jaxpr(pe.known.jaxpr, pe.known.consts, *known_ins)
    empty = [empty_like(a) for a in slot_avals]  # every slot, then the branch's own (as JAX)
    filled = dict(zip(mine, outs[n_known:]))
    return outs[:n_known] + [filled.get(k, e) for k, e in enumerate(empty)]
  return trace_flat(fun, pe.known.in_avals)


def _unknown_branch(pe, mine, slot_avals, in_res, op_avals, unknowns):
  def fun(*xs):
    ins, slot_vals, unknown_ins = split(xs, len(in_res), len(slot_avals))
    res = [ins[in_res.index(i)] if kind == "in" else slot_vals[mine[i]]
           for kind, i in pe.residuals]
    return eval_jaxpr(pe.unknown.jaxpr, [], *res, *unknown_ins)
  avals = ([op_avals[i] for i in in_res] + slot_avals +
           [a for a, u in zip(op_avals, unknowns) if u])
  return trace_flat(fun, avals)


# --- transpose --------------------------------------------------------------------------------

def _cond_transpose(cts, index, *ops, branches, **platforms):
  linear = tuple(is_undefined(x) for x in ops)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, branches[0].out_avals))
  if all(ct_zero):
    return [None] + [Zero(x.aval) if lin else None for x, lin in zip(ops, linear)]
  jaxprs, consts = transformed.memo(("cond-t", branches, linear, ct_zero), lambda: _joined(
      [transpose_jaxpr(b, linear, ct_zero) for b in branches]))
  outs = cond_p.bind(index, *consts, *[x for x in ops if not is_undefined(x)],
                     *[c for c, z in zip(cts, ct_zero) if not z], branches=jaxprs, **platforms)
  it = iter(outs)
  return [None] + [next(it) if lin else None for lin in linear]


# --- batching ---------------------------------------------------------------------------------

def _cond_batch(axis, vals, dims, *, branches, **platforms):
  (index, *ops), (index_dim, *op_dims) = vals, dims
  if index_dim is not None:
    return _batch_by_select(axis, moveaxis(index, index_dim, 0), ops, op_dims, branches)
  key = ("cond-batch", branches, tuple(op_dims), axis, core.axis_env())
  jaxprs, consts, out_dims = transformed.memo(
      key, lambda: _batch_branches(axis, branches, op_dims))
  return cond_p.bind(index, *consts, *ops, branches=jaxprs, **platforms), out_dims


def _batch_branches(axis, branches, op_dims):
  batch = lambda b, at=None: batch_jaxpr(b, axis.size, op_dims, axis.name,  # noqa: E731
                                         axis.spmd_name, out_dims_at=at)
  out_dims = [0 if any(d is not None for d in ds) else None
              for ds in zip(*[batch(b)[2] for b in branches])]
  return (*_joined([batch(b, out_dims)[:2] for b in branches]), out_dims)


def _batch_by_select(axis, index, ops, op_dims, branches):
  from ember import lax
  ops = [bdim_at_front(x, d, axis.size) for x, d in zip(ops, op_dims)]
  n_out = len(branches[0].out_avals)
  results = []
  for i, branch in enumerate(branches):
    taken = lax.eq(index, np.int32(i))
    ins = [x if not dtypes.is_inexact(x.dtype) else
           lax.select_n(_per_example(taken, x), lax.stop_gradient(x), x) for x in ops]
    jaxpr, consts, _ = batch_jaxpr(branch, axis.size, [0] * len(ops), axis.name, axis.spmd_name,
                                   out_dims_at=[0] * n_out)
    results.append(eval_jaxpr(jaxpr.jaxpr, [], *consts, *ins))
  outs = [lax.select_n(_per_example(index, cases[0]), *cases) for cases in zip(*results)]
  return outs, [0] * n_out


def _per_example(pred, x):
  """``pred`` (one entry per example) broadcast over the example's elements of ``x``."""
  from ember import lax
  shape = core.get_aval(x).shape
  return pred if len(shape) == 1 else lax.broadcast_in_dim(pred, shape, (0,))


cond_p.def_rules(abstract_eval=_cond_abstract_eval, lower=_cond_lower, jvp=_cond_jvp,
                 partial_eval=_cond_partial_eval, transpose=_cond_transpose)
cond_p.def_rules(batch=_cond_batch, axis_names=core.refers_to_every_axis)
