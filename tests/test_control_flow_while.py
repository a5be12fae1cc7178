"""lax.while_loop and lax.fori_loop: values against Python loops (eager and jit), carry type
checks with JAX's messages, printed jaxprs, forward-mode derivatives (reverse mode through a
static fori_loop, which is a scan; JAX's error for a while_loop), and vmap, including batched
predicates that stop at different iterations."""
import numpy as np
import pytest
from ad_checks import check_jvp, check_vjp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax


def collatz_steps(n):
  """Iterations of the Collatz map from n to 1: a data-dependent trip count."""
  def body(c):
    k, v = c
    return k + 1, jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
  return lax.while_loop(lambda c: c[1] > 1, body, (0, n))[0]


def newton_sqrt(a, x0):
  """Newton's iteration for sqrt(a) with a pytree carry, stopping on a tolerance."""
  def body(c):
    return {"x": 0.5 * (c["x"] + a / c["x"]), "n": c["n"] + 1}
  return lax.while_loop(lambda c: (jnp.abs(c["x"] ** 2 - a) > 1e-5) & (c["n"] < 50), body,
                        {"x": x0, "n": 0})["x"]


def py_collatz(n):
  k = 0
  while n > 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    k += 1
  return k


# --- values ----------------------------------------------------------------------------------

def test_while_loop_values():
  for f in (collatz_steps, ember.jit(collatz_steps)):
    assert [int(f(np.int32(n))) for n in (1, 6, 27)] == [py_collatz(n) for n in (1, 6, 27)]
  np.testing.assert_allclose(ember.jit(newton_sqrt)(np.float32(2.0), np.float32(1.0)),
                             np.sqrt(2.0), rtol=1e-5)
  assert lax.while_loop(lambda x: x < 100, lambda x: x * 3, 1) == 243


def test_while_loop_closes_over_tracers():
  f = ember.jit(lambda x, lim: lax.while_loop(lambda c: c < lim, lambda c: c + x, 0.0))
  assert float(f(0.5, 2.2)) == 2.5


@pytest.mark.parametrize("lower,upper", [(0, 5), (3, 3), (5, 2), (-2, 4)])
def test_fori_loop_values(lower, upper):
  expected = sum(range(lower, upper)) * 2.0
  body = lambda i, c: c + 2.0 * i  # noqa: E731
  assert float(lax.fori_loop(lower, upper, body, 0.0)) == expected  # static: a scan
  dynamic = ember.jit(lambda lo, hi: lax.fori_loop(lo, hi, body, 0.0))  # a while
  assert float(dynamic(lower, upper)) == expected


def test_fori_loop_bounds_and_unroll():
  f = lambda i, c: c * 0.5 + i  # noqa: E731
  ref = 1.0
  for i in range(7):
    ref = ref * 0.5 + i
  for unroll in (None, 2, 3, True):
    np.testing.assert_allclose(lax.fori_loop(0, 7, f, 1.0, unroll=unroll), ref, rtol=1e-6)
  np.testing.assert_allclose(lax.fori_loop(np.int16(0), 7, f, 1.0), ref, rtol=1e-6)
  with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal "
                     "types, got int16 and int8"):
    lax.fori_loop(np.int16(0), np.int8(3), f, 1.0)
  with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop bounds "
                     "are statically known."):
    ember.jit(lambda n: lax.fori_loop(0, n, f, 1.0, unroll=2))(3)


def test_weak_initial_carry_takes_the_body_dtype():
  out = lax.while_loop(lambda c: c < 3, lambda c: (c + 1.0).astype(jnp.float16), 1.0)
  assert out.dtype == jnp.float16 and float(out) == 3.0
  assert lax.fori_loop(0, 3, lambda i, c: c + jnp.float32(1), 0.0).dtype == jnp.float32


# --- errors ----------------------------------------------------------------------------------

def test_carry_type_messages():
  def body(c):
    return c[0].astype(jnp.int32), c[1]

  with pytest.raises(TypeError) as e:
    lax.while_loop(lambda c: True, body, (jnp.float32(1.0), 2.0))
  assert str(e.value) == (
      "while_loop body function carry input and carry output must have equal types, but they "
      "differ:\n\nThe input carry component c[0] has type float32[] but the corresponding "
      "output carry component has type int32[], so the dtypes do not match.\n\nRevise the "
      "function so that all output types match the corresponding input types.")
  with pytest.raises(TypeError) as e:
    lax.while_loop(lambda c: True, lambda c: (c, c), 1.0)
  assert str(e.value) == (
      "while_loop body function carry input and carry output must have the same pytree "
      "structure, but they differ:\n\nThe input carry c is a <class "
      "'ember.core.aval.ShapedArray'> but the corresponding component of the carry output is a "
      "<class 'tuple'>, so their Python types differ.\n\nRevise the function so that the carry "
      "output has the same pytree structure as the carry input.")
  with pytest.raises(TypeError, match=r"The input carry component loop_carry\[1\] is a"):
    lax.fori_loop(0, 3, lambda i, c: (c, c), 1.0)


