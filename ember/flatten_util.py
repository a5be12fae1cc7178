"""``ravel_pytree``: flatten a pytree of arrays into one 1-D array and back, as in
``jax.flatten_util``.

Example:
    >>> import ember.numpy as jnp
    >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.zeros(())})
    >>> flat
    Array([1., 1., 0.], dtype=float32)
    >>> unravel(flat)["a"]
    Array([1., 1.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ember import dtypes, pytree

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree_):
  """Return ``(flat, unravel)``: the leaves raveled and concatenated (promoted to one dtype), and
  the function that rebuilds the tree (with the original dtypes) from such a vector.

  Example:
      >>> import ember.numpy as jnp
      >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.int32(3)})
      >>> flat
      Array([1., 1., 3.], dtype=float32)
      >>> unravel(flat)["b"]
      Array(3, dtype=int32)
  """
  import ember.numpy as jnp
  leaves, treedef = pytree.flatten(pytree_)
  if not leaves:
    return jnp.zeros(0, dtypes.default_float_dtype()), lambda flat: pytree.unflatten(treedef, [])
  leaves = [jnp.asarray(x) for x in leaves]
  shapes = [x.shape for x in leaves]
  leaf_dtypes = [x.dtype for x in leaves]
  sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
  out_dtype = dtypes.result_type(*leaf_dtypes)
  flat = jnp.concatenate([jnp.ravel(x).astype(out_dtype) for x in leaves])

  def unravel(vec):
    if np.shape(vec) != (sum(sizes),):
      raise ValueError(f"The unravel function expected an array of shape {(sum(sizes),)}, got "
                       f"shape {np.shape(vec)}.")
    pieces, start = [], 0
    for shape, dt, size in zip(shapes, leaf_dtypes, sizes):
      piece = jnp.reshape(vec[start:start + size], shape)
      pieces.append(piece.astype(dt) if piece.dtype != dt else piece)
      start += size
    return pytree.unflatten(treedef, pieces)

  return flat, unravel
