"""conv_general_dilated and its wrappers, jnp.convolve / jnp.correlate.

Values are checked against a direct NumPy convolution (``np_conv``: dilate, pad, then sum the
products of every window with the kernel, group by group) over dimension numbers, strides,
string and explicit (also negative) padding, lhs/rhs dilation and feature/batch groups, eagerly
and under jit. Both transposes are checked by the inner-product identity against the jvp
(itself the bilinear map checked against NumPy) in float64, and jvp against finite
differences; vmap against stacking with either or both operands batched. Printed jaxprs are
JAX's text; errors carry JAX's messages.
"""
import itertools

import numpy as np
import pytest
from ad_checks import check_jvp
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember import lax


def _dilate(x, axes, factors):
  """Insert ``factor - 1`` zeros between the elements of ``x`` along each of ``axes``."""
  shape = list(x.shape)
  for a, f in zip(axes, factors):
    shape[a] = 0 if shape[a] == 0 else (shape[a] - 1) * f + 1
  out = np.zeros(shape, x.dtype)
  idx = [slice(None)] * x.ndim
  for a, f in zip(axes, factors):
    idx[a] = slice(None, None, f)
  out[tuple(idx)] = x
  return out


def _pad(x, axes, pads):
  """Pad (positive) or crop (negative) ``x`` along ``axes``."""
  for a, (lo, hi) in zip(axes, pads):
    x = np.pad(x, [(max(lo, 0), max(hi, 0)) if d == a else (0, 0) for d in range(x.ndim)])
    n = x.shape[a]
    x = np.take(x, np.arange(max(-lo, 0), n - max(-hi, 0)), axis=a)
  return x


def np_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fgc=1, bgc=1):
  """The convolution by its definition, in canonical layout then permuted to ``dn.out_spec``."""
  lhs = np.transpose(lhs, dn.lhs_spec)
  rhs = np.transpose(rhs, dn.rhs_spec)
  n = lhs.ndim - 2
  sp = tuple(range(2, 2 + n))
  lhs = _pad(_dilate(lhs, sp, lhs_dil), sp, padding)
  rhs = _dilate(rhs, sp, rhs_dil)
  batch, features, per_group = lhs.shape[0] // bgc, rhs.shape[0], rhs.shape[1]
  out_sp = [max((d - k) // s + 1, 0) for d, k, s in zip(lhs.shape[2:], rhs.shape[2:], strides)]
  out = np.zeros([batch, features] + out_sp, np.result_type(lhs, rhs))
  groups = max(fgc, bgc)
  per = features // groups
  for g in range(groups):
    o = slice(g * per, (g + 1) * per)
    x = (lhs[g * batch:(g + 1) * batch] if bgc > 1 else
         lhs[:, g * per_group:(g + 1) * per_group] if fgc > 1 else lhs)
    for k in itertools.product(*[range(d) for d in rhs.shape[2:]]):
      window = tuple(slice(kk, kk + (m - 1) * s + 1, s) for kk, m, s in zip(k, out_sp, strides))
      patch = x[(slice(None), slice(None)) + window]
      out[:, o] += np.einsum("ni...,oi->no...", patch, rhs[(o, slice(None)) + k])
  return np.transpose(out, np.argsort(dn.out_spec))


# lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, groups
CASES = {
    "1d_valid": ((2, 3, 7), (4, 3, 3), (1,), "VALID", None, None, None, 1, 1),
    "1d_same_strided": ((2, 3, 7), (4, 3, 3), (2,), "SAME", None, None, None, 1, 1),
    "1d_same_lower_rhs_dilated": ((2, 3, 8), (4, 3, 3), (3,), "SAME_LOWER", None, (2,), None,
                                  1, 1),
    "1d_lhs_dilated": ((2, 3, 7), (4, 3, 3), (2,), [(2, 1)], (2,), (1,), None, 1, 1),
    "1d_negative_pad": ((2, 3, 7), (4, 3, 2), (1,), [(-1, 2)], (3,), (2,), None, 1, 1),
    "2d_feature_groups": ((2, 6, 7, 5), (4, 3, 3, 2), (1, 2), "SAME", None, None, None, 2, 1),
    "2d_batch_groups": ((4, 3, 7, 5), (6, 3, 3, 2), (2, 1), [(1, 0), (0, 2)], (2, 1), (1, 2),
                        None, 1, 2),
    "nhwc_groups": ((2, 7, 5, 6), (3, 2, 2, 6), (1, 2), "SAME", None, None,
                    ("NHWC", "HWIO", "NHWC"), 3, 1),
    "nhwc_to_nchw": ((2, 7, 5, 6), (3, 2, 6, 4), (2, 1), [(1, 1), (2, 0)], (1, 2), (2, 1),
                     ("NHWC", "HWIO", "NCHW"), 1, 1),
    "odd_layouts": ((5, 2, 6, 4), (4, 3, 4, 6), (1, 1), "VALID", None, None,
                    ("HWCN", "OIHW", "CNWH"), 2, 1),
    "3d": ((2, 4, 5, 3, 4), (2, 2, 3, 2, 2), (1, 2, 1), "SAME", None, (1, 1, 2), None, 2, 1),
    "0d_batch_groups": ((6, 4), (3, 4), (), [], None, None, None, 1, 3),
    "empty_output": ((2, 1, 3), (1, 1, 5), (1,), "VALID", None, None, None, 1, 1),
}


def case_fn(name):
  ls, rs, st, pad, ld, rd, dn, fgc, bgc = CASES[name]
  def f(a, b):
    return lax.conv_general_dilated(a, b, st, pad, ld, rd, dn, fgc, bgc, precision="highest")
  return f, ls, rs


def expected(name, lhs, rhs):
  ls, rs, st, pad, ld, rd, dn, fgc, bgc = CASES[name]
  n = len(ls) - 2
  dnums = lax.conv_dimension_numbers(ls, rs, dn)
  k = [rs[d] for d in dnums.rhs_spec[2:]]
  rd = rd or (1,) * n
  if isinstance(pad, str):
    window = [(kk - 1) * r + 1 for kk, r in zip(k, rd)]
    pad = lax.padtype_to_pads([ls[d] for d in dnums.lhs_spec[2:]], window, st, pad)
  return np_conv(lhs, rhs, st, pad, ld or (1,) * n, rd, dnums, fgc, bgc)


def small_ints(shape, seed):
  return np.random.RandomState(seed).randint(-3, 4, shape).astype(np.float32)


def test_values_against_numpy():
  """Every case under one jit (one compilation), then two of them eagerly."""
  args = {name: (small_ints(CASES[name][0], 1), small_ints(CASES[name][1], 2)) for name in CASES}
  got = ember.jit(lambda a: {n: case_fn(n)[0](*a[n]) for n in CASES})(args)
  for name in CASES:
    np.testing.assert_array_equal(np.asarray(got[name]), expected(name, *args[name]),
                                  err_msg=name)
  for name in ("nhwc_groups", "2d_batch_groups"):
    out = case_fn(name)[0](*args[name])
    assert isinstance(out, ember.Array) and out.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out), expected(name, *args[name]))


