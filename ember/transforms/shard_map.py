"""shard_map: write a program for one device's block; run it on every device of a mesh.

``shard_map(f, mesh=mesh, in_specs=..., out_specs=...)(*xs)`` splits each global argument into
blocks by its ``PartitionSpec`` (dimension ``d`` split over the mesh axes ``spec[d]`` names,
replicated over the axes it leaves out), runs ``f`` on device ``k``'s blocks, and assembles the
outputs by ``out_specs``: an output's blocks are concatenated over the axes its spec names, and
must be equal over the axes it leaves out. Inside ``f`` the mesh axes are named axes, so the
collectives (``psum``, ``all_gather``, ``ppermute``...) act across devices.

``f`` is traced once on block-shaped avals into a jaxpr, and the ``shard_map`` primitive carries
it. With ``check_vma=True`` (the default) values in the body are typed, as in JAX 0.10.2, by the
mesh axes they vary over (their ``vma``, printed ``f32[2]{V:i}``; ``jax.typeof(x).mat.varying``):
a block of an argument varies over the axes its in_spec splits it over, ``axis_index`` over its
axis, and a standard operation over the union of its operands' axes, after ``pvary`` has made
every operand vary over that union (``pvary`` is a no-op on the device). ``psum`` of a value
typed invariant over an axis first makes it vary (so every device adds the same value and the
result is n times it) and binds ``psum_invariant``, which is invariant over its axes; the other
collectives ``pvary`` their operand over their axes too (see ember/primitives/collectives.py).
``cond`` branches and loop carries must agree in their varying axes (a ``TypeError`` suggesting
``lax.pcast(..., to='varying')``, as JAX). An output whose type varies over an axis its out_spec
leaves out is rejected (``ValueError``), and outputs are made to vary over the axes their
out_specs name. With ``check_vma=False`` nothing is typed, ``psum`` binds ``psum`` and
``pcast`` does nothing; replicated outputs are then taken as they are (device 0's copy).

Its rules transform that jaxpr and bind ``shard_map`` again: jvp (tangents share the primals'
specs and types), partial evaluation (residuals the known body computes leave it first,
concatenated along dimension 0 over the axes they vary over, scalars given a unit dimension, as
JAX does; every mesh axis without check_vma), transpose (cotangents first, then residuals) and
batching (the batch axis is a new unsplit dimension). The types make reverse mode exact: the
transpose of ``pvary`` is ``psum_invariant`` (a replicated input's cotangent is the sum of the
devices' cotangents) and that of ``psum_invariant`` is ``pvary``, so the transposed body needs
nothing more. So ``grad`` inside a body, of a replicated parameter and a sharded batch, gives the
whole batch's gradient on every device, as in JAX (``pmean`` of it changes nothing; ``psum``
multiplies it by the device count). Without check_vma, transposition treats a replicated output
as the mean of its equal copies and a replicated input as fed to every copy: cotangents of
outputs are divided by their number of copies and cotangents of inputs are summed (psum) over
the axes their spec leaves out; each collective transposes as under vmap (psum to psum,
all_gather to psum_scatter, ppermute to the inverse permutation).

Lowering puts the body in an ``sdy.manual_computation`` region of a program compiled for the
mesh (see ember/backend/spmd.py); collectives lower to StableHLO's cross-device ops with replica
groups read off the mesh, all on one channel as in JAX (devices that take different branches of
a cond still meet at the branches' collectives).

Differences from JAX: ``axis_names`` must name every mesh axis (partly manual bodies are not
supported), and shard_maps do not nest. ember's types carry no shardings, so where JAX prints a
sharding inside a body (``reduce_sum[... out_sharding=NamedSharding(mesh=AbstractMesh(...
Manual...))]`` from transposing a broadcast, ``reshard`` of a gradient's seed) ember prints
``out_sharding=None`` and no ``reshard``. There are no reduced or unreduced types
(``pcast(..., to='reduced')`` and ``all_gather(..., to='reduced')`` raise). A ``cond`` whose
branches disagree in varying axes is rejected as in JAX, but the advice names the branch to
change (JAX 0.10.2 names the other one with an empty tuple of axes). Avals also carry ``vma``
itself (``mat.varying`` is its frozenset), the name older JAX versions used.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.sharding import PartitionSpec as P
    >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
    >>> f = ember.shard_map(lambda b: ember.lax.psum(b.sum(), "i"), mesh=mesh,
    ...                     in_specs=P("i"), out_specs=P())
    >>> f(jnp.arange(4.0))
    Array(6., dtype=float32)
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import Callable

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.aval import NO_AXES, ManualAxes, ShapedArray
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import lowering, spmd
from ember.backend.lowering import LoweringContext
from ember.core.cache import BoundedCache
from ember.backend.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec,
                                    current_mesh)
from ember.transforms.ad_util import Zero, float0, instantiate, is_undefined, tangent_aval
from ember.transforms.batching import batch_jaxpr
from ember.core.jaxpr import hoist_consts
from ember.transforms.jit_rules import partial_eval_jaxpr
from ember.transforms.jvp import jvp_jaxpr
from ember.transforms.linearize import backward_pass
from ember.transforms.staging import trace_to_jaxpr, DebugInfo, arg_names
from ember._src.traceback_util import api_boundary
from ember.transforms.ops import ops

__all__ = ["shard_map", "shard_map_p"]

P = PartitionSpec
shard_map_p = core.Primitive("shard_map", multiple_results=True)
shard_map_p.own_vma = True


# --- specs and shapes ---------------------------------------------------------------------

def _mesh_env(mesh: Mesh, check_vma: bool):
  """The mesh's axes as named, manual axes in scope (while tracing or transforming a body);
  with ``check_vma`` values are typed by the axes they vary over."""
  stack = contextlib.ExitStack()
  for name, size in zip(mesh.axis_names, mesh.axis_sizes):
    stack.enter_context(core.extend_axis_env(name, size))
  stack.enter_context(core.manual_axes(mesh.axis_names, check_vma))
  return stack


def _factor(spec: PartitionSpec, dim: int, mesh: Mesh) -> int:
  return math.prod(mesh.shape[a] for a in spec.axes_of(dim))


def _block_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh,
                check_vma: bool) -> ShapedArray:
  """A device's block of a global value: it varies over the axes its spec splits it over."""
  vma = _ordered(mesh, spec.mesh_axes()) if check_vma else ()
  return aval.update(shape=tuple(n // _factor(spec, d, mesh) for d, n in enumerate(aval.shape)),
                     vma=ManualAxes(vma))


def _global_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> ShapedArray:
  return aval.update(shape=tuple(n * _factor(spec, d, mesh) for d, n in enumerate(aval.shape)),
                     vma=NO_AXES)


def _ordered(mesh: Mesh, names) -> tuple:
  """``names`` in the mesh's order."""
  return tuple(a for a in mesh.axis_names if a in set(names))


def _spec_of(names: tuple) -> PartitionSpec:
  """A spec splitting dimension 0 over ``names`` (replicated when there are none)."""
  return P() if not names else P(names[0]) if len(names) == 1 else P(names)


def _unnamed_axes(spec: PartitionSpec, mesh: Mesh) -> tuple:
  """The mesh axes a spec leaves out: the value is replicated over them."""
  used = set(spec.mesh_axes())
  return tuple(a for a in mesh.axis_names if a not in used)


class _AxisSet(frozenset):
  """A frozenset of mesh axes that prints in a stable order (the printed jaxpr's)."""

  def __str__(self):
    return "frozenset({" + ", ".join(repr(a) for a in sorted(self, key=str)) + "})"


# --- the primitive ----------------------------------------------------------------------------

def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
  return [_global_aval(a, s, mesh) for a, s in zip(jaxpr.out_avals, out_specs)]


def _impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
  from ember.backend.dispatch import _one_primitive_jaxpr
  from ember.backend.array import abstractify
  _check_explicit_inputs(args, mesh, in_specs)
  params = dict(jaxpr=jaxpr, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                check_vma=check_vma, manual_axes=manual_axes)
  closed = _one_primitive_jaxpr(shard_map_p, tuple(abstractify(x) for x in args), params)
  return spmd.run_spmd(closed, args, mesh, [NamedSharding(mesh, s) for s in in_specs],
                       [NamedSharding(mesh, s) for s in out_specs], "shard_map")


def _check_explicit_inputs(args, mesh: Mesh, in_specs) -> None:
  """Over Explicit mesh axes an argument already laid out on the mesh must match its in_spec
  (JAX's rule); unsharded arguments are resharded (ember's departure, see ember.sharding)."""
  if AxisType.Explicit not in mesh.axis_types:
    return
  for i, (x, spec) in enumerate(zip(args, in_specs)):
    if spmd.is_sharded(x) and x._sharding.mesh == mesh and \
        x._sharding != NamedSharding(mesh, spec):
      raise ValueError(
          f"in_specs passed to shard_map: {spec!r} does not match the specs of the input: "
          f"{x._sharding.spec!r} for arg: {x.aval.str_short(short_dtypes=True)}. `in_specs` is "
          "an optional argument so you can omit specifying it and shard_map will infer the "
          "in_specs from the arguments. If you want to reshard your inputs, you can use "
          "`ember.sharding.reshard` on the arguments and then pass those args to shard_map.")


def _lower(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
  outer = ctx.module_context.get("mesh")
  if outer is not None and outer != mesh:
    raise ValueError(f"shard_map over {mesh} inside a program compiled for {outer}: one program "
                     "runs on one mesh. Use the same mesh for every shard_map and sharding.")
  if ctx.module_context.get("manual"):
    raise NotImplementedError("shard_map nested inside another shard_map is not supported.")

  if mesh.size == 1:  # one device: its block is the whole value (XLA skips SPMD passes)
    consts = [ctx.constant(c, v.aval) for c, v in zip(jaxpr.consts, jaxpr.jaxpr.constvars)]
    inner = LoweringContext(ctx.lines, ctx._counter, ctx.indent)
    inner.module_context = dict(ctx.module_context, mesh=mesh, manual=True)
    return lowering.lower_jaxpr(inner, jaxpr.jaxpr, consts, list(args))

  def shardings(specs, avals):
    return ", ".join(NamedSharding(mesh, s)._to_sdy_sharding(a.ndim)
                     for s, a in zip(specs, avals))

  def body(sub, blocks):
    consts = [sub.constant(c, v.aval) for c, v in zip(jaxpr.consts, jaxpr.jaxpr.constvars)]
    return lowering.lower_jaxpr(sub, jaxpr.jaxpr, consts, blocks)

  inner = dict(ctx.module_context, mesh=mesh, manual=True)
  region = ctx.region(jaxpr.in_avals, body, terminator="sdy.return", module_context=inner)
  axes = ", ".join(f'"{a}"' for a in mesh.axis_names)
  attrs = {"in_shardings": f"#sdy.sharding_per_value<[{shardings(in_specs, ctx.avals_in)}]>",
           "out_shardings": f"#sdy.sharding_per_value<[{shardings(out_specs, ctx.avals_out)}]>",
           "manual_axes": f"#sdy<manual_axes{{{axes}}}>"}
  return ctx.op("sdy.manual_computation", list(args), list(ctx.avals_out), attrs, [region])


def _pp_params(params: dict) -> dict:
  return {"check_vma": params["check_vma"], "in_specs": params["in_specs"],
          "jaxpr": params["jaxpr"], "mesh": params["mesh"],
          "newly_manual_axes": _AxisSet(params["manual_axes"]),
          "out_specs": params["out_specs"]}


shard_map_p.def_rules(abstract_eval=_abstract_eval, impl=_impl, lower=_lower)
shard_map_p.def_rules(pp_params=_pp_params)


def _bind(consts, args, jaxpr: ClosedJaxpr, in_specs, params: dict, bind=None):
  """Bind shard_map on a const-free body whose hoisted ``consts`` come first, replicated."""
  specs = (P(),) * len(consts) + tuple(in_specs)
  new = dict(params, jaxpr=jaxpr, in_specs=specs)
  if bind is not None:
    return bind(shard_map_p, [*consts, *args], new)
  return shard_map_p.bind(*consts, *args, **new)


# --- autodiff ---------------------------------------------------------------------------------

_transformed = BoundedCache(512)  # the body's jvp, partial-eval and transpose jaxprs


def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **rest):
  nonzero = tuple(type(t) is not Zero for t in tangents)
  with _mesh_env(mesh, rest["check_vma"]):
    (jvp_closed, consts), keep = _transformed.memo(("jvp", jaxpr, nonzero),
                                                   lambda: jvp_jaxpr(jaxpr, nonzero))
  nz = [t for t in tangents if type(t) is not Zero]
  specs = tuple(in_specs) + tuple(s for s, n in zip(in_specs, nonzero) if n)
  t_specs = tuple(s for s, k in zip(out_specs, keep) if k)
  outs = _bind(consts, [*primals, *nz], jvp_closed, specs,
               dict(rest, mesh=mesh, out_specs=tuple(out_specs) + t_specs))
  n = len(jaxpr.out_avals)
  t_iter = iter(outs[n:])
  return outs[:n], [next(t_iter) if k else Zero(tangent_aval(_global_aval(a, s, mesh)))
                    for k, a, s in zip(keep, jaxpr.out_avals, out_specs)]


def _residual_specs(pe, mesh: Mesh, check_vma: bool) -> list:
  """How each residual the known body computes leaves it: concatenated along dimension 0 over
  the mesh axes it varies over (with check_vma; every mesh axis without), as JAX does. Scalar
  residuals get a dimension of size one first."""
  n_known = len(pe.known.out_avals) - sum(kind == "out" for kind, _ in pe.residuals)
  return [_spec_of(a.vma.names if check_vma else mesh.axis_names)
          for a in pe.known.out_avals[n_known:]]


def _residual_bodies(pe, mesh: Mesh):
  """Known and unknown bodies in which each scalar residual the known part computes leaves with
  a leading dimension of size one (so that it can be concatenated over devices). The known body
  returns its residuals first, then its known outputs (JAX's order)."""
  known = pe.known
  n_known = len(known.out_avals) - sum(kind == "out" for kind, _ in pe.residuals)
  res_avals = [a if kind == "in" or a.shape else a.update(shape=(1,))
               for a, (kind, _) in zip(pe.unknown.in_avals, pe.residuals)]

  def known_fun(*xs):
    outs = eval_jaxpr(known.jaxpr, known.consts, *xs)
    return [r if core.get_aval(r).shape else _expand(r) for r in outs[n_known:]] + \
        outs[:n_known]

  def unknown_fun(*xs):
    res = [_squeeze(x) if a is not b else x
           for x, a, b in zip(xs, res_avals, pe.unknown.in_avals)]
    return eval_jaxpr(pe.unknown.jaxpr, pe.unknown.consts, *res, *xs[len(res):])

  known2 = hoist_consts(trace_to_jaxpr(known_fun, known.in_avals))
  unknown_avals = res_avals + list(pe.unknown.in_avals[len(pe.residuals):])
  unknown2 = hoist_consts(trace_to_jaxpr(unknown_fun, unknown_avals))
  return known2, unknown2


def _expand(x):
  return ops.expand_dims(x, (0,))


def _squeeze(x):
  return ops.squeeze(x, (0,))


def _partial_eval(trace, args, params):
  jaxpr, mesh = params["jaxpr"], params["mesh"]
  in_specs, out_specs = params["in_specs"], params["out_specs"]
  unknowns = tuple(trace.is_unknown(x) for x in args)
  with _mesh_env(mesh, params["check_vma"]):
    pe = partial_eval_jaxpr(jaxpr, unknowns, [False] * len(jaxpr.out_avals))
    (known, k_consts), (unknown, u_consts) = _transformed.memo(
        ("pe", jaxpr, unknowns), lambda: _residual_bodies(pe, mesh))
  computed_specs = _residual_specs(pe, mesh, params["check_vma"])
  known_specs = [s for s, u in zip(in_specs, unknowns) if not u]
  k_out_specs = [s for s, u in zip(out_specs, pe.out_unknown) if not u]
  res_specs = [in_specs[i] if kind == "in" else computed_specs[i] for kind, i in pe.residuals]
  with core.set_current_trace(trace.parent):
    known_outs = _bind(k_consts, [x for x, u in zip(args, unknowns) if not u], known,
                       known_specs, dict(params, out_specs=tuple(computed_specs) +
                                         tuple(k_out_specs)))
  computed, known_outs = known_outs[:len(computed_specs)], known_outs[len(computed_specs):]
  residuals = [args[i] if kind == "in" else computed[i] for kind, i in pe.residuals]
  u_specs = res_specs + [s for s, u in zip(in_specs, unknowns) if u]
  staged = _bind(u_consts, [*residuals, *[x for x, u in zip(args, unknowns) if u]], unknown,
                 u_specs, dict(params, out_specs=tuple(s for s, u in zip(out_specs,
                                                                        pe.out_unknown) if u)),
                 bind=trace.stage)
  k_iter, u_iter = iter(known_outs), iter(staged)
  return [next(u_iter) if u else next(k_iter) for u in pe.out_unknown]


def _transpose_body(closed: ClosedJaxpr, linear, ct_zero, in_specs, mesh: Mesh,
                    check_vma: bool):
  """(nonzero cotangents, residuals) -> cotangents of the linear inputs (JAX's order). Without
  check_vma each is summed over the mesh axes its spec replicates it over; with it, the body's
  types already say so (the transpose of the ``pvary`` that made a replicated input vary is a
  psum)."""
  j = closed.jaxpr
  res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
  lin_vars = [v for v, lin in zip(j.invars, linear) if lin]
  lin_specs = [s for s, lin in zip(in_specs, linear) if lin]
  as_linear = type(j)(res_vars, lin_vars, j.outvars, j.eqns)
  res_avals = [v.aval for v in res_vars]
  ct_avals = [a for a, z in zip(closed.out_avals, ct_zero) if not z]

  def fun(*xs):
    cts, res = iter(xs[:len(ct_avals)]), xs[len(ct_avals):]
    ct_all = [Zero(tangent_aval(a)) if z else next(cts)
              for a, z in zip(closed.out_avals, ct_zero)]
    ins = backward_pass(as_linear, res, ct_all)
    outs = []
    for c, v, spec in zip(ins, lin_vars, lin_specs):
      c = instantiate(c, v.aval)
      missing = () if check_vma else _unnamed_axes(spec, mesh)
      outs.append(ops.psum(c, missing) if missing else c)
    return outs

  return hoist_consts(trace_to_jaxpr(fun, ct_avals + res_avals))


def _transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **rest):
  linear = tuple(is_undefined(x) for x in args)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, jaxpr.out_avals))
  if all(ct_zero):
    return [Zero(x.aval) if is_undefined(x) else None for x in args]
  check_vma = rest["check_vma"]
  with _mesh_env(mesh, check_vma):
    t_closed, consts = _transformed.memo(
        ("t", jaxpr, linear, ct_zero, in_specs, mesh, check_vma),
        lambda: _transpose_body(jaxpr, linear, ct_zero, in_specs, mesh, check_vma))
  scaled = []  # without check_vma: a replicated output's one cotangent, shared by its copies
  for c, z, spec in zip(cts, ct_zero, out_specs):
    copies = 1 if check_vma else math.prod(mesh.shape[a] for a in _unnamed_axes(spec, mesh))
    if not z:
      scaled.append(c if copies == 1 else
                    ops.div(c, np.asarray(copies, core.get_aval(c).dtype)))
  specs = [s for s, z in zip(out_specs, ct_zero) if not z] + \
      [s for s, lin in zip(in_specs, linear) if not lin]
  outs = _bind(consts, [*scaled, *[x for x in args if not is_undefined(x)]], t_closed, specs,
               dict(rest, mesh=mesh, out_specs=tuple(s for s, lin in zip(in_specs, linear)
                                                     if lin)))
  it = iter(outs)
  return [next(it) if lin else None for lin in linear]


