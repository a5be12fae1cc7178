"""The binomial distribution of ``n`` trials with success probability ``p``, mirroring
``jax.scipy.stats.binom``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
  """The log probability of ``y = k - loc`` successes: ``log C(n, y) + xlogy(y, p) +
  xlog1py(n - y, -p)``.

  As in JAX: -inf outside loc <= k < loc + n + 1 (``k`` is not checked to be an integer); 0
  where y = n = 0 or where the ``xlogy`` terms vanish (p = 0 or 1 at the matching end).

  Example:
      >>> from ember.scipy.stats import binom
      >>> binom.logpmf(2., 5., 0.4)
      Array(-1.0624733, dtype=float32, weak_type=True)
  """
  k, n, p, loc = _promote_inexact("binom.logpmf", k, n, p, loc)
  y = lax.sub(k, loc)
  zero = _lax_const(y, 0)
  log_comb = lax.sub(special.gammaln(n + 1),
                     lax.add(special.gammaln(y + 1), special.gammaln(n - y + 1)))
  log_linear = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
  certain = (lax.eq(y, zero) & lax.eq(n, zero)) | lax.eq(log_linear, zero)
  log_probs = jnp.where(certain, 0., lax.add(log_comb, log_linear))
  return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
  """The probability of ``k - loc`` successes in ``n`` trials.

  Example:
      >>> from ember.scipy.stats import binom
      >>> binom.pmf(2., 5., 0.4)
      Array(0.34559998, dtype=float32, weak_type=True)
  """
  return lax.exp(logpmf(k, n, p, loc))
