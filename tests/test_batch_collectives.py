"""Collectives over named vmap axes (ember.lax.parallel) against their NumPy definitions.

Lane values are stacked along axis 0 of the NumPy references below; each test moves that axis to
``in_axes`` for vmap. Expected derivatives are NumPy formulas (checked once against JAX 0.10).
"""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax

R = np.random.RandomState(0)


def _rand(*shape, dtype=np.float32):
  if np.dtype(dtype).kind == "f":
    return R.randn(*shape).astype(dtype)
  return R.randint(-5, 5, shape).astype(dtype)


def vmapped(f, **kwargs):
  return ember.vmap(f, axis_name="i", **kwargs)


def check(f, lanes, expected, in_axes=0, eager=True, rtol=1e-5, atol=1e-5):
  """vmap of ``f`` over axis 'i' (under jit, and eagerly unless told not to: eager runs compile
  each op, so only some cases do) equals ``expected``; ``lanes`` are the arguments with lanes
  first, moved to ``in_axes``."""
  args = [np.moveaxis(x, 0, in_axes) for x in lanes]
  vf = vmapped(f, in_axes=in_axes)
  for g in [ember.jit(vf), vf] if eager else [ember.jit(vf)]:
    got, want = ember.tree.leaves(g(*args)), ember.tree.leaves(expected)
    assert len(got) == len(want)
    for a, b in zip(got, want):
      b = np.asarray(b)
      assert np.asarray(a).dtype == b.dtype, (np.asarray(a).dtype, b.dtype)
      np.testing.assert_allclose(np.asarray(a), b, rtol=rtol, atol=atol)


# --- NumPy definitions (lanes along axis 0) ---------------------------------------------------

def np_psum(x):
  return np.broadcast_to(x.sum(0, dtype=x.dtype), x.shape)


def np_all_gather(x, axis, tiled):
  whole = np.concatenate(list(x), axis) if tiled else np.stack(list(x), axis)
  return np.stack([whole] * len(x))


def np_psum_scatter(x, dim, tiled):
  total = x.sum(0)
  return np.stack(np.split(total, len(x), dim)) if tiled else np.moveaxis(total, dim, 0)


def np_ppermute(x, perm):
  out = np.zeros_like(x)
  for src, dst in perm:
    out[dst] = x[src]
  return out


def np_all_to_all(x, split, concat, tiled):
  n = len(x)
  if tiled:
    return np.stack([np.concatenate([np.split(x[i], n, split)[j] for i in range(n)], concat)
                     for j in range(n)])
  return np.stack([np.stack([np.take(x[i], j, split) for i in range(n)], concat)
                   for j in range(n)])


