"""ember.example_libraries.stax: initial parameters bit-identical to the reference JAX's for the
same key, layer values against NumPy, combinators, Dropout, and training through a stax model."""
import hashlib

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import random

pytest.importorskip("ember.nn")
from ember.example_libraries import optimizers, stax


def digest(tree):
  return [hashlib.sha256(np.asarray(x).tobytes()).hexdigest()[:12] for x in ember.tree.leaves(tree)]


def conv_net():
  return stax.serial(
      stax.Conv(4, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
      stax.MaxPool((2, 2), strides=(2, 2)), stax.ConvTranspose(2, (2, 2), strides=(2, 2)),
      stax.Conv(3, (3, 3), strides=(2, 2)), stax.AvgPool((2, 2), padding="SAME"), stax.Flatten,
      stax.Dense(5), stax.Gelu, stax.Dense(3), stax.LogSoftmax)


def residual_net():
  return stax.serial(
      stax.Dense(6), stax.FanOut(2),
      stax.parallel(stax.serial(stax.Dense(6), stax.Elu), stax.Identity), stax.FanInSum,
      stax.Identity, stax.Dense(4), stax.Softplus, stax.Dense(2), stax.Softmax)


# Parameters drawn with key(42) (sha256 prefixes of each leaf's bytes) and the jitted outputs on
# random.normal(key(7), input_shape), from jax.example_libraries.stax 0.10.2.
JAX_GOLDEN = {
    "conv": (conv_net, (2, 8, 8, 3), (2, 3),
             ["713702740c55", "4c1e11c280c0", "374708fff771", "f6bb1294da2f", "d88f315aac29",
              "b7180743e653", "005bb8ddbe2b", "9cb24eb110bb", "ced3d0afa1f7", "e8d6b65471a0",
              "ed642eadeb0a", "5979905f1777"],
             [[-0.906013, -1.433905, -1.028643], [-0.877951, -1.47235, -1.035692]]),
    "residual": (residual_net, (3, 5), (3, 2),
                 ["8076f7d201d0", "1465d7a31f69", "4ef2f885b282", "bfcd8bb7f298", "e6b1cc1a6926",
                  "65e9c9cbe3e6", "d37d1e7a7ba9", "aa1c1e9e856e"],
                 [[0.975238, 0.024762], [0.649975, 0.350025], [0.988807, 0.011193]]),
}


@pytest.mark.parametrize("name", sorted(JAX_GOLDEN))
def test_init_bits_and_outputs_match_reference_jax(name):
  make, in_shape, out_shape, digests, outputs = JAX_GOLDEN[name]
  init_fun, apply_fun = make()
  shape, params = init_fun(random.key(42), in_shape)
  assert tuple(shape) == out_shape
  assert digest(params) == digests
  y = ember.jit(apply_fun)(params, random.normal(random.key(7), in_shape))
  np.testing.assert_allclose(np.asarray(y), outputs, atol=2e-6)


def test_dense_and_conv_values_against_numpy():
  rng = np.random.RandomState(0)
  x = rng.randn(2, 5, 6, 3).astype(np.float32)
  _, (W, b) = stax.Dense(4)[0](random.key(0), (2, 3))
  np.testing.assert_allclose(np.asarray(stax.Dense(4)[1]((W, b), x[:, 0, 0])),
                             x[:, 0, 0] @ np.asarray(W) + np.asarray(b), rtol=1e-5)
  init_fun, apply_fun = stax.Conv(4, (2, 3), strides=(1, 2))
  shape, (W, b) = init_fun(random.key(1), x.shape)
  W, b = np.asarray(W), np.asarray(b)
  assert shape == (2, 4, 2, 4) and W.shape == (2, 3, 3, 4) and b.shape == (1, 1, 1, 4)
  want = np.zeros(shape, np.float32)
  for i in range(4):
    for j in range(2):
      patch = x[:, i:i + 2, 2 * j:2 * j + 3, :]
      want[:, i, j] = np.einsum("nhwc,hwco->no", patch, W)
  np.testing.assert_allclose(np.asarray(apply_fun((W, b), x)), want + b, rtol=1e-5, atol=1e-5)
  # the same layer in NCHW/OIHW layout gives the transposed result
  nchw = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (2, 3), strides=(1, 2))[1]
  out = nchw((W.transpose(3, 2, 0, 1), b.reshape(1, 4, 1, 1)), x.transpose(0, 3, 1, 2))
  np.testing.assert_allclose(np.asarray(out), (want + b).transpose(0, 3, 1, 2), rtol=1e-5,
                             atol=1e-5)


