"""ember.numpy elementwise functions: values and dtypes against NumPy, eagerly and under jit,
JAX's promotion and weak types, edge values, jaxprs and errors."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import config

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, C64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64)
TOL = {F16: 2e-3, BF16: 1e-2, F32: 2e-6, C64: 2e-6}
INEXACT_OF = {np.dtype(np.bool_): F32, np.dtype(np.int8): F32, np.dtype(np.int32): F32,
              np.dtype(np.uint8): F32, F16: F16, BF16: BF16, F32: F32, C64: C64}
rng = np.random.default_rng(0)


def _sample(dt, shape=(7,), low=-3, high=3):
  dt = np.dtype(dt)
  if dt == np.bool_:
    return rng.random(shape) < 0.5
  if dt.kind in "iu":
    info = np.iinfo(dt)
    return rng.integers(max(low, info.min), min(high, info.max) + 1, shape).astype(dt)
  if dt.kind == "c":
    return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dt)
  return rng.uniform(low, high, shape).astype(dt)


def _eager_and_jit(f, *args):
  """f(*args) eagerly and under jit; both must agree (to a few ulps: XLA may fuse under jit)."""
  eager = f(*args)
  jitted = ember.jit(f)(*args)
  for e, j in zip(*(x if isinstance(x, tuple) else (x,) for x in (eager, jitted))):
    assert e.dtype == j.dtype and e.shape == j.shape and e.weak_type == j.weak_type
    if e.dtype.kind in "biu":
      np.testing.assert_array_equal(e, j)
    else:
      wide = np.complex128 if e.dtype.kind == "c" else np.float64
      tol = {F16: 2e-3, BF16: 1e-2}.get(e.dtype, 1e-6)
      np.testing.assert_allclose(np.asarray(e).astype(wide), np.asarray(j).astype(wide),
                                 rtol=tol, atol=tol * 1e-3, equal_nan=True)
  return eager


def _close(actual, expected, dt):
  actual = np.asarray(actual)
  tol = TOL.get(np.dtype(dt), 0)
  if np.dtype(dt) in (F16, BF16, F32, C64):
    np.testing.assert_allclose(actual.astype(np.complex128 if actual.dtype.kind == "c"
                                             else np.float64),
                               expected, rtol=tol, atol=tol, equal_nan=True)
  else:
    np.testing.assert_array_equal(actual, expected)


# --- unary functions promoting to inexact ----------------------------------------------------

UNARY_INEXACT = [
    ("sqrt", np.sqrt, 0, 4), ("exp", np.exp, -3, 3), ("exp2", np.exp2, -3, 3),
    ("expm1", np.expm1, -2, 2), ("log", np.log, 0.1, 5), ("log2", np.log2, 0.1, 5),
    ("log10", np.log10, 0.1, 5), ("log1p", np.log1p, 0, 5), ("sin", np.sin, -3, 3),
    ("cos", np.cos, -3, 3), ("tan", np.tan, -1, 1), ("arcsin", np.arcsin, -1, 1),
    ("arccos", np.arccos, -1, 1), ("arctan", np.arctan, -3, 3), ("sinh", np.sinh, -2, 2),
    ("cosh", np.cosh, -2, 2), ("tanh", np.tanh, -2, 2), ("arcsinh", np.arcsinh, -3, 3),
    ("arccosh", np.arccosh, 1, 4), ("arctanh", np.arctanh, -0.9, 0.9),
    ("deg2rad", lambda x: x * (np.pi / 180), -180, 180),
    ("rad2deg", lambda x: x * (180 / np.pi), -3, 3),
    ("reciprocal", lambda x: 1 / x, 1, 4), ("cbrt", np.cbrt, -8, 8),
]


@pytest.mark.parametrize("name,ref,low,high", UNARY_INEXACT, ids=[u[0] for u in UNARY_INEXACT])
@pytest.mark.parametrize("dt", [np.int32, np.float32, F16, BF16, C64], ids=str)
def test_unary_inexact(name, ref, low, high, dt):
  dt = np.dtype(dt)
  if dt == C64 and name in ("cbrt",):
    with pytest.raises(TypeError, match="does not accept dtype complex64"):
      getattr(jnp, name)(_sample(dt))
    return
  if dt == C64 and name in ("exp2", "log2", "log10", "deg2rad", "rad2deg", "arccosh"):
    low, high = max(low, 0.5), max(high, 1)
  x = _sample(dt, low=low, high=high)
  if dt.kind == "i":
    x = np.clip(x, int(np.ceil(low)), int(np.floor(high))).astype(dt)
  out = _eager_and_jit(getattr(jnp, name), x)
  assert out.dtype == INEXACT_OF[dt] and not out.weak_type
  wide = x.astype(np.complex128 if dt.kind == "c" else np.float64)
  expected = ref(wide)
  if dt in (F16, BF16):
    expected = ref(x.astype(np.float32).astype(np.float64))
  _close(out, expected, INEXACT_OF[dt])


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8])
def test_unary_inexact_small_int_and_bool(dt):
  x = _sample(dt, low=0, high=3)
  out = _eager_and_jit(jnp.sqrt, x)
  assert out.dtype == F32
  np.testing.assert_allclose(out, np.sqrt(x.astype(np.float64)), rtol=1e-6)


def test_unary_edge_values():
  x = np.array([0., -0., np.inf, -np.inf, np.nan, 1e-30], np.float32)
  with np.errstate(all="ignore"):
    for name in ("sqrt", "exp", "log", "sin", "tanh", "arctan", "log1p", "expm1", "cbrt"):
      out = _eager_and_jit(getattr(jnp, name), x)
      np.testing.assert_allclose(out, getattr(np, name)(x), rtol=1e-6, equal_nan=True)
    assert np.signbit(np.asarray(jnp.sqrt(np.float32(-0.))))
  # XLA on CPU flushes denormals to zero (so does JAX)
  np.testing.assert_array_equal(jnp.sqrt(np.float32(1e-45)), 0.)


def test_unary_empty_and_scalar_shapes():
  for shape in [(), (0,), (2, 0, 3)]:
    x = np.ones(shape, np.float32)
    assert jnp.sin(x).shape == shape
    assert jnp.add(x, 1).shape == shape
  assert repr(jnp.sin(1)) == "Array(0.84147096, dtype=float32, weak_type=True)"
  assert repr(jnp.sin(True)) == "Array(0.84147096, dtype=float32)"


# --- binary arithmetic ------------------------------------------------------------------------

BINARY = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("maximum", np.maximum), ("minimum", np.minimum),
]
BIN_DTYPES = [np.bool_, np.int8, np.int32, np.uint8, F16, BF16, np.float32, C64]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("dt", BIN_DTYPES, ids=lambda d: np.dtype(d).name)
def test_binary_same_dtype(name, ref, dt):
  dt = np.dtype(dt)
  x, y = _sample(dt, (3, 4)), _sample(dt, (4,))
  if name == "subtract" and dt == np.bool_:
    with pytest.raises(TypeError, match="sub does not accept dtype bool"):
      jnp.subtract(x, y)
    return
  out = _eager_and_jit(getattr(jnp, name), x, y)
  assert out.dtype == dt and out.shape == (3, 4)
  if dt == BF16:
    expected = ref(x.astype(np.float32), y.astype(np.float32)).astype(BF16)
    _close(out, expected.astype(np.float64), BF16)
  elif dt == np.bool_ and name == "add":
    np.testing.assert_array_equal(out, x | y)
  else:
    with np.errstate(over="ignore"):
      expected = ref(x, y)
    _close(out, expected, dt)


@pytest.mark.parametrize("x,y,expected", [
    (np.int8(1), 1.5, "float32 weak=True"),
    (np.zeros(2, np.int8), 1, "int8 weak=False"),
    (np.zeros(2, np.uint8), np.zeros(2, np.int8), "int16 weak=False"),
    (np.zeros(2, np.uint32), np.zeros(2, np.int32), "int32 weak=False"),
    (np.zeros(2, BF16), np.zeros(2, np.float16), "float32 weak=False"),
    (np.zeros(2, BF16), 1.5, "bfloat16 weak=False"),
    (1, 1.0, "float32 weak=True"),
    (True, 1, "int32 weak=True"),
    (True, True, "bool weak=False"),
    (2, 1j, "complex64 weak=True"),
    (np.float64(1.5), 1, "float32 weak=False"),
])
def test_add_promotion(x, y, expected):
  out = jnp.add(x, y)
  assert f"{out.dtype.name} weak={out.weak_type}" == expected


def test_weak_type_reprs():
  assert repr(jnp.add(1, 1.0)) == "Array(2., dtype=float32, weak_type=True)"
  assert repr(jnp.multiply(2, True)) == "Array(2, dtype=int32, weak_type=True)"
  assert repr(jnp.add(True, True)) == "Array(True, dtype=bool)"
  assert repr(jnp.floor_divide(7, -2)) == "Array(-4, dtype=int32, weak_type=True)"
  assert repr(jnp.equal(1, 1)) == "Array(True, dtype=bool, weak_type=True)"
  assert repr(jnp.isinf(1.)) == "Array(False, dtype=bool)"
  assert repr(jnp.imag(1.5)) == "Array(0., dtype=float32, weak_type=True)"


def test_python_scalar_wraps_and_overflows():
  x = np.zeros(3, np.int8)
  np.testing.assert_array_equal(jnp.add(x, 300), np.full(3, 44, np.int8))
  np.testing.assert_array_equal(jnp.subtract(np.zeros(2, np.uint8), 1), [255, 255])
  with pytest.raises(OverflowError):
    jnp.add(x, 2 ** 40)


def test_divide_and_true_divide():
  out = _eager_and_jit(jnp.divide, np.array([1, -1, 0], np.int32), np.int32(0))
  np.testing.assert_array_equal(out, [np.inf, -np.inf, np.nan])
  assert out.dtype == F32
  assert jnp.true_divide is jnp.divide
  assert repr(jnp.true_divide(1, 2)) == "Array(0.5, dtype=float32, weak_type=True)"


@pytest.mark.parametrize("dt", [np.int32, np.int8, np.uint8, np.float32])
def test_floor_divide_remainder_divmod(dt):
  dt = np.dtype(dt)
  lo = 0 if dt.kind == "u" else -9
  x = np.arange(lo, 10).astype(dt)
  y = np.array([3, 4] if dt.kind == "u" else [-4, 3], dt)[np.arange(x.size) % 2]
  fd = _eager_and_jit(jnp.floor_divide, x, y)
  rem = _eager_and_jit(jnp.remainder, x, y)
  q, r = _eager_and_jit(jnp.divmod, x, y)
  fm = _eager_and_jit(jnp.fmod, x, y)
  for got, exp in ((fd, np.floor_divide(x, y)), (rem, np.remainder(x, y)), (q, fd),
                   (r, rem), (fm, np.fmod(x, y))):
    assert got.dtype == dt
    np.testing.assert_array_equal(got, exp)
  assert jnp.mod is jnp.remainder


def test_integer_division_by_zero_matches_jax():
  x = np.array([7, -7, 0], np.int32)
  np.testing.assert_array_equal(jnp.floor_divide(x, 0), [-2, -2, -1])
  np.testing.assert_array_equal(jnp.remainder(x, 0), [0, 0, 0])
  np.testing.assert_array_equal(jnp.fmod(x, 0), [0, 0, 0])
  np.testing.assert_array_equal(jnp.floor_divide(np.array([1., -1., 0.], np.float32), 0),
                                [np.inf, -np.inf, np.nan])


def test_power():
  x = np.arange(-3, 4, dtype=np.int32)
  out = _eager_and_jit(jnp.power, x, np.abs(x))
  np.testing.assert_array_equal(out, x ** np.abs(x))
  assert out.dtype == np.int32
  np.testing.assert_array_equal(jnp.power(np.int8(3), np.arange(4, dtype=np.int8)),
                                [1, 3, 9, 27])
  f = np.linspace(0.5, 2, 5).astype(np.float32)
  np.testing.assert_allclose(_eager_and_jit(lambda a: jnp.power(a, 3), f), f ** 3, rtol=1e-6)
  np.testing.assert_allclose(jnp.power(f, -2), f ** -2.0, rtol=1e-6)
  np.testing.assert_allclose(jnp.power(f, np.arange(5)), f ** np.arange(5), rtol=1e-6)
  np.testing.assert_allclose(jnp.power(2., f), 2. ** f, rtol=1e-6)
  assert repr(jnp.power(4, 3)) == "Array(64, dtype=int32, weak_type=True)"
  assert jnp.pow is jnp.power
  with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
    jnp.power(2, -1)
  np.testing.assert_array_equal(jnp.power(np.array([2, 0, -2]), np.array([-1, -1, -1])),
                                [0, 0, 0])
  assert repr(jnp.float_power(2, 3)) == "Array(8., dtype=float32, weak_type=True)"


def test_power_jaxprs():
  assert str(ember.make_jaxpr(lambda x: jnp.power(x, 3))(np.zeros(3, np.int32))) == \
      "{ lambda ; a:i32[3]. let b:i32[3] = integer_pow[y=3] a in (b,) }"
  assert "pow a 2.0:f32[]" in str(ember.make_jaxpr(lambda x: x ** 2.0)(np.float32(1))) or \
      "pow a 2.0:f32[]" in str(ember.make_jaxpr(lambda x: jnp.power(x, 2.0))(np.float32(1)))


# --- other binary functions -------------------------------------------------------------------

def test_misc_binary_values():
  a = np.array([1., -2., 0., 3.5, np.nan], np.float32)
  b = np.array([2., 2., -1., np.nan, 1.], np.float32)
  with np.errstate(invalid="ignore"):
    for name in ("arctan2", "hypot", "copysign", "nextafter", "logaddexp", "logaddexp2",
                 "fmax", "fmin", "heaviside"):
      out = _eager_and_jit(getattr(jnp, name), a, b)
      np.testing.assert_allclose(out, getattr(np, name)(a, b), rtol=2e-6, equal_nan=True,
                                 err_msg=name)
  np.testing.assert_array_equal(jnp.logaddexp(np.float32(-np.inf), np.float32(-np.inf)),
                                -np.inf)
  assert repr(jnp.hypot(3, 4)) == "Array(5., dtype=float32, weak_type=True)"
  np.testing.assert_allclose(jnp.hypot(np.float32(1e30), np.float32(1e30)), 1.4142135e30,
                             rtol=1e-6)


def test_complex_logaddexp_and_ordering():
  x = np.array([1 + 1j, 2 - 3j], np.complex64)
  y = np.array([2 + 3j, 2 - 1j], np.complex64)
  np.testing.assert_allclose(jnp.logaddexp(x, y), np.log(np.exp(x.astype(complex)) +
                                                         np.exp(y.astype(complex))),
                             rtol=1e-5)
  np.testing.assert_array_equal(jnp.less(x, y), [True, True])
  np.testing.assert_array_equal(jnp.maximum(x, y), y)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint8])
def test_gcd_lcm(dt):
  x = _sample(dt, (9,), 0 if np.dtype(dt).kind == "u" else -30, 30)
  y = _sample(dt, (9,), 0, 30)
  np.testing.assert_array_equal(_eager_and_jit(jnp.gcd, x, y), np.gcd(x, y))
  lcm = np.lcm(x.astype(np.int64), y.astype(np.int64)).astype(dt)
  np.testing.assert_array_equal(jnp.lcm(x, y), lcm)


def test_gcd_worst_case_and_errors():
  np.testing.assert_array_equal(
      jnp.gcd(np.array([1836311903], np.int32), np.array([1134903170], np.int32)), [1])
  with pytest.raises(ValueError, match="must be integers"):
    jnp.gcd(1., 2)
  with pytest.raises(ValueError, match="must be integers"):
    jnp.lcm(True, True)


def test_bitwise_and_shifts():
  x = np.array([0, 5, -8, 127], np.int8)
  y = np.array([1, 2, 1, 3], np.int8)
  for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
    np.testing.assert_array_equal(_eager_and_jit(getattr(jnp, name), x, y),
                                  getattr(np, name)(x, y), err_msg=name)
  np.testing.assert_array_equal(jnp.right_shift(np.uint8(200), 1), 100)
  np.testing.assert_array_equal(jnp.bitwise_not(x), ~x)
  assert jnp.invert is jnp.bitwise_not
  np.testing.assert_array_equal(jnp.bitwise_count(np.array([-1, 7], np.int8)), [1, 3])
  assert jnp.bitwise_count(np.int8(3)).dtype == np.uint8
  assert jnp.left_shift(True, True).dtype == np.int32
  with pytest.raises(TypeError, match="does not accept dtype float32"):
    jnp.bitwise_and(np.float32(1), np.float32(1))


def test_logical_and_comparisons():
  x = np.array([0., 1., np.nan, -2.], np.float32)
  y = np.array([0, 0, 1, 1], np.int32)
  for name in ("logical_and", "logical_or", "logical_xor"):
    np.testing.assert_array_equal(_eager_and_jit(getattr(jnp, name), x, y),
                                  getattr(np, name)(x, y), err_msg=name)
  np.testing.assert_array_equal(jnp.logical_not(x), np.logical_not(x))
  for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    out = _eager_and_jit(getattr(jnp, name), x, y)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, getattr(np, name)(x, y), err_msg=name)
  assert repr(jnp.logical_not(2.5)) == "Array(False, dtype=bool, weak_type=True)"


# --- rounding, classification, misc unary -----------------------------------------------------

def test_rounding():
  x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.2345, -np.inf, np.nan], np.float32)
  for name in ("floor", "ceil", "trunc", "rint"):
    np.testing.assert_array_equal(_eager_and_jit(getattr(jnp, name), x), getattr(np, name)(x))
  np.testing.assert_array_equal(jnp.round(x), np.round(x))
  np.testing.assert_allclose(jnp.round(x, 2), np.round(x, 2), rtol=1e-6)
  # float16 rounds via float32, as JAX does (NumPy gives 2.4 for the second)
  np.testing.assert_allclose(jnp.around(np.array([1.25, 2.35], np.float16), 1),
                             np.array([1.2, 2.3], np.float16))
  i = np.array([1234, -5], np.int32)
  assert jnp.floor(i).dtype == np.int32 and jnp.rint(i).dtype == F32
  np.testing.assert_array_equal(jnp.round(i, 2), i)
  with pytest.raises(NotImplementedError, match="decimals < 0"):
    jnp.round(i, -2)
  with pytest.raises(TypeError, match="does not accept dtype complex64"):
    jnp.floor(np.complex64(1))
  np.testing.assert_array_equal(jnp.round(np.array([1.5 + 2.5j], C64)), [2 + 2j])
  with pytest.raises(NotImplementedError, match="'out' argument"):
    jnp.round(x, out=x)


def test_clip():
  x = np.arange(6, dtype=np.int32)
  np.testing.assert_array_equal(_eager_and_jit(lambda a: jnp.clip(a, 1, 3), x),
                                np.clip(x, 1, 3))
  np.testing.assert_array_equal(jnp.clip(x, max=3), np.minimum(x, 3))
  out = jnp.clip(x, 1.5, 3)
  assert out.dtype == F32 and out.weak_type
  np.testing.assert_array_equal(jnp.clip(x), x)
  with pytest.raises(ValueError, match="Complex values have no ordering"):
    jnp.clip(np.array([1j]), 0, 1)
  with pytest.raises(TypeError):
    jnp.clip(x, a_min=1)


def test_classification():
  x = np.array([0., -0., 1., -np.inf, np.inf, np.nan], np.float32)
  for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
    out = _eager_and_jit(getattr(jnp, name), x)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, getattr(np, name)(x), err_msg=name)
  i = np.array([-1, 0, 2], np.int32)
  np.testing.assert_array_equal(jnp.isinf(i), [False] * 3)
  np.testing.assert_array_equal(jnp.isfinite(i), [True] * 3)
  np.testing.assert_array_equal(jnp.signbit(i), [True, False, False])
  c = np.array([np.inf + 0j, 1j, np.nan], np.complex64)
  np.testing.assert_array_equal(jnp.isinf(c), [True, False, False])
  np.testing.assert_array_equal(jnp.isfinite(c), [False, True, False])
  np.testing.assert_array_equal(jnp.signbit(np.array([-1, 0], BF16)), [True, False])
  with pytest.raises(ValueError, match="not well defined for complex"):
    jnp.isposinf(c)
  with pytest.raises(ValueError, match="signbit is not well defined"):
    jnp.signbit(c)


def test_frexp_ldexp_modf_spacing():
  x = np.array([8., 0., -3.5, 1e-30, 0.3, np.inf, -np.inf], np.float32)
  m, e = _eager_and_jit(jnp.frexp, x)
  nm, ne = np.frexp(x)
  np.testing.assert_array_equal(m, nm)
  np.testing.assert_array_equal(e, ne)
  assert e.dtype == np.int32
  m, e = jnp.frexp(np.float32(1e-40))  # a denormal input: JAX gives (0.5, -149)
  assert (float(m), int(e)) == (0.5, -149)
  np.testing.assert_array_equal(jnp.ldexp(np.float32([1., 2.]), np.int32([3, -1])), [8., 1.])
  with pytest.raises(ValueError, match="ldexp not supported"):
    jnp.ldexp(np.float32(1), np.float32(2))
  frac, whole = _eager_and_jit(jnp.modf, np.array([-1.5, 2.25], np.float32))
  np.testing.assert_array_equal(frac, [-0.5, 0.25])
  np.testing.assert_array_equal(whole, [-1., 2.])
  s = np.array([1., -1., 0., 1e30], np.float32)
  np.testing.assert_array_equal(_eager_and_jit(jnp.spacing, s), np.spacing(s))
  with pytest.raises(TypeError, match="complex"):
    jnp.frexp(np.complex64(1))


def test_complex_helpers():
  z = np.array([1 + 2j, -3 - 1j, 0j], np.complex64)
  np.testing.assert_array_equal(_eager_and_jit(jnp.conj, z), np.conj(z))
  np.testing.assert_array_equal(jnp.real(z), z.real)
  np.testing.assert_array_equal(jnp.imag(z), z.imag)
  np.testing.assert_allclose(jnp.angle(z), np.angle(z), rtol=1e-6)
  np.testing.assert_allclose(jnp.angle(z, deg=True), np.angle(z, deg=True), rtol=1e-6)
  np.testing.assert_allclose(jnp.abs(z), np.abs(z), rtol=1e-6)
  assert jnp.abs(z).dtype == F32
  r = np.array([-1., 2.], np.float32)
  assert jnp.conjugate(r).dtype == F32 and jnp.real(r).dtype == F32
  np.testing.assert_array_equal(jnp.imag(np.array([1, 2])), [0, 0])
  np.testing.assert_allclose(jnp.angle(r), np.angle(r))
  np.testing.assert_allclose(jnp.sqrt(np.complex64(-1)), 1j)


def test_sign_abs_square_and_friends():
  x = np.array([-2, 0, 3], np.int8)
  np.testing.assert_array_equal(jnp.sign(x), np.sign(x))
  np.testing.assert_array_equal(jnp.abs(np.int8(-128)), np.int8(-128))
  assert jnp.abs(np.uint8(3)).dtype == np.uint8
  np.testing.assert_array_equal(jnp.square(x), np.square(x))
  assert jnp.square(True).dtype == np.int32
  np.testing.assert_array_equal(jnp.negative(x), -x)
  np.testing.assert_array_equal(jnp.positive(x), x)
  np.testing.assert_allclose(jnp.sinc(np.float32([0., 0.5, 1.])), np.sinc([0., 0.5, 1.]),
                             atol=1e-7)
  np.testing.assert_array_equal(jnp.sign(np.float32([-0., np.nan])), [0., np.nan])
  with pytest.raises(TypeError, match="neg does not accept dtype bool"):
    jnp.negative(True)


# --- the ufunc objects ------------------------------------------------------------------------

def test_ufunc_methods():
  assert repr(jnp.add) == "<jnp.ufunc 'add'>"
  assert (jnp.add.nin, jnp.add.nout, jnp.add.identity) == (2, 1, 0)
  x = np.arange(6, dtype=np.int32).reshape(2, 3)
  np.testing.assert_array_equal(jnp.add.reduce(x), x.sum(0))
  np.testing.assert_array_equal(jnp.multiply.reduce(x, axis=1), x.prod(1))
  np.testing.assert_array_equal(jnp.maximum.reduce(x, axis=1), x.max(1))
  np.testing.assert_array_equal(jnp.bitwise_xor.reduce(x, axis=1),
                                np.bitwise_xor.reduce(x, axis=1))
  np.testing.assert_array_equal(jnp.add.accumulate(x, axis=1), np.add.accumulate(x, axis=1))
  np.testing.assert_array_equal(jnp.subtract.accumulate(x, axis=1),
                                np.subtract.accumulate(x, axis=1))
  np.testing.assert_array_equal(jnp.multiply.outer(np.arange(3), np.arange(2)),
                                np.multiply.outer(np.arange(3), np.arange(2)))
  np.testing.assert_allclose(jnp.logaddexp.reduce(np.arange(3.)),
                             np.logaddexp.reduce(np.arange(3.)), rtol=1e-6)


def test_ufunc_errors():
  x = np.zeros(3, np.float32)
  with pytest.raises(NotImplementedError, match="out argument of <jnp.ufunc 'add'>"):
    jnp.add(x, 1, out=x)
  with pytest.raises(NotImplementedError, match="where argument"):
    jnp.add(x, 1, where=True)
  with pytest.raises(TypeError, match="missing 1 required positional argument"):
    jnp.add(x)
  with pytest.raises(TypeError, match="add requires ndarray or scalar arguments"):
    jnp.add([1, 2], 1)
  with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
    jnp.sin(x, out=x)
  with pytest.raises(ValueError, match="hypot is not well defined for complex"):
    jnp.hypot(1j, 1)
  with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
    jnp.add(np.zeros((2, 3)), np.zeros(4))


# --- jaxprs -----------------------------------------------------------------------------------

def test_jaxprs_match_jax():
  mk = ember.make_jaxpr
  assert str(mk(jnp.sin)(np.zeros(3, np.int32))) == (
      "{ lambda ; a:i32[3]. let\n"
      "    b:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
      "    c:f32[3] = sin b\n  in (c,) }")
  assert str(mk(lambda x: jnp.add(x, 1))(np.zeros(3, np.int32))) == \
      "{ lambda ; a:i32[3]. let b:i32[3] = add a 1:i32[] in (b,) }"
  assert str(mk(lambda x: jnp.add(x, 1))(np.zeros(3, np.int8))) == \
      "{ lambda ; a:i8[3]. let b:i8[3] = add a 1:i8[] in (b,) }"
  assert str(mk(jnp.add)(np.zeros(3, bool), np.zeros(3, bool))) == \
      "{ lambda ; a:bool[3] b:bool[3]. let c:bool[3] = or a b in (c,) }"
  assert str(mk(jnp.add)(np.zeros(3, np.float32), np.zeros((2, 3), np.float32))) == (
      "{ lambda ; a:f32[3] b:f32[2,3]. let\n"
      "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
      "    d:f32[2,3] = add c b\n  in (d,) }")
  fd = str(mk(jnp.floor_divide)(np.zeros(3, np.int32), np.zeros(3, np.int32)))
  assert "name=floor_divide" in fd and "name=_where" in fd and "sub d 1:i32[]" in fd
  assert str(mk(jnp.isnan)(np.zeros(3, np.float32))) == \
      "{ lambda ; a:f32[3]. let b:bool[3] = ne a a in (b,) }"


# --- x64 --------------------------------------------------------------------------------------

@pytest.fixture
def x64():
  old = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  try:
    yield
  finally:
    config.update("jax_enable_x64", old)


def test_x64_promotion(x64):
  assert repr(jnp.add(1, 1.0)) == "Array(2., dtype=float64, weak_type=True)"
  assert jnp.sin(np.arange(3, dtype=np.int64)).dtype == np.float64
  assert jnp.add(np.float32(1), 1.0).dtype == np.float32
  assert jnp.divide(np.int64(1), np.int64(3)).dtype == np.float64
  np.testing.assert_array_equal(jnp.floor_divide(np.int64(2 ** 40), 3), 2 ** 40 // 3)


def test_float64_inputs_canonicalize_without_warning():
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    out = jnp.sin(np.arange(3.))
  assert out.dtype == F32
