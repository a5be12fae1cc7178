"""Tests for ember.random's keys and bits: the threefry2x32 primitive, JAX's golden values (x64
off and on), split/fold_in/bits, typed keys, errors, and the samplers under jit, vmap and grad.

Statistical tests of the samplers are in test_random_samplers.py.
"""
import json
import pathlib

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import random
from ember.random import _prng
from tests.batch_checks import check_batch

# Values computed with JAX 0.10.2: shared/ sits beside the checkout (as in CI).
_GOLDEN_PATH = next((p for p in (pathlib.Path(__file__).resolve().parents[2] / "shared",
                                 pathlib.Path("/work/shared"))
                     if (p / "golden/random.json").exists()),
                    pathlib.Path("/work/shared")) / "golden/random.json"
GOLDEN = json.loads(_GOLDEN_PATH.read_text()) if _GOLDEN_PATH.exists() else {}

_U32 = np.uint32


# --- the threefry2x32 primitive ---------------------------------------------------------------

def _threefry_reference(k1, k2, x1, x2):
  """Random123's Threefry-2x32 (20 rounds) in NumPy, written from the specification."""
  def rot(v, r):
    return (v << _U32(r)) | (v >> _U32(32 - r))

  ks = [k1, k2, k1 ^ k2 ^ _U32(0x1BD11BDA)]
  x = [x1 + ks[0], x2 + ks[1]]
  for i in range(5):
    for r in [(13, 15, 26, 6), (17, 29, 16, 24)][i % 2]:
      x[0] = x[0] + x[1]
      x[1] = rot(x[1], r) ^ x[0]
    x[0] = x[0] + ks[(i + 1) % 3]
    x[1] = x[1] + ks[(i + 2) % 3] + _U32(i + 1)
  return x


@pytest.mark.parametrize("key, count, expected", [  # Random123's known-answer vectors
    ((0, 0), (0, 0), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
    ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0)),
])
def test_threefry_known_answers(key, count, expected):
  out = _prng.threefry_2x32(*(_U32(v) for v in key + count))
  assert [int(w) for w in out] == list(expected)


def test_threefry_matches_reference_with_broadcasting():
  rng = np.random.RandomState(0)
  k1, k2 = _U32(rng.randint(2 ** 32, dtype=np.uint64)), _U32(7)
  x1, x2 = (rng.randint(2 ** 32, size=(3, 4), dtype=np.uint64).astype(_U32) for _ in range(2))
  with np.errstate(over="ignore"):
    want = _threefry_reference(k1, k2, x1, x2)
  got = ember.jit(_prng.threefry_2x32)(k1, k2, x1, x2)
  for g, w in zip(got, want):
    assert g.dtype == np.uint32 and g.shape == (3, 4)
    np.testing.assert_array_equal(g, w)


def test_threefry_rejects_other_dtypes():
  with pytest.raises(TypeError, match="threefry2x32 requires uint32 arguments"):
    _prng.threefry_2x32(_U32(0), _U32(0), np.int32(1), _U32(1))


@pytest.mark.parametrize("in_axes", [(None, None, 0, 1), (1, 0, None, 0)])
def test_threefry_batch_rule(in_axes):
  rng = np.random.RandomState(1)
  words = [rng.randint(2 ** 32, size=(3, 3), dtype=np.uint64).astype(_U32) for _ in range(4)]
  args = [w[0] if ax is None else w for w, ax in zip(words, in_axes)]
  check_batch(lambda *a: _prng.threefry_2x32(*a), args, in_axes, rtol=0, atol=0)


def test_wide_counters_match_flat_indices():
  """The >= 2**32-element path (16-bit limb arithmetic) agrees with the flat indices."""
  hi, lo = ember.jit(lambda: _prng._iota_2x32_wide((3, 5, 2)))()
  np.testing.assert_array_equal(np.asarray(hi), np.zeros((3, 5, 2), np.uint32))
  np.testing.assert_array_equal(np.asarray(lo), np.arange(30, dtype=np.uint32).reshape(3, 5, 2))
  a = np.array([0, 1, 0xFFFF, 0x10000, 0xFFFFFFFF, 123456789], _U32)
  for b in (0xFFFFFFFF, 0x12345678):
    hi, lo = ember.jit(lambda a, b=b: _prng._mul_wide(a, b))(a)
    full = a.astype(np.uint64) * np.uint64(b)
    np.testing.assert_array_equal(np.asarray(hi), (full >> np.uint64(32)).astype(_U32))
    np.testing.assert_array_equal(np.asarray(lo), full.astype(_U32))


