"""The BCOO primitives on buffers: conversions and index maintenance.

A BCOO array of shape ``batch + sparse + dense`` is stored as ``data`` of shape
``batch + (nse,) + dense`` and ``indices`` of shape ``batch + (nse, n_sparse)``; a batch
dimension of either buffer may have size 1 (it is then shared by every batch). Padding entries
carry out-of-bounds indices (the sparse shape itself): conversions to dense drop them and
extraction reads them as zero.

- ``bcoo_todense`` (``data, indices``; ``spinfo``): scatter-add of the entries into zeros.
- ``bcoo_fromdense`` (``mat``; ``nse, n_batch, n_dense, index_dtype``; two results): the first
  ``nse`` nonzero positions of each batch in row-major order, padded.
- ``bcoo_extract`` (``indices, arr``; ``assume_unique``): gather of ``arr`` at the indices
  (with ``assume_unique=False`` a repeated index reads its value once, at its first place).
- ``bcoo_transpose`` (``data, indices``; ``permutation, spinfo``; two results): permutes batch
  axes among themselves, sparse index columns, and dense axes.
- ``bcoo_sort_indices`` / ``bcoo_sum_duplicates`` (``data, indices``; ``spinfo`` [, ``nse``]):
  lexicographic sort of each batch's indices (a stable sort carrying a permutation), and the
  sorted unique indices with the data of repeated ones summed.

Autodiff: every one is linear in its data (the indices are integers with float0 tangents):
todense, fromdense, extract and transpose have transpose rules (todense and extract transpose to
each other); sort and sum_duplicates differentiate through the gather / scatter-add their jvp
writes. Batching: the vmapped axis becomes a new leading batch dimension of the buffers.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.sparse.util import SparseInfo
    >>> bcoo_todense_p.bind(jnp.array([1., 2.]), jnp.array([[0], [2]]),
    ...                     spinfo=SparseInfo((3,)))
    Array([1., 0., 2.], dtype=float32)
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.experimental.sparse.util import SparseInfo, nfold_vmap
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, defjvp, is_undefined, tangent_aval

__all__ = ["bcoo_todense_p", "bcoo_fromdense_p", "bcoo_extract_p", "bcoo_transpose_p",
           "bcoo_sort_indices_p", "bcoo_sum_duplicates_p"]


class BCOOProperties(NamedTuple):
  n_batch: int
  n_sparse: int
  n_dense: int
  nse: int


# --- shared checks and helpers ----------------------------------------------------------------

def validate_bcoo_indices(indices, shape: Sequence[int]) -> BCOOProperties:
  """The layout that ``indices`` (an array or aval) gives an array of ``shape``."""
  shape = tuple(shape)
  if not dtypes.is_integer(indices.dtype):
    raise TypeError(f"BCOO indices must have an integer dtype, got {indices.dtype}")
  if len(indices.shape) < 2:
    raise ValueError(f"BCOO indices must have at least 2 dimensions (nse, n_sparse), got "
                     f"indices.shape={tuple(indices.shape)}")
  nse, n_sparse = indices.shape[-2:]
  n_batch = len(indices.shape) - 2
  n_dense = len(shape) - n_batch - n_sparse
  if n_dense < 0:
    raise ValueError(f"Invalid indices.shape={tuple(indices.shape)} for shape={shape}: "
                     f"n_batch={n_batch} plus n_sparse={n_sparse} exceeds its {len(shape)} "
                     "dimensions")
  if any(s1 not in (1, s2) for s1, s2 in zip(indices.shape[:n_batch], shape[:n_batch])):
    raise ValueError(f"indices batch dimensions not compatible for "
                     f"indices.shape={tuple(indices.shape)}, shape={shape}")
  return BCOOProperties(n_batch, n_sparse, n_dense, nse)


def validate_bcoo(data, indices, shape: Sequence[int]) -> BCOOProperties:
  """The layout of the BCOO buffers ``(data, indices)`` for ``shape``; ValueError if they do
  not describe such an array."""
  props = validate_bcoo_indices(indices, shape)
  n_batch, n_sparse, n_dense, nse = props
  shape = tuple(shape)
  if any(s1 not in (1, s2) for s1, s2 in zip(data.shape[:n_batch], shape[:n_batch])):
    raise ValueError(f"data batch dimensions not compatible for data.shape={tuple(data.shape)}, "
                     f"shape={shape}")
  if tuple(data.shape[n_batch:]) != (nse,) + shape[n_batch + n_sparse:]:
    raise ValueError(f"Invalid data.shape={tuple(data.shape)} for nse={nse}, n_batch={n_batch}, "
                     f"n_dense={n_dense}")
  return props


def broadcast_batch(x, batch_shape: tuple):
  """``x`` with its leading batch dimensions (size 1 or full) broadcast to ``batch_shape``."""
  from ember import lax
  n = len(batch_shape)
  shape = tuple(x.shape)
  if shape[:n] == tuple(batch_shape):
    return x
  return lax.broadcast_in_dim(x, tuple(batch_shape) + shape[n:], tuple(range(len(shape))))


def batch_grid(batch_shape: tuple, nse: int) -> list:
  """For each batch dimension, its position for every stored entry (shape ``batch + (nse,)``)."""
  from ember import lax
  shape = tuple(batch_shape) + (nse,)
  return [lax.broadcasted_iota(np.int32, shape, d) for d in range(len(batch_shape))]


def unbroadcast(aval: ShapedArray, x):
  """``x`` summed over the dimensions ``aval`` has size 1 where ``x`` is longer."""
  from ember import lax
  dims = tuple(d for d, (a, b) in enumerate(zip(aval.shape, x.shape)) if a == 1 and b != 1)
  if not dims:
    return x
  return lax.expand_dims(x.sum(dims, dtype=x.dtype), dims)


def batch_dims_to_front(vals, dims, spinfo: SparseInfo, batch_size: int | None = None):
  """Batched ``(data, indices)`` with the vmapped axis as a new leading batch dimension (size 1
  for an unbatched buffer), and the matching SparseInfo."""
  from ember import lax
  from ember.transforms.batching import moveaxis
  (data, indices), (data_dim, indices_dim) = vals, dims
  n_batch = indices.ndim - 2 + (indices_dim is None)
  if not all(d is None or 0 <= d < n_batch for d in dims):
    raise NotImplementedError("batch_dims must be None or satisfy 0 < dim < n_batch. "
                              f"Got batch_dims={tuple(dims)} for n_batch={n_batch}.")
  front = [lax.expand_dims(x, (0,)) if d is None else moveaxis(x, d, 0)
           for x, d in ((data, data_dim), (indices, indices_dim))]
  if batch_size is None:
    batch_size = max(x.shape[d] for x, d in ((data, data_dim), (indices, indices_dim))
                     if d is not None)
  info = SparseInfo((batch_size, *spinfo.shape), spinfo.indices_sorted, spinfo.unique_indices)
  return front[0], front[1], info


def _multiple(impl):
  return lower_fun(impl, multiple_results=True)


def _index_zero(indices) -> Zero:
  return Zero(tangent_aval(get_aval(indices)))


# --- bcoo_todense ------------------------------------------------------------------------------

def _todense_abstract_eval(data, indices, *, spinfo):
  validate_bcoo(data, indices, spinfo.shape)
  return ShapedArray(tuple(spinfo.shape), data.dtype)


def todense_impl(data, indices, *, spinfo):
  """Scatter-add of the entries into zeros; out-of-bounds (padding) entries are dropped."""
  import ember.numpy as jnp
  shape = tuple(spinfo.shape)
  n_batch, n_sparse, _, nse = validate_bcoo(data, indices, shape)
  batch_shape = shape[:n_batch]
  data = broadcast_batch(data, batch_shape)
  if n_sparse == 0:  # every entry stands for the one dense block of its batch
    return jnp.sum(data, axis=n_batch, dtype=data.dtype)
  indices = broadcast_batch(indices, batch_shape)
  cols = [indices[..., i] for i in range(n_sparse)]
  where = tuple(batch_grid(batch_shape, nse) + cols)
  return jnp.zeros(shape, data.dtype).at[where].add(data, mode="drop")


def _todense_transpose(ct, data, indices, *, spinfo):
  if is_undefined(indices):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [Zero(data.aval), None]
  return [unbroadcast(data.aval, bcoo_extract_p.bind(indices, ct, assume_unique=True)), None]


def _todense_batch(axis, vals, dims, *, spinfo):
  data, indices, info = batch_dims_to_front(vals, dims, spinfo)
  return bcoo_todense_p.bind(data, indices, spinfo=info), 0


bcoo_todense_p = Primitive("bcoo_todense")
bcoo_todense_p.def_rules(abstract_eval=_todense_abstract_eval, lower=lower_fun(todense_impl),
                         transpose=_todense_transpose, batch=_todense_batch)
defjvp(bcoo_todense_p,
       lambda t, data, indices, *, spinfo: bcoo_todense_p.bind(t, indices, spinfo=spinfo), None)


# --- bcoo_fromdense ----------------------------------------------------------------------------

def _fromdense_shapes(mat, nse: int, n_batch: int, n_dense: int):
  n_sparse = mat.ndim - n_batch - n_dense
  if n_batch < 0 or n_dense < 0 or n_sparse < 0:
    raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for an array of "
                     f"{mat.ndim} dimensions")
  if nse < 0:
    raise ValueError(f"nse must be non-negative, got nse={nse}")
  data_shape = mat.shape[:n_batch] + (nse,) + mat.shape[n_batch + n_sparse:]
  return data_shape, mat.shape[:n_batch] + (nse, n_sparse)


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
  data_shape, index_shape = _fromdense_shapes(mat, nse, n_batch, n_dense)
  return [ShapedArray(data_shape, mat.dtype), ShapedArray(index_shape, np.dtype(index_dtype))]


def _nonzero_positions(mask, nse: int, index_dtype):
  """The first ``nse`` true positions of ``mask`` (row-major) as an ``(nse, ndim)`` array,
  padded with ``mask.shape``."""
  import ember.numpy as jnp
  fill = tuple(int(s) for s in mask.shape)
  cols = jnp.nonzero(mask, size=nse, fill_value=fill)
  return jnp.stack([c.astype(index_dtype) for c in cols], axis=-1)


def fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
  import ember.numpy as jnp
  from ember import lax
  n_sparse = mat.ndim - n_batch - n_dense
  mask = mat != 0
  if n_dense:
    mask = mask.any(tuple(range(mask.ndim - n_dense, mask.ndim)))
  if n_sparse == 0:
    indices = jnp.zeros(mask.shape[:n_batch] + (nse, 0), index_dtype)
  else:
    find = lambda m: _nonzero_positions(m, nse, index_dtype)  # noqa: E731
    indices = nfold_vmap(find, n_batch, broadcasted=False)(mask)
  data = extract_impl(indices, mat, assume_unique=True)
  count = mask.sum(tuple(range(n_batch, mask.ndim)))[..., None]
  stored = lax.broadcasted_iota(count.dtype, (1,) * n_batch + (nse,), n_batch) < count
  stored = lax.expand_dims(stored, tuple(range(n_batch + 1, n_batch + 1 + n_dense)))
  return [jnp.where(stored, data, jnp.zeros((), data.dtype)), indices]


def _fromdense_jvp(primals, tangents, *, nse, n_batch, n_dense, index_dtype):
  (mat,), (mat_dot,) = primals, tangents
  data, indices = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                        index_dtype=index_dtype)
  data_dot = (Zero(tangent_aval(get_aval(data))) if type(mat_dot) is Zero
              else bcoo_extract_p.bind(indices, mat_dot, assume_unique=True))
  return [data, indices], [data_dot, _index_zero(indices)]


def _fromdense_transpose(ct, mat, *, nse, n_batch, n_dense, index_dtype):
  data_ct, indices = ct
  if type(indices) is Zero:
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(data_ct) is Zero:
    return [Zero(mat.aval)]
  return [bcoo_todense_p.bind(data_ct, indices, spinfo=SparseInfo(mat.aval.shape))]


def _fromdense_batch(axis, vals, dims, *, nse, n_batch, n_dense, index_dtype):
  (mat,), (d,) = vals, dims
  if not 0 <= d <= n_batch:
    raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={d}, n_batch={n_batch}")
  outs = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                               index_dtype=index_dtype)
  return outs, [d, d]


def _pp_fromdense(params: dict) -> dict:
  """JAX prints ``index_dtype`` as the Python object it was given (``<class 'numpy.int32'>``)."""
  out = dict(sorted(params.items()))
  out["index_dtype"] = _Shown(params["index_dtype"])
  return out


class _Shown:
  """A param value printed by its ``str``, as JAX prints params it does not format itself."""

  def __init__(self, value):
    self.value = value

  def __str__(self):
    value = self.value
    if isinstance(value, type) and value.__module__ == "ember.numpy":  # jnp's scalar types
      return f"<class 'jax.numpy.{value.__name__}'>"
    return str(value)


bcoo_fromdense_p = Primitive("bcoo_fromdense", multiple_results=True)
bcoo_fromdense_p.def_rules(abstract_eval=_fromdense_abstract_eval, lower=_multiple(fromdense_impl),
                           jvp=_fromdense_jvp, transpose=_fromdense_transpose,
                           batch=_fromdense_batch)
bcoo_fromdense_p.def_rules(pp_params=_pp_fromdense)


# --- bcoo_extract ------------------------------------------------------------------------------

def _extract_abstract_eval(indices, arr, *, assume_unique):
  n_batch, _, n_dense, nse = validate_bcoo_indices(indices, arr.shape)
  out_shape = arr.shape[:n_batch] + (nse,) + arr.shape[arr.ndim - n_dense:]
  return ShapedArray(out_shape, arr.dtype)


def first_occurrences(indices, sparse_shape: tuple):
  """For one batch's ``(nse, n_sparse)`` indices, whether each entry is the first with its
  index (out-of-bounds entries all count as one index)."""
  import ember.numpy as jnp
  _, _, perm, is_new = _sorted_rows(indices, sparse_shape)
  return jnp.zeros(is_new.shape, bool).at[perm].set(is_new)


def extract_impl(indices, arr, *, assume_unique):
  import ember.numpy as jnp
  from ember import lax
  n_batch, n_sparse, n_dense, nse = validate_bcoo_indices(indices, arr.shape)
  batch_shape = tuple(arr.shape[:n_batch])
  if n_sparse == 0:  # each entry is the whole dense block; repeats read it once
    block = lax.expand_dims(arr, (n_batch,))
    out_shape = batch_shape + (nse,) + tuple(arr.shape[n_batch:])
    out = lax.broadcast_in_dim(block, out_shape, tuple(range(len(out_shape))))
    if not assume_unique and nse > 1:
      first = lax.broadcasted_iota(np.int32, (1,) * n_batch + (nse,), n_batch) == 0
      out = jnp.where(lax.expand_dims(first, tuple(range(n_batch + 1, out.ndim))), out,
                      jnp.zeros((), out.dtype))
    return out
  full = broadcast_batch(indices, batch_shape)
  cols = [full[..., i] for i in range(n_sparse)]
  where = tuple(batch_grid(batch_shape, nse) + cols)
  out = arr.at[where].get(mode="fill", fill_value=0)
  if not assume_unique:
    sparse_shape = tuple(arr.shape[n_batch:n_batch + n_sparse])
    first = nfold_vmap(lambda i: first_occurrences(i, sparse_shape), n_batch,
                       broadcasted=False)(full)
    first = lax.expand_dims(first, tuple(range(n_batch + 1, n_batch + 1 + n_dense)))
    out = jnp.where(first, out, jnp.zeros((), out.dtype))
  return out


def _extract_transpose(ct, indices, arr, *, assume_unique):
  if not assume_unique:
    raise NotImplementedError("transpose of bcoo_extract with assume_unique=False")
  if is_undefined(indices):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [None, Zero(arr.aval)]
  return [None, bcoo_todense_p.bind(ct, indices, spinfo=SparseInfo(arr.aval.shape))]


def _extract_batch(axis, vals, dims, *, assume_unique):
  from ember import lax
  from ember.transforms.batching import moveaxis
  (indices, arr), (di, da) = vals, dims
  if di is None:
    n_batch = indices.ndim - 2
    if da > n_batch:  # the vmapped axis of arr must become a batch axis
      arr, da = moveaxis(arr, da, 0), 0
    indices, d = lax.expand_dims(indices, (da,)), da
  elif da is None:
    d = di
    shape = list(arr.shape)
    shape.insert(d, indices.shape[d])
    arr = lax.broadcast_in_dim(arr, tuple(shape), tuple(i for i in range(len(shape)) if i != d))
  else:
    if di != da:
      arr = moveaxis(arr, da, di)
    d = di
  if d >= indices.ndim - 2:
    raise ValueError(f"batch_dims={tuple(dims)} out of range for indices with "
                     f"n_batch={indices.ndim - 2}")
  return bcoo_extract_p.bind(indices, arr, assume_unique=assume_unique), d


bcoo_extract_p = Primitive("bcoo_extract")
bcoo_extract_p.def_rules(abstract_eval=_extract_abstract_eval, lower=lower_fun(extract_impl),
                         transpose=_extract_transpose, batch=_extract_batch)
defjvp(bcoo_extract_p, None,
       lambda t, indices, arr, *, assume_unique: bcoo_extract_p.bind(
           indices, t, assume_unique=assume_unique))


# --- bcoo_transpose ----------------------------------------------------------------------------

def validate_permutation(data, indices, permutation, shape):
  """The batch, sparse and dense parts of ``permutation`` (each permuting only its own kind of
  dimension)."""
  if not isinstance(permutation, (tuple, list, np.ndarray)):
    raise TypeError("transpose permutation must be a tuple/list/ndarray, got "
                    f"{type(permutation)}.")
  if tuple(sorted(permutation)) != tuple(range(len(shape))):
    raise TypeError("transpose permutation isn't a permutation of operand dimensions, "
                    f"got permutation {permutation} for shape {shape}.")
  n_batch, n_sparse, n_dense, _ = validate_bcoo(data, indices, shape)
  batch_perm = tuple(permutation[:n_batch])
  sparse_perm = tuple(p - n_batch for p in permutation[n_batch:n_batch + n_sparse])
  dense_perm = tuple(p - n_sparse - n_batch for p in permutation[n_batch + n_sparse:])
  if n_batch and tuple(sorted(batch_perm)) != tuple(range(n_batch)):
    raise NotImplementedError("transpose permutation cannot permute batch axes with non-batch "
                              f"axes; got permutation {permutation}, with n_batch={n_batch}.")
  if n_dense and tuple(sorted(dense_perm)) != tuple(range(n_dense)):
    raise NotImplementedError("transpose permutation cannot permute dense axes with non-dense "
                              f"axes; got permutation {permutation}, with n_dense={n_dense}.")
  return batch_perm, sparse_perm, dense_perm


def _data_perm(batch_perm, dense_perm) -> tuple:
  n_batch = len(batch_perm)
  return (*batch_perm, n_batch, *(d + n_batch + 1 for d in dense_perm))


def _transpose_abstract_eval(data, indices, *, permutation, spinfo):
  batch_perm, _, dense_perm = validate_permutation(data, indices, permutation, spinfo.shape)
  n_batch = len(batch_perm)
  index_shape = tuple(indices.shape[p] for p in (*batch_perm, n_batch, n_batch + 1))
  data_shape = tuple(data.shape[p] for p in _data_perm(batch_perm, dense_perm))
  return [ShapedArray(data_shape, data.dtype), ShapedArray(index_shape, indices.dtype)]


def transpose_impl(data, indices, *, permutation, spinfo):
  from ember import lax
  batch_perm, sparse_perm, dense_perm = validate_permutation(data, indices, permutation,
                                                             spinfo.shape)
  n_batch = len(batch_perm)
  if sparse_perm != tuple(range(len(sparse_perm))):
    indices = indices[..., np.array(sparse_perm, dtype=np.int32)]
  indices = lax.transpose(indices, (*batch_perm, n_batch, n_batch + 1))
  return [lax.transpose(data, _data_perm(batch_perm, dense_perm)), indices]


def _transpose_jvp(primals, tangents, *, permutation, spinfo):
  (data, indices), (data_dot, _) = primals, tangents
  outs = bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo)
  if type(data_dot) is Zero:
    return outs, [Zero(tangent_aval(get_aval(outs[0]))), _index_zero(outs[1])]
  dot, _ = bcoo_transpose_p.bind(data_dot, indices, permutation=permutation, spinfo=spinfo)
  return outs, [dot, _index_zero(outs[1])]


def _transpose_transpose(ct, data, indices, *, permutation, spinfo):
  from ember import lax
  data_ct, _ = ct
  if is_undefined(indices):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(data_ct) is Zero:
    return [Zero(data.aval), None]
  batch_perm, _, dense_perm = validate_permutation(data.aval, indices, permutation,
                                                   spinfo.shape)
  inverse = tuple(int(i) for i in np.argsort(_data_perm(batch_perm, dense_perm)))
  return [lax.transpose(data_ct, inverse), None]


def _transpose_batch(axis, vals, dims, *, permutation, spinfo):
  from ember import lax
  data, indices, info = batch_dims_to_front(vals, dims, spinfo)
  perm = (0, *(p + 1 for p in permutation))
  outs = bcoo_transpose_p.bind(data, indices, permutation=perm, spinfo=info)
  out_dims = [None if d is None else 0 for d in dims]
  return [lax.squeeze(x, (0,)) if d is None else x for x, d in zip(outs, out_dims)], out_dims


bcoo_transpose_p = Primitive("bcoo_transpose", multiple_results=True)
bcoo_transpose_p.def_rules(abstract_eval=_transpose_abstract_eval,
                           lower=_multiple(transpose_impl), jvp=_transpose_jvp,
                           transpose=_transpose_transpose, batch=_transpose_batch)


# --- sorting and de-duplicating indices --------------------------------------------------------

def _sorted_rows(indices, sparse_shape: tuple):
  """One batch's ``(nse, n_sparse)`` indices with out-of-bounds rows set to ``sparse_shape``,
  sorted lexicographically: ``(rows, fill, perm, is_new)`` where ``perm`` is the stable sorting
  permutation and ``is_new`` marks the sorted rows that differ from the previous one."""
  import ember.numpy as jnp
  from ember import lax
  nse, n_sparse = indices.shape
  fill = jnp.array(sparse_shape, dtype=indices.dtype)
  oob = (indices >= fill[None, :]).any(-1, keepdims=True)
  rows = jnp.where(oob, fill[None, :], indices)
  *cols, perm = lax.sort((*(rows[:, i] for i in range(n_sparse)),
                          lax.iota(np.int32, nse)), num_keys=n_sparse)
  rows = jnp.stack(cols, axis=-1)
  if nse == 0:
    return rows, fill, perm, jnp.zeros((0,), bool)
  differs = (rows[1:] != rows[:-1]).any(-1)
  is_new = jnp.concatenate([jnp.ones((1,), bool), differs])
  return rows, fill, perm, is_new


def unique_rows(indices, sparse_shape: tuple):
  """One batch's sorted unique indices (padded with the fill row), each entry's position among
  them, and the number of in-bounds unique indices."""
  import ember.numpy as jnp
  nse = indices.shape[0]
  rows, fill, perm, is_new = _sorted_rows(indices, sparse_shape)
  group = jnp.cumsum(is_new.astype(np.int32)) - 1
  inverse = jnp.zeros((nse,), np.int32).at[perm].set(group)
  unique = jnp.broadcast_to(fill, rows.shape).at[group].set(rows, mode="drop")
  has_fill = (rows == fill[None, :]).all(-1).any()
  count = is_new.sum() - has_fill.astype(np.int32)
  return unique, inverse, count


def sort_permutation(indices, sparse_shape: tuple):
  """One batch's indices sorted lexicographically, and the permutation that sorts them."""
  import ember.numpy as jnp
  from ember import lax
  del sparse_shape
  n_sparse = indices.shape[-1]
  *cols, perm = lax.sort((*(indices[:, i] for i in range(n_sparse)),
                          lax.iota(indices.dtype, indices.shape[0])), num_keys=n_sparse)
  return jnp.stack(cols, axis=-1), perm


