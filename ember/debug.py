"""Debugging helpers (mirrors ``jax.debug``): print or log values from inside transformed
code (``print``, ``log``, ``callback``), stop in a debugger (``breakpoint``, see
ember/debugger.py) and look at how arrays are laid out over devices.

``print``, ``log`` and ``callback`` take their options in the call or first, alone (the
two-call form ``debug.print(ordered=False)("x = {}", x)``). Arguments that are not arrays
(strings, ``None`` leaves aside) are static: kept out of the program and handed back as they
are. ``print`` checks its format against the arguments when called, and formats them with the
NumPy print options in force at that moment; ``log`` hands the message to Python's ``logging``
(logger ``ember.debug``, level INFO, the caller's file and line).

Differences from JAX (docs/differences.md): ``ordered=True`` raises ``NotImplementedError``
(ember threads no effect tokens), and jaxprs carry no effects (``DebugEffect`` and
``OrderedDebugEffect`` exist as names).

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.debug.visualize_array_sharding(jnp.arange(4.0))
    ┌───────┐
    │ CPU 0 │
    └───────┘
"""
from __future__ import annotations

__all__ = ["print", "log", "callback", "breakpoint", "DebugEffect", "OrderedDebugEffect",
           "visualize_array_sharding", "visualize_sharding", "inspect_array_sharding"]

import builtins as _builtins
import logging as _logging
import string as _string
from typing import Any, Callable

from ember.primitives.callback import (DebugEffect, OrderedDebugEffect, FlatCallback,
                                       StaticArgs, debug_callback_p, debug_effect,
                                       debug_print_p)
from ember.debugger import breakpoint  # re-exported: jax.debug.breakpoint

_logger = _logging.getLogger(__name__)


def _refuse_ordered(ordered: bool, what: str) -> None:
  if ordered:
    raise NotImplementedError(f"{what}(ordered=True) is not supported by ember (it threads no "
                              "tokens to order effects); leave ordered out.")


def _split_args(args, kwargs) -> tuple[Any, list, dict]:
  """The pytree of ``(args, kwargs)``, its array leaves, and its other leaves by position."""
  from ember import pytree
  from ember.core import trace as core
  leaves, in_tree = pytree.flatten((args, kwargs))
  dynamic, static = [], {}
  for i, leaf in enumerate(leaves):
    try:
      core.get_aval(leaf)
      dynamic.append(leaf)
    except TypeError:
      static[i] = leaf
  return in_tree, dynamic, static


def _two_call_form(name: str, args, kwargs, then: Callable) -> Callable:
  if args or kwargs:
    raise TypeError(f"{name} received unexpected arguments in the two-call form: {args=} "
                    f"{kwargs=}")
  return then


def callback(callback: Callable | None = None, *args, ordered: bool = False,
             partitioned: bool = False, **kwargs):
  """Call ``callback(*args, **kwargs)`` on the host with arrays, for its side effects:
  eagerly at once, under ``jit`` each time the program runs, under ``vmap`` once per example,
  under ``grad`` with the primal values; inside ``shard_map`` once per device with its block.
  ``partitioned=True`` hands it each device's shard of a sharded value rather than the whole.
  With ``callback`` left out, returns a function taking the callback and its arguments.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> import builtins
      >>> ember.jit(lambda x: ember.debug.callback(lambda v: builtins.print("got", v), x) or x)(2.0)
      got 2.0
      Array(2., dtype=float32, weak_type=True)
  """
  _refuse_ordered(ordered, "debug.callback")

  def bind(callback: Callable, *c_args, **c_kwargs) -> None:
    if not callable(callback):
      raise TypeError("first argument to jax.debug.callback must be callable, but got an "
                      f"object of type {type(callback)}")
    in_tree, dynamic, static = _split_args(c_args, c_kwargs)
    debug_callback_p.bind(*dynamic, callback=FlatCallback(callback, in_tree, static),
                          effect=debug_effect, partitioned=partitioned)

  if callback is None:
    return _two_call_form("debug_callback", args, kwargs, bind)
  bind(callback, *args, **kwargs)
  return None


