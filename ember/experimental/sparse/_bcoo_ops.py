"""BCOO versions of lax's structural operations, written on the buffers: layout changes,
broadcasting, concatenation, reshapes, reversal, squeezing, slicing, gathers, sums, products
and a 1-D convolution. ``sparsify`` maps lax primitives to these.

Each keeps the array sparse: batch dimensions are sliced or broadcast as dense arrays, sparse
dimensions by rewriting index columns (entries that fall outside the result get the
out-of-bounds fill index and zero data), dense dimensions as the data's trailing axes.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.sparse.bcoo import BCOO
    >>> M = BCOO.fromdense(jnp.array([[0., 1., 2.], [3., 0., 0.]]))
    >>> bcoo_slice(M, start_indices=(0, 1), limit_indices=(2, 3)).todense()
    Array([[1., 2.],
           [0., 0.]], dtype=float32)
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Sequence

import numpy as np

from ember.experimental.sparse import _bcoo_prims as prims
from ember.experimental.sparse.bcoo import BCOO
from ember.experimental.sparse.util import (
    SparseEfficiencyError, SparseEfficiencyWarning, SparseInfo, nfold_vmap, split_shape)

__all__ = ["bcoo_update_layout", "bcoo_broadcast_in_dim", "bcoo_concatenate", "bcoo_reshape",
           "bcoo_rev", "bcoo_squeeze", "bcoo_slice", "bcoo_dynamic_slice", "bcoo_reduce_sum",
           "bcoo_multiply_sparse", "bcoo_multiply_dense", "bcoo_gather",
           "bcoo_conv_general_dilated"]


def _jnp():
  import ember.numpy as jnp
  return jnp


def _lax():
  from ember import lax
  return lax


def _eval_shape(fn, *args, **kwargs):
  """The output shape/dtype of lax's ``fn`` at these arguments: its own checks and errors."""
  import ember
  return ember.eval_shape(lambda *a: fn(*a, **kwargs), *args)


def _sds(x):
  import ember
  return ember.ShapeDtypeStruct(tuple(x.shape), x.dtype)


def set_nse(mat: BCOO, nse: int) -> BCOO:
  """``mat`` cut or padded (zero data, fill indices) to ``nse`` stored entries."""
  jnp = _jnp()
  nse = operator.index(nse)
  if mat.nse == nse:
    return mat
  n_batch = mat.n_batch
  if nse <= mat.nse:
    data = mat.data[(slice(None),) * n_batch + (slice(nse),)]
    indices = mat.indices[..., :nse, :]
  else:
    pad = [(0, 0)] * mat.data.ndim
    pad[n_batch] = (0, nse - mat.nse)
    data = jnp.pad(mat.data, pad)
    indices = prims.adjust_nse(mat.indices, nse, mat.shape)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=mat.indices_sorted,
              unique_indices=mat.unique_indices)


# --- layout ------------------------------------------------------------------------------------

def _efficiency_check(mat: BCOO, n_batch: int, n_dense: int, on_inefficient) -> None:
  def complain(msg):
    if on_inefficient == "error":
      raise SparseEfficiencyError(msg + " To disable this error, set the on_inefficient argument "
                                  "of bcoo_update_layout to 'warn' or None.")
    if on_inefficient == "warn":
      warnings.warn(msg + " To disable this warning, set the on_inefficient argument of "
                    "bcoo_update_layout to None.", category=SparseEfficiencyWarning)
  if n_dense > mat.n_dense and any(d > 1 for d in mat.shape[-n_dense:mat.ndim - mat.n_dense]):
    complain(f"For matrix of shape {mat.shape}, increasing n_dense from {mat.n_dense} to "
             f"{n_dense} results in inefficient storage.")
  if n_batch > mat.n_batch and any(d > 1 for d in mat.shape[mat.n_batch:n_batch]):
    complain(f"For matrix of shape {mat.shape}, increasing n_batch from {mat.n_batch} to "
             f"{n_batch} results in inefficient storage.")


def bcoo_update_layout(mat: BCOO, *, n_batch: int | None = None, n_dense: int | None = None,
                       on_inefficient: str | None = "error") -> BCOO:
  """``mat`` stored with ``n_batch`` batch and ``n_dense`` dense dimensions.

  Fewer batch or dense dimensions turn them into sparse ones (more stored entries); more of
  them store explicit zeros, so growing a dimension longer than 1 raises
  :class:`SparseEfficiencyError` (``on_inefficient='error'``), warns (``'warn'``) or proceeds
  (``None``).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([[1., 0.], [0., 2.]]), n_batch=1)
      >>> bcoo_update_layout(M, n_batch=0).indices
      Array([[0, 0],
             [1, 1]], dtype=int32)
  """
  n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
  n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
  if (n_batch, n_dense) == (mat.n_batch, mat.n_dense):
    return mat
  n_sparse = mat.ndim - n_batch - n_dense
  if on_inefficient not in ("error", "warn", None):
    raise ValueError(f"on_inefficient={on_inefficient!r}; expected one of "
                     "['error', 'warn', None].")
  if n_batch < 0:
    raise ValueError(f"n_batch must be non-negative; got {n_batch}")
  if n_dense < 0:
    raise ValueError(f"n_dense must be non-negative; got {n_dense}")
  if n_sparse < 0:
    raise ValueError(f"sum of n_batch={n_batch} and n_dense={n_dense} cannot be larger than "
                     f"mat.ndim={mat.ndim}.")
  _efficiency_check(mat, n_batch, n_dense, on_inefficient)
  data, indices = _common_batch(mat.data, mat.indices, mat.n_batch)
  nb, nd = mat.n_batch, mat.n_dense
  if n_dense < nd:
    data, indices = _dense_to_sparse(data, indices, nb, nd - n_dense)
    nd = n_dense
  if n_batch < nb:
    data, indices = _batch_to_sparse(data, indices, mat.shape, nb, nb - n_batch)
    nb = n_batch
  if n_dense > nd:
    data, indices = _sparse_to_dense(data, indices, mat.shape, nb, n_dense - nd)
    nd = n_dense
  if n_batch > nb:
    data, indices = _sparse_to_batch(data, indices, mat.shape, nb, n_batch - nb)
  return BCOO((data, indices), shape=mat.shape)


