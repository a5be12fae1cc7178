"""Backends beyond the CPU, checked without a GPU: plugin discovery on fake plugin folders,
platform selection and its errors, the GPU clients' options, the StableHLO every linear algebra
primitive lowers to for CUDA and ROCm, jaxlib-version shims, host reads that avoid the jaxlib code
which imports the jax package, and ember beside a real ``jax`` package in one process.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.backend import client, host_reads, lowering, plugins, _jaxlib_compat
from ember.lax import linalg as L
from ember.sharding import NamedSharding, PartitionSpec as P

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- discovering plugins ------------------------------------------------------------------------

def _fake_plugin(root, module, library=None, version=None, init="raise RuntimeError('imported')"):
  """A plugin module folder ``root/jax_plugins/<module>`` whose __init__ fails if imported."""
  folder = root / "jax_plugins" / module
  folder.mkdir(parents=True)
  (folder / "__init__.py").write_text(init + "\n")
  if library:
    (folder / library).write_bytes(b"")
  if version:
    (folder / "version.py").write_text(f"_release_version: str = '{version}'\n")
  return folder


def test_discover_finds_jax_plugins_modules_without_importing_them(tmp_path):
  _fake_plugin(tmp_path, "xla_cuda13", "xla_cuda_plugin.so", "0.10.2")
  _fake_plugin(tmp_path, "xyz", "xla_xyz_plugin.so")
  _fake_plugin(tmp_path, "nolib")
  found = {p.platform: p for p in plugins.discover(path=[str(tmp_path)], environ={})}
  assert sorted(found) == ["cuda", "nolib", "xyz"]
  cuda = found["cuda"]
  assert cuda.module == "jax_plugins.xla_cuda13" and cuda.version == "0.10.2"
  assert cuda.library == str(tmp_path / "jax_plugins" / "xla_cuda13" / "xla_cuda_plugin.so")
  assert found["xyz"].library.endswith("xla_xyz_plugin.so") and found["xyz"].version is None
  assert found["nolib"].library is None
  assert "jax_plugins.xla_cuda13" not in sys.modules and "jax_plugins.xyz" not in sys.modules


def test_discover_follows_jax_plugins_entry_points(tmp_path):
  dist = tmp_path / "my_plugin-1.0.dist-info"
  dist.mkdir()
  (dist / "entry_points.txt").write_text(
      "[console_scripts]\nx = y:z\n\n[jax_plugins]\nmine = my_jax_plugin\n")
  module = tmp_path / "my_jax_plugin"
  module.mkdir()
  (module / "__init__.py").write_text("raise RuntimeError('imported')\n")
  (module / "xla_mine_plugin.so").write_bytes(b"")
  found = plugins.discover(path=[str(tmp_path)], environ={})
  assert [(p.platform, p.module) for p in found] == [("mine", "my_jax_plugin")]
  assert "my_jax_plugin" not in sys.modules


def test_discover_reads_a_namespace_package_spread_over_folders(tmp_path):
  _fake_plugin(tmp_path / "a", "xla_cuda12", "xla_cuda_plugin.so")
  _fake_plugin(tmp_path / "b", "xla_rocm7", "xla_rocm_plugin.so")
  found = plugins.discover(path=[str(tmp_path / "a"), str(tmp_path / "b")], environ={})
  assert [(p.platform, p.module) for p in found] == [
      ("cuda", "jax_plugins.xla_cuda12"), ("rocm", "jax_plugins.xla_rocm7")]


def test_pjrt_names_and_library_paths(tmp_path):
  env = {"PJRT_NAMES_AND_LIBRARY_PATHS": f"foo{os.pathsep}/opt/libfoo.so,bar{os.pathsep}/b.so"}
  found = plugins.discover(path=[str(tmp_path)], environ=env)
  assert [(p.platform, p.module, p.library) for p in found] == [
      ("foo", "env", "/opt/libfoo.so"), ("bar", "env", "/b.so")]
  with pytest.raises(ValueError, match="is not NAME"):
    plugins.discover(path=[], environ={"PJRT_NAMES_AND_LIBRARY_PATHS": "justaname"})
  with pytest.raises(NotImplementedError, match="JSON"):
    plugins.discover(path=[], environ={"PJRT_NAMES_AND_LIBRARY_PATHS":
                                       f"x{os.pathsep}/c.json"})


def test_kernel_package_is_found_newest_first(tmp_path):
  for name in ("jax_cuda12_plugin", "jax_cuda13_plugin"):
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
  (tmp_path / "jax_cuda12_plugin" / "version.py").write_text("__version__ = '0.9.1'\n")
  assert plugins.kernel_package("cuda", path=[str(tmp_path)]) == "jax_cuda13_plugin"
  assert plugins.kernel_package("rocm", path=[str(tmp_path)]) is None
  assert plugins.kernel_package_version("jax_cuda12_plugin", path=[str(tmp_path)]) == "0.9.1"


# --- choosing backends, and the errors ---------------------------------------------------------

def _plugin(platform="cuda", version=None, library="/nonexistent/xla_cuda_plugin.so"):
  return plugins.Plugin(platform, f"jax_plugins.xla_{platform}13", library, version,
                        f"jax-{platform}13-pjrt")


def test_plan_orders_backends_by_priority_or_by_request():
  found = [_plugin()]
  assert client.plan(None, found) == [("cpu", 0, False), ("cuda", 500, False)]
  assert client.plan("cuda,cpu", found) == [("cuda", 2, True), ("cpu", 1, True)]
  assert client.plan("gpu", []) == [("cuda", 2, False), ("rocm", 1, False)]
  assert client.plan("cpu, cpu", []) == [("cpu", 1, True)]


def test_a_plugin_of_another_jaxlib_version_is_refused_naming_both():
  with pytest.raises(RuntimeError) as e:
    client._start_plugin(_plugin(version="0.9.0"), explicit=True)
  msg = str(e.value)
  assert "jax-cuda13-pjrt 0.9.0" in msg and f"jaxlib {_jaxlib_compat.jaxlib_version}" in msg
  assert ".[cuda13]" in msg


def test_cuda_requested_where_no_gpu_is_visible(monkeypatch):
  monkeypatch.setattr(client, "_has_nvidia_gpu", lambda: False)
  assert client._start_plugin(_plugin(), explicit=False) is None  # skipped, as JAX skips it
  with pytest.raises(RuntimeError, match="no NVIDIA GPU is visible on this machine"):
    client._start_plugin(_plugin(), explicit=True)
  with pytest.raises(RuntimeError, match="has no PJRT library"):
    client._start_plugin(_plugin(library=None), explicit=True)


def test_missing_backends_name_what_to_install():
  with pytest.raises(RuntimeError, match=r"Unknown backend: 'gpu' requested.*\.\[cuda13\]"):
    ember.devices("gpu")
  with pytest.raises(RuntimeError, match=r"Unknown backend cuda\. Available backends are "
                                         r"\['cpu'\] \(no CUDA backend started.*cuda13"):
    ember.devices("cuda")
  with pytest.raises(RuntimeError, match=r"Unknown backend foo\. Available backends are"):
    ember.local_devices(backend="foo")
  assert str(client._not_installed("cuda", [])).startswith("no CUDA plugin is installed")
  assert "not in the list of known backends: ['cpu', 'gpu', 'cuda', 'rocm']" in str(
      client._not_installed("foo", []))


def test_platform_options_after_start_only_name_started_backends():
  ember.devices()
  with pytest.raises(RuntimeError, match=r"Unable to initialize backend 'cuda': no CUDA plugin "
                                         r"is installed\. Install it: pip install -e '\.\[cuda13\]'"):
    ember.config.update("jax_platforms", "cuda")
  with pytest.raises(RuntimeError, match="Unable to initialize backend 'gpu'"):
    ember.config.update("jax_platform_name", "gpu")
  with pytest.raises(ValueError, match="must be None or of type str"):
    ember.config.update("jax_platforms", 3)
  assert ember.default_backend() == "cpu" and client.platform_of(ember.devices()[0]) == "cpu"


def _run(code: str, env_extra: dict, timeout: int = 120, script: str | None = None):
  """Python ``code`` (or the file ``script``) in a fresh process, with ember on its path."""
  env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_PLATFORM", "PJRT_"))}
  env.update(env_extra)
  env["PYTHONPATH"] = os.pathsep.join(filter(None, [env_extra.get("PYTHONPATH"), ROOT]))
  args = [script] if script is not None else ["-c", textwrap.dedent(code)]
  return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                        timeout=timeout, cwd=ROOT)


def test_jax_platforms_selection_in_a_fresh_process(tmp_path):
  """JAX_PLATFORMS naming CUDA with no plugin, an unknown name, and a fake plugin whose library
  is not a PJRT plugin: each a clear error at first use; with JAX_PLATFORMS=cpu the fake plugin
  is never loaded."""
  _fake_plugin(tmp_path, "xla_xyz", "xla_xyz_plugin.so")
  code = """
    import ember
    for value in ("cuda", "foo", "xyz", "cpu"):
      ember.backend.client._backends.clear()
      ember.config.update("jax_platforms", None)
      ember.config.update("jax_platforms", value)
      try:
        print(value, "->", ember.devices())
      except RuntimeError as e:
        print(value, "->", e)
  """
  out = _run(code, {"PYTHONPATH": str(tmp_path), "EMBER_CACHE": "0",
                    "XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
  assert out.returncode == 0, out.stderr
  lines = dict(line.split(" -> ", 1) for line in out.stdout.splitlines())
  assert lines["cuda"].startswith("Unable to initialize backend 'cuda': no CUDA plugin is "
                                  "installed. Install it: pip install -e '.[cuda13]'")
  assert "(set JAX_PLATFORMS='' to automatically choose" in lines["cuda"]
  assert lines["foo"].startswith("Unable to initialize backend 'foo': Backend 'foo' is not in "
                                 "the list of known backends: ['cpu', 'gpu', 'cuda', 'rocm', "
                                 "'xyz']")
  assert lines["xyz"].startswith("Unable to initialize backend 'xyz': ")
  assert lines["cpu"] == "[CpuDevice(id=0), CpuDevice(id=1)]"


# --- GPU client options ------------------------------------------------------------------------

def test_gpu_client_options_follow_jax_environment_variables():
  opts = plugins.gpu_client_options("cuda", {
      "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_CLIENT_MEM_FRACTION": "0.25",
      "XLA_PYTHON_CLIENT_ALLOCATOR": "platform",
      "XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB": "3"})
  assert opts == {"platform_name": "cuda", "allocator": "platform", "memory_fraction": 0.25,
                  "preallocate": False, "collective_memory_size": 3 << 20,
                  "abort_collectives_on_failure": False, "use_tfrt_gpu_client": False}
  assert plugins.gpu_client_options("cuda", {"XLA_PYTHON_CLIENT_PREALLOCATE": "1"})[
      "preallocate"] is True
  assert plugins.gpu_client_options("rocm", {})["platform_name"] == "ROCM"
  with pytest.raises(ValueError, match="XLA_PYTHON_CLIENT_ALLOCATOR must be one of"):
    plugins.gpu_client_options("cuda", {"XLA_PYTHON_CLIENT_ALLOCATOR": "fast"})
  with pytest.raises(ValueError, match="Both XLA_CLIENT_MEM_FRACTION and"):
    plugins.gpu_client_options("cuda", {"XLA_CLIENT_MEM_FRACTION": ".5",
                                        "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5"})
  with pytest.raises(ValueError, match="XLA_CLIENT_MEM_FRACTION must be a number"):
    plugins.gpu_client_options("cuda", {"XLA_CLIENT_MEM_FRACTION": "half"})


# --- lowering for CUDA and ROCm ----------------------------------------------------------------

_A = np.eye(3, dtype=np.float32) * 2
_B = np.ones((3, 2), np.float32)
_V = np.ones(3, np.float32)
_TALL = np.ones((4, 3), np.float32)
_WIDE = np.ones((3, 40), np.float32)

# (function, arguments, the kernels the module must call, in order)
LINALG_CASES = {
    "cholesky": (L.cholesky, (_A,), ["{p}solver_potrf_ffi"]),
    "lu": (L.lu, (_A,), ["{p}solver_getrf_ffi", "{p}_lu_pivots_to_permutation"]),
    "lu_pivots_to_permutation": (lambda p: L.lu_pivots_to_permutation(p, 4),
                                 (np.array([1, 2, 2], np.int32),),
                                 ["{p}_lu_pivots_to_permutation"]),
    "qr": (lambda a: L.qr(a, full_matrices=False), (_A,),
           ["{p}solver_geqrf_ffi", "{p}solver_orgqr_ffi"]),
    "qr_full": (lambda a: L.qr(a, full_matrices=True), (_TALL,),
                ["{p}solver_geqrf_ffi", "{p}solver_orgqr_ffi"]),
    "qr_pivoting": (lambda a: L.qr(a, pivoting=True), (_A,),
                    ["{p}hybrid_geqp3", "{p}solver_orgqr_ffi"]),
    "householder_product": (L.householder_product, (_A, _V), ["{p}solver_orgqr_ffi"]),
    "ormqr": (lambda a, t, c: L.ormqr(a, t, c, left=True, transpose=False), (_A, _V, _B),
              ["{p}solver_ormqr_ffi"]),
    "eigh": (L.eigh, (_A,), ["{p}solver_syevd_ffi"]),
    "svd": (L.svd, (_A,), ["{p}solver_gesvdj_ffi"]),
    "svd_values": (lambda a: L.svd(a, compute_uv=False), (_A,), ["{p}solver_gesvdj_ffi"]),
    "svd_qr_wide": (lambda a: L.svd(a, algorithm=L.SvdAlgorithm.QR), (_WIDE,),
                    ["{p}solver_gesvd_ffi"]),
    "svd_polar": (lambda a: L.svd(a, algorithm=L.SvdAlgorithm.POLAR), (_A,),
                  ["{p}solver_gesvdp_ffi"]),
    "triangular_solve": (lambda a, b: L.triangular_solve(a, b, left_side=True, lower=True),
                         (_A, _B), []),
    "tridiagonal": (L.tridiagonal, (_A,), ["{p}solver_sytrd_ffi"]),
    "tridiagonal_solve": (L.tridiagonal_solve, (_V, _V, _V, _B), ["{p}sparse_gtsv2_ffi"]),
    "eig": (L.eig, (_A,), ["{p}hybrid_eig_real"]),
    "eig_complex": (L.eig, (_A.astype(np.complex64),), ["{p}hybrid_eig_comp"]),
    "solve": (jnp.linalg.solve, (_A, _V), ["{p}solver_getrf_ffi"]),
    "inv": (jnp.linalg.inv, (_A,), ["{p}solver_getrf_ffi"]),
    "det": (jnp.linalg.det, (np.eye(5, dtype=np.float32),), ["{p}solver_getrf_ffi"]),
    "batched_cholesky": (L.cholesky, (np.stack([_A, _A]),), ["{p}solver_potrf_ffi"]),
}


def _lowered(fn, args, platform: str) -> str:
  with lowering.platform_override(platform):
    text = ember.jit(fn).lower(*args).as_text()
  lowering.parse_module(text)  # it verifies
  return text


def _targets(text: str) -> list:
  import re
  return re.findall(r'call_target_name = "([^"]+)"', text)


@pytest.mark.parametrize("platform,prefix", [("cuda", "cu"), ("rocm", "hip")])
def test_every_linalg_primitive_lowers_to_the_plugin_kernels(platform, prefix):
  for name, (fn, args, kernels) in LINALG_CASES.items():
    text = _lowered(fn, args, platform)
    targets = _targets(text)
    assert set(k.format(p=prefix) for k in kernels) <= set(targets), (name, targets)
    assert all(t.startswith(prefix) for t in targets), (name, targets)
    assert "lapack" not in text, name
  text = _lowered(lambda a, b: L.triangular_solve(a, b, left_side=True, lower=True), (_A, _B),
                  platform)
  assert '"stablehlo.triangular_solve"' in text and "transpose NO_TRANSPOSE" in text


def test_cuda_kernel_attributes_are_jaxs():
  """The attributes JAX 0.10.2 gives the same calls (its ``lower(lowering_platforms=("cuda",))``
  output, recorded by hand)."""
  text = _lowered(L.eigh, (_A,), "cuda")
  assert "mhlo.backend_config = {algorithm = 0 : ui8, lower = true}" in text
  assert 'num_batch_dims = "0"' in text and "dense<[0, 1]> : tensor<2xindex>" in text
  text = _lowered(lambda a: L.eigh(a, implementation=L.EighImplementation.JACOBI), (_A,), "cuda")
  assert "algorithm = 2 : ui8" in text
  text = _lowered(lambda a: L.svd(a, algorithm=L.SvdAlgorithm.QR), (_WIDE,), "cuda")
  assert "compute_uv = true, full_matrices = true, transposed = true" in text
  text = _lowered(L.eig, (_A,), "cuda")
  assert 'mhlo.backend_config = {left = true, magma = "auto", right = true}' in text
  text = _lowered(L.cholesky, (np.stack([_A, _A]),), "cuda")
  assert 'num_batch_dims = "1"' in text and "dense<[1, 2, 0]> : tensor<3xindex>" in text
  text = _lowered(L.cholesky_update, (_A, _V), "cuda")
  assert "cu_cholesky_update_ffi" in text and "dense<[1, 0]> : tensor<2xindex>" in text
  text = _lowered(lambda a, c: L.symmetric_product(a, c, alpha=2.0, beta=0.5), (_A, _A), "cuda")
  assert "cusolver_syrk_ffi" in text and "transpose = false" in text
  assert "cholesky_update" not in _targets(_lowered(L.cholesky_update, (_A, _V), "rocm"))


def test_cpu_only_linalg_raises_jaxs_error_on_gpu():
  for fn in (L.schur, L.hessenberg):
    with pytest.raises(NotImplementedError, match="not found for platform cuda"):
      _lowered(fn, (_A,), "cuda")
  from ember.primitives import gpu_linalg

  class DivideAndConquer:  # JAX's SvdAlgorithm.DIVIDE_AND_CONQUER, by name
    name = "DIVIDE_AND_CONQUER"
  assert gpu_linalg._svd_kernel("rocm", DivideAndConquer, 3, 3) == "gesdd"
  with pytest.raises(NotImplementedError, match="only supported on AMD"):
    gpu_linalg._svd_kernel("cuda", DivideAndConquer, 3, 3)
  assert gpu_linalg._svd_kernel("cuda", None, 2000, 3) == "gesvd"
  with pytest.raises(NotImplementedError, match="QDWH implementation is only supported on TPU"):
    _lowered(lambda a: L.eigh(a, implementation=L.EighImplementation.QDWH), (_A,), "cuda")


def test_callbacks_and_other_programs_lower_for_gpu():
  text = _lowered(lambda x: ember.debug.callback(print, x) or x, (_V,), "cuda")
  assert _targets(text) == ["xla_ffi_python_gpu_callback"]
  text = _lowered(lambda: ember.random.normal(ember.random.PRNGKey(0), (3,)), (), "cuda")
  assert "custom_call" not in text and "stablehlo.shift_right_logical" in text
  text = _lowered(lambda x: jnp.sort(x) + jnp.fft.fft(x).real, (_V,), "cuda")
  assert "custom_call" not in text
  assert _targets(_lowered(lambda x: ember.debug.callback(print, x) or x, (_V,), "cpu")) == [
      "xla_ffi_python_cpu_callback"]


def test_small_tridiagonal_systems_and_eigenvector_unpacking_values():
  """The lax code the GPU lowerings use where no kernel applies, checked against NumPy."""
  from ember.primitives import gpu_linalg
  rng = np.random.default_rng(0)
  for m in (1, 2):
    dl, d, du = (rng.normal(size=m).astype(np.float32) for _ in range(3))
    dl[0] = du[-1] = 0
    b = rng.normal(size=(m, 3)).astype(np.float32)
    full = np.diag(d) + np.diag(du[:-1], 1) + np.diag(dl[1:], -1)
    got = gpu_linalg._thomas_small(*(jnp.asarray(v) for v in (dl, d, du, b)))
    np.testing.assert_allclose(got, np.linalg.solve(full, b), rtol=1e-5)
  a = np.array([[0., -1, 0], [1, 0, 0], [0, 0, 2]])
  w, v = np.linalg.eig(a)
  packed = np.stack([v[:, 0].real, v[:, 0].imag, v[:, 2].real], 1)  # LAPACK's real layout
  order = np.array([0, 1, 2])
  got = gpu_linalg._unpack_pairs(jnp.asarray(w[order].astype(np.complex64)),
                                 jnp.asarray(packed.astype(np.float32)))
  np.testing.assert_allclose(got, v.astype(np.complex64), atol=1e-6)


# --- jaxlib versions ---------------------------------------------------------------------------

def test_version_parsing_and_shims():
  assert _jaxlib_compat.parse_version("0.11.2") == (0, 11, 2)
  assert _jaxlib_compat.parse_version("0.10.2.dev20260101") == (0, 10, 2)
  assert _jaxlib_compat.parse_version("1.2rc1") == (1, 2)
  with pytest.raises(ValueError, match="cannot read a version"):
    _jaxlib_compat.parse_version("abc")
  x = jnp.arange(4.0)
  y = ember.jit(lambda v: v * 3)(x)
  np.testing.assert_array_equal(y, [0, 3, 6, 9])
  mesh = ember.make_mesh((2,), ("i",))
  parts = [ember.device_put(np.array([1.0, 2.0], np.float32), d) for d in mesh.devices.flat]
  whole = ember.make_array_from_single_device_arrays((4,), NamedSharding(mesh, P("i")), parts)
  np.testing.assert_array_equal(whole, [1, 2, 1, 2])


# --- host reads ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4",
                                   "float16", "int8"])
def test_reads_of_every_dtype_match_numpy(dtype):
  dt = jnp.dtype(dtype)
  host = np.array([[0, 1, -2], [3, 7, -1]]).astype(np.float32)
  if dtype.startswith("uint"):
    host = np.abs(host)
  x = jnp.asarray(host.astype(dt))
  value, _ = host_reads.read_single(x)
  assert value.dtype == dt and value.shape == (2, 3)
  np.testing.assert_array_equal(value.astype(np.float32), host.astype(dt).astype(np.float32))
  np.testing.assert_array_equal(np.asarray(x[0]).astype(np.float32), host[0])


def test_float64_reads_are_exact(x64):
  x = jnp.asarray(np.float64(0.1))
  assert host_reads.read_single(x)[1] and float(x) == 0.1  # a view of the buffer, exact


def test_sharded_reads_through_the_mesh_program(monkeypatch):
  """While jax is importable but not imported, shards are read by a program over the mesh
  (forced here), with the same values as jaxlib's own split."""
  mesh = ember.make_mesh((2, 2), ("a", "b"))
  host = np.arange(16, dtype=np.float32).reshape(4, 4)
  for spec in (P("a"), P("a", "b"), P(None, "b"), P()):
    for dt in (np.float32, jnp.bfloat16):
      expected = host.astype(dt)
      x = ember.device_put(expected, NamedSharding(mesh, spec))
      monkeypatch.setattr(host_reads, "jax_pending", lambda: True)
      y = ember.device_put(expected, NamedSharding(mesh, spec))
      np.testing.assert_array_equal(np.asarray(y), expected)
      shards = [(s.device, s.index, np.asarray(s.data)) for s in y.addressable_shards]
      monkeypatch.setattr(host_reads, "jax_pending", lambda: False)
      for (d, idx, v), s in zip(shards, x.addressable_shards):
        assert d == s.device and idx == s.index
        np.testing.assert_array_equal(v, np.asarray(s.data))


