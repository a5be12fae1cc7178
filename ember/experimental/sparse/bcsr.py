"""BCSR: batched compressed-sparse-row arrays (two sparse dimensions, rows compressed).

A ``BCSR`` of shape ``batch + (rows, cols) + dense`` holds ``data`` (``batch + (nse,) +
dense``), ``indices`` (``batch + (nse,)``, the column of each entry) and ``indptr`` (``batch +
(rows + 1,)``: row ``i``'s entries are ``indptr[i]:indptr[i+1]``). Its primitives
(``bcsr_fromdense``, ``bcsr_todense``, ``bcsr_extract``, ``bcsr_dot_general``) convert the row
pointers to BCOO row indices and reuse the BCOO implementations; they have the same jvp,
transpose and batching rules as their BCOO counterparts.

Example:
    >>> import ember.numpy as jnp
    >>> M = BCSR.fromdense(jnp.array([[0., 1.], [2., 3.]]))
    >>> M.indices, M.indptr
    (Array([1, 0, 1], dtype=int32), Array([0, 1, 3], dtype=int32))
"""
from __future__ import annotations

import operator
from typing import NamedTuple, Sequence

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.experimental.sparse import _bcoo_prims as prims
from ember.experimental.sparse import bcoo
from ember.experimental.sparse._base import JAXSparse
from ember.experimental.sparse._bcoo_dot import (
    _dot_general_abstract_eval, _dot_general_transpose, batch_dot_dims, dot_general_impl)
from ember.experimental.sparse.util import (
    SparseInfo, count_stored_elements, csr_to_coo, nfold_vmap, split_shape)
from ember.numpy import int32 as _int32  # the default index dtype, as JAX's jnp.int32
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, defjvp, is_undefined, tangent_aval

__all__ = ["BCSR", "bcsr_fromdense", "bcsr_todense", "bcsr_extract", "bcsr_dot_general",
           "bcsr_broadcast_in_dim", "bcsr_concatenate", "bcsr_sum_duplicates",
           "bcsr_eliminate_zeros", "bcsr_fromdense_p", "bcsr_todense_p", "bcsr_extract_p",
           "bcsr_dot_general_p"]

_TRACED_NSE_ERROR = """
The error arose for the nse argument of bcsr_fromdense. In order for
BCSR.fromdense() to be used in traced/compiled code, you must pass a concrete
value to the nse (number of stored elements) argument.
"""


class BCSRProperties(NamedTuple):
  n_batch: int
  n_dense: int
  nse: int


def _compatible(a, b) -> bool:
  return all(x in (1, y) for x, y in zip(a, b))


def validate_bcsr_indices(indices, indptr, shape) -> BCSRProperties:
  from ember import dtypes
  shape = tuple(shape)
  if not (dtypes.is_integer(indices.dtype) and dtypes.is_integer(indptr.dtype)):
    raise TypeError("BCSR indices and indptr must have integer dtypes, got "
                    f"{indices.dtype} and {indptr.dtype}")
  nse, n_batch = indices.shape[-1], indices.ndim - 1
  n_dense = len(shape) - n_batch - 2
  if n_dense < 0:
    raise ValueError(f"Invalid indices.shape={tuple(indices.shape)} for shape={shape}")
  if not _compatible(indices.shape[:n_batch], shape[:n_batch]):
    raise ValueError("indices batch dimensions not compatible for "
                     f"indices.shape={tuple(indices.shape)}, shape={shape}")
  if not _compatible(indptr.shape[:n_batch], shape[:n_batch]):
    raise ValueError("indptr batch dimensions not compatible for "
                     f"indptr.shape={tuple(indptr.shape)}, shape={shape}")
  if tuple(indptr.shape[n_batch:]) != (shape[n_batch] + 1,):
    raise ValueError("indptr shape must match the matrix shape plus 1.")
  return BCSRProperties(n_batch, n_dense, nse)


