"""ember.numpy's array creation functions: array/asarray, zeros/ones/full(_like), arange,
linspace/logspace/geomspace, eye/identity/tri/tril/triu, meshgrid and friends.

Host data goes straight to the device in one transfer. Eagerly, concrete fills and ranges are
also built on the host (no per-shape XLA compile); under a transform they are staged as JAX
stages them (``broadcast_in_dim`` of a literal, ``iota``...), so jaxprs match JAX's.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.arange(3), jnp.zeros((2,), jnp.int8)
    (Array([0, 1, 2], dtype=int32), Array([0, 0], dtype=int8))
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from ember import dtypes
from ember import lax
from ember.backend import client as backend_client
from ember.backend.array import ArrayImpl, abstractify, check_size, device_of, device_put_value
from ember.backend.sharding import NamedSharding, PartitionSpec
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.errors import ConcretizationTypeError
from ember.core.literals import TYPED_SCALARS
from ember.numpy._util import (broadcast_shapes, canonicalize_axis, check_arraylike,
                               fold_scalar, is_unsharded, promote_shapes)
from ember.transforms.jit import jit
from ember.lax.structural import _shape_error
from ember.transforms.staging import staged_scalar

__all__ = [
    "array", "asarray", "copy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye",
    "identity", "tri", "tril", "triu", "meshgrid", "frombuffer", "fromfunction",
]

_SCALARS = (bool, int, float, complex)
_HOST_FILL_LIMIT = 1 << 24  # eager fills above this many elements are computed on the device


# --- shared helpers ---------------------------------------------------------------------------

def _is_eager() -> bool:
  return type(core.current_trace()) is core.EvalTrace


def _is_traced(x) -> bool:
  return isinstance(x, core.Tracer) and x.to_concrete_value() is None


def _resolve_device(device):
  if device is None:
    return None
  from ember.backend.placement import _resolve_device as resolve
  return resolve(device)


def _put_host(value, dt, weak: bool = False, device=None):
  """A NumPy value on ``device`` (committed) or the default device, as dtype ``dt``; with a
  sharding for ``device``, built on the default device and then laid out by it."""
  dev = _resolve_device(device)
  if isinstance(dev, NamedSharding):
    return _place(_put_host(value, dt, weak), dev)
  value = np.asarray(value)
  aval = ShapedArray(value.shape, dt, weak)
  if dev is None and not value.shape:
    staged = staged_scalar(value, aval)  # under jit a scalar is a literal, as in JAX
    if staged is not None:
      return staged
  return device_put_value(value, aval, dev or backend_client.default_device(),
                          committed=dev is not None)


def _place(x, device):
  """``x`` committed to ``device`` (nothing to do without one, or under a transform)."""
  if device is None or not isinstance(x, ArrayImpl):
    return x
  from ember.backend.placement import device_put
  return device_put(x, device)


def _device_or_out_sharding(device, out_sharding):
  """Where a result goes: ``device=`` or JAX's ``out_sharding=`` (at most one of them). A
  NamedSharding over the empty mesh (``typeof(x).sharding`` of an unsharded ``x``) asks for no
  placement at all."""
  if out_sharding is None:
    return device
  if device is not None:
    raise ValueError("Only one of `device` or `out_sharding` can be set. Got "
                     f"device={device!r} and out_sharding={out_sharding!r}")
  if isinstance(out_sharding, (NamedSharding, PartitionSpec)) and is_unsharded(out_sharding):
    return None
  return out_sharding


def _placed_eagerly(device) -> bool:
  """Whether a scalar-filled result is built on an explicitly given device outside any trace:
  JAX then assembles it from per-device shards, which makes it strongly typed
  (``jnp.full((2,), 1.5, device=d)`` is not weak, ``jnp.full((2,), 1.5)`` is)."""
  return device is not None and _is_eager()


def _like_device(a, device):
  """The device a ``*_like`` result goes to: the one asked for, else a committed input's."""
  if device is None and type(a) is ArrayImpl and a._committed:
    return device_of(a)
  return device


