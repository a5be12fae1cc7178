"""Student's t distribution with ``df`` degrees of freedom, mirroring ``jax.scipy.stats.t``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember.scipy._util import promote_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
  """The log density of Student's t.

  Example:
      >>> from ember.scipy.stats import t
      >>> t.logpdf(1., 3.)
      Array(-1.5762534, dtype=float32, weak_type=True)
  """
  x, df, loc, scale = promote_inexact("t.logpdf", x, df, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  half = (df + 1) / 2
  log_norm = (lax.lgamma(half) - lax.lgamma(df / 2) - 0.5 * lax.log(df * np.pi)
              - lax.log(scale))
  return log_norm - half * lax.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
  """The density of Student's t.

  Example:
      >>> from ember.scipy.stats import t
      >>> t.pdf(1., 3.)
      Array(0.20674825, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, df, loc, scale))
