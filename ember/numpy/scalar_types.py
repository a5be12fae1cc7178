"""ember.numpy's dtype names, dtype functions and constants.

``jnp.float32`` and friends are scalar *constructors*, as in JAX: calling one gives a 0-d (or
n-d) ember array of that dtype, and each also works wherever NumPy takes a dtype
(``np.dtype(jnp.float32)``, ``jnp.zeros(3, jnp.float32)``, ``x.astype(jnp.int8)``).

Example:
    >>> import ember.numpy as jnp
    >>> jnp.float32(1)
    Array(1., dtype=float32)
    >>> import numpy as np; np.dtype(jnp.bfloat16)
    dtype(bfloat16)
"""
from __future__ import annotations

import warnings

import ml_dtypes as _ml_dtypes
import numpy as np

from ember import dtypes as _dtypes
from ember.backend.array import Array as ndarray

__all__ = [
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "uint", "bfloat16", "float16", "float32", "float64", "complex64", "complex128", "float_",
    "int_", "complex_", "single", "double", "csingle", "cdouble",
    "dtype", "iinfo", "finfo", "issubdtype", "result_type", "promote_types", "can_cast",
    "isdtype", "pi", "e", "inf", "nan", "euler_gamma", "newaxis", "ndarray",
    "generic", "number", "inexact", "floating", "complexfloating", "integer", "signedinteger",
    "unsignedinteger", "character", "flexible", "object_",
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
    "float6_e3m2fn", "int1", "int2", "int4", "uint1", "uint2", "uint4",
]


class _ScalarMeta(type):
  """Metaclass of the scalar constructors: equal (and hash equal) to NumPy's scalar type."""

  def __hash__(cls):
    return hash(cls.dtype.type)

  def __eq__(cls, other):
    return cls is other or cls.dtype.type == other

  def __ne__(cls, other):
    return not _ScalarMeta.__eq__(cls, other)  # ``cls.__eq__`` would find object's, unbound

  def __call__(cls, x):
    from ember.numpy.creation import asarray
    return asarray(x, dtype=cls.dtype)

  def __instancecheck__(cls, instance):
    return isinstance(instance, cls.dtype.type)


def _make_scalar_type(np_type, name: str | None = None) -> type:
  dt = np.dtype(np_type)
  name = name or dt.name
  doc = (f"A constructor of {dt.name} ember arrays (``{name}(x)`` is "
         f"``asarray(x, dtype={dt.name})``); also usable as a dtype.\n\n"
         "Example:\n"
         "    >>> import numpy as np, ember.numpy as jnp\n"
         f"    >>> np.dtype(jnp.{name})\n"
         f"    {dt!r}\n"
         "    >>> jnp.int8([1, 2])  # every scalar type constructs arrays this way\n"
         "    Array([1, 2], dtype=int8)\n")
  cls = _ScalarMeta(name, (object,), {"dtype": dt, "__doc__": doc,
                                      "__module__": "ember.numpy"})
  return cls


