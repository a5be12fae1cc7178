"""jvp and transpose rules of the elementwise primitives (ember/primitives/elementwise.py).

Every differentiable primitive: jvp against central finite differences in float64, vjp against jvp
through the identity Re<ct, jvp(t)> == Re<vjp(ct), t>; plus JAX's values at the edges (kinks,
ties, zeros), broadcasting operands, zero (float0) tangents, second order, and jaxpr prints.
"""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.primitives import elementwise as ew

F64, C128 = np.float64, np.complex128


def _rand(shape, dtype, lo, hi, seed):
  rng = np.random.RandomState(seed)
  x = rng.uniform(lo, hi, shape)
  if np.issubdtype(dtype, np.complexfloating):
    x = x + 1j * rng.uniform(lo, hi, shape)
  return np.asarray(x, dtype)


def _tangent_like(x, seed):
  x = np.asarray(x)
  return _rand(x.shape, x.dtype, -1.0, 1.0, seed)


def _pair(a, b) -> float:
  """The real pairing Re(sum(a * b)) under which vjp is the transpose of jvp."""
  return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def check_jvp(f, primals, eps=1e-6, rtol=2e-6, atol=1e-8, seed=0):
  tangents = [_tangent_like(p, seed + i) for i, p in enumerate(primals)]
  y, t_out = ember.jvp(f, tuple(primals), tuple(tangents))
  plus = f(*[p + eps * t for p, t in zip(primals, tangents)])
  minus = f(*[p - eps * t for p, t in zip(primals, tangents)])
  fd = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
  assert t_out.shape == y.shape and t_out.dtype == y.dtype
  np.testing.assert_allclose(np.asarray(t_out), fd, rtol=rtol, atol=atol)
  return t_out


def check_vjp(f, primals, rtol=1e-9, seed=10):
  y, pullback = ember.vjp(f, *primals)
  ct = _tangent_like(y, seed)
  cts = pullback(ct)
  for c, p in zip(cts, primals):
    assert c.shape == np.shape(p) and c.dtype == np.asarray(p).dtype
  tangents = [_tangent_like(p, seed + 1 + i) for i, p in enumerate(primals)]
  _, t_out = ember.jvp(f, tuple(primals), tuple(tangents))
  lhs = _pair(ct, t_out)
  rhs = sum(_pair(c, t) for c, t in zip(cts, tangents))
  np.testing.assert_allclose(lhs, rhs, rtol=rtol, atol=1e-12)


# --- unary ops: (name, function, low, high, also complex) ------------------------------------

UNARY = [
    ("neg", lax.neg, -2, 2, True), ("exp", lax.exp, -2, 2, True),
    ("exp2", lax.exp2, -2, 2, True), ("log", lax.log, 0.2, 3, True),
    ("log1p", lax.log1p, -0.5, 2, True), ("expm1", lax.expm1, -2, 2, True),
    ("tanh", lax.tanh, -2, 2, True), ("logistic", lax.logistic, -3, 3, True),
    ("sin", lax.sin, -3, 3, True), ("cos", lax.cos, -3, 3, True), ("tan", lax.tan, -1, 1, True),
    ("asin", lax.asin, -0.8, 0.8, True), ("acos", lax.acos, -0.8, 0.8, True),
    ("atan", lax.atan, -2, 2, True), ("sinh", lax.sinh, -2, 2, True),
    ("cosh", lax.cosh, -2, 2, True), ("asinh", lax.asinh, -2, 2, True),
    ("acosh", lax.acosh, 1.2, 3, True), ("atanh", lax.atanh, -0.8, 0.8, True),
    ("sqrt", lax.sqrt, 0.2, 3, True), ("rsqrt", lax.rsqrt, 0.2, 3, True),
    ("cbrt", lax.cbrt, 0.2, 3, False), ("erf", lax.erf, -2, 2, False),
    ("erfc", lax.erfc, -2, 2, False), ("erf_inv", lax.erf_inv, -0.8, 0.8, False),
    ("lgamma", lax.lgamma, 0.3, 4, False), ("digamma", lax.digamma, 0.3, 4, False),
    ("bessel_i0e", lax.bessel_i0e, -3, 3, False), ("bessel_i1e", lax.bessel_i1e, -3, 3, False),
    ("abs", lax.abs, 0.2, 2, True), ("square", lax.square, -2, 2, True),
    ("integer_pow3", lambda x: lax.integer_pow(x, 3), -2, 2, True),
    ("integer_pow-2", lambda x: lax.integer_pow(x, -2), 0.3, 2, True),
    ("copy", lax.copy, -2, 2, True),
    ("reduce_precision", lambda x: lax.reduce_precision(x, 11, 52), -2, 2, False),
    ("real", lax.real, -2, 2, None), ("imag", lax.imag, -2, 2, None),
    ("conj", lax.conj, -2, 2, None),
]
UNARY_CASES = [pytest.param(f, lo, hi, F64, id=f"{name}-f64")
               for name, f, lo, hi, c in UNARY if c is not None]
