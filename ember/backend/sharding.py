"""Shardings: how an array's data is laid out over devices (``ember.sharding``'s classes).

- ``SingleDeviceSharding(device)``: the whole array on one device (every unsharded array).
- ``Mesh(devices, axis_names, axis_types)``: an n-d grid of devices with named axes.
- ``PartitionSpec`` (``P``): per array dimension, the mesh axes (none, one, or a tuple of them)
  that split it; mesh axes the spec leaves out replicate the array.
- ``NamedSharding(mesh, spec)``: an array laid out over a mesh by a spec.

``NamedSharding`` subclasses jaxlib's C++ ``Sharding`` and is itself the sharding a multi-device
``ArrayImpl`` carries: jaxlib reads ``_internal_device_list`` (the mesh's devices, flattened in
row-major order) and ``_to_xla_hlo_sharding(ndim)``. Position ``k`` of that device list is
partition ``k`` of every SPMD program compiled for the mesh, which is how a collective's replica
groups, written in mesh coordinates, name devices.

Differences from JAX: ``make_mesh`` defaults to Explicit axes as JAX 0.10.2 does, but an
unsharded argument of ``shard_map`` is resharded to its in_spec (JAX rejects it), so programs
written for JAX's earlier Auto default run unchanged. Ops on Explicit-sharded arrays do not carry
shardings in their types: XLA's propagation places their results.

Example:
    >>> import ember
    >>> from ember.sharding import PartitionSpec as P
    >>> P("x", None)
    P('x', None)
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import math
from collections import OrderedDict

import numpy as np
from jaxlib import xla_client as xc

__all__ = ["Sharding", "SingleDeviceSharding", "AxisType", "PartitionSpec", "Mesh",
           "NamedSharding", "IndivisibleError", "DuplicateSpecError"]


class IndivisibleError(ValueError):
  """An array dimension is not divisible by the mesh axes that split it.

  Example:
      >>> import ember
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> NamedSharding(mesh, P("i")).shard_shape((3,))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.backend.sharding.IndivisibleError: Sharding ... but the dimension size is 3 ...
  """


class DuplicateSpecError(ValueError):
  """A PartitionSpec uses one mesh axis for two array dimensions.

  Example:
      >>> import ember
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> NamedSharding(mesh, P("i", "i"))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.backend.sharding.DuplicateSpecError: ... P('i', 'i') has duplicate entries for `i`
  """


class Sharding(xc.Sharding):
  """Base class of the ways an array's data is laid out over devices.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> sharding = jnp.zeros(2).sharding
      >>> isinstance(sharding, ember.sharding.Sharding), sharding.device_set
      (True, {CpuDevice(id=0)})
  """

  @property
  def device_set(self) -> set:
    raise NotImplementedError

  @property
  def is_fully_replicated(self) -> bool:
    raise NotImplementedError

  @property
  def is_fully_addressable(self) -> bool:
    return True

  @property
  def memory_kind(self) -> str:
    return "device"

  @property
  def addressable_devices(self) -> set:
    return self.device_set

  def addressable_devices_indices_map(self, global_shape):
    return self.devices_indices_map(global_shape)


class SingleDeviceSharding(Sharding):
  """The whole array on one device.

  Example:
      >>> import ember
      >>> ember.numpy.zeros(2).sharding
      SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
  """

  def __init__(self, device, *, memory_kind: str | None = None):
    super().__init__()
    self._device = device
    self._memory_kind = memory_kind

  @property
  def memory_kind(self) -> str:
    return self._memory_kind or "device"

  @property
  def device_set(self) -> set:
    return {self._device}

  @property
  def num_devices(self) -> int:
    return 1

  @property
  def is_fully_addressable(self) -> bool:
    return self._device.process_index == self._device.client.process_index()

  @property
  def is_fully_replicated(self) -> bool:
    return True

  @property
  def _device_assignment(self) -> tuple:
    return (self._device,)

  def devices_indices_map(self, global_shape):
    return {self._device: tuple(slice(None) for _ in global_shape)}

  def shard_shape(self, global_shape):
    return tuple(global_shape)

  def __eq__(self, other):
    return isinstance(other, SingleDeviceSharding) and other._device == self._device \
        and other.memory_kind == self.memory_kind

  def __hash__(self):
    return hash((SingleDeviceSharding, self._device, self.memory_kind))

  def __repr__(self):
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class AxisType(enum.Enum):
  """How a mesh axis is partitioned: by the compiler (Auto), by the user in types (Explicit), or
  by hand inside shard_map (Manual).

  Example:
      >>> import ember
      >>> from ember.sharding import AxisType
      >>> mesh = ember.make_mesh((2,), ("i",), (AxisType.Auto,), devices=ember.devices()[:2])
      >>> mesh.axis_types
      (Auto,)
  """
  Auto = enum.auto()
  Explicit = enum.auto()
  Manual = enum.auto()

  def __repr__(self):
    return self.name


class PartitionSpec:
  """Per array dimension, the mesh axis (or tuple of axes) that splits it, or None.

  Example:
      >>> from ember.sharding import PartitionSpec as P
      >>> P(("x", "y"), None), len(P("x")), P("x")[0]
      (P(('x', 'y'), None), 1, 'x')
  """
  __slots__ = ("_partitions", "unreduced", "reduced")

  def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
    self._partitions = tuple(tuple(p) if isinstance(p, list) else p for p in partitions)
    for p in self._partitions:
      if not (p is None or isinstance(p, str) or
              (isinstance(p, tuple) and all(isinstance(a, str) for a in p))):
        raise TypeError(f"PartitionSpec entries must be None, a mesh axis name or a tuple of "
                        f"them; got {p!r} in {self!r}.")
    self.unreduced = frozenset(unreduced)
    self.reduced = frozenset(reduced)

  def __iter__(self):
    return iter(self._partitions)

  def __len__(self):
    return len(self._partitions)

  def __getitem__(self, i):
    return self._partitions[i]

  def __eq__(self, other):
    if isinstance(other, PartitionSpec):
      return self._partitions == other._partitions and self.unreduced == other.unreduced
    return NotImplemented

  def __hash__(self):
    return hash((PartitionSpec, self._partitions, self.unreduced))

  def __repr__(self):
    inner = repr(self._partitions)[1:-1] if self._partitions else ""
    return f"P({inner})"

  def __reduce__(self):
    return (PartitionSpec, self._partitions)

  def axes_of(self, dim: int) -> tuple:
    """The mesh axes that split array dimension ``dim`` (in order; empty when none)."""
    p = self._partitions[dim] if dim < len(self._partitions) else None
    return () if p is None else (p,) if isinstance(p, str) else tuple(p)

  def with_unsplit_dim(self, dim: int) -> "PartitionSpec":
    """This spec with a new dimension at ``dim`` that no mesh axis splits (vmap's batch axis)."""
    parts = list(self._partitions) + [None] * max(0, dim - len(self._partitions))
    parts.insert(dim, None)
    return PartitionSpec(*parts, unreduced=self.unreduced, reduced=self.reduced)

  def mesh_axes(self) -> tuple:
    return tuple(a for d in range(len(self)) for a in self.axes_of(d))


# As in JAX, the class calls itself by its short name (``type(spec).__name__ == "P"``).
P = PartitionSpec
PartitionSpec.__name__ = PartitionSpec.__qualname__ = "P"


class Mesh:
  """An n-d array of devices whose axes have names.

  Example:
      >>> import ember, numpy as np
      >>> mesh = ember.sharding.Mesh(np.array(ember.devices()[:2]), ("i",))
      >>> mesh
      Mesh(axis_sizes=(2,), axis_names=('i',), axis_types=(Auto,))
      >>> mesh.shape
      OrderedDict([('i', 2)])
  """

  def __init__(self, devices, axis_names, axis_types=None):
    devices = np.asarray(devices, dtype=object)
    if isinstance(axis_names, str):
      axis_names = (axis_names,)
    axis_names = tuple(axis_names)
    if devices.ndim != len(axis_names):
      raise ValueError(
          "Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
          f"second argument (`axis_names`), but got devices.ndim == {devices.ndim} and "
          f"len(axis_names) == {len(axis_names)}.")
    if len(set(axis_names)) != len(axis_names):
      raise ValueError(f"Mesh axis names must be unique, got {axis_names}.")
    if axis_types is None:
      axis_types = (AxisType.Auto,) * len(axis_names)
    elif isinstance(axis_types, AxisType):
      axis_types = (axis_types,) * len(axis_names)
    axis_types = tuple(axis_types)
    if len(axis_types) != len(axis_names) or \
        not all(isinstance(t, AxisType) for t in axis_types):
      raise ValueError(f"axis_types must be one AxisType per mesh axis ({len(axis_names)}), "
                       f"got {axis_types!r}.")
    ids = [d.id for d in devices.flat]
    if len(set(ids)) != len(ids):
      raise ValueError(f"Mesh devices must be distinct, got device ids {ids}.")
    self.devices = devices
    self.axis_names = axis_names
    self.axis_types = axis_types
    self._key = (tuple(ids), devices.shape, axis_names, axis_types)
    self._hash = hash(self._key)

  @property
  def shape(self) -> OrderedDict:
    return OrderedDict(zip(self.axis_names, self.devices.shape))

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.devices.shape))

  @property
  def axis_sizes(self) -> tuple:
    return tuple(self.devices.shape)

  @property
  def size(self) -> int:
    return int(self.devices.size)

  @property
  def empty(self) -> bool:
    return self.size == 0

  @property
  def device_ids(self) -> np.ndarray:
    return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

  @property
  def local_devices(self) -> list:
    """The mesh's devices that belong to this process, in mesh order."""
    return list(self._addressable_devices)

  @functools.cached_property
  def _addressable_devices(self) -> tuple:
    return tuple(self._internal_device_list.addressable_device_list)

  @property
  def _flat_devices(self) -> tuple:
    return tuple(self.devices.flat)

  @functools.cached_property
  def _internal_device_list(self):
    from ember.backend.client import device_list
    return device_list(self._flat_devices)

  def axis_size(self, name) -> int:
    return self.shape[name]

  def __eq__(self, other):
    return self is other or isinstance(other, Mesh) and self._key == other._key

  def __hash__(self):
    return self._hash

  def __repr__(self):
    return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={self.axis_types!r})")

  def __str__(self):
    sizes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
    return f"Mesh({sizes}, axis_types={self.axis_types!r})"

  def __enter__(self):
    _mesh_stack.append(self)
    return self

  def __exit__(self, *exc):
    _mesh_stack.pop()
    return False


  @functools.cached_property
  def abstract_mesh(self) -> "AbstractMesh":
    """The mesh without its devices (their kind and platform kept)."""
    mesh = AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)
    first = self.devices.flat[0]
    mesh._device = (first.device_kind, first.platform, None)
    return mesh


