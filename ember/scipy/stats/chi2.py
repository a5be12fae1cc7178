"""The chi-squared distribution of ``df`` degrees of freedom, as ``jax.scipy.stats.chi2``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, df, loc=0, scale=1):
  """The log density ``(df/2 - 1) log y - y/2 - lgamma(df/2) - df log(2)/2 - log(scale)``.

  ``y = (x - loc) / scale``; -inf below loc. As in JAX the kernel uses ``log y`` (not
  ``xlogy``), so ``logpdf(0, df=2)`` is NaN (0 * -inf).

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.logpdf(1., 3.)
      Array(-1.4189389, dtype=float32, weak_type=True)
  """
  x, df, loc, scale = _promote_inexact("chi2.logpdf", x, df, loc, scale)
  one, two = _lax_const(x, 1), _lax_const(x, 2)
  y = lax.div(lax.sub(x, loc), scale)
  half_df = lax.div(df, two)
  kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
  log_norm = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
  log_probs = lax.add(lax.sub(log_norm, lax.log(scale)), kernel)
  return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
  """The chi-squared density.

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.pdf(1., 3.)
      Array(0.24197064, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, df, loc, scale))


def _half_y(name, x, df, loc, scale):
  """``df / 2`` and ``(x - loc) / (2 scale)`` clamped to [0, inf]."""
  x, df, loc, scale = _promote_inexact(name, x, df, loc, scale)
  two = _lax_const(scale, 2)
  y = lax.clamp(_lax_const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)),
                _lax_const(x, np.inf))
  return lax.div(df, two), y


def cdf(x, df, loc=0, scale=1):
  """The CDF, the regularized lower incomplete gamma ``P(df/2, (x - loc) / (2 scale))``.

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.cdf(1., 3.)
      Array(0.19874799, dtype=float32, weak_type=True)
  """
  return special.gammainc(*_half_y("chi2.cdf", x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
  """The log of the CDF (``log(cdf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.logcdf(1., 3.)
      Array(-1.6157176, dtype=float32, weak_type=True)
  """
  return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
  """The survival function, the regularized upper incomplete gamma ``Q(df/2, y/2)``.

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.sf(1., 3.)
      Array(0.801252, dtype=float32, weak_type=True)
  """
  return special.gammaincc(*_half_y("chi2.sf", x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
  """The log of the survival function (``log(sf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import chi2
      >>> chi2.logsf(1., 3.)
      Array(-0.22157978, dtype=float32, weak_type=True)
  """
  return lax.log(sf(x, df, loc, scale))
