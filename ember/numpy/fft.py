"""ember.numpy.fft: NumPy's discrete Fourier transforms (mirrors ``jax.numpy.fft``).

The transforms run ``lax.fft`` over the requested axes (moved last, and cropped or zero-padded
to the requested lengths), at most three at a time. As in JAX, results are complex64 (float32
for irfft/hfft) unless the input is 64-bit with x64 enabled; ``norm`` is "backward" (the
default: inverse transforms scale by 1/n), "ortho" (both by 1/sqrt(n)) or "forward" (forward
transforms scale by 1/n).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.fft.fft(jnp.array([1., 0., 0., 0.]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
"""
from __future__ import annotations

import math
import numbers
import operator
import textwrap

import numpy as np

from ember import dtypes, lax
from ember.core.trace import get_aval
from ember.lax.fourier import FftType, fft_p
from ember.numpy import creation as _creation
from ember.numpy._util import canonicalize_axis, check_arraylike

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _check_norm(norm) -> str:
  norm = "backward" if norm is None else norm
  if norm not in _NORMS:
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
  return norm


def _resize(x, axis: int, n: int):
  """``x`` cropped or zero-padded to length ``n`` along ``axis``."""
  shape = get_aval(x).shape
  if shape[axis] == n:
    return x
  if shape[axis] > n:
    return lax.slice_in_dim(x, 0, n, axis=axis)
  config = [(0, 0, 0)] * len(shape)
  config[axis] = (0, n - shape[axis], 0)
  return lax.pad(x, np.zeros((), get_aval(x).dtype), config)


def _input_dtype(dt, fft_type: FftType):
  """The dtype lax.fft takes: complex, or real float32/float64 for RFFT (integers and booleans
  become the default float; a narrower float raises, as in JAX)."""
  if fft_type == FftType.RFFT and dtypes.issubdtype(dt, np.floating) and \
      np.dtype(dt) not in (np.float32, np.float64):
    raise ValueError(f"RFFT input must be float32 or float64, got {np.dtype(dt)}")
  cdt = dtypes.to_complex_dtype(dtypes.to_inexact_dtype(dt))
  return np.dtype(dtypes.finfo(cdt).dtype) if fft_type == FftType.RFFT else cdt


def _fft_trailing(x, *, fft_type: FftType, fft_lengths: tuple):
  """lax.fft over the trailing ``len(fft_lengths)`` axes, in passes of at most three axes: the
  leading ones complex-to-complex, so that RFFT runs first and IRFFT last."""
  dt = _input_dtype(get_aval(x).dtype, fft_type)
  if get_aval(x).dtype != dt:
    x = lax._convert_element_type(x, dt)
  nd = get_aval(x).ndim
  k = len(fft_lengths)
  if k <= 3:
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)
  full = FftType.IFFT if fft_type in (FftType.IFFT, FftType.IRFFT) else FftType.FFT
  last = fft_lengths[-3:]
  rest = fft_lengths[:-3]
  perm = tuple(range(nd - k)) + tuple(range(nd - 3, nd)) + tuple(range(nd - k, nd - 3))
  inv = tuple(int(i) for i in np.argsort(perm))
  if fft_type == FftType.IRFFT:  # the complex passes over the leading axes come first
    x = lax.transpose(_fft_trailing(lax.transpose(x, perm), fft_type=full, fft_lengths=rest),
                      inv)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=last)
  x = fft_p.bind(x, fft_type=fft_type, fft_lengths=last)
  return lax.transpose(_fft_trailing(lax.transpose(x, perm), fft_type=full, fft_lengths=rest),
                       inv)


def _named_jit(fun, name):
  from ember.numpy.creation import named_jit
  return named_jit(fun, name, static_argnames=("fft_type", "fft_lengths"))


