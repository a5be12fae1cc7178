"""Why a jitted function traced again: explanations of cache misses, and a warning when one
function keeps recompiling.

Every trace of a jitted function records its signature (the names, shapes, dtypes and weak types
of its dynamic leaves, their tree structure, its static arguments, the options that change
traces, the named axes in scope). A trace costs milliseconds; recording it a fraction of one;
cached calls never come here.

- ``ember.config.update("jax_explain_cache_misses", True)`` (JAX's option) logs, at each trace,
  the user's line that made the call and how its signature differs from the closest one seen
  before: the argument (by its key path), old and new types, and what to change.
- By default, when one function has traced for more than ``ember_recompile_warning`` (10)
  different signatures, a :class:`RecompileWarning` names the argument that keeps changing: the
  most common silent slowdown of JAX code (``ember.errors.RecompileWarning``). ``0`` turns it
  off.

Example:
    >>> import ember, ember.numpy as jnp
    >>> f = ember.jit(lambda x: x * 2)
    >>> with ember.explain_cache_misses():   # logs "TRACING CACHE MISS at ..." for each trace
    ...   _ = f(jnp.ones(3)); _ = f(jnp.ones(4))
"""
from __future__ import annotations

import collections
import functools
import inspect
import logging
import os
import sys
import warnings
import weakref
from typing import Any, Callable, NamedTuple

import optree

from ember import pytree
from ember.config import TRACE_OPTIONS, config
from ember.core.cache import BoundedCache
from ember.core import trace as core
from ember.transforms.staging import user_frame

__all__ = ["RecompileWarning", "record_trace", "caller_location"]

logger = logging.getLogger("ember.jit")

_EMBER_DIR = core.EMBER_DIR + os.sep
_HISTORY = 32  # signatures remembered per function


class RecompileWarning(UserWarning):
  """A jitted function keeps tracing and compiling for new argument signatures (ember's own,
  raised once per function; ``ember.errors.RecompileWarning``).

  Example:
      >>> import warnings, ember
      >>> with warnings.catch_warnings():  # silence it for one block
      ...   warnings.simplefilter("ignore", ember.errors.RecompileWarning)
  """


class Signature(NamedTuple):
  """What a trace of a jitted function depended on."""
  names: tuple[str, ...]     # the dynamic leaves' names, like ``x`` or ``params['w']``
  avals: tuple               # their abstract values
  tree: Any                  # the tree structure of (dynamic args, dynamic kwargs)
  arg_names: tuple[str, ...]  # the dynamic positional arguments' names
  statics: tuple             # (name, value) of each static argument
  options: tuple             # the values of config.TRACE_OPTIONS
  axis_env: Any              # the named axes in scope


class _History:
  __slots__ = ("signatures", "traces", "changed", "warned", "__weakref__")

  def __init__(self):
    self.signatures: collections.deque = collections.deque(maxlen=_HISTORY)
    self.traces = 0
    self.changed: collections.Counter = collections.Counter()  # argument -> times it changed
    self.warned = False


_histories = BoundedCache(4096)  # function (or a weak reference to it) -> _History


def _history(fun: Callable) -> _History:
  try:
    key = weakref.ref(fun, lambda ref: _histories.pop(ref, None))
    hash(key)
  except TypeError:
    key = id(fun)
  history = _histories.get(key)
  if history is None:
    history = _histories[key] = _History()
  return history


# --- where things are -----------------------------------------------------------------------

def caller_location() -> str:
  """``file:line (function)`` of the innermost frame outside ember: the user's call."""
  src = user_frame()
  return "<unknown>" if src is None else f"{src.file}:{src.line} ({src.function})"


def _stacklevel() -> int:
  """The ``warnings.warn`` stacklevel that points at the first frame outside ember."""
  frame, level = sys._getframe(1), 1
  while frame is not None and frame.f_code.co_filename.startswith(_EMBER_DIR):
    frame, level = frame.f_back, level + 1
  return level


