"""JAX 0.10.2's ``jax.extend.backend``: the PJRT client ember runs on, and what libraries ask of
it (the default device, compile options, the XLA version, caches cleared with ember's).

ember has one backend, jaxlib's CPU client, started once: ``clear_backends`` forgets every
trace and executable but keeps that client (arrays and devices stay valid), and
``register_backend_factory`` cannot add another platform (NotImplementedError).

Example:
    >>> from ember.extend import backend
    >>> backend.get_backend().platform
    'cpu'
"""
from __future__ import annotations

from typing import Any

import numpy as np
from jaxlib import _ifrt_proxy as ifrt_proxy  # noqa: F401 (JAX's name for jaxlib's module)
from jaxlib import xla_client as xc

from ember.backend import client as _client

__all__ = ["backend_xla_version", "backends", "clear_backends",
           "clear_in_memory_compilation_cache", "get_backend", "get_compile_options",
           "get_default_device", "ifrt_proxy", "register_backend_cache",
           "register_backend_factory"]



def backends() -> dict[str, Any]:
  """The started backends by platform name: ``{'cpu': client}`` (a GPU's first, when one
  started).

  Example:
      >>> from ember.extend import backend
      >>> list(backend.backends())
      ['cpu']
  """
  return dict(_client.backends())


def get_backend(platform=None):
  """The PJRT client of ``platform`` (``'cpu'``, ``'gpu'``... or None: the default; a client is
  returned as it is).

  Raises:
    RuntimeError: a platform not started, with JAX's message.

  Example:
      >>> from ember.extend import backend
      >>> type(backend.get_backend('cpu')).__name__
      'Client'
  """
  return _client.get_backend(platform)


def backend_xla_version(platform=None) -> int | None:
  """The XLA version a PJRT plugin backend reports; None for jaxlib's own CPU client.

  Example:
      >>> from ember.extend import backend
      >>> print(backend.backend_xla_version())
      None
  """
  return getattr(get_backend(platform), "xla_version", None)


def get_default_device():
  """Where arrays made without a device go (``jax_default_device``, else the first device).

  Example:
      >>> from ember.extend import backend
      >>> backend.get_default_device()
      CpuDevice(id=0)
  """
  return _client.default_device()


_BUILD_OPTION_OVERRIDES = ("exec_time_optimization_effort", "memory_fitting_effort",
                           "optimization_level", "memory_fitting_level")


def _device_assignment(device_assignment, num_replicas: int, num_partitions: int):
  assignment = np.array(device_assignment)
  if assignment.ndim == 1 and num_partitions == 1:
    assignment = assignment[:, None]
  if num_replicas != assignment.shape[0]:
    raise ValueError(f"device_assignment does not match num_replicas: {assignment} vs "
                     f"{num_replicas}.")
  if num_partitions != assignment.shape[1]:
    raise ValueError(f"device_assignment does not match num_partitions: {assignment} vs "
                     f"{num_partitions}.")
  if assignment.dtype == object:
    assignment = np.vectorize(lambda d: d.id, otypes=[int])(assignment)
  return xc.DeviceAssignment.create(assignment)


def get_compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                        env_options_overrides: dict[str, str] | None = None,
                        fdo_profile: bytes | None = None, detailed_logging: bool = True,
                        backend=None) -> xc.CompileOptions:
  """XLA compile options for ``num_replicas`` x ``num_partitions`` (SPMD partitioning with
  Shardy, as ember compiles), with ``device_assignment`` (devices or ids, ``[replica,
  partition]``), XLA ``env_options_overrides`` (the effort and level names set the build
  options of those names) and an ``fdo_profile``. ``detailed_logging`` and ``backend`` only
  steer JAX's logging and profile lookup, which ember does not have.

  Raises:
    ValueError: ``device_assignment`` does not have ``num_replicas`` x ``num_partitions``
      entries.

  Example:
      >>> from ember.extend import backend
      >>> backend.get_compile_options(1, 2, [[0, 1]]).num_partitions
      2
  """
  del detailed_logging, backend
  options = xc.CompileOptions()
  options.num_replicas, options.num_partitions = num_replicas, num_partitions
  build = options.executable_build_options
  build.use_spmd_partitioning = True
  build.use_shardy_partitioner = True
  if fdo_profile is not None:
    build.fdo_profile = fdo_profile
  if device_assignment is not None:
    options.device_assignment = _device_assignment(device_assignment, num_replicas,
                                                   num_partitions)
  if env_options_overrides is not None:
    overrides = dict(env_options_overrides)
    for name in _BUILD_OPTION_OVERRIDES:
      if name in overrides:
        setattr(build, name, overrides.pop(name))
    options.env_option_overrides = list(overrides.items())
  return options


