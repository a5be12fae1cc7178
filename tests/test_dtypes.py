"""Tests for ember.dtypes: promotion against JAX's golden table, canonicalization, names."""
import doctest
import json
import pathlib
import warnings

import ml_dtypes
import numpy as np
import pytest

from ember import dtypes
from ember.config import config

# JAX's promotion table, computed with JAX: shared/ sits beside the checkout (as in CI).
GOLDEN = next((p for p in (pathlib.Path(__file__).resolve().parents[2] / "shared",
                           pathlib.Path("/work/shared"))
               if (p / "golden/promotion.json").exists()),
              pathlib.Path("/work/shared")) / "golden/promotion.json"

_PY_VALUES = {"python_int": 1, "python_float": 1.5, "python_complex": 1j, "python_bool": True}
_NP_VALUES = {
    "numpy_int64": np.int64(1), "numpy_float64": np.float64(1.0),
    "numpy_float32": np.float32(1.0),
}


class FakeArray:
  """Stand-in for an ember array: just ``dtype`` and ``weak_type``."""

  def __init__(self, dtype, weak_type=False):
    self.dtype = np.dtype(dtype)
    self.weak_type = weak_type


class FakeTracer:
  """Stand-in for a tracer exposing its weak type only through ``aval``."""

  class _Aval:
    def __init__(self, dtype, weak_type):
      self.dtype, self.weak_type = dtype, weak_type

  def __init__(self, dtype, weak_type):
    self.dtype = np.dtype(dtype)
    self.aval = self._Aval(self.dtype, weak_type)


def _operand(name):
  if name in _PY_VALUES:
    return _PY_VALUES[name]
  if name in _NP_VALUES:
    return _NP_VALUES[name]
  return FakeArray(name)


@pytest.fixture
def x64():
  """Yields a setter for jax_enable_x64 and restores the original value afterwards."""
  old = config.jax_enable_x64
  yield lambda value: config.update("jax_enable_x64", value)
  config.update("jax_enable_x64", old)


@pytest.fixture
def x64_off(x64):
  x64(False)


@pytest.fixture
def x64_on(x64):
  x64(True)


def _golden():
  if not GOLDEN.exists():
    pytest.skip(f"golden table {GOLDEN} not found")
  return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("mode", ["x64_off", "x64_on"])
def test_result_type_matches_golden_table(x64, mode):
  table = _golden()[mode]
  assert len(table) == 468
  x64(mode == "x64_on")
  mismatches = []
  for key, (want_name, want_weak) in table.items():
    a, b = key.split("+")
    got = dtypes.result_type(_operand(a), _operand(b), return_weak_type_flag=True)
    if got != (np.dtype(want_name), want_weak):
      mismatches.append(f"{key}: got {got}, want ({want_name}, {want_weak})")
  assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("mode", ["x64_off", "x64_on"])
def test_result_type_golden_table_with_dtypes_and_tracers(x64, mode):
  """Plain dtypes and aval-only tracers must agree with the array stand-ins."""
  table = _golden()[mode]
  x64(mode == "x64_on")
  names = [str(dt) for dt in dtypes.all_dtypes]
  for a in names:
    for b in names:
      want = (np.dtype(table[f"{a}+{b}"][0]), table[f"{a}+{b}"][1])
      assert dtypes.result_type(np.dtype(a), b, return_weak_type_flag=True) == want
      got = dtypes.result_type(FakeTracer(a, False), FakeTracer(b, False),
                               return_weak_type_flag=True)
      assert got == want, (a, b)


