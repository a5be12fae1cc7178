"""Block-scaled matrix products: ``nn.scaled_matmul``, ``nn.scaled_dot_general`` and
``nn.get_scaled_dot_general_config``, as in JAX 0.10.2.

``scaled_matmul`` multiplies low-precision operands with one scale per block of ``K``;
``scaled_dot_general`` quantizes high-precision operands itself (mxfp8: float8_e4m3fn values
with power-of-two float8_e8m0fnu scales per 32 entries; nvfp4: float4_e2m1fn values with
float8_e4m3fn scales per 16 entries and a global scale), multiplies them with
``scaled_matmul``, and differentiates through a custom VJP whose backward products are
quantized too. Without ``configs`` it is ``lax.dot_general``.

Both end in the ``scaled_matmul_wrapper`` primitive (ember/primitives/scaled_matmul.py), which
JAX implements with cuDNN on NVIDIA and AMD GPUs only: on the CPU, as in JAX, running it raises
``NotImplementedError`` (tracing, ``make_jaxpr`` and ``eval_shape`` work).

Example:
    >>> import ember, ember.numpy as jnp
    >>> a, b = jnp.ones((1, 2, 4)), jnp.ones((1, 3, 4))
    >>> s_a, s_b = jnp.ones((1, 2, 2)), jnp.ones((1, 3, 2))
    >>> ember.eval_shape(ember.nn.scaled_matmul, a, b, s_a, s_b)
    ShapeDtypeStruct(shape=(1, 2, 3), dtype=float32)
"""
from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.primitives.scaled_matmul import scaled_matmul_p
from ember.transforms.custom import custom_vjp
from ember.transforms.jit import jit

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general",
           "scaled_matmul"]


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
  """How ``scaled_dot_general`` quantizes one operand: the mode (``'mxfp8'`` or ``'nvfp4'``),
  the block size along the contracting dimension, the value and scale dtypes, the global scale
  (nvfp4) and whether it is used for inference only."""
  mode: str
  block_size: int
  data_type: Any
  scale_type: Any
  global_scale: Any
  infer_only: bool


def get_scaled_dot_general_config(mode: str, global_scale=None) -> BlockScaleConfig:
  """The quantization config of ``mode`` for ``scaled_dot_general``: ``'mxfp8'`` (blocks of
  32, float8_e4m3fn values, float8_e8m0fnu scales) or ``'nvfp4'`` (blocks of 16, float4_e2m1fn
  values, float8_e4m3fn scales, ``global_scale`` defaulting to ``ones((1,), float32)``).

  Raises:
    ValueError: another ``mode``.

  Example:
      >>> import ember
      >>> ember.nn.get_scaled_dot_general_config('mxfp8').block_size
      32
  """
  if mode == "nvfp4":
    scale = jnp.ones((1,), dtype=np.float32) if global_scale is None else global_scale
    return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=ml_dtypes.float4_e2m1fn,
                            scale_type=ml_dtypes.float8_e4m3fn, global_scale=scale,
                            infer_only=False)
  if mode == "mxfp8":
    return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=ml_dtypes.float8_e4m3fn,
                            scale_type=ml_dtypes.float8_e8m0fnu, global_scale=None,
                            infer_only=False)
  raise ValueError(f"Unsupported mode: {mode}")


# --- scaled_matmul --------------------------------------------------------------------------

def _check_matmul_shapes(a, b, a_scales, b_scales) -> None:
  if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
    raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
  (batch_a, _, k_a), (batch_b, _, k_b) = a.shape, b.shape
  if k_a != k_b or batch_a != batch_b:
    raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                     f"contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
  (batch_as, m_as, k_as), (batch_bs, n_bs, k_bs) = a_scales.shape, b_scales.shape
  if k_as != k_bs or batch_as != batch_bs:
    raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract (K) "
                     f"dimensions, but got shapes {a_scales.shape} and {b_scales.shape}")
  if m_as != a.shape[1] or n_bs != b.shape[1]:
    raise ValueError("scaled_matmul requires scales to match non-contract dimensions of inputs, "
                     f"but got shapes a: {a.shape}, b: {b.shape}, a_scales: {a_scales.shape}, "
                     f"b_scales: {b_scales.shape}")


