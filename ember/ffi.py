"""``ember.ffi``: calling compiled code through XLA's foreign function interface (FFI), under the
names of JAX 0.10.2's ``jax.ffi``.

A *target* is a C/C++ function registered with XLA under a name (``register_ffi_target``, given
a ``PyCapsule`` around its address, which ``pycapsule`` makes from a ctypes function). Programs
call it with ``ffi_call(name, result_shape_dtypes, ...)(*arrays, **attributes)``: the call is
one ``ffi_call`` primitive, lowered to a ``stablehlo.custom_call`` of the target whose keyword
attributes travel in its ``mhlo.backend_config`` dictionary (typed FFI, API version 4), or in
an opaque ``legacy_backend_config`` string for the older custom-call APIs. jaxlib's own CPU
kernels (the ``lapack_*_ffi`` handlers ember uses for linear algebra) are such targets.

The call runs eagerly, under ``jit``, and under ``vmap`` by its ``vmap_method`` (as
``pure_callback``); it is not differentiable (wrap it in ``custom_jvp``/``custom_vjp``).
``ffi_lowering``/``build_ffi_lowering_function`` give a primitive of one's own the same lowering
(``ember.interpreters.mlir.register_lowering(prim, ffi_lowering("target"))``); unlike JAX's,
their rules emit ember's StableHLO text (``ember.backend.lowering``), not MLIR-binding objects,
so ``backend_config`` values are Python values (or MLIR attributes, used by their text), see
docs/differences.md. ember compiles for the CPU only, and has no effect tokens (a
``jax.core.abstract_token`` result is not available).

Example:
    >>> import numpy as np, ember, ember.numpy as jnp
    >>> from ember import ffi
    >>> potrf = ffi.ffi_call(  # jaxlib's LAPACK Cholesky kernel, column-major
    ...     "lapack_spotrf_ffi",
    ...     (ember.ShapeDtypeStruct((2, 2), jnp.float32), ember.ShapeDtypeStruct((), jnp.int32)),
    ...     input_layouts=[(1, 0)], output_layouts=[(1, 0), ()])
    >>> factor, info = potrf(jnp.array([[4.0, 2.0], [2.0, 3.0]]), uplo=np.uint8(ord("L")))
    >>> ember.numpy.tril(factor), info
    (Array([[2.       , 0.       ],
           [1.       , 1.4142135]], dtype=float32), Array(0, dtype=int32))
"""
from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from ember.backend import lowering
from ember.core import trace as core
from ember.core.aval import ShapedArray

__all__ = ["ffi_call", "ffi_lowering", "build_ffi_lowering_function", "register_ffi_target",
           "register_ffi_target_as_batch_partitionable", "register_ffi_type",
           "register_ffi_type_id", "include_dir", "pycapsule"]

_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None]


# --- registering targets ----------------------------------------------------------------------

