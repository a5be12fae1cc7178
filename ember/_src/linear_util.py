"""Functions wrapped with a stack of transformations (JAX 0.10.2's ``jax._src.linear_util``,
public as ``jax.extend.linear_util``).

A ``WrappedFun`` holds a Python function and the transformations applied to it, innermost
first. Each transformation is a function ``t(f_next, *static_args, *args, **kwargs)`` that calls
the function below it (``transformation2``), or a generator that yields the arguments it passes
down and then its result (``transformation``); the ``_with_aux`` kinds also leave an auxiliary
value in a ``Store`` read after the call (``flatten_fun`` stores the output tree this way).
ember's own transforms do not use these; libraries that write their own traces do (with
``ember.extend.core.take_current_trace`` and ``ember.core.Trace``).

Example:
    >>> from ember._src import linear_util as lu
    >>> @lu.transformation
    ... def scale(k, *args):
    ...   out = yield tuple(k * a for a in args), {}
    ...   yield out + 1
    >>> scale(lu.wrap_init(lambda x, y: x * y), 2).call_wrapped(3, 4)
    49
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from ember.core.cache import BoundedCache

__all__ = ["StoreException", "Store", "WrappedFun", "wrap_init", "transformation",
           "transformation_with_aux", "transformation2", "transformation_with_aux2", "cache",
           "merge_linear_aux"]


class StoreException(Exception):
  """A ``Store`` read before it was filled, or filled twice."""


_EMPTY = object()


class Store:
  """A box filled once, by the call of the function a transformation wraps."""
  __slots__ = ("_val",)

  def __init__(self):
    self._val = _EMPTY

  def store(self, val) -> None:
    if self._val is not _EMPTY:
      raise StoreException("Store occupied")
    self._val = val

  def reset(self) -> None:
    self._val = _EMPTY

  @property
  def val(self):
    if self._val is _EMPTY:
      raise StoreException("Store empty")
    return self._val

  def __bool__(self):
    return self._val is not _EMPTY


class WrappedFun:
  """``f`` with ``transforms`` applied: ``call_wrapped(*args, **kwargs)`` runs them all.

  ``transforms`` holds ``(transformation, static_args)`` pairs, the last applied first;
  ``stores`` the matching ``Store`` (or None); ``params`` keyword arguments always passed to ``f``.
  Two wrapped functions are equal when their function, transformations and params are.
  """
  __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "in_type", "debug_info")

  def __init__(self, f: Callable, f_transformed: Callable, transforms: tuple, stores: tuple,
               params: tuple, in_type, debug_info):
    self.f = f
    self.f_transformed = f_transformed
    self.transforms = transforms
    self.stores = stores
    self.params = params
    self.in_type = in_type
    self.debug_info = debug_info

  @property
  def __name__(self) -> str:
    return getattr(self.f, "__name__", "<unnamed wrapped function>")

  def wrap(self, gen: Callable, gen_static_args: tuple, out_store: Store | None) -> WrappedFun:
    """This function with one more transformation (and its store, or None) on top."""
    below = (self.f_transformed,) if out_store is None else (self.f_transformed, out_store)
    return WrappedFun(self.f, functools.partial(gen, *below, *gen_static_args),
                      ((gen, gen_static_args),) + self.transforms, (out_store,) + self.stores,
                      self.params, None, self.debug_info)

  def populate_stores(self, stores) -> None:
    """Fill this function's stores with the values of another's (a cached call's)."""
    for mine, theirs in zip(self.stores, stores):
      if mine is not None:
        mine.store(theirs.val)

  def call_wrapped(self, *args, **kwargs):
    return self.f_transformed(*args, **kwargs)

  def replace_debug_info(self, debug_info) -> WrappedFun:
    return WrappedFun(self.f, self.f_transformed, self.transforms, self.stores, self.params,
                      self.in_type, debug_info)

  def __repr__(self):
    lines = [f"{i}   : {getattr(t, '__name__', t)}   {args}"
             for i, (t, args) in enumerate(self.transforms)]
    return "Wrapped function:\n" + "".join(line + "\n" for line in lines) + \
        f"Core: {self.__name__}\n"

  def __hash__(self):
    return hash((self.f, self.transforms, self.params))

  def __eq__(self, other):
    return (isinstance(other, WrappedFun) and self.f == other.f
            and self.transforms == other.transforms and self.params == other.params)


def wrap_init(f: Callable, params: dict | None = None, *, debug_info=None) -> WrappedFun:
  """Wrap ``f`` (with keyword arguments ``params`` always passed to it) with no transformation.

  Example:
      >>> from ember._src import linear_util as lu
      >>> lu.wrap_init(lambda x, *, k: x * k, {"k": 3}).call_wrapped(2)
      6
  """
  params = {} if params is None else dict(params)
  return WrappedFun(f, functools.partial(f, **params), (), (), tuple(sorted(params.items())),
                    None, debug_info)


def _curried(make: Callable) -> Callable:
  """``make(t, fun, *static_args)`` taking its arguments in any number of calls, as JAX's
  ``curry`` does: ``make(t)(fun, *static_args)`` (the decorator form) and
  ``make(t, fun, *static_args)()``."""
  curried = functools.partial(functools.partial, make)
  return functools.wraps(make)(lambda *args: curried(*args))


@_curried
def transformation2(gen: Callable, fun: WrappedFun, *gen_static_args) -> WrappedFun:
  """Apply ``gen(f_next, *gen_static_args, *args, **kwargs)`` on top of ``fun``."""
  return fun.wrap(gen, gen_static_args, None)


@_curried
def transformation_with_aux2(gen: Callable, fun: WrappedFun, *gen_static_args,
                             use_eq_store: bool = False,
                             unk_names: bool = False) -> tuple[WrappedFun, Callable]:
  """Apply ``gen(f_next, store, *gen_static_args, *args, **kwargs)``; return the wrapped
  function and a thunk reading what ``gen`` stored (after a call)."""
  if use_eq_store or unk_names:
    raise NotImplementedError("ember.extend.linear_util.transformation_with_aux2: "
                              "use_eq_store=True and unk_names=True are not supported.")
  store = Store()
  return fun.wrap(gen, gen_static_args, store), lambda: store.val


def _generator_step(gen: Callable) -> Callable:
  """A ``transformation`` generator as a ``transformation2`` function."""
  def step(f_next, *args, **kwargs):
    it = gen(*args, **kwargs)
    args_down, kwargs_down = next(it)
    return it.send(f_next(*args_down, **kwargs_down))
  step.__name__ = getattr(gen, "__name__", "transformation")
  return step


@_curried
def transformation(gen: Callable, fun: WrappedFun, *static_args) -> WrappedFun:
  """Apply a generator ``gen(*static_args, *args, **kwargs)`` on top of ``fun``: it yields
  ``(args, kwargs)`` for the function below, receives that function's result, and yields its
  own."""
  return fun.wrap(_generator_step(gen), static_args, None)


@_curried
def transformation_with_aux(gen: Callable, fun: WrappedFun,
                            *static_args) -> tuple[WrappedFun, Callable]:
  """As ``transformation``, but ``gen``'s second yield is ``(result, aux)``; returns the wrapped
  function and a thunk reading ``aux`` after a call."""
  step = _generator_step(gen)

  def with_aux(f_next, store, *args, **kwargs):
    out, aux = step(f_next, *args, **kwargs)
    store.store(aux)
    return out
  with_aux.__name__ = step.__name__
  store = Store()
  return fun.wrap(with_aux, static_args, store), lambda: store.val


def cache(call: Callable, *, explain: Callable | None = None) -> Callable:
  """Memoise ``call(fun: WrappedFun, *args)`` on the wrapped function and ``args`` (hashable).

  A hit fills ``fun``'s stores with the values the first call left. At most 4096 entries are
  kept (the oldest leaves first).

  Example:
      >>> from ember._src import linear_util as lu
      >>> calls = []
      >>> run = lu.cache(lambda fun, n: calls.append(n) or fun.call_wrapped(n))
      >>> f = lu.wrap_init(abs)
      >>> run(f, -2), run(f, -2), calls
      (2, 2, [-2])
  """
  if explain is not None:
    raise NotImplementedError("ember.extend.linear_util.cache: explain= is not supported.")
  memo = BoundedCache(4096)

  @functools.wraps(call)
  def memoized(fun: WrappedFun, *args):
    key = (fun, args)
    hit = memo.get(key)
    if hit is not None:
      ans, stores = hit
      fun.populate_stores(stores)
      return ans
    ans = call(fun, *args)
    memo[key] = (ans, fun.stores)
    return ans
  memoized.cache_clear = memo.clear
  return memoized


def merge_linear_aux(aux1: Callable, aux2: Callable):
  """The value of whichever of two store thunks was filled (exactly one must be)."""
  try:
    out1 = aux1()
  except StoreException:
    try:
      return False, aux2()
    except StoreException:
      raise StoreException("neither store occupied") from None
  try:
    aux2()
  except StoreException:
    return True, out1
  raise StoreException("both stores occupied")
