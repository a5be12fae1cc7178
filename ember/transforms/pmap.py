"""pmap: map a function over devices, one slice of the mapped axis per device.

``pmap(f, axis_name)(xs)`` runs ``f`` on device ``k`` with ``xs[k]`` and stacks the results, which
stay on the devices as one sharded array. As in JAX 0.10.2 it is built from the SPMD pieces: a
``jit`` (named ``_fun``) of a ``shard_map`` with ``check_vma=False`` over a one-axis mesh of the
first ``n`` devices (``n`` the mapped size). The mapped dimension of each argument is split over
that axis; the body squeezes it out of each block, calls ``f``, and gives each output a unit
dimension where its ``out_axes`` puts the mapped one. Unmapped arguments (``in_axes=None``,
``static_broadcasted_argnums``) are the same on every device; an ``out_axes=None`` output is
taken from the first device. Collectives over ``axis_name`` act across the devices, and ``grad``,
``vmap`` and ``jit`` compose with it through shard_map's rules.

Differences from JAX (docs/differences.md): bad mapped sizes, scalars mapped over an axis and
axes out of range raise ember's ``ValueError`` naming the argument where JAX fails inside its
sharding checks; negative ``static_broadcasted_argnums`` count from the end; ``axis_name`` is a
string; pmaps do not nest.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from ember import pytree
from ember.backend import client
from ember.backend.sharding import Mesh, PartitionSpec as P
from ember.transforms.batching import prefix_leaves
from ember._src.traceback_util import api_boundary
from ember.transforms.ops import ops

__all__ = ["pmap"]

DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"  # JAX's name for an unnamed pmap axis


def _argnums(value, what: str) -> tuple[int, ...]:
  nums = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
  for n in nums:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
      raise TypeError(f"pmap's {what} must be an int or a sequence of ints, got {value!r}.")
  return tuple(int(n) for n in nums)


def _check_axes(axes, what: str) -> None:
  for leaf in pytree.tree_leaves(axes, is_leaf=lambda x: x is None):
    if leaf is not None and (not isinstance(leaf, (int, np.integer)) or isinstance(leaf, bool)):
      raise TypeError(f"pmap's {what} must be an int, None, or a pytree of them, "
                      f"got {axes!r}.")


def _spec(axis: int, name: str) -> P:
  """A spec splitting dimension ``axis`` over the mesh axis ``name``."""
  return P(*([None] * axis), name)


def _positive(axis: int, bound: int, what: str) -> int:
  """``axis`` in [0, bound), from [-bound, bound)."""
  if not -bound <= axis < bound:
    raise ValueError(f"pmap {what}={axis} is out of range: for this value it must lie in "
                     f"[-{bound}, {bound}).")
  return axis % bound


def _out_axes_of(out_axes, out) -> list:
  """Each output leaf's mapped axis, made non-negative (None: unmapped)."""
  axes = prefix_leaves(out_axes, out, "out_axes", "pmap")
  return [None if a is None else _positive(a, np.ndim(x) + 1, "out_axes")
          for a, x in zip(axes, pytree.tree_leaves(out))]


