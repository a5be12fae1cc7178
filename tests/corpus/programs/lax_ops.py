"""jax.lax as users call it: strict typing, dot_general and convolutions, windows and cumulative
ops, sorting, slicing with clamping, gathers, special functions, bit and integer arithmetic,
rounding, padding, and the control-flow primitives' forward values."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


@program
def lax_add_of_int_and_float_is_an_error():
  return lax.add(jnp.int32(1), jnp.float32(2.0))


@program
def lax_add_of_python_scalars_and_arrays():
  a = lax.add(jnp.float32(1.0), 2.0)
  b = lax.mul(jnp.arange(3), 2)
  c = lax.sub(jnp.int8(3), jnp.arange(3, dtype=jnp.int8))
  return a, b, c


@program
def lax_sub_of_python_int_and_int8_is_an_error():
  return lax.sub(3, jnp.arange(3, dtype=jnp.int8))


@program
def lax_add_of_float16_and_float32_is_an_error():
  return lax.add(jnp.ones(2, jnp.float16), jnp.ones(2, jnp.float32))


@program
def lax_shape_mismatch_is_an_error():
  return lax.mul(jnp.ones(2), jnp.ones(3))


@program
def dot_general_batch_and_contracting_dims():
  a = jnp.arange(12.0).reshape(2, 3, 2)
  b = jnp.arange(12.0).reshape(2, 2, 3)
  dn = (((2,), (1,)), ((0,), (0,)))
  return lax.dot_general(a, b, dn), lax.dot_general(a, a, (((1,), (1,)), ((), ())))


@program
def dot_general_preferred_element_type():
  a = jnp.array([[100, 100], [1, 2]], jnp.int8)
  b = jnp.array([[2, 1], [1, 3]], jnp.int8)
  i32 = lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32)
  f16 = jnp.ones((2, 3), jnp.float16)
  f32 = lax.dot_general(f16, f16.T, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
  return i32, f32, str(jax.make_jaxpr(lambda x, y: lax.dot(x, y, preferred_element_type=jnp.int32))(a, b))


@program
def dot_general_dimension_numbers_error():
  return lax.dot_general(jnp.ones((2, 3)), jnp.ones((2, 3)), (((1,), (1,)), ((0,), (1,))))


@program
def conv_general_dilated_small_cases():
  x = jnp.arange(16.0).reshape(1, 1, 4, 4)
  w = jnp.array([[[[1.0, 0.0], [0.0, -1.0]]]])
  valid = lax.conv_general_dilated(x, w, (1, 1), "VALID")
  same = lax.conv_general_dilated(x, w, (2, 2), "SAME")
  dil = lax.conv_general_dilated(x, w, (1, 1), [(1, 1), (1, 1)], lhs_dilation=(1, 1),
                                 rhs_dilation=(2, 2))
  return valid, same, dil


@program
def conv_general_dilated_nhwc_and_groups():
  x = jnp.arange(2 * 3 * 3 * 4, dtype=jnp.float32).reshape(2, 3, 3, 4) / 10
  w = jnp.ones((2, 2, 2, 4), jnp.float32)  # HWIO with 2 input channels per group
  out = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                 feature_group_count=2)
  return out.shape, out


@program
def conv_1d_with_lhs_dilation():
  x = jnp.array([[[1.0, 2.0, 3.0]]])
  w = jnp.array([[[1.0, 1.0]]])
  return lax.conv_general_dilated(x, w, (1,), [(1, 1)], lhs_dilation=(2,))


@program
def reduce_window_max_sum_and_padding():
  x = jnp.arange(12.0).reshape(3, 4)
  mx = lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), "VALID")
  sm = lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "SAME")
  pd = lax.reduce_window(x, 0.0, lax.add, (1, 3), (1, 1), [(0, 0), (1, 1)])
  return mx, sm, pd


@program
def cumulative_ops_forward_and_reverse():
  x = jnp.array([3, 1, 4, 1, 5], jnp.int32)
  f = jnp.array([[1.0, -2.0], [3.0, 0.5]])
  return (lax.cumsum(x), lax.cumsum(x, reverse=True), lax.cummax(x), lax.cummin(x),
          lax.cumprod(f, axis=1), lax.cumlogsumexp(f, axis=0))


@program
def sort_multiple_operands_num_keys():
  k1 = jnp.array([2, 1, 2, 1])
  k2 = jnp.array([0.5, 0.7, 0.1, 0.2])
  v = jnp.array([10, 20, 30, 40])
  one = lax.sort((k1, k2, v), num_keys=1)
  two = lax.sort((k1, k2, v), num_keys=2)
  desc = lax.sort(jnp.array([3.0, jnp.nan, -1.0, 2.0]))
  return one, two, desc, lax.sort_key_val(k2, v)


@program
def top_k_values_and_indices():
  x = jnp.array([[1.0, 5.0, 3.0, 5.0], [-1.0, -2.0, 0.0, 7.0]])
  vals, idx = lax.top_k(x, 2)
  return vals, idx, lax.top_k(jnp.array([3, 1, 2], jnp.int8), 3)


@program
def dynamic_slice_clamps_start_indices():
  x = jnp.arange(10)
  m = jnp.arange(12).reshape(3, 4)
  return (lax.dynamic_slice(x, (8,), (4,)), lax.dynamic_slice(x, (-3,), (2,)),
          lax.dynamic_slice(m, (5, 1), (2, 2)), lax.dynamic_slice_in_dim(x, 9, 3),
          lax.dynamic_index_in_dim(m, 7, axis=1, keepdims=False))


@program
def dynamic_update_slice_clamps():
  x = jnp.zeros(5)
  m = jnp.zeros((3, 3), jnp.int32)
  return (lax.dynamic_update_slice(x, jnp.array([1.0, 2.0]), (4,)),
          lax.dynamic_update_slice(m, jnp.ones((2, 2), jnp.int32), (-1, 2)),
          lax.dynamic_update_slice_in_dim(x, jnp.array([7.0]), 2, axis=0))


@program
def dynamic_slice_under_jit_with_traced_index():
  f = jax.jit(lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 2)))
  m = jnp.arange(12.0).reshape(4, 3)
  return f(m, 0), f(m, 3), f(m, -5)


@program
def gather_basic_rows():
  x = jnp.arange(12.0).reshape(4, 3)
  idx = jnp.array([[2], [0]])
  dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
  rows = lax.gather(x, idx, dn, slice_sizes=(1, 3))
  clipped = lax.gather(x, jnp.array([[9]]), dn, slice_sizes=(1, 3),
                       mode=lax.GatherScatterMode.CLIP)
  filled = lax.gather(x, jnp.array([[9]]), dn, slice_sizes=(1, 3),
                      mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=-1.0)
  return rows, clipped, filled


@program
def select_n_and_clamp():
  which = jnp.array([0, 1, 2, 1])
  cases = (jnp.zeros(4), jnp.ones(4), jnp.full(4, 2.0))
  b = lax.select_n(jnp.array([True, False, True, False]), jnp.arange(4), -jnp.arange(4))
  c = lax.clamp(0.0, jnp.array([-1.0, 0.5, 3.0]), 1.0)
  d = lax.clamp(jnp.int8(-2), jnp.arange(-4, 4, dtype=jnp.int8), jnp.int8(2))
  return lax.select_n(which, *cases), b, c, d


@program
def select_n_predicate_dtype_error():
  return lax.select_n(jnp.array([0.0, 1.0]), jnp.ones(2), jnp.zeros(2))


@program
def integer_pow_rsqrt_and_special_functions():
  x = jnp.array([0.25, 1.0, 2.5])
  return (lax.integer_pow(x, 3), lax.integer_pow(x, -2), lax.integer_pow(jnp.arange(4), 2),
          lax.rsqrt(x), lax.erf_inv(jnp.array([-0.5, 0.0, 0.9])), lax.lgamma(x),
          lax.digamma(x), lax.igamma(jnp.array([1.0, 2.0, 0.5]), x), lax.bessel_i0e(x),
          lax.erfc(x))


@program(x64=True)
def special_functions_float64():
  x = jnp.array([0.1, 1.5, 7.0])
  return lax.lgamma(x), lax.digamma(x), lax.erf_inv(x / 8)


@program
def population_count_and_clz():
  x = jnp.array([0, 1, 7, -1, 255], jnp.int32)
  u = jnp.array([0, 1, 7, 255], jnp.uint8)
  return lax.population_count(x), lax.population_count(u), lax.clz(x), lax.clz(u)


@program
def shifts_of_negative_ints():
  x = jnp.array([-8, -1, 5, 16], jnp.int32)
  return (lax.shift_left(x, 1), lax.shift_right_arithmetic(x, 2),
          lax.shift_right_logical(x, 2), lax.shift_right_logical(x, 40),
          lax.shift_left(jnp.int8(1), jnp.int8(7)))


@program
def rem_and_div_of_negative_ints():
  a = jnp.array([7, -7, 7, -7], jnp.int32)
  b = jnp.array([2, 2, -2, -2], jnp.int32)
  f = jnp.array([7.5, -7.5], jnp.float32)
  return lax.div(a, b), lax.rem(a, b), a // b, a % b, lax.rem(f, 2.0), lax.div(f, 2.0)


@program
def round_modes():
  x = jnp.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4])
  return (lax.round(x), lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
          lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), lax.round(x, 1),
          jnp.round(x), lax.floor(x), lax.ceil(x))


@program
def nextafter_and_reduce_precision():
  x = jnp.array([1.0, 0.0, -1.0], jnp.float32)
  up = lax.nextafter(x, jnp.full(3, 2.0, jnp.float32))
  down = lax.nextafter(x, jnp.full(3, -2.0, jnp.float32))
  y = jnp.array([1.0 + 2 ** -10, 3.14159265, 65504.0 * 2], jnp.float32)
  bf = lax.reduce_precision(y, exponent_bits=8, mantissa_bits=7)
  h = lax.reduce_precision(y, exponent_bits=5, mantissa_bits=10)
  return up - x, down - x, bf, h


@program
def broadcast_in_dim_and_broadcast():
  x = jnp.array([1, 2, 3])
  return (lax.broadcast_in_dim(x, (2, 3), (1,)), lax.broadcast_in_dim(x, (3, 2), (0,)),
          lax.broadcast(x, (2,)), lax.broadcast_in_dim(jnp.float32(5.0), (2,), ()))


@program
def broadcast_in_dim_bad_dims_error():
  return lax.broadcast_in_dim(jnp.ones(3), (2, 4), (1,))


@program
def pad_negative_and_interior():
  x = jnp.array([1, 2, 3, 4])
  m = jnp.arange(4.0).reshape(2, 2)
  return (lax.pad(x, 0, [(1, 2, 1)]), lax.pad(x, -9, [(-1, -1, 0)]),
          lax.pad(x, 0, [(-2, 1, 2)]), lax.pad(m, 9.0, [(0, 1, 0), (1, 0, 1)]))


@program
def rev_transpose_and_slices():
  x = jnp.arange(6).reshape(2, 3)
  return (lax.rev(x, (0,)), lax.rev(x, (0, 1)), lax.transpose(x, (1, 0)),
          lax.slice(x, (0, 1), (2, 3)), lax.slice(x, (0, 0), (2, 3), (1, 2)),
          lax.slice_in_dim(x, 1, 3, axis=1), lax.index_in_dim(x, 1, keepdims=False))


@program
def squeeze_expand_dims_and_reshape():
  x = jnp.ones((1, 3, 1))
  return (lax.squeeze(x, (0, 2)).shape, lax.squeeze(x, (-1,)).shape,
          lax.expand_dims(jnp.ones(3), (0, 2)).shape,
          lax.reshape(jnp.arange(6), (3, 2), dimensions=(0,)),
          lax.reshape(jnp.arange(6).reshape(2, 3), (6,), dimensions=(1, 0)))


@program
def squeeze_non_unit_dimension_error():
  return lax.squeeze(jnp.ones((2, 3)), (0,))


@program
def concatenate_and_iota_family():
  return (lax.concatenate([jnp.ones((1, 2)), jnp.zeros((2, 2))], 0),
          lax.iota(jnp.float16, 3), lax.broadcasted_iota(jnp.int32, (2, 3), 1),
          lax.full((2,), 3, jnp.int8), lax.full_like(jnp.ones(2), 7))


@program
def convert_element_type_and_bitcast():
  x = jnp.array([1.7, -1.7, 300.0], jnp.float32)
  return (lax.convert_element_type(x, jnp.int32), lax.convert_element_type(x, jnp.uint8),
          lax.bitcast_convert_type(jnp.float32(1.0), jnp.int32),
          lax.bitcast_convert_type(jnp.array([1, 2], jnp.int32), jnp.int16),
          lax.convert_element_type(jnp.array([True, False]), jnp.float32))


@program
def reductions_and_argmax():
  x = jnp.array([[1.0, 7.0, 7.0], [-1.0, 0.0, -3.0]])
  return (lax.reduce_sum(x, (1,)) if hasattr(lax, "reduce_sum") else x.sum(1),
          lax.reduce(x, 0.0, lax.add, (0,)), lax.reduce(x, -jnp.inf, lax.max, (1,)),
          lax.argmax(x, 1, jnp.int32), lax.argmin(x, 0, jnp.int8),
          lax.reduce((x, jnp.ones_like(x)), (0.0, 0.0),
                     lambda a, b: (a[0] + b[0], a[1] + b[1]), (1,)))


@program
def complex_and_float_elementwise():
  z = jnp.array([1 + 2j, -3 - 1j], jnp.complex64)
  x = jnp.array([0.5, -2.0])
  return (lax.real(z), lax.imag(z), lax.conj(z), lax.abs(z), lax.complex(x, x),
          lax.atan2(x, x[::-1]), lax.sign(x), lax.is_finite(x / 0), lax.expm1(x),
          lax.log1p(x + 3), lax.logistic(x), lax.cbrt(x), lax.tan(x))


@program
def fori_loop_and_while_loop_forward():
  total = lax.fori_loop(0, 5, lambda i, acc: acc + i * i, 0)
  fact = lax.fori_loop(1, 6, lambda i, acc: acc * i, jnp.float32(1))
  steps = lax.while_loop(lambda s: s[1] > 1, lambda s: (s[0] + 1, jnp.where(s[1] % 2 == 0, s[1] // 2, 3 * s[1] + 1)),
                         (0, 27))
  return total, fact, steps


@program
def fori_loop_unrolled_jaxpr():
  f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)
  return f(jnp.float32(1.5)), str(jax.make_jaxpr(f)(1.5))


@program
def scan_with_xs_none_length_and_reverse():
  carry, ys = lax.scan(lambda c, _: (c * 2, c), 1, None, length=4)
  c2, ys2 = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(4.0), reverse=True)
  c3, ys3 = lax.scan(lambda c, x: ({"n": c["n"] + 1}, {"sq": x ** 2, "n": c["n"]}),
                     {"n": jnp.int32(0)}, jnp.arange(3.0), unroll=2)
  return carry, ys, c2, ys2, c3, ys3


@program
def scan_jaxpr_print():
  f = lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
  return str(jax.make_jaxpr(f)(jnp.ones(3)))


@program
def cond_and_switch_forward():
  def f(i, x):
    return lax.switch(i, [lambda v: v + 1, lambda v: v * 10, lambda v: -v], x)
  c = lax.cond(True, lambda a, b: a - b, lambda a, b: a + b, 5.0, 2.0)
  return c, f(0, 2.0), f(2, 2.0), f(7, 2.0), f(-3, 2.0), jax.jit(f)(1, 2.0)


@program
def cond_branch_output_mismatch_error():
  return lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), jnp.float32(1.0))


@program
def cond_jaxpr_print():
  f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)
  return str(jax.make_jaxpr(f)(True, jnp.ones(2)))


@program
def while_loop_carry_type_change_error():
  return lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0)


@program
def associative_scan_and_map():
  x = jnp.array([1.0, 2.0, 3.0, 4.0])
  return (lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.maximum, x[::-1]),
          lax.associative_scan(jnp.add, x, reverse=True),
          lax.map(lambda v: v ** 2 + 1, jnp.arange(3)))