def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
  """Register ``fn`` as the FFI target ``name`` on ``platform``.

  Args:
    name: the target's name, as ``ffi_call`` will call it.
    fn: a ``PyCapsule`` holding the handler's address (see ``pycapsule``), or a dict of them
      by FFI stage (``"execute"``, ``"instantiate"``, ...).
    platform: the platform it runs on (ember runs programs on ``"cpu"``).
    api_version: 1 (the default) for a typed-FFI handler, 0 for the older custom-call API.
    kwargs: passed on to jaxlib's ``xla_client.register_custom_call_target``.

  Example:
      >>> from jaxlib.cpu import _lapack
      >>> from ember import ffi
      >>> capsule = _lapack.registrations()["lapack_sgetrf_ffi"]
      >>> ffi.register_ffi_target("my_getrf", capsule)
  """
  from jaxlib import xla_client
  return xla_client.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
  """Not available with jaxlib 0.10.2 (as in JAX 0.10.2): raises ``ValueError``; use
  ``register_ffi_type``.

  Example:
      >>> from ember import ffi
      >>> try:
      ...   ffi.register_ffi_type_id("state", None)
      ... except ValueError as e:
      ...   print(e)
      register_ffi_type_id is not supported after jaxlib version 381.
  """
  del name, obj, platform
  raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_type(name: str, type_registration: Mapping, platform: str = "cpu") -> None:
  """Register a user type of FFI handlers' state: ``type_registration`` is a dict with a
  ``"type_id"`` capsule (and optionally ``"type_info"``), as JAX's ``TypeRegistration``.

  Example:
      >>> from ember import ffi
      >>> callable(ffi.register_ffi_type)
      True
  """
  from jaxlib import xla_client
  return xla_client.register_custom_type(name, type_registration, platform=platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
  """Tell XLA's partitioner that target ``name`` may be split along its leading batch
  dimensions across devices.

  Example:
      >>> from ember import ffi
      >>> ffi.register_ffi_target_as_batch_partitionable("lapack_sgetrf_ffi")
  """
  from jaxlib import xla_client
  xla_client.register_custom_call_as_batch_partitionable(name)


def include_dir() -> str:
  """The folder of the C/C++ headers jaxlib ships (``xla/ffi/api/ffi.h``...) for building
  FFI handlers.

  Example:
      >>> import os
      >>> from ember import ffi
      >>> os.path.exists(os.path.join(ffi.include_dir(), "xla", "ffi", "api", "ffi.h"))
      True
  """
  import jaxlib
  folder = os.path.dirname(os.path.abspath(jaxlib.__file__)) if jaxlib.__file__ else \
      list(jaxlib.__path__)[0]
  return os.path.join(folder, "include")


def pycapsule(funcptr) -> Any:
  """A ``PyCapsule`` (unnamed, no destructor) holding the address of ``funcptr``, a function
  loaded with ``ctypes``: what ``register_ffi_target`` takes.

  Example:
      >>> import ctypes
      >>> from ember import ffi
      >>> libc = ctypes.CDLL(None)
      >>> type(ffi.pycapsule(libc.abs)).__name__
      'PyCapsule'
  """
  make = ctypes.pythonapi.PyCapsule_New
  make.restype = ctypes.py_object
  no_destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
  make.argtypes = (ctypes.c_void_p, ctypes.c_char_p, no_destructor)
  return make(ctypes.cast(funcptr, ctypes.c_void_p), None, no_destructor(0))


# --- attribute values ---------------------------------------------------------------------------

class HashableArray:
  """A read-only copy of a NumPy array that hashes by value: how an array attribute of an
  ``ffi_call`` sits in its (hashable) parameters.

  Example:
      >>> HashableArray(np.arange(3))
      HashableArray(array([0, 1, 2]))
  """
  __slots__ = ("val",)

  def __init__(self, val):
    self.val = np.array(val, copy=True)
    self.val.setflags(write=False)

  def __repr__(self):
    return f"HashableArray({self.val!r})"

  def __hash__(self):
    return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

  def __eq__(self, other):
    return isinstance(other, HashableArray) and self.val.shape == other.val.shape and \
        self.val.dtype == other.val.dtype and bool(np.array_equal(self.val, other.val))


class FrozenDict(Mapping):
  """An immutable dict that hashes by value (a dict attribute of an ``ffi_call``).

  Example:
      >>> FrozenDict({"a": 1})
      FrozenDict({'a': 1})
  """
  __slots__ = ("_d",)

  def __init__(self, d):
    self._d = dict(d)

  def __getitem__(self, key):
    return self._d[key]

  def __iter__(self):
    return iter(self._d)

  def __len__(self):
    return len(self._d)

  def __repr__(self):
    return f"FrozenDict({self._d!r})"

  def __hash__(self):
    return hash(tuple(sorted(self._d.items(), key=lambda kv: kv[0])))

  def __eq__(self, other):
    return isinstance(other, FrozenDict) and self._d == other._d


def _hashable_attributes(kwargs: dict) -> tuple:
  """``kwargs`` sorted by name, arrays and dicts made hashable (a parameter of the primitive)."""
  out = []
  for name, value in sorted(kwargs.items()):
    if isinstance(value, np.ndarray):
      value = HashableArray(value)
    elif isinstance(value, dict):
      value = FrozenDict(value)
    else:
      try:
        hash(value)
      except TypeError:
        raise TypeError(f"Non-hashable keyword argument to ffi_call {name}: {value}") from None
    out.append((name, value))
  return tuple(out)


def _escape(text: str) -> str:
  """``text`` as an MLIR string literal's body (quotes, backslashes and controls as ``\\XX``)."""
  return "".join(c if c.isprintable() and c not in '"\\' and ord(c) < 128
                 else "".join(f"\\{b:02X}" for b in c.encode("utf-8")) for c in text)


def _float_text(value, dtype) -> str:
  """A float attribute written by its bits (exact, NaN and infinities included)."""
  dtype = np.dtype(dtype)
  bits = np.asarray(value, dtype).reshape(1).view(f"u{dtype.itemsize}")[0]
  return f"0x{int(bits):0{2 * dtype.itemsize}X} : {lowering.element_type(dtype)}"


def _attr_name(name: str) -> str:
  ok = name and (name[0].isalpha() or name[0] == "_") and \
      all(c.isalnum() or c in "_$." for c in name)
  return name if ok else f'"{_escape(name)}"'


def attribute_text(value) -> str:
  """The MLIR attribute (text) an FFI attribute value becomes, as JAX types them: Python bools
  ``i1``, ints ``i64``, floats ``f64``; NumPy scalars and arrays keep their dtype; strings,
  tuples/lists (arrays of attributes) and dicts (dictionaries) nest.

  Example:
      >>> attribute_text(3), attribute_text(np.uint8(76)), attribute_text(True)
      ('3 : i64', '76 : ui8', 'true')
      >>> attribute_text({"b": 1.5, "a": "x"})
      '{a = "x", b = 0x3FF8000000000000 : f64}'
  """
  if isinstance(value, HashableArray):
    value = value.val
  if isinstance(value, (bool, np.bool_)):
    return "true" if value else "false"
  if isinstance(value, int):
    return f"{value} : i64"
  if isinstance(value, float):
    return _float_text(value, np.float64)
  if isinstance(value, str):
    return f'"{_escape(value)}"'
  if isinstance(value, np.generic) and value.dtype.kind in "iu":
    return f"{int(value)} : {lowering.element_type(value.dtype)}"
  if isinstance(value, np.generic) and value.dtype.kind == "f":
    return _float_text(value, value.dtype)
  if isinstance(value, np.ndarray):
    return lowering.dense_attr(value, ShapedArray(value.shape, value.dtype))
  if isinstance(value, Mapping):
    items = sorted(value.items(), key=lambda kv: kv[0])
    return "{" + ", ".join(f"{_attr_name(k)} = {attribute_text(v)}" for k, v in items) + "}"
  if isinstance(value, (tuple, list)):
    return "[" + ", ".join(attribute_text(v) for v in value) + "]"
  if hasattr(value, "context") and type(value).__module__.startswith("jaxlib.mlir"):
    return str(value)  # an MLIR attribute made with jaxlib's bindings
  if isinstance(value, np.generic):
    raise TypeError(f"Unsupported scalar attribute type: {type(value)}")
  raise TypeError(f"No attribute handler defined for type: {type(value)}")


# --- emitting the custom call -------------------------------------------------------------------

def _row_major(aval) -> tuple[int, ...]:
  return tuple(reversed(range(len(aval.shape))))


def _layout_text(order: Sequence[int]) -> str:
  """A minor-to-major layout as a custom call's ``dense<...> : tensor<Nxindex>``."""
  order = [int(i) for i in order]
  if not order:
    return "dense<> : tensor<0xindex>"
  body = str(order[0]) if len(order) == 1 else "[" + ", ".join(map(str, order)) + "]"
  return f"dense<{body}> : tensor<{len(order)}xindex>"


def _layout_for_lowering(aval, layout) -> tuple[int, ...]:
  """A layout given to the lowering (minor-to-major, or a ``Layout``-like object, or None for
  row-major) as a minor-to-major tuple."""
  if layout is None:
    return _row_major(aval)
  major_to_minor = getattr(layout, "major_to_minor", None)
  if major_to_minor is not None:
    if getattr(layout, "tiling", None) is not None:
      raise ValueError("The FFI does not support layouts with tiling")
    return tuple(major_to_minor)[::-1]
  return tuple(int(i) for i in layout)


def emit_custom_call(ctx, target_name: str, operands: Sequence, out_avals: Sequence, *,
                     operand_layouts: Sequence, result_layouts: Sequence, api_version: int = 4,
                     backend_config=None, has_side_effect: bool = False,
                     aliases: Sequence[tuple[int, int]] = ()) -> list:
  """Emit ``stablehlo.custom_call @target_name`` and return its results.

  ``operand_layouts``/``result_layouts`` are minor-to-major; ``backend_config`` is a dict of
  attribute values (API version 4: typed FFI) or an opaque string (older versions); ``aliases``
  are (operand index, result index) pairs of results written in their operand's buffer.
  """
  if api_version >= 4:
    config_attr = ("mhlo.backend_config", attribute_text(dict(backend_config or {})))
    attrs = {"api_version": "1 : i32", "backend_config": '""'}
  else:
    config_attr = None
    attrs = {"api_version": f"{int(api_version)} : i32",
             "backend_config": f'"{_escape(backend_config or "")}"'}
  alias_attr = ", ".join(
      "#stablehlo.output_operand_alias<output_tuple_indices = "
      f"{'[]' if len(out_avals) == 1 else f'[{o}]'}, operand_index = {i}, "
      "operand_tuple_indices = []>" for i, o in aliases)
  attrs.update({
      "call_target_name": f'"{_escape(target_name)}"', "called_computations": "[]",
      "has_side_effect": "true" if has_side_effect else "false",
      "operand_layouts": "[" + ", ".join(map(_layout_text, operand_layouts)) + "]",
      "output_operand_aliases": f"[{alias_attr}]",
      "result_layouts": "[" + ", ".join(map(_layout_text, result_layouts)) + "]",
  })
  if config_attr is not None:
    attrs[config_attr[0]] = config_attr[1]
  return ctx.op("stablehlo.custom_call", list(operands), list(out_avals), attrs)


_LOWERING_ARGS = ("has_side_effect", "api_version", "operand_output_aliases")


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None,
                                result_layouts=None, backend_config=None,
                                skip_ffi_layout_processing: bool = False,
                                **lowering_args: Any) -> Callable[..., list]:
  """A function ``(ctx, *operands, **attributes) -> results`` emitting a call of the FFI
  target ``call_target_name`` with the equation's avals (``ctx.avals_in``/``ctx.avals_out``).

  Layouts are minor-to-major, as XLA's (row-major when None); keyword arguments of the call
  become attributes in ``backend_config`` (a dict of attribute values; a string only with
  ``api_version`` < 4). ``lowering_args`` may set ``has_side_effect``, ``api_version`` and
  ``operand_output_aliases`` (a dict: operand index -> result index). Unlike JAX's (MLIR
  bindings), it returns ember's lowering ``Value``s.

  Example:
      >>> from ember import ffi
      >>> rule = ffi.build_ffi_lowering_function("lapack_spotrf_ffi")
      >>> callable(rule)
      True
  """
  unknown = sorted(set(lowering_args) - set(_LOWERING_ARGS))
  if unknown:
    raise NotImplementedError(f"build_ffi_lowering_function: the lowering arguments {unknown} "
                              f"are not supported by ember (it takes {list(_LOWERING_ARGS)}).")
  if skip_ffi_layout_processing:
    raise NotImplementedError("build_ffi_lowering_function(skip_ffi_layout_processing=True): "
                              "ember always writes the layouts; leave it out.")
  api_version = int(lowering_args.get("api_version", 4))
  if api_version >= 4 and backend_config is not None and not isinstance(backend_config, Mapping):
    raise ValueError("When api_version > 4, backend_config must be a dictionary.")

  def lowering_op(ctx, *operands, **params):
    if api_version >= 4:
      config = dict(backend_config or {}, **params)
    else:
      if params:
        raise ValueError("The use of ffi_call attributes requires a custom call API version of "
                         f"at least 4; got api_version={api_version}.")
      config = backend_config
    ins = [_layout_for_lowering(a, l) for a, l in
           zip(ctx.avals_in, operand_layouts or [None] * len(ctx.avals_in))]
    outs = [_layout_for_lowering(a, l) for a, l in
            zip(ctx.avals_out, result_layouts or [None] * len(ctx.avals_out))]
    aliases = sorted((int(i), int(o))
                     for i, o in dict(lowering_args.get("operand_output_aliases") or {}).items())
    return emit_custom_call(ctx, call_target_name, operands, ctx.avals_out, operand_layouts=ins,
                            result_layouts=outs, api_version=api_version,
                            backend_config=config, aliases=aliases,
                            has_side_effect=bool(lowering_args.get("has_side_effect", False)))
  return lowering_op


