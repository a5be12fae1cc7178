"""The incomplete gamma primitives (lax.igamma, igammac, igamma_grad_a, random_gamma_grad) and
the implicit reparameterisation gradient of gamma and the samplers built on it.

Values are checked against scipy.special (float32 and float64), derivatives against central
finite differences of scipy in float64, and the samplers' gradients against JAX 0.10.2's values
for the same keys (hard-coded below).
"""
import numpy as np
import pytest
import scipy.special as sp

import ember
import ember.numpy as jnp
from ember import lax, random
from batch_checks import check_batch

_RNG = np.random.default_rng(0)
# Shapes a in [0.01, 200] (log-uniform), x around a (and a few in [0, 3]).
_A = np.exp(_RNG.uniform(np.log(0.01), np.log(200), 300))
_X = _A * np.exp(_RNG.normal(0, 0.7, 300))
_X[:30] = _RNG.uniform(0, 3, 30)


def _rel_err(got, want):
  got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
  return np.abs(got - want) / np.maximum(np.abs(want), 1e-300)


def _both(a, x):
  return lax.igamma(a, x), lax.igammac(a, x)


def test_values_match_scipy(x64):
  fn = ember.jit(_both)
  for got, ref in zip(fn(jnp.asarray(_A), jnp.asarray(_X)), (sp.gammainc, sp.gammaincc)):
    want = ref(_A, _X)
    assert got.dtype == jnp.float64
    assert _rel_err(got, want)[want > 1e-250].max() < 1e-11
  a32, x32 = _A.astype(np.float32), _X.astype(np.float32)
  for got, ref in zip(fn(jnp.asarray(a32), jnp.asarray(x32)), (sp.gammainc, sp.gammaincc)):
    want = ref(a32.astype(np.float64), x32.astype(np.float64))
    assert got.dtype == jnp.float32
    assert np.median(_rel_err(got, want)) < 1e-6
    # float32 keeps its relative accuracy away from the far tails.
    assert _rel_err(got, want)[want > 1e-12].max() < 2e-4


def test_derivatives_in_a_match_finite_differences(x64):
  h = 1e-6 * _A
  dp_da = (sp.gammainc(_A + h, _X) - sp.gammainc(_A - h, _X)) / (2 * h)
  density = np.exp((_A - 1) * np.log(_X) - _X - sp.gammaln(_A))
  ok = np.abs(dp_da) > 1e-6  # where the finite difference itself is accurate
  grad_a, sample_grad = ember.jit(lambda a, x: (lax.igamma_grad_a(a, x),
                                                lax.random_gamma_grad(a, x)))(_A, _X)
  np.testing.assert_allclose(np.asarray(grad_a)[ok], dp_da[ok], rtol=1e-4)
  np.testing.assert_allclose(np.asarray(sample_grad)[ok], -dp_da[ok] / density[ok], rtol=1e-4)


def test_special_values_match_jax():
  # JAX 0.10.2, float32: a = (0, -1, 1, 1, 1, nan, 1, 2, 3), x = (1, 1, 0, -1, inf, 1, nan, 0, 3).
  a = jnp.array([0., -1., 1., 1., 1., np.nan, 1., 2., 3.])
  x = jnp.array([1., 1., 0., -1., np.inf, 1., np.nan, 0., 3.])
  nan = np.nan
  p, q, grad_a, sample_grad = ember.jit(lambda a, x: (
      *_both(a, x), lax.igamma_grad_a(a, x), lax.random_gamma_grad(a, x)))(a, x)
  np.testing.assert_array_equal(p[:8], [1, nan, 0, nan, 1, nan, nan, 0])
  np.testing.assert_array_equal(q[:8], [0, nan, 1, nan, 0, nan, nan, 1])
  np.testing.assert_array_equal(grad_a[:8], [nan, nan, 0, nan, nan, nan, nan, 0])
  np.testing.assert_array_equal(sample_grad[:8], [nan, nan, 0, nan, nan, nan, nan, 0])
  np.testing.assert_allclose(p[8], 0.5768098, rtol=1e-6)
  np.testing.assert_allclose(sample_grad[8], 1.0570275, rtol=1e-6)


def test_dtypes_broadcasting_and_weak_types():
  assert lax.igamma(0.5, 2.0).weak_type
  half = lax.igamma(jnp.float16(3), jnp.float16(2))  # computed in float32
  assert half.dtype == jnp.float16 and abs(float(half) - 0.3233) < 1e-3
  out = lax.igammac(jnp.ones((2, 1)), jnp.full((1, 3), 2.0))
  np.testing.assert_allclose(out, np.full((2, 3), np.exp(-2.0)), rtol=1e-6)


@pytest.mark.parametrize("fn, exc, match", [
    (lambda: lax.igamma(1, 2.0), TypeError,
     ("igamma does not accept dtype int32 at position 0. Accepted dtypes at position 0 are "
      "subtypes of floating.")),
    (lambda: lax.igammac(jnp.float32(1), jnp.float16(2)), TypeError,
     "lax.igammac requires arguments to have the same dtypes, got float32, float16."),
    (lambda: ember.grad(lax.igamma_grad_a)(1.0, 2.0), NotImplementedError, "igamma_grad_a"),
    (lambda: ember.grad(lax.random_gamma_grad)(1.0, 2.0), NotImplementedError,
     "random_gamma_grad"),
])
def test_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


