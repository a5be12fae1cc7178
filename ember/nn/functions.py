"""Neural-network activation and normalisation functions, mirroring ``jax.nn``.

Each activation is jitted (so it shows up as one named ``jit`` equation in a jaxpr, as in JAX);
``relu`` and ``relu6`` carry custom derivatives that are 0 at their kinks, as JAX's do.

Dtypes follow JAX exactly: an activation does not promote its input to a float up front. It turns
the input into an array (keeping a Python scalar weakly typed) and lets its arithmetic promote, so
``elu`` of an int32 array is a *weakly typed* float32 (the weak Python-float constants decide the
dtype), ``sigmoid`` and ``silu`` of an integer raise ``lax.logistic``'s TypeError, and unsigned
inputs wrap where the formula negates them (``log_sigmoid`` of uint8), all as in JAX.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.numpy._util import check_arraylike, ensure_array, is_arraylike
from ember.scipy._logsumexp import log_softmax, logsumexp, softmax
from ember.scipy._util import promote_inexact
from ember.transforms.custom import custom_jvp
from ember.transforms.jit import jit

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp",
    "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign",
    "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "swish",
    "tanh",
]


def _arraylike(fun_name: str, *args):
  """``args`` as ember arrays, unpromoted (a Python scalar stays weakly typed); TypeError, naming
  ``fun_name``, for anything that is not an array or a scalar (a list, say), as in JAX."""
  check_arraylike(fun_name, *args)
  out = [ensure_array(a) for a in args]
  return out[0] if len(out) == 1 else out


@custom_jvp
@jit
def relu(x):
  """The rectified linear unit ``max(x, 0)``; its derivative at 0 is 0 (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.relu(jnp.array([-1., 0., 2.]))
      Array([0., 0., 2.], dtype=float32)
  """
  return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
@jit
def relu6(x):
  """``min(max(x, 0), 6)``; its derivative is 0 at both kinks (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.relu6(jnp.array([-1., 3., 7.]))
      Array([0., 3., 6.], dtype=float32)
  """
  return jnp.minimum(jnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@jit
def identity(x):
  """The identity activation (returns ``x`` as an array).

  Raises:
      TypeError: for a non-array argument such as a list (as in JAX).

  Example:
      >>> from ember import nn
      >>> nn.identity(2.)
      Array(2., dtype=float32, weak_type=True)
  """
  return _arraylike("identity", x)


@jit
def tanh(x, /):
  """The hyperbolic tangent activation.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.tanh(jnp.array([0., 1.]))
      Array([0.       , 0.7615942], dtype=float32)
  """
  return jnp.tanh(x)


@jit
def sigmoid(x):
  """The logistic sigmoid ``1 / (1 + exp(-x))``, ``lax.logistic`` of ``x``.

  Raises:
      TypeError: for an integer or bool input (``lax.logistic`` accepts only inexact dtypes),
          exactly as in JAX: ``sigmoid(1)`` raises, ``sigmoid(1.)`` does not.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.sigmoid(jnp.array([0., 2.]))
      Array([0.5     , 0.880797], dtype=float32)
  """
  return lax.logistic(x)


@jit
def silu(x):
  """The SiLU (swish) activation ``x * sigmoid(x)``.

  Raises:
      TypeError: for an integer or bool input, from ``sigmoid`` (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.silu(jnp.array([-1., 2.]))
      Array([-0.26894143,  1.761594  ], dtype=float32)
  """
  x = _arraylike("silu", x)
  return x * sigmoid(x)


swish = silu


@jit
def log_sigmoid(x):
  """``log(sigmoid(x))``, computed as ``-softplus(-x)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.log_sigmoid(jnp.array([0., -2.]))
      Array([-0.6931472, -2.126928 ], dtype=float32)
  """
  x = _arraylike("log_sigmoid", x)
  return -softplus(-x)


@jit
def softplus(x):
  """``log(1 + exp(x))``, computed as ``logaddexp(x, 0)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.softplus(jnp.array([0., 2.]))
      Array([0.6931472, 2.126928 ], dtype=float32)
  """
  return jnp.logaddexp(x, 0)


@jit
def elu(x, alpha=1.0):
  """The exponential linear unit: ``x`` above 0, ``alpha * (exp(x) - 1)`` below.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.elu(jnp.array([-1., 2.]))
      Array([-0.63212055,  2.        ], dtype=float32)
  """
  x = _arraylike("elu", x)
  safe_x = jnp.where(x > 0, 0., x)
  return jnp.where(x > 0, x, alpha * jnp.expm1(safe_x))


@jit
def selu(x):
  """The scaled ELU, ``scale * elu(x, alpha)`` with the self-normalising constants.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.selu(jnp.array([-1., 2.]))
      Array([-1.1113307,  2.101402 ], dtype=float32)
  """
  alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
  return scale * elu(x, alpha)


@jit
def celu(x, alpha=1.0):
  """The continuously differentiable ELU ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.celu(jnp.array([-1., 2.]), alpha=2.)
      Array([-0.78693867,  2.        ], dtype=float32)
  """
  return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@jit
def leaky_relu(x, negative_slope=1e-2):
  """``x`` for ``x >= 0``, ``negative_slope * x`` below.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.leaky_relu(jnp.array([-1., 2.]))
      Array([-0.01,  2.  ], dtype=float32)
  """
  x = _arraylike("leaky_relu", x)
  return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x):
  """``x`` clipped to [-1, 1].

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.hard_tanh(jnp.array([-2., 0.5, 2.]))
      Array([-1. ,  0.5,  1. ], dtype=float32)
  """
  x = _arraylike("hard_tanh", x)
  return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def hard_sigmoid(x):
  """The piecewise-linear sigmoid ``relu6(x + 3) / 6``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.hard_sigmoid(jnp.array([-4., 0., 1.]))
      Array([0.       , 0.5      , 0.6666667], dtype=float32)
  """
  return relu6(x + 3.) / 6.


@jit
def hard_silu(x):
  """``x * hard_sigmoid(x)`` (also called hard swish).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.hard_silu(jnp.array([-4., 1.]))
      Array([-0.       ,  0.6666667], dtype=float32)
  """
  x = _arraylike("hard_silu", x)
  return x * hard_sigmoid(x)


hard_swish = hard_silu


@jit
def soft_sign(x):
  """``x / (|x| + 1)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.soft_sign(jnp.array([-1., 3.]))
      Array([-0.5 ,  0.75], dtype=float32)
  """
  x = _arraylike("soft_sign", x)
  return x / (jnp.abs(x) + 1)


@jit
def squareplus(x, b=4):
  """The smooth ReLU ``(x + sqrt(x**2 + b)) / 2``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.squareplus(jnp.array([0., 2.]))
      Array([1.       , 2.4142137], dtype=float32)
  """
  x, b = _arraylike("squareplus", x, b)
  return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def mish(x):
  """``x * tanh(softplus(x))``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.mish(jnp.array([-1., 1.]))
      Array([-0.30340144,  0.8650985 ], dtype=float32)
  """
  x = _arraylike("mish", x)
  return x * jnp.tanh(softplus(x))


@jit
def sparse_plus(x):
  """0 below -1, ``x`` above 1 and ``(x + 1)**2 / 4`` between.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.sparse_plus(jnp.array([-2., 0., 2.]))
      Array([0.  , 0.25, 2.  ], dtype=float32)
  """
  x = _arraylike("sparse_plus", x)
  return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def sparse_sigmoid(x):
  """The derivative of ``sparse_plus``: ``clip((x + 1) / 2, 0, 1)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.sparse_sigmoid(jnp.array([-2., 0., 0.5]))
      Array([0.  , 0.5 , 0.75], dtype=float32)
  """
  return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@custom_jvp
@jit
def log1mexp(x):
  """``log(1 - exp(-x))`` for ``x >= 0``, accurate near 0 and for large ``x``.

  Its derivative is ``1 / expm1(x)`` (``inf`` at 0, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.log1mexp(jnp.array([0.5, 3.]))
      Array([-0.93275213, -0.05106918], dtype=float32)
  """
  x = _arraylike("log1mexp", x)
  return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def gelu(x, approximate: bool = True):
  """The Gaussian error linear unit ``x * Phi(x)``, by default its tanh approximation.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.gelu(jnp.array([-1., 1.]))
      Array([-0.15880796,  0.841192  ], dtype=float32)
      >>> nn.gelu(jnp.array([-1., 1.]), approximate=False)
      Array([-0.15865527,  0.8413447 ], dtype=float32)
  """
  return _gelu(x, approximate=bool(approximate))


def _gelu_impl(x, approximate):
  x, = promote_inexact("gelu", x)
  if approximate:
    c = np.sqrt(2 / np.pi).astype(x.dtype)
    return x * (0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x ** 3)))))
  # 0.5 * x * erfc(-x / sqrt(2)), in this order so that the rounding is JAX's
  half_x = 0.5 * x
  return jnp.asarray(half_x * lax.erfc(-x * np.sqrt(0.5).astype(x.dtype)), dtype=x.dtype)


_gelu_impl.__name__ = "gelu"
_gelu = jit(_gelu_impl, static_argnames=("approximate",))


def glu(x, axis: int = -1):
  """The gated linear unit: the first half of ``x`` along ``axis`` times the sigmoid of the
  second.

  Raises:
      AssertionError: if the axis has odd size (JAX checks this with an ``assert``; ember raises
          the same error type and text, also under ``python -O``).
      IndexError: if ``axis`` is out of range (as in JAX).
      TypeError: for an integer or bool input, from ``sigmoid`` (as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.glu(jnp.array([1., 2., 0., 1.]))
      Array([0.5      , 1.4621172], dtype=float32)
  """
  return _glu(x, axis=axis)


def _glu_impl(x, axis):
  x = _arraylike("glu", x)
  if x.shape[axis] % 2:  # x.shape[axis]: an out-of-range axis is an IndexError, as in JAX
    raise AssertionError("axis size must be divisible by 2")
  first, second = jnp.split(x, 2, axis)
  return first * sigmoid(second)


_glu_impl.__name__ = "glu"
_glu = jit(_glu_impl, static_argnames=("axis",))


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
  """One-hot encode integer labels ``x`` along a new ``axis`` of size ``num_classes``.

  Out-of-range labels (negative or >= ``num_classes``) encode as all zeros, as in JAX. As in
  JAX, the labels are compared with an iota of their own dtype: a float input still works but
  warns (DeprecationWarning), and a bool input warns and then raises ``lax.iota``'s TypeError.
  ``axis`` may also be a named axis of an enclosing ``vmap``/``pmap`` (its size must be
  ``num_classes``); then each label is compared with the axis index.

  Raises:
      TypeError: for a bool ``x`` (after the DeprecationWarning) or a non-integer
          ``num_classes``.
      ValueError: for an out-of-range ``axis``, or a named axis whose size is not
          ``num_classes``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.one_hot(jnp.array([0, 2, 5]), 3)
      Array([[1., 0., 0.],
             [0., 0., 1.],
             [0., 0., 0.]], dtype=float32)
  """
  num_classes = operator.index(num_classes)
  x = jnp.asarray(x)
  if not jnp.issubdtype(x.dtype, jnp.integer):
    warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                  DeprecationWarning, stacklevel=2)
  dtype = jnp.float32 if dtype is None else dtype
  return _one_hot(x, num_classes=num_classes, dtype=dtype, axis=axis)


def _one_hot_impl(x, num_classes, dtype, axis):
  if not isinstance(axis, (int, np.integer)):  # a named (vmap/pmap) axis
    size = lax.axis_size(axis)
    if size != num_classes:
      raise ValueError(f"Expected num_classes to match the size of axis {axis}, "
                       f"but {num_classes} != {size}")
    return jnp.asarray(x == lax.axis_index(axis), dtype=dtype)
  ndim = x.ndim + 1
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  out_axis = axis % ndim
  shape = [1] * x.ndim
  shape.insert(out_axis, num_classes)
  classes = lax.broadcasted_iota(x.dtype, tuple(shape), out_axis)
  return (jnp.expand_dims(x, out_axis) == classes).astype(dtype)


_one_hot_impl.__name__ = "_one_hot"
_one_hot = jit(_one_hot_impl, static_argnames=("num_classes", "dtype", "axis"))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
  """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``.

  ``algorithm="fast"`` computes the variance as E[x^2] - E[x]^2 clipped at 0 (JAX's default),
  ``"stable"`` as E[(x - mean)^2]. As in JAX the input is not promoted first: an integer ``x``
  is squared in its own dtype (so uint8 wraps), and a complex ``x`` is rejected by the clip of
  the fast variance.

  Raises:
      TypeError: for a non-array ``x``, ``mean``, ``variance`` or ``where`` (a list).
      ValueError: for an unknown ``algorithm`` when the variance is to be computed, or a
          complex ``x`` with ``algorithm="fast"``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.standardize(jnp.array([1., 2., 3., 4.]))
      Array([-1.3416355, -0.4472118,  0.4472118,  1.3416355], dtype=float32)
  """
  check_arraylike("standardize", x)
  for i, a in enumerate((mean, variance, where)):
    if a is not None and not is_arraylike(a):
      raise TypeError("standardize requires ndarray, scalar, or None arguments, got "
                      f"{type(a)} at position {i}.")
  return _standardize(x, mean, variance, epsilon, where, axis=axis, algorithm=algorithm)


def _standardize_impl(x, mean, variance, epsilon, where, axis, algorithm):
  if mean is None:
    mean = jnp.mean(x, axis, keepdims=True, where=where)
  if variance is None:
    if algorithm == "stable":
      variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
    elif algorithm == "fast":
      variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
      variance = jnp.clip(variance, 0)
    else:
      raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
  return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


_standardize_impl.__name__ = "standardize"
_standardize = jit(_standardize_impl, static_argnames=("axis", "algorithm"))


def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
  """``log(mean(exp(x)))`` over ``axis``, computed stably (over the ``where`` elements).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> nn.logmeanexp(jnp.array([1., 2., 3.]))
      Array(2.3089936, dtype=float32)
  """
  x, = promote_inexact("logsumexp", x)  # JAX names logsumexp in this error
  total = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
  ones = jnp.ones_like(x) if where is None else jnp.where(where, 1., 0.).astype(x.dtype)
  count = jnp.sum(ones, axis=axis, keepdims=keepdims)
  return total - jnp.log(count)
