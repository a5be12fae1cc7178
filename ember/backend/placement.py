"""``device_put``: placing values on a device or laying them out over a mesh, with JAX's copy
semantics (reuse, copy, donate) and its checks of devices and shardings.

Example:
    >>> import ember
    >>> ember.device_put(1.0).device
    CpuDevice(id=0)
"""
from __future__ import annotations

import numpy as np

from ember import pytree
from ember.backend import client as backend_client
from ember.backend import spmd
from ember.backend.array import (ArrayImpl, _host_value, abstractify, copy_to_device, device_of,
                                 device_put_value)
from ember.backend.sharding import (NamedSharding, PartitionSpec, SingleDeviceSharding,
                                    current_mesh)
from ember.core.trace import Tracer

__all__ = ["device_put"]


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
  if not hasattr(device, "platform") or not hasattr(device, "id"):  # (JAX's type: ValueError)
    raise ValueError(f"Expected a Device or a single-device Sharding, got {device!r} of type "
                     f"{type(device).__name__}.")
  if device not in backend_client.devices():
    raise ValueError(f"Device {device!r} is not one of this process's devices "
                     f"{backend_client.devices()}.")
  return device


def _put_leaf(x, device, copy: str):
  """``x`` placed on ``device``; ``copy`` is JAX's copy semantics: "reuse" (``x`` itself when
  already in place, host memory possibly aliased), "copy" (always a new buffer) or "donate" (a
  new array; on CPU, as in JAX, ``x`` itself stays alive)."""
  if isinstance(x, Tracer):
    return x
  if type(x) is ArrayImpl and copy != "reuse":
    return _copy_array(x, device)
  if isinstance(device, NamedSharding):
    return spmd.put_sharded(x, device)
  if type(x) is ArrayImpl:
    if device is None:
      return x
    if x._committed and not spmd.is_sharded(x) and device_of(x) == device:
      return x
    return copy_to_device(x, device, committed=True)
  aval = abstractify(x)
  if copy == "copy" and isinstance(x, np.ndarray):
    x = np.array(x)  # never share the caller's memory
  return device_put_value(np.asarray(x), aval, device or backend_client.default_device(),
                          committed=device is not None)


def _copy_array(x, device):
  """A new array with ``x``'s value and type, on ``device`` (committed) or, when None, laid out
  and committed as ``x`` is."""
  host = np.array(_host_value(x))
  if device is None:
    device = x._sharding if spmd.is_sharded(x) else device_of(x)
    committed = x._committed
  else:
    committed = True
  if isinstance(device, NamedSharding):
    return spmd.put_sharded(host, device, x.aval)
  return device_put_value(host, x.aval, device, committed=committed)


def _flags(value, x, what: str) -> list:
  """``donate``/``may_alias`` per leaf of ``x``: a bool (or None) for all, or a pytree prefix."""
  if value is None or isinstance(value, bool):
    return [value] * len(pytree.tree_leaves(x))
  try:
    return pytree.broadcast_prefix(value, x, is_leaf=lambda v: v is None)
  except ValueError:
    raise ValueError(f"device_put {what} must be a bool or a pytree prefix of the value, got "
                     f"{value!r}.") from None


def _copy_semantics(donate: bool, may_alias) -> str:
  if may_alias and donate:
    raise ValueError("may_alias and donate cannot be True at the same time.")
  if may_alias is None:
    may_alias = not donate
  return "reuse" if may_alias else "donate" if donate else "copy"


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
  """Place the leaves of ``x`` on ``device`` (committed) or on the default device (uncommitted).

  ``device`` may also be a ``NamedSharding``, which lays each leaf out over its mesh, or a pytree
  of devices and shardings matching ``x``. ``may_alias=False`` always makes new buffers;
  ``may_alias=None`` (the default) or ``True`` returns an array already in place as it is.
  ``donate=True`` says the input may be consumed: as JAX on CPU, the result is a new array and
  the input stays alive. ``src`` (the source's device or sharding, or a pytree of them) is
  checked as ``device`` is and, as in JAX for single-process arrays, changes nothing. Each of
  ``donate`` and ``may_alias`` may be a pytree prefix of ``x``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.device_put(1.0).device
      CpuDevice(id=0)
      >>> x = jnp.ones(2)
      >>> ember.device_put(x) is x, ember.device_put(x, may_alias=False) is x
      (True, False)
  """
  leaves, treedef = pytree.flatten(x)
  if isinstance(device, (list, tuple)):
    devices = pytree.broadcast_prefix(device, x, is_leaf=lambda d: d is None)
  else:
    devices = [device] * len(leaves)
  if src is not None:
    for s in (src if isinstance(src, (list, tuple)) else (src,)):
      _resolve_device(s)
  copies = [_copy_semantics(d, m) for d, m in zip(_flags(donate, x, "donate"),
                                                   _flags(may_alias, x, "may_alias"))]
  resolved = {}
  for d in devices:
    if id(d) not in resolved:
      resolved[id(d)] = _resolve_device(d)
  if backend_client.guards_on:  # tell jaxlib's transfer guards these transfers are explicit
    with backend_client.explicit_transfer("put"):
      return pytree.unflatten(treedef, [_put_leaf(leaf, resolved[id(d)], c)
                                        for leaf, d, c in zip(leaves, devices, copies)])
  return pytree.unflatten(treedef, [_put_leaf(leaf, resolved[id(d)], c)
                                    for leaf, d, c in zip(leaves, devices, copies)])
