"""ember.scipy.signal: SciPy's signal processing on ember arrays, mirroring ``jax.scipy.signal``.

Convolutions (``convolve``, ``correlate`` and their 2-D forms) run one ``lax.conv_general_dilated``
over all of the inputs' dimensions; ``fftconvolve`` (and ``method="fft"``) multiplies FFTs.
``detrend`` removes a least-squares line (or the mean) per segment. The spectral estimators
(``stft``, ``istft``, ``csd``, ``welch``) follow SciPy's algorithms on windowed, overlapping
segments, with SciPy's windows (``ember.scipy._windows``). As in JAX, integer and boolean inputs
are promoted to floating point, ``convolve2d`` supports only ``boundary="fill"`` with
``fillvalue=0``, and ``istft`` does not warn when the NOLA condition fails.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import signal
    >>> signal.convolve(jnp.array([1., 2., 3.]), jnp.array([0., 1., 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.numpy._util import (
  check_arraylike,
  ensure_array,
  promote_dtypes_inexact,
)
from ember.scipy._checks import canonical_axis
from ember.scipy._windows import get_window

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve",
           "istft", "stft", "welch"]

_MODES = ("full", "same", "valid")


# --- convolutions ---------------------------------------------------------------------------

def _check_mode(mode, modes=_MODES) -> None:
  if mode not in modes:
    raise ValueError(f"mode must be one of {list(modes)}")


def _conv_direct(in1, in2, mode: str, precision, centre_up: bool = False):
  """The N-D convolution of two promoted arrays of equal rank, as one conv_general_dilated: the
  kernel flipped, padded for the mode. "same" is the centre of the full result, of ``in1``'s
  shape; an even kernel's extra point goes before it (after it with ``centre_up``, as SciPy's
  ``correlate2d`` centres)."""
  if in1.ndim == 0:
    return in1 * in2
  smaller = all(a <= b for a, b in zip(in1.shape, in2.shape))
  if not smaller and not all(a >= b for a, b in zip(in1.shape, in2.shape)):
    raise ValueError("One input must be smaller than the other in every dimension.")
  if mode == "valid" and smaller:
    in1, in2 = in2, in1
  kernel = lax.rev(in2, tuple(range(in2.ndim)))
  if mode == "full":
    pads = [(k - 1, k - 1) for k in in2.shape]
  elif mode == "same":
    pads = [((k - 1) // 2, k // 2) if centre_up else (k // 2, (k - 1) // 2) for k in in2.shape]
  else:
    pads = [(0, 0)] * in2.ndim
  out = lax.conv_general_dilated(in1[None, None], kernel[None, None], (1,) * in1.ndim, pads,
                                 precision=precision)
  return out[0, 0]


def _convolve(name: str, in1, in2, mode, method, precision, correlate: bool,
              centre_up: bool = False):
  if method not in ("auto", "direct", "fft"):
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
  if method != "fft":
    _check_mode(mode)
  if in1.ndim != in2.ndim:  # reads .ndim off the arguments, as JAX does
    raise ValueError("in1 and in2 must have the same number of dimensions")
  check_arraylike(name, in1, in2)
  in1, in2 = promote_dtypes_inexact(ensure_array(in1), ensure_array(in2))
  if in1.size == 0 or in2.size == 0:
    raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                     f"{in1.shape} and {in2.shape}.")
  if correlate:
    in2 = jnp.conj(lax.rev(in2, tuple(range(in2.ndim))))
  if method == "fft":
    return fftconvolve(in1, in2, mode=mode)
  return _conv_direct(in1, in2, mode, precision, centre_up)


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
  """The N-dimensional convolution of ``in1`` and ``in2``.

  Args:
      in1, in2: arrays of the same rank.
      mode: "full" (every overlap), "same" (the centre, of ``in1``'s shape) or "valid" (full
          overlaps only).
      method: "auto" or "direct" (``lax.conv_general_dilated``), or "fft" (``fftconvolve``).
      precision: the convolution's precision, as ``lax.conv_general_dilated`` takes it.

  Returns:
      The convolution, of the inputs' promoted inexact dtype.

  Raises:
      ValueError: for another mode or method, inputs of different ranks or of size zero, or,
          in "valid" mode, an input larger than the other in some dimensions but not all.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.convolve(jnp.array([1., 2., 3., 4.]), jnp.array([1., 0., -1.]), mode="same")
      Array([ 2.,  2.,  2., -3.], dtype=float32)
  """
  return _convolve("convolve", in1, in2, mode, method, precision, correlate=False)


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
  """The N-dimensional cross-correlation of ``in1`` and ``in2``: the convolution of ``in1``
  with ``in2`` reversed (and conjugated, when complex).

  Args:
      in1, in2: arrays of the same rank.
      mode: "full", "same" or "valid", as in ``convolve``.
      method: "auto", "direct" or "fft", as in ``convolve``.
      precision: the convolution's precision.

  Returns:
      The correlation, of the inputs' promoted inexact dtype.

  Raises:
      ValueError: as ``convolve``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.correlate(jnp.array([1., 2., 3.]), jnp.array([1., 1.]))
      Array([1., 3., 5., 3.], dtype=float32)
  """
  return _convolve("correlate", in1, in2, mode, method, precision, correlate=True)


def _convolve2d(name, in1, in2, mode, boundary, fillvalue, precision, correlate: bool):
  if boundary != "fill" or fillvalue != 0:
    raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
  if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
    raise ValueError(f"{name}() only supports 2-dimensional inputs.")
  return _convolve(name, in1, in2, mode, "direct", precision, correlate, centre_up=correlate)


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue: float = 0,
               precision=None):
  """The 2-D convolution of ``in1`` and ``in2``.

  Args:
      in1, in2: 2-D arrays.
      mode: "full", "same" or "valid", as in ``convolve``.
      boundary: only "fill" (as JAX).
      fillvalue: only 0 (as JAX).
      precision: the convolution's precision.

  Returns:
      The convolution, of the inputs' promoted inexact dtype.

  Raises:
      NotImplementedError: for another boundary or fill value.
      ValueError: for inputs that are not 2-D, or as ``convolve``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.convolve2d(jnp.eye(2), jnp.array([[1., 2.], [3., 4.]]))
      Array([[1., 2., 0.],
             [3., 5., 2.],
             [0., 3., 4.]], dtype=float32)
  """
  return _convolve2d("convolve2d", in1, in2, mode, boundary, fillvalue, precision, False)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue: float = 0,
                precision=None):
  """The 2-D cross-correlation of ``in1`` and ``in2``.

  Args:
      in1, in2: 2-D arrays.
      mode: "full", "same" or "valid", as in ``convolve``.
      boundary: only "fill" (as JAX).
      fillvalue: only 0 (as JAX).
      precision: the convolution's precision.

  Returns:
      The correlation, of the inputs' promoted inexact dtype.

  Raises:
      NotImplementedError: for another boundary or fill value.
      ValueError: for inputs that are not 2-D, or as ``convolve``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.correlate2d(jnp.eye(2), jnp.array([[1., 2.], [3., 4.]]), mode="valid")
      Array([[5.]], dtype=float32)
  """
  return _convolve2d("correlate2d", in1, in2, mode, boundary, fillvalue, precision, True)


def _centered(x, axes, lengths, starts):
  for ax, n, start in zip(axes, lengths, starts):
    x = lax.slice_in_dim(x, start, start + n, axis=ax)
  return x


def fftconvolve(in1, in2, mode: str = "full", axes=None):
  """The N-dimensional convolution of ``in1`` and ``in2`` by FFTs over ``axes``.

  Args:
      in1, in2: arrays of the same rank, equal in the dimensions outside ``axes``.
      mode: "full", "same" or "valid", as in ``convolve``.
      axes: the axes to convolve over (default: all).

  Returns:
      The convolution, of the inputs' promoted inexact dtype.

  Raises:
      ValueError: for another mode, inputs of different ranks or differing outside ``axes``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.fftconvolve(jnp.array([1., 2.]), jnp.array([1., 1.])).round(4)
      Array([1., 3., 2.], dtype=float32)
  """
  check_arraylike("fftconvolve", in1, in2)
  in1, in2 = promote_dtypes_inexact(ensure_array(in1), ensure_array(in2))
  if in1.ndim != in2.ndim:
    raise ValueError("in1 and in2 should have the same dimensionality")
  _check_mode(mode, ("same", "full", "valid"))
  if in1.ndim == 0:
    return in1 * in2
  if axes is None:
    axes = tuple(range(in1.ndim))
  else:
    axes = tuple(dict.fromkeys(canonical_axis(ax, in1.ndim) for ax in axes))
  mapped = [d for d in range(in1.ndim) if d not in axes]
  if any(in1.shape[d] != in2.shape[d] for d in mapped):
    raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                     f"in2.shape={in2.shape} axes={axes}")
  if not axes:
    return in1 * in2
  out_shape = [in1.shape[ax] for ax in axes]
  if mode == "valid":
    sub1, sub2 = [in1.shape[ax] for ax in axes], [in2.shape[ax] for ax in axes]
    if not all(a >= b for a, b in zip(sub1, sub2)):
      if not all(a <= b for a, b in zip(sub1, sub2)):
        raise ValueError("For 'valid' mode, One input must be at least as large as the other "
                         "in every dimension.")
      in1, in2 = in2, in1
  full = [in1.shape[ax] + in2.shape[ax] - 1 for ax in axes]
  if dtypes.is_complex(in1.dtype):
    prod = jnp.fft.fftn(in1, full, axes) * jnp.fft.fftn(in2, full, axes)
    out = jnp.fft.ifftn(prod, full, axes)
  else:
    prod = jnp.fft.rfftn(in1, full, axes) * jnp.fft.rfftn(in2, full, axes)
    out = jnp.fft.irfftn(prod, full, axes)
  if mode == "full":
    return out
  if mode == "same":
    starts = [(f - n) // 2 for f, n in zip(full, out_shape)]
    return _centered(out, axes, out_shape, starts)
  lengths = [in1.shape[ax] - in2.shape[ax] + 1 for ax in axes]
  return _centered(out, axes, lengths, [in2.shape[ax] - 1 for ax in axes])


# --- detrending -----------------------------------------------------------------------------

def _linear_fit_removed(seg):
  """``seg`` (points along axis 0) less its least-squares line over ``(1..n) / n``."""
  n = seg.shape[0]
  design = np.stack([np.arange(1, n + 1) / n, np.ones(n)], axis=1)
  a = jnp.asarray(design, seg.dtype)
  coef = jnp.linalg.lstsq(a, seg)[0]
  return seg - a @ coef


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):
  """``data`` less its trend along ``axis``: its mean ("constant") or a least-squares line
  ("linear", piecewise between the breakpoints ``bp``).

  Args:
      data: the array.
      axis: the axis to detrend along.
      type: "linear" or "constant".
      bp: breakpoints (indices along ``axis``) between which lines are fitted separately.
      overwrite_data: not supported (JAX arrays are immutable).

  Returns:
      The detrended array, of ``data``'s promoted inexact dtype.

  Raises:
      ValueError: for another type, or breakpoints outside ``[0, data.shape[axis]]``.
      NotImplementedError: for ``overwrite_data``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.detrend(jnp.array([1., 3., 2., 6.]), type="constant")
      Array([-2.,  0., -1.,  3.], dtype=float32)
  """
  if overwrite_data is not None:
    raise NotImplementedError("overwrite_data argument not implemented.")
  if type not in ("constant", "linear"):
    raise ValueError("Trend type must be 'linear' or 'constant'.")
  data, = promote_dtypes_inexact(jnp.asarray(data))
  if type == "constant":
    return data - jnp.mean(data, axis, keepdims=True)
  n = data.shape[axis]  # IndexError for a bad axis, as JAX
  axis = axis % data.ndim
  bps = np.sort(np.unique(np.concatenate([[0], np.atleast_1d(np.asarray(bp, int)), [n]])))
  if np.any(bps > n) or np.any(bps < 0):
    raise ValueError("Breakpoints must be non-negative and less than length of data along "
                     "given axis.")
  if data.dtype in (np.float16, dtypes.bfloat16):  # no LAPACK least squares (KeyError in JAX)
    raise NotImplementedError(f"Unsupported dtype {data.dtype}: no least-squares solver for "
                              f"<class 'numpy.{data.dtype}'> (KeyError)")
  if n == 0:
    raise ZeroDivisionError("integer modulo by zero: detrend of an empty axis")
  moved = jnp.moveaxis(data, axis, 0)
  flat = moved.reshape(n, -1)
  pieces = [_linear_fit_removed(flat[lo:hi]) for lo, hi in zip(bps[:-1], bps[1:])]
  out = jnp.concatenate(pieces, axis=0).reshape(moved.shape)
  out = jnp.moveaxis(out, 0, axis)
  if dtypes.is_weakly_typed(data):
    out = lax._convert_element_type(out, out.dtype, True)
  return out


# --- spectral estimation ----------------------------------------------------------------------

_BOUNDARIES = ("even", "odd", "constant", "zeros", None)


def _extend(x, n: int, kind):
  """``x`` extended by ``n`` points at both ends of its last axis, as SciPy's ``even_ext``
  (mirrored, edge excluded), ``odd_ext`` (point-reflected), ``const_ext`` or ``zero_ext``."""
  if kind is None or n < 1:
    return x
  if kind == "zeros":
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)])
  if kind == "constant":
    left = jnp.repeat(x[..., :1], n, axis=-1)
    right = jnp.repeat(x[..., -1:], n, axis=-1)
  else:
    left, right = x[..., n:0:-1], x[..., -2:-(n + 2):-1]
    if kind == "odd":
      left, right = 2 * x[..., :1] - left, 2 * x[..., -1:] - right
  return jnp.concatenate([left, x, right], axis=-1)


def _window(window, nperseg, input_length: int, explicit: bool):
  """The window as an array, and the segment length it fixes (SciPy's ``_triage_segments``)."""
  if isinstance(window, (str, tuple)):
    if nperseg is None:
      nperseg = 256
    if nperseg > input_length:
      if explicit:
        warnings.warn(f"nperseg={nperseg} is greater than input_length={input_length}, "
                      f"using nperseg={input_length}", stacklevel=3)
      nperseg = input_length
    return jnp.asarray(get_window(window, nperseg)), nperseg
  win = jnp.asarray(window)
  if win.ndim != 1:
    raise ValueError("window must be 1-D")
  if input_length < win.shape[-1]:
    raise ValueError("window is longer than input signal")
  if nperseg is None:
    nperseg = win.shape[0]
  elif nperseg != win.shape[0]:
    raise ValueError("value specified for nperseg is different from length of window")
  return win, nperseg


def _detrend_func(kind, axis: int):
  """The per-segment detrending that ``kind`` names, of segments ``(..., segment, point)``; a
  function sees them where the data's time ``axis`` was (as ``(..., segment, point, ...)``)."""
  if isinstance(kind, str) and kind:
    return lambda d: detrend(d, type=kind, axis=-1)
  if callable(kind):
    def moved(d):
      if axis == d.ndim - 2:
        return kind(d)
      return jnp.moveaxis(kind(jnp.moveaxis(d, (-2, -1), (axis, axis + 1))), (axis, axis + 1),
                          (-2, -1))
    return moved
  if not kind:
    return lambda d: d
  raise ValueError(f"Unsupported detrend type: {kind}")


def _segments_fft(x, win, detrend_fn, nperseg: int, noverlap: int, nfft: int, onesided: bool):
  """The FFTs of the detrended, windowed segments of ``x`` along its last axis:
  shape ``(..., segments, frequencies)``."""
  nstep = nperseg - noverlap
  nseg = (x.shape[-1] - nperseg) // nstep + 1
  idx = np.arange(nseg)[:, None] * nstep + np.arange(nperseg)[None, :]
  frames = win * detrend_fn(x[..., idx])
  if not onesided:
    return jnp.fft.fft(frames, n=nfft)
  frames = jnp.real(frames)
  if frames.dtype in (np.float16, dtypes.bfloat16):
    raise ValueError(f"RFFT input must be float32 or float64, got {frames.dtype}")
  return jnp.fft.rfft(frames, n=nfft)


def _spectral_inputs(x, y, axis):
  """``(x, y, axis, out_dtype, outer)``: the signals as promoted arrays, the canonical time
  axis, the complex dtype of the result and (two signals) the broadcast shape of their other
  axes, after JAX's checks."""
  axis = canonical_axis(axis, x.ndim)  # reads .ndim off x, as JAX does
  if y is None:
    check_arraylike("spectral_helper", x)
    x, = promote_dtypes_inexact(jnp.asarray(x))
    return x, None, axis, dtypes.result_type(x.dtype, np.complex64), None
  check_arraylike("spectral_helper", x, y)
  x, y = (jnp.asarray(a) for a in promote_dtypes_inexact(x, y))
  if x.ndim != y.ndim:
    raise ValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
  try:
    outer = jnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                 y.shape[:axis] + y.shape[axis + 1:])
  except ValueError:
    raise ValueError("x and y cannot be broadcast together.") from None
  return x, y, axis, dtypes.result_type(x.dtype, y.dtype, np.complex64), outer