def broadcast_to(x, shape):
  """``x`` broadcast to ``shape`` with NumPy's rules (one ``broadcast_in_dim``)."""
  shape = tuple(shape)
  x_shape = np.shape(x)
  if x_shape == shape:
    return x
  if broadcast_shapes(x_shape, shape) != shape:
    raise ValueError(f"Incompatible shapes for broadcasting: {x_shape} and requested shape "
                     f"{shape}")
  nd = len(shape)
  return lax.broadcast_in_dim(x, shape, tuple(range(nd - len(x_shape), nd)))


def _user_dtype(dtype, fun_name: str):
  return None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, fun_name)


def named_jit(fun, name: str, **jit_kwargs):
  """``jit(fun)`` whose nested-call equation is named ``name`` (as JAX names its helpers)."""
  fun.__name__ = fun.__qualname__ = name
  return jit(fun, **jit_kwargs)


def _shape(shape, context: str = "") -> tuple[int, ...]:
  """``shape`` (an int or a sequence of ints) as a tuple of Python ints, with JAX's error."""
  seq = tuple(shape) if isinstance(shape, (tuple, list, np.ndarray)) else (shape,)
  try:
    return tuple(operator.index(d) for d in seq)
  except TypeError:
    raise _shape_error(seq, context) from None


# --- array / asarray --------------------------------------------------------------------------

def _bad_dtype_error(value, dt) -> TypeError:
  shown = repr(value) if isinstance(value, np.ndarray) else f"'{value}'"  # JAX quotes a scalar
  return TypeError(f"Value {shown} with dtype {dt} is not a valid JAX array type. Only "
                   "arrays of numeric types are supported by JAX.")


def _leaves_dtype(leaves):
  """The promoted dtype of a sequence's leaves; a leaf of no numeric type (a string, a dict...)
  is a TypeError naming it, as in JAX."""
  try:
    return dtypes.result_type(*leaves)
  except TypeError:
    for leaf in leaves:
      try:
        kind = np.asarray(leaf).dtype
      except (TypeError, ValueError):
        continue
      if kind.kind not in "biufc" and kind not in dtypes.all_dtypes + \
          dtypes.narrow_float_dtypes + dtypes.narrow_int_dtypes:
        raise _bad_dtype_error(leaf, kind) from None
    raise


def _check_numeric(value: np.ndarray, original) -> None:
  if value.dtype.kind not in "biufc" and value.dtype not in dtypes.all_dtypes + \
      dtypes.narrow_float_dtypes + dtypes.narrow_int_dtypes:
    raise _bad_dtype_error(original, value.dtype)


def _scalar_host(x, dt):
  """A Python scalar as a NumPy value; ``dt`` None keeps its (weak) default dtype."""
  if dt is None:
    aval = abstractify(x)  # OverflowError for ints beyond the default int dtype
    return np.asarray(x, aval.dtype), aval.dtype, type(x) is not bool
  if dtypes.is_integer(dt) and type(x) is float and math.isfinite(x):
    x = int(x)  # JAX reports float overflow as the int it truncates to
  return np.array(x, dtype=dt), dt, False


def _leaves(obj) -> list:
  if isinstance(obj, (list, tuple)):
    return [leaf for elt in obj for leaf in _leaves(elt)]
  return [obj]


def _host_leaves(obj):
  """A nested sequence with its ember arrays as NumPy arrays: NumPy cannot itself read a 0-d
  bfloat16 (or other ml_dtypes) array object inside a list."""
  if isinstance(obj, (list, tuple)):
    return [_host_leaves(elt) for elt in obj]
  return np.asarray(obj) if isinstance(obj, ArrayImpl) else obj


