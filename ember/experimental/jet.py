"""Taylor-mode automatic differentiation (mirrors ``jax.experimental.jet``).

``jet(f, (x,), ((x1, ..., xK),))`` pushes the truncated Taylor polynomial
``x(t) = x + x1 t + x2 t**2 / 2! + ... + xK t**K / K!`` through ``f`` and returns the primal output
and the ``K`` derivative coefficients of ``f(x(t))`` at ``t = 0`` (``jet2``: coefficients without
the factorials). Inside, a series is the list of its normalized coefficients ``c_k = x_k / k!``,
in which products are convolutions: ``(a b)_k = sum_j a_j b_(k-j)``.

ember traces ``f`` to a jaxpr and runs it equation by equation: an equation none of whose inputs
carries a series runs as it is; the others run their primitive's rule from ``jet_rules``,
``rule(primals_in, series_in, **params) -> (primal_out, series_out)``. Rules exist for the linear
primitives (structural ones, sums, ``add``/``sub``/``neg``...), the bilinear ``mul``,
``dot_general`` and ``conv_general_dilated``, ``div``, ``exp``, ``log``, the trigonometric and
hyperbolic functions, ``tanh``, ``logistic``, ``sqrt``/``rsqrt``, ``integer_pow``, ``pow``,
``erf``, ``abs``, ``max``/``min``, ``select_n``, ``reduce_max``/``reduce_min``, gathers and
dynamic slices, the piecewise-constant ones (comparisons, ``floor``, ``sign``... whose series is
zero), and calls (``jit``, and ``custom_jvp``/``custom_vjp`` functions, whose own rules are not
used, as in JAX). Another primitive raises ``NotImplementedError`` naming it (JAX: a
``KeyError`` of its name; the error here is a ``KeyError`` too).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.jet import jet
    >>> y, (y1, y2) = jet(jnp.sin, (0.0,), ((1.0, 0.0),))
    >>> print(y, y1, y2)
    0.0 1.0 0.0
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.core.jaxpr import Literal, literal_value
from ember.tree_util import (  # noqa: F401  (JAX's jet module exports these names)
    register_pytree_node, tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf)

__all__ = ["jet", "jet2", "fact", "jet_rules", "zero_series", "zero_term", "ZeroSeries",
           "ZeroTerm", "defzero", "zero_prop", "deflinear", "linear_prop", "def_deriv",
           "deriv_prop", "def_comp", "safe_zip", "register_pytree_node", "tree_flatten",
           "tree_structure", "tree_unflatten", "treedef_is_leaf"]


class ZeroTerm:
  """The type of ``zero_term``: one coefficient known to be zero.

  Example:
      >>> from ember.experimental.jet import ZeroTerm, zero_term
      >>> isinstance(zero_term, ZeroTerm)
      True
  """


class ZeroSeries:
  """The type of ``zero_series``: a value whose every coefficient is zero (no series).

  Example:
      >>> from ember.experimental.jet import ZeroSeries, zero_series
      >>> isinstance(zero_series, ZeroSeries)
      True
  """


zero_term = ZeroTerm()
zero_series = ZeroSeries()
register_pytree_node(ZeroTerm, lambda z: ((), None), lambda _, xs: zero_term)
register_pytree_node(ZeroSeries, lambda z: ((), None), lambda _, xs: zero_series)

# primitive -> rule(primals_in, series_in, **params) -> (primal_out, series_out)
jet_rules: dict[Any, Callable] = {}


def safe_zip(*args):
  """``zip`` that insists on equal lengths, as a list.

  Example:
      >>> safe_zip([1, 2], "ab")
      [(1, 'a'), (2, 'b')]
  """
  return list(zip(*args, strict=True))


def fact(n):
  """``n!`` as a float32 scalar, computed as ``exp(lgamma(n + 1))`` as JAX does.

  Example:
      >>> print(fact(3))  # as JAX's, through lgamma
      6.0000052
  """
  return lax.exp(lax.lgamma(n + 1.))


# --- the entry point ------------------------------------------------------------------------------

def _check_inputs(primals, series) -> int:
  try:
    order, = set(map(len, series))
  except ValueError:
    raise ValueError("jet terms have inconsistent lengths for different arguments") from None
  if len(primals) != len(series):
    raise ValueError(f"jet: {len(primals)} primals for {len(series)} series; give one series "
                     "(a list of terms) per primal.")
  for i, (x, terms) in enumerate(zip(primals, series)):
    if not treedef_is_leaf(tree_structure(x)):
      raise ValueError(f"primal value at position {i} is not an array")
    for j, t in enumerate(terms):
      if not treedef_is_leaf(tree_structure(t)):
        raise ValueError(f"term {j} for argument {i} is not an array")
      if np.shape(t) != np.shape(x):
        raise TypeError(f"jet: term {j} for argument {i} has shape {np.shape(t)}, but the "
                        f"primal has shape {np.shape(x)}.")
  return order


def jet(fun: Callable, primals, series, factorial_scaled: bool = True, **_):
  """Taylor-mode differentiation: ``fun(*primals)`` and the derivative coefficients of ``fun``
  along the Taylor polynomial of ``primals`` and ``series``.

  Args:
    fun: a function of arrays returning an array or a pytree of arrays.
    primals: a tuple or list of arrays (not pytrees), one per positional parameter of ``fun``.
    series: one list of terms per primal, all of the same length ``K`` (the order); term ``k``
      has the primal's shape.
    factorial_scaled: True (the default): the ``k``-th input and output term is the ``k``-th
      derivative; False: it is the Taylor coefficient (the derivative over ``k!``).

  Returns:
    ``(primals_out, series_out)``: ``fun``'s output, and for each of its leaves the list of its
    ``K`` terms, with the output's tree structure.

  Raises:
    ValueError: series of different lengths, or a primal or term that is a pytree.
    TypeError: a term whose shape is not its primal's.
    NotImplementedError: ``fun`` uses a primitive without a jet rule.

  Example:
      >>> from ember.experimental.jet import jet
      >>> y, (y1, y2) = jet(lambda x: x ** 3, (2.0,), ((1.0, 0.0),))
      >>> print(y, y1, y2)  # 8, 3 x**2 = 12, 6 x = 12 (rounded as JAX's)
      8.0 12.0 12.000003
  """
  from ember.transforms.staging import make_jaxpr
  order = _check_inputs(primals, series)
  primals = [jnp.asarray(x) for x in primals]
  series = [[jnp.asarray(t) for t in terms] for terms in series]
  if factorial_scaled:
    series = [[t / fact(k + 1) for k, t in enumerate(terms)] for terms in series]
  closed, out_shape = make_jaxpr(fun, return_shape=True)(*primals)
  outs, out_series = jet_jaxpr(closed.jaxpr, closed.consts, primals, series, order)
  out_series = [[jnp.zeros_like(p)] * order if s is zero_series else
                [jnp.zeros_like(p) if t is zero_term else t for t in s]
                for p, s in zip(outs, out_series)]
  if factorial_scaled:
    out_series = [[t * fact(k + 1) for k, t in enumerate(terms)] for terms in out_series]
  tree = tree_structure(out_shape)
  outs = [jnp.asarray(x) for x in outs]  # a constant output is an array too
  return tree_unflatten(tree, outs), tree_unflatten(tree, out_series)


def jet2(fun: Callable, primals, series, *, factorial_scaled: bool = False, **_):
  """``jet`` with Taylor coefficients (``factorial_scaled=False``): term ``k`` is the ``k``-th
  derivative over ``k!``, in and out.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental.jet import jet2
      >>> y, terms = jet2(jnp.exp, (0.0,), ((1.0, 0.0, 0.0),))  # e^t = 1 + t + t^2/2 + t^3/6
      >>> [round(float(t), 6) for t in terms]
      [1.0, 0.5, 0.166667]
  """
  return jet(fun, primals, series, factorial_scaled=factorial_scaled)


def _instantiate(x, s, order: int) -> list:
  """The terms of ``s``, zeros (of ``x``'s type, weak if it is) where there are none."""
  zero = functools.partial(jnp.zeros_like, x)
  if s is zero_series:
    return [zero() for _ in range(order)]
  return [zero() if t is zero_term else t for t in s]


def _rule(prim) -> Callable:
  rule = jet_rules.get(prim)
  if rule is None:
    raise _NoJetRule(prim.name)
  return rule


class _NoJetRule(NotImplementedError, KeyError):
  """A primitive without a jet rule (a KeyError too, as JAX's lookup raises)."""

  def __init__(self, name: str):
    super().__init__(f"Jet rule for '{name}' not implemented: ember.experimental.jet has no "
                     f"Taylor rule for the primitive {name}.")

  def __str__(self):
    return self.args[0]


def jet_jaxpr(jaxpr, consts, primals, series, order: int):
  """Run ``jaxpr`` on ``primals`` and their normalized ``series`` (``zero_series`` where none):
  its outputs and their series."""
  env: dict = {}

  def read(v):
    if type(v) is Literal:
      return literal_value(v), zero_series
    return env[v]

  for v, c in zip(jaxpr.constvars, consts):
    env[v] = (c, zero_series)
  for v, x, s in zip(jaxpr.invars, primals, series, strict=True):
    env[v] = (x, s)
  for eqn in jaxpr.eqns:
    xs, ss = zip(*[read(v) for v in eqn.invars]) if eqn.invars else ((), ())
    prim, multi = eqn.primitive, eqn.primitive.multiple_results
    if all(s is zero_series for s in ss):
      out = prim.bind(*xs, **eqn.params)
      outs, out_ss = (out, [zero_series] * len(out)) if multi else ([out], [zero_series])
    else:
      rule = _rule(prim)
      out, out_s = rule(list(xs), [_instantiate(x, s, order) for x, s in zip(xs, ss)],
                        **eqn.params)
      outs, out_ss = (out, out_s) if multi else ([out], [out_s])
    for v, x, s in zip(eqn.outvars, outs, out_ss):
      env[v] = (x, s)
  pairs = [read(v) for v in jaxpr.outvars]
  return [p for p, _ in pairs], [s for _, s in pairs]


def _jet_fun(fun: Callable, primals: list, series: list):
  """``fun``'s output and normalized series (a rule written as a composition)."""
  from ember.transforms.staging import make_jaxpr
  closed = make_jaxpr(fun)(*primals)
  order = len(series[0])
  outs, out_s = jet_jaxpr(closed.jaxpr, closed.consts, primals, series, order)
  return outs[0], _instantiate(outs[0], out_s[0], order)


# --- rule makers (JAX's names) --------------------------------------------------------------

def zero_prop(prim, primals_in, series_in, **params):
  """The rule of a piecewise-constant primitive: its series is zero.

  Example:
      >>> from ember import lax
      >>> from ember.experimental.jet import zero_prop, zero_series
      >>> out, series = zero_prop(lax.floor_p, [1.5], [[1.0]])
      >>> print(out, series is zero_series)
      1.0 True
  """
  return prim.bind(*primals_in, **params), zero_series


def defzero(prim) -> None:
  """Give ``prim`` a zero series (comparisons, ``floor``, ``sign``...).

  Example:
      >>> from ember import lax
      >>> from ember.experimental.jet import defzero, jet
      >>> defzero(lax.round_p)  # ember's rule already
      >>> jet(lax.round, (1.4,), ((1.0,),))[1]
      [Array(0., dtype=float32, weak_type=True)]
  """
  jet_rules[prim] = functools.partial(zero_prop, prim)


def linear_prop(prim, primals_in, series_in, **params):
  """The rule of a primitive linear in its series-carrying inputs: applied term by term.

  Example:
      >>> from ember import lax
      >>> from ember.experimental.jet import linear_prop
      >>> out, terms = linear_prop(lax.neg_p, [1.0], [[2.0, 3.0]])
      >>> print(out, terms)
      -1.0 [Array(-2., dtype=float32, weak_type=True), Array(-3., dtype=float32, weak_type=True)]
  """
  primal_out = prim.bind(*primals_in, **params)
  terms = [prim.bind(*ts, **params) for ts in zip(*series_in)]
  if prim.multiple_results:
    return primal_out, [list(t) for t in zip(*terms)]
  return primal_out, terms


def deflinear(prim) -> None:
  """Give ``prim`` the linear rule (structural primitives, sums, ``add``, ``neg``...).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> from ember.experimental.jet import deflinear, jet
      >>> deflinear(lax.rev_p)  # ember's rule already
      >>> jet(jnp.flip, (jnp.arange(2.0),), ((jnp.array([1.0, 2.0]),),))[1]
      [Array([2., 1.], dtype=float32)]
  """
  jet_rules[prim] = functools.partial(linear_prop, prim)


def _chain(x_series: list, d_series: list, k: int):
  """Coefficient ``k`` of ``y`` where ``y' = d x'``: ``(1/k) sum_j j x_j d_(k-j)``."""
  return sum(j * x_series[j] * d_series[k - j] for j in range(1, k + 1)) / k


def deriv_prop(prim, deriv, primals_in, series_in):
  """The rule of a unary primitive from its derivative ``deriv`` (a function): ``y' = f'(x)
  x'``, with the series of ``f'(x)`` computed by jet one order lower. Series are normalized
  (Taylor coefficients).

  Example:
      >>> from ember import lax
      >>> from ember.experimental.jet import deriv_prop
      >>> out, terms = deriv_prop(lax.sin_p, lax.cos, [0.0], [[1.0, 0.0, 0.0]])
      >>> [round(float(t), 6) for t in terms]  # sin t = t - t^3/6
      [1.0, 0.0, -0.166667]
  """
  x, = primals_in
  terms, = series_in
  primal_out = prim.bind(x)
  u = [x] + terms
  if len(terms) > 1:
    d0, d_terms = _jet_fun(deriv, [x], [terms[:-1]])
  else:
    d0, d_terms = deriv(x), []
  d = [d0] + d_terms
  return primal_out, [_chain(u, d, k) for k in range(1, len(u))]


def def_deriv(prim, deriv) -> None:
  """Give the unary ``prim`` the rule made from its derivative ``deriv``.

  Example:
      >>> from ember.extend.core import Primitive
      >>> from ember.experimental.jet import def_deriv, jet
      >>> cube = Primitive("cube_doc")
      >>> _ = cube.def_impl(lambda x: x * x * x); _ = cube.def_abstract_eval(lambda x: x)
      >>> def_deriv(cube, lambda x: 3 * x * x)
      >>> print(jet(cube.bind, (2.0,), ((1.0,),))[1])
      [Array(12., dtype=float32, weak_type=True)]
  """
  jet_rules[prim] = functools.partial(deriv_prop, prim, deriv)


def def_comp(prim, comp, **kwargs) -> None:
  """Give ``prim`` the rule of ``comp``, a function of ember operations equal to it. Keyword
  arguments are ``jet2``'s (``factorial_scaled``); others are ignored, as in JAX.

  Example:
      >>> from ember.extend.core import Primitive
      >>> from ember.experimental.jet import def_comp, jet
      >>> square = Primitive("square_doc")
      >>> _ = square.def_impl(lambda x: x * x); _ = square.def_abstract_eval(lambda x: x)
      >>> def_comp(square, lambda x: x * x)
      >>> print(jet(square.bind, (3.0,), ((1.0, 0.0),))[1])
      [Array(6., dtype=float32, weak_type=True), Array(2.0000005, dtype=float32, weak_type=True)]
  """
  factorial_scaled = kwargs.get("factorial_scaled", False)

  def rule(primals_in, series_in, **params):
    del params
    if factorial_scaled:
      return jet(comp, tuple(primals_in), tuple(series_in), factorial_scaled=True)
    return _jet_fun(comp, list(primals_in), list(series_in))
  jet_rules[prim] = rule


from ember.experimental import _jet_rules  # noqa: E402,F401  (fills jet_rules)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