shard_map_p.def_rules(jvp=_jvp, partial_eval=_partial_eval, transpose=_transpose)


# --- batching ---------------------------------------------------------------------------------

def _batch(axis, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **rest):
  """The batch axis is one more dimension that no mesh axis splits."""
  with _mesh_env(mesh, rest["check_vma"]):
    batched, consts, out_dims = batch_jaxpr(jaxpr, axis.size, dims, axis.name, axis.spmd_name)
  specs = [s if d is None else s.with_unsplit_dim(d) for s, d in zip(in_specs, dims)]
  new_out = tuple(s if d is None else s.with_unsplit_dim(d) for s, d in zip(out_specs, out_dims))
  outs = _bind(consts, vals, batched, specs, dict(rest, mesh=mesh, out_specs=new_out))
  return outs, list(out_dims)


shard_map_p.def_rules(batch=_batch, axis_names=core.refers_to_every_axis)


# --- out_specs against the outputs' types (check_vma) ---------------------------------------------

def _vary_as_specs(outs: list, specs) -> list:
  """Outputs made to vary over the axes their out_specs split them over (JAX's implicit pvary:
  a block every device computes alike may still be laid out as distinct blocks)."""
  out = []
  for x, spec in zip(outs, specs):
    missing = [a for a in spec.mesh_axes() if a not in core.get_aval(x).vma]
    out.append(ops.pvary(x, _ordered_current(missing)) if missing else x)
  return out


