"""pmap (a jit of a shard_map over the first n devices, as JAX 0.10.2 builds it): in_axes and
out_axes in every form, keyword and static arguments, collectives by name, composed with grad,
vmap and jit, printed jaxprs, the result's sharding, and the errors for bad mapped sizes."""
import functools

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()

X = jnp.arange(8.0).reshape(4, 2)


@program
def pmap_values_and_sharding():
  y = jax.pmap(lambda x: jnp.sin(x) * 2)(X)
  return y, str(y.sharding), type(y.sharding).__name__, y.sharding.spec


@program
def pmap_unmapped_argument_and_jaxpr():
  f = jax.pmap(lambda x, w: jnp.sin(x) * w, axis_name="i", in_axes=(0, None))
  return f(X, 2.0), str(jax.make_jaxpr(f)(X, 2.0))


@program
def pmap_weak_int_argument_is_strong_inside():
  f = jax.pmap(lambda x, y: x * y, in_axes=(0, None))
  return f(jnp.arange(4), 2), str(jax.make_jaxpr(f)(jnp.arange(4), 2))


@program
def pmap_in_axes_and_out_axes_one():
  f = jax.pmap(lambda x: x * 2, in_axes=1, out_axes=1)
  return f(X.T), str(jax.make_jaxpr(f)(X.T))


@program
def pmap_out_axes_none_and_pytree():
  a = jax.pmap(lambda x: x.sum(), out_axes=None)(X)
  b = jax.pmap(lambda x: {"a": x, "b": x.sum()}, out_axes={"a": 0, "b": None})(X)
  c = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None)(X)
  return a, b, c


@program
def pmap_keyword_and_static_arguments():
  kw = jax.pmap(lambda x, y: x * y)(X, y=X)
  st = jax.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(X, 3)
  st_two = jax.pmap(lambda n, x, m: x ** n + m, static_broadcasted_argnums=(0, 2))(2, X, 1.5)
  return kw, st, st_two


@program
def pmap_collectives_by_name():
  return (jax.pmap(lambda v: lax.pmean(v, "i"), axis_name="i")(X),
          jax.pmap(lambda v: lax.axis_index("i"), axis_name="i")(X),
          jax.pmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(X),
          jax.pmap(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]),
                   axis_name="i")(X),
          jax.pmap(lambda v: lax.pmax(v, "i") - lax.pmin(v, "i"), axis_name="i")(X))


@program
def pmap_grad_both_ways():
  outer = jax.grad(lambda x: jax.pmap(lambda v: jnp.sin(v) * 2)(x).sum())(X)
  inner = jax.pmap(jax.grad(lambda v: (v ** 2).sum()))(X)
  w_grad = jax.pmap(lambda x, w: jax.grad(lambda w: (jnp.sin(x) * w).sum())(w),
                    axis_name="i", in_axes=(0, None))(X, 2.0)
  return outer, inner, w_grad


@program
def pmap_data_parallel_training_step():
  def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)

  @functools.partial(jax.pmap, axis_name="batch", in_axes=(None, 0, 0))
  def step(w, x, y):
    g = jax.grad(loss)(w, x, y)
    return w - 0.1 * lax.pmean(g, "batch")

  w = jnp.array([0.5, -0.25])
  x = jnp.arange(16.0).reshape(4, 2, 2) / 16
  y = jnp.arange(8.0).reshape(4, 2) / 8
  for _ in range(3):
    w = step(w, x, y)[0]
  return w


@program
def pmap_under_vmap_and_jit():
  v = jax.vmap(jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i"))(jnp.ones((3, 4, 2)))
  j = jax.jit(jax.pmap(lambda v: v + 1))(X)
  return v, j


@program
def pmap_int_and_bool_outputs():
  return (jax.pmap(lambda x: x * 2)(jnp.arange(4)),
          jax.pmap(lambda x: x > 3.0)(X))


@program
def pmap_no_mapped_argument_error():
  return jax.pmap(lambda x: x, in_axes=None)(jnp.ones((2, 2)))


@program
def pmap_scalar_argument_error():
  return jax.pmap(lambda x: x)(3.0)


@program
def pmap_unhashable_static_error():
  return jax.pmap(lambda x, n: x, static_broadcasted_argnums=1)(X, [1])


@program
def pmap_not_callable_error():
  return jax.pmap(3)
