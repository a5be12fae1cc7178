"""Control flow under autodiff and batching: scan with pytree carries, cond / switch with
operands, while_loop forward-only and its reverse-mode error, fori_loop with static and dynamic
trip counts, lax.map, associative_scan, and the printed jaxprs of their bodies."""
from functools import partial

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


# --- scan -------------------------------------------------------------------------------------

def _rnn_step(params, h, x):
  h = jnp.tanh(params["wh"] * h + params["wx"] * x + params["b"])
  return h, h * params["wo"]


def _rnn_loss(params, xs):
  h0 = jnp.zeros(2)
  _, ys = lax.scan(lambda h, x: _rnn_step(params, h, x), h0, xs)
  return jnp.sum((ys - 0.5) ** 2)


def _rnn_params():
  return {"wh": jnp.array([0.5, -0.3]), "wx": jnp.array([1.0, 0.2]), "b": jnp.array([0.0, 0.1]),
          "wo": jnp.array([1.5, -1.0])}


@program
def grad_rnn_scan_over_time():
  xs = jnp.array([[1.0, 0.0], [0.5, -0.5], [0.0, 1.0]])
  return jax.value_and_grad(_rnn_loss)(_rnn_params(), xs)


@program
def grad_scan_pytree_carry():
  def body(carry, x):
    pos, vel = carry["pos"], carry["vel"]
    vel = vel - 0.1 * pos * x
    return {"pos": pos + 0.1 * vel, "vel": vel}, pos

  def f(init, xs):
    final, traj = lax.scan(body, init, xs)
    return final["pos"] + jnp.sum(traj)

  init = {"pos": 1.0, "vel": 0.0}
  return jax.grad(f)(init, jnp.ones(4)), jax.grad(f, argnums=1)(init, jnp.array([1.0, 2.0, 0.0, 1.0]))


@program
def scan_reverse_length_and_unroll():
  f = lambda c, x: (c * 0.5 + x, c)
  xs = jnp.arange(4.0)
  a = lax.scan(f, 1.0, xs, reverse=True)
  b = lax.scan(lambda c, _: (c + 1, c * 2), 0, None, length=3)
  c = lax.scan(f, 1.0, xs, unroll=2)
  g = jax.grad(lambda xs: lax.scan(f, 1.0, xs, reverse=True, unroll=2)[0])(xs)
  return a, b, c, g


@program
def scan_weak_int_carry_promoted_to_float():
  return lax.scan(lambda c, x: (c + x, None), 0, jnp.array([1.0, 2.0]))


@program
def scan_carry_weak_type_kept():
  out, ys = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.array([1.0, 2.0]))
  return out, ys


@program
def scan_under_vmap_and_jit():
  f = lambda c0, xs: lax.scan(lambda c, x: (c * x, c + x), c0, xs)
  g = jax.jit(jax.vmap(f, in_axes=(0, None)))
  return g(jnp.array([1.0, 2.0]), jnp.array([0.5, 2.0, -1.0]))


@program
def jacfwd_and_jacrev_through_scan():
  f = lambda xs: lax.scan(lambda c, x: (jnp.sin(c + x), c * x), 0.1, xs)[1]
  xs = jnp.array([0.2, 0.4, 0.6])
  return jax.jacfwd(f)(xs), jax.jacrev(f)(xs)


@program
def make_jaxpr_of_scan():
  f = lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
  return str(jax.make_jaxpr(f)(jnp.ones(3)))


@program
def make_jaxpr_of_grad_of_scan():
  f = lambda xs: lax.scan(lambda c, x: (c * jnp.sin(x), None), 1.0, xs)[0]
  return str(jax.make_jaxpr(jax.grad(f))(jnp.ones(3)))


@program
def checkpoint_inside_scan_body():
  body = jax.checkpoint(lambda c, x: (jnp.tanh(c * x + 1.0), c))
  f = lambda xs: lax.scan(body, 0.5, xs)[0]
  g = lambda xs: lax.scan(lambda c, x: (jnp.tanh(c * x + 1.0), c), 0.5, xs)[0]
  xs = jnp.array([1.0, -0.5, 2.0])
  return jax.grad(f)(xs), jax.grad(g)(xs)


