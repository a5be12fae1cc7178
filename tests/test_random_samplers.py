"""Statistical tests of ember.random's samplers, and their dtypes and parameters.

Each sampler draws a few thousand values at a fixed key; continuous ones must pass a
Kolmogorov-Smirnov test against their CDF and discrete ones a chi-square test against their
probabilities, both with generous thresholds (far past the 0.1% level), plus mean/variance checks.
Bit-exactness against JAX is tested in test_random.py.
"""
import math

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import random

N = 4000
KEY = random.PRNGKey(1234)

_erf = np.vectorize(math.erf)


def _phi(x):
  return 0.5 * (1 + _erf(np.asarray(x, np.float64) / math.sqrt(2)))


def ks_statistic(samples, cdf) -> float:
  """The Kolmogorov-Smirnov distance between the samples' empirical CDF and ``cdf``."""
  x = np.sort(np.asarray(samples, np.float64).ravel())
  n = len(x)
  f = cdf(x)
  return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


def assert_ks(samples, cdf):
  d = ks_statistic(samples, cdf)
  assert d < 2.5 / math.sqrt(np.size(samples)), d  # about the 0.002% level


def assert_chi2(counts, probs):
  counts, probs = np.asarray(counts, np.float64), np.asarray(probs, np.float64)
  expected = counts.sum() * probs
  stat = float(np.sum((counts - expected) ** 2 / expected))
  dof = len(counts) - 1
  assert stat < dof + 6 * math.sqrt(2 * dof) + 10, (stat, dof)


def _maxwell_cdf(x):
  x = np.maximum(x, 0)
  return _erf(x / math.sqrt(2)) - math.sqrt(2 / math.pi) * x * np.exp(-x * x / 2)


def _wald_cdf(mu):
  def cdf(x):
    r = np.sqrt(1 / x)
    return _phi(r * (x / mu - 1)) + np.exp(2 / mu) * _phi(-r * (x / mu + 1))
  return cdf


def _triangular_cdf(a, c, b):
  def cdf(x):
    return np.where(x < c, (x - a) ** 2 / ((b - a) * (c - a)),
                    1 - (b - x) ** 2 / ((b - a) * (b - c)))
  return cdf


_CONTINUOUS = {  # name: (draw N samples, CDF)
    "uniform": (lambda k: random.uniform(k, (N,), minval=-2., maxval=3.),
                lambda x: (x + 2) / 5),
    "normal": (lambda k: random.normal(k, (N,)), _phi),
    "normal_f16": (lambda k: random.normal(k, (N,), jnp.float16), _phi),
    "truncated_normal": (lambda k: random.truncated_normal(k, -0.5, 1.5, (N,)),
                         lambda x: (_phi(x) - _phi(-0.5)) / (_phi(1.5) - _phi(-0.5))),
    "exponential": (lambda k: random.exponential(k, (N,)), lambda x: 1 - np.exp(-x)),
    "laplace": (lambda k: random.laplace(k, (N,)),
                lambda x: np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0)),
                                   1 - 0.5 * np.exp(-np.maximum(x, 0)))),
    "logistic": (lambda k: random.logistic(k, (N,)), lambda x: 1 / (1 + np.exp(-x))),
    "gumbel": (lambda k: random.gumbel(k, (N,)), lambda x: np.exp(-np.exp(-x))),
    "gumbel_high": (lambda k: random.gumbel(k, (N,), mode="high"), lambda x: np.exp(-np.exp(-x))),
    "cauchy": (lambda k: random.cauchy(k, (N,)), lambda x: 0.5 + np.arctan(x) / np.pi),
    "lognormal": (lambda k: random.lognormal(k, 0.5, (N,)), lambda x: _phi(np.log(x) / 0.5)),
    "pareto": (lambda k: random.pareto(k, 3., (N,)), lambda x: 1 - x ** -3.),
    "weibull_min": (lambda k: random.weibull_min(k, 2., 1.5, (N,)),
                    lambda x: 1 - np.exp(-(x / 2.) ** 1.5)),
    "maxwell": (lambda k: random.maxwell(k, (N,)), _maxwell_cdf),
    "double_sided_maxwell": (
        lambda k: random.double_sided_maxwell(k, 1., 2., (N,)),
        lambda x: 0.5 + np.sign(x - 1) * 0.5 * _maxwell_cdf(np.abs(x - 1) / 2)),
    "rayleigh": (lambda k: random.rayleigh(k, 2., (N,)), lambda x: 1 - np.exp(-x * x / 8)),
    "wald": (lambda k: random.wald(k, 1.5, (N,)), _wald_cdf(1.5)),
    "triangular": (lambda k: random.triangular(k, -1., 0.5, 2., (N,)),
                   _triangular_cdf(-1., 0.5, 2.)),
    "normal_complex_re": (lambda k: jnp.real(random.normal(k, (N,), jnp.complex64)) * np.sqrt(2),
                          _phi),
    "normal_complex_im": (lambda k: jnp.imag(random.normal(k, (N,), jnp.complex64)) * np.sqrt(2),
                          _phi),
}