UNARY_CASES += [pytest.param(f, lo, hi, C128, id=f"{name}-c128")
                for name, f, lo, hi, c in UNARY if c is not False]


@pytest.mark.parametrize("f, lo, hi, dtype", UNARY_CASES)
def test_unary_jvp_and_vjp(x64, f, lo, hi, dtype):
  if dtype == C128:
    lo, hi = 0.2, 0.7  # away from every branch cut
  x = _rand((3,), dtype, lo, hi, seed=1)
  check_jvp(f, [x])
  check_vjp(f, [x])


@pytest.mark.parametrize("f", [lax.sign, lax.floor, lax.ceil, lax.round,
                               lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
                               lambda x: lax.integer_pow(x, 0)])
def test_piecewise_constant_ops_have_zero_tangents(x64, f):
  x = np.array([-1.3, 0.4, 2.6])
  y, t = ember.jvp(f, (x,), (np.ones(3),))
  np.testing.assert_array_equal(np.asarray(t), np.zeros(3))
  assert t.dtype == y.dtype
  (ct,) = ember.vjp(f, x)[1](np.ones(3))
  np.testing.assert_array_equal(np.asarray(ct), np.zeros(3))


def test_float32_tangents_keep_dtype_and_weak_type():
  y, t = ember.jvp(lax.sin, (jnp.float32(0.5),), (jnp.float32(2.0),))
  assert t.dtype == np.float32 and not t.aval.weak_type
  np.testing.assert_allclose(float(t), 2 * np.cos(0.5), rtol=1e-6)
  y, t = ember.jvp(lambda x: x * 2.0, (1.5,), (1.0,))
  assert repr(t) == "Array(2., dtype=float32, weak_type=True)"
  g = ember.grad(lambda x: lax.exp(x))(jnp.bfloat16(1.0))
  assert g.dtype == jnp.bfloat16 and abs(float(g) - np.e) < 2e-2


# --- binary ops -------------------------------------------------------------------------------

BINARY = [
    ("add", lax.add, (-2, 2), (-2, 2), True), ("sub", lax.sub, (-2, 2), (-2, 2), True),
    ("mul", lax.mul, (-2, 2), (-2, 2), True), ("div", lax.div, (-2, 2), (0.5, 2), True),
    ("rem", lax.rem, (2.1, 2.9), (1.0, 1.05), False),
    ("pow", lax.pow, (0.5, 2), (-2, 2), True), ("max", lax.max, (-2, 0), (0.1, 2), False),
    ("min", lax.min, (-2, 0), (0.1, 2), False), ("atan2", lax.atan2, (-2, 2), (0.5, 2), False),
    ("complex", lax.complex, (-2, 2), (-2, 2), False),
    ("polygamma", lambda x: ew.polygamma_p.bind(np.float64(1.0), x), (0.5, 3), None, False),
]
BINARY_CASES = [pytest.param(f, a, b, F64, id=f"{n}-f64") for n, f, a, b, c in BINARY]
BINARY_CASES += [pytest.param(f, a, b, C128, id=f"{n}-c128") for n, f, a, b, c in BINARY if c]


