"""JAX 0.10.2's public names ember does not support, each with the reason and the alternative.

One table serves the names themselves and docs/differences.md:

- ``UNSUPPORTED`` maps a JAX name (``"jax.interpreters.mlir.LoweringRuleContext"``) to a
  ``Refusal(reason, alternative)``. The ember module standing for that JAX module answers the
  name through its ``__getattr__`` (``module_getattr``) with a stub: calling it, instantiating
  or subclassing it, or reading one of its attributes raises ``NotImplementedError`` naming the
  name, the reason and the alternative. Only a type probe answers: ``isinstance(x, stub)`` is
  False, which is true of every ember value (a library testing types keeps working).
- ``MODULES`` maps a JAX module ember has no counterpart for to its refusal; importing the
  ``ember.`` module of that name raises ``ModuleNotFoundError`` saying why
  (``install_module_finder``, called once by ``ember/__init__.py``).
- ``ALIASES`` maps the names a JAX module holds only because it imported them for its own use
  (``jax.experimental.ode.tree_map``, ``jax.experimental.sparse.bcoo.Array``) to the ember
  object of the same meaning, answered by the same ``__getattr__``.

``tools/make_docs_surface.py`` prints the refusals, grouped by reason, into docs/differences.md.
Stubs and aliases live in ``__getattr__``, not in the module's globals, so a refused name such as
``map`` never shadows the builtin inside ember's own module.

Example:
    >>> from ember.interpreters import mlir
    >>> mlir.LoweringRuleContext(None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: jax.interpreters.mlir.LoweringRuleContext is not supported by ember: ...
"""
from __future__ import annotations

import importlib
import importlib.abc
import sys
from typing import Callable, NamedTuple


class Refusal(NamedTuple):
  """Why ember does not provide a name, and what to use instead (None: nothing)."""
  reason: str
  alternative: str | None = None


# --- reasons shared by many names ---------------------------------------------------------------

MLIR = Refusal(
    "part of JAX's lowering through MLIR's Python bindings (ir.Value, ModuleContext, "
    "LoweringRuleContext); ember emits StableHLO text from its own lowering context, so these "
    "objects do not exist",
    "ember.interpreters.mlir.lower_fun + register_lowering (a rule written in ember "
    "operations), or ember.ffi for a compiled kernel")
NOT_API = Refusal(
    "an implementation detail of JAX's module, visible only because the module has no "
    "__all__; it is not part of JAX's API")
HELPER = Refusal(
    "JAX's internal list helper (jaxlib.utils), visible only because the module imported it",
    "Python's map / zip(..., strict=True)")
TRACE_INTERNALS = Refusal(
    "JAX's internal trace machinery for this transformation (WrappedFun transformations, "
    "trace and tracer classes); ember's transformation is written differently",
    "the transformation's public function")
NO_PRIMITIVE = Refusal(
    "ember implements this operation without a primitive of that name, so there is nothing "
    "to bind or to register rules on")
LEFTOVER = Refusal(
    "a loop variable left in JAX's module namespace after the module registered its rules; "
    "not API")
SPARSE_GPU = Refusal(
    "cuSPARSE-specific parts of JAX's sparse formats (the dtypes it takes, its efficiency "
    "warning); ember's sparse operations lower to gathers and scatter-adds everywhere",
    "the format's operations")
SHAPE_POLY = Refusal(
    "JAX's shape polymorphism; ember's symbolic dimensions (ember.export.symbolic_shape) do not "
    "reach primitives")
EXTENDED_DTYPES = Refusal(
    "JAX's experimental extended-dtype and hijax machinery (user-defined array types with "
    "quasi-dynamic data); ember's only extended dtypes are PRNG keys")


def _each(module: str, names: str, refusal: Refusal) -> dict[str, Refusal]:
  return {f"{module}.{name}": refusal for name in names.split()}


