"""Samplers that need loops or linear algebra: gamma and the distributions built on it (loggamma,
beta, dirichlet, chisquare, t, f), poisson and multivariate_normal.

As in ``_samplers``, each public function checks its arguments and calls a jitted inner
function with static shapes; the algorithms and the order in which keys are split are JAX's, so
the samples are JAX's bit for bit:

- ``gamma`` is Marsaglia and Tsang's rejection method, one key per element (the key split into
  as many keys as samples) and one ``while_loop`` per element, vectorized by ``vmap``. For
  ``a < 1`` it samples Gamma(a + 1) and multiplies by ``u ** (1 / a)`` (``loggamma`` adds
  ``log(u) / a`` instead, so tiny ``a`` does not underflow);
- ``poisson`` is Knuth's multiplication of uniforms for ``lam < 10`` and Hormann's transformed
  rejection above, both computed for every element, one key for the whole array;
- ``multivariate_normal`` maps standard normals through a factor of the covariance (Cholesky,
  or the square-rooted eigen/singular decomposition).

``gamma`` and ``loggamma`` are differentiable in ``a`` by JAX's implicit reparameterisation: a
sample moves with ``a`` at a fixed CDF value, ``dx/da = lax.random_gamma_grad(a, x)``, so the
samplers built on them (beta, dirichlet, chisquare, t, f, generalized_normal, ball) are too.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.core.trace import get_aval
from ember.numpy._util import check_arraylike, check_out_sharding
from ember.random._discrete import rademacher_sample
from ember.random._prng import (canonicalize_shape, check_key, current_impl, jitted, split_keys,
                                threefry_prng_impl)
from ember.random._samplers import (as_dtype, check_shape, exponential_sample, float_dtype,
                                    normal_real, normal_sample, sample_shape, split2,
                                    split3, uniform_sample)
from ember.transforms.batching import vmap
from ember.transforms.custom import custom_jvp

__all__ = ["gamma", "loggamma", "beta", "dirichlet", "chisquare", "t", "f", "poisson",
           "multivariate_normal", "generalized_normal", "ball", "orthogonal"]


# --- gamma ------------------------------------------------------------------------------------

def _gamma_one(key, alpha, *, log_space: bool):
  """One Gamma(alpha) sample (or its log) from one key, by Marsaglia and Tsang."""
  dtype = get_aval(alpha).dtype
  c_ = lambda v: np.array(v, dtype)
  one, zero = c_(1), c_(0)
  key, boost_key = split2(key)
  boost = lax.ge(alpha, one)
  alpha_orig, alpha = alpha, lax.select(boost, alpha, lax.add(alpha, one))
  d = lax.sub(alpha, c_(1 / 3))
  c = lax.div(c_(1 / 3), lax.sqrt(d))

  def rejected(state):
    _, x_sq, v, u = state
    squeeze = lax.ge(u, lax.sub(one, lax.mul(c_(0.0331), lax.mul(x_sq, x_sq))))
    full = lax.ge(lax.log(u), lax.add(lax.mul(x_sq, c_(0.5)),
                                      lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
    return lax.bitwise_and(squeeze, full)

  def positive_v(state):
    key, _, _ = state
    key, sub = split2(key)
    x = normal_real(sub, shape=(), dtype=dtype)
    return key, x, lax.add(one, lax.mul(x, c))

  def propose(state):
    key, x_key, u_key = split3(state[0])
    # Redraw the normal until 1 + c x > 0, so that v = (1 + c x)**3 is a valid proposal.
    _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), positive_v, (x_key, zero, c_(-1)))
    u = uniform_sample(u_key, 0.0, 1.0, shape=(), dtype=dtype)
    return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

  # The initial state (u = 2) is always rejected, so the loop draws at least one proposal.
  _, _, v, _ = lax.while_loop(rejected, propose, (key, zero, one, c_(2)))
  if log_space:
    # log(1 - u): minus an exponential sample.
    log_u = lax.log1p(lax.neg(uniform_sample(boost_key, 0.0, 1.0, shape=(), dtype=dtype)))
    log_boost = lax.select(lax.bitwise_or(boost, lax.eq(log_u, zero)), zero,
                           lax.mul(log_u, lax.div(one, alpha_orig)))
    return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
  u = lax.sub(one, uniform_sample(boost_key, 0.0, 1.0, shape=(), dtype=dtype))
  factor = lax.select(boost, one, lax.pow(u, lax.div(one, alpha_orig)))
  return lax.mul(lax.mul(d, v), factor)


def _gamma_draw(keys, a, log_space: bool):
  """One Gamma(a[i]) sample (or its log) per key ``keys[i]``: vmapped for threefry keys, a
  ``lax.map`` for others, as in JAX (under vmap an rbg key's bits would all come from the
  first key)."""
  one = lambda k, x: _gamma_one(k, x, log_space=log_space)
  if current_impl() is threefry_prng_impl:
    return vmap(one)(keys, a)
  return lax.map(lambda args: one(*args), (keys, a))


_gamma_draw = custom_jvp(_gamma_draw, nondiff_argnums=(2,))


@_gamma_draw.defjvp
def _gamma_draw_jvp(log_space, primals, tangents):
  """The implicit reparameterisation gradient: a sample x moves with ``a`` at a fixed CDF value,
  ``dx/da = random_gamma_grad(a, x)`` (divided by x for its log)."""
  keys, a = primals
  out = _gamma_draw(keys, a, log_space)
  if not log_space:
    return out, lax.mul(tangents[1], lax.random_gamma_grad(a, out))
  # A sample that underflowed to 0 moves as the smallest normal float does.
  x = lax.exp(out)
  x = lax.select(lax.eq(x, jnp.zeros_like(x)), jnp.full_like(x, dtypes.finfo(x.dtype).tiny), x)
  return out, lax.mul(tangents[1], lax.div(lax.random_gamma_grad(a, x), x))


def gamma_sample(key, a, *, shape, dtype, log_space: bool):
  """Gamma(a) samples of ``shape``: one key of ``split(key, size)`` per element."""
  a = jnp.broadcast_to(as_dtype(a, dtype), shape)
  size = math.prod(shape)
  keys = split_keys(key, shape=(size,))
  return lax.reshape(_gamma_draw(keys, lax.reshape(a, (size,)), log_space), shape)


def _gamma_args(name, key, a, shape, dtype):
  data, _ = check_key(name, key)
  dtype = float_dtype(name, dtype)
  return data, sample_shape(name, shape, a), dtype


def gamma(key, a, shape=None, dtype=None, *, out_sharding=None):
  """Gamma samples with shape ``a`` and unit scale, differentiable in ``a`` (each sample moves
  with ``a`` at a fixed CDF value).

  Example:
      >>> import ember
      >>> gamma(ember.random.PRNGKey(42), 2.5, (4,))
      Array([4.378075 , 1.5007864, 4.1941113, 1.5643135], dtype=float32)
      >>> ember.grad(lambda a: gamma(ember.random.PRNGKey(42), a, (4,)).sum())(2.5)
      Array(4.4196906, dtype=float32, weak_type=True)
  """
  check_out_sharding("gamma", out_sharding)
  data, shape, dtype = _gamma_args("gamma", key, a, shape, dtype)
  return jitted(gamma_sample, shape=shape, dtype=dtype, log_space=False)(data, a)


def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
  """Logs of Gamma(a) samples, accurate where the samples themselves underflow (small ``a``).

  Example:
      >>> import ember
      >>> loggamma(ember.random.PRNGKey(42), 2.0, (3,))
      Array([1.3008772, 0.0883638, 1.2532883], dtype=float32)
  """
  check_out_sharding("loggamma", out_sharding)
  data, shape, dtype = _gamma_args("loggamma", key, a, shape, dtype)
  return jitted(gamma_sample, shape=shape, dtype=dtype, log_space=True)(data, a)


# --- distributions built on gamma -------------------------------------------------------------

def _beta(key, a, b, *, shape, dtype):
  key_a, key_b = split2(key)
  log_a = gamma_sample(key_a, a, shape=shape, dtype=dtype, log_space=True)
  log_b = gamma_sample(key_b, b, shape=shape, dtype=dtype, log_space=True)
  # gamma_a / (gamma_a + gamma_b), scaled by the larger so that neither underflows.
  top = lax.max(log_a, log_b)
  ga, gb = lax.exp(lax.sub(log_a, top)), lax.exp(lax.sub(log_b, top))
  return lax.div(ga, lax.add(ga, gb))


def beta(key, a, b, shape=None, dtype=None, *, out_sharding=None):
  """Beta(a, b) samples: ``x / (x + y)`` for x ~ Gamma(a), y ~ Gamma(b).

  Example:
      >>> import ember
      >>> beta(ember.random.PRNGKey(42), 2.0, 3.0, (2,))
      Array([0.43196177, 0.3128183 ], dtype=float32)
  """
  check_out_sharding("beta", out_sharding)
  data, _ = check_key("beta", key)
  dtype = float_dtype("beta", dtype)
  shape = sample_shape("beta", shape, a, b)
  return jitted(_beta, shape=shape, dtype=dtype)(data, a, b)


def _dirichlet(key, alpha, *, shape, dtype):
  logs = gamma_sample(key, alpha, shape=shape, dtype=dtype, log_space=True)
  e = lax.exp(lax.sub(logs, lax.stop_gradient(jnp.max(logs, axis=-1, keepdims=True))))
  return lax.div(e, jnp.sum(e, axis=-1, keepdims=True))


def dirichlet(key, alpha, shape=None, dtype=None, *, out_sharding=None):
  """Dirichlet samples: the softmax of loggamma samples along alpha's last axis.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> dirichlet(ember.random.PRNGKey(42), jnp.array([1., 2., 3.]))
      Array([0.26473245, 0.1347997 , 0.60046774], dtype=float32)
  """
  check_out_sharding("dirichlet", out_sharding)
  data, _ = check_key("dirichlet", key)
  dtype = float_dtype("dirichlet", dtype)
  alpha_shape = np.shape(alpha)
  if len(alpha_shape) < 1:
    raise ValueError(f"The alpha parameter should have at least one dimension, got {alpha}")
  batch = alpha_shape[:-1] if shape is None else canonicalize_shape(shape, "dirichlet")
  check_shape("dirichlet", batch, alpha_shape[:-1])
  return jitted(_dirichlet, shape=batch + alpha_shape[-1:], dtype=dtype)(data, alpha)


def _chisquare(key, df, *, shape, dtype):
  two = np.array(2, dtype)
  half = lax.div(jnp.broadcast_to(as_dtype(df, dtype), shape), two)
  return lax.mul(lax.exp(gamma_sample(key, half, shape=shape, dtype=dtype, log_space=True)), two)


def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
  """Chi-square samples with ``df`` degrees of freedom: ``2 * Gamma(df / 2)``.

  Example:
      >>> import ember
      >>> chisquare(ember.random.PRNGKey(42), 2.0, (3,))
      Array([4.2906604, 0.6631682, 4.0144925], dtype=float32)
  """
  check_out_sharding("chisquare", out_sharding)
  data, _ = check_key("chisquare", key)
  dtype = float_dtype("chisquare", dtype)
  shape = sample_shape("chisquare", shape, df)
  return jitted(_chisquare, shape=shape, dtype=dtype)(data, df)


def _t(key, df, *, shape, dtype):
  key_n, key_g = split2(key)
  n = normal_real(key_n, shape=shape, dtype=dtype)
  half = lax.div(jnp.broadcast_to(as_dtype(df, dtype), shape), np.array(2, dtype))
  g = gamma_sample(key_g, half, shape=shape, dtype=dtype, log_space=False)
  return lax.mul(n, lax.sqrt(lax.div(half, g)))


def t(key, df, shape=None, dtype=None, *, out_sharding=None):
  """Student's t samples: ``n * sqrt(df / 2 / g)`` for n normal, g ~ Gamma(df / 2).

  Example:
      >>> import ember
      >>> t(ember.random.PRNGKey(42), 3.0, (3,))
      Array([ 0.08987478, -1.7357467 ,  2.352019  ], dtype=float32)
  """
  check_out_sharding("t", out_sharding)
  data, _ = check_key("t", key)
  dtype = float_dtype("t", dtype)
  shape = sample_shape("t", shape, df)
  return jitted(_t, shape=shape, dtype=dtype)(data, df)


def _f(key, dfnum, dfden, *, shape, dtype):
  key_den, key_num = split2(key)
  dfnum = jnp.broadcast_to(as_dtype(dfnum, dtype), shape)
  dfden = jnp.broadcast_to(as_dtype(dfden, dtype), shape)
  num = lax.div(_chisquare(key_num, dfnum, shape=shape, dtype=dtype), dfnum)
  den = lax.div(_chisquare(key_den, dfden, shape=shape, dtype=dtype), dfden)
  return lax.div(num, den)


def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
  """F samples: the ratio of chi-squares over their degrees of freedom.

  Example:
      >>> import ember
      >>> f(ember.random.PRNGKey(42), 2.0, 5.0, (3,))
      Array([0.6068869 , 0.07628862, 0.13752663], dtype=float32)
  """
  check_out_sharding("f", out_sharding)
  data, _ = check_key("f", key)
  dtype = float_dtype("f", dtype)
  shape = sample_shape("f", shape, dfnum, dfden)
  return jitted(_f, shape=shape, dtype=dtype)(data, dfnum, dfden)


# --- poisson ----------------------------------------------------------------------------------

def _poisson_knuth(key, lam, *, shape, dtype, max_iters):
  """Count the uniforms whose running product stays above exp(-lam), for every element at once
  (the loop runs until the slowest element is done)."""
  f32 = np.dtype(np.float32)

  def body(state):
    i, k, key, log_prod = state
    key, sub = split2(key)
    k = lax.select(lax.gt(log_prod, lax.neg(lam)), lax.add(k, np.array(1, dtype)), k)
    u = uniform_sample(sub, 0.0, 1.0, shape=shape, dtype=f32)
    return lax.add(i, np.array(1, dtype)), k, key, lax.add(log_prod, lax.log(u))

  def running(state):
    i, _, _, log_prod = state
    return lax.bitwise_and(jnp.any(lax.gt(log_prod, lax.neg(lam))), lax.lt(i, max_iters))

  init = (np.array(0, dtype), jnp.zeros(shape, dtype), key, jnp.zeros(shape, f32))
  k = lax.while_loop(running, body, init)[1]
  return lax.sub(k, np.array(1, dtype))


def _poisson_rejection(key, lam, *, shape, dtype, max_iters):
  """Hormann's transformed rejection (PTRS), every element redrawn until all are accepted."""
  f32 = np.dtype(np.float32)
  c_ = lambda v: np.array(v, f32)
  log_lam = lax.log(lam)
  b = lax.add(c_(0.931), lax.mul(c_(2.53), lax.sqrt(lam)))
  a = lax.add(c_(-0.059), lax.mul(c_(0.02483), b))
  inv_alpha = lax.add(c_(1.1239), lax.div(c_(1.1328), lax.sub(b, c_(3.4))))
  v_r = lax.sub(c_(0.9277), lax.div(c_(3.6224), lax.sub(b, c_(2))))

  def body(state):
    i, k_out, accepted, key = state
    key, key_u, key_v = split3(key)
    u = lax.sub(uniform_sample(key_u, 0.0, 1.0, shape=shape, dtype=f32), c_(0.5))
    v = uniform_sample(key_v, 0.0, 1.0, shape=shape, dtype=f32)
    us = lax.sub(c_(0.5), lax.abs(u))
    k = lax.floor(lax.add(lax.add(lax.mul(lax.add(lax.div(lax.mul(c_(2), a), us), b), u), lam),
                          c_(0.43)))
    s = lax.log(lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
    t_ = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, c_(1))))
    accept1 = lax.bitwise_and(lax.ge(us, c_(0.07)), lax.le(v, v_r))
    reject = lax.bitwise_or(lax.lt(k, c_(0)),
                            lax.bitwise_and(lax.lt(us, c_(0.013)), lax.gt(v, us)))
    accept = lax.bitwise_or(accept1, lax.bitwise_and(lax.bitwise_not(reject), lax.le(s, t_)))
    return (lax.add(i, np.array(1, dtype)), lax.select(accept, k, k_out),
            lax.bitwise_or(accepted, accept), key)

  def running(state):
    i, _, accepted, _ = state
    return lax.bitwise_and(jnp.any(lax.bitwise_not(accepted)), lax.lt(i, max_iters))

  init = (np.array(0, dtype), jnp.full(shape, -1, f32), jnp.zeros(shape, bool), key)
  return as_dtype(lax.while_loop(running, body, init)[1], dtype)


