"""The rest of jax.scipy.linalg and the jax.lax.linalg primitives behind it, beyond what
scipy_edge.py reaches: schur (real and complex, batched, vmap, jit, errors), rsf2csf,
hessenberg with calc_q, qr_multiply (modes, vectors, pivoting, conjugate, batches), polar
(qdwh and svd, both sides, their errors and gradients), eigh_tridiagonal (select, tol,
eigenvectors, complex input), expm_frechet (batches, compute_expm, gradients), sqrtm, funm
(disp=False), solve_sylvester (schur and eigen, complex, rectangular, singular, gradients);
every special matrix (companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard,
helmert, invhilbert, pascal, invpascal, leslie) with its options, dtypes, batches and errors;
batched toeplitz/hankel; and lax.linalg's schur, hessenberg, tridiagonal, ormqr,
cholesky_update, symmetric_product, qdwh and tridiagonal_solve(perturb_singular=True).

Schur vectors, eigenvectors and Householder vectors are unique only up to sign or phase (and
LAPACK builds may round differently), so programs return invariants for them:
reconstructions, absolute values, sorted eigenvalues."""
from harness import framework, program, submodule

jax, jnp, lax = framework()
la = submodule("scipy.linalg")
lla = submodule("lax.linalg")

G3 = [[1.0, 2.0, 3.0], [1.0, 4.0, 2.0], [3.0, 2.0, 1.0]]       # symmetric, distinct eigenvalues
N3 = [[0.0, 3.0, 3.0], [0.0, 1.0, 2.0], [2.0, 0.0, 1.0]]       # a complex eigenvalue pair
H4 = [[1.0, 2.0, 3.0, 4.0], [1.0, 4.0, 2.0, 3.0], [3.0, 2.0, 1.0, 4.0], [2.0, 3.0, 2.0, 2.0]]


def f32(v):
  return jnp.array(v, jnp.float32)


def _recon(z, t):
  return z @ t @ jnp.conj(z).T


def _sorted_eigs(t):
  """The diagonal of a triangular form, sorted by real then imaginary part."""
  return jnp.sort_complex(jnp.diag(t))


# --- lax.linalg.schur / scipy.linalg.schur ------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def lax_schur_real_reconstructs():
  a = f32(N3)
  t, q = lla.schur(a)
  return (type(lla.schur(a)).__name__, t.dtype, q.shape, _recon(q, t),
          jnp.abs(jnp.tril(t, -2)), jnp.abs(q.T @ q))


@program(rtol=1e-4, atol=1e-5)
def lax_schur_no_vectors_and_complex():
  a = f32(G3)
  (t,) = lla.schur(a, compute_schur_vectors=False)
  tc, qc = lla.schur(a.astype(jnp.complex64))
  return t.shape, jnp.sort(jnp.diag(t)), _sorted_eigs(tc), _recon(qc, tc), qc.dtype


@program(rtol=1e-4, atol=1e-5)
def lax_schur_batched_vmap_jit():
  a = jnp.stack([f32(G3), f32(N3)])
  t, q = lla.schur(a)
  tv, qv = jax.vmap(lla.schur)(a)
  tj, qj = jax.jit(lla.schur)(a)
  return (t.shape, jax.vmap(_recon)(q, t), jax.vmap(_recon)(qv, tv), jax.vmap(_recon)(qj, tj))


@program
def lax_schur_int_raises():
  return lla.schur(jnp.array([[1, 2], [3, 4]]))


@program
def lax_schur_non_square_raises():
  return lla.schur(jnp.ones((2, 3)))


@program
def lax_schur_vector_raises():
  return lla.schur(jnp.ones(3))


@program
def lax_schur_sort_raises():
  return lla.schur(f32(G3), sort_eig_vals=True)


@program
def lax_schur_grad_raises():
  return jax.grad(lambda x: lla.schur(x)[0].sum())(f32(G3))


@program(rtol=1e-4, atol=1e-5)
def schur_real_and_complex_output():
  t, z = la.schur(f32(N3))
  tc, zc = la.schur(f32(N3), output="complex")
  return (type(la.schur(f32(N3))).__name__, _recon(z, t), tc.dtype, _sorted_eigs(tc),
          _recon(zc, tc), jnp.abs(jnp.tril(tc, -1)))


@program(rtol=1e-4, atol=1e-5)
def schur_int_complex_output_and_batch():
  tc, zc = la.schur(jnp.array([[1, 2], [3, 4]]), output="complex")
  t, z = la.schur(jnp.stack([f32(G3), f32(N3)]))
  return tc.dtype, _sorted_eigs(tc), t.shape, jax.vmap(_recon)(z, t)


@program
def schur_bad_output_raises():
  return la.schur(f32(G3), output="both")


@program
def schur_int_real_output_raises():
  return la.schur(jnp.array([[1, 2], [3, 4]]))


@program(x64=True)
def schur_f64_reconstructs():
  a = jnp.array(N3, jnp.float64)
  t, z = la.schur(a)
  tc, zc = la.schur(a, output="complex")
  return t.dtype, _recon(z, t), tc.dtype, _sorted_eigs(tc)


# --- rsf2csf ------------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def rsf2csf_splits_blocks():
  t, z = la.schur(f32(N3))
  tc, zc = la.rsf2csf(t, z)
  return tc.dtype, jnp.abs(jnp.tril(tc, -1)), _sorted_eigs(tc), _recon(zc, tc)


@program(rtol=1e-4, atol=1e-5)
def rsf2csf_rotation_and_1x1():
  t, z = la.rsf2csf(f32([[0.0, -1.0], [1.0, 0.0]]), jnp.eye(2))
  return t, jnp.abs(z), la.rsf2csf(f32([[2.0]]), f32([[1.0]]))


@program(rtol=1e-4, atol=1e-5)
def rsf2csf_int_and_broadcast_batch():
  t, z = la.rsf2csf(jnp.stack([f32([[1.0, 2.0], [3.0, 4.0]])] * 2), jnp.eye(2))
  ti, _ = la.rsf2csf(jnp.array([[1, 2], [3, 4]]), jnp.eye(2, dtype=jnp.int32))
  return t.shape, z.shape, jax.vmap(_recon)(z, t), ti.dtype


@program
def rsf2csf_non_square_raises():
  return la.rsf2csf(jnp.ones((2, 3)), jnp.eye(2))


@program
def rsf2csf_bad_z_raises():
  return la.rsf2csf(jnp.eye(2), jnp.ones((2, 3)))


@program
def rsf2csf_mismatch_raises():
  return la.rsf2csf(jnp.eye(2), jnp.eye(3))