UNSUPPORTED: dict[str, Refusal] = {
    **_each("jax.custom_derivatives", "remat_opt_p", NO_PRIMITIVE),
    **_each("jax.example_libraries.optimizers", "map safe_map safe_zip zip", HELPER),
    **_each("jax.experimental", "EArray cur_qdd primal_tangent_dtype", EXTENDED_DTYPES),
    **_each("jax.experimental.jet", "JetTrace JetTracer call_param_updaters jet_fun "
            "jet_subtrace traceable", TRACE_INTERNALS),
    **_each("jax.experimental.multihost_utils",
            "global_array_to_host_local_array_impl global_array_to_host_local_array_p "
            "gtl_abstract_eval host_local_array_to_global_array_impl "
            "host_local_array_to_global_array_p ltg_abstract_eval ltg_batcher",
            Refusal("the primitive JAX binds for host_local_array_to_global_array and "
                    "global_array_to_host_local_array, and its rules; ember converts without "
                    "a primitive",
                    "multihost_utils.host_local_array_to_global_array / "
                    "global_array_to_host_local_array")),
    **_each("jax.experimental.multihost_utils", "safe_zip", HELPER),
    **_each("jax.experimental.ode", "abs2 fit_4th_order_polynomial initial_step_size "
            "interp_fit_dopri mean_error_ratio optimal_step_size runge_kutta_step "
            "ravel_first_arg ravel_first_arg_",
            Refusal(NOT_API.reason, "ember.experimental.ode.odeint")),
    **_each("jax.experimental.ode", "map safe_map safe_zip zip", HELPER),
    **_each("jax.experimental.sparse.ad", "api_boundary is_sparse", NOT_API),
    **_each("jax.experimental.sparse.ad", "safe_zip", HELPER),
    **_each("jax.experimental.sparse.bcoo", "CUSPARSE_DATA_DTYPES CUSPARSE_INDEX_DTYPES "
            "CuSparseEfficiencyWarning", SPARSE_GPU),
    **_each("jax.experimental.sparse.bcoo", "coo_spmm_p coo_spmv_p", NO_PRIMITIVE),
    **_each("jax.experimental.sparse.bcoo", "BCOOProperties Buffer nfold_vmap ranges_like "
            "remaining", NOT_API),
    **_each("jax.experimental.sparse.bcoo", "safe_zip", HELPER),
    **_each("jax.experimental.sparse.bcsr", "CuSparseEfficiencyWarning", SPARSE_GPU),
    **_each("jax.experimental.sparse.bcsr", "safe_zip", HELPER),
    **_each("jax.experimental.sparse.coo", "CuSparseEfficiencyWarning", SPARSE_GPU),
    **_each("jax.experimental.sparse.csr", "CuSparseEfficiencyWarning", SPARSE_GPU),
    **_each("jax.experimental.sparse.linalg", "spsolve_p", NO_PRIMITIVE),
    **_each("jax.experimental.sparse.transform",
            "bcoo_impl bcsr_impl flatten_fun_nokwargs lift_jvp sparsify_fun sparsify_subtrace",
            Refusal(TRACE_INTERNALS.reason, "ember.experimental.sparse.sparsify")),
    **_each("jax.experimental.sparse.transform", "impl method prim", LEFTOVER),
    **_each("jax.experimental.sparse.transform", "safe_map safe_zip", HELPER),
    **_each("jax.experimental.sparse.util", "flatten_axes", NOT_API),
    **_each("jax.experimental.sparse.util", "safe_zip", HELPER),
    **_each("jax.extend.core", "CallPrimitive", NO_PRIMITIVE),
    **_each("jax.extend.core.primitives", "call_p closed_call_p", Refusal(
        "ember stages calls of traced functions as jit equations; it has no call or "
        "closed_call primitive", "ember.extend.core.primitives.jit_p")),
    **_each("jax.extend.core.primitives", "eq_to_p le_to_p lt_to_p", SHAPE_POLY),
    **_each("jax.extend.core.primitives", "get_p swap_p", Refusal(
        "ember's Refs hold their values (ember/ref.py), so reading or writing one stages no "
        "get or swap equation", "ember.ref.get / ember.ref.swap")),
    **_each("jax.extend.core.primitives",
            "approx_top_k_p device_put_p random_bits_p random_fold_in_p random_gamma_p "
            "random_seed_p random_split_p select_and_scatter_p", NO_PRIMITIVE),
    **_each("jax.extend.mlir", "lower_with_sharding_in_types", MLIR),
    **_each("jax.interpreters.ad", "jvp linearize", TRACE_INTERNALS),
    **_each("jax.interpreters.mlir",
            "AxisContext ConstantHandler DEVICE_TO_DEVICE_TYPE LoweringParameters "
            "LoweringResult LoweringRule LoweringRuleContext ModuleContext "
            "RECV_FROM_HOST_TYPE "
            "SEND_TO_HOST_TYPE SPMDAxisContext ShapePolyLoweringState ShardingContext Token "
            "TokenSet Value aval_to_ir_type aval_to_ir_types core_call_lowering "
            "dense_int_array dense_int_elements dtype_to_ir_type emit_python_callback "
            "flatten_ir_types flatten_ir_values i32_attr i64_attr ir_attribute ir_constant "
            "ir_constants ir_tree_registry ir_type_handlers jaxpr_subcomp lower_jaxpr_to_fun "
            "lower_jaxpr_to_module lowerable_effects make_ir_context merge_mlir_modules "
            "module_to_bytecode module_to_string register_constant_handler shape_tensor "
            "token_type unflatten_ir_values_like_types", MLIR),
    **_each("jax.interpreters.partial_eval",
            "custom_partial_eval_rules dce_jaxpr_call_rule dce_jaxpr_closed_call_rule "
            "partial_eval_jaxpr_custom_rules",
            Refusal("JAX's tables of partial-evaluation and dead-code rules; ember's primitives "
                    "carry their partial_eval rules themselves, with another signature",
                    "ember.interpreters.partial_eval.dce_jaxpr")),
    **_each("jax.interpreters.xla", "canonicalize_dtype_handlers", Refusal(
        "JAX's table of per-type value canonicalizers; ember canonicalizes values by type "
        "without a registry")),
    **_each("jax.random", "random_gamma_p", NO_PRIMITIVE),
}