def _common_batch(data, indices, n_batch: int):
  """Both buffers broadcast to the larger of their batch sizes, dimension by dimension."""
  batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], indices.shape[:n_batch]))
  return prims.broadcast_batch(data, batch), prims.broadcast_batch(indices, batch)


def _grid_columns(sizes: Sequence[int], dtype):
  """All positions of a grid of ``sizes``, row-major, as an ``(prod, len(sizes))`` array."""
  jnp = _jnp()
  grids = jnp.meshgrid(*(jnp.arange(s, dtype=dtype) for s in sizes), indexing="ij")
  return jnp.stack([g.ravel() for g in grids], axis=-1).reshape(math.prod(sizes), len(sizes))


def _dense_to_sparse(data, indices, n_batch: int, n: int):
  """The first ``n`` dense dimensions become trailing sparse ones: each entry splits into one
  entry per position of them."""
  jnp = _jnp()
  batch, nse = tuple(data.shape[:n_batch]), data.shape[n_batch]
  moved = tuple(data.shape[n_batch + 1:n_batch + 1 + n])
  count = math.prod(moved)
  data = data.reshape(batch + (nse * count,) + tuple(data.shape[n_batch + 1 + n:]))
  grid = _grid_columns(moved, indices.dtype)
  old = jnp.broadcast_to(indices[..., :, None, :], indices.shape[:-1] + (count,) +
                         indices.shape[-1:])
  new = jnp.broadcast_to(grid, indices.shape[:-1] + (count, n))
  indices = jnp.concatenate([old, new], axis=-1).reshape(
      batch + (nse * count, indices.shape[-1] + n))
  return data, indices


def _batch_to_sparse(data, indices, shape, n_batch: int, n: int):
  """The last ``n`` batch dimensions become leading sparse ones."""
  jnp = _jnp()
  keep = n_batch - n
  moved = tuple(shape[keep:n_batch])
  full = lambda x: jnp.broadcast_to(x, x.shape[:keep] + moved + x.shape[n_batch:])  # noqa
  data, indices = full(data), full(indices)
  nse = indices.shape[-2]
  count = math.prod(moved) * nse
  grid = _grid_columns(moved + (nse,), indices.dtype)[:, :n]
  new = jnp.broadcast_to(grid, indices.shape[:keep] + (count, n))
  indices = jnp.concatenate([new, indices.reshape(indices.shape[:keep] + (count, -1))], -1)
  return data.reshape(data.shape[:keep] + (count,) + data.shape[n_batch + 1:]), indices


def _sparse_to_dense(data, indices, shape, n_batch: int, n: int):
  """The last ``n`` sparse dimensions become leading dense ones: each entry's block is placed
  at its position in them (out-of-bounds entries get zero blocks)."""
  jnp = _jnp()
  n_sparse = indices.shape[-1]
  moved = tuple(shape[n_batch + n_sparse - n:n_batch + n_sparse])
  batch, nse = tuple(data.shape[:n_batch]), data.shape[n_batch]
  out = jnp.zeros(batch + (nse,) + moved + tuple(data.shape[n_batch + 1:]), data.dtype)
  where = prims.batch_grid(batch, nse) + [_nse_iota(batch, nse)]
  where += [indices[..., n_sparse - n + i] for i in range(n)]
  return out.at[tuple(where)].set(data, mode="drop"), indices[..., :n_sparse - n]


def _nse_iota(batch: tuple, nse: int):
  return _lax().broadcasted_iota(np.int32, batch + (nse,), len(batch))


def _sparse_to_batch(data, indices, shape, n_batch: int, n: int):
  """The first ``n`` sparse dimensions become trailing batch ones: each entry's data goes to
  the batch its index names (other batches store zero there); indices repeat in every one."""
  jnp = _jnp()
  batch, nse = tuple(data.shape[:n_batch]), data.shape[n_batch]
  new_batch = tuple(shape[n_batch:n_batch + n])
  out = jnp.zeros(batch + new_batch + (nse,) + tuple(data.shape[n_batch + 1:]), data.dtype)
  where = (prims.batch_grid(batch, nse) + [indices[..., i] for i in range(n)]
           + [_nse_iota(batch, nse)])
  data = out.at[tuple(where)].set(data, mode="drop")
  rest = indices[..., n:]
  indices = jnp.broadcast_to(rest.reshape(batch + (1,) * n + rest.shape[n_batch:]),
                             batch + new_batch + rest.shape[n_batch:])
  return data, indices


# --- broadcasting and concatenation ------------------------------------------------------------

