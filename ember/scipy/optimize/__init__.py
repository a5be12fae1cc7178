"""ember.scipy.optimize: minimization, mirroring ``jax.scipy.optimize`` (``minimize`` with BFGS
and the experimental L-BFGS, and ``OptimizeResults``).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import optimize
    >>> optimize.minimize(lambda x: jnp.sum((x - 1.0) ** 2), jnp.zeros(3), method="BFGS").x
    Array([1., 1., 1.], dtype=float32)
"""
from ember.scipy.optimize._minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]
