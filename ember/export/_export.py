"""``export``: lowering a jitted function to a self-contained StableHLO module.

``export(jit(f))(*specs)`` traces ``f`` at the arguments' shapes and dtypes (arrays or
``ShapeDtypeStruct``s), lowers the jaxpr to a module whose ``main`` takes the used arguments
(``module_kept_var_idx``) with the jaxpr's constants written into it, checks it (custom calls
must be of targets with compatibility guarantees, as JAX's list, unless a
``DisabledSafetyCheck`` allows them; no host callbacks), and stores it as a StableHLO portable
artifact. Its VJP is exported on demand from the traced jaxpr (``Exported.vjp``).

ember lowers for the CPU: exporting for other platforms (or several, whose modules then take
JAX's leading platform-index argument) is refused when the module calls CPU kernels (LAPACK),
since ember has no other lowering for them. Shape polymorphism (symbolic dimensions) is not
supported: ``export`` raises ``NotImplementedError`` for symbolic argument shapes.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Callable

import numpy as np

from ember import pytree
from ember.backend import lowering
from ember.core.aval import ShapedArray
from ember.export._exported import DisabledSafetyCheck, Exported

__all__ = ["export", "default_export_platform"]

CALLING_CONVENTION_VERSION = 10
_KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")

_LAPACK = [f"lapack_{t}{r}_ffi" for r in ("potrf", "geqrf", "getrf", "geev", "gesdd", "gees",
                                           "trsm", "gtsv", "gehrd") for t in "sdcz"]
_LAPACK += [f"lapack_{t}{r}_ffi" for t, r in (
    ("s", "orgqr"), ("d", "orgqr"), ("c", "ungqr"), ("z", "ungqr"),
    ("s", "syevd"), ("d", "syevd"), ("c", "heevd"), ("z", "heevd"),
    ("s", "sytrd"), ("d", "sytrd"), ("c", "hetrd"), ("z", "hetrd"))]
_GPU_KERNELS = [
    "cu_lu_pivots_to_permutation", "cusolver_getrf_ffi", "hip_lu_pivots_to_permutation",
    "hipsolver_getrf_ffi", "cusolver_geqrf_ffi", "cusolver_orgqr_ffi", "hipsolver_geqrf_ffi",
    "hipsolver_orgqr_ffi", "cusolver_potrf_ffi", "hipsolver_potrf_ffi", "cusolver_syevd_ffi",
    "hipsolver_syevd_ffi", "cusolver_gesvd_ffi", "cusolver_gesvdj_ffi", "hipsolver_gesvd_ffi",
    "hipsolver_gesvdj_ffi", "hipsolver_gesdd_ffi", "cusolver_sytrd_ffi", "hipsolver_sytrd_ffi",
    "cusparse_gtsv2_ffi"]
# The custom-call targets JAX 0.10.2 guarantees stable (the others need a DisabledSafetyCheck).
STABLE_CUSTOM_CALL_TARGETS = frozenset(_LAPACK + _GPU_KERNELS + [
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
    "cu_threefry2x32_ffi", "hip_threefry2x32_ffi", "Eigh", "Qr",
    "ProductOfElementaryHouseholderReflectors", "LuDecomposition", "ApproxTopK",
    "stablehlo.dynamic_approx_top_k", "tf.call_tf_function", "tpu_custom_call",
    "AllocateBuffer", "mosaic_gpu_v2", "stablehlo.dynamic_reduce_window",
    "stablehlo.dynamic_rng_bit_generator", "stablehlo.dynamic_top_k", "shape_assertion"])


def default_export_platform() -> str:
  """The platform ``export`` lowers for when none is given: the default backend's.

  Example:
      >>> from ember import export
      >>> export.default_export_platform()
      'cpu'
  """
  from ember.backend.client import default_backend
  return default_backend()


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = (),
           _override_lowering_rules=None) -> Callable[..., Exported]:
  """Export a jitted function: ``export(jit(f))(*args, **kwargs)`` is an ``Exported``.

  Args:
    fun_jit: the function, made by ``ember.jit``.
    platforms: the platforms to export for (default: ``default_export_platform()``).
    disabled_checks: ``DisabledSafetyCheck``s to skip.

  Returns:
    A function of the arguments (arrays, or ``ShapeDtypeStruct``s and other objects with
    ``shape`` and ``dtype``; static arguments as ``jit`` takes them) returning the ``Exported``.

  Raises:
    ValueError: ``fun_jit`` is not jitted; the function calls a custom-call target without
      compatibility guarantees.
    NotImplementedError: symbolic shapes, shardings over several devices, host callbacks, or
      platforms other than the CPU for a function calling CPU kernels.

  Example:
      >>> import numpy as np, ember, ember.numpy as jnp
      >>> from ember import export
      >>> exp = export.export(ember.jit(jnp.sin))(np.arange(4, dtype=np.float32))
      >>> exp.in_avals
      (ShapedArray(float32[4]),)
      >>> export.deserialize(exp.serialize()).call(np.float32([0.1, 0.2, 0.3, 0.4]))
      Array([0.09983342, 0.19866933, 0.29552022, 0.38941833], dtype=float32)
  """
  from ember.stages import Wrapped
  if not isinstance(fun_jit, Wrapped):
    raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
  if _override_lowering_rules is not None:
    raise NotImplementedError("export(_override_lowering_rules=...) is not supported by "
                              "ember; leave it out.")
  checks = tuple(disabled_checks)
  for check in checks:
    if not isinstance(check, DisabledSafetyCheck):
      raise TypeError(f"disabled_checks must hold DisabledSafetyCheck objects, got {check!r}.")

  def do_export(*args_specs, **kwargs_specs) -> Exported:
    chosen = tuple(platforms) if platforms is not None else (default_export_platform(),)
    _refuse_symbolic(args_specs, kwargs_specs)
    traced = fun_jit.trace(*args_specs, **kwargs_specs)
    if traced._layout is not None:
      raise NotImplementedError(
          f"export of {traced.fun_name}: a function run over a device mesh (sharded arguments, "
          "in_shardings/out_shardings or shard_map) cannot be exported by ember yet.")
    return export_traced(traced.jaxpr, traced.fun_name, traced.in_tree, traced.out_tree,
                         chosen, checks, keep_unused=traced._wrapped._keep_unused)
  return do_export


def _refuse_symbolic(args_specs, kwargs_specs) -> None:
  from ember.export._shape_poly import is_symbolic_dim
  for path, leaf in pytree.tree_flatten_with_path((args_specs, kwargs_specs))[0]:
    shape = getattr(leaf, "shape", ())
    if any(is_symbolic_dim(d) for d in shape):
      raise NotImplementedError(
          f"export with symbolic dimensions (shape polymorphism) is not supported by ember: "
          f"argument {pytree.keystr(path)} has shape {tuple(shape)}. Export with concrete "
          "shapes.")


def export_traced(closed, fun_name: str, in_tree, out_tree, platforms: tuple,
                  disabled_checks: tuple, keep_unused: bool = False) -> Exported:
  """The ``Exported`` of a traced jaxpr (``closed``: flat arguments to flat results)."""
  from jaxlib import _jax
  n = len(closed.in_avals)
  kept = tuple(range(n)) if keep_unused else \
      tuple(i for i, u in enumerate(_used_invars(closed.jaxpr)) if u)
  text, context = _module_text(closed, fun_name, kept, out_tree, len(platforms) > 1,
                               platforms[0] if len(platforms) == 1 else "cpu")
  if context["host_callbacks"]:
    raise NotImplementedError("serialization of host_callbacks is not yet implemented")
  targets = _custom_call_targets(lowering.parse_module(text))
  _check_custom_calls(targets, disabled_checks)
  other = [p for p in platforms if p != "cpu"]
  cpu_kernels = [t for t in targets if t.startswith("lapack_") or "cpu" in t or
                 t == "tridiagonal_solve_perturbed_ffi"]
  if cpu_kernels and other:
    raise NotImplementedError(
        f"export of {fun_name} for platforms {platforms}: the function calls the CPU kernels "
        f"{sorted(cpu_kernels)}, which only the CPU has; export it for ('cpu',), or for one "
        "GPU platform alone (its own kernels are used then).")
  blob = _jax.mlir.serialize_portable_artifact(text, _target_version(), False)
  return Exported(
      fun_name=fun_name, in_tree=in_tree, in_avals=tuple(closed.in_avals), out_tree=out_tree,
      out_avals=tuple(closed.out_avals), _has_named_shardings=True,
      _in_named_shardings=(None,) * n, _out_named_shardings=(None,) * len(closed.out_avals),
      in_shardings_hlo=(None,) * n, out_shardings_hlo=(None,) * len(closed.out_avals),
      nr_devices=1, platforms=tuple(platforms), ordered_effects=(),
      unordered_effects=_effects(closed.jaxpr),
      disabled_safety_checks=disabled_checks, mlir_module_serialized=blob,
      calling_convention_version=CALLING_CONVENTION_VERSION, module_kept_var_idx=kept,
      uses_global_constants=len(platforms) > 1,
      _get_vjp=_vjp_exporter(closed, platforms, disabled_checks))


def _has_side_effect(eqn) -> bool:
  """Whether ``eqn`` (or an equation of a jaxpr it holds) runs for its side effects."""
  from ember.core.jaxpr import ClosedJaxpr, Jaxpr
  if eqn.params.get("has_side_effect") is True:
    return True
  for p in eqn.params.values():
    for sub in (p if isinstance(p, tuple) else (p,)):
      if isinstance(sub, (ClosedJaxpr, Jaxpr)) and \
          any(_has_side_effect(e) for e in getattr(sub, "jaxpr", sub).eqns):
        return True
  return False


def _effects(jaxpr) -> tuple:
  """The effects JAX would record: an FFI effect for side-effecting FFI calls."""
  from ember.ffi import FfiEffect
  return (FfiEffect(),) if any(_has_side_effect(e) for e in jaxpr.eqns) else ()


def _used_invars(jaxpr) -> list[bool]:
  """Whether each argument reaches a result or an equation with side effects."""
  live = {id(v) for v in jaxpr.outvars}
  for eqn in reversed(jaxpr.eqns):
    if any(id(v) in live for v in eqn.outvars) or _has_side_effect(eqn):
      live.update(id(v) for v in eqn.invars)
  return [id(v) in live for v in jaxpr.invars]


def _target_version() -> str:
  """The StableHLO version modules are serialized for: one at least 4 weeks old, as JAX's."""
  from jaxlib.mlir.dialects import stablehlo
  return stablehlo.get_version_from_compatibility_requirement(
      stablehlo.StablehloCompatibilityRequirement.WEEK_4)