@pytest.mark.parametrize("f, x_range, y_range, dtype", BINARY_CASES)
def test_binary_jvp_and_vjp(x64, f, x_range, y_range, dtype):
  args = [_rand((3,), dtype, *x_range, seed=2)]
  if y_range is not None:
    args.append(_rand((3,), dtype, *y_range, seed=3))
  if dtype == C128:
    args = [_rand((3,), dtype, 0.3, 0.8, seed=2 + i) for i in range(len(args))]
  check_jvp(f, args)
  check_vjp(f, args)


@pytest.mark.parametrize("f", [lax.add, lax.sub, lax.mul, lax.div, lax.pow, lax.max, lax.atan2,
                               lax.complex, lax.rem], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x_shape, y_shape", [((2, 1), (2, 3)), ((), (2, 3)), ((2, 3), ())])
def test_binary_broadcasting(x64, f, x_shape, y_shape):
  x = _rand(x_shape, F64, 2.1, 2.9, seed=4)
  y = _rand(y_shape, F64, 1.0, 1.05, seed=5)
  check_jvp(f, [x, y])
  check_vjp(f, [x, y])
  for g, arg in ((lambda a: f(a, y), x), (lambda b: f(x, b), y)):
    check_jvp(g, [arg])  # one tangent, broadcast to the output
    check_vjp(g, [arg])


def test_pow_with_integer_exponent(x64):
  x = _rand((3,), F64, 0.5, 2, seed=6)
  check_jvp(lambda a: lax.pow(a, np.int32(3)), [x])
  check_vjp(lambda a: lax.pow(a, np.int32(-2)), [x])
  check_jvp(lambda a: lax.pow(a, jnp.array([0, 1, 2], np.int32)), [x])
  # the integer exponent 0 gives 0, not nan, at x == 0 (as JAX)
  g = ember.grad(lambda a: lax.pow(a, np.int32(0)))(0.0)
  assert float(g) == 0.0
  assert float(ember.grad(lambda a: lax.pow(a, np.int32(1)))(0.0)) == 1.0


def test_clamp(x64):
  lo, hi = np.float64(-0.5), np.float64(0.5)
  x = np.array([-1.2, -0.3, 0.2, 0.9])
  check_jvp(lax.clamp, [lo, x, hi])
  check_vjp(lax.clamp, [lo, x, hi])
  check_jvp(lax.clamp, [np.full(4, lo), x, np.full(4, hi)])
  check_vjp(lax.clamp, [np.full(4, lo), x, np.full(4, hi)])
  check_jvp(lambda m: lax.clamp(m, x, hi), [lo])  # a scalar bound's tangent is broadcast


def test_select_n(x64):
  pred = np.array([True, False, True])
  a, b = _rand((3,), F64, -1, 1, 7), _rand((3,), F64, -1, 1, 8)
  check_jvp(lambda u, v: lax.select(pred, u, v), [a, b])
  check_vjp(lambda u, v: lax.select(pred, u, v), [a, b])
  which = np.array([2, 0, 1], np.int32)
  check_vjp(lambda u, v, w: lax.select_n(which, u, v, w), [a, b, a * 2])
  check_vjp(lambda u: lax.select_n(np.True_, u, b), [a])  # rank-0 predicate
  # the branch not taken gets a zero cotangent (so log's 1/0 meets 0: nan, as in JAX)
  g = ember.grad(lambda t: jnp.sum(lax.select(pred, t * 2.0, t * 5.0)))(np.ones(3))
  np.testing.assert_array_equal(np.asarray(g), [2.0, 5.0, 2.0])
  g = ember.grad(lambda t: jnp.sum(lax.select(pred, t * 2.0, lax.log(t))))(np.array([0., 1., 0.]))
  np.testing.assert_array_equal(np.asarray(g), [np.nan, 1.0, np.nan])


def test_convert_element_type(x64):
  x = _rand((3,), F64, -2, 2, 9)
  _, t = ember.jvp(lambda a: lax.convert_element_type(a, np.float32), (x,), (x * 3,))
  assert t.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(t), (x * 3).astype(np.float32))
  check_vjp(lambda a: lax.convert_element_type(a, np.complex128), [x])
  z = _rand((3,), C128, -2, 2, 9)
  check_vjp(lambda a: lax.convert_element_type(a, np.float64), [z])  # keeps the real part
  y, t = ember.jvp(lambda a: lax.convert_element_type(a, np.int32), (x,), (x,))
  assert y.dtype == np.int32 and t.dtype == ember.dtypes.float0
  (ct,) = ember.vjp(lambda a: lax.convert_element_type(a, np.float32), x)[1](
      np.ones(3, np.float32))
  assert ct.dtype == np.float64


