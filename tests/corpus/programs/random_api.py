"""jax.random with fixed keys: raw and typed keys (repr, dtype, shape, key_data), split and
fold_in, every common sampler's bits for a fixed key (also under jit and vmap, and in float16,
bfloat16 and float64), and the errors for non-key arguments."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()

# A program that draws several times from one typed key draws from copies of it (random.clone
# makes an equal, fresh key), so that it also runs with the key reuse checker on.
fresh = jax.random.clone


@program
def raw_and_typed_keys():
  raw = jax.random.PRNGKey(42)
  typed = jax.random.key(42)
  return (raw, repr(typed), str(typed.dtype), typed.shape, jax.random.key_data(typed),
          jax.random.wrap_key_data(raw), str(jax.random.key_impl(typed)))


@program
def typed_key_split_and_fold_in():
  k = jax.random.key(7)
  ks = jax.random.split(k, 3)
  k2 = jax.random.fold_in(k, 5)
  k3 = jax.random.split(k, (2, 2))
  return ks, k2, k3.shape, repr(ks[1]), jax.random.key_data(k3)


@program
def raw_key_split_and_fold_in():
  k = jax.random.PRNGKey(1)
  a, b = jax.random.split(k)
  return a, b, jax.random.fold_in(k, 0), jax.random.fold_in(k, 2 ** 31 - 1), jax.random.split(k, 4)


@program
def typed_key_array_ops():
  ks = jax.random.split(jax.random.key(0), 4)
  return (ks[::2].shape, jnp.stack([ks[0], ks[1]]).shape, ks.reshape(2, 2).shape,
          jax.random.key_data(jnp.concatenate([ks, ks])).shape, ks.ndim, len(ks))


@program
def uniform_and_normal_bits():
  k = jax.random.key(0)
  return (jax.random.uniform(fresh(k), (4,)), jax.random.normal(fresh(k), (2, 2)),
          jax.random.uniform(fresh(k), (3,), minval=-2.0, maxval=jnp.array([0.0, 1.0, 2.0])),
          jax.random.normal(jax.random.PRNGKey(3)))


@program
def samplers_low_precision_dtypes():
  k = jax.random.key(11)
  return (jax.random.uniform(fresh(k), (3,), jnp.float16),
          jax.random.uniform(fresh(k), (3,), jnp.bfloat16),
          jax.random.normal(fresh(k), (3,), jnp.float16),
          jax.random.normal(fresh(k), (3,), jnp.bfloat16))


@program(x64=True)
def samplers_float64():
  k = jax.random.key(11)
  return (jax.random.uniform(fresh(k), (3,), jnp.float64), jax.random.normal(fresh(k), (3,)),
          jax.random.randint(fresh(k), (3,), 0, 2 ** 40, jnp.int64),
          jax.random.bits(fresh(k), (2,), jnp.uint64), jax.random.exponential(fresh(k), (2,)))


@program
def bits_and_randint():
  k = jax.random.PRNGKey(5)
  return (jax.random.bits(k, (3,)), jax.random.bits(k, (2,), jnp.uint8),
          jax.random.randint(k, (6,), 0, 10), jax.random.randint(k, (4,), -3, 3, jnp.int8),
          jax.random.randint(k, (3,), -2 ** 31, 2 ** 31 - 1), jax.random.randint(k, (2,), 5, 5),
          jax.random.randint(k, (3,), jnp.array([0, 10, 100]), jnp.array([5, 20, 1000])))


@program
def bernoulli_and_categorical():
  k = jax.random.key(3)
  logits = jnp.log(jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
  return (jax.random.bernoulli(fresh(k), 0.3, (6,)),
          jax.random.bernoulli(fresh(k), jnp.array([0.0, 1.0, 0.5])),
          jax.random.categorical(fresh(k), logits),
          jax.random.categorical(fresh(k), logits, axis=0),
          jax.random.categorical(fresh(k), logits[0], shape=(5,)))


@program
def permutation_and_shuffle_axis():
  k = jax.random.key(4)
  m = jnp.arange(12).reshape(3, 4)
  return (jax.random.permutation(fresh(k), 6), jax.random.permutation(fresh(k), jnp.arange(10, 15)),
          jax.random.permutation(fresh(k), m, axis=1))


@program
def choice_with_and_without_replacement():
  k = jax.random.key(8)
  p = jnp.array([0.1, 0.0, 0.6, 0.3])
  return (jax.random.choice(fresh(k), 5, (3,)), jax.random.choice(fresh(k), 5, (3,), replace=False),
          jax.random.choice(fresh(k), jnp.arange(10, 14), (6,), p=p),
          jax.random.choice(fresh(k), jnp.arange(10, 14), (3,), replace=False, p=p),
          jax.random.choice(fresh(k), jnp.arange(6).reshape(3, 2), (2,), axis=0))


@program
def choice_too_many_without_replacement_error():
  return jax.random.choice(jax.random.key(0), 3, (5,), replace=False)


@program
def truncated_normal_gumbel_exponential():
  k = jax.random.key(21)
  return (jax.random.truncated_normal(fresh(k), -1.0, 2.0, (4,)),
          jax.random.truncated_normal(fresh(k), jnp.array([0.0, -3.0]), jnp.array([1.0, -2.0])),
          jax.random.gumbel(fresh(k), (3,)), jax.random.exponential(fresh(k), (3,)),
          jax.random.laplace(fresh(k), (2,)), jax.random.logistic(fresh(k), (2,)),
          jax.random.cauchy(fresh(k), (2,)))


@program(rtol=2e-5)
def gamma_and_dirichlet():
  k = jax.random.key(13)
  return (jax.random.gamma(fresh(k), jnp.array([0.5, 1.0, 3.0])),
          jax.random.dirichlet(fresh(k), jnp.ones(3)))


@program
def poisson_and_geometric_counts():
  k = jax.random.key(17)
  return (jax.random.poisson(fresh(k), jnp.array([0.5, 20.0, 100.0])),
          jax.random.geometric(fresh(k), 0.3, (4,)))


@program
def samplers_under_jit_match_eager():
  k = jax.random.key(31)

  def draw(key):
    a, b = jax.random.split(key)
    return (jax.random.normal(a, (3,)), jax.random.uniform(fresh(b), (2,)),
            jax.random.randint(fresh(b), (2,), 0, 9))

  eager = draw(k)
  jitted = jax.jit(draw)(fresh(k))
  return eager, jitted


@program
def samplers_under_vmap_of_split_keys():
  keys = jax.random.split(jax.random.key(0), 3)
  raw_keys = jax.random.split(jax.random.PRNGKey(0), 3)
  return (jax.vmap(lambda k: jax.random.normal(k, (2,)))(fresh(keys)),
          jax.vmap(lambda k: jax.random.uniform(k))(raw_keys),
          jax.vmap(jax.random.permutation, in_axes=(0, None))(fresh(keys), 4),
          jax.vmap(lambda k: jax.random.bernoulli(k, 0.5, (2,)))(fresh(keys)))


@program
def vmap_over_fold_in_data():
  k = jax.random.key(1)
  return jax.vmap(lambda i: jax.random.uniform(jax.random.fold_in(k, i)))(jnp.arange(4))


@program
def same_key_gives_same_numbers():
  k = jax.random.key(0)
  a = jax.random.normal(fresh(k), (3,))
  b = jax.random.normal(fresh(k), (3,))
  c = jax.random.normal(jax.random.split(fresh(k))[0], (3,))
  return bool((a == b).all()), bool((a == c).all()), a[:2], jax.random.normal(fresh(k), (2,))


@program
def key_data_round_trip_and_equality():
  k = jax.random.key(99)
  data = jax.random.key_data(k)
  k2 = jax.random.wrap_key_data(data)
  return (jax.random.key_data(k2), bool(k == k2), jax.random.key_data(jax.random.key(jnp.int32(99))),
          repr(jax.eval_shape(jax.random.key, 0)))


@program
def sampler_error_for_non_key_argument():
  return jax.random.normal(jnp.array([1.0, 2.0]), (2,))


@program
def sampler_error_for_python_int_key():
  return jax.random.uniform(0, (2,))


@program
def key_data_of_raw_array_error():
  return jax.random.key_data(jnp.arange(2))


@program
def key_arithmetic_is_an_error():
  return jax.random.key(0) + 1


@program
def split_of_batched_keys_error():
  return jax.random.split(jax.random.split(jax.random.key(0), 2))


@program
def typed_key_in_jaxpr():
  f = lambda k: jax.random.split(k)
  return str(jax.make_jaxpr(f)(jax.random.key(0)))
