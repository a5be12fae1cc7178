"""Rematerialization policies: which intermediates of a ``checkpoint`` reverse mode saves.

A policy is called as ``policy(prim, *in_avals, **params)`` for each primal equation of the
checkpointed function whose result the backward pass needs, and answers ``True``/``Saveable``
(keep the result as a residual) or ``False``/``Recompute`` (recompute it in the backward pass
from what is saved). Without a policy only the function's inputs are saved.
``checkpoint_name(x, name)`` marks a value with the ``name`` primitive, which the name-based
policies look for.

``split_by_policy`` applies a policy to ``checkpoint``'s partial evaluation: of the residuals
the everything-saved split computes, those whose producing equation the policy refuses are
recomputed at the start of the staged (backward) part instead. A residual produced inside a
``jit`` of the body is judged by the equation producing it inside that jit.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.ad_checkpoint import checkpoint_policies as cp
    >>> f = ember.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=cp.everything_saveable)
    >>> ember.grad(f)(1.0)
    Array(0.36003947, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import re
import types
from typing import Callable

from ember import pytree
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Var

__all__ = ["checkpoint_policies", "checkpoint_name", "name_p", "Saveable", "Recompute",
           "Offloadable", "split_by_policy", "pp_policy"]


# --- what a policy answers ------------------------------------------------------------------

class _Answer:
  __slots__ = ("_name",)

  def __init__(self, name: str):
    self._name = name

  def __repr__(self):
    return self._name


Saveable = _Answer("Saveable")    # keep the value as a residual
Recompute = _Answer("Recompute")  # recompute it in the backward pass


class Offloadable:
  """A policy's answer: save the value in another memory space (``src`` to ``dst``). ember has
  one memory space per CPU device, so a checkpoint whose policy answers this raises
  ``NotImplementedError``.

  Example:
      >>> from ember.ad_checkpoint import Offloadable
      >>> Offloadable("device", "pinned_host")
      Offloadable(src='device', dst='pinned_host')
  """
  __slots__ = ("src", "dst")

  def __init__(self, src: str, dst: str):
    self.src, self.dst = src, dst

  def __repr__(self):
    return f"Offloadable(src={self.src!r}, dst={self.dst!r})"


def _saved(answer, prim) -> bool:
  if answer is True or answer is Saveable:
    return True
  if answer is False or answer is Recompute:
    return False
  if isinstance(answer, Offloadable):
    raise NotImplementedError(
        f"checkpoint policy offloads the result of {prim.name} to memory "
        f"{answer.dst!r}: ember's CPU devices have a single memory space, so offloading "
        "policies are not implemented; use a policy that saves or recomputes.")
  raise TypeError(
      "Value returned by a remat policy should be a bool or `ad_checkpoint.Recompute`, "
      "`ad_checkpoint.Saveable` or `ad_checkpoint.Offloadable(...)`. Got "
      f"{answer} of type {type(answer)}.")


# --- the policies -----------------------------------------------------------------------------

def everything_saveable(*_, **__) -> bool:
  """Save every intermediate the backward pass needs (no recomputation)."""
  return True


def nothing_saveable(*_, **__) -> bool:
  """Save nothing but the checkpointed function's inputs (recompute the rest)."""
  return False


class DotsSaveable:
  """Save the results of ``dot_general`` (only those without batch dimensions when
  ``only_if_no_batch_dims``); recompute everything else."""
  __slots__ = ("only_if_no_batch_dims",)

  def __init__(self, only_if_no_batch_dims: bool = False):
    self.only_if_no_batch_dims = only_if_no_batch_dims

  def __call__(self, prim, *_, **params) -> bool:
    if prim.name != "dot_general":
      return False
    if not self.only_if_no_batch_dims:
      return True
    (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
    return not lhs_b and not rhs_b

  def __eq__(self, other):
    return type(other) is DotsSaveable and other.only_if_no_batch_dims == \
        self.only_if_no_batch_dims

  def __hash__(self):
    return hash((DotsSaveable, self.only_if_no_batch_dims))

  def __repr__(self):
    return f"DotsSaveable(only_if_no_batch_dims={self.only_if_no_batch_dims})"


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)


class _NamePolicy:
  """Save values named by ``checkpoint_name`` according to a set of names."""
  __slots__ = ("_names", "_field")

  def __init__(self, names, field: str):
    self._names, self._field = frozenset(names), field

  def __eq__(self, other):
    return type(other) is type(self) and other._names == self._names

  def __hash__(self):
    return hash((type(self), self._names))

  def __repr__(self):
    return f"{type(self).__name__}({self._field}={self._names})"


