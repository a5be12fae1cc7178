"""Host callbacks: Python functions called from a program with the values it reached.

Four primitives (JAX's names and parameters), one set of rules:

- ``pure_callback`` (``ember.pure_callback``): results of declared types; XLA may skip it when
  they are unused; batched by its ``vmap_method``; not differentiable.
- ``io_callback`` (``experimental.io_callback``): results, never skipped, once per example
  under ``vmap``.
- ``debug_callback`` (``debug.callback``, ``debug.breakpoint``) and ``debug_print``
  (``debug.print``, ``debug.log``): no results; called with the primal values under ``jvp``
  and once per example under ``vmap``, in order.

The user's function receives ember arrays (on the first CPU device) as in JAX. Eagerly it is
called at once. Staged, a callback lowers to a ``stablehlo.custom_call
@xla_ffi_python_cpu_callback`` whose ``backend_config.index`` points into the module's list of
host functions (``lowering.host_callbacks(text)`` hands them to the compiler with the text);
XLA calls back with NumPy arrays. Each callback object has a serial number, written into the
custom call, so two programs differing only in their callback never share an executable.

In a program over a mesh the custom call carries JAX's ``sdy.sharding``: inside a
``shard_map`` body (or ``pmap``) it runs on every device with that device's block (an empty
mesh: nothing to partition); elsewhere once, on the mesh's first device, with whole values
(a maximal sharding: XLA gathers the operands there). ``partitioned=True`` debug callbacks use
``xla_ffi_partitioned_python_cpu_callback``, which XLA's partitioner runs on every device with
its local shard.
"""
from __future__ import annotations

import itertools
import re
from typing import Any, Callable

import numpy as np

from ember.core import trace as core
from ember.core.aval import ShapedArray

__all__ = ["FlatCallback", "StaticArgs", "DebugEffect", "OrderedDebugEffect", "debug_effect",
           "ordered_debug_effect", "pure_callback_p", "io_callback_p", "debug_callback_p",
           "debug_print_p", "result_avals", "format_message"]

_serial = itertools.count()


class DebugEffect:
  """The effect of an unordered debug callback (``debug.print``, ``debug.callback``): the
  ``effect`` param of ``debug_callback``. ember does not track effects on jaxprs.

  Example:
      >>> import ember
      >>> str(ember.debug.DebugEffect())
      'Debug'
  """
  __str__ = lambda self: "Debug"


class OrderedDebugEffect:
  """The effect of an ordered debug callback (``ordered=True``, which ember refuses).

  Example:
      >>> import ember
      >>> str(ember.debug.OrderedDebugEffect())
      'OrderedDebug'
  """
  __str__ = lambda self: "OrderedDebug"


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()


class FlatCallback:
  """The user's function called on flat arguments: the dynamic leaves (arrays) merged with
  the static ones (``static_args``: position -> value) and unflattened by ``in_tree``.
  ``result_tree`` is the pytree its results must have (pure and io callbacks). Compared by
  identity; ``serial`` tells programs with different callbacks apart."""
  __slots__ = ("callback_func", "in_tree", "static_args", "result_tree", "serial",
               "__weakref__")

  def __init__(self, callback_func: Callable, in_tree, static_args: dict | None = None,
               result_tree=None):
    self.callback_func, self.in_tree = callback_func, in_tree
    self.static_args = dict(static_args or {})
    self.result_tree = result_tree
    self.serial = next(_serial)

  def __repr__(self):  # as JAX prints it in a jaxpr, the address masked
    func = re.sub(r" at 0x[0-9a-fA-F]+>", " at 0xXXXXXXXXXXXX>", repr(self.callback_func))
    return f"_FlatCallback(callback_func={func}, in_tree={self.in_tree})"

  def __call__(self, *dyn_args):
    from ember import pytree
    dyn = iter(dyn_args)
    leaves = [self.static_args[i] if i in self.static_args else next(dyn)
              for i in range(len(self.static_args) + len(dyn_args))]
    args, kwargs = pytree.unflatten(self.in_tree, leaves)
    return self.callback_func(*args, **kwargs)


