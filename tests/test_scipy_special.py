"""ember.scipy.special against SciPy: values over float32/float64 and edge inputs, under jit,
gradients against finite differences (x64), vmap against a loop, and JAX's errors."""
import numpy as np
import pytest
import scipy.special as sc
from ad_checks import check_jvp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax
from ember.scipy import special as es

EDGES = np.array([0., -0., 1., -1., 0.5, -2.5, 3., 30., -30., np.inf, -np.inf, np.nan])
POS = np.array([1e-3, 0.1, 0.5, 1., 2.5, 7., 40.])

UNARY = [  # (ember, scipy, inputs, float32 rtol)
    (es.erf, sc.erf, EDGES, 1e-6), (es.erfc, sc.erfc, EDGES, 1e-5),
    (es.erfinv, sc.erfinv, np.array([-1., -0.9, 0., 0.3, 0.999, 1., 2.]), 1e-5),
    (es.gammaln, sc.gammaln, np.concatenate([EDGES[:-2], POS]), 1e-5),  # JAX: gammaln(-inf) = inf
    (es.digamma, sc.digamma, np.array([0.1, 1., 2.5, 10., -0.5]), 1e-5),
    (es.gamma, sc.gamma, np.array([0., -1., -1.5, -0.5, 0.5, 4., 10., np.inf]), 1e-5),
    (es.gammasgn, sc.gammasgn, np.array([-1.5, -0.5, -2.5, 0.5, 3., -1., np.nan]), 0),
    (es.expit, sc.expit, EDGES, 1e-6), (es.logit, sc.logit, np.array([0., 0.2, 0.5, 1., 2.]), 1e-6),
    (es.entr, sc.entr, np.array([0., -1., 0.5, 2., np.inf]), 1e-6),
    (es.ndtr, sc.ndtr, EDGES, 1e-5),
    (es.ndtri, sc.ndtri, np.array([0., 1e-30, 1e-10, 0.01, 0.2, 0.5, 0.9, 1 - 1e-7, 1., -1., 2.]),
     1e-5),
    (es.log_ndtr, sc.log_ndtr, np.array([-50., -25., -12., -5., -1., 0., 3., 6., 12., 50.]), 1e-5),
    (es.i0, sc.i0, EDGES[:-4], 1e-5), (es.i0e, sc.i0e, EDGES[:-3], 1e-5),
    (es.i1, sc.i1, EDGES[:-4], 1e-5), (es.i1e, sc.i1e, EDGES[:-3], 1e-5),
    (es.factorial, sc.factorial, np.array([-1., 0., 1., 4., 3.5, 10.]), 1e-5),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f,ref,x,rtol", UNARY, ids=[u[0].__name__ for u in UNARY])
def test_unary_against_scipy(f, ref, x, rtol, dtype, x64):
  x = x.astype(dtype)
  expected = ref(x.astype(np.float64))
  tol = rtol if dtype == np.float32 else max(rtol * 1e-6, 1e-12)
  for out in (f(x), ember.jit(f)(x)):
    assert out.dtype == dtype
    np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=tol, atol=tol)


