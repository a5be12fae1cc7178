"""checkpoint (remat): reverse mode recomputes a function's intermediates in the backward pass
instead of storing them, or saves those a policy names (transforms/remat_policies.py).

``checkpoint(f)`` stages ``f`` as a ``remat2`` equation carrying its jaxpr. Its rules: jvp
differentiates the jaxpr and rebinds; partial evaluation computes the known outputs inline and
stages one differentiated ``remat2`` that recomputes, from the primal inputs, only what the
backward pass reads (as JAX's); transpose runs that recomputation, then the backward pass.

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.grad(ember.checkpoint(lambda x: jnp.sin(x) * x))(1.0)
    Array(1.3817732, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools
from typing import Callable

from ember import pytree
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, dce, hoist_consts
from ember.backend import lowering
from ember.transforms import batching
from ember.transforms.ad_util import Zero, float0, instantiate, tangent_aval
from ember.transforms.custom import _trace_flat
from ember.transforms.staging import trace_to_jaxpr

__all__ = ["checkpoint", "remat", "remat_p"]


# --- checkpoint ---------------------------------------------------------------------------------

class _Deprecated:
  def __repr__(self):
    return "Deprecated"


_DEPRECATED = _Deprecated()


def _refuse_concrete(concrete) -> None:
  if concrete is not _DEPRECATED:  # JAX's message, for any value given
    raise NotImplementedError(
        "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and removed in "
        "JAX v0.10.0. In its place please use `static_argnums`; for details refer to "
        "https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html.")


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy=None, static_argnums=(),
               static_argnames=(), concrete=_DEPRECATED):
  """``fun``, but reverse mode recomputes its intermediates in the backward pass instead of
  storing them (the residuals are only ``fun``'s inputs).

  ``static_argnames`` is accepted as JAX 0.10.2's checkpoint accepts it, and as there keyword
  arguments are traced whatever it names (pass static values positionally, with
  ``static_argnums``). ``concrete`` was removed in JAX 0.10: passing it raises JAX's error.

  ``policy`` (see ``ember.checkpoint_policies``) chooses intermediates to save as well: it is
  called as ``policy(prim, *in_avals, **params)`` for each primal equation whose result the
  backward pass needs, and what it refuses is recomputed.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.grad(ember.checkpoint(lambda x: jnp.sin(x) * x))(1.0)
      Array(1.3817732, dtype=float32, weak_type=True)
  """
  _refuse_concrete(concrete)
  del static_argnames  # JAX 0.10.2 traces keyword arguments whatever it names (see above)
  static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    nums = {i % len(args) for i in static if -len(args) <= i < len(args)}
    if len(nums) != len(static):
      raise ValueError(f"the `static_argnums` argument to `checkpoint` / `remat` can only take "
                       f"integer values greater than or equal to `-len(args)` and less than "
                       f"`len(args)`, but got {static!r}, while `len(args)` = {len(args)}")
    dyn = [a for i, a in enumerate(args) if i not in nums]

    def with_static(*d, **kw):  # static arguments reach ``fun`` as the Python values given
      it = iter(d)
      return fun(*[args[i] if i in nums else next(it) for i in range(len(args))], **kw)

    # keyword arguments are traced like positional ones, as in JAX
    closed, consts, leaves, in_tree, out_tree = _trace_flat(
        lambda d, kw: with_static(*d, **kw), (tuple(dyn), kwargs), {}, "checkpoint")
    outs = remat_p.bind(*consts, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                        differentiated=False, policy=policy)
    return pytree.unflatten(out_tree, outs)
  return wrapped


def remat(fun: Callable, *, prevent_cse: bool = True, policy=None, static_argnums=(),
          concrete=_DEPRECATED):
  """``checkpoint``'s other name (JAX's ``remat``, which has no ``static_argnames``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.grad(ember.remat(lambda x: jnp.sin(x) * x))(1.0)
      Array(1.3817732, dtype=float32, weak_type=True)
  """
  return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums,
                    concrete=concrete)


remat_p = core.Primitive("remat2", multiple_results=True)
remat_p.own_vma = True


def _remat_impl(*args, jaxpr, **_):
  return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


def _remat_lower(ctx, *args, jaxpr, **_):
  return lowering.lower_jaxpr(ctx, jaxpr.jaxpr, [], list(args))


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
  from ember.transforms.jit_rules import transformed
  from ember.transforms.jvp import jvp_jaxpr
  nonzero = tuple(type(t) is not Zero for t in tangents)
  (jvp_closed, consts), keep = transformed.memo(("remat-jvp", jaxpr, nonzero),
                                                lambda: jvp_jaxpr(jaxpr, nonzero))
  outs = remat_p.bind(*consts, *primals, *[t for t in tangents if type(t) is not Zero],
                      jaxpr=jvp_closed, prevent_cse=prevent_cse, differentiated=True,
                      policy=policy)
  n = len(jaxpr.out_avals)
  t_iter = iter(outs[n:])
  return outs[:n], [next(t_iter) if k else Zero(tangent_aval(a))
                    for k, a in zip(keep, jaxpr.out_avals)]


def _remat_partial_eval(trace, args, params):
  """Known outputs are computed now; unknown ones are staged with every input, so the backward
  pass recomputes the primal intermediates instead of keeping them as residuals. With a policy,
  the staged part also takes the intermediates the policy saves (``remat_policies``)."""
  from ember.transforms.jit_rules import partial_eval_jaxpr, transformed
  from ember.transforms.remat_policies import split_by_policy
  jaxpr = params["jaxpr"]
  unknowns = tuple(trace.is_unknown(x) for x in args)
  known, unknown, out_unknown, res_spec = partial_eval_jaxpr(jaxpr, unknowns,
                                                             [False] * len(jaxpr.out_avals))
  known, known_consts = hoist_consts(known)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  n_known = sum(not u for u in out_unknown)
  policy = params["policy"]
  if policy is not None:  # the known part returns what the policy saves; the rest is redone
    split = lambda: split_by_policy(known, n_known, unknown, res_spec,  # noqa: E731
                                    [i for i, u in enumerate(unknowns) if not u], policy)
    try:
      key = hash(("remat-policy", jaxpr, unknowns, policy))
    except TypeError:  # an unhashable policy: split every time
      key = None
    known, staged_jaxpr, consts, keep = split() if key is None else transformed.memo(
        ("remat-policy", jaxpr, unknowns, policy), split)
  if policy is None:  # as JAX: the known outputs are computed here, inline; nothing is saved
    j = known.jaxpr
    n_out = len(j.outvars)
    j = dce(j, [True] * n_known + [False] * (n_out - n_known), [True] * len(j.invars))[0]
    with core.set_current_trace(trace.parent):
      known_outs = eval_jaxpr(j, [], *known_consts, *known_args)
  else:
    with core.set_current_trace(trace.parent):
      known_outs = remat_p.bind(*known_consts, *known_args,
                                jaxpr=known, **{k: v for k, v in params.items() if k != "jaxpr"})
  if policy is None:
    staged = trace.stage(remat_p, list(args), params)
    staged = [s for s, u in zip(staged, out_unknown) if u]
  else:
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    ins = [*consts, *known_consts, *known_args, *known_outs[n_known:], *unknown_args]
    staged = trace.stage(remat_p, [x for x, k in zip(ins, keep) if k],
                         dict(params, jaxpr=staged_jaxpr))
  k_iter, s_iter = iter(known_outs[:n_known]), iter(staged)
  return [next(s_iter) if u else next(k_iter) for u in out_unknown]


def _remat_transpose(cts, *args, jaxpr, **params):
  """One ``remat2`` (differentiated) that recomputes the primal part from the primal inputs and
  transposes the linear part, as JAX's. Splitting first matters: a call in the body (a ``jit``,
  ``jnp.where``...) returns primal and tangent values from one equation, which the backward
  pass would otherwise take as linear together."""
  from ember.transforms.jit_rules import transformed
  from ember.transforms.ad_util import is_undefined
  linear = tuple(is_undefined(x) for x in args)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, jaxpr.out_avals))
  if all(ct_zero):
    return [Zero(x.aval) if lin else None for x, lin in zip(args, linear)]
  t_closed, consts = transformed.memo(("remat-t", jaxpr, linear, ct_zero),
                                      lambda: _remat_transpose_jaxpr(jaxpr, linear, ct_zero))
  outs = remat_p.bind(*consts, *[x for x in args if not is_undefined(x)],
                      *[c for c, z in zip(cts, ct_zero) if not z], jaxpr=t_closed,
                      **dict(params, differentiated=True))
  it = iter(outs)
  return [next(it) if lin else None for lin in linear]


def _remat_transpose_jaxpr(jaxpr: ClosedJaxpr, linear, ct_zero):
  """(primal inputs, nonzero cotangents) -> cotangents of the linear inputs, recomputing the
  residuals inside."""
  from ember.transforms.jit_rules import partial_eval_jaxpr
  from ember.transforms.linearize import backward_pass
  pe = partial_eval_jaxpr(jaxpr, linear, [False] * len(jaxpr.out_avals))
  known, known_consts = hoist_consts(pe.known)
  n_computed = sum(kind == "out" for kind, _ in pe.residuals)
  k = known.jaxpr  # only what the residuals need is recomputed
  k = dce(k, [False] * (len(k.outvars) - n_computed) + [True] * n_computed,
          [True] * len(k.invars))[0]
  u = pe.unknown.jaxpr
  n_res = len(pe.residuals)
  as_linear = Jaxpr(u.invars[:n_res], u.invars[n_res:], u.outvars, u.eqns)
  nonlin_avals = [a for a, lin in zip(jaxpr.in_avals, linear) if not lin]
  position = {i: n for n, i in enumerate(i for i, lin in enumerate(linear) if not lin)}

  def fun(*xs):
    nonlin, cts = xs[:len(nonlin_avals)], iter(xs[len(nonlin_avals):])
    computed = eval_jaxpr(k, [], *known_consts, *nonlin)
    residuals = [nonlin[position[i]] if kind == "in" else computed[i] for kind, i in pe.residuals]
    ct_all = []
    for a, z, uk in zip(jaxpr.out_avals, ct_zero, pe.out_unknown):
      c = Zero(tangent_aval(a)) if z else next(cts)
      if uk:
        ct_all.append(c)
    ins = backward_pass(as_linear, residuals, ct_all)
    return [instantiate(c, v.aval) for c, v in zip(ins, as_linear.invars)]

  t_closed = trace_to_jaxpr(fun, nonlin_avals + [tangent_aval(a) for a, z in
                                                 zip(jaxpr.out_avals, ct_zero) if not z])
  return hoist_consts(t_closed)


def _remat_pp_params(params: dict) -> dict:
  from ember.transforms.remat_policies import pp_policy
  return dict(sorted(params.items()), policy=pp_policy(params["policy"]))


remat_p.def_rules(pp_params=_remat_pp_params)
remat_p.def_rules(abstract_eval=lambda *avals, jaxpr, **_: jaxpr.out_avals, impl=_remat_impl,
                  lower=_remat_lower, jvp=_remat_jvp, partial_eval=_remat_partial_eval,
                  transpose=_remat_transpose)


def _remat_batch(axis, vals, dims, *, jaxpr, **params):
  batched, consts, out_dims = batching.batch_jaxpr(jaxpr, axis.size, dims, axis.name,
                                                   axis.spmd_name)
  return remat_p.bind(*consts, *vals, jaxpr=batched, **params), out_dims


remat_p.def_rules(batch=_remat_batch, axis_names=core.refers_to_every_axis)
