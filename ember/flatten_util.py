"""``ravel_pytree``: flatten a pytree of arrays into one 1-D array and back, as in
``jax.flatten_util``.

Dtypes and weak types follow JAX's rules:

- leaves of one dtype are reshaped and concatenated unconverted, so the vector is weakly typed
  when every leaf is (Python scalars, weak arrays), and ``unravel`` is dtype-polymorphic: it
  splits whatever vector it is given and keeps that vector's dtype and weak type;
- leaves of several dtypes are converted (strongly typed) to the promotion of their dtypes (weak
  types play no part), and ``unravel`` wants a vector of exactly that dtype and converts each
  piece back to its leaf's dtype;
- a tree without leaves gives an empty float32 vector (even with x64 on), and an ``unravel``
  that ignores its argument.

Example:
    >>> import ember.numpy as jnp
    >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.zeros(())})
    >>> flat
    Array([1., 1., 0.], dtype=float32)
    >>> unravel(flat)["a"]
    Array([1., 1.], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from ember import dtypes
from ember import pytree as _pytree

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree):
  """Return ``(flat, unravel)``: the leaves raveled and concatenated (promoted to one dtype), and
  the function that rebuilds the tree (with the original dtypes) from such a vector.

  Example:
      >>> import ember.numpy as jnp
      >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.int32(3)})
      >>> flat
      Array([1., 1., 3.], dtype=float32)
      >>> unravel(flat)["b"]
      Array(3, dtype=int32)
      >>> ravel_pytree([1.0, 2.0])[0]  # all leaves weakly typed: so is the vector
      Array([1., 2.], dtype=float32, weak_type=True)
  """
  leaves, treedef = _pytree.flatten(pytree)
  flat, unravel_leaves = _ravel_leaves(leaves)
  return flat, functools.partial(_unravel_tree, treedef, unravel_leaves)


def _unravel_tree(treedef, unravel_leaves, flat):
  return _pytree.unflatten(treedef, unravel_leaves(flat))


def _ravel_leaves(leaves: list):
  """The 1-D vector of ``leaves`` and the function splitting such a vector back into them."""
  from ember import lax
  if not leaves:
    return lax.full((0,), 0, np.float32), lambda _: []
  from_dtypes = tuple(dtypes.dtype(x, canonicalize=True) for x in leaves)
  to_dtype = dtypes.result_type(*from_dtypes)
  sizes = tuple(int(np.size(x)) for x in leaves)
  shapes = tuple(tuple(np.shape(x)) for x in leaves)
  if all(dt == to_dtype for dt in from_dtypes):  # no conversion: weak types carry through
    flat = lax.concatenate([lax.reshape(x, (n,)) for x, n in zip(leaves, sizes)], 0)
    return flat, functools.partial(_split_leaves, sizes, shapes)
  flat = lax.concatenate([lax.reshape(lax.convert_element_type(x, to_dtype), (n,))
                          for x, n in zip(leaves, sizes)], 0)
  return flat, functools.partial(_split_and_convert, sizes, shapes, from_dtypes, to_dtype)


def _split_leaves(sizes, shapes, vec) -> list:
  """``vec`` cut into the leaves' sizes and shapes, in its own dtype."""
  from ember import lax
  return [lax.reshape(piece, shape) for piece, shape in zip(lax.split(vec, sizes), shapes)]


def _split_and_convert(sizes, shapes, from_dtypes, to_dtype, vec) -> list:
  """``vec`` (of the raveled dtype) cut into the leaves, each converted back to its dtype."""
  from ember import lax
  vec_dtype = dtypes.dtype(vec, canonicalize=True)
  if vec_dtype != to_dtype:
    raise TypeError(f"unravel function given array of dtype {vec_dtype}, but expected dtype "
                    f"{to_dtype}")
  return [lax._convert_element_type(lax.reshape(piece, shape), dt)
          for piece, shape, dt in zip(lax.split(vec, sizes), shapes, from_dtypes)]