@dataclasses.dataclass(frozen=True)
class AbstractDevice:
  """What a mesh's devices are, without the devices: their kind, core count and platform.

  Example:
      >>> from ember.sharding import AbstractDevice
      >>> AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
      AbstractDevice(device_kind=cpu, num_cores=None, platform=cpu)
  """
  device_kind: str
  num_cores: int | None
  platform: str

  def __repr__(self):
    return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
            f"platform={self.platform})")


def _abstract_device_key(device) -> tuple:
  """``(device_kind, platform, num_cores)`` of an ``AbstractDevice`` (any object with those
  attributes, as JAX reads them)."""
  try:
    return (device.device_kind, device.platform, device.num_cores)
  except AttributeError:
    raise TypeError("AbstractMesh: abstract_device must be a jax.sharding.AbstractDevice (with "
                    f"device_kind, num_cores and platform), got {device!r} of type "
                    f"{type(device).__name__}.") from None


class AbstractMesh:
  """A mesh's axis names, sizes and types, without devices: what a type knows of a mesh (the
  mesh of ``ember.typeof(x).sharding``, ``Mesh.abstract_mesh``).

  Example:
      >>> from ember.sharding import AbstractMesh
      >>> AbstractMesh((2, 3), ("x", "y"))
      AbstractMesh('x': 2, 'y': 3, axis_types=(Auto, Auto))
      >>> AbstractMesh((2, 3), ("x", "y")).devices
      Traceback (most recent call last):
      ...
      ValueError: AbstractMesh does not implement devices
      >>> from ember.sharding import AbstractDevice
      >>> AbstractMesh((2,), ("x",), abstract_device=AbstractDevice("cpu", None, "cpu"))
      AbstractMesh('x': 2, axis_types=(Auto,), device_kind=cpu, num_cores=None, platform=cpu)
  """
  _NO_DEVICES = frozenset({"devices", "device_ids", "local_devices", "_flat_devices",
                           "_internal_device_list", "_addressable_devices"})

  def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None):
    axis_sizes, axis_names = tuple(int(n) for n in axis_sizes), tuple(axis_names)
    if len(axis_sizes) != len(axis_names):
      raise ValueError(f"AbstractMesh: {len(axis_sizes)} axis sizes {axis_sizes} for "
                       f"{len(axis_names)} axis names {axis_names}.")
    if axis_types is None:
      axis_types = (AxisType.Auto,) * len(axis_names)
    elif isinstance(axis_types, AxisType):
      axis_types = (axis_types,) * len(axis_names)
    self.axis_sizes, self.axis_names, self.axis_types = axis_sizes, axis_names, tuple(axis_types)
    self._device = None  # (device kind, platform, num_cores) of the mesh's devices
    if abstract_device is not None:
      self._device = _abstract_device_key(abstract_device)

  @property
  def abstract_device(self):
    """What the mesh's devices are (an ``ember.sharding.AbstractDevice``), or None."""
    if self._device is None:
      return None
    kind, platform, cores = self._device
    return AbstractDevice(device_kind=kind, num_cores=cores, platform=platform)

  def __getattr__(self, name):
    if name in AbstractMesh._NO_DEVICES:
      raise ValueError(f"AbstractMesh does not implement {name}")
    raise AttributeError(f"'AbstractMesh' object has no attribute {name!r}")

  @property
  def shape(self) -> OrderedDict:
    return OrderedDict(zip(self.axis_names, self.axis_sizes))

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.axis_sizes))

  @property
  def size(self) -> int:
    return math.prod(self.axis_sizes)

  @property
  def empty(self) -> bool:
    return not self.axis_names

  @property
  def abstract_mesh(self) -> "AbstractMesh":
    return self

  def axis_size(self, name) -> int:
    return self.shape[name]

  def _key(self):
    return (self.axis_sizes, self.axis_names, self.axis_types, self._device)

  def __eq__(self, other):
    return isinstance(other, AbstractMesh) and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def __repr__(self):
    sizes = "".join(f"{n!r}: {s}, " for n, s in zip(self.axis_names, self.axis_sizes))
    text = f"AbstractMesh({sizes or '(), '}axis_types={self.axis_types!r}"
    if self._device is not None:
      kind, platform, cores = self._device
      text += f", device_kind={kind}, num_cores={cores}, platform={platform}"
    return text + ")"


