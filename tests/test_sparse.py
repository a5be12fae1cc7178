"""ember.experimental.sparse against dense computations: every BCOO layout (batch / sparse /
dense dimensions) through the primitives and structural functions, their derivatives (finite
differences, the inner-product identity, dense gradients sampled at the stored entries), vmap
against a loop, jit against eager, and the other formats. tests/corpus/programs/sparse_api.py
holds the comparisons with JAX itself."""
import itertools

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.experimental import sparse
from ad_checks import check_jvp, check_vjp

_RNG = np.random.RandomState(0)
_X = (_RNG.randn(2, 3, 4) * (_RNG.rand(2, 3, 4) > 0.5)).astype(np.float32)
_LAYOUTS = [(nb, nd) for nb in range(3) for nd in range(3) if nb + nd <= 3]


def _close(a, b, tol=1e-5):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("n_batch,n_dense", _LAYOUTS)
def test_fromdense_todense_roundtrip(n_batch, n_dense):
  m = sparse.BCOO.fromdense(_X, n_batch=n_batch, n_dense=n_dense)
  assert (m.n_batch, m.n_dense) == (n_batch, n_dense)
  _close(m.todense(), _X)
  _close(ember.jit(lambda m: m.todense())(m), _X)
  padded = sparse.BCOO.fromdense(_X, nse=m.nse + 2, n_batch=n_batch, n_dense=n_dense)
  _close(padded.todense(), _X)


@pytest.mark.parametrize("src,dst", list(itertools.product(_LAYOUTS, repeat=2)))
def test_update_layout_keeps_values(src, dst):
  m = sparse.BCOO.fromdense(_X, n_batch=src[0], n_dense=src[1])
  out = m.update_layout(n_batch=dst[0], n_dense=dst[1], on_inefficient=None)
  assert (out.n_batch, out.n_dense) == dst
  _close(out.todense(), _X)


_DOT_CASES = [  # (lhs layout, rhs shape, dimension numbers)
    ((0, 0), (4, 5), (([2], [0]), ([], []))),
    ((0, 0), (3, 5), (([1], [0]), ([], []))),
    ((0, 0), (2, 4), (([0, 2], [0, 1]), ([], []))),
    ((1, 0), (2, 4, 5), (([2], [1]), ([0], [0]))),
    ((1, 0), (3, 2), (([1], [0]), ([], []))),
    ((1, 1), (3,), (([1], [0]), ([], []))),
    ((2, 0), (2, 3, 4), (([2], [2]), ([0, 1], [0, 1]))),
    ((1, 0), (2,), (([0], [0]), ([], []))),
    ((0, 1), (2, 3), (([0, 1], [0, 1]), ([], []))),
]


def _dot_dense(x, rhs, dn):
  return lax.dot_general(x, rhs, dn)


@pytest.mark.parametrize("layout,rhs_shape,dn", _DOT_CASES)
def test_dot_general_matches_dense(layout, rhs_shape, dn):
  m = sparse.BCOO.fromdense(_X, n_batch=layout[0], n_dense=layout[1])
  rhs = _RNG.randn(*rhs_shape).astype(np.float32)
  expected = _dot_dense(_X, rhs, dn)
  _close(sparse.bcoo_dot_general(m, rhs, dimension_numbers=dn), expected)
  _close(ember.jit(lambda m, r: sparse.bcoo_dot_general(m, r, dimension_numbers=dn))(m, rhs),
         expected)


@pytest.mark.parametrize("layout,rhs_shape,dn", _DOT_CASES)
def test_dot_general_gradients_match_dense(layout, rhs_shape, dn):
  m = sparse.BCOO.fromdense(_X, n_batch=layout[0], n_dense=layout[1])
  rhs = _RNG.randn(*rhs_shape).astype(np.float32)
  ct = _RNG.randn(*np.shape(_dot_dense(_X, rhs, dn))).astype(np.float32)

  def f(data, r):
    out = sparse.bcoo_dot_general(sparse.BCOO((data, m.indices), shape=m.shape), r,
                                  dimension_numbers=dn)
    return (out * ct).sum()
  g_data, g_rhs = ember.grad(f, argnums=(0, 1))(m.data, rhs)
  dense_x, dense_r = ember.grad(lambda x, r: (_dot_dense(x, r, dn) * ct).sum(),
                                argnums=(0, 1))(jnp.asarray(_X), rhs)
  _close(g_rhs, dense_r)
  _close(sparse.bcoo_extract(m, dense_x).data, g_data)


