"""Autodiff: grad / value_and_grad options, vjp, jvp, linearize, linear_transpose, Jacobians and
Hessians, stop_gradient, checkpoint, the dtypes and weak types of gradients, subgradients at kinks,
printed jaxprs of differentiated functions, perturbation confusion, and the errors of common
autodiff mistakes."""
from functools import partial

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _loss(params, x, y):
  pred = jnp.tanh(x @ params["w"] + params["b"])
  return jnp.mean((pred - y) ** 2)


def _params():
  return {"w": jnp.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]), "b": jnp.array([0.01, -0.02])}


# --- grad and value_and_grad options ---------------------------------------------------------

@program
def grad_dict_params_training_step():
  params = _params()
  x = jnp.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
  y = jnp.array([[0.5, -0.5], [0.0, 1.0]])
  g = jax.grad(_loss)(params, x, y)
  new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)
  return g, new


@program
def grad_argnums_tuple_and_negative_order():
  f = lambda a, b, c: a * b ** 2 + jnp.sin(c)
  return (jax.grad(f, argnums=(2, 0))(1.0, 2.0, 3.0), jax.grad(f, argnums=1)(1.0, 2.0, 3.0),
          jax.grad(f, argnums=(1,))(1.0, 2.0, 3.0))


@program
def grad_argnums_out_of_range():
  return jax.grad(lambda a, b: a * b, argnums=2)(1.0, 2.0)


@program
def value_and_grad_has_aux():
  def f(w, x):
    pred = w * x
    loss = jnp.sum(pred ** 2)
    return loss, {"pred": pred, "n": x.shape[0]}
  (loss, aux), g = jax.value_and_grad(f, has_aux=True)(2.0, jnp.array([1.0, 2.0, 3.0]))
  return loss, aux, g


@program
def grad_has_aux_returns_pair():
  f = lambda x: (jnp.sum(x ** 2), jnp.max(x))
  return jax.grad(f, has_aux=True)(jnp.array([1.0, -3.0, 2.0]))


@program(phrases=("expected function with aux output to return a two-element tuple",))
def grad_has_aux_wrong_structure():
  return jax.grad(lambda x: x ** 2, has_aux=True)(1.0)


@program
def value_and_grad_argnums_tuple():
  f = lambda a, b: jnp.sum(a * b)
  return jax.value_and_grad(f, argnums=(0, 1))(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))


@program
def grad_holomorphic_complex():
  f = lambda z: z ** 2 + 3j * z
  return jax.grad(f, holomorphic=True)(1.0 + 2.0j), jax.grad(f, holomorphic=True)(jnp.complex64(0.5j))


@program
def grad_holomorphic_real_input_error():
  return jax.grad(lambda z: z ** 2, holomorphic=True)(1.0)


@program
def grad_complex_output_error():
  return jax.grad(lambda x: x * (1 + 1j))(1.0)


@program
def grad_complex_input_real_output():
  f = lambda z: jnp.abs(z) ** 2
  return jax.grad(f)(3.0 + 4.0j)


@program
def grad_allow_int_gives_float0():
  f = lambda x, n: x * n
  gx, gn = jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
  return gx, gn.dtype.name, gn.shape, str(gn.dtype)


@program
def grad_int_input_error():
  return jax.grad(lambda x: x * 2.0)(3)


@program
def grad_int_array_input_error():
  return jax.grad(lambda x: jnp.sum(x * 2.0))(jnp.arange(3))


@program
def grad_bool_input_error():
  return jax.grad(lambda x: jnp.sum(jnp.where(x, 1.0, 0.0)))(jnp.array([True, False]))


@program
def grad_int_output_error():
  return jax.grad(lambda x: jnp.round(x).astype(jnp.int32))(1.5)


# --- common mistakes --------------------------------------------------------------------------

@program
def grad_non_scalar_output_error():
  return jax.grad(lambda x: x ** 2)(jnp.array([1.0, 2.0]))


@program
def grad_tuple_output_error():
  return jax.grad(lambda x: (x ** 2, x))(1.0)


@program
def grad_list_input_works():
  return jax.grad(lambda xs: xs[0] * xs[1] + xs[2])([1.0, 2.0, 3.0])


