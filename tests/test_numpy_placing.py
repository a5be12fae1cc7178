"""ember.numpy.placing (choose, put, put_along_axis, place, fill_diagonal, mask_indices, astype,
fabs, printing pass-throughs), ember.numpy.bits (packbits/unpackbits) and ember.numpy.vectorize,
against NumPy, under jit and vmap, with JAX's error messages."""
import warnings

import numpy as np
import pytest
from batch_checks import check_batch

import ember
import ember.numpy as jnp
from ember.core.errors import ConcretizationTypeError


def _same(x, want):
  np.testing.assert_array_equal(np.asarray(x), np.asarray(want))
  assert np.asarray(x).shape == np.shape(want)


def _np_writer(fn, a, *args, **kwargs):
  out = np.array(a)
  fn(out, *args, **kwargs)
  return out


# --- choose -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_matches_numpy(mode):
  idx = np.array([[0, 1, 2], [2, 1, 0]]) if mode == "raise" else np.array([[0, 4, -1], [2, 1, 7]])
  choices = [np.arange(3), np.full((2, 3), 10), np.array([[100], [200]])]
  want = np.choose(idx, choices, mode=mode)
  _same(jnp.choose(idx, [jnp.asarray(c) for c in choices], mode=mode), want)
  if mode != "raise":
    _same(ember.jit(lambda i: jnp.choose(i, choices, mode=mode))(idx), want)


def test_choose_errors_and_dtype():
  with pytest.raises(ValueError, match="invalid entry in choice array"):
    jnp.choose(jnp.array([0, 3]), [1, 2])
  with pytest.raises(ConcretizationTypeError, match="mode='wrap' or mode='clip'"):
    ember.jit(lambda i: jnp.choose(i, [1, 2]))(jnp.array([0, 1]))
  with pytest.raises(ValueError, match="mode='foo' not understood"):
    jnp.choose(jnp.array([0]), [1], mode="foo")
  with pytest.raises(NotImplementedError, match="'out' argument to jnp.choose"):
    jnp.choose(jnp.array([0]), [1], out=1)
  out = jnp.choose(jnp.array([0, 1]), [jnp.int8(1), 3])
  assert out.dtype == jnp.int8 and not out.weak_type


def test_choose_vmap():
  check_batch(lambda i, c: jnp.choose(i, [c, -c], mode="clip"),
              [np.array([[0, 1], [1, 1], [0, 0]]), np.arange(6.0).reshape(3, 2)])


# --- put, put_along_axis, place, fill_diagonal -------------------------------------------------

@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_put_matches_numpy(mode):
  a = np.arange(6.0).reshape(2, 3)
  ind, v = np.array([1, 7, -1, 4]), np.array([10.0, 20.0, 30.0])
  want = _np_writer(np.put, a, ind, v, mode=mode)
  _same(jnp.put(a, ind, v, mode=mode, inplace=False), want)
  _same(ember.jit(lambda x, i: jnp.put(x, i, v, mode=mode, inplace=False))(a, ind), want)


def test_put_default_mode_drops_out_of_bounds():
  out = jnp.put(jnp.arange(5.0), jnp.array([1, 7, -1]), jnp.array([9.0, 8.0]), inplace=False)
  _same(out, [0.0, 9.0, 2.0, 3.0, 9.0])
  with pytest.raises(ValueError, match="Pass inplace=False"):
    jnp.put(jnp.zeros(3), 0, 1.0)
  with pytest.raises(NotImplementedError, match="'raise' mode to jnp.put"):
    jnp.put(jnp.zeros(3), 0, 1.0, mode="raise", inplace=False)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_put_along_axis_matches_numpy(axis):
  a = np.arange(12.0).reshape(3, 4)
  idx = np.array([[2, 0, 1, 1]]) if axis == 0 else np.array([5, 0, 11]) if axis is None \
      else np.array([[3], [0], [1]])
  want = _np_writer(np.put_along_axis, a, idx, -1.0, axis=axis)
  _same(jnp.put_along_axis(a, idx, -1.0, axis=axis, inplace=False), want)
  _same(ember.jit(lambda x: jnp.put_along_axis(x, idx, -1.0, axis=axis, inplace=False))(a), want)


def test_put_along_axis_errors():
  with pytest.raises(ValueError, match="arraysare immutable"):
    jnp.put_along_axis(jnp.zeros(3), jnp.array([1]), 2.0, axis=0)
  with pytest.raises(ValueError, match="must have same ndim"):
    jnp.put_along_axis(jnp.zeros(3), jnp.array([[1]]), 2.0, axis=0, inplace=False)


