"""The PJRT client and its devices, created lazily on first use.

The number of CPU devices comes from ``ember.config.update("jax_num_cpu_devices", n)`` (before
first use) or from ``XLA_FLAGS=--xla_force_host_platform_device_count=n``. After
``ember.distributed.initialize`` the client joins a run of several processes: ``devices()`` are
all processes' devices, ``local_devices()`` this process's, and collectives go over gloo.

Example:
    >>> import ember
    >>> ember.default_backend()
    'cpu'
"""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading

from jaxlib import xla_client as xc

from ember.config import config

Device = xc.Device  # the class of every device (``ember.Device``, as ``jax.Device``)

__all__ = ["get_client", "devices", "local_devices", "device_count", "local_device_count",
           "default_backend", "default_device", "replicated_sharding", "device_list",
           "process_index", "process_count", "is_started", "join_processes"]

_client = None
_lock = threading.Lock()
_PLATFORMS = ("cpu",)
_distributed: dict = {}  # how the CPU client joins other processes (set by join_processes)


def _requested_device_count() -> int:
  n = config.jax_num_cpu_devices
  if n is not None and n > 0:
    return int(n)
  m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
  return int(m.group(1)) if m else 1


def get_client():
  """The process's PJRT CPU client (created on first call)."""
  global _client
  if _client is None:
    with _lock:
      if _client is None:
        _client = xc.make_cpu_client(asynchronous=True, num_devices=_requested_device_count(),
                                     **_distributed_options())
        from ember.backend import lapack
        lapack.register()
  return _client


_COLLECTIVES = (None, "gloo", "mpi")


def _check_collectives(name, old, new):
  if new not in _COLLECTIVES:
    raise ValueError(f"new enum value must be None or in {list(_COLLECTIVES[1:])}, got {new!r} "
                     f"of type {type(new)}.")


config.watch("jax_cpu_collectives_implementation", _check_collectives)


def _distributed_options() -> dict:
  """The CPU client's arguments for joining other processes, with the configured collectives."""
  if not _distributed:
    return {}
  from jaxlib import _jax
  kind = config.jax_cpu_collectives_implementation
  collectives = None
  if kind == "gloo":
    collectives = _jax.make_gloo_tcp_collectives(_distributed["distributed_client"])
  elif kind == "mpi":
    collectives = _jax.make_mpi_collectives()
    collectives.Init()
    atexit.register(collectives.Finalize)
  return dict(_distributed, collectives=collectives)


def is_started() -> bool:
  """Whether the backend (the PJRT client) has been created."""
  return _client is not None


def join_processes(runtime_client, process_id: int, num_processes: int) -> None:
  """Make the CPU client, when it is created, one of ``num_processes`` processes that meet
  through ``runtime_client`` (a connected distributed runtime client)."""
  assert _client is None, "processes must be joined before the backend starts"
  _distributed.update(distributed_client=runtime_client, node_id=process_id,
                      num_nodes=num_processes)


def _refuse_late_update(name, old, new):
  if _client is not None and old != new:
    raise RuntimeError(
        f"{name} must be set before ember's backend is first used (it already has "
        f"{len(_client.devices())} devices). Call ember.config.update({name!r}, {new!r}) right "
        "after importing ember.")


config.watch("jax_num_cpu_devices", _refuse_late_update)


def _check_backend(backend):
  if backend is not None and getattr(backend, "platform", backend) not in _PLATFORMS:
    raise RuntimeError(
        f"Unknown backend {backend!r}: this ember installation has the backends {_PLATFORMS}.")


def devices(backend=None) -> list:
  """All devices of the default (or named) backend: ``[CpuDevice(id=0), ...]``.

  Example:
      >>> import ember
      >>> ember.devices()[:2]
      [CpuDevice(id=0), CpuDevice(id=1)]
  """
  _check_backend(backend)
  return list(get_client().devices())


def local_devices(process_index=None, backend=None) -> list:
  """The devices of process ``process_index`` (this process when None).

  Example:
      >>> import ember
      >>> ember.local_devices()[0], ember.local_devices(process_index=0)[1]
      (CpuDevice(id=0), CpuDevice(id=1))
  """
  _check_backend(backend)
  if process_index is None:
    return list(get_client().local_devices())
  return [d for d in get_client().devices() if d.process_index == process_index]


