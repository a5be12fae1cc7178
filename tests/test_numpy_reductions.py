"""ember.numpy reductions: values and JAX's dtype rules against NumPy, axis/keepdims/where/
initial handling, NaN variants, cumulative reductions, jaxprs and errors, eager and under jit."""
import ml_dtypes
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import config

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(1)


def _sample(dt, shape):
  dt = np.dtype(dt)
  if dt == np.bool_:
    return rng.random(shape) < 0.5
  if dt.kind in "iu":
    return rng.integers(0 if dt.kind == "u" else -5, 6, shape).astype(dt)
  if dt.kind == "c":
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dt)
  return rng.normal(size=shape).astype(dt)


def _both(f, *args, **kwargs):
  """f eagerly and under jit (static kwargs); the two must agree."""
  eager = f(*args, **kwargs)
  jitted = ember.jit(lambda *a: f(*a, **kwargs))(*args)
  assert eager.dtype == jitted.dtype and eager.shape == jitted.shape
  wide = np.complex128 if eager.dtype.kind == "c" else np.float64
  np.testing.assert_allclose(np.asarray(eager).astype(wide), np.asarray(jitted).astype(wide),
                             rtol=1e-5, atol=1e-6, equal_nan=True)
  return eager


# --- sum, prod, max, min, all, any ------------------------------------------------------------

SUM_DTYPE = {np.bool_: np.int32, np.int8: np.int32, np.uint8: np.uint32, np.int32: np.int32,
             np.float16: np.float16, BF16: BF16, np.float32: np.float32,
             np.complex64: np.complex64}


@pytest.mark.parametrize("dt", list(SUM_DTYPE), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
def test_sum_prod_dtypes_and_values(dt, axis):
  x = _sample(dt, (2, 3, 4))
  out = _both(jnp.sum, x, axis=axis)
  assert out.dtype == SUM_DTYPE[dt]
  wide = x.astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)
  tol = 3e-2 if dt in (np.float16, BF16) else 1e-5
  np.testing.assert_allclose(np.asarray(out).astype(wide.dtype), wide.sum(axis), rtol=tol,
                             atol=tol)
  p = jnp.prod(x, axis=axis, keepdims=True)
  assert p.dtype == SUM_DTYPE[dt] and p.shape == np.prod(wide, axis, keepdims=True).shape
  if np.dtype(dt).kind in "biu":
    np.testing.assert_array_equal(p, np.prod(wide, axis, keepdims=True).astype(p.dtype))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.float32, BF16],
                         ids=lambda d: np.dtype(d).name)
def test_max_min_all_any(dt):
  x = _sample(dt, (3, 4))
  for name in ("max", "min", "all", "any"):
    for axis in (None, 1, (0, 1)):
      out = _both(getattr(jnp, name), x, axis=axis, keepdims=axis == 1)
      expected = getattr(np, name)(x.astype(np.float32) if dt == BF16 else x, axis=axis,
                                   keepdims=axis == 1)
      assert out.dtype == (np.bool_ if name in ("all", "any") else dt)
      np.testing.assert_array_equal(np.asarray(out).astype(np.float32) if dt == BF16 else out,
                                    expected)
  assert jnp.amax is jnp.max and jnp.amin is jnp.min


def test_nan_and_complex_extrema():
  np.testing.assert_array_equal(jnp.max(np.array([1., np.nan], np.float32)), np.nan)
  np.testing.assert_array_equal(jnp.min(np.array([1., np.nan, -np.inf], np.float32)), np.nan)
  z = np.array([1., 2j], np.complex64)
  assert jnp.max(z) == 1 and jnp.min(z) == 2j
  np.testing.assert_array_equal(jnp.all(np.array([1j, 0j])), False)


def test_dtype_initial_where_keepdims():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  mask = np.array([True, False, True])
  np.testing.assert_array_equal(_both(jnp.sum, x, where=mask, initial=10.), 20.)
  np.testing.assert_array_equal(jnp.max(x, where=mask, initial=-1.), 5.)
  np.testing.assert_array_equal(jnp.max(np.arange(6).reshape(2, 3), axis=1, where=mask,
                                        initial=-1), [2, 5])
  np.testing.assert_array_equal(jnp.max(np.zeros((0, 3)), axis=0, initial=1.), [1., 1., 1.])
  np.testing.assert_array_equal(jnp.all(x, where=x > 2), True)
  np.testing.assert_array_equal(jnp.sum(x, axis=()), x)
  np.testing.assert_array_equal(jnp.sum(x, axis=[0, 1]), 15.)
  np.testing.assert_array_equal(jnp.sum(x, keepdims=True), [[15.]])
  s = jnp.sum(x, dtype=jnp.int32)
  assert s.dtype == np.int32 and s == 15
  assert jnp.sum(np.arange(6, dtype=np.int8), promote_integers=False).dtype == np.int8
  assert jnp.sum(np.arange(6, dtype=np.uint8), dtype=np.uint8).dtype == np.uint8
  assert jnp.sum(np.arange(3), dtype=bool).dtype == np.bool_
  assert repr(jnp.sum(3.)) == "Array(3., dtype=float32)"
  assert repr(jnp.sum(True)) == "Array(1, dtype=int32)"
  with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments"):
    jnp.sum([1, 2])


