"""DLPack exchange: ``__dlpack__``/``__dlpack_device__`` of arrays and ``from_dlpack``.

jaxlib turns a device buffer into a DLPack capsule and a capsule back into a buffer, sharing the
memory both ways where it can: on CPU a producer's buffer is used in place when its data is
64-byte aligned and laid out row-major (any other layout, or ``copy=True``, costs one copy).
Imported buffers come back from jaxlib without ember's aval and with a C++ sharding, so they are
rewrapped here. As in JAX, ember exports unversioned (DLPack 0.x) capsules, which every consumer
accepts. An array on CPU device ``n`` reports ``(DLDeviceType.kDLCPU, n)`` (JAX reports 0 for
every CPU device), so that ``from_dlpack`` keeps arrays where they are.

Example:
    >>> import numpy as np
    >>> import ember.numpy as jnp
    >>> np.from_dlpack(jnp.arange(3))
    array([0, 1, 2], dtype=int32)
"""
from __future__ import annotations

import ctypes
import enum

import numpy as np
from jaxlib import _jax

from ember import dtypes
from ember.backend import client as backend_client
from ember.backend.array import ArrayImpl, _host_value, check_not_deleted, device_put_value
from ember.core.aval import ShapedArray

__all__ = ["SUPPORTED_DTYPES", "DLDeviceType", "dlpack_device", "from_dlpack",
           "is_supported_dtype", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
  """DLPack's device type codes (the ones jaxlib knows)."""
  kDLCPU = 1
  kDLCUDA = 2
  kDLCUDAHost = 3
  kDLROCM = 10


#: Dtypes that can travel through DLPack.
SUPPORTED_DTYPES = frozenset(dtypes.all_dtypes)


def is_supported_dtype(dtype) -> bool:
  """Whether arrays of ``dtype`` can be exchanged through DLPack.

  Example:
      >>> from ember.backend.dlpack import is_supported_dtype
      >>> is_supported_dtype("bfloat16"), is_supported_dtype("float8_e4m3fn")
      (True, False)
  """
  if dtype is None:
    raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
  return np.dtype(dtype) in SUPPORTED_DTYPES


def _cpu_device(dl_device_type, device_id: int, error):
  """The ember device a DLPack ``(device type, id)`` pair names (CPU only)."""
  if int(dl_device_type) != DLDeviceType.kDLCPU:
    raise error(f"DLPack device type {int(dl_device_type)} is not supported: ember exchanges "
                f"DLPack data in CPU memory (DLDeviceType.kDLCPU = {int(DLDeviceType.kDLCPU)}) "
                "only.")
  return backend_client.get_backend("cpu").device_from_local_hardware_id(int(device_id))


def _single_device(x):
  """The one device ``x`` lives on (DLPack describes one buffer on one device)."""
  devices = x._sharding._internal_device_list
  if len(devices) > 1:
    raise BufferError("DLPack can only exchange an array on a single device, but this array is "
                      f"sharded over {len(devices)} devices.")
  return devices[0]


def _owned_copy(x, device):
  """A new buffer on ``device`` holding ``x``'s values (never aliasing ``x``'s memory)."""
  return device_put_value(np.array(_host_value(x)), x.aval, device, committed=True)


def to_dlpack(x, /, *, stream=None, max_version=None, dl_device=None, copy=None):
  """``x.__dlpack__()``: a DLPack capsule viewing ``x``'s buffer (a copy if asked or needed).

  The capsule is an unversioned (DLPack 0.x) one whatever ``max_version`` asks for, which the
  standard allows and every consumer reads; ``dl_device`` must name a CPU device.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ones(2).__dlpack__()  # doctest: +ELLIPSIS
      <capsule object "dltensor" at 0x...>
  """
  if type(x) is not ArrayImpl:
    raise TypeError(f"Argument to to_dlpack must be an ember Array, got {type(x)}")
  check_not_deleted(x)
  source = _single_device(x)
  target = source if dl_device is None else _cpu_device(*dl_device, error=BufferError)
  if target != source and copy is False:
    raise BufferError(f"Specified device={target!r} which requires a copy since the source "
                      f"device is {source!r}, however copy=False. Set copy=True or copy=None "
                      "to perform the requested operation.")
  if copy or target != source:
    x = _owned_copy(x, target)
  return _jax.buffer_to_dlpack_managed_tensor(x, stream=stream)


def dlpack_device(x, /) -> tuple:
  """``x.__dlpack_device__()``: ``(DLDeviceType.kDLCPU, n)`` for an array on CPU device ``n``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ones(2).__dlpack_device__()
      (<DLDeviceType.kDLCPU: 1>, 0)
  """
  device = _single_device(x)
  kind = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA,
          "rocm": DLDeviceType.kDLROCM}.get(backend_client.platform_of(device),
                                            DLDeviceType.kDLCPU)
  return kind, device.local_hardware_id


