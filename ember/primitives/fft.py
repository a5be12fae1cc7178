"""The ``fft`` primitive (params ``fft_type``, ``fft_lengths``): discrete Fourier transforms
over the 1 to 3 trailing dimensions of an array, lowered to one ``stablehlo.fft``.

- ``FFT``/``IFFT``: complex to complex, the inverse scaled by 1/N (N = prod(fft_lengths)).
- ``RFFT``: real to complex, keeping the n // 2 + 1 non-negative frequencies of the last axis.
- ``IRFFT``: the inverse of RFFT, complex (n // 2 + 1 on the last axis) to real (n).

The transform is linear: its jvp applies it to the tangent. Its transpose (under the bilinear
pairing <ct, y> = Re(sum ct y) that JAX's transposes use for complex values) is the same
transform for FFT/IFFT, as the DFT matrix is symmetric; for RFFT it is N * IRFFT of conj(ct)
with the frequencies that stand for two conjugate bins halved; for IRFFT it is conj(RFFT(ct))
with those frequencies doubled, over N. Batching moves the batch axis to the front, away from
the transformed trailing axes.
"""
from __future__ import annotations

import enum

import numpy as np

from ember import dtypes
from ember.backend.lowering import i64_array
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.primitives.elementwise import lax
from ember.transforms.ad_util import Zero, standard_jvp_linear
from ember.transforms.batching import moveaxis

__all__ = ["FftType"]


class FftType(enum.IntEnum):
  """The kind of transform (printed as its number in jaxprs, as in JAX).

  Example:
      >>> FftType(3)
      <FftType.IRFFT: 3>
  """
  FFT = 0
  IFFT = 1
  RFFT = 2
  IRFFT = 3


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
  lengths = tuple(fft_lengths)
  if not 1 <= len(lengths) <= min(3, x.ndim):
    raise ValueError(f"FFT over {len(lengths)} dimensions of an array of rank {x.ndim} is not "
                     "supported: fft_lengths must name 1, 2 or 3 of its trailing dimensions.")
  minor = x.shape[x.ndim - len(lengths):]
  if fft_type == FftType.RFFT:
    if dtypes.is_complex(x.dtype) or not dtypes.is_float(x.dtype):
      raise ValueError("only real valued inputs supported for rfft")
    expected = lengths
    out = ShapedArray(x.shape[:-1] + (lengths[-1] // 2 + 1,), dtypes.to_complex_dtype(x.dtype))
  else:
    if not dtypes.is_complex(x.dtype):
      raise ValueError(f"{fft_type.name} requires a complex input, got {x.dtype.name}")
    if fft_type == FftType.IRFFT:
      expected = lengths[:-1] + (lengths[-1] // 2 + 1,)
      out = ShapedArray(x.shape[:-1] + (lengths[-1],), np.dtype(dtypes.finfo(x.dtype).dtype))
    else:
      expected = lengths
      out = x.strip_weak_type()
  if minor != expected:
    raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                     f"fft_lengths {lengths}" + (
                         f" (with {expected[-1]} on the last axis for IRFFT)"
                         if fft_type == FftType.IRFFT else ""))
  return out


def _fft_lower(ctx, x, *, fft_type, fft_lengths):
  attrs = {"fft_type": f"#stablehlo<fft_type {FftType(fft_type).name}>",
           "fft_length": i64_array(fft_lengths)}
  return ctx.op1("stablehlo.fft", [x], ctx.avals_out[0], attrs)


def _pair_weights(n: int, size: int, dtype, rank: int, value: float):
  """A row over the last axis (broadcastable to rank ``rank``): ``value`` at the frequencies
  that stand for two conjugate bins of a length-``n`` transform, 1 at 0 (and at n / 2)."""
  w = np.full(size, value)
  w[0] = 1
  if n % 2 == 0:
    w[-1] = 1
  return np.asarray(w, dtype).reshape((1,) * (rank - 1) + (size,))


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
  aval = x.aval
  if type(ct) is Zero:
    return [Zero(aval)]
  n = int(np.prod(fft_lengths))
  ct_aval = get_aval(ct)
  if fft_type == FftType.RFFT:
    w = _pair_weights(fft_lengths[-1], ct_aval.shape[-1], ct_aval.dtype, ct_aval.ndim, 2.0)
    out = fft_p.bind(lax.div(lax.conj(ct), lax.broadcast_in_dim(
        w, ct_aval.shape, tuple(range(ct_aval.ndim)))), fft_type=FftType.IRFFT,
        fft_lengths=fft_lengths)
    return [lax.mul(out, np.array(n, aval.dtype))]
  if fft_type == FftType.IRFFT:
    y = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    y_aval = get_aval(y)
    w = _pair_weights(fft_lengths[-1], y_aval.shape[-1], y_aval.dtype, y_aval.ndim, 2.0) / n
    return [lax.conj(lax.mul(y, lax.broadcast_in_dim(w, y_aval.shape,
                                                     tuple(range(y_aval.ndim)))))]
  return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


def _fft_batch(axis, vals, dims, *, fft_type, fft_lengths):
  (x,), (d,) = vals, dims
  return fft_p.bind(moveaxis(x, d, 0), fft_type=fft_type, fft_lengths=fft_lengths), 0


fft_p = Primitive("fft")
fft_p.def_rules(abstract_eval=_fft_abstract_eval, lower=_fft_lower, transpose=_fft_transpose,
                batch=_fft_batch)
fft_p.def_rules(jvp=standard_jvp_linear(fft_p))
