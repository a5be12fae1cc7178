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
from typing import Callable

import optree
from jaxlib import _jax

from ember import pytree
from ember.config import config
from ember.core import trace as core
from ember.core.jaxpr import ClosedJaxpr, Jaxpr
from ember.backend import client as backend_client
from ember.backend import lowering
from ember.backend import cpp_dispatch
from ember.backend import spmd
from ember.backend.sharding import NamedSharding
from ember.backend.array import ArrayImpl, abstractify, committed_device, to_buffer
from ember.backend.compile import Executable, LRUCache, compile_jaxpr
from ember.transforms.staging import DebugInfo, arg_names, trace_to_jaxpr, abstract_leaf

__all__ = ["jit", "jit_p", "Lowered", "Compiled", "Traced"]

_state = core._state
_EVAL = core.EVAL_TRACE
_NS = pytree.NAMESPACE
_fast_flatten = pytree.fast_flatten
_CPP_MAX_LEAVES = 100


# --- the call primitive ---------------------------------------------------------------------

jit_p = core.Primitive("jit", multiple_results=True)


def _jit_abstract_eval(*avals, jaxpr: ClosedJaxpr, name: str):
  return jaxpr.out_avals


_jit_executables = LRUCache(2048)


def _jit_impl(*args, jaxpr: ClosedJaxpr, name: str):
  avals = [x.aval if type(x) is ArrayImpl else abstractify(x) for x in args]
  device = committed_device(args, f"jit of {name}")
  committed = device is not None
  if device is None:
    device = backend_client.default_device()
  key = (jaxpr, device, committed)
  exe = _jit_executables.get(key)
  if exe is None:
    exe = compile_jaxpr(jaxpr, device, f"jit_{name}", committed)
    _jit_executables[key] = exe
  return exe.run([to_buffer(x, a, device) for x, a in zip(args, avals)])


def _jit_lower(ctx, *args, jaxpr: ClosedJaxpr, name: str):
  consts = [ctx.constant(c, v.aval) for c, v in zip(jaxpr.consts, jaxpr.jaxpr.constvars)]
  return lowering.lower_jaxpr(ctx, jaxpr.jaxpr, consts, list(args))


jit_p.def_rules(abstract_eval=_jit_abstract_eval, impl=_jit_impl, lower=_jit_lower)
jit_p.pp_alias_jaxpr = True  # the inner jaxpr's binders print with the caller's names
jit_p.pp_params = lambda params: {"name": params["name"], "jaxpr": params["jaxpr"]}


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """Turn a closed jaxpr's constvars into leading invars; return it and the const values."""
  if not closed.consts:
    return closed, []
  j = closed.jaxpr
  hoisted = Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns, j.effects, j.debug_info)
  return ClosedJaxpr(hoisted, []), list(closed.consts)


_JaxRuntimeError = _jax.JaxRuntimeError


def _raise_if_deleted(tree) -> None:
  """A clear error for a deleted (e.g. donated) argument, instead of XLA's shard-count one."""
  for i, leaf in enumerate(pytree.tree_leaves(tree)):
    if type(leaf) is ArrayImpl and leaf.is_deleted():
      raise RuntimeError(f"Array has been deleted with shape={leaf.aval.str_short(False)} "
                         f"(argument leaf {i}); it was donated or deleted. Pass a live array.")


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
    raise ValueError(f"jit {what} must be a sharding or a pytree prefix of the "
                     f"{'arguments' if what == 'in_shardings' else 'outputs'} ({treedef}), "
                     f"got {shardings!r}.") from None
  for s in out:
    if s is not None and not isinstance(s, Sharding):
      raise TypeError(f"jit {what} leaves must be shardings or None, got {s!r}.")
  return out


