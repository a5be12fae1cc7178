"""Gather and scatter: XLA's general indexed read and indexed update.

``gather`` reads one window of ``operand`` per index vector of ``indices`` (the last axis of
``indices`` holds the vectors); ``scatter`` and its combining variants (``scatter-add``,
``scatter-sub``, ``scatter-mul``, ``scatter-min``, ``scatter-max``) write one window of
``updates`` per index vector. How out-of-bounds windows behave is a ``GatherScatterMode``:
CLIP clamps start indices so the window fits; FILL_OR_DROP fills gathered windows with
``fill_value`` and drops scattered ones; PROMISE_IN_BOUNDS leaves it to XLA (gathers clamp,
scatters drop).

Example:
    >>> GatherScatterMode.from_any("clip")
    <GatherScatterMode.CLIP: 1>
"""
from __future__ import annotations

import enum
import functools
import math
import warnings
from typing import NamedTuple, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.jaxpr import Jaxpr
from ember.core.trace import NOT_LINEAR, Primitive
from ember.backend import lowering
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives import elementwise as ew
from ember.primitives import structural as st
from ember.core.trace import get_aval
from ember.transforms import batching
from ember.transforms.ad_util import Zero, defjvp, instantiate, is_undefined, tangent_aval

__all__ = ["GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode"]


class GatherDimensionNumbers(NamedTuple):
  """How a gather maps index vectors and slices to the output (XLA's gather dimension numbers).

  ``offset_dims``: output dimensions holding the slice; ``collapsed_slice_dims``: operand
  dimensions of slice size 1 dropped from the output; ``start_index_map``: which operand
  dimension each component of an index vector indexes; the batching pairs name operand and
  index dimensions gathered in lockstep.

  Example (gather whole rows):
      >>> import numpy as np
      >>> from ember import lax
      >>> dn = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
      ...                             start_index_map=(0,))
      >>> x = np.arange(6, dtype=np.int32).reshape(3, 2)
      >>> lax.gather(x, np.array([[2], [0]]), dn, slice_sizes=(1, 2))
      Array([[4, 5],
             [0, 1]], dtype=int32)
  """
  offset_dims: tuple[int, ...]
  collapsed_slice_dims: tuple[int, ...]
  start_index_map: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
  """How a scatter maps update windows and index vectors to the operand (XLA's scatter numbers).

  ``update_window_dims``: dimensions of ``updates`` inside a window; ``inserted_window_dims``:
  operand dimensions of window size 1 absent from ``updates``;
  ``scatter_dims_to_operand_dims``: which operand dimension each index component indexes.

  Example (write a whole row):
      >>> import numpy as np
      >>> from ember import lax
      >>> dn = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
      ...                              scatter_dims_to_operand_dims=(0,))
      >>> lax.scatter(np.zeros((3, 2), np.int32), np.array([[2]]), np.array([[7, 8]], np.int32),
      ...             dn)
      Array([[0, 0],
             [0, 0],
             [7, 8]], dtype=int32)
  """
  update_window_dims: tuple[int, ...]
  inserted_window_dims: tuple[int, ...]
  scatter_dims_to_operand_dims: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
  """What gather and scatter do with windows that are not entirely in bounds.

  CLIP: clamp start indices so the whole window is in bounds. FILL_OR_DROP: a gathered window
  that is partly out of bounds is all ``fill_value``; such a scattered window is skipped.
  PROMISE_IN_BOUNDS: the caller promises in-bounds indices (XLA then clamps gathers and drops
  scatters). ONE_HOT: not supported by gather or scatter lowering.

  Example (index 5 is out of bounds):
      >>> import numpy as np
      >>> from ember import lax
      >>> dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
      ...                                 start_index_map=(0,))
      >>> x, i = np.arange(4, dtype=np.int32), np.array([[3], [5]])
      >>> lax.gather(x, i, dn, (1,), mode=GatherScatterMode.CLIP)
      Array([3, 3], dtype=int32)
      >>> lax.gather(x, i, dn, (1,), mode=GatherScatterMode.FILL_OR_DROP, fill_value=-1)
      Array([ 3, -1], dtype=int32)
  """
  CLIP = enum.auto()
  FILL_OR_DROP = enum.auto()
  PROMISE_IN_BOUNDS = enum.auto()
  ONE_HOT = enum.auto()

  @staticmethod
  def from_any(s) -> "GatherScatterMode":
    """The mode named by ``s``: a mode, 'clip', 'fill'/'drop' or None, 'promise_in_bounds'...

    Example:
        >>> GatherScatterMode.from_any(None)
        <GatherScatterMode.FILL_OR_DROP: 2>
    """
    if isinstance(s, GatherScatterMode):
      return s
    if s == "clip":
      return GatherScatterMode.CLIP
    if s is None or s == "fill" or s == "drop":
      return GatherScatterMode.FILL_OR_DROP
    if s == "promise_in_bounds":
      return GatherScatterMode.PROMISE_IN_BOUNDS
    if s == "one_hot":
      return GatherScatterMode.ONE_HOT
    raise ValueError(f'Unknown gather mode "{s}"')


# --- shared checks ----------------------------------------------------------------------------

def _is_sorted(dims, op: str, name: str) -> None:
  if any(b < a for a, b in zip(dims, dims[1:])):
    raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _no_duplicates(dims, op: str, name: str) -> None:
  if len(set(dims)) != len(dims):
    raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _in_range(dims, rank: int, op: str, name: str) -> None:
  for d in dims:
    if not 0 <= d < rank:
      raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {d}.")


def _disjoint(a, b, op: str, name_a: str, name_b: str) -> None:
  if set(a) & set(b):
    raise TypeError(f"{name_a} and {name_b} in {op} op must be disjoint; got: {a} and {b}.")


