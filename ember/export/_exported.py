"""The ``Exported`` object, and calling one from ember programs.

An ``Exported`` is a function lowered to StableHLO and everything needed to call it: its
arguments' and results' pytree structures and abstract values, the platforms it was lowered
for, and the module itself as a StableHLO portable artifact (``mlir_module_serialized``, VHLO
bytecode, as JAX stores it). ``exported.call(*args)`` binds the ``call_exported`` primitive
inside a ``custom_vjp`` whose backward pass calls the exported VJP (``exported.vjp()``), so
``grad`` works when a VJP is available, as in JAX. ``call_exported`` runs eagerly and under
``jit``: its lowering adds the exported module's functions to the caller's module (renamed and
private) and calls its ``main`` with ``func.call``. It has no ``vmap`` rule (neither has JAX's).
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any, Callable

from ember import pytree
from ember.core import trace as core
from ember.backend import lowering

__all__ = ["DisabledSafetyCheck", "Exported", "call_exported", "call_exported_p"]

minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


class DisabledSafetyCheck:
  """A safety check of ``export`` (or of calling an ``Exported``) to skip.

  ``DisabledSafetyCheck.platform()`` lets an ``Exported`` run on a platform it was not exported
  for; ``DisabledSafetyCheck.custom_call(name)`` lets ``export`` accept a custom call of target
  ``name`` whose compatibility is not guaranteed.

  Example:
      >>> from ember.export import DisabledSafetyCheck
      >>> DisabledSafetyCheck.custom_call("my_target")
      custom_call:my_target
      >>> DisabledSafetyCheck.custom_call("my_target").is_custom_call()
      'my_target'
  """
  _impl: str

  def __init__(self, _impl: str):
    self._impl = _impl

  @classmethod
  def platform(cls) -> "DisabledSafetyCheck":
    """Allow calling on a platform other than the export platforms."""
    return DisabledSafetyCheck("platform")

  @classmethod
  def custom_call(cls, target_name: str) -> "DisabledSafetyCheck":
    """Allow exporting calls of the custom-call target ``target_name``."""
    return DisabledSafetyCheck(f"custom_call:{target_name}")

  def is_custom_call(self) -> str | None:
    """The target this check allows, or None when it is not a custom-call check."""
    m = re.match(r"custom_call:(.+)$", self._impl)
    return m.group(1) if m else None

  def __str__(self):
    return self._impl
  __repr__ = __str__

  def __eq__(self, other) -> bool:
    return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

  def __hash__(self) -> int:
    return hash(self._impl)


@dataclasses.dataclass(frozen=True)
class Exported:
  """A function lowered to StableHLO, with what calling it needs (``jax.export.Exported``).

  Attributes:
    fun_name: the exported function's name.
    in_tree, out_tree: the pytree structures of ``(args, kwargs)`` and of the results.
    in_avals, out_avals: the flat arguments' and results' abstract values.
    in_shardings_hlo, out_shardings_hlo: their HLO shardings (None: unspecified).
    nr_devices: the number of devices the module runs on (1 here).
    platforms: the platforms it was lowered for.
    ordered_effects, unordered_effects: its effects (none in ember's exports).
    disabled_safety_checks: the ``DisabledSafetyCheck``s it was exported with.
    mlir_module_serialized: the module as a StableHLO portable artifact (bytecode).
    calling_convention_version: the calling convention of the module (10).
    module_kept_var_idx: the indices of the flat arguments the module takes (unused ones are
      dropped unless the function was jitted with ``keep_unused=True``).
    uses_global_constants: whether the module takes dimension or platform arguments.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import export
      >>> exp = export.export(ember.jit(jnp.sin))(jnp.zeros(3))
      >>> exp.in_avals, exp.platforms
      ((ShapedArray(float32[3]),), ('cpu',))
      >>> exp.call(jnp.array([0.0, 1.0, 2.0]))
      Array([0.        , 0.84147096, 0.9092974 ], dtype=float32)
  """
  fun_name: str
  in_tree: Any
  in_avals: tuple
  out_tree: Any
  out_avals: tuple
  _has_named_shardings: bool
  _in_named_shardings: tuple
  _out_named_shardings: tuple
  in_shardings_hlo: tuple
  out_shardings_hlo: tuple
  nr_devices: int
  platforms: tuple
  ordered_effects: tuple
  unordered_effects: tuple
  disabled_safety_checks: Sequence
  mlir_module_serialized: bytes
  calling_convention_version: int
  module_kept_var_idx: tuple
  uses_global_constants: bool
  _get_vjp: Callable[["Exported"], "Exported"] | None

  def __str__(self):
    return f"Exported(fun_name={self.fun_name}, ...)"

  def mlir_module(self) -> str:
    """The module's StableHLO text.

    Example:
        >>> import ember, ember.numpy as jnp
        >>> from ember import export
        >>> text = export.export(ember.jit(jnp.cos))(1.0).mlir_module()
        >>> "stablehlo.cosine" in text
        True
    """
    return str(_deserialized_module(self.mlir_module_serialized))

  def in_shardings_jax(self, mesh=None) -> tuple:
    """The arguments' shardings, for ``jit``/``device_put`` (None: unspecified).

    Example:
        >>> import ember
        >>> from ember import export
        >>> export.export(ember.jit(abs))(1.0).in_shardings_jax()
        (None,)
    """
    del mesh
    return tuple(None for _ in self.in_avals)

  def out_shardings_jax(self, mesh=None) -> tuple:
    """The results' shardings (None: unspecified).

    Example:
        >>> import ember
        >>> from ember import export
        >>> export.export(ember.jit(abs))(1.0).out_shardings_jax()
        (None,)
    """
    del mesh
    return tuple(None for _ in self.out_avals)

  def has_vjp(self) -> bool:
    """Whether ``vjp()`` can give this function's exported VJP.

    Example:
        >>> import ember
        >>> from ember import export
        >>> export.export(ember.jit(abs))(1.0).has_vjp()
        True
    """
    return self._get_vjp is not None

  def vjp(self) -> "Exported":
    """The exported VJP: a function of the primal arguments and the results' cotangents
    (flat) returning the arguments' cotangents.

    Raises:
      ValueError: when none is available (deserialized with a lower ``vjp_order``).

    Example:
        >>> import ember, ember.numpy as jnp
        >>> from ember import export
        >>> exp = export.export(ember.jit(jnp.sin))(0.0)
        >>> exp.vjp().call(0.0, 2.0)
        (Array(2., dtype=float32, weak_type=True),)
    """
    if self._get_vjp is None:
      raise ValueError("No VJP is available")
    return self._get_vjp(self)

  def serialize(self, vjp_order: int = 0) -> bytearray:
    """This function as bytes for ``ember.export.deserialize`` (in ember's format, see
    ``ember.export._serialization``), with ``vjp_order`` orders of its VJP (1 lets
    ``grad`` of the deserialized function work, 2 ``grad`` of ``grad``...).

    Example:
        >>> import ember, ember.numpy as jnp
        >>> from ember import export
        >>> blob = export.export(ember.jit(jnp.sin))(jnp.zeros(2)).serialize()
        >>> export.deserialize(blob).call(jnp.ones(2))
        Array([0.84147096, 0.84147096], dtype=float32)
    """
    from ember.export._serialization import serialize
    return serialize(self, vjp_order=vjp_order)

  def call(self, *args, **kwargs):
    """Call the exported function from an ember program (eagerly, under ``jit``, and under
    ``grad`` when a VJP is available).

    Example:
        >>> import ember, ember.numpy as jnp
        >>> from ember import export
        >>> exp = export.export(ember.jit(lambda x: x ** 2))(1.0)
        >>> ember.grad(exp.call)(3.0)
        Array(6., dtype=float32, weak_type=True)
    """
    return call_exported(self)(*args, **kwargs)


# --- calling ------------------------------------------------------------------------------------

def _path_str(path) -> str:
  """``args[0]`` / ``kwargs['x']`` for a key path into ``(args, kwargs)``."""
  if not path:
    return "args and kwargs"
  head = "args" if getattr(path[0], "idx", None) == 0 else "kwargs"
  return head + pytree.keystr(tuple(path[1:]))


def _leaf_paths(tree) -> list[str]:
  example = pytree.unflatten(tree, [0] * tree.num_leaves)
  return [_path_str(p) for p, _ in pytree.tree_flatten_with_path(example)[0]]


def _kind(x) -> str:
  return f"a {type(x)}"


def _structure_differences(actual, expected, path=()) -> list[str]:
  """Where the pytrees ``actual`` (the call's) and ``expected`` (the export's) differ."""
  where = _path_str(path)
  if type(actual) is not type(expected):
    return [f"{where} is {_kind(actual)} in the invocation and {_kind(expected)} when "
            "exported, so their Python types differ"]
  if isinstance(actual, (tuple, list)):
    if len(actual) != len(expected):
      name = type(actual).__name__
      return [f"{where} is a {name} of length {len(actual)} in the invocation and a {name} of "
              f"length {len(expected)} when exported, so the lengths do not match"]
    return [d for i, (a, e) in enumerate(zip(actual, expected))
            for d in _structure_differences(a, e, path + (pytree.SequenceKey(i),))]
  if isinstance(actual, dict):
    if set(actual) != set(expected):
      na, ne = len(actual), len(expected)
      diff = set(actual) ^ set(expected)
      return [f"{where} is a {type(actual)} with {na} child in the invocation and a "
              f"{type(expected)} with {ne} child when exported, so the numbers of children do "
              f"not match, with the symmetric difference of key sets: {diff}"]
    return [d for k in sorted(actual) for d in
            _structure_differences(actual[k], expected[k], path + (pytree.DictKey(k),))]
  return []  # two leaves


def _check_structure(exported: Exported, in_tree) -> None:
  if in_tree == exported.in_tree:
    return
  actual = pytree.unflatten(in_tree, [0] * in_tree.num_leaves)
  expected = pytree.unflatten(exported.in_tree, [0] * exported.in_tree.num_leaves)
  lines = _structure_differences(actual, expected) or [f"args and kwargs are {in_tree} in the "
                                                       f"invocation and {exported.in_tree} "
                                                       "when exported"]
  raise ValueError(
      "The invocation args and kwargs must have the same pytree structure as when the function "
      f"'{exported.fun_name}' was exported, but they have the following structural "
      "differences:\n" + "".join(f"   - {line}.\n" for line in lines))


def _check_avals(exported: Exported, avals) -> None:
  """Each argument's rank, dtype and dimensions against the export's (as JAX's messages)."""
  for where, exp, got in zip(_leaf_paths(exported.in_tree), exported.in_avals, avals):
    if len(exp.shape) != len(got.shape):
      raise ValueError(f"Rank mismatch for {where}: expected {exp.shape} and called with "
                       f"{got.shape}")
    if exp.dtype != got.dtype and not _is_float0(exp):  # any zeros serve for float0
      raise ValueError(f"Dtype mismatch for {where}: expected {exp.dtype} and called with "
                       f"{got.dtype}")
    for i, (d_exp, d_got) in enumerate(zip(exp.shape, got.shape)):
      if d_exp != d_got:
        raise ValueError(f"Shape mismatch for {where}.shape[{i}] (expected same constant): "
                         f"expected {exp.shape} and called with {got.shape}")


def _check_platform(exported: Exported) -> None:
  from ember.backend.client import default_backend
  platform = default_backend()
  if platform not in exported.platforms and \
      DisabledSafetyCheck.platform() not in exported.disabled_safety_checks:
    raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                     f"'{tuple(exported.platforms)}' but it is used on '{(platform,)}'.")


def _is_float0(aval) -> bool:
  from ember import dtypes
  return aval.dtype == dtypes.float0


def _as_module_value(x, aval):
  """An argument as the module takes it: a float0 cotangent as boolean zeros."""
  if _is_float0(aval):
    import numpy as np
    return np.zeros(aval.shape, np.bool_)
  return x


def _from_module_value(y, aval):
  """A result as the caller sees it: booleans the module returns for float0 as float0 zeros."""
  if _is_float0(aval):
    import numpy as np
    from ember import dtypes
    return np.zeros(aval.shape, dtypes.float0)
  return y


def call_exported(exported: Exported) -> Callable:
  """A function calling ``exported`` with arguments of its pytree structure (``jax.export.call``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import export
      >>> from ember.export._exported import call_exported
      >>> exp = export.export(ember.jit(lambda x: {"y": x + 1}))(jnp.zeros(2))
      >>> call_exported(exp)(jnp.ones(2))
      {'y': Array([2., 2.], dtype=float32)}
  """
  from ember.transforms.custom import custom_vjp
  if not isinstance(exported, Exported):
    raise ValueError(f"The exported argument must be an export.Exported. Found {exported}.")

  @custom_vjp
  def f_flat(*args_flat):
    ins = [_as_module_value(x, a) for x, a in zip(args_flat, exported.in_avals)]
    outs = call_exported_p.bind(*ins, exported=exported)
    return [_from_module_value(y, a) for y, a in zip(outs, exported.out_avals)]

  def f_flat_vjp_fwd(*args_flat):
    return f_flat(*args_flat), args_flat  # the primal arguments are the residuals

  def f_flat_vjp_bwd(residual, ct_res_flat):
    return call_exported(exported.vjp())(*residual, *ct_res_flat)

  f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)

  def f_imported(*args, **kwargs):
    from ember.api import typeof
    args_flat, in_tree = pytree.flatten((args, kwargs))
    _check_structure(exported, in_tree)
    _check_avals(exported, [typeof(x) for x in args_flat])
    _check_platform(exported)
    return pytree.unflatten(exported.out_tree, f_flat(*args_flat))
  return f_imported


