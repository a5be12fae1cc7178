"""The beta distribution with shapes ``a`` and ``b``, mirroring ``jax.scipy.stats.beta``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, a, b, loc=0, scale=1):
  """The log density on (loc, loc + scale), -inf outside.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.logpdf(0.5, 2., 3.)
      Array(0.40546584, dtype=float32, weak_type=True)
  """
  x, a, b, loc, scale = promote_inexact("beta.logpdf", x, a, b, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  out = (special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y) - special.betaln(a, b)
         - lax.log(scale))
  return jnp.where((y < 0) | (y > 1), -np.inf, out)


def pdf(x, a, b, loc=0, scale=1):
  """The beta density.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.pdf(0.5, 2., 3.)
      Array(1.5000011, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
  """The CDF, the regularized incomplete beta function.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.cdf(0.5, 2., 3.)
      Array(0.6875024, dtype=float32, weak_type=True)
  """
  x, a, b, loc, scale = promote_inexact("beta.cdf", x, a, b, loc, scale)
  y = jnp.clip(lax.div(lax.sub(x, loc), scale), 0, 1)
  return special.betainc(a, b, y)