# --- hessenberg ---------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def lax_hessenberg_packed():
  a = f32(H4)
  h, taus = lla.hessenberg(a)
  q = lla.householder_product(h[1:, :-1], taus)
  q = jnp.zeros((4, 4)).at[0, 0].set(1.0).at[1:, 1:].set(q)
  return type(lla.hessenberg(a)).__name__, h.shape, taus.shape, q @ jnp.triu(h, -1) @ q.T


@program(rtol=1e-4, atol=1e-5)
def lax_hessenberg_batch_vmap_complex():
  a = jnp.stack([f32(H4), f32(H4).T])
  h, taus = lla.hessenberg(a)
  hv, tv = jax.vmap(lla.hessenberg)(a)
  hc, tc = lla.hessenberg(f32(H4).astype(jnp.complex64))
  return (h.shape, taus.shape, jnp.abs(hv - h).max(), jnp.abs(tv - taus).max(), hc.dtype,
          tc.shape, lla.hessenberg(jnp.ones((1, 1)))[1].shape)


@program
def lax_hessenberg_non_square_raises():
  return lla.hessenberg(jnp.ones((2, 3)))


@program
def lax_hessenberg_int_raises():
  return lla.hessenberg(jnp.array([[1, 2], [3, 4]]))


@program
def lax_hessenberg_jvp_raises():
  return jax.jvp(lla.hessenberg, (f32(H4),), (f32(H4),))


@program(rtol=1e-4, atol=1e-5)
def hessenberg_calc_q():
  h, q = la.hessenberg(f32(H4), calc_q=True)
  h_only = la.hessenberg(f32(H4))
  return (jnp.abs(jnp.tril(h, -2)), _recon(q, h), jnp.abs(q.T @ q), jnp.abs(h_only - h).max(),
          jnp.abs(jnp.diag(h, -1)))


@program
def hessenberg_small_and_empty():
  return (la.hessenberg(jnp.zeros((0, 0))), la.hessenberg(jnp.zeros((0, 0)), calc_q=True),
          la.hessenberg(jnp.ones((1, 1)), calc_q=True),
          la.hessenberg(f32([[1.0, 2.0], [3.0, 4.0]]), calc_q=True))


@program(rtol=1e-4, atol=1e-5)
def hessenberg_batched_and_jit():
  a = jnp.stack([f32(H4), f32(H4) * 2])
  h, q = jax.jit(lambda a: la.hessenberg(a, calc_q=True))(a)
  return h.shape, q.shape, jax.vmap(_recon)(q, h)


@program
def hessenberg_int_raises():
  return la.hessenberg(jnp.array([[1, 2], [3, 4]]))


@program
def hessenberg_grad_raises():
  return jax.grad(lambda x: la.hessenberg(x).sum())(f32(H4))


# --- lax.linalg.tridiagonal ---------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def lax_tridiagonal_lower_upper():
  a = f32([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
  arr, d, e, taus = lla.tridiagonal(a)
  arr_u, d_u, e_u, taus_u = lla.tridiagonal(a, lower=False)
  t = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)
  return (type(lla.tridiagonal(a)).__name__, arr.shape, d.shape, e.shape, taus.shape,
          jnp.sort(jnp.linalg.eigvalsh(t)), jnp.sort(jnp.linalg.eigvalsh(a)), jnp.abs(e),
          jnp.sum(d), jnp.sum(d_u), jnp.abs(e_u).sum())


@program(rtol=1e-4, atol=1e-5)
def lax_tridiagonal_complex_batch():
  a = f32([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]]).astype(jnp.complex64)
  a = a + 1j * f32([[0.0, 1.0, -1.0], [-1.0, 0.0, 2.0], [1.0, -2.0, 0.0]])
  arr, d, e, taus = lla.tridiagonal(jnp.stack([a, a]))
  dv = jax.vmap(lambda x: lla.tridiagonal(x)[1])(jnp.stack([a, a]))
  return arr.dtype, d.dtype, e.dtype, taus.dtype, d.shape, jnp.sum(d, -1), jnp.sum(dv, -1)


@program
def lax_tridiagonal_errors():
  out = []
  for x in (jnp.ones((2, 3)), jnp.zeros((0, 0)), jnp.array([[1, 2], [2, 1]])):
    try:
      lla.tridiagonal(x)
    except (TypeError, ValueError) as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


# --- ormqr / qr_multiply ------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def lax_ormqr_all_sides():
  a = f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
  h, taus = jnp.linalg.qr(a, mode="raw")
  h = h.T
  q = jnp.linalg.qr(a, mode="complete")[0]
  c = f32([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [3.0, 1.0, 0.0]])
  outs = [lla.ormqr(h, taus, c), lla.ormqr(h, taus, c, transpose=True),
          lla.ormqr(h, taus, c, left=False), lla.ormqr(h, taus, c, left=False, transpose=True)]
  want = [q @ c, q.T @ c, c @ q, c @ q.T]
  return [jnp.abs(o - w).max() < 1e-4 for o, w in zip(outs, want)], outs[0].dtype


@program(rtol=1e-4, atol=1e-5)
def lax_ormqr_complex_batch_vmap():
  a = f32([[1.0, 2.0], [3.0, 4.0]]).astype(jnp.complex64) * (1 + 2j)
  h, taus = jnp.linalg.qr(a, mode="raw")
  h = h.mT
  c = jnp.eye(2, dtype=jnp.complex64)
  qh = lla.ormqr(h, taus, c, transpose=True)
  q = lla.ormqr(h, taus, c)
  hb, tb = jnp.stack([h, h]), jnp.stack([taus, taus])
  return (jnp.abs(q @ qh), jnp.abs(lla.ormqr(hb, tb, jnp.stack([c, c])) - q).max(),
          jnp.abs(jax.vmap(lla.ormqr)(hb, tb, jnp.stack([c, c])) - q).max())


@program
def lax_ormqr_rows_mismatch_raises():
  return lla.ormqr(jnp.ones((2, 2)), jnp.ones(2), jnp.ones((3, 2)))


@program
def lax_ormqr_cols_mismatch_raises():
  return lla.ormqr(jnp.ones((2, 2)), jnp.ones(2), jnp.ones((2, 3)), left=False)


@program
def lax_ormqr_dtype_and_rank_raise():
  out = []
  for c in (jnp.ones((2, 2), jnp.int32), jnp.ones((2, 2), jnp.complex64), jnp.ones(2)):
    try:
      lla.ormqr(jnp.ones((2, 2)), jnp.ones(2), c)
    except TypeError as e:
      out.append(str(e))
  return out