def _code(fun: Callable):
  while True:
    if isinstance(fun, functools.partial):
      fun = fun.func
      continue
    try:
      return inspect.unwrap(fun).__code__
    except (AttributeError, ValueError, TypeError):
      call = getattr(type(fun), "__call__", None)
      return getattr(call, "__code__", None)


def _defined_at(fun: Callable) -> str:
  code = _code(fun)
  return f" defined at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""


def _internal(fun: Callable) -> bool:
  """Whether ``fun`` is ember's own (jnp functions jitted internally): never warned about."""
  code = _code(fun)
  return code is not None and code.co_filename.startswith(_EMBER_DIR)


# --- recording ------------------------------------------------------------------------------

def record_trace(fun: Callable, name: str, args: tuple, kwargs: dict, static_argnums,
                 static_argnames, pos_names, leaf_names: Callable[[], list], avals: tuple,
                 axis_env) -> None:
  """Note that ``fun`` (jitted as ``name``) traced for this call: log why when
  ``jax_explain_cache_misses`` is on, and warn once when it keeps tracing anew. Under
  ``jax_no_tracing`` the trace is refused (RuntimeError, JAX's message)."""
  if config.jax_no_tracing:
    code = _code(fun)
    at = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    raise RuntimeError(f"re-tracing function {name}{at} for `jit`, but 'no_tracing' is set")
  explain = config.jax_explain_cache_misses
  threshold = config.ember_recompile_warning
  if not explain and (not threshold or _internal(fun)):
    return
  dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
  dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
  statics = tuple((pos_names[i] if i < len(pos_names) else f"args[{i}]", args[i])
                  for i in static_argnums if i < len(args))
  statics += tuple((k, v) for k, v in sorted(kwargs.items()) if k in static_argnames)
  sig = Signature(
      names=tuple(leaf_names()), avals=avals, tree=pytree.flatten((dyn_args, dyn_kwargs))[1],
      arg_names=tuple(pos_names[i] if i < len(pos_names) else f"args[{i}]"
                      for i in range(len(args)) if i not in static_argnums),
      statics=statics, options=tuple(config.read(o) for o in TRACE_OPTIONS), axis_env=axis_env)
  history = _history(fun)
  seen = list(history.signatures)
  if explain:
    closest = min(reversed(seen), key=lambda old: _distance(sig, old)) if seen else None
    logger.warning("%s", _explanation(fun, name, sig, closest))
  if sig in seen:  # the same signature again (a cleared or evicted cache): not a new one
    return
  if seen:
    for what in _changed(sig, seen[-1]):
      history.changed[what] += 1
  history.signatures.append(sig)
  history.traces += 1
  if threshold and history.traces > threshold and not history.warned and not _internal(fun):
    history.warned = True
    warnings.warn(_recompile_message(fun, name, history, sig), RecompileWarning,
                  stacklevel=_stacklevel())


# --- comparing signatures -------------------------------------------------------------------

def _distance(new: Signature, old: Signature) -> int:
  """How far apart two signatures are: a tree difference outweighs leaf differences, which
  count one per differing shape, dtype and weak type."""
  if new.tree != old.tree:
    return 1000 + len(_changed(new, old))
  leaves = sum((getattr(a, "shape", None) != getattr(b, "shape", None)) +
               (getattr(a, "dtype", None) != getattr(b, "dtype", None)) +
               (getattr(a, "weak_type", None) != getattr(b, "weak_type", None))
               for a, b in zip(new.avals, old.avals) if a != b)
  return leaves + len(_changed(new, old))


def _changed(new: Signature, old: Signature) -> list[str]:
  """The names of what differs (arguments, options), cheaply: no messages are formatted."""
  if new.tree != old.tree:
    out = ["tree structure"]
  else:
    out = [name for name, a, b in zip(new.names, new.avals, old.avals) if a != b]
  old_statics = dict(old.statics)
  out += [name for name, value in new.statics
          if name not in old_statics or not _same_static(value, old_statics[name])]
  out += [o for o, a, b in zip(TRACE_OPTIONS, new.options, old.options) if a is not b and a != b]
  if new.axis_env != old.axis_env:
    out.append("named axes")
  return out