_KERNELS = Refusal(
    "the Pallas and Mosaic kernel languages (lowered to Triton or Mosaic for GPUs and TPUs), "
    "which ember does not have", "write the kernel with ember.numpy / ember.lax, or call a "
    "compiled one through ember.ffi.ffi_call")
_COLOCATED = Refusal(
    "runs Python on CPU devices colocated with accelerators through IFRT's proxy, which "
    "ember's PJRT client does not have", "ember.pure_callback / ember.experimental.io_callback")
_SOURCE_MAPPER = Refusal(
    "source maps of JAX's HLO and MLIR dumps (its compiler passes and location metadata)",
    "ember.jit(f).lower(...).as_text()")

MODULES: dict[str, Refusal] = {
    "jax.experimental.array_serialization": Refusal(
        "checkpointing through TensorStore, which ember does not depend on",
        "ember.device_get the arrays and save them with NumPy or orbax"),
    "jax.experimental.buffer_callback": Refusal(
        "callbacks that receive device buffers in place (XLA FFI execution contexts)",
        "ember.pure_callback / ember.ffi.ffi_call"),
    "jax.experimental.colocated_python": _COLOCATED,
    "jax.experimental.colocated_python.api": _COLOCATED,
    "jax.experimental.colocated_python.func": _COLOCATED,
    "jax.experimental.colocated_python.func_backend": _COLOCATED,
    "jax.experimental.colocated_python.obj": _COLOCATED,
    "jax.experimental.colocated_python.obj_backend": _COLOCATED,
    "jax.experimental.colocated_python.serialization": _COLOCATED,
    "jax.experimental.compute_on": Refusal(
        "running parts of a program on the host next to an accelerator (XLA host offloading), "
        "which ember does not do"),
    "jax.experimental.control_deps": Refusal(
        "scheduling dependencies between effects in XLA's scheduler", "ember.lax.optimization_barrier"),
    "jax.experimental.custom_partitioning": Refusal(
        "user partitioning rules called back by XLA's SPMD partitioner (Shardy sharding rules)",
        "ember.shard_map"),
    "jax.experimental.fused": Refusal(
        "fusion hints for GPU and TPU compilers"),
    "jax.experimental.hijax": EXTENDED_DTYPES,
    "jax.experimental.layout": Refusal(
        "device memory layouts chosen by or given to the compiler; ember's arrays are "
        "row-major"),
    "jax.experimental.mosaic": _KERNELS,
    "jax.experimental.pallas": _KERNELS,
    "jax.experimental.profiler": Refusal(
        "XLA's profiled instructions protos (for GPU latency-hiding scheduling)", "ember.profiler"),
    "jax.experimental.rnn": Refusal(
        "cuDNN's LSTM kernels (JAX's rnn.lstm runs on GPUs only), which ember does not call",
        "write the recurrence with ember.lax.scan"),
    "jax.experimental.roofline": Refusal(
        "JAX's roofline cost model of its own primitives", "ember.jit(f).lower(...).cost_analysis()"),
    "jax.experimental.scheduling_groups": Refusal(
        "XLA scheduling-group metadata for GPU and TPU collectives"),
    "jax.experimental.serialize_executable": Refusal(
        "pickling compiled PJRT executables", "ember.export (portable StableHLO artifacts)"),
    "jax.experimental.shard_alike": Refusal(
        "sharding propagation between two values in XLA's SPMD partitioner",
        "ember.lax.with_sharding_constraint"),
    "jax.experimental.source_mapper": _SOURCE_MAPPER,
    "jax.experimental.source_mapper.common": _SOURCE_MAPPER,
    "jax.experimental.source_mapper.generate_map": _SOURCE_MAPPER,
    "jax.experimental.source_mapper.hlo": _SOURCE_MAPPER,
    "jax.experimental.source_mapper.jaxpr": _SOURCE_MAPPER,
    "jax.experimental.source_mapper.mlir": _SOURCE_MAPPER,
    "jax.experimental.topologies": Refusal(
        "TPU and GPU topology descriptions for ahead-of-time compilation"),
    "jax.experimental.transfer": Refusal(
        "JAX's cross-host transfer server (jaxlib's TransferServer)", "ember.distributed"),
    "jax.experimental.xla_metadata": Refusal(
        "frontend attributes attached to XLA's HLO instructions"),
    "jax.extend.ifrt_programs": Refusal("IFRT programs, which ember's PJRT client does not run"),
    "jax.extend.lowering": MLIR,
    "jax.extend.pallas": _KERNELS,
    "jax.extend.sharding": Refusal(
        "XLA's GSPMD sharding protos; ember describes shardings with Shardy",
        "ember.sharding.NamedSharding"),
    "jax.extend.xla": Refusal("registering passes over XLA's HLO modules"),
    "jax.interpreters.pxla": Refusal(
        "JAX's internal pmap/pjit compilation machinery", "ember.jit / ember.pmap"),
}


