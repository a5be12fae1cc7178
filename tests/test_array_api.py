"""The Array API namespace of ember.numpy: inspection, astype, DLPack exchange with NumPy,
device placement and __array_namespace__ inside transforms."""
import warnings

import numpy as np
import pytest
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember.backend.dlpack import DLDeviceType, is_supported_dtype
from ember.errors import ConcretizationTypeError


def _aligned(n, dtype=np.float32):
  """A NumPy array of ``n`` elements whose data starts on a 64-byte boundary."""
  dt = np.dtype(dtype)
  raw = np.empty(n * dt.itemsize + 64, np.uint8)
  start = -raw.ctypes.data % 64
  return raw[start:start + n * dt.itemsize].view(dt)


def _misaligned(n, dtype=np.float32):
  raw = np.zeros(n * np.dtype(dtype).itemsize + 128, np.uint8)
  start = -raw.ctypes.data % 64 + np.dtype(dtype).itemsize
  return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


# --- the namespace and its inspection functions ---------------------------------------------

def test_version_and_namespace_of_arrays():
  x = jnp.ones(2)
  assert jnp.__array_api_version__ == "2024.12"
  assert x.__array_namespace__() is jnp
  assert x.__array_namespace__(api_version="2024.12") is jnp
  with pytest.raises(ValueError, match=r"api_version='2023.12' is not available"):
    x.__array_namespace__(api_version="2023.12")


def test_namespace_info():
  info = jnp.__array_namespace_info__()
  assert info.capabilities() == {"boolean indexing": False, "data-dependent shapes": False,
                                 "max dimensions": 64}
  assert info.default_device() is None
  assert info.devices() == [None, *ember.devices()]
  assert info.default_dtypes() == {"real floating": np.float32, "complex floating": np.complex64,
                                   "integral": np.int32, "indexing": np.int32}
  assert info.default_dtypes(device=ember.devices()[1]) == info.default_dtypes()
  assert list(info.dtypes()) == ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
                                 "float32", "complex64"]
  assert list(info.dtypes(kind="signed integer")) == ["int8", "int16", "int32"]
  assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64"]
  with pytest.raises(ValueError, match="kind='reals'"):
    info.dtypes(kind="reals")
  with pytest.raises(ValueError, match="Device"):
    info.dtypes(device="gpu")


def test_namespace_info_with_x64(x64):
  info = jnp.__array_namespace_info__()
  assert info.default_dtypes()["indexing"] == np.int64
  assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
  assert len(info.dtypes()) == 13


def test_array_namespace_inside_jit_grad_and_vmap():
  def f(x):
    xp = x.__array_namespace__()
    return xp.sum(xp.astype(x, xp.float32) ** 2)

  x = jnp.arange(3.0)
  assert float(ember.jit(f)(x)) == 5.0
  np.testing.assert_allclose(ember.grad(f)(x), [0.0, 2.0, 4.0])
  np.testing.assert_allclose(ember.vmap(f)(jnp.ones((2, 3))), [3.0, 3.0])


# --- astype ---------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.int32, np.float32),
                                     (np.float32, np.uint8), (np.int8, bool),
                                     (bool, np.float16), (np.float32, np.complex64)])
def test_astype_values_match_numpy(src, dst):
  x = np.array([0, 1, 2, 7, 100], dtype=src)
  out = jnp.astype(x, dst)
  assert out.dtype == np.dtype(dst)
  np.testing.assert_array_equal(out, x.astype(dst))
  np.testing.assert_array_equal(ember.jit(lambda v: jnp.astype(v, dst))(x), x.astype(dst))


def test_astype_copy_none_and_complex():
  x = jnp.arange(3.0)
  assert jnp.astype(x, jnp.float32) is x
  y = jnp.astype(x, jnp.float32, copy=True)
  assert y is not x and y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
  assert jnp.astype(jnp.array([1, 2]), None).dtype == np.float32
  assert jnp.astype(2.0, jnp.float32).weak_type is False
  np.testing.assert_array_equal(jnp.astype(jnp.array([1j, 0j, 2.0]), bool), [True, False, True])
  with pytest.warns(DeprecationWarning, match="complex to real"):
    np.testing.assert_array_equal(jnp.astype(jnp.array([1 + 2j]), jnp.float32), [1.0])
  with pytest.raises(TypeError, match="astype requires ndarray or scalar arguments"):
    jnp.astype([1, 2], jnp.float32)
  assert x.astype(jnp.int8).dtype == np.int8


