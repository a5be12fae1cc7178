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
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
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
  with pytest.warns(DeprecationWarning, match="should be integer-typed; got dtype=float32"):
    np.testing.assert_array_equal(nn.one_hot(np.array([0., 1.7]), 3), [[1, 0, 0], [0, 0, 0]])
  x = np.arange(8, dtype=np.float32).reshape(2, 4)
  np.testing.assert_allclose(nn.glu(x), x[:, :2] * sc.expit(x[:, 2:]), rtol=1e-6)
  with pytest.raises(AssertionError, match="divisible by 2"):  # JAX's error type
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


# --- dtypes, weak types and errors as in JAX 0.10.2 (expected values printed by JAX) ------------

INT_ACTIVATIONS = {  # name -> (dtype, weak_type, value) of nn.<name>(jnp.array([-2, 0, 3]))
    "leaky_relu": ("float32", True, [-0.019999999552965164, 0.0, 3.0]),
    "elu": ("float32", True, [-0.8646647334098816, 0.0, 3.0]),
    "selu": ("float32", True, [-1.5201665163040161, 0.0, 3.1521029472351074]),
    "sparse_plus": ("float32", True, [0.0, 0.25, 3.0]),
    "celu": ("float32", True, [-0.8646647334098816, 0.0, 3.0]),
    "hard_silu": ("float32", True, [-0.3333333432674408, 0.0, 3.0]),
    "relu6": ("float32", True, [0.0, 0.0, 3.0]),
    "hard_sigmoid": ("float32", True, [0.1666666716337204, 0.5, 1.0]),
    "sparse_sigmoid": ("float32", True, [0.0, 0.5, 1.0]),
    "soft_sign": ("float32", False, [-0.6666666865348816, 0.0, 0.75]),
    "mish": ("float32", False, [-0.2525014579296112, 0.0, 2.9865355491638184]),
    "squareplus": ("float32", False, [0.41421353816986084, 1.0, 3.3027756214141846]),
    "softplus": ("float32", False, [0.12692800164222717, 0.6931471824645996, 3.0485873222351074]),
    "log_sigmoid": ("float32", False, [-2.1269280910491943, -0.6931471824645996,
                                       -0.04858735203742981]),
    "gelu": ("float32", False, [-0.045402348041534424, 0.0, 2.9963626861572266]),
    "hard_tanh": ("int32", False, [-1, 0, 1]),
}


@pytest.mark.parametrize("name", sorted(INT_ACTIVATIONS))
def test_int_input_dtype_and_weak_type(name):
  dtype, weak, value = INT_ACTIVATIONS[name]
  for out in (getattr(nn, name)(jnp.array([-2, 0, 3])),
              ember.jit(getattr(nn, name))(jnp.array([-2, 0, 3]))):
    assert (str(out.dtype), out.weak_type) == (dtype, weak)
    np.testing.assert_allclose(out, value, rtol=1e-7)


def test_other_input_kinds_keep_jax_dtypes():
  out = nn.elu(jnp.array([True, False]))
  assert out.dtype == np.float32 and out.weak_type
  out = nn.leaky_relu(-2)
  assert out.weak_type and float(out) == np.float32(-0.02)
  assert nn.elu(True).weak_type
  out = nn.sparse_plus(jnp.array([-2., 0., 0.5, 2.], jnp.float16))
  assert out.dtype == np.float16 and not out.weak_type
  np.testing.assert_array_equal(out, [0., 0.25, 0.5625, 2.])
  # unsigned inputs are negated in their own dtype, so they wrap (as in JAX)
  np.testing.assert_array_equal(nn.log_sigmoid(jnp.array([0, 1, 3], jnp.uint8)),
                                np.float32([-0.6931471824645996, -255., -253.]))
  np.testing.assert_allclose(nn.gelu(jnp.array([-1.5, 0.3, 2.]), approximate=False),
                             [-0.10021083056926727, 0.1853734254837036, 1.9544997215270996],
                             rtol=1e-7)


@pytest.mark.parametrize("f", [nn.sigmoid, nn.silu, nn.swish, nn.glu])
@pytest.mark.parametrize("x", [1, True, np.array([1, 2]), jnp.array([True, False])])
def test_logistic_rejects_integers_like_jax(f, x):
  if f is nn.glu and np.ndim(x) == 0:
    with pytest.raises(IndexError):  # as in JAX: a scalar has no axis -1
      f(x)
    return
  dtype = "bool" if np.asarray(x).dtype == bool else "int32"
  with pytest.raises(TypeError, match=f"logistic does not accept dtype {dtype}. Accepted dtypes "
                                      "are subtypes of floating, complexfloating."):
    f(x)
  assert nn.sigmoid(1.).weak_type


