"""The stages of a jitted function (mirrors ``jax.stages``): ``jit(f)`` is a ``Wrapped``;
``.trace(...)`` gives a ``Traced``, ``.lower()`` a ``Lowered`` and ``.compile()`` a
``Compiled``, each a ``Stage`` saying what was traced (``in_tree``, ``in_avals``,
``args_info``, ``out_info``...).

Example:
    >>> import ember
    >>> from ember import stages
    >>> f = ember.jit(lambda x: x * 2)
    >>> isinstance(f, stages.Wrapped)
    True
    >>> compiled = f.trace(1.0).lower().compile()
    >>> isinstance(compiled, stages.Compiled), compiled(3.0)
    (True, Array(6., dtype=float32, weak_type=True))
"""
from __future__ import annotations

import abc
from typing import Union

from ember.transforms.jit import (ArgInfo, Compiled, Lowered, PjitFunction, Stage,  # noqa: F401
                                  Traced)

__all__ = ["Wrapped", "Traced", "Lowered", "Compiled", "Stage", "ArgInfo", "CompilerOptions"]

CompilerOptions = dict[str, Union[str, bool]]  # XLA options by name, as jit(compiler_options=)


class Wrapped(abc.ABC):
  """A function staged with ``jit``: call it, or ``.trace(*args)`` / ``.lower(*args)`` it.

  Example:
      >>> import ember
      >>> from ember.stages import Wrapped
      >>> isinstance(ember.jit(abs), Wrapped), isinstance(abs, Wrapped)
      (True, False)
  """

  @abc.abstractmethod
  def __call__(self, *args, **kwargs):
    ...

  @abc.abstractmethod
  def trace(self, *args, **kwargs) -> Traced:
    ...

  @abc.abstractmethod
  def lower(self, *args, **kwargs) -> Lowered:
    ...


Wrapped.register(PjitFunction)
