"""Helpers shared by the sparse formats: the static description of a sparse layout
(``SparseInfo``), the efficiency warnings and errors, repeated vmap, and stored-element counts.

Example:
    >>> SparseInfo((2, 3))
    SparseInfo(shape=(2, 3), indices_sorted=False, unique_indices=False)
"""
from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple, Sequence

import numpy as np

__all__ = ["SparseEfficiencyError", "SparseEfficiencyWarning", "CuSparseEfficiencyWarning",
           "SparseInfo", "nfold_vmap", "broadcasting_vmap"]

Shape = tuple[int, ...]


class SparseEfficiencyError(ValueError):
  """Raised when an operation would store many explicit zeros (e.g. ``update_layout``).

  Example:
      >>> issubclass(SparseEfficiencyError, ValueError)
      True
  """


class SparseEfficiencyWarning(UserWarning):
  """Warned when an operation stores many explicit zeros and ``on_inefficient='warn'``.

  Example:
      >>> issubclass(SparseEfficiencyWarning, UserWarning)
      True
  """


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
  """JAX's warning that a cuSPARSE lowering was not used (ember never warns it: it has none).

  Example:
      >>> issubclass(CuSparseEfficiencyWarning, SparseEfficiencyWarning)
      True
  """


class SparseInfo(NamedTuple):
  """The static part of a sparse array: its shape and what is known of its indices.

  It is the ``spinfo`` parameter of the sparse primitives, printed in jaxprs as JAX prints it.

  Example:
      >>> SparseInfo((4,), indices_sorted=True).indices_sorted
      True
  """
  shape: Shape
  indices_sorted: bool = False
  unique_indices: bool = False


def nfold_vmap(fun: Callable, N: int, *, broadcasted: bool = True, in_axes=0) -> Callable:
  """``fun`` vmapped ``N`` times over leading axes; with ``broadcasted``, size-1 mapped axes
  broadcast against the others (batch dimensions of sparse buffers may be size 1).

  Example:
      >>> import ember.numpy as jnp
      >>> nfold_vmap(jnp.sum, 2)(jnp.ones((2, 3, 4))).shape
      (2, 3)
  """
  from ember import vmap
  wrap = broadcasting_vmap if broadcasted else vmap
  for _ in range(N):
    fun = wrap(fun, in_axes=in_axes)
  return fun


def broadcasting_vmap(fun: Callable, in_axes=0, out_axes=0) -> Callable:
  """``vmap`` that treats mapped axes of size 1 as broadcast (unmapped) when others are longer.

  Example:
      >>> import ember.numpy as jnp
      >>> broadcasting_vmap(jnp.add)(jnp.ones((3, 2)), jnp.zeros((1, 2))).shape
      (3, 2)
  """
  from ember import lax, tree_util, vmap

  @functools.wraps(fun)
  def batched(*args):
    leaves, tree = tree_util.tree_flatten(args)
    axes = _flat_axes(in_axes, args, tree)
    size = max(leaf.shape[i] for leaf, i in zip(leaves, axes) if i is not None)
    if size > 1:
      if any(i is not None and leaf.shape[i] not in (1, size) for leaf, i in zip(leaves, axes)):
        raise ValueError("broadcasting_vmap: mismatched input shapes")
      pairs = [(leaf, None) if i is None else
               (lax.squeeze(leaf, (i,)), None) if leaf.shape[i] == 1 else (leaf, i)
               for leaf, i in zip(leaves, axes)]
      leaves, axes = [p[0] for p in pairs], [p[1] for p in pairs]
    new_args = tree_util.tree_unflatten(tree, leaves)
    new_axes = tree_util.tree_unflatten(tree, axes)
    return vmap(fun, in_axes=new_axes, out_axes=out_axes)(*new_args)
  return batched


def _flat_axes(in_axes, args: tuple, tree) -> list:
  from ember.transforms.batching import prefix_leaves
  spec = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
  return prefix_leaves(spec, args, "in_axes")


def count_stored_elements_per_batch(mat, n_batch: int = 0, n_dense: int = 0):
  """The number of nonzero entries (blocks, with dense dimensions) of each batch of ``mat``."""
  import ember.numpy as jnp
  mask = jnp.asarray(mat) != 0
  if n_dense > 0:
    mask = mask.any(tuple(range(mask.ndim - n_dense, mask.ndim)))
  return mask.sum(tuple(range(n_batch, mask.ndim)))


def count_stored_elements(mat, n_batch: int = 0, n_dense: int = 0):
  """The largest number of nonzero entries over the batches of ``mat`` (BCOO's default nse)."""
  return count_stored_elements_per_batch(mat, n_batch, n_dense).max(initial=0)


def dot_general_validated_shape(lhs_shape: Shape, rhs_shape: Shape, dimension_numbers) -> Shape:
  """The shape of ``dot_general`` of operands of these shapes; its TypeError when they do not
  fit."""
  from ember.core.aval import ShapedArray
  from ember.primitives.linalg import _dot_shape
  return _dot_shape(ShapedArray(tuple(lhs_shape), np.dtype(np.float32)),
                    ShapedArray(tuple(rhs_shape), np.dtype(np.float32)), dimension_numbers)


def csr_to_coo(indices, indptr):
  """The (row, col) COO indices of CSR ``(indices, indptr)``."""
  import ember.numpy as jnp
  counts = jnp.zeros_like(indices).at[indptr].add(1, mode="drop")
  return jnp.cumsum(counts) - 1, indices


def coo_extract(row, col, mat):
  """``mat``'s values at the COO positions ``(row, col)``."""
  return mat[row, col]


def split_shape(shape: Sequence[int], n_batch: int, n_sparse: int) -> tuple[Shape, Shape, Shape]:
  """``shape`` cut into its batch, sparse and dense parts."""
  shape = tuple(shape)
  return shape[:n_batch], shape[n_batch:n_batch + n_sparse], shape[n_batch + n_sparse:]


def prod(xs) -> int:
  return math.prod(int(x) for x in xs)


def ensure_index_tuple(x) -> tuple[int, ...]:
  """``x`` (an int or a sequence of ints) as a tuple of Python ints."""
  import operator
  try:
    return (operator.index(x),)
  except TypeError:
    return tuple(operator.index(i) for i in x)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