def test_non_array_arguments_raise():
  for f in (nn.identity, nn.hard_tanh, nn.elu, nn.silu):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
      f([1., 2.])


def test_log1mexp_derivative_and_standardize_like_jax():
  g = ember.grad(lambda x: jnp.sum(nn.log1mexp(x)))(jnp.array([0., 1e-3, 2.]))
  np.testing.assert_allclose(g, [np.inf, 999.5001831054688, 0.1565176397562027], rtol=1e-6)
  np.testing.assert_allclose(nn.standardize(jnp.array([1, 2, 3])),
                             [-1.224735975265503, 0.0, 1.224735975265503], rtol=1e-7)
  # the fast variance is clipped at 0; uint8 is squared in uint8 (wrapping), as in JAX
  np.testing.assert_allclose(nn.standardize(jnp.array([1e4, 1e4, 1e4 + 1e-3], jnp.float32)),
                             [0.0, 0.0, 0.0004109553701709956], rtol=1e-6)
  np.testing.assert_allclose(nn.standardize(jnp.array([0, 1, 3, 200], jnp.uint8)),
                             [-16127.615234375, -15811.3876953125, -15178.931640625,
                              47117.93359375], rtol=1e-6)
  with pytest.raises(TypeError, match="ndarray, scalar, or None arguments"):
    nn.standardize(jnp.ones(3), mean=[1.])
  nn.standardize(jnp.ones(3), variance=jnp.ones(1), algorithm="foo")  # unused, as in JAX


def test_one_hot_warnings_and_errors_like_jax():
  msg = "jax.nn.one_hot input should be integer-typed; got dtype=bool"
  with pytest.warns(DeprecationWarning, match=msg):
    with pytest.raises(TypeError, match="iota does not accept dtype bool. Accepted dtypes are "
                                        "subtypes of integer, floating, complexfloating."):
      nn.one_hot(jnp.array([True, False]), 2)
  with pytest.warns(DeprecationWarning, match="got dtype=float16"):
    np.testing.assert_array_equal(nn.one_hot(jnp.array([0., 1.], jnp.float16), 3),
                                  [[1, 0, 0], [0, 1, 0]])
  with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
    nn.one_hot(jnp.array([0, 1]), 2, axis=3)
  out = ember.vmap(lambda x: nn.one_hot(x, 3, axis="i"), axis_name="i")(jnp.array([0, 2, 1]))
  np.testing.assert_array_equal(out, [1., 0., 0.])
  with pytest.raises(ValueError, match="Expected num_classes to match the size of axis i, "
                                       "but 2 != 3"):
    ember.vmap(lambda x: nn.one_hot(x, 2, axis="i"), axis_name="i")(jnp.array([0, 2, 1]))


# --- dot_product_attention (expected values printed by JAX 0.10.2) ------------------------------

Q = np.sin(np.arange(12.)).reshape(1, 3, 2, 2).astype(np.float32)      # (B, T, N=2, H)
K = np.cos(np.arange(8.) * 0.7).reshape(1, 4, 1, 2).astype(np.float32)  # (B, S, K=1, H): GQA
V = (np.arange(8.).reshape(1, 4, 1, 2) / 4).astype(np.float32)
CAUSAL = [0.0, 0.25, 0.0, 0.25, 0.39334696531295776, 0.643346905708313, 0.19755877554416656,
          0.44755879044532776, 0.2266789674758911, 0.4766789674758911, 0.7642939686775208,
          1.0142940282821655]
ATTENTION = {  # keyword arguments -> JAX's output, flattened
    (): [0.6536346077919006, 0.9036346077919006, 0.492034375667572, 0.742034375667572,
         0.9290784597396851, 1.1790783405303955, 0.756801187992096, 1.0068011283874512,
         0.432714581489563, 0.682714581489563, 0.903852105140686, 1.1538522243499756],
    (("is_causal", True),): CAUSAL,
    (("bias", "ramp"), ("scale", 2.)): [
        0.6696062088012695, 0.9196062088012695, 0.2288403958082199, 0.4788404107093811,
        1.0041743516921997, 1.2541744709014893, 0.9871024489402771, 1.2371023893356323,
        0.13360801339149475, 0.38360798358917236, 0.9916670322418213, 1.2416670322418213],
    (("mask", "pattern"),): [
        0.688464343547821, 0.9384644031524658, 0.48946884274482727, 0.7394688725471497,
        0.8542217016220093, 1.1042217016220093, 0.7524040937423706, 1.0024040937423706,
        0.13937422633171082, 0.3893741965293884, 0.3857758939266205, 0.6357758641242981],
    (("mask", "none"),): [0.75, 1.0] * 6,  # every logit masked: the mean of the values
    (("query_seq_lengths", 2), ("key_value_seq_lengths", 3)): [
        0.3263627886772156, 0.5763627886772156, 0.28451958298683167, 0.534519612789154,
        0.7916399240493774, 1.0416399240493774, 0.42796790599823, 0.67796790599823,
        0.0, 0.0, 0.0, 0.0],
    (("local_window_size", (1, 0)),): CAUSAL[:8] + [
        0.6441305875778198, 0.8941305875778198, 0.8377349376678467, 1.0877349376678467],
    (("local_window_size", 1),): [
        0.15981453657150269, 0.4098145365715027, 0.1703265905380249, 0.4203265905380249,
        0.7916399240493774, 1.0416399240493774, 0.42796790599823, 0.67796790599823,
        0.9473128318786621, 1.197312831878662, 0.9729682207107544, 1.2229681015014648],
}


