"""Meshes and shardings (mirrors ``jax.sharding``): how arrays are laid out over devices.

Example:
    >>> import ember, numpy as np
    >>> from ember.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
    >>> x = ember.device_put(np.arange(4.0), NamedSharding(mesh, P("i")))
    >>> x.sharding.spec, x.addressable_shards[1].data
    (P('i',), Array([2., 3.], dtype=float32))
"""
from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np

from ember.backend import client as _client
from ember.backend import sharding as _backend_sharding
from ember.backend.sharding import (AbstractDevice, AbstractMesh, AxisType, get_abstract_mesh, DuplicateSpecError,
                                    IndivisibleError, Mesh, NamedSharding, PartitionSpec, Sharding,
                                    SingleDeviceSharding, current_mesh, set_default_mesh)
from ember.core.aval import ManualAxisType

__all__ = ["AbstractMesh", "AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
           "SingleDeviceSharding", "make_mesh", "get_mesh", "set_mesh",
           "IndivisibleError", "DuplicateSpecError", "reshard", "AbstractDevice",
           "ManualAxisType", "auto_axes", "explicit_axes", "get_abstract_mesh",
           "use_abstract_mesh", "make_single_device_sharding"]


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
  """A mesh of ``prod(axis_shapes)`` devices (the first ones, in id order) with named axes.

  Axes default to ``AxisType.Explicit``, as in JAX 0.10.2.

  Example:
      >>> import ember
      >>> ember.make_mesh((4, 2), ("x", "y"))
      Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))
  """
  axis_shapes = tuple(int(s) for s in axis_shapes)
  axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
  if len(axis_shapes) != len(axis_names):
    raise ValueError(f"make_mesh: axis_shapes {axis_shapes} and axis_names {axis_names} must "
                     "have the same length.")
  devices = list(_client.devices() if devices is None else devices)
  n = math.prod(axis_shapes)
  if any(s <= 0 for s in axis_shapes):
    raise ValueError(f"make_mesh: every mesh axis size must be positive, got {axis_shapes}.")
  if len(devices) < n:
    raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape "
                     f"{axis_shapes}")
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_names)
  grid = np.empty(n, dtype=object)
  grid[:] = devices[:n]
  return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


def get_mesh() -> Mesh | None:
  """The mesh set by ``set_mesh`` or a ``with mesh:`` block (None outside one).

  Example:
      >>> import ember
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> with ember.set_mesh(mesh):
      ...   ember.sharding.get_mesh()
      Mesh(axis_sizes=(2,), axis_names=('i',), axis_types=(Explicit,))
  """
  return current_mesh()


class set_mesh:
  """Make ``mesh`` the default mesh (of ``shard_map``, and of PartitionSpecs given where a
  sharding is expected) from now on, or, used as ``with ember.set_mesh(mesh):``, inside the
  block only.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> x = ember.device_put(jnp.arange(4.0), NamedSharding(mesh, P("i")))
      >>> with ember.set_mesh(mesh):
      ...   ember.shard_map(lambda b: ember.lax.psum(b, "i"), out_specs=P())(x)
      Array([2., 4.], dtype=float32)
  """

  def __init__(self, mesh: Mesh):
    if not isinstance(mesh, Mesh):
      raise TypeError(f"set_mesh expects an ember.sharding.Mesh, got {mesh!r}.")
    self._previous = set_default_mesh(mesh)

  def __enter__(self):
    return None

  def __exit__(self, *exc):
    set_default_mesh(self._previous)
    return False


def reshard(xs, out_shardings):
  """``xs`` (a pytree; numbers become arrays) laid out by ``out_shardings``: a NamedSharding or
  a PartitionSpec over the current mesh, or a pytree prefix of ``xs`` of them; under ``jit`` a
  sharding constraint. As in JAX, a spec may not name an Auto or Manual mesh axis, and over a
  mesh with an Explicit axis the result's spec names every dimension (``P('i', None)``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> ember.sharding.reshard(jnp.arange(4.0), NamedSharding(mesh, P("i"))).sharding.spec
      P('i',)
  """
  return _reshard_tree(xs, out_shardings)


def make_single_device_sharding(device, *, memory_kind=None) -> SingleDeviceSharding:
  """A ``SingleDeviceSharding`` of ``device`` (in ``memory_kind``, by default the device's).

  Example:
      >>> import ember
      >>> ember.sharding.make_single_device_sharding(ember.devices()[0])
      SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
  """
  return SingleDeviceSharding(device, memory_kind=memory_kind)


# --- abstract meshes ------------------------------------------------------------------------

_EMPTY = _backend_sharding._EMPTY_MESH
_abstract_meshes = _backend_sharding._abstract_meshes


