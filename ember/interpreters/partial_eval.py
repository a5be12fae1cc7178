"""JAX 0.10.2's ``jax.interpreters.partial_eval`` names that ember's staging gives: the tracer
type of staged values (``DynamicJaxprTracer``), tracing a wrapped function to a jaxpr
(``trace_to_jaxpr_dynamic``) and dead-code elimination (``dce_jaxpr``, ``dce_jaxpr_consts``,
with ``dce_rules`` for a primitive's own rule).

Dead-code elimination drops the equations none of whose outputs is used, keeping those with
side effects (host callbacks: ``debug_callback``, ``debug_print``, ``io_callback``, and
``dce_sink``), also inside the jaxprs an equation carries. Unlike JAX, it does not prune inside
a kept call (``jit``, control flow): a call with one used output is kept whole.

Left out, as ember has no known/unknown partial evaluator: ``JaxprTracer``, ``PartialVal``,
``trace_to_jaxpr_nounits``, ``custom_partial_eval_rules`` and
``partial_eval_jaxpr_custom_rules``; and ``dce_jaxpr_call_rule`` /
``dce_jaxpr_closed_call_rule`` (the rules that prune inside JAX's call primitives).

Example:
    >>> import ember
    >>> from ember.interpreters import partial_eval as pe
    >>> closed = ember.make_jaxpr(lambda x: (ember.numpy.sin(x), ember.numpy.cos(x)))(1.0)
    >>> jaxpr, used_inputs = pe.dce_jaxpr(closed.jaxpr, [True, False])
    >>> print(jaxpr)
    { lambda ; a:f32[]. let b:f32[] = sin a in (b,) }
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ember.core.jaxpr import Jaxpr, JaxprEqn, Var, sub_jaxprs
from ember.core.public import _same_length
from ember.transforms.staging import JaxprTracer as DynamicJaxprTracer, trace_to_jaxpr

__all__ = ["DynamicJaxprTracer", "Val", "dce_jaxpr", "dce_jaxpr_consts", "dce_rules",
           "trace_to_jaxpr_dynamic"]

Val = Any

# A primitive's dead-code rule: ``rule(used_outputs, eqn) -> (used_inputs, new_eqn or None)``.
dce_rules: dict[Any, Callable[[list[bool], JaxprEqn], tuple[list[bool], JaxprEqn | None]]] = {}

_EFFECTFUL = frozenset({"debug_callback", "debug_print", "io_callback", "dce_sink"})


def _has_effects(eqn: JaxprEqn) -> bool:
  if eqn.primitive.name in _EFFECTFUL:
    return True
  return any(_has_effects(e) for j in sub_jaxprs(eqn.params) for e in j.eqns)


def _default_rule(used_outputs: list[bool], eqn: JaxprEqn):
  if not any(used_outputs) and not _has_effects(eqn):
    return [False] * len(eqn.invars), None
  return [True] * len(eqn.invars), eqn


def _per_var(flag, variables: Sequence, what: Sequence) -> tuple:
  if type(flag) is bool:
    return (flag,) * len(variables)
  flag = tuple(flag)
  _same_length(what, flag)
  return flag


def dce_jaxpr(jaxpr: Jaxpr, used_outputs, instantiate=False) -> tuple[Jaxpr, list[bool]]:
  """``jaxpr`` without the equations its ``used_outputs`` do not need (nor the unused outputs),
  and which inputs are still used; an input with ``instantiate`` (a bool for all, or one per
  input) is kept even if unused. Constants are kept.

  Returns:
    ``(new_jaxpr, used_inputs)``.

  Example:
      >>> import ember
      >>> from ember.interpreters import partial_eval as pe
      >>> closed = ember.make_jaxpr(lambda x, y: x * 2.0)(1.0, 2.0)
      >>> pe.dce_jaxpr(closed.jaxpr, [True])[1]
      [True, False]
  """
  used_outputs = _per_var(used_outputs, jaxpr.outvars, jaxpr.outvars)
  instantiate = _per_var(instantiate, jaxpr.invars, jaxpr.invars)
  used: set = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    rule = dce_rules.get(eqn.primitive, _default_rule)
    used_inputs, new_eqn = rule([v in used for v in eqn.outvars], eqn)
    if new_eqn is not None:
      kept.append(new_eqn)
    used.update(v for v, u in zip(eqn.invars, used_inputs) if u and type(v) is Var)
  used_inputs = [v in used or keep for v, keep in zip(jaxpr.invars, instantiate)]
  new = Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, used_inputs) if u],
              [v for v, u in zip(jaxpr.outvars, used_outputs) if u], kept[::-1],
              jaxpr.effects, jaxpr.debug_info)
  return new, used_inputs


def dce_jaxpr_consts(jaxpr: Jaxpr, used_outputs, instantiate=False
                     ) -> tuple[Jaxpr, list[bool], list[bool]]:
  """``dce_jaxpr`` that also drops unused constants.

  Returns:
    ``(new_jaxpr, used_consts, used_inputs)``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.interpreters import partial_eval as pe
      >>> closed = ember.make_jaxpr(lambda x: x + 1.0)(1.0)
      >>> pe.dce_jaxpr_consts(closed.jaxpr, [False])[1:]
      ([], [False])
  """
  n = len(jaxpr.constvars)
  if type(instantiate) is not bool:
    instantiate = (False,) * n + tuple(instantiate)
  flat = Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects,
               jaxpr.debug_info)
  new, used = dce_jaxpr(flat, used_outputs, instantiate)
  used_consts, used_inputs = used[:n], used[n:]
  kept = sum(used_consts)
  new = Jaxpr(new.invars[:kept], new.invars[kept:], new.outvars, new.eqns, new.effects,
              new.debug_info)
  return new, used_consts, used_inputs


def trace_to_jaxpr_dynamic(fun, in_avals: Sequence, *, keep_inputs: list[bool] | None = None,
                           lower: bool = False, auto_dce: bool = False
                           ) -> tuple[Jaxpr, list, list]:
  """Trace the wrapped function ``fun`` (``extend.linear_util.wrap_init``; it returns a flat
  list) on arguments of types ``in_avals`` into a jaxpr. Inputs whose ``keep_inputs`` entry is
  False are inputs of the jaxpr but are not passed to ``fun``; ``auto_dce`` drops the
  equations no output needs.

  Returns:
    ``(jaxpr, out_avals, consts)``.

  Raises:
    NotImplementedError: ``lower=True`` (JAX's tracing for its own lowering).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import api_util
      >>> from ember.extend import linear_util as lu
      >>> from ember.interpreters import partial_eval as pe
      >>> f = lambda x: [jnp.sin(x)]
      >>> fun = lu.wrap_init(f, debug_info=api_util.debug_info("test", f, (1.0,), {}))
      >>> f32 = ember.core.ShapedArray((), jnp.float32)
      >>> jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(fun, [f32])
      >>> print(jaxpr)
      { lambda ; a:f32[]. let b:f32[] = sin a in (b,) }
  """
  if lower:
    raise NotImplementedError("trace_to_jaxpr_dynamic(lower=True) traces for JAX's own "
                              "lowering, which ember does not have.")
  keep = [True] * len(in_avals) if keep_inputs is None else list(keep_inputs)
  _same_length(in_avals, keep)

  def call(*tracers):
    return fun.call_wrapped(*[t for t, k in zip(tracers, keep) if k])
  closed = trace_to_jaxpr(call, list(in_avals), getattr(fun, "debug_info", None))
  jaxpr = closed.jaxpr
  if auto_dce:
    jaxpr, _ = dce_jaxpr(jaxpr, True, instantiate=True)
  return jaxpr, [v.aval for v in jaxpr.outvars], list(closed.consts)
