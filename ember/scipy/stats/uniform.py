"""The uniform distribution on [loc, loc + scale], mirroring ``jax.scipy.stats.uniform``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
  """The log density: -log(scale) inside the support, -inf outside.

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.logpdf(0.5, 0., 2.)
      Array(-0.6931472, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("uniform.logpdf", x, loc, scale)
  inside = (x >= loc) & (x <= loc + scale)
  return jnp.where(inside, -lax.log(scale), -np.inf)


def pdf(x, loc=0, scale=1):
  """The density ``1 / scale`` inside the support, 0 outside.

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.pdf(0.5, 0., 2.)
      Array(0.5, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF ``clip((x - loc) / scale, 0, 1)``.

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.cdf(0.5, 0., 2.)
      Array(0.25, dtype=float32, weak_type=True)
  """
  x, loc, scale = promote_inexact("uniform.cdf", x, loc, scale)
  return jnp.clip(lax.div(lax.sub(x, loc), scale), 0, 1)


def ppf(q, loc=0, scale=1):
  """The quantile ``loc + q * scale`` (NaN outside [0, 1]).

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.ppf(0.25, 0., 2.)
      Array(0.5, dtype=float32, weak_type=True)
  """
  q, loc, scale = promote_inexact("uniform.ppf", q, loc, scale)
  return jnp.where((q >= 0) & (q <= 1), loc + q * scale, np.nan)
