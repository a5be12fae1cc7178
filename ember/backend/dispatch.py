"""Eager execution: each primitive application runs a one-primitive executable.

The executable is compiled once per (primitive, input avals, params, device) and cached, so an
eager op costs a cache lookup and one ``execute_sharded``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from jaxlib._jax import JaxRuntimeError

from ember import dtypes
from ember.config import config
from ember.core import trace as core
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ember.backend import client as backend_client
from ember.backend import spmd
from ember.backend.array import ArrayImpl, _host_value, abstractify, committed_device, to_buffer
from ember.backend.compile import compile_jaxpr
from ember.core.cache import BoundedCache

__all__ = ["apply_primitive", "executable_cache", "special_value", "check_special",
           "on_debug_checks"]

executable_cache = BoundedCache(2048)
# (primitive, input avals, params) -> executable on the default device, for uncommitted arrays.
_uncommitted = BoundedCache(2048)


def _default_device():
  global _DEFAULT, DEFAULT_SHARDING
  _DEFAULT = backend_client.default_device()
  DEFAULT_SHARDING = backend_client.replicated_sharding(_DEFAULT)
  return _DEFAULT


_DEFAULT = None
# The sharding of uncommitted arrays on the default device: the fast paths serve arrays with it
# (an uncommitted array made under another ``jax_default_device`` is moved first).
DEFAULT_SHARDING = None


def default_sharding():
  """``DEFAULT_SHARDING``, computed if need be."""
  if DEFAULT_SHARDING is None:
    _default_device()
  return DEFAULT_SHARDING


def _default_device_changed(name, old, new) -> None:
  global _DEFAULT, DEFAULT_SHARDING
  _DEFAULT = DEFAULT_SHARDING = None  # read again on next use, as are the fast path's programs
  _fast_cache.clear()


config.watch("jax_default_device", _default_device_changed)


def apply_primitive(prim, *args, **params):
  """Run ``prim`` on concrete arguments (the ``impl`` rule of most primitives)."""
  # Fast path: uncommitted device arrays on the default device, executable already compiled.
  try:
    if not any([x._committed or x._sharding is not DEFAULT_SHARDING for x in args]):
      key = (prim, tuple([x.aval for x in args]), tuple(params.items()) if params else ())
      exe = _uncommitted.get(key)
      if exe is not None and not config.jax_no_execution:  # under it, Executable.run refuses
        outs = exe.exe.execute_sharded(list(args)).consume_with_handlers(exe.handlers)
        return outs if prim.multiple_results else outs[0]
  except (AttributeError, TypeError):
    pass
  except JaxRuntimeError:
    _raise_if_deleted(prim, args)
    raise
  try:
    return _apply_general(prim, args, params)
  except JaxRuntimeError:
    _raise_if_deleted(prim, args)
    raise


def _raise_if_deleted(prim, args) -> None:
  for i, x in enumerate(args):
    if type(x) is ArrayImpl and x.is_deleted():
      raise RuntimeError(f"Array has been deleted with shape={x.aval.str_short(False)} (operand "
                         f"{i} of {prim.name}); it was donated or deleted. Use a live array.")


def _apply_general(prim, args, params):
  avals = tuple([x.aval if type(x) is ArrayImpl else abstractify(x) for x in args])
  mesh = spmd.mesh_of_args(args, what=f"primitive {prim.name}")
  if mesh is not None:  # some operand lives on a mesh: run the op as one SPMD program over it
    closed = _one_primitive_jaxpr(prim, avals, params)
    outs = spmd.run_spmd(closed, args, mesh, spmd.arg_shardings(args, mesh, prim.name),
                         [None] * len(closed.out_avals), prim.name)
    return outs if prim.multiple_results else outs[0]
  device = committed_device(args, f"primitive {prim.name}")
  committed = device is not None
  if device is None:
    device = _DEFAULT or _default_device()
  key = (prim, avals, tuple(params.items()), device, committed)
  try:
    exe = executable_cache.get(key)
  except TypeError:
    key, exe = None, None
  if exe is None:
    exe = _compile_primitive(prim, avals, params, device, committed)
    if key is not None:
      executable_cache[key] = exe
  if committed:
    bufs = [to_buffer(x, a, device) for x, a in zip(args, avals)]
  else:
    bufs = [x if type(x) is ArrayImpl and x._sharding is DEFAULT_SHARDING else
            to_buffer(x, a, device) for x, a in zip(args, avals)]
    if key is not None and device is _DEFAULT and all(type(x) is ArrayImpl for x in args):
      _uncommitted[(prim, avals, tuple(params.items()) if params else ())] = exe
  outs = exe.run(bufs)
  return outs if prim.multiple_results else outs[0]


core.set_default_impl(apply_primitive)


_one_eqn = BoundedCache(2048)


def _one_primitive_jaxpr(prim, avals, params) -> ClosedJaxpr:
  """The program of one application of ``prim`` (cached, so executables keyed on it are too)."""
  key = (prim, avals, tuple(params.items()))
  try:
    closed = _one_eqn.get(key)
  except TypeError:  # unhashable params: build the program without caching it
    key, closed = None, None
  if closed is None:
    out = prim.abstract(avals, params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [Var(a) for a in avals]
    outvars = [Var(a) for a in out_avals]
    jaxpr = Jaxpr([], invars, outvars, [JaxprEqn(prim, invars, outvars, params)])
    closed = ClosedJaxpr(jaxpr, [])
    if key is not None:
      _one_eqn[key] = closed
  return closed


def _compile_primitive(prim, avals, params, device, committed):
  from ember import monitoring
  with monitoring.timed("/jax/core/compile/jaxpr_trace_duration", fun_name=prim.name):
    closed = _one_primitive_jaxpr(prim, avals, params)
  return compile_jaxpr(closed, device, prim.name, committed)


# --- jax_debug_nans / jax_debug_infs -------------------------------------------------------------
# While either flag is on, every eager primitive's outputs are checked (a FloatingPointError names
# the primitive, as in JAX) and jitted calls check theirs, then run again op by op to find the
# primitive. Turning a flag on swaps in checking versions of the eager paths; while both are off
# those paths are the unchecked ones, so checks cost nothing.

_inexact: dict = {}


def special_value(outs) -> str | None:
  """``"nan"`` or ``"inf"`` when an array among ``outs`` holds a value the on flags look for."""
  for x in outs:
    if type(x) is not ArrayImpl:
      continue
    dt = x.aval.dtype
    inexact = _inexact.get(dt)
    if inexact is None:
      inexact = _inexact[dt] = dtypes.issubdtype(dt, np.inexact)
    if inexact:
      v = _host_value(x)
      if config.jax_debug_nans and np.isnan(v).any():
        return "nan"
      if config.jax_debug_infs and np.isinf(v).any():
        return "inf"
  return None


def check_special(name: str, outs) -> None:
  """Raise JAX's ``FloatingPointError`` when ``outs`` (of ``name``) hold a nan/inf looked for."""
  kind = special_value(outs)
  if kind is not None:
    raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")


