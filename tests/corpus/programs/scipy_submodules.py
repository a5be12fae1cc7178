"""jax.scipy's smaller submodules: signal (convolutions, detrend, stft/istft, csd, welch), fft
(the type-2 DCT family), integrate (trapezoid), ndimage (map_coordinates), interpolate
(RegularGridInterpolator), cluster.vq and spatial.transform (Rotation, Slerp).

Each program targets one function or one theme: its options and modes, integer, boolean and
complex inputs (dtypes and weak types), float64 under x64, gradients, jit and vmap where they
matter, and the errors JAX raises for bad arguments. scipy_edge.py holds the first handful of
programs on these modules; this module covers the rest. Submodules are looked up inside the
programs, so a framework lacking one shows as that program's error."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


def sig():
  return submodule("scipy.signal")


def dctmod():
  return submodule("scipy.fft")


def rot():
  return submodule("scipy.spatial.transform")


def f32(*v):
  return jnp.array(v, jnp.float32)


def ramp(n, scale=0.37):
  """A deterministic, irregular float32 signal of length n."""
  t = np.arange(n, dtype=np.float64)
  return jnp.asarray(np.sin(t * scale) + 0.3 * np.cos(t * 1.7) + 0.02 * t, jnp.float32)


# --- signal: convolutions -------------------------------------------------------------------------

@program
def signal_convolve_nd_modes():
  s = sig()
  a = jnp.arange(12.0).reshape(3, 4) / 3
  k = jnp.array([[1., -2.], [0.5, 3.]])
  b = jnp.arange(8.0).reshape(2, 2, 2)
  return (s.convolve(a, k), s.convolve(a, k, mode="same"), s.convolve(a, k, mode="valid"),
          s.convolve(k, a, mode="valid"), s.convolve(k, a, mode="same"),
          s.convolve(b, jnp.ones((2, 1, 2)), mode="same"), s.convolve(b, b[:1], mode="valid"))


@program
def signal_correlate_nd_and_2d_same_centering():
  s = sig()
  a = jnp.arange(12.0).reshape(4, 3)
  k = jnp.array([[1., 2.], [3., 5.]])
  k3 = jnp.array([[1., 0., 2.], [0., 1., 0.], [4., 0., -1.]])
  return (s.correlate(a, k, mode="same"), s.correlate2d(a, k, mode="same"),
          s.correlate2d(a, k3, mode="same"), s.correlate(a, k3, mode="same"),
          s.correlate2d(a, k), s.correlate2d(a, k, mode="valid"), s.convolve2d(a, k, mode="same"),
          s.correlate2d(k, a, mode="same"))


@program
def signal_convolve_1d_length_combinations():
  s = sig()
  x = f32(1., -2., 3., 0.5, 4.)
  outs = []
  for k in (f32(2.), f32(1., 1.), f32(1., 2., 3., 4.), ramp(7)):
    for mode in ("full", "same", "valid"):
      outs.append(s.convolve(x, k, mode=mode))
      outs.append(s.correlate(x, k, mode=mode))
  return tuple(outs)


@program
def signal_convolve_dtypes():
  s = sig()
  i = jnp.array([1, 2, 3], jnp.int32)
  return (s.convolve(i, jnp.array([1, -1], jnp.int32)), s.correlate(jnp.array([True, False, True]),
          jnp.array([True, True])), s.convolve(i, f32(0.5, 0.5)),
          s.convolve(jnp.array([1., 2.], jnp.float16), jnp.array([1., 1.], jnp.float16)),
          s.convolve(jnp.array([1., 2.], jnp.bfloat16), jnp.array([3., 1.], jnp.bfloat16)),
          s.convolve(jnp.array([1., 2.], jnp.float16), f32(1., 1.)),
          s.convolve(jnp.asarray(2.0), jnp.asarray(3.0)),
          s.convolve(jnp.float32(2.), jnp.float32(3.)),
          s.convolve(np.arange(3.0, dtype=np.float32), np.ones(2, np.float32)))


@program
def signal_convolve_complex():
  s = sig()
  a = jnp.array([1 + 1j, 2 - 1j, 0.5j], jnp.complex64)
  b = jnp.array([1j, 1., -2.], jnp.complex64)
  r = f32(1., 2.)
  return (s.convolve(a, b), s.correlate(a, b), s.correlate(b, a, mode="same"),
          s.correlate(a, r, mode="valid"), s.correlate2d(a[None], b[None]),
          s.correlate(a, b, method="fft"), s.fftconvolve(a, r), s.fftconvolve(r, b, mode="same"))


@program(x64=True)
def signal_convolve_f64_and_int64():
  s = sig()
  x = jnp.arange(5.0) / 3
  return (s.convolve(x, jnp.array([1., 2., 3.])),
          s.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1])),
          s.convolve(f32(1., 2.), f32(1., 1.)), s.fftconvolve(x, jnp.array([1., -1.])),
          s.fftconvolve(jnp.array([1, 2]), jnp.array([3, 4])),
          s.convolve2d(jnp.eye(2), jnp.ones((2, 2))),
          s.correlate(x * 1j, x, method="fft"))


@program
def signal_convolve_methods_and_precision():
  s = sig()
  x = ramp(9)
  k = f32(0.25, 0.5, -0.75)
  return (s.convolve(x, k, method="direct"), s.convolve(x, k, method="fft"),
          s.convolve(x, k, mode="same", method="fft"),
          s.correlate(x, k, mode="valid", method="fft"),
          s.convolve(x, k, precision="highest"), s.correlate(x, k, precision=lax.Precision.HIGHEST))


@program
def signal_convolve_bad_method():
  return sig().convolve(f32(1., 2.), f32(1.), method="spectral")


@program
def signal_convolve_bad_method_before_bad_mode():
  return sig().convolve(f32(1., 2.), f32(1.), mode="x", method="y")


@program
def signal_convolve_fft_method_bad_mode():
  return sig().convolve(f32(1., 2.), f32(1.), mode="x", method="fft")


@program
def signal_convolve_rank_mismatch():
  return sig().convolve(jnp.ones((2, 2)), jnp.ones(2))


@program
def signal_convolve_empty_input():
  return sig().convolve(jnp.ones(0), jnp.ones(2))


@program
def signal_convolve_nd_neither_smaller_full():
  return sig().convolve(jnp.ones((1, 5)), jnp.ones((3, 4)))


@program
def signal_convolve_nd_neither_smaller_valid():
  return sig().convolve2d(jnp.ones((2, 4)), jnp.ones((3, 2)), mode="valid")


@program
def signal_convolve_python_scalars_raise():
  return sig().convolve(2.0, 3.0)


@program
def signal_convolve2d_rejects_1d():
  return sig().convolve2d(jnp.ones(3), jnp.ones(2))


@program
def signal_convolve2d_rejects_boundary():
  return sig().convolve2d(jnp.ones((3, 3)), jnp.ones((2, 2)), boundary="wrap")


@program
def signal_correlate2d_rejects_fillvalue():
  return sig().correlate2d(jnp.ones((3, 3)), jnp.ones((2, 2)), fillvalue=1)


@program
def signal_convolve2d_bad_mode():
  return sig().convolve2d(jnp.ones((3, 3)), jnp.ones((2, 2)), mode="circular")


@program
def signal_convolve2d_int_and_bool():
  s = sig()
  return (s.convolve2d(jnp.ones((2, 3), jnp.int32), jnp.array([[1, 2]], jnp.int32)),
          s.correlate2d(jnp.eye(3, dtype=bool), jnp.array([[True, False], [False, True]])))


# --- signal: fftconvolve --------------------------------------------------------------------------

@program
def signal_fftconvolve_modes_and_shapes():
  s = sig()
  a = jnp.arange(12.0).reshape(3, 4)
  k = jnp.array([[1., 2.], [3., -1.]])
  x = ramp(6)
  return (s.fftconvolve(a, k), s.fftconvolve(a, k, mode="same"), s.fftconvolve(a, k, mode="valid"),
          s.fftconvolve(k, a, mode="valid"), s.fftconvolve(x, f32(1., 2., 1.), mode="same"),
          s.fftconvolve(f32(1., 2.), x, mode="same"), s.fftconvolve(jnp.ones(0), jnp.ones(2)))


@program
def signal_fftconvolve_axes():
  s = sig()
  a = jnp.arange(12.0).reshape(3, 4)
  k = jnp.array([[1., 2.], [0.5, 1.], [2., 0.]])
  return (s.fftconvolve(a, k, axes=[1]), s.fftconvolve(a, k, axes=(-1,), mode="same"),
          s.fftconvolve(a, k, axes=[1, 1]), s.fftconvolve(a, a, axes=[]),
          s.fftconvolve(a, k[:, :1], axes=[1], mode="valid"))


@program
def signal_fftconvolve_dtypes_and_scalars():
  s = sig()
  return (s.fftconvolve(jnp.array([1, 2, 3]), jnp.array([1, 1])),
          s.fftconvolve(jnp.array([True]), jnp.array([True, True])),
          s.fftconvolve(2.0, 3.0), s.fftconvolve(jnp.float32(2.), jnp.float32(3.)))


@program
def signal_fftconvolve_half_precision_raises():
  return sig().fftconvolve(jnp.ones(3, jnp.float16), jnp.ones(2, jnp.float16))


@program
def signal_fftconvolve_mapped_axes_must_match():
  return sig().fftconvolve(jnp.ones((2, 3)), jnp.ones((1, 2)), axes=[1])


@program
def signal_fftconvolve_valid_neither_larger():
  return sig().fftconvolve(jnp.ones((2, 4)), jnp.ones((3, 2)), mode="valid")


@program
def signal_fftconvolve_bad_mode():
  return sig().fftconvolve(f32(1., 2.), f32(1.), mode="wrap")


@program
def signal_fftconvolve_rank_mismatch():
  return sig().fftconvolve(jnp.ones((2, 2)), jnp.ones(2))


@program
def signal_fftconvolve_axis_out_of_bounds():
  return sig().fftconvolve(jnp.ones((2, 3)), jnp.ones((2, 3)), axes=[2])


@program
def signal_fftconvolve_list_raises():
  return sig().fftconvolve([1., 2.], [1., 2.])


# --- signal: gradients, jit, vmap of convolutions -----------------------------------------------

@program
def signal_convolve_grads():
  s = sig()
  k = f32(1., 2., 3.)
  g1 = jax.grad(lambda a: (s.convolve(a, k, mode="same") ** 2).sum())(jnp.arange(4.))
  g2 = jax.grad(lambda b: s.correlate(jnp.arange(4.), b, mode="valid").sum())(k)
  g3 = jax.grad(lambda a: s.fftconvolve(a, k, mode="valid").sum())(jnp.arange(5.))
  g4 = jax.grad(lambda a: s.convolve2d(a, jnp.eye(2)).sum())(jnp.ones((2, 3)))
  return g1, g2, g3, g4


@program
def signal_convolve_jit_and_vmap():
  s = sig()
  x = jnp.arange(8.0).reshape(2, 4)
  return (jax.jit(s.convolve, static_argnames=("mode",))(x[0], f32(1., 1.), mode="valid"),
          jax.vmap(s.correlate, in_axes=(0, None))(x, f32(1., -1.)),
          jax.vmap(s.convolve2d, in_axes=(0, None))(x.reshape(2, 2, 2), jnp.ones((2, 2))),
          jax.vmap(lambda a: s.fftconvolve(a, f32(0.5, 0.5)))(x))


# --- signal: detrend ---------------------------------------------------------------------------

@program(atol=3e-6, rtol=3e-5)
def signal_detrend_types_and_breakpoints():
  s = sig()
  x = ramp(8)
  return (s.detrend(x), s.detrend(x, type="constant"), s.detrend(x, bp=[3]),
          s.detrend(x, bp=[2, 5]), s.detrend(x, bp=np.array([3])), s.detrend(x, bp=[0, 8]),
          s.detrend(x, type="constant", bp=[3]))


@program(atol=3e-6, rtol=3e-5)
def signal_detrend_axes_and_dtypes():
  s = sig()
  m = jnp.arange(6.0).reshape(3, 2) ** 2
  return (s.detrend(m, axis=0), s.detrend(m.T), s.detrend(m, axis=0, type="constant"),
          s.detrend(jnp.array([1, 2, 4])), s.detrend(jnp.array([True, False, True])),
          s.detrend(jnp.array([1 + 1j, 2, 4j], jnp.complex64)), s.detrend([1., 2., 4.]),
          s.detrend(jnp.array([3.])), s.detrend(jnp.broadcast_to(jnp.asarray(2.0), (3,)),
                                                  type="constant"))


@program(x64=True)
def signal_detrend_f64():
  s = sig()
  x = jnp.arange(7.0) ** 1.5
  return (s.detrend(x), s.detrend(x, bp=[4]), s.detrend(jnp.array([1, 2, 4])),
          s.detrend(x, type="constant"))


@program(atol=3e-6, rtol=3e-5)
def signal_detrend_grad():
  s = sig()
  return (jax.grad(lambda y: s.detrend(y)[0])(f32(1., 2., 4.)),
          jax.grad(lambda y: (s.detrend(y, type="constant") ** 2).sum())(f32(1., 2., 4.)))


@program
def signal_detrend_bad_type():
  return sig().detrend(f32(1., 2., 3.), type="quadratic")


@program
def signal_detrend_abbreviated_type_raises():
  return sig().detrend(f32(1., 2., 3.), type="l")


@program
def signal_detrend_breakpoint_beyond_data():
  return sig().detrend(ramp(8), bp=[9])


@program
def signal_detrend_negative_breakpoint():
  return sig().detrend(ramp(8), bp=[-1])


@program
def signal_detrend_overwrite_data():
  return sig().detrend(f32(1., 2.), overwrite_data=True)


@program
def signal_detrend_bad_axis():
  return sig().detrend(jnp.ones((3, 2)), axis=2)


# --- signal: stft / istft ----------------------------------------------------------------------

@program(atol=3e-6, rtol=3e-5)
def signal_stft_defaults_warn_and_shapes():
  s = sig()
  f, t, z = s.stft(ramp(40))
  return f, t, z


@program(atol=3e-6, rtol=3e-5)
def signal_stft_segment_options():
  s = sig()
  x = ramp(20)
  return (s.stft(x, nperseg=8), s.stft(x, nperseg=8, noverlap=2), s.stft(x, nperseg=8, nfft=11),
          s.stft(x, nperseg=7, noverlap=5), s.stft(x, nperseg=8, noverlap=0),
          s.stft(x, nperseg=8.0), s.stft(x, nperseg=None))


@program(atol=3e-6, rtol=3e-5)
def signal_stft_boundaries_and_padding():
  s = sig()
  x = ramp(21)
  return tuple(s.stft(x, nperseg=8, noverlap=3, boundary=b, padded=p)[2]
               for b in ("zeros", "even", "odd", "constant", None) for p in (True, False))


@program(atol=3e-6, rtol=3e-5)
def signal_stft_windows():
  s = sig()
  x = ramp(20)
  wins = ("hann", "hamming", "boxcar", "blackman", "bartlett", "triang", ("tukey", 0.3),
          ("kaiser", 3.0), ("gaussian", 2.0), "flattop", "cosine", ("general_hamming", 0.7))
  return tuple(s.stft(x, nperseg=8, window=w)[2] for w in wins) + (
      s.stft(x, nperseg=8, window=jnp.arange(1.0, 9.0))[2], s.stft(x, window=[1., 2., 2., 1.],
                                                                    nperseg=4)[2])


@program(atol=3e-6, rtol=3e-5)
def signal_stft_detrend_fs_and_sides():
  s = sig()
  x = ramp(20)
  return (s.stft(x, nperseg=8, detrend="constant")[2], s.stft(x, nperseg=8, detrend="linear")[2],
          s.stft(x, nperseg=8, detrend=lambda d: d * 2)[2], s.stft(x, fs=10.0, nperseg=8)[:2],
          s.stft(x, fs=10, nperseg=8)[:2], s.stft(x, nperseg=8, return_onesided=False))


@program(atol=3e-6, rtol=3e-5)
def signal_stft_nd_axes_and_detrend_function():
  s = sig()
  x2 = jnp.stack([ramp(20), ramp(20, 0.9), ramp(20, 1.3)])
  seen = []

  def record(d):
    seen.append(d.shape)
    return d - d.mean(axis=-3, keepdims=True) if d.ndim == 3 and d.shape[-1] == 3 else d

  z0 = s.stft(x2.T, nperseg=8, axis=0, detrend=record)[2]
  return s.stft(x2, nperseg=8)[2], s.stft(x2.T, nperseg=8, axis=0)[2], z0, tuple(seen)


@program(atol=3e-6, rtol=3e-5)
def signal_stft_integer_bool_and_complex_inputs():
  s = sig()
  return (s.stft(jnp.arange(20) % 7, nperseg=8), s.stft(jnp.arange(20) % 3 > 0, nperseg=8),
          s.stft(ramp(20) * (1 + 2j), nperseg=8), s.stft(ramp(20) * 1j, nperseg=8,
                                                          return_onesided=False),
          s.stft(jnp.ones(0), nperseg=8))


@program(x64=True)
def signal_stft_f64():
  s = sig()
  x = jnp.sin(jnp.arange(20.0) * 0.4)
  return (s.stft(x, nperseg=8), s.stft(jnp.arange(20), nperseg=8)[2].dtype,
          s.stft(x.astype(jnp.float32), nperseg=8)[2].dtype)


@program
def signal_stft_half_precision_raises():
  return sig().stft(jnp.arange(20, dtype=jnp.float16), nperseg=8)


@program
def signal_stft_bad_boundary():
  return sig().stft(ramp(20), nperseg=8, boundary="periodic")


@program
def signal_stft_bad_window_name():
  return sig().stft(ramp(20), nperseg=8, window="not-a-window")


@program
def signal_stft_window_needs_parameter():
  return sig().stft(ramp(20), nperseg=8, window="kaiser")


@program
def signal_stft_window_length_mismatch():
  return sig().stft(ramp(20), nperseg=6, window=jnp.ones(8))


@program
def signal_stft_window_not_1d():
  return sig().stft(ramp(20), nperseg=8, window=jnp.ones((8, 1)))


@program
def signal_stft_window_longer_than_signal():
  return sig().stft(ramp(5), nperseg=8, window=jnp.ones(8))


@program
def signal_stft_nperseg_not_positive():
  return sig().stft(ramp(20), nperseg=0)


@program
def signal_stft_nfft_too_small():
  return sig().stft(ramp(20), nperseg=8, nfft=6)


@program
def signal_stft_noverlap_too_big():
  return sig().stft(ramp(20), nperseg=8, noverlap=8)


@program
def signal_stft_detrend_true_unsupported():
  return sig().stft(ramp(20), nperseg=8, detrend=True)


@program
def signal_stft_list_input_raises():
  return sig().stft([1., 2., 3.], nperseg=2)


@program
def signal_stft_scalar_input_raises():
  return sig().stft(jnp.float32(1.), nperseg=8)


@program(atol=3e-6, rtol=3e-5)
def signal_istft_round_trips():
  s = sig()
  x = ramp(20)
  z = s.stft(x, nperseg=8)[2]
  return (s.istft(z), s.istft(z, nperseg=8), s.istft(z, window="hamming"),
          s.istft(s.stft(x, nperseg=8, nfft=12)[2], nperseg=8, nfft=12),
          s.istft(s.stft(x, nperseg=8, noverlap=6)[2], noverlap=6),
          s.istft(s.stft(x, nperseg=8, boundary=None)[2], boundary=False),
          s.istft(s.stft(x, nperseg=8, return_onesided=False)[2], input_onesided=False),
          s.istft(z, fs=4.0), s.istft(z, window=jnp.arange(1.0, 9.0)))


@program(atol=3e-6, rtol=3e-5)
def signal_istft_axes_and_dtypes():
  s = sig()
  x2 = jnp.stack([ramp(20), ramp(20, 0.8)])
  z = s.stft(x2, nperseg=8)[2]
  return (s.istft(z), s.istft(jnp.moveaxis(z, -1, 0), time_axis=0, freq_axis=-1),
          s.istft(s.stft(x2.T, nperseg=8, axis=0)[2], time_axis=-1, freq_axis=0),
          s.istft(jnp.ones((5, 6))), s.istft(jnp.ones((5, 6), jnp.int32)),
          s.istft(jnp.ones((5, 6), jnp.float16)), s.istft(jnp.ones((5, 6)), nperseg=0),
          s.istft(jnp.ones((5, 6)), noverlap=0), s.istft(jnp.ones((5, 6)), noverlap=1))


@program(x64=True)
def signal_istft_f64():
  s = sig()
  x = jnp.cos(jnp.arange(16.0) * 0.3)
  return s.istft(s.stft(x, nperseg=8)[2]), s.istft(jnp.ones((5, 6), jnp.complex64))[1].dtype


@program
def signal_istft_needs_2d():
  return sig().istft(jnp.ones(5))


@program
def signal_istft_same_axes():
  return sig().istft(jnp.ones((5, 6)), time_axis=-1, freq_axis=1)


@program
def signal_istft_nfft_too_small():
  return sig().istft(jnp.ones((5, 6)), nfft=4, nperseg=8)


@program
def signal_istft_odd_nperseg_with_default_nfft():
  return sig().istft(jnp.ones((5, 6)), nperseg=9)


@program
def signal_istft_window_length_mismatch():
  return sig().istft(jnp.ones((5, 6)), window=jnp.ones(7))


@program
def signal_istft_negative_nperseg():
  return sig().istft(jnp.ones((5, 6)), nperseg=-1)


@program
def signal_istft_list_raises():
  return sig().istft([[1., 2.], [3., 4.]])


# --- signal: csd / welch --------------------------------------------------------------------------

@program(atol=3e-6, rtol=3e-5)
def signal_welch_options():
  s = sig()
  x = ramp(37)
  return (s.welch(x), s.welch(x, nperseg=8), s.welch(x, nperseg=8, average="median"),
          s.welch(x, nperseg=8, scaling="spectrum"), s.welch(x, nperseg=8, detrend=False),
          s.welch(x, nperseg=8, detrend="linear"), s.welch(x, nperseg=8, return_onesided=False),
          s.welch(x, fs=100.0, nperseg=9, noverlap=3, nfft=12, window="hamming"),
          s.welch(x, window=jnp.ones(6)), s.welch(x, nperseg=8.5, noverlap=-2))


@program(atol=3e-6, rtol=3e-5)
def signal_welch_segments_and_inputs():
  s = sig()
  x = ramp(20)
  m = jnp.stack([ramp(20), ramp(20, 1.1), ramp(20, 0.5)])
  return (s.welch(x[:8], nperseg=8), s.welch(x[:12], nperseg=8, average="median"),
          s.welch(x, nperseg=8, average="median"), s.welch(m, nperseg=8),
          s.welch(m.T, nperseg=8, axis=0), s.welch(jnp.arange(30) % 7, nperseg=8),
          s.welch(x * (1 + 2j), nperseg=8), s.welch(jnp.ones(0), nperseg=8))


@program(atol=3e-6, rtol=3e-5)
def signal_csd_options():
  s = sig()
  x, y = ramp(37), ramp(37, 0.9)
  return (s.csd(x, y, nperseg=8), s.csd(x, y, nperseg=8, average="median"),
          s.csd(x, y[:30], nperseg=8), s.csd(x, None, nperseg=8), s.csd(x, x, nperseg=8),
          s.csd(x * 1j, y, nperseg=8), s.csd(x, y * (1 - 1j), nperseg=8, average="median"),
          s.csd(jnp.stack([x, y]), y[None], nperseg=8), s.csd(x, jnp.ones(0), nperseg=8),
          s.csd(jnp.arange(20), jnp.arange(20), nperseg=8, scaling="spectrum"))


@program(x64=True)
def signal_welch_and_csd_f64():
  s = sig()
  x = jnp.sin(jnp.arange(37.0) * 0.3)
  return (s.welch(x, nperseg=8), s.csd(x, x[::-1], nperseg=8),
          s.welch(x.astype(jnp.float32), nperseg=8)[1].dtype,
          s.csd(x.astype(jnp.float32), x, nperseg=8)[1].dtype)


@program(atol=3e-6, rtol=3e-5)
def signal_spectral_grads_jit_vmap():
  s = sig()
  x = ramp(20)
  m = jnp.stack([ramp(20), ramp(20, 0.6)])
  return (jax.grad(lambda a: s.welch(a, nperseg=8)[1].sum())(x),
          jax.grad(lambda a: jnp.abs(s.stft(a, nperseg=8)[2]).sum())(x),
          jax.grad(lambda z: s.istft(z)[1].sum())(jnp.ones((5, 6))),
          jax.jit(lambda a: s.welch(a, nperseg=8))(x),
          jax.vmap(lambda a: s.stft(a, nperseg=8)[2])(m))


@program
def signal_welch_bad_average():
  return sig().welch(ramp(20), nperseg=8, average="mode")


@program
def signal_welch_bad_scaling():
  return sig().welch(ramp(20), nperseg=8, scaling="power")


@program
def signal_welch_bad_detrend_string():
  return sig().welch(ramp(20), nperseg=8, detrend="quadratic")


@program
def signal_welch_list_input_raises():
  return sig().welch([1., 2., 3., 4.], nperseg=2)


@program
def signal_welch_half_precision_raises():
  return sig().welch(ramp(20).astype(jnp.bfloat16), nperseg=8)


@program
def signal_csd_rank_mismatch():
  return sig().csd(jnp.ones((3, 20)), jnp.ones(20), nperseg=8)


@program
def signal_csd_cannot_broadcast():
  return sig().csd(jnp.ones((3, 20)), jnp.ones((2, 20)), nperseg=8)


@program
def signal_csd_y_list_raises():
  return sig().csd(ramp(20), [1., 2.], nperseg=8)


# --- fft: dct family ---------------------------------------------------------------------------

@program
def fft_dct_lengths_axes_and_norms():
  f = dctmod()
  x = ramp(7)
  m = jnp.arange(24.0).reshape(2, 3, 4) ** 0.5
  return (f.dct(x), f.dct(x, norm="ortho"), f.dct(x, norm="backward"), f.dct(x, n=4),
          f.dct(x, n=10, norm="ortho"), f.dct(m, axis=1), f.dct(m, axis=0, norm="ortho"),
          f.dct(jnp.ones(1)), f.dct(x, type=2.0))


@program
def fft_idct_inverts_dct():
  f = dctmod()
  x = ramp(6)
  m = jnp.arange(12.0).reshape(3, 4)
  return (f.idct(x), f.idct(f.dct(x)), f.idct(f.dct(x, norm="ortho"), norm="ortho"),
          f.idct(x, n=9), f.idct(x, n=3, norm="ortho"), f.idct(m, axis=0),
          f.idctn(f.dctn(m)), f.idctn(m, norm="ortho"))


@program
def fft_dctn_s_and_axes():
  f = dctmod()
  m = jnp.arange(6.0).reshape(2, 3)
  c = jnp.arange(24.0).reshape(2, 3, 4)
  return (f.dctn(m, s=(3, 2)), f.dctn(m, s=(4,), axes=(1,)), f.dctn(m, s=(4,)),
          f.dctn(c, axes=(0, 2)), f.dctn(m, axes=(-1,)), f.dctn(m, s=(2,), axes=(0, 1)),
          f.idctn(m, s=(3, 2), norm="ortho"), f.idctn(c, axes=(1,)), f.dctn(jnp.float32(2.)))


@program
def fft_dct_dtypes():
  f = dctmod()
  return (f.dct(jnp.array([1, 2, 3])), f.dct(jnp.array([True, False])),
          f.dct(jnp.array([1 + 1j, 2, -1j], jnp.complex64)),
          f.idct(jnp.array([1 + 1j, 2], jnp.complex64)),
          f.dct(jnp.array([1., 2.], jnp.float16)), f.idct(jnp.array([1., 2.], jnp.bfloat16)),
          f.dctn(jnp.ones((2, 2), jnp.int32)), f.dct(np.arange(4.0)))


@program(x64=True)
def fft_dct_f64():
  f = dctmod()
  x = jnp.arange(5.0) ** 2
  return (f.dct(x), f.idct(x, norm="ortho"), f.dct(jnp.array([1, 2, 3])),
          f.dct(x.astype(jnp.float32)), f.idctn(jnp.arange(6.0).reshape(2, 3)),
          f.dct(x * 1j))


@program
def fft_dct_grad_jit_vmap():
  f = dctmod()
  x = f32(1., 2., 3., 4., 5.)
  return (jax.grad(lambda v: f.dct(v, norm="ortho")[1])(x), jax.grad(lambda v: f.idct(v).sum())(x),
          jax.jit(f.dctn)(jnp.ones((2, 3))), jax.vmap(f.idct)(jnp.arange(6.0).reshape(2, 3)))


@program
def fft_dct_type_3_unsupported():
  return dctmod().idct(f32(1., 2.), type=3)


@program
def fft_dctn_type_checked_before_norm():
  return dctmod().dctn(f32(1., 2.), type=4, norm="bad")


@program
def fft_dct_forward_norm_unsupported():
  return dctmod().dct(f32(1., 2.), norm="forward")


@program
def fft_idctn_bad_norm():
  return dctmod().idctn(jnp.ones((2, 2)), norm="unitary")


@program
def fft_dct_axis_out_of_bounds():
  return dctmod().dct(jnp.ones((2, 3)), axis=2)


@program
def fft_dct_of_scalar_raises():
  return dctmod().dct(jnp.float32(2.))


@program
def fft_dctn_repeated_axes():
  return dctmod().dctn(jnp.ones((2, 3)), axes=(1, 1))


@program
def fft_dct_list_raises():
  return dctmod().dct([1., 2.])


# --- integrate ------------------------------------------------------------------------------------

@program
def integrate_trapezoid_sample_points():
  integ = submodule("scipy.integrate")
  y = jnp.arange(6.0).reshape(3, 2) ** 2
  return (integ.trapezoid(y, x=jnp.array([[0., 0.], [1., 2.], [3., 5.]]), axis=0),
          integ.trapezoid(y, x=f32(0., 1., 3.), axis=0),
          integ.trapezoid(jnp.ones((2, 3)), x=jnp.arange(3.)),
          integ.trapezoid(jnp.ones((2, 3)), x=jnp.arange(2.)), integ.trapezoid(jnp.ones((2, 3)),
          dx=f32(1., 2.)[:, None]), integ.trapezoid(jnp.ones(3), dx=[1., 2.]),
          integ.trapezoid(jnp.ones(3), x=jnp.array([True, False, True])))


@program
def integrate_trapezoid_dtypes_and_edges():
  integ = submodule("scipy.integrate")
  return (integ.trapezoid(jnp.array([1 + 1j, 2], jnp.complex64)),
          integ.trapezoid(jnp.ones(3), dx=1j),
          integ.trapezoid(jnp.array([1., 2.], jnp.float16)),
          integ.trapezoid(jnp.array([True, True])),
          integ.trapezoid(jnp.array([True, False, True]), x=jnp.array([0, 1, 3])),
          integ.trapezoid(jnp.broadcast_to(jnp.asarray(1.0), (3,))),
          integ.trapezoid(jnp.broadcast_to(jnp.asarray(1.0), (3,)), dx=2.0),
          integ.trapezoid(jnp.ones(1)),
          integ.trapezoid(jnp.ones((0, 2))), integ.trapezoid(jnp.ones(0), x=jnp.ones(0)))


@program(x64=True)
def integrate_trapezoid_f64():
  integ = submodule("scipy.integrate")
  return (integ.trapezoid(jnp.array([1, 2, 3])), integ.trapezoid(f32(1., 2., 3.), dx=0.5),
          integ.trapezoid(f32(1., 2., 3.), x=jnp.array([0., 1., 2.])))


@program
def integrate_trapezoid_grads_jit_vmap():
  integ = submodule("scipy.integrate")
  y = f32(1., 2., 4.)
  x = f32(0., 1., 3.)
  return (jax.grad(lambda v: integ.trapezoid(v, x=x))(y),
          jax.grad(lambda p: integ.trapezoid(y, x=p))(x),
          jax.jit(integ.trapezoid)(jnp.arange(4.), jnp.arange(4.) ** 2),
          jax.vmap(integ.trapezoid)(jnp.arange(8.0).reshape(2, 4)))


@program
def integrate_trapezoid_empty_axis_raises():
  return submodule("scipy.integrate").trapezoid(jnp.ones((2, 0)))


@program
def integrate_trapezoid_bad_axis():
  return submodule("scipy.integrate").trapezoid(jnp.ones((2, 3)), axis=2)


@program
def integrate_trapezoid_scalar_raises():
  return submodule("scipy.integrate").trapezoid(2.0)


@program
def integrate_trapezoid_x_list_raises():
  return submodule("scipy.integrate").trapezoid(jnp.ones(3), x=[0., 1., 2.])


@program
def integrate_trapezoid_scalar_x_raises():
  return submodule("scipy.integrate").trapezoid(jnp.ones(3), x=jnp.float32(1.))


@program
def integrate_trapezoid_short_x_raises():
  return submodule("scipy.integrate").trapezoid(jnp.ones(3), x=jnp.ones(1))


# --- ndimage -----------------------------------------------------------------------------------

@program
def ndimage_modes_at_the_edges():
  nd = submodule("scipy.ndimage")
  a = jnp.arange(4.0) + 10
  c = [f32(-1.5, -1., -0.7, -0.5, -0.2, 0.5, 2.5, 3., 3.2, 3.5, 3.7, 4., 4.5, 7.)]
  return tuple(nd.map_coordinates(a, c, order, mode=mode)
               for mode in ("constant", "nearest", "wrap", "mirror", "reflect") for order in (0, 1))


@program
def ndimage_single_point_axis_and_cval():
  nd = submodule("scipy.ndimage")
  one = jnp.array([3.])
  c = [f32(-1., 0.5, 2.)]
  return (tuple(nd.map_coordinates(one, c, 1, mode=m) for m in ("constant", "nearest", "wrap",
                                                                  "mirror", "reflect")),
          nd.map_coordinates(jnp.arange(3.), [f32(5.)], 1, cval=2), nd.map_coordinates(
              jnp.arange(3.), [f32(5.)], 1, cval=np.float32(2.5)),
          nd.map_coordinates(jnp.arange(3.), [f32(5.)], 1, cval="1.5"))


@program
def ndimage_2d_3d_and_coordinate_shapes():
  nd = submodule("scipy.ndimage")
  img = jnp.arange(12.0).reshape(3, 4)
  vol = jnp.arange(24.0).reshape(2, 3, 4)
  return (nd.map_coordinates(img, [jnp.full((2, 2), 0.5), jnp.full((2, 2), 1.5)], 1),
          nd.map_coordinates(img, jnp.array([[0.5, 1.], [1.5, 2.]]), 1),
          nd.map_coordinates(img, [1.5, 2.5], 1),
          nd.map_coordinates(img, (f32(0.5), f32(2.2)), 0, mode="wrap"),
          nd.map_coordinates(vol, [f32(0.5, 1.), f32(1.5, -1.), f32(2.25, 3.5)], 1, mode="mirror"),
          nd.map_coordinates([[1., 2.], [3., 4.]], [0.5, 0.5], 1),
          nd.map_coordinates(jnp.arange(3.), [jnp.asarray(0.5)], 1))


@program
def ndimage_integer_bool_and_complex_images():
  nd = submodule("scipy.ndimage")
  c = [f32(0.5, -1., 2.7, 1.)]
  return (nd.map_coordinates(jnp.array([0, 1, -3, -4]), [f32(0.5, 2.5, 1.5)], 1),
          nd.map_coordinates(jnp.arange(4, dtype=jnp.uint8), [f32(0.5, 2.6, 1.4)], 1),
          nd.map_coordinates(jnp.array([250, 4], jnp.uint8), [f32(0.5, 1.5)], 1, mode="wrap"),
          nd.map_coordinates(jnp.array([-2, -3], jnp.int8), [f32(0.5, 1.5, 9.)], 1, cval=-2.5),
          nd.map_coordinates(jnp.array([1, 2]), [f32(9.)], 1, cval=2.7),
          nd.map_coordinates(jnp.array([False, True]), [f32(0.3, 0.6, 0.5)], 1),
          nd.map_coordinates(jnp.array([False, True]), [f32(0.3, 0.6)], 0),
          nd.map_coordinates(jnp.array([1 + 1j, 2, 3j], jnp.complex64), c, 1),
          nd.map_coordinates(jnp.array([1., 2.], jnp.float16), [f32(0.5)], 1),
          nd.map_coordinates(jnp.arange(3., dtype=jnp.bfloat16), [f32(0.3)], 1),
          nd.map_coordinates(jnp.broadcast_to(jnp.asarray(2.0), (3,)), [f32(0.5)], 1))


@program
def ndimage_coordinate_dtypes():
  nd = submodule("scipy.ndimage")
  return (nd.map_coordinates(jnp.arange(5.), [jnp.array([-1, 2, 7])], 1, mode="mirror"),
          nd.map_coordinates(jnp.arange(5.), [jnp.array([-1, 2, 7], jnp.int8)], 0, mode="wrap"),
          nd.map_coordinates(jnp.array([1, 2]), [jnp.array([0, 1, 2])], 1),
          nd.map_coordinates(jnp.arange(3), [jnp.array([0.3, 1.5], jnp.bfloat16)], 1),
          nd.map_coordinates(jnp.array([1., 2.]), [jnp.array([0.5], jnp.float16)], 1),
          nd.map_coordinates(jnp.arange(3.), [f32(np.nan, np.inf)], 1),
          nd.map_coordinates(jnp.arange(3.), [f32(1.5)], True),
          nd.map_coordinates(jnp.arange(3.), [f32(1.5)], 1.0))


@program(x64=True)
def ndimage_f64():
  nd = submodule("scipy.ndimage")
  return (nd.map_coordinates(jnp.arange(3.), [jnp.array([0.25])], 1),
          nd.map_coordinates(jnp.arange(3., dtype=jnp.float32), [jnp.array([0.25])], 1),
          nd.map_coordinates(jnp.arange(3), [jnp.array([0.25, 0.5])], 1),
          nd.map_coordinates(jnp.arange(3., dtype=jnp.float32), [0.25], 1))


@program
def ndimage_grads_jit_vmap():
  nd = submodule("scipy.ndimage")
  return (jax.grad(lambda x: nd.map_coordinates(x, [f32(0.5, 2.2)], 1).sum())(jnp.arange(4.)),
          jax.grad(lambda c: nd.map_coordinates(jnp.arange(4.) ** 2, [c], 1).sum())(
              f32(0.5, 2.2, 1.)),
          jax.grad(lambda c: nd.map_coordinates(jnp.arange(4.) ** 2, [c], 1, mode="mirror").sum())(
              f32(-0.5, 4.5, 1.)),
          jax.grad(lambda x: nd.map_coordinates(x, [f32(0.5, 3.5)], 0).sum())(jnp.arange(4.)),
          jax.jit(lambda x, c: nd.map_coordinates(x, [c], 1, mode="wrap"))(jnp.arange(4.),
                                                                          f32(0.5, 5.2)),
          jax.vmap(lambda c: nd.map_coordinates(jnp.arange(3.), [c], 1))(jnp.array([[0.5], [1.5]])))


@program
def ndimage_wrong_number_of_coordinates():
  nd = submodule("scipy.ndimage")
  return nd.map_coordinates(jnp.ones((2, 2)), [f32(0.)], 1, mode="bad")


@program(phrases=("does not yet support mode grid-wrap", "Currently supported modes are"))
def ndimage_unsupported_mode():
  return submodule("scipy.ndimage").map_coordinates(jnp.ones(3), [f32(1.)], 1, mode="grid-wrap")


@program(phrases=("does not yet support mode bad",))
def ndimage_mode_checked_before_order():
  nd = submodule("scipy.ndimage")
  return nd.map_coordinates(jnp.ones((2, 2)), [f32(0.), f32(0.)], 5, mode="bad")


@program
def ndimage_negative_order():
  return submodule("scipy.ndimage").map_coordinates(jnp.ones(3), [f32(1.)], -1)


@program
def ndimage_order_required():
  return submodule("scipy.ndimage").map_coordinates(jnp.ones(3), [f32(1.)])


@program
def ndimage_array_cval_is_not_hashable():
  return submodule("scipy.ndimage").map_coordinates(jnp.ones(3), [f32(5.)], 1, cval=jnp.array(3.))


@program
def ndimage_complex_cval_raises():
  return submodule("scipy.ndimage").map_coordinates(jnp.ones(3), [f32(5.)], 1, cval=1j)


@program
def ndimage_traced_order_raises():
  nd = submodule("scipy.ndimage")
  return jax.jit(lambda x, o: nd.map_coordinates(x, [f32(0.5)], o))(jnp.arange(4.), 1)


@program
def ndimage_complex_coordinates_raise():
  return submodule("scipy.ndimage").map_coordinates(jnp.arange(3.), [jnp.array([0.3 + 1j])], 1)


@program
def ndimage_string_input_raises():
  return submodule("scipy.ndimage").map_coordinates("ab", [f32(1.5)], 1)


@program
def ndimage_scalar_coordinates_raise():
  return submodule("scipy.ndimage").map_coordinates(jnp.arange(3.), jnp.asarray(1.5), 1)


@program
def ndimage_mismatched_coordinate_shapes():
  nd = submodule("scipy.ndimage")
  return nd.map_coordinates(jnp.ones((3, 4)), [jnp.full((2,), 0.5), jnp.full((3,), 1.5)], 1)


# --- interpolate ---------------------------------------------------------------------------------

def _grid():
  x = f32(0., 1., 2.)
  y = f32(0., 1., 2., 3.)
  return x, y, x[:, None] * 10 + y[None, :]


@program
def interpolate_methods_and_fill_values():
  interp = submodule("scipy.interpolate")
  x, y, v = _grid()
  pts = jnp.array([[0.5, 0.5], [1.5, 2.25], [3., 1.], [-1., 0.], [2., 3.], [0., 0.]])
  R = interp.RegularGridInterpolator
  near = R((x,), x * 10, method="nearest")
  return (R((x, y), v)(pts, method="nearest"), R((x, y), v, fill_value=3)(pts),
          R((x, y), v, fill_value=jnp.array(3.))(pts), R((x, y), v, fill_value=None)(pts),
          near(jnp.array([[0.5], [1.5], [0.49], [-0.5], [2.5]])),
          R((f32(0., 1., 3.),), f32(1., 2., 4.), fill_value=None)(
              f32(0.5, 2., 2.5, -1., 4.)[:, None]),
          R((f32(0., 1., 3.),), f32(1., 2., 4.), method="nearest", fill_value=None)(
              f32(0.5, 2., 2.1, -1., 4., -0.6)[:, None]),
          R((x[::-1], y), v)(pts[:2]), R((f32(0.),), f32(1.))(f32(0., 0.5)[:, None]))


@program
def interpolate_point_shapes_and_trailing_dims():
  interp = submodule("scipy.interpolate")
  x, y, v = _grid()
  R = interp.RegularGridInterpolator
  f = R((x, y), v)
  z = f32(0., 1.)
  cube = R((x, y, z), v[..., None] * (z + 1))
  return (f(f32(0.5, 0.5)), f(jnp.ones((2, 3, 2)) * 0.5), f((f32(0.5, 1.), f32(0.5, 2.))),
          R((x, y), jnp.stack([v, -v], -1))(jnp.array([[0.5, 0.5], [1.5, 2.25]])),
          R((x,), x ** 2)(f32(0.5, 1.5)), cube(jnp.array([[0.5, 1.5, 0.25], [2., 0., 1.]])),
          R((x,), x ** 2)((f32(0.5, 1.5),)))


@program
def interpolate_dtypes():
  interp = submodule("scipy.interpolate")
  x, y, v = _grid()
  R = interp.RegularGridInterpolator
  pts = jnp.array([[0.5, 0.5], [1.5, 2.25], [3., 1.]])
  g16 = jnp.array([0., 1., 2.], jnp.float16)
  ig = (jnp.array([0, 1, 2]), jnp.array([0, 1, 2, 3]))
  return (R((x, y), v.astype(jnp.int32))(pts), R(ig, v)(pts), R(ig, v.astype(jnp.int32),
          fill_value=None)(jnp.array([[0, 1], [1, 2]])), R((x, y), v * (1 + 1j))(pts),
          R((x, y), v.astype(jnp.float16))(pts),
          R((g16,), g16 * 2)(jnp.array([[0.5]], jnp.float16)),
          R((g16,), g16 * 2, method="nearest")(jnp.array([[0.5]], jnp.float16)),
          R((g16,), jnp.array([1, 2, 3]), method="nearest")(jnp.array([[0.5], [5.]], jnp.float16)),
          R((x,), jnp.array([True, False, True]))(f32(0.5)[:, None]),
          R((x,), x, fill_value=jnp.float16(2.))(f32(5.)[:, None]),
          R((x,), jnp.broadcast_to(jnp.asarray(2.0), (3,)))(f32(0.5)[:, None]))


@program(x64=True)
def interpolate_f64():
  interp = submodule("scipy.interpolate")
  R = interp.RegularGridInterpolator
  return (R((jnp.array([0., 1.]),), jnp.array([0., 1.]))(jnp.array([[0.25]])),
          R((f32(0., 1.),), f32(0., 1.))(f32(0.25)[:, None]),
          R((f32(0., 1.),), f32(0., 1.))(jnp.array([[0.25]])))


@program
def interpolate_pytree_jit_vmap_grad():
  interp = submodule("scipy.interpolate")
  x, y, v = _grid()
  R = interp.RegularGridInterpolator
  f = R((x, y), v)
  pts = jnp.array([[0.5, 0.5], [1.5, 2.25]])
  leaves = jax.tree_util.tree_leaves(f)
  return (len(leaves), leaves[-1], len(jax.tree_util.tree_leaves(R((x, y), v, fill_value=None))),
          jax.jit(lambda g, p: g(p))(f, pts),
          jax.vmap(lambda vv: R((x, y), vv)(pts))(jnp.stack([v, 2 * v])),
          jax.grad(lambda vv: R((x, y), vv)(pts).sum())(v), jax.grad(lambda p: f(p).sum())(pts),
          jax.tree_util.tree_map(lambda a: a * 2, f)(pts))


@program
def interpolate_bounds_error_unsupported():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v, bounds_error=True)


@program
def interpolate_bad_method():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v, method="cubic")


@program
def interpolate_bad_method_at_call():
  x, y, v = _grid()
  f = submodule("scipy.interpolate").RegularGridInterpolator((x, y), v)
  return f(f32(0.5, 0.5), method="spline")


@program
def interpolate_too_many_point_arrays():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y, y), v)


@program
def interpolate_points_of_wrong_dimension():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v)(jnp.ones((2, 3)))


@program
def interpolate_incompatible_fill_value():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v, fill_value=1j)


@program
def interpolate_list_grid_raises():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator([[0., 1., 2.], [0., 1., 2., 3.]], v)


@program
def interpolate_list_values_raise():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v.tolist())


@program
def interpolate_list_points_raise():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x, y), v)([0.5, 0.5])


@program
def interpolate_scalar_point_raises():
  x, y, v = _grid()
  return submodule("scipy.interpolate").RegularGridInterpolator((x,), x)(jnp.asarray(0.5))


# --- cluster.vq -------------------------------------------------------------------------------

@program
def cluster_vq_values_and_dtypes():
  vq = submodule("scipy.cluster.vq")
  obs = jnp.array([[1., 2.], [3., 4.], [0., 0.], [5., 5.]])
  cb = jnp.array([[0., 0.], [4., 4.]])
  return (vq.vq(obs, cb), vq.vq(f32(1., 5., 2.5), f32(0., 5.)),
          vq.vq(jnp.array([[1.]]), jnp.array([[0.], [2.]])),
          vq.vq(jnp.array([[1, 2]]), jnp.array([[0, 0], [1, 1]])),
          vq.vq(jnp.array([[True]]), jnp.array([[False], [True]])),
          vq.vq(jnp.array([[1j]], jnp.complex64), jnp.array([[0.], [1.]])),
          vq.vq(jnp.array([[1.]], jnp.float16), jnp.array([[0.], [1.]])),
          vq.vq(jnp.array([[1.]], jnp.float16), jnp.array([[0.], [1.]], jnp.float16)),
          vq.vq(jnp.array([[np.nan]]), jnp.array([[0.], [2.]]), check_finite=False),
          vq.vq(jnp.ones((0, 2)), cb))


@program(x64=True)
def cluster_vq_f64():
  vq = submodule("scipy.cluster.vq")
  return (vq.vq(jnp.array([[1., 2.], [3., 4.]]), jnp.array([[0., 0.], [4., 4.]])),
          vq.vq(jnp.array([[1, 2]]), jnp.array([[0, 0], [1, 1]])), vq.vq(f32(1., 3.), f32(0., 4.)))


@program
def cluster_vq_jit_vmap_grad():
  vq = submodule("scipy.cluster.vq")
  obs = jnp.array([[1., 2.], [3., 4.], [0., 0.], [5., 5.]])
  cb = jnp.array([[0., 0.], [4., 4.]])
  return (jax.jit(vq.vq)(obs, cb), jax.vmap(vq.vq, in_axes=(0, None))(obs[:, None], cb),
          jax.grad(lambda o: vq.vq(o, cb)[1].sum())(obs))


@program
def cluster_vq_rank_mismatch():
  return submodule("scipy.cluster.vq").vq(f32(1., 5.), jnp.ones((2, 2)))


@program
def cluster_vq_rank_three_unsupported():
  return submodule("scipy.cluster.vq").vq(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))


@program
def cluster_vq_vector_length_mismatch():
  return submodule("scipy.cluster.vq").vq(jnp.ones((4, 2)), jnp.ones((2, 3)))


@program
def cluster_vq_list_raises():
  return submodule("scipy.cluster.vq").vq([[1.]], jnp.ones((2, 1)))


@program
def cluster_vq_scalars_raise():
  return submodule("scipy.cluster.vq").vq(jnp.asarray(1.), jnp.asarray(1.))


# --- spatial.transform: Rotation ---------------------------------------------------------------

def _quats():
  q = np.array([[0.1, 0.2, 0.3, 0.9], [-0.36, -0.46, -0.11, -0.81], [-0.03, -0.29, -0.79, 0.53],
                [0.45, 0.87, 0.03, -0.21]], np.float32)
  return jnp.asarray(q)


@program
def rotation_quaternion_conversions():
  R = rot().Rotation
  r = R.from_quat(_quats())
  return (r.quat, r.as_quat(canonical=True), r.as_quat(scalar_first=True),
          r.as_quat(canonical=True, scalar_first=True), r.as_matrix(), r.as_rotvec(),
          r.as_rotvec(degrees=True), r.as_mrp(), r.magnitude(), r.inv().quat, r[0].as_matrix())


@program
def rotation_constructors():
  R = rot().Rotation
  q = _quats()
  return (R.from_rotvec(q[:, :3]).quat, R.from_rotvec(f32(10., 20., 30.), degrees=True).quat,
          R.from_rotvec(f32(1e-4, 0., 0.)).quat, R.from_rotvec(jnp.zeros(3)).quat,
          R.from_mrp(q[:, :3]).quat, R.from_matrix(R.from_quat(q).as_matrix()).quat,
          R.from_matrix(jnp.array([[1., 0.1, 0.], [0., 2., 0.], [0., 0., 1.]])).quat,
          tuple(R.from_matrix(jnp.diag(jnp.array(d))).quat for d in
                [(1., -1., -1.), (-1., 1., -1.), (-1., -1., 1.)]),
          R.from_quat(jnp.array([0, 0, 0, 1])).quat, R.from_quat([0., 0., 0., 2.]).quat,
          R.from_quat(jnp.ones(4, jnp.float16)).quat,
          R.from_quat(jnp.broadcast_to(jnp.asarray(1.0), (4,))).quat, R.identity().quat,
          R.identity(None, jnp.float16).quat, R.from_quat(jnp.zeros(4)).quat)


@program(atol=3e-6, rtol=3e-5)
def rotation_euler_sequences():
  R = rot().Rotation
  r = R.from_quat(_quats())
  angles = jnp.array([[0.3, -0.2, 1.1], [2., 0.5, -1.]])
  seqs = ("xyz", "zyx", "xzy", "XYZ", "ZXZ", "zxz", "xyx", "yzy", "YXY", "zyz")
  return (tuple(r.as_euler(s) for s in seqs), tuple(R.from_euler(s, angles).quat for s in seqs),
          r[0].as_euler("xyz", degrees=True),
          R.from_euler("XYZ", f32(10., 20., 30.), degrees=True).quat,
          R.from_euler("x", 0.1).quat, R.from_euler("xy", f32(0.1, 0.2)).quat,
          R.from_euler("z", jnp.array([[0.3], [-0.2]])).quat,
          R.from_euler("xy", jnp.array([[0.3, -0.2]])).quat,
          R.from_euler("xyz", jnp.array([1, 0, 0])).quat, R.identity().as_euler("xyz"))


@program(atol=3e-6, rtol=3e-5)
def rotation_euler_gimbal_lock():
  R = rot().Rotation
  return (R.from_euler("xyz", f32(0.3, np.pi / 2, 0.2)).as_euler("xyz"),
          R.from_euler("zxz", f32(0.3, 0., 0.2)).as_euler("zxz"),
          R.from_euler("ZYZ", f32(0.3, 0., 0.2)).as_euler("ZYZ"))


@program(x64=True)
def rotation_euler_gimbal_lock_f64():
  R = rot().Rotation
  seqs = ("zxz", "ZXZ", "xyz", "XYZ", "zyx", "ZYX", "XZX", "yxz", "YXZ")
  return tuple(R.from_euler(s, jnp.array([0.3, mid, 0.2])).as_euler(s)
               for s in seqs for mid in (0., np.pi, np.pi / 2, -np.pi / 2))


@program
def rotation_weak_types():
  R = rot().Rotation
  w3 = jnp.broadcast_to(jnp.asarray(0.1), (3,))
  r = R.from_quat(jnp.broadcast_to(jnp.asarray(1.0), (4,)))
  return (R.from_rotvec(w3).quat, R.from_mrp(w3).quat, R.from_euler("xyz", w3).quat,
          R.from_euler("x", 0.1).quat,
          R.from_matrix(jnp.broadcast_to(jnp.asarray(1.0), (3, 3))).quat,
          r.quat, r.as_matrix(), r.as_rotvec(), r.as_mrp(), r.as_euler("xyz"), r.magnitude(),
          r.inv().quat, r.as_quat(canonical=True), r.apply(w3), (r * r).quat)


@program
def rotation_compose_apply_index():
  R = rot().Rotation
  r = R.from_quat(_quats())
  s = r[0]
  return ((r * s).quat, (s * r).quat, (r * r).quat, r.apply(jnp.ones(3)),
          r.apply(jnp.arange(12.0).reshape(4, 3)),
          s.apply(jnp.arange(12.0).reshape(4, 3), inverse=True),
          s.apply(jnp.array([1, 0, 0])), r[-1].quat, r[1:3].quat, r[jnp.array([0, 2])].quat,
          len(r), r.single, s.single, R.concatenate([r, r]).quat, R.concatenate([s, s]).quat)


@program(atol=2e-6, rtol=2e-5)
def rotation_mean():
  R = rot().Rotation
  r = R.from_quat(_quats())
  return r.mean().quat, r.mean(f32(1., 2., 3., 4.)).quat, r.mean(f32(1., -2., 3., 4.)).quat


@program
def rotation_leading_dimensions():
  R = rot().Rotation
  r = R.from_quat(jnp.arange(16.0).reshape(2, 2, 4) + 1)
  return (r.as_matrix(), r.as_rotvec(), r.magnitude(), r.inv().quat, r.as_euler("xyz"),
          r.as_mrp(), len(r))


@program(x64=True)
def rotation_f64():
  R = rot().Rotation
  return (R.identity().quat, R.from_quat(_quats()).as_matrix(), R.from_quat([0., 0., 0., 1.]).quat,
          R.from_euler("xyz", jnp.array([0.1, 0.2, 0.3])).as_quat(),
          R.from_euler("xyz", f32(0.1, 0.2, 0.3)).as_quat())


@program
def rotation_grads_jit_vmap():
  R = rot().Rotation
  q = _quats()
  return (jax.grad(lambda v: R.from_rotvec(v).as_matrix().sum())(f32(0.1, 0.2, 0.3)),
          jax.grad(lambda v: R.from_rotvec(v).as_matrix().sum())(jnp.zeros(3)),
          jax.grad(lambda v: R.from_quat(v).as_rotvec().sum())(q[0]),
          jax.grad(lambda v: R.from_euler("xyz", v).as_euler("zyx").sum())(f32(0.1, 0.2, 0.3)),
          jax.jit(lambda rr, v: rr.apply(v))(R.from_quat(q[0]), jnp.ones(3)),
          jax.vmap(lambda a: R.from_euler("xyz", a).quat)(jnp.ones((2, 3))),
          jax.vmap(lambda qq: R.from_quat(qq).as_rotvec())(q),
          jax.tree_util.tree_leaves(R.from_quat(q[0])))


@program
def rotation_as_euler_needs_three_axes():
  return rot().Rotation.identity().as_euler("xy")


@program
def rotation_as_euler_repeated_axis():
  return rot().Rotation.identity().as_euler("xyy")


@program
def rotation_as_euler_mixed_case():
  return rot().Rotation.identity().as_euler("xYz")


@program
def rotation_from_euler_too_many_axes():
  return rot().Rotation.from_euler("xyzx", f32(0.1, 0.2, 0.3, 0.4))


@program
def rotation_from_euler_bad_axis_letter():
  return rot().Rotation.from_euler("xqz", f32(0.1, 0.2, 0.3))


@program
def rotation_from_euler_angle_count_mismatch():
  return rot().Rotation.from_euler("xyz", f32(0.3, -0.2))


@program
def rotation_single_has_no_len():
  return len(rot().Rotation.identity())


@program
def rotation_single_not_subscriptable():
  return rot().Rotation.identity()[0]


@program
def rotation_mean_of_single_raises():
  return rot().Rotation.identity().mean()


@program
def rotation_mean_weight_count_mismatch():
  R = rot().Rotation
  return R.from_quat(_quats()).mean(f32(1., 2.))


@program
def rotation_concatenate_single_and_many_raises():
  R = rot().Rotation
  return R.concatenate([R.identity(), R.from_quat(_quats())])


@program
def rotation_identity_of_many_unsupported():
  return rot().Rotation.identity(2)


@program
def rotation_random_not_implemented():
  return rot().Rotation.random(jax.random.key(0))


@program
def rotation_apply_broadcast_mismatch():
  R = rot().Rotation
  return R.from_quat(_quats()).apply(jnp.ones((3, 3)))


@program
def rotation_apply_wrong_vector_length():
  return rot().Rotation.identity().apply(f32(1., 0.))


@program
def rotation_compose_with_number_raises():
  return rot().Rotation.identity() * 2


# --- spatial.transform: Slerp ---------------------------------------------------------------------

@program(atol=2e-6, rtol=2e-5)
def slerp_interpolates():
  t = rot()
  sl = t.Slerp.init(f32(0., 1., 3., 4.), t.Rotation.from_quat(_quats()))
  return (sl.times, sl.timedelta, sl.rotations.quat, sl.rotvecs,
          sl(f32(0., 0.5, 1., 2.5, 3., 4., -1., 5.)).quat, sl(0.5).quat, sl(0.5).single,
          t.Slerp.init(jnp.array([0, 2]), t.Rotation.from_quat(_quats()[:2]))(jnp.array([1])).quat,
          t.Slerp.init(f32(1., 0.), t.Rotation.from_quat(_quats()[:2])).timedelta)


@program(atol=2e-6, rtol=2e-5)
def slerp_grad_jit_vmap():
  t = rot()
  sl = t.Slerp.init(f32(0., 1., 3., 4.), t.Rotation.from_quat(_quats()))
  return (jax.grad(lambda s: sl(s).quat.sum())(0.7),
          jax.jit(lambda s, ts: s(ts).quat)(sl, f32(0.5, 2.)),
          jax.vmap(lambda ts: sl(ts).quat)(f32(0.25, 3.5)), len(jax.tree_util.tree_leaves(sl)))


@program(x64=True)
def slerp_f64():
  t = rot()
  q = jnp.array([[0., 0., 0., 1.], [0., 0., 1., 0.]])
  return t.Slerp.init(jnp.array([0., 1.]), t.Rotation.from_quat(q))(jnp.array([0.5, 0.25])).quat


@program
def slerp_needs_two_rotations():
  t = rot()
  return t.Slerp.init(f32(0., 1.), t.Rotation.identity())


@program
def slerp_needs_more_than_one_rotation():
  t = rot()
  return t.Slerp.init(f32(0.), t.Rotation.from_quat(_quats()[:1]))


@program
def slerp_times_count_mismatch():
  t = rot()
  return t.Slerp.init(f32(0., 1., 2.), t.Rotation.from_quat(_quats()[:2]))


@program
def slerp_times_must_be_1d():
  t = rot()
  return t.Slerp.init(jnp.array([[0., 1.]]), t.Rotation.from_quat(_quats()[:2]))


@program
def slerp_call_times_at_most_1d():
  t = rot()
  sl = t.Slerp.init(f32(0., 1.), t.Rotation.from_quat(_quats()[:2]))
  return sl(jnp.array([[0.5, 0.7]]))
