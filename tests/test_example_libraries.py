"""ember.example_libraries: optimizers against hand-written NumPy updates and against the bits
the reference JAX computes, schedules, utilities; stax layers' shapes, values and init bits."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.example_libraries import optimizers

# --- optimizers ---------------------------------------------------------------------------------

# Final parameters (float32 bit patterns, w then b) after four updates of the pytree below with the
# gradients below, computed by jax.example_libraries.optimizers 0.10.2 eagerly and under jit.
JAX_BITS = {
  "eager": {
      "sgd": ([1070946045, 1051159592, 1064582478, 1074251483, 1072168368, 3210732844],
          [1063937062, 3196026134, 3181059094]),
      "momentum": ([1069132637, 1043248532, 1064179282, 1072087858, 1070591534, 3206429890],
          [1061447692, 3201093218, 3166897662]),
      "nesterov": ([1069053071, 1044004185, 1065313219, 1072497493, 1070996386, 3206250936],
          [1061867916, 3201486304, 3163018250]),
      "adagrad": ([1071313952, 1052612884, 1064691659, 1074533711, 1072115994, 3212287672],
          [1063779666, 3190724438, 3181251941]),
      "rmsprop": ([1065953340, 3180139652, 1062548714, 1071745031, 1068294192, 3205088835],
          [1060296792, 3201560878, 1047036001]),
      "rmsprop_momentum": ([1061433092, 3186319537, 1057072368, 1066658686, 1059003150, 3214720805],
          [3185504564, 3205998465, 1055908014]),
      "adam": ([1069096766, 1049449516, 1063754815, 1072947712, 1070360684, 3211311930],
          [1061716697, 3196571167, 1035107816]),
      "adamax": ([1069995616, 1051274099, 1063708051, 1073790771, 1071067774, 3213029832],
          [1061823226, 3195675199, 1023710221]),

      "sm3": ([1071037813, 1051821642, 1064486516, 1074371990, 1071713381, 3212247191],
          [1063274608, 3191630257, 3178208672]),
  },
  "jit": {
      "sgd": ([1070946045, 1051159592, 1064582478, 1074251483, 1072168368, 3210732844],
          [1063937063, 3196026137, 3181059094]),
      "momentum": ([1069132637, 1043248533, 1064179283, 1072087858, 1070591534, 3206429890],
          [1061447692, 3201093220, 3166897663]),
      "nesterov": ([1069053071, 1044004185, 1065313218, 1072497493, 1070996386, 3206250936],
          [1061867916, 3201486305, 3163018250]),
      "adagrad": ([1071313952, 1052612884, 1064691659, 1074533711, 1072115994, 3212287672],
          [1063779666, 3190724438, 3181251940]),
      "rmsprop": ([1065953340, 3180139648, 1062548714, 1071745031, 1068294192, 3205088836],
          [1060296793, 3201560877, 1047036002]),
      "rmsprop_momentum": ([1061433096, 3186319534, 1057072366, 1066658686, 1059003152, 3214720805],
          [3185504554, 3205998464, 1055908014]),
      "adam": ([1069096762, 1049449505, 1063754815, 1072947704, 1070360677, 3211311920],
          [1061716696, 3196571162, 1035107807]),
      "adamax": ([1069995616, 1051274099, 1063708051, 1073790771, 1071067774, 3213029832],
          [1061823226, 3195675199, 1023710222]),

      "sm3": ([1071037813, 1051821642, 1064486516, 1074371990, 1071713381, 3212247191],
          [1063274608, 3191630257, 3178208672]),
  },
}


def golden_problem():
  rng = np.random.RandomState(0)
  params = {"w": rng.randn(2, 3).astype(np.float32), "b": rng.randn(3).astype(np.float32)}
  grads = [{"w": rng.randn(2, 3).astype(np.float32), "b": rng.randn(3).astype(np.float32)}
           for _ in range(4)]
  return params, grads


GOLDEN_OPTIMIZERS = {
    "sgd": lambda: optimizers.sgd(optimizers.exponential_decay(0.1, 2, 0.5)),
    "momentum": lambda: optimizers.momentum(0.1, 0.9),
    "nesterov": lambda: optimizers.nesterov(
        optimizers.inverse_time_decay(0.1, 2, 0.5, staircase=True), 0.8),
    "adagrad": lambda: optimizers.adagrad(0.1),
    "rmsprop": lambda: optimizers.rmsprop(0.1),
    "rmsprop_momentum": lambda: optimizers.rmsprop_momentum(
        optimizers.polynomial_decay(0.1, 3, 0.01), 0.8),
    "adam": lambda: optimizers.adam(0.1),
    "adamax": lambda: optimizers.adamax(optimizers.piecewise_constant([1, 2], [0.1, 0.05, 0.01])),
    "sm3": lambda: optimizers.sm3(0.1, 0.8),
}


def run_optimizer(opt, params, grads, jit=False):
  init, update, get_params = opt
  update = ember.jit(update) if jit else update
  state = init(ember.tree.map(jnp.asarray, params))
  for i, g in enumerate(grads):
    state = update(i, ember.tree.map(jnp.asarray, g), state)
  return get_params(state)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(GOLDEN_OPTIMIZERS))
def test_optimizer_bits_match_reference_jax(name, mode):
  params, grads = golden_problem()
  out = run_optimizer(GOLDEN_OPTIMIZERS[name](), params, grads, jit=mode == "jit")
  w_bits, b_bits = JAX_BITS[mode][name]
  assert np.asarray(out["w"]).ravel().view(np.uint32).tolist() == w_bits
  assert np.asarray(out["b"]).view(np.uint32).tolist() == b_bits


def numpy_updates(name, lr):
  """Each optimizer's update written out in NumPy: (init, update(i, g, state) -> state)."""
  zeros = np.zeros_like
  if name == "sgd":
    return (lambda x: [x]), (lambda i, g, s: [s[0] - lr * g])
  if name == "momentum":
    return (lambda x: [x, zeros(x)]), (lambda i, g, s: [s[0] - lr * (0.9 * s[1] + g),
                                                        0.9 * s[1] + g])
  if name == "nesterov":
    def nesterov(i, g, s):
      v = 0.9 * s[1] + g
      return [s[0] - lr * (0.9 * v + g), v]
    return (lambda x: [x, zeros(x)]), nesterov
  if name == "adam":
    def adam(i, g, s):
      m, v = 0.1 * g + 0.9 * s[1], 0.001 * g * g + 0.999 * s[2]
      m_hat, v_hat = m / (1 - 0.9 ** (i + 1)), v / (1 - 0.999 ** (i + 1))
      return [s[0] - lr * m_hat / (np.sqrt(v_hat) + 1e-8), m, v]
    return (lambda x: [x, zeros(x), zeros(x)]), adam
  if name == "adamax":
    def adamax(i, g, s):
      m, u = 0.1 * g + 0.9 * s[1], np.maximum(0.999 * s[2], np.abs(g))
      return [s[0] - lr / (1 - 0.9 ** (i + 1)) * m / (u + 1e-8), m, u]
    return (lambda x: [x, zeros(x), zeros(x)]), adamax
  if name == "rmsprop":
    def rmsprop(i, g, s):
      avg = 0.9 * s[1] + 0.1 * g * g
      return [s[0] - lr * g / np.sqrt(avg + 1e-8), avg]
    return (lambda x: [x, zeros(x)]), rmsprop
  assert name == "adagrad"

  def adagrad(i, g, s):
    g_sq = s[1] + g * g
    m = 0.1 * g * np.where(g_sq > 0, 1 / np.sqrt(np.where(g_sq > 0, g_sq, 1)), 0) + 0.9 * s[2]
    return [s[0] - lr * m, g_sq, m]
  return (lambda x: [x, zeros(x), zeros(x)]), adagrad


