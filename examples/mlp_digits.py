"""Train a multilayer perceptron on scikit-learn's bundled digits (8x8 images, no download).

    python examples/mlp_digits.py                      # about 98 % test accuracy
    python examples/mlp_digits.py --steps 20 --plot curves.png

The parameters are a pytree (a list of dicts), the model and loss are pure functions, the
optimizer is Adam from ``ember.example_libraries.optimizers``, and one jit-compiled step draws a
minibatch, takes the gradient and updates the optimizer state.
"""
import flags


def parse_args(argv=None):
  p = flags.parser(__doc__, steps=1500)
  p.add_argument("--batch-size", type=flags.positive_int, default=128,
                 help="images in each minibatch")
  p.add_argument("--learning-rate", type=flags.positive_float, default=1e-3,
                 help="Adam's step size")
  p.add_argument("--eval-every", type=flags.positive_int, default=100,
                 help="steps between measurements of train and test accuracy")
  flags.add_plot(p, "the loss and accuracy curves")
  args = p.parse_args(argv)
  flags.require(p, "sklearn", "scikit-learn")
  return args


if __name__ == "__main__":
  ARGS = parse_args()  # first, so --help and bad flags answer before the slow imports below

import numpy as np
from progress import Progress
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import ember
import ember.numpy as jnp
from ember import random
from ember.example_libraries import optimizers


def init_mlp(key, sizes):
  """He-normal weights and zero biases for layers of the given widths."""
  keys = random.split(key, len(sizes) - 1)
  return [{"w": random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), "b": jnp.zeros(n)}
          for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def predict(params, x):
  """Log-probabilities of the ten classes for a batch of flattened images."""
  for layer in params[:-1]:
    x = jnp.maximum(x @ layer["w"] + layer["b"], 0.0)
  logits = x @ params[-1]["w"] + params[-1]["b"]
  shifted = logits - logits.max(axis=-1, keepdims=True)
  return shifted - jnp.log(jnp.exp(shifted).sum(axis=-1, keepdims=True))


def loss(params, x, y):
  """Mean cross-entropy of the labels ``y``."""
  return -jnp.take_along_axis(predict(params, x), y[:, None], axis=1).mean()


@ember.jit
def accuracy(params, x, y):
  return (predict(params, x).argmax(axis=-1) == y).mean()


def evaluate(step, params, x_train, y_train, x_test, y_test):
  """(step, train accuracy, test accuracy), for the plot."""
  return step, float(accuracy(params, x_train, y_train)), float(accuracy(params, x_test, y_test))


def make_step(opt_update, get_params, x_train, y_train, batch_size):
  """The jit-compiled training step: sample a minibatch, differentiate, update."""
  @ember.jit
  def step(i, opt_state, key):
    idx = random.randint(key, (batch_size,), 0, x_train.shape[0])
    value, grads = ember.value_and_grad(loss)(get_params(opt_state), x_train[idx], y_train[idx])
    return opt_update(i, grads, opt_state), value
  return step


def load_data(seed):
  digits = load_digits()
  x = (digits.data / 16.0).astype(np.float32)
  x_tr, x_te, y_tr, y_te = train_test_split(x, digits.target.astype(np.int32), test_size=0.25,
                                            random_state=seed, stratify=digits.target)
  return tuple(jnp.asarray(a) for a in (x_tr, y_tr, x_te, y_te))


def save_plot(path, losses, evals):
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
  ax_loss.plot(np.arange(len(losses)), losses, lw=0.8)
  ax_loss.set(xlabel="step", ylabel="minibatch loss", yscale="log", title="training loss")
  steps, train_acc, test_acc = np.array(evals).T
  ax_acc.plot(steps, train_acc, ".-", label="train")
  ax_acc.plot(steps, test_acc, ".-", label="test")
  ax_acc.set(xlabel="step", ylabel="accuracy", title="accuracy", ylim=(0, 1))
  ax_acc.legend()
  fig.tight_layout()
  fig.savefig(path)
  print(f"saved the plot to {path}")


def train(args, step, get_params, opt_state, key, data):
  """Runs the steps; returns the final optimizer state, the minibatch losses and the evaluations
  ``(step, train accuracy, test accuracy)``."""
  losses, evals = [], [evaluate(0, get_params(opt_state), *data)]
  with Progress(args.steps) as bar:
    for i in range(args.steps):
      opt_state, value = step(i, opt_state, random.fold_in(key, i))
      losses.append(float(value))
      if (i + 1) % args.eval_every == 0 or i + 1 == args.steps:
        evals.append(evaluate(i + 1, get_params(opt_state), *data))
      bar.advance(loss=losses[-1], test_acc=f"{evals[-1][2]:.3f} (at step {evals[-1][0]})")
  return opt_state, losses, evals


def main(args):
  x_train, y_train, x_test, y_test = load_data(args.seed)
  key, init_key = random.split(random.key(args.seed))
  opt_init, opt_update, get_params = optimizers.adam(args.learning_rate)
  opt_state = opt_init(init_mlp(init_key, [64, 128, 128, 10]))
  step = make_step(opt_update, get_params, x_train, y_train, args.batch_size)
  full_loss = ember.jit(loss)

  print(f"initial loss: {float(full_loss(get_params(opt_state), x_train, y_train)):.4f}")
  data = (x_train, y_train, x_test, y_test)
  opt_state, losses, evals = train(args, step, get_params, opt_state, key, data)
  params = get_params(opt_state)
  print(f"final loss: {float(full_loss(params, x_train, y_train)):.4f}")
  print(f"train accuracy: {100 * evals[-1][1]:.2f} %")
  print(f"test accuracy: {100 * evals[-1][2]:.2f} %")
  if args.plot:
    save_plot(args.plot, np.array(losses), evals)


if __name__ == "__main__":
  main(ARGS)