class use_abstract_mesh:
  """``with use_abstract_mesh(mesh):`` makes the ``AbstractMesh`` ``mesh`` what
  ``get_abstract_mesh`` returns inside the block. It cannot change the mesh's size.

  Example:
      >>> from ember.sharding import AbstractMesh, get_abstract_mesh, use_abstract_mesh
      >>> with use_abstract_mesh(AbstractMesh((2,), ("i",))):
      ...   print(get_abstract_mesh())
      AbstractMesh('i': 2, axis_types=(Auto,))
  """
  __slots__ = ("mesh",)

  def __init__(self, mesh: AbstractMesh):
    if not isinstance(mesh, AbstractMesh):
      raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. Got type: "
                       f"{type(mesh)}")
    self.mesh = mesh

  def __enter__(self):
    prev = get_abstract_mesh()
    if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
      raise ValueError(f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
                       f"{self.mesh} with size={self.mesh.size} and prev mesh: {prev} with "
                       f"size={prev.size}")
    _abstract_meshes.append(self.mesh)

  def __exit__(self, *exc):
    _abstract_meshes.pop()
    return False


# --- auto_axes and explicit_axes ------------------------------------------------------------

def _with_axis_types(mesh: AbstractMesh, axes: tuple, axis_type: AxisType) -> AbstractMesh:
  types = tuple(axis_type if name in axes else t
                for name, t in zip(mesh.axis_names, mesh.axis_types))
  out = AbstractMesh(mesh.axis_sizes, mesh.axis_names, types)
  out._device = mesh._device
  return out


def _sharding_mesh(shardings, name: str) -> AbstractMesh:
  """The one abstract mesh of the NamedShardings among ``shardings`` (empty if none)."""
  from ember import pytree
  found = _EMPTY
  for s in pytree.tree_leaves(shardings):
    if isinstance(s, NamedSharding):
      if not found.empty and found != s.mesh.abstract_mesh:
        raise ValueError(f"Shardings passed to {name} should have the same mesh. Got one mesh "
                         f"{found} and another {s.mesh}")
      found = s.mesh.abstract_mesh
  return found


def _new_mesh(axes, axis_type: AxisType, name: str, shardings=None):
  """``(previous mesh, mesh with axes of axis_type, axes)``; None with no mesh anywhere."""
  current, given = get_abstract_mesh(), _sharding_mesh(shardings, name)
  if current.empty and given.empty:
    return None
  if not current.empty and not given.empty and current != given:
    raise ValueError(f"Context mesh {current} must match the mesh passed to shardings {given}. "
                     "Recommended approach is to use `jax.set_mesh` context manager.")
  mesh = given if current.empty else current
  axes = mesh.axis_names if axes is None else axes
  axes = axes if isinstance(axes, tuple) else (axes,)
  types = dict(zip(mesh.axis_names, mesh.axis_types))
  for a in axes:
    if types[a] == AxisType.Manual:
      raise NotImplementedError("Going from `Manual` AxisType to `Auto` or `Explicit` AxisType "
                                "is not allowed.")
  return mesh, _with_axis_types(mesh, axes, axis_type), axes


def _checked_spec(spec: PartitionSpec, types: dict) -> None:
  """JAX's reshard refuses a spec naming a mesh axis that is Auto or Manual."""
  for name in spec.mesh_axes():
    if types.get(name) in (AxisType.Auto, AxisType.Manual):
      raise ValueError("PartitionSpec passed to reshard cannot contain axis names that are of "
                       f"type Auto or Manual. Got PartitionSpec: {spec} with axis name: {name} "
                       f"of type: AxisType.{types[name].name}.")


def _named(sharding, ndim: int) -> NamedSharding:
  """The NamedSharding ``reshard`` lays an ``ndim``-dimensional leaf out by: a PartitionSpec is
  over the current mesh (its axis types as ``get_abstract_mesh`` says), and over a mesh with an
  Explicit axis the spec names every dimension (padded with None), as the value's type does."""
  if isinstance(sharding, PartitionSpec):
    mesh = current_mesh()
    if mesh is None:
      raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                       "allowed. Please pass a NamedSharding instance or enter into a mesh "
                       f"context via `jax.set_mesh`. Got {sharding}")
    abstract = get_abstract_mesh()
    _checked_spec(sharding, dict(zip(abstract.axis_names, abstract.axis_types)))
    sharding = NamedSharding(mesh, sharding)
  else:
    _checked_spec(sharding.spec, dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types)))
  spec = sharding.spec
  if AxisType.Explicit in sharding.mesh.axis_types and len(spec) < ndim:
    spec = PartitionSpec(*spec, *[None] * (ndim - len(spec)), unreduced=spec.unreduced,
                         reduced=spec.reduced)
    sharding = NamedSharding(sharding.mesh, spec, memory_kind=sharding.memory_kind)
  return sharding