# --- the call_exported primitive ------------------------------------------------------------------

call_exported_p = core.Primitive("call_exported", multiple_results=True)


def _call_exported_abstract_eval(*avals, exported: Exported):
  from ember.export._export import module_aval
  return [module_aval(a) for a in exported.out_avals]


def _deserialized_module(blob: bytes):
  from jaxlib import _jax
  return _jax.mlir.deserialize_portable_artifact(bytes(blob), lowering._mlir_context())


_callees: dict[bytes, tuple[str, str]] = {}  # module digest -> (callee symbol, functions' text)


def callee_functions(blob: bytes) -> tuple[str, str]:
  """The name of the exported module's ``main`` and the text of its functions, renamed
  (``main`` to a name made from the module's digest, the others prefixed with it) and private,
  ready to be added to a calling module."""
  digest = hashlib.sha256(bytes(blob)).digest()
  hit = _callees.get(digest)
  if hit is not None:
    return hit
  from jaxlib.mlir import ir
  module = _deserialized_module(blob)
  prefix = f"_ember_exported_{digest.hex()[:16]}"
  with module.context:
    funcs = list(module.body.operations)
    for op in funcs:
      if op.operation.name != "func.func":
        raise NotImplementedError(f"calling an exported module holding a {op.operation.name} "
                                  "at its top level (a program over several devices) is not "
                                  "supported by ember.")
    for op in funcs:
      old = ir.StringAttr(op.attributes["sym_name"]).value
      new = prefix if old == "main" else f"{prefix}_{old}"
      ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
      ir.SymbolTable.set_symbol_name(op, new)
      op.attributes["sym_visibility"] = ir.StringAttr.get("private")
    text = "\n".join(str(op) for op in funcs)
  if len(_callees) >= 256:
    _callees.pop(next(iter(_callees)))
  _callees[digest] = (prefix, text)
  return prefix, text


