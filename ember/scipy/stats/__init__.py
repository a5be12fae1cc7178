"""ember.scipy.stats: probability distributions, mirroring ``jax.scipy.stats``.

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)`` ...), as in JAX.

Example:
    >>> from ember.scipy.stats import norm
    >>> norm.cdf(0.)
    Array(0.5, dtype=float32)
"""
from ember.scipy.stats import (
                               bernoulli,
                               beta,
                               cauchy,
                               chi2,
                               expon,
                               gamma,
                               laplace,
                               logistic,
                               multivariate_normal,
                               norm,
                               poisson,
                               t,
                               uniform,
)

__all__ = ["bernoulli", "beta", "cauchy", "chi2", "expon", "gamma", "laplace", "logistic",
           "multivariate_normal", "norm", "poisson", "t", "uniform"]
