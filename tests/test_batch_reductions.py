"""Batching rules of the reduction primitives, and the jnp reductions built on them.

``vmap(f)`` against a stacked loop of ``f`` (``batch_checks.check_batch``) for every reduction
over several axes, with the batch axis before, between and after the reduced axes; vmap of
vmap; vmap of grad through the jvp rules (reduce_prod's product tree and the scans' associative
scan emit slices, pads and concatenates to batch). Most checks go through ``check_cases``, which
batches many cases in one jitted function to compile once.
"""
import numpy as np
from batch_checks import B, args_for, batched, check_batch, check_cases

import ember
import ember.numpy as jnp
from ember import lax


def monoids(x):
  """Each monoid reduction over other axes of ``x`` (2 x 3 x 4): every batch axis position
  falls before, between and after reduced axes."""
  return (lax.reduce_sum(x, (0,)), lax.reduce_prod(x, (0, 2)), lax.reduce_max(x, (2, 0)),
          lax.reduce_min(x, (1,)), lax.reduce_sum(x, ()), lax.reduce_max(x, (0, 1, 2)))


def logical(i, b):
  """Reductions of int32 ``i`` and bool ``b`` (each logical one on one of them)."""
  return (lax.reduce_and(i, (1,)), lax.reduce_xor(i, (1,)), lax.reduce_prod(i, (1,)),
          lax.reduce_or(b, (0,)), lax.reduce_max(b, (0,)), lax.reduce_min(b, (0,)))


def test_reductions():
  check_cases([
      (monoids, [batched((2, 3, 4), 1)], (1,)),
      # vmap of vmap: the inner batch axis first, the outer one last
      (ember.vmap(monoids, in_axes=0), [batched((B, 2, 3, 4), -1)], (-1,)),
      (logical, [batched((3, 4), 0, np.int32), batched((3, 4), -1, np.bool_)], (0, -1))])


def test_reductions_eager():
  check_batch(lambda x: lax.reduce_sum(lax.reduce_max(x, (1,)), (0,)), [batched((2, 3), 1)], 1)


def test_argmax_argmin():
  # small integers: ties, which must still go to the first index in every example
  def f(x, b):
    return (lax.argmax(x, 0, np.int32), lax.argmin(x, 2, np.int32), lax.argmax(b, 1, np.int32),
            lax.argmin(b, 0, np.int32))
  # a NaN wins argmax and argmin, in the one example that has it
  x = batched((B, 3, 4), 0)
  x[1, 2, 0, 1] = np.nan
  nested = ember.vmap(lambda x: (lax.argmax(x, 0, np.int32), lax.argmin(x, 0, np.int32)), 1)
  check_cases([(f, [batched((2, 3, 4), 1), batched((2, 3, 4), 1, np.bool_)], (1, 1)),
               (nested, [x], (0,))])


def test_scans():
  f = lambda x: (lax.cumsum(x, 0, True), lax.cumprod(x, 2), lax.cummax(x, 1, True),
                 lax.cummin(x, 0), lax.cumlogsumexp(x, 2, True))
  ints = lambda x: (lax.cumsum(x, 1), lax.cumprod(x, 0, True), lax.cummax(x, 0),
                    lax.cummin(x, 1, True))
  check_cases([(f, [batched((2, 3, 4), 1)], (1,)),
               (ember.vmap(ints, in_axes=2), [batched((2, 3, B), -1, np.int32)], (-1,))])


# --- vmap of grad and jvp ---------------------------------------------------------------------

def _loss(x):
  """The differentiable reductions and scans of ``x`` (2 x 3), summed."""
  terms = [lax.reduce_prod(x, (1,)), lax.reduce_max(x, (0,)), lax.reduce_min(x, (0, 1)),
           lax.cumprod(x, 1, reverse=True), lax.cummax(x, 0), lax.cumlogsumexp(x, 1),
           lax.cumsum(x, 0)]
  return sum(jnp.sum(jnp.sin(t)) for t in terms)


def test_vmap_of_grad_and_jvp():
  jvp = lambda x, t: ember.jvp(lambda x: lax.reduce_prod(x, (0,)), (x,), (t,))
  check_cases([(ember.grad(_loss), [batched((2, 3), 1)], (1,)),
               (jvp, args_for([(3, 2), (3, 2)], (None, 1)), (None, 1))])


# --- the jnp reductions -----------------------------------------------------------------------

JNP = [
    jnp.sum, lambda x: jnp.mean(x, 1), lambda x: jnp.var(x, (0, 2)),
    lambda x: jnp.sum(x, 1, keepdims=True), lambda x: jnp.max(x, 1),
    lambda x: jnp.argmax(x, -1), jnp.argmin, lambda x: x.min(axis=(0, 2), keepdims=True),
    lambda x: jnp.prod(x, 0), lambda x: jnp.cumsum(x, 1), lambda x: jnp.any(x > 2, 1),
]


def test_jnp():
  check_cases([(f, [batched((2, 3, 4), k % 3, seed=k)], (k % 3,)) for k, f in enumerate(JNP)])


def test_jnp_eager():
  check_batch(lambda x: (jnp.mean(x, 0), jnp.argmax(x, 1)), [batched((3, 4), 0)])
