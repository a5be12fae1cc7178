"""Compositions of transforms: grad / vmap / jit / checkpoint / jacobians in every order, custom
rules (symbolic zeros, under vmap / jit / scan, nested), per-example gradients, and the printed
jaxprs of the composed functions."""
from functools import partial

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _mlp(params, x):
  h = jnp.tanh(x @ params["w1"] + params["b1"])
  return h @ params["w2"]


def _mlp_params():
  return {"w1": jnp.array([[0.5, -0.25], [0.1, 0.3]]), "b1": jnp.array([0.0, 0.1]),
          "w2": jnp.array([[1.0], [-1.0]])}


def _xent(params, x, label):
  logits = _mlp(params, x)[..., 0] * jnp.array([1.0, -1.0])
  return -jax.nn.log_softmax(logits)[label]


# --- grad, vmap, jit in every order -----------------------------------------------------------

@program
def grad_of_vmap():
  f = lambda w, xs: jnp.sum(jax.vmap(lambda x: jnp.sin(w * x))(xs))
  return jax.grad(f)(0.5, jnp.array([1.0, 2.0, 3.0]))


@program
def vmap_of_grad_per_example():
  params = _mlp_params()
  xs = jnp.array([[1.0, 2.0], [0.5, -1.0], [0.0, 0.0]])
  labels = jnp.array([0, 1, 0])
  per_ex = jax.vmap(jax.grad(_xent), in_axes=(None, 0, 0))(params, xs, labels)
  return per_ex


@program
def jit_of_grad_of_vmap():
  f = lambda w, xs: jnp.mean(jax.vmap(lambda x: (w @ x) ** 2)(xs))
  g = jax.jit(jax.grad(f))
  return g(jnp.array([1.0, -1.0]), jnp.array([[1.0, 2.0], [3.0, 4.0]]))


@program
def vmap_of_jit_of_grad():
  g = jax.vmap(jax.jit(jax.grad(lambda x: jnp.sin(x) * x)))
  return g(jnp.array([0.0, 1.0, 2.0]))


@program
def grad_of_jit_with_static_arg():
  f = jax.jit(lambda x, n: jnp.sum(x ** n), static_argnums=1)
  return jax.grad(f)(jnp.array([1.0, 2.0]), 3), jax.grad(f)(jnp.array([1.0, 2.0]), 2)


@program
def jit_of_vmap_of_grad_value_and_grad():
  f = lambda w, x: jnp.sum((w * x - 1.0) ** 2)
  g = jax.jit(jax.vmap(jax.value_and_grad(f), in_axes=(None, 0)))
  return g(2.0, jnp.array([[1.0, 0.0], [0.5, 0.5]]))


@program
def vmap_in_axes_out_axes_with_grad():
  f = lambda a, b: jnp.sum(a * b)
  g = jax.vmap(jax.grad(f, argnums=(0, 1)), in_axes=(1, None), out_axes=(1, 0))
  return g(jnp.arange(6.0).reshape(2, 3), jnp.array([1.0, -1.0]))


@program
def vmap_of_grad_dict_in_axes():
  f = lambda p, x: jnp.sum(p["a"] * x + p["b"])
  g = jax.vmap(jax.grad(f), in_axes=({"a": 0, "b": None}, 0))
  return g({"a": jnp.ones((2, 3)), "b": 1.0}, jnp.arange(6.0).reshape(2, 3))


@program
def nested_vmap_grad_jacobian_of_batch():
  f = lambda x: jnp.sum(jnp.sin(x) ** 2)
  return jax.vmap(jax.vmap(jax.grad(f)))(jnp.arange(6.0).reshape(2, 3) / 4.0)


@program
def jacrev_of_vmap_and_vmap_of_jacfwd():
  f = lambda x: jnp.tanh(x) * 2.0
  x = jnp.array([[0.1, 0.2], [0.3, 0.4]])
  return jax.jacrev(jax.vmap(f))(x[0]), jax.vmap(jax.jacfwd(f))(x)


@program
def hessian_vector_product_forward_over_reverse():
  f = lambda x: jnp.sum(jnp.exp(x) * x[::-1])
  hvp = lambda x, v: jax.jvp(jax.grad(f), (x,), (v,))[1]
  x = jnp.array([0.1, 0.2, 0.3])
  return hvp(x, jnp.array([1.0, 0.0, 0.0])), jax.jit(hvp)(x, jnp.ones(3))