def _poisson(key, lam, *, shape, dtype):
  lam = jnp.broadcast_to(as_dtype(lam, np.dtype(np.float32)), shape)
  max_iters = np.array(dtypes.iinfo(dtype).max, dtype)
  knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, np.float32(10)))
  # Both algorithms run on every element; each gets a harmless lam where the other is used
  # (rejection's acceptance rate is highest for large lam).
  small = lax.select(knuth, lam, jnp.zeros_like(lam))
  large = lax.select(knuth, jnp.full_like(lam, 1e5), lam)
  out = lax.select(knuth,
                   _poisson_knuth(key, small, shape=shape, dtype=dtype, max_iters=max_iters),
                   _poisson_rejection(key, large, shape=shape, dtype=dtype, max_iters=max_iters))
  return lax.select(lax.eq(lam, np.float32(0)), jnp.zeros_like(out), out)


def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
  """Poisson samples with rate ``lam`` (computed in float32, as in JAX).

  Example:
      >>> import ember
      >>> poisson(ember.random.PRNGKey(42), 3.0, (6,))
      Array([6, 2, 2, 1, 5, 2], dtype=int32)
  """
  check_out_sharding("poisson", out_sharding)
  data, _ = check_key("poisson", key)
  if data._impl.name != "threefry2x32":  # JAX's sampler relies on threefry's splits
    raise NotImplementedError("`poisson` is only implemented for the threefry2x32 RNG, not "
                              f"{data._impl}")
  check_arraylike("poisson", lam)
  if dtype is None:
    dtype = dtypes.default_int_dtype()
  else:
    dtypes.check_user_dtype_supported(dtype, "poisson")
    dtype = dtypes.canonicalize_dtype(dtype)
  shape = np.shape(lam) if shape is None else canonicalize_shape(shape, "poisson")
  return jitted(_poisson, shape=shape, dtype=dtype)(data, lam)


