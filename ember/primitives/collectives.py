"""Collective primitives: operations across the lanes of a named axis.

A collective names the axes it acts over (``vmap(f, axis_name='i')`` binds ``'i'`` while ``f``
runs). Its ``axis_names(params)`` lists them, and the vmap trace that owns one of those names
applies the primitive's ``batch_named`` rule, which turns the collective into ordinary array
operations over the batch axis, even when the operand is not batched (every lane then holds the
same value). Traces of other axes apply the ordinary ``batch`` rule: the collective acts on each
of their examples, so it only shifts its positional parameters past their batch axis.

- ``psum``, ``pmax``, ``pmin`` (params ``axes``, ``axis_index_groups``): all-reduce over the
  named axes in ``axes``. ``axes`` may also hold ints, positional axes of the operand reduced as
  by ``reduce_sum``/``reduce_max``/``reduce_min``; vmap turns a named axis into the positional
  batch axis, so ``psum(x, 'i')`` under ``vmap`` becomes ``psum[axes=(0,)]``, as in JAX. psum is
  linear and transposes to itself (psum, then broadcast back over positional axes: as in JAX
  without shard_map's varying-axes checks); pmax and pmin have no derivative (as in JAX).
- ``all_gather`` (params ``all_gather_dimension``, ``axis_name``, ``axis_index_groups``,
  ``axis_size``, ``tiled``): every lane gets all lanes' values, stacked along a new axis (or
  concatenated along an existing one when tiled). Transposes to ``reduce_scatter``.
- ``reduce_scatter`` (``lax.psum_scatter``; params ``scatter_dimension``, ``axis_name``,
  ``axis_index_groups``, ``axis_size``, ``tiled``): sums over the lanes, and lane i keeps the
  i-th slice (block, when tiled) along ``scatter_dimension``. Transposes to ``all_gather``.
- ``ppermute`` (params ``axis_name``, ``perm``): lane ``dst`` gets lane ``src``'s value for each
  ``(src, dst)`` pair; lanes that receive nothing get zeros. Transposes to the inverse ppermute.
- ``all_to_all`` (params ``split_axis``, ``concat_axis``, ``axis_name``, ``axis_index_groups``,
  ``tiled``): lane i splits its value into n blocks along ``split_axis`` and sends block j to
  lane j, which concatenates the n blocks it receives along ``concat_axis`` (``lax.all_to_all``
  inserts and removes unit axes around it when not tiled). Transposes to itself with the two
  axes swapped. Its output shape depends on the size of its axis, which is not among its
  params (as in JAX), so its abstract evaluation reads the axis sizes in scope.
- ``axis_index`` (param ``axis_name``): the lane's index along one named axis, int32.

Inside a ``shard_map`` body with ``check_vma=True`` values are typed by the mesh axes they vary
over (``ShapedArray.vma``, printed ``f32[2]{V:i}``), as in JAX 0.10.2, and three more primitives
appear:

- ``pvary`` (param ``axes``): the same value, now typed as varying over ``axes`` too (a no-op on
  the device). Standard operations insert it on operands that vary over fewer axes than the
  others, so ``w * x`` with a replicated ``w`` and a sharded ``x`` reads ``pvary w``. Its
  transpose is ``psum_invariant``: the cotangent of a value every device shares is the sum of
  the devices' cotangents.
- ``psum_invariant`` (param ``axes``): psum of a value varying over ``axes``, typed invariant
  over them (``lax.psum`` binds it in checked bodies, after a ``pvary`` when the value did not
  vary: then every device adds the same value, n times). It transposes to ``pvary``.
- ``all_gather_invariant`` (``lax.all_gather(..., to='invarying')``): all_gather typed invariant
  over its axes; it transposes to each device's slice of the cotangent.

The other collectives keep their operand's axes (``pmax``/``pmin`` drop theirs), and
``axis_index`` varies over its axis.

Inside ``shard_map`` the named axes are mesh axes, and each collective lowers to StableHLO's
cross-device op (all_reduce, all_gather, reduce_scatter, collective_permute, all_to_all;
``axis_index`` reads the partition id) with replica groups of partition ids read off the mesh
(``replica_groups``). Over positional axes alone, psum/pmax/pmin lower as reductions.
"""
from __future__ import annotations

