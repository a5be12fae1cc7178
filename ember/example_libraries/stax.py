"""Neural networks from ``(init_fun, apply_fun)`` pairs, mirroring ``jax.example_libraries.stax``.

A layer is a pair of pure functions:

- ``init_fun(rng, input_shape) -> (output_shape, params)`` draws the layer's parameters with a
  PRNG key for inputs of the given shape (a tuple, batch dimension included);
- ``apply_fun(params, inputs, **kwargs) -> outputs`` computes the layer; a ``rng=`` keyword
  reaches the layers that need randomness (``Dropout``).

Combinators (``serial``, ``parallel``, ``shape_dependent``) build layers from layers, and
``FanOut``/``FanInSum``/``FanInConcat`` route several inputs. Parameters are pytrees (tuples and
lists of arrays), so they work with ``grad``, ``jit`` and ``ember.example_libraries.optimizers``.
Layers split keys and draw initial values as JAX's do, so the same key gives the same parameters.

Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.serial(stax.Dense(16), stax.Relu, stax.Dense(3),
    ...                                   stax.LogSoftmax)
    >>> out_shape, params = init_fun(random.key(0), (-1, 8))
    >>> out_shape
    (-1, 3)
    >>> apply_fun(params, random.normal(random.key(1), (2, 8))).shape
    (2, 3)
"""
import functools
import math

import ember.numpy as jnp
from ember import lax, random
from ember.nn import (
  elu,
  gelu,
  leaky_relu,
  log_softmax,
  relu,
  selu,
  sigmoid,
  softmax,
  softplus,
  standardize,
)
from ember.nn.initializers import glorot_normal, normal, ones, zeros

__all__ = [
    "AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout", "Elu",
    "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv",
    "GeneralConvTranspose", "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu", "Selu",
    "Sigmoid", "Softmax", "Softplus", "SumPool", "Tanh", "elementwise", "elu", "gelu", "glorot",
    "glorot_normal", "leaky_relu", "log_softmax", "logsoftmax", "normal", "ones", "parallel",
    "randn", "relu", "selu", "serial", "shape_dependent", "sigmoid", "softmax", "softplus",
    "standardize", "zeros",
]

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

_GLOROT_NORMAL = glorot_normal()  # the layers' default initializers
_NORMAL = normal()
_NORMAL_1E_6 = normal(1e-6)


# --- layers with parameters ---------------------------------------------------------------------

def Dense(out_dim, W_init=_GLOROT_NORMAL, b_init=_NORMAL):
  """A fully connected layer ``inputs @ W + b`` with ``out_dim`` outputs.

  Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.Dense(4)
    >>> out_shape, (W, b) = init_fun(random.key(0), (5, 3))
    >>> out_shape, W.shape, b.shape
    ((5, 4), (3, 4), (4,))
  """
  def init_fun(rng, input_shape):
    k_w, k_b = random.split(rng)
    params = W_init(k_w, (input_shape[-1], out_dim)), b_init(k_b, (out_dim,))
    return tuple(input_shape[:-1]) + (out_dim,), params

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b
  return init_fun, apply_fun


def _kernel_shape(dimension_numbers, input_shape, out_chan, filter_shape):
  lhs_spec, rhs_spec, _ = dimension_numbers
  spatial = iter(filter_shape)
  return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
          for c in rhs_spec]


