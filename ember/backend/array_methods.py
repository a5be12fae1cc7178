"""The Python face of ``ArrayImpl`` that needs no numpy-level functions: shape and dtype
properties, host conversion, printing, devices, pickling and immutability.

``ember.numpy`` adds the operators and NumPy-style methods (shared with tracers).
"""
from __future__ import annotations

import numpy as np

from ember.backend import format as fmt
from ember.backend.array import (ArrayImpl, _host_value, check_not_deleted, copy_to_device,
                                 device_of, device_put_value)
from ember.backend import spmd
from ember.backend import dlpack

__all__ = ["install"]


def _array(self, dtype=None, copy=None):
  v = _host_value(self)
  if dtype is not None and np.dtype(dtype) != v.dtype:
    return v.astype(dtype)
  if copy:
    return v.copy()
  return v


def _printable(self) -> bool:
  """Whether this process has the value to print (not when other processes hold parts of it)."""
  return not spmd.is_sharded(self) or self._sharding.is_fully_addressable or \
      self._sharding.is_fully_replicated


def _repr(self):
  check_not_deleted(self)
  if not _printable(self):
    weak = ", weak_type=True" if self.aval.weak_type else ""
    return f"Array(shape={self.aval.shape}, dtype={self.aval.dtype.name}{weak})"
  return fmt.array_repr(_host_value(self), self.aval.dtype, self.aval.weak_type)


def _str(self):
  if not _printable(self):
    return _repr(self)
  return fmt.array_str(_host_value(self), self.aval.dtype)


def _format(self, spec):
  if not _printable(self):
    return _repr(self)
  if not self.aval.shape:
    return format(_host_value(self)[()], spec)
  return format(_host_value(self), spec) if spec else _str(self)


def _scalar(self, kind, fn):
  if self.aval.size != 1:
    raise TypeError(f"only length-1 arrays can be converted to Python scalars (got an array of "
                    f"shape {self.aval.shape} in {kind}())")
  return fn(_host_value(self).reshape(()))


def _bool(self):
  if self.aval.size != 1:
    raise ValueError("The truth value of an array with more than one element is ambiguous. "
                     "Use a.any() or a.all()")
  return bool(_host_value(self).reshape(()))


def _index(self):
  if self.aval.shape or not np.issubdtype(self.aval.dtype, np.integer):  # 0-d ints only, as JAX
    raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
  return _scalar(self, "index", int)


def _len(self):
  if not self.aval.shape:
    raise TypeError("len() of unsized object")
  return self.aval.shape[0]


def _hash(self):
  raise TypeError("unhashable type: 'jaxlib._jax.ArrayImpl' (ember arrays are mutable-looking "
                  "values; use x.item() or a tuple of x.tolist() as a dict key).")


def _setitem(self, idx, value):
  raise TypeError(
      "JAX arrays are immutable and do not support in-place item assignment. Instead of "
      "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
      "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _rebuild(value, weak_type):
  from ember.backend.array import ShapedArray as _SA
  v = np.asarray(value)
  return device_put_value(v, _SA(v.shape, v.dtype, weak_type))


def _reduce(self):
  return (_rebuild, (np.array(_host_value(self)), self.aval.weak_type))


def _to_device(self, device, /, *, stream=None):
  from ember.backend.placement import _resolve_device
  device = _resolve_device(device)
  if device_of(self) == device:
    if self._committed:
      return self
    return self._rewrap_with_aval_and_sharding(self.aval, _replicated(device)) \
        if False else copy_to_device(self, device, committed=True)
  return copy_to_device(self, device, committed=True)


def _replicated(device):
  from ember.backend.client import replicated_sharding
  return replicated_sharding(device)


def _item(self, *args):
  v = _host_value(self)
  return v.item(*args)


class _Shard:
  """One addressable piece of an array: its device, index, replica id and data."""
  __slots__ = ("device", "index", "data", "replica_id")

  def __init__(self, device, data, index=None, replica_id=0):
    self.device = device
    self.index = tuple(slice(None) for _ in data.aval.shape) if index is None else index
    self.data = data
    self.replica_id = replica_id

  def __repr__(self):
    return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})")


