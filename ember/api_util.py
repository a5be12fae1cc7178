"""JAX 0.10.2's ``jax.api_util``: helpers for libraries that build transformations of their own
on ``ember.extend.linear_util`` (flattening a wrapped function's arguments and results, fixing
static arguments, working out which leaves are donated or mapped).

Example:
    >>> import ember
    >>> from ember import api_util
    >>> from ember._src import linear_util as lu
    >>> leaves, in_tree = ember.tree.flatten(((1, 2), {"k": 3}))
    >>> f, out_tree = api_util.flatten_fun(lu.wrap_init(lambda a, b, k: {"s": a + b + k}), in_tree)
    >>> f.call_wrapped(*leaves), out_tree()
    ([6], PyTreeSpec({'s': *}))
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

from ember import pytree
from ember._src import linear_util as lu
from ember.transforms.staging import DebugInfo, abstract_leaf, arg_names

__all__ = ["argnums_partial", "debug_info", "donation_vector", "flatten_axes", "flatten_fun",
           "flatten_fun_nokwargs", "rebase_donate_argnums", "safe_map", "shaped_abstractify"]


def shaped_abstractify(x):
  """The ``ShapedArray`` of an array, a tracer, a Python or NumPy scalar or a
  ``ShapeDtypeStruct``."""
  return abstract_leaf(x)


def safe_map(f: Callable, *seqs) -> list:
  """``list(map(f, *seqs))``, refusing sequences of different lengths."""
  seqs = [list(s) for s in seqs]
  for i, s in enumerate(seqs[1:], 1):
    if len(s) != len(seqs[0]):
      raise ValueError(f"safe_map: sequence {i} has length {len(s)}, sequence 0 has length "
                       f"{len(seqs[0])}")
  return list(map(f, *seqs))


@lu.transformation_with_aux2
def flatten_fun(f: Callable, store: lu.Store, in_tree, *args_flat):
  """``flatten_fun(fun, in_tree)``: ``fun`` (a ``WrappedFun``) of ``(args, kwargs)``, flattened
  to ``in_tree``, as a function of the leaves returning its output's leaves; also a thunk giving
  the output's tree after a call."""
  py_args, py_kwargs = pytree.unflatten(in_tree, args_flat)
  out_leaves, out_tree = pytree.flatten(f(*py_args, **py_kwargs))
  store.store(out_tree)
  return out_leaves


@lu.transformation_with_aux2
def flatten_fun_nokwargs(f: Callable, store: lu.Store, in_tree, *args_flat):
  """As ``flatten_fun``, for an ``in_tree`` of the positional arguments only."""
  out_leaves, out_tree = pytree.flatten(f(*pytree.unflatten(in_tree, args_flat)))
  store.store(out_tree)
  return out_leaves


def _index_tuple(argnums) -> tuple[int, ...]:
  if isinstance(argnums, int):
    return (operator.index(argnums),)
  return tuple(operator.index(i) for i in argnums)


def _hashable(x) -> bool:
  try:
    hash(x)
  except TypeError:
    return False
  return True


def _with_static(f: Callable, static_args: tuple, dyn_argnums: tuple, *dyn_args, **kwargs):
  it, statics = iter(dyn_args), iter(static_args)
  n = len(static_args) + len(dyn_args)
  full = [next(it) if i in dyn_argnums else next(statics) for i in range(n)]
  return f(*full, **kwargs)


def argnums_partial(f: lu.WrappedFun, dyn_argnums, args: Sequence,
                    require_static_args_hashable: bool = True) -> tuple[lu.WrappedFun, tuple]:
  """``f`` with the arguments not in ``dyn_argnums`` fixed to their values in ``args``; returns
  it and the dynamic arguments."""
  n = len(args)
  dyn = tuple(sorted({i % n if -n <= i < n else i for i in _index_tuple(dyn_argnums)}))
  for i in dyn:
    if not 0 <= i < n:
      raise ValueError(f"argnums_partial: argument number {i} is out of bounds for a call with "
                       f"{n} positional arguments.")
  statics = tuple(a for i, a in enumerate(args) if i not in dyn)
  if require_static_args_hashable:
    for i, a in enumerate(args):
      if i not in dyn and not _hashable(a):
        raise ValueError(
            "Non-hashable static arguments are not supported, as this can lead to unexpected "
            f"cache-misses. Static argument (index {i}) of type {type(a)} for function "
            f"{f.__name__} is non-hashable.")
  return (lu.transformation2(_with_static)(f, statics, frozenset(dyn)),
          tuple(args[i] for i in dyn))


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
  """Positions of the donated arguments among the non-static ones.

  >>> rebase_donate_argnums((3, 4), (0, 1))
  (1, 2)
  """
  static = sorted(set(static_argnums))
  out = set()
  for i in set(donate_argnums):
    if i in static:
      raise ValueError(f"static_argnums {static} and donate_argnums {sorted(donate_argnums)} "
                       "cannot intersect.")
    out.add(i - sum(s < i for s in static))
  return tuple(sorted(out))


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True
                    ) -> tuple[bool, ...]:
  """One bool per leaf of the ``(args, kwargs)`` (or, ``kws=False``, ``args``) tree
  ``in_tree``: whether that leaf is donated."""
  donate_argnums, donate_argnames = set(donate_argnums), set(donate_argnames or ())
  args_tree = in_tree.unflatten([object()] * in_tree.num_leaves)
  args, kwargs = args_tree if kws else (args_tree, {})
  count = lambda tree: pytree.tree_structure(tree).num_leaves  # noqa: E731
  out: list[bool] = []
  for i, a in enumerate(args):
    out += [i in donate_argnums] * count(a)
  for k in kwargs:
    out += [k in donate_argnames] * count(kwargs[k])
  return tuple(out)


def flatten_axes(name: str, treedef, axis_tree, *, kws: bool = False, tupled_args: bool = False
                 ) -> list:
  """``axis_tree`` (ints and Nones, a prefix of ``treedef``'s tree) repeated over each leaf."""
  full = treedef.unflatten([object()] * treedef.num_leaves)
  try:
    return pytree.broadcast_prefix(axis_tree, full, is_leaf=lambda x: x is None)
  except ValueError:
    if kws:
      full, axis_tree = full[0], axis_tree[0]
    raise ValueError(f"{name} specification must be a tree prefix of the corresponding value, "
                     f"got specification {axis_tree} for value tree "
                     f"{pytree.tree_structure(full)}.") from None


class InitialResultPaths:
  """The default of ``debug_info``'s ``result_paths_thunk``: the paths of the results are not
  known before tracing (JAX fills them in afterwards; ember's debug info has none)."""

  def __repr__(self):
    return "<ember.api_util.InitialResultPaths object>"


initial_result_paths = InitialResultPaths()


def debug_info(traced_for: str, fun: Callable, args: Sequence, kwargs: dict, *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
               result_paths_thunk: Any = initial_result_paths, sourceinfo: str | None = None,
               signature: Any = None) -> DebugInfo:
  """What error messages say about tracing ``fun`` for ``traced_for``: its name, source and the
  names of its (non-static) argument leaves."""
  if result_paths_thunk is initial_result_paths:
    result_paths_thunk = None  # ember's debug info records no result paths either way
  if result_paths_thunk is not None or sourceinfo is not None or signature is not None:
    raise NotImplementedError("ember.api_util.debug_info: result_paths_thunk=, sourceinfo= and "
                              "signature= are not supported.")
  args, kwargs = tuple(args), dict(kwargs)
  return DebugInfo(traced_for, fun, lambda: arg_names(fun, args, kwargs, tuple(static_argnums),
                                                      tuple(static_argnames)))
