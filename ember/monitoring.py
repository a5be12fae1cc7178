"""Events and their listeners (mirrors ``jax.monitoring``).

``record_event``, ``record_scalar``, ``record_event_duration_secs`` and
``record_event_time_span`` call the listeners registered for their kind with the event's name
(and value, duration or span) and keyword metadata. ember records, as JAX does, the time spent
tracing (``/jax/core/compile/jaxpr_trace_duration``), lowering to StableHLO
(``/jax/core/compile/jaxpr_to_mlir_module_duration``) and compiling
(``/jax/core/compile/backend_compile_duration``), each with a ``fun_name``: for each, a scalar
holding its start time, then its duration and its time span. The persistent compilation
cache (``ember/backend/compilation_cache.py``) records JAX's ``/jax/compilation_cache/...``
events: ``tasks_using_cache`` (or ``task_disabled_cache``) once per process,
``compile_requests_use_cache`` on each compile, ``cache_hits`` with the durations
``compile_time_saved_sec`` and ``cache_retrieval_time_sec`` on a hit, ``cache_misses`` when it
writes an entry.

Example:
    >>> from ember import monitoring
    >>> seen = []
    >>> monitoring.register_event_listener(lambda name, **kw: seen.append((name, kw)))
    >>> monitoring.record_event("/my/event", step=1)
    >>> seen
    [('/my/event', {'step': 1})]
    >>> monitoring.clear_event_listeners()
"""
from __future__ import annotations

import contextlib
import time
from typing import Callable

__all__ = ["record_event", "record_scalar", "record_event_duration_secs",
           "record_event_time_span", "register_event_listener", "register_scalar_listener",
           "register_event_duration_secs_listener", "register_event_time_span_listener",
           "unregister_event_listener", "unregister_scalar_listener",
           "unregister_event_duration_listener", "unregister_event_time_span_listener",
           "clear_event_listeners"]

_event_listeners: list[Callable] = []
_scalar_listeners: list[Callable] = []
_duration_listeners: list[Callable] = []
_span_listeners: list[Callable] = []


def record_event(event: str, **kwargs) -> None:
  """Tell the event listeners that ``event`` happened.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_event_listener(lambda e, **kw: seen.append(e))
      >>> monitoring.record_event("/my/event")
      >>> seen
      ['/my/event']
      >>> monitoring.clear_event_listeners()
  """
  for fn in _event_listeners:
    fn(event, **kwargs)


