"""``ember.extend.random``: JAX's ``jax.extend.random``, for libraries that define or pick PRNG
implementations: the PRNGImpl objects of ember's three (threefry2x32, rbg, unsafe_rbg),
``define_prng_impl`` for new ones, seeding with an implementation, and the threefry primitive.

Example:
    >>> import ember
    >>> from ember.extend import random as er
    >>> er.seed_with_impl(er.unsafe_rbg_prng_impl, 1)
    Array((), dtype=key<urbg>) overlaying:
    [0 1 0 1]
"""
import numpy as np

from ember import lax
from ember.core.trace import get_aval
from ember.random import _prng
from ember.random._prng import (define_prng_impl, random_seed, rbg_prng_impl, seed_with_impl,
                                threefry2x32_p, threefry_prng_impl, unsafe_rbg_prng_impl)

__all__ = ["define_prng_impl", "random_seed", "rbg_prng_impl", "seed_with_impl",
           "threefry2x32_p", "threefry_2x32", "threefry_prng_impl", "unsafe_rbg_prng_impl"]


def threefry_2x32(keypair, count):
  """Threefry-2x32 encryption of the uint32 array ``count`` (any shape) under ``keypair``
  (two uint32 words): its flattened values, padded to an even length, are encrypted as the
  counter pairs (first half, second half), and the outputs put back in that order and shape.

  Example:
      >>> import ember.numpy as jnp
      >>> threefry_2x32(jnp.array([0, 0], jnp.uint32), jnp.arange(4, dtype=jnp.uint32))
      Array([4146024105,  967050713, 2718843009, 1272950319], dtype=uint32)
  """
  k1, k2 = (lax.index_in_dim(keypair, i, keepdims=False) for i in (0, 1))
  shape = get_aval(count).shape
  size = int(np.prod(shape))
  flat = lax.reshape(count, (size,))
  if size % 2:
    flat = lax.concatenate([flat, np.zeros(1, np.uint32)], 0)
  half = (size + 1) // 2
  y1, y2 = _prng.threefry_2x32(k1, k2, lax.slice_in_dim(flat, 0, half),
                               lax.slice_in_dim(flat, half, 2 * half))
  return lax.reshape(lax.slice_in_dim(lax.concatenate([y1, y2], 0), 0, size), shape)
