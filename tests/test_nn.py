"""ember.nn against NumPy formulas (and values printed by the reference JAX), derivatives at the
kinks, vmap, and the initializers' bit-exactness with JAX for a fixed key."""
import numpy as np
import pytest
import scipy.special as sc
from ad_checks import check_jvp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import nn
from ember.nn import initializers as init

X = np.array([-3., -1., -0.5, 0., 0.5, 1., 2., 7.], np.float32)
sigmoid = sc.expit
softplus = lambda x: np.logaddexp(x, 0)
REFERENCE = {  # name -> NumPy formula
    "relu": lambda x: np.maximum(x, 0), "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": sigmoid, "silu": lambda x: x * sigmoid(x), "swish": lambda x: x * sigmoid(x),
    "log_sigmoid": lambda x: -softplus(-x), "softplus": softplus,
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x), "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6, "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "soft_sign": lambda x: x / (np.abs(x) + 1), "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "mish": lambda x: x * np.tanh(softplus(x)),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip(x + 1, 0, 2) / 2,
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "tanh": np.tanh, "identity": lambda x: x,
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_activation_values(name):
  f = getattr(nn, name)
  expected = REFERENCE[name](X.astype(np.float64))
  for out in (f(X), ember.jit(f)(X)):
    assert out.dtype == np.float32 and out.shape == X.shape
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=2e-6)


def test_gelu_exact_and_log1mexp():
  np.testing.assert_allclose(nn.gelu(X, approximate=False), X * sc.ndtr(X), rtol=1e-6, atol=1e-7)
  x = np.array([1e-3, 0.5, 3., 10.], np.float32)
  np.testing.assert_allclose(nn.log1mexp(x), np.log(-np.expm1(-x.astype(np.float64))), rtol=1e-6)


def test_kink_derivatives():  # values the reference JAX gives
  assert ember.grad(nn.relu)(0.) == 0. and ember.grad(nn.relu)(2.) == 1.
  assert ember.grad(nn.relu6)(0.) == 0. and ember.grad(nn.relu6)(6.) == 0.
  assert ember.grad(nn.relu6)(3.) == 1.
  assert ember.grad(nn.leaky_relu)(0.) == 1. and ember.grad(nn.hard_tanh)(1.) == 1.
  np.testing.assert_allclose(ember.grad(lambda x: nn.gelu(x, approximate=False))(1.), 1.0833155,
                             rtol=1e-6)


@pytest.mark.parametrize("name", ["silu", "elu", "selu", "celu", "softplus", "log_sigmoid",
                                  "mish", "squareplus", "gelu", "soft_sign"])
def test_activation_gradients(name, x64):
  x = np.array([-2.3, -0.7, 0.4, 1.9])
  check_jvp(getattr(nn, name), (x,), np.random.RandomState(0), rtol=1e-5, atol=1e-8)


def test_softmax_family():
  rng = np.random.default_rng(0)
  x = rng.normal(size=(3, 5)).astype(np.float32)
  np.testing.assert_allclose(nn.softmax(x), sc.softmax(x, axis=-1), rtol=1e-6)
  np.testing.assert_allclose(nn.log_softmax(x, axis=0), sc.log_softmax(x, axis=0), rtol=1e-5)
  np.testing.assert_allclose(nn.logsumexp(x, axis=1), sc.logsumexp(x, axis=1), rtol=1e-6)
  where = np.array([True, False, True])
  v = np.array([1., 2., 3.], np.float32)
  np.testing.assert_allclose(nn.softmax(v, where=where), [0.11920291, 0., 0.880797], rtol=1e-6)
  np.testing.assert_allclose(nn.log_softmax(v, where=where), [-2.126928, -np.inf, -0.12692805],
                             rtol=1e-6)
  np.testing.assert_allclose(nn.logmeanexp(v, where=where), 2.433781, rtol=1e-6)
  g = ember.grad(lambda x: nn.softmax(x)[0])(v)
  np.testing.assert_allclose(g, [0.08192507, -0.02203305, -0.05989202], rtol=1e-5)


def test_softmax_grad_and_vmap(x64):
  x = np.random.default_rng(1).normal(size=(2, 4))
  check_jvp(lambda x: nn.softmax(x, axis=1), (x,), np.random.RandomState(0), rtol=1e-6)
  check_jvp(lambda x: nn.log_softmax(x, axis=0), (x,), np.random.RandomState(1), rtol=1e-6)
  check_batch(nn.softmax, (x,))
  check_batch(nn.relu, (x,))
  check_batch(lambda v: nn.standardize(v), (x,))


