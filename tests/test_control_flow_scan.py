"""lax.scan and lax.map: values against Python loops (eager and jit; reverse, unroll, pytrees,
no xs), JAX's checks and messages, printed jaxprs, derivatives against finite differences
(float64; reverse mode stacks the residuals per iteration), and vmap against stacking."""
import numpy as np
import pytest
from ad_checks import check_jvp, check_vjp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax


def rnn(h, xs, w, u):
  """A tanh RNN cell over xs, with a pytree of outputs per step."""
  def cell(h, x):
    new = jnp.tanh(jnp.dot(h, w) + x * u)
    return new, {"h": new, "norm": jnp.sum(new * new)}
  return lax.scan(cell, h, xs)


def py_rnn(h, xs, w, u):
  hs, norms = [], []
  for x in xs:
    h = np.tanh(h @ w + x * u)
    hs.append(h)
    norms.append(np.sum(h * h))
  return h, {"h": np.stack(hs), "norm": np.array(norms)}


def data(rng, steps=5, hidden=3, dtype=np.float32):
  return [rng.randn(hidden).astype(dtype), rng.randn(steps, hidden).astype(dtype),
          (rng.randn(hidden, hidden) / 2).astype(dtype), rng.randn(hidden).astype(dtype)]


def assert_tree_allclose(a, b, rtol=1e-5):
  for x, y in zip(ember.tree_util.tree_leaves(a), ember.tree_util.tree_leaves(b)):
    np.testing.assert_allclose(np.asarray(x), y, rtol=rtol, atol=1e-6)


# --- values ----------------------------------------------------------------------------------

def test_scan_values():
  args = data(np.random.RandomState(0))
  for f in (rnn, ember.jit(rnn)):
    assert_tree_allclose(f(*args), py_rnn(*args))


@pytest.mark.parametrize("reverse,unroll", [(False, 1), (True, 2), (False, 3), (True, True)])
def test_reverse_and_unroll(reverse, unroll):
  xs = np.arange(7, dtype=np.float32)
  f = ember.jit(lambda xs: lax.scan(lambda c, x: (c * 0.5 + x, c), 1.0, xs, reverse=reverse,
                                    unroll=unroll))
  c, ys, expected = 1.0, np.zeros(7, np.float32), None
  for i in (reversed(range(7)) if reverse else range(7)):
    ys[i], c = c, c * 0.5 + xs[i]
  expected = (c, ys)
  assert_tree_allclose(f(xs), expected)


def test_length_without_xs_and_empty_scans():
  carry, ys = lax.scan(lambda c, _: (c * 2, c), 1, None, length=4)
  assert int(carry) == 16 and ys.tolist() == [1, 2, 4, 8]
  carry, ys = lax.scan(lambda c, x: (c + x.sum(), x * 2), 0.0, jnp.zeros((0, 2)))
  assert float(carry) == 0.0 and ys.shape == (0, 2)
  assert lax.scan(lambda c, x: (c, None), 1.0, jnp.ones(3))[1] is None


def test_carry_weak_types_as_in_jax():
  c, _ = lax.scan(lambda c, x: (c + x, x), 1.0, jnp.ones(2))
  assert not c.weak_type and float(c) == 3.0
  c, _ = lax.scan(lambda c, x: (1.0, x), jnp.float32(1), jnp.ones(2))
  assert c.weak_type
  c, _ = lax.scan(lambda c, x: (c + x, x), 1, jnp.ones(2))  # a weak int carry promotes
  assert c.dtype == jnp.float32 and float(c) == 3.0


def test_map():
  xs = np.arange(10, dtype=np.float32).reshape(5, 2)
  f = lambda x: {"s": jnp.sum(x), "p": x * x}  # noqa: E731
  expected = {"s": xs.sum(1), "p": xs * xs}
  for batch_size in (None, 2, 5, 8):
    assert_tree_allclose(lax.map(f, xs, batch_size=batch_size), expected)


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,message", [
    (lambda: lax.scan(lambda c, x: (c, x), 1.0, (jnp.ones(3), jnp.ones(4))), ValueError,
     "scan got values with different leading axis sizes: 3, 4."),
    (lambda: lax.scan(lambda c, x: (c, x), 1.0, None), ValueError,
     "scan got no values to scan over and `length` not provided."),
    (lambda: lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), length=4), ValueError,
     "scan got `length` argument of 4 which disagrees with leading axis sizes [3]."),
    (lambda: lax.scan(lambda c, x: (c, x), 1.0, 2.0), ValueError,
     "scan got value with no leading axis to scan over: 2.0."),
    (lambda: lax.scan(lambda c, x: c, 1.0, jnp.ones(3)), TypeError,
     "scan body output must be a pair, got ~float32[]."),
    (lambda: lax.scan(lambda c, x: (1, 2, 3), 1.0, jnp.ones(3)), TypeError,
     "scan body output must be a pair, got (ShapedArray(int32[], weak_type=True), "
     "ShapedArray(int32[], weak_type=True), ShapedArray(int32[], weak_type=True))."),
    (lambda: lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), unroll=-1), ValueError,
     "`unroll` must be a `bool` or a non-negative `int`."),
    (lambda: lax.scan(1, 1.0, jnp.ones(3)), TypeError,
     "lax.scan: f argument should be callable."),
])
def test_errors(call, exc, message):
  with pytest.raises(exc) as e:
    call()
  assert str(e.value) == message


