"""The persistent compilation cache (ember/backend/compilation_cache.py): across processes
(two cold writers at once, then a warm reader), damaged entries, the size bound, what
invalidates a key, the switches (EMBER_CACHE, jax_compilation_cache_dir and the other
options), errors and events.

The suite runs with the cache off (conftest.py); each test here turns it on in a temporary
directory.
"""
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import monitoring
from ember.backend import compilation_cache as cc
from ember.experimental.compilation_cache import compilation_cache as public

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OPTIONS = ("jax_compilation_cache_dir", "jax_enable_compilation_cache",
            "jax_persistent_cache_min_compile_time_secs",
            "jax_persistent_cache_min_entry_size_bytes", "jax_compilation_cache_max_size",
            "jax_raise_persistent_cache_errors")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
  """The cache on, in an empty directory; options and this process's cache state restored."""
  before = {name: ember.config.read(name) for name in _OPTIONS}
  monkeypatch.delenv("EMBER_CACHE", raising=False)
  path = str(tmp_path / "cache")
  ember.config.update("jax_compilation_cache_dir", path)
  ember.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
  cc.reset()
  yield path
  for name, value in before.items():
    ember.config.update(name, value)
  cc.reset()


@pytest.fixture
def events():
  """The compilation cache's events and the compile's duration as they are recorded (the last
  part of their names; durations prefixed ``d:``)."""
  seen = []

  def on_event(name, **kw):
    seen.append(name.rsplit("/", 1)[-1])

  def on_duration(name, d, **kw):
    if "compilation_cache" in name or "backend_compile" in name:
      seen.append("d:" + name.rsplit("/", 1)[-1])

  monitoring.register_event_listener(on_event)
  monitoring.register_event_duration_secs_listener(on_duration)
  yield seen
  monitoring.unregister_event_listener(on_event)
  monitoring.unregister_event_duration_listener(on_duration)


def _entries(path):
  if not os.path.isdir(path):
    return []
  return sorted(n for n in os.listdir(path) if n.endswith(".ember"))


def _valid(path, name) -> bool:
  """Whether entry ``name`` is whole: its header and checksum match the key in its name."""
  with open(os.path.join(path, name), "rb") as f:
    data = f.read()
  return cc.unpack(data, bytes.fromhex(name[:-len(".ember")].rsplit("-", 1)[1])) is not None


_X = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def _run(scale):
  """A fresh compile of one small program (in-memory caches cleared) and its value."""
  ember.clear_caches()
  return np.asarray(ember.jit(lambda a: jnp.tanh(a * scale) @ a.T)(_X))


# --- across processes -----------------------------------------------------------------------

_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import ember, ember.numpy as jnp
    from ember import monitoring
    from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
    from ember.experimental.shard_map import shard_map
    seen = []
    monitoring.register_event_listener(lambda name, **kw: seen.append(name.rsplit("/", 1)[-1]))
    x = jnp.arange(12.0).reshape(4, 3)
    params = {"w": jnp.ones((3, 5)) / 3, "b": jnp.zeros(5)}
    def loss(p, x):
      return jnp.mean(jnp.tanh(x @ p["w"] + p["b"]) ** 2)
    value, grads = ember.jit(ember.value_and_grad(loss))(params, x)
    chol = ember.jit(lambda a: jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(4)))(x)
    mesh = Mesh(np.array(ember.devices()[:4]), ("i",))
    xs = ember.device_put(x, NamedSharding(mesh, P("i")))
    spmd = ember.jit(lambda a: jnp.sin(a).sum(0) + a.sum())(xs)
    psum = ember.jit(shard_map(lambda b: ember.lax.psum(b * 2, "i"), mesh=mesh,
                               in_specs=P("i"), out_specs=P()))(xs)
    out = [np.asarray(v).tolist() for v in (value, grads["w"], grads["b"], chol, spmd, psum)]
    print(json.dumps({"values": out, "events": seen}))
