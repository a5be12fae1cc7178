"""ember.numpy.fft and lax.fft against numpy.fft: every transform with n/s, axes and the three
norms (one compiled program), dtypes as in JAX, derivatives (fft is linear: jvp against finite
differences, vjp by the inner-product identity, which checks the RFFT/IRFFT transposes),
batching against stacking, errors and printed jaxprs."""
import numpy as np
import pytest
from test_linalg import bundle, check_ad, check_vmapped, rand

import ember
import ember.numpy as jnp
from ember import lax

F = jnp.fft

CASES = [  # (name, kwargs): the same call on jnp.fft and numpy.fft
    ("fft", {}), ("fft", {"n": 5, "axis": 0}), ("ifft", {"n": 8}), ("ifft", {"axis": 0}),
    ("rfft", {}), ("rfft", {"n": 7, "axis": 0}), ("irfft", {}), ("irfft", {"n": 5, "axis": 0}),
    ("hfft", {}), ("hfft", {"n": 7}), ("ihfft", {}), ("fft2", {}), ("fft2", {"s": (3, 8)}),
    ("ifft2", {"axes": (1, 0)}), ("rfft2", {}), ("irfft2", {"s": (4, 5)}),
    ("fftn", {}), ("ifftn", {"s": (2, 3), "axes": (0, 2)}), ("rfftn", {"axes": (0, 1)}),
    ("irfftn", {"axes": (0, 2)}), ("fftn", {"axes": (0, 2)}), ("rfftn", {})]
REAL_INPUT = {"rfft", "ihfft", "rfft2", "rfftn"}


NORMED = {"fft", "irfft", "rfft2", "hfft", "ihfft", "ifftn"}  # also run with the other norms


def _calls(module, x3, xc3, norm):
  out = []
  for name, kw in _cases(norm):
    x = x3 if name in REAL_INPUT else xc3
    if not name.endswith("n") and "axes" not in kw and "s" not in kw and not name.endswith("2"):
      x = x[0]
    out.append(getattr(module, name)(x, norm=norm, **kw))
  return out


def _cases(norm):
  return CASES if norm is None else [(n, kw) for n, kw in CASES if n in NORMED]


def test_transforms():
  x3 = rand((3, 4, 6), np.float32)
  xc3 = rand((3, 4, 6), np.complex64, 1)
  norms = [None, "ortho", "forward"]
  got = ember.jit(lambda a, b: [_calls(F, a, b, norm) for norm in norms])(x3, xc3)
  for norm, outs in zip(norms, got):
    for (name, kw), g, e in zip(_cases(norm), outs, _calls(np.fft, x3, xc3, norm)):
      check_one(name, kw, norm, g, e)


def check_one(name, kw, norm, g, e):
  g = np.asarray(g)
  assert g.shape == e.shape, (name, kw, norm)
  assert g.dtype == (np.float32 if e.dtype.kind == "f" else np.complex64), (name, kw, norm)
  np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4, err_msg=f"{name} {kw} {norm}")


def test_four_axes_and_x64(x64):
  """More than three axes run in passes of at most three; 64-bit inputs stay 64-bit."""
  x = rand((2, 3, 4, 5), np.float64)
  f = lambda x: [F.fftn(x), F.ifftn(x), F.rfftn(x), F.irfftn(F.rfftn(x), s=x.shape)]
  for g, e in zip(ember.jit(f)(x), [np.fft.fftn(x), np.fft.ifftn(x), np.fft.rfftn(x), x]):
    assert np.asarray(g).dtype == e.dtype
    np.testing.assert_allclose(np.asarray(g), e, rtol=1e-10, atol=1e-10)


def test_eager_dtypes_and_helpers():
  assert F.fft(np.arange(3)).dtype == np.complex64
  assert F.rfft(np.ones(4, np.int8)).dtype == np.complex64
  with pytest.raises(ValueError, match="RFFT input must be float32 or float64, got float16"):
    F.rfft(np.ones(4, np.float16))  # as in JAX: no silent upcast of a narrow float
  np.testing.assert_allclose(np.asarray(F.fft(np.arange(4.))), np.fft.fft(np.arange(4.)),
                             atol=1e-6)
  np.testing.assert_allclose(np.asarray(F.fftfreq(5, 0.5)), np.fft.fftfreq(5, 0.5), atol=1e-7)
  np.testing.assert_allclose(np.asarray(F.rfftfreq(6, 2)), np.fft.rfftfreq(6, 2), atol=1e-7)
  assert F.fftfreq(4).dtype == np.float32
  x = np.arange(12).reshape(3, 4)
  for axes in (None, 1, (0,)):
    np.testing.assert_array_equal(np.asarray(F.fftshift(x, axes)), np.fft.fftshift(x, axes))
    np.testing.assert_array_equal(np.asarray(F.ifftshift(x, axes)), np.fft.ifftshift(x, axes))
  out = lax.fft(np.array([1., 0., 0., 0.], np.float32), lax.FftType.RFFT, (4,))
  np.testing.assert_array_equal(np.asarray(out), np.ones(3, np.complex64))