def _out_batch(data, indices, n_batch: int) -> tuple:
  return tuple(max(a, b) for a, b in zip(indices.shape[:n_batch], data.shape[:n_batch]))


def _sort_indices_abstract_eval(data, indices, *, spinfo):
  n_batch, n_sparse, _, nse = validate_bcoo(data, indices, spinfo.shape)
  if n_sparse == 0:
    return [data, indices]
  shape = _out_batch(data, indices, n_batch) + (nse,) + tuple(data.shape[n_batch + 1:])
  return [ShapedArray(shape, data.dtype, data.weak_type), indices]


def _permute_data(data, perm, n_batch: int):
  """``data`` reordered along its nse axis by each batch's permutation ``perm``."""
  import ember.numpy as jnp
  from ember import lax
  batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], perm.shape[:n_batch]))
  data, perm = broadcast_batch(data, batch), broadcast_batch(perm, batch)
  perm = lax.expand_dims(perm, tuple(range(n_batch + 1, data.ndim)))
  perm = jnp.broadcast_to(perm, perm.shape[:n_batch + 1] + tuple(data.shape[n_batch + 1:]))
  return jnp.take_along_axis(data, perm, axis=n_batch)


def _sorted(data, indices, spinfo):
  n_batch = indices.ndim - 2
  sparse_shape = tuple(spinfo.shape[n_batch:n_batch + indices.shape[-1]])
  find = lambda i: sort_permutation(i, sparse_shape)  # noqa: E731
  return nfold_vmap(find, n_batch, broadcasted=False)(indices)


