"""The multinomial distribution, mirroring ``jax.scipy.stats.multinomial``."""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.numpy._util import promote_args_numeric as _promote_args_numeric
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
  """The log probability of the counts ``x`` (last axis) in ``n`` trials with probabilities ``p``.

  ``gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1))``, -inf unless the counts sum to ``n``.
  As in JAX, that sum runs over *all* of ``x``'s entries, so a batch of count vectors gets
  -inf unless the whole batch sums to ``n``.

  Raises:
      ValueError: if ``x`` and ``n`` are not integers.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import multinomial
      >>> multinomial.logpmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
      Array(-1.8971199, dtype=float32)
  """
  p, = _promote_inexact("multinomial.logpmf", p)
  x, n = (jnp.asarray(v) for v in _promote_args_numeric("multinomial.logpmf", x, n))
  if not dtypes.issubdtype(x.dtype, np.integer):
    raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
  x, n = x.astype(p.dtype), n.astype(p.dtype)
  log_probs = special.gammaln(n + 1) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1),
                                               axis=-1)
  return jnp.where(jnp.equal(jnp.sum(x), n), log_probs, -np.inf)


def pmf(x, n, p):
  """The multinomial probability of the counts ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import multinomial
      >>> multinomial.pmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
      Array(0.15000002, dtype=float32)
  """
  return lax.exp(logpmf(x, n, p))
