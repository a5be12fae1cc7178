"""``random_bcoo``: a BCOO array with random values at random positions.

Example:
    >>> import ember
    >>> random_bcoo(ember.random.key(0), (4, 5), nse=3)
    BCOO(float32[4, 5], nse=3)
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

from ember import random as _random
from ember.experimental.sparse.bcoo import BCOO
from ember.experimental.sparse.util import split_shape
from ember.numpy import float64 as _float64  # JAX's default: jnp.float64

__all__ = ["random_bcoo"]


def random_bcoo(key, shape: Sequence[int], *, dtype=_float64, indices_dtype=None,
                nse: float | int = 0.2, n_batch: int = 0, n_dense: int = 0,
                unique_indices: bool = True, sorted_indices: bool = False,
                generator: Callable[..., Any] = _random.uniform, **kwds) -> BCOO:
  """A random BCOO array: ``nse`` positions per batch drawn with ``random.choice`` (without
  replacement when ``unique_indices``), values from ``generator`` (``random.uniform``).

  Args:
    key: a PRNG key.
    shape: the array's shape.
    dtype: the values' dtype (float64, truncated to float32 with a warning unless x64 is on,
      as in JAX).
    indices_dtype: the indices' dtype (the default int dtype).
    nse: entries per batch, or a fraction (0 < nse < 1) of the sparse positions.
    n_batch, n_dense: the layout.
    unique_indices: draw positions without replacement.
    sorted_indices: sort each batch's indices.
    generator: ``generator(key, shape=, dtype=, **kwds)`` draws the values.

  Example:
      >>> import ember
      >>> M = random_bcoo(ember.random.key(1), (3, 3), nse=2, sorted_indices=True)
      >>> M.indices_sorted, M.nse
      (True, 2)
  """
  import ember
  import ember.numpy as jnp
  from ember import dtypes, random
  shape = tuple(operator.index(s) for s in shape)
  n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
  if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
    raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for shape={shape}")
  n_sparse = len(shape) - n_batch - n_dense
  batch, sparse, dense = split_shape(shape, n_batch, n_sparse)
  sparse_size = math.prod(sparse)
  if not 0 <= nse < sparse_size:
    raise ValueError(f"got nse={nse}, expected to be between 0 and {sparse_size}")
  if 0 < nse < 1:
    nse = int(math.ceil(nse * sparse_size))
  nse = operator.index(nse)
  if indices_dtype is None:
    indices_dtype = dtypes.canonicalize_dtype(int)
  if sparse_size > jnp.iinfo(indices_dtype).max:
    raise ValueError(f"indices_dtype={indices_dtype} does not have enough range to generate "
                     f"sparse indices of size {sparse_size}.")
  generator = random.uniform if generator is None else generator
  dtype = jnp.float_ if dtype is None else dtype

  def draw_indices(k):
    if not sparse:
      return jnp.zeros((nse, n_sparse), dtype=indices_dtype)
    flat = random.choice(k, sparse_size, shape=(nse,), replace=not unique_indices)
    return jnp.column_stack(jnp.unravel_index(flat.astype(indices_dtype), sparse))
  keys = random.split(key, math.prod(batch) + 1)
  data = generator(keys[0], shape=(*batch, nse, *dense), dtype=dtype, **kwds)
  indices = ember.vmap(draw_indices)(keys[1:]).reshape((*batch, nse, n_sparse))
  mat = BCOO((data, indices), shape=shape)
  return mat.sort_indices() if sorted_indices else mat


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
