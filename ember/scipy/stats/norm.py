"""The normal distribution N(loc, scale^2), mirroring ``jax.scipy.stats.norm``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log of the normal density, ``(log(2 pi scale**2) + ((x - loc) / scale)**2) / -2``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logpdf(0.)
      Array(-0.9189385, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("norm.logpdf", x, loc, scale)
  scale_sq = lax.square(scale)
  log_norm = lax.log(lax.mul(_lax_const(x, 2 * np.pi), scale_sq))
  quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sq)
  return lax.div(lax.add(log_norm, quadratic), _lax_const(x, -2))


def pdf(x, loc=0, scale=1):
  """The normal density at ``x``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.pdf(1.)
      Array(0.24197073, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The normal CDF ``P(X <= x)``, ``ndtr((x - loc) / scale)``.

  Raises:
      TypeError: for float16 or bfloat16 arguments (as ``special.ndtr``, and JAX).

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.cdf(1.)
      Array(0.8413447, dtype=float32)
  """
  x, loc, scale = _promote_inexact("norm.cdf", x, loc, scale)
  return special.ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
  """The log of the normal CDF, ``log_ndtr((x - loc) / scale)``, accurate far into the lower tail.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logcdf(-20.)
      Array(-203.91716, dtype=float32)
  """
  x, loc, scale = _promote_inexact("norm.logcdf", x, loc, scale)
  return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
  """The survival function ``P(X > x)``, ``cdf(-x, -loc, scale)``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.sf(1.)
      Array(0.15865527, dtype=float32)
  """
  x, loc, scale = _promote_inexact("norm.sf", x, loc, scale)
  return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
  """The log of the survival function, ``logcdf(-x, -loc, scale)``.

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.logsf(20.)
      Array(-203.91716, dtype=float32)
  """
  x, loc, scale = _promote_inexact("norm.logsf", x, loc, scale)
  return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
  """The quantile ``ndtri(q) * scale + loc``, in the default float dtype.

  As in JAX, ``q`` is not promoted first (an integer or bool ``q`` raises ``ndtri``'s
  TypeError) and the result is converted to the default float dtype (float64 under x64).

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.ppf(0.975)
      Array(1.9599644, dtype=float32)
  """
  return jnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
  """The inverse survival function ``ppf(1 - q)`` (so tiny q lose precision, as in JAX).

  Example:
      >>> from ember.scipy.stats import norm
      >>> norm.isf(0.025)
      Array(1.9599644, dtype=float32)
  """
  return ppf(lax.sub(_lax_const(q, 1), q), loc, scale)
