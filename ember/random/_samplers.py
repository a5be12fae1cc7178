"""Continuous samplers: uniform, normal and the distributions derived from them by a transform.

Each public function checks its arguments eagerly (JAX's messages), then calls a jitted inner
function with the shape and dtype as static arguments; inner functions take the raw key data and
compose one another inline. The transforms from bits to samples are JAX's, operation for
operation, so the samples are bit-identical to JAX's for the same key:

- ``uniform``: the top mantissa bits of random bits, or-ed into the exponent of 1.0, give a
  float in [1, 2); subtract 1 and scale to [minval, maxval), clamped below at minval;
- ``normal``: ``sqrt(2) * erf_inv(u)`` for u uniform in (-1, 1); complex normals take two keys
  from ``split`` for the real and imaginary parts, scaled by 1/sqrt(2);
- the others: inverse CDFs (exponential, laplace, logistic, gumbel, cauchy, pareto, rayleigh,
  weibull_min), ``truncated_normal`` by inverting the normal CDF between the bounds, ``maxwell``
  as the norm of 3 normals, ``wald`` by Michael-Schucany-Haas, ``triangular`` by its inverse CDF.
"""
from __future__ import annotations

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.core.trace import get_aval
from ember.numpy._util import broadcast_shapes, check_arraylike, check_out_sharding
from ember.random._prng import (canonicalize_shape, check_key, jitted, random_bits,
                                split_keys)

__all__ = ["uniform", "normal", "truncated_normal", "exponential", "laplace", "logistic",
           "gumbel", "cauchy", "lognormal", "pareto", "weibull_min", "maxwell", "rayleigh",
           "wald", "triangular"]


# --- argument checks shared by the samplers ---------------------------------------------------

def float_dtype(name: str, dtype, allow_complex: bool = False) -> np.dtype:
  """The canonical float (or complex) dtype a sampler should produce."""
  if dtype is None:
    return dtypes.default_float_dtype()
  dtypes.check_user_dtype_supported(dtype, name)
  dt = dtypes.canonicalize_dtype(dtype)
  if not (dtypes.is_float(dt) or allow_complex and dtypes.is_complex(dt)):
    kinds = "a float or complex" if allow_complex else "a float"
    raise ValueError(f"dtype argument to `{name}` must be {kinds} dtype, got {dt}")
  return dt


def check_shape(name: str, shape: tuple, *param_shapes) -> None:
  """The parameters must broadcast to exactly ``shape``."""
  if param_shapes:
    result = broadcast_shapes(shape, *param_shapes)
    if result != shape:
      raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                       "argument, and the result of broadcasting the shapes must equal the "
                       f"shape argument, but got result {result} for shape argument {shape}.")


def sample_shape(name: str, shape, *params) -> tuple[int, ...]:
  """``shape`` checked against the parameters, or their broadcast shape when it is None."""
  check_arraylike(name, *params)
  param_shapes = [np.shape(p) for p in params]
  if shape is None:
    return broadcast_shapes(*param_shapes) if param_shapes else ()
  shape = canonicalize_shape(shape, name)
  check_shape(name, shape, *param_shapes)
  return shape


def split2(key):
  """The two keys of ``split(key)``, as raw key data."""
  keys = split_keys(key, shape=(2,))
  return tuple(lax.index_in_dim(keys, i, keepdims=False) for i in range(2))


def split3(key):
  """The three keys of ``split(key, 3)``, as raw key data."""
  keys = split_keys(key, shape=(3,))
  return tuple(lax.index_in_dim(keys, i, keepdims=False) for i in range(3))


def _const(value, dtype):
  return np.array(value, dtype)


def as_dtype(x, dtype):
  """``x`` converted to ``dtype`` (strongly typed); no operation when it already is."""
  aval = get_aval(x)
  if aval.dtype == dtype and not aval.weak_type:
    return x
  if isinstance(x, (int, float, np.generic, np.ndarray)):
    return np.asarray(x, dtype)
  return lax._convert_element_type(x, dtype)


# --- uniform and normal -----------------------------------------------------------------------