def test_carry_type_messages():
  with pytest.raises(TypeError) as e:
    lax.scan(lambda c, x: ((c[0].astype(int), jnp.ones(3, int)), x), (jnp.float32(1.0), 2.0),
             jnp.ones(3))
  assert str(e.value) == (
      "scan body function carry input and carry output must have equal types, but they "
      "differ:\n\n  * the input carry component c[0] has type float32[] but the corresponding "
      "output carry component has type int32[], so the dtypes do not match;\n  * the input "
      "carry component c[1] has type float32[] but the corresponding output carry component "
      "has type int32[3], so the dtypes do not match, and the shapes do not match.\n\nRevise "
      "the function so that all output types match the corresponding input types.")
  with pytest.raises(TypeError, match=r"The input carry component c\['a'\] is a tuple of length "
                     r"2 but the corresponding component of the carry output is a tuple of "
                     r"length 1, so the lengths do not match\."):
    lax.scan(lambda c, x: ({"a": (c["a"][0],)}, x), {"a": (1.0, 2.0)}, jnp.ones(3))
  with pytest.raises(TypeError, match="The input carry c is a <class 'dict'> with pytree "
                     r"metadata \('a', 'b'\) but the corresponding component of the carry output "
                     r"is a <class 'dict'> with pytree metadata \('a', 'c'\), so the pytree "
                     "node metadata does not match."):
    lax.scan(lambda c, x: ({"a": c["a"], "c": 1.0}, x), {"a": 1.0, "b": 2.0}, jnp.ones(3))

  def body(carry, x):
    return carry.astype(jnp.int32), x
  with pytest.raises(TypeError, match="The input carry carry has type float32"):
    lax.scan(body, 1.0, jnp.ones(3))


# --- printed jaxprs --------------------------------------------------------------------------

def test_jaxprs_print_as_in_jax():
  ones = np.ones(3, np.float32)
  rev = ember.make_jaxpr(lambda c, xs, w: lax.scan(lambda c, x: (c + x * w, c * x), c, xs,
                                                   reverse=True, unroll=2))
  assert str(rev(1.0, ones, 2.0)) == """\
{ lambda ; a:f32[] b:f32[3] c:f32[]. let
    d:f32[] e:f32[3] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          j:f32[] = mul h i
          k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          l:f32[] = add k j
          m:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          n:f32[] = mul m h
        in (l, n) }
      length=3
      num_carry=1
      num_consts=1
      reverse=True
      unroll=2
    ] c a b
  in (d, e) }"""
  grad = ember.make_jaxpr(ember.grad(
      lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs)[0]))
  assert str(grad(1.0, ones)) == """\
{ lambda ; a:f32[] b:f32[3]. let
    _:f32[] _:f32[3] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          i:f32[] = mul h e
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          k:f32[] = mul j e
        in (i, k, g) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a b
    l:f32[] = scan[
      jaxpr={ lambda ; m:f32[] n:f32[] o:f32[]. let
          p:f32[] = mul m o
          q:f32[] = convert_element_type[new_dtype=float32 weak_type=True] p
          r:f32[] = mul q n
        in (r,) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[] c b
  in (l,) }"""
  batched = ember.make_jaxpr(ember.vmap(
      lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs)))
  assert str(batched(jnp.ones(2), jnp.ones((2, 3)))) == """\
{ lambda ; a:f32[2] b:f32[2,3]. let
    c:f32[3,2] = transpose[permutation=(1, 0)] b
    d:f32[2] e:f32[3,2] = scan[
      jaxpr={ lambda ; f:f32[2] g:f32[2]. let
          h:f32[2] = sin f
          i:f32[2] = mul h g
          j:f32[2] = mul f g
        in (i, j) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a c
    k:f32[2,3] = transpose[permutation=(1, 0)] e
  in (d, k) }"""