@pytest.mark.usefixtures("x64")
def test_derivatives():
  """The jvp of the bilinear map is the map applied to each tangent (checked against NumPy);
  both transposes satisfy <ct, J t> == <J^T ct, t> (float64). All cases under one jit; one case
  also against finite differences."""
  rng = np.random.RandomState(0)
  names = ["1d_negative_pad", "2d_batch_groups", "nhwc_groups", "0d_batch_groups"]
  data = {}
  for name in names:
    ls, rs = CASES[name][:2]
    x, w, tx, tw = rng.randn(*ls), rng.randn(*rs), rng.randn(*ls), rng.randn(*rs)
    data[name] = (x, w, tx, tw, rng.randn(*expected(name, x, w).shape))

  def derivatives(data):
    out = {}
    for name, (x, w, tx, tw, ct) in data.items():
      f = case_fn(name)[0]
      out[name] = (ember.jvp(f, (x, w), (tx, tw))[1],) + ember.vjp(f, x, w)[1](ct)
    return out

  got = ember.jit(derivatives)(data)
  for name in names:
    x, w, tx, tw, ct = data[name]
    ty, cx, cw = (np.asarray(v) for v in got[name])
    assert cx.dtype == cw.dtype == np.float64 and cx.shape == x.shape and cw.shape == w.shape
    np.testing.assert_allclose(ty, expected(name, tx, w) + expected(name, x, tw), rtol=1e-10,
                               atol=1e-10, err_msg=name)
    np.testing.assert_allclose(np.vdot(ct, ty), np.vdot(cx, tx) + np.vdot(cw, tw), rtol=1e-10,
                               err_msg=name)
  f, ls, rs = case_fn("2d_batch_groups")
  check_jvp(f, [rng.randn(*ls), rng.randn(*rs)], rng, jit=True)


