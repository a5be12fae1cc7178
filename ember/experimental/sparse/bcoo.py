"""BCOO: batched coordinate-format sparse arrays, and the functions on them.

A ``BCOO`` of shape ``batch + sparse + dense`` holds ``data`` (``batch + (nse,) + dense``) and
``indices`` (``batch + (nse, n_sparse)``): each batch stores ``nse`` entries, each a block of the
dense dimensions at a position of the sparse ones. It is a pytree of its two buffers (shape and
index flags are static), maps as one value under ``vmap`` (over its batch dimensions), and its
operators (``@``, ``*``, ``+``, indexing, ``sum``, ``reshape``...) run jnp's functions through
``sparsify``. The primitives live in ``_bcoo_prims`` and ``_bcoo_dot``; the structural
functions (``bcoo_reshape``, ``bcoo_slice``...) in ``_bcoo_ops``.

Example:
    >>> import ember.numpy as jnp
    >>> M = BCOO.fromdense(jnp.array([[0., 2., 0.], [1., 0., 4.]]))
    >>> M
    BCOO(float32[2, 3], nse=3)
    >>> M.indices
    Array([[0, 1],
           [1, 0],
           [1, 2]], dtype=int32)
    >>> (M @ jnp.ones(3)).tolist()
    [2.0, 5.0]
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.experimental.sparse._base import JAXSparse
from ember.experimental.sparse._bcoo_dot import (
    bcoo_dot_general_p, bcoo_dot_general_sampled_p, bcoo_spdot_general_p)
from ember.experimental.sparse._bcoo_prims import (
    bcoo_extract_p, bcoo_fromdense_p, bcoo_sort_indices_p, bcoo_sum_duplicates_p,
    bcoo_todense_p, bcoo_transpose_p, count_unique, validate_bcoo, validate_bcoo_indices)
from ember.experimental.sparse.util import (
    SparseInfo, count_stored_elements, dot_general_validated_shape, ensure_index_tuple,
    split_shape)
from ember.numpy import int32 as _int32  # the default index dtype, as JAX's jnp.int32

__all__ = ["BCOO", "bcoo_todense", "bcoo_fromdense", "bcoo_extract", "bcoo_transpose",
           "bcoo_dot_general", "bcoo_dot_general_sampled", "bcoo_sort_indices",
           "bcoo_sum_duplicates", "bcoo_eliminate_zeros", "bcoo_todense_p", "bcoo_fromdense_p",
           "bcoo_extract_p", "bcoo_transpose_p", "bcoo_dot_general_p",
           "bcoo_dot_general_sampled_p", "bcoo_spdot_general_p", "bcoo_sort_indices_p",
           "bcoo_sum_duplicates_p"]

_TRACED_NSE_ERROR = """
The error arose for the nse argument of bcoo_fromdense. In order for
BCOO.fromdense() to be used in traced/compiled code, you must pass a concrete
value to the nse (number of stored elements) argument.
"""


def concrete_index(x, context: str) -> int:
  """``x`` as a Python int; JAX's ConcretizationTypeError (with ``context``) when traced."""
  value = core.concrete_value(x)
  if value is None:
    raise ConcretizationTypeError(x, context)
  if hasattr(value, "shape"):
    value = np.asarray(value).item()
  return operator.index(value)


def _asarray(x):
  import ember.numpy as jnp
  return jnp.asarray(x)


