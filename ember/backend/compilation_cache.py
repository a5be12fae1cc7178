"""The persistent compilation cache: XLA executables kept on disk and shared between processes.

A program's first compile in a process looks on disk before calling XLA. Tracing and lowering
still run (as in JAX): what a hit saves is the XLA compile, typically 40 ms for one eager
operation and seconds for a training step. Unlike JAX, the cache is on by default.

Where: ``jax_compilation_cache_dir``, by default ``$XDG_CACHE_HOME/ember/compile`` (else
``~/.cache/ember/compile``), created private to the user. It is off when
``jax_enable_compilation_cache`` is False, ``jax_compilation_cache_dir`` is None or empty,
``jax_compilation_cache_max_size`` is 0, or ``EMBER_CACHE=0`` is in the environment (which
gives JAX's default: as if there were no directory). Options are read at each compile, so a
change applies to the next one.

Key (``cache_key``): the sha256 of the StableHLO text, the serialized ``CompileOptions`` (device
assignment, XLA options, the debug options ``XLA_FLAGS`` sets), ``XLA_FLAGS`` itself, jaxlib's
version, ember's version and cache format, the platform and its version, the devices' kinds, the
client's device count and the host CPU's model and features (an executable holds machine code).

Entry: one file ``<module>-<sha256 hex>.ember``: a header (magic, key digest, payload length,
compile seconds, payload sha256), then the serialized executable. It is written to a temporary
file in the same directory and renamed over the entry (``os.replace``), so two processes
writing at once leave one whole entry and readers never see half of one. An entry whose header
or checksum does not match (truncated, corrupt, another key's) is never loaded: it counts as a
miss, and the fresh compile replaces it.

Size: at most ``jax_compilation_cache_max_size`` bytes (ember's default 1 GiB; -1 or None: no
bound). Least recently used entries go first: a hit refreshes its entry's mtime. Each process
measures the directory when what it wrote since its last measure may pass the bound (and at the
latest after 1/64 of the bound), then evicts down to 90 % of it.

Errors: reading, loading or writing failures never reach the user's program: ember compiles as
if there were no cache and warns once per process (``jax_raise_persistent_cache_errors=True``
raises them instead, as in JAX).

Not cached:
- Programs with host callbacks (``debug.print``, ``pure_callback``, ...), as in JAX: their
  executable calls the Python functions it was loaded with, by index. Loading one needs this
  process's functions handed over again in the same order; loading it without them makes the
  first run crash the process (measured: a segmentation fault), with no error to catch. Their
  StableHLO also names each callback's per-process serial number, so keys would rarely match.
- Executables XLA cannot serialize (on CPU, a sort whose comparator XLA runs as a built-in:
  "UNIMPLEMENTED: `LessThan` is not serializable"): they compile in each process.
- Runs over several processes (``ember.distributed``): their executables' collectives belong to
  that run; JAX writes from process 0 only, ember leaves them alone.

Events (``ember.monitoring``), as JAX records them: ``/jax/compilation_cache/tasks_using_cache``
(or ``task_disabled_cache``) once per process, ``compile_requests_use_cache`` on each compile,
``cache_hits`` with durations ``compile_time_saved_sec`` and ``cache_retrieval_time_sec`` on a
hit, ``cache_misses`` when an entry is written.

Trust: as with JAX's cache, loading an executable runs the code it holds: never point the cache
at a directory others can write to.

Example:
    >>> from ember.backend import compilation_cache
    >>> compilation_cache.default_dir().endswith("ember/compile")
    True
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import platform
import struct
import tempfile
import threading
import time
import warnings
from typing import Any, Callable, NamedTuple

from jaxlib import version as _jaxlib_version
from jaxlib import xla_client as xc

from ember import monitoring
from ember.backend import lapack
from ember.config import config, _default_cache_dir
from ember.version import __version__ as _ember_version

__all__ = ["compile_or_load", "cache_key", "active_dir", "default_dir", "disabled_by_env",
           "reset", "JAXLIB_VERSION"]

logger = logging.getLogger("ember")

# Key components that tests replace: a jaxlib upgrade (or an entry format change) must miss.
JAXLIB_VERSION = f"{_jaxlib_version.__version__}/{xc._version}"
FORMAT = "ember-compile-cache/1"

_MAGIC = b"EMBERXC1"
_HEADER = struct.Struct("<8s32sQd32s")  # magic, key digest, payload length, seconds, sha256
_SUFFIX = ".ember"
_TMP_PREFIX = ".tmp-"
_STALE_TMP_SECS = 3600.0  # a temporary file this old was left by a writer that died
_OFF = ("0", "false", "no", "off")
_EVENT = "/jax/compilation_cache/"


def default_dir() -> str:
  """Where the cache lives unless ``jax_compilation_cache_dir`` says otherwise:
  ``$XDG_CACHE_HOME/ember/compile``, else ``~/.cache/ember/compile``.

  Example:
      >>> from ember.backend.compilation_cache import default_dir
      >>> default_dir().endswith("ember/compile")
      True
  """
  return _default_cache_dir()


def disabled_by_env() -> bool:
  """Whether ``EMBER_CACHE`` turns the cache off (``0``, ``false``, ``no`` or ``off``)."""
  return os.environ.get("EMBER_CACHE", "").strip().lower() in _OFF


def _requested() -> bool:
  """``jax_enable_compilation_cache``: JAX's events follow it, whatever the directory."""
  return bool(config.jax_enable_compilation_cache)