import functools

import numpy as np

from ember.core import trace as core
from ember.core.aval import ManualAxes, ShapedArray
from ember.core.trace import NOT_LINEAR, NO_OPERANDS, Primitive, get_aval
from ember.primitives import reductions as red
from ember.transforms import batching
from ember.transforms.ad_util import deflinear_unary

__all__ = []  # primitives are reached through ember.lax


# --- shared helpers -------------------------------------------------------------------------

def as_names(axis_name) -> tuple:
  """An axis name, or a tuple or list of them, as a tuple."""
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def is_positional(axis) -> bool:
  return isinstance(axis, (int, np.integer)) and not isinstance(axis, bool)


def named_axes(axes) -> tuple:
  return tuple(a for a in axes if not is_positional(a))


def group_size(names: tuple, axis_index_groups) -> int:
  """The number of lanes a collective over ``names`` spans; NameError for an unbound name."""
  if axis_index_groups is not None:
    return len(axis_index_groups[0])
  size = 1
  for name in names:
    n = core.axis_size(name)
    if n is None:
      raise NameError(f"unbound axis name: {name}")
    size *= n
  return size


def _without(vma: ManualAxes, names) -> ManualAxes:
  return ManualAxes(a for a in vma.names if a not in names)


def _check_names_bound(axes, api_name: str) -> None:
  """JAX's NameError for a collective over a name no shard_map (or vmap) binds."""
  for name in named_axes(axes):
    if core.axis_size(name) is None:
      raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                      f"{api_name} under `jax.shard_map`.")


# --- lowering to cross-device collectives (inside shard_map) ----------------------------------

def _mesh(ctx, prim: str):
  """The mesh of the shard_map body being lowered; a clear error outside one."""
  mesh = ctx.module_context.get("mesh")
  if mesh is None or not ctx.module_context.get("manual"):
    raise NotImplementedError(
        f"{prim} over named axes compiles to a cross-device collective only inside "
        "ember.shard_map; under ember.vmap(..., axis_name=...) it becomes array operations "
        "over the batch axis.")
  return mesh


def replica_groups(mesh, names: tuple, axis_index_groups=None) -> np.ndarray:
  """Device positions (partition ids) grouped by the mesh coordinates outside ``names``; within
  a group, ordered by the coordinates along ``names`` (the first name most significant)."""
  sizes = mesh.axis_sizes
  idx = [mesh.axis_names.index(n) for n in names]
  rest = [i for i in range(len(sizes)) if i not in idx]
  n = int(np.prod([sizes[i] for i in idx], dtype=np.int64))
  groups = np.arange(mesh.size).reshape(sizes).transpose(rest + idx).reshape(-1, n)
  if axis_index_groups is not None:  # split each group by the lane indices given
    groups = np.concatenate([groups[:, list(g)] for g in axis_index_groups], axis=0)
  return groups


def _groups_attrs(ctx, groups: np.ndarray) -> dict:
  """Replica groups, and one channel for every collective, as JAX lowers them: devices that
  take different branches of a ``cond`` (a predicate varying over the mesh) still meet at the
  branches' collectives."""
  rows = ", ".join("[" + ", ".join(str(int(d)) for d in g) + "]" for g in groups)
  return {"replica_groups": f"dense<[{rows}]> : tensor<{groups.shape[0]}x{groups.shape[1]}xi64>",
          "channel_handle": "#stablehlo.channel_handle<handle = 1, type = 1>",
          "use_global_device_ids": "unit"}


def _all_reduce(ctx, x, names, axis_index_groups, op_name: str, prim: str):
  from ember.primitives.reductions import binary_region
  mesh = _mesh(ctx, prim)
  groups = replica_groups(mesh, names, axis_index_groups)
  return ctx.op1("stablehlo.all_reduce", [x], x.aval, _groups_attrs(ctx, groups),
                 regions=[binary_region(ctx, x.aval, op_name)])