def test_linear_transposes(x64):
  """linear_transpose of each linear primitive, against its matrix."""
  x = _rand((3,), F64, -1, 1, 11)
  ct = _rand((3,), F64, -1, 1, 12)
  z = _rand((3,), C128, -1, 1, 13)
  cases = [(lax.neg, x, -ct), (lambda a: a * 3.0, x, 3 * ct), (lambda a: 3.0 * a, x, 3 * ct),
           (lambda a: a / 4.0, x, ct / 4), (lax.copy, x, ct),
           (lambda a: lax.reduce_precision(a, 11, 52), x, ct),
           (lambda a: lax.sub(1.0, a), x, -ct), (lambda a: a + a, x, 2 * ct),
           (lax.real, z, ct + 0j), (lax.imag, z, -1j * ct), (lax.conj, z, np.conj(z)),
           (lambda a: lax.complex(a, 0.0), x, np.real(z))]
  for i, (f, primal, want) in enumerate(cases):
    cotangent = z if f in (lax.conj,) or i == len(cases) - 1 else ct
    (got,) = ember.linear_transpose(f, primal)(cotangent)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, err_msg=str(i))
    assert got.dtype == primal.dtype


def test_transpose_sums_over_broadcast_dims(x64):
  x = np.ones((2, 1))
  (ct,) = ember.linear_transpose(lambda a: lax.add(a, np.ones((2, 3))), x)(np.ones((2, 3)))
  np.testing.assert_array_equal(np.asarray(ct), [[3.0], [3.0]])
  (ct,) = ember.linear_transpose(lambda a: lax.mul(a, np.full((2, 3), 2.0)), 1.0)(
      np.ones((2, 3)))
  assert ct.shape == () and float(ct) == 12.0
  _, pullback = ember.vjp(lax.add, 1.0, jnp.ones((2, 3)))
  g1, g2 = pullback(jnp.ones((2, 3)))
  assert float(g1) == 6.0 and g2.shape == (2, 3)


# --- zero tangents ----------------------------------------------------------------------------

@pytest.mark.parametrize("f", [lax.eq, lax.ne, lax.lt, lax.le, lax.gt, lax.ge])
def test_comparisons_have_float0_tangents(f):
  x, y = jnp.array([1.0, 2.0]), jnp.array([2.0, 2.0])
  out, t = ember.jvp(f, (x, y), (x, y))
  assert out.dtype == np.bool_ and t.dtype == ember.dtypes.float0 and t.shape == (2,)


def test_bitwise_and_integer_ops_have_zero_rules():
  ints = np.array([3, 5], np.int32)
  for p, n in [(ew.and_p, 2), (ew.or_p, 2), (ew.xor_p, 2), (ew.shift_left_p, 2),
               (ew.shift_right_arithmetic_p, 2), (ew.shift_right_logical_p, 2), (ew.not_p, 1),
               (ew.population_count_p, 1), (ew.clz_p, 1)]:
    out, t = p.rule("jvp")([ints] * n, [ints] * n)
    assert type(t).__name__ == "Zero" and t.aval.dtype == ember.dtypes.float0, p
  out, t = ember.jvp(lax.is_finite, (jnp.array([1.0, np.inf]),), (jnp.ones(2),))
  assert t.dtype == ember.dtypes.float0
  out, t = ember.jvp(lambda a: lax.bitcast_convert_type(a, np.int32), (jnp.ones(2),),
                     (jnp.ones(2),))
  assert t.dtype == ember.dtypes.float0
  out, t = ember.jvp(lambda a: lax.bitcast_convert_type(a, np.float32), (jnp.ones(2),),
                     (jnp.ones(2),))
  np.testing.assert_array_equal(np.asarray(t), [0.0, 0.0])


