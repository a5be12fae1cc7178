"""Linear-algebra primitives. For now: ``dot_general``, with ``Precision`` and
``DotAlgorithmPreset``.

``dot_general`` (params ``dimension_numbers=((lhs_contract, rhs_contract), (lhs_batch,
rhs_batch))``, ``precision``, ``preferred_element_type``, ``out_sharding``) contracts the named
dimensions of two arrays; its result has the batch dimensions, then the lhs free dimensions,
then the rhs free dimensions. Operands may have different dtypes: the result takes the "wider"
one, as XLA decides (complex over real, then larger exponent range, more mantissa bits, more
bits, signed over unsigned), or ``preferred_element_type``. It lowers to one
``stablehlo.dot_general`` (operands of different dtypes are first converted to the result's).
It is bilinear: its jvp applies it to each tangent, its transpose contracts the cotangent with
the other operand (then transposes and converts back to the operand's layout and dtype).
"""
from __future__ import annotations

import enum
from typing import Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.backend.array import check_size
from ember.backend.lowering import LoweringContext, Value, element_type
from ember.primitives.dot_config import DotAlgorithm
from ember.transforms import batching
from ember.transforms.ad_util import Zero, bilinear_jvp, is_undefined

__all__ = ["Precision", "DotAlgorithmPreset", "canonicalize_precision"]


# --- precision --------------------------------------------------------------------------------

class Precision(enum.Enum):
  """How precisely a matmul computes on accelerators; ``Precision('highest')`` also works.

  Example:
      >>> Precision("float32"), str(Precision.HIGH)
      (Precision.HIGHEST, 'HIGH')
  """
  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value):
    name = _PRECISION_NAMES.get(value) if isinstance(value, str) else None
    return None if name is None else cls[name]

  def __repr__(self):
    return f"Precision.{self.name}"

  def __str__(self):
    return self.name


_PRECISION_NAMES = {"highest": "HIGHEST", "float32": "HIGHEST", "high": "HIGH",
                    "bfloat16_3x": "HIGH", "tensorfloat32": "HIGH", "default": "DEFAULT",
                    "bfloat16": "DEFAULT", "fastest": "DEFAULT"}

class DotAlgorithmPreset(enum.Enum):
  """Named dot algorithms (input storage types, accumulation type, number of passes).

  ``DEFAULT`` lets the backend choose. On CPU, ember (like JAX) compiles ``DEFAULT``,
  ``F16_F16_F16``, ``BF16_BF16_F32``, ``BF16_BF16_F32_X3``, ``BF16_BF16_F32_X6``,
  ``F32_F32_F32`` and ``F64_F64_F64``; others raise a ValueError when lowered.

  Example:
      >>> DotAlgorithmPreset.F32_F32_F32.accumulation_type
      <class 'numpy.float32'>
  """
  DEFAULT = 1
  ANY_F8_ANY_F8_F32 = 2
  ANY_F8_ANY_F8_F32_FAST_ACCUM = 3
  ANY_F8_ANY_F8_ANY = 4
  ANY_F8_ANY_F8_ANY_FAST_ACCUM = 5
  F16_F16_F16 = 6
  F16_F16_F32 = 7
  BF16_BF16_BF16 = 8
  BF16_BF16_F32 = 9
  BF16_BF16_F32_X3 = 10
  BF16_BF16_F32_X6 = 11
  BF16_BF16_F32_X9 = 12
  TF32_TF32_F32 = 13
  TF32_TF32_F32_X3 = 14
  F32_F32_F32 = 15
  F64_F64_F64 = 16

  def __repr__(self):
    return f"DotAlgorithmPreset.{self.name}"

  def __str__(self):
    return self.name

  @property
  def supported_lhs_types(self) -> tuple | None:
    """The operand types the algorithm takes as they are (others are converted)."""
    name = self.name
    if name == "DEFAULT" or name.startswith("ANY_F8"):
      return None
    if name.startswith("F16_"):
      return (np.float16,)
    if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
      return (dtypes.bfloat16, np.float32)
    return (np.float64,) if name == "F64_F64_F64" else (np.float32,)

  supported_rhs_types = supported_lhs_types

  @property
  def accumulation_type(self):
    """The type the algorithm accumulates in (None when it is free to choose)."""
    if self.name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
      return None
    if self.name in ("F16_F16_F16", "BF16_BF16_BF16"):
      return np.float16 if self.name.startswith("F16") else dtypes.bfloat16
    return np.float64 if self.name == "F64_F64_F64" else np.float32


_CPU_PRESETS = {"DEFAULT", "F16_F16_F16", "BF16_BF16_F32", "BF16_BF16_F32_X3",
                "BF16_BF16_F32_X6", "F32_F32_F32", "F64_F64_F64"}