@functools.partial(jit, static_argnames=("preferred_element_type",))
def _scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.dtype("float32")):
  return scaled_matmul_p.bind(lhs, rhs, lhs_scales, rhs_scales,
                              preferred_element_type=preferred_element_type)[0]


def _matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type):
  element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                          "scaled_matmul_wrapper")
  return _scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=element_type)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
  """Block-scaled batched matmul: ``einsum('BMK,BNK->BMN', lhs * repeat(lhs_scales),
  rhs * repeat(rhs_scales))``, each scale entry applying to a block of ``K // K_a`` entries.

  Args:
    lhs: ``(B, M, K)``.
    rhs: ``(B, N, K)``.
    lhs_scales: ``(B, M, K_a)``, ``K`` a multiple of ``K_a``.
    rhs_scales: ``(B, N, K_b)``.
    preferred_element_type: the result dtype (float32 by default).

  Returns:
    ``(B, M, N)``. As in JAX, only NVIDIA and AMD GPUs compute it: on the CPU, running it
    raises ``NotImplementedError``; ``make_jaxpr`` and ``eval_shape`` work.

  Raises:
    ValueError: the operands are not 3-D or their shapes do not fit together.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> a = jnp.ones((1, 2, 4))
      >>> ember.eval_shape(ember.nn.scaled_matmul, a, a, jnp.ones((1, 2, 2)),
      ...                  jnp.ones((1, 2, 2)))
      ShapeDtypeStruct(shape=(1, 2, 2), dtype=float32)
  """
  _check_matmul_shapes(lhs, rhs, lhs_scales, rhs_scales)
  element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                          "scaled_matmul")
  return _matmul(lhs, rhs, lhs_scales, rhs_scales, element_type)


# --- quantization -----------------------------------------------------------------------------

def _e8m0_round_up(x):
  """The float8_e8m0fnu exponent byte (uint8) of each entry of ``x``, rounded up to the next
  power of two (values whose mantissa is zero keep their exponent)."""
  bits = lax.bitcast_convert_type(x.astype(np.float32), np.uint32)
  exponent, mantissa = bits >> 23, bits & 0x7FFFFF
  up = jnp.logical_and(jnp.logical_and(mantissa > 0, exponent != 0xFE),
                       ~jnp.logical_and(exponent == 0, mantissa <= 0x400000))
  return jnp.where(up, exponent + 1, exponent).astype(np.uint8)


def _e8m0_value(exponent, dtype):
  """The power of two an e8m0 exponent byte stands for, in ``dtype`` (zero replaced by the
  smallest scale ``dtype`` can divide by)."""
  value = lax.bitcast_convert_type(exponent.astype(np.uint32) << 23, np.float32)
  tiny = 2.0 ** -15 if dtype == np.float16 else 2.0 ** -127
  return jnp.where(value == 0, jnp.array(tiny, np.float32), value).astype(dtype)


