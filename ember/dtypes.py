"""Dtypes for ember: JAX's type-promotion lattice, canonicalization and dtype helpers.

This module mirrors the public ``jax.dtypes`` namespace and adds the internal
helpers the rest of ember uses (``short_name``, ``mlir_type``, kind predicates...).

Two ideas drive everything:

* *Canonicalization*: with ``jax_enable_x64`` off, 64-bit types are stored as
  their 32-bit counterparts (int64 -> int32, uint64 -> uint32, float64 -> float32,
  complex128 -> complex64).
* *Weak types*: Python scalars (``int``, ``float``, ``complex``; not ``bool``) are
  "weakly typed": they take the dtype of the arrays they are combined with,
  following JAX's type-promotion lattice.

Example:
    >>> from ember import dtypes
    >>> dtypes.result_type('int8', 'uint8')
    dtype('int16')
    >>> dtypes.result_type('uint8', 3, return_weak_type_flag=True)
    (dtype('uint8'), False)
"""
from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np

from ember.config import config

__all__ = [
    "bfloat16", "float0", "extended", "prng_key", "ExtendedDType", "TypePromotionError",
    "issubdtype", "iinfo", "finfo", "canonicalize_dtype", "default_int_dtype",
    "default_uint_dtype", "default_float_dtype", "default_complex_dtype", "dtype",
    "is_weakly_typed", "is_python_scalar", "promote_types", "result_type",
    "check_user_dtype_supported", "check_and_canonicalize_user_dtype", "short_name",
    "mlir_type", "python_scalar_dtypes", "all_dtypes", "is_bool", "is_float", "is_complex",
    "is_integer", "is_signed", "is_unsigned", "is_inexact", "scalar_type_of",
    "itemsize_bits", "to_inexact_dtype", "to_complex_dtype",
]

# --------------------------------------------------------------------------------------
# Dtype objects
# --------------------------------------------------------------------------------------

#: The bfloat16 scalar type (from ml_dtypes); ``np.dtype(bfloat16)`` is its dtype.
bfloat16 = ml_dtypes.bfloat16

#: The dtype of tangents/cotangents of integer and boolean values.
float0 = np.dtype([("float0", np.void, 0)])

#: ml_dtypes finfo/iinfo understand bfloat16 (and the other ml_dtypes types) as well
#: as every NumPy type, e.g. ``finfo(bfloat16).eps == 0.0078125``.
finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo


class extended(np.generic):
  """Abstract scalar class of extended (non-NumPy) dtypes, e.g. PRNG key dtypes.

  Example:
      >>> import ember
      >>> issubdtype(ember.random.key(0).dtype, extended), issubdtype('float32', extended)
      (True, False)
  """


class prng_key(extended):
  """Abstract scalar class of PRNG key dtypes.

  Example:
      >>> import ember
      >>> issubdtype(ember.random.key(0).dtype, prng_key)
      True
  """


class ExtendedDType:
  """Base class for extended dtype objects; ``type`` is a subclass of ``extended``.

  Example:
      >>> import ember
      >>> dt = ember.random.key(0).dtype
      >>> isinstance(dt, ExtendedDType), dt.type, dt.name
      (True, <class 'ember.dtypes.prng_key'>, 'key<fry>')
  """
  type: type = extended
  name: str = "extended"


class TypePromotionError(ValueError):
  """Raised when no implicit promotion path exists (``jax_numpy_dtype_promotion=strict``, or
  narrow types such as int4 in any mode).

  Example:
      >>> promote_types('int4', 'int8')  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.dtypes.TypePromotionError: Input dtypes ('int4', 'int8') have no available ...
  """


_bool = np.dtype(np.bool_)
_i8, _i16, _i32, _i64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
_u8, _u16, _u32, _u64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
_bf16 = np.dtype(bfloat16)
_f16, _f32, _f64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
_c64, _c128 = np.dtype(np.complex64), np.dtype(np.complex128)

#: Every dtype ember supports for arrays (float0 and extended dtypes aside).
all_dtypes = (
    _bool, _i8, _i16, _i32, _i64, _u8, _u16, _u32, _u64,
    _bf16, _f16, _f32, _f64, _c64, _c128,
)
#: The narrow ml_dtypes types (8/6/4-bit floats, 2/4-bit integers). Arrays may hold them (as in
#: JAX, the 6-bit floats fail in XLA), but they promote only with themselves and weak types.
narrow_float_dtypes = tuple(np.dtype(getattr(ml_dtypes, n)) for n in (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
    "float6_e3m2fn"))