@pytest.mark.parametrize("layout,rhs_shape,dn", _DOT_CASES[:5])
def test_dot_general_vmap_matches_loop(layout, rhs_shape, dn):
  m = sparse.BCOO.fromdense(_X, n_batch=layout[0], n_dense=layout[1])
  rhs = _RNG.randn(3, *rhs_shape).astype(np.float32)
  f = lambda r: sparse.bcoo_dot_general(m, r, dimension_numbers=dn)  # noqa: E731
  _close(ember.vmap(f)(rhs), np.stack([f(r) for r in rhs]))
  datas = np.stack([np.asarray(m.data) * k for k in (1.0, -2.0)])
  g = lambda d: sparse.bcoo_dot_general(  # noqa: E731
      sparse.BCOO((d, m.indices), shape=m.shape), rhs[0], dimension_numbers=dn)
  _close(ember.vmap(g)(datas), np.stack([g(d) for d in datas]))


def test_dot_general_derivatives_numerically():
  with ember.enable_x64(True):
    x = _X.astype(np.float64)
    m = sparse.BCOO.fromdense(x, n_batch=1)
    rhs = _RNG.randn(2, 4, 3)
    dn = (([2], [1]), ([0], [0]))

    def f(data, r):
      lhs = sparse.BCOO((data, m.indices), shape=m.shape)
      return sparse.bcoo_dot_general(lhs, r, dimension_numbers=dn)
    check_jvp(f, [np.asarray(m.data), rhs], _RNG)
    check_vjp(f, [np.asarray(m.data), rhs], _RNG)


@pytest.mark.parametrize("dn,a_shape,b_shape,layout", [
    ((([1], [0]), ([], [])), (3, 5), (5, 4), (0, 0)),
    ((([], []), ([], [])), (3,), (4,), (0, 0)),
    ((([], []), ([], [])), (3,), (4,), (1, 0)),
    ((([2], [1]), ([0], [0])), (2, 3, 5), (2, 5, 4), (1, 0)),
    ((([1], [0]), ([], [])), (3, 5), (5, 4, 2), (0, 1)),
])
def test_dot_general_sampled_matches_dense(dn, a_shape, b_shape, layout):
  a, b = _RNG.randn(*a_shape).astype(np.float32), _RNG.randn(*b_shape).astype(np.float32)
  dense = np.asarray(lax.dot_general(a, b, dn))
  mask = _RNG.rand(*dense.shape) > 0.5
  m = sparse.BCOO.fromdense(dense * mask, n_batch=layout[0], n_dense=layout[1])
  got = sparse.bcoo_dot_general_sampled(a, b, m.indices, dimension_numbers=dn)
  _close(got, sparse.bcoo_extract(m, dense).data)
  ga, gb = ember.grad(lambda a, b: (sparse.bcoo_dot_general_sampled(
      a, b, m.indices, dimension_numbers=dn) ** 2).sum(), argnums=(0, 1))(a, b)
  sampled = lambda a, b: sparse.bcoo_extract(m, lax.dot_general(a, b, dn)).data  # noqa: E731
  da, db = ember.grad(lambda a, b: (sampled(a, b) ** 2).sum(), argnums=(0, 1))(a, b)
  _close(ga, da, 1e-4)
  _close(gb, db, 1e-4)


