"""ember.numpy products and diagonals: dot, matmul, vdot, vecdot, inner, outer, tensordot,
einsum, kron, trace, diagonal, diag, diagflat, cross, matvec, vecmat.

Contractions lower to ``dot_general`` with ``preferred_element_type`` set to the JAX result
type of the operands (ints stay ints, bools stay bools), as JAX does.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.dot(jnp.ones((3, 4)), jnp.arange(4.0))
    Array([6., 6., 6.], dtype=float32)
"""
from __future__ import annotations

import builtins
import operator
import string

import numpy as np

from ember import dtypes
from ember import lax
from ember.numpy._util import (canonicalize_axis, check_arraylike, check_out_sharding,
                               promote_dtypes)
from ember.numpy import _util
from ember.numpy.shape_ops import (_broadcast_to, _dtype, _ndim, _shape, _transpose, _wrap,
                                   moveaxis, ravel, reshape)
from ember.transforms.jit import jit as _jit

__all__ = ["dot", "vdot", "vecdot", "matmul", "inner", "outer", "tensordot", "einsum",
           "einsum_path", "kron", "trace", "diagonal", "diag", "diagflat", "cross", "matvec",
           "vecmat"]

_range = builtins.range


# --- helpers ----------------------------------------------------------------------------------

def _result_dtype(a, b, preferred_element_type):
  """(dtype of the product, whether it is weak) for operands ``a`` and ``b``."""
  if preferred_element_type is not None:
    return dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "dot"), False
  return dtypes.result_type(a, b, return_weak_type_flag=True)


def _finish(out, dt, weak: bool):
  if weak:
    return lax._convert_element_type(out, dt, True)
  return out


def _dotg(a, b, contract, batch, precision, dt):
  """``lax.dot_general`` with JAX's ``preferred_element_type`` (the product's dtype)."""
  (ca, cb), (ba, bb) = contract, batch
  dims = ((tuple(ca), tuple(cb)), (tuple(ba), tuple(bb)))
  return lax.dot_general(a, b, dims, precision=precision, preferred_element_type=dt)


def _scalar_mul(a, b, preferred_element_type):
  a, b = _util.promote_dtypes(a, b)
  out = lax.mul(*_util.promote_shapes("dot", a, b))
  if preferred_element_type is not None:
    out = lax._convert_element_type(out, preferred_element_type)
  return _wrap(out)


def _conj_if_complex(x):
  if dtypes.is_complex(_dtype(x)):
    return lax.conj(x)
  return x


# --- dot and friends --------------------------------------------------------------------------

