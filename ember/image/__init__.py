"""``ember.image``: resampling of images (JAX's ``jax.image``): ``resize``,
``scale_and_translate`` and the ``ResizeMethod`` enum, with JAX's values, dtypes and gradients.

Pixels are half-centred: along a dimension with scale ``s`` and translation ``t``, output pixel
``j`` samples the input at ``x_j = (j + 0.5 - t) / s - 0.5`` (in input pixels; ``resize`` uses
``s = out_size / in_size`` and ``t = 0``). The weight of input pixel ``i`` in output pixel ``j``
is:

- for the interpolating kernels (``LINEAR``: triangle; ``CUBIC``: Keys' cubic with
  ``a = -0.5``; ``LANCZOS3``/``LANCZOS5``: Lanczos of radius 3/5) the kernel at
  ``|x_j - i|``, stretched by ``1 / s`` when downsampling with ``antialias``;
- for ``AREA`` the overlap of input pixel ``[i, i + 1)`` with the footprint
  ``[(j - t) / s, (j + 1 - t) / s)`` of output pixel ``j`` (pixel-edge coordinates);
- for ``CUBIC_PYTORCH`` without ``antialias``, PyTorch's bicubic: Keys' kernel with
  ``a = -0.75`` over the image padded by two edge pixels on each side (an output pixel is zero
  only when no padded pixel is within the kernel's reach); with ``antialias`` it is ``CUBIC``.

Each output pixel's weights are normalized to sum to 1 (all zero when their sum is below
``1000 * eps(float32)``), and, but for PyTorch's bicubic, are zero when ``x_j`` lies outside
``[-0.5, in_size - 0.5]``. ``NEAREST`` (``resize`` only) takes input pixel
``floor((j + 0.5) * in_size / out_size)`` (float32 arithmetic, as compiled by XLA) and keeps the
image's dtype. The other methods return the image's inexact type: its own for floats and complex
numbers, float32 for booleans and integers up to 32 bits, float64 for 64-bit integers.
``resize`` leaves dimensions whose size does not change untouched.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import image
    >>> image.resize(jnp.array([0.0, 1.0, 2.0, 3.0]), (2,), "linear")
    Array([0.71428573, 2.2857146 ], dtype=float32)
    >>> image.resize(jnp.array([0.0, 1.0, 2.0, 3.0]), (2,), "linear", antialias=False)
    Array([0.5, 2.5], dtype=float32)
"""
from ember.image._resize import ResizeMethod, resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
