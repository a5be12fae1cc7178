"""ember.lax.linalg: the LAPACK-backed decompositions and solves.

Values are checked through the identities that define them (and against NumPy where the result
is unique), on batches of matrices, in float32 and complex128 (each a single compiled program)
and eagerly; derivatives against central finite differences and by the inner-product identity in
float64 (complex ones along complex tangents); batching against stacking; JAX's error messages
and printed jaxprs. Cases are bundled into few compiled programs: XLA's compilation dominates.
"""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.lax import linalg


def rand(shape, dtype, seed=0):
  rng = np.random.RandomState(seed)
  x = rng.randn(*shape)
  if np.dtype(dtype).kind == "c":
    x = x + 1j * rng.randn(*shape)
  return x.astype(dtype)


def hpd(shape, dtype, seed=0):
  """A (batch of) Hermitian positive-definite matrices."""
  a = rand(shape, dtype, seed)
  return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def H(x):
  return np.conj(np.swapaxes(x, -1, -2))


def close(x, y, dtype):
  tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
  np.testing.assert_allclose(np.asarray(x), np.broadcast_to(y, np.shape(x)), rtol=tol, atol=tol)


FLAG_SETS = [{"lower": True}, {"lower": False, "transpose_a": True},
             {"lower": True, "transpose_a": True, "conjugate_a": True, "unit_diagonal": True},
             {"lower": False, "conjugate_a": True}]


def decompositions(x, spd, b):
  """Every decomposition of one batch, as a flat list (one compilation under jit)."""
  out = [linalg.cholesky(spd), *linalg.lu(x), *linalg.qr(x), *linalg.qr(x, full_matrices=False),
         *linalg.qr(x[..., :3], pivoting=True), *linalg.eigh(spd), *linalg.svd(x),
         *linalg.svd(x[..., :3], full_matrices=False), linalg.svd(x, compute_uv=False),
         *linalg.eig(x)]
  for left in (True, False):
    for flags in FLAG_SETS:
      out.append(linalg.triangular_solve(spd, b if left else np.swapaxes(b, -1, -2),
                                         left_side=left, **flags))
  return out


def op(a, flags):
  a = np.tril(a) if flags.get("lower") else np.triu(a)
  if flags.get("unit_diagonal"):
    a = np.tril(a, -1) + np.triu(a, 1) + np.eye(a.shape[-1])
  if flags.get("conjugate_a"):
    a = np.conj(a)
  return np.swapaxes(a, -1, -2) if flags.get("transpose_a") else a


def check_decompositions(dtype):
  x, spd, b = rand((2, 4, 4), dtype), hpd((2, 4, 4), dtype, 1), rand((2, 4, 2), dtype, 2)
  outs = ember.jit(decompositions)(x, spd, b)
  outs = [np.asarray(o) for o in outs]
  chol, lu, piv, perm, q, r, qe, re, qp, rp, p, v, w, u, s, vh, ue, se, vhe, s_only, ew, vl, vr, \
      *solves = outs
  close(chol, np.linalg.cholesky(spd), dtype)
  low = np.tril(lu, -1) + np.eye(4)
  close(np.take_along_axis(x, perm[..., None], -2), low @ np.triu(lu), dtype)
  assert piv.dtype == perm.dtype == np.int32 and sorted(perm[0]) == [0, 1, 2, 3]
  for qq, rr, m in ((q, r, x), (qe, re, x), (qp, rp, np.take_along_axis(x[..., :3],
                                                                         p[..., None, :], -1))):
    close(qq @ rr, m, dtype)
    close(H(qq) @ qq, np.eye(qq.shape[-1]), dtype)
    close(rr, np.triu(rr), dtype)
  close(spd @ v, v * w[..., None, :], dtype)
  close(w, np.linalg.eigvalsh(spd), dtype)
  assert w.dtype == np.finfo(dtype).dtype
  close((u * s[..., None, :]) @ vh, x, dtype)
  close((ue * se[..., None, :]) @ vhe, x[..., :3], dtype)
  close(s, np.linalg.svd(x, compute_uv=False), dtype)
  close(s_only, s, dtype)
  close(x @ vr, vr * ew[..., None, :], dtype)
  close(H(vl) @ x, ew[..., :, None] * H(vl), dtype)
  for k, flags in enumerate(FLAG_SETS * 2):
    a = op(spd, flags)
    if k < 4:
      close(a @ solves[k], b, dtype)
    else:
      close(solves[k] @ a, np.swapaxes(b, -1, -2), dtype)


