"""lax reductions, argmax/argmin, cumulative reductions, sort, top_k and dot_general: values
against NumPy (eagerly and under jit), dtypes, edge cases, errors and printed jaxprs."""
import numpy as np
import pytest

import ember
from ember import lax
from ember.dtypes import bfloat16

DTYPES = [np.bool_, np.int8, np.int32, np.uint32, np.float16, bfloat16, np.float32, np.complex64]
NUMERIC = DTYPES[1:]
REAL = DTYPES[:-1]
_TOL = {np.dtype(np.float16): 1e-2, np.dtype(bfloat16): 3e-2, np.dtype(np.float32): 1e-5,
        np.dtype(np.complex64): 1e-5}


def _ids(dts):
  return [np.dtype(d).name for d in dts]


def data(shape, dtype, seed=0):
  """Small random values of ``dtype``: ints in [-3, 3] (or [0, 5]), floats ~ N(0, 1)."""
  rng = np.random.RandomState(seed)
  dt = np.dtype(dtype)
  if dt == np.bool_:
    return rng.rand(*shape) > 0.5
  if dt.kind in "iu":
    lo = 0 if dt.kind == "u" else -3
    return np.asarray(rng.randint(lo, lo + 6, size=shape)).astype(dt)
  if dt.kind == "c":
    return np.asarray(rng.randn(*shape) + 1j * rng.randn(*shape)).astype(dt)
  return np.asarray(rng.randn(*shape)).astype(dt)


def check(got, want, dtype=None):
  """``got`` (an ember array) equals ``want`` in dtype, shape and value (NaN == NaN)."""
  want = np.asarray(want)
  dt = np.dtype(dtype if dtype is not None else want.dtype)
  got_np = np.asarray(got)
  assert got_np.dtype == dt, (got_np.dtype, dt)
  assert got_np.shape == want.shape, (got_np.shape, want.shape)
  tol = _TOL.get(dt)
  if tol is None:
    np.testing.assert_array_equal(got_np, want.astype(dt))
  else:
    wide = np.complex128 if dt.kind == "c" else np.float64
    np.testing.assert_allclose(got_np.astype(wide), want.astype(wide), rtol=tol, atol=tol)


def both(f, *args):
  """``f(*args)`` eagerly and under ``ember.jit``."""
  return [f(*args), ember.jit(f)(*args)]


def wide(x):
  """A float64/complex128/int64 copy of ``x`` for computing references."""
  dt = np.dtype(x.dtype)
  if dt.kind == "c":
    return x.astype(np.complex128)
  if dt.kind == "f" or dt == np.dtype(bfloat16):
    return x.astype(np.float64)
  return x.astype(np.int64) if dt.kind in "iu" else x


# --- monoid reductions ------------------------------------------------------------------------

def _np_reduce(name, x, axes):
  dt = x.dtype
  if name in ("reduce_sum", "reduce_prod"):
    f = np.sum if name == "reduce_sum" else np.prod
    return f(wide(x), axis=axes).astype(dt)
  if name in ("reduce_max", "reduce_min"):
    if x.size == 0:
      big = name == "reduce_min"
      if dt == np.bool_:
        fill = big
      elif dt.kind in "iu":
        info = np.iinfo(dt)
        fill = info.max if big else info.min
      else:
        fill = np.inf if big else -np.inf
      shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
      return np.full(shape, fill).astype(dt)
    f = np.max if name == "reduce_max" else np.min
    return f(wide(x), axis=axes).astype(dt)
  ufunc = {"reduce_and": np.bitwise_and, "reduce_or": np.bitwise_or,
           "reduce_xor": np.bitwise_xor}[name]
  return ufunc.reduce(x, axis=axes) if axes else x


_REDUCTION_CASES = (
    [(n, d) for n in ("reduce_sum", "reduce_prod") for d in NUMERIC]
    + [(n, d) for n in ("reduce_max", "reduce_min") for d in DTYPES]
    + [(n, d) for n in ("reduce_and", "reduce_or", "reduce_xor")
       for d in (np.bool_, np.int8, np.int32, np.uint32)])


