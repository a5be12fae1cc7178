"""Host callbacks: debug.print and debug.callback eagerly, under jit, vmap (once per example),
grad (primal values), scan and cond; pure_callback's results, its vmap methods and its refusal
to be differentiated; io_callback. What a user sees includes what they print."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
io_callback = submodule("experimental").io_callback


def _show(x):
  jax.debug.print("x = {}", x)
  jax.debug.print("sum {s} and {t}", s=x.sum(), t=x * 2)
  return jnp.sin(x)


@program
def debug_print_eager_jit_vmap_grad():
  x = jnp.arange(3.0)
  _show(x)
  a = jax.jit(_show)(x).block_until_ready()
  b = jax.vmap(_show)(x).block_until_ready()
  g = jax.grad(lambda v: _show(v).sum())(x)
  return a, b, g


@program
def debug_print_in_scan_and_cond():
  def step(c, t):
    jax.debug.print("step {} {}", c, t)
    return c + t, c

  total, cs = lax.scan(step, 0.0, jnp.arange(3.0))

  def positive(v):
    jax.debug.print("cond {}", v)
    return v

  return total, cs, jax.jit(lambda x: lax.cond(x > 0, positive, lambda v: -v, x))(2.0)


@program
def debug_callback_sees_numpy_values():
  seen = []

  def look(x):
    jax.debug.callback(lambda v: seen.append((str(v.dtype), v.shape)), x)
    return x

  jax.block_until_ready(jax.jit(look)(jnp.ones((2, 2))))
  return seen


@program
def pure_callback_results_and_vmap_methods():
  x = jnp.arange(3.0)
  s = jax.ShapeDtypeStruct
  a = jax.jit(lambda v: jax.pure_callback(np.cumsum, s((3,), jnp.float32), v))(x)
  b = jax.vmap(lambda v: jax.pure_callback(lambda u: u * 2, s((), jnp.float32), v,
                                           vmap_method="sequential"))(x)
  c = jax.vmap(lambda v: jax.pure_callback(lambda u: u * 3, s((), jnp.float32), v,
                                           vmap_method="expand_dims"))(x)
  d = jax.pure_callback(lambda u: (u.astype(np.int32), u + 1),
                        (s((3,), jnp.int32), s((3,), jnp.float32)), x)
  return a, b, c, d


@program
def pure_callback_is_not_differentiable():
  return jax.grad(lambda x: jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32),
                                              x))(1.0)


@program
def io_callback_under_jit():
  calls = []

  def log(v):
    calls.append(float(v))
    return np.float32(len(calls))

  f = jax.jit(lambda x: io_callback(log, jax.ShapeDtypeStruct((), jnp.float32), x) * 10)
  return f(2.0), f(3.0), calls
