"""``ragged_dot_general``: a dot product whose lhs is split into groups along one dimension.

Operands ``lhs``, ``rhs`` and ``group_sizes`` (integers, shape ``[g]`` or the lhs batch shape
then ``[g]``); params ``ragged_dot_dimension_numbers`` (a ``RaggedDotDimensionNumbers``),
``precision``, ``preferred_element_type`` (kept as the user spelled it, as JAX prints it),
``group_offset`` (None) and ``out_sharding`` (None). Group ``i`` covers ``group_sizes[i]``
consecutive entries of the ragged dimension, after the groups before it; entries past the last
group belong to none. Three modes, by the kind of the lhs ragged dimension (JAX's):

1. non-contracting: each entry is multiplied by the rhs slice of its group (``rhs`` has a group
   dimension); entries in no group give zeros. ``ragged_dot`` is this mode.
2. contracting: the result has a leading group dimension; group ``i`` sums only its entries.
3. batch: a plain batched dot, zero for batch entries in no group.

It lowers (``lower_fun``) to a mask of each group's entries and one ``dot_general`` over the
masked lhs. It is bilinear in ``lhs`` and ``rhs``; reverse mode is defined in mode 1, as in JAX
(modes 2 and 3 raise ``NotImplementedError``, as JAX does). Batching folds ``vmap``'s axis into
a dot batch dimension (JAX 0.10.2 has no working batching rule here).
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.primitives.linalg import _dot_dtype, _dot_shape
from ember.primitives.lower_fun import lower_fun
from ember.transforms import batching
from ember.transforms.ad_util import Zero, add_tangents, is_undefined, tangent_aval

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot_general_p"]


@dataclasses.dataclass(frozen=True, init=False)
class RaggedDotDimensionNumbers:
  """The dot, lhs ragged and rhs group dimensions of a ``ragged_dot_general``.

  Example:
      >>> RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
      RaggedDotDimensionNumbers(dot_dimension_numbers=(((1,), (1,)), ((), ())), \
lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,))
  """
  dot_dimension_numbers: tuple
  lhs_ragged_dimensions: tuple
  rhs_group_dimensions: tuple

  def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
    dims = tuple(tuple(tuple(int(d) for d in side) for side in pair)
                 for pair in dot_dimension_numbers)
    object.__setattr__(self, "dot_dimension_numbers", dims)
    object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
    object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


NONCONTRACTING, CONTRACTING, BATCH = "NONCONTRACTING", "CONTRACTING", "BATCH"


def _mode(rdn: RaggedDotDimensionNumbers) -> str:
  (lc, _), (lb, _) = rdn.dot_dimension_numbers
  r, = rdn.lhs_ragged_dimensions
  return CONTRACTING if r in lc else BATCH if r in lb else NONCONTRACTING


def canonical_preferred(preferred):
  """The NumPy dtype of a ``preferred_element_type`` param (None stays None)."""
  return None if preferred is None else dtypes.canonicalize_dtype(dtypes.dtype(preferred))


# --- abstract evaluation ----------------------------------------------------------------------

def _check_ragged(lhs, rhs, gs, rdn) -> str:
  if not dtypes.is_integer(gs.dtype):
    raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of "
                    "np.integer.")
  if len(rdn.lhs_ragged_dimensions) != 1:
    raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
  r, = rdn.lhs_ragged_dimensions
  if not 0 <= r < lhs.ndim:
    raise TypeError("ragged_dot_general requires lhs ragged dimension numbers to be nonnegative "
                    "and less than the number of axes of the lhs value, got "
                    f"{r} for lhs of rank {lhs.ndim}.")
  mode, groups = _mode(rdn), rdn.rhs_group_dimensions
  if mode != NONCONTRACTING and groups:
    raise TypeError("ragged_dot_general requires zero group dimensions in the rhs when lhs "
                    "ragged dimension is contracting or batch.")
  if mode == NONCONTRACTING:
    if len(groups) != 1 or not 0 <= groups[0] < rhs.ndim:
      raise TypeError("ragged_dot_general requires exactly one rhs group dimension, less than "
                      f"the rhs rank, when the lhs ragged dimension is non-contracting; got "
                      f"{groups} for rhs of rank {rhs.ndim}.")
  _check_group_shape(lhs, gs, rdn, mode)
  if mode == NONCONTRACTING and rhs.shape[groups[0]] != gs.shape[-1]:
    raise TypeError(f"expected rhs group dimension size to be {gs.shape[-1]}, got "
                    f"{rhs.shape[groups[0]]}.")
  return mode


def _check_group_shape(lhs, gs, rdn, mode) -> None:
  (_, _), (lb, _) = rdn.dot_dimension_numbers
  batch = tuple(lhs.shape[d] for d in lb)
  if gs.ndim == 0:
    raise TypeError("ragged_dot_general requires group_sizes to have at least one dimension, "
                    "got a scalar.")
  ok = gs.ndim == 1 or (mode != BATCH and gs.shape[:-1] == batch)
  if not ok:
    raise NotImplementedError(
        f"ragged_dot_general: group_sizes of shape {gs.shape} is not supported by ember (it "
        f"takes [g], or the lhs batch shape {batch} then [g]).")


def _without_group(rhs: ShapedArray, rdn) -> tuple[ShapedArray, tuple]:
  """``rhs`` without its group dimension, and the dot dimension numbers renumbered for it."""
  (lc, rc), (lb, rb) = rdn.dot_dimension_numbers
  if not rdn.rhs_group_dimensions:
    return rhs, rdn.dot_dimension_numbers
  g, = rdn.rhs_group_dimensions
  shape = rhs.shape[:g] + rhs.shape[g + 1:]
  down = lambda ds: tuple(d - (d > g) for d in ds)  # noqa: E731
  return rhs.update(shape=shape), ((lc, down(rc)), (lb, down(rb)))


def _ragged_abstract_eval(lhs, rhs, gs, *, ragged_dot_dimension_numbers, precision,
                          preferred_element_type, group_offset, out_sharding):
  rdn = ragged_dot_dimension_numbers
  mode = _check_ragged(lhs, rhs, gs, rdn)
  plain, dims = _without_group(rhs, rdn)
  shape = _dot_shape(lhs, plain, dims)
  if mode == CONTRACTING:
    shape = (gs.shape[-1],) + shape
  dt = _dot_dtype(lhs, rhs, canonical_preferred(preferred_element_type), precision)
  return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


# --- value (the lowering, in lax) -------------------------------------------------------------

def _group_mask(gs, size: int):
  """``mask[..., i, j]``: entry ``j`` of the ragged dimension is in group ``i``."""
  from ember import lax
  axis = gs.ndim - 1
  ends = lax.cumsum(gs, axis=axis)
  starts = lax.sub(ends, gs)
  shape = tuple(gs.shape) + (size,)
  j = lax.broadcasted_iota(gs.dtype, shape, gs.ndim)
  keep = tuple(range(gs.ndim))
  lo = lax.broadcast_in_dim(starts, shape, keep)
  hi = lax.broadcast_in_dim(ends, shape, keep)
  return lax.bitwise_and(lax.le(lo, j), lax.lt(j, hi))


def _masked_lhs(lhs, gs, lb: Sequence[int], r: int):
  """``lhs`` copied once per group, with a leading group axis: copy ``i`` keeps the entries of
  group ``i`` along ``r`` and zeros elsewhere."""
  from ember import lax
  groups = gs.shape[-1]
  mask = _group_mask(gs, lhs.shape[r])  # [batch..., g, m]
  targets = [d + 1 for d in lb[:gs.ndim - 1]] + [0, r + 1]
  order = sorted(range(len(targets)), key=lambda i: targets[i])
  mask = lax.transpose(mask, tuple(order))
  shape = (groups,) + tuple(lhs.shape)
  mask = lax.broadcast_in_dim(mask, shape, tuple(sorted(targets)))
  copies = lax.broadcast_in_dim(lhs, shape, tuple(range(1, lhs.ndim + 1)))
  return lax.select_n(mask, lax.full_like(copies, 0), copies)


def _ragged_value(lhs, rhs, gs, *, ragged_dot_dimension_numbers, precision,
                  preferred_element_type, group_offset, out_sharding):
  from ember import lax
  from ember.primitives.linalg import dot_general_p
  rdn = ragged_dot_dimension_numbers
  (lc, rc), (lb, rb) = rdn.dot_dimension_numbers
  r, = rdn.lhs_ragged_dimensions
  mode = _mode(rdn)
  pet = canonical_preferred(preferred_element_type)
  dot = lambda x, y, dn: dot_general_p.bind(  # noqa: E731
      x, y, dimension_numbers=dn, precision=precision, preferred_element_type=pet,
      out_sharding=None)
  up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
  if mode == BATCH:
    covered = lax.reduce_or(_group_mask(gs, lhs.shape[r]), (0,))
    keep = lax.broadcast_in_dim(covered, lhs.shape, (r,))
    return dot(lax.select_n(keep, lax.full_like(lhs, 0), lhs), rhs, rdn.dot_dimension_numbers)
  masked = _masked_lhs(lhs, gs, lb, r)
  if mode == NONCONTRACTING:
    g, = rdn.rhs_group_dimensions
    return dot(masked, rhs, (((0,) + up(lc), (g,) + tuple(rc)), (up(lb), tuple(rb))))
  out = dot(masked, rhs, ((up(lc), tuple(rc)), (up(lb), tuple(rb))))
  nb = len(lb)  # the group axis follows the batch axes: bring it to the front
  return lax.transpose(out, (nb,) + tuple(range(nb)) + tuple(range(nb + 1, out.ndim)))


# --- jvp and transpose ------------------------------------------------------------------------

def _ragged_jvp(primals, tangents, **params):
  (lhs, rhs, gs), (t_lhs, t_rhs, _) = primals, tangents
  out = ragged_dot_general_p.bind(lhs, rhs, gs, **params)
  t = Zero(tangent_aval(get_aval(out)))
  if type(t_lhs) is not Zero:
    t = ragged_dot_general_p.bind(t_lhs, rhs, gs, **params)
  if type(t_rhs) is not Zero:
    t = add_tangents(t, ragged_dot_general_p.bind(lhs, t_rhs, gs, **params))
  return out, t


def _free(ndim: int, *used: Sequence[int]) -> list[int]:
  taken = {d for ds in used for d in ds}
  return [d for d in range(ndim) if d not in taken]


def _into(y, axis_of: dict, aval: ShapedArray):
  """``y`` transposed so that operand dimension ``d`` is its axis ``axis_of[d]``, converted to
  the operand's dtype."""
  from ember import lax
  perm = tuple(axis_of[d] for d in range(aval.ndim))
  if perm != tuple(range(aval.ndim)):
    y = lax.transpose(y, perm)
  if get_aval(y).dtype != aval.dtype:
    y = lax._convert_element_type(y, aval.dtype, aval.weak_type)
  return y


