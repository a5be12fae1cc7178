"""``ember.experimental.ode.odeint``: JAX's adaptive Dormand-Prince ODE solver, differentiated
by the adjoint method.

The forward pass integrates ``dy/dt = func(y, t, *args)`` (``y`` a pytree, flattened to one
vector) with the 5(4) Dormand-Prince Runge-Kutta pair:

- the first step size follows Hairer, Norsett and Wanner (Solving ODEs I, II.4) from the
  derivatives at ``t[0]`` and one Euler step;
- a step is accepted when the RMS of its error estimate, relative to
  ``atol + rtol * max(|y_old|, |y_new|)``, is at most 1; either way the next step is the old
  one times ``min(10, max(0.9 * ratio ** -0.2, 0.2))`` (never smaller after an accepted step),
  clipped to ``[0, hmax]``;
- each requested time is reached by stepping past it (at most ``mxstep`` tries per time) and
  interpolating the last accepted step with Dormand-Prince's 4th-order dense output.

Reverse mode (``grad``, ``vjp``) does not differentiate the solver's steps: its custom vjp
integrates the adjoint system (the state, its cotangent and the cotangents of ``t[0]`` and of
``args``) backwards from each requested time to the one before, with the same solver and
tolerances, adding each output's cotangent as it passes, as in Chen et al. (2018). Values that
``func`` closes over and that may be differentiated are passed to it as extra arguments, so
gradients reach them too. Forward mode (``jvp``) is refused, as in JAX (whose error is a
TypeError; ember's, raised from inside the solver's ``jit``, is a NotImplementedError).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.experimental.ode import odeint
    >>> ys = odeint(lambda y, t, k: -k * y, 1.0, jnp.array([0.0, 1.0]), 2.0)
    >>> bool(jnp.allclose(ys, jnp.exp(jnp.array([0.0, -2.0])), rtol=1e-5))
    True
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ember import dtypes, lax, pytree
from ember import numpy as jnp
from ember.core.cache import BoundedCache
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.numpy._util import is_arraylike
from ember.transforms.batching import vmap
from ember.transforms.custom import custom_vjp
from ember.core.jaxpr import hoist_consts
from ember.transforms.jit import jit
from ember.transforms.linearize import vjp
from ember.transforms.staging import trace_to_jaxpr

__all__ = ["odeint"]

# --- the Dormand-Prince 5(4) pair ---------------------------------------------------------------

_NODES = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0)
_STAGES = ((1 / 5, 0, 0, 0, 0, 0, 0),
           (3 / 40, 9 / 40, 0, 0, 0, 0, 0),
           (44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0),
           (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0),
           (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0),
           (35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0))
_FIFTH_ORDER = (35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0)
_ERROR = (35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
          -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60)
# Dense output: the solution at the middle of a step, as weights of the stages (halved).
_MIDPOINT = (6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
             -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
             -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2)


def _rk_step(func, y0, f0, t0, dt):
  """One Dormand-Prince step: the new state and derivative, the error estimate and the seven
  stage derivatives (rows of ``k``)."""
  nodes = jnp.array(_NODES, dtype=dt.dtype)
  stages = jnp.array(_STAGES, dtype=f0.dtype)
  h = dt.astype(f0.dtype)

  def stage(i, k):
    t = t0 + dt * nodes[i - 1]
    y = y0 + h * jnp.dot(stages[i - 1, :], k)
    return k.at[i, :].set(func(y, t))

  k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
  k = lax.fori_loop(1, 7, stage, k)
  y1 = h * jnp.dot(jnp.array(_FIFTH_ORDER, dtype=f0.dtype), k) + y0
  error = h * jnp.dot(jnp.array(_ERROR, dtype=f0.dtype), k)
  return y1, k[-1], error, k


def _interpolant(y0, y1, k, dt):
  """The coefficients (highest power first) of the quartic through ``y0`` and ``y1`` with the
  step's end slopes and its dense-output midpoint, in the step's relative time."""
  h = dt.astype(y0.dtype)
  y_mid = y0 + h * jnp.dot(jnp.array(_MIDPOINT, dtype=y0.dtype), k)
  dy0, dy1 = h * k[0], h * k[-1]
  a = -2.0 * dy0 + 2.0 * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
  b = 5.0 * dy0 - 3.0 * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
  c = -4.0 * dy0 + dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
  return jnp.stack([a, b, c, dy0, y0])


def _horner(coeffs, x):
  out = jnp.zeros_like(coeffs[0])
  for i in range(coeffs.shape[0]):
    out = out * x + coeffs[i]
  return out


def _first_step(func, t0, y0, f0, rtol, atol, order: int = 4):
  """Hairer-Norsett-Wanner's starting step size."""
  scale = (atol + jnp.abs(y0) * rtol).astype(y0.dtype)
  d0, d1 = jnp.linalg.norm(y0 / scale), jnp.linalg.norm(f0 / scale)
  h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
  f1 = func(y0 + h0.astype(y0.dtype) * f0, t0 + h0)
  d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
  h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                 (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
  return jnp.minimum(100.0 * h0, h1)


def _error_ratio(error, rtol, atol, y0, y1):
  """The RMS of the error relative to the tolerance ``atol + rtol * max(|y0|, |y1|)``."""
  ratio = error / (atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))).astype(error.dtype)
  squares = ratio.real ** 2 + ratio.imag ** 2 if jnp.iscomplexobj(ratio) else ratio ** 2
  return jnp.sqrt(jnp.mean(squares))