def unit_floats(key, *, shape, dtype):
  """Floats in [0, 1) of ``shape`` (``batch + shape`` for keys of shape ``batch + (2,)``)."""
  info = dtypes.finfo(dtype)
  nbits, nmant = info.bits, info.nmant
  # Enough random bits for the mantissa, in the narrowest width that holds them.
  rng_bits = next(w for w in (8, 16, 32, 64) if w > nmant)
  uint = np.dtype(f"uint{nbits}")
  b = random_bits(key, bit_width=rng_bits, shape=shape)
  if rng_bits != nbits:
    b = as_dtype(b, uint)
  one_bits = np.array(1.0, dtype).view(uint)
  b = lax.bitwise_or(lax.shift_right_logical(b, _const(rng_bits - nmant, uint)), one_bits)
  return lax.sub(lax.bitcast_convert_type(b, dtype), _const(1.0, dtype))


def scale_floats(floats, minval, maxval):
  """Floats in [0, 1) mapped to [minval, maxval) (clamped below, against rounding)."""
  dtype, rank = get_aval(floats).dtype, len(get_aval(floats).shape)
  minval = lax.broadcast_to_rank(as_dtype(minval, dtype), rank)
  maxval = lax.broadcast_to_rank(as_dtype(maxval, dtype), rank)
  return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


def uniform_sample(key, minval, maxval, *, shape, dtype):
  """Floats in [minval, maxval) (the inner function of ``uniform``, shared by the samplers)."""
  return scale_floats(unit_floats(key, shape=shape, dtype=dtype), minval, maxval)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None):
  """Uniform floats in ``[minval, maxval)``.

  Example:
      >>> import ember
      >>> uniform(ember.random.PRNGKey(42), (3,))
      Array([0.48870957, 0.6797972 , 0.6162715 ], dtype=float32)
  """
  check_out_sharding("uniform", out_sharding)
  data, _ = check_key("uniform", key)
  shape = canonicalize_shape(shape, "uniform")
  dtype = float_dtype("uniform", dtype)
  return jitted(uniform_sample, shape=shape, dtype=dtype)(data, minval, maxval)


def _lowest_above_minus_one(dtype):
  return _const(-1 + dtypes.finfo(dtype).eps / 2, dtype)


def _erf_inv_normal(u, dtype):
  return lax.mul(_const(np.sqrt(2), dtype), lax.erf_inv(u))


def normal_real(key, *, shape, dtype):
  """Real standard normals (``batch + shape`` of them for batched keys, as ``unit_floats``)."""
  # u in (-1, 1): the uniform's lower end is the float just above -1, so erf_inv stays finite.
  u = uniform_sample(key, _lowest_above_minus_one(dtype), _const(1.0, dtype), shape=shape,
                     dtype=dtype)
  return _erf_inv_normal(u, dtype)


def normal_sample(key, *, shape, dtype):
  if not dtypes.is_complex(dtype):
    return normal_real(key, shape=shape, dtype=dtype)
  real = dtypes.finfo(dtype).dtype
  parts = normal_real(split_keys(key, shape=(2,)), shape=shape, dtype=real)
  re, im = (as_dtype(lax.index_in_dim(parts, i, keepdims=False), dtype) for i in (0, 1))
  z = lax.add(re, lax.mul(_const(1j, dtype), im))
  return lax.div(z, _const(_const(np.sqrt(2), real), dtype))


def normal(key, shape=(), dtype=None, *, out_sharding=None):
  """Standard normal samples (real, or complex with unit variance for complex dtypes).

  Example:
      >>> import ember
      >>> normal(ember.random.PRNGKey(0), (2,))
      Array([1.6226422, 2.0252647], dtype=float32)
  """
  check_out_sharding("normal", out_sharding)
  data, _ = check_key("normal", key)
  shape = canonicalize_shape(shape, "normal")
  dtype = float_dtype("normal", dtype, allow_complex=True)
  return jitted(normal_sample, shape=shape, dtype=dtype)(data)


# --- inverse-CDF transforms of one uniform ----------------------------------------------------

def float_args(name: str, key, shape, dtype):
  data, _ = check_key(name, key)
  return data, canonicalize_shape(shape, name), float_dtype(name, dtype)


def exponential_sample(key, *, shape, dtype):
  u = uniform_sample(key, 0.0, 1.0, shape=shape, dtype=dtype)
  return lax.neg(lax.log1p(lax.neg(u)))


