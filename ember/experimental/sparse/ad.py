"""Sparse-aware autodiff: ``grad``, ``value_and_grad``, ``jacfwd``, ``jacrev``, ``jacobian``.

They are ember's transforms with each sparse argument differentiated through its data buffer
only (its indices are integers): the gradient is taken in the subspace of the array's sparsity
pattern and returned as a sparse array of the same kind, with the argument's indices.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental import sparse
    >>> X = sparse.BCOO.fromdense(jnp.arange(6.))
    >>> grad(lambda X, y: X @ y)(X, jnp.ones(6))
    BCOO(float32[6], nse=5)
"""
from __future__ import annotations

import functools
import itertools
import operator
from typing import Any, Callable, Sequence

from ember import pytree
from ember.experimental.sparse._base import JAXSparse

__all__ = ["grad", "value_and_grad", "jacfwd", "jacrev", "jacobian"]


def _is_sparse(x) -> bool:
  return isinstance(x, JAXSparse)


def _index_tuple(argnums) -> tuple[int, ...]:
  try:
    return (operator.index(argnums),)
  except TypeError:
    return tuple(operator.index(a) for a in argnums)


def _split(seq, sizes):
  it = iter(seq)
  return [list(itertools.islice(it, n)) for n in sizes]


def flatten_fun_for_sparse_ad(fun: Callable, argnums, args: tuple):
  """``fun`` over flat buffers, the flat argnums to differentiate (a sparse argument's data
  only), the flat arguments, and the map from flat gradients back to (sparse) gradients."""
  argnums_tup = _index_tuple(argnums)
  if not all(0 <= a < len(args) for a in argnums_tup):
    raise ValueError(f"argnums {argnums} out of range for {len(args)} positional arguments")
  flat1, tree1 = pytree.flatten(args, is_leaf=_is_sparse)
  sizes1 = [c.num_leaves for c in tree1.children()]
  chosen1 = list(itertools.chain.from_iterable(
      nums for i, nums in enumerate(_split(range(tree1.num_leaves), sizes1)) if i in argnums_tup))
  flat, tree2 = pytree.flatten(flat1)
  sizes2 = [pytree.flatten(x)[1].num_leaves for x in flat1]
  per_leaf = [nums[:1] if _is_sparse(x) else nums
              for x, nums in zip(flat1, _split(range(len(flat)), sizes2))]
  chosen = tuple(itertools.chain.from_iterable(
      nums for i, nums in enumerate(per_leaf) if i in chosen1))

  def fun_flat(*xs, **kwargs):
    return fun(*pytree.unflatten(tree1, pytree.unflatten(tree2, xs)), **kwargs)

  def rebuild(i, g):
    from ember import vmap
    bufs, tree = pytree.flatten(flat1[i])
    f = lambda d: pytree.unflatten(tree, [d, *bufs[1:]])  # noqa: E731
    for _ in range(g.ndim - bufs[0].ndim):
      f = vmap(f)
    return f(g)

  def postprocess(grads):
    leaves = [None] * tree1.num_leaves
    for i, g in zip(chosen1, grads):
      leaves[i] = rebuild(i, g)
    out = tuple(x for x in pytree.unflatten(tree1, leaves) if pytree.flatten(x)[0])
    return out[0] if len(out) == 1 else out
  return fun_flat, chosen, flat, postprocess


def _sparse_ad(transform: Callable, fun: Callable, argnums, has_aux: bool, value: bool,
               **kwargs) -> Callable:
  _index_tuple(argnums)

  @functools.wraps(fun)
  def wrapped(*args, **kw):
    fun_flat, chosen, flat, post = flatten_fun_for_sparse_ad(fun, argnums, args)
    out = transform(fun_flat, argnums=chosen, has_aux=has_aux, **kwargs)(*flat, **kw)
    if value:
      return out[0], post(out[1])
    if has_aux:
      return post(out[0]), out[1]
    return post(out)
  return wrapped


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   **kwargs) -> Callable[..., tuple[Any, Any]]:
  """``value_and_grad`` whose gradients in sparse arguments are sparse (see module docs).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import sparse
      >>> X = sparse.BCOO.fromdense(jnp.arange(6.))
      >>> value_and_grad(lambda X, y: X @ y)(X, jnp.ones(6))
      (Array(15., dtype=float32), BCOO(float32[6], nse=5))
  """
  import ember
  return _sparse_ad(ember.value_and_grad, fun, argnums, has_aux, True, **kwargs)


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         **kwargs) -> Callable:
  """``grad`` whose gradients in sparse arguments are sparse, over their stored entries.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import sparse
      >>> X = sparse.BCOO.fromdense(jnp.array([0., 2., 3.]))
      >>> grad(lambda X: (X.todense() ** 2).sum())(X).data
      Array([4., 6.], dtype=float32)
  """
  import ember
  return _sparse_ad(ember.grad, fun, argnums, has_aux, False, **kwargs)


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           **kwargs) -> Callable:
  """``jacfwd`` over the stored entries of sparse arguments (dense outputs only).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import sparse
      >>> X = sparse.BCOO.fromdense(jnp.array([0., 2.]))
      >>> jacfwd(lambda X: X.todense())(X).data
      Array([[0.],
             [1.]], dtype=float32)
  """
  import ember
  return _sparse_ad(ember.jacfwd, fun, argnums, has_aux, False, **kwargs)


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           **kwargs) -> Callable:
  """``jacrev`` over the stored entries of sparse arguments (dense outputs only).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import sparse
      >>> X = sparse.BCOO.fromdense(jnp.array([0., 2.]))
      >>> jacrev(lambda X: X.todense())(X).data
      Array([[0.],
             [1.]], dtype=float32)
  """
  import ember
  return _sparse_ad(ember.jacrev, fun, argnums, has_aux, False, **kwargs)


jacobian = jacrev


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
