"""The Pareto distribution with shape ``b``, mirroring ``jax.scipy.stats.pareto``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _prepared(name, x, b, loc, scale):
  x, b, loc, scale = _promote_inexact(name, x, b, loc, scale)
  below = lax.lt(x, lax.add(loc, scale))  # outside the support [loc + scale, inf)
  return x, b, scale, lax.div(lax.sub(x, loc), scale), below


def logpdf(x, b, loc=0, scale=1):
  """The log density ``-(log(scale / b) + (b + 1) log y)``, y = (x - loc) / scale; -inf for y < 1.

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.logpdf(2., 3.)
      Array(-1.6739764, dtype=float32, weak_type=True)
  """
  x, b, scale, y, below = _prepared("pareto.logpdf", x, b, loc, scale)
  log_probs = lax.neg(lax.add(lax.log(lax.div(scale, b)),
                              lax.mul(lax.add(b, _lax_const(x, 1)), lax.log(y))))
  return jnp.where(below, -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
  """The Pareto density.

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.pdf(2., 3.)
      Array(0.1875, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
  """The CDF ``1 - y**-b`` (0 for y < 1).

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.cdf(2., 3.)
      Array(0.875, dtype=float32, weak_type=True)
  """
  x, b, _, y, below = _prepared("pareto.cdf", x, b, loc, scale)
  out = lax.sub(_lax_const(x, 1), lax.pow(y, lax.neg(b)))
  return jnp.where(below, _lax_const(x, 0), out)


def logcdf(x, b, loc=0, scale=1):
  """The log of the CDF, ``log1p(-y**-b)`` (-inf for y < 1).

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.logcdf(2., 3.)
      Array(-0.13353139, dtype=float32, weak_type=True)
  """
  x, b, _, y, below = _prepared("pareto.logcdf", x, b, loc, scale)
  return jnp.where(below, -np.inf, lax.log1p(lax.neg(lax.pow(y, lax.neg(b)))))


def logsf(x, b, loc=0, scale=1):
  """The log of the survival function, ``-b log y`` (0 for y < 1).

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.logsf(2., 3.)
      Array(-2.0794415, dtype=float32, weak_type=True)
  """
  x, b, _, y, below = _prepared("pareto.logsf", x, b, loc, scale)
  return jnp.where(below, _lax_const(x, 0), lax.neg(lax.mul(b, lax.log(y))))


def sf(x, b, loc=0, scale=1):
  """The survival function ``y**-b`` (1 for y < 1).

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.sf(2., 3.)
      Array(0.125, dtype=float32, weak_type=True)
  """
  return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
  """The quantile ``loc + scale (1 - q)**(-1 / b)`` (NaN for q outside [0, 1] or NaN).

  Example:
      >>> from ember.scipy.stats import pareto
      >>> pareto.ppf(0.875, 3.)
      Array(2., dtype=float32, weak_type=True)
  """
  q, b, loc, scale = _promote_inexact("pareto.ppf", q, b, loc, scale)
  one = _lax_const(q, 1)
  out = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
