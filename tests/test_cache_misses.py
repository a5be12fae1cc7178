"""jax_explain_cache_misses and the recompile warning (ember/transforms/cache_misses.py):
the logged text for each kind of change, and the warning's argument."""
import logging
import re
import warnings

import pytest

import ember
import ember.numpy as jnp
from ember.errors import RecompileWarning

HERE = __file__


def test_explanation_texts(caplog):
  caplog.set_level(logging.WARNING, logger="ember.jit")

  def f(x, y):
    return x + y["a"]
  g = ember.jit(f)
  with ember.config._option("jax_explain_cache_misses", True):
    g(jnp.ones(3), {"a": 1.0})
    g(jnp.ones(3), {"a": 1.0})
    g(jnp.ones(4), {"a": 1.0})
    g(jnp.ones(4, jnp.int32), {"a": 1.0})
    g(jnp.ones(4), {"a": jnp.float32(1.0)})
    g(jnp.ones(4), {"a": 1.0, "b": 2})
  got = [re.sub(r"HERE:\d+", "HERE:N", r.getMessage().replace(HERE, "HERE"))
         for r in caplog.records if r.name == "ember.jit"]
  call = "TRACING CACHE MISS at HERE:N (test_explanation_texts):\n"
  head = call + "  for f defined at HERE:N\n  all previously seen signatures differ. " \
      "The closest differs:\n"
  assert got == [
      call + "  never seen function:\n    f defined at HERE:N",
      head + "  * at x, now f32[4] and before f32[3] (axis 0: 4 != 3; each new shape compiles "
      "anew: pad to a few fixed sizes if it varies from call to call)",
      head + "  * at x, now i32[4] and before f32[4] (a different dtype: cast the argument to "
      "one dtype before the call)",
      head + "  * at y['a'], now f32[] and before f32[]{weak_type=True} (a Python scalar is "
      "weakly typed and an array is not: pass the same kind each call, e.g. jnp.float32(x) for "
      "a scalar; see https://docs.jax.dev/en/latest/type_promotion.html#weak-types)",
      head + "  * at y, now a dict with keys ['a', 'b'] and before a dict with keys ['a'], keys "
      "differing: ['b']",
  ]


def test_static_arguments_options_and_nested_trees(caplog):
  caplog.set_level(logging.WARNING, logger="ember.jit")
  g = ember.jit(lambda x, n: x * n, static_argnums=1)
  h = ember.jit(lambda t: t[0][1] + t[1])
  with ember.config._option("jax_explain_cache_misses", True):
    g(jnp.ones(3), 2)
    g(jnp.ones(3), 3)
    with ember.config._option("jax_numpy_rank_promotion", "warn"):
      g(jnp.ones(3), 3)
    h(((1.0, 2.0), 3.0))
    h(([1.0, 2.0], 3.0))
  got = [r.getMessage().split("\n")[-1] for r in caplog.records if r.name == "ember.jit"]
  assert got[1:3] == [
      "  * static argument n now 3 and before 2",
      "  * config option jax_numpy_rank_promotion now 'warn' and before 'allow'"]
  assert got[4] == "  * at t[0], now a list of 2 children and before a tuple of 2 children"


def test_nothing_is_logged_when_off(caplog):
  caplog.set_level(logging.DEBUG, logger="ember.jit")
  g = ember.jit(lambda x: x + 1)
  g(jnp.ones(2))
  g(jnp.ones(3))
  assert [r for r in caplog.records if r.name == "ember.jit"] == []


def test_recompile_warning_names_the_changing_argument():
  g = ember.jit(lambda x, scale: x * scale)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for n in range(1, 13):
      g(jnp.ones(n), 2.0)
  recompiles = [w for w in caught if w.category is RecompileWarning]
  assert len(recompiles) == 1  # once per function
  message = str(recompiles[0].message)
  assert recompiles[0].filename == HERE  # points at the user's call
  assert "has traced and compiled for 11 different argument signatures" in message
  assert "The argument that keeps changing is x (f32[8] -> f32[9] -> f32[10] -> f32[11])" \
      in message


def test_recompile_warning_threshold_and_off():
  g = ember.jit(lambda n: n + 1, static_argnums=0)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ember.config._option("ember_recompile_warning", 3):
      for n in range(4):
        g(n)
  messages = [str(w.message) for w in caught if w.category is RecompileWarning]
  assert len(messages) == 1 and "keeps changing is n (0 -> 1 -> 2 -> 3)" in messages[0]
  h = ember.jit(lambda x: x + 1)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ember.config._option("ember_recompile_warning", 0):
      for n in range(1, 15):
        h(jnp.ones(n))
  assert [w for w in caught if w.category is RecompileWarning] == []
  with pytest.raises(ValueError, match="ember_recompile_warning must be a non-negative int"):
    ember.config.update("ember_recompile_warning", -1)


def test_same_signature_after_clear_cache_is_not_a_new_one(caplog):
  caplog.set_level(logging.WARNING, logger="ember.jit")
  g = ember.jit(lambda x: x + 1)
  with ember.config._option("jax_explain_cache_misses", True):
    g(jnp.ones(2))
    g.clear_cache()
    g(jnp.ones(2))
  last = [r.getMessage() for r in caplog.records if r.name == "ember.jit"][-1]
  assert last.endswith("this signature was traced before, but its trace is no longer cached "
                       "(the cache was cleared, or more than 256 signatures pushed it out)")
