"""lax's collectives over named axes: psum, pmean, all_gather, ppermute, axis_index...

A named axis is bound by ``ember.vmap(f, axis_name='i')`` while ``f`` runs; a collective over
it combines the values of ``f``'s lanes (the examples of the batch). Each function maps over the
leaves of a pytree, checks that its axis names are bound and its static arguments fit the axis
size, and binds the primitive of ``ember.primitives.collectives``.

Where ember differs from JAX: negative ``scatter_dimension``, ``split_axis`` and ``concat_axis``
count from the end (JAX fails on them); under vmap, ``ppermute`` accepts partial permutations
(lanes that receive nothing get zeros, as under shard_map); an unbound name in ``pmax``/``pmin``
is reported with their own name. ``pvary`` is absent, as in JAX 0.10 (``pcast(x, axes,
to='varying')`` is its spelling).

Inside a ``shard_map`` body with ``check_vma=True`` (see ember/transforms/shard_map.py) the
collectives follow JAX 0.10.2's typing of values by the mesh axes they vary over: ``psum`` of a
value that does not vary over an axis first makes it vary (``pvary``: every device then adds the
same value, so the result is n times it) and binds ``psum_invariant``; ``pmax``, ``pmin``,
``all_gather``, ``psum_scatter``, ``all_to_all`` and ``ppermute`` likewise ``pvary`` their
operand over their axes first.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import lax
    >>> ember.vmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')(jnp.array([1., 3.]))
    Array([0.25, 0.75], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.trace import Tracer, get_aval
from ember.lax.reductions import _canonical_axis
from ember.primitives import collectives as coll

__all__ = ["all_gather", "all_gather_p", "all_to_all", "all_to_all_p", "axis_index",
           "axis_index_p", "axis_size", "pcast", "pmax", "pmax_p", "pmean", "pmin", "pmin_p",
           "ppermute", "ppermute_p", "pshuffle", "pswapaxes", "psum", "psum_p", "psum_scatter",
           "reduce_scatter_p", "with_sharding_constraint"]

psum_p, pmax_p, pmin_p = coll.psum_p, coll.pmax_p, coll.pmin_p
all_gather_p, reduce_scatter_p = coll.all_gather_p, coll.reduce_scatter_p
ppermute_p, all_to_all_p, axis_index_p = coll.ppermute_p, coll.all_to_all_p, coll.axis_index_p


def _check_bound(names, collective: str) -> None:
  """NameError for a name no enclosing vmap binds (worded as JAX: tracing suggests
  shard_map)."""
  for name in coll.named_axes(names):
    if core.axis_size(name) is None:
      if core.current_trace() is core.EVAL_TRACE:
        raise NameError(f"unbound axis name: {name}")
      raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                      f"{collective} under `jax.shard_map`.")


def _groups(axis_index_groups, axes=()):
  """``axis_index_groups`` as a tuple of tuples, checked to partition the lanes."""
  if axis_index_groups is None:
    return None
  if any(coll.is_positional(a) for a in axes):
    raise ValueError("axis_index_groups only supported for sums over just named axes")
  groups = tuple(tuple(operator.index(i) for i in g) for g in axis_index_groups)
  if sorted(i for g in groups for i in g) != list(range(sum(map(len, groups)))):
    raise ValueError("axis_index_groups must cover all indices exactly once")
  return groups


def _map(fn, x):
  leaves, tree = pytree.flatten(x)
  return pytree.unflatten(tree, [fn(leaf) for leaf in leaves])


# --- typing by varying manual axes (shard_map with check_vma) -----------------------------------

def _typed(names) -> bool:
  """Whether a collective over ``names`` follows shard_map's typing: its named axes are all
  manual axes of a checked body."""
  names = coll.named_axes(names)
  vma = core.vma_axes()
  return bool(names) and all(n in vma for n in names)


def _vary(v, names):
  """``v`` made to vary over the manual axes of ``names`` it does not vary over yet (what JAX
  inserts before a collective)."""
  missing = tuple(n for n in coll.named_axes(names) if n in core.vma_axes()
                  and n not in get_aval(v).vma)
  return coll.pvary(v, missing) if missing else v


def _vary_state(aval, axes, api_name: str) -> str:
  """'varying' or 'invarying': how ``aval`` relates to all of ``axes`` (JAX's error when they
  differ)."""
  states = {"varying" if a in aval.vma else "invarying" for a in axes}
  if len(states) > 1:
    raise ValueError(
        f"{api_name} can only accept axis_name which corresponds to one of varying, unreduced, "
        f"reduced or invarying state of the input. Got input type: "
        f"{aval.str_short(short_dtypes=False)}, axes: {tuple(axes)} and input state: "
        "{'varying', 'invarying'}")
  return states.pop()


# --- all-reduce ------------------------------------------------------------------------------

def _const_psum(x, axes, size: int):
  """psum of a value that is not traced: known now (``psum(1, 'i')`` is the axis size as a
  Python int, usable in Python control flow)."""
  from ember import lax
  positional = [a for a in axes if coll.is_positional(a)]
  if positional:
    x = lax.reduce_sum(x, [_canonical_axis(a, np.ndim(x)) for a in positional])
  return coll.psum_unmapped(x, size)


def psum(x, axis_name, *, axis_index_groups=None):
  """Sum of ``x`` over the lanes of the named axis (or axes) ``axis_name``, on every lane.

  ``axis_name`` may also hold ints: positional axes of ``x`` summed as by ``jnp.sum``. Bool
  values are summed as int32. When no leaf of ``x`` is traced, the sum is computed at once
  (``psum(1, 'i')`` is the size of axis ``'i'``).

  Args:
    x: a pytree of arrays.
    axis_name: a name bound by an enclosing ``vmap``, or a tuple of names and ints.
    axis_index_groups: partition of the lanes into groups summed separately (not supported
      under vmap, as in JAX).

  Raises:
    NameError: for an axis name no enclosing vmap binds.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.psum(x, 'i'), axis_name='i')(jnp.arange(3.))
      Array([3., 3., 3.], dtype=float32)
  """
  from ember import lax
  axes = coll.as_names(axis_name)
  if not axes:
    return x
  groups = _groups(axis_index_groups, axes)
  leaves, tree = pytree.flatten(x)
  if core.vma_axes():
    for v in leaves:
      _vary_state(get_aval(v), axes, "jax.lax.psum")
  leaves = [lax._convert_element_type(v, np.int32) if get_aval(v).dtype == np.bool_ else v
            for v in leaves]
  if not any(isinstance(v, Tracer) for v in leaves):
    size = coll.group_size(coll.named_axes(axes), groups)
    return pytree.unflatten(tree, [_const_psum(v, axes, size) for v in leaves])
  _check_bound(axes, "psum")
  if _typed(axes):
    if groups is not None:
      raise NotImplementedError("psum with axis_index_groups inside a shard_map body with "
                                "check_vma=True is not supported (as in JAX); pass "
                                "check_vma=False to shard_map.")
    return pytree.unflatten(tree, [coll.psum_invariant_p.bind(_vary(v, axes), axes=axes)
                                   for v in leaves])
  return pytree.unflatten(tree, [psum_p.bind(v, axes=axes, axis_index_groups=groups)
                                 for v in leaves])


def pmean(x, axis_name, *, axis_index_groups=None):
  """Mean of ``x`` over the lanes of ``axis_name``: ``psum`` divided by the number of lanes
  (integers give floats, as ``/`` does).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.pmean(x, 'i'), axis_name='i')(jnp.arange(4))
      Array([1.5, 1.5, 1.5, 1.5], dtype=float32)
  """
  total = psum(x, axis_name, axis_index_groups=axis_index_groups)
  n = psum(1, axis_name, axis_index_groups=axis_index_groups)
  return _map(lambda v: v / n, total)


def _extremum(prim, doc: str, example_result: str):
  def f(x, axis_name, *, axis_index_groups=None):
    axes = coll.as_names(axis_name)
    groups = _groups(axis_index_groups, axes)
    _check_bound(axes, prim.name)
    return _map(lambda v: prim.bind(_vary(v, axes), axes=axes, axis_index_groups=groups), x)
  f.__name__ = f.__qualname__ = prim.name
  f.__doc__ = (f"{doc} of ``x`` over the lanes of ``axis_name`` (names, and ints for "
               "positional axes), on every lane. Not differentiable, as in JAX.\n\n"
               "  Example:\n"
               "      >>> import ember, ember.numpy as jnp\n"
               "      >>> from ember import lax\n"
               f"      >>> ember.vmap(lambda x: lax.{prim.name}(x, 'i'), axis_name='i')("
               "jnp.array([1, 3, 2]))\n"
               f"      {example_result}\n  ")
  return f


pmax = _extremum(pmax_p, "Maximum", "Array([3, 3, 3], dtype=int32)")
pmin = _extremum(pmin_p, "Minimum", "Array([1, 1, 1], dtype=int32)")


# --- gathering and scattering ------------------------------------------------------------------

def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False,
               to: str = "varying"):
  """Every lane's ``x``, stacked along a new axis ``axis`` (concatenated along the existing
  ``axis`` when ``tiled``), on every lane.

  Inside a ``shard_map`` body with ``check_vma=True`` the result is typed as varying over
  ``axis_name`` (``to='varying'``, the default) or as invariant (``to='invarying'``, which
  transposes to each device's slice of the cotangent). ``to='reduced'`` is not supported.

  Raises:
    NameError: for an unbound axis name.
    ValueError: for ``axis`` out of bounds or an unknown ``to``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.all_gather(x, 'i'), axis_name='i')(jnp.arange(2))
      Array([[0, 1],
             [0, 1]], dtype=int32)
  """
  if to not in ("varying", "invarying", "reduced"):
    raise ValueError("Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values "
                     "are: {'varying', 'invarying', 'reduced'}")
  if to == "reduced":
    raise NotImplementedError("all_gather(..., to='reduced') is not supported: ember has no "
                              "reduced types.")
  names = coll.as_names(axis_name)
  if to == "invarying" and axis_index_groups is not None:
    raise NotImplementedError("all_gather(..., to='invarying') with axis_index_groups is not "
                              "supported (as in JAX).")
  groups = _groups(axis_index_groups)
  size = coll.group_size(names, groups)
  def bind(v):
    ndim = np.ndim(v)
    dim = _canonical_axis(axis, ndim if tiled else ndim + 1)
    v = _vary(v, names)
    if to == "invarying":
      return coll.all_gather_invariant_p.bind(v, all_gather_dimension=dim, axis_name=names,
                                              axis_size=size, tiled=bool(tiled))
    return all_gather_p.bind(v, all_gather_dimension=dim, axis_name=names,
                             axis_index_groups=groups, axis_size=size, tiled=bool(tiled))
  return _map(bind, x)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
  """``psum`` of ``x``, of which lane i keeps the i-th slice along ``scatter_dimension`` (the
  i-th block of ``size // n`` when ``tiled``).

  Raises:
    NameError: for an unbound axis name. ValueError: when ``x.shape[scatter_dimension]`` is not
      the axis size (a multiple of it when ``tiled``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.psum_scatter(x, 'i'), axis_name='i')(jnp.eye(2))
      Array([1., 1.], dtype=float32)
  """
  names = coll.as_names(axis_name)
  groups = _groups(axis_index_groups)
  size = coll.group_size(names, groups)
  def bind(v):
    shape = np.shape(v)
    dim = _canonical_axis(scatter_dimension, len(shape))
    coll.scattered_shape(shape, dim, size, tiled)
    return reduce_scatter_p.bind(_vary(v, names), scatter_dimension=dim, axis_name=names,
                                 axis_index_groups=groups, axis_size=size, tiled=bool(tiled))
  return _map(bind, x)


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
  """Lane i's ``x`` split into n blocks along ``split_axis``; lane j gets block j of every lane,
  stacked in lane order along ``concat_axis`` of the result (concatenated, when ``tiled``).

  Without ``tiled``, ``x.shape[split_axis]`` must equal the axis size n; the result has
  ``split_axis`` removed and an axis of size n inserted at ``concat_axis``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_name='i')(
      ...     jnp.arange(4).reshape(2, 2))
      Array([[0, 2],
             [1, 3]], dtype=int32)
  """
  from ember import lax
  if isinstance(axis_name, list):
    axis_name = tuple(axis_name)
  groups = _groups(axis_index_groups)
  size = coll.group_size(coll.as_names(axis_name), groups)
  def bind(v):
    ndim = np.ndim(v)
    split, concat = _canonical_axis(split_axis, ndim), _canonical_axis(concat_axis, ndim)
    n = np.shape(v)[split]
    if tiled and n % size:
      raise ValueError(f"The size of all_to_all split_axis ({n}) has to be divisible by the "
                       f"size of the named axis {axis_name} ({size})")
    if not tiled:
      if n != size:
        raise ValueError("all_to_all requires the size of the mapped axis axis_name to equal "
                         f"x.shape[split_axis], but they are {size} and {n} respectively.")
      # The primitive splits and concatenates existing axes: give concat_axis a unit axis
      # (its position counted after split_axis is removed) and drop split_axis's afterwards.
      if split != concat:
        concat += split < concat
        split += concat < split
        v = lax.expand_dims(v, (concat,))
    v = _vary(v, coll.as_names(axis_name))
    out = all_to_all_p.bind(v, split_axis=split, concat_axis=concat, axis_name=axis_name,
                            axis_index_groups=groups, tiled=bool(tiled))
    return out if tiled or split == concat else lax.squeeze(out, (split,))
  return _map(bind, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
  """Swaps the named axis ``axis_name`` with the positional axis ``axis``: ``all_to_all(x,
  axis_name, axis, axis)``, so ``x.shape[axis]`` must equal the named axis's size.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.pswapaxes(x, 'i', 0), axis_name='i')(
      ...     jnp.arange(4).reshape(2, 2))
      Array([[0, 2],
             [1, 3]], dtype=int32)
  """
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# --- permutations ------------------------------------------------------------------------------

def _check_perm(perm, size: int, names) -> tuple:
  pairs = []
  for pair in perm:
    pair = tuple(pair)
    if len(pair) != 2:
      raise ValueError(f"ppermute perm must be a sequence of (source, destination) pairs, got "
                       f"{pair} in {perm}.")
    for i in pair:
      if not -size <= operator.index(i) < size:
        raise IndexError(f"ppermute index {i} is out of bounds for axis "
                         f"{names[0] if len(names) == 1 else names} of size {size}")
    pairs.append(tuple(operator.index(i) for i in pair))
  pairs = tuple(pairs)
  for k in (0, 1):
    if len({p[k] % size for p in pairs}) != len(pairs):
      raise ValueError(f"ppermute sources and destinations must be unique, got {pairs}.")
  return pairs


def ppermute(x, axis_name, perm):
  """Send lane ``src``'s ``x`` to lane ``dst`` for each ``(src, dst)`` pair of ``perm``; lanes
  that receive nothing get zeros.

  Raises:
    NameError: for an unbound axis name. ValueError: for repeated sources or destinations.
    IndexError: for a lane index out of bounds.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 2)]), axis_name='i')(
      ...     jnp.array([1., 2., 3.]))
      Array([0., 1., 2.], dtype=float32)
  """
  names = coll.as_names(axis_name)
  _check_bound(names, "ppermute")
  perm = _check_perm(perm, coll.group_size(names, None), names)
  return _map(lambda v: ppermute_p.bind(_vary(v, names), axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
  """Lane i gets lane ``perm[i]``'s ``x`` (``perm`` a permutation of ``range(len(perm))``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.pshuffle(x, 'i', [2, 0, 1]), axis_name='i')(
      ...     jnp.array([1., 2., 3.]))
      Array([3., 1., 2.], dtype=float32)
  """
  if set(perm) != set(range(len(perm))):
    raise ValueError(f"`perm` does not represent a permutation: {perm}")
  return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# --- casts between varying and invariant types ---------------------------------------------------

def pcast(x, axis_name, *, to: str):
  """``x`` (a pytree) typed as varying over the mesh axes ``axis_name`` (``to='varying'``) inside
  a ``shard_map`` body: the device values are unchanged, and a gradient flowing back through it
  is summed over those axes. JAX's other targets (``'reduced'``, ``'unreduced'``) need reduced
  types, which ember does not have.

  Raises:
    TypeError: for a set of axis names.
    ValueError: for an unknown ``to``, for a value that already varies over ``axis_name``, or
      outside ``shard_map``.
    NameError: for an unbound name.
    NotImplementedError: for ``to='reduced'`` and ``to='unreduced'``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> f = ember.shard_map(lambda w: ember.lax.pcast(w, "i", to="varying"), mesh=mesh,
      ...                     in_specs=P(), out_specs=P("i"))
      >>> print(ember.make_jaxpr(f)(jnp.ones(2)).eqns[0].params["jaxpr"])
      { lambda ; a:f32[2]. let b:f32[2]{V:i} = pvary[axes=('i',)] a in (b,) }
  """
  if isinstance(axis_name, (set, frozenset)):
    raise TypeError(f"axis_name={axis_name} must be a tuple or a str. Got {axis_name}")
  axes = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
  if not axis_name:
    return x
  if to not in ("unreduced", "reduced", "varying"):
    raise ValueError("Got unexpected `to` value. Allowed `to` values are: {'varying', "
                     "'reduced', 'unreduced'}")

  def cast(v):
    state = _vary_state(get_aval(v), axes, "jax.lax.pcast")
    if to != "varying":
      raise NotImplementedError(f"pcast(..., to={to!r}) is not supported: ember has no "
                                "reduced or unreduced types.")
    if state == "varying":
      raise ValueError(f"Unsupported pcast from=varying, to={to!r}")
    manual = core.manual_axes_in_scope()
    if not core.vma_axes() and manual and all(a in manual for a in axes):
      return v  # an unchecked body: nothing is typed
    order = [a for a in manual if a in axes] + [a for a in axes if a not in manual]
    return coll.pvary(v, tuple(order))
  return _map(cast, x)


# --- lane indices ------------------------------------------------------------------------------

def axis_index(axis_name):
  """The index of the current lane along ``axis_name`` (int32); for a tuple of names, the index
  in their product, the last name varying fastest.

  Example:
      >>> import ember
      >>> from ember import lax
      >>> ember.vmap(lambda: lax.axis_index('i'), axis_name='i', axis_size=3)()
      Array([0, 1, 2], dtype=int32)
  """
  if not isinstance(axis_name, (tuple, list)):
    _check_bound((axis_name,), "axis_index")
    return axis_index_p.bind(axis_name=axis_name)
  index, inner = 0, 1
  for name in reversed(axis_name):
    index = index + axis_index(name) * inner
    inner *= axis_size(name)
  return index


def axis_size(axis_name) -> int:
  """The number of lanes of ``axis_name`` (the product, for a tuple of names), as an int.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: x * lax.axis_size('i'), axis_name='i')(jnp.ones(2))
      Array([2., 2.], dtype=float32)
  """
  return psum(1, axis_name)


def with_sharding_constraint(x, shardings):
  """``x`` (a pytree) with each leaf's layout over a mesh pinned to ``shardings`` (one
  NamedSharding, or a pytree prefix of ``x`` of them). Eagerly it reshards; under ``jit`` it
  constrains XLA's SPMD partitioner.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> y = ember.jit(lambda x: ember.lax.with_sharding_constraint(x * 2, NamedSharding(
      ...     mesh, P("i"))))(jnp.arange(4.0))
      >>> y.sharding.spec, y
      (P('i',), Array([0., 2., 4., 6.], dtype=float32))
  """
  from ember.backend.sharding import NamedSharding
  from ember.primitives.sharding_constraint import sharding_constraint_p
  leaves, tree = pytree.flatten(x)
  per_leaf = pytree.broadcast_prefix(shardings, x, is_leaf=lambda s: s is None or
                                     isinstance(s, NamedSharding))
  for s in per_leaf:
    if not isinstance(s, NamedSharding):
      raise TypeError(f"with_sharding_constraint expects NamedShardings, got {s!r}; build one "
                      "with ember.sharding.NamedSharding(mesh, P(...)).")
  return pytree.unflatten(tree, [
      sharding_constraint_p.bind(v, sharding=s, layout=None, unconstrained_dims=frozenset())
      for v, s in zip(leaves, per_leaf)])