def _reshard_tree(tree, shardings, args: bool = False):
  """``tree``'s leaves (numbers made arrays) laid out by ``shardings``, a pytree prefix of
  ``tree`` of NamedShardings or PartitionSpecs; ``args``: ``tree`` is the tuple of a call's
  positional arguments."""
  from ember import numpy as jnp
  from ember import pytree
  from ember.lax.parallel import with_sharding_constraint
  is_spec = lambda s: isinstance(s, (NamedSharding, PartitionSpec))  # noqa: E731
  for s in pytree.tree_leaves(shardings, is_leaf=is_spec):
    if not is_spec(s):
      raise TypeError("`out_sharding` argument of reshard only supports instances of "
                      f"`NamedSharding` or `PartitionSpec`. Got {s} of type: {type(s)}")
  if args and isinstance(shardings, (tuple, list)) and len(shardings) != len(tree):
    raise ValueError(
        "reshard out_shardings specification must be a tree prefix of the positional arguments "
        "tuple. In particular, reshard out_shardings must either be a Sharding, a "
        "PartitionSpec, or a tuple of length equal to the number of positional arguments. But "
        f"reshard out_shardings is the wrong length: got a tuple or list of length "
        f"{len(shardings)} for an args tuple of length {len(tree)}.")
  tree = pytree.tree_map(lambda x: x if hasattr(x, "aval") else jnp.asarray(x), tree)
  leaves, treedef = pytree.tree_flatten(tree)
  per_leaf = pytree.broadcast_prefix(shardings, tree, is_leaf=is_spec)
  named = [_named(s, jnp.ndim(x)) for s, x in zip(per_leaf, leaves)]
  return with_sharding_constraint(tree, treedef.unflatten(named))


def _required(value, kwargs: dict, name: str):
  if value is not None:
    return value
  if name not in kwargs:
    raise TypeError(f"Missing required keyword argument: '{name}'")
  return kwargs.pop(name)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
  """``f`` run with the mesh ``axes`` (all by default) made ``AxisType.Auto`` (the compiler
  chooses how values are laid out over them), its outputs then laid out by ``out_sharding``
  (a NamedSharding or PartitionSpec, or a pytree prefix of them; also accepted as a keyword
  argument of the call). Without a mesh (none set, none in ``out_sharding``) it is ``f``.
  Usable as ``@auto_axes(out_sharding=...)``.

  ember's arrays carry no sharding in their types, so inside ``f`` the change shows only in
  ``get_abstract_mesh()``; the outputs' layout is JAX's.

  Raises:
    TypeError: no ``out_sharding``, or one that is not a sharding.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import PartitionSpec as P, auto_axes
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> with ember.set_mesh(mesh):
      ...   y = auto_axes(lambda x: x * 2, out_sharding=P("i"))(jnp.arange(4.0))
      >>> y.sharding.spec
      P('i',)
  """
  if f is None:
    return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

  @functools.wraps(f)
  def run(*args, **kwargs):
    out_spec = _required(out_sharding, kwargs, "out_sharding")
    change = _new_mesh(axes, AxisType.Auto, "auto_axes", out_spec)
    if change is None:
      return f(*args, **kwargs)
    prev, new, names = change
    if {n for n, t in zip(prev.axis_names, prev.axis_types) if t == AxisType.Auto} == set(names):
      return f(*args, **kwargs)
    with use_abstract_mesh(new):
      out = f(*args, **kwargs)
    return _reshard_tree(out, out_spec)
  return run


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
  """``f`` run with the mesh ``axes`` (all by default) made ``AxisType.Explicit``, its
  positional arguments first laid out by ``in_sharding`` (a NamedSharding or PartitionSpec,
  or a prefix of the arguments tuple; also accepted as a keyword argument of the call). Needs
  a mesh (``set_mesh``). Usable as ``@explicit_axes(in_sharding=...)``.

  Raises:
    ValueError: no mesh is set.
    TypeError: no ``in_sharding``, or one that is not a sharding.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.sharding import PartitionSpec as P, explicit_axes
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> with ember.set_mesh(mesh):
      ...   y = explicit_axes(lambda x: x * 2, in_sharding=P("i"))(jnp.arange(4.0))
      >>> y.sharding.spec
      P('i',)
  """
  if f is None:
    return lambda g: explicit_axes(g, axes=axes, in_sharding=in_sharding)

  @functools.wraps(f)
  def run(*args, **kwargs):
    in_spec = _required(in_sharding, kwargs, "in_sharding")
    change = _new_mesh(axes, AxisType.Explicit, "explicit_axes")
    if change is None:
      raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to enter "
                       "into a mesh context when using `explicit_axes` API.")
    with use_abstract_mesh(change[1]):
      args = _reshard_tree(args, in_spec, args=True)
      return f(*args, **kwargs)
  return run
