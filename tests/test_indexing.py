"""Indexing: ``x[idx]`` and ``x.at[idx].<op>(y)`` against NumPy, eagerly and under jit.

Out-of-bounds behaviour and jaxprs follow JAX 0.10.2 (reads clamp, updates are dropped,
negative indices wrap once; x[0] is slice+squeeze, x[i] a gather in PROMISE_IN_BOUNDS mode).
"""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import errors

X_NP = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
s_ = np.s_
MASK3 = np.array([True, False, True])
MASK34 = (np.arange(12).reshape(3, 4) % 3 == 0)

# (index, comment): each compared with NumPy on X_NP (shape (3, 4, 5)).
CASES = [
    (0, "int"),
    (-1, "negative int"),
    (s_[1, 2], "two ints"),
    (s_[1, -2, 3], "three ints"),
    (s_[1:], "slice"),
    (s_[::2], "stepped slice"),
    (s_[::-1], "reversed"),
    (s_[1:, ::-2], "slice + negative step"),
    (s_[:, 1:3, ::2], "mixed slices"),
    (s_[2:0:-1, :, -1:0:-2], "negative steps with bounds"),
    (s_[-100:100], "clipped slice bounds"),
    (s_[5:], "empty slice"),
    (s_[3:1], "empty reversed bounds"),
    (None, "newaxis"),
    (s_[:, None], "newaxis inside"),
    (s_[..., 1], "ellipsis then int"),
    (s_[1, ..., None], "int, ellipsis, newaxis"),
    (s_[None, ..., None], "newaxes around ellipsis"),
    ((), "empty tuple"),
    (Ellipsis, "ellipsis alone"),
    (np.int32(1), "numpy scalar"),
    (np.array(2), "0-d numpy array"),
    (np.array([0, 2]), "int array"),
    (np.array([-1, 0, -3]), "negative int array"),
    (np.array([[0, 1], [2, 0]]), "2-d int array"),
    (np.array([], np.int32), "empty int array"),
    (np.array([1, 2], np.uint8), "uint8 array"),
    (s_[:, [0, 3]], "list after slice"),
    (s_[:, []], "empty list after slice"),
    (s_[[0, 1], :, [1, 2]], "arrays separated by a slice"),
    (s_[:, [0, 1], [1, 2]], "adjacent arrays after a slice"),
    (s_[[0, 1], 1], "array then int (adjacent)"),
    (s_[[0, 1], :, 1], "array and int separated"),
    (s_[1, :, [0, 4]], "int and array separated"),
    (s_[:, [0, 1], None, [1, 2]], "arrays separated by newaxis"),
    (s_[[[0], [1]], :, [0, 1, 2]], "broadcast index arrays"),
    (s_[::2, [1, 3]], "strided slice then array"),
    (s_[[0, 2], ::-1, 1:3], "array, reversed slice, slice"),
    (s_[1:, [2, 0], None], "slice, array, newaxis"),
    (MASK3, "boolean mask"),
    (MASK34, "2-d boolean mask"),
    (s_[MASK3, 1], "mask then int"),
    (s_[:, np.array([True, False, False, True])], "mask on axis 1"),
    (True, "True"),
    (False, "False"),
    (s_[True, 1], "True then int"),
    (s_[None, [0, 1], True], "newaxis, array, True"),
]
IDS = [c for _, c in CASES]


def _np_index(idx):
  """NumPy's spelling of the same index."""
  return idx


@pytest.fixture(scope="module")
def x():
  return ember.device_put(X_NP)


@pytest.mark.parametrize("idx", [c for c, _ in CASES], ids=IDS)
def test_getitem_matches_numpy_eager_and_jit(x, idx):
  expected = X_NP[_np_index(idx)]
  got = x[idx]
  assert got.dtype == np.float32 and got.shape == expected.shape
  np.testing.assert_array_equal(np.asarray(got), expected)
  jitted = ember.jit(lambda a: a[idx])(x)
  np.testing.assert_array_equal(np.asarray(jitted), expected)


@pytest.mark.parametrize("idx", [np.array([0, 2]), np.array([[1], [-1]]),
                                 np.array([3, -4, 10])], ids=["1d", "2d", "out of bounds"])
def test_index_array_as_jit_argument_clamps(x, idx):
  expected = X_NP[np.clip(np.where(idx < 0, idx + 3, idx), 0, 2)]
  got = ember.jit(lambda a, i: a[i])(x, idx)
  np.testing.assert_array_equal(np.asarray(got), expected)
  np.testing.assert_array_equal(np.asarray(x[ember.device_put(idx)]), expected)


