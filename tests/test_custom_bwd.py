"""custom_vjp bwd outputs checked as JAX 0.10.2 checks them (ember/transforms/custom_bwd.py)."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.custom_derivatives import SymbolicZero


def _f(bwd, nargs=1):
  if nargs == 1:
    f = ember.custom_vjp(lambda x: x * 2)
    f.defvjp(lambda x: (x * 2, x), bwd)
  else:
    f = ember.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, (x, y)), bwd)
  return f


def test_wrong_shape_is_a_value_error_naming_the_path_and_what_differs():
  f = _f(lambda r, g: (jnp.ones(2, jnp.int32),))
  with pytest.raises(ValueError, match=r"at output\[0\] the bwd rule produced an output of type "
                     r"int32\[2\] corresponding to an input of type float32\[3\], so the dtypes "
                     r"do not match, and the shapes do not match$"):
    ember.grad(lambda x: f(x).sum())(jnp.ones(3))
  h = ember.custom_vjp(lambda a, b: a * b["x"])
  h.defvjp(lambda a, b: (h(a, b), None), lambda r, g: (g, {"x": jnp.ones(4)}))
  with pytest.raises(ValueError, match=r"output\[1\]\['x'\]"):
    ember.grad(h, (0, 1))(1.0, {"x": 2.0})


def test_a_dtype_difference_alone_is_accepted():
  f = _f(lambda r, g: (jnp.ones(3, jnp.float16),))
  assert ember.grad(lambda x: f(x).sum())(jnp.ones(3)).dtype == np.float16


def test_containers_a_list_counts_as_the_tuple_and_a_value_covers_a_subtree():
  assert ember.grad(lambda x: _f(lambda r, g: [g])(x).sum())(jnp.ones(3)).shape == (3,)
  for bad in (lambda r, g: g, lambda r, g: (g, g), lambda r, g: None, lambda r, g: [g, g]):
    with pytest.raises(TypeError, match="same container"):
      ember.grad(lambda x: _f(bad)(x).sum())(jnp.ones(3))
  h = ember.custom_vjp(lambda d: d["a"] * d["b"])
  h.defvjp(lambda d: (h(d), d), lambda r, g: (g,))
  g = ember.grad(h)({"a": 1.0, "b": 2.0})
  assert float(g["a"]) == float(g["b"]) == 1.0


def test_int_inputs_ignore_their_cotangent_and_symbolic_zeros_are_checked():
  f = ember.custom_vjp(lambda x, n: x * n)
  f.defvjp(lambda x, n: (f(x, n), (x, n)), lambda r, g: (g * r[1], jnp.ones(3)))
  assert float(ember.grad(f)(1.0, 2)) == 2.0
  k = ember.custom_vjp(lambda x, y: x * y)
  k.defvjp(lambda x, y: (k(x.value, y.value), None),
           lambda r, g: (SymbolicZero(ember.core.ShapedArray((2,), jnp.float32)), g),
           symbolic_zeros=True)
  with pytest.raises(ValueError, match="produced a SymbolicZero with a shape/dtype"):
    ember.grad(k)(1.0, 2.0)


def test_forward_mode_of_a_custom_vjp_function_is_a_type_error_everywhere():
  f = _f(lambda r, g: (2 * g,))
  msg = r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function"
  for run in (lambda: ember.jvp(ember.jit(f), (1.0,), (1.0,)),
              lambda: ember.jacfwd(f)(1.0),
              lambda: ember.jit(ember.jacfwd(f))(1.0),
              lambda: ember.linearize(ember.jit(f), 1.0)[1](1.0)):
    with pytest.raises(TypeError, match=msg):
      run()
  assert float(ember.hessian(f)(1.0)) == 0.0