class BCOO(JAXSparse):
  """Batched COO sparse array: ``data`` and ``indices`` buffers and a static ``shape``.

  Args:
    args: ``(data, indices)`` of shapes ``batch + (nse,) + dense`` and ``batch + (nse,
      n_sparse)``.
    shape: the shape of the array, ``batch + sparse + dense``.
    indices_sorted: whether the indices of each batch are sorted lexicographically.
    unique_indices: whether no index repeats within a batch.

  Raises:
    ValueError: when the buffers' shapes do not describe an array of ``shape``.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO((jnp.array([1., 3.]), jnp.array([[0, 0], [1, 1]])), shape=(2, 2))
      >>> M.todense()
      Array([[1., 0.],
             [0., 3.]], dtype=float32)
  """

  def __init__(self, args: tuple[Any, Any], *, shape: Sequence[int],
               indices_sorted: bool = False, unique_indices: bool = False):
    self.data, self.indices = map(_asarray, args)
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices
    super().__init__(args, shape=shape)
    validate_bcoo(self.data, self.indices, self.shape)

  @property
  def _info(self) -> SparseInfo:
    return SparseInfo(self.shape, self.indices_sorted, self.unique_indices)

  @property
  def _bufs(self) -> tuple:
    return (self.data, self.indices)

  @property
  def nse(self) -> int:
    return self.indices.shape[-2]

  @property
  def dtype(self) -> np.dtype:
    return self.data.dtype

  @property
  def n_batch(self) -> int:
    return self.indices.ndim - 2

  @property
  def n_sparse(self) -> int:
    return self.indices.shape[-1]

  @property
  def n_dense(self) -> int:
    return self.data.ndim - 1 - self.n_batch

  def _repr_extra(self) -> str:
    extra = f", nse={self.nse}"
    if self.n_batch:
      extra += f", n_batch={self.n_batch}"
    if self.n_dense:
      extra += f", n_dense={self.n_dense}"
    return extra

  @classmethod
  def fromdense(cls, mat, *, nse: int | None = None, index_dtype=np.int32, n_dense: int = 0,
                n_batch: int = 0) -> "BCOO":
    """A BCOO array holding the nonzero entries of the dense array ``mat`` (``bcoo_fromdense``).

    Example:
        >>> import ember.numpy as jnp
        >>> BCOO.fromdense(jnp.array([[1., 0.], [2., 3.]]), n_batch=1)
        BCOO(float32[2, 2], nse=2, n_batch=1)
    """
    return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense: int = 0,
                        n_batch: int = 0) -> "BCOO":
    """A BCOO array from a ``scipy.sparse`` array (its COO entries, as stored).

    Example:
        >>> import scipy.sparse
        >>> BCOO.from_scipy_sparse(scipy.sparse.eye(3, dtype="float32"))
        BCOO(float32[3, 3], nse=3)
    """
    import ember.numpy as jnp
    if n_dense != 0 or n_batch != 0:
      raise NotImplementedError("BCOO.fromscipy with nonzero n_dense/n_batch")
    mat = mat.tocoo()
    data = jnp.asarray(mat.data)
    indices = jnp.column_stack((mat.row, mat.col)).astype(index_dtype or jnp.int32)
    return cls((data, indices), shape=mat.shape)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense: int = 0,
             n_batch: int = 0, nse: int = 0) -> "BCOO":
    import ember.numpy as jnp
    shape = tuple(shape)
    n_sparse = len(shape) - n_dense - n_batch
    if n_sparse < 0 or n_dense < 0 or n_batch < 0 or nse < 0:
      raise ValueError(f"Invalid inputs: shape={shape}, n_dense={n_dense}, n_batch={n_batch}, "
                       f"nse={nse}")
    batch, sparse, dense = split_shape(shape, n_batch, n_sparse)
    data = jnp.zeros((*batch, nse, *dense), dtype)
    indices = jnp.full((*batch, nse, n_sparse), jnp.array(sparse, index_dtype), index_dtype)
    return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

  @classmethod
  def _eye(cls, N: int, M: int, k: int, *, dtype=None, index_dtype="int32", n_batch: int = 0,
           n_dense: int = 0) -> "BCOO":
    import ember.numpy as jnp
    if 2 - n_batch - n_dense < 0 or n_dense < 0 or n_batch < 0:
      raise ValueError(f"Invalid inputs: shape={(N, M)}, n_dense={n_dense}, n_batch={n_batch}")
    diag_size = min(N, M - k) if k > 0 else min(N + k, M)
    if diag_size <= 0:
      return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                        n_dense=n_dense)
    if n_dense > 0 or n_batch > 1:
      return cls.fromdense(jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch, n_dense=n_dense,
                           index_dtype=index_dtype)
    if n_batch == 0:
      data = jnp.ones(diag_size, dtype=dtype)
      idx = jnp.arange(diag_size, dtype=index_dtype)
      indices = jnp.column_stack([idx - min(k, 0), idx + max(k, 0)])
    else:  # one batch dimension (the rows), one sparse (the column)
      data = np.ones(N, dtype=jnp.zeros((), dtype).dtype)
      cols = np.arange(N, dtype=np.dtype(index_dtype)) + k
      if k < 0:
        data[:-k], cols[:-k] = 0, M
      elif k > 0:
        data[M - k:] = 0
        if M - k < N:
          cols[M - k] = M
      data, indices = jnp.asarray(data)[:, None], jnp.asarray(cols)[:, None, None]
    return cls((data, indices), shape=(N, M), indices_sorted=True, unique_indices=True)

  def update_layout(self, *, n_batch: int | None = None, n_dense: int | None = None,
                    on_inefficient: str | None = "error") -> "BCOO":
    """The same array with ``n_batch`` batch and ``n_dense`` dense dimensions.

    Example:
        >>> import ember.numpy as jnp
        >>> BCOO.fromdense(jnp.eye(2), n_batch=1).update_layout(n_batch=0)
        BCOO(float32[2, 2], nse=2)
    """
    from ember.experimental.sparse._bcoo_ops import bcoo_update_layout
    return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                              on_inefficient=on_inefficient)

  def sum_duplicates(self, nse: int | None = None, remove_zeros: bool = True) -> "BCOO":
    """The array with repeated indices summed, sorted, and (by default) explicit zeros removed.

    Without ``nse`` the output size is read off the values, so it must be given under ``jit``.

    Example:
        >>> import ember.numpy as jnp
        >>> M = BCOO((jnp.array([1., 2.]), jnp.array([[1], [1]])), shape=(3,))
        >>> M.sum_duplicates().data
        Array([3.], dtype=float32)
    """
    if remove_zeros:
      return bcoo_eliminate_zeros(self, nse=nse)
    return bcoo_sum_duplicates(self, nse=nse)

  def sort_indices(self) -> "BCOO":
    """The array with each batch's indices sorted lexicographically.

    Example:
        >>> import ember.numpy as jnp
        >>> M = BCOO((jnp.array([1., 2.]), jnp.array([[2], [0]])), shape=(3,))
        >>> M.sort_indices().indices.ravel().tolist()
        [0, 2]
    """
    return bcoo_sort_indices(self)

  def todense(self):
    """The dense array this one stands for.

    Example:
        >>> import ember.numpy as jnp
        >>> BCOO.fromdense(jnp.array([0., 5.])).todense()
        Array([0., 5.], dtype=float32)
    """
    return bcoo_todense(self)

  def transpose(self, axes: Sequence[int] | None = None) -> "BCOO":
    """The array with its axes permuted (reversed by default); batch, sparse and dense axes
    permute only among their own kind.

    Example:
        >>> import ember.numpy as jnp
        >>> BCOO.fromdense(jnp.ones((2, 3))).T
        BCOO(float32[3, 2], nse=6)
    """
    perm = list(range(self.ndim)[::-1] if axes is None else axes)
    out = bcoo_transpose(self, permutation=perm)
    sparse_perm = [p - self.n_batch for p in perm[self.n_batch:self.n_batch + self.n_sparse]]
    is_sorted = self.indices_sorted and sparse_perm == list(range(self.n_sparse))
    return BCOO((out.data, out.indices), shape=out.shape, indices_sorted=is_sorted,
                unique_indices=self.unique_indices)

  def tree_flatten(self):
    return (self.data, self.indices), self._info._asdict()

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    obj = object.__new__(cls)
    obj.data, obj.indices = children
    if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
      raise ValueError(f"BCOO.tree_unflatten: invalid aux_data={aux_data}")
    obj.__dict__.update(**aux_data)
    return obj