def test_conv_transpose_shapes_and_inverse_of_stride():
  init_fun, apply_fun = stax.Conv1DTranspose(3, (2,), strides=(2,))
  shape, (W, b) = init_fun(random.key(0), (2, 5, 4))
  assert shape == (2, 10, 3) and W.shape == (2, 4, 3) and b.shape == (1, 1, 3)
  x = np.random.RandomState(1).randn(2, 5, 4).astype(np.float32)
  y = np.asarray(apply_fun((W, b), x))
  # stride 2 with a width-2 kernel: each input position writes its own two outputs (the kernel
  # is applied flipped, as lax.conv_transpose does without transpose_kernel)
  want = np.einsum("nwc,kco->nwko", x, np.asarray(W)[::-1]).reshape(2, 10, 3) + np.asarray(b)
  np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_pooling_against_numpy():
  x = np.random.RandomState(2).randn(2, 4, 5, 3).astype(np.float32)
  windows = np.stack([x[:, i:i + 2, j:j + 2] for i in range(3) for j in range(4)], 1)
  windows = windows.reshape(2, 3, 4, 4, 3)
  for layer, reduce in ((stax.MaxPool, np.max), (stax.SumPool, np.sum), (stax.AvgPool, np.mean)):
    init_fun, apply_fun = layer((2, 2))
    assert init_fun(None, x.shape)[0] == (2, 3, 4, 3)
    want = reduce(windows.reshape(2, 3, 4, 2, 2, 3), axis=(3, 4))
    np.testing.assert_allclose(np.asarray(apply_fun((), x)), want, rtol=1e-5, atol=1e-6)
  # NCHW spec, SAME padding: border windows average only what they cover
  out = stax.AvgPool((1, 2), padding="SAME", spec="NCHW")[1]((), x.transpose(0, 3, 1, 2))
  padded = np.concatenate([x, x[:, :, -1:] * 0], 2)
  counts = np.array([2, 2, 2, 2, 1], np.float32)
  want = (padded[:, :, :-1] + padded[:, :, 1:]) / counts[:, None]
  np.testing.assert_allclose(np.asarray(out), want.transpose(0, 3, 1, 2), rtol=1e-5)


def test_batchnorm_options():
  x = np.random.RandomState(3).randn(6, 2, 3).astype(np.float32)
  z = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
  init_fun, apply_fun = stax.BatchNorm(axis=0)
  shape, (beta, gamma) = init_fun(random.key(0), x.shape)
  assert shape == x.shape and beta.shape == gamma.shape == (2, 3)
  params = (jnp.full((2, 3), 0.5), jnp.full((2, 3), 2.0))
  np.testing.assert_allclose(np.asarray(apply_fun(params, x)), 2 * z + 0.5, rtol=1e-4, atol=1e-5)
  init_fun, apply_fun = stax.BatchNorm(axis=(0, 1), center=False)
  _, (beta, gamma) = init_fun(random.key(0), x.shape)
  assert beta == () and gamma.shape == (3,)
  z01 = (x - x.mean((0, 1))) / np.sqrt(x.var((0, 1)) + 1e-5)
  np.testing.assert_allclose(np.asarray(apply_fun(((), gamma * 3), x)), 3 * z01, rtol=1e-4,
                             atol=1e-5)


