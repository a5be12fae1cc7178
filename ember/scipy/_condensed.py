"""ember.scipy.linalg's Schur, Hessenberg and polar decompositions and tridiagonal
eigenproblems."""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.lax import linalg as lax_linalg
from ember.numpy._util import is_arraylike, promote_dtypes_complex, promote_dtypes_inexact


def _check_bindable(name: str, x) -> None:
  """JAX's TypeError for a value its primitive ``name`` cannot take (a list, say)."""
  if not is_arraylike(x):
    raise TypeError(f"Error interpreting argument to {name} as a JAX value. The problematic "
                    f"value is of type {type(x)} and was passed to {name} at position 0.")


def schur(a, output: str = "real"):
  """The Schur decomposition a = z t z^H: ``[t, z]``, ``t`` quasi-upper-triangular (2 x 2
  diagonal blocks for complex conjugate eigenvalue pairs) for ``output='real'``, upper
  triangular for ``'complex'`` (which converts ``a`` to complex first). CPU only and not
  differentiable, as in JAX; a list is returned, as JAX's.

  Raises:
      ValueError: for another ``output``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> t, z = linalg.schur(jnp.array([[1., 2.], [0., 3.]]))
      >>> t
      Array([[1., 2.],
             [0., 3.]], dtype=float32)
  """
  if output not in ("real", "complex"):
    raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
  _check_bindable("schur", a)
  a = jnp.asarray(a)
  if output == "complex":
    a = a.astype(dtypes.to_complex_dtype(a.dtype))
  return lax_linalg.schur(a)


def _givens_to_triangular(t, z, m):
  """Zero ``t[m, m-1]`` (a 2 x 2 block of a real Schur form, made complex) by a complex Givens
  rotation G of rows and columns m-1, m: t <- G t G^H, z <- z G^H (SciPy's rsf2csf step)."""
  n = t.shape[-1]
  block = lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))
  mu = jnp.linalg.eigvals(block) - t[m, m]
  r = jnp.linalg.norm(jnp.stack([mu[0], t[m, m - 1]])).astype(t.dtype)
  c, s = mu[0] / r, t[m, m - 1] / r
  g = jnp.array([[c.conj(), s], [-s, c]], dtype=t.dtype)
  idx = jnp.arange(n)
  rows = lax.dynamic_slice_in_dim(t, m - 1, 2, 0)
  rows = jnp.where(idx >= m - 1, g @ jnp.where(idx >= m - 1, rows, 0), rows)
  t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, 0)
  cols = lax.dynamic_slice_in_dim(t, m - 1, 2, 1)
  upper = (idx < m + 1)[:, None]
  cols = jnp.where(upper, jnp.where(upper, cols, 0) @ g.conj().T, cols)
  t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, 1)
  z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, 1) @ g.conj().T
  return t, lax.dynamic_update_slice_in_dim(z, z_cols, m - 1, 1)


def _rsf2csf_2d(t, z):
  t, z = promote_dtypes_complex(t, z)
  n = t.shape[-1]
  if n == 1:
    return t, z
  eps = dtypes.finfo(t.dtype).eps

  def step(i, tz):
    t, z = tz
    m = n - i
    split = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
    t, z = lax.cond(split, lambda t, z: _givens_to_triangular(t, z, m),
                    lambda t, z: (t, z), t, z)
    return t.at[m, m - 1].set(0), z
  return lax.fori_loop(1, n, step, (t, z))


