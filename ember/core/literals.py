"""Python scalars that carry their dtype: ``TypedInt``, ``TypedFloat``, ``TypedComplex``.

JAX 0.10.2 canonicalizes a value when it enters a transform (``vjp``'s primals, and so ``grad``'s;
the arguments of a ``custom_jvp`` or ``custom_vjp`` function): a Python ``int``/``float``/
``complex`` becomes a subclass of itself that also has ``dtype`` (the default dtype, 32- or
64-bit by ``jax_enable_x64``) and ``aval`` (weakly typed), and a NumPy value becomes an array of
its canonical dtype. So a user's rule sees ``x.dtype`` on a scalar it was given, and ``vjp``
hands back ``TypedFloat(1.0, dtype=float32)`` for an output that is a Python scalar input.
Arithmetic on them gives plain Python scalars, and bools are left as they are. ember keeps
NumPy values as plain ``np.ndarray`` (JAX's ``TypedNdArray`` is an ndarray subclass with the
same dtype, shape and values).

Example:
    >>> from ember.core.literals import canonicalize_value
    >>> x = canonicalize_value(1.5)
    >>> x, x.dtype, x.aval, x * 2
    (TypedFloat(1.5, dtype=float32), dtype('float32'), ShapedArray(float32[], weak_type=True), 3.0)
    >>> canonicalize_value(2 ** 40)
    Traceback (most recent call last):
    ...
    OverflowError: Python int 1099511627776 too large to convert to int32
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.core import trace as core
from ember.core.aval import ShapedArray

__all__ = ["TypedInt", "TypedFloat", "TypedComplex", "canonicalize_value", "is_valid_value"]


def _typed(cls, base: type, value, dtype):
  v = base.__new__(cls, value)
  v.dtype = np.dtype(dtype)
  v.aval = ShapedArray((), v.dtype, True)
  return v


class TypedInt(int):
  """A Python ``int`` with a ``dtype`` (and weakly typed ``aval``); ``str`` shows the type."""

  def __new__(cls, value: int, dtype):
    return _typed(cls, int, value, dtype)

  def __repr__(self):
    return f"TypedInt({int(self)}, dtype={self.dtype.name})"

  def __reduce__(self):
    return TypedInt, (int(self), self.dtype)


class TypedFloat(float):
  """A Python ``float`` with a ``dtype`` (and weakly typed ``aval``); ``str`` is the number's."""
  __slots__ = ("dtype", "aval")

  def __new__(cls, value: float, dtype):
    return _typed(cls, float, value, dtype)

  def __repr__(self):
    return f"TypedFloat({float(self)}, dtype={self.dtype.name})"

  def __str__(self):
    return str(float(self))

  def __reduce__(self):
    return TypedFloat, (float(self), self.dtype)


class TypedComplex(complex):
  """A Python ``complex`` with a ``dtype`` (and weakly typed ``aval``); ``str`` shows the type."""
  __slots__ = ("dtype", "aval")

  def __new__(cls, value: complex, dtype):
    return _typed(cls, complex, value, dtype)

  def __repr__(self):
    return f"TypedComplex({complex(self)}, dtype={self.dtype.name})"

  def __reduce__(self):
    return TypedComplex, (complex(self), self.dtype)


TYPED_SCALARS = (TypedInt, TypedFloat, TypedComplex)
for _t in TYPED_SCALARS:
  core.register_aval_handler(_t, lambda x: x.aval)


def canonicalize_value(x):
  """``x`` as a transform hands it on: Python numbers typed, NumPy values at their canonical
  dtype; bools, arrays, tracers and anything else unchanged.

  Raises:
    OverflowError: a Python int outside the default integer dtype's range.
  """
  t = type(x)
  if t in TYPED_SCALARS or t is bool:
    return x
  if isinstance(x, (np.ndarray, np.generic)):
    dt = dtypes.canonicalize_dtype(x.dtype)
    return x if dt == x.dtype and isinstance(x, np.ndarray) else np.asarray(x, dt)
  if isinstance(x, int) and not isinstance(x, bool):
    dt = dtypes.canonicalize_dtype(np.int64)
    info = np.iinfo(dt)
    if not info.min <= x <= info.max:
      raise OverflowError(f"Python int {int(x)} too large to convert to {dt.name}")
    return TypedInt(x, dt)
  if isinstance(x, float):
    return TypedFloat(x, dtypes.canonicalize_dtype(np.float64))
  if isinstance(x, complex):
    return TypedComplex(x, dtypes.canonicalize_dtype(np.complex128))
  return x


def is_valid_value(x) -> bool:
  """Whether ``x`` is a value a primitive can take (an array, a tracer, a number...)."""
  try:
    core.get_aval(x)
  except TypeError:
    return False
  return True