class _Pmapped:
  """The result of ``pmap(f, ...)``: call it with arrays whose mapped axes have equal sizes."""

  def __init__(self, fun, axis_name, in_axes, out_axes, static, devices, axis_size, donate):
    functools.update_wrapper(self, fun)
    self._fun, self._axis_name, self._in_axes, self._out_axes = fun, axis_name, in_axes, out_axes
    self._static, self._devices, self._axis_size, self._donate = static, devices, axis_size, donate
    self._jitted: dict = {}  # (static values, devices...) -> jitted program

  @api_boundary
  def __call__(self, *args, **kwargs):
    nargs = len(args)
    static = tuple(n % nargs if -nargs <= n < nargs else n for n in self._static)
    for n in static:
      if not 0 <= n < nargs:
        raise ValueError(f"static_broadcasted_argnums={self._static} refers to argument {n}, "
                         f"but the pmapped function was called with {nargs} positional "
                         "arguments.")
      try:
        hash(args[n])
      except TypeError:
        raise ValueError(
            "Non-hashable static arguments are not supported, as this can lead to unexpected "
            f"cache-misses. Static argument (index {n}) of type {type(args[n])} for function "
            f"{getattr(self._fun, '__name__', self._fun)} is non-hashable.") from None
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    in_axes = self._in_axes
    if isinstance(in_axes, list):
      in_axes = tuple(in_axes)
    if isinstance(in_axes, tuple):
      if len(in_axes) != nargs:
        raise ValueError(f"pmap in_axes must be an int, None, or a tuple of entries "
                         f"corresponding to the positional arguments passed to the function, "
                         f"but got len(in_axes)={len(in_axes)}, len(args)={nargs}.")
      in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static)
    else:
      in_axes = (in_axes,) * len(dyn)
    leaves, in_tree = pytree.flatten((dyn, kwargs))
    axes = prefix_leaves(in_axes, dyn, "in_axes", "pmap")
    axes += [0] * (len(leaves) - len(axes))
    shapes = [np.shape(x) for x in leaves]
    if all(a is None or not shapes[i] for i, a in enumerate(axes)):
      raise ValueError("pmap requires at least one argument with a mapped axis.")
    positional = tuple(None if i in static else a for i, a in enumerate(args))
    paths = [f"args{pytree.keystr(p)}" for p, _ in pytree.tree_leaves_with_path(positional)]
    paths += [f"kwargs{pytree.keystr(p)}" for p, _ in pytree.tree_leaves_with_path(kwargs)]
    for i, a in enumerate(axes):
      if a is not None and not shapes[i]:
        raise ValueError(f"pmap was asked to map {paths[i]}, a value of rank 0, over its axis "
                         f"{a}: mapped arguments need a rank of at least 1. Pass it whole to "
                         "every device with in_axes=None (or static_broadcasted_argnums).")
    axes = [None if a is None else _positive(a, len(shapes[i]), "in_axes")
            for i, a in enumerate(axes)]
    sizes = {shapes[i][a] for i, a in enumerate(axes) if a is not None}
    if len(sizes) > 1:
      detail = ", ".join(f"{p} of shape {shapes[i]} at axis {a}"
                         for i, (p, a) in enumerate(zip(paths, axes)) if a is not None)
      raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: {detail}.")
    size = sizes.pop()
    if self._axis_size is not None and self._axis_size != size:
      raise ValueError(f"pmap got axis_size={self._axis_size}, but the mapped axes of its "
                       f"arguments have size {size}.")
    devices = self._select_devices(size)
    key = (tuple(args[n] for n in static), static, nargs, tuple(axes), in_tree, devices)
    jitted = self._jitted.get(key)
    if jitted is None:
      if len(self._jitted) >= 64:  # bounded, as jit's own caches
        self._jitted.pop(next(iter(self._jitted)))
      jitted = self._jitted[key] = self._build(args, static, in_tree, axes, devices, leaves)
    return jitted(*leaves)

  def _select_devices(self, size: int) -> tuple:
    if self._devices is not None:
      if len(self._devices) != size:
        raise ValueError(
            f"Leading axis size of input to pmapped function must equal the number of local "
            f"devices passed to pmap. Got axis_size={size}, "
            f"num_local_devices={len(self._devices)}.")
      return tuple(self._devices)
    available = client.local_devices()
    if size > len(available):
      raise ValueError(
          f"pmap's mapped axis has size {size}, but only {len(available)} devices are "
          f"available: the mapped axis must have one slice per device. Map a smaller axis, or "
          "ask for more CPU devices before first use (ember.config.update("
          "'jax_num_cpu_devices', n) or XLA_FLAGS=--xla_force_host_platform_device_count=n).")
    return tuple(available[:size])

  def _build(self, args, static, in_tree, axes, devices, leaves):
    from ember.transforms.jit import jit
    from ember.transforms.shard_map import _ShardMapped
    name = self._axis_name
    mesh = Mesh(np.array(devices, dtype=object), (name,))
    in_specs = tuple(P() if a is None else _spec(a, name) for a in axes)
    fun, nargs = self._fun, len(args)
    static_vals = {n: args[n] for n in static}
    out_axes_box = []  # the body's outputs' mapped axes, for out_specs

    def body(*blocks):
      xs = [x if a is None else ops.squeeze(x, (a,)) for x, a in zip(blocks, axes)]
      dyn, kwargs = pytree.unflatten(in_tree, xs)
      it = iter(dyn)
      out = fun(*[static_vals[i] if i in static_vals else next(it) for i in range(nargs)],
                **kwargs)
      out_axes = _out_axes_of(self._out_axes, out)
      out_axes_box.append(out_axes)
      out_leaves, out_tree = pytree.flatten(out)
      return pytree.unflatten(out_tree, [x if a is None else ops.expand_dims(x, (a,))
                                         for x, a in zip(out_leaves, out_axes)])

    def out_specs(_):  # read by shard_map once the body has run
      return [P() if a is None else _spec(a, name) for a in out_axes_box[-1]]

    mapped = _ShardMapped(body, mesh, in_specs, out_specs, frozenset(), check_vma=False)

    def _fun(*leaves):
      return mapped(*leaves)

    donated = {n % nargs for n in self._donate if -nargs <= n < nargs}
    donate = tuple(i for i, n in enumerate(_leaf_owners(args, static, in_tree)) if n in donated)
    return jit(_fun, donate_argnums=donate)