def _register_bcoo():
  from ember.pytree import register_pytree_node
  from ember.transforms.batching import register_vmappable
  register_pytree_node(BCOO, lambda m: m.tree_flatten(), BCOO.tree_unflatten)
  register_vmappable(BCOO, int, int, _bcoo_to_elt, _bcoo_from_elt, None)


def _bcoo_to_elt(cont, _, val: BCOO, axis):
  if axis is None:
    return val
  if axis >= val.n_batch:
    raise ValueError(f"Cannot map in_axis={axis} for BCOO array with n_batch={val.n_batch}. "
                     "in_axes for batched BCOO operations must correspond to a batch dimension.")
  return BCOO.tree_unflatten(
      dict(shape=val.shape[:axis] + val.shape[axis + 1:], indices_sorted=val.indices_sorted,
           unique_indices=val.unique_indices),
      (cont(val.data, axis), cont(val.indices, axis)))


def _bcoo_from_elt(cont, axis_size, elt: BCOO, axis):
  if axis is None:
    return elt
  if axis > elt.n_batch:
    raise ValueError(f"BCOO: cannot add out_axis={axis} for BCOO array with "
                     f"n_batch={elt.n_batch}. BCOO batch axes must be a contiguous block of "
                     "leading dimensions.")
  return BCOO((cont(axis_size, elt.data, axis), cont(axis_size, elt.indices, axis)),
              shape=elt.shape[:axis] + (axis_size,) + elt.shape[axis:],
              indices_sorted=elt.indices_sorted, unique_indices=elt.unique_indices)