@program
def grad_python_if_uses_concrete_primal():
  def f(x):
    if x > 0:
      return x * 3.0
    return -x
  return jax.grad(f)(1.0), jax.grad(f)(-2.0), jax.grad(lambda x: x * int(x))(2.5)


@program
def grad_of_jit_python_if_bool_conversion_error():
  @jax.jit
  def f(x):
    return x if x > 0 else -x
  return jax.grad(f)(1.0)


@program
def grad_of_jit_python_if_error_classes():
  def f(x):
    return x if x > 0 else -x
  try:
    jax.grad(jax.jit(f))(1.0)
  except jax.errors.TracerBoolConversionError as e:
    return type(e).__name__, isinstance(e, jax.errors.ConcretizationTypeError)


@program
def grad_float_of_tracer_error():
  return jax.grad(lambda x: float(x) * 2.0)(1.0)


@program
def grad_numpy_on_tracer_error():
  return jax.grad(lambda x: np.sin(x))(1.0)


@program
def jit_python_if_concretization_error():
  @jax.jit
  def f(x):
    if x.sum() > 0:
      return x
    return -x
  return f(jnp.array([1.0, 2.0]))


@program
def jit_static_argnums_unhashable_error():
  f = jax.jit(lambda x, cfg: x * cfg[0], static_argnums=1)
  return f(1.0, [2.0])


@program
def jit_static_argnums_hashable_ok():
  f = jax.jit(lambda x, cfg: x * cfg[0] + cfg[1], static_argnums=1)
  return f(jnp.array([1.0, 2.0]), (2.0, 1)), jax.grad(f)(1.0, (3.0, 0))


@program
def jit_index_with_tracer_shape_error():
  return jax.jit(lambda x, n: jnp.zeros(n) + x)(1.0, 3)


# --- vjp, jvp, linearize, linear_transpose ------------------------------------------------------

@program
def vjp_pytree_out_and_has_aux():
  f = lambda x: ({"s": jnp.sin(x), "c": jnp.cos(x)}, jnp.sum(x))
  out, pull, aux = jax.vjp(f, jnp.array([0.0, 1.0]), has_aux=True)
  ct = {"s": jnp.array([1.0, 1.0]), "c": jnp.array([0.5, 0.0])}
  return out, aux, pull(ct)


@program
def vjp_multiple_primals_python_scalars():
  out, pull = jax.vjp(lambda a, b: a * b + 1.0, 2.0, 3.0)
  return out, pull(1.0), pull(jnp.float32(2.0))


@program
def vjp_wrong_cotangent_shape_error():
  _, pull = jax.vjp(jnp.sin, jnp.array([1.0, 2.0]))
  return pull(jnp.ones(3))


@program
def vjp_wrong_cotangent_dtype_error():
  _, pull = jax.vjp(jnp.sin, jnp.array([1.0, 2.0]))
  return pull(jnp.ones(2, jnp.int32))


@program
def jvp_basic_and_weak_types():
  p, t = jax.jvp(lambda x, y: x * y + jnp.exp(x), (1.0, 2.0), (1.0, 0.0))
  p2, t2 = jax.jvp(jnp.sin, (jnp.array([0.0, 1.0]),), (jnp.array([1.0, 2.0]),))
  return p, t, p2, t2


@program
def jvp_tangent_dtype_mismatch_error():
  return jax.jvp(jnp.sin, (jnp.array([1.0, 2.0]),), (jnp.array([1.0, 2.0], jnp.float16),))


@program
def jvp_tangent_not_tuple_error():
  return jax.jvp(jnp.sin, [1.0], [1.0])


@program
def jvp_has_aux():
  f = lambda x: (x ** 3, x * 2)
  return jax.jvp(f, (2.0,), (1.0,), has_aux=True)


@program
def linearize_and_reuse():
  f = lambda x: jnp.sin(x) * x
  y, f_jvp = jax.linearize(f, jnp.array([0.5, 1.0, 2.0]))
  return y, f_jvp(jnp.ones(3)), f_jvp(jnp.array([0.0, 2.0, -1.0]))


@program
def linearize_jaxpr_printed():
  y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * 2.0, 1.0)
  return y, str(jax.make_jaxpr(f_jvp)(1.0))


@program
def linear_transpose_matvec():
  m = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  f = lambda v: m @ v
  ft = jax.linear_transpose(f, jnp.zeros(2))
  return ft(jnp.array([1.0, 0.0, -1.0]))


