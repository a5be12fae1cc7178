"""Top-level functions that move data and query shapes: device_put, device_get,
block_until_ready, eval_shape."""
from __future__ import annotations

import contextlib
import functools
from typing import Callable

import numpy as np
from jaxlib import _jax

from ember import pytree
from ember.backend import client as backend_client
from ember.backend.array import (ArrayImpl, _host_value, abstractify, copy_to_device, device_of,
                                 device_put_value)
from ember.backend import spmd
from ember.backend.sharding import (NamedSharding, PartitionSpec, SingleDeviceSharding,
                                    current_mesh)
from ember.core import trace as core
from ember.core.trace import Tracer
from ember._src.traceback_util import api_boundary

__all__ = ["device_put", "device_get", "block_until_ready", "eval_shape", "named_call",
           "named_scope", "ensure_compile_time_eval", "clear_caches", "live_arrays"]


def _resolve_device(device):
  if device is None or isinstance(device, NamedSharding):
    return device
  if isinstance(device, PartitionSpec):  # over the mesh set with ember.set_mesh
    mesh = current_mesh()
    if mesh is None:
      raise ValueError(f"device_put with a PartitionSpec ({device!r}) needs a mesh: call "
                       "ember.set_mesh(mesh) first, or pass NamedSharding(mesh, spec).")
    return NamedSharding(mesh, device)
  if isinstance(device, SingleDeviceSharding):
    return device._device
  if hasattr(device, "_device_assignment") or hasattr(device, "device_set"):
    devs = list(device.device_set)
    if len(devs) == 1:
      return devs[0]
  if not hasattr(device, "platform") or not hasattr(device, "id"):  # (JAX's type: ValueError)
    raise ValueError(f"Expected a Device or a single-device Sharding, got {device!r} of type "
                     f"{type(device).__name__}.")
  if device not in backend_client.devices():
    raise ValueError(f"Device {device!r} is not one of this process's devices "
                     f"{backend_client.devices()}.")
  return device


def _put_leaf(x, device, copy: str):
  """``x`` placed on ``device``; ``copy`` is JAX's copy semantics: "reuse" (``x`` itself when
  already in place, host memory possibly aliased), "copy" (always a new buffer) or "donate" (a
  new array; on CPU, as in JAX, ``x`` itself stays alive)."""
  if isinstance(x, Tracer):
    return x
  if type(x) is ArrayImpl and copy != "reuse":
    return _copy_array(x, device)
  if isinstance(device, NamedSharding):
    return spmd.put_sharded(x, device)
  if type(x) is ArrayImpl:
    if device is None:
      return x
    if x._committed and not spmd.is_sharded(x) and device_of(x) == device:
      return x
    return copy_to_device(x, device, committed=True)
  aval = abstractify(x)
  if copy == "copy" and isinstance(x, np.ndarray):
    x = np.array(x)  # never share the caller's memory
  return device_put_value(np.asarray(x), aval, device or backend_client.default_device(),
                          committed=device is not None)


def _copy_array(x, device):
  """A new array with ``x``'s value and type, on ``device`` (committed) or, when None, laid out
  and committed as ``x`` is."""
  host = np.array(_host_value(x))
  if device is None:
    device = x._sharding if spmd.is_sharded(x) else device_of(x)
    committed = x._committed
  else:
    committed = True
  if isinstance(device, NamedSharding):
    return spmd.put_sharded(host, device, x.aval)
  return device_put_value(host, x.aval, device, committed=committed)


def _flags(value, x, what: str) -> list:
  """``donate``/``may_alias`` per leaf of ``x``: a bool (or None) for all, or a pytree prefix."""
  if value is None or isinstance(value, bool):
    return [value] * len(pytree.tree_leaves(x))
  try:
    return pytree.broadcast_prefix(value, x, is_leaf=lambda v: v is None)
  except ValueError:
    raise ValueError(f"device_put {what} must be a bool or a pytree prefix of the value, got "
                     f"{value!r}.") from None