class _FormatChecker(_string.Formatter):
  """``str.format`` that formats nothing but says which arguments a format leaves unused."""

  def format_field(self, value, format_spec):
    return ""

  def check_unused_args(self, used_args, args, kwargs):
    unused = [a for i, a in enumerate(args) if i not in used_args]
    if unused:
      raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
    unused_kw = [k for k in kwargs if k not in used_args]
    if unused_kw:
      raise ValueError(
          f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. You may be passing an "
          "f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and instead should pass in a "
          "regular string.")


def _has_placeholders(fmt: str) -> bool:
  """Whether ``fmt`` starts with text then a replacement field (JAX looks at the first one
  only; without one, the arguments are printed after ``fmt``, separated by spaces)."""
  if not fmt:
    return False
  _, field, _, _ = next(iter(_string.Formatter().parse(fmt)))
  return field is not None


def _log_record(level: int) -> _logging.LogRecord:
  """A record for ``log``: the caller's file and line, the message filled in when it runs."""
  from ember.transforms.staging import user_frame
  where = user_frame()
  file, line = (where.file, where.line) if where is not None else ("(unknown file)", 0)
  return _logger.makeRecord(_logger.name, level, file, line, "", (), None)


def _print(fmt, args, kwargs, *, ordered, partitioned, skip_format_check, use_logging):
  if not isinstance(fmt, str):
    raise TypeError(f"expected str, got {type(fmt).__name__}: debug.print's format must be a "
                    "string.")
  if not skip_format_check:
    _FormatChecker().format(fmt, *args, **kwargs)
  has_placeholders = _has_placeholders(fmt)
  if not has_placeholders and kwargs:
    raise TypeError(f"debug.print: keyword arguments {sorted(kwargs)} need placeholders in the "
                    f"format {fmt!r}.")
  import numpy as np
  in_tree, dynamic, static = _split_args(args, kwargs)
  debug_print_p.bind(
      *dynamic, fmt=fmt, has_placeholders=has_placeholders, in_tree=in_tree,
      logging_record=_log_record(_logging.INFO) if use_logging else None,
      np_printoptions=tuple(np.get_printoptions().items()), ordered=ordered,
      partitioned=partitioned, static_args=StaticArgs(static.items()))


def print(fmt: str | None = None, *args, ordered: bool = False,  # noqa: A001
          partitioned: bool = False, skip_format_check: bool = False,
          _use_logging: bool = False, **kwargs):
  """Print ``fmt.format(*args, **kwargs)`` with the arguments' values, from inside ``jit``,
  ``vmap`` (once per example), ``grad`` or ``shard_map`` (once per device) too.

  The format is checked when called: an argument it leaves unused is a ``ValueError``. A
  format with no placeholders prints the arguments after it, separated by spaces (pass
  ``skip_format_check=True``). With ``fmt`` left out, returns a function taking the format
  and its arguments.

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
  _refuse_ordered(ordered, "debug.print")
  options = dict(ordered=ordered, partitioned=partitioned,
                 skip_format_check=skip_format_check, use_logging=_use_logging)
  if fmt is None:
    return _two_call_form("debug_print", args, kwargs,
                          lambda fmt, *a, **k: _print(fmt, a, k, **options))
  _print(fmt, args, kwargs, **options)
  return None


def log(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
        skip_format_check: bool = False, _use_logging: bool = True, **kwargs):
  """``print``, but the message goes to Python's ``logging``: logger ``ember.debug``, level
  INFO, recorded at the caller's file and line (shown where a handler is configured).

  Example:
      >>> import logging, sys, ember, ember.numpy as jnp
      >>> handler = logging.StreamHandler(sys.stdout)
      >>> logging.getLogger("ember.debug").addHandler(handler)
      >>> ember.jit(lambda x: ember.debug.log("x is {}", x))(jnp.arange(2))
      x is [0 1]
      >>> logging.getLogger("ember.debug").removeHandler(handler)
  """
  return print(fmt, *args, ordered=ordered, partitioned=partitioned,
               skip_format_check=skip_format_check, _use_logging=_use_logging, **kwargs)


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


def visualize_sharding(shape, sharding, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
  """Print the grid of tiles of an array of ``shape`` laid out by ``sharding``, each labelled
  with the devices that hold it (plain text; JAX draws the same grid with ``rich``, in colors
  when ``use_color`` and the console has them: ember draws none, as JAX in a console without
  colors).

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
