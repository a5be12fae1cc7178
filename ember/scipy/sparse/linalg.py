"""ember.scipy.sparse.linalg: Krylov solvers of ``A x = b``, mirroring
``jax.scipy.sparse.linalg`` (``cg``, ``bicgstab``, ``gmres``).

``A`` (and the preconditioner ``M``, which should approximate ``A``'s inverse) is a function
``x -> A x``, a square matrix or an object with ``@``; ``b`` and ``x`` are pytrees of arrays of
any shapes, taken as one vector. Each solver is a ``lax.while_loop`` wrapped in
``lax.custom_linear_solve``, so it works under jit and vmap, and derivatives are implicit: a
second solve (with ``A``'s transpose, from autodiff, for ``bicgstab`` and ``gmres``) rather than
differentiation through the iterations; they are accurate when both solves converge.

Tolerances are SciPy's non-legacy ones: stop once ``|b - A x| <= max(tol |b|, atol)``. The
iterations (their order of operations included) are JAX 0.10.2's, and so is ``info``: ``None``
for ``cg`` and ``bicgstab``; for ``gmres``, -1 when the solution holds a nan and 0 otherwise,
whether or not it converged.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.sparse.linalg import cg
    >>> cg(jnp.array([[4., 1.], [1., 3.]]), jnp.array([1., 2.]))
    (Array([0.09090909, 0.6363636 ], dtype=float32), None)
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.api import device_put
from ember.lax.elementwise import _convert_element_type
from ember.pytree import tree_leaves, tree_map, tree_structure
from ember.scipy.sparse import _gmres
from ember.scipy.sparse._vectors import (add, as_operator, identity, norm, scale, sub, vdot_real,
                                         vdot_tree)

__all__ = ["bicgstab", "cg", "gmres"]


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
  """Preconditioned conjugate gradients from ``x0``."""
  atol2 = jnp.maximum(jnp.square(tol) * vdot_real(b, b), jnp.square(atol))
  r0 = sub(b, A(x0))
  z0 = M(r0)
  dtype = dtypes.result_type(*tree_leaves(z0))

  def running(value):
    _, r, gamma, _, k = value
    residual2 = gamma.real if M is identity else vdot_real(r, r)
    return (residual2 > atol2) & (k < maxiter)

  def step(value):
    x, r, gamma, p, k = value
    Ap = A(p)
    alpha = gamma / vdot_real(p, Ap).astype(dtype)
    x = add(x, scale(alpha, p))
    r = sub(r, scale(alpha, Ap))
    z = M(r)
    gamma_next = vdot_real(r, z).astype(dtype)
    p = add(z, scale(gamma_next / gamma, p))
    return x, r, gamma_next, p, k + 1

  carry = (x0, r0, vdot_real(r0, z0).astype(dtype), z0, 0)
  return lax.while_loop(running, step, carry)[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
  """Preconditioned BiCGSTAB from ``x0``; a breakdown (``rho``, ``alpha`` or ``omega`` zero)
  ends the iteration."""
  atol2 = jnp.maximum(jnp.square(tol) * vdot_real(b, b), jnp.square(atol))

  def running(value):
    r, k = value[1], value[-1]
    return (vdot_real(r, r) > atol2) & (k < maxiter) & (k >= 0)

  def step(value):
    x, r, rhat, alpha, omega, rho, p, q, k = value
    rho_next = vdot_tree(rhat, r)
    beta = rho_next / rho * alpha / omega
    p = add(r, scale(beta, sub(p, scale(omega, q))))
    phat = M(p)
    q = A(phat)
    alpha = rho_next / vdot_tree(rhat, q)
    s = sub(r, scale(alpha, q))
    small = vdot_real(s, s) < atol2
    shat = M(s)
    t = A(shat)
    omega = vdot_tree(t, s) / vdot_tree(t, t)
    x = tree_map(partial(jnp.where, small), add(x, scale(alpha, phat)),
                 add(x, add(scale(alpha, phat), scale(omega, shat))))
    r = tree_map(partial(jnp.where, small), s, sub(s, scale(omega, t)))
    k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
    k = jnp.where(rho_next == 0, -10, k)
    return x, r, rhat, alpha, omega, rho_next, p, q, k

  r0 = sub(b, A(x0))
  one = _convert_element_type(1, *dtypes.result_type(*tree_leaves(b),
                                                       return_weak_type_flag=True))
  return lax.while_loop(running, step, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _shapes(tree) -> list:
  return [np.shape(leaf) for leaf in tree_leaves(tree)]


def _check_x0(x0, b, shapes: bool) -> None:
  if tree_structure(x0) != tree_structure(b):
    raise ValueError("x0 and b must have matching tree structure: "
                     f"{tree_structure(x0)} vs {tree_structure(b)}")
  if shapes and _shapes(x0) != _shapes(b):
    raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs "
                     f"{_shapes(b)}")


def _isolve(solve, A, b, x0, *, tol, atol, maxiter, M, symmetric_if_real: bool):
  """``(x, None)``: ``solve`` (cg's or bicgstab's loop) inside ``custom_linear_solve``."""
  if x0 is None:
    x0 = tree_map(jnp.zeros_like, b)
  b, x0 = device_put((b, x0))
  if maxiter is None:
    maxiter = 10 * sum(leaf.size for leaf in tree_leaves(b))   # SciPy's default
  A = as_operator(A)
  M = identity if M is None else as_operator(M)
  _check_x0(x0, b, shapes=True)
  run = partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
  # a real positive-definite operator is symmetric: the transposed solve is the solve itself
  symmetric = symmetric_if_real and not any(jnp.iscomplexobj(leaf) for leaf in tree_leaves(b))
  return lax.custom_linear_solve(A, b, solve=run, transpose_solve=run, symmetric=symmetric), None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solve ``A x = b`` by (preconditioned) conjugate gradients, for a Hermitian
  positive-definite ``A``.

  Args:
      A: a function ``x -> A x``, a square matrix, or an object with ``@``.
      b: the right-hand side, an array or pytree of arrays.
      x0: the starting guess (zeros by default), with ``b``'s structure and shapes.
      tol, atol: stop once ``|b - A x| <= max(tol |b|, atol)``.
      maxiter: the most iterations (10 times the size of ``b`` by default).
      M: a preconditioner approximating ``A``'s inverse, given as ``A`` is.

  Returns:
      ``(x, None)``: the solution, with ``b``'s structure, and JAX's placeholder for ``info``.

  Raises:
      ValueError: ``x0`` and ``b`` differ in structure or shapes; a matrix that is not square.
      TypeError: ``A`` or ``M`` is neither a function nor a matrix.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.scipy.sparse.linalg import cg
      >>> A = jnp.array([[4., 1.], [1., 3.]])
      >>> cg(lambda x: {"u": A @ x["u"]}, {"u": jnp.array([1., 2.])})
      ({'u': Array([0.09090909, 0.6363636 ], dtype=float32)}, None)
      >>> ember.grad(lambda b: cg(A, b)[0].sum())(jnp.array([1., 2.]))
      Array([0.18181819, 0.27272728], dtype=float32)
  """
  return _isolve(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                 symmetric_if_real=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solve ``A x = b`` by the biconjugate gradient stabilized method, for a general (square,
  non-singular) ``A``.

  Arguments, defaults and errors are ``cg``'s; derivatives solve the transposed system with
  ``bicgstab`` again.

  Returns:
      ``(x, None)``: the solution, with ``b``'s structure, and JAX's placeholder for ``info``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.sparse.linalg import bicgstab
      >>> bicgstab(jnp.array([[3., 1.], [-1., 2.]]), jnp.array([4., 1.]))
      (Array([0.99999994, 1.        ], dtype=float32), None)
  """
  return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                 symmetric_if_real=False)


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
  """Solve ``A x = b`` by restarted GMRES, for a general (square, non-singular) ``A``.

  Each restart projects the solution onto a Krylov space of dimension ``restart`` (at most the
  size of ``b``) around the current guess. ``maxiter`` (10 times the size of ``b`` by default)
  bounds the number of restarts. ``solve_method="incremental"`` factors the projected problem
  by Givens rotations as it is built, stopping a restart early once the residual is small;
  ``"batched"`` (the default) builds the whole space and solves the projected problem at the
  end. The other arguments are ``cg``'s (``x0`` must match ``b``'s structure; its shapes are not
  checked, as in JAX).

  Returns:
      ``(x, info)``: the solution and, as in JAX 0.10.2, ``info`` -1 when ``x`` holds a nan,
      else 0 (it does not report non-convergence).

  Raises:
      ValueError: an unknown ``solve_method``, ``x0`` of another structure than ``b``, a
          matrix that is not square.
      TypeError: ``A`` or ``M`` is neither a function nor a matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.sparse.linalg import gmres
      >>> A = jnp.array([[3., 1.], [-1., 2.]])
      >>> gmres(A, jnp.array([4., 1.]), solve_method="incremental")
      (Array([1., 1.], dtype=float32), Array(0, dtype=int32, weak_type=True))
  """
  if x0 is None:
    x0 = tree_map(jnp.zeros_like, b)
  A = as_operator(A)
  M = identity if M is None else as_operator(M)
  b, x0 = device_put((b, x0))
  size = sum(leaf.size for leaf in tree_leaves(b))
  if maxiter is None:
    maxiter = 10 * size   # SciPy's default
  restart = min(restart, size)
  _check_x0(x0, b, shapes=False)
  b_norm = norm(b)
  atol = jnp.maximum(tol * b_norm, atol)
  ptol = norm(M(b)) * jnp.minimum(1.0, atol / b_norm)   # the tolerance within a restart
  if solve_method == "incremental":
    restart_fn = _gmres.restart_incremental
  elif solve_method == "batched":
    restart_fn = _gmres.restart_batched
  else:
    raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or "
                     "'batched'")

  def solve(A, b):
    return _gmres.gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, restart_fn)

  x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
  return x, jnp.where(jnp.isnan(norm(x)), -1, 0)