# --- cond and switch --------------------------------------------------------------------------

@program
def grad_through_cond_with_operands():
  def f(x, y):
    return lax.cond(x > 0, lambda x, y: x * y, lambda x, y: jnp.sin(x) + y, x, y)
  return (jax.grad(f, argnums=(0, 1))(2.0, 3.0), jax.grad(f, argnums=(0, 1))(-1.0, 3.0),
          jax.jit(jax.grad(f))(0.0, 1.0))


@program
def cond_under_vmap_becomes_select():
  f = lambda p, x: lax.cond(p, lambda x: x * 2.0, lambda x: -x, x)
  return (jax.vmap(f)(jnp.array([True, False, True]), jnp.array([1.0, 2.0, 3.0])),
          str(jax.make_jaxpr(jax.vmap(f))(jnp.array([True, False]), jnp.ones(2))))


@program
def cond_pytree_operand_and_output():
  def f(pred, d):
    return lax.cond(pred, lambda d: {"a": d["a"] + 1, "b": d["b"]},
                    lambda d: {"a": d["a"], "b": d["b"] * 2}, d)
  d = {"a": jnp.array([1, 2]), "b": 0.5}
  return f(True, d), f(False, d), jax.grad(lambda b: f(False, {"a": d["a"], "b": b})["b"])(0.5)


@program
def cond_branch_output_mismatch_error():
  return lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)


@program
def cond_weak_type_branches():
  out = lax.cond(True, lambda: 1.0, lambda: jnp.float32(2.0))
  out2 = lax.cond(False, lambda x: x, lambda x: x + 1, 1.0)
  return out, out2


@program
def switch_index_clamped_and_grad():
  branches = [lambda x: x, lambda x: x ** 2, lambda x: jnp.sin(x)]
  f = lambda i, x: lax.switch(i, branches, x)
  return (f(0, 2.0), f(5, 2.0), f(-3, 2.0), jax.grad(f, argnums=1)(1, 3.0),
          jax.vmap(f, (0, None))(jnp.array([0, 1, 2]), 2.0))


@program
def make_jaxpr_of_cond():
  f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)
  return str(jax.make_jaxpr(f)(True, 1.0))


@program
def make_jaxpr_of_grad_of_cond():
  f = lambda x: lax.cond(x > 1.0, lambda x: x ** 2, lambda x: 3.0 * x, x)
  return str(jax.make_jaxpr(jax.grad(f))(2.0))


@program
def jnp_where_vs_cond_gradient():
  x = jnp.array([-1.0, 0.0, 2.0])
  f_where = lambda x: jnp.sum(jnp.where(x > 0, x ** 2, -x))
  f_cond = lambda x: jnp.sum(jax.vmap(lambda v: lax.cond(v > 0, lambda v: v ** 2, lambda v: -v, v))(x))
  return jax.grad(f_where)(x), jax.grad(f_cond)(x)


# --- while_loop and fori_loop -----------------------------------------------------------------

@program
def while_loop_forward_and_jvp():
  def f(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
  return f(1.5), jax.jvp(f, (1.5,), (1.0,)), jax.jacfwd(f)(2.0)


@program
def while_loop_reverse_mode_error():
  def f(x):
    return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
  return jax.grad(f)(1.0)


@program
def while_loop_under_vmap_different_trip_counts():
  f = lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2), (0, 1))
  return jax.vmap(f)(jnp.array([0, 1, 3]))


@program
def while_loop_cond_not_bool_scalar_error():
  return lax.while_loop(lambda c: c, lambda c: c - 1.0, jnp.array([1.0, 2.0]))


@program
def fori_loop_static_trip_count_grad():
  def f(x):
    return lax.fori_loop(0, 4, lambda i, c: c * x + i, 1.0)
  return f(2.0), jax.grad(f)(2.0), jax.jit(jax.grad(f))(0.5)


