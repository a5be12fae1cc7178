"""A broad sample of jax.numpy as users call it: reductions, cumulative ops, sorting, take and
indexing, .at[] updates and their modes, einsum and products, linalg, where/clip, joining and
splitting, pad, unique, nan-reductions, *_like of ShapeDtypeStruct, rounding, integer division,
bit operations, and the printing of arrays.

Programs marked "under jit" run their body as one jitted function (one compile instead of one per
operation, to keep the corpus fast); the others run eagerly."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _m():
  return jnp.arange(12.0).reshape(3, 4)


@program
def reductions_axis_keepdims():  # under jit
  def body():
    x = _m()
    return (jnp.sum(x), jnp.sum(x, axis=0), jnp.sum(x, axis=1, keepdims=True),
            jnp.mean(x, axis=(0, 1)), jnp.max(x, axis=-1), jnp.min(x, axis=0, keepdims=True),
            jnp.prod(x[:, :2] + 1, axis=0), jnp.std(x, axis=0), jnp.var(x, ddof=1),
            jnp.sum(jnp.arange(4, dtype=jnp.int8)), jnp.sum(jnp.array([True, True, False])),
            jnp.mean(jnp.arange(4)))
  return jax.jit(body)()


@program
def reductions_eager_dtypes():
  x = jnp.arange(4, dtype=jnp.int8)
  return (jnp.sum(x), jnp.sum(x, dtype=jnp.int8), jnp.prod(x + 1), jnp.mean(x), x.sum(axis=0),
          jnp.max(jnp.array([1.5, -2.0])), jnp.sum(jnp.ones(3, jnp.bfloat16)),
          jnp.mean(jnp.ones(2, jnp.float16)), jnp.sum(jnp.array([True, False])))


@program
def reductions_with_where_and_initial():  # under jit
  def body():
    x = _m()
    mask = x > 4
    return (jnp.sum(x, where=mask), jnp.sum(x, axis=0, where=mask),
            jnp.mean(x, axis=1, where=mask), jnp.max(x, axis=1, where=mask, initial=-1.0),
            jnp.min(x, initial=3.0), jnp.prod(x, where=x < 3), jnp.any(mask, axis=0),
            jnp.all(mask, axis=1))
  return jax.jit(body)()


@program
def cumulative_ops():  # under jit
  def body():
    x = jnp.array([[1, 2, 3], [4, 5, 6]])
    return (jnp.cumsum(x), jnp.cumsum(x, axis=0), jnp.cumprod(x, axis=1),
            jnp.cumsum(x, dtype=jnp.float32), jnp.cumsum(jnp.array([True, False, True])),
            jnp.diff(x, axis=1), jnp.cumulative_sum(x, axis=1, include_initial=True))
  return jax.jit(body)()


@program
def sort_and_argsort_stable():
  x = jnp.array([3, 1, 2, 1, 3, 0])
  f = jnp.array([2.0, jnp.nan, -1.0, 0.0, -0.0, jnp.inf])
  return (jnp.sort(x), jnp.argsort(x), jnp.argsort(x, stable=True),
          jnp.argsort(x, descending=True), jnp.sort(f), jnp.argsort(f),
          jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0), jnp.sort(x, descending=True),
          jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, 1]))))


@program
def take_and_take_along_axis():
  x = _m()
  idx = jnp.array([[0, 3], [1, 1], [2, 0]])
  return (jnp.take(x, jnp.array([0, 5, 11])), jnp.take(x, jnp.array([2, 0]), axis=1),
          jnp.take_along_axis(x, idx, axis=1), jnp.take(x, jnp.array([20]), mode="clip"),
          jnp.take(x, jnp.array([13]), mode="wrap"),
          jnp.take(x, jnp.array([20]), fill_value=-1.0),
          jnp.take_along_axis(x, jnp.argsort(-x, axis=1), axis=1))


@program
def take_out_of_bounds_default_fill():
  x = jnp.arange(4.0)
  return jnp.take(x, jnp.array([1, 10, -1, -10])), jnp.take(jnp.arange(4), jnp.array([10]))


@program
def basic_indexing():
  x = jnp.arange(24).reshape(2, 3, 4)
  return (x[1], x[:, 1], x[..., -1], x[0, ::2, 1:3], x[None, 0].shape,
          x[:, None, :, None].shape, x[..., None].shape, x[-1, -1, -1], x[1, ..., ::-1],
          x[::2, :, 3])


@program
def advanced_indexing():
  x = jnp.arange(12).reshape(3, 4)
  return (x[jnp.array([0, 2])], x[jnp.array([0, 2]), jnp.array([1, 3])], x[:, jnp.array([3, 0])],
          x[jnp.array([[0], [2]]), jnp.array([1, 2])], x[x > 5],
          x[jnp.array([True, False, True])], x[[0, 1], [1, 2]], x[1, [0, 0, 3]])


@program
def indexing_out_of_bounds_is_clamped():
  x = jnp.arange(5)
  return x[10], x[-10], x[jnp.array([0, 7, -7])], x[2:100], x[jnp.array(6)]


@program
def at_updates():
  x = jnp.zeros(5)
  i = jnp.array([0, 2, 2])
  return (x.at[1].set(3.0), x.at[i].add(1.0), x.at[i].set(jnp.array([1.0, 2.0, 3.0])),
          jnp.ones(5).at[i].mul(2.0), x.at[i].min(-1.0), x.at[i].max(4.0), x.at[1:3].add(5.0),
          x.at[jnp.array([True, False, True, False, False])].set(7.0), x.at[-1].set(9.0),
          jnp.arange(5).at[2].get(), jnp.ones((2, 3)).at[:, 1].set(0.0))


@program
def at_out_of_bounds_modes():
  x = jnp.arange(4.0)
  return (x.at[10].set(1.0), x.at[jnp.array([1, 10])].add(5.0),
          x.at[10].get(mode="fill", fill_value=-1.0), x.at[jnp.array([1, 10])].get(mode="clip"),
          x.at[-10].set(3.0), x.at[jnp.array([5])].set(2.0, mode="clip"),
          x.at[jnp.array([1, 1])].set(jnp.array([6.0, 7.0]), unique_indices=False))


@program
def at_dtype_of_update():
  x = jnp.arange(3)
  return x.at[0].set(2.7), x.at[1].add(1.5), jnp.zeros(2, jnp.float16).at[0].set(1e5)


@program
def einsum_variants():  # under jit
  def body():
    a = jnp.arange(6.0).reshape(2, 3)
    b = jnp.arange(12.0).reshape(3, 4)
    v = jnp.array([1.0, 2.0, 3.0])
    return (jnp.einsum("ij,jk->ik", a, b), jnp.einsum("ij->ji", a),
            jnp.einsum("ii", jnp.eye(3) * 2), jnp.einsum("i,i->", v, v),
            jnp.einsum("i,j->ij", v, v[:2]),
            jnp.einsum("bij,bjk->bik", jnp.ones((2, 2, 3)), jnp.ones((2, 3, 1))),
            jnp.einsum("...j,j", a, v), jnp.einsum(a, [0, 1], [1]))
  return jax.jit(body)()


@program
def matmul_dot_tensordot_shapes():
  a = jnp.arange(6.0).reshape(2, 3)
  b = jnp.arange(12.0).reshape(3, 4)
  v = jnp.array([1.0, 0.0, -1.0])
  batch = jnp.ones((5, 2, 3))
  return (jnp.matmul(a, b), a @ v, v @ b, jnp.dot(v, v), jnp.dot(a, b).shape, (batch @ b).shape,
          jnp.tensordot(a, b, axes=1), jnp.tensordot(batch, b, axes=([2], [0])).shape,
          jnp.inner(v, v), jnp.outer(v, v[:2]), jnp.vdot(v, v),
          jnp.matmul(jnp.ones(3, jnp.int32), b), jnp.kron(jnp.eye(2), jnp.ones((1, 2))))


@program(rtol=1e-4, atol=1e-5)
def linalg_values():  # under jit
  def body():
    a = jnp.array([[4.0, 1.0], [2.0, 3.0]])
    b = jnp.array([1.0, 2.0])
    return (jnp.linalg.norm(a), jnp.linalg.norm(b, ord=1), jnp.linalg.norm(a, axis=0),
            jnp.linalg.norm(a, ord="fro"), jnp.linalg.norm(a, ord=2), jnp.linalg.inv(a),
            jnp.linalg.solve(a, b), jnp.linalg.det(a), jnp.linalg.svd(a, compute_uv=False),
            jnp.linalg.slogdet(a), jnp.linalg.matrix_rank(a), jnp.trace(a),
            jnp.linalg.eigvalsh(a + a.T))
  return jax.jit(body)()


@program(rtol=1e-4, atol=1e-5)
def linalg_decompositions_reconstruct():  # under jit
  def body():
    a = jnp.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    u, s, vt = jnp.linalg.svd(a)
    q, r = jnp.linalg.qr(a)
    low = jnp.linalg.cholesky(a)
    w, v = jnp.linalg.eigh(a)
    return (u @ jnp.diag(s) @ vt, q @ r, low @ low.T, (v * w) @ v.T, s, w, jnp.abs(jnp.diag(r)),
            jnp.linalg.pinv(a[:2]), jnp.linalg.lstsq(a, jnp.ones(3))[0])
  return jax.jit(body)()


@program
def where_select_clip():
  x = jnp.array([-2.0, -0.5, 0.0, 0.5, 2.0])
  return (jnp.where(x > 0, x, 0.0), jnp.where(x > 0, 1, 0), jnp.where(x > 0),
          jnp.where(x > 0, size=4), jnp.where(x > 0, size=4, fill_value=-1), jnp.clip(x, -1, 1),
          jnp.clip(x, min=0), jnp.clip(jnp.arange(5), 1, 3),
          jnp.select([x < 0, x > 1], [x * 10, x * 100], default=-7.0), jnp.nonzero(x, size=3),
          jnp.argwhere(x == 0), jnp.piecewise(x, [x < 0], [0.0, lambda t: t * 2]))


@program
def concatenate_stack_split():
  a = jnp.arange(6).reshape(2, 3)
  return (jnp.concatenate([a, a]), jnp.concatenate([a, a], axis=1),
          jnp.concatenate([a, a], axis=None), jnp.stack([a, a]).shape,
          jnp.stack([a, a], axis=-1).shape, jnp.hstack([a, a]).shape,
          jnp.vstack([jnp.ones(3), jnp.zeros(3)]), jnp.split(jnp.arange(6), 3),
          jnp.split(jnp.arange(6), [1, 4]), jnp.array_split(jnp.arange(7), 3),
          jnp.concatenate([jnp.ones(2, jnp.int8), jnp.ones(2, jnp.float16)]),
          jnp.column_stack([jnp.arange(2), jnp.arange(2)]), jnp.dstack([a, a]).shape)


@program
def pad_modes():  # under jit
  def body():
    x = jnp.array([1, 2, 3])
    m = jnp.arange(4).reshape(2, 2)
    return (jnp.pad(x, 2), jnp.pad(x, (1, 2), constant_values=9), jnp.pad(x, 2, mode="edge"),
            jnp.pad(x, 2, mode="reflect"), jnp.pad(x, 2, mode="symmetric"),
            jnp.pad(x, 2, mode="wrap"), jnp.pad(x, 2, mode="linear_ramp", end_values=(0, 10)),
            jnp.pad(m, ((1, 0), (0, 1))), jnp.pad(x.astype(float), 1, mode="mean"),
            jnp.pad(x, 3, mode="maximum"))
  return jax.jit(body)()


@program
def unique_with_size():
  x = jnp.array([3, 1, 3, 2, 1, 1])
  vals, idx, inv, counts = jnp.unique(x, return_index=True, return_inverse=True,
                                      return_counts=True)
  return (jnp.unique(x), vals, idx, inv, counts, jnp.unique(x, size=5, fill_value=-1),
          jnp.unique(x, size=2))


@program
def argmax_ties_and_nans():
  x = jnp.array([1, 3, 3, 0, 3])
  f = jnp.array([1.0, jnp.nan, 5.0, jnp.nan])
  m = jnp.array([[1, 5, 5], [7, 7, 0]])
  return (jnp.argmax(x), jnp.argmin(x), jnp.argmax(f), jnp.argmin(f), jnp.argmax(m, axis=1),
          jnp.argmax(m, axis=0), jnp.argmax(m), jnp.argmax(m, axis=1, keepdims=True),
          jnp.nanargmax(f), jnp.nanargmin(f))


@program
def nan_reductions():  # under jit
  def body():
    x = jnp.array([[1.0, jnp.nan, 3.0], [jnp.nan, jnp.nan, 2.0]])
    return (jnp.nansum(x), jnp.nansum(x, axis=0), jnp.nanmean(x, axis=1),
            jnp.nanmax(x, axis=1), jnp.nanmin(x), jnp.nanstd(x, axis=1), jnp.nanvar(x),
            jnp.nanprod(x, axis=0), jnp.nancumsum(x, axis=1), jnp.sum(x), jnp.max(x, axis=0),
            jnp.nan_to_num(x, nan=-1.0))
  return jax.jit(body)()


@program
def like_of_shape_dtype_struct():
  s = jax.ShapeDtypeStruct((2, 3), jnp.int8)
  f = jax.ShapeDtypeStruct((2,), jnp.float16)
  return (jnp.zeros_like(s), jnp.ones_like(f), jnp.full_like(s, 4), jnp.empty_like(f).shape,
          jnp.zeros_like(s, dtype=jnp.float32), jnp.ones_like(f, shape=(3,)), repr(s))


@program
def rounding_half_to_even():
  x = jnp.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5])
  return (jnp.round(x), jnp.rint(x), jnp.floor(x), jnp.ceil(x), jnp.trunc(x),
          jnp.round(jnp.array([1.25, 1.35]), 1), jnp.round(jnp.array([1250.0, 1350.0]), -2),
          jnp.around(jnp.float32(2.675), 2), jnp.round(jnp.arange(3)))


@program
def round_integers_negative_decimals_error():
  return jnp.round(jnp.array([1250, 1350]), -2)


@program
def integer_division_and_modulo_of_negatives():  # under jit
  def body():
    a = jnp.array([7, -7, 7, -7, 0])
    b = jnp.array([2, 2, -2, -2, 3])
    f = jnp.array([7.5, -7.5, 7.5, -7.5])
    g = jnp.array([2.0, 2.0, -2.0, -2.0])
    return (a // b, a % b, jnp.fmod(a, b), jnp.remainder(a, b), jnp.divmod(a, b), f // g, f % g,
            jnp.fmod(f, g), jnp.floor_divide(a, 0), jnp.remainder(a, 0), a / b,
            jnp.true_divide(a, 0), jnp.array([249], jnp.uint8) // 2)
  return jax.jit(body)()


@program
def integer_division_eager():
  a = jnp.array([7, -7, 0])
  return a // 2, a % -3, -7 // jnp.array(2), jnp.array(-7.5) % 2, divmod(jnp.array(-7), 2)


@program
def bit_operations():  # under jit
  def body():
    a = jnp.array([0b1100, 0b1010, -1], dtype=jnp.int32)
    b = jnp.array([0b1010, 0b0110, 1], dtype=jnp.int32)
    u = jnp.array([1, 128, 255], dtype=jnp.uint8)
    return (a & b, a | b, a ^ b, ~a, jnp.left_shift(a, 2), jnp.right_shift(a, 1), a >> 1, u << 1,
            ~u, jnp.bitwise_count(a), jnp.invert(jnp.array([True, False])),
            jnp.right_shift(u, 9), jnp.left_shift(jnp.int32(1), 31), jnp.bitwise_and(u, 3))
  return jax.jit(body)()


@program
def printing_arrays_repr_and_str():
  arrays = [jnp.array(1.0), jnp.array(3), jnp.array([1, 2, 3], jnp.int8),
            jnp.arange(6.0).reshape(2, 3), jnp.array([1.5, -2.25], jnp.bfloat16),
            jnp.array([0.1, 1e-8], jnp.float16), jnp.array([1 + 2j, -1j]),
            jnp.array([True, False]), jnp.zeros((0, 3)), jnp.array([jnp.nan, jnp.inf]),
            jnp.array([1, 2], jnp.uint32), jnp.array(2.0) * 3, jnp.array([1e10, 1.0]),
            jnp.ones((2, 1, 2))]
  return [repr(a) for a in arrays], [str(a) for a in arrays]


@program
def printing_large_array_summarized():
  x = jnp.arange(2000)
  return repr(x), str(x.reshape(40, 50)[:3])


@program(x64=True)
def printing_x64_arrays():
  return (repr(jnp.array(1.0)), repr(jnp.arange(3)), repr(jnp.array([1.0, 2.0], jnp.float32)),
          repr(jnp.array(1) + 0.5), str(jnp.array([0.1, 0.2])))


@program
def printing_inside_print():
  x = jnp.array([1.0, 2.0])
  print(x)
  print(repr(x.astype(jnp.int16)))
  print(f"{jnp.array(3.14159):.2f}", f"{jnp.array(7)}")
  print(jnp.array(2.5).item(), int(jnp.array(3)), float(jnp.array(1.5, jnp.bfloat16)))
  return x.tolist(), jnp.array(4).tolist(), jnp.array([[1, 2]]).tolist()


@program
def shape_ops():
  x = jnp.arange(6)
  m = x.reshape(2, 3)
  return (m.T, jnp.transpose(jnp.ones((2, 3, 4)), (2, 0, 1)).shape, jnp.reshape(x, (3, -1)),
          m.ravel(), jnp.expand_dims(x, (0, 2)).shape, jnp.squeeze(jnp.ones((1, 3, 1))).shape,
          jnp.flip(m, axis=1), jnp.roll(x, 2), jnp.roll(m, 1, axis=0),
          jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape, jnp.tile(jnp.array([1, 2]), 2),
          jnp.repeat(jnp.array([1, 2]), 2), jnp.repeat(m, jnp.array([1, 2]), axis=0),
          jnp.broadcast_to(jnp.array([1, 2]), (2, 2)), jnp.atleast_2d(jnp.array(1)).shape,
          jnp.rot90(m))


@program
def creation_functions():  # under jit
  def body():
    return (jnp.arange(1, 10, 3), jnp.arange(0.0, 1.0, 0.25), jnp.linspace(0, 1, 5),
            jnp.linspace(0, 1, 4, endpoint=False), jnp.logspace(0, 2, 3), jnp.eye(3, k=1),
            jnp.identity(2, dtype=jnp.int32), jnp.tri(3), jnp.triu(jnp.ones((3, 3))),
            jnp.tril(jnp.ones((3, 3)), -1), jnp.diag(jnp.array([1, 2])), jnp.diag(_m()),
            jnp.meshgrid(jnp.arange(2), jnp.arange(3)), jnp.indices((2, 2)),
            jnp.geomspace(1, 8, 4))
  return jax.jit(body)()


@program
def creation_eager_weak_types():
  return (jnp.arange(3), jnp.arange(3.0), jnp.linspace(0, 1, 3), jnp.eye(2), jnp.zeros((2,)),
          jnp.empty((2,)).shape, jnp.array([1, 2.5]), jnp.asarray(np.float32(2)),
          jnp.array(jnp.array(1.0)), jnp.copy(jnp.array(2)))


@program
def searching_and_counting():
  x = jnp.array([1, 3, 5, 7])
  return (jnp.searchsorted(x, jnp.array([0, 3, 6, 8])), jnp.searchsorted(x, 3, side="right"),
          jnp.count_nonzero(jnp.array([[0, 1], [2, 0]]), axis=0),
          jnp.bincount(jnp.array([0, 1, 1, 3]), length=5),
          jnp.digitize(jnp.array([0.5, 1.5, 2.5]), jnp.array([1.0, 2.0])),
          jnp.isin(x, jnp.array([3, 7])))


@program
def statistics_and_misc():  # under jit
  def body():
    x = jnp.array([1.0, 4.0, 2.0, 8.0])
    xp, fp = jnp.array([1.0, 2.0, 4.0]), jnp.array([10.0, 20.0, 40.0])
    return (jnp.median(x), jnp.percentile(x, 50), jnp.quantile(x, jnp.array([0.25, 0.75])),
            jnp.average(x, weights=x), jnp.cov(jnp.stack([x, x * 2])), jnp.ptp(x),
            jnp.interp(jnp.array([1.5, 3.0]), xp, fp), jnp.polyval(jnp.array([1.0, 0.0, -1.0]), x),
            jnp.cross(jnp.array([1.0, 0, 0]), jnp.array([0, 1.0, 0])))
  return jax.jit(body)()


@program
def comparisons_and_allclose():
  x = jnp.array([1.0, jnp.nan, 3.0])
  return (x == x, jnp.isnan(x), jnp.array_equal(x, x), jnp.array_equal(x, x, equal_nan=True),
          jnp.allclose(x, x + 1e-9), jnp.allclose(x, x, equal_nan=True),
          jnp.isclose(x, jnp.array([1.0, jnp.nan, 3.1])), jnp.maximum(x, 2.0), jnp.fmax(x, 2.0),
          jnp.minimum(jnp.array([1, 5]), jnp.array([3, 2])),
          jnp.sign(jnp.array([-2.0, 0.0, 3.0])), jnp.signbit(jnp.array([-0.0, 0.0])))
