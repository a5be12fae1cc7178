"""Runs over several processes (``ember.distributed``): one program, many hosts, as in JAX.

Every process calls ``initialize(coordinator_address, num_processes, process_id)`` before it
uses ember. Process 0 starts jaxlib's distributed runtime *service* at the coordinator address;
every process connects a runtime *client* to it, which is how the processes find each other,
exchange their device lists and meet for collectives. ember's CPU client is then created as one
node of ``num_processes``: ``ember.devices()`` lists the devices of all processes (numbered by
process), ``ember.local_devices()`` those of this one, and collectives across processes go over
TCP with gloo (``jax_cpu_collectives_implementation``, default ``"gloo"``).

Differences from JAX: there is no cluster auto-detection (SLURM, Open MPI, Kubernetes, TPU
pods): pass ``coordinator_address``, ``num_processes`` and ``process_id`` (or set
``JAX_COORDINATOR_ADDRESS``); ``local_device_ids`` and ``partition_index`` (and its old name
``slice_index``), which choose accelerators and multi-slice partitions in JAX, raise
NotImplementedError; no preemption sync manager is started. ``ember.experimental.multihost_utils``
(``process_allgather``, ``broadcast_one_to_all``, ``sync_global_devices``...) works over the
processes this joins.

Example:
    >>> import ember
    >>> ember.distributed.is_initialized()
    False
"""
from __future__ import annotations

import atexit
import os
import warnings
from collections.abc import Sequence

from jaxlib import _jax

from ember.backend import client as backend_client

__all__ = ["initialize", "is_initialized", "shutdown"]

_service = None  # the coordination service (process 0 only)
_client = None  # this process's connection to it


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
  """Join this process to a run of ``num_processes`` processes (call before using ember).

  Args:
    coordinator_address: ``host:port`` of process 0, where the coordination service listens
      (default: ``$JAX_COORDINATOR_ADDRESS``).
    num_processes: how many processes take part.
    process_id: this process's index, ``0 <= process_id < num_processes``.
    local_device_ids: not supported (JAX restricts the process's visible accelerators with it);
      anything but None raises NotImplementedError.
    cluster_detection_method: None or ``"deactivate"`` (ember detects no clusters).
    initialization_timeout: seconds to wait for all processes to connect.
    heartbeat_timeout_seconds: seconds without a heartbeat before a process counts as dead.
    shutdown_timeout_seconds: seconds a finishing process waits for the others.
    coordinator_bind_address: where process 0's service binds (default: all interfaces, the
      port of ``coordinator_address``; or ``$JAX_COORDINATOR_BIND_ADDRESS``).
    slice_index: deprecated spelling of ``partition_index``.
    partition_index: not supported (JAX's multi-slice partition of this process); anything but
      None raises NotImplementedError.

  Raises:
    RuntimeError: if called twice, or after ember's backend started (any computation, or
      ``ember.devices()``...).
    ValueError, TypeError: for a missing or invalid address, count or id.
    NotImplementedError: for ``local_device_ids``, ``partition_index`` or ``slice_index``.

  Example (two processes, each running one of these lines first)::

      ember.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=0)
      ember.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=1)

  Once ember has started its backend, it is too late:

  >>> import ember
  >>> _ = ember.devices()
  >>> ember.distributed.initialize("localhost:1234", num_processes=2, process_id=0)
  Traceback (most recent call last):
  ...
  RuntimeError: jax.distributed.initialize() must be called before any JAX calls that might ...
  """
  global _service, _client
  if slice_index is not None and partition_index is None:
    warnings.warn("`slice_index` has been deprecated. Please use `partition_index` instead.",
                  DeprecationWarning, stacklevel=2)
    partition_index = slice_index
  for name, value in (("local_device_ids", local_device_ids),
                      ("partition_index", partition_index)):
    if value is not None:
      raise NotImplementedError(
          f"distributed.initialize({name}={value!r}): ember's processes use all their local "
          f"devices as one partition; leave {name} as None.")
  if backend_client.is_started():
    raise RuntimeError(
        "jax.distributed.initialize() must be called before any JAX calls that might initialise "
        "the XLA backend. This includes any computation, but also calls to jax.devices, "
        "jax.device_put, and others.")
  if cluster_detection_method not in (None, "deactivate"):
    raise ValueError(f"cluster_detection_method={cluster_detection_method!r}: ember detects no "
                     "clusters; pass coordinator_address, num_processes and process_id.")
  coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
  _check_arguments(coordinator_address, num_processes, process_id)
  if _client is not None:
    raise RuntimeError("distributed.initialize should only be called once.")
  if process_id == 0:
    bind = coordinator_bind_address or os.environ.get(
        "JAX_COORDINATOR_BIND_ADDRESS", "[::]:" + coordinator_address.rsplit(":", 1)[1])
    _service = _jax.get_distributed_runtime_service(
        bind, num_processes, heartbeat_timeout=heartbeat_timeout_seconds,
        shutdown_timeout=shutdown_timeout_seconds)
  client = _jax.get_distributed_runtime_client(
      coordinator_address, process_id, init_timeout=initialization_timeout,
      heartbeat_timeout=heartbeat_timeout_seconds, shutdown_timeout=shutdown_timeout_seconds,
      use_compression=True)
  client.connect()  # blocks until every process has connected (or the timeout)
  _client = client
  atexit.register(shutdown)  # every process leaves together, before the service stops
  backend_client.join_processes(client, process_id, num_processes)


def _check_arguments(coordinator_address, num_processes, process_id) -> None:
  if coordinator_address is None:
    raise ValueError("coordinator_address should be defined.")
  if num_processes is None:
    raise ValueError("Number of processes must be defined.")
  if process_id is None:
    raise ValueError("The process id of the current process must be defined.")
  if not isinstance(process_id, int):
    raise TypeError("process_id must be a nonnegative int. "
                    f"Got process_id={process_id} of type {type(process_id)}.")
  if not isinstance(num_processes, int):
    raise TypeError("num_processes must be a positive int. "
                    f"Got num_processes={num_processes} of type {type(num_processes)}.")
  if not 0 <= process_id < num_processes:
    raise ValueError("process_id and num_processes must be nonnegative, with process_id < "
                     f"num_processes. Got process_id={process_id}, num_processes={num_processes}.")


def is_initialized() -> bool:
  """Whether ``initialize`` has connected this process to a run.

  Example:
      >>> import ember
      >>> ember.distributed.is_initialized()
      False
  """
  return _client is not None


def shutdown() -> None:
  """Disconnect from the run (process 0 also stops the service); nothing if not initialized.

  Each process waits (up to ``shutdown_timeout_seconds``) for the others to shut down too.

  Example:
      >>> import ember
      >>> ember.distributed.shutdown()
  """
  global _service, _client
  if _client is not None:
    _client.shutdown()
    _client = None
  if _service is not None:
    _service.shutdown()
    _service = None