class _Entry:
  """One traced signature of a jitted function: its jaxpr, output tree and executables."""
  __slots__ = ("jaxpr", "consts", "out_tree", "executables", "closed", "default_exe",
               "dyn_args_tree", "layouts")

  def __init__(self, closed: ClosedJaxpr, out_tree, dyn_args_tree=None):
    self.dyn_args_tree = dyn_args_tree
    # argument shardings -> ((mesh, in, out shardings), its executable), or (None, None) when the
    # program runs on one device
    self.layouts = LRUCache(64)
    self.closed = closed
    self.jaxpr, self.consts = hoist_consts(closed)
    self.out_tree = out_tree
    self.executables: dict = {}
    self.default_exe: Executable | None = None  # uncommitted inputs on the default device

  def spmd_executable(self, layout, name: str) -> Executable:
    exe = self.executables.get(layout)
    if exe is None:
      exe = self.executables[layout] = spmd.compile_spmd(self.closed, *layout, f"jit_{name}")
    return exe

  def executable(self, device, committed: bool, name: str) -> Executable:
    key = (device, committed)
    exe = self.executables.get(key)
    if exe is None:
      exe = self.executables[key] = compile_jaxpr(self.closed, device, f"jit_{name}", committed)
    return exe


def _normalize_argnums(argnums, n_params) -> tuple[int, ...]:
  if argnums is None:
    return ()
  if isinstance(argnums, int):
    argnums = (argnums,)
  return tuple(sorted(a if a >= 0 or n_params is None else a + n_params for a in argnums))


def _static_key(value, where: str):
  try:
    hash(value)
  except TypeError as e:
    raise ValueError(
        f"Non-hashable static arguments are not supported. An error occurred while trying to "
        f"hash an object of type {type(value)}, {value!r}, passed as {where}. The error was:\n"
        f"TypeError: {e}\nMake it hashable (e.g. a tuple instead of a list) or pass it as a "
        "traced (non-static) argument.") from None
  return value


