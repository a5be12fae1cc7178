"""reduce_window (monoid and generic), max/avg pooling and their gradients, lax.reduce.

Values against a NumPy sliding-window reduction (``np_reduce_window``: dilate the operand with
the init value in the holes, pad or crop, then fold every window offset in); derivatives
against finite differences of that reference and by the inner-product identity (float64), all
cases of a test under one jit; vmap against stacking; printed jaxprs as JAX prints them;
errors with JAX's messages.
"""
import itertools

import numpy as np
import pytest
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax


def np_reduce_window(x, init, op, wd, ws=None, pad="VALID", bd=None, wdl=None):
  ones = (1,) * x.ndim
  ws, bd, wdl = ws or ones, bd or ones, wdl or ones
  if isinstance(pad, str):
    pad = lax.padtype_to_pads(x.shape, [(w - 1) * d + 1 for w, d in zip(wd, wdl)], ws, pad)
  base = np.full([(d - 1) * b + 1 if d else 0 for d, b in zip(x.shape, bd)], init, x.dtype)
  base[tuple(slice(None, None, b) for b in bd)] = x
  for a, (lo, hi) in enumerate(pad):
    base = np.pad(base, [(max(lo, 0), max(hi, 0)) if d == a else (0, 0) for d in range(x.ndim)],
                  constant_values=init)
    base = np.take(base, np.arange(max(-lo, 0), base.shape[a] - max(-hi, 0)), axis=a)
  out_shape = [max((p - (w - 1) * d - 1) // s + 1, 0)
               for p, w, d, s in zip(base.shape, wd, wdl, ws)]
  out = np.full(out_shape, init, x.dtype)
  for k in itertools.product(*[range(w) for w in wd]):
    window = tuple(slice(kk * d, kk * d + (o - 1) * s + 1, s)
                   for kk, d, o, s in zip(k, wdl, out_shape, ws))
    out = op(out, base[window])
  return out


# shape, window_dimensions, strides, padding, base_dilation, window_dilation
CASES = {
    "pool_valid": ((6, 7), (2, 2), (2, 2), "VALID", None, None),
    "pool_same": ((5, 7), (2, 2), (2, 2), "SAME", None, None),
    "same_lower": ((6, 7), (3, 2), (1, 2), "SAME_LOWER", None, None),
    "base_dilated": ((6, 7), (3, 2), (2, 1), [(1, 2), (0, 1)], (2, 1), None),
    "window_dilated": ((6, 7), (2, 3), (1, 1), [(1, 0), (2, 1)], None, (2, 2)),
    "3d": ((3, 6, 7), (1, 3, 3), (1, 2, 2), "SAME", (1, 1, 2), (1, 2, 1)),
    "negative_pad": ((9,), (4,), (3,), [(-1, 2)], None, None),
}
MONOIDS = {"sum": (0., lax.add, np.add), "max": (-np.inf, lax.max, np.maximum),
           "min": (np.inf, lax.min, np.minimum)}
# every case, every monoid, each several times (JAX has no VJP of max and min with window
# dilation: those pairs are only in the value test)
PAIRS = [("pool_valid", "max"), ("pool_same", "sum"), ("pool_same", "min"),
         ("same_lower", "max"), ("base_dilated", "max"), ("base_dilated", "sum"),
         ("window_dilated", "sum"), ("3d", "sum"), ("negative_pad", "sum"),
         ("negative_pad", "min")]


def distinct(shape, seed=0, dtype=np.float32):
  """Distinct values (no ties for max/min), exact in float32."""
  n = int(np.prod(shape))
  return (np.random.RandomState(seed).permutation(n).reshape(shape) - n // 2).astype(dtype)


def window_fn(case, monoid):
  shape, wd, ws, pad, bd, wdl = CASES[case]
  init, op, _ = MONOIDS[monoid]
  return lambda x: lax.reduce_window(x, init, op, wd, ws, pad, bd, wdl)


def reference(case, monoid, x):
  shape, wd, ws, pad, bd, wdl = CASES[case]
  init, _, np_op = MONOIDS[monoid]
  return np_reduce_window(x, init, np_op, wd, ws, pad, bd, wdl)


def test_monoid_windows_against_numpy():
  xs = {c: distinct(CASES[c][0], k) for k, c in enumerate(CASES)}
  pairs = PAIRS + [("window_dilated", "max"), ("3d", "min")]
  got = ember.jit(lambda xs: {(c, m): window_fn(c, m)(xs[c]) for c, m in pairs})(xs)
  for (c, m), y in got.items():
    np.testing.assert_array_equal(np.asarray(y), reference(c, m, xs[c]), err_msg=f"{c} {m}")
  y = window_fn("base_dilated", "max")(xs["base_dilated"])  # eagerly
  np.testing.assert_array_equal(np.asarray(y), reference("base_dilated", "max",
                                                         xs["base_dilated"]))


def test_integer_and_bool_windows():
  x = distinct((5, 6), 1, np.int32)
  info = np.iinfo(np.int32)
  for init, op, np_op in [(0, lax.add, np.add), (info.min, lax.max, np.maximum),
                          (info.max, lax.min, np.minimum)]:
    y = lax.reduce_window(x, init, op, (2, 3), (1, 2), "SAME")
    assert y.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(y), np_reduce_window(x, init, np_op, (2, 3),
                                                                  (1, 2), "SAME"))
  b = x > 0
  np.testing.assert_array_equal(np.asarray(lax.reduce_window(b, False, lax.max, (2, 2))),
                                np_reduce_window(b, False, np.maximum, (2, 2)))


# --- pooling ----------------------------------------------------------------------------------

def max_pool(x, padding):
  return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), padding)