def _all_gather_lower(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups,
                      axis_size, tiled):
  mesh = _mesh(ctx, "all_gather")
  dim = all_gather_dimension
  if not tiled:  # gather blocks of one along a new unit axis
    shape = x.aval.shape
    x = ctx.op1("stablehlo.reshape", [x], x.aval.update(shape=shape[:dim] + (1,) + shape[dim:]))
  attrs = {"all_gather_dim": f"{dim} : i64",
           **_groups_attrs(ctx, replica_groups(mesh, as_names(axis_name), axis_index_groups))}
  return ctx.op1("stablehlo.all_gather", [x], ctx.avals_out[0], attrs)


def _reduce_scatter_lower(ctx, x, *, scatter_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
  from ember.primitives.reductions import binary_region
  mesh = _mesh(ctx, "psum_scatter")
  dim = scatter_dimension
  out = ctx.avals_out[0]
  block = out if tiled else out.update(shape=out.shape[:dim] + (1,) + out.shape[dim:])
  attrs = {"scatter_dimension": f"{dim} : i64",
           **_groups_attrs(ctx, replica_groups(mesh, as_names(axis_name), axis_index_groups))}
  y = ctx.op1("stablehlo.reduce_scatter", [x], block, attrs,
              regions=[binary_region(ctx, x.aval, "stablehlo.add")])
  return y if tiled else ctx.op1("stablehlo.reshape", [y], out)


def _ppermute_lower(ctx, x, *, axis_name, perm):
  mesh = _mesh(ctx, "ppermute")
  groups = replica_groups(mesh, as_names(axis_name))
  pairs = [(int(g[src]), int(g[dst])) for g in groups for src, dst in perm]
  attrs = _groups_attrs(ctx, groups)
  rows = ", ".join(f"[{a}, {b}]" for a, b in pairs)
  return ctx.op1("stablehlo.collective_permute", [x], x.aval, {
      "source_target_pairs": f"dense<[{rows}]> : tensor<{len(pairs)}x2xi64>",
      "channel_handle": attrs["channel_handle"]})


def _all_to_all_lower(ctx, x, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
  mesh = _mesh(ctx, "all_to_all")
  groups = replica_groups(mesh, as_names(axis_name), axis_index_groups)
  attrs = {"split_dimension": f"{split_axis} : i64", "concat_dimension": f"{concat_axis} : i64",
           "split_count": f"{groups.shape[1]} : i64", **_groups_attrs(ctx, groups)}
  del attrs["use_global_device_ids"]
  return ctx.op1("stablehlo.all_to_all", [x], ctx.avals_out[0], attrs)


def _axis_index_lower(ctx, *, axis_name):
  """The partition id's coordinate along ``axis_name``: (id // stride) % size."""
  mesh = _mesh(ctx, "axis_index")
  i = mesh.axis_names.index(axis_name)
  stride = int(np.prod(mesh.axis_sizes[i + 1:], dtype=np.int64))
  i32 = ShapedArray((), np.dtype(np.int32))
  pid = ctx.op1("stablehlo.partition_id", [], ShapedArray((), np.dtype(np.uint32)))
  k = ctx.op1("stablehlo.convert", [pid], i32)
  k = ctx.op1("stablehlo.divide", [k, ctx.constant(stride, i32)], i32)
  return ctx.op1("stablehlo.remainder", [k, ctx.constant(mesh.axis_sizes[i], i32)], i32)


def _no_groups(axis_index_groups,
               msg: str = "vmap collectives. Please open a feature request!") -> None:
  if axis_index_groups is not None:
    raise NotImplementedError(f"axis_index_groups not supported in {msg}")


def _one_axis(name, names: tuple, prim: str) -> None:
  """vmap applies these collectives over a single named axis (JAX's vmap fails on several)."""
  if names != (name,):
    raise NotImplementedError(
        f"{prim} over several vmapped axes {names} is not supported; apply it to one axis name "
        "at a time.")


def _shift(axis: int, bdim: int) -> int:
  """The position in a batched value (batch axis at ``bdim``) of an example's ``axis``."""
  return axis + (axis >= bdim)


# --- psum, pmax, pmin -------------------------------------------------------------------------

def _reduce_abstract_eval(x: ShapedArray, *, axes, axis_index_groups) -> ShapedArray:
  positional = tuple(a for a in axes if is_positional(a))
  red._check_axes(x, positional)
  return ShapedArray(red._reduced_shape(x.shape, positional), x.dtype, x.weak_type)


def _reduce_lower_rule(prim_name: str, kind: str, op_name: str):
  """Over positional axes alone, the collective is a reduction of the operand."""
  reduce = red._reduce_lower_rule(kind, op_name)

  def lower(ctx, x, *, axes, axis_index_groups):
    positional = tuple(a for a in axes if is_positional(a))
    x = reduce(ctx, x, axes=positional)
    names = named_axes(axes)
    if names:
      x = _all_reduce(ctx, x, names, axis_index_groups, op_name, prim_name)
    return x
  return lower


def _reduce_batch(axis, vals, dims, *, axes, axis_index_groups, prim):
  """Per example: shift the positional axes past the batch axis; the batch axis stays, moved
  left by the positional axes reduced before it."""
  (x,), (d,) = vals, dims
  out = prim.bind(x, axes=tuple(_shift(a, d) if is_positional(a) else a for a in axes),
                  axis_index_groups=axis_index_groups)
  return out, d - sum(1 for a in axes if is_positional(a) and a < d)


def psum_unmapped(x, size: int):
  """psum over ``size`` lanes that all hold ``x``: ``size * x``, a Python number for a Python
  number (weakly typed, as in JAX)."""
  from ember import lax
  if isinstance(x, (int, float, complex)):
    return size * x
  return lax.mul(np.array(size, get_aval(x).dtype), x)


def _reduce_batch_named(axis, vals, dims, *, axes, axis_index_groups, prim, unmapped):
  """Reduce the batch axis in place of the name (the result is the same on every lane); the
  other names stay for the traces that own them."""
  name, size = axis.name, axis.size
  _no_groups(axis_index_groups)
  (x,), (d,) = vals, dims
  if d is batching.not_mapped:
    rest = tuple(a for a in axes if a != name)
    out = prim.bind(x, axes=rest, axis_index_groups=None) if rest else x
    return unmapped(out, size), batching.not_mapped
  new_axes = tuple(d if a == name else _shift(a, d) if is_positional(a) else a for a in axes)
  return prim.bind(x, axes=new_axes, axis_index_groups=None), batching.not_mapped


def _reduction(name: str, kind: str, op_name: str, unmapped) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_reduce_abstract_eval, lower=_reduce_lower_rule(name, kind, op_name),
              batch=functools.partial(_reduce_batch, prim=p))
  p.def_rules(axis_names=lambda params: named_axes(params["axes"]),
              batch_named=functools.partial(_reduce_batch_named, prim=p, unmapped=unmapped))
  return p


psum_p = _reduction("psum", "add", "stablehlo.add", psum_unmapped)
pmax_p = _reduction("pmax", "max", "stablehlo.maximum", lambda x, size: x)
pmin_p = _reduction("pmin", "min", "stablehlo.minimum", lambda x, size: x)


def _extremum_abstract_eval(x: ShapedArray, *, axes, axis_index_groups) -> ShapedArray:
  """pmax and pmin give every device the same value: invariant over their named axes."""
  out = _reduce_abstract_eval(x, axes=axes, axis_index_groups=axis_index_groups)
  return out.update(vma=_without(x.vma, named_axes(axes)))


for _p in (pmax_p, pmin_p):
  _p.own_vma = True
  _p.def_rules(abstract_eval=_extremum_abstract_eval)


def _psum_transpose(ct, aval: ShapedArray, *, axes, axis_index_groups):
  """Broadcast back over the positional axes, and sum the lanes' cotangents over the named ones
  (psum is psum followed by a broadcast to every lane)."""
  positional = tuple(a for a in axes if is_positional(a))
  if positional:
    ct = red._reduce_sum_transpose(ct, aval, axes=positional, out_sharding=None)
  names = named_axes(axes)
  return psum_p.bind(ct, axes=names, axis_index_groups=axis_index_groups) if names else ct


deflinear_unary(psum_p, _psum_transpose)
for _p in (pmax_p, pmin_p):
  _p.def_unsupported("jvp", f"{_p.name} is not differentiable (JAX defines no derivative "
                     "either); differentiate jnp.max or jnp.min of an all_gather instead")


# --- all_gather -------------------------------------------------------------------------------

def _gathered_shape(shape, dim: int, size: int, tiled: bool) -> tuple[int, ...]:
  """The shape of ``all_gather`` of a lane's value of ``shape`` (``dim`` canonical)."""
  if tiled:
    return shape[:dim] + (shape[dim] * size,) + shape[dim + 1:]
  return shape[:dim] + (size,) + shape[dim:]


def _all_gather_abstract_eval(x: ShapedArray, *, all_gather_dimension, axis_name,
                              axis_index_groups, axis_size, tiled) -> ShapedArray:
  return x.update(shape=_gathered_shape(x.shape, all_gather_dimension, axis_size, tiled))


def _all_gather_transpose(ct, aval, *, all_gather_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
  return reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension, axis_name=axis_name,
                               axis_index_groups=axis_index_groups, axis_size=axis_size,
                               tiled=tiled)


def _all_gather_batch(axis, vals, dims, *, all_gather_dimension, **params):
  (x,), (d,) = vals, dims
  dim = all_gather_dimension
  if params["tiled"]:
    return all_gather_p.bind(x, all_gather_dimension=_shift(dim, d), **params), d
  # The new axis goes before the batch axis when it comes before it in the example.
  if dim <= d:
    return all_gather_p.bind(x, all_gather_dimension=dim, **params), d + 1
  return all_gather_p.bind(x, all_gather_dimension=dim + 1, **params), d


def _all_gather_batch_named(axis, vals, dims, *, all_gather_dimension, axis_name,
                            axis_index_groups, axis_size, tiled):
  """The lanes' values are the batch: move (or broadcast) the batch axis to the gathered
  position; every lane then holds the same result."""
  name, size = axis.name, axis.size
  from ember import lax
  _no_groups(axis_index_groups, "vmap")
  _one_axis(name, axis_name, "all_gather")
  (x,), (d,) = vals, dims
  dim = all_gather_dimension
  out = batching.matchaxis(x, d, dim, size)
  if tiled:
    shape = get_aval(out).shape
    out = lax.reshape(out, shape[:dim] + (shape[dim] * shape[dim + 1],) + shape[dim + 2:])
  return out, batching.not_mapped


all_gather_p = Primitive("all_gather")
all_gather_p.def_rules(abstract_eval=_all_gather_abstract_eval, lower=_all_gather_lower,
                       batch=_all_gather_batch)
deflinear_unary(all_gather_p, _all_gather_transpose)
all_gather_p.def_rules(axis_names=lambda params: params["axis_name"],
                       batch_named=_all_gather_batch_named)


# --- reduce_scatter (psum_scatter) ------------------------------------------------------------

def scattered_shape(shape, dim: int, size: int, tiled: bool) -> tuple[int, ...]:
  """The shape of a lane's part of ``psum_scatter`` of values of ``shape`` (``dim``
  canonical); ValueError when the scattered dimension does not fit the axis size."""
  n = shape[dim]
  if tiled:
    if n % size:
      raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be "
                       f"divisible by shard_count {size}")
    return shape[:dim] + (n // size,) + shape[dim + 1:]
  if n != size:
    raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match shard "
                     f"count {size}")
  return shape[:dim] + shape[dim + 1:]


