"""CSR and CSC: JAX's older 2-D compressed formats (``data``, ``indices``, ``indptr``).

A CSR matrix stores each row's entries contiguously (``indptr[i]:indptr[i+1]``) with their
columns in ``indices``; a CSC matrix is the CSR form of its transpose. Primitives:
``csr_todense``, ``csr_fromdense`` (the first ``nse`` nonzeros, padded with column 0 and zero
data, the padding counted in no row), ``csr_matvec`` and ``csr_matmat``; each converts the row
pointers to COO rows and reuses the COO implementation, with the same jvp and transpose rules
and, as in JAX, no batching rule.

Example:
    >>> import ember.numpy as jnp
    >>> M = CSR.fromdense(jnp.array([[0., 1.], [2., 3.]]))
    >>> M.indices, M.indptr
    (Array([1, 0, 1], dtype=int32), Array([0, 1, 3], dtype=int32))
"""
from __future__ import annotations

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.experimental.sparse import coo
from ember.experimental.sparse._base import JAXSparse
from ember.experimental.sparse.util import csr_to_coo
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, defjvp, is_undefined, tangent_aval

__all__ = ["CSR", "CSC", "csr_todense", "csr_fromdense", "csr_matvec", "csr_matmat",
           "csr_todense_p", "csr_fromdense_p", "csr_matvec_p", "csr_matmat_p"]


def _jnp():
  import ember.numpy as jnp
  return jnp


def _extract(indices, indptr, mat):
  row, col = csr_to_coo(indices, indptr)
  return mat[row, col]


def _check_csr(data, indices, indptr, shape) -> None:
  if not data.ndim == indices.ndim == indptr.ndim == 1 or data.shape != indices.shape:
    raise ValueError(f"CSR buffers must be 1-D with data and indices of one length, got "
                     f"data{data.shape}, indices{indices.shape}, indptr{indptr.shape}")
  if indices.dtype != indptr.dtype:
    raise TypeError(f"CSR indices and indptr must have one dtype, got {indices.dtype} and "
                    f"{indptr.dtype}")
  if indptr.shape[0] != shape[0] + 1:
    raise ValueError(f"CSR indptr must have shape[0] + 1 = {shape[0] + 1} entries, got "
                     f"{indptr.shape[0]}")


class CSR(JAXSparse):
  """A 2-D sparse matrix in compressed-row format; prefer BCOO or BCSR for transforms.

  Example:
      >>> import ember.numpy as jnp
      >>> M = CSR((jnp.array([1., 2.]), jnp.array([1, 0]), jnp.array([0, 1, 2])), shape=(2, 2))
      >>> M @ jnp.array([1., 10.])
      Array([10.,  2.], dtype=float32)
  """

  def __init__(self, args, *, shape):
    self.data, self.indices, self.indptr = map(_jnp().asarray, args)
    super().__init__(args, shape=shape)

  _bufs = property(lambda self: (self.data, self.indices, self.indptr))
  nse = property(lambda self: self.data.size)
  dtype = property(lambda self: self.data.dtype)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "CSR":
    """The CSR matrix of the nonzero entries of ``mat``.

    Example:
        >>> import ember.numpy as jnp
        >>> CSR.fromdense(jnp.eye(2))
        CSR(float32[2, 2], nse=2)
    """
    if nse is None:
      nse = (_jnp().asarray(mat) != 0).sum()
    return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> "CSR":
    jnp = _jnp()
    shape = tuple(shape)
    if len(shape) != 2:
      raise ValueError(f"CSR must have ndim=2; got shape={shape}")
    return cls((jnp.empty(0, dtype), jnp.empty(0, index_dtype),
                jnp.zeros(shape[0] + 1, index_dtype)), shape=shape)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> "CSR":
    jnp = _jnp()
    diag_size = min(N, M - k) if k > 0 else min(N + k, M)
    if diag_size <= 0:
      return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
    idx = jnp.arange(diag_size, dtype=index_dtype)
    rows = idx - min(k, 0)
    counts = jnp.zeros(N, index_dtype).at[rows].add(1)
    indptr = jnp.zeros(N + 1, index_dtype).at[1:].set(jnp.cumsum(counts).astype(index_dtype))
    return cls((jnp.ones(diag_size, dtype=dtype), idx + max(k, 0), indptr), shape=(N, M))

  def todense(self):
    """The dense matrix.

    Example:
        >>> import ember.numpy as jnp
        >>> CSR.fromdense(jnp.array([[0., 2.]])).todense()
        Array([[0., 2.]], dtype=float32)
    """
    return csr_todense(self)

  def transpose(self, axes=None) -> "CSC":
    """The transpose, as a CSC matrix over the same buffers.

    Example:
        >>> import ember.numpy as jnp
        >>> CSR.fromdense(jnp.array([[0., 2.]])).T
        CSC(float32[2, 1], nse=1)
    """
    if axes is not None:
      raise NotImplementedError("axes argument to transpose()")
    return CSC((self.data, self.indices, self.indptr), shape=self.shape[::-1])

  def __matmul__(self, other):
    return _product(self, other, self.shape, transpose=False)

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), {"shape": self.shape}

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    obj = object.__new__(cls)
    obj.data, obj.indices, obj.indptr = children
    if aux_data.keys() != {"shape"}:
      raise ValueError(f"{cls.__name__}.tree_unflatten: invalid aux_data={aux_data}")
    obj.__dict__.update(**aux_data)
    return obj


