"""Tracebacks that end in the user's code: ember's internal frames removed at its API boundaries.

An exception that leaves ``jit``, ``grad``, ``vmap``, ``lax.scan`` and the other transformations
would otherwise show dozens of frames of ember's tracing machinery between the user's call and the
user's function. :func:`api_boundary` wraps those entry points: when an exception passes out, the
frames of ember's files (and of files passed to :func:`register_exclusion`, as libraries built
on JAX do for their own) are removed, keeping the user's frames and, of ember's, only the one the
user's code called last (``jnp.dot`` in ``f``, where the message comes from). A note on the
exception says so and how to see everything.

``jax_traceback_filtering`` (JAX's option) chooses: ``"auto"`` and ``"quiet_remove_frames"``
filter and add the note; ``"remove_frames"`` also chains the unfiltered traceback as the
exception's ``__cause__`` (an :class:`UnfilteredStackTrace`); ``"off"`` keeps every frame.
Filtering costs nothing until an exception is raised.
"""
from __future__ import annotations

import contextlib
import functools
import os
import types
from typing import Callable, TypeVar

from ember.config import config
from ember.core import trace as core

__all__ = ["api_boundary", "register_exclusion", "filter_traceback", "UnfilteredStackTrace"]

_EMBER_DIR = core.EMBER_DIR + os.sep
_exclusions: list[str] = [_EMBER_DIR, contextlib.__file__, functools.__file__]

NOTE = ("--------------------\nember removed its internal frames from the traceback of this "
        "exception. Set JAX_TRACEBACK_FILTERING=off (or ember.config.update("
        "'jax_traceback_filtering', 'off')) to see them.")

F = TypeVar("F", bound=Callable)


class UnfilteredStackTrace(Exception):
  """The full traceback of an exception whose frames ``remove_frames`` filtered."""


def register_exclusion(path: str) -> None:
  """Treat frames of files under ``path`` as internal, as ember's own are."""
  if path not in _exclusions:
    _exclusions.append(path)


def _internal(tb: types.TracebackType) -> bool:
  filename = tb.tb_frame.f_code.co_filename
  return any(filename.startswith(p) for p in _exclusions)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
  """``tb`` without internal frames, except the innermost one that user code called (or, when
  no frame is the user's, the innermost frame: where the error was raised)."""
  entries = []
  while tb is not None:
    entries.append(tb)
    tb = tb.tb_next
  internal = [_internal(t) for t in entries]
  keep = [not i for i in internal]
  last_user = max((k for k, i in enumerate(internal) if not i), default=None)
  if last_user is None:
    if entries:
      keep[-1] = True
  elif last_user + 1 < len(entries):
    keep[last_user + 1] = True  # the ember function the user's code called
  out = None
  for t, k in zip(reversed(entries), reversed(keep)):
    if k:
      out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
  return out


def _filtered(e: BaseException) -> None:
  """Filter ``e``'s traceback in place (again at each boundary it leaves: the frames the
  exception has passed since the last one are ember's outer transformations)."""
  mode = config.jax_traceback_filtering
  if mode == "off":
    return
  full = e.__traceback__
  e.__traceback__ = filter_traceback(full)
  if mode == "remove_frames":
    if e.__cause__ is None:
      unfiltered = UnfilteredStackTrace(
          "The preceding is the original exception that occurred, unmodified.")
      unfiltered.__traceback__ = full
      e.__cause__ = unfiltered
  elif NOTE not in getattr(e, "__notes__", ()):
    e.add_note(NOTE)


def api_boundary(fun: F) -> F:
  """Wrap an entry point of ember so that exceptions leaving it lose ember's frames."""
  @functools.wraps(fun)
  def boundary(*args, **kwargs):
    try:
      return fun(*args, **kwargs)
    except Exception as e:
      _filtered(e)
      raise  # a bare raise: this frame is not added to the filtered traceback
  return boundary


def filter_in_place(e: BaseException) -> None:
  """For entry points that catch exceptions themselves (jit's ``__call__``): filter ``e``'s
  traceback before their own bare ``raise``."""
  _filtered(e)