def test_astype_jaxprs_match_jax():
  assert str(ember.make_jaxpr(lambda v: jnp.astype(v, jnp.float32))(jnp.ones(2))) == \
      "{ lambda ; a:f32[2]. let  in (a,) }"
  assert "copy a" in str(ember.make_jaxpr(lambda v: jnp.astype(v, jnp.float32, copy=True))(
      jnp.ones(2)))
  assert "ne a" in str(ember.make_jaxpr(lambda v: jnp.astype(v, bool))(jnp.ones(2, jnp.complex64)))


def test_astype_grad_and_vmap():
  np.testing.assert_allclose(ember.grad(lambda v: jnp.astype(v, jnp.float32) * 3.0)(2.0), 3.0)
  check_batch(lambda v: jnp.astype(v, jnp.int32), (np.arange(6.0).reshape(3, 2) * 1.5,))


# --- devices ----------------------------------------------------------------------------------

def test_device_keywords_and_to_device():
  d2 = ember.devices()[2]
  for x in (jnp.zeros(2, device=d2), jnp.asarray([1, 2], device=d2), jnp.arange(3, device=d2),
            jnp.full((2,), 1.0, device=d2), jnp.eye(2, device=d2),
            jnp.astype(jnp.ones(2), jnp.int8, device=d2), jnp.ones(2).to_device(d2)):
    assert x.device == d2 and x.committed
  assert jnp.zeros_like(jnp.zeros(2, device=d2)).device == d2


def test_to_device_on_tracers_keeps_the_value():
  d1 = ember.devices()[1]
  out = ember.jit(lambda x: x.to_device(d1) * 2)(jnp.ones(2))
  np.testing.assert_array_equal(out, [2.0, 2.0])
  np.testing.assert_allclose(ember.grad(lambda x: (x.to_device(d1) ** 2).sum())(jnp.ones(2)),
                             [2.0, 2.0])
  with pytest.raises(ValueError, match="Device"):
    ember.jit(lambda x: x.to_device("cpu"))(jnp.ones(2))


# --- DLPack -----------------------------------------------------------------------------------

def test_numpy_reads_ember_arrays_without_copying():
  x = jnp.arange(1024.0).reshape(32, 32)
  assert x.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
  view = np.from_dlpack(x)
  assert view.ctypes.data == x.unsafe_buffer_pointer()
  np.testing.assert_array_equal(view, np.arange(1024.0).reshape(32, 32))
  assert np.from_dlpack(x, copy=True).ctypes.data != x.unsafe_buffer_pointer()


def test_ember_reads_aligned_numpy_arrays_without_copying():
  host = _aligned(1000)
  host[:] = np.arange(1000)
  y = jnp.from_dlpack(host)
  assert y.unsafe_buffer_pointer() == host.ctypes.data and y.committed
  assert float(jnp.sum(y)) == 499500.0
  assert jnp.from_dlpack(host, copy=True).unsafe_buffer_pointer() != host.ctypes.data


@pytest.mark.parametrize("make", [
    lambda: _misaligned(5),
    lambda: np.arange(12.0, dtype=np.float32).reshape(3, 4).T,
    lambda: np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2],
])
def test_layouts_that_need_a_copy(make):
  host = make()
  out = jnp.from_dlpack(host)
  assert out.shape == host.shape and out.unsafe_buffer_pointer() != host.ctypes.data
  np.testing.assert_array_equal(out, host)
  np.testing.assert_array_equal(out + 1, host + 1)
  with pytest.raises(ValueError, match="copy=False"):
    jnp.from_dlpack(host, copy=False)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float16,
                                   np.float32, np.complex64, jnp.bfloat16])
def test_round_trips(dtype):
  x = jnp.asarray(np.array([[0, 1, 0], [3, 0, 5]]).astype(dtype))
  back = jnp.from_dlpack(x)
  assert back.dtype == x.dtype and back.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
  np.testing.assert_array_equal(back, x)
  if dtype is not jnp.bfloat16:
    np.testing.assert_array_equal(jnp.from_dlpack(np.from_dlpack(x)), x)


def test_64_bit_data_follows_x64():
  host = np.arange(4, dtype=np.int64)
  assert jnp.from_dlpack(host).dtype == np.int32
  with ember.enable_x64():
    assert jnp.from_dlpack(host).dtype == np.int64
    assert jnp.from_dlpack(np.ones(2)).dtype == np.float64