def exponential(key, shape=(), dtype=None, *, out_sharding=None):
  """Exponential samples with rate 1: ``-log1p(-u)``.

  Example:
      >>> import ember
      >>> exponential(ember.random.PRNGKey(42), (2,))
      Array([0.6708175, 1.1388006], dtype=float32)
  """
  check_out_sharding("exponential", out_sharding)
  data, shape, dtype = float_args("exponential", key, shape, dtype)
  return jitted(exponential_sample, shape=shape, dtype=dtype)(data)


def _laplace(key, *, shape, dtype):
  u = uniform_sample(key, _lowest_above_minus_one(dtype), 1.0, shape=shape, dtype=dtype)
  return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def laplace(key, shape=(), dtype=None, *, out_sharding=None):
  """Laplace samples with scale 1: ``sign(u) * log1p(-|u|)`` for u uniform in (-1, 1).

  Example:
      >>> import ember
      >>> laplace(ember.random.PRNGKey(42), (3,))
      Array([ 0.02283965, -0.44565356, -0.2646729 ], dtype=float32)
  """
  check_out_sharding("laplace", out_sharding)
  data, shape, dtype = float_args("laplace", key, shape, dtype)
  return jitted(_laplace, shape=shape, dtype=dtype)(data)


def _logistic(key, *, shape, dtype):
  u = uniform_sample(key, _const(dtypes.finfo(dtype).tiny, dtype), 1.0, shape=shape, dtype=dtype)
  return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


def logistic(key, shape=(), dtype=None, *, out_sharding=None):
  """Standard logistic samples: ``log(u) - log1p(-u)``.

  Example:
      >>> import ember
      >>> logistic(ember.random.PRNGKey(42), (3,))
      Array([-0.04516941,  0.7528398 ,  0.47375232], dtype=float32)
  """
  check_out_sharding("logistic", out_sharding)
  data, shape, dtype = float_args("logistic", key, shape, dtype)
  return jitted(_logistic, shape=shape, dtype=dtype)(data)


def gumbel_sample(key, *, shape, dtype, mode):
  info = dtypes.finfo(dtype)
  if mode == "high":
    # Two uniforms per sample: the second refines the first's lowest bits where u < 1/2, so
    # samples in the upper tail keep their resolution.
    u = uniform_sample(key, 0.0, 1.0, shape=(2,) + shape, dtype=dtype)
    u1, u2 = lax.index_in_dim(u, 0, keepdims=False), lax.index_in_dim(u, 1, keepdims=False)
    refined = lax.add(lax.add(u1, lax.mul(_const(info.eps, dtype), u2)), _const(info.tiny, dtype))
    u = lax.select(lax.ge(u1, _const(0.5, dtype)), u1, refined)
    return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(u)))))
  u = uniform_sample(key, _const(info.tiny, dtype), 1.0, shape=shape, dtype=dtype)
  return lax.neg(lax.log(lax.neg(lax.log(u))))


def check_gumbel_mode(mode) -> str:
  if mode is None:
    return "low"
  if mode not in ("low", "high"):
    raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
  return mode


def gumbel(key, shape=(), dtype=None, mode=None, *, out_sharding=None):
  """Standard Gumbel samples: ``-log(-log(u))``; ``mode='high'`` spends two uniforms per sample
  for accuracy in the upper tail.

  Example:
      >>> import ember
      >>> gumbel(ember.random.PRNGKey(42), (3,))
      Array([0.3340934 , 0.95201945, 0.72553056], dtype=float32)
  """
  check_out_sharding("gumbel", out_sharding)
  data, shape, dtype = float_args("gumbel", key, shape, dtype)
  return jitted(gumbel_sample, shape=shape, dtype=dtype, mode=check_gumbel_mode(mode))(data)


def _cauchy(key, *, shape, dtype):
  u = uniform_sample(key, _const(dtypes.finfo(dtype).eps, dtype), 1.0, shape=shape, dtype=dtype)
  return lax.tan(lax.mul(_const(np.pi, dtype), lax.sub(u, _const(0.5, dtype))))


def cauchy(key, shape=(), dtype=None, *, out_sharding=None):
  """Standard Cauchy samples: ``tan(pi * (u - 1/2))``.

  Example:
      >>> import ember
      >>> cauchy(ember.random.PRNGKey(42), (3,))
      Array([-0.03548463,  0.6337261 ,  0.38244057], dtype=float32)
  """
  check_out_sharding("cauchy", out_sharding)
  data, shape, dtype = float_args("cauchy", key, shape, dtype)
  return jitted(_cauchy, shape=shape, dtype=dtype)(data)