# --- calling the user's function -----------------------------------------------------------

def _host_device():
  from ember.backend import client
  return client.local_devices()[0]


def _as_array(x):
  """A callback argument as an ember array on the first CPU device (as JAX hands them)."""
  from ember.backend.array import ArrayImpl, abstractify, device_put_value, _host_value
  if type(x) is ArrayImpl:
    if len(x._sharding._internal_device_list) == 1:
      return x
    return device_put_value(_host_value(x), x.aval, _host_device())
  if isinstance(x, np.ndarray):
    return device_put_value(x, ShapedArray(x.shape, x.dtype), _host_device())
  return device_put_value(x, abstractify(x), _host_device())


def _checked_results(name, out, tree, avals) -> list:
  """``out`` as NumPy arrays of the declared ``avals`` (a 64-bit result for a 32-bit
  declaration is narrowed, as in JAX)."""
  from ember import dtypes, pytree
  leaves, out_tree = pytree.flatten(out)
  if out_tree != tree:
    raise TypeError(f"callback {name} returned a value of structure {out_tree}, but its "
                    f"result_shape_dtypes say {tree}.")
  results = []
  for x, aval in zip(leaves, avals):
    if not hasattr(x, "__array__"):
      raise TypeError(f"callback {name} returned {x!r} of type {type(x).__name__}: its "
                      "results must be arrays (NumPy's or ember's).")
    x = np.asarray(x)
    if x.shape != aval.shape or dtypes.canonicalize_dtype(x.dtype) != aval.dtype:
      raise TypeError(f"callback {name} returned an array of shape {x.shape} and dtype "
                      f"{x.dtype}, but its result_shape_dtypes say "
                      f"{aval.str_short(short_dtypes=True)}.")
    results.append(x.astype(aval.dtype, copy=False))
  return results


def format_message(fmt: str, np_printoptions, has_placeholders: bool, args, kwargs) -> str:
  """What ``debug.print`` shows: ``fmt.format(...)`` under the NumPy print options it was
  called with, or (no placeholders) ``fmt`` and the arguments joined by spaces."""
  if not has_placeholders:
    return " ".join((fmt, *(str(a) for a in args)))
  with np.printoptions(**dict(np_printoptions)):
    return fmt.format(*args, **kwargs)


def _print_or_log(fmt, np_printoptions, has_placeholders, logging_record, *args, **kwargs):
  msg = format_message(fmt, np_printoptions, has_placeholders, args, kwargs)
  if logging_record is None:
    import sys
    sys.stdout.write(msg + "\n")  # one write: lines from several devices do not interleave
    return
  import copy
  import logging
  record = copy.copy(logging_record)
  record.msg = msg
  logging.getLogger(record.name).handle(record)


def _host_call(prim, params) -> Callable:
  """``params``' function on arrays, returning its results as a list of NumPy arrays."""
  if prim is debug_print_p:
    func = FlatCallback(
        lambda *a, **k: _print_or_log(params["fmt"], params["np_printoptions"],
                                      params["has_placeholders"], params["logging_record"],
                                      *a, **k),
        params["in_tree"], dict(params["static_args"]))
  else:
    func = params["callback"]
  avals = params.get("result_avals", ())

  def call(*args):
    out = func(*[_as_array(a) for a in args])
    if prim in (debug_callback_p, debug_print_p):
      return []
    name = getattr(func.callback_func, "__name__", None) or repr(func.callback_func)
    return _checked_results(name, out, func.result_tree, avals)
  return call


class StaticArgs(tuple):
  """``debug_print``'s static arguments, ((position, value), ...): a tuple (printed and
  compared as one) with a serial number, which tells programs printing different static
  values apart."""

  def __new__(cls, items=()):
    self = super().__new__(cls, items)
    self.serial = next(_serial)
    return self