class CSC(JAXSparse):
  """A 2-D sparse matrix in compressed-column format (the CSR form of its transpose).

  Example:
      >>> import ember.numpy as jnp
      >>> CSC.fromdense(jnp.array([[1., 0.], [2., 0.]])).indptr
      Array([0, 2, 2], dtype=int32)
  """

  def __init__(self, args, *, shape):
    self.data, self.indices, self.indptr = map(_jnp().asarray, args)
    super().__init__(args, shape=shape)

  _bufs = property(lambda self: (self.data, self.indices, self.indptr))
  nse = property(lambda self: self.data.size)
  dtype = property(lambda self: self.data.dtype)
  tree_flatten = CSR.tree_flatten
  tree_unflatten = classmethod(CSR.tree_unflatten.__func__)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "CSC":
    """The CSC matrix of the nonzero entries of ``mat``.

    Example:
        >>> import ember.numpy as jnp
        >>> CSC.fromdense(jnp.eye(2))
        CSC(float32[2, 2], nse=2)
    """
    mat = _jnp().asarray(mat)
    if nse is None:
      nse = (mat != 0).sum()
    return csr_fromdense(mat.T, nse=nse, index_dtype=index_dtype).T

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> "CSC":
    jnp = _jnp()
    shape = tuple(shape)
    if len(shape) != 2:
      raise ValueError(f"CSC must have ndim=2; got shape={shape}")
    return cls((jnp.empty(0, dtype), jnp.empty(0, index_dtype),
                jnp.zeros(shape[1] + 1, index_dtype)), shape=shape)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> "CSC":
    return CSR._eye(M, N, -k, dtype=dtype, index_dtype=index_dtype).T

  def todense(self):
    """The dense matrix.

    Example:
        >>> import ember.numpy as jnp
        >>> CSC.fromdense(jnp.array([[0., 2.]])).todense()
        Array([[0., 2.]], dtype=float32)
    """
    return csr_todense(self.T).T

  def transpose(self, axes=None) -> CSR:
    """The transpose, as a CSR matrix over the same buffers.

    Example:
        >>> import ember.numpy as jnp
        >>> CSC.fromdense(jnp.array([[0., 2.]])).T
        CSR(float32[2, 1], nse=1)
    """
    if axes is not None:
      raise NotImplementedError("axes argument to transpose()")
    return CSR((self.data, self.indices, self.indptr), shape=self.shape[::-1])

  def __matmul__(self, other):
    return _product(self, other, self.shape[::-1], transpose=True)


