"""The left-skewed Gumbel (extreme value type I) distribution, mirroring
``jax.scipy.stats.gumbel_l``.

Every function gives NaN where scale <= 0, as in JAX.
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _standardized(name, x, loc, scale):
  """``z = (x - loc) / scale`` and where scale > 0."""
  x, loc, scale = _promote_inexact(name, x, loc, scale)
  return scale, lax.div(lax.sub(x, loc), scale), lax.gt(scale, _lax_const(scale, 0))


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(scale) + z - exp(z)``, z = (x - loc) / scale.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.logpdf(-1.)
      Array(-1.3678794, dtype=float32, weak_type=True)
  """
  scale, z, ok = _standardized("gumbel_l.logpdf", x, loc, scale)
  out = lax.add(special.xlogy(-1, scale), lax.sub(z, lax.exp(z)))
  return jnp.where(ok, out, np.nan)


def pdf(x, loc=0, scale=1):
  """The density.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.pdf(-1.)
      Array(0.2546464, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  """The log of the CDF, ``log(-expm1(-exp(z)))`` (that is, log(1 - exp(-exp(z)))).

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.logcdf(-1.)
      Array(-1.178307, dtype=float32, weak_type=True)
  """
  _, z, ok = _standardized("gumbel_l.logcdf", x, loc, scale)
  return jnp.where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def cdf(x, loc=0, scale=1):
  """The CDF ``1 - exp(-exp(z))``.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.cdf(-1.)
      Array(0.3077994, dtype=float32, weak_type=True)
  """
  return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  """The quantile ``loc + scale log(-log(1 - p))``; NaN unless 0 < p < 1.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.ppf(0.5)
      Array(-0.36651292, dtype=float32, weak_type=True)
  """
  p, loc, scale = _promote_inexact("gumbel_l.ppf", p, loc, scale)
  ok = lax.gt(p, _lax_const(p, 0)) & lax.lt(p, _lax_const(p, 1))
  out = lax.add(loc, lax.mul(scale, lax.log(special.xlog1py(-1, lax.neg(p)))))
  return jnp.where(ok, out, np.nan)


def logsf(x, loc=0, scale=1):
  """The log of the survival function, ``-exp(z)``.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.logsf(-1.)
      Array(-0.36787945, dtype=float32, weak_type=True)
  """
  _, z, ok = _standardized("gumbel_l.logsf", x, loc, scale)
  return jnp.where(ok, lax.neg(lax.exp(z)), np.nan)


def sf(x, loc=0, scale=1):
  """The survival function ``exp(-exp(z))``.

  Example:
      >>> from ember.scipy.stats import gumbel_l
      >>> gumbel_l.sf(-1.)
      Array(0.6922006, dtype=float32, weak_type=True)
  """
  return jnp.exp(logsf(x, loc, scale))