# --- the module -----------------------------------------------------------------------------------

def module_name(fun_name: str) -> str:
  """``jit_<name>``, the name made a valid symbol (``<lambda>`` gives ``jit__lambda``)."""
  return "jit_" + re.sub(r"[^0-9A-Za-z_]", "_", fun_name).rstrip("_")


def _escape_string(text: str) -> str:
  """``text`` as the body of an MLIR string literal."""
  return "".join(c if c.isprintable() and c not in '"\\' and ord(c) < 128 else
                 "".join(f"\\{b:02X}" for b in c.encode("utf-8")) for c in text)


def _result_infos(out_tree) -> list[str]:
  example = pytree.unflatten(out_tree, [0] * out_tree.num_leaves)
  return ["result" + pytree.keystr(tuple(p)) for p, _ in pytree.tree_flatten_with_path(example)[0]]


def _module_text(closed, fun_name: str, kept: tuple, out_tree, platform_arg: bool,
                 platform: str = "cpu") -> tuple[str, dict]:
  """The module's text for ``platform`` (its GPU lowerings for "cuda"/"rocm"), and the
  lowering's module context (host callbacks, functions)."""
  from ember.backend.lowering import LoweringContext, Value, lower_jaxpr
  jaxpr = closed.jaxpr
  ctx = LoweringContext()
  ctx.module_context = {"host_callbacks": [], "sdy_meshes": {}, "functions": {},
                        "platform": platform}
  consts = [ctx.constant(np.asarray(c), v.aval) for c, v in zip(closed.consts, jaxpr.constvars)]
  params = []
  if platform_arg:
    params.append('%arg0: tensor<i32> {jax.global_constant = "_platform_index"}')
  args = []
  for i, v in enumerate(jaxpr.invars):
    if i in kept:
      args.append(Value(f"%arg{len(params)}", v.aval))
      params.append(f"{args[-1].name}: {args[-1].type}")
    else:  # not read by the results; whatever still reads it reads zeros
      args.append(ctx.constant(np.zeros((), v.aval.dtype), v.aval))
  outs = lower_jaxpr(ctx, jaxpr, consts, args)
  results = ", ".join(f'{o.type} {{jax.result_info = "{_escape_string(info)}"}}'
                      for o, info in zip(outs, _result_infos(out_tree)))
  ret = f"    func.return {', '.join(o.name for o in outs)} : " \
      f"{', '.join(o.type for o in outs)}" if outs else "    func.return"
  attrs = (f"jax.uses_shape_polymorphism = {'true' if platform_arg else 'false'}, "
           "mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32")
  body = "\n".join(ctx.lines)
  functions = "".join(f"{f}\n" for f in ctx.module_context["functions"].values())
  text = (f"module @{module_name(fun_name)} attributes {{{attrs}}} {{\n"
          f"  func.func public @main({', '.join(params)}) -> ({results}) {{\n{body}\n{ret}\n  }}\n"
          f"{functions}}}\n")
  return text, ctx.module_context