def _attention_kwargs(items):
  named = {
      "ramp": np.arange(4, dtype=np.float32)[None, None, None] / 4,
      "pattern": np.array([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]], bool)[None, None],
      "none": np.zeros((1, 1, 3, 4), bool)}
  kw = {k: named.get(v, v) if isinstance(v, str) else v for k, v in items}
  for k in ("query_seq_lengths", "key_value_seq_lengths"):
    if k in kw:
      kw[k] = np.array([kw[k]], np.int32)
  return kw


@pytest.mark.parametrize("items", list(ATTENTION),
                         ids=lambda t: ",".join(k for k, _ in t) or "plain")
def test_dot_product_attention_matches_jax(items):
  kw = _attention_kwargs(items)
  for out in (nn.dot_product_attention(Q, K, V, **kw),
              ember.jit(lambda q, k, v: nn.dot_product_attention(q, k, v, **kw))(Q, K, V)):
    assert out.shape == Q.shape and out.dtype == np.float32
    np.testing.assert_allclose(np.ravel(out), ATTENTION[items], rtol=1e-6, atol=1e-7)


def test_dot_product_attention_unbatched_residual_and_low_precision():
  out = nn.dot_product_attention(Q[0], K[0], V[0], is_causal=True)
  assert out.shape == (3, 2, 2)
  np.testing.assert_allclose(np.ravel(out), CAUSAL, rtol=1e-6, atol=1e-7)
  out, lse = nn.dot_product_attention(Q, K, V, is_causal=True, return_residual=True)
  assert lse.shape == (1, 3, 2) and lse.dtype == np.float32
  np.testing.assert_allclose(np.ravel(lse), [0.45508864521980286, 0.7192915678024292,
                                             0.4912766218185425, 0.6604593992233276,
                                             1.356198787689209, 1.5087194442749023], rtol=1e-6)
  # float16: logits in float32, softmax in float32, P V in float16 (JAX's values, bit for bit)
  h = [jnp.asarray(a, jnp.float16) for a in (Q, K, V)]
  out, lse = nn.dot_product_attention(*h, return_residual=True)
  assert out.dtype == lse.dtype == np.float16
  np.testing.assert_array_equal(np.ravel(out), np.float16([
      0.6533203125, 0.9033203125, 0.4921875, 0.7421875, 0.92919921875, 1.1787109375,
      0.7568359375, 1.0068359375, 0.432861328125, 0.6826171875, 0.90380859375, 1.1533203125]))
  np.testing.assert_array_equal(np.ravel(lse), np.float16([
      1.3876953125, 1.470703125, 1.775390625, 1.365234375, 1.5322265625, 1.71875]))
  b = [jnp.asarray(a, jnp.bfloat16) for a in (Q, K, V)]
  out = nn.dot_product_attention(*b)
  assert out.dtype == jnp.bfloat16
  np.testing.assert_array_equal(np.ravel(out).astype(np.float32), np.float32([
      0.65234375, 0.90234375, 0.4921875, 0.7421875, 0.9296875, 1.1796875, 0.7578125,
      1.0078125, 0.43359375, 0.68359375, 0.90625, 1.15625]))
  with pytest.raises(ValueError, match="precision 'F16_F16_F32' is not supported"):
    ember.jit(nn.dot_product_attention)(*h)  # as in JAX on CPU: the preset fails to lower


def _naive_attention(q, k, v, bias, keep):
  """softmax(Q K^T / sqrt(H) + bias) V per head with ember.numpy, K/V heads repeated."""
  rep = q.shape[2] // k.shape[2]
  k, v = jnp.repeat(k, rep, axis=2), jnp.repeat(v, rep, axis=2)
  logits = jnp.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1]) + bias
  logits = jnp.where(keep, logits, -1e30)
  return jnp.einsum("bnts,bsnh->btnh", nn.softmax(logits, axis=-1), v)


