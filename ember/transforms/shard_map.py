"""shard_map: write a program for one device's block; run it on every device of a mesh.

``shard_map(f, mesh=mesh, in_specs=..., out_specs=...)(*xs)`` splits each global argument into
blocks by its ``PartitionSpec`` (dimension ``d`` split over the mesh axes ``spec[d]`` names,
replicated over the axes it leaves out), runs ``f`` on device ``k``'s blocks, and assembles the
outputs by ``out_specs``: an output's blocks are concatenated over the axes its spec names, and
must be equal over the axes it leaves out. Inside ``f`` the mesh axes are named axes, so the
collectives (``psum``, ``all_gather``, ``ppermute``...) act across devices.

``f`` is traced once on block-shaped avals into a jaxpr, and the ``shard_map`` primitive carries
it. Its rules transform that jaxpr and bind ``shard_map`` again: jvp (tangents share the primals'
specs), partial evaluation (residuals computed per device leave stacked over every mesh axis),
transpose and batching (the batch axis is a new unsplit dimension). Transposition treats a
replicated output as the mean of its equal copies and a replicated input as fed to every copy:
cotangents of outputs are divided by their number of copies and cotangents of inputs are summed
(psum) over the axes their spec leaves out, while each collective transposes as it does under
vmap (psum to psum, all_gather to psum_scatter, ppermute to the inverse permutation).

Lowering puts the body in an ``sdy.manual_computation`` region of a program compiled for the
mesh (see ember/backend/spmd.py); collectives lower to StableHLO's cross-device ops with replica
groups read off the mesh.

Differences from JAX: JAX 0.10.2 types values inside the body with the axes they vary over
(``f32[2]{V:x}``) and inserts ``pvary``/``psum_invariant``; ember tracks the same information
only to check ``out_specs`` (``check_vma=True``), so printed bodies show plain types and ``psum``.
``axis_names`` must name every mesh axis (partly manual bodies are not supported).

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
from ember.core.aval import ShapedArray
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import lowering, spmd
from ember.backend.lowering import LoweringContext
from ember.backend.compile import LRUCache
from ember.backend.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec,
                                    current_mesh)
from ember.primitives import collectives as coll
from ember.transforms.ad_util import Zero, float0, instantiate, is_undefined, tangent_aval
from ember.transforms.batching import batch_jaxpr
from ember.transforms.jit import hoist_consts
from ember.transforms.jit_rules import _jvp_jaxpr, partial_eval_jaxpr
from ember.transforms.linearize import backward_pass
from ember.transforms.staging import trace_to_jaxpr, DebugInfo, arg_names

__all__ = ["shard_map", "shard_map_p"]

P = PartitionSpec
shard_map_p = core.Primitive("shard_map", multiple_results=True)


# --- specs and shapes ---------------------------------------------------------------------

def _mesh_env(mesh: Mesh):
  """The mesh's axes as named axes in scope (while tracing or transforming a body)."""
  stack = contextlib.ExitStack()
  for name, size in zip(mesh.axis_names, mesh.axis_sizes):
    stack.enter_context(core.extend_axis_env(name, size))
  return stack


def _factor(spec: PartitionSpec, dim: int, mesh: Mesh) -> int:
  return math.prod(mesh.shape[a] for a in spec.axes_of(dim))