def test_out_of_bounds_reads_clamp_as_jax():
  a = ember.device_put(np.arange(3, dtype=np.int32))
  assert a[np.array([5, -7])].tolist() == [2, 0]
  assert int(a[5]) == 2 and int(a[-4]) == 0 and int(a[-100]) == 0
  assert a.at[np.array([5, -1])].get(mode="fill").tolist() == [-2147483648, 2]
  assert a.at[np.array([-4, 3])].get(mode="fill", fill_value=-1).tolist() == [-1, -1]
  assert a.at[np.array([0, 9])].get(mode="clip").tolist() == [0, 2]
  f = ember.device_put(np.arange(3, dtype=np.float32))
  assert np.isnan(float(f.at[5].get(mode="fill")))
  assert f.at[1:].get(mode="fill").tolist() == [1., 2.]  # slices never leave the array
  assert f.at[::-2].get(mode="fill").tolist() == [2., 0.]
  with pytest.raises(ValueError, match='Unknown gather mode "bad"'):
    a.at[0].get(mode="bad")


def test_traced_scalar_indices(x):
  f = ember.jit(lambda a, k: (a[k], a[k, 1:3], a[1, k], a[k, ::2], a[:, k, None]))
  for k in [0, 2, -1, -3, 5, -10]:
    kc = min(max(k + 3 if k < 0 else k, 0), 2)
    k4 = min(max(k + 4 if k < 0 else k, 0), 3)
    outs = f(x, k)
    for got, want in zip(outs, [X_NP[kc], X_NP[kc, 1:3], X_NP[1, k4], X_NP[kc, ::2],
                                X_NP[:, k4, None]]):
      np.testing.assert_array_equal(np.asarray(got), want)
  upd = ember.jit(lambda a, k: (a.at[k].add(1.), a.at[1, k].set(0.)))
  for k in [1, -1, 7]:
    add, put = upd(x, k)
    want_add, want_put = X_NP.copy(), X_NP.copy()
    if -3 <= k < 3:
      want_add[k] += 1
    if -4 <= k < 4:
      want_put[1, k] = 0
    np.testing.assert_array_equal(np.asarray(add), want_add)
    np.testing.assert_array_equal(np.asarray(put), want_put)
  k = ember.device_put(np.int32(1))
  np.testing.assert_array_equal(np.asarray(x[k, -1]), X_NP[1, -1])
  np.testing.assert_array_equal(np.asarray(x[np.array([0, 2]), k]), X_NP[[0, 2], 1])


def test_jaxprs_match_jax(x):
  a = ember.device_put(np.arange(12, dtype=np.float32).reshape(3, 4))
  jx = lambda f, *args: str(ember.make_jaxpr(f)(a, *args))
  assert jx(lambda v: v[0]) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[1,4] = slice[limit_indices=(1, 4) start_indices=(0, 0) strides=None] a\n"
      "    c:f32[4] = squeeze[dimensions=(0,)] b\n  in (c,) }")
  assert jx(lambda v: v[1:]) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[2,4] = slice[limit_indices=(3, 4) start_indices=(1, 0) strides=None] a\n"
      "  in (b,) }")
  assert jx(lambda v: v[:, None]) == (
      "{ lambda ; a:f32[3,4]. let\n"
      "    b:f32[3,1,4] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a\n  in (b,) }")
  assert jx(lambda v: v[::-1]) == (
      "{ lambda ; a:f32[3,4]. let b:f32[3,4] = rev[dimensions=(0,)] a in (b,) }")
  assert jx(lambda v: v[:]) == "{ lambda ; a:f32[3,4]. let  in (a,) }"
  i = ember.device_put(np.array([0, 2], np.int32))
  text = jx(lambda v: v[i])
  for piece in ["c:bool[2] = lt a 0:i32[]", "d:i32[2] = add a 3:i32[]",
                "e:i32[2] = select_n c a d",
                "f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e",
                "offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)",
                "mode=GatherScatterMode.PROMISE_IN_BOUNDS", "slice_sizes=(1, 4)"]:
    assert piece in text, (piece, text)
  assert "dynamic_slice[slice_sizes=(1, 4)]" in jx(lambda v, k: v[k], 1)
  text = jx(lambda v: v.at[0].set(10.))
  assert "b:i32[1] = broadcast_in_dim 0:i32[]" in text and "unique_indices=True" in text
  assert "mode=GatherScatterMode.FILL_OR_DROP" in text