# --- multivariate_normal ----------------------------------------------------------------------

def _multivariate_normal(key, mean, cov, *, shape, dtype, method):
  if method == "svd":
    u, s, _ = jnp.linalg.svd(cov)
    factor = jnp.multiply(u, jnp.sqrt(s[..., None, :]))
  elif method == "eigh":
    w, v = jnp.linalg.eigh(cov)
    factor = jnp.multiply(v, jnp.sqrt(w[..., None, :]))
  else:
    factor = jnp.linalg.cholesky(cov)
  n = normal_real(key, shape=shape + get_aval(mean).shape[-1:], dtype=dtype)
  return jnp.add(mean, jnp.einsum("...ij,...j->...i", factor, n))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky", *,
                        out_sharding=None):
  """Normal samples with mean ``mean`` and covariance ``cov`` (batched over leading axes), by a
  factor of the covariance: ``method`` is 'cholesky', 'eigh' or 'svd'.

  Example:
      >>> import ember
      >>> import ember.numpy as jnp
      >>> multivariate_normal(ember.random.PRNGKey(42), jnp.zeros(2), jnp.eye(2), (1,))
      Array([[-0.02830462,  0.46713185]], dtype=float32)
  """
  check_out_sharding("multivariate_normal", out_sharding)
  data, _ = check_key("multivariate_normal", key)
  if method not in {"svd", "eigh", "cholesky"}:
    raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
  dtype = float_dtype("multivariate_normal", dtype)
  mean, cov = jnp.asarray(mean), jnp.asarray(cov)
  float_type = dtypes.result_type(mean, cov, float)
  mean, cov = mean.astype(float_type), cov.astype(float_type)
  if mean.ndim < 1:
    raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
  if cov.ndim < 2:
    raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
  n = mean.shape[-1]
  if cov.shape[-2:] != (n, n):
    raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                     f"but got cov.shape == {cov.shape}.")
  if shape is None:
    shape = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
  else:
    shape = canonicalize_shape(shape, "multivariate_normal")
    check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
  return jitted(_multivariate_normal, shape=tuple(shape), dtype=dtype, method=method)(data, mean, cov)