def _product(mat, other, shape, *, transpose: bool):
  if isinstance(other, JAXSparse):
    raise NotImplementedError("matmul between two sparse objects.")
  other = _jnp().asarray(other)
  data, other = coo.promote(mat.data, other)
  if other.ndim not in (1, 2):
    raise NotImplementedError(f"matmul with object of shape {other.shape}")
  prim = csr_matvec_p if other.ndim == 1 else csr_matmat_p
  return prim.bind(data, mat.indices, mat.indptr, other, shape=tuple(shape),
                   transpose=transpose)


def _register():
  from ember.pytree import register_pytree_node
  for cls in (CSR, CSC):
    register_pytree_node(cls, lambda m: m.tree_flatten(), cls.tree_unflatten)


_register()

def _no_batching(prim) -> None:
  prim.def_unsupported("batch", f"Batching rule for {prim.name!r} not implemented (as in JAX, "
                       "which batches the BCSR format)")


# --- primitives --------------------------------------------------------------------------------

def _todense_abstract_eval(data, indices, indptr, *, shape):
  _check_csr(data, indices, indptr, shape)
  return ShapedArray(tuple(shape), data.dtype)


def _todense_impl(data, indices, indptr, *, shape):
  row, col = csr_to_coo(indices, indptr)
  return coo.todense_impl(data, row, col, spinfo=coo.COOInfo(shape=shape))


def _todense_transpose(ct, data, indices, indptr, *, shape):
  if is_undefined(indices) or is_undefined(indptr):
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  return [_extract(indices, indptr, ct), None, None]


csr_todense_p = Primitive("csr_todense")
csr_todense_p.def_rules(abstract_eval=_todense_abstract_eval, lower=lower_fun(_todense_impl),
                        transpose=_todense_transpose)
defjvp(csr_todense_p, lambda t, d, i, p, *, shape: csr_todense_p.bind(t, i, p, shape=shape),
       None, None)
_no_batching(csr_todense_p)


def _fromdense_abstract_eval(mat, *, nse, index_dtype):
  if mat.ndim != 2:
    raise ValueError(f"csr_fromdense: mat must be 2-D, got shape {mat.shape}")
  dt = np.dtype(index_dtype)
  return [ShapedArray((nse,), mat.dtype), ShapedArray((nse,), dt),
          ShapedArray((mat.shape[0] + 1,), dt)]


def _fromdense_impl(mat, *, nse, index_dtype):
  jnp = _jnp()
  m = mat.shape[0]
  row, col = jnp.nonzero(mat, size=nse)
  stored = jnp.arange(nse) < (mat != 0).sum()
  data = jnp.where(stored, mat[row, col], jnp.zeros((), mat.dtype))
  row = jnp.where(stored, row, m)
  counts = jnp.zeros(m, index_dtype).at[row].add(1, mode="drop")
  indptr = jnp.zeros(m + 1, index_dtype).at[1:].set(jnp.cumsum(counts).astype(index_dtype))
  return [data, col.astype(index_dtype), indptr]


def _fromdense_jvp(primals, tangents, *, nse, index_dtype):
  (mat,), (mat_dot,) = primals, tangents
  data, indices, indptr = csr_fromdense_p.bind(mat, nse=nse, index_dtype=index_dtype)
  dot = (Zero(tangent_aval(get_aval(data))) if type(mat_dot) is Zero
         else _extract(indices, indptr, mat_dot))
  zero = Zero(tangent_aval(get_aval(indices)))
  return [data, indices, indptr], [dot, zero, Zero(tangent_aval(get_aval(indptr)))]


def _fromdense_transpose(ct, mat, *, nse, index_dtype):
  data, indices, indptr = ct
  if type(indices) is Zero or type(indptr) is Zero:
    raise ValueError("Cannot transpose with respect to sparse indices")
  if type(data) is Zero:
    return [Zero(mat.aval)]
  return [csr_todense_p.bind(data, indices, indptr, shape=tuple(mat.aval.shape))]


csr_fromdense_p = Primitive("csr_fromdense", multiple_results=True)
csr_fromdense_p.def_rules(abstract_eval=_fromdense_abstract_eval,
                          lower=lower_fun(_fromdense_impl, multiple_results=True),
                          jvp=_fromdense_jvp, transpose=_fromdense_transpose)
