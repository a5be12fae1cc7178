"""``scaled_matmul_wrapper``: the block-scaled batched matmul behind ``nn.scaled_matmul``.

Operands ``lhs (B, M, K)``, ``rhs (B, N, K)``, ``lhs_scales (B, M, K_a)``, ``rhs_scales (B, N,
K_b)``; param ``preferred_element_type``; one result ``(B, M, N)`` (a list of one, as JAX's
primitive has multiple results). Mathematically ``einsum('BMK,BNK->BMN', lhs * repeat(lhs_scales),
rhs * repeat(rhs_scales))``.

JAX lowers it only for NVIDIA (cuDNN) and AMD GPUs; on the CPU its lowering raises JAX's
``NotImplementedError`` (so running it eagerly or under ``jit`` fails, while ``make_jaxpr`` and
``eval_shape`` work), and it has no derivative. ember, which runs on the CPU, does the same.
Batching merges the vmapped axis into ``B``.
"""
from __future__ import annotations

import math

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.transforms import batching

__all__ = ["scaled_matmul_p"]


def _scaled_matmul_abstract_eval(lhs, rhs, lhs_scales, rhs_scales, *, preferred_element_type):
  batch, m, _ = lhs.shape
  _, n, _ = rhs.shape
  return [ShapedArray((batch, m, n), preferred_element_type)]


def _scaled_matmul_lower(ctx, *args, preferred_element_type):
  raise NotImplementedError(
      "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu")


def _scaled_matmul_jvp(primals, tangents, **params):
  raise NotImplementedError("Differentiation rule for 'scaled_matmul_wrapper' not implemented")


def _scaled_matmul_batch(axis, vals, dims, *, preferred_element_type):
  """Every operand batched at the front, the vmapped axis merged into ``B``, then split off."""
  from ember import lax
  size = batching.batch_size(vals, dims)
  front = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
  merge = lambda v: lax.reshape(v, (math.prod(v.shape[:2]),) + v.shape[2:])  # noqa: E731
  lhs, lhs_scales, rhs, rhs_scales = (merge(front[i]) for i in (0, 2, 1, 3))  # JAX's order
  out, = scaled_matmul_p.bind(lhs, rhs, lhs_scales, rhs_scales,
                              preferred_element_type=preferred_element_type)
  lhs, rhs = front[0], front[1]
  return [lax.reshape(out, lhs.shape[:2] + (lhs.shape[2], rhs.shape[2]))], [0]


scaled_matmul_p = Primitive("scaled_matmul_wrapper", multiple_results=True)
scaled_matmul_p.def_rules(abstract_eval=_scaled_matmul_abstract_eval,
                          lower=_scaled_matmul_lower, jvp=_scaled_matmul_jvp,
                          batch=_scaled_matmul_batch)
scaled_matmul_p.def_unsupported("transpose", "it has no derivative (as in JAX)")
