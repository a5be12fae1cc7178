"""jax.export and jax.ffi: exporting jitted functions (their attributes, module text, dropped
unused arguments, several platforms, custom-call and callback checks), calling an Exported
eagerly, under jit and grad (its exported VJP, float0 cotangents included) and the errors of
calling it wrongly; symbolic dimensions (parsing, printing, arithmetic, comparisons); ffi_call
of jaxlib's LAPACK kernels, its jaxprs, attributes, layouts, aliases, vmap methods and errors.
Serialization is not here: JAX 0.10.2 needs the flatbuffers package for it (tests/test_export.py
checks ember's round trips)."""
import collections

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
export = submodule("export")
ffi = submodule("ffi")
S = jax.ShapeDtypeStruct


def _init_lapack():
  jnp.linalg.cholesky(jnp.eye(2)).block_until_ready()  # JAX loads its LAPACK kernels lazily


def _f(x, y):
  return jnp.sin(x) * y, {"a": x.sum()}


# --- export --------------------------------------------------------------------------------------

@program
def export_attributes():
  exp = export.export(jax.jit(_f))(jnp.ones((3,), jnp.float32), 2.0)
  return (exp.fun_name, str(exp.in_avals), str(exp.out_avals), exp.in_shardings_hlo,
          exp.out_shardings_hlo, exp.nr_devices, exp.platforms, exp.ordered_effects,
          exp.unordered_effects, exp.disabled_safety_checks, exp.calling_convention_version,
          exp.module_kept_var_idx, exp.uses_global_constants, str(exp), exp.has_vjp(),
          exp.in_tree == jax.tree.structure(((0, 0), {})),
          exp.out_tree == jax.tree.structure((0, {"a": 0})),
          type(exp.mlir_module_serialized).__name__, exp.in_shardings_jax(None))


@program
def export_call_eager_jit_and_numpy_arguments():
  exp = export.export(jax.jit(_f))(jnp.ones((3,), jnp.float32), 2.0)
  x = jnp.array([0.5, 1.0, 2.0])
  return (exp.call(x, 3.0), jax.jit(exp.call)(x, 3.0), exp.call(np.float32([1, 2, 3]), 1.0),
          exp.call(np.ones(3), np.float32(2.0)))


@program
def export_call_printed_jaxpr():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.ones(3))
  return str(jax.make_jaxpr(exp.call)(jnp.ones(3), jnp.ones(3)))


@program
def export_grad_of_call_and_its_jaxpr():
  exp = export.export(jax.jit(_f))(jnp.ones((3,), jnp.float32), 2.0)
  loss = lambda x, y: exp.call(x, y)[0].sum() + exp.call(x, y)[1]["a"]  # noqa: E731
  x = jnp.array([0.5, 1.0, 2.0])
  return (jax.grad(loss, argnums=(0, 1))(x, 2.0), jax.jit(jax.grad(loss))(x, 2.0),
          str(jax.make_jaxpr(jax.grad(lambda x: exp.call(x, 2.0)[0].sum()))(x)))


@program
def export_vjp_attributes():
  exp = export.export(jax.jit(_f))(jnp.ones((3,), jnp.float32), 2.0)
  vjp = exp.vjp()
  return (vjp.fun_name, str(vjp.in_avals), str(vjp.out_avals), vjp.module_kept_var_idx,
          vjp.in_tree == jax.tree.structure(((0, 0, 0, 0), {})),
          vjp.out_tree == jax.tree.structure((0, 0)),
          vjp.call(jnp.ones(3), 2.0, jnp.ones(3), 1.0))


@program
def export_vjp_of_integer_arguments_is_float0():
  exp = export.export(jax.jit(lambda x, i: (x[i], i * 2)))(jnp.ones(3), 1)
  vjp = exp.vjp()
  g = jax.grad(lambda x: exp.call(x, 2)[0])(jnp.arange(3.0))
  return str(vjp.in_avals), str(vjp.out_avals), g, "tensor<i1>" in vjp.mlir_module()


