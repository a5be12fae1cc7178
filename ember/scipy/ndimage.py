"""ember.scipy.ndimage: SciPy's N-dimensional image processing on ember arrays, mirroring
``jax.scipy.ndimage`` (which holds only ``map_coordinates``).

``map_coordinates`` interpolates with order 0 (nearest point, halves rounded away from zero) or
1 (linear), as JAX supports; each of the ``2 ** ndim`` neighbouring points is mapped into the
array by the mode separately ("constant" gives a point outside the array the value ``cval``).
It is one jitted function of its static ``order``, ``mode`` and ``cval``, as in JAX.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import ndimage
    >>> ndimage.map_coordinates(jnp.array([0., 10., 20.]), [jnp.array([0.5, 1.25])], order=1)
    Array([ 5. , 12.5], dtype=float32)
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.transforms.jit import jit

__all__ = ["map_coordinates"]

_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _mapped_index(index, size: int, mode: str):
  """Integer ``index`` mapped into ``[0, size)`` by ``mode``, and whether it was inside
  (always True but for "constant")."""
  inside = (index >= 0) & (index < size)
  if mode == "constant":
    return jnp.clip(index, 0, size - 1), inside
  if mode == "nearest":
    index = jnp.clip(index, 0, size - 1)
  elif mode == "wrap":
    index = jnp.mod(index, size)
  elif mode == "mirror":  # period 2 (size - 1): the edges are not repeated
    period = 2 * (size - 1)
    index = jnp.zeros_like(index) if period == 0 else jnp.mod(index, period)
    index = jnp.where(index >= size, period - index, index)
  else:  # reflect, period 2 size: the edges are repeated
    index = jnp.mod(index, 2 * size)
    index = jnp.where(index >= size, 2 * size - 1 - index, index)
  return index, jnp.ones_like(inside)


def _neighbours(coordinate, order: int):
  """``[(integer index, weight)]`` of the points that ``coordinate`` interpolates between."""
  if order == 0:
    nearest = lax.round(coordinate) if dtypes.issubdtype(coordinate.dtype, np.floating) \
        else coordinate
    return [(nearest.astype(np.int32), None)]
  lower = jnp.floor(coordinate)
  upper_weight = coordinate - lower
  return [(lower.astype(np.int32), 1 - upper_weight),
          (lower.astype(np.int32) + 1, upper_weight)]


@functools.partial(jit, static_argnames=("order", "mode", "cval"))
def _map_coordinates(input, coordinates, order, mode, cval):
  """map_coordinates inside its jit, its checks in JAX's order."""
  input = jnp.asarray(input)
  coordinates = [jnp.asarray(c) for c in coordinates]
  if len(coordinates) != input.ndim:
    raise ValueError("coordinates must be a sequence of length input.ndim, but "
                     f"{len(coordinates)} != {input.ndim}")
  if mode not in _MODES:
    raise NotImplementedError(
        f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. Currently "
        f"supported modes are {set(_MODES)}.")
  if order not in (0, 1):
    raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
  cval = jnp.asarray(float(cval) if isinstance(cval, str) else cval, input.dtype)
  per_dim = [[(*_mapped_index(i, size, mode), w) for i, w in _neighbours(c, int(order))]
             for c, size in zip(coordinates, input.shape)]
  total = None
  for corner in itertools.product(*per_dim):
    inside = functools.reduce(lambda a, b: a & b, [ok for _, ok, _ in corner])
    value = input[tuple(index for index, _, _ in corner)]
    if mode == "constant":
      value = jnp.where(inside, value, cval)
    term = functools.reduce(lambda a, b: a * b, [w for _, _, w in corner if w is not None],
                            value)
    total = term if total is None else total + term
  if dtypes.issubdtype(input.dtype, np.integer) and dtypes.issubdtype(total.dtype, np.inexact):
    total = lax.round(total)
  return lax.convert_element_type(total, input.dtype)


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
  """The values of ``input`` interpolated at ``coordinates`` (one array of positions per
  dimension of ``input``, broadcast together).

  Args:
      input: the N-D array.
      coordinates: a sequence of ``input.ndim`` arrays of (fractional) indices.
      order: 0 (nearest) or 1 (linear).
      mode: how indices outside the array are mapped: "constant" (to ``cval``), "nearest"
          (the edge), "wrap" (periodically), "mirror" (reflected about the edge points) or
          "reflect" (reflected about the edges, edge points repeated).
      cval: the value outside the array in "constant" mode (static: a Python number).

  Returns:
      The interpolated values, of ``input``'s dtype (rounded, halves away from zero, for
      integers), of the coordinates' broadcast shape.

  Raises:
      ValueError: for a number of coordinate arrays other than ``input.ndim``, or an array
          ``cval`` (static arguments must be hashable).
      NotImplementedError: for another mode, or an order above 1.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import ndimage
      >>> image = jnp.arange(12.0).reshape(3, 4)
      >>> ndimage.map_coordinates(image, [jnp.array([0.5, 2.]), jnp.array([0.5, 4.])], order=1,
      ...                         mode="wrap")
      Array([2.5, 8. ], dtype=float32)
  """
  return _map_coordinates(input, coordinates, order=order, mode=mode, cval=cval)
