"""jit: values, caching, static arguments, pytrees, lowering, and tracer-misuse errors."""
import functools
import re

import numpy as np
import pytest

import ember
from ember import lax
from ember import errors


def test_jit_matches_eager_values():
  def f(x, y):
    return lax.mul(lax.sin(x), lax.add(y, 1.0))
  x = np.linspace(-2, 2, 7).astype(np.float32)
  y = np.arange(7, dtype=np.float32)
  expected = np.sin(x) * (y + 1)
  np.testing.assert_allclose(np.asarray(f(x, y)), expected, rtol=1e-6)
  np.testing.assert_allclose(np.asarray(ember.jit(f)(x, y)), expected, rtol=1e-6)


def test_cache_hit_does_not_retrace_and_new_shape_does():
  traces = []

  @ember.jit
  def f(x):
    traces.append(x.shape)
    return lax.mul(x, 2.0)

  f(np.ones(3, np.float32))
  f(np.zeros(3, np.float32))
  assert traces == [(3,)]
  f(np.ones(4, np.float32))
  assert traces == [(3,), (4,)]
  f(np.ones(4, np.int32).astype(np.float32))
  assert len(traces) == 2
  # A weakly typed scalar and a strong one are different signatures.
  f(1.0)
  f(np.float32(1.0))
  assert len(traces) == 4


def test_static_argnums_and_names():
  traces = []

  @functools.partial(ember.jit, static_argnums=(1,))
  def f(x, neg):
    traces.append(neg)
    return lax.neg(x) if neg else x

  assert repr(f(1, True)) == "Array(-1, dtype=int32, weak_type=True)"
  assert repr(f(1, False)) == "Array(1, dtype=int32, weak_type=True)"
  f(2, True)
  assert traces == [True, False]

  g = ember.jit(lambda x, *, k: lax.mul(x, float(k)), static_argnames="k")
  assert float(g(np.float32(2), k=3)) == 6.0
  assert float(g(np.float32(2), k=4)) == 8.0


def test_static_arguments_of_other_types_retrace():
  """As JAX: the cache key of a static argument is its type, hash and equality."""
  seen = []
  f = ember.jit(lambda x, s: seen.append(s) or x, static_argnums=1)
  for s in (2, 2.0, True, 1, np.int32(2), 0.0, -0.0):
    f(1.0, s)
  assert [(type(s), s) for s in seen] == [(int, 2), (float, 2.0), (bool, True), (int, 1),
                                          (np.int32, 2), (float, 0.0)]


def test_unhashable_static_argument_is_a_clear_error():
  f = ember.jit(lambda x, n: x, static_argnums=1)
  with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
    f(1.0, [1, 2])


def test_non_array_argument_is_a_clear_error():
  f = ember.jit(lambda x, s: x)
  with pytest.raises(TypeError, match="non-array argument.*static_argnums"):
    f(1.0, "hello")


def test_pytrees_in_and_out():
  @ember.jit
  def f(params, x):
    return {"out": lax.add(lax.mul(params["w"], x), params["b"]), "aux": (x, None)}

  params = {"w": np.float32(2), "b": np.float32(1)}
  out = f(params, np.float32(3))
  assert float(out["out"]) == 7.0
  assert out["aux"][1] is None
  assert float(out["aux"][0]) == 3.0


def test_closed_over_array_is_a_constant():
  c = ember.device_put(np.arange(3, dtype=np.float32))
  f = ember.jit(lambda x: lax.add(x, c))
  np.testing.assert_array_equal(np.asarray(f(np.ones(3, np.float32))), [1, 2, 3])


def test_keyword_arguments_are_traced():
  f = ember.jit(lambda x, y=1.0: lax.sub(x, y))
  assert float(f(np.float32(5), y=np.float32(2))) == 3.0
  with pytest.raises(TypeError, match="unexpected keyword argument"):
    f(np.float32(5), z=1)