def _precision_error(precision) -> ValueError:
  return ValueError(
      "Precision argument must be one of: None; a string in "
      f"{list(_PRECISION_NAMES)}; a lax.Precision value; a tuple of two lax.Precision values or "
      "of two such strings; a lax.DotAlgorithmPreset or the name of one; but got "
      f"{precision}.")


def canonicalize_precision(precision):
  """The ``precision`` param for a user's ``precision`` argument.

  None (or the ``jax_default_matmul_precision`` config when set), a pair of ``Precision``, or a
  ``DotAlgorithmPreset``.

  Example:
      >>> canonicalize_precision("highest")
      (Precision.HIGHEST, Precision.HIGHEST)
  """
  if precision is None:
    from ember.config import config
    default = config.jax_default_matmul_precision
    return None if default is None else canonicalize_precision(default)
  if isinstance(precision, Precision):
    return (precision, precision)
  if isinstance(precision, (DotAlgorithmPreset, DotAlgorithm)):
    return precision
  if isinstance(precision, str):
    if precision in _PRECISION_NAMES:
      p = Precision(precision)
      return (p, p)
    if precision in DotAlgorithmPreset.__members__:
      return DotAlgorithmPreset[precision]
    raise _precision_error(precision)
  if isinstance(precision, (tuple, list)) and len(precision) == 2:
    if all(isinstance(p, Precision) for p in precision):
      return tuple(precision)
    if all(isinstance(p, str) and p in _PRECISION_NAMES for p in precision):
      return tuple(Precision(p) for p in precision)
  raise _precision_error(precision)


# --- dot_general ------------------------------------------------------------------------------

def _check_dims(side: str, aval: ShapedArray, contract: Sequence[int], batch: Sequence[int]):
  if any(not 0 <= d < aval.ndim for d in tuple(contract) + tuple(batch)):
    raise TypeError(f"dot_general requires {side} dimension numbers to be nonnegative and less "
                    f"than the number of axes of the {side} value, got {side}_batch of "
                    f"{tuple(batch)} and {side}_contracting of {tuple(contract)} for {side} of "
                    f"rank {aval.ndim}")
  if len(set(contract)) != len(contract):
    raise TypeError(f"dot_general requires {side} contracting dimensions to be distinct, got "
                    f"{side}_contracting {tuple(contract)}.")
  if len(set(batch)) != len(batch):
    raise TypeError(f"dot_general requires {side} batch dimensions to be distinct, got "
                    f"{side}_batch {tuple(batch)}.")
  if set(batch) & set(contract):
    raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint from "
                    f"contracting dimensions, got {side}_batch {tuple(batch)} and "
                    f"{side}_contracting {tuple(contract)}.")


def _dot_shape(lhs: ShapedArray, rhs: ShapedArray, dimension_numbers) -> tuple[int, ...]:
  (lc, rc), (lb, rb) = dimension_numbers
  if len(lb) != len(rb):
    raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, "
                    f"got lhs_batch {tuple(lb)} and rhs_batch {tuple(rb)}.")
  _check_dims("lhs", lhs, lc, lb)
  _check_dims("rhs", rhs, rc, rb)
  lb_shape = tuple(lhs.shape[d] for d in lb)
  rb_shape = tuple(rhs.shape[d] for d in rb)
  if lb_shape != rb_shape:
    raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                    f"the same shape, got {lb_shape} and {rb_shape}.")
  lc_shape = tuple(lhs.shape[d] for d in lc)
  rc_shape = tuple(rhs.shape[d] for d in rc)
  if lc_shape != rc_shape:
    raise TypeError("dot_general requires contracting dimensions to have the same shape, got "
                    f"{lc_shape} and {rc_shape}.")
  lfree = tuple(d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb)
  rfree = tuple(d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb)
  return lb_shape + lfree + rfree


def _bits(dt) -> int:
  return 1 if dt == np.bool_ else np.dtype(dt).itemsize * 8


def _precision_rank(dt) -> tuple:
  """XLA's order of "higher precision" types: complex, exponent range, mantissa, bits, sign."""
  real = np.dtype(_real_of(dt))
  is_float = dtypes.is_float(real)
  info = dtypes.finfo(real) if is_float else None
  return (dtypes.is_complex(dt), info.maxexp if is_float else -1, info.nmant if is_float else -1,
          _bits(real), not dtypes.is_unsigned(real))


def _real_of(dt):
  if not dtypes.is_complex(dt):
    return dt
  return np.float64 if np.dtype(dt) == np.complex128 else np.float32


