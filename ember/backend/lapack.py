"""jaxlib's LAPACK kernels on CPU: registering their custom-call targets with the client, and
emitting calls to them.

The kernels are XLA FFI handlers (``lapack_<t><routine>_ffi``, ``t`` one of s/d/c/z). They take
column-major matrices, so every matrix operand and result is given the layout whose two minor
dimensions are swapped, and they loop over ``num_batch_dims`` leading batch dimensions
themselves. Their options (``uplo``, ``mode``...) are LAPACK's one-character flags, passed as
``ui8`` attributes of ``mhlo.backend_config``, which also marks the call as a typed FFI call.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

__all__ = ["initialize_for", "lapack_call", "lapack_prefix", "register"]

_registered = False
_initialized = False
_init_lock = threading.Lock()


def register() -> None:
  """Register the kernels' custom-call targets with XLA (cheap; done when the client starts)."""
  global _registered
  if _registered:
    return
  _registered = True
  try:
    from jaxlib import xla_client as xc
    from jaxlib.cpu import _lapack
  except ImportError:  # pragma: no cover - jaxlib without LAPACK kernels
    return
  for name, capsule in _lapack.registrations().items():
    xc.register_custom_call_target(name, capsule, platform="cpu",
                                   api_version=1 if name.endswith("_ffi") else 0)


def initialize_for(text: str) -> None:
  """Point the kernels at their LAPACK routines before ``text`` (StableHLO) that calls one is
  compiled or loaded. This imports ``scipy.linalg`` (a few hundred ms), so it waits for the
  first program that needs it, as JAX's does, instead of slowing the backend's start."""
  global _initialized
  if _initialized or "lapack_" not in text:
    return
  with _init_lock:  # a second thread waits until the routines are set
    if _initialized:
      return
    try:
      from jaxlib.cpu import _lapack
    except ImportError:  # pragma: no cover - jaxlib without LAPACK kernels
      _lapack = None
    if _lapack is not None:
      _lapack.initialize()
    _initialized = True


_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


def lapack_prefix(dtype) -> str:
  """LAPACK's letter for ``dtype`` (s, d, c or z); a TypeError for other dtypes."""
  try:
    return _PREFIX[np.dtype(dtype).name]
  except KeyError:
    raise TypeError(f"LAPACK kernels take float32, float64, complex64 or complex128 arrays, "
                    f"got {np.dtype(dtype).name}") from None


def _layout(rank: int, num_batch_dims: int) -> str:
  """Column-major in the two minor dimensions of a matrix, row-major otherwise."""
  if rank - num_batch_dims == 2:
    order = [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))
  else:
    order = list(range(rank - 1, -1, -1))
  if not order:
    return "dense<> : tensor<0xindex>"
  body = str(order[0]) if len(order) == 1 else "[" + ", ".join(map(str, order)) + "]"
  return f"dense<{body}> : tensor<{rank}xindex>"


def lapack_call(ctx, routine: str, operands: Sequence, out_avals: Sequence, *,
                num_batch_dims: int, config: dict[str, str] | None = None,
                aliases: Sequence[tuple[int, int]] = ()) -> list:
  """Emit a call of ``lapack_<routine>_ffi`` and return its results.

  Args:
    ctx: the LoweringContext.
    routine: the kernel's name with its type letter, e.g. ``"spotrf"``.
    operands, out_avals: the operands (``Value``s) and the results' avals.
    num_batch_dims: the number of leading batch dimensions of every operand and result.
    config: the kernel's character flags, e.g. ``{"uplo": "L"}``.
    aliases: (result index, operand index) pairs of results written in their operand's buffer.
  """
  flags = ", ".join(f"{k} = {ord(v)} : ui8" for k, v in sorted((config or {}).items()))
  alias_attr = ", ".join(
      f"#stablehlo.output_operand_alias<output_tuple_indices = "
      f"{'[]' if len(out_avals) == 1 else f'[{r}]'}, operand_index = {o}, "
      "operand_tuple_indices = []>" for r, o in aliases)
  attrs = {
      "api_version": "1 : i32", "backend_config": '""',
      "call_target_name": f'"lapack_{routine}_ffi"', "called_computations": "[]",
      "has_side_effect": "false",
      "operand_layouts": "[" + ", ".join(_layout(v.aval.ndim, num_batch_dims)
                                         for v in operands) + "]",
      "output_operand_aliases": f"[{alias_attr}]",
      "result_layouts": "[" + ", ".join(_layout(a.ndim, num_batch_dims)
                                        for a in out_avals) + "]",
      "mhlo.backend_config": f"{{{flags}}}",
      "mhlo.frontend_attributes": f'{{num_batch_dims = "{num_batch_dims}"}}',
  }
  return ctx.op("stablehlo.custom_call", list(operands), list(out_avals), attrs)