def _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
                output_shape_fn, conv_fn):
  """A convolution-like layer: kernel laid out by ``dimension_numbers``, plus a bias."""
  _, rhs_spec, out_spec = dimension_numbers
  strides = strides or (1,) * len(filter_shape)
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def init_fun(rng, input_shape):
    kernel_shape = _kernel_shape(dimension_numbers, input_shape, out_chan, filter_shape)
    output_shape = output_shape_fn(input_shape, kernel_shape, strides, padding, dimension_numbers)
    k_w, k_b = random.split(rng)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    return output_shape, (W_init(k_w, kernel_shape), b_init(k_b, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return conv_fn(inputs, W, strides, padding, dimension_numbers) + b
  return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=_NORMAL_1E_6):
  """A convolution layer with layouts given as ``(lhs_spec, rhs_spec, out_spec)`` strings.

  ``W_init`` defaults to Glorot-normal over the kernel's ``I`` and ``O`` axes; ``Conv`` is this
  layer with ``('NHWC', 'HWIO', 'NHWC')``.

  Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 8, (3, 3), padding="SAME")
    >>> out_shape, (W, b) = init_fun(random.key(0), (2, 3, 10, 10))
    >>> out_shape == (2, 8, 10, 10), W.shape, b.shape
    (True, (8, 3, 3, 3), (1, 8, 1, 1))
  """
  def conv(inputs, W, strides, padding, dimension_numbers):
    one = (1,) * len(filter_shape)
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers)
  return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
                     lax.conv_general_shape_tuple, conv)


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=_NORMAL_1E_6):
  """A transposed-convolution layer (``lax.conv_transpose``), laid out like ``GeneralConv``.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.ConvTranspose(4, (3, 3), strides=(2, 2), padding="SAME")
    >>> out_shape, params = init_fun(random.key(0), (1, 5, 5, 2))
    >>> out_shape == (1, 10, 10, 4), apply_fun(params, jnp.ones((1, 5, 5, 2))).shape
    (True, (1, 10, 10, 4))
  """
  def conv(inputs, W, strides, padding, dimension_numbers):
    return lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)
  return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
                     lax.conv_transpose_shape_tuple, conv)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv.__doc__ = """``GeneralConv`` on NHWC inputs with HWIO kernels:
``Conv(out_chan, filter_shape, strides=None, padding="VALID", W_init=None, b_init=...)``.

Example:
  >>> from ember import random
  >>> from ember.example_libraries import stax
  >>> init_fun, apply_fun = stax.Conv(4, (3, 3), padding="SAME")
  >>> out_shape, (W, b) = init_fun(random.key(0), (1, 5, 5, 2))
  >>> out_shape, W.shape, b.shape
  ((1, 5, 5, 4), (3, 3, 2, 4), (1, 1, 1, 4))
"""
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))
ConvTranspose.__doc__ = """``GeneralConvTranspose`` on NHWC inputs with HWIO kernels.

Example:
  >>> from ember import random
  >>> from ember.example_libraries import stax
  >>> init_fun, apply_fun = stax.ConvTranspose(4, (3, 3), strides=(2, 2))
  >>> init_fun(random.key(0), (1, 5, 5, 2))[0]
  (1, 11, 11, 4)
"""
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
Conv1DTranspose.__doc__ = """``GeneralConvTranspose`` in one spatial dimension: NHC inputs
with HIO kernels.

Example:
  >>> import ember.numpy as jnp
  >>> from ember import random
  >>> from ember.example_libraries import stax
  >>> init_fun, apply_fun = stax.Conv1DTranspose(4, (3,), strides=(2,), padding="SAME")
  >>> out_shape, params = init_fun(random.key(0), (1, 5, 2))
  >>> out_shape, apply_fun(params, jnp.ones((1, 5, 2))).shape
  ((1, 10, 4), (1, 10, 4))
"""
# doctest collects no functools.partial objects: name their examples so that they run too
__test__ = {name: globals()[name].__doc__ for name in ("Conv", "ConvTranspose", "Conv1DTranspose")}


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
  """Normalizes over ``axis`` with the batch's own statistics, then scales and shifts.

  ``beta`` (shift, if ``center``) and ``gamma`` (scale, if ``scale``) have the shape of the
  remaining axes; a disabled one is ``()``. No running averages are kept.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.BatchNorm(axis=0)
    >>> _, params = init_fun(random.key(0), (4, 2))
    >>> apply_fun(params, jnp.array([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0], [6.0, 1.0]]))
    Array([[-1.3416393,  0.       ],
           [-0.4472131,  0.       ],
           [ 0.4472131,  0.       ],
           [ 1.3416393,  0.       ]], dtype=float32)
  """
  axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

  def init_fun(rng, input_shape):
    shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k_beta, k_gamma = random.split(rng)
    beta = beta_init(k_beta, shape) if center else ()
    gamma = gamma_init(k_gamma, shape) if scale else ()
    return input_shape, (beta, gamma)

  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
    z = standardize(x, axis, epsilon=epsilon)
    if scale:
      z = gamma[expand] * z
    return z + beta[expand] if center else z
  return init_fun, apply_fun


# --- layers without parameters ------------------------------------------------------------------

