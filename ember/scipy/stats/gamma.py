"""The gamma distribution with shape ``a``, mirroring ``jax.scipy.stats.gamma``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
  """The log density ``(a-1) log y - y - gammaln(a) - log(scale)``, y = (x - loc) / scale.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.logpdf(1., 2.)
      Array(-1., dtype=float32, weak_type=True)
  """
  x, a, loc, scale = promote_inexact("gamma.logpdf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  out = special.xlogy(a - 1, y) - y - lax.lgamma(a) - lax.log(scale)
  return jnp.where(y < 0, -np.inf, out)


def pdf(x, a, loc=0, scale=1):
  """The gamma density.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.pdf(1., 2.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
  """The CDF, the regularized lower incomplete gamma function.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.cdf(1., 2.)
      Array(0.26424113, dtype=float32, weak_type=True)
  """
  x, a, loc, scale = promote_inexact("gamma.cdf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  return special.gammainc(a, jnp.maximum(y, 0))


def sf(x, a, loc=0, scale=1):
  """The survival function, the regularized upper incomplete gamma function.

  Example:
      >>> from ember.scipy.stats import gamma
      >>> gamma.sf(1., 2.)
      Array(0.7357589, dtype=float32, weak_type=True)
  """
  x, a, loc, scale = promote_inexact("gamma.sf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  return special.gammaincc(a, jnp.maximum(y, 0))
