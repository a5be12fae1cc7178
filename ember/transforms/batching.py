"""vmap: vectorizing a function over a batch axis by running it once on the whole batch.

A ``BatchTracer`` carries the batched value ``val`` and the position ``bdim`` of its batch axis in
``val`` (the tracer stands for one example, so its aval is ``val``'s without that axis). The
trace applies each primitive's ``batch`` rule, ``batch(axis, vals, dims, **params) -> (out,
out_dim)`` (lists of both for primitives with several results), with its parent trace installed:
``axis`` is the vmap's ``AxisData`` (name, size, spmd_axis_name), ``dims[i]`` an int or ``None``
(``not_mapped``) for operands that are the same for every example. When no operand is batched
the primitive is bound on the parent unchanged, unless the vmap's axis is one the primitive
names (its ``axis_names`` rule): primitives carrying jaxprs (jit, cond, custom_jvp...) name
every axis, since their bodies' collectives need the vmap's axis even for unbatched operands.

Collectives over named axes (``psum(x, 'i')`` inside ``vmap(..., axis_name='i')``) have a second
rule of the same signature: the trace that owns the name applies the primitive's
``batch_named`` rule, which turns the collective into ordinary array operations over the batch
axis, even for unbatched operands.

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.vmap(lambda x, y: jnp.dot(x, y), in_axes=(0, None))(jnp.ones((3, 2)), jnp.ones(2))
    Array([2., 2., 2.], dtype=float32)
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import optree

from ember import pytree
from ember.core.cache import BoundedCache
from ember.config import make_user_context
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, NameTransform
from ember._src.traceback_util import api_boundary
from ember.transforms.ops import ops

__all__ = ["AxisData", "BatchTrace", "BatchTracer", "vmap", "not_mapped", "batch_jaxpr", "moveaxis",
           "bump_dims",
           "bdim_at_front", "broadcast_dim", "batch_size", "broadcast_batcher",
           "vectorized_batcher", "matchaxis"]

not_mapped = None


class AxisData(NamedTuple):
  """The vmap's axis, the first argument of every batching rule."""
  name: Any
  size: int
  spmd_name: Any


class BatchTracer(core.Tracer):
  __slots__ = ("val", "bdim")

  def __init__(self, trace: "BatchTrace", val, bdim: int):
    self._trace = trace
    self.val = val
    self.bdim = bdim

  @property
  def aval(self) -> ShapedArray:
    a = core.get_aval(self.val)
    return a.update(shape=a.shape[:self.bdim] + a.shape[self.bdim + 1:])

  def _origin_msg(self) -> str:
    return getattr(self.val, "_origin_msg", lambda: "")()


class BatchTrace(core.Trace):
  """Batches over one axis of ``axis_size`` lanes, named ``axis_name`` (or anonymous).
  ``randomness`` is vmap's (None, or what samplers do with keys it does not batch)."""
  __slots__ = ("axis_name", "axis_size", "spmd_axis_name", "randomness")

  def __init__(self, parent: core.Trace, axis_name, axis_size: int, spmd_axis_name=None,
               randomness=None):
    super().__init__(parent)
    self.axis_name = axis_name
    self.axis_size = axis_size
    self.spmd_axis_name = spmd_axis_name
    self.randomness = randomness

  def __repr__(self):
    return f"BatchTrace(axis_name={self.axis_name}, axis_size={self.axis_size})"

  @property
  def axis_data(self) -> "AxisData":
    return AxisData(self.axis_name, self.axis_size, self.spmd_axis_name)

  def unpack(self, x):
    if isinstance(x, BatchTracer) and x._trace is self:
      return x.val, x.bdim
    return x, not_mapped

  def wrap(self, val, bdim):
    if bdim is not_mapped:
      return val
    return BatchTracer(self, val, bdim)

  def process_primitive(self, prim: core.Primitive, args: tuple, params: dict):
    vals, dims = [], []
    for x in args:
      v, d = self.unpack(x)
      vals.append(v)
      dims.append(d)
    names = prim.axis_names
    named = (self.axis_name is not None and names is not None
             and self.axis_name in names(params))
    with core.set_current_trace(self.parent):
      if named and prim.batch_named is not None:
        out, out_dim = prim.batch_named(self.axis_data, vals, dims, **params)
      elif not named and all(d is not_mapped for d in dims):
        return prim.bind(*vals, **params)
      else:
        if names is not core.refers_to_every_axis:
          # Shape errors name the user's (per-example) shapes, before rules renumber axes.
          prim.abstract(tuple([x.aval if d is not not_mapped else core.get_aval(x)
                               for x, d in zip(args, dims)]), params)
        out, out_dim = prim.rule("batch")(self.axis_data, vals, dims, **params)
    if prim.multiple_results:
      return [self.wrap(v, d) for v, d in zip(out, out_dim)]
    return self.wrap(out, out_dim)


