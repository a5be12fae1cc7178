"""Sorting primitives: ``sort`` and ``top_k``.

- ``sort`` (params ``dimension``, ``is_stable``, ``num_keys``; multiple results): sorts several
  operands of one shape along ``dimension``, ordered lexicographically by the first
  ``num_keys`` of them. Floats follow a total order in which ``-0.0`` equals ``0.0`` and every
  NaN (whatever its sign) sorts last; complex numbers order by (real, imaginary) part. It lowers
  to ``stablehlo.sort`` with a comparator region implementing that order.
- ``top_k`` (params ``k``, ``axis``; multiple results): the ``k`` largest entries along ``axis``
  and their int32 indices, largest first, ties by smaller index. It lowers to ``chlo.top_k``
  (which works on the last axis, so other axes are transposed there and back). Its order is
  the IEEE total order: NaN first, ``0.0`` above ``-0.0``, ``-NaN`` last.

Batching: the batch axis stays in place and ``dimension``/``axis`` is renumbered around it; sort
moves (or broadcasts) its other operands to the first batched operand's batch axis.

Autodiff: both permute tangents like their values (sort carries an iota along to learn the
permutation; top_k gathers at its indices); the int32 indices of top_k have float0 tangents.
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives.elementwise import _real_dtype
from ember.primitives.reductions import compare
from ember.primitives.structural import at_common_batch_axis, batched_axis
from ember.transforms.ad_util import Zero, tangent_aval

__all__ = []  # primitives are reached through ember.lax

_BOOL = ShapedArray((), np.bool_)


# --- sort -------------------------------------------------------------------------------------

def _sort_abstract_eval(*operands: ShapedArray, dimension: int, is_stable, num_keys: int):
  if not operands:
    raise TypeError("Sort requires at least one operand")
  shape = operands[0].shape
  if any(o.shape != shape for o in operands[1:]):
    raise TypeError("Arguments to sort must have equal shapes, got: "
                    + " ".join(str(o.shape) for o in operands))
  if not 0 <= dimension < len(shape):
    raise ValueError(f"axis {dimension} is out of bounds for array of dimension {len(shape)}")
  if not 1 <= num_keys <= len(operands):
    raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
  return list(operands)


def _canonical_float(ctx: LoweringContext, x: Value) -> Value:
  """``x`` with -0.0 replaced by 0.0 and every NaN by the positive quiet NaN."""
  zero = ctx.constant(np.zeros((), x.aval.dtype), x.aval)
  nan = ctx.constant(np.array(np.nan, x.aval.dtype), x.aval)
  x = ctx.op1("stablehlo.select", [compare(ctx, x, zero, "EQ"), zero, x], x.aval)
  return ctx.op1("stablehlo.select", [compare(ctx, x, x, "NE"), nan, x], x.aval)


def _key_order(ctx: LoweringContext, a: Value, b: Value) -> tuple[Value, Value]:
  """(a < b, a == b) in the sort's total order, for two scalars of one dtype."""
  dt = a.aval.dtype
  if dtypes.is_complex(dt):
    r = ShapedArray((), _real_dtype(dt))
    parts = [[ctx.op1(f"stablehlo.{p}", [v], r) for v in (a, b)] for p in ("real", "imag")]
    (lt_re, eq_re), (lt_im, eq_im) = (_key_order(ctx, x, y) for x, y in parts)
    lt = ctx.op1("stablehlo.or", [lt_re, ctx.op1("stablehlo.and", [eq_re, lt_im], _BOOL)], _BOOL)
    return lt, ctx.op1("stablehlo.and", [eq_re, eq_im], _BOOL)
  if dtypes.is_float(dt):
    a, b = _canonical_float(ctx, a), _canonical_float(ctx, b)
    return (compare(ctx, a, b, "LT", "TOTALORDER"), compare(ctx, a, b, "EQ", "TOTALORDER"))
  return compare(ctx, a, b, "LT"), compare(ctx, a, b, "EQ")


def _sort_comparator(ctx: LoweringContext, args: list[Value], num_keys: int) -> list[Value]:
  """Lexicographic less-than over the first ``num_keys`` (lhs, rhs) argument pairs."""
  orders = [_key_order(ctx, args[2 * i], args[2 * i + 1]) for i in range(num_keys)]
  less = orders[-1][0]
  for lt, eq in reversed(orders[:-1]):
    less = ctx.op1("stablehlo.or", [lt, ctx.op1("stablehlo.and", [eq, less], _BOOL)], _BOOL)
  return [less]


def _sort_lower(ctx: LoweringContext, *operands: Value, dimension: int, is_stable,
                num_keys: int) -> list[Value]:
  scalars = [ShapedArray((), o.aval.dtype) for o in operands for _ in range(2)]
  region = ctx.region(scalars, lambda sub, args: _sort_comparator(sub, args, num_keys))
  attrs = {"dimension": f"{dimension} : i64", "is_stable": "true" if is_stable else "false"}
  return ctx.op("stablehlo.sort", list(operands), [o.aval for o in operands], attrs, [region])