def ffi_lowering(call_target_name: str, *, operand_layouts=None, result_layouts=None,
                 backend_config=None, skip_ffi_layout_processing: bool = False,
                 **lowering_args: Any) -> Callable[..., list]:
  """A lowering rule calling the FFI target ``call_target_name``, for
  ``ember.interpreters.mlir.register_lowering`` (arguments as ``build_ffi_lowering_function``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import ffi
      >>> from ember.extend.core import Primitive
      >>> from ember.interpreters import mlir
      >>> getrf = Primitive("my_getrf")
      >>> getrf.multiple_results = True
      >>> _ = getrf.def_abstract_eval(
      ...     lambda a: (a, ember.ShapeDtypeStruct((2,), jnp.int32),
      ...                ember.ShapeDtypeStruct((), jnp.int32)))
      >>> mlir.register_lowering(getrf, ffi.ffi_lowering(
      ...     "lapack_sgetrf_ffi", operand_layouts=[(0, 1)],
      ...     result_layouts=[(0, 1), (0,), ()]))
      >>> lu, pivots, info = ember.jit(getrf.bind)(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
      >>> pivots  # LAPACK's 1-based row swaps
      Array([2, 2], dtype=int32)
  """
  rule = build_ffi_lowering_function(
      call_target_name, operand_layouts=operand_layouts, result_layouts=result_layouts,
      backend_config=backend_config, skip_ffi_layout_processing=skip_ffi_layout_processing,
      **lowering_args)
  rule._ember_lowering = True  # accepted by ember.interpreters.mlir.register_lowering
  rule._ember_results_list = True
  return rule


