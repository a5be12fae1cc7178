"""BFGS: quasi-Newton minimization with a dense inverse-Hessian estimate (Nocedal & Wright,
*Numerical Optimization*, 1999, Algorithm 6.1), as ``minimize(method="BFGS")`` runs it.

Each iteration steps along ``p = -H g`` by a strong-Wolfe line search (``_line_search``),
then updates ``H`` by ``(I - rho s y^T) H (I - rho y s^T) + rho s s^T`` with ``s`` the step,
``y`` the change of gradient and ``rho = 1 / (y . s)``, keeping the old ``H`` when ``rho`` is
not finite. It stops once the gradient's ``norm``-norm is below ``gtol``, after ``maxiter``
iterations, or when a line search fails. The iteration, its counters and its status codes are
JAX 0.10.2's: 0 converged, 1 ``maxiter`` reached, 2 + the line search's status when it failed
(3: its zoom failed, 5: it ran out of steps), -1 otherwise.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy.optimize._line_search import line_search
from ember.transforms.linearize import value_and_grad

__all__ = ["minimize_bfgs", "BFGSResults"]

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


class BFGSResults(NamedTuple):
  """BFGS's state and result: flags, counters (``k`` iterations; evaluations of ``f``, its
  gradient and its Hessian), the iterate with ``f``, its gradient and the inverse-Hessian
  estimate there, ``f`` at the previous iterate, and the status codes."""
  converged: Any
  failed: Any
  k: Any
  nfev: Any
  ngev: Any
  nhev: Any
  x_k: Any
  f_k: Any
  g_k: Any
  H_k: Any
  old_old_fval: Any
  status: Any
  line_search_status: Any


def _updated_inverse_hessian(H, s, y):
  """The BFGS update of the inverse-Hessian estimate ``H`` by the step ``s`` and the change of
  gradient ``y`` (``H`` itself where ``1 / (y . s)`` is not finite)."""
  rho = jnp.reciprocal(_dot(y, s))
  left = jnp.eye(s.shape[0], dtype=rho.dtype) - rho * (s[:, None] * y[None, :])
  updated = _einsum("ij,jk,lk", left, H, left) + rho * s[:, None] * s[None, :]
  return jnp.where(jnp.isfinite(rho), updated, H)


def minimize_bfgs(fun: Callable, x0, maxiter: int | None = None, norm=np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> BFGSResults:
  """Minimize ``fun`` (a scalar function of a 1-d array) by BFGS from ``x0``.

  ``maxiter`` defaults to 200 times the size of ``x0``; the gradient's ``norm``-norm (inf by
  default) below ``gtol`` is convergence; each line search takes at most
  ``line_search_maxiter`` steps.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.optimize._bfgs import minimize_bfgs
      >>> res = minimize_bfgs(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2))
      >>> res.x_k, res.k
      (Array([2., 2.], dtype=float32), Array(2, dtype=int32, weak_type=True))
      >>> res.status
      Array(0, dtype=int32, weak_type=True)
  """
  if maxiter is None:
    maxiter = np.size(x0) * 200
  d = x0.shape[0]
  f_0, g_0 = value_and_grad(fun)(x0)
  init = BFGSResults(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0,
                     nfev=1, ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
                     H_k=jnp.eye(d, dtype=x0.dtype), old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2,
                     status=0, line_search_status=0)

  def running(state):
    return (jnp.logical_not(state.converged) & jnp.logical_not(state.failed)
            & (state.k < maxiter))

  def step(state):
    s = state
    p = -_dot(s.H_k, s.g_k)
    ls = line_search(fun, s.x_k, p, old_fval=s.f_k, old_old_fval=s.old_old_fval, gfk=s.g_k,
                     maxiter=line_search_maxiter)
    s_k = ls.a_k * p
    return s._replace(
        converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol, failed=ls.failed, k=s.k + 1,
        nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k,
        H_k=_updated_inverse_hessian(s.H_k, s_k, ls.g_k - s.g_k), old_old_fval=s.f_k,
        line_search_status=ls.status)

  s = lax.while_loop(running, step, init)
  status = jnp.where(s.converged, 0,
                     jnp.where(s.k == maxiter, 1,
                               jnp.where(s.failed, 2 + s.line_search_status, -1)))
  return s._replace(status=status)