def _block_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> ShapedArray:
  return aval.update(shape=tuple(n // _factor(spec, d, mesh) for d, n in enumerate(aval.shape)))


def _global_aval(aval: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> ShapedArray:
  return aval.update(shape=tuple(n * _factor(spec, d, mesh) for d, n in enumerate(aval.shape)))


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
          f"{x._sharding.spec!r} for arg: {x.aval.str_short()}. `in_specs` is an optional "
          "argument so you can omit specifying it and shard_map will infer the in_specs from "
          "the arguments. If you want to reshard your inputs, you can use `ember.sharding."
          "reshard` on the arguments and then pass those args to shard_map.")


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
shard_map_p.pp_params = _pp_params


def _bind(consts, args, jaxpr: ClosedJaxpr, in_specs, params: dict, bind=None):
  """Bind shard_map on a const-free body whose hoisted ``consts`` come first, replicated."""
  specs = (P(),) * len(consts) + tuple(in_specs)
  new = dict(params, jaxpr=jaxpr, in_specs=specs)
  if bind is not None:
    return bind(shard_map_p, [*consts, *args], new)
  return shard_map_p.bind(*consts, *args, **new)


# --- autodiff ---------------------------------------------------------------------------------

_cache = LRUCache(512)


def _cached(key, build):
  out = _cache.get(key)
  if out is None:
    out = _cache[key] = build()
  return out


def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **rest):
  nonzero = tuple(type(t) is not Zero for t in tangents)
  with _mesh_env(mesh):
    (jvp_closed, consts), keep = _cached(("jvp", jaxpr, nonzero),
                                         lambda: _jvp_jaxpr(jaxpr, nonzero))
  nz = [t for t in tangents if type(t) is not Zero]
  specs = tuple(in_specs) + tuple(s for s, n in zip(in_specs, nonzero) if n)
  t_specs = tuple(s for s, k in zip(out_specs, keep) if k)
  outs = _bind(consts, [*primals, *nz], jvp_closed, specs,
               dict(rest, mesh=mesh, out_specs=tuple(out_specs) + t_specs))
  n = len(jaxpr.out_avals)
  t_iter = iter(outs[n:])
  return outs[:n], [next(t_iter) if k else Zero(tangent_aval(_global_aval(a, s, mesh)))
                    for k, a, s in zip(keep, jaxpr.out_avals, out_specs)]


def _stacked_residuals(pe, mesh: Mesh):
  """Known and unknown bodies where each residual the known part computes leaves with a new
  leading axis of size one per device (spec: every mesh axis), since it differs by device."""
  known = pe.known
  n_res = sum(kind == "out" for kind, _ in pe.residuals)
  n_known = len(known.out_avals) - n_res

  def known_fun(*xs):
    outs = eval_jaxpr(known.jaxpr, known.consts, *xs)
    return outs[:n_known] + [_expand(r) for r in outs[n_known:]]

  def unknown_fun(*xs):
    res = [_squeeze(x) if kind == "out" else x for x, (kind, _) in zip(xs, pe.residuals)]
    return eval_jaxpr(pe.unknown.jaxpr, pe.unknown.consts, *res, *xs[len(res):])

  known2 = hoist_consts(trace_to_jaxpr(known_fun, known.in_avals)[0])
  res_avals = [a.update(shape=(1,) + a.shape) if kind == "out" else a
               for a, (kind, _) in zip(pe.unknown.in_avals, pe.residuals)]
  unknown_avals = res_avals + list(pe.unknown.in_avals[len(pe.residuals):])
  unknown2 = hoist_consts(trace_to_jaxpr(unknown_fun, unknown_avals)[0])
  return known2, unknown2, n_known


def _expand(x):
  from ember import lax
  return lax.expand_dims(x, (0,))


def _squeeze(x):
  from ember import lax
  return lax.squeeze(x, (0,))


def _partial_eval(trace, args, params):
  jaxpr, mesh = params["jaxpr"], params["mesh"]
  in_specs, out_specs = params["in_specs"], params["out_specs"]
  unknowns = tuple(trace.is_unknown(x) for x in args)
  with _mesh_env(mesh):
    pe = partial_eval_jaxpr(jaxpr, unknowns, [False] * len(jaxpr.out_avals))
    (known, k_consts), (unknown, u_consts), n_known = _cached(
        ("pe", jaxpr, unknowns), lambda: _stacked_residuals(pe, mesh))
  all_axes = P(tuple(mesh.axis_names))
  known_specs = [s for s, u in zip(in_specs, unknowns) if not u]
  k_out_specs = [s for s, u in zip(out_specs, pe.out_unknown) if not u]
  res_specs = [in_specs[i] if kind == "in" else all_axes for kind, i in pe.residuals]
  n_computed = sum(kind == "out" for kind, _ in pe.residuals)
  with core.set_current_trace(trace.parent):
    known_outs = _bind(k_consts, [x for x, u in zip(args, unknowns) if not u], known,
                       known_specs, dict(params, out_specs=tuple(k_out_specs) +
                                         (all_axes,) * n_computed))
  computed = known_outs[n_known:]
  residuals = [args[i] if kind == "in" else computed[i] for kind, i in pe.residuals]
  u_specs = res_specs + [s for s, u in zip(in_specs, unknowns) if u]
  staged = _bind(u_consts, [*residuals, *[x for x, u in zip(args, unknowns) if u]], unknown,
                 u_specs, dict(params, out_specs=tuple(s for s, u in zip(out_specs,
                                                                        pe.out_unknown) if u)),
                 bind=trace.stage)
  k_iter, u_iter = iter(known_outs[:n_known]), iter(staged)
  return [next(u_iter) if u else next(k_iter) for u in pe.out_unknown]


def _transpose_body(closed: ClosedJaxpr, linear, ct_zero, in_specs, mesh: Mesh):
  """(residuals, nonzero cotangents) -> cotangents of the linear inputs, each summed over the
  mesh axes its spec replicates it over."""
  j = closed.jaxpr
  res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
  lin_vars = [v for v, lin in zip(j.invars, linear) if lin]
  lin_specs = [s for s, lin in zip(in_specs, linear) if lin]
  as_linear = type(j)(res_vars, lin_vars, j.outvars, j.eqns)
  res_avals = [v.aval for v in res_vars]

  def fun(*xs):
    res, cts = xs[:len(res_avals)], iter(xs[len(res_avals):])
    ct_all = [Zero(tangent_aval(a)) if z else next(cts)
              for a, z in zip(closed.out_avals, ct_zero)]
    ins = backward_pass(as_linear, res, ct_all)
    outs = []
    for c, v, spec in zip(ins, lin_vars, lin_specs):
      c = instantiate(c, v.aval)
      missing = _unnamed_axes(spec, mesh)
      outs.append(coll.psum_p.bind(c, axes=missing, axis_index_groups=None) if missing else c)
    return outs

  ct_avals = [a for a, z in zip(closed.out_avals, ct_zero) if not z]
  return hoist_consts(trace_to_jaxpr(fun, res_avals + ct_avals)[0])


def _transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **rest):
  from ember import lax
  linear = tuple(is_undefined(x) for x in args)
  ct_zero = tuple(type(c) is Zero or tangent_aval(a).dtype == float0
                  for c, a in zip(cts, jaxpr.out_avals))
  if all(ct_zero):
    return [Zero(x.aval) if is_undefined(x) else None for x in args]
  with _mesh_env(mesh):
    t_closed, consts = _cached(("t", jaxpr, linear, ct_zero, in_specs, mesh),
                               lambda: _transpose_body(jaxpr, linear, ct_zero, in_specs, mesh))
  scaled = []  # a replicated output's one cotangent, shared by its copies
  for c, z, spec in zip(cts, ct_zero, out_specs):
    copies = math.prod(mesh.shape[a] for a in _unnamed_axes(spec, mesh))
    if not z:
      scaled.append(c if copies == 1 else
                    lax.div(c, np.asarray(copies, core.get_aval(c).dtype)))
  specs = [s for s, lin in zip(in_specs, linear) if not lin] + \
      [s for s, z in zip(out_specs, ct_zero) if not z]
  outs = _bind(consts, [*[x for x in args if not is_undefined(x)], *scaled], t_closed, specs,
               dict(rest, mesh=mesh, out_specs=tuple(s for s, lin in zip(in_specs, linear)
                                                     if lin)))
  it = iter(outs)
  return [next(it) if lin else None for lin in linear]


