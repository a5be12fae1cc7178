"""The ``rng_bit_generator`` primitive (params ``shape``, ``dtype``, ``algorithm``,
``out_sharding``): XLA's stateful-style bit generator, which maps a key to an advanced key and an
array of random bits, lowered to one ``stablehlo.rng_bit_generator``.

The key is uint32[4] (or uint64[2]); StableHLO takes the state as uint64[2], so a uint32 key is
bitcast word pairs to one uint64 each (low word first) and back. 8- and 16-bit outputs are
drawn as uint32 and truncated, as JAX does, so they are the low bits of the 32-bit stream.

Batching follows JAX's rule, which is not a per-key map: a batched key draws every example's
bits from the batch's first key (one draw of shape ``(batch,) + shape``), and only that key is
advanced in the returned keys. This is why the ``rbg`` PRNGs give different streams under vmap
than in a loop.
"""
from __future__ import annotations

import enum

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.primitives.elementwise import lax
from ember.transforms.batching import moveaxis

__all__ = ["RandomAlgorithm", "rng_bit_generator_p"]

_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)
_OUT_DTYPES = tuple(np.dtype(f"uint{n}") for n in (8, 16, 32, 64))


class RandomAlgorithm(enum.IntEnum):
  """The bit generator XLA runs (``RNG_DEFAULT`` is the backend's choice).

  Example:
      >>> RandomAlgorithm.RNG_PHILOX
      <RandomAlgorithm.RNG_PHILOX: 2>
  """
  RNG_DEFAULT = 0
  RNG_THREE_FRY = 1
  RNG_PHILOX = 2

  def __str__(self):
    return self.name


def _rng_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
  valid = (key.dtype == _U32 and key.shape == (4,)) or (key.dtype == _U64 and key.shape == (2,))
  if not valid:
    raise ValueError("rng_bit_generator takes a key of shape (4,) and dtype uint32, or of shape "
                     f"(2,) and dtype uint64; got {key.str_short()}.")
  return [key.strip_weak_type(), ShapedArray(tuple(shape), dtype)]


def _rng_lower(ctx, key, *, shape, dtype, algorithm, out_sharding):
  key_aval = ctx.avals_in[0]
  state_aval = ShapedArray((2,), _U64)
  state = key
  if key_aval.dtype == _U32:
    pairs = ctx.op1("stablehlo.reshape", [key], ShapedArray((2, 2), _U32))
    state = ctx.op1("stablehlo.bitcast_convert", [pairs], state_aval)
  drawn = _U32 if dtype.itemsize < 4 else dtype
  attrs = {"rng_algorithm": f"#stablehlo<rng_algorithm {algorithm.name[4:]}>"}
  new_state, bits = ctx.op("stablehlo.rng_bit_generator", [state],
                           [state_aval, ShapedArray(tuple(shape), drawn)], attrs)
  if drawn != dtype:
    bits = ctx.op1("stablehlo.convert", [bits], ShapedArray(tuple(shape), dtype))
  if key_aval.dtype == _U32:
    pairs = ctx.op1("stablehlo.bitcast_convert", [new_state], ShapedArray((2, 2), _U32))
    new_state = ctx.op1("stablehlo.reshape", [pairs], key_aval)
  return [new_state, bits]


def _rng_batch(axis, vals, dims, *, shape, dtype, algorithm, out_sharding):
  (keys,), (d,) = vals, dims
  keys = moveaxis(keys, d, 0)
  n = keys.shape[0]
  first = lax.squeeze(lax.slice_in_dim(keys, 0, 1, axis=0), (0,))
  new_first, bits = rng_bit_generator_p.bind(first, shape=(n,) + tuple(shape), dtype=dtype,
                                             algorithm=algorithm, out_sharding=out_sharding)
  new_keys = lax.dynamic_update_index_in_dim(keys, new_first, 0, 0)
  return [new_keys, bits], [0, 0]


rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)
rng_bit_generator_p.def_rules(abstract_eval=_rng_abstract_eval, lower=_rng_lower,
                              batch=_rng_batch)
rng_bit_generator_p.def_unsupported("jvp", "it maps key bits to random bits, which have no "
                                    "tangents")
rng_bit_generator_p.def_unsupported("transpose", "it is not linear")


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
  """Random bits of ``shape`` and unsigned ``dtype`` from ``key``, and the advanced key:
  ``(new_key, bits)``. ``key`` is uint32[4] (or uint64[2] with x64).

  Raises:
      TypeError: for a ``dtype`` that is not an unsigned integer type.
      NotImplementedError: for ``out_sharding`` (ember's outputs are not sharded here).

  Example:
      >>> import ember.numpy as jnp
      >>> new_key, bits = rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (3,))
      >>> new_key, bits
      (Array([1, 2, 4, 4], dtype=uint32), Array([ 512747620, 1298009047, 1267190206], dtype=uint32))
  """
  from ember.lax.structural import canonicalize_shape
  dtype = dtypes.canonicalize_dtype(dtype)
  if dtype not in _OUT_DTYPES:
    raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
  if out_sharding is not None:
    raise NotImplementedError("rng_bit_generator: out_sharding is not supported by ember")
  return tuple(rng_bit_generator_p.bind(key, shape=canonicalize_shape(shape), dtype=dtype,
                                        algorithm=RandomAlgorithm(algorithm),
                                        out_sharding=None))