@pytest.mark.parametrize("name,dtype", _REDUCTION_CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in _REDUCTION_CASES])
def test_reductions_match_numpy(name, dtype):
  dt = np.dtype(dtype)
  x = data((3, 4), dt)
  fn = getattr(lax, name)
  for axes in [(0,), (1, 0)]:
    for got in both(lambda x: fn(x, axes), x):
      check(got, _np_reduce(name, x, tuple(sorted(axes))), dt)
  empty = data((0, 3), dt)
  check(fn(empty, (0,)), _np_reduce(name, empty, (0,)), dt)


def test_reductions_nan_and_special_values():
  x = np.array([[1., np.nan, -np.inf], [2., 3., -0.]], np.float32)
  for got in both(lambda x: lax.reduce_max(x, (1,)), x):
    check(got, np.array([np.nan, 3.], np.float32))
  check(lax.reduce_min(x, (0,)), np.array([1., np.nan, -np.inf], np.float32))
  check(lax.reduce_max(np.zeros((0,), bfloat16), (0,)), np.array(-np.inf, bfloat16))
  check(lax.reduce_min(np.zeros((2, 0), np.uint32), (1,)), np.full(2, 2**32 - 1, np.uint32))
  check(lax.reduce_and(np.zeros((0,), np.int8), (0,)), np.int8(-1))
  check(lax.reduce_prod(np.zeros((0, 2), np.complex64), (0, 1)), np.complex64(1))


def test_reductions_of_scalars_and_no_axes_keep_weak_type():
  out = lax.reduce_sum(2.0, ())
  check(out, np.float32(2))
  assert out.aval.weak_type
  assert not lax.reduce_xor(3, ()).aval.weak_type  # logical reductions drop weak types
  x = data((2, 3), np.int32)
  check(ember.jit(lambda x: lax.reduce_max(x, ()))(x), x)


def test_reduction_errors():
  x = np.ones((3, 4), np.float32)
  with pytest.raises(TypeError, match="reduce_sum does not accept dtype bool. Accepted dtypes "
                     "are subtypes of number"):
    lax.reduce_sum(np.ones(3, bool), (0,))
  with pytest.raises(TypeError, match="logical reduction requires operand dtype bool or int, "
                     "got float32"):
    lax.reduce_or(x, (0,))
  with pytest.raises(ValueError, match=r"reduction axes \(2,\) contains out-of-bounds indices "
                     r"for float32\[3,4\]"):
    lax.reduce_sum(x, (2,))
  with pytest.raises(ValueError, match="out-of-bounds"):
    lax.reduce_max(x, (-1,))
  with pytest.raises(ValueError, match=r"duplicate value in 'axes' of reduction: \(0, 0\)"):
    lax.reduce_min(x, (0, 0))
  with pytest.raises(TypeError):
    lax.reduce_sum(x, 1)  # axes must be a sequence
  with pytest.raises(TypeError):
    ember.jit(lambda x, a: lax.reduce_sum(x, (a,)))(x, 0)  # axes must be static


# --- argmax / argmin --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL, ids=_ids(REAL))
def test_argmax_argmin_match_numpy(dtype):
  x = data((4, 5), dtype, seed=1)  # small ints: many ties, which go to the first index
  for axis in (0, 1):
    for got in both(lambda x: lax.argmax(x, axis, np.int32), x):
      check(got, np.argmax(x, axis=axis), np.int32)
    check(lax.argmin(x, axis, np.int8), np.argmin(x, axis=axis), np.int8)


