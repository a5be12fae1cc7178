"""The key reuse checker (ember/random/_key_reuse.py): JAX's ``jax_debug_key_reuse`` rules and
messages, checked eagerly with the setting None and everywhere with True (the default,
False, checks nowhere, as in JAX).

The messages' first lines and which operations consume a key were read off JAX 0.10.2 with
``jax_debug_key_reuse`` on (e.g. ``random.normal(key)`` twice: ``Previously-consumed key passed
to jit-compiled function at index 0``; inside ``jit``: ``In jit, argument 0 is already
consumed.``).
"""
import re

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax, random
from ember.config import TRACE_OPTIONS
from ember.errors import KeyReuseError
from ember.random import _key_reuse

EAGER = "Previously-consumed key passed to {} at index {}"
TRACED = "In {}, argument {} is already consumed."


@pytest.fixture(autouse=True)
def eager_checks():
  """Each test starts with ember's eager-only setting, None (the default is JAX's, False)."""
  old = ember.config.jax_debug_key_reuse
  ember.config.update("jax_debug_key_reuse", None)
  yield
  ember.config.update("jax_debug_key_reuse", old)


@pytest.fixture
def everywhere():
  with ember.debug_key_reuse(True):
    yield


SAMPLERS = {
    "uniform": lambda k: random.uniform(k), "normal": lambda k: random.normal(k),
    "bits": lambda k: random.bits(k), "split": lambda k: random.split(k),
    "randint": lambda k: random.randint(k, (), 0, 3),
    "bernoulli": lambda k: random.bernoulli(k),
    "categorical": lambda k: random.categorical(k, jnp.ones(3)),
    "choice": lambda k: random.choice(k, 3), "permutation": lambda k: random.permutation(k, 3),
    "gamma": lambda k: random.gamma(k, 1.0), "beta": lambda k: random.beta(k, 1.0, 1.0),
    "dirichlet": lambda k: random.dirichlet(k, jnp.ones(3)),
    "poisson": lambda k: random.poisson(k, 3.0), "binomial": lambda k: random.binomial(k, 3., .5),
    "multinomial": lambda k: random.multinomial(k, 3., jnp.ones(3) / 3),
    "t": lambda k: random.t(k, 3.0), "orthogonal": lambda k: random.orthogonal(k, 2),
    "multivariate_normal": lambda k: random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2)),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 1.0),
    "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 0.0, 1.0),
    "ball": lambda k: random.ball(k, 2), "loggamma": lambda k: random.loggamma(k, 1.0),
    "triangular": lambda k: random.triangular(k, 0.0, 0.5, 1.0),
    "generalized_normal": lambda k: random.generalized_normal(k, 2.0),
    "exponential": lambda k: random.exponential(k), "wald": lambda k: random.wald(k, 1.0),
}
# JAX's operation names (eager, traced): samplers are jit-compiled functions.
LABELS = {"bits": (("random_bits", 0), ("random_bits", 0)),
          "split": (("random_split", 0), ("random_split", 0)),
          "multinomial": (("random_split", 0), ("random_split", 0)),
          "binomial": (("jit-compiled function", 0), ("while", 15))}
JIT = (("jit-compiled function", 0), ("jit", 0))


def raises(head: str):
  return pytest.raises(KeyReuseError, match="^" + re.escape(head))


# --- settings and the error type ------------------------------------------------------------

def test_defaults_and_context_manager():
  assert ember.config.jax_debug_key_reuse is None  # eager checks only (set by the fixture)
  with ember.debug_key_reuse(True):
    assert ember.config.jax_debug_key_reuse is True
    with ember.debug_key_reuse(False):
      assert ember.config.jax_debug_key_reuse is False
  assert ember.config.jax_debug_key_reuse is None
  assert "jax_debug_key_reuse" in TRACE_OPTIONS  # traces are keyed on it, as in JAX


def test_environment_strings_parse_as_booleans():
  assert [_key_reuse._parse(v) for v in ("0", "false", "1", "True", None, 0, 2)] == \
      [False, False, True, True, None, False, True]


def test_error_type_and_message():
  key = random.key(0)
  random.normal(key)
  with pytest.raises(KeyReuseError) as info:
    random.uniform(key)
  err = info.value
  assert isinstance(err, TypeError) and isinstance(err, ember.errors.JAXTypeError)
  lines = str(err).splitlines()
  assert lines[0] == "Previously-consumed key passed to jit-compiled function at index 0"
  assert lines[-1] == "See https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError"
  here = __file__
  assert re.search(rf"first consumed by random.normal at {re.escape(here)}:\d+ "
                   r"\(in test_error_type_and_message\)", str(err))
  assert re.search(rf"consumed again by random.uniform at {re.escape(here)}:\d+", str(err))


# --- what consumes a key (eagerly) --------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_consumes_its_key(name):
  draw = SAMPLERS[name]
  label, index = LABELS.get(name, JIT)[0]
  key = random.key(0)
  draw(key)  # one draw is fine (no sampler draws twice from its key inside)
  with raises(EAGER.format(label, index)):
    draw(key)
  consumed = random.key(1)
  random.normal(consumed)
  with raises(EAGER.format(label, index)):
    draw(consumed)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_under_jit_with_the_setting_on(name, everywhere):
  draw = SAMPLERS[name]
  label, index = LABELS.get(name, JIT)[1]
  with raises(TRACED.format(label, index)):
    ember.jit(lambda k: (draw(k), draw(k)))(random.key(0))