# --- the ffi_call primitive ---------------------------------------------------------------------

class FfiEffect:
  """The effect of an ``ffi_call`` with ``has_side_effect=True``, as an ``Exported`` lists it in
  its ``unordered_effects`` (ember's jaxprs carry no effects; XLA keeps such calls).

  Example:
      >>> FfiEffect(), str(FfiEffect())
      (FfiEffect(), 'FFI')
  """
  __slots__ = ()

  def __repr__(self):
    return "FfiEffect()"

  def __str__(self):
    return "FFI"

  def __eq__(self, other):
    return type(other) is FfiEffect

  def __hash__(self):
    return hash(FfiEffect)


ffi_call_p = core.Primitive("ffi_call", multiple_results=True)


def _ffi_call_abstract_eval(*avals, result_avals, **_):
  return list(result_avals)


def _ffi_call_lower(ctx, *operands, target_name, has_side_effect, input_layouts, output_layouts,
                    input_output_aliases, custom_call_api_version, legacy_backend_config,
                    attributes, result_avals, **_):
  if custom_call_api_version >= 4:
    config = {k: (v.val if isinstance(v, HashableArray) else v) for k, v in attributes}
  else:
    if attributes:
      raise ValueError("The use of ffi_call attributes requires a custom call API version of "
                       f"at least 4; got api_version={custom_call_api_version}.")
    config = legacy_backend_config
  return emit_custom_call(ctx, target_name, operands, result_avals, operand_layouts=input_layouts,
                          result_layouts=output_layouts, api_version=custom_call_api_version,
                          backend_config=config, has_side_effect=has_side_effect,
                          aliases=input_output_aliases)


