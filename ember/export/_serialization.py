"""Serializing an ``Exported`` to bytes and back, and the registry of pytree node types that
may appear in its argument and result structures.

ember's byte format (not JAX's flatbuffers, which needs the ``flatbuffers`` package; see
docs/differences.md): the 8 bytes ``EMBEREXP``, a format version (u32), then sections, each a
u64 length and its bytes: a JSON header (name, pytree structures, avals, platforms, checks,
calling convention, kept arguments), the module (a StableHLO portable artifact, as JAX stores
it), and, when serialized with ``vjp_order`` > 0, the VJP, itself serialized (an empty section
otherwise). Pytree structures are written by node kind: tuples, lists, dicts with string keys
and None always; ``collections.OrderedDict`` with string keys is registered by default; other
node types (namedtuples, custom nodes) need ``register_namedtuple_serialization`` /
``register_pytree_node_serialization``, as in JAX.
"""
from __future__ import annotations

import base64
import collections
import json
import struct
from collections.abc import Sequence
from typing import Any, Callable, TypeVar

import numpy as np

from ember import pytree
from ember.core.aval import ShapedArray
from ember.export._exported import DisabledSafetyCheck, Exported

__all__ = ["serialize", "deserialize", "register_pytree_node_serialization",
           "register_namedtuple_serialization"]

T = TypeVar("T")
_MAGIC = b"EMBEREXP"
_VERSION = 1

# type -> (serialized name, serialize_auxdata);
# serialized name -> (type, deserialize_auxdata, from_children)
serialization_registry: dict[type, tuple[str, Callable]] = {}
deserialization_registry: dict[str, tuple[type, Callable, Callable]] = {}


def register_pytree_node_serialization(nodetype: type[T], *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any],
                                       from_children: Callable | None = None) -> type[T]:
  """Let pytree nodes of ``nodetype`` appear in serialized ``Exported``s.

  Args:
    nodetype: the node type (already registered as a pytree node unless ``from_children`` is
      given).
    serialized_name: the name written for it (unique).
    serialize_auxdata, deserialize_auxdata: the node's auxiliary data to bytes and back.
    from_children: ``(auxdata, children) -> node``; by default the type's unflatten function.

  Returns:
    ``nodetype`` (usable as a class decorator).

  Example:
      >>> import ember
      >>> from ember import export
      >>> class Pair:
      ...   def __init__(self, a, b): self.a, self.b = a, b
      >>> ember.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
      ...                                      lambda _, ch: Pair(*ch))
      >>> export.register_pytree_node_serialization(
      ...     Pair, serialized_name="doc.Pair", serialize_auxdata=lambda _: b"",
      ...     deserialize_auxdata=lambda _: None) is Pair
      True
  """
  if nodetype in serialization_registry:
    raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. Previous "
                     f"registration was with serialized_name "
                     f"`{serialization_registry[nodetype][0]}`.")
  if serialized_name in deserialization_registry:
    raise ValueError(f"Duplicate serialization registration for serialized_name "
                     f"`{serialized_name}`. Previous registration was for type "
                     f"`{deserialization_registry[serialized_name][0]}`.")
  if from_children is None:
    import optree
    entry = optree.register_pytree_node.get(nodetype, namespace=pytree.NAMESPACE)
    if entry is None:
      raise ValueError(f"If `from_children` is not present, you must call first"
                       f"`jax.tree_util.register_pytree_node` for `{nodetype}`")
    from_children = entry.unflatten_func
  serialization_registry[nodetype] = (serialized_name, serialize_auxdata)
  deserialization_registry[serialized_name] = (nodetype, deserialize_auxdata, from_children)
  return nodetype


def _is_namedtuple(t) -> bool:
  return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def register_namedtuple_serialization(nodetype: type[T], *, serialized_name: str) -> type[T]:
  """Let namedtuples of type ``nodetype`` appear in serialized ``Exported``s (their field
  names are written; deserializing needs the same fields).

  Example:
      >>> import collections
      >>> from ember import export
      >>> Point = collections.namedtuple("Point", "x y")
      >>> export.register_namedtuple_serialization(Point, serialized_name="doc.Point") is Point
      True
  """
  if not _is_namedtuple(nodetype):
    raise ValueError("Use `jax.export.register_pytree_node_serialization` for types other than "
                     "`collections.namedtuple`.")

  def from_children(fields, children):
    return nodetype(**dict(zip(fields, children, strict=True)))
  return register_pytree_node_serialization(
      nodetype, serialized_name=serialized_name,
      serialize_auxdata=lambda _: json.dumps(list(nodetype._fields)).encode("utf-8"),
      deserialize_auxdata=lambda data: json.loads(data.decode("utf-8")),
      from_children=from_children)


