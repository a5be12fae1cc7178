"""The multivariate normal distribution, mirroring ``jax.scipy.stats.multivariate_normal``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.lax import linalg as lax_linalg
from ember.numpy._util import promote_dtypes_inexact as _promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, mean, cov, allow_singular=None):
  """The log density of N(mean, cov) at ``x`` (the last axis is the event axis).

  ``cov`` may be a matrix, or a scalar for an isotropic covariance ``cov * I``; a rank-0
  ``mean`` makes the distribution univariate. Batch axes broadcast.

  Raises:
      NotImplementedError: for ``allow_singular`` (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import multivariate_normal
      >>> multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2))
      Array(-1.837877, dtype=float32)
  """
  if allow_singular is not None:
    raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
  x, mean, cov = (jnp.asarray(v) for v in _promote_dtypes_inexact(x, mean, cov))
  log_2pi = float(np.log(2 * np.pi))
  if not mean.shape:
    return -0.5 * jnp.square(x - mean) / cov - 0.5 * (log_2pi + jnp.log(cov))
  n = mean.shape[-1]
  diff = x - mean
  if not cov.shape:
    quad = jnp.sum(diff * diff, axis=-1) / cov
    return -0.5 * quad - 0.5 * n * (log_2pi + jnp.log(cov))
  if cov.ndim < 2 or cov.shape[-2:] != (n, n):
    raise ValueError("multivariate_normal.logpdf got incompatible shapes")
  low = lax_linalg.cholesky(cov)
  batch = jnp.broadcast_shapes(diff.shape[:-1], low.shape[:-2])
  white = lax_linalg.triangular_solve(
      jnp.broadcast_to(low, batch + (n, n)), jnp.broadcast_to(diff, batch + (n,))[..., None],
      left_side=True, lower=True)[..., 0]
  log_det = jnp.sum(lax.log(jnp.diagonal(low, axis1=-1, axis2=-2)), axis=-1)
  return -0.5 * jnp.sum(white * white, axis=-1) - 0.5 * n * log_2pi - log_det


def pdf(x, mean, cov):
  """The density of N(mean, cov) at ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import multivariate_normal
      >>> multivariate_normal.pdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2))
      Array(0.15915495, dtype=float32)
  """
  return lax.exp(logpdf(x, mean, cov))