def test_place_matches_numpy_under_jit():
  a = np.arange(6.0)
  mask = np.array([1, 0, 1, 1, 0, 1], bool)
  want = _np_writer(np.place, a, mask, [10.0, 20.0, 30.0])
  _same(jnp.place(a, mask, jnp.array([10.0, 20.0, 30.0]), inplace=False), want)
  f = ember.jit(lambda m: jnp.place(a, m, jnp.array([10.0, 20.0, 30.0]), inplace=False))
  _same(f(mask), want)
  with pytest.raises(ValueError, match="jax.numpy.place cannot modify arrays in-place"):
    jnp.place(a, mask, 1.0)


@pytest.mark.parametrize("shape, val", [((3, 3), 5.0), ((5, 3), [1.0, 2.0]), ((3, 5), 7.0),
                                        ((2, 2, 2), [4.0, 5.0])])
def test_fill_diagonal_matches_numpy(shape, val):
  a = np.zeros(shape)
  _same(jnp.fill_diagonal(a, jnp.asarray(val), inplace=False),
        _np_writer(np.fill_diagonal, a, val))


def test_fill_diagonal_errors():
  with pytest.raises(NotImplementedError, match="must use inplace=False"):
    jnp.fill_diagonal(jnp.zeros((2, 2)), 1)
  with pytest.raises(NotImplementedError, match="wrap=True is not implemented"):
    jnp.fill_diagonal(jnp.zeros((2, 2)), 1, wrap=True, inplace=False)
  with pytest.raises(ValueError, match="at least 2-d"):
    jnp.fill_diagonal(jnp.zeros(2), 1, inplace=False)
  with pytest.raises(ValueError, match="equal length"):
    jnp.fill_diagonal(jnp.zeros((2, 3, 2)), 1, inplace=False)


def test_writers_grad_and_vmap():
  grad = ember.grad(lambda v: jnp.put(jnp.zeros(4), jnp.array([0, 2]), v,
                                      inplace=False).sum() * 2.0)(jnp.array([1.0, 2.0]))
  _same(grad, [2.0, 2.0])
  check_batch(lambda x: jnp.fill_diagonal(x, 0.0, inplace=False), [np.ones((3, 2, 2))])


# --- mask_indices, astype, fabs, pass-throughs --------------------------------------------------

def test_mask_indices():
  for k in (-1, 0, 1):
    for fn, nfn in ((jnp.triu, np.triu), (jnp.tril, np.tril)):
      for got, want in zip(jnp.mask_indices(4, fn, k), np.mask_indices(4, nfn, k)):
        _same(got, want)
  rows, _ = jnp.mask_indices(3, jnp.triu, 1, size=5)
  _same(rows, [0, 0, 1, 0, 0])


def test_astype():
  x = jnp.arange(3)
  assert jnp.astype(x, jnp.int32) is x and jnp.astype(x, jnp.int32, copy=True) is not x
  assert jnp.astype(x, None).dtype == jnp.float32
  out = jnp.astype(jnp.asarray(1.0), jnp.float32)
  assert not out.weak_type
  _same(ember.jit(lambda v: jnp.astype(v, jnp.int8))(jnp.array([1.7, -2.2])), [1, -2])
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    _same(jnp.astype(jnp.array([1 + 2j]), jnp.float32), [1.0])
  assert caught and caught[0].category is DeprecationWarning
  with pytest.raises(TypeError, match="astype requires ndarray or scalar arguments"):
    jnp.astype([1, 2], jnp.int32)
  assert jnp.astype(x, "bool", device=ember.devices()[0]).dtype == jnp.bool_


def test_fabs_and_pass_throughs():
  _same(jnp.fabs(jnp.array([-1, 2])), [1.0, 2.0])
  assert jnp.fabs(jnp.int8(3)).dtype == jnp.float32
  _same(ember.grad(lambda v: jnp.fabs(v))(-2.0), -1.0)
  with pytest.raises(TypeError, match="does not support complex"):
    jnp.fabs(jnp.array([1j]))
  assert jnp.array_repr(jnp.arange(3)) == "ArrayImpl([0, 1, 2], dtype=int32)"
  assert jnp.array_str(jnp.ones(2), precision=1) == "[1. 1.]"
  assert jnp.iterable([1]) and not jnp.iterable(3)
  assert issubclass(jnp.ComplexWarning, RuntimeWarning)


