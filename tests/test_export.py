"""ember.export round trips (serialize here, deserialize and call in a fresh process; grad
through deserialized VJPs; pytree registrations) and ember.ffi with a real FFI handler (jaxlib's
LAPACK kernels, and a C++ handler compiled here when a compiler is available).

The behaviours JAX shares (attributes, errors, jaxprs, symbolic dimensions, ffi_call's rules)
are checked against JAX by the corpus (tests/corpus/programs/export_ffi.py)."""
import collections
import ctypes
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import export, ffi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _f(x, y):
  return {"s": jnp.sin(x) * y, "t": (x.sum(), jnp.linalg.cholesky(x[:, None] * x[None] + 4 *
                                                                     jnp.eye(3)))}


def test_round_trip_in_a_fresh_process(tmp_path):
  exp = export.export(ember.jit(_f))(jnp.ones(3), 2.0)
  blob = exp.serialize(vjp_order=1)
  path = tmp_path / "f.bin"
  path.write_bytes(bytes(blob))
  x = np.float32([0.5, 1.0, 2.0])
  want = exp.call(x, 3.0)
  want_grad = ember.grad(lambda x: exp.call(x, 3.0)["s"].sum())(x)
  script = textwrap.dedent(f"""
      import numpy as np, ember
      from ember import export
      exp = export.deserialize(open({str(path)!r}, "rb").read())
      x = np.float32([0.5, 1.0, 2.0])
      out = exp.call(x, 3.0)
      g = ember.grad(lambda x: exp.call(x, 3.0)["s"].sum())(x)
      j = ember.jit(exp.call)(x, 3.0)
      np.savez({str(tmp_path / 'out.npz')!r}, s=out["s"], t0=out["t"][0], t1=out["t"][1],
               g=g, js=j["s"])
      print(exp.fun_name, exp.in_avals, exp.has_vjp(), exp.vjp().has_vjp())
  """)
  run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
  assert run.returncode == 0, run.stderr
  assert run.stdout.split() == ["_f", "(ShapedArray(float32[3]),", "ShapedArray(float32[],",
                                "weak_type=True))", "True", "False"]
  got = np.load(tmp_path / "out.npz")
  np.testing.assert_allclose(got["s"], want["s"], rtol=1e-6)
  np.testing.assert_allclose(got["js"], want["s"], rtol=1e-6)
  np.testing.assert_allclose(got["t0"], want["t"][0], rtol=1e-6)
  np.testing.assert_allclose(got["t1"], want["t"][1], rtol=1e-6)
  np.testing.assert_allclose(got["g"], want_grad, rtol=1e-6)


def test_deserialized_attributes_match():
  exp = export.export(ember.jit(lambda x, y, z: x * 2 + z),
                      platforms=["cpu", "cuda"])(jnp.ones(3), jnp.ones(2), 1.0)
  back = export.deserialize(exp.serialize())
  for name in ("fun_name", "in_tree", "in_avals", "out_tree", "out_avals", "in_shardings_hlo",
               "out_shardings_hlo", "nr_devices", "platforms", "ordered_effects",
               "unordered_effects", "calling_convention_version", "module_kept_var_idx",
               "uses_global_constants", "mlir_module_serialized"):
    assert getattr(back, name) == getattr(exp, name), name
  assert back.module_kept_var_idx == (0, 2)
  assert back.mlir_module() == exp.mlir_module()
  assert not back.has_vjp()
  with pytest.raises(ValueError, match="No VJP is available"):
    ember.grad(lambda x: back.call(x, jnp.ones(2), 1.0).sum())(jnp.ones(3))


def test_vjp_orders_survive_serialization():
  exp = export.export(ember.jit(lambda x: jnp.sin(x) * x))(1.0)
  back = export.deserialize(exp.serialize(vjp_order=2))
  f = lambda x: jnp.sin(x) * x  # noqa: E731
  for d, dd in ((ember.grad(back.call), ember.grad(f)),
                (ember.grad(ember.grad(back.call)), ember.grad(ember.grad(f)))):
    np.testing.assert_allclose(d(0.7), dd(0.7), rtol=1e-6)
  with pytest.raises(ValueError, match="No VJP is available"):
    ember.grad(ember.grad(ember.grad(back.call)))(0.7)


def test_float0_cotangents_round_trip():
  exp = export.export(ember.jit(lambda x, i: (x[i], i * 2)))(jnp.ones(3), 1)
  back = export.deserialize(exp.serialize(vjp_order=1))
  assert str(back.vjp().out_avals) == "(ShapedArray(float32[3]), ShapedArray(float0[]))"
  np.testing.assert_array_equal(ember.grad(lambda x: back.call(x, 2)[0])(jnp.arange(3.0)),
                                [0.0, 0.0, 1.0])


def test_mlir_module_parses_and_runs_through_jit():
  inner = export.export(ember.jit(jnp.cos))(jnp.ones(2))
  text = ember.jit(lambda x: inner.call(x) + 1).lower(jnp.ones(2)).as_text()
  assert "func.call" in text and "func.func private" in text
  from ember.backend import lowering
  lowering.parse_module(inner.mlir_module())  # verifies
  np.testing.assert_allclose(ember.jit(lambda x: inner.call(inner.call(x)))(jnp.zeros(2)),
                             np.cos(np.cos(np.zeros(2))), rtol=1e-6)