def _overlap_and_fft_length(nperseg: int, noverlap, nfft) -> tuple[int, int]:
  if nfft is None:
    nfft = nperseg
  elif nfft < nperseg:
    raise ValueError("nfft must be greater than or equal to nperseg.")
  noverlap = nperseg // 2 if noverlap is None else int(noverlap)
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  return noverlap, int(nfft)


def _extended_and_padded(x, nperseg: int, nstep: int, boundary, padded: bool):
  """``x`` (time last) extended at both ends by ``boundary``, then zero-padded (``padded``) to
  a whole number of segments."""
  if boundary is not None:
    x = _extend(x, nperseg // 2, boundary)
  if padded:
    nadd = (-(x.shape[-1] - nperseg) % nstep) % nperseg
    x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, nadd)])
  return x


def _spectral_scale(win, fs, scaling, mode: str):
  if scaling == "density":
    scale = 1.0 / (fs * jnp.sum(win * win))
  elif scaling == "spectrum":
    scale = 1.0 / jnp.sum(win) ** 2
  else:
    raise ValueError(f"Unknown scaling: {scaling}")
  return jnp.sqrt(scale) if mode == "stft" else scale


def _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
                     scaling, axis: int, mode: str, boundary=None, padded: bool = False,
                     nperseg_given: bool = True):
  """SciPy's ``_spectral_helper``: ``(freqs, times, result)`` for the STFT of ``x`` (``mode``
  "stft") or the cross spectral density of ``x`` and ``y`` (``y`` None: of ``x`` with itself).
  The result has the frequencies at ``axis`` and the segments last."""
  if boundary not in _BOUNDARIES:
    raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                     f"{list(_BOUNDARIES)}")
  x, y, axis, out_dtype, outer = _spectral_inputs(x, y, axis)
  real_dtype = np.dtype(dtypes.finfo(out_dtype).dtype)
  if nperseg is not None and int(nperseg) < 1:
    raise ValueError("nperseg must be a positive integer")
  win, nperseg = _window(window, None if nperseg is None else int(nperseg), x.shape[axis],
                         nperseg_given)
  if x.size == 0 or (y is not None and y.size == 0):
    shape = x.shape if y is None else outer + (min(x.shape[axis], y.shape[axis]),)
    empty = [jnp.moveaxis(jnp.zeros(shape, dt), -1, axis) if y is not None else jnp.zeros(shape, dt)
             for dt in (real_dtype, real_dtype, out_dtype)]
    return tuple(empty)
  noverlap, nfft = _overlap_and_fft_length(nperseg, noverlap, nfft)
  nstep = nperseg - noverlap
  x = jnp.moveaxis(x, axis, -1)
  if y is not None:  # the shorter signal is zero-padded
    y = jnp.moveaxis(y, axis, -1)
    n = max(x.shape[-1], y.shape[-1])
    x, y = (jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, n - a.shape[-1])]) for a in (x, y))
    y = _extended_and_padded(y, nperseg, nstep, boundary, padded)
  x = _extended_and_padded(x, nperseg, nstep, boundary, padded)
  win = win.astype(dtypes.finfo(x.dtype).dtype)
  scale = _spectral_scale(win, fs, scaling, mode)
  onesided = bool(return_onesided)
  if onesided and any(a is not None and dtypes.is_complex(a.dtype) for a in (x, y)):
    onesided = False
    warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
  freqs = (jnp.fft.rfftfreq if onesided else jnp.fft.fftfreq)(nfft).astype(real_dtype) * fs
  ffts = functools.partial(_segments_fft, win=win, detrend_fn=_detrend_func(detrend_type, axis),
                           nperseg=nperseg, noverlap=noverlap, nfft=nfft, onesided=onesided)
  result = ffts(x)
  if y is not None:
    result = jnp.conj(result) * ffts(y)
  elif mode == "psd":
    result = jnp.conj(result) * result
  result = result * scale
  if onesided and mode == "psd":  # both halves of the spectrum, but 0 and the Nyquist point
    result = result.at[..., 1:None if nfft % 2 else -1].multiply(2)
  time = jnp.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nstep, dtype=real_dtype) / fs
  if boundary is not None:
    time = time - (nperseg / 2) / fs
  result = result.astype(out_dtype)
  if y is None and mode != "stft":
    result = jnp.real(result)
  result = jnp.moveaxis(result, -1, axis)  # frequencies where the data's axis was
  return freqs.astype(real_dtype), time.astype(real_dtype), result


