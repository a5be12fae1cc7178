"""The standard normal distribution's functions: ``ndtr`` (its CDF), ``log_ndtr`` and ``ndtri``
(its quantile), shared by ember.scipy.special and ember.scipy.stats.norm."""
from __future__ import annotations

import functools

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.transforms.custom import custom_jvp

__all__ = ["log_ndtr", "ndtr", "ndtri"]


def ndtr(x):
  """The standard normal CDF, accurate in both tails (erf near 0, erfc beyond).

  Raises:
      TypeError: unless ``x`` is float32 or float64 (integers are not promoted, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import ndtr
      >>> ndtr(jnp.array([0., 1.]))
      Array([0.5      , 0.8413447], dtype=float32)
  """
  return _ndtr(x)


def _float32_or_64(x, note: str = ", see docstring for supported types"):
  """``x`` as a strongly typed float32 or float64 array; other dtypes (integers included) raise
  JAX's TypeError, as these functions are defined for those two only."""
  x = jnp.asarray(x)
  if x.dtype not in (np.float32, np.float64):
    raise TypeError(f"x.dtype={x.dtype} is not supported{note}.")
  return lax.convert_element_type(x, x.dtype)


def _ndtr(x):
  x = _float32_or_64(x)
  half_sqrt_2 = np.asarray(0.5 * np.sqrt(2), x.dtype)
  w = x * half_sqrt_2
  z = lax.abs(w)
  y = jnp.where(z < half_sqrt_2, 1 + lax.erf(w), jnp.where(w > 0, 2 - lax.erfc(z), lax.erfc(z)))
  return 0.5 * y


def log_ndtr(x, series_order: int = 3):
  """The log of the standard normal CDF, accurate far into the lower tail.

  Uses ``-ndtr(-x)`` in the upper tail, ``log(ndtr(x))`` in the middle and an asymptotic series
  of ``series_order`` terms below -10 (float32) or -20 (float64), as JAX does.

  Raises:
      ValueError: if ``series_order`` is negative or above 30.
      TypeError: unless ``x`` is float32 or float64.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import log_ndtr
      >>> log_ndtr(jnp.array([-30., 0.]))
      Array([-454.32123  ,   -0.6931472], dtype=float32)
  """
  series_order = int(series_order)
  if series_order < 0:
    raise ValueError("series_order must be non-negative.")
  if series_order > 30:
    raise ValueError("series_order must be <= 30.")
  return _log_ndtr(x, series_order)


def _log_ndtr(x, series_order):
  return _log_ndtr_checked(_float32_or_64(x, note=""), series_order)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _log_ndtr_checked(x, series_order):
  lower, upper = (-20., 8.) if x.dtype == np.float64 else (-10., 5.)
  middle = lax.log(_ndtr(jnp.maximum(x, lower)))
  return jnp.where(x > upper, -_ndtr(-x),
                   jnp.where(x > lower, middle, _log_ndtr_tail(jnp.minimum(x, lower),
                                                               series_order)))


def _log_ndtr_tail(x, series_order):
  """log ndtr(x) for very negative x: log(phi(x) / -x) + log(1 - 1/x^2 + 3/x^4 - ...)."""
  x_sq = lax.square(x)
  log_scale = -0.5 * x_sq - lax.log(-x) - 0.5 * float(np.log(2 * np.pi))
  series, term, inv = jnp.ones_like(x), jnp.ones_like(x), 1 / x_sq
  for k in range(1, series_order + 1):
    term = term * -(2 * k - 1) * inv
    series = series + term
  return log_scale + lax.log(series)


@_log_ndtr_checked.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
  x, = primals
  x_dot, = tangents
  out = _log_ndtr_checked(x, series_order)
  log_pdf = -0.5 * lax.square(x) - 0.5 * float(np.log(2 * np.pi))
  return out, x_dot * lax.exp(log_pdf - out)


# Cephes' rational approximations: |p - 0.5| <= 3/8; sqrt(-2 log p) in [2, 8); in [8, 64).
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)
_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
       1.59056225126211695515e1, -1.18331621121330003142e0)
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
       4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
       -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
       1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
       3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)


def _polyval(coeffs, x):
  acc = jnp.full_like(x, coeffs[0])
  for c in coeffs[1:]:
    acc = acc * x + c
  return acc


def ndtri(p):
  """The standard normal quantile function, the inverse of ``ndtr``.

  -inf at 0, inf at 1, NaN outside [0, 1].

  Raises:
      TypeError: unless ``p`` is float32 or float64.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import ndtri
      >>> ndtri(jnp.array([0.5, 0.975]))
      Array([0.       , 1.9599644], dtype=float32)
  """
  return _ndtri(p)


def _ndtri(p):
  p = _float32_or_64(p)
  exp_m2 = float(np.exp(-2))
  upper = p > 1 - exp_m2
  y = jnp.where(upper, 1 - p, p)
  # the central region
  w = jnp.where(y > exp_m2, y, 0.5) - 0.5
  w_sq = w * w
  central = (w + w * (w_sq * _polyval(_P0, w_sq) / _polyval(_Q0, w_sq))) * float(np.sqrt(2 * np.pi))
  # the tails
  t = lax.sqrt(-2 * lax.log(jnp.where(y > exp_m2, exp_m2, jnp.maximum(y, np.finfo(
      p.dtype).tiny))))
  z = 1 / t
  near = z * _polyval(_P1, z) / _polyval(_Q1, z)
  far = z * _polyval(_P2, z) / _polyval(_Q2, z)
  tail = t - lax.log(t) / t - jnp.where(t < 8, near, far)
  tail = jnp.where(upper, tail, -tail)
  out = jnp.where(y > exp_m2, central, tail)
  out = jnp.where(p == 0, -np.inf, jnp.where(p == 1, np.inf, out))
  return jnp.where((p < 0) | (p > 1) | jnp.isnan(p), np.nan, out)