# --- all-reduce -------------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes,dtype", [(0, np.float32), (1, np.int32), (-1, np.float32)])
def test_psum_pmax_pmin_pmean(in_axes, dtype):
  x = _rand(3, 2, 4, dtype=dtype)
  def f(x):
    return lax.psum(x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i"), lax.pmean(x, "i")
  mean = np.broadcast_to(x.mean(0, dtype=np.float64).astype(np.float32), x.shape)
  check(f, [x], (np_psum(x), np.broadcast_to(x.max(0), x.shape),
                 np.broadcast_to(x.min(0), x.shape), mean), in_axes, eager=in_axes == 0)


def test_psum_over_names_and_positional_axes():
  x = _rand(3, 2, 4)
  check(lambda x: lax.psum(x, ("i", 0)), [x], np.broadcast_to(x.sum((0, 1)), (3, 4)), 1)
  check(lambda x: lax.pmax(x, (1, "i")), [x], np.broadcast_to(x.max((0, 2)), (3, 2)), 2,
        eager=False)
  # Positional axes alone: a reduction, also outside any vmap and in an anonymous vmap.
  np.testing.assert_allclose(lax.psum(x, (0, 2)), x.sum((0, 2)), rtol=1e-6)
  np.testing.assert_allclose(ember.jit(lambda x: lax.pmin(x, (1,)))(x), x.min(1))
  np.testing.assert_allclose(ember.vmap(lambda x: lax.psum(x, 0), in_axes=1)(x), x.sum(0),
                             rtol=1e-6)


def test_psum_of_bools_and_pytrees():
  b = np.array([True, False, True])
  check(lambda b: lax.psum(b, "i"), [b], np.full(3, 2, np.int32))
  check(lambda b: lax.pmax(b, "i"), [b], np.ones(3, bool), eager=False)
  x = _rand(3, 2)
  check(lambda x: lax.psum({"a": x, "b": (2 * x,)}, "i"),
        [x], {"a": np_psum(x), "b": (np_psum(2 * x),)})


def test_psum_of_constants_is_known_in_python():
  seen = []
  def f(x):
    n = lax.psum(1, "i")
    seen.append((n, lax.axis_size("i"), lax.pmean(4, "i")))
    return x * n + lax.psum(jnp.ones(2), "i")
  x = _rand(3, 2)
  np.testing.assert_allclose(vmapped(f)(x), 3 * x + 3, rtol=1e-6)
  assert seen[0] == (3, 3, 4.0) and type(seen[0][0]) is int
  got = vmapped(lambda x: (x, lax.psum(2.0, "i")))(x)[1]
  assert got.weak_type and got.dtype == np.float32
  np.testing.assert_array_equal(got, [6.0] * 3)


def test_reductions_of_unbatched_operands():
  x, y = _rand(3, 4), _rand(4)
  # y is traced (by jit) but the same on every lane.
  got = ember.jit(lambda y: vmapped(lambda x: lax.psum(y, "i") + lax.pmax(y, "i") + x)(x))(y)
  np.testing.assert_allclose(got, 4 * y + x, rtol=1e-6)
  got = vmapped(lambda y: lax.psum(y, "i") * lax.axis_index("i"), in_axes=None, axis_size=3)(y)
  np.testing.assert_allclose(got, np.outer(np.arange(3), 3 * y), rtol=1e-6)
  # A reduction's result is the same on every lane: it may leave vmap unbatched.
  got = vmapped(lambda x: lax.psum(x, "i"), out_axes=None)(x)
  np.testing.assert_allclose(got, x.sum(0), rtol=1e-6)


# --- all_gather, psum_scatter -----------------------------------------------------------------

@pytest.mark.parametrize("axis,tiled,in_axes", [(0, False, 0), (1, False, 1), (-1, False, -1),
                                                (0, True, 0), (-1, True, 1)])
def test_all_gather(axis, tiled, in_axes):
  x = _rand(3, 2, 4)
  ndim = 2 if tiled else 3
  check(lambda x: lax.all_gather(x, "i", axis=axis, tiled=tiled), [x],
        np_all_gather(x, axis % ndim, tiled), in_axes, eager=in_axes == 0)


def test_all_gather_of_unbatched_value():
  c = np.arange(4.0, dtype=np.float32).reshape(2, 2)
  got = vmapped(lambda x: lax.all_gather(c, "i", axis=1, tiled=True) + x)(np.ones((3, 1, 1)))
  np.testing.assert_array_equal(got, np.stack([np.concatenate([c] * 3, 1) + 1] * 3))


@pytest.mark.parametrize("dim,tiled,in_axes", [(0, False, 0), (1, False, 2), (-1, False, 1),
                                               (0, True, 1), (1, True, -1)])
def test_psum_scatter(dim, tiled, in_axes):
  x = _rand(3, 6, 3) if tiled else _rand(3, 3, 3)
  check(lambda x: lax.psum_scatter(x, "i", scatter_dimension=dim, tiled=tiled), [x],
        np_psum_scatter(x, dim % 2, tiled), in_axes, eager=in_axes == 0)


def test_psum_scatter_of_unbatched_value():
  c = np.arange(6.0, dtype=np.float32).reshape(3, 2)
  got = vmapped(lambda x: lax.psum_scatter(c, "i") + x)(np.zeros((3, 1)))
  np.testing.assert_array_equal(got, 3 * c)


# --- ppermute, pshuffle -----------------------------------------------------------------------

@pytest.mark.parametrize("perm", [[(0, 1), (1, 2), (2, 0)], [(0, 1), (1, 2)], [(1, -1), (-1, 0)],
                                  []])
def test_ppermute(perm):
  x = _rand(3, 2, 4)
  want = np_ppermute(x, [(s % 3, d % 3) for s, d in perm])
  check(lambda x: lax.ppermute(x, "i", perm), [x], want, 1, eager=len(perm) == 2)


def test_ppermute_of_unbatched_value_and_pshuffle():
  c = np.arange(1.0, 3.0, dtype=np.float32)
  for perm, want in [([(0, 1), (1, 2), (2, 0)], [c] * 3), ([(0, 2)], [0 * c, 0 * c, c])]:
    got = vmapped(lambda x, p=perm: lax.ppermute(c, "i", p) + x)(np.zeros((3, 1), np.float32))
    np.testing.assert_array_equal(got, np.stack(want))
  x = _rand(3, 5)
  check(lambda x: lax.pshuffle(x, "i", [2, 0, 1]), [x], x[[2, 0, 1]], -1)


# --- all_to_all -------------------------------------------------------------------------------

@pytest.mark.parametrize("split,concat,tiled,in_axes", [
    (0, 0, False, 0), (0, 1, False, 1), (1, 0, False, -1), (2, 0, False, 2), (-1, -2, False, 0),
    (0, 1, True, 0), (1, 0, True, 1), (1, 1, True, 0)])
def test_all_to_all(split, concat, tiled, in_axes):
  shape = [2, 4, 2]
  shape[split] = 6 if tiled else 3
  x = _rand(3, *shape)
  check(lambda x: lax.all_to_all(x, "i", split, concat, tiled=tiled), [x],
        np_all_to_all(x, split % 3, concat % 3, tiled), in_axes, eager=in_axes == 1)


def test_pswapaxes_swaps_the_named_axis_with_a_positional_one():
  # JAX 0.10.2's values: pswapaxes(x, 'i', axis) is all_to_all(x, 'i', axis, axis)
  x = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
  check(lambda v: lax.pswapaxes(v, "i", 1), [x],
        np.array([[[0, 6], [2, 8], [4, 10]], [[1, 7], [3, 9], [5, 11]]], np.int32))
  z = np.arange(9, dtype=np.float32).reshape(3, 3) * 1.5
  check(lambda v: lax.pswapaxes(v, "i", 0), [z], z.T)


def test_all_to_all_of_unbatched_value():
  c = np.arange(6.0, dtype=np.float32).reshape(3, 2)
  got = vmapped(lambda x: lax.all_to_all(c, "i", 0, 1) + x)(np.zeros((3, 1, 1), np.float32))
  np.testing.assert_array_equal(got, np_all_to_all(np.stack([c] * 3), 0, 1, False))


# --- axis_index -------------------------------------------------------------------------------

def test_axis_index():
  x = _rand(4, 3)
  check(lambda x: x + lax.axis_index("i"), [x], x + np.arange(4, dtype=np.float32)[:, None], 1)
  np.testing.assert_array_equal(vmapped(lambda: lax.axis_index("i"), axis_size=3)(),
                                np.arange(3, dtype=np.int32))
  got = vmapped(lambda y: y + lax.axis_index("i"), in_axes=None, axis_size=3)(np.ones(2))
  np.testing.assert_array_equal(got, np.arange(1, 4)[:, None] * np.ones(2))


# --- several names, anonymous axes, jit -------------------------------------------------------

def _vmap_ij(f, **kwargs):
  return vmapped(ember.vmap(f, axis_name="j"), **kwargs)


def test_two_named_axes():
  x = _rand(2, 3, 4)  # lanes (i, j)
  def f(v):
    return (lax.psum(v, ("i", "j")), lax.psum(v, ("j", "i")), lax.pmean(v, ("i", "j")),
            lax.pmax(v, ("j", "i")), lax.psum(v, "i"), lax.psum(v, "j"),
            lax.axis_index(("i", "j")), lax.axis_index(("j", "i")), v * lax.psum(1, ("i", "j")))
  whole = np.broadcast_to(x.sum((0, 1)), x.shape)
  want = (whole, whole, whole / 6, np.broadcast_to(x.max((0, 1)), x.shape),
          np.broadcast_to(x.sum(0), x.shape), np.broadcast_to(x.sum(1, keepdims=True), x.shape),
          np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2).T, 6 * x)
  for got, expected in zip(ember.jit(_vmap_ij(f))(x), want):
    np.testing.assert_allclose(got, expected, rtol=1e-5)
  # The innermost binding of a name wins.
  inner = vmapped(ember.vmap(lambda v: lax.axis_index("i"), axis_name="i"))(x)
  np.testing.assert_array_equal(inner, np.broadcast_to(np.arange(3), (2, 3)))


