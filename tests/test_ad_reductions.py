"""jvp and transpose rules of the reduction, scan, dot_general, sort and top_k primitives.

Every rule is checked in float64: jvp against central finite differences, and the transpose
(through ``ember.vjp``) against the jvp with the inner-product identity
``<ct, jvp(t)> == <vjp(ct), t>``. Edge cases (zeros in products, ties of max/min and of the
scans, infinities in cumlogsumexp) are compared with the values JAX 0.10.2 gives, and a few
jaxprs with the ones JAX prints.
"""
import numpy as np
import pytest

import ember
import ad_checks
import ember.numpy as jnp
from ember import lax
from ember.core.aval import ShapedArray
from ember.primitives import linalg, reductions as red
from ember.transforms.ad_util import Zero, UndefinedPrimal, float0

RNG = np.random.RandomState(0)


def _rand(shape):
  return RNG.randn(*shape)


def _jvp(f, args, tangents):
  return ad_checks.jvp_of(f, args, tangents, jit=True)


def _pullback(f, args, cts):
  return ad_checks.pullback_of(f, args, cts, jit=True)


def check_jvp(f, args, rtol=1e-6, atol=1e-8):
  ad_checks.check_jvp(f, args, RNG, rtol, atol, jit=True)


def check_vjp(f, args):
  ad_checks.check_vjp(f, args, RNG, jit=True)


def check(f, *args):
  check_jvp(f, args)
  check_vjp(f, args)


def _distinct(shape, low=0.5, high=2.0):
  """Values well apart (no ties) and away from zero, shuffled."""
  n = int(np.prod(shape))
  vals = np.linspace(low, high, n) * np.where(np.arange(n) % 3 == 1, -1.0, 1.0)
  return RNG.permutation(vals).reshape(shape)


# --- primitives against finite differences and the inner-product identity ---------------------

CASES = {
    "reduce_sum": (lambda x: lax.reduce_sum(x, (1,)), [(2, 3)]),
    "reduce_sum_two_axes": (lambda x: lax.reduce_sum(x, (2, 0)), [(2, 3, 4)]),
    "reduce_sum_no_axes": (lambda x: lax.reduce_sum(x, ()), [(3,)]),
    "reduce_sum_empty": (lambda x: lax.reduce_sum(x, (0,)), [(0, 2)]),
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), [(2, 5)]),
    "reduce_prod_two_axes": (lambda x: lax.reduce_prod(x, (2, 0)), [(2, 3, 4)]),
    "reduce_prod_scalar": (lambda x: lax.reduce_prod(x, ()), [()]),
    "reduce_max": (lambda x: lax.reduce_max(x, (0,)), [(4, 3)]),
    "reduce_min": (lambda x: lax.reduce_min(x, (0, 1)), [(2, 3)]),
    "cumsum": (lambda x: lax.cumsum(x, 1), [(2, 4)]),
    "cumsum_reverse": (lambda x: lax.cumsum(x, 0, reverse=True), [(3, 2)]),
    "cumprod": (lambda x: lax.cumprod(x, 0), [(7,)]),
    "cumprod_reverse": (lambda x: lax.cumprod(x, 1, reverse=True), [(2, 6)]),
    "cummax": (lambda x: lax.cummax(x, 1), [(2, 5)]),
    "cummin_reverse": (lambda x: lax.cummin(x, 0, reverse=True), [(6,)]),
    "cumlogsumexp": (lambda x: lax.cumlogsumexp(x, 0), [(5, 2)]),
    "cumlogsumexp_reverse": (lambda x: lax.cumlogsumexp(x, 0, reverse=True), [(4,)]),
    "matmul": (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), [(2, 3), (3, 4)]),
    "dot_vectors": (lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))), [(3,), (3,)]),
    "outer": (lambda x, y: lax.dot_general(x, y, (((), ()), ((), ()))), [(2,), (3,)]),
    "dot_batch": (lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                  [(2, 3, 4), (2, 4, 5)]),
    "dot_batch_unsorted": (lambda x, y: lax.dot_general(x, y, (((2, 3), (2, 0)), ((0,), (1,)))),
                           [(3, 2, 3, 4), (4, 3, 3, 2)]),
    "dot_batch_last": (lambda x, y: lax.dot_general(x, y, (((0,), (1,)), ((2,), (0,)))),
                       [(3, 2, 4), (4, 3, 2)]),
    "sort": (lambda x: lax.sort(x, dimension=1), [(2, 5)]),
    "sort_dim0": (lambda x: lax.sort(x, dimension=0), [(4, 2, 3)]),
    "sort_two_keys": (lambda x, y: lax.sort((x, y), num_keys=2), [(5,), (5,)]),
    "sort_key_val": (lambda x, y: lax.sort_key_val(x, y), [(2, 4), (2, 4)]),
    "top_k": (lambda x: lax.top_k(x, 3)[0], [(2, 5)]),
    "top_k_axis0": (lambda x: lax.top_k(x, 2, axis=0)[0], [(4, 3)]),
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", list(CASES))
def test_primitive_rules(name):
  f, shapes = CASES[name]
  check(f, *[_distinct(s) for s in shapes])


