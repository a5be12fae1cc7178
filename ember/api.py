"""Top-level functions that move data and query shapes: device_get, block_until_ready,
eval_shape, named scopes, caches (device_put is the backend's, ember/backend/placement.py)."""
from __future__ import annotations

import contextlib
import functools
import operator
from typing import Callable

import numpy as np
from jaxlib import _jax

from ember import pytree
from ember.backend import client as backend_client
from ember.backend.array import ArrayImpl
from ember.backend.placement import _resolve_device, device_put  # noqa: F401 (re-exported)
from ember.core import trace as core
from ember._src.traceback_util import api_boundary

__all__ = ["device_put", "device_get", "block_until_ready", "eval_shape", "named_call",
           "named_scope", "ensure_compile_time_eval", "clear_caches", "live_arrays"]


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
  from ember.core.cache import BoundedCache
  BoundedCache.clear_all()
  _jax.PjitFunctionCache.clear_all()
  for cache in list(registered_caches):
    cache.cache_clear()


# Caches clear_caches clears too, {cache: what it is for} (extend.backend.register_backend_cache).
registered_caches: dict = {}


def live_arrays(platform: str | None = None) -> list:
  """Every array alive in this process (on the default backend's or ``platform``'s devices).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> x = jnp.arange(3)
      >>> any(a is x for a in ember.live_arrays())
      True
  """
  return backend_client.get_backend(platform).live_arrays()


def fwd_and_bwd(fun: Callable, argnums, has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
  """The forward and backward passes of ``fun`` as two functions, so that the backward pass is
  compiled once and reused across calls: ``fwd(*args)`` is ``vjp`` of ``fun`` in the arguments
  ``argnums`` (the others held fixed; keyword arguments are not passed on, as in JAX), returning
  ``(out, f_vjp)`` or ``(out, f_vjp, aux)``; ``bwd(f_vjp, cotangent)`` is ``f_vjp(cotangent)``,
  one cotangent (not a tuple) when ``argnums`` is an int. Both are jitted unless ``jitted`` is
  False.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> fwd, bwd = ember.fwd_and_bwd(lambda x, w: jnp.sin(x) * w, argnums=(0, 1))
      >>> y, residuals = fwd(0.0, 3.0)
      >>> bwd(residuals, 1.0)
      (Array(3., dtype=float32, weak_type=True), Array(0., dtype=float32, weak_type=True))
  """
  from ember.transforms.jit import jit
  from ember.transforms.linearize import vjp
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun}")
  nums = (operator.index(argnums),) if isinstance(argnums, int) else tuple(
      operator.index(i) for i in argnums)

  def fwd(*args, **kwargs):
    del kwargs  # fun is called with the positional arguments only, as in JAX
    positions = [_argnum_position(i, len(args)) for i in nums]

    def of_differentiated(*diff_args):
      full = list(args)
      for i, a in zip(positions, diff_args):
        full[i] = a
      return fun(*full)
    return vjp(of_differentiated, *(args[i] for i in positions), has_aux=has_aux)

  def bwd(f_vjp, outgrad):
    cotangents = f_vjp(outgrad)
    return cotangents[0] if isinstance(argnums, int) else cotangents

  if jitted:
    return jit(fwd), jit(bwd)
  return fwd, bwd


def _argnum_position(i: int, nargs: int) -> int:
  if not -nargs <= i < nargs:
    raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have value "
                     "greater than or equal to -len(args) and less than len(args), but got "
                     f"value {i} for len(args) == {nargs}.")
  return i % nargs
