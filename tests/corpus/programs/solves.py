"""lax.custom_root: values and implicit-function-theorem derivatives with respect to what f
closes over (grad, jvp, under jit and vmap), auxiliary solver outputs, and the errors for
mismatched structures."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _newton(f, x):
  for _ in range(30):
    x = x - f(x) / jax.grad(f)(x)
  return x


def _scalar_solve(g, y):
  return y / g(1.0)


def _sqrt(a):
  return lax.custom_root(lambda x: x ** 2 - a, 1.0, _newton, _scalar_solve)


@program
def custom_root_scalar_newton_value_and_derivatives():
  a = jnp.float32(2.0)
  return (_sqrt(a), jax.grad(_sqrt)(a), jax.jit(jax.grad(_sqrt))(a),
          jax.jvp(_sqrt, (a,), (jnp.float32(1.0),)), jax.vmap(jax.grad(_sqrt))(jnp.arange(1.0, 4.0)))


@program
def custom_root_python_scalar_guess_and_weak_types():
  return _sqrt(2.0), jax.grad(_sqrt)(2.0), jax.value_and_grad(lambda a: _sqrt(a) * 3)(4.0)


def _linear_root(A, b):
  def f(x):
    return A @ x - b

  def solve(f, x0):
    jac = jax.jacobian(f)(x0)
    return x0 - jnp.linalg.solve(jac, f(x0))

  def tangent_solve(g, y):
    return jnp.linalg.solve(jax.jacobian(g)(y), y)

  return lax.custom_root(f, jnp.zeros_like(b), solve, tangent_solve)


@program(rtol=1e-4, atol=1e-5)
def custom_root_vector_gradients_wrt_closed_over_matrix_and_vector():
  A = jnp.array([[3.0, 1.0], [1.0, 2.0]])
  b = jnp.array([1.0, -1.0])
  loss = lambda A, b: (_linear_root(A, b) ** 2).sum()
  return _linear_root(A, b), jax.grad(loss, argnums=(0, 1))(A, b), jax.jit(jax.grad(loss))(A, b)


@program
def custom_root_with_aux_and_pytree_guess():
  def solve(f, x0):
    x = x0
    for _ in range(25):
      x = {"u": x["u"] - f(x)["u"] / (2 * x["u"])}
    return x, {"iterations": 25}

  def root(c):
    f = lambda x: {"u": x["u"] ** 2 - c}
    return lax.custom_root(f, {"u": 1.0}, solve, lambda g, y: {"u": y["u"] / g({"u": 1.0})["u"]},
                           has_aux=True)

  sol, aux = root(9.0)
  return sol, aux, jax.grad(lambda c: root(c)[0]["u"])(9.0)


@program
def custom_root_guess_gets_no_gradient():
  f = lambda g: lax.custom_root(lambda x: x - 3.0, g, lambda f, x: x - f(x), _scalar_solve)
  return f(1.0), jax.grad(f)(1.0)


@program
def custom_root_f_structure_must_match_guess():
  return lax.custom_root(lambda x: (x, x), 1.0, _newton, _scalar_solve)


@program
def custom_root_has_aux_needs_a_pair():
  return lax.custom_root(lambda x: x - 1.0, 1.0, lambda f, x: x, _scalar_solve, has_aux=True)


@program
def custom_root_with_float_aux_under_jit_and_vmap():
  def solve(f, x0):
    x = x0
    for _ in range(25):
      x = x - f(x) / (2 * x)
    return x, jnp.abs(f(x))

  def root(c):
    return lax.custom_root(lambda x: x ** 2 - c, 1.0, solve, _scalar_solve, has_aux=True)

  cs = jnp.array([4.0, 9.0])
  return (root(2.0), jax.jit(jax.grad(lambda c: root(c)[0]))(2.0),
          jax.vmap(root)(cs), jax.vmap(jax.grad(lambda c: root(c)[0] * 2))(cs))


_A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]], np.float32)
_B = np.array([1.0, -2.0, 0.5], np.float32)


def _cg(matvec, b):
  """Conjugate gradients in a while_loop: not differentiable in reverse mode by itself."""
  def cond(state):
    _, r, _, k = state
    return (k < 20) & (jnp.vdot(r, r) > 1e-12)

  def body(state):
    x, r, p, k = state
    ap = matvec(p)
    alpha = jnp.vdot(r, r) / jnp.vdot(p, ap)
    x, r_new = x + alpha * p, r - alpha * ap
    beta = jnp.vdot(r_new, r_new) / jnp.vdot(r, r)
    return x, r_new, r_new + beta * p, k + 1

  x0 = jnp.zeros_like(b)
  return lax.while_loop(cond, body, (x0, b, b, 0))[0]


def _lin(A, b, **kw):
  return lax.custom_linear_solve(lambda x: A @ x, b, _cg, **kw)


@program(rtol=1e-4, atol=1e-5)
def custom_linear_solve_symmetric_cg_gradients():
  A, b = jnp.asarray(_A), jnp.asarray(_B)
  loss = lambda A, b: (_lin(A, b, symmetric=True) ** 2).sum()
  return (_lin(A, b, symmetric=True), jax.grad(loss, argnums=(0, 1))(A, b),
          jax.jit(jax.grad(loss, argnums=1))(A, b),
          jax.jvp(lambda b: _lin(A, b, symmetric=True), (b,), (jnp.ones(3),)))


@program(rtol=1e-4, atol=1e-5)
def custom_linear_solve_nonsymmetric_with_transpose_solve_and_vmap():
  A = jnp.asarray(_A) + jnp.triu(jnp.ones((3, 3)), 1)
  solve = lambda mv, b: jnp.linalg.solve(A, b)
  t_solve = lambda vm, b: jnp.linalg.solve(A.T, b)
  f = lambda b: lax.custom_linear_solve(lambda x: A @ x, b, solve, t_solve)
  bs = jnp.stack([jnp.asarray(_B), jnp.ones(3)])
  return (f(jnp.asarray(_B)), jax.grad(lambda b: f(b)[0])(jnp.asarray(_B)), jax.vmap(f)(bs),
          jax.vmap(jax.grad(lambda b: f(b).sum()))(bs))


@program(rtol=1e-4, atol=1e-5)
def custom_linear_solve_pytree_and_aux():
  A = jnp.asarray(_A)

  def matvec(x):
    return {"u": A[:2, :2] @ x["u"], "v": 2.0 * x["v"]}

  def solve(mv, b):
    return {"u": jnp.linalg.solve(A[:2, :2], b["u"]), "v": b["v"] / 2.0}, b["v"] * 0.5

  b = {"u": jnp.array([1.0, 2.0]), "v": jnp.array(3.0)}
  out, aux = lax.custom_linear_solve(matvec, b, solve, symmetric=True, has_aux=True)
  g = jax.grad(lambda b: lax.custom_linear_solve(matvec, b, solve, symmetric=True,
                                                 has_aux=True)[0]["u"].sum())(b)
  return out, aux, g


@program
def custom_linear_solve_reverse_mode_needs_transpose_solve():
  A = jnp.asarray(_A) + jnp.triu(jnp.ones((3, 3)), 1)
  f = lambda b: lax.custom_linear_solve(lambda x: A @ x, b, lambda mv, b: jnp.linalg.solve(A, b))
  return jax.grad(lambda b: f(b).sum())(jnp.asarray(_B))


@program
def custom_linear_solve_matvec_shape_must_match_b():
  return lax.custom_linear_solve(lambda x: x[:2], jnp.ones(3), lambda mv, b: b)


@program
def custom_linear_solve_printed_jaxprs():
  f = lambda b: lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, b: b / 2.0,
                                        symmetric=True)
  b = jnp.ones(2)
  return (str(jax.make_jaxpr(f)(b)), str(jax.make_jaxpr(jax.grad(lambda b: f(b).sum()))(b)),
          str(jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 2)))))