@pytest.mark.parametrize("name", list(_CONTINUOUS))
def test_continuous_distribution(name):
  draw, cdf = _CONTINUOUS[name]
  x = np.asarray(draw(KEY), np.float64)
  assert x.shape == (N,) and np.all(np.isfinite(x))
  assert_ks(x, cdf)


def test_normal_moments_and_independence_of_complex_parts():
  z = np.asarray(random.normal(KEY, (N,), jnp.complex64))
  assert z.dtype == np.complex64
  assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.1  # unit variance overall
  assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 4 / math.sqrt(N)


def test_truncated_normal_stays_inside_its_bounds():
  x = np.asarray(random.truncated_normal(KEY, 2., 2.5, (N,)))
  assert x.min() > 2 and x.max() < 2.5


def test_randint_is_uniform_over_its_range():
  x = np.asarray(random.randint(KEY, (N,), -3, 7))
  assert x.dtype == np.int32 and x.min() == -3 and x.max() == 6
  assert_chi2(np.bincount(x + 3, minlength=10), np.full(10, 0.1))


def test_randint_edges():
  x = random.randint(KEY, (50,), 5, 5)  # an empty range gives minval
  np.testing.assert_array_equal(x, 5)
  x = np.asarray(random.randint(KEY, (N,), 0, 300, jnp.uint8))  # maxval clipped to 256
  assert x.dtype == np.uint8 and x.max() == 255 and x.min() == 0
  big = np.asarray(random.randint(KEY, (N,), -2 ** 31, 2 ** 31 - 1))
  assert abs(big.astype(np.float64).mean()) < 0.1 * 2 ** 31


