"""Profiling (mirrors ``jax.profiler``) on jaxlib's profiler.

``start_trace(log_dir)``/``stop_trace()`` (or ``with trace(log_dir):``) record a profile of
everything that runs in between and write it under ``log_dir/plugins/profile/<date>/`` as
TensorBoard's profile plugin reads it (``.xplane.pb``, ``.trace.json.gz``).
``TraceAnnotation``, ``StepTraceAnnotation`` and ``annotate_function`` name regions of host
code in such a profile (outside one they cost almost nothing). ``start_server(port)`` lets
TensorBoard or ``perfetto`` capture remotely. ``device_memory_profile()`` is a pprof
profile of the live arrays. ember does not write Perfetto traces
(``create_perfetto_trace``/``create_perfetto_link``).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import profiler
    >>> with profiler.TraceAnnotation("my_region", step=1):
    ...   y = jnp.ones(3) * 2
    >>> @profiler.annotate_function
    ... def f(x):
    ...   return x + 1
    >>> f(1)
    2
"""
from __future__ import annotations

import contextlib
import functools
import os
from typing import Callable

from jaxlib import _profiler
from jaxlib._profile_data import ProfileData, ProfileEvent, ProfilePlane  # noqa: F401

__all__ = ["TraceAnnotation", "StepTraceAnnotation", "annotate_function", "start_trace",
           "stop_trace", "trace", "start_server", "stop_server", "device_memory_profile",
           "save_device_memory_profile", "register_subprocess", "ProfileOptions",
           "ProfileData", "ProfileEvent", "ProfilePlane"]

ProfileOptions = _profiler.ProfileOptions


class TraceAnnotation(_profiler.TraceMe):
  """A context manager naming the host code it encloses in a profile: ``name`` and the keyword
  arguments as its metadata.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.profiler import TraceAnnotation
      >>> with TraceAnnotation("preprocess", batch=3):
      ...   x = jnp.arange(3) + 1
  """


class StepTraceAnnotation(TraceAnnotation):
  """A ``TraceAnnotation`` marking one training step (pass ``step_num=``): profile viewers group
  events by step.

  Example:
      >>> from ember.profiler import StepTraceAnnotation
      >>> for step in range(2):
      ...   with StepTraceAnnotation("train", step_num=step):
      ...     pass
  """

  def __init__(self, name: str, **kwargs):
    super().__init__(name, _r=1, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs) -> Callable:
  """``func`` with each call wrapped in a ``TraceAnnotation`` named ``name`` (default: its
  qualified name), with ``decorator_kwargs`` as metadata.

  Example:
      >>> from ember.profiler import annotate_function
      >>> double = annotate_function(lambda x: 2 * x, name="double")
      >>> double(4)
      8
  """
  name = name or getattr(func, "__qualname__", None) or func.__name__

  @functools.wraps(func)
  def wrapper(*args, **kwargs):
    with TraceAnnotation(name, **decorator_kwargs):
      return func(*args, **kwargs)
  return wrapper


# --- profiling sessions ---------------------------------------------------------------------

_session: list = []  # (ProfilerSession, log_dir) while a trace runs
_server: list = []


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
  """Start recording a profile, written under ``log_dir`` by ``stop_trace``.

  Raises:
    RuntimeError: if a profile is being recorded already.
    NotImplementedError: for ``create_perfetto_link``/``create_perfetto_trace``.

  Example:
      >>> import os, tempfile, ember.numpy as jnp
      >>> from ember import profiler
      >>> log_dir = tempfile.mkdtemp()
      >>> profiler.start_trace(log_dir)
      >>> _ = (jnp.ones(3) * 2).block_until_ready()
      >>> profiler.stop_trace()
      >>> os.listdir(os.path.join(log_dir, "plugins", "profile")) != []
      True
  """
  if _session:
    raise RuntimeError("Profile has already been started. Only one profile may be run at a "
                       "time.")
  if create_perfetto_link or create_perfetto_trace:
    raise NotImplementedError("start_trace(create_perfetto_link=, create_perfetto_trace=): "
                              "ember writes TensorBoard profiles only; open the .trace.json.gz "
                              "it writes in Perfetto's UI instead.")
  session = _profiler.ProfilerSession(profiler_options) if profiler_options is not None \
      else _profiler.ProfilerSession()
  _session.append((session, str(os.fspath(log_dir))))


def stop_trace() -> None:
  """Stop the profile ``start_trace`` began and write it.

  Raises:
    RuntimeError: if no profile is being recorded.

  Example:
      >>> from ember import profiler
      >>> profiler.stop_trace()
      Traceback (most recent call last):
      RuntimeError: No profile started
  """
  if not _session:
    raise RuntimeError("No profile started")
  session, log_dir = _session.pop()
  session.export(session.stop(), log_dir)


@contextlib.contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options: ProfileOptions | None = None):
  """A context manager profiling its block (``start_trace`` ... ``stop_trace``).

  Example:
      >>> import tempfile, ember.numpy as jnp
      >>> from ember import profiler
      >>> with profiler.trace(tempfile.mkdtemp()):
      ...   _ = jnp.ones(3).sum().block_until_ready()
  """
  start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
  try:
    yield
  finally:
    stop_trace()


def start_server(port: int, requires_backend: bool = True):
  """Start a profiler server on ``port`` (for TensorBoard's capture); returns it.

  Raises:
    ValueError: if one is running already.

  Example:
      >>> from ember import profiler
      >>> server = profiler.start_server(9471)
      >>> profiler.stop_server()
  """
  if _server:
    raise ValueError("Only one profiler server can be active at a time.")
  if requires_backend:
    from ember.backend import client
    client.get_client()
  _server.append(_profiler.start_server(port))
  return _server[0]


def stop_server() -> None:
  """Stop the server ``start_server`` started.

  Raises:
    ValueError: if none is running.

  Example:
      >>> from ember import profiler
      >>> profiler.stop_server()
      Traceback (most recent call last):
      ValueError: No active profiler server.
  """
  if not _server:
    raise ValueError("No active profiler server.")
  _server.pop()


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
  """Include process ``pid``'s profiler server (on ``port``) in this process's traces; returns
  a function undoing it.

  Example:
      >>> import os
      >>> from ember import profiler
      >>> profiler.register_subprocess(os.getpid(), 9472)  # a subprocess's pid, not ours
      Traceback (most recent call last):
      jaxlib._jax.JaxRuntimeError: INVALID_ARGUMENT: Cannot register subprocess with the same pid as current process.
  """
  return _profiler.register_subprocess(pid, port)


def _check_backend(backend: str | None) -> None:
  from ember.backend import client
  client.get_backend(backend)  # JAX's error for a backend that is not started


def device_memory_profile(backend: str | None = None) -> bytes:
  """A gzipped pprof profile of the memory the live arrays hold (``go tool pprof`` reads it).

  Example:
      >>> import ember
      >>> type(ember.profiler.device_memory_profile())
      <class 'bytes'>
  """
  from ember.backend import client
  return client.get_backend(backend).heap_profile()


def save_device_memory_profile(filename, backend: str | None = None) -> None:
  """Write ``device_memory_profile()`` to ``filename``.

  Example:
      >>> import os, tempfile
      >>> from ember import profiler
      >>> path = os.path.join(tempfile.mkdtemp(), "memory.prof")
      >>> profiler.save_device_memory_profile(path)
      >>> os.path.getsize(path) > 0
      True
  """
  profile = device_memory_profile(backend)
  with open(filename, "wb") as f:
    f.write(profile)