def sort_indices_impl(data, indices, *, spinfo):
  n_batch, n_sparse, _, _ = validate_bcoo(data, indices, spinfo.shape)
  if n_sparse == 0:
    return [data, indices]
  indices, perm = _sorted(data, indices, spinfo)
  return [_permute_data(data, perm, n_batch), indices]


def _sort_indices_jvp(primals, tangents, *, spinfo):
  (data, indices), (data_dot, _) = primals, tangents
  n_batch, n_sparse, _, _ = validate_bcoo(data, indices, spinfo.shape)
  if n_sparse == 0:
    return list(primals), [data_dot, _index_zero(indices)]
  indices_out, perm = _sorted(data, indices, spinfo)
  data_out = _permute_data(data, perm, n_batch)
  dot = (Zero(tangent_aval(get_aval(data_out))) if type(data_dot) is Zero
         else _permute_data(data_dot, perm, n_batch))
  return [data_out, indices_out], [dot, _index_zero(indices_out)]


def _dedup_batch_rule(prim):
  """Batching of sort_indices / sum_duplicates: the vmapped axis leads; indices that were not
  batched stay unbatched (data always comes out batched)."""
  from ember import lax

  def rule(axis, vals, dims, **params):
    data, indices, info = batch_dims_to_front(vals, dims, params["spinfo"])
    data_out, indices_out = prim.bind(data, indices, **dict(params, spinfo=info))
    if dims[1] is None:
      return [data_out, lax.squeeze(indices_out, (0,))], [0, None]
    return [data_out, indices_out], [0, 0]
  return rule


