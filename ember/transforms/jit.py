"""jit: stage a function out to a Jaxpr, compile it with XLA, and cache the executable.

Under another transform a jitted function is one ``jit`` primitive whose parameter is the traced
Jaxpr, so ``grad(jit(f))``, ``vmap(jit(f))`` and ``jit(jit(f))`` compose through that
primitive's rules. Called eagerly, a cached call does one flatten, one cache lookup keyed on the
tree structure and the leaves' interned avals, and one ``execute_sharded``.

Example:
    >>> import ember, ember.numpy as jnp
    >>> f = ember.jit(lambda x: jnp.sin(jnp.cos(x)) * jnp.tanh(x))
    >>> f(jnp.zeros(2))
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

import functools
import inspect
import operator
import time
import warnings
import weakref
from typing import Callable

import optree

from ember import monitoring, pytree
from ember.config import config
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, hoist_consts
from ember.backend import client as backend_client
from ember.backend import cpp_dispatch
from ember.backend import dispatch
from ember.backend import spmd
from ember.backend.sharding import NamedSharding
from ember.backend.array import ArrayImpl, abstractify, committed_device
from ember.backend.compile import Executable, compile_jaxpr, donation_attrs
from ember.core.cache import BoundedCache
from ember.backend.compile import module_text as compile_module_text
from ember._src import traceback_util
from ember.transforms import cache_misses
from ember.transforms.jit_rules import (_JaxRuntimeError, _jit_impl, _raise_if_deleted, jit_p,
                                        jit_params, place_args)
from ember.transforms.jit_stages import ArgInfo, Compiled, Lowered, Stage, Traced
from ember.transforms.staging import (DebugInfo, abstract_leaf, arg_names, fun_name,
                                    trace_to_jaxpr)

__all__ = ["jit", "jit_p", "Lowered", "Compiled", "Traced", "Stage", "ArgInfo"]

_state = core._state
_EVAL = core.EVAL_TRACE
_NS = pytree.NAMESPACE
_fast_flatten = pytree.fast_flatten
_CPP_MAX_LEAVES = 100


# --- jit --------------------------------------------------------------------------------------

def _sharding_leaves(shardings, treedef, what: str) -> list:
  """One sharding (or None) per leaf of the tree ``treedef`` describes, from a pytree prefix of
  it (a single sharding applies to every leaf)."""
  from ember.backend.sharding import Sharding
  n = treedef.num_leaves
  if shardings is None or isinstance(shardings, Sharding):
    return [shardings] * n
  try:
    out = pytree.broadcast_prefix(shardings, pytree.unflatten(treedef, [0] * n),
                                  is_leaf=lambda x: x is None)
  except ValueError:
    raise ValueError(_sharding_mismatch(shardings, pytree.unflatten(treedef, [0] * n), what)
                     ) from None
  for s in out:
    if s is not None and not isinstance(s, Sharding):
      raise TypeError(f"jit {what} leaves must be shardings or None, got {s!r}.")
  return out


def _sharding_mismatch(shardings, full, what: str) -> str:
  """The error for shardings that are not a pytree prefix of the arguments (``full`` is the
  ``(args, kwargs)`` tree; ``shardings`` then ``(in_shardings, None)``) or of the outputs: the
  key path of the first difference, as JAX words it."""
  if what == "in_shardings":
    shardings, full = shardings[0], full[0]  # matched against the positional arguments
    if isinstance(shardings, (tuple, list)) and len(shardings) != len(full):
      return ("pjit in_shardings specification must be a tree prefix of the positional "
              "arguments tuple: a Sharding, a PartitionSpec, or a tuple of length equal to the "
              "number of positional arguments. But pjit in_shardings is the wrong length: got a "
              f"tuple or list of length {len(shardings)} for an args tuple of length "
              f"{len(full)}.")
  detail = pytree._structure_error(shardings, full, (), f"pjit {what}", lambda x: x is None)
  if detail is None:
    of = "positional arguments" if what == "in_shardings" else "outputs"
    return f"jit {what} must be a sharding or a pytree prefix of the {of}, got {shardings!r}."
  return f"Mismatch details (1 found):\n{detail}"


class _Entry:
  """One traced signature of a jitted function: its jaxpr, output tree and executables, and
  how they are compiled (``donated``: per flat argument, whether it is donated, or None)."""
  __slots__ = ("jaxpr", "consts", "out_tree", "executables", "closed", "default_exe",
               "dyn_args_tree", "layouts", "donated", "keep_unused", "compiler_options",
               "_attrs", "consumed_keys")

  def __init__(self, closed: ClosedJaxpr, out_tree, dyn_args_tree=None, donated=None,
               keep_unused=False, compiler_options=()):
    self.dyn_args_tree = dyn_args_tree
    self.donated, self.keep_unused, self.compiler_options = donated, keep_unused, compiler_options
    self._attrs: dict = {}
    # argument shardings -> ((mesh, in, out shardings), its executable), or (None, None) when the
    # program runs on one device
    self.layouts = BoundedCache(64)
    self.closed = closed
    self.jaxpr, self.consts = hoist_consts(closed)
    self.out_tree = out_tree
    self.executables: dict = {}
    self.default_exe: Executable | None = None  # uncommitted inputs on the default device
    self.consumed_keys: tuple = ()  # jax_debug_key_reuse: per typed key argument, consumed?

  @property
  def donated_invars(self) -> tuple:
    """Per input of ``self.jaxpr`` (hoisted consts first), whether it is donated."""
    n = len(self.closed.in_avals)
    return (False,) * len(self.consts) + (self.donated or (False,) * n)

  def arg_attrs(self, num_partitions: int = 1):
    """The arguments' donation attributes, computed (and unusable donations warned about) once
    per partition count."""
    attrs = self._attrs.get(num_partitions, False)
    if attrs is False:
      attrs = self._attrs[num_partitions] = donation_attrs(
          self.closed.jaxpr, self.donated, self.keep_unused, num_partitions)
    return attrs

  def module_text(self, name: str, layout=None) -> str:
    if layout is None:
      return compile_module_text(self.closed, name, self.arg_attrs())
    return spmd.module_text(self.closed, *layout, name, self.arg_attrs(layout[0].size))

  def spmd_executable(self, layout, name: str, options: tuple | None = None) -> Executable:
    """The program over a mesh; ``options`` (XLA's) replace the jit's when given."""
    options = self.compiler_options if options is None else options
    key = (layout, options)
    exe = self.executables.get(key)
    if exe is None:
      exe = self.executables[key] = spmd.compile_spmd(
          self.closed, *layout, f"jit_{name}", self.arg_attrs(layout[0].size), options)
    return exe

  def executable(self, device, committed: bool, name: str,
                 options: tuple | None = None) -> Executable:
    """The program on one device; ``options`` (XLA's) replace the jit's when given."""
    options = self.compiler_options if options is None else options
    key = (device, committed, options)
    exe = self.executables.get(key)
    if exe is None:
      exe = self.executables[key] = compile_jaxpr(self.closed, device, f"jit_{name}", committed,
                                                  self.arg_attrs(), options)
    return exe


def _normalize_argnums(argnums, n_params) -> tuple[int, ...]:
  if argnums is None:
    return ()
  argnums = _index_tuple(argnums, "static_argnums")
  return tuple(sorted(a if a >= 0 or n_params is None else a + n_params for a in argnums))


def _static_key(value, where: str):
  try:
    h = hash(value)
  except TypeError as e:
    raise ValueError(
        f"Non-hashable static arguments are not supported. An error occurred while trying to "
        f"hash an object of type {type(value)}, {value!r}, passed as {where}. The error was:\n"
        f"TypeError: {e}\nMake it hashable (e.g. a tuple instead of a list) or pass it as a "
        "traced (non-static) argument.") from None
  return _StaticKey(value, h)


class _StaticKey:
  """A static argument in a cache key: as in JAX, equal only to one of the same type that is
  the same object or compares equal (``2``, ``2.0`` and ``True`` retrace; ``-0.0`` after ``0.0``
  does not, and the function sees ``0.0``)."""
  __slots__ = ("value", "_hash")

  def __init__(self, value, hash_: int):
    self.value, self._hash = value, hash_

  def __hash__(self):
    return self._hash

  def __eq__(self, other):
    if type(other) is not _StaticKey or type(self.value) is not type(other.value):
      return False
    return self.value is other.value or bool(self.value == other.value)


def _index_tuple(x, what: str = "donate_argnums") -> tuple[int, ...]:
  try:
    return (operator.index(x),)
  except TypeError:
    pass
  try:
    return tuple(map(operator.index, x))
  except TypeError as e:
    raise TypeError(f"{what} must be an int or a sequence of ints, got {x!r}: {e}.") from None


def _str_tuple(x, what: str = "donate_argnames") -> tuple[str, ...]:
  if isinstance(x, str):
    return (x,)
  try:
    out = tuple(x)
  except TypeError as e:
    raise TypeError(f"{what} must be a str or a sequence of strs, got {x!r}: {e}.") from None
  for name in out:
    if not isinstance(name, str):
      raise TypeError(f"argument is not a string: {name}")
  return out


def _resolve_donation(fun, sig, argnums, argnames, static_argnames) -> tuple[tuple, tuple]:
  """``(donate_argnums, donate_argnames)`` as JAX completes and checks them: each is inferred
  from the other through the signature's positional-or-keyword parameters."""
  if sig is None:
    if argnames is not None:
      raise ValueError(f"Getting the signature of function {fun} failed. Pass donate_argnums "
                       "instead of donate_argnames.")
    return (() if argnums is None else _index_tuple(argnums)), ()
  if argnums is None and argnames is None:
    return (), ()
  params = list(sig.parameters.values())
  by_name = [(i, p.name) for i, p in enumerate(params) if p.kind == p.POSITIONAL_OR_KEYWORD]
  if argnames is None:
    argnums = _index_tuple(argnums)
    argnames = tuple(n for i, n in by_name if i in argnums)
  elif argnums is None:
    argnames = _str_tuple(argnames)
    argnums = tuple(i for i, n in by_name if n in argnames)
  else:
    argnums, argnames = _index_tuple(argnums), _str_tuple(argnames)
  _check_argnums(params, argnums)
  _check_argnames(params, argnames)
  both = set(static_argnames) & set(argnames)
  if both:
    raise ValueError("static_argnames and donate_argnames cannot intersect. Argument names "
                     f"{both} appear in both static_argnames and donate_argnames")
  return argnums, argnames


def _check_argnums(params, argnums) -> None:
  if any(p.kind == p.VAR_POSITIONAL for p in params):
    return
  n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
  if argnums and (-min(argnums) > n or max(argnums) >= n):
    raise ValueError(f"Jitted function has donate_argnums={argnums}, but only accepts {n} "
                     "positional arguments.")


def _check_argnames(params, argnames) -> None:
  positional = {p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)}
  if bad := positional & set(argnames):
    raise ValueError(f"Jitted function has invalid argnames {bad} in donate_argnames. These are "
                     "positional-only")
  if any(p.kind == p.VAR_KEYWORD for p in params):
    return
  named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
  if bad := set(argnames) - named:
    raise ValueError(f"Jitted function has invalid argnames {bad} in donate_argnames. Function "
                     "does not take these args.")




def _placement(device, backend, in_shardings, out_shardings):
  """The device ``jit(device=, backend=)`` commits its results to (None when neither is set),
  with JAX's deprecation warning and checks."""
  if device is None and backend is None:
    return None
  warnings.warn("backend and device argument on jit is deprecated. You can use "
                '`jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the inputs to '
                "the jitted function to get the same behavior.", DeprecationWarning,
                stacklevel=4)
  if device is not None and backend is not None:
    raise ValueError("can't specify both a device and a backend for jit, got "
                     f"device={device!r} and backend={backend!r}")
  for what, value in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
    if value is not None:
      raise ValueError(f"If backend or device is specified on jit, then {what} should not be "
                       "specified.")
  if device is not None:
    return device
  return backend_client.local_devices(backend=backend)[0]


# Every jit of the same function shares its traces (with the same static arguments) and its
# executables (with the same options), as in JAX: ``jax.jit(f)(x)`` written inside a loop
# traces and compiles ``f`` once. Functions are held weakly where they can be (their entry goes
# when they do); at most 4096 are remembered.
_signature_caches = BoundedCache(4096)  # function (or a weak reference to it) -> {options: cache}


def _forget_function(ref) -> None:
  _signature_caches.pop(ref, None)


def _signature_cache(fun: Callable, options: tuple) -> BoundedCache:
  """The cache of traced signatures for ``jit(fun, **options)``: shared by all such wraps."""
  try:
    hash(options)
    try:
      key = weakref.ref(fun, _forget_function)
    except TypeError:  # e.g. a builtin: held strongly (the table is bounded)
      key = fun
    hash(key)
  except TypeError:  # an unhashable function or option (a dict of shardings): not shared
    return BoundedCache(256)
  per_options = _signature_caches.get(key)
  if per_options is None:
    per_options = _signature_caches[key] = BoundedCache(16)
  cache = per_options.get(options)
  if cache is None:
    cache = per_options[options] = BoundedCache(256)
  return cache


class PjitFunction:
  """The result of ``ember.jit(fun)``: call it, or ``.lower(...)``/``.trace(...)`` it. Named as
  the type of JAX's jitted functions (``jaxlib._jax.PjitFunction``), by which libraries
  recognise them."""

  def __init__(self, fun: Callable, static_argnums=None, static_argnames=None,
               donate_argnums=None, donate_argnames=None, keep_unused=False, device=None,
               backend=None, inline=False, in_shardings=None, out_shardings=None,
               compiler_options=None):
    if not callable(fun):
      raise TypeError(f"Expected a callable value, got {fun!r}")
    functools.update_wrapper(self, fun)
    if not hasattr(self, "__name__"):  # e.g. a functools.partial
      self.__name__ = self.__qualname__ = fun_name(fun)
    self._fun = fun
    try:
      sig = inspect.signature(fun)
      params = list(sig.parameters.values())
    except (TypeError, ValueError):
      sig, params = None, []
    if sig is not None:  # as JAX's: inspect.signature(jit(f), follow_wrapped=False) works
      self.__signature__ = sig
    n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) \
        if sig else None
    static_argnames = _str_tuple(static_argnames or (), "static_argnames")
    self._static_argnums = _normalize_argnums(static_argnums, n_pos)
    # JAX infers the positions of static argnames and the names of static argnums.
    pos_names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    extra_nums = tuple(i for i, n in enumerate(pos_names) if n in static_argnames)
    extra_names = tuple(pos_names[i] for i in self._static_argnums if i < len(pos_names))
    self._static_argnums = tuple(sorted(set(self._static_argnums + extra_nums)))
    self._static_argnames = tuple(sorted(set(static_argnames + extra_names)))
    self._pos_names = pos_names
    self._donate_argnums, self._donate_argnames = _resolve_donation(
        fun, sig, donate_argnums, donate_argnames, self._static_argnames)
    device = _placement(device, backend, in_shardings, out_shardings)
    self._device = device
    self._keep_unused = bool(keep_unused)
    self._compiler_options = tuple(compiler_options.items()) if compiler_options else ()
    self._in_shardings, self._out_shardings = in_shardings, out_shardings
    self._inline = inline
    # traces depend on which arguments are static; compiled programs on every option
    self._traces = _signature_cache(fun, ("traces", self._static_argnums, self._static_argnames))
    self._cache = _signature_cache(fun, (
        self._static_argnums, self._static_argnames, self._donate_argnums,
        self._donate_argnames, device, self._keep_unused, self._compiler_options, inline,
        in_shardings, out_shardings))
    plain = device is None and in_shardings is None and out_shardings is None
    self._simple = plain and not self._static_argnums and not self._static_argnames
    self.__wrapped__ = fun
    self._cpp = cpp_dispatch.make(self.__name__, self._cpp_miss, self._static_argnums,
                                  self._static_argnames) if plain else None

  def __get__(self, obj, objtype=None):
    if obj is None:
      return self
    return functools.partial(self, obj)

  def __repr__(self):  # as JAX's (libraries recognise jitted functions by it)
    return f"<PjitFunction of {self._fun!r}>"

  # --- calling ---

  def __call__(self, *args, **kwargs):
    try:
      if _state.trace is _EVAL:
        if config.jax_debug_key_reuse is True and not config.jax_disable_jit:
          return self._call_keys_checked(args, kwargs)
        if self._cpp is not None and not config.jax_disable_jit:
          return self._cpp(*args, **kwargs)
      elif self._inline:  # under a transform an inlined jit is just its function
        return self._fun(*args, **kwargs)
      return self._call_python(args, kwargs)
    except _JaxRuntimeError as e:
      _raise_if_deleted((args, kwargs))
      traceback_util.filter_in_place(e)
      raise
    except Exception as e:
      traceback_util.filter_in_place(e)
      raise

  def _cpp_miss(self, *args, **kwargs):
    """jaxlib's C++ dispatcher missed its cache: run the Python path, and hand it the executable
    when the call is one it can serve next time: uncommitted device arrays on the default
    device, Python scalars and NumPy values (placed by ``cpp_dispatch._place_host_value``)."""
    out = self._call_python(args, kwargs)
    simple = self._simple and not kwargs
    if simple:
      leaves, in_tree = _fast_flatten(args)
    else:  # the C++ side flattens the dynamic arguments as _split and flatten do
      dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
      leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    donates = bool(self._donate_argnums or self._donate_argnames)
    if len(leaves) > _CPP_MAX_LEAVES:
      self._cpp = None  # C++ signatures cost more per leaf than the Python path: keep Python
      return out, None
    hosts = cpp_dispatch.HOST_TYPES
    if not all(type(x) is ArrayImpl or (type(x) in hosts and not donates) for x in leaves):
      return out, None  # (a donated host value needs a buffer of its own: see place_args)
    try:  # the key the Python path cached the entry under
      avals = tuple([x.aval if type(x) is ArrayImpl else abstractify(x) for x in leaves])
    except TypeError:
      return out, None
    key = (in_tree, avals, config.trace_key) if simple else \
        (in_tree, avals, statics, config.trace_key, _state.axis_env)
    entry = self._cache.get(key)
    if entry is None:
      return out, None
    if any(spmd.is_sharded(x) for x in leaves):
      # jaxlib's dispatcher cannot serve ember's mesh shardings: go straight to Python.
      self._cpp = None
      return out, None
    if entry.default_exe is None or any(type(x) is ArrayImpl and x._committed for x in leaves):
      return out, None
    return out, cpp_dispatch.fastpath(entry.default_exe, len(leaves), out)

  def _call_python(self, args, kwargs):
    if self._simple and not kwargs and _state.trace is _EVAL and not config.jax_disable_jit:
      leaves, in_tree = _fast_flatten(args)
      try:  # the hottest case: uncommitted arrays on the default device, signature seen before
        avals = tuple([x.aval for x in leaves])
        dsh = dispatch.DEFAULT_SHARDING or dispatch.default_sharding()
        if not any([x._committed or x._sharding is not dsh for x in leaves]):
          entry = self._cache.get((in_tree, avals, config.trace_key))
          if entry is not None and entry.default_exe is not None and self._device is None:
            return entry.out_tree.unflatten(entry.default_exe.run(leaves))
      except AttributeError:
        pass
      try:
        avals = tuple([x.aval if type(x) is ArrayImpl else abstractify(x) for x in leaves])
      except TypeError:
        avals = None
      if avals is not None:
        key = (in_tree, avals, config.trace_key)
        entry = self._cache.get(key)
        if entry is None:
          entry = self._cache.get(self._general_key(args, avals))  # traced by .trace()
          if entry is None:
            entry = self._trace_entry(args, kwargs, in_tree, avals, key)
          else:
            self._cache[key] = entry
        return self._run(entry, leaves, avals)
    return self._call_general(args, kwargs)

  def _call_keys_checked(self, args, kwargs):
    """A call while ``jax_debug_key_reuse`` is on: the typed keys the function consumes are
    marked consumed by the call, so passing one again raises ``KeyReuseError`` (as JAX's jit)."""
    from ember.random import _key_reuse
    keys = _key_reuse.typed_keys((args, kwargs))
    if not keys:
      return self._call_general(args, kwargs)
    dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    avals = self._flat_avals(leaves, args, kwargs, in_tree)
    entry = self._entry(args, kwargs, in_tree, avals, statics)
    for i, (key, used) in enumerate(zip(keys, entry.consumed_keys)):
      if used:
        _key_reuse.consume(f"the jit-compiled function {self.__name__} (its key argument {i})",
                           key)
    return self._run(entry, leaves, avals)

  def _general_key(self, args, avals):
    """The key ``trace`` and the general call path give a call of ``args`` (no statics)."""
    return (pytree.flatten((args, {}))[1], avals, (), config.trace_key, ())

  def _entry(self, args, kwargs, in_tree, avals, statics) -> _Entry:
    """The entry of a call's signature (``_split``'s statics, ``in_tree`` of the dynamic
    ``(args, kwargs)``), traced if new; shared with the fast path's key for plain calls."""
    key = (in_tree, avals, statics, config.trace_key, _state.axis_env)
    entry = self._cache.get(key)
    if entry is not None:
      return entry
    fast_key = None
    if self._simple and not kwargs and not _state.axis_env:
      fast_key = (_fast_flatten(args)[1], avals, config.trace_key)
      entry = self._cache.get(fast_key)
    if entry is None:
      entry = self._trace_entry(args, kwargs, in_tree, avals, key, split=True)
      if fast_key is not None:
        self._cache[fast_key] = entry
    else:
      self._cache[key] = entry
    return entry

  def _run(self, entry: _Entry, leaves, avals):
    exe = entry.default_exe
    in_place = True  # every leaf an array on the default program's device
    dsh = backend_client.replicated_sharding(exe.device) if exe is not None else None
    for x in leaves:
      if type(x) is ArrayImpl:
        if x._committed:
          return self._run_committed(entry, leaves, avals)
        in_place = in_place and x._sharding is dsh
      else:
        in_place = False
    if exe is None or self._device is not None:
      return self._run_committed(entry, leaves, avals)
    if not in_place:  # host values, or arrays made under another jax_default_device
      leaves = place_args(leaves, avals, exe.device, entry.donated)
    return optree.tree_unflatten(entry.out_tree, exe.run(leaves))

  def _run_committed(self, entry: _Entry, leaves, avals):
    try:  # arrays laid out as in an earlier call: the same program
      key = tuple([x._sharding for x in leaves])
      hit = entry.layouts.get(key)
    except AttributeError:  # some leaf is not an array
      key, hit = None, None
    if hit is None:
      layout = self._spmd_layout(entry, leaves)
      hit = (layout, None if layout is None else entry.spmd_executable(layout, self.__name__))
      if key is not None:
        entry.layouts[key] = hit
    layout, exe = hit
    if layout is not None:
      bufs = [spmd.put_sharded(x, s, a) for x, s, a in zip(leaves, layout[1], exe.in_avals)]
      return optree.tree_unflatten(entry.out_tree, exe.run(bufs))
    device = committed_device(leaves, f"jit of {self.__name__}") if leaves else None
    committed = device is not None
    if device is None:
      device = self._device or backend_client.default_device()
      committed = self._device is not None
    exe = entry.executable(device, committed, self.__name__)
    if not committed and entry.default_exe is None:
      entry.default_exe = exe
    bufs = place_args(leaves, avals, device, entry.donated)
    return optree.tree_unflatten(entry.out_tree, exe.run(bufs))

  # --- programs over a device mesh ---

  def _shardings_mesh(self):
    for s in pytree.tree_leaves((self._in_shardings, self._out_shardings)):
      if isinstance(s, NamedSharding):
        return s.mesh
    return None

  def _spmd_layout(self, entry: _Entry, leaves):
    """(mesh, argument shardings, output shardings) when the program runs over a mesh (its
    arguments are sharded, it names one, or shardings were asked for), else None."""
    mesh = spmd.mesh_of_args(leaves, spmd.find_mesh(entry.closed) or self._shardings_mesh(),
                             f"jit of {self.__name__}")
    if mesh is None:
      return None
    in_sh = spmd.arg_shardings(leaves, mesh, f"jit of {self.__name__}")
    if self._in_shardings is not None:
      asked = _sharding_leaves((self._in_shardings, None), entry.dyn_args_tree, "in_shardings")
      in_sh = [a if a is not None else s for a, s in zip(asked, in_sh)]
    out_sh = [None] * len(entry.closed.out_avals)
    if self._out_shardings is not None:
      out_sh = _sharding_leaves(self._out_shardings, entry.out_tree, "out_shardings")
    return mesh, tuple(in_sh), tuple(out_sh)

  def _split(self, args, kwargs):
    """Separate static from dynamic arguments; return (dyn_args, dyn_kwargs, static_key)."""
    statics = []
    dyn_args = []
    for i, a in enumerate(args):
      if i in self._static_argnums:
        statics.append((i, _static_key(a, f"static argument {i}")))
      else:
        dyn_args.append(a)
    dyn_kwargs = {}
    for k, v in kwargs.items():
      if k in self._static_argnames:
        statics.append((k, _static_key(v, f"static argument {k!r}")))
      else:
        dyn_kwargs[k] = v
    for i in self._static_argnums:
      # A named parameter left out falls back to its default (or Python reports it missing).
      if i >= len(args) and i >= len(self._pos_names):
        raise ValueError(
            f"jitted function {self.__name__} has static_argnums={self._static_argnums}, but "
            f"was called with only {len(args)} positional arguments.")
    return tuple(dyn_args), dyn_kwargs, tuple(statics)

  def _flat_avals(self, leaves, args, kwargs, in_tree):
    avals = []
    for i, x in enumerate(leaves):
      try:
        avals.append(abstract_leaf(x))
      except TypeError:
        names = arg_names(self._fun, args, kwargs, self._static_argnums, self._static_argnames)
        where = names[i] if i < len(names) else f"leaf {i}"
        raise TypeError(
            f"Error interpreting argument to {self._fun!r} as an abstract array. The "
            f"problematic value is of type {type(x)} and was passed to the function at path "
            f"{where}.\nThis typically means that a jit-wrapped function was called with a "
            "non-array argument, and this argument was not marked as static using the "
            "static_argnums or static_argnames parameters of jax.jit.") from None
    return tuple(avals)

  def _call_general(self, args, kwargs):
    if config.jax_disable_jit:
      return self._fun(*args, **kwargs)
    dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    avals = self._flat_avals(leaves, args, kwargs, in_tree)
    # Named axes in scope (inside vmap/shard_map) change what collectives in fun mean.
    entry = self._entry(args, kwargs, in_tree, avals, statics)
    if _state.trace is _EVAL and not any(isinstance(x, core.Tracer) for x in leaves):
      return self._run(entry, leaves, avals)
    if self._compiler_options:
      raise ValueError(
          "`compiler_options` can only be passed to top-level `jax.jit`. Got compiler_options="
          f"{dict(self._compiler_options)} specified on a nested jit with name: {self.__name__}")
    outs = jit_p.bind(*entry.consts, *leaves, **jit_params(
        entry.jaxpr, self.__name__, entry.donated_invars, self._keep_unused))
    return pytree.unflatten(entry.out_tree, outs)

  def _trace_entry(self, args, kwargs, in_tree, avals, key, split=False) -> _Entry:
    out_tree_box = []
    static_argnums, static_argnames = self._static_argnums, self._static_argnames

    def flat_fun(*flat):
      if split:
        dargs, dkwargs = pytree.unflatten(in_tree, flat)
        it = iter(dargs)
        full = [a if i in static_argnums else next(it) for i, a in enumerate(args)]
        full_kwargs = {k: (kwargs[k] if k in static_argnames else dkwargs[k]) for k in kwargs}
      else:
        full, full_kwargs = in_tree.unflatten(flat), {}
      out = self._fun(*full, **full_kwargs)
      out_leaves, out_tree = pytree.flatten(out)
      out_tree_box.append(out_tree)
      if config.jax_debug_key_reuse is True:  # which key arguments the function consumed
        from ember.random import _key_reuse
        out_tree_box.append(tuple(_key_reuse.consumed(k)
                                  for k in _key_reuse.typed_keys((full, full_kwargs))))
      return out_leaves

    traced = self._traces.get(key)  # traced already by a jit of fun with other options?
    if traced is None:
      names = functools.cache(
          lambda: arg_names(self._fun, args, kwargs, static_argnums, static_argnames))
      cache_misses.record_trace(self._fun, self.__name__, args, kwargs, static_argnums,
                                static_argnames, self._pos_names, names, avals, _state.axis_env)
      debug = DebugInfo("jit", self._fun, names)
      t0 = time.perf_counter()
      with monitoring.timed("/jax/core/compile/jaxpr_trace_duration", fun_name=self.__name__):
        closed = trace_to_jaxpr(flat_fun, avals, debug)
      if config.jax_log_compiles:
        cache_misses.logger.warning("Finished tracing %s for jit in %.9f sec", self.__name__,
                                    time.perf_counter() - t0)
      traced = self._traces[key] = (closed, out_tree_box[0], tuple(out_tree_box[1:2]))
    closed, out_tree, consumed = traced
    entry = _Entry(closed, out_tree, in_tree, self._donated_leaves(args, kwargs),
                   self._keep_unused, self._compiler_options)
    entry.consumed_keys = consumed[0] if consumed else ()
    self._cache[key] = entry
    return entry

  def _donated_leaves(self, args, kwargs) -> tuple[bool, ...] | None:
    """Per flat dynamic argument, whether it is donated; None when none is. As in JAX,
    nothing is donated while ``jax_debug_nans`` is on (a failing call runs again)."""
    nums, names = self._donate_argnums, self._donate_argnames
    if not (nums or names) or config.jax_debug_nans:
      return None
    flags = (tuple(pytree.tree_map(lambda _, d=i in nums: d, a) for i, a in enumerate(args)
                   if i not in self._static_argnums),
             {k: pytree.tree_map(lambda _, d=k in names: d, v) for k, v in kwargs.items()
              if k not in self._static_argnames})
    leaves = pytree.tree_leaves(flags)
    return tuple(leaves) if any(leaves) else None

  # --- ahead-of-time ---

  def trace(self, *args, **kwargs) -> "Traced":
    dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    avals = self._flat_avals(leaves, args, kwargs, in_tree)
    entry = self._entry(args, kwargs, in_tree, avals, statics)
    return Traced(self, entry, in_tree, self._spmd_layout(entry, leaves))

  def lower(self, *args, **kwargs) -> "Lowered":
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    return self.trace(*args, **kwargs).out_info

  def clear_cache(self):
    self._cache.clear()
    self._traces.clear()
    if self._cpp is not None:
      self._cpp._clear_cache()


