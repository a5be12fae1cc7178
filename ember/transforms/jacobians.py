"""Jacobians and Hessians from jvp and vjp: jacfwd pushes forward one basis tangent per input
element, jacrev pulls back one basis cotangent per output element.

The basis vectors are processed one at a time through the linearized (or pulled-back) function,
so the primal computation runs once; batching them with vmap comes with the vmap transform.

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
from ember.transforms.linearize import (_argnums_tuple, _check_input_dtype, linearize, vjp)

__all__ = ["jacfwd", "jacrev", "jacobian", "hessian"]


def _basis(avals, k):
  """The k-th one-hot vector over the concatenation of ``avals`` (as a list of arrays)."""
  out, offset = [], 0
  for a in avals:
    n = int(np.prod(a.shape, dtype=np.int64))
    v = np.zeros(n, a.dtype)
    if offset <= k < offset + n:
      v[k - offset] = 1
    out.append(v.reshape(a.shape))
    offset += n
  return out


def _stack(columns, leading_avals, trailing_avals, trailing_first: bool):
  """Assemble per-basis results into jacobian blocks of shape lead.shape + trail.shape."""
  import ember.numpy as jnp
  blocks = []
  for i, la in enumerate(leading_avals):
    row = []
    offset = 0
    for ta in trailing_avals:
      n = int(np.prod(ta.shape, dtype=np.int64))
      cols = [columns[k][i] for k in range(offset, offset + n)]
      stacked = jnp.stack(cols, axis=-1) if cols else jnp.zeros(la.shape + (0,), la.dtype)
      row.append(jnp.reshape(stacked, la.shape + ta.shape))
      offset += n
    blocks.append(row)
  return blocks


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


def _prepare(transform, fun, argnums, args, kwargs, has_aux, holomorphic, allow_int, fname):
  """Select the differentiated arguments, apply ``transform`` (linearize or vjp), and return
  what both jacobians need: the transform's output and the input/output trees and avals."""
  nums, seq, diff = _select(args, argnums)
  _check_input_dtype(diff, holomorphic, allow_int, fname)
  out = transform(_partial(fun, args, nums, kwargs), *diff, has_aux=has_aux)
  in_leaves, in_tree = pytree.flatten(diff)
  out_leaves, out_tree = pytree.flatten(out[0])
  return (seq, diff, out, in_tree, [core.get_aval(x) for x in in_leaves], out_tree,
          [core.get_aval(x) for x in out_leaves])


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Jacobian of ``fun`` by forward mode: output shape + input shape per leaf pair.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jacfwd(jnp.sin)(jnp.array([0.0, 1.0]))
      Array([[1.       , 0.       ],
             [0.       , 0.5403023]], dtype=float32)
  """
  def jac_f(*args, **kwargs):
    seq, diff, out, in_tree, in_avals, out_tree, out_avals = _prepare(
        linearize, fun, argnums, args, kwargs, has_aux, holomorphic, False, "jacfwd")
    f_jvp = out[1]
    n_in = sum(int(np.prod(a.shape, dtype=np.int64)) for a in in_avals)
    columns = [pytree.tree_leaves(f_jvp(*pytree.unflatten(in_tree, _basis(in_avals, k))))
               for k in range(n_in)]
    blocks = _stack(columns, out_avals, in_avals, True)
    jac = pytree.unflatten(out_tree, [pytree.unflatten(in_tree, row) for row in blocks])
    if not seq:
      jac = pytree.tree_map(lambda d: d[0], jac, is_leaf=lambda x: isinstance(x, tuple))
    return (jac, out[2]) if has_aux else jac
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
    seq, diff, out, in_tree, in_avals, out_tree, out_avals = _prepare(
        vjp, fun, argnums, args, kwargs, has_aux, holomorphic, allow_int, "jacrev")
    pullback = out[1]
    n_out = sum(int(np.prod(a.shape, dtype=np.int64)) for a in out_avals)
    rows = [pytree.tree_leaves(pullback(pytree.unflatten(out_tree, _basis(out_avals, k))))
            for k in range(n_out)]
    blocks = _stack(rows, in_avals, out_avals, False)  # [in][out]: in.shape + out.shape
    import ember.numpy as jnp
    per_out = []
    for j, oa in enumerate(out_avals):
      row = []
      for i, ia in enumerate(in_avals):
        b = blocks[i][j]  # in.shape + out.shape -> out.shape + in.shape
        perm = tuple(range(ia.ndim, ia.ndim + oa.ndim)) + tuple(range(ia.ndim))
        row.append(jnp.transpose(b, perm))
      per_out.append(pytree.unflatten(in_tree, row))
    jac = pytree.unflatten(out_tree, per_out)
    if not seq:
      jac = pytree.tree_map(lambda d: d[0], jac, is_leaf=lambda x: isinstance(x, tuple))
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