def test_python_scalars_only(x64):
  x64(False)
  rt = lambda *a: dtypes.result_type(*a, return_weak_type_flag=True)  # noqa: E731
  assert rt(1, 2) == (np.dtype("int32"), True)
  assert rt(1, 2.0) == (np.dtype("float32"), True)
  assert rt(1.0, 1j) == (np.dtype("complex64"), True)
  assert rt(True, 1) == (np.dtype("int32"), True)
  assert rt(True, False) == (np.dtype("bool"), False)
  assert rt(int) == (np.dtype("int32"), True)
  x64(True)
  assert rt(1, 2) == (np.dtype("int64"), True)
  assert rt(1, 2.0) == (np.dtype("float64"), True)
  assert rt(2.0, 1j) == (np.dtype("complex128"), True)


def test_weak_arrays(x64_off):
  rt = lambda *a: dtypes.result_type(*a, return_weak_type_flag=True)  # noqa: E731
  weak_f16 = FakeArray("float16", weak_type=True)
  weak_i16 = FakeTracer("int16", weak_type=True)
  # A lone weak value keeps its category's default dtype.
  assert rt(weak_f16) == (np.dtype("float32"), True)
  assert rt(weak_i16) == (np.dtype("int32"), True)
  assert rt(weak_f16, 1) == (np.dtype("float32"), True)
  assert rt(weak_f16, np.int8) == (np.dtype("float32"), True)
  assert rt(weak_f16, np.float16) == (np.dtype("float16"), False)
  assert rt(weak_i16, np.uint8) == (np.dtype("uint8"), False)
  assert rt(FakeArray("int32", True), FakeArray("int32", False)) == (np.dtype("int32"), False)


def test_all_weak_operands_take_the_default_of_their_kind(x64):
  """Checked against JAX 0.10.2: all-weak operands join, then widen to the kind default."""
  rt = lambda *a: dtypes.result_type(*a, return_weak_type_flag=True)  # noqa: E731
  weak_u8, weak_u16 = FakeArray("uint8", True), FakeArray("uint16", True)
  weak_u64, weak_i8 = FakeArray("uint64", True), FakeArray("int8", True)
  x64(False)
  assert rt(weak_u8, weak_u16) == (np.dtype("uint32"), True)
  assert rt(weak_u8, 1) == (np.dtype("int32"), True)
  assert rt(weak_u8, weak_i8) == (np.dtype("int32"), True)
  assert rt(weak_u64, weak_i8) == (np.dtype("int32"), True)
  assert rt(weak_u8, np.uint16) == (np.dtype("uint16"), False)
  x64(True)
  assert rt(weak_u8, weak_u16) == (np.dtype("uint64"), True)
  assert rt(weak_u64, weak_i8) == (np.dtype("float64"), True)
  assert rt(weak_u64, 1) == (np.dtype("float64"), True)


def test_result_type_many_args_and_plain_return(x64):
  x64(False)
  assert dtypes.result_type(np.int8, np.uint8, 1.0) == np.dtype("float32")
  assert dtypes.result_type(np.uint8, np.int8, 1) == np.dtype("int16")
  assert dtypes.result_type("bfloat16", np.float16) == np.dtype("float32")
  assert dtypes.result_type(np.float64) == np.dtype("float32")
  x64(True)
  assert dtypes.result_type(np.uint64, np.int64, np.int8, return_weak_type_flag=True) == (
      np.dtype("float64"), True)
  assert dtypes.result_type(np.float64) == np.dtype("float64")


def test_result_type_follows_runtime_x64_changes(x64):
  for flag, want in [(False, "float32"), (True, "float64"), (False, "float32")]:
    x64(flag)
    assert dtypes.result_type(np.float64, 1) == np.dtype(want)
    assert dtypes.canonicalize_dtype(np.float64) == np.dtype(want)


def test_result_type_errors(x64_off):
  with pytest.raises(ValueError, match="at least one"):
    dtypes.result_type()
  with pytest.raises(TypeError, match="number and bool"):
    dtypes.result_type(np.dtype(object))
  with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
    dtypes.result_type(dtypes.float0, np.int32)
  assert dtypes.result_type(dtypes.float0, dtypes.float0) == dtypes.float0