def _ordered_dict_keys(keys) -> bytes:
  if isinstance(keys, Sequence) and all(isinstance(k, str) for k in keys):
    return json.dumps(list(keys)).encode("utf-8")
  raise NotImplementedError("Serialization of collections.OrderedDict is supported only when "
                            f"the keys are strings. Found keys: {keys}.")


register_pytree_node_serialization(
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=_ordered_dict_keys,
    deserialize_auxdata=lambda data: json.loads(data.decode("utf-8")),
    from_children=lambda keys, children: collections.OrderedDict(zip(keys, children)))


# --- pytree structures ----------------------------------------------------------------------------

class _Leaf:
  """A placeholder leaf in the example tree a structure is rebuilt from."""


def _tree_to_json(node) -> Any:
  """One node of an example tree (leaves are ``_Leaf``) as JSON."""
  import optree
  if isinstance(node, _Leaf):
    return {"k": "leaf"}
  if node is None:
    return {"k": "none"}
  t = type(node)
  if t is tuple or t is list:
    return {"k": t.__name__, "c": [_tree_to_json(c) for c in node]}
  if t is dict:
    for key in node:
      if not isinstance(key, str):
        raise TypeError("Serialization is supported only for dictionaries with string keys. "
                        f"Found key {key} of type {type(key)}.")
    keys = sorted(node)
    return {"k": "dict", "keys": keys, "c": [_tree_to_json(node[k]) for k in keys]}
  if t not in serialization_registry:
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type `{t}`. Use "
                     "`export.register_pytree_node_serialization` or "
                     "`export.register_namedtuple_serialization`.")
  name, serialize_aux = serialization_registry[t]
  children, aux, *_ = optree.tree_flatten_one_level(node, namespace=pytree.NAMESPACE)
  if _is_namedtuple(t):
    aux = None
  data = serialize_aux(aux)
  if not isinstance(data, (bytes, bytearray)):
    raise ValueError("The custom serialization function for `node_type` must return a `bytes` "
                     f"object. It returned a {type(data)}.")
  return {"k": "custom", "name": name, "aux": base64.b64encode(bytes(data)).decode("ascii"),
          "c": [_tree_to_json(c) for c in children]}


def _treedef_to_json(treedef) -> Any:
  leaves = [_Leaf() for _ in range(treedef.num_leaves)]
  return _tree_to_json(pytree.unflatten(treedef, leaves))


def _json_to_tree(node) -> Any:
  kind = node["k"]
  if kind == "leaf":
    return 0
  if kind == "none":
    return None
  children = [_json_to_tree(c) for c in node.get("c", [])]
  if kind == "tuple":
    return tuple(children)
  if kind == "list":
    return children
  if kind == "dict":
    return dict(zip(node["keys"], children))
  if kind == "custom":
    name = node["name"]
    if name not in deserialization_registry:
      raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                       f"`{name}`. Use `export.register_pytree_node_serialization` or "
                       "`export.register_namedtuple_serialization`.")
    _, deserialize_aux, from_children = deserialization_registry[name]
    return from_children(deserialize_aux(base64.b64decode(node["aux"])), children)
  raise ValueError(f"Cannot deserialize PyTreeDef with unknown kind: {kind}")


def _json_to_treedef(node):
  return pytree.flatten(_json_to_tree(node))[1]


# --- avals, checks -----------------------------------------------------------------------------

def _aval_to_json(aval) -> dict:
  from ember import dtypes
  name = "float0" if aval.dtype == dtypes.float0 else np.dtype(aval.dtype).name
  return {"shape": [int(d) for d in aval.shape], "dtype": name, "weak_type": bool(aval.weak_type)}


def _json_to_aval(d: dict) -> ShapedArray:
  from ember import dtypes
  name = d["dtype"]
  try:
    dtype = np.dtype(name)
  except TypeError:  # float0, bfloat16, float8_*...: ember's (ml_dtypes') types
    dtype = np.dtype(getattr(dtypes, name))
  return ShapedArray(tuple(d["shape"]), dtype, bool(d["weak_type"]))


def _effect_name(effect) -> str:
  from ember.ffi import FfiEffect
  if isinstance(effect, FfiEffect):
    return "FfiEffect"
  raise NotImplementedError(f"serializing the effect {effect} is not supported by ember.")


def _effect(name: str):
  from ember.ffi import FfiEffect
  if name == "FfiEffect":
    return FfiEffect()
  raise NotImplementedError(f"cannot deserialize effect type {name}")