def _dot_dtype(lhs: ShapedArray, rhs: ShapedArray, preferred, precision) -> np.dtype:
  lrank, rrank = _precision_rank(lhs.dtype), _precision_rank(rhs.dtype)
  if lrank == rrank and lhs.dtype != rhs.dtype:
    raise TypeError(f"lax.dot_general argument type error: {lhs.dtype.name}, {rhs.dtype.name}")
  result = lhs.dtype if lrank >= rrank else rhs.dtype
  if preferred is None or preferred == result:
    return result
  algorithm = isinstance(precision, (DotAlgorithmPreset, DotAlgorithm))
  if (not algorithm and not dtypes.is_float(result)
      and _bits(preferred) < _bits(_real_of(result))):
    raise TypeError("`preferred_element_type` must not be narrower than the original type, got "
                    f"preferred_element_type of {np.dtype(preferred).name} for result type of "
                    f"{result.name}.")
  return np.dtype(preferred)


def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers,
                               precision, preferred_element_type, out_sharding=None):
  shape = _dot_shape(lhs, rhs, dimension_numbers)
  dt = _dot_dtype(lhs, rhs, preferred_element_type, precision)
  check_size(shape, dt)  # (an element count beyond int64 would reach XLA, which aborts)
  return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


def _dims_attr(dimension_numbers) -> str:
  (lc, rc), (lb, rb) = dimension_numbers
  def lst(ds):
    return "[" + ", ".join(str(d) for d in ds) + "]"
  return (f"#stablehlo.dot<lhs_batching_dimensions = {lst(lb)}, rhs_batching_dimensions = "
          f"{lst(rb)}, lhs_contracting_dimensions = {lst(lc)}, rhs_contracting_dimensions = "
          f"{lst(rc)}>")


def _algorithm_attr(preset: DotAlgorithmPreset, in_dtype) -> str:
  name = preset.name
  passes = int(name.split("_X")[-1]) if "_X" in name else 1
  if name.startswith("BF16"):
    storage = "bf16"
  else:
    storage = element_type(in_dtype)
  acc = element_type(preset.accumulation_type)
  return (f"#stablehlo.dot_algorithm<lhs_precision_type = {storage}, rhs_precision_type = "
          f"{storage}, accumulation_type = {acc}, lhs_component_count = 1, rhs_component_count "
          f"= 1, num_primitive_operations = {passes}, allow_imprecise_accumulation = false>")


def _convert(ctx: LoweringContext, x: Value, dt) -> Value:
  if x.aval.dtype == np.dtype(dt):
    return x
  return ctx.op1("stablehlo.convert", [x], ShapedArray(x.aval.shape, dt))


def _dot_general_lower(ctx: LoweringContext, lhs: Value, rhs: Value, *, dimension_numbers,
                       precision, preferred_element_type, out_sharding=None) -> Value:
  if isinstance(precision, DotAlgorithm):  # none is supported on CPU, as in JAX 0.10.2
    raise ValueError(f"The precision '{precision}' is not supported by dot_general on CPU")
  out = ctx.avals_out[0]
  if lhs.aval.dtype != rhs.aval.dtype:
    lhs, rhs = _convert(ctx, lhs, out.dtype), _convert(ctx, rhs, out.dtype)
  attrs = {"dot_dimension_numbers": _dims_attr(dimension_numbers)}
  pair = precision if isinstance(precision, tuple) else (Precision.DEFAULT,) * 2
  attrs["precision_config"] = ("[" + ", ".join(f"#stablehlo<precision {p.name}>" for p in pair)
                               + "]")
  preset = precision if isinstance(precision, DotAlgorithmPreset) else None
  if preset is None or preset is DotAlgorithmPreset.DEFAULT:
    return ctx.op1("stablehlo.dot_general", [lhs, rhs], out, attrs)
  if preset.name not in _CPU_PRESETS:
    raise ValueError(f"The precision '{preset.name}' is not supported by dot_general on CPU")
  supported = [np.dtype(t) for t in preset.supported_lhs_types]
  if lhs.aval.dtype in supported:
    attrs["algorithm"] = _algorithm_attr(preset, lhs.aval.dtype)
    return ctx.op1("stablehlo.dot_general", [lhs, rhs], out, attrs)
  lhs, rhs = _convert(ctx, lhs, supported[0]), _convert(ctx, rhs, supported[0])
  acc = out.update(dtype=preset.accumulation_type, weak_type=False)
  attrs["algorithm"] = _algorithm_attr(preset, supported[0])
  res = ctx.op1("stablehlo.dot_general", [lhs, rhs], acc, attrs)
  return _convert(ctx, res, out.dtype)


