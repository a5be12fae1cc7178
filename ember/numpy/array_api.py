"""The Array API standard's own entry points in ``ember.numpy``: the version, the inspection
namespace, ``astype`` and ``from_dlpack``.

With these, ``ember.numpy`` is a namespace of the 2024.12 standard: ``x.__array_namespace__()``
returns it for arrays and tracers alike, so code written against the standard runs inside jit,
grad and vmap. As in JAX, the inspection namespace lists ``None`` among the devices (the default
placement) and reports no support for boolean indexing or data-dependent shapes, which jit
cannot give.

Example:
    >>> import ember.numpy as jnp
    >>> x = jnp.arange(3)
    >>> xp = x.__array_namespace__()
    >>> xp.__array_api_version__, xp.astype(x, xp.float32)
    ('2024.12', Array([0., 1., 2.], dtype=float32))
"""
from __future__ import annotations

import warnings

from ember import dlpack, dtypes, lax
from ember.backend import client as backend_client
from ember.numpy._util import check_arraylike, ensure_array
from ember.numpy.creation import _place, _resolve_device
from ember.numpy.scalar_types import isdtype

__all__ = ["__array_api_version__", "__array_namespace_info__", "astype", "from_dlpack"]

__array_api_version__ = "2024.12"

_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64", "complex64", "complex128")
_KIND_NAMES = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
               "complex floating", "numeric")


class ArrayNamespaceInfo:
  """What ``ember.numpy`` supports, as the standard's ``__array_namespace_info__()`` reports it.

  Example:
      >>> import ember.numpy as jnp
      >>> info = jnp.__array_namespace_info__()
      >>> info.default_dtypes()["real floating"], list(info.dtypes(kind="bool"))
      (dtype('float32'), ['bool'])
  """

  def capabilities(self) -> dict:
    """Optional features: none of boolean indexing or data-dependent shapes (as in JAX)."""
    return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

  def default_device(self) -> None:
    """``None``: arrays go to the default device without being committed to it."""

  def devices(self) -> list:
    """``None`` (the default placement) and every device of this process."""
    return [None, *backend_client.devices()]

  def default_dtypes(self, *, device=None) -> dict:
    """The default dtypes of real and complex floats, integers and indices."""
    _resolve_device(device)
    return {"real floating": dtypes.default_float_dtype(),
            "complex floating": dtypes.default_complex_dtype(),
            "integral": dtypes.default_int_dtype(),
            "indexing": dtypes.default_int_dtype()}

  def dtypes(self, *, device=None, kind=None) -> dict:
    """The standard's dtypes available now (64-bit ones only with x64), optionally of ``kind``
    (a kind name such as ``"integral"``, or a tuple of kinds)."""
    _resolve_device(device)
    for k in kind if isinstance(kind, tuple) else (kind,):
      if k is not None and k not in _KIND_NAMES:
        raise ValueError(f"Unrecognized kind={k!r}: expected None, one of {list(_KIND_NAMES)}, "
                         "or a tuple of those.")
    out = {}
    for name in _STANDARD_DTYPES:
      dt = dtypes.canonicalize_dtype(name)
      if dt.name == name and (kind is None or isdtype(dt, kind)):
        out[name] = dt
    return out


def __array_namespace_info__() -> ArrayNamespaceInfo:
  """The Array API inspection namespace of ``ember.numpy``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.__array_namespace_info__().capabilities()["data-dependent shapes"]
      False
  """
  return ArrayNamespaceInfo()


def astype(x, dtype, /, *, copy: bool = False, device=None):
  """``x`` cast to ``dtype`` (the default float dtype if None), optionally placed on ``device``.

  Casts follow ``lax.convert_element_type``. Casting complex to bool tests for nonzero values;
  casting complex to a real dtype keeps the real part and warns (as JAX does). ``copy=True``
  always returns a new array, ``copy=False`` returns ``x`` itself when no cast is needed.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.astype(jnp.array([1.7, -2.5]), jnp.int32), jnp.astype(jnp.array([1j, 0j]), bool)
      (Array([ 1, -2], dtype=int32), Array([ True, False], dtype=bool))
  """
  check_arraylike("astype", x)
  x = ensure_array(x)
  dt = dtypes.default_float_dtype() if dtype is None else \
      dtypes.check_and_canonicalize_user_dtype(dtype, "astype")
  if dtypes.is_complex(x.dtype):
    if isdtype(dt, ("integral", "real floating")):
      warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                    "first use jnp.real or jnp.imag to take the real/imaginary component of "
                    "your input.", DeprecationWarning, stacklevel=2)
    elif dt == bool:
      x = x != 0
  if x.dtype != dt or dtypes.is_weakly_typed(x):
    x = lax._convert_element_type(x, dt)
  elif copy:
    x = lax.copy(x)
  return _place(x, _resolve_device(device))


def from_dlpack(x, /, *, device=None, copy=None):
  """An ember array sharing (or, if needed or asked, copying) the data of a DLPack producer.

  ``x`` is any object with ``__dlpack__`` and ``__dlpack_device__`` (a NumPy array, another
  framework's tensor, an ember array). On CPU the memory is shared when it is 64-byte aligned
  and row-major; other layouts and read-only NumPy arrays are copied (``copy=False`` then
  raises). The result is committed to ``device`` if given, else to the producer's device.

  Example:
      >>> import numpy as np
      >>> import ember.numpy as jnp
      >>> jnp.from_dlpack(np.arange(4, dtype=np.float32).reshape(2, 2))
      Array([[0., 1.],
             [2., 3.]], dtype=float32)
  """
  return dlpack.from_dlpack(x, device=device, copy=copy)
