"""ember's Array: jaxlib's C++ ``ArrayImpl`` with the Python face of a JAX array.

Results of executables come back from jaxlib as ``ArrayImpl`` objects whose ``aval`` is ember's
``ShapedArray``; the methods users call (``shape``, ``__repr__``, ``__array__``, operators...) are
attached to that type here (operators and NumPy-style methods by ``ember.numpy``). So no wrapper
object stands between an executable and the user, and ``type(x)`` is ``ArrayImpl`` as in JAX.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.array([1., 2.])
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import abc
import math
import os
import threading

import numpy as np
from jaxlib import xla_client as xc

from ember import dtypes
from ember.config import config
from ember.core.aval import ShapedArray
from ember.core import trace as core
from ember.core.errors import UnexpectedTracerError, leaked_tracer_message
from ember.backend import client as backend_client
from ember.backend import host_reads
from ember.backend import spmd
from ember.backend.sharding import NamedSharding

ArrayImpl = xc.ArrayImpl

__all__ = ["Array", "ArrayImpl", "abstractify", "check_not_deleted", "device_put_value",
           "to_buffer", "check_size", "check_memory", "device_of", "committed_device",
           "OutOfMemoryError"]


class Array(abc.ABC):
  """The type of ember arrays (``isinstance(x, ember.Array)`` holds for arrays and tracers);
  ``ember.numpy.ndarray`` is the same class.

  Example:
      >>> import ember, ember.numpy as jnp, numpy as np
      >>> isinstance(jnp.arange(3.0), ember.Array), isinstance(np.arange(3.0), ember.Array)
      (True, False)
      >>> _ = ember.jit(lambda x: print(isinstance(x, jnp.ndarray)))(1.0)  # x is a tracer
      True
  """
  __slots__ = ()


Array.register(ArrayImpl)
Array.register(core.Tracer)


# --- sizes ----------------------------------------------------------------------------------

def _memory_bytes() -> int:
  try:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
  except (ValueError, OSError, AttributeError):  # pragma: no cover
    return 1 << 40


_MEMORY = _memory_bytes()
_MAX_ELEMENTS = (1 << 63) - 1


class OutOfMemoryError(xc.XlaRuntimeError, ValueError):
  """An array too large for this machine, refused before XLA tries to allocate it.

  A ``JaxRuntimeError`` (JAX's type for a failed allocation, with its ``RESOURCE_EXHAUSTED``
  phrase) that is also a ``ValueError``, as ember raised it before.
  """


def check_size(shape, dtype, what: str = "array") -> None:
  """Raise a clear error for negative dimensions, an element count beyond int64, or (outside
  any trace, where the array is really allocated) an allocation far beyond memory.

  Abstract evaluation calls this for every shape it builds; under ``jit`` the array may never
  exist (XLA fuses intermediates), so there only the shape is checked and ``check_memory``
  runs on the compiled program's outputs.
  """
  for d in shape:
    if d < 0:  # (a TypeError, as JAX's shape checks raise)
      raise TypeError(f"Cannot create an {what} with negative dimension {d} in shape "
                      f"{tuple(shape)}: dimensions must be >= 0.")
  n = math.prod(shape)
  if n > _MAX_ELEMENTS:
    raise ValueError(f"The {what} of shape {tuple(shape)} has {n} elements, more than any array "
                     "can hold (2**63 - 1).")
  if type(core.current_trace()) is core.EvalTrace:
    _check_bytes(n * np.dtype(dtype).itemsize, shape, dtype, what)


def check_memory(avals, what: str = "output") -> None:
  """Raise ``OutOfMemoryError`` if any of ``avals`` (buffers about to be allocated: a program's
  outputs) is far beyond this machine's memory."""
  for a in avals:
    try:
      itemsize = np.dtype(a.dtype).itemsize
    except (AttributeError, TypeError):  # not an array aval, or an extended dtype
      continue
    _check_bytes(math.prod(a.shape) * itemsize, a.shape, a.dtype, what)


def _check_bytes(nbytes: int, shape, dtype, what: str) -> None:
  if nbytes > 4 * _MEMORY:
    raise OutOfMemoryError(
        f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes:,} bytes: the {what} of shape "
        f"{tuple(shape)} and dtype {np.dtype(dtype).name} is far more than this machine's memory "
        f"({_MEMORY:,} bytes). Use a smaller shape.")


# --- abstract values of concrete values -------------------------------------------------------

def _python_scalar_aval(x) -> ShapedArray:
  t = type(x)
  if t is bool:
    return ShapedArray((), np.dtype(np.bool_), False)
  if t is int:
    dt = dtypes.default_int_dtype()
    _check_int_range(x, dt)
    return ShapedArray((), dt, True)
  if t is float:
    return ShapedArray((), dtypes.default_float_dtype(), True)
  return ShapedArray((), dtypes.default_complex_dtype(), True)


def _check_int_range(x: int, dt) -> None:
  info = np.iinfo(dt)
  if not info.min <= x <= info.max:
    raise OverflowError(f"Python int {x} too large to convert to {np.dtype(dt).name}")