def _dot_general_pp_params(params: dict) -> dict:
  """Print as JAX does: dimension numbers with lists, optional params only when set."""
  (lc, rc), (lb, rb) = params["dimension_numbers"]
  def lst(ds):
    return "[" + ", ".join(str(d) for d in ds) + "]"
  out = {"dimension_numbers": f"(({lst(lc)}, {lst(rc)}), ({lst(lb)}, {lst(rb)}))"}
  if params.get("out_sharding") is not None:
    out["out_sharding"] = params["out_sharding"]
  precision = params["precision"]
  if precision is not None:
    out["precision"] = (f"({repr(precision[0])}, {repr(precision[1])})"
                        if type(precision) is tuple else str(precision))
  if params["preferred_element_type"] is not None:
    out["preferred_element_type"] = np.dtype(params["preferred_element_type"]).name
  return out


dot_general_p = Primitive("dot_general")
dot_general_p.def_rules(abstract_eval=_dot_general_abstract_eval, lower=_dot_general_lower)
dot_general_p.def_rules(pp_params=_dot_general_pp_params)


def _free_dims(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
  return [d for d in range(ndim) if d not in contract and d not in batch]


def _transpose_lhs(ct, x_aval: ShapedArray, y, dimension_numbers, params: dict,
                   ct_y_first: bool = False):
  """The cotangent of the lhs ``x`` of ``dot_general(x, y)``: contract ``ct`` with ``y`` over
  y's free dimensions (batch dimensions stay batch), then put x's dimensions back in order.
  ``ct`` lays out batch, x free, y free dimensions (batch, y free, x free when
  ``ct_y_first``)."""
  from ember import lax
  (xc, yc), (xb, yb) = dimension_numbers
  y_aval = get_aval(y)
  x_free = _free_dims(x_aval.ndim, xc, xb)
  y_free = _free_dims(y_aval.ndim, yc, yb)
  nb = len(xb)
  start = nb if ct_y_first else nb + len(x_free)
  ct_y = tuple(range(start, start + len(y_free)))
  dims = ((ct_y, tuple(y_free)), (tuple(range(nb)), tuple(yb)))
  out = dot_general_p.bind(ct, y, dimension_numbers=dims, **params)
  # ``out`` holds batch, x free, then y's contracting dimensions in increasing order, each of
  # which stands for the x dimension it was contracted with.
  x_contract_by_y = [xc[i] for i in np.argsort(yc, kind="stable")]
  perm = tuple(int(i) for i in np.argsort(list(xb) + x_free + x_contract_by_y))
  out = lax.transpose(out, perm)
  if get_aval(out).dtype != x_aval.dtype:
    out = lax._convert_element_type(out, x_aval.dtype, x_aval.weak_type)
  return out


def _dot_general_transpose(ct, x, y, *, dimension_numbers, **params):
  """Cotangents of the undefined operand(s): the lhs directly, the rhs as the lhs of the
  swapped product (whose ``ct`` has the rhs free dimensions first)."""
  (xc, yc), (xb, yb) = dimension_numbers
  ct_x = ct_y = None
  if is_undefined(x):
    ct_x = (Zero(x.aval) if type(ct) is Zero
            else _transpose_lhs(ct, x.aval, y, dimension_numbers, params))
  if is_undefined(y):
    swapped = ((yc, xc), (yb, xb))
    ct_y = (Zero(y.aval) if type(ct) is Zero
            else _transpose_lhs(ct, y.aval, x, swapped, params, ct_y_first=True))
  return [ct_x, ct_y]


dot_general_p.def_rules(jvp=bilinear_jvp(dot_general_p), transpose=_dot_general_transpose)


# --- batching ---------------------------------------------------------------------------------

def _dot_general_batch(axis, vals, dims, *, dimension_numbers, **params):
  """Batched on both sides: the batch axes pair up as the leading dot_general batch dimension.
  On one side: the batch axis is a free dimension of that operand, left where it is; the
  output's batch axis is then its place among the free dimensions."""
  (lhs, rhs), (ld, rd) = vals, dims
  (lc, rc), (lb, rb) = dimension_numbers
  if ld is not None and rd is not None:
    dn = ((batching.bump_dims(lc, ld), batching.bump_dims(rc, rd)),
          ((ld,) + batching.bump_dims(lb, ld), (rd,) + batching.bump_dims(rb, rd)))
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), 0
  if rd is None:
    out_dim = len(lb) + sum(1 for d in _free_dims(get_aval(lhs).ndim - 1, lc, lb) if d < ld)
    dn = ((batching.bump_dims(lc, ld), rc), (batching.bump_dims(lb, ld), rb))
  else:
    lhs_free = len(_free_dims(get_aval(lhs).ndim, lc, lb))
    out_dim = len(lb) + lhs_free + sum(1 for d in _free_dims(get_aval(rhs).ndim - 1, rc, rb)
                                       if d < rd)
    dn = ((lc, batching.bump_dims(rc, rd)), (lb, batching.bump_dims(rb, rd)))
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), out_dim


dot_general_p.def_rules(batch=_dot_general_batch)