def _host_value(obj, dt):
  """``obj`` (a NumPy value, nested sequence, buffer...) as (NumPy array, dtype, weak)."""
  if isinstance(obj, (list, tuple)):
    leaves = _leaves(obj)
    if any(leaf is None for leaf in leaves):
      raise ValueError("None is not a valid value for jnp.array")
    if dt is None:
      dt = _leaves_dtype(leaves) if leaves else dtypes.default_float_dtype()
    has_arrays = any(isinstance(leaf, ArrayImpl) for leaf in leaves)
    try:
      with np.errstate(invalid="ignore", over="ignore"):
        value = np.array(_host_leaves(obj) if has_arrays else obj, dtype=dt)
    except ValueError:
      if has_arrays:  # ragged: JAX stacks the arrays, so its concatenate names the shapes
        _stack_traced(obj, dt)
      raise
    return value, dt, False
  original = obj
  if dt is not None and (not isinstance(obj, (np.ndarray, np.generic))
                         or obj.dtype.kind in "OUSVmM"):
    # As JAX, NumPy converts to a requested dtype (jnp.float32('1.5'), an object array of
    # numbers) and its errors are the user's: ValueError for 'a', TypeError for a dict
    with np.errstate(invalid="ignore", over="ignore"):
      return np.asarray(original, dtype=dt), dt, False
  if not isinstance(obj, (np.ndarray, np.generic)):
    try:
      obj = np.asarray(obj)
    except (TypeError, ValueError):
      raise _bad_dtype_error(original, np.dtype(object)) from None
  _check_numeric(obj, original)
  dt = dtypes.canonicalize_dtype(obj.dtype) if dt is None else dt
  with np.errstate(invalid="ignore", over="ignore"):
    value = obj.astype(dt) if obj.dtype != dt else obj
  return value, dt, False


def _stack_traced(obj, dt):
  """A nested sequence holding tracers, built with broadcast_in_dim + concatenate (as JAX)."""
  parts = []
  for elt in obj:
    x = _stack_traced(elt, dt) if isinstance(elt, (list, tuple)) else _array_like(elt, dt)
    shape = np.shape(x)
    parts.append(lax.broadcast_in_dim(x, (1,) + shape, tuple(range(1, len(shape) + 1))))
  return lax.concatenate(parts, 0)  # elements of different shapes: its TypeError, as JAX


def _array_like(x, dt):
  """One leaf of a traced nested sequence, converted to ``dt`` (strong)."""
  from ember.numpy._util import _convert
  if isinstance(x, (ArrayImpl, core.Tracer)) or type(x) in _SCALARS or \
      isinstance(x, np.generic):
    return _convert(x, dt, False)
  value, _, _ = _host_value(x, dt)
  return _put_host(value, dt)


def _array(obj, dt, copy: bool, ndmin: int, device):
  """``array``'s work once the dtype is canonical (or None)."""
  if obj is None:
    raise ValueError("None is not a valid value for jnp.array")
  if hasattr(obj, "__jax_array__"):
    obj = obj.__jax_array__()
  if isinstance(obj, (ArrayImpl, core.Tracer)):
    out = lax.copy(obj) if copy else obj
    if dt is not None and (out.dtype != dt or out.weak_type):
      out = lax._convert_element_type(out, dt, False)
  elif type(obj) in _SCALARS or isinstance(obj, TYPED_SCALARS):
    value, dt, weak = _scalar_host(obj, dt)
    out = _put_host(value, dt, weak, device)
  elif isinstance(obj, (list, tuple)) and any(isinstance(leaf, core.Tracer)
                                               for leaf in _leaves(obj)):
    leaves = _leaves(obj)
    out = _stack_traced(obj, dtypes.result_type(*leaves) if dt is None else dt)
  else:
    value, dt, weak = _host_value(obj, dt)
    if value.ndim < ndmin:
      value = value.reshape((1,) * (ndmin - value.ndim) + value.shape)
    out = _put_host(value, dt, weak, device)
  nd = np.ndim(out)
  if nd < ndmin:
    out = lax.broadcast_in_dim(out, (1,) * (ndmin - nd) + np.shape(out),
                               tuple(range(ndmin - nd, ndmin)))
  return _place(out, device)


def _check_order(order, fun_name):
  if order is not None and order not in ("K", "C", "A"):
    raise NotImplementedError(f"jnp.{fun_name}: only order='K' (or 'C', 'A') is implemented, "
                              f"got order={order!r}.")


def array(object, dtype=None, *args, copy: bool = True, order="K", ndmin: int = 0,
          device=None, out_sharding=None):
  """An ember array holding ``object`` (an array, a scalar, a nested sequence...).

  A Python scalar gives a weakly typed array; sequences and NumPy values give strong ones, with
  64-bit types canonicalized. Sequences holding traced values are stacked.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.array(1.), jnp.array([1, 2.5])
      (Array(1., dtype=float32, weak_type=True), Array([1. , 2.5], dtype=float32))
  """
  if args:
    warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array positionally is "
                  "deprecated. Use keyword arguments instead.", DeprecationWarning, stacklevel=2)
    if len(args) > 3:
      raise TypeError(f"array() takes from 1 to 5 positional arguments but {2 + len(args)} "
                      "were given")
    copy, order, ndmin = args + (copy, order, ndmin)[len(args):]
  device = _device_or_out_sharding(device, out_sharding)
  _check_order(order, "array")
  return _array(object, _user_dtype(dtype, "array"), bool(copy), operator.index(ndmin), device)


