"""Primitives that make an array from static parameters: ``empty`` and ``rng_uniform``.

``empty`` (params ``shape``, ``dtype``, ``out_sharding``) is an array whose values the program
may leave unset; ember's backends fill it with zeros, as JAX's CPU lowering does. Its ``dtype``
param is kept as the user spelled it (JAX prints it so) and is not canonicalized: like JAX,
``empty(shape, 'float64')`` is a float64 array even with x64 off.

``rng_uniform`` (param ``shape``) draws from XLA's stateful generator, uniform in ``[a, b)``;
its values differ between calls and programs. It has no derivative and no batching rule (as in
JAX); its operands must be scalars of one dtype, a 32- or 64-bit integer or a float.
"""
from __future__ import annotations

import enum

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NO_OPERANDS, Primitive
from ember.backend.array import check_size
from ember.backend.lowering import i64_array
from ember.primitives.structural import broadcast_in_dim_p

__all__ = []  # reached through ember.lax


class _Spelled:
  """A param value printed as the user's object prints (``<class 'numpy.float32'>``)."""
  __slots__ = ("value",)

  def __init__(self, value):
    self.value = value

  def __str__(self):
    return str(self.value)


def empty_dtype(dtype) -> np.dtype:
  """The NumPy dtype of ``empty``'s ``dtype`` param (None is NumPy's default, float64)."""
  try:
    return dtypes.dtype(dtype) if dtype is not None else np.dtype(np.float64)
  except TypeError:
    raise TypeError(f"empty: {dtype!r} is not a valid dtype.") from None


# --- empty ------------------------------------------------------------------------------------

def _empty_abstract_eval(*, shape, dtype, out_sharding):
  if any(d < 0 for d in shape):
    raise ValueError(f"empty: shape must have nonnegative dimensions, got {shape}.")
  dt = empty_dtype(dtype)
  check_size(shape, dt)
  return ShapedArray(shape, dt)


def _empty_lower(ctx, *, shape, dtype, out_sharding):
  out = ctx.avals_out[0]
  zero = ctx.constant(np.zeros((), out.dtype), ShapedArray((), out.dtype))
  return ctx.op1("stablehlo.broadcast_in_dim", [zero], out,
                 {"broadcast_dimensions": i64_array(())})


def _empty_pp(params):
  dtype = params["dtype"]
  shown = _Spelled(dtype) if isinstance(dtype, type) else dtype
  return {"dtype": shown, "out_sharding": params["out_sharding"], "shape": params["shape"]}


empty_p = Primitive("empty")
empty_p.def_rules(abstract_eval=_empty_abstract_eval, lower=_empty_lower)
empty_p.def_rules(pp_params=_empty_pp)


# --- empty2 -----------------------------------------------------------------------------------

class MemorySpace(enum.Enum):
  """Where an array's memory lives (printed ``MemorySpace.Device``, as JAX's)."""
  Device = "device"
  Host = "host"
  Any = "any"

  def __str__(self):
    return f"MemorySpace.{self.name}"


def _empty2_abstract_eval(*, dtype, memory_space):
  return ShapedArray((), np.dtype(dtype))


def _empty2_lower(ctx, *, dtype, memory_space):
  return ctx.constant(np.zeros((), np.dtype(dtype)), ShapedArray((), np.dtype(dtype)))


# A scalar with no defined value (ember's is zero): partial evaluation of ``cond`` fills the
# residual slots a branch does not use with it, broadcast to the slot's shape, as JAX does.
empty2_p = Primitive("empty2")
empty2_p.def_rules(abstract_eval=_empty2_abstract_eval, lower=_empty2_lower)


def empty_like(aval: ShapedArray):
  """``empty2`` broadcast to ``aval``'s shape (JAX's ``empty_like`` of an aval)."""
  out = empty2_p.bind(dtype=np.dtype(aval.dtype), memory_space=MemorySpace.Device)
  if not aval.shape:
    return out
  return broadcast_in_dim_p.bind(out, shape=tuple(aval.shape), broadcast_dimensions=(),
                                 sharding=None)


# --- rng_uniform ------------------------------------------------------------------------------

_RNG_DTYPES = frozenset(np.dtype(t) for t in (
    np.int32, np.int64, np.uint32, np.uint64, np.float16, dtypes.bfloat16, np.float32,
    np.float64))


def _rng_uniform_abstract_eval(a, b, *, shape):
  if a.dtype != b.dtype:
    raise ValueError("Arguments to rng_uniform must have identical dtypes, got "
                     f"{a.dtype.name} and {b.dtype.name}.")
  if a.shape or b.shape:
    raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                     f"{b.shape}.")
  if a.dtype not in _RNG_DTYPES:
    raise TypeError(f"rng_uniform does not accept dtype {a.dtype.name}: its bounds must be "
                    "32- or 64-bit integers or floats (XLA's generator takes no others).")
  if any(d < 0 for d in shape):
    raise ValueError(f"rng_uniform: shape must have nonnegative dimensions, got {shape}.")
  check_size(shape, a.dtype)
  return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lower(ctx, a, b, *, shape):
  dims = ctx.constant(np.asarray(shape, np.int64), ShapedArray((len(shape),), np.int64))
  return ctx.op1("stablehlo.rng", [a, b, dims],
                 attrs={"rng_distribution": "#stablehlo<rng_distribution UNIFORM>"})


rng_uniform_p = Primitive("rng_uniform")
rng_uniform_p.def_rules(abstract_eval=_rng_uniform_abstract_eval, lower=_rng_uniform_lower)
rng_uniform_p.def_unsupported("jvp", "it draws from a stateful generator (as in JAX)")
rng_uniform_p.def_unsupported("transpose", "it is not linear")
rng_uniform_p.def_unsupported("batch", "it draws from a stateful generator (as in JAX)")


# --- rules these primitives do not have -------------------------------------------------------

for _p in (empty_p, empty2_p):
  for _kind in ("jvp", "transpose", "batch"):
    _p.def_unsupported(_kind, NO_OPERANDS)
del _p