def avg_pool(x, padding):
  return lax.reduce_window(x, 0., lax.add, (1, 2, 2, 1), (1, 2, 2, 1), padding) / 4


def np_pool_grad(x, ct, padding, kind):
  """Each 2x2 window's cotangent goes to its argmax (values are distinct), or a quarter of it
  to each of its elements inside the operand."""
  g = np.zeros_like(x)
  pads = lax.padtype_to_pads(x.shape, (1, 2, 2, 1), (1, 2, 2, 1), padding)
  lo_h, lo_w = pads[1][0], pads[2][0]
  for n, i, j, c in itertools.product(*[range(d) for d in ct.shape]):
    hs = slice(max(2 * i - lo_h, 0), 2 * i - lo_h + 2)
    ws = slice(max(2 * j - lo_w, 0), 2 * j - lo_w + 2)
    if kind == "max":
      win = x[n, hs, ws, c]
      a, b = np.unravel_index(np.argmax(win), win.shape)
      g[n, hs.start + a, ws.start + b, c] += ct[n, i, j, c]
    else:
      g[n, hs, ws, c] += ct[n, i, j, c] / 4
  return g


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_pooling_and_gradients(padding):
  """2x2 stride-2 max and average pooling of an NHWC batch, and their gradients."""
  x = distinct((2, 5, 6, 3), 3)
  ct = distinct((2, 3 if padding == "SAME" else 2, 3, 3), 4)

  def pools(x, ct):
    return (max_pool(x, padding), avg_pool(x, padding),
            ember.vjp(lambda x: max_pool(x, padding), x)[1](ct)[0],
            ember.vjp(lambda x: avg_pool(x, padding), x)[1](ct)[0])

  mp, ap, gm, ga = (np.asarray(v) for v in ember.jit(pools)(x, ct))
  np.testing.assert_array_equal(mp, np_reduce_window(x, -np.inf, np.maximum, (1, 2, 2, 1),
                                                     (1, 2, 2, 1), padding))
  np.testing.assert_allclose(ap, np_reduce_window(x, 0., np.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                                  padding) / 4)
  np.testing.assert_array_equal(gm, np_pool_grad(x, ct, padding, "max"))
  np.testing.assert_allclose(ga, np_pool_grad(x, ct, padding, "avg"))