A = np.array([0.5, 1., 2., 3.5, 10., 0.1])
B = np.array([1., 2.5, 0.3, 3., 10., 7.])
BINARY = [
    (es.betaln, sc.betaln, A, B), (es.beta, sc.beta, A, B),
    (es.xlogy, sc.xlogy, np.array([0., 0., 2., 1., 0., -1.]), np.array([0., 2., 3., 0., np.nan, 2.])),
    (es.xlog1py, sc.xlog1py, np.array([0., 2., 1., 0.]), np.array([-1., 1., 1e-8, 3.])),
    (es.rel_entr, sc.rel_entr, np.array([0., 0., 1., -1., 1., 2.]), np.array([0., 1., 0., 1., 2., .5])),
    (es.kl_div, sc.kl_div, np.array([0., 0., 1., -1., 1., 2.]), np.array([0., 1., 0., 1., 2., .5])),
    (es.zeta, sc.zeta, np.array([2., 3., 1.5, 4., 2.]), np.array([1., 2., 0.5, 10., -1.5])),
    (es.poch, sc.poch, np.array([1., 2.5, -1.5, 3.]), np.array([2., 0., 3., 1.5])),
    (es.comb, lambda n, k: sc.comb(n, k), np.array([5., 5., 5., -1., 10.]),
     np.array([2., 6., -1., 1., 3.])),
    (es.boxcox, sc.boxcox, np.array([1., 2., 3., 0.5]), np.array([0., 0.5, 2., -1.])),
    (es.boxcox1p, sc.boxcox1p, np.array([1e-5, 2., 3., 0.5]), np.array([0., 0.5, 2., -1.])),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f,ref,x,y", BINARY, ids=[b[0].__name__ for b in BINARY])
def test_binary_against_scipy(f, ref, x, y, dtype, x64):
  expected = ref(x, y)
  tol = 2e-5 if dtype == np.float32 else 1e-10
  out = ember.jit(f)(x.astype(dtype), y.astype(dtype))
  assert out.dtype == dtype
  np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=tol, atol=1e-30)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-3), (np.float64, 1e-11)])
def test_betainc_and_polygamma(dtype, rtol, x64):
  rng = np.random.default_rng(0)
  a, b, x = rng.uniform(0.05, 20, 50), rng.uniform(0.05, 20, 50), rng.uniform(0, 1, 50)
  out = es.betainc(a.astype(dtype), b.astype(dtype), x.astype(dtype))
  np.testing.assert_allclose(np.asarray(out, np.float64), sc.betainc(a, b, x), rtol=rtol,
                             atol=rtol * 1e-3)
  edges = es.betainc(np.array([1., 2., 0., -1., 1.]), 2., np.array([0., 1., .5, .5, 1.5]))
  np.testing.assert_array_equal(edges, [0., 1., 1., np.nan, np.nan])
  n, xs = np.array([0, 1, 2, 3]), np.array([2.5, 0.5, 1.5, 3.])
  out = es.polygamma(n, xs.astype(dtype))
  np.testing.assert_allclose(np.asarray(out, np.float64), sc.polygamma(n, xs), rtol=rtol * 10)


def test_gammainc(x64):
  if not hasattr(lax, "igamma"):
    pytest.skip("lax.igamma is not available yet")
  a, x = np.array([0.5, 1., 3., 10.]), np.array([0.2, 1., 5., 8.])
  np.testing.assert_allclose(es.gammainc(a, x), sc.gammainc(a, x), rtol=1e-10)
  np.testing.assert_allclose(es.gammaincc(a, x), sc.gammaincc(a, x), rtol=1e-10)


def test_multigammaln_and_loggamma():
  np.testing.assert_allclose(es.multigammaln(3.5, 3), sc.multigammaln(3.5, 3), rtol=1e-6)
  np.testing.assert_array_equal(es.loggamma(np.array([-1.5, 0., 2.])), [np.nan, np.nan, 0.])


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), ((0, 2), False)])
def test_logsumexp(axis, keepdims):
  rng = np.random.default_rng(1)
  a = rng.normal(size=(2, 3, 4)).astype(np.float32) * 10
  b = rng.normal(size=(2, 3, 4)).astype(np.float32)
  expected = sc.logsumexp(a, axis=axis, keepdims=keepdims)
  np.testing.assert_allclose(es.logsumexp(a, axis=axis, keepdims=keepdims), expected, rtol=1e-5)
  out, sign = ember.jit(lambda a, b: es.logsumexp(a, axis, b, keepdims, return_sign=True))(a, b)
  ref, ref_sign = sc.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
  np.testing.assert_allclose(out, ref, rtol=1e-4)
  np.testing.assert_array_equal(sign, ref_sign)


