"""The geometric distribution (trials to the first success), as ``jax.scipy.stats.geom``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
  """The log probability ``xlog1py(x - 1, -p) + log(p)`` of the first success at trial
  ``x = k - loc``; -inf for x <= 0 (``k`` is not checked to be an integer, as in JAX).

  Example:
      >>> from ember.scipy.stats import geom
      >>> geom.logpmf(2., 0.3)
      Array(-1.5606477, dtype=float32, weak_type=True)
  """
  k, p, loc = _promote_inexact("geom.logpmf", k, p, loc)
  zero, one = _lax_const(k, 0), _lax_const(k, 1)
  x = lax.sub(k, loc)
  log_probs = special.xlog1py(lax.sub(x, one), -p) + lax.log(p)
  return jnp.where(lax.le(x, zero), -np.inf, log_probs)


def pmf(k, p, loc=0):
  """The probability of the first success at trial ``k - loc``.

  Example:
      >>> from ember.scipy.stats import geom
      >>> geom.pmf(2., 0.3)
      Array(0.21000001, dtype=float32, weak_type=True)
  """
  return jnp.exp(logpmf(k, p, loc))