@program
def fori_loop_concrete_array_trip_count_grad():
  def f(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * x, 1.0)
  return jax.grad(f)(2.0, jnp.array(3))


@program
def fori_loop_traced_trip_count_grad_error():
  def f(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * x, 1.0)
  return jax.grad(jax.jit(f))(2.0, 3)


@program
def fori_loop_traced_trip_count_forward_ok():
  f = jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x + i, 1.0))
  return f(2.0, 3), jax.jvp(lambda x: f(x, 3), (2.0,), (1.0,))


@program
def fori_loop_pytree_carry_and_jaxpr():
  def f(x):
    return lax.fori_loop(0, 3, lambda i, c: (c[0] + c[1] * i, c[1] * x), (0.0, 1.0))
  return f(2.0), jax.grad(lambda x: f(x)[0])(2.0), str(jax.make_jaxpr(f)(2.0))


@program
def make_jaxpr_of_while_loop():
  f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
  return str(jax.make_jaxpr(f)(1.0))


@program
def make_jaxpr_of_fori_loop_dynamic():
  f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i, x)
  return str(jax.make_jaxpr(f)(3, 1.0))


@program
def while_loop_jit_concretization_in_cond():
  def f(x):
    def cond(c):
      return c < 3 if float(x) > 0 else c < 1
    return lax.while_loop(cond, lambda c: c + 1, 0)
  return jax.jit(f)(1.0)


# --- lax.map, associative_scan, cumulative ops ------------------------------------------------

@program
def lax_map_with_grad_and_batch_size():
  f = lambda x: jnp.sum(lax.map(lambda v: jnp.sin(v) * v, x))
  xs = jnp.array([0.0, 0.5, 1.0, 1.5])
  return (lax.map(lambda v: v ** 2, xs), lax.map(lambda v: v ** 2, xs, batch_size=2),
          jax.grad(f)(xs))


@program
def lax_map_pytree():
  return lax.map(lambda d: {"s": d["a"] + d["b"], "p": d["a"] * d["b"]},
                 {"a": jnp.arange(3.0), "b": jnp.ones(3)})


@program
def associative_scan_cumsum_and_grad():
  xs = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
  f = lambda xs: jnp.sum(lax.associative_scan(jnp.add, xs) ** 2)
  return (lax.associative_scan(jnp.add, xs), lax.associative_scan(jnp.multiply, xs, reverse=True),
          jax.grad(f)(xs))


@program
def associative_scan_pytree_linear_recurrence():
  def combine(a, b):
    return (a[0] * b[0], a[1] * b[0] + b[1])
  decay = jnp.array([0.5, 0.5, 0.5, 0.5])
  inp = jnp.array([1.0, 0.0, 2.0, 0.0])
  out = lax.associative_scan(combine, (decay, inp))
  g = jax.grad(lambda d: jnp.sum(lax.associative_scan(combine, (d, inp))[1]))(decay)
  return out, g


@program
def cumsum_cumprod_grad():
  x = jnp.array([1.0, 2.0, 0.0, 3.0])
  return (jax.grad(lambda x: jnp.sum(jnp.cumsum(x) ** 2))(x),
          jax.grad(lambda x: jnp.sum(jnp.cumprod(x)))(x),
          jax.grad(lambda x: jnp.sum(lax.cummax(x)))(jnp.array([1.0, 3.0, 2.0, 3.0])))


@program
def grad_of_logsumexp_scan_hmm_forward():
  log_trans = jnp.log(jnp.array([[0.9, 0.1], [0.2, 0.8]]))
  def forward(log_emit):
    def body(alpha, e):
      alpha = jax.nn.logsumexp(alpha[:, None] + log_trans, axis=0) + e
      return alpha, None
    alpha, _ = lax.scan(body, jnp.log(jnp.array([0.5, 0.5])), log_emit)
    return jax.nn.logsumexp(alpha)
  emit = jnp.log(jnp.array([[0.7, 0.3], [0.4, 0.6], [0.1, 0.9]]))
  return jax.value_and_grad(forward)(emit)
