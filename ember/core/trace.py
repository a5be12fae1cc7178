"""Traces, tracers and primitives: the heart of every transform.

ember's core is "stackless": the current trace is context state. ``Primitive.bind`` hands the
primitive to the current trace; a transform's trace unpacks the operands that are its own tracers
(identity of the trace object is the tag, so nested transforms never confuse each other's values),
treats everything else as a constant, applies the primitive's rule for that transform with its
parent trace installed, and wraps the results in its own tracers. ``EvalTrace`` sits at the
bottom and runs primitives on XLA.

Example:
    >>> from ember.core.trace import current_trace
    >>> type(current_trace()).__name__
    'EvalTrace'
"""
from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import threading
import types
import weakref
from typing import Any, Callable

import numpy as np

from ember.core.aval import ManualAxes, ShapedArray
from ember.core import errors

__all__ = ["Primitive", "Trace", "Tracer", "EvalTrace", "current_trace", "set_current_trace",
           "leak_checked", "extend_name_stack", "swap_name_stack", "name_stack",
           "get_aval", "register_aval_handler", "is_concrete", "concrete_value", "axis_env",
           "extend_axis_env", "axis_size", "manual_axes", "vma_axes", "manual_axes_in_scope"]

# A primitive's rules, each set through ``def_rules`` and read through ``rule``:
#   abstract_eval(*avals, **params) -> aval | list[aval]     the output types
#   impl(*args, **params)              eager evaluation (default: compile the lowering)
#   lower(ctx, *operands, **params)    StableHLO
#   jvp(primals, tangents, **params) -> (primals_out, tangents_out)
#   transpose(cts, *args, **params)    a linear primitive's cotangents of its operands
#   batch(axis, vals, dims, **params) -> (out, out_dim)   vmap; ``axis`` is the vmap's AxisData
#   batch_named(axis, vals, dims, **params)   vmap over an axis the primitive names (collectives:
#                                      the collective becomes array operations over the batch)
#   axis_names(params) -> names        the named axes the primitive refers to; ``EVERY_AXIS``
#                                      for primitives carrying jaxprs, whose bodies may use any
#   partial_eval, pp_params(params) -> params to print, staging_forward(avals, params) -> the
#   operand index an equation would only forward, const_fold(*consts, **params)
_RULE_KINDS = ("abstract_eval", "impl", "lower", "jvp", "transpose", "batch", "batch_named",
               "axis_names", "partial_eval", "pp_params", "staging_forward", "const_fold")
# The kinds every primitive declares one way or the other: a rule, or ``def_unsupported`` with
# the reason it has none (tests/test_rule_coverage.py checks every primitive of ember's).
REQUIRED_KINDS = ("abstract_eval", "lower", "jvp", "transpose", "batch")
_TRANSFORM_NAMES = {"abstract_eval": "abstract evaluation", "impl": "eager evaluation",
                    "lower": "lowering to StableHLO", "jvp": "jvp (forward-mode autodiff)",
                    "transpose": "transposition (reverse-mode autodiff)",
                    "batch": "vmap (batching)", "batch_named": "vmap over a named axis",
                    "partial_eval": "partial evaluation"}
# Reasons shared by many primitives' ``def_unsupported``:
NOT_LINEAR = ("it is not linear: reverse mode transposes the linear primitives of its jvp "
              "instead")
NO_OPERANDS = "it takes no array operands to differentiate or batch"


class _EveryAxis:
  """The axis names of a primitive that carries jaxprs: its body may refer to any."""

  def __contains__(self, name) -> bool:
    return True

  def __repr__(self):
    return "EVERY_AXIS"


EVERY_AXIS = _EveryAxis()


def refers_to_every_axis(params) -> _EveryAxis:
  """The ``axis_names`` rule of primitives carrying jaxprs (jit, cond, scan, custom_jvp...)."""
  return EVERY_AXIS


# Every primitive ember defines, in order of creation (the rule-coverage test reads it).
PRIMITIVES: list = []