def validate_bcsr(data, indices, indptr, shape) -> BCSRProperties:
  props = validate_bcsr_indices(indices, indptr, shape)
  shape = tuple(shape)
  n_batch, n_dense, nse = props
  if len(shape) - n_batch - n_dense != 2:
    raise ValueError("BCSR array must have 2 sparse dimensions; "
                     f"{len(shape) - n_batch - n_dense} is given.")
  if not _compatible(data.shape[:n_batch], shape[:n_batch]):
    raise ValueError(f"data batch dimensions not compatible for data.shape={tuple(data.shape)}, "
                     f"shape={shape}")
  if tuple(data.shape[data.ndim - n_dense - 1:]) != (nse,) + shape[n_batch + 2:]:
    raise ValueError(f"Invalid data.shape={tuple(data.shape)} for nse={nse}, n_batch={n_batch}, "
                     f"n_dense={n_dense}")
  return props


def bcsr_to_bcoo_indices(indices, indptr, *, shape):
  """BCOO ``(row, col)`` indices of BCSR ``(indices, indptr)``."""
  import ember.numpy as jnp
  n_batch, _, _ = validate_bcsr_indices(indices, indptr, shape)
  rows_cols = nfold_vmap(csr_to_coo, n_batch)(indices, indptr)
  return jnp.stack(rows_cols, axis=indices.ndim)


def bcoo_to_bcsr_indices(indices, *, shape, index_dtype):
  """BCSR ``(indices, indptr)`` of BCOO indices sorted within each batch."""
  import ember.numpy as jnp
  n_batch, n_sparse, _, _ = prims.validate_bcoo_indices(indices, shape)
  if n_sparse != 2:
    raise ValueError("Must have 2 sparse dimensions to be converted to BCSR.")
  n_rows = shape[n_batch]

  def pointers(rows):
    counts = jnp.zeros(n_rows, index_dtype).at[rows].add(1, mode="drop")
    return jnp.zeros(n_rows + 1, index_dtype).at[1:].set(jnp.cumsum(counts).astype(index_dtype))
  return indices[..., 1], nfold_vmap(pointers, n_batch, broadcasted=False)(indices[..., 0])


def _batch_to_front(vals, dims, spinfo, batch_size=None):
  from ember import lax
  from ember.transforms.batching import moveaxis
  n_batch = vals[1].ndim - 1 + (dims[1] is None)
  if not all(d is None or 0 <= d < n_batch for d in dims):
    raise NotImplementedError("batch_dims must be None or satisfy 0 < dim < n_batch. "
                              f"Got batch_dims={tuple(dims)} for n_batch={n_batch}.")
  front = [lax.expand_dims(x, (0,)) if d is None else moveaxis(x, d, 0)
           for x, d in zip(vals, dims)]
  if batch_size is None:
    batch_size = max(x.shape[d] for x, d in zip(vals, dims) if d is not None)
  info = SparseInfo((batch_size, *spinfo.shape), spinfo.indices_sorted, spinfo.unique_indices)
  return (*front, info)


def _index_zero(x) -> Zero:
  return Zero(tangent_aval(get_aval(x)))


# --- bcsr_fromdense ----------------------------------------------------------------------------

def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
  if mat.ndim - n_batch - n_dense != 2:
    raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
  data, _ = prims._fromdense_abstract_eval(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                           index_dtype=index_dtype)
  dt = np.dtype(index_dtype)
  return [data, ShapedArray(mat.shape[:n_batch] + (nse,), dt),
          ShapedArray(mat.shape[:n_batch] + (mat.shape[n_batch] + 1,), dt)]


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
  if mat.ndim - n_batch - n_dense != 2:
    raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
  data, indices = prims.fromdense_impl(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                       index_dtype=index_dtype)
  cols, indptr = bcoo_to_bcsr_indices(indices, shape=mat.shape, index_dtype=index_dtype)
  return [data, cols, indptr]


def _fromdense_jvp(primals, tangents, **params):
  (mat,), (mat_dot,) = primals, tangents
  data, indices, indptr = bcsr_fromdense_p.bind(mat, **params)
  dot = (Zero(tangent_aval(get_aval(data))) if type(mat_dot) is Zero
         else bcsr_extract_p.bind(indices, indptr, mat_dot))
  return [data, indices, indptr], [dot, _index_zero(indices), _index_zero(indptr)]


