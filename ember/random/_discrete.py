"""Discrete samplers and those built on them: randint, bernoulli, rademacher, geometric,
binomial, multinomial, categorical, choice, permutation, and double_sided_maxwell (a Maxwell
sample with a random sign).

As in ``_samplers``, each public function checks its arguments and calls a jitted inner function
with static shapes, and each transform is JAX's, so the samples are JAX's bit for bit:

- ``randint`` combines two words of random bits modulo the span (nearly unbiased for spans far
  below 2**bits), after clipping the bounds to the dtype; 8- and 16-bit integers are drawn as
  int32 and converted;
- ``categorical`` is the Gumbel-max trick (``argmax(logits + gumbel)``), and without replacement
  the top-k of the perturbed logits;
- ``binomial`` counts geometric gaps (inversion) where ``n * min(p, 1 - p) <= 10`` and uses
  Hormann's BTRS rejection elsewhere, both computed for every element from the same key;
- ``multinomial`` draws the classes' counts one after another, each a binomial sample of the
  trials left with the class's share of the probability left, one key per class;
- ``permutation`` sorts by random 32-bit keys, in as many rounds as make ties unlikely
  (``ceil(3 * log(n) / log(2**32 - 1))``, 1 up to about 1600 elements), each with a fresh key.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.core.trace import get_aval
from ember.numpy._util import (canonicalize_axis, check_arraylike, check_out_sharding,
                               promote_dtypes_inexact)
from ember.random._prng import (canonicalize_shape, check_key, jitted, random_bits,
                                split_keys)
from ember.random._samplers import (as_dtype, check_gumbel_mode, check_shape, float_args,
                                    float_dtype, gumbel_sample, maxwell_sample, sample_shape,
                                    split2, split3, uniform_sample)

__all__ = ["randint", "bernoulli", "rademacher", "geometric", "categorical", "choice",
           "permutation", "double_sided_maxwell", "binomial", "multinomial"]


def _int_dtype(name: str, dtype) -> np.dtype:
  if dtype is None:
    return dtypes.default_int_dtype()
  dtypes.check_user_dtype_supported(dtype, name)
  return dtypes.canonicalize_dtype(dtype)


# --- randint ----------------------------------------------------------------------------------

def _integers(x):
  x = jnp.asarray(x)
  return x if dtypes.is_integer(x.dtype) else lax._convert_element_type(
      x, dtypes.default_int_dtype())


def _clip_convert(x, dtype, lo: int, hi: int):
  """``x`` clamped to ``[lo, hi]`` (as far as its own dtype reaches), then converted."""
  src = dtypes.iinfo(x.dtype)
  lo, hi = max(lo, src.min), min(hi, src.max)
  x = lax.clamp(np.asarray(lo, x.dtype), x, np.asarray(hi, x.dtype))
  return as_dtype(x, dtype)


def randint_sample(key, minval, maxval, *, shape, dtype):
  minval, maxval = _integers(minval), _integers(maxval)
  info = dtypes.iinfo(dtype)
  if info.bits < 32:
    i32 = np.dtype(np.int32)
    out = randint_sample(key, _clip_convert(minval, i32, info.min, info.max),
                         _clip_convert(maxval, i32, info.min, info.max + 1), shape=shape, dtype=i32)
    return as_dtype(out, dtype)
  # A maxval past the dtype's top is clipped to it, which takes one value out of the span:
  # remember it and add the value back.
  top = dtypes.iinfo(maxval.dtype)
  out_of_range = lax.gt(maxval, np.asarray(min(max(info.max, top.min), top.max), maxval.dtype))
  minval = lax.broadcast_to_rank(_clip_convert(minval, dtype, info.min, info.max), len(shape))
  maxval = lax.broadcast_to_rank(_clip_convert(maxval, dtype, info.min, info.max), len(shape))
  unsigned = np.dtype(f"uint{info.bits}")
  # The bits of split(key)[0] and split(key)[1], in one threefry call.
  both = random_bits(split_keys(key, shape=(2,)), bit_width=info.bits, shape=shape)
  higher, lower = (lax.index_in_dim(both, i, keepdims=False) for i in (0, 1))
  span = lax._convert_element_type(lax.sub(maxval, minval), unsigned)
  span = lax.select(lax.le(maxval, minval), lax.full_like(span, 1), span)  # empty: minval
  grow = lax.bitwise_and(lax.broadcast_to_rank(out_of_range, len(shape)), lax.gt(maxval, minval))
  span = lax.select(grow, lax.add(span, np.asarray(1, unsigned)), span)
  # (higher * 2**bits + lower) mod span, computed without overflow.
  multiplier = lax.rem(np.asarray(2 ** (info.bits // 2), unsigned), span)
  multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
  offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
  return lax.add(minval, as_dtype(lax.rem(offset, span), dtype))


def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
  """Uniform integers in ``[minval, maxval)``; bounds outside the dtype are clipped to it.

  Example:
      >>> import ember
      >>> randint(ember.random.PRNGKey(42), (6,), 0, 10)
      Array([4, 4, 1, 9, 9, 9], dtype=int32)
  """
  check_out_sharding("randint", out_sharding)
  data, _ = check_key("randint", key)
  dtype = _int_dtype("randint", dtype)
  if not dtypes.is_integer(dtype):
    raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
  shape = canonicalize_shape(shape, "randint")
  check_arraylike("randint", minval, maxval)
  check_shape("randint", shape, np.shape(minval), np.shape(maxval))
  return jitted(randint_sample, shape=shape, dtype=dtype)(data, minval, maxval)


# --- Bernoulli and friends --------------------------------------------------------------------

def bernoulli_sample(key, p, *, shape, mode):
  dtype = get_aval(p).dtype
  if mode == "low":
    return jnp.less(uniform_sample(key, 0.0, 1.0, shape=shape, dtype=dtype), p)
  # 'high': a second uniform refines the comparison below the first's resolution.
  u = uniform_sample(key, 0.0, 1.0, shape=(2,) + shape, dtype=dtype)
  u1, u2 = lax.index_in_dim(u, 0, keepdims=False), lax.index_in_dim(u, 1, keepdims=False)
  return jnp.less(lax.mul(u2, np.asarray(dtypes.finfo(dtype).eps, dtype)), jnp.subtract(p, u1))


def bernoulli(key, p=0.5, shape=None, mode="low", *, out_sharding=None):
  """Booleans that are True with probability ``p``.

  Example:
      >>> import ember
      >>> bernoulli(ember.random.PRNGKey(42), 0.3, (4,))
      Array([False, False, False, False], dtype=bool)
  """
  check_out_sharding("bernoulli", out_sharding)
  data, _ = check_key("bernoulli", key)
  if mode not in ("high", "low"):
    raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
  check_arraylike("bernoulli", p)
  dtype = dtypes.dtype(p, canonicalize=True)
  if not dtypes.is_float(dtype):
    raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
  shape = sample_shape("bernoulli", shape, p)
  return jitted(bernoulli_sample, shape=shape, mode=mode)(data, p)


def rademacher_sample(key, *, shape, dtype):
  b = as_dtype(bernoulli_sample(key, 0.5, shape=shape, mode="low"), dtype)
  return lax.sub(lax.mul(np.asarray(2, dtype), b), np.asarray(1, dtype))


def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
  """-1 or 1 with equal probability.

  Example:
      >>> import ember
      >>> rademacher(ember.random.PRNGKey(42), (4,))
      Array([ 1, -1, -1, -1], dtype=int32)
  """
  check_out_sharding("rademacher", out_sharding)
  data, _ = check_key("rademacher", key)
  shape = canonicalize_shape(shape, "rademacher")
  return jitted(rademacher_sample, shape=shape, dtype=_int_dtype("rademacher", dtype))(data)


def _geometric(key, p, *, shape, dtype):
  p = jnp.asarray(p)
  if not dtypes.is_float(p.dtype):
    p = lax._convert_element_type(p, dtypes.default_float_dtype())
  u = uniform_sample(key, 0.0, 1.0, shape=shape, dtype=p.dtype)
  u = jnp.where(lax.eq(u, np.asarray(0, p.dtype)), 1, u)  # log(0) would give no sample
  log_q = jnp.broadcast_to(lax.log1p(lax.neg(p)), shape)
  n = lax.add(lax.floor(lax.div(lax.log(u), log_q)), np.asarray(1, p.dtype))
  return as_dtype(n, dtype)


def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
  """The number of Bernoulli(p) trials up to the first success (at least 1).

  Example:
      >>> import ember
      >>> geometric(ember.random.PRNGKey(42), 0.5, (4,))
      Array([2, 1, 1, 1], dtype=int32)
  """
  check_out_sharding("geometric", out_sharding)
  data, _ = check_key("geometric", key)
  dtype = _int_dtype("geometric", dtype)
  if not dtypes.is_integer(dtype):
    raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
  shape = sample_shape("geometric", shape, p)
  return jitted(_geometric, shape=shape, dtype=dtype)(data, p)


# --- binomial ---------------------------------------------------------------------------------

# log(k!) minus Stirling's approximation (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2, k <= 9.
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.010411265261972, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
  """Stirling's error term of log(k!): the table up to 9, above it the asymptotic series
  ``(1/12 - (1/360 - 1/1260 / m**2) / m**2) / m`` at ``m = min(k, 9) + 1`` (as JAX evaluates it,
  which keeps its samples; the error is below 1e-3 and cancels where all four terms use it)."""
  dtype = get_aval(k).dtype
  c = lambda v: np.asarray(v, dtype)
  k9 = lax.clamp(c(0), k, c(9))
  m = lax.add(k9, c(1))
  m2 = lax.mul(m, m)
  series = lax.div(lax.sub(c(1 / 12), lax.div(lax.sub(c(1 / 360), lax.div(c(1 / 1260), m2)), m2)),
                   lax.add(k9, c(1)))
  table = jnp.asarray(np.asarray(_STIRLING_TAIL, dtype))[as_dtype(lax.floor(k9), np.int32)]
  return lax.select(lax.le(k, c(9)), table, series)


def _binomial_inversion(key, count, log1m_p, *, dtype):
  """Counts of successes as the number of geometric gaps (of -log(u) / -log(1 - p), rounded up)
  that fit into ``count`` trials, for all elements at once (at most as many rounds as ``dtype``
  counts)."""
  work = get_aval(count).dtype
  one = np.asarray(1, work)

  def body(state):
    i, successes, trials, key = state
    sub, key = split2(key)
    successes = lax.select(lax.le(trials, count), lax.add(successes, one), successes)
    u = uniform_sample(sub, 0.0, 1.0, shape=get_aval(count).shape, dtype=work)
    trials = lax.add(trials, lax.ceil(lax.div(lax.log(u), log1m_p)))
    return lax.add(i, np.asarray(1, get_aval(i).dtype)), successes, trials, key

  def running(state):
    i, _, trials, _ = state
    return lax.bitwise_and(jnp.any(lax.le(trials, count)), _below_max(i, dtype))

  zeros = jnp.zeros_like(count)
  init = (np.zeros((), dtypes.default_int_dtype()), zeros, zeros, key)
  return lax.sub(lax.while_loop(running, body, init)[1], one)


def _below_max(i, dtype):
  """JAX's iteration cap: the counter, as ``dtype``, below the dtype's largest value."""
  return lax.lt(as_dtype(i, dtype), np.asarray(dtypes.finfo(dtype).max, dtype))


def _btrs_log_bound(k, count, m, r):
  """The log of the binomial pmf at ``k`` relative to its mode ``m`` (the acceptance bound)."""
  dtype = get_aval(k).dtype
  half, one = np.asarray(0.5, dtype), np.asarray(1, dtype)
  count_m = lax.add(lax.sub(count, m), one)
  count_k = lax.add(lax.sub(count, k), one)
  bound = lax.add(
      lax.mul(lax.add(m, half), lax.log(lax.div(lax.add(m, one), lax.mul(r, count_m)))),
      lax.mul(lax.add(count, one), lax.log(lax.div(count_m, count_k))))
  bound = lax.add(bound, lax.mul(lax.add(k, half),
                                 lax.log(lax.div(lax.mul(r, count_k), lax.add(k, one)))))
  bound = lax.add(lax.add(bound, _stirling_tail(m)), _stirling_tail(lax.sub(count, m)))
  return lax.sub(lax.sub(bound, _stirling_tail(k)), _stirling_tail(lax.sub(count, k)))


def _binomial_btrs(key, count, p, *, dtype):
  """Hormann's transformed rejection with squeeze (BTRS), every element redrawn until all are
  accepted (an accepted element keeps taking later accepted draws, as in JAX)."""
  work = get_aval(p).dtype
  c = lambda v: np.asarray(v, work)
  stddev = lax.sqrt(lax.mul(lax.mul(count, p), lax.sub(c(1), p)))
  b = lax.add(c(1.15), lax.mul(c(2.53), stddev))
  a = lax.add(lax.add(c(-0.0873), lax.mul(c(0.0248), b)), lax.mul(c(0.01), p))
  center = lax.add(lax.mul(count, p), c(0.5))
  v_r = lax.sub(c(0.92), lax.div(c(4.2), b))
  r = lax.div(p, lax.sub(c(1), p))
  alpha = lax.mul(lax.add(c(2.83), lax.div(c(5.1), b)), stddev)
  m = lax.floor(lax.mul(lax.add(count, c(1)), p))

  def body(state):
    i, k_out, accepted, key = state
    key, key_u, key_v = split3(key)
    u = lax.sub(uniform_sample(key_u, 0.0, 1.0, shape=get_aval(p).shape, dtype=work), c(0.5))
    v = uniform_sample(key_v, 0.0, 1.0, shape=get_aval(p).shape, dtype=work)
    us = lax.sub(c(0.5), lax.abs(u))
    squeeze = lax.bitwise_and(lax.ge(us, c(0.07)), lax.le(v, v_r))
    k = lax.floor(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2), a), us), b), u), center))
    outside = lax.bitwise_or(lax.lt(k, c(0)), lax.gt(k, count))
    log_v = lax.log(lax.div(lax.mul(v, alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
    below = lax.le(log_v, _btrs_log_bound(k, count, m, r))
    accept = lax.bitwise_or(squeeze, lax.bitwise_and(lax.bitwise_not(outside), below))
    return (lax.add(i, np.asarray(1, get_aval(i).dtype)), lax.select(accept, k, k_out),
            lax.bitwise_or(accepted, accept), key)

  def running(state):
    i, _, accepted, _ = state
    return lax.bitwise_and(jnp.any(lax.bitwise_not(accepted)), _below_max(i, dtype))

  init = (np.zeros((), dtypes.default_int_dtype()), jnp.full_like(p, -1),
          jnp.zeros(get_aval(p).shape, bool), key)
  return lax.while_loop(running, body, init)[1]


def _binomial(key, n, p, *, shape, dtype):
  """Samples computed in the promoted float type of ``n`` and ``p`` and returned as ``dtype``
  (JAX's order of conversions, which its bits depend on)."""
  n, p = promote_dtypes_inexact(n, p)
  work = get_aval(n).dtype
  c = lambda v: np.asarray(v, work)
  n, p = jnp.broadcast_to(as_dtype(n, work), shape), jnp.broadcast_to(p, shape)
  # Sample with q = min(p, 1 - p) and count failures instead of successes when p >= 1/2.
  low = lax.lt(p, c(0.5))
  q = lax.select(low, p, lax.sub(c(1), p))
  bad_n = lax.bitwise_or(lax.ne(n, n), lax.lt(n, c(0)))
  inf_n = lax.eq(lax.abs(n), c(np.inf))
  q_nan = lax.ne(q, q)
  bad_q = lax.bitwise_or(q_nan, lax.lt(q, c(0)))
  q = lax.select(bad_q, jnp.full_like(q, 0.01), q)
  # Inversion for few expected successes; each algorithm gets harmless inputs where it is unused.
  use_inversion = lax.bitwise_or(bad_n, lax.le(lax.mul(n, q), c(10)))
  count = lax.floor(n)
  by_inversion = _binomial_inversion(
      key, lax.select(use_inversion, count, jnp.zeros_like(count)), lax.log1p(lax.neg(q)),
      dtype=dtype)
  by_btrs = _binomial_btrs(key, lax.select(use_inversion, jnp.full_like(count, 1e4), count),
                           lax.select(use_inversion, jnp.full_like(q, 0.5), q), dtype=dtype)
  out = lax.select(use_inversion, as_dtype(by_inversion, dtype), as_dtype(by_btrs, dtype))
  invalid = lax.bitwise_or(bad_q, bad_n)
  out = lax.select(invalid, jnp.full_like(out, np.nan), out)
  out = lax.select(lax.bitwise_and(inf_n, lax.bitwise_not(invalid)), jnp.full_like(out, np.inf),
                   out)
  keep = functools.reduce(lax.bitwise_or, [low, bad_n, q_nan, inf_n])
  return lax.select(keep, out, lax.sub(as_dtype(count, dtype), out))


def binomial(key, n, p, shape=None, dtype=None):
  """Binomial(n, p) samples: the number of successes in ``floor(n)`` trials of probability ``p``,
  as floats of ``dtype``. ``nan`` for ``n < 0`` or ``p`` outside [0, 1], ``inf`` for ``n = inf``.

  Inversion (counting geometric gaps) where ``n * min(p, 1 - p) <= 10``, Hormann's BTRS
  rejection elsewhere; the samples are JAX's, bit for bit.

  Example:
      >>> import ember
      >>> binomial(ember.random.PRNGKey(0), 10, 0.3, (8,))
      Array([2., 2., 1., 2., 1., 4., 6., 3.], dtype=float32)
  """
  data, _ = check_key("binomial", key)
  dtype = float_dtype("binomial", dtype)
  shape = sample_shape("binomial", shape, n, p)
  return jitted(_binomial, shape=shape, dtype=dtype)(data, n, p)


# --- multinomial ------------------------------------------------------------------------------

def _multinomial(key, n, p, *, shape, dtype, unroll):
  """Class by class (a scan over the last axis): the count of class ``i`` is a binomial sample
  of the trials not yet given to classes ``< i``, with probability ``p[i] / sum(p[i:])``."""
  n, p = promote_dtypes_inexact(n, p)
  n, p = jnp.broadcast_to(n, shape[:-1]), jnp.broadcast_to(p, shape)
  p = jnp.moveaxis(p, -1, 0)
  left = lax.cumsum(p, 0, reverse=True)
  ratios = lax.div(p, jnp.where(lax.eq(left, np.asarray(0, p.dtype)), 1, left))

  def draw(trials_left, ratio_and_key):
    ratio, sub = ratio_and_key
    ratio = jnp.clip(ratio, 0, 1)
    count = _binomial(sub, trials_left, ratio,
                      shape=jnp.broadcast_shapes(trials_left.shape, ratio.shape),
                      dtype=trials_left.dtype)
    return lax.sub(trials_left, count), count

  keys = split_keys(key, shape=(shape[-1],))
  _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
  return as_dtype(jnp.moveaxis(counts, 0, -1), dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
  """Counts of ``n`` trials over the classes along ``p``'s last axis, drawn with probabilities
  ``p`` (normalized by what is left of them, so they need not sum to 1).

  ``shape``, as in JAX 0.10.2, is the whole result shape (``p.shape`` by default) including the
  class axis, to which ``p`` must broadcast; ``n`` must broadcast to ``shape[:-1]``. The counts
  are returned as ``dtype`` (the default float type if None; JAX converts to any dtype given).
  ``unroll`` is passed to the scan over the classes. The samples are JAX's, bit for bit.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> multinomial(ember.random.key(0), 10, jnp.array([0.2, 0.3, 0.5]))
      Array([1., 1., 8.], dtype=float32)
  """
  data, _ = check_key("multinomial", key)
  check_arraylike("multinomial", n, p)
  if shape is None:
    shape = np.shape(p)
  shape = canonicalize_shape(shape[:-1], "multinomial") + canonicalize_shape(shape[-1:],
                                                                            "multinomial")
  if not shape:  # JAX's error from moving the (missing) class axis
    raise ValueError("axis -1 is out of bounds for array of dimension 0")
  dtype = dtypes.default_float_dtype() if dtype is None else _user_dtype("multinomial", dtype)
  return jitted(_multinomial, shape=shape, dtype=dtype, unroll=unroll)(data, n, p)


def _user_dtype(name: str, dtype) -> np.dtype:
  dtypes.check_user_dtype_supported(dtype, name)
  return dtypes.canonicalize_dtype(dtype)


def _double_sided_maxwell(key, loc, scale, *, shape, dtype):
  k1, k2 = split2(key)
  m = maxwell_sample(k1, shape=shape, dtype=dtype)
  sign = rademacher_sample(k2, shape=shape, dtype=dtype)
  out = jnp.multiply(lax.mul(sign, m), as_dtype(scale, dtype))
  return jnp.add(out, as_dtype(loc, dtype))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
  """A Maxwell sample with a random sign, scaled by ``scale`` and shifted by ``loc``; the shape
  is ``shape`` followed by the broadcast shape of ``loc`` and ``scale``.

  Example:
      >>> import ember
      >>> double_sided_maxwell(ember.random.PRNGKey(42), 0.0, 1.0, (3,))
      Array([-1.3810217, -0.675689 ,  2.2220213], dtype=float32)
  """
  data, shape, dtype = float_args("double_sided_maxwell", key, shape, dtype)
  check_arraylike("double_sided_maxwell", loc, scale)
  shape = shape + jnp.broadcast_shapes(np.shape(loc), np.shape(scale))
  return jitted(_double_sided_maxwell, shape=shape, dtype=dtype)(data, loc, scale)


# --- categorical ------------------------------------------------------------------------------

def _categorical(key, logits, *, axis, shape, replace, mode):
  batch_ndim = logits.ndim - 1
  prefix = shape[:len(shape) - batch_ndim]
  if replace:
    # Gumbel noise for every draw and class; the logits broadcast over the draws.
    noise_shape = list(shape[len(prefix):])
    noise_shape.insert(axis % logits.ndim, logits.shape[axis])
    g = gumbel_sample(key, shape=prefix + tuple(noise_shape), dtype=logits.dtype, mode=mode)
    return jnp.argmax(g + lax.expand_dims(logits, tuple(range(len(prefix)))), axis=axis)
  # Without replacement: one perturbation of the logits; its top k are the k draws.
  perturbed = logits + gumbel_sample(key, shape=logits.shape, dtype=logits.dtype, mode=mode)
  _, idx = lax.top_k(jnp.moveaxis(perturbed, axis, -1), math.prod(prefix))
  return jnp.moveaxis(idx, -1, 0).reshape(shape)


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *, out_sharding=None):
  """Class indices drawn with log-probabilities ``logits`` along ``axis``.

  ``shape`` must end with the logits' shape without ``axis``; its leading dimensions are
  independent draws. With ``replace=False`` no class is drawn twice along those dimensions.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> categorical(ember.random.PRNGKey(42), jnp.log(jnp.array([.1, .2, .7])), shape=(6,))
      Array([2, 2, 2, 2, 1, 2], dtype=int32)
  """
  check_out_sharding("categorical", out_sharding)
  data, _ = check_key("categorical", key)
  check_arraylike("categorical", logits)
  logits = jnp.asarray(logits)
  ndim = logits.ndim
  if not -ndim <= axis < ndim:
    raise IndexError(f"index {axis} is out of bounds for axis 0 with size {ndim}")
  axis = axis - ndim if axis >= 0 else axis
  batch_shape = logits.shape[:axis % ndim] + logits.shape[axis % ndim + 1:]
  if shape is None:
    shape = batch_shape
  else:
    shape = canonicalize_shape(shape, "categorical")
    check_shape("categorical", shape, batch_shape)
  if not replace:
    draws, classes = math.prod(shape[:len(shape) - len(batch_shape)]), logits.shape[axis]
    if draws > classes:
      raise ValueError(f"Number of samples without replacement ({draws}) cannot exceed number "
                       f"of categories ({classes}).")
  return jitted(_categorical, axis=axis, shape=shape, replace=bool(replace),
                mode=check_gumbel_mode(mode))(data, logits)


# --- permutations and choice ------------------------------------------------------------------

def shuffle_sample(key, x, *, axis):
  """``x`` shuffled along ``axis`` by sorting on random keys, in enough rounds that equal
  sort keys (which would keep their elements' order) are unlikely."""
  rounds = math.ceil(3 * math.log(max(1, math.prod(x.shape))) / math.log(2 ** 32 - 1))
  for _ in range(rounds):
    key, subkey = split2(key)
    sort_keys = random_bits(subkey, bit_width=32, shape=x.shape)
    _, x = lax.sort_key_val(sort_keys, x, axis)
  return x


def _permute_range(key, *, n):
  return shuffle_sample(key, lax.iota(dtypes.default_int_dtype(), n), axis=0)


def _permute_along(key, x, *, axis):
  idx = shuffle_sample(key, lax.iota(dtypes.default_int_dtype(), x.shape[axis]), axis=0)
  return jnp.take(x, idx, axis=axis, unique_indices=True)


def permutation(key, x, axis=0, independent=False, *, out_sharding=None):
  """A random permutation of ``range(x)`` for an integer ``x``, else of ``x`` along ``axis``
  (the same one for every slice, unless ``independent``).

  Example:
      >>> import ember
      >>> permutation(ember.random.PRNGKey(42), 6)
      Array([4, 2, 5, 3, 0, 1], dtype=int32)
  """
  check_out_sharding("permutation", out_sharding)
  data, _ = check_key("permutation", key)
  check_arraylike("permutation", x)
  if not np.ndim(x):
    if not dtypes.is_integer(dtypes.dtype(x)):
      raise TypeError("x must be an integer or at least 1-dimensional")
    return jitted(_permute_range, n=int(x))(data)
  axis = canonicalize_axis(axis, np.ndim(x))
  if independent or np.ndim(x) == 1:
    return jitted(shuffle_sample, axis=axis)(data, x)
  return jitted(_permute_along, axis=axis)(data, x)


def _choice(key, a, p, *, n, shape, replace, axis, mode):
  draws = math.prod(shape)
  int_dtype = dtypes.default_int_dtype()
  if p is None and replace:
    idx = randint_sample(key, np.asarray(0, int_dtype), np.asarray(n, int_dtype), shape=shape,
                         dtype=int_dtype)
  elif p is None:
    idx = lax.slice(_permute_range(key, n=n), (0,), (draws,))
  elif replace:
    # Inverse CDF: the first class whose cumulative probability reaches a uniform draw.
    cdf = jnp.cumsum(p)
    total = lax.index_in_dim(cdf, n - 1, keepdims=False)
    u = uniform_sample(key, 0.0, 1.0, shape=shape, dtype=cdf.dtype)
    idx = jnp.searchsorted(cdf, lax.mul(total, lax.sub(np.asarray(1, cdf.dtype), u)))
  else:
    g = gumbel_sample(key, shape=(n,), dtype=p.dtype, mode=mode) + jnp.log(p)
    idx = lax.top_k(g, draws)[1]
  idx = lax.reshape(as_dtype(idx, int_dtype), shape)
  return idx if a is None else jnp.take(a, idx, axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
  """Samples from ``range(a)`` for an integer ``a``, else from ``a``'s slices along ``axis``:
  uniformly, or with probabilities ``p``; without replacement if ``replace`` is False.

  Example:
      >>> import ember
      >>> choice(ember.random.PRNGKey(42), 10, (3,), replace=False)
      Array([7, 4, 2], dtype=int32)
  """
  data, _ = check_key("choice", key)
  if not isinstance(shape, Sequence):
    raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
  check_arraylike("choice", a)
  shape = canonicalize_shape(shape, "choice")
  if np.ndim(a):
    axis = canonicalize_axis(axis, np.ndim(a))
    n = np.shape(a)[axis]
  else:
    n = int(a)
  if math.prod(shape) == 0:
    return jnp.zeros(shape, dtypes.dtype(a, canonicalize=True))
  if n <= 0:
    raise ValueError("a must be greater than 0 unless no samples are taken")
  if not replace and math.prod(shape) > n:
    raise ValueError(f"Cannot take a larger sample (size {math.prod(shape)}) than population "
                     f"(size {n}) when 'replace=False'")
  if p is not None:
    check_arraylike("choice", p)
    if np.shape(p) != (n,):
      raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                       f"p has shape {np.shape(p)} and a.shape[axis] is {n}.")
  return jitted(_choice, n=n, shape=shape, replace=bool(replace), axis=axis,
                mode=check_gumbel_mode(mode))(data, a if np.ndim(a) else None, p)