def test_decompositions_float32():
  check_decompositions(np.float32)


def test_decompositions_complex128(x64):
  check_decompositions(np.complex128)


def test_eager_shapes_and_dtypes():
  """Eager calls (one executable per primitive); the factors' shapes; complex64 and integer
  inputs."""
  x = rand((5, 3), np.float32)
  q, r = linalg.qr(x)
  assert q.shape == (5, 5) and r.shape == (5, 3)
  close(q @ r, x, np.float32)
  lu, piv, perm = linalg.lu(x.T)
  assert (lu.shape, piv.shape, perm.shape) == ((3, 5), (3,), (3,))
  s = linalg.svd(x.astype(np.complex64), compute_uv=False)
  assert s.dtype == np.float32
  close(s, np.linalg.svd(x, compute_uv=False), np.float32)
  out = ember.jit(linalg.cholesky)(np.array([[4, 2], [2, 5]], np.int32))
  assert out.dtype == np.float32
  np.testing.assert_allclose(np.asarray(out), [[2, 0], [1, 2]])


def test_other_ops():
  """NaNs for a failed Cholesky factorization (in the kept triangle), a singular LU that is
  still a factorization, vector right-hand sides, pivots to permutations, tridiagonal solves and
  Householder products."""
  def f(not_pd, a, b, pivots, dl, d, du, rhs, x):
    h, taus = linalg.geqrf(x)
    return [linalg.cholesky(not_pd), linalg.lu(jnp.zeros((2, 2)))[0],
            linalg.triangular_solve(a, b, left_side=True, lower=True),
            linalg.triangular_solve(a, b, lower=True, unit_diagonal=True),
            linalg.lu_pivots_to_permutation(pivots, 5), linalg.tridiagonal_solve(dl, d, du, rhs),
            linalg.householder_product(h, taus)]
  dl, d, du = rand((2, 5), np.float32), rand((2, 5), np.float32, 1) + 4, rand((2, 5), np.float32, 2)
  rhs, x = rand((2, 5, 3), np.float32, 3), rand((4, 3), np.float32, 4)
  pivots = np.array([[2, 2, 3], [0, 1, 2]], np.int32)
  out = ember.jit(f)(np.array([[1., 2.], [2., 1.]], np.float32),
                     np.array([[2., 0.], [1., 1.]], np.float32), np.array([2., 3.], np.float32),
                     pivots, dl, d, du, rhs, x)
  nan = np.nan
  np.testing.assert_array_equal(np.asarray(out[0]), [[nan, 0], [nan, nan]])
  np.testing.assert_array_equal(np.asarray(out[1]), np.zeros((2, 2)))
  np.testing.assert_allclose(np.asarray(out[2]), [1., 2.])
  np.testing.assert_allclose(np.asarray(out[3]), [-1., 3.])
  np.testing.assert_array_equal(np.asarray(out[4]), [[2, 0, 3, 1, 4], [0, 1, 2, 3, 4]])
  t = [np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1) for i in range(2)]
  close(np.stack(t) @ np.asarray(out[5]), rhs, np.float32)
  close(out[6], np.linalg.qr(x)[0], np.float32)


# --- derivatives (float64) -----------------------------------------------------------------------

def _leaves(y):
  return list(y) if isinstance(y, (tuple, list)) else [y]


def check_ad(f, args, seed=0, vjp=True, rtol=1e-5, atol=1e-7, eps=1e-6):
  """jvp of ``f`` (whose outputs are inexact arrays) along random tangents (complex for complex
  inputs) against central finite differences, and with ``vjp`` (for real functions) the vjp by
  the inner-product identity <ct, jvp(t)> == <vjp(ct), t>. The jvp and the vjp run in one
  compiled program, the finite differences in another."""
  rng = np.random.RandomState(seed)
  tangents = [rand(np.shape(a), np.asarray(a).dtype, seed + 1 + i) for i, a in enumerate(args)]
  def flat(*a):
    return _leaves(f(*a))
  f_jit = ember.jit(flat)
  cts = [np.asarray(rng.randn(*y.shape), y.dtype) for y in map(np.asarray, f_jit(*args))]

  def both(a, t, c):
    return ember.jvp(flat, a, t)[1], (ember.vjp(flat, *a)[1](c) if vjp else ())
  ty, ct_in = ember.jit(both)(tuple(args), tuple(tangents), cts)
  plus = f_jit(*[a + eps * t for a, t in zip(args, tangents)])
  minus = f_jit(*[a - eps * t for a, t in zip(args, tangents)])
  for t, p, m in zip(ty, plus, minus):
    np.testing.assert_allclose(np.asarray(t), (np.asarray(p) - np.asarray(m)) / (2 * eps),
                               rtol=rtol, atol=atol)
  if vjp:
    lhs = sum(np.vdot(c, np.asarray(t)) for c, t in zip(cts, ty))
    rhs = sum(np.vdot(np.asarray(c), t) for c, t in zip(ct_in, tangents))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


