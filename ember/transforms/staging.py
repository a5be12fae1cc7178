"""Staging: tracing a Python function into a Jaxpr (the interpreter behind jit and make_jaxpr).

A ``JaxprTracer`` carries only an aval and the variable it is bound to; ``DynamicJaxprTrace``
records one equation per primitive application. Values that are not this trace's tracers become
constants: Python and 0-d scalars inline as literals, arrays and other traces' tracers as
constvars (so a jit inside another transform closes over that transform's tracers correctly).

Example:
    >>> import ember, ember.numpy as jnp
    >>> print(ember.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0))
    { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys
from typing import Any, Callable, Sequence

import numpy as np

from ember.core import trace as core
from ember.core.aval import ShapedArray, ShapeDtypeStruct
from ember.core.errors import UnexpectedTracerError, leaked_tracer_message
from ember.backend.array import ArrayImpl
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, NameStack, SourceInfo, Var
from ember import pytree
from ember._src.traceback_util import api_boundary

__all__ = ["JaxprTracer", "DynamicJaxprTrace", "trace_to_jaxpr", "make_jaxpr", "DebugInfo",
           "arg_names"]



def user_frame(names: tuple = ()) -> SourceInfo | None:
  """The innermost stack frame outside ember (where the user's code called us), with the
  ``named_scope`` names in force; one shared object per place and scope (see below)."""
  f = sys._getframe(2)
  while f is not None and f.f_code.co_filename.startswith(core.EMBER_DIR):
    f = f.f_back
  if f is None:
    return None
  code = f.f_code
  key = (code.co_filename, f.f_lineno, code.co_name, names)
  try:
    info = _SOURCE_INFOS.get(key)
  except TypeError:  # a scope name that cannot be hashed: not shared
    return SourceInfo(*key[:3], NameStack(names))
  if info is None:
    if len(_SOURCE_INFOS) >= 4096:
      _SOURCE_INFOS.clear()
    info = _SOURCE_INFOS[key] = SourceInfo(*key[:3], NameStack(names))
  return info


# One SourceInfo per call site and scope, shared by the equations staged there: a long program
# then keeps a few objects per equation alive, not six, and the garbage collector's full passes
# over them (which grow with the program) stay short. SourceInfos are immutable, so sharing is
# invisible.
_SOURCE_INFOS: dict[tuple, SourceInfo] = {}


def fun_name(fun: Callable) -> str:
  """The name JAX gives a traced function: a ``functools.partial``'s is its function's."""
  while isinstance(fun, functools.partial):
    fun = fun.func
  return getattr(fun, "__name__", "<unnamed function>")


class DebugInfo:
  """What error messages say about a traced function: its name, place and argument names."""
  __slots__ = ("traced_for", "fun", "arg_names_fn", "_names", "_src")

  def __init__(self, traced_for: str, fun: Callable | None,
               arg_names_fn: Callable[[], list[str]] | None = None):
    self.traced_for = traced_for
    self.fun = fun
    self.arg_names_fn = arg_names_fn
    self._names = None
    self._src = None

  @property
  def func_src(self) -> str:
    if self._src is not None:
      return self._src
    fun = self.fun
    name = fun_name(fun)
    try:
      code = inspect.unwrap(fun).__code__
      return f"{name} at {code.co_filename}:{code.co_firstlineno}"
    except (AttributeError, ValueError, TypeError):
      return name

  @property
  def arg_names(self) -> list[str]:
    if self._names is None:
      try:
        self._names = self.arg_names_fn() if self.arg_names_fn else []
      except Exception:  # names are only for messages
        self._names = []
      self.arg_names_fn = None
    return self._names

  def release(self) -> None:
    """Work out the names and the function's description now, and drop the closure that knew
    the names (it holds the traced arguments, tracers, which must not outlive the trace) and the
    function (a cached jaxpr keeps its debug info, and must not keep the function alive)."""
    _ = self.arg_names
    if self.fun is not None:
      self._src = self.func_src
      self.fun = None


def arg_names(fun: Callable, args: tuple, kwargs: dict, static_argnums=(), static_argnames=()
              ) -> list[str]:
  """Names of the flattened non-static arguments, like ``x`` or ``params['w']``."""
  try:
    sig = inspect.signature(fun)
    bound = sig.bind(*args, **kwargs)
    names_by_pos = list(bound.arguments)
  except (TypeError, ValueError):
    names_by_pos = [f"args[{i}]" for i in range(len(args))] + list(kwargs)
  out = []
  for i, a in enumerate(args):
    if i in static_argnums:
      continue
    base = names_by_pos[i] if i < len(names_by_pos) else f"args[{i}]"
    out.extend(_leaf_names(base, a))
  for k in sorted(kwargs):
    if k in static_argnames:
      continue
    out.extend(_leaf_names(k, kwargs[k]))
  return out


def _leaf_names(base: str, tree) -> list[str]:
  pairs, _ = pytree.tree_flatten_with_path(tree)
  return [base + pytree.keystr(p) for p, _ in pairs]


class JaxprTracer(core.Tracer):
  """A value being staged into a jaxpr: its type and the jaxpr variable that holds it (JAX's
  ``DynamicJaxprTracer``).

  Example:
      >>> import ember
      >>> ember.make_jaxpr(lambda x: print(type(x).__name__) or x)(1.0)
      JaxprTracer
      { lambda ; a:f32[]. let  in (a,) }
  """
  __slots__ = ("aval", "_var")  # not "var": x.var() is the NumPy method

  def __init__(self, trace: "DynamicJaxprTrace", aval: ShapedArray, var: Var):
    self._trace = trace
    self.aval = aval
    self._var = var

  def _origin_msg(self) -> str:
    return self._trace.origin_msg(self)


def _finished(x: core.Tracer) -> bool:
  """Whether ``x`` leaked from a trace that has finished: a staging trace's tracer, or a JVP
  tracer (grad's) whose primal or tangent is one."""
  if getattr(x._trace, "alive", True) is False:
    return True
  return any(isinstance(part, core.Tracer) and _finished(part)
             for part in (getattr(x, "primal", None), getattr(x, "tangent", None)))


class DynamicJaxprTrace(core.Trace):
  """Records primitive applications as equations of a Jaxpr."""
  __slots__ = ("eqns", "invars", "constvars", "consts", "_const_ids", "_literals", "debug",
               "alive", "name_base")

  def __init__(self, parent: core.Trace, debug: DebugInfo | None = None):
    super().__init__(parent)
    self.eqns: list[JaxprEqn] = []
    self.invars: list[Var] = []
    self.constvars: list[Var] = []
    self.consts: list[Any] = []
    self._const_ids: dict[int, Var] = {}
    self._literals: dict[tuple, tuple] = {}  # (id, aval) -> (Python scalar, its Literal)
    self.debug = debug
    self.alive = True
    self.name_base = core.name_stack()  # the scopes around the traced function

  def __repr__(self):
    return "DynamicJaxprTrace"

  def new_arg(self, aval: ShapedArray) -> JaxprTracer:
    var = Var(aval)
    self.invars.append(var)
    return JaxprTracer(self, aval, var)

  def atom(self, x):
    """The variable or literal standing for ``x`` in this trace's jaxpr."""
    if type(x) is JaxprTracer and x._trace is self:
      return x._var
    return self._const(x)

  def _const(self, x):
    key = id(x)
    var = self._const_ids.get(key)
    if var is not None:
      return var
    if isinstance(x, core.Tracer):
      if _finished(x):
        raise UnexpectedTracerError(leaked_tracer_message(x))
      aval = x.aval
    else:
      aval = core.get_aval(x)
      if aval.shape == () and type(x) is not ArrayImpl:  # an Array is a constvar, as in JAX
        return self._literal(x, aval)
    var = Var(aval)
    self.constvars.append(var)
    self.consts.append(x)
    self._const_ids[key] = var
    return var

  def _literal(self, x, aval: ShapedArray) -> Literal:
    """The literal for the scalar ``x``. A constant used again at the same type (the ``1.0``
    in a loop's body) shares one Literal, so a long program keeps fewer objects alive.
    Literals are never changed, so sharing is invisible (printing reads only their value and
    type). A Python scalar is known by its id (it is kept with its literal, so the id stays
    its own), a NumPy scalar by its type and bytes (exact: ``-0.0`` is not ``0.0``)."""
    t = type(x)
    if t in _PY_SCALARS:
      key = (id(x), aval)
    elif isinstance(x, np.generic):
      key = (t, x.tobytes(), aval)
    else:
      return Literal(_scalar_value(x, aval), aval)
    hit = self._literals.get(key)
    if hit is None:
      hit = self._literals[key] = (x, Literal(_scalar_value(x, aval), aval))
    return hit[1]

  def process_primitive(self, prim: core.Primitive, args: tuple, params: dict):
    atoms = [self.atom(x) for x in args]
    out = prim.abstract(tuple([a.aval for a in atoms]), params)
    forward = prim.staging_forward
    if forward is not None:  # an operation that changes nothing stages nothing, as in JAX
      i = forward([a.aval for a in atoms], params)
      if i is not None:
        return JaxprTracer(self, atoms[i].aval, atoms[i])
    fold = prim.const_fold
    if fold is not None and all(type(a) is Literal for a in atoms):
      value = fold(*[a.val for a in atoms], **params)  # e.g. converting a scalar constant
      if value is not None:
        return JaxprTracer(self, out, Literal(value, out))
    names = core.name_stack()  # relative to the trace's start, as JAX records them
    base = self.name_base
    src = user_frame(names[len(base):] if names[:len(base)] == base else names)
    if prim.multiple_results:
      outvars = [Var(a) for a in out]
      self.eqns.append(JaxprEqn(prim, atoms, outvars, params, src))
      return [JaxprTracer(self, v.aval, v) for v in outvars]
    var = Var(out)
    self.eqns.append(JaxprEqn(prim, atoms, [var], params, src))
    return JaxprTracer(self, out, var)

  def to_jaxpr(self, outs: Sequence) -> ClosedJaxpr:
    outvars = [self.atom(x) for x in outs]
    self.alive = False
    jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns, debug_info=self.debug)
    return ClosedJaxpr(jaxpr, self.consts)

  # --- error messages ---

  def origin_msg(self, tracer: JaxprTracer) -> str:
    debug = self.debug
    if debug is None or debug.fun is None:
      return ""
    msg = f"The error occurred while tracing the function {debug.func_src} for " \
          f"{debug.traced_for}. "
    deps = self._dependencies(tracer._var)
    names = debug.arg_names
    arg_deps = [names[i] if i < len(names) else f"args[{i}]" for i in deps]
    if arg_deps:
      if len(arg_deps) == 1:
        msg += ("This concrete value was not available in Python because it depends on the "
                f"value of the argument {arg_deps[0]}.")
      else:
        listed = ", ".join(arg_deps[:-1]) + f" and {arg_deps[-1]}"
        msg += ("This concrete value was not available in Python because it depends on the "
                f"values of the arguments {listed}.")
      return msg
    eqn = self._producer(tracer._var)
    if eqn is not None:
      msg += "This value became a tracer due to JAX operations on these lines:\n\n"
      msg += f"  operation {eqn!r}\n"
      if eqn.source_info is not None:
        s = eqn.source_info
        msg += f"    from line {s.file}:{s.line} ({s.function})"
    return msg

  def _producer(self, var):
    for eqn in self.eqns:
      if any(v is var for v in eqn.outvars):
        return eqn
    return None

  def _dependencies(self, var) -> list[int]:
    """Positions of the arguments (invars) that ``var`` depends on."""
    producers = {}
    for eqn in self.eqns:
      for v in eqn.outvars:
        producers[id(v)] = eqn
    positions = {id(v): i for i, v in enumerate(self.invars)}
    seen, stack, deps = set(), [var], set()
    while stack:
      v = stack.pop()
      if id(v) in seen or isinstance(v, Literal):
        continue
      seen.add(id(v))
      if id(v) in positions:
        deps.add(positions[id(v)])
      eqn = producers.get(id(v))
      if eqn is not None:
        stack.extend(eqn.invars)
    return sorted(deps)


def staged_scalar(value, aval: ShapedArray):
  """A tracer of the jaxpr being staged right now standing for the scalar constant ``value``
  (printed as a literal, as JAX's constant-folded scalars are); ``None`` when no jaxpr is being
  staged directly (eagerly, or under another transform, the caller makes an array)."""
  trace = core._state.trace
  if type(trace) is not DynamicJaxprTrace or aval.shape:
    return None
  return JaxprTracer(trace, aval, Literal(_scalar_value(value, aval), aval))


_PY_SCALARS = frozenset({bool, int, float, complex})


def _scalar_value(x, aval: ShapedArray):
  if isinstance(x, (bool, int, float, complex)):
    return x
  from ember.backend.array import ArrayImpl, _host_value
  if type(x) is ArrayImpl:
    return _host_value(x)[()]
  return np.asarray(x, dtype=aval.dtype)[()]


def _check_outputs(outs, debug: DebugInfo) -> None:
  for x in outs:
    if not isinstance(x, core.Tracer):
      try:
        core.get_aval(x)
      except TypeError:
        raise TypeError(f"function {debug.func_src} traced for {debug.traced_for} returned a "
                        f"value of type {type(x)}, which is not a valid JAX type") from None


@core.leak_checked
def trace_to_jaxpr(fun: Callable, in_avals: Sequence[ShapedArray],
                   debug: DebugInfo | None = None) -> ClosedJaxpr:
  """Trace ``fun(*tracers)`` (flat arguments; it returns a flat list) into a closed jaxpr."""
  parent = core.current_trace()
  trace = DynamicJaxprTrace(parent, debug)
  tracers = [trace.new_arg(a) for a in in_avals]
  try:
    with core.set_current_trace(trace):
      outs = fun(*tracers)
    if debug is not None:
      _check_outputs(outs, debug)
    return trace.to_jaxpr(outs)
  finally:
    trace.alive = False
    if debug is not None:
      debug.release()


def abstract_leaf(x) -> ShapedArray:
  if isinstance(x, ShapeDtypeStruct):
    return ShapedArray(x.shape, x.dtype, x.weak_type)
  if isinstance(x, ShapedArray):
    return x
  return core.get_aval(x)


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (), axis_env=None,
               return_shape: bool = False):
  """A function that returns the jaxpr of ``fun`` at the given arguments.

  As in JAX, this is ``jit(fun, static_argnums=...).trace(...)``: it shares ``jit(fun)``'s traces
  (tracing ``fun`` again only for new argument types) and its error messages.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> print(ember.make_jaxpr(lambda x, y: x + y)(1.0, 2.0))
      { lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) }
  """
  from ember.transforms.jit import jit
  jitted = jit(fun, static_argnums=static_argnums)

  @functools.wraps(fun)
  @api_boundary
  def make_jaxpr_f(*args, **kwargs):
    with contextlib.ExitStack() as stack:
      for name, size in axis_env or ():
        stack.enter_context(core.extend_axis_env(name, size))
      traced = jitted.trace(*args, **kwargs)
    if return_shape:
      return traced.jaxpr, traced.out_info
    return traced.jaxpr

  return make_jaxpr_f


def trace_flat(fun: Callable, leaves: Sequence, traced_for: str) -> ClosedJaxpr:
  """The jaxpr of ``fun(*leaves)`` (a function of flat arguments returning a flat list), traced
  afresh (no cache) for ``traced_for``'s messages."""
  debug = DebugInfo(traced_for, fun, lambda: arg_names(fun, tuple(leaves), {}))
  return trace_to_jaxpr(fun, [abstract_leaf(x) for x in leaves], debug)
