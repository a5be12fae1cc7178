"""ember's jaxpr IR and trace state under the names of JAX 0.10.2's ``jax.extend.core``.

``ClosedJaxpr``, ``Jaxpr``, ``JaxprEqn``, ``Var``, ``Literal`` and ``DropVar`` are ember's own
classes (their fields are JAX's: ``eqns``, ``invars``, ``outvars``, ``params``, ``primitive``...).
JAX's names this module does not list (``Primitive``, ``primitives``, ``CallPrimitive``...) are
not provided: ember's primitives declare their rules differently.
"""
from __future__ import annotations

import contextlib

from ember.core import trace as _trace
from ember.core.eval import jaxpr_as_fun
from ember.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var

__all__ = ["ClosedJaxpr", "DropVar", "Jaxpr", "JaxprEqn", "Literal", "Var", "jaxpr_as_fun",
           "TraceTag", "get_opaque_trace_state", "set_current_trace", "take_current_trace"]


class TraceTag:
  """A tag for a transform's tracers, as ``jax.extend.core.TraceTag``: every tag is equal to
  every other one and they all hash alike.

  Example:
      >>> from ember.extend.core import TraceTag
      >>> TraceTag() == TraceTag(), hash(TraceTag()) == hash(TraceTag())
      (True, True)
  """

  def __hash__(self):
    return hash(TraceTag)

  def __eq__(self, other):
    return isinstance(other, TraceTag)


class _OpaqueTraceState:
  """The current trace, compared by identity (holding only a weak reference to it)."""
  __slots__ = ("_trace_ref",)

  def __init__(self, trace_ref):
    self._trace_ref = trace_ref

  def __eq__(self, other):
    return isinstance(other, _OpaqueTraceState) and self._trace_ref == other._trace_ref

  def __hash__(self):
    return hash(self._trace_ref)


def get_opaque_trace_state(convention=None):
  """An object equal to another one exactly when both were taken under the same trace.

  Libraries use it to notice that a value is being used under a different transform than the
  one that created it. ``convention`` is accepted and ignored, as in JAX.

  Example:
      >>> import ember
      >>> from ember.extend.core import get_opaque_trace_state
      >>> outside = get_opaque_trace_state()
      >>> outside == get_opaque_trace_state()
      True
      >>> ember.jit(lambda x: get_opaque_trace_state() == outside)(1.0)
      Array(False, dtype=bool)
  """
  del convention
  import weakref
  return _OpaqueTraceState(weakref.ref(_trace.current_trace()))


@contextlib.contextmanager
def set_current_trace(trace):
  """Installs ``trace`` as the current trace for the ``with`` block (``jax.extend.core``'s name
  for ember's ``core.trace.set_current_trace``).

  Example:
      >>> from ember.extend.core import set_current_trace, take_current_trace
      >>> with take_current_trace() as outer:
      ...   with set_current_trace(outer):
      ...     pass
  """
  with _trace.set_current_trace(trace):
    yield


@contextlib.contextmanager
def take_current_trace():
  """Yields the current trace and runs the ``with`` block on the bottom (eager) trace, as
  ``jax.extend.core.take_current_trace`` does.

  Example:
      >>> import ember
      >>> from ember.extend.core import take_current_trace
      >>> def f(x):
      ...   with take_current_trace() as t:
      ...     return type(t).__name__
      >>> f(1.0)
      'EvalTrace'
  """
  prev = _trace.current_trace()
  with _trace.set_current_trace(_trace.EVAL_TRACE):
    yield prev