def test_call_inside_control_flow():
  exp = export.export(ember.jit(lambda c, x: c + jnp.sin(x)))(1.0, 1.0)
  out = ember.lax.scan(lambda c, x: (exp.call(c, x), c), 0.0, jnp.arange(3.0))
  want = 0.0
  for x in range(3):
    want = want + np.sin(x)
  np.testing.assert_allclose(out[0], want, rtol=1e-6)


def test_pytree_node_serialization():
  P = collections.namedtuple("P", "a b")
  exp = export.export(ember.jit(lambda p: P(p.b, p.a)))(P(1.0, jnp.ones(2)))
  with pytest.raises(ValueError, match="unregistered type"):
    exp.serialize()
  export.register_namedtuple_serialization(P, serialized_name="test_export.P")
  with pytest.raises(ValueError, match="Duplicate serialization registration"):
    export.register_namedtuple_serialization(P, serialized_name="test_export.P2")
  back = export.deserialize(exp.serialize())
  out = back.call(P(3.0, jnp.zeros(2)))
  assert type(out) is P and float(out.b) == 3.0

  class Box:
    def __init__(self, v, tag):
      self.v, self.tag = v, tag
  ember.tree_util.register_pytree_node(Box, lambda b: ((b.v,), b.tag),
                                       lambda tag, ch: Box(ch[0], tag))
  export.register_pytree_node_serialization(
      Box, serialized_name="test_export.Box", serialize_auxdata=lambda t: t.encode(),
      deserialize_auxdata=lambda b: b.decode())
  exp = export.export(ember.jit(lambda b: Box(b.v * 2, b.tag)))(Box(jnp.ones(2), "hi"))
  out = export.deserialize(exp.serialize()).call(Box(jnp.ones(2), "hi"))
  assert out.tag == "hi"
  np.testing.assert_array_equal(out.v, [2.0, 2.0])
  od = export.export(ember.jit(lambda d: d))(collections.OrderedDict(z=1.0, a=2.0))
  assert export.deserialize(od.serialize()).out_tree == od.out_tree


def test_deserialize_refuses_other_bytes():
  with pytest.raises(ValueError, match="not an Exported serialized by ember"):
    export.deserialize(b"not a module")
  blob = export.export(ember.jit(abs))(1.0).serialize()
  with pytest.raises(ValueError, match="truncated"):
    export.deserialize(blob[:40])


def test_refusals_name_what_is_not_supported():
  spec = ember.ShapeDtypeStruct
  with pytest.raises(NotImplementedError, match="symbolic dimensions"):
    spec(export.symbolic_shape("b, 3"), jnp.float32)

  class Spec:  # any object with a symbolic shape
    shape, dtype = export.symbolic_shape("b"), np.float32
  with pytest.raises(NotImplementedError, match="shape polymorphism"):
    export.export(ember.jit(jnp.sin))(Spec())
  with pytest.raises(NotImplementedError, match="calls the CPU kernels"):
    export.export(ember.jit(jnp.linalg.cholesky), platforms=["cpu", "cuda"])(jnp.eye(2))
  cuda = export.export(ember.jit(jnp.linalg.cholesky), platforms=["cuda"])(jnp.eye(2))
  assert "cusolver_potrf_ffi" in cuda.mlir_module()  # the GPU's kernels, as JAX exports it
  with pytest.raises(NotImplementedError, match="_override_lowering_rules"):
    export.export(ember.jit(abs), _override_lowering_rules=[])


# --- ffi ------------------------------------------------------------------------------------------

def test_ffi_lowering_registered_for_a_primitive():
  from ember.extend.core import Primitive
  from ember.interpreters import mlir
  potrf = Primitive("test_potrf")
  potrf.multiple_results = True
  potrf.def_abstract_eval(lambda a, **_: (a, ember.ShapeDtypeStruct((), jnp.int32)))
  mlir.register_lowering(potrf, ffi.ffi_lowering("lapack_spotrf_ffi",
                                                 operand_layouts=[(0, 1)],
                                                 result_layouts=[(0, 1), ()]))
  a = jnp.array([[4.0, 2.0], [2.0, 3.0]])
  factor, info = ember.jit(lambda a: potrf.bind(a, uplo=np.uint8(ord("L"))))(a)
  np.testing.assert_allclose(np.tril(factor), np.linalg.cholesky(np.asarray(a)), rtol=1e-6)
  assert int(info) == 0

  trsm = Primitive("test_trsm")  # one result: the rule's list of one is unwrapped
  trsm.def_abstract_eval(lambda a, b, **_: b)
  mlir.register_lowering(trsm, ffi.ffi_lowering(
      "lapack_strsm_ffi", operand_layouts=[(0, 1), (0, 1)], result_layouts=[(0, 1)],
      operand_output_aliases={1: 0}))
  flags = {k: np.uint8(ord(v)) for k, v in
           dict(side="L", uplo="L", trans_x="N", diag="N").items()}
  lower, b = np.tril(np.float32([[2, 0], [1, 4]])), np.float32([[2, 4], [3, 5]])
  x = ember.jit(lambda a, b: trsm.bind(a, b, **flags))(lower, b)
  np.testing.assert_allclose(x, np.linalg.solve(lower, b), rtol=1e-6)