def test_named_axis_unbatched_in_the_outer_trace():
  x = _rand(3, 4)  # lanes j; every i lane (of 2) holds the same values
  got = _vmap_ij(lambda v: lax.psum(v, ("i", "j")), in_axes=None, axis_size=2)(x)
  np.testing.assert_allclose(got, np.broadcast_to(2 * x.sum(0), (2, 3, 4)), rtol=1e-5)


def test_collectives_inside_an_anonymous_vmap():
  """An unnamed vmap around the named one batches each collective per example."""
  x = _rand(3, 3, 2, 4)  # (i lanes, split, example axis, ...)
  cases = [  # (f, NumPy definition, in_axes of the example axis, out_axes)
      (lambda v: lax.psum(v, ("i", 1)), lambda v: np.broadcast_to(v.sum((0, 2)), v.shape[:2]),
       3, 1),
      (lambda v: lax.all_gather(v, "i", axis=1), lambda v: np_all_gather(v, 1, False), 1, 0),
      (lambda v: lax.all_gather(v, "i", tiled=True), lambda v: np_all_gather(v, 0, True), 3, 2),
      (lambda v: lax.psum_scatter(v, "i"), lambda v: np_psum_scatter(v, 0, False), 1, 1),
      (lambda v: lax.psum_scatter(v, "i", tiled=True), lambda v: np_psum_scatter(v, 0, True),
       0, 0),
      (lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2)]),
       lambda v: np_ppermute(v, [(0, 1), (1, 2)]), 1, 0),
      (lambda v: lax.all_to_all(v, "i", 0, 1), lambda v: np_all_to_all(v, 0, 1, False), 3, 1),
      (lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), lambda v: np_all_to_all(v, 0, 0, True),
       0, 0)]
  def run(x):
    return [ember.vmap(vmapped(f), in_axes=a, out_axes=o)(jnp.moveaxis(x, 2, a))
            for f, _, a, o in cases]
  for got, (_, ref, _, o) in zip(ember.jit(run)(x), cases):
    want = np.stack([ref(x[:, :, k]) for k in range(x.shape[2])], o)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_jit_inside_and_outside_vmap():
  x = _rand(3, 4)
  def f(v):
    return lax.psum(v, "i") * lax.axis_index("i") + lax.all_gather(v, "i").sum(0)
  want = np.arange(3)[:, None] * x.sum(0) + x.sum(0)
  np.testing.assert_allclose(vmapped(ember.jit(f))(x), want, rtol=1e-5)
  np.testing.assert_allclose(ember.jit(vmapped(f))(x), want, rtol=1e-5)
  # Inside two named vmaps, around each other's collectives.
  y = _rand(2, 3, 4)
  g = ember.jit(lambda v: lax.psum(v, ("i", "j")) + lax.ppermute(v, "j", [(0, 1), (1, 2), (2, 0)]))
  np.testing.assert_allclose(_vmap_ij(g)(y), y.sum((0, 1)) + y[:, [2, 0, 1]], rtol=1e-5)
  # The jit's jaxpr depends on the axis size (all_to_all's shape): traced once per size.
  h = ember.jit(lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True))
  for n in (3, 2):
    z = _rand(n, 6, 2)
    np.testing.assert_allclose(vmapped(h)(z), np_all_to_all(z, 0, 1, True))


