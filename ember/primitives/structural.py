"""Structural primitives: they move, copy or create elements without arithmetic.

broadcast_in_dim, reshape, squeeze, transpose, rev, slice, dynamic_slice, dynamic_update_slice,
concatenate, split, pad and iota. Every rule validates its static parameters (clear TypeError or
ValueError, worded as JAX words them) and lowers to the StableHLO op of the same meaning.
Gather and scatter live in ``ember.primitives.indexing``.

Batching folds the batch axis into the op's parameters and leaves it where it is wherever the
op allows (slice, rev, squeeze, pad, concatenate, broadcast_in_dim); transpose brings it to the
front in the same op, and reshape needs it first or last.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import NO_OPERANDS, Primitive, get_aval
from ember.backend.array import check_size
from ember.backend.dispatch import apply_primitive
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives.elementwise import NUM, check_dtype, _same_dtypes
from ember.transforms import batching
from ember.transforms.ad_util import (Zero, deflinear, deflinear_unary, instantiate, is_undefined,
                                      tangent_aval)

__all__ = []  # primitives are reached through ember.lax

# --- shared checks ----------------------------------------------------------------------------


def check_shapelike(fun: str, arg: str, obj: Sequence[int]) -> None:
  """``obj`` must be a sequence of nonnegative integers."""
  if any(d < 0 for d in obj):
    raise TypeError(f"{fun} {arg} must have every element be nonnegative, got {tuple(obj)}.")


def _is_permutation(perm: Sequence[int], ndim: int) -> bool:
  return tuple(sorted(perm)) == tuple(range(ndim))


def _all_weak(*avals: ShapedArray) -> bool:
  return all(a.weak_type for a in avals)


def _aval_of(x) -> ShapedArray:
  """The abstract value of a transpose rule's argument, defined or not."""
  return x.aval if is_undefined(x) else get_aval(x)


def _zero_scalar(x) -> np.ndarray:
  """A 0-d zero of ``x``'s dtype (the padding value of a transpose's ``pad``)."""
  return np.zeros((), get_aval(x).dtype)


def _inverse_permutation(perm: Sequence[int]) -> tuple[int, ...]:
  return tuple(int(i) for i in np.argsort(perm))


# --- shared batching helpers ------------------------------------------------------------------

def batched_axis(axis: int, bdim: int) -> int:
  """Axis ``axis`` of one example, numbered in the batched value whose batch axis is ``bdim``."""
  return axis + (axis >= bdim)


def at_common_batch_axis(vals: Sequence, dims: Sequence) -> tuple[list, int]:
  """The operands batched at one axis, that of the first batched operand: the others are moved
  there (or broadcast, when unbatched). For ops whose operands must share a shape (concatenate,
  sort); when every operand is batched at the same axis, nothing moves."""
  size = batching.batch_size(vals, dims)
  bdim = next(d for d in dims if d is not batching.not_mapped)
  return [batching.matchaxis(v, d, bdim, size) for v, d in zip(vals, dims)], bdim


# --- broadcast_in_dim -------------------------------------------------------------------------

def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding):
  check_shapelike("broadcast_in_dim", "shape", shape)
  check_shapelike("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
  dims = broadcast_dimensions
  if x.ndim != len(dims):
    raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                    f"ndim; got broadcast_dimensions {dims} for operand ndim {x.ndim}.")
  if len(shape) < x.ndim:
    raise TypeError("broadcast_in_dim target broadcast shape must have equal or higher rank to "
                    f"the operand shape; got operand ndim {x.ndim} and target broadcast ndim "
                    f"{len(shape)}.")
  if not all(0 <= d < len(shape) for d in dims):
    raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of output "
                    f"dimensions, got {dims} for operand ndim {x.ndim} and shape {shape}.")
  if any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(dims)):
    raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
                    "their corresponding dimensions in the target broadcast shape; got operand "
                    f"of shape {x.shape}, target broadcast shape {shape}, broadcast_dimensions "
                    f"{dims}.")
  if len(set(dims)) != len(dims):
    raise TypeError("broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
                    f"broadcast_dimensions {dims}")
  check_size(shape, x.dtype)
  return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_lower(ctx, x, *, shape, broadcast_dimensions, sharding):
  return ctx.op1("stablehlo.broadcast_in_dim", [x],
                 attrs={"broadcast_dimensions": i64_array(broadcast_dimensions)})