_register_bcoo()


# --- conversions -------------------------------------------------------------------------------

def bcoo_todense(mat: BCOO):
  """The dense array a BCOO array stands for (``bcoo_todense`` primitive).

  Example:
      >>> import ember.numpy as jnp
      >>> bcoo_todense(BCOO((jnp.array([7.]), jnp.array([[1]])), shape=(2,)))
      Array([0., 7.], dtype=float32)
  """
  return bcoo_todense_p.bind(_asarray(mat.data), _asarray(mat.indices), spinfo=mat._info)


def bcoo_fromdense(mat, *, nse: int | None = None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=_int32) -> BCOO:
  """The BCOO array of the nonzero entries of ``mat`` (row-major order in each batch).

  Args:
    mat: a dense array.
    nse: entries stored per batch; by default the largest nonzero count over the batches
      (which needs concrete values: pass it under ``jit``).
    n_batch: leading dimensions stored as batch dimensions.
    n_dense: trailing dimensions stored whole in each entry's block.
    index_dtype: the dtype of the indices (int32 by default).

  Raises:
    ConcretizationTypeError: when ``nse`` is not given and ``mat`` is traced.

  Example:
      >>> import ember.numpy as jnp
      >>> M = bcoo_fromdense(jnp.array([0., 3., 0., 4.]), nse=3)
      >>> M.data, M.indices.ravel()
      (Array([3., 4., 0.], dtype=float32), Array([1, 3, 4], dtype=int32))
  """
  import ember.numpy as jnp
  mat = jnp.asarray(mat)
  index_dtype = jnp.int32 if index_dtype is None else index_dtype
  count = count_stored_elements(mat, n_batch, n_dense) if nse is None else nse
  nse = concrete_index(count, _TRACED_NSE_ERROR)
  data, indices = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=operator.index(n_batch),
                                        n_dense=operator.index(n_dense),
                                        index_dtype=index_dtype)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_extract(sparr: BCOO, arr, *, assume_unique: bool | None = None) -> BCOO:
  """The values of the dense ``arr`` at ``sparr``'s indices, as a BCOO array like ``sparr``.

  With ``assume_unique=False`` (the default when ``sparr.unique_indices`` is False) a repeated
  index reads its value once, at its first place, and zero elsewhere.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO((jnp.zeros(2), jnp.array([[0], [2]])), shape=(3,))
      >>> bcoo_extract(M, jnp.array([5., 6., 7.])).data
      Array([5., 7.], dtype=float32)
  """
  import ember.numpy as jnp
  if not isinstance(sparr, BCOO):
    raise TypeError("First argument to bcoo_extract should be a BCOO array. "
                    f"Got type(sparr)={type(sparr)}")
  a = jnp.asarray(arr)
  if tuple(a.shape) != tuple(sparr.shape):
    raise ValueError(f"shape mismatch: sparr.shape={sparr.shape} a.shape={tuple(a.shape)}")
  if assume_unique is None:
    assume_unique = sparr.unique_indices
  data = bcoo_extract_p.bind(sparr.indices, a, assume_unique=bool(assume_unique))
  return BCOO((data, sparr.indices), **sparr._info._asdict())