def _reduce_scatter_abstract_eval(x: ShapedArray, *, scatter_dimension, axis_name,
                                  axis_index_groups, axis_size, tiled) -> ShapedArray:
  return x.update(shape=scattered_shape(x.shape, scatter_dimension, axis_size, tiled))


def _reduce_scatter_transpose(ct, aval, *, scatter_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
  return all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, axis_name=axis_name,
                           axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled)


def _reduce_scatter_batch(axis, vals, dims, *, scatter_dimension, **params):
  (x,), (d,) = vals, dims
  dim = _shift(scatter_dimension, d)
  out = reduce_scatter_p.bind(x, scatter_dimension=dim, **params)
  removed_before = dim < d and not params["tiled"]  # the scattered axis is gone
  return out, d - 1 if removed_before else d


def _reduce_scatter_batch_named(axis, vals, dims, *, scatter_dimension, axis_name,
                                axis_index_groups, axis_size, tiled):
  """Sum over the batch axis; lane i's slice of the sum is its result, so the scattered
  dimension (split into lanes x blocks when tiled) becomes the batch axis."""
  name, size = axis.name, axis.size
  from ember import lax
  _no_groups(axis_index_groups, "vmap")
  _one_axis(name, axis_name, "psum_scatter")
  (x,), (d,) = vals, dims
  dim = scatter_dimension
  total = psum_unmapped(x, size) if d is batching.not_mapped else lax.reduce_sum(x, (d,))
  if tiled:
    shape = get_aval(total).shape
    total = lax.reshape(total, shape[:dim] + (size, shape[dim] // size) + shape[dim + 1:])
  return total, dim


reduce_scatter_p = Primitive("reduce_scatter")
reduce_scatter_p.def_rules(abstract_eval=_reduce_scatter_abstract_eval,
                           lower=_reduce_scatter_lower, batch=_reduce_scatter_batch)
deflinear_unary(reduce_scatter_p, _reduce_scatter_transpose)
reduce_scatter_p.def_rules(axis_names=lambda params: params["axis_name"],
                           batch_named=_reduce_scatter_batch_named)


# --- ppermute ---------------------------------------------------------------------------------

def _ppermute_transpose(ct, aval, *, axis_name, perm):
  return ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((dst, src) for src, dst in perm))


def _ppermute_batch_named(axis, vals, dims, *, axis_name, perm):
  """Gather each lane's source along the batch axis; an out-of-range source (lanes that
  receive nothing) fills with zeros."""
  name, size = axis.name, axis.size
  from ember import numpy as jnp
  _one_axis(name, axis_name, "ppermute")
  (x,), (d,) = vals, dims
  sources = np.full(size, size, np.int32)
  for src, dst in perm:
    sources[dst % size] = src % size
  if d is batching.not_mapped:
    if (sources < size).all():
      return x, batching.not_mapped
    x, d = batching.broadcast_dim(x, size, 0), 0
  return jnp.take(x, sources, axis=d, mode="fill", fill_value=0), d


ppermute_p = Primitive("ppermute")
ppermute_p.def_rules(abstract_eval=lambda x, *, axis_name, perm: x,
                     lower=_ppermute_lower, batch=batching.vectorized_batcher(ppermute_p))
deflinear_unary(ppermute_p, _ppermute_transpose)
ppermute_p.def_rules(axis_names=lambda params: params["axis_name"],
                     batch_named=_ppermute_batch_named)


# --- all_to_all -------------------------------------------------------------------------------

class _AxisSizedPrimitive(Primitive):
  """A primitive whose output aval depends on the sizes of the named axes in scope, which its
  params do not carry: abstract evaluation is not cached on (avals, params) alone."""

  def abstract(self, avals: tuple, params: dict):
    out = self.rule("abstract_eval")(*avals, **params)
    return core._standard_vma(out, avals, False)


def _all_to_all_abstract_eval(x: ShapedArray, *, split_axis, concat_axis, axis_name,
                              axis_index_groups, tiled) -> ShapedArray:
  size = group_size(as_names(axis_name), axis_index_groups)
  shape = list(x.shape)
  if shape[split_axis] % size:
    raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) has to be "
                     f"divisible by the size of the named axis {axis_name} ({size})")
  shape[split_axis] //= size
  shape[concat_axis] *= size
  return x.update(shape=tuple(shape))


