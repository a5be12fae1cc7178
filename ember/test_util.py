"""Testing helpers, as in ``jax.test_util``: ``check_grads`` compares derivatives with finite
differences.

Example:
    >>> import ember.numpy as jnp
    >>> check_grads(jnp.sin, (0.5,), order=2)
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ember import dtypes, pytree

__all__ = ["check_grads", "check_jvp", "check_vjp"]

_EPS = 1e-4  # the default finite-difference step, as JAX's
_TOL = {np.dtype("float16"): 5e-2, np.dtype("float32"): 2e-2, np.dtype("float64"): 1e-5}


def _np(x):
  return np.asarray(x)


def _dtype(x) -> np.dtype:
  """The dtype ember computes ``x`` in (Python floats are float32 unless x64 is on)."""
  return np.dtype(dtypes.canonicalize_dtype(np.asarray(x).dtype))


def _tol(leaves, given):
  if given is not None:
    return given
  dts = [_dtype(x) for x in leaves if _dtype(x).kind in "fc"]
  return max([_TOL.get(np.dtype(dtypes.to_inexact_dtype(d)) if d.kind == "c" else d, 2e-2)
              for d in dts], default=1e-5)


def _random_like(rng, x):
  x = np.asarray(x)
  if np.iscomplexobj(x):
    return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(x.dtype)
  return rng.standard_normal(x.shape).astype(x.dtype)


def _inner(a_leaves, b_leaves):
  return sum(np.vdot(_np(a).astype(np.complex128).ravel(), _np(b).astype(np.complex128).ravel())
             for a, b in zip(a_leaves, b_leaves))


def _numerical_jvp(f: Callable, args: tuple, tangents: list, eps: float) -> list:
  """Central differences of ``f`` at ``args`` along ``tangents`` (one per leaf of ``args``)."""
  leaves, tree = pytree.flatten(args)
  plus = pytree.unflatten(tree, [np.asarray(x) + eps * t for x, t in zip(leaves, tangents)])
  minus = pytree.unflatten(tree, [np.asarray(x) - eps * t for x, t in zip(leaves, tangents)])
  return [(_np(a) - _np(b)) / (2 * eps) for a, b in zip(pytree.tree_leaves(f(*plus)),
                                                        pytree.tree_leaves(f(*minus)))]


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None, eps=_EPS,
              err_msg: str = "") -> None:
  """``f_jvp(args, tangents)`` against central differences of ``f`` (step ``eps``) along random
  tangents.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> check_jvp(jnp.sin, lambda args, ts: ember.jvp(jnp.sin, args, ts), (0.5,))
      >>> try:
      ...   check_jvp(jnp.sin, lambda args, ts: ember.jvp(jnp.cos, args, ts), (0.5,))
      ... except AssertionError:
      ...   print("not the jvp of sin")
      not the jvp of sin
  """
  rng = np.random.default_rng(0)
  leaves, tree = pytree.flatten(tuple(args))
  tangents = [_random_like(rng, x) for x in leaves]
  fd = _numerical_jvp(f, tuple(args), tangents, eps)
  _, t_out = f_jvp(tuple(args), tuple(pytree.unflatten(tree, tangents)))
  tol = _tol(leaves, None)
  for got, want in zip(pytree.tree_leaves(t_out), fd):
    np.testing.assert_allclose(_np(got), want, atol=atol or tol, rtol=rtol or tol,
                               err_msg=f"{err_msg} (jvp vs finite differences)")


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None, eps=_EPS,
              err_msg: str = "") -> None:
  """``f_vjp`` against central differences of ``f`` (step ``eps``) through the identity
  <vjp(ct), t> == <ct, jvp(t)>, for random ``ct`` and ``t``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> check_vjp(jnp.tanh, lambda x: ember.vjp(jnp.tanh, x), (0.5,))
  """
  rng = np.random.default_rng(1)
  leaves, tree = pytree.flatten(tuple(args))
  out, pullback = f_vjp(*args)
  out_leaves, out_tree = pytree.flatten(out)
  cts = [_random_like(rng, y) for y in out_leaves]
  ct_in = pullback(pytree.unflatten(out_tree, cts))
  tangents = [_random_like(rng, x) for x in leaves]
  t_out = _numerical_jvp(f, tuple(args), tangents, eps)
  lhs = _inner(pytree.tree_leaves(ct_in), tangents)
  rhs = _inner(cts, t_out)
  tol = _tol(leaves, None)
  np.testing.assert_allclose(lhs, rhs, atol=atol or tol, rtol=rtol or tol,
                             err_msg=f"{err_msg} (vjp vs finite differences)")


def check_grads(f: Callable, args: Sequence, order: int, modes=("fwd", "rev"), atol=None,
                rtol=None, eps=None) -> None:
  """Check ``f``'s derivatives up to ``order`` in forward and/or reverse mode against finite
  differences (raises AssertionError on a mismatch).

  Example:
      >>> import ember
      >>> check_grads(lambda x: x ** 3, (2.0,), order=2, modes=["rev"])
      >>> try:  # stop_gradient hides half of the derivative from grad
      ...   check_grads(lambda x: x * ember.lax.stop_gradient(x), (0.5,), order=1)
      ... except AssertionError:
      ...   print("mismatch")
      mismatch
  """
  from ember.transforms.jvp import jvp
  from ember.transforms.linearize import vjp
  args = tuple(args)
  eps = eps or _EPS
  if not set(modes) <= {"fwd", "rev"}:
    raise ValueError(f"Unrecognized mode(s) {modes!r}: use 'fwd' and/or 'rev'.")

  def check(fun, k):
    if "fwd" in modes:
      check_jvp(fun, lambda a, t: jvp(fun, a, t), args, atol, rtol, eps, f"order {k}")
    if "rev" in modes:
      check_vjp(fun, lambda *a: vjp(fun, *a), args, atol, rtol, eps, f"order {k}")
    if k < order:
      if "rev" in modes:
        rng = np.random.default_rng(k)
        out = fun(*args)
        ct = pytree.tree_map(lambda y: _random_like(rng, y), out)
        check(lambda *a: vjp(fun, *a)[1](ct), k + 1)
      else:
        rng = np.random.default_rng(k)
        ts = pytree.tree_map(lambda x: _random_like(rng, x), args)
        check(lambda *a: jvp(fun, a, ts)[1], k + 1)

  check(f, 1)
