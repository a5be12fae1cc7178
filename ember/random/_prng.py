"""The PRNG implementations (threefry2x32, rbg, unsafe_rbg, and any defined by a library), the
threefry2x32 primitive, keys, and the key operations (seed, split, fold_in, bits).

rbg and unsafe_rbg keys are uint32[4]: their bits come from ``lax.rng_bit_generator``; rbg
splits and folds each half of the key as a threefry key, unsafe_rbg draws new keys from the
generator. The samplers are written once over raw key data and traced (``jitted``) with the
implementation of their key in effect.

``threefry2x32_p`` is Random123's Threefry-2x32 block cipher with 20 rounds: it encrypts the
counter pair ``(x1, x2)`` under the key pair ``(k1, k2)``, elementwise over broadcast uint32
operands. The default implementation is built from it, the way JAX's is, and with
JAX's ``jax_threefry_partitionable`` counters (JAX 0.10's default), so the same key gives the
same bits as JAX:

- ``seed(s)`` is the key ``[s >> 32, s & 0xFFFFFFFF]`` (the high word is 0 for 32-bit seeds);
- the counters of an output of shape ``S`` are the row-major flat indices ``0 .. prod(S)-1``
  as 64-bit numbers, split into high and low words;
- ``split(key, S)`` encrypts those counters and stacks the two output words as the new keys;
- ``fold_in(key, d)`` encrypts the single counter ``(0, d)``;
- ``bits(key, S)`` encrypts the counters and combines the two words: ``hi ^ lo`` for 32 bits
  (truncated for 8 and 16 bits), ``hi << 32 | lo`` for 64 bits.

A key is either raw (a uint32[2] array, as ``PRNGKey`` makes) or typed (a ``PRNGKeyArray``, as
``key`` makes). Unlike JAX, where a typed key array is an array of an extended dtype, ember's is
a pytree node whose one child is the uint32[..., 2] key data: jit, vmap, grad and device_put
carry it through as that data, with no support from the core. ``vmap`` therefore maps over the
data's axes: in_axes 0 (the usual case) maps over the keys, but a negative axis would count from
the data's trailing key-word axis.
"""
from __future__ import annotations

import math
import operator
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ember import dtypes, lax, pytree
from ember.config import config
from ember.core.aval import ShapeDtypeStruct, ShapedArray
from ember.core.trace import EVAL_TRACE as _EVAL_TRACE, Primitive, Tracer, get_aval
from ember.core.trace import _state as _tracing_state
from ember.core.cache import BoundedCache
from ember.lax.structural import canonicalize_shape as _lax_canonicalize_shape
from ember.primitives.elementwise import broadcast_shapes
from ember.primitives.lower_fun import lower_fun
from ember.random import _key_reuse, _vmap_randomness
from ember.transforms import batching
from ember.transforms.jit import jit

__all__ = ["threefry2x32_p", "threefry_2x32", "PRNGKeyArray", "KeyDType", "PRNGKey", "key",
           "wrap_key_data", "key_data", "key_impl", "key_dtype", "clone", "split", "fold_in",
           "bits", "check_key", "jitted", "canonicalize_shape", "PRNGImpl", "threefry_prng_impl",
           "rbg_prng_impl", "unsafe_rbg_prng_impl", "define_prng_impl", "seed_with_impl",
           "random_seed", "split_keys", "random_bits"]

_U32 = np.dtype(np.uint32)


# --- the threefry2x32 primitive ----------------------------------------------------------------

def _threefry2x32_abstract_eval(k1, k2, x1, x2, *, unroll: bool):
  for a in (k1, k2, x1, x2):
    if a.dtype != _U32:
      raise TypeError(f"threefry2x32 requires uint32 arguments, got "
                      f"{', '.join(a.dtype.name for a in (k1, k2, x1, x2))}.")
  out = ShapedArray(broadcast_shapes("threefry2x32", k1, k2, x1, x2), _U32)
  return [out, out]


_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = np.uint32(0x1BD11BDA)
# Two ways to lower the 20 rounds. Unrolled, XLA fuses them with their consumers into one kernel
# that runs about 3x faster than a loop; but XLA also duplicates a small unrolled cipher into
# every consumer kernel, and LLVM compiles a kernel holding two ciphers several times slower than
# two kernels. So random bits are unrolled (``unroll=True``), while key derivations (split,
# fold_in: small outputs that feed other ciphers) run as a loop of two groups of 8 rounds, which
# XLA does not fuse into anything, unless their outputs are this large.
UNROLL_MIN_SIZE = 1 << 14


def _rotate_left(x, r: int):
  return lax.bitwise_or(lax.shift_left(x, np.uint32(r)),
                        lax.shift_right_logical(x, np.uint32(32 - r)))


def _start(k1, k2, x1, x2):
  """Broadcast the operands, and inject the key: the state before the first group of rounds,
  with the key schedule ``(ks0, ks1, ks2)`` in the order the injections use it."""
  shape = broadcast_shapes("threefry2x32", *(get_aval(v) for v in (k1, k2, x1, x2)))

  def expand(v, rank0_too: bool):  # size-1 axes (from vmap) need a broadcast; rank 0 need not
    s = get_aval(v).shape
    if s == shape or not (s or rank0_too):
      return v
    return lax.broadcast_in_dim(v, shape, tuple(range(len(s))))

  k1, k2 = expand(k1, False), expand(k2, False)
  x1, x2 = expand(x1, True), expand(x2, True)  # the loop state has the output's shape
  ks2 = lax.bitwise_xor(lax.bitwise_xor(k1, k2), _KEY_PARITY)
  return lax.add(x1, k1), lax.add(x2, k2), k1, k2, ks2