def _all_to_all_transpose(ct, aval, *, split_axis, concat_axis, **params):
  return all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)


def _all_to_all_batch(axis, vals, dims, *, split_axis, concat_axis, **params):
  (x,), (d,) = vals, dims
  return all_to_all_p.bind(x, split_axis=_shift(split_axis, d),
                           concat_axis=_shift(concat_axis, d), **params), d


def _all_to_all_batch_named(axis, vals, dims, *, split_axis, concat_axis, axis_name,
                            axis_index_groups, tiled):
  """With the lanes first, split ``split_axis`` into (destination lane, block); the destination
  becomes the new batch axis, and the source lanes go in front of ``concat_axis``'s blocks."""
  name, size = axis.name, axis.size
  from ember import lax
  _no_groups(axis_index_groups, "vmap")
  _one_axis(name, as_names(axis_name), "all_to_all")
  (x,), (d,) = vals, dims
  x = batching.bdim_at_front(x, d, size)
  shape = get_aval(x).shape[1:]
  block = shape[split_axis] // size
  x = lax.reshape(x, (size,) + shape[:split_axis] + (size, block) + shape[split_axis + 1:])
  # Positions in x of the lane's axes (the split axis is now its block axis).
  pos = [1 + a + (a >= split_axis) for a in range(len(shape))]
  perm = [1 + split_axis]
  for a in range(len(shape)):
    perm += [0, pos[a]] if a == concat_axis else [pos[a]]
  out_shape = list(shape)
  out_shape[split_axis] = block
  out_shape[concat_axis] *= size
  return lax.reshape(lax.transpose(x, tuple(perm)), (size,) + tuple(out_shape)), 0


