"""ember's quickstart: the same NumPy-style function run eagerly and compiled with jit.

    python examples/quickstart.py
"""
import time

import numpy as np

import ember
import ember.numpy as jnp


def jnp_function(x):
  return jnp.sin(jnp.cos(x)) * jnp.tanh(x)


def np_function(x):
  return np.sin(np.cos(x)) * np.tanh(x)


def best_of(fn, repeat=7, number=10):
  times = []
  for _ in range(repeat):
    t0 = time.perf_counter()
    for _ in range(number):
      fn()
    times.append((time.perf_counter() - t0) / number)
  return min(times)


def main():
  jit_function = ember.jit(jnp_function)
  x_np = np.ones((1000, 1000), dtype=np.float32)
  x = jnp.ones((1000, 1000))

  eager = jnp_function(x).block_until_ready()
  compiled = jit_function(x).block_until_ready()  # first call traces and compiles

  t_numpy = best_of(lambda: np_function(x_np))
  t_eager = best_of(lambda: jnp_function(x).block_until_ready())
  t_jit = best_of(lambda: jit_function(x).block_until_ready())
  print(f"ember {ember.__version__} on {ember.default_backend()} ({ember.device_count()} device(s))")
  print(f"numpy             : {t_numpy * 1e3:8.3f} ms per call")
  print(f"ember eager       : {t_eager * 1e3:8.3f} ms per call")
  print(f"ember jit (cached): {t_jit * 1e3:8.3f} ms per call")
  agree = np.allclose(np.asarray(eager), np.asarray(compiled), atol=1e-6)
  agree_np = np.allclose(np.asarray(compiled), np_function(x_np), atol=1e-6)
  print(f"eager and jit results agree: {agree}; and agree with NumPy: {agree_np}")
  print(ember.make_jaxpr(jnp_function)(x))
  if not (agree and agree_np):
    raise SystemExit(1)


if __name__ == "__main__":
  main()