# --- the primitives -------------------------------------------------------------------------

pure_callback_p = core.Primitive("pure_callback", multiple_results=True)
io_callback_p = core.Primitive("io_callback", multiple_results=True)
debug_callback_p = core.Primitive("debug_callback", multiple_results=True)
debug_print_p = core.Primitive("debug_print", multiple_results=True)
_DEBUG = (debug_callback_p, debug_print_p)
_ALL = (pure_callback_p, io_callback_p) + _DEBUG


def _abstract_eval(*avals, **params):
  return list(params.get("result_avals", ()))


def _impl(prim, *args, **params):
  from ember.backend.array import ArrayImpl, abstractify, to_buffer, _host_value
  from ember.backend.client import default_device
  if prim not in _DEBUG:  # JAX runs these through a compiled call: no weak types
    args = [_host_value(x) if type(x) is ArrayImpl else np.asarray(x, abstractify(x).dtype)
            for x in args]
  results = _host_call(prim, params)(*args)
  return [to_buffer(r, abstractify(r), default_device()) for r in results]


def _spmd_sharding(ctx, avals) -> str | None:
  """The ``sdy.sharding`` of a callback's custom call in a program over a mesh (as JAX's);
  None outside mesh programs. See the module docstring."""
  if ctx.module_context.get("mesh") is None:
    return None
  meshes = ctx.module_context["sdy_meshes"]
  if ctx.module_context.get("manual"):
    meshes.setdefault("empty_mesh", "sdy.mesh @empty_mesh = <[]>")
    entries = [f"<@empty_mesh, [{', '.join(['{}'] * a.ndim)}]>" for a in avals]
    entries = entries or ["<@empty_mesh, []>"]
  else:
    meshes.setdefault("maximal_mesh_0", "sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>")
    entries = ["<@maximal_mesh_0, []>"] * max(1, len(avals))
  return f"#sdy.sharding_per_value<[{', '.join(entries)}]>"


def _serial_of(prim, params) -> int:
  """The number telling this callback's program apart (a fresh one for params built
  elsewhere, which then never share an executable)."""
  holder = params["static_args"] if prim is debug_print_p else params["callback"]
  serial = getattr(holder, "serial", None)
  return next(_serial) if serial is None else serial


def _lower(prim, ctx, *args, **params):
  avals = list(params.get("result_avals", ()))
  callbacks = ctx.module_context["host_callbacks"]
  index = len(callbacks)
  callbacks.append(_host_function(prim, params))
  partitioned = "_partitioned" if params.get("partitioned") else ""
  attrs = {
      "api_version": "4 : i32",
      "backend_config": f"{{index = {index} : ui64}}",
      "call_target_name": f'"xla_ffi{partitioned}_python_{_device_kind(ctx)}_callback"',
      "has_side_effect": "false" if prim is pure_callback_p else "true",
      "mhlo.frontend_attributes": f'{{ember_callback = "{_serial_of(prim, params)}"}}',
  }
  attrs["operand_layouts"] = _layouts(ctx.avals_in)  # (XLA's partitioner needs them)
  attrs["result_layouts"] = _layouts(avals)
  sharding = _spmd_sharding(ctx, avals)
  if sharding is not None:
    attrs["sdy.sharding"] = sharding
  return ctx.op("stablehlo.custom_call", list(args), avals, attrs)


def _device_kind(ctx) -> str:
  """The callback target's device word: XLA's GPU callbacks serve CUDA and ROCm alike."""
  return "gpu" if ctx.platform in ("cuda", "rocm") else "cpu"


def _layouts(avals) -> str:
  """Row-major layouts (minor-to-major dimension lists), as JAX gives its callbacks."""
  def one(a):
    dims = ", ".join(str(d) for d in reversed(range(a.ndim)))
    return f"dense<{f'[{dims}]' if a.ndim > 1 else dims}> : tensor<{a.ndim}xindex>"
  return f"[{', '.join(one(a) for a in avals)}]"