def register_backend_cache(cache: Any, for_what: str) -> None:
  """Have ``ember.clear_caches()`` clear ``cache`` too (an object with ``cache_clear()``, as
  ``functools.lru_cache`` makes); ``for_what`` names it.

  Example:
      >>> import functools, ember
      >>> from ember.extend import backend
      >>> @functools.lru_cache
      ... def square(n): return n * n
      >>> backend.register_backend_cache(square, "squares")
      >>> _ = square(3); ember.clear_caches(); square.cache_info().currsize
      0
  """
  from ember import api
  api.registered_caches[cache] = for_what


def clear_backends() -> None:
  """Wait for pending effects, then forget every traced and compiled program
  (``ember.clear_caches``). JAX also drops its backend clients so that new ones start with the
  current options; ember keeps its one CPU client (its devices and arrays stay valid), so options
  read when the client starts (``jax_num_cpu_devices``) keep their first values.

  Example:
      >>> import ember
      >>> from ember.extend import backend
      >>> traces = []
      >>> f = ember.jit(lambda x: traces.append(x) or x + 1)
      >>> _ = f(1.0); backend.clear_backends(); _ = f(1.0)
      >>> len(traces)  # traced again after clear_backends
      2
  """
  from ember import api
  from ember.host import effects_barrier
  effects_barrier()
  api.clear_caches()


def register_backend_factory(name: str, factory, *, priority: int = 0,
                             fail_quietly: bool = True, experimental: bool = False,
                             make_topology=None, c_api=None) -> None:
  """Register a function that makes the PJRT client of platform ``name``. ember runs on
  jaxlib's CPU client only and cannot start another, so this always raises.

  Raises:
    RuntimeError: ``name`` is ``"cpu"`` and the CPU client has started (JAX's message).
    NotImplementedError: any other case.

  Example:
      >>> from ember.extend import backend
      >>> backend.register_backend_factory("tpu", lambda: None)
      Traceback (most recent call last):
      ...
      NotImplementedError: ember runs on jaxlib's CPU client only and cannot start a backend ...
  """
  del factory, priority, fail_quietly, experimental, make_topology, c_api
  if name == "cpu" and _client._client is not None:
    raise RuntimeError(f"Backend {name} already initialized")
  raise NotImplementedError(f"ember runs on jaxlib's CPU client only and cannot start a backend "
                            f"from a factory (platform {name!r}).")


def clear_in_memory_compilation_cache() -> None:
  """Forget the executables compiled for lowered programs, so that compiling a program again
  (a new ``jit`` of a function, ``lower(...).compile()``) runs XLA (or reads the persistent
  cache) again. As in JAX, calls a jitted function has already made keep their executables.

  Example:
      >>> import ember
      >>> from ember.extend import backend
      >>> backend.clear_in_memory_compilation_cache()
  """
  from ember.backend import compile as compile_, spmd
  from ember.transforms import jit, jit_rules
  for cache in (compile_._by_text, spmd._by_text, spmd._executables, jit_rules._jit_executables):
    cache.clear()
  for per_options in list(jit._signature_caches.values()):  # the executables of lowerings
    for entries in list(per_options.values()):
      for entry in list(entries.values()):
        if isinstance(entry, jit._Entry):
          entry.executables.clear()