def _copy_semantics(donate: bool, may_alias) -> str:
  if may_alias and donate:
    raise ValueError("may_alias and donate cannot be True at the same time.")
  if may_alias is None:
    may_alias = not donate
  return "reuse" if may_alias else "donate" if donate else "copy"


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
  """Place the leaves of ``x`` on ``device`` (committed) or on the default device (uncommitted).

  ``device`` may also be a ``NamedSharding``, which lays each leaf out over its mesh, or a pytree
  of devices and shardings matching ``x``. ``may_alias=False`` always makes new buffers;
  ``may_alias=None`` (the default) or ``True`` returns an array already in place as it is.
  ``donate=True`` says the input may be consumed: as JAX on CPU, the result is a new array and
  the input stays alive. ``src`` (the source's device or sharding, or a pytree of them) is
  checked as ``device`` is and, as in JAX for single-process arrays, changes nothing. Each of
  ``donate`` and ``may_alias`` may be a pytree prefix of ``x``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.device_put(1.0).device
      CpuDevice(id=0)
      >>> x = jnp.ones(2)
      >>> ember.device_put(x) is x, ember.device_put(x, may_alias=False) is x
      (True, False)
  """
  leaves, treedef = pytree.flatten(x)
  if isinstance(device, (list, tuple)):
    devices = pytree.broadcast_prefix(device, x, is_leaf=lambda d: d is None)
  else:
    devices = [device] * len(leaves)
  if src is not None:
    for s in (src if isinstance(src, (list, tuple)) else (src,)):
      _resolve_device(s)
  copies = [_copy_semantics(d, m) for d, m in zip(_flags(donate, x, "donate"),
                                                   _flags(may_alias, x, "may_alias"))]
  resolved = {}
  for d in devices:
    if id(d) not in resolved:
      resolved[id(d)] = _resolve_device(d)
  if backend_client.guards_on:  # tell jaxlib's transfer guards these transfers are explicit
    with backend_client.explicit_transfer("put"):
      return pytree.unflatten(treedef, [_put_leaf(leaf, resolved[id(d)], c)
                                        for leaf, d, c in zip(leaves, devices, copies)])
  return pytree.unflatten(treedef, [_put_leaf(leaf, resolved[id(d)], c)
                                    for leaf, d, c in zip(leaves, devices, copies)])


def device_get(x):
  """``x`` with its ember arrays copied to the host as NumPy arrays (other leaves unchanged).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.device_get({'a': jnp.arange(3.0), 'b': 1})
      {'a': array([0., 1., 2.], dtype=float32), 'b': 1}
  """
  def get(leaf):
    if type(leaf) is ArrayImpl:
      return np.asarray(leaf)
    return leaf
  if backend_client.guards_on:
    with backend_client.explicit_transfer("get"):
      return pytree.tree_map(get, x)
  return pytree.tree_map(get, x)


def typeof(x):
  """The abstract value of ``x`` (its ``ShapedArray``: shape, dtype, weak type), as inside a
  transform.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.typeof(jnp.ones(2))
      ShapedArray(float32[2])
      >>> ember.typeof(1.0)
      ShapedArray(float32[], weak_type=True)
  """
  return core.get_aval(x)


def block_until_ready(x):
  """Wait until every array in ``x`` has been computed; return ``x``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.block_until_ready(jnp.arange(3.0) * 2)
      Array([0., 2., 4.], dtype=float32)
  """
  arrays = []
  for leaf in pytree.tree_leaves(x):
    if type(leaf) is ArrayImpl:
      arrays.append(leaf)
    else:  # other objects that can wait (as JAX: anything with the method)
      wait = getattr(leaf, "block_until_ready", None)
      if callable(wait):
        wait()
  if len(arrays) == 1:
    arrays[0].block_until_ready()
  elif arrays:
    _jax.batched_block_until_ready(arrays)  # one wait for all, in C++
  return x


