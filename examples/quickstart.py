"""ember's quickstart: the same NumPy-style function run eagerly and compiled with jit.

    python examples/quickstart.py
    python examples/quickstart.py --size 3000      # a bigger array

It times one small elementwise function, sin(cos(x)) * tanh(x) on a square float32 array, in
NumPy, in ember op by op, and in ember under jit; checks that the three agree; prints the jaxpr
that jit compiles; and says what the timings do and do not show.
"""
import flags


def parse_args(argv=None):
  p = flags.parser(__doc__)
  p.add_argument("--size", type=flags.positive_int, default=1000,
                 help="side of the square input array")
  p.add_argument("--repeat", type=flags.positive_int, default=7,
                 help="timing runs of 10 calls each; the fastest run is reported")
  return p.parse_args(argv)


if __name__ == "__main__":
  ARGS = parse_args()  # first, so --help and bad flags answer before ember is imported

import os
import time

import numpy as np

import ember
import ember.numpy as jnp


def jnp_function(x):
  return jnp.sin(jnp.cos(x)) * jnp.tanh(x)


def np_function(x):
  return np.sin(np.cos(x)) * np.tanh(x)


def best_of(fn, repeat, number=10):
  """Seconds per call of ``fn``, the fastest of ``repeat`` runs of ``number`` calls."""
  times = []
  for _ in range(repeat):
    t0 = time.perf_counter()
    for _ in range(number):
      fn()
    times.append((time.perf_counter() - t0) / number)
  return min(times)


def explain(size):
  """What the timings above measure, and where ember (XLA) is the faster way."""
  cores = os.cpu_count()
  print(f"""
What these numbers are: wall-clock times of one small elementwise function on a {size}x{size}
float32 array, on this machine's CPU ({cores} core(s)). NumPy runs four C loops (cos, sin, tanh,
multiply), each writing a temporary array; eager ember runs each of those four operations as its
own small compiled XLA program; ember's jit hands the whole function to XLA, which fuses it into
one loop of XLA's CPU code. In a program this small there is little for jit to remove: all three
spend their time in sin, cos and tanh routines over the same memory, so they land close together,
and which is fastest depends on the machine, the array size and whatever else is running. The
first jit call paid once for tracing and compiling; later calls reuse the compiled program.
Where ember and XLA pay off: larger programs (many operations fused into few loops, without
temporaries or Python in between), gradients (ember.grad) and batching (ember.vmap), which NumPy
does not offer, and GPUs and TPUs, where the same code runs unchanged.""")


def main(args):
  jit_function = ember.jit(jnp_function)
  x_np = np.ones((args.size, args.size), dtype=np.float32)
  x = jnp.ones((args.size, args.size))

  eager = jnp_function(x).block_until_ready()
  t0 = time.perf_counter()
  compiled = jit_function(x).block_until_ready()  # the first call traces and compiles
  t_first = time.perf_counter() - t0

  t_numpy = best_of(lambda: np_function(x_np), args.repeat)
  t_eager = best_of(lambda: jnp_function(x).block_until_ready(), args.repeat)
  t_jit = best_of(lambda: jit_function(x).block_until_ready(), args.repeat)
  print(f"ember {ember.__version__} on {ember.default_backend()} "
        f"({ember.device_count()} device(s))")
  print(f"numpy                 : {t_numpy * 1e3:8.3f} ms per call")
  print(f"ember eager           : {t_eager * 1e3:8.3f} ms per call")
  print(f"ember jit, first call : {t_first * 1e3:8.3f} ms (trace + compile, or the disk cache)")
  print(f"ember jit, later calls: {t_jit * 1e3:8.3f} ms per call")
  agree = np.allclose(np.asarray(eager), np.asarray(compiled), atol=1e-6)
  agree_np = np.allclose(np.asarray(compiled), np_function(x_np), atol=1e-6)
  print(f"eager and jit results agree: {agree}; and agree with NumPy: {agree_np}")
  explain(args.size)
  print("\nThe jaxpr that jit traced and compiled:")
  print(ember.make_jaxpr(jnp_function)(x))
  if not (agree and agree_np):
    raise SystemExit(1)


if __name__ == "__main__":
  main(ARGS)