def test_jvp_matches_finite_differences(x64):
  a, x = np.array([0.3, 2.0, 7.5]), np.array([0.2, 3.0, 6.0])
  t_a, t_x = np.array([1.0, -0.5, 0.25]), np.array([0.5, 1.0, -2.0])
  _, tangents = ember.jit(lambda p, t: ember.jvp(_both, p, t))((a, x), (t_a, t_x))
  eps = 1e-6
  for tangent, ref in zip(tangents, (sp.gammainc, sp.gammaincc)):
    fd = (ref(a + eps * t_a, x + eps * t_x) - ref(a - eps * t_a, x - eps * t_x)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6)


def test_grad_jaxpr_prints_as_jax():
  text = str(ember.make_jaxpr(ember.grad(lambda a, x: lax.igammac(a, x), argnums=(0, 1)))(
      1.0, 2.0))
  assert text.splitlines()[:3] == ["{ lambda ; a:f32[] b:f32[]. let",
                                   "    _:f32[] = igammac a b",
                                   "    c:f32[] = igamma_grad_a a b"]
  assert str(ember.make_jaxpr(lax.random_gamma_grad)(1.0, 2.0)) == \
      "{ lambda ; a:f32[] b:f32[]. let c:f32[] = random_gamma_grad a b in (c,) }"


def test_vmap_is_elementwise():
  a, x = np.float32(_A[:6].reshape(2, 3)), np.float32(_X[:3])
  check_batch(_both, (a, x), in_axes=(0, None))


# --- the samplers' gradients --------------------------------------------------------------------

KEY = random.PRNGKey(7)
SHAPES = np.array([0.05, 0.4, 1.0, 2.5, 9.0, 60.0])

# jax.grad(f)(SHAPES) with JAX 0.10.2 (float32, x64 off), f as in _SAMPLERS.
_JAX_GRADS = {
    "gamma": [0.0, 1.0374524593353271, 0.5355213284492493, 1.3879414796829224,
              0.8513265252113342, 0.9668382406234741],
    "loggamma": [1736.77392578125, 4.49326229095459, 2.1185450553894043, 0.3210802674293518,
                 0.134051114320755, 0.017326785251498222],
    "beta": [2.3677764189968843e-14, 0.5075807571411133, 0.22980785369873047,
             0.1449725329875946, 0.011316811665892601, 0.0007055424503050745],
    "dirichlet": [-0.0, -0.058117516338825226, -0.022001665085554123, -0.03629423677921295,
                  -0.009547468274831772, 0.0035967007279396057],
    "chisquare": [0.0, 1.0191051959991455, 0.03555687144398689, 1.5824975967407227,
                  0.783747136592865, 0.9529090523719788],
    "t": [-0.4069288671016693, -0.27823445200920105, 0.019755631685256958, 0.07752220332622528,
          -0.009687167592346668, -0.0004387756926007569],
    "f": [1.1273424625396729, 0.22233158349990845, 0.14870256185531616, 0.23016610741615295,
          0.0048195719718933105, -0.0009229974821209908],
    "generalized_normal": [2.393752098083496, 0.8753507137298584, -0.005866116378456354,
                           0.001012840075418353, 0.000607818306889385, -0.00012479792349040508],
}
_SAMPLERS = {
    "gamma": lambda a: random.gamma(KEY, a).sum(),
    "loggamma": lambda a: random.loggamma(KEY, a).sum(),
    "beta": lambda a: random.beta(KEY, a, 2.0).sum(),
    "dirichlet": lambda a: (random.dirichlet(KEY, a) * jnp.arange(6.0)).sum(),
    "chisquare": lambda a: random.chisquare(KEY, a).sum(),
    "t": lambda a: random.t(KEY, a + 1.0, shape=(6,)).sum(),
    "f": lambda a: random.f(KEY, a + 1.0, 3.0, shape=(6,)).sum(),
    "generalized_normal": lambda a: random.generalized_normal(KEY, a + 0.5, shape=(6,)).sum(),
}


def test_sampler_gradients_match_jax():
  grads = ember.jit(lambda a: {name: ember.grad(f)(a) for name, f in _SAMPLERS.items()})(
      jnp.asarray(SHAPES, jnp.float32))
  for name, want in _JAX_GRADS.items():
    np.testing.assert_allclose(grads[name], want, rtol=2e-5, atol=1e-7, err_msg=name)


def test_gradients_match_jax_in_float64(x64):
  # jax.grad of gamma(KEY, a).sum() and loggamma(KEY, a).sum() with JAX 0.10.2, x64 on.
  gamma_grad, loggamma_grad = ember.jit(lambda a: (
      ember.grad(lambda a: random.gamma(KEY, a).sum())(a),
      ember.grad(lambda a: random.loggamma(KEY, a).sum())(a)))(SHAPES)
  np.testing.assert_allclose(gamma_grad, [
      5.686026807449361e-34, 0.11223728563411972, 0.5273182329971831, 0.9781997792317426,
      1.0598280545894991, 1.0424623955980947], rtol=1e-10)
  np.testing.assert_allclose(loggamma_grad, [
      1669.445667142074, 11.516120061639342, 2.1378025703366914, 0.46554048029019407,
      0.10874218225045135, 0.016068691652021242], rtol=1e-10)


def test_gradient_vmapped_over_keys_and_its_mean():
  keys = random.split(KEY, 3)
  grad = ember.jit(ember.grad(lambda a, k: random.gamma(k, a, (2000,)).mean()))
  got = ember.jit(ember.vmap(grad, in_axes=(None, 0)))(0.3, keys)
  np.testing.assert_allclose(got, [grad(0.3, k) for k in keys], rtol=1e-6)
  # E[x] = a for x ~ Gamma(a): the reparameterisation gradients average to d E[x] / da = 1.
  np.testing.assert_allclose(got, 1, atol=0.06)
  assert abs(float(grad(4.0, KEY)) - 1) < 0.05