@api_boundary
def eval_shape(fun: Callable, *args, **kwargs):
  """The shapes and dtypes ``fun`` would return, computed without running it.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.eval_shape(lambda x: jnp.stack([x, x]), ember.ShapeDtypeStruct((3,), jnp.float32))
      ShapeDtypeStruct(shape=(2, 3), dtype=float32)
  """
  from ember.transforms.jit import PjitFunction, jit
  if not isinstance(fun, PjitFunction):  # as JAX's, the trace of jit(fun) (and shares its cache)
    try:
      hash(fun)
    except TypeError:
      fun = functools.partial(fun)
    fun = jit(fun)
  return fun.trace(*args, **kwargs).out_info


class _NameScope:
  """What ``named_scope`` returns: a context manager that also decorates functions."""
  __slots__ = ("name", "_scopes")

  def __init__(self, name: str):
    self.name = name
    self._scopes: list = []  # entered scopes (it may be re-entered, e.g. recursively)

  def __enter__(self):
    scope = core.extend_name_stack(self.name)
    scope.__enter__()
    self._scopes.append(scope)
    return None

  def __exit__(self, exc_type, exc_value, traceback):
    return self._scopes.pop().__exit__(exc_type, exc_value, traceback)

  def __call__(self, fun):
    @functools.wraps(fun)
    def scoped(*args, **kwargs):
      with self:
        return fun(*args, **kwargs)
    return scoped


def named_scope(name: str) -> _NameScope:
  """A context manager (or decorator) naming the computations staged inside it.

  The names are recorded in the ``source_info.name_stack`` of the equations staged inside
  (``str`` of it: the names joined by ``/``, relative to the enclosing ``jit``), as in JAX; they
  do not reach the compiled program's op metadata in ember (this differs from JAX only there).
  Values, printed jaxprs and errors are the same with or without it.

  Raises:
    TypeError: ``name`` is not a string.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.jit
      ... def layer(w, x):
      ...   with ember.named_scope("dot_product"):
      ...     return w * x
      >>> layer(2.0, 3.0)
      Array(6., dtype=float32, weak_type=True)
  """
  if not isinstance(name, str):
    raise TypeError("named_scope name argument must be a string.")
  return _NameScope(name)


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
  """``fun`` wrapped in ``named_scope(name)`` (``name`` defaults to ``fun.__name__``).

  Example:
      >>> import ember
      >>> double = ember.named_call(lambda x: 2 * x, name="double")
      >>> ember.jit(double)(4.0)
      Array(8., dtype=float32, weak_type=True)
  """
  if name is None:
    name = fun.__name__
  return named_scope(name)(fun)


@contextlib.contextmanager
def ensure_compile_time_eval():
  """Context manager under which operations on concrete values run now, even while ``jit``
  traces: their results are arrays, usable as Python values (``int(n)``, shapes). Operations
  on traced values are traced as usual.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.jit
      ... def f(x):
      ...   with ember.ensure_compile_time_eval():
      ...     n = int(jnp.sum(jnp.arange(4)))  # 6, computed while tracing
      ...   return x * n
      >>> f(1.0)
      Array(6., dtype=float32, weak_type=True)
  """
  with core.set_current_trace(core.COMPILE_TIME_EVAL_TRACE):
    yield


def clear_caches() -> None:
  """Forget every traced and compiled program (jit's traces and executables, eager
  executables, transformed jaxprs): later calls trace and compile again.

  Example:
      >>> import ember
      >>> ember.clear_caches()
  """
  from ember.backend.compile import LRUCache
  LRUCache.clear_all()
  _jax.PjitFunctionCache.clear_all()
  for cache in list(registered_caches):
    cache.cache_clear()


# Caches clear_caches clears too, {cache: what it is for} (extend.backend.register_backend_cache).
registered_caches: dict = {}


def live_arrays(platform: str | None = None) -> list:
  """Every array alive in this process (on ``platform``'s devices: only ``"cpu"``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> x = jnp.arange(3)
      >>> any(a is x for a in ember.live_arrays())
      True
  """
  if platform not in (None, "cpu"):
    if platform in backend_client._GPU_PLATFORMS:
      raise RuntimeError(f"Unknown backend: '{platform}' requested, but no platforms that are "
                         f"instances of {platform} are present. Platforms present are: cpu")
    raise RuntimeError(f"Unknown backend {platform}. Available backends are ['cpu']")
  return backend_client.get_client().live_arrays()
