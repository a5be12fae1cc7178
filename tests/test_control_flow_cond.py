"""lax.cond and lax.switch: values eagerly and under jit, pytrees and closures, JAX's errors and
printed jaxprs, derivatives against finite differences (float64), and vmap against stacking
(an unbatched index keeps the cond; a batched one selects per example)."""
import numpy as np
import pytest
from ad_checks import check_jvp, check_vjp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax


def src(f):
  """How JAX's messages name a function: ``name at file:line``."""
  return f"{f.__name__} at {f.__code__.co_filename}:{f.__code__.co_firstlineno}"


def cond_tree(p, x, y):
  """A cond over a pytree of operands, closing over ``y``, returning a dict."""
  return lax.cond(p, lambda a, b: {"u": jnp.sin(a) * y, "v": b + a},
                  lambda a, b: {"u": a * 2.0, "v": jnp.cos(b) * y}, x, (x, x * 3.0)[1])


def switch3(i, x, y):
  return lax.switch(i, [lambda x: jnp.sin(x) * y, lambda x: x * x, lambda x: jnp.exp(x) + y], x)


# --- values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("pred", [True, False, 2.5, 0])
def test_cond_values(pred):
  x, y = np.float32(0.7), np.float32(1.5)
  expected = {"u": np.sin(x) * y, "v": 4 * x} if pred else {"u": 2 * x, "v": np.cos(3 * x) * y}
  for f in (cond_tree, ember.jit(cond_tree)):
    out = f(pred, x, y)
    np.testing.assert_allclose(out["u"], expected["u"], rtol=1e-6)
    np.testing.assert_allclose(out["v"], expected["v"], rtol=1e-6)


def test_cond_traced_predicate_and_operand_keyword():
  f = ember.jit(lambda x: lax.cond(x > 0, lambda v: v, lambda v: -v, operand=x))
  assert float(f(-3.0)) == 3.0 and float(f(2.0)) == 2.0
  assert lax.cond(False, lambda: 1.0, lambda: 2.0) == 2.0  # no operands


@pytest.mark.parametrize("i,expected", [(-5, 0), (1, 1), (9, 2)])
def test_switch_clamps_the_index(i, expected):
  x, y = np.float32(0.3), np.float32(2.0)
  refs = [np.sin(x) * y, x * x, np.exp(x) + y]
  for f in (switch3, ember.jit(switch3)):
    np.testing.assert_allclose(f(np.int32(i), x, y), refs[expected], rtol=1e-6)
  assert lax.switch(7, [lambda v: v + 1], 1) == 2  # one branch: just called


def test_weak_types_follow_branch_zero_as_in_jax():
  assert lax.cond(True, lambda: 1.0, lambda: 2.0).weak_type
  assert not lax.cond(True, lambda: 1.0, lambda: jnp.float32(2.0)).weak_type  # branch 0: false
  assert lax.cond(True, lambda: jnp.float32(2.0), lambda: 1.0).weak_type


def test_traced_once_per_function_and_types():
  calls = []

  def branch(x):
    calls.append(1)
    return x * 2

  for _ in range(3):
    lax.cond(True, branch, branch, jnp.ones(3))
  assert len(calls) == 1  # traced once, for both branches and every call
  lax.cond(True, branch, branch, jnp.ones(4))
  assert len(calls) == 2


def test_closure_over_outer_tracers():
  def f(x, y):
    return lax.cond(x > y, lambda: x * y, lambda: x - y)
  assert ember.grad(f)(3.0, 2.0) == 2.0 and ember.grad(f, 1)(1.0, 2.0) == -1.0
  per_example = ember.vmap(ember.grad(f))(jnp.array([3.0, 1.0]), jnp.array([2.0, 2.0]))
  np.testing.assert_allclose(per_example, [2.0, 1.0])


# --- errors ----------------------------------------------------------------------------------