# --- generalized_normal, ball, orthogonal -----------------------------------------------------

def _generalized_normal(key, inv_p, *, shape, dtype):
  key_g, key_r = split2(key)
  g = gamma_sample(key_g, inv_p, shape=shape, dtype=dtype, log_space=False)
  r = rademacher_sample(key_r, shape=shape, dtype=dtype)
  return jnp.multiply(r, jnp.power(g, inv_p))


def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
  """Samples with density proportional to ``exp(-|x| ** p)``: a random sign times
  ``Gamma(1 / p) ** (1 / p)``.

  Example:
      >>> import ember
      >>> generalized_normal(ember.random.PRNGKey(42), 2.0, (3,))
      Array([-0.7670091 , -0.22936897,  0.96897703], dtype=float32)
  """
  check_out_sharding("generalized_normal", out_sharding)
  data, _ = check_key("generalized_normal", key)
  dtype = float_dtype("generalized_normal", dtype)
  shape = sample_shape("generalized_normal", shape, p)
  # 1 / p as JAX computes it, before the conversion to dtype.
  return jitted(_generalized_normal, shape=shape, dtype=dtype)(data, 1 / p)


def _ball(key, p, inv_p, *, shape, dtype, d):
  key_g, key_e = split2(key)
  g = _generalized_normal(key_g, inv_p, shape=shape + (d,), dtype=dtype)
  e = exponential_sample(key_e, shape=shape, dtype=dtype)
  norm = jnp.power(jnp.add(jnp.sum(jnp.power(jnp.abs(g), p), axis=-1), e), inv_p)
  return jnp.divide(g, norm[..., None])