class Primitive:
  """A named operation with its rules side by side (the kinds are listed above ``_RULE_KINDS``).
  A missing rule raises ``NotImplementedError`` naming the primitive, the transform and the
  reason given to ``def_unsupported``.

  Besides its rules a primitive declares a few facts, as class attributes it may override:
  ``multiple_results``; ``own_vma`` (below); ``pp_alias_jaxpr`` (its inner jaxpr's binders print
  with the caller's names, as jit's do); ``checks_own_outputs`` (its impl checks its results
  for NaNs itself).
  """
  multiple_results = False
  # Inside a shard_map body a value's type says which manual mesh axes it varies over (its vma).
  # A standard primitive's outputs vary over the union of its operands' axes, and bind first
  # makes every operand vary over that union (pvary), as JAX's operations do. A primitive whose
  # abstract_eval works out its outputs' axes itself (collectives, call primitives carrying
  # jaxprs) sets ``own_vma``: its operands are bound as they are.
  own_vma = False
  pp_alias_jaxpr = False
  checks_own_outputs = False
  ember_defined = True  # listed in PRIMITIVES (a library's primitive, extend.core's, is not)

  def __init__(self, name: str, *, multiple_results: bool = False):
    self.name = name
    self.multiple_results = multiple_results
    self._abstract_cache: dict = {}
    for kind in _RULE_KINDS:
      setattr(self, kind, None)
    self.unsupported: dict[str, str] = {}
    if self.ember_defined:
      PRIMITIVES.append(self)

  def __repr__(self):
    return self.name

  def def_rules(self, **rules: Callable) -> "Primitive":
    for kind, rule in rules.items():
      if kind not in _RULE_KINDS:
        raise TypeError(f"unknown rule kind {kind!r} for primitive {self.name}")
      setattr(self, kind, rule)
      self.unsupported.pop(kind, None)
    return self

  def def_unsupported(self, kind: str, reason: str) -> None:
    """Declare that this primitive has no ``kind`` rule, and why (a later ``def_rules`` of that
    kind replaces the declaration: a family's factory may declare its primitives nonlinear and
    give the linear ones a transpose)."""
    self.unsupported[kind] = reason

  def rule(self, kind: str) -> Callable:
    rule = getattr(self, kind)
    if rule is None:
      reason = self.unsupported.get(kind, "it has not been implemented yet")
      raise NotImplementedError(
          f"Primitive '{self.name}' has no rule for {_TRANSFORM_NAMES.get(kind, kind)}: {reason}.")
    return rule

  def bind(self, *args, **params):
    if _state.vma_axes and not self.own_vma and len(args) > 1:
      args = _match_vma(args)
    return _state.trace.process_primitive(self, args, params)

  def bind_with_trace(self, trace: "Trace", args, avals, params: dict, /):
    """Apply the primitive to ``args`` on ``trace`` rather than the current trace (how a trace
    written by a library hands an operation down to the trace below it). ``avals`` are the
    arguments' types, as JAX passes them; ember works them out from ``args``."""
    del avals
    with set_current_trace(trace):
      return self.bind(*args, **params)

  def abstract(self, avals: tuple, params: dict):
    """Output aval(s) for input avals, cached on (avals, params)."""
    try:
      key = (avals, tuple(params.items()))
      return self._abstract_cache[key]
    except KeyError:
      pass
    except TypeError:
      key = None
    out = self.rule("abstract_eval")(*avals, **params)
    if self.multiple_results:
      out = tuple(out)
    if not self.own_vma:
      out = _standard_vma(out, avals, self.multiple_results)
    if key is not None:
      if len(self._abstract_cache) > 4096:
        self._abstract_cache.clear()
      self._abstract_cache[key] = out
    return out


class Trace:
  """A transform's interpreter. Subclasses define ``process_primitive``."""
  __slots__ = ("parent", "__weakref__")

  def __init__(self, parent: "Trace | None" = None):
    self.parent = parent
    watched = _leaks.traces
    if watched is not None:  # a leak-checked transformation is running (see leak_checked)
      watched.append(weakref.ref(self))

  def process_primitive(self, prim: Primitive, args: tuple, params: dict):
    raise NotImplementedError

  def __repr__(self):
    return type(self).__name__


# --- jax_check_tracer_leaks ------------------------------------------------------------------

class _LeakWatch(threading.local):
  traces: list | None = None  # weak references to the traces made inside a leak-checked call


_leaks = _LeakWatch()


def leak_checked(fn: Callable) -> Callable:
  """Wrap a transformation's entry point: with ``jax_check_tracer_leaks`` on, once the outermost
  such call returns, no tracer of a trace made during it may still be alive (a tracer kept in a
  global, a closure or an object outlives its transformation: JAX's ``Exception: Leaked
  trace``). Off, it costs one attribute read."""
  from ember.config import config

  @functools.wraps(fn)
  def checked(*args, **kwargs):
    if not config.jax_check_tracer_leaks or _leaks.traces is not None:
      return fn(*args, **kwargs)
    _leaks.traces = []
    try:
      out = fn(*args, **kwargs)
    finally:
      made, _leaks.traces = _leaks.traces, None
    _raise_if_leaked(made)
    return out

  return checked


