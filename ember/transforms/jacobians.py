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

from ember import dtypes, pytree
from ember.core import trace as core
from ember.transforms.batching import vmap
from ember.transforms.jvp import jvp
from ember.transforms.linearize import _argnums_tuple, _check_input_dtype, vjp
from ember._src.traceback_util import api_boundary
from ember.transforms.ops import ops

__all__ = ["jacfwd", "jacrev", "jacobian", "hessian"]


def _size(aval) -> int:
  return int(np.prod(aval.shape, dtype=np.int64))


def _cast_like(x, example, always: bool):
  """``x`` in ``example``'s dtype and weak type (real part when ``example`` is real); the
  conversion is staged even when it changes nothing if ``always`` (as JAX does for the basis)."""
  aval, want = core.get_aval(x), core.get_aval(example)
  if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(want.dtype):
    x = ops.real(x)
    aval = core.get_aval(x)
  if not always and (aval.dtype, aval.weak_type) == (want.dtype, want.weak_type):
    return x
  return ops.convert(x, want.dtype, want.weak_type)


def _unravel(tree, axis: int, arr, example=None, always: bool = False):
  """Cut ``arr``'s ``axis`` (of length the total size of ``tree``'s leaves) into one piece per
  leaf, each reshaped to the leaf's shape there and cast like ``example`` (or like the leaf)."""
  import ember.numpy as jnp
  leaves, treedef = pytree.flatten(tree)
  axis = axis % arr.ndim
  sizes = [_size(core.get_aval(x)) for x in leaves]
  parts = jnp.split(arr, list(np.cumsum(sizes[:-1])), axis)
  out = []
  for part, leaf in zip(parts, leaves):
    shape = arr.shape[:axis] + core.get_aval(leaf).shape + arr.shape[axis + 1:]
    out.append(_cast_like(jnp.reshape(part, shape), leaf if example is None else example, always))
  return pytree.unflatten(treedef, out)


def _std_basis(tree):
  """The rows of the identity over ``tree``'s flattened leaves, as a tree like ``tree`` whose
  leaves have shape ``(n,) + leaf.shape`` and the leaf's dtype and weak type."""
  import ember.numpy as jnp
  leaves = pytree.tree_leaves(tree)
  n = sum(_size(core.get_aval(x)) for x in leaves)
  return _unravel(tree, 1, jnp.eye(n, dtype=dtypes.result_type(*leaves)), always=True)


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


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Jacobian of ``fun`` by forward mode: output shape + input shape per leaf pair.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jacfwd(jnp.sin)(jnp.array([0.0, 1.0]))
      Array([[1.       , 0.       ],
             [0.       , 0.5403023]], dtype=float32)
  """
  @api_boundary
  def jac_f(*args, **kwargs):
    seq, diff, f = _prepare(fun, argnums, args, kwargs, holomorphic, False, "jacfwd")
    pushfwd = lambda basis: jvp(f, diff, basis, has_aux=has_aux)
    outs = vmap(pushfwd, out_axes=(None, -1, None) if has_aux else (None, -1))(_std_basis(diff))
    example = diff if seq else diff[0]
    jac = pytree.tree_map(lambda y, j: _unravel(example, -1, j, example=y), outs[0], outs[1])
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
  @api_boundary
  def jac_f(*args, **kwargs):
    seq, diff, f = _prepare(fun, argnums, args, kwargs, holomorphic, allow_int, "jacrev")
    out = vjp(f, *diff, has_aux=has_aux)
    y, pullback = out[0], out[1]
    cts = vmap(pullback)(_std_basis(y))
    example = diff if seq else diff[0]
    jac = pytree.tree_map(lambda x, c: _unravel(y, 0, c, example=x), example,
                          cts if seq else cts[0])
    jac = pytree.tree_transpose(pytree.tree_structure(example), pytree.tree_structure(y), jac)
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
