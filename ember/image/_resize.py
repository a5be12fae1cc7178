"""The implementation of ``ember.image`` (see its docstring for what each method computes).

Every method but nearest resamples the spatial dimensions one after another, contracting the
image along each with a weight matrix ``w[i, j]`` (the weight of input pixel ``i`` in output
pixel ``j``), computed in the float type of that dimension's scale and translation (the default
float type for ``resize``) and cast to the image's type. Nearest gathers input pixels.

Example:
    >>> import ember.numpy as jnp
    >>> resize(jnp.array([0.0, 1.0, 2.0, 3.0]), (2,), "linear", antialias=False)
    Array([0.5, 2.5], dtype=float32)
"""
from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.lax.structural import canonicalize_shape
from ember.numpy._util import canonicalize_axis, promote_dtypes_inexact
from ember.transforms.jit import jit

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
  """The resampling methods of :func:`resize` and :func:`scale_and_translate`.

  ``NEAREST`` (nearest neighbour), ``LINEAR`` (triangle kernel), ``LANCZOS3`` and ``LANCZOS5``
  (Lanczos kernels of radius 3 and 5), ``CUBIC`` (Keys cubic kernel, ``a = -0.5``),
  ``CUBIC_PYTORCH`` (PyTorch's bicubic: ``a = -0.75`` with edge padding, unless antialiased) and
  ``AREA`` (the average of the input pixels each output pixel covers).

  Example:
      >>> ResizeMethod.from_string("bilinear")
      <ResizeMethod.LINEAR: 1>
  """
  NEAREST = 0
  LINEAR = 1
  LANCZOS3 = 2
  LANCZOS5 = 3
  CUBIC = 4
  CUBIC_PYTORCH = 5
  AREA = 6

  @staticmethod
  def from_string(s: str):
    """The method named ``s`` (the names :func:`resize` accepts, e.g. ``"bicubic"``).

    Raises:
      ValueError: for an unknown name (names are lower case).

    Example:
        >>> ResizeMethod.from_string("lanczos3")
        <ResizeMethod.LANCZOS3: 2>
    """
    method = _NAMES.get(s)
    if method is None:
      raise ValueError(f'Unknown resize method "{s}"')
    return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    "linear": ResizeMethod.LINEAR, "bilinear": ResizeMethod.LINEAR,
    "trilinear": ResizeMethod.LINEAR, "triangle": ResizeMethod.LINEAR,
    "lanczos3": ResizeMethod.LANCZOS3, "lanczos5": ResizeMethod.LANCZOS5,
    "cubic": ResizeMethod.CUBIC, "bicubic": ResizeMethod.CUBIC, "tricubic": ResizeMethod.CUBIC,
    "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH, "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "area": ResizeMethod.AREA,
}


def _method(method) -> ResizeMethod:
  if isinstance(method, str):
    method = ResizeMethod.from_string(method)
  if not isinstance(method, ResizeMethod):  # JAX asserts this
    raise AssertionError(f"method must be a ResizeMethod or one of {sorted(_NAMES)}, got "
                         f"{method!r}")
  return method


# --- kernels: functions of the distance |x_j - i| >= 0 (in kernel units) ---------------------

def _triangle(x):
  return jnp.maximum(0, 1 - x)


def _keys_cubic(a: float):
  """Keys' cubic convolution kernel with parameter ``a``: ``(a+2)x^3 - (a+3)x^2 + 1`` on
  [0, 1), ``a(x^3 - 5x^2 + 8x - 4)`` on [1, 2), 0 beyond."""
  def kernel(x):
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return jnp.where(x >= 2, 0, jnp.where(x >= 1, far, near))
  return kernel


