"""Parameter initializers, mirroring ``jax.nn.initializers``.

An initializer is a function ``init(key, shape, dtype=<its default>) -> Array``; the builders
(``normal``, ``variance_scaling``, ``glorot_uniform``...) return one. For the same key, shape and
dtype the values are bit-identical to JAX's (ember.random draws the same bits).

Example:
    >>> import ember
    >>> from ember.nn import initializers
    >>> initializers.glorot_uniform()(ember.random.key(0), (2, 3))
    Array([[ 0.9807893 ,  1.048516  , -0.36743096],
           [-0.06864396,  0.1531185 , -0.7328462 ]], dtype=float32)
"""
from __future__ import annotations

import math
import operator
from typing import Protocol

import numpy as np

from ember import dtypes, random
from ember import numpy as jnp

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]


class Initializer(Protocol):
  """The type of an initializer: ``init(key, shape, dtype=None) -> Array``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> init: initializers.Initializer = initializers.constant(0.5)
      >>> init(ember.random.key(0), (2,))
      Array([0.5, 0.5], dtype=float32)
  """

  def __call__(self, key, shape, dtype=None, out_sharding=None):
    ...


def _float_dtype(dtype):
  return dtypes.canonicalize_dtype(float) if dtype is None else dtypes.canonicalize_dtype(dtype)


def _shape(shape) -> tuple[int, ...]:
  return tuple(operator.index(d) for d in (shape if np.iterable(shape) else (shape,)))


def _no_sharding(out_sharding) -> None:
  if out_sharding is not None:
    raise NotImplementedError("ember's initializers do not take out_sharding")


