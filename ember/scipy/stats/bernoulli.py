"""The Bernoulli distribution with success probability ``p``, mirroring ``jax.scipy.stats.bernoulli``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k, p, loc=0):
  """The log probability of outcome ``k`` (-inf unless k - loc is 0 or 1).

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.logpmf(1., 0.3)
      Array(-1.2039728, dtype=float32, weak_type=True)
  """
  k, p, loc = promote_inexact("bernoulli.logpmf", k, p, loc)
  x = lax.sub(k, loc)
  out = special.xlogy(x, p) + special.xlog1py(1 - x, -p)
  return jnp.where((x == 0) | (x == 1), out, -np.inf)


def pmf(k, p, loc=0):
  """The probability of outcome ``k``.

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.pmf(1., 0.3)
      Array(0.3, dtype=float32, weak_type=True)
  """
  return lax.exp(logpmf(k, p, loc))


def cdf(k, p):
  """The CDF: 0 below 0, ``1 - p`` on [0, 1), 1 from 1 on.

  Example:
      >>> from ember.scipy.stats import bernoulli
      >>> bernoulli.cdf(0.5, 0.3)
      Array(0.7, dtype=float32, weak_type=True)
  """
  k, p = promote_inexact("bernoulli.cdf", k, p)
  return jnp.where(k < 0, 0, jnp.where(k < 1, 1 - p, 1))