shard_map_p.def_rules(jvp=_jvp, partial_eval=_partial_eval, transpose=_transpose)


# --- batching ---------------------------------------------------------------------------------

def _batch(axis, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **rest):
  """The batch axis is one more dimension that no mesh axis splits."""
  with _mesh_env(mesh):
    batched, consts, out_dims = batch_jaxpr(jaxpr, axis.size, dims, axis.name, axis.spmd_name)
  specs = [s if d is None else s.with_unsplit_dim(d) for s, d in zip(in_specs, dims)]
  new_out = tuple(s if d is None else s.with_unsplit_dim(d) for s, d in zip(out_specs, out_dims))
  outs = _bind(consts, vals, batched, specs, dict(rest, mesh=mesh, out_specs=new_out))
  return outs, list(out_dims)


shard_map_p.batch_with_axis = _batch


# --- which outputs vary across devices (check_vma) -----------------------------------------------

def _varying(jaxpr, in_vma: list) -> list:
  """For each output of ``jaxpr``, the set of mesh axes along which it may differ by device."""
  env = dict(zip(jaxpr.invars, in_vma))

  def read(x):
    return env.get(x, frozenset()) if not hasattr(x, "val") else frozenset()

  for eqn in jaxpr.eqns:
    ins = frozenset().union(*[read(x) for x in eqn.invars])
    prim = eqn.primitive
    names = frozenset(prim.axis_names(eqn.params)) if hasattr(prim, "axis_names") else None
    sub = eqn.params.get("jaxpr")
    if prim in (coll.psum_p, coll.pmax_p, coll.pmin_p):
      outs = [ins - names] * len(eqn.outvars)
    elif names is not None:  # axis_index, all_gather, ppermute...: vary over their axes
      outs = [ins | names] * len(eqn.outvars)
    elif isinstance(sub, ClosedJaxpr) and len(sub.jaxpr.invars) == len(eqn.invars) and \
        len(sub.jaxpr.outvars) == len(eqn.outvars):
      outs = _varying_call(sub.jaxpr, [read(x) for x in eqn.invars], eqn.params)
    else:
      outs = [ins] * len(eqn.outvars)
    for v, o in zip(eqn.outvars, outs):
      env[v] = o
  return [read(x) for x in jaxpr.outvars]