def _broadcast_in_dim_pp(params):
  dims = params["broadcast_dimensions"]
  return {"broadcast_dimensions": dims} if dims else {}


broadcast_in_dim_p = Primitive("broadcast_in_dim")
broadcast_in_dim_p.def_rules(abstract_eval=_broadcast_in_dim_abstract_eval,
                             lower=_broadcast_in_dim_lower)
broadcast_in_dim_p.def_rules(pp_params=_broadcast_in_dim_pp)
# A broadcast to the operand's own shape stages no equation (JAX's forwarding rule).
broadcast_in_dim_p.def_rules(staging_forward=lambda avals, params: 0 if (
    tuple(params["shape"]) == avals[0].shape and params.get("sharding") is None
    and tuple(params["broadcast_dimensions"]) == tuple(range(avals[0].ndim))) else None)


def _broadcast_in_dim_transpose(ct, aval, *, shape, broadcast_dimensions, sharding):
  """Sum ``ct`` over the dimensions the broadcast created or stretched from size 1."""
  from ember import lax
  unit = tuple(i for i, d in enumerate(aval.shape) if d == 1)
  kept = {d for i, d in enumerate(broadcast_dimensions) if i not in unit}
  summed = lax.reduce_sum(ct, tuple(i for i in range(len(shape)) if i not in kept))
  return lax.expand_dims(summed, unit)


