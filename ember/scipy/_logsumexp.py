"""The log-sum-exp family shared by ember.scipy.special and ember.nn: logsumexp, softmax and
log_softmax, each stabilised by subtracting the (gradient-stopped) maximum, as JAX does.

logsumexp guards a non-finite maximum (all -inf gives -inf); softmax and log_softmax subtract the
maximum as it is, in the input's dtype (so an infinite maximum gives NaN, and unsigned integers
wrap), exactly as JAX's do."""
from __future__ import annotations

import functools

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._util import promote_inexact
from ember.config import config
from ember.transforms.custom import custom_jvp, stop_gradient

__all__ = ["log_softmax", "logsumexp", "softmax"]


def _shift(a, axis, where):
  """The gradient-stopped maximum of ``a`` over ``axis`` (keepdims), 0 where it is not finite."""
  a_max = jnp.max(a, axis=axis, keepdims=True, where=where, initial=-np.inf)
  return stop_gradient(jnp.where(jnp.isfinite(a_max), a_max, jnp.zeros_like(a_max)))


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
  """``log(sum(b * exp(a)))`` over ``axis``, computed without overflow.

  Args:
    a: the input array.
    axis: an axis or tuple of axes to reduce (all when None).
    b: optional weights broadcast against ``a``; may be negative.
    keepdims: keep the reduced axes with size 1.
    return_sign: also return the sign of the sum (then the result is ``log|sum|``).
    where: optional boolean mask of the elements to include.

  Returns:
    The reduction, NaN where a weighted sum is negative and ``return_sign`` is False; with
    ``return_sign``, the pair ``(log|sum|, sign(sum))``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import logsumexp
      >>> logsumexp(jnp.array([1., 2.]), b=jnp.array([1., -1.]), return_sign=True)
      (Array(1.5413249, dtype=float32), Array(-1., dtype=float32))
  """
  if b is not None:
    a, b = promote_inexact("logsumexp", a, b)
    a = jnp.where(b != 0, a, -np.inf)
  else:
    a, = promote_inexact("logsumexp", a)
  if where is not None:  # masked entries never reach exp, so their gradient is 0, not 0 * inf
    a = jnp.where(where, a, jnp.zeros_like(a))
  shift = _shift(a, axis, where)
  exp_a = lax.exp(lax.sub(a, shift))
  if b is not None:
    exp_a = lax.mul(exp_a, b)
  sum_exp = jnp.sum(exp_a, axis=axis, where=where, keepdims=keepdims)
  sign = lax.sign(sum_exp)
  if return_sign or not jnp.iscomplexobj(sum_exp):
    sum_exp = lax.abs(sum_exp)
  out = lax.add(lax.log(sum_exp), shift if keepdims else jnp.squeeze(shift, axis=axis))
  if return_sign:
    return out, sign
  if b is not None and not jnp.iscomplexobj(out):
    out = jnp.where(sign < 0, np.nan, out)
  return out


def softmax(x, axis=-1, where=None):
  """``exp(x) / sum(exp(x))`` along ``axis`` (0 where ``where`` masks an element out).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.nn import softmax
      >>> softmax(jnp.array([0., 1., 2.]))
      Array([0.09003057, 0.24472848, 0.66524094], dtype=float32)
  """
  if config.jax_softmax_custom_jvp:
    return _softmax(x, axis, where, -np.inf)
  return _softmax_formula(x, axis, where, -np.inf, stop_gradient)


def _softmax_formula(x, axis, where, initial, hold=lambda m: m):
  """softmax's arithmetic; ``hold`` is applied to the subtracted maximum."""
  x_max = jnp.max(x, axis=axis, keepdims=True, where=where, initial=initial)
  x_safe = x if where is None else jnp.where(where, x, initial)
  unnormalized = jnp.exp(x_safe - hold(x_max))
  out = unnormalized / jnp.sum(unnormalized, axis=axis, where=where, keepdims=True)
  return out if where is None else jnp.where(where, out, 0)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x, axis, where, initial):
  """softmax under ``jax_softmax_custom_jvp``: differentiated by its rule, not its formula."""
  return _softmax_formula(x, axis, where, initial)


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
  (x, where, initial), (x_dot, _, _) = primals, tangents
  y = _softmax(x, axis, where, initial)
  return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


def log_softmax(x, axis=-1, where=None):
  """``x - logsumexp(x)`` along ``axis`` (-inf where ``where`` masks an element out).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.nn import log_softmax
      >>> log_softmax(jnp.array([0., 1., 2.]))
      Array([-2.407606  , -1.4076059 , -0.40760595], dtype=float32)
  """
  x_max = jnp.max(x, axis=axis, keepdims=True, where=where, initial=-np.inf)
  x_safe = x if where is None else jnp.where(where, x, -np.inf)
  shifted = x_safe - stop_gradient(x_max)
  out = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, where=where, keepdims=True))
  return out if where is None else jnp.where(where, out, -np.inf)
