"""Shared helpers of ember.numpy: argument checks, NumPy-style dtype promotion and
rank/shape broadcasting onto lax's strict primitives."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from ember import dtypes
from ember.config import config
from ember import lax
from ember.backend.array import ArrayImpl
from ember.backend.sharding import check_out_sharding, is_unsharded  # noqa: F401 (re-exported)
from ember.core.aval import ShapedArray
from ember.core.trace import Tracer, EVAL_TRACE as _EVAL, _state
from ember.backend.array import to_buffer
from ember.backend.client import default_device

__all__ = ["check_arraylike", "is_arraylike", "promote_dtypes", "promote_dtypes_inexact",
           "promote_dtypes_numeric", "promote_dtypes_complex", "promote_shapes",
           "promote_args", "promote_args_inexact", "promote_args_numeric", "ensure_array",
           "canonicalize_axis", "index_axis", "broadcast_shapes", "fold_scalar"]

_SCALARS = (bool, int, float, complex)


def is_arraylike(x) -> bool:
  return isinstance(x, (ArrayImpl, Tracer, np.ndarray, np.generic) + _SCALARS) or \
      hasattr(x, "__jax_array__")


def check_arraylike(fun_name: str, *args) -> None:
  """A TypeError naming the position of the first argument that is not an array or scalar of
  a number or bool dtype (NumPy arrays of strings, datetimes or objects included)."""
  for i, a in enumerate(args):
    if not is_arraylike(a):
      raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got {type(a)} at "
                      f"position {i}.")
    if (isinstance(a, (np.ndarray, np.generic)) and a.dtype not in dtypes._SUPPORTED
        and a.dtype.kind in "USVOMm"):  # strings, records, objects, datetimes
      raise TypeError(f"{fun_name} requires arrays of numbers or booleans, got an array of dtype "
                      f"{a.dtype} at position {i} (JAX only supports number and bool dtypes).")


def ensure_array(x):
  """``x`` if it is an ember array or tracer, else ``x`` placed on the device (keeping weak types)."""
  if isinstance(x, (ArrayImpl, Tracer)):
    return x
  if hasattr(x, "__jax_array__"):
    return x.__jax_array__()
  from ember.backend.array import abstractify, to_buffer
  from ember.backend.client import default_device
  aval = abstractify(x)
  return to_buffer(x, aval, default_device())


def _convert(x, dt, weak: bool):
  aval = getattr(x, "aval", None)
  if aval is not None and aval.dtype == dt and aval.weak_type == weak:
    return x  # the common case, decided without the general dtype machinery
  if dtypes.dtype(x, canonicalize=True) == dt and dtypes.is_weakly_typed(x) == weak:
    return x
  if type(x) in _SCALARS or isinstance(x, np.generic):
    folded = fold_scalar(x, dt, weak)
    if folded is not None:
      return folded
  return lax._convert_element_type(x, dt, weak)


def fold_scalar(x, dt, weak: bool):
  """A concrete Python/NumPy scalar as a constant of dtype ``dt`` (a Python scalar if ``weak``,
  else a NumPy scalar), so tracing emits a literal instead of a conversion; None if it cannot.

  Python ints must fit the default int dtype (OverflowError otherwise, as in JAX); other
  values wrap or round like a cast (``fold_scalar(300, int8, False)`` is ``np.int8(44)``).
  """
  if type(x) is int:
    from ember.backend.array import abstractify
    abstractify(x)  # raises OverflowError for ints beyond the default int dtype
  dt = np.dtype(dt)
  if weak:
    py = {"i": int, "u": int, "f": float, "c": complex}.get(dt.kind)
    if py is None or dtypes.canonicalize_dtype(py) != dt:
      return None
    return py(x)
  t = type(x)
  if (t is float and dt.kind in "fc") or (t is int and dt.kind in "fc") or \
      (t is bool and dt.kind in "biufc"):
    with np.errstate(over="ignore"):  # 1e5 -> float16 is inf, silently, as in JAX
      return dt.type(x)  # correctly rounded; no integer wrap possible
  with np.errstate(all="ignore"):
    return np.asarray(x).astype(dt)[()]


def promote_dtypes(*args):
  """Convert ``args`` to their common JAX result type (weak if every operand is weak)."""
  if len(args) < 2:
    return list(args)
  dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  return [_convert(x, dt, weak) for x in args]


def promote_dtypes_inexact(*args):
  dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  dt = dtypes.to_inexact_dtype(dt)
  return [_convert(x, dt, weak) for x in args]


def promote_dtypes_numeric(*args):
  """``args`` promoted to one dtype, bool becoming int32 (as in JAX, even with x64 on)."""
  dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  if dt == np.bool_:
    dt = np.dtype(np.int32)
  return [_convert(x, dt, weak) for x in args]


def promote_dtypes_complex(*args):
  dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  dt = dtypes.to_complex_dtype(dt)
  return [_convert(x, dt, weak) for x in args]


def broadcast_shapes(*shapes) -> tuple[int, ...]:
  """NumPy broadcasting of shapes, with JAX's error message."""
  try:
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
  except ValueError:
    raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
                     ) from None