def _max_size() -> int | None:
  size = config.jax_compilation_cache_max_size
  return None if size is None or size < 0 else int(size)


def active_dir() -> str | None:
  """The directory the next compile reads and writes, or None when the cache is off."""
  path = config.jax_compilation_cache_dir
  if not _requested() or not path or _max_size() == 0 or disabled_by_env():
    return None
  return path


# --- per-process state ---------------------------------------------------------------------

class _State:
  """What this process remembers about the cache; ``reset`` forgets it."""

  def __init__(self):
    self.lock = threading.Lock()
    self.reported = False  # the once-per-process event
    self.warned = False
    self.sizes: dict[str, list] = {}  # dir -> [measured bytes or None, written since, bound]


_state = _State()


def reset() -> None:
  """Forget this process's state: the once-per-process event and warning, directory sizes."""
  global _state
  _state = _State()


def _failed(what: str, exc: BaseException) -> None:
  """A cache failure: raise it under ``jax_raise_persistent_cache_errors``, else warn once."""
  if config.jax_raise_persistent_cache_errors:
    raise exc
  if not _state.warned:
    _state.warned = True
    warnings.warn(f"ember's persistent compilation cache failed {what} "
                  f"({type(exc).__name__}: {exc}); compiling without it. Set EMBER_CACHE=0 or "
                  "ember.config.update('jax_compilation_cache_dir', None) to turn it off.",
                  stacklevel=4)
  else:
    logger.debug("persistent compilation cache failed %s: %r", what, exc)


# --- the key -------------------------------------------------------------------------------

class Key(NamedTuple):
  """A cache entry's file name and the digest its header repeats."""
  name: str
  digest: bytes


@functools.cache
def _host_cpu() -> str:
  """The host CPU's model and instruction-set features (executables hold its machine code)."""
  parts = [platform.machine(), platform.processor()]
  try:
    with open("/proc/cpuinfo") as f:
      for line in f:
        if line.startswith(("model name", "flags", "Features", "CPU part")):
          parts.append(line.strip())
        elif not line.strip() and len(parts) > 2:
          break  # the first processor's block is enough
  except OSError:
    pass
  return "\n".join(parts)


def _environment(devices) -> list[str]:
  from ember.backend import client as backend_client
  client = devices[0].client if len(devices) else backend_client.get_client()
  return [FORMAT, JAXLIB_VERSION, _ember_version, client.platform, client.platform_version,
          str(len(client.devices())), ",".join(d.device_kind for d in devices),
          " ".join(sorted(os.environ.get("XLA_FLAGS", "").split())), _host_cpu()]


def module_name(text: str) -> str:
  start = text.find("module @")
  name = text[start + 8:].split(None, 1)[0] if start >= 0 else "main"
  return "".join(c if c.isalnum() or c == "_" else "_" for c in name)[:64] or "main"


def cache_key(text: str, devices, options) -> Key:
  """The entry of StableHLO ``text`` compiled for ``devices`` (a ``DeviceList``) with
  ``options`` (``CompileOptions``).

  Example:
      >>> import ember
      >>> from jaxlib import xla_client as xc
      >>> from ember.backend import compilation_cache, client
      >>> devices = client.device_list(ember.devices()[:1])
      >>> key = compilation_cache.cache_key("module @jit_f {}", devices, xc.CompileOptions())
      >>> key.name.startswith("jit_f-"), key.name.endswith(".ember"), len(key.digest)
      (True, True, 32)
  """
  h = hashlib.sha256()
  parts = [text.encode(), options.SerializeAsString()]
  parts += [p.encode() for p in _environment(devices)]
  for part in parts:
    h.update(len(part).to_bytes(8, "little"))
    h.update(part)
  digest = h.digest()
  return Key(f"{module_name(text)}-{digest.hex()}{_SUFFIX}", digest)