def _host_function(prim, params):
  call = _host_call(prim, params)

  def run(*arrays):
    return tuple(call(*arrays))
  return run


def _jvp(prim, primals, tangents, **params):
  if prim is pure_callback_p:
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")
  if prim is io_callback_p:
    raise ValueError("IO callbacks do not support JVP.")
  return prim.bind(*primals, **params), []


def _batch(prim, axis, vals, dims, **params):
  size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
  method = params.get("vmap_method", "sequential")
  if prim in _DEBUG:
    return _batch_unrolled(prim, size, vals, dims, params)
  if prim is io_callback_p and params["ordered"]:
    raise ValueError("Cannot `vmap` ordered IO callback.")
  if method == "sequential":
    return _batch_scan(prim, vals, dims, params)
  if method in ("expand_dims", "broadcast_all"):
    return _batch_whole(prim, size, vals, dims, params, method)
  raise NotImplementedError(
      "Cannot batch pure_callback without vmap_method: pass vmap_method='sequential', "
      "'expand_dims' or 'broadcast_all' to pure_callback (see its docstring).")


def _batch_unrolled(prim, size, vals, dims, params):
  """A debug callback once per example, in order (JAX unrolls these too)."""
  from ember import lax
  for i in range(size):
    prim.bind(*[v if d is None else lax.index_in_dim(v, i, d, False)
                for v, d in zip(vals, dims)], **params)
  return [], []


def _batch_scan(prim, vals, dims, params):
  """Once per example inside a ``scan`` over the batch (as JAX's ``sequential``)."""
  from ember import lax
  from ember.transforms.batching import moveaxis
  xs = [moveaxis(v, d, 0) for v, d in zip(vals, dims) if d is not None]

  def step(carry, x_rows):
    rows = iter(x_rows)
    return carry, prim.bind(*[v if d is None else next(rows) for v, d in zip(vals, dims)],
                            **params)
  _, outs = lax.scan(step, (), xs)
  return list(outs), [0] * len(outs)


def _batch_whole(prim, size, vals, dims, params, method):
  """One call on the whole batch: unbatched arguments get a unit leading axis
  (``expand_dims``) or are broadcast to the batch (``broadcast_all``)."""
  from ember import lax
  from ember.transforms.batching import moveaxis
  moved = []
  for v, d in zip(vals, dims):
    if d is None:
      v = lax.expand_dims(v, (0,))
      if method == "broadcast_all":
        v = lax.broadcast_in_dim(v, (size,) + tuple(np.shape(v)[1:]), tuple(range(np.ndim(v))))
    else:
      v = moveaxis(v, d, 0)
    moved.append(v)
  batched = tuple(a.update(shape=(size,) + a.shape) for a in params["result_avals"])
  return prim.bind(*moved, **dict(params, result_avals=batched)), [0] * len(batched)


def _bound(rule, prim):
  return lambda *args, **params: rule(prim, *args, **params)


for _prim in _ALL:
  _prim.own_vma = True
  _prim.def_rules(abstract_eval=_abstract_eval, impl=_bound(_impl, _prim),
                  lower=_bound(_lower, _prim), jvp=_bound(_jvp, _prim),
                  batch=_bound(_batch, _prim))
  _prim.def_unsupported("transpose", "a callback is not linear")


def result_avals(result_shape_dtypes: Any) -> tuple[tuple, Any]:
  """The avals (and pytree) a pure_callback or io_callback declares for its results."""
  from ember import dtypes, pytree
  leaves, tree = pytree.flatten(result_shape_dtypes)
  avals = []
  for leaf in leaves:
    if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
      raise TypeError(f"result_shape_dtypes must be a pytree of objects with shape and dtype "
                      f"(e.g. jax.ShapeDtypeStruct), got {leaf!r}.")
    avals.append(ShapedArray(tuple(leaf.shape), dtypes.canonicalize_dtype(leaf.dtype)))
  return tuple(avals), tree