@program
def export_second_order_grad():
  exp = export.export(jax.jit(lambda x: jnp.sin(x) * x))(1.0)
  return jax.grad(jax.grad(exp.call))(0.7), jax.grad(exp.call)(0.7)


@program
def export_unused_arguments_are_dropped():
  drop = export.export(jax.jit(lambda x, y, z: x * 2 + z))(jnp.ones(3), jnp.ones(2), 1.0)
  keep = export.export(jax.jit(lambda x, y: x * 2, keep_unused=True))(jnp.ones(3), jnp.ones(2))
  dead = export.export(jax.jit(lambda x, y: (x * 2, y * 3)[0]))(jnp.ones(3), jnp.ones(2))
  return (drop.module_kept_var_idx, keep.module_kept_var_idx, dead.module_kept_var_idx,
          drop.call(jnp.ones(3), jnp.zeros(2), 5.0), dead.call(jnp.ones(3), jnp.ones(2)),
          "%arg1" in drop.mlir_module(), "%arg2" in drop.mlir_module())


@program
def export_module_text():
  exp = export.export(jax.jit(_f))(jnp.ones((3,), jnp.float32), 2.0)
  text = exp.mlir_module()
  return ("module @jit__f" in text, "jax.uses_shape_polymorphism = false" in text,
          'jax.result_info = "result[0]"' in text, "jax.result_info = \"result[1]['a']\"" in text,
          "func.func public @main(%arg0: tensor<3xf32>" in text, "stablehlo.sine" in text)


@program
def export_constants_are_in_the_module():
  c = jnp.arange(100.0)
  exp = export.export(jax.jit(lambda x: x + c))(c)
  return exp.module_kept_var_idx, exp.call(jnp.ones(100))[-3:], exp.uses_global_constants


@program
def export_several_platforms():
  f = jax.jit(lambda x, y: x * y)
  exp = export.export(f, platforms=["cpu", "cuda"])(jnp.ones(3), jnp.float32(2))
  text = exp.mlir_module()
  return (exp.platforms, exp.uses_global_constants, exp.module_kept_var_idx,
          'jax.global_constant = "_platform_index"' in text,
          "jax.uses_shape_polymorphism = true" in text, exp.call(jnp.ones(3), 3.0),
          jax.jit(exp.call)(jnp.arange(3.0), 2.0))


@program
def export_for_another_platform_refuses_the_call():
  exp = export.export(jax.jit(jnp.sin), platforms=["tpu"])(jnp.ones(3))
  return exp.platforms, exp.call(jnp.ones(3))


@program
def export_platform_check_disabled():
  checks = [export.DisabledSafetyCheck.platform()]
  exp = export.export(jax.jit(jnp.cos), platforms=["tpu"], disabled_checks=checks)(1.0)
  return exp.platforms, exp.disabled_safety_checks, exp.call(0.0)


@program
def export_of_a_function_not_jitted():
  return export.export(lambda x: jnp.sin(x))(1.0)


@program
def export_call_with_wrong_shape():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call(jnp.ones(4), 2.0)


@program
def export_call_with_wrong_dtype():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call(jnp.ones(3, jnp.int32), 2.0)


@program
def export_call_with_wrong_rank():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call(jnp.ones((3, 3)), 2.0)


@program(exact_message=True)
def export_call_with_too_few_arguments():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call(jnp.ones(3))


@program(exact_message=True)
def export_call_with_extra_keyword():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call(jnp.ones(3), 2.0, z=1)


@program(exact_message=True)
def export_call_with_a_list_for_an_array():
  exp = export.export(jax.jit(lambda x, y: x * y))(jnp.ones(3), jnp.float32(2))
  return exp.call([1.0, 2.0, 3.0], 2.0)


