"""ember.scipy.fft: SciPy's discrete cosine transforms on ember arrays, mirroring
``jax.scipy.fft``.

Only the type-2 DCT and its inverse are available (as in JAX), each computed by one complex FFT
of the even- and odd-indexed points (Makhoul's reordering) and a twiddle. ``norm`` is None or
"backward" (unnormalized, ``idct(dct(x)) == x``) or "ortho" (orthonormal). Results are real of
the precision of the FFT that ember would run on the input (float32 for half-precision inputs),
complex for complex inputs.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import fft
    >>> fft.dct(jnp.array([1., 1., 1.]))
    Array([6., 0., 0.], dtype=float32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike
from ember.scipy._checks import canonical_axis

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name: str, x, type, norm):
  """``x`` as an inexact array, after JAX's checks of the arguments of ``name``."""
  check_arraylike(name, x)
  if type != 2:
    raise NotImplementedError("Only DCT type 2 is implemented.")
  if norm is not None and norm not in ("ortho", "backward"):
    raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")
  x = jnp.asarray(x)
  real = np.dtype(dtypes.finfo(dtypes.to_complex_dtype(dtypes.to_inexact_dtype(x.dtype))).dtype)
  target = dtypes.to_complex_dtype(real) if dtypes.is_complex(x.dtype) else real
  return x.astype(target) if x.dtype != target else x


def _resize(x, n, axis: int):
  """``x`` cropped or zero-padded to ``n`` points along ``axis``."""
  if n is None or n == x.shape[axis]:
    return x
  n = operator.index(n)
  if n < 0:
    raise ValueError(f"Dimension size after padding is not at least 0, got n={n} for an axis "
                     f"of length {x.shape[axis]}")
  if n < x.shape[axis]:
    return lax.slice_in_dim(x, 0, n, axis=axis)
  pads = [(0, 0, 0)] * x.ndim
  pads[axis] = (0, n - x.shape[axis], 0)
  return lax.pad(x, np.zeros((), x.dtype), pads)


def _twiddle(n: int, dtype, sign: float):
  """``exp(sign * i * pi * k / (2 n))`` for k < n, shaped to broadcast over the last axis."""
  return jnp.asarray(np.exp(sign * 1j * np.pi * np.arange(n) / (2 * n)),
                     dtypes.to_complex_dtype(dtype))


def _ortho_scale(n: int, dtype):
  """The orthonormal DCT-II's factors: ``1/sqrt(4n)`` for k = 0, ``1/sqrt(2n)`` beyond."""
  return jnp.asarray(np.where(np.arange(n) == 0, 1 / math.sqrt(4 * n), 1 / math.sqrt(2 * n)),
                     dtype)


def _dct_last(x, norm):
  """The DCT-II of real ``x`` along its last axis."""
  n = x.shape[-1]
  if n == 0:
    raise TypeError("slice limit_indices must be greater than or equal to start_indices: a DCT "
                    "of zero points")
  v = jnp.concatenate([x[..., ::2], x[..., 1::2][..., ::-1]], axis=-1)
  out = 2 * jnp.real(_twiddle(n, x.dtype, -1) * jnp.fft.fft(v, axis=-1))
  return out * _ortho_scale(n, x.dtype) if norm == "ortho" else out


def _idct_last(x, norm):
  """The inverse DCT-II (a scaled DCT-III) of real ``x`` along its last axis."""
  n = x.shape[-1]
  if n == 0:
    raise TypeError("slice limit_indices must be greater than or equal to start_indices: an "
                    "inverse DCT of zero points")
  if norm == "ortho":
    x = x / _ortho_scale(n, x.dtype)
  # X_k - i X_{n-k} (X_n = 0) undoes the real part the forward transform took
  flipped = jnp.concatenate([jnp.zeros_like(x[..., :1]), x[..., :0:-1]], axis=-1)
  v = jnp.real(jnp.fft.ifft(_twiddle(n, x.dtype, 1) * (x - 1j * flipped) / 2, axis=-1))
  half = (n + 1) // 2
  out = jnp.stack([v[..., :half], jnp.pad(v[..., half:][..., ::-1],
                                          [(0, 0)] * (v.ndim - 1) + [(0, n % 2)])], axis=-1)
  return out.reshape(v.shape[:-1] + (2 * half,))[..., :n]


