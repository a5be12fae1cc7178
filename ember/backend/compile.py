"""Compiling jaxprs to PJRT executables and running them, with bounded caches.

``Executable.run(buffers)`` is the one place where ember calls XLA: it executes with result
handlers built once per executable, so a call costs about one ``execute_sharded``.
"""
from __future__ import annotations

import collections
import time
import warnings

import numpy as np

from jaxlib import xla_client as xc

from ember._src import compiler as _hook  # looked up at each call: libraries may wrap it
from ember import monitoring
from ember.config import config
from ember.core.cache import BoundedCache
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import _jaxlib_compat
from ember.backend import client as backend_client
from ember.backend import lowering
from ember.backend import compilation_cache

__all__ = ["Executable", "compile_jaxpr", "donation_attrs"]


class Executable:
  """A compiled program and what it needs to run: constant buffers and result handlers."""
  __slots__ = ("exe", "handlers", "const_bufs", "in_avals", "out_avals", "device", "text",
               "committed")

  def __init__(self, exe, handlers, const_bufs, in_avals, out_avals, device, text, committed):
    self.exe = exe
    self.handlers = handlers
    self.const_bufs = const_bufs
    self.in_avals = in_avals
    self.out_avals = out_avals
    self.device = device
    self.text = text
    self.committed = committed

  def run(self, bufs: list) -> list:
    if config.jax_no_execution:
      raise RuntimeError(f"JAX tried to execute function {module_name(self.text)}, but the "
                         "no_execution config option is set")
    if self.const_bufs:
      bufs = self.const_bufs + bufs
    return self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)


_by_text = BoundedCache(512)


def module_text(closed: ClosedJaxpr, name: str, arg_attrs: list | None = None,
                platform: str | None = None) -> str:
  """``lowering.module_text`` with ``arg_attrs`` (bodies, as ``donation_attrs`` gives them) on
  the jaxpr's parameters, for ``platform`` (the default backend's when None)."""
  if arg_attrs is not None:
    arg_attrs = [""] * len(closed.consts) + [f"{{{a}}}" if a else "" for a in arg_attrs]
  return lowering.module_text(closed, name, arg_attrs=arg_attrs, platform=platform)


def compile_text(text: str, device, compiler_options: tuple = (), name: str | None = None):
  """Compile StableHLO ``text`` for ``device``, or load it from the persistent compilation
  cache (``compilation_cache``); ``compiler_options`` are (name, value) pairs of XLA options
  (``jit(compiler_options=...)``), whose errors XLA reports."""
  opts = xc.CompileOptions()
  opts.device_assignment = xc.DeviceAssignment.create(np.array([[device.id]], dtype=np.int32))
  if compiler_options:
    opts.env_option_overrides = list(compiler_options)
  client = device.client
  devices = backend_client.device_list((device,))
  callbacks = lowering.host_callbacks(text)

  def compile_now():
    return _hook.backend_compile_and_load(client, lowering.parse_module(text), devices, opts,
                                          callbacks)

  t0 = time.perf_counter()
  with monitoring.timed("/jax/core/compile/backend_compile_duration",
                        fun_name=lowering.monitored_name(name or module_name(text))):
    exe = compilation_cache.compile_or_load(text, devices, opts, compile_now,
                                            host_callbacks=bool(callbacks))
  if config.jax_log_compiles:
    log_compile(name or module_name(text), time.perf_counter() - t0)
  return exe


def log_compile(name: str, seconds: float, devices: int = 1) -> None:
  """Log a compile of module ``name`` (``jit_f``) as JAX's ``jax_log_compiles`` does (to the
  ``ember`` logger, at WARNING)."""
  import logging
  where = f" for {devices} devices" if devices > 1 else ""
  logging.getLogger("ember").warning("Finished XLA compilation of %s%s in %.9f sec",
                                     lowering.monitored_name(name), where, seconds)


def module_name(text: str) -> str:
  """The name of a StableHLO module (``module @jit_f ...``)."""
  start = text.find("module @")
  return text[start + 8:].split(None, 1)[0] if start >= 0 else "main"


