"""The uniform distribution on [loc, loc + scale], mirroring ``jax.scipy.stats.uniform``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact as _promote_inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
  """The log density: -log(scale), masked to -inf only where x < loc or x > loc + scale.

  As in JAX, a NaN ``x`` is not masked (its log density is -log(scale)), and a non-positive
  scale is not checked.

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.logpdf(0.5, 0., 2.)
      Array(-0.6931472, dtype=float32, weak_type=True)
  """
  x, loc, scale = _promote_inexact("uniform.logpdf", x, loc, scale)
  outside = lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc)
  return jnp.where(outside, -np.inf, lax.neg(lax.log(scale)))


def pdf(x, loc=0, scale=1):
  """The density ``1 / scale`` (0 where x < loc or x > loc + scale).

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.pdf(0.5, 0., 2.)
      Array(0.5, dtype=float32, weak_type=True)
  """
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """The CDF: 0 below loc, 1 above loc + scale, ``(x - loc) / scale`` in between.

  The three cases are tested in that order and anything else (a NaN argument, a negative
  scale) gives 0, as JAX's ``select`` does.

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.cdf(0.5, 0., 2.)
      Array(0.25, dtype=float32)
  """
  x, loc, scale = _promote_inexact("uniform.cdf", x, loc, scale)
  zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
  high = lax.add(loc, scale)
  conds = [lax.lt(x, loc), lax.gt(x, high), lax.ge(x, loc) & lax.le(x, high)]
  return jnp.select(conds, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
  """The quantile ``loc + scale * q`` (NaN for q outside [0, 1] or NaN).

  Example:
      >>> from ember.scipy.stats import uniform
      >>> uniform.ppf(0.25, 0., 2.)
      Array(0.5, dtype=float32, weak_type=True)
  """
  q, loc, scale = _promote_inexact("uniform.ppf", q, loc, scale)
  bad = jnp.isnan(q) | (q < 0) | (q > 1)
  return jnp.where(bad, np.nan, lax.add(loc, lax.mul(scale, q)))