class JitWrapped:
  """The result of ``ember.jit(fun)``: call it, or ``.lower(...)``/``.trace(...)`` it."""

  def __init__(self, fun: Callable, static_argnums=None, static_argnames=None,
               donate_argnums=None, donate_argnames=None, keep_unused=False, device=None,
               backend=None, inline=False, in_shardings=None, out_shardings=None,
               abstracted_axes=None, compiler_options=None):
    if not callable(fun):
      raise TypeError(f"jit requires a callable as its first argument, got {fun!r} of type "
                      f"{type(fun).__name__}.")
    functools.update_wrapper(self, fun)
    self._fun = fun
    try:
      sig = inspect.signature(fun)
      params = list(sig.parameters.values())
    except (TypeError, ValueError):
      sig, params = None, []
    n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) \
        if sig else None
    if isinstance(static_argnames, str):
      static_argnames = (static_argnames,)
    static_argnames = tuple(static_argnames or ())
    self._static_argnums = _normalize_argnums(static_argnums, n_pos)
    # JAX infers the positions of static argnames and the names of static argnums.
    pos_names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    extra_nums = tuple(i for i, n in enumerate(pos_names) if n in static_argnames)
    extra_names = tuple(pos_names[i] for i in self._static_argnums if i < len(pos_names))
    self._static_argnums = tuple(sorted(set(self._static_argnums + extra_nums)))
    self._static_argnames = tuple(sorted(set(static_argnames + extra_names)))
    self._pos_names = pos_names
    self._device = device
    self._donate_argnums = donate_argnums
    self._cache = LRUCache(256)
    self._in_shardings, self._out_shardings = in_shardings, out_shardings
    self._inline = inline
    plain = device is None and in_shardings is None and out_shardings is None
    self._simple = plain and not self._static_argnums and not self._static_argnames
    self.__wrapped__ = fun
    self._cpp = cpp_dispatch.make(self.__name__, self._cpp_miss, self._static_argnums,
                                  self._static_argnames) if plain else None

  def __get__(self, obj, objtype=None):
    if obj is None:
      return self
    return functools.partial(self, obj)

  def __repr__(self):
    return f"<ember.jit of {getattr(self._fun, '__qualname__', self._fun)!r}>"

  # --- calling ---

  def __call__(self, *args, **kwargs):
    try:
      if _state.trace is _EVAL:
        if self._cpp is not None and not config.jax_disable_jit:
          return self._cpp(*args, **kwargs)
      elif self._inline:  # under a transform an inlined jit is just its function
        return self._fun(*args, **kwargs)
      return self._call_python(args, kwargs)
    except _JaxRuntimeError:
      _raise_if_deleted((args, kwargs))
      raise

  def _cpp_miss(self, *args, **kwargs):
    """jaxlib's C++ dispatcher missed its cache: run the Python path, and hand it the executable
    when the call is one it can serve next time (uncommitted device arrays, no kwargs)."""
    out = self._call_python(args, kwargs)
    simple = self._simple and not kwargs
    if simple:
      leaves, in_tree = _fast_flatten(args)
    else:  # the C++ side flattens the dynamic arguments as _split and flatten do
      dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
      leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    if len(leaves) > _CPP_MAX_LEAVES:
      self._cpp = None  # C++ signatures cost more per leaf than the Python path: keep Python
      return out, None
    if not all(type(x) is ArrayImpl for x in leaves):
      return out, None
    avals = tuple([x.aval for x in leaves])  # the key the Python path cached the entry under
    key = (in_tree, avals, config.jax_enable_x64) if simple else \
        (in_tree, avals, statics, config.jax_enable_x64, _state.axis_env)
    entry = self._cache.get(key)
    if entry is None:
      return out, None
    if any(spmd.is_sharded(x) for x in leaves):
      # jaxlib's dispatcher cannot serve ember's mesh shardings: go straight to Python.
      self._cpp = None
      return out, None
    if entry.default_exe is None or any(x._committed for x in leaves):
      return out, None
    return out, cpp_dispatch.fastpath(entry.default_exe, len(leaves), out)

  def _call_python(self, args, kwargs):
    if self._simple and not kwargs and _state.trace is _EVAL and not config.jax_disable_jit:
      leaves, in_tree = _fast_flatten(args)
      try:  # the hottest case: uncommitted device arrays, signature seen before
        avals = tuple([x.aval for x in leaves])
        if not any([x._committed for x in leaves]):
          entry = self._cache.get((in_tree, avals, config.jax_enable_x64))
          if entry is not None and entry.default_exe is not None and self._device is None:
            return entry.out_tree.unflatten(entry.default_exe.run(leaves))
      except AttributeError:
        pass
      try:
        avals = tuple([x.aval if type(x) is ArrayImpl else abstractify(x) for x in leaves])
      except TypeError:
        avals = None
      if avals is not None:
        key = (in_tree, avals, config.jax_enable_x64)
        entry = self._cache.get(key)
        if entry is None:
          entry = self._trace_entry(args, kwargs, in_tree, avals, key)
        return self._run(entry, leaves, avals)
    return self._call_general(args, kwargs)

  def _run(self, entry: _Entry, leaves, avals):
    all_arrays = True
    for x in leaves:
      if type(x) is ArrayImpl:
        if x._committed:
          return self._run_committed(entry, leaves, avals)
      else:
        all_arrays = False
    exe = entry.default_exe
    if exe is None or self._device is not None:
      return self._run_committed(entry, leaves, avals)
    if not all_arrays:
      device = exe.device
      leaves = [x if type(x) is ArrayImpl else to_buffer(x, a, device)
                for x, a in zip(leaves, avals)]
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
    bufs = [to_buffer(x, a, device) for x, a in zip(leaves, avals)]
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
    key = (in_tree, avals, statics, config.jax_enable_x64, _state.axis_env)
    entry = self._cache.get(key)
    if entry is None:
      entry = self._trace_entry(args, kwargs, in_tree, avals, key, split=True)
    if _state.trace is _EVAL and not any(isinstance(x, core.Tracer) for x in leaves):
      return self._run(entry, leaves, avals)
    outs = jit_p.bind(*entry.consts, *leaves, jaxpr=entry.jaxpr, name=self.__name__)
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
      return out_leaves

    debug = DebugInfo("jit", self._fun,
                      lambda: arg_names(self._fun, args, kwargs, static_argnums, static_argnames))
    closed, _ = trace_to_jaxpr(flat_fun, avals, debug)
    entry = _Entry(closed, out_tree_box[0], in_tree)
    self._cache[key] = entry
    return entry

  # --- ahead-of-time ---

  def trace(self, *args, **kwargs) -> "Traced":
    dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    avals = self._flat_avals(leaves, args, kwargs, in_tree)
    key = (in_tree, avals, statics, config.jax_enable_x64, _state.axis_env)
    entry = self._cache.get(key) or self._trace_entry(args, kwargs, in_tree, avals, key,
                                                      split=True)
    return Traced(self, entry, in_tree, self._spmd_layout(entry, leaves))

  def lower(self, *args, **kwargs) -> "Lowered":
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    return self.trace(*args, **kwargs).out_info

  def clear_cache(self):
    self._cache.clear()