def _custom_call_targets(module) -> set[str]:
  """The targets of the module's ``stablehlo.custom_call``s."""
  from jaxlib.mlir import ir
  found: set[str] = set()

  def walk(op) -> None:
    if op.name == "stablehlo.custom_call":
      found.add(ir.StringAttr(op.attributes["call_target_name"]).value)
    for region in op.regions:
      for block in region:
        for inner in block:
          walk(inner.operation)
  with module.context:
    walk(module.operation)
  return found


def _check_custom_calls(targets: set[str], disabled_checks: tuple) -> None:
  allowed = set(STABLE_CUSTOM_CALL_TARGETS)
  allowed.update(c.is_custom_call() for c in disabled_checks if c.is_custom_call())
  if "ALL" in allowed:
    return
  bad = sorted(targets - allowed)
  if bad:
    raise ValueError(
        "Cannot serialize code with custom calls whose targets have no compatibility "
        "guarantees. See https://docs.jax.dev/en/latest/export/export.html#compatibility-"
        "guarantees-for-custom-calls. Examples are:\n"
        + "\n".join(f"stablehlo.custom_call @{t}" for t in bad) + ".\n")


# --- the VJP --------------------------------------------------------------------------------------
# Cotangents of integer and boolean values are float0 (as in JAX): the VJP's avals say so, and
# its module takes and returns them as booleans (as JAX lowers float0).