narrow_int_dtypes = tuple(np.dtype(getattr(ml_dtypes, n)) for n in ("int2", "int4", "uint2",
                                                                    "uint4"))
_SUPPORTED = frozenset(all_dtypes) | {float0} | set(narrow_float_dtypes + narrow_int_dtypes)

#: Dtype of each Python scalar type before canonicalization.
python_scalar_dtypes = {bool: _bool, int: _i64, float: _f64, complex: _c128}

_X64_TO_32 = {_i64: _i32, _u64: _u32, _f64: _f32, _c128: _c64}

# Kinds of the ml_dtypes scalar types (NumPy reports them all as kind 'V').
_ML_KINDS = {np.dtype(bfloat16).type: "f"}
for _narrow in narrow_float_dtypes + narrow_int_dtypes:
  _ML_KINDS[_narrow.type] = _narrow.name[0] if _narrow.name[0] in "fu" else "i"

_KIND_PARENTS = {
    "f": frozenset({np.floating, np.inexact, np.number, np.generic}),
    "i": frozenset({np.signedinteger, np.integer, np.number, np.generic}),
    "u": frozenset({np.unsignedinteger, np.integer, np.number, np.generic}),
}

# --------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------


def _is_extended(x: Any) -> bool:
  if isinstance(x, ExtendedDType):
    return True
  return isinstance(x, type) and issubclass(x, extended)


def _as_np_dtype(x: Any):
  """A dtype-like (or value with ``.dtype``) as an ``np.dtype``; extended dtypes pass."""
  if isinstance(x, np.dtype) or isinstance(x, ExtendedDType):
    return x
  if not isinstance(x, type):
    dt = getattr(x, "dtype", None)
    if dt is not None and not isinstance(x, str):
      return dt
  if isinstance(x, type) and x in python_scalar_dtypes:
    return python_scalar_dtypes[x]
  return np.dtype(x)


def _kind(x: Any) -> str:
  """One of 'b', 'i', 'u', 'f', 'c' for supported numeric/bool dtypes, '' otherwise."""
  dt = _as_np_dtype(x)
  if isinstance(dt, ExtendedDType):
    return ""
  kind = _ML_KINDS.get(dt.type)
  if kind is not None:
    return kind
  return dt.kind if dt.kind in "biufc" else ""


# --------------------------------------------------------------------------------------
# issubdtype and kind predicates
# --------------------------------------------------------------------------------------


def _scalar_class(x: Any) -> type:
  if isinstance(x, ExtendedDType):
    return x.type
  if isinstance(x, type) and issubclass(x, np.generic):
    return x
  return _as_np_dtype(x).type


def issubdtype(a: Any, b: Any) -> bool:
  """Like ``np.issubdtype``, but knows that bfloat16 (and ml_dtypes types) are numbers.

  Example:
      >>> issubdtype(bfloat16, np.floating), np.issubdtype(bfloat16, np.floating)
      (True, False)
      >>> issubdtype('int8', np.integer), issubdtype(np.float32, bfloat16)
      (True, False)
  """
  a_cls, b_cls = _scalar_class(a), _scalar_class(b)
  if a_cls is b_cls:
    return True
  kind = _ML_KINDS.get(a_cls)
  if kind is not None:
    return b_cls in _KIND_PARENTS[kind]
  return issubclass(a_cls, b_cls)


def is_bool(dt: Any) -> bool:
  """True for the bool dtype.

  Example:
      >>> is_bool(np.bool_), is_bool('int8')
      (True, False)
  """
  return _kind(dt) == "b"


def is_float(dt: Any) -> bool:
  """True for real floating dtypes, bfloat16 included.

  Example:
      >>> is_float(bfloat16), is_float('float32'), is_float('int32')
      (True, True, False)
  """
  return _kind(dt) == "f"


def is_complex(dt: Any) -> bool:
  """True for complex dtypes.

  Example:
      >>> is_complex('complex64'), is_complex('float32')
      (True, False)
  """
  return _kind(dt) == "c"


def is_integer(dt: Any) -> bool:
  """True for signed or unsigned integer dtypes (not bool).

  Example:
      >>> is_integer('uint8'), is_integer('int64'), is_integer('bool')
      (True, True, False)
  """
  return _kind(dt) in ("i", "u")


