"""ember's jaxpr IR and trace state under the names of JAX 0.10.2's ``jax.extend.core``.

``ClosedJaxpr``, ``Jaxpr``, ``JaxprEqn``, ``Var``, ``Literal`` and ``DropVar`` are ember's own
classes (their fields are JAX's: ``eqns``, ``invars``, ``outvars``, ``params``, ``primitive``...).
``Primitive`` is ember's primitive with JAX's way of giving it rules (``def_impl``,
``def_abstract_eval``, and ``ember.interpreters.ad/batching/mlir`` for the others).
``primitives`` holds ember's primitive objects under JAX's names (``jit_p``, ``add_p``...).
``_helpers.py`` holds JAX's helper functions (``subjaxprs``, ``mapped_aval``,
``concrete_or_error``...). JAX's names ember refuses (``CallPrimitive``) raise, with the reason
(ember/_unsupported.py); the others this module does not list are not provided yet.
"""
from __future__ import annotations

import contextlib

from ember.core import trace as _trace
from ember.core.eval import jaxpr_as_fun
from ember.core.aval import ShapedArray
from ember.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var

from ember.extend.core._check_jaxpr import JaxprTypeError, check_jaxpr  # noqa: E402
from ember.extend.core._helpers import *  # noqa: E402,F401,F403
from ember.extend.core._helpers import __all__ as _helpers_all  # noqa: E402
from ember.export._shape_poly import InconclusiveDimensionOperation  # noqa: E402,F401
from ember.primitives.ordering import AbstractToken, Token  # noqa: E402,F401

__all__ = ["ClosedJaxpr", "DropVar", "Jaxpr", "JaxprEqn", "Literal", "Var", "jaxpr_as_fun",
           "check_jaxpr", "JaxprTypeError",
           "TraceTag", "get_opaque_trace_state", "set_current_trace", "take_current_trace",
           "Primitive", "ShapedArray", "primitives", "AbstractToken", "Token",
           "InconclusiveDimensionOperation", *_helpers_all]


class Primitive(_trace.Primitive):
  """A primitive defined by a user, with JAX's API: ``bind``, ``def_impl`` (the eager rule, in
  ember operations or NumPy), ``def_abstract_eval`` (avals in, avals or ``ShapeDtypeStruct``s
  out) and ``multiple_results``. Its derivative and batching rules come from
  ``ember.interpreters.ad`` and ``ember.interpreters.batching``. Under ``jit`` it is lowered by
  tracing its impl (so the impl must be written in ember operations), unless a lowering was
  registered with ``ember.interpreters.mlir.register_lowering``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend.core import Primitive
      >>> softplus = Primitive("softplus")
      >>> _ = softplus.def_impl(lambda x: jnp.logaddexp(x, 0.0))
      >>> _ = softplus.def_abstract_eval(lambda x: x)
      >>> ember.jit(softplus.bind)(jnp.zeros(2))
      Array([0.6931472, 0.6931472], dtype=float32)
  """
  ember_defined = False

  def __init__(self, name: str):
    super().__init__(name)
    self.lower = self._lower_by_impl

  def def_impl(self, impl):
    self.impl = impl
    return impl

  def def_abstract_eval(self, abstract_eval):
    self.abstract_eval = lambda *avals, **params: self._avals(abstract_eval(*avals, **params))
    return abstract_eval

  def def_effectful_abstract_eval(self, abstract_eval):
    def rule(*avals, **params):
      out, effects = abstract_eval(*avals, **params)
      if effects:
        raise NotImplementedError(f"primitive {self.name}: ember has no effect system, so an "
                                  f"abstract eval returning effects {effects} is not supported.")
      return self._avals(out)
    self.abstract_eval = rule
    return abstract_eval

  def _avals(self, out):
    as_aval = lambda a: a if isinstance(a, ShapedArray) else ShapedArray(  # noqa: E731
        tuple(a.shape), a.dtype, bool(getattr(a, "weak_type", False)))
    return [as_aval(a) for a in out] if self.multiple_results else as_aval(out)

  def _lower_by_impl(self, ctx, *args, **params):
    if self.impl is None:
      raise NotImplementedError(f"Primitive '{self.name}' has no rule for lowering to StableHLO: "
                                "give it an impl written in ember operations (def_impl) or "
                                "register one with ember.interpreters.mlir.register_lowering.")
    from ember.primitives.lower_fun import lower_fun
    return lower_fun(self.impl, self.multiple_results)(ctx, *args, **params)


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


from ember.extend.core import primitives  # noqa: E402,F401


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
