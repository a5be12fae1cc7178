"""The ahead-of-time stages of a jitted function (``jax.stages``' classes): ``jit(f).trace(...)``
gives a ``Traced`` (the jaxpr and what was traced), ``.lower()`` a ``Lowered`` (StableHLO text)
and ``.compile()`` a ``Compiled``, callable with arguments of the traced types.

Example:
    >>> import ember
    >>> compiled = ember.jit(lambda x: x * 2).trace(1.0).lower().compile()
    >>> compiled(3.0)
    Array(6., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ember import pytree
from ember.config import config
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import client as backend_client
from ember.backend import lowering
from ember.backend import spmd
from ember.backend.array import abstractify
from ember.backend.compile import Executable
from ember.transforms.jit_rules import place_args

if TYPE_CHECKING:
  from ember.transforms.jit import PjitFunction, _Entry

__all__ = ["ArgInfo", "Traced", "Lowered", "Compiled", "Stage"]


@dataclasses.dataclass(frozen=True)
class ArgInfo:
  """One argument of a lowered or compiled function: its abstract value and whether it is
  donated (JAX's ``jax.stages.ArgInfo``).

  Example:
      >>> import ember
      >>> ember.jit(lambda x: x).lower(1.0).args_info[0][0].donated
      False
  """
  _aval: Any
  donated: bool

  @property
  def shape(self):
    return self._aval.shape

  @property
  def dtype(self):
    return self._aval.dtype


class _Stage:
  """What ``Traced``, ``Lowered`` and ``Compiled`` say about the traced signature, as JAX's
  stages do.

  Example:
      >>> import ember
      >>> ember.jit(lambda x, y: x + y).trace(1.0, 2).in_avals
      ((ShapedArray(float32[], weak_type=True), ShapedArray(int32[], weak_type=True)), {})
  """

  @property
  def in_tree(self):
    return self._in_tree

  @property
  def out_tree(self):
    return self._entry.out_tree

  @property
  def in_avals(self):
    return pytree.unflatten(self._in_tree, self._entry.closed.in_avals)

  @property
  def args_info(self):
    donated = self._entry.donated or (False,) * self._in_tree.num_leaves
    return pytree.unflatten(self._in_tree, [ArgInfo(a, bool(d)) for a, d in
                                            zip(self._entry.closed.in_avals, donated)])

  @property
  def donate_argnums(self) -> tuple:
    return tuple(self._wrapped._donate_argnums)

  @property
  def out_info(self):
    return Traced(self._wrapped, self._entry, self._in_tree).out_info


class Traced(_Stage):
  """A jitted function traced at some arguments: ``.jaxpr``, ``.out_info``, ``.lower()``.

  Example:
      >>> import ember
      >>> print(ember.jit(lambda x: x * 2).trace(1.0).jaxpr)
      { lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }
  """

  def __init__(self, wrapped: PjitFunction, entry: _Entry, in_tree, layout=None):
    self._wrapped, self._entry, self._in_tree = wrapped, entry, in_tree
    self._layout = layout  # (mesh, in_shardings, out_shardings) of a program over a mesh

  @property
  def jaxpr(self) -> ClosedJaxpr:
    return self._entry.closed

  @property
  def fun_name(self) -> str:
    return self._wrapped.__name__

  @property
  def out_avals(self):
    return pytree.unflatten(self._entry.out_tree, self._entry.closed.out_avals)

  @property
  def out_info(self):
    from ember.core.aval import ShapeDtypeStruct
    avals = self._entry.closed.out_avals
    return pytree.unflatten(self._entry.out_tree,
                            [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                             for a in avals])

  def lower(self) -> "Lowered":
    return Lowered(self._wrapped, self._entry, self._in_tree, self._layout)


class Lowered(_Stage):
  """The StableHLO of a traced function: ``.as_text()``, ``.compile()``.

  Example:
      >>> import ember
      >>> "stablehlo.multiply" in ember.jit(lambda x: x * 2).lower(1.0).as_text()
      True
  """

  def __init__(self, wrapped: PjitFunction, entry: _Entry, in_tree, layout=None):
    self._wrapped, self._entry, self._in_tree = wrapped, entry, in_tree
    self._layout = layout
    self._text = entry.module_text(f"jit_{wrapped.__name__}", layout)

  def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
    """The program's text: StableHLO (``dialect=None`` or ``"stablehlo"``) or ``"hlo"``."""
    if debug_info:
      raise NotImplementedError("Lowered.as_text(debug_info=True): ember's lowered programs "
                                "carry no source locations; call as_text() without it.")
    if self._dialect(dialect) == "hlo":
      return self.compiler_ir("hlo").as_hlo_text()
    return self._text

  def cost_analysis(self) -> dict:
    """XLA's estimates for the program (flops, bytes accessed...)."""
    from jaxlib import _jax
    module = lowering.hlo_computation(self._text).get_hlo_module()
    return dict(_jax.hlo_module_cost_analysis(backend_client.get_client(), module))

  def compiler_ir(self, dialect: str | None = None):
    """The program as an MLIR module (StableHLO) or, for ``"hlo"``, an XLA computation."""
    if self._dialect(dialect) == "hlo":
      return lowering.hlo_computation(self._text)
    return lowering.parse_module(self._text)

  @staticmethod
  def _dialect(dialect: str | None) -> str:
    if dialect not in (None, "stablehlo", "hlo"):
      raise ValueError(f"unknown dialect: {dialect}")
    return dialect or "stablehlo"

  def compile(self, compiler_options=None) -> "Compiled":
    """The executable; ``compiler_options`` (XLA's, by name) are added to the jit's."""
    options = None
    if compiler_options:
      options = tuple({**dict(self._entry.compiler_options), **compiler_options}.items())
    if self._layout is not None:
      exe = self._entry.spmd_executable(self._layout, self._wrapped.__name__, options)
      return Compiled(self._wrapped, self._entry, exe, self._in_tree)
    device = self._wrapped._device or backend_client.default_device()
    exe = self._entry.executable(device, self._wrapped._device is not None,
                                 self._wrapped.__name__, options)
    return Compiled(self._wrapped, self._entry, exe, self._in_tree)


class Compiled(_Stage):
  """A compiled executable; calling it runs the program (arguments must match the lowering).

  Example:
      >>> import ember
      >>> ember.jit(lambda x: x * 2).lower(1.0).compile()(4.0)
      Array(8., dtype=float32, weak_type=True)
  """

  def __init__(self, wrapped, entry, exe: Executable, in_tree):
    self._wrapped, self._entry, self._exe, self._in_tree = wrapped, entry, exe, in_tree

  def runtime_executable(self):
    """jaxlib's loaded executable."""
    return self._exe.exe

  def memory_analysis(self):
    """XLA's memory statistics of the compiled program (argument, output, temp sizes...)."""
    return self._exe.exe.get_compiled_memory_stats()

  def cost_analysis(self) -> dict:
    """XLA's estimates for the compiled program (flops, bytes accessed...)."""
    return dict(self._exe.exe.cost_analysis())

  def as_text(self) -> str:
    return self._exe.exe.hlo_modules()[0].to_string() if hasattr(self._exe.exe, "hlo_modules") \
        else self._exe.text

  def __call__(self, *args, **kwargs):
    dyn_args, dyn_kwargs, _ = self._wrapped._split(args, kwargs)
    leaves, in_tree = pytree.flatten((dyn_args, dyn_kwargs))
    if in_tree != self._in_tree:
      raise TypeError(f"Compiled function called with a different argument structure: expected "
                      f"{self._in_tree}, got {in_tree}.")
    avals = tuple(abstractify(x) for x in leaves)
    expected = tuple(self._exe.in_avals[len(self._entry.consts):])
    if tuple(a.strip_weak_type() for a in avals) != tuple(a.strip_weak_type() for a in expected):
      raise TypeError(f"Compiled function called with argument types {list(map(str, avals))}, "
                      f"but it was compiled for {list(map(str, expected))}.")
    if isinstance(self._exe, spmd.SpmdExecutable):
      bufs = [spmd.put_sharded(x, s, a)
              for x, s, a in zip(leaves, self._exe.in_shardings, expected)]
    else:
      bufs = place_args(leaves, expected, self._exe.device, self._entry.donated)
    out = pytree.unflatten(self._entry.out_tree, self._exe.run(bufs))
    if config.jax_debug_nans or config.jax_debug_infs:
      from ember.transforms.jit import _check_jit_outputs
      _check_jit_outputs(self._wrapped, out, args, kwargs)
    return out


Stage = _Stage