@program
def grad_of_grad_of_jit():
  f = jax.jit(lambda x: x ** 4)
  return jax.grad(jax.grad(f))(2.0), jax.grad(jax.grad(jax.grad(f)))(2.0)


@program
def checkpoint_under_vmap_and_jit():
  f = jax.checkpoint(lambda x: jnp.sin(x) * jnp.cos(x))
  g = jax.jit(jax.vmap(jax.grad(f)))
  return g(jnp.array([0.0, 0.5, 1.0])), jax.vmap(jax.grad(lambda x: jnp.sum(f(x))))(jnp.ones((2, 2)))


@program
def grad_of_vmap_with_axis_name_psum():
  def f(w, xs):
    def per(x):
      return x * w / lax.psum(x, "b")
    return jnp.sum(jax.vmap(per, axis_name="b")(xs) ** 2)
  return jax.grad(f)(2.0, jnp.array([1.0, 2.0, 3.0]))


@program
def vmap_of_grad_with_unbatched_closure():
  w = jnp.array([1.0, 2.0])
  f = lambda x: jnp.dot(w, x) ** 2
  return jax.vmap(jax.grad(f))(jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))


@program
def grad_training_loop_python_for():
  params = _mlp_params()
  x = jnp.array([1.0, -1.0])

  @jax.jit
  def step(p):
    loss, g = jax.value_and_grad(lambda p: _mlp(p, x)[0] ** 2)(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), loss

  losses = []
  for _ in range(3):
    params, loss = step(params)
    losses.append(loss)
  return losses, params["w2"]


@program
def value_and_grad_with_optax_like_adam_update():
  params = {"w": jnp.array([0.5, -0.5]), "b": jnp.array(0.0)}
  m = jax.tree_util.tree_map(jnp.zeros_like, params)
  v = jax.tree_util.tree_map(jnp.zeros_like, params)
  loss_fn = lambda p: jnp.sum((p["w"] * jnp.array([1.0, 2.0]) + p["b"] - 1.0) ** 2)
  for t in range(1, 3):
    loss, g = jax.value_and_grad(loss_fn)(params)
    m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    params = jax.tree_util.tree_map(
        lambda p, m, v: p - 0.1 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8),
        params, m, v)
  return loss, params


# --- custom rules in compositions ---------------------------------------------------------------

@jax.custom_jvp
def _softclip(x, lo):
  return jnp.clip(x, lo, lo + 1.0)


@_softclip.defjvp
def _softclip_jvp(primals, tangents):
  x, lo = primals
  tx, tlo = tangents
  return _softclip(x, lo), tx * 0.5


@program
def custom_jvp_symbolic_zero_tangent_ignored():
  return (jax.grad(_softclip)(0.3, 0.0), jax.grad(_softclip, argnums=1)(0.3, 0.0),
          jax.vmap(jax.grad(_softclip), (0, None))(jnp.array([0.2, 2.0]), 0.0))


@program
def custom_jvp_symbolic_zeros_flag():
  @jax.custom_jvp
  def f(x, y):
    return x * y

  def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    zx = type(tx).__name__ == "SymbolicZero"
    zy = type(ty).__name__ == "SymbolicZero"
    t = (0.0 if zx else tx * y) + (0.0 if zy else ty * x)
    return f(x, y), t + 0.0 * x

  f.defjvp(f_jvp, symbolic_zeros=True)
  two, three = jnp.float32(2.0), jnp.float32(3.0)
  return (jax.grad(f)(2.0, 3.0), jax.grad(f, argnums=1)(2.0, 3.0),
          jax.jvp(f, (two, three), (jnp.float32(1.0), jnp.float32(1.0))))


@program
def custom_jvp_jvp_of_python_scalars():
  @jax.custom_jvp
  def f(x, y):
    return x * y

  f.defjvp(lambda p, t: (p[0] * p[1], t[0] * p[1] + t[1] * p[0]))
  return jax.jvp(f, (2.0, 3.0), (1.0, 1.0)), jax.jvp(f, (jnp.float32(2.0), 3.0), (1.0, 0.0))


@program
def custom_vjp_under_vmap_jit_and_scan():
  @jax.custom_vjp
  def scale_grad(x):
    return x

  scale_grad.defvjp(lambda x: (x, None), lambda _, g: (g * 10.0,))

  def body(c, x):
    return c + scale_grad(x) * c, None

  f = lambda xs: lax.scan(body, 1.0, xs)[0]
  xs = jnp.array([0.1, 0.2, 0.3])
  return (jax.grad(f)(xs), jax.jit(jax.grad(f))(xs),
          jax.vmap(jax.grad(lambda x: scale_grad(x) ** 2))(xs))