def test_spdot_general_matches_dense():
  a = sparse.BCOO.fromdense(_X[0])
  b = sparse.BCOO.fromdense(_X[1].T)
  out = a @ b
  _close(out.todense(), _X[0] @ _X[1].T)
  ab = sparse.BCOO.fromdense(_X, n_batch=1)
  bb = sparse.BCOO.fromdense(np.swapaxes(_X, 1, 2), n_batch=1)
  out = sparse.bcoo_dot_general(ab, bb, dimension_numbers=(([2], [1]), ([0], [0])))
  _close(out.todense(), np.einsum("bij,bjk->bik", _X, np.swapaxes(_X, 1, 2)))
  g = ember.jacfwd(lambda d: sparse.bcoo_dot_general(
      sparse.BCOO((d, a.indices), shape=a.shape), b,
      dimension_numbers=(([1], [0]), ([], []))).todense())(a.data)
  assert g.shape == (3, 3, a.nse)


def _duplicated(n_batch):
  data = _RNG.randn(*(2,) * n_batch, 6).astype(np.float32)
  idx = _RNG.randint(0, 4, size=(*(2,) * n_batch, 6, 2)).astype(np.int32)
  idx[..., -1, :] = 4  # one padding entry
  return sparse.BCOO((data, idx), shape=(*(2,) * n_batch, 4, 4))


@pytest.mark.parametrize("n_batch", [0, 1, 2])
def test_sum_duplicates_and_sort(n_batch):
  m = _duplicated(n_batch)
  dense = m.todense()
  s = m.sum_duplicates(remove_zeros=False)
  _close(s.todense(), dense)
  flat = np.asarray(s.indices).reshape(-1, s.nse, 2)
  for rows in flat:
    valid = rows[(rows < 4).all(-1)]
    assert len({tuple(r) for r in valid}) == len(valid)
    assert [tuple(r) for r in valid] == sorted(tuple(r) for r in valid)
  _close(ember.jit(lambda m: m.sum_duplicates(nse=6, remove_zeros=False))(m).todense(), dense)
  srt = m.sort_indices()
  _close(srt.todense(), dense)
  _close(ember.jit(lambda m: m.sort_indices())(m).todense(), dense)


def test_extract_with_repeated_indices():
  m = _duplicated(0)
  x = jnp.arange(16.0).reshape(4, 4)
  idx = np.asarray(m.indices)
  stored = np.zeros((4, 4))
  for r, c in idx[(idx < 4).all(-1)]:
    stored[r, c] = 1
  once = sparse.bcoo_extract(m, x, assume_unique=False)
  _close(sparse.BCOO((once.data, m.indices), shape=m.shape).todense(), x * stored)
  every = sparse.bcoo_extract(m, x, assume_unique=True)
  _close(every.data, np.where((idx < 4).all(-1), np.asarray(x)[np.minimum(idx[:, 0], 3),
                                                                np.minimum(idx[:, 1], 3)], 0))
  with pytest.raises(NotImplementedError, match="assume_unique=False"):
    ember.grad(lambda x: sparse.bcoo_extract(m, x, assume_unique=False).data.sum())(x)


_OPS = [
    lambda x: x.reshape(6, 4), lambda x: x.reshape(2, 12), lambda x: x[1], lambda x: x[:, 1:],
    lambda x: x[..., ::2], lambda x: x.sum(1), lambda x: x.sum((0, 2)), lambda x: x.T,
    lambda x: x[None], lambda x: x * 3.0, lambda x: x * jnp.arange(4.0),
    lambda x: x[:, jnp.array([2, 0])], lambda x: -x, lambda x: x ** 2,
    lambda x: lax.rev(x, (1, 2)), lambda x: lax.dynamic_slice(x, (0, 1, 1), (2, 2, 2)),
]


