"""The Laplace (double exponential) distribution, mirroring ``jax.scipy.stats.laplace``."""
from __future__ import annotations

from ember import lax
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
  """The log density ``-|x - loc| / scale - log(2 scale)``.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.logpdf(1.)
      Array(-1.6931472, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("laplace.logpdf", x, loc, scale)
  linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
  return lax.neg(lax.add(linear, lax.log(lax.mul(_lax_const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
  """The Laplace density.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.pdf(1.)
      Array(0.18393973, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF: ``exp(z) / 2`` for z = (x - loc) / scale <= 0, ``1 - exp(-z) / 2`` above.

  Example:
      >>> from ember.scipy.stats import laplace
      >>> laplace.cdf(1.)
      Array(0.8160603, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("laplace.cdf", x, loc, scale)
  half, one, zero = _lax_const(x, 0.5), _lax_const(x, 1), _lax_const(x, 0)
  z = lax.div(lax.sub(x, loc), scale)
  return lax.select(lax.le(z, zero), lax.mul(half, lax.exp(z)),
                    lax.sub(one, lax.mul(half, lax.exp(lax.neg(z)))))
