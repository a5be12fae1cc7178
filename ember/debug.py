"""Debugging helpers (mirrors ``jax.debug``): print values from inside transformed code
(``print``, ``callback``) and look at how arrays are laid out over devices.

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.debug.visualize_array_sharding(jnp.arange(4.0))
    ┌───────┐
    │ CPU 0 │
    └───────┘
"""
from __future__ import annotations

__all__ = ["print", "callback", "visualize_array_sharding", "visualize_sharding",
           "inspect_array_sharding"]

import builtins as _builtins


def callback(callback, *args, ordered: bool = False, partitioned: bool = False, **kwargs):
  """Call ``callback(*args, **kwargs)`` on the host with NumPy arrays, for its side effects:
  eagerly at once, under ``jit`` each time the program runs, under ``vmap`` once per example,
  under ``grad`` with the primal values.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> import builtins
      >>> ember.jit(lambda x: ember.debug.callback(lambda v: builtins.print("got", v), x) or x)(2.0)
      got 2.0
      Array(2., dtype=float32, weak_type=True)
  """
  from ember.callback import debug_callback
  debug_callback(callback, *args, ordered=ordered, partitioned=partitioned, **kwargs)


def print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:  # noqa: A001
  """Print ``fmt.format(*args, **kwargs)`` with the arguments' values, from inside ``jit``,
  ``vmap`` (once per example) or ``grad`` too.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.jit
      ... def f(x):
      ...   ember.debug.print("x = {x}", x=x)
      ...   return x * 2
      >>> f(jnp.arange(3))
      x = [0 1 2]
      Array([0, 2, 4], dtype=int32)
  """
  if not isinstance(fmt, str):
    raise TypeError(f"debug.print's fmt must be a string, got {fmt!r}.")
  from ember.callback import debug_callback

  def show(*a, **k):
    _builtins.print(fmt.format(*a, **k), flush=True)
  debug_callback(show, *args, ordered=ordered, **kwargs)


def _tiles(shape, sharding) -> dict:
  """(row, column) tile -> the devices holding it, for a 1-d or 2-d array."""
  from ember.backend.sharding import NamedSharding
  if not isinstance(sharding, NamedSharding):
    device = next(iter(sharding.device_set))
    return {(0, 0): [device]}
  ndim = len(shape)
  coords = sharding.coords(ndim)
  tiles: dict = {}
  for device, row in zip(sharding.mesh._flat_devices, coords):
    key = (0, int(row[0])) if ndim == 1 else (int(row[0]), int(row[1])) if ndim == 2 else (0, 0)
    tiles.setdefault(key, []).append(device)
  return tiles


def _label(devices) -> str:
  platform = devices[0].platform.upper()
  return f"{platform} {','.join(str(d.id) for d in sorted(devices, key=lambda d: d.id))}"


def visualize_sharding(shape, sharding, *, use_color: bool = False, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
  """Print the grid of tiles of an array of ``shape`` laid out by ``sharding``, each labelled
  with the devices that hold it (plain text; JAX draws the same grid with ``rich``).

  Example:
      >>> import ember
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2, 2), ("x", "y"), devices=ember.devices()[:4])
      >>> ember.debug.visualize_sharding((4,), NamedSharding(mesh, P("x")))
      ┌─────────┬─────────┐
      │ CPU 0,1 │ CPU 2,3 │
      └─────────┴─────────┘
  """
  if len(shape) > 2:
    raise ValueError(f"visualize_sharding only works for shapes with 2 or fewer dimensions, got "
                     f"shape {tuple(shape)}.")
  tiles = _tiles(shape, sharding)
  rows = 1 + max(r for r, _ in tiles)
  cols = 1 + max(c for _, c in tiles)
  labels = {k: _label(v) for k, v in tiles.items()}
  cell = max(len(s) for s in labels.values()) + 2
  if len(shape) == 2:
    cell = max(cell, min_width + 2)

  def line(left, mid, right):
    return left + mid.join("─" * cell for _ in range(cols)) + right

  out = [line("┌", "┬", "┐")]
  for r in range(rows):
    out.append("│" + "│".join(labels[(r, c)].center(cell) for c in range(cols)) + "│")
    out.append(line("├", "┼", "┤") if r < rows - 1 else line("└", "┴", "┘"))
  _builtins.print("\n".join(out))


def visualize_array_sharding(arr, **kwargs) -> None:
  """Print how the array ``arr`` is laid out over devices (see ``visualize_sharding``).

  Example:
      >>> import ember, numpy as np
      >>> from ember.sharding import NamedSharding, PartitionSpec as P
      >>> mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
      >>> x = ember.device_put(np.zeros((4, 4)), NamedSharding(mesh, P("i")))
      >>> ember.debug.visualize_array_sharding(x)
      ┌───────────┐
      │   CPU 0   │
      ├───────────┤
      │   CPU 1   │
      └───────────┘
  """
  visualize_sharding(arr.shape, arr.sharding, **kwargs)


def inspect_array_sharding(value, *, callback) -> None:
  """Call ``callback(sharding)`` with the sharding of each array in ``value`` (eagerly).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> import builtins
      >>> ember.debug.inspect_array_sharding({"a": jnp.zeros(2)}, callback=builtins.print)
      SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
  """
  from ember import pytree
  for leaf in pytree.tree_leaves(value):
    callback(leaf.sharding)
