"""Reading device arrays into NumPy on every platform, without the C++ paths that import ``jax``.

jaxlib offers two reads: the buffer protocol (``memoryview``: zero-copy, but only for CPU
buffers of dtypes the protocol can name) and ``_single_device_array_to_np_array_did_copy()``
(any platform and dtype). The second, like per-shard access (``ArrayImpl._arrays``) and DLPack
import, builds single-device arrays in C++ (``MakeFromSingleDeviceArray``), which imports the
``jax`` package when it can, to give them JAX's sharding and aval types (jaxlib-notes §1.4).
Where ``jax`` is installed beside ember, that import runs JAX's module code, which replaces the
Python methods of jaxlib's ``ArrayImpl`` (ember's arrays are that type too) with JAX's; making
the import fail instead would break a later real ``import jax`` (jaxlib caches the failure).

So ember reads:
- dtypes the buffer protocol cannot name (bfloat16, float8, 4-bit types) after converting them
  on the device to a same-width unsigned integer (or, for sub-byte types, to a wider type that
  holds every value), with a small compiled program cached per shape;
- GPU buffers after copying them to the device's ``pinned_host`` memory, which is host memory
  (falling back to jaxlib's copying read where the plugin does not allow that);
- shards of an array over several devices, while ``jax`` is importable but not yet imported,
  through a program over the mesh that hands each device's block to a host callback.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.backend import host_reads
    >>> host_reads.read_single(jnp.ones(2, jnp.bfloat16))[0]
    array([1, 1], dtype=bfloat16)
"""
from __future__ import annotations

import importlib.util
import sys
import threading

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from ember import dtypes
from ember.core.aval import ShapedArray

__all__ = ["jax_pending", "read_single", "device_blocks", "viewable", "install_gatherer",
           "wire_dtype"]

_jax_importable: bool | None = None


def jax_pending() -> bool:
  """Whether the ``jax`` package is importable here but not imported: jaxlib's C++ would then
  import it on the paths this module avoids."""
  global _jax_importable
  if "jax" in sys.modules:
    return False
  if _jax_importable is None:
    try:
      _jax_importable = importlib.util.find_spec("jax") is not None
    except (ImportError, ValueError):
      _jax_importable = False
  return _jax_importable


_viewable: dict = {}


def viewable(dtype) -> bool:
  """Whether NumPy reads buffers of ``dtype`` through the buffer protocol."""
  dt = np.dtype(dtype)
  ok = _viewable.get(dt)
  if ok is None:
    ok = _viewable[dt] = dt.kind in "biufc" and dt.name != "bfloat16" and \
        dt.itemsize <= 16 and not dt.name.startswith(("float8_", "float4_", "float6_")) and \
        dt.name not in ("int2", "uint2", "int4", "uint4")
  return ok


def _wire_dtype(dtype) -> tuple[np.dtype, bool]:
  """The viewable dtype ``dtype``'s data crosses as, and whether by bitcast (same width) rather
  than by conversion (sub-byte types: every value fits the wider type exactly)."""
  dt = np.dtype(dtype)
  if dtypes.is_float(dt):
    bits = dtypes.finfo(dt).bits
    if bits in (8, 16):
      return np.dtype(f"uint{bits}"), True
    return np.dtype(np.float32), False
  return np.dtype(np.int8 if dt.name.startswith("int") else np.uint8), False


_programs: dict = {}
_lock = threading.Lock()


def _converter(aval, device):
  """A compiled program turning an array of ``aval`` on ``device`` into its wire dtype."""
  key = (aval.shape, aval.dtype, device)
  entry = _programs.get(key)
  if entry is None:
    from ember.backend import client, compile as compile_mod, lowering, _jaxlib_compat
    wire, bitcast = _wire_dtype(aval.dtype)
    out = ShapedArray(aval.shape, wire)
    op = "stablehlo.bitcast_convert" if bitcast else "stablehlo.convert"
    t_in, t_out = lowering.tensor_type(ShapedArray(aval.shape, aval.dtype)), \
        lowering.tensor_type(out)
    text = ("module @ember_host_read attributes {mhlo.num_partitions = 1 : i32, "
            "mhlo.num_replicas = 1 : i32} {\n"
            f"  func.func public @main(%arg0: {t_in}) -> ({t_out}) {{\n"
            f'    %0 = "{op}"(%arg0) : ({t_in}) -> {t_out}\n'
            f"    func.return %0 : {t_out}\n  }}\n}}\n")
    exe = compile_mod.compile_text(text, device, name="ember_host_read")
    handler = _jaxlib_compat.result_handler(out, client.replicated_sharding(device), False)
    entry = (exe, handler, bitcast)
    with _lock:
      if len(_programs) > 256:
        _programs.clear()
      _programs[key] = entry
  return entry