def _check_indices_dtype(indices: ShapedArray) -> None:
  if not dtypes.is_integer(indices.dtype):
    raise ValueError("indices must have an integer type")


def _check_batching(op, operand, indices, operand_dims, index_dims, index_name) -> None:
  _no_duplicates(operand_dims, op, "operand_batching_dims")
  _is_sorted(operand_dims, op, "operand_batching_dims")
  _in_range(operand_dims, operand.ndim, op, "operand_batching_dims")
  _no_duplicates(index_dims, op, index_name)
  _in_range(index_dims, indices.ndim, op, index_name)
  if indices.ndim - 1 in index_dims:
    raise TypeError(f"{op.capitalize()} op cannot have the index vector dimension as a batching "
                    f"dimension; got {index_dims}.")
  if len(operand_dims) != len(index_dims):
    raise TypeError(f"{op.capitalize()} op requires equal numbers of operand_batching_dims and "
                    f"{index_name}, got {operand_dims} and {index_dims}.")
  op_batch = tuple(operand.shape[d] for d in operand_dims)
  idx_batch = tuple(indices.shape[d] for d in index_dims)
  if op_batch != idx_batch:
    raise TypeError(f"{op.capitalize()} op requires operand batching dimensions and indices "
                    f"batching dimensions to have the same shape, got {op_batch} and "
                    f"{idx_batch}.")


def _check_mode(mode) -> None:
  if not isinstance(mode, GatherScatterMode):
    raise TypeError(f"mode must be a GatherScatterMode, got {mode!r}")


# --- gather -----------------------------------------------------------------------------------

