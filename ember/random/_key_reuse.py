"""Key reuse checking (JAX's ``jax_debug_key_reuse``): drawing twice from one typed key raises
``KeyReuseError``.

Which operations consume a key is JAX's rule: every sampler, ``split`` and ``bits`` consume the
key they are given; ``fold_in``, ``key_data``, ``key_impl``, ``clone`` and ``wrap_key_data`` do
not (``clone`` and ``wrap_key_data`` give fresh keys, as do ``key``, ``split`` and ``fold_in``);
indexing a key array with ints and slices consumes the elements it takes and gives fresh keys,
while ``reshape``, ``transpose``, ``None``/``...`` indexing and indexing with arrays give views that
share the state of the keys they come from. Only typed keys (``random.key``) are tracked; raw
``uint32`` keys (``random.PRNGKey``) never are, as in JAX. The error's first line is JAX's
(``Previously-consumed key passed to jit-compiled function at index 0`` eagerly, ``In jit,
argument 0 is already consumed.`` in traced code, with JAX's operation names); unlike JAX, the
lines that follow name the file and line of both uses.

The setting ``jax_debug_key_reuse`` takes three values. True checks everywhere, as in JAX;
False (the default, as in JAX) checks nowhere; None, ember's addition, checks eager code (run op
by op, under ``vmap`` and ``grad`` too) but not code being staged for ``jit``, ``cond``,
``scan`` or ``while_loop``. The eager check costs about a microsecond per random call
(``benchmarks/key_reuse.py``). It is off by default because JAX programs draw twice from one
typed key on purpose (to reproduce a sample): 27 programs of the differential corpus do.

How it works: a typed key is a Python object (a pytree node over its key data), so ember keeps
its uses on the object, and checks when a function receives it. A key that ``vmap`` passes to its
function, and one ``reshape`` or ``transpose`` makes, is linked to the key it comes from: using it
uses that one. Inside staged code (with the setting True) the same object is seen while its
function is traced, so reuse inside a jitted function, of a key closed over by a ``vmap``,
``cond`` or ``scan`` body, and after a ``cond`` or ``scan`` that used it is caught when it is traced.
A key consumed in two branches of one ``cond`` is not reuse (one branch runs). A key from outside
a ``scan`` or ``while_loop`` body consumed in the body is an error (every iteration would draw
the same numbers), with JAX's message.

A jitted function's trace records which of its typed key arguments it consumes; while the check
is on (True), each eager call of it marks those keys consumed (``f(key)`` twice raises, as in
JAX; calls then skip jaxlib's C++ dispatch). Unlike JAX, ember does not see keys passed as
``cond`` or ``scan`` operands, nor a loop carry that is consumed and carried unchanged;
two ``cond`` calls each consuming a closed-over key in a branch are caught only inside staged
code.
"""
from __future__ import annotations

import sys
import weakref

import numpy as np

from ember import pytree
from ember.config import config
from ember.core import trace as core
from ember.core.errors import KeyReuseError
from ember.transforms import batching
from ember.transforms.staging import DynamicJaxprTrace

__all__ = ["consume", "sink_index", "link", "tracking", "sinks_on_index", "active_here",
           "link_vmap_args"]

_EVAL = core.EVAL_TRACE
_state = core._state
_EMBER_DIR = core.EMBER_DIR
_getframe = sys._getframe
_LOOPS = ("scan", "while_loop")
_BRANCHES = ("cond", "switch")


def _parse(value) -> bool | None:
  """The setting's meaning: None (eager checks only), True or False; environment variables
  arrive as strings (``JAX_DEBUG_KEY_REUSE=0``)."""
  if value is None:
    return None
  if isinstance(value, str):
    return value.strip().lower() not in ("0", "false", "no", "off", "")
  return bool(value)


_SETTING = _parse(config.jax_debug_key_reuse)


def _on_update(name, old, new) -> None:
  global _SETTING
  _SETTING = _parse(new)


config.watch("jax_debug_key_reuse", _on_update)

# JAX's name for the operation that consumes the key, and the key's position in it, when the
# check is eager and when it reads a staged function; a sampler is a jit-compiled function.
_JIT = (("jit-compiled function", 0), ("jit", 0))
_LABELS = {
    "bits": (("random_bits", 0), ("random_bits", 0)),
    "split": (("random_split", 0), ("random_split", 0)),
    "multinomial": (("random_split", 0), ("random_split", 0)),
    "binomial": (("jit-compiled function", 0), ("while", 15)),
    "slice": (("slice", 0), ("slice", 0)),
}


# One consumption of a key, a tuple (plain, as the eager path makes one per random call): by
# what (the random function's name, or "slice"), where in the user's code ((code, instruction
# offset), or None), which elements (a bool mask over the key array, or True for all), and the ``cond``
# branches it happened in.
_WHAT, _WHERE, _MASK, _IN_BRANCHES = range(4)


