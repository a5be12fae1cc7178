"""ember.scipy.stats: probability distributions and summary statistics, mirroring
``jax.scipy.stats``.

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)`` ...), as in JAX; the
statistics ``mode``, ``rankdata`` and ``sem`` and the estimator class ``gaussian_kde`` sit at the
top level.

Example:
    >>> from ember.scipy.stats import norm
    >>> norm.cdf(0.)
    Array(0.5, dtype=float32)
"""
from ember.scipy.stats import (
                               bernoulli,
                               beta,
                               betabinom,
                               binom,
                               cauchy,
                               chi2,
                               dirichlet,
                               expon,
                               gamma,
                               gennorm,
                               geom,
                               gumbel_l,
                               gumbel_r,
                               laplace,
                               logistic,
                               multinomial,
                               multivariate_normal,
                               nbinom,
                               norm,
                               pareto,
                               poisson,
                               t,
                               truncnorm,
                               uniform,
                               vonmises,
                               wrapcauchy,
)
from ember.scipy.stats._core import mode, rankdata, sem
from ember.scipy.stats._kde import gaussian_kde

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gaussian_kde", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace",
           "logistic", "mode", "multinomial", "multivariate_normal", "nbinom", "norm", "pareto",
           "poisson", "rankdata", "sem", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy"]