def is_signed(dt: Any) -> bool:
  """True for signed integer dtypes.

  Example:
      >>> is_signed('int8'), is_signed('uint8')
      (True, False)
  """
  return _kind(dt) == "i"


def is_unsigned(dt: Any) -> bool:
  """True for unsigned integer dtypes.

  Example:
      >>> is_unsigned('uint32'), is_unsigned('int32')
      (True, False)
  """
  return _kind(dt) == "u"


def is_inexact(dt: Any) -> bool:
  """True for floating or complex dtypes, bfloat16 included.

  Example:
      >>> is_inexact(bfloat16), is_inexact('complex64'), is_inexact('int8')
      (True, True, False)
  """
  return _kind(dt) in ("f", "c")


def itemsize_bits(dtype: Any) -> int:
  """Size in bits of one element of ``dtype``.

  Example:
      >>> itemsize_bits('float32'), itemsize_bits(bfloat16), itemsize_bits('bool')
      (32, 16, 8)
  """
  d = _as_np_dtype(dtype)
  if _ML_KINDS.get(d.type) in ("i", "u"):
    return iinfo(d).bits
  return d.itemsize * 8


# --------------------------------------------------------------------------------------
# Canonicalization
# --------------------------------------------------------------------------------------

_CANONICAL_CACHE: dict = {}


def _canonicalize_uncached(dt: Any, x64: bool):
  if _is_extended(dt):
    return dt
  np_dt = python_scalar_dtypes.get(dt) if isinstance(dt, type) else None
  if np_dt is None:
    np_dt = np.dtype(dt)
  return np_dt if x64 else _X64_TO_32.get(np_dt, np_dt)


def canonicalize_dtype(dtype: Any):
  """The dtype ember really uses for ``dtype``, given the current ``jax_enable_x64``.

  Python types map to the default dtypes (``int`` -> int64 -> canonicalized).

  Example:
      >>> from ember.config import config
      >>> config.jax_enable_x64
      False
      >>> canonicalize_dtype(np.float64), canonicalize_dtype(int), canonicalize_dtype(bool)
      (dtype('float32'), dtype('int32'), dtype('bool'))
  """
  x64 = config.x64_enabled
  try:
    return _CANONICAL_CACHE[(dtype, x64)]
  except KeyError:
    out = _CANONICAL_CACHE[(dtype, x64)] = _canonicalize_uncached(dtype, x64)
    return out
  except TypeError:  # unhashable dtype-like
    return _canonicalize_uncached(dtype, x64)


def default_int_dtype() -> np.dtype:
  """int64 with x64 on, else int32.

  Example:
      >>> default_int_dtype()
      dtype('int32')
  """
  return canonicalize_dtype(_i64)


def default_uint_dtype() -> np.dtype:
  """uint64 with x64 on, else uint32.

  Example:
      >>> default_uint_dtype()
      dtype('uint32')
  """
  return canonicalize_dtype(_u64)


def default_float_dtype() -> np.dtype:
  """float64 with x64 on, else float32.

  Example:
      >>> default_float_dtype()
      dtype('float32')
  """
  return canonicalize_dtype(_f64)


def default_complex_dtype() -> np.dtype:
  """complex128 with x64 on, else complex64.

  Example:
      >>> default_complex_dtype()
      dtype('complex64')
  """
  return canonicalize_dtype(_c128)


# --------------------------------------------------------------------------------------
# dtype(), weak types
# --------------------------------------------------------------------------------------

_PY_SCALAR_TYPES = (bool, int, float, complex)  # bool first: bool is a subclass of int
_WEAK_PY_TYPES = frozenset({int, float, complex})


def is_python_scalar(x: Any) -> bool:
  """True for Python ``bool``/``int``/``float``/``complex`` values (not NumPy scalars).

  Example:
      >>> is_python_scalar(1.5), is_python_scalar(np.float64(1.5))
      (True, False)
  """
  return type(x) in python_scalar_dtypes


def _python_scalar_dtype(x: Any):
  """Dtype of a value whose type is (a subclass of) a Python scalar type, else None."""
  dt = python_scalar_dtypes.get(type(x))
  if dt is None and not isinstance(x, np.generic):
    for t in _PY_SCALAR_TYPES:
      if isinstance(x, t):
        return python_scalar_dtypes[t]
  return dt


