"""The logistic distribution, mirroring ``jax.scipy.stats.logistic``."""
from __future__ import annotations

from ember import lax
from ember.scipy import special
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-z - 2 log(1 + exp(-z)) - log(scale)``, computed stably.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.logpdf(1.)
      Array(-1.6265234, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("logistic.logpdf", x, loc, scale)
  z = lax.abs(lax.div(lax.sub(x, loc), scale))
  return -z - 2 * lax.log1p(lax.exp(-z)) - lax.log(scale)


def pdf(x, loc=0, scale=1):
  """The logistic density.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.pdf(1.)
      Array(0.19661194, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``expit((x - loc) / scale)``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.cdf(1.)
      Array(0.7310586, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("logistic.cdf", x, loc, scale)
  return lax.logistic(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
  """The survival function ``expit(-(x - loc) / scale)``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.sf(1.)
      Array(0.26894143, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("logistic.sf", x, loc, scale)
  return lax.logistic(lax.div(lax.sub(loc, x), scale))


def ppf(x, loc=0, scale=1):
  """The quantile ``loc + scale * logit(x)``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.ppf(0.75)
      Array(1.0986123, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("logistic.ppf", x, loc, scale)
  return loc + scale * special.logit(x)


def isf(x, loc=0, scale=1):
  """The inverse survival function ``loc - scale * logit(x)``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.isf(0.25)
      Array(1.0986123, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("logistic.isf", x, loc, scale)
  return loc - scale * special.logit(x)