# --- golden values from JAX -------------------------------------------------------------------

_SPECIAL = {  # golden names that are not plain expressions
    "categorical(PRNGKey(42), log([.1,.2,.7]), shape=(6,))": lambda: random.categorical(
        random.PRNGKey(42), jnp.log(jnp.array([.1, .2, .7])), shape=(6,)),
    "choice(PRNGKey(42), 5, (4,), p=[.1,.2,.3,.2,.2])": lambda: random.choice(
        random.PRNGKey(42), 5, (4,), p=jnp.array([.1, .2, .3, .2, .2])),
    "vmap(normal)(split(PRNGKey(1), 3))": lambda: ember.vmap(
        lambda k: random.normal(k, (2,)))(random.split(random.PRNGKey(1), 3)),
    "jit(uniform)(PRNGKey(3), (3,))": lambda: ember.jit(random.uniform, static_argnums=1)(
        random.PRNGKey(3), (3,)),
}
_NAMESPACE = dict(vars(random), jnp=jnp, arange=jnp.arange, zeros=jnp.zeros, bfloat16=jnp.bfloat16,
                  float16=np.float16, float64=np.float64, int64=np.int64, uint8=np.uint8,
                  uint16=np.uint16)


def _golden_params():
  for mode in ("x64_off", "x64_on"):
    for name in GOLDEN.get(mode, {}):
      yield pytest.param(mode, name, id=f"{mode}-{name}")


@pytest.mark.skipif(not GOLDEN, reason=f"golden file not found at {_GOLDEN_PATH}")
@pytest.mark.parametrize("mode, name", list(_golden_params()))
def test_golden(mode, name):
  case = GOLDEN[mode][name]
  with ember.enable_x64(mode == "x64_on"):
    out = _SPECIAL[name]() if name in _SPECIAL else eval(name, _NAMESPACE)
    got = np.asarray(random.key_data(out) if isinstance(out, random.PRNGKeyArray) else out)
  if got.dtype == jnp.bfloat16:  # stored as float32
    got = got.astype(np.float32)
  assert (str(got.dtype), list(got.shape)) == (case["dtype"], case["shape"])
  want = np.asarray(case["data"], np.float64 if got.dtype.kind == "f" else got.dtype)
  np.testing.assert_array_equal(got.astype(want.dtype), want)


# --- keys, split, fold_in, bits ----------------------------------------------------------------

def test_seeds_python_and_numpy(x64):
  assert random.PRNGKey(np.uint32(7)).tolist() == [0, 7]
  assert random.PRNGKey(np.int8(-1)).tolist() == [0, 0xFFFFFFFF]
  assert random.PRNGKey(True).tolist() == [0, 1]
  assert random.PRNGKey(np.int64(-5)).tolist() == [0xFFFFFFFF, 0xFFFFFFFB]
  assert random.PRNGKey(jnp.array(2 ** 33 + 1, jnp.int64)).tolist() == [2, 1]


def test_seed_truncated_without_x64():
  assert random.PRNGKey(2 ** 33 + 1).tolist() == [0, 1]  # read as int64, cut to int32
  with pytest.raises(OverflowError):
    random.PRNGKey(2 ** 63)


def test_split_shapes_and_consistency():
  key = random.PRNGKey(3)
  assert random.split(key, 0).shape == (0, 2)
  # The counters are flat indices: a split's keys are a prefix of a larger split's.
  np.testing.assert_array_equal(random.split(key, [2, 2]).reshape(4, 2)[:3], random.split(key, 3))
  np.testing.assert_array_equal(random.bits(key, (2, 3)).ravel()[:4], random.bits(key, (4,)))