def test_reduction_errors():
  x = np.ones((2, 3), np.float32)
  with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
    jnp.max(np.zeros((0, 3)))
  with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
    jnp.min(np.zeros((0, 3)), axis=0)
  assert jnp.max(np.zeros((0, 3)), axis=1).shape == (0,)
  with pytest.raises(ValueError, match="does not have an identity"):
    jnp.max(x, where=np.array([True, False, True]))
  with pytest.raises(ValueError, match="axis 2 is out of bounds"):
    jnp.sum(x, axis=2)
  with pytest.raises(ValueError, match="axis -3 is out of bounds"):
    jnp.sum(x, axis=-3)
  with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, -2\)"):
    jnp.sum(x, axis=(0, -2))
  with pytest.raises(NotImplementedError, match="The 'out' argument to jnp.sum"):
    jnp.sum(x, out=x)
  with pytest.raises(ValueError, match="where must be None or a boolean array"):
    jnp.sum(x, where=np.array([1, 0, 1]))
  with pytest.raises(ValueError, match="initial value must be a scalar"):
    jnp.sum(x, initial=np.array([1., 2.]))
  with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments"):
    jnp.sum("abc")


def test_empty_reductions():
  e = np.zeros((0, 3), np.float32)
  np.testing.assert_array_equal(jnp.sum(e), 0.)
  np.testing.assert_array_equal(jnp.prod(e, axis=0), [1., 1., 1.])
  np.testing.assert_array_equal(jnp.mean(e), np.nan)
  np.testing.assert_array_equal(jnp.var(e, axis=0), [np.nan] * 3)
  np.testing.assert_array_equal(jnp.all(e), True)
  np.testing.assert_array_equal(jnp.any(e), False)
  with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
    jnp.argmax(e)


# --- mean, var, std ---------------------------------------------------------------------------

MEAN_DTYPE = {np.bool_: np.float32, np.int8: np.float32, np.int32: np.float32,
              np.float16: np.float16, BF16: BF16, np.float32: np.float32,
              np.complex64: np.complex64}
VAR_DTYPE = {**MEAN_DTYPE, np.complex64: np.float32}


@pytest.mark.parametrize("dt", list(MEAN_DTYPE), ids=lambda d: np.dtype(d).name)
def test_mean_var_std(dt):
  x = _sample(dt, (3, 4))
  wide = x.astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)
  tol = 3e-2 if dt in (np.float16, BF16) else 1e-5
  for axis in (None, 0, -1):
    m = _both(jnp.mean, x, axis=axis)
    assert m.dtype == MEAN_DTYPE[dt]
    np.testing.assert_allclose(np.asarray(m).astype(wide.dtype), wide.mean(axis), rtol=tol,
                               atol=tol)
  v = _both(jnp.var, x, axis=1, ddof=1)
  s = jnp.std(x, axis=0, keepdims=True)
  assert v.dtype == VAR_DTYPE[dt] and s.dtype == VAR_DTYPE[dt]
  np.testing.assert_allclose(np.asarray(v).astype(np.float64), wide.var(1, ddof=1), rtol=tol,
                             atol=tol)
  np.testing.assert_allclose(np.asarray(s).astype(np.float64), wide.std(0, keepdims=True),
                             rtol=tol, atol=tol)


def test_mean_var_options():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  mask = np.array([True, False, True])
  np.testing.assert_allclose(jnp.mean(x, where=mask), np.mean(x, where=np.broadcast_to(
      mask, x.shape)))
  np.testing.assert_allclose(jnp.var(x, axis=1, where=mask), [1., 1.])
  np.testing.assert_allclose(jnp.var(x, correction=1), np.var(x, ddof=1))
  np.testing.assert_allclose(jnp.var(x, mean=np.float32(2.)), np.mean((x - 2) ** 2))
  np.testing.assert_array_equal(jnp.var(np.ones(1, np.float32), ddof=1), np.nan)
  m = jnp.mean(x, dtype=int)
  assert m.dtype == np.int32 and m == 2
  assert jnp.mean(np.arange(6, dtype=np.uint8), dtype=jnp.float16).dtype == np.float16
  assert repr(jnp.mean(3)) == "Array(3., dtype=float32)"
  with pytest.raises(ValueError, match="ddof and correction can't be provided"):
    jnp.var(x, ddof=1, correction=1)
  with pytest.raises(ValueError, match="dtype argument to jnp.std must be inexact"):
    jnp.std(x, dtype=int)
  with pytest.raises(ValueError, match="does not yet support real dtype parameters"):
    jnp.var(np.array([1j]), dtype=jnp.float32)