def test_operations_that_do_not_consume():
  key = random.key(0)
  random.normal(key)
  random.fold_in(key, 1), random.fold_in(key, 2)  # fold_in neither consumes nor checks
  random.key_data(key), random.key_impl(key), repr(key), key == key, key.reshape(1)
  random.normal(random.clone(key))
  random.normal(random.wrap_key_data(random.key_data(key)))
  random.normal(random.fold_in(key, 3))
  fresh = random.key(1)
  copy = random.clone(fresh)
  random.normal(copy)
  random.normal(fresh)  # the clone's use is not the original's


def test_raw_keys_are_not_tracked():
  raw = random.PRNGKey(0)
  a, b = random.normal(raw), random.normal(raw)
  assert a == b
  random.split(raw), random.split(raw)


def test_the_setting_off_checks_nothing():
  with ember.debug_key_reuse(False):
    key = random.key(0)
    assert random.normal(key) == random.normal(key)


# --- patterns that must not raise ----------------------------------------------------------------

def test_split_and_fold_in_patterns():
  key = random.key(0)
  for _ in range(3):
    key, sub = random.split(key)
    random.normal(sub, (2,))
  keys = random.split(key, 4)
  for k in keys:  # iterating gives fresh keys, as in JAX
    random.uniform(k)
  for i in range(4):
    random.normal(keys[i])  # each element once
  base = random.key(1)
  for i in range(3):
    random.normal(random.fold_in(base, i))
  k1, k2 = random.split(random.key(2))
  random.normal(k1), random.normal(k2)
  grid = random.split(random.key(3), 4).reshape(2, 2)
  ember.vmap(ember.vmap(random.normal))(grid)


def test_library_patterns():
  from ember.example_libraries import stax
  init, apply = stax.serial(stax.Dense(4), stax.Relu, stax.Dropout(0.5), stax.Dense(2))
  _, params = init(random.key(0), (-1, 3))
  apply(params, jnp.ones((2, 3)), rng=random.key(1))
  ember.nn.initializers.glorot_normal()(random.key(2), (3, 4))
  ember.nn.initializers.orthogonal()(random.key(3), (3, 3))


# --- views: indexing, reshape, transpose, vmap ---------------------------------------------------

def test_indexing_is_a_view_by_default():
  keys = random.split(random.key(0), 4)
  keys[0], keys[0], keys[1:], keys[::2]  # inspecting keys consumes nothing
  random.normal(keys[0])
  random.normal(keys[1])
  random.normal(keys[jnp.int32(2)])  # a concrete array index: exactly that key
  with raises(EAGER.format("jit-compiled function", 0)):
    random.normal(keys[0])
  with raises(EAGER.format("jit-compiled function", 0)):
    ember.vmap(random.normal)(keys)  # keys 0-2 are drawn from already


def test_indexing_consumes_with_the_setting_on(everywhere):
  keys = random.split(random.key(0), 4)
  keys[0], keys[1:2]
  with raises(EAGER.format("slice", 0)):
    keys[0]
  keys = random.split(random.key(1), 4)
  keys[::2]
  with raises(EAGER.format("slice", 0)):
    keys[2]
  with raises(TRACED.format("slice", 0)):
    ember.jit(lambda ks: (ks[0], ks[0]))(random.split(random.key(2), 2))


def test_reshape_and_transpose_are_views():
  keys = random.split(random.key(0), 4)
  ember.vmap(ember.vmap(random.normal))(keys.reshape(2, 2).T)
  with raises(EAGER.format("jit-compiled function", 0)):
    ember.vmap(random.normal)(keys)
  keys = random.split(random.key(1), 4)
  grid = keys.reshape(2, 2)
  random.normal(grid[0, 1])
  random.normal(keys[2])  # grid[0, 1] is keys[1]
  with raises(EAGER.format("jit-compiled function", 0)):
    random.normal(keys[1])


def test_vmap_consumes_the_keys_it_maps_and_closes_over():
  keys = random.split(random.key(0), 3)
  ember.vmap(random.normal)(keys)
  with raises(EAGER.format("jit-compiled function", 0)):
    ember.vmap(random.normal)(keys)
  key = random.key(1)
  ember.vmap(lambda x: x + random.normal(key))(jnp.ones(2))
  with raises(EAGER.format("jit-compiled function", 0)):
    random.normal(key)
  with raises(EAGER.format("jit-compiled function", 0)):
    ember.vmap(lambda x: random.normal(key) + x)(jnp.ones(2))
  unbatched = random.key(3)
  ember.vmap(lambda k, x: random.normal(k) + x, in_axes=(None, 0))(unbatched, jnp.ones(2))
  with raises(EAGER.format("jit-compiled function", 0)):
    random.normal(unbatched)


