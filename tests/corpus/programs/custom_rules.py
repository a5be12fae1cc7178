"""custom_vjp / custom_jvp: non-differentiated arguments in every position, under grad, jit and
vmap, and the types a user's rules receive."""
from functools import partial

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


@jax.custom_vjp
def clip_gradient(lo, hi, x):
  return x


def _clip_fwd(lo, hi, x):
  return x, (lo, hi)


def _clip_bwd(res, g):
  lo, hi = res
  return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


@program
def clip_gradient_leading_nondiff_args():
  f = lambda x: clip_gradient(-0.75, 0.5, x).sum()
  return jax.grad(f)(jnp.ones(3)), jax.jit(jax.grad(f))(jnp.ones(3))


@program
def clip_gradient_under_vmap():
  f = lambda x: clip_gradient(-0.75, 0.5, x).sum()
  return jax.vmap(jax.grad(f))(jnp.ones((2, 3)))


@jax.custom_vjp
def _mul(a, b):
  return a * b


_mul.defvjp(lambda a, b: (a * b, (a, b)), lambda r, ct: (r[1] * ct, r[0] * ct))


@program
def custom_vjp_argnums_each_position():
  return (jax.grad(_mul, argnums=0)(3., 1.), jax.grad(_mul, argnums=1)(3., 1.),
          jax.grad(_mul, argnums=(0, 1))(3., 1.))


@program
def custom_vjp_vjp_of_python_scalars():
  out, pull = jax.vjp(_mul, 3., 2.)
  return out, pull(1.0)


@program
def custom_vjp_bwd_receives_arrays_under_grad():
  seen = []

  @jax.custom_vjp
  def f(x):
    return x * 2

  def bwd(res, g):
    seen.append((type(g).__name__ == "ArrayImpl", jnp.shape(g)))
    return (g * 3,)

  f.defvjp(lambda x: (f(x), None), bwd)
  g = jax.grad(f)(1.0)
  return g, seen


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def _apply(fn, x):
  return fn(x)


_apply.defvjp(lambda fn, x: (fn(x), x), lambda fn, x, g: (g * jax.grad(fn)(x),))


@program
def custom_vjp_nondiff_argnums_function():
  return jax.grad(lambda x: _apply(jnp.sin, x))(0.5), jax.jit(jax.grad(lambda x: _apply(jnp.sin, x)))(0.5)


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def _power(x, n):
  return x ** n


@_power.defjvp
def _power_jvp(n, primals, tangents):
  (x,), (t,) = primals, tangents
  return x ** n, n * x ** (n - 1) * t


@program
def custom_jvp_nondiff_second():
  return jax.grad(_power)(2.0, 3), jax.vmap(jax.grad(_power), (0, None))(jnp.arange(3.), 2)


@jax.custom_jvp
def _safe_log1pexp(x):
  return jnp.log1p(jnp.exp(x))


_safe_log1pexp.defjvps(lambda t, ans, x: t * jax.nn.sigmoid(x))


@program
def custom_jvp_defjvps_large_input():
  return jax.grad(_safe_log1pexp)(100.), jax.jit(jax.grad(_safe_log1pexp))(-3.)


@program
def custom_vjp_three_args_middle_nondiff():
  @jax.custom_vjp
  def f(a, k, b):
    return a * k + b

  f.defvjp(lambda a, k, b: (f(a, k, b), k), lambda k, g: (g * k, None, g))
  return jax.grad(f, argnums=(0, 2))(1.0, 4.0, 2.0), jax.grad(lambda a: f(a, 4.0, 2.0))(1.0)


@program
def custom_vjp_pytree_args():
  @jax.custom_vjp
  def f(d):
    return d["a"] * d["b"]

  f.defvjp(lambda d: (f(d), d), lambda d, g: ({"a": g * d["b"], "b": None},))
  return jax.grad(f)({"a": 2.0, "b": 5.0})


@program
def user_primitive_with_jax_rule_registries():
  jax_core = submodule("extend.core")
  ad = submodule("interpreters.ad")
  batching = submodule("interpreters.batching")

  calls = []

  def f_impl(x):
    calls.append("f")
    return x

  def b_impl(x):
    calls.append("b")
    return (x,)

  echo = jax_core.Primitive("echo")
  echo.def_impl(f_impl)
  echo.def_abstract_eval(lambda x: x)
  ad.deflinear(echo, b_impl)
  vg = jax.value_and_grad(lambda x: echo.bind(x ** 2))(3.0)
  sq = jax_core.Primitive("sq")
  sq.def_impl(lambda x: x * x)
  sq.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
  ad.defjvp(sq, lambda g, x: 2 * x * g)
  batching.defvectorized(sq)
  xs = jnp.arange(3.0)
  return (vg, list(calls), sq.bind(xs), jax.grad(sq.bind)(3.0), jax.vmap(sq.bind)(xs),
          jax.jit(jax.vmap(jax.grad(sq.bind)))(xs), str(jax.make_jaxpr(sq.bind)(1.0)))


@program
def custom_jvp_rule_tangent_types_are_checked():
  @jax.custom_jvp
  def f(x, n):
    return x * 2, n

  @f.defjvp
  def f_jvp(p, t):
    return f(*p), (t[0] * 2, jnp.zeros((), jnp.int32))

  @jax.custom_jvp
  def g(x):
    return x * 2

  @g.defjvp
  def g_jvp(p, t):
    return g(*p), jnp.asarray(t[0]).astype(jnp.float16)

  msgs = []
  for run in (lambda: jax.jvp(lambda x: f(x, 3)[0], (1.0,), (1.0,)),
              lambda: jax.jvp(g, (jnp.float32(1.0),), (jnp.float32(1.0),))):
    try:
      run()
    except TypeError as e:
      msgs.append(str(e))
  return msgs


@program
def custom_jvp_function_applied_to_tangents_is_transposed():
  @jax.custom_jvp
  def scale(x):
    return 3.0 * x

  scale.defjvp(lambda p, t: (scale(p[0]), 3.0 * t[0]))

  @jax.custom_jvp
  def h(x):
    return jnp.sin(x)

  @h.defjvp
  def h_jvp(p, t):
    return h(p[0]), scale(jnp.cos(p[0]) * t[0])  # a custom_jvp function of the tangent

  A = jnp.array([[2.0, 1.0], [0.5, 3.0]])
  b = jnp.array([1.0, 2.0])
  solve_t = jax.linear_transpose(lambda v: jnp.linalg.solve(A, v), b)
  return (jax.grad(lambda x: h(x).sum())(jnp.arange(3.0)),
          jax.jit(jax.grad(lambda x: h(x).sum()))(jnp.arange(3.0)),
          solve_t(jnp.array([1.0, -1.0])),
          jax.linear_transpose(scale, 1.0)(2.0))
