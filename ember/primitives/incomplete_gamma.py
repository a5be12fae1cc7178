"""The regularized incomplete gamma functions and their derivatives in the shape parameter:
``igamma`` (P), ``igammac`` (Q = 1 - P), ``igamma_grad_a`` (dP/da) and ``random_gamma_grad``
(dx/da at fixed P(a, x), the implicit reparameterisation gradient of a Gamma(a) sample x).

All four are binary elementwise ops on floats of one dtype, sharing elementwise.py's shape rule
and broadcasting batch rule. Each lowers, through ``lower_fun``, to one of two loops over all
elements at once (finished elements keep their values), chosen per element:

- the power series ``P(a, x) = x**a e**-x / Gamma(a + 1) * sum_n x**n / ((a + 1)...(a + n))``
  where ``x < 1`` or ``x <= a`` (``x < a`` for Q);
- Legendre's continued fraction for ``Q(a, x) * Gamma(a) / (x**a e**-x)`` elsewhere, evaluated
  through its convergents' three-term recurrences (rescaled when they grow large), at most
  2000 terms.

The derivative in ``a`` of every term is carried beside it (forward mode by hand), so dP/da costs
one loop too. A loop stops when its last term (of the derivative, for the derivative modes) is
below the dtype's epsilon relative to the sum, so float32 and float64 reach about the accuracy of
``scipy.special.gammainc`` for moderate ``a`` (below ~1e4); float16 and bfloat16 are computed in
float32.

Derivatives: dP/dx is the Gamma(a) density ``x**(a-1) e**-x / Gamma(a)``, dP/da is
``igamma_grad_a``; ``igamma_grad_a`` and ``random_gamma_grad`` have no derivative rules (none in
JAX either).

Differences from JAX: ``random_gamma_grad`` is a primitive (one jaxpr equation), where JAX
inlines a composite of lax operations; it stays accurate in the far tails (P or Q below ~1e-40 in
float32), where JAX's drifts; ``igamma(0, x)`` is 1 for every ``x > 0`` (JAX: nan for x < 1).
"""
from __future__ import annotations

import functools

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive
from ember.primitives.elementwise import (_const, _defjvp, broadcast_shapes, broadcast_tangent,
                                          dtype_class, lax)
from ember.primitives.lower_fun import lower_fun
from ember.transforms import batching

__all__ = []  # primitives are reached through ember.lax

_MAX_FRACTION_TERMS = 2000

# What a lowering computes: P, Q, dP/da, or dx/da at fixed P.
_P, _Q, _DP_DA, _DX_DA = "P", "Q", "dP/da", "dx/da"


# --- the two expansions -----------------------------------------------------------------------

def _any(on):
  return lax.reduce_or(on, tuple(range(len(on.aval.shape))))


def _keep(on, new, old):
  """``new`` where ``on``, else ``old`` (elementwise, for each pair of state arrays)."""
  return tuple(lax.select(on, n, o) for n, o in zip(new, old, strict=True))


def _series(a, x, on, eps, wrt_a: bool):
  """``sum_n x**n / ((a + 1)...(a + n))`` and its derivative in ``a``, summed where ``on``."""
  one = np.ones((), eps.dtype)

  def body(state):
    on, *old = state
    r, term, total, d_term, d_total = old
    r = lax.add(r, one)
    ratio = lax.div(x, r)
    d_term = lax.sub(lax.mul(d_term, ratio), lax.div(lax.mul(term, ratio), r))
    term = lax.mul(term, ratio)
    total, d_total = lax.add(total, term), lax.add(d_total, d_term)
    last, acc = (d_term, d_total) if wrt_a else (term, total)
    more = lax.bitwise_and(on, lax.gt(lax.abs(lax.div(last, acc)), eps))
    return (more, *_keep(on, (r, term, total, d_term, d_total), old))

  ones, zeros = lax.full_like(x, 1), lax.full_like(x, 0)
  out = lax.while_loop(lambda s: _any(s[0]), body, (on, a, ones, ones, zeros, zeros))
  return out[3], out[5]


def _recurrence(v1, v2, dv1, dv2, z, yk, k):
  """The next numerator (or denominator) of the continued fraction, ``v1 z - v2 y k``, and its
  derivative in ``a`` (``dz/da = -1``, ``d(y k)/da = -k``)."""
  v = lax.sub(lax.mul(v1, z), lax.mul(v2, yk))
  dv = lax.add(lax.sub(lax.sub(lax.mul(dv1, z), v1), lax.mul(dv2, yk)), lax.mul(v2, k))
  return v, dv