@pytest.mark.parametrize("name", ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam",
                                  "adamax"])
def test_optimizer_matches_numpy_updates(name):
  make = getattr(optimizers, name)
  opt = make(0.05, 0.9) if name in ("momentum", "nesterov") else make(0.05)
  params, grads = golden_problem()
  params["b"][0] = 0.0  # a zero gradient entry below exercises adagrad's guard
  for g in grads:
    g["b"][0] = 0.0
  got = run_optimizer(opt, params, grads)
  init, update = numpy_updates(name, 0.05)
  for key in params:
    state = init(params[key].astype(np.float64))
    for i, g in enumerate(grads):
      state = update(i, g[key].astype(np.float64), state)
    np.testing.assert_allclose(np.asarray(got[key]), state[0], rtol=2e-6, atol=2e-6)


def test_sm3_keeps_one_accumulator_per_axis_and_matches_jax():
  # Values from jax.example_libraries.optimizers 0.10.2 (rounded to 6 digits): a scalar, a
  # matrix and a 3-D parameter, three steps of gradients sin(params * (step + 1)).
  init, update, get_params = optimizers.sm3(0.1)
  params = {"w": jnp.arange(6.).reshape(2, 3), "b": jnp.array(1.5), "c": jnp.ones((2, 2, 2))}
  state = init(params)
  _, _, sums, _ = optimizers.unpack_optimizer_state(state)["c"].subtree
  assert [s.shape for s in sums] == [(2,), (2,), (2,)]
  for i in range(3):
    state = update(i, ember.tree.map(lambda p: jnp.sin(p * (i + 1)), get_params(state)), state)
  out = get_params(state)
  np.testing.assert_allclose(np.asarray(out["w"]), [[0.0, 0.957166, 1.987523],
                                                    [2.982086, 4.016291, 5.032179]], rtol=1e-6)
  assert out["b"].shape == () and abs(float(out["b"]) - 1.476772) < 1e-6
  np.testing.assert_allclose(np.asarray(out["c"]), np.full((2, 2, 2), 0.957166), rtol=1e-6)