@pytest.mark.parametrize("mode", ["low", "high"])
def test_bernoulli(mode):
  p = jnp.array([0.1, 0.5, 0.8])
  x = np.asarray(random.bernoulli(KEY, p, (N // 2, 3), mode=mode))
  assert x.dtype == np.bool_
  np.testing.assert_allclose(x.mean(0), p, atol=4 * 0.5 / math.sqrt(N // 2))


def test_rademacher():
  x = np.asarray(random.rademacher(KEY, (N,)))
  assert x.dtype == np.int32 and set(np.unique(x)) == {-1, 1}
  assert abs(x.mean()) < 4 / math.sqrt(N)


def test_geometric():
  p = 0.3
  x = np.asarray(random.geometric(KEY, p, (N,)))
  assert x.dtype == np.int32 and x.min() >= 1
  probs = (1 - p) ** np.arange(8) * p  # P(X = 1..8), the rest in one bin
  counts = np.bincount(np.minimum(x, 9) - 1, minlength=9)
  assert_chi2(counts, np.append(probs, 1 - probs.sum()))


def test_categorical_matches_probabilities():
  probs = np.array([0.1, 0.2, 0.3, 0.4])
  x = np.asarray(random.categorical(KEY, jnp.log(jnp.asarray(probs)), shape=(N,)))
  assert_chi2(np.bincount(x, minlength=4), probs)


def test_categorical_batched_and_without_replacement():
  logits = jnp.array([[0., 20., 0.], [20., 0., 0.]])  # one class almost certain per row
  np.testing.assert_array_equal(random.categorical(KEY, logits, shape=(5, 2)), [[1, 0]] * 5)
  draws = np.asarray(random.categorical(KEY, jnp.zeros((4, 6)), axis=1, shape=(6, 4),
                                        replace=False))
  assert all(sorted(draws[:, j]) == list(range(6)) for j in range(4))


def test_choice_with_probabilities():
  p = np.array([0.5, 0.1, 0.4])
  x = np.asarray(random.choice(KEY, 3, (N,), p=jnp.asarray(p)))
  assert_chi2(np.bincount(x, minlength=3), p)
  x = np.asarray(random.choice(KEY, 5, (5,), replace=False, p=jnp.full(5, 0.2)))
  assert sorted(x) == list(range(5))


def test_choice_from_an_array_along_an_axis():
  a = jnp.arange(12).reshape(3, 4)
  x = np.asarray(random.choice(KEY, a, (2, 2), axis=1))
  assert x.shape == (3, 2, 2)
  np.testing.assert_array_equal(x - x[:1], np.array([0, 4, 8])[:, None, None] + 0 * x[:1])
  x = np.asarray(random.choice(KEY, a, (3,), replace=False))
  assert sorted(x[:, 0]) == [0, 4, 8]
  assert random.choice(KEY, 3, (0,)).shape == (0,)


def test_permutations_are_uniform():
  keys = random.split(KEY, N)
  perms = np.asarray(ember.vmap(lambda k: random.permutation(k, 3))(keys))
  assert all(sorted(p) == [0, 1, 2] for p in perms[:50])
  codes = perms[:, 0] * 3 + perms[:, 1]  # which of the 6 permutations
  counts = np.bincount(codes, minlength=9)[[1, 2, 3, 5, 6, 7]]
  assert_chi2(counts, np.full(6, 1 / 6))


def test_permutation_of_arrays():
  x = jnp.arange(12.).reshape(3, 4)
  rows = np.asarray(random.permutation(KEY, x))
  assert sorted(map(tuple, rows)) == sorted(map(tuple, np.asarray(x)))
  cols = np.asarray(random.permutation(KEY, x, axis=1, independent=True))
  assert all(sorted(c) == sorted(r) for c, r in zip(cols, np.asarray(x)))
  big = np.asarray(random.permutation(KEY, 2000))  # two sorting rounds
  assert sorted(big) == list(range(2000))


def test_bits_are_balanced():
  b = np.asarray(random.bits(KEY, (N,), jnp.uint32))
  ones = np.unpackbits(b.view(np.uint8)).reshape(N, 32).mean(0)
  assert np.all(np.abs(ones - 0.5) < 4 * 0.5 / math.sqrt(N))


# --- dtypes and parameters --------------------------------------------------------------------

def test_default_dtypes_follow_x64(x64):
  key = random.PRNGKey(0)
  assert random.uniform(key).dtype == np.float64
  assert random.randint(key, (), 0, 3).dtype == np.int64
  assert random.bits(key).dtype == np.uint64
  assert random.normal(key, (), np.float32).dtype == np.float32


@pytest.mark.parametrize("dtype", [jnp.bfloat16, np.float16])
def test_low_precision_uniform_stays_in_range(dtype):
  x = np.asarray(random.uniform(KEY, (N,), dtype), np.float32)
  assert x.min() >= 0 and x.max() < 1 and abs(x.mean() - 0.5) < 0.03


def test_parameters_broadcast_to_the_shape():
  lo = jnp.array([0., 10., 20.])
  x = random.uniform(KEY, (2, 3), minval=lo, maxval=lo + 1)
  assert np.all((np.asarray(x) >= [0, 10, 20]) & (np.asarray(x) < [1, 11, 21]))
  assert random.pareto(KEY, jnp.array([1., 2., 3.])).shape == (3,)
  assert random.truncated_normal(KEY, jnp.zeros(2), 1.).shape == (2,)
  with pytest.raises(ValueError, match="parameter shapes must be broadcast-compatible"):
    random.bernoulli(KEY, jnp.full((2, 3), 0.5), (3,))
  with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
    random.randint(KEY, (2,), jnp.zeros(3, jnp.int32), 5)


@pytest.mark.parametrize("fn, exc, match", [
    (lambda: random.normal(KEY, dtype=jnp.int32), ValueError,
     "dtype argument to `normal` must be a float or complex dtype, got int32"),
    (lambda: random.exponential(KEY, dtype=jnp.int32), ValueError,
     "dtype argument to `exponential` must be a float dtype"),
    (lambda: random.randint(KEY, (3,), 0, 5, jnp.float32), TypeError,
     "randint only accepts integer dtypes, got float32"),
    (lambda: random.geometric(KEY, 0.5, dtype=jnp.float32), ValueError, "must be an int dtype"),
    (lambda: random.bernoulli(KEY, 1), TypeError,
     "bernoulli probability `p` must have a floating dtype, got int32."),
    (lambda: random.bernoulli(KEY, mode="mid"), ValueError, "expected 'high' or 'low'"),
    (lambda: random.gumbel(KEY, mode="mid"), ValueError, "Must provide valid mode for gumbel"),
    (lambda: random.choice(KEY, 3, (4,), replace=False), ValueError,
     r"Cannot take a larger sample \(size 4\) than population \(size 3\)"),
    (lambda: random.choice(KEY, 3, 4), TypeError, "shape argument of jax.random.choice must be"),
    (lambda: random.choice(KEY, 0, (1,)), ValueError, "a must be greater than 0"),
    (lambda: random.choice(KEY, 3, p=jnp.ones(4)), ValueError, "p must be None or a 1D vector"),
    (lambda: random.permutation(KEY, 2.5), TypeError, "x must be an integer or at least 1-dim"),
    (lambda: random.categorical(KEY, jnp.zeros(3), shape=(4,), replace=False), ValueError,
     r"Number of samples without replacement \(4\) cannot exceed number of categories \(3\)"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), axis=2), IndexError, "out of bounds"),
])
def test_sampler_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


# --- samplers built on loops and linear algebra (gamma family, poisson, multivariate_normal,
# orthogonal, ball) ----------------------------------------------------------------------------


GKEY = random.PRNGKey(0)

# JAX 0.10.2's samples (float32, as float.hex), for the samplers the golden file lacks.
_JAX_VALUES = [
    ("loggamma(KEY3, 0.5, (3,))", ['-0x1.00a3bc0000000p+1', '-0x1.6f87320000000p+0', '-0x1.1cb42a0000000p+0']),
    ("dirichlet(KEY3, jnp.array([0.5, 2.0]), (2,))", ['0x1.2472ba0000000p-3', '0x1.b6e3520000000p-1', '0x1.4409e20000000p-2', '0x1.5dfb0e0000000p-1']),
    ("chisquare(KEY3, 4.0, (3,))", ['0x1.4468e80000000p+0', '0x1.9de1940000000p+0', '0x1.764db00000000p+3']),
    ("t(KEY3, 5.0, (3,))", ['-0x1.3400080000000p+1', '-0x1.adbabc0000000p+0', '-0x1.11538a0000000p-1']),
    ("f(KEY3, 3.0, 7.0, (3,))", ['0x1.33f0320000000p+1', '0x1.b980fc0000000p-1', '0x1.aadcaa0000000p-1']),
    ("generalized_normal(KEY3, 1.5, (3,))", ['0x1.5368320000000p-4', '-0x1.fae15e0000000p-1', '0x1.81f0900000000p-1']),
    ("ball(KEY3, 2, 1.5, (2,))", ['0x1.5b6b3a0000000p-1', '0x1.20ff5e0000000p-1', '0x1.79a3f40000000p-2', '0x1.9ed2d40000000p-2']),
    ("orthogonal(KEY3, 2)", ['-0x1.eefb0c0000000p-1', '0x1.05d33c0000000p-2', '0x1.05d33c0000000p-2', '0x1.eefb100000000p-1']),
]


@pytest.mark.parametrize("expr, want", _JAX_VALUES)
def test_bits_match_jax(expr, want):
  got = eval(expr, dict(vars(random), KEY3=random.PRNGKey(3), jnp=jnp))
  np.testing.assert_array_equal(np.ravel(got), np.array([float.fromhex(v) for v in want],
                                                        np.float32))


@pytest.mark.parametrize("name, sample, mean, var", [
    ("gamma", lambda: random.gamma(GKEY, 2.5, (N,)), 2.5, 2.5),
    ("beta", lambda: random.beta(GKEY, 2.0, 3.0, (N,)), 0.4, 0.04),
    ("poisson_knuth", lambda: random.poisson(GKEY, 3.0, (N,)), 3.0, 3.0),
    ("poisson_rejection", lambda: random.poisson(GKEY, 40.0, (N,)), 40.0, 40.0),
])
def test_gamma_family_moments(name, sample, mean, var):
  x = np.asarray(sample(), np.float64)
  assert x.shape == (N,)
  sd = np.sqrt(var)
  assert abs(x.mean() - mean) < 5 * sd / np.sqrt(N)
  assert abs(x.var() / var - 1) < 0.15


def test_loggamma_is_finite_for_tiny_a():
  logs = random.loggamma(GKEY, 1e-3, (3,))  # gamma's samples underflow to 0 here
  assert np.all(np.isfinite(logs)) and np.all(logs < 0)


def test_gamma_broadcasts_a_and_stays_positive():
  a = jnp.array([0.1, 1.0, 10.0])
  x = random.gamma(GKEY, a, (500, 3))
  assert x.shape == (500, 3) and bool(jnp.all(x > 0))
  np.testing.assert_allclose(np.asarray(x).mean(0), a, rtol=0.2)


def test_dirichlet_sums_to_one_with_mean_alpha_over_total():
  alpha = jnp.array([1.0, 2.0, 3.0])
  x = random.dirichlet(GKEY, alpha, (N,))
  assert x.shape == (N, 3)
  np.testing.assert_allclose(np.asarray(x).sum(-1), 1, rtol=1e-5)
  np.testing.assert_allclose(np.asarray(x).mean(0), alpha / 6, atol=0.02)


def test_poisson_zero_rate_and_dtype():
  x = random.poisson(GKEY, jnp.array([0.0, 2.0, 100.0]), (3,), dtype=jnp.int16)
  assert x.dtype == jnp.int16 and int(x[0]) == 0


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_covariance(method):
  mean, cov = jnp.array([1.0, -2.0]), jnp.array([[2.0, 0.5], [0.5, 1.0]])
  x = np.asarray(random.multivariate_normal(GKEY, mean, cov, (N,), method=method), np.float64)
  np.testing.assert_allclose(x.mean(0), mean, atol=0.1)
  np.testing.assert_allclose(np.cov(x.T), cov, atol=0.15)


def test_orthogonal_and_ball():
  q = np.asarray(random.orthogonal(GKEY, 4, (3,)), np.float64)
  np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape),
                             atol=1e-5)
  wide = np.asarray(random.orthogonal(GKEY, 2, m=3), np.float64)
  np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)
  b = np.asarray(random.ball(GKEY, 3, 2, (N,)), np.float64)
  r = np.linalg.norm(b, axis=-1)
  assert b.shape == (N, 3) and r.max() <= 1
  assert abs(np.mean(r ** 3) - 0.5) < 0.03  # uniform in the ball: r**3 is uniform on [0, 1]