def _ordered_current(names) -> tuple:
  return tuple(a for a in core.manual_axes_in_scope() if a in set(names))


def _check_out_specs(fun_name: str, mesh: Mesh, out_avals, out_specs, spec_paths) -> None:
  """ValueError (JAX's text) for outputs whose out_specs leave out an axis they vary over
  (``spec_paths()``: each output's spec's key path in out_specs)."""
  bad = [i for i, (a, s) in enumerate(zip(out_avals, out_specs)) if a.vma - set(s.mesh_axes())]
  if not bad:
    return
  paths, msgs = spec_paths(), []
  for i in bad:
    aval, spec, path = out_avals[i], out_specs[i], paths[i]
    named = set(spec.mesh_axes())
    unmentioned = [a for a in mesh.axis_names if a not in named]
    where = f"out_specs{pytree.keystr(path)} is {spec}"
    if len(unmentioned) > 1:
      need = ",".join(_ordered(mesh, named))
      got = ",".join(_ordered(mesh, aval.vma))
      diff = ",".join(a for a in unmentioned if a in aval.vma)
      msgs.append(f"* {where} which implies that the corresponding output value is only "
                  f"varying across mesh axes {{{need}}} and not {{{diff}}}, but it was inferred "
                  f"to be possibly varying over {{{got}}}")
    else:
      msgs.append(f"* {where} which implies that the corresponding output value is "
                  f"replicated across mesh axis '{unmentioned[0]}', but could not infer "
                  "replication over any axes")
  if len(msgs) == 1:
    msgs = [msgs[0][2:]]
  raise ValueError(
      f"shard_map applied to the function '{fun_name}' was given out_specs which require "
      "replication which can't be statically inferred given the mesh:\n\n"
      f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
      f"{mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\n"
      "Check if these output values are meant to be replicated over those mesh axes. If not, "
      "consider revising the corresponding out_specs entries. If so, consider disabling the "
      "check by passing the check_vma=False argument to `jax.shard_map`.")