def _group(x1, x2, a, b, c, rotations, number):
  """Four rounds (add, rotate, xor), then inject the next key words and the group's number;
  ``(a, b, c)`` is the key schedule rotated to this group, and rotates on."""
  for r in rotations:
    x1 = lax.add(x1, x2)
    x2 = lax.bitwise_xor(_rotate_left(x2, r), x1)
  return lax.add(x1, b), lax.add(lax.add(x2, c), number), b, c, a


def _threefry2x32_unrolled(k1, k2, x1, x2):
  x1, x2, a, b, c = _start(k1, k2, x1, x2)
  for g in range(5):
    x1, x2, a, b, c = _group(x1, x2, a, b, c, _ROTATIONS[g % 2], np.uint32(g + 1))
  return [x1, x2]


def _two_groups(i, x1, x2, a, b, c):
  """Groups 2i and 2i+1: the body of the loop, which runs for groups 0 to 3."""
  n = lax.mul(lax._convert_element_type(i, _U32), np.uint32(2))
  x1, x2, a, b, c = _group(x1, x2, a, b, c, _ROTATIONS[0], lax.add(n, np.uint32(1)))
  x1, x2, a, b, c = _group(x1, x2, a, b, c, _ROTATIONS[1], lax.add(n, np.uint32(2)))
  return [lax.add(i, np.int32(1)), x1, x2, a, b, c]


def _last_group(x1, x2, a, b, c):
  return list(_group(x1, x2, a, b, c, _ROTATIONS[0], np.uint32(5))[:2])


def _threefry2x32_lower(ctx, k1, k2, x1, x2, *, unroll: bool):
  if unroll or ctx.avals_out[0].size >= UNROLL_MIN_SIZE:
    return lower_fun(_threefry2x32_unrolled, multiple_results=True)(ctx, k1, k2, x1, x2)
  state = [ctx.constant(np.int32(0), ShapedArray((), np.int32)),
           *lower_fun(_start, multiple_results=True)(ctx, k1, k2, x1, x2)]
  avals = [v.aval for v in state]
  cond = lower_fun(lambda i, *_: lax.lt(i, np.int32(2)))
  out = ctx.op("stablehlo.while", state, avals, regions=[
      ctx.region(avals, lambda sub, args: [cond(sub, *args)]),
      ctx.region(avals, lambda sub, args: lower_fun(_two_groups, multiple_results=True)(
          sub, *args))])
  return lower_fun(_last_group, multiple_results=True)(ctx, *out[1:])


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)
threefry2x32_p.def_rules(abstract_eval=_threefry2x32_abstract_eval,
                         lower=_threefry2x32_lower,
                         batch=batching.broadcast_batcher(threefry2x32_p))
threefry2x32_p.def_unsupported("jvp", "it maps uint32 bits to uint32 bits, which have no "
                               "tangents")
threefry2x32_p.def_unsupported("transpose", "it is not linear")


def threefry_2x32(k1, k2, x1, x2, *, unroll: bool = True):
  """Encrypt the counters ``(x1, x2)`` under the key ``(k1, k2)``: two uint32 arrays.

  Operands are uint32 arrays of one shape, or rank 0. ``unroll`` only chooses the lowering
  (False for small outputs that other ciphers consume, see ``UNROLL_MIN_SIZE``).

  Example:
      >>> [int(w) for w in threefry_2x32(np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(7))]
      [2716826189, 292468403]
  """
  return threefry2x32_p.bind(k1, k2, x1, x2, unroll=unroll)


# --- counters: a 64-bit iota as two 32-bit words -----------------------------------------------

def _mul_wide(a, b: int):
  """The 64-bit product of uint32 ``a`` and the constant ``b < 2**32``, as ``(hi, lo)`` words,
  from 16-bit halves (a 32x32 multiply has no 64-bit result in uint32 arithmetic)."""
  a1, a0 = lax.shift_right_logical(a, np.uint32(16)), lax.bitwise_and(a, np.uint32(0xFFFF))
  b1, b0 = np.uint32(b >> 16), np.uint32(b & 0xFFFF)
  mid1, mid2 = lax.mul(a1, b0), lax.mul(a0, b1)
  lo = lax.mul(a0, b0)
  hi = lax.mul(a1, b1)
  for mid in (mid1, mid2):
    new_lo = lax.add(lo, lax.shift_left(mid, np.uint32(16)))
    hi = lax.add(hi, lax.shift_right_logical(mid, np.uint32(16)))
    hi = lax.add(hi, lax._convert_element_type(lax.lt(new_lo, lo), _U32))
    lo = new_lo
  return hi, lo


def _iota_2x32_wide(shape):
  """The flat indices of ``shape`` as (hi, lo) words, for outputs of 2**32 elements or more:
  the sum over axes of (index along the axis) * (its row-major stride), with carries."""
  hi = lo = np.uint32(0)
  stride = 1
  for axis in reversed(range(len(shape))):
    if shape[axis] > 1:
      i = lax.broadcasted_iota(_U32, shape, axis)
      p_hi, p_lo = _mul_wide(i, stride & 0xFFFFFFFF)
      p_hi = lax.add(p_hi, lax.mul(i, np.uint32((stride >> 32) & 0xFFFFFFFF)))
      new_lo = lax.add(lo, p_lo)
      hi = lax.add(lax.add(hi, p_hi), lax._convert_element_type(lax.lt(new_lo, p_lo), _U32))
      lo = new_lo
    stride *= shape[axis]
  return hi, lo


