"""The Poisson distribution with mean ``mu``, mirroring ``jax.scipy.stats.poisson``."""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike as _check_arraylike
from ember.numpy._util import promote_dtypes_inexact as _promote_dtypes_inexact
from ember.scipy import special
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.scipy.stats._common import lax_const as _lax_const
from ember.transforms.jit import jit as _jit

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
  """The log probability ``xlogy(x, mu) - gammaln(x + 1) - mu`` of ``x = k - loc`` events.

  -inf where x < 0 or where ``k`` itself is not an integer.

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.logpmf(2., 3.)
      Array(-1.4959228, dtype=float32, weak_type=True)
  """
  k, mu, loc = _promote_inexact("poisson.logpmf", k, mu, loc)
  x = lax.sub(k, loc)
  log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
  off = lax.lt(x, _lax_const(k, 0)) | lax.ne(jnp.round(k), k)
  return jnp.where(off, -np.inf, log_probs)


def pmf(k, mu, loc=0):
  """The probability of ``k`` events.

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.pmf(2., 3.)
      Array(0.22404176, dtype=float32, weak_type=True)
  """
  return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
  """The CDF ``P(K <= k)``, the upper incomplete gamma ``Q(floor(k - loc + 1), mu)``.

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.cdf(2., 3.)
      Array(0.42319003, dtype=float32, weak_type=True)
  """
  k, mu, loc = _promote_inexact("poisson.cdf", k, mu, loc)
  zero = _lax_const(k, 0)
  x = lax.sub(k, loc)
  p = special.gammaincc(jnp.floor(1 + x), mu)
  return jnp.where(lax.lt(x, zero), zero, p)


def _entropy_sum(mu, max_k, upper):
  """The entropy ``-sum p log p`` over k < min(max_k, upper) (the rest of the mass is tiny)."""
  k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
  probs = pmf(k, mu, 0)
  kept = k < jnp.ceil(upper).astype(k.dtype)[None, :]
  return jnp.sum(special.entr(jnp.where(kept, probs, 0.0)), axis=0)


def _entropy(mu, loc):
  shape = jnp.broadcast_shapes(mu.shape, loc.shape)  # loc shifts, so only its shape matters
  flat = jnp.ravel(mu)
  large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
  medium = _entropy_sum(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
  small = _entropy_sum(flat, 35, flat + 20)
  out = jnp.where(flat == 0, jnp.zeros_like(flat),
                  jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
  return jnp.broadcast_to(jnp.reshape(out, mu.shape), shape)


_entropy_jit = _jit(_entropy)


def entropy(mu, loc=0):
  """The entropy of Poisson(mu): a direct sum for mu < 100, an asymptotic series beyond.

  As in JAX: 0 at mu = 0; the sum runs over k < 35 (mu < 10) or k < 250 (mu < 100);
  ``loc`` only broadcasts the result's shape. Compiled (JAX jits it too).

  Example:
      >>> from ember.scipy.stats import poisson
      >>> poisson.entropy(3.)
      Array(1.9314696, dtype=float32)
  """
  _check_arraylike("poisson.entropy", mu, loc)
  mu, loc = _promote_dtypes_inexact(jnp.asarray(mu), jnp.asarray(loc))
  return _entropy_jit(mu, loc)
