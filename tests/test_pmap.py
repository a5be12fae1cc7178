"""pmap beyond the corpus (tests/corpus/programs/pmap_api.py holds JAX's answers): per-device
results against a loop over the slices, devices=, donation, negative axes, nesting with vmap and
grad both ways, the compiled program's cache, and every argument's bad values."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3, 2)).astype(np.float32)


def test_each_device_computes_its_slice():
  f = lambda x, w: jnp.tanh(x @ w)
  w = RNG.standard_normal((2, 5)).astype(np.float32)
  got = ember.pmap(f, in_axes=(0, None))(X, w)
  np.testing.assert_allclose(got, np.stack([np.tanh(x @ w) for x in X]), rtol=1e-5)
  shards = got.addressable_shards
  assert [s.device for s in shards] == ember.devices()[:4]
  np.testing.assert_allclose(np.asarray(shards[2].data), np.tanh(X[2:3] @ w), rtol=1e-5)


def test_negative_axes_and_out_axes_positions():
  got = ember.pmap(lambda x: x * 2, in_axes=-1, out_axes=-1)(X.transpose(1, 2, 0))
  np.testing.assert_allclose(got, 2 * X.transpose(1, 2, 0))
  got = ember.pmap(lambda x: jnp.outer(x, x), in_axes=1, out_axes=2)(X[:, :, 0].T)
  np.testing.assert_allclose(got, np.einsum("ki,kj->ijk", X[:, :, 0], X[:, :, 0]), rtol=1e-6)


def test_devices_argument_picks_the_devices():
  devs = ember.devices()[4:6]
  got = ember.pmap(lambda x: x + lax.axis_index("i"), axis_name="i", devices=devs)(X[:2])
  np.testing.assert_allclose(got, X[:2] + np.arange(2)[:, None, None])
  assert [s.device for s in got.addressable_shards] == devs


def test_donated_argument_is_deleted():
  x = jnp.asarray(X) + 0
  out = ember.pmap(lambda v: v * 3, donate_argnums=0)(ember.device_put(
      x, ember.pmap(lambda v: v)(x).sharding))
  np.testing.assert_allclose(out, 3 * X)
  y = ember.pmap(lambda v: v)(x)
  ember.pmap(lambda v: v * 3, donate_argnums=(0,))(y)
  assert y.is_deleted()


def test_grad_through_and_inside_pmap_match_loops():
  loss = lambda w, x: jnp.sum(jnp.sin(x @ w) ** 2)
  w = RNG.standard_normal((2, 3)).astype(np.float32)
  per_device = ember.pmap(ember.grad(loss), in_axes=(None, 0))(w, X)
  want = np.stack([ember.grad(loss)(w, x) for x in X])
  np.testing.assert_allclose(per_device, want, rtol=1e-5, atol=1e-6)
  through = ember.grad(lambda w: ember.pmap(loss, in_axes=(None, 0))(w, X).sum())(w)
  np.testing.assert_allclose(through, want.sum(0), rtol=1e-5, atol=1e-6)
  averaged = ember.pmap(lambda w, x: lax.pmean(ember.grad(loss)(w, x), "b"),
                        axis_name="b", in_axes=(None, 0))(w, X)
  np.testing.assert_allclose(averaged, np.broadcast_to(want.mean(0), want.shape), rtol=1e-5,
                             atol=1e-6)


def test_vmap_inside_and_outside():
  inner = ember.pmap(ember.vmap(lambda v: lax.psum(v, "i") * v, axis_name="i"))(X)
  np.testing.assert_allclose(inner, X.sum(1, keepdims=True) * X, rtol=1e-5)
  outer = ember.vmap(ember.pmap(lambda v: lax.psum(v, "d"), axis_name="d"), in_axes=1)(X)
  np.testing.assert_allclose(outer, np.broadcast_to(X.sum(0), (4, 3, 2)).transpose(1, 0, 2),
                             rtol=1e-5)


def test_compiles_once_per_signature_and_static_value():
  traces = []

  def f(x, n):
    traces.append(n)
    return x * n

  p = ember.pmap(f, static_broadcasted_argnums=1)
  for _ in range(3):
    p(X, 2)
  p(X, 3)
  p(X[:2], 3)
  assert traces == [2, 3, 3]


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: ember.pmap(lambda x: x)(np.ones((9, 2))), ValueError,
     "size 9, but only 8 devices"),
    (lambda: ember.pmap(lambda x, y: x)(X, X[:3]), ValueError,
     "inconsistent sizes for array axes to be mapped: args[0] of shape (4, 3, 2) at axis 0, "
     "args[1] of shape (3, 3, 2)"),
    (lambda: ember.pmap(lambda x: x, in_axes=None)(X), ValueError, "at least one argument"),
    (lambda: ember.pmap(lambda x: x, in_axes=3)(X), ValueError, "in_axes=3 is out of range"),
    (lambda: ember.pmap(lambda x, y: x)(X, 3.0), ValueError,
     "asked to map args[1], a value of rank 0"),
    (lambda: ember.pmap(lambda x: x, out_axes=3)(X), ValueError, "out_axes=3 is out of range"),
    (lambda: ember.pmap(lambda x: x, in_axes="0"), TypeError, "in_axes must be an int"),
    (lambda: ember.pmap(lambda x, y: x, in_axes=(0,))(X, X), ValueError, "len(in_axes)=1"),
    (lambda: ember.pmap(lambda x: (x, x), out_axes=(0, 0, 0))(X), ValueError,
     "pmap out_axes specification must be a tree prefix"),
    (lambda: ember.pmap(lambda x: x, axis_size=3)(X), ValueError, "axis_size=3"),
    (lambda: ember.pmap(lambda x: x, devices=ember.devices()[:2])(X), ValueError,
     "Got axis_size=4, num_local_devices=2"),
    (lambda: ember.pmap(lambda x: x, backend="gpu"), RuntimeError, "Unknown backend: 'gpu'"),
    (lambda: ember.pmap(lambda x, n: x, static_broadcasted_argnums=1)(X, [1]), ValueError,
     "Non-hashable static arguments"),
    (lambda: ember.pmap(lambda x: x, static_broadcasted_argnums=2)(X), ValueError,
     "static_broadcasted_argnums=(2,) refers to argument 2"),
    (lambda: ember.pmap(lambda x: x, axis_name=0), TypeError, "string axis_name"),
    (lambda: ember.pmap(3), TypeError, "Expected a callable value, got 3"),
])
def test_bad_arguments_raise_naming_them(call, exc, phrase):
  with pytest.raises(exc) as info:
    call()
  assert phrase in str(info.value)