def _not_differentiable(*args, target_name, **_):
  raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                   "`jax.custom_jvp` or `jax.custom_jvp` to add support.")


def _batched_layouts(layouts, which=None) -> tuple:
  """Layouts of arguments given a leading batch axis (the most major): the ones ``which``
  selects (all when None)."""
  return tuple(l if which is not None and not which[k] else
               tuple(n + 1 for n in l) + (0,) for k, l in enumerate(layouts))


def _ffi_call_batch(axis, vals, dims, *, vmap_method, result_avals, **params):
  from ember import lax
  from ember.transforms.batching import moveaxis
  size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
  moved = [v if d is None else moveaxis(v, d, 0) for v, d in zip(vals, dims)]
  batched = tuple(a.update(shape=(size,) + tuple(a.shape)) for a in result_avals)
  if vmap_method in ("sequential", "sequential_unrolled"):
    return _batch_sequential(moved, dims, vmap_method, result_avals, params)
  if vmap_method not in ("expand_dims", "broadcast_all", "legacy_vectorized"):
    raise NotImplementedError(
        "vmap is only supported for the ffi_call primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
  params["output_layouts"] = _batched_layouts(params["output_layouts"])
  if vmap_method == "legacy_vectorized":
    params["input_layouts"] = _batched_layouts(params["input_layouts"],
                                               [d is not None for d in dims])
  else:
    width = size if vmap_method == "broadcast_all" else 1
    moved = [lax.broadcast(v, (width,)) if d is None else v for v, d in zip(moved, dims)]
    params["input_layouts"] = _batched_layouts(params["input_layouts"])
  outs = ffi_call_p.bind(*moved, vmap_method=vmap_method, result_avals=batched, **params)
  return list(outs), [0] * len(outs)


def _batch_sequential(moved, dims, vmap_method, result_avals, params):
  """One call per example, in a ``scan`` over the batched arguments."""
  from ember import lax
  batched = [d is not None for d in dims]
  fixed = [v for v, b in zip(moved, batched) if not b]
  swept = [v for v, b in zip(moved, batched) if b]

  def body(carry, xs):
    it_x, it_f = iter(xs), iter(fixed)
    args = [next(it_x) if b else next(it_f) for b in batched]
    return carry, list(ffi_call_p.bind(*args, vmap_method=vmap_method,
                                       result_avals=result_avals, **params))
  _, outs = lax.scan(body, (), swept, unroll=vmap_method == "sequential_unrolled")
  return list(outs), [0] * len(outs)


ffi_call_p.def_rules(abstract_eval=_ffi_call_abstract_eval, lower=_ffi_call_lower,
                     jvp=_not_differentiable, transpose=_not_differentiable,
                     batch=_ffi_call_batch)


def _result_avals(results: Sequence) -> tuple:
  avals = []
  for i, result in enumerate(results):
    if not hasattr(result, "shape") or not hasattr(result, "dtype"):
      raise ValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' "
                       f"attributes. Got {result} at position {i}.")
    # the declared dtype, not canonicalized (as JAX)
    avals.append(ShapedArray(tuple(result.shape), np.dtype(result.dtype),
                             bool(getattr(result, "weak_type", False))))
  return tuple(avals)


