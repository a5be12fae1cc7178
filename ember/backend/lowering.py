"""Lowering a Jaxpr to StableHLO text, then parsing it once in a persistent MLIR context.

Each primitive's ``lower(ctx, *operands, **params)`` rule emits operations through ``ctx`` and
returns its result ``Value`` (or a list of them). Operations are written in MLIR's generic form,
so one emitter serves every op, attributes and regions included.

Example:
    >>> # lower_jaxpr_to_module(closed_jaxpr, "jit_f") -> (text, parsed ir.Module)
"""
from __future__ import annotations

import contextlib
import threading
from typing import Callable, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Literal

__all__ = ["Value", "LoweringContext", "tensor_type", "element_type", "lower_jaxpr",
           "module_text", "parse_module", "dense_attr", "i64_array", "register_lowering",
           "current_platform", "platform_override"]

_ELEMENT = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
}
_ELEMENT.update({dt.name: dtypes.mlir_type(dt)
                 for dt in dtypes.narrow_float_dtypes + dtypes.narrow_int_dtypes})


def element_type(dtype) -> str:
  name = np.dtype(dtype).name
  try:
    return _ELEMENT[name]
  except KeyError:
    raise TypeError(f"dtype {name} cannot be lowered to StableHLO") from None


def tensor_type(aval: ShapedArray) -> str:
  dims = "".join(f"{d}x" for d in aval.shape)
  return f"tensor<{dims}{element_type(aval.dtype)}>"


def i64_array(values) -> str:
  """An MLIR dense i64 array attribute: ``array<i64: 1, 2>``."""
  values = list(values)
  return f"array<i64: {', '.join(str(int(v)) for v in values)}>" if values else "array<i64>"


def dense_attr(value, aval: ShapedArray) -> str:
  """A ``dense<...>`` attribute holding ``value`` exactly (hex, so NaN, inf and -0 survive)."""
  arr = np.asarray(value)
  if arr.dtype != aval.dtype:
    arr = arr.astype(aval.dtype)
  if arr.size == 0:
    return f"dense<> : {tensor_type(aval)}"
  flat = arr.reshape(-1)
  if flat.size > 1 and (flat == flat[0]).all() and flat.view(np.uint8).size > 0:
    first = flat[:1]
    if first.tobytes() * flat.size == flat.tobytes():
      flat = first
  if aval.dtype == np.bool_:
    data = flat.astype(np.uint8).tobytes()
  else:
    data = np.ascontiguousarray(flat).astype(flat.dtype.newbyteorder("<")).tobytes()
  return f'dense<"0x{data.hex().upper()}"> : {tensor_type(aval)}'


class Value:
  """An SSA value of the module being built: its name and abstract value."""
  __slots__ = ("name", "aval")

  def __init__(self, name: str, aval: ShapedArray):
    self.name = name
    self.aval = aval

  @property
  def type(self) -> str:
    return tensor_type(self.aval)

  def __repr__(self):
    return f"{self.name}: {self.type}"


class LoweringContext:
  """Accumulates the lines of one function body. ``avals_in``/``avals_out`` describe the
  equation being lowered."""

  def __init__(self, lines: list[str] | None = None, counter: list[int] | None = None,
               indent: str = "    "):
    self.lines = [] if lines is None else lines
    self._counter = [0] if counter is None else counter
    self.indent = indent
    self.avals_in: Sequence[ShapedArray] = ()
    self.avals_out: Sequence[ShapedArray] = ()
    self.module_context: dict = {}

  @property
  def platform(self) -> str:
    """The platform the module is lowered for: ``"cpu"``, ``"cuda"`` or ``"rocm"``."""
    return self.module_context.get("platform") or current_platform()

  def fresh(self) -> str:
    n = self._counter[0]
    self._counter[0] = n + 1
    return f"%{n}"

  def op(self, name: str, operands: Sequence[Value], out_avals: Sequence[ShapedArray],
         attrs: dict | str | None = None, regions: Sequence[str] = ()) -> list[Value]:
    """Emit ``name`` in generic form and return its result values."""
    if isinstance(attrs, dict):
      attrs = ", ".join(f"{k} = {v}" for k, v in attrs.items())
    attr_text = f" {{{attrs}}}" if attrs else ""
    region_text = f" ({', '.join(regions)})" if regions else ""
    ins = ", ".join(v.name for v in operands)
    in_types = ", ".join(v.type for v in operands)
    out_types = [tensor_type(a) for a in out_avals]
    base = self.fresh()
    n = len(out_avals)
    lhs = "" if n == 0 else (f"{base} = " if n == 1 else f"{base}:{n} = ")
    out_sig = out_types[0] if n == 1 else f"({', '.join(out_types)})"
    self.lines.append(f'{self.indent}{lhs}"{name}"({ins}){region_text}{attr_text} : '
                      f"({in_types}) -> {out_sig}")
    if n == 1:
      return [Value(base, out_avals[0])]
    return [Value(f"{base}#{i}", a) for i, a in enumerate(out_avals)]

  def op1(self, name: str, operands: Sequence[Value], out_aval: ShapedArray | None = None,
          attrs: dict | str | None = None, regions: Sequence[str] = ()) -> Value:
    out_aval = self.avals_out[0] if out_aval is None else out_aval
    return self.op(name, operands, [out_aval], attrs, regions)[0]

  def constant(self, value, aval: ShapedArray) -> Value:
    return self.op1("stablehlo.constant", [], aval, {"value": dense_attr(value, aval)})

  def region(self, arg_avals: Sequence[ShapedArray],
             body: Callable[["LoweringContext", list[Value]], Sequence[Value]],
             terminator: str = "stablehlo.return", module_context: dict | None = None) -> str:
    """Text of a one-block region whose block takes ``arg_avals`` and returns ``body``'s values
    (through ``terminator``); ``module_context`` replaces the caller's inside it."""
    sub = LoweringContext([], self._counter, self.indent + "  ")
    sub.module_context = self.module_context if module_context is None else module_context
    args = [Value(f"%arg_r{sub.fresh()[1:]}", a) for a in arg_avals]
    outs = body(sub, args)
    sig = ", ".join(f"{a.name}: {a.type}" for a in args)
    ret_ins = ", ".join(v.name for v in outs)
    ret_types = ", ".join(v.type for v in outs)
    sub.lines.append(f'{sub.indent}"{terminator}"({ret_ins}) : ({ret_types}) -> ()')
    inner = "\n".join(sub.lines)
    return f"{{\n{self.indent}^bb0({sig}):\n{inner}\n{self.indent}}}"

  def reduction_region(self, scalar_avals: Sequence[ShapedArray],
                       combine: Callable[["LoweringContext", list[Value], list[Value]],
                                         Sequence[Value]]) -> str:
    """A reducer region of ``len(scalar_avals)`` accumulators and as many inputs."""
    n = len(scalar_avals)
    return self.region(list(scalar_avals) * 2,
                       lambda ctx, args: combine(ctx, args[:n], args[n:]))