def elementwise(fun, **fun_kwargs):
  """A parameter-free layer applying ``fun(inputs, **fun_kwargs)``.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.elementwise(jnp.clip, min=0.0, max=1.0)
    >>> apply_fun((), jnp.array([-1.0, 0.5, 2.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
  """
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return fun(inputs, **fun_kwargs)
  return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _with_unit_axes(window, spec, values):
  """``values`` per spatial axis, with 1 inserted at the batch and channel axes of ``spec``."""
  non_spatial = (0, len(window) + 1) if spec is None else (spec.index("N"), spec.index("C"))
  values = tuple(values)
  for i in sorted(non_spatial):
    values = values[:i] + (1,) + values[i:]
  return values, non_spatial


def _pooling_layer(reducer, init_val, name, average=False):
  def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
    strides = strides or (1,) * len(window_shape)
    dims, non_spatial = _with_unit_axes(window_shape, spec, window_shape)
    dim_strides, _ = _with_unit_axes(window_shape, spec, strides)

    def init_fun(rng, input_shape):
      pads = lax.padtype_to_pads(input_shape, dims, dim_strides, padding)
      ones_ = (1,) * len(dims)
      return lax.reduce_window_shape_tuple(input_shape, dims, dim_strides, pads, ones_,
                                           ones_), ()

    def apply_fun(params, inputs, **kwargs):
      out = lax.reduce_window(inputs, init_val, reducer, dims, dim_strides, padding)
      if not average:
        return out
      spatial = [d for i, d in enumerate(inputs.shape) if i not in non_spatial]
      counts = lax.reduce_window(jnp.ones(spatial, dtype=inputs.dtype), 0., lax.add,
                                 window_shape, strides, padding)
      return out / jnp.expand_dims(counts, sorted(non_spatial))
    return init_fun, apply_fun
  PoolingLayer.__name__ = PoolingLayer.__qualname__ = name
  return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf, "MaxPool")
MaxPool.__doc__ = """A max-pooling layer over the spatial axes (NHWC unless ``spec`` says).

  Args:
    window_shape: the window's size along each spatial axis.
    strides: its step along each spatial axis (default 1).
    padding: ``'VALID'``, ``'SAME'`` or explicit ``(low, high)`` pairs.
    spec: the layout, a string such as ``'NCHW'``; ``None`` means batch first, channels last.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.MaxPool((2, 2), strides=(2, 2))
    >>> x = jnp.arange(16.0).reshape(1, 4, 4, 1)
    >>> init_fun(None, x.shape)[0], apply_fun((), x)[0, :, :, 0]
    ((1, 2, 2, 1), Array([[ 5.,  7.],
           [13., 15.]], dtype=float32))
"""
SumPool = _pooling_layer(lax.add, 0., "SumPool")
SumPool.__doc__ = """A sum-pooling layer; arguments as ``MaxPool``'s.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> _, apply_fun = stax.SumPool((2,), spec="NWC")
    >>> apply_fun((), jnp.arange(4.0).reshape(1, 4, 1))[0, :, 0]
    Array([1., 3., 5.], dtype=float32)
"""
AvgPool = _pooling_layer(lax.add, 0., "AvgPool", average=True)
AvgPool.__doc__ = """An average-pooling layer; arguments as ``MaxPool``'s. With padding, each
  window is divided by the number of input elements it covers.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> _, apply_fun = stax.AvgPool((2,), padding="SAME", spec="NWC")
    >>> apply_fun((), jnp.arange(3.0).reshape(1, 3, 1))[0, :, 0]
    Array([0.5, 1.5, 2. ], dtype=float32)
"""


def _flatten():
  """Flattens every axis but the first.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.Flatten
    >>> init_fun(None, (2, 3, 4))[0], apply_fun((), jnp.ones((2, 3, 4))).shape
    ((2, 12), (2, 12))
  """
  def init_fun(rng, input_shape):
    return (input_shape[0], math.prod(input_shape[1:])), ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.reshape(inputs, (inputs.shape[0], -1))
  return init_fun, apply_fun


Flatten = _flatten()
Identity = elementwise(lambda x: x)


def FanOut(num):
  """A layer returning a list of ``num`` copies of its input (for ``parallel`` branches).

  Example:
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.FanOut(2)
    >>> init_fun(None, (1, 3))
    ([(1, 3), (1, 3)], ())
  """
  def init_fun(rng, input_shape):
    return [input_shape] * num, ()

  def apply_fun(params, inputs, **kwargs):
    return [inputs] * num
  return init_fun, apply_fun