def _bind(x, y, gs, contract, batch, ragged, group, params):
  rdn = RaggedDotDimensionNumbers((tuple(map(tuple, contract)), tuple(map(tuple, batch))),
                                  ragged, group)
  return ragged_dot_general_p.bind(x, y, gs, **dict(params, ragged_dot_dimension_numbers=rdn))


def _transpose_rhs(ct, lhs, rhs_aval, gs, rdn, params):
  """Mode 1's rhs cotangent: a mode-2 ragged dot of ``lhs`` with ``ct`` over the lhs free
  dimensions (the ragged one among them): ``[g, batch, lhs contracting (sorted), rhs free]``."""
  (lc, rc), (lb, rb) = rdn.dot_dimension_numbers
  r, = rdn.lhs_ragged_dimensions
  g, = rdn.rhs_group_dimensions
  lf, rf = _free(get_aval(lhs).ndim, lc, lb), _free(rhs_aval.ndim, rc, rb, (g,))
  nb = len(lb)
  ct_lf = list(range(nb, nb + len(lf)))
  y = _bind(lhs, ct, gs, (lf, ct_lf), (lb, range(nb)), (r,), (), params)
  axis_of = {g: 0, **{d: 1 + i for i, d in enumerate(rb)}}
  for i, d in enumerate(sorted(lc)):
    axis_of[rc[lc.index(d)]] = 1 + nb + i
  for i, d in enumerate(rf):
    axis_of[d] = 1 + nb + len(lc) + i
  return _into(y, axis_of, rhs_aval)