def bcoo_transpose(mat: BCOO, *, permutation: Sequence[int]) -> BCOO:
  """``mat`` with its axes permuted; batch, sparse and dense axes permute among their own kind
  (JAX's NotImplementedError otherwise).

  Example:
      >>> import ember.numpy as jnp
      >>> M = bcoo_transpose(BCOO.fromdense(jnp.array([[0., 1.], [0., 0.]])), permutation=(1, 0))
      >>> M.todense()
      Array([[0., 0.],
             [1., 0.]], dtype=float32)
  """
  data, indices = transpose_buffers(mat.data, mat.indices, permutation=permutation,
                                    spinfo=mat._info)
  shape = tuple(mat.shape[p] for p in permutation)
  return BCOO((data, indices), shape=shape, unique_indices=mat.unique_indices)


def transpose_buffers(data, indices, *, permutation, spinfo: SparseInfo):
  permutation = tuple(int(p) for p in permutation)
  if permutation == tuple(range(len(spinfo.shape))):
    return data, indices
  return bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo)


def bcoo_sort_indices(mat: BCOO) -> BCOO:
  """``mat`` with each batch's indices sorted lexicographically (duplicates kept).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO((jnp.array([1., 2.]), jnp.array([[1], [0]])), shape=(2,))
      >>> bcoo_sort_indices(M).data
      Array([2., 1.], dtype=float32)
  """
  data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=mat._info)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
              unique_indices=mat.unique_indices)


def _nse_or_count(indices, shape, nse):
  """``nse`` as an int, or the number of unique indices when it is None (concrete only)."""
  if nse is not None:
    return concrete_index(nse, "nse argument of bcoo_sum_duplicates.")
  value = core.concrete_value(indices)
  if value is None:
    raise ValueError("bcoo_sum_duplicates: nse must be specified when using the function within "
                     "jit, vmap, and other transformations requiring abstract evaluation.")
  from ember.api import ensure_compile_time_eval
  with ensure_compile_time_eval():
    return count_unique(_asarray(value), tuple(shape))


def bcoo_sum_duplicates(mat: BCOO, nse: int | None = None) -> BCOO:
  """``mat`` with each batch's repeated indices summed into one entry, sorted.

  Args:
    mat: a BCOO array.
    nse: the entries to store; by default the number of unique indices (which needs concrete
      indices: pass it under ``jit``). Extra entries are padding, missing ones are dropped.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO((jnp.array([1., 2., 4.]), jnp.array([[2], [0], [2]])), shape=(3,))
      >>> out = bcoo_sum_duplicates(M)
      >>> out.data, out.indices.ravel()
      (Array([2., 5.], dtype=float32), Array([0, 2], dtype=int32))
  """
  nse = _nse_or_count(mat.indices, mat.shape, nse)
  data, indices = bcoo_sum_duplicates_p.bind(mat.data, mat.indices, spinfo=mat._info, nse=nse)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_eliminate_zeros(mat: BCOO, nse: int | None = None) -> BCOO:
  """``mat`` without its explicitly stored zeros, duplicates summed (``sum_duplicates``).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO((jnp.array([0., 2.]), jnp.array([[0], [1]])), shape=(2,))
      >>> bcoo_eliminate_zeros(M).nse
      1
  """
  import ember.numpy as jnp
  data, indices, shape = mat.data, mat.indices, mat.shape
  n_batch, n_sparse, _, _ = validate_bcoo(data, indices, shape)
  zero = (data == 0).all(tuple(range(n_batch + 1, data.ndim)))
  shared = tuple(d for d, s in enumerate(indices.shape[:n_batch]) if s == 1)
  zero = zero.all(shared, keepdims=True)
  fill = jnp.array(shape[n_batch:n_batch + n_sparse], dtype=indices.dtype)
  indices = jnp.where(zero[..., None], fill, indices)
  return bcoo_sum_duplicates(BCOO((data, indices), shape=shape), nse=nse)