# --- helpers for batching rules ---------------------------------------------------------------

def batch_size(vals: Sequence, dims: Sequence) -> int:
  """The batch size, read off the first batched operand."""
  for v, d in zip(vals, dims):
    if d is not not_mapped:
      return core.get_aval(v).shape[d]
  raise ValueError("batch_size: no operand is batched")


def bump_dims(dims: Sequence[int], at: int) -> tuple[int, ...]:
  """``dims`` renumbered for a new axis inserted at position ``at``."""
  return tuple(d + (d >= at) for d in dims)


def moveaxis(x, src: int, dst: int):
  """``x`` with axis ``src`` moved to position ``dst`` (no-op when they agree)."""
  ndim = len(core.get_aval(x).shape)
  src, dst = src % ndim, dst % ndim
  if src == dst:
    return x
  perm = [i for i in range(ndim) if i != src]
  perm.insert(dst, src)
  return ops.transpose(x, tuple(perm))


def broadcast_dim(x, size: int, dim: int):
  """``x`` with a new axis of ``size`` inserted at ``dim`` (every slice a copy of ``x``); its
  broadcast_dimensions are NumPy ints, as JAX's batching rules print them."""
  a = core.get_aval(x)
  shape = a.shape[:dim] + (size,) + a.shape[dim:]
  dims = tuple(np.delete(np.arange(len(shape)), dim))
  return ops.broadcast_in_dim(x, shape, dims)


def matchaxis(x, src, dst: int, size: int):
  """``x`` batched at ``dst``: move its batch axis there, or broadcast when it has none."""
  if src is not_mapped:
    return broadcast_dim(x, size, dst)
  return moveaxis(x, src, dst)


def bdim_at_front(x, bdim, size: int):
  return matchaxis(x, bdim, 0, size)


def _example_shape(x, d) -> tuple[int, ...]:
  shape = core.get_aval(x).shape
  return shape if d is not_mapped else shape[:d] + shape[d + 1:]


def vectorized_batcher(prim: core.Primitive) -> Callable:
  """The rule of a unary op that acts on each element (or along axes its params don't name)."""
  def rule(axis, vals, dims, **params):
    return prim.bind(*vals, **params), dims[0]
  return rule


def _size_one_front(x):
  """An unbatched operand with a leading axis of size 1 (rank-0 operands stay as they are)."""
  return broadcast_dim(x, 1, 0) if core.get_aval(x).shape else x


def broadcast_batcher(prim: core.Primitive) -> Callable:
  """The rule of an elementwise op whose rank-0 operands broadcast: when every batched operand
  has the same shape and batch axis and the others are rank 0, bind as is; otherwise move batch
  axes to the front and broadcast the unbatched operands."""
  def rule(axis, vals, dims, **params):
    shapes = {(core.get_aval(v).shape, d) for v, d in zip(vals, dims)
              if d is not not_mapped or core.get_aval(v).shape}
    if len(shapes) == 1:
      (_, d), = shapes
      if d is not not_mapped:
        out = prim.bind(*vals, **params)
        return out, ([d] * len(out) if prim.multiple_results else d)
    # Batch axes go to the front; the other operands get a size-1 axis there (or stay rank 0),
    # and the op broadcasts size-1 axes as it does for jnp's rank-promoted operands. Both are
    # broadcast_in_dim, printed as JAX prints them (the unbatched operand's dims as NumPy ints).
    args = [_size_one_front(v) if d is not_mapped else moveaxis(v, d, 0)
            for v, d in zip(vals, dims)]
    rank = max(len(core.get_aval(v).shape) for v in args)
    args = [v if d is not_mapped or len(core.get_aval(v).shape) == rank
            else ops.expand_dims(v, tuple(range(len(core.get_aval(v).shape), rank)))
            for v, d in zip(args, dims)]
    out = prim.bind(*args, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)
  return rule


# --- batching a jaxpr (the rule of call primitives) --------------------------------------------

def _batched_aval(a: ShapedArray, d, size: int) -> ShapedArray:
  if d is not_mapped:
    return a
  return a.update(shape=a.shape[:d] + (size,) + a.shape[d:])