bcoo_sort_indices_p = Primitive("bcoo_sort_indices", multiple_results=True)
bcoo_sort_indices_p.def_rules(abstract_eval=_sort_indices_abstract_eval,
                              lower=_multiple(sort_indices_impl), jvp=_sort_indices_jvp,
                              batch=_dedup_batch_rule(bcoo_sort_indices_p))
bcoo_sort_indices_p.def_unsupported("transpose", "it is differentiated through its jvp")


def _sum_duplicates_abstract_eval(data, indices, *, spinfo, nse):
  if nse is None:
    raise ValueError("bcoo_sum_duplicates: nse must be specified when using the function within "
                     "jit, vmap, and other transformations requiring abstract evaluation.")
  n_batch, n_sparse, _, _ = validate_bcoo(data, indices, spinfo.shape)
  indices_out = ShapedArray(tuple(indices.shape[:n_batch]) + (nse, n_sparse), indices.dtype,
                            indices.weak_type)
  data_shape = _out_batch(data, indices, n_batch) + (nse,) + tuple(data.shape[n_batch + 1:])
  return [ShapedArray(data_shape, data.dtype, data.weak_type), indices_out]


def unique_indices(indices, shape: tuple):
  """Per batch: the sorted unique indices, each entry's place among them, and their count."""
  import ember.numpy as jnp
  n_batch, n_sparse, _, nse = validate_bcoo_indices(indices, shape)
  if n_sparse == 0:
    batch = tuple(indices.shape[:n_batch])
    return (jnp.zeros(batch + (1, 0), indices.dtype), jnp.zeros(batch + (nse,), np.int32),
            jnp.ones(batch, np.int32))
  sparse_shape = tuple(shape[n_batch:n_batch + n_sparse])
  find = lambda i: unique_rows(i, sparse_shape)  # noqa: E731
  return nfold_vmap(find, n_batch, broadcasted=False)(indices)