@pytest.mark.parametrize("cond_fun,message", [
    (lambda c: (c < 10, 1), "cond_fun must return a boolean scalar, but got pytree"),
    (lambda c: jnp.array([True, False]), "cond_fun must return a boolean scalar, but got output "
     "type(s) [ShapedArray(bool[2])]."),
    (lambda c: 1.0, "cond_fun must return a boolean scalar, but got output type(s) "
     "[ShapedArray(float32[], weak_type=True)]."),
])
def test_cond_fun_must_return_a_boolean_scalar(cond_fun, message):
  with pytest.raises(TypeError) as e:
    lax.while_loop(cond_fun, lambda c: c, 1.0)
  assert str(e.value).startswith(message)


def test_not_callable():
  with pytest.raises(TypeError, match="lax.while_loop: body_fun and cond_fun arguments should "
                     "be callable."):
    lax.while_loop(1, lambda c: c, 1)
  with pytest.raises(TypeError, match="lax.fori_loop: body_fun argument should be callable."):
    lax.fori_loop(0, 1, None, 1)


# --- printed jaxprs --------------------------------------------------------------------------

def test_jaxprs_print_as_in_jax():
  consts = ember.make_jaxpr(
      lambda x, y: lax.while_loop(lambda c: c < y, lambda c: c + y, x))
  assert str(consts(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add e d in (f,) }
      body_nconsts=1
      cond_jaxpr={ lambda ; g:f32[] h:f32[]. let i:bool[] = lt h g in (i,) }
      cond_nconsts=1
    ] b b a
  in (c,) }"""
  fori = ember.make_jaxpr(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x))
  assert str(fori(1.0, 3)) == """\
{ lambda ; a:f32[] b:i32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d
          i:f32[] = add f h
        in (g, e, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt j k
        in (m,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }"""
  static = ember.make_jaxpr(lambda x: lax.fori_loop(0, 10, lambda i, c: c + i, x))
  assert str(static(1.0)) == """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          g:f32[] = add d f
        in (e, g) }
      length=10
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""
  batched = ember.make_jaxpr(ember.vmap(lambda x, n: lax.while_loop(
      lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.), (0, x))))
  assert str(batched(jnp.ones(2), jnp.arange(2))) == """\
{ lambda ; a:f32[2] b:i32[2]. let
    c:i32[2] = broadcast_in_dim 0:i32[]
    d:i32[2] e:f32[2] = while[
      body_jaxpr={ lambda ; f:i32[2] g:f32[2]. let
          h:i32[2] = add f 1:i32[]
          i:f32[2] = mul g 2.0:f32[]
        in (h, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[2] k:i32[2] l:f32[2]. let
          m:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] k
          n:bool[2] = lt m j
        in (n,) }
      cond_nconsts=1
    ] b c a
  in (d, e) }"""


# --- derivatives ---------------------------------------------------------------------------------

def test_while_loop_forward_mode(x64):
  rng = np.random.RandomState(0)
  f = lambda a, x: newton_sqrt(a, x)  # noqa: E731
  check_jvp(f, [np.array(3.0), np.array(1.0)], rng, rtol=1e-5, jit=True)
  y, f_jvp = ember.linearize(lambda a: newton_sqrt(a, 1.0), 4.0)
  np.testing.assert_allclose([y, f_jvp(1.0)], [2.0, 0.25], rtol=1e-5)
  np.testing.assert_allclose(ember.jacfwd(lambda a: newton_sqrt(a, 1.0))(9.0), 1 / 6, rtol=1e-5)


def test_while_loop_reverse_mode_error():
  with pytest.raises(ValueError) as e:
    ember.grad(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))(1.0)
  assert str(e.value) == (
      "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
      "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
      "start/stop.")


def test_static_fori_loop_is_reverse_differentiable(x64):
  rng = np.random.RandomState(1)

  def f(x, w):
    return lax.fori_loop(0, 4, lambda i, c: jnp.tanh(c * w + i), x)

  args = [rng.randn(3), rng.randn(3)]
  check_jvp(f, args, rng, jit=True)
  check_vjp(f, args, rng, jit=True)


# --- batching --------------------------------------------------------------------------------

def test_vmap_batched_predicate_runs_each_example_to_its_end():
  n = np.array([1, 6, 27, 7], np.int32)
  check_batch(collatz_steps, [n])
  a = np.array([2.0, 9.0, 0.25], np.float32)
  check_batch(newton_sqrt, [a, np.float32(1.0)], (0, None), rtol=1e-5)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 0)])
def test_vmap_fori_loop(in_axes):
  rng = np.random.RandomState(2)
  x = rng.randn(*{0: (3, 2), 1: (2, 3), None: (2,)}[in_axes[0]]).astype(np.float32)
  w = np.float32(rng.randn(*{0: (3,), None: ()}[in_axes[1]]))
  f = lambda x, w: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * w + i, x)  # noqa: E731
  check_batch(f, [x, w], in_axes)
  dyn = lambda x, w: lax.fori_loop(0, (w > 0).astype(jnp.int32) + 2,  # noqa: E731
                                   lambda i, c: jnp.sin(c) * w + i, x)
  check_batch(dyn, [x, w], in_axes)


def test_vmap_of_vmap_and_of_jvp():
  n = np.array([[3, 6], [27, 1], [9, 2]], np.int32)
  check_batch(ember.vmap(collatz_steps), [n], 1)
  a = np.array([2.0, 9.0], np.float32)
  tangent = ember.vmap(lambda a: ember.jvp(lambda a: newton_sqrt(a, 1.0), (a,), (1.0,))[1])(a)
  np.testing.assert_allclose(tangent, 0.5 / np.sqrt(a), rtol=1e-4)