# --- the transform --------------------------------------------------------------------------------

def _spec_leaves(specs, tree, what: str) -> list:
  """One PartitionSpec per leaf of ``tree`` (``specs`` is a pytree prefix of it)."""
  try:
    out = pytree.broadcast_prefix(specs, tree, is_leaf=lambda x: x is None or isinstance(x, P))
  except ValueError as e:
    raise ValueError(f"pytree structure error: shard_map {what} is not a prefix of the "
                     f"{'arguments' if what == 'in_specs' else 'outputs'}: {e}") from None
  for s in out:
    if s is not None and not isinstance(s, P):
      raise TypeError(f"shard_map {what} must be PartitionSpecs (or a pytree of them), got "
                      f"{s!r} of type {type(s).__name__}.")
  return [P() if s is None else s for s in out]


def _spec_paths(specs, tree) -> list:
  """For each leaf of ``tree``, the key path in ``specs`` of the spec that covers it."""
  is_spec = lambda x: x is None or isinstance(x, P)  # noqa: E731
  pairs, spec_tree = pytree.tree_flatten_with_path(specs, is_leaf=is_spec)
  indices = pytree.tree_unflatten(spec_tree, range(len(pairs)))
  return [pairs[i][0] for i in pytree.broadcast_prefix(indices, tree)]