def _same(module: str, names: str, target: str) -> dict[str, str]:
  """``module.name -> target.name`` for each name."""
  return {f"{module}.{name}": f"{target}.{name}" for name in names.split()}


_SPARSE, _EMBER_SPARSE = "jax.experimental.sparse", "ember.experimental.sparse"
ALIASES: dict[str, str] = {
    **_same("jax.experimental.multihost_utils", "tree_flatten tree_unflatten", "ember.tree_util"),
    **_same("jax.experimental.ode", "tree_leaves tree_map", "ember.tree_util"),
    "jax.experimental.ode.ravel_pytree": "ember.flatten_util.ravel_pytree",
    "jax.experimental.ode.promote_dtypes_inexact": "ember.numpy._util.promote_dtypes_inexact",
    **{f"{_SPARSE}.{module}.Array": "ember.Array"
       for module in ("api", "bcoo", "bcsr", "coo", "csr", "random", "util")},
    **{f"{_SPARSE}.{module}.DTypeLike": "ember.typing.DTypeLike"
       for module in ("api", "bcoo", "bcsr", "coo", "csr", "random")},
    **{f"{_SPARSE}.{module}.ArrayLike": "ember.typing.ArrayLike"
       for module in ("bcoo", "bcsr", "coo")},
    **{f"{_SPARSE}.{module}.Shape": "ember.typing.Shape"
       for module in ("bcoo", "bcsr", "coo", "csr")},
    **{f"{_SPARSE}.{module}.DotDimensionNumbers": "ember.lax.DotDimensionNumbers"
       for module in ("bcoo", "bcsr", "util")},
    **{f"{_SPARSE}.{module}.vmap": "ember.vmap" for module in ("bcoo", "random", "util")},
    **_same(f"{_SPARSE}.api", "BCOO BCSR COO CSC CSR", _EMBER_SPARSE),
    **_same(f"{_SPARSE}.bcoo", "GatherDimensionNumbers GatherScatterMode", "ember.lax"),
    **_same(f"{_SPARSE}.bcoo", "SparseEfficiencyError SparseEfficiencyWarning", _EMBER_SPARSE),
    f"{_SPARSE}.bcsr.SparseEfficiencyWarning": f"{_EMBER_SPARSE}.SparseEfficiencyWarning",
    **{f"{_SPARSE}.{module}.promote_dtypes": "ember.numpy._util.promote_dtypes"
       for module in ("coo", "csr")},
    f"{_SPARSE}.coo.Dtype": "typing.Any",
    f"{_SPARSE}.csr.COOInfo": f"{_EMBER_SPARSE}.coo.COOInfo",
    f"{_SPARSE}.transform.Array": "typing.Any",
    f"{_SPARSE}.transform.ArrayOrSparse": "typing.Any",
    f"{_SPARSE}.transform.BCSR": f"{_EMBER_SPARSE}.BCSR",
    **_same(f"{_SPARSE}.transform", "bcoo_multiply_dense bcoo_multiply_sparse", _EMBER_SPARSE),
    **_same(f"{_SPARSE}.transform", "tree_flatten tree_map tree_unflatten", "ember.tree_util"),
    "jax.interpreters.mlir.Mesh": "ember.sharding.Mesh",
    "jax.interpreters.mlir.MeshAxisName": "typing.Any",
}