def bcoo_broadcast_in_dim(mat: BCOO, *, shape, broadcast_dimensions: Sequence[int],
                          sharding=None) -> BCOO:
  """``lax.broadcast_in_dim`` of a BCOO array: new leading dimensions become batch
  dimensions, new trailing ones dense; sparse dimensions may only gain size-1 neighbours.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([1., 0., 2.]))
      >>> bcoo_broadcast_in_dim(M, shape=(2, 3), broadcast_dimensions=(1,))
      BCOO(float32[2, 3], nse=2, n_batch=1)
  """
  del sharding
  shape = tuple(shape)
  data, indices = broadcast_in_dim_buffers(mat.data, mat.indices, spinfo=mat._info, shape=shape,
                                           broadcast_dimensions=broadcast_dimensions)
  return BCOO((data, indices), shape=shape)


def broadcast_in_dim_buffers(data, indices, *, spinfo: SparseInfo, shape,
                             broadcast_dimensions: Sequence[int]):
  jnp, lax = _jnp(), _lax()
  shape, dims = tuple(shape), tuple(broadcast_dimensions)
  if len(spinfo.shape) != len(dims):
    raise ValueError(f"spinfo.shape={spinfo.shape} and broadcast_dimensions={dims} must have "
                     "the same length")
  n_batch, n_sparse, n_dense, nse = prims.validate_bcoo(data, indices, spinfo.shape)
  batch_dims, sparse_dims, dense_dims = split_shape(dims, n_batch, n_sparse)
  if max(batch_dims, default=0) > min(sparse_dims, default=len(shape)):
    raise ValueError("Cannot mix batch and sparse dimensions during broadcast_in_dim")
  if max(sparse_dims, default=0) > min(dense_dims, default=len(shape)):
    raise ValueError("Cannot mix sparse and dense dimensions during broadcast_in_dim")
  new_n_batch = min(dims[n_batch:], default=len(shape))
  new_n_dense = n_dense and len(shape) - min(dims[-n_dense:])
  new_n_sparse = len(shape) - new_n_batch - new_n_dense
  if (math.prod(spinfo.shape[n_batch:n_batch + n_sparse])
      != math.prod(shape[new_n_batch:new_n_batch + new_n_sparse])):
    raise NotImplementedError("Adding sparse dimensions with lengths != 1")
  if (new_n_batch, new_n_dense) != (n_batch, n_dense):
    data = lax.broadcast_in_dim(
        data, (*shape[:new_n_batch], nse, *shape[new_n_batch + new_n_sparse:]),
        (*batch_dims, new_n_batch, *(b + 1 - new_n_sparse for b in dense_dims)))
    indices = lax.broadcast_in_dim(indices, (*shape[:new_n_batch], nse, n_sparse),
                                   (*batch_dims, new_n_batch, new_n_batch + 1))
  if new_n_sparse != n_sparse:
    cols = np.array(sparse_dims, dtype=np.int32) - new_n_batch
    out = jnp.zeros(tuple(indices.shape[:-1]) + (new_n_sparse,), indices.dtype)
    indices = out.at[..., cols].set(indices)
  return data, indices


def bcoo_concatenate(operands: Sequence[BCOO], *, dimension: int) -> BCOO:
  """``lax.concatenate`` of BCOO arrays along a batch or sparse dimension (their layouts must
  agree; concatenating dense dimensions is not implemented).

  Example:
      >>> import ember.numpy as jnp
      >>> A = BCOO.fromdense(jnp.array([1., 0.]))
      >>> bcoo_concatenate([A, A], dimension=0).todense()
      Array([1., 0., 1., 0.], dtype=float32)
  """
  lax = _lax()
  dimension = operator.index(dimension)
  if not all(isinstance(op, BCOO) for op in operands):
    raise ValueError("bcoo_concatenate: expected operands to be a sequence of BCOO arrays. "
                     f"Got {operands}")
  out = _eval_shape(lambda *ops: lax.concatenate(ops, dimension),
                    *[_sds(op) for op in operands])
  if len({op.n_dense for op in operands}) > 1:
    raise ValueError("bcoo_concatenate requires inputs to have matching nse dimensions.")
  operands = _align_batch(list(operands))
  if len({op.n_batch for op in operands}) != 1:
    raise ValueError("bcoo_concatenate requires inputs to have matching batch dimensions.")
  n_batch, n_sparse = operands[0].n_batch, operands[0].n_sparse
  drop = lambda s: s[:dimension] + s[dimension + 1:] if dimension < n_batch else s  # noqa
  if (len({drop(tuple(op.indices.shape[:n_batch])) for op in operands}) != 1
      or len({drop(tuple(op.data.shape[:n_batch])) for op in operands}) != 1):
    raise NotImplementedError("concatenation of arrays with broadcasted batch indices")
  if dimension < n_batch:
    nse = max(op.nse for op in operands)
    operands = [set_nse(op, nse) for op in operands]
    indices = lax.concatenate([op.indices for op in operands], dimension)
    data = lax.concatenate([op.data for op in operands], dimension)
  elif dimension < n_batch + n_sparse:
    col = dimension - n_batch
    offsets = np.cumsum([0] + [op.shape[dimension] for op in operands[:-1]])
    data = lax.concatenate([op.data for op in operands], n_batch)
    indices = lax.concatenate([op.indices.at[..., col].add(int(off))
                               for op, off in zip(operands, offsets)], n_batch)
  else:
    raise NotImplementedError("Concatenation along dense dimensions.")
  return BCOO((data, indices), shape=out.shape)


def _align_batch(operands: list) -> list:
  """``x[None]`` gives one batch dimension where other operands may have none: align them."""
  n_batches = {op.n_batch for op in operands}
  if len(n_batches) != 1 and max(n_batches) == 1:
    if all(op.shape[0] == 1 for op in operands if op.n_batch == 0):
      return [bcoo_update_layout(op, n_batch=1) if op.n_batch == 0 else op for op in operands]
    if all(op.shape[0] == 1 for op in operands if op.n_batch == 1):
      return [bcoo_update_layout(op, n_batch=0) if op.n_batch == 1 else op for op in operands]
  return operands