# --- jax_debug_nans / jax_debug_infs --------------------------------------------------------
# While a flag is on (dispatch.on_debug_checks swaps these in), an eager jitted call checks its
# outputs and, when one holds a nan/inf, runs the function again op by op, where the primitive that
# made it raises, as JAX's "de-optimized" rerun does.

def _deoptimized(fun, args, kwargs, kind: str, name: str):
  """Run ``fun`` op by op (each primitive's outputs are checked); if nothing raises, say so."""
  fun(*args, **kwargs)
  raise FloatingPointError(
      f"invalid value ({kind}) encountered in jit({name}). Because jax_debug_nans and/or "
      "jax_debug_infs is set, the de-optimized function (the function as if the `jit` decorator "
      "were removed) was run op by op to find the operation that produced it, but it did not "
      "produce invalid values during its execution. jit's optimizations can produce such a "
      "value, as can nan/inf constants among the inputs or outputs, like "
      "`jit(lambda: jnp.nan)()`; removing the `jit` decorator may avoid it.")


def _check_jit_outputs(wrapped: "PjitFunction", out, args, kwargs) -> None:
  kind = dispatch.special_value(pytree.tree_leaves(out))
  if kind is not None:
    _deoptimized(wrapped._fun, args, kwargs, kind, wrapped.__name__)


