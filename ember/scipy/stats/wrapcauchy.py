"""The wrapped Cauchy distribution on [0, 2 pi], mirroring ``jax.scipy.stats.wrapcauchy``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
  """The log density ``log(1 - c**2) - log(2 pi) - log(1 + c**2 - 2 c cos x)`` on [0, 2 pi].

  -inf for x outside [0, 2 pi]; NaN for c outside (0, 1).

  Example:
      >>> from ember.scipy.stats import wrapcauchy
      >>> wrapcauchy.logpdf(1., 0.5)
      Array(-1.782643, dtype=float32, weak_type=True)
  """
  x, c = _promote_inexact("wrapcauchy.logpdf", x, c)
  in_circle = lax.ge(x, _lax_const(x, 0)) & lax.le(x, _lax_const(x, np.pi * 2))
  out = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
  good_c = lax.gt(c, _lax_const(c, 0)) & lax.lt(c, _lax_const(c, 1))
  return jnp.where(good_c, jnp.where(in_circle, out, -np.inf), np.nan)


def pdf(x, c):
  """The wrapped Cauchy density.

  Example:
      >>> from ember.scipy.stats import wrapcauchy
      >>> wrapcauchy.pdf(1., 0.5)
      Array(0.16819303, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, c))