bool_ = _make_scalar_type(np.bool_, "bool")
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
bfloat16 = _make_scalar_type(_dtypes.bfloat16)
float16 = _make_scalar_type(np.float16)
float32 = _make_scalar_type(np.float32)
float64 = _make_scalar_type(np.float64)
complex64 = _make_scalar_type(np.complex64)
complex128 = _make_scalar_type(np.complex128)
# The narrow ml_dtypes types: arrays hold them (the 6-bit floats and int1/uint1 fail in XLA,
# as in JAX), and they promote only with themselves and with Python scalars.
float8_e3m4 = _make_scalar_type(_ml_dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type(_ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make_scalar_type(_ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make_scalar_type(_ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type(_ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type(_ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type(_ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make_scalar_type(_ml_dtypes.float8_e8m0fnu)
float4_e2m1fn = _make_scalar_type(_ml_dtypes.float4_e2m1fn)
float6_e2m3fn = _make_scalar_type(_ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type(_ml_dtypes.float6_e3m2fn)
int1 = _make_scalar_type(_ml_dtypes.int1)
int2 = _make_scalar_type(_ml_dtypes.int2)
int4 = _make_scalar_type(_ml_dtypes.int4)
uint1 = _make_scalar_type(_ml_dtypes.uint1)
uint2 = _make_scalar_type(_ml_dtypes.uint2)
uint4 = _make_scalar_type(_ml_dtypes.uint4)
uint = uint64
float_ = double = float64
single = float32
int_ = int64
complex_ = cdouble = complex128
csingle = complex64

# NumPy's abstract scalar classes, for issubdtype.
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
complexfloating, integer, signedinteger = np.complexfloating, np.integer, np.signedinteger
unsignedinteger, character, flexible, object_ = (np.unsignedinteger, np.character,
                                                 np.flexible, np.object_)

dtype = np.dtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo


def can_cast(from_, to, casting: str = "safe") -> bool:
  """NumPy's ``can_cast`` (on dtypes). An ember array as ``from_`` stands for its dtype, with
  JAX's deprecation warning.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.can_cast(jnp.int8, jnp.int32), jnp.can_cast("float32", "int32")
      (True, False)
  """
  if isinstance(from_, ndarray):
    warnings.warn("Implicit conversion of an array to a dtype is deprecated; rather than "
                  "dtype=arr use dtype=arr.dtype. In the future this will result in an error.",
                  DeprecationWarning, stacklevel=2)
    from_ = from_.dtype
  return np.can_cast(from_, to, casting)

pi = np.pi
e = np.e
inf = np.inf
nan = np.nan
euler_gamma = np.euler_gamma
newaxis = None


def issubdtype(arg1, arg2) -> bool:
  """Whether dtype (or scalar type) ``arg1`` is ``arg2`` or below it in NumPy's type hierarchy;
  unlike NumPy, bfloat16 and the other ml_dtypes types count as floating/integer.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.issubdtype(jnp.bfloat16, jnp.floating), jnp.issubdtype(jnp.int8, jnp.unsignedinteger)
      (True, False)
  """
  return _dtypes.issubdtype(arg1, arg2)


def result_type(*args):
  """The dtype JAX's promotion rules give ``args`` (arrays, scalars or dtypes), canonicalized.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.result_type(jnp.int8, 1), jnp.result_type(1, 1.0)
      (dtype('int8'), dtype('float32'))
  """
  for a in args:  # a 64-bit dtype asked for by name warns with x64 off, as in JAX (not a value)
    if isinstance(a, (np.dtype, str)) or (isinstance(a, type) and issubclass(a, np.generic)):
      _dtypes.check_user_dtype_supported(a, "dtype")
  return _dtypes.result_type(*args)


def promote_types(a, b):
  """The dtype two dtypes promote to under JAX's lattice (not canonicalized, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.promote_types(jnp.bfloat16, jnp.float16), jnp.promote_types('int32', 'float64')
      (dtype('float32'), dtype('float64'))
  """
  return _dtypes.promote_types(a, b, canonicalize=False)


_KINDS = {
    "bool": lambda d: _dtypes.is_bool(d),
    "signed integer": lambda d: _dtypes.is_signed(d),
    "unsigned integer": lambda d: _dtypes.is_unsigned(d),
    "integral": lambda d: _dtypes.is_integer(d),
    "real floating": lambda d: _dtypes.is_float(d),
    "complex floating": lambda d: _dtypes.is_complex(d),
    "numeric": lambda d: _dtypes.is_integer(d) or _dtypes.is_inexact(d),
}


def isdtype(dtype, kind):
  """Whether ``dtype`` is of ``kind``: a kind name ('integral', 'real floating'...), a dtype,
  or a tuple of those (array API semantics).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.isdtype(jnp.bfloat16, "real floating"), jnp.isdtype(jnp.int8, ("bool", "numeric"))
      (True, True)
  """
  dt = _dtypes.dtype(dtype)
  kinds = kind if isinstance(kind, tuple) else (kind,)
  for k in kinds:
    if isinstance(k, str):
      test = _KINDS.get(k)
      if test is None:
        raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                         "compatible input for jnp.dtype()")
      if test(dt):
        return True
    elif _dtypes.dtype(k) == dt:
      return True
  return False


bool = bool_  # noqa: A001  (jnp.bool, as in the array API; defined last: it shadows a builtin)