deflinear_unary(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _broadcast_in_dim_batch(axis, vals, dims, *, shape, broadcast_dimensions, sharding):
  """The operand's batch axis maps to a new output axis placed just after the output axis of
  the operand axis before it: no transpose, and sorted dimensions stay sorted. Shifted
  dimensions are np.int64 because JAX's rule computes them with NumPy (its jaxprs print so)."""
  (x,), (d,) = vals, dims
  out_d = 0 if d == 0 else int(broadcast_dimensions[d - 1]) + 1
  new_dims = [np.int64(b + 1) if b >= out_d else b for b in broadcast_dimensions]
  new_dims.insert(d, out_d)
  out_shape = tuple(shape[:out_d]) + (get_aval(x).shape[d],) + tuple(shape[out_d:])
  return broadcast_in_dim_p.bind(x, shape=out_shape, broadcast_dimensions=tuple(new_dims),
                                 sharding=sharding), out_d


broadcast_in_dim_p.def_rules(batch=_broadcast_in_dim_batch)


# --- reshape ----------------------------------------------------------------------------------

def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
  if any(d < 0 for d in new_sizes):
    raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
  if dimensions is not None and not _is_permutation(dimensions, x.ndim):
    raise TypeError("reshape dimensions must be a permutation of operand dimensions, got "
                    f"dimensions {dimensions} for shape {x.shape}.")
  size = math.prod(new_sizes)
  if size != x.size:
    raise TypeError(f"cannot reshape array of shape {x.shape} (size {x.size}) into shape "
                    f"{new_sizes} (size {size})")
  return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_lower(ctx, x, *, new_sizes, dimensions, sharding):
  if dimensions is not None and tuple(dimensions) != tuple(range(x.aval.ndim)):
    x = _transpose(ctx, x, dimensions)
  if x.aval.shape == tuple(new_sizes):
    return x
  return ctx.op1("stablehlo.reshape", [x])


def _transpose(ctx: LoweringContext, x: Value, perm) -> Value:
  out = x.aval.update(shape=tuple(x.aval.shape[p] for p in perm))
  return ctx.op1("stablehlo.transpose", [x], out, {"permutation": i64_array(perm)})


reshape_p = Primitive("reshape")
reshape_p.def_rules(abstract_eval=_reshape_abstract_eval, lower=_reshape_lower)


def _reshape_transpose(ct, aval, *, new_sizes, dimensions, sharding):
  from ember import lax
  if dimensions is None:
    return lax.reshape(ct, aval.shape)
  permuted = lax.reshape(ct, tuple(aval.shape[d] for d in dimensions))
  return lax.transpose(permuted, _inverse_permutation(dimensions))


deflinear_unary(reshape_p, _reshape_transpose)


def _reshape_batch(axis, vals, dims, *, new_sizes, dimensions, sharding):
  """Row-major reshapes keep a first or a last axis whole: a batch axis that is last stays
  there, any other moves to the front."""
  (x,), (d,) = vals, dims
  shape = get_aval(x).shape
  if 0 < d == len(shape) - 1:
    dimensions = None if dimensions is None else tuple(dimensions) + (d,)
    return reshape_p.bind(x, new_sizes=tuple(new_sizes) + (shape[d],), dimensions=dimensions,
                          sharding=sharding), len(new_sizes)
  dimensions = None if dimensions is None else (0,) + tuple(p + 1 for p in dimensions)
  return reshape_p.bind(batching.moveaxis(x, d, 0), new_sizes=(shape[d],) + tuple(new_sizes),
                        dimensions=dimensions, sharding=sharding), 0


reshape_p.def_rules(batch=_reshape_batch)


# --- squeeze ----------------------------------------------------------------------------------

def _squeeze_abstract_eval(x, *, dimensions):
  if len(set(dimensions)) != len(dimensions):
    raise ValueError(f"dimensions are not unique: {dimensions}")
  if not all(0 <= d < x.ndim for d in dimensions):
    raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
  if any(x.shape[d] != 1 for d in dimensions):
    raise ValueError("cannot select an axis to squeeze out which has size not equal to one, "
                     f"got shape={x.shape} and dimensions={dimensions}")
  shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
  return ShapedArray(shape, x.dtype, x.weak_type)


def _reshape_to_out(ctx, x, **_):
  if x.aval.shape == ctx.avals_out[0].shape:
    return x
  return ctx.op1("stablehlo.reshape", [x])


squeeze_p = Primitive("squeeze")
squeeze_p.def_rules(abstract_eval=_squeeze_abstract_eval, lower=_reshape_to_out)


def _squeeze_transpose(ct, aval, *, dimensions):
  from ember import lax
  return lax.expand_dims(ct, dimensions)


deflinear_unary(squeeze_p, _squeeze_transpose)


def _squeeze_batch(axis, vals, dims, *, dimensions):
  (x,), (d,) = vals, dims
  out_d = d - sum(a < d for a in dimensions)
  return squeeze_p.bind(x, dimensions=tuple(batched_axis(a, d) for a in dimensions)), out_d


squeeze_p.def_rules(batch=_squeeze_batch)


# --- transpose --------------------------------------------------------------------------------

def _transpose_abstract_eval(x, *, permutation):
  if not _is_permutation(permutation, x.ndim):
    raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                    f"permutation {permutation} for operand shape {x.shape}.")
  return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = Primitive("transpose")
transpose_p.def_rules(abstract_eval=_transpose_abstract_eval,
                      lower=lambda ctx, x, *, permutation: _transpose(ctx, x, permutation))


def _transpose_transpose(ct, aval, *, permutation):
  from ember import lax
  return lax.transpose(ct, _inverse_permutation(permutation))


deflinear_unary(transpose_p, _transpose_transpose)


def _transpose_batch(axis, vals, dims, *, permutation):
  """One transpose that also brings the batch axis to the front (as JAX's rule does)."""
  (x,), (d,) = vals, dims
  perm = (d,) + tuple(batched_axis(p, d) for p in permutation)
  return transpose_p.bind(x, permutation=perm), 0


transpose_p.def_rules(batch=_transpose_batch)


# --- rev --------------------------------------------------------------------------------------

def _rev_abstract_eval(x, *, dimensions):
  check_shapelike("rev", "dimensions", dimensions)
  if len(set(dimensions)) != len(dimensions):
    raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
  if dimensions and not max(dimensions) < x.ndim:
    raise TypeError("rev dimensions must all be less than operand ndim, got dimensions "
                    f"{dimensions} for operand ndim {x.ndim}.")
  return x


def _rev_lower(ctx, x, *, dimensions):
  if not dimensions:
    return x
  return ctx.op1("stablehlo.reverse", [x], attrs={"dimensions": i64_array(dimensions)})