def iota_2x32_shape(shape):
  """The counters of an output of ``shape``: its flat indices split into (hi, lo) uint32 words.

  Example:
      >>> hi, lo = iota_2x32_shape((2, 3))
      >>> int(hi), lo
      (0, Array([[0, 1, 2],
             [3, 4, 5]], dtype=uint32))
  """
  size = math.prod(shape)
  if size >= 2 ** 64:
    raise ValueError(f"cannot generate {size} random values in one call: at most 2**64 "
                     "counters exist.")
  if size >= 2 ** 32:
    return _iota_2x32_wide(shape)
  return np.uint32(0), lax.reshape(lax.iota(_U32, size), shape)


# --- the key operations on raw key data (uint32[2]), traced inside jitted functions ------------

def _words(key):
  """The two uint32 words of a key (of each key, for keys of shape ``batch + (2,)``)."""
  batch = get_aval(key).shape[:-1]
  return tuple(lax.reshape(lax.slice_in_dim(key, i, i + 1, axis=len(batch)), batch)
               for i in (0, 1))


def _stack_words(w1, w2):
  shape = get_aval(w1).shape
  return lax.concatenate([lax.reshape(w, shape + (1,)) for w in (w1, w2)], len(shape))


def threefry_seed(seed):
  """The key of an integer seed: ``[seed >> 32, seed & 0xFFFFFFFF]`` (0 high word below 64 bits)."""
  aval = get_aval(seed)
  if aval.dtype.itemsize == 8:
    hi = lax._convert_element_type(lax.shift_right_logical(seed, np.asarray(32, aval.dtype)), _U32)
    lo = lax._convert_element_type(lax.bitwise_and(seed, np.asarray(0xFFFFFFFF, aval.dtype)), _U32)
  else:
    hi, lo = lax.full((), 0, _U32), lax._convert_element_type(seed, _U32)
  return _stack_words(hi, lo)


def threefry_split(key, shape):
  k1, k2 = _words(key)
  return _stack_words(*threefry_2x32(k1, k2, *iota_2x32_shape(shape), unroll=False))


def threefry_fold_in(key, data):
  k1, k2 = _words(key)
  return _stack_words(*threefry_2x32(k1, k2, np.uint32(0), data, unroll=False))


def threefry_random_bits(key, bit_width: int, shape):
  """Random bits of ``shape`` from one key, or ``batch + shape`` of them from keys of shape
  ``batch + (2,)`` (each key's stream as it would be alone). Drawing several streams in one
  threefry call keeps one cipher per XLA kernel, which LLVM compiles far faster than two."""
  k1, k2 = _words(key)
  hi, lo = iota_2x32_shape(shape)
  batch = get_aval(k1).shape
  if batch:
    full, n = batch + tuple(shape), len(batch)
    k1, k2 = (lax.broadcast_in_dim(k, full, tuple(range(n))) for k in (k1, k2))
    hi, lo = (w if not get_aval(w).shape else
              lax.broadcast_in_dim(w, full, tuple(range(n, len(full)))) for w in (hi, lo))
  b1, b2 = threefry_2x32(k1, k2, hi, lo)
  if bit_width == 64:
    u64 = np.dtype(np.uint64)
    hi = lax.shift_left(lax._convert_element_type(b1, u64), np.uint64(32))
    return lax.bitwise_or(hi, lax._convert_element_type(b2, u64))
  out = lax.bitwise_xor(b1, b2)
  return out if bit_width == 32 else lax._convert_element_type(out, np.dtype(f"uint{bit_width}"))


class PRNGImpl(NamedTuple):
  """A PRNG implementation: its key shape and key operations, ``seed(seed)``,
  ``split(key, shape)``, ``random_bits(key, bit_width, shape)`` and ``fold_in(key, data)`` on
  raw key data, and its names (``str`` gives the tag that key dtypes print, as in JAX)."""
  key_shape: tuple
  seed: Callable
  split: Callable
  random_bits: Callable
  fold_in: Callable
  name: str
  tag: str

  def __str__(self):
    return self.tag


threefry_prng_impl = PRNGImpl((2,), threefry_seed, threefry_split, threefry_random_bits,
                              threefry_fold_in, "threefry2x32", "fry")


# --- the rbg PRNGs: XLA's bit generator for bits, keys made of two threefry keys -----------------

def _key_halves(key):
  return lax.slice_in_dim(key, 0, 2, axis=-1), lax.slice_in_dim(key, 2, 4, axis=-1)


def rbg_seed(seed):
  """A uint32[4] key: the threefry key of ``seed``, twice."""
  half = threefry_seed(seed)
  return lax.concatenate([half, half], 0)


def rbg_split(key, shape):
  """Each half of the key split as a threefry key."""
  return lax.concatenate([threefry_split(h, shape) for h in _key_halves(key)],
                         len(tuple(shape)))


def rbg_fold_in(key, data):
  return lax.concatenate([threefry_fold_in(h, data) for h in _key_halves(key)], 0)