def test_named_jaxpr():
  seen = []
  def f(x):
    seen.append(ember.make_jaxpr(lambda y: (lax.psum(y, "i"), lax.ppermute(y, "i", [(0, 1)]),
                                            lax.axis_index("i")))(x))
    return x
  vmapped(f)(np.ones((3, 2), np.float32))
  assert str(seen[0]) == (
      "{ lambda ; a:f32[2]. let\n"
      "    b:f32[2] = psum[axes=('i',) axis_index_groups=None] a\n"
      "    c:f32[2] = ppermute[axis_name=('i',) perm=((0, 1),)] a\n"
      "    d:i32[] = axis_index[axis_name=i] \n"
      "  in (b, c, d) }")
  batched = str(ember.make_jaxpr(vmapped(lambda x: lax.psum(x, "i")))(np.ones(3, np.float32)))
  assert "b:f32[] = psum[axes=(0,) axis_index_groups=None] a" in batched


# --- autodiff ---------------------------------------------------------------------------------

def test_grad_of_psum_inside_vmap():
  # psum transposes to psum: d/dx_i [psum(x) x_i] = psum(x) + psum(x).
  got = vmapped(ember.grad(lambda x: lax.psum(x, "i") * x))(np.arange(3.0, dtype=np.float32))
  np.testing.assert_array_equal(got, [6.0, 6.0, 6.0])
  x = _rand(3, 4)
  s = x.sum(0)
  got = ember.jit(vmapped(ember.grad(lambda v: jnp.sum(jnp.sin(lax.psum(v, "i")) * v))))(x)
  np.testing.assert_allclose(got, np.broadcast_to(np.sin(s) + np.cos(s) * s, x.shape), rtol=1e-5,
                             atol=1e-5)
  # Positional axes transpose to a broadcast; each of the 3 lanes' losses sum(p ** 2) adds 2p.
  y = _rand(3, 2, 4)
  got = ember.jit(vmapped(ember.grad(lambda v: jnp.sum(lax.psum(v, ("i", 0)) ** 2))))(y)
  np.testing.assert_allclose(got, np.broadcast_to(6 * y.sum((0, 1)), y.shape), rtol=1e-5)


