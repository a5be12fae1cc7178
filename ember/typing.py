"""Type annotations for ember programs, as in ``jax.typing``.

Example:
    >>> from ember.typing import ArrayLike
    >>> def f(x: ArrayLike) -> None: ...
"""
from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from ember.backend.array import Array

__all__ = ["ArrayLike", "DTypeLike", "Shape", "DeprecatedArg"]

ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type, np.dtype, Any]
Shape = Sequence[int]


class DeprecatedArg:
  """The default of a deprecated argument, telling "not passed" apart from any value.

  Example:
      >>> from ember.typing import DeprecatedArg
      >>> DeprecatedArg()
      Deprecated
  """

  def __repr__(self):
    return "Deprecated"
