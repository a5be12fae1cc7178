"""``eval_jaxpr``: run a jaxpr by binding each equation's primitive under the current trace.

This is the template of every pass over a jaxpr: an environment from variables to values, read the
inputs of each equation, apply, write its outputs.

Example:
    >>> import ember, ember.numpy as jnp
    >>> closed = ember.make_jaxpr(lambda x: x * 2.0 + 1.0)(1.0)
    >>> eval_jaxpr(closed.jaxpr, closed.consts, 3.0)
    [Array(7., dtype=float32, weak_type=True)]
"""
from __future__ import annotations

import functools

from typing import Sequence

from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, literal_value

__all__ = ["eval_jaxpr", "jaxpr_as_fun"]


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence, *args) -> list:
  env: dict = {}

  def read(x):
    return literal_value(x) if isinstance(x, Literal) else env[x]

  for v, val in zip(jaxpr.constvars, consts, strict=True):
    env[v] = val
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
  for v, val in zip(jaxpr.invars, args):
    env[v] = val
  for eqn in jaxpr.eqns:
    outs = eqn.primitive.bind(*[read(x) for x in eqn.invars], **eqn.params)
    if not eqn.primitive.multiple_results:
      outs = [outs]
    for v, val in zip(eqn.outvars, outs, strict=True):
      env[v] = val
  return [read(x) for x in jaxpr.outvars]


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr, *args):
  """A Python function of the jaxpr's arguments that returns the list of its outputs (curried,
  as JAX's: arguments given here come first, and the result is still a function to call)."""
  return functools.partial(_eval_closed, closed_jaxpr, *args)


def _eval_closed(closed: ClosedJaxpr, *args):
  return eval_jaxpr(closed.jaxpr, closed.consts, *args)