def test_one_hot_glu_standardize():
  out = nn.one_hot(np.array([0, 2, 5, -1]), 3)
  np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
  assert out.dtype == np.float32
  out = nn.one_hot(np.array([0, 1]), 3, axis=0, dtype=jnp.int32)
  np.testing.assert_array_equal(out, [[1, 0], [0, 1], [0, 0]])
  assert out.dtype == np.int32
  np.testing.assert_array_equal(nn.one_hot(np.array([0., 1.7]), 3), [[1, 0, 0], [0, 0, 0]])
  x = np.arange(8, dtype=np.float32).reshape(2, 4)
  np.testing.assert_allclose(nn.glu(x), x[:, :2] * sc.expit(x[:, 2:]), rtol=1e-6)
  with pytest.raises(ValueError, match="divisible by 2"):
    nn.glu(np.ones(3))
  y = np.array([1e4 + 1, 1e4 + 2, 1e4 + 3, 1e4 + 4], np.float32)
  np.testing.assert_allclose(nn.standardize(y, algorithm="stable"),
                             [-1.3416355, -0.4472118, 0.4472118, 1.3416355], rtol=1e-6)
  with pytest.raises(ValueError, match="Expected 'fast' or 'stable'"):
    nn.standardize(y, algorithm="foo")


KEY_VALUES = {  # initializer(key(0), (2, 3)) from the reference JAX 0.10.2, as float(v) of each
    "glorot_uniform": [[0.980789303779602, 1.048516035079956, -0.3674309551715851],
                       [-0.0686439648270607, 0.15311850607395172, -0.732846200466156]],
}


def test_initializers_bit_exact():
  key = ember.random.key(0)
  np.testing.assert_array_equal(init.glorot_uniform()(key, (2, 3)),
                                np.float32(KEY_VALUES["glorot_uniform"]))
  # the documented formulas on ember.random's (JAX-exact) streams
  np.testing.assert_array_equal(init.normal(2.)(key, (4,)), ember.random.normal(key, (4,)) * 2)
  variance = 2. / 3.
  np.testing.assert_array_equal(
      init.he_uniform()(key, (3, 5)),
      ember.random.uniform(key, (3, 5), jnp.float32, -1) * jnp.sqrt(3 * jnp.float32(variance)))
  trunc = init.lecun_normal()(key, (3, 5))
  expected = ember.random.truncated_normal(key, -2, 2, (3, 5)) * (
      jnp.sqrt(jnp.float32(1 / 3)) / jnp.float32(.87962566103423978))
  np.testing.assert_array_equal(trunc, expected)


def test_initializer_shapes_and_errors():
  key = ember.random.key(1)
  assert init.zeros(key, (2, 3)).dtype == np.float32
  np.testing.assert_array_equal(init.constant(3, jnp.int32)(key, (2,)), [3, 3])
  w = init.orthogonal()(key, (4, 3))
  np.testing.assert_allclose(w.T @ w, np.eye(3), atol=1e-6)
  w = init.orthogonal(column_axis=0)(key, (3, 2, 2))
  flat = np.moveaxis(np.asarray(w), 0, -1).reshape(4, 3)
  np.testing.assert_allclose(flat.T @ flat, np.eye(3), atol=1e-6)
  d = init.delta_orthogonal()(key, (3, 3, 2, 4))
  assert np.count_nonzero(np.asarray(d)[1, 1]) > 0 and not np.asarray(d)[0].any()
  assert init.variance_scaling(1., "fan_avg", "uniform")(key, (2, 2), jnp.complex64).dtype == \
      np.complex64
  with pytest.raises(ValueError, match="Must be at least 2D"):
    init.glorot_uniform()(key, (3,))
  with pytest.raises(ValueError, match="invalid mode"):
    init.variance_scaling(1., "foo", "normal")(key, (2, 2))
  with pytest.raises(ValueError, match="invalid distribution"):
    init.variance_scaling(1., "fan_in", "foo")(key, (2, 2))
  with pytest.raises(ValueError, match="3D, 4D or 5D"):
    init.delta_orthogonal()(key, (3, 3))
  with pytest.raises(ValueError, match="at least a 2D shape"):
    init.orthogonal()(key, (3,))