def stft(x, fs=1.0, window: str = "hann", nperseg: int = 256, noverlap: int | None = None,
         nfft: int | None = None, detrend: bool = False, return_onesided: bool = True,
         boundary: str | None = "zeros", padded: bool = True, axis: int = -1):
  """The short-time Fourier transform of ``x`` along ``axis``.

  Args:
      x: the signal.
      fs: its sampling frequency.
      window: a window name (or tuple of a name and parameters) or the window itself.
      nperseg: the length of each segment (the whole signal, with a warning, if longer).
      noverlap: the points shared by consecutive segments (default ``nperseg // 2``).
      nfft: the FFT length (default ``nperseg``).
      detrend: False, "constant", "linear", or a function applied to each segment.
      return_onesided: a one-sided spectrum for real data.
      boundary: the extension at both ends: "zeros", "even", "odd", "constant" or None.
      padded: zero-pad the end so that the last segment is whole.
      axis: the time axis.

  Returns:
      ``(freqs, times, Zxx)``: the frequencies, the segments' times and the STFT, whose
      frequencies are at ``axis`` and times last.

  Raises:
      ValueError: for a bad window, segment, overlap, FFT length or boundary.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> f, t, z = signal.stft(jnp.array([1., 2., 3., 4.]), nperseg=2)
      >>> f, t
      (Array([0. , 0.5], dtype=float32), Array([0., 1., 2., 3., 4.], dtype=float32))
  """
  return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                          return_onesided, "spectrum", axis, "stft", boundary, padded,
                          nperseg_given=nperseg is not None)


