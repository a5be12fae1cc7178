"""ember.scipy.linalg's matrix functions: expm (JAX's Pade scheme), expm_frechet, sqrtm, funm
and solve_sylvester."""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.numpy._util import promote_dtypes_inexact
from ember.scipy._factorizations import inv, solve, solve_triangular
from ember.scipy._condensed import _check_bindable, rsf2csf, schur


def _pade_coefficients(m: int) -> list[float]:
  """b_0..b_m of the degree-m Pade approximant of exp, scaled so that b_m = 1:
  b_k = (2m - k)! / (k! (m - k)!)."""
  f = math.factorial
  return [float(f(2 * m - k) // (f(k) * f(m - k))) for k in range(m + 1)]


def _precise_dot(a, b):
  return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _pade(a, m: int):
  """``(u, v)``: the odd and even parts of the degree-m Pade numerator sum b_k a^k (the
  approximant is (v - u)^-1 (v + u)), evaluated from a^2, a^4, a^6 (and a^8), degree 13 in
  Higham's nested form."""
  b = _pade_coefficients(m)
  eye = jnp.eye(a.shape[-1], dtype=a.dtype)
  powers = [eye, _precise_dot(a, a)]  # a^0, a^2, a^4, ...
  for _ in range(min(m // 2, 3) - 1):
    powers.append(_precise_dot(powers[-1], powers[1]))
  if m == 13:
    a2, a4, a6 = powers[1:]
    u = _precise_dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
    u = _precise_dot(a, u + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = _precise_dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
    return u, v + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
  if m == 9:
    powers.append(_precise_dot(powers[-1], powers[1]))
  odd = [b[k] * powers[k // 2] for k in range(m, 0, -2)]
  even = [b[k] * powers[k // 2] for k in range(m - 1, -1, -2)]
  return _precise_dot(a, functools.reduce(operator.add, odd)), functools.reduce(operator.add,
                                                                                even)


# (degree, largest 1-norm for it) of the approximants tried by dtype, and the 1-norm above
# which the matrix is scaled by powers of 2 (Higham, SIAM J. Matrix Anal. Appl. 26(4), 2005)
_EXPM_PADE = {
    np.float64: ([3, 5, 7, 9, 13], [1.495585217958292e-2, 2.539398330063230e-1,
                                    9.504178996162932e-1, 2.097847961257068], 5.371920351148152),
    np.float32: ([3, 5, 7], [4.258730016922831e-1, 1.880152677804762], 3.925724783138660),
}


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
  """Scaling and squaring: a is scaled by 2^-s (s = max(0, floor(log2(|a|_1 / theta))))
  and a Pade approximant chosen by |a|_1; the result is squared s times, or NaN when s
  exceeds ``max_squarings``."""
  real = np.dtype(dtypes.finfo(a.dtype).dtype)
  degrees, bounds, theta = _EXPM_PADE[np.float64 if real == np.float64 else np.float32]
  norm = jnp.linalg.norm(a, 1)
  squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / theta)))
  scaled = a / 2 ** squarings.astype(a.dtype)
  which = jnp.digitize(norm, jnp.array(bounds, dtype=norm.dtype))
  u, v = lax.switch(which, [functools.partial(_pade, m=m) for m in degrees], scaled)
  p, q = u + v, v - u

  def compute(p, q):
    r = solve_triangular(q, p) if upper_triangular else jnp.linalg.solve(q, p)
    square = lambda r, i: (lax.cond(i < squarings, lambda r: _precise_dot(r, r),
                                    lambda r: r, r), None)
    return lax.scan(square, r, jnp.arange(max_squarings, dtype=squarings.dtype))[0]
  return lax.cond(squarings > max_squarings, lambda p, q: jnp.full_like(p, np.nan), compute,
                  p, q)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """The matrix exponential of a (batch of) square matrices, by scaling and squaring with a
  Pade approximant (degree 3 to 7 for 32-bit, 3 to 13 for 64-bit dtypes, chosen by the
  1-norm, as JAX's). ``upper_triangular`` solves the approximant's system as triangular.
  Matrices that need more than ``max_squarings`` squarings give NaNs, as in JAX.
  Differentiable in both modes.

  Raises:
      ValueError: unless ``A`` is a (batch of) square matrices.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.expm(jnp.array([[0., 1.], [0., 0.]]))
      Array([[1., 1.],
             [0., 1.]], dtype=float32)
  """
  A, = promote_dtypes_inexact(jnp.asarray(A))
  if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
    raise ValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")
  fn = functools.partial(_expm_2d, upper_triangular=upper_triangular,
                         max_squarings=operator.index(max_squarings))
  return jnp.vectorize(fn, signature="(n,n)->(n,n)")(A)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
  """The Frechet derivative of the matrix exponential at ``A`` in the direction ``E`` (the
  jvp of ``expm``), with ``expm(A)`` first when ``compute_expm``. ``method`` is ignored, as
  in JAX.

  Raises:
      ValueError: unless ``A`` and ``E`` are (batches of) square matrices of one shape.
      TypeError: for integer input (as ``jvp``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.expm_frechet(jnp.zeros((2, 2)), jnp.array([[0., 1.], [0., 0.]]),
      ...                     compute_expm=False)
      Array([[0., 1.],
             [0., 0.]], dtype=float32)
  """
  import ember
  A, E = jnp.asarray(A), jnp.asarray(E)
  if A.ndim < 2 or A.shape[-2] != A.shape[1]:
    raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
  if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
    raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
  if A.shape != E.shape:
    raise ValueError("expected A and E to be the same shape, got "
                     f"A.shape={A.shape} E.shape={E.shape}")
  expm_a, frechet = ember.jvp(functools.partial(expm, max_squarings=16), (A,), (E,))
  return (expm_a, frechet) if compute_expm else frechet


def _in_order(pairs):
  """Two int32 index arrays from a static list of (i, j) pairs."""
  i, j = zip(*pairs) if pairs else ((), ())
  return jnp.array(i, jnp.int32), jnp.array(j, jnp.int32)


def _sqrtm_triu(t):
  """The upper-triangular square root U of an upper-triangular ``t`` (U U = t), column by
  column upwards: U[i, j] = (t[i, j] - sum_{i<k<j} U[i, k] U[k, j]) / (U[i, i] + U[j, j]),
  and 0 where that sum equals t[i, j] (Bjorck and Hammarling, 1983)."""
  n = t.shape[0]
  root = jnp.sqrt(jnp.diag(t))
  idx = jnp.arange(n)

  def entry(u, ij):
    i, j = ij
    between = (idx > i) & (idx < j)
    s = jnp.sum(jnp.where(between, u[i, :] * u[:, j], 0))
    value = jnp.where(t[i, j] == s, 0, (t[i, j] - s) / (root[i] + root[j]))
    return u.at[i, j].set(value), None
  order = _in_order([(i, j) for j in range(n) for i in range(j - 1, -1, -1)])
  return lax.scan(entry, jnp.diag(root), order)[0]


def sqrtm(A, blocksize: int = 1):
  """The principal square root of a square matrix (complex): a complex Schur form is rooted
  upper-triangularly (Bjorck and Hammarling's method, unblocked). CPU only (``schur``), and
  not differentiable, as in JAX.

  Raises:
      NotImplementedError: for ``blocksize`` above 1, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.sqrtm(jnp.array([[4., 0.], [0., 9.]]))
      Array([[2.+0.j, 0.+0.j],
             [0.+0.j, 3.+0.j]], dtype=complex64)
  """
  if blocksize > 1:
    raise NotImplementedError("Blocked version is not implemented yet.")
  _check_bindable("schur", A)
  t, z = schur(A, output="complex")
  if t.ndim != 2:
    raise ValueError("diag input must be 1d or 2d")  # JAX's error, from its jnp.diag
  root = _sqrtm_triu(t)
  return _precise_dot(_precise_dot(z, root), jnp.conj(z.T))


def _parlett(f, t):
  """Algorithm 11.1.1 of Golub and Van Loan's Matrix Computations: the strict upper triangle
  of F = f(T) for upper-triangular ``t``, given F's diagonal in ``f``, superdiagonal by
  superdiagonal; with the smallest |T[j, j] - T[i, i]| met (the error estimate's
  denominator), starting from |T[0, 0]|."""
  n = t.shape[0]
  idx = jnp.arange(n)

  def entry(carry, ij):
    f, minden = carry
    i, j = ij
    between = (idx > i) & (idx < j)
    s = t[i, j] * (f[j, j] - f[i, i])
    s = s + (jnp.where(between, t[i], 0) @ jnp.where(between, f[:, j], 0) -
             jnp.where(between, f[i], 0) @ jnp.where(between, t[:, j], 0))
    den = t[j, j] - t[i, i]
    s = jnp.where(den != 0, s / den, s)
    return (f.at[i, j].set(s), jnp.minimum(minden, jnp.abs(den))), None
  order = _in_order([(i, i + p) for p in range(1, n) for i in range(n - p)])
  return lax.scan(entry, (f, jnp.abs(t[0, 0])), order)[0]


def funm(A, func, disp: bool = True):
  """The matrix function F = func(A) for ``func`` of a scalar (written with array
  operations), by the Schur-Parlett method: on the complex Schur form T = Z^H A Z, F's
  diagonal is func(diag(T)) and the rest follows from F T = T F. The result is complex, as
  in JAX; with ``disp=False`` an error estimate comes second. CPU only (``schur``).

  Raises:
      ValueError: unless ``A`` is one square matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.funm(jnp.array([[1., 0.], [0., 2.]]), jnp.square)
      Array([[1.+0.j, 0.+0.j],
             [0.+0.j, 4.+0.j]], dtype=complex64)
  """
  A = jnp.asarray(A)
  if A.ndim != 2 or A.shape[0] != A.shape[1]:
    raise ValueError("expected square array_like input")
  t, z = rsf2csf(*schur(A))
  f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
  f, minden = _parlett(f, t)
  f = z @ f @ z.conj().T
  if disp:
    return f
  tol = dtypes.finfo(f.dtype).eps
  minden = jnp.where(minden == 0.0, tol, minden)
  err = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
      tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))))
  return f, err


def _triangular_sylvester(r, s, f):
  """Y with R Y + Y S = F for upper-triangular R and lower-triangular S, element by element
  from the bottom-right corner (each Y[i, j] needs those below it and right of it)."""
  m, n = f.shape
  rows, cols = jnp.arange(m), jnp.arange(n)

  def entry(y, ij):
    i, j = ij
    known = jnp.sum(jnp.where(rows > i, r[i, :] * y[:, j], 0)) + \
        jnp.sum(jnp.where(cols > j, y[i, :] * s[:, j], 0))
    return y.at[i, j].set((f[i, j] - known) / (r[i, i] + s[j, j])), None
  order = _in_order([divmod(k, n) for k in range(m * n - 1, -1, -1)])
  return lax.scan(entry, jnp.zeros((m, n), f.dtype), order)[0]


def _solve_sylvester_2d(a, b, c, *, method: str, tol):
  m, n = c.shape
  if method == "schur":  # Bartels-Stewart on complex Schur forms of A and B^H
    r, u = schur(a, output="complex")
    s, v = schur(b.conj().T, output="complex")
    y = _triangular_sylvester(r, s.conj().T, u.conj().T @ c.astype(r.dtype) @ v)
    x = u @ y @ v.conj().T
  elif method == "eigen":
    wa, ua = jnp.linalg.eig(a)
    wb, ub = jnp.linalg.eig(b)
    y = solve(ua, c.astype(wa.dtype) @ ub) / (wa[:, None] + wb[None, :])
    x = ua[:m, :m] @ y[:m, :n] @ inv(ub)[:n, :n]
  else:
    raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                     "\"schur\" or \"eigen\".")
  if not jnp.iscomplexobj(c):
    x = x.real
  near_singular = jnp.any(jnp.abs(jnp.linalg.eigvals(a)[:, None] +
                                  jnp.linalg.eigvals(b)[None, :]) < tol)
  return lax.cond(near_singular, lambda: jnp.zeros_like(x) * np.nan, lambda: x)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
  """X solving the Sylvester equation A X + X B = C (A m x m, B n x n, C m x n, batch
  dimensions broadcast): by Bartels-Stewart on complex Schur forms (``method='schur'``, CPU
  only) or by eigendecompositions (``'eigen'``, for diagonalizable A and B). NaNs when some
  eigenvalue sum of A and B is within ``tol`` of 0. Differentiable (``'eigen'``) as JAX's.

  Raises:
      ValueError: for mismatched shapes or another ``method``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy import linalg
      >>> linalg.solve_sylvester(jnp.eye(2), 2 * jnp.eye(2), jnp.array([[3., 6.], [9., 12.]]))
      Array([[1., 2.],
             [3., 4.]], dtype=float32)
  """
  A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
  m, n = C.shape[-2:]
  if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
    raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                     f"B: {B.shape}\nC: {C.shape}")
  fn = functools.partial(_solve_sylvester_2d, method=method, tol=tol)
  return jnp.vectorize(fn, signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)
