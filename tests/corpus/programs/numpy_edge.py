"""Edge cases of jax.numpy that the broad sample (numpy_api.py, dtypes.py) does not reach: type
promotion of mixed small dtypes with weak Python scalars, division and remainder by zero, casts of
nan/inf/out-of-range floats to integers, wrap-around in int8/uint8, reductions over empty arrays and
odd axis arguments, nan placement in sorts, unique along axes, searchsorted sides, creation dtype
rules, out-of-bound take/at modes, einsum/matmul shape corners, histogram/bincount, interp at and
beyond the ends, quantile methods, complex functions, shifts beyond the bit width, signed zeros,
and the errors JAX raises for misuse.

All programs run eagerly and are small; each targets one theme so a divergence names its cause."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


# --- type promotion ---------------------------------------------------------------------------

@program
def promote_uint_int_pairs():
  u8, i8 = jnp.array([200], jnp.uint8), jnp.array([-3], jnp.int8)
  u16, i16 = jnp.array([3], jnp.uint16), jnp.array([-3], jnp.int16)
  return (u8 + i8, u16 + i8, u8 + i16, u16 * i16, jnp.array([1], jnp.uint32) + i8,
          jnp.array([True]) + u8, jnp.array([True]) * i8)


@program
def promote_small_floats_and_ints():
  f16, bf16 = jnp.array([1.5], jnp.float16), jnp.array([1.5], jnp.bfloat16)
  return (f16 + bf16, f16 + jnp.array([2], jnp.int8), bf16 + jnp.array([2], jnp.uint8),
          f16 + jnp.array([2], jnp.int32), bf16 * jnp.array([True]),
          jnp.array([1], jnp.uint64) + jnp.array([1], jnp.int64))


@program
def promote_with_weak_python_scalars():
  u8 = jnp.array([250, 3], jnp.uint8)
  i8 = jnp.array([-100, 100], jnp.int8)
  f16 = jnp.array([1.0], jnp.float16)
  bf16 = jnp.array([1.0], jnp.bfloat16)
  b = jnp.array([True, False])
  return (u8 + 10, i8 * 2, u8 + 1.5, f16 + 1, f16 * 2.5, bf16 + 3, bf16 + 1j, b + 1, b + 1.0,
          b * True, i8 + True, 2 ** u8[1:], 1.0 - u8, f16 + (1 + 2j))


@program
def weak_scalar_results_keep_weak():
  x = jnp.asarray(3)
  y = jnp.asarray(2.5)
  return (x + 1, x * 2.0, y + 1, -y, jnp.abs(x), x // 2, x % 2, jnp.sqrt(x), x > 1,
          jnp.where(True, x, 1), jnp.maximum(y, 1))


@program
def promotion_result_type_of_mixed_inputs():
  return (jnp.result_type(jnp.uint8, jnp.int8), jnp.result_type(jnp.float16, jnp.bfloat16),
          jnp.result_type(jnp.uint8, 1.0), jnp.result_type(jnp.int8, 300),
          jnp.result_type(jnp.bfloat16, jnp.int64), jnp.result_type(jnp.bool_, 1),
          jnp.result_type(1, 1.0, 1j), jnp.result_type(jnp.uint16, jnp.float16),
          jnp.promote_types(jnp.uint8, jnp.bfloat16), jnp.promote_types(jnp.int16, jnp.float16))


@program
def python_int_300_plus_uint8():
  return jnp.array([1], jnp.uint8) + 300


@program
def negative_python_int_with_uint8():
  return jnp.array([1, 2], jnp.uint8) + (-1)


# --- integer division, remainder, overflow --------------------------------------------------

@program
def integer_division_by_zero():
  a = jnp.array([7, -7, 0, 5], jnp.int32)
  z = jnp.zeros(4, jnp.int32)
  return (a // z, a % z, jnp.fmod(a, z), jnp.divmod(a, z), jnp.remainder(a, z))


@program
def unsigned_division_by_zero():
  a = jnp.array([7, 0, 255], jnp.uint8)
  z = jnp.zeros(3, jnp.uint8)
  return (a // z, a % z)


@program
def int_min_divided_by_minus_one():
  a = jnp.array([-128, -127], jnp.int8)
  m = jnp.array([-1, -1], jnp.int8)
  return (a // m, a % m, -a, jnp.abs(a))


@program
def fmod_and_remainder_signs():
  a = jnp.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0])
  b = jnp.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0])
  ai = jnp.array([7, -7, 7, -7])
  bi = jnp.array([3, 3, -3, -3])
  return (jnp.fmod(a, b), jnp.remainder(a, b), jnp.mod(a, b), jnp.fmod(ai, bi),
          jnp.remainder(ai, bi), jnp.divmod(ai, bi))


@program
def float_floor_divide_with_inf_and_zero():
  a = jnp.array([1.0, -1.0, 5.0, -5.0, jnp.inf, 0.0])
  b = jnp.array([jnp.inf, jnp.inf, 0.0, 0.0, 2.0, 0.0])
  return (jnp.floor_divide(a, b), jnp.remainder(a, b), jnp.divmod(a, b))


@program
def int8_uint8_wraparound():
  i8 = jnp.array([127, -128, 100], jnp.int8)
  u8 = jnp.array([255, 0, 200], jnp.uint8)
  return (i8 + jnp.int8(1), i8 - jnp.int8(1), i8 * jnp.int8(2), u8 + jnp.uint8(1),
          u8 - jnp.uint8(1), u8 * jnp.uint8(2), -u8, jnp.negative(i8), jnp.sum(u8, dtype=jnp.uint8),
          jnp.cumsum(i8, dtype=jnp.int8))


@program
def integer_power_edge_cases():
  return (jnp.power(jnp.array([2, -2, 0, 1]), jnp.array([0, 3, 0, 100])),
          jnp.array([2], jnp.int8) ** 7, jnp.array([3], jnp.uint8) ** 6,
          jnp.power(jnp.array([2.0]), jnp.array([-1])), jnp.float_power(2, 3))


@program
def integer_negative_power_error():
  return jnp.power(jnp.array([2]), -1)


# --- casts ------------------------------------------------------------------------------------

@program(x64=True)
def astype_nan_inf_to_int():
  x = jnp.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 2.7, -2.7], jnp.float32)
  return (x.astype(jnp.int32), x.astype(jnp.int8), x.astype(jnp.uint8), x.astype(jnp.int16),
          x.astype(jnp.uint32), x.astype(jnp.int64))


@program
def astype_in_range_truncation():
  x = jnp.array([2.7, -2.7, 0.5, -0.5, 255.9, 127.5])
  return (x.astype(jnp.int32), x.astype(jnp.int8), x.astype(jnp.uint8), x.astype(jnp.uint16))


@program
def astype_int_narrowing_wraps():
  x = jnp.array([300, -1, 128, 65536 + 5, -129])
  return (x.astype(jnp.int8), x.astype(jnp.uint8), x.astype(jnp.uint16), x.astype(jnp.int16))


@program
def astype_bool_and_from_bool():
  x = jnp.array([0.0, -0.0, 0.1, np.nan, -1.0])
  b = jnp.array([True, False])
  return (x.astype(bool), jnp.array([0, 2, -3]).astype(jnp.bool_),
          jnp.array([0j, 1j]).astype(bool), b.astype(jnp.float16), b.astype(jnp.uint8),
          b.astype(jnp.bfloat16), b.astype(jnp.complex64))


@program
def astype_float_to_float16_overflow():
  x = jnp.array([70000.0, -1e6, 1e-8, 65504.0])
  return (x.astype(jnp.float16), x.astype(jnp.bfloat16), jnp.float16(70000.0))


# --- reductions -------------------------------------------------------------------------------

@program
def reductions_negative_and_tuple_axes():
  x = jnp.arange(24.0).reshape(2, 3, 4)
  return (jnp.sum(x, axis=-1), jnp.sum(x, axis=(-1, 0)), jnp.max(x, axis=(0, 2), keepdims=True),
          jnp.mean(x, axis=None, keepdims=True), jnp.prod(x[:, :, :2] + 1, axis=(1,)),
          jnp.any(x > 20, axis=(0, 1)), jnp.argmax(x, axis=-2), jnp.std(x, axis=(0, 2), ddof=1))


@program
def reductions_duplicate_axis_error():
  return jnp.sum(jnp.ones((2, 3)), axis=(1, -1))


@program
def reductions_axis_out_of_range_error():
  return jnp.sum(jnp.ones((2, 3)), axis=2)


@program
def reductions_of_empty_arrays():
  e = jnp.zeros((0,))
  e2 = jnp.zeros((0, 3))
  return (jnp.sum(e), jnp.prod(e), jnp.sum(e2, axis=0), jnp.max(e2, axis=1), jnp.any(e),
          jnp.all(e), jnp.max(e, initial=-5.0), jnp.min(e2, axis=0, initial=2.0),
          jnp.sum(jnp.zeros((0,), jnp.int8)), jnp.cumsum(e2, axis=0))


@program
def max_of_empty_error():
  return jnp.max(jnp.zeros((0,)))


@program
def argmax_of_empty_error():
  return jnp.argmax(jnp.zeros((0,)))


@program
def mean_of_empty_is_nan():
  return (jnp.mean(jnp.zeros((0,))), jnp.var(jnp.zeros((0, 2)), axis=0),
          jnp.mean(jnp.zeros((0, 2)), axis=1))


@program
def reductions_dtype_argument():
  i8 = jnp.array([100, 100, 100], jnp.int8)
  b = jnp.array([True, True])
  f16 = jnp.array([1.5, 2.5], jnp.float16)
  return (jnp.sum(i8), jnp.sum(i8, dtype=jnp.int16), jnp.sum(i8, dtype=jnp.float32),
          jnp.prod(i8, dtype=jnp.int8), jnp.mean(i8, dtype=jnp.float16), jnp.sum(b, dtype=jnp.bool_),
          jnp.sum(f16), jnp.sum(f16, dtype=jnp.float32), jnp.prod(jnp.array([2, 3], jnp.uint8)),
          jnp.max(i8, axis=0), jnp.sum(jnp.array([1], jnp.uint32)), jnp.cumprod(b))


@program
def reductions_where_with_initial_and_keepdims():
  x = jnp.arange(6.0).reshape(2, 3)
  w = jnp.array([[True, False, True], [False, False, False]])
  return (jnp.sum(x, axis=1, where=w, keepdims=True), jnp.max(x, axis=1, where=w, initial=-1.0),
          jnp.min(x, axis=0, where=w, initial=10.0), jnp.mean(x, axis=1, where=w),
          jnp.prod(x, axis=0, where=w, keepdims=True), jnp.count_nonzero(x, axis=0, keepdims=True),
          jnp.all(x > 0, where=w), jnp.any(x > 4, where=w))


@program
def max_where_without_initial_error():
  x = jnp.arange(6.0).reshape(2, 3)
  return jnp.max(x, axis=1, where=x > 2)


@program
def reductions_of_ints_with_initial():
  x = jnp.array([3, 1, 2], jnp.int8)
  return (jnp.max(x, initial=5), jnp.min(x, initial=-1), jnp.sum(x, initial=10),
          jnp.prod(x, initial=2), jnp.max(jnp.array([], jnp.uint8), initial=7))


# --- nan functions ----------------------------------------------------------------------------

@program
def nan_functions_all_nan():
  x = jnp.array([[np.nan, np.nan], [1.0, np.nan]])
  return (jnp.nanmax(x, axis=1), jnp.nanmin(x, axis=1), jnp.nanmean(x, axis=1),
          jnp.nansum(x, axis=1), jnp.nanprod(x, axis=1), jnp.nanvar(x, axis=1),
          jnp.nanstd(x, axis=0), jnp.nanmax(x), jnp.nanmean(x, axis=0, keepdims=True))


@program
def nanargmax_all_nan_and_ties():
  x = jnp.array([[np.nan, 2.0, 2.0, np.nan], [1.0, 1.0, np.nan, 0.0]])
  return (jnp.nanargmax(x, axis=1), jnp.nanargmin(x, axis=1), jnp.nanargmax(x),
          jnp.nanargmax(jnp.array([np.nan, np.nan])))


@program
def nan_cumulative_and_median():
  x = jnp.array([1.0, np.nan, 3.0, np.nan, 5.0])
  return (jnp.nancumsum(x), jnp.nancumprod(x), jnp.nanmedian(x), jnp.nanpercentile(x, 25),
          jnp.nanquantile(x, jnp.array([0.0, 1.0])), jnp.nanmedian(jnp.array([np.nan, np.nan])))


@program
def nan_functions_on_ints():
  x = jnp.array([3, 1, 2])
  return (jnp.nanmax(x), jnp.nansum(x), jnp.nanmean(x), jnp.nanargmin(x), jnp.nancumsum(x))


@program
def argmax_argmin_nan_inf_ties():
  x = jnp.array([1.0, np.inf, np.nan, np.inf, np.nan])
  y = jnp.array([-np.inf, -np.inf, 0.0])
  z = jnp.array([[3, 3, 1], [0, 5, 5]])
  return (jnp.argmax(x), jnp.argmin(x), jnp.argmin(y), jnp.argmax(z, axis=1),
          jnp.argmin(z, axis=0), jnp.argmax(z, keepdims=True), jnp.argmax(z, axis=1, keepdims=True),
          jnp.argmax(jnp.array([False, True, True])))


# --- sorting and set operations ---------------------------------------------------------------

@program
def sort_nan_and_signed_zero_placement():
  x = jnp.array([3.0, np.nan, -np.inf, 0.0, -0.0, np.inf, -1.0, np.nan])
  s = jnp.sort(x)
  return (s, jnp.signbit(s), jnp.argsort(x), jnp.sort(x, descending=True),
          jnp.argsort(x, descending=True))


@program
def argsort_stability_descending():
  x = jnp.array([2, 1, 2, 1, 3, 2])
  return (jnp.argsort(x), jnp.argsort(x, stable=True), jnp.argsort(x, descending=True),
          jnp.argsort(x, descending=True, stable=True), jnp.argsort(-x),
          jnp.lexsort((jnp.array([1, 0, 1, 0, 0, 1]), x)))


@program
def sort_complex_and_bool():
  c = jnp.array([1 + 2j, 1 - 1j, -1 + 0j, 1 + 0j])
  b = jnp.array([True, False, True, False])
  return (jnp.sort(c), jnp.argsort(c), jnp.sort(b), jnp.sort_complex(jnp.array([3, 1, 2])))


@program
def partition_and_argpartition():
  x = jnp.array([5, 1, 4, 2, 3])
  p = jnp.partition(x, 2)
  ap = jnp.argpartition(x, 2)
  return (p[2], jnp.sort(p[:2]), jnp.sort(p[3:]), x[ap][2])


@program
def unique_with_nans_and_flags():
  x = jnp.array([2.0, np.nan, 1.0, np.nan, 2.0, -0.0, 0.0])
  return (jnp.unique(x), jnp.unique(x, equal_nan=False),
          jnp.unique(x, return_counts=True), jnp.unique(x, return_index=True))


@program
def unique_along_axis():
  x = jnp.array([[1, 2], [3, 4], [1, 2], [0, 9]])
  vals, idx, inv, counts = jnp.unique(x, axis=0, return_index=True, return_inverse=True,
                                      return_counts=True)
  return (vals, idx, inv, counts, jnp.unique(x, axis=1), jnp.unique(x, axis=-1).shape)


@program
def unique_inverse_shape():
  x = jnp.array([[3, 1], [1, 3]])
  _, inv = jnp.unique(x, return_inverse=True)
  return (inv, jnp.unique_inverse(x).inverse_indices, jnp.unique_values(x),
          jnp.unique_counts(x).counts, jnp.unique_all(x).indices)


@program
def set_operations():
  a = jnp.array([5, 1, 3, 3, 7])
  b = jnp.array([3, 4, 5, 5])
  return (jnp.intersect1d(a, b), jnp.intersect1d(a, b, return_indices=True), jnp.union1d(a, b),
          jnp.setdiff1d(a, b), jnp.setxor1d(a, b), jnp.isin(a, b), jnp.isin(a, b, invert=True),
          jnp.setdiff1d(a, b, size=4, fill_value=-1))


@program
def searchsorted_sides_and_nan():
  a = jnp.array([1.0, 2.0, 2.0, 2.0, 3.0, np.nan])
  v = jnp.array([2.0, 0.0, 4.0, np.nan, -np.inf, np.inf])
  return (jnp.searchsorted(a, v), jnp.searchsorted(a, v, side="right"),
          jnp.searchsorted(a, v, method="compare_all"), jnp.searchsorted(a, v, method="sort"),
          jnp.searchsorted(a, 2.0, side="right"), jnp.searchsorted(a, jnp.array([[2.0], [3.0]])))


@program
def searchsorted_bad_side_error():
  return jnp.searchsorted(jnp.array([1, 2]), 1, side="middle")


@program
def searchsorted_sorter_and_int_dtype():
  a = jnp.array([3, 1, 2], jnp.int8)
  return (jnp.searchsorted(a, jnp.array([2, 0, 5]), sorter=jnp.argsort(a)),
          jnp.searchsorted(jnp.array([1, 3], jnp.uint8), 2.5), jnp.digitize(jnp.array([0.5, 1.0, 2.5]),
                                                                           jnp.array([1.0, 2.0])),
          jnp.digitize(jnp.array([0.5, 1.0, 2.5]), jnp.array([1.0, 2.0]), right=True))


# --- cumulative -------------------------------------------------------------------------------

@program
def cumsum_cumprod_dtypes():
  return (jnp.cumsum(jnp.array([100, 100], jnp.int8)), jnp.cumsum(jnp.array([200, 100], jnp.uint8)),
          jnp.cumprod(jnp.array([1.5, 2.0], jnp.float16)), jnp.cumsum(jnp.array([1, 2], jnp.uint16)),
          jnp.cumsum(jnp.array([True, True]), dtype=jnp.int8), jnp.cumsum(jnp.ones((2, 2)), axis=-1),
          jnp.cumsum(jnp.ones(3, jnp.bfloat16)), jnp.cumulative_prod(jnp.array([1, 2, 3]),
                                                                       include_initial=True))


@program
def cumsum_axis_none_flattens():
  x = jnp.arange(6).reshape(2, 3)
  return (jnp.cumsum(x), jnp.cumprod(x + 1, axis=None), jnp.cumsum(jnp.asarray(5)),
          jnp.cumsum(jnp.asarray(5.0)))


@program
def cumulative_sum_requires_axis_error():
  return jnp.cumulative_sum(jnp.ones((2, 2)))


# --- creation -----------------------------------------------------------------------------------

@program
def linspace_dtype_and_endpoint():
  return (jnp.linspace(0, 10, 5, dtype=jnp.int32), jnp.linspace(0, 1, 1), jnp.linspace(0, 1, 0),
          jnp.linspace(2, 3, 4, endpoint=False, retstep=True), jnp.linspace(0, 1, 3, dtype=jnp.float16),
          jnp.linspace(jnp.array([0.0, 1.0]), 2.0, 3), jnp.linspace(0, 1, 3, axis=0),
          jnp.linspace(10, 0, 4, dtype=jnp.int8), jnp.linspace(0, 1, 2, retstep=True))


@program
def linspace_negative_num_error():
  return jnp.linspace(0, 1, -1)


@program
def arange_dtype_rules():
  return (jnp.arange(5, dtype=jnp.float16), jnp.arange(0, 1, 0.3), jnp.arange(-3),
          jnp.arange(10, 0, -3), jnp.arange(0.5, 3), jnp.arange(jnp.int8(4)),
          jnp.arange(1, 2, 0.1).shape, jnp.arange(5, dtype=jnp.uint8), jnp.arange(3, 10, 2.5),
          jnp.arange(jnp.uint8(3)))


@program
def arange_bool_error():
  return jnp.arange(True)


@program
def arange_zero_step_error():
  return jnp.arange(0, 5, 0)


@program
def logspace_geomspace():
  return (jnp.logspace(0, 3, 4, base=2.0), jnp.logspace(0, 2, 3, endpoint=False),
          jnp.logspace(0, 2, 3, dtype=jnp.int32), jnp.geomspace(1, 1000, 4),
          jnp.geomspace(-1, -100, 3), jnp.geomspace(1, 16, 5, dtype=jnp.int32))


@program
def full_and_zeros_with_scalar_fills():
  return (jnp.full((2,), 3), jnp.full((2,), 3.5), jnp.full((2,), True), jnp.full((2,), 1j),
          jnp.full((2,), 7, dtype=jnp.int8), jnp.full((2,), jnp.float16(2)),
          jnp.full((2, 2), jnp.array([1, 2])), jnp.zeros(2, dtype=bool), jnp.ones((), jnp.uint8),
          jnp.full_like(jnp.array([1, 2], jnp.int8), 3.7), jnp.empty((0, 2)),
          jnp.full(2, np.float32(1.5)))


@program
def identity_eye_tri_variants():
  return (jnp.eye(2, 3, k=-1, dtype=jnp.int8), jnp.eye(3, k=5), jnp.identity(2, dtype=bool),
          jnp.tri(3, 2, k=-1), jnp.tril(jnp.ones((3, 3)), k=-2), jnp.triu(jnp.ones((2, 3)), k=1),
          jnp.tril_indices(3, k=-1), jnp.triu_indices(2, m=3), jnp.diag(jnp.arange(9).reshape(3, 3), k=-1),
          jnp.diag(jnp.array([1, 2]), k=1), jnp.diagonal(jnp.ones((2, 3, 4)), axis1=0, axis2=2).shape)


# --- rounding, clip, sign -----------------------------------------------------------------------

@program
def round_halves_and_decimals():
  x = jnp.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.125, 1.005])
  return (jnp.round(x), jnp.around(x, 1), jnp.round(x, 2), jnp.round(jnp.array([1234.5]), -2),
          jnp.rint(x), jnp.trunc(-x), jnp.round(jnp.array([2.5], jnp.float16)),
          jnp.round(jnp.array([7], jnp.uint8)), jnp.round(jnp.array([7], jnp.int8), 2),
          jnp.round(jnp.array([2.5 + 3.5j])), jnp.round(jnp.array([65504.0], jnp.float16), 1))


@program
def clip_lo_greater_than_hi():
  x = jnp.arange(5)
  return (jnp.clip(x, 3, 1), jnp.clip(x, min=2), jnp.clip(x, max=1),
          jnp.clip(jnp.array([1.0, np.nan]), 0.0, 0.5), jnp.clip(x, jnp.array([0, 1, 2, 3, 4]), 2),
          jnp.clip(jnp.array([1, 200], jnp.uint8), 0, 100), jnp.clip(x, 1.5, 2.5))


@program
def sign_of_zero_nan_and_complex():
  x = jnp.array([-0.0, 0.0, np.nan, -np.inf, -3.0])
  return (jnp.sign(x), jnp.signbit(jnp.sign(x)), jnp.sign(jnp.array([-2, 0, 5], jnp.int8)),
          jnp.sign(jnp.array([3 + 4j, 0j, -2j])),
          jnp.copysign(1.0, x), jnp.signbit(x), jnp.abs(jnp.array([-0.0])).tolist())


@program
def sign_of_bool_error():
  return jnp.sign(jnp.array([True, False]))


@program
def sign_of_uint():
  return jnp.sign(jnp.array([0, 3], jnp.uint8))


# --- where / select --------------------------------------------------------------------------

@program
def where_broadcasting_and_promotion():
  c = jnp.array([[True], [False]])
  return (jnp.where(c, jnp.arange(3), -1), jnp.where(c, 1.5, jnp.array([1, 2], jnp.int8)),
          jnp.where(jnp.array([1, 0, 2]), 1, 0), jnp.where(True, jnp.uint8(1), 2),
          jnp.where(jnp.array([True, False]), jnp.array([1], jnp.uint8), jnp.array([2], jnp.int8)),
          jnp.where(jnp.array([0.0, 1.0]), 3j, 1))


@program
def where_single_argument_and_size():
  x = jnp.array([[0, 1], [2, 0]])
  return (jnp.where(x), jnp.where(x, size=3), jnp.where(x, size=1, fill_value=-9),
          jnp.argwhere(x), jnp.flatnonzero(x), jnp.nonzero(x, size=4, fill_value=(7, 8)))


@program
def where_two_arguments_error():
  return jnp.where(jnp.array([True]), 1)


@program
def select_broadcasting_and_dtype():
  x = jnp.arange(4)
  return (jnp.select([x < 1, x < 3], [x, 10], default=-1.5),
          jnp.select([x > 1], [jnp.ones((2, 4), jnp.int8)]),
          jnp.select([x < 2, x < 3], [jnp.float16(1), jnp.bfloat16(2)]),
          jnp.piecewise(x.astype(float), [x < 2, x >= 2], [lambda v: v * 2, 7.0]))


@program
def select_length_mismatch_error():
  x = jnp.arange(4)
  return jnp.select([x < 1, x < 2], [x])


# --- take / indexing --------------------------------------------------------------------------

@program
def take_modes_out_of_bounds():
  x = jnp.arange(5.0)
  i = jnp.array([-6, -1, 0, 4, 5, 12])
  return (jnp.take(x, i), jnp.take(x, i, mode="clip"), jnp.take(x, i, mode="wrap"),
          jnp.take(x, i, mode="fill", fill_value=-1.0), jnp.take(jnp.arange(5), i),
          jnp.take(jnp.arange(5, dtype=jnp.uint8), i), jnp.take(jnp.array([True, False]), i),
          jnp.take(x, 7, mode="clip"))


@program
def take_along_axis_out_of_bounds():
  x = jnp.arange(6.0).reshape(2, 3)
  i = jnp.array([[0, 3], [-1, -4]])
  return (jnp.take_along_axis(x, i, axis=1), jnp.take_along_axis(x, i, axis=1, mode="clip"),
          jnp.take_along_axis(x, i, axis=1, mode="fill", fill_value=99.0),
          jnp.take_along_axis(x, jnp.array([[1], [0]]), axis=-1),
          jnp.take_along_axis(x.ravel(), jnp.array([5, 0]), axis=None))


@program
def take_bad_mode_error():
  return jnp.take(jnp.arange(3), 1, mode="bogus")


@program
def indexing_negative_and_out_of_bounds():
  x = jnp.arange(10)
  m = jnp.arange(12).reshape(3, 4)
  return (x[-1], x[-11], x[20], x[jnp.array([-12, 15, 3])], m[-1, -5], m[5], m[:, [0, -1, 9]],
          x[8:20], x[-20:2], x[::-3], m[jnp.array([True, False, True])], x[jnp.int8(-2)],
          x[jnp.array(3, jnp.uint8)])


@program
def indexing_boolean_masks():
  m = jnp.arange(6).reshape(2, 3)
  return (m[m > 2], m[jnp.array([[True, False, True], [False, False, True]])],
          m[:, jnp.array([False, True, True])], m[True], m[False].shape, m[..., None].shape,
          m[None, 1, ::2], m[jnp.array(True)].shape)


@program
def indexing_boolean_mask_wrong_shape_error():
  m = jnp.arange(6).reshape(2, 3)
  return m[jnp.array([True, False, True])]


@program
def indexing_float_index_error():
  return jnp.arange(3)[1.0]


@program
def indexing_too_many_indices_error():
  return jnp.arange(3)[0, 0]


@program
def at_repeated_indices_all_ops():
  x = jnp.array([1.0, 2.0, 3.0, 4.0])
  i = jnp.array([0, 0, 2, 2, 2])
  v = jnp.array([5.0, -1.0, 3.0, 0.5, 7.0])
  return (x.at[i].add(v), x.at[i].mul(v), x.at[i].min(v), x.at[i].max(v),
          x.at[i].get(), x.at[jnp.array([0, 0])].set(jnp.array([9.0, 9.0])),
          x.at[::2].add(1), x.at[x > 2].set(0.0), x.at[1:].divide(2.0), x.at[0].power(3.0))


@program
def at_out_of_bounds_various_modes():
  x = jnp.arange(4.0)
  i = jnp.array([-5, -1, 4, 10])
  return (x.at[i].set(9.0), x.at[i].add(1.0), x.at[i].set(9.0, mode="clip"),
          x.at[i].mul(2.0, mode="drop"),
          x.at[i].get(mode="fill", fill_value=-1.0), x.at[i].get(mode="clip"),
          x.at[10].set(5.0), x.at[-1].set(5.0), x.at[i].min(-3.0))


@program
def at_int_update_dtype_casting():
  x = jnp.array([1, 2, 3], jnp.int8)
  u = jnp.array([250, 2], jnp.uint8)
  return (x.at[0].set(2.7), x.at[1].add(300 - 256), x.at[0].mul(1.9), u.at[0].add(10),
          jnp.zeros(2, bool).at[0].set(5), x.at[:].set(jnp.array([1.5, -1.5, 2.5])))


@program
def at_wrong_shape_update_error():
  return jnp.zeros(3).at[jnp.array([0, 1])].set(jnp.ones(3))


@program
def at_bad_mode_error():
  return jnp.zeros(3).at[0].set(1.0, mode="bogus")


# --- joining ----------------------------------------------------------------------------------

@program
def concatenate_stack_promotion():
  i8 = jnp.array([1], jnp.int8)
  u8 = jnp.array([2], jnp.uint8)
  f16 = jnp.array([3.0], jnp.float16)
  bf = jnp.array([4.0], jnp.bfloat16)
  return (jnp.concatenate([i8, u8]), jnp.concatenate([f16, bf]), jnp.stack([i8, f16]),
          jnp.concatenate([jnp.array([True]), i8]), jnp.hstack([u8, jnp.array([1.5])]),
          jnp.concatenate([i8, u8], dtype=jnp.float32), jnp.concatenate([jnp.ones((2, 2)), jnp.zeros((1, 2))], axis=None),
          jnp.vstack([1, 2.5]), jnp.column_stack([jnp.array([1, 2]), jnp.array([3, 4])]),
          jnp.concatenate([jnp.zeros((0,), jnp.int8), jnp.array([1.0])]))


@program
def concatenate_weak_inputs():
  return (jnp.concatenate([jnp.asarray(1.0)[None], jnp.asarray(2.0)[None]]),
          jnp.stack([jnp.asarray(1), jnp.asarray(2)]), jnp.stack([jnp.asarray(1), jnp.int8(2)]),
          jnp.hstack([1, 2]), jnp.append(jnp.array([1], jnp.int8), 2))


@program
def concatenate_zero_d_error():
  return jnp.concatenate([jnp.asarray(1.0), jnp.asarray(2.0)])


@program
def stack_shape_mismatch_error():
  return jnp.stack([jnp.ones(2), jnp.ones(3)])


# --- pad --------------------------------------------------------------------------------------

@program
def pad_more_modes():
  x = jnp.array([1, 2, 3])
  m = jnp.arange(4).reshape(2, 2)
  return (jnp.pad(x, (2, 3), mode="symmetric"), jnp.pad(x, (4, 4), mode="reflect"),
          jnp.pad(x, (2, 1), mode="wrap"), jnp.pad(x, 2, mode="linear_ramp", end_values=(10, -10)),
          jnp.pad(x, 2, mode="maximum"), jnp.pad(x, (1, 2), mode="mean"),
          jnp.pad(x, 1, mode="reflect", reflect_type="odd"), jnp.pad(m, ((1, 0), (0, 2)), constant_values=7),
          jnp.pad(x, 2, mode="median", stat_length=2), jnp.pad(x, 1, constant_values=2.7),
          jnp.pad(m, 1, mode="edge"), jnp.pad(jnp.ones(2, jnp.uint8), 1, mode="empty").shape)


@program
def pad_negative_width_error():
  return jnp.pad(jnp.arange(3), -1)


@program
def pad_bad_mode_error():
  return jnp.pad(jnp.arange(3), 1, mode="bogus")


# --- products ---------------------------------------------------------------------------------

@program
def einsum_edge_variants():
  a = jnp.arange(6.0).reshape(2, 3)
  b = jnp.arange(3.0)
  c = jnp.arange(8).reshape(2, 2, 2)
  return (jnp.einsum("ii->i", jnp.arange(4.0).reshape(2, 2)), jnp.einsum("ij->", a),
          jnp.einsum("...j,j->...", a, b), jnp.einsum("i,i", b, b), jnp.einsum("ijk->kji", c),
          jnp.einsum("i,j->ij", b, b[:2]), jnp.einsum(a, [0, 1], b, [1], [0]),
          jnp.einsum("ij,ij->i", a, a), jnp.einsum("iij->j", c), jnp.einsum("ij,j", a.astype(jnp.int8), b),
          jnp.einsum("i,i->", jnp.array([1, 2], jnp.uint8), jnp.array([3, 4], jnp.int8)))


@program
def einsum_bad_subscripts_error():
  return jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((2, 3)))


@program
def matmul_shapes_1d_batched():
  a = jnp.arange(3.0)
  m = jnp.arange(6.0).reshape(2, 3)
  batch = jnp.arange(24.0).reshape(2, 1, 3, 4)
  return (jnp.matmul(a, a), jnp.matmul(m, a), jnp.matmul(a, m.T), (batch @ jnp.ones((3, 4, 2))).shape,
          jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones(4)).shape, jnp.matmul(jnp.ones(3), jnp.ones((5, 3, 2))).shape,
          jnp.matmul(jnp.array([1, 2], jnp.int8), jnp.array([[1], [2]], jnp.uint8)),
          jnp.matmul(jnp.array([True, True]), jnp.array([True, False])), jnp.vdot(a, a),
          jnp.dot(2.0, a), jnp.dot(jnp.ones((2, 3, 4)), jnp.ones((4, 5))).shape)


@program
def matmul_scalar_error():
  return jnp.matmul(jnp.asarray(2.0), jnp.ones(3))


@program
def matmul_shape_mismatch_error():
  return jnp.matmul(jnp.ones((2, 3)), jnp.ones((2, 3)))


@program
def outer_inner_kron_cross():
  a = jnp.array([1, 2, 3])
  m = jnp.arange(4).reshape(2, 2)
  return (jnp.outer(a, jnp.array([1.0, -1.0])), jnp.outer(m, a).shape, jnp.inner(a, a),
          jnp.inner(m, m), jnp.inner(2, a), jnp.kron(m, jnp.array([1, 10])), jnp.kron(a, 2),
          jnp.cross(jnp.array([1.0, 0, 0]), jnp.array([0.0, 1, 0])),
          jnp.cross(jnp.array([1, 2]), jnp.array([3, 4])), jnp.tensordot(m, m, axes=0).shape,
          jnp.tensordot(m, m, axes=([0, 1], [1, 0])))


# --- histogram / bincount / diff / interp / poly -------------------------------------------

@program
def bincount_length_weights_minlength():
  x = jnp.array([0, 1, 1, 3, 5])
  w = jnp.array([0.5, 1.0, 1.0, 2.0, 9.0])
  return (jnp.bincount(x, length=4), jnp.bincount(x, weights=w, length=7),
          jnp.bincount(x, minlength=8), jnp.bincount(jnp.array([-1, 0, 2]), length=3),
          jnp.bincount(x, weights=jnp.array([1, 2, 3, 4, 5], jnp.int8)),
          jnp.bincount(jnp.array([], jnp.int32), length=2))


@program
def bincount_float_input_error():
  return jnp.bincount(jnp.array([0.5, 1.0]))


@program
def histogram_variants():
  x = jnp.array([0.0, 0.5, 1.0, 1.0, 2.5, 3.0, 10.0])
  return (jnp.histogram(x, bins=3), jnp.histogram(x, bins=jnp.array([0.0, 1.0, 3.0])),
          jnp.histogram(x, bins=2, range=(0.0, 2.0)), jnp.histogram(x, bins=2, density=True),
          jnp.histogram(x, bins=3, weights=jnp.arange(7.0)), jnp.histogram_bin_edges(x, bins=4),
          jnp.histogram2d(x, x, bins=2)[0], jnp.histogram(jnp.array([1, 2, 3]), bins=2))


@program
def diff_and_ediff1d():
  x = jnp.array([1, 4, 9, 16], jnp.uint8)
  b = jnp.array([True, False, False, True])
  f = jnp.arange(6.0).reshape(2, 3) ** 2
  return (jnp.diff(x), jnp.diff(x[::-1]), jnp.diff(b), jnp.diff(f, n=2, axis=1), jnp.diff(f, n=0),
          jnp.diff(f, axis=0, prepend=-1.0), jnp.diff(jnp.arange(3), append=jnp.array([10, 20])),
          jnp.ediff1d(f), jnp.ediff1d(x, to_begin=jnp.array([-1]), to_end=100),
          jnp.diff(jnp.arange(4), n=5))


@program
def diff_negative_order_error():
  return jnp.diff(jnp.arange(3), n=-1)


@program
def interp_edges_and_periodic():
  xp = jnp.array([0.0, 1.0, 2.0])
  fp = jnp.array([10.0, 20.0, 0.0])
  x = jnp.array([-1.0, 0.0, 0.5, 2.0, 3.0, np.nan])
  return (jnp.interp(x, xp, fp), jnp.interp(x, xp, fp, left=-1.0, right=99.0),
          jnp.interp(jnp.array([2.5, -0.5]), xp, fp, period=2.0),
          jnp.interp(jnp.array([1, 2]), jnp.array([0, 4]), jnp.array([0, 8])),
          jnp.interp(1.0, jnp.array([1.0, 1.0]), jnp.array([5.0, 7.0])))


@program
def interp_complex_fp():
  return jnp.interp(jnp.array([0.5, -1.0]), jnp.array([0.0, 1.0, 2.0]), jnp.array([1j, 2j, 3j]))


@program
def polyval_polyfit_roots():
  p = jnp.array([1, -3, 2])
  return (jnp.polyval(p, jnp.array([0, 1, 2, 3])), jnp.polyval(p, 1.5), jnp.polyval(jnp.array([]), 2.0),
          jnp.polyadd(p, jnp.array([1.0])), jnp.polymul(p, jnp.array([1, 1])), jnp.polyder(p),
          jnp.polyint(p), jnp.polysub(jnp.array([1]), p), jnp.poly(jnp.array([1.0, 2.0])),
          jnp.sort_complex(jnp.roots(jnp.array([1.0, -3.0, 2.0]))))


@program
def percentile_quantile_methods():
  x = jnp.array([1.0, 3.0, 2.0, 10.0, 7.0])
  q = jnp.array([0.0, 0.3, 0.5, 0.99, 1.0])
  return tuple(jnp.quantile(x, q, method=m) for m in
               ("linear", "lower", "higher", "nearest", "midpoint")) + (
      jnp.percentile(jnp.arange(10).reshape(2, 5), 40, axis=1, keepdims=True),
      jnp.quantile(jnp.array([1, 2, 3, 4]), 0.5), jnp.median(jnp.array([1, 2, 3, 4], jnp.int8)),
      jnp.quantile(jnp.array([1.0, np.nan, 2.0]), 0.5), jnp.median(jnp.zeros((2, 0)), axis=0),
      jnp.quantile(x.astype(jnp.float16), 0.5))


@program
def quantile_out_of_range_q():
  return jnp.quantile(jnp.array([1.0, 2.0]), 1.5)


@program
def quantile_bad_method_error():
  return jnp.quantile(jnp.array([1.0, 2.0]), 0.5, method="bogus")


# --- comparisons ------------------------------------------------------------------------------

@program
def isclose_allclose_nans_and_infs():
  a = jnp.array([np.nan, np.inf, -np.inf, 1.0, 1e-9, 0.0])
  b = jnp.array([np.nan, np.inf, np.inf, 1.0 + 1e-6, 0.0, -0.0])
  return (jnp.isclose(a, b), jnp.isclose(a, b, equal_nan=True), jnp.allclose(a, b),
          jnp.allclose(a[1:2], b[1:2]), jnp.isclose(1, jnp.array([1, 2])),
          jnp.isclose(jnp.array([1], jnp.int8), jnp.array([1], jnp.uint8)),
          jnp.isclose(jnp.array([1 + 1j]), jnp.array([1 + 1.000001j])),
          jnp.isclose(a, b, atol=1e-8, rtol=0.0), jnp.allclose(jnp.array([np.nan]), np.nan, equal_nan=True))


@program
def array_equal_and_equiv():
  a = jnp.array([1.0, np.nan])
  return (jnp.array_equal(a, a), jnp.array_equal(a, a, equal_nan=True),
          jnp.array_equal(jnp.ones(2), jnp.ones(3)), jnp.array_equal(jnp.ones(2), jnp.ones(2, jnp.int8)),
          jnp.array_equiv(jnp.ones((2, 2)), jnp.ones(2)), 
          jnp.array_equal(jnp.array([0.0]), jnp.array([-0.0])), jnp.array_equal([1, 2], (1, 2)))


@program
def comparisons_mixed_signedness():
  u = jnp.array([200, 0], jnp.uint8)
  i = jnp.array([-1, 0], jnp.int8)
  return (u > i, u == i, u > 100, i < 0.5, jnp.maximum(u, i), jnp.minimum(u, i),
          jnp.array([np.nan]) == jnp.array([np.nan]), jnp.array([np.nan]) != jnp.array([np.nan]),
          jnp.maximum(jnp.array([np.nan, 1.0]), jnp.array([0.0, np.nan])),
          jnp.fmax(jnp.array([np.nan, 1.0]), jnp.array([0.0, np.nan])),
          jnp.fmin(jnp.array([np.nan, np.nan]), jnp.array([np.nan, 2.0])))


# --- complex ----------------------------------------------------------------------------------

@program
def complex_functions():
  z = jnp.array([3 + 4j, -1 + 0j, -1 - 0j, 0j, 1j, complex(np.inf, 1)], jnp.complex64)
  return (jnp.abs(z), jnp.angle(z), jnp.angle(z, deg=True), jnp.real(z), jnp.imag(z), jnp.conj(z),
          jnp.angle(jnp.array([-1.0, 0.0, -0.0])), jnp.angle(jnp.array([1, -2])),
          jnp.iscomplex(jnp.array([1 + 0j, 1j])), jnp.isreal(jnp.array([1 + 0j, 1j])),
          jnp.imag(jnp.array([1.0])))


@program
def complex_math_branch_cuts():
  z = jnp.array([-1 + 0j, -1 - 0j, -4 + 0j, 2j], jnp.complex64)
  return (jnp.sqrt(z), jnp.log(z), jnp.sqrt(jnp.array([-1.0])), jnp.log(jnp.array([-1.0, 0.0])),
          jnp.exp(jnp.array([1j * np.pi])), jnp.power(z, 0.5), jnp.reciprocal(jnp.array([0j])))


@program
def complex_comparisons_and_sort_key():
  a = jnp.array([1 + 2j, 1 + 1j, 0 + 5j])
  return (a == a[0], jnp.sum(a), jnp.prod(a), jnp.mean(a), jnp.cumsum(a),
          jnp.sort(a, descending=True))


@program
def complex_argmax_error():
  return jnp.argmax(jnp.array([1 + 2j, 1 + 1j, 0 + 5j]))


@program
def complex_maximum_lexicographic():
  a = jnp.array([1 + 2j, 1 + 1j])
  return jnp.maximum(a, a[::-1])


@program
def complex_max_reduction():
  return jnp.max(jnp.array([1 + 2j, 1 + 1j, 0 + 5j]))


@program
def complex_to_int_astype():
  return jnp.array([1.7 + 2j, -2.5 - 1j]).astype(jnp.int32)


# --- bitwise -----------------------------------------------------------------------------------

@program
def bitwise_signed_and_shifts_beyond_width():
  i8 = jnp.array([-1, -128, 64, 1], jnp.int8)
  u8 = jnp.array([255, 128, 1, 3], jnp.uint8)
  s = jnp.array([1, 7, 8, 100], jnp.int8)
  su = jnp.array([1, 7, 8, 100], jnp.uint8)
  return (i8 << s, i8 >> s, u8 << su, u8 >> su, jnp.left_shift(i8, jnp.int8(-1)),
          jnp.right_shift(i8, jnp.int8(-1)), ~i8, ~u8, i8 & -1, u8 ^ 0xFF, i8 | jnp.int8(1),
          jnp.invert(jnp.array([True, False])), jnp.bitwise_count(i8),
          jnp.right_shift(jnp.array([-8], jnp.int32), 40), jnp.left_shift(jnp.array([1]), 31))


@program
def bitwise_on_bool_and_float_error():
  return jnp.bitwise_and(jnp.array([1.0]), jnp.array([1.0]))


@program
def bitwise_bool_results():
  a = jnp.array([True, False, True])
  b = jnp.array([True, True, False])
  return (a & b, a | b, a ^ b, ~a, a & 1, jnp.logical_xor(a, 2), jnp.packbits(a),
          jnp.unpackbits(jnp.array([5, 255], jnp.uint8)), jnp.unpackbits(jnp.array([5], jnp.uint8),
                                                                       bitorder="little"),
          jnp.packbits(jnp.array([[1, 0, 1], [0, 0, 1]]), axis=1))


@program
def gcd_lcm_and_integer_misc():
  a = jnp.array([12, -18, 0, 7], jnp.int32)
  b = jnp.array([8, 12, 5, 0], jnp.int32)
  return (jnp.gcd(a, b), jnp.lcm(a, b), jnp.gcd(jnp.array([6], jnp.int8), jnp.array([4], jnp.uint8)),
          jnp.heaviside(jnp.array([-1.0, 0.0, 2.0]), 0.5), jnp.frexp(jnp.array([8.0, 0.0, -3.0])),
          jnp.ldexp(jnp.array([1.0, 1.5]), jnp.array([3, -1])), jnp.modf(jnp.array([-2.5, 3.25])),
          jnp.nextafter(jnp.array([1.0], jnp.float32), 2.0) - 1)


# --- misc numeric ----------------------------------------------------------------------------

@program
def float16_bfloat16_arithmetic_overflow():
  f16 = jnp.array([60000.0, 1e-4], jnp.float16)
  bf = jnp.array([3e38, 1e-40], jnp.bfloat16)
  return (f16 * 2, f16 + f16, jnp.exp(jnp.array([12.0], jnp.float16)), bf * 10, bf / 1e10,
          jnp.sum(jnp.full(4, 30000.0, jnp.float16)), jnp.mean(jnp.full(4, 30000.0, jnp.float16)),
          jnp.sqrt(jnp.array([-1.0], jnp.bfloat16)))


@program
def nan_to_num_and_isfinite():
  x = jnp.array([np.nan, np.inf, -np.inf, 1.0])
  return (jnp.nan_to_num(x), jnp.nan_to_num(x, nan=-1.0, posinf=5.0, neginf=-5.0),
          jnp.nan_to_num(x.astype(jnp.float16)), jnp.nan_to_num(jnp.array([1, 2])),
          jnp.isfinite(jnp.array([1, 2])), jnp.isnan(jnp.array([True])), jnp.isinf(x),
          jnp.isposinf(x), jnp.isneginf(x), jnp.nan_to_num(jnp.array([complex(np.nan, np.inf)])))


@program
def trig_and_exp_special_values():
  x = jnp.array([0.0, -0.0, np.inf, -np.inf, np.nan])
  return (jnp.arctan2(x, -0.0), jnp.arctan2(-0.0, x), jnp.exp(x), jnp.log1p(jnp.array([-1.0, -2.0])),
          jnp.expm1(x), jnp.tanh(x), jnp.sinc(jnp.array([0.0, 0.5, 1.0])), jnp.deg2rad(180),
          jnp.hypot(jnp.array([np.inf]), jnp.array([np.nan])), jnp.logaddexp(-np.inf, -np.inf),
          jnp.cbrt(jnp.array([-8.0])), jnp.power(-8.0, 1 / 3), jnp.reciprocal(jnp.array([0, 2])))


@program
def ptp_average_and_weights():
  x = jnp.arange(6.0).reshape(2, 3)
  return (jnp.ptp(x), jnp.ptp(x, axis=1, keepdims=True), jnp.ptp(jnp.array([200, 10], jnp.uint8)),
          jnp.average(x, axis=1, weights=jnp.array([1.0, 0.0, 1.0])),
          jnp.average(x, weights=jnp.ones((2, 3)), returned=True),
          jnp.average(jnp.array([1, 2, 3])), jnp.average(x, axis=0, weights=jnp.array([1, 3])))


@program
def average_zero_weights():
  return jnp.average(jnp.arange(3.0), weights=jnp.zeros(3))


@program
def var_std_ddof_and_complex():
  x = jnp.array([1.0, 2.0, 4.0])
  c = jnp.array([1 + 1j, 1 - 1j])
  return (jnp.var(x, ddof=3), jnp.var(x, ddof=5), jnp.std(x, ddof=2), jnp.var(c), jnp.std(c),
          jnp.var(jnp.array([1, 2], jnp.int8)), jnp.var(jnp.array([1.0, 2.0], jnp.float16)),
          jnp.var(x, correction=1), jnp.cov(x), jnp.corrcoef(x, x[::-1]))


@program
def count_nonzero_and_trace_dtypes():
  return (jnp.count_nonzero(jnp.array([0.0, -0.0, np.nan])), jnp.trace(jnp.ones((2, 2), jnp.int8)),
          jnp.trace(jnp.ones((2, 3, 3)), axis1=1, axis2=2), jnp.trace(jnp.eye(3), offset=5),
          jnp.trace(jnp.ones((2, 2), jnp.bool_)), jnp.count_nonzero(jnp.eye(3), axis=(0, 1)))


@program
def moveaxis_repeat_tile_roll():
  x = jnp.arange(6).reshape(2, 3)
  return (jnp.repeat(x, jnp.array([1, 0, 2]), axis=1), jnp.repeat(x, 2), jnp.repeat(3, 3),
          jnp.repeat(x, jnp.array([2, 1]), axis=0, total_repeat_length=4), jnp.tile(x, (2, 1, 1)).shape,
          jnp.tile(jnp.array([1, 2]), 0).shape, jnp.roll(x, -4), jnp.roll(x, (1, -1), axis=(0, 1)),
          jnp.rot90(x, k=-1), jnp.flip(x), jnp.moveaxis(jnp.ones((2, 3, 4)), [0, 1], [-1, 0]).shape,
          jnp.resize(jnp.array([1, 2, 3]), (2, 4)))


@program
def reshape_bad_size_error():
  return jnp.arange(6).reshape(4, -1)


@program
def split_uneven_error():
  return jnp.split(jnp.arange(5), 2)


@program
def array_split_and_sections():
  x = jnp.arange(7)
  return (jnp.array_split(x, 3), jnp.split(x, [2, 5, 6]), jnp.array_split(x, 9)[-1].shape,
          jnp.hsplit(jnp.arange(4).reshape(2, 2), 2), jnp.split(x, jnp.array([3])))


@program
def asarray_from_mixed_python_lists():
  return (jnp.asarray([1, 2.5]), jnp.asarray([True, 2]), jnp.asarray([1, 1j]),
          jnp.array([jnp.int8(1), 2]), jnp.array([jnp.uint8(1), jnp.int8(2)]), jnp.asarray(3.0),
          jnp.array([[1], [2.0]], dtype=jnp.int16), jnp.asarray(np.array([1, 2], np.uint16)),
          jnp.array([]), jnp.array([[], []]).shape, jnp.array(np.float64(2.5)), jnp.array(True))


@program
def asarray_ragged_error():
  return jnp.array([[1, 2], [3]])


@program
def jax_random_integer_edge_cases():
  k = jax.random.key(0)
  r = jax.random.randint(k, (4,), -3, 3, dtype=jnp.int8)
  u = jax.random.randint(k, (4,), 250, 256, dtype=jnp.uint8)
  return (r.dtype, bool(jnp.all((r >= -3) & (r < 3))), u.dtype, bool(jnp.all(u >= 250)),
          jax.random.choice(k, 5, (3,), replace=False).shape,
          jax.random.permutation(k, jnp.arange(4)).sort())


@program
def array_equiv_incompatible_shapes():
  return jnp.array_equiv(jnp.ones(2), jnp.ones(3))


@program
def split_indices_beyond_length():
  return jnp.split(jnp.arange(7), [2, 5, 10])


@program
def operator_index_of_size_one_array_error():
  import operator
  return operator.index(jnp.array([3]))


@program
def power_weak_int_base_size_one_exponent():
  return (jnp.power(2, jnp.array([3])), 2 ** jnp.array([3], jnp.uint8), jnp.power(2.0, jnp.array([2])),
          jnp.power(jnp.array([2]), jnp.array([3], jnp.int8)))


@program
def arange_dtype_bool_error():
  return jnp.arange(3, dtype=bool)


@program
def take_along_axis_clip_negative():
  x = jnp.arange(4.0)
  return (jnp.take_along_axis(x, jnp.array([-1, -5, 7]), axis=0, mode="clip"),
          jnp.take(x, jnp.array([-1, -5, 7]), mode="clip"))


# --- second batch: less common functions ------------------------------------------------------

@program
def convolve_correlate_modes():
  a = jnp.array([1, 2, 3])
  v = jnp.array([0.0, 1.0, 0.5])
  return (jnp.convolve(a, v), jnp.convolve(a, v, mode="same"), jnp.convolve(a, v, mode="valid"),
          jnp.correlate(a, v), jnp.correlate(a, v, mode="full"), jnp.convolve(a, jnp.array([1, 1])),
          jnp.correlate(jnp.array([1j, 2]), jnp.array([1, 1j]), mode="full"),
          jnp.convolve(jnp.array([1, 2], jnp.int8), jnp.array([3], jnp.uint8)))


@program
def convolve_empty_error():
  return jnp.convolve(jnp.array([]), jnp.array([1.0]))


@program
def gradient_and_trapezoid():
  y = jnp.array([1.0, 4.0, 9.0, 16.0])
  return (jnp.gradient(y), jnp.gradient(y, 2.0), jnp.gradient(y, jnp.array([0.0, 1.0, 3.0, 4.0])),
          jnp.gradient(jnp.arange(6.0).reshape(2, 3) ** 2), jnp.gradient(y, axis=0),
          jnp.trapezoid(y), jnp.trapezoid(y, dx=0.5), jnp.trapezoid(y, x=jnp.array([0.0, 1.0, 3.0, 4.0])),
          jnp.gradient(jnp.array([1, 3, 6])))


@program
def unravel_and_ravel_multi_index():
  return (jnp.unravel_index(jnp.array([0, 5, 11, -1, 12]), (3, 4)), jnp.unravel_index(7, (2, 2, 2)),
          jnp.ravel_multi_index((jnp.array([0, 2, 3]), jnp.array([1, 5, -1])), (3, 4), mode="clip"),
          jnp.ravel_multi_index((jnp.array([0, 2, 3]), jnp.array([1, 5, -1])), (3, 4), mode="wrap"),
          jnp.ravel_multi_index((jnp.array([1]), jnp.array([2])), (3, 4), order="F"))


@program
def ravel_multi_index_raise_mode():
  return jnp.ravel_multi_index((jnp.array([0, 3]), jnp.array([1, 1])), (3, 4))


@program
def choose_modes():
  c = [jnp.array([0, 1, 2, 3]), jnp.array([10, 11, 12, 13]), jnp.array([20, 21, 22, 23])]
  i = jnp.array([0, 4, -1, 2])
  return (jnp.choose(i, c, mode="clip"), jnp.choose(i, c, mode="wrap"),
          jnp.choose(jnp.array([1, 0]), [jnp.array([1.5]), jnp.array([2, 3], jnp.int8)]))


@program
def choose_raise_mode_error():
  return jnp.choose(jnp.array([0, 5]), [jnp.array([1, 2]), jnp.array([3, 4])])


@program
def insert_delete_compress_extract():
  x = jnp.arange(6)
  return (jnp.insert(x, 2, -1), jnp.insert(x, jnp.array([0, 6]), jnp.array([9, 8])),
          jnp.insert(x.reshape(2, 3), 1, 7.5, axis=1), jnp.delete(x, -1), jnp.delete(x, slice(None, None, 2)),
          jnp.delete(x.reshape(2, 3), 0, axis=0), jnp.compress(jnp.array([True, False, True]), x),
          jnp.compress(jnp.array([1, 0]), x.reshape(2, 3), axis=0), jnp.extract(x % 2 == 0, x),
          jnp.insert(x, -1, 100))


@program
def delete_out_of_range_error():
  return jnp.delete(jnp.arange(3), 5)


@program
def meshgrid_indices_ix():
  a, b = jnp.array([1, 2]), jnp.array([3.0, 4.0, 5.0])
  return (jnp.meshgrid(a, b), jnp.meshgrid(a, b, indexing="ij"), jnp.meshgrid(a, b, sparse=True),
          jnp.indices((2, 3)), jnp.indices((2, 2), sparse=True), jnp.ix_(a, jnp.array([0, 1, 2])),
          jnp.mgrid[0:3, 0:2], jnp.ogrid[0:1:3j], jnp.r_[1:4, 0, jnp.array([7, 8])], jnp.c_[a, a])


@program
def broadcasting_functions():
  return (jnp.broadcast_to(jnp.array([1, 2]), (3, 2)), jnp.broadcast_arrays(jnp.ones((2, 1)), jnp.ones(3)),
          jnp.broadcast_shapes((2, 1), (1, 3), ()), jnp.atleast_1d(1.0), jnp.atleast_2d(jnp.array([1, 2])),
          jnp.atleast_3d(jnp.ones((2, 3))).shape, jnp.expand_dims(jnp.ones(3), (0, -1)).shape,
          jnp.squeeze(jnp.ones((1, 3, 1)), axis=-1).shape, jnp.squeeze(jnp.ones((1, 1))).shape)


@program
def broadcast_to_smaller_error():
  return jnp.broadcast_to(jnp.ones((2, 3)), (3,))


@program
def squeeze_non_unit_axis_error():
  return jnp.squeeze(jnp.ones((2, 3)), axis=0)


@program
def expand_dims_repeated_axis_error():
  return jnp.expand_dims(jnp.ones(3), (0, 0))


@program
def vecdot_matvec_and_transpose():
  a = jnp.array([[1 + 1j, 2], [3, 4j]])
  b = jnp.array([[1.0, 2.0], [3.0, 4.0]])
  return (jnp.vecdot(a, a), jnp.vecdot(b, b, axis=0), jnp.matrix_transpose(jnp.ones((2, 3, 4))).shape,
          jnp.linalg.vecdot(b, b), jnp.vdot(a, a), jnp.tensordot(b, b, axes=1),
          jnp.linalg.matrix_transpose(b), jnp.permute_dims(jnp.ones((2, 3, 4)), (2, 0, 1)).shape)


@program
def array_methods_misc():
  x = jnp.array([[1.5, -2.5], [3.5, 0.0]])
  return (x.round(), x.clip(0, 2), x.nonzero(),
          x.argmax(axis=0), x.cumsum(axis=1), x.item(3), x.tolist(), x.T.flatten(),
          x.ravel(order="F"), x.reshape(-1, order="F"), x.squeeze().shape, x.conj(), x.real, x.imag,
          x.astype(int).dtype, x.view(jnp.int32).dtype, x.mean(axis=1, keepdims=True), x.any(), x.all())


@program
def item_of_multi_element_error():
  return jnp.ones(3).item()


@program
def view_bitcast_dtypes():
  x = jnp.array([1.0, -2.0], jnp.float32)
  return (x.view(jnp.int32), x.view(jnp.uint32), jnp.array([1, 2], jnp.int16).view(jnp.float16),
          jnp.array([1, -1], jnp.int8).view(jnp.uint8), x.view(jnp.uint16), jnp.array([1.0], jnp.float16).view(jnp.int8))


@program
def astype_copy_and_cast_functions():
  x = jnp.array([1.7, -1.2])
  return (jnp.astype(x, jnp.int8), jnp.astype(x, jnp.float16, copy=True), x.astype("int16"),
          x.astype(np.dtype("uint8")), x.astype(float), x.astype(complex), x.astype(jnp.bool_),
          jnp.can_cast(jnp.int8, jnp.uint8), jnp.can_cast(jnp.float32, jnp.int32, casting="same_kind"),
          jnp.isdtype(jnp.float16, "real floating"), jnp.isdtype(jnp.int8, ("integral", jnp.float32)),
          jnp.issubdtype(jnp.bfloat16, jnp.floating), jnp.issubdtype(jnp.uint8, jnp.signedinteger))


@program
def iinfo_of_float_error():
  return jnp.iinfo(jnp.float32)


@program
def finfo_of_int_error():
  return jnp.finfo(jnp.int32)


@program
def finfo_bfloat16_and_float16():
  out = []
  for dt in (jnp.bfloat16, jnp.float16):
    f = jnp.finfo(dt)
    out.append((float(f.eps), float(f.max), float(f.tiny), float(f.smallest_subnormal), int(f.bits),
                float(f.resolution), int(f.nmant), int(f.nexp), int(f.machep), int(f.maxexp)))
  return tuple(out)


@program
def fromfunction_vectorize_apply():
  f = jnp.vectorize(lambda a, b: a + 2 * b)
  g = jnp.vectorize(lambda v: jnp.sum(v), signature="(n)->()")
  return (jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)), jnp.fromfunction(lambda i: i, (3,), dtype=int),
          f(jnp.array([1, 2]), jnp.array([[1], [3]])), g(jnp.ones((2, 4))),
          jnp.apply_along_axis(jnp.cumsum, 1, jnp.ones((2, 3))),
          jnp.apply_over_axes(jnp.sum, jnp.ones((2, 3, 4)), [0, 2]).shape)


@program
def fill_diagonal_and_diag_indices():
  m = jnp.zeros((3, 4))
  return (jnp.fill_diagonal(m, 5.0, inplace=False), jnp.fill_diagonal(jnp.zeros((5, 2)), jnp.array([1.0, 2.0]),
                                                                     inplace=False),
          jnp.diag_indices(3), jnp.diag_indices_from(jnp.ones((2, 2))), jnp.diagflat(jnp.array([1, 2]), k=-1),
          jnp.tril_indices_from(jnp.ones((3, 3)), k=1), jnp.mask_indices(3, jnp.triu))


@program
def fill_diagonal_inplace_error():
  return jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0)


@program
def logaddexp_spacing_and_misc_ufuncs():
  x = jnp.array([0.0, 1.0, -np.inf])
  return (jnp.logaddexp2(x, x), jnp.spacing(jnp.array([1.0, -1.0, 0.0])), jnp.i0(jnp.array([0.0, 1.0])),
          jnp.unwrap(jnp.array([0.0, 3.0, 6.5, 0.1])), jnp.unwrap(jnp.array([0, 350, 5]), period=360),
          jnp.square(jnp.array([3], jnp.uint8) * 30), jnp.conjugate(jnp.array([1, 2])), jnp.float_power(jnp.array([-8.0]), 1 / 3),
          jnp.exp2(jnp.array([10], jnp.int8)), jnp.log2(jnp.array([0, 8])), jnp.log10(jnp.array([1000.0])))


@program
def positive_of_bool():
  return jnp.positive(jnp.array([True]))


@program
def negative_of_bool_error():
  return jnp.negative(jnp.array([True]))


@program
def subtract_bools_error():
  return jnp.subtract(jnp.array([True]), jnp.array([False]))


@program
def reductions_of_weak_scalars_and_bool():
  w = jnp.asarray(2.0)
  b = jnp.array([True, False, True])
  return (jnp.sum(w), jnp.mean(jnp.asarray(3)), jnp.max(w), jnp.prod(b), jnp.mean(b), jnp.var(b),
          jnp.max(b), jnp.argmax(w), jnp.cumsum(w), jnp.std(jnp.asarray(1)), jnp.median(b),
          jnp.sum(jnp.asarray(1), dtype=jnp.int8), jnp.min(jnp.array([1.0, 2.0]) * 1))


@program
def matrix_power_det_small_ints():
  m = jnp.array([[1, 1], [1, 0]])
  return (jnp.linalg.matrix_power(m, 10), jnp.linalg.matrix_power(m, 0),
          jnp.linalg.matrix_power(m.astype(float), -2), jnp.linalg.det(jnp.zeros((0, 0))),
          jnp.linalg.norm(jnp.array([3, 4])), jnp.linalg.norm(jnp.array([[1.0, -2.0]]), ord=np.inf),
          jnp.linalg.norm(jnp.array([1.0, -2.0]), ord=0), jnp.linalg.norm(jnp.array([1.0, 2.0]), ord=-np.inf))


@program
def matrix_power_negative_int():
  return jnp.linalg.matrix_power(jnp.array([[1, 1], [1, 0]]), -1)


@program
def sort_axis_none_and_kinds():
  x = jnp.array([[3, 1], [2, 0]])
  return (jnp.sort(x, axis=None), jnp.argsort(x, axis=None), jnp.sort(x, axis=0), jnp.argsort(jnp.array([1.0, -0.0, 0.0])))


@program
def unique_axis_none_multidim_and_sorted():
  x = jnp.array([[3, 3, 1], [1, 2, 3]])
  return (jnp.unique(x, return_inverse=True), jnp.unique(jnp.array([], jnp.int32), return_counts=True),
          jnp.unique(jnp.array([True, False, True])), jnp.unique(jnp.array([1 + 1j, 1 - 1j, 1 + 1j])),
          jnp.unique(jnp.array([0.0, -0.0]), return_index=True))


@program
def histogram_zero_bins():
  return jnp.histogram(jnp.array([1.0, 2.0]), bins=0)


@program
def histogram_reversed_range():
  return jnp.histogram(jnp.array([1.0, 2.0]), bins=2, range=(3.0, 1.0))


@program
def digitize_decreasing_bins():
  return (jnp.digitize(jnp.array([0.5, 1.5, 3.0]), jnp.array([3.0, 2.0, 1.0])),
          jnp.digitize(jnp.array([0.5, 1.0, 3.0]), jnp.array([3.0, 2.0, 1.0]), right=True),
          jnp.digitize(jnp.array([1, 2]), jnp.array([], jnp.int32)))


@program
def polyfit_and_poly_shapes():
  x = jnp.array([0.0, 1.0, 2.0, 3.0])
  y = 2 * x ** 2 - x + 1
  return (jnp.polyfit(x, y, 2), jnp.polyval(jnp.array([1, 2], jnp.int8), jnp.array([3], jnp.int8)),
          jnp.polydiv(jnp.array([1.0, -3.0, 2.0]), jnp.array([1.0, -1.0])), jnp.polyint(jnp.array([3.0]), m=2, k=1.0),
          jnp.polyder(jnp.array([1, 2, 3]), m=5), jnp.trim_zeros(jnp.array([0, 0, 1, 0]), "f"))


@program
def cumulative_with_dtype_and_include_initial():
  x = jnp.array([[1, 2], [3, 4]], jnp.int8)
  return (jnp.cumulative_sum(x, axis=0, dtype=jnp.float32, include_initial=True),
          jnp.cumulative_prod(x, axis=1, dtype=jnp.int16), jnp.cumulative_sum(jnp.array([True, True])),
          jnp.cumulative_sum(jnp.zeros((0,)), include_initial=True))


@program
def where_dtype_of_weak_branches():
  c = jnp.array([True, False])
  return (jnp.where(c, 1, 2.0), jnp.where(c, jnp.int8(1), 2.5), jnp.where(c, jnp.float16(1), 2j),
          jnp.where(c, True, 3), jnp.where(c, jnp.array(1, jnp.uint8), -1), jnp.where(c, 1, jnp.asarray(2.0)))


@program
def nonzero_of_scalar_error():
  return jnp.nonzero(jnp.asarray(1))


@program
def einsum_optimize_and_ellipsis_broadcast():
  a = jnp.ones((2, 1, 3))
  b = jnp.ones((4, 3))
  return (jnp.einsum("...ij,kj->...ik", a, b).shape, jnp.einsum("ij,jk,kl", jnp.eye(2), jnp.eye(2), jnp.eye(2), optimize=False),
          jnp.einsum("i->", jnp.array([True, True])), jnp.einsum("i,i->i", jnp.array([1, 2], jnp.int8), jnp.array([3, 4], jnp.int8)),
          jnp.einsum("ii", jnp.arange(4).reshape(2, 2)), jnp.einsum("ij->ji", jnp.ones((2, 3)), preferred_element_type=jnp.float16).dtype)


@program
def einsum_too_many_operands_error():
  return jnp.einsum("i", jnp.ones(2), jnp.ones(2))


@program
def take_along_axis_wrap_mode_error():
  return jnp.take_along_axis(jnp.arange(4.0), jnp.array([-1, 5]), axis=0, mode="wrap")


@program
def fill_diagonal_wrap_error():
  return jnp.fill_diagonal(jnp.zeros((5, 2)), 1.0, wrap=True, inplace=False)


@program
def sort_kind_argument_error():
  return jnp.sort(jnp.array([2, 1]), kind="stable")


@program
def can_cast_of_array_warns():
  return jnp.can_cast(jnp.array([1.7, -1.2]), jnp.int32, casting="same_kind")


@program
def can_cast_of_python_float_error():
  return jnp.can_cast(1.0, jnp.int32)