def _dtype_uncanonical(x: Any):
  if x is None:
    raise ValueError("Invalid argument to dtype: None.")
  dt = _python_scalar_dtype(x)
  if dt is not None:
    return dt
  if isinstance(x, (np.dtype, ExtendedDType)):
    return x
  if isinstance(x, type):
    if x in python_scalar_dtypes:
      return python_scalar_dtypes[x]
    return x if issubclass(x, extended) else np.dtype(x)
  if isinstance(x, str):
    return np.dtype(x)
  dt = getattr(x, "dtype", None)
  if dt is None:
    raise TypeError(f"Cannot determine dtype of {x!r}")
  return dt if isinstance(dt, (np.dtype, ExtendedDType)) else np.dtype(dt)


def dtype(x: Any, *, canonicalize: bool = False):
  """The dtype of a value (Python/NumPy scalar, array, tracer) or of a dtype-like.

  Python scalars have the 64-bit default dtypes unless ``canonicalize`` is True.

  Example:
      >>> dtype(1), dtype(1.0, canonicalize=True), dtype(True), dtype('bfloat16')
      (dtype('int64'), dtype('float32'), dtype('bool'), dtype(bfloat16))
      >>> dtype(np.zeros(2, np.int16))
      dtype('int16')
  """
  dt = _dtype_uncanonical(x)
  return canonicalize_dtype(dt) if canonicalize else dt


def _weak_attr(x: Any) -> bool:
  weak = getattr(x, "weak_type", None)
  if weak is None:
    weak = getattr(getattr(x, "aval", None), "weak_type", False)
  return bool(weak)


def is_weakly_typed(x: Any) -> bool:
  """True for Python int/float/complex scalars and for values marked ``weak_type``.

  Python bools are not weak: JAX treats them as strong bools (bool is the bottom of
  the lattice, so they still never widen a number). NumPy scalars and arrays are strong.

  Example:
      >>> is_weakly_typed(1), is_weakly_typed(2.0), is_weakly_typed(True)
      (True, True, False)
      >>> is_weakly_typed(np.float32(1)), is_weakly_typed(np.ones(3))
      (False, False)
  """
  if type(x) in _WEAK_PY_TYPES:
    return True
  if isinstance(x, (bool, np.generic, np.ndarray, np.dtype, str, type)):
    return False
  if isinstance(x, (int, float, complex)):
    return True  # subclasses of Python scalar types, e.g. IntEnum members
  return _weak_attr(x)


def scalar_type_of(x: Any) -> type:
  """The Python scalar type (bool, int, float, complex) matching the dtype of ``x``.

  Example:
      >>> scalar_type_of(np.uint8(3)), scalar_type_of(np.zeros(2, bfloat16)), scalar_type_of(1j)
      (<class 'int'>, <class 'float'>, <class 'complex'>)
  """
  kind = _kind(dtype(x))
  py_type = {"b": bool, "i": int, "u": int, "f": float, "c": complex}.get(kind)
  if py_type is None:
    raise TypeError(f"Invalid scalar value {x!r}: no Python scalar type for its dtype.")
  return py_type


# --------------------------------------------------------------------------------------
# The type-promotion lattice
# --------------------------------------------------------------------------------------


class _WeakKind:
  """Lattice node of a weakly typed category: Python int, float or complex."""

  def __init__(self, py_type: type, default: np.dtype):
    self.py_type = py_type
    self.default = default

  def __repr__(self):
    return f"weak {self.py_type.__name__}"


_WEAK_INT = _WeakKind(int, _i64)
_WEAK_FLOAT = _WeakKind(float, _f64)
_WEAK_COMPLEX = _WeakKind(complex, _c128)
_WEAK_BY_PY_TYPE = {int: _WEAK_INT, float: _WEAK_FLOAT, complex: _WEAK_COMPLEX}
_WEAK_BY_KIND = {"b": _bool, "i": _WEAK_INT, "u": _WEAK_INT, "f": _WEAK_FLOAT,
                 "c": _WEAK_COMPLEX}

