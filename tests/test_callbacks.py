"""Host callbacks beyond the corpus (tests/corpus/programs/callbacks.py holds JAX's output): an
exception raised inside reaches the caller, programs differing only in their callback do not
share an executable, results are checked against their declared types, and the refusals."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.experimental import io_callback

S = ember.ShapeDtypeStruct


def test_an_exception_inside_a_callback_reaches_the_caller():
  def bad(x):
    raise RuntimeError("boom in callback")

  with pytest.raises(RuntimeError, match="boom in callback"):
    ember.debug.callback(bad, jnp.ones(2))
  with pytest.raises(Exception, match="boom in callback"):
    ember.block_until_ready(ember.jit(lambda x: ember.pure_callback(bad, S((2,), jnp.float32),
                                                                    x))(jnp.ones(2)))


def test_each_callback_keeps_its_own_program():
  seen = []
  for tag in ("a", "b"):
    f = ember.jit(lambda x, tag=tag: ember.debug.callback(lambda v: seen.append(tag), x) or x)
    ember.block_until_ready(f(jnp.ones(2)))
  assert seen == ["a", "b"]


def test_results_are_checked_and_narrowed_like_jax():
  narrowed = ember.jit(lambda x: ember.pure_callback(lambda v: v.astype(np.float64),
                                                     S((2,), jnp.float32), x))(jnp.ones(2))
  assert narrowed.dtype == jnp.float32
  np.testing.assert_array_equal(narrowed, [1.0, 1.0])
  with pytest.raises(TypeError, match=r"returned an array of shape \(3,\)"):
    ember.pure_callback(lambda v: np.zeros(3, np.float32), S((2,), jnp.float32), jnp.ones(2))
  with pytest.raises(TypeError, match="returned a value of structure"):
    ember.pure_callback(lambda v: [1.0, 2.0], S((2,), jnp.float32), jnp.ones(2))


def test_io_callback_runs_every_time_and_pure_callback_batches_by_method():
  calls = []

  def count(v):
    calls.append(1)
    return np.int32(len(calls))

  f = ember.jit(lambda x: io_callback(count, S((), jnp.int32), x))
  assert [int(f(1.0)) for _ in range(3)] == [1, 2, 3]
  both = ember.vmap(lambda v: ember.pure_callback(lambda u: u * 2, S((), jnp.float32), v,
                                                  vmap_method="broadcast_all"))(jnp.arange(3.0))
  np.testing.assert_array_equal(both, [0.0, 2.0, 4.0])


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: ember.debug.print("{}", jnp.ones(2), ordered=True), NotImplementedError, "ordered"),
    (lambda: ember.debug.callback(print, jnp.ones(2), partitioned=True), NotImplementedError,
     "partitioned"),
    (lambda: io_callback(print, None, ordered=True), NotImplementedError, "ordered"),
    (lambda: ember.pure_callback(print, S((), jnp.float32), 1.0, sharding=object()),
     NotImplementedError, "sharding"),
    (lambda: ember.pure_callback(print, S((), jnp.float32), 1.0, vmap_method="fast"),
     ValueError, "vmap_method must be one of"),
    (lambda: ember.pure_callback(3, S((), jnp.float32), 1.0), TypeError, "must be callable"),
    (lambda: ember.pure_callback(print, (3,), 1.0), TypeError, "shape and dtype"),
    (lambda: ember.debug.print(3), TypeError, "fmt must be a string"),
    (lambda: ember.vmap(lambda v: ember.pure_callback(lambda u: u, S((), jnp.float32), v))(
        jnp.ones(2)), NotImplementedError, "vmap_method"),
    (lambda: ember.jit(ember.shard_map(
        lambda b: ember.debug.print("{}", b) or b,
        mesh=ember.make_mesh((2,), ("i",), devices=ember.devices()[:2]),
        in_specs=ember.P("i"), out_specs=ember.P("i")))(jnp.ones(2)),
     NotImplementedError, "compiled for a mesh"),
    (lambda: ember.jit(lambda v: ember.debug.print("{}", v) or v)(ember.device_put(
        jnp.arange(4.0), ember.NamedSharding(
            ember.make_mesh((2,), ("i",), devices=ember.devices()[:2]), ember.P("i")))),
     NotImplementedError, "compiled for a mesh"),
])
def test_refusals_name_what_is_not_supported(call, exc, phrase):
  with pytest.raises(exc, match=phrase):
    call()