@pytest.mark.parametrize("layout", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("op", range(len(_OPS)))
def test_sparsified_ops_match_dense(layout, op):
  fn = _OPS[op]
  m = sparse.BCOO.fromdense(_X, n_batch=layout[0], n_dense=layout[1])
  try:
    out = sparse.sparsify(fn)(m)
  except (NotImplementedError, ValueError):  # as JAX: some ops refuse some layouts
    return
  _close(sparse.todense(out), fn(jnp.asarray(_X)))


def test_concatenate_broadcast_and_slices():
  m = sparse.BCOO.fromdense(_X)
  _close(sparse.bcoo_concatenate([m, m], dimension=1).todense(), np.concatenate([_X, _X], 1))
  b = sparse.BCOO.fromdense(_X, n_batch=1)
  _close(sparse.bcoo_concatenate([b, b], dimension=0).todense(), np.concatenate([_X, _X], 0))
  out = sparse.bcoo_broadcast_in_dim(m, shape=(5, 2, 3, 4), broadcast_dimensions=(1, 2, 3))
  _close(out.todense(), np.broadcast_to(_X, (5, 2, 3, 4)))
  out = sparse.bcoo_slice(m, start_indices=(0, 1, 0), limit_indices=(2, 3, 4), strides=(1, 1, 3))
  _close(out.todense(), _X[:, 1:3, ::3])
  f = ember.jit(lambda m, i: sparse.bcoo_dynamic_slice(m, (0, i, i), (2, 2, 2)).todense())
  for i in range(3):
    _close(f(m, i), lax.dynamic_slice(_X, (0, i, i), (2, 2, 2)))


def test_multiply_sparse_and_add():
  a = sparse.BCOO.fromdense(_X)
  b = sparse.BCOO.fromdense(_X * (_X > 0))
  _close((a * b).todense(), _X * _X * (_X > 0))
  _close((a + b).todense(), _X + _X * (_X > 0))
  _close(a + jnp.ones_like(_X), _X + 1)


def test_vmap_over_batched_bcoo_matches_loop():
  m = sparse.BCOO.fromdense(_X, n_batch=1)
  v = _RNG.randn(2, 4).astype(np.float32)
  out = ember.vmap(lambda m, v: m @ v)(m, v)
  _close(out, np.stack([_X[i] @ v[i] for i in range(2)]))
  out = ember.vmap(lambda m: m.T, out_axes=0)(m)
  assert out.shape == (2, 4, 3)
  _close(out.todense(), np.swapaxes(_X, 1, 2))
  with pytest.raises(ValueError, match="n_batch=1"):
    ember.vmap(lambda m: m, in_axes=1)(m)


def test_vmap_of_grad_and_nested_transforms():
  m = sparse.BCOO.fromdense(_X[0])

  def f(d, v):
    return (sparse.BCOO((d, m.indices), shape=m.shape) @ v).sum() ** 2
  vs = _RNG.randn(3, 4).astype(np.float32)
  got = ember.vmap(ember.grad(f), in_axes=(None, 0))(m.data, vs)
  want = np.stack([ember.grad(f)(m.data, v) for v in vs])
  _close(got, want, 1e-4)
  got = ember.jit(ember.vmap(ember.grad(f, argnums=1), in_axes=(None, 0)))(m.data, vs)
  _close(got, np.stack([ember.grad(f, argnums=1)(m.data, v) for v in vs]), 1e-4)


def test_todense_primitive_rules():
  m = sparse.BCOO.fromdense(_X[0])
  g = ember.grad(lambda d: (sparse.todense(sparse.BCOO((d, m.indices), shape=m.shape))
                            * jnp.arange(4.0)).sum())(m.data)
  _close(g, np.asarray(m.indices)[:, 1].astype(np.float32))
  b = sparse.BCOO.fromdense(_X, n_batch=1)
  _close(ember.vmap(sparse.todense)(b), _X)
  c = sparse.BCSR.fromdense(_X[0])
  _close(ember.jit(sparse.todense)(c), _X[0])


@pytest.mark.parametrize("fmt", ["bcsr", "coo", "csr", "csc"])
def test_other_formats_match_dense(fmt):
  cls = {"bcsr": sparse.BCSR, "coo": sparse.COO, "csr": sparse.CSR, "csc": sparse.CSC}[fmt]
  x = _X[0]
  m = cls.fromdense(x)
  _close(m.todense(), x)
  v, w = _RNG.randn(4).astype(np.float32), _RNG.randn(4, 2).astype(np.float32)
  _close(m @ v, x @ v)
  _close(m @ w, x @ w)
  _close(ember.jit(lambda m, v: m @ v)(m, v), x @ v)
  g = ember.grad(lambda v: (m @ v).sum())(v)
  _close(g, x.sum(0))
  _close(sparse.eye(3, 4, k=1, sparse_format=fmt if fmt != "bcsr" else "bcoo").todense(),
         np.eye(3, 4, k=1))


def test_bcsr_batched_and_gradients():
  m = sparse.BCSR.fromdense(_X, n_batch=1)
  _close(m.todense(), _X)
  _close(ember.vmap(lambda m: m.todense())(m), _X)
  _close(m.to_bcoo().todense(), _X)
  _close(sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(_X, n_batch=1)).todense(), _X)
  v = _RNG.randn(4).astype(np.float32)

  def f(d):
    return (sparse.BCSR((d, m.indices, m.indptr), shape=m.shape) @ v).sum()
  g = ember.grad(f)(m.data)
  _close(sparse.BCSR((g, m.indices, m.indptr), shape=m.shape).todense(),
         np.broadcast_to(v, _X.shape) * (_X != 0))