@program
def lax_ormqr_jvp_raises():
  c = jnp.eye(2)
  return jax.jvp(lambda c: lla.ormqr(jnp.ones((2, 2)), jnp.ones(2), c), (c,), (c,))


@program(rtol=1e-4, atol=1e-5)
def qr_multiply_right_and_left():
  a = f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
  q, r = la.qr(a, mode="economic")
  cq, r1 = la.qr_multiply(a, f32([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]))
  qc, r2 = la.qr_multiply(a, f32([[1.0, 2.0], [3.0, 4.0]]), mode="left")
  return (cq.shape, qc.shape, jnp.abs(r1 - r).max(), jnp.abs(r2 - r).max(),
          jnp.abs(cq - f32([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]) @ q).max(),
          jnp.abs(qc - q @ f32([[1.0, 2.0], [3.0, 4.0]])).max(), jnp.abs(r))


@program(rtol=1e-4, atol=1e-5)
def qr_multiply_vectors_and_int():
  a = f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
  cq, r = la.qr_multiply(a, f32([1.0, 1.0, 1.0]))
  qc, _ = la.qr_multiply(a, f32([1.0, 2.0]), mode="left")
  ci, ri = la.qr_multiply(jnp.array([[1, 2], [3, 4]]), jnp.array([1, 2]))
  return cq.shape, qc.shape, jnp.abs(cq), jnp.abs(qc), ci.dtype, jnp.abs(ri)


@program(rtol=1e-4, atol=1e-5)
def qr_multiply_pivoting_and_wide():
  a = f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
  cq, r, p = la.qr_multiply(a, f32([1.0, 1.0, 1.0]), pivoting=True)
  cw, rw = la.qr_multiply(a.T, f32([1.0, 1.0]))
  cl, _ = la.qr_multiply(a.T, f32([1.0, 1.0]), mode="left")
  return p, p.dtype, jnp.abs(r), jnp.abs(cq), rw.shape, jnp.abs(cw), jnp.abs(cl)


@program(rtol=1e-4, atol=1e-5)
def qr_multiply_conjugate_complex():
  a = f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]).astype(jnp.complex64) * (1 + 1j)
  q, _ = la.qr(a, mode="economic")
  c = jnp.array([1.0, 2j, 1.0], jnp.complex64)
  cq, _ = la.qr_multiply(a, c, conjugate=True)
  qc, _ = la.qr_multiply(a, c[:2], mode="left", conjugate=True)
  return (cq.dtype, jnp.abs(cq - c @ jnp.conj(q)).max() < 1e-4,
          jnp.abs(qc - jnp.conj(q) @ c[:2]).max() < 1e-4)


@program(rtol=1e-4, atol=1e-5)
def qr_multiply_batches():
  a = jnp.stack([f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])] * 2)
  cq, r = la.qr_multiply(a, jnp.ones((1, 3)))
  cv, _ = la.qr_multiply(a, jnp.ones(3))
  cm, _ = jax.vmap(lambda x: la.qr_multiply(x, jnp.ones(3)))(a)
  return cq.shape, r.shape, cv.shape, jnp.abs(cv), jnp.abs(cm)


@program
def qr_multiply_bad_mode_raises():
  return la.qr_multiply(jnp.eye(2), jnp.ones(2), mode="top")


@program
def qr_multiply_right_shape_raises():
  return la.qr_multiply(jnp.ones((3, 2)), jnp.ones(2))


@program
def qr_multiply_left_shape_raises():
  return la.qr_multiply(jnp.ones((3, 2)), jnp.ones(3), mode="left")


@program
def qr_multiply_grad_raises():
  return jax.grad(lambda c: la.qr_multiply(jnp.eye(2), c)[0].sum())(jnp.ones(2))


# --- polar / qdwh -------------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def polar_qdwh_and_svd():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  return la.polar(a), la.polar(a, method="svd"), la.polar(a, side="left", method="svd")


@program(rtol=1e-4, atol=1e-5)
def polar_rectangular():
  wide = f32([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
  tall = wide.T
  return (la.polar(tall), la.polar(wide, side="left"), la.polar(wide, method="svd"),
          la.polar(tall, side="left", method="svd"))


@program(rtol=1e-4, atol=1e-5)
def polar_complex_batch_vmap_jit():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  c = a.astype(jnp.complex64) * (1 - 1j)
  b = jnp.stack([a, 2 * a])
  return (la.polar(c), la.polar(b), jax.vmap(la.polar)(b),
          jax.jit(lambda x: la.polar(x, method="svd"))(b))


@program(x64=True)
def polar_f64():
  a = jnp.array([[1.0, 2.0], [3.0, 4.0]], jnp.float64)
  return la.polar(a), la.polar(a, method="svd")


@program(rtol=1e-4, atol=1e-5)
def polar_gradients():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  g = jax.grad(lambda x: la.polar(x, method="svd")[0][0, 1])(a)
  t = jax.jvp(lambda x: la.polar(x)[1], (a,), (f32([[0.0, 1.0], [0.0, 0.0]]),))
  return g, t


@program
def polar_qdwh_grad_raises():
  return jax.grad(lambda x: la.polar(x)[0].sum())(f32([[1.0, 2.0], [3.0, 4.0]]))


@program
def polar_qdwh_wide_raises():
  return la.polar(jnp.ones((2, 3)))


@program
def polar_qdwh_left_square_raises():
  return la.polar(jnp.eye(2), side="left")


@program
def polar_bad_side_raises():
  return la.polar(jnp.eye(2), side="top")


@program
def polar_bad_method_raises():
  return la.polar(jnp.eye(2), method="newton")


@program
def polar_vector_raises():
  return la.polar(jnp.ones(3))


@program
def polar_int_qdwh_raises():
  return la.polar(jnp.array([[1, 2], [3, 4]]))


@program(rtol=1e-4, atol=1e-5)
def polar_max_iterations_ignored():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  return la.polar(a, max_iterations=1)


@program(rtol=1e-4, atol=1e-5)
def lax_qdwh_outputs():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  u, h, k, ok = lla.qdwh(a)
  u2, h2, k2, ok2 = lla.qdwh(a, max_iterations=2)
  tall = lla.qdwh(f32([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]), eps=1e-3)
  return u, h, k, ok, u2, h2, k2, ok2, tall


@program(rtol=1e-4, atol=1e-5)
def lax_qdwh_dynamic_shape_and_jvp():
  x = f32([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 0.0]])
  u, h, k, ok = lla.qdwh(x, dynamic_shape=(2, 2))
  tangent = jax.jvp(lambda m: lla.qdwh(m)[1], (f32([[2.0, 1.0], [1.0, 3.0]]),),
                    (f32([[0.0, 1.0], [0.0, 0.0]]),))[1]
  return u, h, k, ok, tangent


@program
def lax_qdwh_wide_raises():
  return lla.qdwh(jnp.ones((2, 3)))


# --- eigh_tridiagonal ---------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def eigh_tridiagonal_values_and_vectors():
  d, e = f32([1.0, 2.0, 3.0, 4.0]), f32([1.0, 1.0, 1.0])
  w = la.eigh_tridiagonal(d, e, eigvals_only=True)
  w2, v = la.eigh_tridiagonal(d, e)
  t = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)
  return w, w2, jnp.abs(v), jnp.abs(t @ v - v * w2).max() < 1e-4