def test_grad_dtypes_follow_operands():
  """With bf16 operands accumulated in f32, cotangents come back in bf16 (as in JAX)."""
  x = jnp.ones((2, 4, 5, 5), jnp.bfloat16)
  w = jnp.ones((6, 4, 3, 3), jnp.bfloat16)
  f = lambda x, w: lax.conv(x, w, (1, 1), "SAME", preferred_element_type=jnp.float32).sum()
  gx, gw = ember.jit(ember.grad(f, (0, 1)))(x, w)
  assert gx.dtype == gw.dtype == jnp.bfloat16
  assert float(gw[0, 0, 1, 1]) == 50.0 and float(gx[0, 0, 2, 2]) == 54.0


def test_complex():
  """Complex convolutions (three real ones on CPU, as JAX lowers them)."""
  rng = np.random.RandomState(0)
  x = (rng.randn(2, 3, 6) + 1j * rng.randn(2, 3, 6)).astype(np.complex64)
  w = (rng.randn(4, 3, 3) + 1j * rng.randn(4, 3, 3)).astype(np.complex64)
  dn = lax.conv_dimension_numbers(x.shape, w.shape, None)
  got = lax.conv_general_dilated(x, w, (1,), [(1, 1)], rhs_dilation=(2,))
  assert got.dtype == jnp.complex64
  np.testing.assert_allclose(np.asarray(got), np_conv(x, w, (1,), [(1, 1)], (1,), (2,), dn),
                             rtol=1e-5, atol=1e-5)


def test_integer_and_preferred_element_type():
  x = np.arange(2 * 2 * 5, dtype=np.int8).reshape(2, 2, 5)
  w = np.ones((3, 2, 2), np.int8)
  dn = lax.conv_dimension_numbers(x.shape, w.shape, None)
  out = lax.conv_general_dilated(x, w, (1,), "VALID", preferred_element_type=np.int32)
  assert out.dtype == jnp.int32
  np.testing.assert_array_equal(np.asarray(out),
                                np_conv(x.astype(np.int32), w, (1,), [(0, 0)], (1,), (1,), dn))
  assert lax.conv(x[:, :, None].astype(np.float16), w[:, :, None].astype(np.float16), (1, 1),
                  "VALID", preferred_element_type=np.float32).dtype == jnp.float32


# --- wrappers ---------------------------------------------------------------------------------

def test_seed_example():
  x = jnp.array([1, 2, 1])
  y = jnp.ones(10)
  result = lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10),
                                    window_strides=(1,), padding=[(len(y) - 1, len(y) - 1)])
  assert repr(result[0, 0]) == \
      "Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)"


def test_conv_and_conv_with_general_padding():
  x, w = small_ints((2, 3, 6, 5), 0), small_ints((4, 3, 3, 2), 1)
  dn = lax.conv_dimension_numbers(x.shape, w.shape, None)
  np.testing.assert_array_equal(np.asarray(lax.conv(x, w, (2, 1), "VALID")),
                                np_conv(x, w, (2, 1), [(0, 0)] * 2, (1, 1), (1, 1), dn))
  got = lax.conv_with_general_padding(x, w, (1, 2), [(1, 0), (2, 1)], (2, 1), (1, 2))
  np.testing.assert_array_equal(np.asarray(got),
                                np_conv(x, w, (1, 2), [(1, 0), (2, 1)], (2, 1), (1, 2), dn))