@pytest.mark.usefixtures("x64")
def test_eager_rules_match_jit():
  """The rules also run eagerly, one primitive at a time, with the same numbers."""
  x, t = _distinct((2, 3)), _rand((2, 3))
  for f in (lambda v: lax.cumprod(v, 1), lambda v: lax.sort(v, 1)):
    y, ty = ember.jvp(f, (x,), (t,))
    y_jit, ty_jit = _jvp(f, [x], [t])
    # XLA may fuse a jitted multiply-add into one rounding: equal up to a few ulps.
    np.testing.assert_allclose(y, y_jit, rtol=1e-13)
    np.testing.assert_allclose(ty, ty_jit, rtol=1e-12, atol=1e-14)
    y, pullback = ember.vjp(f, x)
    c = np.ones(y.shape)
    np.testing.assert_allclose(pullback(c)[0], _pullback(f, [x], c)[0], rtol=1e-12, atol=1e-14)


@pytest.mark.usefixtures("x64")
def test_complex_cumlogsumexp_jvp():
  x = np.array([1 + 1j, 2 - 1j, -1 + 0.3j])
  t = np.array([1.0, 2j, 0.5 + 0.5j])
  y, ty = _jvp(lambda v: lax.cumlogsumexp(v, 0), [x], [t])
  eps = 1e-7
  f = lambda v: np.log(np.cumsum(np.exp(v)))
  fd = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
  np.testing.assert_allclose(np.asarray(ty), fd, rtol=1e-6)
  assert np.asarray(ty).dtype == np.complex128


# --- edge cases, as JAX computes them -----------------------------------------------------------

def _jvp1(f, x, t):
  x, t = np.asarray(x, np.float64), np.asarray(t, np.float64)
  y, ty = _jvp(f, [x], [t])
  return np.asarray(y), np.asarray(ty)


@pytest.mark.usefixtures("x64")
def test_reduce_prod_with_zeros():
  f = lambda x: lax.reduce_prod(x, (0,))
  np.testing.assert_array_equal(_jvp1(f, [2., 0., 3.], [1., 10., 100.]), [0., 60.])
  np.testing.assert_array_equal(_jvp1(f, [2., 0., 0.], [1., 10., 100.]), [0., 0.])
  np.testing.assert_array_equal(ember.grad(f)(np.array([2., 0., 3., 4.])), [0., 24., 0., 0.])
  # Reducing an empty axis: ones with a zero tangent.
  y, ty = _jvp1(lambda x: lax.reduce_prod(x, (0,)), np.zeros((0, 3)), np.zeros((0, 3)))
  np.testing.assert_array_equal(y, np.ones(3))
  np.testing.assert_array_equal(ty, np.zeros(3))
  y, ty = _jvp1(lambda x: lax.reduce_prod(x, (0, 1)), np.arange(1., 7.).reshape(2, 3),
                np.ones((2, 3)))
  assert (y, ty) == (720., 1764.)


@pytest.mark.usefixtures("x64")
def test_reduce_max_min_ties_nan_inf():
  t = [1., 10., 100., 1000.]
  assert _jvp1(lambda x: jnp.max(x), [1., 3., 3., 2.], t)[1] == 55.
  np.testing.assert_array_equal(ember.grad(jnp.max)(np.array([1., 3., 3., 2.])),
                                [0., .5, .5, 0.])
  y, ty = _jvp1(lambda x: jnp.max(x), [1., np.nan, 3., 2.], t)
  assert np.isnan(y) and np.isnan(ty)
  assert _jvp1(lambda x: jnp.min(x), [-np.inf, -np.inf, 3., 2.], t) == (-np.inf, 5.5)
  y, ty = _jvp1(lambda x: lax.reduce_max(x, (0,)), np.zeros((0, 2)), np.zeros((0, 2)))
  np.testing.assert_array_equal(y, [-np.inf, -np.inf])
  assert np.isnan(ty).all()