rev_p = Primitive("rev")
rev_p.def_rules(abstract_eval=_rev_abstract_eval, lower=_rev_lower)
deflinear_unary(rev_p, lambda ct, aval, *, dimensions: rev_p.bind(ct, dimensions=dimensions))


def _rev_batch(axis, vals, dims, *, dimensions):
  (x,), (d,) = vals, dims
  return rev_p.bind(x, dimensions=tuple(batched_axis(a, d) for a in dimensions)), d


rev_p.def_rules(batch=_rev_batch)


# --- slice ------------------------------------------------------------------------------------

def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
  start, limit = start_indices, limit_indices
  check_shapelike("slice", "start_indices", start)
  check_shapelike("slice", "limit_indices", limit)
  if x.ndim != len(start):  # (a ValueError, as JAX's lax.slice gives)
    raise ValueError("slice start_indices must have length equal to the number of dimensions of "
                     f"the operand, got indices {start} for operand shape {x.shape}.")
  if len(start) != len(limit):
    raise TypeError("slice limit_indices must have the same length as start_indices, got "
                    f"start_indices {start} and limit_indices {limit}.")
  if not all(l <= d for l, d in zip(limit, x.shape)):
    raise TypeError("slice limit_indices must be less than or equal to operand shape, got "
                    f"limit_indices {limit} for operand shape {x.shape}.")
  if not all(l >= s for s, l in zip(start, limit)):
    raise TypeError("slice limit_indices must be greater than or equal to start_indices, got "
                    f"start_indices {start} and limit_indices {limit}.")
  diff = [l - s for s, l in zip(start, limit)]
  if strides is not None:
    if len(strides) != x.ndim:
      raise TypeError("slice strides must have length equal to the number of dimensions of the "
                      f"operand, got strides {strides} for operand shape {x.shape}.")
    if not all(s >= 0 for s in strides):
      raise TypeError(f"slice strides must have every element be nonnegative, got {strides}.")
    if not all(s > 0 for s in strides):  # JAX divides by zero here
      raise TypeError(f"slice strides must be positive, got {strides}")
    diff = [-(-d // s) for d, s in zip(diff, strides)]
  return ShapedArray(tuple(diff), x.dtype, x.weak_type)


def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
  strides = (1,) * x.aval.ndim if strides is None else strides
  return ctx.op1("stablehlo.slice", [x], attrs={
      "start_indices": i64_array(start_indices), "limit_indices": i64_array(limit_indices),
      "strides": i64_array(strides)})


slice_p = Primitive("slice")
slice_p.def_rules(abstract_eval=_slice_abstract_eval, lower=_slice_lower)


def _slice_transpose(ct, aval, *, start_indices, limit_indices, strides):
  """Pad ``ct`` with zeros back to the operand's shape (strides become interior padding)."""
  from ember import lax
  if strides is None or all(s == 1 for s in strides):
    config = [(lo, d - hi, 0) for lo, hi, d in zip(start_indices, limit_indices, aval.shape)]
  else:
    out_shape = get_aval(ct).shape
    config = []
    for lo, n, s, d in zip(start_indices, out_shape, strides, aval.shape):
      end = lo + (1 + (n - 1) * s if n else 0)  # one past the last element the slice read
      config.append((lo, d - end, s - 1))
  return lax.pad(ct, _zero_scalar(ct), config)


deflinear_unary(slice_p, _slice_transpose)


def _slice_batch(axis, vals, dims, *, start_indices, limit_indices, strides):
  """The batch axis is taken whole."""
  (x,), (d,) = vals, dims
  def insert(seq, value):
    return tuple(seq[:d]) + (value,) + tuple(seq[d:])
  return slice_p.bind(x, start_indices=insert(start_indices, 0),
                      limit_indices=insert(limit_indices, get_aval(x).shape[d]),
                      strides=None if strides is None else insert(strides, 1)), d


slice_p.def_rules(batch=_slice_batch)


# --- dynamic_slice and dynamic_update_slice ---------------------------------------------------

def _check_start_indices(name: str, x: ShapedArray, idx: Sequence[ShapedArray]) -> None:
  if len(idx) != x.ndim:
    raise TypeError(f"{name} start_indices must have length equal to the rank of operand, got "
                    f"{len(idx)} indices for operand shape {x.shape}.")
  if any(i.ndim != 0 for i in idx):
    raise TypeError(f"start_indices arguments to {name} must be scalars, got indices "
                    f"{tuple(idx)}")
  if any(i.dtype != idx[0].dtype or not dtypes.is_integer(i.dtype) for i in idx):
    raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                    f"{', '.join(i.dtype.name for i in idx)}")


def _dynamic_slice_abstract_eval(x, *idx, slice_sizes):
  if len(slice_sizes) != x.ndim:
    raise TypeError("dynamic_slice slice_sizes must have length equal to the number of "
                    f"dimensions of the operand, got slice_sizes {slice_sizes} for operand "
                    f"shape {x.shape}.")
  if not all(s <= d for s, d in zip(slice_sizes, x.shape)):
    raise TypeError("slice slice_sizes must be less than or equal to operand shape, got "
                    f"slice_sizes {slice_sizes} for operand shape {x.shape}.")
  if not all(s >= 0 for s in slice_sizes):
    raise TypeError("slice slice_sizes must be greater than or equal to zero, got slice_sizes "
                    f"of {slice_sizes}.")
  _check_start_indices("dynamic_slice", x, idx)
  return ShapedArray(slice_sizes, x.dtype, x.weak_type)


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_slice_p.def_rules(
    abstract_eval=_dynamic_slice_abstract_eval,
    lower=lambda ctx, x, *idx, slice_sizes: ctx.op1(
        "stablehlo.dynamic_slice", [x, *idx], attrs={"slice_sizes": i64_array(slice_sizes)}))


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
  """Slice the tangent at the primal's start indices (the indices have no derivative)."""
  x, *idx = primals
  t = tangents[0]
  if type(t) is not Zero:  # the tangent is sliced first, as in JAX's jaxprs
    t = dynamic_slice_p.bind(t, *idx, slice_sizes=slice_sizes)
  out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
  return out, Zero(tangent_aval(get_aval(out))) if type(t) is Zero else t


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
  """Write ``ct`` into zeros of the operand's shape at the same start indices."""
  from ember import lax
  aval = _aval_of(x)
  if type(ct) is Zero:
    return [Zero(aval)] + [None] * len(idx)
  zeros = lax.full(aval.shape, 0, get_aval(ct).dtype)
  return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


dynamic_slice_p.def_rules(jvp=_dynamic_slice_jvp, transpose=_dynamic_slice_transpose)


def _slice_impl(x, *, start_indices, limit_indices, strides):
  """Eagerly, an unstrided slice runs as a ``dynamic_slice`` whose starts are operands, so one
  executable serves every start (``x[i]`` over many ``i`` compiles once, as in JAX)."""
  params = {"start_indices": start_indices, "limit_indices": limit_indices, "strides": strides}
  slice_p.abstract((get_aval(x),), params)  # the static checks and errors of slice
  if strides is not None and any(s != 1 for s in strides):
    return apply_primitive(slice_p, x, **params)
  sizes = tuple(hi - lo for lo, hi in zip(start_indices, limit_indices))
  index_type = np.int32 if max(start_indices, default=0) < 2**31 else np.int64
  return apply_primitive(dynamic_slice_p, x, *map(index_type, start_indices), slice_sizes=sizes)


slice_p.def_rules(impl=_slice_impl)


def _dynamic_update_slice_abstract_eval(x, update, *idx):
  _same_dtypes("dynamic_update_slice", (x, update), None)
  if x.ndim != update.ndim:
    raise TypeError("dynamic_update_slice update must have the same rank as operand, got "
                    f"update shape {update.shape} for operand shape {x.shape}.")
  if not all(u <= d for u, d in zip(update.shape, x.shape)):
    raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, got "
                    f"update shape {update.shape} for operand shape {x.shape}.")
  _check_start_indices("dynamic_update_slice", x, idx)
  return ShapedArray(x.shape, x.dtype, _all_weak(x, update, *idx))


