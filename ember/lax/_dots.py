"""lax's newer dot products (JAX 0.10.2): ``ragged_dot``, ``ragged_dot_general`` and
``scaled_dot``, with the configuration objects ``RaggedDotDimensionNumbers``, ``DotAlgorithm``,
``AccuracyMode`` and ``Tolerance``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import lax
    >>> lhs, rhs = jnp.ones((3, 2)), jnp.stack([jnp.ones((2, 2)), 2 * jnp.ones((2, 2))])
    >>> lax.ragged_dot(lhs, rhs, jnp.array([1, 2]))
    Array([[2., 2.],
           [4., 4.],
           [4., 4.]], dtype=float32)
"""
from __future__ import annotations

from ember import dtypes
from ember.core import trace as core
from ember.primitives.dot_config import AccuracyMode, DotAlgorithm, Tolerance
from ember.primitives.linalg import canonicalize_precision
from ember.primitives.ragged_dot import RaggedDotDimensionNumbers, ragged_dot_general_p
from ember.primitives.scaled_dot import default_scale, scaled_dot_p
from ember.backend.sharding import check_out_sharding

__all__ = ["ragged_dot", "ragged_dot_general", "scaled_dot", "RaggedDotDimensionNumbers",
           "DotAlgorithm", "AccuracyMode", "Tolerance"]

_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _check_values(name: str, *values) -> None:
  for i, v in enumerate(values):
    try:
      core.get_aval(v)
    except TypeError:
      raise TypeError(f"Error interpreting argument to {name} as a JAX value. The problematic "
                      f"value is of type {type(v)} and was passed to {name} at position "
                      f"{i}.") from None


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers,
                       precision=None, preferred_element_type=None, group_offset=None,
                       out_sharding=None):
  """A dot product whose lhs is split into groups along its ragged dimension
  (``ragged_dot_dimension_numbers``): group ``i`` has ``group_sizes[i]`` consecutive entries.

  If the ragged dimension is non-contracting, each entry is multiplied by its group's slice of
  the rhs group dimension; if it is contracting, the result has a leading group dimension (each
  group sums its entries); if it is a batch dimension, entries in no group give zeros.

  Raises:
    TypeError: for non-integer ``group_sizes``, bad dimension numbers or a ``group_offset``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> dn = lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])
      >>> lax.ragged_dot_general(jnp.ones((1, 3)), jnp.ones((3, 1)), jnp.array([1, 2]), dn)
      Array([[[1.]],
      <BLANKLINE>
             [[2.]]], dtype=float32)
  """
  if group_offset is not None:
    raise TypeError("ragged_dot_general: group_offset must be None (JAX 0.10.2 cannot take an "
                    "array there either: its param is not hashable).")
  if out_sharding is not None:
    check_out_sharding("ragged_dot_general", out_sharding)
  if not isinstance(ragged_dot_dimension_numbers, RaggedDotDimensionNumbers):
    raise TypeError("ragged_dot_general: ragged_dot_dimension_numbers must be a "
                    f"RaggedDotDimensionNumbers, got {ragged_dot_dimension_numbers!r}.")
  _check_values("ragged_dot_general", lhs, rhs, group_sizes)
  return ragged_dot_general_p.bind(
      lhs, rhs, group_sizes, ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
      precision=canonicalize_precision(precision), preferred_element_type=preferred_element_type,
      group_offset=None, out_sharding=None)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
  """``lhs[m, k]`` times ``rhs[g, k, n]`` by groups: row ``i`` of the lhs uses the rhs of its
  group, the groups taking ``group_sizes[0]``, ``group_sizes[1]``... consecutive rows; rows past
  the last group are zeros. Returns ``[m, n]``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> rhs = jnp.stack([jnp.eye(2), 2 * jnp.eye(2)])
      >>> lax.ragged_dot(jnp.ones((3, 2)), rhs, jnp.array([2, 0]))
      Array([[1., 1.],
             [1., 1.],
             [0., 0.]], dtype=float32)
  """
  return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type,
                            group_offset, out_sharding)


def _scaled_dims(lhs, dimension_numbers):
  if dimension_numbers is None:
    n = lhs.ndim
    if n < 2:
      raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
    return (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
  (lc, rc), (lb, rb) = dimension_numbers
  as_ints = lambda ds: tuple(int(d) for d in ds)  # noqa: E731
  return ((as_ints(lc), as_ints(rc)), (as_ints(lb), as_ints(rb)))


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
  """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` (``dot_general`` with ``dimension_numbers``,
  by default a batched matmul), in ``preferred_element_type`` (bfloat16 by default). Each
  scale entry applies to a block of contiguous entries along the contracting dimensions (a
  scale is smaller there by an integer factor of at least 2); a missing scale is ones.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lhs, rhs = jnp.ones((1, 2, 4)), jnp.ones((1, 4, 3))
      >>> lax.scaled_dot(lhs, rhs, lhs_scale=2 * jnp.ones((1, 2, 2)),
      ...                preferred_element_type=jnp.float32)
      Array([[[8., 8., 8.],
              [8., 8., 8.]]], dtype=float32)
  """
  dims = _scaled_dims(lhs, dimension_numbers)
  (lc, rc), _ = dims
  if lhs_scale is None:
    lhs_scale = default_scale(lhs.shape, lc)
  if rhs_scale is None:
    rhs_scale = default_scale(rhs.shape, rc)
  element_type = dtypes.bfloat16 if preferred_element_type is None else preferred_element_type
  element_type = dtypes.check_and_canonicalize_user_dtype(element_type, "scaled_dot")
  return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dims,
                           preferred_element_type=element_type)