def _quantize(x, config: BlockScaleConfig):
  """``x`` ``(B, M, K)`` quantized per blocks of ``K``: ``(values, scales)``."""
  shape, size = x.shape, config.block_size
  if shape[-1] < size or shape[-1] % size:
    raise ValueError(f"scaled_dot_general: the contracting size {shape[-1]} must be a multiple "
                     f"of the {config.mode} block size {size}.")
  x = x.reshape(shape[:-1] + (shape[-1] // size, size))
  top = np.asarray(ml_dtypes.finfo(config.data_type).max).astype(x.dtype)
  per_block = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / top
  if config.mode == "mxfp8":
    scales = _e8m0_round_up(per_block)
    scaled = x / _e8m0_value(scales, x.dtype)
  elif config.mode == "nvfp4":
    scale_top = np.asarray(ml_dtypes.finfo(config.scale_type).max).astype(x.dtype)
    x = x / config.global_scale
    scales = jnp.clip(per_block, 0, scale_top)
    scales = lax.optimization_barrier(scales.astype(config.scale_type))
    scaled = x / scales.astype(np.float32)
  else:
    raise ValueError(f"Unrecognized mode: {config.mode}.")
  values = jnp.clip(scaled, -top, top).astype(config.data_type).reshape(shape)
  scales = jnp.reshape(scales, scales.shape[:-1])
  return values, lax.bitcast_convert_type(scales, config.scale_type)


# --- scaled_dot_general ---------------------------------------------------------------------

def _kept(ndim: int, *dims) -> list[int]:
  dropped = {d for ds in dims for d in ds}
  return [d for d in range(ndim) if d not in dropped]


def _to_bmk(x, contract, batch):
  """``x`` transposed to (batch, kept, contracting) dimensions and reshaped to 3-D."""
  order = [d for d in range(x.ndim) if d in batch] + _kept(x.ndim, contract, batch) + \
      [d for d in range(x.ndim) if d in contract]
  sizes = [math.prod(x.shape[d] for d in group) for group in
           ([d for d in order if d in batch], _kept(x.ndim, contract, batch),
            [d for d in order if d in contract])]
  return jnp.reshape(jnp.transpose(x, order), sizes)


def _dot_shape(lhs_shape, rhs_shape, lhs_dims, rhs_dims) -> tuple:
  """dot_general's result shape for ``(contract, batch)`` dimensions of each side."""
  (lc, lb), (rc, rb) = lhs_dims, rhs_dims
  return (tuple(lhs_shape[d] for d in range(len(lhs_shape)) if d in lb)
          + tuple(lhs_shape[d] for d in _kept(len(lhs_shape), lc, lb))
          + tuple(rhs_shape[d] for d in _kept(len(rhs_shape), rc, rb)))


def _quantized_product(a, b, a_dims, b_dims, element_type, a_config, b_config):
  """``dot_general`` of ``a`` and ``b`` (``(contract, batch)`` dims each) by quantizing both
  and multiplying with ``scaled_matmul``."""
  a_q, a_scales = _quantize(_to_bmk(a, *a_dims), a_config)
  b_q, b_scales = _quantize(_to_bmk(b, *b_dims), b_config)
  nvfp4 = a_config.mode == "nvfp4"
  out = _matmul(a_q, b_q, a_scales, b_scales, np.float32 if nvfp4 else element_type)
  if nvfp4:
    out = (out * (a_config.global_scale * b_config.global_scale)).astype(element_type)
  return jnp.reshape(out, _dot_shape(a.shape, b.shape, a_dims, b_dims))


def _grad_lhs(g, x, y, dimension_numbers, element_type, configs, swap_ans=False):
  """The cotangent of dot_general's ``x`` from ``g``, by a (quantized) product of ``g`` and
  ``y``; ``swap_ans`` when ``x`` is the right operand."""
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  x_kept, y_kept = _kept(x.ndim, x_contract, x_batch), _kept(y.ndim, y_contract, y_batch)
  n_batch = len(x_batch)
  ans_batch = list(range(n_batch))  # g's dimensions: batch, lhs's free, rhs's free
  y_start = n_batch if swap_ans else n_batch + len(x_kept)
  ans_y = list(range(y_start, y_start + len(y_kept)))
  x_contract_by_y = list(np.take(x_contract, np.argsort(y_contract)))
  out_axes = tuple(int(a) for a in np.argsort(list(x_batch) + x_kept + x_contract_by_y))
  y_dims, g_dims = (y_kept, y_batch), (ans_y, ans_batch)
  if configs[0].mode != "nvfp4":
    out = _quantized_product(g, y, g_dims, y_dims, element_type, configs[0], configs[1])
  else:
    g3, y3 = _to_bmk(g, *g_dims), _to_bmk(y, *y_dims)
    out = jnp.matmul(g3, jnp.transpose(y3, (0, 2, 1)), preferred_element_type=element_type)
    out = jnp.reshape(out, _dot_shape(g.shape, y.shape, g_dims, y_dims))
  return lax.transpose(out, out_axes)


# The custom VJP's functions keep JAX's names: a jaxpr prints them (custom_vjp_call[name=...]).
@functools.partial(custom_vjp, nondiff_argnums=(2, 3, 4))
def scaled_dot_general_fn(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  """The quantized product of operands that have batch dimensions."""
  (lc, rc), (lb, rb) = dimension_numbers
  return _quantized_product(lhs, rhs, (lc, lb), (rc, rb), preferred_element_type, configs[0],
                            configs[1])


def scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  """The product, and the operands as residuals."""
  out = scaled_dot_general_fn(lhs, rhs, dimension_numbers, preferred_element_type, configs)
  return out, (lhs, rhs)


def scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, res, g):
  """Both operands' cotangents, by quantized products with ``configs[2]`` for ``g``."""
  lhs, rhs = res
  (lc, rc), (lb, rb) = dimension_numbers
  grad_lhs = _grad_lhs(g, lhs, rhs, dimension_numbers, preferred_element_type,
                       [configs[2], configs[1]])
  grad_rhs = _grad_lhs(g, rhs, lhs, ((rc, lc), (rb, lb)), preferred_element_type,
                       [configs[2], configs[0]], swap_ans=True)
  if configs[2].mode == "nvfp4":  # straight-through: clipped inputs get no gradient
    top = np.asarray(ml_dtypes.finfo(configs[0].data_type).max).astype(lhs.dtype)
    scale_top = np.asarray(ml_dtypes.finfo(configs[0].scale_type).max).astype(lhs.dtype)
    grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * top * scale_top, grad_lhs, 0)
    grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * top * scale_top, grad_rhs, 0)
  return grad_lhs, grad_rhs


