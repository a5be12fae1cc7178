"""``scaled_dot``: ``(lhs * lhs_scale) @ (rhs * rhs_scale)``, scales given per block.

Operands ``lhs``, ``rhs``, ``lhs_scale``, ``rhs_scale`` (all of one rank); params
``dimension_numbers`` (as ``dot_general``'s) and ``preferred_element_type`` (the result dtype).
A scale has its operand's shape except along the contracting dimensions, where it is smaller
by an integer factor of at least 2 (the block, or "subchannel", size): each scale entry applies
to one block of contiguous operand entries.

It lowers to ``stablehlo.composite "xla.scaled_dot"`` whose decomposition, as JAX's, expands the
scales, multiplies in bfloat16 and contracts with ``dot_general`` (so values carry bfloat16
rounding). It has no derivative (as in JAX); batching adds a leading dot batch dimension.
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.primitives.composite import lower_composite
from ember.primitives.control_flow.common import trace_flat
from ember.transforms import batching

__all__ = ["scaled_dot_p", "default_scale"]


# --- checks (JAX's messages) ------------------------------------------------------------------

def _check_scale(side: str, operand, scale, contract) -> None:
  for i, size in enumerate(operand.shape):
    if i in contract:
      if size % scale.shape[i]:
        raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by its "
                        f"scale's dim size {scale.shape[i]}.")
      if size // scale.shape[i] < 2:
        raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size "
                        f"({size // scale.shape[i]}) must be at least 2.")
    elif scale.shape[i] != size:
      raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                      f"{scale.shape[i]}.")


def _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers) -> None:
  (lc, rc), (lb, rb) = dimension_numbers
  ranks = {lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}
  if len(ranks) > 1:
    raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs "
                    f"rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: "
                    f"{rhs_scale.ndim}.")
  if len(lb) != len(rb):
    raise TypeError("LHS and RHS must have the same number of batch dimensions, got "
                    f"{len(lb)} and {len(rb)}.")
  if len(lc) != len(rc):
    raise TypeError("LHS and RHS must have the same number of contracting dimensions, got "
                    f"{len(lc)} and {len(rc)}.")
  for i, j in zip(lb, rb):
    sizes = {lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}
    if len(sizes) > 1:
      raise TypeError("All input tensors must have the same batch dimension size for batch "
                      f"dims ({i}, {j}).")
  for i, j in zip(lc, rc):
    if lhs.shape[i] != rhs.shape[j]:
      raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS "
                      f"contracting dim {j} of size {rhs.shape[j]}.")
  _check_scale("LHS", lhs, lhs_scale, lc)
  _check_scale("RHS", rhs, rhs_scale, rc)


def _scaled_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                          preferred_element_type):
  _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers)
  (lc, rc), (lb, rb) = dimension_numbers
  kept = lambda x, c, b: [x.shape[i] for i in range(x.ndim) if i not in c and i not in b]  # noqa
  shape = [lhs.shape[i] for i in lb] + kept(lhs, lc, lb) + kept(rhs, rc, rb)
  return ShapedArray(tuple(shape), preferred_element_type)


# --- the decomposition ------------------------------------------------------------------------

def _expand_scale(scale, shape, contract):
  """``scale`` repeated blockwise along the contracting dimensions to ``shape``."""
  from ember import lax
  for i in contract:
    have = scale.shape[i]
    if have == shape[i]:
      continue
    wide = scale.shape[:i + 1] + (shape[i] // have,) + scale.shape[i + 1:]
    keep = tuple(d for d in range(len(wide)) if d != i + 1)
    scale = lax.broadcast_in_dim(scale, wide, keep)
    scale = lax.reshape(scale, scale.shape[:i] + (shape[i],) + scale.shape[i + 2:])
  return scale


def _scaled(x, scale, contract):
  from ember import lax
  bf16 = dtypes.bfloat16
  scale = _expand_scale(scale, x.shape, contract)
  return lax.mul(lax.convert_element_type(x, bf16), lax.convert_element_type(scale, bf16))


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
  from ember import lax
  (lc, rc), _ = dimension_numbers
  return lax.dot_general(_scaled(lhs, lhs_scale, lc), _scaled(rhs, rhs_scale, rc),
                         dimension_numbers, preferred_element_type=preferred_element_type)


def _attrs_text(dimension_numbers, preferred_element_type) -> str:
  from ember.backend.lowering import element_type
  (lc, rc), (lb, rb) = dimension_numbers
  lst = lambda ds: "[" + ", ".join(str(d) for d in ds) + "]"  # noqa: E731
  dims = f"[[{lst(lc)}, {lst(rc)}], [{lst(lb)}, {lst(rb)}]]"
  return (f"{{dimension_numbers = {dims}, preferred_element_type = "
          f"{element_type(preferred_element_type)}}}")


def _scaled_lower(ctx, *args, **params):
  closed, consts = trace_flat(lambda *xs: [_decomposition(*xs, **params)],
                              [a.aval for a in args])
  const_vals = [ctx.constant(c, v.aval) for c, v in zip(consts, closed.jaxpr.invars)]
  return lower_composite(ctx, "xla.scaled_dot", 0, _attrs_text(**params), closed,
                         const_vals + list(args))[0]


# --- batching ---------------------------------------------------------------------------------

def _scaled_batch(axis, vals, dims, *, dimension_numbers, preferred_element_type):
  size = batching.batch_size(vals, dims)
  front = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
  up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
  return scaled_dot_p.bind(*front, dimension_numbers=dn,
                           preferred_element_type=preferred_element_type), 0


scaled_dot_p = Primitive("scaled_dot")
scaled_dot_p.def_rules(abstract_eval=_scaled_abstract_eval, lower=_scaled_lower,
                       batch=_scaled_batch)
def _scaled_jvp(primals, tangents, **params):
  raise NotImplementedError("Differentiation rule for 'scaled_dot' not implemented")


scaled_dot_p.def_rules(jvp=_scaled_jvp)
scaled_dot_p.def_unsupported("transpose", "it has no derivative (as in JAX)")


def default_scale(shape, contract):
  """The scale ``scaled_dot`` uses when none is given: ones (float8_e8m0fnu), one entry along
  each contracting dimension."""
  from ember import lax
  shape = tuple(1 if i in contract else d for i, d in enumerate(shape))
  ones = lax.full(shape, 1.0, dtypes.bfloat16)
  return lax.convert_element_type(ones, np.dtype("float8_e8m0fnu"))