def test_lower_as_text_and_compile():
  f = ember.jit(lambda x: lax.sin(x))
  lowered = f.lower(np.ones((2, 3), np.float32))
  text = lowered.as_text()
  assert "stablehlo.sine" in text and "tensor<2x3xf32>" in text
  compiled = lowered.compile()
  np.testing.assert_allclose(np.asarray(compiled(np.zeros((2, 3), np.float32))), 0)


def test_nested_jit_prints_inner_jaxpr():
  inner = ember.jit(lambda y: lax.mul(y, 3.0))
  jaxpr = ember.make_jaxpr(lambda x: inner(lax.sin(x)))(np.ones(3, np.float32))
  assert str(jaxpr) == (
      "{ lambda ; a:f32[3]. let\n"
      "    b:f32[3] = sin a\n"
      "    c:f32[3] = jit[\n"
      "      name=<lambda>\n"
      "      jaxpr={ lambda ; b:f32[3]. let c:f32[3] = mul b 3.0:f32[] in (c,) }\n"
      "    ] b\n"
      "  in (c,) }")
  assert float(ember.jit(lambda x: inner(lax.sin(x)))(np.float32(0))) == 0.0


def test_tracer_bool_conversion_error_names_function_and_argument():
  @ember.jit
  def f(x, neg):
    return lax.neg(x) if neg else x

  with pytest.raises(errors.TracerBoolConversionError) as info:
    f(1, True)
  msg = str(info.value)
  assert "Attempted boolean conversion of traced array with shape bool[]" in msg
  assert "while tracing the function f at" in msg and "for jit" in msg
  assert "depends on the value of the argument neg" in msg
  assert isinstance(info.value, errors.ConcretizationTypeError)


def test_concretization_errors():
  with pytest.raises(errors.ConcretizationTypeError, match="`int` function"):
    ember.jit(lambda x: int(x))(np.float32(1))
  with pytest.raises(errors.TracerIntegerConversionError):
    ember.jit(lambda x: [1, 2][x])(np.int32(1))
  with pytest.raises(errors.TracerArrayConversionError, match="__array__"):
    ember.jit(lambda x: np.asarray(x))(np.float32(1))


def test_tracer_repr():
  seen = []
  ember.jit(lambda x: seen.append(repr(x)) or x)(np.ones((3, 4), np.float32))
  assert seen == ["Traced<ShapedArray(float32[3,4])>with<DynamicJaxprTrace>"]


def test_escaped_tracer_is_an_error():
  leaked = []
  ember.jit(lambda x: leaked.append(x) or x)(np.float32(1))
  with pytest.raises(errors.UnexpectedTracerError):
    lax.add(leaked[0], 1.0)


def test_disable_jit_runs_python():
  calls = []
  f = ember.jit(lambda x: calls.append(type(x).__name__) or x)
  ember.config.update("jax_disable_jit", True)
  try:
    f(np.float32(1))
  finally:
    ember.config.update("jax_disable_jit", False)
  assert calls == ["float32"]


def test_jit_cache_is_bounded():
  f = ember.jit(lambda x: x)
  for n in range(300):
    f(np.zeros(n % 260 + 1, np.float32))
  assert len(f._cache) <= 256


def test_cached_calls_respect_x64_weak_types_and_commitment():
  import ember.numpy as jnp
  f = ember.jit(lambda x: x + x)
  x = jnp.ones(3)
  for _ in range(3):  # the second and later calls are served from the cache
    assert repr(f(x)) == "Array([2., 2., 2.], dtype=float32)"
    assert repr(f(1.0)) == "Array(2., dtype=float32, weak_type=True)"
    assert not f(x).committed
  with ember.enable_x64():
    assert repr(f(1.0)) == "Array(2., dtype=float64, weak_type=True)"
    assert f(jnp.ones(2)).dtype == np.float64
  assert f(jnp.ones(2)).dtype == np.float32
  d = ember.device_put(x, ember.devices()[4])
  for _ in range(2):
    out = f(d)
    assert out.committed and out.device == ember.devices()[4]
  # Outputs that alias inputs, None leaves and closed-over constants.
  c = jnp.arange(3.0)
  g = ember.jit(lambda a: (a, None, a + c))
  for _ in range(2):
    a, none, b = g(x)
    assert none is None and a.tolist() == [1, 1, 1] and b.tolist() == [1, 2, 3]


