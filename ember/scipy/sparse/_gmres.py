"""GMRES's inner machinery for ember.scipy.sparse.linalg.gmres: the Arnoldi process on pytree
vectors, and the two ways of solving each restart's small least-squares problem.

A restart builds an orthonormal basis ``V`` of the Krylov space of ``M A`` from the current
preconditioned residual (each leaf's basis is stored along a new last axis of ``restart + 1``
columns) and the upper Hessenberg matrix ``H`` of the process, one row per step, then moves
``x`` by ``V y`` for the ``y`` minimizing ``| beta e_1 - H^T y |``:

- ``"incremental"`` factors ``H^T`` by Givens rotations as it grows, which gives the residual
  norm at every step, so a restart stops once that is below ``ptol``;
- ``"batched"`` builds all ``restart`` steps (fewer on breakdown) and solves the normal equations
  by Cholesky.

Orthogonalization is one classical Gram-Schmidt pass (JAX 0.10.2's "twice is enough" loop
stops after its first pass with the two iterations it allows); a new vector whose norm falls
below ``eps`` times its norm before orthogonalization counts as zero (breakdown). Steps, their
order and their tolerances are JAX 0.10.2's, so results agree with it to rounding.
"""
from __future__ import annotations

import operator
from functools import partial

from ember import dtypes, lax
from ember import numpy as jnp
from ember.lax.elementwise import _convert_element_type
from ember.pytree import tree_leaves, tree_map, tree_reduce
from ember.scipy import linalg as sp_linalg
from ember.scipy.sparse._vectors import add, safe_normalize, sub

__all__ = ["gmres_solve", "restart_batched", "restart_incremental"]

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def _basis(unit_residual, restart: int):
  """Each leaf of the unit residual as the first of ``restart + 1`` columns (the rest zero),
  weakly typed where the leaf is (re-applied: ember's ``jnp.pad`` drops weak types)."""
  def columns(x):
    padded = jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),))
    return _convert_element_type(padded, padded.dtype, dtypes.is_weakly_typed(x))
  return tree_map(columns, unit_residual)


def _orthogonalize(V, v):
  """``(v - V V^H v, V^H v)``: ``v`` made orthogonal to the columns of ``V``, and its overlaps."""
  overlaps = tree_reduce(operator.add, tree_map(
      lambda X, y: _einsum("...n,...->n", X.conj(), y), V, v))
  first = tree_leaves(V)[0]
  v = sub(v, tree_map(lambda X: _dot(X, overlaps), V))
  return v, jnp.zeros(first.shape[-1], dtype=first.dtype) + overlaps


def _arnoldi_step(k, A, M, V, H):
  """Step ``k`` of the Arnoldi process: ``M A V[:, k]`` orthonormalized against ``V`` becomes
  column ``k + 1`` of ``V``, its overlaps and norm row ``k`` of ``H``; also whether it vanished."""
  dtype = dtypes.result_type(*tree_leaves(V), return_weak_type_flag=True)[0]
  v = M(A(tree_map(lambda X: X[..., k], V)))
  _, size_before = safe_normalize(v)
  v, h = _orthogonalize(V, v)
  unit, size = safe_normalize(v, thresh=dtypes.finfo(dtype).eps * size_before)
  V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit)
  H = H.at[k, :].set(h.at[k + 1].set(size.astype(dtype)))
  return V, H, size == 0.


def _rotate(v, i, cs, sn):
  """``v`` with entries ``i`` and ``i + 1`` rotated by the Givens rotation ``(cs, sn)``."""
  x, y = v[i], v[i + 1]
  v = v.at[i].set(cs.conj() * x - sn.conj() * y)
  return v.at[i + 1].set(sn * x + cs * y)


def _givens(a, b):
  """``(cs, sn)`` of the rotation that zeroes ``b`` against ``a``."""
  b_zero = abs(b) == 0
  swap = abs(a) < abs(b)
  t = -jnp.where(swap, a, b) / jnp.where(swap, b, a)
  r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
  cs = jnp.where(b_zero, 1, jnp.where(swap, r * t, r))
  sn = jnp.where(b_zero, 0, jnp.where(swap, r, r * t))
  return cs, sn


