"""Tests for ember.numpy sorting/searching (sorting.py) and selection, comparison and counting
helpers (misc.py) against NumPy."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.core.errors import ConcretizationTypeError

_CANON = {np.dtype("int64"): np.dtype("int32"), np.dtype("float64"): np.dtype("float32"),
          np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64")}

rng = np.random.default_rng(2)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)
XI = rng.integers(-5, 5, (2, 3, 4)).astype(np.int32)
XN = np.array([3., np.nan, -0., 0., -np.inf, 1., np.inf, np.nan, 1.], np.float32)


def _compare(got, expected, dtype=None, exact=False):
  if isinstance(expected, (list, tuple)):
    assert isinstance(got, (list, tuple)) and len(got) == len(expected), (got, expected)
    for g, e in zip(got, expected):
      _compare(g, e, dtype, exact)
    return
  assert isinstance(got, ember.Array), type(got)
  expected = np.asarray(expected)
  want = np.dtype(dtype) if dtype is not None else _CANON.get(expected.dtype, expected.dtype)
  assert got.dtype == want, (got.dtype, want)
  assert got.shape == expected.shape, (got.shape, expected.shape)
  if exact or not np.issubdtype(want, np.inexact):
    np.testing.assert_array_equal(np.asarray(got), expected.astype(want))
  else:
    np.testing.assert_allclose(np.asarray(got), expected.astype(want), rtol=1e-5, atol=1e-5)


def check(fn, np_fn, *args, dtype=None, jit=True, exact=False):
  expected = np_fn(*args)
  _compare(fn(*args), expected, dtype, exact)
  if jit:
    _compare(ember.jit(fn)(*args), expected, dtype, exact)


# --- sort / argsort -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16, np.bool_])
def test_sort_argsort(dtype):
  a = (rng.standard_normal((3, 5)) * 5).astype(dtype)
  check(jnp.sort, np.sort, a)
  check(jnp.argsort, lambda p: np.argsort(p, kind="stable"), a)
  check(lambda p: jnp.sort(p, axis=0, descending=True), lambda p: np.flip(np.sort(p, 0), 0), a)
  # stable descending: equal keys keep their original order
  check(lambda p: jnp.argsort(p, axis=0, descending=True),
        lambda p: np.argsort(-p.astype(np.float64), axis=0, kind="stable"), a)


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_sort_axes(axis):
  check(lambda p: jnp.sort(p, axis), lambda p: np.sort(p, axis), X)
  check(lambda p: jnp.argsort(p, axis), lambda p: np.argsort(p, axis, kind="stable"), XI)


def test_sort_special_values():
  # NaNs last; -0. and 0. compare equal, so the stable sort keeps their order (as in JAX)
  got = np.asarray(jnp.sort(XN))
  np.testing.assert_array_equal(got, np.sort(XN))
  assert np.signbit(got[1]) and not np.signbit(got[2])
  assert np.signbit(np.asarray(jnp.sort(jnp.array([0.0, -0.0]))))[1]
  check(jnp.argsort, lambda p: np.array([4, 2, 3, 5, 8, 0, 6, 1, 7]), XN)
  c = np.array([1 + 2j, 1 - 1j, 0 + 5j, 1 - 3j], np.complex64)
  check(jnp.sort, np.sort, c)
  check(jnp.sort_complex, np.sort_complex, XI[0])
  check(jnp.sort, np.sort, np.zeros((2, 0), np.float32))


def test_sort_errors():
  with pytest.raises(TypeError, match="'kind' argument to sort is not supported"):
    jnp.sort(jnp.ones(3), kind="heapsort")
  with pytest.raises(TypeError, match="'order' argument to argsort is not supported"):
    jnp.argsort(jnp.ones(3), order="a")
  with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
    jnp.sort(jnp.float32(3))


def test_lexsort_partition():
  keys = (XI[0, 0], XI[1, 0] % 2)
  check(jnp.lexsort, np.lexsort, keys)
  check(jnp.lexsort, np.lexsort, XI[:, 0])
  check(lambda k0, k1: jnp.lexsort((k0, k1), axis=0), lambda k0, k1: np.lexsort((k0, k1), 0),
        XI[0], XI[1])
  for k in (0, 2, -1):
    s = np.sort(X, -1)
    kk = k % 4
    check(lambda p, k=k: jnp.partition(p, k),
          lambda p: np.concatenate([s[..., :kk + 1], s[..., kk + 1:][..., ::-1]], -1), X)
    check(lambda p, k=k: jnp.argpartition(p, k)[..., :kk + 1],
          lambda p: np.argsort(p, kind="stable")[..., :kk + 1], X)
  _compare(jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2), np.array([1, 2, 3, 5, 4]))
  _compare(jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 2), np.array([1, 3, 4, 0, 2]))
  with pytest.raises(TypeError, match="need sequence of keys with len > 0"):
    jnp.lexsort([])
  with pytest.raises(ValueError, match="all keys need to be the same shape"):
    jnp.lexsort([jnp.array([1, 0]), jnp.array([2, 2, 1])])


@pytest.mark.parametrize("method", ["scan", "compare_all", "sort", "scan_unrolled"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(method, side):
  a = np.sort(rng.integers(0, 10, 17)).astype(np.float32)
  v = np.array([[-1, 0, 3, 3.5], [9, 10, np.nan, -0.]], np.float32)
  check(lambda p, q: jnp.searchsorted(p, q, side=side, method=method),
        lambda p, q: np.searchsorted(p, q, side=side).astype(np.int32), a, v)


def test_searchsorted_cases():
  check(jnp.searchsorted, np.searchsorted, np.array([1., 2, np.nan], np.float32),
        np.array([np.nan, 3., -0.], np.float32))
  check(jnp.searchsorted, np.searchsorted, np.zeros(0, np.float32), np.float32(1))
  check(jnp.searchsorted, np.searchsorted, np.arange(5, dtype=np.int32),
        np.array([1.5, 3], np.float32))
  srt = np.argsort(XI.ravel(), kind="stable").astype(np.int32)
  check(lambda p, q, s: jnp.searchsorted(p, q, sorter=s),
        lambda p, q, s: np.searchsorted(p, q, sorter=s), XI.ravel(), XI[0, 0], srt)
  with pytest.raises(ValueError, match="a should be 1-dimensional"):
    jnp.searchsorted(jnp.ones((1, 2)), 1.0)
  with pytest.raises(ValueError, match="invalid argument side='middle'"):
    jnp.searchsorted(jnp.ones(2), 1.0, side="middle")
  with pytest.raises(ValueError, match="invalid argument method='foo'"):
    jnp.searchsorted(jnp.ones(2), 1.0, method="foo")


def test_index_dtypes_follow_x64(x64):
  assert jnp.argsort(jnp.array([2.0, 1.0])).dtype == np.int64
  assert jnp.nonzero(jnp.array([0, 1]))[0].dtype == np.int64
  assert jnp.searchsorted(jnp.array([1, 2]), 1).dtype == np.int32


# --- where / nonzero / select -------------------------------------------------------------------

def test_where_three_args():
  c = XI > 0
  check(jnp.where, np.where, c, X, XI)
  check(lambda p, q: jnp.where(p, q, 0), lambda p, q: np.where(p, q, 0).astype(np.float32), c, X)
  check(jnp.where, np.where, c[0, 0], X[:, :1], np.float32(2))
  check(jnp.where, np.where, XI, X, X)
  out = jnp.where(jnp.array([True, False]), 1, 2.5)
  assert out.dtype == np.float32 and out.weak_type
  assert jnp.where(XI > 1, jnp.uint8(1), jnp.int8(2)).dtype == np.int16
  with pytest.raises(ValueError, match="size and fill_value arguments cannot be used in "
                     "three-term where function"):
    jnp.where(XI > 1, 1, 2, size=3)


def test_nonzero_family():
  check(jnp.nonzero, np.nonzero, XI, jit=False)
  check(jnp.where, np.where, XI > 0, jit=False)
  check(jnp.argwhere, np.argwhere, XI, jit=False)
  check(jnp.flatnonzero, np.flatnonzero, XI, jit=False)
  check(lambda p: jnp.nonzero(p, size=30, fill_value=-1),
        lambda p: tuple(np.concatenate([i, -np.ones(30 - i.size, int)]) for i in np.nonzero(p)),
        XI)
  check(lambda p: jnp.nonzero(p, size=3), lambda p: tuple(i[:3] for i in np.nonzero(p)), XI)
  check(lambda p: jnp.argwhere(p, size=5), lambda p: np.argwhere(p)[:5], XI)
  check(lambda p: jnp.flatnonzero(p, size=3, fill_value=9), lambda p: np.array([1, 2, 9]),
        np.array([0, 1, 1, 0], np.int32))
  check(lambda p: jnp.nonzero(p, size=3, fill_value=(7, 8)),
        lambda p: (np.array([0, 1, 7]), np.array([1, 0, 8])),
        np.array([[0, 1], [2, 0]], np.float32))
  _compare(jnp.argwhere(jnp.int32(1)), np.zeros((1, 0), np.int32))
  _compare(jnp.nonzero(np.zeros((0, 3))), (np.zeros(0, np.int32),) * 2)
  with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
    jnp.nonzero(jnp.int32(1))
  with pytest.raises(ConcretizationTypeError, match="size argument of jnp.nonzero must be "
                     "statically specified"):
    ember.jit(jnp.nonzero)(jnp.arange(3))


def test_select_piecewise():
  check(lambda p: jnp.select([p > 1, p < -1], [p, -p * 2], 7),
        lambda p: np.select([p > 1, p < -1], [p, -p * 2], 7), XI)
  check(lambda p: jnp.select([p > 1, p < -1], [p, -p * 2], 1.5),
        lambda p: np.select([p > 1, p < -1], [p, -p * 2], 1.5).astype(np.float32), XI)
  check(lambda p: jnp.piecewise(p, [p < 0, p > 1], [lambda v: v * 10, lambda v: -v, 7.]),
        lambda p: np.piecewise(p, [p < 0, p > 1], [lambda v: v * 10, lambda v: -v, 7.]), X)
  with pytest.raises(ValueError, match=r"condlist must have length equal to choicelist \(1 vs 2"):
    jnp.select([XI > 1], [XI, -XI])
  with pytest.raises(ValueError, match="condlist must be non-empty"):
    jnp.select([], [])


# --- convolve / correlate -----------------------------------------------------------------------

def test_convolve_seed_repr():
  out = jnp.convolve(jnp.array([1, 2, 1]), jnp.ones(10))
  assert repr(out) == ("Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], "
                       "dtype=float32)")


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(mode):
  for n, m in [(7, 3), (3, 7), (5, 5), (6, 2)]:
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(m).astype(np.float32)
    check(lambda p, q: jnp.convolve(p, q, mode), lambda p, q: np.convolve(p, q, mode), a, b)
    check(lambda p, q: jnp.correlate(p, q, mode), lambda p, q: np.correlate(p, q, mode), a, b)
  ca = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
  check(lambda p, q: jnp.correlate(p, q, mode), lambda p, q: np.correlate(p, q, mode), ca, ca[:3])
  check(lambda p, q: jnp.correlate(p, q, mode), lambda p, q: np.correlate(p, q, mode), ca[:3], ca)


def test_convolve_errors_and_dtypes():
  check(jnp.convolve, lambda p, q: np.convolve(p, q).astype(np.float32), XI[0, 0], XI[1, 1])
  with pytest.raises(ValueError, match="only support 1-dimensional inputs"):
    jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))
  with pytest.raises(ValueError, match="inputs cannot be empty"):
    jnp.convolve(jnp.ones(0), jnp.ones(2))
  with pytest.raises(ValueError, match="mode must be one of"):
    jnp.convolve(jnp.ones(3), jnp.ones(2), mode="foo")


# --- comparisons --------------------------------------------------------------------------------

_XX = np.array([1., np.nan, np.inf, -np.inf, 1e-9, 1.], np.float32)
_YY = np.array([1.000001, np.nan, np.inf, np.inf, 0., 1.1], np.float32)


def test_isclose_allclose():
  check(jnp.isclose, np.isclose, _XX, _YY)
  check(lambda p, q: jnp.isclose(p, q, equal_nan=True),
        lambda p, q: np.isclose(p, q, equal_nan=True), _XX, _YY)
  check(lambda p, q: jnp.isclose(p, q, rtol=0.2, atol=0.0),
        lambda p, q: np.isclose(p, q, rtol=0.2, atol=0.0), _XX, _YY)
  check(lambda p, q: jnp.isclose(p, q, atol=2), lambda p, q: np.isclose(p, q, atol=2), XI,
        XI + 1)
  c = np.array([1 + 1j, 1j], np.complex64)
  check(jnp.isclose, np.isclose, c, c + 1e-7j)
  check(jnp.allclose, np.allclose, X, X + 1e-7)
  check(jnp.allclose, np.allclose, _XX, _YY)
  check(lambda p, q, r: jnp.isclose(p, q, rtol=r), lambda p, q, r: np.isclose(p, q, rtol=r),
        _XX, _YY, np.float32(0.2))


def test_array_equal_equiv():
  check(jnp.array_equal, np.array_equal, X, X)
  check(lambda p, q: jnp.array_equal(p, q, equal_nan=True),
        lambda p, q: np.array_equal(p, q, equal_nan=True), _XX, _XX)
  _compare(jnp.array_equal(jnp.ones(3), jnp.ones(2)), np.bool_(False))
  _compare(jnp.array_equal(1, 1.0), np.bool_(True))
  assert not jnp.array_equal(1, 1.0).weak_type
  check(jnp.array_equiv, np.array_equiv, X[0, 0], X[:, :1])
  with pytest.raises(TypeError, match="eq got incompatible shapes"):  # JAX's (NumPy: False)
    jnp.array_equiv(jnp.ones(3), jnp.ones((2, 2)))


def test_type_predicates():
  assert jnp.isscalar(1) and jnp.isscalar(jnp.array(1.0)) and not jnp.isscalar([1])
  assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj(jnp.ones(2))
  assert jnp.isrealobj(jnp.ones(2)) and not jnp.isrealobj(np.ones(2, complex))
  c = np.array([1 + 0j, 1j], np.complex64)
  check(jnp.iscomplex, np.iscomplex, c)
  check(jnp.isreal, np.isreal, c)
  check(jnp.isreal, np.isreal, X)
  assert jnp.isreal(3).weak_type


def test_nan_to_num():
  check(jnp.nan_to_num, np.nan_to_num, _XX)
  check(lambda p: jnp.nan_to_num(p, nan=5, posinf=1, neginf=-1),
        lambda p: np.nan_to_num(p, nan=5, posinf=1, neginf=-1), _XX)
  check(jnp.nan_to_num, np.nan_to_num, np.array([complex(np.nan, np.inf)], np.complex64))
  check(jnp.nan_to_num, np.nan_to_num, np.array([np.nan, np.inf], np.float16))
  check(jnp.nan_to_num, np.nan_to_num, XI)


# --- differences and counting -------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3])
def test_diff(n):
  check(lambda p: jnp.diff(p, n, axis=1), lambda p: np.diff(p, n, axis=1), XI)


def test_diff_options():
  app = np.full((2, 3, 1), 7, np.int32)
  check(lambda p: jnp.diff(p, prepend=5, append=app), lambda p: np.diff(p, prepend=5, append=app),
        XI)
  check(jnp.diff, np.diff, XI > 0)
  check(jnp.diff, np.diff, XI.astype(np.uint8))
  check(lambda p: jnp.ediff1d(p, to_end=np.array([9, 8]), to_begin=-1),
        lambda p: np.ediff1d(p, to_end=np.array([9, 8]), to_begin=-1), XI)
  with pytest.raises(ValueError, match="order must be non-negative but got -1"):
    jnp.diff(jnp.arange(3), -1)
  with pytest.raises(ValueError, match="at least one dimensional"):
    jnp.diff(jnp.int32(1))


def test_bincount():
  b = np.abs(XI.ravel())
  check(jnp.bincount, np.bincount, b, jit=False)
  check(lambda p, w: jnp.bincount(p, w, length=8),
        lambda p, w: np.bincount(p, w, minlength=8).astype(np.float32), b, X.ravel())
  check(lambda p: jnp.bincount(p, length=3), lambda p: np.bincount(p)[:3], b)
  _compare(jnp.bincount(jnp.array([0, 1, -1, 3])), np.array([2, 1, 0, 1]))
  _compare(jnp.bincount(jnp.array([0, 1]), minlength=4), np.array([1, 1, 0, 0]))
  with pytest.raises(TypeError, match="must have an integer type; got float32"):
    jnp.bincount(jnp.array([0.0, 1.0]))
  with pytest.raises(ValueError, match="only 1-dimensional input supported"):
    jnp.bincount(jnp.array([[0, 1]]))
  with pytest.raises(ConcretizationTypeError, match="static `length`"):
    ember.jit(jnp.bincount)(jnp.arange(3))


def test_histogram_digitize_interp():
  check(lambda p: jnp.histogram(p, bins=np.array([-1., 0, 0.5, 2]), density=True),
        lambda p: np.histogram(p, bins=np.array([-1., 0, 0.5, 2]), density=True), X.ravel())
  check(lambda p: jnp.histogram(p, bins=4, range=(-1, 1))[0],
        lambda p: np.histogram(p, bins=4, range=(-1, 1))[0].astype(np.float32), X.ravel())
  bins = np.array([-1., 0, 0.5, 2], np.float32)
  check(jnp.digitize, np.digitize, X.ravel(), bins)
  check(lambda p, q: jnp.digitize(p, q, right=True), lambda p, q: np.digitize(p, q, right=True),
        X.ravel(), bins[::-1].copy())
  xs = np.linspace(-1, 5, 13).astype(np.float32)
  xp, fp = np.array([0, 1, 2, 4], np.float32), np.array([1, -1, 3, 0], np.float32)
  check(jnp.interp, np.interp, xs, xp, fp)
  check(lambda p, q, r: jnp.interp(p, q, r, left=-5, right=9),
        lambda p, q, r: np.interp(p, q, r, left=-5, right=9), xs, xp, fp)
  check(lambda p, q, r: jnp.interp(p, q, r, period=3),
        lambda p, q, r: np.interp(p, q, r, period=3), xs, xp[:3], fp[:3])


def test_unique():
  check(jnp.unique, np.unique, XI, jit=False)
  check(lambda p: jnp.unique(p, True, True, True), lambda p: np.unique(p, True, True, True), XI,
        jit=False)
  check(lambda p: jnp.unique(p, axis=0), lambda p: np.unique(p, axis=0), XI[0] % 2, jit=False)
  u = np.unique(XI)
  check(lambda p: jnp.unique(p, size=12), lambda p: np.concatenate([u, np.full(12 - u.size,
                                                                                u[0])]), XI)
  check(lambda p: jnp.unique(p, size=3, fill_value=-1), lambda p: u[:3], XI)
  res = jnp.unique_counts(jnp.array([3, 1, 1, 2]))
  _compare(res.counts, np.array([2, 1, 1]))
  _compare(jnp.unique_inverse(jnp.array([3, 1, 1])).inverse_indices, np.array([1, 0, 0]))
  with pytest.raises(ConcretizationTypeError):
    ember.jit(jnp.unique)(jnp.arange(3))


# --- index helpers ------------------------------------------------------------------------------

def test_index_helpers():
  _compare(jnp.tril_indices(4, 1, 5), np.tril_indices(4, 1, 5))
  _compare(jnp.triu_indices(4, -1), np.triu_indices(4, -1))
  _compare(jnp.tril_indices_from(jnp.ones((2, 3)), 1), np.tril_indices_from(np.ones((2, 3)), 1))
  _compare(jnp.diag_indices(3, 3), np.diag_indices(3, 3))
  _compare(jnp.indices((2, 3, 4)), np.indices((2, 3, 4)))
  _compare(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True))
  _compare(jnp.ix_(jnp.array([0, 1]), jnp.array([2, 0, 1])),
           np.ix_(np.array([0, 1]), np.array([2, 0, 1])))
  check(lambda i: jnp.unravel_index(i, (3, 4)), lambda i: np.unravel_index(i, (3, 4)),
        np.array([0, 5, 11], np.int32))
  # negative indices wrap once, out-of-range ones are clipped (as in JAX)
  _compare(jnp.unravel_index(jnp.array([-1, -13, 12]), (3, 4)),
           (np.array([2, 0, 2]), np.array([3, 0, 3])))
  check(lambda i, j: jnp.ravel_multi_index((i, j), (3, 4), mode="clip"),
        lambda i, j: np.ravel_multi_index((i, j), (3, 4), mode="clip"),
        np.array([1, 2], np.int32), np.array([3, 7], np.int32))
  check(lambda i, j: jnp.ravel_multi_index((i, j), (3, 4), order="F", mode="wrap"),
        lambda i, j: np.ravel_multi_index((i, j), (3, 4), order="F", mode="wrap"),
        np.array([1, -2], np.int32), np.array([3, 7], np.int32))
  with pytest.raises(ValueError, match="invalid entry in coordinates array"):
    jnp.ravel_multi_index((jnp.array([1, 5]), jnp.array([3, 0])), (3, 4))
  with pytest.raises(ValueError, match="All dimensions of input must be of equal length"):
    jnp.diag_indices_from(jnp.ones((2, 3)))
  with pytest.raises(NotImplementedError, match="Boolean arguments"):
    jnp.ix_(jnp.array([True, False]))


def test_extract_compress():
  c = XI > 0
  check(jnp.extract, np.extract, c, XI, jit=False)
  check(lambda p, q: jnp.compress(p, q, axis=1), lambda p, q: np.compress(p, q, axis=1),
        np.array([True, False, True]), X, jit=False)


def test_where_jaxpr_matches_jax():
  text = str(ember.make_jaxpr(lambda c, a: jnp.where(c, a, 0))(jnp.ones(4) > 0, jnp.ones(4)))
  assert "name=_where" in text
  assert "convert_element_type[new_dtype=float32 weak_type=False]" in text
  assert "select_n" in text
  text = str(ember.make_jaxpr(jnp.argsort)(jnp.ones(4)))
  assert "name=argsort" in text and "sort[dimension=0 is_stable=True num_keys=1]" in text
