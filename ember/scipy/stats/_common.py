"""Helpers shared by ember.scipy.stats's distributions."""
from __future__ import annotations

from ember.numpy.ufuncs import _lax_const

__all__ = ["lax_const"]


def lax_const(x, value):
  """``value`` as a constant of ``x``'s dtype, made as JAX's ``lax._const`` makes it.

  A weakly typed rank-0 ``x`` gets a Python scalar (so the result stays weak); anything else gets
  a strong NumPy scalar, so a distribution evaluated at a weakly typed *array* (a bool or int
  array promoted against a Python float) returns a strongly typed result, as in JAX.
  """
  return _lax_const(x, value)