def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
  """``a`` as an ember array; ember arrays of the right dtype come back unchanged.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.arange(3)
      >>> jnp.asarray(x) is x, jnp.asarray([1, 2], dtype=jnp.uint8)
      (True, Array([1, 2], dtype=uint8))
  """
  device = _device_or_out_sharding(device, out_sharding)
  _check_order(order, "asarray")
  dt = _user_dtype(dtype, "asarray")
  if isinstance(a, (ArrayImpl, core.Tracer)) and not copy and (
      dt is None or (a.dtype == dt and not a.weak_type)):
    return _place(a, device)
  return _array(a, dt, bool(copy), 0, device)


def copy(a, order=None):
  """A copy of ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.copy(jnp.arange(2))
      Array([0, 1], dtype=int32)
  """
  _check_order(order, "copy")
  return _array(a, None, True, 0, None)


# --- filled arrays ----------------------------------------------------------------------------

def _host_scalar(value, dt):
  """A concrete scalar fill value as a 0-d NumPy array of ``dt`` (None if it is traced)."""
  if _is_traced(value):
    return None
  if isinstance(value, core.Tracer):
    value = value.to_concrete_value()
  if type(value) in _SCALARS or isinstance(value, np.generic):
    return np.asarray(fold_scalar(value, dt, False))
  with np.errstate(invalid="ignore", over="ignore"):
    return np.asarray(value).astype(dt)


def _fill(shape, value, dt, weak: bool, device, fun_name: str):
  """An array of ``shape`` and dtype ``dt`` filled with the scalar ``value``."""
  check_size(shape, dt)
  if _is_eager() and math.prod(shape) <= _HOST_FILL_LIMIT and not backend_client.guards_on:
    host = _host_scalar(value, dt)
    if host is not None:
      return _put_host(np.broadcast_to(host, shape), dt, weak, device)
  if type(value) in _SCALARS or isinstance(value, np.generic):
    value = fold_scalar(value, dt, weak)
  elif value.dtype != dt or value.weak_type != weak:
    value = lax._convert_element_type(value, dt, weak)
  return _place(lax.full(shape, value), device)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
  """An array of zeros (float32 by default).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.zeros((2,))
      Array([0., 0.], dtype=float32)
  """
  device = _device_or_out_sharding(device, out_sharding)
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "zeros")
  return _fill(_shape(shape), 0, dt, False, device, "zeros")


def ones(shape, dtype=None, *, device=None, out_sharding=None):
  """An array of ones (float32 by default).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ones(2, dtype=int)
      Array([1, 1], dtype=int32)
  """
  device = _device_or_out_sharding(device, out_sharding)
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "ones")
  return _fill(_shape(shape), 1, dt, False, device, "ones")


def empty(shape, dtype=None, *, device=None, out_sharding=None):
  """An array of ``shape``; ember has no uninitialized memory, so it holds zeros (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.empty(2)
      Array([0., 0.], dtype=float32)
  """
  device = _device_or_out_sharding(device, out_sharding)
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "empty")
  return _fill(_shape(shape), 0, dt, False, device, "empty")


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
  """An array of ``shape`` filled with ``fill_value`` (broadcast if it is an array).

  Without ``dtype``, a Python scalar fill gives a weakly typed result, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.full((2,), 1.5), jnp.full(2, 7, dtype=jnp.int8)
      (Array([1.5, 1.5], dtype=float32, weak_type=True), Array([7, 7], dtype=int8))
  """
  placed = _placed_eagerly(device)  # device=, not out_sharding=, makes the fill strong
  device = _device_or_out_sharding(device, out_sharding)
  check_arraylike("full", fill_value)
  shape = _shape(shape)
  dt = _user_dtype(dtype, "full")
  if np.ndim(fill_value) == 0:
    weak = dt is None and dtypes.is_weakly_typed(fill_value) and not placed
    dt = dtypes.dtype(fill_value, canonicalize=True) if dt is None else dt
    return _fill(shape, fill_value, dt, weak, device, "full")
  return _place(broadcast_to(_array(fill_value, dt, False, 0, None), shape), device)


