"""Small end-to-end training programs as researchers write them: an MLP on a parameter dict with
a jitted SGD step, a hand-written Adam, a scan-based RNN, per-example gradients, masked losses,
and jax.example_libraries' optimizers and stax layers."""
from functools import partial

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()

_rng = np.random.RandomState(0)
_X = _rng.randn(8, 3).astype(np.float32)
_W_TRUE = np.array([[1.0], [-2.0], [0.5]], np.float32)
_Y = np.tanh(_X @ _W_TRUE) + 0.1 * _rng.randn(8, 1).astype(np.float32)
_LABELS = np.array([0, 2, 1, 1, 0, 2, 2, 1], np.int32)


def _init_mlp(sizes, key):
  params = {}
  keys = jax.random.split(key, len(sizes) - 1)
  for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
    wk, bk = jax.random.split(keys[i])
    params[f"layer{i}"] = {"w": jax.random.normal(wk, (m, n)) / jnp.sqrt(m),
                           "b": jnp.zeros(n)}
  return params


def _mlp(params, x):
  n = len(params)
  for i in range(n):
    p = params[f"layer{i}"]
    x = x @ p["w"] + p["b"]
    if i < n - 1:
      x = jax.nn.relu(x)
  return x


def _mse(params, x, y):
  return jnp.mean((_mlp(params, x) - y) ** 2)


@program(rtol=1e-4, atol=1e-5)
def mlp_sgd_steps_with_jitted_update():
  params = _init_mlp([3, 4, 1], jax.random.key(0))

  @jax.jit
  def update(params, x, y, lr):
    loss, grads = jax.value_and_grad(_mse)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss

  losses = []
  for _ in range(5):
    params, loss = update(params, _X, _Y, 0.1)
    losses.append(loss)
  return jnp.stack(losses), params["layer1"]["b"], jax.tree_util.tree_structure(params).num_leaves


@program(rtol=1e-4, atol=1e-5)
def softmax_cross_entropy_classifier_steps():
  params = _init_mlp([3, 5, 3], jax.random.key(1))

  def loss_fn(params, x, labels):
    logits = _mlp(params, x)
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[:, None], axis=1).squeeze(1)
    acc = jnp.mean(jnp.argmax(logits, -1) == labels)
    return nll.mean(), acc

  @jax.jit
  def step(params):
    (loss, acc), g = jax.value_and_grad(loss_fn, has_aux=True)(params, _X, _LABELS)
    return jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, g), loss, acc

  out = []
  for _ in range(4):
    params, loss, acc = step(params)
    out.append((loss, acc))
  return out


@program(rtol=1e-4, atol=1e-5)
def hand_written_adam():
  params = {"w": jnp.zeros((3, 1)), "b": jnp.zeros(1)}

  def loss_fn(p):
    return jnp.mean((_X @ p["w"] + p["b"] - _Y) ** 2)

  def adam_init(p):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, p)
    return {"m": zeros, "v": zeros, "t": jnp.int32(0)}

  @jax.jit
  def adam_step(p, state, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
    loss, g = jax.value_and_grad(loss_fn)(p)
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], g)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], g)
    mhat = jax.tree_util.tree_map(lambda m: m / (1 - b1 ** t), m)
    vhat = jax.tree_util.tree_map(lambda v: v / (1 - b2 ** t), v)
    p = jax.tree_util.tree_map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), p, mhat, vhat)
    return p, {"m": m, "v": v, "t": t}, loss

  state = adam_init(params)
  losses = []
  for _ in range(6):
    params, state, loss = adam_step(params, state)
    losses.append(loss)
  return jnp.stack(losses), params, state["t"]


@program(rtol=1e-4, atol=1e-5)
def scan_rnn_forward_and_grad():
  k1, k2, k3 = jax.random.split(jax.random.key(2), 3)
  params = {"wh": jax.random.normal(k1, (4, 4)) * 0.3, "wx": jax.random.normal(k2, (2, 4)) * 0.3,
            "wo": jax.random.normal(k3, (4, 1)) * 0.3}
  xs = jnp.sin(jnp.arange(12.0).reshape(6, 2))
  ys = jnp.cos(jnp.arange(6.0))[:, None]

  def loss(params, xs, ys):
    def cell(h, x):
      h = jnp.tanh(h @ params["wh"] + x @ params["wx"])
      return h, h @ params["wo"]
    h_last, outs = lax.scan(cell, jnp.zeros(4), xs)
    return jnp.mean((outs - ys) ** 2), h_last

  (l, h), g = jax.jit(jax.value_and_grad(loss, has_aux=True))(params, xs, ys)
  return l, h, g