all_to_all_p = _AxisSizedPrimitive("all_to_all")
all_to_all_p.def_rules(abstract_eval=_all_to_all_abstract_eval, lower=_all_to_all_lower,
                       batch=_all_to_all_batch)
deflinear_unary(all_to_all_p, _all_to_all_transpose)
all_to_all_p.def_rules(axis_names=lambda params: as_names(params["axis_name"]),
                       batch_named=_all_to_all_batch_named)


# --- axis_index -------------------------------------------------------------------------------

def _axis_index_batch_named(axis, vals, dims, *, axis_name):
  from ember import lax
  return lax.iota(np.int32, axis.size), 0


class _ContextPrimitive(Primitive):
  """A primitive whose output aval depends on the named axes in scope, which its params do not
  carry: abstract evaluation is not cached on (avals, params) alone."""

  def abstract(self, avals: tuple, params: dict):
    return self.rule("abstract_eval")(*avals, **params)


def _axis_index_abstract_eval(*, axis_name) -> ShapedArray:
  """The index differs from device to device: varying over its axis in a checked body."""
  vma = (axis_name,) if axis_name in core.vma_axes() else ()
  return ShapedArray((), np.dtype(np.int32), vma=ManualAxes(vma))


axis_index_p = _ContextPrimitive("axis_index")
axis_index_p.own_vma = True
axis_index_p.def_rules(abstract_eval=_axis_index_abstract_eval, lower=_axis_index_lower)
axis_index_p.def_rules(axis_names=lambda params: (params["axis_name"],),
                       batch_named=_axis_index_batch_named)