def _continued_fraction(a, x, on, eps, wrt_a: bool):
  """Legendre's continued fraction for ``Q(a, x) Gamma(a) / (x**a e**-x)`` and its derivative in
  ``a``, as the ratio of the convergents ``p/q`` (Cephes' recurrences), evaluated where ``on``."""
  dt = eps.dtype
  one, two, big = np.ones((), dt), np.asarray(2, dt), np.asarray(1 / eps, dt)
  ones, zeros = lax.full_like(x, 1), lax.full_like(x, 0)
  one_minus_a, z0 = lax.sub(one, a), lax.add(lax.sub(x, a), two)
  p, q = lax.add(x, one), lax.mul(z0, x)
  ratio = lax.div(p, q)

  def body(state):
    k, on, *old = state
    p1, p2, q1, q2, dp1, dp2, dq1, dq2, ratio, d_ratio = old
    k = lax.add(k, one)
    z = lax.add(z0, lax.mul(two, k))
    yk = lax.mul(lax.add(one_minus_a, k), k)
    p, dp = _recurrence(p1, p2, dp1, dp2, z, yk, k)
    q, dq = _recurrence(q1, q2, dq1, dq2, z, yk, k)
    nonzero = lax.ne(q, zeros)
    safe_q = lax.select(nonzero, q, ones)
    new_ratio = lax.select(nonzero, lax.div(p, safe_q), ratio)
    new_d_ratio = lax.select(
        nonzero, lax.div(lax.sub(dp, lax.mul(new_ratio, dq)), safe_q), d_ratio)
    now, before = (new_d_ratio, d_ratio) if wrt_a else (new_ratio, ratio)
    change = lax.select(nonzero, lax.abs(lax.div(lax.sub(now, before), now)), ones)
    # Only the convergents' ratios matter: scale them all down when they grow large.
    scale = lax.select(lax.gt(lax.abs(p), big), lax.full_like(x, eps), ones)
    p, p1, q, q1, dp, dp1, dq, dq1 = (lax.mul(v, scale) for v in (p, p1, q, q1, dp, dp1, dq, dq1))
    new = (p, p1, q, q1, dp, dp1, dq, dq1, new_ratio, new_d_ratio)
    return (k, lax.bitwise_and(on, lax.gt(change, eps)), *_keep(on, new, old))

  def running(state):
    return lax.bitwise_and(_any(state[1]), lax.lt(state[0], np.asarray(_MAX_FRACTION_TERMS, dt)))

  init = (np.zeros((), dt), on, p, ones, q, x, zeros, zeros, lax.neg(x), zeros, ratio,
          lax.div(lax.mul(ratio, x), q))
  out = lax.while_loop(running, body, init)
  return out[-2], out[-1]


# --- the four functions from the two expansions -----------------------------------------------

def _combine(mode, a, x, log_prefactor, series, fraction, fraction_used):
  """The function ``mode`` from the series' and the continued fraction's sums (and their
  derivatives), each where it was used."""
  (total, d_total), (ratio, d_ratio) = series, fraction
  one = np.ones((), x.aval.dtype)
  prefactor = lax.exp(log_prefactor)
  if mode in (_P, _Q):
    p_series = lax.div(lax.mul(total, prefactor), a)
    q_fraction = lax.mul(ratio, prefactor)
    if mode == _P:
      return lax.select(fraction_used, lax.sub(one, q_fraction), p_series)
    return lax.select(fraction_used, q_fraction, lax.sub(one, p_series))
  log_x = lax.log(x)
  # d/da of the sums times their prefactors: Gamma(a + 1) in the series, Gamma(a) in the fraction.
  d_series = lax.add(d_total, lax.mul(total, lax.sub(log_x, lax.digamma(lax.add(a, one)))))
  d_fraction = lax.add(d_ratio, lax.mul(ratio, lax.sub(log_x, lax.digamma(a))))
  if mode == _DP_DA:
    return lax.select(fraction_used, lax.neg(lax.mul(prefactor, d_fraction)),
                      lax.div(lax.mul(prefactor, d_series), a))
  # dx/da = -(dP/da) / (dP/dx), where dP/dx = prefactor / x.
  return lax.select(fraction_used, lax.mul(d_fraction, x),
                    lax.neg(lax.div(lax.mul(d_series, x), a)))


