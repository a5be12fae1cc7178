"""The NumPy face of arrays and tracers: operators, NumPy-style methods, indexing and ``.at``.

One implementation serves both jaxlib's ``ArrayImpl`` (concrete arrays) and
``ember.core.trace.Tracer`` (values inside transforms); :func:`install` attaches it to both on
import of ``ember.numpy``. Everything delegates to ``ember.numpy`` functions.

Example:
    >>> import ember.numpy as jnp
    >>> x = jnp.arange(6).reshape(2, 3)
    >>> (x + 1.5).dtype
    dtype('float32')
    >>> x.sum(axis=0)
    Array([3, 5, 7], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from ember.backend.array import ArrayImpl
from ember.core import errors
from ember.core.trace import Tracer
from ember.numpy import indexing
from ember.numpy._util import check_out_sharding

__all__ = ["install"]

_TARGETS = (ArrayImpl, Tracer)


def _jnp():
  import ember.numpy as jnp
  return jnp


# --- operators ------------------------------------------------------------------------------------

def _accepts(other) -> bool:
  return isinstance(other, (int, float, complex, np.generic, np.ndarray) + _TARGETS)


def _fast_primitive(fun_name: str):
  """The primitive ``x <op> y`` binds when both are device arrays of one aval (eagerly), with no
  promotion to do: the operator's hot path skips the jnp layers then. None when not applicable."""
  from ember.primitives import elementwise as ew
  return {"add": (ew.add_p, "iufc"), "subtract": (ew.sub_p, "iufc"),
          "multiply": (ew.mul_p, "iufc"), "true_divide": (ew.div_p, "fc")}.get(fun_name)


def _binary(fun_name: str, reflected: bool = False, symbol: str | None = None):
  """``self <op> other`` via ``jnp.<fun_name>``; NotImplemented for non-array operands."""
  from ember.backend.dispatch import apply_primitive
  from ember.core.trace import EVAL_TRACE, _state
  fast = _fast_primitive(fun_name)
  prim, kinds = fast if fast else (None, "")
  fn_box = []

  def op(self, other):
    if prim is not None and type(other) is ArrayImpl and type(self) is ArrayImpl \
        and other.aval is self.aval and self.aval.dtype.kind in kinds \
        and _state.trace is EVAL_TRACE:
      return apply_primitive(prim, other, self) if reflected else \
          apply_primitive(prim, self, other)
    m = getattr(other, "__jax_array__", None)
    if m is not None and not isinstance(other, _TARGETS):
      other = m()
    if not _accepts(other):
      if symbol is not None and type(other) in (dict, list, set, tuple):
        raise TypeError(f"unsupported operand type(s) for {symbol}: "
                        f"{type(self).__name__!r} and {type(other).__name__!r}")
      return NotImplemented
    if not fn_box:
      fn_box.append(getattr(_jnp(), fun_name))
    fn = fn_box[0]
    return fn(other, self) if reflected else fn(self, other)
  op.__name__ = f"__{'r' if reflected else ''}{fun_name}__"
  return op


_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "divmod": "divmod", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
}
_COMPARISONS = {"eq": ("equal", "=="), "ne": ("not_equal", "=="), "lt": ("less", None),
                "le": ("less_equal", None), "gt": ("greater", None),
                "ge": ("greater_equal", None)}


def _unary(fun_name: str):
  def op(self):
    return getattr(_jnp(), fun_name)(self)
  op.__name__ = f"__{fun_name}__"
  return op


def _round_op(self, ndigits=None):
  out = _jnp().round(self, decimals=ndigits or 0)
  return out.astype(int) if ndigits is None else out


def _contains(self, other):
  """``other in x`` for a 1-D ``x`` and a scalar ``other`` (as JAX: stricter than NumPy)."""
  if other is None or isinstance(other, str):
    raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
  if self.ndim != 1:
    raise ValueError("Array.__contains__: search array must be one-dimensional, got "
                     f"arr.shape={self.shape}.")
  if np.ndim(other) != 0:
    raise ValueError(f"Array.__contains__: query value must be a scalar, got "
                     f"query.shape={np.shape(other)}")
  return _jnp().any(self == other)


def _getitem(self, idx):
  return indexing.getitem(self, idx)


