"""The logistic distribution, mirroring ``jax.scipy.stats.logistic``."""
from __future__ import annotations

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-2 logaddexp(z/2, -z/2) - log(scale)``, z = (x - loc) / scale.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.logpdf(1.)
      Array(-1.6265234, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("logistic.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  two = _lax_const(z, 2)
  half_z = lax.div(z, two)
  return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_z, lax.neg(half_z))), lax.log(scale))


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
  x, loc, scale = _promote_inexact("logistic.cdf", x, loc, scale)
  return special.expit(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
  """The survival function ``expit(-(x - loc) / scale)``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.sf(1.)
      Array(0.26894143, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("logistic.sf", x, loc, scale)
  return special.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def ppf(x, loc=0, scale=1):
  """The quantile ``logit(x) * scale + loc``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.ppf(0.75)
      Array(1.0986123, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("logistic.ppf", x, loc, scale)
  return lax.add(lax.mul(special.logit(x), scale), loc)


def isf(x, loc=0, scale=1):
  """The inverse survival function ``-logit(x) * scale + loc``.

  Example:
      >>> from ember.scipy.stats import logistic
      >>> logistic.isf(0.25)
      Array(1.0986123, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("logistic.isf", x, loc, scale)
  return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)