@program(phrases=("call_exported",))
def export_vmap_of_call():
  exp = export.export(jax.jit(jnp.sin))(jnp.ones(3))
  return jax.vmap(exp.call)(jnp.ones((2, 3)))


@program
def export_jvp_of_call():
  exp = export.export(jax.jit(jnp.sin))(1.0)
  return jax.jvp(exp.call, (1.0,), (1.0,))


@program
def export_host_callback_is_refused():
  f = jax.jit(lambda x: jax.pure_callback(np.sin, x, x))
  return export.export(f)(jnp.ones(3))


@program
def export_unknown_custom_call_is_refused():
  call = ffi.ffi_call("my_unknown_target", S((2,), jnp.float32))
  return export.export(jax.jit(lambda x: call(x)))(jnp.ones(2))


@program
def export_custom_call_allowed_by_a_disabled_check():
  call = ffi.ffi_call("my_unknown_target", S((2,), jnp.float32))
  checks = [export.DisabledSafetyCheck.custom_call("my_unknown_target")]
  exp = export.export(jax.jit(lambda x: call(x)), disabled_checks=checks)(jnp.ones(2))
  return exp.disabled_safety_checks, str(exp.out_avals)


@program
def export_side_effecting_call_keeps_its_arguments():
  call = ffi.ffi_call("my_unknown_target", S((2,), jnp.float32), has_side_effect=True)
  checks = [export.DisabledSafetyCheck.custom_call("my_unknown_target")]
  f = jax.jit(lambda x, y: (call(y), x)[1])
  exp = export.export(f, disabled_checks=checks)(jnp.ones(2), jnp.ones(2))
  return exp.module_kept_var_idx, str(exp.unordered_effects), exp.ordered_effects


@program
def export_lapack_kernels_are_allowed():
  exp = export.export(jax.jit(jnp.linalg.cholesky))(jnp.eye(3))
  return exp.call(jnp.eye(3) * 4.0), "lapack_spotrf_ffi" in exp.mlir_module()


@program
def export_call_inside_an_exported_function():
  inner = export.export(jax.jit(jnp.sin))(jnp.ones(3))
  outer = export.export(jax.jit(lambda x: inner.call(x) * 2))(jnp.ones(3))
  return outer.call(jnp.arange(3.0)), jax.grad(lambda x: outer.call(x).sum())(jnp.arange(3.0))


@program
def export_namedtuple_and_kwargs_structures():
  P = collections.namedtuple("P", "a b")
  exp = export.export(jax.jit(lambda p, *, s: P(p.b * s, p.a)))(P(1.0, jnp.ones(2)), s=2.0)
  return exp.call(P(3.0, jnp.arange(2.0)), s=1.5), exp.in_tree.num_leaves


@program
def export_static_arguments():
  f = jax.jit(lambda x, n: x ** n, static_argnums=1)
  exp = export.export(f)(jnp.ones(2), 3)
  return str(exp.in_avals), exp.call(jnp.array([2.0, 3.0]))


@program
def export_module_constants_and_versions():
  c = export.DisabledSafetyCheck.custom_call("foo")
  return (export.minimum_supported_calling_convention_version,
          export.maximum_supported_calling_convention_version,
          export.default_export_platform(), str(c), repr(export.DisabledSafetyCheck.platform()),
          c.is_custom_call(), export.DisabledSafetyCheck.platform().is_custom_call(),
          c == export.DisabledSafetyCheck.custom_call("foo"))


@program
def export_register_namedtuple_serialization_needs_a_namedtuple():
  return export.register_namedtuple_serialization(dict, serialized_name="corpus.dict")


# --- symbolic dimensions ------------------------------------------------------------------------