def rbg_random_bits(key, bit_width: int, shape):
  """``lax.rng_bit_generator``'s bits; keys of shape ``batch + (4,)`` each give their own
  stream (under ``vmap`` the generator's batching rule applies instead, as in JAX)."""
  from ember.primitives.rng import rng_bit_generator
  dtype = np.dtype(f"uint{bit_width}")
  batch = get_aval(key).shape[:-1]
  if not batch:
    return rng_bit_generator(key, tuple(shape), dtype=dtype)[1]
  flat = lax.reshape(key, (math.prod(batch), 4))
  draws = [rng_bit_generator(lax.index_in_dim(flat, i, 0, keepdims=False), tuple(shape),
                             dtype=dtype)[1] for i in range(math.prod(batch))]
  return lax.reshape(lax.concatenate([lax.expand_dims(d, (0,)) for d in draws], 0),
                     batch + tuple(shape))


def unsafe_rbg_split(key, shape):
  """Keys drawn from the generator itself: every tenth row of a (10 n, 4) draw."""
  from ember.primitives.rng import rng_bit_generator
  n = math.prod(shape)
  rows = rng_bit_generator(key, (10 * n, 4))[1]
  return lax.reshape(lax.slice(rows, (0, 0), (10 * n, 4), (10, 1)), tuple(shape) + (4,))


def unsafe_rbg_fold_in(key, data):
  """``key`` xor the last row of a (10, 4) draw keyed by ``data``'s rbg seed."""
  from ember.primitives.rng import rng_bit_generator
  rows = rng_bit_generator(rbg_seed(data), (10, 4))[1]
  return lax.bitwise_xor(key, lax.index_in_dim(rows, 9, 0, keepdims=False))


rbg_prng_impl = PRNGImpl((4,), rbg_seed, rbg_split, rbg_random_bits, rbg_fold_in, "rbg", "rbg")
unsafe_rbg_prng_impl = PRNGImpl((4,), rbg_seed, unsafe_rbg_split, rbg_random_bits,
                                unsafe_rbg_fold_in, "unsafe_rbg", "urbg")

PRNG_IMPLS = {impl.name: impl for impl in (threefry_prng_impl, rbg_prng_impl,
                                           unsafe_rbg_prng_impl)}
# Names JAX knows whose implementations ember lacks, and JAX's order for its error message.
_JAX_IMPL_NAMES = ("philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg",
                   "threefry4x32")


def resolve_impl(impl) -> PRNGImpl:
  """The implementation named by ``impl`` (a name, a PRNGImpl, or None for the default)."""
  if impl is None:
    return PRNG_IMPLS[config.read("jax_default_prng_impl")]
  if isinstance(impl, PRNGImpl):
    return impl
  if isinstance(impl, str):
    if impl in PRNG_IMPLS:
      return PRNG_IMPLS[impl]
    if impl in _JAX_IMPL_NAMES:
      raise NotImplementedError(f"ember implements the threefry2x32, rbg and unsafe_rbg PRNGs, "
                                f"not {impl!r}.")
    raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
                     + ", ".join(f'"{k}"' for k in _JAX_IMPL_NAMES) + "?")
  raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")


# --- the implementation a sampler is traced for ---------------------------------------------------
# The samplers are written once over raw key data; ``jitted(fn, impl=...)`` traces ``fn`` with
# that implementation in effect, and ``split_keys``/``random_bits`` below use it.

class _Tracing(threading.local):
  impl: PRNGImpl | None = None


_tracing = _Tracing()


def current_impl() -> PRNGImpl:
  return _tracing.impl if _tracing.impl is not None else resolve_impl(None)


def split_keys(key, shape):
  """New raw keys of ``shape`` from one raw key, by the implementation being traced for."""
  return current_impl().split(key, tuple(shape))


def random_bits(key, bit_width: int, shape):
  """Random bits from a raw key (or keys of shape ``batch + key_shape``, each its own stream),
  by the implementation being traced for."""
  return current_impl().random_bits(key, bit_width, tuple(shape))


# --- jitted entry points ----------------------------------------------------------------------

_JITTED = BoundedCache(1024)


def jitted(fn: Callable, *, impl: PRNGImpl | None = None, **static) -> Callable:
  """``fn`` with its keyword-only static arguments bound, under ``ember.jit``; one compiled
  function per static values, so a repeated eager call is one cached executable call (jaxlib's
  C++ dispatch serves it when the arguments are device arrays).

  ``fn`` takes raw key data and is traced with a PRNG implementation in effect: that of a typed
  key argument (passed to ``fn`` as its data; jit keys its traces on the implementation, the
  key's pytree auxiliary data), else ``impl``, else the one in effect now."""
  impl = current_impl() if impl is None else impl
  cache_key = (fn, impl, tuple(static.items()))
  f = _JITTED.get(cache_key)
  if f is None:
    def bound(*args):
      traced_impl = next((a._impl for a in args if type(a) is PRNGKeyArray), impl)
      args = [a._base_array if type(a) is PRNGKeyArray else a for a in args]
      outer, _tracing.impl = _tracing.impl, traced_impl
      try:
        return fn(*args, **static)
      finally:
        _tracing.impl = outer
    bound.__name__ = bound.__qualname__ = fn.__name__
    f = _JITTED[cache_key] = jit(bound)
  return f


