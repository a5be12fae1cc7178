"""Segment reductions, as in ``jax.ops``.

Example:
    >>> import ember.numpy as jnp
    >>> segment_sum(jnp.array([1., 2., 3.]), jnp.array([0, 0, 1]), num_segments=2)
    Array([3., 3.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ember.numpy._util import check_out_sharding

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


def _segment(op: str, data, segment_ids, num_segments, indices_are_sorted, unique_indices, mode):
  import ember.numpy as jnp
  data = jnp.asarray(data)
  segment_ids = jnp.asarray(segment_ids)
  if num_segments is None:
    try:
      num_segments = int(np.max(np.asarray(segment_ids))) + 1 if segment_ids.size else 0
    except Exception:
      raise ValueError("num_segments must be given (a static int) when segment_ids is traced")
  num_segments = int(num_segments)
  if op == "add":
    init = jnp.zeros((num_segments,) + data.shape[1:], data.dtype)
  elif op == "mul":
    init = jnp.ones((num_segments,) + data.shape[1:], data.dtype)
  else:
    if jnp.issubdtype(data.dtype, jnp.inexact):
      fill = -np.inf if op == "max" else np.inf
    else:
      info = jnp.iinfo(data.dtype) if data.dtype != np.bool_ else None
      fill = (info.min if op == "max" else info.max) if info else (op == "min")
    init = jnp.full((num_segments,) + data.shape[1:], fill, data.dtype)
  ref = init.at[segment_ids]
  kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
  return {"add": ref.add, "mul": ref.multiply, "max": ref.max, "min": ref.min}[op](data, **kw)


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """Sum of ``data`` rows that share a segment id; out-of-range ids are dropped.

  Example:
      >>> import ember.numpy as jnp
      >>> segment_sum(jnp.array([1., 2., 3., 4.]), jnp.array([0, 0, 1, 2]), num_segments=3)
      Array([3., 3., 4.], dtype=float32)
  """
  check_out_sharding("segment_sum", out_sharding)
  return _segment("add", data, segment_ids, num_segments, indices_are_sorted, unique_indices, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """Product of ``data`` rows that share a segment id; an empty one gives 1.

  Example:
      >>> import ember.numpy as jnp
      >>> segment_prod(jnp.array([1., 2., 3., 4.]), jnp.array([0, 0, 1, 2]), num_segments=4)
      Array([2., 3., 4., 1.], dtype=float32)
  """
  check_out_sharding("segment_prod", out_sharding)
  return _segment("mul", data, segment_ids, num_segments, indices_are_sorted, unique_indices, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """Maximum of ``data`` rows that share a segment id; an empty one gives -inf
  (for integers, the dtype's minimum).

  Example:
      >>> import ember.numpy as jnp
      >>> segment_max(jnp.array([1., 2., 3., 4.]), jnp.array([0, 0, 1, 2]), num_segments=4)
      Array([  2.,   3.,   4., -inf], dtype=float32)
  """
  check_out_sharding("segment_max", out_sharding)
  return _segment("max", data, segment_ids, num_segments, indices_are_sorted, unique_indices, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """Minimum of ``data`` rows that share a segment id; an empty one gives inf
  (for integers, the dtype's maximum).

  Example:
      >>> import ember.numpy as jnp
      >>> segment_min(jnp.array([1., 2., 3., 4.]), jnp.array([0, 0, 1, 2]), num_segments=4)
      Array([ 1.,  3.,  4., inf], dtype=float32)
  """
  check_out_sharding("segment_min", out_sharding)
  return _segment("min", data, segment_ids, num_segments, indices_are_sorted, unique_indices, mode)
