"""The names of JAX 0.10.2's ``jax.extend.linear_util``, for libraries that import them.

This module differs from JAX: JAX's ``WrappedFun`` machinery (functions wrapped with
generator-based transformations) is internal to JAX's own transforms; ember's transforms do not
use it. The names import, so a
library whose other parts work on ember loads, but calling any of them raises
``NotImplementedError`` naming it.
"""
from __future__ import annotations

__all__ = ["wrap_init", "transformation", "transformation_with_aux", "cache"]


def _unsupported(name: str):
  raise NotImplementedError(
      f"ember.extend.linear_util.{name}: ember has no WrappedFun (JAX's internal "
      "function-wrapping API); transform the function with ember's public transforms "
      "(jit, vmap, grad, make_jaxpr...) instead.")


def wrap_init(f, params=None, *, debug_info=None):
  """Not supported: raises ``NotImplementedError`` (ember has no ``WrappedFun``).

  Example:
      >>> from ember.extend import linear_util as lu
      >>> lu.wrap_init(abs)
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.extend.linear_util.wrap_init: ember has no WrappedFun (JAX's internal function-wrapping API); transform the function with ember's public transforms (jit, vmap, grad, make_jaxpr...) instead.
  """
  _unsupported("wrap_init")


def _decorator(name: str):
  def decorate(gen):
    def transform(*args, **kwargs):
      _unsupported(name)
    transform.__name__ = getattr(gen, "__name__", name)
    transform.__doc__ = f"Not supported on ember: calling it raises NotImplementedError ({name})."
    return transform
  decorate.__name__ = name
  decorate.__doc__ = (
      f"Decorating succeeds (so modules that use ``@{name}`` import); calling the result "
      "raises ``NotImplementedError``.\n\n"
      "Example:\n"
      f"    >>> from ember.extend.linear_util import {name}\n"
      f"    >>> f = {name}(lambda: (yield))\n"
      "    >>> f()\n"
      "    Traceback (most recent call last):\n"
      "    ...\n"
      f"    NotImplementedError: ember.extend.linear_util.{name}: ember has no WrappedFun "
      "(JAX's internal function-wrapping API); transform the function with ember's public "
      "transforms (jit, vmap, grad, make_jaxpr...) instead.\n")
  return decorate


transformation = _decorator("transformation")
transformation_with_aux = _decorator("transformation_with_aux")
cache = _decorator("cache")