_fft_jit = _named_jit(_fft_trailing, "fft")


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
  full_name = f"jax.numpy.fft.{func_name}"
  check_arraylike(full_name, a)
  norm = _check_norm(norm)
  arr = _creation.asarray(a)
  nd = get_aval(arr).ndim
  if s is not None:
    s = tuple(operator.index(d) for d in s)
    if any(d < 1 for d in s):
      raise ValueError(f"Shape should be positive: {full_name} got s = {s} (n = s[0] for the "
                       "1-D transforms); each transform length must be at least 1.")
  if axes is None:
    axes = tuple(range(nd - len(s), nd)) if s is not None else tuple(range(nd))
  else:
    orig = tuple(axes)
    axes = tuple(canonicalize_axis(ax, nd) for ax in axes)
    if len(set(axes)) != len(axes):
      raise ValueError(f"{full_name} does not support repeated axes. Got axes {orig}.")
  if s is not None and len(s) != len(axes):
    raise ValueError("Shape and axes have different lengths.")
  if fft_type == FftType.RFFT and dtypes.is_complex(get_aval(arr).dtype):
    raise ValueError("only real valued inputs supported for rfft")
  if not axes:  # nothing to transform: the input in the dtype the transform takes
    kind = FftType.RFFT if fft_type == FftType.RFFT else FftType.FFT
    return lax._convert_element_type(arr, _input_dtype(get_aval(arr).dtype, kind))
  shape = get_aval(arr).shape
  if s is None:
    s = tuple(shape[ax] for ax in axes)
    if fft_type == FftType.IRFFT:
      s = s[:-1] + (2 * (s[-1] - 1),)
  in_s = s[:-1] + (s[-1] // 2 + 1,) if fft_type == FftType.IRFFT else s
  for ax, n in zip(axes, in_s):
    arr = _resize(arr, ax, n)
  perm = tuple(d for d in range(nd) if d not in axes) + axes
  if perm != tuple(range(nd)):
    arr = lax.transpose(arr, perm)
  out = _fft_jit(arr, fft_type=fft_type, fft_lengths=s)
  scale = _norm_scale(math.prod(s), norm, inverse=fft_type in (FftType.IFFT, FftType.IRFFT))
  if scale != 1:
    out = lax.mul(out, np.array(scale, get_aval(out).dtype))
  if perm != tuple(range(nd)):
    out = lax.transpose(out, tuple(int(i) for i in np.argsort(perm)))
  return out


def _norm_scale(n: int, norm: str, inverse: bool) -> float:
  if norm == "ortho":
    return math.sqrt(n) if inverse else 1 / math.sqrt(n)
  if norm == "forward":
    return n if inverse else 1 / n
  return 1


def _axis_1d(func_name: str, axis):
  if isinstance(axis, (list, tuple)):
    raise ValueError(f"jax.numpy.fft.{func_name} does not support multiple axes. Please use "
                     f"jax.numpy.fft.{func_name}n. Got axis = {axis}.")
  return (axis,)


def _axes_2d(func_name: str, axes):
  axes = tuple(axes)
  if len(axes) != 2:
    raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes}.")
  return axes


def _document(f, name: str, doc: str, example: str):
  """Name the generated transform and give it ``doc`` and a doctest of ``example``."""
  f.__name__ = f.__qualname__ = name
  f.__doc__ = (f"{doc}\n\nExample:\n    >>> import ember.numpy as jnp\n"
               + textwrap.indent(example, "    "))
  return f


def _one_d(name: str, fft_type: FftType, doc: str, example: str):
  def f(a, n=None, axis: int = -1, norm=None):
    s = None if n is None else (n,)
    return _fft_core(name, fft_type, a, s, _axis_1d(name, axis), norm)
  return _document(f, name, doc, example)


