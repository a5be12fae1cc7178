"""``ember.experimental.shard_map.shard_map``: the older spelling of ``ember.shard_map``.

It takes ``mesh``, ``in_specs`` and ``out_specs`` positionally too, and ``check_rep`` for what is
now ``check_vma``.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.experimental.shard_map import shard_map
    >>> from ember.sharding import PartitionSpec as P
    >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
    >>> shard_map(lambda x: x * 2, mesh, in_specs=P("i"), out_specs=P("i"))(jnp.arange(4))
    Array([0, 2, 4, 6], dtype=int32)
"""
from __future__ import annotations

from ember.transforms.shard_map import shard_map as _shard_map

__all__ = ["shard_map"]


def shard_map(f, mesh=None, in_specs=None, out_specs=None, check_rep: bool = True,
              auto=frozenset(), *, check_vma: bool | None = None):
  """``ember.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, ...)``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> total = shard_map(lambda x: ember.lax.psum(x.sum(), "i"), mesh, P("i"), P())
      >>> total(jnp.arange(4.0))
      Array(6., dtype=float32)
  """
  if auto:
    raise NotImplementedError("shard_map with auto= axes (partly manual bodies) is not "
                              "supported by ember.")
  return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                    check_vma=check_rep if check_vma is None else check_vma)