dynamic_update_slice_p = Primitive("dynamic_update_slice")
dynamic_update_slice_p.def_rules(
    abstract_eval=_dynamic_update_slice_abstract_eval,
    lower=lambda ctx, x, update, *idx: ctx.op1("stablehlo.dynamic_update_slice",
                                               [x, update, *idx]))


def _dynamic_update_slice_jvp(primals, tangents):
  x, update, *idx = primals
  out = dynamic_update_slice_p.bind(x, update, *idx)
  tx, tu = tangents[:2]
  if type(tx) is Zero and type(tu) is Zero:
    return out, Zero(tangent_aval(get_aval(out)))
  return out, dynamic_update_slice_p.bind(instantiate(tx), instantiate(tu), *idx)


def _dynamic_update_slice_transpose(ct, x, update, *idx):
  """Operand: ``ct`` with the updated window zeroed; update: the window of ``ct``."""
  from ember import lax
  x_aval, u_aval = _aval_of(x), _aval_of(update)
  rest = [None] * len(idx)
  if type(ct) is Zero:
    return [Zero(x_aval) if is_undefined(x) else None,
            Zero(u_aval) if is_undefined(update) else None] + rest
  ct_x = ct_u = None
  if is_undefined(x):
    zeros = lax.full(u_aval.shape, 0, get_aval(ct).dtype)
    ct_x = dynamic_update_slice_p.bind(ct, zeros, *idx)
  if is_undefined(update):
    ct_u = dynamic_slice_p.bind(ct, *idx, slice_sizes=u_aval.shape)
  return [ct_x, ct_u] + rest