def test_ffi_build_lowering_function_options():
  with pytest.raises(NotImplementedError, match="result_types"):
    ffi.build_ffi_lowering_function("t", result_types=[])
  with pytest.raises(ValueError, match="must be a dictionary"):
    ffi.build_ffi_lowering_function("t", backend_config="x")


_HANDLER = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error AddScaledImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y, float scale,
                                ffi::ResultBuffer<ffi::F32> out) {
  size_t n = x.element_count();
  if (y.element_count() != n) return ffi::Error::InvalidArgument("size mismatch");
  for (size_t i = 0; i < n; ++i)
    out->typed_data()[i] = x.typed_data()[i] + scale * y.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AddScaled, AddScaledImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Attr<float>("scale").Ret<ffi::Buffer<ffi::F32>>());
"""


@pytest.fixture(scope="module")
def add_scaled_library(tmp_path_factory):
  compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
  if compiler is None:
    pytest.skip("no C++ compiler to build an FFI handler")
  folder = tmp_path_factory.mktemp("ffi")
  (folder / "add.cc").write_text(_HANDLER)
  lib = folder / "libadd.so"
  build = subprocess.run([compiler, "-std=c++17", "-O1", "-shared", "-fPIC", "-w",
                          f"-I{ffi.include_dir()}", str(folder / "add.cc"), "-o", str(lib)],
                         capture_output=True, text=True, timeout=300)
  if build.returncode != 0:
    pytest.skip(f"could not build the FFI handler: {build.stderr[-500:]}")
  library = ctypes.cdll.LoadLibrary(str(lib))
  ffi.register_ffi_target("test_add_scaled", ffi.pycapsule(library.AddScaled), platform="cpu")
  return library


def _add_scaled(x, y, scale, vmap_method="broadcast_all"):
  call = ffi.ffi_call("test_add_scaled", ember.ShapeDtypeStruct(x.shape, x.dtype),
                      vmap_method=vmap_method)
  return call(x, y, scale=np.float32(scale))


def test_compiled_ffi_handler(add_scaled_library):
  x, y = jnp.arange(4.0), jnp.ones(4)
  np.testing.assert_array_equal(_add_scaled(x, y, 2.0), [2.0, 3.0, 4.0, 5.0])
  np.testing.assert_array_equal(ember.jit(_add_scaled, static_argnums=2)(x, y, 3.0),
                                [3.0, 4.0, 5.0, 6.0])
  xs = jnp.stack([x, 2 * x])
  for method in ("broadcast_all", "sequential", "sequential_unrolled"):
    out = ember.vmap(lambda a: _add_scaled(a, y, 1.0, method))(xs)
    np.testing.assert_array_equal(out, np.asarray(xs) + 1.0)
  with pytest.raises(ember.errors.JaxRuntimeError, match="Wrong scalar data type"):
    ffi.ffi_call("test_add_scaled", ember.ShapeDtypeStruct((4,), jnp.float32))(x, y, scale=2.0)


def test_compiled_ffi_handler_in_an_export(add_scaled_library):
  f = ember.jit(lambda x, y: _add_scaled(x, y, 0.5))
  with pytest.raises(ValueError, match="no compatibility guarantees"):
    export.export(f)(jnp.ones(3), jnp.ones(3))
  checks = [export.DisabledSafetyCheck.custom_call("test_add_scaled")]
  exp = export.deserialize(export.export(f, disabled_checks=checks)(jnp.ones(3),
                                                                    jnp.ones(3)).serialize())
  np.testing.assert_array_equal(exp.call(jnp.ones(3), jnp.arange(3.0)), [1.0, 1.5, 2.0])


# --- symbolic dimensions -------------------------------------------------------------------------

def test_symbolic_dimension_algebra():
  a, b = export.symbolic_shape("a, b")
  assert (a + b) * (a - b) == a * a - b * b
  assert (a + b) ** 2 == a * a + 2 * a * b + b * b
  assert hash(a + 1) == hash(1 + a)
  assert (3 * a * b) // (a * b) == 3
  assert str(a * b // 2) == "floordiv(a*b, 2)"
  assert max(a, a + 2) == a + 2 and min(a + 3, 1) == 1
  with pytest.raises(ember.errors.InconclusiveDimensionOperation):
    int(a)
  with pytest.raises(ember.errors.InconclusiveDimensionOperation):
    bool(a > b)
  scope = export.SymbolicScope(["a >= b + 2", "b <= 5"])
  a, b = export.symbolic_shape("a, b", scope=scope)
  assert a >= b + 2 and a > b and b < 6 and a - b > 1
  with pytest.raises(ValueError, match="Constraint parsing error"):
    export.SymbolicScope(["a != 3"])
