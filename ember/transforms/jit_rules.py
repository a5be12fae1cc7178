"""The autodiff rules of the ``jit`` call primitive: jvp, partial evaluation and transpose.

Each transforms the inner jaxpr (once per jaxpr and pattern, cached) and binds ``jit`` again, so
``grad(jit(f))`` differentiates the staged program without running the user's Python again.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, dce
from ember.backend.compile import LRUCache
from ember.transforms.ad_util import Zero, float0, instantiate, is_undefined, tangent_aval
from ember.transforms.jit import jit_p, jit_params, hoist_consts
from ember.transforms.batching import batch_jaxpr
from ember.transforms.jvp import jvp_flat
from ember.transforms.linearize import LinearizeTrace, backward_pass
from ember.transforms.staging import trace_to_jaxpr

__all__ = []

_cache = LRUCache(1024)


def _cached(key, build):
  out = _cache.get(key)
  if out is None:
    out = _cache[key] = build()
  return out


# --- jvp -------------------------------------------------------------------------------------

def _jvp_jaxpr(closed: ClosedJaxpr, nonzero: tuple[bool, ...]):
  """A jaxpr of (primals, nonzero tangents) -> (primals_out, float tangents_out)."""
  in_avals = closed.in_avals
  t_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
  out_t_avals = [tangent_aval(a) for a in closed.out_avals]
  keep = [a.dtype != float0 for a in out_t_avals]

  def fun(*xs):
    primals, ts = xs[:len(in_avals)], iter(xs[len(in_avals):])
    tangents = [next(ts) if nz else Zero(tangent_aval(a)) for a, nz in zip(in_avals, nonzero)]
    p_out, t_out = jvp_flat(lambda *a: eval_jaxpr(closed.jaxpr, closed.consts, *a),
                            primals, tangents)
    t_out = [instantiate(t, a) for t, a, k in zip(t_out, out_t_avals, keep) if k]
    return list(p_out) + t_out

  jvp_closed = trace_to_jaxpr(fun, list(in_avals) + t_avals)
  return hoist_consts(jvp_closed), keep


def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str, donated_invars,
             keep_unused):
  nonzero = tuple(type(t) is not Zero for t in tangents)
  (jvp_closed, consts), keep = _cached(("jvp", jaxpr, nonzero),
                                       lambda: _jvp_jaxpr(jaxpr, nonzero))
  # As in JAX, a donated primal's tangent is donated too.
  donated = ((False,) * len(consts) + donated_invars
             + tuple(d for d, nz in zip(donated_invars, nonzero) if nz))
  outs = jit_p.bind(*consts, *primals, *[t for t in tangents if type(t) is not Zero],
                    **jit_params(jvp_closed, name, donated, keep_unused))
  n = len(jaxpr.out_avals)
  t_iter = iter(outs[n:])
  t_out = [next(t_iter) if k else Zero(tangent_aval(a))
           for k, a in zip(keep, jaxpr.out_avals)]
  return outs[:n], t_out


# --- partial evaluation ------------------------------------------------------------------------

class PartialEval(NamedTuple):
  known: ClosedJaxpr      # known inputs -> known outputs + computed residuals (may have consts)
  unknown: ClosedJaxpr    # residuals + unknown inputs -> unknown outputs (const-free)
  out_unknown: list
  residuals: list         # per residual: ("in", i) the jaxpr's input i, or ("out", k)


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns: Sequence[bool],
                       instantiate_out: Sequence[bool], forward: Sequence[bool] | None = None
                       ) -> PartialEval:
  """Split a const-free jaxpr by which inputs are unknown (cached).

  The jaxpr is evaluated under a ``LinearizeTrace`` whose parent records the known part, so
  primitives carrying jaxprs (cond, scan, jit, checkpoint...) split themselves by their own
  ``partial_eval`` rules. Outputs in ``instantiate_out`` are unknown even when known. A known
  input the unknown part needs is passed to it directly (``("in", i)``) when ``forward[i]``
  (default: all); otherwise the known part returns it (a scan's carry must be stacked).
  """
  key = ("pe", closed, tuple(unknowns), tuple(instantiate_out),
         None if forward is None else tuple(forward))
  return _cached(key, lambda: _partial_eval(closed, unknowns, instantiate_out, forward))


def _partial_eval(closed, unknowns, instantiate_out, forward):
  in_avals = closed.in_avals
  known_pos = [i for i, u in enumerate(unknowns) if not u]
  box = []

  def known_fun(*known_ins):
    lin = LinearizeTrace(core.current_trace())
    try:
      it = iter(known_ins)
      ins = [lin.new_arg(a) if u else next(it) for a, u in zip(in_avals, unknowns)]
      with core.set_current_trace(lin):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
      out_unknown = [lin.is_unknown(o) or bool(inst) for o, inst in zip(outs, instantiate_out)]
      unknown = lin.to_jaxpr([o for o, u in zip(outs, out_unknown) if u])
    finally:
      lin.alive = False
    unknown, residuals = _without_dead_code(unknown)
    position = {id(x): i for i, x in zip(known_pos, known_ins)}
    spec, computed = [], []
    for c in residuals:
      i = position.get(id(c))
      if i is not None and (forward is None or forward[i]):
        spec.append(("in", i))
      else:
        spec.append(("out", len(computed)))
        computed.append(c)
    box.append((unknown, out_unknown, spec))
    return [o for o, u in zip(outs, out_unknown) if not u] + computed

  known = trace_to_jaxpr(known_fun, [in_avals[i] for i in known_pos])
  j = known.jaxpr  # what only dead code (or dropped residuals) needed goes, as in JAX
  known = ClosedJaxpr(dce(j, [True] * len(j.outvars), [True] * len(j.invars))[0], known.consts)
  unknown, out_unknown, spec = box[0]
  return PartialEval(known, unknown, out_unknown, spec)


def _without_dead_code(unknown: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """The unknown part (residuals as leading inputs) without equations no output needs, and the
  residuals it still reads: the known part then neither saves nor computes the others."""
  hoisted, residuals = hoist_consts(unknown)
  j = hoisted.jaxpr
  keep = [False] * len(residuals) + [True] * (len(j.invars) - len(residuals))
  pruned, used = dce(j, [True] * len(j.outvars), keep)
  return ClosedJaxpr(pruned, []), [r for r, u in zip(residuals, used) if u]


def _jit_partial_eval(trace, args, params):
  jaxpr, name, donated = params["jaxpr"], params["name"], params["donated_invars"]
  keep_unused = params["keep_unused"]
  unknowns = tuple(trace.is_unknown(x) for x in args)
  known, unknown, out_unknown, res_spec = partial_eval_jaxpr(jaxpr, unknowns,
                                                             [False] * len(jaxpr.out_avals))
  known, known_consts = hoist_consts(known)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  # Known inputs the unknown part reads again are not donated (JAX's would be deleted by then).
  forwarded = {i for kind, i in res_spec if kind == "in"}
  known_donated = (False,) * len(known_consts) + tuple(
      d and i not in forwarded for i, (d, u) in enumerate(zip(donated, unknowns)) if not u)
  with core.set_current_trace(trace.parent):
    known_outs = jit_p.bind(*known_consts, *known_args,
                            **jit_params(known, name, known_donated, keep_unused))
  n_computed = sum(kind == "out" for kind, _ in res_spec)
  n_known = len(known_outs) - n_computed
  computed = known_outs[n_known:]
  residuals = [args[i] if kind == "in" else computed[i] for kind, i in res_spec]
  unknown_donated = (False,) * len(residuals) + tuple(d for d, u in zip(donated, unknowns) if u)
  staged = trace.stage(jit_p, [*residuals, *[x for x, u in zip(args, unknowns) if u]],
                       jit_params(unknown, name, unknown_donated, keep_unused))
  k_iter, u_iter = iter(known_outs[:n_known]), iter(staged)
  return [next(u_iter) if u else next(k_iter) for u in out_unknown]


# --- transpose -------------------------------------------------------------------------------

def _transpose_jaxpr(closed: ClosedJaxpr, linear: tuple[bool, ...], ct_zero: tuple[bool, ...]):
  """A jaxpr of (residuals, nonzero cotangents) -> cotangents of the linear inputs."""
  j = closed.jaxpr
  res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
  lin_vars = [v for v, lin in zip(j.invars, linear) if lin]
  as_linear = Jaxpr(res_vars, lin_vars, j.outvars, j.eqns)
  res_avals = [v.aval for v in res_vars]
  ct_avals = [a for a, z in zip(closed.out_avals, ct_zero) if not z]

  def fun(*xs):
    res, cts = xs[:len(res_avals)], iter(xs[len(res_avals):])
    ct_all = [Zero(tangent_aval(a)) if z else next(cts)
              for a, z in zip(closed.out_avals, ct_zero)]
    ins = backward_pass(as_linear, res, ct_all)
    return [instantiate(c, v.aval) for c, v in zip(ins, lin_vars)]

  t_closed = trace_to_jaxpr(fun, res_avals + ct_avals)
  return hoist_consts(t_closed)


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str, keep_unused=False, **_):
  linear = tuple(is_undefined(x) for x in args)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, jaxpr.out_avals))
  if all(ct_zero):
    return [Zero(x.aval) if is_undefined(x) else None for x in args]
  t_closed, consts = _cached(("t", jaxpr, linear, ct_zero),
                             lambda: _transpose_jaxpr(jaxpr, linear, ct_zero))
  outs = jit_p.bind(*consts, *[x for x in args if not is_undefined(x)],
                    *[c for c, z in zip(cts, ct_zero) if not z],
                    **jit_params(t_closed, name, keep_unused=keep_unused))
  it = iter(outs)
  return [next(it) if lin else None for lin in linear]


jit_p.def_rules(jvp=_jit_jvp, partial_eval=_jit_partial_eval, transpose=_jit_transpose)


# --- batching ----------------------------------------------------------------------------------

def _jit_batch(axis, vals, dims, *, jaxpr: ClosedJaxpr, name: str, donated_invars,
               keep_unused):
  batched, consts, out_dims = batch_jaxpr(jaxpr, axis.size, dims, axis.name, axis.spmd_name)
  donated = (False,) * len(consts) + donated_invars
  outs = jit_p.bind(*consts, *vals, **jit_params(batched, name, donated, keep_unused))
  return outs, out_dims


jit_p.batch_with_axis = _jit_batch
