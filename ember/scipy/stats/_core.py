"""Summary statistics of ``jax.scipy.stats``: ``mode``, ``rankdata`` and ``sem``."""
from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from ember import dtypes
from ember import lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike
from ember.scipy._util import promote_inexact as _promote_inexact
from ember.transforms.batching import vmap as _vmap
from ember.transforms.jit import jit as _jit

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_NAN_POLICIES = ("propagate", "omit", "raise")


class ModeResult(NamedTuple):
  """``mode``'s result: the most common values and how often each occurs."""
  mode: object
  count: object


def _check_nan_policy(name: str, nan_policy: str) -> None:
  """JAX's checks: only "propagate" is implemented (the others raise NotImplementedError)."""
  if nan_policy not in _NAN_POLICIES:
    raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                     "{'propagate', 'omit', 'raise'}")
  if nan_policy == "omit":
    raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
  if nan_policy == "raise":
    raise NotImplementedError(
        f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
        f"Please check if nans exist in `x` outside of the `{name}` function.")


def _mode_of_column(x):
  """The smallest most common value of the 1-D ``x`` and its count (NaN and 0. if empty)."""
  if x.size == 0:
    float_dtype = dtypes.default_float_dtype()
    return jnp.array(np.nan, dtype=float_dtype), jnp.array(0, dtype=float_dtype)
  values, counts = jnp.unique(x, return_counts=True, size=x.size)
  return values[jnp.argmax(counts)], counts.max()


def _mode(a, axis, nan_policy, keepdims):
  check_arraylike("mode", a)
  x = jnp.atleast_1d(a)
  _check_nan_policy("mode", nan_policy)
  if axis is not None:
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:  # JAX raises a plain ValueError here, not an AxisError
      raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    axis %= x.ndim
  if axis is None:
    out_shape = tuple(1 for _ in x.shape) if keepdims else ()
    axis, x = 0, x.ravel()
  elif keepdims:
    out_shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape))
  else:
    out_shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
  x = jnp.moveaxis(x, axis, 0)
  x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
  values, counts = _vmap(_mode_of_column, in_axes=1)(x)
  return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


_mode_jit = _jit(_mode, static_argnames=("axis", "nan_policy", "keepdims"))


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
  """The most common value along ``axis`` (the smallest of equally common ones) and its count.

  As in JAX: NaNs count as one value; ``axis=None`` works on the flattened array; only
  ``nan_policy="propagate"`` is implemented; an empty slice gives NaN with a count of 0.
  (a float). Compiled (JAX jits it too).

  Returns:
      ``ModeResult(mode, count)``.

  Raises:
      ValueError: for an unknown ``nan_policy`` or an out-of-range ``axis``.
      NotImplementedError: for ``nan_policy`` "omit" or "raise".

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import mode
      >>> mode(jnp.array([1, 2, 2, 3, 3]))
      ModeResult(mode=Array(2, dtype=int32), count=Array(2, dtype=int32))
  """
  return _mode_jit(a, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def _invert_permutation(i):
  return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


def _ranks(a, method):
  """The ranks of the 1-D, NaN-free ``a`` by ``method``."""
  out_dtype = dtypes.default_float_dtype()
  ordered, order = lax.sort_key_val(a, jnp.arange(a.size))
  inverse = _invert_permutation(order)
  if method == "ordinal":
    return (inverse + 1).astype(out_dtype)
  new = jnp.concatenate([jnp.array([True]), ordered[1:] != ordered[:-1]])  # starts of ties
  dense = new.cumsum()[inverse]
  if method == "dense":
    return dense.astype(out_dtype)
  ends = jnp.nonzero(new, size=ordered.size + 1, fill_value=new.size)[0].astype(out_dtype)
  if method == "max":
    return ends[dense]
  if method == "min":
    return ends[dense - 1] + 1
  return .5 * (ends[dense] + ends[dense - 1] + 1)  # "average"


def _rankdata(a, method, axis, nan_policy):
  check_arraylike("rankdata", a)
  _check_nan_policy("rankdata", nan_policy)
  if method not in ("average", "min", "max", "dense", "ordinal"):
    raise ValueError(f"unknown method '{method}'")
  if axis is not None:
    return jnp.apply_along_axis(rankdata, axis, a, method)
  a = jnp.ravel(a)
  out_dtype = dtypes.default_float_dtype()
  return lax.cond(jnp.any(jnp.isnan(a)), lambda v: jnp.full_like(v, jnp.nan, out_dtype),
                  lambda v: _ranks(v, method), a)


_rankdata_jit = _jit(_rankdata, static_argnames=("method", "axis", "nan_policy"))


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
  """The ranks (from 1) of the data, ties resolved by ``method``, in the default float dtype.

  ``method`` is "average", "min", "max", "dense" or "ordinal"; with ``axis=None`` the array is
  flattened, else each 1-D slice along ``axis`` is ranked. As in JAX, a NaN anywhere makes every
  rank NaN and only ``nan_policy="propagate"`` is implemented. Compiled (JAX jits it too).

  Raises:
      ValueError: for an unknown ``method`` or ``nan_policy``.
      NotImplementedError: for ``nan_policy`` "omit" or "raise".

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import rankdata
      >>> rankdata(jnp.array([3, 1, 2, 2]))
      Array([4. , 1. , 2.5, 2.5], dtype=float32)
  """
  return _rankdata_jit(a, method=method, axis=axis, nan_policy=nan_policy)


def _sem(a, axis, ddof, nan_policy, keepdims):
  b, = _promote_inexact("sem", a)
  if nan_policy == "propagate":
    size = b.size if axis is None else b.shape[axis]
    return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
  if nan_policy == "omit":
    count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
    return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
            / jnp.sqrt(count).astype(b.dtype))
  raise ValueError(f"{nan_policy} is not supported")


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
  """The standard error of the mean, ``std(a, ddof=ddof) / sqrt(n)``, along ``axis``.

  ``nan_policy="omit"`` ignores NaNs (``nanstd`` over the count of non-NaNs); "raise" is not
  supported (a ValueError, as in JAX). Unlike JAX's, not compiled as a whole, so ``ddof``
  must be concrete (JAX traces it).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import sem
      >>> sem(jnp.array([1., 2., 4.]))
      Array(0.8819171, dtype=float32)
  """
  return _sem(a, axis, ddof, nan_policy, keepdims)