_call_python_unchecked = PjitFunction._call_python


def _call_python_checked(self, args, kwargs):
  out = _call_python_unchecked(self, args, kwargs)
  if _state.trace is _EVAL and not config.jax_disable_jit:
    _check_jit_outputs(self, out, args, kwargs)
  return out


def _cpp_post_hook(pjit_function, args, kwargs, out) -> None:
  """jaxlib's C++ dispatcher calls this after each cached call while checks are on."""
  _check_jit_outputs(pjit_function._cache_miss.__self__, out, args, kwargs)


def _jit_impl_checked(*args, jaxpr: ClosedJaxpr, name: str, **params):
  outs = _jit_impl(*args, jaxpr=jaxpr, name=name, **params)
  kind = dispatch.special_value(outs)
  if kind is not None:
    _deoptimized(lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs), args, {}, kind, name)
  return outs


def _toggle_checks(on: bool) -> None:
  PjitFunction._call_python = _call_python_checked if on else _call_python_unchecked
  jit_p.def_rules(impl=_jit_impl_checked if on else _jit_impl)
  cpp_dispatch.set_post_hook(_cpp_post_hook if on else None)


jit_p.checks_own_outputs = True
dispatch.on_debug_checks(_toggle_checks)


class _Unspecified:
  """The default of ``fun`` (``jit(**options)`` is a decorator) and of the shardings (leaving
  them to the arguments and XLA, as None does)."""

  def __init__(self, name: str):
    self.name = name

  def __repr__(self):
    return self.name