def canonicalize_shape(shape, name: str) -> tuple[int, ...]:
  """A shape argument (an int or a sequence of ints) as a tuple, rejecting negative sizes."""
  shape = _lax_canonicalize_shape(shape)
  if any(d < 0 for d in shape):
    raise ValueError(f"{name}: shape must have non-negative dimensions, got {shape}.")
  return shape


# --- typed keys -------------------------------------------------------------------------------

class KeyDType(dtypes.ExtendedDType):
  """The dtype of typed key arrays: prints as ``key<fry>``; a subdtype of ``dtypes.prng_key``.

  Example:
      >>> import ember
      >>> d = ember.random.key(0).dtype
      >>> d, ember.numpy.issubdtype(d, ember.dtypes.prng_key)
      (key<fry>, True)
  """
  type = dtypes.prng_key

  def __init__(self, impl: PRNGImpl):
    self._impl = impl
    self.name = f"key<{impl.tag}>"
    self.itemsize = 4 * math.prod(impl.key_shape)

  def __repr__(self):
    return self.name

  __str__ = __repr__

  def __eq__(self, other):
    return isinstance(other, KeyDType) and other._impl is self._impl

  def __hash__(self):
    return hash((KeyDType, self._impl.name))


_KEY_DTYPES: dict = {}


def key_dtype_of(impl: PRNGImpl) -> KeyDType:
  dt = _KEY_DTYPES.get(impl)
  if dt is None:
    dt = _KEY_DTYPES[impl] = KeyDType(impl)
  return dt


class PRNGKeyArray:
  """An array of typed PRNG keys of one implementation, backed by uint32 key data of shape
  ``self.shape + key_shape`` (``(2,)`` for threefry2x32, ``(4,)`` for rbg and unsafe_rbg).

  It is a pytree node whose only child is that data and whose auxiliary data is the
  implementation (see the module docstring for what this means under transforms). It also
  carries the key reuse checker's record of its uses (``_key_reuse``), which a copy made by
  flattening and unflattening does not inherit.

  Example:
      >>> import ember
      >>> keys = ember.random.split(ember.random.key(0), 4).reshape(2, 2)
      >>> keys.shape, keys[1, 0]
      ((2, 2), Array((), dtype=key<fry>) overlaying:
      [4146024105 2718843009])
  """
  __slots__ = ("_base_array", "_impl", "_uses", "_link")
  __array_priority__ = 100

  def __init__(self, data, impl: PRNGImpl = threefry_prng_impl):
    self._base_array = data
    self._impl = impl
    self._uses = None  # the key reuse checker's records (see _key_reuse)
    self._link = None

  dtype = property(lambda self: key_dtype_of(self._impl))
  shape = property(lambda self: tuple(np.shape(self._base_array)[:-len(self._impl.key_shape)]))
  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: math.prod(self.shape))
  itemsize = property(lambda self: self.dtype.itemsize)

  def _like(self, data) -> PRNGKeyArray:
    return PRNGKeyArray(data, self._impl)

  def __reduce__(self):  # pickles and copies carry the keys, not the checker's records
    return PRNGKeyArray, (self._base_array, self._impl)

  @property
  def T(self) -> PRNGKeyArray:
    return self.transpose()

  def transpose(self, *axes) -> PRNGKeyArray:
    axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
    axes = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
    trailing = tuple(range(self.ndim, np.ndim(self._base_array)))
    out = self._like(lax.transpose(self._base_array, axes + trailing))
    inverse = tuple(np.argsort(axes))
    _key_reuse.link(out, self, lambda m: _mask_map(m, np.transpose, axes),
                    lambda m: _mask_map(m, np.transpose, inverse))
    return out

  def reshape(self, *shape) -> PRNGKeyArray:
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    shape = tuple(np.empty(self.shape, np.bool_).reshape(shape).shape)  # resolves -1
    out = self._like(self._base_array.reshape(shape + self._impl.key_shape))
    mine = self.shape
    _key_reuse.link(out, self, lambda m: _mask_map(m, np.reshape, shape),
                    lambda m: _mask_map(m, np.reshape, mine))
    return out

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a 0-d key array")
    if isinstance(self._base_array, Tracer):  # traced, iterating takes slices (as in JAX)
      return (self[i] for i in range(self.shape[0]))
    return (self._like(d) for d in self._base_array)  # eagerly, fresh keys (as in JAX)

  def __getitem__(self, idx) -> PRNGKeyArray:
    idx = idx if isinstance(idx, tuple) else (idx,)
    # The key-word axis stays whole: it follows an Ellipsis (the user's, or one we add).
    tail = (slice(None),) if any(i is Ellipsis for i in idx) else (Ellipsis, slice(None))
    out = self._like(self._base_array[idx + tail])
    _index_uses(self, idx, out)
    return out

  def __eq__(self, other):
    if not isinstance(other, PRNGKeyArray):
      return NotImplemented
    from ember import numpy as jnp
    key_axes = tuple(range(-len(self._impl.key_shape), 0))
    return jnp.all(self._base_array == other._base_array, axis=key_axes)

  def __ne__(self, other):
    eq = self.__eq__(other)
    return eq if eq is NotImplemented else ~eq

  __hash__ = None

  def block_until_ready(self) -> PRNGKeyArray:
    self._base_array.block_until_ready()
    return self

  def __repr__(self):
    data = self._base_array
    if isinstance(data, ShapeDtypeStruct):  # from eval_shape
      return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype})"
    if isinstance(data, Tracer):
      return f"Traced<{self.dtype}{list(self.shape)}>overlaying:\n{data!r}"
    return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(data)}"

  __str__ = __repr__


