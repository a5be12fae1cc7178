"""lax's reductions, cumulative reductions, sorting, top_k and dot products.

Strict wrappers over the primitives of ``ember.primitives.reductions``, ``.sorting`` and
``.linalg``: static arguments (axes, dimensions, k, dimension numbers) are checked and turned
into Python ints here; shapes and dtypes are checked by the primitives.

Example:
    >>> from ember import lax
    >>> import numpy as np
    >>> lax.reduce_sum(np.arange(6, dtype=np.float32).reshape(2, 3), (0,))
    Array([3., 5., 7.], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from ember import dtypes
from ember.core import errors
from ember.core.trace import Tracer, get_aval
from ember.lax.elementwise import _example
from ember.primitives import linalg, reductions as red, sorting
from ember.primitives.linalg import DotAlgorithmPreset, Precision
from ember.backend.sharding import check_out_sharding

__all__ = [
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
    "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp",
    "sort", "sort_key_val", "top_k", "approx_max_k", "approx_min_k", "dot", "dot_general",
    "batch_matmul", "Precision",
    "DotAlgorithmPreset", "DotDimensionNumbers", "PrecisionLike",
    "reduce_sum_p", "reduce_prod_p", "reduce_max_p", "reduce_min_p", "reduce_and_p",
    "reduce_or_p", "reduce_xor_p", "argmax_p", "argmin_p", "cumsum_p", "cumprod_p", "cummax_p",
    "cummin_p", "cumlogsumexp_p", "sort_p", "top_k_p", "dot_general_p",
]

reduce_sum_p, reduce_prod_p = red.reduce_sum_p, red.reduce_prod_p
reduce_max_p, reduce_min_p = red.reduce_max_p, red.reduce_min_p
reduce_and_p, reduce_or_p, reduce_xor_p = red.reduce_and_p, red.reduce_or_p, red.reduce_xor_p
argmax_p, argmin_p = red.argmax_p, red.argmin_p
cumsum_p, cumprod_p, cummax_p = red.cumsum_p, red.cumprod_p, red.cummax_p
cummin_p, cumlogsumexp_p = red.cummin_p, red.cumlogsumexp_p
sort_p, top_k_p = sorting.sort_p, sorting.top_k_p
dot_general_p = linalg.dot_general_p

#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
PrecisionLike = "None | str | Precision | tuple[Precision, Precision] | DotAlgorithmPreset"


def _ints(seq) -> tuple[int, ...]:
  return tuple(operator.index(a) for a in seq)


def _canonical_axis(axis, ndim: int) -> int:
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim


# --- monoid reductions ------------------------------------------------------------------------

def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
  """Sum of ``operand`` over ``axes`` (0 for an empty reduction).

  Example:
      >>> import numpy as np
      >>> reduce_sum(np.ones((2, 3), np.int32), (1,))
      Array([3, 3], dtype=int32)
  """
  if out_sharding is not None:
    check_out_sharding("reduce_sum", out_sharding)
  return red.reduce_sum_p.bind(operand, axes=_ints(axes), out_sharding=None)


def _reducer(prim, doc: str, example_args: str, example_result: str):
  def f(operand, axes: Sequence[int]):
    return prim.bind(operand, axes=_ints(axes))
  f.__name__ = f.__qualname__ = prim.name
  f.__doc__ = (f"{doc} of ``operand`` over ``axes`` (a sequence of distinct non-negative "
               "ints); an empty reduction gives the identity."
               + _example(prim.name, example_args, example_result))
  return f


_INTS = "jnp.array([[1, 2], [3, 4]]), (1,)"
_BOOLS = "jnp.array([[True, False], [True, True]]), (1,)"
reduce_prod = _reducer(red.reduce_prod_p, "Product", _INTS, "Array([ 2, 12], dtype=int32)")
reduce_max = _reducer(red.reduce_max_p, "Maximum (NaN propagates; -inf or the smallest int when "
                      "empty)", _INTS, "Array([2, 4], dtype=int32)")
reduce_min = _reducer(red.reduce_min_p, "Minimum (NaN propagates; +inf or the largest int when "
                      "empty)", _INTS, "Array([1, 3], dtype=int32)")
reduce_and = _reducer(red.reduce_and_p, "Logical/bitwise AND (bool or integer dtypes)", _BOOLS,
                      "Array([False,  True], dtype=bool)")
reduce_or = _reducer(red.reduce_or_p, "Logical/bitwise OR (bool or integer dtypes)", _BOOLS,
                     "Array([ True,  True], dtype=bool)")
reduce_xor = _reducer(red.reduce_xor_p, "Logical/bitwise XOR (bool or integer dtypes)", _BOOLS,
                      "Array([ True, False], dtype=bool)")


# --- argmax / argmin --------------------------------------------------------------------------

def argmax(operand, axis: int, index_dtype):
  """Index of the largest element along ``axis`` (the first one on ties; NaN counts as the
  largest, so the first NaN's index is returned).

  Example:
      >>> import numpy as np
      >>> argmax(np.array([1., 3., 3.], np.float32), 0, np.int32)
      Array(1, dtype=int32)
  """
  index_dtype = dtypes.check_and_canonicalize_user_dtype(index_dtype, "argmax")
  return red.argmax_p.bind(operand, axes=(operator.index(axis),), index_dtype=index_dtype)


def argmin(operand, axis: int, index_dtype):
  """Index of the smallest element along ``axis`` (first on ties; the first NaN wins).

  Example:
      >>> import numpy as np
      >>> argmin(np.array([2, 0, 0], np.int32), 0, np.int32)
      Array(1, dtype=int32)
  """
  index_dtype = dtypes.check_and_canonicalize_user_dtype(index_dtype, "argmin")
  return red.argmin_p.bind(operand, axes=(operator.index(axis),), index_dtype=index_dtype)


# --- cumulative reductions --------------------------------------------------------------------

def _cumulative(prim, doc: str, example_result: str):
  def f(operand, axis: int = 0, reverse: bool = False):
    return prim.bind(operand, axis=operator.index(axis), reverse=bool(reverse))
  f.__name__ = f.__qualname__ = prim.name
  f.__doc__ = (f"Inclusive cumulative {doc} along ``axis`` (non-negative, as in JAX), from the "
               "end when ``reverse``." + _example(prim.name, "jnp.array([1., 3., 2.])",
                                                   example_result))
  return f


cumsum = _cumulative(red.cumsum_p, "sum", "Array([1., 4., 6.], dtype=float32)")
cumprod = _cumulative(red.cumprod_p, "product", "Array([1., 3., 6.], dtype=float32)")
cummax = _cumulative(red.cummax_p, "maximum", "Array([1., 3., 3.], dtype=float32)")
cummin = _cumulative(red.cummin_p, "minimum", "Array([1., 1., 1.], dtype=float32)")
cumlogsumexp = _cumulative(red.cumlogsumexp_p, "log-sum-exp",
                           "Array([1.       , 3.126928 , 3.4076061], dtype=float32)")


# --- sorting ----------------------------------------------------------------------------------

def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
  """Sort ``operand`` (an array, or a sequence of arrays of one shape) along ``dimension``.

  A sequence is sorted lexicographically by its first ``num_keys`` arrays and returned as a
  tuple. Floats sort with ``-0.0 == 0.0`` and every NaN last; complex by (real, imag).

  Example:
      >>> import numpy as np
      >>> sort(np.array([3., np.nan, -1.], np.float32))
      Array([-1.,  3., nan], dtype=float32)
  """
  single = not isinstance(operand, (list, tuple))
  operands = (operand,) if single else tuple(operand)
  num_keys = operator.index(num_keys)
  if single and num_keys != 1:
    raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
  if not operands:
    raise TypeError("Sort requires at least one operand")
  if not 1 <= num_keys <= len(operands):
    raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
  dimension = _canonical_axis(dimension, get_aval(operands[0]).ndim)
  if not isinstance(is_stable, (bool, int)):
    is_stable = bool(is_stable)
  outs = sorting.sort_p.bind(*operands, dimension=dimension, is_stable=is_stable,
                             num_keys=num_keys)
  return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
  """Sort ``keys`` along ``dimension`` and permute ``values`` the same way.

  Example:
      >>> import numpy as np
      >>> sort_key_val(np.array([2, 1], np.int32), np.array([5., 6.], np.float32))
      (Array([1, 2], dtype=int32), Array([6., 5.], dtype=float32))
  """
  k, v = sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)
  return k, v


def _static_k(k, operand_shape, axis: int) -> int:
  if isinstance(k, Tracer) and k.to_concrete_value() is None:
    raise errors.TracerBoolConversionError(k)
  try:
    return operator.index(k)
  except TypeError:
    shape = list(operand_shape)
    shape[axis] = k
    raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                    f"{shape}.") from None


def top_k(operand, k: int, *, axis: int = -1):
  """The ``k`` largest entries along ``axis`` and their int32 indices, largest first.

  NaNs count as larger than any number; ties go to the smaller index.

  Example:
      >>> import numpy as np
      >>> top_k(np.array([1., 5., 3.], np.float32), 2)
      [Array([5., 3.], dtype=float32), Array([1, 2], dtype=int32)]
  """
  shape = get_aval(operand).shape
  axis = _canonical_axis(axis, len(shape))
  k = _static_k(k, shape, axis)
  return list(sorting.top_k_p.bind(operand, k=k, axis=axis))


def _approx_k(operand, k, reduction_dimension, recall_target, is_max: bool, aggregate: bool):
  from ember.lax.structural import broadcasted_iota, slice_in_dim
  aval = get_aval(operand)
  if not dtypes.issubdtype(aval.dtype, np.floating):
    raise ValueError("operand must be a floating type")
  axis = _canonical_axis(reduction_dimension, len(aval.shape))
  n, k = aval.shape[axis], operator.index(k)
  if k <= 0:
    raise ValueError(f"k must be positive, got {k}")
  if k > n:
    raise ValueError(f"k must be smaller than the size of reduction_dim {n}, got {k}")
  if not 0 < recall_target <= 1:
    raise ValueError(f"recall_target must be in (0, 1], got {recall_target}")
  keep = k if aggregate else n
  if is_max:
    return top_k(operand, keep, axis=axis)
  iota = broadcasted_iota(np.int32, aval.shape, axis)
  values, indices = sort((operand, iota), dimension=axis, is_stable=True, num_keys=1)
  return [slice_in_dim(values, 0, keep, axis=axis), slice_in_dim(indices, 0, keep, axis=axis)]


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` largest entries along ``reduction_dimension`` and their int32 indices. As JAX on
  CPU and GPU, the result is exact (``top_k``): ``recall_target`` and
  ``reduction_input_size_override`` only tune TPU's approximate search; without
  ``aggregate_to_topk``, every entry comes back, sorted.

  Example:
      >>> import ember.numpy as jnp
      >>> approx_max_k(jnp.array([1., 5., 3.]), 2)
      [Array([5., 3.], dtype=float32), Array([1, 2], dtype=int32)]
  """
  del reduction_input_size_override
  return _approx_k(operand, k, reduction_dimension, recall_target, True, aggregate_to_topk)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` smallest entries along ``reduction_dimension`` and their int32 indices, smallest
  first (NaNs last, ties to the smaller index); exact, as :func:`approx_max_k`.

  Example:
      >>> import ember.numpy as jnp
      >>> approx_min_k(jnp.array([1., 5., 3.]), 2)
      [Array([1., 3.], dtype=float32), Array([0, 2], dtype=int32)]
  """
  del reduction_input_size_override
  return _approx_k(operand, k, reduction_dimension, recall_target, False, aggregate_to_topk)


# --- dot products -----------------------------------------------------------------------------

def _dim_tuple(ds) -> tuple[int, ...]:
  if isinstance(ds, Tracer) or not hasattr(ds, "__iter__"):
    return (operator.index(ds),)
  return _ints(ds)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
  """General tensor contraction: ``dimension_numbers = ((lhs_contracting, rhs_contracting),
  (lhs_batch, rhs_batch))``. The result has the batch dimensions, then lhs's free dimensions,
  then rhs's.

  Operands of different dtypes are allowed (the result has the wider one);
  ``preferred_element_type`` sets the result dtype (e.g. int8 inputs accumulated in int32).

  Example:
      >>> import numpy as np
      >>> x = np.ones((2, 3, 4), np.float32)
      >>> dot_general(x, x, (((2,), (2,)), ((0,), (0,)))).shape
      (2, 3, 3)
  """
  if out_sharding is not None:
    check_out_sharding("dot_general", out_sharding)
  try:
    (lc, rc), (lb, rb) = dimension_numbers
  except (TypeError, ValueError) as e:  # (the type unpacking gives, as in JAX)
    raise type(e)("dot_general dimension_numbers must be ((lhs_contracting_dims, "
                  "rhs_contracting_dims), (lhs_batch_dims, rhs_batch_dims)), got "
                  f"{dimension_numbers!r}.") from None
  dims = ((_dim_tuple(lc), _dim_tuple(rc)), (_dim_tuple(lb), _dim_tuple(rb)))
  if preferred_element_type is not None:
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                                      "dot_general")
  return linalg.dot_general_p.bind(lhs, rhs, dimension_numbers=dims,
                                   precision=linalg.canonicalize_precision(precision),
                                   preferred_element_type=preferred_element_type,
                                   out_sharding=None)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
  """Vector/matrix products (vector-vector, matrix-vector, vector-matrix, matrix-matrix), or
  ``dot_general`` when ``dimension_numbers`` is given.

  Example:
      >>> import numpy as np
      >>> dot(np.ones((2, 3), np.float32), np.ones(3, np.float32))
      Array([3., 3.], dtype=float32)
  """
  if dimension_numbers is None:
    ls, rs = get_aval(lhs).shape, get_aval(rhs).shape
    if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]):
      raise ValueError("lax.dot: dimension_numbers must be specified when not performing simple "
                       "un-batched matrix-matrix, matrix-vector, or vector-vector products; got "
                       f"lhs_shape={ls} rhs_shape={rs}")
    dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
  return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                     out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision=None):
  """Batched matrix product: ``lhs[..., i, j] @ rhs[..., j, k]`` with equal leading dims.

  Example:
      >>> import numpy as np
      >>> batch_matmul(np.ones((5, 2, 3), np.float32), np.ones((5, 3, 4), np.float32)).shape
      (5, 2, 4)
  """
  ln, rn = get_aval(lhs).ndim, get_aval(rhs).ndim
  if ln < 2 or rn < 2:
    raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {ln}, {rn}")
  if ln != rn:
    raise ValueError(f"Arguments to batch_matmul must have same ndim, got {ln}, {rn}")
  batch = tuple(range(ln - 2))
  return dot_general(lhs, rhs, (((ln - 1,), (ln - 2,)), (batch, batch)), precision=precision)
