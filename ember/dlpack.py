"""Exchanging arrays with other libraries through DLPack (mirrors ``jax.dlpack``).

Example:
    >>> import numpy as np
    >>> import ember
    >>> ember.dlpack.from_dlpack(np.ones(2, np.float32))
    Array([1., 1.], dtype=float32)
"""
from __future__ import annotations

from ember.backend import dlpack as _dlpack
from ember.backend.dlpack import is_supported_dtype

__all__ = ["from_dlpack", "is_supported_dtype"]


def from_dlpack(external_array, device=None, copy=None):
  """An ember array sharing (or, if needed or asked, copying) a DLPack producer's data.

  Args:
    external_array: an object with ``__dlpack__`` and ``__dlpack_device__`` methods (a NumPy
      array, another framework's tensor, an ember array).
    device: a Device or single-device Sharding to put the result on (committed); by default the
      producer's device.
    copy: True always copies; False never does and raises where a copy is needed (another
      device, unaligned or non-row-major data, a read-only NumPy array); None copies only then.

  Returns:
    An ember array; on CPU it shares the producer's memory when that is 64-byte aligned and
    row-major and no copy was asked for.

  Example:
      >>> import numpy as np
      >>> import ember
      >>> ember.dlpack.from_dlpack(np.arange(3))
      Array([0, 1, 2], dtype=int32)
  """
  from ember.backend.placement import _resolve_device
  return _dlpack.from_dlpack(external_array, device=_resolve_device(device), copy=copy)