def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                          indices_are_sorted, mode, fill_value):
  dn = dimension_numbers
  if not isinstance(dn, GatherDimensionNumbers):
    raise TypeError("gather dimension_numbers must be a lax.GatherDimensionNumbers, got "
                    f"{dn!r}")
  _check_mode(mode)
  _check_indices_dtype(indices)
  if indices.ndim < 1:
    raise TypeError("Gather indices must have rank >= 1 (the last axis holds the index "
                    f"vectors), got indices of shape {indices.shape}.")
  out_rank = len(dn.offset_dims) + indices.ndim - 1
  _is_sorted(dn.offset_dims, "gather", "offset_dims")
  _no_duplicates(dn.offset_dims, "gather", "offset_dims")
  for i, d in enumerate(dn.offset_dims):
    if not 0 <= d < out_rank:
      raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but should "
                      f"have been in [0, {out_rank})")
  if len(dn.start_index_map) != indices.shape[-1]:
    raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map and "
                    f"the bound of dimension index_vector_dim={indices.ndim - 1} of indices is "
                    f"{indices.shape[-1]}. These two numbers must be equal.")
  for i, d in enumerate(dn.start_index_map):
    if not 0 <= d < operand.ndim:
      raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: {i}->{d}.")
  _no_duplicates(dn.start_index_map, "gather", "start_index_map")
  _is_sorted(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
  _in_range(dn.collapsed_slice_dims, operand.ndim, "gather", "collapsed_slice_dims")
  _no_duplicates(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
  _check_batching("gather", operand, indices, dn.operand_batching_dims,
                  dn.start_indices_batching_dims, "start_indices_batching_dims")
  _disjoint(dn.collapsed_slice_dims, dn.operand_batching_dims, "gather",
            "collapsed_slice_dims", "operand_batching_dims")
  _disjoint(dn.start_index_map, dn.operand_batching_dims, "gather", "start_index_map",
            "operand_batching_dims")
  if len(slice_sizes) != operand.ndim:
    raise TypeError("Gather op must have one slice size for every input dimension; got: "
                    f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
  if len(slice_sizes) != (len(dn.offset_dims) + len(dn.collapsed_slice_dims)
                          + len(dn.operand_batching_dims)):
    raise TypeError("All components of the offset index in a gather op must either be a offset "
                    f"dimension or explicitly collapsed/batching; got len(slice_sizes)="
                    f"{len(slice_sizes)}, output_slice_sizes={dn.offset_dims}, "
                    f"collapsed_slice_dims={dn.collapsed_slice_dims}, operand_batching_dims="
                    f"{dn.operand_batching_dims}.")
  if indices.size:
    for i, (s, d) in enumerate(zip(slice_sizes, operand.shape)):
      if not 0 <= s <= d:
        raise TypeError(f"Slice size at index {i} in gather op is out of range, must be within "
                        f"[0, {d} + 1), got {s}.")
  for i, d in enumerate(dn.collapsed_slice_dims):
    if slice_sizes[d] != 1:
      raise TypeError("Gather op can only collapse slice dims with bound 1, but bound is "
                      f"{slice_sizes[d]} for index {d} at position {i}.")
  for i, d in enumerate(dn.operand_batching_dims):
    if slice_sizes[d] > 1:
      raise TypeError("Gather op can only have operand batching dims with bound 0/1, but bound "
                      f"is {slice_sizes[d]} for index {d} at position {i}.")
  return ShapedArray(_gather_shape(indices, dn, slice_sizes), operand.dtype, operand.weak_type)


def _gather_shape(indices, dn: GatherDimensionNumbers, slice_sizes) -> tuple[int, ...]:
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  window = iter(s for i, s in enumerate(slice_sizes) if i not in dropped)
  batch = iter(indices.shape[:-1])
  rank = len(dn.offset_dims) + indices.ndim - 1
  return tuple(next(window) if i in dn.offset_dims else next(batch) for i in range(rank))


def _dims_attr(fields: dict) -> str:
  return ", ".join(f"{k} = [{', '.join(str(int(d)) for d in v)}]" if isinstance(v, tuple)
                   else f"{k} = {v}" for k, v in fields.items()
                   if not isinstance(v, tuple) or v)


def _gather_op(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out) -> Value:
  fields = {"offset_dims": tuple(dn.offset_dims),
            "collapsed_slice_dims": tuple(dn.collapsed_slice_dims),
            "operand_batching_dims": tuple(dn.operand_batching_dims),
            "start_indices_batching_dims": tuple(dn.start_indices_batching_dims),
            "start_index_map": tuple(dn.start_index_map),
            "index_vector_dim": indices.aval.ndim - 1}
  return ctx.op1("stablehlo.gather", [operand, indices], out, {
      "dimension_numbers": f"#stablehlo.gather<{_dims_attr(fields)}>",
      "slice_sizes": i64_array(slice_sizes),
      "indices_are_sorted": "true" if indices_are_sorted else "false"})


def _compare(ctx, a: Value, b: Value, direction: str) -> Value:
  kind = "UNSIGNED" if dtypes.is_unsigned(a.aval.dtype) else "SIGNED"
  return ctx.op1("stablehlo.compare", [a, b], a.aval.update(dtype=np.bool_, weak_type=False),
                 {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
                  "compare_type": f"#stablehlo<comparison_type {kind}>"})


def _index_bounds(ctx, indices: Value, upper: Sequence[int]) -> Value:
  """``upper`` (one bound per index component) as a constant of ``indices``' type, clamped to
  the index dtype's range and broadcast along the index vector axis."""
  dt = indices.aval.dtype
  hi = np.minimum(np.asarray(upper, np.int64), np.iinfo(dt).max).astype(dt)
  vec = ctx.constant(hi, ShapedArray((len(upper),), dt))
  return ctx.op1("stablehlo.broadcast_in_dim", [vec], indices.aval.update(weak_type=False),
                 {"broadcast_dimensions": i64_array([indices.aval.ndim - 1])})


def _in_bounds_mask(ctx, indices: Value, upper: Sequence[int]) -> Value:
  """bool[batch...]: whether every component of each index vector lies in [0, upper]."""
  aval = indices.aval.update(weak_type=False)
  indices = Value(indices.name, aval)
  ok = _compare(ctx, indices, _index_bounds(ctx, indices, upper), "LE")
  if not dtypes.is_unsigned(aval.dtype):
    zero = ctx.constant(np.zeros((), aval.dtype), aval)
    ok = ctx.op1("stablehlo.and", [ok, _compare(ctx, indices, zero, "GE")], ok.aval)
  scalar = ShapedArray((), np.bool_)
  init = ctx.constant(np.array(True), scalar)
  region = ctx.reduction_region([scalar], lambda c, acc, x: [c.op1("stablehlo.and",
                                                                  [acc[0], x[0]], scalar)])
  out = ShapedArray(aval.shape[:-1], np.bool_)
  return ctx.op1("stablehlo.reduce", [ok, init], out, {"dimensions": i64_array([aval.ndim - 1])},
                 regions=[region])


def _cast_scalar(value, dtype) -> np.ndarray:
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    return np.asarray(value).astype(dtype)


def _gather_lower(ctx, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
  out = ctx.avals_out[0]
  dn = dimension_numbers
  if mode == GatherScatterMode.ONE_HOT:
    raise NotImplementedError("gather does not support mode=GatherScatterMode.ONE_HOT; use "
                              "'clip', 'fill' or 'promise_in_bounds'.")
  if out.size == 0:
    return ctx.constant(np.zeros((), out.dtype), out)
  result = _gather_op(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out)
  if mode != GatherScatterMode.FILL_OR_DROP:
    return result  # XLA's gather clamps start indices, which is what CLIP asks for
  upper = [operand.aval.shape[d] - slice_sizes[d] for d in dn.start_index_map]
  mask = _in_bounds_mask(ctx, indices, upper)
  batch_dims = [i for i in range(out.ndim) if i not in dn.offset_dims]
  mask = ctx.op1("stablehlo.broadcast_in_dim", [mask], out.update(dtype=np.bool_,
                                                                  weak_type=False),
                 {"broadcast_dimensions": i64_array(batch_dims)})
  fill = ctx.constant(_cast_scalar(fill_value, out.dtype), out)
  return ctx.op1("stablehlo.select", [mask, result, fill])


gather_p = Primitive("gather")
gather_p.def_rules(abstract_eval=_gather_abstract_eval, lower=_gather_lower)


def _gather_jvp(t, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
  """The tangent gathers the same windows; out-of-bounds windows get a zero tangent."""
  fill = 0 if mode == GatherScatterMode.FILL_OR_DROP else None
  return gather_p.bind(t, indices, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                       unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                       mode=mode, fill_value=fill)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
  """Scatter-add the cotangent's windows into zeros of the operand's shape."""
  from ember import lax
  if not is_undefined(operand):
    return [None, None]
  if type(ct) is Zero:
    return [Zero(operand.aval), None]
  dn = dimension_numbers
  scatter_dn = ScatterDimensionNumbers(
      update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
      scatter_dims_to_operand_dims=dn.start_index_map,
      operand_batching_dims=dn.operand_batching_dims,
      scatter_indices_batching_dims=dn.start_indices_batching_dims)
  zeros = lax.full(operand.aval.shape, 0, get_aval(ct).dtype)
  out = lax.scatter_add(zeros, indices, ct, scatter_dn, unique_indices=unique_indices,
                        indices_are_sorted=indices_are_sorted, mode=mode)
  return [out, None]


defjvp(gather_p, _gather_jvp, None)
gather_p.def_rules(transpose=_gather_transpose)


# --- scatter ----------------------------------------------------------------------------------

def _scatter_abstract_eval(operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
  dn = dimension_numbers
  if not isinstance(dn, ScatterDimensionNumbers):
    raise TypeError("scatter dimension_numbers must be a lax.ScatterDimensionNumbers, got "
                    f"{dn!r}")
  _check_mode(mode)
  _check_indices_dtype(indices)
  ew._same_dtypes("scatter", (operand, updates), None)
  if indices.ndim < 1:
    raise TypeError("Scatter indices must have rank >= 1 (the last axis holds the index "
                    f"vectors), got indices of shape {indices.shape}.")
  expected = indices.ndim - 1 + len(dn.update_window_dims)
  if updates.ndim != expected:
    raise TypeError(f"Updates tensor must be of rank {expected}; got {updates.ndim}.")
  _is_sorted(dn.update_window_dims, "scatter", "update_window_dims")
  _no_duplicates(dn.update_window_dims, "scatter", "update_window_dims")
  _in_range(dn.update_window_dims, updates.ndim, "scatter", "update_window_dims")
  _is_sorted(dn.inserted_window_dims, "scatter", "inserted_window_dims")
  _no_duplicates(dn.inserted_window_dims, "scatter", "inserted_window_dims")
  _in_range(dn.inserted_window_dims, operand.ndim, "scatter", "inserted_window_dims")
  _check_batching("scatter", operand, indices, dn.operand_batching_dims,
                  dn.scatter_indices_batching_dims, "scatter_indices_batching_dims")
  _disjoint(dn.inserted_window_dims, dn.operand_batching_dims, "scatter",
            "inserted_window_dims", "operand_batching_dims")
  _disjoint(dn.scatter_dims_to_operand_dims, dn.operand_batching_dims, "scatter",
            "scatter_dims_to_operand_dims", "operand_batching_dims")
  window = len(dn.update_window_dims) + len(dn.inserted_window_dims) + \
      len(dn.operand_batching_dims)
  if operand.ndim != window:
    raise TypeError(f"Scatter op has window of size {window}; doesn't match operand of rank "
                    f"{operand.ndim}.")
  if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
    raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                    "scatter_dims_to_operand_dims and the bound of dimension index_vector_dim="
                    f"{indices.ndim - 1} of indices is {indices.shape[-1]}. These two numbers "
                    "must be equal")
  for i, d in enumerate(dn.scatter_dims_to_operand_dims):
    if not 0 <= d < operand.ndim:
      raise TypeError("Invalid scatter_dims_to_operand_dims mapping; domain is "
                      f"[0, {operand.ndim}), got: {i}->{d}.")
  _no_duplicates(dn.scatter_dims_to_operand_dims, "scatter", "scatter_dims_to_operand_dims")
  _check_scatter_bounds(operand, indices, updates, dn)
  return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _check_scatter_bounds(operand, indices, updates, dn) -> None:
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  max_sizes = [d for i, d in enumerate(operand.shape) if i not in dropped]
  for i, u in enumerate(dn.update_window_dims):
    if max_sizes[i] < updates.shape[u]:
      raise TypeError("Bounds of the window dimensions of updates must not exceed the bounds of "
                      f"the corresponding dimensions of operand. For dimension {u}, updates "
                      f"bound is {updates.shape[u]}, operand bound is {max_sizes[i]}.")
  scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  for i, d in zip(scatter_dims, indices.shape[:-1]):
    if updates.shape[i] != d:
      raise TypeError("Bounds of the scatter dimensions of updates must be the same as the "
                      "bounds of the corresponding dimensions of scatter indices. For scatter "
                      f"dimension {i}, updates bound is {updates.shape[i]}, indices bound is "
                      f"{d}.")


def _clamp_indices(ctx, operand: Value, indices: Value, updates: Value, dn) -> Value:
  """Clamp scatter start indices so that every update window fits inside the operand."""
  window = iter(updates.aval.shape[d] for d in dn.update_window_dims)
  sizes = [1 if i in dn.inserted_window_dims or i in dn.operand_batching_dims else next(window)
           for i in range(operand.aval.ndim)]
  upper = [operand.aval.shape[d] - sizes[d] for d in dn.scatter_dims_to_operand_dims]
  aval = indices.aval.update(weak_type=False)
  indices = Value(indices.name, aval)
  zero = ctx.constant(np.zeros((), aval.dtype), aval)
  return ctx.op1("stablehlo.clamp", [zero, indices, _index_bounds(ctx, indices, upper)], aval)


def _scatter_lower(ctx, operand, indices, updates, *, update_jaxpr, update_consts,
                   dimension_numbers, indices_are_sorted, unique_indices, mode):
  dn = dimension_numbers
  if mode == GatherScatterMode.ONE_HOT:
    raise NotImplementedError("scatter does not support mode=GatherScatterMode.ONE_HOT; use "
                              "'clip', 'drop' or 'promise_in_bounds'.")
  if mode == GatherScatterMode.CLIP:
    indices = _clamp_indices(ctx, operand, indices, updates, dn)
  out = ctx.avals_out[0]
  scalar = ShapedArray((), out.dtype)

  def combine(sub: LoweringContext, acc, x):
    if update_jaxpr is None:
      return [x[0]]
    consts = [sub.constant(c, v.aval) for c, v in zip(update_consts, update_jaxpr.constvars)]
    args = [Value(acc[0].name, update_jaxpr.invars[0].aval),
            Value(x[0].name, update_jaxpr.invars[1].aval)]
    outs = lowering.lower_jaxpr(sub, update_jaxpr, consts, args)
    return [Value(outs[0].name, scalar)]

  fields = {"update_window_dims": tuple(dn.update_window_dims),
            "inserted_window_dims": tuple(dn.inserted_window_dims),
            "input_batching_dims": tuple(dn.operand_batching_dims),
            "scatter_indices_batching_dims": tuple(dn.scatter_indices_batching_dims),
            "scatter_dims_to_operand_dims": tuple(dn.scatter_dims_to_operand_dims),
            "index_vector_dim": indices.aval.ndim - 1}
  region = ctx.reduction_region([scalar], combine)
  return ctx.op1("stablehlo.scatter", [operand, indices, updates], out, {
      "scatter_dimension_numbers": f"#stablehlo.scatter<{_dims_attr(fields)}>",
      "indices_are_sorted": "true" if indices_are_sorted else "false",
      "unique_indices": "true" if unique_indices else "false"}, regions=[region])


def _scatter_prim(name: str) -> Primitive:
  p = Primitive(name)
  p.def_rules(abstract_eval=_scatter_abstract_eval, lower=_scatter_lower)
  return p


scatter_p = _scatter_prim("scatter")
scatter_add_p = _scatter_prim("scatter-add")
scatter_sub_p = _scatter_prim("scatter-sub")
scatter_mul_p = _scatter_prim("scatter-mul")
scatter_min_p = _scatter_prim("scatter-min")
scatter_max_p = _scatter_prim("scatter-max")

# --- scatter: jvp and transpose rules ---------------------------------------------------------
# Most rules read back a scatter's windows with "the inverse gather": the gather whose windows
# are exactly the windows the scatter wrote.

def _inverse_gather_dnums(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
  return GatherDimensionNumbers(
      offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
      start_index_map=dn.scatter_dims_to_operand_dims,
      operand_batching_dims=dn.operand_batching_dims,
      start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _window_sizes(operand_shape, updates_shape, dn: ScatterDimensionNumbers) -> tuple:
  """The inverse gather's slice sizes: 1 on inserted and batching dimensions, else the
  size of the matching update window dimension."""
  window = iter(updates_shape[d] for d in dn.update_window_dims)
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  return tuple(1 if i in dropped else next(window) for i in range(len(operand_shape)))


def _inverse_gather(x, indices, updates_shape, dn, **kwargs):
  """The windows of ``x`` that a scatter with ``dn`` and updates of ``updates_shape`` writes."""
  from ember import lax
  sizes = _window_sizes(get_aval(x).shape, updates_shape, dn)
  return lax.gather(x, indices, _inverse_gather_dnums(dn), sizes, **kwargs)


def _aval_of(x) -> ShapedArray:
  return x.aval if is_undefined(x) else get_aval(x)


def _zero_tangent(out):
  return Zero(tangent_aval(get_aval(out)))


def _scatter_params(params: dict) -> dict:
  """The keyword arguments of the lax scatter wrappers among a scatter's params."""
  return {k: params[k] for k in ("indices_are_sorted", "unique_indices", "mode")}


def _zero_cotangents(operand, updates) -> list:
  return [Zero(operand.aval) if is_undefined(operand) else None, None,
          Zero(updates.aval) if is_undefined(updates) else None]


def _scatter_linear_jvp(prim):
  """jvp of scatter-add and scatter-sub, linear in operand and updates jointly."""
  def rule(primals, tangents, **params):
    operand, indices, updates = primals
    out = prim.bind(operand, indices, updates, **params)
    t_operand, _, t_updates = tangents
    if type(t_operand) is Zero and type(t_updates) is Zero:
      return out, _zero_tangent(out)
    return out, prim.bind(instantiate(t_operand), indices, instantiate(t_updates), **params)
  return rule


def _scatter_linear_transpose(negate: bool):
  """Transpose of scatter-add (``negate=False``) and scatter-sub: the operand's cotangent is
  ``ct``, the updates' the (negated) windows of ``ct`` the scatter wrote."""
  def rule(ct, operand, indices, updates, *, dimension_numbers, **params):
    from ember import lax
    if type(ct) is Zero:
      return _zero_cotangents(operand, updates)
    ct_updates = None
    if is_undefined(updates):
      ct_updates = _inverse_gather(ct, indices, updates.aval.shape, dimension_numbers,
                                   mode=params["mode"], fill_value=0)
      if negate:
        ct_updates = lax.neg(ct_updates)
    return [ct if is_undefined(operand) else None, None, ct_updates]
  return rule


def _unique_only(unique_indices: bool, message: str) -> None:
  if not unique_indices:
    raise NotImplementedError(message)


_MUL_UNIQUE = "scatter_mul gradients are only implemented if `unique_indices=True`"


def _scatter_mul_jvp_operand(t, operand, indices, updates, **params):
  return scatter_mul_p.bind(t, indices, updates, **params)


def _scatter_mul_jvp_updates(t, operand, indices, updates, *, dimension_numbers, **params):
  """operand * (t scattered into zeros): exact when every window is written at most once."""
  from ember import lax
  _unique_only(params["unique_indices"], _MUL_UNIQUE)
  aval = get_aval(operand)
  spread = lax.scatter_add(lax.full(aval.shape, 0, aval.dtype), indices, t, dimension_numbers,
                           **_scatter_params(params))
  return lax.mul(operand, spread)


def _scatter_mul_transpose(ct, operand, indices, updates, *, dimension_numbers, **params):
  """Linear in the operand: ct scaled by the updates. For the updates (given the operand, with
  unique indices): the windows of ct * operand."""
  from ember import lax
  if type(ct) is Zero:
    return _zero_cotangents(operand, updates)
  kwargs = _scatter_params(params)
  ct_operand = ct_updates = None
  if is_undefined(operand):
    ct_operand = lax.scatter_mul(ct, indices, updates, dimension_numbers, **kwargs)
  if is_undefined(updates):
    _unique_only(params["unique_indices"], _MUL_UNIQUE)
    ct_updates = _inverse_gather(lax.mul(ct, operand), indices, updates.aval.shape,
                                 dimension_numbers, mode=params["mode"], fill_value=0)
  return [ct_operand, None, ct_updates]


def _scatter_extremal_jvp(prim):
  """jvp of scatter-min/max. Where several values tie for the result (the operand's value
  and/or updates), the tangent is the average of their tangents, as for lax.max."""
  def rule(primals, tangents, *, dimension_numbers, **params):
    from ember import lax
    operand, indices, updates = primals
    dn = dimension_numbers
    out = prim.bind(operand, indices, updates, dimension_numbers=dn, **params)
    t_operand, _, t_updates = tangents
    if type(t_operand) is Zero and type(t_updates) is Zero:
      return out, _zero_tangent(out)
    t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
    u_aval, o_aval = get_aval(updates), get_aval(operand)

    def windows(x):
      return _inverse_gather(x, indices, u_aval.shape, dn)

    def full(aval, value):
      return lax.full(aval.shape, value, aval.dtype)

    def count(flags):  # per update: how many of the flagged updates hit its element
      return windows(lax.scatter_add(full(o_aval, 0), indices, flags(), dn))

    initial, result = windows(operand), windows(out)
    won = lax.eq(updates, result)    # the update equals the result it contributed to
    kept = lax.eq(initial, result)   # the operand's value survived there
    n_won = count(lambda: lax.select(won, full(u_aval, 1), full(u_aval, 0)))
    n_refs = count(lambda: full(u_aval, 1))
    update_share = lax.select(kept, lax.div(1.0, lax.add(n_won, 1.0)), lax.div(1.0, n_won))
    update_coef = lax.select(won, update_share, full(u_aval, 0))
    operand_share = lax.select(kept, lax.div(1.0, lax.add(n_won, 1.0)),
                               full(get_aval(n_won), 0))
    # each of the n_refs updates of an element moves the operand's tangent there to its share
    operand_coef = lax.div(lax.add(-1.0, operand_share), n_refs)
    delta = lax.add(lax.mul(windows(t_operand), operand_coef), lax.mul(t_updates, update_coef))
    return out, lax.scatter_add(t_operand, indices, delta, dn, **_scatter_params(params))
  return rule


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
  """jvp of scatter. With repeated indices the winning update is unspecified, so the rule
  scatters ids, reads back which update won each element, and rebuilds both the primal and the
  tangent with a scatter-add of the winners (and of the operand where nothing was written)."""
  from ember import lax
  if update_jaxpr is not None:
    raise NotImplementedError("scatter_apply JVP not implemented")
  operand, indices, updates = primals
  dn = dimension_numbers
  params = dict(update_jaxpr=None, update_consts=update_consts, dimension_numbers=dn,
                indices_are_sorted=indices_are_sorted, mode=mode)
  t_operand, _, t_updates = tangents
  if type(t_operand) is Zero and type(t_updates) is Zero:
    out = scatter_p.bind(operand, indices, updates, unique_indices=unique_indices, **params)
    return out, _zero_tangent(out)
  t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
  if unique_indices:
    out = scatter_p.bind(operand, indices, updates, unique_indices=True, **params)
    return out, scatter_p.bind(t_operand, indices, t_updates, unique_indices=True, **params)
  kwargs = dict(indices_are_sorted=indices_are_sorted, unique_indices=False, mode=mode)
  u_shape, o_aval = get_aval(updates).shape, get_aval(operand)
  ids_shape = tuple(1 if i in dn.update_window_dims else d for i, d in enumerate(u_shape))
  n_ids = math.prod(ids_shape)
  id_dtype = np.dtype(np.uint64 if n_ids > np.iinfo(np.uint32).max else np.uint32)
  ids = lax.add(lax.reshape(lax.iota(id_dtype, n_ids), ids_shape),
                lax.full(u_shape, 1, id_dtype))  # ids start at 1: 0 marks "not written"
  written = lax.scatter(lax.full(o_aval.shape, 0, id_dtype), indices, ids, dn, **kwargs)
  winners = _inverse_gather(written, indices, u_shape, dn)

  def masked(x, keep):  # x where keep, else 0
    return lax.select(keep, x, lax.full(get_aval(x).shape, 0, get_aval(x).dtype))

  def untouched():  # the elements no update was written to keep the operand's value
    return lax.eq(written, lax.full(o_aval.shape, 0, id_dtype))

  def won():  # the updates that were the ones written
    return lax.eq(ids, winners)

  m_operand, m_updates = masked(operand, untouched()), masked(updates, won())
  m_t_operand, m_t_updates = masked(t_operand, untouched()), masked(t_updates, won())
  out = lax.scatter_add(m_operand, indices, m_updates, dn, **kwargs)
  return out, lax.scatter_add(m_t_operand, indices, m_t_updates, dn, **kwargs)


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
  """With unique indices: the operand's cotangent is ``ct`` with the written windows zeroed;
  the updates' is those windows of ``ct``."""
  from ember import lax
  _unique_only(unique_indices, "scatter transpose is only implemented where "
                               "unique_indices=True")
  if type(ct) is Zero:
    return _zero_cotangents(operand, updates)
  u_shape = _aval_of(updates).shape
  ct_operand = ct_updates = None
  if is_undefined(operand):
    zeros = lax.full(u_shape, 0, get_aval(ct).dtype)
    ct_operand = lax.scatter(ct, indices, zeros, dimension_numbers,
                             indices_are_sorted=indices_are_sorted, unique_indices=True,
                             mode=mode)
  if is_undefined(updates):
    ct_updates = _inverse_gather(ct, indices, u_shape, dimension_numbers, mode=mode,
                                 fill_value=0)
  return [ct_operand, None, ct_updates]


scatter_p.def_rules(jvp=_scatter_jvp, transpose=_scatter_transpose)
scatter_add_p.def_rules(jvp=_scatter_linear_jvp(scatter_add_p),
                        transpose=_scatter_linear_transpose(negate=False))
scatter_sub_p.def_rules(jvp=_scatter_linear_jvp(scatter_sub_p),
                        transpose=_scatter_linear_transpose(negate=True))
defjvp(scatter_mul_p, _scatter_mul_jvp_operand, None, _scatter_mul_jvp_updates)
scatter_mul_p.def_rules(transpose=_scatter_mul_transpose)
scatter_min_p.def_rules(jvp=_scatter_extremal_jvp(scatter_min_p))
scatter_max_p.def_rules(jvp=_scatter_extremal_jvp(scatter_max_p))

_COMBINERS = {"scatter-add": ew.add_p, "scatter-sub": ew.sub_p, "scatter-mul": ew.mul_p,
              "scatter-min": ew.min_p, "scatter-max": ew.max_p}


def reduction_jaxpr(fun, aval: ShapedArray) -> tuple[Jaxpr, tuple]:
  """The jaxpr of ``fun(x, y)`` on two scalars of ``aval``, and its constants."""
  from ember.transforms.staging import trace_to_jaxpr
  closed = trace_to_jaxpr(lambda x, y: [fun(x, y)], [aval, aval])
  return closed.jaxpr, tuple(closed.consts)


@functools.lru_cache(maxsize=None)
def combiner_jaxpr(prim_name: str, dtype: np.dtype) -> tuple[Jaxpr, tuple]:
  """The (cached, so jaxpr-keyed caches hit) update jaxpr of a combining scatter."""
  prim = _COMBINERS[prim_name]
  return reduction_jaxpr(prim.bind, ShapedArray((), dtype))


# --- batching ---------------------------------------------------------------------------------
# The rules fold the batch axis into the dimension numbers where it already lies, so no operand
# is transposed: an operand-only batch axis becomes one more (full-size) window dimension, an
# index batch axis one more index batch dimension, and a batch axis on both becomes one more
# operand_batching_dims / start_indices_batching_dims pair (gathered in lockstep).

def _slot(marked: Sequence[int], k: int, rank: int, current: int | None = None) -> int:
  """A position for a new axis among ``rank`` axes such that exactly ``k`` of the (sorted)
  ``marked`` axes come before it: ``current`` when it qualifies, else the first that does."""
  lo = marked[k - 1] + 1 if k else 0
  hi = marked[k] if k < len(marked) else rank
  return current if current is not None and lo <= current <= hi else lo


def _add_batching_pair(operand_dims, index_dims, operand_at: int, index_at: int):
  """The batching dimension pairs with the pair (``operand_at``, ``index_at``) added, sorted by
  operand dimension (as gather and scatter require)."""
  pairs = sorted(zip(batching.bump_dims(operand_dims, operand_at) + (operand_at,),
                     batching.bump_dims(index_dims, index_at) + (index_at,)))
  return tuple(p for p, _ in pairs), tuple(i for _, i in pairs)


def _index_batch_axis(indices, d):
  """``indices`` with its batch axis off the last position (which holds the index vectors)."""
  ndim = get_aval(indices).ndim
  if d == ndim - 1:
    return batching.moveaxis(indices, d, ndim - 2), ndim - 2
  return indices, d


def _window_rank(operand_dim: int, dropped) -> int:
  """How many window (neither collapsed nor batching) operand dimensions precede
  ``operand_dim``."""
  return sum(1 for i in range(operand_dim) if i not in dropped)


def _gather_batch(axis, vals, dims, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
  (operand, indices), (o_dim, i_dim) = vals, dims
  dn = dimension_numbers
  out_rank = len(dn.offset_dims) + get_aval(indices).ndim - 1
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  if i_dim is batching.not_mapped:
    # the batch axis is one more full-size window, the k-th offset dimension of the output
    out_dim = _slot(dn.offset_dims, _window_rank(o_dim, dropped), out_rank)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(sorted(batching.bump_dims(dn.offset_dims, out_dim) + (out_dim,))),
        collapsed_slice_dims=batching.bump_dims(dn.collapsed_slice_dims, o_dim),
        start_index_map=batching.bump_dims(dn.start_index_map, o_dim),
        operand_batching_dims=batching.bump_dims(dn.operand_batching_dims, o_dim),
        start_indices_batching_dims=dn.start_indices_batching_dims)
    slice_sizes = slice_sizes[:o_dim] + (get_aval(operand).shape[o_dim],) + slice_sizes[o_dim:]
  else:
    indices, i_dim = _index_batch_axis(indices, i_dim)
    # the output's batch dimensions follow the indices' in order
    batch_positions = [i for i in range(out_rank) if i not in dn.offset_dims]
    out_dim = _slot(batch_positions, i_dim, out_rank)
    operand_dims = dn.operand_batching_dims
    index_dims = batching.bump_dims(dn.start_indices_batching_dims, i_dim)
    collapsed, start_index_map = dn.collapsed_slice_dims, dn.start_index_map
    if o_dim is batching.not_mapped:
      # examples may now share windows: the combined indices are neither unique nor sorted
      unique_indices = indices_are_sorted = False
    else:
      operand_dims, index_dims = _add_batching_pair(
          dn.operand_batching_dims, dn.start_indices_batching_dims, o_dim, i_dim)
      collapsed = batching.bump_dims(collapsed, o_dim)
      start_index_map = batching.bump_dims(start_index_map, o_dim)
      slice_sizes = slice_sizes[:o_dim] + (1,) + slice_sizes[o_dim:]
    dn = GatherDimensionNumbers(
        offset_dims=batching.bump_dims(dn.offset_dims, out_dim), collapsed_slice_dims=collapsed,
        start_index_map=start_index_map, operand_batching_dims=operand_dims,
        start_indices_batching_dims=index_dims)
  out = gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      mode=mode, fill_value=fill_value)
  return out, out_dim


def _scatter_batch(prim):
  """The rule of scatter and its combining variants. The operand always carries the batch
  (broadcast when only the indices or updates do); the updates' batch axis is moved only
  when it does not already sit where the new dimension numbers need it."""
  def rule(axis, vals, dims, *, dimension_numbers, **params):
    (operand, indices, updates), (o_dim, i_dim, u_dim) = vals, dims
    dn = dimension_numbers
    size = batching.batch_size(vals, dims)
    u_rank = get_aval(updates).ndim - (u_dim is not batching.not_mapped)
    if o_dim is batching.not_mapped:
      operand, o_dim = batching.broadcast_dim(operand, size, 0), 0
    if i_dim is batching.not_mapped:
      # the batch axis is one more full-size window of the updates
      dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
      at = _slot(dn.update_window_dims, _window_rank(o_dim, dropped), u_rank, u_dim)
      window_dims = tuple(sorted(batching.bump_dims(dn.update_window_dims, at) + (at,)))
      operand_dims, index_dims = (batching.bump_dims(dn.operand_batching_dims, o_dim),
                                  dn.scatter_indices_batching_dims)
    else:
      indices, i_dim = _index_batch_axis(indices, i_dim)
      scatter_positions = [i for i in range(u_rank) if i not in dn.update_window_dims]
      at = _slot(scatter_positions, i_dim, u_rank, u_dim)
      window_dims = batching.bump_dims(dn.update_window_dims, at)
      operand_dims, index_dims = _add_batching_pair(
          dn.operand_batching_dims, dn.scatter_indices_batching_dims, o_dim, i_dim)
    updates = batching.matchaxis(updates, u_dim, at, size)
    dn = ScatterDimensionNumbers(
        update_window_dims=window_dims,
        inserted_window_dims=batching.bump_dims(dn.inserted_window_dims, o_dim),
        scatter_dims_to_operand_dims=batching.bump_dims(dn.scatter_dims_to_operand_dims, o_dim),
        operand_batching_dims=operand_dims, scatter_indices_batching_dims=index_dims)
    return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), o_dim
  return rule


gather_p.def_rules(batch=_gather_batch)
for _p in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
           scatter_max_p):
  _p.def_rules(batch=_scatter_batch(_p))
del _p


# --- batching dynamic_slice and dynamic_update_slice ------------------------------------------
# (declared in ember.primitives.structural; batched start indices turn them into a gather and a
# scatter, whose CLIP mode clamps start indices exactly as the dynamic ops do.)

def _stacked_start_indices(idx, idx_dims, size: int):
  """int[size, len(idx)]: the examples' start index vectors (scalar indices, some batched)."""
  from ember import lax
  cols = [lax.broadcast_in_dim(i, (size, 1), () if d is batching.not_mapped else (0,))
          for i, d in zip(idx, idx_dims)]
  return lax.concatenate(cols, 1)


def _zero_index(idx) -> np.ndarray:
  """Start index 0 along a batch axis, of the other start indices' dtype."""
  return np.zeros((), get_aval(idx[0]).dtype if idx else np.int32)


def _dynamic_slice_batch(axis, vals, dims, *, slice_sizes):
  """Batched operand only: still a dynamic_slice, taking the whole batch axis from index 0.
  Batched start indices: a gather of one window per example."""
  (x, *idx), (x_dim, *idx_dims) = vals, dims
  size = batching.batch_size(vals, dims)
  if all(d is batching.not_mapped for d in idx_dims):
    idx.insert(x_dim, _zero_index(idx))
    sizes = slice_sizes[:x_dim] + (size,) + slice_sizes[x_dim:]
    return st.dynamic_slice_p.bind(x, *idx, slice_sizes=sizes), x_dim
  every = tuple(range(len(idx)))
  dn = GatherDimensionNumbers(offset_dims=every, collapsed_slice_dims=(), start_index_map=every)
  return _gather_batch(axis, [x, _stacked_start_indices(idx, idx_dims, size)], [x_dim, 0],
                       dimension_numbers=dn, slice_sizes=slice_sizes, unique_indices=True,
                       indices_are_sorted=True, mode=GatherScatterMode.CLIP, fill_value=None)


def _dynamic_update_slice_batch(axis, vals, dims):
  """Unbatched start indices: still a dynamic_update_slice, the operand and update sharing a
  batch axis written whole from index 0. Batched start indices: a scatter of one window per
  example."""
  (x, update, *idx), (x_dim, u_dim, *idx_dims) = vals, dims
  size = batching.batch_size(vals, dims)
  if all(d is batching.not_mapped for d in idx_dims):
    at = u_dim if x_dim is batching.not_mapped else x_dim
    x = batching.matchaxis(x, x_dim, at, size)
    update = batching.matchaxis(update, u_dim, at, size)
    idx.insert(at, _zero_index(idx))
    return st.dynamic_update_slice_p.bind(x, update, *idx), at
  every = tuple(range(len(idx)))
  dn = ScatterDimensionNumbers(update_window_dims=every, inserted_window_dims=(),
                               scatter_dims_to_operand_dims=every)
  return scatter_p.batch(axis, [x, _stacked_start_indices(idx, idx_dims, size), update],
                         [x_dim, 0, u_dim], dimension_numbers=dn, update_jaxpr=None,
                         update_consts=(), indices_are_sorted=True, unique_indices=True,
                         mode=GatherScatterMode.CLIP)


st.dynamic_slice_p.def_rules(batch=_dynamic_slice_batch)
st.dynamic_update_slice_p.def_rules(batch=_dynamic_update_slice_batch)


# --- rules these primitives do not have -------------------------------------------------------

for _p in (scatter_min_p, scatter_max_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