def test_elementwise_layers_against_numpy():
  x = np.linspace(-3, 3, 13, dtype=np.float32).reshape(1, 13)
  e = np.exp(x - x.max())
  cases = {
      stax.Relu: np.maximum(x, 0), stax.Tanh: np.tanh(x), stax.Exp: np.exp(x),
      stax.Sigmoid: 1 / (1 + np.exp(-x)), stax.Softplus: np.log1p(np.exp(x)),
      stax.Elu: np.where(x > 0, x, np.expm1(x)), stax.LeakyRelu: np.where(x > 0, x, 0.01 * x),
      stax.Selu: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
      stax.Gelu: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
      stax.Softmax: e / e.sum(), stax.LogSoftmax: np.log(e / e.sum()), stax.Identity: x,
  }
  for (init_fun, apply_fun), want in cases.items():
    assert init_fun(None, x.shape) == (x.shape, ())
    np.testing.assert_allclose(np.asarray(apply_fun((), x)), want, rtol=1e-5, atol=1e-6)


def test_routing_layers():
  a, b = jnp.ones((2, 3)), jnp.full((2, 4), 2.0)
  init_fun, apply_fun = stax.FanInConcat(axis=1)
  assert init_fun(None, [(2, 3), (2, 4)]) == ((2, 7), ())
  np.testing.assert_array_equal(np.asarray(apply_fun((), [a, b])),
                                np.concatenate([np.ones((2, 3)), np.full((2, 4), 2.0)], 1))
  assert stax.FanInSum[0](None, [(2, 3), (2, 3)]) == ((2, 3), ())
  assert stax.Flatten[0](None, (2, 3, 4, 5)) == ((2, 60), ())
  shapes, params = stax.parallel(stax.Dense(2), stax.Tanh)[0](random.key(0), [(1, 3), (1, 5)])
  assert shapes == ((1, 2), (1, 5)) and len(params) == 2 and params[1] == ()
  init_fun, apply_fun = stax.shape_dependent(lambda shape: stax.Dense(2 * shape[-1]))
  shape, params = init_fun(random.key(0), (4, 3))
  assert shape == (4, 6) and apply_fun(params, jnp.ones((4, 3))).shape == (4, 6)


def test_dropout():
  x = jnp.ones((1000,))
  _, apply_fun = stax.Dropout(0.8)
  y = np.asarray(apply_fun((), x, rng=random.key(3)))
  assert set(np.unique(y).tolist()) == {0.0, np.float32(1 / 0.8)}
  assert 0.75 < (y > 0).mean() < 0.85
  np.testing.assert_array_equal(np.asarray(stax.Dropout(0.8, mode="test")[1]((), x, rng=1)), 1.0)
  with pytest.raises(ValueError, match="Dropout layer requires apply_fun to be called with a PRNG"):
    apply_fun((), x)
  # serial splits rng= between its layers: two dropouts draw different masks
  _, apply_two = stax.serial(stax.Dropout(0.5), stax.FanOut(2),
                             stax.parallel(stax.Dropout(0.5), stax.Dropout(0.5)))
  left, right = apply_two(((), (), ((), ())), x, rng=random.key(0))
  assert not np.array_equal(np.asarray(left), np.asarray(right))


def test_training_a_stax_model_with_an_optimizer():
  init_fun, apply_fun = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(1))
  _, params = init_fun(random.key(0), (-1, 2))
  x = random.uniform(random.key(1), (64, 2), minval=-1, maxval=1)
  y = jnp.sin(3 * x[:, :1]) * x[:, 1:]
  loss = lambda p: jnp.mean((apply_fun(p, x) - y) ** 2)
  opt_init, opt_update, get_params = optimizers.adam(0.05)

  @ember.jit
  def step(i, state):
    return opt_update(i, ember.grad(loss)(get_params(state)), state)
  state = opt_init(params)
  for i in range(80):
    state = step(i, state)
  assert float(loss(get_params(state))) < 0.1 * float(loss(params))
  # per-example outputs under vmap match the batched call
  per_example = ember.vmap(apply_fun, in_axes=(None, 0))(get_params(state), x)
  np.testing.assert_allclose(np.asarray(per_example), np.asarray(apply_fun(get_params(state), x)),
                             rtol=1e-5, atol=1e-6)