def promote_shapes(fun_name: str, *args):
  """Rank-promote ``args`` (adding leading size-1 dims) so lax ops can broadcast them.

  Operands of different nonzero ranks are promoted as ``jax_numpy_rank_promotion`` says:
  ``"allow"`` silently, ``"warn"`` with a warning, ``"raise"`` not at all (a ValueError).
  """
  if len(args) < 2:
    return list(args)
  shapes = [np.shape(x) for x in args]
  nd = max(len(s) for s in shapes)
  if all(len(s) in (0, nd) for s in shapes):
    return list(args)  # no rank promotion: the lax op rejects incompatible shapes, as in JAX
  if config.jax_numpy_rank_promotion != "allow":
    _rank_promotion(fun_name, shapes)
  broadcast_shapes(*shapes)
  return [x if len(s) in (0, nd) else
          lax.broadcast_in_dim(x, (1,) * (nd - len(s)) + tuple(s),
                               tuple(range(nd - len(s), nd)))
          for x, s in zip(args, shapes)]


def _rank_promotion(fun_name: str, shapes) -> None:
  described = " ".join(str(tuple(s)) for s in shapes)
  guide = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"
  if config.jax_numpy_rank_promotion == "warn":
    warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes "
                  f"{described}. Set the jax_numpy_rank_promotion config option to 'allow' to "
                  f"disable this warning; for more information, see {guide}.", stacklevel=4)
  else:
    raise ValueError(f"Operands could not be broadcast together for {fun_name} on shapes "
                     f"{described} and with the config option jax_numpy_rank_promotion='raise'. "
                     f"For more information, see {guide}.")


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def _scalar_operand(arr, scalar):
  """Fast promotion of ``array op python-scalar`` when the scalar simply takes the array's
  dtype (JAX's weak-type rule); None when the general machinery must decide."""
  aval = arr.aval
  dt = aval.dtype
  t = type(scalar)
  if t is float:
    if dt.kind not in "fc":
      return None
  elif t is int:
    if dt.kind not in "fc" and not (dt.kind == "i" and dt.itemsize >= 4
                                    and _INT32_MIN <= scalar <= _INT32_MAX):
      return None
  else:
    return None
  if aval.weak_type:
    py = float if dt.kind == "f" else complex if dt.kind == "c" else int
    return py(scalar) if dtypes.canonicalize_dtype(py) == dt else None
  if -65504.0 <= scalar <= 65504.0:  # fits every float dtype
    value = dt.type(scalar)
  else:
    with np.errstate(over="ignore"):  # 1e5 -> float16 is inf, silently, as in JAX
      value = dt.type(scalar)
  if _state.trace is _EVAL:
    return to_buffer(value, ShapedArray((), dt, False), default_device())
  return value


def _fast_promote(args):
  if len(args) != 2:
    return None
  a, b = args
  if type(a) is ArrayImpl or isinstance(a, Tracer):
    if type(b) is ArrayImpl or isinstance(b, Tracer):
      return args if a.aval is b.aval else None
    other = _scalar_operand(a, b)
    return None if other is None else (a, other)
  if type(b) is ArrayImpl or isinstance(b, Tracer):
    other = _scalar_operand(b, a)
    return None if other is None else (other, b)
  return None


def promote_args(fun_name: str, *args):
  fast = _fast_promote(args)
  if fast is not None:
    return fast
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
  fast = _fast_promote(args)
  if fast is not None and dtypes.dtype(fast[0]) != np.bool_:
    return fast
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def index_axis(axis) -> int:
  """``axis`` as a Python int, or a TypeError naming ``axis``."""
  try:
    return operator.index(axis)
  except TypeError:
    raise TypeError(f"axis must be an integer (or a tuple of integers where several are "
                    f"allowed), got {axis!r} of type {type(axis).__name__}.") from None


def canonicalize_axis(axis, ndim: int) -> int:
  """``axis`` in ``[0, ndim)``; negative axes count from the end (NumPy's AxisError otherwise).

  Differs from JAX, which raises a plain ValueError: AxisError is also the IndexError the Array API
  asks for (``except ValueError`` catches both).
  """
  axis = index_axis(axis)
  if not -ndim <= axis < ndim:
    raise np.exceptions.AxisError(axis, ndim)  # a ValueError (as in JAX) and an IndexError
  return axis % ndim if ndim else axis
