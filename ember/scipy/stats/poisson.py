"""The Poisson distribution with mean ``mu``, mirroring ``jax.scipy.stats.poisson``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
  """The log probability of ``k`` events (-inf off the non-negative integers).

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.logpmf(2., 3.)
      Array(-1.4959228, dtype=float32, weak_type=True)
  """
  k, mu, loc = promote_inexact("poisson.logpmf", k, mu, loc)
  x = lax.sub(k, loc)
  out = special.xlogy(x, mu) - lax.lgamma(x + 1) - mu
  return jnp.where((x < 0) | (x != jnp.floor(x)), -np.inf, out)


def pmf(k, mu, loc=0):
  """The probability of ``k`` events.

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.pmf(2., 3.)
      Array(0.22404176, dtype=float32, weak_type=True)
  """
  return lax.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
  """The CDF ``P(K <= k)``, the upper incomplete gamma Q(floor(k) + 1, mu).

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.cdf(2., 3.)
      Array(0.42319003, dtype=float32, weak_type=True)
  """
  k, mu, loc = promote_inexact("poisson.cdf", k, mu, loc)
  x = lax.sub(k, loc)
  p = special.gammaincc(jnp.floor(jnp.maximum(x, 0)) + 1, mu)
  return jnp.where(x < 0, jnp.zeros_like(p), p)
