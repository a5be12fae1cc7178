"""A line search satisfying the strong Wolfe conditions, for ember.scipy.optimize's quasi-Newton
methods (Nocedal & Wright, *Numerical Optimization*, 1999: Algorithm 3.5 and its ``zoom``, 3.6).

Along ``phi(t) = f(x + t p)``, the search accepts a step ``t`` with sufficient decrease,
``phi(t) <= phi(0) + c1 t phi'(0)``, and small slope, ``|phi'(t)| <= -c2 phi'(0)``
(``c1 = 1e-4``, ``c2 = 0.9``). It starts at 1 (or, given the previous value of ``f``, at
``min(1, 2.02 (phi(0) - f_prev) / phi'(0))``) and doubles the step until it brackets an acceptable
one, which ``zoom`` then narrows down with cubic, quadratic or bisection steps.

The iteration, its counts and its status codes are JAX 0.10.2's: both loops run as
``lax.while_loop``s on fixed-shape states (so the search works under jit and vmap), every
branch is a ``where`` rather than a ``cond``, ``zoom`` gives up once its bracket is narrower than
1e-5 (1e-10 in 64 bits) or after 30 steps, and steps below 1e-8 are raised to 1e-8 outside 64
bits. Status: 0 done, 1 ``zoom`` failed, 3 no acceptable step within ``maxiter`` steps.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

from ember import dtypes, lax
from ember import numpy as jnp
from ember.numpy._util import promote_dtypes_inexact
from ember.transforms.linearize import value_and_grad

__all__ = ["line_search", "LineSearchResults"]

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)

_CUBIC_MARGIN, _QUADRATIC_MARGIN = 0.2, 0.1   # how far inside the bracket a trial step must be
_ZOOM_MAX_STEPS = 30


class LineSearchResults(NamedTuple):
  """What the line search found: whether it failed, its step counts (``nit``, ``nfev``,
  ``ngev``, and ``k = nit + 1``), the step ``a_k`` with ``f`` and its gradient there, and its
  status code."""
  failed: Any
  nit: Any
  nfev: Any
  ngev: Any
  k: Any
  a_k: Any
  f_k: Any
  g_k: Any
  status: Any


class _Bracket(NamedTuple):
  """``zoom``'s state: the ends ``lo`` (the best step so far) and ``hi`` of the bracket, the
  step ``rec`` it last dropped (the third point of the cubic fit), and the accepted step."""
  done: Any
  failed: Any
  j: Any
  a_lo: Any
  phi_lo: Any
  dphi_lo: Any
  a_hi: Any
  phi_hi: Any
  dphi_hi: Any
  a_rec: Any
  phi_rec: Any
  a_star: Any
  phi_star: Any
  dphi_star: Any
  g_star: Any
  nfev: Any
  ngev: Any


class _Search(NamedTuple):
  """The outer search's state: step ``i`` (from 1), the previous trial step and the accepted one."""
  done: Any
  failed: Any
  i: Any
  a_prev: Any
  phi_prev: Any
  dphi_prev: Any
  nfev: Any
  ngev: Any
  a_star: Any
  phi_star: Any
  dphi_star: Any
  g_star: Any


def _where_replace(state, mask, **new):
  """``state`` with each named field set to its new value where ``mask`` holds."""
  return state._replace(**{k: jnp.where(mask, v, getattr(state, k)) for k, v in new.items()})


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
  """The minimizer of the cubic through ``(a, fa)`` with slope ``fpa``, ``(b, fb)`` and
  ``(c, fc)`` (nan when there is none)."""
  dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
  db, dc = b - a, c - a
  denom = (db * dc) ** 2 * (db - dc)
  lhs = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
  rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
  cubic, quad = _dot(lhs, rhs) / denom
  return a + (-quad + jnp.sqrt(quad * quad - 3. * cubic * fpa)) / (3. * cubic)