def _setitem(self, idx, value):
  raise TypeError(
      "JAX arrays are immutable and do not support in-place item assignment. Instead of "
      "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
      "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _row(self, i: int):
  """Row ``i`` of a concrete array through one cached executable (a traced start index)."""
  from ember import lax
  starts = (np.int32(i),) + (np.int32(0),) * (self.ndim - 1)
  return lax.squeeze(lax.dynamic_slice(self, starts, (1,) + self.shape[1:]), (0,))


def _iter(self):
  if not self.shape:
    raise TypeError("iteration over a 0-d array")
  if isinstance(self, Tracer):
    return (self[i] for i in range(self.shape[0]))
  return (_row(self, i) for i in range(self.shape[0]))


def _reversed(self):
  if not self.shape:
    raise TypeError("iteration over a 0-d array")
  rows = range(self.shape[0] - 1, -1, -1)
  if isinstance(self, Tracer):
    return (self[i] for i in rows)
  return (_row(self, i) for i in rows)


_OPERATORS = {
    "__getitem__": _getitem, "__setitem__": _setitem, "__contains__": _contains,
    "__iter__": _iter, "__reversed__": _reversed, "__round__": _round_op,
    "__neg__": _unary("negative"), "__pos__": _unary("positive"), "__abs__": _unary("abs"),
    "__invert__": _unary("invert"),
}
for _name, _fun in _BINARY.items():
  _OPERATORS[f"__{_name}__"] = _binary(_fun)
  _OPERATORS[f"__r{_name}__"] = _binary(_fun, reflected=True)
for _name, (_fun, _sym) in _COMPARISONS.items():
  _OPERATORS[f"__{_name}__"] = _binary(_fun, symbol=_sym)


# --- methods --------------------------------------------------------------------------------------

def _forward(fun_name: str):
  """A method ``x.f(*args, **kw)`` calling ``jnp.<fun_name>(x, *args, **kw)``."""
  def method(self, *args, **kwargs):
    return getattr(_jnp(), fun_name)(self, *args, **kwargs)
  method.__name__ = fun_name
  method.__doc__ = f"Method form of :func:`ember.numpy.{fun_name}` (see it for parameters)."
  return method


def _astype(self, dtype, copy: bool = False, device=None):
  """A copy of the array cast to ``dtype``."""
  astype = getattr(_jnp(), "astype", None)
  if astype is not None:
    return astype(self, dtype, copy=copy, device=device)
  from ember import dtypes, lax  # until ember.numpy has astype
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "astype")
  out = lax._convert_element_type(self, dt)
  if device is not None:
    from ember.backend.placement import device_put
    out = device_put(out, device)
  return out


def _reshape(self, *args, order: str = "C", out_sharding=None):
  """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; ``-1`` infers one dimension."""
  check_out_sharding("reshape", out_sharding)
  if not args:
    raise TypeError("reshape() missing required argument 'shape'")
  shape = args[0] if len(args) == 1 else args
  if isinstance(shape, list):
    shape = tuple(shape)
  return _jnp().reshape(self, shape, order=order)


