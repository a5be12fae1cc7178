"""The Cauchy distribution, mirroring ``jax.scipy.stats.cauchy``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(pi scale) - log1p(z**2)``, z = (x - loc) / scale.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.logpdf(1.)
      Array(-1.837877, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("cauchy.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  log_norm = lax.log(lax.mul(_lax_const(x, np.pi), scale))
  return lax.neg(lax.add(log_norm, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
  """The Cauchy density.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.pdf(1.)
      Array(0.15915495, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``1/2 + atan(z) / pi``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.cdf(1.)
      Array(0.75, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("cauchy.cdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  inv_pi = lax.div(_lax_const(x, 1.), _lax_const(x, np.pi))
  return lax.add(_lax_const(x, 0.5), lax.mul(inv_pi, jnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
  """The log of the CDF (``log(cdf)``, as in JAX).

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.logcdf(1.)
      Array(-0.2876821, dtype=float32, weak_type=True)
  """
  return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
  """The survival function, ``cdf(-x, -loc, scale)``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.sf(1.)
      Array(0.25, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("cauchy.sf", x, loc, scale)
  return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
  """The log of the survival function, ``logcdf(-x, -loc, scale)``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.logsf(1.)
      Array(-1.3862944, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("cauchy.logsf", x, loc, scale)
  return logcdf(-x, -loc, scale)


def _quantile(name, q, loc, scale, sign):
  q, loc, scale = _promote_inexact(name, q, loc, scale)
  pi_q, half_pi = lax.mul(_lax_const(q, np.pi), q), _lax_const(q, np.pi / 2)
  angle = lax.sub(pi_q, half_pi) if sign > 0 else lax.sub(half_pi, pi_q)
  return lax.add(lax.mul(lax.tan(angle), scale), loc)


def ppf(q, loc=0, scale=1):
  """The quantile ``loc + scale * tan(pi (q - 1/2))`` (no check that q is in [0, 1], as JAX).

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.ppf(0.75)
      Array(0.99999994, dtype=float32, weak_type=True)
  """
  return _quantile("cauchy.ppf", q, loc, scale, 1)


def isf(q, loc=0, scale=1):
  """The inverse survival function ``loc + scale * tan(pi (1/2 - q))``.

  Example:
      >>> from ember.scipy.stats import cauchy
      >>> cauchy.isf(0.25)
      Array(1., dtype=float32, weak_type=True)
  """
  return _quantile("cauchy.isf", q, loc, scale, -1)