_pinned_ok: dict = {}  # platform -> whether reading through pinned_host memory works there


def _host_view(x) -> tuple[np.ndarray, bool]:
  """``x``'s buffer (of a viewable dtype) as NumPy, and whether that is a view of it."""
  from ember.backend.array import device_of
  device = device_of(x)
  if device.platform == "cpu":
    x.block_until_ready()
    return np.asarray(memoryview(x)), True
  if _pinned_ok.get(device.platform, True):
    try:
      return np.asarray(memoryview(_to_pinned_host(x, device))).copy(), False
    except Exception:  # noqa: BLE001 - this plugin keeps such buffers from the protocol
      _pinned_ok[device.platform] = False
  from ember.backend import _jaxlib_compat
  return _jaxlib_compat.copy_to_numpy(x), False


def _to_pinned_host(x, device):
  from ember.backend import client
  devices = client.device_list((device,))
  sharding = xc.GSPMDSharding(devices, xc.HloSharding.replicate(), memory_kind="pinned_host")
  out, = _jax.batched_copy_array_to_devices_with_sharding(
      [x], [devices], [sharding], [_jax.ArrayCopySemantics.ALWAYS_COPY])
  return out


def read_single(x) -> tuple[np.ndarray, bool]:
  """A single-device array's value as NumPy (shaped as its aval), and whether it is a view of
  the device buffer (a copy otherwise)."""
  aval = x.aval
  dt = aval.dtype
  if viewable(dt):
    v, is_view = _host_view(x)
    if v.dtype != dt:
      v = v.view(dt)
    return v.reshape(aval.shape), is_view
  exe, handler, bitcast = _converter(aval, x._sharding._internal_device_list[0])
  wire = exe.execute_sharded([x]).consume_with_handlers([handler])[0]
  v, _ = _host_view(wire)
  v = v.reshape(aval.shape)
  return (v.view(dt) if bitcast else v.astype(dt)), False


# --- shards of arrays over several devices ------------------------------------------------------

def device_blocks(x) -> dict:
  """{device: its block as NumPy} for the addressable devices of a sharded array."""
  if not jax_pending():
    sharding = x._sharding
    block = x.aval.update(shape=sharding.shard_shape(x.aval.shape))
    out = {}
    for d, arr in zip(sharding.mesh._addressable_devices, x._arrays):
      arr.aval = block
      out[d] = read_single(arr)[0]
    return out
  return _gathered(x)


_gatherers: dict = {}


def _gathered(x) -> dict:
  """The blocks of ``x`` handed to the host by a callback in a program over its mesh: no
  single-device array is made on the way (see the module docstring)."""
  sharding = x._sharding
  mesh, spec = sharding.mesh, sharding.spec
  key = (mesh, spec, x.aval.shape, x.aval.dtype)
  fn = _gatherers.get(key)
  if fn is None:
    if len(_gatherers) > 256:  # bounded, as every cache of compiled programs is
      _gatherers.clear()
    if _make_gatherer is None:
      raise RuntimeError("ember.backend.host_reads needs ember.host's gatherer: import ember "
                         "first")
    fn = _gatherers[key] = _make_gatherer(mesh, spec, x.aval.dtype)
  blocks: dict = {}
  fn(x, blocks)
  return blocks


_make_gatherer = None  # (mesh, spec, dtype) -> run(x, blocks): ember.host installs it


def install_gatherer(make) -> None:
  """Set the maker of shard-gathering programs (``ember.host`` does, at import: it uses jit,
  shard_map and debug.callback, which sit above the backend)."""
  global _make_gatherer
  _make_gatherer = make


def wire_dtype(dtype) -> tuple[np.dtype, bool]:
  """The viewable dtype ``dtype``'s data crosses to the host as, and whether by bitcast."""
  return (np.dtype(dtype), True) if viewable(dtype) else _wire_dtype(dtype)