def _fan_in_sum():
  """Sums a list of inputs of one shape.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import stax
    >>> stax.FanInSum[1]((), [jnp.ones(2), jnp.ones(2)])
    Array([2., 2.], dtype=float32)
  """
  def init_fun(rng, input_shape):
    return input_shape[0], ()

  def apply_fun(params, inputs, **kwargs):
    return sum(inputs)
  return init_fun, apply_fun


FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):
  """A layer concatenating a list of inputs along ``axis``.

  Example:
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.FanInConcat()
    >>> init_fun(None, [(2, 3), (2, 5)])
    ((2, 8), ())
  """
  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    size = sum(shape[ax] for shape in input_shape)
    return tuple(input_shape[0][:ax]) + (size,) + tuple(input_shape[0][ax + 1:]), ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.concatenate(inputs, axis)
  return init_fun, apply_fun


def Dropout(rate, mode="train"):
  """Dropout: in ``'train'`` mode keeps each unit with probability ``rate``, scaled by
  ``1 / rate``; in any other mode the identity.

  As in JAX's stax, ``rate`` is the probability of *keeping* a unit. ``apply_fun`` needs a key
  passed as ``rng=``.

  Raises:
    ValueError: from ``apply_fun`` when called without ``rng``.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> _, apply_fun = stax.Dropout(0.5)
    >>> apply_fun((), jnp.ones(6), rng=random.key(0))
    Array([0., 0., 2., 2., 0., 2.], dtype=float32)
  """
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get("rng")
    if rng is None:
      raise ValueError(
          "Dropout layer requires apply_fun to be called with a PRNG key argument. That is, "
          "instead of `apply_fun(params, inputs)`, call it like `apply_fun(params, inputs, rng)` "
          "where `rng` is a PRNG key (e.g. from `jax.random.key`).")
    if mode != "train":
      return inputs
    keep = random.bernoulli(rng, rate, inputs.shape)
    return jnp.where(keep, inputs / rate, 0)
  return init_fun, apply_fun


# --- combinators --------------------------------------------------------------------------------

def _layer_keys(rng, count):
  return random.split(rng, count) if rng is not None else (None,) * count


def serial(*layers):
  """Composes layers in sequence; the parameters are the list of the layers' parameters.

  ``init_fun`` hands each layer a key split off the one before; ``apply_fun`` splits ``rng=``
  (when given) into one key per layer.

  Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.serial(stax.Dense(4), stax.Tanh, stax.Dense(2))
    >>> out_shape, params = init_fun(random.key(0), (3, 5))
    >>> out_shape, [len(p) for p in params]
    ((3, 2), [2, 0, 2])
  """
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    params = []
    for init in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, p = init(layer_rng, input_shape)
      params.append(p)
    return input_shape, params

  def apply_fun(params, inputs, **kwargs):
    keys = _layer_keys(kwargs.pop("rng", None), len(layers))
    for fun, p, key in zip(apply_funs, params, keys):
      inputs = fun(p, inputs, rng=key, **kwargs)
    return inputs
  return init_fun, apply_fun


def parallel(*layers):
  """Applies the i-th layer to the i-th of a sequence of inputs (use with ``FanOut`` and
  ``FanInSum`` or ``FanInConcat``).

  Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> init_fun, apply_fun = stax.serial(stax.FanOut(2),
    ...                                   stax.parallel(stax.Dense(3), stax.Identity),
    ...                                   stax.FanInConcat())
    >>> init_fun(random.key(0), (4, 2))[0]
    (4, 5)
  """
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    keys = random.split(rng, len(layers))
    shapes_and_params = [init(k, s) for init, k, s in zip(init_funs, keys, input_shape)]
    return tuple(zip(*shapes_and_params))

  def apply_fun(params, inputs, **kwargs):
    keys = _layer_keys(kwargs.pop("rng", None), len(layers))
    return [f(p, x, rng=k, **kwargs) for f, p, x, k in zip(apply_funs, params, inputs, keys)]
  return init_fun, apply_fun


def shape_dependent(make_layer):
  """A layer built by ``make_layer(input_shape)`` once the input shape is known.

  Example:
    >>> from ember import random
    >>> from ember.example_libraries import stax
    >>> square = stax.shape_dependent(lambda shape: stax.Dense(shape[-1]))
    >>> square[0](random.key(0), (2, 7))[0]
    (2, 7)
  """
  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)

  def apply_fun(params, inputs, **kwargs):
    return make_layer(inputs.shape)[1](params, inputs, **kwargs)
  return init_fun, apply_fun
