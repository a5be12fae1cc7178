"""The normal distribution truncated to [a, b] (in standard deviations from loc), mirroring
``jax.scipy.stats.truncnorm``.

As in JAX: every function gives NaN where a >= b, and all but ``pdf`` are compiled.
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats import norm
from ember.transforms.jit import jit as _jit

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(x, y):
  """``log(exp(x) - exp(y))``, stably."""
  return special.logsumexp(jnp.array([x, y]),
                           b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a, b):
  """The log of the standard normal mass of [a, b], from whichever tail loses least precision."""
  a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
  left, right = b <= 0, a > 0
  central = ~(left | right)
  a_tail, b_tail = jnp.where(right, -b, a), jnp.where(right, -a, b)  # mirror the right tail
  mass_tail = _log_diff(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
  mass_central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
  return jnp.where(central, mass_central, mass_tail)


@_jit
def _logpdf(x, a, b, loc, scale):
  x, a, b, loc, scale = _promote_inexact("truncnorm.logpdf", x, a, b, loc, scale)
  val = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
  z = lax.div(lax.sub(x, loc), scale)
  val = jnp.where((z < a) | (z > b), -np.inf, val)
  return jnp.where(a >= b, np.nan, val)


@_jit
def _logcdf(x, a, b, loc, scale):
  x, a, b, loc, scale = _promote_inexact("truncnorm.logcdf", x, a, b, loc, scale)
  x, a, b = jnp.broadcast_arrays(x, a, b)
  z = lax.div(lax.sub(x, loc), scale)
  log_mass = _log_gauss_mass(a, b)
  log_cdf = _log_gauss_mass(a, z) - log_mass
  log_sf = _log_gauss_mass(z, b) - log_mass
  # Near 1 the CDF is better computed from the survival function.
  out = jnp.select([z >= b, z <= a, log_cdf > -0.1, z > a],
                   [0, -np.inf, jnp.log1p(-jnp.exp(log_sf)), log_cdf])
  return jnp.where(a >= b, np.nan, out)


@_jit
def _logsf(x, a, b, loc, scale):
  x, a, b, loc, scale = _promote_inexact("truncnorm.logsf", x, a, b, loc, scale)
  return _logcdf(-x, -b, -a, -loc, scale)


def logpdf(x, a, b, loc=0, scale=1):
  """The log density: ``norm.logpdf(x, loc, scale)`` minus the log mass of [a, b].

  -inf where (x - loc) / scale is outside [a, b]; NaN where a >= b.

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.logpdf(0., -1., 1.)
      Array(-0.5372233, dtype=float32)
  """
  return _logpdf(x, a, b, loc, scale)


def pdf(x, a, b, loc=0, scale=1):
  """The truncated normal density.

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.pdf(0., -1., 1.)
      Array(0.58436865, dtype=float32)
  """
  return lax.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
  """The log of the CDF: the log mass of [a, z] minus that of [a, b], z = (x - loc) / scale.

  0 for z >= b, -inf for z <= a; where the CDF is near 1 it is computed as log1p(-sf).

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.logcdf(0., -1., 1.)
      Array(-0.69314724, dtype=float32)
  """
  return _logcdf(x, a, b, loc, scale)


def cdf(x, a, b, loc=0, scale=1):
  """The truncated normal CDF.

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.cdf(0.5, -1., 1.)
      Array(0.7804532, dtype=float32)
  """
  return lax.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
  """The log of the survival function, ``logcdf(-x, -b, -a, -loc, scale)``.

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.logsf(0.5, -1., 1.)
      Array(-1.51619, dtype=float32)
  """
  return _logsf(x, a, b, loc, scale)


def sf(x, a, b, loc=0, scale=1):
  """The truncated normal survival function.

  Example:
      >>> from ember.scipy.stats import truncnorm
      >>> truncnorm.sf(0.5, -1., 1.)
      Array(0.21954677, dtype=float32)
  """
  return lax.exp(logsf(x, a, b, loc, scale))