def test_sparsify_control_flow_and_errors():
  m = sparse.BCOO.fromdense(_X[0])
  out = sparse.sparsify(lambda m: lax.fori_loop(0, 2, lambda i, x: x * 2, m))(m)
  _close(out.todense(), 4 * _X[0])
  out = sparse.sparsify(lambda m, p: lax.cond(p, lambda x: x + x, lambda x: -x, m))(m, False)
  _close(out.todense(), -_X[0])
  with pytest.raises(NotImplementedError, match="dense output"):
    sparse.sparsify(jnp.exp)(m)
  for use_tracer in (False, True):
    f = sparse.sparsify(lambda m, v: (jnp.sin(m) * 2).T @ v, use_tracer=use_tracer)
    _close(f(m, jnp.ones(3)), (np.sin(_X[0]) * 2).T @ np.ones(3))
    _close(ember.jit(f)(m, jnp.ones(3)), (np.sin(_X[0]) * 2).T @ np.ones(3))


def test_every_primitive_declares_all_rules():
  """Each sparse primitive has every rule, or says why it has none."""
  for prim in [getattr(sparse, n) for n in sparse.__all__ if n.endswith("_p")]:
    for kind in ("abstract_eval", "lower", "jvp", "transpose", "batch"):
      assert getattr(prim, kind) is not None or kind in prim.unsupported, (prim, kind)


def test_random_bcoo_layouts():
  m = sparse.random_bcoo(ember.random.key(0), (3, 4, 5), n_batch=1, n_dense=1, nse=2,
                         dtype=jnp.float32)
  assert (m.n_batch, m.n_dense, m.nse) == (1, 1, 2)
  rows = np.asarray(m.indices)[..., 0]
  assert all(len(set(r)) == len(r) for r in rows)
  s = sparse.random_bcoo(ember.random.key(1), (6, 6), nse=5, sorted_indices=True, dtype=jnp.float32)
  idx = [tuple(r) for r in np.asarray(s.indices)]
  assert idx == sorted(idx) and s.indices_sorted


def test_spsolve_and_gradient():
  a = np.array([[4., 1., 0.], [1., 3., 0.], [0., 0., 2.]], np.float32)
  m = sparse.CSR.fromdense(a)
  b = np.array([1., 2., 3.], np.float32)
  x = sparse.linalg.spsolve(m.data, m.indices, m.indptr, b)
  _close(x, np.linalg.solve(a, b))
  g = ember.grad(lambda b: sparse.linalg.spsolve(m.data, m.indices, m.indptr, b).sum())(b)
  _close(g, np.linalg.solve(a.T, np.ones(3)), 1e-4)


def test_primitives_reject_bad_buffers():
  with pytest.raises(TypeError, match="integer dtype"):
    sparse.BCOO((jnp.ones(2), jnp.ones((2, 1))), shape=(3,))
  with pytest.raises(ValueError, match="n_sparse"):
    sparse.BCOO((jnp.ones(2), jnp.zeros((2, 3), jnp.int32)), shape=(3, 3))
  with pytest.raises(ValueError, match="n_batch"):
    sparse.bcoo_fromdense(_X, n_batch=2, n_dense=2)