_NOT_SPECIFIED = _Unspecified("<not-specified>")
UNSPECIFIED = _Unspecified("UnspecifiedValue")


def jit(fun: Callable = _NOT_SPECIFIED, /, *, in_shardings=UNSPECIFIED,
        out_shardings=UNSPECIFIED, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, keep_unused=False, device=None, backend=None,
        inline=False, compiler_options=None):
  """Compile ``fun`` with XLA; calls with the same argument types reuse the executable.

  ``donate_argnums``/``donate_argnames`` donate arguments' buffers: XLA may reuse them for
  outputs of the same shape and dtype, and a donated array is deleted after the call (an eager
  call; nothing is donated inside another jit), as in JAX. ``keep_unused=True`` keeps unused
  arguments in the program (JAX prunes them, so they are not donated); ``device``/``backend``
  commit the results to a device (deprecated, as in JAX); ``inline=True`` traces ``fun`` into an
  enclosing transform instead of staging a ``jit`` equation; ``compiler_options`` are XLA
  options by name, for a top-level jit.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.jit
      ... def f(x):
      ...   return x * 2 + 1
      >>> f(jnp.arange(3))
      Array([1, 3, 5], dtype=int32)
  """
  kwargs = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                in_shardings=None if in_shardings is UNSPECIFIED else in_shardings,
                out_shardings=None if out_shardings is UNSPECIFIED else out_shardings,
                compiler_options=compiler_options)
  if fun is _NOT_SPECIFIED:
    return lambda f: PjitFunction(f, **kwargs)
  return PjitFunction(fun, **kwargs)