def _literal_value(ctx: LoweringContext, lit: Literal) -> Value:
  return ctx.constant(np.asarray(lit.val, dtype=lit.aval.dtype), lit.aval)


def lower_jaxpr(ctx: LoweringContext, jaxpr: Jaxpr, consts: Sequence[Value],
                args: Sequence[Value]) -> list[Value]:
  """Emit ``jaxpr``'s equations into ``ctx``; return the values of its outputs."""
  env: dict = {}
  for v, val in zip(jaxpr.constvars, consts, strict=True):
    env[v] = val
  for v, val in zip(jaxpr.invars, args, strict=True):
    env[v] = val

  def read(x):
    return _literal_value(ctx, x) if isinstance(x, Literal) else env[x]

  for eqn in jaxpr.eqns:
    ins = [read(x) for x in eqn.invars]
    ctx.avals_in = [x.aval for x in eqn.invars]
    ctx.avals_out = [v.aval for v in eqn.outvars]
    rule = _platform_rules.get((eqn.primitive, ctx.platform)) or eqn.primitive.rule("lower")
    outs = rule(ctx, *ins, **eqn.params)
    if not eqn.primitive.multiple_results:
      outs = [outs]
    for v, val in zip(eqn.outvars, outs, strict=True):
      if val.aval != v.aval and val.aval.strip_weak_type() == v.aval.strip_weak_type():
        val = Value(val.name, v.aval)
      env[v] = val
  return [read(x) for x in jaxpr.outvars]


# --- lowering per platform ---------------------------------------------------------------------
# A primitive's ``lower`` rule serves every platform unless a rule for the module's platform is
# registered here (the GPU lowerings of the linear algebra primitives: primitives/gpu_linalg.py).

_platform_rules: dict = {}
_override = threading.local()


def register_lowering(prim, platform: str, rule: Callable) -> None:
  """Lower ``prim`` with ``rule`` in modules for ``platform`` (``"cuda"``, ``"rocm"``...)."""
  _platform_rules[(prim, platform)] = rule


def current_platform() -> str:
  """The platform modules are lowered for when their caller names none: the one
  ``platform_override`` sets, else the default backend's (``"cpu"``, ``"cuda"``, ``"rocm"``)."""
  platform = getattr(_override, "platform", None)
  if platform is not None:
    return platform
  from ember.backend import client
  return client.platform_of(client.get_client())


@contextlib.contextmanager
def platform_override(platform: str):
  """Lower for ``platform`` inside the block, whatever the backends (to look at the StableHLO
  another platform gets; programs lowered so may not compile here).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.backend import lowering
      >>> with lowering.platform_override("cuda"):
      ...   text = ember.jit(jnp.linalg.cholesky).lower(jnp.eye(2)).as_text()
      >>> "cusolver_potrf_ffi" in text
      True
  """
  old = getattr(_override, "platform", None)
  _override.platform = platform
  try:
    yield
  finally:
    _override.platform = old


def monitored_name(module_name: str) -> str:
  """The ``fun_name`` JAX's compile events carry for a module: ``jit(f)``."""
  return f"jit({module_name[4:] if module_name.startswith('jit_') else module_name})"


