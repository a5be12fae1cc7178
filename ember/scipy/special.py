"""ember.scipy.special: SciPy's special functions on ember arrays, mirroring ``jax.scipy.special``.

Integer and boolean inputs are promoted to the default float dtype, as in JAX (``ndtr``,
``ndtri`` and ``log_ndtr`` take float32 and float64 only, as JAX's do); values match
SciPy's (including at the edges: ``gamma(0)`` is inf, ``xlogy(0, 0)`` is 0). Functions built
from lax operations differentiate and batch like any composition; ``xlogy``, ``xlog1py``,
``entr``, ``logit``, ``zeta``, ``log_ndtr`` and the log-sum-exp family carry JAX's custom
derivatives, so gradients are JAX's where the naive formula's are not.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.special import logsumexp
    >>> logsumexp(jnp.array([1., 2., 3.]))
    Array(3.407606, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ember import core, lax
from ember import numpy as jnp
from ember.core.errors import ConcretizationTypeError
from ember.scipy import _logsumexp
from ember.scipy._logsumexp import logsumexp
from ember.scipy._normal import log_ndtr, ndtr, ndtri
from ember.numpy.ufuncs import _lax_const
from ember.numpy._util import ensure_array, promote_args_inexact
from ember.scipy._util import promote_inexact
from ember.transforms.custom import custom_jvp

__all__ = [
    "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "digamma", "entr", "erf", "erfc",
    "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn",
    "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit",
    "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr", "softmax",
    "xlog1py", "xlogy", "zeta",
    "bernoulli", "bessel_jn", "dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "hyp1f1",
    "hyp2f1", "owens_t", "sici", "spence", "sph_harm_y", "wofz",
]


def _unary(fun, name: str):
  """Promote one argument to inexact, then apply the lax function ``fun``."""
  def f(x):
    x, = promote_inexact(name, x)
    return fun(x)
  return f


def erf(x):
  """The error function, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import erf
      >>> erf(jnp.array([0., 1.]))
      Array([0.        , 0.84270084], dtype=float32)
  """
  return _unary(lax.erf, "erf")(x)


def erfc(x):
  """The complementary error function ``1 - erf(x)``, accurate for large ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import erfc
      >>> erfc(jnp.array([0., 3.]))
      Array([1.0000000e+00, 2.2090497e-05], dtype=float32)
  """
  return _unary(lax.erfc, "erfc")(x)


def erfinv(x):
  """The inverse error function, elementwise (±inf at ±1, NaN outside [-1, 1]).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import erfinv
      >>> erfinv(jnp.array([0., 0.5]))
      Array([0.        , 0.47693628], dtype=float32)
  """
  return _unary(lax.erf_inv, "erfinv")(x)


def gammaln(x):
  """The log of the absolute value of the gamma function, elementwise.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import gammaln
      >>> gammaln(jnp.array([0.5, 3.]))
      Array([0.5723648, 0.6931474], dtype=float32)
  """
  return _unary(lax.lgamma, "gammaln")(x)


def loggamma(x):
  """The log of the gamma function for real ``x``: NaN for ``x <= 0`` (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import loggamma
      >>> loggamma(jnp.array([-1.5, 3.]))
      Array([      nan, 0.6931474], dtype=float32)
  """
  x, = promote_inexact("loggamma", x)
  return jnp.where(x <= 0, jnp.nan, lax.lgamma(x))


def gammasgn(x):
  """The sign of the gamma function: 1 or -1, NaN at the poles -1, -2... and at -inf.

  At zero the sign follows the sign bit: ``gammasgn(0.)`` is 1 and ``gammasgn(-0.)`` is -1, as
  in JAX (gamma is +inf and -inf there).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import gammasgn
      >>> gammasgn(jnp.array([-1.5, -0.5, -1., 2.]))
      Array([ 1., -1., nan,  1.], dtype=float32)
  """
  x, = promote_inexact("gammasgn", x)
  floor_x = lax.floor(x)
  odd = lax.rem(floor_x, jnp.asarray(2, x.dtype)) != 0
  negative = ((x < 0) & odd) | ((x == 0) & jnp.signbit(x))
  sign = jnp.where(negative, -1, 1).astype(x.dtype)
  pole = (x < 0) & (x == floor_x)
  return jnp.where(pole | (x == -np.inf) | jnp.isnan(x), jnp.nan, sign)


def gamma(x):
  """The gamma function, elementwise (``sign * exp(gammaln(x))``).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import gamma
      >>> gamma(jnp.array([0.5, 4.]))
      Array([1.7724535, 6.0000052], dtype=float32)
  """
  x, = promote_inexact("gamma", x)
  return gammasgn(x) * lax.exp(lax.lgamma(x))


def digamma(x):
  """The digamma function, the derivative of ``gammaln``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import digamma
      >>> digamma(jnp.array([1., 2.]))
      Array([-0.5772154 ,  0.42278463], dtype=float32)
  """
  return _unary(lax.digamma, "digamma")(x)


def betaln(a, b):
  """The log of the absolute value of the beta function B(a, b).

  Example:
      >>> from ember.scipy.special import betaln
      >>> betaln(2., 3.)
      Array(-2.4849074, dtype=float32, weak_type=True)
  """
  a, b = promote_inexact("betaln", a, b)
  return lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)


def beta(a, b):
  """The beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), elementwise.

  Example:
      >>> from ember.scipy.special import beta
      >>> beta(2., 3.)
      Array(0.08333327, dtype=float32)
  """
  a, b = promote_inexact("beta", a, b)
  sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
  return sign * lax.exp(betaln(a, b))


def betainc(a, b, x):
  """The regularized incomplete beta function I_x(a, b) (differentiable in ``x`` only).

  Example:
      >>> from ember.scipy.special import betainc
      >>> betainc(1., 2., 0.5)
      Array(0.7500009, dtype=float32, weak_type=True)
  """
  a, b, x = promote_inexact("betainc", a, b, x)
  a, b, x = jnp.broadcast_arrays(a, b, x)
  return lax.betainc(a, b, x)


def gammainc(a, x):
  """The regularized lower incomplete gamma function P(a, x).

  Example:
      >>> from ember.scipy.special import gammainc
      >>> gammainc(1., 2.)  # doctest: +SKIP
      Array(0.86466473, dtype=float32, weak_type=True)
  """
  a, x = jnp.broadcast_arrays(*promote_inexact("gammainc", a, x))
  return lax.igamma(a, x)


def gammaincc(a, x):
  """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

  Example:
      >>> from ember.scipy.special import gammaincc
      >>> gammaincc(1., 2.)  # doctest: +SKIP
      Array(0.13533528, dtype=float32, weak_type=True)
  """
  a, x = jnp.broadcast_arrays(*promote_inexact("gammaincc", a, x))
  return lax.igammac(a, x)


def polygamma(n, x):
  """The polygamma function psi^(n)(x); ``n`` must be of integer type (as in JAX).

  Raises:
      ValueError: if ``n`` is not an integer array or scalar.

  Example:
      >>> from ember.scipy.special import polygamma
      >>> polygamma(1, 2.)
      Array(0.64493406, dtype=float32, weak_type=True)
  """
  n_dtype = jnp.result_type(n)
  if not jnp.issubdtype(n_dtype, jnp.integer):
    raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
  n, x = promote_inexact("polygamma", n, x)
  return lax.polygamma(*jnp.broadcast_arrays(n, x))


def zeta(x, q=None):
  """The Hurwitz zeta function sum_{k>=0} (k + q)^-x (``q`` is required, as in JAX).

  Raises:
      NotImplementedError: if ``q`` is None (the Riemann zeta function).

  Example:
      >>> from ember.scipy.special import zeta
      >>> zeta(2., 1.)
      Array(1.644934, dtype=float32, weak_type=True)
  """
  if q is None:
    raise NotImplementedError("Riemann zeta function not implemented; pass q != None to compute "
                              "the Hurwitz Zeta function.")
  x, q = promote_inexact("zeta", x, q)
  return _zeta(*jnp.broadcast_arrays(x, q))


@custom_jvp
def _zeta(x, q):
  return lax.zeta(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
  x, q = primals
  x_dot, q_dot = tangents
  # d/dq is -x zeta(x + 1, q); at the pole x = 1 the value is inf and, as in JAX, both
  # derivatives are undefined (NaN and -inf).
  dq = jnp.where(x == 1, np.nan, -x * _zeta(x + 1, q))
  return _zeta(x, q), x_dot * _zeta_dx(x, q) + q_dot * dq


# Bernoulli numbers B_2, B_4, ..., B_26 for the Euler-Maclaurin tail of the zeta series.
_BERNOULLI_EVEN = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
                   43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730, 8553103 / 6)


def _zeta_dx(s, q, terms: int = 10):
  """d/ds of the Hurwitz zeta function: the derivative of its Euler-Maclaurin form
  ``sum_{k<N} (q+k)^-s + a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! s(s+1)..(s+2j-2) a^(1-s-2j)``
  with ``a = q + N``, term by term."""
  out = jnp.zeros_like(s)
  for k in range(terms):
    base = q + k
    out = out - lax.log(base) * base ** -s
  a = q + terms
  log_a, a_sq = lax.log(a), a * a
  lead = a ** (1 - s)
  out = out - log_a * lead / (s - 1) - lead / (s - 1) ** 2 - log_a * a ** -s / 2
  # r = s(s+1)..(s+2j-2) / ((2j)! a^2j) and dr = dr/ds, built a factor at a time so neither
  # overflows for large s
  r, dr = s / (2 * a_sq), jnp.ones_like(s) / (2 * a_sq)
  for j, b in enumerate(_BERNOULLI_EVEN, start=1):
    if j > 1:
      for i in (2 * j - 3, 2 * j - 2):
        scale = (i + 2) * a  # the factorial's next factor with one a
        dr = (dr * (s + i) + r) / scale
        r = r * (s + i) / scale
    out = out + b * lead * (dr - log_a * r)
  return out


def expit(x):
  """The logistic sigmoid ``1 / (1 + exp(-x))``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import expit
      >>> expit(jnp.array([0., 2.]))
      Array([0.5     , 0.880797], dtype=float32)
  """
  return _unary(lax.logistic, "expit")(x)


@custom_jvp
def logit(x):
  """The log-odds ``log(x / (1 - x))``, the inverse of ``expit``.

  A ``custom_jvp`` function (derivative ``1 / (x (1 - x))``) that promotes its input itself,
  so its jaxpr is JAX's: one ``custom_jvp_call`` named logit.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import logit
      >>> logit(jnp.array([0.5, 0.75]))
      Array([0.       , 1.0986123], dtype=float32)
  """
  x, = promote_inexact("logit", x)
  return lax.log(lax.div(x, lax.sub(_lax_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_lax_const(x, 1), x))))


def xlogy(x, y):
  """``x * log(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import xlogy
      >>> xlogy(jnp.array([0., 2.]), jnp.array([0., 3.]))
      Array([0.       , 2.1972246], dtype=float32)
  """
  x, y = promote_inexact("xlogy", x, y)
  return _xlogy(x, y)


@custom_jvp
def _xlogy(x, y):
  keep = (x != 0) | jnp.isnan(y)
  return jnp.where(keep, x * lax.log(y), jnp.zeros_like(x * y))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
  x, y = primals
  x_dot, y_dot = tangents
  out = _xlogy(x, y)
  return out, (x_dot * lax.log(y) + y_dot * x / y).astype(out.dtype)


def xlog1py(x, y):
  """``x * log1p(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import xlog1py
      >>> xlog1py(jnp.array([0., 2.]), jnp.array([-1., 1.]))
      Array([0.       , 1.3862944], dtype=float32)
  """
  x, y = promote_inexact("xlog1py", x, y)
  return _xlog1py(x, y)


@custom_jvp
def _xlog1py(x, y):
  keep = (x != 0) | jnp.isnan(y)
  return jnp.where(keep, x * lax.log1p(y), jnp.zeros_like(x * y))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
  x, y = primals
  x_dot, y_dot = tangents
  out = _xlog1py(x, y)
  return out, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)


def entr(x):
  """The entropy term ``-x log(x)``: 0 at 0, -inf for negative ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import entr
      >>> entr(jnp.array([0., 0.5, -1.]))
      Array([-0.       ,  0.3465736,       -inf], dtype=float32)
  """
  x, = promote_inexact("entr", x)
  return jnp.where(x < 0, -np.inf, -_xlogx(x))


@custom_jvp
def _xlogx(x):
  return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  return _xlogx(x), x_dot * (lax.log(x) + 1)


def rel_entr(p, q):
  """The relative-entropy term ``p log(p / q)`` (0 at p = 0 <= q, inf off the domain).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import rel_entr
      >>> rel_entr(jnp.array([1., 0.]), jnp.array([2., 1.]))
      Array([-0.6931472,  0.       ], dtype=float32)
  """
  p, q = promote_inexact("rel_entr", p, q)
  return _rel_entr(p, q)


def _rel_entr(p, q):
  """``p log p - p log q`` where both are positive (so inf/inf and nan stay nan there), 0 at
  p = 0 <= q, inf elsewhere; the gradient is zero off the positive quadrant, as in JAX."""
  both_pos = (p > 0) & (q > 0)
  safe_p, safe_q = jnp.where(both_pos, p, 1), jnp.where(both_pos, q, 1)
  inside = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
  # JAX's zero is p's dtype, weak only for a weak scalar p: a weak array p gives a strong result
  outside = jnp.where((p == 0) & (q >= 0), _lax_const(p, 0.0), np.inf)
  return jnp.where(both_pos, inside, outside)


def kl_div(p, q):
  """The Kullback-Leibler term ``p log(p / q) - p + q`` (``q`` at p = 0, inf off the domain).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import kl_div
      >>> kl_div(jnp.array([1., 0.]), jnp.array([2., 1.]))
      Array([0.30685282, 1.        ], dtype=float32)
  """
  p, q = promote_inexact("kl_div", p, q)
  return _rel_entr(p, q) - p + q


def i0(x):
  """The modified Bessel function of the first kind, order 0.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import i0
      >>> i0(jnp.array([0., 1.]))
      Array([1.       , 1.2660658], dtype=float32)
  """
  x, = promote_inexact("i0", x)
  return lax.exp(lax.abs(x)) * lax.bessel_i0e(x)


def i0e(x):
  """The exponentially scaled modified Bessel function ``i0(x) * exp(-|x|)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import i0e
      >>> i0e(jnp.array([0., 1.]))
      Array([1.       , 0.4657596], dtype=float32)
  """
  return _unary(lax.bessel_i0e, "i0e")(x)


def i1(x):
  """The modified Bessel function of the first kind, order 1.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import i1
      >>> i1(jnp.array([0., 1.]))
      Array([0.       , 0.5651591], dtype=float32)
  """
  x, = promote_inexact("i1", x)
  return lax.exp(lax.abs(x)) * lax.bessel_i1e(x)


def i1e(x):
  """The exponentially scaled modified Bessel function ``i1(x) * exp(-|x|)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import i1e
      >>> i1e(jnp.array([0., 1.]))
      Array([0.        , 0.20791042], dtype=float32)
  """
  return _unary(lax.bessel_i1e, "i1e")(x)


def factorial(n, exact: bool = False):
  """``n!`` as ``gamma(n + 1)`` for real ``n`` (0 for negative ``n``).

  Raises:
      NotImplementedError: for ``exact=True`` (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import factorial
      >>> factorial(jnp.array([-1., 0., 4.]))
      Array([ 0.       ,  1.0000005, 24.000023 ], dtype=float32)
  """
  if exact:
    raise NotImplementedError("factorial with exact=True")
  n, = promote_inexact("factorial", n)
  return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
  """The number of combinations of ``N`` things taken ``k`` at a time, as real numbers.

  Zero where ``k < 0`` or ``k > N`` or ``N < 0`` (as in SciPy's ``exact=False``). With
  ``repetition``, ``comb(N + k - 1, k)``, and 1 where ``k == 0`` and ``N >= 0``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import comb
      >>> comb(jnp.array([5., 5.]), jnp.array([2., 6.]))
      Array([9.999995, 0.      ], dtype=float32)
  """
  N, k = promote_inexact("comb", N, k)
  if repetition:
    return jnp.where((k == 0) & (N >= 0), jnp.ones_like(N * k), comb(N + k - 1, k))
  valid = (N >= 0) & (k >= 0) & (k <= N)
  log_comb = lax.lgamma(N + 1) - lax.lgamma(k + 1) - lax.lgamma(N - k + 1)
  return jnp.where(valid, lax.exp(log_comb), 0)


def poch(z, m):
  """The Pochhammer symbol (rising factorial) ``gamma(z + m) / gamma(z)``; 1 where ``m == 0``.

  Example:
      >>> from ember.scipy.special import poch
      >>> poch(2.5, 3.)
      Array(39.375072, dtype=float32)
  """
  z, m = promote_inexact("poch", z, m)
  return jnp.where(m == 0, jnp.ones_like(z * m), gamma(z + m) / gamma(z))


def multigammaln(a, d):
  """The log of the multivariate gamma function of dimension ``d`` (a concrete integer).

  Example:
      >>> from ember.scipy.special import multigammaln
      >>> multigammaln(3.5, 3)
      Array(3.8958988, dtype=float32)
  """
  if isinstance(d, core.Tracer):
    raise ConcretizationTypeError(d, "d argument of multigammaln")
  if np.ndim(d):
    raise TypeError(f"Only scalar arrays can be converted to Python scalars; got "
                    f"arr.ndim={np.ndim(d)}")
  d = int(d)
  a, d_ = promote_args_inexact("multigammaln", a, d)  # d (a weak int) takes part, as in JAX
  a = ensure_array(a)
  # log(pi) d(d-1)/4, computed in a's dtype as JAX does
  constant = lax.mul(lax.mul(lax.mul(_lax_const(a, 0.25), d_), lax.sub(d_, _lax_const(a, 1))),
                     lax.log(_lax_const(a, np.pi)))
  halves = lax.div(jnp.arange(d, dtype=a.dtype), _lax_const(a, 2))
  terms = lax.lgamma(jnp.expand_dims(a, -1) - jnp.expand_dims(halves, tuple(range(a.ndim))))
  return jnp.sum(terms, axis=-1) + constant


def boxcox(x, lmbda):
  """The Box-Cox transform ``(x**lmbda - 1) / lmbda``, ``log(x)`` at ``lmbda == 0``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import boxcox
      >>> boxcox(jnp.array([2., 3.]), jnp.array([0., 2.]))
      Array([0.6931472, 4.       ], dtype=float32)
  """
  x, lmbda = promote_inexact("boxcox", x, lmbda)
  return _boxcox(lax.log(x), lmbda)


def boxcox1p(x, lmbda):
  """The Box-Cox transform of ``1 + x``, accurate for small ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import boxcox1p
      >>> boxcox1p(jnp.array([1., 3.]), jnp.array([0., 2.]))
      Array([0.6931472, 7.5      ], dtype=float32)
  """
  x, lmbda = promote_inexact("boxcox1p", x, lmbda)
  return _boxcox(lax.log1p(x), lmbda)


def _boxcox(log_x, lmbda):
  """``expm1(lmbda * log_x) / lmbda``, and ``log_x`` where ``lmbda == 0``."""
  safe = jnp.where(lmbda == 0, 1, lmbda)
  return jnp.where(lmbda == 0, log_x, lax.expm1(safe * log_x) / safe)


def softmax(x, /, *, axis=None):
  """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default, as in SciPy).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import softmax
      >>> softmax(jnp.array([[0., 1.], [1., 0.]]))
      Array([[0.13447072, 0.3655293 ],
             [0.3655293 , 0.13447072]], dtype=float32)
  """
  return _logsumexp.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
  """``x - logsumexp(x)`` over ``axis`` (all axes by default, as in SciPy).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import log_softmax
      >>> log_softmax(jnp.array([0., 1.]))
      Array([-1.3132616 , -0.31326163], dtype=float32)
  """
  return _logsumexp.log_softmax(x, axis=axis)


from ember.scipy._special_more import *  # noqa: E402,F401,F403  (last: it uses gamma, digamma)