_no_batching(csr_fromdense_p)


def _product_abstract_eval(data, indices, indptr, x, *, shape, transpose, ndim):
  _check_csr(data, indices, indptr, shape)
  return coo._product_abstract_eval(data, indices, indices, x, spinfo=coo.COOInfo(tuple(shape)),
                                    transpose=transpose, ndim=ndim)


def _product_impl(data, indices, indptr, x, *, shape, transpose):
  row, col = csr_to_coo(indices, indptr)
  return coo.product_impl(data, row, col, x, spinfo=coo.COOInfo(tuple(shape)),
                          transpose=transpose)


def _product_transpose(prim):
  def rule(ct, data, indices, indptr, x, *, shape, transpose):
    if is_undefined(indices) or is_undefined(indptr):
      raise ValueError("Cannot transpose with respect to sparse indices")
    if is_undefined(x):
      if type(ct) is Zero:
        return [None, None, None, Zero(x.aval)]
      return [None, None, None, prim.bind(data, indices, indptr, ct, shape=shape,
                                          transpose=not transpose)]
    if type(ct) is Zero:
      return [Zero(data.aval), None, None, None]
    row, col = csr_to_coo(indices, indptr)
    r, c = (col, row) if transpose else (row, col)
    contrib = ct[r] * x[c]
    return [contrib if contrib.ndim == 1 else contrib.sum(1), None, None, None]
  return rule


def _product_prim(name: str, ndim: int) -> Primitive:
  prim = Primitive(name)
  prim.def_rules(abstract_eval=lambda *a, **k: _product_abstract_eval(*a, ndim=ndim, **k),
                 lower=lower_fun(_product_impl), transpose=_product_transpose(prim))
  defjvp(prim, lambda t, d, i, p, x, **k: prim.bind(t, i, p, x, **k), None, None,
         lambda t, d, i, p, x, **k: prim.bind(d, i, p, t, **k))
  _no_batching(prim)
  return prim


csr_matvec_p = _product_prim("csr_matvec", 1)
csr_matmat_p = _product_prim("csr_matmat", 2)


def csr_todense(mat: CSR):
  """The dense matrix of a CSR matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> csr_todense(CSR.fromdense(jnp.array([[1., 0.]])))
      Array([[1., 0.]], dtype=float32)
  """
  return csr_todense_p.bind(*mat._bufs, shape=tuple(mat.shape))


def csr_fromdense(mat, *, nse: int | None = None, index_dtype=np.int32) -> CSR:
  """The CSR matrix of the nonzero entries of a dense 2-D ``mat``.

  Example:
      >>> import ember.numpy as jnp
      >>> csr_fromdense(jnp.array([[0., 5.], [6., 0.]])).indptr
      Array([0, 1, 2], dtype=int32)
  """
  from ember.experimental.sparse.bcoo import concrete_index
  mat = _jnp().asarray(mat)
  nse = concrete_index((mat != 0).sum() if nse is None else nse, "coo_fromdense nse argument")
  bufs = csr_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
  return CSR(bufs, shape=mat.shape)


def csr_matvec(mat: CSR, v, transpose: bool = False):
  """``mat @ v`` (``mat.T @ v`` with ``transpose``) for a CSR matrix and a vector of its dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> csr_matvec(CSR.fromdense(jnp.array([[1., 2.]])), jnp.array([3., 4.]))
      Array([11.], dtype=float32)
  """
  return csr_matvec_p.bind(*mat._bufs, _jnp().asarray(v), shape=tuple(mat.shape),
                           transpose=bool(transpose))


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
  """``mat @ B`` (``mat.T @ B`` with ``transpose``) for a CSR matrix and a 2-D array.

  Example:
      >>> import ember.numpy as jnp
      >>> csr_matmat(CSR.fromdense(jnp.array([[1., 2.]])), jnp.ones((2, 1)))
      Array([[3.]], dtype=float32)
  """
  return csr_matmat_p.bind(*mat._bufs, _jnp().asarray(B), shape=tuple(mat.shape),
                           transpose=bool(transpose))


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