def test_strict_promotion(x64_off):
  old = config.jax_numpy_dtype_promotion
  config.update("jax_numpy_dtype_promotion", "strict")
  try:
    assert dtypes.result_type(np.int8, 1) == np.dtype("int8")
    assert dtypes.result_type(np.float16, 1) == np.dtype("float16")
    assert dtypes.result_type(1, 1.0, return_weak_type_flag=True) == (np.dtype("float32"), True)
    for args in [(np.int8, np.int16), (np.int8, 1.0), (np.float32, 1j), (True, 1)]:
      with pytest.raises(dtypes.TypePromotionError, match="strict"):
        dtypes.result_type(*args)
  finally:
    config.update("jax_numpy_dtype_promotion", old)
  assert dtypes.result_type(np.int8, np.int16) == np.dtype("int16")


def test_promote_types(x64):
  x64(False)
  assert dtypes.promote_types(np.int8, np.uint8) == np.dtype("int16")
  assert dtypes.promote_types("bfloat16", np.float16) == np.dtype("float32")
  assert dtypes.promote_types(np.uint64, np.int8) == np.dtype("int32")
  assert dtypes.promote_types(np.uint64, np.int8, canonicalize=False) == np.dtype("float64")
  assert dtypes.promote_types(int, np.int8) == np.dtype("int8")
  assert dtypes.promote_types(float, int) == np.dtype("float32")
  assert dtypes.promote_types(np.float32, np.complex64) == np.dtype("complex64")
  x64(True)
  assert dtypes.promote_types(np.uint64, np.int8) == np.dtype("float64")
  assert dtypes.promote_types(np.float64, np.complex64) == np.dtype("complex128")
  assert dtypes.promote_types(bool, int) == np.dtype("int64")


def test_canonicalize_dtype(x64):
  x64(False)
  pairs = {np.int64: "int32", "uint64": "uint32", np.float64: "float32",
           np.complex128: "complex64", int: "int32", float: "float32", complex: "complex64",
           bool: "bool", "bfloat16": "bfloat16", np.int8: "int8", np.float16: "float16"}
  for given, want in pairs.items():
    assert dtypes.canonicalize_dtype(given) == np.dtype(want), given
  x64(True)
  for given in (np.int64, "uint64", np.float64, np.complex128, np.int8, "bfloat16"):
    assert dtypes.canonicalize_dtype(given) == np.dtype(given)
  assert dtypes.canonicalize_dtype(int) == np.dtype("int64")
  assert dtypes.canonicalize_dtype(complex) == np.dtype("complex128")


def test_defaults(x64):
  x64(False)
  got = [dtypes.default_int_dtype(), dtypes.default_uint_dtype(),
         dtypes.default_float_dtype(), dtypes.default_complex_dtype()]
  assert got == [np.dtype(n) for n in ("int32", "uint32", "float32", "complex64")]
  x64(True)
  got = [dtypes.default_int_dtype(), dtypes.default_uint_dtype(),
         dtypes.default_float_dtype(), dtypes.default_complex_dtype()]
  assert got == [np.dtype(n) for n in ("int64", "uint64", "float64", "complex128")]


def test_dtype_function(x64_off):
  assert dtypes.dtype(1) == np.dtype("int64")
  assert dtypes.dtype(1, canonicalize=True) == np.dtype("int32")
  assert dtypes.dtype(1.0) == np.dtype("float64")
  assert dtypes.dtype(True) == np.dtype("bool")
  assert dtypes.dtype(1j, canonicalize=True) == np.dtype("complex64")
  assert dtypes.dtype(np.float32(2)) == np.dtype("float32")
  assert dtypes.dtype(np.zeros(2, np.uint16)) == np.dtype("uint16")
  assert dtypes.dtype(FakeArray("int8", True)) == np.dtype("int8")
  assert dtypes.dtype("bfloat16") == np.dtype(ml_dtypes.bfloat16)
  assert dtypes.dtype(float) == np.dtype("float64")
  with pytest.raises(ValueError, match="None"):
    dtypes.dtype(None)
  with pytest.raises(TypeError, match="Cannot determine dtype"):
    dtypes.dtype([1, 2])


