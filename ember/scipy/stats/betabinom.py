"""The beta-binomial distribution, mirroring ``jax.scipy.stats.betabinom``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const
from ember.transforms.jit import jit as _jit

__all__ = ["logpmf", "pmf"]


def _logpmf(k, n, a, b, loc):
  k, n, a, b, loc = _promote_inexact("betabinom.logpmf", k, n, a, b, loc)
  y = lax.sub(lax.floor(k), loc)
  one, zero = _lax_const(y, 1), _lax_const(y, 0)
  log_comb = lax.neg(lax.add(lax.log1p(n), special.betaln(lax.add(lax.sub(n, y), one),
                                                          lax.add(y, one))))
  log_beta = lax.sub(special.betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)),
                     special.betaln(a, b))
  log_probs = jnp.where(lax.eq(y, zero) & lax.eq(n, zero), 0., lax.add(log_comb, log_beta))
  off = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
  log_probs = jnp.where(off, -np.inf, log_probs)
  bad = lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero)
  return jnp.where(bad, np.nan, log_probs)


_logpmf_jit = _jit(_logpmf)


def logpmf(k, n, a, b, loc=0):
  """The log probability of ``floor(k) - loc`` successes in ``n`` trials whose success
  probability is Beta(a, b) distributed.

  As in JAX: ``k`` is floored; -inf outside the support; NaN for n < 0 or a, b <= 0.
  Compiled (JAX jits it too).

  Example:
      >>> from ember.scipy.stats import betabinom
      >>> betabinom.logpmf(2., 5., 2., 3.)
      Array(-1.4350841, dtype=float32, weak_type=True)
  """
  return _logpmf_jit(k, n, a, b, loc)


def pmf(k, n, a, b, loc=0):
  """The beta-binomial probability of ``floor(k) - loc`` successes.

  Example:
      >>> from ember.scipy.stats import betabinom
      >>> betabinom.pmf(2., 5., 2., 3.)
      Array(0.23809534, dtype=float32, weak_type=True)
  """
  return lax.exp(logpmf(k, n, a, b, loc))