def _raise_if_leaked(made: list) -> None:
  gc.collect()
  # The garbage collector does not see running frames' variables: note what the user's
  # running functions hold (ember's own frames may still hold results being unpacked).
  user_held, frame = {}, sys._getframe()
  while frame is not None:
    code = frame.f_code
    if not code.co_filename.startswith(EMBER_DIR):
      where = f"a variable of {code.co_name} ({code.co_filename}:{frame.f_lineno})"
      for value in frame.f_locals.values():
        user_held.setdefault(id(value), where)
    frame = frame.f_back
  for ref in made:
    trace = ref()
    if trace is None:
      continue
    leaked = [(t, holder) for t in gc.get_referrers(trace)
              if isinstance(t, Tracer) and t._trace is trace
              for holder in [_lasting_holder(t, made, user_held)] if holder is not None]
    if leaked:
      lines = [f"{t!r} is held by {holder}" for t, holder in leaked[:5]]
      raise Exception(f"Leaked trace {type(trace).__name__}. Leaked tracer(s):\n\n" +
                      "\n".join(lines) + "\n\nA tracer outlived the transformation that made "
                      "it: it was stored in a global, a closure or an object while the function "
                      "was traced. Return it instead.")


_CONTAINERS = (list, tuple, dict, set, frozenset, types.CellType, types.FunctionType,
               types.MethodType)

# ember's own source files: frames there are ember's (error messages and the leak check look
# past them to the user's)
EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _lasting_holder(tracer, made: list, user_held: dict, depth: int = 8) -> str | None:
  """What keeps ``tracer`` alive beyond the transformation, or None. Walks its referrers through
  containers, closures and functions: reaching only ember's own running frames (a caller still
  unpacking the results) is fine; a user's frame, a module's globals or an object is a leak."""
  module_dicts = {id(m.__dict__): name for name, m in list(sys.modules.items())
                  if getattr(m, "__dict__", None) is not None}
  seen, frontier = {id(made)}, [tracer]
  for _ in range(depth):
    following = []
    for obj in frontier:
      for holder in gc.get_referrers(obj):
        if id(holder) in seen:
          continue
        seen.add(id(holder))
        if id(holder) in user_held:
          return user_held[id(holder)]
        if isinstance(holder, types.FrameType):
          code = holder.f_code
          if code.co_filename.startswith(EMBER_DIR):
            continue
          return f"a variable of {code.co_name} ({code.co_filename}:{holder.f_lineno})"
        if id(holder) in module_dicts:
          return f"a global of module {module_dicts[id(holder)]}"
        if isinstance(holder, (_CONTAINERS, Tracer, Trace)) or hasattr(type(holder), "__next__"):
          following.append(holder)
        elif not isinstance(holder, weakref.ref):
          return f"an object of type {type(holder).__name__}"
    frontier = following
    if not frontier:
      return None
  return None


class _TraceState(threading.local):
  def __init__(self):
    self.trace = EVAL_TRACE
    self.axis_env: tuple = ()  # ((name, size), ...) of the named axes in scope, innermost last
    self.manual_axes: tuple = ()  # the mesh axes of the enclosing shard_map body
    self.vma_axes: tuple = ()  # those values are typed over (check_vma), in mesh order
    self.name_stack: tuple = ()  # the named_scope names in force, outermost first


@contextlib.contextmanager
def set_current_trace(trace: Trace):
  prev = _state.trace
  _state.trace = trace
  try:
    yield trace
  finally:
    _state.trace = prev


def current_trace() -> Trace:
  return _state.trace


@contextlib.contextmanager
def extend_name_stack(name: str):
  """Name the equations staged while the body runs (``named_scope``, ``named_call``)."""
  prev = _state.name_stack
  _state.name_stack = prev + (name,)
  try:
    yield
  finally:
    _state.name_stack = prev


def swap_name_stack(stack: tuple) -> tuple:
  """Stage the following equations under ``stack`` (a transpose under the transposed equation's
  own names); returns the stack it replaces, for the caller to put back."""
  prev = _state.name_stack
  _state.name_stack = stack
  return prev


def name_stack() -> tuple:
  return _state.name_stack