SCAN_EDGES = [
    (lambda x: lax.cumprod(x, 0), [2., 0., 3., 4.], [1., 10., 100., 1000.],
     [2., 0., 0., 0.], [1., 20., 60., 240.]),
    (lambda x: lax.cumprod(x, 0, reverse=True), [2., 0., 3., 4.], [1., 10., 100., 1000.],
     [0., 0., 12., 4.], [240., 120., 3400., 1000.]),
    (lambda x: lax.cummax(x, 0), [1.] * 5, [1., 10., 100., 1000., 10000.],
     [1.] * 5, [1., 5.5, 52.75, 277.75, 5138.875]),
    (lambda x: lax.cummax(x, 0, reverse=True), [1.] * 5, [1., 10., 100., 1000., 10000.],
     [1.] * 5, [1389.25, 2777.5, 2800., 5500., 10000.]),
    (lambda x: lax.cummin(x, 0), [3., 1., 2., 1., 0.], [1., 10., 100., 1000., 10000.],
     [3., 1., 1., 1., 0.], [1., 10., 10., 505., 10000.]),
    (lambda x: lax.cumlogsumexp(x, 0), [-np.inf, 1., np.inf, 1.], [1., 10., 100., 1000.],
     [-np.inf, 1., np.inf, np.inf], [1., 10., 127.18281828459045, 2845.4646467436364]),
    (lambda x: lax.cumlogsumexp(x, 0), [-np.inf, -np.inf, 0.], [1., 10., 100.],
     [-np.inf, -np.inf, 0.], [1., np.nan, np.nan]),
    # The scan adds zeros to interleave its results, which turns -0.0 into 0.0 (as in JAX).
    (lambda x: lax.cumprod(x, 0), [-0., 2., -1.], [1., 1., 1.], [0., 0., 0.], [1., 2., -2.]),
    (lambda x: lax.cumprod(x, 0), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)),
    (lambda x: lax.cummax(x, 0), [2.], [3.], [2.], [3.]),
]


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("case", range(len(SCAN_EDGES)))
def test_scan_edges_match_jax(case):
  f, x, t, y_expected, t_expected = SCAN_EDGES[case]
  y, ty = _jvp1(f, x, t)
  np.testing.assert_array_equal(y, y_expected)
  np.testing.assert_array_equal(np.signbit(y), np.signbit(np.asarray(y_expected)))
  np.testing.assert_allclose(ty, t_expected, rtol=1e-15)


def test_cumprod_jvp_float32_matches_jax():
  x = np.linspace(-3, 4, 14, dtype=np.float32).reshape(7, 2)
  y, ty = _jvp(lambda v: lax.cumprod(v, 0), [x], [np.ones_like(x)])
  assert y.dtype == ty.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(ty)[:, 0], np.array(
      [1.0, -4.923076629638672, 9.934911727905273, -2.5889852046966553, -4.512132167816162,
       -12.23286247253418, -45.857452392578125], np.float32))
  y, ty = _jvp(lambda v: lax.reduce_prod(v, (0,)),
               [np.linspace(-3, 4, 11, dtype=np.float32)], [np.ones(11, np.float32)])
  assert (float(y), float(ty)) == (-77.7488021850586, 249.33511352539062)


def test_float0_tangents():
  x = np.array([[1., 3., 2.], [0., -1., 5.]], np.float32)
  for f in (lambda v: lax.argmax(v, 1, np.int32), lambda v: lax.argmin(v, 0, np.int32)):
    y, ty = ember.jvp(f, (x,), (np.ones_like(x),))
    assert ty.dtype == float0 and ty.shape == y.shape
  i = np.array([[1, 3], [6, 7]], np.int32)
  for f in (lambda v: lax.reduce_and(v, (0,)), lambda v: lax.reduce_or(v, (1,)),
            lambda v: lax.reduce_xor(v, (0,)), lambda v: lax.reduce_max(v, (0,))):
    y, ty = ember.jvp(f, (i,), (np.zeros(i.shape, float0),))
    assert ty.dtype == float0 and ty.shape == (2,)
  # The rules themselves return symbolic zeros when asked.
  for prim, params in ((red.argmax_p, dict(axes=(1,), index_dtype=np.dtype(np.int32))),
                       (red.reduce_or_p, dict(axes=(0,)))):
    arg = x if prim is red.argmax_p else i
    out, t = prim.rule("jvp")([arg], [np.ones_like(x)], **params)
    assert type(t) is Zero and t.aval.dtype == float0
  _, (tv, ti) = ember.jvp(lambda v: lax.top_k(v, 2), (x,), (np.ones_like(x),))
  assert tv.dtype == np.float32 and ti.dtype == float0