def _no_arithmetic(name: str, reflected: bool = False):
  """A binary operator of key arrays: a TypeError naming the dtypes, as in JAX."""
  def op(self, other):
    if isinstance(other, PRNGKeyArray):
      raise TypeError(f"{name} does not accept dtype {self.dtype} at position 0. Accepted "
                      "dtypes at position 0 are subtypes of integer, floating, complexfloating.")
    try:
      theirs = dtypes.canonicalize_dtype(dtypes.dtype(other))
    except TypeError:
      return NotImplemented
    pair = (theirs, self.dtype) if reflected else (self.dtype, theirs)
    raise TypeError(f"{name} does not accept dtypes {pair[0]}, {pair[1]}.")
  return op


for _dunder, _name in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                       ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                       ("mod", "remainder"), ("and", "bitwise_and"), ("or", "bitwise_or"),
                       ("xor", "bitwise_xor")]:
  setattr(PRNGKeyArray, f"__{_dunder}__", _no_arithmetic(_name))
  setattr(PRNGKeyArray, f"__r{_dunder}__", _no_arithmetic(_name, reflected=True))


def _mask_map(mask, fn, arg):
  """A use's mask (True, or a bool array) carried through a reshape or transpose."""
  return mask if mask is True else fn(mask, arg)


def _index_uses(keys: PRNGKeyArray, idx: tuple, out: PRNGKeyArray) -> None:
  """The key reuse checker's view of ``keys[idx]``. With ``jax_debug_key_reuse`` True, as in
  JAX, ints and slices consume the keys they take (``out`` is fresh). Otherwise ``out`` is a
  view: drawing from it draws from the keys it takes (all of them for a traced index)."""
  if not _key_reuse.tracking():
    return
  static = (int, np.integer, slice, type(None), type(Ellipsis))
  if _key_reuse.sinks_on_index() and \
      all(isinstance(i, static) and not isinstance(i, (bool, np.bool_)) for i in idx) and \
      any(isinstance(i, (int, np.integer, slice)) for i in idx):
    _key_reuse.sink_index(keys, idx)
    return
  try:  # which of the keys each element of ``out`` is, when the index is known
    np_idx = tuple(i if i is None or i is Ellipsis or isinstance(i, slice) else np.asarray(i)
                   for i in idx)
    where = np.arange(keys.size).reshape(keys.shape)[np_idx]
  except Exception:  # a traced index: a view of every key
    _key_reuse.link(out, keys)
    return

  def up(mask):
    whole = np.zeros(keys.size, np.bool_)
    whole[where if mask is True else where[np.broadcast_to(mask, where.shape)]] = True
    return whole.reshape(keys.shape)

  _key_reuse.link(out, keys, lambda m: _mask_map(m, lambda a, w: a.reshape(-1)[w], where), up)


pytree.register_pytree_node(PRNGKeyArray, lambda k: ((k._base_array,), k._impl),
                            lambda impl, children: PRNGKeyArray(children[0], impl))


# --- checking keys ----------------------------------------------------------------------------

def _invalid(msg: str) -> TypeError:
  return TypeError(f"JAX encountered invalid PRNG key data: {msg}")


def _check_key_data(data, impl: PRNGImpl):
  """Validate raw key data (uint32[..., *key_shape]) with JAX's messages."""
  if not all(hasattr(data, a) for a in ("ndim", "shape", "dtype")):
    raise _invalid(f"expected key_data to have ndim, shape, and dtype attributes. Got {data}")
  if data.ndim < 1:
    raise _invalid(f"expected key_data.ndim >= 1; got ndim={data.ndim}")
  n = len(impl.key_shape)
  if tuple(data.shape[-n:]) != impl.key_shape:
    raise _invalid(f"expected key_data.shape to end with {impl.key_shape}; got "
                   f"shape={tuple(data.shape)} for impl={impl!r}")
  if data.dtype != _U32:
    raise _invalid(f"expected key_data.dtype = uint32; got dtype={data.dtype}")


def check_key(name: str, key, *, single: bool = True, consume: bool = True
              ) -> tuple[PRNGKeyArray, bool]:
  """The key as a typed key array, and whether it was typed: raw key data is read with the
  default implementation (``jax_default_prng_impl``), as in JAX.

  With ``consume`` (``random.<name>`` draws from the key), a typed key's use is recorded by the
  key reuse checker, and under ``vmap(..., randomness=...)`` a key the vmap does not batch is
  replaced by one key per example (or refused).

  Raises JAX's errors for values that are not keys and, with ``single``, for arrays of keys;
  ``KeyReuseError`` for a typed key consumed before.
  """
  if type(key) is PRNGKeyArray:
    if single and key.shape:
      raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                       f"{key.shape} != (). Use jax.vmap for batching.")
    if consume:
      _key_reuse.consume(name, key)
      if _tracing_state.trace is not _EVAL_TRACE:
        key = _vmap_randomness.per_example(name, key)
    return key, True
  keys = _raw_key(name, key, single)
  if name != "clone":  # as in JAX, clone takes raw keys silently
    _legacy_key_check()
  if consume and _tracing_state.trace is not _EVAL_TRACE:
    keys = _vmap_randomness.per_example(name, keys)
  return keys, False