# Immediate successors in JAX's standard promotion lattice (the published diagram).
_STANDARD_EDGES = {
    _bool: [_WEAK_INT],
    _WEAK_INT: [_u8, _i8, *narrow_int_dtypes],
    _u8: [_u16, _i16], _u16: [_u32, _i32], _u32: [_u64, _i64], _u64: [_WEAK_FLOAT],
    _i8: [_i16], _i16: [_i32], _i32: [_i64], _i64: [_WEAK_FLOAT],
    _WEAK_FLOAT: [_bf16, _f16, _WEAK_COMPLEX, *narrow_float_dtypes],
    _bf16: [_f32], _f16: [_f32], _f32: [_f64, _c64], _f64: [_c128],
    _WEAK_COMPLEX: [_c64], _c64: [_c128], _c128: [],
    **{dt: [] for dt in narrow_float_dtypes + narrow_int_dtypes},
}

# In strict mode only weak types may be promoted, and only within their category or up.
_INTS = [_u8, _u16, _u32, _u64, _i8, _i16, _i32, _i64]
_FLOATS = [_bf16, _f16, _f32, _f64]
_STRICT_EDGES = {node: [] for node in _STANDARD_EDGES}
_STRICT_EDGES.update({
    _WEAK_INT: [_WEAK_FLOAT] + _INTS,
    _WEAK_FLOAT: [_WEAK_COMPLEX] + _FLOATS,
    _WEAK_COMPLEX: [_c64, _c128],
})


def _upper_sets(edges: dict) -> dict:
  """Reflexive-transitive closure: node -> frozenset of nodes above or equal to it."""
  ups: dict = {}

  def visit(node):
    if node not in ups:
      above = {node}
      for succ in edges[node]:
        above |= visit(succ)
      ups[node] = frozenset(above)
    return ups[node]

  for node in edges:
    visit(node)
  return ups


def _join_table(edges: dict) -> dict:
  """(a, b) -> least upper bound of a and b, or None when there is none."""
  ups = _upper_sets(edges)
  table = {}
  for a in edges:
    for b in edges:
      common = ups[a] & ups[b]
      least = [n for n in common if ups[n] == common]
      table[(a, b)] = least[0] if least else None
  return table


# With x64 off JAX's lattice avoids forming a 64-bit type from 32-bit inputs: uint32 is below
# int32 (so uint32 + int32 -> int32, before canonicalization too).
_STANDARD_X32_EDGES = dict(_STANDARD_EDGES)
_STANDARD_X32_EDGES[_u32] = [_u64, _i32]

_JOINS = {"standard": _join_table(_STANDARD_EDGES), "strict": _join_table(_STRICT_EDGES)}
_JOINS_X32 = dict(_JOINS, standard=_join_table(_STANDARD_X32_EDGES))


# Reading an option through ``Config.__getattr__`` costs ~0.5us, so the promotion mode
# is mirrored here through ``config.watch``; x64 is read through the fast property.
_promotion_mode_value = [config.jax_numpy_dtype_promotion]


def _on_promotion_mode_change(_name: str, _old: Any, new: Any) -> None:
  _promotion_mode_value[0] = new


config.watch("jax_numpy_dtype_promotion", _on_promotion_mode_change)


def _promotion_mode() -> str:
  mode = _promotion_mode_value[0]
  if mode not in _JOINS:
    raise ValueError(f"jax_numpy_dtype_promotion must be 'standard' or 'strict', got {mode!r}")
  return mode


def _not_promotable(dt: Any) -> Exception:
  if dt is float0 or _is_extended(dt):
    return ValueError(f"dtype={dt!r} is not a valid dtype for JAX type promotion.")
  return TypeError(f"JAX only supports number and bool dtypes, got dtype {dt} "
                   "in type promotion.")


def _lattice_node(dt: Any, weak: bool):
  """The lattice node of a dtype; weak values map to their category's weak node."""
  if weak:
    node = _WEAK_BY_KIND.get(_kind(dt)) if not _is_extended(dt) else None
  else:
    node = dt if dt in _STANDARD_EDGES else None
  if node is None:
    raise _not_promotable(dt)
  return node


def _check_narrow_promotion(nodes: list, names: list) -> None:
  """JAX's error when a failed promotion involves a narrow type (they never promote)."""
  for node in nodes:
    if node in narrow_int_dtypes or node in narrow_float_dtypes:
      what, target = (("1-bit, 2-bit and 4-bit integers", "int32") if node in narrow_int_dtypes
                      else (f"{node.name[5]}-bit floats", "float32"))
      raise TypePromotionError(
          f"Input dtypes {tuple(names)} have no available implicit dtype promotion path. To "
          f"avoid unintended promotion, {what} do not support implicit promotion. If you'd "
          "like your inputs to be promoted to another type, you can do so explicitly using "
          f"e.g. x.astype('{target}')")