# --- arg reductions ---------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.float32, BF16],
                         ids=lambda d: np.dtype(d).name)
def test_argmax_argmin(dt):
  x = _sample(dt, (3, 5))
  ref = x.astype(np.float32) if dt == BF16 else x
  for name in ("argmax", "argmin"):
    for axis in (None, 0, -1):
      out = _both(getattr(jnp, name), x, axis=axis)
      assert out.dtype == np.int32
      np.testing.assert_array_equal(out, getattr(np, name)(ref, axis=axis))
  assert jnp.argmax(x, keepdims=True).shape == (1, 1)
  assert jnp.argmin(x, axis=1, keepdims=True).shape == (3, 1)
  np.testing.assert_array_equal(jnp.argmax(np.array([1., np.nan, 3.])), 1)
  np.testing.assert_array_equal(jnp.argmax(3.), 0)


# --- cumulative reductions --------------------------------------------------------------------

@pytest.mark.parametrize("dt,out_dt", [(np.bool_, np.int32), (np.int8, np.int8),
                                       (np.uint8, np.uint8), (np.float32, np.float32)],
                         ids=["bool", "int8", "uint8", "float32"])
def test_cumsum_cumprod(dt, out_dt):
  x = _sample(dt, (3, 4))
  for name in ("cumsum", "cumprod"):
    for axis in (None, 0, -1):
      out = _both(getattr(jnp, name), x, axis=axis)
      assert out.dtype == out_dt
      with np.errstate(over="ignore"):
        expected = getattr(np, name)(x, axis=axis).astype(out_dt)
      np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_cumulative_variants():
  x = np.array([1., np.nan, 2.], np.float32)
  np.testing.assert_array_equal(_both(jnp.nancumsum, x), [1., 1., 3.])
  np.testing.assert_array_equal(jnp.nancumprod(x), [1., 1., 2.])
  np.testing.assert_array_equal(jnp.cumsum(np.array([-1, 1, 0]), dtype=bool),
                                [True, True, True])
  np.testing.assert_array_equal(jnp.cumsum(3.), [3.])
  a = np.arange(3, dtype=np.int8)
  c = jnp.cumulative_sum(a)
  assert c.dtype == np.int32
  np.testing.assert_array_equal(jnp.cumulative_sum(a, include_initial=True), [0, 0, 1, 3])
  np.testing.assert_array_equal(jnp.cumulative_prod(np.arange(1, 4), include_initial=True),
                                [1, 1, 2, 6])
  m = np.arange(6., dtype=np.float32).reshape(2, 3)
  np.testing.assert_array_equal(jnp.cumulative_sum(m, axis=1, include_initial=True),
                                [[0, 0, 1, 3], [0, 3, 7, 12]])
  with pytest.raises(ValueError, match="axis was not set to an explicit value"):
    jnp.cumulative_sum(m)
  with pytest.raises(ValueError, match="must be non-scalar"):
    jnp.cumulative_sum(3)
  with pytest.raises(NotImplementedError, match="'out' argument"):
    jnp.cumsum(m, out=m)


# --- NaN-ignoring reductions ------------------------------------------------------------------

def test_nan_reductions():
  x = np.array([[1., np.nan, 3.], [np.nan, np.nan, np.nan]], np.float32)
  with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
    for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"):
      for axis in (None, 1):
        out = _both(getattr(jnp, name), x, axis=axis)
        np.testing.assert_allclose(out, getattr(np, name)(x, axis=axis), rtol=1e-6,
                                   equal_nan=True, err_msg=name)
  np.testing.assert_allclose(jnp.nanstd(np.array([1., np.nan, 3.]), ddof=1), np.sqrt(2.),
                             rtol=1e-6)
  np.testing.assert_array_equal(jnp.nanmax(x, axis=1, initial=0.), [3., 0.])
  np.testing.assert_array_equal(jnp.nanargmax(np.array([np.nan, 2., 1.])), 1)
  np.testing.assert_array_equal(jnp.nanargmin(np.array([np.nan, np.nan])), -1)
  np.testing.assert_array_equal(jnp.nanargmax(x, axis=1), [2, -1])
  i = np.arange(6, dtype=np.int8)
  assert jnp.nansum(i).dtype == np.int32 and jnp.nanmean(i).dtype == np.float32
  np.testing.assert_array_equal(jnp.nanargmax(i), 5)


# --- ptp, count_nonzero, average, median ------------------------------------------------------

