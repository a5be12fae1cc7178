"""Argument checks shared by ember.scipy's signal, fft, integrate and ndimage modules, raising
what JAX raises."""
from __future__ import annotations

import operator

__all__ = ["canonical_axis"]


def canonical_axis(axis, ndim: int) -> int:
  """``axis`` as an index in ``[0, ndim)``; a ValueError (JAX's type; NumPy's ``AxisError`` is a
  subclass of it) when out of bounds."""
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim
