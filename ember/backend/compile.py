"""Compiling jaxprs to PJRT executables and running them, with bounded caches.

``Executable.run(buffers)`` is the one place where ember calls XLA: it executes with result
handlers built once per executable, so a call costs about one ``execute_sharded``.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from jaxlib import xla_client as xc

from ember.config import config
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import client as backend_client
from ember.backend import lowering

__all__ = ["Executable", "compile_jaxpr", "LRUCache"]


class LRUCache(dict):
  """A bounded dict: past ``maxsize`` entries, the oldest insertion is evicted (FIFO).

  Lookups are plain dict lookups, so cache hits on hot paths cost nothing extra.
  """

  def __init__(self, maxsize: int = 4096):
    super().__init__()
    self.maxsize = maxsize
    self._lock = threading.Lock()

  def __setitem__(self, key, value):
    with self._lock:
      if key not in self and len(self) >= self.maxsize:
        try:
          del self[next(iter(self))]
        except (StopIteration, KeyError, RuntimeError):
          pass
      super().__setitem__(key, value)


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
    if self.const_bufs:
      bufs = self.const_bufs + bufs
    return self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)


_by_text = LRUCache(512)


def compile_text(text: str, device):
  module = lowering.parse_module(text)
  opts = xc.CompileOptions()
  opts.device_assignment = xc.DeviceAssignment.create(np.array([[device.id]], dtype=np.int32))
  client = backend_client.get_client()
  t0 = time.perf_counter()
  exe = client.compile_and_load(module, backend_client.device_list((device,)), opts)
  if config.jax_log_compiles:
    import logging
    logging.getLogger("ember").warning("Compiled %s in %.1f ms", text.split()[1],
                                       1e3 * (time.perf_counter() - t0))
  return exe


def compile_jaxpr(closed: ClosedJaxpr, device, name: str = "main",
                  committed: bool = False) -> Executable:
  """Lower ``closed`` (consts become leading parameters), compile it for ``device``."""
  from ember.backend.array import to_buffer
  if device is None:
    device = backend_client.default_device()
  text = lowering.module_text(closed, name)
  key = (text, device)
  exe = _by_text.get(key)
  if exe is None:  # the same program (e.g. a re-created jit of one lambda) compiles once
    exe = _by_text[key] = compile_text(text, device)
  sharding = backend_client.replicated_sharding(device)
  handlers = [xc.array_result_handler(a, sharding, committed, _skip_checks=True)
              for a in closed.out_avals]
  const_bufs = [to_buffer(c, v.aval, device) for c, v in zip(closed.consts, closed.jaxpr.constvars)]
  return Executable(exe, handlers, const_bufs, closed.in_avals, closed.out_avals, device, text,
                    committed)
