"""Text forms of arrays, matching JAX's ``repr(Array)`` and ``str(Array)`` exactly.

``repr`` is numpy's ``array2string`` of the host value, wrapped as ``Array(<values>, dtype=...)``
(plus ``, weak_type=True`` for weakly typed values); empty arrays print as
``Array([], shape=(0, 3), dtype=float32)``. ``str`` is numpy's ``str`` of the host value.

Both follow numpy's current print options (``linewidth``, ``threshold``, ``precision``, ...).

Example:
    >>> import numpy as np
    >>> print(array_repr(np.array([[1., 2.], [3., 4.]], np.float32), np.dtype('float32'), False))
    Array([[1., 2.],
           [3., 4.]], dtype=float32)
    >>> array_str(np.array([1., 2.], np.float32), np.dtype('float32'))
    '[1. 2.]'
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["array_repr", "array_str"]

_PREFIX = "Array("


def _dtype_part(dtype: Any, weak_type: bool) -> str:
  """The ``dtype=...`` tail, without the closing parenthesis."""
  name = np.dtype(dtype).name
  return f"dtype={name}, weak_type=True" if weak_type else f"dtype={name}"


def _values_part(value: np.ndarray, line_width: int) -> str:
  """The bracketed values, laid out for continuation lines under ``Array(``."""
  if value.size == 0:
    return f"[], shape={value.shape}"
  return np.array2string(
      value, max_line_width=line_width, separator=", ", prefix=_PREFIX, suffix=",")


def _gap(values: str, dtype_part: str, line_width: int) -> str:
  """Space between ``<values>,`` and ``dtype=...``.

  JAX keeps ``dtype=`` on the last line; when that line would run past the line width it puts
  ``len("Array(")`` spaces there instead of one (still on the same line).
  """
  last_line = values[values.rfind("\n") + 1:]
  too_long = len(last_line) + len(dtype_part) + 4 > line_width
  return " " * len(_PREFIX) if too_long else " "


def array_repr(value: np.ndarray, dtype: Any, weak_type: bool = False) -> str:
  """JAX's ``repr`` of an array whose host value is ``value``.

  ``dtype`` supplies the printed dtype name (its ``np.dtype(dtype).name``).

  >>> array_repr(np.array(2., np.float32), np.float32, True)
  'Array(2., dtype=float32, weak_type=True)'
  >>> array_repr(np.zeros((0, 3), np.float32), np.float32)
  'Array([], shape=(0, 3), dtype=float32)'
  """
  value = np.asarray(value)
  line_width = np.get_printoptions()["linewidth"]
  values = _values_part(value, line_width)
  dtype_part = _dtype_part(dtype, weak_type)
  return f"{_PREFIX}{values},{_gap(values, dtype_part, line_width)}{dtype_part})"


def array_str(value: np.ndarray, dtype: Any = None) -> str:
  """JAX's ``str`` of an array: numpy's ``str`` of the host value (``dtype`` is not printed).

  >>> array_str(np.array([[1, 2], [3, 4]], np.int32), np.int32)
  '[[1 2]\\n [3 4]]'
  """
  del dtype
  return str(np.asarray(value))
