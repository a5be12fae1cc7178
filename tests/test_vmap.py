"""vmap's API (in_axes/out_axes/pytrees/kwargs/axis_size/nesting), its errors, the batching of
call primitives (jit, custom_jvp, custom_vjp, checkpoint) and the composition matrix with grad
and jit that users rely on (per-example gradients, jacobians on vmap)."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax

from batch_checks import check_batch, stacked_loop

rng = np.random.RandomState(0)


@pytest.fixture(autouse=True)
def _reseed():
  rng.seed(0)  # the same draws whichever tests ran before in this process


def randn(*shape):
  return rng.randn(*shape).astype(np.float32)


# --- in_axes / out_axes ------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes", [0, 1, -1, (0, None), (1, 0), (None, -1)])
def test_in_axes_variations(in_axes):
  x, y = randn(4, 4), randn(4, 4)
  check_batch(lambda a, b: jnp.sin(a) * b + 1.0, (x, y), in_axes)


@pytest.mark.parametrize("out_axes", [0, 1, -1, -2])
def test_out_axes_variations(out_axes):
  check_batch(lambda a: jnp.cos(a) * 2.0, (randn(3, 4, 5),), 0, out_axes)


def test_seed_batch_predict_shape():
  def predict(W, b, x):
    return jnp.dot(W, x) + b
  W, b, batch_x = jnp.ones((3, 4)), jnp.ones(3), jnp.ones((10, 4))
  out = ember.vmap(predict, in_axes=(None, None, 0))(W, b, batch_x)
  assert out.shape == (10, 3)
  np.testing.assert_array_equal(np.asarray(out), np.full((10, 3), 5.0, np.float32))


def test_pytree_in_axes_prefix_and_none_leaves():
  params = {"w": randn(3), "b": randn(5, 3)}
  xs = randn(3, 5)

  def f(p, x):
    return {"y": p["w"] * x[:, None].sum() + p["b"][0], "z": (x * 2.0, p["w"])}

  out = ember.vmap(f, in_axes=({"w": None, "b": 0}, 1), out_axes={"y": 0, "z": (1, None)})(
      params, xs)
  for i in range(5):
    ref = f({"w": params["w"], "b": params["b"][i]}, xs[:, i])
    np.testing.assert_allclose(np.asarray(out["y"][i]), np.asarray(ref["y"]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out["z"][0][:, i]), np.asarray(ref["z"][0]))
  np.testing.assert_array_equal(np.asarray(out["z"][1]), params["w"])


def test_list_in_axes_and_tuple_arguments():
  a, b = randn(4, 2), randn(2, 4)
  out = ember.vmap(lambda t: t[0] + t[1].T, in_axes=[(0, 1)])((a, b))
  np.testing.assert_allclose(np.asarray(out), a + b.T, rtol=1e-6)


def test_kwargs_are_batched_along_axis_0():
  out = ember.vmap(lambda x, y: x * y, in_axes=(1,))(randn(2, 3), y=np.arange(3.0, dtype="f"))
  assert out.shape == (3, 2)


def test_axis_size_without_batched_inputs():
  out = ember.vmap(lambda: jnp.float32(1.0), axis_size=3)()
  np.testing.assert_array_equal(np.asarray(out), np.ones(3, np.float32))
  out = ember.vmap(lambda x: x + 1.0, in_axes=None, axis_size=2)(jnp.arange(3.0))
  assert out.shape == (2, 3)


def test_unbatched_output_is_broadcast():
  out = ember.vmap(lambda x: (x, jnp.float32(7.0)))(jnp.arange(3.0))
  np.testing.assert_array_equal(np.asarray(out[1]), np.full(3, 7.0, np.float32))
  out = ember.vmap(lambda x, y: y, in_axes=(0, None), out_axes=1)(jnp.ones(3), jnp.ones(2))
  assert out.shape == (2, 3)


def test_python_scalars_and_numpy_inputs():
  check_batch(lambda x, s: x * s, (randn(4), 3.0), (0, None))
  np.testing.assert_allclose(np.asarray(ember.vmap(jnp.sin)(np.arange(3.0))),
                             np.sin(np.arange(3.0)), rtol=1e-6)


def test_nested_vmap_any_depth():
  x = randn(2, 3, 4)
  f = ember.vmap(ember.vmap(ember.vmap(lambda v: v * 2.0 + 1.0)))
  np.testing.assert_allclose(np.asarray(f(x)), x * 2 + 1, rtol=1e-6)
  g = ember.vmap(ember.vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))
  a, b = randn(3), randn(5)
  np.testing.assert_allclose(np.asarray(g(a, b)), a[:, None] * b[None, :], rtol=1e-6)


def test_vmap_result_printing_and_jaxpr_matches_jax():
  jaxpr = ember.make_jaxpr(ember.vmap(lambda x: jnp.sin(x) + 1.0, in_axes=1))(jnp.ones((3, 4)))
  assert str(jaxpr) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[3,4] = sin a\n"
      "    c:f32[3,4] = add b 1.0:f32[]\n"
      "    d:f32[4,3] = transpose[permutation=(1, 0)] c\n"
      "  in (d,) }")


# --- errors -----------------------------------------------------------------------------------

def test_inconsistent_sizes_name_the_arguments():
  with pytest.raises(ValueError) as e:
    ember.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
  assert str(e.value) == (
      "vmap got inconsistent sizes for array axes to be mapped:\n"
      "  * one axis had size 3: axis 0 of argument a of type float32[3];\n"
      "  * one axis had size 4: axis 0 of argument b of type float32[4]")


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: ember.vmap(lambda a: a, in_axes=(0, 0))(jnp.ones(3)), ValueError,
     "got len(in_axes)=2, len(args)=1"),
    (lambda: ember.vmap(lambda a: a, in_axes=2)(jnp.ones((3, 4))), ValueError,
     "vmap was requested to map its argument along axis 2, which implies that its rank should "
     "be at least 3, but is only 2 (its shape is (3, 4))"),
    (lambda: ember.vmap(lambda a: a, in_axes=-3)(jnp.ones((3, 4))), ValueError,
     "along axis -3, which implies that its rank should be at least 3"),
    (lambda: ember.vmap(lambda a: a, out_axes=None)(jnp.ones(3)), ValueError,
     "at vmap out_axes, got axis spec None but output was batched on axis 0"),
    (lambda: ember.vmap(lambda a: a, out_axes=2)(jnp.ones((3, 4))), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda: ember.vmap(lambda a: a, in_axes=None)(jnp.ones(3)), ValueError,
     "vmap must have at least one non-None value in in_axes"),
    (lambda: ember.vmap(lambda a: a, in_axes=({"a": 0},))({"b": jnp.ones(3)}), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value"),
    (lambda: ember.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(jnp.ones(3)), ValueError,
     "vmap out_axes specification must be a tree prefix"),
    (lambda: ember.vmap(lambda a: a)(1.0), ValueError,
     "along axis 0, which implies that its rank should be at least 1, but is only 0"),
    (lambda: ember.vmap(lambda: 1.0)(), ValueError,
     "vmap wrapped function must be passed at least one argument"),
    (lambda: ember.vmap(lambda a: a, in_axes="a")(jnp.ones(3)), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries"),
    (lambda: ember.vmap(lambda a: a, in_axes=(0.5,))(jnp.ones(3)), TypeError,
     "vmap in_axes must be an int, None, or (nested) container"),
    (lambda: ember.vmap(3), TypeError, "Expected a callable value, got 3"),
    (lambda: ember.vmap(lambda a: a, in_axes=0, axis_size=4)(jnp.ones(3)), ValueError,
     "inconsistent sizes"),
])
def test_bad_input(call, exc, msg):
  with pytest.raises(exc) as e:
    call()
  assert msg in str(e.value)


# --- call primitives --------------------------------------------------------------------------

def test_vmap_of_jit_compiles_one_batched_program():
  f = ember.jit(lambda x, y: jnp.sin(x) * y)
  jaxpr = ember.make_jaxpr(ember.vmap(f, in_axes=(0, None)))(jnp.ones((5, 3)), jnp.ones(3))
  eqns = jaxpr.jaxpr.eqns
  assert len(eqns) == 1 and eqns[0].primitive.name == "jit"
  assert eqns[0].params["jaxpr"].out_avals[0].shape == (5, 3)
  check_batch(f, (randn(5, 3), randn(3)), (0, None))
  check_batch(f, (randn(3, 5), randn(5, 3)), (1, 0))


def test_jit_of_vmap_and_vmap_of_jit_agree():
  f = lambda x: jnp.tanh(x) * x  # noqa: E731
  x = randn(6, 2)
  a = ember.jit(ember.vmap(f))(x)
  b = ember.vmap(ember.jit(f))(x)
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(a), np.tanh(x) * x, rtol=1e-6)


def test_custom_jvp_under_vmap():
  @ember.custom_jvp
  def f(x, y):
    return jnp.sin(x) * y

  @f.defjvp
  def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return f(x, y), 10.0 * jnp.cos(x) * y * tx + jnp.sin(x) * ty

  xs = randn(4)
  check_batch(f, (xs, 2.0), (0, None))
  g = ember.vmap(ember.grad(f), in_axes=(0, None))(xs, 2.0)
  np.testing.assert_allclose(np.asarray(g), 20.0 * np.cos(xs), rtol=1e-5)
  g2 = ember.grad(lambda x: ember.vmap(f, in_axes=(0, None))(x, 2.0).sum())(xs)
  np.testing.assert_allclose(np.asarray(g2), 20.0 * np.cos(xs), rtol=1e-5)
  _, t = ember.jvp(ember.vmap(f, in_axes=(0, None)), (xs, 2.0), (np.ones(4, "f"), 0.0))
  np.testing.assert_allclose(np.asarray(t), 20.0 * np.cos(xs), rtol=1e-5)


def test_custom_vjp_under_vmap_sums_cotangents_of_unbatched_inputs():
  @ember.custom_vjp
  def f(x, y):
    return x * y

  f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, c: (100.0 * c * r[1], c * r[0]))
  xs = randn(5)
  # np.float32: eagerly, as in JAX, f runs on NumPy values and a typed 3.0 would promote to f64
  check_batch(f, (xs, np.float32(3.0)), (0, None))
  gx, gy = ember.vmap(ember.grad(f, (0, 1)), in_axes=(0, None))(xs, 3.0)
  np.testing.assert_allclose(np.asarray(gx), np.full(5, 300.0), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(gy), xs, rtol=1e-6)
  gx, gy = ember.grad(lambda x, y: ember.vmap(f, (0, None))(x, y).sum(), (0, 1))(xs, 3.0)
  np.testing.assert_allclose(np.asarray(gx), np.full(5, 300.0), rtol=1e-6)
  np.testing.assert_allclose(float(gy), xs.sum(), rtol=1e-5)


def test_checkpoint_under_vmap():
  f = ember.checkpoint(lambda x: jnp.sin(x) * x)
  xs = randn(4)
  check_batch(f, (xs,))
  g = ember.grad(lambda x: ember.vmap(f)(x).sum())(xs)
  np.testing.assert_allclose(np.asarray(g), np.cos(xs) * xs + np.sin(xs), rtol=1e-5)


def test_stop_gradient_under_vmap():
  g = ember.vmap(ember.grad(lambda x: x * lax.stop_gradient(x)))(jnp.arange(3.0))
  np.testing.assert_array_equal(np.asarray(g), np.arange(3.0, dtype=np.float32))


# --- the composition matrix --------------------------------------------------------------------

def _mlp_params():
  return {"w1": randn(4, 8), "b1": randn(8), "w2": randn(8, 2), "b2": randn(2)}


def _loss(params, x, y):
  h = jnp.tanh(x @ params["w1"] + params["b1"])
  out = h @ params["w2"] + params["b2"]
  return jnp.sum((out - y) ** 2)


def _loop_grads(params, xs, ys):
  grads = [ember.grad(_loss)(params, x, y) for x, y in zip(xs, ys)]
  return {k: np.stack([np.asarray(g[k]) for g in grads]) for k in params}


def _assert_tree_close(a, b, rtol=1e-5, atol=1e-5):
  assert set(a) == set(b)
  for k in a:
    np.testing.assert_allclose(np.asarray(a[k]), np.asarray(b[k]), rtol=rtol, atol=atol)


@pytest.mark.parametrize("wrap", ["plain", "jit_outside", "jit_inside"])
def test_per_example_gradients_equal_a_loop(wrap):
  params, xs, ys = _mlp_params(), randn(6, 4), randn(6, 2)
  g = ember.grad(ember.jit(_loss)) if wrap == "jit_inside" else ember.grad(_loss)
  f = ember.vmap(g, in_axes=(None, 0, 0))
  if wrap == "jit_outside":
    f = ember.jit(f)
  _assert_tree_close(f(params, xs, ys), _loop_grads(params, xs, ys))


def test_grad_of_vmap_of_jit():
  params, xs, ys = _mlp_params(), randn(6, 4), randn(6, 2)
  batched = ember.vmap(ember.jit(_loss), in_axes=(None, 0, 0))
  g = ember.grad(lambda p: batched(p, xs, ys).sum())(params)
  loop = _loop_grads(params, xs, ys)
  _assert_tree_close(g, {k: v.sum(0) for k, v in loop.items()}, rtol=1e-4)


def test_vmap_of_vmap_of_grad():
  f = lambda x, y: jnp.sin(x) * y ** 2  # noqa: E731
  xs, ys = randn(3, 4), randn(3, 4)
  g = ember.vmap(ember.vmap(ember.grad(f, (0, 1))))(xs, ys)
  np.testing.assert_allclose(np.asarray(g[0]), np.cos(xs) * ys ** 2, rtol=1e-5)
  np.testing.assert_allclose(np.asarray(g[1]), 2 * np.sin(xs) * ys, rtol=1e-5)


def test_jacobians_on_vmap_match_finite_structure():
  def f(p):
    return {"a": jnp.sin(p["x"]) * p["y"][0], "b": p["x"] @ p["m"]}
  p = {"x": randn(3), "y": randn(2), "m": randn(3, 2)}
  jr = ember.jacrev(f)(p)
  jf = ember.jacfwd(f)(p)
  assert jr["a"]["x"].shape == (3, 3) and jr["b"]["m"].shape == (2, 3, 2)
  for out in ("a", "b"):
    for inp in ("x", "y", "m"):
      np.testing.assert_allclose(np.asarray(jr[out][inp]), np.asarray(jf[out][inp]),
                                 rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(np.asarray(jr["a"]["x"]), np.diag(np.cos(p["x"]) * p["y"][0]),
                             rtol=1e-5, atol=1e-7)
  expected_m = np.zeros((2, 3, 2), np.float32)
  for j in range(2):
    expected_m[j, :, j] = p["x"]
  np.testing.assert_allclose(np.asarray(jf["b"]["m"]), expected_m, rtol=1e-6)


def test_jacobian_is_one_batched_program():
  jaxpr = ember.make_jaxpr(ember.jacrev(lambda x: jnp.sin(x) * x))(jnp.ones(50))
  assert len(jaxpr.jaxpr.eqns) < 20  # not one pullback per output element
  h = ember.hessian(lambda x: jnp.sum(x ** 3))(jnp.arange(1.0, 4.0))
  np.testing.assert_allclose(np.asarray(h), np.diag([6.0, 12.0, 18.0]), rtol=1e-6)


def test_jacfwd_has_aux_and_argnums():
  jac, aux = ember.jacfwd(lambda x, y: (x * y, x + 1.0), argnums=(0, 1), has_aux=True)(
      jnp.arange(2.0), jnp.float32(3.0))
  np.testing.assert_allclose(np.asarray(jac[0]), 3 * np.eye(2))
  np.testing.assert_allclose(np.asarray(jac[1]), [0.0, 1.0])
  np.testing.assert_allclose(np.asarray(aux), [1.0, 2.0])


def test_jit_of_vmap_of_grad_against_stacking():
  f = lambda w, x: jnp.sum(jnp.tanh(w * x))  # noqa: E731
  w, xs = randn(3), randn(5, 3)
  got = ember.jit(ember.vmap(ember.grad(f), in_axes=(None, 0)))(w, xs)
  expected = stacked_loop(ember.grad(f), (w, xs), (None, 0))
  np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


def test_register_vmappable_refuses_what_it_cannot_map():
  from ember.transforms.batching import register_vmappable

  class Box:
    pass
  with pytest.raises(NotImplementedError, match="spec_type"):
    register_vmappable(Box, str, int, lambda *a: None, lambda *a: None, None)
  with pytest.raises(NotImplementedError, match="make_iota"):
    register_vmappable(Box, int, int, lambda *a: None, lambda *a: None, lambda *a: None)