def test_cached_calls_with_python_scalars_and_numpy_values():
  # Served by jaxlib's dispatcher after the first call: each value is placed with the
  # canonical dtype and weak type its signature had, and each new value is used.
  import ember.numpy as jnp
  f = ember.jit(lambda x, s: x * s)
  x = jnp.ones(2)
  cases = [(2.0, "[2. 2.]", "float32"), (3, "[3. 3.]", "float32"), (True, "[1. 1.]", "float32"),
           (np.float64(6), "[6. 6.]", "float32"), (np.array([1., 2.]), "[1. 2.]", "float32"),
           (7 + 1j, "[7.+1.j 7.+1.j]", "complex64")]
  for value, text, dtype in cases:
    for _ in range(3):
      out = f(x, value)
      assert str(out) == text and out.dtype == dtype and not out.aval.weak_type
  for s in range(5):
    assert f(x, float(s)).tolist() == [s, s]
  assert repr(ember.jit(lambda s: s + 1)(1.5)) == "Array(2.5, dtype=float32, weak_type=True)"
  with pytest.raises(OverflowError, match="too large to convert to int32"):
    f(x, 2**40)  # the cached int32 signature does not wrap a too-large int
  # jnp functions called with Python scalars (std's correction) stay correct when cached.
  for _ in range(3):
    assert abs(float(jnp.std(jnp.arange(4.), ddof=1)) - 1.2909944) < 1e-6
  # A donated host value gets a buffer of its own every call (shared scalar buffers survive).
  g = ember.jit(lambda x, s: x + s, donate_argnums=1)
  for _ in range(3):
    assert g(x, 1.0).tolist() == [2, 2]
  assert (x + 1.0).tolist() == [2, 2]


def test_deleted_arrays_give_a_clear_error():
  import ember.numpy as jnp
  f = ember.jit(lambda v: v * 2)
  x = jnp.ones(3)
  f(x)
  x.delete()
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    f(x)
  with pytest.raises(RuntimeError, match="Array has been deleted"):
    x + 1


def test_jit_of_a_partial_object_takes_its_functions_name():
  def f(a, b):
    return a * b

  g = ember.jit(functools.partial(f, b=2.))
  assert float(g(3.)) == 6.0 and g.__name__ == "f"


def test_lowered_text_and_compiler_ir_in_each_dialect():
  lowered = ember.jit(lambda x: x + 1).lower(1.)
  hlo = lowered.as_text(dialect="hlo")
  assert hlo.startswith("HloModule") and "add" in hlo
  assert lowered.compiler_ir("hlo").as_hlo_text() == hlo
  assert "stablehlo.add" in lowered.as_text() == lowered.as_text("stablehlo")
  with pytest.raises(ValueError, match="unknown dialect: foo"):
    lowered.as_text(dialect="foo")
  with pytest.raises(NotImplementedError, match="debug_info"):
    lowered.as_text(debug_info=True)


def test_jitted_function_has_the_signature_of_its_function():
  # JAX 0.10.2: inspect.signature(jax.jit(f), follow_wrapped=False) is f's (chex's fake_pmap
  # reads it to turn keyword arguments into positional ones)
  import inspect

  def foo(x, y=2, *, z=3):
    return x

  assert str(inspect.signature(ember.jit(foo), follow_wrapped=False)) == "(x, y=2, *, z=3)"
  assert str(inspect.signature(ember.jit(functools.partial(foo, y=5)),
                               follow_wrapped=False)) == "(x, *, y=5, z=3)"