def _transpose(self, *args):
  """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
  if not args or (len(args) == 1 and args[0] is None):
    axes = None
  elif len(args) == 1 and isinstance(args[0], (tuple, list)):
    axes = tuple(args[0])
  else:
    axes = args
  return _jnp().transpose(self, axes)


def _flatten(self, order: str = "C", *, out_sharding=None):
  """The array as 1-D (a copy in NumPy; no copies exist here)."""
  check_out_sharding("flatten", out_sharding)
  return _jnp().ravel(self, order=order)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
  return _jnp().compress(condition, self, axis=axis, out=out, size=size, fill_value=fill_value)


def _item(self, *args):
  """The element as a Python scalar (concrete values only)."""
  v = self.to_concrete_value()
  if v is None:
    raise errors.ConcretizationTypeError(self, "This occurred in the item() method of jax.Array")
  return np.asarray(v).item(*args)


def _tolist(self):
  v = self.to_concrete_value()
  if v is None:
    raise errors.ConcretizationTypeError(
        self, f"The tolist() method was called on traced array with shape "
        f"{self.aval.str_short(short_dtypes=False)}.")
  return np.asarray(v).tolist()


def _view(self, dtype=None, type=None):
  """The same bits reinterpreted as ``dtype`` (the last axis scales with the item sizes)."""
  from ember import dtypes, lax
  if type is not None:
    raise NotImplementedError("`type` argument of array.view() is not supported.")
  if dtype is None:
    return self
  dt = dtypes.canonicalize_dtype(dtype)
  if dt == self.dtype:
    return self
  n_in, n_out = self.dtype.itemsize, np.dtype(dt).itemsize
  if self.ndim == 0 and n_in != n_out:
    raise ValueError("view() of a 0-d array requires matching item sizes")
  if n_in == n_out:
    return lax.bitcast_convert_type(self, dt)
  if self.shape[-1] * n_in % n_out:
    raise ValueError("When changing to a larger dtype, its size must be a divisor of the total "
                     "size in bytes of the last axis of the array.")
  x = self
  if n_in == 1 and self.dtype == np.bool_:
    x = lax._convert_element_type(x, np.uint8)
  if n_in < n_out:
    x = x.reshape(*x.shape[:-1], x.shape[-1] * n_in // n_out, n_out // n_in)
    return lax.bitcast_convert_type(x, dt)
  out = lax.bitcast_convert_type(x, dt)
  return out.reshape(*out.shape[:-2], out.shape[-2] * out.shape[-1])


def _array_namespace(self, *, api_version=None):
  """The array API namespace of ember arrays: ``ember.numpy``, of the 2024.12 standard."""
  if api_version is not None and api_version != "2024.12":
    raise ValueError(f"{api_version=!r} is not available; available versions are: ['2024.12']")
  return _jnp()


_METHODS = {
    "astype": _astype, "reshape": _reshape, "transpose": _transpose, "ravel": _flatten,
    "flatten": _flatten, "compress": _compress, "view": _view,
    "__array_namespace__": _array_namespace,
    "conj": _forward("conjugate"), "conjugate": _forward("conjugate"), "copy": _forward("copy"),
}
for _fun in ("squeeze", "swapaxes", "sum", "mean", "std", "var", "prod", "max", "min", "argmax",
             "argmin", "all", "any", "cumsum", "cumprod", "ptp", "clip", "round", "dot", "sort",
             "argsort", "argpartition", "searchsorted", "nonzero", "take", "repeat", "diagonal",
             "trace", "choose"):
  _METHODS[_fun] = _forward(_fun)

def _tracer_dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
  """Tracers hold no buffer to share: a clear error, as in JAX."""
  raise errors.ConcretizationTypeError(
      self, "The __dlpack__() method was called on traced array with shape "
      f"{self.aval.str_short(short_dtypes=False)}.")


def _tracer_to_device(self, device, /, *, stream=None):
  """Inside a transform, placement is the enclosing computation's: checks ``device``, returns
  ``self``."""
  from ember.backend.placement import device_put
  return device_put(self, device)


_TRACER_ONLY_METHODS = {"item": _item, "tolist": _tolist, "__dlpack__": _tracer_dlpack,
                        "to_device": _tracer_to_device}


# --- properties -----------------------------------------------------------------------------------

def _flat(self):
  raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                            "arr.flatten() instead.")


_PROPERTIES = {
    "T": lambda self: _jnp().transpose(self),
    "mT": lambda self: _jnp().matrix_transpose(self),
    "real": lambda self: _jnp().real(self),
    "imag": lambda self: _jnp().imag(self),
    "at": indexing._IndexUpdateHelper,
    "flat": _flat,
}
_TRACER_ONLY_PROPERTIES = {
    "itemsize": lambda self: self.aval.dtype.itemsize,
    "nbytes": lambda self: self.aval.size * self.aval.dtype.itemsize,
}


def install() -> None:
  """Attach operators, methods and properties to ``ArrayImpl`` and ``Tracer``."""
  for cls in _TARGETS:
    for name, fn in {**_OPERATORS, **_METHODS}.items():
      setattr(cls, name, fn)
    for name, getter in _PROPERTIES.items():
      setattr(cls, name, property(getter))
  for name, fn in _TRACER_ONLY_METHODS.items():
    setattr(Tracer, name, fn)
  for name, getter in _TRACER_ONLY_PROPERTIES.items():
    setattr(Tracer, name, property(getter))


install()
