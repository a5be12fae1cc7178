"""The negative binomial distribution (failures before the n-th success), mirroring
``jax.scipy.stats.nbinom``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
  """The log probability of ``y = k - loc`` failures before the ``n``-th success:
  ``gammaln(y + n) - gammaln(n) - gammaln(y + 1) + xlogy(n, p) + xlogy(y, 1 - p)``.

  -inf below loc; ``k`` is not checked to be an integer (as in JAX).

  Example:
      >>> from ember.scipy.stats import nbinom
      >>> nbinom.logpmf(1., 3., 0.4)
      Array(-2.1610847, dtype=float32, weak_type=True)
  """
  k, n, p, loc = _promote_inexact("nbinom.logpmf", k, n, p, loc)
  one = _lax_const(k, 1)
  y = lax.sub(k, loc)
  log_comb = lax.sub(lax.sub(special.gammaln(lax.add(y, n)), special.gammaln(n)),
                     special.gammaln(lax.add(y, one)))
  log_linear = lax.add(special.xlogy(n, p), special.xlogy(y, lax.sub(one, p)))
  return jnp.where(lax.lt(k, loc), -np.inf, lax.add(log_comb, log_linear))


def pmf(k, n, p, loc=0):
  """The probability of ``k - loc`` failures before the ``n``-th success.

  Example:
      >>> from ember.scipy.stats import nbinom
      >>> nbinom.pmf(1., 3., 0.4)
      Array(0.1152001, dtype=float32, weak_type=True)
  """
  return lax.exp(logpmf(k, n, p, loc))
