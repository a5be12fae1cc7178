"""The gamma distribution with shape ``a``, mirroring ``jax.scipy.stats.gamma``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
  """The log density ``xlogy(a - 1, y) - y - gammaln(a) - log(scale)``, y = (x - loc) / scale.

  -inf below loc; there ``y`` is replaced by 1 before the kernel, so gradients stay finite.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.logpdf(1., 2.)
      Array(-1., dtype=float32, weak_type=True)
  """
  x, a, loc, scale = _promote_inexact("gamma.logpdf", x, a, loc, scale)
  ok = lax.ge(x, loc)
  one = _lax_const(x, 1)
  y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
  log_linear = lax.sub(special.xlogy(lax.sub(a, one), y), y)
  log_probs = lax.sub(log_linear, lax.add(special.gammaln(a), lax.log(scale)))
  return jnp.where(ok, log_probs, -np.inf)


def pdf(x, a, loc=0, scale=1):
  """The gamma density.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.pdf(1., 2.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
  """The CDF, the regularized lower incomplete gamma ``P(a, y)`` with y clamped to [0, inf].

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.cdf(1., 2.)
      Array(0.26424113, dtype=float32, weak_type=True)
  """
  x, a, loc, scale = _promote_inexact("gamma.cdf", x, a, loc, scale)
  y = lax.clamp(_lax_const(x, 0), lax.div(lax.sub(x, loc), scale), _lax_const(x, np.inf))
  return special.gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
  """The log of the CDF (``log(cdf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.logcdf(1., 2.)
      Array(-1.3308933, dtype=float32, weak_type=True)
  """
  return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
  """The survival function, the regularized upper incomplete gamma ``Q(a, y)`` (1 below loc).

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.sf(1., 2.)
      Array(0.7357589, dtype=float32, weak_type=True)
  """
  x, a, loc, scale = _promote_inexact("gamma.sf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  return jnp.where(lax.lt(y, _lax_const(y, 0)), 1, special.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
  """The log of the survival function (``log(sf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.logsf(1., 2.)
      Array(-0.30685282, dtype=float32, weak_type=True)
  """
  return lax.log(sf(x, a, loc, scale))