def test_grad_eagerly():
  key = random.key(0)
  with raises(EAGER.format("jit-compiled function", 0)):
    ember.grad(lambda x: x * random.normal(key) * random.normal(key))(1.0)


# --- staged code (opt-in) ------------------------------------------------------------------------

def test_staged_code_is_not_checked_by_default():
  f = ember.jit(lambda k: random.normal(k) + random.normal(k))
  assert np.isfinite(f(random.key(0)))
  key = random.key(1)
  lax.scan(lambda c, _: (c + random.normal(key), None), 0.0, None, length=2)


def test_turning_it_on_retraces(everywhere):
  def f(k):
    return random.normal(k) + random.normal(k)
  jitted = ember.jit(f)
  with ember.debug_key_reuse(None):
    jitted(random.key(0))
  with raises(TRACED.format("jit", 0)):
    jitted(random.key(0))


def test_jit_reuse_and_closures(everywhere):
  key = random.key(0)
  with raises(TRACED.format("jit", 0)):
    ember.jit(lambda x: x + random.normal(key) + random.uniform(key))(1.0)

  @ember.jit
  def fine(k):
    k1 = random.fold_in(k, 1)
    k2 = random.fold_in(k, 2)
    a, b = random.split(random.clone(k))
    return random.normal(k1) + random.normal(k2) + random.normal(k) + random.normal(a)
  fine(random.key(1))
  with raises(TRACED.format("jit", 0)):
    ember.jit(lambda ks: ember.vmap(random.normal)(ks) + ember.vmap(random.normal)(ks))(
        random.split(random.key(2), 2))


def test_cond_branches_are_exclusive(everywhere):
  @ember.jit
  def either(k, p):
    return lax.cond(p, lambda: random.normal(k), lambda: random.uniform(k))
  either(random.key(0), True)

  @ember.jit
  def then_again(k, p):
    x = lax.cond(p, lambda: random.normal(k), lambda: 0.0)
    return x + random.normal(k)
  with raises(TRACED.format("jit", 0)):
    then_again(random.key(0), True)

  @ember.jit
  def two_conds(k, p):
    x = lax.cond(p, lambda: random.normal(k), lambda: 0.0)
    return x + lax.cond(p, lambda: random.uniform(k), lambda: 0.0)
  with raises(TRACED.format("jit", 0)):
    two_conds(random.key(0), True)
  key = random.key(1)
  lax.switch(1, [lambda: random.normal(key), lambda: random.uniform(key),
                 lambda: random.gamma(key, 1.0)])
  with raises(EAGER.format("jit-compiled function", 0)):
    random.normal(key)


def test_loop_bodies_must_not_consume_outside_keys(everywhere):
  key = random.key(0)
  scan_msg = ("scan body function leads to key reuse when repeatedly executed, because key "
              "constants are repeatedly consumed:")
  with raises(scan_msg):
    lax.scan(lambda c, _: (c + random.normal(key), None), 0.0, None, length=2)
  with raises(scan_msg):
    lax.fori_loop(0, 3, lambda i, c: c + random.normal(key), 0.0)
  with raises("while_loop body function leads to key reuse when repeatedly executed: "):
    lax.while_loop(lambda c: c < 3, lambda c: c + random.normal(key), 0.0)
  with raises("while_loop cond function leads to key reuse when repeatedly executed: "):
    lax.while_loop(lambda c: random.normal(key) < 3, lambda c: c + 1.0, 0.0)
  with raises("while_loop body function leads to key reuse when repeatedly executed: "):
    ember.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + random.normal(key), 0.0))(3)


def test_loops_that_split_their_carry(everywhere):
  def body(k, _):
    k, sub = random.split(k)
    return k, random.normal(sub)
  _, xs = lax.scan(body, random.key(0), None, length=3)
  assert len(set(np.asarray(xs).tolist())) == 3
  keys = random.split(random.key(1), 3)
  lax.scan(lambda c, k: (c + random.normal(k), None), 0.0, keys)
  lax.fori_loop(0, 3, lambda i, c: c + random.normal(random.fold_in(random.key(2), i)), 0.0)


def test_jitted_function_called_twice_with_one_key():
  """As JAX's jit: a key the jitted function consumes is consumed by the call, so passing it
  again (to the function or to a sampler) raises; keys only passed through are not consumed."""
  with ember.config._option("jax_debug_key_reuse", True):
    draw = ember.jit(lambda k: ember.random.normal(k))
    through = ember.jit(lambda k, x: x + 1)
    key = ember.random.key(0)
    assert float(draw(key)) == float(ember.jit(lambda k: ember.random.normal(k))(
        ember.random.key(0)))
    assert float(through(key, 1.0)) == 2.0 and float(through(key, 2.0)) == 3.0
    with pytest.raises(ember.errors.KeyReuseError) as info:
      draw(key)
    message = str(info.value)
    assert message.startswith("Previously-consumed key passed to jit-compiled function at index 0")
    assert "first consumed by the jit-compiled function <lambda> (its key argument 0) at " in message
    k1, k2 = ember.random.split(ember.random.key(1))
    draw(k1)
    draw(k2)
    with pytest.raises(ember.errors.KeyReuseError):
      ember.random.normal(k1)