def _check_out_ranks(fun_name: str, out, leaves, specs, out_specs) -> None:
  """ValueError (JAX's text) for out_specs entries longer than their outputs' ranks."""
  bad = [i for i, (x, s) in enumerate(zip(leaves, specs)) if len(s) > np.ndim(x)]
  if not bad:
    return
  spec_paths = _spec_paths(out_specs, out)
  leaf_paths = [p for p, _ in pytree.tree_flatten_with_path(out)[0]]
  msgs = []
  for i in bad:
    aval, spec = core.get_aval(leaves[i]), specs[i]
    msgs.append(f"* out_specs{pytree.keystr(spec_paths[i])} is {spec} which has length "
                f"{len(spec)}, but {fun_name}(*args){pytree.keystr(leaf_paths[i])} has shape "
                f"{aval.str_short(short_dtypes=False)}, which has rank {aval.ndim} (and "
                f"{aval.ndim} < {len(spec)})")
  if len(msgs) == 1:
    msgs = [msgs[0][2:]]
  msg = (f"shard_map applied to the function '{fun_name}' was given an out_specs entry which is "
         "too long to be compatible with the corresponding output value from the function:\n\n"
         + "\n\n".join(msgs) + "\n\nEntries in out_specs must be of length no greater than the "
         "number of axes in the corresponding output value.\n\nEither revise the spec to be "
         f"shorter, or modify '{fun_name}' so that its outputs have sufficient rank.")
  if any(np.ndim(leaves[i]) == 0 for i in bad):
    msg += ("\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where "
            "`P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not "
            "constant over the mesh, add at least one (singleton) axis to them so that they can "
            "be concatenated using out_specs.")
  raise ValueError(msg)