_LEGACY_KEY_MESSAGE = (
    "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
    "jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key=\"allow\".")


def _legacy_key_check() -> None:
  """A raw key reached a random function: raise or warn as ``jax_legacy_prng_key`` (and
  ``jax_enable_custom_prng``) ask, with JAX's messages."""
  mode = config.jax_legacy_prng_key
  if mode == "error":
    raise ValueError(_LEGACY_KEY_MESSAGE)
  if mode == "warn":
    warnings.warn(_LEGACY_KEY_MESSAGE, stacklevel=3)
  elif config.jax_enable_custom_prng:
    warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. Assuming "
                  "valid threefry2x32 key for now.", FutureWarning, stacklevel=3)


def _raw_key(name: str, key, single: bool) -> PRNGKeyArray:
  impl = resolve_impl(None)
  aval = getattr(key, "aval", None)
  if aval is not None and aval.shape == impl.key_shape and aval.dtype == _U32:
    return PRNGKeyArray(key, impl)  # the common case: one raw key on the device
  if isinstance(key, (list, tuple)):
    raise TypeError(f"unexpected PRNG key type {type(key)}")
  _check_key_data(key, impl)
  if single and key.ndim != len(impl.key_shape):
    raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                     f"{tuple(key.shape)} != (). Use jax.vmap for batching.")
  return PRNGKeyArray(key, impl)


# --- public key functions ---------------------------------------------------------------------

def _seed_value(name: str, seed):
  """The seed as a scalar integer value (JAX's conversions and errors)."""
  if isinstance(seed, int):  # JAX reads Python ints as int64, then truncates them without x64
    seed = np.int64(seed)
  if isinstance(seed, np.generic) and seed.dtype.itemsize == 8 and not config.x64_enabled:
    seed = seed.astype(np.dtype(seed.dtype.str.replace("8", "4")))
  aval = get_aval(seed)
  if aval.shape:
    raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                    f"{aval.shape} != (). Use jax.vmap for batching")
  if not (dtypes.is_integer(aval.dtype) or aval.dtype == np.bool_):
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
  if aval.dtype == np.bool_:
    seed = lax._convert_element_type(seed, _U32)
  return seed


def _seed(seed):
  return current_impl().seed(seed)


def seed_with_impl(impl, seed) -> PRNGKeyArray:
  """A typed key of implementation ``impl`` (a PRNGImpl or its name) from an integer seed.

  Example:
      >>> seed_with_impl(rbg_prng_impl, 3)
      Array((), dtype=key<rbg>) overlaying:
      [0 3 0 3]
  """
  impl = resolve_impl(impl)
  return PRNGKeyArray(jitted(_seed, impl=impl)(_seed_value("key", seed)), impl)


def PRNGKey(seed, *, impl=None):
  """A raw key (uint32 data of the implementation's key shape, ``(2,)`` for the default
  threefry2x32) from an integer seed.

  Python ints are read as int64 and, with x64 off, truncated to 32 bits, as in JAX.

  Example:
      >>> PRNGKey(42)
      Array([ 0, 42], dtype=uint32)
  """
  impl = resolve_impl(impl)
  data = jitted(_seed, impl=impl)(_seed_value("PRNGKey", seed))
  return PRNGKeyArray(data, impl) if config.jax_enable_custom_prng else data


def key(seed, *, impl=None, dtype=None) -> PRNGKeyArray:
  """A typed key (a ``PRNGKeyArray`` of shape ``()``) from an integer seed.

  Example:
      >>> key(7)
      Array((), dtype=key<fry>) overlaying:
      [0 7]
  """
  return seed_with_impl(impl, seed)


def key_dtype(impl_spec=None) -> KeyDType:
  """The dtype of typed keys of an implementation (``key<fry>`` for the default).

  Example:
      >>> key_dtype(), key_dtype("unsafe_rbg")
      (key<fry>, key<urbg>)
  """
  return key_dtype_of(resolve_impl(impl_spec))


def wrap_key_data(key_bits_array, *, impl=None, dtype=None) -> PRNGKeyArray:
  """Typed keys over raw key data of shape ``(..., *key_shape)``, dtype uint32. The
  implementation is ``impl``, or the one of the key dtype ``dtype`` (one of the two at most).

  Example:
      >>> import ember.numpy as jnp
      >>> wrap_key_data(jnp.zeros((3, 2), jnp.uint32)).shape
      (3,)
      >>> wrap_key_data(jnp.zeros(2, jnp.uint32), dtype=key(0).dtype).dtype
      key<fry>
  """
  if dtype is not None:
    if impl is not None:
      raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                       "jax.random.wrap_key_data")
    impl = dtype._impl if isinstance(dtype, KeyDType) else dtype
  impl = resolve_impl(impl)
  if type(key_bits_array) is PRNGKeyArray:
    raise _invalid("expected key_data.ndim >= 1; got ndim=0")
  _check_key_data(key_bits_array, impl)
  return PRNGKeyArray(key_bits_array, impl)


def key_data(keys):
  """The uint32 key data of typed keys; raw keys come back as they are.

  Example:
      >>> key_data(key(42))
      Array([ 0, 42], dtype=uint32)
  """
  keys, _ = check_key("key_data", keys, single=False, consume=False)
  return keys._base_array