def _full_like(fun_name, a, fill_value, dtype, shape, device, out_sharding=None):
  duck = hasattr(a, "shape") and hasattr(a, "dtype")  # ShapeDtypeStruct, avals, NumPy arrays
  check_arraylike(fun_name, *(() if duck else (a,)), fill_value)
  dt = _user_dtype(dtype, fun_name)
  fill_shape = (tuple(a.shape) if duck else np.shape(a)) if shape is None else _shape(shape)
  weak = dt is None and dtypes.is_weakly_typed(a) and not _placed_eagerly(device)
  device = _device_or_out_sharding(device, out_sharding)
  device = _like_device(a, device)
  from ember.primitives.collectives import vary_like  # inside shard_map: varies as ``a``
  if np.ndim(fill_value) == 0:
    dt = dtypes.dtype(a, canonicalize=True) if dt is None else dt
    return vary_like(_fill(fill_shape, fill_value, dt, weak, device, fun_name), a)
  dt = dtypes.dtype(a, canonicalize=True) if dt is None else dt
  return vary_like(_place(broadcast_to(_array(fill_value, dt, False, 0, None), fill_shape),
                          device), a)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  """Zeros with the shape and dtype of ``a`` (weak if ``a`` is), on ``a``'s device.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.zeros_like(jnp.arange(2))
      Array([0, 0], dtype=int32)
  """
  return _full_like("zeros_like", a, 0, dtype, shape, device, out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  """Ones with the shape and dtype of ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ones_like(jnp.arange(2), dtype=float)
      Array([1., 1.], dtype=float32)
  """
  return _full_like("ones_like", a, 1, dtype, shape, device, out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
  """Like ``zeros_like`` (ember has no uninitialized memory).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.empty_like(jnp.ones(2))
      Array([0., 0.], dtype=float32)
  """
  return _full_like("empty_like", prototype, 0, dtype, shape, device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
  """``fill_value`` in an array with the shape and dtype of ``a`` (values are cast).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.full_like(jnp.arange(2), 2.7)
      Array([2, 2], dtype=int32)
  """
  return _full_like("full_like", a, fill_value, dtype, shape, device, out_sharding)


# --- ranges -----------------------------------------------------------------------------------

def _concrete_scalar(x, name: str):
  """A concrete arange bound as a NumPy/Python scalar; tracers raise ConcretizationTypeError."""
  if _is_traced(x):
    raise ConcretizationTypeError(x, f"It arose in the jnp.arange argument '{name}'")
  if isinstance(x, core.Tracer):
    x = x.to_concrete_value()
  if isinstance(x, (str, bytes)):
    raise TypeError(f"jax.numpy.arange: {name} must be a number, got {x!r} of type "
                    f"{type(x).__name__}.")
  if np.ndim(x) != 0:
    raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name} of shape "
                     f"{np.shape(x)}.")
  if isinstance(x, ArrayImpl):
    x = np.asarray(x)[()]
  if np.iscomplexobj(x):
    raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported "
                     "starting in JAX v0.10.0.")
  return x


