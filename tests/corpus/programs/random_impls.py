"""The PRNG implementations other than threefry2x32 (rbg, unsafe_rbg, and ones defined with
jax.extend.random), and the bit generator under them, lax.rng_bit_generator: keys, their dtypes
and data, split / fold_in / bits, every sampler drawn from such keys (the same numbers as JAX),
the default implementation set by jax_default_prng_impl for raw keys, and their behaviour under
jit and vmap (where rbg's bits come from the batch's first key, as JAX's batching rule makes
them)."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
rnd = jax.random

# A program that draws several times from one typed key draws from copies of it (random.clone
# makes an equal, fresh key), so that it also runs with the key reuse checker on.
fresh = rnd.clone

IMPLS = ("rbg", "unsafe_rbg")


def _data(k):
  return rnd.key_data(k)


@program
def rng_bit_generator_shapes_dtypes_algorithms():
  k = jnp.array([1, 2, 3, 4], jnp.uint32)
  out = [lax.rng_bit_generator(k, (2, 3)), lax.rng_bit_generator(k, (5,), dtype=jnp.uint8),
         lax.rng_bit_generator(k, (5,), dtype=jnp.uint16), lax.rng_bit_generator(k, ())]
  for alg in lax.RandomAlgorithm:
    out.append((str(alg), lax.rng_bit_generator(k, (4,), algorithm=alg)))
  return out


@program
def rng_bit_generator_under_jit_and_vmap():
  k = jnp.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]], jnp.uint32)
  f = lambda kk: lax.rng_bit_generator(kk, (2,))
  return jax.jit(f)(k[0]), jax.vmap(f)(k), jax.vmap(f, in_axes=1, out_axes=1)(k.T)


@program
def rng_bit_generator_jaxpr():
  return str(jax.make_jaxpr(lambda kk: lax.rng_bit_generator(kk, (3,)))(
      jnp.zeros(4, jnp.uint32)))


@program
def rng_bit_generator_bad_dtype():
  return lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (2,), dtype=jnp.int32)


@program(x64=True)
def rng_bit_generator_uint64():
  k = jnp.array([1, 2, 3, 4], jnp.uint32)
  return (lax.rng_bit_generator(k, (3,), dtype=jnp.uint64),
          lax.rng_bit_generator(jnp.array([1, 2], jnp.uint64), (3,)))


@program
def keys_of_each_impl():
  out = []
  for impl in ("threefry2x32",) + IMPLS:
    k = rnd.key(5, impl=impl)
    out.append((str(k.dtype), rnd.key_impl(k), _data(k), rnd.PRNGKey(5, impl=impl),
                str(rnd.key_dtype(impl)), k.shape, _data(rnd.key(2 ** 31 + 7, impl=impl))))
  return out


@program
def split_fold_in_bits_of_each_impl():
  out = []
  for impl in IMPLS:
    k = rnd.wrap_key_data(jnp.array([1, 2, 3, 4], jnp.uint32), impl=impl)
    out.append((_data(rnd.split(fresh(k))), _data(rnd.split(fresh(k), (2, 3))),
                _data(rnd.fold_in(k, 7)), rnd.bits(fresh(k), (3,)),
                rnd.bits(fresh(k), (2,), jnp.uint8), rnd.bits(fresh(k), (2,), jnp.uint16),
                str(rnd.split(fresh(k)).dtype)))
  return out


@program
def continuous_samplers_from_rbg_keys():
  out = []
  for impl in IMPLS:
    k = rnd.key(11, impl=impl)
    out.append([rnd.uniform(fresh(k), (3,)), rnd.normal(fresh(k), (3,)),
                rnd.normal(fresh(k), (2,), jnp.complex64), rnd.exponential(fresh(k), (2,)),
                rnd.gamma(fresh(k), 2.5, (3,)), rnd.beta(fresh(k), 2., 3., (2,)),
                rnd.truncated_normal(fresh(k), -1., 1., (3,)), rnd.laplace(fresh(k), (2,)),
                rnd.gumbel(fresh(k), (2,)), rnd.cauchy(fresh(k), (2,)),
                rnd.dirichlet(fresh(k), jnp.ones(3)), rnd.t(fresh(k), 3., (2,)),
                rnd.multivariate_normal(fresh(k), jnp.zeros(2), jnp.eye(2)),
                rnd.uniform(fresh(k), (2,), jnp.bfloat16), rnd.normal(fresh(k), (2,), jnp.float16)])
  return out


@program
def discrete_samplers_from_rbg_keys():
  out = []
  for impl in IMPLS:
    k = rnd.key(13, impl=impl)
    out.append([rnd.randint(fresh(k), (4,), 0, 10), rnd.bernoulli(fresh(k), 0.3, (4,)),
                rnd.categorical(fresh(k), jnp.log(jnp.array([0.2, 0.3, 0.5])), shape=(4,)),
                rnd.permutation(fresh(k), 6), rnd.choice(fresh(k), 5, (3,), replace=False),
                rnd.poisson(fresh(k), 3.0, (3,)), rnd.binomial(fresh(k), 10, 0.4, (3,)),
                rnd.rademacher(fresh(k), (3,)), rnd.geometric(fresh(k), 0.3, (3,)),
                rnd.randint(fresh(k), (2,), 0, 2 ** 20, jnp.int32), rnd.orthogonal(fresh(k), 2)])
  return out


@program
def default_impl_for_raw_keys():
  jax.config.update("jax_default_prng_impl", "unsafe_rbg")
  try:
    raw = rnd.PRNGKey(3)
    out = [raw, rnd.split(raw), rnd.fold_in(raw, 2), rnd.normal(raw, (2,)),
           rnd.key_impl(raw), str(rnd.key_dtype()), str(rnd.key(1).dtype),
           rnd.key_data(rnd.key(3, impl="threefry2x32"))]
  finally:
    jax.config.update("jax_default_prng_impl", "threefry2x32")
  return out


@program
def raw_key_of_the_wrong_impl():
  return rnd.normal(jnp.zeros(4, jnp.uint32))


@program
def rbg_keys_under_jit_and_vmap():
  out = []
  for impl in IMPLS:
    k = rnd.key(0, impl=impl)
    ks = rnd.split(fresh(k), 3)
    out.append((jax.jit(lambda kk: rnd.normal(kk, (2,)))(fresh(k)),
                jax.vmap(lambda kk: rnd.bits(kk, (2,)))(fresh(ks)),
                _data(jax.vmap(lambda kk: rnd.fold_in(kk, 1))(fresh(ks))),
                _data(jax.vmap(rnd.split)(fresh(ks))),
                jax.vmap(lambda kk: rnd.uniform(kk, (2,)))(fresh(ks)),
                _data(jax.jit(lambda kk: rnd.split(kk, 2))(fresh(k)))))
  return out


@program
def typed_rbg_key_arrays():
  ks = rnd.split(rnd.key(1, impl="rbg"), 6).reshape(2, 3)
  return (ks.shape, str(ks.dtype), _data(ks[1, 2]), _data(ks.T), ks == ks[0, 1],
          [_data(k) for k in ks[0]], _data(ks.reshape(3, 2)))


@program
def extend_random_impls():
  er = submodule("extend.random")
  imp = er.define_prng_impl(
      key_shape=(2,),
      seed=lambda s: jnp.stack([s.astype(jnp.uint32), s.astype(jnp.uint32)]),
      split=lambda k, shape: jnp.broadcast_to(k, shape + (2,)),
      random_bits=lambda k, bit_width, shape: jnp.zeros(shape, jnp.uint32) + k[0],
      fold_in=lambda k, d: k + d, name="mine", tag="my")
  k = rnd.key(5, impl=imp)
  return (str(k.dtype), _data(k), rnd.bits(fresh(k), (2,)), _data(rnd.split(fresh(k))),
          str(rnd.key_impl(k)), _data(rnd.fold_in(k, 2)), rnd.uniform(fresh(k), (2,)),
          _data(er.seed_with_impl(er.rbg_prng_impl, 4)),
          _data(er.random_seed(jnp.array([1, 2]), er.rbg_prng_impl)),
          er.threefry_2x32(jnp.array([0, 0], jnp.uint32), jnp.arange(4, dtype=jnp.uint32)),
          str(er.threefry2x32_p), er.rbg_prng_impl.key_shape, er.threefry_prng_impl.name,
          str(er.unsafe_rbg_prng_impl))


@program
def impl_errors():
  msgs = []
  for f in (lambda: rnd.key(0, impl="foo"), lambda: rnd.key(0, impl=3),
            lambda: rnd.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg"),
            lambda: jax.config.update("jax_default_prng_impl", "foo")):
    try:
      f()
    except Exception as e:
      msgs.append((type(e).__name__, str(e).split(" for impl=")[0]))
  return msgs