@program
def linear_transpose_pytree_and_scale():
  f = lambda d: {"u": d["a"] * 2.0 + d["b"], "v": -d["a"]}
  ft = jax.linear_transpose(f, {"a": 1.0, "b": 1.0})
  return ft({"u": 1.0, "v": 3.0})


# --- Jacobians and Hessians ---------------------------------------------------------------------

@program
def jacfwd_jacrev_agree():
  f = lambda x: jnp.array([x[0] * x[1], jnp.sin(x[2]), x[0] ** 2])
  x = jnp.array([1.0, 2.0, 0.5])
  return jax.jacfwd(f)(x), jax.jacrev(f)(x)


@program
def jacrev_pytree_in_out():
  f = lambda p: {"y": p["a"] * p["b"], "z": jnp.sum(p["a"])}
  return jax.jacrev(f)({"a": jnp.array([1.0, 2.0]), "b": 3.0})


@program
def jacfwd_argnums_tuple_and_has_aux():
  f = lambda a, b: (a * b, a + b)
  j = jax.jacfwd(f, argnums=(0, 1), has_aux=True)(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
  return j


@program
def hessian_quadratic_and_pytree():
  a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
  f = lambda x: 0.5 * x @ a @ x + jnp.sum(jnp.sin(x))
  g = lambda p: p["u"] ** 2 * p["v"]
  return jax.hessian(f)(jnp.array([0.1, 0.2])), jax.hessian(g)({"u": 1.0, "v": 2.0})


@program
def jacrev_scalar_function():
  return jax.jacrev(lambda x: x ** 3)(2.0), jax.jacfwd(lambda x: x ** 3)(2.0)


@program
def jacfwd_int_input_error():
  return jax.jacfwd(lambda x: x * 2.0)(jnp.arange(3))


@program
def jacrev_holomorphic():
  f = lambda z: z ** 2
  return jax.jacrev(f, holomorphic=True)(jnp.array([1.0 + 1j, 2.0 - 1j]))


# --- stop_gradient and checkpoint ---------------------------------------------------------------

@program
def stop_gradient_target_network():
  def loss(w, x):
    target = lax.stop_gradient(w * x + 1.0)
    return jnp.sum((w * x - target) ** 2 + w * jnp.sum(x))
  return jax.grad(loss)(2.0, jnp.array([1.0, 2.0])), jax.value_and_grad(loss)(0.5, jnp.ones(2))


@program
def stop_gradient_pytree_and_int():
  d = {"a": jnp.array([1.0, 2.0]), "n": jnp.array([3, 4])}
  s = lax.stop_gradient(d)
  return s, jax.grad(lambda x: jnp.sum(lax.stop_gradient(x) * x))(jnp.array([1.0, 3.0]))


@program
def stop_gradient_jaxpr():
  return str(jax.make_jaxpr(jax.grad(lambda x: x * lax.stop_gradient(x)))(2.0))


@program
def checkpoint_matches_plain_grad():
  def layer(w, x):
    return jnp.tanh(w * x) * jnp.sin(x)
  f = lambda w, x: jnp.sum(jax.checkpoint(layer)(w, x))
  g = lambda w, x: jnp.sum(layer(w, x))
  x = jnp.array([0.1, 0.5, 2.0])
  return jax.grad(f, argnums=(0, 1))(1.5, x), jax.grad(g, argnums=(0, 1))(1.5, x)


@program
def checkpoint_static_argnums():
  @partial(jax.checkpoint, static_argnums=(1,))
  def f(x, n):
    for _ in range(n):
      x = jnp.sin(x)
    return x
  return jax.grad(f)(1.0, 3), jax.jit(jax.grad(f), static_argnums=1)(1.0, 2)


@program
def remat_alias_and_nested():
  f = jax.remat(lambda x: jnp.exp(jax.remat(jnp.sin)(x)))
  return jax.grad(f)(0.3), jax.grad(jax.grad(f))(0.3)


@program
def checkpoint_jaxpr_of_grad():
  f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
  return str(jax.make_jaxpr(f)(1.0))


# --- dtypes and weak types of gradients ---------------------------------------------------------

@program
def grad_python_scalar_is_weak():
  g = jax.grad(lambda x: x * 3.0)(2.0)
  g2 = jax.grad(lambda x: x * jnp.float32(3.0))(2.0)
  return g, g2, g.weak_type, g2.weak_type


@program
def grad_float16_and_bfloat16():
  f = lambda x: jnp.sum(x * x + 1.0)
  return (jax.grad(f)(jnp.array([1.0, 2.0], jnp.float16)),
          jax.grad(f)(jnp.array([1.0, 2.0], jnp.bfloat16)),
          jax.grad(lambda x: x * 2)(jnp.float16(1.5)))


@program
def grad_mixed_precision_input_dtype_kept():
  f = lambda w16, x32: jnp.sum(w16.astype(jnp.float32) * x32)
  return jax.grad(f, argnums=(0, 1))(jnp.array([1.0, 2.0], jnp.bfloat16), jnp.array([3.0, 4.0]))


@program
def grad_numpy_scalar_inputs():
  return jax.grad(lambda x: x ** 2)(np.float32(3.0)), jax.grad(lambda x: x ** 2)(np.array(3.0))


@program(x64=True)
def grad_x64_float64_and_python_scalar():
  f = lambda x: jnp.sin(x) * x
  return (jax.grad(f)(1.0), jax.grad(f)(jnp.float64(1.0)), jax.grad(f)(jnp.float32(1.0)),
          jax.grad(f)(np.float64(0.5)), jax.vmap(jax.grad(f))(np.array([0.5, 1.5])))


@program(x64=True)
def hessian_x64_precision():
  f = lambda x: jnp.sum(jnp.log1p(x ** 2))
  return jax.hessian(f)(jnp.array([1e-3, 1.0]))


@program(x64=True)
def grad_x64_int64_error():
  return jax.grad(lambda x: x * 1.0)(jnp.arange(3, dtype=jnp.int64))


@program
def grad_of_astype_roundtrip():
  f = lambda x: jnp.sum(x.astype(jnp.float16).astype(jnp.float32) ** 2)
  return jax.grad(f)(jnp.array([1.0, 0.3333]))


@program
def grad_through_int_cast_is_zero():
  f = lambda x: jnp.sum(x.astype(jnp.int32) * x)
  return jax.grad(f)(jnp.array([1.7, 2.2]))


# --- subgradients at kinks ----------------------------------------------------------------------

@program
def grad_abs_relu_at_zero():
  return (jax.grad(jnp.abs)(0.0), jax.grad(lambda x: jnp.maximum(x, 0.0))(0.0),
          jax.grad(jax.nn.relu)(0.0), jax.grad(lambda x: jnp.minimum(x, 0.0))(0.0),
          jax.vmap(jax.grad(jnp.abs))(jnp.array([-1.0, 0.0, -0.0, 2.0])))


@program
def grad_maximum_ties_both_args():
  return jax.grad(jnp.maximum, argnums=(0, 1))(1.0, 1.0), jax.grad(jnp.minimum, argnums=(0, 1))(2.0, 2.0)


@program
def grad_where_at_boundary_and_nan_trap():
  f = lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0)
  safe = lambda x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
  xs = jnp.array([0.0, 1.0, 4.0])
  return jax.vmap(jax.grad(f))(xs), jax.vmap(jax.grad(safe))(xs)