def _rayleigh(key, scale, *, shape, dtype):
  u = uniform_sample(key, 0.0, 1.0, shape=shape, dtype=dtype)
  scale = jnp.broadcast_to(as_dtype(scale, dtype), shape)
  return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(-2.0, dtype))))


def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
  """Rayleigh samples: ``scale * sqrt(-2 log u)``.

  Example:
      >>> import ember
      >>> rayleigh(ember.random.PRNGKey(42), 1.0, (3,))
      Array([1.1966511, 0.8785907, 0.9839387], dtype=float32)
  """
  check_out_sharding("rayleigh", out_sharding)
  data, _ = check_key("rayleigh", key)
  dtype = float_dtype("rayleigh", dtype)
  shape = sample_shape("rayleigh", shape, scale)
  return jitted(_rayleigh, shape=shape, dtype=dtype)(data, scale)


def _weibull_min(key, scale, concentration, *, shape, dtype):
  u = uniform_sample(key, 0, 1, shape=shape, dtype=dtype)
  x = lax.neg(lax.log1p(lax.neg(u)))
  power = lax.div(_const(1.0, dtype), as_dtype(concentration, dtype))
  return jnp.multiply(jnp.power(x, power), as_dtype(scale, dtype))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
  """Weibull samples: ``scale * (-log1p(-u)) ** (1 / concentration)``.

  Example:
      >>> import ember
      >>> weibull_min(ember.random.PRNGKey(42), 1.0, 2.0, (3,))
      Array([0.8190345, 1.0671461, 0.9786828], dtype=float32)
  """
  data, shape, dtype = float_args("weibull_min", key, shape, dtype)
  return jitted(_weibull_min, shape=shape, dtype=dtype)(data, scale, concentration)


def _pareto(key, b, *, shape, dtype):
  e = exponential_sample(key, shape=shape, dtype=dtype)
  return lax.exp(jnp.divide(e, as_dtype(b, dtype)))


def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
  """Pareto samples with shape ``b`` (and scale 1): ``exp(e / b)`` for e exponential.

  Example:
      >>> import ember
      >>> pareto(ember.random.PRNGKey(42), 3.0, (3,))
      Array([1.2505779, 1.4617002, 1.3761275], dtype=float32)
  """
  check_out_sharding("pareto", out_sharding)
  data, _ = check_key("pareto", key)
  dtype = float_dtype("pareto", dtype)
  shape = sample_shape("pareto", shape, b)
  return jitted(_pareto, shape=shape, dtype=dtype)(data, b)


# --- transforms of normals --------------------------------------------------------------------

def _truncated_normal(key, lower, upper, *, shape, dtype):
  sqrt2 = _const(np.sqrt(2), dtype)
  lower, upper = as_dtype(lower, dtype), as_dtype(upper, dtype)
  a, b = lax.erf(lax.div(lower, sqrt2)), lax.erf(lax.div(upper, sqrt2))
  out = lax.mul(sqrt2, lax.erf_inv(uniform_sample(key, a, b, shape=shape, dtype=dtype)))
  # Rounding can land on a bound (or past it); samples stay strictly inside. The clamp is not a
  # function of the bounds for the gradient.
  lo = lax.nextafter(lax.stop_gradient(lower), _const(np.inf, dtype))
  hi = lax.nextafter(lax.stop_gradient(upper), _const(-np.inf, dtype))
  return jnp.minimum(hi, jnp.maximum(lo, out))


def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
  """Standard normal samples conditioned on ``lower < x < upper``.

  Example:
      >>> import ember
      >>> truncated_normal(ember.random.PRNGKey(42), -1, 2, (3,))
      Array([0.14770006, 0.5684449 , 0.4210255 ], dtype=float32)
  """
  check_out_sharding("truncated_normal", out_sharding)
  data, _ = check_key("truncated_normal", key)
  dtype = float_dtype("truncated_normal", dtype)
  shape = sample_shape("truncated_normal", shape, lower, upper)
  return jitted(_truncated_normal, shape=shape, dtype=dtype)(data, lower, upper)


def _lognormal(key, sigma, *, shape, dtype):
  return lax.exp(jnp.multiply(normal_real(key, shape=shape, dtype=dtype),
                              as_dtype(sigma, dtype)))


_ONE = np.float32(1)  # JAX's default sigma