# --- contractions ------------------------------------------------------------------------------

def _dims_tuple(dimension_numbers):
  (lc, rc), (lb, rb) = dimension_numbers
  return ((ensure_index_tuple(lc), ensure_index_tuple(rc)),
          (ensure_index_tuple(lb), ensure_index_tuple(rb)))


def _preferred(dtype):
  return None if dtype is None else np.dtype(dtype)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """``lax.dot_general`` where either operand (or both) may be a BCOO array.

  Sparse x dense and dense x sparse give dense arrays; sparse x sparse gives a BCOO array.
  ``precision`` and ``out_sharding`` are accepted and unused, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([[1., 0.], [0., 2.]]))
      >>> bcoo_dot_general(M, jnp.array([3., 4.]), dimension_numbers=(([1], [0]), ([], [])))
      Array([3., 8.], dtype=float32)
  """
  from ember import lax
  del precision, out_sharding
  dims = _dims_tuple(dimension_numbers)
  preferred = _preferred(preferred_element_type)
  if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
    shape = dot_general_validated_shape(lhs.shape, rhs.shape, dims)
    data, indices = bcoo_spdot_general_p.bind(
        lhs.data, lhs.indices, rhs.data, rhs.indices, lhs_spinfo=lhs._info,
        rhs_spinfo=rhs._info, dimension_numbers=dims, preferred_element_type=preferred)
    return BCOO((data, indices), shape=shape)
  if isinstance(lhs, BCOO):
    return dot_general_buffers(lhs.data, lhs.indices, rhs, dimension_numbers=dims,
                               preferred_element_type=preferred, lhs_spinfo=lhs._info)
  if isinstance(rhs, BCOO):
    return _rdot_general(lhs, rhs, dims, preferred)
  return lax.dot_general(lhs, rhs, dimension_numbers=dims,
                         preferred_element_type=preferred_element_type)


def dot_general_buffers(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                        preferred_element_type, lhs_spinfo: SparseInfo):
  """``bcoo_dot_general`` of the BCOO buffers ``(lhs_data, lhs_indices)`` and a dense ``rhs``."""
  return bcoo_dot_general_p.bind(_asarray(lhs_data), _asarray(lhs_indices), _asarray(rhs),
                                 dimension_numbers=_dims_tuple(dimension_numbers),
                                 preferred_element_type=_preferred(preferred_element_type),
                                 lhs_spinfo=lhs_spinfo)


def _rdot_general(lhs, rhs: BCOO, dims, preferred):
  """dense x sparse: the swapped product, its output dimensions put back in order."""
  from ember import lax
  swapped = tuple(d[::-1] for d in dims)
  result = dot_general_buffers(rhs.data, rhs.indices, lhs, dimension_numbers=swapped,
                               preferred_element_type=preferred, lhs_spinfo=rhs._info)
  n_contract, n_batch = len(dims[0][0]), len(dims[1][0])
  n_swap = len(rhs.shape) - n_contract
  perm = (*range(n_batch), *range(n_swap, result.ndim), *range(n_batch, n_swap))
  return lax.transpose(result, perm)


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
  """``dot_general(A, B)`` of dense arrays computed only at BCOO ``indices``: the data of the
  BCOO array of the product's values there.

  Example:
      >>> import ember.numpy as jnp
      >>> bcoo_dot_general_sampled(jnp.array([1., 2.]), jnp.array([3., 4.]),
      ...                          jnp.array([[1, 0]]), dimension_numbers=(([], []), ([], [])))
      Array([6.], dtype=float32)
  """
  return bcoo_dot_general_sampled_p.bind(_asarray(A), _asarray(B), _asarray(indices),
                                         dimension_numbers=_dims_tuple(dimension_numbers))


from ember.experimental.sparse._bcoo_ops import *  # noqa: E402,F401,F403  (the module's API)
from ember.experimental.sparse import _bcoo_ops as _ops  # noqa: E402

__all__ += _ops.__all__


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