def module_text(closed: ClosedJaxpr, name: str = "main", const_avals_as_args: bool = True,
                arg_attrs: Sequence[str] | None = None, result_attrs: Sequence[str] | None = None,
                num_partitions: int = 1, preamble: str = "", module_context: dict | None = None,
                platform: str | None = None) -> str:
  """StableHLO text of a module whose ``main`` takes the jaxpr's consts then its arguments.

  An SPMD program over ``num_partitions`` devices puts its mesh in ``preamble`` and its
  parameters' and results' shardings in ``arg_attrs``/``result_attrs``; ``module_context`` is
  what lowering rules read about it (the mesh); ``platform`` is the platform it is for
  (``current_platform()`` when None).
  """
  from ember import monitoring
  module_context = dict(module_context or {}, platform=platform or current_platform())
  with monitoring.timed("/jax/core/compile/jaxpr_to_mlir_module_duration",
                        fun_name=monitored_name(name)):
    return _module_text(closed, name, const_avals_as_args, arg_attrs, result_attrs,
                        num_partitions, preamble, module_context)


def _module_text(closed, name, const_avals_as_args, arg_attrs, result_attrs, num_partitions,
                 preamble, module_context) -> str:
  jaxpr = closed.jaxpr
  ctx = LoweringContext()
  ctx.module_context = dict(module_context or {})
  # shared by the copies nested regions make (shard_map): host callbacks and the extra
  # ``sdy.mesh`` declarations their custom calls' shardings name
  ctx.module_context.setdefault("host_callbacks", [])
  ctx.module_context.setdefault("sdy_meshes", {})
  ctx.module_context.setdefault("functions", {})  # private functions it calls (ember.export)
  const_vals = [Value(f"%c{i}", v.aval) for i, v in enumerate(jaxpr.constvars)]
  arg_vals = [Value(f"%arg{i}", v.aval) for i, v in enumerate(jaxpr.invars)]
  params = const_vals + arg_vals
  attrs = list(arg_attrs) if arg_attrs is not None else [""] * len(params)
  sig = ", ".join(f"{v.name}: {v.type}{(' ' + a) if a else ''}" for v, a in zip(params, attrs))
  outs = lower_jaxpr(ctx, jaxpr, const_vals, arg_vals)
  res = list(result_attrs) if result_attrs is not None else [""] * len(outs)
  out_types = ", ".join(f"{v.type}{(' ' + a) if a else ''}" for v, a in zip(outs, res))
  body = "\n".join(ctx.lines)
  ret = f"    func.return {', '.join(v.name for v in outs)} : " \
      f"{', '.join(v.type for v in outs)}" if outs else \
      "    func.return"
  safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "main"
  module_attrs = f"mhlo.num_partitions = {num_partitions} : i32, mhlo.num_replicas = 1 : i32"
  decls = [preamble] if preamble else []
  decls += ctx.module_context["sdy_meshes"].values()
  pre = "".join(f"  {d}\n" for d in decls)
  text = (f"module @{safe} attributes {{{module_attrs}}} {{\n{pre}"
          f"  func.func public @main({sig}) -> ({out_types}) {{\n{body}\n{ret}\n  }}\n"
          + "".join(f"{f}\n" for f in ctx.module_context["functions"].values()) + "}\n")
  callbacks = ctx.module_context.get("host_callbacks")
  if callbacks:
    if len(_host_callbacks) >= 512:
      _host_callbacks.pop(next(iter(_host_callbacks)))
    _host_callbacks[text] = list(callbacks)
  return text


# Python functions a module's custom calls call back (by index), by module text: the compiler
# is handed them with the text. Bounded; each callback's serial number is in the text.
_host_callbacks: dict[str, list] = {}


def host_callbacks(text: str) -> list:
  return _host_callbacks.get(text, [])


# One MLIR context per thread, by thread id rather than in thread-local storage: a host
# callback runs on an XLA thread under a temporary Python thread state, and a context freed
# with that state's thread-local storage crashes the process.
_mlir_contexts: dict = {}


def _mlir_context():
  ctx = _mlir_contexts.get(threading.get_ident())
  if ctx is None:
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo, chlo
    import jaxlib.mlir._mlir_libs._jax_mlir_ext as ext
    registry = ir.DialectRegistry()
    ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    try:
      from jaxlib.mlir.dialects import sdy
      sdy.register_dialect(ctx)
    except Exception:  # pragma: no cover
      pass
    _mlir_contexts[threading.get_ident()] = ctx
  return ctx


def hlo_computation(text: str):
  """The StableHLO module ``text`` as an XLA computation (``.as_hlo_text()``)."""
  from jaxlib import _jax
  return _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                  return_tuple=False)


def parse_module(text: str):
  """Parse (and verify) StableHLO text; a failure here is an ember bug, reported as such."""
  from jaxlib.mlir import ir
  ctx = _mlir_context()
  with ctx:
    try:
      return ir.Module.parse(text)
    except ir.MLIRError as e:
      raise RuntimeError(
          "ember produced StableHLO that does not verify; this is a bug in ember, please report "
          f"it.\n{e}\n--- module ---\n{text}") from None
