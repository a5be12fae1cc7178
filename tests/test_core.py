"""The core: abstract values, jaxpr printing, eval_jaxpr, primitive rules."""
import numpy as np
import pytest

import ember
from ember import lax
from ember.core.aval import ShapedArray
from ember.core.eval import eval_jaxpr
from ember.core.trace import Primitive


def test_shaped_array_interned_and_printed():
  a = ShapedArray((3, 4), np.float32)
  assert a is ShapedArray([3, 4], np.dtype("float32"))
  assert str(a) == "float32[3,4]" and str(a.update(weak_type=True)) == "~float32[3,4]"  # JAX's
  assert a.str_short() == "float32[3,4]" and a.str_short(short_dtypes=True) == "f32[3,4]"
  assert repr(a) == "ShapedArray(float32[3,4])"
  assert repr(a.update(weak_type=True)) == "ShapedArray(float32[3,4], weak_type=True)"
  assert a.ndim == 2 and a.size == 12


def test_make_jaxpr_one_line_and_multi_line():
  f = lambda x: lax.mul(lax.sin(x), 2.0)
  assert str(ember.make_jaxpr(f)(np.ones(3, np.float32))) == \
      "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }"
  assert str(ember.make_jaxpr(lambda x: (x, 1.0, x))(np.float32(1))) == \
      "{ lambda ; a:f32[]. let  in (a, 1.0:f32[], a) }"


def test_make_jaxpr_constvars_and_literals():
  c = np.arange(3, dtype=np.float32)
  jaxpr = ember.make_jaxpr(lambda x: lax.add(lax.sin(x), c))(np.ones(3, np.float32))
  assert str(jaxpr) == \
      "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = sin b; d:f32[3] = add c a in (d,) }"
  assert len(jaxpr.consts) == 1


def test_variable_names_roll_over_to_two_letters():
  def f(x):
    for _ in range(27):
      x = lax.neg(x)
    return x
  text = str(ember.make_jaxpr(f)(np.float32(1)))
  assert "ba:f32[] = neg z" in text and "bb:f32[] = neg ba" in text


def test_eval_jaxpr_matches_function():
  closed = ember.make_jaxpr(lambda x, y: lax.add(lax.mul(x, y), 1.0))(1.0, 2.0)
  (out,) = eval_jaxpr(closed.jaxpr, closed.consts, np.float32(3), np.float32(4))
  assert float(out) == 13.0


def test_missing_rule_names_primitive_and_transform():
  p = Primitive("my_prim")
  with pytest.raises(NotImplementedError, match="'my_prim' has no rule for vmap"):
    p.rule("batch")


def test_lax_strict_promotion_error():
  with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same dtypes, "
                                      r"got int32, float32"):
    lax.add(1, 1.0)
  assert repr(lax.add(np.float32(1), 1.0)) == "Array(2., dtype=float32)"


def test_elementwise_shape_errors():
  with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting"):
    lax.add(np.ones(3, np.float32), np.ones(2, np.float32))
  with pytest.raises(TypeError, match="arrays must have the same number of dimensions"):
    lax.add(np.ones((2, 3), np.float32), np.ones(3, np.float32))
  with pytest.raises(TypeError, match="sin does not accept dtype int32"):
    lax.sin(1)


def test_unary_ops_against_numpy():
  x = np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, -np.inf, np.nan], np.float32)
  cases = [(lax.neg, np.negative), (lax.abs, np.abs), (lax.sign, np.sign), (lax.floor, np.floor),
           (lax.ceil, np.ceil), (lax.exp, np.exp), (lax.tanh, np.tanh), (lax.sin, np.sin),
           (lax.is_finite, np.isfinite), (lax.cbrt, np.cbrt), (lax.expm1, np.expm1)]
  with np.errstate(all="ignore"):
    for lax_fn, np_fn in cases:
      got = np.asarray(lax_fn(x))
      np.testing.assert_allclose(got, np_fn(x), rtol=2e-6, atol=1e-7, err_msg=lax_fn.__name__)
      assert got.dtype == np_fn(x).dtype
  pos = np.array([0.0, 0.25, 1.0, 4.0, np.inf], np.float32)
  with np.errstate(all="ignore"):
    np.testing.assert_allclose(np.asarray(lax.sqrt(pos)), np.sqrt(pos))
    np.testing.assert_allclose(np.asarray(lax.log(pos)), np.log(pos))
    np.testing.assert_allclose(np.asarray(lax.log1p(pos)), np.log1p(pos), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lax.rsqrt(pos[1:])), 1 / np.sqrt(pos[1:]), rtol=1e-6)