def test_read_only_numpy_arrays_are_copied():
  host = np.arange(3.0)
  host.flags.writeable = False
  np.testing.assert_array_equal(jnp.from_dlpack(host), host)
  with pytest.raises(BufferError, match="readonly"):
    jnp.from_dlpack(host, copy=False)


def test_from_dlpack_devices():
  d1, d3 = ember.devices()[1], ember.devices()[3]
  x = jnp.arange(3.0, device=d3)
  assert x.__dlpack_device__() == (DLDeviceType.kDLCPU, 3)
  assert jnp.from_dlpack(x).device == d3
  y = jnp.from_dlpack(x, device=d1)
  assert y.device == d1 and y.committed
  np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])
  with pytest.raises(ValueError, match="copy=False"):
    jnp.from_dlpack(x, device=d1, copy=False)


def test_dunder_dlpack_keywords():
  x = jnp.ones(3)
  for kwargs in ({}, {"max_version": (0, 0)}, {"max_version": (1, 0)},
                 {"dl_device": (DLDeviceType.kDLCPU, 0)}, {"copy": True}, {"copy": False}):
    assert np.from_dlpack(_Producer(x.__dlpack__(**kwargs))).sum() == 3.0
  with pytest.raises(BufferError, match="device type 2"):
    x.__dlpack__(dl_device=(DLDeviceType.kDLCUDA, 0))
  with pytest.raises(BufferError, match="copy=False"):
    x.__dlpack__(dl_device=(DLDeviceType.kDLCPU, 1), copy=False)
  assert is_supported_dtype(jnp.bfloat16) and not is_supported_dtype("float8_e4m3fn")


class _Producer:
  """A minimal DLPack producer handing out one capsule."""

  def __init__(self, capsule):
    self.capsule = capsule

  def __dlpack__(self, **kwargs):
    return self.capsule

  def __dlpack_device__(self):
    return DLDeviceType.kDLCPU, 0


def test_dlpack_errors():
  with pytest.raises(TypeError, match="__dlpack__ and __dlpack_device__"):
    jnp.from_dlpack([1.0, 2.0])
  with pytest.raises(ConcretizationTypeError, match=r"__dlpack__\(\) method was called"):
    ember.jit(lambda x: x.__dlpack__())(jnp.ones(2))
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    jnp.from_dlpack(jnp.ones(2))


# --- fixes the standard's suite asked for -----------------------------------------------------

def test_sign_of_unsigned_integers():
  for dt in (np.uint8, np.uint32):
    x = np.array([0, 1, 200], dt)
    np.testing.assert_array_equal(jnp.sign(x), np.sign(x))
    np.testing.assert_array_equal(ember.jit(jnp.sign)(x), np.sign(x))


def test_linalg_of_empty_matrices():
  empty = np.zeros((2, 0, 0), np.float32)
  assert jnp.linalg.inv(empty).shape == (2, 0, 0)
  assert jnp.linalg.solve(empty, np.zeros((2, 0, 3), np.float32)).shape == (2, 0, 3)
  np.testing.assert_array_equal(jnp.linalg.det(empty), [1.0, 1.0])
  u, s, vh = jnp.linalg.svd(np.zeros((0, 3), np.float32))
  assert u.shape == (0, 0) and s.shape == (0,)
  np.testing.assert_array_equal(vh, np.eye(3))


def test_out_of_bounds_axis_is_numpy_axis_error():
  with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds"):
    jnp.expand_dims(jnp.ones((2, 2)), 3)
  assert issubclass(np.exceptions.AxisError, (ValueError, IndexError))


def test_eager_integer_indexing_compiles_once():
  from ember.backend import dispatch
  x = jnp.arange(64.0)
  float(x[0])
  before = len(dispatch.executable_cache)
  assert [float(x[i]) for i in range(1, 40)] == list(range(1, 40))
  assert len(dispatch.executable_cache) == before


def test_complex_special_values_of_the_standard():
  nan, inf = np.nan, np.inf
  z = np.array([complex(1e300, nan), complex(-2.0, nan)])
  with ember.enable_x64():
    for f in (jnp.arccos, jnp.arccosh, ember.jit(jnp.arccos)):
      out = np.asarray(f(z))
      assert np.isnan(out.real).all() and np.isnan(out.imag).all()
  out = np.asarray(jnp.tanh(np.array([complex(inf, 2.0), complex(-inf, -2.0)], np.complex64)))
  np.testing.assert_array_equal(out, [1.0, -1.0])
  np.testing.assert_array_equal(np.signbit(out.imag), [False, True])