def _arange_size(start, stop, step) -> int:
  if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
    start, stop, step = int(start), int(stop), int(step)
    if step == 0:
      raise ZeroDivisionError("division by zero")
    return max(-((start - stop) // step), 0)
  if float(step) == 0:
    raise ZeroDivisionError("division by zero")
  size = math.ceil((float(stop) - float(start)) / float(step))
  return max(int(size), 0)


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
  """Evenly spaced values in ``[start, stop)`` (JAX's rules: ``arange(10)`` is int32).

  The bounds must be concrete (a traced bound raises ConcretizationTypeError). Values are
  ``start + step * iota`` computed in the result dtype, as in JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.arange(2, 10, 3), jnp.arange(0., 1., .25)
      (Array([2, 5, 8], dtype=int32), Array([0.  , 0.25, 0.5 , 0.75], dtype=float32))
  """
  device = _device_or_out_sharding(device, out_sharding)
  dt = _user_dtype(dtype, "arange")
  if stop is None and step is None:
    n = _concrete_scalar(start, "stop")
    dt = dt if dt is not None else dtypes.result_type(start)
    size = max(int(np.ceil(n)), 0)
    return _range_out(size, dt, None, None, device)
  start_v = _concrete_scalar(start, "start")
  stop_v = _concrete_scalar(stop, "stop") if stop is not None else None
  step_v = _concrete_scalar(step, "step") if step is not None else None
  if dt is None:
    dt = dtypes.result_type(*(v for v in (start, stop, step) if v is not None))
  if stop_v is None:  # arange(start=..., step=...) counts from 0 to start
    start_v, stop_v = 0, start_v
  size = _arange_size(start_v, stop_v, 1 if step_v is None else step_v)
  return _range_out(size, dt, start_v, step_v, device)


def _range_out(size: int, dt, start, step, device):
  if np.dtype(dt) == np.bool_:  # an iota of booleans, which lax refuses (JAX's message)
    raise TypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of integer, "
                    "floating, complexfloating.")
  check_size((size,), dt)
  start_c = None if start is None else fold_scalar(start, dt, False)
  step_c = None if step is None else fold_scalar(step, dt, False)
  if _is_eager() and not backend_client.guards_on:  # (a guard sees JAX's transfers)
    with np.errstate(all="ignore"):
      out = np.arange(size).astype(dt)
      if step_c is not None:
        out = step_c * out
      if start_c is not None:
        out = start_c + out
    return _put_host(np.asarray(out, dt), dt, False, device)
  out = lax.iota(dt, size)
  if step_c is not None:
    out = lax.mul(step_c, out)
  if start_c is not None:
    out = lax.add(start_c, out)
  return out


def _check_num(num) -> int:
  num = operator.index(num) if not _is_traced(num) else num
  if isinstance(num, core.Tracer):
    raise ConcretizationTypeError(num, "It arose in the argument 'num' of jnp.linspace.")
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  return num


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
  """``num`` evenly spaced values from ``start`` to ``stop`` (along a new ``axis`` when the
  bounds are arrays).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.linspace(0, 1, 5)
      Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
  """
  num = _check_num(num)
  check_arraylike("linspace", start, stop)
  dt = _user_dtype(dtype, "linspace")
  out = _linspace(start, stop, num=num, endpoint=bool(endpoint), retstep=bool(retstep),
                  dtype=dt, axis=operator.index(axis))
  if retstep:
    return _place(out[0], device), out[1]
  return _place(out, device)


def _linspace_impl(start, stop, *, num, endpoint, retstep, dtype, axis):
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  cdt = dtypes.to_inexact_dtype(dtype)
  start = lax._convert_element_type(start, cdt, False) if not _same(start, cdt) else start
  stop = lax._convert_element_type(stop, cdt, False) if not _same(stop, cdt) else stop
  bounds = list(broadcast_shapes(np.shape(start), np.shape(stop)))
  b_start, b_stop = broadcast_to(start, bounds), broadcast_to(stop, bounds)
  axis = len(bounds) + axis + 1 if axis < 0 else axis
  bshape = bounds[:axis] + [1] + bounds[axis:]
  div = num - 1 if endpoint else num
  if num > 1:
    delta = lax.div(lax.sub(*promote_shapes("linspace", stop, start)),
                    np.asarray(div, cdt)[()])
    iota_shape = [1] * len(bshape)
    iota_shape[axis] = div
    real = np.dtype(dtypes.finfo(cdt).dtype)
    step = lax.div(lax.reshape(lax.iota(real, div), tuple(iota_shape)), np.asarray(div, real)[()])
    if real != cdt:
      step = lax._convert_element_type(step, cdt)
    lo = lax.mul(lax.reshape(b_start, tuple(bshape)), lax.sub(np.asarray(1, cdt)[()], step))
    hi = lax.mul(lax.reshape(b_stop, tuple(bshape)), step)
    out = lax.add(lo, hi)
    if endpoint:
      out = lax.concatenate([out, lax.expand_dims(b_stop, (axis,))], axis)
  elif num == 1:
    delta = np.asarray(np.nan, cdt) if endpoint else \
        lax.sub(*promote_shapes("linspace", stop, start))
    out = lax.reshape(b_start, tuple(bshape))
  else:
    delta = np.asarray(np.nan, cdt)
    out = lax.full(tuple(bounds[:axis] + [0] + bounds[axis:]), np.zeros((), cdt)[()])
  if dtypes.is_integer(dtype) and not dtypes.is_integer(out.dtype):
    out = lax.floor(out)
  if out.dtype != dtype:
    out = lax._convert_element_type(out, dtype)
  if not isinstance(delta, (ArrayImpl, core.Tracer)):
    delta = lax.full((), delta)
  return (out, delta) if retstep else out


def _same(x, dt) -> bool:
  return dtypes.dtype(x, canonicalize=True) == dt and not dtypes.is_weakly_typed(x)


_linspace = named_jit(_linspace_impl, "_linspace",
                      static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
  """``base ** linspace(start, stop, num)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.logspace(0, 2, 3)
      Array([  1.,  10., 100.], dtype=float32)
  """
  from ember.numpy.ufuncs import power
  num = _check_num(num)
  check_arraylike("logspace", start, stop)
  dt = _user_dtype(dtype, "logspace")
  if dt is None:
    dt = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  cdt = dtypes.to_inexact_dtype(dt)
  start, stop = asarray(start, dtype=cdt), asarray(stop, dtype=cdt)
  lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
  return lax._convert_element_type(power(base, lin), dt)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
  """Values spaced evenly on a log scale from ``start`` to ``stop`` (same sign required).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.geomspace(1, 100, 3)
      Array([  1.,  10., 100.], dtype=float32)
  """
  from ember.numpy.ufuncs import divide, multiply, sign
  from ember.numpy.ufuncs_math import log10
  num = _check_num(num)
  check_arraylike("geomspace", start, stop)
  dt = _user_dtype(dtype, "geomspace")
  if dt is None:
    dt = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  cdt = dtypes.to_inexact_dtype(dt)
  start, stop = asarray(start, dtype=cdt), asarray(stop, dtype=cdt)
  s = sign(start)
  res = multiply(s, logspace(log10(divide(start, s)), log10(divide(stop, s)), num,
                             endpoint=endpoint, base=10.0, dtype=cdt, axis=0))
  axis = canonicalize_axis(axis, np.ndim(res))
  if axis:
    res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, np.ndim(res))))
  return lax._convert_element_type(res, dt)


