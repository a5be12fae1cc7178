"""jax.experimental.sparse: BCOO (construction, conversions, primitives' printed jaxprs,
contractions, index maintenance, structural ops, operators through sparsify), its behaviour
under jit, vmap and grad, the sparse autodiff helpers, BCSR, and the older COO/CSR/CSC
formats; the errors for bad layouts, traced nse and unsupported operations."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
sparse = submodule("experimental.sparse")

_M = np.array([[1., 0., 2., 0.], [0., 0., 3., 0.], [4., 0., 0., 5.]], np.float32)
_B = np.array([[[1., 0., 2.], [0., 3., 0.]], [[0., 0., 4.], [5., 0., 6.]]], np.float32)


def _bufs(m):
  """What a user sees of a sparse array: its repr, buffers, flags and dense value."""
  out = {"repr": repr(m), "data": m.data, "todense": m.todense()}
  for name in ("indices", "indptr", "row", "col"):
    if hasattr(m, name):
      out[name] = getattr(m, name)
  for name in ("indices_sorted", "unique_indices", "n_batch", "n_sparse", "n_dense"):
    if hasattr(m, name):
      out[name] = getattr(m, name)
  return out


def _mat(nse=None, **kw):
  return sparse.BCOO.fromdense(jnp.asarray(_M), nse=nse, **kw)


def _dup():
  """A BCOO with a repeated index, an explicit zero and a padding entry."""
  data = jnp.array([1., 2., 0., 4., 7.])
  indices = jnp.array([[0, 1], [2, 3], [1, 1], [0, 1], [3, 4]])
  return sparse.BCOO((data, indices), shape=(3, 4))


# --- construction and conversions ----------------------------------------------------------------

@program
def bcoo_fromdense_basics():
  m = _mat()
  return (_bufs(m), m.nse, m.dtype, m.ndim, m.shape, m.size, len(m), str(m))


@program
def bcoo_fromdense_nse_padding_and_truncation():
  return _bufs(_mat(nse=7)), _bufs(_mat(nse=2))


@program
def bcoo_fromdense_batch_layouts():
  b = jnp.asarray(_B)
  return (_bufs(sparse.BCOO.fromdense(b, n_batch=1)), _bufs(sparse.BCOO.fromdense(b, n_batch=2)),
          _bufs(sparse.BCOO.fromdense(b, n_batch=1, nse=3)))


@program
def bcoo_fromdense_dense_layouts():
  b = jnp.asarray(_B)
  return (_bufs(sparse.BCOO.fromdense(b, n_dense=1)),
          _bufs(sparse.BCOO.fromdense(b, n_batch=1, n_dense=1)),
          _bufs(sparse.BCOO.fromdense(b, n_dense=2)))


@program
def bcoo_fromdense_dtypes():
  out = []
  for dt in (jnp.int32, jnp.complex64, jnp.float16, jnp.bfloat16, jnp.uint8):
    m = sparse.BCOO.fromdense(jnp.asarray(_M).astype(dt))
    out.append((repr(m), m.data, m.indices.dtype))
  return out


@program
def bcoo_fromdense_index_dtypes():
  return [sparse.bcoo_fromdense(jnp.asarray(_M), index_dtype=dt).indices
          for dt in (jnp.int8, jnp.int16, jnp.uint32)]


@program
def bcoo_fromdense_zeros_and_scalars():
  z = sparse.BCOO.fromdense(jnp.zeros((2, 3)))
  s = sparse.BCOO.fromdense(jnp.float32(3.0))
  return _bufs(z), _bufs(s), _bufs(sparse.BCOO.fromdense(jnp.zeros(())))


@program
def bcoo_constructor_and_duplicates():
  m = _dup()
  return _bufs(m), m.sum_duplicates().data, m.sum_duplicates().indices


@program
def bcoo_constructor_bad_data_shape():
  return sparse.BCOO((jnp.ones(3), jnp.zeros((4, 2), jnp.int32)), shape=(3, 4))


@program
def bcoo_constructor_bad_batch():
  return sparse.BCOO((jnp.ones((2, 3)), jnp.zeros((3, 3, 1), jnp.int32)), shape=(2, 4))


@program
def bcoo_fromdense_traced_nse():
  return jax.jit(lambda x: sparse.BCOO.fromdense(x).data)(jnp.asarray(_M))


@program
def bcoo_fromdense_under_jit_with_nse():
  f = jax.jit(lambda x: sparse.BCOO.fromdense(x, nse=6))
  m = f(jnp.asarray(_M))
  return _bufs(m)


@program
def bcoo_tree_structure():
  m = _mat()
  leaves = jax.tree_util.tree_leaves(m)
  rebuilt = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(m), leaves)
  return leaves, repr(rebuilt), rebuilt.indices_sorted


@program
def bcoo_todense_function_and_primitive():
  m = _mat()
  return sparse.todense(m), sparse.todense(jnp.ones(2)), sparse.bcoo_todense(m)


@program
def bcoo_empty_and_eye():
  return (_bufs(sparse.empty((2, 3))), _bufs(sparse.empty((2, 3), n_batch=1, nse=2)),
          _bufs(sparse.empty((2, 3), dtype=jnp.int32, n_dense=1)),
          _bufs(sparse.eye(3)), _bufs(sparse.eye(3, 4, k=1)), _bufs(sparse.eye(3, k=-2)),
          _bufs(sparse.eye(3, k=5)))


@program
def bcoo_eye_layouts():
  return (_bufs(sparse.eye(3, n_batch=1)), _bufs(sparse.eye(3, 4, k=1, n_batch=1)),
          _bufs(sparse.eye(4, 3, k=-1, n_batch=1)), _bufs(sparse.eye(2, n_dense=1)))


@program
def bcoo_empty_bad_format():
  return sparse.empty((2, 2), sparse_format="dok")


# --- printed jaxprs of the primitives ------------------------------------------------------------

@program
def bcoo_jaxpr_fromdense_todense():
  print(jax.make_jaxpr(lambda x: sparse.BCOO.fromdense(x, nse=3).todense())(jnp.asarray(_M)))


@program
def bcoo_jaxpr_fromdense_layouts():
  print(jax.make_jaxpr(lambda x: sparse.bcoo_fromdense(x, nse=2, n_batch=1, n_dense=1))(
      jnp.asarray(_B)))


@program
def bcoo_jaxpr_matvec():
  m = _mat()
  print(jax.make_jaxpr(lambda m, v: m @ v)(m, jnp.ones(4)))
  print(jax.make_jaxpr(lambda m, v: v @ m)(m, jnp.ones(3)))


@program
def bcoo_jaxpr_grad_wrt_data():
  m = _mat()
  f = lambda d, v: (sparse.BCOO((d, m.indices), shape=m.shape) @ v).sum()
  print(jax.make_jaxpr(jax.grad(f))(m.data, jnp.ones(4)))


@program
def bcoo_jaxpr_grad_wrt_dense():
  m = _mat()
  print(jax.make_jaxpr(jax.grad(lambda v: (m @ v).sum()))(jnp.ones(4)))


@program
def bcoo_jaxpr_transpose_and_sort():
  m = _mat()
  print(jax.make_jaxpr(lambda m: m.T)(m))
  print(jax.make_jaxpr(lambda m: m.sort_indices())(m))
  print(jax.make_jaxpr(lambda m: m.sum_duplicates(nse=4, remove_zeros=False))(m))


@program
def bcoo_jaxpr_extract_and_sampled():
  m = _mat()
  print(jax.make_jaxpr(lambda m, x: sparse.bcoo_extract(m, x))(m, jnp.ones((3, 4))))
  print(jax.make_jaxpr(lambda a, b: sparse.bcoo_dot_general_sampled(
      a, b, m.indices, dimension_numbers=(([1], [0]), ([], []))))(jnp.ones((3, 2)),
                                                                  jnp.ones((2, 4))))


@program
def bcoo_jaxpr_vmap_todense():
  m = _mat()
  f = lambda d: sparse.BCOO((d, m.indices), shape=m.shape).todense()
  print(jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 5))))


@program
def bcoo_jaxpr_scalar_multiply():
  print(jax.make_jaxpr(lambda m: 2 * m)(_mat()))
  print(jax.make_jaxpr(lambda m: m * jnp.arange(4.0))(_mat()))


# --- contractions --------------------------------------------------------------------------------

@program
def bcoo_matmul_values():
  m, v, w = _mat(), jnp.arange(4.0), jnp.arange(12.0).reshape(4, 3)
  return m @ v, m @ w, jnp.arange(3.0) @ m, jnp.ones((2, 3)) @ m, m.T @ jnp.ones(3)


@program
def bcoo_matmul_layouts():
  b = jnp.asarray(_B)
  v = jnp.arange(3.0)
  return (sparse.BCOO.fromdense(b, n_batch=1) @ v,
          jnp.ones(2) @ sparse.BCOO.fromdense(b, n_dense=1),
          sparse.BCOO.fromdense(b, n_batch=2) @ v, sparse.BCOO.fromdense(b) @ v)


@program
def bcoo_dot_general_batch_dims():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  rhs = jnp.arange(12.0).reshape(2, 3, 2)
  out = sparse.bcoo_dot_general(b, rhs, dimension_numbers=(([2], [1]), ([0], [0])))
  out2 = sparse.bcoo_dot_general(b, jnp.arange(4.0).reshape(2, 2),
                                 dimension_numbers=(([0], [0]), ([], [])))
  return out, out2


@program
def bcoo_dot_general_preferred_and_ints():
  m = sparse.BCOO.fromdense(jnp.asarray(_M).astype(jnp.int32))
  v = jnp.arange(4, dtype=jnp.int32)
  f = sparse.bcoo_dot_general(_mat(), jnp.ones(4, jnp.float32),
                              dimension_numbers=(([1], [0]), ([], [])),
                              preferred_element_type=jnp.float32)
  i8 = sparse.BCOO.fromdense(jnp.asarray(_M).astype(jnp.int8))
  return m @ v, f, sparse.bcoo_dot_general(i8, jnp.ones(4, jnp.int8),
                                           dimension_numbers=(([1], [0]), ([], [])),
                                           preferred_element_type=jnp.int32)


@program
def bcoo_dot_general_mixed_dtypes():
  m = _mat()
  return m @ jnp.arange(4), m @ jnp.ones(4, jnp.float16), (m * 1j) @ jnp.ones(4)


@program
def bcoo_dot_general_contract_dense_error():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_dense=1)
  return sparse.bcoo_dot_general(b, jnp.ones(3), dimension_numbers=(([2], [0]), ([], [])))


@program
def bcoo_dot_general_batch_not_sparse_batch_error():
  b = sparse.BCOO.fromdense(jnp.asarray(_B))
  return sparse.bcoo_dot_general(b, jnp.ones((2, 3)), dimension_numbers=(([2], [1]), ([0], [0])))


@program
def bcoo_dot_general_shape_error():
  return _mat() @ jnp.ones(5)


@program
def bcoo_spdot_general_values():
  a = _mat()
  b = sparse.BCOO.fromdense(jnp.asarray(_M).T)
  out = a @ b
  out2 = sparse.bcoo_dot_general(a, b, dimension_numbers=(([0], [1]), ([], [])))
  return _bufs(out), _bufs(out2)


@program
def bcoo_spdot_general_batched():
  a = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  b = sparse.BCOO.fromdense(jnp.swapaxes(jnp.asarray(_B), 1, 2), n_batch=1)
  out = sparse.bcoo_dot_general(a, b, dimension_numbers=(([2], [1]), ([0], [0])))
  return _bufs(out)


@program
def bcoo_dot_general_sampled_values_and_grads():
  m = _mat()
  a, b = jnp.arange(6.0).reshape(3, 2), jnp.arange(8.0).reshape(2, 4)
  dn = (([1], [0]), ([], []))
  f = lambda a, b: sparse.bcoo_dot_general_sampled(a, b, m.indices, dimension_numbers=dn)
  return f(a, b), jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(a, b)


@program
def bcoo_dot_general_sampled_outer():
  m = _mat()
  f = lambda a, b: sparse.bcoo_dot_general_sampled(a, b, m.indices,
                                                   dimension_numbers=(([], []), ([], [])))
  a, b = jnp.arange(1.0, 4.0), jnp.arange(1.0, 5.0)
  return f(a, b), jax.jit(f)(a, b), jax.vmap(f)(jnp.stack([a, 2 * a]), jnp.stack([b, b]))


# --- autodiff --------------------------------------------------------------------------------

@program
def bcoo_grad_matvec():
  m = _mat()
  v = jnp.arange(4.0)
  g_v = jax.grad(lambda v: (m @ v).sum())(v)
  g_d = jax.grad(lambda d: (sparse.BCOO((d, m.indices), shape=m.shape) @ v).sum())(m.data)
  return g_v, g_d


@program
def bcoo_grad_matmat_both():
  m = _mat()
  w = jnp.arange(8.0).reshape(4, 2)

  def f(d, w):
    return jnp.sin(sparse.BCOO((d, m.indices), shape=m.shape) @ w).sum()
  return jax.grad(f, argnums=(0, 1))(m.data, w)


@program
def bcoo_grad_rmatmul_and_batched():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)

  def f(d, v):
    return ((v @ sparse.BCOO((d, b.indices), shape=b.shape)) ** 2).sum()
  return jax.grad(f, argnums=(0, 1))(b.data, jnp.arange(2.0))


@program
def bcoo_grad_n_dense():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_dense=1)

  def f(d, v):
    return (sparse.BCOO((d, b.indices), shape=b.shape) @ v).sum()
  return jax.grad(f, argnums=(0, 1))(b.data, jnp.arange(3.0))


@program
def bcoo_grad_through_fromdense():
  f = lambda x: (sparse.BCOO.fromdense(x, nse=5).todense() ** 2).sum()
  g = lambda x: sparse.bcoo_fromdense(x, nse=4).data.sum()
  return jax.grad(f)(jnp.asarray(_M)), jax.grad(g)(jnp.asarray(_M))


@program
def bcoo_jvp_todense_and_extract():
  m = _mat()
  t = jnp.ones_like(m.data)
  out = jax.jvp(lambda d: sparse.BCOO((d, m.indices), shape=m.shape).todense(), (m.data,), (t,))
  ext = jax.jvp(lambda x: sparse.bcoo_extract(m, x).data, (jnp.ones((3, 4)),),
                (jnp.arange(12.0).reshape(3, 4),))
  return out, ext


@program
def bcoo_grad_extract_and_transpose():
  m = _mat()
  g1 = jax.grad(lambda x: (sparse.bcoo_extract(m, x).data ** 2).sum())(jnp.asarray(_M))

  def f(d):
    return (sparse.BCOO((d, m.indices), shape=m.shape).T.todense() * jnp.arange(3.0)).sum()
  return g1, jax.grad(f)(m.data)


@program
def bcoo_grad_wrt_bcoo_refused():
  return jax.grad(lambda m: m.todense().sum())(_mat())


@program
def sparse_grad_helpers():
  x = sparse.BCOO.fromdense(jnp.arange(6.))
  y = jnp.ones(6)
  g = sparse.grad(lambda X, y: X @ y)(x, y)
  vg = sparse.value_and_grad(lambda X, y: X @ y)(x, y)
  both = sparse.grad(lambda X, y: (X @ y) ** 2, argnums=(0, 1))(x, y)
  return _bufs(g), vg[0], _bufs(vg[1]), _bufs(both[0]), both[1]


@program
def sparse_jacobians():
  x = sparse.BCOO.fromdense(jnp.array([0., 2., 3.]))
  jf = sparse.jacfwd(lambda X: jnp.sin(X.todense()))(x)
  jr = sparse.jacrev(lambda X: jnp.sin(X.todense()))(x)
  return _bufs(jf), _bufs(jr), _bufs(sparse.jacobian(lambda X: X.todense() * 2)(x))


@program
def sparse_grad_has_aux():
  x = sparse.BCOO.fromdense(jnp.array([0., 2., 3.]))
  g, aux = sparse.grad(lambda X: ((X.todense() ** 2).sum(), "aux"), has_aux=True)(x)
  return _bufs(g), aux


# --- index maintenance ---------------------------------------------------------------------------

@program
def bcoo_sum_duplicates_variants():
  m = _dup()
  return (_bufs(m.sum_duplicates()), _bufs(m.sum_duplicates(remove_zeros=False)),
          _bufs(m.sum_duplicates(nse=6)), _bufs(sparse.bcoo_sum_duplicates(m, nse=2)))


@program
def bcoo_sum_duplicates_jit():
  m = _dup()
  f = jax.jit(lambda m: m.sum_duplicates(nse=4, remove_zeros=False))
  return _bufs(f(m))


@program
def bcoo_sum_duplicates_jit_without_nse():
  return jax.jit(lambda m: sparse.bcoo_sum_duplicates(m))(_dup())


@program
def bcoo_sum_duplicates_batched():
  data = jnp.array([[1., 2., 3.], [4., 5., 6.]])
  indices = jnp.array([[[1], [1], [0]], [[2], [0], [2]]])
  m = sparse.BCOO((data, indices), shape=(2, 3))
  return _bufs(m.sum_duplicates()), _bufs(jax.vmap(lambda m: m.sum_duplicates(nse=3))(m))


@program
def bcoo_sum_duplicates_grad():
  m = _dup()

  def f(d):
    out = sparse.bcoo_sum_duplicates(sparse.BCOO((d, m.indices), shape=m.shape), nse=4)
    return (out.data * jnp.arange(1.0, 5.0)).sum()
  return jax.grad(f)(m.data)


@program
def bcoo_sort_indices_values():
  m = _dup()
  s = m.sort_indices()
  return _bufs(s), _bufs(jax.jit(lambda m: m.sort_indices())(m))


@program
def bcoo_sort_indices_batched_and_grad():
  data = jnp.array([[1., 2., 3.], [4., 5., 6.]])
  indices = jnp.array([[[2], [1], [0]], [[0], [2], [1]]])
  m = sparse.BCOO((data, indices), shape=(2, 3))
  g = jax.grad(lambda d: (sparse.BCOO((d, indices), shape=(2, 3)).sort_indices().data
                          * jnp.arange(3.0)).sum())(data)
  return _bufs(m.sort_indices()), g


@program
def bcoo_extract_values():
  m = _dup()
  x = jnp.arange(12.0).reshape(3, 4)
  return (_bufs(sparse.bcoo_extract(m, x)), sparse.bcoo_extract(m, x, assume_unique=True).data,
          sparse.bcoo_extract(_mat(), x).data)


@program
def bcoo_extract_errors():
  return sparse.bcoo_extract(_mat(), jnp.ones((4, 3)))


@program
def bcoo_extract_not_bcoo():
  return sparse.bcoo_extract(jnp.ones((3, 4)), jnp.ones((3, 4)))


# --- transposes, layouts and structural ops ------------------------------------------------------

@program
def bcoo_transpose_layouts():
  b = jnp.asarray(_B)
  m1 = sparse.BCOO.fromdense(b, n_batch=1)
  m2 = sparse.BCOO.fromdense(b, n_dense=1)
  return (_bufs(m1.transpose((0, 2, 1))), _bufs(m2.transpose((1, 0, 2))), _bufs(_mat().T),
          _bufs(sparse.bcoo_transpose(sparse.BCOO.fromdense(b), permutation=(2, 0, 1))))


@program
def bcoo_transpose_mixing_error():
  m = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return m.transpose((1, 0, 2))


@program
def bcoo_transpose_not_permutation():
  return _mat().transpose((0, 0))


@program
def bcoo_update_layout_values():
  b = jnp.asarray(_B)
  m = sparse.BCOO.fromdense(b)
  mb = sparse.BCOO.fromdense(b, n_batch=2)
  md = sparse.BCOO.fromdense(b, n_dense=1)
  return (_bufs(mb.update_layout(n_batch=0)), _bufs(md.update_layout(n_dense=0)),
          _bufs(m.update_layout(n_batch=1, on_inefficient=None)),
          _bufs(m.update_layout(n_dense=1, on_inefficient=None)))


@program
def bcoo_update_layout_inefficient_error():
  return sparse.BCOO.fromdense(jnp.asarray(_B)).update_layout(n_batch=1)


@program
def bcoo_update_layout_inefficient_warning():
  m = sparse.BCOO.fromdense(jnp.asarray(_B)).update_layout(n_dense=1, on_inefficient="warn")
  return _bufs(m)


@program
def bcoo_update_layout_bad_args():
  out = []
  for kw in (dict(n_batch=-1), dict(n_dense=-1), dict(n_batch=2, n_dense=2)):
    try:
      _mat().update_layout(**kw)
    except ValueError as e:
      out.append(str(e))
  return out


@program
def bcoo_broadcast_in_dim_values():
  m = _mat()
  v = sparse.BCOO.fromdense(jnp.array([1., 0., 2.]))
  return (_bufs(sparse.bcoo_broadcast_in_dim(m, shape=(2, 3, 4), broadcast_dimensions=(1, 2))),
          _bufs(sparse.bcoo_broadcast_in_dim(v, shape=(3, 1), broadcast_dimensions=(0,))),
          _bufs(m[None]), _bufs(v[:, None]))


@program
def bcoo_concatenate_values():
  a, b = _mat(), sparse.BCOO.fromdense(jnp.asarray(_M)[:2], nse=2)
  c = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return (_bufs(sparse.bcoo_concatenate([a, b], dimension=0)),
          _bufs(sparse.bcoo_concatenate([a, a], dimension=1)),
          _bufs(sparse.bcoo_concatenate([c, c], dimension=0)),
          _bufs(sparse.bcoo_concatenate([a[None], a[None]], dimension=0)))


@program
def bcoo_concatenate_errors():
  out = []
  for args in (([_mat(), jnp.ones((3, 4))], 0), ([_mat(), _mat()], 2)):
    try:
      sparse.bcoo_concatenate(args[0], dimension=args[1])
    except Exception as e:  # noqa: BLE001
      out.append(type(e).__name__)
  return out


@program
def bcoo_reshape_values():
  m = _mat()
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return (_bufs(m.reshape(12)), _bufs(m.reshape(2, 6)), _bufs(m.reshape(4, 3)),
          _bufs(b.reshape(2, 6)), _bufs(sparse.bcoo_reshape(m, new_sizes=(6, 2))))


@program
def bcoo_reshape_mixing_error():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return b.reshape(3, 4)


@program
def bcoo_slice_values():
  m = _mat()
  return (_bufs(sparse.bcoo_slice(m, start_indices=(1, 0), limit_indices=(3, 4))),
          _bufs(sparse.bcoo_slice(m, start_indices=(0, 0), limit_indices=(3, 4),
                                  strides=(2, 3))),
          _bufs(m[1:3]), _bufs(m[:, 2:]), _bufs(m[::2, ::-1]))


@program
def bcoo_slice_errors():
  return sparse.bcoo_slice(_mat(), start_indices=(0, 0), limit_indices=(4, 4))


@program
def bcoo_dynamic_slice_values():
  m = _mat()
  f = jax.jit(lambda m, i: sparse.bcoo_dynamic_slice(m, (i, 1), (2, 2)))
  return _bufs(f(m, 1)), _bufs(f(m, 2)), _bufs(sparse.bcoo_dynamic_slice(m, (0, 0), (3, 4)))


@program
def bcoo_indexing():
  m = _mat()
  return (_bufs(m[0]), _bufs(m[:, 0]), _bufs(m[2, 3]),
          _bufs(m[jnp.array([0, 2])]), _bufs(m[-1]))


@program
def bcoo_iteration():
  return [_bufs(row) for row in _mat()]


@program
def bcoo_rev_and_squeeze():
  m = _mat()
  return (_bufs(sparse.bcoo_rev(m, (0,))), _bufs(sparse.bcoo_rev(m, (0, 1))),
          _bufs(sparse.bcoo_squeeze(m[None], dimensions=(0,))),
          _bufs(sparse.bcoo_squeeze(m[:, 1:2], dimensions=(1,))))


@program
def bcoo_squeeze_error():
  return sparse.bcoo_squeeze(_mat(), dimensions=(0,))


@program
def bcoo_reduce_sum_values():
  m = _mat()
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1, n_dense=1)
  return (_bufs(sparse.bcoo_reduce_sum(m, axes=(0,))), _bufs(sparse.bcoo_reduce_sum(m, axes=(1,))),
          _bufs(sparse.bcoo_reduce_sum(b, axes=(0, 2))), m.sum(), _bufs(m.sum(0)),
          _bufs(m.sum(axis=1)))


@program
def bcoo_gather_direct():
  m = _mat()
  dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
  return _bufs(sparse.bcoo_gather(m, jnp.array([[2], [0]]), dn, (1, 4)))


# --- operators ----------------------------------------------------------------------------------

@program
def bcoo_scalar_and_dense_products():
  m = _mat()
  return (_bufs(2 * m), _bufs(m * 2.5), _bufs(m * jnp.arange(4.0)), _bufs(m * jnp.ones((3, 4))),
          _bufs(m / 2), _bufs(-m), _bufs(abs(-m)), _bufs(+m))


@program
def bcoo_sparse_products():
  m = _mat()
  other = sparse.BCOO.fromdense(jnp.asarray(_M) * jnp.arange(4.0))
  return _bufs(m * m), _bufs(m * other), _bufs(sparse.bcoo_multiply_sparse(m, other))


@program
def bcoo_multiply_dense_function():
  m = _mat()
  return (sparse.bcoo_multiply_dense(m, jnp.arange(4.0)),
          sparse.bcoo_multiply_dense(m, jnp.float32(3.0)))


@program
def bcoo_additions():
  m = _mat()
  other = sparse.BCOO.fromdense(jnp.eye(3, 4))
  return (_bufs(m + m), _bufs(m + other), m + jnp.ones((3, 4)), jnp.ones((3, 4)) + m,
          _bufs(m - other))


@program
def bcoo_add_broadcast_error():
  return _mat() + jnp.ones(4)


@program
def bcoo_sub_dense_error():
  return _mat() - jnp.ones((3, 4))


@program
def bcoo_divide_by_sparse_error():
  return jnp.ones((3, 4)) / _mat()


@program
def bcoo_elementwise_unary():
  m = _dup()
  return (_bufs(sparse.sparsify(jnp.sin)(m)),
          _bufs(sparse.sparsify(jnp.sqrt)(_mat())), _bufs(m ** 2), _bufs(_mat() ** 3),
          _bufs(sparse.sparsify(jnp.tanh)(_mat())), _bufs(_mat().astype(jnp.int32)))


@program
def bcoo_densifying_op_error():
  return sparse.sparsify(jnp.cos)(_mat())


@program
def bcoo_comparison_error():
  return _mat() > 0


@program
def bcoo_power_zero_error():
  return _mat() ** 0


# --- sparsify ----------------------------------------------------------------------------------

@program
def sparsify_functions():
  m = _mat()
  v = jnp.arange(4.0)

  @sparse.sparsify
  def f(m, v):
    return -(jnp.sin(m) @ v) + 1.0

  @sparse.sparsify
  def g(m):
    return (2 * m.T).sum(0)
  return f(m, v), _bufs(g(m)), sparse.sparsify(lambda m: m.sum())(m)


@program
def sparsify_dense_only_and_pytrees():
  m = _mat()
  out = sparse.sparsify(lambda d: {"a": d["m"] @ jnp.ones(4), "b": d["v"] * 2})(
      {"m": m, "v": jnp.ones(2)})
  return out, sparse.sparsify(lambda x: x + 1)(jnp.ones(3))


@program
def sparsify_control_flow():
  m = _mat()
  loop = sparse.sparsify(lambda m: lax.fori_loop(0, 3, lambda i, x: 2 * x, m))(m)
  cond = sparse.sparsify(lambda m, p: lax.cond(p, lambda x: 2 * x, lambda x: -x, m))(m, True)
  inner = sparse.sparsify(lambda m, v: jax.jit(lambda a, b: a @ b)(m, v))(m, jnp.ones(4))
  return _bufs(loop), _bufs(cond), inner


@program
def sparsify_while_loop():
  m = _mat()

  def f(m):
    return lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2, c[1] + 1), (m, 0))[0]
  return _bufs(sparse.sparsify(f)(m))


@program
def sparsify_unimplemented_primitive():
  return sparse.sparsify(lambda m: jnp.cumsum(m, axis=0))(_mat())


@program
def sparsify_under_jit_and_vmap():
  m = _mat()
  f = sparse.sparsify(lambda m, v: jnp.sin(m) @ v)
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return (jax.jit(f)(m, jnp.ones(4)), jax.vmap(f, in_axes=(None, 0))(m, jnp.eye(4)),
          jax.vmap(f)(b, jnp.ones((2, 3))))


# --- jit and vmap ------------------------------------------------------------------------------

@program
def bcoo_jit_roundtrip():
  m = _mat()
  out = jax.jit(lambda m: m * 2)(m)
  t = jax.jit(lambda m: m.T)(m)
  return _bufs(out), _bufs(t), jax.jit(lambda m, v: m @ v)(m, jnp.ones(4))


@program
def bcoo_repr_under_transforms():
  m = _mat()
  reprs = []
  jax.jit(lambda m: reprs.append(repr(m)) or m.data)(m)
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  jax.vmap(lambda m: reprs.append(repr(m)) or m.data)(b)
  return reprs


@program
def bcoo_vmap_in_and_out():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  dense = jax.vmap(lambda m: m.todense())(b)
  same = jax.vmap(lambda m: m)(b)
  doubled = jax.vmap(lambda m: m * 2)(b)
  return dense, _bufs(same), _bufs(doubled)


@program
def bcoo_vmap_over_data():
  m = _mat()
  f = lambda d: sparse.BCOO((d, m.indices), shape=m.shape)
  out = jax.vmap(f)(jnp.stack([m.data, 2 * m.data]))
  return _bufs(out), jax.vmap(lambda d: f(d).todense())(jnp.ones((2, 5)))


@program
def bcoo_vmap_dense_operand():
  m = _mat()
  return (jax.vmap(lambda v: m @ v)(jnp.arange(8.0).reshape(2, 4)),
          jax.vmap(lambda v: m @ v, in_axes=1)(jnp.arange(8.0).reshape(4, 2)),
          jax.vmap(lambda v: v @ m)(jnp.ones((2, 3))))


@program
def bcoo_vmap_both_operands():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return jax.vmap(lambda m, v: m @ v)(b, jnp.arange(6.0).reshape(2, 3))


@program
def bcoo_vmap_unbatched_layout_error():
  return jax.vmap(lambda m: m.todense())(_mat())


@program
def bcoo_vmap_of_fromdense_and_grad():
  x = jnp.asarray(_B)
  out = jax.vmap(lambda x: sparse.BCOO.fromdense(x, nse=3))(x)
  g = jax.vmap(jax.grad(lambda x: (sparse.BCOO.fromdense(x, nse=3).todense() ** 2).sum()))(x)
  return _bufs(out), g


@program
def bcoo_grad_of_vmap_and_jit():
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)

  def f(d, v):
    m = sparse.BCOO((d, b.indices), shape=b.shape)
    return jax.vmap(lambda m, v: m @ v)(m, v).sum()
  return jax.jit(jax.grad(f, argnums=(0, 1)))(b.data, jnp.ones((2, 3)))


@program
def random_bcoo_values():
  m = sparse.random_bcoo(jax.random.key(0), (4, 5), nse=3)
  m2 = sparse.random_bcoo(jax.random.key(1), (2, 3, 4), n_batch=1, nse=0.5, sorted_indices=True)
  return _bufs(m), _bufs(m2)


@program
def random_bcoo_bad_nse():
  return sparse.random_bcoo(jax.random.key(0), (2, 2), nse=5)


@program
def bcoo_conv_general_dilated():
  x = sparse.BCOO.fromdense(jnp.array([[[1., 0., 2., 0., 3.]]]))
  k = jnp.array([[[1., 2.]]])
  return _bufs(sparse.bcoo_conv_general_dilated(x, k, window_strides=(1,), padding="SAME"))


@program
def bcoo_from_scipy_sparse():
  import scipy.sparse
  m = sparse.BCOO.from_scipy_sparse(scipy.sparse.coo_matrix(_M))
  return _bufs(m)


# --- BCSR --------------------------------------------------------------------------------------

@program
def bcsr_fromdense_values():
  m = sparse.BCSR.fromdense(jnp.asarray(_M))
  b = sparse.BCSR.fromdense(jnp.asarray(_B), n_batch=1)
  return _bufs(m), _bufs(b), _bufs(sparse.BCSR.fromdense(jnp.asarray(_M), nse=7))


@program
def bcsr_conversions():
  m = sparse.BCSR.fromdense(jnp.asarray(_M))
  bcoo_m = m.to_bcoo()
  back = sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(jnp.asarray(_M)).T)
  return _bufs(bcoo_m), _bufs(back), _bufs(sparse.bcsr_sum_duplicates(m, nse=6))


@program
def bcsr_products_and_grads():
  m = sparse.BCSR.fromdense(jnp.asarray(_M))
  v = jnp.arange(4.0)

  def f(d, v):
    return (sparse.BCSR((d, m.indices, m.indptr), shape=m.shape) @ v).sum()
  return (m @ v, m @ jnp.ones((4, 2)), jax.grad(f, argnums=(0, 1))(m.data, v),
          sparse.bcsr_dot_general(m, v, dimension_numbers=(([1], [0]), ([], []))))


@program
def bcsr_jaxprs():
  x = jnp.asarray(_M)
  print(jax.make_jaxpr(lambda x: sparse.bcsr_fromdense(x, nse=5).todense())(x))
  m = sparse.BCSR.fromdense(x)
  print(jax.make_jaxpr(lambda m, v: m @ v)(m, jnp.ones(4)))


@program
def bcsr_jit_vmap():
  b = sparse.BCSR.fromdense(jnp.asarray(_B), n_batch=1)
  return (jax.vmap(lambda m: m.todense())(b), jax.jit(lambda m: m.todense())(b),
          jax.vmap(lambda m, v: m @ v)(b, jnp.ones((2, 3))))


@program
def bcsr_structural():
  m = sparse.BCSR.fromdense(jnp.asarray(_M))
  return (_bufs(sparse.bcsr_broadcast_in_dim(m, shape=(2, 3, 4), broadcast_dimensions=(1, 2))),
          _bufs(sparse.bcsr_concatenate([m, m], dimension=0)),
          _bufs(sparse.empty((2, 3), sparse_format="bcsr")))


@program
def bcsr_bad_layout():
  return sparse.BCSR.fromdense(jnp.ones((2, 3, 4)))


@program
def bcsr_transpose_unsupported():
  return sparse.BCSR.fromdense(jnp.asarray(_M)).T


# --- COO, CSR, CSC -----------------------------------------------------------------------------

@program
def coo_values():
  m = sparse.COO.fromdense(jnp.asarray(_M))
  padded = sparse.COO.fromdense(jnp.asarray(_M), nse=7)
  v = jnp.arange(4.0)
  return (_bufs(m), _bufs(padded), m @ v, m @ jnp.ones((4, 2)), _bufs(m.T), m.T @ jnp.ones(3),
          sparse.coo_matvec(m, jnp.ones(3), transpose=True))


@program
def coo_grads_and_jit():
  m = sparse.COO.fromdense(jnp.asarray(_M))
  v = jnp.arange(4.0)

  def f(d, v):
    return (sparse.COO((d, m.row, m.col), shape=m.shape) @ v).sum()
  return (jax.grad(f, argnums=(0, 1))(m.data, v), jax.jit(lambda m, v: m @ v)(m, v),
          jax.grad(lambda x: sparse.coo_fromdense(x, nse=5).data.sum())(jnp.asarray(_M)))


@program
def coo_eye_empty():
  return (_bufs(sparse.eye(3, 4, k=1, sparse_format="coo")),
          _bufs(sparse.empty((2, 3), sparse_format="coo")), sparse.COO.fromdense(jnp.eye(2)).nse)


@program
def coo_vmap_unsupported():
  m = sparse.COO.fromdense(jnp.asarray(_M))
  return jax.vmap(lambda v: m @ v)(jnp.ones((2, 4)))


@program
def csr_csc_values():
  m = sparse.CSR.fromdense(jnp.asarray(_M))
  c = sparse.CSC.fromdense(jnp.asarray(_M))
  v = jnp.arange(4.0)
  return (_bufs(m), _bufs(c), m @ v, c @ v, m @ jnp.ones((4, 2)), c @ jnp.ones((4, 2)),
          _bufs(m.T), _bufs(c.T), _bufs(sparse.CSR.fromdense(jnp.asarray(_M), nse=6)))


@program
def csr_grads_and_formats():
  m = sparse.CSR.fromdense(jnp.asarray(_M))
  v = jnp.arange(4.0)

  def f(d, v):
    return (sparse.CSR((d, m.indices, m.indptr), shape=m.shape) @ v).sum()
  return (jax.grad(f, argnums=(0, 1))(m.data, v), _bufs(sparse.eye(3, k=1, sparse_format="csr")),
          _bufs(sparse.eye(3, k=-1, sparse_format="csc")),
          _bufs(sparse.empty((2, 3), sparse_format="csc")), sparse.csr_matvec(m, jnp.ones(3),
                                                                              transpose=True))


@program
def csr_jaxpr():
  m = sparse.CSR.fromdense(jnp.asarray(_M))
  print(jax.make_jaxpr(lambda m, v: m @ v)(m, jnp.ones(4)))
  print(jax.make_jaxpr(lambda x: sparse.csr_fromdense(x, nse=3).todense())(jnp.asarray(_M)))


# --- float64 -------------------------------------------------------------------------------------

@program(x64=True)
def bcoo_x64():
  m = sparse.BCOO.fromdense(jnp.asarray(_M, jnp.float64))
  v = jnp.arange(4.0)
  g = jax.grad(lambda d: (sparse.BCOO((d, m.indices), shape=m.shape) @ v).sum())(m.data)
  return (_bufs(m), m @ v, g, sparse.BCOO.fromdense(jnp.asarray(_M), index_dtype=jnp.int64).indices,
          _bufs(sparse.eye(2, dtype=jnp.float64)))


@program(x64=True)
def random_bcoo_x64():
  return _bufs(sparse.random_bcoo(jax.random.key(3), (3, 4), nse=0.25))


# --- more edges --------------------------------------------------------------------------------

@program
def bcoo_fromdense_bad_layouts():
  out = []
  for kw in (dict(n_batch=3), dict(n_dense=3), dict(n_batch=2, n_dense=1)):
    try:
      m = sparse.BCOO.fromdense(jnp.asarray(_M), **kw)
      out.append(repr(m))
    except Exception as e:  # noqa: BLE001
      out.append(type(e).__name__)
  return out


@program
def bcoo_fromdense_concrete_array_nse():
  return _bufs(sparse.BCOO.fromdense(jnp.asarray(_M), nse=jnp.int32(3)))


@program
def bcoo_update_layout_bad_on_inefficient():
  return _mat().update_layout(n_batch=1, on_inefficient="ignore")


@program
def bcoo_sparse_sparse_matmul_via_sparsify():
  m = _mat()
  out = sparse.sparsify(lambda a: a @ a.T)(m)
  return _bufs(out), _bufs(sparse.sparsify(jnp.matmul)(m.T, m))


@program
def bcoo_astype_and_weak_types():
  m = _mat()
  return (_bufs(m.astype(jnp.float16)), _bufs(m.astype(jnp.int8)), (m * 2).data,
          (2.0 * m).data, (m * jnp.float32(2)).data)


@program
def bcoo_jit_of_vmap_and_vmap_of_jit():
  x = jnp.asarray(_B)
  f = jax.jit(jax.vmap(lambda x: sparse.BCOO.fromdense(x, nse=3)))
  g = jax.vmap(jax.jit(lambda x: sparse.BCOO.fromdense(x, nse=3).todense().sum(0)))
  return _bufs(f(x)), g(x)


@program
def bcoo_todense_function_transforms():
  m = _mat()
  g = jax.grad(lambda d: (sparse.todense(sparse.BCOO((d, m.indices), shape=m.shape)) ** 2).sum())
  b = sparse.BCOO.fromdense(jnp.asarray(_B), n_batch=1)
  return g(m.data), jax.vmap(sparse.todense)(b), jax.jit(sparse.todense)(m)


@program
def bcoo_block_until_ready_and_len():
  m = _mat()
  return repr(m.block_until_ready()), len(m), m.size, m.T.shape


@program
def sparsify_with_tracer():
  m = _mat()
  f = sparse.sparsify(lambda m, v: -(jnp.sin(m) @ v) + 1.0, use_tracer=True)
  g = sparse.sparsify(lambda m: (2 * m.T).sum(0), use_tracer=True)
  h = sparse.sparsify(lambda m: lax.fori_loop(0, 3, lambda i, x: 2 * x, m), use_tracer=True)
  return f(m, jnp.arange(4.0)), _bufs(g(m)), _bufs(h(m)), jax.jit(f)(m, jnp.ones(4))