def rsf2csf(T, Z, check_finite: bool = True):
  """The complex Schur form ``(t, z)`` (t upper triangular, a = z t z^H) from the real one
  ``(T, Z)`` that ``schur`` gives: each 2 x 2 diagonal block is split by a complex Givens
  rotation, as SciPy's. Batch dimensions of ``T`` and ``Z`` broadcast.

  Raises:
      ValueError: for non-square or mismatched inputs.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> t, z = linalg.rsf2csf(*linalg.schur(jnp.array([[0., -1.], [1., 0.]])))
      >>> jnp.round(jnp.diag(t), 4)
      Array([0.+1.j, 0.-1.j], dtype=complex64)
  """
  T, Z = jnp.asarray(T), jnp.asarray(Z)
  if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
    raise ValueError("Input 'T' must be square.")
  if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
    raise ValueError("Input 'Z' must be square.")
  if T.shape[-1] != Z.shape[-1]:
    raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
  return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
  """The Hessenberg form ``h`` of a square ``a`` (zero below the first subdiagonal, with
  a = q h q^H), and the unitary ``q`` too with ``calc_q``. CPU only and not differentiable,
  as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> h, q = linalg.hessenberg(jnp.array([[1., 2.], [3., 4.]]), calc_q=True)
      >>> q
      Array([[1., 0.],
             [0., 1.]], dtype=float32)
  """
  _check_bindable("hessenberg", a)
  a = jnp.asarray(a)
  n = a.shape[-1]
  if n == 0:
    return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
  packed, taus = lax_linalg.hessenberg(a)
  h = jnp.triu(packed, -1)
  if not calc_q:
    return h
  q = jnp.zeros_like(packed).at[..., 0, 0].set(1)
  if n > 1:  # Q = diag(1, householder product of the reflectors below the subdiagonal)
    q = q.at[..., 1:, 1:].set(lax_linalg.householder_product(packed[..., 1:, :-1], taus))
  return h, q


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
  """The product of the Q of ``a``'s QR decomposition with ``c``, and R: ``(c @ q, r)`` for
  ``mode='right'`` (c: [..., p, m], result [..., p, k]) or ``(q @ c, r)`` for ``'left'``
  (c: [..., k, p], result [..., m, p]), k = min(m, n); ``conjugate`` uses conj(q), and
  ``pivoting`` appends the column permutation. Q is never formed (LAPACK's ormqr); a vector
  ``c`` is a row (right) or a column (left), and the result is raveled. Not differentiable,
  as in JAX.

  Raises:
      ValueError: for another ``mode``, or shapes that do not multiply.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> a = jnp.array([[3., 1.], [4., 2.]])
      >>> qc, r = linalg.qr_multiply(a, jnp.array([3., 4.]))  # (a[:, 0] @ q) is r[0, 0]
      >>> qc
      Array([-5.,  0.], dtype=float32)
  """
  a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
  if mode not in ("right", "left"):
    raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
  vector = c.ndim == 1
  if vector:
    c = c[:, None] if mode == "left" else c[None, :]
  m, n = a.shape[-2:]
  k = min(m, n)
  if mode == "left" and c.shape[-2] != k:
    raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                     f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
                     f"(expected {k}).")
  if mode == "right" and c.shape[-1] != m:
    raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                     f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
                     f"(expected {m}).")
  batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  c = jnp.broadcast_to(c, batch + c.shape[-2:])
  if pivoting:
    h, perm, taus = lax_linalg.geqp3(a, jnp.zeros(batch + (n,), jnp.int32))
    perm = perm - 1
  else:
    h, taus = lax_linalg.geqrf(a)
  if mode == "left" and m > n:  # Q @ c takes the first k columns of the m x m Q
    c = jnp.concatenate([c, jnp.zeros(batch + (m - k, c.shape[-1]), c.dtype)], axis=-2)
  if conjugate:  # conj(Q) c = (c^T Q^H)^T and c conj(Q) = (Q^H c^T)^T
    c = jnp.swapaxes(c, -1, -2)
  out = lax_linalg.ormqr(h, taus, c, left=(mode == "left") != conjugate, transpose=conjugate)
  if conjugate:
    out = jnp.swapaxes(out, -1, -2)
  if mode == "right":
    out = out[..., :k]
  if vector:
    out = out.ravel()
  r = jnp.triu(h[..., :k, :])
  return (out, r, perm) if pivoting else (out, r)


def _polar_2d(a, side: str, method: str, eps):
  m, n = a.shape
  if method == "qdwh":
    if not (m >= n and side == "right") and not (m < n and side == "left"):
      raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where "
                                "side='right' and m >= n side='left', got "
                                f"{a.shape} with {side=}")
    if eps is not None:  # JAX 0.10.2 passes eps on to qdwh as a traced value, which fails
      raise ValueError("Non-hashable static arguments are not supported: polar(..., "
                       "method='qdwh') passes eps on to qdwh as a traced value (as JAX 0.10.2 "
                       "does), which qdwh cannot take. Leave eps=None.")
    if side == "right":
      u, p, _, _ = lax_linalg.qdwh(a)
      return u, p
    u, p, _, _ = lax_linalg.qdwh(a.conj().T)
    return u.conj().T, p.conj().T
  if method == "svd":
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    if side == "right":
      return u @ vh, (vh.conj().T * s[None, :]) @ vh
    return u @ vh, (u * s[None, :]) @ u.conj().T
  raise ValueError(f"Unknown polar decomposition method {method}.")