def _fromdense_transpose(ct, mat, **params):
  data, indices, indptr = ct
  if type(indices) is Zero or type(indptr) is Zero:
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(data) is Zero:
    return [Zero(mat.aval)]
  return [bcsr_todense_p.bind(data, indices, indptr, spinfo=SparseInfo(mat.aval.shape))]


def _fromdense_batch(axis, vals, dims, *, nse, n_batch, n_dense, index_dtype):
  (mat,), (d,) = vals, dims
  if not 0 <= d <= n_batch:
    raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={d}, n_batch={n_batch}")
  outs = bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                               index_dtype=index_dtype)
  return outs, [d, d, d]


bcsr_fromdense_p = Primitive("bcsr_fromdense", multiple_results=True)
bcsr_fromdense_p.def_rules(abstract_eval=_fromdense_abstract_eval,
                           lower=lower_fun(_fromdense_impl, multiple_results=True),
                           jvp=_fromdense_jvp, transpose=_fromdense_transpose,
                           batch=_fromdense_batch)
bcsr_fromdense_p.def_rules(pp_params=prims._pp_fromdense)


# --- bcsr_todense and bcsr_extract -------------------------------------------------------------

def _todense_abstract_eval(data, indices, indptr, *, spinfo):
  validate_bcsr(data, indices, indptr, spinfo.shape)
  return ShapedArray(tuple(spinfo.shape), data.dtype)


def _todense_impl(data, indices, indptr, *, spinfo):
  coo = bcsr_to_bcoo_indices(indices, indptr, shape=spinfo.shape)
  return prims.todense_impl(data, coo, spinfo=SparseInfo(tuple(spinfo.shape)))


def _todense_transpose(ct, data, indices, indptr, *, spinfo):
  if is_undefined(indices) or is_undefined(indptr):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  return [prims.unbroadcast(data.aval, bcsr_extract_p.bind(indices, indptr, ct)), None, None]


def _todense_batch(axis, vals, dims, *, spinfo):
  data, indices, indptr, info = _batch_to_front(vals, dims, spinfo)
  return bcsr_todense_p.bind(data, indices, indptr, spinfo=info), 0


bcsr_todense_p = Primitive("bcsr_todense")
bcsr_todense_p.def_rules(abstract_eval=_todense_abstract_eval, lower=lower_fun(_todense_impl),
                         transpose=_todense_transpose, batch=_todense_batch)
defjvp(bcsr_todense_p, lambda t, data, indices, indptr, *, spinfo: bcsr_todense_p.bind(
    t, indices, indptr, spinfo=spinfo), None, None)


def _extract_abstract_eval(indices, indptr, mat):
  n_batch, n_dense, nse = validate_bcsr_indices(indices, indptr, mat.shape)
  return ShapedArray(mat.shape[:n_batch] + (nse,) + mat.shape[mat.ndim - n_dense:], mat.dtype)


def _extract_impl(indices, indptr, mat):
  coo = bcsr_to_bcoo_indices(indices, indptr, shape=mat.shape)
  return prims.extract_impl(coo, mat, assume_unique=True)


def _extract_transpose(ct, indices, indptr, mat):
  if is_undefined(indices) or is_undefined(indptr):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [None, None, Zero(mat.aval)]
  return [None, None, bcsr_todense_p.bind(ct, indices, indptr,
                                          spinfo=SparseInfo(mat.aval.shape))]


def _extract_batch(axis, vals, dims):
  from ember import lax
  indices, indptr, mat = vals
  bdims = {d for d in dims if d is not None}
  if len(bdims) != 1:
    raise NotImplementedError("bcoo_extract with unequal batch dimensions.")
  d = bdims.pop()
  if dims[0] is None:
    indices = lax.expand_dims(indices, (d,))
  if dims[1] is None:
    indptr = lax.expand_dims(indptr, (d,))
  if dims[2] is None:
    shape = list(mat.shape)
    shape.insert(d, max(indices.shape[d], indptr.shape[d]))
    mat = lax.broadcast_in_dim(mat, tuple(shape), tuple(i for i in range(len(shape)) if i != d))
  if d >= indices.ndim - 1:
    raise ValueError(f"batch_dims={tuple(dims)} out of range for indices with "
                     f"n_batch={indices.ndim - 1}")
  return bcsr_extract_p.bind(indices, indptr, mat), d


