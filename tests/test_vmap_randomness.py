"""vmap(f, randomness=...) (ember/random/_vmap_randomness.py), torch.func's modes for keys the
vmap does not batch: each mode's values against explicit per-example keys,
``random.split(key, n)[i]`` for example ``i``."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax, random

N = 4
SAMPLERS = {
    "normal": lambda k, x: x + random.normal(k, (2,)),
    "uniform": lambda k, x: x + random.uniform(k),
    "bernoulli": lambda k, x: x + random.bernoulli(k, 0.5, (3,)),
    "randint": lambda k, x: x + random.randint(k, (2,), 0, 100),
    "bits": lambda k, x: x + random.bits(k, (2,)),
    "split": lambda k, x: x + random.key_data(random.split(k)),
    "gamma": lambda k, x: x + random.gamma(k, 2.0, (2,)),
    "permutation": lambda k, x: x + random.permutation(k, 5),
}


def per_example(draw, key, xs):
  """What "different" must give: example ``i`` drawing from ``split(key, n)[i]``."""
  return ember.vmap(draw)(random.split(key, len(xs)), xs)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
@pytest.mark.parametrize("make_key", [random.key, random.PRNGKey], ids=["typed", "raw"])
def test_different_closed_over(name, make_key):
  draw = SAMPLERS[name]
  xs = jnp.zeros(N, jnp.int32 if name in ("randint", "bits", "permutation") else jnp.float32)
  xs = xs.astype(jnp.uint32) if name in ("bits", "split") else xs
  key = make_key(3)
  got = ember.vmap(lambda x: draw(key, x), randomness="different")(xs)
  np.testing.assert_array_equal(got, per_example(draw, make_key(3), xs))
  assert len({tuple(np.ravel(row)) for row in np.asarray(got)}) > 1


@pytest.mark.parametrize("make_key", [random.key, random.PRNGKey], ids=["typed", "raw"])
def test_different_unbatched_argument(make_key):
  xs = jnp.arange(N, dtype=jnp.float32)
  draw = lambda k, x: x + random.normal(k)  # noqa: E731
  got = ember.vmap(draw, in_axes=(None, 0), randomness="different")(make_key(5), xs)
  np.testing.assert_array_equal(got, per_example(draw, make_key(5), xs))


@pytest.mark.parametrize("randomness", [None, "same"])
def test_same_and_default_are_jax(randomness):
  xs = jnp.zeros(N)
  got = ember.vmap(lambda x: x + random.normal(random.key(0), (2,)), randomness=randomness)(xs)
  want = random.normal(random.key(0), (2,))
  np.testing.assert_array_equal(got, np.broadcast_to(want, (N, 2)))


def test_batched_keys_are_the_examples_own_in_every_mode():
  xs = jnp.zeros(N)
  want = ember.vmap(lambda k, x: x + random.uniform(k))(random.split(random.key(1), N), xs)
  for randomness in ("error", "different", "same"):
    got = ember.vmap(lambda k, x: x + random.uniform(k), randomness=randomness)(
        random.split(random.key(1), N), xs)
    np.testing.assert_array_equal(got, want)
  got = ember.vmap(lambda i: random.uniform(random.fold_in(random.key(2), i)),
                   randomness="error")(jnp.arange(N))  # a key folded from a batched value
  assert got.shape == (N,)


def test_error_names_the_sampler():
  key = random.key(0)
  with pytest.raises(RuntimeError, match=r"^vmap\(randomness='error'\): random\.normal draws "
                                         "from a key that the vmap does not batch"):
    ember.vmap(lambda x: x + random.normal(key), randomness="error")(jnp.zeros(N))
  with pytest.raises(RuntimeError, match=r"random\.split draws"):
    ember.vmap(lambda x: random.split(random.PRNGKey(0)), randomness="error")(jnp.zeros(N))
  with pytest.raises(RuntimeError, match=r"random\.bernoulli draws"):
    ember.vmap(lambda k, x: random.bernoulli(k), in_axes=(None, 0), randomness="error")(
        random.key(1), jnp.zeros(N))
  # Deriving a key draws nothing: fold_in, clone and key_data are allowed.
  ember.vmap(lambda x: random.key_data(random.fold_in(random.key(2), 3)) + x,
             randomness="error")(jnp.zeros((N, 2), jnp.uint32))


def test_derived_keys_draw_per_example():
  xs = jnp.zeros(N)
  got = ember.vmap(lambda x: x + random.normal(random.fold_in(random.key(4), 7)),
                   randomness="different")(xs)
  want = per_example(lambda k, x: x + random.normal(k), random.fold_in(random.key(4), 7), xs)
  np.testing.assert_array_equal(got, want)


def test_nested_vmaps_split_outermost_first():
  xs = jnp.zeros((2, 3))
  inner = ember.vmap(lambda x: x + random.uniform(random.key(6)), randomness="different")
  got = ember.vmap(inner, randomness="different")(xs)
  outer_keys = random.split(random.key(6), 2)
  want = ember.vmap(lambda k: ember.vmap(random.uniform)(random.split(k, 3)))(outer_keys)
  np.testing.assert_array_equal(got, want)
  only_inner = ember.vmap(inner)(xs)  # the outer vmap shares: rows repeat
  np.testing.assert_array_equal(only_inner, np.broadcast_to(
      ember.vmap(random.uniform)(random.split(random.key(6), 3)), (2, 3)))


def test_under_jit_grad_and_control_flow():
  xs = jnp.arange(N, dtype=jnp.float32)
  draw = lambda k, x: x * random.normal(k)  # noqa: E731
  want = per_example(draw, random.key(8), xs)
  f = lambda x: draw(random.key(8), x)  # noqa: E731
  np.testing.assert_array_equal(ember.jit(ember.vmap(f, randomness="different"))(xs), want)
  grads = ember.vmap(ember.grad(f), randomness="different")(xs)
  np.testing.assert_array_equal(grads, per_example(lambda k, x: random.normal(k), random.key(8),
                                                   xs))
  in_cond = ember.vmap(lambda x: lax.cond(x >= 0, lambda: f(x), lambda: 0.0),
                       randomness="different")(xs)
  np.testing.assert_array_equal(in_cond, want)


def test_traces_are_keyed_on_the_mode():
  branch = lambda: random.uniform(random.key(9))  # noqa: E731 (one function: traced once per mode)
  f = lambda x: x + lax.cond(x >= 0, branch, lambda: 0.0)  # noqa: E731
  xs = jnp.zeros(N)
  same = ember.vmap(f)(xs)
  different = ember.vmap(f, randomness="different")(xs)
  assert len(set(np.asarray(same).tolist())) == 1
  assert len(set(np.asarray(different).tolist())) == N


def test_jit_inside_the_vmap_is_not_implemented():
  key = random.key(10)
  with pytest.raises(NotImplementedError, match="traced for jit within the vmap"):
    ember.vmap(ember.jit(lambda x: x + random.normal(key)), randomness="different")(jnp.zeros(2))


def test_bad_randomness_value():
  with pytest.raises(ValueError, match="vmap randomness must be 'error', 'different' or 'same'"):
    ember.vmap(lambda x: x, randomness="differnt")
