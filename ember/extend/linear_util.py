"""JAX 0.10.2's ``jax.extend.linear_util``: functions wrapped with a stack of transformations,
for libraries that write traces of their own (``ember._src.linear_util`` holds them).

Example:
    >>> import warnings
    >>> from ember.extend import linear_util as lu
    >>> @lu.transformation
    ... def scale(k, *args):
    ...   out = yield tuple(k * a for a in args), {}
    ...   yield out + 1
    >>> with warnings.catch_warnings():
    ...   warnings.simplefilter("ignore", DeprecationWarning)
    ...   f = lu.wrap_init(lambda x, y: x * y)
    >>> scale(f, 2).call_wrapped(3, 4)
    49
"""
from __future__ import annotations

import warnings
from typing import Callable

from ember._src.linear_util import (StoreException, Store, WrappedFun, cache,  # noqa: F401
                                    merge_linear_aux, transformation, transformation2,
                                    transformation_with_aux, transformation_with_aux2)
from ember._src.linear_util import wrap_init as _wrap_init

__all__ = ["StoreException", "WrappedFun", "cache", "merge_linear_aux", "transformation",
           "transformation_with_aux", "transformation2", "transformation_with_aux2", "wrap_init"]


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
  """Wrap ``f`` with no transformation. As in JAX, leaving out ``debug_info`` (make one with
  ``ember.api_util.debug_info``) is deprecated and warns."""
  if debug_info is None:
    warnings.warn(
        "linear_util.wrap_init is missing a DebugInfo object. This behavior is deprecated, use "
        "api_util.debug_info() to construct a proper DebugInfo object and propagate it to this "
        "function. See https://github.com/jax-ml/jax/issues/26480 for more details.",
        DeprecationWarning, stacklevel=2)
  return _wrap_init(f, params, debug_info=debug_info)
