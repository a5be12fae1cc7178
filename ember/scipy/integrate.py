"""ember.scipy.integrate: SciPy's numerical integration on ember arrays, mirroring
``jax.scipy.integrate`` (which holds only ``trapezoid``).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import integrate
    >>> integrate.trapezoid(jnp.array([1., 2., 3.]))
    Array(4., dtype=float32)
"""
from __future__ import annotations

from ember import lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike, promote_dtypes_inexact
from ember.scipy._checks import canonical_axis

__all__ = ["trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
  """The integral of ``y`` along ``axis`` by the trapezoidal rule: ``sum((y[1:] + y[:-1]) / 2
  * d)``, with ``d`` the spacing of the sample points ``x`` (broadcast against ``y``), or the
  constant ``dx`` when ``x`` is None. A 1-D ``x`` gives the spacing along ``axis``; an N-D
  ``x`` is differenced along ``axis`` itself.

  Args:
      y: the values.
      x: the sample points, along ``axis`` (optional).
      dx: the spacing when ``x`` is None.
      axis: the axis to integrate along.

  Returns:
      The integral, of ``y``'s promoted inexact dtype, without ``axis``.

  Raises:
      TypeError: for a non-array ``y`` or ``x`` (a list).
      ValueError: for a bad axis, or a 0-d ``x``.
      IndexError: for an empty ``axis`` without ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import integrate
      >>> integrate.trapezoid(jnp.array([1., 2., 3.]), x=jnp.array([0., 1., 3.]))
      Array(6.5, dtype=float32)
  """
  if x is None:
    check_arraylike("trapezoid", y)
    y, = promote_dtypes_inexact(y)
  else:
    check_arraylike("trapezoid", y, x)
    y, x = promote_dtypes_inexact(y, x)
  axis = canonical_axis(axis, jnp.ndim(y))
  y = jnp.moveaxis(y, axis, -1)
  if x is None:
    if y.shape[-1] == 0:
      raise IndexError(f"index is out of bounds for axis {y.ndim - 1} with size 0")
    d = jnp.asarray(dx)
  elif jnp.ndim(x) == 1:
    d = jnp.diff(x)
  else:
    d = jnp.moveaxis(jnp.diff(x, axis=axis), axis, -1)
  out = 0.5 * jnp.sum(d * (y[..., 1:] + y[..., :-1]), axis=-1)
  return lax.convert_element_type(out, out.dtype)  # never weakly typed, as in JAX