# --- matrices ---------------------------------------------------------------------------------

def _matrix_dims(N, M, fun_name: str):
  n = _shape((N,), f"argument of 'N' jnp.{fun_name}()")[0]
  m = n if M is None else _shape((M,), f"argument of 'M' jnp.{fun_name}()")[0]
  if fun_name == "eye" and (n < 0 or m < 0):  # (JAX's eye: a ValueError; tri: a TypeError)
    raise ValueError(f"negative dimensions are not allowed: jnp.eye got N={N} and M={M}.")
  check_size((n, m), np.bool_)
  return n, m


def _offset(k):
  """A concrete diagonal offset as an int; a traced one stays a tracer."""
  if isinstance(k, core.Tracer) and _is_traced(k):
    return k
  return operator.index(k)


def _diag_mask(n: int, m: int, k, cmp):
  """``cmp(row + k, col)`` over an (n, m) grid, staged as JAX does."""
  rows = lax.broadcasted_iota(np.int32, (n, m), 0)
  rows = lax.add(rows, k if isinstance(k, core.Tracer) else np.int32(k))
  cols = lax.broadcasted_iota(np.int32, (n, m), 1)
  return cmp(rows, cols)


def eye(N, M=None, k=0, dtype=None, *, device=None):
  """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.eye(2, 3, k=1, dtype=int)
      Array([[0, 1, 0],
             [0, 0, 1]], dtype=int32)
  """
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "eye")
  n, m = _matrix_dims(N, M, "eye")
  k = _offset(k)
  if _is_eager() and not isinstance(k, core.Tracer):
    return _put_host(np.eye(n, m, k).astype(dt), dt, False, device)
  rows = lax.broadcasted_iota(np.int32, (n, m), 0)
  cols = lax.broadcasted_iota(np.int32, (n, m), 1)
  mask = lax.eq(lax.add(rows, k if isinstance(k, core.Tracer) else np.int32(k)), cols)
  return _place(lax._convert_element_type(mask, dt), device)


