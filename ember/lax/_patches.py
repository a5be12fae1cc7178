"""Patch extraction and unshared (locally connected) convolution, as in JAX 0.10.2:
``conv_general_dilated_patches`` and ``conv_general_dilated_local``.

Patches are a grouped convolution with a one-hot kernel (one output channel per input channel
and window position, channel-major: output channel ``c * prod(filter_shape) + p`` holds input
channel ``c`` at window position ``p``, positions in row-major order of ``filter_shape``). The
local convolution contracts the patches with a kernel that has one filter per output location.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import lax
    >>> x = jnp.arange(4.0).reshape(1, 1, 2, 2)
    >>> lax.conv_general_dilated_patches(x, (2, 2), (1, 1), 'VALID')[0, :, 0, 0]
    Array([0., 1., 2., 3.], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from ember.core.trace import get_aval
from ember.lax import elementwise as ew
from ember.lax import structural as st
from ember.lax.convolution import conv_dimension_numbers, conv_general_dilated
from ember.lax.reductions import dot_general
from ember.primitives.linalg import Precision, canonicalize_precision

__all__ = ["conv_general_dilated_patches", "conv_general_dilated_local"]


def _eye(dtype, size: int):
  """The ``size x size`` identity in ``dtype`` (iota compared with iota, as JAX builds it)."""
  shape = (size, size)
  rows = ew.add(st.broadcasted_iota(np.int32, shape, 0), np.int32(0))
  return ew.convert_element_type(ew.eq(rows, st.broadcasted_iota(np.int32, shape, 1)), dtype)


def _move_to(x, sources, destinations):
  """``x`` with axes ``sources`` moved to ``destinations`` (the others keep their order)."""
  ndim = get_aval(x).ndim
  sources = [s % ndim for s in sources]
  rest = iter(d for d in range(ndim) if d not in sources)
  placed = dict(zip(destinations, sources))
  perm = tuple(placed[i] if i in placed else next(rest) for i in range(ndim))
  return x if perm == tuple(range(ndim)) else st.transpose(x, perm)


def _one_hot_kernel(dtype, channels: int, filter_shape, rhs_spec):
  """The kernel sending input channel ``c`` at window position ``p`` to output channel
  ``c * size + p``, laid out as ``rhs_spec`` says."""
  size = math.prod(filter_shape)
  kernel = st.broadcast_in_dim(_eye(dtype, size), (channels, size, size), (1, 2))
  kernel = st.reshape(kernel, (channels * size, 1, *filter_shape))
  return _move_to(kernel, (0, 1), (rhs_spec[0], rhs_spec[1]))


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
  """The receptive fields of a ``conv_general_dilated`` with these arguments, as channels:
  output channel ``c * prod(filter_shape) + p`` is input channel ``c`` at window position
  ``p`` (row-major over ``filter_shape``, whose dimensions follow the kernel spec's spatial
  order).

  Args:
    lhs: the input, laid out as ``dimension_numbers[0]`` says.
    filter_shape: the window's spatial shape.
    window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers: as for
      ``conv_general_dilated``.
    precision: None or one ``Precision`` (the lhs's; the one-hot kernel needs none).
    preferred_element_type: the result dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> x = jnp.arange(8.0).reshape(1, 2, 2, 2)
      >>> lax.conv_general_dilated_patches(x, (1, 2), (1, 1), 'VALID').shape
      (1, 4, 2, 1)
  """
  filter_shape = tuple(filter_shape)
  shape = get_aval(lhs).shape
  dnums = conv_dimension_numbers(shape, (1, 1) + filter_shape, dimension_numbers)
  channels = shape[dnums.lhs_spec[1]]
  kernel = _one_hot_kernel(get_aval(lhs).dtype, channels, filter_shape, dnums.rhs_spec)
  return conv_general_dilated(
      lhs, kernel, window_strides, padding, lhs_dilation=lhs_dilation,
      rhs_dilation=rhs_dilation, dimension_numbers=dnums,
      precision=None if precision is None else (precision, Precision.DEFAULT),
      feature_group_count=channels, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
  """An unshared convolution (a locally connected layer): every output location has its own
  filter.

  ``rhs``'s spatial dimensions index output locations; its ``I`` dimension fuses the input
  channel with the window position (channel-major, as in ``conv_general_dilated_patches``),
  so an ``OIHW`` kernel has shape ``(O, C * prod(filter_shape), out_H, out_W)``.

  Raises:
    ValueError: for a precision that is not None, one ``Precision`` or a pair.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> x = jnp.ones((1, 1, 3, 3))
      >>> w = jnp.ones((2, 4, 2, 2))  # O, C*2*2, out_H, out_W
      >>> lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2))[0, :, 0, 0]
      Array([4., 4.], dtype=float32)
  """
  canonical = canonicalize_precision(precision)
  if canonical is None:
    lhs_precision = None
  elif type(canonical) is tuple:
    lhs_precision = canonical[0]
  else:
    raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
  patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                         lhs_dilation, rhs_dilation, dimension_numbers,
                                         precision=lhs_precision)
  lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
      get_aval(lhs).shape, (1, 1) + tuple(filter_shape), dimension_numbers)
  pairs = sorted(zip(out_spec[2:], rhs_spec[2:]))  # each location: patch dim with kernel dim
  dims = (((out_spec[1],), (rhs_spec[1],)),
          (tuple(p for p, _ in pairs), tuple(k for _, k in pairs)))
  out = dot_general(patches, rhs, dims, precision=precision)
  return _move_to(out, (-2, -1), (out_spec[0], out_spec[1]))