def batch_jaxpr(closed: ClosedJaxpr, size: int, in_dims: Sequence, axis_name=None,
                spmd_axis_name=None, out_dims_at: Sequence | None = None):
  """The jaxpr of ``vmap(closed)`` over batched inputs at ``in_dims``: returns
  ``(batched ClosedJaxpr with hoisted consts, consts, out_dims)``. With ``out_dims_at``, each
  output is moved (or broadcast) to that axis (None entries stay as they come)."""
  from ember.core.jaxpr import hoist_consts
  from ember.transforms.staging import trace_to_jaxpr
  key = (closed, tuple(in_dims), size, axis_name, spmd_axis_name,
         None if out_dims_at is None else tuple(out_dims_at), core.axis_env())
  hit = _jaxpr_cache.get(key)
  if hit is not None:
    return hit
  out_dims_box = []

  def fun(*xs):
    trace = BatchTrace(core.current_trace(), axis_name, size, spmd_axis_name)
    ins = [trace.wrap(x, d) for x, d in zip(xs, in_dims)]
    with core.set_current_trace(trace):
      outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
    vals, dims = [], []
    for o, want in zip(outs, out_dims_at or [None] * len(outs)):
      v, d = trace.unpack(o)
      if want is not None:
        v, d = matchaxis(v, d, want, size), want
      vals.append(v)
      dims.append(d)
    out_dims_box.append(tuple(dims))
    return vals

  with _named(axis_name, size):
    new = trace_to_jaxpr(fun, [_batched_aval(a, d, size)
                                  for a, d in zip(closed.in_avals, in_dims)])
  batched, consts = hoist_consts(new)
  out = _jaxpr_cache[key] = (batched, consts, out_dims_box[0])
  return out


def _named(axis_name, size):
  if axis_name is None:
    return contextlib.nullcontext()
  return core.extend_axis_env(axis_name, size)


_jaxpr_cache = BoundedCache(512)  # batched jaxprs of call primitives, by jaxpr, dims and axis


# --- vmap ------------------------------------------------------------------------------------

_IN_AXES_MSG = ("vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                "positional arguments passed to the function")


# --- types vmap maps as one value ---------------------------------------------------------------
# A registered type (a sparse array, say) is not mapped leaf by leaf: ``to_elt(cont, size, x,
# axis)`` builds the per-example value from ``cont(leaf, leaf_axis)`` (a batched leaf), and
# ``from_elt(cont, size, x, axis)`` the batched output from ``cont(size, leaf, leaf_axis)``.
_vmappables: dict[type, tuple[Callable, Callable]] = {}


def register_vmappable(data_type: type, spec_type, axis_size_type, to_elt: Callable,
                       from_elt: Callable, make_iota=None) -> None:
  """Map values of ``data_type`` as a whole under vmap (JAX's ``register_vmappable``)."""
  if spec_type is not int or axis_size_type is not int or make_iota is not None:
    raise NotImplementedError(
        "register_vmappable: ember maps registered types with int axes and sizes only; "
        f"got spec_type={spec_type!r}, axis_size_type={axis_size_type!r}, "
        f"make_iota={make_iota!r} (pass int, int and None).")
  _vmappables[data_type] = (to_elt, from_elt)


def _is_vmappable(x) -> bool:
  return type(x) in _vmappables


def _shape_of(x) -> tuple:
  return tuple(x.shape) if _is_vmappable(x) else core.get_aval(x).shape


def _check_axes_spec(spec, what: str):
  bad = [x for x in optree.tree_leaves(spec, none_is_leaf=True, namespace=pytree.NAMESPACE)
         if x is not None and not (isinstance(x, (int, np.integer)) and not isinstance(x, bool))]
  if bad:
    raise TypeError(f"vmap {what} must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {spec}.")


def prefix_leaves(spec, tree, what: str, transform: str = "vmap", is_leaf=None) -> list:
  """One entry of ``spec`` (a pytree prefix of ``tree`` with None and ints as leaves) for each
  leaf of ``tree`` (flattened with ``is_leaf``): vmap's and pmap's in_axes and out_axes."""
  try:
    if is_leaf is None:
      return pytree.broadcast_prefix(spec, tree, is_leaf=lambda x: x is None)
    specs, spec_def = pytree.flatten(spec, lambda x: x is None)
    return [s for s, sub in zip(specs, spec_def.flatten_up_to(tree))
            for _ in pytree.flatten(sub, is_leaf)[0]]
  except ValueError:
    head = (f"{transform} {what} specification must be a tree prefix of the corresponding value; "
            f"got {what}={spec!r} for a value of structure {pytree.flatten(tree)[1]}.")
    detail = pytree._structure_error(spec, tree, (), f"{transform} {what}",
                                     lambda x: x is None or (is_leaf is not None and is_leaf(x)))
    if detail is not None:
      head += f"\n  Mismatch details (the first found):\n  {detail}"
      if what == "in_axes":
        head += (f"\n\nHere the full pytree is the tuple of arguments passed positionally to the "
                 f"{transform}ped function, and `in_axes` must be a tree prefix of it.")
    raise ValueError(head) from None


def _describe_arg(names: list[str], i: int) -> str:
  return f"argument {names[i]}" if i < len(names) and names[i] else f"argument at position {i}"


def _leaf_names(fun, args, kwargs) -> list[str]:
  from ember.transforms.staging import arg_names
  try:
    return list(arg_names(fun, args, kwargs))
  except Exception:  # noqa: BLE001 (names only decorate the message)
    return []


def _mapped_size(fun, args, kwargs, leaves, axes, axis_size) -> int:
  sizes = []
  for x, ax in zip(leaves, axes):
    if ax is None:
      continue
    sizes.append(_shape_of(x)[ax])
  if axis_size is not None:
    sizes_set = set(sizes)
    if sizes_set and sizes_set != {axis_size}:
      raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped: axis_size="
                       f"{axis_size} was given but the mapped axes have sizes "
                       f"{sorted(sizes_set)}.")
    return int(axis_size)
  if not sizes:
    raise ValueError("vmap must have at least one non-None value in in_axes or axis_size must "
                     "be specified")
  if len(set(sizes)) > 1:
    names = _leaf_names(fun, args, kwargs)
    lines = []
    for i, (x, ax) in enumerate(zip(leaves, axes)):
      if ax is None:
        continue
      a = x if _is_vmappable(x) else core.get_aval(x)
      lines.append(f"  * one axis had size {a.shape[ax]}: axis {ax} of "
                   f"{_describe_arg(names, i)} of type "
                   f"{a if _is_vmappable(x) else a.str_short(short_dtypes=False)}")
    raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                     + ";\n".join(lines))
  return sizes[0]