def test_logsumexp_edges():
  assert es.logsumexp(np.array([-np.inf, -np.inf])) == -np.inf
  assert es.logsumexp(np.array([np.inf, 1.])) == np.inf
  assert np.isnan(es.logsumexp(np.array([1., 2.]), b=np.array([1., -1.])))
  where = np.array([True, False, True])
  np.testing.assert_allclose(es.logsumexp(np.array([1., 100., 2.]), where=where),
                             sc.logsumexp([1., 2.]), rtol=1e-6)
  assert es.logsumexp(np.array([1., np.inf]), b=np.array([1., 0.])) == 1.
  np.testing.assert_allclose(es.softmax(np.array([[1., 2.], [3., 4.]])),
                             sc.softmax([[1., 2.], [3., 4.]]), rtol=1e-6)
  np.testing.assert_allclose(es.log_softmax(np.array([1., 2., 3.]), axis=0),
                             sc.log_softmax([1., 2., 3.]), rtol=1e-6)


SMOOTH = [
    (es.gammaln, (np.array([0.7, 2.5, 6.]),)), (es.digamma, (np.array([0.7, 2.5]),)),
    (es.erfinv, (np.array([-0.5, 0.2, 0.9]),)), (es.ndtri, (np.array([1e-3, 0.3, 0.9]),)),
    (es.log_ndtr, (np.array([-30., -3., 0., 4., 10.]),)), (es.i1, (np.array([-2., 0.5, 3.]),)),
    (es.xlogy, (np.array([0.5, 2.]), np.array([0.3, 4.]))),
    (es.xlog1py, (np.array([0.5, 2.]), np.array([0.3, 4.]))),
    (lambda a: es.logsumexp(a, axis=1), (np.array([[1., 2., 3.], [0., -5., 4.]]),)),
    (lambda a, b: es.logsumexp(a, b=b), (np.array([1., 2., 3.]), np.array([0.5, 2., 1.]))),
    (lambda x: es.betainc(2., 3., x), (np.array([0.1, 0.5, 0.8]),)),
    (lambda x: es.polygamma(1, x), (np.array([0.7, 3.]),)),
]


@pytest.mark.parametrize("f,args", SMOOTH, ids=range(len(SMOOTH)))
def test_gradients(f, args, x64):
  check_jvp(f, args, np.random.RandomState(0), rtol=1e-5, atol=1e-7, jit=True)


def test_custom_gradients_at_zero():
  gx, gy = ember.grad(es.xlogy, (0, 1))(0., 1.)
  assert (gx, gy) == (0., 0.)
  assert np.isfinite(ember.grad(lambda a: es.logsumexp(a))(np.array([-np.inf, 0.])) ).all()
  np.testing.assert_allclose(ember.grad(es.log_ndtr)(-50.), 50.02, rtol=1e-3)


def test_vmap():
  x = np.linspace(0.1, 0.9, 12, dtype=np.float32).reshape(3, 4)
  check_batch(lambda v: es.logsumexp(v, axis=0), (x,))
  check_batch(es.ndtri, (x,))
  np.testing.assert_allclose(ember.vmap(lambda a, v: es.betainc(a, 2., v))(x + 1, x),
                             es.betainc(x + 1, 2., x), rtol=1e-6)  # elementwise: vmap == call
  check_batch(es.zeta, (x + 2, x), in_axes=(0, None))


def test_errors():
  with pytest.raises(NotImplementedError, match="Riemann zeta"):
    es.zeta(2.)
  with pytest.raises(ValueError, match="must be of integer type"):
    es.polygamma(1., 2.)
  with pytest.raises(ValueError, match="with respect to a and b"):
    ember.grad(lambda a: es.betainc(a, 2., 0.5))(1.)
  with pytest.raises(NotImplementedError):
    es.factorial(3, exact=True)
  with pytest.raises(ValueError, match="series_order"):
    es.log_ndtr(1., series_order=-1)


def test_names_match_jax_subset():
  for name in ["logsumexp", "erf", "erfc", "erfinv", "gammaln", "digamma", "gamma", "betaln",
               "expit", "logit", "xlogy", "xlog1py", "entr", "softmax", "log_softmax", "ndtr",
               "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e", "zeta", "polygamma", "factorial"]:
    assert callable(getattr(es, name))
  assert jnp.asarray(es.gammaln(1)).dtype == np.float32  # integers promote to float