def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """Dot product: sum over the last axis of ``a`` and the second-to-last (or only) of ``b``.

  Scalars multiply elementwise; 2-D operands give the matrix product.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.dot(jnp.array([[1, 2], [3, 4]]), jnp.array([1, 1]))
      Array([3, 7], dtype=int32)
  """
  check_out_sharding("dot", out_sharding)
  check_arraylike("dot", a, b)
  na, nb = _ndim(a), _ndim(b)
  if na == 0 or nb == 0:
    return _scalar_mul(a, b, preferred_element_type)
  dt, weak = _result_dtype(a, b, preferred_element_type)
  out = _dotg(a, b, ((na - 1,), (builtins.max(nb - 2, 0),)), ((), ()), precision, dt)
  return _finish(out, dt, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
  """Dot product of the flattened inputs, conjugating ``a`` if it is complex.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.vdot(jnp.array([1j, 2]), jnp.array([1j, 3]))
      Array(7.+0.j, dtype=complex64)
  """
  check_arraylike("vdot", a, b)
  return dot(ravel(_conj_if_complex(a)), ravel(b), precision=precision,
             preferred_element_type=preferred_element_type)


def _broadcasting_dot(a, b, a_nb: int, b_nb: int, a_row: bool, b_col: bool, precision, dt,
                      fun_name: str):
  """Contract ``a[..., (m,) k]`` with ``b[..., k, (n,)]`` broadcasting the leading batch dims.

  Batch dims present in both operands with equal sizes become ``dot_general`` batch dims;
  others are free dims of one operand (size-1 dims facing a larger one are squeezed), and a
  final transpose puts the output in broadcast order: ``batch..., (m,) (n,)``.
  """
  sa, sb = _shape(a), _shape(b)
  nbatch = builtins.max(a_nb, b_nb)
  a_batch = (None,) * (nbatch - a_nb) + tuple(_range(a_nb))
  b_batch = (None,) * (nbatch - b_nb) + tuple(_range(b_nb))
  a_squeeze, b_squeeze = [], []
  shared, a_free, b_free = [], [], []   # entries: output batch position
  for i, (ia, ib) in enumerate(zip(a_batch, b_batch)):
    da = None if ia is None else sa[ia]
    db = None if ib is None else sb[ib]
    if da is not None and db is not None and da == db:
      shared.append((i, ia, ib))
    elif db is None:
      a_free.append((i, ia))
    elif da is None:
      b_free.append((i, ib))
    elif da == 1:
      a_squeeze.append(ia)
      b_free.append((i, ib))
    elif db == 1:
      b_squeeze.append(ib)
      a_free.append((i, ia))
    else:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={[sa[:a_nb], sb[:b_nb]]}")
  if a_squeeze:
    a = lax.squeeze(a, tuple(a_squeeze))
  if b_squeeze:
    b = lax.squeeze(b, tuple(b_squeeze))

  def remap(dim, squeezed):
    return dim - sum(1 for s in squeezed if s < dim)

  na, nb = _ndim(a), _ndim(b)
  ca, cb = na - 1, (nb - 2 if b_col else nb - 1)
  batch_a = [remap(ia, a_squeeze) for _, ia, _ in shared]
  batch_b = [remap(ib, b_squeeze) for _, _, ib in shared]
  out = _dotg(a, b, ((ca,), (cb,)), (batch_a, batch_b), precision, dt)
  # positions in the dot_general output: batch, a's free dims (in a's order), b's free dims
  pos = {}
  for k, (i, _, _) in enumerate(shared):
    pos[("batch", i)] = k
  k = len(shared)
  a_free_sorted = sorted(a_free, key=lambda t: t[1])
  for i, _ in a_free_sorted:
    pos[("batch", i)] = k
    k += 1
  if a_row:
    pos["row"] = k
    k += 1
  for i, _ in sorted(b_free, key=lambda t: t[1]):
    pos[("batch", i)] = k
    k += 1
  if b_col:
    pos["col"] = k
    k += 1
  perm = [pos[("batch", i)] for i in _range(nbatch)]
  if a_row:
    perm.append(pos["row"])
  if b_col:
    perm.append(pos["col"])
  return _transpose(out, tuple(perm))


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """Matrix product with NumPy's rules: 1-D operands are promoted to matrices (and the added
  axis removed afterwards); leading batch dimensions broadcast.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.matmul(jnp.ones((5, 2, 3)), jnp.ones((3, 4))).shape
      (5, 2, 4)
  """
  check_out_sharding("matmul", out_sharding)
  check_arraylike("matmul", a, b)
  for i, x in enumerate((a, b)):
    if _ndim(x) < 1:
      raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has ndim "
                       f"{_ndim(x)}")
  sa, sb = _shape(a), _shape(b)
  a_row, b_col = len(sa) > 1, len(sb) > 1
  ka = sa[-1]
  kb = sb[-2] if b_col else sb[0]
  if ka != kb:  # JAX leaves this to dot_general's check
    raise TypeError("dot_general requires contracting dimensions to have the same shape, got "
                    f"{(ka,)} and {(kb,)}.")
  try:
    _util.broadcast_shapes(sa[:-2], sb[:-2])
  except ValueError:
    raise ValueError("Incompatible types for matmul arguments: "
                     f"{_short(a)} and {_short(b)}") from None
  dt, weak = _result_dtype(a, b, preferred_element_type)
  out = _broadcasting_dot(a, b, builtins.max(len(sa) - 2, 0), builtins.max(len(sb) - 2, 0),
                          a_row, b_col, precision, dt, "matmul")
  return _finish(out, dt, weak)


