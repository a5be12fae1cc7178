"""ember.scipy.interpolate: SciPy's interpolation on ember arrays, mirroring
``jax.scipy.interpolate`` (which holds only ``RegularGridInterpolator``).

``RegularGridInterpolator`` is a pytree (its grid, values and fill value are leaves; its method
and ``bounds_error`` are static), so it can be passed through ``jit``, ``vmap`` and ``grad``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.interpolate import RegularGridInterpolator
    >>> f = RegularGridInterpolator((jnp.array([0., 1., 2.]),), jnp.array([0., 10., 40.]))
    >>> f(jnp.array([[0.5], [1.5], [3.]]))
    Array([ 5., 25., nan], dtype=float32)
"""
from __future__ import annotations

import itertools

import numpy as np

from ember import numpy as jnp
from ember.numpy._util import check_arraylike, promote_dtypes_inexact
from ember.tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_method(method) -> None:
  if method not in _METHODS:
    raise ValueError(f"method {method!r} is not defined")


def _sample_points(xi, ndim: int):
  """The points ``xi`` as an array ``(..., ndim)``: a tuple of coordinate arrays is broadcast
  and stacked; a 1-D array holds whole points (one coordinate each when ``ndim`` is 1)."""
  if isinstance(xi, tuple) and len(xi) == 1:
    xi = xi[0]
  if isinstance(xi, tuple):
    return jnp.stack(jnp.broadcast_arrays(*xi), axis=-1)
  check_arraylike("_ndim_coords_from_arrays", xi)
  xi = jnp.asarray(xi)
  return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
  """Interpolation of values on a rectilinear grid (of any dimension) at arbitrary points.

  Args:
      points: one increasing 1-D array of coordinates per gridded dimension of ``values``.
      values: the values on the grid, shape ``(len(points[0]), ..., len(points[-1]), ...)``
          (trailing dimensions are carried along).
      method: "linear" or "nearest" (a point halfway between goes to the lower one).
      bounds_error: must be False (JAX cannot raise for data under jit).
      fill_value: the value outside the grid; None extrapolates.

  Raises:
      ValueError: for another method, more point arrays than ``values`` has dimensions, or a
          ``fill_value`` that cannot be cast to ``values``' kind of dtype.
      NotImplementedError: for ``bounds_error=True``.
      TypeError: for a grid or values that are not arrays (e.g. lists).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.interpolate import RegularGridInterpolator
      >>> x, y = jnp.array([0., 1.]), jnp.array([0., 1., 2.])
      >>> f = RegularGridInterpolator((x, y), x[:, None] * 10 + y, method="nearest")
      >>> f(jnp.array([[0.5, 1.75], [0.75, 0.25]]))
      Array([ 2., 10.], dtype=float32)
  """

  def __init__(self, points, values, method="linear", bounds_error=False, fill_value=np.nan):
    _check_method(method)
    self.method = method
    self.bounds_error = bounds_error
    if bounds_error:
      raise NotImplementedError("`bounds_error` takes no effect under JIT")
    check_arraylike("RegularGridInterpolator", values)
    if len(points) > values.ndim:
      raise ValueError(f"there are {len(points)} point arrays, but values has {values.ndim} "
                       "dimensions")
    values, = promote_dtypes_inexact(jnp.asarray(values))
    if fill_value is not None:
      fill_value = jnp.asarray(fill_value)
      if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
        raise ValueError("fill_value must be either 'None' or of a type compatible with values")
    self.fill_value = fill_value
    for p in points:
      check_arraylike("RegularGridInterpolator", p)
    self.grid = tuple(jnp.asarray(p) for p in points)
    self.values = values

  def __call__(self, xi, method=None):
    """The interpolated values at the points ``xi`` (an array ``(..., ndim)``, or a tuple of
    ``ndim`` coordinate arrays), with ``method`` overriding the interpolator's.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.interpolate import RegularGridInterpolator
        >>> f = RegularGridInterpolator((jnp.array([0., 2.]),), jnp.array([1., 3.]))
        >>> f(jnp.array([0.5, 1.]))
        Array([1.5, 2. ], dtype=float32)
    """
    method = self.method if method is None else method
    _check_method(method)
    ndim = len(self.grid)
    xi = _sample_points(xi, ndim)
    if xi.shape[-1] != ndim:
      raise ValueError(f"the requested sample points xi have dimension {xi.shape[-1]}, but "
                       f"this RegularGridInterpolator has dimension {ndim}")
    xi_shape = xi.shape
    xi = xi.reshape(-1, xi_shape[-1])
    indices, distances, outside = self._find_indices(xi.T)
    if method == "linear":
      result = self._evaluate_linear(indices, distances)
    else:
      result = self._evaluate_nearest(indices, distances)
    if self.fill_value is not None:
      mask = outside.reshape(outside.shape + (1,) * (result.ndim - 1))
      result = jnp.where(mask, self.fill_value, result)
    return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

  def _find_indices(self, xi):
    """Per dimension: the grid cell of each point (clipped to the grid), the point's fraction
    of the way across it, and whether any coordinate lies outside the grid."""
    indices, distances = [], []
    outside = jnp.zeros(xi.shape[1:], bool)
    for x, grid in zip(xi, self.grid):
      i = jnp.clip(jnp.searchsorted(grid, x) - 1, 0, grid.shape[0] - 2)
      indices.append(i)
      distances.append((x - grid[i]) / (grid[i + 1] - grid[i]))
      outside = outside | (x < grid[0]) | (x > grid[-1])
    return indices, distances, outside

  def _evaluate_linear(self, indices, distances):
    trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
    total = None
    for corner in itertools.product(*[(i, i + 1) for i in indices]):
      weight = None
      for edge, i, t in zip(corner, indices, distances):
        w = 1 - t if edge is i else t  # the lower or the upper point of the cell
        weight = w if weight is None else weight * w
      term = self.values[corner] * weight[trailing]
      total = term if total is None else total + term
    return total

  def _evaluate_nearest(self, indices, distances):
    nearest = tuple(jnp.where(t <= 0.5, i, i + 1) for i, t in zip(indices, distances))
    return self.values[nearest]


def _flatten(interp):
  return (interp.grid, interp.values, interp.fill_value), (interp.method, interp.bounds_error)


def _unflatten(aux, children):
  interp = object.__new__(RegularGridInterpolator)
  interp.grid, interp.values, interp.fill_value = children
  interp.method, interp.bounds_error = aux
  return interp


register_pytree_node(RegularGridInterpolator, _flatten, _unflatten)
