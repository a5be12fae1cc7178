"""The BCOO contraction primitives (``dot_general`` with a sparse operand).

- ``bcoo_dot_general`` (``lhs_data, lhs_indices, rhs``; ``dimension_numbers,
  preferred_element_type, lhs_spinfo``): sparse x dense -> dense. Every stored entry gathers the
  slice of ``rhs`` its coordinates select (batch and contracting dimensions), multiplies it
  with its data block, and the products are scatter-added at the entry's free coordinates.
  Batch dimensions of the contraction must be batch dimensions of the BCOO layout; dense
  dimensions may not be contracted (JAX's NotImplementedErrors).
- ``bcoo_dot_general_sampled`` (``A, B, indices``; ``dimension_numbers``): dense x dense ->
  BCOO data, ``dot_general(A, B)`` computed only at ``indices`` (each entry gathers its rows
  of ``A`` and ``B`` and contracts them). It is the cotangent of ``bcoo_dot_general``'s data.
- ``bcoo_spdot_general`` (two BCOO operands, two results): sparse x sparse -> BCOO, every pair
  of entries whose contracting indices agree multiplied, then duplicates summed.

Autodiff: the first two are bilinear with transpose rules; ``bcoo_spdot_general`` has a jvp
only (as in JAX, reverse mode through it is refused). Batching: the vmapped axis becomes a
leading batch dimension of the sparse operand and, when the dense operand is batched too, a
batch dimension of the contraction.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.sparse.util import SparseInfo
    >>> bcoo_dot_general_p.bind(jnp.array([1., 2.]), jnp.array([[0, 1], [1, 0]]), jnp.ones(2),
    ...     dimension_numbers=(((1,), (0,)), ((), ())), preferred_element_type=None,
    ...     lhs_spinfo=SparseInfo((2, 2)))
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.experimental.sparse import _bcoo_prims as prims
from ember.experimental.sparse.util import SparseInfo, nfold_vmap
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, defjvp, is_undefined, tangent_aval

__all__ = ["bcoo_dot_general_p", "bcoo_dot_general_sampled_p", "bcoo_spdot_general_p"]


def _dense_dot_aval(lhs_shape, lhs_dtype, rhs: ShapedArray, dimension_numbers, preferred):
  from ember.primitives.linalg import _dot_general_abstract_eval
  lhs = ShapedArray(tuple(lhs_shape), lhs_dtype)
  rhs = ShapedArray(tuple(rhs.shape), rhs.dtype)
  return _dot_general_abstract_eval(lhs, rhs, dimension_numbers=dimension_numbers, precision=None,
                                    preferred_element_type=preferred)


def _remaining(n: int, *used) -> list[int]:
  taken = {d for group in used for d in group}
  return [d for d in range(n) if d not in taken]


def _entry_coords(indices, batch_shape: tuple) -> list:
  """For every stored entry (flattened over batch and nse), its coordinate along each batch and
  sparse dimension."""
  nse, n_sparse = indices.shape[-2:]
  full = prims.broadcast_batch(indices, batch_shape)
  coords = prims.batch_grid(batch_shape, nse) + [full[..., i] for i in range(n_sparse)]
  return [c.reshape(-1) for c in coords]


def _gather_rows(x, dims: list, coords: list, count: int):
  """``x`` read at ``coords`` (``count`` entries) along ``dims`` (zero where out of bounds):
  shape ``(count,) + rest`` with ``rest`` the other dimensions in order."""
  from ember import lax
  rest = _remaining(x.ndim, dims)
  xt = lax.transpose(x, tuple(dims) + tuple(rest))
  if dims:
    return xt.at[tuple(coords)].get(mode="fill", fill_value=0), rest
  return lax.broadcast_in_dim(xt, (count,) + tuple(xt.shape), tuple(range(1, xt.ndim + 1))), rest


# --- bcoo_dot_general --------------------------------------------------------------------------

def _dot_general_abstract_eval(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                               preferred_element_type, lhs_spinfo):
  out = _dense_dot_aval(lhs_spinfo.shape, lhs_data.dtype, rhs, dimension_numbers,
                        preferred_element_type)
  (lhs_contracting, _), (lhs_batch, _) = dimension_numbers
  n_batch, n_sparse, _, _ = prims.validate_bcoo(lhs_data, lhs_indices, lhs_spinfo.shape)
  if lhs_batch and max(lhs_batch) >= n_batch:
    raise NotImplementedError(
        "bcoo_dot_general batch dimensions must be among the batch dimensions in the sparse "
        f"representation.\ngot lhs_batch={tuple(lhs_batch)}, n_batch={n_batch}")
  if any(d >= n_batch + n_sparse for d in lhs_contracting):
    raise NotImplementedError("bcoo_dot_general: contracting over dense dimensions.")
  return ShapedArray(out.shape, out.dtype)


def dot_general_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type,
                     lhs_spinfo):
  import ember.numpy as jnp
  from ember import lax
  shape = tuple(lhs_spinfo.shape)
  n_batch, n_sparse, _, _ = prims.validate_bcoo(lhs_data, lhs_indices, shape)
  out = _dot_general_abstract_eval(get_aval(lhs_data), get_aval(lhs_indices), get_aval(rhs),
                                   dimension_numbers=dimension_numbers,
                                   preferred_element_type=preferred_element_type,
                                   lhs_spinfo=lhs_spinfo)
  (lc, rc), (lb, rb) = dimension_numbers
  batch_shape = shape[:n_batch]
  coords = _entry_coords(lhs_indices, batch_shape)
  data = prims.broadcast_batch(lhs_data, batch_shape)
  data = data.reshape((-1,) + tuple(data.shape[n_batch + 1:]))
  pairs = list(zip(lb, rb)) + list(zip(lc, rc))
  rows, _ = _gather_rows(rhs, [r for _, r in pairs], [coords[l] for l, _ in pairs],
                         data.shape[0])
  products = lax.dot_general(data, rows, (((), ()), ((0,), (0,))),
                             preferred_element_type=preferred_element_type)
  lhs_free = _remaining(len(shape), lc, lb)
  targets = [coords[d] for d in lb] + [coords[d] for d in lhs_free if d < n_batch + n_sparse]
  if not targets:
    return products.sum(0, dtype=out.dtype)
  return jnp.zeros(out.shape, out.dtype).at[tuple(targets)].add(products, mode="drop")


def _ranges_like(*groups) -> list[list[int]]:
  out, start = [], 0
  for g in groups:
    out.append(list(range(start, start + len(g))))
    start += len(g)
  return out


def _data_cotangent(ct, lhs_data, lhs_indices, rhs, dimension_numbers, lhs_spinfo):
  """The cotangent of the stored data: ``ct`` contracted with ``rhs`` and sampled at the stored
  positions (indices permuted to the product's dimension order when the layout allows)."""
  import ember.numpy as jnp
  from ember import lax
  (lc, rc), (lb, rb) = dimension_numbers
  lhs_ndim = len(lhs_spinfo.shape)
  rhs_ndim = get_aval(rhs).ndim
  lhs_kept = _remaining(lhs_ndim, lc, lb)
  rhs_kept = _remaining(rhs_ndim, rc, rb)
  ans_batch, _, ans_rhs = _ranges_like(lb, lhs_kept, rhs_kept)
  dims = ((tuple(ans_rhs), tuple(rhs_kept)), (tuple(ans_batch), tuple(rb)))
  lc_by_rhs = [lc[i] for i in np.argsort(rc, kind="stable")]
  permutation = tuple(int(p) for p in [*lb, *lhs_kept, *lc_by_rhs])
  out_axes = tuple(int(i) for i in np.argsort(permutation))
  n_batch = lhs_indices.ndim - 2
  n_sparse = lhs_indices.shape[-1]
  placeholder = jnp.zeros((1,) * n_batch + (lhs_indices.shape[-2],))
  placeholder_shape = tuple(lhs_indices.shape[:-2]) + (1,) * n_sparse
  if not _indices_permute(placeholder, lhs_indices, permutation, placeholder_shape):
    dense = lax.transpose(lax.dot_general(ct, rhs, dims), out_axes)
    return prims.bcoo_extract_p.bind(lhs_indices, dense, assume_unique=True)
  indices_t = lhs_indices
  if permutation != tuple(range(len(permutation))):
    _, indices_t = prims.bcoo_transpose_p.bind(placeholder, lhs_indices, permutation=permutation,
                                               spinfo=SparseInfo(placeholder_shape))
  result_t = bcoo_dot_general_sampled_p.bind(ct, rhs, indices_t, dimension_numbers=dims)
  if out_axes == tuple(range(len(out_axes))):
    return result_t
  shape_t = tuple(placeholder_shape[i] for i in permutation)
  result, _ = prims.bcoo_transpose_p.bind(result_t, indices_t, permutation=out_axes,
                                          spinfo=SparseInfo(shape_t))
  return result


def _indices_permute(placeholder, indices, permutation, shape) -> bool:
  """Whether ``permutation`` of a layout without dense dimensions keeps batch dimensions among
  batch ones (so the stored indices can be permuted instead of densifying)."""
  if len(permutation) != len(shape):
    return False
  try:
    prims.validate_permutation(placeholder, indices, permutation, shape)
  except NotImplementedError:
    return False
  return True


def _dot_general_transpose(ct, lhs_data, lhs_indices, rhs, *, dimension_numbers,
                           preferred_element_type, lhs_spinfo):
  from ember import lax
  if is_undefined(lhs_indices):
    raise ValueError("Cannot transpose with respect to sparse indices")
  (lc, rc), (lb, rb) = dimension_numbers
  if is_undefined(lhs_data):
    if type(ct) is Zero:
      return [Zero(lhs_data.aval), None, None]
    out = _data_cotangent(ct, lhs_data, lhs_indices, rhs, dimension_numbers, lhs_spinfo)
    out = prims.unbroadcast(lhs_data.aval, out)
    return [_as_dtype(out, lhs_data.aval), None, None]
  rhs_aval = rhs.aval
  if type(ct) is Zero:
    return [None, None, Zero(rhs_aval)]
  lhs_kept = _remaining(len(lhs_spinfo.shape), lc, lb)
  lhs_data, lhs_indices = _without_dense_dims(lhs_data, lhs_indices)
  rhs_kept = _remaining(rhs_aval.ndim, rc, rb)
  ans_batch, ans_lhs, _ = _ranges_like(lb, lhs_kept, rhs_kept)
  dims = ((tuple(lhs_kept), tuple(ans_lhs)), (tuple(lb), tuple(ans_batch)))
  rc_by_lhs = [rc[i] for i in np.argsort(lc, kind="stable")]
  out_axes = tuple(int(i) for i in np.argsort([*rb, *rc_by_lhs, *rhs_kept]))
  result = bcoo_dot_general_p.bind(lhs_data, lhs_indices, ct, dimension_numbers=dims,
                                   preferred_element_type=preferred_element_type,
                                   lhs_spinfo=lhs_spinfo)
  return [None, None, _as_dtype(lax.transpose(result, out_axes), rhs_aval)]


def _without_dense_dims(data, indices):
  """The buffers with dense dimensions turned into sparse ones, which the rhs cotangent
  contracts over (JAX refuses that case)."""
  from ember.experimental.sparse import _bcoo_ops
  n_batch = indices.ndim - 2
  n_dense = data.ndim - n_batch - 1
  if not n_dense:
    return data, indices
  data, indices = _bcoo_ops._common_batch(data, indices, n_batch)
  return _bcoo_ops._dense_to_sparse(data, indices, n_batch, n_dense)


def _as_dtype(x, aval: ShapedArray):
  from ember import lax
  if get_aval(x).dtype == aval.dtype:
    return x
  return lax.convert_element_type(x, aval.dtype)


def batch_dot_dims(dimension_numbers, rhs_dim):
  """Dimension numbers for a lhs batched at a new leading axis (and rhs at ``rhs_dim`` or not),
  and where the output's batch axis lands."""
  (lc, rc), (lb, rb) = dimension_numbers
  lc, lb = tuple(d + 1 for d in lc), tuple(d + 1 for d in lb)
  if rhs_dim is None:
    return ((lc, tuple(rc)), (lb, tuple(rb))), len(lb)
  bump = lambda ds: tuple(d + (d >= rhs_dim) for d in ds)  # noqa: E731
  return ((lc, bump(rc)), ((0, *lb), (rhs_dim, *bump(rb)))), 0


def _dot_general_batch(axis, vals, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
  rhs, rhs_dim = vals[2], dims[2]
  size = None if rhs_dim is None else rhs.shape[rhs_dim]
  if dims[0] is None and dims[1] is None:  # only rhs batched: a size-1 sparse batch dimension
    size = rhs.shape[rhs_dim]
  data, indices, info = prims.batch_dims_to_front(vals[:2], dims[:2], lhs_spinfo,
                                                  batch_size=size)
  dn, out_dim = batch_dot_dims(dimension_numbers, rhs_dim)
  out = bcoo_dot_general_p.bind(data, indices, rhs, dimension_numbers=dn,
                                preferred_element_type=preferred_element_type, lhs_spinfo=info)
  return out, out_dim


def _dot_jvp_lhs(t, lhs_data, lhs_indices, rhs, **params):
  return bcoo_dot_general_p.bind(t, lhs_indices, rhs, **params)


def _dot_jvp_rhs(t, lhs_data, lhs_indices, rhs, **params):
  return bcoo_dot_general_p.bind(lhs_data, lhs_indices, t, **params)


bcoo_dot_general_p = Primitive("bcoo_dot_general")
bcoo_dot_general_p.def_rules(abstract_eval=_dot_general_abstract_eval,
                             lower=lower_fun(dot_general_impl),
                             transpose=_dot_general_transpose, batch=_dot_general_batch)
defjvp(bcoo_dot_general_p, _dot_jvp_lhs, None, _dot_jvp_rhs)


# --- bcoo_dot_general_sampled ------------------------------------------------------------------

def _sampled_abstract_eval(A, B, indices, *, dimension_numbers):
  dense = _dense_dot_aval(A.shape, A.dtype, B, dimension_numbers, None)
  return prims._extract_abstract_eval(indices, dense, assume_unique=True)


def sampled_impl(A, B, indices, *, dimension_numbers):
  """Each stored entry reads the rows of ``A`` and ``B`` its coordinates select and contracts
  them: ``dot_general(A, B)`` evaluated only at ``indices``."""
  from ember import lax
  (ac, bc), (ab, bb) = dimension_numbers
  dense = _dense_dot_aval(A.shape, A.dtype, get_aval(B), dimension_numbers, None)
  n_batch, n_sparse, _, nse = prims.validate_bcoo_indices(indices, dense.shape)
  a_free = _remaining(A.ndim, ac, ab)
  b_free = _remaining(B.ndim, bc, bb)
  owners = ([(a, b) for a, b in zip(ab, bb)] + [(a, None) for a in a_free]
            + [(None, b) for b in b_free])
  n_idx = n_batch + n_sparse
  batch_shape = tuple(dense.shape[:n_batch])
  coords = _entry_coords(indices, batch_shape)
  read = lambda x, side: _gather_rows(  # noqa: E731
      x, [o[side] for o in owners[:n_idx] if o[side] is not None],
      [coords[p] for p, o in enumerate(owners[:n_idx]) if o[side] is not None],
      math.prod(batch_shape) * nse)
  (a_rows, a_rest), (b_rows, b_rest) = read(A, 0), read(B, 1)
  pos_a = {d: i + 1 for i, d in enumerate(a_rest)}
  pos_b = {d: i + 1 for i, d in enumerate(b_rest)}
  contract = (tuple(pos_a[d] for d in ac), tuple(pos_b[d] for d in bc))
  both = [o for o in owners[n_idx:] if o[0] is not None and o[1] is not None]
  batch = ((0, *(pos_a[a] for a, _ in both)), (0, *(pos_b[b] for _, b in both)))
  out = lax.dot_general(a_rows, b_rows, (contract, batch))
  return out.reshape(batch_shape + (nse,) + tuple(dense.shape[n_idx:]))


def _sampled_transpose(ct, A, B, indices, *, dimension_numbers):
  from ember.primitives.linalg import dot_general_p
  if is_undefined(indices):
    raise ValueError("Cannot transpose with respect to sparse indices")
  a_aval = A.aval if is_undefined(A) else get_aval(A)
  b_aval = B.aval if is_undefined(B) else get_aval(B)
  if type(ct) is Zero:
    return [Zero(A.aval) if is_undefined(A) else None,
            Zero(B.aval) if is_undefined(B) else None, None]
  dense = _dense_dot_aval(a_aval.shape, a_aval.dtype, b_aval, dimension_numbers, None)
  ct_dense = prims.bcoo_todense_p.bind(ct, indices, spinfo=SparseInfo(dense.shape))
  ct_a, ct_b = dot_general_p.rule("transpose")(
      ct_dense, A, B, dimension_numbers=dimension_numbers, precision=None,
      preferred_element_type=None, out_sharding=None)
  return [ct_a, ct_b, None]


def _sampled_batch(axis, vals, dims, *, dimension_numbers):
  from ember import vmap
  fn = lambda a, b, i: sampled_impl(a, b, i, dimension_numbers=dimension_numbers)  # noqa: E731
  return vmap(fn, in_axes=tuple(dims))(*vals), 0


bcoo_dot_general_sampled_p = Primitive("bcoo_dot_general_sampled")
bcoo_dot_general_sampled_p.def_rules(abstract_eval=_sampled_abstract_eval,
                                     lower=lower_fun(sampled_impl),
                                     transpose=_sampled_transpose, batch=_sampled_batch)
defjvp(bcoo_dot_general_sampled_p,
       lambda t, A, B, indices, **p: bcoo_dot_general_sampled_p.bind(t, B, indices, **p),
       lambda t, A, B, indices, **p: bcoo_dot_general_sampled_p.bind(A, t, indices, **p), None)


# --- bcoo_spdot_general ------------------------------------------------------------------------

def _spdot_abstract_eval(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
                         dimension_numbers, preferred_element_type):
  lhs_shape, rhs_shape = tuple(lhs_spinfo.shape), tuple(rhs_spinfo.shape)
  out = _dense_dot_aval(lhs_shape, lhs_data.dtype, ShapedArray(rhs_shape, rhs_data.dtype),
                        dimension_numbers, preferred_element_type)
  lhs = prims.validate_bcoo(lhs_data, lhs_indices, lhs_shape)
  rhs = prims.validate_bcoo(rhs_data, rhs_indices, rhs_shape)
  (lc, rc), (lb, rb) = dimension_numbers
  if lhs.n_dense or rhs.n_dense:
    raise NotImplementedError("bcoo_spdot_general with dense dimensions.")
  if (lb and max(lb) >= lhs.n_batch) or (rb and max(rb) >= rhs.n_batch):
    raise NotImplementedError("bcoo_spdot_general: batch_dims must correspond to batch "
                              "dimensions of the sparse representation.")
  for side, c, p in (("lhs", lc, lhs), ("rhs", rc, rhs)):
    if c and (min(c) < p.n_batch or max(c) >= p.n_batch + p.n_sparse):
      raise NotImplementedError("bcoo_spdot_general only supports contraction of sparse "
                                "indices.")
  if rhs.n_batch > len(rb) and lhs.n_sparse > len(lc):
    raise ValueError("bcoo_spdot_general: cannot have unused batch dims on rhs with unused "
                     "sparse dims on lhs.")
  out_nse = ((lhs.nse if lhs.n_sparse > len(lc) else 1)
             * (rhs.nse if rhs.n_sparse > len(rc) else 1))
  out_n_batch = lhs.n_batch + rhs.n_batch - len(lb)
  out_nse = min(out_nse, math.prod(out.shape[out_n_batch:]))

  def free_batch(data, indices, n_batch, b):
    return tuple(np.broadcast_shapes(
        tuple(data.shape[d] for d in range(n_batch) if d not in b),
        tuple(indices.shape[d] for d in range(n_batch) if d not in b)))
  batch = (tuple(lhs_shape[d] for d in lb) + free_batch(lhs_data, lhs_indices, lhs.n_batch, lb)
           + free_batch(rhs_data, rhs_indices, rhs.n_batch, rb))
  n_sparse = lhs.n_sparse + rhs.n_sparse - 2 * len(lc)
  return [ShapedArray(batch + (out_nse,), out.dtype),
          ShapedArray(batch + (out_nse, n_sparse), lhs_indices.dtype)]


def _spdot_unbatched(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_shape, rhs_shape,
                     lhs_contracting, rhs_contracting, out_nse, dtype):
  """Every pair of entries multiplied where their contracting indices agree (and are in
  bounds), at the concatenation of their free indices; duplicates then summed."""
  import ember.numpy as jnp
  lc, rc = list(lhs_contracting), list(rhs_contracting)
  lhs_free = _remaining(len(lhs_shape), lc)
  rhs_free = _remaining(len(rhs_shape), rc)
  take = lambda ind, cols: ind[:, np.array(cols, dtype=np.int32)]  # noqa: E731
  lhs_i, rhs_i = take(lhs_indices, lc), take(rhs_indices, rc)
  overlap = (lhs_i[:, None] == rhs_i[None, :]).all(-1)
  lhs_ok = (lhs_i < jnp.array([lhs_shape[d] for d in lc], lhs_i.dtype)).all(-1)
  rhs_ok = (rhs_i < jnp.array([rhs_shape[d] for d in rc], rhs_i.dtype)).all(-1)
  product = (lhs_data[:, None] * rhs_data[None, :]).astype(dtype)
  out_data = jnp.where(overlap & lhs_ok[:, None] & rhs_ok[None, :], product,
                       jnp.zeros((), dtype)).ravel()
  lhs_j, rhs_j = take(lhs_indices, lhs_free), take(rhs_indices, rhs_free)
  index_dtype = jnp.result_type(lhs_indices, rhs_indices)
  n_l, n_r = lhs_indices.shape[0], rhs_indices.shape[0]
  out_indices = jnp.concatenate([
      jnp.broadcast_to(lhs_j[:, None, :], (n_l, n_r, len(lhs_free))).astype(index_dtype),
      jnp.broadcast_to(rhs_j[None, :, :], (n_l, n_r, len(rhs_free))).astype(index_dtype)],
      axis=-1).reshape(n_l * n_r, len(lhs_free) + len(rhs_free))
  out_shape = tuple(lhs_shape[d] for d in lhs_free) + tuple(rhs_shape[d] for d in rhs_free)
  return prims.bcoo_sum_duplicates_p.bind(out_data, out_indices, spinfo=SparseInfo(out_shape),
                                          nse=out_nse)


def spdot_impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
               dimension_numbers, preferred_element_type):
  from ember import lax
  data_aval, _ = _spdot_abstract_eval(
      get_aval(lhs_data), get_aval(lhs_indices), get_aval(rhs_data), get_aval(rhs_indices),
      lhs_spinfo=lhs_spinfo, rhs_spinfo=rhs_spinfo, dimension_numbers=dimension_numbers,
      preferred_element_type=preferred_element_type)
  (lc, rc), (lb, rb) = dimension_numbers
  lhs_nb, rhs_nb = lhs_indices.ndim - 2, rhs_indices.ndim - 2

  def front(x, n_batch, b):
    perm = [*b, *_remaining(n_batch, b)]
    return lax.transpose(x, (*perm, *range(n_batch, x.ndim)))
  lhs_data, lhs_indices = (front(x, lhs_nb, lb) for x in (lhs_data, lhs_indices))
  rhs_data, rhs_indices = (front(x, rhs_nb, rb) for x in (rhs_data, rhs_indices))
  fn = lambda ld, li, rd, ri: _spdot_unbatched(  # noqa: E731
      ld, li, rd, ri, lhs_shape=tuple(lhs_spinfo.shape[lhs_nb:]),
      rhs_shape=tuple(rhs_spinfo.shape[rhs_nb:]), lhs_contracting=[d - lhs_nb for d in lc],
      rhs_contracting=[d - rhs_nb for d in rc], out_nse=data_aval.shape[-1],
      dtype=data_aval.dtype)
  fn = nfold_vmap(fn, rhs_nb - len(rb), in_axes=(None, None, 0, 0))
  fn = nfold_vmap(fn, lhs_nb - len(lb), in_axes=(0, 0, None, None))
  fn = nfold_vmap(fn, len(lb))
  return list(fn(lhs_data, lhs_indices, rhs_data, rhs_indices))


def _spdot_jvp(primals, tangents, **params):
  from ember.transforms.ad_util import add_tangents
  lhs_data, lhs_indices, rhs_data, rhs_indices = primals
  lhs_dot, _, rhs_dot, _ = tangents
  outs = bcoo_spdot_general_p.bind(*primals, **params)
  dot = Zero(tangent_aval(get_aval(outs[0])))
  if type(lhs_dot) is not Zero:
    dot = bcoo_spdot_general_p.bind(lhs_dot, lhs_indices, rhs_data, rhs_indices, **params)[0]
  if type(rhs_dot) is not Zero:
    dot = add_tangents(dot, bcoo_spdot_general_p.bind(lhs_data, lhs_indices, rhs_dot,
                                                      rhs_indices, **params)[0])
  return outs, [dot, Zero(tangent_aval(get_aval(outs[1])))]


def _spdot_batch(axis, vals, dims, *, lhs_spinfo, rhs_spinfo, dimension_numbers,
                 preferred_element_type):
  size = max(v.shape[d] for v, d in zip(vals, dims) if d is not None)
  lhs_data, lhs_indices, lhs_info = prims.batch_dims_to_front(vals[:2], dims[:2], lhs_spinfo,
                                                              batch_size=size)
  rhs_data, rhs_indices, rhs_info = prims.batch_dims_to_front(vals[2:], dims[2:], rhs_spinfo,
                                                              batch_size=size)
  (lc, rc), (lb, rb) = dimension_numbers
  bump = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
  dn = ((bump(lc), bump(rc)), ((0, *bump(lb)), (0, *bump(rb))))
  outs = bcoo_spdot_general_p.bind(lhs_data, lhs_indices, rhs_data, rhs_indices,
                                   lhs_spinfo=lhs_info, rhs_spinfo=rhs_info,
                                   dimension_numbers=dn,
                                   preferred_element_type=preferred_element_type)
  return outs, [0, 0]


bcoo_spdot_general_p = Primitive("bcoo_spdot_general", multiple_results=True)
bcoo_spdot_general_p.def_rules(abstract_eval=_spdot_abstract_eval,
                               lower=lower_fun(spdot_impl, multiple_results=True),
                               jvp=_spdot_jvp, batch=_spdot_batch)
bcoo_spdot_general_p.def_unsupported(
    "transpose", "JAX defines no transpose rule for it; differentiate with forward mode")
