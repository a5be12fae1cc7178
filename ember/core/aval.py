"""Abstract values: what a tracer knows about an array (shape, dtype, weak type, and inside a
``shard_map`` body the mesh axes it varies over).

``ShapedArray`` instances are interned, so the hot paths (jit's cache key, abstract evaluation
caches) hash and compare them by identity in the common case.

Inside a ``shard_map`` body (with ``check_vma=True``) a value's type also says over which manual
mesh axes it may differ from device to device (its ``vma``, JAX's "varying manual axes"); a
jaxpr prints it after the shape, ``f32[2]{V:i}``, ``f32[2]{V:(x,y)}``. Everywhere else it is
empty and prints nothing.

Example:
    >>> import numpy as np
    >>> ShapedArray((3, 4), np.dtype("float32"))
    ShapedArray(float32[3,4])
"""
from __future__ import annotations

import abc
import functools

import numpy as np

__all__ = ["AbstractValue", "ShapedArray", "ManualAxes", "ManualAxisType", "short_dtype_name"]

_SHORT = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}


def short_dtype_name(dtype) -> str:
  """The name a jaxpr prints for ``dtype``: ``f32``, ``i32``, ``bool``..."""
  name = np.dtype(dtype).name
  if name.startswith("void") or np.dtype(dtype).names == ("float0",):
    return "float0"
  short = _SHORT.get(name)
  if short is None:  # the narrow ml_dtypes types: float8_e4m3fn -> f8_e4m3fn, uint4 -> u4
    short = name.replace("float", "f").replace("uint", "u").replace("int", "i")
  return short


class ManualAxes(frozenset):
  """A set of mesh axis names that keeps the order it was built in (the mesh's), for printing.

  Equal to (and hashed as) the plain frozenset of its names.

  Example:
      >>> ManualAxes(("x", "y")).names, ManualAxes(("x", "y")) == frozenset({"y", "x"})
      (('x', 'y'), True)
  """
  __slots__ = ("names",)

  def __new__(cls, names=()):
    names = tuple(dict.fromkeys(names))
    self = super().__new__(cls, names)
    self.names = names
    return self

  def __repr__(self):
    return "frozenset({" + ", ".join(repr(n) for n in self.names) + "})" if self.names \
        else "frozenset()"

  def label(self) -> str:
    """``{V:x}`` or ``{V:(x,y)}``, as a jaxpr prints it after a type."""
    names = ",".join(str(n) for n in self.names)
    return f"{{V:{names}}}" if len(self.names) == 1 else f"{{V:({names})}}"


NO_AXES = ManualAxes()


class ManualAxisType:
  """What ``jax.typeof(x).mat`` says of a value's manual axes: those it varies over, and those
  it is unreduced or reduced over (JAX 0.10.2's ``jax.sharding.ManualAxisType``). Immutable;
  the sets are frozen.

  Example:
      >>> ManualAxisType(varying={"x"})
      ManualAxisType(varying=frozenset({'x'}), unreduced=frozenset(), reduced=frozenset())
  """
  __slots__ = ("varying", "unreduced", "reduced")

  def __init__(self, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
    varying, unreduced, reduced = frozenset(varying), frozenset(unreduced), frozenset(reduced)
    for name, other in (("reduced", reduced), ("unreduced", unreduced)):
      if varying & other:
        raise ValueError(f"varying and {name} cannot have common mesh axes. Got "
                         f"varying={varying} and {name}={other}")
    for name, value in (("varying", varying), ("unreduced", unreduced), ("reduced", reduced)):
      object.__setattr__(self, name, value)

  def __setattr__(self, name, value):
    raise AttributeError(f"ManualAxisType is immutable: cannot set {name!r}.")

  def _fields(self) -> tuple:
    return (self.varying, self.unreduced, self.reduced)

  def __eq__(self, other):
    return isinstance(other, ManualAxisType) and self._fields() == other._fields()

  def __hash__(self):
    return hash(self._fields())

  def __repr__(self):
    return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
            f"reduced={self.reduced})")


_interned: dict[tuple, "ShapedArray"] = {}


class AbstractValue(abc.ABC):
  """What every abstract value is an instance of (``isinstance(aval, AbstractValue)``), as in
  JAX 0.10.2's ``jax.core``: ``ShapedArray`` is one.

  Example:
      >>> isinstance(ShapedArray((2,), "float32"), AbstractValue)
      True
  """
  __slots__ = ()