def polar(a, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None):
  """The polar decomposition ``(u, p)``: a = u p (``side='right'``, p n x n) or a = p u
  (``'left'``, p m x m), ``u`` with orthonormal columns (rows if n > m), ``p`` Hermitian
  positive semidefinite. ``method='qdwh'`` (the QR-based dynamically weighted Halley
  iteration; right side needs m >= n, left side m < n) or ``'svd'`` (u = u_svd vh_svd).

  As in JAX 0.10.2, ``max_iterations`` is ignored and a non-None ``eps`` makes ``'qdwh'``
  fail; ``'qdwh'`` is differentiable in forward mode only (a while loop), ``'svd'`` in both.

  Raises:
      ValueError: for a 1-D ``a``, another ``side`` or ``method``.
      NotImplementedError: for ``'qdwh'`` on shapes it does not support.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> u, p = linalg.polar(jnp.array([[0., 2.], [3., 0.]]))
      >>> jnp.abs(jnp.round(u, 4)), jnp.round(p, 4)
      (Array([[0., 1.],
             [1., 0.]], dtype=float32), Array([[3., 0.],
             [0., 2.]], dtype=float32))
  """
  arr = jnp.asarray(a)
  if arr.ndim < 2:
    raise ValueError("The input `a` must be at least a 2-D array.")
  if side not in ("right", "left"):
    raise ValueError("The argument `side` must be either 'right' or 'left'.")
  sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
  fn = lambda x: _polar_2d(x, side, method, eps)
  return jnp.vectorize(fn, signature=sig)(arr)


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
  """How many eigenvalues of the symmetric tridiagonal matrix (diagonal ``alpha``, squared
  off-diagonal ``beta_sq``) are below each ``x``: the negative pivots of the LDL^T of T - x I
  (the Sturm sequence), with pivots kept away from zero by ``pivmin``."""
  q = alpha[0] - x
  count = (q < 0).astype(jnp.int32)
  q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

  def step(i, qc):
    q, count = qc
    q = alpha[i] - beta_sq[i - 1] / q - x
    small = q <= pivmin
    return jnp.where(small, jnp.minimum(q, -pivmin), q), count + small.astype(jnp.int32)
  return lax.fori_loop(1, alpha.shape[0], step, (q, count))[1]