def identity(n, dtype=None):
  """The ``n`` x ``n`` identity matrix.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.identity(2, dtype=bool)
      Array([[ True, False],
             [False,  True]], dtype=bool)
  """
  return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
  """Ones at and below the ``k``-th diagonal, zeros above.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tri(2, 3)
      Array([[1., 0., 0.],
             [1., 1., 0.]], dtype=float32)
  """
  dt = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "tri")
  n, m = _matrix_dims(N, M, "tri")
  k = _offset(k)
  if _is_eager() and not isinstance(k, core.Tracer):
    return _put_host(np.tri(n, m, k).astype(dt), dt)
  return lax._convert_element_type(_diag_mask(n, m, k, lax.ge), dt)


def _tri_select(m, k, fun_name: str, lower: bool):
  m = asarray(m)
  shape = np.shape(m)
  if len(shape) < 2:
    raise ValueError(f"Argument to jax.numpy.{fun_name} must be at least 2D")
  n_rows, n_cols = shape[-2:]
  mask = _diag_mask(n_rows, n_cols, k if lower else k - 1, lax.ge)
  if len(shape) > 2:
    mask = lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))
  zero = lax.full(shape, np.zeros((), m.dtype)[()]) if not m.weak_type else \
      lax.full(shape, fold_scalar(0, m.dtype, True))
  return lax.select(mask, m, zero) if lower else lax.select(mask, zero, m)


_tril = named_jit(lambda m, k: _tri_select(m, k, "tril", True), "tril", static_argnames="k")
_triu = named_jit(lambda m, k: _tri_select(m, k, "triu", False), "triu", static_argnames="k")


def tril(m, k: int = 0):
  """``m`` with the elements above the ``k``-th diagonal zeroed (on the last two axes).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.tril(jnp.ones((2, 2)))
      Array([[1., 0.],
             [1., 1.]], dtype=float32)
  """
  check_arraylike("tril", m)
  return _tril(m, k=operator.index(k))


def triu(m, k: int = 0):
  """``m`` with the elements below the ``k``-th diagonal zeroed (on the last two axes).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.triu(jnp.ones((2, 2)))
      Array([[1., 1.],
             [0., 1.]], dtype=float32)
  """
  check_arraylike("triu", m)
  return _triu(m, k=operator.index(k))


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
  """Coordinate arrays from 1-D coordinate vectors (``indexing`` 'xy' or 'ij').

  Example:
      >>> import ember.numpy as jnp
      >>> [g.shape for g in jnp.meshgrid(jnp.arange(2), jnp.arange(3))]
      [(3, 2), (3, 2)]
  """
  check_arraylike("meshgrid", *xi)
  args = [asarray(x) for x in xi]
  if any(np.ndim(a) != 1 for a in args):
    raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                     f"{[np.shape(a) for a in args]}")
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  if indexing == "xy" and len(args) >= 2:
    args[0], args[1] = args[1], args[0]
  shape = [np.shape(a)[0] for a in args]
  outs = []
  for i, a in enumerate(args):
    target = [1] * len(args) if sparse else list(shape)
    target[i] = shape[i]
    outs.append(lax.broadcast_in_dim(a, tuple(target), (i,)))
  if indexing == "xy" and len(args) >= 2:
    outs[0], outs[1] = outs[1], outs[0]
  return outs


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
  """An array interpreting ``buffer``'s bytes as ``dtype``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.frombuffer(b'\\x01\\x02', dtype=jnp.uint8)
      Array([1, 2], dtype=uint8)
  """
  return asarray(np.frombuffer(buffer, dtype=np.dtype(dtype), count=count, offset=offset))


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """``function(*indices)`` where ``indices[i]`` holds each element's index along axis i.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fromfunction(lambda i, j: i + j, (2, 2), dtype=int)
      Array([[0, 1],
             [1, 2]], dtype=int32)
  """
  shape = _shape(shape)
  dt = dtypes.check_and_canonicalize_user_dtype(dtype, "fromfunction")
  indices = [lax.broadcasted_iota(dt, shape, i) for i in range(len(shape))]
  return function(*indices, **kwargs)