def _user_frame(depth: int = 2):
  """The innermost frame outside ember, from ``depth`` frames up: the user's."""
  try:
    f = sys._getframe(depth + 1)
  except ValueError:  # called from near the top of the stack
    return None
  while f is not None and f.f_code.co_filename.startswith(_EMBER_DIR):
    f = f.f_back
  return f


def _where(depth: int = 2):
  """Where the user's code is now: (code, offset of its current instruction), or None. The
  line is worked out only for a message (``_at``)."""
  f = _user_frame(depth + 1)
  return None if f is None else (f.f_code, f.f_lasti)


# --- where a key is used ------------------------------------------------------------------------

def _staged(trace) -> bool:
  """Whether ``trace`` stages a function (jit, cond, scan...) or runs inside one that does."""
  while trace is not None:
    if type(trace) is DynamicJaxprTrace:
      return True
    trace = trace.parent
  return False


def tracking() -> bool:
  """Whether the checker is on anywhere (so that views of keys must be linked)."""
  return _SETTING is not False


def sinks_on_index() -> bool:
  """Whether indexing with ints and slices consumes keys (JAX's rule, with the setting True;
  ember's default makes views, so that only drawing consumes)."""
  return _SETTING is True


def active_here() -> tuple[bool, bool]:
  """(whether keys are checked in the current context, whether it is staged)."""
  setting = _SETTING
  if setting is False:
    return False, False
  trace = _state.trace
  if trace is _EVAL:
    return True, False
  staged = _staged(trace)
  return (setting is True or not staged), staged


def _path(key) -> list:
  """The traces from the current one out to (not including) the one that owns the key's data:
  those the key came into from outside."""
  data = key._base_array
  owner = data._trace if isinstance(data, core.Tracer) else None
  path, trace = [], _state.trace
  while trace is not None and trace is not owner:
    path.append(trace)
    trace = trace.parent
  return path


def _what(trace) -> str | None:
  if type(trace) is DynamicJaxprTrace and trace.debug is not None:
    return trace.debug.traced_for
  return None


def _branches(path) -> tuple:
  """The ``cond``/``switch`` branches the key is used in: (which cond, which branch) pairs. One
  cond's branches are traced one after the other under one parent, before the cond's equation
  joins it, so inside staged code the parent and its equation count name the cond."""
  out = []
  for trace in path:
    if _what(trace) in _BRANCHES:
      parent = trace.parent
      count = len(parent.eqns) if type(parent) is DynamicJaxprTrace else None
      out.append(((weakref.ref(parent), count), weakref.ref(trace)))
  return tuple(out)


def _exclusive(a: tuple, b: tuple) -> bool:
  """Whether two uses sit in different branches of one cond (only one of them runs)."""
  return any(group_a == group_b and branch_a() is not branch_b()
             for group_a, branch_a in a for group_b, branch_b in b)


# --- consuming ------------------------------------------------------------------------------------

def consume(name: str, key) -> None:
  """Record that ``random.<name>`` consumes the typed ``key``; raise ``KeyReuseError`` if it (or
  a key it is linked to) was consumed before, or is a loop body's constant."""
  if _SETTING is False:
    return
  if _state.trace is _EVAL:
    if key._uses is None and key._link is None:  # the common case: a fresh key, eagerly
      # Frames: this one, check_key, the random function, its caller (the user, usually: a
      # direct look is cheaper than the walk).
      try:
        f = _getframe(3)
      except ValueError:  # check_key called from the top of the stack
        f = None
      if f is not None and f.f_code.co_filename.startswith(_EMBER_DIR):
        f = _user_frame(3)
      key._uses = (name, f.f_code, f.f_lasti) if f is not None else (name, None, 0)
      return
    _consume(name, key, True, (), staged=False)
    return
  on, staged = active_here()
  if not on:
    return
  path = _path(key)
  if staged:
    _check_loops(name, path)
  _consume(name, key, True, _branches(path), staged)


def sink_index(key, idx) -> None:
  """Consume the elements of the key array ``key`` that the static index ``idx`` takes."""
  on, staged = active_here()
  if not on:
    return
  mask = np.zeros(key.shape, np.bool_)
  mask[idx] = True
  path = _path(key)
  if staged:
    _check_loops("slice", path)
  _consume("slice", key, mask, _branches(path), staged)


def typed_keys(tree) -> list:
  """The typed key arrays in ``tree``, in its flattening order."""
  from ember.random._prng import PRNGKeyArray
  return [x for x in pytree.tree_leaves(tree, is_leaf=lambda x: isinstance(x, PRNGKeyArray))
          if isinstance(x, PRNGKeyArray)]


def consumed(key) -> bool:
  """Whether ``key`` (or part of it) has been consumed."""
  return any(True for _ in _prior_uses(key))


def _records(key) -> list:
  """The key's uses as records; the eager path stores a first use compactly, as
  ``(name, code, offset)``."""
  uses = key._uses
  if type(uses) is tuple:
    name, code, offset = uses
    uses = key._uses = [(name, None if code is None else (code, offset), True, ())]
  return uses if uses is not None else []


