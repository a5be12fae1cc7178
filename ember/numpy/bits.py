"""ember.numpy's bit packing: ``packbits`` (groups of 8 truth values into uint8 bytes) and its
inverse ``unpackbits``, along an axis or over the flattened array, in 'big' or 'little' bit
order. Both are built from shifts, so they work under ``jit`` and ``vmap``.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.unpackbits(jnp.packbits(jnp.array([1, 0, 1])), count=3)
    Array([1, 0, 1], dtype=uint8)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes, lax
from ember.numpy._util import canonicalize_axis, check_arraylike, ensure_array
from ember.numpy.padding import pad
from ember.numpy.reductions import sum as _sum
from ember.numpy.shape_ops import _shape, moveaxis, ravel, reshape

__all__ = ["packbits", "unpackbits"]


def _shifts(bitorder: str) -> np.ndarray:
  """Per-bit shift amounts within a byte, first bit first."""
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.arange(8, dtype=np.uint8)
  return shifts[::-1].copy() if bitorder == "big" else shifts


def _flat_or_axis(a, axis):
  """``(a, axis)`` with ``axis=None`` meaning the flattened array along axis 0."""
  if axis is None:
    return ravel(a), 0
  return a, canonicalize_axis(axis, len(_shape(a)))


def packbits(a, axis: int | None = None, bitorder: str = "big"):
  """Pack the truth values of ``a`` into uint8 bytes, 8 per byte along ``axis`` (the
  flattened array when None), padding the last byte with zeros.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 0, 1])), jnp.packbits(
      ...     jnp.array([1, 1, 0]), bitorder="little")
      (Array([176, 128], dtype=uint8), Array([3], dtype=uint8))
  """
  check_arraylike("packbits", a)
  a = ensure_array(a)
  if not (dtypes.is_integer(a.dtype) or dtypes.is_bool(a.dtype)):
    raise TypeError("Expected an input array of integer or boolean data type")
  shifts = _shifts(bitorder)
  a, axis = _flat_or_axis(a, axis)
  bits = lax._convert_element_type(lax.ne(a, np.zeros((), a.dtype)), np.uint8)
  bits = moveaxis(bits, axis, -1)
  n = _shape(bits)[-1]
  pad_width = [(0, 0)] * (bits.ndim - 1) + [(0, -n % 8)]
  bits = reshape(pad(bits, pad_width), _shape(bits)[:-1] + ((n + 7) // 8, 8))
  packed = _sum(lax.shift_left(bits, lax.broadcast_in_dim(shifts, _shape(bits), (bits.ndim - 1,))),
                axis=-1, dtype=np.uint8)
  return moveaxis(packed, -1, axis)


def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
  """Unpack the uint8 array ``a`` into its bits (0 or 1, uint8) along ``axis`` (the
  flattened array when None); ``count`` keeps that many bits (padding with zeros when larger,
  dropping from the end when negative).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.unpackbits(jnp.array([5], jnp.uint8)), jnp.unpackbits(
      ...     jnp.array([5], jnp.uint8), count=3, bitorder="little")
      (Array([0, 0, 0, 0, 0, 1, 0, 1], dtype=uint8), Array([1, 0, 1], dtype=uint8))
  """
  check_arraylike("unpackbits", a)
  a = ensure_array(a)
  if a.dtype != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  shifts = _shifts(bitorder)
  a, axis = _flat_or_axis(a, axis)
  a = moveaxis(a, axis, -1)
  shape = _shape(a) + (8,)
  bytes_ = lax.broadcast_in_dim(a, shape, tuple(range(a.ndim)))
  bits = lax.bitwise_and(
      lax.shift_right_logical(bytes_, lax.broadcast_in_dim(shifts, shape, (a.ndim,))),
      np.ones(shape, np.uint8))
  bits = reshape(bits, _shape(a)[:-1] + (8 * _shape(a)[-1],))
  if count is not None:
    bits = _count_bits(bits, operator.index(count))
  return moveaxis(bits, -1, axis)


def _count_bits(bits, count: int):
  """``bits`` cut or zero-padded along its last axis to ``count`` (negative: drop |count|)."""
  n = _shape(bits)[-1]
  keep = count if count >= 0 else max(n + count, 0)
  if keep <= n:
    return lax.slice_in_dim(bits, 0, keep, axis=bits.ndim - 1)
  return pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, keep - n)])
