"""The Laplace (double exponential) distribution, mirroring ``jax.scipy.stats.laplace``."""
from __future__ import annotations

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-log(2 scale) - |x - loc| / scale``.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.logpdf(1.)
      Array(-1.6931472, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("laplace.logpdf", x, loc, scale)
  return -lax.log(2 * scale) - lax.abs(lax.sub(x, loc)) / scale


def pdf(x, loc=0, scale=1):
  """The Laplace density.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.pdf(1.)
      Array(0.18393973, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The Laplace CDF.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.cdf(1.)
      Array(0.8160603, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("laplace.cdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  half_tail = 0.5 * lax.exp(-lax.abs(z))
  return jnp.where(z < 0, half_tail, 1 - half_tail)
