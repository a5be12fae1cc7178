"""Edge cases of jax.numpy.linalg and jax.numpy.fft that the broad samples (numpy_api.py,
numpy_edge.py) do not reach: solve with vector/matrix/batched right-hand sides and singular
matrices, inv/pinv options, det/slogdet at singular, negative and complex matrices and their
gradients, eigh options and gradients at degenerate eigenvalues, eig of real input, svd/qr modes,
cholesky of indefinite input, lstsq outputs, matrix_rank tolerances, every norm order with axis
tuples and keepdims, matrix_power, tensorsolve/tensorinv, multi_dot, cross, the Array-API names;
fft/ifft/rfft/irfft/hfft/ihfft/fft2/fftn/rfftn/irfftn with padding, cropping, axes, norms, odd
lengths and integer/float16 input, fftfreq/rfftfreq, fftshift; grad/jvp/vmap through them; x64.

Eigenvectors and singular vectors are unique only up to sign or phase, so programs that return
them return invariants (reconstructions, projectors, absolute values) instead."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()

A3 = [[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]]      # symmetric positive definite
G3 = [[2.0, -1.0, 0.0], [3.0, 1.0, 4.0], [-1.0, 2.0, 1.5]]      # general, det = 19.5
S3 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]        # singular (rank 2)


def _a3():
  return jnp.array(A3, jnp.float32)


def _g3():
  return jnp.array(G3, jnp.float32)


def _s3():
  return jnp.array(S3, jnp.float32)


# --- solve -------------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def solve_vector_rhs():
  x = jnp.linalg.solve(_g3(), jnp.array([1.0, 2.0, 3.0]))
  return x, x.shape


@program(rtol=1e-4, atol=1e-5)
def solve_matrix_rhs():
  return jnp.linalg.solve(_g3(), jnp.arange(6.0).reshape(3, 2))


@program(rtol=1e-4, atol=1e-5)
def solve_batched_a_and_b():
  a = jnp.stack([_g3(), _a3()])
  b = jnp.arange(6.0).reshape(2, 3)
  b2 = jnp.arange(12.0).reshape(2, 3, 2)
  return jnp.linalg.solve(a, b), jnp.linalg.solve(a, b2)


@program(rtol=1e-4, atol=1e-5)
def solve_batched_a_and_batched_matrix_b():
  a = jnp.stack([_g3(), _a3()])
  return jnp.linalg.solve(a, jnp.arange(12.0).reshape(2, 3, 2))


@program(rtol=1e-4, atol=1e-5)
def solve_broadcast_b_matrix_against_batch():
  a = jnp.stack([_g3(), _a3()])
  return jnp.linalg.solve(a, jnp.ones((3, 2)))


@program
def solve_batched_a_with_1d_b_shape():
  a = jnp.stack([_g3(), _a3()])
  return jnp.linalg.solve(a, jnp.ones(3)).shape


@program
def solve_singular_matrix_is_nonfinite():
  x = jnp.linalg.solve(jnp.zeros((2, 2)), jnp.ones(2))
  return jnp.isfinite(x).all(), x.shape, x.dtype


@program
def solve_shape_mismatch_error():
  return jnp.linalg.solve(_g3(), jnp.ones(4))


@program
def solve_nonsquare_error():
  return jnp.linalg.solve(jnp.ones((2, 3)), jnp.ones(2))


@program
def solve_int_inputs_dtype():
  r = jnp.linalg.solve(jnp.array([[2, 0], [0, 4]]), jnp.array([2, 2]))
  return r, r.dtype


@program(rtol=1e-4, atol=1e-5)
def solve_grad_wrt_a_and_b():
  f = lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2)
  return jax.grad(f, argnums=(0, 1))(_g3(), jnp.array([1.0, -1.0, 2.0]))


@program(rtol=1e-4, atol=1e-5)
def solve_vmap_over_b_only():
  return jax.vmap(jnp.linalg.solve, in_axes=(None, 0))(_g3(), jnp.arange(6.0).reshape(2, 3))


# --- inv / pinv --------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def inv_batched_and_int():
  r = jnp.linalg.inv(jnp.array([[2, 0], [0, 4]]))
  return jnp.linalg.inv(jnp.stack([_g3(), _a3()])), r, r.dtype


@program
def inv_singular_nonfinite():
  r = jnp.linalg.inv(jnp.zeros((2, 2)))
  return jnp.isfinite(r).all()


@program
def inv_nonsquare_error():
  return jnp.linalg.inv(jnp.ones((2, 3)))


@program(rtol=1e-4, atol=1e-5)
def pinv_rank_deficient_and_rect():
  return jnp.linalg.pinv(_s3()), jnp.linalg.pinv(jnp.arange(6.0).reshape(2, 3))


@program(rtol=1e-4, atol=1e-5)
def pinv_rcond_and_rtol_cut():
  a = jnp.diag(jnp.array([1.0, 1e-3, 0.0]))
  return (jnp.linalg.pinv(a), jnp.linalg.pinv(a, rtol=1e-2), jnp.linalg.pinv(a, rcond=1e-2))


@program(rtol=1e-4, atol=1e-5)
def pinv_hermitian():
  return jnp.linalg.pinv(_a3(), hermitian=True), jnp.linalg.pinv(jnp.diag(jnp.array([2.0, -4.0, 0.0])), hermitian=True)


@program(rtol=1e-4, atol=1e-5)
def pinv_grad():
  return jax.grad(lambda a: jnp.sum(jnp.linalg.pinv(a)))(jnp.arange(6.0).reshape(2, 3))


# --- det / slogdet -----------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def det_singular_negative_batched():
  return (jnp.linalg.det(_s3()), jnp.linalg.det(jnp.array([[0.0, 1.0], [1.0, 0.0]])),
          jnp.linalg.det(jnp.stack([_g3(), _a3(), -_a3()])), jnp.linalg.det(jnp.zeros((2, 2))))


@program(rtol=1e-4, atol=1e-5)
def det_complex_and_int():
  c = jnp.array([[1 + 1j, 2.0], [3.0, 4 - 2j]], jnp.complex64)
  r = jnp.linalg.det(jnp.array([[1, 2], [3, 4]]))
  return jnp.linalg.det(c), r, r.dtype


@program(rtol=1e-4, atol=1e-5)
def slogdet_signs_and_singular():
  s1 = jnp.linalg.slogdet(-_a3())
  s2 = jnp.linalg.slogdet(jnp.zeros((2, 2)))
  s3 = jnp.linalg.slogdet(jnp.stack([_g3(), -_g3()]))
  return s1, s2, s3, type(s1).__name__


@program(rtol=1e-4, atol=1e-5)
def slogdet_complex():
  c = jnp.array([[1 + 1j, 2.0], [3.0, 4 - 2j]], jnp.complex64)
  return jnp.linalg.slogdet(c)


@program(rtol=1e-4, atol=1e-5)
def slogdet_method_qr():
  return jnp.linalg.slogdet(_g3(), method="qr"), jnp.linalg.slogdet(-_a3(), method="qr")


@program
def slogdet_bad_method():
  return jnp.linalg.slogdet(_g3(), method="svd")


@program(rtol=1e-4, atol=1e-4)
def det_grad_regular_and_singular():
  g = jax.grad(jnp.linalg.det)
  return g(_g3()), g(_s3()), g(jnp.zeros((2, 2))), g(jnp.array([[1.0, 2.0], [2.0, 4.0]]))


@program(rtol=1e-4, atol=1e-4)
def slogdet_grad_regular_and_singular():
  g = jax.grad(lambda a: jnp.linalg.slogdet(a)[1])
  return g(_g3()), g(-_a3()), g(jnp.array([[1.0, 2.0], [2.0, 4.0]]))


@program(rtol=1e-4, atol=1e-4)
def det_jvp_and_vmap():
  p, t = jax.jvp(jnp.linalg.det, (_g3(),), (jnp.eye(3),))
  return p, t, jax.vmap(jnp.linalg.det)(jnp.stack([_g3(), _s3()]))


@program(rtol=1e-4, atol=1e-4)
def det_grad_complex():
  c = jnp.array([[1 + 1j, 2.0], [3.0, 4 - 2j]], jnp.complex64)
  return jax.grad(lambda a: jnp.abs(jnp.linalg.det(a)) ** 2)(c)


@program
def det_nonsquare_error():
  return jnp.linalg.det(jnp.ones((2, 3)))


# --- eigh / eigvalsh ---------------------------------------------------------------------------

def _nonsym():
  return jnp.array([[2.0, 10.0, -3.0], [0.0, 1.0, 7.0], [1.0, 0.0, 4.0]])


@program(rtol=1e-4, atol=1e-4)
def eigh_uplo_without_symmetrize():
  a = _nonsym()
  wl = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False).eigenvalues
  wu = jnp.linalg.eigh(a, UPLO="U", symmetrize_input=False).eigenvalues
  ws = jnp.linalg.eigh(a).eigenvalues
  return wl, wu, ws


@program(rtol=1e-4, atol=1e-4)
def eigvalsh_uplo():
  a = _nonsym()
  return jnp.linalg.eigvalsh(a, UPLO="L"), jnp.linalg.eigvalsh(a, UPLO="U"), jnp.linalg.eigvalsh(a)


@program(rtol=1e-4, atol=1e-4)
def eigh_result_type_and_reconstruction():
  r = jnp.linalg.eigh(_a3())
  w, v = r
  return (type(r).__name__, r._fields, (v * w) @ v.T, v.T @ v, w.dtype, v.dtype)


@program(rtol=1e-4, atol=1e-4)
def eigh_complex_hermitian():
  h = jnp.array([[2.0, 1 - 1j], [1 + 1j, 3.0]], jnp.complex64)
  w, v = jnp.linalg.eigh(h)
  return w, w.dtype, (v * w) @ v.conj().T


@program
def eigh_bad_uplo():
  return jnp.linalg.eigh(_a3(), UPLO="X")


@program(rtol=1e-4, atol=1e-4)
def eigh_grad_eigenvalues():
  return jax.grad(lambda a: jnp.linalg.eigh(a)[0] @ jnp.arange(1.0, 4.0))(_a3())


@program(rtol=1e-4, atol=1e-4)
def eigh_grad_eigenvalues_degenerate():
  f = lambda a: jnp.sum(jnp.linalg.eigh(a)[0] ** 2)
  return jax.grad(f)(jnp.eye(3)), jax.grad(f)(jnp.diag(jnp.array([1.0, 1.0, 2.0])))


@program
def eigh_grad_eigenvectors_degenerate_nonfinite():
  f = lambda a: jnp.sum(jnp.abs(jnp.linalg.eigh(a)[1][:, 0]))
  g = jax.grad(f)(jnp.diag(jnp.array([1.0, 1.0, 2.0])))
  return jnp.isfinite(g).all()


@program(rtol=1e-3, atol=1e-4)
def eigh_grad_projector_nondegenerate():
  def f(a):
    w, v = jnp.linalg.eigh(a)
    p = jnp.outer(v[:, 0], v[:, 0])
    return jnp.sum(p * jnp.arange(9.0).reshape(3, 3))
  return jax.grad(f)(_a3())


@program(rtol=1e-4, atol=1e-4)
def eigvalsh_vmap_and_jvp():
  b = jnp.stack([_a3(), 2 * _a3()])
  p, t = jax.jvp(jnp.linalg.eigvalsh, (_a3(),), (jnp.eye(3),))
  return jax.vmap(jnp.linalg.eigvalsh)(b), p, t


# --- eig / eigvals -----------------------------------------------------------------------------

def _sorted_c(w):
  return w[jnp.lexsort((w.imag, w.real))]


@program(rtol=1e-4, atol=1e-4)
def eig_real_input_complex_output():
  a = jnp.array([[0.0, -1.0], [1.0, 0.0]])
  w, v = jnp.linalg.eig(a)
  return _sorted_c(w), w.dtype, v.dtype, w.shape, v.shape


@program(rtol=1e-4, atol=1e-4)
def eigvals_real_spectrum_dtype():
  w = jnp.linalg.eigvals(_g3())
  return _sorted_c(w), w.dtype


@program(rtol=1e-4, atol=1e-4)
def eig_reconstruction():
  w, v = jnp.linalg.eig(_g3())
  a = _g3().astype(jnp.complex64)
  return jnp.abs(a @ v - v * w).max() < 1e-4, jnp.linalg.norm(v, axis=0)


@program(rtol=1e-4, atol=1e-4)
def eigvals_int_input():
  w = jnp.linalg.eigvals(jnp.array([[2, 0], [0, 3]]))
  return _sorted_c(w), w.dtype


# --- svd ---------------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def svd_shapes_full_and_reduced():
  a = jnp.arange(6.0).reshape(2, 3) + jnp.eye(2, 3)
  u, s, vh = jnp.linalg.svd(a)
  u2, s2, vh2 = jnp.linalg.svd(a, full_matrices=False)
  r = jnp.linalg.svd(a)
  return (u.shape, s.shape, vh.shape, u2.shape, vh2.shape, s, (u2 * s2) @ vh2,
          type(r).__name__, r._fields)


@program(rtol=1e-4, atol=1e-4)
def svd_compute_uv_false_and_batched():
  b = jnp.stack([_g3(), _s3()])
  s = jnp.linalg.svd(b, compute_uv=False)
  return s, type(s).__name__, jnp.linalg.svdvals(b)


@program(rtol=1e-4, atol=1e-4)
def svd_hermitian():
  a = jnp.array([[2.0, 1.0], [1.0, -3.0]])
  u, s, vh = jnp.linalg.svd(a, hermitian=True)
  return s, (u * s) @ vh, jnp.linalg.svd(a, hermitian=True, compute_uv=False)


@program(rtol=1e-4, atol=1e-4)
def svd_grad_singular_values():
  return jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)))(_g3())


@program(rtol=1e-3, atol=1e-4)
def svd_grad_reconstruction():
  def f(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(((u * s) @ vh) * jnp.arange(9.0).reshape(3, 3))
  return jax.grad(f)(_g3())


@program
def svd_grad_full_matrices_rectangular_error():
  def f(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    return jnp.sum(s) + jnp.sum(jnp.abs(u))
  return jax.grad(f)(jnp.arange(6.0).reshape(2, 3))


@program(rtol=1e-4, atol=1e-4)
def svd_jvp_singular_values():
  return jax.jvp(lambda a: jnp.linalg.svd(a, compute_uv=False), (_g3(),), (jnp.eye(3),))


@program
def svd_complex_dtypes():
  c = jnp.array([[1 + 1j, 2.0], [0.0, 1j]], jnp.complex64)
  u, s, vh = jnp.linalg.svd(c)
  return u.dtype, s.dtype, vh.dtype


# --- qr ----------------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def qr_modes_shapes():
  a = jnp.arange(12.0).reshape(4, 3) + jnp.eye(4, 3)
  q, r = jnp.linalg.qr(a)
  qc, rc = jnp.linalg.qr(a, mode="complete")
  ro = jnp.linalg.qr(a, mode="r")
  res = jnp.linalg.qr(a)
  return (q.shape, r.shape, qc.shape, rc.shape, ro.shape, q @ r, jnp.abs(r), jnp.abs(ro),
          qc.T @ qc, type(res).__name__, type(ro).__name__)


@program(rtol=1e-4, atol=1e-4)
def qr_raw_mode():
  a = jnp.arange(12.0).reshape(4, 3) + jnp.eye(4, 3)
  h, tau = jnp.linalg.qr(a, mode="raw")
  return h.shape, tau.shape, jnp.abs(jnp.diag(h.T))


@program
def qr_bad_mode():
  return jnp.linalg.qr(_g3(), mode="economic")


@program(rtol=1e-4, atol=1e-4)
def qr_wide_matrix():
  a = jnp.arange(6.0).reshape(2, 3) + 1
  q, r = jnp.linalg.qr(a)
  return q.shape, r.shape, q @ r


@program(rtol=1e-3, atol=1e-4)
def qr_grad_reconstruction():
  def f(a):
    q, r = jnp.linalg.qr(a)
    return jnp.sum((q @ r) ** 2) + jnp.sum(jnp.abs(r))
  return jax.grad(f)(_g3())


# --- cholesky ----------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def cholesky_upper_and_lower():
  lo = jnp.linalg.cholesky(_a3())
  up = jnp.linalg.cholesky(_a3(), upper=True)
  return lo, up, jnp.allclose(up, lo.T)


@program
def cholesky_indefinite_is_nan():
  r = jnp.linalg.cholesky(jnp.array([[1.0, 2.0], [2.0, 1.0]]))
  return jnp.isnan(r).all(), jnp.isnan(r).any()


@program
def cholesky_nonsymmetric_input_symmetrized():
  return jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [0.0, 3.0]]))


@program(rtol=1e-4, atol=1e-4)
def cholesky_grad_and_batched():
  g = jax.grad(lambda a: jnp.sum(jnp.linalg.cholesky(a)))(_a3())
  return g, jnp.linalg.cholesky(jnp.stack([_a3(), 2 * jnp.eye(3)]))


# --- lstsq / matrix_rank -----------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def lstsq_overdetermined():
  a = jnp.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
  b = jnp.array([1.0, 2.0, 2.0, 4.0])
  x, res, rank, sv = jnp.linalg.lstsq(a, b)
  return x, res, rank, sv, res.shape, rank.dtype


@program(rtol=1e-4, atol=1e-4)
def lstsq_underdetermined_min_norm():
  a = jnp.array([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]])
  x, res, rank, sv = jnp.linalg.lstsq(a, jnp.array([1.0, 2.0]))
  return x, res, res.shape, rank, sv


@program(rtol=1e-4, atol=1e-4)
def lstsq_rank_deficient_rcond():
  a = jnp.array([[1.0, 0.0], [0.0, 1e-4], [0.0, 0.0]])
  b = jnp.array([1.0, 1.0, 1.0])
  return jnp.linalg.lstsq(a, b), jnp.linalg.lstsq(a, b, rcond=1e-2)


@program(rtol=1e-4, atol=1e-4)
def lstsq_matrix_b_and_numpy_resid():
  a = jnp.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
  b = jnp.array([[1.0, 0.0], [2.0, 1.0], [2.0, 5.0]])
  return jnp.linalg.lstsq(a, b), jnp.linalg.lstsq(a, b, numpy_resid=True)


@program
def lstsq_batched_error():
  return jnp.linalg.lstsq(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))


@program
def matrix_rank_tol_rtol():
  d = jnp.diag(jnp.array([1.0, 1e-3, 1e-8]))
  return (jnp.linalg.matrix_rank(d), jnp.linalg.matrix_rank(d, rtol=1e-2),
          jnp.linalg.matrix_rank(d, tol=1e-4), jnp.linalg.matrix_rank(jnp.zeros((2, 3))),
          jnp.linalg.matrix_rank(jnp.stack([_s3(), _g3()])), jnp.linalg.matrix_rank(jnp.array([0.0, 1.0])),
          jnp.linalg.matrix_rank(jnp.array(3.0)))


# --- norms -------------------------------------------------------------------------------------

@program(rtol=1e-5, atol=1e-6)
def vector_norm_all_orders():
  x = jnp.array([3.0, -4.0, 0.0, 1.0])
  ords = [None, 1, -1, 2, -2, np.inf, -np.inf, 0, 3, 0.5]
  return [jnp.linalg.norm(x, ord=o) for o in ords]


@program
def vector_norm_negative_with_zero():
  x = jnp.array([3.0, 0.0, 1.0])
  return jnp.linalg.norm(x, ord=-1), jnp.linalg.norm(x, ord=-2), jnp.linalg.norm(x, ord=-np.inf)


@program(rtol=1e-4, atol=1e-5)
def matrix_norm_all_orders():
  a = jnp.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]])
  ords = [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]
  return [jnp.linalg.norm(a, ord=o) for o in ords]


@program
def matrix_norm_bad_ord():
  return jnp.linalg.norm(jnp.ones((2, 2)), ord=3)


@program
def vector_norm_string_ord_error():
  return jnp.linalg.norm(jnp.ones(3), ord="fro")


@program(rtol=1e-4, atol=1e-5)
def norm_axis_tuples_keepdims():
  x = jnp.arange(24.0).reshape(2, 3, 4) - 10
  return (jnp.linalg.norm(x, axis=(0, 2)), jnp.linalg.norm(x, ord="fro", axis=(2, 0), keepdims=True),
          jnp.linalg.norm(x, ord=1, axis=(1, 2)), jnp.linalg.norm(x, ord=np.inf, axis=(-1, -2)),
          jnp.linalg.norm(x, ord="nuc", axis=(0, 1), keepdims=True),
          jnp.linalg.norm(x, ord=1, axis=-1, keepdims=True), jnp.linalg.norm(x, keepdims=True))


@program
def norm_three_axes_error():
  return jnp.linalg.norm(jnp.ones((2, 2, 2)), axis=(0, 1, 2))


@program
def norm_repeated_axes_error():
  return jnp.linalg.norm(jnp.ones((2, 2)), axis=(1, 1))


@program
def norm_3d_no_axis_fro_error():
  return jnp.linalg.norm(jnp.ones((2, 2, 2)), ord="fro")


@program
def norm_int_and_complex_dtypes():
  r1 = jnp.linalg.norm(jnp.array([3, 4], jnp.int32))
  r2 = jnp.linalg.norm(jnp.array([3 + 4j, 0], jnp.complex64))
  r3 = jnp.linalg.norm(jnp.array([3.0, 4.0], jnp.float16))
  r4 = jnp.linalg.norm(jnp.array([[1 + 1j, 0], [0, 1]], jnp.complex64), ord="nuc")
  return r1, r2, r3, r4


@program
def norm_grads_at_zero():
  z = jnp.zeros(3)
  return (jax.grad(lambda x: jnp.linalg.norm(x, ord=1))(z),
          jax.grad(lambda x: jnp.linalg.norm(x, ord=np.inf))(z),
          jax.grad(lambda x: jnp.linalg.norm(x, ord=3))(z),
          jax.grad(lambda x: jnp.linalg.norm(x.reshape(1, 3), ord="fro"))(z))


@program(rtol=1e-4, atol=1e-5)
def norm_grads_matrix_orders():
  a = jnp.array([[1.0, -2.0], [3.0, 0.5]])
  return [jax.grad(lambda m: jnp.linalg.norm(m, ord=o))(a) for o in ("fro", "nuc", 1, np.inf, 2, -1)]


@program(rtol=1e-4, atol=1e-5)
def norm_inf_grad_ties():
  x = jnp.array([-3.0, 3.0, 1.0])
  return (jax.grad(lambda v: jnp.linalg.norm(v, ord=np.inf))(x),
          jax.grad(lambda v: jnp.linalg.norm(v, ord=-np.inf))(jnp.array([2.0, -2.0, 5.0])))


@program(rtol=1e-4, atol=1e-5)
def vector_norm_and_matrix_norm_api():
  x = jnp.arange(6.0).reshape(2, 3)
  return (jnp.linalg.vector_norm(x), jnp.linalg.vector_norm(x, axis=0, ord=1),
          jnp.linalg.vector_norm(x, axis=(0, 1), keepdims=True), jnp.linalg.matrix_norm(x),
          jnp.linalg.matrix_norm(x, ord="nuc"), jnp.linalg.matrix_norm(x, ord=1, keepdims=True))


@program(rtol=1e-4, atol=1e-5)
def norm_vmap():
  x = jnp.arange(12.0).reshape(3, 4) - 5
  return jax.vmap(lambda v: jnp.linalg.norm(v, ord=1))(x), jax.vmap(lambda m: jnp.linalg.norm(m, ord=2))(x.reshape(3, 2, 2))


# --- matrix_power / tensorsolve / tensorinv / multi_dot / cross / outer ------------------------

@program(rtol=1e-4, atol=1e-4)
def matrix_power_variants():
  m = jnp.array([[1.0, 1.0], [1.0, 0.0]])
  return (jnp.linalg.matrix_power(m, 30), jnp.linalg.matrix_power(m, -3),
          jnp.linalg.matrix_power(jnp.stack([m, 2 * m]), 3), jnp.linalg.matrix_power(m, 0).dtype,
          jnp.linalg.matrix_power(jnp.array([[2, 0], [0, 3]], jnp.int8), 5))


@program
def matrix_power_noninteger_error():
  return jnp.linalg.matrix_power(jnp.eye(2), 1.5)


@program
def matrix_power_nonsquare_error():
  return jnp.linalg.matrix_power(jnp.ones((2, 3)), 2)


@program(rtol=1e-4, atol=1e-4)
def matrix_power_grad():
  return jax.grad(lambda m: jnp.sum(jnp.linalg.matrix_power(m, 3)))(jnp.array([[1.0, 2.0], [0.5, -1.0]]))


@program(rtol=1e-4, atol=1e-4)
def tensorsolve_and_tensorinv():
  a = jnp.eye(6).reshape(2, 3, 6) * 2 + jnp.arange(36.0).reshape(2, 3, 6) * 0.01
  b = jnp.arange(6.0).reshape(2, 3)
  x = jnp.linalg.tensorsolve(a, b)
  t = jnp.eye(6).reshape(6, 2, 3) * 3
  inv = jnp.linalg.tensorinv(t, ind=1)
  a4 = (jnp.eye(4) * 2 + 0.1).reshape(2, 2, 2, 2)
  return x.shape, x, inv.shape, inv, jnp.linalg.tensorinv(a4).shape


@program
def tensorsolve_axes():
  a = (jnp.eye(6) * 2).reshape(2, 3, 6)
  a = jnp.moveaxis(a, 0, 2)  # (3, 6, 2)
  x = jnp.linalg.tensorsolve(a, jnp.arange(6.0).reshape(3, 2), axes=(0,))
  return x.shape, x


@program(rtol=1e-4, atol=1e-4)
def tensorsolve_axes_valid():
  a = (jnp.eye(6) * 2 + 0.1).reshape(6, 2, 3)
  x = jnp.linalg.tensorsolve(a, jnp.arange(6.0).reshape(2, 3), axes=(0,))
  return x.shape, x


@program
def tensorinv_bad_shape_error():
  return jnp.linalg.tensorinv(jnp.ones((2, 3, 4)), ind=1)


@program(rtol=1e-4, atol=1e-4)
def multi_dot_vectors_and_matrices():
  a = jnp.arange(3.0)
  b = jnp.arange(12.0).reshape(3, 4)
  c = jnp.arange(8.0).reshape(4, 2)
  d = jnp.arange(2.0) + 1
  return (jnp.linalg.multi_dot([a, b, c, d]), jnp.linalg.multi_dot([b, c]),
          jnp.linalg.multi_dot([a, b]), jnp.linalg.multi_dot([b, c, d]))


@program
def multi_dot_one_array_error():
  return jnp.linalg.multi_dot([jnp.ones((2, 2))])


@program
def multi_dot_3d_error():
  return jnp.linalg.multi_dot([jnp.ones((2, 2, 2)), jnp.ones((2, 2))])


@program
def cross_axes_and_2d():
  x = jnp.arange(6.0).reshape(3, 2)
  y = jnp.arange(6.0, 12.0).reshape(3, 2)
  return (jnp.cross(x, y, axis=0), jnp.cross(x.T, y.T), jnp.cross(x, y, axisa=0, axisb=0, axisc=0),
          jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])),
          jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])),
          jnp.linalg.cross(x.T, y.T))


@program
def linalg_cross_2vectors_error():
  return jnp.linalg.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))


@program
def linalg_outer_and_vecdot():
  x = jnp.array([1.0, 2.0])
  y = jnp.array([3, 4, 5])
  c = jnp.array([1 + 1j, 2j])
  return (jnp.linalg.outer(x, y), jnp.linalg.vecdot(c, c), jnp.vecdot(c, c),
          jnp.linalg.vecdot(jnp.ones((2, 3)), jnp.ones((3, 1)).T.reshape(1, 3), axis=-1),
          jnp.linalg.vecdot(jnp.arange(6.0).reshape(2, 3), jnp.arange(6.0).reshape(2, 3), axis=0))


@program
def linalg_outer_2d_error():
  return jnp.linalg.outer(jnp.ones((2, 2)), jnp.ones(2))


@program
def linalg_array_api_namespace():
  x = jnp.arange(24.0).reshape(2, 3, 4)
  return (jnp.linalg.matmul(x, jnp.ones((4, 2))).shape, jnp.linalg.matrix_transpose(x).shape,
          jnp.linalg.diagonal(x), jnp.linalg.diagonal(x, offset=1), jnp.linalg.diagonal(x, offset=-1),
          jnp.linalg.trace(x), jnp.linalg.trace(x, offset=2),
          jnp.linalg.trace(jnp.ones((2, 2), jnp.int8), dtype=jnp.float32),
          jnp.linalg.tensordot(x, jnp.ones((3, 4)), axes=2))


@program
def linalg_matrix_transpose_1d_error():
  return jnp.linalg.matrix_transpose(jnp.ones(3))


@program(rtol=1e-3, atol=1e-3)
def cond_orders():
  a = _g3()
  return [jnp.linalg.cond(a, p=p) for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf)]


@program
def cond_singular_is_inf():
  return jnp.linalg.cond(jnp.array([[1.0, 2.0], [2.0, 4.0]]), p="fro"), jnp.linalg.cond(jnp.zeros((2, 2)))


# --- fft -----------------------------------------------------------------------------------------

X7 = [1.0, -2.0, 3.5, 0.0, 4.0, -1.0, 2.0]


@program(rtol=1e-4, atol=1e-4)
def fft_pad_and_crop():
  x = jnp.array(X7)
  return jnp.fft.fft(x, n=10), jnp.fft.fft(x, n=4), jnp.fft.ifft(x, n=9), jnp.fft.fft(x, n=1)


@program
def fft_n_zero_error():
  return jnp.fft.fft(jnp.ones(4), n=0)


@program(rtol=1e-4, atol=1e-4)
def fft_norms():
  x = jnp.array(X7)
  return [f(x, norm=n) for f in (jnp.fft.fft, jnp.fft.ifft, jnp.fft.rfft)
          for n in (None, "backward", "ortho", "forward")]


@program
def fft_bad_norm():
  return jnp.fft.fft(jnp.ones(4), norm="unitary")


@program
def fft_input_dtypes():
  outs = [jnp.fft.fft(jnp.arange(4)), jnp.fft.fft(jnp.arange(4, dtype=jnp.float16)),
          jnp.fft.rfft(jnp.arange(4)),
          jnp.fft.irfft(jnp.arange(3)), jnp.fft.fft(jnp.array([True, False])),
          jnp.fft.ifft(jnp.arange(4, dtype=jnp.bfloat16)), jnp.fft.hfft(jnp.arange(3))]
  return [(o.dtype, o.weak_type) for o in outs]


@program
def rfft_float16_error():
  return jnp.fft.rfft(jnp.arange(4.0, dtype=jnp.float16))


@program
def irfft_and_hfft_float16():
  calls = [lambda: jnp.fft.irfft(jnp.arange(3, dtype=jnp.float16)),
           lambda: jnp.fft.fftn(jnp.ones((2, 2), jnp.float16)),
           lambda: jnp.fft.ihfft(jnp.ones(4, jnp.float16)),
           lambda: jnp.fft.rfftn(jnp.ones((2, 2), jnp.float16)),
           lambda: jnp.fft.hfft(jnp.ones(3, jnp.float16)),
           lambda: jnp.fft.rfft(jnp.arange(4, dtype=jnp.int8)),
           lambda: jnp.fft.rfft(jnp.array([True, False]))]
  out = []
  for c in calls:
    try:
      out.append(str(c().dtype))
    except Exception as e:
      out.append(type(e).__name__ + ": " + str(e))
  return out


@program
def fft_python_list_error():
  return jnp.fft.fft([1.0, 2.0, 3.0])


@program
def fft_zero_dim_input():
  return jnp.fft.fft(jnp.array(2.0))


@program(rtol=1e-4, atol=1e-4)
def fft_axis_negative_and_2d():
  x = jnp.arange(12.0).reshape(3, 4) ** 1.5
  return jnp.fft.fft(x, axis=0), jnp.fft.fft(x, axis=-2, n=5), jnp.fft.rfft(x, axis=0)


@program
def fft_axis_out_of_range():
  return jnp.fft.fft(jnp.ones((2, 3)), axis=2)


@program(rtol=1e-4, atol=1e-4)
def rfft_irfft_odd_lengths():
  x = jnp.array(X7)
  r = jnp.fft.rfft(x)
  return r.shape, jnp.fft.irfft(r), jnp.fft.irfft(r, n=7), jnp.fft.irfft(r, n=3), jnp.fft.irfft(r, n=20).shape


@program(rtol=1e-4, atol=1e-4)
def irfft_imag_of_dc_ignored():
  return jnp.fft.irfft(jnp.array([1 + 5j, 2 - 1j, 3 + 7j])), jnp.fft.irfft(jnp.array([1 + 5j, 2 - 1j, 3 + 7j]), n=5)


@program(rtol=1e-4, atol=1e-4)
def hfft_ihfft():
  x = jnp.array([1.0 + 0j, 2.0 - 1j, 0.5 + 3j])
  return (jnp.fft.hfft(x), jnp.fft.hfft(x, n=5), jnp.fft.hfft(x, norm="ortho"),
          jnp.fft.ihfft(jnp.array(X7)), jnp.fft.ihfft(jnp.array(X7), n=4, norm="forward"))


@program(rtol=1e-4, atol=1e-4)
def fft2_fftn_s_and_axes():
  x = jnp.arange(24.0).reshape(2, 3, 4) % 5
  return (jnp.fft.fft2(x).shape, jnp.fft.fft2(x, s=(2, 5)), jnp.fft.fftn(x, axes=(0, 2)),
          jnp.fft.fftn(x, s=(3, 3), axes=(-1, 0)), jnp.fft.ifftn(x, s=(1, 2, 3)),
          jnp.fft.ifft2(x, axes=(0, 1), norm="ortho"))


@program
def fftn_repeated_axes_error():
  return jnp.fft.fftn(jnp.ones((2, 3)), axes=(0, 0))


@program
def fft2_repeated_axes_error():
  return jnp.fft.fft2(jnp.ones((2, 3)), axes=(1, -1))


@program
def fftn_s_axes_length_mismatch():
  return jnp.fft.fftn(jnp.ones((2, 3)), s=(2, 3), axes=(0,))


@program
def fftn_too_many_axes():
  return jnp.fft.fftn(jnp.ones((2, 2, 2, 2, 2)))


@program(rtol=1e-4, atol=1e-4)
def rfftn_irfftn_shapes_and_values():
  x = jnp.arange(30.0).reshape(2, 3, 5) % 7
  r = jnp.fft.rfftn(x)
  return (r.shape, jnp.fft.irfftn(r).shape, jnp.fft.irfftn(r, s=(2, 3, 5)),
          jnp.fft.rfftn(x, axes=(0, 1)).shape, jnp.fft.rfftn(x, s=(4, 4), axes=(1, 2)),
          jnp.fft.irfftn(r, s=(3, 4, 6)).shape, jnp.fft.rfft2(x).shape, jnp.fft.irfft2(r).shape)


@program(rtol=1e-4, atol=1e-4)
def rfftn_ortho_forward():
  x = jnp.arange(12.0).reshape(3, 4)
  return jnp.fft.rfftn(x, norm="ortho"), jnp.fft.irfftn(jnp.fft.rfftn(x, norm="forward"), s=x.shape, norm="forward")


@program
def fftfreq_and_rfftfreq():
  return (jnp.fft.fftfreq(5), jnp.fft.fftfreq(6, d=0.5), jnp.fft.rfftfreq(7, d=2.0),
          jnp.fft.rfftfreq(8), jnp.fft.fftfreq(4, dtype=jnp.float16),
          jnp.fft.fftfreq(1), jnp.fft.rfftfreq(1))


@program(x64=True)
def fftfreq_x64_dtypes():
  return jnp.fft.fftfreq(4), jnp.fft.rfftfreq(4, d=0.1), jnp.fft.fftfreq(3, dtype=jnp.float32)


@program
def fftshift_ifftshift_axes():
  x = jnp.arange(15).reshape(3, 5)
  return (jnp.fft.fftshift(x), jnp.fft.ifftshift(x), jnp.fft.fftshift(x, axes=0),
          jnp.fft.ifftshift(x, axes=(-1,)), jnp.fft.fftshift(jnp.arange(5)),
          jnp.fft.ifftshift(jnp.fft.fftshift(jnp.arange(7))), jnp.fft.fftshift(x, axes=1).dtype)


@program(rtol=1e-4, atol=1e-4)
def fft_grad_real_loss():
  f = lambda x: jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2)
  g = lambda x: jnp.sum(jnp.fft.rfft(x).real * jnp.arange(4.0))
  h = lambda x: jnp.sum(jnp.fft.irfft(x * (1 + 1j)) * jnp.arange(6.0))
  return jax.grad(f)(jnp.array(X7)), jax.grad(g)(jnp.array(X7)), jax.grad(h)(jnp.arange(4.0))


@program(rtol=1e-4, atol=1e-4)
def fft_grad_with_padding_and_norm():
  f = lambda x: jnp.sum(jnp.fft.rfft(x, n=10, norm="ortho").imag * jnp.arange(6.0))
  g = lambda x: jnp.sum(jnp.fft.fft(x, n=3, norm="forward").real)
  return jax.grad(f)(jnp.array(X7)), jax.grad(g)(jnp.array(X7))


@program(rtol=1e-4, atol=1e-4)
def fft_grad_complex_input():
  x = jnp.array([1 + 2j, -1j, 3.0, 0.5 - 0.5j], jnp.complex64)
  return jax.grad(lambda z: jnp.sum(jnp.abs(jnp.fft.ifft(z, norm="ortho")) ** 2 * jnp.arange(4.0)))(x)


@program(rtol=1e-4, atol=1e-4)
def fft_jvp_rfftn_irfftn():
  x = jnp.arange(12.0).reshape(3, 4)
  p, t = jax.jvp(jnp.fft.rfftn, (x,), (jnp.ones_like(x),))
  p2, t2 = jax.jvp(lambda r: jnp.fft.irfftn(r, s=(3, 4)), (p,), (t,))
  return p, t, p2, t2


@program(rtol=1e-4, atol=1e-4)
def fft_grad_hfft_ihfft():
  f = lambda x: jnp.sum(jnp.fft.hfft(x.astype(jnp.complex64) * (1 - 1j)) * jnp.arange(4.0))
  g = lambda x: jnp.sum(jnp.fft.ihfft(x).imag * jnp.arange(4.0))
  return jax.grad(f)(jnp.arange(3.0)), jax.grad(g)(jnp.array(X7))


@program(rtol=1e-4, atol=1e-4)
def fft_vmap_axes():
  x = jnp.arange(24.0).reshape(2, 3, 4)
  return (jax.vmap(jnp.fft.fft)(x), jax.vmap(lambda v: jnp.fft.rfft(v, axis=0), in_axes=2)(x),
          jax.vmap(jnp.fft.fft2, in_axes=1, out_axes=2)(x).shape,
          jax.vmap(lambda v: jnp.fft.irfftn(v, s=(2, 4)))(jnp.fft.rfftn(x, axes=(1, 2))))


@program(rtol=1e-4, atol=1e-4)
def fft_inside_jit_with_static_n():
  f = jax.jit(lambda x, n: jnp.fft.rfft(x, n=n), static_argnums=1)
  return f(jnp.array(X7), 5), f(jnp.array(X7), 12).shape


@program(x64=True)
def fft_x64_dtypes_and_values():
  x = jnp.array(X7)
  return (jnp.fft.fft(x), jnp.fft.rfft(x).dtype, jnp.fft.irfft(jnp.fft.rfft(x), n=7),
          jnp.fft.fft(jnp.arange(4)).dtype, jnp.fft.fft(jnp.arange(4, dtype=jnp.float32)).dtype,
          jnp.fft.hfft(jnp.arange(3.0)).dtype)


@program(x64=True)
def linalg_x64_values():
  a = jnp.array(G3)
  return (jnp.linalg.det(a), jnp.linalg.inv(a), jnp.linalg.slogdet(a), jnp.linalg.solve(a, jnp.ones(3)),
          jnp.linalg.eigvalsh(jnp.array(A3)), jnp.linalg.svd(a, compute_uv=False),
          jnp.linalg.norm(a, ord="nuc"), jnp.linalg.cholesky(jnp.array(A3)),
          jnp.linalg.det(jnp.array([[1, 2], [3, 4]])).dtype)


@program(x64=True)
def linalg_x64_grads():
  a = jnp.array(G3)
  return (jax.grad(jnp.linalg.det)(a), jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(a),
          jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m)))(a),
          jax.grad(lambda m: jnp.linalg.norm(m, ord=2))(a))


@program
def fft_float64_input_without_x64():
  x = np.arange(4.0)
  r = jnp.fft.fft(x)
  return r.dtype, jnp.fft.rfft(np.arange(4, dtype=np.int64)).dtype


@program
def irfft_n_one_and_empty_error():
  return jnp.fft.irfft(jnp.ones(3, jnp.complex64), n=1)


@program
def fft_empty_axis_error():
  return jnp.fft.fft(jnp.ones((0,)))


# --- second round: corners found by reading both implementations ------------------------------

@program
def lstsq_zero_matrix_rank_zero():
  x, res, rank, sv = jnp.linalg.lstsq(jnp.zeros((3, 2)), jnp.array([1.0, 2.0, 3.0]))
  return x, res, rank, sv


@program
def lstsq_empty_matrix():
  x, res, rank, sv = jnp.linalg.lstsq(jnp.zeros((0, 3)), jnp.zeros(0))
  return x, res, rank, sv


@program(x64=True)
def lstsq_numpy_resid_empty_dtype_x64():
  a = jnp.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]], jnp.float32)
  x, res, rank, sv = jnp.linalg.lstsq(a, jnp.ones(3, jnp.float32), numpy_resid=True)
  return res, rank, x.dtype, sv.dtype


@program
def lstsq_negative_rcond_and_complex():
  a = jnp.array([[1.0, 0.0], [0.0, 1e-6], [0.0, 0.0]])
  c = jnp.array([[1 + 1j, 0], [0, 2j], [1, 1]], jnp.complex64)
  xc, rc, kc, sc = jnp.linalg.lstsq(c, jnp.array([1.0, 2.0, 3.0]))
  return jnp.linalg.lstsq(a, jnp.ones(3), rcond=-1.0)[2], kc, sc.dtype, xc.dtype, rc.dtype


@program(rtol=1e-3, atol=1e-4)
def lstsq_grad():
  a = jnp.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
  return jax.grad(lambda m: jnp.sum(jnp.linalg.lstsq(m, jnp.array([1.0, 2.0, 2.0]))[0]))(a)


@program
def norm_axis_as_list():
  return jnp.linalg.norm(jnp.ones((2, 3)), axis=[0, 1])


@program
def vector_norm_int_input_orders():
  x = jnp.array([3, -4, 0], jnp.int32)
  outs = []
  for o in (2, 1, np.inf, -np.inf, 3, 0):
    try:
      r = jnp.linalg.vector_norm(x, ord=o)
      outs.append((str(r.dtype), float(r)))
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def norm_empty_inputs():
  e = jnp.zeros((0,))
  m = jnp.zeros((0, 3))
  return (jnp.linalg.norm(e), jnp.linalg.norm(e, ord=np.inf), jnp.linalg.norm(e, ord=1),
          jnp.linalg.norm(m, ord=1), jnp.linalg.norm(m, ord=np.inf), jnp.linalg.norm(m, ord=2),
          jnp.linalg.norm(m, ord="fro"))


@program
def norm_empty_min_orders_error():
  return jnp.linalg.norm(jnp.zeros((0,)), ord=-np.inf)


@program
def norm_zero_dim_with_ord():
  return jnp.linalg.norm(jnp.array(3.0), ord=1)


@program
def norm_zero_dim_without_ord():
  return jnp.linalg.norm(jnp.array(-3.0)), jnp.linalg.norm(jnp.array(-3.0), keepdims=True)


@program
def norm_grads_nonsmooth_at_zero():
  z = jnp.zeros(3)
  return (jax.grad(lambda x: jnp.linalg.norm(x, ord=0.5))(z),
          jax.grad(lambda x: jnp.linalg.norm(x, ord=-np.inf))(z),
          jax.grad(lambda x: jnp.linalg.norm(x, ord=0))(z),
          jax.grad(lambda x: jnp.linalg.norm(x, ord=-1))(jnp.array([1.0, 0.0])))


@program(rtol=1e-4, atol=1e-5)
def matrix_norm_grads_at_zero():
  z = jnp.zeros((2, 2))
  return (jax.grad(lambda m: jnp.linalg.norm(m, ord=2))(z),
          jax.grad(lambda m: jnp.linalg.norm(m, ord="nuc"))(z),
          jax.grad(lambda m: jnp.linalg.norm(m, ord=1))(z),
          jax.grad(lambda m: jnp.linalg.norm(m, ord=-np.inf))(z))


@program
def pinv_1d_error():
  return jnp.linalg.pinv(jnp.ones(3))


@program
def pinv_empty_and_complex():
  c = jnp.array([[1 + 1j, 0], [0, 2j], [1, 1]], jnp.complex64)
  return jnp.linalg.pinv(jnp.zeros((0, 3))).shape, jnp.linalg.pinv(c)


@program(rtol=1e-4, atol=1e-5)
def pinv_batched_rtol_array():
  a = jnp.stack([jnp.diag(jnp.array([1.0, 0.05])), jnp.diag(jnp.array([1.0, 0.05]))])
  return jnp.linalg.pinv(a, rtol=jnp.array([0.01, 0.1]))


@program
def pinv_rtol_and_rcond_both_error():
  return jnp.linalg.pinv(jnp.eye(2), rtol=0.1, rcond=0.1)


@program(rtol=1e-4, atol=1e-5)
def pinv_grad_hermitian_and_wide():
  h = jnp.array([[2.0, 1.0], [0.0, 3.0]])
  return (jax.grad(lambda m: jnp.sum(jnp.linalg.pinv(m, hermitian=True) * jnp.arange(4.0).reshape(2, 2)))(h),
          jax.jacfwd(lambda m: jnp.linalg.pinv(m))(jnp.arange(6.0).reshape(3, 2) + 1).shape)


@program(rtol=1e-3, atol=1e-3)
def det_4x4_lu_path_and_grads():
  a = jnp.array([[2.0, -1.0, 0.0, 1.0], [3.0, 1.0, 4.0, 0.0], [-1.0, 2.0, 1.5, 2.0],
                 [0.5, 0.0, 1.0, 3.0]])
  sing1 = a.at[3].set(a[0] + a[1])                 # rank 3
  sing2 = sing1.at[2].set(2 * a[0])                # rank 2
  g = jax.grad(jnp.linalg.det)
  return jnp.linalg.det(a), g(a), g(sing1), g(sing2), jnp.linalg.det(sing1)


@program(rtol=1e-3, atol=1e-3)
def det_1x1_and_grad():
  return (jnp.linalg.det(jnp.array([[-3.0]])), jax.grad(jnp.linalg.det)(jnp.array([[-3.0]])),
          jax.grad(jnp.linalg.det)(jnp.array([[0.0]])))


@program(rtol=1e-3, atol=1e-3)
def det_complex_4x4_and_jvp():
  a = jnp.array([[2.0, -1.0, 0.0, 1.0], [3.0, 1.0, 4.0, 0.0], [-1.0, 2.0, 1.5, 2.0],
                 [0.5, 0.0, 1.0, 3.0]]) * (1 + 0.5j)
  return jnp.linalg.det(a), jax.jvp(jnp.linalg.det, (a,), (jnp.eye(4, dtype=a.dtype) * 1j,))


@program
def slogdet_grad_singular_small():
  g = jax.grad(lambda m: jnp.linalg.slogdet(m)[1])
  return g(jnp.array([[0.0]])), g(jnp.array([[1.0, 2.0], [2.0, 4.0]])), g(jnp.zeros((2, 2)))


@program(rtol=1e-4, atol=1e-4)
def slogdet_complex_grads():
  c = jnp.array([[1 + 1j, 2.0], [3.0, 4 - 2j]], jnp.complex64)
  c3 = jnp.array([[1 + 1j, 2.0, 0], [3.0, 4 - 2j, 1j], [0, 1, 2]], jnp.complex64)
  f = lambda m: jnp.linalg.slogdet(m)[1]
  s = lambda m: jnp.angle(jnp.linalg.slogdet(m)[0])
  return jax.grad(f)(c), jax.grad(f)(c3), jax.grad(s)(c), jax.grad(s)(c3)


@program(rtol=1e-4, atol=1e-4)
def slogdet_jvp_small_sign_tangent():
  c = jnp.array([[1 + 1j, 2.0], [3.0, 4 - 2j]], jnp.complex64)
  return jax.jvp(jnp.linalg.slogdet, (c,), (jnp.ones_like(c) * 1j,))


@program(rtol=1e-4, atol=1e-4)
def slogdet_vmap_and_4x4_singular():
  a = jnp.stack([_g3(), -_a3(), _s3()])
  s4 = jnp.ones((4, 4))
  return jax.vmap(jnp.linalg.slogdet)(a), jnp.linalg.slogdet(s4), jnp.linalg.slogdet(s4, method="qr")


@program(rtol=1e-3, atol=1e-4)
def svd_grad_degenerate_and_singular():
  w = jnp.arange(9.0).reshape(3, 3)
  def f(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(((u * s) @ vh) * w)
  def g(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(jnp.abs(u[:, 0] * vh[0]))
  return f(jnp.eye(3)), jax.grad(f)(jnp.eye(3)), jax.grad(f)(_s3()), jnp.isfinite(jax.grad(g)(jnp.eye(3))).all()


@program(rtol=1e-3, atol=1e-4)
def svd_grad_complex_singular_values():
  c = jnp.array([[1 + 1j, 2.0], [0.5, 1j]], jnp.complex64)
  return jax.grad(lambda m: jnp.sum(jnp.linalg.svd(m, compute_uv=False)))(c)


@program
def svd_subset_by_index_cpu():
  return jnp.linalg.svd(_g3(), full_matrices=False, subset_by_index=(0, 2))


@program(rtol=1e-4, atol=1e-4)
def svd_vmap_and_hermitian_negative():
  a = jnp.array([[-2.0, 0.0], [0.0, 1.0]])
  u, s, vh = jnp.linalg.svd(a, hermitian=True)
  return jax.vmap(lambda m: jnp.linalg.svd(m, compute_uv=False))(jnp.stack([_g3(), _a3()])), s, (u * s) @ vh


@program
def qr_grad_wide_error():
  return jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[1]))(jnp.arange(6.0).reshape(2, 3) + 1)


@program
def qr_grad_complete_tall_error():
  return jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a, mode="complete")[1]))(jnp.arange(6.0).reshape(3, 2) + 1)


@program(rtol=1e-4, atol=1e-4)
def qr_raw_values_and_complex():
  a = jnp.arange(12.0).reshape(4, 3) + jnp.eye(4, 3)
  h, tau = jnp.linalg.qr(a, mode="raw")
  c = jnp.array([[1 + 1j, 2.0], [0.5, 1j], [1, 1]], jnp.complex64)
  q, r = jnp.linalg.qr(c)
  return h, tau, q @ r, q.dtype, jnp.linalg.qr(a, mode="full")[0].shape


@program(rtol=1e-4, atol=1e-4)
def qr_batched_vmap():
  a = jnp.stack([_g3(), _a3()])
  q, r = jax.vmap(jnp.linalg.qr)(a)
  return q @ r, jnp.abs(r)


@program
def cholesky_grad_indefinite_and_upper():
  bad = jnp.array([[1.0, 2.0], [2.0, 1.0]])
  g = jax.grad(lambda m: jnp.sum(jnp.linalg.cholesky(m)))(bad)
  gu = jax.grad(lambda m: jnp.sum(jnp.linalg.cholesky(m, upper=True)))(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
  return jnp.isnan(g).all(), gu


@program
def cholesky_symmetrize_false_uses_lower():
  m = jnp.array([[4.0, 100.0], [2.0, 5.0]])
  return jnp.linalg.cholesky(m, symmetrize_input=False), jnp.linalg.cholesky(m)


@program(rtol=1e-4, atol=1e-4)
def cholesky_complex_and_int():
  h = jnp.array([[4.0, 1 - 1j], [1 + 1j, 3.0]], jnp.complex64)
  r = jnp.linalg.cholesky(jnp.array([[4, 2], [2, 5]]))
  return jnp.linalg.cholesky(h), jnp.linalg.cholesky(h, upper=True), r, r.dtype


@program(rtol=1e-4, atol=1e-4)
def eigh_symmetrize_false_grad():
  m = jnp.array([[2.0, 1.0], [0.0, 3.0]])
  f = lambda a: jnp.linalg.eigh(a, symmetrize_input=False)[0] @ jnp.array([1.0, 2.0])
  g = lambda a: jnp.linalg.eigh(a)[0] @ jnp.array([1.0, 2.0])
  return jax.grad(f)(m), jax.grad(g)(m)


@program(rtol=1e-4, atol=1e-4)
def eigh_vmap_and_jvp_projector():
  b = jnp.stack([_a3(), jnp.diag(jnp.array([3.0, 1.0, 2.0]))])
  w = jax.vmap(lambda m: jnp.linalg.eigh(m)[0])(b)
  def proj(a):
    v = jnp.linalg.eigh(a)[1]
    return jnp.outer(v[:, -1], v[:, -1])
  return w, jax.jvp(proj, (_a3(),), (jnp.ones((3, 3)),))


@program(rtol=1e-3, atol=1e-3)
def eigvals_grad_real_part():
  return jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a).real))(_g3())


@program(rtol=1e-3, atol=1e-3)
def eig_jvp_eigenvalues():
  a = jnp.array([[2.0, 1.0], [0.5, 3.0]])
  w, dw = jax.jvp(lambda m: jnp.linalg.eig(m)[0], (a,), (jnp.eye(2),))
  return jnp.sort(w.real), jnp.sort(dw.real)


@program
def eig_grad_eigenvectors_error():
  return jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eig(a)[1])))(_g3())


@program(rtol=1e-4, atol=1e-4)
def solve_hessian_and_jacfwd():
  b = jnp.array([1.0, -1.0, 2.0])
  h = jax.hessian(lambda m: jnp.sum(jnp.linalg.solve(m, b)))(_g3())
  j = jax.jacfwd(lambda v: jnp.linalg.solve(_g3(), v))(b)
  return h.shape, h[0, 0], j


@program
def solve_incompatible_batch_error():
  return jnp.linalg.solve(jnp.stack([_g3(), _a3()]), jnp.ones((4, 3, 2)))


@program
def solve_1d_a_error():
  return jnp.linalg.solve(jnp.ones(3), jnp.ones(3))


@program(rtol=1e-4, atol=1e-4)
def solve_complex_mixed_dtypes():
  a = jnp.array([[1 + 1j, 2.0], [0.0, 1j]], jnp.complex64)
  r = jnp.linalg.solve(a, jnp.array([1, 2]))
  return r, r.dtype


@program(rtol=1e-4, atol=1e-4)
def inv_grad_and_vmap():
  g = jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m) * jnp.arange(9.0).reshape(3, 3)))(_g3())
  return g, jax.vmap(jnp.linalg.inv, in_axes=2, out_axes=0)(jnp.stack([_g3(), _a3()], axis=2))


@program(rtol=1e-4, atol=1e-4)
def matrix_power_exponents_and_int_negative():
  m = jnp.array([[2.0, 1.0], [1.0, 1.0]])
  return ([jnp.linalg.matrix_power(m, k) for k in (1, 2, 3, 4, 5, 7, -1, -2)],
          jnp.linalg.matrix_power(jnp.array([[2, 1], [1, 1]]), -1))


@program
def matrix_power_numpy_int_exponent_and_1d_error():
  r = jnp.linalg.matrix_power(jnp.eye(2), np.int64(3))
  try:
    jnp.linalg.matrix_power(jnp.ones(3), 2)
  except Exception as e:
    return r, type(e).__name__, str(e)


@program
def matrix_rank_batched_rtol_and_hermitian():
  a = jnp.stack([jnp.diag(jnp.array([1.0, 0.05, 0.0])), jnp.diag(jnp.array([1.0, 0.05, 0.0]))])
  return (jnp.linalg.matrix_rank(a, rtol=jnp.array([0.01, 0.1])),
          jnp.linalg.matrix_rank(jnp.diag(jnp.array([-2.0, 1.0, 0.0])), hermitian=True),
          jnp.linalg.matrix_rank(jnp.array([[1, 2], [2, 4]])))


@program
def matrix_rank_tol_and_rtol_error():
  return jnp.linalg.matrix_rank(jnp.eye(2), rtol=0.1, tol=0.1)


@program(rtol=1e-3, atol=1e-3)
def cond_rectangular_batched_and_errors():
  r = jnp.arange(6.0).reshape(2, 3) + jnp.eye(2, 3)
  outs = [jnp.linalg.cond(r), jnp.linalg.cond(r, p=-2), jnp.linalg.cond(jnp.stack([_g3(), _a3()]), p=1)]
  for bad in (lambda: jnp.linalg.cond(r, p=1), lambda: jnp.linalg.cond(jnp.ones(3)),
              lambda: jnp.linalg.cond(jnp.zeros((0, 2)))):
    try:
      bad()
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def cond_nan_input():
  return jnp.linalg.cond(jnp.array([[1.0, jnp.nan], [0.0, 1.0]]), p=1), jnp.linalg.cond(jnp.zeros((2, 2)), p=1)


@program(rtol=1e-4, atol=1e-4)
def multi_dot_chain_order_values_and_precision():
  a = jnp.arange(20.0).reshape(10, 2) / 7
  b = jnp.arange(6.0).reshape(2, 3) - 2
  c = jnp.arange(12.0).reshape(3, 4) / 3
  d = jnp.arange(4.0)
  return (jnp.linalg.multi_dot([a, b, c, d]),
          jnp.linalg.multi_dot([a, b], precision=lax.Precision.HIGHEST),
          jnp.linalg.multi_dot([jnp.arange(2), jnp.arange(2)]))


@program
def multi_dot_mismatch_error():
  return jnp.linalg.multi_dot([jnp.ones((2, 3)), jnp.ones((2, 3))])


@program
def tensorsolve_mismatch_and_tensorinv_ind_errors():
  outs = []
  for bad in (lambda: jnp.linalg.tensorsolve(jnp.ones((2, 3, 4)), jnp.ones((2, 3))),
              lambda: jnp.linalg.tensorinv(jnp.eye(4), ind=0),
              lambda: jnp.linalg.tensorinv(jnp.eye(4), ind=1.5)):
    try:
      bad()
      outs.append("no error")
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def cross_broadcast_and_int():
  r = jnp.linalg.cross(jnp.array([[1, 0, 0], [0, 1, 0]]), jnp.array([0, 0, 1]))
  return r, r.dtype, jnp.cross(jnp.ones((2, 3)), jnp.ones((1, 2)), axisa=-1, axisb=-1).shape


@program
def cross_axis_keyword_on_2vectors():
  return jnp.cross(jnp.ones((2, 2)), jnp.ones((2, 3)), axis=-1)


@program
def linalg_outer_bool_and_complex():
  return (jnp.linalg.outer(jnp.array([True, False]), jnp.array([True, True])),
          jnp.linalg.outer(jnp.array([1j, 2]), jnp.array([1.0, 2.0])))


@program
def linalg_vecdot_mismatch_error():
  return jnp.linalg.vecdot(jnp.ones(3), jnp.ones(4))


@program
def linalg_tensordot_and_trace_dtypes():
  t = jnp.linalg.trace(jnp.ones((2, 2), jnp.int8))
  b = jnp.linalg.trace(jnp.ones((2, 2), jnp.bool_))
  return t, t.dtype, b, b.dtype, jnp.linalg.tensordot(jnp.ones((2, 3)), jnp.ones((2, 3)), axes=([0, 1], [0, 1]))


# --- fft, second round -------------------------------------------------------------------------

@program
def fftfreq_int_dtype():
  return jnp.fft.fftfreq(4, dtype=jnp.int32), jnp.fft.fftfreq(5, d=0.1, dtype=jnp.int32)


@program
def rfftfreq_int_dtype():
  return jnp.fft.rfftfreq(4, dtype=jnp.int32), jnp.fft.rfftfreq(4, d=0.5, dtype=jnp.int32)


@program
def fftfreq_complex_dtype():
  return jnp.fft.fftfreq(4, dtype=jnp.complex64), jnp.fft.rfftfreq(4, dtype=jnp.complex64)


@program
def fftfreq_n_list_error():
  return jnp.fft.fftfreq([4])


@program
def fftfreq_d_list_error():
  return jnp.fft.fftfreq(4, d=[0.1, 0.2])


@program
def rfftfreq_d_list_error():
  return jnp.fft.rfftfreq(4, d=(0.5,))


@program
def fftfreq_zero_and_d_array_jit():
  f = jax.jit(lambda d: jnp.fft.fftfreq(4, d=d))
  return jnp.fft.fftfreq(0), jnp.fft.rfftfreq(0), f(jnp.array(0.5)), jnp.fft.fftfreq(4, d=jnp.array(2.0))


@program(x64=True)
def fftfreq_float32_d_x64():
  return jnp.fft.fftfreq(3, d=0.1, dtype=jnp.float32), jnp.fft.rfftfreq(3, d=0.1)


@program
def fftfreq_d_zero():
  return jnp.fft.fftfreq(3, d=0.0), jnp.fft.rfftfreq(3, d=0.0)


@program
def fftshift_list_axes_and_scalar():
  x = jnp.arange(12).reshape(3, 4)
  return jnp.fft.fftshift(x, axes=[0, 1]), jnp.fft.ifftshift(x, axes=[-1]), jnp.fft.fftshift(jnp.array(5))


@program
def fftshift_list_input_error():
  return jnp.fft.fftshift([1, 2, 3])


@program
def fft_weak_typed_input():
  x = jnp.broadcast_to(jnp.asarray(1.0), (4,))
  c = jnp.broadcast_to(jnp.asarray(1.0 + 0j), (4,))
  outs = (jnp.fft.fft(x), jnp.fft.rfft(x), jnp.fft.ifft(c), jnp.fft.irfft(c), jnp.fft.fftshift(x),
          jnp.fft.hfft(c), jnp.fft.ihfft(x))
  return [(o.dtype, o.weak_type) for o in outs], x.weak_type


@program
def fftn_empty_axes():
  x = jnp.arange(4.0)
  outs = []
  for f in (jnp.fft.fftn, jnp.fft.ifftn, jnp.fft.rfftn, jnp.fft.irfftn):
    try:
      r = f(x, axes=())
      outs.append((str(r.dtype), r.shape, np.asarray(r).tolist()))
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def fftn_zero_dim_input():
  outs = []
  for f in (jnp.fft.fftn, jnp.fft.rfftn, jnp.fft.ifftn):
    try:
      r = f(jnp.array(2.0))
      outs.append((str(r.dtype), r.shape))
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def irfft_length_one_input():
  outs = []
  for f in (lambda: jnp.fft.irfft(jnp.ones(1, jnp.complex64)), lambda: jnp.fft.hfft(jnp.ones(1, jnp.complex64)),
            lambda: jnp.fft.irfftn(jnp.ones((2, 1), jnp.complex64))):
    try:
      r = f()
      outs.append((str(r.dtype), r.shape, np.asarray(r).tolist()))
    except Exception as e:
      outs.append(type(e).__name__ + ": " + str(e))
  return outs


@program
def rfft_complex_input_error():
  return jnp.fft.rfft(jnp.ones(4, jnp.complex64))


@program
def fft_axis_tuple_error():
  return jnp.fft.fft(jnp.ones((2, 2)), axis=(0, 1))


@program
def fft2_three_axes_error():
  return jnp.fft.fft2(jnp.ones((2, 2, 2)), axes=(0, 1, 2))


@program
def fft_n_float_error():
  return jnp.fft.fft(jnp.ones(4), n=4.0)


@program
def fftn_negative_s_error():
  return jnp.fft.fftn(jnp.ones((2, 2)), s=(2, -1))


@program(rtol=1e-4, atol=1e-4)
def fftn_four_and_five_axes():
  x = (jnp.arange(32.0).reshape(2, 2, 2, 2, 2) % 5) - 2
  r = jnp.fft.rfftn(x)
  return (jnp.fft.fftn(x[0]), jnp.fft.ifftn(x), r, jnp.fft.irfftn(r, s=x.shape),
          jnp.fft.fftn(x, axes=(4, 0, 2, 1)))


@program(rtol=1e-4, atol=1e-4)
def fft_axes_order_matters_for_rfftn():
  x = jnp.arange(12.0).reshape(3, 4) % 5
  return jnp.fft.rfftn(x, axes=(1, 0)), jnp.fft.rfftn(x, axes=(0, 1)), jnp.fft.irfftn(jnp.fft.rfftn(x, axes=(1, 0)), axes=(1, 0), s=(4, 3))


@program(rtol=1e-4, atol=1e-4)
def hfft_ihfft_norms_and_odd_n():
  x = jnp.array([1.0 + 0j, 2.0 - 1j, 0.5 + 3j, -1j])
  return ([jnp.fft.hfft(x, n=7, norm=n) for n in ("backward", "ortho", "forward")],
          [jnp.fft.ihfft(jnp.array(X7), n=5, norm=n) for n in ("backward", "ortho", "forward")])


@program
def hfft_axis_tuple_error():
  return jnp.fft.hfft(jnp.ones((2, 2)), axis=(0,))


@program(x64=True)
def fft_norm_x64_float32_input():
  x = jnp.array(X7, jnp.float32)
  outs = (jnp.fft.fft(x, norm="ortho"), jnp.fft.ifft(x, norm="backward"), jnp.fft.rfft(x, norm="forward"),
          jnp.fft.irfft(x.astype(jnp.complex64), norm="ortho"), jnp.fft.hfft(x.astype(jnp.complex64), norm="forward"),
          jnp.fft.ihfft(x, norm="ortho"))
  return [(o.dtype, o.weak_type) for o in outs]


@program(rtol=1e-4, atol=1e-4)
def fft_jit_vs_eager_and_linear_transpose():
  x = jnp.array(X7)
  t = jax.linear_transpose(jnp.fft.rfft, x)
  t2 = jax.linear_transpose(lambda v: jnp.fft.irfft(v, n=7), jnp.fft.rfft(x))
  return jax.jit(jnp.fft.rfft)(x), t(jnp.fft.rfft(x)), t2(x)


@program(rtol=1e-4, atol=1e-4)
def fft_vjp_complex_cotangent():
  x = jnp.array([1 + 2j, -1j, 3.0, 0.5 - 0.5j], jnp.complex64)
  out, vjp = jax.vjp(lambda z: jnp.fft.fft(z, n=6, norm="ortho"), x)
  return vjp(jnp.arange(6.0).astype(jnp.complex64) * (1 - 1j))


@program(rtol=1e-4, atol=1e-4)
def fft_hessian_and_jacrev():
  f = lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2)
  return jax.hessian(f)(jnp.array([1.0, 2.0, -1.0])), jax.jacrev(lambda x: jnp.fft.irfft(x, n=4))(jnp.array([1.0 + 0j, 2.0, 3.0]))


@program
def lax_fft_direct():
  x = jnp.arange(4.0)
  return (lax.fft(x.astype(jnp.complex64), "FFT", (4,)), lax.fft(x, lax.FftType.RFFT, (4,)),
          lax.fft(jnp.ones(3, jnp.complex64), "IRFFT", (4,)))


@program
def lax_fft_bad_lengths_error():
  return lax.fft(jnp.ones((2, 4), jnp.complex64), "FFT", (3,))


@program(rtol=1e-4, atol=1e-4)
def svd_jvp_uv_tangent_diagonal():
  a = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]])
  (u, s, vh), (du, ds, dvh) = jax.jvp(lambda m: jnp.linalg.svd(m, full_matrices=False), (a,),
                                      (jnp.arange(9.0).reshape(3, 3),))
  return jnp.diagonal(u.T @ du), jnp.diagonal(dvh @ vh.T), ds


@program(rtol=1e-3, atol=1e-3)
def svd_grad_reconstruction_regular():
  a = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]])
  def f(m):
    u, s, vh = jnp.linalg.svd(m, full_matrices=False)
    return jnp.sum(((u * s) @ vh) * jnp.arange(9.0).reshape(3, 3))
  return jax.grad(f)(a)


@program(rtol=1e-3, atol=1e-3)
def inv_second_derivative():
  h = jax.hessian(lambda m: jnp.sum(jnp.linalg.inv(m)))(_g3())
  g2 = jax.grad(lambda t: jnp.sum(jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m)))(_g3() * t)))(1.0)
  return h[0, 0], g2


@program(rtol=1e-3, atol=1e-3)
def solve_second_derivative_wrt_b_through_a():
  b = jnp.array([1.0, -1.0, 2.0])
  return jax.hessian(lambda v: jnp.sum(jnp.linalg.solve(_g3() * v[0], v)))(b)


@program(rtol=1e-4, atol=1e-4)
def eigh_symmetrize_false_value_under_grad():
  m = jnp.array([[2.0, 1.0], [0.0, 3.0]])
  f = lambda a: jnp.linalg.eigh(a, symmetrize_input=False)[0] @ jnp.array([1.0, 2.0])
  return f(m), jax.value_and_grad(f)(m)[0], jax.jvp(f, (m,), (jnp.zeros((2, 2)),))[0]
