"""The chi-squared distribution with ``df`` degrees of freedom, mirroring ``jax.scipy.stats.chi2``."""
from __future__ import annotations

from ember import lax
from ember.scipy._util import promote_inexact
from ember.scipy.stats import gamma as _gamma

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
  """The log density (a gamma density of shape df/2 and scale 2).

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.logpdf(1., 3.)
      Array(-1.4189389, dtype=float32, weak_type=True)
  """
  x, df, loc, scale = promote_inexact("chi2.logpdf", x, df, loc, scale)
  return _gamma.logpdf(x, df / 2, loc, 2 * scale)


def pdf(x, df, loc=0, scale=1):
  """The chi-squared density.

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.pdf(1., 3.)
      Array(0.24197064, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
  """The chi-squared CDF.

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.cdf(1., 3.)
      Array(0.19874799, dtype=float32, weak_type=True)
  """
  x, df, loc, scale = promote_inexact("chi2.cdf", x, df, loc, scale)
  return _gamma.cdf(x, df / 2, loc, 2 * scale)