def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
  """Samples uniform in the unit ``p``-norm ball of dimension ``d`` (shape ``shape + (d,)``).

  Example:
      >>> import ember
      >>> ball(ember.random.PRNGKey(42), 2)
      Array([0.3234561 , 0.06134896], dtype=float32)
  """
  check_out_sharding("ball", out_sharding)
  data, _ = check_key("ball", key)
  d = operator.index(d)
  dtype = float_dtype("ball", dtype)
  shape = canonicalize_shape(shape, "ball")
  return jitted(_ball, shape=shape, dtype=dtype, d=d)(data, p, 1 / p)


def _orthogonal(key, *, shape, dtype, n, m):
  z = normal_sample(key, shape=shape + (max(n, m), min(n, m)), dtype=dtype)
  q, r = jnp.linalg.qr(z)
  diag = jnp.diagonal(r, 0, -2, -1)
  # Fix the signs (phases) of Q's columns so that the distribution is Haar.
  x = jnp.multiply(q, jnp.expand_dims(lax.div(diag, as_dtype(lax.abs(diag), diag.dtype)), -2))
  return jnp.swapaxes(jnp.conj(x), -1, -2) if n < m else x


def orthogonal(key, n, shape=(), dtype=None, m=None, *, out_sharding=None):
  """Haar-random ``n x m`` matrices with orthonormal columns (rows when ``n < m``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> q = orthogonal(ember.random.PRNGKey(42), 3)
      >>> q.shape, bool(jnp.allclose(q.T @ q, jnp.eye(3), atol=1e-6))
      ((3, 3), True)
  """
  check_out_sharding("orthogonal", out_sharding)
  data, _ = check_key("orthogonal", key)
  n = operator.index(n)
  m = n if m is None else operator.index(m)
  dtype = float_dtype("orthogonal", dtype, allow_complex=True)
  shape = canonicalize_shape(shape, "orthogonal")
  return jitted(_orthogonal, shape=shape, dtype=dtype, n=n, m=m)(data)