def test_index_errors(x):
  with pytest.raises(IndexError, match="Too many indices: array is 3-dimensional, but 4 were "
                     "indexed"):
    x[0, 0, 0, 0]
  with pytest.raises(IndexError, match="single ellipsis"):
    x[..., ...]
  with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got indexer "
                     "with type float64"):
    x[1.0]
  with pytest.raises(TypeError, match="got indexer with type float32"):
    x[np.array([1.0], np.float32)]
  with pytest.raises(TypeError, match="JAX does not support string indexing; got idx='a'"):
    x["a"]
  with pytest.raises(TypeError, match="non-tuple sequence for multidimensional indexing"):
    x[[0, 1]]
  with pytest.raises(IndexError, match="only integers, slices"):
    x[{}]
  with pytest.raises(ValueError, match="slice step cannot be zero"):
    x[::0]
  with pytest.raises(IndexError, match=r"boolean index did not match shape of indexed array in "
                     r"index 0: got \(2,\), expected \[3\]"):
    x[np.array([True, False])]
  with pytest.raises(IndexError, match="Slice entries must be static integers"):
    ember.jit(lambda a, k: a[k:])(x, 1)
  s = ember.device_put(np.float32(2))
  with pytest.raises(IndexError, match="array is 0-dimensional, but 1 were indexed"):
    s[0]
  assert s[...].shape == () and s[None].shape == (1,)


def test_boolean_mask_under_jit_is_an_error(x):
  with pytest.raises(errors.NonConcreteBooleanIndexError,
                     match=r"Array boolean indices must be concrete; got bool\[3,4,5\]") as e:
    ember.jit(lambda a: a[a > 2])(x)
  assert "errors.html#jax.errors.NonConcreteBooleanIndexError" in str(e.value)
  assert isinstance(e.value, IndexError)
  with pytest.raises(errors.NonConcreteBooleanIndexError, match=r"got bool\[3\]"):
    ember.jit(lambda a, m: a[m])(x, MASK3)
  with pytest.raises(errors.NonConcreteBooleanIndexError):
    ember.jit(lambda a, m: a.at[m].set(0.))(x, MASK3)
  # a concrete mask closed over by the function is fine
  got = ember.jit(lambda a: a[MASK3, 1])(x)
  np.testing.assert_array_equal(np.asarray(got), X_NP[MASK3, 1])
  # and eagerly a device mask works too
  m = ember.device_put(MASK34)
  np.testing.assert_array_equal(np.asarray(x[m]), X_NP[MASK34])


# --- .at[] ------------------------------------------------------------------------------------

AT_CASES = [
    (np.array([0, 2, 0, -1]), "repeated and negative indices"),
    (s_[1, :, [0, 0, 4]], "int, slice, repeated array"),
    (s_[::2, 1:3], "basic slices"),
    (s_[::-2, 1], "reversed slice"),
    (s_[[0, 1], None, 2], "newaxis between"),
    (MASK3, "mask"),
]
NP_AT = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
         "min": np.minimum, "max": np.maximum}


def _expected_at(base, idx, op, y):
  out = base.copy()
  ind = _np_index(idx)
  if op == "set":
    out[ind] = y
  elif op in NP_AT:
    NP_AT[op].at(out, ind, y)
  elif op == "divide":
    f = np.ones_like(out)
    np.multiply.at(f, ind, y)
    out = out / f
  elif op == "power":
    f = np.ones_like(out)
    np.multiply.at(f, ind, y)
    out = out ** f
  return out


@pytest.mark.parametrize("idx", [c for c, _ in AT_CASES], ids=[c for _, c in AT_CASES])
def test_at_methods_match_numpy_ufunc_at(x, idx):
  shape = X_NP[_np_index(idx)].shape
  y_np = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7) - 3.0
  ops = ["set", "add", "subtract", "multiply", "min", "max", "divide", "power"]

  def run(a, y):
    ref = a.at[idx]
    return [getattr(ref, op)(y) for op in ops] + [ref.get(), ref.apply(lambda v: v * 2)]

  jitted = ember.jit(run)(x, y_np)
  eager = run(x, y_np) if idx is AT_CASES[0][0] or idx is MASK3 else jitted
  for op, e, j in zip(ops, eager, jitted):
    want = _expected_at(X_NP, idx, op, y_np)
    np.testing.assert_allclose(np.asarray(e), want, rtol=1e-6, err_msg=op)
    np.testing.assert_allclose(np.asarray(j), want, rtol=1e-6, err_msg=op)
  np.testing.assert_array_equal(np.asarray(eager[-2]), X_NP[_np_index(idx)])
  doubled = X_NP.copy()
  np.multiply.at(doubled, _np_index(idx), 2)  # apply runs once per occurrence of an index
  np.testing.assert_array_equal(np.asarray(eager[-1]), doubled)
  np.testing.assert_array_equal(np.asarray(jitted[-1]), doubled)