def test_argmax_nan_ties_and_index_dtype():
  x = np.array([[1., np.nan, 3., np.nan], [-np.inf, -np.inf, 0., -0.],
                [2., 5., 5., 1.]], np.float32)
  for got in both(lambda x: lax.argmax(x, 1, np.int32), x):
    check(got, np.array([1, 2, 1], np.int32))  # first NaN, then the first of tied maxima
  for got in both(lambda x: lax.argmin(x, 1, np.uint8), x):
    check(got, np.array([1, 0, 3], np.uint8))
  check(lax.argmax(np.zeros((0, 3), np.float32), 1, np.int32), np.zeros(0, np.int32))
  out = lax.argmax(np.array([1., 2.], np.float32), 0, "int16")
  check(out, np.int16(1))
  assert not out.aval.weak_type


def test_argmax_errors():
  x = np.ones((3, 4), np.float32)
  with pytest.raises(ValueError, match="Invalid axis -1 for operand shape"):
    lax.argmax(x, -1, np.int32)
  with pytest.raises(ValueError, match="Invalid axis 2"):
    lax.argmin(x, 2, np.int32)
  with pytest.raises(TypeError, match="index_dtype must be an integer type, but got float32"):
    lax.argmax(x, 0, np.float32)
  with pytest.raises(TypeError, match="index_dtype must be an integer type, but got bool"):
    lax.argmax(x, 0, bool)
  with pytest.raises(ValueError, match="require non-empty reduced dimension"):
    lax.argmax(np.ones((0, 3), np.float32), 0, np.int32)
  with pytest.raises(TypeError, match="argmax does not accept dtype complex64"):
    lax.argmax(x.astype(np.complex64), 0, np.int32)


# --- cumulative reductions --------------------------------------------------------------------

def _np_cumulative(name, x, axis, reverse):
  if reverse:
    return np.flip(_np_cumulative(name, np.flip(x, axis), axis, False), axis)
  if name == "cumsum":
    return np.cumsum(x, axis=axis, dtype=x.dtype) if x.dtype.kind in "iu" else \
        np.cumsum(wide(x), axis=axis).astype(x.dtype)
  if name == "cumprod":
    return np.cumprod(x, axis=axis, dtype=x.dtype) if x.dtype.kind in "iu" else \
        np.cumprod(wide(x), axis=axis).astype(x.dtype)
  if name == "cumlogsumexp":
    return np.logaddexp.accumulate(wide(x), axis=axis).astype(x.dtype)
  ufunc = np.maximum if name == "cummax" else np.minimum
  return ufunc.accumulate(wide(x), axis=axis).astype(x.dtype)


_CUM_DTYPES = [np.int8, np.uint32, np.float16, bfloat16, np.float32, np.complex64]
_CUM_CASES = ([(n, d) for n in ("cumsum", "cumprod", "cummax", "cummin") for d in _CUM_DTYPES]
              + [("cumlogsumexp", d) for d in (np.float16, bfloat16, np.float32)])


@pytest.mark.parametrize("name,dtype", _CUM_CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in _CUM_CASES])
def test_cumulative_matches_numpy(name, dtype):
  dt = np.dtype(dtype)
  x = data((3, 5), dt, seed=2)
  fn = getattr(lax, name)
  for axis, reverse in [(1, False), (0, True)]:
    for got in both(lambda x: fn(x, axis, reverse), x):
      check(got, _np_cumulative(name, x, axis, reverse), dt)