@program
def symbolic_shape_parsing_and_printing():
  specs = ["b, 3, 2*b + 1", "a + b", "b*a", "a*a*b", "c + b*a + a", "2 - a", "-a", "a - 2*b",
           "floordiv(a, 2) + a", "mod(a + 1, 3)", "max(a, b)", "min(a, 3)", "a^2", "3",
           "-3 + a", "floordiv(4, 2)", "(b, 3)", "b,", "", "b - -2", "2*3*b", "b^0"]
  return [str(export.symbolic_shape(s)) for s in specs]


@program
def symbolic_shape_with_like():
  return (str(export.symbolic_shape("b, ...", like=(None, 3, 4))),
          str(export.symbolic_shape("_, c", like=(2, None))),
          str(export.symbolic_shape("b", like=(2, None))))


@program(exact_message=True)
def symbolic_shape_syntax_error_star():
  return export.symbolic_shape("b c")


@program(exact_message=True)
def symbolic_shape_ellipsis_without_like():
  return export.symbolic_shape("b, ...")


@program(exact_message=True)
def symbolic_shape_different_known_size():
  return export.symbolic_shape("3, b", like=(2, None))


@program(exact_message=True)
def symbolic_shape_not_a_string():
  return export.symbolic_shape(3)


@program(exact_message=True)
def symbolic_shape_scope_and_constraints():
  return export.symbolic_shape("a", scope=export.SymbolicScope(), constraints=["a >= 2"])


@program
def symbolic_dimension_arithmetic():
  a, b = export.symbolic_shape("a, b")
  return [str(e) for e in (a + 1, 2 * a, a * a, a - a, 3 - a, a * a * a, (a + 1) * (a - 1),
                           a * 0, a - a + 2, a // a, (2 * a) // a, (a * a + a) // a,
                           (a + 1) // a, a % a, 5 // a, (a + 3) // 2, (2 * a + 4) // 2,
                           -a // 2, (a * 6) // 3, (a * 6) % 3, divmod(a, 2), a.max(3),
                           a.min(1), a.max(a + 1), a ** 2, b + a)]