def _differences(new: Signature, old: Signature) -> list[tuple[str, str]]:
  """(what, how) for each difference of ``new`` from ``old``, in the order of the arguments."""
  out = []
  if new.tree != old.tree:
    where, how = _tree_difference(new, old)
    out.append((where, how))
  else:
    for name, a, b in zip(new.names, new.avals, old.avals):
      if a != b:
        out.append((name, f"at {name}, {_aval_difference(a, b)}"))
  old_statics = dict(old.statics)
  for name, value in new.statics:
    if name not in old_statics:
      out.append((name, f"static argument {name} now {value!r}, not passed before"))
    elif not _same_static(value, old_statics[name]):
      out.append((name, f"static argument {name} now {value!r} and before "
                        f"{old_statics[name]!r}"))
  for option, a, b in zip(TRACE_OPTIONS, new.options, old.options):
    if a is not b and a != b:
      out.append((option, f"config option {option} now {a!r} and before {b!r}"))
  if new.axis_env != old.axis_env:
    out.append(("named axes", f"named axes in scope now {_axes(new.axis_env)} and before "
                              f"{_axes(old.axis_env)}"))
  return out


def _same_static(a, b) -> bool:
  try:
    return type(a) is type(b) and bool(a == b)
  except Exception:  # noqa: BLE001 - an __eq__ that does not give a bool
    return a is b


def _axes(axis_env) -> str:
  return repr(tuple(axis_env)) if axis_env else "none"


def _type_str(aval) -> str:
  try:
    text = aval.str_short(short_dtypes=True)
  except (AttributeError, TypeError):
    text = str(aval)
  return text + ("{weak_type=True}" if getattr(aval, "weak_type", False) else "")


def _aval_difference(new, old) -> str:
  hints = []
  shape_new, shape_old = getattr(new, "shape", None), getattr(old, "shape", None)
  if shape_new != shape_old:
    if shape_new is not None and shape_old is not None and len(shape_new) == len(shape_old):
      hints += [f"axis {i}: {a} != {b}" for i, (a, b) in enumerate(zip(shape_new, shape_old))
                if a != b]
    else:
      hints.append(f"rank {len(shape_new or ())} != {len(shape_old or ())}")
    hints.append("each new shape compiles anew: pad to a few fixed sizes if it varies from "
                 "call to call")
  if getattr(new, "dtype", None) != getattr(old, "dtype", None):
    hints.append("a different dtype: cast the argument to one dtype before the call")
  elif getattr(new, "weak_type", False) != getattr(old, "weak_type", False):
    hints.append("a Python scalar is weakly typed and an array is not: pass the same kind each "
                 "call, e.g. jnp.float32(x) for a scalar; see "
                 "https://docs.jax.dev/en/latest/type_promotion.html#weak-types")
  if not hints and getattr(new, "sharding", None) != getattr(old, "sharding", None):
    hints.append("a different sharding")
  hint = f" ({'; '.join(hints)})" if hints else ""
  return f"now {_type_str(new)} and before {_type_str(old)}{hint}"


def _tree_difference(new: Signature, old: Signature) -> tuple[str, str]:
  """The argument and the first place where two calls' tree structures differ."""
  roots = zip(new.tree.children(), old.tree.children())
  (new_args, old_args), (new_kwargs, old_kwargs) = roots
  if new_args.num_children != old_args.num_children:
    return "arguments", (f"now {new_args.num_children} positional arguments and before "
                         f"{old_args.num_children}")
  for i, (a, b) in enumerate(zip(new_args.children(), old_args.children())):
    found = _first_node_difference(a, b, "")
    if found is not None:
      where = (new.arg_names[i] if i < len(new.arg_names) else f"args[{i}]") + found[0]
      return where, f"at {where}, {found[1]}"
  if new_kwargs.one_level() != old_kwargs.one_level():
    now, before = set(new_kwargs.entries()), set(old_kwargs.entries())
    return "keyword arguments", (f"keyword arguments now {sorted(now)} and before "
                                 f"{sorted(before)}")
  for key, a, b in zip(new_kwargs.entries(), new_kwargs.children(), old_kwargs.children()):
    found = _first_node_difference(a, b, "")
    if found is not None:
      return key + found[0], f"at {key + found[0]}, {found[1]}"
  return "arguments", "a different tree structure"


