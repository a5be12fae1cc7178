"""``ember.interpreters.ad``: a user primitive's derivative rules, under JAX 0.10.2's names.

``defjvp(prim, *rules)``: ``rules[i](t_i, *primals, **params)`` is input ``i``'s contribution to
the output tangent (None: not differentiable). ``deflinear(prim, transpose)``: ``prim`` is linear
in its inputs and ``transpose(ct, **params)`` gives their cotangents; ``deflinear2`` passes the
inputs too (``transpose(ct, *args, **params)``, linear ones ``UndefinedPrimal``).
``defjvp2`` passes the primitive's output too (``rules[i](t_i, out, *primals, **params)``);
``defbilinear(prim, lhs_rule, rhs_rule)`` declares ``prim`` linear in each input separately
(``lhs_rule(ct, x, y, **params)`` is ``x``'s cotangent, with ``x`` an ``UndefinedPrimal``).
``primitive_jvps[prim] = rule(primals, tangents, **params) -> (out, tangent_out)`` and
``primitive_transposes[prim] = rule(ct, *args, **params) -> cotangents`` set the rules directly.
Tangents and cotangents may be symbolic ``Zero``s; ``add_tangents`` adds two of them,
``add_jaxvals`` (the ``add_any`` primitive, ``add_jaxvals_p``) two values. ``JVPTrace`` and
``JVPTracer`` are the classes of ember's ``jvp``, for ``isinstance`` checks.

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

import functools
from typing import Callable

from ember.core.trace import get_aval
from ember.interpreters._registry import RuleRegistry
from ember.transforms import ad_util
from ember.transforms.ad_util import (UndefinedPrimal, Zero, instantiate, is_undefined,
                                      tangent_aval, zeros_like_aval)
from ember.transforms.ad_util import add_any_p as add_jaxvals_p
from ember.transforms.jvp import JVPTrace, JVPTracer

__all__ = ["Zero", "UndefinedPrimal", "is_undefined_primal", "instantiate_zeros", "defjvp",
           "defjvp2", "defbilinear", "deflinear", "deflinear2", "primitive_jvps",
           "primitive_transposes", "get_primitive_transpose", "add_jaxvals", "add_jaxvals_p",
           "add_tangents", "zeros_like_aval", "JVPTrace", "JVPTracer"]

primitive_jvps = RuleRegistry("jvp")
primitive_transposes = RuleRegistry("transpose")


def is_undefined_primal(x) -> bool:
  return is_undefined(x)


def instantiate_zeros(tangent):
  """``tangent``, or zeros of its abstract value when it is a symbolic ``Zero``."""
  return instantiate(tangent)


def add_tangents(x, y):
  """``x + y`` for tangents, either of which may be a symbolic ``Zero``."""
  return ad_util.add_tangents(x, y)


def add_jaxvals(x, y):
  """``x + y`` as reverse mode accumulates cotangents (the ``add_any`` primitive)."""
  return add_jaxvals_p.bind(x, y)


def get_primitive_transpose(p) -> Callable:
  """``p``'s transpose rule; a primitive without one raises ``NotImplementedError``."""
  try:
    return primitive_transposes[p]
  except KeyError:
    raise NotImplementedError(
        f"Transpose rule (for reverse-mode differentiation) for '{p}' not implemented") from None


def defjvp(primitive, *jvprules: Callable | None) -> None:
  ad_util.defjvp(primitive, *jvprules)


def defjvp2(primitive, *jvprules: Callable | None) -> None:
  """``defjvp`` whose rules also get the primitive's output: ``rule(t, out, *primals, **params)``
  (for a derivative cheaper to write in terms of the result, such as ``exp``'s)."""
  def jvp(primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    terms = [rule(t, out, *primals, **params) for rule, t in zip(jvprules, tangents)
             if rule is not None and type(t) is not Zero]
    return out, functools.reduce(add_tangents, terms, Zero(tangent_aval(get_aval(out))))
  primitive_jvps[primitive] = jvp


def defbilinear(prim, lhs_rule: Callable, rhs_rule: Callable) -> None:
  """``prim(x, y)`` linear in ``x`` and in ``y`` separately (a product): its jvp is
  ``prim(x_dot, y) + prim(x, y_dot)``, and its transpose the rule of the input being
  transposed (``lhs_rule(ct, x, y, **params)`` when ``x`` is the ``UndefinedPrimal``)."""
  defjvp(prim, lambda g, x, y, **params: prim.bind(g, y, **params),
         lambda g, x, y, **params: prim.bind(x, g, **params))

  def transpose(ct, x, y, **params):
    linear_in_x = is_undefined(x)
    if type(ct) is Zero:
      return [Zero(x.aval), None] if linear_in_x else [None, Zero(y.aval)]
    if linear_in_x:
      return [lhs_rule(ct, x, y, **params), None]
    return [None, rhs_rule(ct, x, y, **params)]
  primitive_transposes[prim] = transpose


def _zeros_for(args) -> list:
  return [Zero(x.aval) if is_undefined(x) else None for x in args]


def deflinear2(primitive, transpose_rule: Callable) -> None:
  def transpose(ct, *args, **params):
    if type(ct) is Zero:
      return _zeros_for(args)
    return list(transpose_rule(ct, *args, **params))
  ad_util.deflinear(primitive, transpose)


def deflinear(primitive, transpose_rule: Callable) -> None:
  deflinear2(primitive, lambda ct, *args, **params: transpose_rule(ct, **params))


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