@program
def symbolic_dimension_comparisons():
  a, b = export.symbolic_shape("a, b")
  return (a >= 1, a + b >= 2, a * b >= 1, a != 0, a == 0, a < 0, a <= a, a <= 0, a > 0,
          (a % 3) < 3, (a // 2) >= 0, bool(a), a == export.symbolic_shape("a")[0],
          export.is_symbolic_dim(a), export.is_symbolic_dim(3), type(a - a + 2).__name__)


@program(phrases=("Symbolic dimension comparison 'a' >= '2' is inconclusive",))
def symbolic_dimension_inconclusive_comparison():
  a, = export.symbolic_shape("a")
  return a >= 2


@program
def symbolic_dimension_constraints():
  c, = export.symbolic_shape("c", constraints=["c >= 4", "c <= 10"])
  d, e = export.symbolic_shape("d, e", constraints=["d >= e"])
  f, g = export.symbolic_shape("f, g", constraints=["f == g + 1"])
  return (c >= 4, c > 3, c < 11, d >= e, d - e >= 0, str(f), f == g + 1,
          str(export.symbolic_shape("f, g, f+1", constraints=["f == g + 1"])),
          str(export.symbolic_shape("b, c", constraints=["b == c"])))


@program(exact_message=True)
def symbolic_constraint_without_comparison():
  return export.symbolic_shape("a", constraints=["a > 3"])


@program(phrases=("Invalid mixing of symbolic scopes",))
def symbolic_dimensions_of_two_scopes():
  a, = export.symbolic_shape("a")
  b, = export.symbolic_shape("b")
  return a + b


@program(exact_message=True)
def symbolic_dimension_as_a_float():
  a, = export.symbolic_shape("a")
  return a * 3.0


@program
def symbolic_args_specs_concrete():
  x = np.ones((2, 3), np.float32)
  return (str(export.symbolic_args_specs((x,), "2, _")),
          str(export.symbolic_args_specs({"a": x}, {"a": None})))


@program(exact_message=True)
def symbolic_args_specs_prefix_mismatch():
  return export.symbolic_args_specs([np.ones(3), np.ones(2)], ["b"])


@program
def export_with_symbolic_shape():
  spec = S(export.symbolic_shape("b, 3"), jnp.float32)
  exp = export.export(jax.jit(lambda x: jnp.sin(x) * 2))(spec)
  return str(exp.in_avals), exp.call(jnp.ones((2, 3)))


# --- ffi ------------------------------------------------------------------------------------------

def _potrf(**kwargs):
  return ffi.ffi_call("lapack_spotrf_ffi", (S((2, 2), jnp.float32), S((), jnp.int32)),
                      input_layouts=[(1, 0)], output_layouts=[(1, 0), ()], **kwargs)


@program
def ffi_call_lapack_eager_and_jit():
  _init_lapack()
  x = jnp.array([[4.0, 2.0], [2.0, 3.0]])
  call = _potrf()
  f = lambda x: call(x, uplo=np.uint8(ord("L")))  # noqa: E731
  return f(x), jax.jit(f)(x), str(jax.make_jaxpr(f)(x))


@program
def ffi_call_lapack_getrf_single_and_tuple_results():
  _init_lapack()
  getrf = ffi.ffi_call("lapack_sgetrf_ffi", [S((2, 2), jnp.float32), S((2,), jnp.int32),
                                             S((), jnp.int32)],
                       input_layouts=[(1, 0)], output_layouts=[(1, 0), None, None])
  out = getrf(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
  return type(out).__name__, out


@program
def ffi_call_input_output_alias():
  _init_lapack()
  call = _potrf(input_output_aliases={0: 0})
  x = jnp.array([[4.0, 2.0], [2.0, 3.0]])
  return jax.jit(lambda x: call(x, uplo=np.uint8(ord("L"))))(x)


@program
def ffi_call_vmap_methods():
  _init_lapack()
  x = jnp.array([[4.0, 2.0], [2.0, 3.0]])
  xs = jnp.stack([x, 4.0 * x])
  out = []
  for method in ["sequential", "sequential_unrolled", "legacy_vectorized"]:
    call = _potrf(vmap_method=method)
    out.append(jax.vmap(lambda m: call(m, uplo=np.uint8(ord("L"))))(xs))
  return out


@program
def ffi_call_vmap_jaxprs():
  seq = ffi.ffi_call("foo", S((2,), jnp.float32), vmap_method="sequential")
  exp = ffi.ffi_call("foo", S((2, 2), jnp.float32), vmap_method="expand_dims",
                     input_layouts=[(0, 1), None], output_layouts=(1, 0))
  bca = ffi.ffi_call("foo", S((2,), jnp.float32), vmap_method="broadcast_all")
  leg = ffi.ffi_call("foo", S((2,), jnp.float32), vmap_method="legacy_vectorized")
  return (str(jax.make_jaxpr(jax.vmap(seq))(jnp.ones((3, 2)))),
          str(jax.make_jaxpr(jax.vmap(exp, in_axes=(0, None)))(jnp.ones((3, 2, 2)), jnp.ones(2))),
          str(jax.make_jaxpr(jax.vmap(bca, in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(2))),
          str(jax.make_jaxpr(jax.vmap(leg, in_axes=(1, None)))(jnp.ones((2, 3)), jnp.ones(2))))


@program
def ffi_call_attributes_in_the_jaxpr():
  call = ffi.ffi_call("foo", S((2,), jnp.float32), has_side_effect=True)
  f = lambda x: call(x, a=1, b=2.0, c="s", d=np.float64(1), e=True,  # noqa: E731
                     f=np.arange(3), g={"k": 1})
  return str(jax.make_jaxpr(f)(jnp.ones(2)))


@program
def ffi_call_results_of_other_dtypes_and_no_results():
  c64 = ffi.ffi_call("foo", S((2,), jnp.float64))
  none = ffi.ffi_call("foo", [])
  one = ffi.ffi_call("foo", (S((2,), jnp.float32),))
  return (str(jax.make_jaxpr(c64)(1.0)), str(jax.make_jaxpr(none)(1.0)),
          str(jax.make_jaxpr(one)(1.0)))


@program
def ffi_call_attributes_in_the_lowered_text():
  call = ffi.ffi_call("foo", S((2,), jnp.float32))
  text = jax.jit(lambda x: call(x, n=3, u=np.uint8(7), t=True, s="hi")).lower(1.0).as_text()
  return ("n = 3 : i64" in text, "u = 7 : ui8" in text, "t = true" in text, 's = "hi"' in text,
          "operand_layouts = [dense<> : tensor<0xindex>]" in text,
          "result_layouts = [dense<0> : tensor<1xindex>]" in text)


@program
def ffi_call_unregistered_target_fails_at_run_time():
  return ffi.ffi_call("not_registered_target", S((2,), jnp.float32))(1.0)


@program(exact_message=True)
def ffi_call_grad_is_refused():
  _init_lapack()
  call = _potrf()
  return jax.grad(lambda x: call(x, uplo=np.uint8(76))[0].sum())(jnp.eye(2))


@program(exact_message=True)
def ffi_call_vmap_without_method():
  _init_lapack()
  call = _potrf()
  return jax.vmap(lambda x: call(x, uplo=np.uint8(76)))(jnp.stack([jnp.eye(2)] * 2))


@program(exact_message=True)
def ffi_call_unknown_vmap_method():
  return ffi.ffi_call("foo", S((2,), jnp.float32), vmap_method="bad")


@program(exact_message=True)
def ffi_call_legacy_config_with_api_4():
  return ffi.ffi_call("foo", S((2,), jnp.float32), legacy_backend_config="x")


@program(exact_message=True)
def ffi_call_result_without_shape():
  return ffi.ffi_call("foo", [3])


@program(exact_message=True)
def ffi_call_layout_count_mismatch():
  return ffi.ffi_call("foo", S((2,), jnp.float32), input_layouts=[None, None])(1.0)


@program(exact_message=True)
def ffi_call_alias_of_different_avals():
  call = ffi.ffi_call("foo", S((2,), jnp.float32), input_output_aliases={0: 0})
  return call(jnp.ones(3))


@program(exact_message=True)
def ffi_call_alias_input_out_of_range():
  call = ffi.ffi_call("foo", S((2,), jnp.float32), input_output_aliases={1: 0})
  return call(jnp.ones(3))


@program(exact_message=True)
def ffi_call_unhashable_attribute():
  return ffi.ffi_call("foo", S((2,), jnp.float32))(jnp.ones(3), bad=[1, 2])


@program(exact_message=True)
def ffi_call_attributes_need_api_4():
  call = ffi.ffi_call("foo", S((2,), jnp.float32), custom_call_api_version=2)
  return jax.jit(lambda x: call(x, a=1)).lower(1.0)


@program(exact_message=True)
def ffi_register_ffi_type_id_is_gone():
  return ffi.register_ffi_type_id("state", None)


@program
def ffi_helpers():
  import ctypes
  import os
  capsule = ffi.pycapsule(ctypes.CDLL(None).abs)
  return (type(capsule).__name__, os.path.isfile(os.path.join(ffi.include_dir(), "xla", "ffi",
                                                              "api", "ffi.h")))


@program
def ffi_register_target_and_call_it():
  _init_lapack()
  from jaxlib.cpu import _lapack
  ffi.register_ffi_target("corpus_getrf", _lapack.registrations()["lapack_sgetrf_ffi"])
  call = ffi.ffi_call("corpus_getrf", [S((2, 2), jnp.float32), S((2,), jnp.int32),
                                       S((), jnp.int32)],
                      input_layouts=[(1, 0)], output_layouts=[(1, 0), None, None])
  return call(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