def _transpose_lhs(ct, lhs_aval, rhs, gs, rdn, params):
  """Mode 1's lhs cotangent: a mode-1 ragged dot of ``ct`` with ``rhs`` over the rhs free
  dimensions: ``[batch, lhs free, lhs contracting (in rhs order)]``."""
  (lc, rc), (lb, rb) = rdn.dot_dimension_numbers
  r, = rdn.lhs_ragged_dimensions
  g, = rdn.rhs_group_dimensions
  lf, rf = _free(lhs_aval.ndim, lc, lb), _free(get_aval(rhs).ndim, rc, rb, (g,))
  nb = len(lb)
  ct_rf = list(range(nb + len(lf), nb + len(lf) + len(rf)))
  y = _bind(ct, rhs, gs, (ct_rf, rf), (range(nb), rb), (nb + lf.index(r),), (g,), params)
  axis_of = {**{d: i for i, d in enumerate(lb)}, **{d: nb + i for i, d in enumerate(lf)}}
  for i, d in enumerate(sorted(rc)):
    axis_of[lc[rc.index(d)]] = nb + len(lf) + i
  return _into(y, axis_of, lhs_aval)


def _ragged_transpose(ct, lhs, rhs, gs, **params):
  rdn = params["ragged_dot_dimension_numbers"]
  mode = _mode(rdn)
  if mode != NONCONTRACTING:
    side = "y" if is_undefined(rhs) else "x"
    raise NotImplementedError(
        f"Unimplemented grad_{side}_dims for ragged dot general in mode RAGGED_{mode}.")
  if is_undefined(gs):
    raise ValueError("ragged_dot_general: group_sizes cannot be a linear input.")
  ct_lhs = ct_rhs = None
  if is_undefined(rhs):
    ct_rhs = (Zero(rhs.aval) if type(ct) is Zero
              else _transpose_rhs(ct, lhs, rhs.aval, gs, rdn, params))
  if is_undefined(lhs):
    ct_lhs = (Zero(lhs.aval) if type(ct) is Zero
              else _transpose_lhs(ct, lhs.aval, rhs, gs, rdn, params))
  return [ct_lhs, ct_rhs, None]