def _first_node_difference(new, old, path: str):
  if new == old:
    return None
  if new.is_leaf() or old.is_leaf() or new.one_level() != old.one_level():
    how = f"now {_node(new)} and before {_node(old)}"
    if new.type is old.type and new.kind in _DICT_KINDS:
      how += f", keys differing: {sorted(set(new.entries()) ^ set(old.entries()), key=repr)}"
    elif new.type is old.type and new.num_children == old.num_children:
      how += " (the node's metadata differs: it is part of the cache key)"
    return path, how
  for entry, a, b in zip(new.entries(), new.children(), old.children()):
    found = _first_node_difference(a, b, path + _entry_str(new.kind, entry))
    if found is not None:
      return found
  return None


_DICT_KINDS = (optree.PyTreeKind.DICT, optree.PyTreeKind.ORDEREDDICT,
               optree.PyTreeKind.DEFAULTDICT)


def _entry_str(kind, entry) -> str:
  if kind in (optree.PyTreeKind.NAMEDTUPLE, optree.PyTreeKind.STRUCTSEQUENCE) or (
      kind == optree.PyTreeKind.CUSTOM and isinstance(entry, str) and entry.isidentifier()):
    return f".{entry}"
  return f"[{entry!r}]"


def _node(spec) -> str:
  if spec.is_leaf():
    return "a leaf"
  if spec.kind == optree.PyTreeKind.NONE:
    return "None"
  n = spec.num_children
  if spec.kind in _DICT_KINDS:
    return f"a {spec.type.__name__} with keys {list(spec.entries())}"
  if spec.kind == optree.PyTreeKind.CUSTOM:
    return str(spec.one_level())
  return f"a {spec.type.__name__} of {n} {'child' if n == 1 else 'children'}"


# --- messages -------------------------------------------------------------------------------

def _explanation(fun: Callable, name: str, sig: Signature, closest: Signature | None) -> str:
  head = f"TRACING CACHE MISS at {caller_location()}:\n"
  if closest is None:
    return head + f"  never seen function:\n    {name}{_defined_at(fun)}"
  head += f"  for {name}{_defined_at(fun)}\n"
  if closest == sig:
    return head + ("  this signature was traced before, but its trace is no longer cached "
                   "(the cache was cleared, or more than 256 signatures pushed it out)")
  lines = [f"  * {how}" for _, how in _differences(sig, closest)]
  return head + "  all previously seen signatures differ. The closest differs:\n" + \
      "\n".join(lines)


def _recompile_message(fun: Callable, name: str, history: _History, sig: Signature) -> str:
  msg = (f"jit of {name}{_defined_at(fun)} has traced and compiled for {history.traces} "
         "different argument signatures. ")
  if history.changed:
    what, _ = history.changed.most_common(1)[0]
    values = [_value_of(s, what) for s in history.signatures]
    values = [v for v in values if v is not None][-4:]
    shown = " -> ".join(values)
    msg += (f"The argument that keeps changing is {what}" + (f" ({shown})" if shown else "") +
            ". Each new shape, dtype, weak type or static value costs a new trace and compile: "
            "keep it fixed (pad to a few sizes), or pass a changing number as an array rather "
            "than a static argument or a Python scalar. ")
  return msg + ("Set jax_explain_cache_misses to log every retrace; "
                "ember.config.update('ember_recompile_warning', 0) silences this warning.")


def _value_of(sig: Signature, what: str) -> str | None:
  for name, aval in zip(sig.names, sig.avals):
    if name == what:
      return _type_str(aval)
  for name, value in sig.statics:
    if name == what:
      return repr(value)
  return None
