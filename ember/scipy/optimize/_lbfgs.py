"""L-BFGS: quasi-Newton minimization from the last ``maxcor`` steps (Nocedal & Wright,
*Numerical Optimization*, 1999, Algorithm 7.4/7.5), extended to complex variables as in Sorber,
Van Barel and De Lathauwer, SIAM J. Optim. 22(3), 2012; JAX 0.10.2 exposes it as
``minimize(method="l-bfgs-experimental-do-not-rely-on-this")``.

The direction comes from the two-loop recursion over the stored steps ``s``, gradient changes
``y`` and ``rho = 1 / Re(y . s)``, scaled by ``gamma = Re(y . s) / |y|^2`` of the last step; the
step length from a strong-Wolfe line search starting at 1. The histories are fixed-size
buffers, oldest first, rolled by one each iteration. Status codes (JAX's): 0 converged, 1
``maxiter``, 2 ``maxfun``, 3 ``maxgrad`` reached, 4 ``f`` decreased by less than ``ftol``,
5 the line search failed (the later ones taking precedence).
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.scipy.optimize._line_search import line_search
from ember.transforms.linearize import value_and_grad

__all__ = ["_minimize_lbfgs", "LBFGSResults"]

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)


class LBFGSResults(NamedTuple):
  """L-BFGS's state and result: flags, counters, the iterate with ``f`` and its gradient there,
  the step/gradient-change histories with their ``rho``, the scale ``gamma`` and the status
  codes (the method's and the last line search's)."""
  converged: Any
  failed: Any
  k: Any
  nfev: Any
  ngev: Any
  x_k: Any
  f_k: Any
  g_k: Any
  s_history: Any
  y_history: Any
  rho_history: Any
  gamma: Any
  status: Any
  ls_status: Any


def _search_direction(s: LBFGSResults):
  """``-H g`` for the L-BFGS inverse-Hessian estimate ``H`` (the two-loop recursion over the
  ``min(k, maxcor)`` newest history entries)."""
  dtype = s.rho_history.dtype
  size = len(s.rho_history)
  used = jnp.where(s.k < size, s.k, size)

  def newest_first(j, carry):
    q, alphas = carry
    i = size - 1 - j
    alpha = s.rho_history[i] * _dot(jnp.conj(s.s_history[i]), q).real.astype(dtype)
    return q - alpha * jnp.conj(s.y_history[i]), alphas.at[i].set(alpha)

  q, alphas = lax.fori_loop(0, used, newest_first,
                            (-jnp.conj(s.g_k), jnp.zeros_like(s.rho_history)))
  q = s.gamma * q

  def oldest_first(j, q):
    i = size - used + j
    beta = s.rho_history[i] * _dot(s.y_history[i], q).real.astype(dtype)
    return q + (alphas[i] - beta) * s.s_history[i]

  return lax.fori_loop(0, used, oldest_first, q)


def _pushed(history, new):
  """``history`` with its oldest entry dropped and ``new`` appended."""
  return jnp.roll(history, -1, axis=0).at[-1].set(new)


def _minimize_lbfgs(fun: Callable, x0, maxiter: float | None = None, norm=np.inf,
                    maxcor: int = 10, ftol: float = 2.220446049250313e-09, gtol: float = 1e-05,
                    maxfun: float | None = None, maxgrad: float | None = None,
                    maxls: int = 20) -> LBFGSResults:
  """Minimize ``fun`` (a real scalar function of a 1-d real or complex array) by L-BFGS.

  Stops when the gradient's ``norm``-norm is below ``gtol``, ``f`` falls by less than ``ftol``
  in a step, after ``maxiter`` iterations, ``maxfun`` evaluations of ``f`` or ``maxgrad`` of its
  gradient (``maxiter`` is 200 times the size of ``x0`` when none of the three is given), or when
  a line search (of at most ``maxls`` steps) fails; ``maxcor`` steps are remembered.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.optimize._lbfgs import _minimize_lbfgs
      >>> res = _minimize_lbfgs(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2))
      >>> res.x_k, res.k
      (Array([2., 2.], dtype=float32), Array(1, dtype=int32, weak_type=True))
      >>> res.status
      Array(0, dtype=int32, weak_type=True)
  """
  d = len(x0)
  dtype = dtypes.dtype(x0)
  if maxiter is None and maxfun is None and maxgrad is None:
    maxiter = d * 200
  maxiter, maxfun, maxgrad = (np.inf if m is None else m for m in (maxiter, maxfun, maxgrad))
  f_0, g_0 = value_and_grad(fun)(x0)
  init = LBFGSResults(
      converged=jnp.array(False), failed=jnp.array(False), k=0, nfev=1, ngev=1, x_k=x0, f_k=f_0,
      g_k=g_0, s_history=jnp.zeros((maxcor, d), dtype=dtype),
      y_history=jnp.zeros((maxcor, d), dtype=dtype), rho_history=jnp.zeros((maxcor,), dtype=dtype),
      gamma=1., status=0, ls_status=0)

  def step(state: LBFGSResults):
    s = state
    p = _search_direction(s)
    ls = line_search(fun, s.x_k, p, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
    s_k = jnp.asarray(ls.a_k).astype(p.dtype) * p
    y_k = ls.g_k - s.g_k
    curvature = jnp.real(_dot(y_k, s_k))
    gamma = curvature / jnp.real(_dot(jnp.conj(y_k), y_k))
    status = jnp.array(0)
    for reached, code in ((s.f_k - ls.f_k < ftol, 4), (s.ngev >= maxgrad, 3),
                          (s.nfev >= maxfun, 2), (s.k >= maxiter, 1), (ls.failed, 5)):
      status = jnp.where(reached, code, status)
    converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
    return LBFGSResults(
        converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
        nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, x_k=(s.x_k + s_k).astype(s.x_k.dtype),
        f_k=ls.f_k.astype(s.f_k.dtype), g_k=ls.g_k.astype(s.g_k.dtype),
        s_history=_pushed(s.s_history, s_k), y_history=_pushed(s.y_history, y_k),
        rho_history=_pushed(s.rho_history, jnp.reciprocal(curvature).astype(y_k.dtype)),
        gamma=gamma.astype(s.g_k.dtype), status=jnp.where(converged, 0, status),
        ls_status=ls.status)

  return lax.while_loop(lambda s: ~s.converged & ~s.failed, step, init)