class ShapedArray:
  """The abstract value of an array: its shape, dtype, whether its type is weak, and the manual
  mesh axes it varies over (``vma``, a ``ManualAxes``; empty outside ``shard_map`` bodies)."""
  __slots__ = ("shape", "dtype", "weak_type", "vma", "_key", "__weakref__")
  array_abstraction_level = 1

  def __new__(cls, shape, dtype, weak_type: bool = False, vma: ManualAxes = NO_AXES):
    key = (shape, dtype, weak_type, vma) if vma else (shape, dtype, weak_type)
    try:
      return _interned[key]
    except (KeyError, TypeError):
      pass
    shape = tuple(int(d) for d in shape)
    dtype = np.dtype(dtype)
    weak_type = bool(weak_type)
    if not isinstance(vma, ManualAxes):
      vma = ManualAxes(vma)
    key2 = (shape, dtype, weak_type, vma) if vma else (shape, dtype, weak_type)
    cached = _interned.get(key2)
    if cached is not None:
      return cached
    self = object.__new__(cls)
    self.shape, self.dtype, self.weak_type, self.vma = shape, dtype, weak_type, vma
    self._key = key2
    _interned[key2] = self
    try:
      _interned[key] = self
    except TypeError:
      pass
    return self

  def __reduce__(self):
    return (ShapedArray, self._key)

  def __eq__(self, other):
    return self is other or (type(other) is ShapedArray and self._key == other._key)

  def __ne__(self, other):
    return not self.__eq__(other)

  # Avals are interned (one object per distinct aval), so identity hashing (C-level, no Python
  # call when a tuple of avals is hashed as a cache key) agrees with value equality.
  __hash__ = object.__hash__

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

  def update(self, shape=None, dtype=None, weak_type=None, vma=None) -> "ShapedArray":
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type,
                       self.vma if vma is None else vma)

  @property
  def mat(self) -> ManualAxisType:
    """The manual axes' roles, as JAX 0.10.2 spells them (``mat.varying`` is ``vma``)."""
    return ManualAxisType(varying=frozenset(self.vma))

  manual_axis_type = mat

  def strip_weak_type(self) -> "ShapedArray":
    return self.update(weak_type=False) if self.weak_type else self

  @property
  def sharding(self):
    """The sharding a type carries (JAX 0.10.2's ``aval.sharding``): ember has no shardings in
    types, so it is every dimension unsplit over an empty ``AbstractMesh``, as JAX's is for
    arrays not sharded over explicit mesh axes."""
    return _unsplit_sharding(len(self.shape))

  def str_short(self, short_dtypes: bool = False) -> str:
    name = short_dtype_name(self.dtype)
    if not short_dtypes and name != "float0":
      name = self.dtype.name
    vma = self.vma.label() if self.vma else ""
    return f"{name}[{','.join(str(d) for d in self.shape)}]{vma}"

  def __str__(self):  # as JAX prints ``jax.typeof(x)``: ``float32[2]{V:i}``, ``~float32[]``
    return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"


AbstractValue.register(ShapedArray)


class ShapeDtypeStruct:
  """A shape, a dtype (and optionally a sharding): an abstract stand-in for an array.

  Example:
      >>> import numpy as np
      >>> ShapeDtypeStruct((2, 3), np.float32)
      ShapeDtypeStruct(shape=(2, 3), dtype=float32)
  """
  __slots__ = ("shape", "dtype", "sharding", "weak_type")

  def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
    try:
      self.shape = tuple(int(d) for d in shape)
    except Exception as e:
      if type(e).__name__ != "InconclusiveDimensionOperation":
        raise
      raise NotImplementedError(f"ShapeDtypeStruct with symbolic dimensions {tuple(shape)} "
                                "(shape polymorphism) is not supported by ember yet.") from None
    self.dtype = np.dtype(dtype)
    self.sharding = sharding
    self.weak_type = weak_type

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

  def __eq__(self, other):
    return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == \
        (other.shape, other.dtype, other.weak_type)

  def __hash__(self):
    return hash((self.shape, self.dtype, self.weak_type))

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


@functools.lru_cache(maxsize=64)
def _unsplit_sharding(ndim: int):
  from ember.backend.sharding import AbstractMesh, NamedSharding, PartitionSpec
  return NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * ndim))
