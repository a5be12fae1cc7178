"""``ember.interpreters.mlir``: a user primitive's lowering, under JAX 0.10.2's names.

ember lowers programs from StableHLO text of its own, not through MLIR's Python bindings, so a
lowering is written as a function of ember operations: ``lower_fun(fn, multiple_results)``
makes one, and ``register_lowering(prim, rule)`` takes such a rule. A JAX rule written against
the MLIR bindings cannot run here (this differs from JAX, see docs/differences.md). A primitive
from ``ember.extend.core.Primitive`` whose impl is written in ember operations needs neither:
its impl is its lowering.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.extend.core import Primitive
    >>> from ember.interpreters import mlir
    >>> cube = Primitive("cube")
    >>> _ = cube.def_abstract_eval(lambda x: x)
    >>> mlir.register_lowering(cube, mlir.lower_fun(lambda x: x * x * x, multiple_results=False))
    >>> ember.jit(cube.bind)(2.0)
    Array(8., dtype=float32, weak_type=True)
"""
from __future__ import annotations

from typing import Callable

from ember.primitives.lower_fun import lower_fun as _lower_fun

__all__ = ["lower_fun", "register_lowering"]


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that traces ``fun`` (ember operations) at the equation's operands."""
  rule = _lower_fun(fun, multiple_results)
  rule._ember_lowering = True
  return rule


def register_lowering(prim, rule: Callable, platform: str | None = None, inline: bool = True,
                      cacheable: bool = True) -> None:
  """Use ``rule`` (made by ``lower_fun``) to lower ``prim``. ember inlines every lowering and
  lowers each equation afresh, so ``inline`` and ``cacheable`` must keep JAX's defaults (True)."""
  if not inline or not cacheable:
    raise NotImplementedError(f"register_lowering(inline={inline}, cacheable={cacheable}): "
                              "ember inlines every lowering rule; leave both True.")
  if platform not in (None, "cpu"):
    raise NotImplementedError(f"register_lowering(platform={platform!r}): ember compiles for "
                              "the CPU only; leave platform out.")
  if not getattr(rule, "_ember_lowering", False):
    raise NotImplementedError(
        "register_lowering: ember lowers from its own StableHLO text, not through MLIR's Python "
        "bindings, so only rules made by ember.interpreters.mlir.lower_fun(fn) (fn written in "
        "ember operations) or by ember.ffi.ffi_lowering can be registered.")
  if getattr(rule, "_ember_results_list", False) and not prim.multiple_results:
    rule = (lambda list_rule: lambda *a, **k: list_rule(*a, **k)[0])(rule)  # ffi_lowering's
  prim.def_rules(lower=rule)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