# --- derivatives ------------------------------------------------------------------------------

@pytest.mark.usefixtures("x64")
def test_derivatives():
  """jvp against central differences of the NumPy reference; the vjp (pad + reduce_window_sum
  for sums, select_and_scatter_add for max and min: the pooling tests have more) by the
  inner-product identity."""
  rng = np.random.RandomState(0)
  with_vjp = {k for k in PAIRS if k[1] == "sum"} | {("base_dilated", "max"),
                                                    ("negative_pad", "min")}
  data = {}
  for c, m in PAIRS:
    x = distinct(CASES[c][0], 5).astype(np.float64) / 3
    data[c, m] = (x, rng.randn(*x.shape), rng.randn(*reference(c, m, x).shape))

  def derivatives(data):
    return {k: (ember.jvp(window_fn(*k), (x,), (t,))[1],
                ember.vjp(window_fn(*k), x)[1](ct)[0] if k in with_vjp else None)
            for k, (x, t, ct) in data.items()}

  got = ember.jit(derivatives)(data)
  eps = 1e-6
  for k, (x, t, ct) in data.items():
    ty = np.asarray(got[k][0])
    fd = (reference(*k, x + eps * t) - reference(*k, x - eps * t)) / (2 * eps)
    np.testing.assert_allclose(ty, fd, rtol=1e-6, atol=1e-6, err_msg=str(k))
    if k in with_vjp:
      np.testing.assert_allclose(np.vdot(ct, ty), np.vdot(np.asarray(got[k][1]), t),
                                 rtol=1e-10, err_msg=str(k))


def test_max_vjp_with_window_dilation_is_not_implemented():
  f = window_fn("window_dilated", "max")
  with pytest.raises(NotImplementedError, match="VJP not implemented for select_and_gather"):
    ember.grad(lambda x: f(x).sum())(distinct((6, 7)))


# --- generic reduce_window --------------------------------------------------------------------

def test_generic_reduce_window():
  """A product and a pytree of two operands reduced together (values and forward mode)."""
  x = distinct((6, 7), 6) / 8
  def f(x):
    prod = lax.reduce_window(x, 1., lax.mul, (2, 3), (2, 1), "SAME")
    pair = lax.reduce_window((x, 2 * x), (1., 0.), lambda a, b: (a[0] * b[0], a[1] + b[1]),
                             (3, 2), (1, 2), [(1, 0), (0, 1)], (2, 1))
    return prod, pair
  (prod, (p0, p1)), (t_prod, (t0, t1)) = ember.jit(
      lambda x, t: ember.jvp(f, (x,), (t,)))(x, np.ones_like(x))
  np.testing.assert_allclose(np.asarray(prod), np_reduce_window(x, 1., np.multiply, (2, 3),
                                                                (2, 1), "SAME"), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(p0), np_reduce_window(
      x, 1., np.multiply, (3, 2), (1, 2), [(1, 0), (0, 1)], (2, 1)), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(p1), np_reduce_window(
      2 * x, 0., np.add, (3, 2), (1, 2), [(1, 0), (0, 1)], (2, 1)), rtol=1e-6)
  eps = 1e-3
  for t, args in [(t_prod, ((2, 3), (2, 1), "SAME")),
                  (t0, ((3, 2), (1, 2), [(1, 0), (0, 1)], (2, 1)))]:
    fd = (np_reduce_window(x + eps, 1., np.multiply, *args) -
          np_reduce_window(x - eps, 1., np.multiply, *args)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(t), fd, rtol=1e-2, atol=1e-3)
  np.testing.assert_allclose(np.asarray(t1), np_reduce_window(
      2 * np.ones_like(x), 0., np.add, (3, 2), (1, 2), [(1, 0), (0, 1)], (2, 1)))
  y = lax.reduce_window(x, 0., lax.max, (2, 2))  # 0 is not max's identity: the generic op
  np.testing.assert_array_equal(np.asarray(y), np_reduce_window(x, 0., np.maximum, (2, 2)))
  with pytest.raises(ValueError, match="Linearization failed to produce known values"):
    ember.grad(lambda x: lax.reduce_window(x, 1., lax.mul, (2, 2)).sum())(x)