# --- beside the jax package --------------------------------------------------------------------

_EXPECTED = """eager [1. 2. 3. 4.]
jit [0. 2. 4. 6.]
bf16 [1.5 1.5 1.5] [0 1 2]
sharded [0. 1. 2. 3. 4. 5. 6. 7.] [0 1 2 3]
shards [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]
dlpack [0. 1. 2. 3.] [0. 1. 2.]
imported False
jax [2. 2.] [1 1] [0. 1. 2. 3. 4. 5. 6. 7.] [2. 3.]
"""


def _jax_beside_ember(keep, tmp_root) -> str | None:
  """A folder holding jax 0.10.2 (and opt_einsum, the one module it imports that ember's
  environment lacks), installed without dependencies: it shares ember's jaxlib. Kept in
  ``keep`` (pytest's cache folder) between runs; None if pip cannot fetch it here."""
  target = os.path.join(str(keep), "site")
  if os.path.exists(os.path.join(target, "jax", "__init__.py")):
    return target
  staging = str(tmp_root / "jax-install")
  out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "--target", staging, "jax==0.10.2",
                        "opt_einsum"], capture_output=True, text=True, timeout=300)
  if out.returncode != 0:
    return None
  try:
    os.replace(staging, target)
  except OSError:  # another run put it there first
    pass
  return target


def test_ember_beside_the_jax_package(tmp_path, request):
  """With jax importable, ember's eager ops, jit, sharded printing, bf16 reads and DLPack
  never import it, and importing the real jax package afterwards in the same process works."""
  cache = getattr(request.config, "cache", None)
  site = _jax_beside_ember(cache.mkdir("jax-0.10.2") if cache else tmp_path, tmp_path)
  if site is None:
    pytest.skip("pip could not install jax==0.10.2 here")
  # The program (tools/coexistence_check.py) imports the real jax after ember, in its own
  # process: ember's tests never load the jax package themselves.
  out = _run("", {"PYTHONPATH": site, "EMBER_CACHE": "0",
                  "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}, timeout=300,
             script=os.path.join(ROOT, "tools", "coexistence_check.py"))
  assert out.returncode == 0, out.stderr[-3000:]
  assert out.stdout == _EXPECTED
