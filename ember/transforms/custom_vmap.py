"""custom_vmap: a function with a user-defined batching rule.

``f = custom_vmap(fun)`` and ``f.def_vmap(rule)`` with ``rule(axis_size, in_batched, *args) ->
(out, out_batched)``: under ``vmap`` the rule runs instead of batching ``fun``'s operations; its
arguments have their batch axis (if any) in front, ``in_batched`` is a list with one pytree of
bools per argument, and ``out_batched`` says which outputs it returns batched (at the front).
The ``custom_vmap_call`` primitive carries ``fun``'s jaxpr (``call``) and the rule. Forward mode
differentiates ``fun`` and batches the derivative with the derivative of the rule; reverse mode
is refused (JAX's "Linearization failed" error), as in JAX.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.custom_batching import custom_vmap
    >>> @custom_vmap
    ... def f(x):
    ...   return jnp.sin(x)
    >>> @f.def_vmap
    ... def f_rule(axis_size, in_batched, xs):
    ...   return jnp.cos(xs), in_batched[0]
    >>> f(0.0), ember.vmap(f)(jnp.zeros(2))
    (Array(0., dtype=float32, weak_type=True), Array([1., 1.], dtype=float32))
"""
from __future__ import annotations

import functools
from typing import Callable

from ember import pytree
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import lowering
from ember.transforms import batching
from ember.transforms.ad_util import Zero, float0, instantiate
from ember.core.jaxpr import hoist_consts
from ember.transforms.staging import trace_to_jaxpr

__all__ = ["custom_vmap", "custom_vmap_call_p"]

custom_vmap_call_p = core.Primitive("custom_vmap_call", multiple_results=True)


class _Tree:
  """A treedef param, printed as JAX prints its treedefs (``PyTreeDef(...)``)."""
  __slots__ = ("treedef",)

  def __init__(self, treedef):
    self.treedef = treedef

  def __eq__(self, other):
    return type(other) is _Tree and other.treedef == self.treedef

  def __hash__(self):
    return hash(self.treedef)

  def __str__(self):
    return str(self.treedef).replace("PyTreeSpec", "PyTreeDef", 1)


class custom_vmap:
  """A function whose batching rule is ``rule(axis_size, in_batched, *args)`` (``def_vmap``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.custom_batching import custom_vmap
      >>> @custom_vmap
      ... def total(x):
      ...   return jnp.sum(x)
      >>> _ = total.def_vmap(lambda n, batched, xs: (jnp.sum(xs, axis=1) * 0, True))
      >>> ember.vmap(total)(jnp.ones((2, 3)))
      Array([0., 0.], dtype=float32)
  """

  def __init__(self, fun: Callable):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.vmap_rule = None

  def def_vmap(self, vmap_rule: Callable) -> Callable:
    self.vmap_rule = vmap_rule
    return vmap_rule

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  def __call__(self, *args, **kwargs):
    if self.vmap_rule is None:
      raise AttributeError(f"No batching rule defined for custom_vmap function "
                           f"{self.__name__} using def_vmap.")
    if kwargs:
      import inspect
      args = inspect.signature(self.fun).bind(*args, **kwargs).args
    leaves, args_tree = pytree.flatten(args)
    box = []

    def flat(*xs):
      out, tree = pytree.flatten(self.fun(*pytree.unflatten(args_tree, xs)))
      box.append(tree)
      return out

    call, consts = hoist_consts(trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves]))
    in_tree = pytree.flatten((list(consts), args))[1]
    outs = custom_vmap_call_p.bind(*consts, *leaves, call=call, rule=self.vmap_rule,
                                   in_tree=_Tree(in_tree), out_tree=_Tree(box[0]))
    return pytree.unflatten(box[0], outs)


def _split(in_tree: _Tree, flat: list):
  """The consts list and the arguments tuple of flat operands."""
  consts, args = pytree.unflatten(in_tree.treedef, flat)
  return consts, args


def _custom_vmap_impl(*args, call: ClosedJaxpr, **_):
  return eval_jaxpr(call.jaxpr, call.consts, *args)


def _custom_vmap_lower(ctx, *args, call: ClosedJaxpr, **_):
  return lowering.lower_jaxpr(ctx, call.jaxpr, [], list(args))