def bundle(cases):
  """One function of all the cases' arguments, returning all their outputs, and the arguments."""
  counts = [len(args) for _, args in cases]
  def f(*xs):
    out, k = [], 0
    for (g, _), n in zip(cases, counts):
      out += _leaves(g(*xs[k:k + n]))
      k += n
    return out
  return f, [a for _, args in cases for a in args]


F64 = np.float64
AD_BUNDLES = {  # name: (cases, whether to check the vjp too)
    "cholesky_eigh_solve": ([
        (linalg.cholesky, [hpd((3, 3), F64)]),
        (linalg.eigh, [hpd((3, 3), F64, 1)]),
        (lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True),
         [hpd((3, 3), F64, 2), rand((3, 2), F64, 3)])], True),
    "lu_qr_svd": ([
        (lambda x: linalg.lu(x)[0], [rand((3, 3), F64)]),
        (lambda x: linalg.qr(x, full_matrices=False), [rand((4, 3), F64, 1)]),
        (lambda x: linalg.svd(x, full_matrices=False), [rand((4, 3), F64, 2)])], False),
    "rectangular_and_others": ([
        (lambda x: linalg.lu(x)[0], [rand((2, 4), F64, 1)]),
        (linalg.qr, [rand((4, 2), F64, 2)]),
        (linalg.qr, [rand((2, 4), F64, 3)]),
        (lambda x: linalg.svd(x, full_matrices=False), [rand((2, 4), F64, 5)]),
        (lambda x: linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True),
         [rand((3, 3), F64, 7)]),
        (lambda a, b: linalg.triangular_solve(a, b, transpose_a=True, unit_diagonal=True),
         [hpd((3, 3), F64, 8), rand((2, 3), F64, 9)]),
        (linalg.tridiagonal_solve, [rand((3,), F64, 10), rand((3,), F64, 11) + 4,
                                    rand((3,), F64, 12), rand((3, 2), F64, 13)])], False),
}


@pytest.mark.parametrize("name", sorted(AD_BUNDLES))
def test_jvp_and_vjp(x64, name):
  cases, vjp = AD_BUNDLES[name]
  check_ad(*bundle(cases), vjp=vjp)


def test_complex_jvp(x64):
  """Along complex tangents (Hermitian ones for the Hermitian decompositions)."""
  c = np.complex128
  herm = lambda f: (lambda x: f((x + jnp.conj(jnp.swapaxes(x, -1, -2))) / 2))
  cases = [
      (herm(linalg.cholesky), [hpd((3, 3), c)]),
      (lambda x: linalg.qr(x, full_matrices=False), [rand((4, 3), c, 1)]),
      (lambda x: linalg.svd(x, compute_uv=False), [rand((3, 4), c, 3)]),
      (lambda a, b: linalg.triangular_solve(a, b, left_side=True, transpose_a=True,
                                            conjugate_a=True), [hpd((3, 3), c, 5),
                                                                rand((3, 2), c, 6)])]
  check_ad(*bundle(cases), vjp=False)


def test_grad_through_complex_solve(x64):
  """The transpose of triangular_solve's conjugated variants: grad of a real function of a
  complex b is d/dRe - i d/dIm, as in JAX."""
  a = hpd((3, 3), np.complex128)
  f = ember.jit(lambda b: jnp.sum(jnp.abs(linalg.triangular_solve(
      a, b, left_side=True, lower=True, conjugate_a=True)) ** 2))
  b = rand((3, 2), np.complex128, 3)
  g = np.asarray(ember.jit(ember.grad(f))(b))
  eps, k = 1e-6, (1, 0)
  e = np.zeros_like(b)
  e[k] = 1
  d_re = (f(b + eps * e) - f(b - eps * e)) / (2 * eps)
  d_im = (f(b + 1j * eps * e) - f(b - 1j * eps * e)) / (2 * eps)
  np.testing.assert_allclose(g[k], d_re - 1j * d_im, rtol=1e-6)


