"""``ember.interpreters.ad``: a user primitive's derivative rules, under JAX 0.10.2's names.

``defjvp(prim, *rules)``: ``rules[i](t_i, *primals, **params)`` is input ``i``'s contribution to
the output tangent (None: not differentiable). ``deflinear(prim, transpose)``: ``prim`` is linear
in its inputs and ``transpose(ct, **params)`` gives their cotangents; ``deflinear2`` passes the
inputs too (``transpose(ct, *args, **params)``, linear ones ``UndefinedPrimal``).
``primitive_jvps[prim] = rule(primals, tangents, **params) -> (out, tangent_out)`` and
``primitive_transposes[prim] = rule(ct, *args, **params) -> cotangents`` set the rules directly.
Tangents and cotangents may be symbolic ``Zero``s.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.extend.core import Primitive
    >>> from ember.interpreters import ad
    >>> double = Primitive("double")
    >>> _ = double.def_impl(lambda x: 2 * x)
    >>> _ = double.def_abstract_eval(lambda x: x)
    >>> ad.deflinear(double, lambda ct: [2 * ct])
    >>> ember.grad(lambda x: double.bind(x) * x)(3.0)
    Array(12., dtype=float32, weak_type=True)
"""
from __future__ import annotations

from typing import Callable

from ember.interpreters._registry import RuleRegistry
from ember.transforms import ad_util
from ember.transforms.ad_util import UndefinedPrimal, Zero, instantiate, is_undefined

__all__ = ["Zero", "UndefinedPrimal", "is_undefined_primal", "instantiate_zeros", "defjvp",
           "deflinear", "deflinear2", "primitive_jvps", "primitive_transposes"]

primitive_jvps = RuleRegistry("jvp")
primitive_transposes = RuleRegistry("transpose")


def is_undefined_primal(x) -> bool:
  return is_undefined(x)


def instantiate_zeros(t):
  """``t``, or zeros of its abstract value when it is a symbolic ``Zero``."""
  return instantiate(t)


def defjvp(prim, *jvp_rules: Callable | None) -> None:
  ad_util.defjvp(prim, *jvp_rules)


def _zeros_for(args) -> list:
  return [Zero(x.aval) if is_undefined(x) else None for x in args]


def deflinear2(prim, transpose_rule: Callable) -> None:
  def transpose(ct, *args, **params):
    if type(ct) is Zero:
      return _zeros_for(args)
    return list(transpose_rule(ct, *args, **params))
  ad_util.deflinear(prim, transpose)


def deflinear(prim, transpose_rule: Callable) -> None:
  deflinear2(prim, lambda ct, *args, **params: transpose_rule(ct, **params))
