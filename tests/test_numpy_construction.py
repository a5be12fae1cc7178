"""ember.numpy.construction (block, r_/c_/mgrid/ogrid, host-side io, print options) and the
narrow ml_dtypes scalar types, against NumPy and JAX's documented behaviour."""
import io

import ml_dtypes
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.dtypes import TypePromotionError


def _same(x, want):
  np.testing.assert_array_equal(np.asarray(x), np.asarray(want))
  assert np.asarray(x).shape == np.shape(want)


# --- block --------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda m: [[m.ones((2, 2)), m.zeros((2, 1))], [m.full((1, 3), 7.0)]],
    lambda m: [m.arange(3.0), 5.0, m.arange(2.0)],
    lambda m: [[[m.ones(2)], [m.zeros(2)]]],
    lambda m: [[1.0, 2.0], [3.0, 4.0]],
    lambda m: m.arange(4.0),
])
def test_block_matches_numpy(case):
  _same(jnp.block(case(jnp)), np.block(case(np)))


def test_block_under_jit_and_dtypes():
  out = ember.jit(lambda x, y: jnp.block([[x, y], [y, x]]))(jnp.ones((1, 2)), jnp.zeros((1, 2)))
  _same(out, np.block([[np.ones((1, 2)), np.zeros((1, 2))], [np.zeros((1, 2)), np.ones((1, 2))]]))
  assert jnp.block([1, 2.5]).dtype == jnp.float32 and jnp.block([1, 2.5]).weak_type


@pytest.mark.parametrize("arg, msg", [
    ([], "does not allow empty list arguments"),
    ([[1, 2], 3], "Mismatched list depths"),
    (([1, 2],), "does not allow tuples"),
])
def test_block_errors(arg, msg):
  with pytest.raises(ValueError, match=msg):
    jnp.block(arg)


# --- r_, c_, mgrid, ogrid ------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    lambda m: m.r_[1:4, 0, m.array([7, 8])],
    lambda m: m.r_[-1:1:6j, [0] * 3, 5, 6],
    lambda m: m.r_["0,2", [1, 2], [3, 4]],
    lambda m: m.r_["1,2,0", [1, 2], [3, 4]],
    lambda m: m.r_["-1", m.ones((2, 2)), m.zeros((2, 1))],
    lambda m: m.c_[m.array([1, 2, 3]), m.array([4, 5, 6])],
    lambda m: m.c_[m.array([[1, 2, 3]]), 0, 0, m.array([[4, 5, 6]])],
    lambda m: m.mgrid[0:2, 0:3],
    lambda m: m.mgrid[0:1:5j],
    lambda m: m.mgrid[0:2, 0:1:3j],
    lambda m: m.mgrid[-1:2:2],
])
def test_index_tricks_match_numpy(key):
  want = key(np)
  got = key(jnp)
  np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
  assert np.asarray(got).shape == want.shape


def test_ogrid_and_matrix_directives():
  ys, xs = jnp.ogrid[0:2, 0:1:3j]
  assert ys.shape == (2, 1) and xs.shape == (1, 3) and ys.dtype == xs.dtype == jnp.float32
  _same(jnp.ogrid[0:3], np.arange(3))
  _same(jnp.r_["r", [1, 2]], [[1, 2]])
  _same(jnp.r_["c", [1, 2]], [[1], [2]])
  # JAX's rule (NumPy differs) for n-d pieces with trans1d >= 0:
  assert jnp.r_["0,3,0", jnp.ones((2, 3))].shape == (3, 1, 2)
  assert jnp.r_[1, 2].weak_type and jnp.mgrid[0:2].dtype == jnp.int32


def test_index_trick_errors():
  with pytest.raises(ValueError, match="could not understand directive 'x'"):
    jnp.r_["x", 1]
  with pytest.raises(ValueError, match="must be placed at the beginning"):
    jnp.r_[1, "0"]


# --- io and print options --------------------------------------------------------------------

def test_fromstring_load_save_savez():
  _same(jnp.fromstring("1 2 3.5", sep=" "), [1, 2, 3.5])
  assert jnp.fromstring("1,2", dtype=int, sep=",").dtype == jnp.int32
  f = io.BytesIO()
  jnp.save(f, jnp.array([1.0, 2.0], jnp.bfloat16))
  f.seek(0)
  loaded = jnp.load(f)
  assert isinstance(loaded, ember.Array) and loaded.dtype == jnp.bfloat16
  f = io.BytesIO()
  jnp.savez(f, a=jnp.arange(3))
  f.seek(0)
  _same(jnp.load(f)["a"], np.arange(3))


@pytest.mark.parametrize("fn", [jnp.fromiter, jnp.fromfile])
def test_impure_readers_raise(fn):
  with pytest.raises(NotImplementedError, match="may be non-pure"):
    fn(iter([1, 2]), float)


def test_printoptions_drive_array_printing():
  x = jnp.array([1 / 3])
  with jnp.printoptions(precision=2):
    assert str(x) == "[0.33]" and jnp.get_printoptions()["precision"] == 2
  assert jnp.get_printoptions()["precision"] == 8
  old = jnp.get_printoptions()
  try:
    jnp.set_printoptions(precision=3)
    assert repr(x) == "Array([0.333], dtype=float32)"
  finally:
    jnp.set_printoptions(**old)


# --- narrow dtypes -----------------------------------------------------------------------------

_NARROW = ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int2", "int4",
           "uint2", "uint4"]


@pytest.mark.parametrize("name", _NARROW)
def test_narrow_scalar_types(name):
  t = getattr(jnp, name)
  dt = np.dtype(getattr(ml_dtypes, name))
  one = t(1)
  assert one.dtype == dt and float(one) == 1.0
  x = jnp.ones(3, t)
  assert x.dtype == dt and (x + 1).dtype == dt
  _same(ember.jit(lambda v: v * v)(x).astype(jnp.float32), [1.0, 1.0, 1.0])
  assert jnp.issubdtype(t, jnp.floating if name.startswith("float") else jnp.integer)


def test_narrow_types_promote_only_with_themselves():
  with pytest.raises(TypePromotionError, match="4-bit integers do not support implicit"):
    jnp.promote_types(jnp.int4, jnp.int8)
  with pytest.raises(TypePromotionError, match="8-bit floats do not support implicit"):
    jnp.ones(2, jnp.float8_e4m3fn) + jnp.ones(2, jnp.float32)
  assert jnp.promote_types(jnp.float4_e2m1fn, jnp.int8) == np.dtype(ml_dtypes.float4_e2m1fn)
  assert str(ember.make_jaxpr(lambda v: v * 2)(jnp.ones(2, jnp.int4))) == \
      "{ lambda ; a:i4[2]. let b:i4[2] = mul a 2:i4[] in (b,) }"