def key_impl(keys):
  """The keys' PRNG implementation: its name for ember's own (``'threefry2x32'``, ``'rbg'``,
  ``'unsafe_rbg'``), the PRNGImpl itself for one made by ``define_prng_impl``.

  Example:
      >>> key_impl(key(42))
      'threefry2x32'
  """
  keys, _ = check_key("key_impl", keys, single=False, consume=False)
  impl = keys._impl
  return impl.name if PRNG_IMPLS.get(impl.name) is impl else impl


def clone(key):
  """A fresh copy of a key, for the key reuse checker (``jax_debug_key_reuse``): the copy has
  not been consumed, and consuming it does not consume ``key``. A raw key comes back as it is.

  Example:
      >>> clone(PRNGKey(42))
      Array([ 0, 42], dtype=uint32)
  """
  keys, typed = check_key("clone", key, single=False, consume=False)
  return keys._like(keys._base_array) if typed else key


def _split(key, *, shape):
  return split_keys(key, shape)


def split(key, num: int | Sequence[int] = 2):
  """``num`` new keys (an int, or a shape of keys) from one key.

  Example:
      >>> split(PRNGKey(0))
      Array([[1797259609, 2579123966],
             [ 928981903, 3453687069]], dtype=uint32)
  """
  keys, typed = check_key("split", key)
  if isinstance(num, Sequence):
    shape = tuple(num)
  else:
    try:
      shape = (operator.index(num),)
    except TypeError:
      raise TypeError(f"split: num must be an int or a shape (a sequence of ints), got {num!r} "
                      f"of type {type(num).__name__}.") from None
  shape = canonicalize_shape(shape, "split")
  out = jitted(_split, shape=shape)(keys)
  return keys._like(out) if typed or config.jax_enable_custom_prng else out


def fold_in(key, data):
  """A new key from a key and an integer (converted to uint32, as in JAX).

  Example:
      >>> fold_in(PRNGKey(0), 7)
      Array([2716826189,  292468403], dtype=uint32)
  """
  keys, typed = check_key("fold_in", key, consume=False)
  if isinstance(data, int):
    data = np.asarray(data, _U32)  # out-of-range ints raise NumPy's OverflowError, as in JAX
  shape = np.shape(data)
  if shape:
    raise TypeError(f"fold_in accepts a scalar, but was given an array ofshape {shape} != (). "
                    "Use jax.vmap for batching.")
  out = jitted(_fold_in)(keys, data)
  return keys._like(out) if typed or config.jax_enable_custom_prng else out


def _fold_in(key, data):
  return current_impl().fold_in(key, lax._convert_element_type(data, _U32))


def _bits(key, *, bit_width, shape):
  return random_bits(key, bit_width, shape)


def bits(key, shape=(), dtype=None, *, out_sharding=None):
  """Uniformly random unsigned integers (uint32, or uint64 with x64 on, by default).

  Example:
      >>> bits(PRNGKey(0), (4,))
      Array([4070199207, 4202968722, 1427181096, 2012915765], dtype=uint32)
  """
  from ember.numpy._util import check_out_sharding
  check_out_sharding("bits", out_sharding)
  keys, _ = check_key("bits", key)
  if dtype is None:
    dtype = dtypes.default_uint_dtype()
  else:
    dtypes.check_user_dtype_supported(dtype, "bits")
    dtype = dtypes.canonicalize_dtype(dtype)
  if not dtypes.is_unsigned(dtype):
    raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
  shape = canonicalize_shape(shape, "bits")
  return jitted(_bits, bit_width=dtype.itemsize * 8, shape=shape)(keys)


# --- implementations defined by users (jax.extend.random) --------------------------------------

def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name: str = "<unnamed>",
                     tag: str = "?") -> PRNGImpl:
  """A new PRNG implementation from its key operations on raw key data, usable wherever an
  ``impl`` is taken (``key(0, impl=...)``, ``wrap_key_data``).

  Example:
      >>> import ember.numpy as jnp
      >>> impl = define_prng_impl(
      ...     key_shape=(1,), seed=lambda s: jnp.reshape(s.astype(jnp.uint32), (1,)),
      ...     split=lambda k, shape: jnp.broadcast_to(k, shape + (1,)),
      ...     random_bits=lambda k, bit_width, shape: jnp.broadcast_to(k[0], shape),
      ...     fold_in=lambda k, d: k + d, name="constant", tag="const")
      >>> bits(key(5, impl=impl), (2,))
      Array([5, 5], dtype=uint32)
  """
  return PRNGImpl(tuple(key_shape), seed, split, random_bits, fold_in, name, tag)


def random_seed(seeds, impl) -> PRNGKeyArray:
  """Typed keys of implementation ``impl`` from an array of integer seeds, one key per seed.

  Example:
      >>> import ember.numpy as jnp
      >>> random_seed(jnp.array([1, 2]), rbg_prng_impl).shape
      (2,)
  """
  impl = resolve_impl(impl)
  seeds = seeds if hasattr(seeds, "dtype") else np.asarray(seeds)
  return PRNGKeyArray(jitted(_seed_many, impl=impl)(seeds), impl)


def _seed_many(seeds):
  from ember.transforms.batching import vmap
  seed = _seed
  for _ in range(get_aval(seeds).ndim):
    seed = vmap(seed)
  return seed(seeds)
