"""The exponential distribution of rate 1 / scale from loc, as ``jax.scipy.stats.expon``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-(x - loc) / scale - log(scale)`` (-inf below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.logpdf(1.)
      Array(-1., dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("expon.logpdf", x, loc, scale)
  linear = lax.div(lax.sub(x, loc), scale)
  return jnp.where(lax.lt(x, loc), -np.inf, lax.neg(lax.add(linear, lax.log(scale))))


def pdf(x, loc=0, scale=1):
  """The exponential density.

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.pdf(1.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``-expm1(-(x - loc) / scale)`` (0 below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.cdf(1.)
      Array(0.63212055, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("expon.cdf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), lax.neg(lax.expm1(neg_z)))


def logcdf(x, loc=0, scale=1):
  """The log of the CDF, ``log1p(-sf(x))``.

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.logcdf(1.)
      Array(-0.45867515, dtype=float32, weak_type=True)
  """
  return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x, loc=0, scale=1):
  """The log of the survival function, ``-(x - loc) / scale`` (0 below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.logsf(1.)
      Array(-1., dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("expon.logsf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), neg_z)


def sf(x, loc=0, scale=1):
  """The survival function ``exp(logsf(x))`` (1 below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.sf(1.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  return lax.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
  """The quantile ``loc - scale * log1p(-q)`` (NaN for q outside [0, 1] or NaN).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.ppf(0.5)
      Array(0.6931472, dtype=float32, weak_type=True)
  """
  q, loc, scale = _promote_inexact("expon.ppf", q, loc, scale)
  bad = jnp.isnan(q) | (q < 0) | (q > 1)
  return jnp.where(bad, np.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