dynamic_update_slice_p.def_rules(jvp=_dynamic_update_slice_jvp,
                                 transpose=_dynamic_update_slice_transpose)


# --- concatenate ------------------------------------------------------------------------------

def _concatenate_abstract_eval(*xs, dimension):
  if not xs:
    raise TypeError("concatenate expects at least one operand, got 0.")
  shapes = ", ".join(str(x.shape) for x in xs)
  if len({x.ndim for x in xs}) != 1:
    raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got "
                    f"{shapes}.")
  if not 0 <= dimension < xs[0].ndim:
    raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes "
                    f"{shapes}.")
  rest = {x.shape[:dimension] + x.shape[dimension + 1:] for x in xs}
  if len(rest) != 1:
    raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other than "
                    f"the one being concatenated: concatenating along dimension {dimension} for "
                    f"shapes {shapes}.")
  _same_dtypes("concatenate", xs, "concatenate")
  shape = list(xs[0].shape)
  shape[dimension] = sum(x.shape[dimension] for x in xs)
  return ShapedArray(tuple(shape), xs[0].dtype, _all_weak(*xs))


def _concatenate_lower(ctx, *xs, dimension):
  if len(xs) == 1:
    return xs[0]
  return ctx.op1("stablehlo.concatenate", list(xs), attrs={"dimension": f"{dimension} : i64"})


concatenate_p = Primitive("concatenate")
concatenate_p.def_rules(abstract_eval=_concatenate_abstract_eval, lower=_concatenate_lower)


def _concatenate_transpose(ct, *xs, dimension):
  """Each undefined operand's cotangent is its slice of ``ct`` along ``dimension``."""
  from ember import lax
  cts, start = [], 0
  for x in xs:
    aval = _aval_of(x)
    stop = start + aval.shape[dimension]
    if not is_undefined(x):
      cts.append(None)
    elif type(ct) is Zero:
      cts.append(Zero(aval))
    else:
      lo = [0] * aval.ndim
      lo[dimension] = start
      hi = list(get_aval(ct).shape)
      hi[dimension] = stop
      cts.append(lax.slice(ct, lo, hi))
    start = stop
  return cts


deflinear(concatenate_p, _concatenate_transpose)


def _concatenate_batch(axis, vals, dims, *, dimension):
  xs, d = at_common_batch_axis(vals, dims)
  return concatenate_p.bind(*xs, dimension=batched_axis(dimension, d)), d


concatenate_p.def_rules(batch=_concatenate_batch)


# --- split ------------------------------------------------------------------------------------

def _split_abstract_eval(x, *, sizes, axis):
  if any(n < 0 for n in sizes):
    raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
  if x.shape[axis] != sum(sizes):
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                     f"operand shape {list(x.shape)}")
  return [ShapedArray(x.shape[:axis] + (int(n),) + x.shape[axis + 1:], x.dtype, x.weak_type)
          for n in sizes]