@program
def grad_floor_round_ceil_sign():
  return (jax.grad(jnp.floor)(1.5), jax.grad(jnp.round)(2.5), jax.grad(jnp.ceil)(1.0),
          jax.grad(jnp.sign)(0.0), jax.grad(jnp.trunc)(-1.5))


@program
def grad_sort_and_max_with_ties():
  x = jnp.array([3.0, 1.0, 3.0, 2.0])
  return (jax.grad(lambda x: jnp.sort(x)[-1])(x), jax.grad(jnp.max)(x),
          jax.grad(lambda x: jnp.sum(jnp.sort(x) * jnp.arange(4.0)))(x),
          jax.grad(jnp.min)(jnp.array([1.0, 1.0])))


@program
def grad_argmax_gather():
  x = jnp.array([1.0, 5.0, 5.0])
  return jax.grad(lambda x: x[jnp.argmax(x)])(x)


@program
def grad_norm_and_sqrt_at_zero():
  return (jax.grad(jnp.linalg.norm)(jnp.zeros(3)), jax.grad(jnp.sqrt)(0.0),
          jax.grad(lambda x: jnp.sqrt(jnp.sum(x ** 2)))(jnp.zeros(2)),
          jax.grad(jnp.linalg.norm)(jnp.array([3.0, 4.0])))


