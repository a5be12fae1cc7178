"""Helpers for programs running over several processes (mirrors
``jax.experimental.multihost_utils``), on ``ember.distributed``.

Host values (NumPy arrays, scalars, fully addressable arrays) are exchanged by building a
global array with one row per process and replicating it with ``jit``: ``process_allgather``
stacks every process's value, ``broadcast_one_to_all`` hands every process the source's,
``sync_global_devices`` and ``assert_equal`` compare values across processes.
``host_local_array_to_global_array`` assembles each process's part into a global array over a
mesh. In a single process each of these is the identity on values (returned as NumPy arrays
where JAX returns them). No preemption sync manager runs, so
``reached_preemption_sync_point`` is always False in a single process and refused in several.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental import multihost_utils
    >>> multihost_utils.process_allgather(jnp.arange(3))
    array([[0, 1, 2]], dtype=int32)
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from ember import pytree
from ember.backend import client as backend_client
from ember.backend.array import ArrayImpl
from ember.backend.sharding import Mesh, NamedSharding, PartitionSpec as P

__all__ = ["process_allgather", "broadcast_one_to_all", "sync_global_devices", "assert_equal",
           "host_local_array_to_global_array", "global_array_to_host_local_array",
           "reached_preemption_sync_point", "ProcessFailureError", "P"]


class ProcessFailureError(Exception):
  """Processes of the run have failed: ``failed_devices`` holds their devices (JAX's
  fault-tolerance error; ember never raises it).

  Example:
      >>> from ember.experimental.multihost_utils import ProcessFailureError
      >>> ProcessFailureError({"cpu:1"})
      ProcessFailureError("Devices failed: {'cpu:1'}")
  """

  def __init__(self, failed_devices: set):
    self.failed_devices = failed_devices
    super().__init__(f"Devices failed: {failed_devices}")


def _process_mesh() -> Mesh:
  """A mesh of one device per process (each process's first)."""
  firsts = {}
  for d in backend_client.devices():
    firsts.setdefault(d.process_index, d)
  return Mesh(np.array([firsts[p] for p in sorted(firsts)]), ("processes",))


def _replicated_host(x) -> np.ndarray:
  """A global (not fully addressable) array's whole value on this host."""
  from ember.transforms.jit import jit
  mesh = x.sharding.mesh
  out = jit(lambda a: a, out_shardings=NamedSharding(mesh, P()))(x)
  return np.asarray(out.addressable_shards[0].data)


def _gather_leaf(x, tiled: bool) -> np.ndarray:
  if isinstance(x, ArrayImpl) and not x.is_fully_addressable:
    return _replicated_host(x)
  local = np.asarray(x)
  if backend_client.process_count() == 1:
    return local if tiled else np.expand_dims(local, 0)
  from ember.backend.assemble import make_array_from_process_local_data
  mesh = _process_mesh()
  rows = local if tiled else np.expand_dims(local, 0)
  if rows.ndim == 0:
    raise ValueError("process_allgather(tiled=True) needs values of rank 1 or more.")
  glob = make_array_from_process_local_data(NamedSharding(mesh, P("processes")), rows)
  return _replicated_host(glob)


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
  """Every process's value of each leaf, on every process, as NumPy arrays: stacked along a new
  leading axis (one row per process), or concatenated along axis 0 when ``tiled``. A global
  array (spread over processes) is gathered whole instead.

  Example:
      >>> import numpy as np
      >>> from ember.experimental import multihost_utils
      >>> multihost_utils.process_allgather(np.ones(2), tiled=True)
      array([1., 1.])
  """
  return pytree.tree_map(lambda x: _gather_leaf(x, tiled), in_tree)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
  """The source process's ``in_tree`` (NumPy leaves) on every process; the source is process
  0 unless ``is_source`` says otherwise (True on exactly one process).

  Example:
      >>> import numpy as np
      >>> from ember.experimental import multihost_utils
      >>> multihost_utils.broadcast_one_to_all({"a": np.ones(2)})
      {'a': array([1., 1.])}
  """
  if is_source is None:
    is_source = backend_client.process_index() == 0
  if backend_client.process_count() == 1:
    return pytree.tree_map(np.asarray, in_tree)
  sources = process_allgather(np.asarray(bool(is_source)))
  if sources.sum() != 1:
    raise ValueError(f"broadcast_one_to_all: exactly one process must be the source, got "
                     f"{int(sources.sum())}.")
  row = int(np.argmax(sources))
  return pytree.tree_map(lambda x: process_allgather(x)[row], in_tree)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
  """Raise ``AssertionError`` unless every process passes equal values.

  Example:
      >>> import numpy as np
      >>> from ember.experimental import multihost_utils
      >>> multihost_utils.assert_equal(np.arange(3))
  """
  def check(x):
    rows = process_allgather(x)
    if not all(np.array_equal(rows[0], r) for r in rows[1:]):
      raise AssertionError(f"{fail_message} Expected: {rows[0]}; got: {rows}.")
  pytree.tree_map(check, in_tree)


def sync_global_devices(name: str) -> None:
  """Wait until every process reaches a ``sync_global_devices`` of the same ``name``.

  Example:
      >>> from ember.experimental import multihost_utils
      >>> multihost_utils.sync_global_devices("checkpoint saved")
  """
  if backend_client.process_count() == 1:
    return
  h = np.uint32(zlib.crc32(name.encode()))
  assert_equal(h, f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
  """Whether the run was asked to stop at ``step_id`` (a preemption notice). ember starts no
  preemption sync manager: False in a single process.

  Raises:
    NotImplementedError: over several processes.

  Example:
      >>> from ember.experimental import multihost_utils
      >>> multihost_utils.reached_preemption_sync_point(10)
      False
  """
  if backend_client.process_count() == 1:
    return False
  raise NotImplementedError("reached_preemption_sync_point: ember.distributed starts no "
                            "preemption sync manager.")


def _specs(pspecs, tree):
  return pytree.broadcast_prefix(pspecs, tree, is_leaf=lambda s: s is None or
                                 isinstance(s, P))


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Mesh, pspecs: Any):
  """Global arrays over ``global_mesh`` laid out by ``pspecs`` (a pytree prefix of the inputs)
  from each process's part of them (``make_array_from_process_local_data``).

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, PartitionSpec as P
      >>> from ember.experimental import multihost_utils
      >>> mesh = Mesh(np.array(ember.devices()[:2]), ("x",))
      >>> g = multihost_utils.host_local_array_to_global_array(np.arange(4.), mesh, P("x"))
      >>> g.shape, g.sharding.spec
      ((4,), P('x',))
  """
  from ember.backend.assemble import make_array_from_process_local_data
  leaves, tree = pytree.flatten(local_inputs)
  specs = _specs(pspecs, local_inputs)
  out = [make_array_from_process_local_data(
      NamedSharding(global_mesh, P() if s is None else s),
      x if isinstance(x, ArrayImpl) and not x.is_fully_addressable else np.asarray(x))
      for x, s in zip(leaves, specs)]
  return pytree.unflatten(tree, out)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Mesh, pspecs: Any):
  """Each process's part of global arrays laid out over ``global_mesh`` by ``pspecs``: the
  inverse of ``host_local_array_to_global_array``.

  Raises:
    NotImplementedError: over several processes.

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, PartitionSpec as P
      >>> from ember.experimental import multihost_utils
      >>> mesh = Mesh(np.array(ember.devices()[:2]), ("x",))
      >>> g = multihost_utils.host_local_array_to_global_array(np.arange(4.), mesh, P("x"))
      >>> multihost_utils.global_array_to_host_local_array(g, mesh, P("x")).shape
      (4,)
  """
  if backend_client.process_count() != 1:
    raise NotImplementedError("global_array_to_host_local_array over several processes is "
                              "not implemented in ember; use x.addressable_shards.")
  from ember.api import device_put
  leaves, tree = pytree.flatten(global_inputs)
  specs = _specs(pspecs, global_inputs)
  return pytree.unflatten(tree, [device_put(x, NamedSharding(global_mesh, P() if s is None
                                                             else s))
                                 for x, s in zip(leaves, specs)])


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