def is_unsupported(obj) -> bool:
  """Whether ``obj`` is one of this module's stubs."""
  return isinstance(obj, _StubMeta)


def message(jax_name: str, refusal: Refusal) -> str:
  text = f"{jax_name} is not supported by ember: {refusal.reason}."
  if refusal.alternative:
    text += f" Instead use {refusal.alternative}."
  return text + " (See docs/differences.md.)"


class _StubMeta(type):
  """The type of stubs: every use of a stub (or of a class made from one) raises."""

  def __call__(cls, *args, **kwargs):
    raise NotImplementedError(cls._message)

  def __getattr__(cls, name):
    if name.startswith("__") and name.endswith("__"):
      raise AttributeError(name)  # protocol probes (copy, pickle, inspect) see a plain class
    raise NotImplementedError(cls._message)

  def __instancecheck__(cls, obj):
    return False  # true of every ember object: a probe (isinstance) is not a use

  def __subclasscheck__(cls, sub):
    return False

  def __new__(mcs, name, bases, namespace):
    for base in bases:
      if isinstance(base, _StubMeta):
        raise NotImplementedError(base._message)  # a subclass of a stub
    return super().__new__(mcs, name, bases, namespace)

  def __repr__(cls):
    return f"<ember stub for unsupported {cls._jax_name}>"


def stub(jax_name: str, refusal: Refusal):
  """A stand-in for ``jax_name`` that raises ``NotImplementedError`` whenever it is used."""
  name = jax_name.rpartition(".")[2]
  return _StubMeta(name, (), {"_message": message(jax_name, refusal), "_jax_name": jax_name,
                              "__doc__": message(jax_name, refusal)})


_stubs: dict[str, object] = {}


def _jax_module(ember_module: str) -> str:
  return "jax" + ember_module[len("ember"):]


def lookup(jax_name: str):
  """The stub or alias standing for ``jax_name``; raises KeyError when it has neither."""
  if jax_name in ALIASES:
    module, _, attr = ALIASES[jax_name].rpartition(".")
    return getattr(importlib.import_module(module), attr)
  refusal = UNSUPPORTED[jax_name]
  if jax_name not in _stubs:
    _stubs[jax_name] = stub(jax_name, refusal)
  return _stubs[jax_name]


def module_getattr(ember_module: str) -> Callable[[str], object]:
  """A module ``__getattr__`` for ``ember_module`` answering the names of the tables above.

  Example:
      >>> getattr_ = module_getattr("ember.experimental.ode")
      >>> getattr_("abs2")
      <ember stub for unsupported jax.experimental.ode.abs2>
  """
  jax_module = _jax_module(ember_module)

  def __getattr__(name: str):
    try:
      return lookup(f"{jax_module}.{name}")
    except KeyError:
      raise AttributeError(f"module {ember_module!r} has no attribute {name!r}") from None
  return __getattr__


class _RefusedModules(importlib.abc.MetaPathFinder):
  """Last on ``sys.meta_path``: an ``ember.`` module listed in ``MODULES`` that no other finder
  found raises ``ModuleNotFoundError`` with the reason."""

  def find_spec(self, fullname, path=None, target=None):
    if not fullname.startswith("ember."):
      return None
    refusal = MODULES.get(_jax_module(fullname))
    if refusal is None:
      return None
    raise ModuleNotFoundError(message(_jax_module(fullname), refusal), name=fullname)


def install_module_finder() -> None:
  if not any(isinstance(f, _RefusedModules) for f in sys.meta_path):
    sys.meta_path.append(_RefusedModules())
