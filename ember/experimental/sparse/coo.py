"""COO: JAX's older 2-D coordinate format (``data``, ``row``, ``col``), with few transforms.

Primitives: ``coo_todense`` (scatter-add), ``coo_fromdense`` (the first ``nse`` nonzeros in
row-major order, padded with position (0, 0) and zero data), ``coo_matvec`` and ``coo_matmat``
(gather rows of the dense operand, scatter-add products; ``transpose=True`` multiplies by the
transposed matrix). All are linear in the data and the dense operand, with jvp and transpose
rules; as in JAX none has a batching rule (vmap raises NotImplementedError).

Example:
    >>> import ember.numpy as jnp
    >>> M = COO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> M.row, M.col
    (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.experimental.sparse._base import JAXSparse
from ember.numpy import int32 as _int32  # the default index dtype, as JAX's jnp.int32
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, defjvp, is_undefined, tangent_aval

__all__ = ["COO", "COOInfo", "coo_todense", "coo_fromdense", "coo_matvec", "coo_matmat",
           "coo_todense_p", "coo_fromdense_p", "coo_matvec_p", "coo_matmat_p"]


class COOInfo(NamedTuple):
  """The static part of a COO matrix: its shape and whether rows / columns are sorted.

  Example:
      >>> COOInfo((2, 2))
      COOInfo(shape=(2, 2), rows_sorted=False, cols_sorted=False)
  """
  shape: tuple
  rows_sorted: bool = False
  cols_sorted: bool = False


def _jnp():
  import ember.numpy as jnp
  return jnp


def promote(data, other):
  """``data`` and ``other`` at their promoted dtype (what COO/CSR's ``@`` multiplies)."""
  jnp = _jnp()
  dtype = jnp.result_type(data, other)
  return data.astype(dtype), other.astype(dtype)


class COO(JAXSparse):
  """A 2-D sparse matrix in coordinate format; prefer BCOO, which supports every transform.

  Example:
      >>> import ember.numpy as jnp
      >>> M = COO((jnp.array([1., 2.]), jnp.array([0, 1]), jnp.array([1, 1])), shape=(2, 2))
      >>> M.todense()
      Array([[0., 1.],
             [0., 2.]], dtype=float32)
  """

  def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
    self.data, self.row, self.col = map(_jnp().asarray, args)
    self._rows_sorted = rows_sorted
    self._cols_sorted = cols_sorted
    super().__init__(args, shape=shape)

  _info = property(lambda self: COOInfo(self.shape, self._rows_sorted, self._cols_sorted))
  _bufs = property(lambda self: (self.data, self.row, self.col))
  nse = property(lambda self: self.data.size)
  dtype = property(lambda self: self.data.dtype)

  @classmethod
  def fromdense(cls, mat, *, nse: int | None = None, index_dtype=np.int32) -> "COO":
    """The COO matrix of the nonzero entries of ``mat``.

    Example:
        >>> import ember.numpy as jnp
        >>> COO.fromdense(jnp.eye(2))
        COO(float32[2, 2], nse=2)
    """
    return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

  def _sort_indices(self) -> "COO":
    from ember import lax
    if self._rows_sorted:
      return self
    row, col, data = lax.sort((self.row, self.col, self.data), num_keys=2)
    return type(self)((data, row, col), shape=self.shape, rows_sorted=True)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> "COO":
    jnp = _jnp()
    shape = tuple(shape)
    if len(shape) != 2:
      raise ValueError(f"COO must have ndim=2; got shape={shape}")
    row = col = jnp.empty(0, index_dtype)
    return cls((jnp.empty(0, dtype), row, col), shape=shape, rows_sorted=True,
               cols_sorted=True)

  @classmethod
  def _eye(cls, N: int, M: int, k: int, *, dtype=None, index_dtype="int32") -> "COO":
    jnp = _jnp()
    diag_size = min(N, M - k) if k > 0 else min(N + k, M)
    if diag_size <= 0:
      return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
    idx = jnp.arange(diag_size, dtype=index_dtype)
    return cls((jnp.ones(diag_size, dtype=dtype), idx - min(k, 0), idx + max(k, 0)),
               shape=(N, M), rows_sorted=True, cols_sorted=True)

  def todense(self):
    """The dense matrix.

    Example:
        >>> import ember.numpy as jnp
        >>> COO.fromdense(jnp.array([[0., 3.]])).todense()
        Array([[0., 3.]], dtype=float32)
    """
    return coo_todense(self)

  def transpose(self, axes=None) -> "COO":
    """The transposed matrix (rows and columns swapped; ``axes`` is not supported).

    Example:
        >>> import ember.numpy as jnp
        >>> COO.fromdense(jnp.array([[0., 3.]])).T.shape
        (2, 1)
    """
    if axes is not None:
      raise NotImplementedError("axes argument to transpose()")
    return COO((self.data, self.col, self.row), shape=self.shape[::-1],
               rows_sorted=self._cols_sorted, cols_sorted=self._rows_sorted)

  def tree_flatten(self):
    return (self.data, self.row, self.col), self._info._asdict()

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    obj = object.__new__(cls)
    obj.data, obj.row, obj.col = children
    if aux_data.keys() != {"shape", "rows_sorted", "cols_sorted"}:
      raise ValueError(f"COO.tree_unflatten: invalid aux_data={aux_data}")
    obj.shape = aux_data["shape"]
    obj._rows_sorted = aux_data["rows_sorted"]
    obj._cols_sorted = aux_data["cols_sorted"]
    return obj

  def __matmul__(self, other):
    if isinstance(other, JAXSparse):
      raise NotImplementedError("matmul between two sparse objects.")
    other = _jnp().asarray(other)
    data, other = promote(self.data, other)
    mat = COO((data, self.row, self.col), **self._info._asdict())
    if other.ndim == 1:
      return coo_matvec(mat, other)
    if other.ndim == 2:
      return coo_matmat(mat, other)
    raise NotImplementedError(f"matmul with object of shape {other.shape}")


def _register():
  from ember.pytree import register_pytree_node
  register_pytree_node(COO, lambda m: m.tree_flatten(), COO.tree_unflatten)


_register()


def _check_coo(data, row, col) -> None:
  if not (data.shape == row.shape == col.shape) or data.ndim != 1:
    raise ValueError(f"COO buffers must be 1-D of one length, got data{data.shape}, "
                     f"row{row.shape}, col{col.shape}")
  if row.dtype != col.dtype:
    raise TypeError(f"COO row and col must have one dtype, got {row.dtype} and {col.dtype}")

def _no_batching(prim) -> None:
  prim.def_unsupported("batch", f"Batching rule for {prim.name!r} not implemented (as in JAX, "
                       "which batches the BCOO format)")


# --- coo_todense -------------------------------------------------------------------------------

def _todense_abstract_eval(data, row, col, *, spinfo):
  _check_coo(data, row, col)
  return ShapedArray(tuple(spinfo.shape), data.dtype)


def todense_impl(data, row, col, *, spinfo):
  return _jnp().zeros(spinfo.shape, data.dtype).at[row, col].add(data, mode="drop")


def _todense_transpose(ct, data, row, col, *, spinfo):
  if is_undefined(row) or is_undefined(col):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  return [ct[row, col], None, None]


coo_todense_p = Primitive("coo_todense")
coo_todense_p.def_rules(abstract_eval=_todense_abstract_eval, lower=lower_fun(todense_impl),
                        transpose=_todense_transpose)
defjvp(coo_todense_p, lambda t, data, row, col, *, spinfo: coo_todense_p.bind(
    t, row, col, spinfo=spinfo), None, None)
_no_batching(coo_todense_p)


def coo_todense(mat: COO):
  """The dense matrix of a COO matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> coo_todense(COO.fromdense(jnp.array([[1., 0.]])))
      Array([[1., 0.]], dtype=float32)
  """
  return coo_todense_p.bind(*mat._bufs, spinfo=mat._info)


# --- coo_fromdense -----------------------------------------------------------------------------

def _fromdense_abstract_eval(mat, *, nse, index_dtype):
  if mat.ndim != 2:
    raise ValueError(f"coo_fromdense: mat must be 2-D, got shape {mat.shape}")
  dt = np.dtype(index_dtype)
  return [ShapedArray((nse,), mat.dtype), ShapedArray((nse,), dt), ShapedArray((nse,), dt)]


def fromdense_impl(mat, *, nse, index_dtype):
  """The first ``nse`` nonzeros in row-major order; padding at (0, 0) with zero data."""
  jnp = _jnp()
  row, col = jnp.nonzero(mat, size=nse)
  stored = jnp.arange(nse) < (mat != 0).sum()
  data = jnp.where(stored, mat[row, col], jnp.zeros((), mat.dtype))
  return [data, row.astype(index_dtype), col.astype(index_dtype)]


def _fromdense_jvp(primals, tangents, *, nse, index_dtype):
  (mat,), (mat_dot,) = primals, tangents
  data, row, col = coo_fromdense_p.bind(mat, nse=nse, index_dtype=index_dtype)
  dot = Zero(tangent_aval(get_aval(data))) if type(mat_dot) is Zero else mat_dot[row, col]
  zero = Zero(tangent_aval(get_aval(row)))
  return [data, row, col], [dot, zero, zero]


def _fromdense_transpose(ct, mat, *, nse, index_dtype):
  data, row, col = ct
  if type(row) is Zero or type(col) is Zero:
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(data) is Zero:
    return [Zero(mat.aval)]
  return [coo_todense_p.bind(data, row, col, spinfo=COOInfo(shape=mat.aval.shape))]


coo_fromdense_p = Primitive("coo_fromdense", multiple_results=True)
coo_fromdense_p.def_rules(abstract_eval=_fromdense_abstract_eval,
                          lower=lower_fun(fromdense_impl, multiple_results=True),
                          jvp=_fromdense_jvp, transpose=_fromdense_transpose)
_no_batching(coo_fromdense_p)


def coo_fromdense(mat, *, nse: int | None = None, index_dtype=_int32) -> COO:
  """The COO matrix of the nonzero entries of a dense 2-D ``mat`` (``nse`` counted from the
  values when not given, which needs concrete values).

  Example:
      >>> import ember.numpy as jnp
      >>> coo_fromdense(jnp.array([[0., 5.]])).data
      Array([5.], dtype=float32)
  """
  from ember.experimental.sparse.bcoo import concrete_index
  jnp = _jnp()
  mat = jnp.asarray(mat)
  nse = concrete_index((mat != 0).sum() if nse is None else nse, "coo_fromdense nse argument")
  bufs = coo_fromdense_p.bind(mat, nse=nse,
                              index_dtype=jnp.int32 if index_dtype is None else index_dtype)
  return COO(bufs, shape=mat.shape, rows_sorted=True)


# --- coo_matvec and coo_matmat -----------------------------------------------------------------

def _product_abstract_eval(data, row, col, x, *, spinfo, transpose, ndim: int):
  _check_coo(data, row, col)
  shape = tuple(spinfo.shape)
  if x.ndim != ndim:
    raise ValueError(f"coo_mat{'vec' if ndim == 1 else 'mat'}: the dense operand must be "
                     f"{ndim}-D, got shape {x.shape}")
  if data.dtype != x.dtype:
    raise TypeError(f"COO product operands must have one dtype, got {data.dtype} and "
                    f"{x.dtype}")
  inner = shape[0] if transpose else shape[1]
  if x.shape[0] != inner:
    raise ValueError(f"COO product: a matrix of shape {shape} (transpose={transpose}) cannot "
                     f"multiply an operand of shape {x.shape}")
  out = (shape[1] if transpose else shape[0],) + tuple(x.shape[1:])
  return ShapedArray(out, data.dtype)


def product_impl(data, row, col, x, *, spinfo, transpose):
  """Rows of ``x`` at the entries' columns, scaled by the data, summed into their rows."""
  jnp = _jnp()
  if transpose:
    row, col = col, row
  n_out = spinfo.shape[1] if transpose else spinfo.shape[0]
  scaled = data.reshape((-1,) + (1,) * (x.ndim - 1)) * x[col]
  return jnp.zeros((n_out,) + tuple(x.shape[1:]), scaled.dtype).at[row].add(scaled, mode="drop")


def _product_transpose(prim):
  def rule(ct, data, row, col, x, *, spinfo, transpose):
    if is_undefined(row) or is_undefined(col):
      raise ValueError("Cannot transpose with respect to sparse indices")
    if is_undefined(x):
      if type(ct) is Zero:
        return [None, None, None, Zero(x.aval)]
      return [None, None, None, prim.bind(data, row, col, ct, spinfo=spinfo,
                                          transpose=not transpose)]
    if type(ct) is Zero:
      return [Zero(data.aval), None, None, None]
    r, c = (col, row) if transpose else (row, col)
    contrib = ct[r] * x[c]
    return [contrib if contrib.ndim == 1 else contrib.sum(1), None, None, None]
  return rule


def _product_prim(name: str, ndim: int) -> Primitive:
  prim = Primitive(name)
  prim.def_rules(abstract_eval=lambda *a, **k: _product_abstract_eval(*a, ndim=ndim, **k),
                 lower=lower_fun(product_impl), transpose=_product_transpose(prim))
  defjvp(prim, lambda t, d, r, c, x, **k: prim.bind(t, r, c, x, **k), None, None,
         lambda t, d, r, c, x, **k: prim.bind(d, r, c, t, **k))
  _no_batching(prim)
  return prim


coo_matvec_p = _product_prim("coo_matvec", 1)
coo_matmat_p = _product_prim("coo_matmat", 2)


def coo_matvec(mat: COO, v, transpose: bool = False):
  """``mat @ v`` (``mat.T @ v`` with ``transpose``) for a COO matrix and a vector of its dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> coo_matvec(COO.fromdense(jnp.array([[1., 2.]])), jnp.array([3., 4.]))
      Array([11.], dtype=float32)
  """
  return coo_matvec_p.bind(*mat._bufs, _jnp().asarray(v), spinfo=mat._info,
                           transpose=bool(transpose))


def coo_matmat(mat: COO, B, *, transpose: bool = False):
  """``mat @ B`` (``mat.T @ B`` with ``transpose``) for a COO matrix and a 2-D array.

  Example:
      >>> import ember.numpy as jnp
      >>> coo_matmat(COO.fromdense(jnp.array([[1., 2.]])), jnp.ones((2, 2)))
      Array([[3., 3.]], dtype=float32)
  """
  return coo_matmat_p.bind(*mat._bufs, _jnp().asarray(B), spinfo=mat._info,
                           transpose=bool(transpose))


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