# --- JAX's values at the edges ----------------------------------------------------------------

def _grads(f, *args):
  return [float(g) for g in ember.grad(f, argnums=tuple(range(len(args))))(*args)]


def test_edges_match_jax(x64):
  g = lambda f, x: float(ember.grad(f)(x))
  assert g(lax.abs, 0.0) == 1.0 and g(lax.abs, -0.0) == 1.0
  assert g(lax.sqrt, 0.0) == np.inf and g(lax.rsqrt, 0.0) == -np.inf
  assert g(lax.cbrt, 0.0) == np.inf
  assert [g(lambda x: lax.integer_pow(x, n), 0.0) for n in (0, 1, 2)] == [0.0, 1.0, 0.0]
  assert g(lambda x: lax.integer_pow(x, -1), 0.0) == -np.inf
  assert g(lax.bessel_i1e, 0.0) == 0.5 and g(lax.bessel_i0e, 0.0) == 0.0
  assert g(lax.logistic, 100.0) == 0.0
  assert _grads(lax.max, 1.0, 1.0) == [0.5, 0.5] and _grads(lax.min, 1.0, 1.0) == [0.5, 0.5]
  assert _grads(lax.max, 1.0, 2.0) == [0.0, 1.0] and _grads(lax.min, 1.0, 2.0) == [1.0, 0.0]
  assert np.isnan(_grads(lax.pow, 0.0, 0.0)).tolist() == [True, False]
  assert _grads(lax.pow, 0.0, 0.0)[1] == 0.0
  assert _grads(lax.pow, 0.0, 2.0) == [0.0, 0.0]
  assert _grads(lax.pow, 0.0, 0.5) == [np.inf, 0.0]
  assert np.isnan(_grads(lax.pow, -1.0, 2.0)[1])
  assert _grads(lax.rem, 5.5, 2.0) == [1.0, -2.0] and _grads(lax.rem, -5.5, 2.0) == [1.0, 2.0]
  assert np.isnan(_grads(lax.atan2, 0.0, 0.0)).all()
  # clamp: ties give no derivative to anyone; lo > hi gives hi
  assert _grads(lax.clamp, 0.0, 0.0, 1.0) == [0.0, 0.0, 0.0]
  assert _grads(lax.clamp, 0.0, 1.0, 1.0) == [0.0, 0.0, 0.0]
  assert _grads(lax.clamp, 0.0, 0.5, 1.0) == [0.0, 1.0, 0.0]
  assert _grads(lax.clamp, 0.0, -0.5, 1.0) == [1.0, 0.0, 0.0]
  assert _grads(lax.clamp, 0.0, 1.5, 1.0) == [0.0, 0.0, 1.0]
  assert _grads(lax.clamp, 1.0, 0.5, 0.0) == [0.0, 0.0, 1.0]
  np.testing.assert_allclose(g(lax.erf_inv, 0.5), 1.1125848189719496, rtol=1e-12)
  np.testing.assert_allclose([g(lax.digamma, v) for v in (2.5, -2.5, 1e-3, 100.0)],
                             [0.4903577561002349, 9.539246644989124, 1000001.6425331958,
                              0.010050166663333573], rtol=1e-10)
  assert g(lax.digamma, 0.0) == np.inf


