"""lax's special functions of several operands: polygamma, the Hurwitz zeta function and the
regularized incomplete beta function (strict wrappers: floating operands of one dtype, no
promotion; rank-0 operands broadcast).

Example:
    >>> from ember import lax
    >>> import ember.numpy as jnp
    >>> lax.zeta(jnp.float32(2.0), jnp.float32(1.0))
    Array(1.644934, dtype=float32)
"""
from __future__ import annotations

from ember.primitives.elementwise import polygamma_p
from ember.primitives.special import regularized_incomplete_beta_p, zeta_p

__all__ = [
  "betainc",
  "polygamma",
  "polygamma_p",
  "regularized_incomplete_beta_p",
  "zeta",
  "zeta_p",
]


def polygamma(m, x):
  """The polygamma function psi^(m)(x), the (m+1)-th derivative of log Gamma, elementwise.

  Example:
      >>> from ember import lax
      >>> import ember.numpy as jnp
      >>> lax.polygamma(jnp.float32(1), jnp.float32(2))
      Array(0.64493406, dtype=float32)
  """
  return polygamma_p.bind(m, x)


def zeta(x, q):
  """The Hurwitz zeta function ``sum_{n>=0} (n + q) ** -x``, elementwise.

  Example:
      >>> from ember import lax
      >>> import ember.numpy as jnp
      >>> lax.zeta(jnp.float32(3), jnp.float32(2))
      Array(0.20205691, dtype=float32)
  """
  return zeta_p.bind(x, q)


def betainc(a, b, x):
  """The regularized incomplete beta function ``I_x(a, b)``, elementwise.

  Differentiable with respect to ``x`` only (as in JAX).

  Example:
      >>> from ember import lax
      >>> import ember.numpy as jnp
      >>> lax.betainc(jnp.float32(2), jnp.float32(3), jnp.float32(0.5))
      Array(0.6875024, dtype=float32)
  """
  return regularized_incomplete_beta_p.bind(a, b, x)