def test_cumulative_edge_cases():
  big = np.array([100, 100, 100], np.int8)
  check(lax.cumsum(big), np.array([100, -56, 44], np.int8))  # wraps like NumPy
  x = np.array([1., np.nan, 3., -2.], np.float32)
  check(lax.cummax(x), np.array([1., np.nan, np.nan, np.nan], np.float32))
  check(lax.cumlogsumexp(np.array([1., -np.inf, 3., np.inf], np.float32)),
        np.array([1., 1., np.logaddexp(1., 3.), np.inf], np.float32))
  check(lax.cumsum(np.zeros((0, 3), np.float32), 0), np.zeros((0, 3), np.float32))
  check(lax.cumprod(np.full((1, 2), 3, np.int32), 0), np.full((1, 2), 3, np.int32))
  z = np.array([1j, 2.], np.complex64)
  want = np.log(np.cumsum(np.exp(z.astype(np.complex128))))
  check(lax.cumlogsumexp(z), want.astype(np.complex64))
  z = np.array([1 + 1j, 2j, 1 + 2j, 1 - 1j], np.complex64)  # lexicographic: ties in real part
  for got in both(lambda z: lax.cummax(z), z):
    check(got, np.array([1 + 1j, 1 + 1j, 1 + 2j, 1 + 2j], np.complex64))
  check(lax.cummin(z, reverse=True), np.array([2j, 2j, 1 - 1j, 1 - 1j], np.complex64))
  check(lax.reduce_max(z, (0,)), np.complex64(1 + 2j))
  check(lax.reduce_min(z[[0, 3]], (0,)), np.complex64(1 - 1j))


def test_cumulative_errors():
  x = np.ones((3, 4), np.float32)
  with pytest.raises(TypeError, match="cumsum does not accept dtype bool. Accepted dtypes are "
                     "subtypes of number"):
    lax.cumsum(np.ones(3, bool))
  with pytest.raises(TypeError, match="cumlogsumexp does not accept dtype int32"):
    lax.cumlogsumexp(np.ones(3, np.int32))
  with pytest.raises(ValueError, match="XLA operations do not allow negative axes"):
    lax.cumsum(x, -1)
  with pytest.raises(ValueError, match=r"axis 2 is out of bounds for array of shape \(3, 4\)"):
    lax.cummax(x, 2)
  with pytest.raises(ValueError, match="axis 0 is out of bounds"):
    lax.cumprod(np.float32(1))


# --- sort -------------------------------------------------------------------------------------

def _special_floats(dtype):
  vals = [np.nan, 1., -np.nan, -np.inf, np.inf, -0., 0., -0., 2., 1., -1.5, np.nan]
  return np.array(vals, np.float32).astype(dtype)


def _check_bits(got, want):
  """Equal values, with -0.0 and +0.0 told apart (NaN == NaN)."""
  check(got, want)
  if np.dtype(want.dtype).kind == "f" or want.dtype == np.dtype(bfloat16):
    g, w = np.asarray(got).astype(np.float32), want.astype(np.float32)
    keep = ~np.isnan(w)
    np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(w[keep]))


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids(DTYPES))
def test_sort_matches_numpy_stable(dtype):
  dt = np.dtype(dtype)
  x = data((3, 6), dt, seed=3)
  if dt.kind == "f" or dt == np.dtype(bfloat16):
    x = np.stack([_special_floats(dt)[:6], _special_floats(dt)[6:], x[2]])
  ref = x.astype(np.float32) if dt == np.dtype(bfloat16) else x  # ml_dtypes sorts NaN anywhere
  for got in both(lambda x: lax.sort(x), x):
    _check_bits(got, np.sort(ref, axis=-1, kind="stable").astype(dt))
  idx = np.broadcast_to(np.arange(3, dtype=np.int32)[:, None], x.shape)
  for keys, vals in both(lambda x, i: lax.sort_key_val(x, i, 0), x, idx):
    _check_bits(keys, np.sort(ref, axis=0, kind="stable").astype(dt))
    check(vals, np.argsort(ref, axis=0, kind="stable").astype(np.int32))


def test_sort_special_floats_order_and_stability():
  x = _special_floats(np.float32)
  keys, perm = lax.sort_key_val(x, np.arange(x.size, dtype=np.int32))
  # -0.0 and 0.0 compare equal (original order kept); every NaN, whatever its sign, goes last.
  check(perm, np.array([3, 10, 5, 6, 7, 1, 9, 8, 4, 0, 2, 11], np.int32))
  check(keys, x[np.asarray(perm)])
  z = np.array([1 + 2j, 1 + 1j, 5j, complex(np.nan, 0), complex(1, np.nan), -1 + 9j],
               np.complex64)
  check(lax.sort(z), np.sort(z))


