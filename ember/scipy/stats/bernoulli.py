"""The Bernoulli distribution of success probability ``p``, as ``jax.scipy.stats.bernoulli``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
  """The log probability ``xlogy(x, p) + xlog1py(1 - x, -p)`` of ``x = k - loc``.

  As in JAX only x < 0 and x > 1 are masked (to -inf): a fractional x in [0, 1] gets the
  formula's value, and bool or int ``k`` arrays give strongly typed results.

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.logpmf(1., 0.3)
      Array(-1.2039728, dtype=float32, weak_type=True)
  """
  k, p, loc = _promote_inexact("bernoulli.logpmf", k, p, loc)
  zero, one = _lax_const(k, 0), _lax_const(k, 1)
  x = lax.sub(k, loc)
  log_probs = special.xlogy(x, p) + special.xlog1py(lax.sub(one, x), -p)
  return jnp.where(lax.lt(x, zero) | lax.gt(x, one), -np.inf, log_probs)


def pmf(k, p, loc=0):
  """The probability of outcome ``k``.

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.pmf(1., 0.3)
      Array(0.3, dtype=float32, weak_type=True)
  """
  return jnp.exp(logpmf(k, p, loc))


def _bad(x, p, zero, one):
  """NaN arguments or p outside [0, 1]."""
  return jnp.isnan(x) | jnp.isnan(p) | (p < zero) | (p > one)


def cdf(k, p):
  """The CDF: 0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for NaNs or p outside [0, 1].

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.cdf(0.5, 0.3)
      Array(0.7, dtype=float32, weak_type=True)
  """
  k, p = _promote_inexact("bernoulli.cdf", k, p)
  zero, one = _lax_const(k, 0), _lax_const(k, 1)
  conds = [_bad(k, p, zero, one), lax.lt(k, zero), lax.ge(k, zero) & lax.lt(k, one),
           lax.ge(k, one)]
  return jnp.select(conds, [np.nan, zero, one - p, one])


def ppf(q, p):
  """The quantile: 0 for q <= 1 - p, else 1; NaN for q or p outside [0, 1] or NaN.

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.ppf(0.8, 0.3)
      Array(1., dtype=float32, weak_type=True)
  """
  q, p = _promote_inexact("bernoulli.ppf", q, p)
  zero, one = _lax_const(q, 0), _lax_const(q, 1)
  bad = _bad(q, p, zero, one) | (q < zero) | (q > one)
  return jnp.where(bad, np.nan, jnp.where(lax.le(q, one - p), zero, one))
