"""What the host process sees of the runtime: process indices, the old ``host_*`` names for them,
an environment report, asynchronous copies to the host and the effects barrier.

These are JAX 0.10.2's top-level ``process_indices``, ``host_count``, ``host_id``,
``host_ids`` (deprecated aliases that warn), ``print_environment_info``,
``copy_to_host_async`` and ``effects_barrier``.

Example:
    >>> import ember
    >>> ember.process_indices()
    [0]
"""
from __future__ import annotations

import os
import platform
import sys
import warnings

import jaxlib
import numpy as np

from ember import pytree
from ember.backend import client as _client
from ember.backend.array import ArrayImpl, check_not_deleted

__all__ = ["copy_to_host_async", "effects_barrier", "host_count", "host_id", "host_ids",
           "print_environment_info", "process_indices"]


def process_indices(backend=None) -> list[int]:
  """The indices of the processes of the run, sorted (``[0]`` when it runs alone).

  Example:
      >>> import ember
      >>> ember.process_indices()
      [0]
  """
  return sorted({d.process_index for d in _client.devices(backend)})


def _renamed(old: str, new: str) -> None:
  warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                "removed; please update your code.", UserWarning, stacklevel=3)


def host_count(backend=None) -> int:
  """Deprecated alias of ``process_count`` (warns, as JAX's does).

  Example:
      >>> import ember, warnings
      >>> with warnings.catch_warnings():
      ...   warnings.simplefilter("ignore")
      ...   ember.host_count()
      1
  """
  _renamed("host_count", "process_count")
  return _client.process_count(backend)


def host_id(backend=None) -> int:
  """Deprecated alias of ``process_index`` (warns, as JAX's does).

  Example:
      >>> import ember, warnings
      >>> with warnings.catch_warnings():
      ...   warnings.simplefilter("ignore")
      ...   ember.host_id()
      0
  """
  _renamed("host_id", "process_index")
  return _client.process_index(backend)


def host_ids(backend=None) -> list[int]:
  """Deprecated alias of ``process_indices`` (warns, as JAX's does).

  Example:
      >>> import ember, warnings
      >>> with warnings.catch_warnings():
      ...   warnings.simplefilter("ignore")
      ...   ember.host_ids()
      [0]
  """
  _renamed("host_ids", "process_indices")
  return process_indices(backend)


def _environment_lines() -> list[str]:
  from ember.version import __version__
  first = _client.devices()[0]
  lines = [
      f"ember:  {__version__}",
      f"jaxlib: {jaxlib.__version__}",
      f"numpy:  {np.__version__}",
      "python: " + sys.version.replace("\n", " "),
      f"device info: {first.device_kind}-{_client.device_count()}, "
      f"{_client.local_device_count()} local devices\"",  # the stray quote is JAX's
      f"process_count: {_client.process_count()}",
      f"platform: {platform.uname()}",
  ]
  return lines + [f"{key}={value}" for key, value in os.environ.items()
                  if key.startswith(("JAX_", "XLA_"))]


def print_environment_info(return_string: bool = False) -> str | None:
  """Print (or, with ``return_string``, return) the versions of ember, jaxlib, NumPy and Python,
  the devices, the platform and the ``JAX_*`` / ``XLA_*`` environment variables, in JAX's
  layout: what a bug report should include. The first line names ember where JAX's names jax;
  there is no ``nvidia-smi`` section (ember runs on the CPU only).

  Example:
      >>> import ember
      >>> print(ember.print_environment_info(return_string=True))  # doctest: +ELLIPSIS
      ember:  0.10.2
      jaxlib: 0.10.2
      ...
  """
  text = "\n".join(_environment_lines())
  if return_string:
    return text
  print(text)
  return None


def copy_to_host_async(x):
  """Start copying every array leaf of ``x`` to host memory without waiting, so that a later
  read (``np.asarray``, ``device_get``) does not wait for the copy. Returns ``x`` itself; leaves
  without a ``copy_to_host_async`` method (numbers, tracers) are left alone. A deleted array
  raises ``RuntimeError``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> x = jnp.arange(3.0)
      >>> ember.copy_to_host_async(x) is x
      True
  """
  for leaf in pytree.tree_leaves(x):
    if isinstance(leaf, ArrayImpl):
      check_not_deleted(leaf)
    copy = getattr(leaf, "copy_to_host_async", None)
    if copy is not None:
      copy()
  return x


def effects_barrier() -> None:
  """Wait until the computations dispatched so far, and the host callbacks they make
  (``debug.print``, ``debug.callback``...), have finished: ember waits until every live array
  is ready.

  Example:
      >>> import ember
      >>> ember.effects_barrier()
  """
  for array in _client.get_client().live_arrays():
    if not array.is_deleted():
      array.block_until_ready()


# --- reading shards while jax is importable (ember/backend/host_reads.py) -----------------------

def _make_gatherer(mesh, spec, dtype):
  """A program over ``mesh`` that hands each device's block of an array laid out by ``spec``
  to the host (as ``run(x, blocks)``, filling ``{device: block}``): a debug callback inside a
  shard_map, converted on the device to a dtype NumPy reads when ``dtype`` is not one."""
  from ember import lax
  from ember.transforms.jit import jit
  from ember.backend import host_reads
  from ember.backend.sharding import PartitionSpec
  from ember.debug import callback
  from ember.transforms.shard_map import shard_map
  wire, bitcast = host_reads.wire_dtype(dtype)
  devices = list(mesh._flat_devices)
  sink: list = [None]

  def record(position, block):
    value = np.asarray(block)
    sink[0][devices[int(np.asarray(position))]] = \
        value.view(dtype) if bitcast else value.astype(dtype)

  def body(block):
    position = np.int32(0)
    for name, size in zip(mesh.axis_names, mesh.axis_sizes):
      position = lax.add(lax.mul(position, np.int32(size)), lax.axis_index(name))
    if wire != np.dtype(dtype):
      block = (lax.bitcast_convert_type if bitcast else lax.convert_element_type)(block, wire)
    callback(record, position, block)
    return np.int32(0)

  program = jit(shard_map(body, mesh=mesh, in_specs=(spec,), out_specs=PartitionSpec(),
                          check_vma=False))

  def run(x, blocks):
    sink[0] = blocks
    try:
      program(x).block_until_ready()
    finally:
      sink[0] = None
  return run


def _install_gatherer() -> None:
  from ember.backend import host_reads
  host_reads.install_gatherer(_make_gatherer)


_install_gatherer()
