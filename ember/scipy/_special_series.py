"""Iterative kernels behind ember.scipy.special: the generalized exponential integral ``expn``
(which gives ``exp1`` and the negative half of ``expi``), ``expi`` itself, and the confluent and
Gauss hypergeometric functions ``hyp1f1`` and ``hyp2f1`` with the series of their parameter
derivatives.

They follow JAX 0.10.2's algorithms: Cephes' expn.c (a power series for ``x <= 1``, a continued
fraction beyond, an asymptotic formula for orders from 5000), and Pearson, Olver & Porter (2014)
with AMS 55 15.3.10-12 for the hypergeometric functions. JAX runs each loop per element until
that element's own test stops it; here one loop runs over whole arrays and an element that has
stopped, or whose value another branch supplies, keeps its state. Every element therefore gets
the value JAX gives it, without the iterations JAX spends on branches it then discards (which is
why JAX's ``exp1`` of an array holding 1e-20 never returns, and ember's does). Each kernel takes
arrays already promoted to one inexact dtype and broadcast to one shape, and carries JAX's
derivative rule as a custom JVP.
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special as _special  # gamma and digamma (defined before this is loaded)
from ember.scipy._special_rational import const, expi_positive
from ember.transforms.custom import custom_jvp

__all__ = ["expi", "expn", "hyp1f1", "hyp2f1"]


def _iterate(active, body, state):
  """``state`` after applying ``body`` to every element while ``active(state)`` holds there (a
  ``while_loop`` per element, as JAX's loops under ``vmap``)."""
  def step(s):
    on = active(s)
    return tuple(jnp.where(on, new, old) for new, old in zip(body(s), s))
  return lax.while_loop(lambda s: jnp.any(active(s)), step, tuple(state))


def _strong(*xs):
  return [lax.convert_element_type(x, x.dtype) for x in xs]


def _full(x, value):
  return jnp.full(jnp.shape(x), value, x.dtype)


def _choose(index, choices):
  """``choices[index]`` elementwise (``lax.select_n`` over broadcast choices)."""
  return jnp.select([index == i for i in range(len(choices) - 1)], choices[:-1], choices[-1])


# --- expn, exp1, expi --------------------------------------------------------------------------

def _expn_series(n, x, use):
  """E_n(x) from its power series (Cephes, for 0 < x <= 1)."""
  eps = jnp.finfo(x.dtype).eps
  one = const(x, 1.)
  psi, _ = _iterate(lambda s: use & (s[1] < n), lambda s: (s[0] + one / s[1], s[1] + one),
                    (-np.euler_gamma - jnp.log(x), _full(x, 1.)))
  z = -x
  ans = jnp.where(n == 1, const(x, 0.), one / (one - jnp.where(n == 1, one + one, n)))
  init = (_full(x, 0.), _full(x, 1.), one - n, ans, _full(x, np.inf))

  def body(s):
    xk, yk, pk, ans, _ = s
    xk, pk = xk + one, pk + one
    yk = yk * (z / xk)
    ans = ans + jnp.where(pk != 0, yk / pk, const(x, 0.))
    return xk, yk, pk, ans, jnp.where(ans != 0, lax.abs(yk / ans), one)

  _, _, _, ans, _ = _iterate(lambda s: use & (x > 0) & (s[4] > eps), body, init)
  return z ** (n - one) * psi / lax.exp(lax.lgamma(n)) - ans


def _expn_fraction(n, x, use):
  """E_n(x) from its continued fraction (Cephes, for x > 1), with rescaling against overflow."""
  eps = jnp.finfo(x.dtype).eps
  one, two, big = const(x, 1.), const(x, 2.), const(x, 1.44115188075855872e17)
  init = (_full(x, 1.), _full(x, 1.), x, _full(x, 1.), x + n, one / (x + n), _full(x, np.inf),
          _full(x, 0.))

  def body(s):
    k, pkm2, qkm2, pkm1, qkm1, ans, _, r = s
    k = k + one
    odd = k % two == one
    yk = jnp.where(odd, one, x)
    xk = jnp.where(odd, n + (k - one) / two, k / two)
    pk, qk = pkm1 * yk + pkm2 * xk, qkm1 * yk + qkm2 * xk
    nonzero = qk != 0
    r = jnp.where(nonzero, pk / qk, r)
    t = jnp.where(nonzero, lax.abs((ans - r) / r), one)
    ans = jnp.where(nonzero, r, ans)
    rescale = lax.abs(pk) > big
    pkm2, pkm1, qkm2, qkm1 = (jnp.where(rescale, v / big, v) for v in (pkm1, pk, qkm1, qk))
    return k, pkm2, qkm2, pkm1, qkm1, ans, t, r

  out = _iterate(lambda s: use & (x > 0) & (s[6] > eps), body, init)
  return out[5] * lax.exp(-x)


def _expn_large_order(n, x):
  """E_n(x) for n >= 5000 from the first terms of its expansion in 1 / (x + n)."""
  xk = x + n
  yk = const(x, 1.) / (xk * xk)
  ans = yk * n * (const(x, 6) * x * x - const(x, 8) * n * x + n * n)
  ans = yk * (ans + n * (n - const(x, 2) * x))
  ans = yk * (ans + n)
  return (ans + const(x, 1.)) * lax.exp(-x) / xk


@custom_jvp
def expn(n, x):
  """E_n(x) elementwise; where several cases apply the last listed wins, as in JAX."""
  n, x = _strong(n, x)
  one = const(x, 1.)
  cases = [  # (condition, value) in JAX's order; the series answers where none holds
      ((n < 0) | (x < 0), np.nan),
      ((x == 0) & (n < 2), np.inf),
      ((x == 0) & (n >= 2), one / jnp.where(n == 1, n + n, n)),
      ((n == 0) & (x >= 0), lax.exp(-x) / x),
      (n >= 5000, _expn_large_order(n, x)),
      (x > one, None),
  ]
  index = jnp.zeros(jnp.shape(x), np.int32)
  for i, (cond, _) in enumerate(cases, start=1):
    index = jnp.where(cond, i, index)
  out = _expn_series(n, x, index == 0)
  out = jnp.where(index == len(cases), _expn_fraction(n, x, index == len(cases)), out)
  for i, (_, value) in enumerate(cases[:-1], start=1):
    out = jnp.where(index == i, value, out)
  return out.astype(x.dtype)


@expn.defjvp
def _expn_jvp(primals, tangents):
  n, x = primals
  _, x_dot = tangents
  return expn(n, x), lax.mul(lax.neg(x_dot), expn(n - const(n, 1), x))


@custom_jvp
def expi(x):
  """Ei(x) elementwise: ``-E_1(-x)`` below zero, Cephes' fits above."""
  x, = _strong(x)
  return jnp.where(x < 0, -expn(jnp.ones_like(x), -x), expi_positive(x)).astype(x.dtype)


@expi.defjvp
def _expi_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  return expi(x), jnp.exp(x) / x * x_dot


# --- hyp1f1 ------------------------------------------------------------------------------------

def _series_sum(term0, grow, use, start=0., weight=None):
  """``start + sum_k weight(k) t_k`` over ``t_1 = term0``, ``t_{k+1} = grow(t_k, k)`` (weight 1
  when not given), stopping after 250 terms or once ``|t_k| / |sum| <= eps``, JAX's test."""
  eps = jnp.finfo(term0.dtype).eps
  one = const(term0, 1.)

  def body(s):
    total, k, term = s
    return total + (term if weight is None else term * weight(k)), k + one, grow(term, k)

  def active(s):
    total, k, term = s
    return use & (k < 250) & (lax.abs(term) / lax.abs(total) > eps)

  return _iterate(active, body, (_full(term0, start), _full(term0, 1.), term0))[0]


def _hyp1f1_grow(a, b, x):
  return lambda term, k: term * ((a + k) / (b + k) * x / (k + 1))


def _hyp1f1_asymptotic(a, b, x, use):
  def grow(term, k):
    return term * ((b - a + k) * (1 - a + k) / (k + 1) / x)
  total = _series_sum((b - a) * (1 - a) / x, grow, use, start=1.)
  return _special.gamma(b) / _special.gamma(a) * lax.exp(x) * x ** (a - b) * total


@custom_jvp
def hyp1f1(a, b, x):
  """1F1(a; b; x): the Taylor series for |x| < 100, the asymptotic series beyond."""
  small = lax.abs(x) < 100
  series = _series_sum(a / b * x, _hyp1f1_grow(a, b, x), small, start=1.)
  result = jnp.where(small, series, _hyp1f1_asymptotic(a, b, x, ~small))
  out = jnp.where(b == 0, np.inf, result)
  out = jnp.where(a == b, lax.exp(x), out)
  return jnp.where(a == 0, 1, out).astype(x.dtype)


@hyp1f1.defjvp
def _hyp1f1_jvp(primals, tangents):
  a, b, x = primals
  a_dot, b_dot, x_dot = tangents
  psi, every = _special.digamma, jnp.ones(jnp.shape(x), bool)
  d_a = _series_sum(a / b * x, _hyp1f1_grow(a, b, x), every, weight=lambda k: psi(a + k) - psi(a))
  d_b = _series_sum(a / b * x, _hyp1f1_grow(a, b, x), every, weight=lambda k: psi(b) - psi(b + k))
  d_x = a / b * hyp1f1(a + 1, b + 1, x)
  return hyp1f1(a, b, x), d_a * a_dot + d_b * b_dot + d_x * x_dot


# --- hyp2f1 ------------------------------------------------------------------------------------

def _hyp2f1_series(a, b, c, x, use):
  eps = jnp.finfo(x.dtype).eps
  one = const(x, 1.)

  def body(s):
    serie, k, term = s
    return serie + term, k + one, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

  active = lambda s: use & (s[1] < 250) & (lax.abs(s[2]) > eps * lax.abs(s[0]))  # noqa: E731
  return _iterate(active, body, (_full(x, 0.), _full(x, 1.), _full(x, 1.)))[0]


def _hyp2f1_terminating(a, b, c, x, use):
  """The finite sum when ``a`` or ``b`` is a non-positive integer (the one bounding the sum
  taken as ``a``)."""
  eps = jnp.finfo(x.dtype).eps * 50
  swap = (b < a) & (jnp.abs(b - jnp.round(b)) < eps) & ~(
      (c % 1 == 0) & (c <= 0) & (c > b))
  a, b = jnp.abs(jnp.where(swap, b, a)), jnp.where(swap, a, b)
  stop = a + 1

  def body(s):
    i, serie, term = s
    term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
    return i + const(x, 1.), serie + term, term

  return _iterate(lambda s: use & (s[0] < stop), body, (_full(x, 1.),) * 3)[1]


def _hyp2f1_digamma_sum(a, b, c, x, use):
  """2F1 near x = 1 when c - a - b is an integer m (AMS 55 15.3.10-12)."""
  eps = jnp.finfo(x.dtype).eps
  gamma, psi = _special.gamma, _special.digamma
  d = c - a - b
  s = 1 - x
  rd = jnp.round(d)
  up = rd >= 0
  e, d1, d2 = jnp.where(up, d, -d), jnp.where(up, d, 0.), jnp.where(up, 0., d)
  m = jnp.where(up, rd, -rd).astype(np.int32)
  log_s = jnp.log(s)
  y = (psi(1.0) + psi(1.0 + e) - psi(a + d1) - psi(b + d1) - log_s) / gamma(e + 1.0)
  p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

  def body(st):
    p, q, t, y = st
    r = psi(1.0 + t) + psi(1.0 + t + e) - psi(a + t + d1) - psi(b + t + d1) - log_s
    q = p * r
    p = p * (s * (a + t + d1) / (t + 1.0))
    p = p * ((b + t + d1) / (t + 1.0 + e))
    return p, q, t + 1.0, y + q

  active = lambda st: use & (st[2] < 250) & (jnp.abs(st[1]) >= eps * jnp.abs(st[3]))  # noqa: E731
  y = _iterate(active, body, (p, y, _full(x, 1.), y))[3]

  def finite(st):
    i, t, p, y1 = st
    p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
    t = t + 1.0
    p = p / t
    return i + 1, t, p, y1 + p

  init = (jnp.ones(jnp.shape(x), np.int32), _full(x, 0.), _full(x, 1.), _full(x, 1.))
  y1 = _iterate(lambda st: use & (st[0] < m), finite, init)[3]
  g = gamma(c)
  y1 = y1 * (gamma(e) * g / (gamma(a + d1) * gamma(b + d1)))
  yy = y * (g / (gamma(a + d2) * gamma(b + d2)))
  yy = jnp.where((m & 1) != 0, -yy, yy)
  q = s ** rd
  summed = jnp.where(rd > 0, yy * q + y1, yy + y1 * q)
  return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), summed)


