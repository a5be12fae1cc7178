"""Typed Python scalars (ember/core/literals.py): what vjp and custom_jvp/custom_vjp hand user
code in place of plain Python numbers, as JAX 0.10.2 does."""
import copy
import pickle

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.core.literals import TypedComplex, TypedFloat, TypedInt, canonicalize_value


def test_canonicalize_types_python_numbers_and_keeps_bools():
  f, i, c = canonicalize_value(1.5), canonicalize_value(3), canonicalize_value(1j)
  assert (type(f), type(i), type(c)) == (TypedFloat, TypedInt, TypedComplex)
  assert (f.dtype, i.dtype, c.dtype) == (np.float32, np.int32, np.complex64)
  assert f.aval.weak_type and i.aval.weak_type and c.aval.shape == ()
  assert canonicalize_value(True) is True
  assert canonicalize_value(f) is f  # canonicalizing again keeps the dtype


def test_canonicalize_numpy_values_to_canonical_dtype():
  x = np.ones(2, np.float32)
  assert canonicalize_value(x) is x
  y = canonicalize_value(np.ones(2))
  assert type(y) is np.ndarray and y.dtype == np.float32
  z = canonicalize_value(np.float64(2.0))
  assert type(z) is np.ndarray and z.shape == () and z.dtype == np.float32
  a = jnp.ones(2)
  assert canonicalize_value(a) is a


def test_canonicalize_under_x64_and_overflow():
  with pytest.raises(OverflowError, match="too large to convert to int32"):
    canonicalize_value(2 ** 40)
  ember.config.update("jax_enable_x64", True)
  try:
    assert canonicalize_value(1.0).dtype == np.float64
    assert canonicalize_value(2 ** 40).dtype == np.int64
  finally:
    ember.config.update("jax_enable_x64", False)


def test_typed_scalars_print_pickle_and_compute_like_their_base():
  f, i = TypedFloat(1.5, np.float32), TypedInt(3, np.int32)
  assert repr(f) == "TypedFloat(1.5, dtype=float32)" and str(f) == "1.5"
  assert repr(i) == str(i) == "TypedInt(3, dtype=int32)"
  assert type(f * 2) is float and type(i + 1) is int and f == 1.5 and i == 3
  for v in (f, i, TypedComplex(1j, np.complex64)):
    assert type(pickle.loads(pickle.dumps(v))) is type(v)
    assert copy.deepcopy(v).dtype == v.dtype


def test_typed_scalars_are_weak_values_to_every_transform():
  f, i = TypedFloat(1.5, np.float32), TypedInt(2, np.int32)
  assert str(ember.typeof(f)) == "~float32[]"
  out = ember.jit(lambda x, n: x * n)(f, i)
  assert out.dtype == np.float32 and out.weak_type
  assert (jnp.ones(2, jnp.float16) * f).dtype == np.float16
  jaxpr = str(ember.make_jaxpr(lambda x: x * f + i)(1.0))
  assert "mul a 1.5:f32[]" in jaxpr and "3.5" not in jaxpr
  assert float(ember.grad(lambda x: x * f)(f)) == 1.5


def test_grad_hands_custom_rules_typed_scalars():
  seen = []

  @ember.custom_jvp
  def f(x):
    return x * 2.0

  @f.defjvp
  def f_jvp(primals, tangents):
    seen.append(type(primals[0]))
    return f(primals[0]), 2.0 * tangents[0]

  assert float(ember.grad(f)(1.0)) == 2.0
  ember.jvp(f, (1.0,), (1.0,))  # jvp hands the primal over as given, as JAX does
  assert seen == [TypedFloat, float]
  assert type(ember.vjp(lambda x: x, 1.0)[0]) is TypedFloat
