"""Device meshes (mirrors ``jax.experimental.mesh_utils``): arrays of devices to build a
``Mesh`` from. On CPU devices have no physical topology, so a mesh is the devices in order,
reshaped; ``create_hybrid_device_mesh`` lays one such mesh per process (``granule``) out in a
grid of processes.

Example:
    >>> import ember
    >>> from ember.experimental import mesh_utils
    >>> mesh_utils.create_device_mesh((2,), ember.devices()[:2])
    array([CpuDevice(id=0), CpuDevice(id=1)], dtype=object)
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ember.backend import client as backend_client

__all__ = ["create_device_mesh", "create_hybrid_device_mesh", "device_kind_handler_dict"]

# Per TPU device kind, how JAX orders its physical mesh; CPU devices need none.
device_kind_handler_dict: dict = {}


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
  """An array of ``devices`` (default: all) of shape ``mesh_shape``. ``contiguous_submeshes``
  and ``allow_split_physical_axes`` concern TPU topologies and change nothing on CPU.

  Raises:
    ValueError: if the number of devices is not the product of ``mesh_shape``.

  Example:
      >>> import ember
      >>> from ember.experimental import mesh_utils
      >>> mesh_utils.create_device_mesh((2, 2), ember.devices()[:4]).shape
      (2, 2)
  """
  if devices is None:
    devices = backend_client.devices()
  mesh_shape = tuple(mesh_shape)
  if math.prod(mesh_shape) != len(devices):
    raise ValueError(f"Number of devices {len(devices)} must equal the product of mesh_shape "
                     f"{mesh_shape}")
  out = np.empty(len(devices), dtype=object)
  out[:] = list(devices)
  return out.reshape(mesh_shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
  """A mesh over several granules (TPU slices, or processes when ``process_is_granule``):
  each granule's devices form a ``mesh_shape`` mesh, and the granules are laid out as
  ``dcn_mesh_shape``; the result's shape is their elementwise product.

  Raises:
    ValueError: if devices have no slices (pass ``process_is_granule=True`` on CPU), or the
      counts do not match.

  Example:
      >>> import ember
      >>> from ember.experimental import mesh_utils
      >>> mesh_utils.create_hybrid_device_mesh((1, 2), (1, 1), ember.devices()[:2],
      ...                                      process_is_granule=True).shape
      (1, 2)
  """
  if devices is None:
    devices = backend_client.devices()
  attr = "process_index" if process_is_granule else "slice_index"
  if not hasattr(devices[0], attr):
    raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                     "`process_is_granule` option.")
  granules: dict = {}
  for d in devices:
    granules.setdefault(getattr(d, attr), []).append(d)
  keys = sorted(granules) if should_sort_granules_by_key else list(granules)
  dcn_mesh_shape = tuple(dcn_mesh_shape)
  if len(keys) != math.prod(dcn_mesh_shape):
    raise ValueError(f"Number of slices {len(keys)} must equal the product of dcn_mesh_shape "
                     f"{dcn_mesh_shape}")
  meshes = np.empty(len(keys), dtype=object)
  meshes[:] = [create_device_mesh(mesh_shape, granules[k]) for k in keys]
  grid = meshes.reshape(dcn_mesh_shape)
  shape = tuple(m * g for m, g in zip(mesh_shape, dcn_mesh_shape))
  out = np.empty(shape, dtype=object)
  for idx in np.ndindex(*dcn_mesh_shape):
    block = tuple(slice(i * m, (i + 1) * m) for i, m in zip(idx, mesh_shape))
    out[block] = grid[idx]
  return out
