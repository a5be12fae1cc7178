"""``callback``: a Python function called from a program, with the values it reached.

``callback_p`` carries a ``HostCallback`` (the function, how to rebuild its arguments' pytree,
the avals of its results) and binds on the flattened arguments. Eagerly it calls the function
at once. Staged, it lowers to a ``stablehlo.custom_call @xla_ffi_python_cpu_callback`` whose
``backend_config.index`` points into the module's list of host callbacks (collected in the
lowering context; ``lowering.host_callbacks(text)`` hands them to the compiler with the text);
XLA calls back with NumPy arrays. Each HostCallback has a serial number, written into the
custom call, so two programs differing only in their callback never share an executable.

Rules: ``debug`` callbacks (``ember.debug.callback``/``print``) have no results, are called on the
primal values under ``jvp`` and once per example under ``vmap`` (in order); ``pure`` callbacks
(``ember.pure_callback``) are not differentiable and batch by their ``vmap_method``.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from ember.core import trace as core
from ember.core.aval import ShapedArray

__all__ = ["HostCallback", "callback_p", "result_avals"]

_serial = itertools.count()


class HostCallback:
  """A user's function with what calling it needs; compared by identity."""
  __slots__ = ("fun", "in_tree", "result_avals", "result_tree", "kind", "vmap_method",
               "serial", "__weakref__")

  def __init__(self, fun: Callable, in_tree, result_avals: tuple, result_tree, kind: str,
               vmap_method: str | None = None):
    self.fun, self.in_tree, self.result_avals, self.result_tree = fun, in_tree, result_avals, \
        result_tree
    self.kind, self.vmap_method = kind, vmap_method
    self.serial = next(_serial)

  def __repr__(self):
    return getattr(self.fun, "__name__", repr(self.fun))

  def call(self, *leaves) -> list:
    """Run the function on host values; its results as NumPy arrays of the declared types."""
    from ember import pytree
    args, kwargs = pytree.unflatten(self.in_tree, list(leaves))
    out = self.fun(*args, **kwargs)
    if self.kind == "debug":
      return []
    leaves, tree = pytree.flatten(out)
    if tree != self.result_tree:
      raise TypeError(f"callback {self!r} returned a value of structure {tree}, but its "
                      f"result_shape_dtypes say {self.result_tree}.")
    from ember import dtypes
    results = []
    for x, aval in zip(leaves, self.result_avals):
      if not hasattr(x, "__array__"):
        raise TypeError(f"callback {self!r} returned {x!r} of type {type(x).__name__}: its "
                        "results must be arrays (NumPy's or ember's).")
      x = np.asarray(x)
      # a 64-bit result for a 32-bit declaration (x64 off) is narrowed, as in JAX
      if x.shape != aval.shape or dtypes.canonicalize_dtype(x.dtype) != aval.dtype:
        raise TypeError(f"callback {self!r} returned an array of shape {x.shape} and dtype "
                        f"{x.dtype}, but its result_shape_dtypes say "
                        f"{aval.str_short(short_dtypes=True)}.")
      results.append(x.astype(aval.dtype, copy=False))
    return results


callback_p = core.Primitive("callback", multiple_results=True)
callback_p.own_vma = True


def _abstract_eval(*avals, callback: HostCallback):
  return list(callback.result_avals)


def _impl(*args, callback: HostCallback):
  from ember.backend.array import abstractify, to_buffer
  from ember.backend.client import default_device
  host = [np.asarray(x) for x in args]
  return [to_buffer(r, abstractify(r), default_device()) for r in callback.call(*host)]


def _host_function(callback: HostCallback):
  def run(*arrays):
    return tuple(callback.call(*arrays))
  return run


def _lower(ctx, *args, callback: HostCallback):
  if ctx.module_context.get("mesh") is not None:
    raise NotImplementedError("host callbacks (debug.print, debug.callback, pure_callback) "
                              "inside a program compiled for a mesh (shard_map, sharded "
                              "arguments) are not supported yet in ember.")
  callbacks = ctx.module_context.setdefault("host_callbacks", [])
  index = len(callbacks)
  callbacks.append(_host_function(callback))
  attrs = {
      "api_version": "4 : i32",
      "backend_config": f"{{index = {index} : ui64}}",
      "call_target_name": '"xla_ffi_python_cpu_callback"',
      "has_side_effect": "false" if callback.kind == "pure" else "true",
      "mhlo.frontend_attributes": f'{{ember_callback = "{callback.serial}"}}',
  }
  return ctx.op("stablehlo.custom_call", list(args), list(callback.result_avals), attrs)


def _jvp(primals, tangents, *, callback: HostCallback):
  if callback.kind != "debug":
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")
  return callback_p.bind(*primals, callback=callback), []


def _batch(vals, dims, *, callback: HostCallback):
  from ember import lax
  from ember.transforms.batching import moveaxis
  size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
  if callback.kind == "debug" or callback.vmap_method == "sequential":
    rows = []
    for i in range(size):  # once per example, in order (as JAX)
      rows.append(callback_p.bind(*[v if d is None else lax.index_in_dim(v, i, d, False)
                                    for v, d in zip(vals, dims)], callback=callback))
    if callback.kind == "debug":
      return [], []
    return [lax.concatenate([lax.expand_dims(r[k], (0,)) for r in rows], 0)
            for k in range(len(callback.result_avals))], [0] * len(callback.result_avals)
  if callback.vmap_method in ("expand_dims", "broadcast_all"):
    moved = []
    for v, d in zip(vals, dims):
      if d is None:
        v = lax.expand_dims(v, (0,))
        if callback.vmap_method == "broadcast_all":
          v = lax.broadcast_in_dim(v, (size,) + tuple(np.shape(v)[1:]),
                                   tuple(range(np.ndim(v))))
      else:
        v = moveaxis(v, d, 0)
      moved.append(v)
    batched = HostCallback(callback.fun, callback.in_tree,
                           tuple(a.update(shape=(size,) + a.shape)
                                 for a in callback.result_avals),
                           callback.result_tree, callback.kind, callback.vmap_method)
    return callback_p.bind(*moved, callback=batched), [0] * len(callback.result_avals)
  raise NotImplementedError(
      "Cannot batch pure_callback without vmap_method: pass vmap_method='sequential', "
      "'expand_dims' or 'broadcast_all' to pure_callback (see its docstring).")


callback_p.def_rules(abstract_eval=_abstract_eval, impl=_impl, lower=_lower, jvp=_jvp,
                     batch=_batch)
callback_p.def_unsupported("transpose", "a callback is not linear")


def result_avals(result_shape_dtypes: Any) -> tuple[tuple, Any]:
  """The avals (and pytree) a pure_callback declares for its results."""
  from ember import dtypes, pytree
  leaves, tree = pytree.flatten(result_shape_dtypes)
  avals = []
  for leaf in leaves:
    if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
      raise TypeError(f"result_shape_dtypes must be a pytree of objects with shape and dtype "
                      f"(e.g. jax.ShapeDtypeStruct), got {leaf!r}.")
    avals.append(ShapedArray(tuple(leaf.shape), dtypes.canonicalize_dtype(leaf.dtype)))
  return tuple(avals), tree

