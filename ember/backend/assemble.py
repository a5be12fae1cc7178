"""Arrays assembled from pieces: per-device arrays, per-index callbacks, per-process data.

In a run of several processes (``ember.distributed``) an array over a mesh is one global value
of which each process holds only the shards on its own devices. These functions build such an
array without any process ever holding all of it, as JAX's functions of the same names do:

- ``make_array_from_callback(shape, sharding, cb)``: ``cb(index)`` gives the block at ``index``
  (a tuple of slices) for each of this process's devices.
- ``make_array_from_single_device_arrays(shape, sharding, arrays)``: one existing array per
  device of this process.
- ``make_array_from_process_local_data(sharding, local_data, global_shape)``: this process's
  contiguous part of the global array (for example its slice of a batch).

Example:
    >>> import ember, numpy as np
    >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(ember.devices()[:2]), ("i",))
    >>> x = ember.make_array_from_callback((4,), NamedSharding(mesh, P("i")),
    ...                                    lambda index: np.arange(4.0)[index])
    >>> x
    Array([0., 1., 2., 3.], dtype=float32)
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from jaxlib import xla_client as xc

from ember import dtypes, pytree
from ember.backend.placement import device_put
from ember.backend import _jaxlib_compat
from ember.backend import client as backend_client
from ember.backend.array import ArrayImpl, abstractify, device_of
from ember.backend.sharding import NamedSharding, Sharding, SingleDeviceSharding
from ember.config import config
from ember.core.aval import ShapedArray
from ember.core.errors import UnexpectedTracerError
from ember.core.trace import Tracer

__all__ = [
  "make_array_from_callback",
  "make_array_from_process_local_data",
  "make_array_from_single_device_arrays",
]


def _check_sharding(sharding, fname: str) -> None:
  if not isinstance(sharding, (NamedSharding, SingleDeviceSharding)):
    raise TypeError(f"sharding should be an instance of `jax.sharding`. Got {sharding} of type "
                    f"{type(sharding)} in ember.{fname}; use a NamedSharding or a "
                    "SingleDeviceSharding.")


def _carried(sharding):
  """The sharding object the C++ array carries (ember's NamedSharding, or jaxlib's own for a
  single device)."""
  if isinstance(sharding, NamedSharding):
    return sharding
  return backend_client.replicated_sharding(sharding._device)


def _dtype_of(pieces: list, dtype, fname: str):
  if dtype is None:
    if not pieces:
      raise ValueError("If the Array has no addressable shards, `dtype` must be provided via "
                       f"the `dtype` argument to `jax.{fname}`.")
    return pieces[0].dtype
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype, fname)
  if pieces and pieces[0].dtype != dtype:
    raise ValueError(f"If `dtype` is provided to `jax.{fname}`, it must match the dtype of the "
                     f"addressable shards. Got dtype={dtype} and shard dtype={pieces[0].dtype}`.")
  return dtype


def _check_pieces(pieces: list, aval: ShapedArray, sharding) -> None:
  """Every piece has the array's dtype and the sharding's shard shape."""
  expected = tuple(sharding.shard_shape(aval.shape))
  for p in pieces:
    if p.dtype != aval.dtype:
      raise ValueError("Input buffers to `Array` must have matching dtypes. "
                       f"Got {p.dtype}, expected {aval.dtype} for buffer: {p}")
    if tuple(p.shape) != expected:
      raise ValueError(
          f"Expected shard shape {expected} doesn't match the single device array shape "
          f"{tuple(p.shape)}. Shape of Array is {aval.str_short(short_dtypes=True)} with "
          f"sharding {sharding}")


def _host_piece(value) -> np.ndarray:
  """A callback's result as a NumPy array of its canonical dtype."""
  if isinstance(value, Tracer):
    raise UnexpectedTracerError(
        "ember.make_array_from_callback cannot be called within a traced context: its callback "
        f"returned the tracer {value!r}. Return concrete (NumPy) data from the callback.")
  value = np.asarray(value)
  return value.astype(abstractify(value).dtype, copy=False)