def _join_all(nodes: list, mode: str, names: list, x64: bool = True):
  joins = (_JOINS if x64 else _JOINS_X32)[mode]
  out = nodes[0]
  for node in nodes[1:]:
    out = joins[(out, node)]
    if out is None:
      _check_narrow_promotion(nodes, names)
      listed = ", ".join(sorted(set(names)))
      raise TypePromotionError(
          f"Input dtypes ({listed}) have no available implicit dtype promotion path when "
          f"jax_numpy_dtype_promotion={mode}. Try explicitly casting inputs to the desired "
          "output type, or set jax_numpy_dtype_promotion=standard.")
  return out


def _node_name(node) -> str:
  return f"weak {node.py_type.__name__}" if isinstance(node, _WeakKind) else str(node)


# --------------------------------------------------------------------------------------
# promote_types and result_type
# --------------------------------------------------------------------------------------


def _promote_operand(x: Any, canonicalize: bool):
  if isinstance(x, type) and x in _WEAK_BY_PY_TYPE:
    return _WEAK_BY_PY_TYPE[x]
  dt = canonicalize_dtype(x) if canonicalize else _dtype_uncanonical(x)
  return _lattice_node(dt, False)


def promote_types(a: Any, b: Any, *, canonicalize: bool = True) -> np.dtype:
  """The dtype two (strong) dtypes promote to under JAX's lattice.

  The Python types ``int``, ``float`` and ``complex`` act as weak types. With
  ``canonicalize`` (the default) the operands and the result are canonicalized for the
  current ``jax_enable_x64``; ``canonicalize=False`` gives ``jax.numpy.promote_types``'
  raw answer (e.g. int8 + uint64 -> float64 even with x64 off).

  Example:
      >>> promote_types('int8', 'uint8'), promote_types(bfloat16, 'float16')
      (dtype('int16'), dtype('float32'))
      >>> promote_types(int, 'int8'), promote_types('int8', 'uint64', canonicalize=False)
      (dtype('int8'), dtype('float64'))
      >>> promote_types('uint32', 'int32', canonicalize=False)  # int64 with x64 on
      dtype('int32')
  """
  mode = _promotion_mode()
  nodes = [_promote_operand(a, canonicalize), _promote_operand(b, canonicalize)]
  node = _join_all(nodes, mode, [_node_name(n) for n in nodes], config.x64_enabled)
  out = node.default if isinstance(node, _WeakKind) else node
  return canonicalize_dtype(out) if canonicalize else out


_TYPE_OPERANDS: dict = {None: (_f64, False)}


def _type_operand(x: Any) -> tuple:
  """(dtype, weak) of a scalar type or dtype name; ``int``/``float``/``complex`` are weak."""
  try:
    return _TYPE_OPERANDS[x]
  except KeyError:
    pass
  if isinstance(x, type) and x in python_scalar_dtypes:
    out = python_scalar_dtypes[x], x is not bool
  else:
    out = _dtype_uncanonical(x), False
  _TYPE_OPERANDS[x] = out
  return out


def _dtype_and_weak(x: Any) -> tuple:
  """(uncanonicalized dtype, weak flag) of one ``result_type`` operand."""
  t = type(x)
  dt = python_scalar_dtypes.get(t)
  if dt is not None:
    return dt, t is not bool
  if isinstance(x, (np.dtype, ExtendedDType)):
    return x, False
  if isinstance(x, (np.ndarray, np.generic)):
    return x.dtype, False
  if isinstance(x, (str, type)) or x is None:
    return _type_operand(x)
  dt = getattr(x, "dtype", None)
  if dt is None:
    dt = _dtype_uncanonical(x)  # Python scalar subclasses; raises for the rest
    return dt, dt is not _bool
  return dt, _weak_attr(x)


def _compute_result_type(operands: tuple, x64: bool, mode: str) -> tuple:
  dts = [_canonicalize_uncached(dt, x64) for dt, _ in operands]
  weaks = [weak for _, weak in operands]
  if not all(weaks) and all(dt == dts[0] for dt in dts):
    if dts[0] not in _SUPPORTED and not _is_extended(dts[0]):
      raise _not_promotable(dts[0])
    return dts[0], False  # trivial promotion; also lets float0/extended dtypes through
  if all(weaks) and mode == "standard":
    return _all_weak_result_type(dts, x64, mode), True
  nodes = [_lattice_node(dt, weak) for dt, weak in zip(dts, weaks)]
  node = _join_all(nodes, mode, [_node_name(n) for n in nodes], x64)
  if isinstance(node, _WeakKind):
    return _canonicalize_uncached(node.default, x64), True
  return _canonicalize_uncached(node, x64), False  # e.g. int8 + uint64 -> float64 -> float32


