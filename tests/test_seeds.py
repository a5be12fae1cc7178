"""The seed pages' examples (those this issue covers), run as a user would run them."""
from functools import partial

import numpy as np
import pytest

import ember as jax
import ember.numpy as jnp
from ember import jit, lax, make_jaxpr


def test_000_eager_vs_jit_agree():
  def np_function(x):
    return np.sin(np.cos(x)) * np.tanh(x)

  def jnp_function(x):
    return jnp.sin(jnp.cos(x)) * jnp.tanh(x)

  jit_function = jax.jit(jnp_function)
  x_np = np.ones((1000, 1000))
  x_jnp = jnp.ones((1000, 1000))
  out = jit_function(x_jnp).block_until_ready()
  assert out.dtype == jnp.float32 and out.shape == (1000, 1000)
  np.testing.assert_allclose(np.asarray(out), np_function(x_np), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(jnp_function(x_jnp)), np.asarray(out), rtol=1e-6)


def test_000_immutable_update():
  x = jnp.array([1, 2, 3])
  y = x.at[0].set(10)
  assert x.tolist() == [1, 2, 3] and y.tolist() == [10, 2, 3]


def test_000_pytree_map():
  params = {"layer1": {"w": jnp.array([1, 1]), "b": 2}, "layer2": {"w": 3, "b": 4}}
  new = jax.tree.map(lambda x: x * 2, params)
  assert new["layer1"]["w"].tolist() == [2, 2]
  assert (new["layer1"]["b"], new["layer2"]["w"], new["layer2"]["b"]) == (4, 6, 8)


def test_001_linspace_plot_values_and_type():
  x_np = np.linspace(0, 10, 1000)
  x_jnp = jnp.linspace(0, 10, 1000)
  y_jnp = 2 * jnp.sin(x_jnp) * jnp.cos(x_jnp)
  np.testing.assert_allclose(np.asarray(y_jnp), 2 * np.sin(x_np) * np.cos(x_np), atol=1e-5)
  assert type(x_jnp).__name__ == "ArrayImpl"
  assert isinstance(x_jnp, jax.Array) and isinstance(x_jnp, jnp.ndarray)


def test_001_immutable_error_and_at_set():
  x = jnp.arange(10)
  with pytest.raises(TypeError, match=r"JAX arrays are immutable.*x = x.at\[idx\].set\(y\)"):
    x[0] = 10
  y = x.at[0].set(10)
  assert str(x) == "[0 1 2 3 4 5 6 7 8 9]"
  assert str(y) == "[10  1  2  3  4  5  6  7  8  9]"


def test_001_numpy_promotes_lax_does_not():
  assert repr(jnp.add(1, 1.0)) == "Array(2., dtype=float32, weak_type=True)"
  with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes"):
    lax.add(1, 1.0)
  assert repr(lax.add(jnp.float32(1), 1.0)) == "Array(2., dtype=float32)"


def test_001_convolve():
  x = jnp.array([1, 2, 1])
  y = jnp.ones(10)
  assert repr(jnp.convolve(x, y)) == \
      "Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)"


def test_001_norm_jit_matches_eager():
  def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)

  norm_compiled = jit(norm)
  np.random.seed(1701)
  X = jnp.array(np.random.rand(10000, 10))
  assert np.allclose(norm(X), norm_compiled(X), atol=1e-6)


def test_001_boolean_index_eager_and_jit():
  def get_negatives(x):
    return x[x < 0]

  raw = np.random.RandomState(0).randn(10).astype(np.float32)
  x = jnp.array(raw)
  np.testing.assert_array_equal(np.asarray(get_negatives(x)), raw[raw < 0])
  with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                     match=r"Array boolean indices must be concrete; got bool\[10\]"):
    jit(get_negatives)(x)


def test_001_tracers_print_and_jaxpr(capsys):
  @jit
  def f(x, y):
    print("Running f():")
    print(f"  x = {x}")
    print(f"  y = {y}")
    result = jnp.dot(x + 1, y + 1)
    print(f"  result = {result}")
    return result

  x = np.random.randn(3, 4)
  y = np.random.randn(4)
  out = f(x, y)
  np.testing.assert_allclose(np.asarray(out), np.dot(x + 1, y + 1), rtol=1e-5)
  printed = capsys.readouterr().out
  assert "x = Traced<ShapedArray(float32[3,4])>with<DynamicJaxprTrace>" in printed
  assert "result = Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace>" in printed
  f(np.random.randn(3, 4), np.random.randn(4))
  assert capsys.readouterr().out == ""  # cached: no retrace

  def g(x, y):
    return jnp.dot(x + 1, y + 1)

  assert str(make_jaxpr(g)(x, y)) == (
      "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
      "    c:f32[3,4] = add a 1.0:f32[]\n"
      "    d:f32[4] = add b 1.0:f32[]\n"
      "    e:f32[3] = dot_general[\n"
      "      dimension_numbers=(([1], [0]), ([], []))\n"
      "      preferred_element_type=float32\n"
      "    ] c d\n"
      "  in (e,) }")


def test_001_static_argnums():
  @jit
  def f(x, neg):
    return -x if neg else x

  with pytest.raises(jax.errors.TracerBoolConversionError,
                     match="depends on the value of the argument neg"):
    f(1, True)

  @partial(jit, static_argnums=(1,))
  def g(x, neg):
    return -x if neg else x

  assert repr(g(1, True)) == "Array(-1, dtype=int32, weak_type=True)"
  assert repr(g(1, False)) == "Array(1, dtype=int32, weak_type=True)"


def test_001_static_vs_traced_operations():
  @jit
  def f(x):
    return x.reshape(jnp.array(x.shape).prod())

  x = jnp.ones((2, 3))
  with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values of "
                                      "integer type"):
    f(x)

  @jit
  def g(x):
    return x.reshape((np.prod(x.shape),))

  assert repr(g(x)) == "Array([1., 1., 1., 1., 1., 1.], dtype=float32)"


def test_002_device_api():
  dev = jax.devices()[1]
  x = jnp.zeros(3, device=dev)
  assert x.device == dev
  y = jnp.ones_like(x)
  assert y.device == dev
  z = (x + y).to_device(jax.devices()[2])
  assert z.device == jax.devices()[2]
  with pytest.raises(ValueError, match="incompatible devices"):
    x + z
  assert x.__array_namespace__() is jnp