def test_conv_transpose():
  """With transpose_kernel=True and the forward padding (strings, or pairs with
  use_consistent_padding), conv_transpose is the gradient of the forward convolution with the
  same kernel (Keras' Conv2DTranspose, PyTorch's ConvTranspose2d) where the shapes fit; explicit
  pairs are otherwise the transposed convolution's own padding."""
  rng = np.random.RandomState(0)
  dn = ("NHWC", "HWIO", "NHWC")
  k = rng.randn(3, 3, 2, 4).astype(np.float32)  # forward: 2 -> 4 features
  for shape, strides, padding in [((1, 8, 8, 2), (2, 2), "SAME"),
                                  ((1, 7, 8, 2), (2, 1), "VALID"),
                                  ((1, 7, 7, 2), (1, 2), ((1, 1), (0, 2)))]:
    x = rng.randn(*shape).astype(np.float32)
    fwd = lambda x, s=strides, p=padding: lax.conv_general_dilated(
        x, k, s, p, dimension_numbers=dn, precision="highest")
    y, pullback = ember.vjp(fwd, x)
    t = lax.conv_transpose(y, k, strides, padding, dimension_numbers=dn, transpose_kernel=True,
                           use_consistent_padding=True, precision="highest")
    np.testing.assert_allclose(np.asarray(t), np.asarray(pullback(y)[0]), rtol=1e-5, atol=1e-5)
  assert lax.conv_transpose(jnp.ones((1, 4, 4, 3)), jnp.ones((3, 3, 3, 5)), (2, 2),
                            "SAME").shape == (1, 8, 8, 5)
  assert lax.conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 5), (2, 2), "SAME", dn) == \
      (1, 8, 8, 5)
  got = lax.conv_transpose(np.ones((1, 2, 1), np.float32), np.ones((2, 1, 1), np.float32), (2,),
                           [(1, 1)])
  np.testing.assert_array_equal(np.asarray(got)[..., 0], [[1., 1., 1., 1.]])


def test_shape_helpers():
  assert lax.padtype_to_pads((5, 6), (3, 2), (1, 2), "SAME") == [(1, 1), (0, 0)]
  assert lax.padtype_to_pads((5,), (4,), (1,), "SAME_LOWER") == [(2, 1)]
  assert lax.padtype_to_pads((5,), (4,), (1,), "valid") == [(0, 0)]
  assert lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")) == \
      ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
  assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == \
      lax.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2))
  assert lax.conv_shape_tuple((2, 3, 10), (4, 3, 3), (2,), "SAME") == (2, 4, 5)
  assert lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 5), (1, 1), "VALID",
                                      ("NHWC", "HWIO", "NHWC")) == (1, 6, 6, 5)


# --- printed jaxprs ---------------------------------------------------------------------------

_PARAMS = """\
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec={l}, rhs_spec={r}, out_spec={o})
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding={p}
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)"""
_ID = "(0, 1, 2, 3)"