def _check_specs(specs, mesh: Mesh, what: str) -> None:
  for spec in specs:
    for axis in spec.mesh_axes():
      if axis not in mesh.axis_names:
        raise ValueError(
            f"shard_map {what} argument must refer to an axis marked as manual "
            f"({set(mesh.axis_names)}), but:\n\n  {what} refers to {axis!r}\n\nCheck the "
            f"{what} values passed to shard_map.")
    if len(set(spec.mesh_axes())) != len(spec.mesh_axes()):
      from ember.backend.sharding import check_spec
      check_spec(mesh, spec)


def _check_args(fun, names, avals, specs, mesh: Mesh) -> None:
  fname = getattr(fun, "__name__", repr(fun))
  for i, (a, spec) in enumerate(zip(avals, specs)):
    where = f"args[{i}]" + (f", where args[{i}] is bound to {fname}'s parameter "
                            f"'{names[i]}'" if i < len(names) and names[i] else "")
    if len(spec) > a.ndim:
      raise ValueError(
          f"shard_map applied to the function '{fname}' was given an in_specs entry which is "
          "too long to be compatible with the corresponding input value from the function:\n\n"
          f"in_specs is {spec!r} which has length {len(spec)}, but the passed {where}, has "
          f"shape {a.str_short(short_dtypes=True)}, which has rank {a.ndim} (and {a.ndim} < "
          f"{len(spec)})\n\n"
          "Entries in in_specs must be of length no greater than the number of axes in the "
          f"corresponding input value.\n\nEither revise the spec to be shorter, or modify "
          f"'{fname}' so that its inputs have sufficient rank.")
    for d, n in enumerate(a.shape):
      k = _factor(spec, d, mesh)
      if n % k:
        axes = spec.axes_of(d)
        label = f"mesh axis {axes[0]!r}" if len(axes) == 1 else f"mesh axes {axes}"
        raise ValueError(
            f"shard_map applied to the function '{fname}' was given argument arrays with axis "
            "sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
            f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
            f"{mesh.axis_names}.\n\nthe passed {where} of shape "
            f"{a.str_short(short_dtypes=True)}, corresponds "
            f"to in_specs of value {spec!r}, which maps array axis {d} (of size {n}) to "
            f"{label} (of size {k}), but {k} does not evenly divide {n}\n\nArray arguments' "
            "axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
            "corresponding elements of the argument's in_specs entry.")


