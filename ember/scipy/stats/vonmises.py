"""The von Mises distribution on the circle, mirroring ``jax.scipy.stats.vonmises``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
  """The log density ``kappa (cos x - 1) - log(2 pi i0e(kappa))``; NaN for kappa <= 0.

  ``x`` is not reduced to one period (the density is periodic, as in JAX).

  Example:
      >>> from ember.scipy.stats import vonmises
      >>> vonmises.logpdf(0., 2.)
      Array(-0.6618706, dtype=float32, weak_type=True)
  """
  x, kappa = _promote_inexact("vonmises.logpdf", x, kappa)
  out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
  return jnp.where(lax.gt(kappa, _lax_const(kappa, 0)), out, np.nan)


def pdf(x, kappa):
  """The von Mises density.

  Example:
      >>> from ember.scipy.stats import vonmises
      >>> vonmises.pdf(0., 2.)
      Array(0.5158854, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, kappa))
