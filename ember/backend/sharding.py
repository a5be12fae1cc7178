"""Shardings of single-device arrays (the multi-device ones come with ``ember.sharding``)."""
from __future__ import annotations

__all__ = ["Sharding", "SingleDeviceSharding"]


class Sharding:
  """Base class of the ways an array's data is laid out over devices."""

  @property
  def device_set(self) -> set:
    raise NotImplementedError

  @property
  def is_fully_replicated(self) -> bool:
    raise NotImplementedError

  @property
  def is_fully_addressable(self) -> bool:
    return True


class SingleDeviceSharding(Sharding):
  """The whole array on one device.

  Example:
      >>> import ember
      >>> ember.numpy.zeros(2).sharding
      SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
  """
  __slots__ = ("_device", "_memory_kind")

  def __init__(self, device, *, memory_kind: str | None = None):
    self._device = device
    self._memory_kind = memory_kind

  @property
  def memory_kind(self) -> str:
    return self._memory_kind or "device"

  @property
  def device_set(self) -> set:
    return {self._device}

  @property
  def num_devices(self) -> int:
    return 1

  @property
  def is_fully_replicated(self) -> bool:
    return True

  def devices_indices_map(self, global_shape):
    return {self._device: tuple(slice(None) for _ in global_shape)}

  def shard_shape(self, global_shape):
    return tuple(global_shape)

  def __eq__(self, other):
    return isinstance(other, SingleDeviceSharding) and other._device == self._device \
        and other.memory_kind == self.memory_kind

  def __hash__(self):
    return hash((SingleDeviceSharding, self._device, self.memory_kind))

  def __repr__(self):
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"