def _split_lower(ctx, x, *, sizes, axis):
  outs, lo, hi = [], [0] * x.aval.ndim, list(x.aval.shape)
  for out in ctx.avals_out:
    hi[axis] = lo[axis] + out.shape[axis]
    outs.append(ctx.op1("stablehlo.slice", [x], out, {
        "start_indices": i64_array(lo), "limit_indices": i64_array(hi),
        "strides": i64_array([1] * x.aval.ndim)}))
    lo[axis] = hi[axis]
  return outs


split_p = Primitive("split", multiple_results=True)
split_p.def_rules(abstract_eval=_split_abstract_eval, lower=_split_lower)


def _split_jvp(primals, tangents, *, sizes, axis):
  (x,), (t,) = primals, tangents
  outs = split_p.bind(x, sizes=sizes, axis=axis)
  if type(t) is Zero:
    return outs, [Zero(tangent_aval(get_aval(o))) for o in outs]
  return outs, split_p.bind(t, sizes=sizes, axis=axis)


def _split_transpose(cts, x, *, sizes, axis):
  """The pieces' cotangents, joined again (zeros where a piece has none)."""
  if all(type(ct) is Zero for ct in cts):
    return [Zero(_aval_of(x))]
  return [concatenate_p.bind(*[instantiate(ct) for ct in cts], dimension=axis)]


def _split_batch(axis_data, vals, dims, *, sizes, axis):
  (x,), (d,) = vals, dims
  return split_p.bind(x, sizes=sizes, axis=batched_axis(axis, d)), [d] * len(sizes)


split_p.def_rules(jvp=_split_jvp, transpose=_split_transpose, batch=_split_batch)


# --- pad --------------------------------------------------------------------------------------

def _check_pad_sizes(padding_config, shape) -> None:
  """A TypeError (JAX's type) naming padding_config when a padding or the padded size does not
  fit in int64, as XLA stores them."""
  limit = (1 << 63) - 1
  sizes = [lo + hi + d + max(d - 1, 0) * i for (lo, hi, i), d in zip(padding_config, shape)]
  if any(abs(p) > limit for c in padding_config for p in c) or any(s > limit for s in sizes):
    raise TypeError(f"pad: padding_config {padding_config} gives sizes {tuple(sizes)} for "
                    f"operand shape {shape}; paddings and padded sizes must fit in int64 "
                    "(at most 2**63 - 1).")


def _pad_abstract_eval(x, padding_value, *, padding_config):
  if x.dtype != padding_value.dtype:
    raise TypeError("pad operand and padding_value must be same dtype: got "
                    f"{x.dtype.name} and {padding_value.dtype.name}.")
  if padding_value.ndim != 0:
    raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)="
                     f"{padding_value.shape}")
  if len(padding_config) != x.ndim:
    raise ValueError("length of padding_config must equal the number of axes of operand, got "
                     f"padding_config {padding_config} for operand shape {x.shape}")
  if not all(len(c) == 3 for c in padding_config):
    raise ValueError("each entry of padding_config must be a (low, high, interior) triple, got "
                     f"padding_config {padding_config}")
  if not all(i >= 0 for _, _, i in padding_config):
    raise ValueError("interior padding in padding_config must be nonnegative, got "
                     f"padding_config {padding_config}")
  _check_pad_sizes(padding_config, x.shape)
  shape = tuple(lo + hi + (d + max(d - 1, 0) * i)
                for (lo, hi, i), d in zip(padding_config, x.shape))
  if not all(d >= 0 for d in shape):
    raise ValueError(f"Dimension size after padding is not at least 0, got result shape {shape},"
                     f" for padding_config {padding_config} and operand shape {x.shape}")
  check_size(shape, x.dtype)
  return ShapedArray(shape, x.dtype, _all_weak(x, padding_value))


def _pad_lower(ctx, x, padding_value, *, padding_config):
  lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
  return ctx.op1("stablehlo.pad", [x, padding_value], attrs={
      "edge_padding_low": i64_array(lo), "edge_padding_high": i64_array(hi),
      "interior_padding": i64_array(interior)})


pad_p = Primitive("pad")
pad_p.def_rules(abstract_eval=_pad_abstract_eval, lower=_pad_lower)


