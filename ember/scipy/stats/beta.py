"""The beta distribution with shapes ``a`` and ``b``, mirroring ``jax.scipy.stats.beta``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
  """The log density on [loc, loc + scale]: -inf outside, NaN for a, b or scale <= 0.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.logpdf(0.5, 2., 3.)
      Array(0.40546584, dtype=float32, weak_type=True)
  """
  x, a, b, loc, scale = _promote_inexact("beta.logpdf", x, a, b, loc, scale)
  one, zero = _lax_const(x, 1), _lax_const(a, 0)
  y = lax.div(lax.sub(x, loc), scale)
  log_linear = lax.add(special.xlogy(lax.sub(a, one), y),
                       special.xlog1py(lax.sub(b, one), lax.neg(y)))
  log_probs = lax.sub(lax.add(lax.neg(special.betaln(a, b)), log_linear), lax.log(scale))
  outside = lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc)
  out = jnp.where(outside, -np.inf, log_probs)
  bad_params = lax.le(a, zero) | lax.le(b, zero) | lax.le(scale, zero)
  return jnp.where(bad_params, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
  """The beta density.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.pdf(0.5, 2., 3.)
      Array(1.5000011, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, a, b, loc, scale))


def _clamped(name, x, a, b, loc, scale):
  x, a, b, loc, scale = _promote_inexact(name, x, a, b, loc, scale)
  y = lax.clamp(_lax_const(x, 0), lax.div(lax.sub(x, loc), scale), _lax_const(x, 1))
  return a, b, y


def cdf(x, a, b, loc=0, scale=1):
  """The CDF, the regularized incomplete beta ``I_y(a, b)`` with y clamped to [0, 1].

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.cdf(0.5, 2., 3.)
      Array(0.6875024, dtype=float32, weak_type=True)
  """
  a, b, y = _clamped("beta.cdf", x, a, b, loc, scale)
  return special.betainc(a, b, y)


def logcdf(x, a, b, loc=0, scale=1):
  """The log of the CDF (``log(cdf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.logcdf(0.5, 2., 3.)
      Array(-0.37469, dtype=float32, weak_type=True)
  """
  return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
  """The survival function ``I_{1-y}(b, a)``.

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.sf(0.5, 2., 3.)
      Array(0.31249765, dtype=float32, weak_type=True)
  """
  a, b, y = _clamped("beta.sf", x, a, b, loc, scale)
  return special.betainc(b, a, 1 - y)


def logsf(x, a, b, loc=0, scale=1):
  """The log of the survival function (``log(sf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import beta
      >>> beta.logsf(0.5, 2., 3.)
      Array(-1.1631583, dtype=float32, weak_type=True)
  """
  return lax.log(sf(x, a, b, loc, scale))
