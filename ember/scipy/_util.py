"""Helpers shared by ember.scipy's modules."""
from __future__ import annotations

from ember.numpy._util import (
  check_arraylike,
  ensure_array,
  promote_args_inexact,
  promote_dtypes_inexact,
)

__all__ = ["inexact_arrays", "promote_inexact"]


def promote_inexact(fun_name: str, *args) -> list:
  """``args`` promoted to one inexact dtype and broadcast in rank, as ember arrays (a Python
  scalar becomes a weakly typed array, so ``.dtype`` works on every result)."""
  return [ensure_array(a) for a in promote_args_inexact(fun_name, *args)]


def inexact_arrays(fun_name: str, *args) -> list:
  """``args`` promoted to one inexact dtype as ember arrays, keeping their shapes (for linear
  algebra, whose operands do not broadcast elementwise)."""
  check_arraylike(fun_name, *args)
  return [ensure_array(a) for a in promote_dtypes_inexact(*args)]