def test_is_weakly_typed():
  assert [dtypes.is_weakly_typed(v) for v in (1, 1.5, 1j, True)] == [True, True, True, False]
  assert not dtypes.is_weakly_typed(np.float32(1))
  assert not dtypes.is_weakly_typed(np.ones(2))
  assert dtypes.is_weakly_typed(FakeArray("float32", True))
  assert not dtypes.is_weakly_typed(FakeArray("float32", False))
  assert dtypes.is_weakly_typed(FakeTracer("int32", True))


def _captured_warnings(fn):
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fn()
  return [(w.category, str(w.message)) for w in caught]


def test_check_user_dtype_supported_warning_text(x64_off):
  caught = _captured_warnings(lambda: dtypes.check_user_dtype_supported(np.float64, "zeros"))
  assert caught == [(UserWarning,
                     "Explicitly requested dtype float64 requested in zeros is not available, "
                     "and will be truncated to dtype float32. To enable more dtypes, set the "
                     "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
                     "environment variable. See https://github.com/jax-ml/jax#current-gotchas "
                     "for more.")]
  caught = _captured_warnings(lambda: dtypes.check_user_dtype_supported("int64"))
  assert len(caught) == 1
  assert caught[0][1].startswith(
      "Explicitly requested dtype int64 is not available, and will be truncated to dtype int32.")


def test_check_user_dtype_supported_quiet_cases(x64):
  x64(False)
  for dt in (None, int, float, complex, bool, np.float32, "bfloat16", np.int8):
    assert _captured_warnings(lambda: dtypes.check_user_dtype_supported(dt, "f")) == []
  x64(True)
  for dt in (np.float64, np.int64, np.uint64, np.complex128):
    assert _captured_warnings(lambda: dtypes.check_user_dtype_supported(dt, "f")) == []


def test_check_user_dtype_supported_errors():
  with pytest.raises(TypeError, match=r"^JAX only supports number and bool dtypes, "
                     r"got dtype object in array$"):
    dtypes.check_user_dtype_supported(object, "array")
  with pytest.raises(TypeError, match="got dtype <U3"):
    dtypes.check_user_dtype_supported("U3")
  with pytest.raises(TypeError, match="not understood"):
    dtypes.check_user_dtype_supported("foo")


def test_check_and_canonicalize_user_dtype(x64_off):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert dtypes.check_and_canonicalize_user_dtype(np.float64) == np.dtype("float32")
  assert dtypes.check_and_canonicalize_user_dtype(int) == np.dtype("int32")
  with pytest.raises(ValueError, match="must be specified"):
    dtypes.check_and_canonicalize_user_dtype(None)


def test_short_name_and_mlir_type():
  want_short = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                "bf16", "f16", "f32", "f64", "c64", "c128"]
  want_mlir = ["i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
               "bf16", "f16", "f32", "f64", "complex<f32>", "complex<f64>"]
  assert [dtypes.short_name(dt) for dt in dtypes.all_dtypes] == want_short
  assert [dtypes.mlir_type(dt) for dt in dtypes.all_dtypes] == want_mlir
  assert dtypes.short_name(dtypes.float0) == "float0"
  assert dtypes.short_name("float32") == "f32"
  assert dtypes.mlir_type(dtypes.bfloat16) == "bf16"
  with pytest.raises(TypeError, match="No short name"):
    dtypes.short_name(np.dtype(object))


