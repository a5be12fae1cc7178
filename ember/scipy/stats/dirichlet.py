"""The Dirichlet distribution on the simplex, mirroring ``jax.scipy.stats.dirichlet``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.numpy._util import promote_dtypes_inexact as _promote_dtypes_inexact
from ember.scipy import special
from ember.scipy.stats._common import lax_const as _lax_const

__all__ = ["logpdf", "pdf"]


def _is_simplex(x):
  """Whether each column of ``x`` (axis 0 is the event axis) is positive and sums to 1 (to 1e-6)."""
  return jnp.all(x > 0, axis=0) & (abs(jnp.sum(x, axis=0) - 1) < 1e-6)


def logpdf(x, alpha):
  """The log density of Dirichlet(alpha) at ``x``, whose axis 0 is the event axis.

  ``x`` has as many entries as ``alpha`` or one fewer (the last is then ``1 - sum(x)``); points
  off the simplex get -inf.

  Raises:
      ValueError: if ``alpha`` is not one-dimensional, or ``x`` has the wrong length.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import dirichlet
      >>> dirichlet.logpdf(jnp.array([0.2, 0.3, 0.5]), jnp.array([1., 2., 3.]))
      Array(1.5040779, dtype=float32)
  """
  x, alpha = (jnp.asarray(v) for v in _promote_dtypes_inexact(x, alpha))
  if alpha.ndim != 1:
    raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
  if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
    raise ValueError("`x` must have either the same number of entries as `alpha` or one entry "
                     f"fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
  one = _lax_const(x, 1)
  if x.shape[0] != alpha.shape[0]:
    x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
  log_norm = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
  if x.ndim > 1:
    alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
  log_probs = lax.sub(jnp.sum(special.xlogy(lax.sub(alpha, one), x), axis=0), log_norm)
  return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
  """The Dirichlet density.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import dirichlet
      >>> dirichlet.pdf(jnp.array([0.2, 0.8]), jnp.array([0.5, 0.5]))
      Array(0.79577535, dtype=float32)
  """
  return lax.exp(logpdf(x, alpha))
