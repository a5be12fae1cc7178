"""The Cauchy distribution, mirroring ``jax.scipy.stats.cauchy``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(pi scale) - log1p(z**2)``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.logpdf(1.)
      Array(-1.837877, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("cauchy.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return -lax.log(np.pi * scale) - lax.log1p(z * z)


def pdf(x, loc=0, scale=1):
  """The Cauchy density.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.pdf(1.)
      Array(0.15915495, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``1/2 + atan(z) / pi``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.cdf(1.)
      Array(0.75, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("cauchy.cdf", x, loc, scale)
  return 0.5 + lax.atan(lax.div(lax.sub(x, loc), scale)) / np.pi