def test_derivatives(x64):
  """Linear maps: jvp against finite differences and the inner-product identity, which checks
  the transposes (RFFT's and IRFFT's halve or double the paired frequencies)."""
  x, c = rand((4, 6), np.float64), rand((4, 6), np.complex128, 1)
  cases = [(lambda x: F.rfft(x, norm="ortho").real, [x]), (lambda x: F.rfft2(x).imag, [x]),
           (lambda c: F.irfft(c, n=7), [c.real]), (lambda c: F.irfftn(c + 0.5j * c), [c.real]),
           (lambda c: F.fft2(c).real + F.ifft(c).imag, [c.real]),
           (lambda x: F.hfft(x) + F.ihfft(x, n=5).real.sum(), [x])]
  check_ad(*bundle(cases))


def test_complex_vjp(x64):
  """vjp(ct) of a complex linear map y = F x is F^T ct (no conjugation, as JAX transposes)."""
  c = rand((5,), np.complex128)
  ct = rand((5,), np.complex128, 1)
  for f in (F.fft, F.ifft):
    got = ember.vjp(f, c)[1](ct)[0]
    mat = np.stack([f(e) for e in np.eye(5, dtype=np.complex128)], axis=1)
    np.testing.assert_allclose(np.asarray(got), mat.T @ ct, rtol=1e-10, atol=1e-12)


def test_vmap():
  x, c = rand((3, 4, 6), np.float32), rand((3, 4, 6), np.complex64, 1)
  check_vmapped([
      (F.fft, (c,), 1), (lambda x: F.rfft(x, axis=0), (x,), 2), (F.irfft2, (c,), 0),
      (lambda c: lax.fft(c, "ifft", (4, 6)), (c,), 2)])
  g = ember.jit(ember.vmap(ember.grad(lambda x: F.rfft(x).real.sum() + F.irfft(x).sum())))(x)
  grad = ember.jit(ember.grad(lambda x: F.rfft(x).real.sum() + F.irfft(x).sum()))
  np.testing.assert_allclose(np.asarray(g), np.stack([np.asarray(grad(e)) for e in x]),
                             rtol=1e-5, atol=1e-5)


def test_errors():
  cases = [
      (lambda: F.fft(np.ones(3), norm="bad"), ValueError,
       'Invalid norm value bad; should be "backward","ortho" or "forward".'),
      (lambda: F.fft(np.ones(3), n=0), ValueError, "Shape should be positive."),
      (lambda: F.fftn(np.ones((3, 3)), axes=(0, 0)), ValueError,
       r"jax.numpy.fft.fftn does not support repeated axes. Got axes \(0, 0\)."),
      (lambda: F.fftn(np.ones((3, 3)), s=(2,), axes=(0, 1)), ValueError,
       "Shape and axes have different lengths."),
      (lambda: F.rfft(np.ones(3, np.complex64)), ValueError,
       "only real valued inputs supported for rfft"),
      (lambda: F.fft2(np.ones(3)), ValueError, "axis -2 is out of bounds for array of dimension 1"),
      (lambda: lax.fft(np.ones((2, 2), np.complex64), "fft", (3,)), ValueError,
       r"FFT input shape \(2, 2\) minor dimensions must be equal to fft_lengths \(3,\)"),
      (lambda: lax.fft(np.ones((2, 2), np.complex64), "rfft", (2,)), ValueError,
       "only real valued inputs supported for rfft"),
  ]
  for fn, exc, msg in cases:
    with pytest.raises(exc, match=msg):
      fn()


def test_printed_jaxprs():
  x = np.ones((4, 6), np.float32)
  assert str(ember.make_jaxpr(F.rfft2)(x)) == """\
{ lambda ; a:f32[4,6]. let
    b:c64[4,4] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[4,6]. let
          b:c64[4,4] = fft[fft_lengths=(4, 6) fft_type=2] a
        in (b,) }
    ] a
  in (b,) }"""
  assert str(ember.make_jaxpr(F.fft)(x)) == """\
{ lambda ; a:f32[4,6]. let
    b:c64[4,6] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[4,6]. let
          c:c64[4,6] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[4,6] = fft[fft_lengths=(6,) fft_type=0] c
        in (b,) }
    ] a
  in (b,) }"""