def _leaf_owners(args, static, in_tree) -> list[int]:
  """The positional argument each flat leaf comes from (keyword leaves: -1)."""
  owners = []
  for i, a in enumerate(args):
    if i not in static:
      owners += [i] * len(pytree.tree_leaves(a))
  return owners + [-1] * (in_tree.num_leaves - len(owners))


def pmap(fun: Callable, axis_name=None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Sequence[int] = (),
         devices: Sequence[Any] | None = None, backend: str | None = None,
         axis_size: int | None = None, donate_argnums: int | Sequence[int] = ()):
  """Map ``fun`` over devices: device ``k`` computes ``fun`` of the ``k``-th slices.

  Args:
    fun: the function to run on every device; it may use collectives over ``axis_name``.
    axis_name: the name collectives use for the mapped axis.
    in_axes: the mapped axis of each positional argument (an int, None for an argument passed
      whole to every device, or a tuple of pytree prefixes of them); keyword arguments are
      mapped at axis 0.
    out_axes: where the mapped axis goes in each output (None: the output is the same on every
      device and one copy is returned).
    static_broadcasted_argnums: positional arguments that are hashable Python values, passed
      as they are to every device (a new value compiles again).
    devices: the devices to run on, one per slice (default: the first local ones).
    backend: the platform to run on (this process's platform only).
    axis_size: the size of the mapped axis; checked against the arguments'.
    donate_argnums: positional arguments whose buffers may be reused for the outputs.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.pmap(lambda x: ember.lax.psum(x, "i"), axis_name="i")(jnp.arange(4.0))
      Array([6., 6., 6., 6.], dtype=float32)
  """
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun!r}")
  if axis_name is None:
    axis_name = DEFAULT_AXIS_NAME
  elif not isinstance(axis_name, str):
    raise TypeError(f"ember's pmap takes a string axis_name, got {axis_name!r}.")
  _check_axes(in_axes, "in_axes")
  _check_axes(out_axes, "out_axes")
  if backend is not None and backend != client.default_backend():
    raise RuntimeError(f"Unknown backend: '{backend}' requested, but no platforms that are "
                       f"instances of {backend} are present. Platforms present are: "
                       f"{client.default_backend()}")
  if axis_size is not None and (not isinstance(axis_size, (int, np.integer)) or axis_size < 1):
    raise ValueError(f"pmap's axis_size must be a positive int, got {axis_size!r}.")
  if devices is not None:
    devices = list(devices)
    if not devices or len(set(devices)) != len(devices):
      raise ValueError(f"pmap's devices must be a non-empty list of distinct devices, got "
                       f"{devices!r}.")
  static = _argnums(static_broadcasted_argnums, "static_broadcasted_argnums")
  donate = frozenset(_argnums(donate_argnums, "donate_argnums"))
  return _Pmapped(fun, axis_name, in_axes, out_axes, static, devices, axis_size, donate)

