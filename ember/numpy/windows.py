"""ember.numpy's window functions for signal processing: bartlett, blackman, hamming, hanning
and kaiser, each a length-``M`` float array (the default float dtype) symmetric about its
centre.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.hanning(5)
    Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import check_arraylike
from ember.numpy.creation import arange
from ember.numpy.ufuncs_math import cos, i0, sqrt

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _length(M, name: str) -> int:
  if isinstance(M, core.Tracer):
    raise ConcretizationTypeError(M, f"M argument of jnp.{name}() must be a concrete integer.")
  M = int(M)
  if M < 0:
    raise ValueError(f"jnp.{name}: the window length M must be non-negative, got {M}")
  return M


def _phase(M: int):
  """``2 pi n / (M - 1)`` for ``n`` in ``0..M-1`` (requires ``M > 1``)."""
  return arange(M, dtype=dtypes.default_float_dtype()) * (2 * np.pi / (M - 1))


def _window(M, name: str, body):
  M = _length(M, name)
  dt = dtypes.default_float_dtype()
  return lax.full((M,), 1, dt) if M <= 1 else body(M)


def bartlett(M):
  """The Bartlett (triangular) window of length ``M``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.bartlett(5)
      Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
  """
  def body(M):
    n = arange(M, dtype=dtypes.default_float_dtype())
    half = (M - 1) / 2
    return 1 - abs(n - half) / half
  return _window(M, "bartlett", body)


def blackman(M):
  """The Blackman window of length ``M``: ``0.42 - 0.5 cos(2 pi n/(M-1)) + 0.08 cos(4 pi
  n/(M-1))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.blackman(3)
      Array([-1.4901161e-08,  9.9999994e-01, -1.4901161e-08], dtype=float32)
  """
  return _window(M, "blackman",
                 lambda M: 0.42 - 0.5 * cos(_phase(M)) + 0.08 * cos(2 * _phase(M)))


def hamming(M):
  """The Hamming window of length ``M``: ``0.54 - 0.46 cos(2 pi n/(M-1))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.hamming(3)
      Array([0.08000001, 1.        , 0.08000001], dtype=float32)
  """
  return _window(M, "hamming", lambda M: 0.54 - 0.46 * cos(_phase(M)))


def hanning(M):
  """The Hann window of length ``M``: ``0.5 - 0.5 cos(2 pi n/(M-1))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.hanning(3)
      Array([0., 1., 0.], dtype=float32)
  """
  return _window(M, "hanning", lambda M: 0.5 - 0.5 * cos(_phase(M)))


def kaiser(M, beta):
  """The Kaiser window of length ``M`` and shape ``beta``: ``I0(beta sqrt(1 - (2n/(M-1) -
  1)^2)) / I0(beta)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.kaiser(3, 0.)
      Array([1., 1., 1.], dtype=float32)
  """
  check_arraylike("kaiser", beta)

  def body(M):
    alpha = (M - 1) / 2
    n = arange(M, dtype=dtypes.default_float_dtype())
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)
  return _window(M, "kaiser", body)