@pytest.mark.parametrize("dtype", [np.int32, np.float32], ids=["int32", "float32"])
def test_sort_multiple_operands_num_keys(dtype):
  a = data((20,), np.int8, seed=4) % 3
  b = data((20,), dtype, seed=5)
  c = np.arange(20, dtype=np.uint32)
  for sa, sb, sc in both(lambda a, b, c: lax.sort((a, b, c), num_keys=2), a, b, c):
    order = np.lexsort((b, a))
    check(sa, a[order])
    check(sb, b[order])
    check(sc, c[order])
  outs = lax.sort([a, c], num_keys=1)
  assert isinstance(outs, tuple) and len(outs) == 2
  check(outs[1], np.argsort(a, kind="stable").astype(np.uint32))


def test_sort_empty_and_unstable():
  check(lax.sort(np.zeros((0, 3), np.float32), 0), np.zeros((0, 3), np.float32))
  x = data((2, 7), np.int32, seed=6)
  check(ember.jit(lambda x: lax.sort(x, 0, is_stable=False))(x), np.sort(x, axis=0))


def test_sort_errors():
  x = np.ones((3, 4), np.float32)
  with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
    lax.sort(x, 2)
  with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
    lax.sort(np.float32(1))
  with pytest.raises(ValueError, match="num_keys=2 must equal 1 for a single operand"):
    lax.sort(x, num_keys=2)
  with pytest.raises(ValueError, match=r"num_keys=3 must be between 1 and len\(operand\)=2"):
    lax.sort([x, x], num_keys=3)
  with pytest.raises(TypeError, match="Sort requires at least one operand"):
    lax.sort([])
  with pytest.raises(TypeError, match=r"Arguments to sort must have equal shapes, got: \(3, 4\) "
                     r"\(4,\)"):
    lax.sort([x, x[0]])


# --- top_k ------------------------------------------------------------------------------------

def _np_top_k(x, k):
  order = sorted(range(x.shape[-1]), key=lambda i: (-float(wide(x)[i]), i))[:k]
  return x[order], np.array(order, np.int32)


@pytest.mark.parametrize("dtype", REAL, ids=_ids(REAL))
def test_top_k_matches_sorting(dtype):
  x = data((7,), dtype, seed=7)
  for k in (0, 3, 7):
    for vals, idx in both(lambda x: lax.top_k(x, k), x):
      want_vals, want_idx = _np_top_k(x, k)
      check(vals, want_vals)
      check(idx, want_idx)


def test_top_k_axis_nan_and_batch():
  x = data((4, 3, 5), np.float32, seed=8)
  vals, idx = ember.jit(lambda x: lax.top_k(x, 2, axis=1))(x)
  want_idx = np.argsort(-x, axis=1, kind="stable")[:, :2]
  check(idx, want_idx.astype(np.int32))
  check(vals, np.take_along_axis(x, want_idx, 1))
  y = np.array([1., np.nan, 3., 3., -0., 0.], np.float32)
  vals, idx = lax.top_k(y, 4)
  check(vals, np.array([np.nan, 3., 3., 1.], np.float32))
  check(idx, np.array([1, 2, 3, 0], np.int32))


def test_top_k_errors():
  x = np.ones((3, 4), np.float32)
  with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):
    lax.top_k(x.astype(np.complex64), 1)
  with pytest.raises(ValueError, match="k argument to top_k must be nonnegative, got -1"):
    lax.top_k(x, -1)
  with pytest.raises(ValueError, match=r"must be no larger than size along axis; got k=5 with "
                     r"shape=\[3, 4\] and axis=1"):
    lax.top_k(x, 5)
  with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
    lax.top_k(x, 1, axis=3)
  with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
    lax.top_k(x, 2.0)
  with pytest.raises(ember.errors.TracerBoolConversionError):
    ember.jit(lambda k: lax.top_k(x, k))(2)


