"""Gaussian kernel density estimation, mirroring ``jax.scipy.stats.gaussian_kde``."""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ember import dtypes
from ember import numpy as jnp
from ember import random
from ember.numpy._util import check_arraylike, promote_dtypes_inexact
from ember.scipy import linalg, special
from ember.transforms.batching import vmap as _vmap
from ember.transforms.jit import jit as _jit
from ember.tree_util import register_pytree_node_class

__all__ = ["gaussian_kde"]


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
  """A Gaussian kernel density estimate of the (weighted) points ``dataset``.

  ``dataset`` is (d, n): n points in d dimensions (a 1-D array is n points in one dimension).
  ``bw_method`` picks the bandwidth factor: "scott" (the default, ``neff**(-1/(d+4))``),
  "silverman", a scalar, or a function of the estimator. ``weights`` (length n) default to
  uniform. A pytree (its leaves: neff, dataset, weights, covariance, inv_cov), so it can be an
  argument of a jitted function, as in JAX. Changing the bandwidth afterwards and box integrals
  in more than one dimension are not supported (NotImplementedError, as in JAX).

  Raises:
      ValueError: for a dataset of fewer than two elements, an unknown ``bw_method`` or
          ``weights`` of the wrong shape.
      NotImplementedError: for complex data.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.stats import gaussian_kde
      >>> kde = gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.]))
      >>> kde.evaluate(jnp.array([0., 2.]))
      Array([0.08177225, 0.1559453 ], dtype=float32)
  """
  neff: Any
  dataset: Any
  weights: Any
  covariance: Any
  inv_cov: Any

  def __init__(self, dataset, bw_method=None, weights=None):
    check_arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if dtypes.issubdtype(dataset.dtype, np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
      raise ValueError("`dataset` input should have multiple elements.")
    d, n = dataset.shape
    if weights is not None:
      check_arraylike("gaussian_kde", weights)
      dataset, weights = (jnp.asarray(v) for v in promote_dtypes_inexact(dataset, weights))
      weights = jnp.atleast_1d(weights)
      weights = weights / jnp.sum(weights)
      if weights.ndim != 1:
        raise ValueError("`weights` input should be one-dimensional.")
      if len(weights) != n:
        raise ValueError("`weights` input should be of length n")
    else:
      dataset = jnp.asarray(promote_dtypes_inexact(dataset)[0])
      weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
    self._setattr("dataset", dataset)
    self._setattr("weights", weights)
    neff = self._setattr("neff", 1 / jnp.sum(weights ** 2))
    factor = self._bandwidth_factor("scott" if bw_method is None else bw_method, neff, d)
    data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
    self._setattr("covariance", data_covariance * factor ** 2)
    self._setattr("inv_cov", jnp.linalg.inv(data_covariance) / factor ** 2)

  def _bandwidth_factor(self, bw_method, neff, d):
    if isinstance(bw_method, str) and bw_method == "scott":
      return jnp.power(neff, -1. / (d + 4))
    if isinstance(bw_method, str) and bw_method == "silverman":
      return jnp.power(neff * (d + 2) / 4.0, -1. / (d + 4))
    if jnp.isscalar(bw_method) and not isinstance(bw_method, str):
      return bw_method
    if callable(bw_method):
      return bw_method(self)
    raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

  def _setattr(self, name, value):
    object.__setattr__(self, name, value)  # the dataclass is frozen
    return value

  def tree_flatten(self):
    """The pytree children (neff, dataset, weights, covariance, inv_cov) and no aux data.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> len(gaussian_kde(jnp.array([1., 2., 4.])).tree_flatten()[0])
        5
    """
    return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    """The estimator rebuilt from ``tree_flatten``'s children.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> kde = gaussian_kde(jnp.array([1., 2., 4.]))
        >>> gaussian_kde.tree_unflatten(None, kde.tree_flatten()[0]).n
        3
    """
    del aux_data
    kde = cls.__new__(cls)
    for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children):
      kde._setattr(name, value)
    return kde

  @property
  def d(self):
    """The number of dimensions."""
    return self.dataset.shape[0]

  @property
  def n(self):
    """The number of data points."""
    return self.dataset.shape[1]

  def evaluate(self, points):
    """The estimated density at ``points`` ((d, m), or m scalars when d is 1).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.])).evaluate(2.)
        Array([0.1559453], dtype=float32)
    """
    check_arraylike("evaluate", points)
    points = self._reshape_points(points)
    result = _gaussian_kernel_eval(False, self.dataset.T, self.weights[:, None], points.T,
                                   self.inv_cov)
    return result[:, 0]

  def __call__(self, points):
    return self.evaluate(points)

  def pdf(self, x):
    """The estimated density at ``x`` (``evaluate``).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.])).pdf(2.)
        Array([0.1559453], dtype=float32)
    """
    return self.evaluate(x)

  def logpdf(self, x):
    """The log of the estimated density at ``x``, computed with ``logsumexp``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.])).logpdf(2.)
        Array([-1.85825], dtype=float32)
    """
    check_arraylike("logpdf", x)
    x = self._reshape_points(x)
    result = _gaussian_kernel_eval(True, self.dataset.T, self.weights[:, None], x.T,
                                   self.inv_cov)
    return result[:, 0]

  def integrate_gaussian(self, mean, cov):
    """The integral of the estimate times the Gaussian density N(mean, cov).

    Raises:
        ValueError: if ``mean`` or ``cov`` does not have the estimate's dimension.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.])).integrate_gaussian(1., 2.)
        Array(0.11277288, dtype=float32)
    """
    mean = jnp.atleast_1d(jnp.squeeze(mean))
    cov = jnp.atleast_2d(cov)
    if mean.shape != (self.d,):
      raise ValueError(f"mean does not have dimension {self.d}")
    if cov.shape != (self.d, self.d):
      raise ValueError(f"covariance does not have dimension {self.d}")
    chol = linalg.cho_factor(self.covariance + cov)
    norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
    return _gaussian_kernel_convolve(chol, norm, self.dataset, self.weights, mean)

  @_jit
  def integrate_box_1d(self, low, high):
    """The estimate's mass between the scalars ``low`` and ``high`` (one dimension only).

    Raises:
        ValueError: for a multi-dimensional estimate or non-scalar limits.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.])).integrate_box_1d(0., 3.)
        Array(0.40639168, dtype=float32)
    """
    if self.d != 1:
      raise ValueError("integrate_box_1d() only handles 1D pdfs")
    if np.ndim(low) != 0 or np.ndim(high) != 0:
      raise ValueError("the limits of integration in integrate_box_1d must be scalars")
    sigma = jnp.squeeze(jnp.sqrt(self.covariance))
    low = jnp.squeeze((low - self.dataset) / sigma)
    high = jnp.squeeze((high - self.dataset) / sigma)
    return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

  def integrate_kde(self, other):
    """The integral of the product of this estimate and ``other``.

    Raises:
        ValueError: if the two estimates differ in dimension.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> kde = gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.]))
        >>> kde.integrate_kde(gaussian_kde(jnp.array([0., 1., 5.])))
        Array(0.0918826, dtype=float32)
    """
    if other.d != self.d:
      raise ValueError("KDEs are not the same dimensionality")
    chol = linalg.cho_factor(self.covariance + other.covariance)
    norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
    small, large = (self, other) if self.n < other.n else (other, self)
    result = _vmap(partial(_gaussian_kernel_convolve, chol, norm, large.dataset, large.weights),
                  in_axes=1)(small.dataset)
    return jnp.sum(result * small.weights)

  @partial(_jit, static_argnames=("shape",))
  def resample(self, key, shape=()):
    """``shape`` new (d-dimensional) points drawn from the estimate, as a (d, *shape) array.

    Uses ``random.choice`` for the data points and ``random.multivariate_normal`` for the
    kernel noise, as JAX does (so the draws match JAX's for the same key).

    Example:
        >>> import ember, ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> kde = gaussian_kde(jnp.array([1., 2., 2.5, 4., 7.]))
        >>> kde.resample(ember.random.key(0), (3,)).shape
        (1, 3)
    """
    ind_key, eps_key = random.split(key)
    ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
    eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype),
                                     self.covariance, shape=shape, dtype=self.dataset.dtype).T
    return self.dataset[:, ind] + eps

  def integrate_box(self, low_bounds, high_bounds, maxpts=None):
    """Not supported (as in JAX): raises NotImplementedError; use ``integrate_box_1d``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 4.])).integrate_box(0., 1.)
        Traceback (most recent call last):
        NotImplementedError: only 1D box integrations are supported; use `integrate_box_1d`
    """
    del low_bounds, high_bounds, maxpts
    raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

  def set_bandwidth(self, bw_method=None):
    """Not supported (as in JAX): the estimator is immutable; raises NotImplementedError.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.stats import gaussian_kde
        >>> gaussian_kde(jnp.array([1., 2., 4.])).set_bandwidth("silverman")
        Traceback (most recent call last):
        NotImplementedError: dynamically changing the bandwidth method is not supported
    """
    del bw_method
    raise NotImplementedError("dynamically changing the bandwidth method is not supported")

  def _reshape_points(self, points):
    if dtypes.issubdtype(jnp.result_type(points), np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    d, m = points.shape
    if d != self.d:
      if d == 1 and m == self.d:
        points = jnp.reshape(points, (self.d, 1))
      else:
        raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
    return points


def _gaussian_kernel_convolve(chol, norm, target, weights, mean):
  """``norm * sum_i w_i exp(-(t_i - mean)' C^-1 (t_i - mean) / 2)`` for C's Cholesky ``chol``."""
  diff = target - mean[:, None]
  alpha = linalg.cho_solve(chol, diff)
  arg = 0.5 * jnp.sum(diff * alpha, axis=0)
  return norm * jnp.sum(jnp.exp(-arg) * weights)


@partial(_jit, static_argnums=0)
def _gaussian_kernel_eval(in_log, points, values, xi, precision):
  """The Gaussian kernel sum of ``values`` at ``points``, at ``xi`` (its log if ``in_log``)."""
  points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
  d = points.shape[1]
  if xi.shape[1] != d:
    raise ValueError("points and xi must have same trailing dim")
  if precision.shape != (d, d):
    raise ValueError("precision matrix must match data dims")
  whitening = linalg.cholesky(precision, lower=True)
  points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
  log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

  def kernel(x_test, x_train, y_train):
    arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
    return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

  reduce = special.logsumexp if in_log else jnp.sum
  return _vmap(lambda x: reduce(_vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0))(xi)