def _tangent_aval(aval):
  from ember import dtypes
  if dtypes.issubdtype(aval.dtype, np.inexact):
    return aval
  return ShapedArray(aval.shape, np.dtype(dtypes.float0), aval.weak_type)


def module_aval(aval):
  """The aval a module takes or returns for ``aval`` (float0 becomes bool)."""
  from ember import dtypes
  if aval.dtype == dtypes.float0:
    return ShapedArray(aval.shape, np.dtype(np.bool_))
  return aval


def _spec(aval):
  from ember.core.aval import ShapeDtypeStruct
  aval = module_aval(aval)
  return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)


def _vjp_exporter(closed, platforms: tuple, disabled_checks: tuple) -> Callable[[Exported],
                                                                                Exported]:
  """``Exported._get_vjp`` of a function traced to ``closed``: exports (once) the function of
  the primal arguments and the results' cotangents giving the arguments' cotangents."""
  cache: list = []

  def get_vjp(primal: Exported) -> Exported:
    if not cache:
      cache.append(_export_vjp(closed, primal, platforms, disabled_checks))
    return cache[0]
  return get_vjp


def _export_vjp(closed, primal: Exported, platforms: tuple, disabled_checks: tuple) -> Exported:
  import dataclasses
  import ember
  from ember import dtypes
  from ember.core.eval import eval_jaxpr
  float0 = np.dtype(dtypes.float0)
  n_in = len(primal.in_avals)
  ct_avals = [_tangent_aval(a) for a in primal.out_avals]

  def fun_vjp_jax(*args_and_cts):
    primals, cts = args_and_cts[:n_in], list(args_and_cts[n_in:])
    cts = [np.zeros(a.shape, float0) if a.dtype == float0 else ct
           for ct, a in zip(cts, ct_avals)]
    _, pullback = ember.vjp(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs), *primals)
    return tuple(ember.numpy.zeros(np.shape(ct), bool) if np.result_type(ct) == float0 else ct
                 for ct in pullback(cts))
  specs = [_spec(a) for a in list(primal.in_avals) + ct_avals]
  exported = export(ember.jit(fun_vjp_jax), platforms=platforms,
                    disabled_checks=disabled_checks)(*specs)
  return dataclasses.replace(exported, in_avals=tuple(primal.in_avals) + tuple(ct_avals),
                             out_avals=tuple(_input_ct_aval(a) for a in primal.in_avals))


def _input_ct_aval(aval):
  """The aval of an argument's cotangent, a VJP's result (float0 ones are never weak)."""
  ct = _tangent_aval(aval)
  return ct if ct is aval else ct.update(weak_type=False)