def lognormal(key, sigma=_ONE, shape=None, dtype=None, *, out_sharding=None):
  """Log-normal samples: ``exp(sigma * n)`` for n standard normal.

  Example:
      >>> import ember
      >>> lognormal(ember.random.PRNGKey(42), shape=(3,))
      Array([0.9720922, 1.5954118, 1.3440709], dtype=float32)
  """
  check_out_sharding("lognormal", out_sharding)
  data, _ = check_key("lognormal", key)
  dtype = float_dtype("lognormal", dtype)
  shape = sample_shape("lognormal", shape, sigma)
  return jitted(_lognormal, shape=shape, dtype=dtype)(data, sigma)


def maxwell_sample(key, *, shape, dtype):
  n = normal_real(key, shape=shape + (3,), dtype=dtype)
  return lax.sqrt(lax.reduce_sum(lax.mul(n, n), (len(shape),)))


def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
  """Maxwell samples: the norm of 3 independent standard normals.

  Example:
      >>> import ember
      >>> maxwell(ember.random.PRNGKey(42), (3,))
      Array([0.5535825 , 0.29328507, 1.708603  ], dtype=float32)
  """
  check_out_sharding("maxwell", out_sharding)
  data, shape, dtype = float_args("maxwell", key, shape, dtype)
  return jitted(maxwell_sample, shape=shape, dtype=dtype)(data)


def _wald(key, mean, *, shape, dtype):
  # A normal from split(key)[0] and a uniform from split(key)[1], drawn in one threefry call.
  unit = unit_floats(split_keys(key, shape=(2,)), shape=shape, dtype=dtype)
  u_normal, u = (lax.index_in_dim(unit, i, keepdims=False) for i in (0, 1))
  mean = jnp.broadcast_to(as_dtype(mean, dtype), shape)
  y = lax.integer_pow(_erf_inv_normal(
      scale_floats(u_normal, _lowest_above_minus_one(dtype), 1.0), dtype), 2)
  z = scale_floats(u, 0.0, 1.0)
  y_sq, mean_sq = lax.integer_pow(y, 2), lax.integer_pow(mean, 2)
  root = lax.sqrt(lax.add(lax.mul(lax.mul(_const(4.0, dtype), mean), y), lax.mul(mean_sq, y_sq)))
  x = lax.sub(lax.add(mean, lax.div(lax.mul(mean_sq, y), _const(2.0, dtype))),
              lax.mul(lax.div(mean, _const(2.0, dtype)), root))
  return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
  """Wald (inverse Gaussian) samples with the given mean and unit shape parameter.

  Example:
      >>> import ember
      >>> wald(ember.random.PRNGKey(42), 1.0, (3,))
      Array([1.0788625 , 1.61878   , 0.29691076], dtype=float32)
  """
  check_out_sharding("wald", out_sharding)
  data, _ = check_key("wald", key)
  dtype = float_dtype("wald", dtype)
  shape = sample_shape("wald", shape, mean)
  return jitted(_wald, shape=shape, dtype=dtype)(data, mean)


def _triangular(key, left, mode, right, *, shape, dtype):
  left, mode, right = (jnp.broadcast_to(as_dtype(v, dtype), shape)
                       for v in (left, mode, right))
  cut = lax.div(lax.sub(mode, left), lax.sub(right, left))
  u = uniform_sample(key, 0.0, 1.0, shape=shape, dtype=dtype)
  below = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, lax.sub(right, left)), lax.sub(mode, left))))
  above = lax.sub(right, lax.sqrt(lax.mul(lax.mul(lax.sub(_const(1.0, dtype), u),
                                                  lax.sub(right, left)), lax.sub(right, mode))))
  return lax.select(lax.lt(u, cut), below, above)


def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
  """Triangular samples on ``[left, right]`` peaking at ``mode``, by the inverse CDF.

  Example:
      >>> import ember
      >>> triangular(ember.random.PRNGKey(42), 0.0, 1.0, 4.0, (3,))
      Array([1.5230088, 2.0397873, 1.8541338], dtype=float32)
  """
  check_out_sharding("triangular", out_sharding)
  data, _ = check_key("triangular", key)
  dtype = float_dtype("triangular", dtype)
  shape = sample_shape("triangular", shape, left, mode, right)
  return jitted(_triangular, shape=shape, dtype=dtype)(data, left, mode, right)