bcsr_extract_p = Primitive("bcsr_extract")
bcsr_extract_p.def_rules(abstract_eval=_extract_abstract_eval, lower=lower_fun(_extract_impl),
                         transpose=_extract_transpose, batch=_extract_batch)
defjvp(bcsr_extract_p, None, None,
       lambda t, indices, indptr, mat: bcsr_extract_p.bind(indices, indptr, t))


# --- bcsr_dot_general --------------------------------------------------------------------------

def _dot_abstract_eval(lhs_data, lhs_indices, lhs_indptr, rhs, *, dimension_numbers,
                       preferred_element_type, lhs_spinfo):
  n_batch = validate_bcsr(lhs_data, lhs_indices, lhs_indptr, lhs_spinfo.shape).n_batch
  fake = ShapedArray(tuple(lhs_indices.shape[:n_batch]) + (lhs_indices.shape[-1], 2),
                     lhs_indices.dtype)
  return _dot_general_abstract_eval(lhs_data, fake, rhs, dimension_numbers=dimension_numbers,
                                    preferred_element_type=preferred_element_type,
                                    lhs_spinfo=lhs_spinfo)


def _dot_impl(lhs_data, lhs_indices, lhs_indptr, rhs, **params):
  coo = bcsr_to_bcoo_indices(lhs_indices, lhs_indptr, shape=params["lhs_spinfo"].shape)
  return dot_general_impl(lhs_data, coo, rhs, **params)


def _dot_transpose(ct, lhs_data, lhs_indices, lhs_indptr, rhs, **params):
  if is_undefined(lhs_indices) or is_undefined(lhs_indptr):
    raise ValueError("Cannot transpose with respect to sparse indices")
  coo = bcsr_to_bcoo_indices(lhs_indices, lhs_indptr, shape=params["lhs_spinfo"].shape)
  data_ct, _, rhs_ct = _dot_general_transpose(ct, lhs_data, coo, rhs, **params)
  return [data_ct, None, None, rhs_ct]


