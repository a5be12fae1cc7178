"""Tests for ember.numpy set operations (setops.py) and unique (counting.py) against NumPy,
eagerly and with static ``size=`` under jit."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.core.errors import ConcretizationTypeError
from tests.batch_checks import check_batch

rng = np.random.default_rng(1)
A = rng.integers(0, 8, 12).astype(np.int32)
B = rng.integers(4, 12, (2, 4)).astype(np.int32)
F = np.array([3., np.nan, 1., 3., np.nan, -0.5], np.float32)


_CANON = {np.dtype("int64"): np.dtype("int32"), np.dtype("float64"): np.dtype("float32")}


def same(got, want, dtype=None):
  want = np.asarray(want)
  dtype = dtype or _CANON.get(want.dtype, want.dtype)
  assert got.dtype == dtype, (got.dtype, dtype)
  np.testing.assert_array_equal(np.asarray(got), want)


def padded(want, size, fill):
  want = np.asarray(want)[:size]
  return np.concatenate([want, np.full(size - len(want), fill, want.dtype)])


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_])
def test_unique_matches_numpy(dtype):
  a = A.reshape(3, 4).astype(dtype)
  got = jnp.unique(a, return_index=True, return_inverse=True, return_counts=True)
  want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
  for g, w in zip(got, want):
    same(g, w, None if w.dtype.kind in "bf" or w.dtype == dtype else np.int32)
  rows = np.array([[1, 2], [0, 5], [1, 2], [0, 1]], np.int32)
  for axis in (0, 1):
    got = jnp.unique(rows, axis=axis, return_index=True, return_inverse=True,
                     return_counts=True)
    want = np.unique(rows, axis=axis, return_index=True, return_inverse=True,
                     return_counts=True)
    for g, w in zip(got, want):
      same(g, np.asarray(w).reshape(g.shape), np.int32)


def test_unique_size_under_jit():
  f = ember.jit(lambda a: jnp.unique(a, return_index=True, return_inverse=True,
                                     return_counts=True, size=10, fill_value=-1))
  vals, idx, inv, counts = f(A)
  uv, ui, uinv, uc = np.unique(A, return_index=True, return_inverse=True, return_counts=True)
  same(vals, padded(uv, 10, -1))
  same(idx, padded(ui, 10, ui[0]).astype(np.int32))
  same(inv, uinv.astype(np.int32))
  same(counts, padded(uc, 10, 0).astype(np.int32))
  same(ember.jit(lambda a: jnp.unique(a, size=2))(A), uv[:2])
  same(jnp.unique(F), np.unique(F))
  same(jnp.unique(F, equal_nan=False), np.unique(F, equal_nan=False))
  same(jnp.unique_counts(A).counts, uc.astype(np.int32))
  same(jnp.unique(jnp.zeros((0,)), size=2, fill_value=1.), np.ones(2, np.float32))
  with pytest.raises(ValueError, match="fill_value must be specified"):
    jnp.unique(jnp.zeros((0,)), size=2)
  with pytest.raises(ConcretizationTypeError, match="static `size`"):
    ember.jit(jnp.unique)(A)
  check_batch(lambda a: jnp.unique(a, size=6, fill_value=0), [A.reshape(3, 4)])


@pytest.mark.parametrize("a,b", [(A, B), (F, F[::-2]), (A, F), (A[:0], B)])
def test_set_operations_match_numpy(a, b):
  same(jnp.union1d(a, b), np.union1d(a, b))
  same(jnp.setdiff1d(a, b), np.setdiff1d(a, b).astype(a.dtype))
  same(jnp.setxor1d(a, b), np.setxor1d(a, b))
  got = jnp.intersect1d(a, b, return_indices=True)
  want = np.intersect1d(a, b, return_indices=True)
  same(got[0], want[0])
  for g, w in zip(got[1:], want[1:]):
    same(g, w.astype(np.int32))
  same(jnp.isin(a, b), np.isin(a, b))
  same(jnp.isin(b, a, invert=True, method="sort"), np.isin(b, a, invert=True))


def test_set_operations_assume_unique():
  a, b = np.array([5, 1, 3, 9], np.int32), np.array([3, 8, 5], np.int32)
  same(jnp.setdiff1d(a, b, assume_unique=True), np.setdiff1d(a, b, assume_unique=True))
  same(jnp.setxor1d(a, b, assume_unique=True), np.setxor1d(a, b, assume_unique=True))
  same(jnp.intersect1d(a, b, assume_unique=True), np.intersect1d(a, b, assume_unique=True))


def test_set_operations_size_under_jit():
  ops = {
      "union1d": (jnp.union1d, np.union1d, None),
      "setxor1d": (jnp.setxor1d, np.setxor1d, None),
      "intersect1d": (jnp.intersect1d, np.intersect1d, None),
      "setdiff1d": (jnp.setdiff1d, np.setdiff1d, 0),
  }
  for name, (fn, np_fn, default) in ops.items():
    want = np_fn(A, B)
    got = ember.jit(lambda a, b, fn=fn: fn(a, b, size=9))(A, B)
    same(got, padded(want, 9, want[0] if default is None and len(want) else 0), np.int32)
    same(ember.jit(lambda a, b, fn=fn: fn(a, b, size=2, fill_value=-7))(A, B), want[:2])
    with pytest.raises(ConcretizationTypeError, match=name):
      ember.jit(fn)(A, B)
  vals, i1, i2 = jnp.intersect1d(A, B, return_indices=True, size=8, fill_value=-1)
  v, w1, w2 = np.intersect1d(A, B, return_indices=True)
  same(vals, padded(v, 8, -1))
  same(i1, padded(w1, 8, A.size).astype(np.int32))
  same(i2, padded(w2, 8, B.size).astype(np.int32))


def test_isin_methods_and_errors():
  e = rng.integers(0, 20, (3, 5))
  t = rng.integers(0, 20, 7)
  for method in ("compare_all", "binary_search", "sort", "auto"):
    same(ember.jit(lambda x, y, m=method: jnp.isin(x, y, method=m))(e, t), np.isin(e, t))
  same(jnp.isin(3, jnp.array([2, 3])), np.True_)
  same(jnp.isin(e, np.zeros((0,), np.int32)), np.zeros(e.shape, bool))
  with pytest.raises(ValueError, match="method='bad' is not implemented"):
    jnp.isin(e, t, method="bad")
  with pytest.raises(TypeError, match="isin requires ndarray or scalar arguments"):
    jnp.isin(e, [1, 2])
  check_batch(lambda x, y: jnp.isin(x, y), [e, np.stack([t, t + 1, t - 1])])