scaled_dot_general_fn.defvjp(scaled_dot_fwd, scaled_dot_bwd)

_ELEMENT_TYPES = (np.dtype("float32"), np.dtype(dtypes.bfloat16), np.dtype("float16"))


def _as_tuples(dimension_numbers):
  (lc, rc), (lb, rb) = dimension_numbers
  return (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))


def _quantized_dot_general(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  if preferred_element_type not in _ELEMENT_TYPES:
    raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                    f"{preferred_element_type}")
  dims = _as_tuples(dimension_numbers)
  contract, (lb, rb) = dims
  if lb == ():  # no batch dimension: add a trailing one of size 1 on each side
    lhs, lb = jnp.expand_dims(lhs, jnp.ndim(lhs)), (jnp.ndim(lhs),)
  if rb == ():
    rhs, rb = jnp.expand_dims(rhs, jnp.ndim(rhs)), (jnp.ndim(rhs),)
  batched = (contract, (lb, rb))
  out = scaled_dot_general_fn(lhs, rhs, batched, preferred_element_type, configs)
  return jnp.squeeze(out, axis=0) if batched != dims else out


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs: list[BlockScaleConfig] | None = None, implementation=None):
  """``lax.dot_general`` with both operands quantized per block by ``configs`` (three
  ``BlockScaleConfig``: for ``lhs``, ``rhs`` and the gradients; see
  ``get_scaled_dot_general_config``). Without ``configs`` it is ``lax.dot_general`` in
  ``preferred_element_type``.

  Args:
    lhs, rhs: the operands.
    dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
    preferred_element_type: the result dtype: float32 (default), bfloat16 or float16 when
      quantizing.
    configs: the quantization configs, or None.
    implementation: deprecated and ignored (warns).

  Returns:
    The product, batch dimensions first, then ``lhs``'s and ``rhs``'s free dimensions. As in
    JAX, the quantized product runs only on NVIDIA and AMD GPUs: on the CPU it raises
    ``NotImplementedError`` when run (``eval_shape`` and ``make_jaxpr`` work).

  Raises:
    TypeError: ``configs`` given with another ``preferred_element_type``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.nn.scaled_dot_general(jnp.ones((2, 3)), jnp.ones((3, 4)),
      ...                             (((1,), (0,)), ((), ()))).shape
      (2, 4)
  """
  if implementation is not None:
    warnings.warn("Backend selector, now ignored. The system chooses the backend "
                  "automatically.", DeprecationWarning, stacklevel=2)
  if configs is None:
    return lax.dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)
  return _quantized_dot_general(lhs, rhs, dimension_numbers, preferred_element_type, configs)
