"""lax's convolutions: ``conv_general_dilated`` and its convenience wrappers.

The wrappers resolve what the primitive takes as plain params: dimension numbers given as
``None`` or strings (``('NCHW', 'OIHW', 'NCHW')``, ``('NHWC', 'HWIO', 'NHWC')``...) become a
``ConvDimensionNumbers``; ``'SAME'``, ``'SAME_LOWER'`` and ``'VALID'`` padding become
``(low, high)`` pairs; missing dilations become ones; ``precision`` is canonicalized.

Example:
    >>> import numpy as np
    >>> from ember import lax
    >>> x = np.array([1., 2., 1.], np.float32).reshape(1, 1, 3)
    >>> lax.conv_general_dilated(x, np.ones((1, 1, 10), np.float32), (1,), [(9, 9)])[0, 0]
    Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import Sequence, Union

import numpy as np

from ember import dtypes
from ember.core.trace import get_aval
from ember.primitives.convolution import (ConvDimensionNumbers, conv_general_dilated_p,
                                          conv_shape, dilate_shape)
from ember.primitives.linalg import canonicalize_precision
from ember.backend.sharding import check_out_sharding

__all__ = ["conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
           "conv_dimension_numbers", "conv_general_permutations", "conv_shape_tuple",
           "conv_general_shape_tuple", "conv_transpose_shape_tuple", "padtype_to_pads",
           "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "conv_general_dilated_p"]

#: ``None``, a ``ConvDimensionNumbers``, or a triple of strings such as ``('NCHW', 'OIHW', 'NCHW')``
ConvGeneralDilatedDimensionNumbers = Union[None, ConvDimensionNumbers, tuple[str, str, str]]


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
  """``(low, high)`` padding pairs for ``'VALID'`` (none), ``'SAME'`` or ``'SAME_LOWER'``.

  ``'SAME'`` pads so that the output has ``ceil(in / stride)`` elements, the odd element of
  padding at the end; ``'SAME_LOWER'`` puts it at the beginning.

  Raises:
    RuntimeError: for any other string (as JAX does).
    TypeError: for a stride that is not positive.

  Example:
      >>> padtype_to_pads((5, 6), (3, 2), (1, 2), 'SAME')
      [(1, 1), (0, 0)]
  """
  mode = padding.upper() if isinstance(padding, str) else padding
  if mode not in ("VALID", "SAME", "SAME_LOWER"):
    raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                       f"got {padding}.")
  if mode == "VALID":
    return [(0, 0)] * len(in_shape)
  if any(int(s) <= 0 for s in window_strides):
    raise TypeError("window_strides must have every element be strictly positive, got "
                    f"{tuple(window_strides)}.")
  pads = []
  for d, w, s in zip(in_shape, window_shape, window_strides):
    total = max((-(-int(d) // int(s)) - 1) * int(s) + int(w) - int(d), 0)
    half, odd = total // 2, total % 2
    pads.append((half, half + odd) if mode == "SAME" else (half + odd, half))
  return pads


def conv_general_permutations(dimension_numbers):
  """The ``(lhs_spec, rhs_spec, out_spec)`` positions named by three spec strings; spatial
  dimensions are ordered as they appear in the kernel's string.

  Example:
      >>> conv_general_permutations(('NHWC', 'HWIO', 'NHWC'))
      ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
  """
  specs = tuple(dimension_numbers)
  pairs = (("N", "C"), ("O", "I"), ("N", "C"))
  for i, (a, b) in enumerate(pairs):
    if not specs[i].count(a) == specs[i].count(b) == 1:
      raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' "
                      f"and '{b}' exactly once, got {specs[i]}.")
    if len(specs[i]) != len(set(specs[i])):
      raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                      f"got {specs[i]}.")
  spatial = [set(s) - set(p) for s, p in zip(specs, pairs)]
  if not spatial[0] == spatial[1] == spatial[2]:
    raise TypeError("convolution dimension_numbers elements must each have the same set of "
                    f"spatial characters, got {specs}.")
  rhs = specs[1]

  def perm(spec, pair):
    dims = sorted((i for i, c in enumerate(spec) if c not in pair),
                  key=lambda i: rhs.index(spec[i]))
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(dims)

  return tuple(perm(s, p) for s, p in zip(specs, pairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
  """``dimension_numbers`` (None, strings or ``ConvDimensionNumbers``) as a
  ``ConvDimensionNumbers``; None means ``('NCH...', 'OIH...', 'NCH...')``.

  Example:
      >>> conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4), ('NHWC', 'HWIO', 'NHWC'))
      ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
  """
  if isinstance(dimension_numbers, ConvDimensionNumbers):
    return dimension_numbers
  if len(lhs_shape) != len(rhs_shape):
    raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                    f"{len(lhs_shape)} and {len(rhs_shape)}.")
  if dimension_numbers is None:
    iota = tuple(range(len(lhs_shape)))
    return ConvDimensionNumbers(iota, iota, iota)
  if not isinstance(dimension_numbers, (list, tuple)):
    raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                    f"{type(dimension_numbers)}.")
  if len(dimension_numbers) != 3:
    raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                    f"{len(dimension_numbers)}.")
  if not all(isinstance(s, str) for s in dimension_numbers):
    raise TypeError("convolution dimension_numbers elements must be strings, got "
                    f"{tuple(map(type, dimension_numbers))}.")
  for i, s in enumerate(dimension_numbers):
    if len(s) != len(lhs_shape):
      raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim of "
                      f"lhs and rhs, got {len(s)} for lhs and rhs shapes {tuple(lhs_shape)} and "
                      f"{tuple(rhs_shape)}.")
  return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def _ints(seq, what: str) -> tuple[int, ...]:
  try:
    return tuple(operator.index(d) for d in seq)
  except TypeError:
    raise TypeError(f"conv_general_dilated {what} must be a sequence of integers, got "
                    f"{seq!r}.") from None


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None, out_sharding=None):
  """General n-dimensional convolution with strides, padding, dilations and groups.

  Args:
    lhs: the input, of rank ``n + 2`` (batch, feature and ``n`` spatial dimensions).
    rhs: the kernel, of rank ``n + 2`` (output feature, input feature, spatial dimensions).
    window_strides: ``n`` strides.
    padding: ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or ``n`` ``(low, high)`` pairs.
    lhs_dilation: ``n`` input dilations (a transposed convolution), default ones.
    rhs_dilation: ``n`` kernel dilations (an atrous convolution), default ones.
    dimension_numbers: None (``NC...``/``OI...``/``NC...``), a ``ConvDimensionNumbers`` or a
      triple of strings such as ``('NHWC', 'HWIO', 'NHWC')``; window strides follow the order
      of the spatial characters in the kernel's string.
    feature_group_count, batch_group_count: grouped convolutions (at most one above 1).
    precision: None, a ``Precision`` (or pair, or name) or a ``DotAlgorithmPreset``.
    preferred_element_type: the result (accumulation) dtype.

  Returns:
    The convolution, laid out as ``dimension_numbers``'s output spec says.

  Raises:
    TypeError, ValueError: with JAX's messages, for inconsistent shapes, groups, dimension
      numbers, padding or dtypes.

  Example:
      >>> import numpy as np
      >>> x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
      >>> conv_general_dilated(x, np.ones((1, 1, 2), np.float32), (2,), 'SAME')
      Array([[[1., 5., 4.]]], dtype=float32)
  """
  if out_sharding is not None:  # sic: JAX 0.10.2 names dot_general
    check_out_sharding("dot_general", out_sharding)
  lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
  dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  nspatial = len(lhs_shape) - 2
  if lhs_dilation is None:
    lhs_dilation = (1,) * nspatial
  elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
    raise ValueError("String padding is not implemented for transposed convolution using this "
                     "op. Please either exactly specify the required padding or use "
                     "conv_transpose.")
  if rhs_dilation is None:
    rhs_dilation = (1,) * (len(rhs_shape) - 2)
  window_strides = _ints(window_strides, "window_strides")
  rhs_dilation = _ints(rhs_dilation, "rhs_dilation")
  if isinstance(padding, str):
    window = dilate_shape([rhs_shape[d] for d in dnums.rhs_spec[2:]], rhs_dilation)
    padding = padtype_to_pads([lhs_shape[d] for d in dnums.lhs_spec[2:]], window,
                              window_strides, padding)
  try:
    padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
  except (ValueError, TypeError):
    raise ValueError("padding argument to conv_general_dilated should be a string or a sequence "
                     f"of (low, high) pairs, got {padding}") from None
  if preferred_element_type is not None:
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                                      "conv_general_dilated")
  return conv_general_dilated_p.bind(
      lhs, rhs, window_strides=window_strides, padding=padding,
      lhs_dilation=_ints(lhs_dilation, "lhs_dilation"), rhs_dilation=rhs_dilation,
      dimension_numbers=dnums, feature_group_count=operator.index(feature_group_count),
      batch_group_count=operator.index(batch_group_count),
      precision=canonicalize_precision(precision),
      preferred_element_type=preferred_element_type, out_sharding=None)


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None,
         preferred_element_type=None):
  """``conv_general_dilated`` in ``NC...``/``OI...`` layout without dilation.

  Example:
      >>> import numpy as np
      >>> conv(np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.float32), (2, 2),
      ...      'VALID')
      Array([[[[4., 4.],
               [4., 4.]]]], dtype=float32)
  """
  return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision=None,
                              preferred_element_type=None):
  """``conv_general_dilated`` in ``NC...``/``OI...`` layout, with dilations.

  Example:
      >>> import numpy as np
      >>> conv_with_general_padding(np.ones((1, 1, 3), np.float32), np.ones((1, 1, 2),
      ...     np.float32), (1,), [(1, 1)], (2,), None)
      Array([[[1., 1., 1., 1., 1., 1.]]], dtype=float32)
  """
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                              rhs_dilation=rhs_dilation, precision=precision,
                              preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
  """The padding of the fractionally strided convolution for a kernel of (dilated) size ``k``
  and stride ``s`` that undoes a forward convolution padded with ``padding``."""
  if padding == "SAME":
    total = k + s - 2
    before = k - 1 if s > k - 1 else -(-total // 2)
  elif padding == "VALID":
    total = k + s - 2 + max(k - s, 0)
    before = k - 1
  elif isinstance(padding, tuple):
    pads = tuple(k - p - 1 for p in padding)
    before, total = pads[0], sum(pads)
  else:
    raise ValueError(f"Invalid padding mode: {padding}")
  return before, total - before


_TRANSPOSE_DEFAULT_DNUMS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                            4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides: Sequence[int], padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
  """The "transposed" (fractionally strided) convolution, computed directly.

  Args:
    lhs, rhs: input and kernel of rank ``n + 2``.
    strides: ``n`` fractional strides (the input is dilated by them).
    padding: ``'SAME'`` or ``'VALID'`` (the padding of the forward convolution this one
      transposes), or ``(low, high)`` pairs: the transposed convolution's own padding, or, with
      ``use_consistent_padding=True``, the forward one's (PyTorch's convention).
    rhs_dilation: kernel dilations.
    dimension_numbers: as in ``conv_general_dilated``; defaults to TensorFlow's
      (``NHWC``/``HWIO``/``NHWC`` for two spatial dimensions).
    transpose_kernel: flip the kernel spatially and swap its input and output features, so the
      result is the gradient of ``conv_general_dilated`` with the same kernel (as Keras'
      ``Conv2DTranspose``).

  Example:
      >>> import numpy as np
      >>> conv_transpose(np.ones((1, 2, 1), np.float32), np.ones((2, 1, 1), np.float32), (2,),
      ...                'VALID')[..., 0]
      Array([[1., 1., 1., 1.]], dtype=float32)
  """
  from ember import lax
  lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
  ndims = len(lhs_shape)
  if dimension_numbers is None:
    if ndims not in _TRANSPOSE_DEFAULT_DNUMS:
      raise ValueError("No 4+ dimensional dimension_number defaults.")
    dimension_numbers = _TRANSPOSE_DEFAULT_DNUMS[ndims]
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  kernel = [rhs_shape[d] for d in dn.rhs_spec[2:]]
  if rhs_dilation is None:
    rhs_dilation = (1,) * (ndims - 2)
  if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
    each = [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
    pads = [_conv_transpose_padding(k, s, p)
            for k, s, p in zip(dilate_shape(kernel, rhs_dilation), strides, each)]
  else:
    pads = padding
  if transpose_kernel:
    rhs = lax.rev(rhs, dn.rhs_spec[2:])
    perm = list(range(ndims))
    perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
    rhs = lax.transpose(rhs, perm)
  return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides, rhs_dilation, dn,
                              precision=precision, preferred_element_type=preferred_element_type)


# --- shape utilities --------------------------------------------------------------------------

def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1):
  """The output shape of a convolution of canonical-layout (``NC...``, ``OI...``) shapes.

  Example:
      >>> conv_shape_tuple((2, 3, 10), (4, 3, 3), (2,), 'SAME')
      (2, 4, 5)
  """
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  if len(pads) != len(lhs_shape) - 2:
    raise TypeError("Wrong number of explicit pads for convolution: expected "
                    f"{len(lhs_shape) - 2}, got {len(pads)}.")
  return conv_shape(tuple(lhs_shape), tuple(rhs_shape), strides, pads, batch_group_count)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
  """The output shape of ``conv_general_dilated`` (no dilation) in the output's layout.

  Example:
      >>> conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 5), (1, 1), 'VALID',
      ...                          ('NHWC', 'HWIO', 'NHWC'))
      (1, 6, 6, 5)
  """
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  out = conv_shape_tuple([lhs_shape[d] for d in lhs_perm], [rhs_shape[d] for d in rhs_perm],
                         window_strides, padding)
  return tuple(out[i] for i in np.argsort(out_perm))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
  """The output shape of ``conv_transpose`` (no dilation) in the output's layout.

  Example:
      >>> conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 5), (2, 2), 'SAME',
      ...                            ('NHWC', 'HWIO', 'NHWC'))
      (1, 8, 8, 5)
  """
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  lhs_t = [lhs_shape[d] for d in lhs_perm]
  rhs_t = [rhs_shape[d] for d in rhs_perm]
  if isinstance(padding, str):
    padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs_t[2:], window_strides)]
  space = [(i - 1) * s - k + 2 + sum(p)
           for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
  out = (lhs_t[0], rhs_t[0]) + tuple(space)
  return tuple(out[i] for i in np.argsort(out_perm))
