"""The exponential distribution with rate 1 / scale, shifted by loc, mirroring ``jax.scipy.stats.expon``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(scale) - (x - loc) / scale`` (-inf below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.logpdf(1.)
      Array(-1., dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("expon.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return jnp.where(z < 0, -np.inf, -lax.log(scale) - z)


def pdf(x, loc=0, scale=1):
  """The exponential density.

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.pdf(1.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``1 - exp(-(x - loc) / scale)`` (0 below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.cdf(1.)
      Array(0.63212055, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("expon.cdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return jnp.where(z < 0, jnp.zeros_like(z), -lax.expm1(-z))


def sf(x, loc=0, scale=1):
  """The survival function ``exp(-(x - loc) / scale)`` (1 below loc).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.sf(1.)
      Array(0.36787945, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("expon.sf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return jnp.where(z < 0, jnp.ones_like(z), lax.exp(-z))


def ppf(q, loc=0, scale=1):
  """The quantile ``loc - scale * log(1 - q)`` (NaN outside [0, 1]).

  Example:
      >>> from ember.scipy.stats import expon
      >>> expon.ppf(0.5)
      Array(0.6931472, dtype=float32, weak_type=True)
  """
  q, loc, scale = promote_inexact("expon.ppf", q, loc, scale)
  return jnp.where((q >= 0) & (q <= 1), loc - scale * lax.log1p(-q), np.nan)