_DEFAULT_BY_KIND = {"b": _bool, "i": _i64, "u": _u64, "f": _f64, "c": _c128}


def _all_weak_result_type(dts: list, x64: bool, mode: str) -> np.dtype:
  """All operands weak: join their dtypes, then take the default dtype of that kind.

  E.g. weak uint8 + weak uint16 -> uint32 (x64 off); weak float16 + 1 -> float32.
  """
  nodes = [_lattice_node(dt, False) for dt in dts]
  node = _join_all(nodes, mode, [_node_name(n) for n in nodes], x64)
  out = node.default if isinstance(node, _WeakKind) else _DEFAULT_BY_KIND[_kind(node)]
  return _canonicalize_uncached(out, x64)


_RESULT_CACHE: dict = {}
_RESULT_CACHE_MAX = 8192


def result_type(*args: Any, return_weak_type_flag: bool = False):
  """The canonical dtype JAX gives an operation on ``args`` (and whether it is weak).

  Operands may be dtype-likes, Python scalars (weak), NumPy scalars and arrays
  (strong), or objects with ``.dtype`` and ``.weak_type`` (ember arrays, tracers).
  Operand dtypes are canonicalized first, as for arrays on the device. With some
  strong operand, weak operands act as their category (int, float, complex) and the
  result is weak only when the lattice join is such a category. When every operand
  is weak, their dtypes are joined and the result is the default dtype of the
  join's kind, weak.

  Example:
      >>> result_type('uint8', 1, return_weak_type_flag=True)
      (dtype('uint8'), False)
      >>> result_type(True, 1, return_weak_type_flag=True)
      (dtype('int32'), True)
      >>> result_type(np.int8, np.uint8, 1.0)
      dtype('float32')
  """
  if not args:
    raise ValueError("at least one array or dtype is required")
  key = (tuple(map(_dtype_and_weak, args)), config.x64_enabled, _promotion_mode_value[0])
  try:
    out = _RESULT_CACHE[key]
  except KeyError:
    out = None  # computed below, outside the handler: its errors chain no KeyError
  except TypeError:  # an unhashable extended dtype
    out = _compute_result_type(key[0], key[1], _promotion_mode())
    return out if return_weak_type_flag else out[0]
  if out is None:
    out = _compute_result_type(key[0], key[1], _promotion_mode())
    if len(_RESULT_CACHE) >= _RESULT_CACHE_MAX:
      _RESULT_CACHE.clear()
    _RESULT_CACHE[key] = out
  return out if return_weak_type_flag else out[0]


def to_inexact_dtype(dt: Any):
  """``dt`` if it is floating or complex; for bool and integers of up to 32 bits float32, and
  for 64-bit integers the default float dtype (float64 with x64 on), as JAX does.

  Example:
      >>> to_inexact_dtype('int8'), to_inexact_dtype(bfloat16)
      (dtype('float32'), dtype(bfloat16))
  """
  np_dt = _as_np_dtype(dt)
  if is_inexact(np_dt):
    return np_dt
  return default_float_dtype() if np_dt.itemsize == 8 else np.dtype(np.float32)


def to_complex_dtype(dt: Any):
  """The complex dtype for ``dt``, as JAX picks it: complex128 for float64, complex128 and 64-bit
  integers, complex64 for every other type (bool, smaller integers, float16/bfloat16/float32,
  complex64) whether or not x64 is on; the result is canonicalized.

  Example:
      >>> to_complex_dtype('float16'), to_complex_dtype('complex64'), to_complex_dtype('int8')
      (dtype('complex64'), dtype('complex64'), dtype('complex64'))
  """
  np_dt = _as_np_dtype(dt)
  wide = np_dt in (_f64, _c128) or (_kind(np_dt) in ("i", "u") and np_dt.itemsize == 8)
  return canonicalize_dtype(_c128 if wide else _c64)


# --------------------------------------------------------------------------------------
# User-requested dtypes
# --------------------------------------------------------------------------------------


