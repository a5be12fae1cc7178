"""Stacking primitives: ``stack``, ``unstack`` and ``tile`` (structural, no arithmetic).

``stack`` joins operands of one shape and dtype along a new axis, ``unstack`` splits an array
into the slices along one axis (its transpose, one result per slice) and ``tile`` repeats an
array along every axis. All three are linear; they lower to ``reshape``/``concatenate``,
``slice``/``reshape`` and ``broadcast_in_dim``/``reshape``. Batching moves batch axes to the
front (``stack``, as JAX's rule does) or renumbers the op's axis (``unstack``, ``tile``).
"""
from __future__ import annotations

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.backend.array import check_size
from ember.backend.lowering import i64_array
from ember.primitives.structural import _aval_of, batched_axis, broadcast_in_dim_p
from ember.transforms import batching
from ember.transforms.ad_util import Zero, deflinear, deflinear_unary, instantiate

__all__ = []  # reached through ember.lax


def _all_weak(avals) -> bool:
  return all(a.weak_type for a in avals)


def _to_front(x, bdim, size: int):
  """``x`` batched at axis 0: its batch axis moved there, or broadcast (dimensions printed as
  plain ints, as JAX's stack rule prints them) when it has none."""
  if bdim is not batching.not_mapped:
    return batching.moveaxis(x, bdim, 0)
  shape = get_aval(x).shape
  return broadcast_in_dim_p.bind(x, shape=(size,) + shape,
                                 broadcast_dimensions=tuple(range(1, len(shape) + 1)),
                                 sharding=None)


# --- stack ------------------------------------------------------------------------------------

def _stack_abstract_eval(*avals, axis):
  first = avals[0]
  if any(a.shape != first.shape for a in avals):
    raise ValueError("All input arrays must have the same shape. Got "
                     f"{', '.join(str(a.shape) for a in avals)}.")
  if any(a.dtype != first.dtype for a in avals):
    raise TypeError("lax.stack requires arguments to have the same dtypes, got "
                    f"{', '.join(a.dtype.name for a in avals)}.")
  shape = first.shape[:axis] + (len(avals),) + first.shape[axis:]
  check_size(shape, first.dtype)
  return ShapedArray(shape, first.dtype, _all_weak(avals))


def _stack_lower(ctx, *xs, axis):
  shape = xs[0].aval.shape
  piece = ShapedArray(shape[:axis] + (1,) + shape[axis:], xs[0].aval.dtype)
  pieces = [ctx.op1("stablehlo.reshape", [x], piece) for x in xs]
  if len(pieces) == 1:
    return ctx.op1("stablehlo.reshape", pieces)
  return ctx.op1("stablehlo.concatenate", pieces, attrs={"dimension": f"{axis} : i64"})


def _stack_transpose(ct, *xs, axis):
  """Each operand's cotangent is its slice of ``ct``."""
  if type(ct) is Zero:
    return [Zero(_aval_of(x)) for x in xs]
  return list(unstack_p.bind(ct, axis=axis))


def _stack_batch(axis_data, vals, dims, *, axis):
  size = batching.batch_size(vals, dims)
  front = [_to_front(v, d, size) for v, d in zip(vals, dims)]
  return stack_p.bind(*front, axis=axis + 1), 0


stack_p = Primitive("stack")
stack_p.def_rules(abstract_eval=_stack_abstract_eval, lower=_stack_lower, batch=_stack_batch)
deflinear(stack_p, _stack_transpose)


# --- unstack ----------------------------------------------------------------------------------

def _unstack_abstract_eval(x, *, axis):
  piece = ShapedArray(x.shape[:axis] + x.shape[axis + 1:], x.dtype, x.weak_type)
  return [piece] * x.shape[axis]


def _unstack_lower(ctx, x, *, axis):
  shape = x.aval.shape
  outs, start, limit = [], [0] * len(shape), list(shape)
  one = ShapedArray(shape[:axis] + (1,) + shape[axis + 1:], x.aval.dtype)
  for i, out in enumerate(ctx.avals_out):
    start[axis], limit[axis] = i, i + 1
    piece = ctx.op1("stablehlo.slice", [x], one, {
        "start_indices": i64_array(start), "limit_indices": i64_array(limit),
        "strides": i64_array([1] * len(shape))})
    outs.append(ctx.op1("stablehlo.reshape", [piece], out))
  return outs


def _unstack_jvp(primals, tangents, *, axis):
  (x,), (t,) = primals, tangents
  outs = unstack_p.bind(x, axis=axis)
  if type(t) is Zero:
    return outs, [Zero(a) for a in _unstack_abstract_eval(t.aval, axis=axis)]
  return outs, unstack_p.bind(t, axis=axis)


def _unstack_transpose(cts, x, *, axis):
  """The slices' cotangents stacked again (zeros for slices that have none)."""
  aval = _aval_of(x)
  if all(type(ct) is Zero for ct in cts):
    return [Zero(aval)]
  piece = _unstack_abstract_eval(aval, axis=axis)[0]
  return [stack_p.bind(*[instantiate(ct, piece) for ct in cts], axis=axis)]


def _unstack_batch(axis_data, vals, dims, *, axis):
  (x,), (d,) = vals, dims
  inner = batched_axis(axis, d)
  outs = unstack_p.bind(x, axis=inner)
  return outs, [d if d < inner else d - 1] * len(outs)


unstack_p = Primitive("unstack", multiple_results=True)
unstack_p.def_rules(abstract_eval=_unstack_abstract_eval, lower=_unstack_lower,
                    jvp=_unstack_jvp, transpose=_unstack_transpose, batch=_unstack_batch)


# --- tile -------------------------------------------------------------------------------------

def _tile_abstract_eval(x, *, reps):
  if len(reps) != x.ndim:
    raise TypeError("reps length must be equal to the ndim of x, got "
                    f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
  if any(r < 0 for r in reps):
    raise ValueError(f"tile reps must be nonnegative, got reps={tuple(reps)}.")
  shape = tuple(d * r for d, r in zip(x.shape, reps))
  check_size(shape, x.dtype)
  return ShapedArray(shape, x.dtype, x.weak_type)


def _interleaved(shape, reps) -> tuple[int, ...]:
  """``(r0, d0, r1, d1, ...)``: the shape in which a tile is a broadcast."""
  return tuple(n for r, d in zip(reps, shape) for n in (r, d))


def _tile_lower(ctx, x, *, reps):
  shape = x.aval.shape
  wide = ShapedArray(_interleaved(shape, reps), x.aval.dtype)
  spread = ctx.op1("stablehlo.broadcast_in_dim", [x], wide, {
      "broadcast_dimensions": i64_array(range(1, 2 * len(shape), 2))})
  return ctx.op1("stablehlo.reshape", [spread])


def _tile_transpose(ct, aval, *, reps):
  """The copies' cotangents summed: ``ct`` viewed as ``(r0, d0, r1, d1, ...)``, summed over
  the repetition axes."""
  from ember import lax
  wide = lax.reshape(ct, _interleaved(aval.shape, reps))
  return lax.reduce_sum(wide, tuple(range(0, 2 * len(reps), 2)))


def _tile_batch(axis, vals, dims, *, reps):
  (x,), (d,) = vals, dims
  return tile_p.bind(x, reps=reps[:d] + (1,) + reps[d:]), d


tile_p = Primitive("tile")
tile_p.def_rules(abstract_eval=_tile_abstract_eval, lower=_tile_lower, batch=_tile_batch)
deflinear_unary(tile_p, _tile_transpose)

