"""jax.scipy.optimize.minimize (BFGS and the experimental L-BFGS) and jax.scipy.sparse.linalg
(cg, bicgstab, gmres).

minimize: every field of OptimizeResults (values, dtypes, weak types) on quadratics and
Rosenbrock's function in float32 and float64, converged, stopped by maxiter and by a failing line
search (its status codes), with extra ``args``, under jit and vmap, and the errors for an unknown
method, an unknown option and ``args`` that is not a tuple.

sparse.linalg: symmetric positive-definite and non-symmetric systems given as matrices, functions
and NumPy arrays; pytree right-hand sides; ``x0``, ``tol``/``atol``/``maxiter``, preconditioners;
gmres's ``restart`` and both solve methods; the ``info`` each returns; complex systems; jit, vmap
and derivatives through the implicit solve; and the errors for mismatched structures and shapes,
non-square matrices and unknown solve methods."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
opt = submodule("scipy.optimize")
sla = submodule("scipy.sparse.linalg")

LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def rosen(x):
  return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _spd(n, dtype=np.float32, seed=0):
  r = np.random.RandomState(seed).randn(n, n)
  return jnp.asarray(r @ r.T + n * np.eye(n), dtype)


def _nonsym(n, dtype=np.float32, seed=1):
  r = np.random.RandomState(seed).randn(n, n)
  return jnp.asarray(r + 2 * n * np.eye(n), dtype)


def _quadratic(A, b):
  return lambda x: 0.5 * x @ (A @ x) - b @ x


def _fields(r):
  return r, type(r).__name__, r._fields


# --- minimize: BFGS -------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def bfgs_quadratic_f32_converges():
  A, b = _spd(4), jnp.arange(1.0, 5.0)
  return _fields(opt.minimize(_quadratic(A, b), jnp.zeros(4), method="BFGS"))


@program(x64=True, rtol=1e-9, atol=1e-10)
def bfgs_quadratic_f64_converges_and_hess_inv():
  A, b = _spd(5, np.float64), jnp.arange(1.0, 6.0)
  r = opt.minimize(_quadratic(A, b), jnp.zeros(5), method="BFGS")
  return r, jnp.linalg.solve(A, b)


@program(rtol=1e-3, atol=1e-4)
def bfgs_rosenbrock_f32_line_search_fails():
  return opt.minimize(rosen, jnp.zeros(3), method="BFGS")


@program(rtol=1e-3, atol=1e-4)
def bfgs_rosenbrock_f32_classic_start():
  return opt.minimize(rosen, jnp.array([-1.2, 1.0]), method="BFGS")


@program(x64=True, rtol=1e-7, atol=1e-8)
def bfgs_rosenbrock_f64_classic_start():
  return opt.minimize(rosen, jnp.array([-1.2, 1.0]), method="BFGS")


@program(x64=True, rtol=1e-7, atol=1e-8)
def bfgs_rosenbrock_f64_5d():
  return opt.minimize(rosen, jnp.array([1.3, 0.7, 0.8, 1.9, 1.2]), method="BFGS")


@program(x64=True, rtol=1e-5, atol=1e-6)
def bfgs_f32_start_under_x64():
  A, b = _spd(3), jnp.array([1.0, 2.0, 3.0], jnp.float32)
  return opt.minimize(_quadratic(A, b), jnp.zeros(3, jnp.float32), method="BFGS")


@program(rtol=1e-4, atol=1e-5)
def bfgs_maxiter_status_one():
  return opt.minimize(rosen, jnp.array([-1.2, 1.0]), method="BFGS", options={"maxiter": 3})


@program(rtol=1e-4, atol=1e-5)
def bfgs_line_search_maxiter_and_gtol_norm():
  r1 = opt.minimize(rosen, jnp.array([-1.2, 1.0]), method="bfgs",
                    options={"line_search_maxiter": 1})
  r2 = opt.minimize(rosen, jnp.array([0.8, 0.6]), method="BFGS",
                    options={"gtol": 1e-2, "norm": 2})
  return r1, r2


@program
def bfgs_starting_at_the_minimum():
  return opt.minimize(lambda x: jnp.sum((x - 1.0) ** 2), jnp.ones(2), method="BFGS")


@program(rtol=1e-4, atol=1e-5)
def bfgs_with_args_and_tol_ignored():
  f = lambda x, a, c: jnp.sum((x - a) ** 2) + c * jnp.sum(x ** 4)
  r = opt.minimize(f, jnp.zeros(3), (jnp.array([1.0, -2.0, 0.5]), 0.1), method="BFGS",
                   tol=1e-1)
  return r.x, r.fun, r.nit, r.nfev, r.status


@program(rtol=1e-4, atol=1e-5)
def bfgs_under_jit():
  A, b = _spd(3), jnp.array([1.0, 0.0, -1.0])

  @jax.jit
  def solve(x0, b):
    return opt.minimize(_quadratic(A, b), x0, method="BFGS")
  return solve(jnp.ones(3), b)


@program(rtol=1e-3, atol=1e-4)
def bfgs_under_vmap_over_starts():
  starts = jnp.array([[-1.2, 1.0], [0.0, 0.0], [2.0, 2.0], [1.0, 1.0]])
  return jax.vmap(lambda x0: opt.minimize(rosen, x0, method="BFGS"))(starts)


@program(rtol=1e-4, atol=1e-5)
def bfgs_under_vmap_over_args():
  f = lambda x, c: jnp.sum((x - c) ** 2 * jnp.array([1.0, 3.0])) + jnp.sum(x ** 4)
  cs = jnp.array([[0.0, 1.0], [1.0, -1.0], [2.0, 0.5]])
  r = jax.vmap(lambda c: opt.minimize(f, jnp.zeros(2), (c,), method="BFGS"))(cs)
  return r.x, r.fun, r.nit, r.nfev, r.njev, r.status, r.success


@program
def minimize_unknown_method():
  return opt.minimize(rosen, jnp.zeros(2), method="Nelder-Mead")


@program
def minimize_unknown_bfgs_option():
  return opt.minimize(rosen, jnp.zeros(2), method="BFGS", options={"maxfun": 3})


@program
def minimize_unknown_lbfgs_option():
  return opt.minimize(rosen, jnp.zeros(2), method=LBFGS, options={"line_search_maxiter": 3})


@program
def minimize_args_not_a_tuple():
  return opt.minimize(lambda x, a: jnp.sum((x - a) ** 2), jnp.zeros(2), [1.0], method="BFGS")


@program
def minimize_non_scalar_objective():
  return opt.minimize(lambda x: x ** 2, jnp.zeros(2), method="BFGS")


@program
def minimize_method_is_keyword_only():
  return opt.minimize(rosen, jnp.zeros(2), (), "BFGS")


@program
def optimize_results_is_a_namedtuple():
  R = opt.OptimizeResults
  r = R(*range(9))
  return R._fields, r, r._replace(nit=5).nit, isinstance(r, tuple), R.__name__


# --- minimize: L-BFGS -----------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def lbfgs_quadratic_f32():
  A, b = _spd(4), jnp.arange(1.0, 5.0)
  return opt.minimize(_quadratic(A, b), jnp.zeros(4), method=LBFGS)


@program(rtol=1e-3, atol=1e-4)
def lbfgs_rosenbrock_f32():
  return (opt.minimize(rosen, jnp.zeros(3), method=LBFGS),
          opt.minimize(rosen, jnp.array([-1.2, 1.0]), method=LBFGS.upper()))


@program(x64=True, rtol=1e-7, atol=1e-8)
def lbfgs_rosenbrock_f64():
  return (opt.minimize(rosen, jnp.array([-1.2, 1.0]), method=LBFGS),
          opt.minimize(rosen, jnp.array([1.3, 0.7, 0.8, 1.9, 1.2]), method=LBFGS))


@program(x64=True, rtol=1e-7, atol=1e-8)
def lbfgs_options_maxcor_maxiter_maxfun():
  x0 = jnp.array([1.3, 0.7, 0.8, 1.9, 1.2])
  return (opt.minimize(rosen, x0, method=LBFGS, options={"maxcor": 2}),
          opt.minimize(rosen, x0, method=LBFGS, options={"maxiter": 4}),
          opt.minimize(rosen, x0, method=LBFGS, options={"maxfun": 10}),
          opt.minimize(rosen, x0, method=LBFGS, options={"maxgrad": 7, "maxls": 5}),
          opt.minimize(rosen, x0, method=LBFGS, options={"ftol": 1e-3, "gtol": 1e-3}))


@program(x64=True, rtol=1e-7, atol=1e-8)
def lbfgs_complex_variables():
  c = jnp.array([1.0 + 2.0j, -0.5j, 3.0])
  f = lambda z: jnp.sum(jnp.abs(z - c) ** 2) + 0.1 * jnp.sum(jnp.abs(z) ** 4)
  return opt.minimize(f, jnp.zeros(3, jnp.complex128), method=LBFGS)


@program(rtol=1e-4, atol=1e-5)
def lbfgs_under_jit_and_vmap():
  A = _spd(3)
  run = lambda b: opt.minimize(_quadratic(A, b), jnp.zeros(3), method=LBFGS)
  bs = jnp.array([[1.0, 0.0, 0.0], [0.0, 2.0, -1.0]])
  return jax.jit(run)(bs[1]), jax.vmap(run)(bs)


# --- sparse.linalg.cg -----------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def cg_matrix_and_function_operators():
  A, b = _spd(5), jnp.arange(1.0, 6.0)
  return sla.cg(A, b), sla.cg(lambda x: A @ x, b), jnp.linalg.solve(A, b)


@program(rtol=1e-4, atol=1e-5)
def cg_numpy_operands():
  A = np.asarray(_spd(4))
  return sla.cg(A, np.ones(4, np.float32)), sla.cg(A, np.ones(4))


@program(rtol=1e-4, atol=1e-5)
def cg_maxiter_tol_atol_x0():
  A, b = _spd(6), jnp.ones(6)
  return (sla.cg(A, b, maxiter=1), sla.cg(A, b, maxiter=2, x0=jnp.full(6, 0.1)),
          sla.cg(A, b, tol=1e-1), sla.cg(A, b, tol=0.0, atol=1e-2), sla.cg(A, b, maxiter=0))


@program(rtol=1e-4, atol=1e-5)
def cg_pytree_right_hand_side():
  A1, A2 = _spd(3), _spd(2, seed=3)
  mv = lambda x: {"a": A1 @ x["a"], "b": (A2 @ x["b"][0], 2.0 * x["b"][1])}
  b = {"a": jnp.ones(3), "b": (jnp.array([1.0, -1.0]), jnp.array(3.0))}
  return sla.cg(mv, b), sla.cg(mv, b, x0=jax.tree_util.tree_map(jnp.ones_like, b), maxiter=2)


@program(rtol=1e-4, atol=1e-5)
def cg_preconditioners():
  A, b = _spd(6), jnp.arange(6.0)
  d = jnp.diag(A)
  return (sla.cg(A, b, M=lambda r: r / d), sla.cg(A, b, M=jnp.diag(1.0 / d)),
          sla.cg(A, b, M=lambda r: r / d, maxiter=2), sla.cg(A, b, M=lambda r: r, maxiter=2))


@program(rtol=1e-4, atol=1e-5)
def cg_matrix_right_hand_side_2d():
  A = _spd(3)
  B = jnp.arange(6.0).reshape(3, 2)
  return sla.cg(lambda X: A @ X, B)


@program(x64=True, rtol=1e-9, atol=1e-10)
def cg_float64_and_complex_hermitian():
  A = _spd(4, np.float64)
  H = A + 1j * jnp.array(np.triu(np.ones((4, 4)), 1) - np.tril(np.ones((4, 4)), -1))
  b = jnp.array([1.0, 2.0j, -1.0, 0.5 + 0.5j])
  return sla.cg(A, jnp.ones(4)), sla.cg(H, b), sla.cg(H, b, maxiter=2)


@program(rtol=1e-4, atol=1e-5)
def cg_under_jit_and_vmap():
  A = _spd(4)
  bs = jnp.arange(12.0).reshape(3, 4)
  solve = lambda b: sla.cg(A, b)[0]
  return (jax.jit(solve)(bs[0]), jax.vmap(solve)(bs),
          jax.vmap(lambda A, b: sla.cg(A, b, maxiter=2)[0])(jnp.stack([A, 2 * A, A.T]), bs))


@program(rtol=1e-3, atol=1e-4)
def cg_gradients_through_the_solve():
  A, b = _spd(4), jnp.array([1.0, -1.0, 2.0, 0.5])
  loss_b = lambda b: jnp.sum(sla.cg(A, b)[0] ** 2)
  loss_A = lambda A: jnp.sum(sla.cg(lambda x: A @ x, b)[0] * jnp.arange(4.0))
  return (jax.grad(loss_b)(b), jax.grad(loss_A)(A), jax.jit(jax.grad(loss_b))(b),
          jax.jvp(lambda b: sla.cg(A, b)[0], (b,), (jnp.ones(4),)))


@program
def cg_x0_structure_mismatch():
  return sla.cg(lambda x: x, {"a": jnp.ones(2)}, x0=[jnp.ones(2)])


@program
def cg_x0_shape_mismatch():
  return sla.cg(lambda x: x, jnp.ones(3), x0=jnp.ones(2))


@program
def cg_non_square_matrix():
  return sla.cg(jnp.ones((3, 2)), jnp.ones(3))


@program
def cg_operator_of_wrong_kind():
  return sla.cg("not an operator", jnp.ones(3))


@program
def cg_matvec_changes_structure():
  return sla.cg(lambda x: [x], jnp.ones(3))


# --- sparse.linalg.bicgstab -----------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def bicgstab_nonsymmetric():
  A, b = _nonsym(5), jnp.arange(1.0, 6.0)
  return (sla.bicgstab(A, b), sla.bicgstab(lambda x: A @ x, b, maxiter=1),
          sla.bicgstab(A, b, x0=jnp.ones(5), tol=1e-2), jnp.linalg.solve(A, b))


@program(rtol=1e-4, atol=1e-5)
def bicgstab_preconditioned_and_pytree():
  A, b = _nonsym(4), jnp.array([1.0, 2.0, 0.0, -1.0])
  d = jnp.diag(A)
  mv = lambda x: {"u": A[:2] @ jnp.concatenate([x["u"], x["v"]]),
                  "v": A[2:] @ jnp.concatenate([x["u"], x["v"]])}
  return (sla.bicgstab(A, b, M=lambda r: r / d),
          sla.bicgstab(mv, {"u": b[:2], "v": b[2:]}),
          sla.bicgstab(mv, {"u": b[:2], "v": b[2:]}, maxiter=2))


@program(rtol=1e-4, atol=1e-5)
def bicgstab_zero_rhs_and_breakdown():
  A = _nonsym(3)
  rot = jnp.array([[0.0, 1.0], [-1.0, 0.0]])
  return sla.bicgstab(A, jnp.zeros(3)), sla.bicgstab(rot, jnp.array([1.0, 0.0]), maxiter=5)


@program(x64=True, rtol=1e-9, atol=1e-10)
def bicgstab_float64_and_complex():
  A = _nonsym(4, np.float64)
  C = A + 1j * jnp.array(np.random.RandomState(5).randn(4, 4))
  b = jnp.array([1.0, 2.0j, -1.0, 0.5 + 0.5j])
  return sla.bicgstab(A, jnp.ones(4)), sla.bicgstab(C, b)


@program(rtol=1e-3, atol=1e-4)
def bicgstab_gradients_jit_vmap():
  A, b = _nonsym(4), jnp.array([1.0, -1.0, 2.0, 0.5])
  loss = lambda A, b: jnp.sum(sla.bicgstab(lambda x: A @ x, b)[0] * jnp.arange(1.0, 5.0))
  return (jax.grad(loss, argnums=(0, 1))(A, b), jax.jit(loss)(A, b),
          jax.vmap(lambda b: sla.bicgstab(A, b)[0])(jnp.eye(4)))


# --- sparse.linalg.gmres --------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def gmres_batched_and_incremental():
  A, b = _nonsym(6), jnp.arange(1.0, 7.0)
  return (sla.gmres(A, b), sla.gmres(A, b, solve_method="incremental"),
          jnp.linalg.solve(A, b))


@program(rtol=1e-4, atol=1e-5)
def gmres_small_restart_and_maxiter():
  A, b = _nonsym(6), jnp.arange(1.0, 7.0)
  return (sla.gmres(A, b, restart=2), sla.gmres(A, b, restart=2, solve_method="incremental"),
          sla.gmres(A, b, restart=2, maxiter=1),
          sla.gmres(A, b, restart=3, maxiter=1, solve_method="incremental"),
          sla.gmres(A, b, restart=100, tol=1e-2))


@program(rtol=1e-4, atol=1e-5)
def gmres_x0_preconditioner_atol():
  A, b = _nonsym(5), jnp.ones(5)
  d = jnp.diag(A)
  return (sla.gmres(A, b, x0=jnp.full(5, 0.2), restart=2, maxiter=2),
          sla.gmres(A, b, M=lambda r: r / d, restart=2, maxiter=2),
          sla.gmres(A, b, M=jnp.diag(1.0 / d), restart=2, solve_method="incremental",
                    maxiter=2),
          sla.gmres(A, b, tol=0.0, atol=0.5, restart=1))


@program(rtol=1e-4, atol=1e-5)
def gmres_pytree_right_hand_side():
  A = _nonsym(5)
  mv = lambda x: {"a": (A @ jnp.concatenate([x["a"], x["b"].ravel()]))[:1],
                  "b": (A @ jnp.concatenate([x["a"], x["b"].ravel()]))[1:].reshape(2, 2)}
  b = {"a": jnp.array([1.0]), "b": jnp.array([[2.0, 0.0], [-1.0, 3.0]])}
  return (sla.gmres(mv, b), sla.gmres(mv, b, solve_method="incremental", restart=2),
          sla.gmres(mv, b, restart=2, maxiter=1))


@program
def gmres_info_on_nan():
  A = jnp.array([[1.0, jnp.nan], [0.0, 1.0]])
  return sla.gmres(A, jnp.ones(2)), sla.gmres(A, jnp.ones(2), solve_method="incremental")


@program(rtol=1e-4, atol=1e-5)
def gmres_exact_in_few_steps():
  A = jnp.diag(jnp.array([1.0, 2.0, 2.0, 1.0]))
  return (sla.gmres(A, jnp.ones(4)), sla.gmres(A, jnp.ones(4), solve_method="incremental"),
          sla.gmres(jnp.eye(3), jnp.zeros(3)))


@program(x64=True, rtol=1e-9, atol=1e-10)
def gmres_float64_and_complex():
  A = _nonsym(5, np.float64)
  C = A + 1j * jnp.array(np.random.RandomState(7).randn(5, 5))
  b = jnp.array([1.0, 2.0j, -1.0, 0.5 + 0.5j, 0.0])
  return (sla.gmres(A, jnp.ones(5), restart=3), sla.gmres(C, b),
          sla.gmres(C, b, restart=2, solve_method="incremental"))


@program(rtol=1e-3, atol=1e-4)
def gmres_gradients_jit_vmap():
  A, b = _nonsym(4), jnp.array([1.0, -1.0, 2.0, 0.5])
  loss = lambda A, b: jnp.sum(sla.gmres(lambda x: A @ x, b)[0] * jnp.arange(1.0, 5.0))
  return (jax.grad(loss, argnums=(0, 1))(A, b), jax.jit(loss)(A, b),
          jax.vmap(lambda b: sla.gmres(A, b, solve_method="incremental"))(jnp.eye(4)),
          jax.jit(lambda b: sla.gmres(A, b, restart=2))(b))


@program
def gmres_unknown_solve_method():
  return sla.gmres(jnp.eye(2), jnp.ones(2), solve_method="qr")


@program
def gmres_x0_structure_mismatch():
  return sla.gmres(lambda x: x, (jnp.ones(2), jnp.ones(1)), x0=[jnp.ones(2), jnp.ones(1)])


@program
def gmres_non_square_matrix():
  return sla.gmres(jnp.ones((2, 3)), jnp.ones(2))


# --- edges: odd inputs, weak types, failures ------------------------------------------------------

@program
def minimize_edge_inputs_errors():
  out = []
  for x0, method in (([0.0, 0.0], "BFGS"), ([0.0, 0.0], LBFGS), (jnp.zeros(2, jnp.int32), "BFGS"),
                     (jnp.zeros(2), None), (jnp.ones((2, 2)), "BFGS")):
    try:
      opt.minimize(lambda x: jnp.sum(x ** 2), x0, method=method)
    except (AttributeError, TypeError) as e:
      out.append((type(e).__name__, str(e).split("\n")[0][:60]))
  return out


@program(rtol=1e-2, atol=1e-2)
def minimize_unbounded_nan_nonsmooth_and_half_precision():
  return (opt.minimize(lambda x: jnp.sum(x), jnp.ones(2), method="BFGS"),
          opt.minimize(lambda x: jnp.sum(x), jnp.ones(2), method=LBFGS),
          opt.minimize(lambda x: jnp.sum(x ** 2) * jnp.nan, jnp.ones(2), method="BFGS"),
          opt.minimize(lambda x: jnp.sum(jnp.abs(x - 0.3)), jnp.ones(3), method="BFGS"),
          opt.minimize(lambda x: jnp.sum((x - 1) ** 2), jnp.zeros(2, jnp.float16), method="BFGS"),
          opt.minimize(lambda x: jnp.sum((x - 1) ** 2), jnp.zeros(2, jnp.bfloat16), method=LBFGS))


@program(rtol=1e-4, atol=1e-5)
def minimize_jit_of_vmap_nonconvex():
  f = lambda x: jnp.sum(jnp.sin(x) * x ** 2)
  starts = jnp.array([[0.5, 1.0], [2.0, -1.0], [3.0, 3.0]])
  return jax.jit(jax.vmap(lambda x0: opt.minimize(f, x0, method="BFGS")))(starts)


@program(rtol=1e-4, atol=1e-5)
def solvers_python_float_rhs_keep_weak_types():
  mv = lambda x: [2 * x[0], 3 * x[1]]
  b = [1.0, 2.0]
  return (sla.cg(mv, b), sla.bicgstab(mv, b), sla.gmres(mv, b),
          sla.gmres(mv, b, solve_method="incremental"), sla.cg(lambda x: 2 * x, 3.0))


@program
def solvers_integer_rhs_error():
  return sla.cg(jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1, 2]))


@program(rtol=1e-4, atol=1e-5)
def solvers_matmul_objects_and_error_order():
  A = jnp.array([[4.0, 1.0], [1.0, 3.0]])

  class Op:
    shape = (2, 2)

    def __matmul__(self, x):
      return A @ x

  class Shapeless:
    def __matmul__(self, x):
      return A @ x

  out = [sla.cg(Op(), jnp.ones(2)), sla.gmres(Op(), jnp.ones(2))]
  for call in (lambda: sla.cg(Shapeless(), jnp.ones(2)),
               lambda: sla.cg(jnp.ones((3, 2)), jnp.ones(3), x0=[1.0]),
               lambda: sla.cg(A, jnp.ones(2), M=jnp.ones((2, 3))),
               lambda: sla.gmres(lambda x: x, jnp.ones(3), x0=jnp.ones(2))):
    try:
      call()
    except (AttributeError, ValueError, TypeError) as e:
      out.append((type(e).__name__, str(e)))
  return out


@program(rtol=1e-3, atol=1e-4)
def solvers_complex_preconditioned_and_vmapped_operators():
  A = jnp.array([[4.0, 1.0], [1.0, 3.0]])
  Ac = A.astype(jnp.complex64)
  b = jnp.array([1 + 1j, 2], jnp.complex64)
  return (sla.cg(Ac, b, M=jnp.eye(2, dtype=jnp.complex64)),
          jax.grad(lambda b: jnp.abs(sla.cg(Ac, b)[0]).sum())(b),
          jax.vmap(lambda A: sla.gmres(A, jnp.ones(2)))(jnp.stack([A, A.T * 2])),
          jax.vmap(lambda A: sla.gmres(A, jnp.ones(2), solve_method="incremental", restart=1))(
              jnp.stack([A, A.T * 2])),
          jax.jvp(lambda A: sla.bicgstab(lambda x: A @ x, jnp.ones(2))[0], (A,), (jnp.eye(2),)),
          sla.gmres(A, jnp.ones(2), maxiter=0),
          sla.gmres(A, jnp.ones(2), tol=jnp.array(1e-2), atol=jnp.array(0.0)))
