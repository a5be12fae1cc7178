"""Student's t distribution with ``df`` degrees of freedom, mirroring ``jax.scipy.stats.t``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
  """The log density of Student's t.

  ``-(lgamma(df/2) + log(pi scale**2 df)/2 - lgamma(df/2 + 1/2) + (df + 1)/2 log1p(z**2/df))``
  with z = (x - loc) / scale; no parameter is checked (df <= 0 gives NaN through lgamma/log).

  Example:
      >>> from ember.scipy.stats import t
      >>> t.logpdf(1., 3.)
      Array(-1.5762534, dtype=float32, weak_type=True)
  """
  x, df, loc, scale = _promote_inexact("t.logpdf", x, df, loc, scale)
  two = _lax_const(x, 2)
  z = lax.div(lax.sub(x, loc), scale)
  half_df = lax.div(df, two)
  half_df_plus_half = lax.add(half_df, _lax_const(x, 0.5))
  pi_scale_sq = lax.mul(lax.mul(scale, scale), _lax_const(x, np.pi))
  log_norm = lax.sub(lax.add(lax.lgamma(half_df), lax.div(lax.log(lax.mul(pi_scale_sq, df)), two)),
                     lax.lgamma(half_df_plus_half))
  quadratic = lax.div(lax.mul(z, z), df)
  return lax.neg(lax.add(log_norm, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
  """The density of Student's t.

  Example:
      >>> from ember.scipy.stats import t
      >>> t.pdf(1., 3.)
      Array(0.20674825, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, df, loc, scale))