def test_complex_edges_match_jax(x64):
  _, t = ember.jvp(lax.abs, (0j,), (1 + 1j,))
  assert float(t) == 0.0
  _, t = ember.jvp(lax.abs, (3 + 4j,), (1 + 1j,))
  np.testing.assert_allclose(float(t), 1.4)
  assert complex(ember.grad(lax.abs)(3 + 4j)) == 0.6 - 0.8j
  assert complex(ember.grad(lambda z: lax.real(z * z))(1 + 2j)) == 2 + 4j
  assert complex(ember.grad(lambda z: lax.imag(z * z))(1 + 2j)) == 4 - 2j
  assert complex(ember.vjp(lax.conj, 1 + 2j)[1](3 + 4j)[0]) == 3 - 4j
  assert complex(ember.vjp(lax.real, 1 + 2j)[1](3.0)[0]) == 3 + 0j
  assert complex(ember.vjp(lax.imag, 1 + 2j)[1](3.0)[0]) == -3j
  assert [float(v) for v in ember.vjp(lax.complex, 1.0, 2.0)[1](3 + 4j)] == [3.0, -4.0]
  assert complex(ember.vjp(lambda z: z * (1 + 2j), 1 + 2j)[1](3 + 4j)[0]) == -5 + 10j


def test_conj_of_real_input_is_complex_and_transposes_to_real(x64):
  y = ew.conj_p.bind(np.float64(2.0), input_dtype=np.dtype(np.float64))
  assert y.dtype == np.complex128 and complex(y) == 2 + 0j
  (ct,) = ember.vjp(lambda a: ew.conj_p.bind(a, input_dtype=np.dtype(np.float64)), 2.0)[1](
      3 + 4j)
  assert ct.dtype == np.float64 and float(ct) == 3.0
  with pytest.raises(TypeError, match="conj does not accept dtype int32"):
    ew.conj_p.bind(np.int32(1))


def test_unsupported_derivatives_raise():
  with pytest.raises(NotImplementedError, match="nextafter"):
    ember.jvp(lambda x: lax.nextafter(x, jnp.float32(1.0)), (jnp.float32(0.0),),
              (jnp.float32(1.0),))
  with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
    ember.grad(lambda m: ew.polygamma_p.bind(m, jnp.float32(2.0)))(jnp.float32(1.0))


# --- higher order, jit, printed jaxprs --------------------------------------------------------

def _fd_grad(f, x, h=1e-4):
  return (float(ember.grad(f)(x + h)) - float(ember.grad(f)(x - h))) / (2 * h)


def test_second_order(x64):
  x = 0.7
  d2 = lambda f: float(ember.grad(ember.grad(f))(x))
  np.testing.assert_allclose(d2(lax.tanh), -2 * np.tanh(x) / np.cosh(x) ** 2, rtol=1e-10)
  np.testing.assert_allclose(d2(lax.sqrt), -0.25 * x ** -1.5, rtol=1e-10)
  np.testing.assert_allclose(d2(lambda a: lax.pow(a, 2.5)), 2.5 * 1.5 * x ** 0.5, rtol=1e-10)
  np.testing.assert_allclose(d2(lambda a: lax.div(1.0, a)), 2 / x ** 3, rtol=1e-10)
  np.testing.assert_allclose(d2(lax.erf), -4 * x / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-10)
  np.testing.assert_allclose(d2(lambda a: lax.max(a, 0.5 * a)), 0.0)
  # digamma'' goes through polygamma(2, x); bessel_i1e'' through its guarded formula
  for f in (lax.digamma, lax.bessel_i1e, lax.bessel_i0e, lax.logistic, lax.abs):
    np.testing.assert_allclose(d2(f), _fd_grad(f, x), rtol=1e-6)


def test_scalar_tangents_stay_weak_like_jax():
  """A weakly typed scalar primal gives Python-scalar constants in the rules, as in JAX."""
  weak = lambda f: ember.jvp(f, (0.7,), (1.0,))[1].aval.weak_type
  for f in (lax.exp2, lax.digamma, lax.bessel_i1e, lambda y: lax.integer_pow(y, 3),
            lambda y: lax.max(0.0, y), lambda y: lax.clamp(0.0, y, 1.0), lax.sqrt):
    assert weak(f)
  for f in (lambda y: lax.pow(2.0, y), lambda y: lax.pow(y, 2.0), lambda y: lax.pow(y, 2),
            lambda y: lax.convert_element_type(y, np.float32)):
    assert not weak(f)  # JAX converts these to strong types