def adjust_nse(indices, nse: int, shape: tuple):
  """``indices`` cut or padded (with the out-of-bounds fill row) to ``nse`` entries."""
  import ember.numpy as jnp
  from ember import lax
  n_batch, n_sparse, _, current = validate_bcoo_indices(indices, shape)
  if nse <= current:
    return indices[..., :nse, :]
  fill = jnp.array(shape[n_batch:n_batch + n_sparse], dtype=indices.dtype)
  pad = lax.broadcast_in_dim(fill, tuple(indices.shape[:-2]) + (nse - current, n_sparse),
                             (indices.ndim - 1,))
  return lax.concatenate([indices, pad], indices.ndim - 2)


def _sum_into(data, inverse, nse: int, n_batch: int):
  """``data`` summed into ``nse`` slots along its entry axis, entry ``i`` of each batch going
  to slot ``inverse[..., i]`` (slots past ``nse`` are dropped)."""
  import ember.numpy as jnp
  batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], inverse.shape[:n_batch]))
  data, inverse = broadcast_batch(data, batch), broadcast_batch(inverse, batch)
  out = jnp.zeros(batch + (nse,) + tuple(data.shape[n_batch + 1:]), data.dtype)
  if out.size == 0:
    return out
  where = tuple(batch_grid(batch, inverse.shape[-1]) + [inverse])
  return out.at[where].add(data, mode="drop")