class _ShardMapped:
  """The result of ``shard_map(f, ...)``: call it with global arrays."""

  def __init__(self, fun, mesh, in_specs, out_specs, axis_names, check_vma):
    functools.update_wrapper(self, fun)
    self._fun, self._mesh, self._in_specs, self._out_specs = fun, mesh, in_specs, out_specs
    self._check_vma = check_vma
    if axis_names and set(axis_names) != set(mesh.axis_names):
      raise NotImplementedError(
          f"shard_map with axis_names={set(axis_names)} (a part of the mesh axes "
          f"{mesh.axis_names}) is not supported: ember's shard_map makes every mesh axis "
          "manual. Leave axis_names out.")

  @api_boundary
  def __call__(self, *args):
    mesh = self._mesh
    leaves, in_tree = pytree.flatten(args)
    if self._in_specs is None:  # inferred: each argument's own layout on the mesh
      in_specs = [x._sharding.spec if spmd.is_sharded(x) and x._sharding.mesh == mesh else P()
                  for x in leaves]
    else:
      in_specs = _spec_leaves(self._in_specs, args, "in_specs")
    _check_specs(in_specs, mesh, "in_specs")
    avals = [core.get_aval(x) for x in leaves]
    names = arg_names(self._fun, args, {}, (), ())
    _check_args(self._fun, names, avals, in_specs, mesh)
    out_tree_box, out_specs_box = [], []
    check_vma = self._check_vma

    def body(*blocks):
      out = self._fun(*pytree.unflatten(in_tree, blocks))
      out_leaves, out_tree = pytree.flatten(out)
      out_tree_box.append(out)
      # out_specs may be read off the outputs (pmap's, by their ranks): one spec per leaf
      specs = (self._out_specs(out) if callable(self._out_specs)
               else _spec_leaves(self._out_specs, out, "out_specs"))
      _check_specs(specs, mesh, "out_specs")
      _check_out_ranks(getattr(self._fun, "__name__", "<fun>"), out, out_leaves, specs,
                       self._out_specs)
      out_specs_box.append(tuple(specs))
      return _vary_as_specs(out_leaves, specs) if check_vma else out_leaves

    blocks = [_block_aval(a, s, mesh, check_vma) for a, s in zip(avals, in_specs)]
    debug = DebugInfo("shard_map", self._fun, lambda: names)
    with _mesh_env(mesh, check_vma):
      closed = trace_to_jaxpr(body, blocks, debug)
    out_specs, out = out_specs_box[0], out_tree_box[0]
    if check_vma:
      _check_out_specs(getattr(self._fun, "__name__", "<fun>"), mesh, closed.out_avals,
                       out_specs, lambda: _spec_paths(self._out_specs, out))
    jaxpr, consts = hoist_consts(closed)
    outs = _bind(consts, leaves, jaxpr, in_specs,
                 dict(mesh=mesh, out_specs=out_specs, check_vma=self._check_vma,
                      manual_axes=frozenset(mesh.axis_names)))
    return pytree.unflatten(pytree.flatten(out)[1], outs)


