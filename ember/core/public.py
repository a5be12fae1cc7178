"""The functions ``jax.core`` still exports in JAX 0.10.2, over ember's core: ``eval_jaxpr``
(JAX's signature and errors), ``eval_context``, ``max_dim`` and ``min_dim``.

Example:
    >>> import ember
    >>> from ember import core
    >>> closed = ember.make_jaxpr(lambda x: x * 2.0)(1.0)
    >>> core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0)
    [Array(6., dtype=float32, weak_type=True)]
"""
from __future__ import annotations

import contextlib
import operator
from typing import Any, Sequence

from ember.core import eval as _eval
from ember.core import trace as _trace
from ember.core.jaxpr import ClosedJaxpr

__all__ = ["eval_jaxpr", "eval_context", "max_dim", "min_dim"]


def _same_length(what: Sequence, values: Sequence) -> None:
  if len(values) != len(what):
    which = "shorter" if len(values) < len(what) else "longer"
    raise ValueError(f"foreach() argument 2 is {which} than argument 1")


def eval_jaxpr(jaxpr, consts, *args, propagate_source_info: bool = True) -> list[Any]:
  """Run ``jaxpr`` (a ``Jaxpr``, or a ``ClosedJaxpr``, whose parts it reads through) on
  ``args`` with ``consts`` for its constants, binding each equation's primitive under the
  current trace: eagerly it computes, under a transformation it is traced. Returns the list of
  outputs. ``propagate_source_info`` is accepted for JAX's signature (ember's equations carry
  no traceback to propagate).

  Raises:
    ValueError: ``consts`` or ``args`` do not match the jaxpr's constants or inputs in number
      (JAX's message: ``foreach() argument 2 is shorter than argument 1``).

  Example:
      >>> import ember
      >>> from ember import core
      >>> closed = ember.make_jaxpr(lambda x, y: x + y)(1.0, 2.0)
      >>> core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0, 4.0)
      [Array(7., dtype=float32, weak_type=True)]
  """
  del propagate_source_info
  _same_length(jaxpr.constvars, consts)
  _same_length(jaxpr.invars, args)
  if isinstance(jaxpr, ClosedJaxpr):
    jaxpr = jaxpr.jaxpr
  return _eval.eval_jaxpr(jaxpr, consts, *args)


@contextlib.contextmanager
def eval_context():
  """Context manager that runs operations eagerly inside its block, even while a
  transformation traces: results are concrete arrays. (An operation on a traced value inside
  it raises; ``ensure_compile_time_eval`` traces those instead.)

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import core
      >>> def f(x):
      ...   with core.eval_context():
      ...     y = jnp.sin(2.0)  # a concrete array, computed while tracing
      ...   return x + y
      >>> ember.make_jaxpr(f)(1.0)
      { lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }
  """
  with _trace.set_current_trace(_trace.EVAL_TRACE):
    yield


def _is_constant(d) -> bool:
  try:
    operator.index(d)
  except TypeError:
    return False
  return True


def _symbolic(d, fn: str, which: str):
  """``d`` if it is a symbolic dimension; else JAX's TypeError for a non-integer."""
  if hasattr(d, "rmax"):
    return d
  operator.index(d)  # raises TypeError: '<type>' object cannot be interpreted as an integer
  raise TypeError(f"argument `{which}` of `core.{fn}` must be an integer or a symbolic "
                  f"dimension, got {d!r}")


def max_dim(d1, d2):
  """``max(d1, d2)`` for dimension sizes that may be symbolic (``export.symbolic_shape``).

  Example:
      >>> from ember import core
      >>> core.max_dim(3, 4)
      4
  """
  if _is_constant(d1) and _is_constant(d2):
    return max(d1, d2)
  if _is_constant(d1):
    return _symbolic(d2, "max_dim", "d2").rmax(d1)
  return _symbolic(d1, "max_dim", "d1").max(d2)


def min_dim(d1, d2):
  """``min(d1, d2)`` for dimension sizes that may be symbolic (``export.symbolic_shape``).

  Example:
      >>> from ember import core
      >>> core.min_dim(3, 4)
      3
  """
  if _is_constant(d1) and _is_constant(d2):
    return min(d1, d2)
  if _is_constant(d1):
    return _symbolic(d2, "min_dim", "d2").rmin(d1)
  return _symbolic(d1, "min_dim", "d1").min(d2)