def test_sort_and_top_k_ties_follow_the_values():
  x = np.array([1., 1., 0., 1.], np.float32)
  t = np.array([1., 2., 3., 4.], np.float32)
  y, ty = ember.jvp(lambda v: lax.sort(v), (x,), (t,))
  np.testing.assert_array_equal(ty, [3., 1., 2., 4.])  # stable: ties keep their order
  (vals, idx), (tv, _) = ember.jvp(lambda v: lax.top_k(v, 2), (x,), (t,))
  np.testing.assert_array_equal(idx, [0, 1])
  np.testing.assert_array_equal(tv, [1., 2.])
  # An integer key sorts a float operand; only the float one has a tangent.
  keys = np.array([2, 0, 1], np.int32)
  (k, v), (tk, tv) = ember.jvp(lambda v: lax.sort((keys, v), num_keys=1),
                               (np.array([5., 6., 7.], np.float32),),
                               (np.array([1., 2., 3.], np.float32),))
  np.testing.assert_array_equal(tv, [2., 3., 1.])
  assert tk.dtype == float0


# --- transposes directly, and dtypes -------------------------------------------------------------

def test_transpose_rules_directly():
  f32 = np.dtype(np.float32)
  ct = np.arange(6, dtype=np.float32).reshape(2, 3)
  (out,) = red.reduce_sum_p.rule("transpose")(
      ct, UndefinedPrimal(ShapedArray((2, 4, 3), f32)), axes=(1,), out_sharding=None)
  np.testing.assert_array_equal(out, np.broadcast_to(ct[:, None, :], (2, 4, 3)))
  (out,) = red.cumsum_p.rule("transpose")(ct, UndefinedPrimal(ShapedArray((2, 3), f32)),
                                          axis=1, reverse=False)
  np.testing.assert_array_equal(out, np.cumsum(ct[:, ::-1], 1)[:, ::-1])
  zero = Zero(ShapedArray((2, 3), f32))
  (out,) = red.cumsum_p.rule("transpose")(zero, UndefinedPrimal(ShapedArray((2, 3), f32)),
                                          axis=1, reverse=False)
  assert type(out) is Zero
  y = np.ones((3, 4), np.float32)
  dn = (((1,), (0,)), ((), ()))
  params = dict(dimension_numbers=dn, precision=None, preferred_element_type=None,
                out_sharding=None)
  ct_x, ct_y = linalg.dot_general_p.rule("transpose")(
      np.ones((2, 4), np.float32), UndefinedPrimal(ShapedArray((2, 3), f32)), y, **params)
  np.testing.assert_array_equal(ct_x, np.full((2, 3), 4., np.float32))
  assert ct_y is None
  ct_x, ct_y = linalg.dot_general_p.rule("transpose")(
      Zero(ShapedArray((2, 4), f32)), np.ones((2, 3), np.float32),
      UndefinedPrimal(ShapedArray((3, 4), f32)), **params)
  assert ct_x is None and type(ct_y) is Zero and ct_y.aval.shape == (3, 4)


def test_dot_general_mixed_dtypes_and_preferred_type():
  x = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
  y = (np.arange(12).reshape(3, 4) / 8).astype(jnp.bfloat16)
  f = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                   preferred_element_type=np.float32)
  out, pullback = ember.vjp(f, x, y)
  assert out.dtype == np.float32
  ct = np.ones((2, 4), np.float32)
  ct_x, ct_y = pullback(ct)
  assert ct_x.dtype == np.float32 and ct_y.dtype == jnp.bfloat16
  np.testing.assert_allclose(ct_x, ct @ np.asarray(y, np.float32).T, rtol=1e-6)
  np.testing.assert_allclose(np.asarray(ct_y, np.float32), x.T @ ct, rtol=1e-2)
  # An integer operand is not differentiated; the float one still is.
  i = np.arange(12, dtype=np.int32).reshape(3, 4)
  g = ember.grad(lambda a: lax.dot_general(a, i, (((1,), (0,)), ((), ()))).sum())(x)
  np.testing.assert_array_equal(g, np.broadcast_to(i.sum(1), (2, 3)).astype(np.float32))


def test_float32_grads_keep_dtypes():
  x = _distinct((2, 3)).astype(np.float32)
  for f in (lambda v: lax.reduce_sum(v, (0,)), lambda v: lax.reduce_prod(v, (1,)),
            lambda v: lax.reduce_min(v, (1,)), lambda v: lax.cumsum(v, 1),
            lambda v: lax.cummin(v, 0), lambda v: lax.sort(v, 1),
            lambda v: lax.top_k(v, 2)[0], lambda v: v @ v.T):
    g = ember.jit(ember.grad(lambda v: f(v).sum()))(x)
    assert g.dtype == np.float32 and g.shape == x.shape


