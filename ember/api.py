"""Top-level functions that move data and query shapes: device_put, device_get,
block_until_ready, eval_shape."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ember import pytree
from ember.backend import client as backend_client
from ember.backend.array import (ArrayImpl, abstractify, copy_to_device, device_of,
                                 device_put_value)
from ember.backend import spmd
from ember.backend.sharding import (NamedSharding, PartitionSpec, SingleDeviceSharding,
                                    current_mesh)
from ember.core.trace import Tracer

__all__ = ["device_put", "device_get", "block_until_ready", "eval_shape"]


def _resolve_device(device):
  if device is None or isinstance(device, NamedSharding):
    return device
  if isinstance(device, PartitionSpec):  # over the mesh set with ember.set_mesh
    mesh = current_mesh()
    if mesh is None:
      raise ValueError(f"device_put with a PartitionSpec ({device!r}) needs a mesh: call "
                       "ember.set_mesh(mesh) first, or pass NamedSharding(mesh, spec).")
    return NamedSharding(mesh, device)
  if isinstance(device, SingleDeviceSharding):
    return device._device
  if hasattr(device, "_device_assignment") or hasattr(device, "device_set"):
    devs = list(device.device_set)
    if len(devs) == 1:
      return devs[0]
  if not hasattr(device, "platform") or not hasattr(device, "id"):
    raise TypeError(f"Expected a Device or a single-device Sharding, got {device!r} of type "
                    f"{type(device).__name__}.")
  if device not in backend_client.devices():
    raise ValueError(f"Device {device!r} is not one of this process's devices "
                     f"{backend_client.devices()}.")
  return device


def _put_leaf(x, device):
  if isinstance(x, Tracer):
    return x
  if isinstance(device, NamedSharding):
    return spmd.put_sharded(x, device)
  if type(x) is ArrayImpl:
    if device is None:
      return x
    if x._committed and not spmd.is_sharded(x) and device_of(x) == device:
      return x
    return copy_to_device(x, device, committed=True)
  aval = abstractify(x)
  return device_put_value(np.asarray(x), aval, device or backend_client.default_device(),
                          committed=device is not None)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
  """Place the leaves of ``x`` on ``device`` (committed) or on the default device (uncommitted).

  ``device`` may also be a ``NamedSharding``, which lays each leaf out over its mesh, or a pytree
  of devices and shardings matching ``x``.

  Example:
      >>> import ember
      >>> ember.device_put(1.0).device
      CpuDevice(id=0)
  """
  if isinstance(device, (list, tuple)):
    return pytree.tree_map(lambda leaf, d: _put_leaf(leaf, _resolve_device(d)), x, device)
  dev = _resolve_device(device)
  return pytree.tree_map(lambda leaf: _put_leaf(leaf, dev), x)


def device_get(x):
  """``x`` with its ember arrays copied to the host as NumPy arrays (other leaves unchanged).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.device_get({'a': jnp.arange(3.0), 'b': 1})
      {'a': array([0., 1., 2.], dtype=float32), 'b': 1}
  """
  def get(leaf):
    if type(leaf) is ArrayImpl:
      return np.asarray(leaf)
    return leaf
  return pytree.tree_map(get, x)


def block_until_ready(x):
  """Wait until every array in ``x`` has been computed; return ``x``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.block_until_ready(jnp.arange(3.0) * 2)
      Array([0., 2., 4.], dtype=float32)
  """
  for leaf in pytree.tree_leaves(x):
    if type(leaf) is ArrayImpl:
      leaf.block_until_ready()
  return x


def eval_shape(fun: Callable, *args, **kwargs):
  """The shapes and dtypes ``fun`` would return, computed without running it.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.eval_shape(lambda x: jnp.stack([x, x]), ember.ShapeDtypeStruct((3,), jnp.float32))
      ShapeDtypeStruct(shape=(2, 3), dtype=float32)
  """
  from ember.transforms.staging import make_jaxpr
  _, shapes = make_jaxpr(fun, return_shape=True)(*args, **kwargs)
  return shapes