def test_unsupported_derivatives():
  x = rand((3, 3), np.float32)
  with pytest.raises(NotImplementedError, match="Singular value decomposition JVP not "
                     "implemented for full matrices"):
    ember.jvp(linalg.svd, (x,), (x,))
  with pytest.raises(NotImplementedError, match="enable_eigvec_derivs=True"):
    ember.jvp(linalg.eig, (x,), (x,))


# --- batching -------------------------------------------------------------------------------

def check_vmapped(ops):
  """``ops``: (f, args with a batch of 3 first, the axis to move it to). All the vmapped ops run
  in one program, the examples through another."""
  args = [np.moveaxis(a, 0, ax) if ax is not None else a for _, a_s, ax in ops for a in a_s]
  axes = [[ax] * len(a_s) for _, a_s, ax in ops]

  def batched(*xs):
    out, k = [], 0
    for (f, a_s, _), ax in zip(ops, axes):
      out.append(ember.vmap(f, in_axes=tuple(ax))(*xs[k:k + len(a_s)]))
      k += len(a_s)
    return out

  def example(*xs):
    out, k = [], 0
    for f, a_s, _ in ops:
      out.append(f(*xs[k:k + len(a_s)]))
      k += len(a_s)
    return out
  got = ember.jit(batched)(*args)
  one = ember.jit(example)
  flat = [a for _, a_s, _ in ops for a in a_s]
  loop = [one(*[a[i] for a in flat]) for i in range(3)]
  for k, g in enumerate(got):
    for j, leaf in enumerate(_leaves(g)):
      expected = np.stack([np.asarray(_leaves(loop[i][k])[j]) for i in range(3)])
      np.testing.assert_allclose(np.asarray(leaf), expected, rtol=2e-4, atol=2e-4)


def test_vmap():
  """Each op batched at a middle or last axis (its rule moves the batch to the front)."""
  x = rand((3, 4, 4), np.float32)
  spd = hpd((3, 4, 4), np.float32, 1)
  b = rand((3, 4, 2), np.float32, 2)
  piv = np.array([[1, 2, 3], [3, 3, 3], [0, 1, 2]], np.int32)
  check_vmapped([
      (linalg.cholesky, (spd,), 1), (linalg.lu, (x,), 2),
      (lambda x: linalg.qr(x, full_matrices=False), (x,), 1),
      (lambda x: linalg.eigh(x)[1], (spd,), 2),
      (lambda x: linalg.svd(x, compute_uv=False), (x,), 1),
      (lambda p: linalg.lu_pivots_to_permutation(p, 4), (piv,), 1),
      (lambda dl, d, b: linalg.tridiagonal_solve(dl, d, x[0, 2], b), (x[:, 0], x[:, 1] + 5, b), 1),
      (lambda x: linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
       (x,), 2)])


def test_vmap_triangular_solve():
  """Batched a and b move to the front; an unbatched a folds b's batch into its columns
  (left) or rows (right), wherever b's batch axis is."""
  a, b = hpd((3, 4, 4), np.float32), rand((3, 4, 2), np.float32, 1)
  bs = {True: b, False: np.swapaxes(b, -1, -2)}
  fs = {left: (lambda a, b, left=left: linalg.triangular_solve(a, b, left_side=left, lower=True))
        for left in (True, False)}

  def all_axes(a, b_left, b_right):
    out = []
    for f, b in ((fs[True], b_left), (fs[False], b_right)):
      out += [ember.vmap(f, (0, 0))(a, b), ember.vmap(f, (None, 0))(a[0], b),
              ember.vmap(f, (None, 2))(a[0], jnp.moveaxis(b, 0, 2)),
              ember.vmap(f, (0, None))(a, b[0])]
    return out
  got = ember.jit(all_axes)(a, bs[True], bs[False])
  k = 0
  for left in (True, False):
    f, b = fs[left], bs[left]
    for a_of, b_of in (((lambda i: i), (lambda i: i)), ((lambda i: 0), (lambda i: i)),
                       ((lambda i: 0), (lambda i: i)), ((lambda i: i), (lambda i: 0))):
      expected = np.stack([np.asarray(f(a[a_of(i)], b[b_of(i)])) for i in range(3)])
      np.testing.assert_allclose(np.asarray(got[k]), expected, rtol=1e-5, atol=1e-5)
      k += 1


