"""``ember.interpreters.batching``: a user primitive's vmap rule, under JAX 0.10.2's names.

``primitive_batchers[prim] = rule(vals, dims, **params) -> (out, out_dim)`` (``dims[i]`` is the
batch axis of ``vals[i]``, or ``not_mapped``); ``defvectorized(prim)`` for primitives that act
elementwise along leading axes (the batch axis is moved to the front), ``defbroadcasting(prim)``
for n-ary elementwise ones (operands moved to a common batch axis and rank).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.extend.core import Primitive
    >>> from ember.interpreters import batching
    >>> square = Primitive("square")
    >>> _ = square.def_impl(lambda x: x * x)
    >>> _ = square.def_abstract_eval(lambda x: x)
    >>> batching.defvectorized(square)
    >>> ember.vmap(square.bind)(jnp.arange(3.0))
    Array([0., 1., 4.], dtype=float32)
"""
from __future__ import annotations

from ember.interpreters._registry import RuleRegistry
from ember.transforms.batching import bdim_at_front, moveaxis, not_mapped

__all__ = ["not_mapped", "primitive_batchers", "defvectorized", "defbroadcasting",
           "moveaxis", "bdim_at_front"]

primitive_batchers = RuleRegistry("batch")


def defvectorized(prim) -> None:
  def rule(vals, dims, **params):
    (x,), (d,) = vals, dims
    return prim.bind(x, **params), d
  prim.def_rules(batch=rule)


def defbroadcasting(prim) -> None:
  import numpy as np

  def rule(vals, dims, **params):
    size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not not_mapped)
    rank = max(np.ndim(v) - (d is not not_mapped) for v, d in zip(vals, dims))
    moved = []
    for v, d in zip(vals, dims):
      if d is not_mapped:
        moved.append(v)
        continue
      v = moveaxis(v, d, 0)
      extra = rank - (np.ndim(v) - 1)  # align the example's axes to the right, as broadcasting
      moved.append(v.reshape((size,) + (1,) * extra + tuple(np.shape(v)[1:])))
    return prim.bind(*moved, **params), 0
  prim.def_rules(batch=rule)