def _truncation_message(np_dt: np.dtype, fun_name: str | None) -> str:
  where = f" requested in {fun_name}" if fun_name else ""
  return (f"Explicitly requested dtype {np_dt}{where} is not available, and will be "
          f"truncated to dtype {_X64_TO_32[np_dt]}. To enable more dtypes, set the "
          "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
          "variable. See https://github.com/jax-ml/jax#current-gotchas for more.")


def check_user_dtype_supported(dt: Any, fun_name: str | None = None) -> None:
  """Validate a dtype requested by the user; warn if x64 is off and it is 64-bit.

  ``None``, Python scalar types and extended dtypes are always accepted. Dtypes
  ember cannot hold (object, strings, datetimes...) raise ``TypeError``.

  Example:
      >>> import warnings
      >>> with warnings.catch_warnings(record=True) as caught:
      ...   warnings.simplefilter("always")
      ...   check_user_dtype_supported(np.float64, "zeros")
      >>> str(caught[0].message)[:72]
      'Explicitly requested dtype float64 requested in zeros is not available, '
  """
  if dt is None or _is_extended(dt):
    return
  if isinstance(dt, type) and dt in python_scalar_dtypes:
    return
  np_dt = np.dtype(dt)
  if np_dt not in _SUPPORTED:
    where = f" in {fun_name}" if fun_name else ""
    raise TypeError(f"JAX only supports number and bool dtypes, got dtype {np_dt}{where}")
  if np_dt in _X64_TO_32 and not config.x64_enabled:
    warnings.warn(_truncation_message(np_dt, fun_name), UserWarning, stacklevel=3)


def check_and_canonicalize_user_dtype(dt: Any, fun_name: str | None = None):
  """``check_user_dtype_supported`` then ``canonicalize_dtype``; ``dt`` must not be None.

  Example:
      >>> check_and_canonicalize_user_dtype(int), check_and_canonicalize_user_dtype('int8')
      (dtype('int32'), dtype('int8'))
  """
  if dt is None:
    raise ValueError("dtype must be specified.")
  check_user_dtype_supported(dt, fun_name)
  return canonicalize_dtype(dt)


# --------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------

_SHORT_NAMES = {
    _bool: "bool", _i8: "i8", _i16: "i16", _i32: "i32", _i64: "i64",
    _u8: "u8", _u16: "u16", _u32: "u32", _u64: "u64",
    _bf16: "bf16", _f16: "f16", _f32: "f32", _f64: "f64", _c64: "c64", _c128: "c128",
    float0: "float0",
    **{dt: dt.name.replace("float", "f").replace("uint", "u").replace("int", "i")
       for dt in narrow_float_dtypes + narrow_int_dtypes},
}

_MLIR_TYPES = {
    _bool: "i1", _i8: "i8", _i16: "i16", _i32: "i32", _i64: "i64",
    _u8: "ui8", _u16: "ui16", _u32: "ui32", _u64: "ui64",
    _bf16: "bf16", _f16: "f16", _f32: "f32", _f64: "f64",
    _c64: "complex<f32>", _c128: "complex<f64>",
    **{dt: "f" + dt.name[5] + dt.name[7:].upper() for dt in narrow_float_dtypes},
    **{dt: dt.name.replace("nt", "") for dt in narrow_int_dtypes},
}


def _lookup_name(table: dict, dt: Any, what: str) -> str:
  try:
    return table[dt]
  except (KeyError, TypeError):
    pass
  np_dt = _as_np_dtype(dt)
  try:
    return table[np_dt]
  except (KeyError, TypeError):
    raise TypeError(f"No {what} for dtype {np_dt}") from None


def short_name(dt: Any) -> str:
  """The short dtype name used when printing jaxprs.

  Example:
      >>> short_name(np.float32), short_name('uint8'), short_name(bfloat16), short_name(bool)
      ('f32', 'u8', 'bf16', 'bool')
  """
  return _lookup_name(_SHORT_NAMES, dt, "short name")


def mlir_type(dt: Any) -> str:
  """The MLIR (StableHLO) element type spelling of a dtype.

  Example:
      >>> mlir_type(np.bool_), mlir_type('uint32'), mlir_type(np.complex64)
      ('i1', 'ui32', 'complex<f32>')
  """
  return _lookup_name(_MLIR_TYPES, dt, "MLIR element type")
