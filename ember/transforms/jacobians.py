"""Jacobians and Hessians on vmap: jacfwd pushes forward every basis tangent of the inputs in one
batched jvp; jacrev pulls back every basis cotangent of the outputs in one batched vjp (the
primal computation runs once in both).

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.jacrev(lambda x: x ** 2)(jnp.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.transforms.batching import vmap
from ember.transforms.jvp import jvp
from ember.transforms.linearize import _argnums_tuple, _check_input_dtype, vjp

__all__ = ["jacfwd", "jacrev", "jacobian", "hessian"]


def _size(aval) -> int:
  return int(np.prod(aval.shape, dtype=np.int64))


def _std_basis(avals) -> list[np.ndarray]:
  """The rows of the identity over the concatenated flattened leaves, cut back into leaves:
  leaf i gets shape ``(n,) + avals[i].shape``."""
  n = sum(_size(a) for a in avals)
  eye = np.eye(n)
  out, offset = [], 0
  for a in avals:
    k = _size(a)
    out.append(eye[:, offset:offset + k].reshape((n,) + a.shape).astype(a.dtype))
    offset += k
  return out


def _split_axis(x, axis: int, avals) -> list:
  """Cut ``x``'s ``axis`` (of length sum of sizes) into one piece per aval, reshaped to it."""
  import ember.numpy as jnp
  pieces, offset = [], 0
  shape = x.shape
  axis = axis % x.ndim
  for a in avals:
    k = _size(a)
    piece = jnp.take(x, jnp.arange(offset, offset + k), axis=axis) if k != shape[axis] else x
    pieces.append(jnp.reshape(piece, shape[:axis] + a.shape + shape[axis + 1:]))
    offset += k
  return pieces


def _select(args, argnums):
  nums, seq = _argnums_tuple(argnums, len(args), "jacobian")
  return nums, seq, tuple(args[i] for i in nums)


def _partial(fun, args, nums, kwargs):
  def f(*d):
    full = list(args)
    for i, v in zip(nums, d):
      full[i] = v
    return fun(*full, **kwargs)
  return f


def _prepare(fun, argnums, args, kwargs, holomorphic, allow_int, fname):
  nums, seq, diff = _select(args, argnums)
  _check_input_dtype(diff, holomorphic, allow_int, fname)
  return seq, diff, _partial(fun, args, nums, kwargs)


def _finish(jac_tree, seq: bool):
  if seq:
    return jac_tree
  return pytree.tree_map(lambda d: d[0], jac_tree, is_leaf=lambda x: isinstance(x, tuple))


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Jacobian of ``fun`` by forward mode: output shape + input shape per leaf pair.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jacfwd(jnp.sin)(jnp.array([0.0, 1.0]))
      Array([[1.       , 0.       ],
             [0.       , 0.5403023]], dtype=float32)
  """
  def jac_f(*args, **kwargs):
    seq, diff, f = _prepare(fun, argnums, args, kwargs, holomorphic, False, "jacfwd")
    in_leaves, in_tree = pytree.flatten(diff)
    in_avals = [core.get_aval(x) for x in in_leaves]

    def pushfwd(*basis):
      return jvp(f, diff, pytree.unflatten(in_tree, basis), has_aux=has_aux)

    outs = vmap(pushfwd, out_axes=(None, -1, None) if has_aux else (None, -1))(
        *_std_basis(in_avals))
    jac = outs[1]
    jac = pytree.tree_map(lambda j: pytree.unflatten(in_tree, _split_axis(j, -1, in_avals)),
                          jac)
    jac = _finish(jac, seq)
    return (jac, outs[2]) if has_aux else jac
  return jac_f


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
  """The Jacobian of ``fun`` by reverse mode: output shape + input shape per leaf pair.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jacrev(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0]))
      Array([ 3., 12.], dtype=float32)
  """
  def jac_f(*args, **kwargs):
    seq, diff, f = _prepare(fun, argnums, args, kwargs, holomorphic, allow_int, "jacrev")
    out = vjp(f, *diff, has_aux=has_aux)
    y, pullback = out[0], out[1]
    out_leaves, out_tree = pytree.flatten(y)
    out_avals = [core.get_aval(x) for x in out_leaves]
    cts = vmap(lambda *basis: pullback(pytree.unflatten(out_tree, basis)))(
        *_std_basis(out_avals))
    # cts: one input tree per differentiated argument, leaves (n_out,) + in.shape.
    ct_leaves, ct_tree = pytree.flatten(cts)
    split = [_split_axis(c, 0, [core.get_aval(o) for o in out_leaves]) for c in ct_leaves]
    jac = pytree.unflatten(out_tree, [pytree.unflatten(ct_tree, [s[j] for s in split])
                                      for j in range(len(out_leaves))])
    jac = _finish(jac, seq)
    return (jac, out[2]) if has_aux else jac
  return jac_f


jacobian = jacrev


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Hessian of a scalar function: ``jacfwd(jacrev(fun))``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0]))
      Array([[ 6.,  0.],
             [ 0., 12.]], dtype=float32)
  """
  return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                has_aux=has_aux, holomorphic=holomorphic)