def device_count(backend=None) -> int:
  """How many devices the default (or named) backend has, over all processes (ember's
  doctests run with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``).

  Example:
      >>> import ember
      >>> ember.device_count()
      8
  """
  return len(devices(backend))


def local_device_count(backend=None) -> int:
  """How many devices this process has (``device_count()`` when it runs alone).

  Example:
      >>> import ember
      >>> ember.local_device_count() == ember.device_count()
      True
  """
  return len(local_devices(backend=backend))


def process_index(backend=None) -> int:
  """This process's index among the processes of a run (0 when it runs alone).

  Example:
      >>> import ember
      >>> ember.process_index()
      0
  """
  _check_backend(backend)
  return get_client().process_index()


def process_count(backend=None) -> int:
  """How many processes the run has (1 unless ``ember.distributed.initialize`` joined more).

  Example:
      >>> import ember
      >>> ember.process_count()
      1
  """
  return max(d.process_index for d in devices(backend)) + 1


def default_backend() -> str:
  """The platform name of the default backend (``'cpu'``).

  Example:
      >>> import ember
      >>> ember.default_backend()
      'cpu'
  """
  return get_client().platform


_GPU_PLATFORMS = ("gpu", "cuda", "rocm", "tpu", "METAL")


def default_device():
  """Where arrays made without a device go: ``jax_default_device`` (a device, or a platform
  name for its first device), else this process's first device."""
  dev = config.jax_default_device
  if dev is None:
    return get_client().local_devices()[0]
  if not isinstance(dev, str):
    return dev
  if dev != "cpu":
    if dev in _GPU_PLATFORMS:
      raise RuntimeError(f"Unknown backend: '{dev}' requested, but no platforms that are "
                         f"instances of {dev} are present. Platforms present are: cpu")
    raise RuntimeError(f"Unknown backend {dev}. Available backends are ['cpu']")
  return get_client().local_devices()[0]


# --- transfer guards: jaxlib checks host-to-device transfers against these levels ------------

_GUARD_DIRECTIONS = {"jax_transfer_guard_host_to_device": "host_to_device",
                     "jax_transfer_guard_device_to_device": "device_to_device",
                     "jax_transfer_guard_device_to_host": "device_to_host"}
guards_on = False  # whether any guard is set (device_put/device_get then mark themselves)


def _apply_guards(name, old, new) -> None:
  from jaxlib import _jax
  global guards_on
  levels = {n: getattr(config, n) for n in ("jax_transfer_guard", *_GUARD_DIRECTIONS)}
  levels[name] = new
  state, level = _jax.guard_lib.global_state(), _jax.guard_lib.TransferGuardLevel
  for option, field in _GUARD_DIRECTIONS.items():
    value = levels[option] or levels["jax_transfer_guard"]
    setattr(state, field, None if value is None else getattr(level, value.upper()))
  guards_on = any(v is not None for v in levels.values())


for _name in ("jax_transfer_guard", *_GUARD_DIRECTIONS):
  config.watch(_name, _apply_guards)


@contextlib.contextmanager
def explicit_transfer(kind: str):
  """Mark the transfers inside as explicit (``kind``: ``"put"`` or ``"get"``), which the
  ``disallow`` guard level allows."""
  from jaxlib import _jax
  state = _jax.guard_lib.thread_local_state()
  field = "explicit_device_put" if kind == "put" else "explicit_device_get"
  old = getattr(state, field)
  setattr(state, field, True)
  try:
    yield
  finally:
    setattr(state, field, old)


_device_lists: dict = {}
_replicated: dict = {}


def device_list(devs) -> "xc.DeviceList":
  devs = tuple(devs)
  dl = _device_lists.get(devs)
  if dl is None:
    dl = _device_lists[devs] = xc.DeviceList(devs)
  return dl


def replicated_sharding(device) -> "xc.GSPMDSharding":
  """The exact C++ sharding that places a whole array on ``device``."""
  s = _replicated.get(device)
  if s is None:
    s = _replicated[device] = xc.GSPMDSharding(device_list((device,)), xc.HloSharding.replicate())
  return s
