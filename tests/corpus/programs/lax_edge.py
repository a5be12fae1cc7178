"""Edge cases of jax.lax, jax.random and jax.nn beyond lax_ops/random_api: scatter and gather
modes and flags, index clamping, strided slices, dilated windows and convolutions, grouped and
batch-grouped convolutions, integer dot_general, multi-operand sorts, index dtypes, special
functions near poles, bit-width conversions, gradients of structural ops, sampler arguments under
x64, and jax.nn helpers with masks, flags and signs; plus the errors JAX raises for them."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()

def _rows_dn():
  return lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))


def _scatter_dn():
  return lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))


# --- scatter and gather ---------------------------------------------------------------------

@program
def scatter_add_duplicate_indices_and_modes():
  x = jnp.zeros(4)
  idx = jnp.array([[1], [1], [3], [7], [-1]])
  upd = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
  dn = _scatter_dn()
  drop = lax.scatter_add(x, idx, upd, dn, mode=lax.GatherScatterMode.FILL_OR_DROP)
  clip = lax.scatter_add(x, idx, upd, dn, mode=lax.GatherScatterMode.CLIP)
  return drop, clip


@program
def scatter_set_mul_min_max_with_clip():
  x = jnp.array([1.0, 2.0, 3.0, 4.0])
  idx = jnp.array([[0], [2], [9]])
  upd = jnp.array([10.0, -1.0, 0.5])
  dn = _scatter_dn()
  m = lax.GatherScatterMode.CLIP
  return (lax.scatter(x, idx, upd, dn, mode=m), lax.scatter_mul(x, idx, upd, dn, mode=m),
          lax.scatter_min(x, idx, upd, dn, mode=m), lax.scatter_max(x, idx, upd, dn, mode=m))


@program
def scatter_sorted_unique_flags_int():
  x = jnp.zeros(5, jnp.int32)
  idx = jnp.array([[0], [2], [4]])
  upd = jnp.array([7, 8, 9], jnp.int32)
  dn = _scatter_dn()
  return (lax.scatter_add(x, idx, upd, dn, indices_are_sorted=True, unique_indices=True),
          lax.scatter(x, idx, upd, dn, indices_are_sorted=True, unique_indices=True,
                      mode="drop"))


@program
def scatter_window_updates_2d():
  x = jnp.zeros((3, 4))
  idx = jnp.array([[0, 1], [2, 3]])
  upd = jnp.ones((2, 2)) * jnp.array([[1.0], [2.0]])
  dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0, 1))
  return (lax.scatter_add(x, idx, upd, dn, mode="clip"),
          lax.scatter_add(x, idx, upd, dn, mode="fill"))


@program
def scatter_mode_string_and_bad_mode_error():
  return lax.scatter_add(jnp.zeros(3), jnp.array([[1]]), jnp.ones(1), _scatter_dn(),
                         mode="wrap")


@program
def gather_promise_in_bounds_and_fill_negative():
  x = jnp.arange(12.0).reshape(4, 3)
  dn = _rows_dn()
  ok = lax.gather(x, jnp.array([[3], [1]]), dn, (1, 3),
                  mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)
  neg = lax.gather(x, jnp.array([[-1], [2], [4]]), dn, (1, 3), mode="fill")
  negc = lax.gather(x, jnp.array([[-1], [2], [4]]), dn, (1, 3), mode="clip")
  return ok, neg, negc


@program
def gather_fill_int_and_bool_default_fill():
  xi = jnp.arange(6, dtype=jnp.int32).reshape(3, 2)
  xb = jnp.array([[True, False], [False, True]])
  xu = jnp.arange(6, dtype=jnp.uint8).reshape(3, 2)
  dn = _rows_dn()
  idx = jnp.array([[0], [5]])
  return (lax.gather(xi, idx, dn, (1, 2), mode="fill"), lax.gather(xb, idx, dn, (1, 2), mode="fill"),
          lax.gather(xu, idx, dn, (1, 2), mode="fill"))


@program
def gather_partial_window_fill_out_of_bounds():
  x = jnp.arange(10.0)
  dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
  idx = jnp.array([[0], [7], [8], [9]])
  return (lax.gather(x, idx, dn, (3,), mode="fill", fill_value=-5.0),
          lax.gather(x, idx, dn, (3,), mode="clip"))


@program
def gather_slice_size_too_big_error():
  return lax.gather(jnp.arange(4.0), jnp.array([[0]]), _rows_dn(), (5,))


# --- dynamic slices ------------------------------------------------------------------------

@program
def dynamic_slice_unsigned_and_int8_indices():
  x = jnp.arange(10)
  return (lax.dynamic_slice(x, (jnp.uint8(200),), (3,)),
          lax.dynamic_slice(x, (jnp.int8(-128),), (3,)),
          lax.dynamic_slice(x, (jnp.uint32(4),), (3,)),
          lax.dynamic_update_slice(x, jnp.array([-1, -2]), (jnp.int8(-100),)))


@program
def dynamic_slice_size_larger_than_operand_error():
  return lax.dynamic_slice(jnp.arange(4), (0,), (5,))


@program
def dynamic_update_slice_dtype_mismatch_error():
  return lax.dynamic_update_slice(jnp.zeros(4), jnp.ones(2, jnp.int32), (0,))


@program
def dynamic_slice_float_index_error():
  return lax.dynamic_slice(jnp.arange(4), (1.0,), (2,))


# --- slices, pads, windows -----------------------------------------------------------------

@program
def slice_strides_uneven():
  x = jnp.arange(20).reshape(4, 5)
  return (lax.slice(x, (0, 0), (4, 5), (3, 2)), lax.slice(x, (1, 1), (4, 4), (2, 3)),
          lax.slice_in_dim(x, 0, 5, stride=4, axis=1), lax.slice(x, (0, 0), (0, 5)))


@program
def slice_out_of_bounds_under_jit_error():
  return jax.jit(lambda x: lax.slice(x, (2,), (7,)))(jnp.arange(5))


@program
def slice_negative_stride_error():
  return lax.slice(jnp.arange(5), (0,), (5,), (-1,))


@program
def pad_interior_negative_combined_2d():
  x = jnp.arange(1, 7, dtype=jnp.float32).reshape(2, 3)
  return (lax.pad(x, -1.0, [(-1, 2, 2), (1, -3, 1)]), lax.pad(x, jnp.float32(0), [(0, 0, 0), (-4, 0, 1)]),
          lax.pad(jnp.arange(3), 0, [(-3, 0, 0)]))


@program
def pad_negative_interior_error():
  return lax.pad(jnp.arange(3), 0, [(0, 0, -1)])


@program
def pad_value_dtype_mismatch_error():
  return lax.pad(jnp.arange(3.0), jnp.int32(0), [(1, 1, 0)])


@program
def reduce_window_base_and_window_dilation():
  x = jnp.arange(1.0, 9.0).reshape(2, 4)
  a = lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), "VALID", window_dilation=(1, 2))
  b = lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), "VALID", base_dilation=(1, 2))
  c = lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), [(1, 0), (0, 1)],
                        base_dilation=(2, 1), window_dilation=(1, 1))
  return a, b, c


@program
def reduce_window_same_padding_strided_min_int():
  x = jnp.array([[5, 1, 4, 2, 3], [0, 9, -2, 7, 6]], jnp.int32)
  m = lax.reduce_window(x, jnp.iinfo(jnp.int32).max, lax.min, (2, 3), (2, 2), "SAME")
  s = lax.reduce_window(x, 0, lax.add, (1, 2), (1, 3), "SAME")
  return m, s


@program
def reduce_window_mul_and_generic_tuple():
  x = jnp.array([1.0, 2.0, 3.0, 4.0])
  p = lax.reduce_window(x, 1.0, lax.mul, (2,), (1,), [(1, 1)])
  t = lax.reduce_window((x, -x), (0.0, 0.0), lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                        (3,), (1,), "VALID")
  return p, t


@program
def reduce_window_bad_window_rank_error():
  return lax.reduce_window(jnp.ones((2, 3)), 0.0, lax.add, (2,), (1,), "VALID")


# --- convolutions ---------------------------------------------------------------------------

@program
def conv_feature_group_count_nchw():
  x = jnp.arange(1 * 4 * 3 * 3, dtype=jnp.float32).reshape(1, 4, 3, 3) / 7
  w = jnp.arange(4 * 2 * 2 * 2, dtype=jnp.float32).reshape(4, 2, 2, 2) / 5 - 1
  return lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)


@program
def conv_depthwise_nwc_with_rhs_dilation():
  x = jnp.arange(2 * 7 * 3, dtype=jnp.float32).reshape(2, 7, 3) / 10
  w = jnp.array([1.0, -1.0, 0.5]).reshape(3, 1, 1) * jnp.ones((3, 1, 3))
  return lax.conv_general_dilated(x, w, (2,), "VALID", rhs_dilation=(2,),
                                  dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=3)


@program
def conv_batch_group_count():
  x = jnp.arange(4 * 2 * 5, dtype=jnp.float32).reshape(4, 2, 5) / 3
  w = jnp.arange(4 * 2 * 2, dtype=jnp.float32).reshape(4, 2, 2) / 4
  return lax.conv_general_dilated(x, w, (1,), "VALID", batch_group_count=2)


@program
def conv_lhs_and_rhs_dilation_padding_strings():
  x = jnp.arange(1 * 1 * 3 * 3, dtype=jnp.float32).reshape(1, 1, 3, 3)
  w = jnp.array([[[[1.0, 2.0], [3.0, 4.0]]]])
  a = lax.conv_general_dilated(x, w, (1, 1), [(1, 0), (0, 1)], lhs_dilation=(2, 2))
  b = lax.conv_general_dilated(x, w, (2, 1), "SAME_LOWER", rhs_dilation=(2, 1))
  c = lax.conv_general_dilated(x, w, (1, 1), [(2, -1), (0, 1)], lhs_dilation=(1, 2))
  d = lax.conv_general_dilated(x, w, (3, 2), "SAME", rhs_dilation=(1, 2))
  return a, b, c, d


@program
def conv_string_padding_with_lhs_dilation_error():
  x = jnp.ones((1, 1, 3, 3))
  return lax.conv_general_dilated(x, jnp.ones((1, 1, 2, 2)), (1, 1), "SAME", lhs_dilation=(2, 2))


@program
def conv_dimension_numbers_odd_layouts():
  x = jnp.arange(2 * 3 * 4 * 1, dtype=jnp.float32).reshape(2, 3, 4, 1)  # N H W C -> use "NHWC"
  w = jnp.ones((1, 2, 2, 3), jnp.float32)  # O H W I?  layout "OHWI"
  xc = jnp.transpose(x, (3, 1, 2, 0))  # C H W N
  w2 = jnp.arange(6.0).reshape(2, 1, 3) / 3  # W I O for NWC input with 1 channel
  a = lax.conv_general_dilated(jnp.tile(x, (1, 1, 1, 3)), w, (1, 1), "VALID",
                               dimension_numbers=("NHWC", "OHWI", "NCHW"))
  b = lax.conv_general_dilated(xc, jnp.ones((2, 2, 1, 4)), (1, 1), "VALID",
                               dimension_numbers=("CHWN", "HWIO", "NHWC"))
  c = lax.conv_general_dilated(x[:, 0], w2, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NCW"))
  return a, b, c


@program
def conv_integer_inputs_preferred_element_type():
  x = jnp.arange(1, 10, dtype=jnp.int8).reshape(1, 1, 9)
  w = jnp.array([[[100, 100, 100]]], jnp.int8)
  return (lax.conv_general_dilated(x, w, (1,), "VALID", preferred_element_type=jnp.int32),
          lax.conv_general_dilated(x, w, (3,), "VALID"))


@program
def conv_feature_group_mismatch_error():
  x = jnp.ones((1, 3, 4))
  w = jnp.ones((4, 2, 2))
  return lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2)


@program
def conv_both_group_counts_error():
  x = jnp.ones((2, 2, 4))
  w = jnp.ones((2, 1, 2))
  return lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2, batch_group_count=2)


@program
def conv_transpose_and_conv_with_general_padding():
  x = jnp.arange(1.0, 5.0).reshape(1, 4, 1)
  w = jnp.array([1.0, 2.0, 3.0]).reshape(3, 1, 1)
  t = lax.conv_transpose(x, w, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
  v = lax.conv_transpose(x, w, (2,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))
  k = lax.conv_transpose(x, w, (1,), [(1, 2)], rhs_dilation=(2,),
                         dimension_numbers=("NWC", "WIO", "NWC"), transpose_kernel=True)
  return t, v, k


# --- dot_general ---------------------------------------------------------------------------

@program
def dot_general_int8_overflow_and_uint():
  a = jnp.array([[100, 100]], jnp.int8)
  b = jnp.array([[2], [1]], jnp.int8)
  u = jnp.array([[200, 100]], jnp.uint8)
  return (lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
          lax.dot_general(u, b.astype(jnp.uint8), (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.uint32),
          lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32),
          lax.dot(jnp.array([True, True]), jnp.array([True, False])))


@program
def dot_general_bfloat16_preferred_and_mixed_error():
  a = jnp.ones((2, 3), jnp.bfloat16) * 1.5
  r = lax.dot_general(a, a, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
  try:
    lax.dot_general(a, jnp.ones((3, 2), jnp.float32), (((1,), (0,)), ((), ())))
    mixed = "ok"
  except Exception as e:
    mixed = type(e).__name__
  return r, mixed


@program
def dot_general_preferred_narrower_error():
  a = jnp.ones((2, 2), jnp.float32)
  return lax.dot_general(a, a, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32)


@program
def dot_general_multiple_contracting_and_batch_not_leading():
  a = jnp.arange(24.0).reshape(2, 3, 4)
  b = jnp.arange(24.0).reshape(4, 3, 2)
  r = lax.dot_general(a, b, (((1, 2), (1, 0)), ((), ())))
  c = lax.dot_general(a, jnp.arange(12.0).reshape(3, 4), (((2,), (1,)), ((1,), (0,))))
  return r, c


# --- sorting and ranking --------------------------------------------------------------------

@program
def sort_stability_and_dimension():
  k = jnp.array([[3, 1, 3, 1, 2], [0, 0, 1, 1, 0]])
  v = jnp.arange(10).reshape(2, 5)
  s0 = lax.sort((k, v), dimension=0, num_keys=1, is_stable=True)
  s1 = lax.sort((k, v), dimension=1, num_keys=1, is_stable=True)
  return s0, s1


@program
def sort_signed_zeros_nans_and_infs():
  x = jnp.array([0.0, -0.0, jnp.nan, -jnp.inf, jnp.inf, -jnp.nan, 1.0, -0.0])
  s = lax.sort(x)
  return s, jnp.signbit(s), lax.sort_key_val(x, jnp.arange(8))[1]


@program
def sort_num_keys_too_large_error():
  return lax.sort((jnp.ones(3), jnp.ones(3)), num_keys=3)


@program
def sort_bool_and_unsigned_and_complex():
  return (lax.sort(jnp.array([True, False, True, False])),
          lax.sort(jnp.array([255, 0, 128, 1], jnp.uint8)),
          lax.sort(jnp.array([1 + 2j, 1 - 1j, -1 + 5j, 1 + 0j], jnp.complex64)))


@program
def top_k_ties_nans_and_int_min():
  x = jnp.array([2.0, jnp.nan, 2.0, 5.0, -jnp.inf, 5.0])
  i = jnp.array([-128, 127, -128, 0], jnp.int8)
  return lax.top_k(x, 4), lax.top_k(i, 4), lax.top_k(jnp.array([[1, 1, 1]]), 2)


@program
def top_k_k_too_large_error():
  return lax.top_k(jnp.arange(3.0), 4)


@program
def argmax_argmin_index_dtypes_and_nans():
  x = jnp.array([[1.0, jnp.nan, 3.0], [2.0, 2.0, -1.0]])
  return (lax.argmax(x, 1, jnp.int8), lax.argmin(x, 1, jnp.uint8), lax.argmax(x, 0, jnp.int16),
          lax.argmin(jnp.array([True, False, False]), 0, jnp.int32),
          lax.argmax(jnp.array([-0.0, 0.0]), 0, jnp.int32))


@program
def argmax_float_index_dtype_error():
  return lax.argmax(jnp.arange(3.0), 0, jnp.float32)


@program
def cumulative_reverse_int_and_logsumexp():
  x = jnp.array([[1.0, -jnp.inf, 2.0], [jnp.inf, 0.0, -1.0]])
  i = jnp.array([[100, 100, 100]], jnp.int8)
  return (lax.cumlogsumexp(x, axis=1, reverse=True), lax.cumlogsumexp(x, axis=0),
          lax.cumsum(i, axis=1), lax.cumprod(i, axis=1, reverse=True),
          lax.cummax(x, axis=1, reverse=True), lax.cummin(jnp.array([3, 1, 2], jnp.uint8), reverse=True))


@program
def cumsum_bool_and_axis_error():
  try:
    b = lax.cumsum(jnp.array([True, True, False]))
  except Exception as e:
    b = type(e).__name__
  return b, lax.cumsum(jnp.arange(3), axis=1)


# --- integer and bit ops --------------------------------------------------------------------

@program
def rem_div_int_min_and_unsigned():
  a = jnp.array([-128, -128, 127, -7], jnp.int8)
  b = jnp.array([-1, 3, -128, 3], jnp.int8)
  u = jnp.array([250, 7], jnp.uint8)
  v = jnp.array([7, 250], jnp.uint8)
  return lax.div(a, b), lax.rem(a, b), lax.div(u, v), lax.rem(u, v)


@program
def rem_of_floats_signs_and_inf():
  x = jnp.array([5.5, -5.5, 5.5, -5.5, 1.0, jnp.inf, -0.0])
  y = jnp.array([2.0, 2.0, -2.0, -2.0, jnp.inf, 2.0, 3.0])
  r = lax.rem(x, y)
  return r, jnp.signbit(r)


@program
def integer_pow_large_exponents_and_ints():
  x = jnp.array([1.5, -2.0, 0.0])
  return (lax.integer_pow(x, 0), lax.integer_pow(x, 7), lax.integer_pow(x, -1),
          lax.integer_pow(jnp.array([3, -2], jnp.int8), 5), lax.integer_pow(jnp.int32(2), 31),
          lax.integer_pow(jnp.array([2], jnp.uint8), 9))


@program
def integer_pow_negative_int_exponent_error():
  return lax.integer_pow(jnp.arange(3), -1)


@program
def popcount_clz_all_widths():
  return (lax.population_count(jnp.array([-1, -128], jnp.int8)),
          lax.population_count(jnp.array([65535, 1], jnp.uint16)),
          lax.clz(jnp.array([0, 1, -1], jnp.int16)), lax.clz(jnp.array([0, 2 ** 31], jnp.uint32)),
          lax.clz(jnp.array([1, 0], jnp.uint8)))


@program
def popcount_of_float_error():
  return lax.population_count(jnp.arange(3.0))


@program
def shifts_out_of_range_and_negative_amounts():
  x = jnp.array([1, -1, 64, -64], jnp.int8)
  s = jnp.array([8, 9, -1, 7], jnp.int8)
  u = jnp.array([255, 1], jnp.uint8)
  su = jnp.array([8, 200], jnp.uint8)
  return (lax.shift_left(x, s), lax.shift_right_arithmetic(x, s), lax.shift_right_logical(x, s),
          lax.shift_left(u, su), lax.shift_right_logical(u, su), lax.shift_right_arithmetic(u, su))


@program
def bitwise_ops_on_bools_and_not():
  a = jnp.array([True, False, True])
  b = jnp.array([True, True, False])
  i = jnp.array([0, -1, 5], jnp.int16)
  return lax.bitwise_and(a, b), lax.bitwise_xor(a, b), lax.bitwise_not(a), lax.bitwise_not(i), lax.bitwise_not(jnp.uint8(5))


@program
def nextafter_denormals_and_nan():
  x = jnp.array([0.0, -0.0, jnp.inf, jnp.nan, 1.0, 3.4028235e38], jnp.float32)
  y = jnp.array([1.0, -1.0, 0.0, 1.0, jnp.nan, jnp.inf], jnp.float32)
  r = lax.nextafter(x, y)
  return r, lax.bitcast_convert_type(r, jnp.int32)


@program(x64=True)
def nextafter_float64_and_float16():
  return (lax.nextafter(jnp.array([1.0, 0.0]), jnp.array([2.0, -1.0])) - jnp.array([1.0, 0.0]),
          lax.nextafter(jnp.array([1.0, 0.0], jnp.float16), jnp.array([0.0, 1.0], jnp.float16)))


@program
def reduce_precision_overflow_underflow_and_nan():
  x = jnp.array([70000.0, -70000.0, 1e-8, 6e-5, jnp.nan, jnp.inf, 1.00048828125], jnp.float32)
  a = lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
  b = lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3)
  c = lax.reduce_precision(x, exponent_bits=8, mantissa_bits=0)
  return a, b, c


@program
def bitcast_convert_between_widths():
  return (lax.bitcast_convert_type(jnp.array([1.0, -2.0], jnp.float32), jnp.uint8),
          lax.bitcast_convert_type(jnp.arange(8, dtype=jnp.uint8).reshape(2, 4), jnp.float32),
          lax.bitcast_convert_type(jnp.array([[1, 0], [0, 1]], jnp.uint16), jnp.int32),
          lax.bitcast_convert_type(jnp.array([1.0], jnp.bfloat16), jnp.int16),
          lax.bitcast_convert_type(jnp.array([-1], jnp.int32), jnp.float16))


@program
def bitcast_convert_bad_last_dim_error():
  return lax.bitcast_convert_type(jnp.arange(3, dtype=jnp.uint8), jnp.int16)


@program
def bitcast_convert_bool_error():
  return lax.bitcast_convert_type(jnp.array([True]), jnp.uint8)


@program
def convert_nan_inf_to_ints():
  x = jnp.array([jnp.nan, jnp.inf, -jnp.inf, 3e9, -3e9, -0.7], jnp.float32)
  return (lax.convert_element_type(x, jnp.int32), lax.convert_element_type(x, jnp.int8),
          lax.convert_element_type(x, jnp.uint32), lax.convert_element_type(x, jnp.uint8),
          lax.convert_element_type(x, jnp.bool_))


@program(x64=True)
def convert_float64_to_int64_and_int_to_float16():
  x = jnp.array([jnp.nan, 1e19, -1e19, 2.0 ** 53 + 1])
  return (lax.convert_element_type(x, jnp.int64), lax.convert_element_type(x, jnp.uint64),
          lax.convert_element_type(jnp.array([70000, -70000, 2049]), jnp.float16),
          lax.convert_element_type(jnp.array([2 ** 63 - 1], jnp.int64), jnp.float32))


@program
def convert_element_type_weak_and_complex():
  c = jnp.array([1.5 - 2j], jnp.complex64)
  try:
    r = lax.convert_element_type(c, jnp.float32)
  except Exception as e:
    r = type(e).__name__
  return (r, lax.convert_element_type(3, jnp.float32), lax.convert_element_type(2.5, jnp.int32),
          lax.convert_element_type(jnp.float32(1.0), jnp.float16))


# --- clamp, select_n, broadcast, reshape -----------------------------------------------------

@program
def clamp_broadcast_scalar_bounds_and_inverted():
  x = jnp.array([-2.0, 0.5, 3.0, jnp.nan])
  return (lax.clamp(jnp.array([0.0, 0.0, 0.0, 0.0]), x, 1.0),
          lax.clamp(2.0, x, 1.0), lax.clamp(-1.0, x, jnp.array([0.0, 1.0, 2.0, 3.0])),
          lax.clamp(jnp.uint8(3), jnp.arange(6, dtype=jnp.uint8), jnp.uint8(4)))


@program
def clamp_shape_mismatch_error():
  return lax.clamp(jnp.zeros(2), jnp.ones(3), jnp.ones(3))


@program
def clamp_dtype_mismatch_error():
  return lax.clamp(jnp.int32(0), jnp.ones(3), 2.0)


@program
def select_n_int32_scalar_pred_and_many_cases():
  cases = [jnp.full((2, 2), float(i)) for i in range(5)]
  which = jnp.array([[0, 4], [2, 3]], jnp.int32)
  return (lax.select_n(which, *cases), lax.select_n(jnp.int32(3), *cases),
          lax.select_n(True, jnp.zeros(2), jnp.ones(2)),
          lax.select_n(jnp.array([1, 0], jnp.uint8), jnp.zeros(2), jnp.ones(2)))


@program
def select_n_bool_with_three_cases_error():
  return lax.select_n(jnp.array([True, False]), jnp.zeros(2), jnp.ones(2), jnp.ones(2))


@program
def select_n_case_dtype_mismatch_error():
  return lax.select_n(jnp.array([0, 1]), jnp.zeros(2), jnp.ones(2, jnp.int32))


@program
def broadcast_in_dim_size_one_expansion_and_scalar():
  x = jnp.array([[1], [2]])
  return (lax.broadcast_in_dim(x, (2, 3), (0, 1)), lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
          lax.broadcast_in_dim(jnp.ones((1, 1)), (3, 1, 2), (1, 2)).shape,
          lax.broadcast_in_dim(2.0, (2,), ()))


@program
def broadcast_in_dim_unsorted_dims_error():
  return lax.broadcast_in_dim(jnp.ones((2, 3)), (3, 2), (1, 0))


@program
def expand_dims_negative_and_duplicates():
  x = jnp.ones((2, 3))
  a = lax.expand_dims(x, (-1,)).shape
  b = lax.expand_dims(x, (0, -1)).shape
  try:
    c = lax.expand_dims(x, (1, 1)).shape
  except Exception as e:
    c = type(e).__name__
  return a, b, c


@program
def squeeze_out_of_range_error():
  return lax.squeeze(jnp.ones((1, 2)), (2,))


@program
def squeeze_duplicate_and_negative():
  x = jnp.ones((1, 2, 1))
  return lax.squeeze(x, (0, -1)).shape, lax.squeeze(x, (-3,)).shape, lax.squeeze(x, ()).shape


# --- special functions ---------------------------------------------------------------------

@program
def lgamma_digamma_near_poles():
  x = jnp.array([0.0, -0.0, -1.0, -2.5, -1e-7, 1e-30, 1.0, 2.0, jnp.inf, -jnp.inf])
  return lax.lgamma(x), lax.digamma(x)


@program(x64=True)
def lgamma_digamma_float64_poles_and_large():
  x = jnp.array([-3.0, -3.5, 1e-300, 1e300, 0.5])
  return lax.lgamma(x), lax.digamma(x)


@program(rtol=1e-4, atol=1e-6)
def igamma_igammac_edges():
  a = jnp.array([0.0, 1.0, 2.0, 0.5, 100.0, -1.0, 1.0, jnp.nan])
  x = jnp.array([1.0, 0.0, jnp.inf, 0.25, 100.0, 1.0, -1.0, 1.0])
  return lax.igamma(a, x), lax.igammac(a, x)


@program(rtol=1e-4, atol=1e-6)
def betainc_edges():
  a = jnp.array([1.0, 2.0, 0.5, 5.0, -1.0, 2.0])
  b = jnp.array([1.0, 3.0, 0.5, 5.0, 1.0, 2.0])
  x = jnp.array([0.3, 0.0, 1.0, 0.5, 0.5, 1.5])
  return lax.betainc(a, b, x)


@program
def erf_inv_at_and_beyond_one():
  x = jnp.array([-1.0, 1.0, 1.5, -1.0000001, 0.999999, -0.0, jnp.nan])
  return lax.erf_inv(x)


@program(rtol=1e-5, atol=1e-6)
def bessel_i0e_i1e_extremes():
  x = jnp.array([0.0, -0.0, 1e-20, -3.0, 50.0, 1e5, jnp.inf, -jnp.inf])
  return lax.bessel_i0e(x), lax.bessel_i1e(x)


@program(rtol=1e-4)
def random_gamma_grad_and_polygamma_zeta():
  return (lax.random_gamma_grad(jnp.array([0.5, 2.0]), jnp.array([0.3, 1.7])),
          lax.polygamma(jnp.array([1.0, 2.0]), jnp.array([0.5, 3.0])),
          lax.zeta(jnp.array([2.0, 3.0, 1.0]), jnp.array([1.0, 2.0, 1.0])))


@program
def special_functions_on_ints_error():
  return lax.lgamma(jnp.arange(3))


# --- gradients -------------------------------------------------------------------------------

@program
def grad_scatter_add_duplicates_and_dropped():
  dn = _scatter_dn()
  idx = jnp.array([[1], [1], [9]])

  def f(x, u):
    y = lax.scatter_add(x, idx, u, dn, mode="drop")
    return jnp.sum(y * jnp.array([1.0, 2.0, 3.0]))

  return jax.grad(f, argnums=(0, 1))(jnp.ones(3), jnp.array([1.0, 2.0, 3.0]))


@program
def grad_scatter_set_overwrite_and_mul():
  dn = _scatter_dn()
  idx = jnp.array([[0], [2]])

  def f(x, u):
    return (jnp.sum(lax.scatter(x, idx, u, dn) ** 2)
            + jnp.sum(lax.scatter_mul(x, idx, u, dn, unique_indices=True) * jnp.arange(3.0)))

  return jax.grad(f, argnums=(0, 1))(jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 5.0]))


@program
def grad_scatter_mul_non_unique_error():
  dn = _scatter_dn()
  f = lambda x: jnp.sum(lax.scatter_mul(x, jnp.array([[0], [0]]), jnp.array([2.0, 3.0]), dn))
  return jax.grad(f)(jnp.ones(3))


@program
def grad_scatter_overwrite_duplicate_indices():
  dn = _scatter_dn()
  f = lambda u: jnp.sum(lax.scatter(jnp.zeros(3), jnp.array([[1], [1]]), u, dn,
                                    mode="promise_in_bounds") * jnp.array([1.0, 2.0, 3.0]))
  return jax.grad(f)(jnp.array([4.0, 5.0]))


@program
def grad_gather_clip_and_fill():
  dn = _rows_dn()
  idx = jnp.array([[0], [5], [0], [-2]])

  def f(x):
    a = lax.gather(x, idx, dn, (1, 2), mode="clip")
    b = lax.gather(x, idx, dn, (1, 2), mode="fill", fill_value=3.0)
    return jnp.sum(a * 2.0) + jnp.sum(b ** 2)

  return jax.grad(f)(jnp.arange(6.0).reshape(3, 2))


@program
def grad_dynamic_update_slice_clamped():
  def f(x, u, i):
    return jnp.sum(lax.dynamic_update_slice(x, u, (i,)) * jnp.arange(1.0, 6.0))

  return jax.grad(f, argnums=(0, 1))(jnp.ones(5), jnp.array([2.0, 3.0]), 4)


@program
def grad_dynamic_slice_clamped_index():
  f = lambda x: jnp.sum(lax.dynamic_slice(x, (7,), (3,)) ** 2)
  return jax.grad(f)(jnp.arange(5.0)), jax.jvp(f, (jnp.arange(5.0),), (jnp.ones(5),))


@program
def grad_sort_multi_operand():
  def f(k, v):
    sk, sv = lax.sort((k, v), num_keys=1)
    return jnp.sum(sk * jnp.arange(4.0)) + jnp.sum(sv * jnp.array([1.0, 10.0, 100.0, 1000.0]))

  return jax.grad(f, argnums=(0, 1))(jnp.array([3.0, 1.0, 2.0, 1.0]), jnp.array([0.5, 0.6, 0.7, 0.8]))


@program
def grad_cumprod_with_zero_and_reverse():
  x = jnp.array([2.0, 0.0, 3.0, 4.0])
  return (jax.grad(lambda v: jnp.sum(lax.cumprod(v)))(x),
          jax.grad(lambda v: jnp.sum(lax.cumprod(v, reverse=True)))(x),
          jax.grad(lambda v: jnp.sum(lax.cumlogsumexp(v)))(jnp.array([0.0, -jnp.inf, 1.0])),
          jax.grad(lambda v: jnp.sum(lax.cummax(v)))(jnp.array([1.0, 3.0, 3.0, 2.0])))


@program
def grad_reduce_window_max_ties_and_padding():
  x = jnp.array([[1.0, 3.0, 3.0], [2.0, 0.0, 3.0]])
  f = lambda v: jnp.sum(lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (1, 1), [(0, 0), (1, 0)]))
  g = lambda v: jnp.sum(lax.reduce_window(v, 0.0, lax.add, (1, 2), (1, 2), "SAME",
                                          window_dilation=(1, 2)) ** 2)
  return jax.grad(f)(x), jax.grad(g)(x)


@program(rtol=1e-5, atol=1e-5)
def grad_conv_with_feature_groups():
  x = jnp.arange(1 * 4 * 5, dtype=jnp.float32).reshape(1, 4, 5) / 10
  w = jnp.arange(6 * 2 * 3, dtype=jnp.float32).reshape(6, 2, 3) / 10 - 1

  def f(x, w):
    return jnp.sum(lax.conv_general_dilated(x, w, (2,), [(1, 1)], rhs_dilation=(1,),
                                            feature_group_count=2) ** 2)

  return jax.grad(f, argnums=(0, 1))(x, w)


@program(rtol=1e-5, atol=1e-5)
def grad_conv_with_batch_groups_and_lhs_dilation():
  x = jnp.arange(2 * 2 * 4, dtype=jnp.float32).reshape(2, 2, 4) / 10
  w = jnp.arange(2 * 2 * 2, dtype=jnp.float32).reshape(2, 2, 2) / 10 - 0.3

  def f(x, w):
    a = lax.conv_general_dilated(x, w, (1,), "VALID", batch_group_count=2)
    b = lax.conv_general_dilated(x, w, (1,), [(1, 0)], lhs_dilation=(2,))
    return jnp.sum(a ** 2) + jnp.sum(jnp.sin(b))

  return jax.grad(f, argnums=(0, 1))(x, w)


@program
def grad_select_n_and_clamp_boundaries():
  def f(x):
    return jnp.sum(lax.select_n(jnp.array([0, 1, 2]), x, x ** 2, x ** 3))

  c = lambda v: jnp.sum(lax.clamp(0.0, v, 1.0))
  lo = lambda lo_: jnp.sum(lax.clamp(lo_, jnp.array([0.0, 0.5, 1.0]), jnp.ones(3)))
  return (jax.grad(f)(jnp.array([2.0, 2.0, 2.0])), jax.grad(c)(jnp.array([0.0, 0.5, 1.0, 2.0, -1.0])),
          jax.grad(lo)(jnp.zeros(3)), jax.grad(lambda h: lax.clamp(0.0, 1.0, h))(1.0),
          jax.grad(lambda l: lax.clamp(l, 1.0, 2.0))(1.0))


@program
def grad_clamp_scalar_min_array_operand():
  lo = lambda lo_: jnp.sum(lax.clamp(lo_, jnp.array([0.0, 0.5, 1.0]), 1.0))
  return jax.grad(lo)(0.0)


@program
def grad_sqrt_at_zero_and_where_nan_branch():
  def safe(x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)

  def dbl(x):
    y = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.log(y), 0.0)

  return (jax.grad(jnp.sqrt)(0.0), jax.grad(lambda x: jnp.sum(safe(x)))(jnp.array([0.0, 4.0])),
          jax.grad(lambda x: jnp.sum(dbl(x)))(jnp.array([0.0, 2.0])),
          jax.jvp(jnp.sqrt, (0.0,), (1.0,)), jax.grad(lambda x: lax.rsqrt(x))(0.0))


@program
def grad_pad_interior_negative_and_slice_strides():
  f = lambda v: jnp.sum(lax.pad(v, 0.0, [(-1, 2, 1)]) * jnp.arange(1.0, 7.0))
  g = lambda v: jnp.sum(lax.slice(v, (1,), (6,), (2,)) ** 2)
  h = lambda v, p: jnp.sum(lax.pad(v, p, [(1, 1, 1)]) * jnp.arange(1.0, 6.0))
  return jax.grad(f)(jnp.arange(3.0)), jax.grad(g)(jnp.arange(6.0)), jax.grad(h, (0, 1))(jnp.ones(2), 0.0)


@program
def grad_pad_wrt_padding_value_only():
  return jax.grad(lambda p: jnp.sum(lax.pad(jnp.ones(2), p, [(1, 1, 1)])))(0.0)


@program
def jvp_integer_pow_special_and_top_k():
  x = jnp.array([0.5, 2.0, 3.0])
  t = jnp.ones(3)
  return (jax.jvp(lambda v: lax.integer_pow(v, -3), (x,), (t,)),
          jax.jvp(lax.lgamma, (x,), (t,)), jax.jvp(lax.digamma, (x,), (t,)),
          jax.jvp(lambda v: lax.top_k(v, 2)[0], (jnp.array([1.0, 3.0, 3.0]),), (jnp.array([1.0, 2.0, 3.0]),)),
          jax.jvp(lax.erf_inv, (jnp.array([0.0, 0.5]),), (jnp.ones(2),)))


@program(rtol=1e-4, atol=1e-6)
def grad_igamma_betainc_bessel():
  return (jax.grad(lambda x: lax.igamma(2.0, x))(1.5), jax.grad(lambda a: lax.igamma(a, 1.5))(2.0),
          jax.grad(lambda x: lax.betainc(2.0, 3.0, x))(0.4),
          jax.grad(lax.bessel_i0e)(0.7), jax.grad(lax.bessel_i1e)(0.7), jax.grad(lax.bessel_i1e)(0.0))


@program
def grad_betainc_wrt_a_error():
  return jax.grad(lambda a: lax.betainc(a, 3.0, 0.4))(2.0)


@program
def grad_dot_general_int_preferred_error():
  a = jnp.ones((2, 2), jnp.float32)
  f = lambda a: jnp.sum(lax.dot_general(a, a, (((1,), (0,)), ((), ())),
                                        preferred_element_type=jnp.float32))
  return jax.grad(f)(a), jax.grad(lambda v: lax.reduce_precision(v, 5, 10))(1.0001)


@program
def grad_convert_and_bitcast_are_zero_or_error():
  g = jax.grad(lambda x: lax.convert_element_type(lax.convert_element_type(x, jnp.int32), jnp.float32))(2.7)
  try:
    h = jax.grad(lambda x: lax.bitcast_convert_type(x, jnp.int32).astype(jnp.float32))(2.7)
  except Exception as e:
    h = type(e).__name__
  return g, h


@program
def vmap_of_gather_scatter_and_dynamic_slice():
  dn = _scatter_dn()
  xs = jnp.arange(12.0).reshape(3, 4)
  idx = jnp.array([[[0]], [[3]], [[9]]])
  sc = jax.vmap(lambda x, i: lax.scatter_add(x, i, jnp.ones(1), dn, mode="drop"))(xs, idx)
  ds = jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(xs, jnp.array([-1, 1, 5]))
  dus = jax.vmap(lambda x, i: lax.dynamic_update_slice(x, jnp.array([9.0, 9.0]), (i,)))(
      xs, jnp.array([3, 0, -4]))
  return sc, ds, dus


@program
def vmap_of_sort_top_k_and_argmax():
  x = jnp.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])
  return (jax.vmap(lambda v: lax.sort((v, -v), num_keys=1))(x),
          jax.vmap(lambda v: lax.top_k(v, 2), in_axes=1)(x),
          jax.vmap(lambda v: lax.argmax(v, 0, jnp.int8))(x),
          jax.vmap(lambda v: lax.cumsum(v, reverse=True), in_axes=1, out_axes=1)(x))


# --- jax.random ------------------------------------------------------------------------------

@program(x64=True)
def random_normal_uniform_x64_dtypes_and_broadcast():
  k = jax.random.key(5)
  return (jax.random.normal(k, (2,), jnp.float32), jax.random.normal(k, (2,)),
          jax.random.uniform(k, (2, 3), minval=jnp.array([[0.0], [10.0]]), maxval=jnp.array([1.0, 2.0, 3.0]) + 10),
          jax.random.uniform(k, (2,), jnp.float32, minval=5, maxval=5),
          jax.random.normal(k, (), jnp.complex64))


@program
def random_uniform_minval_shape_mismatch_error():
  return jax.random.uniform(jax.random.key(0), (2,), minval=jnp.zeros(3))


@program(x64=True)
def random_randint_dtype_limits_x64():
  k = jax.random.key(9)
  return (jax.random.randint(k, (4,), -2 ** 63, 2 ** 63 - 1, jnp.int64),
          jax.random.randint(k, (4,), 0, 256, jnp.uint8),
          jax.random.randint(k, (4,), -1000, 1000, jnp.int8),
          jax.random.randint(k, (4,), 250, 10 ** 6, jnp.uint8),
          jax.random.randint(k, (3,), 10, 3))


@program
def random_randint_float_dtype_error():
  return jax.random.randint(jax.random.key(0), (2,), 0, 3, jnp.float32)


@program
def random_bernoulli_p_array_and_shape():
  k = jax.random.key(2)
  p = jnp.array([[0.1], [0.9]])
  return (jax.random.bernoulli(k, p, (2, 3)), jax.random.bernoulli(k, jnp.float32(0.5)),
          jax.random.bernoulli(k, 1.5, (3,)), jax.random.bernoulli(k, -0.5, (3,)))


@program
def random_bernoulli_shape_not_broadcastable_error():
  return jax.random.bernoulli(jax.random.key(0), jnp.ones(3) * 0.5, (2,))


@program
def random_categorical_axis_shape_and_neg_inf():
  k = jax.random.key(6)
  logits = jnp.array([[0.0, -jnp.inf, 1.0], [-jnp.inf, -jnp.inf, 0.0]])
  return (jax.random.categorical(k, logits, axis=-1, shape=(4, 2)),
          jax.random.categorical(k, logits.T, axis=0, shape=(3, 2)),
          jax.random.categorical(k, jnp.zeros((2, 5)), axis=1),
          jax.random.categorical(k, logits, shape=(2,), replace=False))


@program
def random_categorical_bad_shape_error():
  return jax.random.categorical(jax.random.key(0), jnp.zeros((2, 3)), shape=(4, 3))


@program
def random_choice_p_and_axis_and_shapes():
  k = jax.random.key(12)
  a = jnp.arange(12).reshape(3, 4)
  p = jnp.array([0.0, 0.5, 0.5, 0.0])
  return (jax.random.choice(k, a, (2, 2), replace=False, axis=1),
          jax.random.choice(k, a, (), axis=0), jax.random.choice(k, 4, (3,), replace=True, p=p),
          jax.random.choice(k, 4, (2,), replace=False, p=p), jax.random.choice(k, jnp.arange(3.0)))


@program
def random_choice_p_wrong_length_error():
  return jax.random.choice(jax.random.key(0), 5, (2,), p=jnp.ones(4) / 4)


@program
def random_choice_empty_error():
  return jax.random.choice(jax.random.key(0), 0, (2,))


@program
def random_permutation_axis_independent_and_2d():
  k = jax.random.key(14)
  m = jnp.arange(12).reshape(3, 4)
  return (jax.random.permutation(k, m, axis=0), jax.random.permutation(k, m, axis=-1, independent=True),
          jax.random.permutation(k, m, axis=0, independent=True), jax.random.permutation(k, jnp.int32(5)))


@program
def random_permutation_scalar_array_error():
  return jax.random.permutation(jax.random.key(0), jnp.float32(3.0))


@program(rtol=1e-4, atol=1e-6)
def random_gamma_beta_small_parameters():
  k = jax.random.key(15)
  return (jax.random.gamma(k, jnp.array([1e-3, 0.01, 0.1]), dtype=jnp.float32),
          jax.random.beta(k, jnp.array([0.05, 0.5, 2.0]), jnp.array([0.05, 3.0, 0.2])),
          jax.random.gamma(k, 2.0, (2, 2)), jax.random.loggamma(k, jnp.array([0.01, 1.0])))


@program(rtol=1e-4, atol=1e-6)
def random_dirichlet_small_alpha_and_batch():
  k = jax.random.key(16)
  return (jax.random.dirichlet(k, jnp.array([0.01, 0.01, 0.01])),
          jax.random.dirichlet(k, jnp.array([[1.0, 2.0], [0.5, 0.5]]), (3, 2)))


@program(x64=True, rtol=1e-8, atol=1e-10)
def random_gamma_dirichlet_x64():
  k = jax.random.key(17)
  return jax.random.gamma(k, jnp.array([0.3, 4.0])), jax.random.dirichlet(k, jnp.ones(3), dtype=jnp.float32)


@program
def random_truncated_normal_bounds_and_inf():
  k = jax.random.key(18)
  return (jax.random.truncated_normal(k, 5.0, 6.0, (3,)),
          jax.random.truncated_normal(k, -jnp.inf, jnp.inf, (3,)),
          jax.random.truncated_normal(k, 0.0, jnp.inf, (3,)),
          jax.random.truncated_normal(k, 1.0, 1.0, (2,)),
          jax.random.truncated_normal(k, jnp.array([[-1.0], [0.0]]), 1.0, (2, 2), jnp.float16))


@program
def random_split_fold_in_batched_keys():
  ks = jax.random.split(jax.random.key(3), 3)
  raw = jax.random.split(jax.random.PRNGKey(3), 3)
  return (jax.vmap(jax.random.split)(ks).shape, jax.random.key_data(jax.vmap(jax.random.split)(ks)),
          jax.vmap(jax.random.fold_in)(ks, jnp.arange(3)), jax.vmap(jax.random.fold_in, (0, None))(raw, 7),
          jax.random.fold_in(jax.random.key(3), jnp.uint32(2 ** 32 - 1)))


@program
def random_fold_in_batched_key_error():
  return jax.random.fold_in(jax.random.split(jax.random.key(0), 2), 1)


@program
def random_split_num_zero_and_shape_tuple():
  k = jax.random.key(4)
  return (jax.random.split(k, 0).shape, jax.random.key_data(jax.random.split(k, (1, 3))),
          jax.random.split(jax.random.PRNGKey(4), 1))


@program
def random_shape_and_dtype_argument_errors():
  try:
    a = jax.random.normal(jax.random.key(0), (2,), jnp.int32)
  except Exception as e:
    a = (type(e).__name__, str(e)[:60])
  try:
    b = jax.random.uniform(jax.random.key(0), 3)
  except Exception as e:
    b = type(e).__name__
  return a, b


@program
def random_misc_samplers_shape_args():
  k = jax.random.key(19)
  return (jax.random.rademacher(k, (4,), jnp.int8), jax.random.maxwell(k, (2,)),
          jax.random.double_sided_maxwell(k, 1.0, 2.0, (2,)), jax.random.weibull_min(k, 2.0, 1.5, (2,)),
          jax.random.pareto(k, jnp.array([1.0, 3.0])), jax.random.t(k, 3.0, (2,)),
          jax.random.chisquare(k, 2.0, (2,)), jax.random.f(k, 2.0, 5.0, (2,)),
          jax.random.binomial(k, 10, jnp.array([0.2, 0.9])), jax.random.triangular(k, 0.0, 0.5, 1.0, (2,)),
          jax.random.ball(k, 2, shape=(2,)), jax.random.orthogonal(k, 2))


# --- jax.nn -----------------------------------------------------------------------------------

@program
def nn_softmax_where_and_initial():
  x = jnp.array([[1.0, 2.0, 3.0], [1.0, -jnp.inf, 0.0]])
  mask = jnp.array([[True, False, True], [False, False, False]])
  return (jax.nn.softmax(x, where=mask), jax.nn.log_softmax(x, where=mask),
          jax.nn.softmax(x, axis=0), jax.nn.softmax(jnp.array([-jnp.inf, -jnp.inf])))


@program
def nn_log_softmax_axis_tuple_and_int_input():
  x = jnp.arange(12.0).reshape(2, 3, 2)
  return (jax.nn.log_softmax(x, axis=(0, 2)), jax.nn.softmax(x, axis=(1, 2)),
          jax.nn.softmax(jnp.array([1, 2, 3])))


@program
def nn_gelu_approximate_flag_and_dtypes():
  x = jnp.array([-3.0, -0.5, 0.0, 0.5, 3.0])
  return (jax.nn.gelu(x), jax.nn.gelu(x, approximate=False), jax.nn.gelu(x.astype(jnp.float16)),
          jax.nn.gelu(x.astype(jnp.bfloat16), approximate=False), jax.nn.gelu(1.0))


@program
def nn_one_hot_negative_out_of_range_and_dtype():
  i = jnp.array([0, -1, 3, 5, 2])
  return (jax.nn.one_hot(i, 4), jax.nn.one_hot(i, 4, dtype=jnp.int8), jax.nn.one_hot(i, 4, axis=0),
          jax.nn.one_hot(jnp.array([1.7, -0.2]), 3), jax.nn.one_hot(jnp.array([[1], [2]]), 3, dtype=jnp.bool_))


@program
def nn_one_hot_bad_num_classes_error():
  return jax.nn.one_hot(jnp.arange(3), 2.5)


@program
def nn_logsumexp_b_and_return_sign():
  x = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
  b = jnp.array([[1.0, -1.0, 0.5], [-1.0, -1.0, 0.0]])
  return (jax.nn.logsumexp(x, axis=1, b=b, return_sign=True), jax.nn.logsumexp(x, b=b),
          jax.nn.logsumexp(x, axis=1, keepdims=True, b=2.0),
          jax.nn.logsumexp(jnp.array([-jnp.inf, -jnp.inf]), return_sign=True),
          jax.nn.logsumexp(x, axis=(0, 1), where=x > 0.5))


@program
def nn_standardize_and_glu():
  x = jnp.array([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
  return (jax.nn.standardize(x), jax.nn.standardize(x, axis=0, epsilon=0.5),
          jax.nn.standardize(x, mean=jnp.zeros((2, 1)), variance=jnp.ones((2, 1))),
          jax.nn.glu(x), jax.nn.glu(x, axis=0), jax.nn.standardize(x, where=x > 1.5))


@program
def nn_glu_odd_axis_error():
  return jax.nn.glu(jnp.ones((2, 3)))


@program
def nn_activations_at_edges():
  x = jnp.array([-jnp.inf, -1.0, 0.0, 1.0, jnp.inf, jnp.nan])
  return (jax.nn.relu6(x), jax.nn.hard_tanh(x), jax.nn.silu(x), jax.nn.softplus(x),
          jax.nn.log_sigmoid(x), jax.nn.elu(x, alpha=2.0), jax.nn.celu(x, alpha=0.5),
          jax.nn.selu(x), jax.nn.leaky_relu(x, 0.2), jax.nn.squareplus(x), jax.nn.sparse_plus(x),
          jax.nn.hard_sigmoid(x), jax.nn.mish(x))


@program
def nn_grads_at_kinks():
  return (jax.grad(jax.nn.relu6)(6.0), jax.grad(jax.nn.relu6)(0.0), jax.grad(jax.nn.hard_tanh)(1.0),
          jax.grad(jax.nn.elu)(0.0), jax.grad(jax.nn.leaky_relu)(0.0), jax.grad(jax.nn.celu)(0.0),
          jax.grad(lambda x: jax.nn.softmax(x, where=jnp.array([True, False]))[0])(jnp.ones(2)))


@program
def nn_initializers_shapes_dtypes():
  init = submodule("nn.initializers")
  k = jax.random.key(20)
  return (init.glorot_uniform()(k, (3, 2)), init.he_normal(in_axis=0, out_axis=1)(k, (2, 2), jnp.float16),
          init.lecun_normal(batch_axis=0)(k, (2, 3, 2)), init.orthogonal(scale=2.0)(k, (2, 3)),
          init.constant(-1, jnp.int8)(k, (2,)), init.variance_scaling(1.0, "fan_avg", "uniform")(k, (4, 2)),
          init.truncated_normal(0.5)(k, (3,)), init.delta_orthogonal()(k, (3, 2, 2)))


@program
def nn_initializer_bad_mode_error():
  init = submodule("nn.initializers")
  return init.variance_scaling(1.0, "fan_sideways", "normal")(jax.random.key(0), (2, 2))


# --- second batch: more elementwise, structural and transform edges ---------------------------

@program
def max_min_nan_and_signed_zero():
  a = jnp.array([jnp.nan, 1.0, 0.0, -0.0])
  b = jnp.array([1.0, jnp.nan, -0.0, 0.0])
  mx, mn = lax.max(a, b), lax.min(a, b)
  return mx, mn, jnp.signbit(mx), jnp.signbit(mn)


@program
def abs_neg_sign_of_int_extremes():
  i = jnp.array([-128, 127, 0], jnp.int8)
  u = jnp.array([0, 1, 255], jnp.uint8)
  f = jnp.array([-0.0, jnp.nan, -jnp.inf])
  return (lax.abs(i), lax.neg(i), lax.sign(i), lax.neg(u), lax.sign(u), lax.sign(f),
          jnp.signbit(lax.sign(f)), lax.sign(jnp.array([3 - 4j, 0j], jnp.complex64)))


@program
def pow_with_int_exponent_and_edges():
  x = jnp.array([0.0, -2.0, 2.0, -8.0, jnp.inf])
  return (lax.pow(x, jnp.array([0, 3, -2, 1, -1], jnp.int32)),
          lax.pow(x, jnp.array([0.0, 0.5, -2.0, 1 / 3, 0.0])),
          lax.pow(jnp.array([2 + 0j], jnp.complex64), jnp.array([2], jnp.int32)))


@program
def exp2_log_and_logistic_extremes():
  x = jnp.array([-200.0, -1.0, 0.0, 1.0, 200.0, jnp.nan])
  return (lax.exp2(x), lax.logistic(x), lax.log(jnp.array([-1.0, 0.0, -0.0])), lax.log1p(jnp.array([-1.0, -2.0])),
          lax.expm1(jnp.array([1e-10, -jnp.inf])), lax.tanh(x))


@program
def atan2_and_complex_of_mixed_error():
  z = lax.atan2(jnp.array([0.0, -0.0, 0.0, -0.0]), jnp.array([0.0, 0.0, -0.0, -0.0]))
  try:
    c = lax.complex(jnp.ones(2), jnp.ones(2, jnp.float16))
  except Exception as e:
    c = type(e).__name__
  return z, c


@program
def complex_of_int_error():
  return lax.complex(jnp.arange(2), jnp.arange(2))


@program
def transpose_bad_permutation_error():
  return lax.transpose(jnp.ones((2, 3)), (0, 0))


@program
def concatenate_dtype_mismatch_error():
  return lax.concatenate([jnp.ones(2), jnp.ones(2, jnp.int32)], 0)


@program
def rev_negative_dimension_and_full_weak():
  return (lax.rev(jnp.arange(6).reshape(2, 3), (1,)), lax.full((2,), 3), lax.full((2,), 3.0),
          lax.full((), True), lax.full_like(jnp.ones(2, jnp.int8), 300),
          lax.full_like(jnp.arange(3), 2.5, jnp.float16, (1, 2)))


@program
def rev_negative_dimension_error():
  return lax.rev(jnp.arange(6).reshape(2, 3), (-1,))


@program
def iota_and_broadcasted_iota_dtypes():
  return (lax.iota(jnp.uint8, 4), lax.iota(jnp.int8, 3), lax.broadcasted_iota(jnp.float32, (2, 2), 0),
          lax.broadcasted_iota(jnp.bool_, (3,), 0) if False else lax.iota(jnp.bfloat16, 3))


@program
def pad_config_length_mismatch_error():
  return lax.pad(jnp.ones((2, 2)), 0.0, [(1, 1, 0)])


@program
def dynamic_update_slice_update_too_large_error():
  return lax.dynamic_update_slice(jnp.zeros(3), jnp.ones(4), (0,))


@program(x64=True)
def dynamic_slice_mixed_index_dtypes_x64_error():
  x = jnp.arange(12).reshape(3, 4)
  return lax.dynamic_slice(x, (jnp.int64(1), jnp.int32(2)), (2, 2))


@program(x64=True)
def dynamic_slice_python_int_with_typed_index_x64():
  x = jnp.arange(12).reshape(3, 4)
  return (lax.dynamic_slice(x, (1, jnp.uint8(3)), (1, 2)),
          lax.dynamic_update_slice(x, jnp.zeros((1, 2), jnp.int64), (jnp.int16(-1), 3)),
          lax.dynamic_slice(x, (jnp.int32(-9), 2), (2, 2)))


@program
def sort_dimension_negative_and_out_of_range():
  x = jnp.array([[3, 1, 2], [0, -1, 5]])
  a = lax.sort(x, dimension=-1)
  try:
    b = lax.sort(x, dimension=2)
  except Exception as e:
    b = type(e).__name__
  return a, b, lax.sort(x, dimension=0, is_stable=False)


@program
def top_k_zero_and_negative_k():
  a = lax.top_k(jnp.arange(3.0), 0)
  try:
    b = lax.top_k(jnp.arange(3.0), -1)
  except Exception as e:
    b = (type(e).__name__, str(e)[:50])
  return a, b


@program
def top_k_on_bool_and_axis_argument():
  return lax.top_k(jnp.array([False, True, True]), 2), lax.top_k(jnp.arange(6.0).reshape(2, 3) % 4, 1)


@program
def argmax_of_empty_axis_error():
  return lax.argmax(jnp.ones((2, 0)), 1, jnp.int32)


@program
def reduce_max_of_empty_and_reduce_ops():
  e = jnp.ones((0, 3))
  return (lax.reduce_max(e, (0,)), lax.reduce_min(e.astype(jnp.int8), (0,)),
          lax.reduce_prod(e, (0,)), lax.reduce_and(jnp.ones((0,), bool), (0,)),
          lax.reduce_or(jnp.array([[True, False]]), (1,)), lax.reduce_xor(jnp.array([3, 5, 6], jnp.uint8), (0,)))


@program
def cumulative_with_nans():
  x = jnp.array([1.0, jnp.nan, 3.0, 0.0])
  return lax.cummax(x), lax.cummin(x), lax.cumsum(x, reverse=True), lax.cumlogsumexp(x)


@program
def reduce_precision_of_half_types_and_int_error():
  h = jnp.array([1.0009765625, 3.5], jnp.float16)
  b = lax.reduce_precision(h, exponent_bits=5, mantissa_bits=2)
  c = lax.reduce_precision(jnp.array([1.0, 300.0], jnp.bfloat16), exponent_bits=4, mantissa_bits=3)
  try:
    d = lax.reduce_precision(jnp.arange(3), exponent_bits=5, mantissa_bits=2)
  except Exception as e:
    d = type(e).__name__
  return b, c, d


@program
def erf_inv_and_specials_float16_bfloat16():
  x16 = jnp.array([-0.99, 0.0, 0.5], jnp.float16)
  xb = jnp.array([0.25, 3.0], jnp.bfloat16)
  return (lax.erf_inv(x16), lax.lgamma(xb), lax.digamma(xb), lax.bessel_i0e(x16), lax.erf(x16),
          lax.igamma(xb, xb))


@program(rtol=1e-4, atol=1e-6)
def polygamma_zeta_edges():
  return (lax.polygamma(jnp.array([0.0, 1.0, 3.0, 1.5]), jnp.array([2.0, -1.5, 0.0, 1.0])),
          lax.zeta(jnp.array([0.5, 2.0, 2.0, 4.0]), jnp.array([1.0, 0.0, -1.0, -2.5])))


@program(rtol=1e-4, atol=1e-6)
def igamma_grad_a_and_random_gamma_grad_edges():
  return (lax.igamma_grad_a(jnp.array([0.5, 3.0, 10.0]), jnp.array([0.1, 3.0, 0.0])),
          lax.random_gamma_grad(jnp.array([1.0, 1e-3, 50.0]), jnp.array([0.5, 1e-10, 49.0])))


@program
def gather_operand_batching_dims():
  x = jnp.arange(24.0).reshape(2, 4, 3)
  idx = jnp.array([[1], [3]])
  dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
                                  operand_batching_dims=(0,), start_indices_batching_dims=(0,))
  return lax.gather(x, idx, dn, (1, 1, 3))


@program
def scatter_apply_and_operand_batching_dims():
  x = jnp.arange(6.0).reshape(2, 3)
  dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,),
                                   scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                                   scatter_indices_batching_dims=(0,))
  a = lax.scatter_add(x, jnp.array([[2], [0]]), jnp.array([10.0, 20.0]), dn)
  b = lax.scatter_apply(jnp.arange(4.0), jnp.array([[1], [3], [7]]), lambda v: v * 100, _scatter_dn(),
                        update_shape=(3,), mode="drop")
  return a, b


@program
def gather_indices_not_integer_error():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
  return lax.gather(jnp.arange(4.0), jnp.array([[1.0]]), dn, (1,))


@program
def scatter_update_shape_mismatch_error():
  return lax.scatter_add(jnp.zeros(4), jnp.array([[1], [2]]), jnp.ones(3), _scatter_dn())


@program
def approx_max_k_and_min_k():
  x = jnp.array([[1.0, 9.0, 3.0, 7.0], [4.0, 4.0, -1.0, 0.0]])
  return lax.approx_max_k(x, 2), lax.approx_min_k(x, 2), lax.approx_max_k(x, 1, reduction_dimension=0)


@program
def rng_bit_generator_shapes_and_dtypes():
  key = jnp.array([1, 2, 3, 4], jnp.uint32)
  k2, bits = lax.rng_bit_generator(key, (2, 3), dtype=jnp.uint8)
  return k2.shape, bits.shape, bits.dtype.name


# --- second batch: gradients -------------------------------------------------------------------

@program
def grad_rem_div_atan2_at_edges():
  return (jax.grad(lambda x, y: lax.rem(x, y), argnums=(0, 1))(5.5, 2.0),
          jax.grad(lambda x, y: lax.rem(x, y), argnums=(0, 1))(-5.5, 2.0),
          jax.grad(lambda x, y: lax.atan2(x, y), argnums=(0, 1))(0.0, 0.0),
          jax.grad(lambda x, y: lax.pow(x, y), argnums=(0, 1))(0.0, 0.0),
          jax.grad(lambda x, y: lax.pow(x, y), argnums=(0, 1))(0.0, 2.0))


@program
def grad_special_at_poles_and_bounds():
  return (jax.grad(lax.erf_inv)(1.0), jax.grad(lax.lgamma)(0.0), jax.grad(lax.lgamma)(-1.0),
          jax.grad(lax.digamma)(-2.0), jax.grad(lax.cbrt)(0.0), jax.grad(lax.logistic)(100.0),
          jax.grad(lambda x: lax.igammac(2.0, x))(0.0), jax.grad(lax.log)(0.0))


@program
def grad_abs_complex_and_sign():
  return (jax.grad(lambda z: lax.abs(z))(3.0 + 4.0j), jax.grad(lambda z: lax.abs(z))(0j),
          jax.grad(lax.sign)(2.0), jax.grad(lambda x: lax.abs(x))(-0.0))


@program
def jvp_cummax_sort_and_reduce_window_ties():
  x = jnp.array([1.0, 3.0, 3.0, 2.0])
  t = jnp.array([1.0, 10.0, 100.0, 1000.0])
  return (jax.jvp(lax.cummax, (x,), (t,)), jax.jvp(lax.cummin, (x,), (t,)),
          jax.jvp(lax.sort, (x,), (t,)),
          jax.jvp(lambda v: lax.reduce_window(v, -jnp.inf, lax.max, (2,), (1,), "VALID"), (x,), (t,)),
          jax.jvp(lambda v: lax.reduce_window(v, jnp.inf, lax.min, (3,), (1,), "SAME"), (x,), (t,)))


@program
def grad_scatter_min_max_ties():
  dn = _scatter_dn()
  idx = jnp.array([[0], [0], [1]])

  def f(x, u):
    return jnp.sum(lax.scatter_max(x, idx, u, dn) * jnp.array([1.0, 2.0, 3.0]))

  def g(x, u):
    return jnp.sum(lax.scatter_min(x, idx, u, dn) * jnp.array([1.0, 2.0, 3.0]))

  x = jnp.array([2.0, 5.0, 0.0])
  u = jnp.array([2.0, 2.0, 4.0])
  return jax.grad(f, argnums=(0, 1))(x, u), jax.grad(g, argnums=(0, 1))(x, u)


@program
def grad_top_k_ties_and_argsort():
  f = lambda v: jnp.sum(lax.top_k(v, 2)[0] * jnp.array([1.0, 10.0]))
  return jax.grad(f)(jnp.array([5.0, 1.0, 5.0, 5.0])), jax.grad(f)(jnp.array([jnp.nan, 1.0, 2.0]))


@program
def grad_dynamic_slice_int_index_allow_int():
  f = lambda x, i: jnp.sum(lax.dynamic_slice(x, (i,), (2,)))
  g = jax.grad(f, argnums=(0, 1), allow_int=True)(jnp.arange(4.0), 3)
  return g[0], str(g[1].dtype), g[1].shape


@program
def grad_reduce_window_generic_min_and_mul():
  x = jnp.array([3.0, 1.0, 2.0, 2.0])
  a = jax.grad(lambda v: jnp.sum(lax.reduce_window(v, jnp.inf, lax.min, (2,), (1,), "VALID")))(x)
  b = jax.grad(lambda v: jnp.sum(lax.reduce_window(v, -jnp.inf, lax.max, (2,), (2,), "VALID",
                                                  base_dilation=(2,))))(x)
  return a, b


@program
def grad_reduce_window_custom_function_error():
  f = lambda v: jnp.sum(lax.reduce_window(v, 0.0, lambda a, b: a + 2 * b, (2,), (1,), "VALID"))
  return jax.grad(f)(jnp.ones(3))


@program(rtol=1e-5, atol=1e-5)
def grad_conv_strided_dilated_nhwc():
  x = jnp.arange(1 * 5 * 5 * 2, dtype=jnp.float32).reshape(1, 5, 5, 2) / 50
  w = jnp.arange(3 * 3 * 1 * 4, dtype=jnp.float32).reshape(3, 3, 1, 4) / 20 - 0.5

  def f(x, w):
    y = lax.conv_general_dilated(x, w, (2, 2), [(1, 2), (0, 1)], rhs_dilation=(1, 2),
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)
    return jnp.sum(jnp.tanh(y))

  return jax.grad(f, argnums=(0, 1))(x, w)


@program(rtol=1e-5, atol=1e-5)
def vmap_of_conv_and_reduce_window():
  xs = jnp.arange(3 * 1 * 2 * 5, dtype=jnp.float32).reshape(3, 1, 2, 5) / 10
  w = jnp.arange(4 * 1 * 2, dtype=jnp.float32).reshape(4, 1, 2) - 2
  conv = jax.vmap(lambda x: lax.conv_general_dilated(x, w, (1,), "SAME", feature_group_count=2))(xs)
  wb = jnp.stack([w, -w])
  conv2 = jax.vmap(lambda w_: lax.conv_general_dilated(xs[0], w_, (2,), "VALID",
                                                       feature_group_count=2))(wb)
  rw = jax.vmap(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2), (1, 1, 2), "SAME"))(xs)
  return conv, conv2, rw


@program
def vmap_of_gather_fill_and_top_k_axis():
  x = jnp.arange(12.0).reshape(3, 4)
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
  g = jax.vmap(lambda v, i: lax.gather(v, i, dn, (1,), mode="fill", fill_value=-1.0))(
      x, jnp.array([[[0], [5]], [[3], [-1]], [[2], [4]]]))
  u = jax.vmap(lambda u_: lax.dynamic_update_slice(jnp.zeros(4), u_, (3,)))(jnp.ones((2, 2)))
  return g, u


@program
def linear_transpose_of_gather_and_pad():
  dn = _rows_dn()
  f = lambda x: lax.gather(x, jnp.array([[1], [1], [0]]), dn, (1, 2))
  ft = jax.linear_transpose(f, jnp.ones((3, 2)))
  p = jax.linear_transpose(lambda x: lax.pad(x, 0.0, [(1, -1, 1)]), jnp.ones(3))
  return ft(jnp.arange(6.0).reshape(3, 2)), p(jnp.arange(5.0))


@program
def hessian_of_cumlogsumexp_and_logsumexp_b():
  h = jax.hessian(lambda v: lax.cumlogsumexp(v)[-1])(jnp.array([0.0, 1.0, 2.0]))
  g = jax.grad(lambda v: jax.nn.logsumexp(v, b=jnp.array([1.0, -0.5, 2.0])))(jnp.array([0.0, 1.0, 2.0]))
  return h, g


# --- second batch: random ----------------------------------------------------------------------

@program(x64=True)
def random_keys_from_large_and_negative_seeds_x64():
  return (jax.random.PRNGKey(-1), jax.random.PRNGKey(2 ** 32 + 5), jax.random.PRNGKey(2 ** 63 - 1),
          jax.random.key_data(jax.random.key(-7)), jax.random.PRNGKey(jnp.uint32(7)))


@program
def random_key_seed_overflow_error():
  return jax.random.PRNGKey(2 ** 40)


@program
def random_key_float_seed_error():
  return jax.random.PRNGKey(1.5)


@program
def random_rbg_impl_keys():
  k = jax.random.key(3, impl="rbg")
  return (str(k.dtype), jax.random.key_data(k).shape, jax.random.uniform(k, (3,)).shape,
          jax.random.key_data(jax.random.split(k)).shape, str(jax.random.key_impl(k)))


@program
def random_bits_float_dtype_error():
  return jax.random.bits(jax.random.key(0), (2,), jnp.float32)


@program
def random_uniform_int_dtype_error():
  return jax.random.uniform(jax.random.key(0), (2,), jnp.int32)


@program
def random_poisson_binomial_geometric_edges():
  k = jax.random.key(22)
  return (jax.random.poisson(k, jnp.array([0.0, -1.0, 1e-3, 5.0])),
          jax.random.binomial(k, jnp.array([0.0, 5.0, 5.0, 7.0]), jnp.array([0.5, 0.0, 1.0, 0.5])),
          jax.random.geometric(k, jnp.array([1.0, 0.999])),
          jax.random.poisson(k, 3.0, (2,), jnp.int16))


@program(rtol=1e-4, atol=1e-5)
def random_multivariate_normal_methods():
  k = jax.random.key(23)
  mean = jnp.array([1.0, -1.0])
  cov = jnp.array([[2.0, 0.5], [0.5, 1.0]])
  return (jax.random.multivariate_normal(k, mean, cov, (2,)),
          jax.random.multivariate_normal(k, mean, cov, method="eigh"),
          jax.random.multivariate_normal(k, mean, cov, method="svd"))


@program
def random_multivariate_normal_bad_method_error():
  return jax.random.multivariate_normal(jax.random.key(0), jnp.zeros(2), jnp.eye(2), method="qr")


@program(rtol=1e-4, atol=1e-6)
def random_generalized_normal_and_gumbel_modes():
  k = jax.random.key(24)
  return (jax.random.generalized_normal(k, 1.0, (3,)), jax.random.generalized_normal(k, 4.0, (2,)),
          jax.random.gumbel(k, (3,), mode="high"), jax.random.rademacher(k, (3,), jnp.float32),
          jax.random.logistic(k, (2,), jnp.float16))


@program(x64=True)
def random_samplers_x64_default_dtypes():
  k = jax.random.key(25)
  out = (jax.random.randint(k, (2,), 0, 5), jax.random.bits(k, (2,)), jax.random.poisson(k, 2.0, (2,)),
         jax.random.bernoulli(k, 0.5, (2,)), jax.random.choice(k, 5, (2,)), jax.random.permutation(k, 4),
         jax.random.categorical(k, jnp.zeros(3), shape=(2,)), jax.random.gamma(k, 1.0, (2,)),
         jax.random.binomial(k, 3.0, 0.5, (2,)), jax.random.geometric(k, 0.5, (2,)))
  return tuple(str(o.dtype) for o in out), out[0], out[1]


@program
def random_choice_replace_false_p_zero_mass():
  k = jax.random.key(26)
  p = jnp.array([0.5, 0.0, 0.5, 0.0])
  return jax.random.choice(k, 4, (3,), replace=False, p=p), jax.random.choice(k, 4, (0,), replace=False)


# --- second batch: nn --------------------------------------------------------------------------

@program(rtol=1e-5, atol=1e-6)
def nn_dot_product_attention_masks_and_bias():
  k = jax.random.key(27)
  q = jax.random.normal(k, (1, 3, 2, 4))
  kk = jax.random.normal(jax.random.fold_in(k, 1), (1, 5, 2, 4))
  v = jax.random.normal(jax.random.fold_in(k, 2), (1, 5, 2, 4))
  mask = jnp.array([True, True, False, True, False])[None, None, None, :]
  bias = jnp.arange(5.0)[None, None, None, :] / 10
  return (jax.nn.dot_product_attention(q, kk, v), jax.nn.dot_product_attention(q, kk, v, mask=mask),
          jax.nn.dot_product_attention(q, kk, v, bias=bias, scale=0.3),
          jax.nn.dot_product_attention(q, kk, v, is_causal=True))


@program(rtol=1e-5, atol=1e-6)
def nn_dot_product_attention_gqa_and_lengths():
  k = jax.random.key(28)
  q = jax.random.normal(k, (2, 3, 4, 2))
  kk = jax.random.normal(jax.random.fold_in(k, 1), (2, 3, 2, 2))
  v = jax.random.normal(jax.random.fold_in(k, 2), (2, 3, 2, 2))
  return (jax.nn.dot_product_attention(q, kk, v),
          jax.nn.dot_product_attention(q, kk, v, key_value_seq_lengths=jnp.array([1, 3])),
          jax.nn.dot_product_attention(q, kk, v, local_window_size=(1, 0)))


@program
def nn_dot_product_attention_bad_heads_error():
  q = jnp.ones((1, 2, 3, 4))
  kv = jnp.ones((1, 2, 2, 4))
  return jax.nn.dot_product_attention(q, kv, kv)


@program
def nn_activations_int_inputs_and_weak_types():
  i = jnp.array([-2, 0, 3])
  return (jax.nn.relu(i), jax.nn.relu6(i), jax.nn.relu(2.0), jax.nn.softplus(0),
          jax.nn.silu(jnp.float16(1.0)), jax.nn.gelu(jnp.array([1, 2])), jax.nn.leaky_relu(i))


@program
def nn_logsumexp_empty_int_and_where_all_false():
  return (jax.nn.logsumexp(jnp.zeros((0,))), jax.nn.logsumexp(jnp.array([1, 2])),
          jax.nn.logsumexp(jnp.ones(3), where=jnp.zeros(3, bool)),
          jax.nn.log_softmax(jnp.ones(3), where=jnp.zeros(3, bool)),
          jax.nn.logsumexp(jnp.array([1.0, jnp.inf]), b=jnp.array([1.0, 0.0])))


@program
def nn_one_hot_num_classes_zero_and_bool():
  return (jax.nn.one_hot(jnp.arange(2), 0).shape,
          jax.nn.one_hot(jnp.uint8(3), 5, dtype=jnp.int32), jax.nn.one_hot(2, 3))


@program
def nn_one_hot_bool_input_error():
  return jax.nn.one_hot(jnp.array([True, False]), 2)


@program
def nn_sigmoid_of_int_error():
  return jax.nn.sigmoid(1)


@program
def nn_misc_functions():
  x = jnp.array([[1.0, -2.0, 3.0], [0.0, 0.5, -0.5]])
  out = [jax.nn.swish(x), jax.nn.log1mexp(-x ** 2 - 0.1) if hasattr(jax.nn, "log1mexp") else x,
         jax.nn.glu(jnp.ones((2, 4)) * 2), jax.nn.softmax(x, axis=None)]
  try:
    out.append(jax.nn.logmeanexp(x, axis=1))
  except AttributeError:
    out.append("none")
  return tuple(out)


# --- third batch: low precision special functions, weak types, predicates ---------------------

@program
def bessel_i0e_i1e_float16_and_bfloat16():
  x16 = jnp.array([0.0, 0.5, 4.0, -20.0], jnp.float16)
  xb = jnp.array([0.0, 0.5, 4.0, -20.0], jnp.bfloat16)
  return lax.bessel_i0e(x16), lax.bessel_i1e(x16), lax.bessel_i0e(xb), lax.bessel_i1e(xb)


@program(rtol=2e-3, atol=2e-3)
def special_functions_float16_more():
  x = jnp.array([0.1, 1.5, 6.0], jnp.float16)
  return (lax.lgamma(x), lax.digamma(x), lax.igammac(x, x), lax.betainc(x, x, x / 8),
          lax.erf_inv(x / 8), lax.logistic(-x * 20), lax.erfc(x), lax.cumlogsumexp(x),
          lax.polygamma(jnp.ones(3, jnp.float16), x), lax.zeta(x + 1, x))


@program
def bitcast_same_type_bool_and_complex():
  return (lax.bitcast_convert_type(jnp.array([True, False]), jnp.bool_),
          lax.bitcast_convert_type(jnp.array([1 + 2j], jnp.complex64), jnp.complex64))


@program
def bitcast_complex_to_float_error():
  return lax.bitcast_convert_type(jnp.array([1 + 2j], jnp.complex64), jnp.float32)


@program
def select_n_int8_uint32_and_bool_single_case():
  return (lax.select_n(jnp.array([1, 0], jnp.int8), jnp.zeros(2), jnp.ones(2)),
          lax.select_n(jnp.array([2, 0], jnp.uint32), jnp.zeros(2), jnp.ones(2), jnp.full(2, 2.0)),
          lax.select_n(jnp.array([False, False]), jnp.ones(2)),
          lax.select_n(jnp.int16(0), jnp.ones(2)))


@program
def select_n_float_which_error():
  return lax.select_n(jnp.float32(0.0), jnp.ones(2), jnp.zeros(2))


@program
def select_n_no_cases_error():
  return lax.select_n(jnp.int32(0))


@program
def nn_activation_weak_types_python_scalars():
  return (jax.nn.relu6(2), jax.nn.hard_tanh(2.0), jax.nn.elu(-1.0), jax.nn.celu(-1.0),
          jax.nn.selu(1.0), jax.nn.log_sigmoid(1.0), jax.nn.silu(1.0), jax.nn.squareplus(1.0),
          jax.nn.mish(1.0), jax.nn.hard_sigmoid(1.0), jax.nn.hard_silu(1.0), jax.nn.soft_sign(1.0),
          jax.nn.sparse_plus(0.5), jax.nn.sparse_sigmoid(0.5), jax.nn.leaky_relu(-1.0))


@program
def nn_activation_int_arrays():
  i = jnp.array([-2, 0, 3])
  out = []
  for f in (jax.nn.hard_tanh, jax.nn.elu, jax.nn.celu, jax.nn.selu, jax.nn.soft_sign,
            jax.nn.squareplus, jax.nn.sparse_plus, jax.nn.hard_sigmoid, jax.nn.silu, jax.nn.mish,
            jax.nn.log_sigmoid, jax.nn.softplus, jax.nn.relu6):
    try:
      out.append(f(i))
    except Exception as e:
      out.append(type(e).__name__)
  return tuple(out)


@program
def nn_float16_softmax_logsumexp_standardize():
  x = jnp.array([[10.0, 11.0, 12.0], [-60000.0, 0.0, 60000.0]], jnp.float16)
  return (jax.nn.softmax(x), jax.nn.log_softmax(x), jax.nn.logsumexp(x, axis=1),
          jax.nn.standardize(x, axis=1), jax.nn.logsumexp(x.astype(jnp.bfloat16), axis=1, return_sign=True))


@program
def nn_logsumexp_return_sign_int_and_complex_b():
  x = jnp.array([1.0, 2.0])
  return (jax.nn.logsumexp(jnp.array([1, 2]), b=jnp.array([1, -2]), return_sign=True),
          jax.nn.logsumexp(x, b=jnp.array([-1.0, -1.0])), jax.nn.logsumexp(x, b=0.0, return_sign=True))


@program
def nn_softmax_where_without_initial_and_grad():
  x = jnp.array([1.0, 2.0, 3.0])
  m = jnp.array([True, False, True])
  return (jax.grad(lambda v: jnp.sum(jax.nn.log_softmax(v, where=m) * jnp.where(m, 1.0, 0.0)))(x),
          jax.jvp(lambda v: jax.nn.softmax(v, where=m), (x,), (jnp.ones(3),)))


@program
def convert_element_type_complex_to_int_and_bool():
  c = jnp.array([1.7 + 2j, -0.0 + 1j], jnp.complex64)
  return lax.convert_element_type(c, jnp.int32), lax.convert_element_type(c, jnp.bool_)


@program
def reduce_window_float16_sum_and_cumsum_precision():
  x = jnp.full((2048,), 1.0, jnp.float16)
  return (lax.reduce_window(x, jnp.float16(0), lax.add, (2048,), (1,), "VALID"),
          lax.cumsum(x)[-1], lax.reduce_sum(x, (0,)) if hasattr(lax, "reduce_sum") else jnp.sum(x))


@program
def integer_pow_float16_overflow_and_weak():
  return (lax.integer_pow(jnp.float16(300.0), 2), lax.integer_pow(2.0, 3), lax.integer_pow(jnp.int8(-2), 7),
          lax.square(jnp.array([100], jnp.int8)), lax.integer_pow(jnp.bfloat16(3.0), -2))