@program(rtol=1e-4, atol=1e-5)
def eigh_tridiagonal_select_and_tol():
  d, e = f32([1.0, 2.0, 3.0]), f32([1.0, 1.0])
  w, v = la.eigh_tridiagonal(d, e, select="i", select_range=(1, 2))
  return (la.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(0, 0)),
          w, jnp.abs(v), la.eigh_tridiagonal(d, e, eigvals_only=True, tol=0.1),
          jnp.abs(la.eigh_tridiagonal(d, e, key=jax.random.key(1))[1]))


@program(rtol=1e-4, atol=1e-5)
def eigh_tridiagonal_complex_repeated_small():
  dc, ec = jnp.array([1.0, 2.0, 3.0], jnp.complex64), jnp.array([1j, 1.0], jnp.complex64)
  wc, vc = la.eigh_tridiagonal(dc, ec)
  wr, vr = la.eigh_tridiagonal(f32([1.0, 1.0, 1.0]), f32([0.0, 0.0]))
  return (wc, vc.dtype, jnp.abs(vc), wr, jnp.abs(vr @ vr.T),
          la.eigh_tridiagonal(f32([5.0]), f32([])), la.eigh_tridiagonal(f32([]), f32([])),
          la.eigh_tridiagonal(jnp.array([2.0], jnp.complex64), jnp.array([], jnp.complex64),
                              eigvals_only=True))


@program(x64=True)
def eigh_tridiagonal_f64():
  d = jnp.array([4.0, -1.0, 2.0, 0.5, 3.0], jnp.float64)
  e = jnp.array([1.0, 0.25, -2.0, 1.5], jnp.float64)
  t = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)
  w = la.eigh_tridiagonal(d, e, eigvals_only=True)
  return w, jnp.abs(w - jnp.linalg.eigvalsh(t)).max() < 1e-12


@program(rtol=1e-4, atol=1e-5)
def eigh_tridiagonal_jit_and_jvp():
  d, e = f32([1.0, 2.0, 3.0]), f32([1.0, 1.0])
  w = jax.jit(lambda d, e: la.eigh_tridiagonal(d, e, eigvals_only=True))(d, e)
  _, dw = jax.jvp(lambda d: la.eigh_tridiagonal(d, e, eigvals_only=True), (d,),
                  (f32([1.0, 0.0, 0.0]),))
  return w, dw


@program
def eigh_tridiagonal_grad_raises():
  return jax.grad(lambda d: la.eigh_tridiagonal(d, f32([1.0, 1.0]), eigvals_only=True).sum())(
      f32([1.0, 2.0, 3.0]))


@program
def eigh_tridiagonal_errors():
  out = []
  d, e = f32([1.0, 2.0, 3.0]), f32([1.0, 1.0])
  calls = [lambda: la.eigh_tridiagonal(d, e, eigvals_only=True, select="i"),
           lambda: la.eigh_tridiagonal(d, e, eigvals_only=True, select="i",
                                       select_range=(2, 1)),
           lambda: la.eigh_tridiagonal(d, e, eigvals_only=True, select="v",
                                       select_range=(0.0, 1.0)),
           lambda: la.eigh_tridiagonal(d, e, eigvals_only=True, select="x"),
           lambda: la.eigh_tridiagonal(jnp.array([1, 2]), jnp.array([1]), eigvals_only=True),
           lambda: la.eigh_tridiagonal(d, jnp.array([1, 1]), eigvals_only=True)]
  for call in calls:
    try:
      call()
    except Exception as err:
      out.append(f"{type(err).__name__}: {err}")
  return out


# --- expm_frechet / expm ------------------------------------------------------------------------

@program(rtol=1e-4, atol=1e-4)
def expm_frechet_options_and_batch():
  a = f32([[1.0, 2.0], [3.0, 4.0]]) / 4
  e = f32([[0.0, 1.0], [-1.0, 0.5]])
  return (la.expm_frechet(a, e), la.expm_frechet(a, e, compute_expm=False),
          la.expm_frechet(jnp.stack([a, -a]), jnp.stack([e, e])),
          la.expm_frechet(a, e, method="blockEnlarge"),
          jax.vmap(lambda x: la.expm_frechet(x, e, compute_expm=False))(jnp.stack([a, 2 * a])))


@program(x64=True)
def expm_frechet_f64_and_complex():
  a = jnp.array([[0.5, 2.0], [-1.0, 0.25]], jnp.float64)
  e = jnp.array([[1.0, 0.0], [0.0, -1.0]], jnp.float64)
  return la.expm_frechet(a, e), la.expm_frechet(a.astype(jnp.complex128) * 1j, e * (1 + 1j))


@program
def expm_frechet_mixed_dtypes_raises():
  a = jnp.array([[0.5, 2.0], [-1.0, 0.25]], jnp.complex64)
  return la.expm_frechet(a, jnp.eye(2))


@program(rtol=1e-4, atol=1e-4)
def expm_frechet_grad_and_jit():
  a = f32([[0.1, 0.2], [0.3, -0.4]])
  e = f32([[0.0, 1.0], [0.0, 0.0]])
  g = jax.grad(lambda x: la.expm_frechet(x, e, compute_expm=False).sum())(a)
  return g, jax.jit(la.expm_frechet)(a, e)


@program
def expm_frechet_non_square_raises():
  return la.expm_frechet(jnp.ones((2, 3)), jnp.ones((2, 3)))


@program
def expm_frechet_bad_e_raises():
  return la.expm_frechet(jnp.eye(2), jnp.ones((2, 3)))


@program
def expm_frechet_shape_mismatch_raises():
  return la.expm_frechet(jnp.eye(2), jnp.eye(3))