# --- import -----------------------------------------------------------------------------------

class _DLTensor(ctypes.Structure):
  """The head of DLPack's ``DLManagedTensor`` (its ``DLTensor``), as laid out in C."""
  _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
              ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
              ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
              ("shape", ctypes.POINTER(ctypes.c_int64)),
              ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_DL_KINDS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}  # DLDataTypeCode -> NumPy kind (4: bfloat)
_ALIGNMENT = 64  # jaxlib's CPU client uses a producer's memory in place only at this alignment


def _describe(capsule):
  """``(aval, row_major, aligned)`` of an unconsumed DLPack capsule, read without consuming it."""
  t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
  shape = tuple(t.shape[i] for i in range(t.ndim))
  if t.code == 4 and t.bits == 16:
    dt = np.dtype(dtypes.bfloat16)
  elif t.code in _DL_KINDS and t.lanes == 1 and t.bits in (8, 16, 32, 64, 128):
    dt = np.dtype(f"{_DL_KINDS[t.code]}{t.bits // 8}")
  else:
    raise TypeError(f"DLPack data type (code {t.code}, {t.bits} bits, {t.lanes} lanes) has no "
                    "ember dtype.")
  row_major, step = True, 1
  if t.strides:
    for i in reversed(range(t.ndim)):
      row_major &= shape[i] == 1 or t.strides[i] == step
      step *= shape[i]
  aligned = ((t.data or 0) + t.byte_offset) % _ALIGNMENT == 0
  return ShapedArray(shape, dt, False), row_major, aligned


def _import_host(external, source):
  """A copy of the producer's data made through a NumPy view (any layout, read-only data too)."""
  view = np.from_dlpack(external)
  dt = dtypes.canonicalize_dtype(view.dtype)
  host = np.array(view, dtype=dt, order="C", copy=True)
  return device_put_value(host, ShapedArray(host.shape, dt, False), source, committed=True)


def _import(external, source, copy):
  """The producer's buffer as an array on ``source``: shared when possible, else one copy."""
  from ember.backend import host_reads
  if host_reads.jax_pending() and copy is not False:
    return _import_host(external, source)  # jaxlib's import would import jax (host_reads)
  try:
    capsule = external.__dlpack__(stream=None)
  except BufferError:  # e.g. a read-only NumPy array (DLPack 0.x cannot flag it read-only)
    if copy is False:
      raise
    return _import_host(external, source)
  aval, row_major, aligned = _describe(capsule)
  if copy is False and not (row_major and aligned):
    why = "is not aligned to 64 bytes." if row_major else "is not laid out row-major."
    raise ValueError(f"Specified input which requires a copy since the source data buffer {why} "
                     "However copy=False. Set copy=True or copy=None to perform the requested "
                     "operation.")
  if not row_major:
    return _import_host(external, source)
  # jaxlib copies unaligned data itself, and shares aligned data even when asked to copy it.
  buf = _jax.dlpack_managed_tensor_to_buffer(capsule, source, None, not aligned,
                                             int(DLDeviceType.kDLCPU))
  buf = buf._rewrap_with_aval_and_sharding(aval, backend_client.replicated_sharding(source))
  dt = dtypes.canonicalize_dtype(aval.dtype)
  if dt != aval.dtype:
    host = _host_value(buf).astype(dt)
    return device_put_value(host, ShapedArray(aval.shape, dt, False), source, committed=True)
  return _owned_copy(buf, source) if copy and aligned else buf


def from_dlpack(external_array, device=None, copy=None):
  """An ember array viewing (or, if needed or asked, copying) a DLPack producer's data.

  ``external_array`` has ``__dlpack__`` and ``__dlpack_device__`` (a NumPy array, another
  framework's tensor...). The result lives on ``device`` (a Device) if given, else on the
  producer's device, and is committed there, as in JAX; 64-bit data is canonicalized when x64 is
  off. ``ember.dlpack.from_dlpack`` and ``ember.numpy.from_dlpack`` are the public faces.

  Example:
      >>> import numpy as np
      >>> from ember.backend.dlpack import from_dlpack
      >>> from_dlpack(np.arange(3, dtype=np.int8))
      Array([0, 1, 2], dtype=int8)
  """
  if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
    raise TypeError("The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ "
                    "methods.")
  source = _cpu_device(*external_array.__dlpack_device__(), error=TypeError)
  if device is not None and device != source and copy is False:
    raise ValueError(f"Specified device={device!r} which requires a copy since the source "
                     f"device is {source!r}, however copy=False. Set copy=True or copy=None "
                     "to perform the requested operation.")
  out = _import(external_array, source, copy)
  if device is not None and device != source:
    out = device_put_value(_host_value(out), out.aval, device, committed=True)
  return out