# --- entries -------------------------------------------------------------------------------

def pack(digest: bytes, payload: bytes, seconds: float) -> bytes:
  """An entry: the header, then the serialized executable."""
  return _HEADER.pack(_MAGIC, digest, len(payload), seconds,
                      hashlib.sha256(payload).digest()) + payload


def unpack(data: bytes, digest: bytes) -> tuple[bytes, float] | None:
  """The payload and compile seconds of entry ``data`` of key ``digest``; None unless the
  header and the checksum both match."""
  if len(data) < _HEADER.size:
    return None
  magic, key, length, seconds, checksum = _HEADER.unpack_from(data)
  payload = data[_HEADER.size:]
  if magic != _MAGIC or key != digest or length != len(payload):
    return None
  if hashlib.sha256(payload).digest() != checksum:
    return None
  return payload, seconds


def _read(path: str, key: Key, devices, options):
  """The executable of ``key`` from disk and its compile seconds, or None."""
  file = os.path.join(path, key.name)
  try:
    with open(file, "rb") as f:
      data = f.read()
  except FileNotFoundError:
    return None
  except OSError as e:
    _failed(f"reading {file}", e)
    return None
  entry = unpack(data, key.digest)
  if entry is None:
    logger.debug("persistent compilation cache: ignoring the damaged entry %s", file)
    return None
  from ember.backend import client as backend_client
  try:
    exe = devices[0].client.deserialize_executable(entry[0], devices, options)
  except Exception as e:  # noqa: BLE001 - any failure means compiling instead
    _failed(f"loading {file}", e)
    return None
  try:  # most recently used: the fine clock, as the file system's coarse one may not have
    now = time.time_ns()  # moved past the entries written just before
    os.utime(file, ns=(now, now))
  except OSError:
    pass
  return exe, entry[1]


def _store(path: str, name: str, entry: bytes) -> None:
  """Write ``entry`` as ``path/name`` whole: a temporary file renamed over it."""
  os.makedirs(path, mode=0o700, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=path)
  try:
    with os.fdopen(fd, "wb") as f:
      f.write(entry)
    os.replace(tmp, os.path.join(path, name))
  except BaseException:
    try:
      os.unlink(tmp)
    except OSError:
      pass
    raise


def _write(path: str, key: Key, exe, seconds: float, name: str) -> None:
  """Save ``exe`` under ``key`` unless the thresholds say it is not worth it."""
  if seconds < (config.jax_persistent_cache_min_compile_time_secs or 0.0):
    logger.debug("Not writing persistent cache entry for '%s' because it took < %.2f seconds "
                 "to compile (%.2fs)", name, config.jax_persistent_cache_min_compile_time_secs,
                 seconds)
    return
  payload = _serialize(exe, name)
  if payload is None:
    return
  entry = pack(key.digest, payload, seconds)
  min_size, bound = config.jax_persistent_cache_min_entry_size_bytes or 0, _max_size()
  if (min_size > 0 and len(entry) < min_size) or (bound is not None and len(entry) > bound):
    logger.debug("Not writing persistent cache entry for '%s' of %d bytes (bounds: %s to %s)",
                 name, len(entry), min_size, bound)
    return
  logger.debug("Writing %s to persistent compilation cache with key %r", name, key.name)
  monitoring.record_event(_EVENT + "cache_misses")
  _store(path, key.name, entry)
  _account(path, len(entry), bound)


def _serialize(exe, name: str) -> bytes | None:
  """``exe``'s bytes, or None for the executables XLA cannot serialize (a CPU sort with a
  built-in comparator: "`LessThan` is not serializable"): those compile each time."""
  try:
    return exe.serialize()
  except xc.XlaRuntimeError as e:
    if "UNIMPLEMENTED" not in str(e):
      raise
    logger.debug("Not writing persistent cache entry for '%s': %s", name, e)
    return None


# --- size bound ----------------------------------------------------------------------------

