"""``minimize`` and ``OptimizeResults``: SciPy's entry point to its minimizers, as JAX 0.10.2
offers it (BFGS, and an experimental L-BFGS under a name that says so)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from ember import numpy as jnp
from ember.scipy.optimize._bfgs import minimize_bfgs
from ember.scipy.optimize._lbfgs import _minimize_lbfgs

__all__ = ["minimize", "OptimizeResults"]

_LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


class OptimizeResults(NamedTuple):
  """What ``minimize`` found.

  Fields: ``x`` the solution; ``success``; ``status`` the method's code (0 converged; for BFGS
  1 ``maxiter`` reached, 3 a line search's zoom failed, 5 a line search ran out of steps, -1
  undefined; L-BFGS's codes are listed in ``minimize``); ``fun`` and ``jac``, the function and
  its gradient at ``x``; ``hess_inv`` BFGS's inverse-Hessian estimate (None for L-BFGS);
  ``nfev``, ``njev`` evaluations of the function and its gradient; ``nit`` iterations.

  Example:
      >>> from ember.scipy.optimize import OptimizeResults
      >>> OptimizeResults._fields[:4]
      ('x', 'success', 'status', 'fun')
  """
  x: Any
  success: Any
  status: Any
  fun: Any
  jac: Any
  hess_inv: Any
  nfev: Any
  njev: Any
  nit: Any


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
  """Minimize ``fun(x, *args)``, a real scalar function of a 1-d array ``x``, from ``x0``.

  Gradients come from autodiff; the whole run is ``while_loop``s, so it works under ``jit`` and
  ``vmap`` (not under ``grad``). ``method`` (case-insensitive) is ``"BFGS"`` or JAX's experimental
  ``"l-bfgs-experimental-do-not-rely-on-this"`` (which also accepts complex ``x``). ``tol`` is
  accepted and ignored, as in JAX 0.10.2; ``options`` are the method's keyword arguments:

  - BFGS: ``maxiter`` (200 * size of x0), ``norm`` (inf), ``gtol`` (1e-5),
    ``line_search_maxiter`` (10).
  - L-BFGS: ``maxiter``, ``norm``, ``maxcor`` (10), ``ftol`` (2.22e-9), ``gtol`` (1e-5),
    ``maxfun``, ``maxgrad``, ``maxls`` (20). Its status codes: 0 converged, 1 ``maxiter``,
    2 ``maxfun``, 3 ``maxgrad`` reached, 4 insufficient decrease (``ftol``), 5 line search
    failed.

  Iterations, evaluation counts, status codes and results follow JAX 0.10.2's iteration.

  Raises:
      TypeError: ``args`` is not a tuple, or an option the method does not take.
      ValueError: an unknown ``method``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.optimize import minimize
      >>> res = minimize(lambda x, c: jnp.sum((x - c) ** 2), jnp.zeros(2), (3.0,), method="BFGS")
      >>> res.x, res.success
      (Array([3.0000002, 3.       ], dtype=float32), Array(True, dtype=bool))
      >>> res.nit, res.status
      (Array(3, dtype=int32, weak_type=True), Array(0, dtype=int32, weak_type=True))
  """
  if options is None:
    options = {}
  if not isinstance(args, tuple):
    raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

  def objective(x):
    return fun(x, *args)

  kind = method.lower()
  if kind == "bfgs":
    r = minimize_bfgs(objective, x0, **options)
    hess_inv = r.H_k
  elif kind == _LBFGS:
    r = _minimize_lbfgs(objective, x0, **options)
    hess_inv = None
  else:
    raise ValueError(f"Method {method} not recognized")
  return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                         status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=hess_inv, nfev=r.nfev,
                         njev=r.ngev, nit=r.k)