# --- derivatives ---------------------------------------------------------------------------------

def test_scan_jvp_vjp(x64, reverse=True):
  rng = np.random.RandomState(1)

  def f(h, xs, w, u):
    carry, ys = lax.scan(lambda h, x: (jnp.tanh(jnp.dot(h, w) + x * u),
                                       jnp.sin(h) * x), h, xs, reverse=reverse, unroll=2)
    return carry, ys

  args = data(rng, steps=4, dtype=np.float64)
  check_jvp(f, args, rng, jit=True)
  check_vjp(f, args, rng, jit=True)


def test_partially_known_carries_and_consts(x64):
  rng = np.random.RandomState(2)

  def f(a, b, xs):  # a carry that is unknown only after the first step, and an int counter
    def body(c, x):
      k, s, t = c
      return (k + 1, s * a + x, t + s * b * k), s * t
    return lax.scan(body, (0, jnp.zeros(2), jnp.ones(2)), xs)[1]

  args = [rng.randn(2), rng.randn(2), rng.randn(3, 2)]
  check_vjp(f, args, rng, jit=True)
  g = ember.grad(lambda a: jnp.sum(f(a, args[1], args[2])))(args[0])
  assert g.shape == (2,)


def test_grad_of_jit_and_checkpoint_of_scan():
  # jit's and checkpoint's partial evaluation keep the whole jvp scan (primal carries too) in
  # the linear part: its transpose runs the primal carries forwards first
  xs = jnp.arange(1.0, 4.0)
  f = lambda x: lax.scan(lambda c, x: (jnp.sin(c) * x, None), x, xs)[0]  # noqa: E731
  expected = ember.grad(f)(0.3)
  np.testing.assert_allclose(ember.grad(ember.jit(f))(0.3), expected, rtol=1e-6)
  np.testing.assert_allclose(ember.grad(ember.checkpoint(f))(0.3), expected, rtol=1e-6)
  body = ember.checkpoint(lambda c, x: (jnp.sin(c) * x, None))
  np.testing.assert_allclose(ember.grad(lambda x: lax.scan(body, x, xs)[0])(0.3), expected,
                             rtol=1e-6)


def test_grad_matches_python_loop(x64):
  args = data(np.random.RandomState(3), dtype=np.float64)
  loss = lambda w: jnp.sum(rnn(args[0], args[1], w, args[3])[1]["norm"])  # noqa: E731
  eps, w = 1e-6, args[2]
  fd = np.zeros_like(w)
  for idx in np.ndindex(*w.shape):
    d = np.zeros_like(w)
    d[idx] = eps
    fd[idx] = (py_rnn(args[0], args[1], w + d, args[3])[1]["norm"].sum() -
               py_rnn(args[0], args[1], w - d, args[3])[1]["norm"].sum()) / (2 * eps)
  np.testing.assert_allclose(ember.jit(ember.grad(loss))(w), fd, rtol=1e-6)


# --- batching --------------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes", [(0, 0, None, None), (None, 1, None, 0), (0, -1, 2, None)])
def test_vmap_scan(in_axes):
  rng = np.random.RandomState(4)
  h, xs, w, u = data(rng, steps=4)
  batch = lambda x, ax: x if ax is None else np.stack([x * (i + 1) for i in range(3)], ax)  # noqa: E731
  args = [batch(v, ax) for v, ax in zip([h, xs, w, u], in_axes)]
  check_batch(rnn, args, in_axes, rtol=1e-5)


def test_vmap_of_vmap_and_of_grad():
  rng = np.random.RandomState(5)
  xs = rng.randn(2, 4, 3).astype(np.float32)
  f = lambda xs: lax.scan(lambda c, x: (c + jnp.sin(x), c * x), jnp.zeros(()), xs)  # noqa: E731
  check_batch(ember.vmap(f, in_axes=1), [xs], 2, 0)
  h, _, w, u = data(rng)
  g = lambda xs: ember.grad(lambda w: jnp.sum(rnn(h, xs, w, u)[0]))(w)  # noqa: E731
  batch = rng.randn(3, 5, 3).astype(np.float32)
  per_example = ember.jit(ember.vmap(g))(batch)
  np.testing.assert_allclose(per_example, [g(x) for x in batch], rtol=1e-5, atol=1e-6)
