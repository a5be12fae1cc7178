"""Meshes and shardings (mirrors ``jax.sharding``): how arrays are laid out over devices.

Example:
    >>> import ember, numpy as np
    >>> from ember.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
    >>> x = ember.device_put(np.arange(4.0), NamedSharding(mesh, P("i")))
    >>> x.sharding.spec, x.addressable_shards[1].data
    (P('i',), Array([2., 3.], dtype=float32))
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ember.backend import client as _client
from ember.backend.sharding import (AbstractMesh, AxisType, DuplicateSpecError,
                                    IndivisibleError, Mesh, NamedSharding, PartitionSpec, Sharding,
                                    SingleDeviceSharding, current_mesh, set_default_mesh)

__all__ = ["AbstractMesh", "AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
           "SingleDeviceSharding", "make_mesh", "get_mesh", "set_mesh",
           "IndivisibleError", "DuplicateSpecError", "reshard"]


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
  """A mesh of ``prod(axis_shapes)`` devices (the first ones, in id order) with named axes.

  Axes default to ``AxisType.Explicit``, as in JAX 0.10.2.

  Example:
      >>> import ember
      >>> ember.make_mesh((4, 2), ("x", "y"))
      Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))
  """
  axis_shapes = tuple(int(s) for s in axis_shapes)
  axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
  if len(axis_shapes) != len(axis_names):
    raise ValueError(f"make_mesh: axis_shapes {axis_shapes} and axis_names {axis_names} must "
                     "have the same length.")
  devices = list(_client.devices() if devices is None else devices)
  n = math.prod(axis_shapes)
  if any(s <= 0 for s in axis_shapes):
    raise ValueError(f"make_mesh: every mesh axis size must be positive, got {axis_shapes}.")
  if len(devices) < n:
    raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape "
                     f"{axis_shapes}")
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_names)
  grid = np.empty(n, dtype=object)
  grid[:] = devices[:n]
  return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


def get_mesh() -> Mesh | None:
  """The mesh set by ``set_mesh`` or a ``with mesh:`` block (None outside one).

  Example:
      >>> import ember
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> with ember.set_mesh(mesh):
      ...   ember.sharding.get_mesh()
      Mesh(axis_sizes=(2,), axis_names=('i',), axis_types=(Explicit,))
  """
  return current_mesh()


class set_mesh:
  """Make ``mesh`` the default mesh (of ``shard_map``, and of PartitionSpecs given where a
  sharding is expected) from now on, or, used as ``with ember.set_mesh(mesh):``, inside the
  block only.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> x = ember.device_put(jnp.arange(4.0), NamedSharding(mesh, P("i")))
      >>> with ember.set_mesh(mesh):
      ...   ember.shard_map(lambda b: ember.lax.psum(b, "i"), out_specs=P())(x)
      Array([2., 4.], dtype=float32)
  """

  def __init__(self, mesh: Mesh):
    if not isinstance(mesh, Mesh):
      raise TypeError(f"set_mesh expects an ember.sharding.Mesh, got {mesh!r}.")
    self._previous = set_default_mesh(mesh)

  def __enter__(self):
    return None

  def __exit__(self, *exc):
    set_default_mesh(self._previous)
    return False


def reshard(x, sharding):
  """``x`` laid out by ``sharding`` (a NamedSharding, or a PartitionSpec over the current
  mesh); under ``jit`` a sharding constraint.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> ember.sharding.reshard(jnp.arange(4.0), NamedSharding(mesh, P("i"))).sharding.spec
      P('i',)
  """
  from ember.lax.parallel import with_sharding_constraint
  if isinstance(sharding, PartitionSpec):
    mesh = current_mesh()
    if mesh is None:
      raise ValueError("reshard with a PartitionSpec needs a mesh: pass a NamedSharding, or call "
                       "it after `ember.set_mesh(mesh)`.")
    sharding = NamedSharding(mesh, sharding)
  return with_sharding_constraint(x, sharding)