def _dedup(data, indices, spinfo, nse):
  """The sum_duplicates outputs and the slot map applied to the data."""
  n_batch, n_sparse, _, _ = validate_bcoo(data, indices, spinfo.shape)
  unique, inverse, _ = unique_indices(indices, tuple(spinfo.shape))
  indices_out = adjust_nse(unique, nse, tuple(spinfo.shape))

  def move(d):
    if n_sparse == 0:
      d = d.sum(n_batch, keepdims=True, dtype=d.dtype)
    return _sum_into(d, inverse[..., :d.shape[n_batch]], nse, n_batch)
  return move, indices_out


def sum_duplicates_impl(data, indices, *, spinfo, nse):
  move, indices_out = _dedup(data, indices, spinfo, nse)
  return [move(data), indices_out]


def _sum_duplicates_jvp(primals, tangents, *, spinfo, nse):
  (data, indices), (data_dot, _) = primals, tangents
  move, indices_out = _dedup(data, indices, spinfo, nse)
  data_out = move(data)
  dot = Zero(tangent_aval(get_aval(data_out))) if type(data_dot) is Zero else move(data_dot)
  return [data_out, indices_out], [dot, _index_zero(indices_out)]


bcoo_sum_duplicates_p = Primitive("bcoo_sum_duplicates", multiple_results=True)
bcoo_sum_duplicates_p.def_rules(abstract_eval=_sum_duplicates_abstract_eval,
                                lower=_multiple(sum_duplicates_impl), jvp=_sum_duplicates_jvp,
                                batch=_dedup_batch_rule(bcoo_sum_duplicates_p))
bcoo_sum_duplicates_p.def_unsupported("transpose", "it is differentiated through its jvp")


def count_unique(indices, shape: tuple) -> int:
  """The largest number of in-bounds unique indices over the batches (concrete indices)."""
  n_batch, n_sparse, _, _ = validate_bcoo_indices(indices, shape)
  if n_sparse == 0:
    return 1
  _, _, count = unique_indices(indices, shape)
  return int(np.max(np.asarray(count), initial=0))