def _triangularize_row(row, givens, k):
  """Row ``k`` of ``H`` rotated by the ``k`` earlier rotations and a new one zeroing its entry
  ``k + 1``; the row and the rotations with the new one stored."""
  row = lax.fori_loop(0, k, lambda i, r: _rotate(r, i, givens[i, 0], givens[i, 1]), row)
  cs, sn = _givens(row[k], row[k + 1])
  return _rotate(row, k, cs, sn), givens.at[k, :].set((cs, sn))


def _finish_restart(A, b, x0, M, V, y):
  """``x0 + V y`` and its unit preconditioned residual with the residual's norm."""
  x = add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
  unit, size = safe_normalize(M(sub(b, A(x))))
  return x, unit, size


def restart_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart: int, M):
  """One GMRES restart factoring ``H`` by Givens rotations as it grows, stopping early once the
  residual norm it tracks is at most ``ptol``."""
  dtype = dtypes.result_type(*tree_leaves(b))
  V = _basis(unit_residual, restart)
  R = jnp.eye(restart, restart + 1, dtype=dtype)   # the identity keeps unused rows solvable
  givens = jnp.zeros((restart, 2), dtype=dtype)
  rhs = jnp.zeros((restart + 1), dtype=dtype).at[0].set(residual_norm.astype(dtype))

  def step(carry):
    k, _, V, R, rhs, givens = carry
    V, H, _ = _arnoldi_step(k, A, M, V, R)
    row, givens = _triangularize_row(H[k, :], givens, k)
    rhs = _rotate(rhs, k, givens[k, 0], givens[k, 1])
    return k + 1, abs(rhs[k + 1]), V, R.at[k, :].set(row), rhs, givens

  carry = (0, residual_norm, V, R, rhs, givens)
  _, _, V, R, rhs, _ = lax.while_loop(lambda c: jnp.logical_and(c[0] < restart, c[1] > ptol),
                                      step, carry)
  y = sp_linalg.solve_triangular(R[:, :-1].T, rhs[:-1])
  return _finish_restart(A, b, x0, M, V, y)


def restart_batched(A, b, x0, unit_residual, residual_norm, ptol, restart: int, M):
  """One GMRES restart of ``restart`` Arnoldi steps (fewer on breakdown), then the least-squares
  problem solved by its normal equations."""
  del ptol  # the residual is known only at the end
  dtype, weak_type = dtypes.result_type(*tree_leaves(b), return_weak_type_flag=True)
  V = _basis(unit_residual, restart)
  H = _convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak_type)

  def step(carry):
    V, H, _, k = carry
    V, H, breakdown = _arnoldi_step(k, A, M, V, H)
    return V, H, breakdown, k + 1

  V, H, _, _ = lax.while_loop(lambda c: jnp.logical_and(c[3] < restart, jnp.logical_not(c[2])),
                              step, (V, H, False, 0))
  rhs = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
  gram, moment = _dot(H.conj(), H.T), _dot(H.conj(), rhs)
  y = sp_linalg.solve(gram, moment, assume_a="pos")
  y = _convert_element_type(y, y.dtype, weak_type)   # JAX's solve keeps weak types; ember's not
  return _finish_restart(A, b, x0, M, V, y)


def gmres_solve(A, b, x0, atol, ptol, restart: int, maxiter: int, M, restart_fn):
  """Restart GMRES from ``x0`` until the preconditioned residual's norm is at most ``atol`` or
  after ``maxiter`` restarts."""
  unit_residual, residual_norm = safe_normalize(M(sub(b, A(x0))))

  def step(value):
    x, k, unit_residual, residual_norm = value
    x, unit_residual, residual_norm = restart_fn(A, b, x, unit_residual, residual_norm, ptol,
                                                 restart, M)
    return x, k + 1, unit_residual, residual_norm

  carry = (x0, 0, unit_residual, residual_norm)
  return lax.while_loop(lambda c: jnp.logical_and(c[1] < maxiter, c[3] > atol), step, carry)[0]