def _per_lane_grads(loss, x):
  """vmap of grad and grad of the sum over lanes agree (under jit); returns the former."""
  got, total = ember.jit(lambda x: (vmapped(ember.grad(loss))(x),
                                    ember.grad(lambda x: jnp.sum(vmapped(loss)(x)))(x)))(x)
  np.testing.assert_allclose(total, got, rtol=1e-5, atol=1e-5)
  return np.asarray(got)


def test_grads_of_gathers_and_permutations():
  x = _rand(3, 4)
  w = np.arange(3.0, dtype=np.float32)
  # Each lane's loss sums w_k |x_k|^2 over all gathered k; the 3 lanes' losses add up.
  got = _per_lane_grads(lambda v: jnp.sum(lax.all_gather(v, "i") ** 2 * w[:, None]), x)
  np.testing.assert_allclose(got, 3 * 2 * w[:, None] * x, rtol=1e-5)
  y = _rand(3, 3, 2)
  got = _per_lane_grads(lambda v: jnp.sum(lax.psum_scatter(v, "i") ** 3), y)
  np.testing.assert_allclose(got, np.broadcast_to(3 * y.sum(0) ** 2, y.shape), rtol=1e-4)
  z = _rand(3, 2, 6)
  got = _per_lane_grads(
      lambda v: jnp.sum(jnp.cos(lax.psum_scatter(v, "i", scatter_dimension=1, tiled=True))), z)
  np.testing.assert_allclose(got, np.broadcast_to(-np.sin(z.sum(0)), z.shape), rtol=1e-4,
                             atol=1e-5)
  # Lane d's loss y_d x_d, with y_d = x_src(d): lane i's gradient is x_src(i) + x_dst(i).
  cyc = [(0, 1), (1, 2), (2, 0)]
  got = _per_lane_grads(lambda v: jnp.sum(lax.ppermute(v, "i", cyc) * v), x)
  np.testing.assert_allclose(got, x[[2, 0, 1]] + x[[1, 2, 0]], rtol=1e-5)
  got = _per_lane_grads(lambda v: jnp.sum(lax.ppermute(v, "i", [(0, 1), (1, 2)]) ** 2), x)
  np.testing.assert_allclose(got, 2 * x * np.array([1, 1, 0])[:, None], rtol=1e-5)