def test_optimizer_state_is_a_pytree_and_trains_under_jit():
  init, update, get_params = optimizers.adam(0.1)
  loss = lambda p: jnp.sum((p["w"] - 3.0) ** 2) + jnp.sum(p["b"] ** 2)

  @ember.jit
  def step(i, state):
    return update(i, ember.grad(loss)(get_params(state)), state)
  state = init({"w": jnp.zeros(3), "b": jnp.ones(2)})
  assert len(ember.tree.leaves(state)) == 6
  for i in range(200):
    state = step(i, state)
  np.testing.assert_allclose(np.asarray(get_params(state)["w"]), 3.0, atol=1e-2)
  assert isinstance(state, optimizers.OptimizerState)


def test_optimizer_tree_mismatch_errors():
  init, update, _ = optimizers.sgd(0.1)
  state = init({"w": jnp.zeros(2)})
  with pytest.raises(TypeError, match="gradient tree that did not match the parameter tree"):
    update(0, [jnp.zeros(2)], state)

  @optimizers.optimizer
  def changes_structure():
    return (lambda x: (x, x)), (lambda i, g, s: (s[0],)), (lambda s: s[0])
  init, update, _ = changes_structure()
  with pytest.raises(TypeError, match="produced an output structure that did not match"):
    update(0, jnp.zeros(2), init(jnp.zeros(2)))


def test_schedules_eager_and_traced():
  cases = [
      (optimizers.constant(0.3), lambda i: 0.3),
      (optimizers.exponential_decay(0.5, 4, 0.1), lambda i: 0.5 * 0.1 ** (i / 4)),
      (optimizers.inverse_time_decay(0.5, 4, 2.0), lambda i: 0.5 / (1 + 2.0 * i / 4)),
      (optimizers.inverse_time_decay(0.5, 4, 2.0, staircase=True),
       lambda i: 0.5 / (1 + 2.0 * (i // 4))),
      (optimizers.polynomial_decay(1.0, 6, 0.2, power=2.0),
       lambda i: (1 - min(i, 6) / 6) ** 2 * 0.8 + 0.2),
      (optimizers.piecewise_constant([3, 5], [1.0, 0.5, 0.25]),
       lambda i: 1.0 if i <= 3 else 0.5 if i <= 5 else 0.25),
  ]
  steps = np.arange(9)
  for schedule, expected in cases:
    want = [expected(int(i)) for i in steps]
    np.testing.assert_allclose([float(schedule(int(i))) for i in steps], want, rtol=1e-6)
    traced = ember.jit(ember.vmap(lambda i, s=schedule: s(i) * jnp.ones(())))(steps)
    np.testing.assert_allclose(np.asarray(traced), want, rtol=1e-6)


def test_schedule_errors():
  with pytest.raises(ValueError, match="boundaries and values must be sequences"):
    optimizers.piecewise_constant(1, [1.0, 2.0])
  with pytest.raises(ValueError, match="one shorter than values"):
    optimizers.piecewise_constant([1, 2], [1.0, 2.0])
  with pytest.raises(TypeError, match="list"):
    optimizers.make_schedule([0.1, 0.2])
  schedule = optimizers.exponential_decay(0.1, 2, 0.5)
  assert optimizers.make_schedule(schedule) is schedule


def test_l2_norm_and_clip_grads_per_example():
  rng = np.random.RandomState(1)
  tree = {"a": rng.randn(5, 3).astype(np.float32), "b": [rng.randn(5).astype(np.float32)]}
  norms = np.sqrt((tree["a"] ** 2).sum(1) + tree["b"][0] ** 2)
  got = ember.jit(ember.vmap(optimizers.l2_norm))(tree)
  np.testing.assert_allclose(np.asarray(got), norms, rtol=1e-6)
  clipped = ember.vmap(optimizers.clip_grads, in_axes=(0, None))(tree, 1.0)
  scale = np.minimum(1.0, 1.0 / norms)
  np.testing.assert_allclose(np.asarray(clipped["a"]), tree["a"] * scale[:, None], rtol=1e-6)
  np.testing.assert_allclose(np.asarray(clipped["b"][0]), tree["b"][0] * scale, rtol=1e-6)


def test_pack_unpack_round_trip():
  init, update, _ = optimizers.adam(0.1)
  params = {"w": jnp.arange(3.0), "nested": (jnp.ones(2), jnp.zeros(()))}
  state = update(0, ember.tree.map(jnp.ones_like, params), init(params))
  marked = optimizers.unpack_optimizer_state(state)
  assert isinstance(marked["w"], optimizers.JoinPoint) and len(marked["w"].subtree) == 3
  again = optimizers.pack_optimizer_state(marked)
  for a, b in zip(ember.tree.leaves(state), ember.tree.leaves(again), strict=True):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  assert ember.tree.structure(again) == ember.tree.structure(state)
  with pytest.raises(TypeError, match="JoinPoint leaves"):
    optimizers.pack_optimizer_state({"w": 1.0})