class Traced:
  """A jitted function traced at some arguments: ``.jaxpr``, ``.out_info``, ``.lower()``."""

  def __init__(self, wrapped: JitWrapped, entry: _Entry, in_tree, layout=None):
    self._wrapped, self._entry, self._in_tree = wrapped, entry, in_tree
    self._layout = layout  # (mesh, in_shardings, out_shardings) of a program over a mesh

  @property
  def jaxpr(self) -> ClosedJaxpr:
    return self._entry.closed

  @property
  def out_info(self):
    from ember.core.aval import ShapeDtypeStruct
    avals = self._entry.closed.out_avals
    return pytree.unflatten(self._entry.out_tree,
                            [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                             for a in avals])

  def lower(self) -> "Lowered":
    return Lowered(self._wrapped, self._entry, self._in_tree, self._layout)


class Lowered:
  """The StableHLO of a traced function: ``.as_text()``, ``.compile()``."""

  def __init__(self, wrapped: JitWrapped, entry: _Entry, in_tree, layout=None):
    self._wrapped, self._entry, self._in_tree = wrapped, entry, in_tree
    self._layout = layout
    name = f"jit_{wrapped.__name__}"
    self._text = lowering.module_text(entry.closed, name) if layout is None else \
        spmd.module_text(entry.closed, *layout, name)

  def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
    return self._text

  def compiler_ir(self, dialect: str | None = None):
    return lowering.parse_module(self._text)

  @property
  def in_tree(self):
    return self._in_tree

  @property
  def out_info(self):
    return Traced(self._wrapped, self._entry, self._in_tree).out_info

  def compile(self, compiler_options=None) -> "Compiled":
    if self._layout is not None:
      exe = self._entry.spmd_executable(self._layout, self._wrapped.__name__)
      return Compiled(self._wrapped, self._entry, exe, self._in_tree)
    device = self._wrapped._device or backend_client.default_device()
    exe = self._entry.executable(device, self._wrapped._device is not None,
                                 self._wrapped.__name__)
    return Compiled(self._wrapped, self._entry, exe, self._in_tree)


class Compiled:
  """A compiled executable; calling it runs the program (arguments must match the lowering)."""

  def __init__(self, wrapped, entry, exe: Executable, in_tree):
    self._wrapped, self._entry, self._exe, self._in_tree = wrapped, entry, exe, in_tree

  def as_text(self) -> str:
    return self._exe.exe.hlo_modules()[0].to_string() if hasattr(self._exe.exe, "hlo_modules") \
        else self._exe.text

  def __call__(self, *args, **kwargs):
    dyn_args, dyn_kwargs, _ = self._wrapped._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    if in_tree != self._in_tree:
      raise TypeError(f"Compiled function called with a different argument structure: expected "
                      f"{self._in_tree}, got {in_tree}.")
    avals = tuple(abstractify(x) for x in leaves)
    expected = tuple(self._exe.in_avals[len(self._entry.consts):])
    if tuple(a.strip_weak_type() for a in avals) != tuple(a.strip_weak_type() for a in expected):
      raise TypeError(f"Compiled function called with argument types {list(map(str, avals))}, "
                      f"but it was compiled for {list(map(str, expected))}.")
    if isinstance(self._exe, spmd.SpmdExecutable):
      bufs = [spmd.put_sharded(x, s, a)
              for x, s, a in zip(leaves, self._exe.in_shardings, expected)]
    else:
      bufs = [to_buffer(x, a, self._exe.device) for x, a in zip(leaves, expected)]
    return pytree.unflatten(self._entry.out_tree, self._exe.run(bufs))


def jit(fun: Callable | None = None, *, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, keep_unused=False, device=None, backend=None,
        inline=False, in_shardings=None, out_shardings=None, abstracted_axes=None,
        compiler_options=None):
  """Compile ``fun`` with XLA; calls with the same argument types reuse the executable.

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
                in_shardings=in_shardings, out_shardings=out_shardings,
                abstracted_axes=abstracted_axes, compiler_options=compiler_options)
  if fun is None:
    return lambda f: JitWrapped(f, **kwargs)
  return JitWrapped(fun, **kwargs)