# --- second order --------------------------------------------------------------------------------

@pytest.mark.usefixtures("x64")
def test_second_order():
  x = np.array([1.5, -2., 0.5, 3.])
  hess = ember.jit(ember.jacfwd(ember.grad(lambda v: lax.reduce_prod(v, (0,)))))(x)
  expected = np.array([[0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(4)]
                       for i in range(4)])
  np.testing.assert_allclose(hess, expected, rtol=1e-12)
  gg = ember.jit(ember.grad(lambda v: ember.grad(lambda w: lax.cumprod(w, 0).sum())(v).sum()))(x)
  eps = 1e-6
  g1 = lambda v: np.asarray(ember.jit(ember.grad(lambda w: lax.cumprod(w, 0).sum()))(v)).sum()
  fd = [(g1(x + eps * e) - g1(x - eps * e)) / (2 * eps) for e in np.eye(4)]
  np.testing.assert_allclose(gg, fd, rtol=1e-6)
  a = np.arange(6.).reshape(2, 3) / 5
  inner = ember.jit(ember.grad(lambda n: jnp.sum(jnp.dot(n, n.T) ** 2)))
  h = ember.jit(ember.grad(lambda m: inner(m).sum()))(a)
  g2 = lambda m: np.asarray(inner(m)).sum()
  fd = np.array([(g2(a + eps * e.reshape(2, 3)) - g2(a - eps * e.reshape(2, 3))) / (2 * eps)
                 for e in np.eye(6)]).reshape(2, 3)
  np.testing.assert_allclose(h, fd, rtol=1e-6)


# --- jaxprs, as JAX prints them ---------------------------------------------------------------

def _jvp_jaxpr(f, *shapes):
  xs = [np.ones(s, np.float32) for s in shapes]
  n = len(xs)
  return str(ember.make_jaxpr(lambda *a: ember.jvp(f, a[:n], a[n:]))(*xs, *xs))


def test_jaxprs_match_jax():
  assert _jvp_jaxpr(lambda x: lax.reduce_max(x, (1,)), (2, 3)) == """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2] = reduce_max[axes=(1,)] a
    d:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] c
    e:bool[2,3] = eq a d
    f:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] e
    g:f32[2] = reduce_sum[axes=(1,) out_sharding=None] f
    h:f32[2,3] = mul b f
    i:f32[2] = reduce_sum[axes=(1,) out_sharding=None] h
    j:f32[2] = div i g
  in (c, j) }"""
  assert _jvp_jaxpr(lambda x: lax.reduce_prod(x, (0,)), (2, 3)) == """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=(1, 1)] a
    d:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=(1, 1)] b
    e:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 1)] a
    f:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 1)] b
    g:f32[1,3] = mul c e
    h:f32[1,3] = mul d e
    i:f32[1,3] = mul c f
    j:f32[1,3] = add_any h i
    k:f32[3] = squeeze[dimensions=(0,)] g
    l:f32[3] = squeeze[dimensions=(0,)] j
  in (k, l) }"""
  assert _jvp_jaxpr(lambda x: lax.cumsum(x, 1), (2, 3)) == """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2,3] = cumsum[axis=1 reverse=False] a
    d:f32[2,3] = cumsum[axis=1 reverse=False] b
  in (c, d) }"""
  assert _jvp_jaxpr(lambda x: lax.sort(x), (3,)) == """\
{ lambda ; a:f32[3] b:f32[3]. let
    c:u32[3] = iota[dimension=0 dtype=uint32 shape=(3,) sharding=None] 
    d:f32[3] e:u32[3] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:u32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), \
start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] b f
  in (d, g) }"""


def test_grad_jaxprs_use_jax_transposes():
  x = np.ones((2, 3), np.float32)
  text = str(ember.make_jaxpr(ember.grad(lambda v: lax.reduce_sum(v, (1,)).sum()))(x))
  assert "broadcast_in_dim[broadcast_dimensions=(np.int64(0),)]" in text
  text = str(ember.make_jaxpr(ember.grad(lambda v: lax.cumsum(v, 1).sum()))(x))
  assert "cumsum[axis=1 reverse=True]" in text
  matmul = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))
  text = str(ember.make_jaxpr(ember.grad(lambda a, b: matmul(a, b).sum(), (0, 1)))(
      x, np.ones((3, 4), np.float32)))
  assert "dot_general[dimension_numbers=(([0], [0]), ([], []))]" in text
  assert "transpose[permutation=(1, 0)]" in text
  assert "dot_general[dimension_numbers=(([1], [1]), ([], []))]" in text