class SaveOnlyTheseNames(_NamePolicy):
  def __call__(self, prim, *_, **params) -> bool:
    return prim.name == "name" and params["name"] in self._names


class SaveAnyNamesButThese(_NamePolicy):
  def __call__(self, prim, *_, **params) -> bool:
    return prim.name == "name" and params["name"] not in self._names


def save_only_these_names(*names_which_can_be_saved) -> Callable:
  """Save only the values named (``checkpoint_name``) by one of these names."""
  return SaveOnlyTheseNames(names_which_can_be_saved, "saveable_names")


def save_any_names_but_these(*names_not_to_save) -> Callable:
  """Save every named value except those named by one of these names."""
  return SaveAnyNamesButThese(names_not_to_save, "names")


def save_anything_except_these_names(*names_not_to_save) -> Callable:
  """Save everything except the values named by one of these names."""
  names = frozenset(names_not_to_save)
  return lambda prim, *_, **params: not (prim.name == "name" and params["name"] in names)


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
  """Save what either policy saves."""
  def policy(prim, *args, **params):
    return _saved(policy_1(prim, *args, **params), prim) or \
        _saved(policy_2(prim, *args, **params), prim)
  return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst) -> Callable:
  """Offload unbatched ``dot_general`` results from ``offload_src`` to ``offload_dst`` memory
  (refused by ember's checkpoint: see ``Offloadable``)."""
  def policy(prim, *_, **params):
    if DotsSaveable(True)(prim, **params):
      return Offloadable(offload_src, offload_dst)
    return Recompute
  return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst) -> Callable:
  """Save the values of the first names, offload those of the second (refused by ember's
  checkpoint when a value is to be offloaded: see ``Offloadable``)."""
  saved, offloaded = frozenset(names_which_can_be_saved), frozenset(names_which_can_be_offloaded)
  if saved & offloaded:
    raise ValueError("The names should be exclusive and should not intersect in "
                     "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                     f"names_which_can_be_saved={saved}, "
                     f"names_which_can_be_offloaded={offloaded}")

  def policy(prim, *_, **params):
    if prim.name == "name" and params["name"] in saved:
      return Saveable
    if prim.name == "name" and params["name"] in offloaded:
      return Offloadable(offload_src, offload_dst)
    return Recompute
  return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names)


def pp_policy(policy) -> str:
  """A policy as JAX prints it in a jaxpr: its repr, addresses masked."""
  return re.sub(r"0x[0-9a-fA-F]+", "0xXXXXXXXXXXXX", repr(policy))


# --- checkpoint_name --------------------------------------------------------------------------

name_p = core.Primitive("name")
name_p.def_rules(
    abstract_eval=lambda x, *, name: x,
    impl=lambda x, *, name: x,
    lower=lambda ctx, x, *, name: x,
    jvp=lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name), tangents[0]),
    batch=lambda axis, vals, dims, *, name: (name_p.bind(vals[0], name=name), dims[0]))
name_p.def_unsupported("transpose", "checkpoint_name marks primal values only")


def checkpoint_name(x, name: str):
  """``x`` (every leaf of a pytree) marked with ``name``, for the name-based checkpoint
  policies (``save_only_these_names``...). Outside ``checkpoint`` it changes nothing.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.ad_checkpoint import checkpoint_name
      >>> print(ember.make_jaxpr(lambda x: checkpoint_name(x * 2, "y"))(1.0))
      { lambda ; a:f32[]. let
          b:f32[] = mul a 2.0:f32[]
          c:f32[] = name[name=y] b
        in (c,) }
  """
  return pytree.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


# --- applying a policy to checkpoint's partial evaluation -------------------------------------

def _ask(jaxpr: Jaxpr, policy, answers: dict) -> None:
  """The policy's answer for each equation of ``jaxpr``, in order, as JAX asks it about every
  primal equation (a jit's equations rather than the jit)."""
  for eqn in jaxpr.eqns:
    inner = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
    if isinstance(inner, ClosedJaxpr):
      _ask(inner.jaxpr, policy, answers)
    else:
      answers[id(eqn)] = _saved(
          policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params), eqn.primitive)


def _saved_by(jaxpr: Jaxpr, eqn, var, answers: dict) -> bool:
  """Whether the policy saves ``var``, a result of ``eqn`` in ``jaxpr``: a jit's result is
  judged by the equation that makes it inside the jit (an input it forwards, by its maker)."""
  inner = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
  if not isinstance(inner, ClosedJaxpr):
    return answers[id(eqn)]
  inner_var = inner.jaxpr.outvars[[id(v) for v in eqn.outvars].index(id(var))]
  for v, outer in zip(inner.jaxpr.invars, eqn.invars):
    if inner_var is v:  # forwarded: judged where the outer value is made (or saved if an input)
      maker = _find(jaxpr, outer) if isinstance(outer, Var) else None
      return maker is None or _saved_by(jaxpr, maker, outer, answers)
  maker = _find(inner.jaxpr, inner_var)
  return maker is None or _saved_by(inner.jaxpr, maker, inner_var, answers)