@program
def expm_frechet_int_raises():
  return la.expm_frechet(jnp.array([[1, 2], [3, 4]]), jnp.array([[1, 2], [3, 4]]))


@program
def expm_overflow_and_max_squarings():
  return (la.expm(jnp.eye(2) * 1e6), la.expm(jnp.eye(2) * 100, max_squarings=2),
          la.expm(jnp.eye(2) * 10, max_squarings=2), la.expm(jnp.eye(2) * 10, max_squarings=0))


@program(rtol=1e-5)
def expm_pade_orders_f32():
  base = f32([[0.3, -0.2], [0.5, 0.1]])
  return [la.expm(base * s) for s in (0.1, 1.0, 4.0, 20.0)], la.expm(jnp.array([[1, 2], [3, 4]]))


@program(x64=True)
def expm_pade_orders_f64():
  base = jnp.array([[0.3, -0.2], [0.5, 0.1]], jnp.float64)
  return [la.expm(base * s) for s in (0.01, 0.5, 1.5, 4.0, 6.0, 40.0)]


@program
def expm_vector_raises():
  return la.expm(jnp.ones(3))


# --- sqrtm / funm / solve_sylvester -------------------------------------------------------------

@program(rtol=1e-4, atol=1e-5)
def sqrtm_values():
  a = f32(G3)
  r = la.sqrtm(a)
  return r.dtype, r @ r, la.sqrtm(jnp.array([[4, 1], [0, 9]])), la.sqrtm(jnp.zeros((2, 2)))


@program(rtol=1e-4, atol=1e-5)
def sqrtm_vmap_jit_complex():
  a = jnp.stack([f32([[4.0, 1.0], [0.0, 9.0]]), f32([[2.0, 1.0], [1.0, 2.0]])])
  c = f32([[1.0, 2.0], [3.0, 4.0]]).astype(jnp.complex64) * 1j
  return jax.vmap(la.sqrtm)(a), jax.jit(la.sqrtm)(a[0]), la.sqrtm(c) @ la.sqrtm(c)


@program(x64=True)
def sqrtm_f64():
  a = jnp.array(G3, jnp.float64)
  r = la.sqrtm(a)
  return r.dtype, r @ r


@program
def sqrtm_singular_is_nan():
  return la.sqrtm(f32([[0.0, 1.0], [0.0, 0.0]]))


@program
def sqrtm_blocksize_raises():
  return la.sqrtm(jnp.eye(2), blocksize=2)


@program
def sqrtm_batched_raises():
  return la.sqrtm(jnp.stack([jnp.eye(2)] * 2))


@program
def sqrtm_non_square_raises():
  return la.sqrtm(jnp.ones((2, 3)))


@program
def sqrtm_grad_raises():
  return jax.grad(lambda x: la.sqrtm(x).real.sum())(f32([[4.0, 1.0], [0.0, 9.0]]))


@program(rtol=1e-4, atol=1e-4)
def funm_functions_and_disp():
  a = f32([[1.0, 2.0], [3.0, 4.0]]) / 2
  f, err = la.funm(a, jnp.exp, disp=False)
  return (la.funm(a, jnp.exp), f, err, la.funm(a, lambda x: jnp.sin(x) + 2 * jnp.cos(x)),
          la.funm(f32(N3), jnp.sqrt), la.funm(f32([[2.0]]), jnp.log))


@program(rtol=1e-4, atol=1e-4)
def funm_complex_and_triangular():
  c = f32([[1.0, 2.0], [3.0, 4.0]]).astype(jnp.complex64) / 4
  tri = f32([[1.0, 2.0, 0.5], [0.0, 2.0, 1.0], [0.0, 0.0, 3.0]])
  return la.funm(c, jnp.sin), la.funm(tri, jnp.square), la.funm(tri, jnp.exp, disp=False)


@program(x64=True)
def funm_f64():
  return la.funm(jnp.array(N3, jnp.float64) / 3, jnp.exp, disp=False)


@program
def funm_batched_raises():
  return la.funm(jnp.stack([jnp.eye(2)] * 2), jnp.exp)


@program
def funm_int_raises():
  return la.funm(jnp.array([[1, 2], [3, 4]]), jnp.exp)