def test_unrolled_and_looped_ciphers_agree():
  """Large outputs lower the cipher unrolled, small ones as a loop: the bits are the same."""
  key, n = random.PRNGKey(8), _prng.UNROLL_MIN_SIZE
  np.testing.assert_array_equal(random.split(key, n)[:4], random.split(key, 4))
  np.testing.assert_array_equal(random.bits(key, (n,))[-3:], ember.jit(
      lambda k: _prng.threefry_random_bits(k, bit_width=32, shape=(n,)))(key)[-3:])
  words = ember.jit(lambda k: _prng.threefry_2x32(k[0], k[1], np.uint32(0),
                                                  jnp.arange(5, dtype=jnp.uint32), unroll=False))
  np.testing.assert_array_equal(np.stack(words(key), -1), random.split(key, 5))


def test_fold_in_data_conversion():
  key = random.PRNGKey(0)
  same = [random.fold_in(key, d) for d in (5, np.int32(5), jnp.array(5, jnp.uint8), 5.7)]
  for k in same[1:]:
    np.testing.assert_array_equal(k, same[0])
  with pytest.raises(OverflowError, match="out of bounds for uint32"):
    random.fold_in(key, -1)


def test_bits_dtypes(x64):
  key = random.PRNGKey(1)
  for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
    assert random.bits(key, (3,), dt).dtype == dt
  assert random.bits(key).dtype == np.uint64


def test_reusing_a_key_repeats_and_new_keys_differ():
  key = random.PRNGKey(0)
  np.testing.assert_array_equal(random.normal(key, (4,)), random.normal(key, (4,)))
  k1, k2 = random.split(key)
  assert not np.array_equal(random.normal(k1, (4,)), random.normal(k2, (4,)))
  assert not np.array_equal(random.normal(key, (4,)), random.normal(k1, (4,)))


def test_split_and_fold_in_streams_are_uncorrelated():
  key, n = random.PRNGKey(0), 4096
  # fold_in(key, i) encrypts counter i, as split does for its i-th key (in JAX too).
  np.testing.assert_array_equal(random.fold_in(key, 2), random.split(key, 3)[2])
  keys = list(random.split(key, 3)) + [random.fold_in(key, i) for i in (10, 11)]
  xs = [np.asarray(random.normal(k, (n,))) for k in keys]
  corr = np.corrcoef(np.stack(xs))
  assert np.max(np.abs(corr - np.eye(len(xs)))) < 4 / np.sqrt(n)


# --- typed keys -------------------------------------------------------------------------------

def test_typed_key_array_api():
  key = random.key(0)
  assert (key.shape, key.ndim, key.size, key.itemsize, str(key.dtype)) == ((), 0, 1, 8, "key<fry>")
  assert jnp.issubdtype(key.dtype, ember.dtypes.prng_key)
  assert repr(key) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
  keys = random.split(key, 4)
  assert isinstance(keys, random.PRNGKeyArray) and keys.shape == (4,) and len(keys) == 4
  grid = keys.reshape(2, -1)
  assert grid.shape == (2, 2) and grid.T.shape == (2, 2)
  np.testing.assert_array_equal(random.key_data(grid[..., 1]), random.key_data(keys[1::2]))
  np.testing.assert_array_equal(random.key_data(grid.T[1, 0]), random.key_data(keys[1]))
  assert [random.key_data(k).tolist() for k in keys] == random.key_data(keys).tolist()
  np.testing.assert_array_equal(keys == keys[::-1], [False] * 4)
  assert bool(keys[2] == random.wrap_key_data(random.key_data(keys))[2])
  assert random.key_impl(keys) == random.key_impl(random.PRNGKey(0)) == "threefry2x32"
  assert random.key_dtype() == key.dtype


def test_typed_keys_in_and_out_of_functions():
  key = random.key(5)
  for fn in (random.split, lambda k: random.fold_in(k, 3), random.clone):
    out = fn(random.clone(key))  # a fresh copy each time: the key reuse checker is on
    assert isinstance(out, random.PRNGKeyArray)
    np.testing.assert_array_equal(random.key_data(out), fn(random.key_data(key)))
  np.testing.assert_array_equal(random.normal(key, (3,)), random.normal(random.key_data(key), (3,)))
  assert ember.tree_util.tree_leaves(key)[0].dtype == np.uint32  # a pytree of its data
  out = ember.jit(lambda k: random.split(k, 3))(key)
  assert isinstance(out, random.PRNGKeyArray) and out.shape == (3,)
  assert isinstance(ember.device_put(key), random.PRNGKeyArray)