def _numpy_aval(x) -> ShapedArray:
  dt = x.dtype
  if dt not in dtypes._SUPPORTED and dt.kind in "USVOMm":  # strings, records, objects, dates
    raise TypeError(f"JAX only supports number and bool dtypes, got dtype {dt} in array")
  return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(dt), False)


for _t in (bool, int, float, complex):
  core.register_aval_handler(_t, _python_scalar_aval)
core.register_aval_handler(np.ndarray, _numpy_aval)
for _t in set(np.sctypeDict.values()):
  if issubclass(_t, (np.number, np.bool_)):
    core.register_aval_handler(_t, _numpy_aval)
for _t in (dtypes.bfloat16,) + tuple(d.type for d in dtypes.narrow_float_dtypes +
                                     dtypes.narrow_int_dtypes):
  core.register_aval_handler(_t, _numpy_aval)
core.register_aval_handler(ArrayImpl, lambda x: x.aval)


def abstractify(x) -> ShapedArray:
  """Aval of a concrete value (an escaped tracer here is a clear error)."""
  if type(x) is ArrayImpl:
    return x.aval
  if isinstance(x, core.Tracer):
    raise UnexpectedTracerError(leaked_tracer_message(x))
  return core.get_aval(x)


# --- moving data to devices -----------------------------------------------------------------

def device_put_value(value, aval: ShapedArray, device=None, committed: bool = False):
  """Copy host data (a NumPy array or scalar) to ``device`` as an array of ``aval``."""
  if device is None:
    device = backend_client.default_device()
  arr = np.asarray(value)
  if arr.dtype != aval.dtype:
    arr = arr.astype(aval.dtype)
  if arr.shape != aval.shape:
    arr = np.broadcast_to(arr, aval.shape)
  if not arr.flags.c_contiguous:
    arr = np.ascontiguousarray(arr)
  sharding = backend_client.replicated_sharding(device)
  return xc.batched_device_put(aval, sharding, [arr], [device], committed,
                               enable_x64=config.jax_enable_x64)


_scalar_cache: dict = {}
_scalar_lock = threading.Lock()


def to_buffer(x, aval: ShapedArray, device):
  """``x`` as a device array on ``device`` with abstract value ``aval``."""
  if type(x) is ArrayImpl:
    if x._committed or device_of(x) == device:
      if x.aval is aval or x.aval == aval:
        return x
      return x._rewrap_with_aval_and_sharding(aval, x._sharding) if x.aval.shape == aval.shape \
          and x.aval.dtype == aval.dtype else x
    return copy_to_device(x, device, committed=False)
  t = type(x)
  if t in (int, bool, float):
    key = (t, x, aval, device, math.copysign(1.0, x) if t is float else 0)
  elif isinstance(x, np.generic) and x.dtype == aval.dtype:
    key = (t, x.tobytes(), aval, device)
  else:
    key = None
  if key is not None:
    buf = _scalar_cache.get(key)
    if buf is None:
      buf = device_put_value(x, aval, device)
      with _scalar_lock:
        if len(_scalar_cache) > 2048:
          _scalar_cache.clear()
        _scalar_cache[key] = buf
    return buf
  return device_put_value(x, aval, device)


def device_of(x):
  """The single device an array lives on."""
  return x._sharding._internal_device_list[0]


def check_not_deleted(x) -> None:
  """JAX's error for reading an array that was deleted (or donated to a jitted call)."""
  if x.is_deleted():
    raise RuntimeError(f"Array has been deleted with shape={x.aval.str_short(False)}.")


def copy_to_device(x, device, committed: bool = True):
  check_not_deleted(x)
  host = _host_value(x)
  return device_put_value(host, x.aval, device, committed=committed)


def committed_device(args, what: str = "operation"):
  """The device of the committed arrays among ``args`` (None if none is committed).

  Arrays committed to two different devices are an error, as in JAX.
  """
  device = None
  first = None
  for x in args:
    if type(x) is ArrayImpl and x._committed:
      d = device_of(x)
      if device is None:
        device, first = d, x
      elif d != device:
        raise ValueError(
            f"Received incompatible devices for {what}. Got argument of shape {first.aval} on "
            f"device {device!r} and argument of shape {x.aval} on device {d!r}. Move the "
            "arrays to one device first, e.g. with ember.device_put(x, device) or "
            "x.to_device(device).")
  return device


def _host_value(x) -> np.ndarray:
  """The array's value as a read-only NumPy array (``host_reads``: any platform and dtype). A
  copy is cached on the array; a zero-copy view of the device buffer is not (as in JAX: a
  cached view would keep the buffer from being donated)."""
  check_not_deleted(x)  # even when the value was read before
  v = x._npy_value
  if v is None:
    if isinstance(x._sharding, NamedSharding):
      return spmd.host_value(x)
    v, is_view = host_reads.read_single(x)
    v.flags.writeable = False
    if not is_view:
      x._npy_value = v
  return v