def _hyp2f1_sum(a, b, c, x, use):
  """The series, the digamma form near x = 1, or the terminating sum, as JAX picks them."""
  eps = jnp.finfo(x.dtype).eps * 50
  d = c - a - b
  negative_int = lambda v: (v <= 0) & (jnp.abs(v - jnp.round(v)) < eps)  # noqa: E731
  terminates = negative_int(a) | negative_int(b)
  fractional_d = jnp.abs(d - jnp.round(d)) >= eps
  how = jnp.where((x > 0.9) & ~terminates, jnp.where(fractional_d, 0, 1),
                  jnp.where(terminates, 2, 0))
  return _choose(how, [_hyp2f1_series(a, b, c, x, use & (how == 0)),
                       _hyp2f1_digamma_sum(a, b, c, x, use & (how == 1)),
                       _hyp2f1_terminating(a, b, c, x, use & (how == 2))])


@custom_jvp
def hyp2f1(a, b, c, x):
  """2F1(a, b; c; x) for real arguments, by JAX's case analysis."""
  c_integral = c % 1 == 0  # before any comparison: a complex c fails here, as in JAX
  eps = jnp.finfo(x.dtype).eps * 50
  d = c - a - b
  s = 1 - x
  ca, cb = c - a, c - b
  cases = [  # (condition, case) in JAX's order; the first that holds wins
      ((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0),
      ((c == 0) | ((c < 0) & c_integral), 1),
      ((d <= -1) & ~((jnp.abs(d - jnp.round(d)) >= eps) & (s < 0)), 2),
      ((d <= 0) & (x == 1), 1),
      ((x < 1) & (b == c), 3),
      ((x < 1) & (a == c), 4),
      (x > 1, 1),
      (x == 1, 5),
  ]
  index = jnp.full(jnp.shape(x), 6, np.int32)
  for cond, case in reversed(cases):
    index = jnp.where(cond, case, index)
  euler = index == 2  # Euler's transformation: (1-x)^d 2F1(c-a, c-b; c; x)
  t = _hyp2f1_sum(jnp.where(euler, ca, a), jnp.where(euler, cb, b), c, x, euler | (index == 6))
  gamma = _special.gamma
  return _choose(index, [1, np.inf, s ** d * t, s ** (-a), s ** (-b),
                         gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)), t]).astype(x.dtype)


@hyp2f1.defjvp
def _hyp2f1_jvp(primals, tangents):
  a, b, c, x = primals
  a_dot, b_dot, c_dot, x_dot = tangents
  psi, every = _special.digamma, jnp.ones(jnp.shape(x), bool)

  def d_param(weight):  # d 2F1 / d(a, b or c): the series with each term weighted
    grow = lambda term, k: term * ((a + k) * (b + k) / (c + k) / (k + 1) * x)  # noqa: E731
    return _series_sum(a * b / c * x, grow, every, weight=weight)

  d_a = d_param(lambda k: psi(a + k) - psi(a))
  d_b = d_param(lambda k: psi(b + k) - psi(b))
  d_c = d_param(lambda k: psi(c) - psi(c + k))
  d_x = a * b / c * hyp2f1(a + 1, b + 1, c + 1, x)
  return hyp2f1(a, b, c, x), d_a * a_dot + d_b * b_dot + d_c * c_dot + d_x * x_dot
