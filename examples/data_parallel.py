"""Data-parallel training with shard_map: one MLP step per device on its slice of the batch,
the loss averaged across devices with pmean.

    python examples/data_parallel.py --steps 200 --devices 8
    python examples/data_parallel.py --plot losses.png   # each device's loss, step by step

The batch is split over a 1-d mesh axis "batch"; parameters are replicated. Each device
differentiates the mean (``lax.pmean``) of all devices' losses. As in JAX, the replicated
parameters meet the sharded batch through a ``pvary`` whose transpose sums cotangents over the
devices, so every device gets the whole batch's gradient and applies the same update. The first
step is checked against the same step computed on one device. Each device also reports the loss
of its own slice, which is what ``--plot`` draws.
"""
import os
import sys

import flags


def parse_args(argv=None):
  p = flags.parser(__doc__, steps=300)
  p.add_argument("--devices", type=flags.positive_int, default=8, help="CPU devices in the mesh")
  p.add_argument("--batch", type=flags.positive_int, default=256,
                 help="global batch size, a multiple of --devices")
  p.add_argument("--lr", type=flags.positive_float, default=0.1, help="SGD's learning rate")
  flags.add_plot(p, "each device's loss curve")
  args = p.parse_args(argv)
  if args.batch % args.devices:
    p.error(f"argument --batch: must be a multiple of --devices ({args.devices}), got "
            f"{args.batch}")
  return args


def main(argv=None):
  args = parse_args(argv)
  # The CPU device count must be set before ember starts its backend.
  os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                             f" --xla_force_host_platform_device_count={args.devices}")
  import numpy as np
  from progress import Progress

  import ember
  import ember.numpy as jnp
  from ember import lax
  from ember.sharding import PartitionSpec as P

  if ember.device_count() < args.devices:
    sys.exit(f"error: {args.devices} devices requested but ember's backend already has "
             f"{ember.device_count()}")
  mesh = ember.make_mesh((args.devices,), ("batch",))

  # A synthetic classification task: 3 classes of Gaussian blobs in 2-d.
  rng = np.random.RandomState(args.seed)
  centers = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]], np.float32)
  labels = rng.randint(0, 3, 4096)
  points = (centers[labels] + rng.randn(4096, 2)).astype(np.float32)

  def forward(params, x):
    for layer in params[:-1]:
      x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]

  def init(key, sizes=(2, 32, 32, 3)):
    keys = ember.random.split(key, len(sizes) - 1)
    return [{"w": ember.random.normal(k, (m, n)) / np.sqrt(m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

  def loss(params, x, y):
    logits = forward(params, x)
    logp = logits - jnp.log(jnp.sum(jnp.exp(logits), axis=1, keepdims=True))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

  def sgd(params, grads):
    return ember.tree.map(lambda p, g: p - args.lr * g, params, grads)

  def global_loss(params, x, y):
    """The whole batch's mean loss (the same on every device), and this device's own."""
    local = loss(params, x, y)
    return lax.pmean(local, "batch"), local

  def device_step(params, x, y):
    (value, local), grads = ember.value_and_grad(global_loss, has_aux=True)(params, x, y)
    return sgd(params, grads), value, local[None]

  step = ember.jit(ember.shard_map(device_step, mesh=mesh,
                                   in_specs=(P(), P("batch"), P("batch")),
                                   out_specs=(P(), P(), P("batch"))))
  single_step = ember.jit(lambda p, x, y: sgd(p, ember.grad(loss)(p, x, y)))

  params = init(ember.random.key(args.seed))
  losses, device_losses = [], []
  with Progress(args.steps) as bar:
    for i in range(args.steps):
      idx = rng.randint(0, len(points), args.batch)
      x, y = jnp.asarray(points[idx]), jnp.asarray(labels[idx].astype(np.int32))
      new_params, value, local = step(params, x, y)
      if i == 0:
        ref = single_step(params, x, y)
        diff = max(float(jnp.max(jnp.abs(a - b))) for a, b in
                   zip(ember.tree.leaves(new_params), ember.tree.leaves(ref)))
        bar.write(f"first step: max |sharded - single-device| = {diff:.2e}")
        assert diff < 1e-5, diff
      params = new_params
      losses.append(float(value))
      device_losses.append(np.asarray(local))
      bar.advance(loss=losses[-1], device_min=float(device_losses[-1].min()),
                  device_max=float(device_losses[-1].max()))
  accuracy = float(jnp.mean(jnp.argmax(forward(params, jnp.asarray(points)), axis=1) ==
                            jnp.asarray(labels)))
  print(f"devices: {args.devices}, global batch: {args.batch}, "
        f"per device: {args.batch // args.devices}")
  print(f"initial loss: {losses[0]:.4f}")
  print(f"final loss: {losses[-1]:.4f}")
  print(f"train accuracy: {accuracy:.3f}")
  if args.plot:
    save_plot(args.plot, np.array(losses), np.array(device_losses))
  return losses


def save_plot(path, losses, device_losses):
  """Each device's loss on its slice of the batch, and the pmean'd loss they all step on."""
  import matplotlib
  import numpy as np
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, ax = plt.subplots(figsize=(7, 4))
  steps = np.arange(1, len(losses) + 1)
  for d in range(device_losses.shape[1]):
    ax.plot(steps, device_losses[:, d], lw=0.6, alpha=0.6, label=f"device {d}")
  ax.plot(steps, losses, "k", lw=1.5, label="mean over devices (pmean)")
  ax.set(xlabel="step", ylabel="cross-entropy", yscale="log", title="loss per device")
  ax.legend(fontsize="small", ncol=2)
  fig.tight_layout()
  fig.savefig(path)
  print(f"saved the plot to {path}")


if __name__ == "__main__":
  main()