_mesh_stack: list = []
_default_mesh: list = [None]  # set by ember.set_mesh


def current_mesh() -> Mesh | None:
  """The mesh of the innermost ``with mesh:`` block, else the one ``ember.set_mesh`` set."""
  return _mesh_stack[-1] if _mesh_stack else _default_mesh[0]


def set_default_mesh(mesh: Mesh | None) -> Mesh | None:
  """Make ``mesh`` the default mesh; returns the previous one."""
  previous, _default_mesh[0] = _default_mesh[0], mesh
  return previous


_EMPTY_MESH = AbstractMesh((), ())
_abstract_meshes: list = []  # the meshes of the open use_abstract_mesh blocks, innermost last


def get_abstract_mesh() -> AbstractMesh:
  """The abstract mesh in effect: the innermost ``use_abstract_mesh``'s (which ``auto_axes``
  and ``explicit_axes`` open), else that of the mesh set with ``set_mesh``, else the empty
  ``AbstractMesh((), ())``. (A legacy ``with mesh:`` block sets none, as in JAX.)

  Example:
      >>> import ember
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> with ember.set_mesh(mesh):
      ...   print(ember.sharding.get_abstract_mesh())
      AbstractMesh('i': 2, axis_types=(Explicit,), device_kind=cpu, num_cores=None, platform=cpu)
  """
  if _abstract_meshes:
    return _abstract_meshes[-1]
  mesh = _default_mesh[0]
  return _EMPTY_MESH if mesh is None else mesh.abstract_mesh