# --- pvary, psum_invariant, all_gather_invariant (typing by varying axes) -------------------------

def _pvary_abstract_eval(x: ShapedArray, *, axes) -> ShapedArray:
  _check_names_bound(axes, "pvary")
  if set(axes) & x.vma:
    raise ValueError(
        "pvary is a invariant->variant collective. This means that the axis names mentioned "
        "in `axes` passed to `pvary` must not be present in `jax.typeof(inp).mat.varying`. "
        f"Got axes={axes} and jax.typeof(inp)={x.str_short(short_dtypes=False)}")
  return x.update(vma=core._union_vma([x.vma, ManualAxes(axes)]))


def _pvary_impl(x, *, axes):
  raise ValueError("pvary should be called under jax.shard_map.")


def pvary(x, axes: tuple):
  """``x`` typed as varying over the manual mesh ``axes`` as well (the device value is
  unchanged); what standard operations insert on operands that vary over fewer axes."""
  return pvary_p.bind(x, axes=tuple(axes))


def vary_like(val, x):
  """``val`` made to vary over the manual mesh axes the traced ``x`` varies over (inside a
  checked shard_map body), as JAX's ``full_like`` family makes its results."""
  if not core.vma_axes() or not isinstance(x, core.Tracer):
    return val
  missing = tuple(a for a in x.aval.vma.names if a not in get_aval(val).vma)
  return pvary(val, missing) if missing else val