def _call_exported_lower(ctx, *args, exported: Exported):
  if ctx.module_context.get("mesh") is not None:
    raise NotImplementedError("calling an Exported inside a program over a device mesh "
                              "(shard_map, sharded jit) is not supported by ember.")
  callee, text = callee_functions(exported.mlir_module_serialized)
  ctx.module_context.setdefault("functions", {})[callee] = text
  operands = [args[i] for i in exported.module_kept_var_idx]
  if len(exported.platforms) > 1:
    from ember.backend.client import default_backend
    from ember.core.aval import ShapedArray
    import numpy as np
    platform = default_backend()
    index = exported.platforms.index(platform) if platform in exported.platforms else 0
    operands.insert(0, ctx.constant(np.int32(index), ShapedArray((), np.dtype(np.int32))))
  return ctx.op("func.call", operands, list(ctx.avals_out), {"callee": f"@{callee}"})


call_exported_p.def_rules(abstract_eval=_call_exported_abstract_eval, lower=_call_exported_lower)
call_exported_p.def_unsupported("batch", "calling an Exported has no batching rule (as in JAX)")
call_exported_p.def_unsupported(
    "jvp", "an Exported is differentiated through its exported VJP (Exported.call wraps it in a "
    "custom_vjp); forward mode is not available")
call_exported_p.def_unsupported("transpose", "an Exported is not linear")