# --- dot_general ------------------------------------------------------------------------------

def _einsum_spec(lhs_ndim, rhs_ndim, dimension_numbers):
  (lc, rc), (lb, rb) = dimension_numbers
  letters = iter("abcdefghijklmnop")
  lhs = [next(letters) for _ in range(lhs_ndim)]
  rhs = [next(letters) for _ in range(rhs_ndim)]
  for l, r in zip(lc + lb, rc + rb):
    rhs[r] = lhs[l]
  out = [lhs[d] for d in lb]
  out += [c for i, c in enumerate(lhs) if i not in lc and i not in lb]
  out += [c for i, c in enumerate(rhs) if i not in rc and i not in rb]
  return f"{''.join(lhs)},{''.join(rhs)}->{''.join(out)}"


def _np_dot(lhs, rhs, dims, out_dtype):
  spec = _einsum_spec(lhs.ndim, rhs.ndim, dims)
  if np.dtype(out_dtype) == np.bool_:
    return np.einsum(spec, lhs.astype(np.int64), rhs.astype(np.int64)) > 0
  return np.einsum(spec, wide(lhs), wide(rhs)).astype(out_dtype)


_DOT_CASES = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((4, 3, 2), (5, 2, 4), (((0,), (2,)), ((2,), (1,)))),  # batch dims not leading
    ((3, 4), (4, 3), (((0, 1), (1, 0)), ((), ()))),  # full contraction
    ((2, 3), (4,), (((), ()), ((), ()))),  # outer product
]


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids(DTYPES))
def test_dot_general_matches_einsum(dtype):
  for i, (ls, rs, dims) in enumerate(_DOT_CASES):
    lhs, rhs = data(ls, dtype, seed=i), data(rs, dtype, seed=10 + i)
    for got in both(lambda a, b: lax.dot_general(a, b, dims), lhs, rhs):
      check(got, _np_dot(lhs, rhs, dims, dtype))


@pytest.mark.parametrize("dtypes,preferred,out", [
    ((np.int8, np.int8), np.int32, np.int32),
    ((np.int8, np.int8), np.float16, np.float16),
    ((bfloat16, bfloat16), np.float32, np.float32),
    ((np.float32, np.float32), np.int32, np.int32),
    ((np.complex64, np.complex64), np.float32, np.float32),
    ((np.float32, np.int32), None, np.float32),
    ((np.uint8, np.int8), None, np.int8),
    ((np.uint16, np.int8), None, np.uint16),
    ((np.float16, bfloat16), None, bfloat16),
    ((np.float32, np.complex64), None, np.complex64),
    ((np.bool_, np.float32), None, np.float32),
])
def test_dot_preferred_and_mixed_dtypes(dtypes, preferred, out):
  lhs, rhs = data((3, 4), dtypes[0], seed=1), data((4, 2), dtypes[1], seed=2)
  for got in both(lambda a, b: lax.dot(a, b, preferred_element_type=preferred), lhs, rhs):
    want = np.einsum("ij,jk->ik", wide(lhs), wide(rhs))
    if np.dtype(out).kind != "c":
      want = want.real
    check(got, want.astype(out), out)


def test_dot_int8_accumulates_in_preferred_type():
  a = np.full((1, 8), 100, np.int8)
  check(lax.dot(a, a.T, preferred_element_type=np.int32), np.array([[80000]], np.int32))


