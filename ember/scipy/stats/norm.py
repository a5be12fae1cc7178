"""The normal distribution N(loc, scale^2), mirroring ``jax.scipy.stats.norm``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._normal import _log_ndtr, _ndtr, _ndtri
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log of the normal density at ``x``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logpdf(0.)
      Array(-0.9189385, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("norm.logpdf", x, loc, scale)
  scale_sq = lax.square(scale)
  quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sq)
  return -(jnp.log(2 * np.pi * scale_sq) + quadratic) / 2


def pdf(x, loc=0, scale=1):
  """The normal density at ``x``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.pdf(1.)
      Array(0.24197073, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def _standardized(name, x, loc, scale):
  x, loc, scale = promote_inexact(name, x, loc, scale)
  return lax.div(lax.sub(x, loc), scale)


def cdf(x, loc=0, scale=1):
  """The normal CDF ``P(X <= x)``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.cdf(1.)
      Array(0.8413447, dtype=float32)
  """
  return _ndtr(_standardized("norm.cdf", x, loc, scale))


def logcdf(x, loc=0, scale=1):
  """The log of the normal CDF, accurate far into the lower tail.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logcdf(-20.)
      Array(-203.91716, dtype=float32)
  """
  return _log_ndtr(_standardized("norm.logcdf", x, loc, scale), 3)


def sf(x, loc=0, scale=1):
  """The survival function ``P(X > x) = cdf(-x)`` for the standardized variable.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.sf(1.)
      Array(0.15865527, dtype=float32)
  """
  return _ndtr(lax.neg(_standardized("norm.sf", x, loc, scale)))


def logsf(x, loc=0, scale=1):
  """The log of the survival function, accurate far into the upper tail.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logsf(20.)
      Array(-203.91716, dtype=float32)
  """
  return _log_ndtr(lax.neg(_standardized("norm.logsf", x, loc, scale)), 3)


def ppf(q, loc=0, scale=1):
  """The quantile function, the inverse of ``cdf``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.ppf(0.975)
      Array(1.9599644, dtype=float32)
  """
  q, loc, scale = promote_inexact("norm.ppf", q, loc, scale)
  return lax.add(lax.mul(_ndtri(q), scale), loc)


def isf(q, loc=0, scale=1):
  """The inverse survival function, the inverse of ``sf``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.isf(0.025)
      Array(1.9599639, dtype=float32)
  """
  q, loc, scale = promote_inexact("norm.isf", q, loc, scale)
  return lax.sub(loc, lax.mul(_ndtri(q), scale))
