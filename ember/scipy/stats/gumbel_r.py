"""The right-skewed Gumbel (extreme value type I) distribution, mirroring
``jax.scipy.stats.gumbel_r``.

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
  x, loc, scale = _promote_inexact(name, x, loc, scale)
  return x, loc, scale, lax.gt(scale, _lax_const(scale, 0))


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(scale) - (z + exp(-z))``, z = (x - loc) / scale.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.logpdf(1.)
      Array(-1.3678794, dtype=float32, weak_type=True)
  """
  x, loc, scale, ok = _standardized("gumbel_r.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  out = lax.add(special.xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
  return jnp.where(ok, out, np.nan)


def pdf(x, loc=0, scale=1):
  """The density.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.pdf(1.)
      Array(0.2546464, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  """The log of the CDF, ``-exp(-z)``.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.logcdf(1.)
      Array(-0.36787945, dtype=float32, weak_type=True)
  """
  x, loc, scale, ok = _standardized("gumbel_r.logcdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return jnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
  """The CDF ``exp(-exp(-z))``.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.cdf(1.)
      Array(0.6922006, dtype=float32, weak_type=True)
  """
  return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  """The quantile ``loc - scale log(-log p)``; NaN unless 0 < p < 1.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.ppf(0.5)
      Array(0.36651292, dtype=float32, weak_type=True)
  """
  p, loc, scale = _promote_inexact("gumbel_r.ppf", p, loc, scale)
  ok = lax.gt(p, _lax_const(p, 0)) & lax.lt(p, _lax_const(p, 1))
  out = lax.sub(loc, lax.mul(scale, lax.log(special.xlogy(-1, p))))
  return jnp.where(ok, out, np.nan)


def sf(x, loc=0, scale=1):
  """The survival function ``1 - exp(-exp(-z))``.

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.sf(1.)
      Array(0.3077994, dtype=float32, weak_type=True)
  """
  x, loc, scale, ok = _standardized("gumbel_r.sf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  out = lax.sub(_lax_const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
  return jnp.where(ok, out, np.nan)


def logsf(x, loc=0, scale=1):
  """The log of the survival function, ``log1mexp(exp(-z))`` (that is, log(1 - exp(-exp(-z)))).

  Example:
      >>> from ember.scipy.stats import gumbel_r
      >>> gumbel_r.logsf(1.)
      Array(-1.178307, dtype=float32, weak_type=True)
  """
  from ember.nn import log1mexp  # here: ember.nn imports ember.scipy
  x, loc, scale, ok = _standardized("gumbel_r.logsf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(ok, log1mexp(lax.exp(neg_z)), np.nan)