def check_out_sharding(fun_name: str, out_sharding) -> None:
  """JAX's ``out_sharding=`` of functions that compute a new array: None, or a NamedSharding
  over the empty mesh (what ``typeof(x).sharding`` is for an unsharded ``x``), which both
  leave the result unsharded. JAX gives the result's type any other sharding (explicit
  sharding in types), which ember's types do not carry. A PartitionSpec outside a mesh context
  is JAX's ValueError; a value that is not a sharding at all is JAX's TypeError.

  Example:
      >>> import ember, numpy as np
      >>> check_out_sharding("dot", None)
      >>> check_out_sharding("dot", ember.typeof(np.zeros(3)).sharding)
      >>> check_out_sharding("dot", "x")
      Traceback (most recent call last):
      TypeError: `out_sharding` argument of dot only supports instances of `NamedSharding` or `PartitionSpec`. Got x of type: <class 'str'>
  """
  if out_sharding is None:
    return
  if not isinstance(out_sharding, (NamedSharding, PartitionSpec)):
    raise TypeError(f"`out_sharding` argument of {fun_name} only supports instances of "
                    f"`NamedSharding` or `PartitionSpec`. Got {out_sharding} of type: "
                    f"{type(out_sharding)}")
  if is_unsharded(out_sharding):
    return
  raise NotImplementedError(
      f"{fun_name}(out_sharding={out_sharding}): ember's array types carry no sharding, so it "
      "takes only out_sharding=None; lay the result out with ember.sharding.reshard instead.")