def _along(fun, x, axis: int, norm):
  """``fun`` (a transform of the last axis) along ``axis``; a complex ``x`` part by part."""
  x = jnp.moveaxis(x, axis, -1)
  if dtypes.is_complex(x.dtype):
    out = lax.complex(fun(jnp.real(x), norm), fun(jnp.imag(x), norm))
  else:
    out = fun(x, norm)
  return jnp.moveaxis(out, -1, axis)


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
  """The discrete cosine transform (type 2) of ``x`` along ``axis``:
  ``y[k] = 2 sum_m x[m] cos(pi k (2m + 1) / (2N))``.

  Args:
      x: the array.
      type: only 2.
      n: the length to crop or zero-pad ``x`` to along ``axis``.
      axis: the axis to transform.
      norm: None or "backward" (unnormalized) or "ortho" (orthonormal).

  Returns:
      The transform.

  Raises:
      NotImplementedError: for another type.
      ValueError: for another norm or a bad axis.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import fft
      >>> fft.dct(jnp.array([1., 2., 3., 4.]), norm="ortho").round(2)
      Array([ 5.  , -2.23,  0.  , -0.16], dtype=float32)
  """
  x = _check("dct", x, type, norm)
  axis = canonical_axis(axis, x.ndim)
  return _along(_dct_last, _resize(x, n, axis), axis, norm)


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
  """The inverse of ``dct`` (type 2) along ``axis``: ``idct(dct(x)) == x`` for either norm.

  Args:
      x: the array of coefficients.
      type: only 2.
      n: the length to crop or zero-pad ``x`` to along ``axis``.
      axis: the axis to transform.
      norm: None or "backward" (the inverse of the unnormalized DCT) or "ortho".

  Returns:
      The inverse transform.

  Raises:
      NotImplementedError: for another type.
      ValueError: for another norm or a bad axis.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import fft
      >>> fft.idct(jnp.array([6., 0., 0.])).round(4)
      Array([1., 1., 1.], dtype=float32)
  """
  x = _check("idct", x, type, norm)
  axis = canonical_axis(axis, x.ndim)
  return _along(_idct_last, _resize(x, n, axis), axis, norm)


def _nd(name: str, fun, x, type, s, axes, norm):
  x = _check(name, x, type, norm)
  if axes is None:
    axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
  axes = tuple(canonical_axis(ax, x.ndim) for ax in axes)
  if len(set(axes)) != len(axes):
    raise ValueError(f"repeated axis: {axes}")
  if s is not None:
    for length, ax in zip(s, axes):
      x = _resize(x, length, ax)
  for ax in axes:
    x = _along(fun, x, ax, norm)
  return x


def dctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
  """The multidimensional discrete cosine transform (type 2): ``dct`` along each of ``axes``.

  Args:
      x: the array.
      type: only 2.
      s: the lengths to crop or zero-pad ``x`` to along ``axes`` (default: unchanged).
      axes: the axes to transform (default: all, or the last ``len(s)``).
      norm: None or "backward" (unnormalized) or "ortho" (orthonormal).

  Returns:
      The transform.

  Raises:
      NotImplementedError: for another type.
      ValueError: for another norm, bad or repeated axes.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import fft
      >>> fft.dctn(jnp.ones((2, 2)))
      Array([[16.,  0.],
             [ 0.,  0.]], dtype=float32)
  """
  return _nd("dctn", _dct_last, x, type, s, axes, norm)


def idctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
  """The multidimensional inverse DCT (type 2): ``idct`` along each of ``axes``.

  Args:
      x: the array of coefficients.
      type: only 2.
      s: the lengths to crop or zero-pad ``x`` to along ``axes`` (default: unchanged).
      axes: the axes to transform (default: all, or the last ``len(s)``).
      norm: None or "backward" or "ortho".

  Returns:
      The inverse transform.

  Raises:
      NotImplementedError: for another type.
      ValueError: for another norm, bad or repeated axes.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import fft
      >>> fft.idctn(jnp.array([[16., 0.], [0., 0.]])).round(4)
      Array([[1., 1.],
             [1., 1.]], dtype=float32)
  """
  return _nd("idctn", _idct_last, x, type, s, axes, norm)