@program(rtol=1e-4, atol=1e-6)
def per_example_gradients_with_vmap():
  params = {"w": jnp.array([[0.5], [-0.3], [0.1]]), "b": jnp.array([0.2])}

  def loss(p, x, y):
    return jnp.sum((x @ p["w"] + p["b"] - y) ** 2)

  per_ex = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, _X[:4], _Y[:4])
  full = jax.grad(lambda p: sum(loss(p, _X[i], _Y[i]) for i in range(4)))(params)
  norms = jax.vmap(lambda g: jnp.sqrt(sum(jnp.sum(l ** 2) for l in jax.tree_util.tree_leaves(g))))(per_ex)
  return per_ex, jax.tree_util.tree_map(lambda a: a.sum(0), per_ex), full, norms


@program(rtol=1e-4, atol=1e-6)
def dp_sgd_clipped_per_example_grads():
  params = {"w": jnp.ones((3, 1)) * 0.1}

  def loss(p, x, y):
    return jnp.sum((x @ p["w"] - y) ** 2)

  @jax.jit
  def step(p):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(p, _X, _Y)
    norm = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=(1, 2)))
    scale = jnp.minimum(1.0, 1.0 / norm)
    g = jax.tree_util.tree_map(lambda a: (a * scale[:, None, None]).mean(0), g)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, p, g), norm

  params, n1 = step(params)
  params, n2 = step(params)
  return params, n1, n2


@program(rtol=1e-5, atol=1e-6)
def masked_loss_with_where_and_logsumexp():
  logits = jnp.array([[2.0, 1.0, -1.0], [0.0, 0.0, 0.0], [5.0, -5.0, 1.0]])
  mask = jnp.array([True, False, True])
  labels = jnp.array([0, 1, 2])

  def loss(logits):
    lse = jax.scipy.special.logsumexp(logits, axis=-1)
    picked = jnp.take_along_axis(logits, labels[:, None], axis=-1)[:, 0]
    per = jnp.where(mask, lse - picked, 0.0)
    return per.sum() / mask.sum()

  return loss(logits), jax.grad(loss)(logits), jax.nn.softmax(logits, where=mask[:, None])


@program(rtol=1e-4, atol=1e-6)
def fori_loop_training_inside_jit():
  def loss(w):
    return jnp.mean((_X @ w - _Y[:, 0]) ** 2)

  @jax.jit
  def train(w):
    def body(i, carry):
      w, hist = carry
      l, g = jax.value_and_grad(loss)(w)
      return w - 0.05 * g, hist.at[i].set(l)
    return lax.fori_loop(0, 5, body, (w, jnp.zeros(5)))

  return train(jnp.zeros(3))


@program(rtol=1e-4, atol=1e-6)
def scan_over_minibatches_training():
  xb = _X.reshape(4, 2, 3)
  yb = _Y.reshape(4, 2, 1)

  def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)

  def step(w, batch):
    x, y = batch
    l, g = jax.value_and_grad(loss)(w, x, y)
    return w - 0.1 * g, l

  w, losses = jax.jit(lambda w: lax.scan(step, w, (xb, yb)))(jnp.zeros((3, 1)))
  return w, losses


@program(rtol=1e-4, atol=1e-6)
def example_libraries_sgd_and_adam():
  optimizers = submodule("example_libraries.optimizers")

  def loss(p):
    return jnp.mean((_X @ p["w"] - _Y) ** 2)

  results = []
  for make in (lambda: optimizers.sgd(0.1), lambda: optimizers.adam(0.05),
               lambda: optimizers.momentum(0.1, 0.9)):
    init, update, get_params = make()
    state = init({"w": jnp.zeros((3, 1))})
    for i in range(3):
      state = update(i, jax.grad(loss)(get_params(state)), state)
    results.append(get_params(state)["w"][:, 0])
  return results


