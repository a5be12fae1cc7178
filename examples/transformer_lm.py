"""A small character-level transformer trained on the Zen of Python, which ships with Python.

    python examples/transformer_lm.py                 # a few hundred steps, then a sample
    python examples/transformer_lm.py --steps 20 --sample-length 80
    python examples/transformer_lm.py --plot loss.png   # the loss curve

Everything is a pure function over a pytree of parameters: token and position embeddings,
pre-norm blocks of causal multi-head self-attention (written with ``einsum``) and a GELU MLP,
layer norm, and Adam from ``ember.example_libraries.optimizers``. One jit-compiled step draws
random windows of the text, takes the gradient of the next-character cross-entropy and updates.
"""
import codecs
import contextlib
import io

import flags


def zen_of_python():
  with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints it
    import this
  return codecs.decode(this.s, "rot13")


def parse_args(argv=None):
  p = flags.parser(__doc__, steps=400)
  p.add_argument("--batch-size", type=flags.positive_int, default=32,
                 help="text windows in each minibatch")
  p.add_argument("--context", type=flags.positive_int, default=64,
                 help="characters the model sees before the one it predicts")
  p.add_argument("--depth", type=flags.positive_int, default=2, help="transformer blocks")
  p.add_argument("--width", type=flags.positive_int, default=64,
                 help="model width, a multiple of --heads")
  p.add_argument("--heads", type=flags.positive_int, default=4, help="attention heads")
  p.add_argument("--learning-rate", type=flags.positive_float, default=3e-3,
                 help="Adam's step size")
  p.add_argument("--sample-length", type=flags.positive_int, default=200,
                 help="characters to generate after training")
  p.add_argument("--temperature", type=flags.positive_float, default=0.5,
                 help="sampling temperature: lower is more conservative")
  flags.add_plot(p, "the training loss curve")
  args = p.parse_args(argv)
  text_length = len(zen_of_python())
  if args.context >= text_length:
    p.error(f"argument --context: must be shorter than the text ({text_length} characters), "
            f"got {args.context}")
  if args.width % args.heads:
    p.error(f"argument --width: must be a multiple of --heads ({args.heads}), got {args.width}")
  return args


if __name__ == "__main__":
  ARGS = parse_args()  # first, so --help and bad flags answer before the slow imports below

import numpy as np
from progress import Progress

import ember
import ember.numpy as jnp
from ember import random
from ember.example_libraries import optimizers


# --- the model ----------------------------------------------------------------------------------

def init_params(key, vocab, context, width, depth, heads):
  """Normal(0, 0.02) weights, unit layer-norm scales, zero biases."""
  head = width // heads
  keys = iter(random.split(key, 3 + 4 * depth))

  def normal(*shape):
    return 0.02 * random.normal(next(keys), shape)

  def block():
    return {"ln1": layer_norm_params(width), "ln2": layer_norm_params(width),
            "qkv": normal(3, width, heads, head), "proj": normal(heads, head, width),
            "mlp_in": {"w": normal(width, 4 * width), "b": jnp.zeros(4 * width)},
            "mlp_out": {"w": normal(4 * width, width), "b": jnp.zeros(width)}}
  return {"embed": normal(vocab, width), "pos": normal(context, width),
          "blocks": [block() for _ in range(depth)], "ln_f": layer_norm_params(width),
          "unembed": normal(width, vocab)}


def layer_norm_params(width):
  return {"scale": jnp.ones(width), "bias": jnp.zeros(width)}


def layer_norm(p, x, eps=1e-5):
  mean = x.mean(axis=-1, keepdims=True)
  var = jnp.square(x - mean).mean(axis=-1, keepdims=True)
  return (x - mean) / jnp.sqrt(var + eps) * p["scale"] + p["bias"]