class _NeverCached(dict):
  """Stands in for the uncommitted fast path's cache while checks are on: it never hits."""

  def get(self, key, default=None):
    return default

  def __setitem__(self, key, value):
    pass


_apply_unchecked = _apply_general
_process_unchecked = core.EvalTrace.process_primitive
_fast_cache = _uncommitted


def _apply_checked(prim, args, params):
  outs = _apply_unchecked(prim, args, params)
  check_special(prim.name, outs if prim.multiple_results else [outs])
  return outs


def _process_checked(self, prim, args, params):
  """EvalTrace's rule while checks are on: primitives with their own ``impl`` are checked here
  (the others in ``apply_primitive``), except those that check themselves (``jit``)."""
  outs = _process_unchecked(self, prim, args, params)
  if prim.impl is not None and not prim.checks_own_outputs:
    check_special(prim.name, outs if prim.multiple_results else [outs])
  return outs


_toggles: list = []


def on_debug_checks(toggle: Callable[[bool], None]) -> None:
  """Call ``toggle(on)`` now and whenever the checks turn on or off (jit swaps its paths)."""
  _toggles.append(toggle)
  toggle(_checks_on[0])


def _set_checks(on: bool) -> None:
  global _apply_general, _uncommitted
  if on == _checks_on[0]:
    return
  _checks_on[0] = on
  _apply_general = _apply_checked if on else _apply_unchecked
  _uncommitted = _NeverCached() if on else _fast_cache
  core.EvalTrace.process_primitive = _process_checked if on else _process_unchecked
  for toggle in _toggles:
    toggle(on)


def _on_flag(name, old, new) -> None:
  other = config.jax_debug_infs if name == "jax_debug_nans" else config.jax_debug_nans
  _set_checks(bool(new) or bool(other))


_checks_on = [False]
config.watch("jax_debug_nans", _on_flag)
config.watch("jax_debug_infs", _on_flag)
_set_checks(bool(config.jax_debug_nans or config.jax_debug_infs))
