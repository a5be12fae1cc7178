"""Tests for ember.numpy products, einsum and diagonals (ember/numpy/linear.py)."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp

_CANON = {np.dtype("int64"): np.dtype("int32"), np.dtype("float64"): np.dtype("float32"),
          np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64")}

rng = np.random.default_rng(1)


def _rand(shape, dtype=np.float32):
  if np.issubdtype(dtype, np.complexfloating):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
  if np.issubdtype(dtype, np.floating):
    return rng.standard_normal(shape).astype(dtype)
  if dtype == np.bool_:
    return rng.integers(0, 2, shape).astype(bool)
  return rng.integers(-4, 5, shape).astype(dtype)


def _compare(got, expected, dtype=None, rtol=1e-5):
  expected = np.asarray(expected)
  want = np.dtype(dtype) if dtype is not None else _CANON.get(expected.dtype, expected.dtype)
  assert isinstance(got, ember.Array), type(got)
  assert got.dtype == want, (got.dtype, want)
  assert got.shape == expected.shape, (got.shape, expected.shape)
  np.testing.assert_allclose(np.asarray(got), expected.astype(want), rtol=rtol, atol=1e-5)


def check(fn, np_fn, *args, dtype=None, jit=True, rtol=1e-5):
  expected = np_fn(*args)
  _compare(fn(*args), expected, dtype, rtol)
  if jit:
    _compare(ember.jit(fn)(*args), expected, dtype, rtol)


# --- dot / matmul -------------------------------------------------------------------------------

@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                   ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4))])
def test_dot(sa, sb):
  check(jnp.dot, np.dot, _rand(sa), _rand(sb))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((3,), (2, 3, 4)), ((2, 3, 4), (4,)),
                                   ((5, 2, 3), (3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
                                   ((1, 2, 3), (4, 1, 3, 2)), ((2, 3, 4), (3, 2, 4, 5)),
                                   ((0, 2, 3), (3, 1))])
def test_matmul_broadcasting(sa, sb):
  check(jnp.matmul, np.matmul, _rand(sa), _rand(sb))


@pytest.mark.parametrize("da,db,want", [(np.int32, np.int32, np.int32),
                                        (np.int8, np.uint8, np.int16),
                                        (np.float32, np.int32, np.float32),
                                        (np.bool_, np.bool_, np.bool_),
                                        (np.float16, np.float16, np.float16),
                                        (np.complex64, np.float32, np.complex64)])
def test_dot_dtypes(da, db, want):
  a, b = _rand((3, 4), da), _rand((4, 2), db)
  wide = np.complex128 if np.iscomplexobj(a) else np.float64
  expected = np.dot(a.astype(wide), b.astype(wide))
  if want == np.bool_:
    expected = expected > 0
  check(jnp.dot, lambda *_: expected, a, b, dtype=want, rtol=2e-3)
  check(jnp.matmul, lambda *_: expected, a, b, dtype=want, rtol=2e-3)


def test_dot_scalars_and_weak_types():
  _compare(jnp.dot(jnp.ones(3), 2), np.full(3, 2.0, np.float32))
  out = jnp.dot(jnp.ones(3, jnp.int32), 2.0)
  assert out.dtype == np.float32 and out.weak_type
  out = jnp.dot(2, 3)
  assert out.dtype == np.int32 and out.weak_type and int(out) == 6
  out = jnp.dot(jnp.ones(3), jnp.ones(3), preferred_element_type=jnp.float16)
  assert out.dtype == np.float16
  out = jnp.dot(jnp.ones(3, int), jnp.ones(3, int), preferred_element_type=jnp.float32)
  assert out.dtype == np.float32 and float(out) == 3.0


def test_matmul_errors():
  with pytest.raises(ValueError, match="matmul input operand 1 must have ndim at least 1"):
    jnp.matmul(jnp.ones(3), 2.0)
  with pytest.raises(ValueError, match=r"Incompatible types for matmul arguments: "
                     r"float32\[2,3,4\] and float32\[3,4,5\]"):
    jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5)))
  with pytest.raises(TypeError, match="dot_general requires contracting dimensions to have the "
                     "same shape"):
    jnp.dot(jnp.ones(3), jnp.ones(4))
  with pytest.raises(TypeError, match=r"contracting dimensions to have the same shape, got "
                     r"\(3,\) and \(4,\)"):
    jnp.ones((2, 3)) @ jnp.ones((4, 5))


def test_vector_products():
  c = _rand((4,), np.complex64)
  x, v = _rand((2, 3, 4)), _rand((4,))
  check(jnp.vdot, np.vdot, c, c)
  check(jnp.vdot, np.vdot, _rand((2, 3)), _rand((3, 2)))
  check(jnp.vecdot, lambda a, b: np.sum(np.conj(a) * b, -1), x, v)
  check(jnp.vecdot, lambda a, b: np.sum(np.conj(a) * b, -1), c[None], c)
  check(lambda a, b: jnp.vecdot(a, b, axis=0), lambda a, b: np.sum(a * b, 0), x[0], x[1])
  check(jnp.inner, np.inner, x, _rand((5, 4)))
  check(jnp.inner, np.inner, np.float32(2), v)
  check(jnp.outer, np.outer, _rand((2, 2)), _rand((3,)))
  check(jnp.matvec, lambda a, b: np.einsum("...ij,...j->...i", a, b), x, v)
  check(jnp.vecmat, lambda a, b: np.einsum("...i,...ij->...j", np.conj(a), b), c[:3], x + 0j)
  with pytest.raises(ValueError, match="axes must match"):
    jnp.vecdot(jnp.ones((2, 3)), jnp.ones(3), axis=0)
  with pytest.raises(ValueError, match="inconsistent size for core dimension"):
    jnp.matvec(jnp.ones((2, 3)), jnp.ones(4))


@pytest.mark.parametrize("axes", [0, 1, 2, ((0, 2), (1, 0)), ([1], [2])])
def test_tensordot(axes):
  a, b = _rand((2, 3, 4)), _rand((4, 2, 3))
  if axes == 1:
    b = _rand((4, 5))
  elif axes == 2:
    b = _rand((3, 4, 5))
  check(lambda p, q: jnp.tensordot(p, q, axes), lambda p, q: np.tensordot(p, q, axes), a, b)


def test_tensordot_errors():
  x = jnp.ones((2, 3, 4))
  with pytest.raises(TypeError, match="Number of tensordot axes"):
    jnp.tensordot(x, x, 4)
  with pytest.raises(TypeError, match="equal length"):
    jnp.tensordot(x, x, ((0, 1), (0,)))


# --- einsum -------------------------------------------------------------------------------------

_EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->ji", [(2, 3)]), ("ijk->", [(2, 3, 4)]),
    ("...i,...i->...", [(2, 3), (3,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 2)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("i...->...", [(2, 3, 4)]),
    ("ab,cd->", [(2, 3), (4, 5)]), ("iji->j", [(2, 3, 2)]), ("ba,ac->cb", [(2, 3), (3, 4)]),
    ("...ii->...i", [(2, 3, 3)]), ("i,i", [(1,), (3,)]),
]


@pytest.mark.parametrize("subscripts,shapes", _EINSUM_CASES)
def test_einsum(subscripts, shapes):
  ops = [_rand(s) for s in shapes]
  check(lambda *o: jnp.einsum(subscripts, *o), lambda *o: np.einsum(subscripts, *o), *ops)


def test_einsum_dtypes_and_forms():
  a, b = _rand((2, 3), np.int32), _rand((3, 4), np.int32)
  check(lambda p, q: jnp.einsum("ij,jk", p, q), lambda p, q: np.einsum("ij,jk", p, q), a, b)
  out = jnp.einsum("i,j", jnp.ones(2, jnp.int8), jnp.ones(2, jnp.uint8))
  assert out.dtype == np.int16
  out = jnp.einsum("i,i", jnp.arange(3) > 0, jnp.arange(3) > 1)
  assert out.dtype == np.bool_ and bool(out)
  check(lambda p, q: jnp.einsum(p, [0, 1], q, [1], [0]),
        lambda p, q: np.einsum(p, [0, 1], q, [1], [0]), _rand((2, 3)), _rand((3,)))
  out = jnp.einsum("ij,jk", jnp.ones((2, 2)), jnp.ones((2, 2)), preferred_element_type=jnp.float16)
  assert out.dtype == np.float16


def test_einsum_errors():
  with pytest.raises(ValueError, match="Output character 'k' did not appear in the input"):
    jnp.einsum("ij->k", jnp.ones((2, 3)))
  with pytest.raises(ValueError, match="Size of label 'j' for operand 1"):
    jnp.einsum("ij,jk", jnp.ones((2, 3)), jnp.ones((4, 4)))
  with pytest.raises(ValueError, match="does not contain the correct number of indices for "
                     "operand 0"):
    jnp.einsum("ij", jnp.ones((2, 3, 4)))
  with pytest.raises(ValueError, match="appeared more than once in the output"):
    jnp.einsum("i->ii", jnp.ones(3))


# --- kron / trace / diagonals / cross -----------------------------------------------------------

def test_kron():
  check(jnp.kron, np.kron, _rand((2, 3)), _rand((2, 2, 2)))
  check(jnp.kron, np.kron, _rand((2,), np.int32), _rand((3, 2), np.int32))
  out = jnp.kron(jnp.arange(2), 2.5)
  assert out.dtype == np.float32 and out.weak_type


@pytest.mark.parametrize("dtype,want", [(np.float32, np.float32), (np.int8, np.int32),
                                        (np.uint8, np.uint32), (np.bool_, np.int32),
                                        (np.float16, np.float16)])
def test_trace_dtypes(dtype, want):
  a = _rand((3, 4), dtype)
  check(jnp.trace, lambda p: np.trace(p.astype(np.float64)), a, dtype=want, rtol=1e-3)


def test_trace_and_diagonal_offsets():
  x = _rand((2, 3, 4))
  for off in (-3, -1, 0, 1, 2, 5):
    check(lambda a, o=off: jnp.trace(a, o, 2, 0), lambda a, o=off: np.trace(a, o, 2, 0), x)
    check(lambda a, o=off: jnp.diagonal(a, o, 2, 0), lambda a, o=off: np.diagonal(a, o, 2, 0),
          x)
    check(lambda a, o=off: jnp.diag(a, o), lambda a, o=off: np.diag(a, o), x[0])
    check(lambda a, o=off: jnp.diag(a, o), lambda a, o=off: np.diag(a, o), x[0, 0])
  check(lambda a: jnp.diagflat(a, -1), lambda a: np.diagflat(a, -1), x[0])
  check(lambda a: jnp.trace(a, dtype=jnp.float32), lambda a: np.trace(a).astype(np.float32),
        _rand((3, 3), np.int32))


def test_diagonal_errors():
  with pytest.raises(ValueError, match="axis1 and axis2 can not be same"):
    jnp.trace(jnp.ones((2, 3, 4)), axis1=1, axis2=1)
  with pytest.raises(ValueError, match="at least two dimensions"):
    jnp.diagonal(jnp.ones(3))
  with pytest.raises(ValueError, match="diag input must be 1d or 2d"):
    jnp.diag(jnp.ones((2, 2, 2)))


def test_cross():
  a = _rand((3, 4))
  check(jnp.cross, np.cross, _rand((2, 3)), a[:2, :3])
  check(jnp.cross, lambda p, q: np.cross(np.pad(p, ((0, 0), (0, 1))),
                                         np.pad(q, ((0, 0), (0, 1))))[:, 2], a[:, :2], a[:, 2:])
  check(jnp.cross, lambda p, q: np.cross(np.pad(p, ((0, 0), (0, 1))), q), a[:, :2], a[:, 1:])
  check(jnp.cross, lambda p, q: np.cross(p, np.pad(q, ((0, 0), (0, 1)))), a[:, 1:], a[:, :2])
  check(lambda p, q: jnp.cross(p, q, axisa=0, axisb=1, axisc=0),
        lambda p, q: np.cross(p, q, axisa=0, axisb=1, axisc=0), _rand((3, 2)), a[:2, :3])
  check(jnp.cross, np.cross, _rand((3,), np.int32), _rand((3,), np.int32))
  with pytest.raises(ValueError, match="Dimension must be either 2 or 3 for cross product"):
    jnp.cross(jnp.arange(4), jnp.arange(3))


# --- jaxprs -------------------------------------------------------------------------------------

def test_dot_jaxpr_matches_jax():
  W, x = jnp.ones((3, 4)), jnp.ones(4)
  text = str(ember.make_jaxpr(jnp.dot)(W, x))
  assert ("dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n"
          "      preferred_element_type=float32\n    ]") in text


def test_matmul_jaxpr_matches_jax():
  # size-1 batch dims are squeezed, free batch dims transposed into place, as in JAX
  text = str(ember.make_jaxpr(jnp.matmul)(jnp.ones((2, 3, 4)), jnp.ones((5, 1, 4, 2))))
  assert "squeeze[dimensions=(1,)]" in text
  assert "dimension_numbers=(([2], [1]), ([], []))" in text
  assert "transpose[permutation=(2, 0, 1, 3)]" in text
  text = str(ember.make_jaxpr(jnp.matmul)(jnp.ones((2, 3, 4)), jnp.ones((3, 2, 4, 5))))
  assert "dimension_numbers=(([2], [2]), ([0], [1]))" in text
  text = str(ember.make_jaxpr(lambda a, b: jnp.einsum("ijk,kl->il", a, b))(
      jnp.ones((2, 3, 4)), jnp.ones((4, 3))))
  assert "reduce_sum[axes=(1,) out_sharding=None]" in text
  assert "dimension_numbers=(([1], [0]), ([], []))" in text
