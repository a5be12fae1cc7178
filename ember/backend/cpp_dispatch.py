"""jaxlib's C++ dispatcher (``PjitFunction``) driven without JAX, for jit's cached calls.

On a call, the C++ object computes the arguments' signature (tree structure, dtypes, shapes, weak
types, committedness, x64) and, if it has seen it, executes the stored executable directly. Otherwise
it calls back into ember's Python path, which returns the output and, when the call is simple
enough (uncommitted device arrays only), the data the C++ side needs to serve it next time.
"""
from __future__ import annotations

import collections

import numpy as np

from jaxlib import _jax

from ember.config import config
from ember.backend.array import ArrayImpl, abstractify, to_buffer
from ember.backend import client as backend_client

__all__ = ["make", "fastpath", "set_post_hook"]

_FastPath = collections.namedtuple(
    "_FastPath", ["xla_executable", "in_shardings", "out_shardings", "out_committed", "out_avals",
                  "out_pytree_def", "kept_var_bitvec", "in_device_local_layouts", "const_args"])

_x64 = _jax.config.Config("ember_enable_x64", bool(config.jax_enable_x64),
                          include_in_jit_key=True, include_in_trace_context=True)
_jax.jax_jit.set_enable_x64_state(_x64)
_jax.jax_jit.set_disable_jit_state(_jax.config.Config("ember_disable_jit", False))
_post_hook = _jax.config.Config("ember_post_hook", None)
_jax.jax_jit.set_post_hook_state(_post_hook)
config.watch("jax_enable_x64", lambda name, old, new: _x64.set_global(bool(new)))
# The other options that change traces (rank promotion, dtype promotion...) key cached calls too.
_trace_key = _jax.config.Config("ember_trace_key", config.trace_key, include_in_jit_key=True,
                                include_in_trace_context=True)
config.watch_trace_key(_trace_key.set_global)

_REGISTRY = _jax.pytree.default_registry()

# Host values a cached call may take besides device arrays: the C++ side computes their
# signature (dtype, weak type) as ember's abstractify does, and _place_host_value copies them.
HOST_TYPES = frozenset({int, float, bool, complex, np.ndarray} | {
    np.dtype(t).type for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                               np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                               np.float64, np.complex64, np.complex128)})


def set_post_hook(hook) -> None:
  """Have the C++ dispatcher call ``hook(pjit_function, args, kwargs, out)`` after every cached
  call (None: no hook, the default). jit's debug-nans checks use it."""
  _post_hook.set_global(hook)


def _place_host_value(arg, sharding, layout):
  """Place a Python scalar or NumPy value the C++ side met in a cached call (its signature, with
  the value's canonical dtype and weak type, already matched the stored program's)."""
  if layout is not None or type(arg) not in HOST_TYPES:
    raise TypeError(f"ember's C++ dispatch cannot place argument {arg!r}")  # never cached
  return to_buffer(arg, abstractify(arg), sharding._devices[0])


def make(name: str, cache_miss, static_argnums=(), static_argnames=()):
  """A C++ callable that serves cached calls and defers every other call to ``cache_miss``.
  Static arguments are part of its cache key (hashed and compared in C++)."""
  return _jax.pjit(name, None, cache_miss, list(static_argnums), list(static_argnames),
                   object(), _REGISTRY, _place_host_value, _jax.PjitFunctionCache(256))


def fastpath(exe, n_args: int, out):
  """What the C++ side needs to run ``exe`` again, or None if ``out`` is not plain arrays."""
  if exe.const_bufs:  # executables with constant parameters stay on the Python path
    return None
  leaves, treedef = _REGISTRY.flatten(out)
  if len(leaves) != len(exe.out_avals) or any(type(x) is not ArrayImpl for x in leaves):
    return None
  n_out = len(leaves)
  sharding = backend_client.replicated_sharding(exe.device)
  return _FastPath(exe.exe, [sharding] * n_args, [sharding] * n_out, [False] * n_out,
                   list(exe.out_avals), treedef, [True] * n_args, [None] * n_args,
                   [])