def test_vmap_over_typed_keys():
  keys = random.split(random.key(0), 3)
  got = ember.vmap(lambda k: random.uniform(k, (2,)))(keys)
  want = np.stack([random.uniform(k, (2,)) for k in keys])
  np.testing.assert_array_equal(got, want)
  assert ember.vmap(random.split)(random.clone(keys)).shape == (3, 2)


# --- errors (JAX's messages) ------------------------------------------------------------------

@pytest.mark.parametrize("fn, exc, match", [
    (lambda: random.normal(0), TypeError, "expected key_data to have ndim, shape, and dtype"),
    (lambda: random.normal(np.uint32(3)), TypeError, r"expected key_data.ndim >= 1; got ndim=0"),
    (lambda: random.normal(jnp.zeros(3, jnp.uint32)), TypeError,
     r"shape to end with \(2,\); got shape=\(3,\) for impl=PRNGImpl\(key_shape=\(2,\)"),
    (lambda: random.uniform(jnp.zeros(2, jnp.float32)), TypeError,
     "expected key_data.dtype = uint32; got dtype=float32"),
    (lambda: random.normal([0, 0]), TypeError, "unexpected PRNG key type <class 'list'>"),
    (lambda: random.split(random.split(random.PRNGKey(0))), ValueError,
     (r"split accepts a single key, but was given a key array of shape \(2, 2\) != \(\)\. "
      "Use jax.vmap for batching.")),
    (lambda: random.normal(random.split(random.key(0))), ValueError,
     r"normal accepts a single key, but was given a key array of shape \(2,\)"),
    (lambda: random.fold_in(random.PRNGKey(0), jnp.arange(3)), TypeError,
     "fold_in accepts a scalar, but was given an array ofshape"),
    (lambda: random.PRNGKey(jnp.zeros(2)), TypeError,
     r"PRNGKey accepts a scalar seed, but was given an array of shape \(2,\)"),
    (lambda: random.key(1.5), TypeError, "PRNG key seed must be an integer"),
    (lambda: random.key(0, impl="foo"), ValueError, 'unrecognized PRNG implementation "foo"'),
    (lambda: random.key(0, impl="philox4x32"), NotImplementedError,
     "threefry2x32, rbg and unsafe_rbg PRNGs, not 'philox4x32'"),
    (lambda: random.key(0, impl=3), TypeError, "unrecognized type <class 'int'>"),
    (lambda: random.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg"), TypeError,
     r"expected key_data.shape to end with \(4,\); got shape=\(2,\)"),
    (lambda: random.wrap_key_data(jnp.zeros(2, jnp.int32)), TypeError, "dtype = uint32"),
    (lambda: random.split(random.PRNGKey(0), -1), ValueError, "non-negative dimensions"),
    (lambda: random.bits(random.PRNGKey(0), (2,), jnp.int32), ValueError,
     "dtype argument to `bits` must be an unsigned int dtype, got int32"),
])
def test_key_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


# --- transforms of the samplers ---------------------------------------------------------------

_SAMPLERS = {  # one call per sampler, keyed by name, on a raw key
    "uniform": lambda k: random.uniform(k, (3,), minval=-1., maxval=2.),
    "normal": lambda k: random.normal(k, (3,)),
    "normal_c64": lambda k: random.normal(k, (2,), jnp.complex64),
    "randint": lambda k: random.randint(k, (3,), -5, 5),
    "categorical": lambda k: random.categorical(k, jnp.array([0., 1., 2.]), shape=(3,)),
    "choice": lambda k: random.choice(k, 6, (3,), replace=False),
    "choice_p": lambda k: random.choice(k, 3, (4,), p=jnp.array([.2, .3, .5])),
    "permutation": lambda k: random.permutation(k, jnp.arange(5.)),
    "wald": lambda k: random.wald(k, 1.5, (3,)),
    "bits": lambda k: random.bits(k, (3,), jnp.uint16),
    "split": lambda k: random.split(k, 3),
    "fold_in": lambda k: random.fold_in(k, 9),
}