def test_binary_ops_against_numpy():
  x = np.array([-7, -3, 0, 2, 5, 9], np.int32)
  y = np.array([2, 3, 1, -2, 5, 4], np.int32)
  np.testing.assert_array_equal(np.asarray(lax.add(x, y)), x + y)
  np.testing.assert_array_equal(np.asarray(lax.rem(x, y)), np.fmod(x, y))
  np.testing.assert_array_equal(np.asarray(lax.div(x, y)), (x / y).astype(np.int32))
  np.testing.assert_array_equal(np.asarray(lax.max(x, y)), np.maximum(x, y))
  np.testing.assert_array_equal(np.asarray(lax.shift_left(x, np.abs(y))), x << np.abs(y))
  np.testing.assert_array_equal(np.asarray(lax.lt(x, y)), x < y)
  f = np.array([0.5, -1.5, 2.0], np.float32)
  np.testing.assert_allclose(np.asarray(lax.pow(f, np.float32(2))), f ** 2)
  np.testing.assert_allclose(np.asarray(lax.atan2(f, f[::-1].copy())), np.arctan2(f, f[::-1]))
  np.testing.assert_array_equal(np.asarray(lax.integer_pow(x, 3)), x ** 3)


def test_select_n_and_clamp():
  which = np.array([0, 1, 2, 1], np.int32)
  cases = [np.full(4, i, np.float32) for i in range(3)]
  np.testing.assert_array_equal(np.asarray(lax.select_n(which, *cases)), [0, 1, 2, 1])
  pred = np.array([True, False, True, False])
  np.testing.assert_array_equal(np.asarray(lax.select(pred, cases[1], cases[2])), [1, 2, 1, 2])
  np.testing.assert_array_equal(
      np.asarray(lax.clamp(np.float32(0), np.array([-1, 0.5, 2], np.float32), np.float32(1))),
      [0, 0.5, 1])


def test_convert_element_type():
  x = np.array([1.7, -1.7, 0.0, 2.5], np.float32)
  np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, np.int32)), [1, -1, 0, 2])
  np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, np.bool_)),
                                [True, True, False, True])
  c = np.array([1 + 2j], np.complex64)
  np.testing.assert_array_equal(np.asarray(lax.convert_element_type(c, np.float32)), [1.0])
  b = lax.bitcast_convert_type(np.float32(1.0), np.int32)
  assert int(b) == 0x3F800000


def test_bessel_ie_against_scipy():
  sp = pytest.importorskip("scipy.special")  # scipy comes with jaxlib
  x = np.array([-30, -5, -1, 0, 0.5, 1, 3, 10, 19.9, 20.1, 50, 1000], np.float32)
  np.testing.assert_allclose(np.asarray(lax.bessel_i0e(x)), sp.i0e(x), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(lax.bessel_i1e(x)), sp.i1e(x), rtol=1e-6, atol=1e-30)


def test_concretization_messages_use_full_dtype_names():
  with pytest.raises(ember.errors.ConcretizationTypeError,
                     match="traced array with shape int32\\[\\]"):
    ember.jit(lambda x: int(x))(np.int32(1))


def test_jax_core_public_names():
  # JAX 0.10.2's jax.core: Tracer (what isinstance checks use), Trace, Atom = Var | Literal
  import typing
  import ember.core
  from ember.core.jaxpr import DropVar, Literal, Var
  seen = []

  def f(x):
    seen.append(isinstance(x, ember.core.Tracer))
    return x

  ember.jit(f)(1.0)
  f(np.float32(1))
  ember.vmap(f)(np.ones(2, np.float32))
  assert seen == [True, False, True]
  assert typing.get_args(ember.core.Atom) == (Var, Literal)
  assert ember.core.DropVar is DropVar and issubclass(ember.core.Trace, object)