def test_jit_and_vmap_over_keys_match_eager():
  keys = random.split(GKEY, 3)
  want = np.stack([random.gamma(k, 1.5, (2,)) for k in keys])
  np.testing.assert_array_equal(ember.vmap(lambda k: random.gamma(k, 1.5, (2,)))(keys), want)
  # Under an outer jit XLA may fuse the final division differently: equal up to rounding.
  np.testing.assert_allclose(ember.jit(lambda k: random.beta(k, 2.0, 3.0, (2,)))(GKEY),
                             random.beta(GKEY, 2.0, 3.0, (2,)), rtol=1e-6)


@pytest.mark.parametrize("fn, exc", [
    (lambda: random.dirichlet(GKEY, 1.0), ValueError),
    (lambda: random.multivariate_normal(GKEY, jnp.zeros(2), jnp.eye(3)), ValueError),
    (lambda: random.multivariate_normal(GKEY, jnp.zeros(2), jnp.eye(2), method="lu"), ValueError),
    (lambda: random.gamma(GKEY, jnp.ones(3), (2,)), ValueError),
    (lambda: random.gamma(GKEY, 1.0, dtype=jnp.int32), ValueError),
])
def test_gamma_family_errors(fn, exc):
  with pytest.raises(exc):
    fn()


# --- binomial ----------------------------------------------------------------------------------

