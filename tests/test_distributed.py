"""ember.distributed and arrays assembled from pieces (ember/distributed.py, backend/assemble.py).

The multi-process tests start two Python processes on localhost that meet through
``ember.distributed.initialize`` and run collectives over gloo; this file is also the worker
script they run (``python tests/test_distributed.py PROCESS_ID PORT``).
"""
import json
import os
import pathlib
import socket
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
from ember import lax
from ember.backend.sharding import SingleDeviceSharding
from ember.sharding import Mesh, NamedSharding
from ember.sharding import PartitionSpec as P

ROOT = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT_S = 60


# --- the worker: one of two processes -----------------------------------------------------------

def _errors_before_initialize() -> list:
  """The messages of bad initialize calls (checked before anything starts)."""
  out = []
  for args in [(None, 2, 0), ("localhost:1", None, 0), ("localhost:1", 2, None),
               ("localhost:1", 2, 2), ("localhost:1", 2, "0")]:
    try:
      ember.distributed.initialize(*args)
    except (ValueError, TypeError) as e:
      out.append(f"{type(e).__name__}: {e}")
  return out


def _global_data(process_count: int, local_shape) -> list:
  """Every process's local block (each process builds the same list)."""
  return [np.arange(np.prod(local_shape), dtype=np.float32).reshape(local_shape) + 100 * p
          for p in range(process_count)]


def _worker(process_id: int, port: int) -> dict:
  report = {"errors": _errors_before_initialize()}
  ember.distributed.initialize(f"localhost:{port}", num_processes=2, process_id=process_id)
  try:
    ember.distributed.initialize(f"localhost:{port}", num_processes=2, process_id=process_id)
  except RuntimeError as e:
    report["twice"] = str(e)
  n = ember.local_device_count()
  report.update(
      process_index=ember.process_index(), process_count=ember.process_count(),
      device_count=ember.device_count(), local_device_count=n,
      owners=[d.process_index for d in ember.devices()],
      local_owners=[d.process_index for d in ember.local_devices()])
  report.update(_psum_across_processes(process_id, n))
  report.update(_arrays_on_a_2d_mesh(process_id, n))
  report.update(_multihost_utils(process_id, n))
  return report


def _multihost_utils(process_id: int, n: int) -> dict:
  """ember.experimental.multihost_utils across the two processes."""
  from ember.experimental import multihost_utils as mu
  mesh = Mesh(np.array(ember.devices()), ("i",))
  local = _global_data(2, (n, 3))[process_id]
  g = mu.host_local_array_to_global_array(local, mesh, P("i"))
  mu.sync_global_devices("multihost")
  try:
    mu.assert_equal(np.float32(process_id), "differs:")
    unequal = None
  except AssertionError as e:
    unequal = str(e).split(" Expected")[0]
  return {"allgather": mu.process_allgather(np.float32(process_id)).tolist(),
          "allgather_tiled": mu.process_allgather(np.full(2, process_id), tiled=True).tolist(),
          "allgather_global": mu.process_allgather(g).tolist(),
          "broadcast": mu.broadcast_one_to_all(np.int32(10 + process_id)).tolist(),
          "broadcast_from_1": mu.broadcast_one_to_all(np.int32(10 + process_id),
                                                      is_source=process_id == 1).tolist(),
          "ltg_shape": list(g.shape), "unequal": unequal}


def _psum_across_processes(process_id: int, n: int) -> dict:
  """Every process contributes its local rows to a psum over all devices."""
  report = {}
  mesh = Mesh(np.array(ember.devices()), ("i",))
  local = _global_data(2, (n, 3))[process_id]
  x = ember.make_array_from_process_local_data(NamedSharding(mesh, P("i")), local)
  psum = ember.jit(ember.shard_map(lambda b: lax.psum(b, "i"), mesh=mesh, in_specs=P("i"),
                                   out_specs=P()))
  y = psum(x)
  report.update(
      x_shape=list(x.shape), x_addressable=x.is_fully_addressable,
      y_addressable=y.is_fully_addressable,
      x_shards=[[s.device.process_index, s.index[0].start] for s in x.addressable_shards],
      x_global_shards=[s.data is None for s in x.global_shards], x_repr=repr(x),
      psum=y.addressable_shards[0].data.tolist(), psum_value=np.asarray(y).tolist())
  report["eager"] = np.asarray(ember.jit(lambda a: a, out_shardings=NamedSharding(mesh, P()))(
      2 * x + 1)).tolist()
  try:
    np.asarray(x)
  except RuntimeError as e:
    report["fetch_error"] = str(e)
  return report