def test_cond_output_mismatch_messages():
  def t(x):
    return x, x

  def f(x):
    return x, x.astype(jnp.int32)

  with pytest.raises(TypeError) as e:
    lax.cond(True, t, f, 1.0)
  assert str(e.value) == (
      "cond branches must have equal output types but they differ.\n\n"
      f"true_fun is {src(t)}\nfalse_fun is {src(f)}\n\n"
      "The output of true_fun at path [1] has type float32[] but the corresponding output of "
      "false_fun has type int32[], so the dtypes do not match.\n\n"
      "Revise true_fun and/or false_fun so that all output types match.")

  def g(x):
    return {"a": x, "b": x}

  with pytest.raises(TypeError) as e:
    lax.cond(True, lambda x: {"a": x}, g, 1.0)
  assert str(e.value).endswith(
      "true_fun output is a <class 'dict'> with 1 child but false_fun output is a <class 'dict'> "
      "with 2 children, so the numbers of children do not match, with the symmetric difference "
      "of key sets: {'b'}.\n\nRevise true_fun and/or false_fun so that they have the same pytree "
      "structure.")
  with pytest.raises(TypeError, match=r"at path \['a'\] is a tuple of length 2 but false_fun "
                     r"output at path \['a'\] is a tuple of length 1, so the lengths do not"):
    lax.cond(True, lambda x: {"a": (x, x)}, lambda x: {"a": (x,)}, 1.0)


def test_switch_messages_name_branches_as_jax_does():
  with pytest.raises(TypeError, match=r"(?s)branch 0 is .*\nbranch2 is .*The output of branch 0 "
                     r"at path \[1\] has type float32\[\] but the corresponding output of "
                     r"branch2 has type int32\[\], so the dtypes do not match\."):
    lax.switch(0, [lambda x: (x, x), lambda x: (x, x), lambda x: (x, x.astype(int))], 1.0)
  with pytest.raises(TypeError, match="has type float32.. but the corresponding output of "
                     r"branch1 has type float32\[3\], so the shapes do not match"):
    lax.switch(0, [lambda x: x, lambda x: jnp.ones(3)], 1.0)


@pytest.mark.parametrize("call,exc,message", [
    (lambda: lax.cond(np.array([True, False]), lambda x: x, lambda x: x, 1.0), TypeError,
     "Pred must be a scalar, got [ True False] of shape (2,)."),
    (lambda: lax.cond(1j, lambda x: x, lambda x: x, 1.0), TypeError,
     "Pred type must be either boolean or number, got complex64."),
    (lambda: lax.cond(True, 1, lambda x: x, 1.0), TypeError,
     "lax.cond: true_fun and false_fun arguments should be callable."),
    (lambda: lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0), TypeError,
     "if 'operand' keyword is passed then no positional operands can be passed, got "
     "operand=2.0 and positional operands (1.0,)"),
    (lambda: lax.cond(True, lambda x: x, lambda x: x, "s"), TypeError,
     "Argument 's' of type <class 'str'> is not a valid JAX type"),
    (lambda: lax.switch(1.0, [lambda x: x], 1.0), TypeError,
     "Index type must be an integer, got 1.0 as float32"),
    (lambda: lax.switch(np.array([1, 2]), [lambda x: x], 1.0), TypeError,
     "Branch index must be scalar, got [1 2] of shape (2,)."),
    (lambda: lax.switch(1, [], 1.0), ValueError, "Empty branch sequence"),
    (lambda: lax.switch(0, [1, 2], 1.0), TypeError,
     "lax.switch: branches argument should be a sequence of callables."),
])
def test_errors(call, exc, message):
  with pytest.raises(exc) as e:
    call()
  assert str(e.value) == message


def test_non_jax_output_error():
  def f(x):
    return "s"
  with pytest.raises(TypeError) as e:
    lax.cond(True, f, f, 1.0)
  assert str(e.value) == (f"function {src(f)} traced for cond returned a value of type "
                          "<class 'str'>, which is not a valid JAX type")


# --- printed jaxprs (JAX 0.10.2's text) -----------------------------------------------------------