def _inverse_iteration(alpha, beta, eigvals, key):
  """Eigenvectors (as rows) of the tridiagonal matrix for ``eigvals`` (ascending): inverse
  iteration from random vectors, with the vectors of clustered eigenvalues orthonormalized
  after each step (LAPACK's stein: at most 5 steps, until no norm grows by 10%)."""
  from ember import random
  n, k = alpha.shape[0], eigvals.shape[0]
  dt = jnp.result_type(alpha, beta)
  dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
  eps = dtypes.finfo(eigvals.dtype).eps
  t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
  close = eigvals[1:] - eigvals[:-1] < np.sqrt(eps) * t_norm
  left_close, right_close = jnp.pad(close, (1, 0)), jnp.pad(close, (0, 1))
  max_clusters = k // 2 + 1
  starts = jnp.nonzero(~left_close & right_close, size=max_clusters)[0]
  ends = jnp.nonzero(left_close & ~right_close, size=max_clusters)[0] + 1
  num_clusters = jnp.sum(~left_close & right_close)
  rows = jnp.arange(k)
  v = random.normal(key, (k, n), dtype=dtypes.finfo(dt).dtype).astype(dt)
  v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(dt)

  def orthonormalize(i, v):  # the QR of cluster i's vectors (moved to the top of a block)
    start, size = starts[i], ends[i] - starts[i]
    block = lax.dynamic_slice(jnp.pad(v, ((0, k), (0, 0))), (start, 0), (k, n))
    mask = (rows < size).astype(v.dtype)[:, None]
    q = jnp.linalg.qr((block * mask).T)[0].T * mask
    placed = lax.dynamic_update_slice(jnp.zeros((2 * k, n), v.dtype), q, (start, 0))[:k]
    return jnp.where(((rows >= start) & (rows < ends[i]))[:, None], placed, v)

  shifted = (alpha[None, :] - eigvals[:, None]).astype(dt)
  dl, du = jnp.broadcast_to(dl, (k, n)).astype(dt), jnp.broadcast_to(du, (k, n)).astype(dt)

  def step(state):
    i, v, norms, _ = state
    v_new = lax_linalg.tridiagonal_solve(dl, shifted, du, v[:, :, None].astype(dt),
                                         perturb_singular=True)[..., 0]
    new_norms = jnp.linalg.norm(v_new, axis=-1, keepdims=True)
    v_new = v_new / new_norms.astype(v_new.dtype)
    v_new = lax.fori_loop(0, num_clusters, orthonormalize, v_new)
    return i + 1, v_new, new_norms[:, 0], norms

  def growing(state):
    i, _, norms, old_norms = state
    return (i < 5) & jnp.any(norms >= 1.1 * old_norms)
  init = (0, v, jnp.ones(k, eigvals.dtype), jnp.zeros(k, eigvals.dtype))
  return lax.while_loop(growing, step, init)[1]


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key=None):
  """The eigenvalues (ascending) of the real symmetric (or complex Hermitian) tridiagonal
  matrix with diagonal ``d`` and off-diagonal ``e``, by bisection on Sturm sequences, and its
  eigenvectors (columns) by inverse iteration from random vectors drawn with ``key``
  (default ``random.key(42)``), unless ``eigvals_only``. ``select='i'`` computes those of
  indices ``select_range[0]`` to ``select_range[1]`` (inclusive); ``tol`` is an absolute
  tolerance for the bisection. Differentiable in forward mode only (a while loop).

  Raises:
      TypeError: for non-float or mismatched dtypes.
      ValueError: for a bad ``select``/``select_range``.
      NotImplementedError: for ``select='v'``, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> w = linalg.eigh_tridiagonal(jnp.array([2., 2.]), jnp.array([1.]), eigvals_only=True)
      >>> jnp.round(w, 4)
      Array([1., 3.], dtype=float32)
  """
  if not eigvals_only and key is None:
    from ember import random
    key = random.key(42)
  alpha, beta = jnp.asarray(d), jnp.asarray(e)
  if alpha.dtype != beta.dtype:
    raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                    f"{alpha.dtype} and {beta.dtype}")
  if alpha.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
    raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                    f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
  n = alpha.shape[0]
  if n <= 1:
    return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
  if jnp.iscomplexobj(alpha):
    alpha, beta_sq = jnp.real(alpha), jnp.real(beta * jnp.conj(beta))
    beta_abs = jnp.sqrt(beta_sq)
  else:
    beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
  if select == "a":
    targets = jnp.arange(n, dtype=jnp.int32)
  elif select == "i":
    if select_range is None:
      raise ValueError("for select='i', select_range must be specified.")
    if select_range[0] > select_range[1]:
      raise ValueError("Got empty index range in select_range.")
    targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=jnp.int32)
  elif select == "v":
    raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
  else:
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
  mid = _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol)
  if eigvals_only:
    return mid
  return mid, _inverse_iteration(alpha, beta, mid, key).T


def _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol):
  """The eigenvalues of indices ``targets`` of the tridiagonal matrix, by bisection for all
  at once from a slightly widened Gershgorin interval, until the widest bracket is within
  eps * |T| (or ``tol``), or mantissa-bits + 1 steps (LAPACK's stebz strategy)."""
  radii = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
  est_max, est_min = jnp.max(alpha + radii), jnp.min(alpha - radii)
  t_norm = jnp.maximum(jnp.abs(est_min), jnp.abs(est_max))  # a bound on the 2-norm
  info = np.finfo(alpha.dtype)
  one = np.ones((), alpha.dtype)
  safemin = np.maximum(one / info.max, (one + info.eps) * info.tiny)
  pivmin = safemin * jnp.maximum(1, jnp.max(beta_sq))
  alpha0_perturbation = jnp.square(info.eps * beta_abs[0])
  abs_tol = info.eps * t_norm if tol is None else jnp.maximum(tol, info.eps * t_norm)
  fudge = 2.1
  slack = jnp.array(alpha.shape[0], alpha.dtype) * fudge * info.eps * t_norm
  shape = targets.shape
  lower = jnp.broadcast_to(est_min - slack - 2 * fudge * pivmin, shape)
  upper = jnp.broadcast_to(est_max + slack + fudge * pivmin, shape)
  pivmin = jnp.broadcast_to(pivmin, shape)
  alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

  def bisect(state):
    i, lower, mid, upper = state
    below = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid) <= targets
    lower, upper = jnp.where(below, mid, lower), jnp.where(below, upper, mid)
    return i + 1, lower, 0.5 * (lower + upper), upper

  def wide(state):
    i, lower, _, upper = state
    return (i < info.nmant + 1) & (abs_tol < jnp.max(upper - lower))
  return lax.while_loop(wide, bisect, (0, lower, 0.5 * (upper + lower), upper))[2]