def _next_step(dt, ratio, safety=0.9, grow=10.0, shrink=0.2, order=5.0):
  shrink = jnp.where(ratio < 1, 1.0, shrink)
  factor = jnp.minimum(grow, jnp.maximum(ratio ** (-1.0 / order) * safety, shrink))
  return jnp.where(ratio == 0, dt * grow, dt * factor)


# --- the solver and its adjoint -----------------------------------------------------------------

def _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  """The flat state at every time of ``ts`` (``func`` maps flat states)."""
  f = lambda y, t: func(y, t, *args)

  def advance(carry, target):
    def running(state):
      i, _, _, t, dt, _, _ = state
      return (t < target) & (i < mxstep) & (dt > 0)

    def step(state):
      i, y, dy, t, dt, last_t, coeffs = state
      y1, dy1, error, k = _rk_step(f, y, dy, t, dt)
      ratio = _error_ratio(error, rtol, atol, y, y1)
      new_coeffs = _interpolant(y, y1, k, dt)
      new_dt = jnp.clip(_next_step(dt, ratio), min=0.0, max=hmax)
      accepted = [i + 1, y1, dy1, t + dt, new_dt, t, new_coeffs]
      rejected = [i + 1, y, dy, t, new_dt, last_t, coeffs]
      return [jnp.where(ratio <= 1.0, a, r) for a, r in zip(accepted, rejected)]

    _, *carry = lax.while_loop(running, step, [0] + carry)
    _, _, t, _, last_t, coeffs = carry
    rel = (target - last_t) / (t - last_t)
    return carry, _horner(coeffs, rel.astype(coeffs.dtype))

  dy0 = f(y0, ts[0])
  dt = jnp.clip(_first_step(f, ts[0], y0, dy0, rtol, atol), min=0.0, max=hmax)
  init = [y0, dy0, ts[0], dt, ts[0], jnp.stack([y0] * 5)]
  _, ys = lax.scan(advance, init, ts[1:])
  return jnp.concatenate((y0[None], ys))


_solve_vjp = custom_vjp(_solve, nondiff_argnums=(0, 1, 2, 3, 4))


def _solve_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  ys = _solve_vjp(func, rtol, atol, mxstep, hmax, y0, ts, *args)
  return ys, (ys, ts, args)


def _solve_bwd(func, rtol, atol, mxstep, hmax, residuals, ys_bar):
  """The adjoint method: between consecutive output times, integrate backwards (in negated
  time) the state with its cotangent and the cotangents of ``t[0]`` and ``args``."""
  ys, ts, args = residuals

  def adjoint_dynamics(state, minus_t, *args):
    y, y_bar = state[0], state[1]
    y_dot, pullback = vjp(func, y, -minus_t, *args)
    y_bar_dot, t_bar_dot, *args_bar_dot = pullback(y_bar)
    return (-y_dot, y_bar_dot, t_bar_dot, tuple(args_bar_dot))

  def back(carry, i):
    y_bar, t0_bar, args_bar = carry
    t_bar = jnp.dot(func(ys[i], ts[i], *args), ys_bar[i]).real  # moving output time i
    t0_bar = t0_bar - t_bar
    state = odeint(adjoint_dynamics, (ys[i], y_bar, t0_bar, args_bar),
                   jnp.array([-ts[i], -ts[i - 1]]), *args, rtol=rtol, atol=atol,
                   mxstep=mxstep, hmax=hmax)
    _, y_bar, t0_bar, args_bar = pytree.tree_map(lambda x: x[1], state)
    return (y_bar + ys_bar[i - 1], t0_bar, args_bar), t_bar

  init = (ys_bar[-1], 0.0, pytree.tree_map(jnp.zeros_like, args))
  (y_bar, t0_bar, args_bar), ts_bar = lax.scan(back, init, jnp.arange(len(ts) - 1, 0, -1))
  ts_bar = jnp.concatenate([jnp.array([t0_bar]), ts_bar[::-1]])
  return (y_bar, ts_bar, *args_bar)


_solve_vjp.defvjp(_solve_fwd, _solve_bwd)


