"""``lower_fun``: a lowering rule written as an ember function of lax operations.

The function is traced at the equation's avals and its jaxpr is lowered inline, so a primitive
whose StableHLO form is a composite (e.g. a series expansion) is written once, in lax.
"""
from __future__ import annotations

from typing import Callable

from ember.backend import lowering

__all__ = ["lower_fun"]


def lower_fun(fn: Callable, multiple_results: bool = False) -> Callable:
  def rule(ctx, *args, **params):
    from ember.transforms.staging import trace_to_jaxpr  # staging sits above primitives
    def flat(*xs):
      out = fn(*xs, **params)
      return list(out) if multiple_results else [out]
    closed = trace_to_jaxpr(flat, [a.aval for a in args])
    consts = [ctx.constant(c, v.aval) for c, v in zip(closed.consts, closed.jaxpr.constvars)]
    outs = lowering.lower_jaxpr(ctx, closed.jaxpr, consts, list(args))
    return outs if multiple_results else outs[0]
  return rule