def _custom_vmap_batch(axis, vals, dims, *, call, rule, in_tree, out_tree):
  if all(d is batching.not_mapped for d in dims):  # nothing batched (a named vmap): no rule
    outs = custom_vmap_call_p.bind(*vals, call=call, rule=rule, in_tree=in_tree,
                                   out_tree=out_tree)
    return outs, [batching.not_mapped] * len(outs)
  n_consts = len(_split(in_tree, list(vals))[0])
  if any(d is not batching.not_mapped for d in dims[:n_consts]):
    raise NotImplementedError("custom_vmap: the function closes over a value batched by this "
                              "vmap; pass it as an argument instead.")
  vals = [v if d is batching.not_mapped else batching.moveaxis(v, d, 0)
          for v, d in zip(vals, dims)]
  _, args = _split(in_tree, vals)
  _, batched = _split(in_tree, [d is not batching.not_mapped for d in dims])
  out, out_batched = rule(axis.size, list(batched), *args)
  out_leaves, tree = pytree.flatten(out)
  if tree != out_tree.treedef:
    raise ValueError(f"structure of output returned by custom vmap rule ({rule.__name__}) "
                     f"does not match that of original custom-vmapped function "
                     f"({out_tree}): {str(_Tree(tree))}")
  try:
    flags = pytree.broadcast_prefix(out_batched, out)
  except ValueError:
    raise ValueError(f"structure of output batching indicator returned by custom vmap rule "
                     f"({rule.__name__}) does not match that of original custom-vmapped "
                     f"function's output ({out_tree}): {out_batched!r}") from None
  return out_leaves, [0 if b else batching.not_mapped for b in flags]


def _custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
  """jvp of the function, as a custom_vmap of (primals, tangents) whose rule is the jvp of
  ``rule`` (a primal whose tangent is batched is batched too, and vice versa)."""
  from ember.transforms.jvp import jvp_jaxpr
  from ember.transforms.jvp import jvp
  n_consts = len(_split(in_tree, list(primals))[0])
  closure_moves = any(type(t) is not Zero for t in tangents[:n_consts])
  tangents = [instantiate(t) if type(t) is Zero else t for t in tangents]
  (jvp_call, jvp_consts), keep = jvp_jaxpr(call, (True,) * len(primals))
  args_tree = pytree.flatten(_split(in_tree, list(primals))[1])[1]
  n_out = len(call.out_avals)

  def jvp_rule(axis_size, in_batched, ps, ts):
    if closure_moves:
      raise NotImplementedError("custom_vmap: batching the jvp of a function that closes over "
                                "differentiated values; pass them as arguments instead.")
    p_b, t_b = in_batched[0][n_consts:], in_batched[1][n_consts:]
    grow = lambda x, have, want: batching.bdim_at_front(x, None, axis_size) \
        if want and not have else x  # noqa: E731
    ps = [grow(p, pb, tb) for p, pb, tb in zip(ps[n_consts:], p_b, t_b)]
    ts = [grow(t, tb, pb) for t, pb, tb in zip(ts[n_consts:], p_b, t_b)]
    flags = pytree.unflatten(args_tree, [a or b for a, b in zip(p_b, t_b)])
    box = []

    def primal_rule(*p):
      out, out_batched = rule(axis_size, list(flags), *p)
      box.append(out_batched)
      return out
    out, t_out = jvp(primal_rule, tuple(pytree.unflatten(args_tree, ps)),
                     tuple(pytree.unflatten(args_tree, ts)))
    out_flags = pytree.broadcast_prefix(box[0], out)
    t_leaves = [t for t, k in zip(pytree.tree_leaves(t_out), keep) if k]
    return ((pytree.tree_leaves(out), t_leaves),
            (out_flags, [f for f, k in zip(out_flags, keep) if k]))

  jvp_rule.__name__ = jvp_rule.__qualname__ = f"jvp({getattr(rule, '__name__', 'rule')})"
  n_t = sum(keep)
  outs = custom_vmap_call_p.bind(
      *jvp_consts, *primals, *tangents, call=jvp_call, rule=jvp_rule,
      in_tree=_Tree(pytree.flatten((list(jvp_consts), (list(primals), tangents)))[1]),
      out_tree=_Tree(pytree.flatten(([0] * n_out, [0] * n_t))[1]))
  t_iter = iter(outs[n_out:])
  return outs[:n_out], [next(t_iter) if k else Zero(a.update(dtype=float0)) for k, a in
                        zip(keep, call.out_avals)]


custom_vmap_call_p.def_rules(abstract_eval=lambda *avals, call, **_: call.out_avals,
                             impl=_custom_vmap_impl, lower=_custom_vmap_lower,
                             jvp=_custom_vmap_jvp, batch=_custom_vmap_batch,
                             axis_names=core.refers_to_every_axis,
                             pp_params=lambda p: {"call": p["call"], "in_tree": p["in_tree"],
                                                  "out_tree": p["out_tree"],
                                                  "rule": _pp_fn(p["rule"])})
custom_vmap_call_p.def_unsupported("transpose", "its jvp differentiates the function it wraps, "
                                   "as JAX's does")


def _pp_fn(fn) -> str:
  from ember.transforms.remat_policies import pp_policy
  return pp_policy(fn)