def shard_map(f: Callable | None = None, /, *, out_specs, in_specs=None, mesh: Mesh | None = None,
              axis_names=frozenset(), check_vma: bool = True):
  """Map ``f`` over the blocks of its arguments on a device mesh (see the module docstring).

  Args:
    f: a function of per-device blocks (pytrees of arrays) that may use collectives over the
      mesh's axis names.
    out_specs: a PartitionSpec, or a pytree prefix of ``f``'s outputs of them.
    in_specs: a PartitionSpec per positional argument (a pytree prefix of the arguments); by
      default each argument's own spec on the mesh (replicated for unsharded arguments).
    mesh: the device mesh (defaults to the one set with ``ember.set_mesh``).
    axis_names: the mesh axes ``f`` handles by hand (all of them; the default).
    check_vma: check that outputs whose out_specs leave a mesh axis out are equal over it.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import PartitionSpec as P
      >>> mesh = ember.make_mesh((4,), ("i",), devices=ember.devices()[:4])
      >>> ember.shard_map(lambda x: x * ember.lax.axis_index("i"), mesh=mesh,
      ...                 in_specs=P("i"), out_specs=P("i"))(jnp.ones(8))
      Array([0., 0., 1., 1., 2., 2., 3., 3.], dtype=float32)
  """
  if f is None:
    return lambda fun: shard_map(fun, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
  if not callable(f):
    raise TypeError(f"shard_map requires a callable as its first argument, got {f!r}.")
  if callable(out_specs):
    raise TypeError(f"shard_map's out_specs must be a PartitionSpec or a pytree of them, got "
                    f"{out_specs!r}.")
  mesh = mesh if mesh is not None else current_mesh()
  if not isinstance(mesh, Mesh):
    raise TypeError("shard_map requires mesh= to be an ember.sharding.Mesh (e.g. from "
                    f"ember.make_mesh), got {mesh!r}.")
  return _ShardMapped(f, mesh, in_specs, out_specs, axis_names, check_vma)