def _arrays_on_a_2d_mesh(process_id: int, n: int) -> dict:
  """Global arrays on a 2-d mesh (processes along "x") from each constructor, gathered by jit."""
  mesh2 = Mesh(np.array(ember.devices()).reshape(2, n), ("x", "y"))
  replicated = NamedSharding(mesh2, P())
  gather = ember.jit(lambda a: a + 0, out_shardings=replicated)
  local2 = _global_data(2, (2 * n, 3))[process_id]
  z = ember.make_array_from_process_local_data(NamedSharding(mesh2, P("y", "x")), local2)
  report = {"z_shape": list(z.shape), "z": np.asarray(gather(z)).tolist()}
  full = np.arange(4 * 4 * n, dtype=np.float32).reshape(4, 4 * n)
  w = ember.make_array_from_callback(full.shape, NamedSharding(mesh2, P("x", "y")),
                                     lambda index: full[index])
  report.update(w_sum=float(ember.jit(lambda a: a.sum())(w)), w=np.asarray(gather(w)).tolist())
  parts = [ember.device_put(np.full((1, 2), 10 * process_id + k, np.float32), d)
           for k, d in enumerate(ember.local_devices())]
  v = ember.make_array_from_single_device_arrays((2, 2 * n), NamedSharding(mesh2, P("x", "y")),
                                                 parts[::-1])
  report["v"] = np.asarray(gather(v)).tolist()
  return report


# --- the tests ------------------------------------------------------------------------------------