def test_dot_shapes_and_batch_matmul():
  m, v = data((3, 4), np.float32), data((4,), np.float32, seed=1)
  check(lax.dot(m, v), (m.astype(np.float64) @ v).astype(np.float32))
  check(lax.dot(v, m.T), (v.astype(np.float64) @ m.T).astype(np.float32))
  check(lax.dot(v, v), np.dot(v.astype(np.float64), v).astype(np.float32))
  a, b = data((2, 5, 3, 4), np.float32, seed=2), data((2, 5, 4, 6), np.float32, seed=3)
  for got in both(lax.batch_matmul, a, b):
    check(got, np.matmul(a.astype(np.float64), b).astype(np.float32))
  check(lax.dot(m, m, dimension_numbers=(((1,), (1,)), ((), ()))), m @ m.T)
  empty = lax.dot_general(np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32),
                          (((1,), (0,)), ((), ())))
  check(empty, np.zeros((2, 3), np.float32))
  weak = lax.dot_general(2, 3, (((), ()), ((), ())))
  check(weak, np.int32(6))
  assert weak.aval.weak_type


def test_dot_precision_values():
  x = data((3, 4), np.float32)
  want = (x.astype(np.float64) @ x.T).astype(np.float32)
  for precision in [None, "highest", lax.Precision.HIGH, ("default", "high"),
                    lax.DotAlgorithmPreset.F32_F32_F32, "BF16_BF16_F32_X6", "F64_F64_F64"]:
    check(ember.jit(lambda a, b: lax.dot(a, b, precision=precision))(x, x.T), want)
  assert lax.Precision("float32") is lax.Precision.HIGHEST
  assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
  assert repr(lax.Precision.HIGH) == "Precision.HIGH" and str(lax.Precision.HIGH) == "HIGH"


def test_dot_general_errors():
  x = np.ones((3, 4), np.float32)
  def dg(dims, a=x, b=x, **kw):
    return lax.dot_general(a, b, dims, **kw)
  with pytest.raises(TypeError, match=r"contracting dimensions to have the same shape, got "
                     r"\(4,\) and \(3,\)"):
    dg((((1,), (0,)), ((), ())))
  with pytest.raises(TypeError, match=r"batch dimensions to have the same shape, got \(2,\) "
                     r"and \(3,\)"):
    dg((((2,), (1,)), ((0,), (0,))), np.ones((2, 3, 4)), np.ones((3, 4, 5)))
  with pytest.raises(TypeError, match="lhs dimension numbers to be nonnegative and less than"):
    dg((((-1,), (1,)), ((), ())))
  with pytest.raises(TypeError, match=r"rhs_contracting of \(3,\) for rhs of rank 2"):
    dg((((1,), (3,)), ((), ())))
  with pytest.raises(TypeError, match=r"lhs contracting dimensions to be distinct"):
    dg((((1, 1), (1, 1)), ((), ())))
  with pytest.raises(TypeError, match="lhs batch dimensions to be disjoint from contracting"):
    dg((((0,), (0,)), ((0,), (0,))))
  with pytest.raises(TypeError, match="equal numbers of lhs_batch and rhs_batch dimensions"):
    dg((((1,), (1,)), ((0,), ())))
  with pytest.raises(TypeError, match="`preferred_element_type` must not be narrower than the "
                     "original type, got preferred_element_type of int8 for result type of int32"):
    lax.dot(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32), preferred_element_type=np.int8)
  with pytest.raises(ValueError, match="Precision argument must be one of"):
    lax.dot(x, x.T, precision="foo")
  with pytest.raises(ValueError, match="Precision argument must be one of"):
    lax.dot(x, x.T, precision=(lax.Precision.HIGH, "default"))
  with pytest.raises(ValueError, match="'TF32_TF32_F32' is not supported by dot_general on CPU"):
    ember.jit(lambda a: lax.dot(a, a, precision="TF32_TF32_F32"))(
        np.ones((2, 2), np.float32))
  with pytest.raises(ValueError, match="dimension_numbers must be specified"):
    lax.dot(x, x)
  with pytest.raises(ValueError, match="dimension_numbers must be specified"):
    lax.dot(np.ones((2, 3, 4)), np.ones((4, 5)))
  with pytest.raises(ValueError, match="Arguments to batch_matmul must be at least 2D, got 1, 1"):
    lax.batch_matmul(np.ones(3), np.ones(3))
  with pytest.raises(ValueError, match="must have same ndim, got 3, 4"):
    lax.batch_matmul(np.ones((2, 3, 4)), np.ones((2, 2, 4, 5)))


