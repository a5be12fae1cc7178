"""``sharding_constraint``: pin a value's layout over a mesh inside a program.

The value is unchanged; the SPMD partitioner must give it ``sharding`` at that point (Shardy's
``sdy.sharding_constraint``). Eagerly it reshards the array. It is linear and transposes to
itself (cotangents get the same layout); under vmap the batch axis is one more dimension, split
over the mesh axes ``vmap(spmd_axis_name=)`` names (unsplit without one).
"""
from __future__ import annotations

from ember.core.trace import Primitive
from ember.backend import spmd
from ember.backend.sharding import NamedSharding, PartitionSpec
from ember.transforms.ad_util import deflinear_unary

__all__ = ["sharding_constraint_p"]

sharding_constraint_p = Primitive("sharding_constraint")


class _Text(str):
  """A param shown verbatim in printed jaxprs."""


def _abstract_eval(x, *, sharding: NamedSharding, layout, unconstrained_dims):
  sharding.check_shape(x.shape)
  return x


def _impl(x, *, sharding, layout, unconstrained_dims):
  return spmd.put_sharded(x, sharding)


def _lower(ctx, x, *, sharding, layout, unconstrained_dims):
  if ctx.module_context.get("manual"):
    raise NotImplementedError("with_sharding_constraint inside shard_map is not supported: "
                              "inside shard_map values are per-device blocks.")
  attr = f"#sdy.sharding{sharding._to_sdy_sharding(x.aval.ndim)}"
  return ctx.op1("sdy.sharding_constraint", [x], x.aval, {"sharding": attr})


def _transpose(ct, aval, **params):
  return sharding_constraint_p.bind(ct, **params)


def _batch(axis, vals, dims, *, sharding, **params):
  (x,), (d,) = vals, dims
  if d is None:
    return sharding_constraint_p.bind(x, sharding=sharding, **params), d
  spec = sharding.spec.with_unsplit_dim(d)
  if axis.spmd_name is not None:  # the batch dimension is split over these mesh axes
    parts = list(spec)
    parts[d] = axis.spmd_name
    while parts and parts[-1] is None:  # as JAX writes the spec
      parts.pop()
    spec = PartitionSpec(*parts, unreduced=spec.unreduced, reduced=spec.reduced)
  return sharding_constraint_p.bind(x, sharding=sharding.with_spec(spec), **params), d


sharding_constraint_p.def_rules(abstract_eval=_abstract_eval, impl=_impl, lower=_lower)
sharding_constraint_p.def_rules(batch=_batch)
deflinear_unary(sharding_constraint_p, _transpose)
sharding_constraint_p.def_rules(pp_params=lambda params: {
    "context_mesh": _Text("Mesh()"), "layout": params["layout"], "sharding": params["sharding"],
    "unconstrained_dims": _Text("frozenset({})")})