sort_p = Primitive("sort", multiple_results=True)
sort_p.def_rules(abstract_eval=_sort_abstract_eval, lower=_sort_lower)


def _take_along(t, idx, axis: int, int_type=int):
  """``t`` gathered along ``axis`` at ``idx`` (same rank; other dimensions index themselves,
  as batching dimensions of one gather). ``int_type`` types the batching dimensions: JAX's
  sort jvp computes them with NumPy, and its jaxprs print them as np.int64."""
  from ember.primitives.indexing import GatherDimensionNumbers, GatherScatterMode, gather_p
  ndim = get_aval(t).ndim
  others = tuple(int_type(d) for d in range(ndim) if d != axis)
  dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                              start_index_map=(axis,), operand_batching_dims=others,
                              start_indices_batching_dims=others)
  return gather_p.bind(t, idx, dimension_numbers=dn, slice_sizes=(1,) * ndim,
                       unique_indices=False, indices_are_sorted=False,
                       mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)


def _sort_jvp(primals, tangents, *, dimension: int, is_stable, num_keys: int):
  """Sort an iota along with the operands; its sorted order is the permutation to apply to
  every tangent."""
  from ember import lax
  shape = get_aval(primals[0]).shape
  iota = lax.broadcasted_iota(np.uint32, shape, dimension)
  *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                            num_keys=num_keys)
  idx = lax.broadcast_in_dim(perm, shape + (1,), tuple(range(len(shape))))
  return outs, [Zero(tangent_aval(get_aval(o))) if type(t) is Zero
                else _take_along(t, idx, dimension, np.int64) for o, t in zip(outs, tangents)]


def _sort_batch(axis, vals, dims, *, dimension: int, is_stable, num_keys: int):
  """Every operand batched at one axis (unbatched ones broadcast), sorted along the renumbered
  ``dimension``: each example's lanes sort independently."""
  operands, d = at_common_batch_axis(vals, dims)
  outs = sort_p.bind(*operands, dimension=batched_axis(dimension, d), is_stable=is_stable,
                     num_keys=num_keys)
  return outs, [d] * len(outs)


sort_p.def_rules(jvp=_sort_jvp, batch=_sort_batch)


# --- top_k ------------------------------------------------------------------------------------

def _top_k_abstract_eval(x: ShapedArray, *, k: int, axis: int):
  if dtypes.is_complex(x.dtype):
    raise ValueError("top_k is not compatible with complex inputs.")
  if not 0 <= axis < x.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  if x.shape[axis] < k:
    raise ValueError("k argument to top_k must be no larger than size along axis; got "
                     f"k={k} with shape={list(x.shape)} and axis={axis}")
  shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
  return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32, x.weak_type)]


def _transpose(ctx: LoweringContext, x: Value, perm: list[int]) -> Value:
  shape = tuple(x.aval.shape[p] for p in perm)
  return ctx.op1("stablehlo.transpose", [x], x.aval.update(shape=shape),
                 {"permutation": i64_array(perm)})


def _top_k_lower(ctx: LoweringContext, x: Value, *, k: int, axis: int) -> list[Value]:
  last = x.aval.ndim - 1
  perm = list(range(x.aval.ndim))
  perm[axis], perm[last] = last, axis  # a swap: its own inverse
  if axis != last:
    x = _transpose(ctx, x, perm)
  shape = x.aval.shape[:-1] + (k,)
  outs = ctx.op("chlo.top_k", [x], [ShapedArray(shape, x.aval.dtype),
                                    ShapedArray(shape, np.int32)], {"k": f"{k} : i64"})
  if axis != last:
    outs = [_transpose(ctx, o, perm) for o in outs]
  return outs


top_k_p = Primitive("top_k", multiple_results=True)
top_k_p.def_rules(abstract_eval=_top_k_abstract_eval, lower=_top_k_lower)


def _top_k_jvp(primals, tangents, *, k: int, axis: int):
  """The tangent gathered at the top-k indices; the indices have float0 tangents."""
  from ember import lax
  values, indices = top_k_p.bind(*primals, k=k, axis=axis)
  idx_zero = Zero(tangent_aval(get_aval(indices)))
  if type(tangents[0]) is Zero:
    return [values, indices], [Zero(tangent_aval(get_aval(values))), idx_zero]
  shape = get_aval(indices).shape
  idx = lax.reshape(indices, shape + (1,))
  return [values, indices], [_take_along(tangents[0], idx, axis), idx_zero]


def _top_k_batch(axis_data, vals, dims, *, k: int, axis: int):
  """The batch axis stays where it is; ``axis`` is renumbered around it (the lowering moves
  ``axis`` last for ``chlo.top_k``, carrying the batch axis along as an ordinary one)."""
  (x,), (d,) = vals, dims
  outs = top_k_p.bind(x, k=k, axis=batched_axis(axis, d))
  return outs, [d, d]


top_k_p.def_rules(jvp=_top_k_jvp, batch=_top_k_batch)


# --- rules these primitives do not have -------------------------------------------------------

for _p in (sort_p, top_k_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