# --- printed jaxprs ---------------------------------------------------------------------------

_WIN = """base_dilation=(1, 1)
      padding=((0, 0), (0, 0))
      window_dilation=(1, 1)
      window_dimensions=(2, 2)"""


def test_jaxprs_match_jax():
  x = np.arange(16, dtype=np.float32).reshape(4, 4)
  mp = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")
  assert str(ember.make_jaxpr(ember.grad(lambda x: mp(x).sum()))(x)) == f"""\
{{ lambda ; a:f32[4,4]. let
    b:f32[2,2] = reduce_window_max[
      {_WIN}
      window_strides=(2, 2)
    ] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[4,4] = select_and_scatter_add[
      padding=((0, 0), (0, 0))
      select_prim=ge
      window_dimensions=(2, 2)
      window_strides=(2, 2)
    ] c a
  in (d,) }}"""
  ap = lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), (2, 2), "SAME")
  assert str(ember.make_jaxpr(ember.grad(lambda x: ap(x).sum()))(x)) == f"""\
{{ lambda ; a:f32[4,4]. let
    b:f32[2,2] = reduce_window_sum[
      {_WIN}
      window_strides=(2, 2)
    ] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[5,5] = pad[
      padding_config=((np.int64(1), np.int64(1), 1), (np.int64(1), np.int64(1), 1))
    ] c 0.0:f32[]
    e:f32[4,4] = reduce_window_sum[
      {_WIN}
      window_strides=(1, 1)
    ] d
  in (e,) }}"""
  assert str(ember.make_jaxpr(lambda x: ember.jvp(mp, (x,), (x,)))(x)).endswith("""\
    c:f32[2,2] = select_and_gather_add[
      base_dilation=(1, 1)
      padding=((0, 0), (0, 0))
      select_prim=ge
      window_dilation=(1, 1)
      window_dimensions=(2, 2)
      window_strides=(2, 2)
    ] a a
  in (b, c) }""")
  g = lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (1,), "VALID")
  assert str(ember.make_jaxpr(lambda x: ember.jvp(g, (x,), (x,)))(np.ones(5, np.float32))) == """\
{ lambda ; a:f32[5]. let
    b:f32[4] c:f32[4] = reduce_window[
      base_dilation=(1,)
      consts=()
      jaxpr={ lambda ; d:f32[] e:f32[] f:f32[] g:f32[]. let
          h:f32[] = mul d f
          i:f32[] = mul e f
          j:f32[] = mul d g
          k:f32[] = add_any i j
        in (h, k) }
      padding=((0, 0),)
      window_dilation=(1,)
      window_dimensions=(2,)
      window_strides=(1,)
    ] a a 1.0:f32[] 0.0:f32[]
  in (b, c) }"""


def test_reduce_jaxprs_match_jax():
  x, y = np.ones(5, np.float32), np.ones(5, np.int32)
  assert str(ember.make_jaxpr(lambda x: lax.reduce(x, 0., lax.add, (0,)))(x)) == """\
{ lambda ; a:f32[5]. let
    b:f32[] = reduce_sum[axes=(0,) out_sharding=None] a
  in (b,) }"""
  pair = lambda x, y: lax.reduce((x, y), (0., 0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,))
  fn = "test_reduce_jaxprs_match_jax.<locals>.<lambda>.<locals>.<lambda>"
  assert str(ember.make_jaxpr(pair)(x, y)) == """\
{ lambda ; a:f32[5] b:i32[5]. let
    c:f32[] d:i32[] = reduce[
      computation=<function FN at 0xXXXXXXXXXXXX>
      dimensions=(0,)
      jaxpr={ lambda ; e:f32[] f:i32[] g:f32[] h:i32[]. let
          i:f32[] = add e g
          j:i32[] = mul f h
        in (i, j) }
    ] a b 0.0:f32[] 0:i32[]
  in (c, d) }""".replace("FN", fn)