def _normalize_in_axis(x, ax) -> int | None:
  if ax is None:
    return None
  try:
    shape = _shape_of(x)
  except TypeError:
    raise TypeError(f"vmap was passed an argument of type {type(x).__name__} that is not an "
                    f"array, a NumPy value or a Python scalar: {x!r}. Pass arrays, or mark "
                    "the argument unbatched with in_axes=None and close over it.") from None
  ndim = len(shape)
  if not -ndim <= ax < ndim:
    raise ValueError(f"vmap was requested to map its argument along axis {ax}, which implies "
                     f"that its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is "
                     f"only {ndim} (its shape is {shape})")
  return ax % ndim


_VMAP = NameTransform("vmap")  # staged equations are named vmap(scope), as in JAX
_RANDOMNESS = (None, "error", "different", "same")
# The randomness modes in effect key traced functions (a cond branch traced under "different"
# draws per-example keys), so they are part of jit's and control flow's cache keys.
_randomness_modes = make_user_context(())


def _drawing(randomness):
  if randomness in ("error", "different"):
    return _randomness_modes(_randomness_modes.value + (randomness,))
  return contextlib.nullcontext()

# Called as hook((args, kwargs), (per-example args, kwargs)) once vmap has made the arguments
# its function receives (ember.random links the typed keys there to the keys passed in).
arg_hooks: list[Callable] = []


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name=None,
         axis_size: int | None = None, spmd_axis_name=None, sum_match: bool = False, *,
         randomness: str | None = None) -> Callable:
  """Vectorize ``fun`` over a batch axis of its inputs.

  Args:
    fun: the function to map over leading (or ``in_axes``) axes of its arguments.
    in_axes: an int, None, or a tuple (one entry per positional argument) of pytree prefixes
      with ints and None as leaves: the axis of each argument to map over; None broadcasts it.
      Keyword arguments are always mapped over their axis 0.
    out_axes: like ``in_axes``, for the outputs: where the batch axis goes in each output.
    axis_name: a name for the batch axis, for collectives (``lax.psum(x, axis_name)``...).
    axis_size: the batch size, required only when no argument is mapped.
    spmd_axis_name: mesh axis name(s) the batch dimension is split over in the sharding
      constraints (``with_sharding_constraint``) inside ``fun``.
    sum_match: when True, an output that is batched but whose out_axes entry is None is summed
      over the batch axis (instead of an error).
    randomness: what a sampler in ``fun`` does with a key this vmap does not batch (closed
      over, or passed with in_axes None), as torch.func's vmap defines it (JAX has no such
      argument): ``"same"`` draws the same numbers for every example (JAX's behaviour, and the
      default); ``"different"`` draws example ``i`` from ``random.split(key, axis_size)[i]``;
      ``"error"`` raises ``RuntimeError`` naming the sampler. See ``ember/random/_vmap_randomness.py``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.vmap(jnp.sum, in_axes=1)(jnp.ones((2, 3)))
      Array([2., 2., 2.], dtype=float32)
      >>> key = ember.random.key(0)
      >>> ember.vmap(lambda x: x + ember.random.uniform(key), randomness="different")(
      ...     jnp.zeros(2))
      Array([0.8423141 , 0.00729382], dtype=float32)
  """
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun!r}")
  if randomness not in _RANDOMNESS:
    raise ValueError(f"vmap randomness must be 'error', 'different' or 'same', got "
                     f"{randomness!r}.")
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)
  if not (in_axes is None or isinstance(in_axes, (int, np.integer, tuple))) or \
      isinstance(in_axes, bool):
    raise TypeError(f"{_IN_AXES_MSG}, but got {in_axes}.")
  _check_axes_spec(in_axes, "in_axes")
  _check_axes_spec(out_axes, "out_axes")

  @functools.wraps(fun)
  @api_boundary
  @core.leak_checked
  def vmap_f(*args, **kwargs):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
      raise ValueError(f"{_IN_AXES_MSG}, but got len(in_axes)={len(in_axes)}, "
                       f"len(args)={len(args)}")
    if not args and not kwargs and axis_size is None:
      raise ValueError("vmap wrapped function must be passed at least one argument containing "
                       "an array or axis_size must be specified, got empty *args=() and "
                       "**kwargs={}")
    is_leaf = _is_vmappable if _vmappables else None
    arg_leaves, arg_tree = pytree.flatten(args, is_leaf)
    kw_leaves, kw_tree = pytree.flatten(kwargs, is_leaf)
    axes = prefix_leaves(in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args),
                          args, "in_axes", is_leaf=is_leaf) + [0] * len(kw_leaves)
    leaves = arg_leaves + kw_leaves
    axes = [_normalize_in_axis(x, ax) for x, ax in zip(leaves, axes)]
    size = _mapped_size(fun, args, kwargs, leaves, axes, axis_size)
    trace = BatchTrace(core.current_trace(), axis_name, size, spmd_axis_name, randomness)
    ins = [_vmappables[type(x)][0](trace.wrap, size, x, ax) if is_leaf and is_leaf(x)
           else trace.wrap(x, ax) for x, ax in zip(leaves, axes)]
    in_args = pytree.unflatten(arg_tree, ins[:len(arg_leaves)])
    in_kwargs = pytree.unflatten(kw_tree, ins[len(arg_leaves):])
    for hook in arg_hooks:
      hook((args, kwargs), (in_args, in_kwargs))
    with _named(axis_name, size), core.set_current_trace(trace), \
        core.extend_name_stack(_VMAP), _drawing(randomness):
      out = fun(*in_args, **in_kwargs)
    out_leaves, out_tree = pytree.flatten(out, is_leaf)
    o_axes = prefix_leaves(out_axes, out, "out_axes", is_leaf=is_leaf)
    results = []
    for x, ax in zip(out_leaves, o_axes):
      if is_leaf and is_leaf(x):
        cont = lambda n, v, a: matchaxis(*trace.unpack(v), a, n)  # noqa: E731
        results.append(_vmappables[type(x)][1](cont, size, x, ax))
        continue
      val, d = trace.unpack(x)
      if ax is None:
        if d is not not_mapped and sum_match:
          results.append(val.sum(d))
          continue
        if d is not not_mapped:
          raise ValueError(f"at vmap out_axes, got axis spec None but output was batched on "
                           f"axis {d}")
        results.append(val)
        continue
      ndim = len(core.get_aval(val).shape) + (d is not_mapped)
      if not -ndim <= ax < ndim:
        raise ValueError(f"axis {ax} is out of bounds for array of dimension {ndim}")
      results.append(matchaxis(val, d, ax % ndim, size))
    return pytree.unflatten(out_tree, results)

  return vmap_f
