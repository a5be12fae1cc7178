"""ember.random: explicit, splittable PRNG keys that give JAX's bits.

The default PRNG is threefry2x32 with JAX's partitionable counters (JAX 0.10's defaults); the
``rbg`` and ``unsafe_rbg`` implementations (XLA's RngBitGenerator) are chosen by ``impl=`` or
``jax_default_prng_impl``. The same key gives the same bits and, sampler for sampler, the same
samples as ``jax.random``. Keys are values: reusing a raw key reproduces its samples, and
``split``/``fold_in`` derive independent ones. With ``jax_debug_key_reuse`` on, a typed key
(``random.key``) drawn from twice raises ``KeyReuseError`` (JAX's checker; ``_key_reuse.py``).

    >>> import ember
    >>> from ember import random
    >>> key = random.PRNGKey(0)
    >>> key, sub = random.split(key)
    >>> random.normal(sub, (3,))
    Array([-2.4424558 , -2.0356805 ,  0.20554423], dtype=float32)
    >>> random.normal(sub, (3,))  # the same key, the same values
    Array([-2.4424558 , -2.0356805 ,  0.20554423], dtype=float32)

Differences from JAX:

- A typed key array (``random.key(0)``, ``random.split`` of one, ``random.wrap_key_data``) is a
  ``PRNGKeyArray``: a pytree node whose only child is its uint32[..., 2] key data, not an array of
  an extended dtype. ``jit``, ``vmap``, ``grad`` and ``device_put`` carry it through as that data;
  ``vmap`` maps over the data's leading axes, so ``in_axes=0`` maps over keys as in JAX (but a
  negative axis counts from the key-word axis). It supports ``shape``, ``ndim``, ``size``,
  ``dtype`` (``key<fry>``, a subdtype of ``ember.dtypes.prng_key``), indexing, iteration,
  ``reshape``, ``T`` and ``==``; jnp functions do not accept it.
- Jaxprs show the samplers as jitted functions of ``threefry2x32`` and lax operations, not JAX's
  ``random_bits``/``random_wrap`` primitives.
- The philox implementations are not provided; ``impl="philox..."`` raises naming them.
- The key reuse checker has a third setting, None, that checks eager code only; see
  ``_key_reuse.py``. ``vmap(..., randomness=...)`` is an extension; see ``_vmap_randomness.py``.
"""
from ember.random._prng import (PRNGKey, PRNGKeyArray, bits, clone, fold_in, key, key_data,
                                key_impl, key_dtype, split, wrap_key_data)
from ember.random._samplers import (cauchy, exponential, gumbel, laplace, logistic, lognormal,
                                    maxwell, normal, pareto, rayleigh, triangular,
                                    truncated_normal, uniform, wald, weibull_min)
from ember.random._discrete import (bernoulli, binomial, categorical, choice,
                                    double_sided_maxwell, geometric, multinomial, permutation,
                                    rademacher, randint)
from ember.random._gamma_family import (ball, beta, chisquare, dirichlet, f, gamma,
                                        generalized_normal, loggamma, multivariate_normal,
                                        orthogonal, poisson, t)

__all__ = [
    "PRNGKey", "PRNGKeyArray", "key", "key_data", "key_impl", "key_dtype", "wrap_key_data",
    "clone", "split", "fold_in", "bits",
    "uniform", "normal", "truncated_normal", "exponential", "laplace", "logistic", "gumbel",
    "cauchy", "lognormal", "pareto", "weibull_min", "maxwell", "double_sided_maxwell",
    "rayleigh", "wald", "triangular",
    "randint", "bernoulli", "rademacher", "geometric", "binomial", "multinomial", "categorical",
    "choice", "permutation",
    "gamma", "loggamma", "beta", "dirichlet", "chisquare", "t", "f", "poisson",
    "multivariate_normal", "generalized_normal", "ball", "orthogonal",
]


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
