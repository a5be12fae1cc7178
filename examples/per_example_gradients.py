"""Per-example gradients with vmap(grad), checked against a Python loop, then used for DP-SGD.

    python examples/per_example_gradients.py
    python examples/per_example_gradients.py --steps 20 --clip-norm 1.0 --noise-multiplier 1.1

``vmap(grad(loss), in_axes=(None, 0, 0))`` gives one gradient per example in one compiled
program. Differentially private SGD (Abadi et al., 2016) needs exactly that: each example's
gradient is clipped to norm at most ``--clip-norm``, the clipped gradients are averaged, and
Gaussian noise of standard deviation ``noise_multiplier * clip_norm / batch_size`` is added
before the step.
"""
import time

import flags


def parse_args(argv=None):
  p = flags.parser(__doc__, steps=300)
  p.add_argument("--batch-size", type=flags.positive_int, default=256,
                 help="examples in each minibatch (and in the vmap-against-loop check)")
  p.add_argument("--learning-rate", type=flags.positive_float, default=0.1,
                 help="SGD's step size")
  p.add_argument("--clip-norm", type=flags.positive_float, default=4.0,
                 help="largest norm of one example's gradient after clipping")
  p.add_argument("--noise-multiplier", type=flags.non_negative_float, default=1.0,
                 help="noise standard deviation in units of --clip-norm (0: no noise)")
  return p.parse_args(argv)


if __name__ == "__main__":
  ARGS = parse_args()  # first, so --help and bad flags answer before the slow imports below

from progress import Progress

import ember
import ember.numpy as jnp
from ember import random
from ember.example_libraries import optimizers


def make_data(key, n, dim):
  """A binary classification problem: labels from a random linear rule, some flipped."""
  k_x, k_w, k_flip = random.split(key, 3)
  x = random.normal(k_x, (n, dim))
  y = (x @ random.normal(k_w, (dim,)) > 0).astype(jnp.float32)
  flip = random.bernoulli(k_flip, 0.1, (n,))
  return x, jnp.where(flip, 1.0 - y, y)


def init_params(key, dim, hidden):
  k1, k2 = random.split(key)
  return {"hidden": {"w": random.normal(k1, (dim, hidden)) / jnp.sqrt(dim), "b": jnp.zeros(hidden)},
          "out": {"w": random.normal(k2, (hidden,)) / jnp.sqrt(hidden), "b": jnp.zeros(())}}


def logits(params, x):
  h = jnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
  return h @ params["out"]["w"] + params["out"]["b"]


def loss(params, x, y):
  """Logistic loss of one example (``x`` a vector) or the mean over a batch."""
  logit = logits(params, x)
  return jnp.mean(jnp.logaddexp(0.0, logit) - y * logit)


per_example_grads = ember.jit(ember.vmap(ember.grad(loss), in_axes=(None, 0, 0)))


@ember.jit
def _grad_of_example(params, x, y, i):
  return ember.grad(loss)(params, x[i], y[i])


def loop_grads(params, x, y):
  """The same gradients, one example at a time, stacked."""
  grads = [_grad_of_example(params, x, y, i) for i in range(x.shape[0])]
  return ember.tree.map(lambda *g: jnp.stack(g), *grads)


def check_against_loop(params, x, y):
  """vmap(grad) equals the loop; both timed once compiled."""
  timings = []
  for fn in (per_example_grads, loop_grads):
    ember.block_until_ready(fn(params, x, y))  # compile
    t0 = time.perf_counter()
    grads = ember.block_until_ready(fn(params, x, y))
    timings.append((time.perf_counter() - t0, grads))
  (t_vmap, batched), (t_loop, looped) = timings
  diff = max(float(jnp.max(jnp.abs(a - b)))
             for a, b in zip(ember.tree.leaves(batched), ember.tree.leaves(looped)))
  print(f"per-example gradients of {x.shape[0]} examples: vmap(grad) {1e3 * t_vmap:.2f} ms, "
        f"a loop of grad {1e3 * t_loop:.2f} ms; max |difference| {diff:.2e}")
  if diff > 1e-5:
    raise SystemExit("vmap(grad) disagrees with the loop")


def make_dp_step(opt_update, get_params, clip_norm, noise_multiplier):
  """One DP-SGD step: clip each example's gradient, average, add noise, update. Also returns the
  minibatch's loss before the update."""
  @ember.jit
  def step(i, opt_state, x, y, key):
    params = get_params(opt_state)
    grads = per_example_grads(params, x, y)
    clipped = ember.vmap(optimizers.clip_grads, in_axes=(0, None))(grads, clip_norm)
    leaves, treedef = ember.tree.flatten(clipped)
    keys = random.split(key, len(leaves))
    scale = noise_multiplier * clip_norm / x.shape[0]
    noisy = [g.mean(axis=0) + scale * random.normal(k, g.shape[1:]) for g, k in zip(leaves, keys)]
    return opt_update(i, ember.tree.unflatten(treedef, noisy), opt_state), loss(params, x, y)
  return step


def train(args, step, opt_state, x, y, key):
  """Runs the DP-SGD steps on random minibatches, with a progress bar."""
  with Progress(args.steps) as bar:
    for i in range(args.steps):
      k_batch, k_noise = random.split(random.fold_in(key, i))
      idx = random.randint(k_batch, (args.batch_size,), 0, x.shape[0])
      opt_state, value = step(i, opt_state, x[idx], y[idx], k_noise)
      bar.advance(minibatch_loss=float(value))
  return opt_state


def main(args):
  k_data, k_init, k_train = random.split(random.key(args.seed), 3)
  x, y = make_data(k_data, 1024, 16)
  params = init_params(k_init, 16, 32)
  check_against_loop(params, x[:args.batch_size], y[:args.batch_size])

  opt_init, opt_update, get_params = optimizers.sgd(args.learning_rate)
  step = make_dp_step(opt_update, get_params, args.clip_norm, args.noise_multiplier)
  full_loss = ember.jit(loss)
  print(f"initial loss: {float(full_loss(params, x, y)):.4f}")
  params = get_params(train(args, step, opt_init(params), x, y, k_train))
  accuracy = float(jnp.mean((logits(params, x) > 0) == (y > 0.5)))
  print(f"final loss: {float(full_loss(params, x, y)):.4f}")
  print(f"training accuracy: {100 * accuracy:.1f} %")


if __name__ == "__main__":
  main(ARGS)