@pytest.mark.parametrize("name", list(_SAMPLERS))
def test_jit_equals_eager(name):
  fn, key = _SAMPLERS[name], random.PRNGKey(11)
  np.testing.assert_array_equal(ember.jit(fn)(key), fn(key))


@pytest.mark.parametrize("name", ["normal", "randint", "permutation", "split", "fold_in",
                                  "categorical"])
def test_vmap_over_keys_equals_loop(name):
  check_batch(_SAMPLERS[name], [random.split(random.PRNGKey(2), 3)], rtol=0, atol=0, jit=False)


def test_vmap_over_keys_on_axis_1_and_of_parameters():
  keys = random.split(random.PRNGKey(4), 3)
  check_batch(lambda k: random.normal(k, (2,)), [keys.T], in_axes=1, rtol=0, atol=0, jit=False)
  check_batch(lambda d: random.fold_in(keys[0], d), [jnp.arange(3)], rtol=0, atol=0, jit=False)
  check_batch(lambda lo: random.uniform(keys[0], (2,), minval=lo), [jnp.arange(3.)], rtol=0,
              atol=0, jit=False)


def test_nested_vmap_over_a_grid_of_keys():
  keys = random.split(random.PRNGKey(5), (2, 3))
  got = ember.vmap(ember.vmap(random.uniform))(keys)
  np.testing.assert_array_equal(got, [[random.uniform(k) for k in row] for row in keys])


def test_grad_through_samplers():
  key = random.PRNGKey(0)
  n = random.normal(key, (3,))
  g = ember.grad(lambda mu, s: jnp.sum(mu + s * random.normal(key, (3,))), argnums=(0, 1))(0., 2.)
  np.testing.assert_allclose(g, (3., float(jnp.sum(n))), rtol=1e-6)
  u = random.uniform(key, (3,))
  g = ember.grad(lambda lo, hi: jnp.sum(random.uniform(key, (3,), minval=lo, maxval=hi)),
                 argnums=(0, 1))(1., 3.)
  np.testing.assert_allclose(g, (float(jnp.sum(1 - u)), float(jnp.sum(u))), rtol=1e-6)


def test_out_sharding_takes_only_none_or_the_empty_mesh():
  key = random.key(0)
  assert random.normal(key, (2,), out_sharding=None).shape == (2,)
  unsharded = ember.typeof(jnp.zeros(2)).sharding  # a NamedSharding over the empty mesh
  np.testing.assert_array_equal(random.normal(key, (2,), out_sharding=unsharded),
                                random.normal(key, (2,)))
  with pytest.raises(TypeError, match="`out_sharding` argument of normal only supports"):
    random.normal(key, (2,), out_sharding="x")
  with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh"):
    random.uniform(key, (2,), out_sharding=ember.P())
  mesh = ember.make_mesh((1,), ("i",))
  with pytest.raises(NotImplementedError, match=r"uniform\(out_sharding=NamedSharding"):
    random.uniform(key, (2,), out_sharding=ember.NamedSharding(mesh, ember.P()))
  with pytest.raises(NotImplementedError, match="segment_sum"):
    ember.ops.segment_sum(jnp.ones(2), jnp.array([0, 1]), 2,
                          out_sharding=ember.NamedSharding(mesh, ember.P()))


def test_t_and_f_shapes_default_to_the_parameters():
  key = random.key(0)
  assert random.t(key, jnp.array([1.0, 2.0, 3.0])).shape == (3,)
  assert random.f(key, jnp.array([1.0, 2.0]), 3.0).shape == (2,)
  np.testing.assert_allclose(np.asarray(random.t(key, jnp.array([1.0, 2.0, 3.0]))),
                             [1.380544, -7.017804, -1.6745249], rtol=1e-5)  # JAX 0.10.2's


def test_wrap_key_data_takes_a_key_dtype():
  k = random.key(3)
  again = random.wrap_key_data(random.key_data(k), dtype=k.dtype)
  assert again.dtype == k.dtype and bool(again == k)
  with pytest.raises(ValueError, match="Cannot specify both `impl` and `dtype`"):
    random.wrap_key_data(random.key_data(k), impl="threefry2x32", dtype=k.dtype)
