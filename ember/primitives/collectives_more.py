"""Collectives JAX 0.10.2 added for accelerators: ``pbroadcast`` and ``ragged_all_to_all``.

- ``pbroadcast`` (params ``axis_name``, ``source``): every lane gets lane ``source``'s value.
  Under ``vmap(..., axis_name=)`` it is the source example's value, unbatched (JAX's vmap rule
  fails here). It is linear. Compiled over a mesh (``shard_map``) it would be XLA's
  CollectiveBroadcast, which the CPU backend lacks: as in JAX, it raises there.
- ``ragged_all_to_all`` (params ``axis_name``, ``axis_index_groups``; operands ``operand``,
  ``output``, ``input_offsets``, ``send_sizes``, ``output_offsets``, ``recv_sizes``): sends
  slices of a ragged operand between lanes (see ``lax.ragged_all_to_all``). Its result has the
  type of ``output``. As in JAX, it has no vmap rule and does not compile on CPU.
"""
from __future__ import annotations

from ember import dtypes
from ember.core.trace import Primitive
from ember.primitives.collectives import as_names
from ember.transforms import batching
from ember.transforms.ad_util import deflinear_unary

__all__ = []  # reached through ember.lax


def _not_on_this_backend(name: str) -> NotImplementedError:
  from ember.primitives.platform import lowering_platform
  return NotImplementedError(f"MLIR translation rule for primitive '{name}' not found for "
                             f"platform {lowering_platform()}")


# --- pbroadcast -------------------------------------------------------------------------------

def _pbroadcast_lower(ctx, x, **params):
  raise _not_on_this_backend("pbroadcast")


def _pbroadcast_batch_named(axis, vals, dims, *, axis_name, source):
  """Every lane's result is lane ``source``'s value: the same for all, so unbatched."""
  name, size = axis.name, axis.size
  from ember import lax
  if as_names(axis_name) != (name,):
    raise NotImplementedError(f"pbroadcast over several vmapped axes {axis_name} is not "
                              "supported; apply it to one axis name at a time.")
  (x,), (d,) = vals, dims
  if d is batching.not_mapped:
    return x, batching.not_mapped
  return lax.index_in_dim(x, source % size, d, keepdims=False), batching.not_mapped


pbroadcast_p = Primitive("pbroadcast")
pbroadcast_p.def_rules(abstract_eval=lambda x, *, axis_name, source: x, lower=_pbroadcast_lower,
                       batch=batching.vectorized_batcher(pbroadcast_p))
deflinear_unary(pbroadcast_p, lambda ct, aval, **params: pbroadcast_p.bind(ct, **params))
pbroadcast_p.def_rules(axis_names=lambda params: as_names(params["axis_name"]),
                       batch_named=_pbroadcast_batch_named)


# --- ragged_all_to_all ------------------------------------------------------------------------

def _ragged_all_to_all_abstract_eval(operand, output, input_offsets, send_sizes,
                                     output_offsets, recv_sizes, *, axis_name,
                                     axis_index_groups):
  if operand.ndim == 0:
    raise ValueError("ragged_all_to_all input must be at least rank 1")
  if operand.dtype != output.dtype or operand.shape[1:] != output.shape[1:]:
    raise ValueError("ragged_all_to_all input and output must have the same dtype and the "
                     f"same shape past the first dimension, got {operand} and {output}.")
  ragged = (input_offsets, send_sizes, output_offsets, recv_sizes)
  names = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")
  for n, a in zip(names, ragged):
    if not dtypes.is_integer(a.dtype) or a.ndim != 1:
      raise ValueError(f"ragged_all_to_all {n} must be a rank-1 integer array, got {a}.")
  if len({a.shape for a in ragged}) > 1:
    raise ValueError("ragged_all_to_all input_offsets, send_sizes, output_offsets and "
                     "recv_sizes must have the same shape.")
  return output


def _ragged_all_to_all_lower(ctx, *args, **params):
  raise _not_on_this_backend("ragged_all_to_all")


def _ragged_all_to_all_batch_named(axis, vals, dims, **params):
  raise NotImplementedError("Please open a feature request!")


ragged_all_to_all_p = Primitive("ragged_all_to_all")
ragged_all_to_all_p.def_rules(abstract_eval=_ragged_all_to_all_abstract_eval,
                              lower=_ragged_all_to_all_lower)
ragged_all_to_all_p.def_unsupported("batch", "Please open a feature request!")
for _kind in ("jvp", "transpose"):  # JAX's rules would transpose a program no CPU runs
  ragged_all_to_all_p.def_unsupported(_kind, "ragged_all_to_all does not run on CPU, where "
                                      "ember has no derivative rules for it")
ragged_all_to_all_p.def_rules(axis_names=lambda params: params["axis_name"],
                              batch_named=_ragged_all_to_all_batch_named)