@program
def grad_clip_at_bounds():
  f = lambda x: jnp.sum(jnp.clip(x, -1.0, 1.0))
  return jax.grad(f)(jnp.array([-1.0, 0.0, 1.0, 2.0]))


@program
def grad_pow_at_zero():
  return (jax.grad(lambda x: x ** 2)(0.0), jax.grad(lambda x: x ** 0.5)(0.0),
          jax.grad(lambda x: x ** 1)(0.0), jax.grad(lambda x: x ** 0)(0.0),
          jax.grad(lambda x: jnp.power(x, 3.0))(0.0))


@program
def grad_logsumexp_with_neg_inf():
  x = jnp.array([0.0, -jnp.inf, 1.0])
  return jax.grad(jax.nn.logsumexp)(x), jax.grad(lambda x: jax.nn.log_softmax(x)[0])(x)


# --- printed jaxprs -----------------------------------------------------------------------------

@program
def make_jaxpr_of_grad():
  f = lambda x: jnp.sin(x) * x
  return str(jax.make_jaxpr(jax.grad(f))(1.0))


@program
def make_jaxpr_of_grad_array():
  f = lambda w, x: jnp.sum(jnp.tanh(x @ w))
  return str(jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 2)), jnp.ones((3, 2))))


@program
def make_jaxpr_of_value_and_grad_has_aux():
  f = lambda x: (jnp.sum(x ** 2), x * 2)
  return str(jax.make_jaxpr(jax.value_and_grad(f, has_aux=True))(jnp.ones(2)))


@program
def make_jaxpr_of_jvp():
  return str(jax.make_jaxpr(lambda x, t: jax.jvp(jnp.exp, (x,), (t,)))(1.0, 1.0))


@program
def make_jaxpr_of_vjp():
  def f(x, ct):
    _, pull = jax.vjp(lambda x: jnp.cos(x) * 2.0, x)
    return pull(ct)
  return str(jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3)))


@program
def make_jaxpr_of_hessian():
  return str(jax.make_jaxpr(jax.hessian(lambda x: x ** 3))(1.0))


# --- perturbation confusion ---------------------------------------------------------------------

@program
def perturbation_confusion_classic():
  def outer(x):
    inner = lambda y: x * y
    return jax.grad(inner)(3.0) * x
  return jax.grad(outer)(2.0)


@program
def perturbation_confusion_nested_closure():
  f = lambda x: jax.grad(lambda y: jnp.sin(x * y))(1.0)
  g = lambda x: x * jax.grad(lambda y: x + y)(x)
  return jax.grad(f)(0.5), jax.grad(g)(1.0), jax.jvp(g, (1.0,), (1.0,))


@program
def perturbation_confusion_jvp_inside_grad():
  def f(x):
    _, t = jax.jvp(lambda y: x * y ** 2, (x,), (1.0,))
    return t
  return jax.grad(f)(3.0), jax.jacfwd(f)(3.0)


@program
def higher_order_derivatives_of_sin():
  d = jnp.sin
  out = []
  for _ in range(4):
    d = jax.grad(d)
    out.append(d(0.5))
  return out


@program
def logaddexp_derivatives_at_ties_and_infinities():
  g = jax.grad(jnp.logaddexp, argnums=(0, 1))
  x = jnp.array([0.0, 1.0, -jnp.inf, jnp.inf, 3.0])
  y = jnp.array([0.0, 0.0, -jnp.inf, jnp.inf, -jnp.inf])
  return (g(0.0, 0.0), g(jnp.inf, 0.0), jax.vmap(g)(x, y),
          jax.grad(lambda a: jnp.logaddexp2(a, a).sum())(jnp.arange(3.0)),
          jax.grad(jax.nn.softplus)(0.0), jax.jvp(jnp.logaddexp, (x, y), (y + 1, x * 0 + 2)),
          str(jax.make_jaxpr(jax.grad(jnp.logaddexp))(1.0, 2.0)))