# --- the blob -------------------------------------------------------------------------------------

def _sections(*parts: bytes) -> bytes:
  return b"".join(struct.pack("<Q", len(p)) + p for p in parts)


def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
  """``exp`` as bytes for ``deserialize`` (see the module's docstring).

  Example:
      >>> import ember
      >>> from ember import export
      >>> blob = export.export(ember.jit(abs))(1.0).serialize()
      >>> bytes(blob[:8])
      b'EMBEREXP'
  """
  if not isinstance(exp, Exported):
    raise TypeError(f"serialize takes an Exported, got {exp!r}.")
  vjp = b""
  if vjp_order > 0:
    if not exp.has_vjp():
      raise ValueError("serialization of an Exported that does not have vjps of high-enough "
                       "order")
    vjp = bytes(serialize(exp.vjp(), vjp_order - 1))
  header = {
      "fun_name": exp.fun_name,
      "in_tree": _treedef_to_json(exp.in_tree), "out_tree": _treedef_to_json(exp.out_tree),
      "in_avals": [_aval_to_json(a) for a in exp.in_avals],
      "out_avals": [_aval_to_json(a) for a in exp.out_avals],
      "nr_devices": exp.nr_devices, "platforms": list(exp.platforms),
      "disabled_safety_checks": [str(c) for c in exp.disabled_safety_checks],
      "calling_convention_version": exp.calling_convention_version,
      "module_kept_var_idx": list(exp.module_kept_var_idx),
      "uses_global_constants": exp.uses_global_constants,
      "ordered_effects": [_effect_name(e) for e in exp.ordered_effects],
      "unordered_effects": [_effect_name(e) for e in exp.unordered_effects],
  }
  out = _MAGIC + struct.pack("<I", _VERSION) + _sections(
      json.dumps(header).encode("utf-8"), bytes(exp.mlir_module_serialized), vjp)
  return bytearray(out)


def _read_sections(blob: bytes, count: int) -> list[bytes]:
  parts, pos = [], 12
  for _ in range(count):
    (n,), pos = struct.unpack_from("<Q", blob, pos), pos + 8
    if pos + n > len(blob):
      raise ValueError("deserialize: the bytes are truncated (not a whole serialized Exported).")
    parts.append(blob[pos:pos + n])
    pos += n
  return parts


def deserialize(blob: bytearray) -> Exported:
  """The ``Exported`` that ``Exported.serialize`` wrote into ``blob``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import export
      >>> exp = export.deserialize(export.export(ember.jit(jnp.cos))(0.0).serialize())
      >>> exp.fun_name, exp.call(0.0)
      ('cos', Array(1., dtype=float32, weak_type=True))
  """
  blob = bytes(blob)
  if blob[:8] != _MAGIC:
    raise ValueError("deserialize: these bytes are not an Exported serialized by ember (JAX's "
                     "flatbuffers format is not read by ember).")
  (version,) = struct.unpack_from("<I", blob, 8)
  if version != _VERSION:
    raise ValueError(f"deserialize: unsupported serialization version {version} (ember reads "
                     f"version {_VERSION}).")
  header_bytes, module, vjp = _read_sections(blob, 3)
  h = json.loads(header_bytes.decode("utf-8"))
  vjp_exported = deserialize(vjp) if vjp else None
  return Exported(
      fun_name=h["fun_name"], in_tree=_json_to_treedef(h["in_tree"]),
      in_avals=tuple(_json_to_aval(a) for a in h["in_avals"]),
      out_tree=_json_to_treedef(h["out_tree"]),
      out_avals=tuple(_json_to_aval(a) for a in h["out_avals"]),
      _has_named_shardings=True, _in_named_shardings=(None,) * len(h["in_avals"]),
      _out_named_shardings=(None,) * len(h["out_avals"]),
      in_shardings_hlo=(None,) * len(h["in_avals"]),
      out_shardings_hlo=(None,) * len(h["out_avals"]), nr_devices=h["nr_devices"],
      platforms=tuple(h["platforms"]),
      ordered_effects=tuple(_effect(n) for n in h.get("ordered_effects", ())),
      unordered_effects=tuple(_effect(n) for n in h.get("unordered_effects", ())),
      disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in
                                   h["disabled_safety_checks"]),
      mlir_module_serialized=module, calling_convention_version=h["calling_convention_version"],
      module_kept_var_idx=tuple(h["module_kept_var_idx"]),
      uses_global_constants=h["uses_global_constants"],
      _get_vjp=(lambda _: vjp_exported) if vjp_exported is not None else None)