# --- printed jaxprs (strings observed from JAX 0.10.2) -----------------------------------------

def test_jaxpr_prints_match_jax():
  x = np.ones((3, 4), np.float32)
  i = np.ones((3, 4), np.int32)
  assert str(ember.make_jaxpr(lambda x: lax.reduce_sum(x, (0,)))(x)) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[4] = reduce_sum[axes=(0,) out_sharding=None] a\n"
      "  in (b,) }")
  assert str(ember.make_jaxpr(lambda x: lax.reduce_prod(x, (0, 1)))(x)) == (
      "{ lambda ; a:f32[3,4]. let b:f32[] = reduce_prod[axes=(0, 1)] a in (b,) }")
  assert str(ember.make_jaxpr(lambda x: lax.argmin(x, 0, np.int32))(x)) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:i32[4] = argmin[axes=(0,) index_dtype=int32] a\n"
      "  in (b,) }")
  assert str(ember.make_jaxpr(lambda x: lax.cumprod(x, 0, reverse=True))(x)) == (
      "{ lambda ; a:f32[3,4]. let b:f32[3,4] = cumprod[axis=0 reverse=True] a in (b,) }")
  assert str(ember.make_jaxpr(lambda x, y: lax.sort_key_val(x, y, 0))(x, i)) == (
      "{ lambda ; a:f32[3,4] b:i32[3,4]. let\n"
      "    c:f32[3,4] d:i32[3,4] = sort[dimension=0 is_stable=True num_keys=1] a b\n"
      "  in (c, d) }")
  assert str(ember.make_jaxpr(lambda x: lax.top_k(x, 2, axis=-2))(x)) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[2,4] c:i32[2,4] = top_k[axis=0 k=2] a\n"
      "  in (b, c) }")


def test_dot_general_jaxpr_prints_match_jax():
  x = np.ones((3, 4), np.float32)
  i = np.ones((4, 3), np.int32)
  assert str(ember.make_jaxpr(lambda x: lax.dot_general(x, x, (((1,), (1,)), ((), ()))))(x)) \
      == ("{ lambda ; a:f32[3,4]. let\n"
          "    b:f32[3,3] = dot_general[dimension_numbers=(([1], [1]), ([], []))] a a\n"
          "  in (b,) }")
  f = lambda x: lax.dot_general(x, x, (((1,), (1,)), ((0,), (0,))), precision="highest",
                                preferred_element_type=np.float32)
  assert str(ember.make_jaxpr(f)(x)) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[3] = dot_general[\n"
      "      dimension_numbers=(([1], [1]), ([0], [0]))\n"
      "      precision=(Precision.HIGHEST, Precision.HIGHEST)\n"
      "      preferred_element_type=float32\n"
      "    ] a a\n"
      "  in (b,) }")
  f = lambda x, y: lax.dot(x, y, precision="F32_F32_F32")
  assert str(ember.make_jaxpr(f)(x, i)) == (
      "{ lambda ; a:f32[3,4] b:i32[4,3]. let\n"
      "    c:f32[3,3] = dot_general[\n"
      "      dimension_numbers=(([1], [0]), ([], []))\n"
      "      precision=F32_F32_F32\n"
      "    ] a b\n"
      "  in (c,) }")


def test_x64_dtypes(x64):
  x = data((3, 4), np.float64)
  check(lax.argmax(x, 1, np.int64), np.argmax(x, 1), np.int64)
  check(lax.cumsum(x, 1), np.cumsum(x, 1))
  check(lax.sort(x), np.sort(x))
  check(lax.dot(x, x.T, precision="highest"), x @ x.T)
  check(lax.reduce_min(np.zeros(0, np.int64), (0,)), np.iinfo(np.int64).max)