def test_at_out_of_bounds_updates_are_dropped():
  a = ember.device_put(np.arange(5, dtype=np.int32))
  assert a.at[np.array([1, 1, 3, 7, -9])].add(10).tolist() == [0, 21, 2, 13, 4]
  assert a.at[5].set(9).tolist() == [0, 1, 2, 3, 4]
  assert a.at[-6].set(9).tolist() == [0, 1, 2, 3, 4]
  assert a.at[-1].set(9).tolist() == [0, 1, 2, 3, 9]
  assert a.at[7].add(1, mode="clip").tolist() == [0, 1, 2, 3, 5]
  assert a.at[np.array([0, 7])].set(9, mode="promise_in_bounds").tolist()[0] == 9
  got = ember.jit(lambda v, i: v.at[i].add(1))(a, np.array([0, 5, -1], np.int32))
  assert got.tolist() == [1, 1, 2, 3, 5]


def test_at_semantics_details():
  a = ember.device_put(np.arange(3, dtype=np.float32))
  assert a.at[np.array([0, 0])].apply(lambda v: v + 1).tolist() == [2., 1., 2.]
  assert a.at[np.array([0, 0])].set(np.array([7., 8.])).tolist()[0] in (7., 8.)
  i = ember.device_put(np.arange(5, dtype=np.int32))
  out = i.at[np.array([1, 1, 3])].divide(2)
  assert out.dtype == np.float32 and out.tolist() == [0., 0.25, 2., 1.5, 4.]
  out = i.at[np.array([1, 1, 3])].power(2)
  assert out.dtype == np.int32 and out.tolist() == [0, 1, 2, 9, 4]
  u = ember.device_put(np.arange(5, dtype=np.uint8))
  assert u.at[1].add(-1).tolist() == [0, 0, 2, 3, 4]
  with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
    out = i.at[0].set(2.7)
  assert out.dtype == np.int32 and out.tolist()[0] == 2
  with pytest.raises(ValueError, match=r"Cannot broadcast to shape with fewer dimensions: "
                     r"arr_shape=\(1, 3\) shape=\(\)"):
    a.at[0].set(np.ones((1, 3), np.float32))
  with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                     r"type=float32\[2\] and requested type=float32\[3\]"):
    a.at[:].set(np.ones(2, np.float32))
  assert a.at[0].mul(3.).tolist() == a.at[0].multiply(3.).tolist()
  assert repr(a.at[1]) == "_IndexUpdateRef(Array([0., 1., 2.], dtype=float32), 1)"
  assert repr(a.at).startswith("_IndexUpdateHelper(Array(")
  b = ember.device_put(np.zeros((2, 3), np.float32))
  np.testing.assert_array_equal(np.asarray(b.at[1, None].set(np.ones((1, 3), np.float32))),
                                [[0, 0, 0], [1, 1, 1]])
  assert b.at[...].set(5.).tolist() == [[5.] * 3] * 2


def test_seed_immutable_update_and_error():
  x = jnp.array([1, 2, 3])
  y = x.at[0].set(10)
  assert x.tolist() == [1, 2, 3] and y.tolist() == [10, 2, 3]
  with pytest.raises(TypeError, match=r"JAX arrays are immutable and do not support in-place "
                     r"item assignment. Instead of x\[idx\] = y, use x = x.at\[idx\].set\(y\)"):
    x[0] = 10

  def f(v):
    v[0] = 1
  with pytest.raises(TypeError, match="JAX arrays are immutable"):
    ember.jit(f)(x)


def test_index_helpers():
  assert list(jnp.ndindex(2, 2)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
  assert jnp.index_exp[1:2] == (slice(1, 2),) and jnp.s_[1:2] == slice(1, 2)
