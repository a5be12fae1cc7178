"""ember.numpy creation functions and dtype names: values, dtypes, weak types, devices, jaxprs
and errors, against NumPy and JAX's documented behaviour."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import config
from ember.core.errors import ConcretizationTypeError

BF16 = np.dtype(ml_dtypes.bfloat16)


def _check(x, expected, dtype, weak=False):
  assert isinstance(x, ember.Array)
  assert x.dtype == np.dtype(dtype), (x.dtype, dtype)
  assert x.weak_type == weak
  np.testing.assert_array_equal(np.asarray(x), np.asarray(expected))


# --- dtype names ------------------------------------------------------------------------------

def test_scalar_types():
  assert repr(jnp.float32(1)) == "Array(1., dtype=float32)"
  assert np.dtype(jnp.float32) == np.float32 and np.dtype(jnp.bfloat16) == BF16
  assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
  assert jnp.float32.dtype == np.dtype(np.float32)
  assert isinstance(np.float32(1), jnp.float32) and not isinstance(jnp.float32(1), jnp.float32)
  _check(jnp.int8(np.array([1.7, -2.2])), [1, -2], np.int8)
  _check(jnp.float32("1.5"), 1.5, np.float32)
  _check(jnp.bool_(2), True, np.bool_)
  assert jnp.bool is jnp.bool_ and jnp.float_ is jnp.float64 and jnp.int_ is jnp.int64
  assert jnp.zeros(2, jnp.bfloat16).dtype == BF16
  assert jnp.ndarray is ember.Array and isinstance(jnp.zeros(2), jnp.ndarray)
  with pytest.raises(OverflowError):
    jnp.int32(2 ** 40)


def test_dtype_functions():
  assert jnp.issubdtype(jnp.bfloat16, jnp.floating) and jnp.issubdtype(jnp.int8, jnp.integer)
  assert not jnp.issubdtype(jnp.float32, jnp.integer)
  assert jnp.result_type(jnp.int8, 1) == np.int8
  assert jnp.result_type(1, 1.0) == np.float32
  assert jnp.promote_types(jnp.bfloat16, jnp.float16) == np.float32
  assert jnp.promote_types("int32", "float64") == np.float64
  assert jnp.can_cast(jnp.int8, jnp.int32) and not jnp.can_cast(jnp.int32, jnp.float32)
  assert jnp.isdtype(jnp.bfloat16, "real floating")
  assert jnp.isdtype(jnp.int8, ("bool", "numeric")) and not jnp.isdtype(jnp.bool_, "numeric")
  assert jnp.isdtype(jnp.float32, jnp.float32)
  with pytest.raises(ValueError, match="Unrecognized kind"):
    jnp.isdtype(jnp.int8, "foo")
  assert jnp.iinfo(jnp.int8).max == 127 and jnp.finfo(jnp.bfloat16).eps == 2 ** -7
  assert (jnp.pi, jnp.e, jnp.euler_gamma) == (np.pi, np.e, np.euler_gamma)
  assert jnp.inf == np.inf and np.isnan(jnp.nan) and jnp.newaxis is None
  assert jnp.dtype("float32") == np.float32


# --- array / asarray --------------------------------------------------------------------------

@pytest.mark.parametrize("obj,dtype,weak", [
    (1., np.float32, True), (1, np.int32, True), (True, np.bool_, False),
    (1j, np.complex64, True), ([1., 2.], np.float32, False), ([1, 2], np.int32, False),
    ([True, 2], np.int32, False), ((1, 2.5j), np.complex64, False), ([], np.float32, False),
    (np.float64(1.5), np.float32, False), (np.arange(3, dtype=np.int64), np.int32, False),
    (np.float16(1.5), np.float16, False), (range(3), np.int32, False),
    ([np.float32(1), 2.], np.float32, False), ([np.int8(1), 2], np.int8, False),
])
def test_array_dtypes_and_weak_types(obj, dtype, weak):
  x = jnp.array(obj)
  y = jnp.asarray(obj)
  expected = np.asarray(obj if not isinstance(obj, range) else list(obj))
  for out in (x, y):
    _check(out, expected.astype(dtype), dtype, weak)


def test_array_from_arrays_and_copy_semantics():
  x = jnp.arange(3)
  assert jnp.asarray(x) is x
  assert jnp.asarray(x, dtype=jnp.int32) is x
  assert jnp.array(x) is not x
  _check(jnp.array(x), [0, 1, 2], np.int32)
  w = jnp.asarray(1.)
  assert jnp.array(w).weak_type and jnp.asarray(w).weak_type
  assert not jnp.asarray(w, dtype=jnp.float32).weak_type
  _check(jnp.array([jnp.asarray(1), jnp.asarray(2.)]), [1., 2.], np.float32)
  _check(jnp.array([[1, 2], [3, 4]], dtype=jnp.uint8), [[1, 2], [3, 4]], np.uint8)
  _check(jnp.array([1.5, 2.5], dtype=jnp.bfloat16), np.array([1.5, 2.5], BF16), BF16)
  _check(jnp.array([1, 2], ndmin=3), [[[1, 2]]], np.int32)
  _check(jnp.array([[], []]), np.zeros((2, 0)), np.float32)
  _check(jnp.copy(x), [0, 1, 2], np.int32)
  with np.errstate(invalid="ignore"):
    wrapped = np.array([1e10]).astype(np.int32)
  _check(jnp.asarray(np.array([1e10]), dtype=jnp.int32), wrapped, np.int32)


def test_array_errors():
  with pytest.raises(OverflowError, match="too large to convert to int32"):
    jnp.array(2 ** 40)
  with pytest.raises(OverflowError, match="out of bounds for int32"):
    jnp.array([1, 2 ** 31])
  with pytest.raises(OverflowError, match="out of bounds for uint8"):
    jnp.asarray(300, dtype=jnp.uint8)
  with pytest.raises(TypeError, match="Value 'abc' with dtype <U3 is not a valid JAX array"):
    jnp.array("abc")
  with pytest.raises(TypeError, match="not a valid JAX array type"):
    jnp.array({1: 2})
  with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
    jnp.array(None)
  with pytest.raises(ValueError, match="inhomogeneous"):
    jnp.array([[1, 2], [3]])


def test_array_of_tracers_stacks():
  def f(a):
    return jnp.array([a, 1.]), jnp.array([[a, a], [a, a]])
  v, m = ember.jit(f)(np.float32(3))
  _check(v, [3., 1.], np.float32)
  _check(m, np.full((2, 2), 3.), np.float32)
  jaxpr = str(ember.make_jaxpr(lambda a: jnp.array([a, 1.]))(0.))
  assert "convert_element_type[new_dtype=float32 weak_type=False] a" in jaxpr
  assert "concatenate[dimension=0]" in jaxpr
  assert str(ember.make_jaxpr(lambda a: jnp.array(a))(0.)) == \
      "{ lambda ; a:f32[]. let b:f32[] = copy a in (b,) }"
  assert str(ember.make_jaxpr(lambda a: jnp.asarray(a))(0.)) == \
      "{ lambda ; a:f32[]. let  in (a,) }"


def test_64bit_requests_warn_and_truncate():
  with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
    x = jnp.zeros(2, dtype=jnp.float64)
  assert x.dtype == np.float32
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert jnp.array(np.zeros(2)).dtype == np.float32  # data, not a request: no warning


# --- zeros, ones, full and *_like -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [None, np.bool_, np.int8, np.uint8, np.int32, np.float16,
                                   BF16, np.float32, np.complex64])
def test_zeros_ones_empty(dtype):
  expected_dt = np.float32 if dtype is None else dtype
  for fn, v in ((jnp.zeros, 0), (jnp.ones, 1), (jnp.empty, 0)):
    _check(fn((2, 3), dtype), np.full((2, 3), v, expected_dt), expected_dt)
    _check(ember.jit(lambda: fn((2, 3), dtype))(), np.full((2, 3), v, expected_dt),
           expected_dt)
  _check(jnp.zeros(3, dtype), np.zeros(3, expected_dt), expected_dt)
  _check(jnp.ones((), dtype), np.ones((), expected_dt), expected_dt)
  _check(jnp.zeros((0, 4), dtype), np.zeros((0, 4), expected_dt), expected_dt)


def test_full():
  _check(jnp.full((2,), 1.5), [1.5, 1.5], np.float32, weak=True)
  _check(jnp.full((2,), 1), [1, 1], np.int32, weak=True)
  _check(jnp.full((2,), True), [True, True], np.bool_)
  _check(jnp.full((2,), np.float32(1)), [1., 1.], np.float32)
  _check(jnp.full(2, 7, dtype=jnp.int8), [7, 7], np.int8)
  _check(jnp.full((2, 2), jnp.array([1, 2])), [[1, 2], [1, 2]], np.int32)
  _check(jnp.full(3, 300, dtype=jnp.uint8), np.full(3, 44, np.uint8), np.uint8)
  _check(ember.jit(lambda v: jnp.full((2, 3), v))(2.5), np.full((2, 3), 2.5), np.float32,
         weak=True)
  with pytest.raises(TypeError, match="full requires ndarray or scalar arguments"):
    jnp.full((2, 2), [1., 2.])


def test_like_functions():
  i = jnp.arange(3)
  _check(jnp.zeros_like(i), [0, 0, 0], np.int32)
  _check(jnp.ones_like(i, dtype=float), [1., 1., 1.], np.float32)
  _check(jnp.full_like(i, 2.7), [2, 2, 2], np.int32)
  _check(jnp.full_like(i, 2.7, shape=(2, 2)), np.full((2, 2), 2), np.int32)
  _check(jnp.empty_like(np.ones((2,), np.float16)), [0, 0], np.float16)
  _check(jnp.zeros_like(jnp.asarray(1.)), 0., np.float32, weak=True)
  _check(jnp.full_like(jnp.asarray(1.), 2), 2., np.float32, weak=True)
  _check(jnp.zeros_like(3), 0, np.int32, weak=True)
  _check(jnp.full_like(np.zeros(2, np.float32), np.array([1., 2.])), [1., 2.], np.float32)
  jaxpr = str(ember.make_jaxpr(jnp.zeros_like)(np.zeros(3, np.float32)))
  assert jaxpr == "{ lambda ; a:f32[3]. let b:f32[3] = broadcast_in_dim 0.0:f32[] in (b,) }"


def test_shape_errors():
  with pytest.raises(TypeError, match=r"Shapes must be 1D sequences of concrete values of "
                                      r"integer type, got \(2.5,\)"):
    jnp.zeros(2.5)
  with pytest.raises(TypeError, match=r"got \(2, None\)"):
    jnp.ones((2, None))
  with pytest.raises(TypeError, match="negative dimension"):
    jnp.zeros((-1,))
  with pytest.raises(ValueError, match="far more than this machine's memory"):
    jnp.zeros((10 ** 12, 10 ** 6))
  with pytest.raises(TypeError, match="If using `jit`"):
    ember.jit(lambda n: jnp.zeros(n))(3)
  with pytest.raises(TypeError, match="argument of 'N' jnp.eye"):
    ember.jit(lambda n: jnp.eye(n))(3)


def test_devices():
  dev = ember.devices()[0]
  assert not jnp.zeros(2).committed and not jnp.array([1, 2]).committed
  for x in (jnp.zeros(2, device=dev), jnp.arange(3, device=dev), jnp.eye(2, device=dev),
            jnp.array([1, 2], device=dev), jnp.full(2, 1., device=dev),
            jnp.linspace(0, 1, 3, device=dev)):
    assert x.committed and x.device == dev
  assert jnp.zeros_like(jnp.zeros(2, device=dev)).committed
  assert not jnp.zeros_like(jnp.zeros(2)).committed


# --- ranges -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args,kwargs,dtype", [
    ((5,), {}, np.int32), ((5.,), {}, np.float32), ((1, 5), {}, np.int32),
    ((0., 1., .1), {}, np.float32), ((5,), {"dtype": jnp.float32}, np.float32),
    ((np.int8(5),), {}, np.int8), ((10, 2, -3), {}, np.int32), ((0,), {}, np.int32),
    ((-3,), {}, np.int32), ((np.uint8(2), 5), {}, np.uint8), ((2.5,), {}, np.float32),
    ((1, 2, 0.25), {}, np.float32), ((-1., -5., -1.5), {}, np.float32),
])
def test_arange(args, kwargs, dtype):
  np_args = tuple(np.asarray(a).item() if isinstance(a, np.generic) else a for a in args)
  expected = np.arange(*np_args).astype(dtype)
  out = jnp.arange(*args, **kwargs)
  _check(out, expected, dtype) if np.dtype(dtype).kind != "f" else None
  assert out.dtype == dtype and not out.weak_type
  np.testing.assert_allclose(out, expected, rtol=1e-6)
  traced = ember.jit(lambda: jnp.arange(*args, **kwargs))()
  np.testing.assert_allclose(traced, out, rtol=1e-6)


def test_arange_semantics_and_errors():
  _check(jnp.arange(jnp.array(5)), np.arange(5), np.int32)
  with pytest.raises(ZeroDivisionError):
    jnp.arange(1, 2, 0)
  with pytest.raises(ValueError, match="complex start/stop/step"):
    jnp.arange(3j)
  with pytest.raises(ConcretizationTypeError, match="jnp.arange argument 'stop'"):
    ember.jit(lambda n: jnp.arange(n))(3)
  with pytest.raises(ConcretizationTypeError, match="jnp.arange argument 'start'"):
    ember.jit(lambda n: jnp.arange(n, 10))(3)
  assert str(ember.make_jaxpr(lambda: jnp.arange(2, 10, 3))()) == (
      "{ lambda ; . let\n"
      "    a:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n"
      "    b:i32[3] = mul 3:i32[] a\n"
      "    c:i32[3] = add 2:i32[] b\n  in (c,) }")


@pytest.mark.parametrize("start,stop,num,kwargs", [
    (0, 1, 5, {}), (0, 1, 5, {"endpoint": False}), (0, 10, 4, {"dtype": int}),
    (-2., 3., 7, {}), (0, 1, 1, {}), (0, 1, 0, {}), (1, 0, 6, {"dtype": np.float16}),
])
def test_linspace(start, stop, num, kwargs):
  out = jnp.linspace(start, stop, num, **kwargs)
  expected = np.linspace(start, stop, num, **kwargs)
  dt = np.dtype(kwargs.get("dtype", np.float32))
  dt = np.int32 if dt == np.int64 else np.float32 if dt == np.float64 else dt
  assert out.dtype == dt
  np.testing.assert_allclose(out, expected, rtol=2e-3 if dt == np.float16 else 1e-6,
                             atol=1e-6)


def test_linspace_arrays_retstep_and_errors():
  out, step = jnp.linspace(0, 1, 3, retstep=True)
  _check(out, [0., .5, 1.], np.float32)
  _check(step, 0.5, np.float32)
  _, step = jnp.linspace(0, 1, 1, retstep=True)
  assert np.isnan(step)
  a = jnp.linspace(jnp.array([0., 1.]), 2, 3, axis=1)
  _check(a, [[0., 1., 2.], [1., 1.5, 2.]], np.float32)
  b = jnp.linspace(np.zeros((2, 1)), np.ones(3), 4, axis=-1)
  np.testing.assert_allclose(b, np.linspace(np.zeros((2, 1)), np.ones(3), 4, axis=-1))
  with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative"):
    jnp.linspace(0, 1, -1)
  np.testing.assert_allclose(ember.jit(lambda s: jnp.linspace(s, 1., 5))(0.),
                             np.linspace(0, 1, 5))


def test_logspace_geomspace():
  np.testing.assert_allclose(jnp.logspace(0, 2, 3), [1., 10., 100.], rtol=1e-6)
  np.testing.assert_allclose(jnp.logspace(0, 2, 3, base=2.), [1., 2., 4.])
  np.testing.assert_allclose(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), rtol=1e-5)
  np.testing.assert_allclose(jnp.geomspace(-1, -1000, 4), np.geomspace(-1, -1000, 4),
                             rtol=1e-5)
  g = jnp.geomspace(np.array([1., 2.]), 100., 3, axis=1)
  np.testing.assert_allclose(g, np.geomspace(np.array([1., 2.]), 100., 3, axis=1), rtol=1e-5)


# --- matrices ---------------------------------------------------------------------------------

@pytest.mark.parametrize("N,M,k", [(3, None, 0), (2, 3, 1), (3, 2, -1), (3, 3, -5), (0, 2, 0)])
def test_eye_tri(N, M, k):
  _check(jnp.eye(N, M, k), np.eye(N, M, k), np.float32)
  _check(jnp.eye(N, M, k, dtype=int), np.eye(N, M, k, dtype=np.int32), np.int32)
  _check(jnp.tri(N, M, k), np.tri(N, M, k), np.float32)
  _check(ember.jit(lambda: jnp.eye(N, M, k, dtype=bool))(), np.eye(N, M, k, dtype=bool),
         np.bool_)
  _check(ember.jit(lambda: jnp.tri(N, M, k))(), np.tri(N, M, k), np.float32)


def test_eye_traced_k_identity_tril_triu():
  _check(ember.jit(lambda k: jnp.eye(3, k=k))(1), np.eye(3, k=1), np.float32)
  _check(jnp.identity(2, dtype=bool), np.eye(2, dtype=bool), np.bool_)
  m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
  for k in (-1, 0, 2):
    _check(jnp.tril(m, k), np.tril(m, k), np.float32)
    _check(jnp.triu(m, k), np.triu(m, k), np.float32)
  _check(jnp.tril(np.ones((2, 2), np.int8)), np.tril(np.ones((2, 2), np.int8)), np.int8)
  with pytest.raises(ValueError, match="must be at least 2D"):
    jnp.tril(np.ones(3))
  assert "name=tril" in str(ember.make_jaxpr(jnp.tril)(np.zeros((3, 3), np.float32)))


def test_meshgrid():
  x, y, z = np.arange(2), np.arange(3.), np.arange(4, dtype=np.int8)
  for indexing in ("xy", "ij"):
    for sparse in (False, True):
      got = jnp.meshgrid(x, y, z, indexing=indexing, sparse=sparse)
      want = np.meshgrid(x, y, z, indexing=indexing, sparse=sparse)
      assert len(got) == 3
      for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
  assert jnp.meshgrid() == []
  with pytest.raises(ValueError, match="must be 1D"):
    jnp.meshgrid(np.zeros((2, 2)))
  with pytest.raises(ValueError, match="indexing"):
    jnp.meshgrid(x, y, indexing="yx")


def test_frombuffer_fromfunction():
  _check(jnp.frombuffer(b"\x01\x02", dtype=jnp.uint8), [1, 2], np.uint8)
  _check(jnp.fromfunction(lambda i, j: i + j, (2, 3)), np.fromfunction(lambda i, j: i + j,
                                                                       (2, 3)), np.float32)
  _check(jnp.fromfunction(lambda i, j: i * j, (2, 2), dtype=int), [[0, 0], [0, 1]], np.int32)


# --- x64 --------------------------------------------------------------------------------------

@pytest.fixture
def x64():
  old = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  try:
    yield
  finally:
    config.update("jax_enable_x64", old)


def test_x64_creation(x64):
  assert jnp.arange(3).dtype == np.int64
  assert jnp.zeros(2).dtype == np.float64
  assert repr(jnp.asarray(1.)) == "Array(1., dtype=float64, weak_type=True)"
  assert jnp.array(np.arange(3)).dtype == np.int64
  assert jnp.array(2 ** 40) == 2 ** 40
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert jnp.ones(2, jnp.float64).dtype == np.float64
  assert jnp.linspace(0, 1, 3).dtype == np.float64


def test_like_functions_accept_abstract_arrays():
  s = ember.ShapeDtypeStruct((2, 3), jnp.float16)
  for fn, v in ((jnp.zeros_like, 0), (jnp.ones_like, 1), (jnp.empty_like, 0)):
    out = fn(s)
    assert out.shape == (2, 3) and out.dtype == np.float16 and np.all(np.asarray(out) == v)
  np.testing.assert_array_equal(jnp.full_like(s, 3), np.full((2, 3), 3, np.float16))


def test_array_of_a_list_of_bfloat16_arrays():
  # JAX 0.10.2's values; NumPy alone cannot read 0-d bfloat16 array objects inside a list
  v = jnp.bfloat16(128)
  out = jnp.array([v, v + 1.0], dtype=jnp.bfloat16)
  assert out.dtype == jnp.bfloat16 and out.tolist() == [128, 129]
  out = jnp.array([jnp.bfloat16(1.5), 2])
  assert out.dtype == jnp.bfloat16 and not out.weak_type and out.tolist() == [1.5, 2]
  out = jnp.array([[jnp.bfloat16(1.5)], [jnp.float32(2)]])
  assert out.dtype == jnp.float32 and out.tolist() == [[1.5], [2.0]]
  out = jnp.array((jnp.bfloat16(1.5), 2.0), dtype=jnp.float16)
  assert out.dtype == jnp.float16 and out.tolist() == [1.5, 2.0]