def zeros(key, shape, dtype=None, out_sharding=None):
  """An initializer returning zeros (``key`` is unused).

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.zeros(ember.random.key(0), (2,))
      Array([0., 0.], dtype=float32)
  """
  _no_sharding(out_sharding)
  return jnp.zeros(_shape(shape), _float_dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
  """An initializer returning ones (``key`` is unused).

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.ones(ember.random.key(0), (2,))
      Array([1., 1.], dtype=float32)
  """
  _no_sharding(out_sharding)
  return jnp.ones(_shape(shape), _float_dtype(dtype))


def constant(value, dtype=None) -> Initializer:
  """An initializer filling the shape with ``value``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.constant(-7)(ember.random.key(0), (2,))
      Array([-7., -7.], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    return jnp.full(_shape(shape), value, dtype=_float_dtype(dtype))
  return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
  """An initializer drawing uniformly from ``[0, scale)``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.uniform(10.)(ember.random.key(0), (2,))
      Array([9.47667 , 9.785799], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    dtype = _float_dtype(dtype)
    return random.uniform(key, _shape(shape), dtype) * jnp.array(scale, dtype)
  return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
  """An initializer drawing from a centred normal with standard deviation ``stddev``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.normal(1.)(ember.random.key(0), (2,))
      Array([1.6226422, 2.0252647], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    dtype = _float_dtype(dtype)
    return random.normal(key, _shape(shape), dtype) * jnp.array(stddev, dtype)
  return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
  """An initializer drawing from a normal truncated to ``[lower, upper]`` (in units of the
  untruncated standard deviation), then scaled by ``stddev``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.truncated_normal(1.)(ember.random.key(0), (2,))
      Array([1.4559592, 1.7147487], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    dtype = _float_dtype(dtype)
    sample = random.truncated_normal(key, lower, upper, _shape(shape), dtype)
    return sample * jnp.array(stddev, dtype)
  return init


def _axes_size(shape, axes) -> int:
  return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _fans(shape, in_axis, out_axis, batch_axis) -> tuple[float, float]:
  """The effective fan-in and fan-out of a (convolution) kernel: the in/out sizes times the
  receptive field (every axis that is not an in, out or batch axis)."""
  if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
    raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                     "weights tensor with default in_axis. Must be at least 2D or specify "
                     "in_axis explicitly.")
  in_size, out_size = _axes_size(shape, in_axis), _axes_size(shape, out_axis)
  receptive = math.prod(shape) / in_size / out_size / _axes_size(shape, batch_axis)
  return in_size * receptive, out_size * receptive


_DENOMINATORS = {
    "fan_in": lambda fan_in, fan_out: fan_in,
    "fan_out": lambda fan_in, fan_out: fan_out,
    "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}
# Standard deviations of a unit normal truncated to [-2, 2], and of a unit complex normal whose
# modulus is truncated to 2: dividing by them restores the requested variance.
_TRUNC_STD_REAL, _TRUNC_STD_COMPLEX = .87962566103423978, .95311164380491208


def _polar_sample(key, shape, dtype, radius):
  """Complex samples ``radius(u, complex_dtype) * exp(2 pi i v)`` for two independent real
  uniform draws u, v."""
  key_r, key_theta = random.split(key)
  real = np.dtype(dtypes.finfo(dtype).dtype)
  complex_dt = dtypes.to_complex_dtype(real)
  r = radius(random.uniform(key_r, shape, real), complex_dt)
  theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(complex_dt)
  return r * jnp.exp(1j * theta)


def _sample(key, shape, dtype, distribution, variance):
  """``distribution``'s draws scaled to ``variance`` (complex dtypes sample a disk)."""
  is_real = not dtypes.is_complex(dtype)
  if distribution == "truncated_normal":
    if is_real:
      stddev = jnp.sqrt(variance) / jnp.array(_TRUNC_STD_REAL, dtype)
      return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
    cut = 1 - jnp.exp(jnp.array(-4, dtype))  # the modulus is truncated at 2
    disk = _polar_sample(key, shape, dtype,
                         lambda u, dt: jnp.sqrt(-jnp.log(1 - cut * u.astype(dt))))
    return disk * (jnp.sqrt(variance) / jnp.array(_TRUNC_STD_COMPLEX, dtype))
  if distribution == "normal":
    return random.normal(key, shape, dtype) * jnp.sqrt(variance)
  if distribution == "uniform":
    if is_real:
      return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
    radius = lambda u, dt: jnp.sqrt(2 * u).astype(dt)
    return _polar_sample(key, shape, dtype, radius) * jnp.sqrt(variance)
  raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1,
                     batch_axis=(), dtype=None) -> Initializer:
  """An initializer whose samples have variance ``scale / n``, ``n`` set by ``mode``.

  Args:
    scale: the variance scale.
    mode: ``"fan_in"``, ``"fan_out"``, ``"fan_avg"`` or ``"fan_geo_avg"``: which fan is ``n``.
    distribution: ``"truncated_normal"``, ``"normal"`` or ``"uniform"``.
    in_axis, out_axis, batch_axis: the kernel's input, output and batch axes; the others form
      the receptive field.
    dtype: the default dtype.

  Raises:
    ValueError: (when called) for an unknown mode or distribution, or a kernel of rank < 2
      with the default ``in_axis``.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> initializers.variance_scaling(2., "fan_in", "normal")(ember.random.key(0), (2, 2))
      Array([[ 1.6226422 ,  2.0252647 ],
             [-0.43359444, -0.07861735]], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    shape, dtype = _shape(shape), _float_dtype(dtype)
    fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
    if mode not in _DENOMINATORS:
      raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    variance = jnp.array(scale / _DENOMINATORS[mode](fan_in, fan_out), dtype=dtype)
    return _sample(key, shape, dtype, distribution, variance)
  return init


def _variance_scaling_preset(name: str, scale: float, mode: str, distribution: str,
                             example_output: str):
  def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)
  builder.__name__ = builder.__qualname__ = name
  builder.__doc__ = (f"``variance_scaling({scale}, {mode!r}, {distribution!r})`` with the given "
                     "axes and default dtype.\n\nExample:\n"
                     "    >>> import ember\n"
                     "    >>> from ember.nn import initializers\n"
                     f"    >>> initializers.{name}()(ember.random.key(0), (1, 2))\n"
                     f"    {example_output}\n")
  return builder


glorot_uniform = _variance_scaling_preset("glorot_uniform", 1.0, "fan_avg", "uniform",
                                          "Array([[1.2661935, 1.3536283]], dtype=float32)")
glorot_normal = _variance_scaling_preset("glorot_normal", 1.0, "fan_avg", "truncated_normal",
                                         "Array([[1.3514677, 1.5916845]], dtype=float32)")
lecun_uniform = _variance_scaling_preset("lecun_uniform", 1.0, "fan_in", "uniform",
                                         "Array([[1.550764 , 1.6578493]], dtype=float32)")
lecun_normal = _variance_scaling_preset("lecun_normal", 1.0, "fan_in", "truncated_normal",
                                        "Array([[1.6552032, 1.9494075]], dtype=float32)")
he_uniform = _variance_scaling_preset("he_uniform", 2.0, "fan_in", "uniform",
                                      "Array([[2.1931117, 2.344553 ]], dtype=float32)")
he_normal = _variance_scaling_preset("he_normal", 2.0, "fan_in", "truncated_normal",
                                     "Array([[2.3408108, 2.7568781]], dtype=float32)")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
  """An initializer of (scaled) Haar-random matrices with orthonormal columns along
  ``column_axis`` (or orthonormal rows when there are more columns than rows).

  Raises:
    ValueError: (when called) for a shape of rank < 2.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> w = initializers.orthogonal()(ember.random.key(0), (3, 3))
      >>> ember.numpy.allclose(w.T @ w, ember.numpy.eye(3), atol=1e-6)
      Array(True, dtype=bool)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    shape, dtype = _shape(shape), _float_dtype(dtype)
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a 2D shape")
    if 0 in shape:
      return jnp.zeros(shape, dtype)
    n_cols = shape[column_axis]
    q = random.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
    q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
    return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)
  return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
  """An initializer of convolution kernels (rank 3 to 5) that are zero except at the spatial
  centre, which holds an orthogonal ``in x out`` matrix (the delta-orthogonal scheme).

  Raises:
    ValueError: (when called) for other ranks, or fewer outputs than inputs.

  Example:
      >>> import ember
      >>> from ember.nn import initializers
      >>> w = initializers.delta_orthogonal()(ember.random.key(0), (3, 2, 2))
      >>> w[0]
      Array([[0., 0.],
             [0., 0.]], dtype=float32)
  """
  def init(key, shape, dtype=dtype, out_sharding=None):
    _no_sharding(out_sharding)
    shape, dtype = _shape(shape), _float_dtype(dtype)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    return jnp.zeros(shape, dtype).at[centre].set(matrix)
  return init