def gelu(x):
  return 0.5 * x * (1 + jnp.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def log_softmax(x):
  shifted = x - x.max(axis=-1, keepdims=True)
  return shifted - jnp.log(jnp.exp(shifted).sum(axis=-1, keepdims=True))


def attention(p, x):
  """Causal multi-head self-attention of ``x`` (batch, time, width)."""
  q, k, v = jnp.einsum("btw,cwhd->cbthd", x, p["qkv"])
  scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
  t = x.shape[1]
  causal = jnp.tril(jnp.ones((t, t), dtype=bool))
  weights = jnp.exp(log_softmax(jnp.where(causal, scores, -1e9)))
  return jnp.einsum("bhqk,bkhd,hdw->bqw", weights, v, p["proj"])


def mlp(p, x):
  h = gelu(x @ p["mlp_in"]["w"] + p["mlp_in"]["b"])
  return h @ p["mlp_out"]["w"] + p["mlp_out"]["b"]


def forward(params, tokens):
  """Next-character logits (batch, time, vocab) for integer ``tokens`` (batch, time)."""
  x = params["embed"][tokens] + params["pos"][:tokens.shape[1]]
  for p in params["blocks"]:
    x = x + attention(p, layer_norm(p["ln1"], x))
    x = x + mlp(p, layer_norm(p["ln2"], x))
  return layer_norm(params["ln_f"], x) @ params["unembed"]


def loss(params, windows):
  """Mean cross-entropy of each character of ``windows`` given the ones before it."""
  logp = log_softmax(forward(params, windows[:, :-1]))
  return -jnp.take_along_axis(logp, windows[:, 1:, None], axis=-1).mean()


# --- training and sampling ----------------------------------------------------------------------

def sample_windows(key, data, batch, length):
  starts = random.randint(key, (batch, 1), 0, data.shape[0] - length)
  return data[starts + jnp.arange(length)]


def make_step(opt_update, get_params, data, batch, context):
  @ember.jit
  def step(i, opt_state, key):
    windows = sample_windows(key, data, batch, context + 1)
    value, grads = ember.value_and_grad(loss)(get_params(opt_state), windows)
    return opt_update(i, grads, opt_state), value
  return step


@ember.jit
def next_token(params, window, position, key, temperature):
  """Samples the character after ``window[position]`` (``window`` right-padded to context)."""
  logits = forward(params, window[None])[0, position]
  return random.categorical(key, logits / temperature)


def generate(params, key, prompt, length, context, temperature):
  tokens = list(prompt)
  for i in range(length):
    window = tokens[-context:]
    padded = jnp.array(window + [0] * (context - len(window)), dtype=jnp.int32)
    tokens.append(int(next_token(params, padded, len(window) - 1, random.fold_in(key, i),
                                 temperature)))
  return tokens


def train(args, step, opt_state, key):
  """Runs the steps with a progress bar; returns the final optimizer state and the losses."""
  losses = []
  with Progress(args.steps) as bar:
    for i in range(args.steps):
      opt_state, value = step(i, opt_state, random.fold_in(key, i))
      losses.append(float(value))
      bar.advance(loss=losses[-1])
  return opt_state, losses


def save_plot(path, losses):
  """The minibatch loss of every step, and its running mean over 20 steps."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, ax = plt.subplots(figsize=(6, 4))
  ax.plot(np.arange(1, len(losses) + 1), losses, lw=0.6, alpha=0.5, label="minibatch loss")
  window = min(20, len(losses))
  smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
  ax.plot(np.arange(window, len(losses) + 1), smooth, lw=1.5,
          label=f"mean of the last {window} steps")
  ax.set(xlabel="step", ylabel="cross-entropy (nats per character)", title="training loss")
  ax.legend()
  fig.tight_layout()
  fig.savefig(path)
  print(f"saved the plot to {path}")


def main(args):
  text = zen_of_python()
  chars = sorted(set(text))
  data = jnp.array([chars.index(c) for c in text], dtype=jnp.int32)
  print(f"text: {len(text)} characters, {len(chars)} distinct")

  k_init, k_train, k_eval, k_sample = random.split(random.key(args.seed), 4)
  params = init_params(k_init, len(chars), args.context, args.width, args.depth, args.heads)
  n_params = sum(x.size for x in ember.tree.leaves(params))
  print(f"model: {n_params} parameters")
  opt_init, opt_update, get_params = optimizers.adam(args.learning_rate)
  step = make_step(opt_update, get_params, data, args.batch_size, args.context)
  eval_windows = sample_windows(k_eval, data, 64, args.context + 1)
  eval_loss = ember.jit(loss)

  print(f"initial loss: {float(eval_loss(params, eval_windows)):.4f}")
  opt_state, losses = train(args, step, opt_init(params), k_train)
  params = get_params(opt_state)
  print(f"final loss: {float(eval_loss(params, eval_windows)):.4f}")
  prompt = [chars.index(c) for c in "Beautiful is"]
  sample = generate(params, k_sample, prompt, args.sample_length, args.context, args.temperature)
  print("sample:\n" + "".join(chars[t] for t in sample))
  if args.plot:
    save_plot(args.plot, np.array(losses))


if __name__ == "__main__":
  main(ARGS)
