"""lax's regularized incomplete gamma functions and their derivatives in the shape parameter
(strict wrappers: float operands of one dtype, no promotion; see primitives/incomplete_gamma.py
for the algorithms).

Example:
    >>> from ember import lax
    >>> import ember.numpy as jnp
    >>> lax.igamma(jnp.float32(2.0), jnp.float32(1.0))
    Array(0.26424113, dtype=float32)
"""
from __future__ import annotations

from ember.primitives.incomplete_gamma import (igamma_grad_a_p, igamma_p, igammac_p,
                                               random_gamma_grad_p)

__all__ = ["igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "igamma_p", "igammac_p",
           "igamma_grad_a_p", "random_gamma_grad_p"]


def igamma(a, x):
  """The regularized lower incomplete gamma function ``P(a, x) = gamma(a, x) / Gamma(a)``.

  ``nan`` where ``a < 0``, ``x < 0`` or ``a == x == 0``; 0 at ``x == 0``, 1 at ``x == inf``.

  Example:
      >>> from ember import lax
      >>> lax.igamma(0.5, 2.0)
      Array(0.9544997, dtype=float32, weak_type=True)
  """
  return igamma_p.bind(a, x)


def igammac(a, x):
  """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``.

  Example:
      >>> from ember import lax
      >>> lax.igammac(3.0, 5.0)
      Array(0.12465201, dtype=float32, weak_type=True)
  """
  return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
  """The derivative of ``igamma(a, x)`` with respect to ``a`` (``nan`` where ``a <= 0``).

  Example:
      >>> from ember import lax
      >>> lax.igamma_grad_a(2.0, 1.0)
      Array(-0.27619603, dtype=float32, weak_type=True)
  """
  return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a, x):
  """The derivative of a Gamma(a) sample ``x`` with respect to ``a`` at a fixed CDF value:
  ``-(d/da igamma(a, x)) / (d/dx igamma(a, x))``, the implicit reparameterisation gradient.

  Example:
      >>> from ember import lax
      >>> lax.random_gamma_grad(1.0, 2.0)
      Array(1.6316912, dtype=float32, weak_type=True)
  """
  return random_gamma_grad_p.bind(a, x)