def _varying_call(jaxpr, in_vma: list, params: dict) -> list:
  """A call's outputs; for a loop (scan), its carries vary over what any iteration makes them
  vary over, found by iterating to a fixed point."""
  n_carry, n_consts = params.get("num_carry"), params.get("num_consts")
  if n_carry is None:
    return _varying(jaxpr, in_vma)
  while True:
    outs = _varying(jaxpr, in_vma)
    carry = in_vma[n_consts:n_consts + n_carry]
    grown = [c | o for c, o in zip(carry, outs[:n_carry])]
    if grown == carry:
      return outs
    in_vma = in_vma[:n_consts] + grown + in_vma[n_consts + n_carry:]


def _check_out_specs(fun_name, jaxpr: ClosedJaxpr, in_specs, out_specs, mesh: Mesh) -> None:
  in_vma = [frozenset(s.mesh_axes()) for s in in_specs]
  for i, (vma, spec) in enumerate(zip(_varying(jaxpr.jaxpr, in_vma), out_specs)):
    bad = vma - set(spec.mesh_axes())
    if bad:
      order = [a for a in mesh.axis_names if a in bad]
      named = "{" + ", ".join(a for a in mesh.axis_names if a in spec.mesh_axes()) + "}"
      raise ValueError(
          f"shard_map applied to the function '{fun_name}' was given out_specs which require "
          "replication which can't be statically inferred given the mesh:\n\n"
          f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
          f"{mesh.axis_names}.\n\nout_specs is {spec!r} which implies that the corresponding "
          f"output value is only varying across mesh axes {named} and not "
          f"{{{', '.join(order)}}}, but it was inferred to be possibly varying over "
          f"{{{', '.join(order)}}}\n\nCheck if these output values are meant to be replicated "
          "over those mesh axes. If not, consider revising the corresponding out_specs "
          "entries. If so, consider disabling the check by passing the check_vma=False "
          "argument to `ember.shard_map`.")


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
          f"shape {a.str_short()}, which has rank {a.ndim} (and {a.ndim} < {len(spec)})\n\n"
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
            f"{mesh.axis_names}.\n\nthe passed {where} of shape {a.str_short()}, corresponds "
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

    def body(*blocks):
      out = self._fun(*pytree.unflatten(in_tree, blocks))
      out_leaves, out_tree = pytree.flatten(out)
      out_tree_box.append(out_tree)
      specs = _spec_leaves(self._out_specs, out, "out_specs")
      _check_specs(specs, mesh, "out_specs")
      out_specs_box.append(tuple(specs))
      return out_leaves

    blocks = [_block_aval(a, s, mesh) for a, s in zip(avals, in_specs)]
    debug = DebugInfo("shard_map", self._fun, lambda: names)
    with _mesh_env(mesh):
      closed, _ = trace_to_jaxpr(body, blocks, debug)
    out_specs = out_specs_box[0]
    if self._check_vma:
      _check_out_specs(getattr(self._fun, "__name__", "<fun>"), closed, in_specs, out_specs,
                       mesh)
    jaxpr, consts = hoist_consts(closed)
    outs = _bind(consts, leaves, jaxpr, in_specs,
                 dict(mesh=mesh, out_specs=out_specs, check_vma=self._check_vma,
                      manual_axes=frozenset(mesh.axis_names)))
    return pytree.unflatten(out_tree_box[0], outs)


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
  mesh = mesh if mesh is not None else current_mesh()
  if not isinstance(mesh, Mesh):
    raise TypeError("shard_map requires mesh= to be an ember.sharding.Mesh (e.g. from "
                    f"ember.make_mesh), got {mesh!r}.")
  return _ShardMapped(f, mesh, in_specs, out_specs, axis_names, check_vma)
