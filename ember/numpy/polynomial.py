"""ember.numpy's polynomial functions on coefficient arrays, highest power first (NumPy's
legacy ``numpy.poly*`` API): poly, polyval, polyfit, polyadd, polysub, polymul, polydiv,
polyder, polyint and roots.

As in JAX, the results are float (or complex) arrays except for ``polyval``/``polyadd``/
``polysub``, which keep integer inputs integral; trimming leading zeros (``roots`` by default,
``polymul``/``polydiv`` with ``trim_leading_zeros``) needs concrete coefficients.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.polyval(jnp.array([1., 0., -1.]), jnp.array([2., 3.]))
    Array([3., 8.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy import linalg
from ember.numpy._util import (check_arraylike, ensure_array, promote_dtypes,
                               promote_dtypes_inexact)
from ember.numpy.calculus import vander
from ember.numpy.creation import arange, eye, zeros
from ember.numpy.misc import convolve
from ember.numpy.reductions import sum
from ember.numpy.shape_ops import _dtype, _ndim, _shape, atleast_1d

__all__ = ["poly", "polyval", "polyfit", "polyadd", "polysub", "polymul", "polydiv", "polyder",
           "polyint", "roots"]


def _coefficients(name: str, p):
  check_arraylike(name, p)
  p = ensure_array(p)
  if _ndim(p) != 1:
    raise ValueError(f"{name}: coefficients must be a rank-1 array, got shape {_shape(p)}")
  return p


def _trim_leading(p, name: str):
  """``p`` without its leading zeros (keeping one coefficient); needs concrete values."""
  v = core.concrete_value(p)
  if v is None or isinstance(v, core.Tracer):
    raise ConcretizationTypeError(
        p, f"The error occurred in jnp.{name}(): trimming leading zeros needs concrete "
        "coefficients. Under jit, pass trim_leading_zeros=False (strip_zeros=False for roots).")
  nz = np.flatnonzero(np.asarray(v))
  return p[int(nz[0]):] if nz.size else p[-1:]


def poly(seq_of_zeros):
  """The coefficients of the monic polynomial with the given roots (or with the eigenvalues
  of a square matrix as roots, then complex as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.poly(jnp.array([1., 2.]))
      Array([ 1., -3.,  2.], dtype=float32)
  """
  check_arraylike("poly", seq_of_zeros)
  z, = promote_dtypes_inexact(atleast_1d(ensure_array(seq_of_zeros)))
  if _ndim(z) == 2 and _shape(z)[0] == _shape(z)[1] and _shape(z)[0] > 0:
    z = linalg.eigvals(z)
  elif _ndim(z) != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  a = lax.full((1,), 1, _dtype(z))
  for k in range(_shape(z)[0]):
    a = convolve(a, lax.concatenate([lax.full((1,), 1, _dtype(z)), -z[k:k + 1]], 0))
  return a


def _horner(p, x, unroll):
  def step(y, c):
    return lax.add(lax.mul(y, x), lax.broadcast_in_dim(c, _shape(x), ())), None
  return lax.scan(step, lax.full(_shape(x), 0, _dtype(x)), p, unroll=unroll)[0]


def polyval(p, x, *, unroll=16):
  """The polynomial ``p`` evaluated at ``x`` by Horner's rule (a ``scan``, unrolled
  ``unroll`` times); integer inputs give an integer result.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polyval(jnp.array([1, 2, 3]), 2)
      Array(11, dtype=int32)
  """
  check_arraylike("polyval", p, x)
  p, x = promote_dtypes(ensure_array(p), ensure_array(x))
  if _ndim(p) != 1:
    raise ValueError(f"polyval: p must be a rank-1 array, got shape {_shape(p)}")
  return _horner(p, x, unroll)


def _aligned(name: str, a1, a2):
  a1, a2 = promote_dtypes(_coefficients(name, a1), _coefficients(name, a2))
  n = max(_shape(a1)[0], _shape(a2)[0])
  pad = lambda a: lax.pad(a, np.zeros((), _dtype(a)), ((n - _shape(a)[0], 0, 0),))
  return pad(a1), pad(a2)


def polyadd(a1, a2):
  """The sum of two polynomials (the shorter padded with leading zeros).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polyadd(jnp.array([1, 2]), jnp.array([1, 2, 3]))
      Array([1, 3, 5], dtype=int32)
  """
  return lax.add(*_aligned("polyadd", a1, a2))


def polysub(a1, a2):
  """The difference ``a1 - a2`` of two polynomials.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polysub(jnp.array([1, 2, 3]), jnp.array([1, 1]))
      Array([1, 1, 2], dtype=int32)
  """
  return lax.sub(*_aligned("polysub", a1, a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
  """The product of two polynomials (a full convolution), as floats.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polymul(jnp.array([1, 2]), jnp.array([1, 2, 3]))
      Array([1., 4., 7., 6.], dtype=float32)
  """
  a1, a2 = promote_dtypes_inexact(_coefficients("polymul", a1), _coefficients("polymul", a2))
  if trim_leading_zeros:
    a1, a2 = _trim_leading(a1, "polymul"), _trim_leading(a2, "polymul")
  if _shape(a1)[0] == 0 or _shape(a2)[0] == 0:
    return lax.full((0,), 0, _dtype(a1))
  return convolve(a1, a2)


def polydiv(u, v, *, trim_leading_zeros=False):
  """Quotient and remainder of ``u / v``; the remainder keeps ``u``'s length unless
  ``trim_leading_zeros``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polydiv(jnp.array([1., 3., 3., 1.]), jnp.array([1., 1.]))
      (Array([1., 2., 1.], dtype=float32), Array([0., 0., 0., 0.], dtype=float32))
  """
  u, v = promote_dtypes_inexact(_coefficients("polydiv", u), _coefficients("polydiv", v))
  m, n = _shape(u)[0] - 1, _shape(v)[0] - 1
  scale = lax.div(np.ones((), _dtype(v)), v[0])
  q = zeros((max(m - n + 1, 1),), _dtype(u))
  r = u
  for k in range(m - n + 1):
    d = lax.mul(scale, r[k])
    q = q.at[k].set(d)
    r = r.at[k:k + n + 1].add(lax.neg(lax.mul(d, v)))
  if trim_leading_zeros:
    r = _trim_leading(r, "polydiv")
  return q, r


def polyder(p, m=1):
  """The ``m``-th derivative of the polynomial ``p``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polyder(jnp.array([1, 2, 3, 4]))
      Array([3., 4., 3.], dtype=float32)
  """
  p, = promote_dtypes_inexact(_coefficients("polyder", p))
  m = operator.index(m)
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  for _ in range(m):
    n = _shape(p)[0] - 1
    if n <= 0:
      return lax.full((0,), 0, _dtype(p))
    p = lax.mul(p[:-1], arange(n, 0, -1, dtype=_dtype(p)))
  return p


def polyint(p, m=1, k=None):
  """The ``m``-th antiderivative of ``p``; ``k`` holds the integration constants (a scalar
  for all, or one per integration, the first used first).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polyint(jnp.array([3, 2, 1]), k=5)
      Array([1., 1., 1., 5.], dtype=float32)
  """
  p = _coefficients("polyint", p)
  m = operator.index(m)
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  if m == 0:
    return promote_dtypes_inexact(p)[0]
  if k is not None:
    check_arraylike("polyint", k)
  k = zeros((m,), _dtype(p)) if k is None else ensure_array(k)
  p, k = promote_dtypes_inexact(p, k)
  if _ndim(k) == 0 or _shape(k) == (1,):
    k = lax.broadcast_in_dim(lax.reshape(k, ()), (m,), ())
  elif _shape(k) != (m,):
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
  for i in range(m):
    n = _shape(p)[0]
    p = lax.concatenate([lax.div(p, arange(n, 0, -1, dtype=_dtype(p))), k[i:i + 1]], 0)
  return p


def roots(p, *, strip_zeros=True):
  """The roots of the polynomial ``p`` (complex): the eigenvalues of its companion matrix.

  ``strip_zeros`` drops leading zero coefficients first (needs concrete ``p``); without it a
  leading zero yields NaN roots, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sort_complex(jnp.roots(jnp.array([1., -3., 2.])))
      Array([1.+0.j, 2.+0.j], dtype=complex64)
  """
  check_arraylike("roots", p)
  p, = promote_dtypes_inexact(atleast_1d(ensure_array(p)))
  if _ndim(p) != 1:
    raise ValueError("Input must be a rank-1 array.")
  if strip_zeros and _shape(p)[0]:
    p = _trim_leading(p, "roots")
  n = _shape(p)[0] - 1
  if n < 1:
    return lax.full((0,), 0, dtypes.to_complex_dtype(_dtype(p)))
  first = lax.neg(lax.div(p[1:], p[0]))
  companion = lax.concatenate([first[None, :], eye(n - 1, n, dtype=_dtype(p))], 0)
  return linalg.eigvals(companion)


def _polyfit_covariance(lhs, scale, resids, n: int, order: int, one_fit: bool):
  """The coefficients' covariance, scaled by the residual variance (per fit)."""
  base = linalg.inv(lax.dot_general(lax.conj(lhs) if dtypes.is_complex(_dtype(lhs)) else lhs,
                                    lhs, (((0,), (0,)), ((), ()))))
  base = base / (scale[:, None] * scale[None, :])
  fac = resids / (n - order)
  return base * fac if one_fit else base[:, :, None] * fac


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
  """Least-squares fit of a degree-``deg`` polynomial to the points ``(x, y)``.

  ``y`` may be 2-D (one fit per column); ``w`` weights the points. ``full`` also returns the
  residuals, rank, singular values and ``rcond``; ``cov`` the covariance of the coefficients.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.polyfit(jnp.array([0., 1., 2.]), jnp.array([1., 3., 5.]), 1).round(4)
      Array([2., 1.], dtype=float32)
  """
  check_arraylike("polyfit", x, y)
  deg = operator.index(deg)
  if deg < 0:
    raise ValueError("expected deg >= 0")
  x, y = ensure_array(x), ensure_array(y)
  for v in (x, y):
    if not dtypes.is_inexact(_dtype(v)):
      raise ValueError(f"data type {np.dtype(_dtype(v)).type} not inexact")
  if _ndim(x) != 1:
    raise TypeError("expected 1D vector for x")
  if _shape(x)[0] == 0:
    raise TypeError("expected non-empty vector for x")
  if _ndim(y) not in (1, 2):
    raise TypeError("expected 1D or 2D array for y")
  if _shape(x)[0] != _shape(y)[0]:
    raise TypeError("expected x and y to have same length")
  x, y = promote_dtypes_inexact(x, y)
  order, n = deg + 1, _shape(x)[0]
  rcond = n * float(dtypes.finfo(_dtype(x)).eps) if rcond is None else rcond
  lhs, rhs = vander(x, order), y
  if w is not None:
    check_arraylike("polyfit", w)
    w, = promote_dtypes_inexact(ensure_array(w))
    if _shape(w) != (n,):
      raise TypeError("expected a 1-d array for weights of the same length as x")
    lhs = lhs * w[:, None]
    rhs = rhs * (w if _ndim(rhs) == 1 else w[:, None])
  scale = lax.sqrt(sum(lhs * lhs, axis=0))
  lhs = lhs / scale
  c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
  c = c / (scale if _ndim(c) == 1 else scale[:, None])
  if full:
    return c, resids, rank, s, ensure_array(rcond)
  if cov:
    return c, _polyfit_covariance(lhs, scale, resids, n, order, _ndim(y) == 1)
  return c
