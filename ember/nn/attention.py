"""Scaled dot-product attention, ``ember.nn.dot_product_attention``, mirroring JAX's ``xla``
implementation of ``jax.nn.dot_product_attention`` (JAX 0.10.2).

Shapes use JAX's letters: ``B`` batch, ``T`` query length, ``S`` key/value length, ``N`` query
heads, ``K`` key/value heads, ``G = N // K`` query heads per key/value head, ``H`` head size.
Inside, the query is viewed as ``(B, T, K, G, H)`` so grouped-query attention needs no copy of
the keys and values; logits, biases and masks live in a ``(B, K, G, T, S)`` layout.

What runs in which dtype (as in JAX): the logits ``Q K^T`` are accumulated in
``promote_types(query.dtype, float32)`` (float32 for float16/bfloat16 inputs, float64 under
x64), scaled and biased in that dtype; masked-out logits become ``-0.7 * finfo(float32).max``;
the softmax runs in float32; the probabilities are cast to the key dtype before ``P V``.
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember import numpy as jnp
from ember.scipy._logsumexp import logsumexp
from ember.transforms.custom import stop_gradient

__all__ = ["dot_product_attention"]


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
  """Scaled dot-product attention ``softmax(Q K^T * scale + bias) V`` for each head.

  Args:
    query: ``(B, T, N, H)`` or ``(T, N, H)``.
    key: ``(B, S, K, H)`` or ``(S, K, H)``, with ``N`` a multiple of ``K`` (``K < N`` is
      grouped-query attention, ``K == 1`` multi-query attention); the dtype of ``query``.
    value: the shape and dtype of ``key``.
    bias: added to the logits; at most 4-D (leading axes are added), broadcastable to
      ``(B, N, T, S)``, with 1 or ``N`` heads.
    mask: boolean, True where a logit takes part; shaped like ``bias``.
    scale: the logit scale; ``1 / sqrt(H)`` when None.
    is_causal: mask out keys after the query position (``key index > query index``).
    query_seq_lengths: int32 ``(B,)``; query rows past the length give zero outputs.
    key_value_seq_lengths: int32 ``(B,)``; keys past the length are masked out.
    local_window_size: ``(left, right)`` or one int for both: query ``t`` attends to keys
      ``t - left`` to ``t + right``.
    implementation: None or ``"xla"`` (the same computation). ember has no cuDNN kernel:
      ``"cudnn"`` raises, as JAX does on a machine without cuDNN.
    return_residual: also return the log-sum-exp of each row of masked logits (in the key
      dtype, gradient-stopped), shaped ``(B, T, N)`` or ``(T, N)``.

  Returns:
    An array shaped and typed like ``query``; with ``return_residual``, the pair
    ``(output, residual)``.

  Raises:
    TypeError: naming it, for a ``bias`` or ``mask`` that does not broadcast to
      ``(B, N, T, S)`` (JAX raises the same type, without naming it).
    ValueError: naming the argument, for a wrong ndim, dtype or shape of ``value``,
      ``query``, ``mask``, ``bias`` or a sequence-length array; for ``N`` not a multiple of
      ``K``; for an unknown ``implementation``; for a ``local_window_size`` that is not a pair.
    AssertionError: for a ``bias`` or ``mask`` whose head axis is neither 1 nor ``N`` (JAX's
      error type; ember's message names the argument where JAX's is empty).
    RuntimeError: for ``implementation="cudnn"`` ("cuDNN is not detected.", JAX's message on
      CPU); ValueError first if the window has a right part and ``is_causal`` is False, as in
      JAX.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import nn
      >>> q = jnp.array([[[1., 0.]], [[0., 1.]]])            # (T=2, N=1, H=2)
      >>> v = jnp.array([[[1., 2.]], [[3., 4.]]])
      >>> nn.dot_product_attention(q, q, v, scale=1.)
      Array([[[1.5378829, 2.5378828]],
      <BLANKLINE>
             [[2.4621172, 3.4621172]]], dtype=float32)
      >>> nn.dot_product_attention(q, q, v, is_causal=True)
      Array([[[1.      , 2.      ]],
      <BLANKLINE>
             [[2.339523, 3.339523]]], dtype=float32)
  """
  out_shape = jnp.asarray(query).shape
  q, k, v = _as_4d(query), _as_4d(key), _as_4d(value)
  bias = None if bias is None else _as_4d(bias)
  mask = None if mask is None else _as_4d(mask)
  q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
  kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
  if isinstance(local_window_size, int):
    local_window_size = (local_window_size, local_window_size)

  B, S, K, H = k.shape
  _check("value", v, [B, S, K, H], k.dtype)
  _check("query", q, [B, -1, -1, H], k.dtype)
  _check("mask", mask, [-1] * 4, np.dtype(bool))
  _check("bias", bias, [-1] * 4, None)
  _check("query_seq_lengths", q_len, [B], np.dtype(np.int32))
  _check("key_value_seq_lengths", kv_len, [B], np.dtype(np.int32))
  N = q.shape[2]
  if N % K:
    raise ValueError("The number of query heads must be a multiple of key/value heads, but "
                     f"got {N} vs {K}")
  _check_broadcast("bias", bias, q.shape, S, K, out_shape)
  _check_broadcast("mask", mask, q.shape, S, K, out_shape)
  scale = 1.0 / np.sqrt(H) if scale is None else scale

  if implementation == "cudnn":
    _reject_cudnn(local_window_size, is_causal)
  elif implementation is not None and implementation != "xla":
    raise ValueError(f"Unsupported implementation option: {implementation}")
  out, lse = _attention(q, k, v, bias, mask, scale=scale, is_causal=is_causal, q_len=q_len,
                        kv_len=kv_len, window=local_window_size, residual=bool(return_residual))
  out = jnp.reshape(out, out_shape)
  if return_residual:
    return out, jnp.reshape(lse, out_shape[:-1])
  return out


def _as_4d(t):
  """``t`` as an array with leading axes of size 1 added up to rank 4 (a higher rank is kept,
  for the ndim check to reject)."""
  t = jnp.asarray(t)
  return t.reshape((1,) * (4 - t.ndim) + t.shape) if t.ndim < 4 else t


def _check(name, t, shape, dtype):
  """JAX's argument checks, in its order: ndim, then dtype, then each non-(-1) size."""
  if t is None:
    return
  if t.ndim != len(shape):
    raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
  if dtype is not None and t.dtype != dtype:
    raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
  if any(want != -1 and got != want for want, got in zip(shape, t.shape)):
    raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def _check_broadcast(name, t, q_shape, S, K, out_shape):
  """TypeError naming ``name`` when it does not broadcast to the logits ``(B, N, T, S)``, or
  widens them (then the output cannot take the query's shape). The type and the final words
  are those of the error JAX raises later, in the ``add``/``and`` or the final reshape."""
  if t is None:
    return
  B, T, N, H = q_shape
  logits = (B, N, T, S)
  if t.shape[1] not in (1, N):
    return  # _grouped raises JAX's AssertionError
  where = f"{name} of shape {t.shape} must broadcast to the logits' shape (B, N, T, S) = {logits}"
  try:
    widened = np.broadcast_shapes(t.shape, logits)
  except ValueError:
    op = "add" if name == "bias" else "and"
    per_group = (t.shape[0], 1 if t.shape[1] == 1 else K, t.shape[2], t.shape[3])
    raise TypeError(f"{where}; {op} got incompatible shapes for broadcasting: "
                    f"{(B, K, T, S)}, {per_group}.") from None
  if widened != logits:
    raise TypeError(f"{where}; it widens them to {widened}, so the result cannot reshape "
                    f"into the query's shape {tuple(out_shape)}")