def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def _run_two_processes(devices_per_process: int) -> list:
  env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
  env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
  if devices_per_process > 1:
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices_per_process}"
  port = _free_port()
  procs = [subprocess.Popen([sys.executable, __file__, str(p), str(port)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
           for p in range(2)]
  try:
    outs = [p.communicate(timeout=TIMEOUT_S) for p in procs]
  finally:
    for p in procs:
      if p.poll() is None:
        p.kill()
  reports = []
  for p, (out, err) in zip(procs, outs):
    lines = [line for line in out.splitlines() if line.startswith("REPORT ")]
    assert p.returncode == 0 and lines, f"worker failed ({p.returncode}):\n{out}\n{err[-3000:]}"
    reports.append(json.loads(lines[-1][len("REPORT "):]))
  return reports


def _gloo_available() -> bool:
  from jaxlib import _jax
  return hasattr(_jax, "make_gloo_tcp_collectives")


@pytest.fixture(scope="module", params=[1, 2], ids=["1dev", "2dev"])
def reports(request):
  if not _gloo_available():
    pytest.skip("jaxlib has no gloo CPU collectives (make_gloo_tcp_collectives)")
  return request.param, _run_two_processes(request.param)


def test_processes_see_global_and_local_devices(reports):
  n, (r0, r1) = reports
  for pid, r in enumerate((r0, r1)):
    assert (r["process_index"], r["process_count"]) == (pid, 2)
    assert (r["device_count"], r["local_device_count"]) == (2 * n, n)
    assert r["owners"] == [0] * n + [1] * n
    assert r["local_owners"] == [pid] * n


def test_psum_across_processes(reports):
  n, (r0, r1) = reports
  blocks = _global_data(2, (n, 3))
  expected = np.concatenate(blocks).sum(axis=0, keepdims=True)
  for pid, r in enumerate((r0, r1)):
    np.testing.assert_array_equal(r["psum"], expected)
    np.testing.assert_array_equal(r["psum_value"], expected)
    assert r["x_shape"] == [2 * n, 3]
    assert not r["x_addressable"] and not r["y_addressable"]
    assert r["x_shards"] == [[pid, pid * n + k] for k in range(n)]
    assert r["x_global_shards"] == [p != pid for p in [0] * n + [1] * n]
    assert r["x_repr"] == f"Array(shape=({2 * n}, 3), dtype=float32)"
    np.testing.assert_array_equal(r["eager"], 2 * np.concatenate(blocks) + 1)
    assert r["fetch_error"].startswith("Fetching value for `jax.Array` that spans "
                                       "non-addressable (non process local) devices")


def test_multihost_utils_across_processes(reports):
  n, (r0, r1) = reports
  for r in (r0, r1):
    assert r["allgather"] == [0.0, 1.0]
    assert r["allgather_tiled"] == [0, 0, 1, 1]
    assert r["allgather_global"] == np.concatenate(_global_data(2, (n, 3))).tolist()
    assert r["broadcast"] == 10 and r["broadcast_from_1"] == 11
    assert r["ltg_shape"] == [2 * n, 3] and r["unequal"] == "differs:"


def test_global_arrays_from_process_pieces(reports):
  n, (r0, r1) = reports
  local = _global_data(2, (2 * n, 3))
  full = np.arange(4 * 4 * n, dtype=np.float32).reshape(4, 4 * n)
  v = np.repeat(np.array([[0, 1], [10, 11]], np.float32)[:, :n], 2, axis=1)
  for r in (r0, r1):
    assert r["z_shape"] == [2 * n, 6]
    np.testing.assert_array_equal(r["z"], np.concatenate(local, axis=1))
    np.testing.assert_array_equal(r["w"], full)
    assert r["w_sum"] == full.sum()
    np.testing.assert_array_equal(r["v"], v)


def test_initialize_errors_match_jax(reports):
  _, (r0, _) = reports
  assert r0["errors"] == [
      "ValueError: coordinator_address should be defined.",
      "ValueError: Number of processes must be defined.",
      "ValueError: The process id of the current process must be defined.",
      ("ValueError: process_id and num_processes must be nonnegative, with process_id < "
       "num_processes. Got process_id=2, num_processes=2."),
      "TypeError: process_id must be a nonnegative int. Got process_id=0 of type <class 'str'>."]
  assert r0["twice"] == "distributed.initialize should only be called once."


# --- in this (single) process ---------------------------------------------------------------------

def test_single_process_state():
  assert not ember.distributed.is_initialized()
  ember.distributed.shutdown()  # a no-op
  assert (ember.process_index(), ember.process_count()) == (0, 1)
  assert ember.local_devices(process_index=0) == ember.devices()
  assert ember.local_devices(process_index=1) == []
  with pytest.raises(RuntimeError, match="must be called before any JAX calls"):
    ember.distributed.initialize("localhost:1234", 2, 0)
  for kwargs in ({"local_device_ids": [0]}, {"partition_index": 1}, {"slice_index": 1}):
    with pytest.raises(NotImplementedError, match="local_device_ids|partition_index"), \
        warnings.catch_warnings():
      warnings.simplefilter("ignore", DeprecationWarning)
      ember.distributed.initialize("localhost:1234", 2, 0, **kwargs)
  with pytest.raises(ValueError, match="new enum value must be None or in"):
    ember.config.update("jax_cpu_collectives_implementation", "tcp")


def _mesh24():
  return Mesh(np.array(ember.devices()[:8]).reshape(2, 4), ("x", "y"))


def test_make_array_from_callback():
  full = np.arange(48, dtype=np.float32).reshape(4, 12)
  calls = []

  def cb(index):
    calls.append(index)
    return full[index]
  x = ember.make_array_from_callback(full.shape, NamedSharding(_mesh24(), P("x", "y")), cb)
  assert len(calls) == 8 and x.is_fully_addressable
  np.testing.assert_array_equal(np.asarray(x), full)
  np.testing.assert_array_equal(ember.jit(lambda a: a * 2)(x), 2 * full)
  calls.clear()
  r = ember.make_array_from_callback(full.shape, NamedSharding(_mesh24(), P()), cb)
  assert len(calls) == 1 and len(r.addressable_shards) == 8
  d = ember.devices()[3]
  s = ember.make_array_from_callback((2,), SingleDeviceSharding(d), lambda i: np.ones(2))
  assert s.devices() == {d} and s.dtype == np.float32 and s.tolist() == [1.0, 1.0]


def test_make_array_from_callback_errors():
  sh = NamedSharding(_mesh24(), P("x"))
  with pytest.raises(ValueError, match=r"Expected shard shape \(2,\) doesn't match"):
    ember.make_array_from_callback((4,), sh, lambda i: np.zeros(3))
  with pytest.raises(ValueError, match="it must match the dtype of the addressable shards"):
    ember.make_array_from_callback((4,), sh, lambda i: np.zeros(2), dtype=np.int32)
  with pytest.raises(TypeError, match="sharding should be an instance of `jax.sharding`"):
    ember.make_array_from_callback((4,), P("x"), lambda i: np.zeros(2))
  with pytest.raises(ember.errors.UnexpectedTracerError, match="within a traced context"):
    ember.jit(lambda a: ember.make_array_from_callback((4,), sh, lambda i: a))(np.zeros(2))


def test_make_array_from_single_device_arrays():
  mesh = _mesh24()
  sh = NamedSharding(mesh, P("y", "x"))
  full = np.arange(16, dtype=np.int32).reshape(4, 4)
  index = sh.devices_indices_map(full.shape)
  parts = [ember.device_put(full[index[d]], d) for d in mesh.local_devices]
  x = ember.make_array_from_single_device_arrays(full.shape, sh, parts[::-1])
  np.testing.assert_array_equal(np.asarray(x), full)
  assert [s.data.unsafe_buffer_pointer() for s in x.addressable_shards] == \
      [p.unsafe_buffer_pointer() for p in parts]  # no copies, in mesh order
  assert x.sharding == sh and x.committed


def test_make_array_from_single_device_arrays_errors():
  mesh = _mesh24()
  sh = NamedSharding(mesh, P("x", "y"))
  parts = [ember.device_put(np.zeros((1, 1), np.float32), d) for d in mesh.local_devices]
  make = ember.make_array_from_single_device_arrays
  with pytest.raises(ValueError, match="Expected 8 per-device arrays"):
    make((2, 4), sh, parts[:7])
  with pytest.raises(ValueError, match="must be from distinct devices"):
    make((2, 4), sh, parts[:7] + parts[:1])
  with pytest.raises(ValueError, match=r"Expected shard shape \(2, 2\)"):
    make((4, 8), sh, parts)
  with pytest.raises(ValueError, match="must match the dtype"):
    make((2, 4), sh, parts, dtype=np.int32)
  with pytest.raises(TypeError, match="must be a list or tuple"):
    make((2, 4), sh, iter(parts))
  small = NamedSharding(Mesh(np.array(ember.devices()[:2]), ("i",)), P("i"))
  with pytest.raises(ValueError, match=r"Sharding contains devices \{1\}"):
    make((2, 1), small, [parts[0], ember.device_put(np.zeros((1, 1), np.float32),
                                                    ember.devices()[5])])


def test_make_array_from_process_local_data_single_process():
  sh = NamedSharding(_mesh24(), P("x", "y"))
  local = np.arange(32.0).reshape(4, 8)
  x = ember.make_array_from_process_local_data(sh, local)
  assert x.sharding == sh
  np.testing.assert_array_equal(np.asarray(x), local)
  tree = ember.make_array_from_process_local_data(sh, {"a": local, "b": local[:2]})
  assert tree["b"].shape == (2, 8)
  with pytest.raises(ValueError, match="global_shape should be None or equal to local_data"):
    ember.make_array_from_process_local_data(sh, local, (8, 8))


if __name__ == "__main__":
  print("REPORT " + json.dumps(_worker(int(sys.argv[1]), int(sys.argv[2]))), flush=True)
  sys.exit(0)