def _dot_batch(axis, vals, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
  rhs, rhs_dim = vals[3], dims[3]
  size = None if rhs_dim is None else rhs.shape[rhs_dim]
  data, indices, indptr, info = _batch_to_front(vals[:3], dims[:3], lhs_spinfo, size)
  dn, out_dim = batch_dot_dims(dimension_numbers, rhs_dim)
  return bcsr_dot_general_p.bind(data, indices, indptr, rhs, dimension_numbers=dn,
                                 preferred_element_type=preferred_element_type,
                                 lhs_spinfo=info), out_dim


bcsr_dot_general_p = Primitive("bcsr_dot_general")
bcsr_dot_general_p.def_rules(abstract_eval=_dot_abstract_eval, lower=lower_fun(_dot_impl),
                             transpose=_dot_transpose, batch=_dot_batch)
defjvp(bcsr_dot_general_p,
       lambda t, d, i, p, rhs, **k: bcsr_dot_general_p.bind(t, i, p, rhs, **k), None, None,
       lambda t, d, i, p, rhs, **k: bcsr_dot_general_p.bind(d, i, p, t, **k))


# --- the array class and its functions ---------------------------------------------------------

class BCSR(JAXSparse):
  """Batched CSR sparse array: ``data``, ``indices`` (columns) and ``indptr`` (row pointers).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCSR((jnp.array([1., 2.]), jnp.array([1, 0]), jnp.array([0, 1, 2])), shape=(2, 2))
      >>> M.todense()
      Array([[0., 1.],
             [2., 0.]], dtype=float32)
  """

  def __init__(self, args, *, shape: Sequence[int], indices_sorted: bool = False,
               unique_indices: bool = False):
    import ember.numpy as jnp
    self.data, self.indices, self.indptr = map(jnp.asarray, args)
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices
    super().__init__(args, shape=shape)
    validate_bcsr(self.data, self.indices, self.indptr, self.shape)

  _bufs = property(lambda self: (self.data, self.indices, self.indptr))
  _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted,
                                           self.unique_indices))
  nse = property(lambda self: self.indices.shape[-1])
  dtype = property(lambda self: self.data.dtype)
  n_batch = property(lambda self: self.indices.ndim - 1)
  n_sparse = property(lambda self: 2)
  n_dense = property(lambda self: self.data.ndim - self.indices.ndim)
  _sparse_shape = property(lambda self: tuple(self.shape[self.n_batch:self.n_batch + 2]))

  def _repr_extra(self) -> str:
    extra = f", nse={self.nse}"
    if self.n_batch:
      extra += f", n_batch={self.n_batch}"
    if self.n_dense:
      extra += f", n_dense={self.n_dense}"
    return extra

  def transpose(self, *args, **kwargs):
    raise NotImplementedError("Transpose is not implemented.")

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), self._info._asdict()

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    obj = object.__new__(cls)
    obj.data, obj.indices, obj.indptr = children
    if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
      raise ValueError(f"BCSR.tree_unflatten: invalid aux_data={aux_data}")
    obj.__dict__.update(**aux_data)
    return obj

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
    import ember.numpy as jnp
    shape = tuple(shape)
    if n_dense < 0 or n_batch < 0 or nse < 0:
      raise ValueError(f"Invalid inputs: shape={shape}, n_dense={n_dense}, n_batch={n_batch}, "
                       f"nse={nse}")
    if len(shape) - n_dense - n_batch != 2:
      raise ValueError("BCSR sparse.empty: must have 2 sparse dimensions.")
    batch, sparse, dense = split_shape(shape, n_batch, 2)
    data = jnp.zeros((*batch, nse, *dense), dtype)
    indices = jnp.full((*batch, nse), jnp.array(sparse[1]), index_dtype)
    indptr = jnp.zeros((*batch, sparse[0] + 1), index_dtype)
    return cls((data, indices, indptr), shape=shape)

  def sum_duplicates(self, nse: int | None = None, remove_zeros: bool = True) -> "BCSR":
    """The array with repeated entries summed (and, by default, explicit zeros removed).

    Example:
        >>> import ember.numpy as jnp
        >>> BCSR.fromdense(jnp.eye(2), nse=3).sum_duplicates().nse
        2
    """
    if remove_zeros:
      return bcsr_eliminate_zeros(self, nse=nse)
    return bcsr_sum_duplicates(self, nse=nse)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0) -> "BCSR":
    """The BCSR array of the nonzero entries of ``mat`` (``bcsr_fromdense``).

    Example:
        >>> import ember.numpy as jnp
        >>> BCSR.fromdense(jnp.eye(3))
        BCSR(float32[3, 3], nse=3)
    """
    return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  def todense(self):
    """The dense array.

    Example:
        >>> import ember.numpy as jnp
        >>> BCSR.fromdense(jnp.array([[0., 2.]])).todense()
        Array([[0., 2.]], dtype=float32)
    """
    return bcsr_todense(self)

  def to_bcoo(self) -> bcoo.BCOO:
    """The same array as BCOO.

    Example:
        >>> import ember.numpy as jnp
        >>> BCSR.fromdense(jnp.eye(2)).to_bcoo().indices
        Array([[0, 0],
               [1, 1]], dtype=int32)
    """
    coo = bcsr_to_bcoo_indices(self.indices, self.indptr, shape=self.shape)
    return bcoo.BCOO((self.data, coo), shape=self.shape)

  @classmethod
  def from_bcoo(cls, arr: bcoo.BCOO) -> "BCSR":
    """A BCOO array with two sparse dimensions as BCSR (its indices sorted first if need be).

    Example:
        >>> import ember.numpy as jnp
        >>> BCSR.from_bcoo(bcoo.BCOO.fromdense(jnp.eye(2)))
        BCSR(float32[2, 2], nse=2)
    """
    if arr.n_sparse != 2:
      raise NotImplementedError(f"BSCR.from_bcoo requires n_sparse=2; got arr.n_sparse="
                                f"{arr.n_sparse}")
    if not arr.indices_sorted:
      arr = arr.sort_indices()
    indices, indptr = bcoo_to_bcsr_indices(arr.indices, shape=arr.shape,
                                           index_dtype=arr.indices.dtype)
    return cls((arr.data, indices, indptr), shape=arr.shape)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0) -> "BCSR":
    """A BCSR array from a 2-D ``scipy.sparse`` array.

    Example:
        >>> import scipy.sparse
        >>> BCSR.from_scipy_sparse(scipy.sparse.eye(2, dtype="float32"))
        BCSR(float32[2, 2], nse=2)
    """
    import ember.numpy as jnp
    if n_dense != 0 or n_batch != 0:
      raise NotImplementedError("BCSR from_scipy_sparse with nonzero n_dense/n_batch.")
    if mat.ndim != 2:
      raise ValueError(f"BCSR from_scipy_sparse requires 2D array; {mat.ndim}D is given.")
    mat = mat.tocsr()
    dt = index_dtype or jnp.int32
    return cls((jnp.asarray(mat.data), jnp.asarray(mat.indices).astype(dt),
                jnp.asarray(mat.indptr).astype(dt)), shape=mat.shape)