# --- reshapes, reversal, squeeze ---------------------------------------------------------------

def bcoo_reshape(mat: BCOO, *, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
                 sharding=None) -> BCOO:
  """``lax.reshape`` of a BCOO array; the new shape may not mix batch, sparse and dense
  dimensions (sparse ones are re-indexed, the others reshaped as arrays).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
      >>> bcoo_reshape(M, new_sizes=(4,)).indices.ravel()
      Array([1, 2], dtype=int32)
  """
  jnp, lax = _jnp(), _lax()
  del sharding
  new_sizes = tuple(int(s) for s in new_sizes)
  if tuple(mat.indices.shape[:mat.n_batch]) != tuple(mat.data.shape[:mat.n_batch]) != \
      tuple(mat.shape[:mat.n_batch]):
    raise NotImplementedError("reshape of arrays with broadcasted batch dimensions.")
  batch_shape, sparse_shape, dense_shape = split_shape(mat.shape, mat.n_batch, mat.n_sparse)
  batch_perm, sparse_perm, dense_perm = prims.validate_permutation(
      mat.data, mat.indices, dimensions or tuple(range(mat.ndim)), mat.shape)
  batch_size, sparse_size = math.prod(batch_shape), math.prod(sparse_shape)
  cumulative = np.cumprod(new_sizes)
  if batch_size != 1 and batch_size not in cumulative:
    raise ValueError("bcoo_reshape: new shape cannot mix batch and sparse dimensions; "
                     f"got shape={mat.shape} new_shape={new_sizes} with n_batch={mat.n_batch}")
  if sparse_size != 1 and batch_size * sparse_size not in cumulative:
    raise ValueError("bcoo_reshape: new shape cannot mix sparse and dense dimensions; "
                     f"got shape={mat.shape} new_shape={new_sizes} with n_dense={mat.n_dense}")
  i1 = int(cumulative.searchsorted(batch_size, side="right"))
  i2 = int(cumulative.searchsorted(batch_size * sparse_size, side="right"))
  new_batch, new_sparse, new_dense = new_sizes[:i1], new_sizes[i1:i2], new_sizes[i2:]
  nb = mat.n_batch
  data = lax.reshape(mat.data, (*new_batch, mat.nse, *new_dense),
                     (*batch_perm, nb, *(p + nb + 1 for p in dense_perm)))
  indices = lax.reshape(mat.indices, (*new_batch, mat.nse, mat.n_sparse),
                        (*batch_perm, nb, nb + 1))
  if not new_sparse:
    indices = jnp.zeros((*new_batch, mat.nse, 0), indices.dtype)
  elif sparse_shape:
    cols = tuple(indices[..., i] for i in sparse_perm)
    permuted = tuple(int(mat.shape[nb + i]) for i in sparse_perm)
    flat = jnp.ravel_multi_index(cols, permuted, mode="clip")
    oob = (indices >= jnp.array(sparse_shape, dtype=indices.dtype)).any(-1, keepdims=True)
    new_cols = jnp.unravel_index(flat, new_sparse)
    indices = jnp.stack([c.astype(indices.dtype) for c in new_cols], axis=-1)
    indices = jnp.where(oob, jnp.array(new_sparse, dtype=indices.dtype), indices)
  return BCOO((data, indices), shape=new_sizes)


def bcoo_rev(operand: BCOO, dimensions: Sequence[int]) -> BCOO:
  """``lax.rev`` of a BCOO array (sparse dimensions reversed by rewriting indices).

  Example:
      >>> import ember.numpy as jnp
      >>> bcoo_rev(BCOO.fromdense(jnp.array([1., 0., 0.])), (0,)).todense()
      Array([0., 0., 1.], dtype=float32)
  """
  jnp, lax = _jnp(), _lax()
  dimensions = tuple(dimensions)
  _eval_shape(lambda x: lax.rev(x, dimensions), _sds(operand))
  nb, ns = operand.n_batch, operand.n_sparse
  batch_dims = [d for d in dimensions if d < nb]
  sparse_dims = [d for d in dimensions if nb <= d < nb + ns]
  dense_dims = [d for d in dimensions if d >= nb + ns]
  data, indices = operand.data, operand.indices
  if batch_dims:
    indices = lax.rev(indices, tuple(batch_dims))
  if batch_dims or dense_dims:
    data = lax.rev(data, tuple(batch_dims + [d + 1 - ns for d in dense_dims]))
  if sparse_dims:
    sparse_shape = jnp.array(operand.shape[nb:nb + ns], dtype=indices.dtype)
    cols = np.array([d - nb for d in sparse_dims], dtype=np.int32)
    indices = indices.at[..., cols].mul(-1)
    indices = indices.at[..., cols].add(sparse_shape[cols] - 1)
    indices = jnp.where(indices < 0, sparse_shape, indices)
  return BCOO((data, indices), shape=operand.shape)