def test_jaxpr_matches_jax():
  x, w = np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32)
  text = str(ember.make_jaxpr(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"))(x, w))
  assert text == f"""{{ lambda ; a:f32[1,2,5,5] b:f32[3,2,3,3]. let
    c:f32[1,3,5,5] = conv_general_dilated[
{_PARAMS.format(l=_ID, r=_ID, o=_ID, p="((1, 1), (1, 1))")}
    ] a b
  in (c,) }}"""


def test_grad_jaxpr_matches_jax():
  x, w = np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32)
  f = lambda x, w: lax.conv(x, w, (1, 1), "VALID").sum()
  text = str(ember.make_jaxpr(ember.grad(f, (0, 1)))(x, w))
  t = "(1, 0, 2, 3)"
  assert text == f"""{{ lambda ; a:f32[1,2,5,5] b:f32[3,2,3,3]. let
    c:f32[1,3,3,3] = conv_general_dilated[
{_PARAMS.format(l=_ID, r=_ID, o=_ID, p="((0, 0), (0, 0))")}
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2, 3) out_sharding=None] c
    d:f32[1,3,3,3] = broadcast_in_dim 1.0:f32[]
    e:f32[3,2,3,3] = conv_general_dilated[
{_PARAMS.format(l=t, r=t, o=t, p="((0, 0), (0, 0))")}
    ] a d
    f:f32[3,2,3,3] = rev[dimensions=(2, 3)] b
    g:f32[1,2,5,5] = conv_general_dilated[
{_PARAMS.format(l=_ID, r=t, o=_ID, p="((2, 2), (2, 2))")}
    ] d f
  in (g, e) }}"""


# --- vmap -------------------------------------------------------------------------------------

B = 3


def batched(shape, axis, seed):
  x = small_ints((B,) + tuple(shape) if axis is not None else shape, seed)
  return x if axis is None else np.moveaxis(x, 0, axis)


def test_vmap():
  """Either operand or both batched, at any axis, for grouped and permuted cases: one jitted
  program for all of them."""
  names = ["2d_feature_groups", "2d_batch_groups", "nhwc_to_nchw", "0d_batch_groups"]
  axes = [(0, None), (None, -1), (-1, 1)]
  args = {name: [[batched(CASES[name][0], a, k), batched(CASES[name][1], b, k + 7)]
                 for k, (a, b) in enumerate(axes)] for name in names}
  got = ember.jit(lambda args: {name: [ember.vmap(case_fn(name)[0], ax)(*a)
                                       for ax, a in zip(axes, args[name])]
                                for name in names})(args)
  for name in names:
    for g, (x, w), (ax, bx) in zip(got[name], args[name], axes):
      expect = np.stack([expected(name, x if ax is None else np.take(x, i, ax),
                                  w if bx is None else np.take(w, i, bx)) for i in range(B)])
      np.testing.assert_array_equal(np.asarray(g), expect, err_msg=f"{name} {(ax, bx)}")


def test_vmap_eager_nested_and_empty():
  f, ls, rs = case_fn("1d_same_strided")
  check_batch(f, [batched(ls, 1, 0), batched(rs, None, 1)], (1, None), jit=False)
  nested = ember.vmap(ember.vmap(f, in_axes=(None, 0)), in_axes=(0, None))
  got = ember.jit(nested)(batched(ls, 0, 2), batched(rs, 0, 3))
  assert got.shape == (B, B) + expected("1d_same_strided", np.zeros(ls), np.zeros(rs)).shape
  assert ember.vmap(f)(np.zeros((0,) + ls, np.float32), np.zeros((0,) + rs, np.float32)).shape \
      == (0, 2, 4, 4)


def test_per_example_gradients():
  """vmap of grad (the transposes get batched too) against a loop of grads."""
  x, w = batched((1, 3, 6, 5), 0, 0), small_ints((2, 3, 3, 3), 1)
  loss = lambda w, x: jnp.sum(jnp.tanh(lax.conv(x, w, (2, 1), "SAME")))
  got = ember.jit(ember.vmap(ember.grad(loss), in_axes=(None, 0)))(w, x)
  one = ember.jit(ember.grad(loss))
  for i in range(B):
    np.testing.assert_allclose(np.asarray(got[i]), np.asarray(one(w, x[i])), rtol=1e-5,
                               atol=1e-5)


# --- errors -----------------------------------------------------------------------------------

X, W4 = np.ones((2, 4, 5, 5), np.float32), np.ones((6, 4, 3, 3), np.float32)
ERRORS = [
    (dict(rhs=np.ones((6, 2, 3, 3), np.float32)), ValueError,
     "lhs feature dimension size divided by feature_group_count must equal the rhs input feature "
     "dimension size, but 4 // 1 != 2."),
    (dict(feature_group_count=3), ValueError,
     "feature_group_count must divide lhs feature dimension size, but 3 does not divide 4."),
    (dict(rhs=np.ones((5, 2, 3, 3), np.float32), feature_group_count=2), ValueError,
     "rhs output feature dimension size must be a multiple of feature_group_count, but 5 is not "
     "a multiple of 2."),
    (dict(rhs=np.ones((6, 2, 3, 3), np.float32), batch_group_count=2, feature_group_count=2),
     ValueError,
     "At most one of batch_group_count and feature_group_count may be > 1"),
    (dict(batch_group_count=3), ValueError,
     "batch_group_count must divide lhs batch dimension size, but 3 does not divide 2."),
    (dict(feature_group_count=0), ValueError, "feature_group_count must be a positive integer"),
    (dict(window_strides=(1,)), ValueError,
     "window and window_strides must have the same number of dimensions, but got 2 and 1"),
    (dict(padding=[(1, 1)]), TypeError,
     "Wrong number of explicit pads for convolution: expected 2, got 1."),
    (dict(padding="FOO"), RuntimeError, "Unrecognized padding type"),
    (dict(padding=3), ValueError, "padding argument to conv_general_dilated should be a string"),
    (dict(lhs_dilation=(2, 2)), ValueError, "String padding is not implemented for transposed"),
    (dict(padding=[(-6, 0), (0, 0)]), ValueError, "Negative padding is larger than the size"),
    (dict(rhs=np.ones((6, 4, 3), np.float32)), TypeError,
     "convolution requires lhs and rhs ndim to be equal, got 4 and 3."),
    (dict(dimension_numbers=("NCHW", "OIHW")), TypeError,
     "dimension_numbers list/tuple must be length 3, got 2."),
    (dict(dimension_numbers=("NCHW", "OIHX", "NCHW")), TypeError,
     "must each have the same set of spatial characters"),
    (dict(dimension_numbers=("NCHH", "OIHW", "NCHW")), TypeError,
     r"dimension_numbers\[0\] cannot have duplicate characters, got NCHH."),
    (dict(dimension_numbers=5), TypeError, "must be tuple/list or None"),
    (dict(rhs=W4.astype(jnp.bfloat16)), TypeError,
     "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, "
     "bfloat16."),
    (dict(preferred_element_type=np.float16), TypeError,
     "`preferred_element_type` must not be narrower than the original type."),
    (dict(window_strides=(0, 1)), TypeError, "window_strides must have every element be"),
    (dict(rhs_dilation=(0, 1), padding="VALID"), TypeError,
     r"All dilations must be positive, got \(0, 1\)."),
    (dict(precision="foo"), ValueError, "Precision argument must be one of"),
]


@pytest.mark.parametrize("kwargs,exc,msg", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_errors(kwargs, exc, msg):
  args = dict(lhs=X, rhs=W4, window_strides=(1, 1), padding="SAME")
  args.update(kwargs)
  with pytest.raises(exc, match=msg):
    lax.conv_general_dilated(**args)


# --- jnp.convolve / jnp.correlate -------------------------------------------------------------

def test_seed_convolve():
  x = jnp.array([1, 2, 1])
  y = jnp.ones(10)
  assert repr(jnp.convolve(x, y)) == \
      "Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)"


@pytest.mark.parametrize("op", ["convolve", "correlate"])
def test_convolve_correlate(op):
  """Both argument orders, every mode, against NumPy (real inputs); the ints promote to float."""
  a, v = np.array([1., 2., 3., 4., 5.]), np.array([0., 1., 0.5])
  for x, y in [(a, v), (v, a)]:
    for mode in ("full", "same", "valid"):
      got = getattr(jnp, op)(x, y, mode)
      assert got.dtype == jnp.float32
      np.testing.assert_allclose(np.asarray(got), getattr(np, op)(x, y, mode), rtol=1e-6)
  assert getattr(jnp, op)(np.arange(4), np.arange(3)).dtype == jnp.float32
  out = getattr(jnp, op)(np.arange(4), np.arange(3), preferred_element_type=np.int32)
  assert out.dtype == jnp.int32
  np.testing.assert_array_equal(np.asarray(out), getattr(np, op)(np.arange(4), np.arange(3)))


def test_complex_convolve_correlate():
  """JAX's values: correlate conjugates the kernel, and a shorter ``a`` makes JAX correlate
  ``conj(v)`` with ``a`` and reverse the result (unlike NumPy)."""
  x, y = np.array([3 + 1j, 2, 2 - 3j]), np.array([4, 2 - 5j, 1, 1j])
  np.testing.assert_allclose(np.asarray(jnp.convolve(x, y)), np.convolve(x, y), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(jnp.correlate(x, y, "full")),
                             [1 - 3j, 3 - 1j, 15j, 18 + 11j, 27 + 4j, 8 - 12j], rtol=1e-6)
  np.testing.assert_allclose(np.asarray(jnp.correlate(y, x, "full")),
                             np.correlate(y, x, "full"), rtol=1e-6)


def test_convolve_grad_vmap_and_errors():
  a, v = np.array([1., 2., 3., 4., 5.], np.float32), np.array([0., 1., 0.5], np.float32)
  ga, gv = ember.grad(lambda a, v: jnp.convolve(a, v, "same").sum(), (0, 1))(a, v)
  np.testing.assert_allclose(np.asarray(ga), [1.5, 1.5, 1.5, 1.5, 1.])
  np.testing.assert_allclose(np.asarray(gv), [14., 15., 10.])
  g = ember.grad(lambda a: jnp.sum(jnp.convolve(a, v) ** 2))(a)  # a non-linear use of it
  np.testing.assert_allclose(np.asarray(g), 2 * np.correlate(np.convolve(a, v), v, "valid"),
                             rtol=1e-6)
  got = ember.vmap(lambda a: jnp.correlate(a, v, "full"))(np.stack([a, 2 * a]))
  np.testing.assert_allclose(np.asarray(got), [np.correlate(a, v, "full"),
                                               np.correlate(2 * a, v, "full")])
  with pytest.raises(ValueError, match=r"mode must be one of \['full', 'same', 'valid'\]"):
    jnp.convolve(a, v, "foo")
  with pytest.raises(ValueError, match=r"convolve\(\) only support 1-dimensional inputs."):
    jnp.convolve(a.reshape(5, 1), v)
  with pytest.raises(ValueError, match="correlate: inputs cannot be empty"):
    jnp.correlate(a[:0], v)
  with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
    jnp.convolve([1., 2.], v)