def _account(path: str, size: int, bound: int | None) -> None:
  """Count ``size`` bytes written to ``path``; measure and evict when the bound may be passed."""
  if bound is None:
    return
  with _state.lock:
    sizes = _state.sizes.get(path)
    if sizes is None or sizes[2] != bound:
      sizes = _state.sizes[path] = [None, 0, bound]
    sizes[1] += size
    measured, written = sizes[0], sizes[1]
    due = written >= bound // 64 if measured is None else measured + written > bound
    if due:
      sizes[0], sizes[1] = evict(path, bound), 0


def evict(path: str, bound: int) -> int:
  """Delete the least recently used entries of ``path`` while they pass ``bound`` bytes
  (down to 90 % of it, keeping the newest); also temporary files writers left. Returns the
  bytes left."""
  entries, total, now = [], 0, time.time()
  with os.scandir(path) as it:
    for e in it:
      try:
        st = e.stat()
      except OSError:
        continue
      if e.name.startswith(_TMP_PREFIX):
        if now - st.st_mtime > _STALE_TMP_SECS:
          _remove(e.path)
      elif e.name.endswith(_SUFFIX):
        entries.append((st.st_mtime, e.name, st.st_size, e.path))
        total += st.st_size
  if total <= bound:
    return total
  target = bound * 9 // 10
  for _, _, size, file in sorted(entries)[:-1]:
    if total <= target:
      break
    _remove(file)
    total -= size
  return total


def _remove(file: str) -> None:
  try:
    os.remove(file)
  except OSError:
    pass  # another process evicted it first


# --- the entry point -----------------------------------------------------------------------

def _usable(host_callbacks: bool) -> bool:
  if host_callbacks:
    return False
  from ember.backend import client as backend_client
  return backend_client.process_count() == 1


def _report(requested: bool) -> None:
  if not _state.reported:
    _state.reported = True
    monitoring.record_event(_EVENT + ("tasks_using_cache" if requested else "task_disabled_cache"))
  if requested:
    monitoring.record_event(_EVENT + "compile_requests_use_cache")


def compile_or_load(text: str, devices, options, compile_fn: Callable[[], Any], *,
                    host_callbacks: bool = False):
  """The executable of StableHLO ``text`` for ``devices`` (a ``DeviceList``) and ``options``:
  loaded from the cache when it holds it, else ``compile_fn()``, then saved.

  Example:
      >>> import ember
      >>> from jaxlib import xla_client as xc
      >>> from ember.backend import compilation_cache, client, lowering
      >>> text = ("module @jit_f {\\n  func.func public @main(%a: tensor<f32>) -> tensor<f32> "
      ...         "{\\n    func.return %a : tensor<f32>\\n  }\\n}\\n")
      >>> devices, options = client.device_list(ember.devices()[:1]), xc.CompileOptions()
      >>> compile = lambda: client.get_client().compile_and_load(
      ...     lowering.parse_module(text), devices, options)
      >>> exe = compilation_cache.compile_or_load(text, devices, options, compile)
      >>> type(exe).__name__
      'LoadedExecutable'
  """
  lapack.initialize_for(text)  # the kernels a program calls must be ready before it runs
  requested = _requested()
  _report(requested)
  path = active_dir()
  if path is None or not _usable(host_callbacks):
    return compile_fn()
  name = module_name(text)
  try:
    key = cache_key(text, devices, options)
  except Exception as e:  # noqa: BLE001
    _failed("computing a key", e)
    return compile_fn()
  start = time.monotonic()
  found = _read(path, key, devices, options)
  if found is not None:
    _hit(name, key, found[1], time.monotonic() - start)
    return found[0]
  level = logging.WARNING if getattr(config, "jax_explain_cache_misses", False) else logging.DEBUG
  logger.log(level, "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r", name, key.name)
  start = time.monotonic()
  exe = compile_fn()
  try:
    _write(path, key, exe, time.monotonic() - start, name)
  except Exception as e:  # noqa: BLE001
    _failed(f"writing {os.path.join(path, key.name)}", e)
  return exe


def _hit(name: str, key: Key, compile_secs: float, retrieval_secs: float) -> None:
  logger.log(logging.WARNING if config.jax_log_compiles else logging.DEBUG,
             "Persistent compilation cache hit for '%s' with key %r", name, key.name)
  monitoring.record_event(_EVENT + "cache_hits")
  monitoring.record_event_duration_secs(_EVENT + "compile_time_saved_sec",
                                        compile_secs - retrieval_secs)
  monitoring.record_event_duration_secs(_EVENT + "cache_retrieval_time_sec", retrieval_secs)