# --- lax.reduce -------------------------------------------------------------------------------

def argmax_pair(a, b):
  """(value, index) pairs: the larger value wins, ties go to the smaller index."""
  pick_a = (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
  return lax.select(pick_a, a[0], b[0]), lax.select(pick_a, a[1], b[1])


def test_reduce_values():
  x = distinct((4, 5), 7)
  idx = np.broadcast_to(np.arange(5, dtype=np.int32), (4, 5))
  v, i = lax.reduce((x, idx), (-np.inf, np.int32(0)), argmax_pair, (1,))
  np.testing.assert_array_equal(np.asarray(v), x.max(1))
  np.testing.assert_array_equal(np.asarray(i), x.argmax(1))
  out = ember.jit(lambda x: lax.reduce(x, 1., lambda a, b: a * b, (0, 1)))(x / 10)
  np.testing.assert_allclose(float(out), np.prod(x / 10), rtol=1e-5)
  # monoids become the dedicated reductions, keeping JAX's weak types
  assert lax.reduce(x, 0, lax.add, (0,)).dtype == jnp.float32
  assert lax.reduce(lax.broadcast_in_dim(1.0, (3,), ()), 1., lax.mul, (0,)).weak_type
  b = x > 0
  np.testing.assert_array_equal(np.asarray(lax.reduce(b, True, lax.bitwise_and, (1,))),
                                b.all(1))
  xi = distinct((3, 4), 8, np.int32)
  np.testing.assert_array_equal(np.asarray(lax.reduce(xi, 0, lax.bitwise_xor, (0,))),
                                np.bitwise_xor.reduce(xi, 0))


@pytest.mark.usefixtures("x64")
def test_reduce_derivatives():
  """The jvp reduces (primal, tangent) pairs in a balanced tree of the computation's jvp, so
  reverse mode works: both against finite differences."""
  rng = np.random.RandomState(1)
  x, t = rng.rand(3, 5) + 0.5, rng.randn(3, 5)
  prod = lambda x: lax.reduce(x, 1., lambda a, b: a * b, (1,))
  got_t = ember.jit(lambda x, t: ember.jvp(prod, (x,), (t,))[1])(x, t)
  eps = 1e-6
  np.testing.assert_allclose(np.asarray(got_t), (np.prod(x + eps * t, 1) -
                                                 np.prod(x - eps * t, 1)) / (2 * eps), rtol=1e-6)
  g = ember.jit(ember.grad(lambda x: prod(x).sum()))(x)
  np.testing.assert_allclose(np.asarray(g), np.prod(x, 1, keepdims=True) / x, rtol=1e-10)


# --- vmap -------------------------------------------------------------------------------------

def test_vmap():
  """Monoid windows keep the batch axis in place (a window of one there); the generic ops and
  lax.reduce take it to the front."""
  x = distinct((3, 5, 6), 9)
  pool = ember.jit(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 1), "SAME"))
  for ax in (0, 1, -1):
    check_batch(pool, [np.moveaxis(x, 0, ax)], ax, jit=False)
  text = str(ember.make_jaxpr(ember.vmap(pool, 1, out_axes=1))(np.moveaxis(x, 0, 1)))
  assert "window_dimensions=(2, 1, 2)" in text and "transpose" not in text
  generic = lambda x: lax.reduce_window(x, 1., lax.mul, (2, 2), (1, 2), "VALID")
  check_batch(generic, [x / 8], 0, out_axes=1)
  check_batch(lambda x: lax.reduce(x, 0., lambda a, b: a + b, (0,)), [x], 2)
  check_batch(ember.vmap(lambda x: lax.reduce_window(x, 0., lax.add, (2,))), [x], 1, jit=False)