def _shards(self, everywhere: bool = False) -> list:
  """The pieces of an array on this process's devices (one for a single-device array); with
  ``everywhere``, on all devices, with ``data`` None for those of other processes."""
  if not spmd.is_sharded(self):
    return [_Shard(device_of(self), self)]
  sharding = self._sharding
  shape = self.aval.shape
  index = sharding.devices_indices_map(shape)
  replica = sharding.coords(len(shape))[:, -1]
  block = self.aval.update(shape=sharding.shard_shape(shape))
  local = _local_pieces(self, block)
  out = []
  for d, r in zip(sharding.mesh._flat_devices, replica):
    arr = local.get(d)
    if arr is not None:
      arr.aval = block
    if arr is not None or everywhere:
      out.append(_Shard(d, arr, index[d], int(r)))
  return out


def _local_pieces(x, block) -> dict:
  """{device: its piece of ``x`` as a single-device array}. While ``jax`` is importable but
  not imported, the pieces are copies made from the host (``host_reads``: jaxlib's own split
  would import ``jax``)."""
  from ember.backend import host_reads
  if host_reads.jax_pending():
    return {d: device_put_value(v, block, d, committed=True)
            for d, v in host_reads.device_blocks(x).items()}
  return dict(zip(x._sharding.mesh._addressable_devices, x._arrays))


def _device(self):
  """The array's device; for an array over several devices, its sharding (as in JAX)."""
  return self._sharding if spmd.is_sharded(self) else device_of(self)


def _devices(self) -> set:
  return set(self._sharding.mesh._flat_devices) if spmd.is_sharded(self) else {device_of(self)}


_PROPERTIES = {
    "shape": lambda self: self.aval.shape,
    "dtype": lambda self: self.aval.dtype,
    "ndim": lambda self: len(self.aval.shape),
    "size": lambda self: self.aval.size,
    "itemsize": lambda self: self.aval.dtype.itemsize,
    "nbytes": lambda self: self.aval.size * self.aval.dtype.itemsize,
    "weak_type": lambda self: self.aval.weak_type,
    "device": _device,
    "sharding": spmd.sharding_of,
    "committed": lambda self: self._committed,
    "is_fully_addressable": lambda self: spmd.sharding_of(self).is_fully_addressable,
    "is_fully_replicated": lambda self: spmd.sharding_of(self).is_fully_replicated,
    "addressable_shards": _shards,
    "global_shards": lambda self: _shards(self, everywhere=True),
    "__array_priority__": lambda self: 100,
}

_METHODS = {
    "__array__": _array, "__repr__": _repr, "__str__": _str, "__format__": _format,
    "__bool__": _bool, "__int__": lambda self: _scalar(self, "int", int),
    "__float__": lambda self: _scalar(self, "float", float),
    "__complex__": lambda self: _scalar(self, "complex", complex), "__index__": _index,
    "__len__": _len, "__hash__": _hash, "__setitem__": _setitem, "__reduce__": _reduce,
    "item": _item, "tolist": lambda self: _host_value(self).tolist(),
    "to_device": _to_device, "devices": _devices,
    "addressable_data": lambda self, index: _shards(self)[index].data,
    "copy_to_host_async": lambda self: None, "__array_namespace__": None,
    "__deepcopy__": lambda self, memo: self, "__copy__": lambda self: self,
    "__dlpack__": dlpack.to_dlpack, "__dlpack_device__": dlpack.dlpack_device,
}


def install() -> None:
  for name, getter in _PROPERTIES.items():
    setattr(ArrayImpl, name, property(getter))
  for name, fn in _METHODS.items():
    if fn is not None:
      setattr(ArrayImpl, name, fn)
  ArrayImpl.__array_priority__ = 100
  ArrayImpl.__module__ = "jaxlib._jax"


install()