def _prior_uses(key):
  """The uses of ``key`` and of the keys it is linked to, each with its mask over ``key``."""
  for use in _records(key):
    yield use, use[_MASK]
  if key._link is not None:
    source, down, _ = key._link
    for use, mask in _prior_uses(source):
      yield use, down(mask)


def _overlap(a, b) -> bool:
  if a is True and b is True:
    return True
  return bool(np.any(np.logical_and(a, b)))


def _consume(name: str, key, mask, branches: tuple, staged: bool) -> None:
  for use, use_mask in _prior_uses(key):
    if _overlap(use_mask, mask) and not _exclusive(use[_IN_BRANCHES], branches):
      raise _reuse_error(name, use, staged)
  _record(key, (name, _where(), mask, branches))


def _record(key, use: tuple) -> None:
  uses = _records(key)
  if key._uses is None:
    key._uses = uses
  uses.append(use)
  if key._link is not None:
    source, _, up = key._link
    _record(source, (use[_WHAT], use[_WHERE], up(use[_MASK]), use[_IN_BRANCHES]))


# --- links: keys that stand for (part of) another ---------------------------------------------

def _anything(mask):
  return mask is True or bool(np.any(mask))


def link(key, source, down=_anything, up=_anything) -> None:
  """Make ``key`` stand for ``source``: its uses are ``source``'s too (``up`` maps a mask over
  ``key`` to one over ``source``), and ``source``'s uses are its (``down`` maps back). By
  default any use of one is a use of all of the other."""
  if _SETTING is not False:
    key._link = (source, down, up)


def link_vmap_args(outer, inner) -> None:
  """vmap's hook: each typed key its function receives stands for the key passed to vmap."""
  if _SETTING is False:
    return
  from ember.random._prng import PRNGKeyArray
  is_key = lambda x: type(x) is PRNGKeyArray  # noqa: E731
  outer_keys = [x for x in pytree.tree_leaves(outer, is_leaf=is_key) if is_key(x)]
  if not outer_keys:
    return
  inner_keys = [x for x in pytree.tree_leaves(inner, is_leaf=is_key) if is_key(x)]
  for o, i in zip(outer_keys, inner_keys):
    link(i, o)


batching.arg_hooks.append(link_vmap_args)


# --- loops --------------------------------------------------------------------------------------

def _check_loops(name: str, path) -> None:
  """A key from outside a scan or while_loop body must not be consumed in it."""
  for trace in path:
    what = _what(trace)
    if what in _LOOPS:
      raise KeyReuseError(_loop_head(what) + _loop_advice(name, what, _where()))


def _loop_head(what: str) -> str:
  if what == "scan":
    return ("scan body function leads to key reuse when repeatedly executed, because key "
            "constants are repeatedly consumed:\n")
  part = "cond" if _tracing_while_cond() else "body"
  return f"while_loop {part} function leads to key reuse when repeatedly executed: "


def _tracing_while_cond() -> bool:
  """Whether while_loop's cond_fun (traced before the body) is being traced."""
  f = sys._getframe(1)
  while f is not None:
    if f.f_code.co_name == "_trace_while" and f.f_code.co_filename.startswith(_EMBER_DIR):
      return "cond_t" not in f.f_locals
    f = f.f_back
  return False


def _loop_advice(name: str, what: str, where) -> str:
  loop = "scan" if what == "scan" else "while_loop"
  return (f"  {_describe(name)}{_at(where)} consumes a key from outside the {loop} body, so every "
          "iteration would draw the same numbers.\n  Carry a key and split it in each "
          "iteration (key, subkey = jax.random.split(key)), or pass one key per iteration"
          + (" in xs (jax.random.split(key, length))." if loop == "scan" else "."))


# --- messages -----------------------------------------------------------------------------------

def _at(where) -> str:
  if where is None:
    return ""
  code, offset = where
  line = next((line for start, end, line in code.co_lines() if start <= offset < end), None)
  return f" at {code.co_filename}:{line} (in {code.co_name})"


def _describe(what: str) -> str:
  if what == "slice":
    return "indexing the key array"
  return what if what.startswith("the jit-compiled function") else f"random.{what}"


def _reuse_error(name: str, first: tuple, staged: bool) -> KeyReuseError:
  label, index = _LABELS.get(name, _JIT)[staged]
  head = (f"In {label}, argument {index} is already consumed." if staged else
          f"Previously-consumed key passed to {label} at index {index}")
  return KeyReuseError(
      f"{head}\n  The key was first consumed by {_describe(first[_WHAT])}{_at(first[_WHERE])},\n"
      f"  and is consumed again by {_describe(name)}{_at(_where())}.\n"
      "  Use each key once: split it (key, subkey = jax.random.split(key)) and draw from the "
      "new keys.")