def _bcsr_to_elt(cont, _, val: BCSR, axis):
  if axis is None:
    return val
  if axis >= val.n_batch:
    raise ValueError(f"Cannot map in_axis={axis} for BCSR array with n_batch={val.n_batch}. "
                     "in_axes for batched BCSR operations must correspond to a batched "
                     "dimension.")
  return BCSR((cont(val.data, axis), cont(val.indices, axis), cont(val.indptr, axis)),
              shape=val.shape[:axis] + val.shape[axis + 1:])


def _bcsr_from_elt(cont, axis_size, elt: BCSR, axis):
  if axis is None:
    return elt
  if axis > elt.n_batch:
    raise ValueError(f"BCSR: cannot add out_axis={axis} for BCSR array with "
                     f"n_batch={elt.n_batch}. BCSR batch axes must be a contiguous block of "
                     "leading dimensions.")
  return BCSR(tuple(cont(axis_size, b, axis) for b in (elt.data, elt.indices, elt.indptr)),
              shape=elt.shape[:axis] + (axis_size,) + elt.shape[axis:])


def _register():
  from ember.pytree import register_pytree_node
  from ember.transforms.batching import register_vmappable
  register_pytree_node(BCSR, lambda m: m.tree_flatten(), BCSR.tree_unflatten)
  register_vmappable(BCSR, int, int, _bcsr_to_elt, _bcsr_from_elt, None)


_register()


def bcsr_fromdense(mat, *, nse: int | None = None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=_int32) -> BCSR:
  """The BCSR array of the nonzero entries of ``mat`` (two sparse dimensions after
  ``n_batch``); ``nse`` as in ``bcoo_fromdense``.

  Example:
      >>> import ember.numpy as jnp
      >>> bcsr_fromdense(jnp.array([[1., 0.], [0., 2.]])).indptr
      Array([0, 1, 2], dtype=int32)
  """
  import ember.numpy as jnp
  mat = jnp.asarray(mat)
  count = count_stored_elements(mat, n_batch, n_dense) if nse is None else nse
  nse = bcoo.concrete_index(count, _TRACED_NSE_ERROR)
  bufs = bcsr_fromdense_p.bind(mat, nse=nse, n_batch=operator.index(n_batch),
                               n_dense=operator.index(n_dense),
                               index_dtype=jnp.int32 if index_dtype is None else index_dtype)
  return BCSR(bufs, shape=mat.shape)


def bcsr_todense(mat: BCSR):
  """The dense array of a BCSR array.

  Example:
      >>> import ember.numpy as jnp
      >>> bcsr_todense(BCSR.fromdense(jnp.array([[0., 3.]])))
      Array([[0., 3.]], dtype=float32)
  """
  import ember.numpy as jnp
  return bcsr_todense_p.bind(jnp.asarray(mat.data), jnp.asarray(mat.indices),
                             jnp.asarray(mat.indptr), spinfo=mat._info)