def test_vmap_of_grad_and_nested():
  spd = hpd((2, 3, 3, 3), np.float32)
  f = lambda a: jnp.sum(linalg.cholesky(a) ** 2)
  g = ember.jit(ember.vmap(ember.grad(f)))(spd[0])
  grad = ember.jit(ember.grad(f))
  loop = np.stack([np.asarray(grad(spd[0, i])) for i in range(3)])
  np.testing.assert_allclose(np.asarray(g), loop, rtol=1e-4, atol=1e-4)
  nested = ember.jit(ember.vmap(ember.vmap(linalg.cholesky), in_axes=1))(spd)
  np.testing.assert_allclose(np.asarray(nested), np.linalg.cholesky(spd).swapaxes(0, 1),
                             rtol=1e-5, atol=1e-5)


# --- errors and printing ------------------------------------------------------------------------

def test_errors():
  v, r = np.ones(3, np.float32), np.ones((3, 4), np.float32)
  with pytest.raises(TypeError, match=r"Input 0 to qr must have rank at least 2, but got "
                     r"shape=\(3,\)"):
    linalg.qr(v)
  with pytest.raises(TypeError, match="lu does not accept dtype int32 at position 0. Accepted "
                     "dtypes at position 0 are subtypes of floating, complexfloating."):
    linalg.lu(np.ones((3, 3), np.int32))
  with pytest.raises(ValueError, match=r"The first input to triangular_solve must be a square "
                     r"matrix. Got shape \(3, 4\)."):
    linalg.triangular_solve(r, r)
  with pytest.raises(ValueError, match=r"Incompatible shapes for arguments to triangular_solve: "
                     r"\(3, 3\) and \(3, 4\)."):
    linalg.triangular_solve(np.eye(3, dtype=np.float32), r)
  with pytest.raises(ValueError, match="Output permutation size 2 has to exceed the trailing "
                     "dimension of the pivots. Got pivots size 3"):
    linalg.lu_pivots_to_permutation(np.zeros(3, np.int32), 2)
  with pytest.raises(ValueError, match=r"The input to eig must be a square matrix. Got shape "
                     r"\(3, 4\)."):
    linalg.eig(r)
  with pytest.raises(NotImplementedError, match="subset_by_index not supported on CPU"):
    linalg.eigh(np.eye(3, dtype=np.float32), subset_by_index=(0, 2))


JAXPRS = {
    "cholesky": (linalg.cholesky, """\
{ lambda ; a:f32[3,3]. let
    b:f32[3,3] = transpose[permutation=(1, 0)] a
    c:f32[3,3] = add a b
    d:f32[3,3] = div c 2.0:f32[]
    e:f32[3,3] = cholesky d
    f:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] 
    g:i32[3,3] = add f 0:i32[]
    h:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] 
    i:bool[3,3] = ge g h
    j:f32[3,3] = broadcast_in_dim 0.0:f32[]
    k:f32[3,3] = select_n i j e
  in (k,) }"""),
    "qr": (linalg.qr, """\
{ lambda ; a:f32[3,3]. let
    b:f32[3,3] c:f32[3,3] = qr[full_matrices=True pivoting=False use_magma=None] a
  in (b, c) }"""),
    "lu": (linalg.lu, """\
{ lambda ; a:f32[3,3]. let b:f32[3,3] c:i32[3] d:i32[3] = lu a in (b, c, d) }"""),
    "svd": (lambda x: linalg.svd(x, compute_uv=False), """\
{ lambda ; a:f32[3,3]. let
    b:f32[3] = svd[
      algorithm=None
      compute_uv=False
      full_matrices=True
      subset_by_index=None
    ] a
  in (b,) }"""),
    "triangular_solve": (lambda a: linalg.triangular_solve(a, a, left_side=True, lower=True), """\
{ lambda ; a:f32[3,3]. let
    b:f32[3,3] = triangular_solve[
      conjugate_a=False
      left_side=True
      lower=True
      transpose_a=False
      unit_diagonal=False
    ] a a
  in (b,) }"""),
}


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_printed_jaxprs(name):
  f, text = JAXPRS[name]
  assert str(ember.make_jaxpr(f)(np.eye(3, dtype=np.float32))) == text