def _unpad(ct, padding_config):
  """The elements of ``ct`` that came from the operand: undo the edge padding (negative
  padding grows back with zeros), then step over the interior padding."""
  from ember import lax
  lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
  unpadded = lax.pad(ct, _zero_scalar(ct), [(-l, -h, 0) for l, h in zip(lo, hi)])
  shape = get_aval(unpadded).shape
  return lax.slice(unpadded, (0,) * len(shape), shape, [i + 1 for i in interior])


def _pad_transpose(ct, x, padding_value, *, padding_config):
  """Operand: the unpadded ``ct``; padding value: the sum of the rest of ``ct``."""
  from ember import lax
  if type(ct) is Zero:
    return [Zero(_aval_of(x)) if is_undefined(x) else None,
            Zero(_aval_of(padding_value)) if is_undefined(padding_value) else None]
  ct_x = _unpad(ct, padding_config)
  ct_pad = None
  if is_undefined(padding_value):
    every = tuple(range(get_aval(ct).ndim))
    ct_pad = lax.sub(lax.reduce_sum(ct, every), lax.reduce_sum(ct_x, every))
  return [ct_x if is_undefined(x) else None, ct_pad]


deflinear(pad_p, _pad_transpose)


def _pad_batch(axis, vals, dims, *, padding_config):
  """The batch axis gets no padding. A padding value that differs between examples cannot be
  pad's scalar: pad with zeros, then select each example's value where a padded all-True mask
  is False (an unbatched operand is broadcast at the front first)."""
  from ember import lax
  (x, value), (x_d, value_d) = vals, dims
  d = 0 if x_d is batching.not_mapped else x_d
  config = tuple(padding_config[:d]) + ((0, 0, 0),) + tuple(padding_config[d:])
  if value_d is batching.not_mapped:
    return pad_p.bind(x, value, padding_config=config), d
  x = batching.matchaxis(x, x_d, d, batching.batch_size(vals, dims))
  aval = get_aval(x)
  padded = pad_p.bind(x, np.zeros((), aval.dtype), padding_config=config)
  mask = pad_p.bind(lax.full(aval.shape, True), np.array(False), padding_config=config)
  fill = broadcast_in_dim_p.bind(value, shape=get_aval(padded).shape, broadcast_dimensions=(d,),
                                 sharding=None)
  return lax.select_n(mask, fill, padded), d


pad_p.def_rules(batch=_pad_batch)


# --- iota -------------------------------------------------------------------------------------

def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
  check_shapelike("iota", "shape", shape)
  check_dtype("iota", ShapedArray((), dtype), NUM)
  if not 0 <= dimension < len(shape):
    raise ValueError("iota dimension must be between 0 and len(shape), got "
                     f"dimension={dimension} for shape={shape}")
  check_size(shape, dtype)
  return ShapedArray(shape, dtype, False)


def _iota_lower(ctx, *, dtype, shape, dimension, sharding):
  out = ctx.avals_out[0]
  if not dtypes.is_complex(dtype):
    return ctx.op1("stablehlo.iota", [], out, {"iota_dimension": f"{dimension} : i64"})
  real = out.update(dtype=np.float64 if np.dtype(dtype) == np.complex128 else np.float32)
  re = ctx.op1("stablehlo.iota", [], real, {"iota_dimension": f"{dimension} : i64"})
  zero = ctx.constant(np.zeros((), real.dtype), real)
  return ctx.op1("stablehlo.complex", [re, zero], out)


iota_p = Primitive("iota")
iota_p.def_rules(abstract_eval=_iota_abstract_eval, lower=_iota_lower)


def _iota_jvp(primals, tangents, **params):
  """iota has no inputs: its tangent is always zero."""
  out = iota_p.bind(**params)
  return out, Zero(tangent_aval(get_aval(out)))


iota_p.def_rules(jvp=_iota_jvp)
iota_p.def_unsupported("batch", "iota has no operands, so vmap never batches it (it runs "
                       "unbatched, the same for every example)")


# --- rules these primitives do not have -------------------------------------------------------

for _p in (iota_p,):
  _p.def_unsupported("transpose", NO_OPERANDS)
del _p