def _short(x) -> str:
  return f"{_dtype(x).name}[{','.join(map(str, _shape(x)))}]"


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  """Vector dot product along ``axis`` (conjugating ``x1``), broadcasting the other axes.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.vecdot(jnp.ones((2, 3)), jnp.arange(3.0))
      Array([3., 3.], dtype=float32)
  """
  check_arraylike("vecdot", x1, x2)
  s1, s2 = _shape(x1), _shape(x2)
  ax1, ax2 = canonicalize_axis(axis, len(s1)), canonicalize_axis(axis, len(s2))
  if s1[ax1] != s2[ax2]:
    raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
  x1 = moveaxis(_conj_if_complex(x1), ax1, -1)
  x2 = moveaxis(x2, ax2, -1)
  _util.broadcast_shapes(_shape(x1)[:-1], _shape(x2)[:-1])
  dt, weak = _result_dtype(x1, x2, preferred_element_type)
  out = _broadcasting_dot(x1, x2, len(s1) - 1, len(s2) - 1, False, False, precision, dt,
                          "vecdot")
  return _finish(out, dt, weak)


def _check_core(name: str, got: int, want: int, sig: str):
  if got != want:
    raise ValueError(f"inconsistent size for core dimension '{name}': {got} vs {want} in "
                     f"signature '{sig}'")


def matvec(x1, x2, /):
  """Matrix-vector product ``x1[..., m, n] @ x2[..., n]`` with broadcast batch dimensions.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.matvec(jnp.ones((2, 3)), jnp.arange(3.0))
      Array([3., 3.], dtype=float32)
  """
  check_arraylike("matvec", x1, x2)
  s1, s2 = _shape(x1), _shape(x2)
  if len(s1) < 2 or len(s2) < 1:
    raise ValueError(f"matvec requires x1.ndim >= 2 and x2.ndim >= 1, got {s1} and {s2}")
  _check_core("m", s2[-1], s1[-1], "(n,m),(m)->(n)")
  dt, weak = _result_dtype(x1, x2, None)
  out = _matvec_jit(x1, x2)
  return _finish(out, dt, weak)


def _matvec(x1, x2):
  dt, _ = _result_dtype(x1, x2, None)
  return _broadcasting_dot(x1, x2, _ndim(x1) - 2, _ndim(x2) - 1, True, False, None, dt,
                           "matvec")


_matvec_jit = _jit(_matvec)
_matvec_jit.__name__ = "matvec"


def vecmat(x1, x2, /):
  """Vector-matrix product ``conj(x1[..., m]) @ x2[..., m, n]`` with broadcast batch dims.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.vecmat(jnp.arange(2.0), jnp.ones((2, 3)))
      Array([1., 1., 1.], dtype=float32)
  """
  check_arraylike("vecmat", x1, x2)
  s1, s2 = _shape(x1), _shape(x2)
  if len(s1) < 1 or len(s2) < 2:
    raise ValueError(f"vecmat requires x1.ndim >= 1 and x2.ndim >= 2, got {s1} and {s2}")
  _check_core("n", s1[-1], s2[-2], "(n),(n,m)->(m)")
  dt, weak = _result_dtype(x1, x2, None)
  return _finish(_vecmat_jit(x1, x2), dt, weak)


def _vecmat(x1, x2):
  dt, _ = _result_dtype(x1, x2, None)
  # contract x2[..., m, n] with conj(x1)[..., m]: matvec of x2's transpose
  x2t = moveaxis(x2, -1, -2)
  return _broadcasting_dot(x2t, _conj_if_complex(x1), _ndim(x2) - 2, _ndim(x1) - 1, True,
                           False, None, dt, "vecmat")


_vecmat_jit = _jit(_vecmat)
_vecmat_jit.__name__ = "vecmat"


def inner(a, b, *, precision=None, preferred_element_type=None):
  """Inner product over the last axes of ``a`` and ``b``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.inner(jnp.ones((2, 3)), jnp.arange(3.0))
      Array([3., 3.], dtype=float32)
  """
  check_arraylike("inner", a, b)
  na, nb = _ndim(a), _ndim(b)
  if na == 0 or nb == 0:
    return _scalar_mul(a, b, preferred_element_type)
  dt, weak = _result_dtype(a, b, preferred_element_type)
  out = _dotg(a, b, ((na - 1,), (nb - 1,)), ((), ()), precision, dt)
  return _finish(out, dt, weak)