def test_vmap_of_gradients():
  """Per-example gradients of max and average pooling (select_and_scatter_add and the pad +
  reduce_window_sum transpose, batched) against NumPy, and vmap of the max's jvp
  (select_and_gather_add) against stacking."""
  x, ct = distinct((3, 1, 5, 6, 2), 10), distinct((3, 1, 3, 3, 2), 11)
  grads = ember.jit(ember.vmap(lambda x, ct: [
      ember.grad(lambda x: jnp.sum(pool(x, "SAME") * ct))(x) for pool in (max_pool, avg_pool)]))
  gm, ga = grads(x, ct)
  for i in range(3):
    np.testing.assert_array_equal(np.asarray(gm[i]), np_pool_grad(x[i], ct[i], "SAME", "max"))
    np.testing.assert_allclose(np.asarray(ga[i]), np_pool_grad(x[i], ct[i], "SAME", "avg"))
  jvp = ember.jit(lambda x, t: ember.jvp(lambda x: max_pool(x, "VALID"), (x,), (t,))[1])
  check_batch(jvp, [x, x[::-1]], (0, 0), jit=False)


# --- errors -----------------------------------------------------------------------------------

X = np.arange(16, dtype=np.float32).reshape(4, 4)
ERRORS = [
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 0), (1, 1)), TypeError,
     r"window_dimensions must have every element be strictly positive, got \(2, 0\)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (0, 1)), TypeError,
     r"window_strides must have every element be strictly positive, got \(0, 1\)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1, 1), "VALID", (0, 1)), TypeError,
     r"All dilations must be positive, got \(0, 1\)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2,), (1,)), TypeError,
     r"got the wrong number of window_dimensions for operand: got operand shape \(4, 4\) with "
     r"window_dimensions \(2,\)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1,)), TypeError,
     "inconsistent window_strides and window_dimensions"),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1, 1), "FOO"), RuntimeError,
     "Unrecognized padding type"),
    (lambda: lax.reduce_window(X, np.int32(1), lax.mul, (2, 2)), TypeError,
     "inconsistent dtypes for operands and init_values"),
    (lambda: lax.reduce_window(X, np.ones(2, np.float32), lax.mul, (2, 2)), TypeError,
     r"expected init_values to be scalars but init_values have shapes \[\(2,\)\]."),
    (lambda: lax.reduce_window(X > 3, False, lax.add, (2, 2)), TypeError,
     "operand to reduce_window_sum must have a number dtype, got bool"),
    (lambda: lax.reduce_window((X, X), [0., 0.], lax.add, (2, 2)), ValueError,
     "Operands must have the same tree structure as init_values"),
    (lambda: lax.reduce_window((X, X), (0., 0.), lambda a, b: [a[0], b[1]], (2, 2)), ValueError,
     "reduce_window output must have the same tree structure as the operands"),
    (lambda: lax.reduce(X, np.ones(2, np.float32), lambda a, b: a + b, (0,)), ValueError,
     r"reduce found non-scalar initial value: \[\(2,\)\]"),
    (lambda: lax.reduce(X, np.int32(0), lambda a, b: a + b, (0,)), TypeError,
     "reduce operand dtypes should match corresponding initial value dtypes"),
    (lambda: lax.reduce(X, 0., lambda a, b: a + b, (0, 0)), ValueError, "must be distinct axes"),
    (lambda: lax.reduce(X, 0., lambda a, b: (a + b, a), (0,)), TypeError,
     r"computation must return 1 scalar\(s\)"),
    (lambda: lax.reduce(X, 0., lambda a, b: a.astype(jnp.int32), (0,)), TypeError,
     r"computation must return 1 scalar\(s\) of the init values' types \(f32\[\]\)"),
]


@pytest.mark.parametrize("f,exc,msg", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_errors(f, exc, msg):
  with pytest.raises(exc, match=msg):
    f()