def _lanczos(radius: int):
  """``sinc(x) sinc(x / radius)`` on [0, radius], 1 near 0 (below 1e-3), 0 beyond (with a safe
  denominator at 0, so gradients stay finite)."""
  def kernel(x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    out = jnp.where(x > 1e-3, y / jnp.where(x != 0, np.pi ** 2 * x ** 2, 1), 1)
    return jnp.where(x > radius, 0, out)
  return kernel


_KERNELS = {
    ResizeMethod.LINEAR: _triangle,
    ResizeMethod.LANCZOS3: _lanczos(3),
    ResizeMethod.LANCZOS5: _lanczos(5),
    ResizeMethod.CUBIC: _keys_cubic(-0.5),
    ResizeMethod.CUBIC_PYTORCH: _keys_cubic(-0.5),  # antialiased: the same as CUBIC
}
_PYTORCH_CUBIC = _keys_cubic(-0.75)
_PYTORCH_PAD = 2  # PyTorch's bicubic reads up to two pixels past each edge


# --- weight matrices --------------------------------------------------------------------------

def _normalized(w, x, in_size: int, mask: bool = True):
  """Columns scaled to sum to 1 (zero where the sum is about 0), and with ``mask`` zero where
  ``x_j`` lies outside the image."""
  total = jnp.sum(w, axis=0, keepdims=True)
  tiny = 1000.0 * float(np.finfo(np.float32).eps)
  w = jnp.where(jnp.abs(total) > tiny, w / jnp.where(total != 0, total, 1), 0)
  if not mask:
    return w
  inside = jnp.logical_and(x >= -0.5, x <= in_size - 0.5)
  return jnp.where(inside[None, :], w, 0)


def _area_weights(in_size: int, out_size: int, inv_scale, translation, dtype):
  """The overlap of input pixel ``[i, i + 1)`` with output pixel ``j``'s footprint
  ``[j / s - t / s, (j + 1) / s - t / s)`` (pixel-edge coordinates)."""
  lo = jnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
  hi = lo + inv_scale
  edges = jnp.arange(in_size, dtype=dtype)[:, None]
  return jnp.maximum(0, jnp.minimum(hi[None, :], edges + 1) - jnp.maximum(lo[None, :], edges))


def _pytorch_weights(in_size: int, x, dtype):
  """PyTorch's bicubic (not antialiased): Keys' kernel (``a = -0.75``) over the image padded by
  two pixels on each side, the padding's weights moved to the edge pixels it repeats."""
  pixels = jnp.arange(in_size + 2 * _PYTORCH_PAD, dtype=dtype) - _PYTORCH_PAD
  w = _PYTORCH_CUBIC(jnp.abs(x[None, :] - pixels[:, None]))
  rows = jnp.clip(pixels.astype(np.int32), 0, in_size - 1)
  return jnp.zeros((in_size, x.shape[0]), w.dtype).at[rows].add(w)


def _weight_matrix(in_size: int, out_size: int, scale, translation, method: ResizeMethod,
                   antialias: bool, dtype):
  """``w[i, j]``, the weight of input pixel ``i`` in output pixel ``j`` (shape in x out)."""
  inv_scale = 1.0 / scale
  x = (jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
  if method is ResizeMethod.AREA:
    w = _area_weights(in_size, out_size, inv_scale, translation, dtype)
  elif method is ResizeMethod.CUBIC_PYTORCH and not antialias:
    return _normalized(_pytorch_weights(in_size, x, dtype), x, in_size, mask=False)
  else:
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else 1.0
    dist = jnp.abs(x[None, :] - jnp.arange(in_size, dtype=dtype)[:, None])
    w = _KERNELS[method](dist / kernel_scale)
  return _normalized(w, x, in_size)


def _contract(image, w, dim: int, precision):
  """``image`` with dimension ``dim`` (size m) replaced by the m x n weights' n."""
  out = lax.dot_general(image, w, (((dim,), (0,)), ((), ())), precision=precision)
  return jnp.moveaxis(out, -1, dim)


def _scale_and_translate(image, shape, spatial_dims, scales, translations, method, antialias,
                         precision):
  for dim, scale, translation in zip(spatial_dims, scales, translations, strict=True):
    dim = canonicalize_axis(dim, image.ndim)
    w = _weight_matrix(image.shape[dim], shape[dim], scale, translation, method, antialias,
                       _weight_dtype(scale, translation))
    image = _contract(image, w.astype(image.dtype), dim, precision)
  return image


def _weight_dtype(scale, translation):
  return dtypes.to_inexact_dtype(dtypes.result_type(scale, translation))


# --- nearest ----------------------------------------------------------------------------------

def _resize_nearest(image, shape):
  for dim, (m, n) in enumerate(zip(image.shape, shape)):
    if m == n:
      continue
    idx = jnp.floor((jnp.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n))
    idx = jnp.minimum(idx.astype(np.int32), m - 1)
    image = image[(slice(None),) * dim + (idx,)]
  return image


# --- public functions -------------------------------------------------------------------------

def _check_rank(shape, image) -> None:
  if len(shape) != image.ndim:
    raise ValueError("shape must have length equal to the number of dimensions of x;  "
                     f"{shape} vs {image.shape}")


def _resize(image, shape, method, antialias, precision):
  _check_rank(shape, image)
  method = _method(method)
  if method is ResizeMethod.NEAREST:
    return _resize_nearest(image, shape)
  image, = promote_dtypes_inexact(image)
  dims = tuple(d for d in range(len(shape)) if image.shape[d] != shape[d])
  scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
  return _scale_and_translate(image, shape, dims, scales, [0.0] * len(dims), method, antialias,
                              precision)


_resize_jit = jit(_resize, static_argnums=(1, 2, 3, 4))


def resize(image, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision=lax.Precision.HIGHEST):
  """``image`` resampled to ``shape`` (every dimension; keep a batch or channel dimension's
  size to leave it alone) with ``method`` (see the module docstring).

  Args:
    image: an array (a pytree of arrays is not accepted).
    shape: the output shape, one size per dimension of ``image``.
    method: a :class:`ResizeMethod` or its name: ``"nearest"``, ``"linear"`` (``"bilinear"``,
      ``"trilinear"``, ``"triangle"``), ``"cubic"`` (``"bicubic"``, ``"tricubic"``),
      ``"cubic-pytorch"`` (``"bicubic-pytorch"``), ``"lanczos3"``, ``"lanczos5"``, ``"area"``.
    antialias: when downsampling, widen the kernel to cover each output pixel's footprint
      (ignored by nearest and area).
    precision: the precision of the contractions with the weights.

  Returns:
    The resized image: of ``image``'s type for nearest, else of its inexact type (float32
    for booleans and integers up to 32 bits, float64 for 64-bit ones).

  Raises:
    ValueError: if ``len(shape) != image.ndim`` or the method is unknown.

  Example:
      >>> import ember.numpy as jnp
      >>> resize(jnp.array([[1, 2], [3, 4]]), (3, 3), "nearest")
      Array([[1, 2, 2],
             [3, 4, 4],
             [3, 4, 4]], dtype=int32)
      >>> resize(jnp.array([1.0, 2.0]), (4,), "linear")
      Array([1.  , 1.25, 1.75, 2.  ], dtype=float32)
  """
  return _resize_jit(image, canonicalize_shape(shape), method, antialias, precision)


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale,
                        translation, method: str | ResizeMethod, antialias: bool = True,
                        precision=lax.Precision.HIGHEST):
  """``image`` resampled so that input position ``y`` lands at ``y * scale + translation`` in
  the output, along ``spatial_dims`` (pixels are half-centred; output pixels whose sample
  point falls outside the input are zero).

  Args:
    image: an array.
    shape: the output shape, one size per dimension of ``image`` (dimensions not in
      ``spatial_dims`` keep their input size).
    spatial_dims: the K dimensions to resample.
    scale, translation: arrays of K values, one per spatial dimension.
    method: any :class:`ResizeMethod` but ``NEAREST``, or its name.
    antialias: when downsampling, widen the kernel to cover each output pixel's footprint.
    precision: the precision of the contractions with the weights.

  Returns:
    The resampled image, of ``image``'s inexact type.

  Raises:
    ValueError: if ``len(shape) != image.ndim``, for ``NEAREST`` or an unknown method.

  Example:
      >>> import ember.numpy as jnp
      >>> scale_and_translate(jnp.arange(4.0), (4,), (0,), jnp.array([1.0]), jnp.array([1.0]),
      ...                     "linear")
      Array([0., 0., 1., 2.], dtype=float32)
  """
  shape = canonicalize_shape(shape)
  _check_rank(shape, image)
  method = _method(method)
  if method is ResizeMethod.NEAREST:
    raise ValueError("Nearest neighbor resampling is not currently supported for "
                     "scale_and_translate.")
  image, = promote_dtypes_inexact(image)
  scale, translation = promote_dtypes_inexact(scale, translation)
  if not len(spatial_dims) == len(scale) == len(translation):  # JAX asserts this
    raise AssertionError(f"spatial_dims, scale and translation must have the same length, got "
                         f"{len(spatial_dims)}, {len(scale)} and {len(translation)}")
  return _scale_and_translate(image, shape, tuple(spatial_dims), scale, translation, method,
                              antialias, precision)