def outer(a, b, out=None):
  """Outer product of the flattened inputs: ``result[i, j] = a[i] * b[j]``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.outer(jnp.arange(2), jnp.arange(3))
      Array([[0, 0, 0],
             [0, 1, 2]], dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
  check_arraylike("outer", a, b)
  a, b = promote_dtypes(ravel(a), ravel(b))
  m, n = _shape(a)[0], _shape(b)[0]
  return lax.mul(lax.broadcast_in_dim(a, (m, 1), (0,)), lax.broadcast_in_dim(b, (1, n), (1,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
  """Sum products over the given axes: the last ``axes`` of ``a`` with the first of ``b``, or
  explicit ``(axes_a, axes_b)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
      (2, 5)
  """
  check_out_sharding("tensordot", out_sharding)
  check_arraylike("tensordot", a, b)
  sa, sb = _shape(a), _shape(b)
  if type(axes) is int or isinstance(axes, (np.integer,)):
    axes = int(axes)
    if axes > builtins.min(len(sa), len(sb)):
      raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks ({sa} and "
                      f"{sb})")
    if axes < 0:
      raise TypeError(f"tensordot requires a non-negative number of axes, got axes={axes}")
    ca = tuple(_range(len(sa) - axes, len(sa)))
    cb = tuple(_range(axes))
  elif isinstance(axes, (list, tuple)) and len(axes) == 2:
    ax_a, ax_b = axes
    ax_a = tuple(ax_a) if isinstance(ax_a, (list, tuple)) else (ax_a,)
    ax_b = tuple(ax_b) if isinstance(ax_b, (list, tuple)) else (ax_b,)
    if len(ax_a) != len(ax_b):
      raise TypeError("tensordot requires axes lists to have equal length, got "
                      f"{ax_a} and {ax_b}.")
    ca = tuple(canonicalize_axis(i, len(sa)) for i in ax_a)
    cb = tuple(canonicalize_axis(i, len(sb)) for i in ax_b)
  else:
    raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                    f"lists/tuples of ints, got {axes!r}.")
  dt, weak = _result_dtype(a, b, preferred_element_type)
  return _finish(_dotg(a, b, (ca, cb), ((), ()), precision, dt), dt, weak)


def kron(a, b):
  """Kronecker product: blocks of ``b`` scaled by each element of ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.kron(jnp.array([1, 2]), jnp.array([1, 10]))
      Array([ 1, 10,  2, 20], dtype=int32)
  """
  check_arraylike("kron", a, b)
  return _kron_jit(a, b)


def _kron(a, b):
  a, b = promote_dtypes(a, b)
  sa, sb = _shape(a), _shape(b)
  nd = builtins.max(len(sa), len(sb))
  sa = (1,) * (nd - len(sa)) + sa
  sb = (1,) * (nd - len(sb)) + sb
  a = reshape(a, sa) if _ndim(a) != nd else a
  b = reshape(b, sb) if _ndim(b) != nd else b
  if nd == 0:
    return lax.mul(a, b)
  a2 = lax.broadcast_in_dim(a, tuple(v for d in sa for v in (d, 1)), tuple(_range(0, 2 * nd, 2)))
  b2 = lax.broadcast_in_dim(b, tuple(v for d in sb for v in (1, d)), tuple(_range(1, 2 * nd, 2)))
  return lax.reshape(lax.mul(a2, b2), tuple(x * y for x, y in zip(sa, sb)))


_kron_jit = _jit(_kron)
_kron_jit.__name__ = "kron"


# --- diagonals --------------------------------------------------------------------------------

def _diag_len(m: int, n: int, offset: int) -> int:
  return builtins.max(0, builtins.min(m + builtins.min(offset, 0), n - builtins.max(offset, 0)))


def _diagonal_mask(shape: tuple, axis1: int, axis2: int, offset: int):
  i = lax.broadcasted_iota(np.int32, shape, axis1)
  j = lax.broadcasted_iota(np.int32, shape, axis2)
  return lax.eq(lax.add(i, np.int32(offset)), j)


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
  """The ``offset``-th diagonal of the 2-D slices along ``axis1``/``axis2``, as the last axis.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.diagonal(jnp.arange(9).reshape(3, 3), 1)
      Array([1, 5], dtype=int32)
  """
  check_arraylike("diagonal", a)
  shp = _shape(a)
  if len(shp) < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  ax1, ax2 = canonicalize_axis(axis1, len(shp)), canonicalize_axis(axis2, len(shp))
  if ax1 == ax2:
    raise TypeError(f"diagonal: axis1 and axis2 must not be equal, got axis1={axis1} and "
                    f"axis2={axis2}.")  # (a TypeError, as JAX's transpose gives)
  return _diagonal_jit(a, offset=operator.index(offset), axis1=ax1, axis2=ax2)


def _diagonal(a, *, offset, axis1, axis2):
  nd = _ndim(a)
  perm = tuple(i for i in _range(nd) if i not in (axis1, axis2)) + (axis1, axis2)
  a = _transpose(a, perm)
  shp = _shape(a)
  m, n = shp[-2], shp[-1]
  k = _diag_len(m, n, offset)
  lead = shp[:-2]
  if k == 0:
    return lax.full(lead + (0,), 0, _dtype(a))
  flat = lax.reshape(a, lead + (m * n,))
  start = offset if offset >= 0 else -offset * n
  stop = start + (k - 1) * (n + 1) + 1
  z = (0,) * len(lead)
  return lax.slice(flat, z + (start,), lead + (stop,), (1,) * len(lead) + (n + 1,))


_diagonal_jit = _jit(_diagonal, static_argnames=("offset", "axis1", "axis2"))
_diagonal_jit.__name__ = "diagonal"


def _sum_dtype(dt):
  """NumPy/JAX's accumulation dtype for sums: small ints widen to the default int size."""
  if dtypes.is_bool(dt):
    return dtypes.default_int_dtype()
  if dtypes.is_unsigned(dt):
    d = dtypes.default_uint_dtype()
    return d if np.dtype(dt).itemsize < np.dtype(d).itemsize else dt
  if dtypes.is_integer(dt):
    d = dtypes.default_int_dtype()
    return d if np.dtype(dt).itemsize < np.dtype(d).itemsize else dt
  return dt


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
  """Sum along a diagonal (of the 2-D slices along ``axis1``/``axis2``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.trace(jnp.arange(9).reshape(3, 3))
      Array(12, dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
  check_arraylike("trace", a)
  shp = _shape(a)
  ax1, ax2 = canonicalize_axis(axis1, len(shp)), canonicalize_axis(axis2, len(shp))
  if ax1 == ax2:
    raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
  if dtype is None:
    dt = _sum_dtype(_dtype(a))
  else:
    dt = dtypes.check_and_canonicalize_user_dtype(dtype, "trace")
  return _trace_jit(a, offset=operator.index(offset), axis1=ax1, axis2=ax2, dtype=dt)


def _trace(a, *, offset, axis1, axis2, dtype):
  from ember.numpy.searching import _where_jit
  shp = _shape(a)
  mask = _diagonal_mask(shp, axis1, axis2, offset)
  a = _where_jit(mask, a, lax.full(shp, 0, _dtype(a)))
  if _dtype(a) != dtype:
    a = lax._convert_element_type(a, dtype)
  return lax.reduce_sum(a, (axis1, axis2))


_trace_jit = _jit(_trace, static_argnames=("offset", "axis1", "axis2", "dtype"))
_trace_jit.__name__ = "trace"


def diag(v, k: int = 0):
  """The ``k``-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on that diagonal.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.diag(jnp.array([1, 2]))
      Array([[1, 0],
             [0, 2]], dtype=int32)
  """
  check_arraylike("diag", v)
  k = operator.index(k)
  nd = _ndim(v)
  if nd == 1:
    return _diag_jit(v, k=k)
  if nd == 2:
    return diagonal(v, offset=k)
  raise ValueError("diag input must be 1d or 2d")


def _diag(v, *, k):
  n = _shape(v)[0] + abs(k)
  v = lax.pad(v, np.zeros((), _dtype(v)), ((builtins.max(-k, 0), builtins.max(k, 0), 0),))
  from ember.numpy.searching import _where_jit
  mask = _diagonal_mask((n, n), 0, 1, k)
  col = lax.broadcast_in_dim(v, (n, 1), (0,))
  return _where_jit(mask, col, np.zeros((), _dtype(v)))


_diag_jit = _jit(_diag, static_argnames=("k",))
_diag_jit.__name__ = "_diag"


def diagflat(v, k: int = 0):
  """A 2-D array with the flattened ``v`` on the ``k``-th diagonal.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.diagflat(jnp.array([[1, 2]]))
      Array([[1, 0],
             [0, 2]], dtype=int32)
  """
  check_arraylike("diagflat", v)
  return diag(ravel(v), k)


# --- cross product ----------------------------------------------------------------------------

def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
  """Cross product of 2- or 3-element vectors along ``axisa``/``axisb`` (broadcasting others).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cross(jnp.array([1, 0, 0]), jnp.array([0, 1, 0]))
      Array([0, 0, 1], dtype=int32)
  """
  check_arraylike("cross", a, b)
  if axis is not None:
    axisa = axisb = axisc = axis
  a = moveaxis(a, axisa, -1)
  b = moveaxis(b, axisb, -1)
  na, nb = _shape(a)[-1], _shape(b)[-1]
  if na not in (2, 3) or nb not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  return _cross_jit(a, b, axisc=axisc)


def _cross(a, b, *, axisc):
  a, b = promote_dtypes(a, b)
  na, nb = _shape(a)[-1], _shape(b)[-1]
  lead = _util.broadcast_shapes(_shape(a)[:-1], _shape(b)[:-1])

  def comp(x, i):
    nd = _ndim(x)
    s = lax.slice(x, (0,) * (nd - 1) + (i,), _shape(x)[:-1] + (i + 1,))
    return _broadcast_to(lax.squeeze(s, (nd - 1,)), lead)

  a0, a1 = comp(a, 0), comp(a, 1)
  b0, b1 = comp(b, 0), comp(b, 1)
  if na == 2 and nb == 2:
    return lax.sub(lax.mul(a0, b1), lax.mul(a1, b0))
  a2 = comp(a, 2) if na == 3 else None
  b2 = comp(b, 2) if nb == 3 else None
  c2 = lax.sub(lax.mul(a0, b1), lax.mul(a1, b0))
  if a2 is None:
    c0, c1 = lax.mul(a1, b2), lax.neg(lax.mul(a0, b2))
  elif b2 is None:
    c0, c1 = lax.neg(lax.mul(a2, b1)), lax.mul(a2, b0)
  else:
    c0 = lax.sub(lax.mul(a1, b2), lax.mul(a2, b1))
    c1 = lax.sub(lax.mul(a2, b0), lax.mul(a0, b2))
  nd = len(lead)
  parts = [lax.broadcast_in_dim(c, lead + (1,), tuple(_range(nd))) for c in (c0, c1, c2)]
  c = lax.concatenate(parts, nd)
  return moveaxis(c, -1, axisc)


_cross_jit = _jit(_cross, static_argnames=("axisc",))
_cross_jit.__name__ = "cross"


# --- einsum -----------------------------------------------------------------------------------

_LETTERS = string.ascii_letters


def _parse_interleaved(args):
  """einsum(op0, sub0, op1, sub1, ..., [out]) -> (subscripts string, operands)."""
  args = list(args)
  out = None
  if len(args) % 2 == 1:
    out = args.pop()
  ops, subs = args[0::2], args[1::2]

  def conv(sub):
    s = ""
    for v in sub:
      if v is Ellipsis:
        s += "..."
      else:
        i = operator.index(v)
        if not 0 <= i < len(_LETTERS):
          raise ValueError(f"einsum: subscript index {i} is out of range [0, 52)")
        s += _LETTERS[i]
    return s

  text = ",".join(conv(s) for s in subs)
  if out is not None:
    text += "->" + conv(out)
  return text, ops


def _parse_subscripts(subscripts: str, shapes: list):
  """Expand ellipses and work out the output; return (input label lists, output labels)."""
  subscripts = subscripts.replace(" ", "")
  if "->" in subscripts:
    ins, out = subscripts.split("->")
    explicit = True
  else:
    ins, out, explicit = subscripts, None, False
  in_terms = ins.split(",")
  if len(in_terms) != len(shapes):
    raise ValueError(f"Number of einsum subscripts, {len(in_terms)}, must be equal to the "
                     f"number of operands, {len(shapes)}.")
  used = set(c for c in subscripts if c not in ".,->")  # any other symbol is a label, as in JAX
  free = [c for c in _LETTERS if c not in used]
  ell_nd = 0
  for term, shp in zip(in_terms, shapes):
    if "..." in term:
      ell_nd = builtins.max(ell_nd, len(shp) - (len(term) - 3))
  ell = free[:ell_nd]
  labels = []
  for i, (term, shp) in enumerate(zip(in_terms, shapes)):
    if "..." in term:
      k = len(shp) - (len(term) - 3)
      if k < 0:
        raise ValueError(f"Einstein sum subscript '{term}' does not contain the correct "
                         f"number of indices for operand {i}.")
      term = term.replace("...", "".join(ell[ell_nd - k:]))
    for c in term:
      if c in ".->":
        raise ValueError(f"einsum: invalid subscript character {c!r} in '{subscripts}'")
    if len(term) != len(shp):
      raise ValueError(f"Einstein sum subscript '{in_terms[i]}' does not contain the correct "
                       f"number of indices for operand {i}.")
    labels.append(list(term))
  if explicit:
    out = out.replace("...", "".join(ell))
    for c in out:
      if not any(c in t for t in labels):
        raise ValueError(f"Output character '{c}' did not appear in the input")
    if len(set(out)) != len(out):
      c = next(c for c in out if out.count(c) > 1)
      raise ValueError(f"Output character '{c}' appeared more than once in the output.")
    out_labels = list(out)
  else:
    counts = {}
    for t in labels:
      for c in t:
        counts[c] = counts.get(c, 0) + 1
    out_labels = list(ell) + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
  return labels, out_labels


def _label_sizes(labels, shapes):
  sizes = {}
  for i, (t, shp) in enumerate(zip(labels, shapes)):
    for c, d in zip(t, shp):
      if c in sizes and sizes[c] != d and 1 not in (sizes[c], d):
        raise ValueError(f"Size of label '{c}' for operand {i} ({sizes[c]}) does not match "
                         f"previous terms ({d}).")
      sizes[c] = d if c not in sizes or sizes[c] == 1 else sizes[c]
  return sizes


def _sum_axes(x, axes):
  if not axes:
    return x
  if dtypes.is_bool(_dtype(x)):
    return lax.reduce_or(x, tuple(axes))
  return lax.reduce_sum(x, tuple(axes))


def _einsum_single(x, labels: list, keep: set):
  """Take diagonals of repeated labels and sum out labels not in ``keep`` (one reduction).

  Entries off the diagonal of a repeated label are zeroed with a mask, so summing over the
  duplicate axes leaves the diagonal.
  """
  shp = _shape(x)
  drop = set()
  for i, c in enumerate(labels):
    first = labels.index(c)
    if first != i:
      mask = lax.eq(lax.broadcasted_iota(np.uint32, shp, first),
                    lax.broadcasted_iota(np.uint32, shp, i))
      x = lax.select(mask, x, lax.full(shp, 0, _dtype(x)))
      drop.add(i)
    elif c not in keep:
      drop.add(i)
  x = _sum_axes(x, sorted(drop))
  labels = [c for i, c in enumerate(labels) if i not in drop]
  return x, labels


def _einsum_pair(a, la, b, lb, keep: set, sizes: dict, precision, dt):
  """Contract two operands: shared labels kept afterwards are batch dims, others contract."""
  # broadcast size-1 dims that face a larger one in the other operand
  for x_is_a in (True, False):
    x, lx = (a, la) if x_is_a else (b, lb)
    shp = list(_shape(x))
    if any(shp[i] != sizes[c] for i, c in enumerate(lx)):
      tgt = tuple(sizes[c] for c in lx)
      x = lax.broadcast_in_dim(x, tgt, tuple(_range(len(tgt))))
      if x_is_a:
        a = x
      else:
        b = x
  shared = [c for c in la if c in lb]
  batch = [c for c in shared if c in keep]
  contract = [c for c in shared if c not in keep]
  out = _dotg(a, b, ([la.index(c) for c in contract], [lb.index(c) for c in contract]),
                     ([la.index(c) for c in batch], [lb.index(c) for c in batch]), precision, dt)
  labels = batch + [c for c in la if c not in shared] + [c for c in lb if c not in shared]
  return out, labels


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
  """Einstein summation: ``einsum('ij,jk->ik', a, b)`` is the matrix product.

  Supports implicit and explicit outputs, ellipses, repeated labels (diagonals and traces)
  and the interleaved ``einsum(a, [0, 1], b, [1, 2])`` form. Operands are contracted pairwise
  from left to right with ``dot_general``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.einsum("ii", jnp.arange(9).reshape(3, 3))
      Array(12, dtype=int32)
  """
  check_out_sharding("einsum", out_sharding)
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  if not isinstance(subscripts, str):
    subscripts, operands = _parse_interleaved((subscripts,) + operands)
  check_arraylike("einsum", *operands)
  if not operands:
    raise ValueError("einsum: at least one operand is required")
  shapes = [_shape(x) for x in operands]
  labels, out_labels = _parse_subscripts(subscripts, shapes)
  sizes = _label_sizes(labels, shapes)
  if preferred_element_type is None:
    dt, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
  else:
    dt = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "einsum")
    weak = False
  ops = list(promote_dtypes(*operands)) if len(operands) > 1 else [_wrap(operands[0])]
  ops = list(zip(ops, labels))
  # reduce each operand by itself first: diagonals and labels that appear nowhere else
  reduced = []
  for i, (x, lx) in enumerate(ops):
    elsewhere = set(out_labels).union(*[set(l) for j, (_, l) in enumerate(ops) if j != i])
    reduced.append(_einsum_single(x, lx, elsewhere))
  x, lx = reduced[0]
  for i in _range(1, len(reduced)):
    y, ly = reduced[i]
    keep = set(out_labels).union(*[set(l) for _, l in reduced[i + 1:]])
    x, lx = _einsum_pair(x, lx, y, ly, keep, sizes, precision, dt)
    x, lx = _einsum_single(x, lx, keep)
  # broadcast size-1 dims and order the output
  x, lx = _einsum_single(x, lx, set(out_labels))
  perm = tuple(lx.index(c) for c in out_labels)
  x = _transpose(x, perm)
  tgt = tuple(sizes[c] for c in out_labels)
  if _shape(x) != tgt:
    x = lax.broadcast_in_dim(x, tgt, tuple(_range(len(tgt))))
  if _dtype(x) != dt:
    x = lax._convert_element_type(x, dt)
  return _finish(x, dt, weak)


def einsum_path(subscripts, /, *operands, optimize="auto"):
  """The (naive, left-to-right) contraction path :func:`einsum` uses, and a description.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.einsum_path("ij,jk", jnp.ones((2, 3)), jnp.ones((3, 4)))[0]
      [(0, 1)]
  """
  if not isinstance(subscripts, str):
    subscripts, operands = _parse_interleaved((subscripts,) + operands)
  shapes = [_shape(x) for x in operands]
  labels, out_labels = _parse_subscripts(subscripts, shapes)
  path = [(0, 1)] * (len(operands) - 1) if len(operands) > 1 else [(0,)]
  desc = (f"  Complete contraction:  {','.join(''.join(l) for l in labels)}->"
          f"{''.join(out_labels)}\n  Naive left-to-right pairwise contraction order.")
  return path, desc