def _reject_cudnn(window, is_causal):
  if window is not None:
    _, right = window
    if right != 0 and not is_causal:
      raise ValueError(f"cuDNN doesn't support right window: {right} when causal mask is not "
                       "used.")
  raise RuntimeError("cuDNN is not detected.")


def _grouped(name, t, N, K):
  """A ``(b, N or 1, t, s)`` bias or mask as ``(b, K or 1, G or 1, t, s)``."""
  if t is None:
    return None
  b, n, rows, cols = t.shape
  if n == 1:
    return t.reshape(b, 1, 1, rows, cols)
  if n != N:
    raise AssertionError(f"{name} has {n} heads on axis 1 (of shape {t.shape}); it needs 1 or "
                         f"the query's {N}")
  return t.reshape(b, K, N // K, rows, cols)


def _attention(q, k, v, bias, mask, *, scale, is_causal, q_len, kv_len, window, residual):
  """``(output (B, T, N, H), residual (B, T, N) or None)`` from 4-D checked arguments."""
  B, T, N, H = q.shape
  S, K = k.shape[1], k.shape[2]
  G = N // K
  q = q.reshape(B, T, K, G, H)
  logits_dtype = jnp.promote_types(q.dtype, np.float32)
  logits = _logits(q, k, logits_dtype)                       # (B, K, G, T, S)
  logits = logits * jnp.array(scale, dtype=logits.dtype)
  bias = _grouped("bias", bias, N, K)
  if bias is not None:
    logits = (logits + bias).astype(logits.dtype)
  keep = _keep_mask(_grouped("mask", mask, N, K), T, S, is_causal, q_len, kv_len, window)
  if keep is not None:
    big_negative = np.float32(-0.7) * np.finfo(np.float32).max
    logits = jnp.where(keep, logits, jnp.asarray(big_negative, dtype=logits.dtype))
  logits = logits.astype(np.float32)
  probs = _softmax(logits).astype(k.dtype)
  # P V with the values as the left operand, as JAX's einsum orders it: (B, K, H, G, T)
  out = lax.dot_general(v, probs, (((1,), (4,)), ((0, 2), (0, 1))))
  out = jnp.transpose(out, (0, 4, 1, 3, 2))
  if q_len is not None:
    valid_rows = jnp.arange(T)[None, :] < q_len[:, None]   # (B, T)
    out = out * valid_rows[:, :, None, None, None].astype(out.dtype)
  out = out.reshape(B, T, N, H)
  if not residual:
    return out, None
  lse = stop_gradient(logsumexp(logits, axis=-1).astype(k.dtype))   # (B, K, G, T)
  return out, jnp.transpose(lse, (0, 3, 1, 2)).reshape(B, T, N)


def _logits(q, k, dtype):
  """``Q K^T`` accumulated in ``dtype``. For float16/bfloat16 JAX first asks for the matching
  ``DotAlgorithmPreset`` and falls back to the default precision when that fails at once (so
  an eager CPU call works and a jitted one raises the CPU lowering error, as in JAX)."""
  spec = "BTKGH,BSKH->BKGTS"
  preset = {np.dtype(jnp.bfloat16): lax.DotAlgorithmPreset.BF16_BF16_F32,
            np.dtype(np.float16): lax.DotAlgorithmPreset.F16_F16_F32}.get(np.dtype(q.dtype))
  if preset is not None:
    try:
      return jnp.einsum(spec, q, k, precision=preset, preferred_element_type=dtype)
    except Exception:  # noqa: BLE001 -- JAX retries on any failure of the preset
      pass
  return jnp.einsum(spec, q, k, preferred_element_type=dtype)


def _keep_mask(mask, T, S, is_causal, q_len, kv_len, window):
  """The boolean ``(B|1, K|1, G|1, T, S)`` mask of logits that take part, or None for all."""
  if mask is None and not is_causal and q_len is None and kv_len is None and window is None:
    return None
  keep = jnp.ones((1, 1, 1, T, S), dtype=bool)
  if mask is not None:
    keep = keep & mask
  rows = jnp.arange(T)[:, None]   # query positions
  cols = jnp.arange(S)[None, :]   # key positions
  if is_causal:
    keep = keep & (cols <= rows)
  if window is not None:
    left, right = window
    keep = keep & (rows <= cols + left) & (rows >= cols - right)
  if q_len is not None or kv_len is not None:
    pad = jnp.ones((1, T, S), dtype=bool)
    if q_len is not None:
      pad = pad & (jnp.arange(T)[None, :, None] < q_len[:, None, None])
    if kv_len is not None:
      pad = pad & (jnp.arange(S)[None, None, :] < kv_len[:, None, None])
    keep = keep & pad[:, None, None]
  return keep


def _softmax(x):
  """Softmax over the last axis, differentiated through ``exp(x - stop_gradient(max))`` as
  JAX's ``jax.nn.softmax`` is (the ``jax_softmax_custom_jvp`` flag is off in 0.10.2)."""
  x_max = jnp.max(x, axis=-1, keepdims=True, initial=-np.inf)
  unnormalized = jnp.exp(x - stop_gradient(x_max))
  return unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)