def bcoo_squeeze(arr: BCOO, *, dimensions: Sequence[int]) -> BCOO:
  """``lax.squeeze`` of a BCOO array.

  Example:
      >>> import ember.numpy as jnp
      >>> bcoo_squeeze(BCOO.fromdense(jnp.array([[0., 4.]])), dimensions=(0,))
      BCOO(float32[2], nse=1)
  """
  lax = _lax()
  dims = []
  for d in dimensions:
    if not -arr.ndim <= d < arr.ndim:
      raise ValueError(f"axis {d} is out of bounds for array of dimension {arr.ndim}")
    dims.append(d % arr.ndim)
  dims = tuple(dims)
  if any(arr.shape[d] != 1 for d in dims):
    raise ValueError("cannot select an axis to squeeze out which has size not equal to one, "
                     f"got shape={arr.shape} and dimensions={dims}")
  nb, ns = arr.n_batch, arr.n_sparse
  batch_dims = tuple(d for d in dims if d < nb)
  keep = np.array([i for i in range(ns) if i + nb not in dims], dtype=np.int32)
  dense_dims = tuple(d - ns + 1 for d in dims if d >= nb + ns)
  data = lax.squeeze(arr.data, batch_dims + dense_dims)
  indices = lax.squeeze(arr.indices[..., keep], batch_dims)
  shape = tuple(s for i, s in enumerate(arr.shape) if i not in dims)
  return BCOO((data, indices), shape=shape, indices_sorted=arr.indices_sorted,
              unique_indices=arr.unique_indices)


# --- slicing -----------------------------------------------------------------------------------

def _keep_entries(data, indices, n_batch: int, n_dense: int, keep, new_indices, fill):
  """Entries where ``keep`` holds get ``new_indices``; the others the ``fill`` index and zero
  data."""
  jnp, lax = _jnp(), _lax()
  indices = jnp.where(keep, new_indices, fill)
  keep_data = lax.expand_dims(keep[..., 0], tuple(range(n_batch + 1, n_batch + 1 + n_dense)))
  return jnp.where(keep_data, data, jnp.zeros((), data.dtype)), indices