def _call_layouts(avals, layouts) -> tuple:
  """``ffi_call``'s layouts (major-to-minor tuples, ``Layout``s, or None) as minor-to-major."""
  return tuple(_layout_for_lowering(a, l if l is None or hasattr(l, "major_to_minor")
                                    else tuple(l)[::-1]) for a, l in zip(avals, layouts))


def _check_aliases(aliases: dict, in_avals, out_avals, in_layouts, out_layouts) -> tuple:
  out = []
  for i, o in sorted(aliases.items()):
    i, o = int(i), int(o)
    pair = f"'{i}:{o}'"
    if i >= len(in_avals):
      raise ValueError(f"input_output_aliases contains the mapping {pair} with input index {i} "
                       f"outside the range [0, {len(in_avals)}).")
    if o >= len(out_avals):
      raise ValueError(f"input_output_aliases contains the mapping {pair} with output index "
                       f"{o} outside the range [0, {len(out_avals)}).")
    a, b = in_avals[i], out_avals[o]
    if a.shape != b.shape or a.dtype != b.dtype:
      raise ValueError(f"input_output_aliases contains the mapping {pair} referring to an input "
                       f"with abstract value {a.str_short()} and an output with a different "
                       f"abstract value {b.str_short()}.")
    if in_layouts[i] != out_layouts[o]:
      raise ValueError(f"input_output_aliases contains the mapping {pair} referring to an input "
                       f"with layout {in_layouts[i]} and an output with a different layout "
                       f"{out_layouts[o]}.")
    out.append((i, o))
  return tuple(out)


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_layouts=None, output_layouts=None,
             input_output_aliases: dict[int, int] | None = None,
             custom_call_api_version: int = 4,
             legacy_backend_config: str | None = None) -> Callable:
  """A function calling the FFI target ``target_name``: ``f(*arrays, **attributes)`` returns
  arrays shaped as ``result_shape_dtypes`` (one object with ``shape``/``dtype``, or a sequence
  of them: then a list, or a tuple for a tuple).

  Args:
    target_name: the name the target was registered under (``register_ffi_target``).
    result_shape_dtypes: the results' shapes and dtypes (e.g. ``ShapeDtypeStruct``s).
    has_side_effect: run the call even when its results are unused.
    vmap_method: how ``vmap`` runs it: ``"sequential"`` (a loop over the examples),
      ``"sequential_unrolled"``, ``"expand_dims"`` (once, unbatched arguments given a unit
      leading axis), ``"broadcast_all"`` (once, every argument batched), or
      ``"legacy_vectorized"``; None refuses ``vmap``.
    input_layouts, output_layouts: per argument/result, its axes major-to-minor (None:
      row-major); XLA hands the target buffers in these layouts.
    input_output_aliases: input index -> output index of results written in their input's
      buffer.
    custom_call_api_version: 4 (typed FFI); lower versions call older custom-call targets.
    legacy_backend_config: the opaque configuration string of a target of version < 4.

  Returns:
    The calling function; its keyword arguments are the call's attributes.

  Raises:
    ValueError: for an unknown ``vmap_method``, a ``legacy_backend_config`` with version 4, a
      result without shape/dtype, mismatched layouts or aliases.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import ffi
      >>> getrf = ffi.ffi_call("lapack_sgetrf_ffi",
      ...                      (ember.ShapeDtypeStruct((2, 2), jnp.float32),
      ...                       ember.ShapeDtypeStruct((2,), jnp.int32),
      ...                       ember.ShapeDtypeStruct((), jnp.int32)),
      ...                      input_layouts=[(1, 0)], output_layouts=[(1, 0), None, None])
      >>> getrf(jnp.array([[1.0, 2.0], [3.0, 4.0]]))[1]
      Array([2, 2], dtype=int32)
  """
  if vmap_method not in _VMAP_METHODS:
    raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, but got: "
                     f"{vmap_method}")
  multiple = isinstance(result_shape_dtypes, Sequence)
  result_avals = _result_avals(result_shape_dtypes if multiple else [result_shape_dtypes])
  out_layouts = output_layouts if multiple else (output_layouts,)
  if custom_call_api_version >= 4 and legacy_backend_config is not None:
    raise ValueError("The use of the legacy_backend_config parameter requires "
                     f"custom_call_api_version < 4; got {custom_call_api_version}.")

  def wrapped(*args, **kwargs):
    from ember.api import typeof
    in_avals = [typeof(x) for x in args]
    if input_layouts is None:
      ins = tuple(_row_major(a) for a in in_avals)
    elif len(input_layouts) != len(in_avals):
      raise ValueError(f"The number of input arguments ({len(in_avals)}) must equal the number "
                       f"of input layouts ({len(input_layouts)}).")
    else:
      ins = _call_layouts(in_avals, input_layouts)
    if out_layouts is None:
      outs = tuple(_row_major(a) for a in result_avals)
    elif len(out_layouts) != len(result_avals):
      raise ValueError(f"The number of outputs ({len(result_avals)}) must equal the number of "
                       f"output layouts ({len(out_layouts)}).")
    else:
      outs = _call_layouts(result_avals, out_layouts)
    aliases = _check_aliases(input_output_aliases or {}, in_avals, result_avals, ins, outs)
    results = ffi_call_p.bind(
        *args, result_avals=result_avals, vmap_method=vmap_method, target_name=target_name,
        has_side_effect=has_side_effect, input_layouts=ins, output_layouts=outs,
        input_output_aliases=aliases, custom_call_api_version=custom_call_api_version,
        legacy_backend_config=legacy_backend_config, attributes=_hashable_attributes(kwargs))
    if not multiple:
      return results[0]
    return tuple(results) if isinstance(result_shape_dtypes, tuple) else list(results)
  return wrapped
