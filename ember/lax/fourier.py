"""``ember.lax.fft``: discrete Fourier transforms over trailing dimensions, as ``jax.lax.fft``.

Example:
    >>> import numpy as np
    >>> fft(np.array([1., 0., 0., 0.], np.float32), "rfft", (4,))
    Array([1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
"""
from __future__ import annotations

import operator

from ember import dtypes
from ember.core.trace import get_aval
from ember.lax import elementwise as _ew
from ember.primitives.fft import FftType, fft_p
from ember.transforms.jit import jit

__all__ = ["FftType", "fft", "fft_p"]

_NAMES = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT,
          "irfft": FftType.IRFFT}


def fft(x, fft_type: FftType | str, fft_lengths):
  """The ``fft_type`` transform (FFT, IFFT, RFFT or IRFFT, or their lower-case names) over the
  ``len(fft_lengths)`` trailing dimensions of ``x``; real inputs of FFT/IFFT become complex.

  Args:
    x: the array; its trailing dimensions are ``fft_lengths`` (for IRFFT the last one is
      ``fft_lengths[-1] // 2 + 1``).
    fft_type: a ``FftType`` or one of 'fft', 'ifft', 'rfft', 'irfft'.
    fft_lengths: the lengths of the 1 to 3 transformed dimensions.

  Example:
      >>> import ember.numpy as jnp
      >>> fft(jnp.array([1., 2., 3., 4.]), FftType.FFT, (4,))
      Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
  """
  if isinstance(fft_type, str):
    try:
      fft_type = _NAMES[fft_type.lower()]
    except KeyError:
      raise ValueError(f"Unknown FFT type {fft_type!r}: expected one of "
                       f"{sorted(_NAMES)}.") from None
  fft_type = FftType(fft_type)
  from ember.numpy._util import ensure_array
  x = ensure_array(x)
  dt = get_aval(x).dtype
  if fft_type in (FftType.FFT, FftType.IFFT) and not dtypes.is_complex(dt):
    x = _ew.convert_element_type(x, dtypes.to_complex_dtype(dtypes.to_inexact_dtype(dt)))
  lengths = tuple(operator.index(n) for n in fft_lengths)
  return _fft_jit(x, fft_type=fft_type, fft_lengths=lengths)


def _bind(x, fft_type, fft_lengths):
  return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)


_bind.__name__ = _bind.__qualname__ = "fft"
_fft_jit = jit(_bind, static_argnames=("fft_type", "fft_lengths"))