def test_ptp_count_nonzero_average():
  x = np.arange(6., dtype=np.float32).reshape(2, 3)
  np.testing.assert_array_equal(_both(jnp.ptp, x, axis=1), [2., 2.])
  np.testing.assert_array_equal(jnp.ptp(x, keepdims=True), [[5.]])
  with pytest.raises(TypeError, match="sub does not accept dtype bool"):
    jnp.ptp(np.array([True, False]))
  c = _both(jnp.count_nonzero, x, axis=0)
  assert c.dtype == np.int32
  np.testing.assert_array_equal(c, [1, 2, 2])
  np.testing.assert_array_equal(jnp.count_nonzero(x, axis=0, keepdims=True), [[1, 2, 2]])
  w = np.array([1., 2., 3.], np.float32)
  np.testing.assert_allclose(jnp.average(x, axis=1, weights=w), np.average(x, axis=1,
                                                                          weights=w))
  avg, wsum = jnp.average(x, axis=1, weights=w, returned=True)
  np.testing.assert_array_equal(wsum, [6., 6.])
  avg, wsum = jnp.average(x, axis=0, returned=True)
  np.testing.assert_array_equal(wsum, [2., 2., 2.])
  assert jnp.average(np.arange(6, dtype=np.int8)).dtype == np.float32
  y = np.arange(24.).reshape(2, 3, 4)
  wy = np.arange(8.).reshape(4, 2)
  np.testing.assert_allclose(jnp.average(y, axis=(2, 0), weights=wy),
                             np.average(y, axis=(2, 0), weights=wy), rtol=1e-6)
  with pytest.raises(ValueError, match="Axis must be specified"):
    jnp.average(x, weights=np.array([1., 2.]))


def test_median():
  x = rng.normal(size=(3, 5)).astype(np.float32)
  for axis in (None, 0, 1, (0, 1)):
    for keepdims in (False, True):
      out = jnp.median(x, axis=axis, keepdims=keepdims)
      np.testing.assert_allclose(out, np.median(x, axis=axis, keepdims=keepdims), rtol=1e-6)
  y = np.arange(24.).reshape(2, 3, 4)
  np.testing.assert_allclose(jnp.median(y, axis=(0, 2)), np.median(y, axis=(0, 2)))
  assert jnp.median(np.arange(6, dtype=np.int8)).dtype == np.float32
  np.testing.assert_array_equal(jnp.median(np.array([1., np.nan])), np.nan)
  np.testing.assert_allclose(ember.jit(jnp.median)(x), np.median(x), rtol=1e-6)


# --- jaxprs -----------------------------------------------------------------------------------

def test_jaxprs_match_jax():
  mk = ember.make_jaxpr
  m = np.zeros((2, 3), np.float32)
  assert str(mk(jnp.sum)(m)) == (
      "{ lambda ; a:f32[2,3]. let\n"
      "    b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n  in (b,) }")
  assert str(mk(lambda x: jnp.sum(x, axis=1, keepdims=True))(m)) == (
      "{ lambda ; a:f32[2,3]. let\n"
      "    b:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n"
      "    c:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n  in (c,) }")
  assert str(mk(jnp.sum)(np.zeros(3, bool))) == (
      "{ lambda ; a:bool[3]. let\n"
      "    b:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
      "    c:i32[] = reduce_sum[axes=(0,) out_sharding=None] b\n  in (c,) }")
  assert str(mk(jnp.mean)(m)) == (
      "{ lambda ; a:f32[2,3]. let\n"
      "    b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n"
      "    c:f32[] = div b 6.0:f32[]\n  in (c,) }")
  assert str(mk(jnp.max)(np.zeros(3, bool))) == \
      "{ lambda ; a:bool[3]. let b:bool[] = reduce_max[axes=(0,)] a in (b,) }"
  assert "argmax[axes=(0,) index_dtype=int32]" in str(mk(jnp.argmax)(m))
  assert "cumsum[axis=1 reverse=False]" in str(mk(lambda x: jnp.cumsum(x, axis=1))(m))
  assert "name=_var" in str(mk(jnp.var)(m))


# --- x64 --------------------------------------------------------------------------------------

@pytest.fixture
def x64():
  old = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  try:
    yield
  finally:
    config.update("jax_enable_x64", old)


def test_x64_reductions(x64):
  assert jnp.sum(np.arange(3, dtype=np.int8)).dtype == np.int64
  assert jnp.sum(np.arange(3, dtype=np.uint8)).dtype == np.uint64
  assert jnp.mean(np.arange(3)).dtype == np.float64
  assert jnp.argmax(np.arange(3.)).dtype == np.int64
  np.testing.assert_array_equal(jnp.sum(np.full(3, 2 ** 40)), 3 * 2 ** 40)