def _average(pxy, average: str):
  """The mean or the bias-corrected median of ``pxy`` over its last axis (the segments)."""
  if pxy.ndim < 2 or pxy.size == 0:
    return pxy
  if pxy.shape[-1] == 1:
    return pxy.reshape(pxy.shape[:-1])
  if average == "mean":
    return pxy.mean(axis=-1)
  if average != "median":
    raise ValueError(f'average must be "median" or "mean", got {average}')
  n = pxy.shape[-1]
  bias = 1 + sum(1 / (2 * k + 1) - 1 / (2 * k) for k in range(1, (n - 1) // 2 + 1))
  if dtypes.is_complex(pxy.dtype):
    med = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(jnp.imag(pxy), axis=-1)
  else:
    med = jnp.median(pxy, axis=-1)
  return med / bias


def csd(x, y, fs=1.0, window: str = "hann", nperseg: int | None = None,
        noverlap: int | None = None, nfft: int | None = None, detrend: str = "constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1,
        average: str = "mean"):
  """The cross power spectral density of ``x`` and ``y`` by Welch's method (averaged
  periodograms of overlapping, windowed segments).

  Args:
      x, y: the signals (``y`` None: ``x`` with itself, a real result).
      fs: the sampling frequency.
      window: a window name (or tuple of a name and parameters) or the window itself.
      nperseg: the length of each segment (default: 256, or the signal's length if shorter).
      noverlap: the points shared by consecutive segments (default ``nperseg // 2``).
      nfft: the FFT length (default ``nperseg``).
      detrend: "constant", "linear", False, or a function applied to each segment.
      return_onesided: a one-sided spectrum for real data.
      scaling: "density" (V**2/Hz) or "spectrum" (V**2).
      axis: the time axis.
      average: "mean" or "median" of the segments' periodograms.

  Returns:
      ``(freqs, Pxy)``.

  Raises:
      ValueError: for signals of different ranks or unbroadcastable, a bad window, segment,
          overlap, FFT length, scaling or average.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> f, p = signal.csd(jnp.array([1., 0., -1., 0.]), jnp.array([0., 1., 0., -1.]), nperseg=4)
      >>> f
      Array([0.  , 0.25, 0.5 ], dtype=float32)
  """
  freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                   return_onesided, scaling, axis, "psd",
                                   nperseg_given=nperseg is not None)
  return freqs, _average(pxy, average)


def welch(x, fs=1.0, window: str = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, detrend: str = "constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1,
          average: str = "mean"):
  """The power spectral density of ``x`` by Welch's method (``csd`` of ``x`` with itself).

  Args:
      x: the signal.
      fs: the sampling frequency.
      window: a window name (or tuple of a name and parameters) or the window itself.
      nperseg: the length of each segment (default: 256, or the signal's length if shorter).
      noverlap: the points shared by consecutive segments (default ``nperseg // 2``).
      nfft: the FFT length (default ``nperseg``).
      detrend: "constant", "linear", False, or a function applied to each segment.
      return_onesided: a one-sided spectrum for real data.
      scaling: "density" (V**2/Hz) or "spectrum" (V**2).
      axis: the time axis.
      average: "mean" or "median" of the segments' periodograms.

  Returns:
      ``(freqs, Pxx)``, ``Pxx`` real.

  Raises:
      ValueError: as ``csd``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> signal.welch(jnp.array([1., -1., 1., -1.]), nperseg=4, window="boxcar")
      (Array([0.  , 0.25, 0.5 ], dtype=float32), Array([0., 0., 4.], dtype=float32))
  """
  freqs, pxx = csd(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                   scaling, axis, average)
  return freqs, jnp.real(pxx)


def istft(Zxx, fs=1.0, window: str = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1, freq_axis: int = -2):
  """The inverse short-time Fourier transform: the signal whose ``stft`` is ``Zxx``, by
  overlap-add of the windowed inverse FFTs.

  Args:
      Zxx: the STFT, at least 2-D.
      fs: the sampling frequency.
      window: a window name (or tuple of a name and parameters) or the window itself.
      nperseg: the segment length (default: from the frequency axis; 0 also means default).
      noverlap: the points shared by consecutive segments (default, and for 0, ``nperseg // 2``).
      nfft: the FFT length (default: from the frequency axis).
      input_onesided: ``Zxx`` is a one-sided spectrum (the result is then real).
      boundary: the signal was extended at both ends (as ``stft``'s default): drop them.
      time_axis, freq_axis: the axes of the segments and of the frequencies.

  Returns:
      ``(times, x)``: as SciPy, ``times`` spans ``x``'s first axis.

  Raises:
      ValueError: for ``Zxx`` of fewer than 2 dimensions, equal axes, or a bad window,
          segment, overlap or FFT length.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import signal
      >>> x = jnp.array([1., 2., 3., 4., 5., 6.])
      >>> signal.istft(signal.stft(x, nperseg=4)[2], nperseg=4)[1].round(4)
      Array([1., 2., 3., 4., 5., 6.], dtype=float32)
  """
  check_arraylike("istft", Zxx)
  z = jnp.asarray(Zxx)
  if z.ndim < 2:
    raise ValueError("Input stft must be at least 2d!")
  freq_axis = canonical_axis(freq_axis, z.ndim)
  time_axis = canonical_axis(time_axis, z.ndim)
  if freq_axis == time_axis:
    raise ValueError("Must specify differing time and frequency axes!")
  nseg = z.shape[time_axis]
  n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
  if not nperseg:
    nperseg = n_default
  else:
    nperseg = int(nperseg)
    if nperseg < 1:
      raise ValueError("nperseg must be a positive integer")
  if nfft is None:
    nfft = n_default
  elif nfft < nperseg:
    raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
  nfft = int(nfft)
  noverlap = int(noverlap) if noverlap else nperseg // 2  # 0 too, as JAX
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  nstep = nperseg - noverlap
  outer = [d for d in range(z.ndim) if d not in (freq_axis, time_axis)]
  z = jnp.transpose(z, outer + [freq_axis, time_axis])
  if isinstance(window, (str, tuple)):
    win = jnp.asarray(get_window(window, nperseg))
  else:
    win = jnp.asarray(window)
    if win.ndim != 1:
      raise ValueError("window must be 1-D")
    if win.shape[0] != nperseg:
      raise ValueError(f"window must have length of {nperseg}")
  z, = promote_dtypes_inexact(z)
  xsubs = (jnp.fft.irfft if input_onesided else jnp.fft.ifft)(z, n=nfft, axis=-2)
  xsubs = xsubs[..., :nperseg, :]
  win = win.astype(dtypes.finfo(xsubs.dtype).dtype)
  if xsubs.shape[-2] != win.shape[0]:  # as JAX: an odd nperseg with the default nfft
    raise TypeError(f"mul got incompatible shapes for broadcasting: {xsubs.shape[-2:]}, "
                    f"{(win.shape[0], 1)}.")
  xsubs = xsubs * jnp.sum(win) * win[:, None]
  length = nperseg + (nseg - 1) * nstep
  # overlap-add: segment i's point j lands at i * nstep + j
  idx = (np.arange(nseg)[None, :] * nstep + np.arange(nperseg)[:, None]).ravel()
  x = jnp.zeros(xsubs.shape[:-2] + (length,), xsubs.dtype)
  x = x.at[..., idx].add(xsubs.reshape(xsubs.shape[:-2] + (-1,)))
  norm = jnp.zeros((length,), win.dtype).at[idx].add(jnp.repeat(win ** 2, nseg))
  if boundary:
    x = x[..., nperseg // 2:-(nperseg // 2)]
    norm = norm[nperseg // 2:-(nperseg // 2)]
  x = x / jnp.where(norm > 1e-10, norm, 1.0)
  if input_onesided:
    x = jnp.real(x)
  if x.ndim > 1 and time_axis != z.ndim - 1:
    x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
  times = jnp.arange(x.shape[0], dtype=dtypes.finfo(x.dtype).dtype) / fs
  return times.astype(dtypes.finfo(x.dtype).dtype), x
