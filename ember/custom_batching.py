"""Custom batching rules (mirrors ``jax.custom_batching``): ``custom_vmap`` and
``sequential_vmap``.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.custom_batching import sequential_vmap
    >>> @sequential_vmap
    ... def total(x):
    ...   return jnp.sum(x)
    >>> ember.vmap(total)(jnp.ones((3, 4)))
    Array([4., 4., 4.], dtype=float32)
"""
from __future__ import annotations

from typing import Callable

from ember import lax, pytree
from ember.transforms.custom_vmap import custom_vmap

__all__ = ["custom_vmap", "sequential_vmap"]


def sequential_vmap(f: Callable) -> custom_vmap:
  """``f`` batched by a loop (``lax.map``) over the examples instead of by batching its
  operations: for functions with no batching rule, or to bound memory.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.custom_batching import sequential_vmap
      >>> ember.vmap(sequential_vmap(lambda x, y: x * y), in_axes=(0, None))(jnp.arange(3.), 2.)
      Array([0., 2., 4.], dtype=float32)
  """
  f = custom_vmap(f)

  @f.def_vmap
  def rule(axis_size, in_batched, *args):
    leaves, tree = pytree.flatten(args)
    flags = pytree.tree_leaves(in_batched)
    batched = [x for x, b in zip(leaves, flags) if b]

    def body(xs):
      it = iter(xs)
      return f(*pytree.unflatten(tree, [next(it) if b else x for x, b in zip(leaves, flags)]))

    return lax.map(body, batched), True

  return f