@program
def custom_jvp_under_scan_and_vmap():
  @jax.custom_jvp
  def logcosh(x):
    return jnp.log(jnp.cosh(x))

  logcosh.defjvps(lambda t, ans, x: t * jnp.tanh(x))

  def body(c, x):
    return c + logcosh(x * c), c

  f = lambda c0, xs: jnp.sum(lax.scan(body, c0, xs)[1])
  xs = jnp.array([0.5, -1.0, 2.0])
  return jax.grad(f)(1.0, xs), jax.vmap(jax.grad(f), (0, None))(jnp.array([0.5, 1.0]), xs)


@program
def custom_vjp_nested_in_custom_vjp():
  @jax.custom_vjp
  def inner(x):
    return jnp.sin(x)

  inner.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (2.0 * c * g,))

  @jax.custom_vjp
  def outer(x):
    return inner(x) * 3.0

  outer.defvjp(lambda x: (outer(x), x), lambda x, g: (jax.grad(inner)(x) * g * 3.0,))
  return jax.grad(outer)(0.5), jax.grad(lambda x: inner(x) * 3.0)(0.5)


@program
def custom_jvp_second_order():
  @jax.custom_jvp
  def f(x):
    return x ** 3

  f.defjvps(lambda t, ans, x: 3.0 * x ** 2 * t)
  return jax.grad(f)(2.0), jax.grad(jax.grad(f))(2.0), jax.hessian(f)(2.0)


@program
def custom_vjp_second_order_differentiates_bwd():
  @jax.custom_vjp
  def f(x):
    return x ** 3

  f.defvjp(lambda x: (x ** 3, x), lambda x, g: (3.0 * x ** 2 * g,))
  return jax.grad(jax.grad(f))(2.0)


@program
def custom_vjp_forward_mode_error():
  @jax.custom_vjp
  def f(x):
    return x * 2.0

  f.defvjp(lambda x: (x * 2.0, None), lambda _, g: (g * 2.0,))
  return jax.jvp(f, (1.0,), (1.0,))


@program
def custom_vjp_bwd_wrong_arity_error():
  @jax.custom_vjp
  def f(x, y):
    return x * y

  f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1],))
  return jax.grad(f)(1.0, 2.0)


@program
def custom_jvp_under_jit_printed_jaxpr():
  @jax.custom_jvp
  def f(x):
    return jnp.sin(x)

  f.defjvps(lambda t, ans, x: jnp.cos(x) * t)
  return str(jax.make_jaxpr(f)(1.0)), str(jax.make_jaxpr(jax.grad(f))(1.0))


@program
def custom_vjp_printed_jaxpr():
  @jax.custom_vjp
  def f(x):
    return x * 2.0

  f.defvjp(lambda x: (x * 2.0, None), lambda _, g: (g * 3.0,))
  return str(jax.make_jaxpr(jax.grad(f))(1.0))


# --- printed jaxprs of compositions -------------------------------------------------------------

@program
def make_jaxpr_of_jit():
  f = jax.jit(lambda x, y: jnp.sin(x) + y * 2)
  return str(jax.make_jaxpr(f)(1.0, jnp.ones(2)))


@program
def make_jaxpr_of_vmap():
  f = jax.vmap(lambda x, y: jnp.dot(x, y) + 1.0, in_axes=(0, None))
  return str(jax.make_jaxpr(f)(jnp.ones((3, 2)), jnp.ones(2)))


@program
def make_jaxpr_of_vmap_of_grad():
  f = jax.vmap(jax.grad(lambda x: jnp.sin(x) ** 2))
  return str(jax.make_jaxpr(f)(jnp.ones(3)))


@program
def make_jaxpr_of_grad_of_jit():
  f = jax.jit(lambda x: jnp.exp(x) * x)
  return str(jax.make_jaxpr(jax.grad(f))(1.0))


@program
def make_jaxpr_of_jit_of_grad():
  return str(jax.make_jaxpr(jax.jit(jax.grad(lambda x: jnp.log(x) * x)))(2.0))


@program
def make_jaxpr_of_checkpoint_grad():
  f = jax.checkpoint(lambda x: jnp.sin(x) * x)
  return str(jax.make_jaxpr(jax.grad(f))(1.0))


@program
def make_jaxpr_vmap_reduction_and_broadcast():
  f = jax.vmap(lambda x: x - jnp.mean(x))
  return str(jax.make_jaxpr(f)(jnp.ones((2, 3))))