def test_grads_of_all_to_all():
  # all_to_all only moves elements: each one's gradient is its weight where it lands.
  x = _rand(3, 3, 2)
  wt = np.arange(6.0, dtype=np.float32).reshape(2, 3)  # out_j[b, i] = x_i[j, b]
  got = _per_lane_grads(lambda v: jnp.sum(lax.all_to_all(v, "i", 0, 1) ** 2 * wt), x)
  np.testing.assert_allclose(got, 2 * x * wt.T[:, None, :], rtol=1e-5)
  y = _rand(3, 2, 6)
  wt = np.arange(12.0, dtype=np.float32).reshape(6, 2)  # out_j[2i:2i+2] = x_i[:, 2j:2j+2]
  got = _per_lane_grads(
      lambda v: jnp.sum(jnp.sin(lax.all_to_all(v, "i", 1, 0, tiled=True)) * wt), y)
  want = np.cos(y) * np.stack([np.tile(wt[2 * i:2 * i + 2], (1, 3)) for i in range(3)])
  np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_jvp_and_vjp_inside_vmap():
  x, t = _rand(3, 2, 6), _rand(3, 2, 6)
  f = lambda v: lax.psum_scatter(v ** 2, "i", scatter_dimension=1, tiled=True)
  out, tan = vmapped(lambda x, t: ember.jvp(f, (x,), (t,)))(x, t)
  np.testing.assert_allclose(out, np_psum_scatter(x ** 2, 1, True), rtol=1e-5)
  np.testing.assert_allclose(tan, np_psum_scatter(2 * x * t, 1, True), rtol=1e-4, atol=1e-5)
  y, c = _rand(3, 3, 2), _rand(3, 3, 2)
  g = vmapped(lambda y, c: ember.vjp(lambda v: lax.all_to_all(v, "i", 0, 0), y)[1](c)[0])(y, c)
  np.testing.assert_allclose(g, np_all_to_all(c, 0, 0, False))


def test_grad_inside_two_named_vmaps_and_through_jit():
  x = _rand(2, 3, 4)
  got = _vmap_ij(ember.grad(lambda v: jnp.sum(lax.psum(v, ("i", "j")) * v)))(x)
  np.testing.assert_allclose(got, np.broadcast_to(2 * x.sum((0, 1)), x.shape), rtol=1e-5)
  y = _rand(3, 4)
  loss = ember.jit(lambda v: jnp.sum(lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]) * v ** 2))
  got = vmapped(ember.grad(loss))(y)
  # The two terms nearly cancel in some entries: float32 rounding of each needs an atol.
  np.testing.assert_allclose(got, 2 * y * y[[2, 0, 1]] + y[[1, 2, 0]] ** 2, rtol=1e-5, atol=1e-6)


def test_no_derivatives_of_pmax_and_axis_index():
  with pytest.raises(NotImplementedError, match="'pmax'"):
    vmapped(ember.grad(lambda x: lax.pmax(x, "i")))(np.arange(3.0))
  with pytest.raises(NotImplementedError, match="'pmin'"):
    ember.grad(lambda x: jnp.sum(vmapped(lambda v: lax.pmin(v, "i"))(x)))(np.arange(3.0))
  got = vmapped(ember.grad(lambda x: x * lax.axis_index("i")))(np.arange(3.0))
  np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])


# --- errors -----------------------------------------------------------------------------------

