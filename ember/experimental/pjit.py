"""``pjit``: the older name of ``jit`` with ``in_shardings``/``out_shardings`` (mirrors
``jax.experimental.pjit``, where reading ``pjit`` warns that it is deprecated).

Example:
    >>> import warnings
    >>> import ember.numpy as jnp
    >>> from ember.experimental import pjit as pjit_module
    >>> with warnings.catch_warnings():
    ...   warnings.simplefilter("ignore")
    ...   pjit = pjit_module.pjit
    >>> pjit(lambda x: x * 2)(jnp.ones(2))
    Array([2., 2.], dtype=float32)
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from ember.transforms.jit import jit

__all__: list = []


def _pjit(fun: Callable, in_shardings: Any = None, out_shardings: Any = None,
          static_argnums=None, static_argnames=None, donate_argnums=None, donate_argnames=None,
          keep_unused: bool = False, device=None, backend=None, inline: bool = False,
          compiler_options=None):
  """``jit(fun, in_shardings=..., out_shardings=..., ...)`` (deprecated: use ``jit``)."""
  return jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
             static_argnums=static_argnums, static_argnames=static_argnames,
             donate_argnums=donate_argnums, donate_argnames=donate_argnames,
             keep_unused=keep_unused, device=device, backend=backend, inline=inline,
             compiler_options=compiler_options)


_pjit.__name__ = _pjit.__qualname__ = "pjit"


def __getattr__(name: str):
  if name == "pjit":
    warnings.warn("jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` "
                  "instead.", DeprecationWarning, stacklevel=2)
    return _pjit
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