pvary_p = Primitive("pvary")
pvary_p.own_vma = True
pvary_p.def_rules(abstract_eval=_pvary_abstract_eval, impl=_pvary_impl,
                  lower=lambda ctx, x, *, axes: x,
                  batch=lambda axis, vals, dims, *, axes: (pvary_p.bind(vals[0], axes=axes),
                                                           dims[0]))
deflinear_unary(pvary_p, lambda ct, aval, *, axes: psum_invariant_p.bind(ct, axes=axes))
core._pvary_bind.append(pvary)


def _psum_invariant_abstract_eval(x: ShapedArray, *, axes) -> ShapedArray:
  _check_names_bound(axes, "psum")
  if not set(axes) & x.vma:
    raise ValueError(
        "psum is a variant->invariant collective. This means that the axis names mentioned in "
        "`axes` passed to `psum` must be present in `jax.typeof(inp).mat.varying`. Got "
        f"axes={axes} and jax.typeof(inp).mat.varying={frozenset(x.vma)}")
  if any(is_positional(a) for a in axes):
    raise ValueError(f"psum_invariant does not accept integer axes. Got {axes}")
  return x.update(vma=_without(x.vma, axes))


def _psum_invariant_lower(ctx, x, *, axes):
  return _all_reduce(ctx, x, axes, None, "stablehlo.add", "psum")


def _psum_invariant_batch_named(axis, vals, dims, *, axes):
  return _reduce_batch_named(axis, vals, dims, axes=axes, axis_index_groups=None,
                             prim=psum_p, unmapped=psum_unmapped)


psum_invariant_p = Primitive("psum_invariant")
psum_invariant_p.own_vma = True
psum_invariant_p.def_rules(
    abstract_eval=_psum_invariant_abstract_eval, lower=_psum_invariant_lower,
    batch=lambda axis, vals, dims, *, axes: (psum_invariant_p.bind(vals[0], axes=axes), dims[0]))
deflinear_unary(psum_invariant_p, lambda ct, aval, *, axes: pvary_p.bind(ct, axes=axes))
psum_invariant_p.def_rules(axis_names=lambda params: params["axes"],
                           batch_named=_psum_invariant_batch_named)


def _all_gather_invariant_abstract_eval(x: ShapedArray, *, all_gather_dimension, axis_name,
                                        axis_size, tiled) -> ShapedArray:
  _check_names_bound(axis_name, "all_gather_invariant")
  shape = _gathered_shape(x.shape, all_gather_dimension, axis_size, tiled)
  return x.update(shape=shape, vma=_without(x.vma, axis_name))


def _all_gather_invariant_lower(ctx, x, **params):
  return _all_gather_lower(ctx, x, axis_index_groups=None, **params)


def _all_gather_invariant_transpose(ct, aval, *, all_gather_dimension, axis_name, axis_size,
                                    tiled):
  """Each device's slice of the (invariant) cotangent, at its index along the axes."""
  from ember import lax
  index = None
  for name in axis_name:
    i = axis_index_p.bind(axis_name=name)
    index = i if index is None else lax.add(lax.mul(index, np.int32(core.axis_size(name))), i)
  dim = all_gather_dimension
  block = aval.shape[dim] if tiled else 1
  ct = pvary(ct, tuple(axis_name))
  starts = [np.int32(0)] * ct.ndim
  starts[dim] = lax.mul(index, np.int32(block))
  sizes = list(ct.shape)
  sizes[dim] = block
  out = lax.dynamic_slice(ct, starts, sizes)
  return out if tiled else lax.squeeze(out, (dim,))


all_gather_invariant_p = Primitive("all_gather_invariant")
all_gather_invariant_p.own_vma = True
all_gather_invariant_p.def_rules(abstract_eval=_all_gather_invariant_abstract_eval,
                                 lower=_all_gather_invariant_lower)
deflinear_unary(all_gather_invariant_p, _all_gather_invariant_transpose)
all_gather_invariant_p.def_unsupported("batch", "all_gather_invariant is not batched yet")


# --- rules these primitives do not have -------------------------------------------------------

for _p in (pmax_p, pmin_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
for _p in (axis_index_p,):
  for _kind in ("jvp", "transpose", "batch"):
    _p.def_unsupported(_kind, NO_OPERANDS)
del _p