@contextlib.contextmanager
def extend_axis_env(name, size: int):
  """Bind the named axis ``name`` (of ``size`` lanes) while the body runs (vmap, shard_map)."""
  prev = _state.axis_env
  _state.axis_env = prev + ((name, size),)
  try:
    yield
  finally:
    _state.axis_env = prev


class _VmaMark:
  """The axis env's entry that says values are typed by the manual axes they vary over."""

  def __repr__(self):
    return "vma"


_VMA = _VmaMark()


@contextlib.contextmanager
def manual_axes(axes: tuple, check_vma: bool):
  """While a shard_map body runs: its mesh ``axes`` (mesh order) are manual, and with
  ``check_vma`` values are typed by the ones they vary over. Part of the axis env, so of the
  cache keys of traces."""
  prev = _state.axis_env, _state.manual_axes, _state.vma_axes
  _state.axis_env = prev[0] + ((_VMA, (tuple(axes), check_vma)),)
  _state.manual_axes, _state.vma_axes = tuple(axes), tuple(axes) if check_vma else ()
  try:
    yield
  finally:
    _state.axis_env, _state.manual_axes, _state.vma_axes = prev


def vma_axes() -> tuple:
  """The manual mesh axes values are typed over (empty outside shard_map's checked bodies)."""
  return _state.vma_axes


def manual_axes_in_scope() -> tuple:
  """The mesh axes of the enclosing shard_map body (checked or not), else ()."""
  return _state.manual_axes


def _union_vma(sets) -> ManualAxes:
  """The union of ``sets`` of manual axes, in mesh order."""
  names = set().union(*sets)
  order = [a for a in _state.vma_axes if a in names]
  order += [a for s in sets for a in s.names if a not in order]
  return ManualAxes(order)


def _standard_vma(out, avals, multiple: bool):
  """A standard primitive's outputs vary over the union of its operands' manual axes."""
  sets = [a.vma for a in avals if getattr(a, "vma", None)]
  if not sets:
    return out
  vma = sets[0] if all(s == sets[0] for s in sets) else _union_vma(sets)
  if multiple:
    return tuple(o.update(vma=vma) for o in out)
  return out.update(vma=vma)


_pvary_bind: list = []  # pvary's bind, installed by ember.primitives.collectives


def _match_vma(args: tuple) -> tuple:
  """``args`` made to vary over the same manual axes: pvary on those that vary over fewer."""
  try:
    sets = [get_aval(x).vma for x in args]
  except TypeError:  # not an array: the trace reports it
    return args
  if all(s == sets[0] for s in sets):
    return args
  vma = _union_vma([s for s in sets if s])
  return tuple(x if s == vma else _pvary_bind[0](x, tuple(a for a in vma.names if a not in s))
               for x, s in zip(args, sets))


def axis_env() -> tuple:
  """The named axes in scope as ``((name, size), ...)``; part of the key of traced programs."""
  return _state.axis_env


def axis_size(name) -> int | None:
  """The size of the innermost axis called ``name``, or None when no such axis is bound."""
  for n, size in reversed(_state.axis_env):
    if n == name:
      return size
  return None