_BIN_N = jnp.array([3., 12., 40., 200., 1000., 25.])
_BIN_P = jnp.array([0.2, 0.5, 0.35, 0.9, 0.02, 0.75])


def test_binomial_bits_match_jax():
  # random.binomial(PRNGKey(k), n, p) with JAX 0.10.2, x64 off: the first two elements use
  # inversion, the others BTRS rejection (on 1 - p for p >= 0.5).
  np.testing.assert_array_equal(random.binomial(random.PRNGKey(0), _BIN_N, _BIN_P),
                                [1, 7, 10, 176, 16, 17])
  np.testing.assert_array_equal(random.binomial(random.PRNGKey(11), _BIN_N, _BIN_P),
                                [0, 5, 14, 179, 15, 17])
  np.testing.assert_array_equal(random.binomial(GKEY, 10, 0.3, (8,), dtype=jnp.float16),
                                [2, 2, 1, 2, 1, 4, 6, 3])


def test_binomial_bits_match_jax_in_float64(x64):
  got = random.binomial(random.PRNGKey(0), np.asarray(_BIN_N, np.float64),
                        np.asarray(_BIN_P, np.float64))
  assert got.dtype == jnp.float64
  np.testing.assert_array_equal(got, [1, 9, 16, 179, 21, 21])