def record_scalar(event: str, value, **kwargs) -> None:
  """Tell the scalar listeners ``event``'s ``value``.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_scalar_listener(lambda e, v, **kw: seen.append(v))
      >>> monitoring.record_scalar("/loss", 0.5)
      >>> seen
      [0.5]
      >>> monitoring.clear_event_listeners()
  """
  for fn in _scalar_listeners:
    fn(event, value, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
  """Tell the duration listeners that ``event`` took ``duration`` seconds.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_event_duration_secs_listener(
      ...     lambda e, d, **kw: seen.append((e, d, kw)))
      >>> monitoring.record_event_duration_secs("/step", 0.25, step=3)
      >>> seen
      [('/step', 0.25, {'step': 3})]
      >>> monitoring.clear_event_listeners()
  """
  for fn in _duration_listeners:
    fn(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float, **kwargs) -> None:
  """Tell the time-span listeners that ``event`` ran from ``start_time`` to ``end_time``.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_event_time_span_listener(lambda e, s, t, **kw: seen.append(t - s))
      >>> monitoring.record_event_time_span("/step", 1.0, 3.0)
      >>> seen
      [2.0]
      >>> monitoring.clear_event_listeners()
  """
  for fn in _span_listeners:
    fn(event, start_time, end_time, **kwargs)


def register_event_listener(callback: Callable) -> None:
  """Call ``callback(event, **kwargs)`` on each ``record_event``.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_event_listener(lambda e, **kw: seen.append(kw))
      >>> monitoring.record_event("/my/event", a=1)
      >>> seen
      [{'a': 1}]
      >>> monitoring.clear_event_listeners()
  """
  _event_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
  """Call ``callback(event, value, **kwargs)`` on each ``record_scalar``.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_scalar_listener(lambda e, v, **kw: seen.append(e))
      >>> monitoring.record_scalar("/x", 1)
      >>> seen
      ['/x']
      >>> monitoring.clear_event_listeners()
  """
  _scalar_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
  """Call ``callback(event, duration, **kwargs)`` on each ``record_event_duration_secs``.

  Example:
      >>> from ember import monitoring
      >>> import ember
      >>> names = []
      >>> monitoring.register_event_duration_secs_listener(lambda e, d, **kw: names.append(e))
      >>> _ = ember.jit(lambda x: x - 1)(2.0)
      >>> names[0]
      '/jax/core/compile/jaxpr_trace_duration'
      >>> monitoring.clear_event_listeners()
  """
  _duration_listeners.append(callback)


def register_event_time_span_listener(callback: Callable) -> None:
  """Call ``callback(event, start, end, **kwargs)`` on each ``record_event_time_span``.

  Example:
      >>> from ember import monitoring
      >>> seen = []
      >>> monitoring.register_event_time_span_listener(lambda e, s, t, **kw: seen.append(s))
      >>> monitoring.record_event_time_span("/x", 1.0, 2.0)
      >>> seen
      [1.0]
      >>> monitoring.clear_event_listeners()
  """
  _span_listeners.append(callback)


def _unregister(listeners: list, callback: Callable) -> None:
  if callback not in listeners:  # an AssertionError, as in JAX
    raise AssertionError(f"{callback} is not a registered listener")
  listeners.remove(callback)


def unregister_event_listener(callback: Callable) -> None:
  """Stop calling ``callback`` (an ``AssertionError`` if it was not registered).

  Example:
      >>> from ember import monitoring
      >>> listener = lambda e, **kw: None
      >>> monitoring.register_event_listener(listener)
      >>> monitoring.unregister_event_listener(listener)
      >>> monitoring.unregister_event_listener(listener)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      AssertionError: <function <lambda> at ...> is not a registered listener
  """
  _unregister(_event_listeners, callback)


def unregister_scalar_listener(callback: Callable) -> None:
  """Stop calling ``callback`` (an ``AssertionError`` if it was not registered).

  Example:
      >>> from ember import monitoring
      >>> listener = lambda e, v, **kw: None
      >>> monitoring.register_scalar_listener(listener)
      >>> monitoring.unregister_scalar_listener(listener)
      >>> monitoring.unregister_scalar_listener(listener)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      AssertionError: <function <lambda> at ...> is not a registered listener
  """
  _unregister(_scalar_listeners, callback)


def unregister_event_duration_listener(callback: Callable) -> None:
  """Stop calling ``callback`` (an ``AssertionError`` if it was not registered).

  Example:
      >>> from ember import monitoring
      >>> listener = lambda e, d, **kw: None
      >>> monitoring.register_event_duration_secs_listener(listener)
      >>> monitoring.unregister_event_duration_listener(listener)
      >>> monitoring.unregister_event_duration_listener(listener)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      AssertionError: <function <lambda> at ...> is not a registered listener
  """
  _unregister(_duration_listeners, callback)


def unregister_event_time_span_listener(callback: Callable) -> None:
  """Stop calling ``callback`` (an ``AssertionError`` if it was not registered).

  Example:
      >>> from ember import monitoring
      >>> listener = lambda e, a, b, **kw: None
      >>> monitoring.register_event_time_span_listener(listener)
      >>> monitoring.unregister_event_time_span_listener(listener)
      >>> monitoring.unregister_event_time_span_listener(listener)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      AssertionError: <function <lambda> at ...> is not a registered listener
  """
  _unregister(_span_listeners, callback)


def clear_event_listeners() -> None:
  """Forget every listener.

  Example:
      >>> from ember import monitoring
      >>> monitoring.register_event_listener(print)
      >>> monitoring.clear_event_listeners()
      >>> monitoring.record_event("/nobody/listens")
  """
  for listeners in (_event_listeners, _scalar_listeners, _duration_listeners, _span_listeners):
    listeners.clear()


@contextlib.contextmanager
def _nothing():
  yield


_NOTHING = _nothing


@contextlib.contextmanager
def _timed(event: str, kwargs: dict):
  start = time.time()
  record_scalar(event, start, **kwargs)
  yield
  end = time.time()
  record_event_duration_secs(event, end - start, **kwargs)
  record_event_time_span(event, start, end, **kwargs)


def timed(event: str, **kwargs):
  """A context manager recording how long its block takes as ``event`` (ember's compile
  stages use it); free when nobody listens."""
  if _scalar_listeners or _duration_listeners or _span_listeners:
    return _timed(event, kwargs)
  return _NOTHING()