def make_array_from_callback(shape: Sequence[int], sharding: Sharding,
                             data_callback: Callable, dtype=None):
  """An array of ``shape`` laid out by ``sharding``, whose block on each of this process's
  devices is ``data_callback(index)`` (``index`` a tuple of slices into the global array).

  For a fully replicated sharding the callback is called once, with the whole index.

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
      >>> mesh = Mesh(np.array(ember.devices()[:2]), ("i",))
      >>> x = ember.make_array_from_callback((2, 2), NamedSharding(mesh, P("i")),
      ...                                    lambda index: np.eye(2, dtype=np.int32)[index])
      >>> [(s.index[0], s.data.tolist()) for s in x.addressable_shards]
      [(slice(0, 1, None), [[1, 0]]), (slice(1, 2, None), [[0, 1]])]
  """
  _check_sharding(sharding, "make_array_from_callback")
  shape = tuple(shape)
  index = sharding.addressable_devices_indices_map(shape)
  devices = list(index)
  if sharding.is_fully_replicated:
    pieces = [_host_piece(data_callback(tuple(slice(None) for _ in shape)))] * len(devices)
  else:
    pieces = [_host_piece(data_callback(index[d])) for d in devices]
  aval = ShapedArray(shape, _dtype_of(pieces, dtype, "make_array_from_callback"), False)
  _check_pieces(pieces, aval, sharding)
  return xc.batched_device_put(aval, _carried(sharding), pieces, devices, True,
                               enable_x64=config.jax_enable_x64)


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Sharding,
                                         arrays: Sequence, *, dtype=None):
  """The array of ``shape`` laid out by ``sharding`` whose shards are ``arrays``: one array on
  each of this process's devices, in any order (no data is copied).

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
      >>> mesh = Mesh(np.array(ember.devices()[:2]), ("i",))
      >>> parts = [ember.device_put(np.full(2, k, np.float32), d)
      ...          for k, d in enumerate(mesh.local_devices)]
      >>> ember.make_array_from_single_device_arrays((4,), NamedSharding(mesh, P("i")), parts)
      Array([0., 0., 1., 1.], dtype=float32)
  """
  _check_sharding(sharding, "make_array_from_single_device_arrays")
  if not isinstance(arrays, (list, tuple)):
    raise TypeError("jax.make_array_from_single_device_arrays `arrays` argument must be a list "
                    f"or tuple, but got {type(arrays)}.")
  if any(type(a) is not ArrayImpl for a in arrays):
    raise ValueError("jax.make_array_from_single_device_arrays requires a list of concrete "
                     f"arrays as input, but got types {set(map(type, arrays))}")
  arrays = list(arrays)
  aval = ShapedArray(tuple(shape), _dtype_of(arrays, dtype,
                                             "make_array_from_single_device_arrays"), False)
  ordered = _by_device(arrays, sharding)
  _check_pieces(ordered, aval, sharding)
  return _jaxlib_compat.make_array(aval, _carried(sharding), ordered, True)


