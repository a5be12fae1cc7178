"""Tests for ember.numpy shape manipulation (ember/numpy/shape_ops.py) against NumPy."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.core.errors import ConcretizationTypeError

_CANON = {np.dtype("int64"): np.dtype("int32"), np.dtype("float64"): np.dtype("float32"),
          np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64")}

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)
XI = rng.integers(-5, 5, (2, 3, 4)).astype(np.int32)
V = np.arange(5, dtype=np.int32)


def _compare(got, expected, dtype=None):
  if isinstance(expected, (list, tuple)):
    assert isinstance(got, (list, tuple)) and len(got) == len(expected)
    for g, e in zip(got, expected):
      _compare(g, e, dtype)
    return
  assert isinstance(got, ember.Array), type(got)
  expected = np.asarray(expected)
  want = np.dtype(dtype) if dtype is not None else _CANON.get(expected.dtype, expected.dtype)
  assert got.dtype == want, (got.dtype, want)
  assert got.shape == expected.shape, (got.shape, expected.shape)
  if np.issubdtype(want, np.inexact):
    np.testing.assert_allclose(np.asarray(got), expected.astype(want), rtol=1e-6, atol=1e-6)
  else:
    np.testing.assert_array_equal(np.asarray(got), expected.astype(want))


def check(fn, np_fn, *args, dtype=None, jit=True):
  """``fn(*args)`` equals ``np_fn(*args)`` (values, shape, dtype) eagerly and under jit."""
  expected = np_fn(*args)
  _compare(fn(*args), expected, dtype)
  if jit:
    _compare(ember.jit(fn)(*args), expected, dtype)


# --- reshape / ravel / transpose ------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, -1), (-1,), (24,), (2, 3, 2, 2), (1, 24, 1)])
def test_reshape(shape):
  check(lambda a: jnp.reshape(a, shape), lambda a: np.reshape(a, shape), X)


def test_reshape_order_f_and_ravel():
  check(lambda a: jnp.reshape(a, (4, 6), order="F"), lambda a: np.reshape(a, (4, 6), order="F"),
        X)
  check(lambda a: jnp.ravel(a, order="F"), lambda a: np.ravel(a, order="F"), XI)
  check(jnp.ravel, np.ravel, np.float32(3))
  check(lambda a: jnp.reshape(a, (0, 5)), lambda a: np.reshape(a, (0, 5)), np.zeros((5, 0)))


def test_reshape_errors():
  x = jnp.asarray(X)
  with pytest.raises(TypeError, match=r"cannot reshape array of shape \(2, 3, 4\) \(size 24\) "
                     r"into shape \(5, 5\) \(size 25\)"):
    jnp.reshape(x, (5, 5))
  with pytest.raises(TypeError, match="can only specify one unknown axis size"):
    jnp.reshape(x, (-1, -1))
  with pytest.raises(TypeError, match="does not evenly divide 24"):
    jnp.reshape(x, (7, -1))
  with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
    jnp.reshape(x, 24.0)
  with pytest.raises(TypeError, match="reshape requires ndarray or scalar arguments"):
    jnp.reshape([1, 2, 3, 4], (2, 2))
  with pytest.raises(NotImplementedError, match="order=A"):
    jnp.reshape(x, (24,), order="A")
  with pytest.raises(NotImplementedError, match="order='K'"):
    jnp.ravel(x, order="K")
  with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
    ember.jit(lambda a, n: jnp.reshape(a, (n, -1)))(x, 4)


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (-1, 0, 1)])
def test_transpose(axes):
  check(lambda a: jnp.transpose(a, axes), lambda a: np.transpose(a, axes), X)


def test_axis_moves():
  check(lambda a: jnp.swapaxes(a, 0, -1), lambda a: np.swapaxes(a, 0, -1), X)
  check(lambda a: jnp.moveaxis(a, (0, 1), (-1, 0)), lambda a: np.moveaxis(a, (0, 1), (-1, 0)),
        X)
  check(lambda a: jnp.rollaxis(a, 2, 1), lambda a: np.rollaxis(a, 2, 1), X)
  check(lambda a: jnp.permute_dims(a, (2, 0, 1)), lambda a: np.permute_dims(a, (2, 0, 1)), XI)
  check(jnp.matrix_transpose, lambda a: np.swapaxes(a, -1, -2), X)


def test_transpose_errors():
  x = jnp.asarray(X)
  with pytest.raises(TypeError, match="isn't a permutation of operand dimensions"):
    jnp.transpose(x, (0, 1, 1))
  with pytest.raises(ValueError, match="axis 5 is out of bounds for array of dimension 3"):
    jnp.transpose(x, (0, 1, 5))
  with pytest.raises(ValueError, match="Inconsistent number of elements: 2 vs 1"):
    jnp.moveaxis(x, (0, 1), 0)
  with pytest.raises(ValueError, match="at least two-dimensional"):
    jnp.matrix_transpose(jnp.ones(3))
  with pytest.raises(IndexError):
    jnp.swapaxes(x, 0, 5)


# --- squeeze / expand_dims / atleast ------------------------------------------------------------

def test_squeeze_expand_dims():
  y = np.ones((1, 3, 1), np.float32)
  check(jnp.squeeze, np.squeeze, y)
  check(lambda a: jnp.squeeze(a, -1), lambda a: np.squeeze(a, -1), y)
  check(lambda a: jnp.expand_dims(a, (0, -1)), lambda a: np.expand_dims(a, (0, -1)), X)
  check(lambda a: jnp.expand_dims(a, 0), lambda a: np.expand_dims(a, 0), np.float32(2))
  with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size "
                     r"not equal to one, got shape=\(2, 3, 4\) and dimensions=\(0,\)"):
    jnp.squeeze(jnp.asarray(X), 0)
  with pytest.raises(ValueError, match="repeated axis"):
    jnp.expand_dims(jnp.asarray(X), (0, 0))


def test_atleast():
  for fn, np_fn in [(jnp.atleast_1d, np.atleast_1d), (jnp.atleast_2d, np.atleast_2d),
                    (jnp.atleast_3d, np.atleast_3d)]:
    for arg in [np.float32(1), np.ones(3, np.float32), np.ones((2, 3), np.float32), X]:
      _compare(fn(arg), np_fn(arg))
  out = jnp.atleast_1d(1, jnp.ones(2))
  assert isinstance(out, list) and len(out) == 2
  assert out[0].weak_type and out[0].shape == (1,)
  assert jnp.atleast_2d() == []


# --- broadcasting -------------------------------------------------------------------------------

def test_broadcast():
  check(lambda a: jnp.broadcast_to(a, (2, 3, 4)), lambda a: np.broadcast_to(a, (2, 3, 4)),
        X[0, :1])
  check(lambda a, b: jnp.broadcast_arrays(a, b), lambda a, b: list(np.broadcast_arrays(a, b)),
        X[:, :1], XI[0])
  assert jnp.broadcast_shapes((2, 1), (3,), 3) == (2, 3)
  assert jnp.broadcast_shapes() == ()
  with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                     r"shapes=\[\(2, 3\), \(4, 3\)\]"):
    jnp.broadcast_shapes((2, 3), (4, 3))
  with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
    jnp.broadcast_to(jnp.asarray(X), (3, 4))
  with pytest.raises(ValueError, match=r"input type=float32\[3\] and requested type="
                     r"float32\[4\]"):
    jnp.broadcast_to(jnp.ones(3), (4,))


# --- joining ------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, -1, None])
def test_concatenate(axis):
  check(lambda a, b: jnp.concatenate([a, b], axis=axis),
        lambda a, b: np.concatenate([a, b], axis=axis).astype(np.float32), X, XI)


def test_concatenate_dtypes_and_arrays():
  check(lambda a, b: jnp.concatenate([a, b], dtype=jnp.float16),
        lambda a, b: np.concatenate([a, b]).astype(np.float16), XI[0], XI[1].astype(np.uint8),
        dtype=np.float16)
  check(lambda a: jnp.concatenate(a, axis=1), lambda a: np.concatenate(list(a), axis=1), X)
  check(lambda a: jnp.concat([a, a], axis=-2), lambda a: np.concatenate([a, a], axis=-2), XI)
  out = jnp.concatenate([jnp.asarray(1.5).reshape(1), jnp.asarray(2).reshape(1)])
  assert out.dtype == np.float32 and out.weak_type
  check(lambda a: jnp.concatenate([a, a]), lambda a: np.concatenate([a, a]), np.zeros((0, 2)))


def test_concatenate_errors():
  with pytest.raises(ValueError, match="Need at least one array to concatenate"):
    jnp.concatenate([])
  with pytest.raises(TypeError, match="different numbers of dimensions: got \\(2,\\), \\(\\)"):
    jnp.concatenate([jnp.ones(2), 1])
  with pytest.raises(TypeError, match="differ in dimensions other than the one being "
                     "concatenated"):
    jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])
  with pytest.raises(TypeError, match="concatenate requires ndarray or scalar arguments"):
    jnp.concatenate([[1, 2], [3]])
  with pytest.raises(ValueError, match="Zero-dimensional arrays cannot be concatenated"):
    jnp.concatenate([jnp.float32(1), jnp.float32(2)])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack(axis):
  check(lambda a, b: jnp.stack([a, b], axis), lambda a, b: np.stack([a, b], axis), X, X)


def test_stacks():
  a, b = X[0, 0], X[0, 1]
  for fn, np_fn in [(jnp.hstack, np.hstack), (jnp.vstack, np.vstack), (jnp.dstack, np.dstack),
                    (jnp.column_stack, np.column_stack)]:
    check(lambda p, q, fn=fn: fn([p, q]), lambda p, q, np_fn=np_fn: np_fn([p, q]), a, b)
    check(lambda p, q, fn=fn: fn([p, q]), lambda p, q, np_fn=np_fn: np_fn([p, q]), X[0], X[1])
  check(lambda p: jnp.stack(p, axis=1), lambda p: np.stack(list(p), axis=1), X)
  check(jnp.vstack, np.vstack, X)
  _compare(jnp.stack([1, 2.0]), np.array([1, 2], np.float32))
  assert jnp.stack([1, 2.0]).weak_type
  with pytest.raises(ValueError, match="All input arrays must have the same shape"):
    jnp.stack([jnp.ones(2), jnp.ones(3)])
  with pytest.raises(ValueError, match="Need at least one array to stack"):
    jnp.stack([])


def test_append():
  check(lambda a: jnp.append(a, 5), lambda a: np.append(a, 5), XI)
  check(lambda a, b: jnp.append(a, b, axis=0), lambda a, b: np.append(a, b, axis=0), X, X[:1])


# --- splitting ----------------------------------------------------------------------------------

def test_split():
  check(lambda a: jnp.split(a, 2, axis=-1), lambda a: np.split(a, 2, axis=-1), X)
  check(lambda a: jnp.split(a, [1, 3], axis=2), lambda a: np.split(a, [1, 3], axis=2), X)
  check(lambda a: jnp.split(a, np.array([2])), lambda a: np.split(a, np.array([2])), V)
  check(lambda a: jnp.array_split(a, 3), lambda a: np.array_split(a, 3), V)
  check(lambda a: jnp.hsplit(a, 2), lambda a: np.hsplit(a, 2), X[0, :2])
  check(lambda a: jnp.vsplit(a, 2), lambda a: np.vsplit(a, 2), X)
  check(lambda a: jnp.dsplit(a, [1]), lambda a: np.dsplit(a, [1]), X)
  check(lambda a: jnp.unstack(a, axis=1), lambda a: tuple(np.moveaxis(a, 1, 0)), X)
  with pytest.raises(ValueError, match="array split does not result in an equal division: "
                     "rest is 4"):
    jnp.split(jnp.asarray(X), 5, axis=2)
  with pytest.raises(ValueError, match="Sizes passed to split must be nonnegative"):
    jnp.split(jnp.arange(5), [3, 1])
  with pytest.raises(ConcretizationTypeError):
    ember.jit(lambda a, i: jnp.split(a, i))(jnp.arange(4), jnp.array([1]))


# --- tile / repeat ------------------------------------------------------------------------------

@pytest.mark.parametrize("reps", [2, (2, 1), (2, 1, 1, 3), 0])
def test_tile(reps):
  check(lambda a: jnp.tile(a, reps), lambda a: np.tile(a, reps), X)


@pytest.mark.parametrize("axis", [None, 1, -1])
def test_repeat_scalar(axis):
  check(lambda a: jnp.repeat(a, 3, axis), lambda a: np.repeat(a, 3, axis), XI)


def test_repeat_arrays():
  r = np.array([1, 0, 2])
  check(lambda a: jnp.repeat(a, r, axis=1), lambda a: np.repeat(a, r, axis=1), X)
  check(lambda a: jnp.repeat(a, 2, axis=1, total_repeat_length=5),
        lambda a: np.repeat(a, 2, axis=1)[:, :5], X)
  # JAX fills extra output positions with the last element
  check(lambda a: jnp.repeat(a, r, total_repeat_length=5),
        lambda a: np.array([0, 2, 2, 2, 2], np.int32), V[:3])
  f = ember.jit(lambda a, r: jnp.repeat(a, r, total_repeat_length=6))
  _compare(f(V[:3], np.array([1, 2, 3], np.int32)), np.array([0, 1, 1, 2, 2, 2], np.int32))
  _compare(f(V[:3], np.array([3, 0, 1], np.int32)), np.array([0, 0, 0, 2, 2, 2], np.int32))
  _compare(jnp.repeat(3, 2), np.array([3, 3], np.int32))
  assert jnp.repeat(3, 2).weak_type
  with pytest.raises(ConcretizationTypeError, match="total_repeat_length"):
    ember.jit(lambda a, r: jnp.repeat(a, r))(V, np.int32(2))


# --- flips and rolls ----------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_flip_roll(axis):
  check(lambda a: jnp.flip(a, axis), lambda a: np.flip(a, axis), X)
  shift = (1, -5) if isinstance(axis, tuple) else -7
  check(lambda a: jnp.roll(a, shift, axis), lambda a: np.roll(a, shift, axis), X)


def test_flip_lr_ud_and_dynamic_roll():
  check(jnp.fliplr, np.fliplr, X)
  check(jnp.flipud, np.flipud, X)
  for s in (-5, 0, 2, 7):
    _compare(ember.jit(lambda a, s: jnp.roll(a, s, 1))(X, np.int32(s)), np.roll(X, s, 1))
  _compare(ember.jit(lambda a, s: jnp.roll(a, s))(X, np.int32(5)), np.roll(X, 5))
  check(lambda a: jnp.roll(a, 2), lambda a: np.roll(a, 2), np.zeros(0, np.float32))
  with pytest.raises(ValueError, match="axis 1 is out of bounds for array of dimension 1"):
    jnp.fliplr(jnp.ones(3))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3])
def test_rot90(k):
  check(lambda a: jnp.rot90(a, k, (2, 0)), lambda a: np.rot90(a, k, (2, 0)), X)


def test_rot90_errors():
  with pytest.raises(ValueError, match="Axes must be different"):
    jnp.rot90(jnp.asarray(X), axes=(1, -2))
  with pytest.raises(ValueError, match="ndim at least two"):
    jnp.rot90(jnp.ones(3))


# --- pad ----------------------------------------------------------------------------------------

_PAD_WIDTHS = [1, (2, 3), ((1, 0), (0, 5), (7, 2))]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "linear_ramp", "maximum", "mean"])
def test_pad_modes(mode):
  for pw in _PAD_WIDTHS:
    check(lambda a: jnp.pad(a, pw, mode=mode), lambda a: np.pad(a, pw, mode=mode), XI,
          jit=pw == 1)
  check(lambda a: jnp.pad(a, ((3, 4), (0, 0)), mode=mode),
        lambda a: np.pad(a, ((3, 4), (0, 0)), mode=mode), X[0])


def test_pad_options():
  x = XI[0, 0]
  for mode in ("reflect", "symmetric"):
    check(lambda a: jnp.pad(a, (5, 6), mode=mode, reflect_type="odd"),
          lambda a: np.pad(a, (5, 6), mode=mode, reflect_type="odd"), x)
  check(lambda a: jnp.pad(a, ((1, 2), (3, 4)), constant_values=((1, 2), (3, 4))),
        lambda a: np.pad(a, ((1, 2), (3, 4)), constant_values=((1, 2), (3, 4))), X[0])
  check(lambda a, c: jnp.pad(a, 1, constant_values=c),
        lambda a, c: np.pad(a, 1, constant_values=c), X, np.float32(7))
  check(lambda a: jnp.pad(a, 3, mode="linear_ramp", end_values=(5, -3)),
        lambda a: np.pad(a, 3, mode="linear_ramp", end_values=(5, -3)), x)
  check(lambda a: jnp.pad(a, 3, mode="minimum", stat_length=2),
        lambda a: np.pad(a, 3, mode="minimum", stat_length=2), x)
  check(lambda a: jnp.pad(a, 2, mode="edge"), lambda a: np.pad(a, 2, mode="edge"),
        np.array([True, False]))
  # constant values are cast to the array's dtype
  _compare(jnp.pad(jnp.arange(3), 1, constant_values=1.5), np.array([1, 0, 1, 2, 1]))
  out = jnp.pad(2.0, 1)
  assert out.shape == () and out.weak_type


def test_pad_errors():
  with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'foo'"):
    jnp.pad(jnp.arange(3), 2, mode="foo")
  with pytest.raises(ValueError, match="index can't contain negative values"):
    jnp.pad(jnp.arange(3), -1)
  with pytest.raises(TypeError, match="`pad_width` must be of integral type"):
    jnp.pad(jnp.arange(3), 1.5)
  with pytest.raises(ValueError, match="unsupported shape"):
    jnp.pad(jnp.asarray(X), ((1, 2), (3, 4)))
  with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
    jnp.pad(jnp.arange(3), 2, mode="edge", constant_values=4)
  with pytest.raises(ValueError, match="Cannot apply 'reflect' padding to empty axis"):
    jnp.pad(jnp.arange(0), 2, mode="reflect")


# --- take / take_along_axis ---------------------------------------------------------------------

def test_take_modes():
  idx = np.array([5, -1, -5, 2], np.int32)
  check(lambda a, i: jnp.take(a, i, mode="clip"), lambda a, i: np.take(a, i, mode="clip"), V,
        idx)
  check(lambda a, i: jnp.take(a, i, mode="wrap"), lambda a, i: np.take(a, i, mode="wrap"), V,
        idx)
  check(lambda a, i: jnp.take(a, i, axis=1), lambda a, i: np.take(a, i, axis=1), X,
        np.array([[0, 2], [1, -1]], np.int32))
  check(lambda a: jnp.take(a, 1), lambda a: np.take(a, 1), X)


@pytest.mark.parametrize("dtype,fill", [(np.float32, np.nan), (np.int32, -2**31),
                                        (np.uint8, 255), (np.bool_, True)])
def test_take_fill_defaults(dtype, fill):
  a = np.arange(4).astype(dtype)
  expected = np.array([fill, a[3], fill], dtype)
  check(lambda a, i: jnp.take(a, i), lambda a, i: expected, a, np.array([5, -1, -5], np.int32))
  _compare(jnp.take(a, np.array([5]), fill_value=1), np.array([1], dtype))


def test_take_along_axis():
  check(lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1),
        lambda a: np.take_along_axis(a, np.argsort(a, axis=1), axis=1), X)
  check(lambda a, i: jnp.take_along_axis(a, i, axis=2),
        lambda a, i: np.take_along_axis(a, i, axis=2), X, np.array([[[0, 3]]], np.int32))
  check(lambda a, i: jnp.take_along_axis(a, i, axis=None),
        lambda a, i: np.take_along_axis(a, i, axis=None), XI, np.array([0, 23, 5], np.int32))
  _compare(jnp.take_along_axis(jnp.arange(4.0), jnp.array([-1, 6]), axis=0),
           np.array([3, np.nan], np.float32))
  _compare(jnp.take_along_axis(jnp.arange(4), jnp.array([9]), axis=0, mode="clip"),
           np.array([3], np.int32))


def test_take_errors():
  x = jnp.asarray(X)
  with pytest.raises(ValueError, match="indices must have an integer type"):
    jnp.take(x, jnp.array([1.0]))
  with pytest.raises(NotImplementedError, match="'raise' mode"):
    jnp.take(x, jnp.array([1]), mode="raise")
  with pytest.raises(ValueError, match="Invalid mode 'foo'"):
    jnp.take(x, jnp.array([1]), mode="foo")
  with pytest.raises(IndexError, match="non-empty jnp.take\\(\\) from an empty axis"):
    jnp.take(jnp.ones(0), jnp.array([1]))
  with pytest.raises(TypeError, match="indices must be of integer type, got float32"):
    jnp.take_along_axis(x, jnp.ones((2, 3, 2)), axis=2)
  with pytest.raises(ValueError, match="same number of dimensions; 2 vs. 1"):
    jnp.take_along_axis(jnp.arange(4), jnp.array([[1]]), axis=0)
  with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
    jnp.take_along_axis(x, jnp.ones((2, 1, 2), int), axis=1)


# --- small helpers ------------------------------------------------------------------------------

def test_shape_queries_and_resize():
  assert jnp.shape(jnp.asarray(X)) == (2, 3, 4) and jnp.shape(3) == ()
  assert jnp.ndim(jnp.asarray(X)) == 3 and jnp.size(jnp.asarray(X), (0, 1)) == 6
  assert jnp.size(jnp.asarray(X)) == 24
  check(lambda a: jnp.resize(a, (5, 7)), lambda a: np.resize(a, (5, 7)), X)
  _compare(jnp.resize(jnp.arange(0), (2,)), np.zeros(2, np.int32))
  with pytest.raises(ValueError, match="must be non-negative"):
    jnp.resize(jnp.arange(3), -1)


def test_insert_delete_trim():
  check(lambda a: jnp.insert(a, 1, np.array([7, 8]), axis=1),
        lambda a: np.insert(a, 1, np.array([7, 8]), axis=1), XI[0, :2])
  check(lambda a: jnp.insert(a, np.array([0, 2, 2]), 9),
        lambda a: np.insert(a, np.array([0, 2, 2]), 9), V)
  check(lambda a: jnp.insert(a, [1, 3], np.array([[7], [8], [9]]), axis=1),
        lambda a: np.insert(a, [1, 3], np.array([[7], [8], [9]]), axis=1), XI[0])
  check(lambda a: jnp.delete(a, [0, 2], axis=2), lambda a: np.delete(a, [0, 2], axis=2), X)
  check(lambda a: jnp.delete(a, slice(None, None, 2)),
        lambda a: np.delete(a, slice(None, None, 2)), X)
  _compare(jnp.trim_zeros(jnp.array([0, 0, 1, 0, 2, 0])), np.array([1, 0, 2]))
  _compare(jnp.trim_zeros(jnp.array([0, 1, 0]), "b"), np.array([0, 1]))
  _compare(jnp.trim_zeros(jnp.array([0, 0])), np.zeros(0, np.int32))


# --- jaxprs -------------------------------------------------------------------------------------

def test_jaxprs_match_jax():
  x = jnp.ones((2, 3, 4))
  text = str(ember.make_jaxpr(lambda a: jnp.reshape(a, (6, -1)))(x))
  assert "reshape[dimensions=None new_sizes=(6, 4) sharding=None]" in text
  text = str(ember.make_jaxpr(lambda a: jnp.concatenate([a, a], axis=1))(x))
  assert "concatenate[dimension=1]" in text
  text = str(ember.make_jaxpr(lambda a: jnp.expand_dims(a, (0, 2)))(x))
  assert "f32[1,2,1,3,4] = broadcast_in_dim[broadcast_dimensions=(1, 3, 4)]" in text
  text = str(ember.make_jaxpr(lambda a: jnp.flip(a, 1))(x))
  assert "name=_flip" in text and "rev[dimensions=(1,)]" in text
  text = str(ember.make_jaxpr(jnp.transpose)(x))
  assert "transpose[permutation=(2, 1, 0)]" in text
