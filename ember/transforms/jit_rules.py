"""The ``jit`` call primitive and all of its rules: abstract evaluation, eager evaluation
(compiled once per jaxpr and device), lowering (the inner jaxpr inline), printing, jvp, partial
evaluation, transpose and batching. (``ember.jit``, its dispatch and its ahead-of-time stages
are transforms/jit.py.)

The transformation rules transform the inner jaxpr (once per jaxpr and pattern, cached) and bind
``jit`` again, so ``grad(jit(f))`` differentiates the staged program without running the user's
Python again.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from jaxlib import _jax

from ember import pytree
from ember.core import trace as core
from ember.core.cache import BoundedCache
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, dce, hoist_consts
from ember.backend import client as backend_client
from ember.backend import lowering
from ember.backend import spmd
from ember.backend.array import (ArrayImpl, abstractify, committed_device, device_put_value,
                                 to_buffer)
from ember.backend.compile import compile_jaxpr, donation_attrs
from ember.transforms.ad_util import Zero, float0, is_undefined, tangent_aval
from ember.transforms.batching import batch_jaxpr
from ember.transforms.jvp import jvp_jaxpr
from ember.transforms.linearize import LinearizeTrace, transpose_jaxpr
from ember.transforms.staging import trace_to_jaxpr

__all__ = ["jit_p", "jit_params", "place_args"]


# --- the call primitive ---------------------------------------------------------------------

jit_p = core.Primitive("jit", multiple_results=True)
jit_p.own_vma = True  # its outputs' varying mesh axes are its jaxpr's
jit_p.pp_alias_jaxpr = True  # the inner jaxpr's binders print with the caller's names


def jit_params(jaxpr: ClosedJaxpr, name: str, donated_invars=None, keep_unused=False) -> dict:
  """The parameters of a ``jit`` equation: its jaxpr and name, which of its inputs are donated
  (their buffers may be reused for outputs, and are deleted after an eager call) and whether
  unused inputs are kept (``jit(keep_unused=)``, which decides whether they are donated)."""
  if donated_invars is None:
    donated_invars = (False,) * len(jaxpr.in_avals)
  return {"jaxpr": jaxpr, "name": name, "donated_invars": tuple(donated_invars),
          "keep_unused": bool(keep_unused)}


def _jit_abstract_eval(*avals, jaxpr: ClosedJaxpr, **_):
  return jaxpr.out_avals


_jit_executables = BoundedCache(2048)


def _jit_impl(*args, jaxpr: ClosedJaxpr, name: str, donated_invars, keep_unused):
  mesh = spmd.find_mesh(jaxpr)
  if mesh is not None:  # a program over a mesh (a shard_map inside, e.g. a transposed one)
    mesh = spmd.mesh_of_args(args, mesh, f"jit of {name}")
    return spmd.run_spmd(jaxpr, args, mesh, spmd.arg_shardings(args, mesh, f"jit of {name}"),
                         [None] * len(jaxpr.out_avals), f"jit_{name}")
  avals = [x.aval if type(x) is ArrayImpl else abstractify(x) for x in args]
  device = committed_device(args, f"jit of {name}")
  committed = device is not None
  if device is None:
    device = backend_client.default_device()
  donated = donated_invars if any(donated_invars) else None
  key = (jaxpr, device, committed, donated, keep_unused)
  exe = _jit_executables.get(key)
  if exe is None:
    attrs = donation_attrs(jaxpr.jaxpr, donated, keep_unused)
    exe = compile_jaxpr(jaxpr, device, f"jit_{name}", committed, attrs)
    _jit_executables[key] = exe
  try:
    return exe.run(place_args(args, avals, device, donated))
  except _JaxRuntimeError:
    _raise_if_deleted(args)
    raise


def place_args(args, avals, device, donated=None) -> list:
  """The arguments of a program on ``device``. A donated one made from host data gets a buffer
  of its own: ``to_buffer`` shares the buffers of scalars, which donation would delete."""
  if donated is None:
    return [to_buffer(x, a, device) for x, a in zip(args, avals)]
  return [device_put_value(x, a, device) if d and type(x) is not ArrayImpl else
          to_buffer(x, a, device) for x, a, d in zip(args, avals, donated)]


def _jit_lower(ctx, *args, jaxpr: ClosedJaxpr, **_):
  consts = [ctx.constant(c, v.aval) for c, v in zip(jaxpr.consts, jaxpr.jaxpr.constvars)]
  return lowering.lower_jaxpr(ctx, jaxpr.jaxpr, consts, list(args))


def _jit_pp_params(params: dict) -> dict:
  """As JAX prints them: the name, then the rest in name order, defaults left out."""
  out = {"name": params["name"]}
  if any(params["donated_invars"]):
    out["donated_invars"] = params["donated_invars"]
  out["jaxpr"] = params["jaxpr"]
  if params["keep_unused"]:
    out["keep_unused"] = True
  return out




_JaxRuntimeError = _jax.JaxRuntimeError


def _raise_if_deleted(tree) -> None:
  """A clear error for a deleted (e.g. donated) argument, instead of XLA's shard-count one."""
  for i, leaf in enumerate(pytree.tree_leaves(tree)):
    if type(leaf) is ArrayImpl and leaf.is_deleted():
      raise RuntimeError(f"Array has been deleted with shape={leaf.aval.str_short(False)} "
                         f"(argument leaf {i}); it was donated or deleted. Pass a live array.")



# jaxprs transformed by jit's rules (and checkpoint's), by jaxpr and what the rule was given
transformed = BoundedCache(1024)


# --- jvp -------------------------------------------------------------------------------------

def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str, donated_invars,
             keep_unused):
  nonzero = tuple(type(t) is not Zero for t in tangents)
  (jvp_closed, consts), keep = transformed.memo(("jvp", jaxpr, nonzero),
                                                lambda: jvp_jaxpr(jaxpr, nonzero))
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
  return transformed.memo(key, lambda: _partial_eval(closed, unknowns, instantiate_out, forward))


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

def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str, keep_unused=False, **_):
  linear = tuple(is_undefined(x) for x in args)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, jaxpr.out_avals))
  if all(ct_zero):
    return [Zero(x.aval) if is_undefined(x) else None for x in args]
  t_closed, consts = transformed.memo(("t", jaxpr, linear, ct_zero),
                                      lambda: transpose_jaxpr(jaxpr, linear, ct_zero))
  outs = jit_p.bind(*consts, *[x for x in args if not is_undefined(x)],
                    *[c for c, z in zip(cts, ct_zero) if not z],
                    **jit_params(t_closed, name, keep_unused=keep_unused))
  it = iter(outs)
  return [next(it) if lin else None for lin in linear]




# --- batching ----------------------------------------------------------------------------------

def _jit_batch(axis, vals, dims, *, jaxpr: ClosedJaxpr, name: str, donated_invars,
               keep_unused):
  batched, consts, out_dims = batch_jaxpr(jaxpr, axis.size, dims, axis.name, axis.spmd_name)
  donated = (False,) * len(consts) + donated_invars
  outs = jit_p.bind(*consts, *vals, **jit_params(batched, name, donated, keep_unused))
  return outs, out_dims


jit_p.def_rules(abstract_eval=_jit_abstract_eval, impl=_jit_impl, lower=_jit_lower,
                pp_params=_jit_pp_params, jvp=_jit_jvp, partial_eval=_jit_partial_eval,
                transpose=_jit_transpose, batch=_jit_batch, axis_names=core.refers_to_every_axis)