def compile_jaxpr(closed: ClosedJaxpr, device, name: str = "main", committed: bool = False,
                  arg_attrs: list | None = None, compiler_options: tuple = ()) -> Executable:
  """Lower ``closed`` (consts become leading parameters), compile it for ``device``.

  ``arg_attrs`` are the attributes of the jaxpr's parameters (``donation_attrs``'s, without
  braces; consts excluded); ``compiler_options`` are XLA options as (name, value) pairs.
  """
  from ember.backend.array import check_memory, to_buffer
  check_memory(closed.out_avals, f"output of {name}")  # intermediates are XLA's to fuse
  if device is None:
    device = backend_client.default_device()
  text = module_text(closed, name, arg_attrs, backend_client.platform_of(device))
  key = (text, device, compiler_options)
  exe = _by_text.get(key)
  if exe is None:  # the same program (e.g. a re-created jit of one lambda) compiles once
    exe = _by_text[key] = compile_text(text, device, compiler_options, name)
  sharding = backend_client.replicated_sharding(device)
  handlers = [_jaxlib_compat.result_handler(a, sharding, committed)
              for a in closed.out_avals]
  const_bufs = [to_buffer(c, v.aval, device) for c, v in zip(closed.consts, closed.jaxpr.constvars)]
  return Executable(exe, handlers, const_bufs, closed.in_avals, closed.out_avals, device, text,
                    committed)


# --- buffer donation ----------------------------------------------------------------------------

_DONATION_FAQ = "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation."


def used_invars(jaxpr) -> list[bool]:
  """Whether each of ``jaxpr``'s parameters reaches an output (or an effectful equation)."""
  live = {id(v) for v in jaxpr.outvars}
  for eqn in reversed(jaxpr.eqns):
    if jaxpr.effects or any(id(v) in live for v in eqn.outvars):
      live.update(id(v) for v in eqn.invars)
  return [id(v) in live for v in jaxpr.invars]


def donation_attrs(jaxpr, donated, keep_unused: bool = False, num_partitions: int = 1
                   ) -> list[str] | None:
  """Attributes of ``jaxpr``'s parameters (MLIR text without braces, "" for none) that let
  XLA reuse the donated ones' buffers for outputs.

  As JAX picks them: each output, in order, takes the first unclaimed donated input of its
  shape and dtype (``tf.aliasing_output``); a donated input left over may still serve an
  unclaimed output with as many elements (``jax.buffer_donor``). Inputs the program never reads
  are not donated unless ``keep_unused`` (JAX prunes them). The rest cannot be reused: a
  ``UserWarning`` lists them, and they stay alive. Over several devices every donated input is
  a ``jax.buffer_donor``. None when nothing is donated.

  Example:
      >>> from ember import make_jaxpr
      >>> closed = make_jaxpr(lambda x, y: (x * 2, y.sum()))(1.0, 2.0)
      >>> donation_attrs(closed.jaxpr, (True, False))
      ['tf.aliasing_output = 0 : i32', '']
  """
  if donated is None:
    return None
  in_avals = [v.aval for v in jaxpr.invars]
  if not keep_unused:
    donated = [d and u for d, u in zip(donated, used_invars(jaxpr), strict=True)]
  if not any(donated):
    return None
  if num_partitions > 1:
    return ["jax.buffer_donor = true" if d else "" for d in donated]
  attrs, left = [""] * len(in_avals), list(donated)
  free = collections.defaultdict(collections.deque)
  for i, (a, d) in enumerate(zip(in_avals, donated)):
    if d:
      free[(a.shape, a.dtype)].append(i)
  unclaimed = collections.defaultdict(collections.deque)
  for k, v in enumerate(jaxpr.outvars):
    queue = free.get((v.aval.shape, v.aval.dtype))
    if queue:
      i = queue.popleft()
      left[i], attrs[i] = False, f"tf.aliasing_output = {k} : i32"
    else:
      unclaimed[v.aval.size].append(k)
  for i, a in enumerate(in_avals):
    if left[i] and unclaimed.get(a.size):
      unclaimed[a.size].popleft()
      left[i], attrs[i] = False, "jax.buffer_donor = true"
  unusable = [("~" if a.weak_type else "") + a.str_short(False)
              for a, l in zip(in_avals, left) if l]
  if unusable:
    warnings.warn(f"Some donated buffers were not usable: {', '.join(unusable)}.\n{_DONATION_FAQ}")
  return attrs