class Tracer:
  """A stand-in for an array while a transform runs. Subclasses carry their payload."""
  __slots__ = ("_trace",)
  __array_priority__ = 1000

  aval: ShapedArray  # subclasses provide it

  def __init__(self, trace: "Trace", aval: ShapedArray):
    """A tracer of ``trace`` for a value of type ``aval``: how the tracer class of a trace
    written outside ember (a subclass of ``Trace`` with its ``process_primitive``) starts.
    ember's own tracers set their fields themselves."""
    self._trace = trace
    self.aval = aval

  @property
  def shape(self):
    return self.aval.shape

  @property
  def dtype(self):
    return self.aval.dtype

  @property
  def ndim(self):
    return len(self.aval.shape)

  @property
  def size(self):
    return self.aval.size

  @property
  def weak_type(self):
    return self.aval.weak_type

  def to_concrete_value(self):
    """The concrete value behind this tracer, or None when it is only known abstractly."""
    return None

  def _origin_msg(self) -> str:
    return ""

  def __bool__(self):
    v = self.to_concrete_value()
    if v is None:
      raise errors.TracerBoolConversionError(self)
    return bool(v)

  def __int__(self):
    v = self.to_concrete_value()
    if v is None:
      raise errors.ConcretizationTypeError(
          self, "The problem arose with the `int` function. If trying to convert the data type "
          "of a value, try using `x.astype(int)` or `jnp.array(x, int)` instead.")
    return int(v)

  # float(), complex() and np.asarray() refuse every tracer, even one with a concrete value
  # (a jvp or grad tracer), as JAX's do; bool(), int() and operator.index() use that value.
  def __float__(self):
    raise errors.ConcretizationTypeError(
        self, "The problem arose with the `float` function. If trying to convert the data "
        "type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.")

  def __complex__(self):
    raise errors.ConcretizationTypeError(
        self, "The problem arose with the `complex` function. If trying to convert the data "
        "type of a value, try using `x.astype(complex)` or `jnp.array(x, complex)` instead.")

  def __index__(self):
    if self.aval.shape or not np.issubdtype(self.aval.dtype, np.integer):
      raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
    v = self.to_concrete_value()
    if v is None:
      raise errors.TracerIntegerConversionError(self)
    return int(v)

  def __array__(self, dtype=None, copy=None):
    raise errors.TracerArrayConversionError(self)

  def __len__(self):
    if not self.aval.shape:
      raise TypeError("len() of unsized object")
    return self.aval.shape[0]

  def __iter__(self):
    if not self.aval.shape:
      raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.aval.shape[0]))

  def __hash__(self):
    raise TypeError(f"unhashable type: '{type(self).__name__}'")

  def __setitem__(self, idx, value):
    raise TypeError(
        f"'{type(self).__name__}' object does not support item assignment. JAX arrays are "
        "immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another .at[] "
        "method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")

  def __repr__(self):
    return f"Traced<{self.aval!r}>with<{self._trace!r}>"

  __str__ = __repr__

  def __format__(self, spec):
    return repr(self)


# --- abstract values of concrete Python and NumPy values -------------------------------------

_aval_handlers: dict[type, Callable[[Any], ShapedArray]] = {}


def register_aval_handler(t: type, handler: Callable[[Any], ShapedArray]) -> None:
  _aval_handlers[t] = handler


def get_aval(x) -> ShapedArray:
  """The abstract value of a tracer, an ember array, a NumPy value or a Python scalar."""
  handler = _aval_handlers.get(type(x))
  if handler is not None:
    return handler(x)
  if isinstance(x, Tracer):
    return x.aval
  for t, h in _aval_handlers.items():
    if isinstance(x, t):
      return h(x)
  raise TypeError(
      f"Value {x!r} with type {type(x).__name__} is not a valid JAX type: expected an array, a "
      "NumPy value or a Python scalar (bool, int, float, complex).")


def is_concrete(x) -> bool:
  return not isinstance(x, Tracer) or x.to_concrete_value() is not None


def concrete_value(x):
  """The concrete value of ``x`` (a Python/NumPy/ember value) or None for abstract tracers."""
  if isinstance(x, Tracer):
    return x.to_concrete_value()
  return x


# --- the bottom of every stack: eager evaluation ----------------------------------------------

class EvalTrace(Trace):
  """Applies primitives to concrete values, running each on XLA."""
  __slots__ = ()

  def process_primitive(self, prim: Primitive, args: tuple, params: dict):
    impl = prim.impl
    if impl is None:
      return _default_impl[0](prim, *args, **params)
    return impl(*args, **params)

  def __repr__(self):
    return "EvalTrace"


class CompileTimeEvalTrace(EvalTrace):
  """The current trace inside ``ensure_compile_time_eval``: a primitive of concrete values runs
  now, even under ``jit``; one given tracers goes to the innermost of their traces."""
  __slots__ = ()

  def process_primitive(self, prim: Primitive, args: tuple, params: dict):
    traces = [x._trace for x in args if isinstance(x, Tracer)]
    if not traces:
      return EvalTrace.process_primitive(self, prim, args, params)
    inner = traces[0]
    for t in traces[1:]:  # the innermost: the one the others are ancestors of
      p = t.parent
      while p is not None and p is not inner:
        p = p.parent
      if p is inner:
        inner = t
    with set_current_trace(inner):
      return prim.bind(*args, **params)

  def __repr__(self):
    return "EvalTrace"


COMPILE_TIME_EVAL_TRACE = CompileTimeEvalTrace()


def _no_default_impl(prim, *args, **params):
  return prim.rule("impl")(*args, **params)


_default_impl = [_no_default_impl]


def set_default_impl(fn: Callable) -> None:
  """Install how primitives without an ``impl`` rule run eagerly (the backend does this)."""
  _default_impl[0] = fn


EVAL_TRACE = EvalTrace()
_state = _TraceState()