def test_unbound_axis_names():
  x = np.ones(3, np.float32)
  with pytest.raises(NameError, match="^unbound axis name: j$"):
    lax.psum(x, "j")
  with pytest.raises(NameError, match="^unbound axis name: j$"):
    lax.psum(1, "j")
  traced = ("^Found an unbound axis name: j. To fix this, please call {} under "
            "`jax.shard_map`.$")
  with pytest.raises(NameError, match=traced.format("psum")):
    ember.jit(lambda x: lax.psum(x, "j"))(x)
  with pytest.raises(NameError, match=traced.format("ppermute")):
    vmapped(lambda x: lax.ppermute(x, "j", [(0, 1)]))(x)
  with pytest.raises(NameError, match=traced.format("axis_index")):
    ember.make_jaxpr(lambda x: lax.axis_index("j"))(x)
  for f in (lambda v: lax.all_gather(v, "j"), lambda v: lax.psum_scatter(v, "j"),
            lambda v: lax.all_to_all(v, "j", 0, 0)):
    with pytest.raises(NameError, match="^unbound axis name: j$"):
      vmapped(f)(x)


@pytest.mark.parametrize("f,exc,msg", [
    (lambda v: lax.all_gather(v, "i", axis=2), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda v: lax.all_gather(v[0], "i", tiled=True), ValueError,
     "axis 0 is out of bounds for array of dimension 0"),
    (lambda v: lax.psum_scatter(v, "i"), ValueError,
     "reduce_scatter operand scatter dimension size 4 must match shard count 3"),
    (lambda v: lax.psum_scatter(v, "i", tiled=True), ValueError,
     "tiled reduce_scatter operand scatter dimension size 4 must be divisible by shard_count 3"),
    (lambda v: lax.all_to_all(v, "i", 0, 0), ValueError,
     ("all_to_all requires the size of the mapped axis axis_name to equal "
      "x.shape\\[split_axis\\], but they are 3 and 4 respectively.")),
    (lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), ValueError,
     ("The size of all_to_all split_axis \\(4\\) has to be divisible by the size of the "
      "named axis i \\(3\\)")),
    (lambda v: lax.ppermute(v, "i", [(0, 1), (0, 2)]), ValueError,
     "ppermute sources and destinations must be unique, got \\(\\(0, 1\\), \\(0, 2\\)\\)."),
    (lambda v: lax.ppermute(v, "i", [(0, 5)]), IndexError, "out of bounds for axis"),
    (lambda v: lax.ppermute(v, "i", [(0, 1, 2)]), ValueError, "pairs"),
    (lambda v: lax.pshuffle(v, "i", [2, 0, 0]), ValueError,
     "`perm` does not represent a permutation: \\[2, 0, 0\\]"),
    (lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1, 2]]), NotImplementedError,
     "axis_index_groups not supported in vmap"),
    (lambda v: lax.psum(v, "i", axis_index_groups=[[0], [0, 2]]), ValueError,
     "axis_index_groups must cover all indices exactly once"),
    (lambda v: lax.psum(v, ("i", 0), axis_index_groups=[[0, 1, 2]]), ValueError,
     "only supported for sums over just named axes"),
    (lambda v: lax.psum(v, ("i", "i")), ValueError, "duplicate value in 'axes'"),
    (lambda v: lax.psum(v, ("i", 1)), ValueError, "out-of-bounds"),
    (lambda v: lax.all_gather(v, "i", axis_index_groups=[[0, 1, 2]]), NotImplementedError,
     "axis_index_groups not supported in vmap"),
])
def test_bad_arguments(f, exc, msg):
  with pytest.raises(exc, match=msg):
    vmapped(f)(np.ones((3, 4), np.float32))


def test_unsupported_multi_axis_collectives_and_lowering():
  x = np.ones((2, 3, 6), np.float32)
  with pytest.raises(NotImplementedError, match="all_gather over several vmapped axes"):
    _vmap_ij(lambda v: lax.all_gather(v, ("i", "j")))(x)
  with pytest.raises(NotImplementedError, match="ppermute over several vmapped axes"):
    _vmap_ij(lambda v: lax.ppermute(v, ("i", "j"), [(0, 1)]))(x)
  # A named collective reaching XLA (only possible by binding it directly) explains itself.
  bind = lambda v: lax.psum_p.bind(v, axes=("i",), axis_index_groups=None)
  with pytest.raises(NotImplementedError, match="shard_map"):
    ember.jit(bind)(x)