def is_unsharded(out_sharding) -> bool:
  """Whether ``out_sharding`` (a NamedSharding or PartitionSpec) asks for no sharding at all:
  a NamedSharding over the empty mesh, whatever its spec (JAX does not check the spec's length
  against the result's rank there). A PartitionSpec needs a mesh to mean anything: outside a
  mesh context it is JAX's ValueError.

  Example:
      >>> from ember.sharding import AbstractMesh, NamedSharding, PartitionSpec as P
      >>> is_unsharded(NamedSharding(AbstractMesh((), ()), P(None)))
      True
      >>> is_unsharded(P())
      Traceback (most recent call last):
      ValueError: Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got P()
  """
  if isinstance(out_sharding, PartitionSpec):
    if get_abstract_mesh().empty:
      raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                       "allowed. Please pass a NamedSharding instance or enter into a mesh "
                       f"context via `jax.set_mesh`. Got {out_sharding}")
    return False
  return bool(getattr(out_sharding.mesh, "empty", False))


def check_spec(mesh: Mesh, spec: PartitionSpec, what: str = "") -> None:
  """Every axis the spec names exists in the mesh, and none is used twice."""
  seen = set()
  for axis in spec.mesh_axes():
    if axis not in mesh.axis_names:
      raise ValueError(f"Resource axis: {axis} of {spec!r} is not found in mesh: "
                       f"{mesh.axis_names}.")
    if axis in seen:
      raise DuplicateSpecError(
          "A single NamedSharding spec specification can map every mesh axis to at most one "
          f"positional dimension, but {spec!r} has duplicate entries for `{axis}`")
    seen.add(axis)