def _two_d(name: str, fft_type: FftType, doc: str, example: str):
  def f(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core(name, fft_type, a, s, _axes_2d(name, axes), norm)
  return _document(f, name, doc, example)


def _n_d(name: str, fft_type: FftType, doc: str, example: str):
  def f(a, s=None, axes=None, norm=None):
    return _fft_core(name, fft_type, a, s, axes, norm)
  return _document(f, name, doc, example)


_SPECTRUM_2D = """\
Array([[10.+0.j, -2.+0.j],
       [-4.+0.j,  0.+0.j]], dtype=complex64)
"""
fft = _one_d("fft", FftType.FFT, "The 1-D discrete Fourier transform along ``axis``.", """\
>>> jnp.fft.fft(jnp.array([1., 2., 0., 1.]))
Array([ 4.+0.j,  1.-1.j, -2.+0.j,  1.+1.j], dtype=complex64)
""")
ifft = _one_d("ifft", FftType.IFFT, "The inverse of ``fft``.", """\
>>> jnp.fft.ifft(jnp.array([4.+0.j, 1.-1.j, -2.+0.j, 1.+1.j]))
Array([1.+0.j, 2.+0.j, 0.+0.j, 1.+0.j], dtype=complex64)
""")
rfft = _one_d("rfft", FftType.RFFT, "``fft`` of a real input: the n // 2 + 1 non-negative "
              "frequencies.", """\
>>> jnp.fft.rfft(jnp.array([1., 2., 0., 1.]))
Array([ 4.+0.j,  1.-1.j, -2.+0.j], dtype=complex64)
""")
irfft = _one_d("irfft", FftType.IRFFT, "The inverse of ``rfft`` (a real output of length n, "
               "by default 2 * (m - 1) for m input frequencies).", """\
>>> jnp.fft.irfft(jnp.array([4.+0.j, 1.-1.j, -2.+0.j]))
Array([1., 2., 0., 1.], dtype=float32)
""")
fft2 = _two_d("fft2", FftType.FFT, "The 2-D discrete Fourier transform over ``axes``.",
              ">>> jnp.fft.fft2(jnp.array([[1., 2.], [3., 4.]]))\n" + _SPECTRUM_2D)
ifft2 = _two_d("ifft2", FftType.IFFT, "The inverse of ``fft2``.", """\
>>> jnp.fft.ifft2(jnp.array([[10., -2.], [-4., 0.]]))
Array([[1.+0.j, 2.+0.j],
       [3.+0.j, 4.+0.j]], dtype=complex64)
""")
rfft2 = _two_d("rfft2", FftType.RFFT, "``fft2`` of a real input (half of the last axis).",
               ">>> jnp.fft.rfft2(jnp.array([[1., 2.], [3., 4.]]))\n" + _SPECTRUM_2D)
irfft2 = _two_d("irfft2", FftType.IRFFT, "The inverse of ``rfft2``.", """\
>>> jnp.fft.irfft2(jnp.array([[10., -2.], [-4., 0.]]), s=(2, 2))
Array([[1., 2.],
       [3., 4.]], dtype=float32)
""")
fftn = _n_d("fftn", FftType.FFT, "The N-D discrete Fourier transform over ``axes`` (all by "
            "default, or the last len(s)).",
            ">>> jnp.fft.fftn(jnp.array([[1., 2.], [3., 4.]]))\n" + _SPECTRUM_2D)
ifftn = _n_d("ifftn", FftType.IFFT, "The inverse of ``fftn``.", """\
>>> jnp.fft.ifftn(jnp.array([4.+0.j, 1.-1.j, -2.+0.j, 1.+1.j]))
Array([1.+0.j, 2.+0.j, 0.+0.j, 1.+0.j], dtype=complex64)
""")
rfftn = _n_d("rfftn", FftType.RFFT, "``fftn`` of a real input (half of the last axis).",
             ">>> jnp.fft.rfftn(jnp.array([[1., 2.], [3., 4.]]))\n" + _SPECTRUM_2D)
irfftn = _n_d("irfftn", FftType.IRFFT, "The inverse of ``rfftn``.", """\
>>> jnp.fft.irfftn(jnp.array([[10., -2.], [-4., 0.]]), s=(2, 2))
Array([[1., 2.],
       [3., 4.]], dtype=float32)
""")


def hfft(a, n=None, axis: int = -1, norm=None):
  """The FFT of a signal with Hermitian symmetry given by its first half: a real spectrum of
  length n (by default 2 * (m - 1)).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.hfft(jnp.array([1., 2., 1.]))
      Array([ 6.,  0., -2.,  0.], dtype=float32)
  """
  check_arraylike("jax.numpy.fft.hfft", a)
  norm = _SWAP[_check_norm(norm)]
  from ember.numpy.ufuncs_math import conjugate  # jnp.conj: real inputs come back as they are
  return irfft(conjugate(_creation.asarray(a)), n, axis, norm)


def ihfft(a, n=None, axis: int = -1, norm=None):
  """The inverse of ``hfft``: the first n // 2 + 1 frequencies of a real signal's Hermitian
  spectrum.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.ihfft(jnp.array([6., 0., 2., 0.]))
      Array([2.-0.j, 1.-0.j, 2.-0.j], dtype=complex64)
  """
  check_arraylike("jax.numpy.fft.ihfft", a)
  norm = _SWAP[_check_norm(norm)]
  return lax.conj(rfft(a, n, axis, norm))


def _freq_args(name: str, n, d, dtype):
  """``n`` as an int, ``d`` as a float (or array) and the result dtype, with JAX's errors."""
  if isinstance(n, (list, tuple)):
    raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                     f"Got n = {list(n)}.")
  if isinstance(d, (list, tuple)):
    raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                     f"Got d = {list(d)}.")
  if isinstance(d, numbers.Number):
    d = float(d)  # a complex spacing raises float()'s TypeError, as in JAX
  elif isinstance(d, (str, bytes)):
    raise ValueError(f"The d argument of jax.numpy.fft.{name} is the sample spacing, a number; "
                     f"got d = {d!r}.")
  try:
    n = operator.index(n)
  except TypeError:
    if isinstance(n, float) and not n.is_integer():
      raise TypeError(f"The n argument of jax.numpy.fft.{name} is a number of samples, an "
                      f"integer; got n = {n}.") from None
    n = int(n)
  dt = dtypes.default_float_dtype() if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, name)
  return n, d, dt


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
  """The sample frequencies of an n-point DFT with sample spacing ``d``:
  [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n).

  The frequencies are computed in floating point and then cast to ``dtype``, as in JAX (so an
  integer dtype truncates them).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.fftfreq(5, 0.5)
      Array([ 0. ,  0.4,  0.8, -0.8, -0.4], dtype=float32)
  """
  n, d, dt = _freq_args("fftfreq", n, d, dtype)
  work = dt if dtypes.issubdtype(dt, np.inexact) else dtypes.default_float_dtype()
  k = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(work)
  freqs = _creation.asarray(k, device=device) / (_creation.asarray(d) * n)
  return lax._convert_element_type(freqs, dt)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
  """The sample frequencies of rfft's output: [0, 1, ..., n // 2] / (d n).

  As in JAX, ``dtype`` is that of the indices 0..n // 2 and of ``d n`` (an integer dtype
  truncates ``d n``); the quotient is a true division, so integer dtypes give floats.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.rfftfreq(5, 2)
      Array([0. , 0.1, 0.2], dtype=float32)
  """
  n, d, dt = _freq_args("rfftfreq", n, d, dtype)
  k = _creation.arange(n // 2 + 1, dtype=dt, device=device)
  return k / lax._convert_element_type(_creation.asarray(d) * n, dt)


def _shift(x, axes, sign: int):
  from ember.numpy.shape_ops import roll
  check_arraylike("fftshift", x)
  x = _creation.asarray(x)
  shape = get_aval(x).shape
  if axes is None:
    axes = tuple(range(len(shape)))
  else:
    axes = tuple(canonicalize_axis(ax, len(shape)) for ax in np.atleast_1d(axes).tolist())
  shifts = tuple(sign * (shape[ax] // 2) for ax in axes)
  return roll(x, shifts, tuple(axes))


def fftshift(x, axes=None):
  """``x`` rolled so that the zero frequency sits in the middle of each of ``axes``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.fftshift(jnp.arange(5))
      Array([3, 4, 0, 1, 2], dtype=int32)
  """
  return _shift(x, axes, 1)


def ifftshift(x, axes=None):
  """The inverse of ``fftshift``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fft.ifftshift(jnp.array([3, 4, 0, 1, 2]))
      Array([0, 1, 2, 3, 4], dtype=int32)
  """
  return _shift(x, axes, -1)