def _incomplete_gamma(a, x, *, mode: str):
  """``mode`` (P, Q, dP/da or dx/da) of ``a`` and ``x`` in lax operations: the lowering."""
  dtype = a.aval.dtype
  shape = np.broadcast_shapes(a.aval.shape, x.aval.shape)
  a, x = broadcast_tangent(a, shape), broadcast_tangent(x, shape)
  work = np.dtype(np.float32) if dtypes.finfo(dtype).bits < 32 else dtype
  if work != dtype:
    a, x = lax._convert_element_type(a, work), lax._convert_element_type(x, work)
  info = dtypes.finfo(work)
  eps, zero, inf = np.asarray(info.eps, work), np.zeros((), work), np.asarray(np.inf, work)
  log_prefactor = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
  derivative = mode in (_DP_DA, _DX_DA)
  x_zero, x_inf = lax.eq(x, zero), lax.eq(x, inf)
  invalid = functools.reduce(lax.bitwise_or, [
      lax.ne(a, a), lax.ne(x, x), lax.lt(x, zero),
      lax.le(a, zero) if derivative else lax.lt(a, zero),
      x_inf if derivative else lax.bitwise_and(lax.eq(a, zero), x_zero)])
  done = functools.reduce(lax.bitwise_or, [invalid, x_zero, x_inf, lax.eq(a, zero)])
  if not derivative:  # the prefactor underflows: the sums would not change the result
    done = lax.bitwise_or(done, lax.lt(log_prefactor, np.log(np.asarray(info.tiny, work))))
  # The continued fraction where it converges fast (and Q loses no digits to 1 - P).
  fraction_used = lax.bitwise_and(lax.ge(x, np.ones((), work)),
                                  lax.ge(x, a) if mode == _Q else lax.gt(x, a))
  on = lax.bitwise_not(done)
  series = _series(a, x, lax.bitwise_and(on, lax.bitwise_not(fraction_used)), eps, derivative)
  fraction = _continued_fraction(a, x, lax.bitwise_and(on, fraction_used), eps, derivative)
  out = _combine(mode, a, x, log_prefactor, series, fraction, fraction_used)
  at_zero, at_inf = (1, 0) if mode == _Q else (0, 1)
  out = lax.select(x_zero, lax.full_like(out, at_zero), out)
  # P(a, x) is 1 for x = inf and for a = 0 < x.
  out = lax.select(lax.bitwise_or(x_inf, lax.eq(a, zero)), lax.full_like(out, at_inf), out)
  out = lax.select(invalid, lax.full_like(out, np.nan), out)
  return out if work == dtype else lax._convert_element_type(out, dtype)


# --- the primitives ---------------------------------------------------------------------------

def _abstract_eval(name: str):
  """Two floating operands of one dtype (JAX's messages); elementwise broadcasting."""
  def abstract_eval(a: ShapedArray, x: ShapedArray) -> ShapedArray:
    for i, aval in enumerate((a, x)):
      if dtype_class(aval.dtype) != "float":
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name} at position {i}. "
                        f"Accepted dtypes at position {i} are subtypes of floating.")
    if a.dtype != x.dtype:
      raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                      f"{a.dtype.name}, {x.dtype.name}.")
    return ShapedArray(broadcast_shapes(name, a, x), a.dtype, a.weak_type and x.weak_type)
  return abstract_eval


def _primitive(name: str, mode: str) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_abstract_eval(name),
              lower=lower_fun(functools.partial(_incomplete_gamma, mode=mode)),
              batch=batching.broadcast_batcher(p))
  return p


def _gamma_density(a, x):
  """``x**(a - 1) e**-x / Gamma(a)``: dP/dx."""
  return lax.exp(lax.sub(lax.add(lax.neg(x), lax.mul(lax.sub(a, _const(a, 1)), lax.log(x))),
                         lax.lgamma(a)))


igamma_p = _primitive("igamma", _P)
igammac_p = _primitive("igammac", _Q)
igamma_grad_a_p = _primitive("igamma_grad_a", _DP_DA)
random_gamma_grad_p = _primitive("random_gamma_grad", _DX_DA)

_defjvp(igamma_p, lambda g, a, x: lax.mul(g, igamma_grad_a_p.bind(a, x)),
        lambda g, a, x: lax.mul(g, _gamma_density(a, x)))
_defjvp(igammac_p, lambda g, a, x: lax.neg(lax.mul(g, igamma_grad_a_p.bind(a, x))),
        lambda g, a, x: lax.neg(lax.mul(g, _gamma_density(a, x))))
for _p in (igamma_grad_a_p, random_gamma_grad_p):
  _p.def_unsupported("jvp", f"{_p.name} has no derivative rule (as in JAX)")
del _p


# --- rules these primitives do not have -------------------------------------------------------

for _p in (igamma_p, igammac_p, igamma_grad_a_p, random_gamma_grad_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