def bcoo_slice(mat: BCOO, *, start_indices: Sequence[int], limit_indices: Sequence[int],
               strides: Sequence[int] | None = None) -> BCOO:
  """``lax.slice`` of a BCOO array; entries outside the slice become padding, and when the
  slice holds fewer positions than ``nse`` duplicates are summed down to that many.

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([1., 0., 3., 4.]))
      >>> bcoo_slice(M, start_indices=(1,), limit_indices=(3,)).todense()
      Array([0., 3.], dtype=float32)
  """
  jnp = _jnp()
  if not isinstance(mat, BCOO):
    raise TypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
  start = [operator.index(i) for i in start_indices]
  limit = [operator.index(i) for i in limit_indices]
  strides = [1] * mat.ndim if strides is None else [operator.index(i) for i in strides]
  if not len(start) == len(limit) == mat.ndim:
    raise ValueError(f"bcoo_slice: indices must have size mat.ndim={mat.ndim}")
  if len(strides) != mat.ndim:
    raise ValueError(f"len(strides) = {len(strides)}; expected {mat.ndim}")
  if any(s <= 0 for s in strides):
    raise ValueError(f"strides must be a sequence of positive integers; got {strides}")
  if not all(0 <= a <= b <= n for a, b, n in zip(start, limit, mat.shape)):
    raise ValueError(f"bcoo_slice: invalid indices. Got start_indices={start}, "
                     f"limit_indices={limit} and shape={mat.shape}")
  nb, ns, nd = mat.n_batch, mat.n_sparse, mat.n_dense
  data_slices, index_slices = [], []
  for i in range(nb):
    whole = slice(start[i], limit[i], strides[i])
    data_slices.append(slice(None) if mat.data.shape[i] != mat.shape[i] else whole)
    index_slices.append(slice(None) if mat.indices.shape[i] != mat.shape[i] else whole)
  data_slices.append(slice(None))
  data_slices += [slice(a, b, s) for a, b, s in zip(start[nb + ns:], limit[nb + ns:],
                                                   strides[nb + ns:])]
  data = mat.data[tuple(data_slices)]
  indices = mat.indices[tuple(index_slices + [slice(None), slice(None)])]
  shape = tuple((b - a + s - 1) // s for a, b, s in zip(start, limit, strides))
  if ns:
    as_row = lambda v: jnp.expand_dims(jnp.array(v, dtype=indices.dtype),  # noqa: E731
                                       tuple(range(nb + 1)))
    lo, hi, step = (as_row(v[nb:nb + ns]) for v in (start, limit, strides))
    keep = ((indices >= lo) & (indices < hi) & ((indices - lo) % step == 0)).all(-1,
                                                                                 keepdims=True)
    data, indices = _keep_entries(data, indices, nb, nd, keep, (indices - lo + step - 1) // step,
                                  (hi - lo + step - 1) // step)
    new_nse = math.prod(shape[nb:nb + ns])
    if mat.nse > new_nse:
      data, indices = prims.bcoo_sum_duplicates_p.bind(data, indices,
                                                       spinfo=SparseInfo(shape), nse=new_nse)
  return BCOO((data, indices), shape=shape)


def bcoo_dynamic_slice(mat: BCOO, start_indices: Sequence, slice_sizes: Sequence[int]) -> BCOO:
  """``lax.dynamic_slice`` of a BCOO array (start indices may be traced; sizes are static).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([1., 0., 3., 4.]))
      >>> bcoo_dynamic_slice(M, [jnp.int32(2)], (2,)).todense()
      Array([3., 4.], dtype=float32)
  """
  import ember
  jnp, lax = _jnp(), _lax()
  slice_sizes = tuple(operator.index(i) for i in slice_sizes)
  _eval_shape(lambda x, *s: lax.dynamic_slice(x, s, slice_sizes), _sds(mat),
              *[ember.ShapeDtypeStruct(np.shape(i), jnp.asarray(i).dtype) for i in start_indices])
  if not isinstance(mat, BCOO):
    raise TypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
  starts = tuple(jnp.asarray(i) for i in start_indices)
  nb, ns, nd = mat.n_batch, mat.n_sparse, mat.n_dense
  zero = jnp.zeros((), starts[0].dtype if starts else np.int32)
  data_start, data_sizes, index_start, index_sizes = [], [], [], []
  for i in range(nb):
    for buf, st, sz in ((mat.data, data_start, data_sizes),
                        (mat.indices, index_start, index_sizes)):
      shared = buf.shape[i] != mat.shape[i]
      st.append(zero if shared else starts[i])
      sz.append(1 if shared else slice_sizes[i])
  data_start += [zero, *starts[nb + ns:]]
  data_sizes += [mat.nse, *slice_sizes[nb + ns:]]
  index_start += [zero, zero]
  index_sizes += [mat.nse, ns]
  data = lax.dynamic_slice(mat.data, data_start, data_sizes)
  indices = lax.dynamic_slice(mat.indices, index_start, index_sizes)
  if ns:
    sizes = jnp.array(slice_sizes[nb:nb + ns], dtype=indices.dtype)
    sparse_shape = jnp.array(mat.shape[nb:nb + ns], dtype=indices.dtype)
    lo = jnp.stack([s.astype(indices.dtype) for s in starts[nb:nb + ns]])
    lo = jnp.clip(jnp.where(lo < 0, lo + sparse_shape, lo), 0, sparse_shape - sizes)
    row = lambda v: jnp.expand_dims(v, tuple(range(nb + 1)))  # noqa: E731
    lo, sizes = row(lo), row(sizes)
    keep = ((indices >= lo) & (indices < lo + sizes)).all(-1, keepdims=True)
    data, indices = _keep_entries(data, indices, nb, nd, keep, indices - lo, sizes)
    if mat.nse > math.prod(slice_sizes[nb:nb + ns]):
      data, indices = prims.bcoo_sum_duplicates_p.bind(
          data, indices, spinfo=SparseInfo(slice_sizes), nse=math.prod(slice_sizes[nb:nb + ns]))
  return BCOO((data, indices), shape=slice_sizes)


def bcoo_gather(operand: BCOO, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
                fill_value=None) -> BCOO:
  """``lax.gather`` of a BCOO array, as a vmapped ``bcoo_dynamic_slice`` (only the
  ``promise_in_bounds`` mode, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> M = BCOO.fromdense(jnp.array([1., 0., 3.]))
      >>> dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
      ...                                 start_index_map=(0,))
      >>> bcoo_gather(M, jnp.array([[2], [0]]), dn, (1,)).todense()
      Array([3., 1.], dtype=float32)
  """
  import ember
  jnp, lax = _jnp(), _lax()
  from ember.primitives.indexing import GatherScatterMode
  prims.validate_bcoo(operand.data, operand.indices, operand.shape)
  parsed = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                                      else mode)
  if parsed != GatherScatterMode.PROMISE_IN_BOUNDS:
    raise NotImplementedError(f"bcoo_gather: mode={mode} not yet supported.")
  start_indices = jnp.asarray(start_indices)
  out = _eval_shape(lambda x, i: lax.gather(
      x, i, dimension_numbers, tuple(slice_sizes), unique_indices=unique_indices,
      indices_are_sorted=indices_are_sorted, mode=parsed, fill_value=fill_value),
      _sds(operand), _sds(start_indices))
  full_starts = [jnp.zeros((), start_indices.dtype)] * operand.ndim
  in_axes = [None] * operand.ndim
  full_sizes = list(operand.shape)
  for i, j in enumerate(dimension_numbers.start_index_map):
    full_starts[j] = start_indices[..., i].ravel()
    full_sizes[j] = slice_sizes[j]
    in_axes[j] = 0
  collapsed = tuple(dimension_numbers.collapsed_slice_dims)

  def one(starts):
    piece = bcoo_dynamic_slice(operand, starts, slice_sizes=full_sizes)
    return bcoo_squeeze(piece, dimensions=collapsed)
  result = ember.vmap(one, in_axes=(in_axes,))(full_starts)
  result = bcoo_reshape(result, new_sizes=(*start_indices.shape[:-1], *result.shape[1:]),
                        dimensions=tuple(range(result.ndim)))
  offset_dims = tuple(dimension_numbers.offset_dims)
  if result.shape:
    batch_dims = tuple(d for d in range(len(out.shape)) if d not in offset_dims)
    perm = np.zeros(result.ndim, dtype=int)
    perm[np.array(batch_dims + offset_dims, dtype=int)] = np.arange(result.ndim)
    if set(perm[:len(batch_dims)]) != set(range(len(batch_dims))):
      result = bcoo_update_layout(result, n_batch=0)
    result = result.transpose(tuple(int(p) for p in perm))
  return result.reshape(out.shape).astype(out.dtype)


# --- reductions and products -------------------------------------------------------------------

def bcoo_reduce_sum(mat: BCOO, *, axes: Sequence[int]) -> BCOO:
  """The sum of a BCOO array over ``axes``, as a BCOO array (summed sparse dimensions drop
  their index column; summed batch dimensions fold into the stored entries).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([[1., 0.], [2., 3.]]))
      >>> bcoo_reduce_sum(M, axes=(0,)).todense()
      Array([3., 3.], dtype=float32)
  """
  data, indices, shape = reduce_sum_buffers(mat.data, mat.indices, spinfo=mat._info, axes=axes)
  return BCOO((data, indices), shape=shape)


def reduce_sum_buffers(data, indices, *, spinfo: SparseInfo, axes: Sequence[int]):
  jnp, lax = _jnp(), _lax()
  shape = tuple(spinfo.shape)
  if not all(0 <= a < len(shape) for a in axes):
    raise ValueError(f"bcoo_reduce_sum: axes {tuple(axes)} out of range for an array of "
                     f"{len(shape)} dimensions")
  n_batch, n_sparse, _, nse = prims.validate_bcoo(data, indices, shape)
  axes = sorted(set(axes))
  data = data.sum(tuple(a - n_sparse + 1 for a in axes if a >= n_batch + n_sparse))
  if n_sparse:  # padding entries must not count
    fill = jnp.expand_dims(jnp.array(shape[n_batch:n_batch + n_sparse], dtype=indices.dtype),
                           tuple(range(indices.ndim - 1)))
    mask = jnp.all(indices < fill, -1)
    mask = lax.expand_dims(mask, tuple(range(mask.ndim, data.ndim)))
    data = jnp.where(mask, data, jnp.zeros((), data.dtype))
  kept = [i for i in range(n_sparse) if i + n_batch not in axes]
  if not kept:
    indices = jnp.zeros(tuple(indices.shape[:-1]) + (0,), indices.dtype)
  else:
    indices = indices[..., np.array(kept, dtype=np.int32)]
  batch_axes = [a for a in axes if a < n_batch]
  for a in batch_axes:
    if data.shape[a] == 1:
      if indices.shape[a] == 1:
        data = data * shape[a]
      else:
        target = tuple(indices.shape[a] if i == a else s for i, s in enumerate(data.shape))
        data = lax.broadcast_in_dim(data, target, tuple(range(data.ndim)))
    elif indices.shape[a] == 1:  # shared indices: their data sums
      data = data.sum(a, keepdims=True)
  kept_batch = [i for i in range(n_batch) if i not in batch_axes]
  new_batch = tuple(data.shape[i] for i in kept_batch)
  new_nse = nse * math.prod(data.shape[a] for a in batch_axes)
  order = (*kept_batch, *batch_axes)
  data = lax.reshape(data, (*new_batch, new_nse, *data.shape[n_batch + 1:]),
                     (*order, *range(n_batch, data.ndim)))
  indices = lax.reshape(indices, (*new_batch, new_nse, *indices.shape[n_batch + 1:]),
                        (*order, *range(n_batch, indices.ndim)))
  return data, indices, tuple(s for i, s in enumerate(shape) if i not in axes)


def bcoo_multiply_sparse(lhs: BCOO, rhs: BCOO) -> BCOO:
  """The elementwise product of two BCOO arrays (broadcasting as ``lax.mul``), as a BCOO array
  of the positions both store.

  Example:
      >>> import ember.numpy as jnp
      >>> A = BCOO.fromdense(jnp.array([1., 2., 0.]))
      >>> B = BCOO.fromdense(jnp.array([0., 3., 4.]))
      >>> bcoo_multiply_sparse(A, B).todense()
      Array([0., 6., 0.], dtype=float32)
  """
  lhs_shape, rhs_shape = lhs.shape, rhs.shape
  if len(lhs_shape) != len(rhs_shape):
    raise TypeError("bcoo_multiply_sparse: arrays must have same number of dimensions, "
                    f"got {lhs_shape}, {rhs_shape}")
  if lhs.n_dense != rhs.n_dense:
    raise NotImplementedError("bcoo_multiply_sparse: arrays with differing numbers of dense "
                              f"dimensions: {lhs}, {rhs}")
  n_batch = min(lhs.n_batch, rhs.n_batch)

  def one(ld, li, rd, ri):
    return _multiply_unbatched(ld, li, rd, ri, lhs_shape[n_batch:], rhs_shape[n_batch:])
  data, indices = nfold_vmap(one, n_batch)(lhs.data, lhs.indices, rhs.data, rhs.indices)
  return BCOO((data, indices), shape=tuple(np.broadcast_shapes(lhs_shape, rhs_shape)))


def _multiply_unbatched(lhs_data, lhs_indices, rhs_data, rhs_indices, lhs_shape, rhs_shape):
  """Every pair of entries whose indices agree (on dimensions neither broadcasts)."""
  jnp = _jnp()
  lhs, rhs = (BCOO((lhs_data, lhs_indices), shape=lhs_shape),
              BCOO((rhs_data, rhs_indices), shape=rhs_shape))
  if lhs.n_batch:
    lhs = bcoo_update_layout(lhs, n_batch=0)
  elif rhs.n_batch:
    rhs = bcoo_update_layout(rhs, n_batch=0)
  dims = np.array([i for i, (a, b) in enumerate(zip(lhs_shape[:lhs.n_sparse],
                                                    rhs_shape[:rhs.n_sparse]))
                   if a != 1 and b != 1], dtype=np.int32)
  nse = lhs.nse * rhs.nse
  mask = jnp.all(lhs.indices[:, None, dims] == rhs.indices[None, :, dims], -1)
  i_lhs, i_rhs = jnp.nonzero(mask, size=nse, fill_value=(lhs.nse, rhs.nse))
  data = (lhs.data.at[i_lhs].get(mode="fill", fill_value=0)
          * rhs.data.at[i_rhs].get(mode="fill", fill_value=0))
  indices = jnp.maximum(
      lhs.indices.at[i_lhs].get(mode="fill", fill_value=max(lhs_shape, default=0)),
      rhs.indices.at[i_rhs].get(mode="fill", fill_value=max(rhs_shape, default=0)))
  return data, indices


def bcoo_multiply_dense(sp_mat: BCOO, v):
  """The elementwise product of a BCOO array and a dense array that broadcasts to its shape:
  the data of the BCOO result (same indices).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCOO.fromdense(jnp.array([1., 0., 2.]))
      >>> bcoo_multiply_dense(M, jnp.array([10., 20., 30.]))
      Array([10., 60.], dtype=float32)
  """
  return multiply_dense_buffers(sp_mat.data, sp_mat.indices, _jnp().asarray(v),
                                spinfo=sp_mat._info)


def multiply_dense_buffers(data, indices, v, *, spinfo: SparseInfo):
  lax = _lax()
  shape = tuple(spinfo.shape)
  if v.ndim == 0:
    return lax.mul(data, v)
  if shape == tuple(v.shape):  # products distribute over repeated indices
    return lax.mul(data, prims.bcoo_extract_p.bind(indices, v, assume_unique=True))
  if tuple(np.broadcast_shapes(v.shape, shape)) != shape:
    raise NotImplementedError(
        "multiplication between sparse and dense is only implemented for cases where the "
        f"output shape matches the sparse matrix shape. Got shape={shape}, v.shape={v.shape}")
  v = lax.expand_dims(v, tuple(range(len(shape) - v.ndim)))
  n_batch, n_sparse, n_dense, _ = prims.validate_bcoo(data, indices, shape)

  def one(d, i, w):
    cols = [i[:, k] for k in range(n_sparse)]
    return d * w[tuple(c if w.shape[k] != 1 else 0 for k, c in enumerate(cols))]
  return nfold_vmap(one, n_batch)(data, indices, v)


def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None,
                              rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                              batch_group_count=1, precision=None, preferred_element_type=None,
                              out_sharding=None) -> BCOO:
  """``lax.conv_general_dilated`` with sparse operands: one-dimensional, one batch and feature,
  unit strides and dilations (what JAX implements).

  Example:
      >>> import ember.numpy as jnp
      >>> x = BCOO.fromdense(jnp.array([[[1., 0., 2.]]]))
      >>> out = bcoo_conv_general_dilated(x, jnp.array([[[1., 1.]]]), window_strides=(1,),
      ...                                 padding="VALID")
      >>> out.todense()
      Array([[[1., 2.]]], dtype=float32)
  """
  import ember
  lax = _lax()
  closed = ember.make_jaxpr(lambda a, b: lax.conv_general_dilated(
      a, b, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
      rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
      feature_group_count=feature_group_count, batch_group_count=batch_group_count,
      precision=precision, preferred_element_type=preferred_element_type))(
          _sds(lhs), _sds(rhs))
  params = closed.eqns[-1].params
  ones = (1,) * (lhs.ndim - 2)
  if tuple(params["lhs_dilation"]) != ones or tuple(params["rhs_dilation"]) != (1,) * (
      rhs.ndim - 2):
    raise NotImplementedError("bcoo convolution with lhs_dilation.")
  if tuple(params["window_strides"]) != ones:
    raise NotImplementedError("bcoo convolution with non-unit window_strides.")
  if params["batch_group_count"] != 1 or params["feature_group_count"] != 1:
    raise NotImplementedError("bcoo convolution with non-unit group counts.")
  if tuple(lhs.shape[:2]) != (1, 1) or tuple(rhs.shape[:2]) != (1, 1):
    raise NotImplementedError("bcoo convolution with leading dimensions other than (1, 1)")
  if lhs.ndim != 3:
    raise NotImplementedError("bcoo convolution in more than one spatial dimension")
  index_dtype = getattr(lhs, "indices", getattr(rhs, "indices", None))
  index_dtype = np.int32 if index_dtype is None else index_dtype.dtype
  (pad,) = params["padding"]
  return _conv_1d(_as_1d(lhs, index_dtype), _as_1d(rhs, index_dtype), tuple(map(int, pad)))