def _find(jaxpr: Jaxpr, var):
  """The equation of ``jaxpr`` whose results include ``var`` (None for inputs and consts)."""
  for eqn in jaxpr.eqns:
    if any(v is var for v in eqn.outvars):
      return eqn
  return None


def _residual_plan(kj: Jaxpr, res_vars, policy):
  """Which known values the staged part is given (``saved``) and which equations it runs
  again: walking back from the residuals, a value the policy saves (or an input) stops the
  walk; any other value's equation is recomputed, and the values it reads are needed too."""
  answers: dict = {}
  _ask(kj, policy, answers)
  makers = {id(v): e for e in kj.eqns for v in e.outvars}
  inputs = {id(v) for v in kj.invars}
  saved, seen, redo = [], set(), set()
  todo = list(reversed([v for v in res_vars if isinstance(v, Var)]))
  while todo:
    v = todo.pop()
    if id(v) in seen or id(v) in inputs:
      continue
    seen.add(id(v))
    eqn = makers.get(id(v))
    if eqn is None or _saved_by(kj, eqn, v, answers):
      saved.append(v)
      continue
    redo.add(id(eqn))
    todo.extend(reversed([u for u in eqn.invars if isinstance(u, Var)]))
  kept = {id(v) for v in saved}  # an equation run again must not replace a saved value
  return saved, [JaxprEqn(e.primitive, e.invars,
                          [DropVar(v.aval) if id(v) in kept else v for v in e.outvars],
                          e.params, e.source_info) for e in kj.eqns if id(e) in redo]


def split_by_policy(known: ClosedJaxpr, n_known_outs: int, unknown: ClosedJaxpr, res_spec,
                    known_pos, policy):
  """Checkpoint's partial evaluation under ``policy``.

  ``known`` (const-free; its inputs are hoisted consts then the known inputs, at jaxpr
  positions ``known_pos``) returns the known outputs then the computed residuals; ``unknown``
  takes the residuals (``res_spec``) and the unknown inputs. Returns ``(known, staged, consts,
  keep)``: the new ``known`` returns the known outputs then the values the policy saves;
  ``staged`` takes ``[*consts, *known ins, *saved values, *unknown ins]`` filtered by ``keep``,
  recomputes every other residual and returns the unknown outputs.
  """
  from ember.core.jaxpr import hoist_consts
  from ember.transforms.staging import trace_to_jaxpr
  kj = known.jaxpr
  n_consts = len(kj.invars) - len(known_pos)
  res_vars = kj.outvars[n_known_outs:]
  saved, redo_eqns = _residual_plan(kj, res_vars, policy)
  recompute = Jaxpr([], list(kj.invars) + saved, res_vars, redo_eqns)
  new_known = ClosedJaxpr(Jaxpr([], kj.invars, kj.outvars[:n_known_outs] + saved, kj.eqns,
                                kj.effects, kj.debug_info), [])
  n_unknown_in = len(unknown.in_avals) - len(res_spec)
  in_avals = ([v.aval for v in kj.invars] + [v.aval for v in saved]
              + unknown.in_avals[len(res_spec):])
  slot = {i: n_consts + k for k, i in enumerate(known_pos)}

  def staged_fun(*xs):
    k_ins, rest = xs[:len(kj.invars)], xs[len(kj.invars):]
    s_vals, u_ins = rest[:len(saved)], rest[len(saved):]
    computed = eval_jaxpr(recompute, [], *k_ins, *s_vals)
    residuals = [k_ins[slot[i]] if kind == "in" else computed[i] for kind, i in res_spec]
    return eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, *u_ins)

  staged, consts = hoist_consts(trace_to_jaxpr(staged_fun, in_avals))
  j = staged.jaxpr
  used = {id(v) for e in j.eqns for v in e.invars} | {id(v) for v in j.outvars}
  keep = [id(v) in used or k >= len(j.invars) - n_unknown_in for k, v in enumerate(j.invars)]
  pruned = Jaxpr([], [v for v, k in zip(j.invars, keep) if k], j.outvars, j.eqns, j.effects,
                 j.debug_info)
  return new_known, ClosedJaxpr(pruned, []), consts, keep