# --- batching ---------------------------------------------------------------------------------

def _batched_groups(gs, d, size: int, batch_shape: tuple):
  """Group sizes for the batched operands: ``[size, *batch_shape, g]``."""
  from ember import lax
  gs = batching.bdim_at_front(gs, d, size) if d is not None else gs
  shape = get_aval(gs).shape
  full = (size,) + tuple(batch_shape) + shape[-1:]
  if shape == full:
    return gs
  if d is None:  # [g] or [*batch, g]: a new leading axis
    return lax.broadcast_in_dim(gs, full, tuple(range(len(full) - len(shape), len(full))))
  return lax.broadcast_in_dim(gs, full, (0, len(full) - 1))  # [size, g]


def _ragged_batch(axis, vals, dims, **params):
  (lhs, rhs, gs), (ld, rd, gd) = vals, dims
  rdn = params["ragged_dot_dimension_numbers"]
  (lc, rc), (lb, rb) = rdn.dot_dimension_numbers
  mode = _mode(rdn)
  size = batching.batch_size(vals, dims)
  if mode == BATCH and gd is not None:
    raise NotImplementedError("ragged_dot_general: vmap over group_sizes with a ragged batch "
                              "dimension is not supported.")
  lhs = batching.bdim_at_front(lhs, ld, size)
  rhs = batching.bdim_at_front(rhs, rd, size)
  up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
  if gd is not None or get_aval(gs).ndim > 1:
    batch_shape = tuple(get_aval(lhs).shape[d + 1] for d in lb)
    gs = _batched_groups(gs, gd, size, batch_shape)
  new = RaggedDotDimensionNumbers(((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb))),
                                  up(rdn.lhs_ragged_dimensions), up(rdn.rhs_group_dimensions))
  out = ragged_dot_general_p.bind(lhs, rhs, gs, **dict(params,
                                                       ragged_dot_dimension_numbers=new))
  return out, (1 if mode == CONTRACTING else 0)


def _ragged_pp(params):
  out = dict(sorted(params.items()))
  pet = out["preferred_element_type"]
  if isinstance(pet, type):
    out["preferred_element_type"] = _Shown(pet)
  precision = out["precision"]
  if type(precision) is tuple:
    out["precision"] = _Shown(f"({precision[0]!r}, {precision[1]!r})")
  return out


class _Shown:
  __slots__ = ("value",)

  def __init__(self, value):
    self.value = value

  def __str__(self):
    return str(self.value)


ragged_dot_general_p = Primitive("ragged_dot_general")
ragged_dot_general_p.def_rules(abstract_eval=_ragged_abstract_eval,
                               lower=lower_fun(_ragged_value), jvp=_ragged_jvp,
                               transpose=_ragged_transpose, batch=_ragged_batch)
ragged_dot_general_p.def_rules(pp_params=_ragged_pp)
