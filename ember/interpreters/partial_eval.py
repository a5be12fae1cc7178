"""JAX 0.10.2's ``jax.interpreters.partial_eval`` names that ember's staging gives: the tracer
type of staged values (``DynamicJaxprTracer``), tracing a wrapped function to a jaxpr
(``trace_to_jaxpr_dynamic``) and dead-code elimination (``dce_jaxpr``, ``dce_jaxpr_consts``,
with ``dce_rules`` for a primitive's own rule).

Dead-code elimination drops the equations none of whose outputs is used, keeping those with
side effects (host callbacks: ``debug_callback``, ``debug_print``, ``io_callback``, and
``dce_sink``), also inside the jaxprs an equation carries. Unlike JAX, it does not prune inside
a kept call (``jit``, control flow): a call with one used output is kept whole.

Partial evaluation with known and unknown inputs (``PartialVal``, ``trace_to_jaxpr_nounits``)
stages the whole function and then splits its jaxpr: equations whose inputs are all known run
now, the others form the jaxpr of the unknown part. ember has no tracer carrying a partial value
and its recipe, so ``JaxprTracer`` cannot be made (NotImplementedError). Left out:
``custom_partial_eval_rules`` and ``partial_eval_jaxpr_custom_rules``; and
``dce_jaxpr_call_rule`` / ``dce_jaxpr_closed_call_rule`` (the rules that prune inside JAX's
call primitives).

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

from ember.core.jaxpr import Jaxpr, JaxprEqn, Literal, dce, literal_value
from ember.core.public import _same_length
from ember.core.trace import get_aval
from ember.transforms.staging import JaxprTracer as DynamicJaxprTracer, trace_to_jaxpr

__all__ = ["DynamicJaxprTracer", "JaxprTracer", "PartialVal", "Val", "dce_jaxpr",
           "dce_jaxpr_consts", "dce_rules", "trace_to_jaxpr_dynamic", "trace_to_jaxpr_nounits"]

Val = Any

# A primitive's dead-code rule: ``rule(used_outputs, eqn) -> (used_inputs, new_eqn or None)``.
dce_rules: dict[Any, Callable[[list[bool], JaxprEqn], tuple[list[bool], JaxprEqn | None]]] = {}


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
  new, used = dce(jaxpr, used_outputs, instantiate, dce_rules)
  return new, [u or keep for u, keep in zip(used, instantiate)]


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


# --- partial evaluation: known and unknown inputs ----------------------------------------------

class PartialVal(tuple):
  """A value partial evaluation may or may not know: the pair ``(aval, None)`` for an unknown
  value of type ``aval``, ``(None, value)`` for a known one.

  Example:
      >>> from ember.interpreters.partial_eval import PartialVal
      >>> PartialVal.known(3.0).get_aval()
      ShapedArray(float32[], weak_type=True)
      >>> PartialVal.unknown(PartialVal.known(3.0).get_aval()).is_known()
      False
  """

  def __new__(cls, xs: tuple):
    return tuple.__new__(cls, xs)

  @classmethod
  def known(cls, const) -> "PartialVal":
    return PartialVal((None, const))

  @classmethod
  def unknown(cls, aval) -> "PartialVal":
    return PartialVal((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self):
    """The value if known, else None."""
    return self[1] if self[0] is None else None

  def get_aval(self):
    """The type of the value, known or not."""
    aval, const = self
    return get_aval(const) if aval is None else aval


class JaxprTracer:
  """JAX's tracer of partial evaluation (a ``PartialVal`` and the recipe that computes it).
  ember partially evaluates by staging the whole function and splitting its jaxpr
  (``trace_to_jaxpr_nounits``), so it has no such tracer: making one raises.

  Example:
      >>> from ember.interpreters import partial_eval as pe
      >>> pe.JaxprTracer(None, pe.PartialVal.known(1.0), None)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      NotImplementedError: ember.interpreters.partial_eval.JaxprTracer cannot be made: ...
  """

  def __init__(self, trace, pval, recipe):
    raise NotImplementedError(
        "ember.interpreters.partial_eval.JaxprTracer cannot be made: ember has no JaxprTrace "
        "whose tracers carry a PartialVal and a recipe; trace_to_jaxpr_nounits stages the whole "
        "function and splits its jaxpr instead.")


def _instantiate_flags(instantiate, n: int) -> tuple:
  if isinstance(instantiate, bool):
    return (instantiate,) * n
  flags = tuple(instantiate)
  if len(flags) != n:
    raise ValueError(f"trace_to_jaxpr_nounits: instantiate has {len(flags)} entries for {n} "
                     "outputs.")
  return flags


def _split_known(jaxpr: Jaxpr, env: dict) -> list:
  """Run the equations of ``jaxpr`` whose inputs ``env`` (var -> value) all knows, adding their
  outputs to ``env``; the others, in order, are returned (the unknown part)."""
  def known(x):
    return type(x) is Literal or x in env

  def read(x):
    return literal_value(x) if type(x) is Literal else env[x]

  unknown = []
  for eqn in jaxpr.eqns:
    if not all(known(x) for x in eqn.invars):
      unknown.append(eqn)
      continue
    outs = eqn.primitive.bind(*[read(x) for x in eqn.invars], **eqn.params)
    env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
  return unknown


def trace_to_jaxpr_nounits(fun, pvals: Sequence[PartialVal], instantiate=False
                           ) -> tuple[Jaxpr, list[PartialVal], tuple]:
  """Partially evaluate the wrapped function ``fun`` (``extend.linear_util.wrap_init``; it
  returns a flat list) at ``pvals``: what depends only on known inputs is computed now, the
  rest is staged into a jaxpr of the unknown inputs whose constants are the known values it
  needs (the residuals). A known output stays known unless ``instantiate`` (a bool, or one per
  output) asks for it as an output of the jaxpr. Unlike JAX, scalar constants stay literals of
  the jaxpr rather than residuals.

  Returns:
    ``(jaxpr, out_pvals, residuals)``: evaluate ``jaxpr`` with ``residuals`` as its constants
    and the unknown inputs as its arguments to get the unknown outputs.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import api_util
      >>> from ember.extend import linear_util as lu
      >>> from ember.interpreters import partial_eval as pe
      >>> f = lambda x, y: [jnp.sin(x) * y, jnp.cos(x)]
      >>> fun = lu.wrap_init(f, debug_info=api_util.debug_info("test", f, (1.0, 1.0), {}))
      >>> f32 = ember.core.ShapedArray((), jnp.float32)
      >>> jaxpr, out_pvals, res = pe.trace_to_jaxpr_nounits(
      ...     fun, [pe.PartialVal.known(jnp.float32(0.0)), pe.PartialVal.unknown(f32)])
      >>> print(jaxpr)
      { lambda a:f32[]; b:f32[]. let c:f32[] = mul a b in (c,) }
      >>> out_pvals[1].get_known()
      Array(1., dtype=float32)
  """
  pvals = list(pvals)
  for i, pv in enumerate(pvals):
    if not isinstance(pv, PartialVal):
      raise TypeError(f"trace_to_jaxpr_nounits: pvals[{i}] must be a PartialVal, got "
                      f"{type(pv).__name__}.")
  closed = trace_to_jaxpr(lambda *xs: fun.call_wrapped(*xs), [pv.get_aval() for pv in pvals],
                          getattr(fun, "debug_info", None))
  jaxpr = closed.jaxpr
  env = dict(zip(jaxpr.constvars, closed.consts))
  env.update((v, pv.get_known()) for v, pv in zip(jaxpr.invars, pvals) if pv.is_known())
  unknown_eqns = _split_known(jaxpr, env)
  flags = _instantiate_flags(instantiate, len(jaxpr.outvars))
  out_pvals, outvars = [], []
  for v, inst in zip(jaxpr.outvars, flags):
    if (type(v) is Literal or v in env) and not inst:
      out_pvals.append(PartialVal.known(literal_value(v) if type(v) is Literal else env[v]))
    else:
      out_pvals.append(PartialVal.unknown(v.aval))
      outvars.append(v)
  used = {x for e in unknown_eqns for x in e.invars if type(x) is not Literal}
  used.update(v for v in outvars if type(v) is not Literal)
  order = list(jaxpr.invars) + list(jaxpr.constvars) + [v for e in jaxpr.eqns for v in e.outvars]
  residuals = [v for v in order if v in env and v in used]
  invars = [v for v, pv in zip(jaxpr.invars, pvals) if not pv.is_known()]
  new = Jaxpr(residuals, invars, outvars, unknown_eqns, jaxpr.effects, jaxpr.debug_info)
  return new, out_pvals, tuple(env[v] for v in residuals)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