def test_issubdtype_bfloat16():
  bf16 = dtypes.bfloat16
  assert not np.issubdtype(bf16, np.floating)  # why ember needs its own issubdtype
  for parent in (np.floating, np.inexact, np.number, np.generic, bf16, "bfloat16"):
    assert dtypes.issubdtype(bf16, parent), parent
  for parent in (np.integer, np.complexfloating, np.float32, np.bool_):
    assert not dtypes.issubdtype(bf16, parent), parent
  assert dtypes.issubdtype(np.dtype(bf16), np.floating)
  assert not dtypes.issubdtype(np.float32, bf16)
  assert dtypes.issubdtype(np.int8, np.signedinteger)
  assert not dtypes.issubdtype(np.uint8, np.signedinteger)
  assert dtypes.issubdtype(dtypes.prng_key, dtypes.extended)
  assert not dtypes.issubdtype(dtypes.float0, np.number)
  assert dtypes.issubdtype(dtypes.float0, dtypes.float0)


def test_finfo_iinfo():
  info = dtypes.finfo(dtypes.bfloat16)
  assert float(info.eps) == 2.0 ** -7
  assert info.bits == 16
  assert float(info.max) == pytest.approx(3.3895313892515355e38)
  assert float(dtypes.finfo(np.float32).eps) == float(np.finfo(np.float32).eps)
  assert dtypes.iinfo(np.int8).min == -128
  assert dtypes.iinfo("uint16").max == 65535


def test_dtype_objects_and_tables():
  assert dtypes.bfloat16 is ml_dtypes.bfloat16
  assert dtypes.float0 == np.dtype([("float0", np.void, 0)])
  assert dtypes.float0.itemsize == 0
  assert len(dtypes.all_dtypes) == 15 and len(set(dtypes.all_dtypes)) == 15
  assert dtypes.python_scalar_dtypes == {
      bool: np.dtype("bool"), int: np.dtype("int64"), float: np.dtype("float64"),
      complex: np.dtype("complex128")}


def test_kind_predicates():
  names = {str(dt): dt for dt in dtypes.all_dtypes}
  expect = {
      dtypes.is_float: {"bfloat16", "float16", "float32", "float64"},
      dtypes.is_complex: {"complex64", "complex128"},
      dtypes.is_integer: {"int8", "int16", "int32", "int64",
                          "uint8", "uint16", "uint32", "uint64"},
      dtypes.is_unsigned: {"uint8", "uint16", "uint32", "uint64"},
      dtypes.is_inexact: {"bfloat16", "float16", "float32", "float64",
                          "complex64", "complex128"},
      dtypes.is_bool: {"bool"},
  }
  for pred, want in expect.items():
    assert {n for n, dt in names.items() if pred(dt)} == want, pred.__name__
  assert dtypes.is_float("bfloat16") and dtypes.is_float(dtypes.bfloat16)
  assert not dtypes.is_float(dtypes.float0)


def test_scalar_type_of_and_conversions(x64_off):
  assert dtypes.scalar_type_of(True) is bool
  assert dtypes.scalar_type_of(np.uint8(1)) is int
  assert dtypes.scalar_type_of(np.zeros(1, dtypes.bfloat16)) is float
  assert dtypes.scalar_type_of(np.complex64(1)) is complex
  assert dtypes.itemsize_bits(np.float64) == 64
  assert dtypes.itemsize_bits(dtypes.float0) == 0
  assert dtypes.to_inexact_dtype(np.int64) == np.dtype("float32")
  assert dtypes.to_inexact_dtype(np.float16) == np.dtype("float16")
  assert dtypes.to_complex_dtype(np.float64) == np.dtype("complex64")
  assert dtypes.to_complex_dtype(dtypes.bfloat16) == np.dtype("complex64")


def test_docstring_examples(x64_off):
  failed, attempted = doctest.testmod(dtypes, optionflags=doctest.ELLIPSIS)[:2]
  assert attempted > 20
  assert failed == 0


def test_scalar_type_objects_compare_like_numpys():
  import ember.numpy as jnp
  assert jnp.float16 != jnp.float32 and not (jnp.float32 != jnp.float32)
  assert jnp.float32 == np.float32 and not (jnp.float32 != np.float32)
  assert jnp.float32 != "float32"
