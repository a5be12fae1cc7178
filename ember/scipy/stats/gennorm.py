"""The generalized normal distribution of shape ``beta``, as ``jax.scipy.stats.gennorm``."""
from __future__ import annotations

from ember import lax
from ember.scipy._util import promote_inexact as _promote_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, beta):
  """The log density ``log(beta / 2) - lgamma(1 / beta) - |x|**beta``.

  Example:
      >>> from ember.scipy.stats import gennorm
      >>> gennorm.logpdf(1., 2.)
      Array(-1.5723648, dtype=float32, weak_type=True)
  """
  x, beta = _promote_inexact("gennorm.logpdf", x, beta)
  return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
  """The CDF ``(1 + sign(x) igamma(1 / beta, |x|**beta)) / 2``.

  Example:
      >>> from ember.scipy.stats import gennorm
      >>> gennorm.cdf(1., 2.)
      Array(0.9213504, dtype=float32, weak_type=True)
  """
  x, beta = _promote_inexact("gennorm.cdf", x, beta)
  return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
  """The generalized normal density.

  Example:
      >>> from ember.scipy.stats import gennorm
      >>> gennorm.pdf(1., 2.)
      Array(0.20755377, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, beta))