def test_binomial_distribution():
  n, p = np.array([20., 200., 100.]), np.array([0.25, 0.3, 0.8])  # inversion, BTRS, flipped
  x = np.asarray(random.binomial(GKEY, n, p, (N, 3)), np.int64)
  for j in range(3):
    mean, var = n[j] * p[j], n[j] * p[j] * (1 - p[j])
    assert abs(x[:, j].mean() - mean) < 5 * math.sqrt(var / N)
    assert abs(x[:, j].var() / var - 1) < 0.15
    k = np.arange(n[j] + 1)
    pmf = np.exp([math.lgamma(n[j] + 1) - math.lgamma(i + 1) - math.lgamma(n[j] - i + 1)
                  for i in k] + k * math.log(p[j]) + (n[j] - k) * math.log1p(-p[j]))
    counts = np.bincount(x[:, j], minlength=len(k))
    # Bins with at least 5 expected samples; the tails lumped into one bin.
    big = pmf * N >= 5
    assert_chi2(np.append(counts[big], counts[~big].sum()), np.append(pmf[big], pmf[~big].sum()))


def test_binomial_special_values_jit_and_vmap():
  # JAX 0.10.2: nan for n < 0, n = nan or p outside [0, 1]; inf for n = inf.
  n = jnp.array([-1., np.inf, np.nan, 3.5, 5., 5.])
  p = jnp.array([0.3, 0.3, 0.3, 0.6, 1.1, 1.0])
  np.testing.assert_array_equal(random.binomial(GKEY, n, p), [np.nan, np.inf, np.nan, 3, np.nan, 5])
  np.testing.assert_array_equal(ember.jit(random.binomial)(GKEY, _BIN_N, _BIN_P),
                                random.binomial(GKEY, _BIN_N, _BIN_P))
  keys = random.split(GKEY, 3)
  want = np.stack([random.binomial(k, _BIN_N, _BIN_P) for k in keys])
  np.testing.assert_array_equal(ember.vmap(lambda k: random.binomial(k, _BIN_N, _BIN_P))(keys),
                                want)


@pytest.mark.parametrize("fn, exc, match", [
    (lambda: random.binomial(GKEY, 5, 0.5, dtype=jnp.int32), ValueError,
     "dtype argument to `binomial` must be a float dtype, got int32"),
    (lambda: random.binomial(GKEY, jnp.ones(2), 0.5, shape=(3,)), ValueError,
     "Incompatible shapes for broadcasting"),
    (lambda: random.binomial(GKEY, [5, 3], 0.5), TypeError,
     "binomial requires ndarray or scalar arguments"),
])
def test_binomial_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()
