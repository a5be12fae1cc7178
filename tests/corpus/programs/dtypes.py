"""Dtypes and type promotion: Python scalars, NumPy scalars and arrays of every dtype mixed in jnp
ops, weak types, promote_types / result_type, x64 on and off, creation functions with and without
dtype, astype, finfo / iinfo, the scalar type objects, and canonicalization under jit."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()

_DTYPES = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "bfloat16", "float16",
           "float32", "complex64")


@program
def python_scalars_with_each_dtype():
  out = {}
  for name in _DTYPES:
    x = jnp.ones(2, dtype=name)
    out[name] = (x + 1, x * 2.0, x + 1j)
  return out


@program
def promote_types_table():
  names = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "bfloat16", "float16",
           "float32", "complex64")
  return [[str(jnp.promote_types(a, b)) for b in names] for a in names]


@program
def promote_types_uint32_int32_x32():
  return (str(jnp.promote_types("uint32", "int32")), str(jnp.promote_types(jnp.uint8, jnp.int8)),
          str(jnp.promote_types("bfloat16", "float16")), str(jnp.promote_types("int64", "uint64")))


@program(x64=True)
def promote_types_uint32_int32_x64():
  return (str(jnp.promote_types("uint32", "int32")), str(jnp.promote_types("uint64", "int64")),
          str(jnp.promote_types("int8", "uint64")), str(jnp.promote_types("bfloat16", "float16")))


@program
def result_type_weak_scalars():
  return (str(jnp.result_type(1, jnp.int8)), str(jnp.result_type(1.0, jnp.int8)),
          str(jnp.result_type(1.0, jnp.float16)), str(jnp.result_type(1j, jnp.bfloat16)),
          str(jnp.result_type(1, 2.0)), str(jnp.result_type(np.int64(1), jnp.int8)),
          str(jnp.result_type(jnp.float16, np.float64)))


@program
def numpy_scalars_are_not_weak():
  x = jnp.ones(2, jnp.int8)
  return x + np.int32(1), x + np.float32(1.0), jnp.ones(2, jnp.float16) + np.float64(1.0)


@program
def weak_type_of_creation():
  return (jnp.array(1), jnp.array(1.0), jnp.asarray(2), jnp.array([1, 2]),
          jnp.array(1.0, "float32"), jnp.full((2,), 3), jnp.full((2,), 3.0),
          jnp.full((2,), 3, dtype=jnp.int8),
          jnp.zeros(2), jnp.ones((), jnp.int32), jnp.arange(3), jnp.arange(3.0),
          jnp.linspace(0, 1, 3), jnp.eye(2))


@program
def weak_type_through_ops():
  w = jnp.array(2.0)
  s = jnp.array(2.0, dtype=jnp.float32)
  return (w + 1, w * s, w + jnp.ones(2, jnp.float16), jnp.sin(w), w.astype(jnp.float32),
          -w, w ** 2, jnp.sum(jnp.array([1.0, 2.0])), jnp.sqrt(3.0), jnp.exp(1))


@program
def full_with_device_and_dtype():
  dev = jax.devices()[0]
  return (jnp.full((2,), 1.5, device=dev), jnp.zeros(2, device=dev),
          jnp.ones((2,), dtype="bfloat16", device=dev), jnp.full((2,), 1, device=dev))


@program
def full_like_and_zeros_like_keep_weak():
  w = jnp.array(1.0)
  return jnp.zeros_like(w), jnp.full_like(w, 3), jnp.ones_like(jnp.ones(2, jnp.int8)), \
      jnp.full_like(jnp.ones(2, jnp.int8), 2.7)


@program
def large_python_ints_x32():
  return jnp.array([1, 2**31 - 1]), jnp.array(2**31 - 1) + 0


@program
def python_int_too_large_for_int32_error():
  return jnp.array(2**40)


@program(phrases=("1099511627776",))
def python_int_too_large_in_add_error():
  return jnp.ones(2, jnp.int32) + 2**40


@program(x64=True)
def large_python_ints_x64():
  return jnp.array(2**40), jnp.array([1, 2**40]), jnp.array(1.5), jnp.arange(3), jnp.ones(2) + 1


@program(x64=True)
def x64_promotion_and_defaults():
  return (jnp.ones(2, jnp.float32) + 1.0, jnp.ones(2, jnp.float32) + np.float64(1.0),
          jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.uint32), jnp.array(1) * 2.5,
          jnp.zeros(2).dtype == jnp.float64)


@program
def x64_off_truncates_requested_dtypes():
  return (jnp.zeros(2, jnp.float64), jnp.ones(2, jnp.int64), jnp.array([1.0], dtype=np.float64),
          jnp.arange(3, dtype=jnp.uint64))


@program
def astype_conversions():
  x = jnp.array([-1.7, 0.5, 2.5, 300.0])
  return (x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.int8), x.astype(jnp.bool_),
          x.astype(jnp.bfloat16), x.astype(jnp.float16), x.astype(jnp.complex64),
          jnp.array([0, 2, -1]).astype(bool))


@program
def astype_complex_to_float_warns():
  return jnp.array([1 + 2j, 3 - 1j]).astype(jnp.float32)


@program
def finfo_values():
  out = {}
  for d in (jnp.float16, jnp.bfloat16, jnp.float32):
    fi = jnp.finfo(d)
    out[jnp.dtype(d).name] = (float(fi.eps), float(fi.max), float(fi.min), float(fi.tiny),
                              int(fi.bits), int(fi.nmant), str(fi.dtype))
  return out


@program
def iinfo_values():
  return {name: (int(jnp.iinfo(name).min), int(jnp.iinfo(name).max), jnp.iinfo(name).bits)
          for name in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")}


@program
def scalar_type_objects():
  x = jnp.float32(1)
  y = jnp.int8(3.7)
  return (x, y, jnp.bfloat16(1.5), jnp.float16 != jnp.float32, jnp.float32 == jnp.float32,
          jnp.float32 is jnp.float32, str(jnp.dtype(jnp.bfloat16)), str(np.dtype(jnp.float32)),
          jnp.dtype(jnp.float32) == np.float32, jnp.float32.dtype == np.dtype("float32"))


@program
def scalar_type_isinstance_checks():
  x = jnp.array(1.0)
  return (isinstance(x, jax.Array), isinstance(x, np.ndarray),
          isinstance(jnp.float32(1), jax.Array),
          jnp.issubdtype(x.dtype, jnp.floating), jnp.issubdtype(jnp.int8, jnp.integer),
          jnp.issubdtype(jnp.bfloat16, jnp.floating), jnp.issubdtype(jnp.uint8, jnp.signedinteger),
          jnp.issubdtype(jnp.complex64, jnp.inexact), jnp.isdtype(jnp.float32, "real floating"))


@program
def scalar_type_of_lists_and_arrays():
  return jnp.float32([1, 2]), jnp.int32(np.array([1.9, -1.9])), jnp.bool_(3), jnp.complex64(2)


@program
def canonicalization_under_jit():
  @jax.jit
  def f(a, b, c, d):
    return a + 1, b * 2, c, d
  return f(np.float64(1.5), np.int64(3), np.arange(3, dtype=np.uint64), 2.0)


@program
def jaxpr_shows_weak_types():
  f = lambda x, y: (x * 2, x + y, y * 2.5, jnp.sin(x) + y)
  return str(jax.make_jaxpr(f)(1.0, jnp.ones(2, jnp.bfloat16)))


@program
def jaxpr_folds_scalar_constant_conversion():
  f = lambda y: jnp.float16(1) + y
  return str(jax.make_jaxpr(f)(jnp.ones(2, jnp.bfloat16)))


_CLOSED_OVER = jnp.float16(1)


@program
def jaxpr_closed_over_scalar_array():
  return str(jax.make_jaxpr(lambda y: _CLOSED_OVER + y)(jnp.ones(2, jnp.bfloat16)))


@program
def jaxpr_int8_constant_times_float16():
  return str(jax.make_jaxpr(lambda y: jnp.array(2, jnp.int8) * y)(jnp.ones(2, jnp.float16)))


@program
def weak_arrays_through_jnp_functions():
  w = jnp.array([True, False]) + 1.5   # a weak float32 array
  wi = jnp.array([True, False]) + 3    # a weak int32 array
  return (jnp.logical_and(wi, 1), jnp.deg2rad(w), jnp.hypot(w, 1.0), jnp.round(w, 1),
          jnp.log2(w), jnp.log2(2.0), jnp.sinc(w), jnp.heaviside(w, 0.5), jnp.angle(1.0),
          wi // 2, w % 2, jnp.gcd(wi, 2))


@program
def bool_arithmetic_promotion():
  b = jnp.array([True, False])
  return b + b, b * 2, b + 1.5, jnp.logical_and(b, 1), b & True, ~b, -jnp.array([1, 2], jnp.uint8)


@program
def mixed_int_float_arrays():
  ones = lambda dt: jnp.ones(2, dt)  # noqa: E731
  return (ones(jnp.int8) + ones(jnp.float16), ones(jnp.uint8) + ones(jnp.int8),
          ones(jnp.int32) + ones(jnp.bfloat16), ones(jnp.bfloat16) + ones(jnp.float16),
          ones(jnp.uint32) * ones(jnp.int32), ones(jnp.int16) / ones(jnp.int16))


@program
def true_divide_and_power_dtypes():
  i = jnp.array([3, 4])
  return i / 2, i // 2, i ** 2, i ** 0.5, 2 ** i, jnp.float16(3) / 2, jnp.int8(7) / jnp.int8(2)


@program
def dtype_promotion_strict_error():
  jax.config.update("jax_numpy_dtype_promotion", "strict")
  return jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)


@program
def weak_float_overflow_in_float16():
  return jnp.ones(2, jnp.float16) * 1e5, jnp.ones(2, jnp.bfloat16) + 1e-3


@program
def can_cast_and_dtype_names():
  return (jnp.can_cast(jnp.int8, jnp.int32), jnp.can_cast(jnp.float32, jnp.int32),
          jnp.can_cast(jnp.int32, jnp.float16, casting="same_kind"), jnp.dtype("bfloat16").itemsize,
          jnp.dtype(jnp.complex64).kind, jnp.float32.__name__, jnp.bfloat16.__name__)


@program
def array_dtype_attributes():
  x = jnp.ones((2, 3), jnp.bfloat16)
  return str(x.dtype), x.dtype.itemsize, x.itemsize, x.nbytes, x.ndim, x.size, repr(x.dtype), \
      x.weak_type, jnp.array(1.0).weak_type