def _quadratic_minimizer(a, fa, fpa, b, fb):
  """The minimizer of the parabola through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
  db = b - a
  curvature = (fb - fa - fpa * db) / (db ** 2)
  return a - fpa / (2. * curvature)


def _zoom(phi, sufficient_decrease_fails, curvature_holds, a_lo, phi_lo, dphi_lo, a_hi, phi_hi,
          dphi_hi, g_0, skip):
  """Narrow the bracket ``[a_lo, a_hi]`` down to a step satisfying the strong Wolfe
  conditions; nothing runs where ``skip`` holds."""
  init = _Bracket(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                  a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
                  phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo,
                  dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)

  def trial_step(s):
    width = s.a_hi - s.a_lo
    left, right = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
    cubic = _cubic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
    use_cubic = ((s.j > 0) & (cubic > left + _CUBIC_MARGIN * width)
                 & (cubic < right - _CUBIC_MARGIN * width))
    quad = _quadratic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
    use_quad = (~use_cubic & (quad > left + _QUADRATIC_MARGIN * width)
                & (quad < right - _QUADRATIC_MARGIN * width))
    a_j = jnp.where(use_cubic, cubic, s.a_rec)
    a_j = jnp.where(use_quad, quad, a_j)
    return jnp.where(~use_cubic & ~use_quad, (s.a_lo + s.a_hi) / 2., a_j)

  def body(state):
    s = state
    width = s.a_hi - s.a_lo
    too_narrow = width <= jnp.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
    s = s._replace(failed=s.failed | too_narrow)
    a_j = trial_step(s)
    phi_j, dphi_j, g_j = phi(a_j)
    phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
    g_j = g_j.astype(s.g_star.dtype)
    s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
    # a_j becomes the new hi end, the answer, or the new lo end (the old lo end becoming hi
    # when the slope at a_j points away from hi)
    new_hi = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= s.phi_lo)
    accept = curvature_holds(dphi_j) & ~new_hi
    flip = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & ~new_hi & ~accept
    new_lo = ~new_hi & ~accept
    s = _where_replace(s, new_hi, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi,
                       phi_rec=s.phi_hi)
    s = s._replace(done=accept | s.done)
    s = _where_replace(s, accept, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
    s = _where_replace(s, flip, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi,
                       phi_rec=s.phi_hi)
    s = _where_replace(s, new_lo & ~flip, a_rec=s.a_lo, phi_rec=s.phi_lo)
    s = _where_replace(s, new_lo, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
    s = s._replace(j=s.j + 1)
    return s._replace(failed=s.failed | (s.j >= _ZOOM_MAX_STEPS))

  return lax.while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, init)


def line_search(f: Callable, xk, pk, old_fval=None, old_old_fval=None, gfk=None,
                c1: float = 1e-4, c2: float = 0.9, maxiter: int = 20) -> LineSearchResults:
  """A step along ``pk`` (a descent direction) from ``xk`` satisfying the strong Wolfe
  conditions.

  ``old_fval`` and ``gfk`` are ``f`` and its gradient at ``xk`` (evaluated here when either is
  missing); ``old_old_fval``, ``f`` at the previous iterate, sets the first trial step.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.optimize._line_search import line_search
      >>> f = lambda x: jnp.sum(x ** 2)
      >>> res = line_search(f, jnp.array([1.0, 1.0]), jnp.array([-1.0, -1.0]))
      >>> res.a_k, res.f_k, res.status
      (Array(1., dtype=float32), Array(0., dtype=float32), Array(0, dtype=int32, weak_type=True))
  """
  xk, pk = promote_dtypes_inexact(xk, pk)

  def phi(t):
    value, grad = value_and_grad(f)(xk + jnp.array(t, dtype=pk.dtype) * pk)
    return value, jnp.real(_dot(grad, pk)), grad

  given = old_fval is not None and gfk is not None
  if given:
    phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
  else:
    phi_0, dphi_0, gfk = phi(0)
  if old_old_fval is None:
    first_step = 1
  else:
    guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
    first_step = jnp.where(guess > 1, 1.0, guess)

  def sufficient_decrease_fails(a, phi_a):
    return phi_a > phi_0 + c1 * a * dphi_0

  def curvature_holds(dphi_a):
    return jnp.abs(dphi_a) <= -c2 * dphi_0

  zoom = partial(_zoom, phi, sufficient_decrease_fails, curvature_holds)
  init = _Search(done=jnp.array(False), failed=jnp.array(False), i=1, a_prev=0., phi_prev=phi_0,
                 dphi_prev=dphi_0, nfev=0 if given else 1, ngev=0 if given else 1, a_star=0.,
                 phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

  def body(state):
    s = state
    a_i = jnp.where(s.i == 1, first_step, s.a_prev * 2.)
    phi_i, dphi_i, g_i = phi(a_i)
    s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
    # the step overshot (zoom between the previous step and it), is acceptable, or passed a
    # minimum going uphill (zoom between it and the previous step)
    overshot = sufficient_decrease_fails(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
    accept = curvature_holds(dphi_i) & ~overshot
    uphill = (dphi_i >= 0.) & ~overshot & ~accept
    zoom_back = zoom(s.a_prev, s.phi_prev, s.dphi_prev, a_i, phi_i, dphi_i, gfk, ~overshot)
    s = s._replace(nfev=s.nfev + zoom_back.nfev, ngev=s.ngev + zoom_back.ngev)
    zoom_up = zoom(a_i, phi_i, dphi_i, s.a_prev, s.phi_prev, s.dphi_prev, gfk, ~uphill)
    s = s._replace(nfev=s.nfev + zoom_up.nfev, ngev=s.ngev + zoom_up.ngev)
    for mask, found in ((overshot, zoom_back), (accept, None), (uphill, zoom_up)):
      s = s._replace(done=mask | s.done)
      if found is None:
        s = _where_replace(s, mask, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
      else:
        s = s._replace(failed=(mask & found.failed) | s.failed)
        s = _where_replace(s, mask, a_star=found.a_star, phi_star=found.phi_star,
                           dphi_star=found.dphi_star, g_star=found.g_star)
    return s._replace(i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)

  s = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, init)
  status = jnp.where(s.failed, jnp.array(1), jnp.where(s.i > maxiter, jnp.array(3), jnp.array(0)))
  step = jnp.asarray(s.a_star)
  step = jnp.where((dtypes.finfo(step.dtype).bits != 64) & (jnp.abs(step) < 1e-8),
                   jnp.sign(step) * 1e-8, step)
  return LineSearchResults(failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev, ngev=s.ngev,
                           k=s.i, a_k=step, f_k=s.phi_star, g_k=s.g_star, status=status)