def bcsr_extract(indices, indptr, mat):
  """The values of the dense ``mat`` at BCSR ``(indices, indptr)``: the data of a BCSR array.

  Example:
      >>> import ember.numpy as jnp
      >>> bcsr_extract(jnp.array([1]), jnp.array([0, 1]), jnp.array([[5., 6.]]))
      Array([6.], dtype=float32)
  """
  import ember.numpy as jnp
  return bcsr_extract_p.bind(jnp.asarray(indices), jnp.asarray(indptr), jnp.asarray(mat))


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """``lax.dot_general`` of a BCSR lhs and a dense rhs (the only sparse case JAX implements).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCSR.fromdense(jnp.array([[1., 0.], [0., 2.]]))
      >>> bcsr_dot_general(M, jnp.array([1., 1.]), dimension_numbers=(([1], [0]), ([], [])))
      Array([1., 2.], dtype=float32)
  """
  import ember.numpy as jnp
  from ember import lax
  from ember.core.trace import Tracer
  del precision, out_sharding
  dense = (np.ndarray, Tracer) + _array_types()
  if isinstance(rhs, dense):
    if isinstance(lhs, dense):
      return lax.dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                             preferred_element_type=preferred_element_type)
    if isinstance(lhs, BCSR):
      dims = bcoo._dims_tuple(dimension_numbers)
      return bcsr_dot_general_p.bind(
          jnp.asarray(lhs.data), jnp.asarray(lhs.indices), jnp.asarray(lhs.indptr),
          jnp.asarray(rhs), dimension_numbers=dims,
          preferred_element_type=bcoo._preferred(preferred_element_type), lhs_spinfo=lhs._info)
  raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and ndarray "
                            "rhs.")


def _array_types() -> tuple:
  from ember.backend.array import ArrayImpl
  return (ArrayImpl,)


def bcsr_broadcast_in_dim(mat: BCSR, *, shape, broadcast_dimensions: Sequence[int],
                          sharding=None) -> BCSR:
  """``lax.broadcast_in_dim`` of a BCSR array (through BCOO).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCSR.fromdense(jnp.eye(2))
      >>> bcsr_broadcast_in_dim(M, shape=(3, 2, 2), broadcast_dimensions=(1, 2))
      BCSR(float32[3, 2, 2], nse=2, n_batch=1)
  """
  from ember.experimental.sparse._bcoo_ops import bcoo_broadcast_in_dim
  return BCSR.from_bcoo(bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape,
                                              broadcast_dimensions=broadcast_dimensions))


def bcsr_concatenate(operands: Sequence[BCSR], *, dimension: int) -> BCSR:
  """``lax.concatenate`` of BCSR arrays along a batch or sparse dimension (through BCOO).

  Example:
      >>> import ember.numpy as jnp
      >>> M = BCSR.fromdense(jnp.eye(2))
      >>> bcsr_concatenate([M, M], dimension=0).todense().shape
      (4, 2)
  """
  from ember.experimental.sparse._bcoo_ops import bcoo_concatenate
  return BCSR.from_bcoo(bcoo_concatenate([m.to_bcoo() for m in operands], dimension=dimension))


def bcsr_sum_duplicates(mat: BCSR, nse: int | None = None) -> BCSR:
  """A BCSR array with repeated entries summed (``bcoo_sum_duplicates`` through BCOO).

  Example:
      >>> import ember.numpy as jnp
      >>> bcsr_sum_duplicates(BCSR.fromdense(jnp.eye(2), nse=3)).nse
      2
  """
  return BCSR.from_bcoo(bcoo.bcoo_sum_duplicates(mat.to_bcoo(), nse=nse))


def bcsr_eliminate_zeros(mat: BCSR, nse: int | None = None) -> BCSR:
  """A BCSR array without explicitly stored zeros.

  Example:
      >>> import ember.numpy as jnp
      >>> bcsr_eliminate_zeros(BCSR.fromdense(jnp.eye(2), nse=3)).nse
      2
  """
  return BCSR.from_bcoo(bcoo.bcoo_eliminate_zeros(mat.to_bcoo(), nse=nse))


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
