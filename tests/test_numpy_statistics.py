"""Tests for ember.numpy.statistics (quantiles, median, cov, corrcoef, histogramdd) and the
counting helpers they build on, against NumPy, under jit, vmap and grad."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from tests.batch_checks import check_batch

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4, 5)).astype(np.float32)
XN = X.copy()
XN[0, 1, 2] = XN[2, 0, 0] = np.nan
XN[1, :, 3] = np.nan


def close(got, want, dtype=np.float32, rtol=1e-5):
  assert got.dtype == dtype, (got.dtype, dtype)
  np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "inverted_cdf"])
@pytest.mark.parametrize("axis", [None, 1, (0, 2), -1])
def test_quantile_matches_numpy(method, axis):
  q = np.array([0.0, 0.3, 0.5, 1.0], np.float32)
  want = np.quantile(X.astype(np.float64), q, axis=axis, method=method, keepdims=True)
  close(jnp.quantile(X, q, axis=axis, method=method, keepdims=True), want)
  f = ember.jit(lambda x: jnp.nanquantile(x, q, axis=axis, method=method))
  close(f(XN), np.nanquantile(XN.astype(np.float64), q, axis=axis, method=method))


def test_quantile_nan_and_jax_conventions():
  close(jnp.quantile(XN, 0.5, axis=2), np.quantile(XN, 0.5, axis=2))  # NaN rows are NaN
  # 'nearest' sends ties to the lower neighbour; q outside [0, 1] is clamped (both as in JAX)
  close(jnp.quantile(jnp.arange(4.), 0.5, method="nearest"), 1.0)
  close(jnp.quantile(jnp.arange(5.), jnp.array([-0.5, 1.5])), [0.0, 4.0])
  close(jnp.nanquantile(jnp.array([np.nan, np.nan]), 0.5), np.nan)
  close(jnp.quantile(jnp.array([1., np.inf]), 0.5), np.inf)
  assert jnp.quantile(jnp.arange(5), 0.5).dtype == np.float32
  assert jnp.quantile(jnp.arange(5, dtype=np.float16), np.float32(0.5)).dtype == np.float16


def test_quantile_weights():
  w = rng.uniform(0.5, 2, X.shape[-1]).astype(np.float32)
  want = np.quantile(X.astype(np.float64), [0.2, 0.7], axis=-1, method="inverted_cdf",
                     weights=np.broadcast_to(w, X.shape))
  close(jnp.quantile(X, jnp.array([0.2, 0.7]), axis=-1, method="inverted_cdf", weights=w),
        want)
  close(jnp.quantile(jnp.arange(6.), 0.5, weights=-jnp.ones(6), method="inverted_cdf"), np.nan)
  with pytest.raises(NotImplementedError, match="Only method 'inverted_cdf' supports weights"):
    jnp.quantile(X, 0.5, weights=np.ones_like(X))
  with pytest.raises(ValueError, match=r"Weights shape \(3,\) must match reduction axes"):
    jnp.quantile(X, 0.5, axis=-1, weights=np.ones(3), method="inverted_cdf")


def test_percentile_median():
  close(jnp.percentile(X, jnp.array([10, 50, 90]), axis=0),
        np.percentile(X, [10, 50, 90], axis=0))
  close(jnp.nanpercentile(XN, 25., axis=(0, 1)), np.nanpercentile(XN, 25., axis=(0, 1)))
  close(jnp.median(X, axis=(0, 2), keepdims=True), np.median(X, axis=(0, 2), keepdims=True))
  close(ember.jit(jnp.nanmedian)(XN), np.nanmedian(XN))
  close(jnp.nanmedian(XN, axis=1), np.nanmedian(XN, axis=1))
  close(jnp.median(3.), 3.0)


def test_quantile_errors():
  with pytest.raises(ValueError, match="method can only be"):
    jnp.quantile(X, 0.5, method="hazen")
  with pytest.raises(ValueError, match="does not support complex input"):
    jnp.quantile(jnp.array([1j]), 0.5)
  with pytest.raises(ValueError, match="q must be have rank <= 1"):
    jnp.quantile(X, jnp.ones((1, 2)) * 0.5)
  with pytest.raises(TypeError, match="floor does not accept dtype int32"):
    jnp.quantile(X, 1)
  with pytest.raises(ValueError, match="repeated axis"):
    jnp.quantile(X, 0.5, axis=(0, 0))
  with pytest.raises(ValueError, match="does not support overwrite_input=True or out"):
    jnp.median(X, overwrite_input=True)
  with pytest.raises(ValueError, match="empty axis"):
    jnp.quantile(jnp.zeros((0,)), 0.5)


def test_quantile_grad_and_vmap():
  x = np.array([0.3, -1.2, 2.5, 0.7, 1.1])

  def f(v, q):
    return jnp.quantile(v, q)
  eps = 1e-3
  for q in (0.3, 0.62):
    g = ember.grad(f, argnums=(0, 1))(jnp.asarray(x, np.float32), jnp.float32(q))
    fd = [(f(x + eps * e, q) - f(x - eps * e, q)) / (2 * eps) for e in np.eye(5)]
    np.testing.assert_allclose(g[0], fd, atol=1e-2)
    np.testing.assert_allclose(g[1], (f(x, q + eps) - f(x, q - eps)) / (2 * eps), rtol=1e-2)
  check_batch(lambda v: jnp.nanquantile(v, jnp.array([0.25, 0.5]), axis=0), [XN])
  check_batch(lambda v: jnp.median(v, axis=-1), [X], in_axes=1)


def test_cov_corrcoef():
  m = rng.standard_normal((3, 6)).astype(np.float32)
  y = rng.standard_normal((6,)).astype(np.float32)
  fw = np.array([1, 2, 1, 3, 1, 1])
  aw = rng.uniform(0.1, 1, 6).astype(np.float32)
  close(jnp.cov(m), np.cov(m))
  close(jnp.cov(m.T, rowvar=False), np.cov(m.T, rowvar=False))
  close(jnp.cov(m, y, bias=True), np.cov(m, y, bias=True))
  close(jnp.cov(m, ddof=2, fweights=fw, aweights=aw), np.cov(m, ddof=2, fweights=fw,
                                                             aweights=aw))
  close(ember.jit(lambda a, w: jnp.cov(a, aweights=w))(m, aw), np.cov(m, aweights=aw))
  close(jnp.cov(np.arange(5)), np.cov(np.arange(5)))
  c = (m + 1j * m[::-1]).astype(np.complex64)
  close(jnp.cov(c), np.cov(c), np.complex64)
  close(jnp.corrcoef(m), np.corrcoef(m))
  close(jnp.corrcoef(m[0], y), np.corrcoef(m[0], y))
  close(jnp.cov(m, dtype=np.float16), np.cov(m), np.float16, rtol=1e-2)
  with pytest.raises(TypeError, match="fweights must be integer"):
    jnp.cov(m, fweights=np.ones(6))
  with pytest.raises(ValueError, match="m has more than 2 dimensions"):
    jnp.cov(X)
  check_batch(jnp.cov, [np.stack([m, m * 2, m + 1])])
  # d/dm of sum(cov(m)) against finite differences
  g = ember.grad(lambda a: jnp.cov(a).sum())(m)
  eps, e = 1e-2, np.zeros_like(m)
  e[1, 2] = 1
  fd = (np.cov(m + eps * e).sum() - np.cov(m - eps * e).sum()) / (2 * eps)
  np.testing.assert_allclose(g[1, 2], fd, rtol=1e-3)


def test_histogramdd_histogram2d():
  s = rng.uniform(-1, 2, (50, 3)).astype(np.float32)
  w = rng.uniform(0, 1, 50).astype(np.float32)
  rngs = [(-1, 2), None, (0, 1)]
  for kw in [{"bins": 4}, {"bins": [2, 3, 4], "range": rngs},
             {"bins": [np.array([-1., 0., 2.]), 3, 2], "weights": w},
             {"bins": 3, "density": True}]:
    h, edges = jnp.histogramdd(s, **kw)
    hn, en = np.histogramdd(s, **kw)
    dt = np.int32 if "weights" not in kw and not kw.get("density") else np.float32
    close(h, hn, dt, rtol=1e-4)
    for e, want in zip(edges, en):
      close(e, want)
  h, _, ye = ember.jit(lambda a, b: jnp.histogram2d(a, b, bins=[3, 4]))(s[:, 0], s[:, 1])
  hn, _, yn = np.histogram2d(s[:, 0], s[:, 1], bins=[3, 4])
  close(h, hn, np.int32)
  close(ye, yn)
  with pytest.raises(ValueError, match="should be a bin for each dimension"):
    jnp.histogramdd(s, bins=[2, 2])


def test_histogram_bincount_digitize():
  a = rng.uniform(0, 5, 40).astype(np.float32)
  for kw in [{"bins": 5}, {"bins": np.array([0., 1., 3., 5.])},
             {"bins": 4, "range": (1, 4), "density": True}, {"bins": 3, "weights": a}]:
    h, e = jnp.histogram(a, **kw)
    hn, en = np.histogram(a, **kw)
    close(h, hn, rtol=1e-4)
    close(e, en)
  bins_up = np.array([1., 2., 3.], np.float32)
  for right in (False, True):
    for bins in (bins_up, bins_up[::-1]):
      got = ember.jit(lambda x, b, r=right: jnp.digitize(x, b, right=r))(a, bins)
      np.testing.assert_array_equal(got, np.digitize(a, bins, right=right))
  i = rng.integers(0, 6, 30)
  np.testing.assert_array_equal(jnp.bincount(i), np.bincount(i))
  np.testing.assert_allclose(ember.jit(lambda v, w: jnp.bincount(v, w, length=8))(i, a[:30]),
                             np.bincount(i, a[:30], minlength=8), rtol=1e-5)