def _by_device(arrays: list, sharding) -> list:
  """``arrays`` in the order of the sharding's addressable devices, after checking that they
  are on exactly those devices."""
  wanted = list(sharding.mesh._addressable_devices) if isinstance(sharding, NamedSharding) \
      else [sharding._device]
  if len(arrays) != len(wanted):
    raise ValueError(f"Expected {len(wanted)} per-device arrays (this is how many devices are "
                     f"addressable by the sharding), but got {len(arrays)}")
  ids = [device_of(a).id for a in arrays]
  by_id = dict(zip(ids, arrays))
  if len(by_id) != len(arrays):
    raise ValueError("When making an array from single-device arrays, the input arrays must be "
                     f"from distinct devices, but got device IDs {ids}")
  missing = {d.id for d in wanted} - set(by_id)
  extra = set(by_id) - {d.id for d in wanted}
  if missing or extra:
    msg = "Addressable devices and per-device arrays devices do not match."
    if missing:
      msg += f" Sharding contains devices {missing} that are not present in per-device arrays."
    if extra:
      msg += f" Per-device arrays contain devices {extra} that are not present in the sharding."
    raise ValueError(msg)
  return [by_id[d.id] for d in wanted]


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
  """A global array laid out by ``sharding`` from this process's part of it, ``local_data``.

  Along each dimension ``local_data`` holds either the whole global extent, or exactly the
  blocks this process's devices hold, in order (its slice of a batch, say). ``global_shape``
  (default: inferred, assuming every process holds an equal part) fixes the global shape.
  ``local_data`` may be a pytree, with ``sharding`` and ``global_shape`` pytree prefixes of it.
  In a single process this is ``ember.device_put(local_data, sharding)``.

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
      >>> mesh = Mesh(np.array(ember.devices()[:2]), ("i",))
      >>> ember.make_array_from_process_local_data(NamedSharding(mesh, P("i")), np.arange(4))
      Array([0, 1, 2, 3], dtype=int32)
  """
  shardings = pytree.tree_broadcast(sharding, local_data)
  shapes = pytree.tree_broadcast(global_shape, local_data,
                                 is_leaf=lambda s: s is None or isinstance(s, tuple))
  return pytree.tree_map(_from_local_data, local_data, shardings, shapes,
                         is_leaf=lambda s: s is None or isinstance(s, tuple))


def _from_local_data(data, sharding, global_shape):
  _check_sharding(sharding, "make_array_from_process_local_data")
  data = np.asarray(data)
  if backend_client.process_count() == 1 or isinstance(sharding, SingleDeviceSharding):
    if global_shape is not None and tuple(global_shape) != data.shape:
      raise ValueError(
          "When calling `make_array_from_process_local_data` on a single process, global_shape "
          f"should be None or equal to local_data.shape.Got global_shape={global_shape} and "
          f"local_data.shape={data.shape}.")
    return device_put(data, sharding)
  if global_shape is None:
    global_shape = _global_shape(sharding, data.shape)
    if None in global_shape:
      raise ValueError("Unable to compute global_shape due to non-uniform sharding. Specify "
                       f"global shape directly. Partially computed global_shape={global_shape}.")
  global_shape = tuple(global_shape)
  if len(global_shape) != data.ndim:
    raise ValueError(f"global_shape={global_shape} has {len(global_shape)} dimensions but "
                     f"local_data has {data.ndim} (shape {data.shape}).")
  block = sharding.shard_shape(global_shape)
  starts = _local_starts(sharding, global_shape)
  whole = [n == g for n, g in zip(data.shape, global_shape)]
  for d, (n, g) in enumerate(zip(data.shape, global_shape)):
    if n != g and n != len(starts[d]) * block[d]:
      raise ValueError(
          "Invalid host data, each dimension should match either global or process shape. In "
          f"dimension {d}, the process data has {n} elements. Process addresses "
          f"{len(starts[d]) * block[d]} elements and global_shape={global_shape}.")

  def local_block(index):
    return data[tuple(s if whole[d] else _nth_block(starts[d].index(s.start or 0), block[d])
                      for d, s in enumerate(index))]
  return make_array_from_callback(global_shape, sharding, local_block)


def _nth_block(k: int, size: int) -> slice:
  return slice(k * size, (k + 1) * size)


def _local_starts(sharding, global_shape) -> list:
  """Per dimension, the sorted distinct offsets of the blocks on this process's devices."""
  index = sharding.addressable_devices_indices_map(global_shape).values()
  return [sorted({idx[d].start or 0 for idx in index}) for d in range(len(global_shape))]


def _global_shape(sharding, local_shape) -> tuple:
  """The global shape when every process holds the same number of tiles along a dimension
  (None along a dimension where they do not)."""
  coords = sharding.coords(len(local_shape))
  owners = [d.process_index for d in sharding.mesh._flat_devices]
  out = []
  for d, (n, t) in enumerate(zip(local_shape, sharding.tiles(len(local_shape)))):
    counts = {len({int(row[d]) for row, p in zip(coords, owners) if p == q})
              for q in set(owners)}
    out.append(n * t // counts.pop() if len(counts) == 1 else None)
  return tuple(out)