# --- packbits / unpackbits -------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_roundtrip_matches_numpy(axis, bitorder):
  bits = (np.arange(2 * 11).reshape(2, 11) % 3 == 0)
  packed = np.packbits(bits, axis=axis, bitorder=bitorder)
  _same(jnp.packbits(bits, axis=axis, bitorder=bitorder), packed)
  _same(ember.jit(lambda b: jnp.packbits(b, axis=axis, bitorder=bitorder))(bits), packed)
  for count in (None, 3, -2, 30):
    _same(jnp.unpackbits(packed, axis=axis, count=count, bitorder=bitorder),
          np.unpackbits(packed, axis=axis, count=count, bitorder=bitorder))


def test_bits_errors_and_vmap():
  with pytest.raises(TypeError, match="integer or boolean"):
    jnp.packbits(jnp.array([1.0]))
  with pytest.raises(TypeError, match="unsigned byte"):
    jnp.unpackbits(jnp.array([1], jnp.int32))
  with pytest.raises(ValueError, match="'order' must be either 'little' or 'big'"):
    jnp.packbits(jnp.array([1]), bitorder="x")
  check_batch(lambda b: jnp.unpackbits(jnp.packbits(b), count=5),
              [np.array([[1, 0, 1, 1, 0], [0, 0, 1, 0, 1], [1, 1, 1, 1, 1]], np.uint8)])


# --- vectorize and friends -------------------------------------------------------------------

def test_vectorize_scalar_broadcast_and_excluded():
  f = jnp.vectorize(lambda x, p: x ** p, excluded={1})
  _same(f(jnp.arange(3.0), 2), [0.0, 1.0, 4.0])
  add = jnp.vectorize(lambda a, b: a * b)
  _same(add(np.ones((3, 1)), np.arange(4)), np.ones((3, 1)) * np.arange(4))
  assert add(np.ones((0, 2)), 1.0).shape == (0, 2)


def test_vectorize_signature_matches_numpy():
  a, b = np.random.RandomState(0).randn(4, 1, 2, 3), np.random.RandomState(1).randn(5, 3)
  mv = jnp.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)")
  want = np.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)")(a, b)
  np.testing.assert_allclose(mv(a, b), want, rtol=1e-5)
  np.testing.assert_allclose(ember.jit(mv)(a, b), want, rtol=1e-5)
  two = jnp.vectorize(lambda x: (x, 2 * x), signature="()->(),()")(jnp.arange(2))
  _same(two[1], [0, 2])


@pytest.mark.parametrize("fn, args, exc, msg", [
    (jnp.dot, (np.ones((2, 3)), np.ones(4)), ValueError, "inconsistent size for core dimension"),
    (jnp.dot, (np.ones((2, 3)),), TypeError, "wrong number of positional arguments"),
    (lambda x: x.sum(), (np.ones(3),), ValueError, "does not match core dimensions"),
])
def test_vectorize_errors(fn, args, exc, msg):
  sig = "(n)->(m)" if len(args) == 1 and fn is not jnp.dot else "(n),(n)->()"
  with pytest.raises(exc, match=msg):
    jnp.vectorize(fn, signature=sig)(*args)
  with pytest.raises(ValueError, match="not a valid gufunc signature"):
    jnp.vectorize(fn, signature="(n->()")


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_apply_along_axis_matches_numpy(axis):
  a = np.arange(24.0).reshape(2, 3, 4)
  for fn in (lambda v: v.sum(), lambda v: v[::-1] * 2, lambda v: np.outer(v, v)):
    want = np.apply_along_axis(fn, axis, a)
    jfn = (lambda v: jnp.outer(v, v)) if fn(np.ones(2)).ndim == 2 else fn
    _same(jnp.apply_along_axis(jfn, axis, a), want)


def test_apply_over_axes_and_frompyfunc():
  a = np.arange(24).reshape(2, 3, 4)
  _same(jnp.apply_over_axes(jnp.sum, a, [0, 2]), np.apply_over_axes(np.sum, a, [0, 2]))
  u = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=1)
  assert isinstance(u, jnp.ufunc) and (u.nin, u.nout, u.identity) == (2, 1, 1)
  _same(u(jnp.arange(3), 2), [1, 3, 5])
  _same(u.reduce(jnp.arange(1, 4)), 16)  # folds from the identity, as in JAX
  _same(u.accumulate(jnp.arange(1, 4)), [1, 3, 10])
  _same(u.outer(jnp.arange(2), jnp.arange(3)), [[1, 1, 1], [1, 2, 3]])
  _same(jnp.subtract.reduce(jnp.arange(1, 4), initial=10), 4)