def test_dot_product_attention_grads_vmap_against_naive():
  rng = np.random.default_rng(0)
  q, k, v = (rng.normal(size=s).astype(np.float32)
             for s in [(2, 5, 4, 3), (2, 6, 2, 3), (2, 6, 2, 3)])
  bias = rng.normal(size=(1, 4, 5, 6)).astype(np.float32)
  lengths = np.array([4, 6], np.int32)
  keep = (np.arange(6) < lengths[:, None])[:, None, None, :] & np.tri(5, 6, dtype=bool)
  ours = lambda q, k, v, b: jnp.sum(jnp.sin(nn.dot_product_attention(
      q, k, v, bias=b, is_causal=True, key_value_seq_lengths=lengths)))
  naive = lambda q, k, v, b: jnp.sum(jnp.sin(_naive_attention(q, k, v, b, keep)))
  np.testing.assert_allclose(ours(q, k, v, bias), naive(q, k, v, bias), rtol=1e-5)
  for g1, g2 in zip(ember.grad(ours, argnums=(0, 1, 2, 3))(q, k, v, bias),
                    ember.grad(naive, argnums=(0, 1, 2, 3))(q, k, v, bias)):
    np.testing.assert_allclose(g1, g2, rtol=2e-4, atol=2e-6)
  causal_loss = lambda q, k, v: jnp.sum(jnp.sin(nn.dot_product_attention(q, k, v, is_causal=True)))
  g = ember.grad(causal_loss, argnums=(0, 1, 2))(Q, K, V)  # JAX's gradients for fixed inputs
  np.testing.assert_allclose(np.ravel(g[0]), [
      0.0, 0.0, 0.0, 0.0, -0.08488425612449646, -0.12984608113765717, -0.13200180232524872,
      -0.20192110538482666, -0.2755620777606964, -0.2903136909008026, -0.19196267426013947,
      -0.13061735033988953], rtol=1e-5, atol=1e-7)
  np.testing.assert_allclose(np.ravel(g[2]), [
      3.4849228858947754, 3.2759408950805664, 1.5718425512313843, 1.3645737171173096,
      0.5437042117118835, 0.41565221548080444, 0.0, 0.0], rtol=1e-6)
  batched = ember.vmap(lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True))(
      Q[None], K[None], V[None])
  np.testing.assert_allclose(np.ravel(batched), CAUSAL, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(query=np.ones((1, 3, 3, 2), np.float32), key=np.ones((1, 4, 2, 2), np.float32),
          value=np.ones((1, 4, 2, 2), np.float32)), ValueError,
     "The number of query heads must be a multiple of key/value heads, but got 3 vs 2"),
    (dict(value=np.ones((1, 2, 1, 2), np.float32)), ValueError,
     r"value shape should be \[1, 4, 1, 2\]: but got \(1, 2, 1, 2\)"),
    (dict(value=np.ones((1, 4, 1, 2), np.float16)), ValueError,
     "value dtype should be float32, but got float16"),
    (dict(query=np.ones((1, 3, 2, 3), np.float32)), ValueError,
     r"query shape should be \[1, -1, -1, 2\]: but got \(1, 3, 2, 3\)"),
    (dict(mask=np.ones((1, 1, 3, 4), np.float32)), ValueError,
     "mask dtype should be bool, but got float32"),
    (dict(bias=np.ones((1, 1, 1, 3, 4), np.float32)), ValueError,
     "bias ndim should be 4, but got 5"),
    (dict(bias=np.ones((1, 3, 3, 4), np.float32)), AssertionError, "bias has 3 heads"),
    (dict(mask=np.ones((1, 3, 3, 4), bool)), AssertionError, "mask has 3 heads"),
    (dict(bias=np.ones((1, 1, 2, 4), np.float32)), TypeError,
     "bias .* add got incompatible shapes for broadcasting"),
    (dict(mask=np.ones((2, 1, 3, 4), bool)), TypeError, "mask .* cannot reshape"),
    (dict(query_seq_lengths=np.array([1.])), ValueError,
     "query_seq_lengths dtype should be int32, but got float32"),
    (dict(key_value_seq_lengths=np.array([1, 2], np.int32)), ValueError,
     r"key_value_seq_lengths shape should be \[1\]: but got \(2,\)"),
    (dict(local_window_size=(1,)), ValueError, r"not enough values to unpack \(expected 2"),
    (dict(implementation="flash"), ValueError, "Unsupported implementation option: flash"),
    (dict(implementation="cudnn"), RuntimeError, "cuDNN is not detected."),
    (dict(implementation="cudnn", local_window_size=(2, 2)), ValueError,
     "cuDNN doesn't support right window: 2 when causal mask is not used."),
])
def test_dot_product_attention_errors(kwargs, error, match):
  args = {"query": Q, "key": K, "value": V}
  args.update(kwargs)
  with pytest.raises(error, match=match):
    nn.dot_product_attention(**args)