""")


def _process_env(path):
  env = dict(os.environ, PYTHONPATH=ROOT, JAX_COMPILATION_CACHE_DIR=path,
             XLA_FLAGS="--xla_force_host_platform_device_count=4")
  env.pop("EMBER_CACHE", None)
  return env


def _result(proc) -> dict:
  out, err = proc.communicate(timeout=300)
  assert proc.returncode == 0, err[-3000:]
  return json.loads(out.strip().splitlines()[-1])


def _start(path):
  return subprocess.Popen([sys.executable, "-c", _SCRIPT], env=_process_env(path),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_cold_processes_writing_at_once_then_a_warm_one(tmp_path):
  path = str(tmp_path / "cache")
  colds = [_result(p) for p in [_start(path), _start(path)]]  # started together
  assert colds[0]["values"] == colds[1]["values"]
  names = os.listdir(path)
  assert len(names) >= 4 and all(n.endswith(".ember") for n in names)  # no temporary file left
  assert all(_valid(path, n) for n in names)
  for cold in colds:  # the second to look may find the first one's entries
    ev = cold["events"]
    assert ev.count("cache_misses") + ev.count("cache_hits") == \
        ev.count("compile_requests_use_cache")
  warm = _result(_start(path))
  assert warm["events"].count("cache_hits") == warm["events"].count("compile_requests_use_cache")
  assert "cache_misses" not in warm["events"]
  assert warm["values"] == colds[0]["values"]  # single-device, LAPACK and SPMD programs alike
  assert sorted(os.listdir(path)) == sorted(names)


# --- damaged entries ------------------------------------------------------------------------

def _flip_payload(data):
  return data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]


_DAMAGE = {
    "truncated": lambda data: data[:len(data) // 2],
    "header only": lambda data: data[:cc._HEADER.size],
    "empty": lambda data: b"",
    "flipped payload byte": _flip_payload,
    "bad magic": lambda data: b"X" + data[1:],
    "garbage": lambda data: os.urandom(len(data)),
}


@pytest.mark.parametrize("damage", list(_DAMAGE))
def test_a_damaged_entry_is_never_loaded_and_is_rewritten(cache_dir, events, damage):
  expected = _run(1.5)
  (name,) = _entries(cache_dir)
  file = os.path.join(cache_dir, name)
  with open(file, "rb") as f:
    data = f.read()
  with open(file, "wb") as f:
    f.write(_DAMAGE[damage](data))
  events.clear()
  np.testing.assert_array_equal(_run(1.5), expected)
  assert "cache_hits" not in events and "cache_misses" in events
  assert _valid(cache_dir, name)
  events.clear()
  np.testing.assert_array_equal(_run(1.5), expected)
  assert "cache_hits" in events


def test_another_keys_entry_is_not_loaded(cache_dir, events):
  _run(2.5)
  _run(3.5)
  a, b = _entries(cache_dir)
  os.replace(os.path.join(cache_dir, b), os.path.join(cache_dir, a))  # a's name, b's entry
  events.clear()
  _run(2.5)
  assert "cache_hits" not in events and _valid(cache_dir, a)


# --- size bound -----------------------------------------------------------------------------

def test_least_recently_used_entries_go_at_the_size_bound(cache_dir, events):
  _run(1.25)
  (first,) = _entries(cache_dir)
  size = os.path.getsize(os.path.join(cache_dir, first))
  bound = int(3.5 * size)
  ember.config.update("jax_compilation_cache_max_size", bound)
  for scale in (2.25, 3.25):
    _run(scale)
  assert len(_entries(cache_dir)) == 3
  events.clear()
  _run(1.25)  # a hit: the first entry becomes the most recently used
  assert "cache_hits" in events
  for scale in (4.25, 5.25):
    _run(scale)
    total = sum(os.path.getsize(os.path.join(cache_dir, n)) for n in _entries(cache_dir))
    assert total <= bound
  left = _entries(cache_dir)
  assert first in left and len(left) == 3
  events.clear()
  _run(2.25)  # the least recently used entry was evicted
  assert "cache_hits" not in events


def test_an_entry_larger_than_the_bound_is_not_written(cache_dir):
  ember.config.update("jax_compilation_cache_max_size", 100)
  _run(7.25)
  assert _entries(cache_dir) == []


# --- keys -----------------------------------------------------------------------------------

def test_a_different_jaxlib_version_misses(cache_dir, events, monkeypatch):
  _run(8.5)
  with monkeypatch.context() as patch:
    patch.setattr(cc, "JAXLIB_VERSION", "0.0.1-elsewhere")
    events.clear()
    _run(8.5)
    assert "cache_hits" not in events and len(_entries(cache_dir)) == 2
  events.clear()
  _run(8.5)
  assert "cache_hits" in events


def test_keys_tell_programs_devices_options_and_flags_apart(monkeypatch):
  from jaxlib import xla_client as xc
  from ember.backend import client
  def options(device, overrides=()):
    opts = xc.CompileOptions()
    opts.device_assignment = xc.DeviceAssignment.create(np.array([[device.id]], np.int32))
    opts.env_option_overrides = list(overrides)
    return opts

  text, (d0, d1) = "module @jit_f {}", ember.devices()[:2]
  key = cc.cache_key(text, client.device_list((d0,)), options(d0))
  assert cc.cache_key(text, client.device_list((d0,)), options(d0)) == key
  assert cc.cache_key("module @jit_g {}", client.device_list((d0,)), options(d0)) != key
  assert cc.cache_key(text, client.device_list((d1,)), options(d1)) != key
  fast = options(d0, [("xla_cpu_enable_fast_math", True)])
  assert cc.cache_key(text, client.device_list((d0,)), fast) != key
  monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=AVX2")
  assert cc.cache_key(text, client.device_list((d0,)), options(d0)) != key


# --- switches and options -------------------------------------------------------------------

def test_ember_cache_0_turns_it_off(cache_dir, events, monkeypatch):
  monkeypatch.setenv("EMBER_CACHE", "0")
  _run(9.5)
  assert _entries(cache_dir) == [] and not os.path.exists(cache_dir)
  # as JAX records them by default (enabled, no directory)
  assert events == ["tasks_using_cache", "compile_requests_use_cache",
                    "d:backend_compile_duration"]
  assert cc.active_dir() is None


def test_the_directory_set_and_unset(cache_dir, events, tmp_path):
  other = str(tmp_path / "other")
  public.set_cache_dir(other)
  _run(10.5)
  assert len(_entries(other)) == 1 and _entries(cache_dir) == []
  for off in (None, ""):
    public.set_cache_dir(off)
    events.clear()
    _run(11.5)
    # as JAX records them without a directory
    assert events == ["compile_requests_use_cache", "d:backend_compile_duration"]
  assert len(_entries(other)) == 1
  with pytest.raises(ValueError, match="new string config value must be None or of type str"):
    public.set_cache_dir(tmp_path)


def test_the_default_directory(monkeypatch, tmp_path):
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  assert cc.default_dir() == str(tmp_path / "ember" / "compile")
  monkeypatch.delenv("XDG_CACHE_HOME")
  assert cc.default_dir() == os.path.join(os.path.expanduser("~"), ".cache", "ember", "compile")


def test_disabled_by_the_options(cache_dir, events):
  ember.config.update("jax_enable_compilation_cache", False)
  _run(12.5)
  assert events == ["task_disabled_cache", "d:backend_compile_duration"]
  ember.config.update("jax_enable_compilation_cache", True)
  ember.config.update("jax_compilation_cache_max_size", 0)
  _run(13.5)
  assert _entries(cache_dir) == []


def test_thresholds(cache_dir):
  ember.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)
  _run(14.5)
  ember.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
  ember.config.update("jax_persistent_cache_min_entry_size_bytes", 10 ** 9)
  _run(15.5)
  assert _entries(cache_dir) == []
  ember.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
  _run(16.5)
  assert len(_entries(cache_dir)) == 1


def test_host_callback_programs_are_not_cached(cache_dir, events):
  seen = []
  f = ember.jit(lambda x: (ember.debug.callback(seen.append, x), x * 17.5)[1])
  assert np.asarray(f(2.0)) == 35.0 and len(seen) == 1
  assert _entries(cache_dir) == []
  assert events == ["tasks_using_cache", "compile_requests_use_cache",
                    "d:backend_compile_duration"]


def test_errors_fall_back_to_compiling_and_warn_once(cache_dir):
  with open(cache_dir, "w") as f:
    f.write("a file where the directory should be")
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    np.testing.assert_allclose(_run(18.5), _run(18.5))
  messages = [str(w.message) for w in caught]
  assert len(messages) == 1 and "persistent compilation cache failed" in messages[0]
  cc.reset()
  ember.config.update("jax_raise_persistent_cache_errors", True)
  with pytest.raises(OSError):
    _run(19.5)


def test_events_of_a_miss_and_a_hit(cache_dir, events):
  _run(20.5)
  assert events == ["tasks_using_cache", "compile_requests_use_cache", "cache_misses",
                    "d:backend_compile_duration"]
  events.clear()
  _run(20.5)
  assert events == ["compile_requests_use_cache", "cache_hits", "d:compile_time_saved_sec",
                    "d:cache_retrieval_time_sec", "d:backend_compile_duration"]


def test_entries_round_trip():
  digest = bytes(range(32))
  entry = cc.pack(digest, b"payload", 1.5)
  assert cc.unpack(entry, digest) == (b"payload", 1.5)
  assert cc.unpack(entry, bytes(32)) is None
  assert cc.unpack(entry[:-1], digest) is None
  assert cc.unpack(entry + b"x", digest) is None
