"""``ember.interpreters.batching``: a user primitive's vmap rule, under JAX 0.10.2's names.

``primitive_batchers[prim] = rule(vals, dims, **params) -> (out, out_dim)`` (``dims[i]`` is the
batch axis of ``vals[i]``, or ``not_mapped``); ``fancy_primitive_batchers[prim] = rule(axis_data,
vals, dims, **params)`` for rules that need the vmap's axis (its ``name``, ``size`` and
``spmd_name``: the signature of ember's own batching rules); ``defvectorized(prim)`` for
primitives that act elementwise along leading axes (the batch axis is moved to the front),
``defbroadcasting(prim)`` for n-ary elementwise ones (operands moved to a common batch axis and
rank).

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

from typing import Callable

from ember.interpreters._registry import RuleRegistry
from ember.transforms.batching import AxisData, batch_size, bdim_at_front, moveaxis, not_mapped

__all__ = ["not_mapped", "primitive_batchers", "fancy_primitive_batchers", "defvectorized",
           "defbroadcasting", "moveaxis", "bdim_at_front", "AxisData"]


class _AxislessRegistry(RuleRegistry):
  """JAX's ``primitive_batchers``: rules without the axis argument. A rule read back is one of
  that signature too (a primitive's own rule is given the axis its operands' batch size
  implies, unnamed)."""

  def __setitem__(self, prim, rule: Callable) -> None:
    def batch(axis, vals, dims, **params):
      return rule(vals, dims, **params)
    batch.axisless = rule
    prim.def_rules(batch=batch)

  def __getitem__(self, prim) -> Callable:
    rule = super().__getitem__(prim)
    if hasattr(rule, "axisless"):
      return rule.axisless

    def axisless(vals, dims, **params):
      return rule(AxisData(None, batch_size(vals, dims), None), vals, dims, **params)
    return axisless

  def get(self, prim, default=None):
    return self[prim] if prim in self else default


primitive_batchers = _AxislessRegistry("batch")
fancy_primitive_batchers = RuleRegistry("batch")


def defvectorized(prim) -> None:
  def rule(axis, vals, dims, **params):
    (x,), (d,) = vals, dims
    return prim.bind(x, **params), d
  prim.def_rules(batch=rule)


def defbroadcasting(prim) -> None:
  import numpy as np

  def rule(axis, vals, dims, **params):
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