class NamedSharding(Sharding):
  """An array laid out over ``mesh`` by ``spec``.

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
      >>> mesh = Mesh(np.array(ember.devices()[:4]).reshape(2, 2), ("x", "y"))
      >>> NamedSharding(mesh, P("x")).shard_shape((8, 6))
      (4, 6)
  """

  def __init__(self, mesh: Mesh, spec: PartitionSpec = None, *, memory_kind: str | None = None):
    super().__init__()
    if not isinstance(mesh, (Mesh, AbstractMesh)):
      raise TypeError(f"NamedSharding expects a Mesh as its first argument, got {mesh!r}.")
    spec = PartitionSpec() if spec is None else spec
    if not isinstance(spec, PartitionSpec):
      raise TypeError(f"NamedSharding expects a PartitionSpec as its spec, got {spec!r} of "
                      f"type {type(spec).__name__}; wrap it as P(...).")
    check_spec(mesh, spec)
    self.mesh = mesh
    self.spec = spec
    self._memory_kind = memory_kind
    self._hlo: dict = {}
    self._key = (mesh, self._trimmed(), self.memory_kind)  # equality and hash, computed once
    self._hash = hash(self._key)

  @property
  def memory_kind(self) -> str | None:
    if isinstance(self.mesh, AbstractMesh):  # a type's sharding places nothing
      return self._memory_kind
    return self._memory_kind or "device"

  def _concrete_mesh(self, what: str) -> Mesh:
    if isinstance(self.mesh, AbstractMesh):
      raise ValueError(f"{what} is not implemented for `jax.sharding.AbstractMesh`.")
    return self.mesh

  @property
  def _internal_device_list(self):
    return self.mesh._internal_device_list

  @property
  def _device_assignment(self) -> tuple:
    return self.mesh._flat_devices

  @property
  def device_set(self) -> set:
    return set(self._concrete_mesh("device_set")._flat_devices)

  @property
  def num_devices(self) -> int:
    return self._concrete_mesh("num_devices").size

  @property
  def is_fully_addressable(self) -> bool:
    return self._concrete_mesh("is_fully_addressable")._internal_device_list.is_fully_addressable

  @property
  def addressable_devices(self) -> set:
    return set(self._concrete_mesh("addressable_devices")._addressable_devices)

  def addressable_devices_indices_map(self, global_shape) -> dict:
    index = self.devices_indices_map(global_shape)
    return {d: index[d] for d in self.mesh._addressable_devices}

  @property
  def is_fully_replicated(self) -> bool:
    return all(self.mesh.shape[a] == 1 for a in self.spec.mesh_axes())

  def _trimmed(self) -> tuple:
    """The spec as axes per dimension, without trailing unsplit dimensions (for equality)."""
    parts = [self.spec.axes_of(d) for d in range(len(self.spec))]
    while parts and not parts[-1]:
      parts.pop()
    return tuple(parts)

  def __eq__(self, other):
    return self is other or isinstance(other, NamedSharding) and self._key == other._key

  def __hash__(self):
    return self._hash

  def __repr__(self):
    kind = "" if self.memory_kind is None else f", memory_kind={self.memory_kind}"
    return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}{kind})"

  def with_spec(self, spec) -> "NamedSharding":
    return NamedSharding(self.mesh, spec if isinstance(spec, PartitionSpec)
                         else PartitionSpec(*spec), memory_kind=self._memory_kind)

  # --- layout -------------------------------------------------------------------------------

  def tiles(self, ndim: int) -> list[int]:
    """How many pieces each of ``ndim`` array dimensions is split into."""
    return [math.prod(self.mesh.shape[a] for a in self.spec.axes_of(d)) for d in range(ndim)]

  def check_shape(self, shape, what: str = "array") -> None:
    """Raise IndivisibleError unless the mesh axes evenly divide the dimensions they split."""
    if len(self.spec) > len(shape):
      raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                       f"{len(self.spec)}, but was applied to a value of rank {len(shape)}")
    tiles = self.tiles(len(shape))
    for d, (n, t) in enumerate(zip(shape, tiles)):
      if n % t:
        raise IndivisibleError(
            f"Sharding {self!r} implies that array axis {d} is partitioned {t} times, but the "
            f"dimension size is {n} (full shape: {tuple(shape)}, per-dimension tiling factors: "
            f"{tiles} should evenly divide the shape)")

  def shard_shape(self, global_shape) -> tuple:
    self.check_shape(global_shape)
    return tuple(n // t for n, t in zip(global_shape, self.tiles(len(global_shape))))

  def coords(self, ndim: int) -> np.ndarray:
    """For each device position k of the mesh (row-major), the tile index of each dimension and
    its replica id: an int array of shape (mesh.size, ndim + 1)."""
    sizes = self.mesh.axis_sizes
    names = self.mesh.axis_names
    grid = np.indices(sizes).reshape(len(sizes), -1).T  # (size, n_axes) mesh coordinates
    out = np.zeros((self.mesh.size, ndim + 1), np.int64)
    used = set()
    for d in range(ndim):
      for a in self.spec.axes_of(d):  # the first axis named is the most significant
        i = names.index(a)
        out[:, d] = out[:, d] * sizes[i] + grid[:, i]
        used.add(a)
    for i, a in enumerate(names):  # replica id over the axes the spec leaves out
      if a not in used:
        out[:, ndim] = out[:, ndim] * sizes[i] + grid[:, i]
    return out

  def devices_indices_map(self, global_shape) -> dict:
    self._concrete_mesh("devices_indices_map")
    shard = self.shard_shape(global_shape)
    coords = self.coords(len(global_shape))
    return {dev: tuple(slice(int(c) * s, (int(c) + 1) * s) if t > 1 else slice(None)
                       for c, s, t in zip(row[:-1], shard, self.tiles(len(global_shape))))
            for dev, row in zip(self.mesh._flat_devices, coords)}

  def _to_xla_hlo_sharding(self, ndim: int):
    hlo = self._hlo.get(ndim)
    if hlo is None:
      hlo = self._hlo[ndim] = _hlo_sharding(self, ndim)
    return hlo

  def _to_sdy_sharding(self, ndim: int) -> str:
    """The sharding as Shardy writes it: ``<@mesh, [{"x"}, {}]>``."""
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in self.spec.axes_of(d)) + "}"
                     for d in range(ndim))
    return f"<@mesh, [{dims}]>"


def _hlo_sharding(sharding: NamedSharding, ndim: int):
  """The HLO tile assignment of ``sharding`` (device ids are positions in the mesh)."""
  tiles = sharding.tiles(ndim)
  replicas = sharding.mesh.size // math.prod(tiles)
  if math.prod(tiles) == 1:
    return xc.HloSharding.replicate()
  coords = sharding.coords(ndim)
  assignment = np.zeros(tiles + [replicas], np.int64)
  for k, row in enumerate(coords):
    assignment[tuple(row)] = k
  if replicas == 1:
    return xc.HloSharding.subgroup_with_device_ordering(assignment.reshape(tiles), [])
  return xc.HloSharding.subgroup_with_device_ordering(assignment,
                                                      [xc.OpSharding.Type.REPLICATED])