@program(rtol=1e-4, atol=1e-4)
def solve_sylvester_methods():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  b = f32([[5.0, 6.0], [7.0, 8.0]])
  c = f32([[6.0, 8.0], [10.0, 12.0]])
  b3 = f32([[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [1.0, 0.0, 4.0]])
  return (la.solve_sylvester(a, b, c), la.solve_sylvester(a, b, c, method="eigen"),
          la.solve_sylvester(jnp.array([[1, 2], [3, 4]]), jnp.array([[5, 6], [7, 8]]),
                             jnp.array([[6, 8], [10, 12]])),
          la.solve_sylvester(a, b3, jnp.ones((2, 3))),
          la.solve_sylvester(a, b3, jnp.ones((2, 3)), method="eigen"))


@program(rtol=1e-4, atol=1e-4)
def solve_sylvester_complex_batch_singular():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  c = jnp.array([[1.0, 2j], [0.5, 1.0]], jnp.complex64)
  return (la.solve_sylvester(a, a * 1j + 2, a), la.solve_sylvester(a, a, c),
          la.solve_sylvester(jnp.stack([a, 2 * a]), a, a), la.solve_sylvester(a, -a, a),
          la.solve_sylvester(a, a, a, tol=100.0),
          jax.vmap(lambda c: la.solve_sylvester(a, a, c))(jnp.stack([a, a.T])))


@program(x64=True)
def solve_sylvester_f64():
  a = jnp.array([[1.0, 2.0], [3.0, 4.0]], jnp.float64)
  b = jnp.array([[5.0, 6.0], [7.0, 8.0]], jnp.float64)
  x = la.solve_sylvester(a, b, a)
  return x, a @ x + x @ b


@program(rtol=1e-4, atol=1e-4)
def solve_sylvester_grad():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  return (jax.grad(lambda c: la.solve_sylvester(a, a, c).sum())(a),
          jax.grad(lambda c: la.solve_sylvester(a, a + 1, c, method="eigen").sum())(a))


@program
def solve_sylvester_eigen_grad_a_raises():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  return jax.grad(lambda m: la.solve_sylvester(m, a, a, method="eigen").sum())(a + 1)


@program
def solve_sylvester_schur_grad_a_raises():
  a = f32([[1.0, 2.0], [3.0, 4.0]])
  return jax.grad(lambda m: la.solve_sylvester(m, a, a).sum())(a + 1)


@program
def solve_sylvester_shape_raises():
  return la.solve_sylvester(jnp.eye(2), jnp.eye(2), jnp.ones((2, 3)))


@program
def solve_sylvester_bad_method_raises():
  return la.solve_sylvester(jnp.eye(2), jnp.eye(2), jnp.eye(2), method="direct")


# --- special matrices ---------------------------------------------------------------------------

@program
def companion_options():
  return (la.companion(f32([1.0, -10.0, 31.0, -30.0])), la.companion(jnp.array([2, -3, 2])),
          la.companion(f32([[1.0, -3.0, 2.0], [2.0, 1.0, 1.0]])),
          la.companion(jnp.array([1j, 2.0, 3.0])), la.companion(f32([0.0, 1.0])),
          jax.vmap(la.companion)(f32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))


@program
def companion_short_raises():
  return la.companion(f32([1.0]))


@program
def companion_list_raises():
  return la.companion([1.0, 2.0])


@program
def convolution_matrix_modes():
  a = jnp.array([1, 2, 3])
  a5 = f32([1.0, 2.0, 3.0, 4.0, 5.0])
  return (la.convolution_matrix(a, 4), la.convolution_matrix(a, 4, "same"),
          la.convolution_matrix(a, 4, "valid"), la.convolution_matrix(a5, 2, "same"),
          la.convolution_matrix(a5, 2, "valid"), la.convolution_matrix(a5, 1),
          la.convolution_matrix(jnp.array([[1, 2, 3], [4, 5, 6]]), 2),
          la.convolution_matrix(f32([-1.0, 4.0, -2.0]), 5, mode="same"))


@program
def convolution_matrix_matches_convolve():
  a, v = f32([1.0, -2.0, 0.5]), f32([3.0, 1.0, 4.0, 1.0, 5.0])
  return [la.convolution_matrix(a, 5, mode) @ v - jnp.convolve(a, v, mode)
          for mode in ("full", "same", "valid")]


@program
def convolution_matrix_errors():
  out = []
  for call in (lambda: la.convolution_matrix(jnp.array([1, 2]), 0),
               lambda: la.convolution_matrix(jnp.array([]), 2),
               lambda: la.convolution_matrix(jnp.array(1), 2),
               lambda: la.convolution_matrix(jnp.array([1, 2]), 2, "foo"),
               lambda: la.convolution_matrix(jnp.array([1, 2]), 2.0),
               lambda: la.convolution_matrix([1, 2], 2)):
    try:
      call()
    except Exception as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


@program
def dft_scales_and_dtypes():
  return (la.dft(3), la.dft(3, "sqrtn"), la.dft(4, "n"), la.dft(0), la.dft(-1).shape,
          la.dft(2.0), la.dft(1))


@program(x64=True)
def dft_f64_and_dtype():
  return la.dft(3), la.dft(3, dtype=jnp.complex64), la.dft(2, "sqrtn", dtype=jnp.complex128)


@program
def dft_complex128_without_x64_warns():
  return la.dft(2, dtype=jnp.complex128)


@program
def dft_bad_scale_raises():
  return la.dft(3, "ortho")


@program
def dft_real_dtype_raises():
  return la.dft(3, dtype=jnp.float32)


@program
def fiedler_dtypes_and_batches():
  return (la.fiedler(f32([1.0, 4.0, 12.0, 45.0])), la.fiedler(jnp.array([1, 4, 12])),
          la.fiedler(jnp.array([[1, 4], [3, 2]])), la.fiedler(jnp.array(1.0)),
          la.fiedler(jnp.array([])), la.fiedler(jnp.array([1j, 2.0])),
          la.fiedler(jnp.array([1, 3], jnp.uint8)), la.fiedler(2))


@program
def fiedler_bool_raises():
  return la.fiedler(jnp.array([True, False]))


@program
def fiedler_list_raises():
  return la.fiedler([1, 2])


@program
def fiedler_companion_sizes():
  return [la.fiedler_companion(f32([2.0, 3.0, 4.0, 5.0, 6.0, 7.0][:k])) for k in range(1, 7)]


@program
def fiedler_companion_dtypes_and_batches():
  return (la.fiedler_companion(f32([1.0, -16.0, 86.0, -176.0, 105.0])),
          la.fiedler_companion(jnp.array([2, 3, 4])), la.fiedler_companion(jnp.array(1.0)),
          la.fiedler_companion(f32([[1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0]])),
          la.fiedler_companion(jnp.array([1.0, 1j, 2.0], jnp.complex64)),
          la.fiedler_companion(f32([[2.0], [4.0]])))


@program(rtol=1e-4, atol=1e-5)
def fiedler_companion_eigenvalues_are_roots():
  a = f32([1.0, -16.0, 86.0, -176.0, 105.0])
  w = jnp.linalg.eigvals(la.fiedler_companion(a))
  return jnp.sort(w.real), jnp.sort(jnp.roots(a).real)


@program
def fiedler_companion_empty_raises():
  return la.fiedler_companion(jnp.array([]))


@program
def hadamard_sizes_and_dtypes():
  return (la.hadamard(1), la.hadamard(4), la.hadamard(8, dtype=jnp.float32),
          la.hadamard(2, dtype=jnp.uint8), la.hadamard(2.0), la.hadamard(1, dtype=bool),
          la.hadamard(2, dtype=jnp.complex64))


@program(x64=True)
def hadamard_x64_default_int():
  return la.hadamard(2), la.hadamard(2, dtype=jnp.int16)


@program
def hadamard_bad_sizes_raise():
  out = []
  for n in (0, 3, 6, -2):
    try:
      la.hadamard(n)
    except ValueError as e:
      out.append(str(e))
  return out


@program
def hadamard_bool_raises():
  return la.hadamard(2, dtype=bool)


@program
def helmert_options():
  return (la.helmert(3), la.helmert(3, full=True), la.helmert(1), la.helmert(1, full=True),
          la.helmert(5, full=True) @ la.helmert(5, full=True).T)


@program(x64=True)
def helmert_f64():
  return la.helmert(4, full=True)


@program
def helmert_bad_n_raises():
  return la.helmert(0)


@program(rtol=1e-4)
def invhilbert_sizes():
  return la.invhilbert(0), la.invhilbert(1), la.invhilbert(3), la.invhilbert(5), la.invhilbert(-1)


@program(rtol=1e-6, x64=True)
def invhilbert_f64_inverts_hilbert():
  return la.invhilbert(4), la.invhilbert(4) @ la.hilbert(4)


@program
def pascal_kinds():
  return (la.pascal(4), la.pascal(4, "lower"), la.pascal(4, "upper"), la.pascal(0),
          la.pascal(5), la.pascal(1, kind="symmetric"))


@program(x64=True)
def pascal_stays_float32_under_x64():
  return la.pascal(3), la.invpascal(3)


@program
def pascal_bad_kind_raises():
  return la.pascal(3, "diagonal")


@program
def invpascal_kinds():
  return (la.invpascal(4), la.invpascal(4, "lower"), la.invpascal(4, "upper"), la.invpascal(0),
          la.invpascal(5) @ la.pascal(5))


@program
def invpascal_bad_kind_raises():
  return la.invpascal(3, "diagonal")


@program
def leslie_dtypes_and_batches():
  return (la.leslie(f32([0.1, 2.0, 1.0, 0.1]), f32([0.2, 0.8, 0.7])),
          la.leslie(jnp.array([1, 2, 1]), jnp.array([2, 3])),
          la.leslie(jnp.array([1, 2, 1]), f32([0.5, 3.0])),
          la.leslie(f32([[1.0, 2.0], [3.0, 4.0]]), f32([[5.0], [6.0]])),
          la.leslie(f32([[1.0, 2.0], [3.0, 4.0]]), f32([5.0])),
          jax.vmap(la.leslie, in_axes=(0, None))(f32([[1.0, 2.0], [3.0, 4.0]]), f32([0.5])))


@program
def leslie_errors():
  out = []
  for call in (lambda: la.leslie(jnp.array([1, 2, 1]), jnp.array([2, 3, 4])),
               lambda: la.leslie(f32([1.0]), f32([])), lambda: la.leslie(jnp.array(1.0), f32([])),
               lambda: la.leslie([1.0, 2.0], [3.0])):
    try:
      call()
    except Exception as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


@program
def toeplitz_hankel_batches_broadcast():
  c = f32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
  r = f32([7.0, 8.0])
  return (la.toeplitz(c, r), la.toeplitz(r, c), la.hankel(c), la.hankel(c, r), la.hankel(r, c),
          la.toeplitz(jnp.array(3.0)), la.toeplitz(jnp.array([1, 2]), f32([1.5, 2.5])),
          la.toeplitz(f32([]), f32([1.0])), la.toeplitz(jnp.array([1 + 1j, 2])),
          la.circulant(3.0), la.circulant(jnp.array([[1, 2], [3, 4]])))


@program
def toeplitz_batch_mismatch_raises():
  return la.toeplitz(jnp.ones((2, 3)), jnp.ones((3, 2)))


@program
def toeplitz_list_raises():
  return la.toeplitz([1, 2, 3])


@program
def hankel_scalar_raises():
  return la.hankel(jnp.array(3.0))


@program
def circulant_list_raises():
  return la.circulant([1, 2])


@program
def special_matrices_under_jit_and_vmap():
  return (jax.jit(la.toeplitz)(f32([[1.0, 2.0], [3.0, 4.0]])),
          jax.vmap(la.fiedler)(f32([[1.0, 2.0], [3.0, 5.0]])),
          jax.jit(la.fiedler_companion)(f32([1.0, 2.0, 3.0, 4.0])),
          jax.vmap(la.hankel)(f32([[1.0, 2.0], [3.0, 4.0]])))


@program(rtol=1e-4, atol=1e-5)
def eigh_symmetrizes_and_options():
  a = f32([[2.0, 1.0, 0.0], [5.0, 3.0, 1.0], [7.0, 1.0, 4.0]])
  w1, v1 = la.eigh(a)
  w2, v2 = la.eigh(a, lower=False)
  sym = (a + a.T) / 2
  return (w1, w2, jnp.abs(v1), jnp.abs(v2), jnp.abs(sym @ v1 - v1 * w1).max() < 1e-4,
          la.eigh(jnp.array([[2, 1], [1, 2]]), eigvals_only=True))


@program
def eigh_type_raises():
  return la.eigh(jnp.eye(2), type=2)


@program
def eigh_eigvals_raises():
  return la.eigh(jnp.eye(2), eigvals=(0, 1))


# --- lax.linalg: cholesky_update, symmetric_product, tridiagonal_solve -------------------------

@program(rtol=1e-5, atol=1e-6)
def lax_cholesky_update_values():
  r = f32([[2.0, 1.0, 0.5], [0.0, 1.5, -0.5], [0.0, 0.0, 1.0]])
  w = f32([1.0, -1.0, 2.0])
  new = lla.cholesky_update(r, w)
  return (new, new.T @ new - (r.T @ r + jnp.outer(w, w)),
          lla.cholesky_update(f32([[2.0, 1.0], [0.0, 1.0]]), f32([0.0, 1.0])),
          lla.cholesky_update(jnp.zeros((2, 2)), f32([0.0, 1.0])))


@program(x64=True)
def lax_cholesky_update_f64():
  r = jnp.array([[2.0, 1.0], [0.0, 1.5]], jnp.float64)
  return lla.cholesky_update(r, jnp.array([0.5, 1.0], jnp.float64))


@program
def lax_cholesky_update_errors():
  out = []
  for args in ((jnp.ones((3, 2, 2)), jnp.ones((3, 2))), (jnp.ones((2, 2)), jnp.ones(3)),
               (jnp.ones((2, 3)), jnp.ones(3)),
               (jnp.eye(2, dtype=jnp.int32), jnp.ones(2, jnp.int32)),
               (jnp.eye(2), jnp.ones(2, jnp.float16)),
               (jnp.eye(2, dtype=jnp.complex64), jnp.ones(2, jnp.complex64))):
    try:
      lla.cholesky_update(*args)
    except (TypeError, ValueError) as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


@program
def lax_cholesky_update_vmap_raises():
  return jax.vmap(lla.cholesky_update)(jnp.stack([jnp.eye(2)] * 3), jnp.ones((3, 2)))


@program
def lax_cholesky_update_jvp_raises():
  return jax.jvp(lla.cholesky_update, (jnp.eye(2), jnp.ones(2)), (jnp.eye(2), jnp.ones(2)))


@program
def lax_symmetric_product_options():
  a = f32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
  c = f32([[1.0, 2.0], [3.0, 4.0]])
  return (lla.symmetric_product(a, c), lla.symmetric_product(a, c, alpha=2.0, beta=3.0),
          lla.symmetric_product(a, c, alpha=2.0, beta=3.0, symmetrize_output=True),
          lla.symmetric_product(jnp.stack([a, a]), jnp.stack([c, c]), beta=-1.0),
          jax.vmap(lla.symmetric_product)(jnp.stack([a, 2 * a]), jnp.stack([c, c])))


@program(x64=True)
def lax_symmetric_product_f64():
  a = jnp.array([[1.0, 0.5], [0.25, 2.0]], jnp.float64)
  return lla.symmetric_product(a, jnp.eye(2, dtype=jnp.float64), alpha=0.5, beta=2.0)


@program
def lax_symmetric_product_errors():
  out = []
  for args in ((jnp.ones((2, 3)), jnp.eye(3)), (jnp.ones((2, 3)), jnp.ones((2, 3))),
               (jnp.ones((2, 3), jnp.int32), jnp.eye(2, dtype=jnp.int32)),
               (jnp.ones((2, 2), jnp.complex64), jnp.eye(2, dtype=jnp.complex64))):
    try:
      lla.symmetric_product(*args)
    except (TypeError, ValueError) as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


@program
def lax_symmetric_product_array_alpha_raises():
  return lla.symmetric_product(jnp.ones((2, 3)), jnp.eye(2), alpha=jnp.float32(2.0))


@program
def lax_symmetric_product_jvp_raises():
  a = jnp.ones((2, 3))
  return jax.jvp(lambda x: lla.symmetric_product(x, jnp.eye(2)), (a,), (a,))


@program
def lax_tridiagonal_solve_perturbed():
  z = jnp.zeros(3)
  one = jnp.ones(3)
  return (lla.tridiagonal_solve(z, f32([1.0, 0.0, 1.0]), z, jnp.ones((3, 2)),
                                perturb_singular=True),
          lla.tridiagonal_solve(one, 3 * one, one, jnp.ones((3, 1)), perturb_singular=True),
          lla.tridiagonal_solve(z, f32([1.0, 0.0, 1.0]), z, jnp.ones((3, 2))),
          lla.tridiagonal_solve(jnp.ones((2, 3)), jnp.ones((2, 3)) * 3, jnp.ones((2, 3)),
                                jnp.ones((2, 3, 1)), perturb_singular=True))


@program(rtol=1e-5, atol=1e-6)
def lax_tridiagonal_solve_perturbed_complex_grad():
  one = jnp.ones(3, jnp.complex64)
  x = lla.tridiagonal_solve(one * 1j, 3 * one, one, jnp.ones((3, 1), jnp.complex64),
                            perturb_singular=True)
  o = jnp.ones(3)
  g = jax.grad(lambda b: lla.tridiagonal_solve(o, 3 * o, o, b, perturb_singular=True).sum())(
      jnp.ones((3, 1)))
  v = jax.vmap(lambda d: lla.tridiagonal_solve(o, d, o, jnp.ones((3, 1)),
                                               perturb_singular=True))(jnp.stack([3 * o, 4 * o]))
  return x, g, v


@program(x64=True)
def lax_tridiagonal_solve_perturbed_f64():
  z = jnp.zeros(3, jnp.float64)
  return lla.tridiagonal_solve(z, jnp.array([1.0, 1e-30, 1.0]), z, jnp.ones((3, 1)),
                               perturb_singular=True)


@program
def lax_tridiagonal_solve_errors():
  o = jnp.ones(3)
  out = []
  for args in ((jnp.ones(2), o, o, jnp.ones((3, 1))), (o, o, o, jnp.ones((2, 1))),
               (o, o, o, jnp.ones(3)), (o, o, o, jnp.ones((3, 1), jnp.int32)),
               (o, o, o, jnp.ones((3, 1), jnp.complex64))):
    try:
      lla.tridiagonal_solve(*args)
    except (TypeError, ValueError) as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


@program
def lax_householder_product_errors():
  out = []
  for args in ((jnp.ones((2, 3)), jnp.ones(2)), (jnp.ones((3, 2)), jnp.ones(3))):
    try:
      lla.householder_product(*args)
    except ValueError as e:
      out.append(str(e))
  return out


@program
def lax_linalg_new_primitives_jaxprs():
  a = jnp.eye(2)
  return [str(jax.make_jaxpr(f)(*args)) for f, args in (
      (lla.schur, (a,)), (lla.hessenberg, (a,)), (lla.tridiagonal, (a,)),
      (lambda a, t, c: lla.ormqr(a, t, c, left=False), (a, jnp.ones(2), a)),
      (lla.cholesky_update, (a, jnp.ones(2))),
      (lambda a, c: lla.symmetric_product(a, c, alpha=2.0), (a, a)),
      (lambda b: lla.tridiagonal_solve(jnp.ones(2), jnp.ones(2), jnp.ones(2), b,
                                       perturb_singular=True), (jnp.ones((2, 1)),)))]


@program(rtol=1e-4, atol=1e-5)
def lax_linalg_new_primitives_under_jit():
  a = f32(H4)
  sym = a + a.T
  h, taus = jax.jit(lla.hessenberg)(a)
  _, d, e, _ = jax.jit(lambda x: lla.tridiagonal(x, lower=False))(sym)
  q = jax.jit(lambda h, t: lla.ormqr(h.mT, t, jnp.eye(4), transpose=True))(
      *jnp.linalg.qr(a, mode="raw"))
  u, p, k, ok = jax.jit(lla.qdwh)(a)
  return (jnp.abs(jnp.diag(h, -1)), jnp.sum(d), jnp.sum(jnp.abs(e)) > 0, jnp.abs(q @ q.T),
          jnp.abs(u @ p - a).max() < 1e-4, k, ok)


@program(rtol=1e-5, atol=1e-6)
def special_matrix_gradients():
  c, r = f32([1.0, 2.0, 3.0]), f32([4.0, 5.0])
  w = f32([[1.0, -1.0], [2.0, 0.5], [-3.0, 1.5]])
  return (jax.grad(lambda c, r: jnp.sum(la.toeplitz(c, r) * w), argnums=(0, 1))(c, r),
          jax.grad(lambda c, r: jnp.sum(la.hankel(c, r) * w), argnums=(0, 1))(c, r),
          jax.grad(lambda a: jnp.sum(la.companion(a) ** 2))(c),
          jax.grad(lambda f, s: jnp.sum(la.leslie(f, s) * jnp.arange(9.0).reshape(3, 3)),
                   argnums=(0, 1))(c, r),
          jax.grad(lambda a: jnp.sum(la.fiedler_companion(a) ** 2))(f32([1.0, 2.0, 3.0, 4.0])),
          jax.grad(lambda a: jnp.sum(la.convolution_matrix(a, 2, "same") ** 2))(c),
          jax.grad(lambda a: jnp.sum(la.fiedler(a) ** 2))(c))