def _as_1d(mat, index_dtype) -> BCOO:
  jnp, lax = _jnp(), _lax()
  if isinstance(mat, BCOO):
    mat = mat.update_layout(n_batch=2, n_dense=0)
    data, indices = lax.squeeze(mat.data, (0, 1)), lax.squeeze(mat.indices, (0, 1))
    data = jnp.where(lax.squeeze(indices, (1,)) < mat.shape[-1], data,
                     jnp.zeros((), data.dtype))
  else:
    data = lax.squeeze(jnp.asarray(mat), (0, 1))
    indices = lax.broadcasted_iota(index_dtype, (len(data), 1), 0)
  return BCOO((data, indices), shape=mat.shape[2:])


def _conv_1d(lhs: BCOO, rhs: BCOO, padding: tuple) -> BCOO:
  """Every pair of entries contributes its product at ``i - j + padding[0]`` (entries that
  land before the start are dropped)."""
  jnp, lax = _jnp(), _lax()
  data = (lhs.data[:, None] * rhs.data[None, :]).ravel()
  where = (lhs.indices[:, None] + (padding[0] - rhs.indices)[None, :]).ravel()
  before = where < 0
  where = jnp.where(before, 0, where)
  data = jnp.where(before, jnp.zeros((), data.dtype), data)
  size = max(0, lhs.shape[0] + padding[0] + padding[1] - rhs.shape[0] + 1)
  return BCOO((lax.expand_dims(data, (0, 1)), lax.expand_dims(where, (0, 1, 3))),
              shape=(1, 1, size))

