"""The autodiff transforms: jvp, linearize, vjp, grad, value_and_grad, linear_transpose, and
their composition with jit (rules of individual primitives are tested in test_ad_*.py)."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp


def f(x):
  return jnp.sin(x) * x


def df(x):
  return np.cos(x) * x + np.sin(x)


def test_grad_value_and_grad_jvp_vjp_linearize_agree():
  x = 1.3
  np.testing.assert_allclose(float(ember.grad(f)(x)), df(x), rtol=1e-6)
  v, g = ember.value_and_grad(f)(x)
  np.testing.assert_allclose([float(v), float(g)], [np.sin(x) * x, df(x)], rtol=1e-6)
  y, t = ember.jvp(f, (x,), (2.0,))
  np.testing.assert_allclose(float(t), 2 * df(x), rtol=1e-6)
  y, f_vjp = ember.vjp(f, x)
  (ct,) = f_vjp(3.0)
  np.testing.assert_allclose(float(ct), 3 * df(x), rtol=1e-6)
  y, f_jvp = ember.linearize(f, x)
  np.testing.assert_allclose(float(f_jvp(0.5)), 0.5 * df(x), rtol=1e-6)


def test_grad_keeps_weak_type_and_prints_like_jax():
  assert repr(ember.grad(lambda x: x * x)(3.0)) == "Array(6., dtype=float32, weak_type=True)"
  assert str(ember.make_jaxpr(ember.grad(f))(1.0)) == (
      "{ lambda ; a:f32[]. let\n"
      "    b:f32[] = sin a\n"
      "    c:f32[] = cos a\n"
      "    _:f32[] = mul b a\n"
      "    d:f32[] = mul b 1.0:f32[]\n"
      "    e:f32[] = mul 1.0:f32[] a\n"
      "    f:f32[] = mul e c\n"
      "    g:f32[] = add_any d f\n"
      "  in (g,) }")
  # Through jit: the forward call returns residuals, the transposed call consumes them.
  assert str(ember.make_jaxpr(ember.grad(ember.jit(f)))(1.0)) == (
      "{ lambda ; a:f32[]. let\n"
      "    _:f32[] b:f32[] c:f32[] = jit[\n"
      "      name=f\n"
      "      jaxpr={ lambda ; a:f32[]. let\n"
      "          c:f32[] = sin a\n"
      "          b:f32[] = cos a\n"
      "          _:f32[] = mul c a\n"
      "        in (_, b, c) }\n"
      "    ] a\n"
      "    d:f32[] = jit[\n"
      "      name=f\n"
      "      jaxpr={ lambda ; b:f32[] a:f32[] c:f32[] e:f32[]. let\n"
      "          f:f32[] = mul c e\n"
      "          g:f32[] = mul e a\n"
      "          h:f32[] = mul g b\n"
      "          d:f32[] = add_any f h\n"
      "        in (d,) }\n"
      "    ] b a c 1.0:f32[]\n"
      "  in (d,) }")


def test_no_perturbation_confusion():
  assert float(ember.grad(lambda x: ember.grad(lambda y: x * y)(1.0))(2.0)) == 1.0
  out = ember.jvp(lambda x: ember.jvp(lambda y: x * y, (1.0,), (1.0,))[1], (2.0,), (1.0,))
  assert [float(v) for v in out] == [2.0, 1.0]


def test_higher_order():
  x = 0.7
  d2 = -np.sin(x) * x + 2 * np.cos(x)
  np.testing.assert_allclose(float(ember.grad(ember.grad(f))(x)), d2, rtol=1e-5)
  np.testing.assert_allclose(float(ember.jvp(ember.grad(f), (x,), (1.0,))[1]), d2, rtol=1e-5)


def test_pytrees_and_argnums():
  params = {"w": jnp.array([1.0, 2.0]), "b": 0.5}
  loss = lambda p, x: jnp.sum((p["w"] * x + p["b"]) ** 2)
  x = jnp.array([3.0, -1.0])
  g = ember.grad(loss)(params, x)
  r = np.array([1.0 * 3 + 0.5, 2.0 * -1 + 0.5])
  np.testing.assert_allclose(np.asarray(g["w"]), 2 * r * np.array([3.0, -1.0]), rtol=1e-6)
  np.testing.assert_allclose(float(g["b"]), 2 * r.sum(), rtol=1e-6)
  gw, gx = ember.grad(loss, argnums=(0, 1))(params, x)
  np.testing.assert_allclose(np.asarray(gx), 2 * r * np.array([1.0, 2.0]), rtol=1e-6)
  (val, aux), g = ember.value_and_grad(lambda p, x: (loss(p, x), {"n": 2}), has_aux=True)(
      params, x)
  assert aux == {"n": 2}
  g2, aux2 = ember.grad(lambda p, x: (loss(p, x), x * 2), has_aux=True)(params, x)
  np.testing.assert_allclose(np.asarray(aux2), [6.0, -2.0])


def test_composition_with_jit():
  jf = ember.jit(f)
  x = 0.9
  for g in (ember.grad(jf), ember.jit(ember.grad(f)), ember.jit(ember.grad(jf))):
    np.testing.assert_allclose(float(g(x)), df(x), rtol=1e-6)
  np.testing.assert_allclose(float(ember.jvp(jf, (x,), (1.0,))[1]), df(x), rtol=1e-6)
  np.testing.assert_allclose(float(ember.grad(ember.grad(jf))(x)),
                             -np.sin(x) * x + 2 * np.cos(x), rtol=1e-5)
  traces = []

  @ember.jit
  def h(y):
    traces.append(1)
    return jnp.sin(y) * y

  ember.grad(h)(0.3)
  ember.grad(h)(0.4)
  assert len(traces) == 1  # differentiating through jit does not re-run the Python


def test_linear_transpose():
  t = ember.linear_transpose(lambda x: jnp.stack([2.0 * x, -x]), jnp.ones(3))
  (out,) = t(jnp.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]))
  np.testing.assert_allclose(np.asarray(out), [1.0, 3.0, 5.0])


def test_integer_inputs_and_float0():
  with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
    ember.grad(lambda x: x * 2.0)(1)
  g = ember.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
  assert float(g[0]) == 3.0 and g[1].dtype == ember.dtypes.float0
  y, t = ember.jvp(lambda n: n * 2, (3,), (np.zeros((), ember.dtypes.float0),))
  assert int(y) == 6 and t.dtype == ember.dtypes.float0


def test_errors():
  with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
    ember.grad(lambda x: x * jnp.ones(3))(1.0)
  with pytest.raises(TypeError, match="argnums=3 requires at least 4 positional arguments"):
    ember.grad(f, argnums=3)(1.0)  # JAX 0.10.2's type and text
  with pytest.raises(TypeError, match="expected function with aux output to return a two-element tuple"):
    ember.grad(lambda x: x * 2.0, has_aux=True)(1.0)
  with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp do not match"):
    ember.jvp(f, (1.0,), (np.int32(1),))
  with pytest.raises(ValueError, match="different primal and tangent shapes"):
    ember.jvp(f, (jnp.ones(2),), (jnp.ones(3),))


def test_jacobians_and_hessian():
  x = jnp.array([1.0, 2.0, 3.0])
  expected = np.diag(2 * np.asarray(x))
  np.testing.assert_allclose(np.asarray(ember.jacrev(lambda v: v ** 2)(x)), expected)
  np.testing.assert_allclose(np.asarray(ember.jacfwd(lambda v: v ** 2)(x)), expected)
  h = ember.hessian(lambda v: jnp.sum(v ** 3))(x)
  np.testing.assert_allclose(np.asarray(h), np.diag(6 * np.asarray(x)), rtol=1e-6)
  # pytree in, matrix out: leaves of shape out.shape + in.shape
  j = ember.jacrev(lambda p: jnp.outer(p["a"], p["b"]))({"a": jnp.ones(2), "b": jnp.ones(3)})
  assert j["a"].shape == (2, 3, 2) and j["b"].shape == (2, 3, 3)
  jf = ember.jacfwd(lambda p: jnp.outer(p["a"], p["b"]))({"a": jnp.ones(2), "b": jnp.ones(3)})
  np.testing.assert_allclose(np.asarray(jf["b"]), np.asarray(j["b"]))


def test_custom_jvp_and_custom_vjp():
  @ember.custom_jvp
  def f(x):
    return jnp.sin(x)

  @f.defjvp
  def f_jvp(primals, tangents):
    return f(primals[0]), 2.0 * tangents[0]

  assert float(ember.grad(f)(0.3)) == 2.0
  assert float(ember.jit(ember.grad(f))(0.3)) == 2.0
  assert float(ember.jvp(f, (0.3,), (1.0,))[1]) == 2.0
  np.testing.assert_allclose(float(f(0.3)), np.sin(0.3), rtol=1e-6)

  @ember.custom_vjp
  def g(x, y):
    return x * y

  g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda res, ct: (ct * 10.0, ct * res[0]))
  gx, gy = ember.grad(g, argnums=(0, 1))(2.0, 3.0)
  assert (float(gx), float(gy)) == (10.0, 2.0)
  assert float(ember.grad(ember.jit(lambda x: g(x, 1.0)))(2.0)) == 10.0
  with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
    ember.jvp(lambda x: g(x, 1.0), (1.0,), (1.0,))


def test_stop_gradient_and_checkpoint():
  assert float(ember.grad(lambda x: x * ember.lax.stop_gradient(x))(3.0)) == 3.0
  cf = ember.checkpoint(f)
  np.testing.assert_allclose(float(ember.grad(cf)(0.6)), df(0.6), rtol=1e-6)
  np.testing.assert_allclose(float(ember.jit(ember.grad(cf))(0.6)), df(0.6), rtol=1e-6)
  text = str(ember.make_jaxpr(ember.grad(cf))(0.6))
  # As JAX: the primal part inline, then one differentiated remat2 that recomputes what the
  # backward pass needs from the primal input and the cotangent.
  assert text.count("remat2[") == 1 and "differentiated=True" in text
  assert "] a 1.0:f32[]" in text


def test_check_grads_passes_and_catches_a_wrong_rule():
  from ember.test_util import check_grads
  check_grads(lambda x, y: jnp.sum(jnp.tanh(x @ y)),
              (np.random.RandomState(0).randn(3, 4).astype(np.float32),
               np.random.RandomState(1).randn(4, 2).astype(np.float32)), order=2)

  @ember.custom_jvp
  def wrong(x):
    return jnp.sin(x)

  wrong.defjvp(lambda p, t: (wrong(p[0]), 3.0 * t[0]))
  with pytest.raises(AssertionError):
    check_grads(wrong, (0.5,), order=1)


def test_jvp_has_aux_returns_plain_values():
  y, t, aux = ember.jvp(lambda x: (jnp.sin(x), {"sq": x * x}), (1.0,), (1.0,), has_aux=True)
  np.testing.assert_allclose([float(y), float(t)], [np.sin(1.0), np.cos(1.0)], rtol=1e-6)
  assert type(aux["sq"]).__name__ == "ArrayImpl" and float(aux["sq"]) == 1.0


def test_grad_through_nested_jit_with_partly_known_inputs():
  """The inner jit's known inputs (a closed-over constant) stay known: its primal part is split
  off, so the transposed program has one linear operand per mul."""
  inner = ember.jit(lambda x, c: jnp.sin(x) * c)
  outer = ember.jit(lambda x: inner(x, jnp.array([1.0, 2.0, 3.0])))
  x = np.arange(1.0, 4.0, dtype=np.float32)
  g = ember.grad(lambda v: jnp.sum(outer(v) ** 2))(x)
  np.testing.assert_allclose(np.asarray(g), 2 * np.sin(x) * np.cos(x) * [1.0, 4.0, 9.0],
                             rtol=1e-5)
  g = ember.grad(ember.jit(lambda v: jnp.max(ember.jit(jnp.sin)(v))))(jnp.arange(3.0))
  np.testing.assert_allclose(np.asarray(g), [0.0, 0.0, np.cos(2.0)], rtol=1e-6)


# --- custom_vjp with non-differentiated arguments (issue 15; values from JAX 0.10.2) ------------

@ember.custom_vjp
def _clip_gradient(lo, hi, x):
  return x


_clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)),
                      lambda res, g: (None, None, jnp.clip(g, res[0], res[1])))


def test_custom_vjp_leading_arguments_get_no_cotangent_slot_shift():
  f = lambda x: _clip_gradient(-0.75, 0.5, x).sum()
  expected = np.full(3, 0.5, np.float32)
  np.testing.assert_array_equal(ember.grad(f)(jnp.ones(3)), expected)
  np.testing.assert_array_equal(ember.jit(ember.grad(f))(jnp.ones(3)), expected)
  np.testing.assert_array_equal(ember.vmap(ember.grad(f))(jnp.ones((2, 3))),
                                np.broadcast_to(expected, (2, 3)))


def test_custom_vjp_argnums_select_their_own_cotangent():
  @ember.custom_vjp
  def mul(a, b):
    return a * b

  mul.defvjp(lambda a, b: (a * b, (a, b)), lambda r, ct: (r[1] * ct, r[0] * ct))
  g1 = ember.grad(mul, argnums=1)(3., 1.)
  assert isinstance(g1, ember.Array) and g1.weak_type and float(g1) == 3.0  # JAX: an Array
  assert float(ember.grad(mul, argnums=0)(3., 1.)) == 1.0


def test_custom_vjp_none_inside_a_pytree_cotangent_is_a_weak_zero():
  @ember.custom_vjp
  def f(d):
    return d["a"] * d["b"]

  f.defvjp(lambda d: (f(d), d), lambda d, g: ({"a": g * d["b"], "b": None},))
  g = ember.grad(f)({"a": 2.0, "b": 5.0})
  assert list(g) == ["a", "b"] and float(g["a"]) == 5.0 and float(g["b"]) == 0.0
  assert g["b"].weak_type
  f.defvjp(lambda d: (f(d), d), lambda d, g: ({"a": g},))
  with pytest.raises(TypeError, match="same container .pytree. structure"):
    ember.grad(f)({"a": 2.0, "b": 5.0})


def test_zero_gradients_keep_the_inputs_weak_type():
  g = ember.grad(lambda x, y: x, argnums=1)(1., 2.)
  assert g.weak_type and float(g) == 0.0
  assert not ember.grad(lambda x, y: x, argnums=1)(1., jnp.float32(2.)).weak_type
  assert ember.grad(jnp.floor)(1.5).weak_type


def test_aux_leaves_that_are_not_jax_values_come_back_unchanged():
  # JAX 0.10.2: grad/value_and_grad/vjp/jvp with has_aux return any Python object in aux as is
  marker = object()
  g, aux = ember.grad(lambda x: (x ** 2, marker), has_aux=True)(3.0)
  assert g == 6.0 and aux is marker
  (v, aux), g = ember.value_and_grad(lambda x: (x ** 2, {"a": marker, "b": x}),
                                     has_aux=True)(3.0)
  assert v == 9.0 and g == 6.0 and aux["a"] is marker and aux["b"] == 3.0
  _, _, aux = ember.vjp(lambda x: (x ** 2, [marker, "name"]), 3.0, has_aux=True)
  assert aux[0] is marker and aux[1] == "name"
  _, _, aux = ember.jvp(lambda x: (x ** 2, (x, marker)), (3.0,), (1.0,), has_aux=True)
  assert aux[1] is marker and not isinstance(aux[0], ember.core.Tracer) and aux[0] == 3.0


def test_checkpoint_traces_keyword_arguments():
  # JAX 0.10.2: keyword arguments of a checkpointed function are traced like positional ones
  # (haiku's hk.remat passes its state that way), and differentiated through
  kinds = []

  def f(x, state=None):
    kinds.append(isinstance(state["p"], ember.core.Tracer))
    return x ** state["p"] * state["w"]

  g = ember.grad(lambda x, w: ember.checkpoint(f)(x, state={"p": jnp.array(2), "w": w}),
                 argnums=(0, 1))
  dx, dw = g(3.0, 0.5)
  assert (float(dx), float(dw)) == (3.0, 9.0) and kinds == [True]
  assert ember.checkpoint(f)(2.0, state={"p": 3, "w": 1.0}) == 8.0 and kinds == [True, True]


@pytest.mark.parametrize("f, want", [
    (lambda w: jnp.sum(ember.jit(jnp.sin)(w) * w), 1.3817732),
    (lambda w: jnp.sum(jnp.where(w > 0, w, 0.0) * w), 2.0),
    (lambda w: jnp.sum(ember.nn.softmax(w) @ w), 1 / 3),
])
def test_grad_of_checkpoint_with_a_call_inside(f, want):
  # JAX 0.10.2's values; a jit inside the checkpointed body returns primal and tangent values
  # from one equation, and the primal one must not be transposed as linear
  w = jnp.ones(3)
  np.testing.assert_allclose(ember.grad(ember.checkpoint(f))(w), np.full(3, want), rtol=1e-6)
  np.testing.assert_allclose(ember.jit(ember.grad(ember.checkpoint(f)))(w), ember.grad(f)(w),
                             rtol=1e-6)