def test_jaxprs_print_as_in_jax():
  cond = ember.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x + 1., lambda x: x * 2., x))
  assert str(cond(True, 1.0)) == """\
{ lambda ; a:bool[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = mul e 2.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }
      )
    ] c b
  in (d,) }"""
  switch = ember.make_jaxpr(
      lambda i, x: lax.switch(i, [lambda x: x + 1., lambda x: x * 2., jnp.sin], x))
  assert str(switch(1, 1.0)) == """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let g:f32[] = add f 1.0:f32[] in (g,) }
        { lambda ; h:f32[]. let i:f32[] = mul h 2.0:f32[] in (i,) }
        { lambda ; j:f32[]. let k:f32[] = sin j in (k,) }
      )
    ] d b
  in (e,) }"""
  closure = ember.make_jaxpr(
      lambda x, y: lax.cond(x > 0, lambda x: x + y, lambda x: x * 2., x))
  assert str(closure(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let h:f32[] = mul g 2.0:f32[] in (h,) }
        { lambda ; i:f32[] j:f32[]. let k:f32[] = add j i in (k,) }
      )
    ] d b a
  in (e,) }"""
  jvp = ember.make_jaxpr(lambda p, x, t: ember.jvp(
      lambda x: lax.cond(p, jnp.sin, lambda x: x * 2., x), (x,), (t,)))
  assert str(jvp(True, 1.0, 1.0)) == """\
{ lambda ; a:bool[] b:f32[] c:f32[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[] f:f32[] = cond[
      branches=(
        { lambda ; g:f32[] h:f32[]. let
            i:f32[] = mul g 2.0:f32[]
            j:f32[] = mul h 2.0:f32[]
          in (i, j) }
        { lambda ; k:f32[] l:f32[]. let
            m:f32[] = sin k
            n:f32[] = cos k
            o:f32[] = mul l n
          in (m, o) }
      )
    ] d b c
  in (e, f) }"""


# --- derivatives ---------------------------------------------------------------------------------

@pytest.mark.parametrize("pred", [True, False])
def test_cond_jvp_vjp(x64, pred):
  rng = np.random.RandomState(0)
  f = lambda x, y: tuple(cond_tree(pred, x, y).values())  # noqa: E731
  args = [rng.randn(3), rng.randn(3)]
  check_jvp(f, args, rng, jit=True)
  check_vjp(f, args, rng, jit=True)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_switch_jvp_vjp(x64, i):
  rng = np.random.RandomState(1)
  f = lambda x, y: switch3(i, x, y)  # noqa: E731
  args = [rng.randn(2, 2), rng.randn(2)]
  check_jvp(f, args, rng, jit=True)
  check_vjp(f, args, rng, jit=True)


def test_grad_through_jit_and_linearize():
  f = lambda x: lax.cond(x > 1.0, lambda v: v ** 3, lambda v: jnp.sin(v) * 2.0, x)  # noqa: E731
  g = ember.jit(ember.grad(ember.jit(f)))
  np.testing.assert_allclose([g(2.0), g(0.5)], [12.0, 2 * np.cos(0.5)], rtol=1e-6)
  _, f_jvp = ember.linearize(f, 0.5)
  np.testing.assert_allclose(f_jvp(2.0), 4 * np.cos(0.5), rtol=1e-6)
  assert ember.grad(lambda x: lax.cond(True, lambda v: 3.0, lambda v: v, x))(1.0) == 0.0


# --- batching --------------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, 1, 0), (0, -1, None)])
def test_vmap_cond(in_axes):
  rng = np.random.RandomState(2)
  shapes = {0: (4, 3), 1: (3, 4), -1: (3, 4), None: (3,)}
  preds = np.array([True, False, True, False]) if in_axes[0] == 0 else True
  x = rng.randn(*shapes[in_axes[1]]).astype(np.float32)
  y = rng.randn(*shapes[in_axes[2]]).astype(np.float32)
  check_batch(lambda p, x, y: cond_tree(p, x, y), [preds, x, y], in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0, None), (None, 1, 0)])
def test_vmap_switch(in_axes):
  rng = np.random.RandomState(3)
  idx = np.array([2, -1, 1, 5], np.int32) if in_axes[0] == 0 else np.int32(1)
  x = rng.randn(*{0: (4, 2), 1: (2, 4), None: (2,)}[in_axes[1]]).astype(np.float32)
  y = np.float32(rng.randn(*{0: (4,), None: ()}[in_axes[2]]))
  check_batch(switch3, [idx, x, y], in_axes)


def test_vmap_of_vmap_and_of_grad():
  rng = np.random.RandomState(4)
  p = rng.rand(2, 3) > 0.5
  x = rng.randn(2, 3).astype(np.float32)
  f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)  # noqa: E731
  check_batch(ember.vmap(f, in_axes=(0, 0)), [p, x], (1, 1), 1)
  grads = ember.vmap(ember.grad(f, 1))(p[0], x[0])
  np.testing.assert_allclose(grads, [ember.grad(f, 1)(a, b) for a, b in zip(p[0], x[0])],
                             rtol=1e-6)


def test_untaken_branch_gradients_do_not_leak_nans():
  # both branches run on every example; the untaken branch sees stop_gradient'ed inputs
  f = lambda x: lax.cond(x > 0, jnp.sqrt, lambda v: v * 0.0, x)  # noqa: E731
  np.testing.assert_allclose(ember.vmap(ember.grad(f))(jnp.array([-1.0, 4.0])), [0.0, 0.25])