@program(rtol=1e-4, atol=1e-6)
def example_libraries_schedules_and_clip():
  optimizers = submodule("example_libraries.optimizers")
  sched = optimizers.exponential_decay(0.1, 2, 0.5)
  piece = optimizers.piecewise_constant([2, 4], [1.0, 0.5, 0.1])
  g = {"a": jnp.array([3.0, 4.0]), "b": jnp.array([12.0])}
  return ([sched(i) for i in range(3)], [piece(i) for i in (0, 2, 3, 5)],
          optimizers.l2_norm(g), optimizers.clip_grads(g, 1.0))


@program(rtol=1e-4, atol=1e-6)
def stax_dense_relu_network():
  stax = submodule("example_libraries.stax")
  init_fn, apply_fn = stax.serial(stax.Dense(4), stax.Relu, stax.Dense(2), stax.LogSoftmax)
  out_shape, params = init_fn(jax.random.PRNGKey(0), (-1, 3))
  y = apply_fn(params, _X[:3])
  shapes = jax.tree_util.tree_map(lambda p: p.shape, params)
  return out_shape, shapes, y


@program(rtol=1e-4, atol=1e-6)
def stax_train_step_with_optimizer():
  optimizers = submodule("example_libraries.optimizers")
  stax = submodule("example_libraries.stax")
  init_fn, apply_fn = stax.serial(stax.Dense(3), stax.Tanh, stax.Dense(1))
  _, params = init_fn(jax.random.PRNGKey(1), (-1, 3))
  opt_init, opt_update, get_params = optimizers.adam(0.01)

  def loss(p):
    return jnp.mean((apply_fn(p, _X) - _Y) ** 2)

  @jax.jit
  def step(i, state):
    l, g = jax.value_and_grad(loss)(get_params(state))
    return opt_update(i, g, state), l

  state = opt_init(params)
  losses = []
  for i in range(4):
    state, l = step(i, state)
    losses.append(l)
  return jnp.stack(losses)


@program(rtol=1e-4, atol=1e-6)
def dropout_with_split_keys_in_training_step():
  params = {"w": jnp.ones((3, 2)) * 0.2}

  def forward(p, x, key, rate=0.5):
    h = x @ p["w"]
    keep = jax.random.bernoulli(key, 1 - rate, h.shape)
    return jnp.where(keep, h / (1 - rate), 0.0)

  @jax.jit
  def step(p, key):
    key, sub = jax.random.split(key)
    l, g = jax.value_and_grad(lambda p: jnp.mean(forward(p, _X[:4], sub) ** 2))(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), key, l

  key = jax.random.key(5)
  ls = []
  for _ in range(3):
    params, key, l = step(params, key)
    ls.append(l)
  return jnp.stack(ls), params["w"]


@program(rtol=1e-4, atol=1e-6)
def layer_norm_and_attention_forward():
  x = jnp.asarray(_X[:4])

  def layer_norm(x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + eps)

  def attention(q, k, v):
    s = q @ k.T / jnp.sqrt(q.shape[-1])
    causal = jnp.tril(jnp.ones((q.shape[0], k.shape[0]), bool))
    s = jnp.where(causal, s, -jnp.inf)
    return jax.nn.softmax(s, axis=-1) @ v

  h = layer_norm(x)
  return h, attention(h, h, x), jax.jit(jax.grad(lambda x: attention(x, x, x).sum()))(x)


@program(rtol=1e-4, atol=1e-6)
def gradient_accumulation_over_microbatches():
  def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)

  w = jnp.array([[0.1], [0.2], [0.3]])
  micro = [(jnp.asarray(_X[i:i + 2]), jnp.asarray(_Y[i:i + 2])) for i in range(0, 8, 2)]
  acc = jnp.zeros_like(w)
  for x, y in micro:
    acc = acc + jax.grad(loss)(w, x, y)
  full = jax.grad(loss)(w, jnp.asarray(_X), jnp.asarray(_Y))
  return acc / 4, full