def test_jvp_under_jit_matches_eager(x64):
  x = _rand((3,), F64, 0.3, 2, 14)
  y = _rand((3,), F64, 0.3, 2, 15)
  for f in (lambda a, b: lax.max(a, b) * lax.sin(a), lambda a, b: lax.pow(a, b),
            lambda a, b: lax.clamp(0.5, a, b), lambda a, b: lax.atan2(a, b) / b):
    eager = ember.jvp(f, (x, y), (y, x))[1]
    jitted = ember.jit(lambda a, b: ember.jvp(f, (a, b), (b, a))[1])(x, y)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-12)
    g = ember.jit(ember.grad(lambda a, b: jnp.sum(f(a, b)), argnums=(0, 1)))(x, y)
    g_eager = ember.grad(lambda a, b: jnp.sum(f(a, b)), argnums=(0, 1))(x, y)
    for u, v in zip(g, g_eager):
      np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-12)


def _jvp_jaxpr(f, *args):
  return str(ember.make_jaxpr(lambda *a: ember.jvp(f, a, a))(*args))


def test_jvp_jaxprs_print_like_jax():
  x = jnp.ones(3)
  assert _jvp_jaxpr(lax.cos, x) == (
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = cos a\n    c:f32[3] = sin a\n"
      "    d:f32[3] = mul a c\n    e:f32[3] = neg d\n  in (b, e) }")
  assert _jvp_jaxpr(lax.abs, x) == (
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = abs a\n    c:bool[3] = ge a 0.0:f32[]\n"
      "    d:f32[3] = neg a\n    e:f32[3] = select_n c d a\n  in (b, e) }")
  assert _jvp_jaxpr(lambda a: lax.integer_pow(a, 3), x) == (
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=3] a\n"
      "    c:f32[3] = integer_pow[y=2] a\n    d:f32[3] = mul 3.0:f32[] c\n"
      "    e:f32[3] = mul a d\n  in (b, e) }")
  assert _jvp_jaxpr(lax.div, x, jnp.float32(2)) == (
      "{ lambda ; a:f32[3] b:f32[]. let\n    c:f32[3] = div a b\n    d:f32[3] = div a b\n"
      "    e:f32[] = neg b\n    f:f32[3] = mul e a\n    g:f32[] = integer_pow[y=-2] b\n"
      "    h:f32[3] = mul f g\n    i:f32[3] = add_any d h\n  in (c, i) }")
  assert _jvp_jaxpr(lambda a: lax.pow(a, 2), 0.7) == (
      "{ lambda ; a:f32[]. let\n    b:f32[] = pow a 2:i32[]\n"
      "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
      "    d:bool[] = eq 2.0:f32[] 0.0:f32[]\n    e:bool[] = eq 2.0:f32[] 0.0:f32[]\n"
      "    f:f32[] = select_n e 2.0:f32[] 1.0:f32[]\n    g:f32[] = sub 2.0:f32[] 1.0:f32[]\n"
      "    h:f32[] = pow c g\n    i:f32[] = mul f h\n    j:f32[] = select_n d i 0.0:f32[]\n"
      "    k:f32[] = mul a j\n  in (b, k) }")
  assert _jvp_jaxpr(lax.add, x, jnp.float32(2)) == (
      "{ lambda ; a:f32[3] b:f32[]. let\n    c:f32[3] = add a b\n    d:f32[3] = add a b\n"
      "  in (c, d) }")


def test_bessel_ie_one_element_arrays_match_scipy():
  """Regression: the series must not overflow when XLA simplifies tiny (1-element) programs."""
  import scipy.special as sp
  for x in [0.0, 0.1, 3.0, 10.0, 19.9, 20.0, 25.0, -7.0]:
    np.testing.assert_allclose(float(ember.lax.bessel_i0e(jnp.array([x]))[0]), sp.i0e(x),
                               rtol=1e-6)
    np.testing.assert_allclose(float(ember.lax.bessel_i1e(jnp.array([x]))[0]), sp.i1e(x),
                               rtol=1e-6, atol=1e-30)
