"""``platform_index``: which of ``lax.platform_dependent``'s branches the target platform takes.

Its param ``platforms`` holds one tuple of platform names per branch (``None`` for the default
branch, last). It has no operands and an int32 result, known once the platform is: eagerly it
is a concrete array (so ``platform_dependent`` calls that branch directly, as JAX does), and in
a compiled program it is a constant. A ``cond`` carrying the same ``branches_platforms`` lowers
only that branch (see ``control_flow/cond.py``). A platform no branch names, with no default,
raises JAX's ``NotImplementedError``.
"""
from __future__ import annotations

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import NO_OPERANDS, Primitive

__all__ = ["branch_for_platform", "lowering_platform", "platform_index_p"]


def lowering_platform() -> str:
  """The platform name programs are compiled for (``'cpu'``; JAX's ``'cuda'``/``'rocm'`` for
  GPUs)."""
  from ember.backend import lowering
  return lowering.current_platform()


def branch_for_platform(platforms, here: str | None = None) -> int:
  """The index of the branch ``platforms`` gives ``here`` (the lowering platform if None)."""
  here = here or lowering_platform()
  for i, names in enumerate(platforms):
    if names is None or here in names:
      return i
  raise NotImplementedError(f"MLIR translation rule for primitive 'platform_index(platforms="
                            f"{platforms})' not found for platform {here}")


def _platform_index_impl(*, platforms):
  from ember.backend.array import device_put_value
  index = np.int32(branch_for_platform(platforms))
  return device_put_value(index, ShapedArray((), np.int32))


def _platform_index_lower(ctx, *, platforms):
  index = np.int32(branch_for_platform(platforms, ctx.platform))
  return ctx.constant(index, ShapedArray((), np.int32))


platform_index_p = Primitive("platform_index")
platform_index_p.def_rules(abstract_eval=lambda *, platforms: ShapedArray((), np.int32),
                           impl=_platform_index_impl, lower=_platform_index_lower)


# --- rules these primitives do not have -------------------------------------------------------

for _p in (platform_index_p,):
  for _kind in ("jvp", "transpose", "batch"):
    _p.def_unsupported(_kind, NO_OPERANDS)
del _p
