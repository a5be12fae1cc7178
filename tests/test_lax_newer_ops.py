"""ember's rules for jax.lax's newer operations where JAX 0.10.2 gives no reference (its rule
fails) or where a loop is the reference: vmap against a Python loop, mulhi against exact
integer products, ragged_dot against a per-row reference and its gradients against finite
differences. JAX's own answers are pinned by the corpus (tests/corpus/programs/lax_names.py)."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax


def _loop(fn, in_axes, *args):
  """``fn`` applied example by example (the reference for ``vmap``)."""
  size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
  outs = [fn(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)])
          for i in range(size)]
  return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 0), (0, None), (None, 1)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_vmap_matches_loop(in_axes, axis):
  rng = np.random.default_rng(0)
  def arg(ax):  # examples of shape (4, 2), three of them along ``ax``
    base = rng.normal(size=(3, 4, 2)).astype(np.float32)
    return base[0] if ax is None else np.moveaxis(base, 0, ax)
  x, y = arg(in_axes[0]), arg(in_axes[1])
  fn = lambda a, b: lax.stack([a, b], axis=axis)  # noqa: E731
  np.testing.assert_allclose(ember.vmap(fn, in_axes)(x, y), _loop(fn, in_axes, x, y))


@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_unstack_and_tile_vmap_match_loop(bdim, axis):
  x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
  unstacked = ember.vmap(lambda a: lax.unstack(a, axis), bdim)(x)
  ref = [_loop(lambda a: lax.unstack(a, axis)[i], (bdim,), x) for i in range(len(unstacked))]
  for got, want in zip(unstacked, ref):
    np.testing.assert_allclose(got, want)
  tiled = ember.vmap(lambda a: lax.tile(a, (2, 3)), bdim)(x)
  np.testing.assert_allclose(tiled, _loop(lambda a: lax.tile(a, (2, 3)), (bdim,), x))


def test_mulhi_is_the_high_half_of_the_exact_product():
  rng = np.random.default_rng(1)
  for dt, bits in ((np.int32, 32), (np.uint32, 32), (np.int16, 16), (np.uint8, 8)):
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, size=50, dtype=dt, endpoint=True)
    y = rng.integers(info.min, info.max, size=50, dtype=dt, endpoint=True)
    want = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)]).astype(dt)
    np.testing.assert_array_equal(lax.mulhi(x, y), want)


def _ragged_reference(lhs, rhs, sizes):
  out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float32)
  start = 0
  for g, n in enumerate(sizes):
    for i in range(max(start, 0), min(start + n, lhs.shape[0])):
      out[i] = lhs[i] @ rhs[g]
    start += n
  return out


@pytest.mark.parametrize("sizes", [(2, 3), (0, 5), (1, 1), (4, 3), (5, 0)])
def test_ragged_dot_matches_per_row_reference(sizes):
  rng = np.random.default_rng(2)
  lhs, rhs = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(2, 3, 4)).astype(
      np.float32)
  got = lax.ragged_dot(lhs, rhs, np.array(sizes, np.int32))
  np.testing.assert_allclose(got, _ragged_reference(lhs, rhs, sizes), rtol=1e-5, atol=1e-5)


def test_ragged_dot_gradients_match_finite_differences():
  rng = np.random.default_rng(3)
  lhs, rhs = rng.normal(size=(5, 3)), rng.normal(size=(2, 3, 4))
  gs = np.array([2, 3], np.int32)
  with _x64():
    loss = lambda l, r: (lax.ragged_dot(l, r, gs) ** 2).sum()  # noqa: E731
    gl, gr = ember.grad(loss, (0, 1))(lhs, rhs)
    eps = 1e-6
    for arr, grad, which in ((lhs, gl, 0), (rhs, gr, 1)):
      flat = arr.reshape(-1)
      for k in range(0, flat.size, 5):
        d = np.zeros_like(flat)
        d[k] = eps
        hi = [lhs, rhs]
        lo = [lhs, rhs]
        hi[which] = (flat + d).reshape(arr.shape)
        lo[which] = (flat - d).reshape(arr.shape)
        fd = (float(loss(*hi)) - float(loss(*lo))) / (2 * eps)
        assert abs(np.asarray(grad).reshape(-1)[k] - fd) < 1e-5 * max(1.0, abs(fd))


class _x64:
  def __enter__(self):
    self.old = ember.config.jax_enable_x64
    ember.config.update("jax_enable_x64", True)

  def __exit__(self, *exc):
    ember.config.update("jax_enable_x64", self.old)


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 0),
                                     (0, 0, 0)])
def test_ragged_dot_vmap_matches_loop(in_axes):
  rng = np.random.default_rng(4)
  lhs = rng.normal(size=(2, 5, 3)).astype(np.float32)
  rhs = rng.normal(size=(2, 2, 3, 4)).astype(np.float32)
  gs = np.array([[2, 3], [4, 0]], np.int32)
  args = [a if ax is not None else a[0] for a, ax in zip((lhs, rhs, gs), in_axes)]
  got = ember.vmap(lax.ragged_dot, in_axes)(*args)
  np.testing.assert_allclose(got, _loop(lax.ragged_dot, in_axes, *args), rtol=1e-5, atol=1e-5)


def test_pbroadcast_under_vmap_gives_the_source_lane():
  x = jnp.arange(6.0).reshape(3, 2)
  got = ember.vmap(lambda v: lax.pbroadcast(v, "i", 1), axis_name="i")(x)
  np.testing.assert_allclose(got, np.broadcast_to(np.asarray(x)[1], (3, 2)))
  grad = ember.grad(lambda v: ember.vmap(lambda u: lax.pbroadcast(u, "i", 1),
                                         axis_name="i")(v).sum())(x)
  np.testing.assert_allclose(grad, [[0, 0], [3, 3], [0, 0]])


def test_composite_lowers_to_stablehlo_composite():
  f = lax.composite(lambda v, *, k: v * k, "my.scale", version=3)
  text = ember.jit(lambda v: f(v, k=2.0)).lower(1.0).as_text()
  assert '"stablehlo.composite"' in text and 'name = "my.scale"' in text
  assert "version = 3 : i32" in text and "composite_attributes = {k = 2.0 : f64}" in text
  assert float(ember.jit(lambda v: f(v, k=2.0))(1.5)) == 3.0


def test_tokens_do_not_compile():
  with pytest.raises(NotImplementedError, match="tokens"):
    ember.jit(lambda: lax.create_token())()