def _ravel(tree):
  """``tree``'s leaves as one vector, converted to a common dtype only where they differ (so a
  weakly typed state stays weak, as in JAX), and the function that rebuilds such a tree."""
  leaves, treedef = pytree.flatten(tree)
  leaves = [jnp.asarray(x) for x in leaves]
  dtype = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
  flat = jnp.concatenate([jnp.ravel(x if x.dtype == dtype else x.astype(dtype)) for x in leaves]
                         or [jnp.zeros(0, dtype)])
  shapes = [(x.shape, x.dtype) for x in leaves]

  def unravel(vec):
    pieces, start = [], 0
    for shape, dtype in shapes:
      size = int(np.prod(shape, dtype=np.int64))
      piece = vec[start:start + size].reshape(shape)
      pieces.append(piece if piece.dtype == dtype else piece.astype(dtype))
      start += size
    return pytree.unflatten(treedef, pieces)

  return flat, unravel


def _odeint_flat(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  """``odeint`` on the raveled state: ``func`` maps pytrees like ``y0``."""
  y0_flat, unravel = _ravel(y0)

  def flat_func(y, t, *args):
    return _ravel(func(unravel(y), t, *args))[0]

  ys = _solve_vjp(flat_func, rtol, atol, mxstep, hmax, y0_flat, ts, *args)
  return vmap(unravel)(ys)


_odeint_jit = jit(_odeint_flat, static_argnums=(0, 1, 2, 3, 4))


_CONVERTED = BoundedCache(64)


def _closure_convert(func: Callable, y0, t0, args):
  """``func`` with the floating tracers it closes over as extra trailing arguments, and those
  values (``ember.closure_convert``'s contract). When it closes over no tracer, the converted
  function is reused for the same ``func``, argument types and closed-over values, so repeated
  calls hit the solver's jit cache."""
  leaves, in_tree = pytree.flatten((y0, t0, args))
  out_tree = []

  def flat(*xs):
    y, t, a = pytree.unflatten(in_tree, list(xs))
    out, tree = pytree.flatten(func(y, t, *a))
    out_tree.append(tree)
    return out

  avals = tuple(core.get_aval(x) for x in leaves)
  closed, consts = hoist_consts(trace_to_jaxpr(flat, avals))
  traced = [isinstance(c, core.Tracer) for c in consts]
  key = None if any(traced) else (func, in_tree, avals, tuple(map(id, consts)))
  if key is not None and key in _CONVERTED:
    return _CONVERTED[key][0], []
  hoisted = [t and dtypes.issubdtype(core.get_aval(c).dtype, np.inexact)
             for c, t in zip(consts, traced)]
  kept = [c for c, h in zip(consts, hoisted) if not h]

  def converted(y, t, *rest):
    given, lifted, kept_iter = rest[:len(args)], iter(rest[len(args):]), iter(kept)
    values = [next(lifted) if h else next(kept_iter) for h in hoisted]
    xs = pytree.flatten((y, t, tuple(given)))[0]
    return pytree.unflatten(out_tree[0], eval_jaxpr(closed.jaxpr, [], *values, *xs))

  if key is not None:
    _CONVERTED[key] = (converted, consts)  # the consts stay alive, so their ids stay theirs
  return converted, [c for c, h in zip(consts, hoisted) if h]


def odeint(func: Callable, y0, t, *args, rtol: float = 1.4e-8, atol: float = 1.4e-8,
           mxstep=jnp.inf, hmax=jnp.inf):
  """The solution of ``dy/dt = func(y, t, *args)``, ``y(t[0]) = y0``, at the times ``t``.

  Adaptive Dormand-Prince Runge-Kutta (see the module docstring), differentiable by
  ``grad``/``vjp`` with respect to ``y0``, ``t``, ``args`` and floating values ``func``
  closes over (by the adjoint method).

  Args:
    func: ``func(y, t, *args)``, the time derivative of ``y``, with ``y0``'s structure.
    y0: the initial state: an array or a pytree of arrays.
    t: an array of increasing float times; ``t[0]`` is the time of ``y0``.
    *args: extra arguments of ``func``: arrays, scalars or pytrees of them.
    rtol, atol: the relative and absolute tolerance of each step's local error.
    mxstep: the most steps tried to reach each time of ``t``.
    hmax: the largest step size.

  Returns:
    ``y`` at each time of ``t``: ``y0``'s structure with a new leading axis of ``len(t)``.

  Raises:
    TypeError: if ``t`` is not a float array or ``args`` hold something other than arrays.

  Example:
      >>> import ember.numpy as jnp
      >>> ys = odeint(lambda y, t: jnp.stack([y[1], -y[0]]), jnp.array([0.0, 1.0]),
      ...             jnp.array([0.0, jnp.pi / 2]))
      >>> ys.round(4)
      Array([[ 0.,  1.],
             [ 1., -0.]], dtype=float32)
  """
  for arg in pytree.tree_leaves(args):
    if not is_arraylike(arg):
      raise TypeError(
          f"The contents of odeint *args must be arrays or scalars, but got {arg}.")
  if not dtypes.issubdtype(t.dtype, np.floating):
    raise TypeError(f"t must be an array of floats, but got {t}.")
  converted, consts = _closure_convert(func, y0, t[0], args)
  return _odeint_jit(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
