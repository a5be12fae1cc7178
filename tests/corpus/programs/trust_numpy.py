"""Silent divergences once found in jax.numpy, lax, dtypes, flatten_util and scipy.special (issue
15, "trust"): weak types through jnp.pad and ravel_pytree, integer indices into axes of size 0,
joining typed PRNG keys, the complex dtype of integer inputs, lax.complex and lax.conj operand
checks, scipy.special promotion, a traced ddof in nanvar/nanstd, jnp.asarray's exceptions for
values of no numeric type, and jnp.trapezoid's shapes and errors.

Each program targets one case so a divergence names its cause."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


def _weak_vector(value, n=3):
  """A weakly typed 1-D array (broadcasting a weak scalar keeps its weak type)."""
  return lax.broadcast(jnp.asarray(value), (n,))


# --- 1. jnp.pad keeps a weakly typed array weak ---------------------------------------------------

@program
def pad_constant_keeps_weak_type():
  wf, wi = _weak_vector(1.0), _weak_vector(2)
  return (jnp.pad(wf, 1), jnp.pad(wi, (1, 2)), jnp.pad(wf, 1, constant_values=2.5),
          jnp.pad(wi, 1, constant_values=jnp.float32(7)), jnp.pad(wf, 1, constant_values=True),
          jnp.pad(wf, 1, constant_values=(1, 2)), jnp.pad(wf, 1, constant_values=((3, 4),)))


@program
def pad_other_modes_keep_weak_type():
  wf = _weak_vector(1.0)
  return [jnp.pad(wf, 2, mode=m) for m in ("edge", "reflect", "symmetric", "wrap", "maximum",
                                            "minimum", "mean", "median", "linear_ramp")]


@program
def pad_reflect_odd_and_stat_length_keep_weak_type():
  w2 = lax.broadcast(jnp.asarray(1.0), (2, 3))
  return (jnp.pad(w2, 2, mode="reflect", reflect_type="odd"),
          jnp.pad(w2, ((1, 2), (0, 1)), mode="mean", stat_length=((1, 2), (1, 1))),
          jnp.pad(w2, 1, mode="linear_ramp", end_values=(1, 2)),
          jnp.pad(w2, ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))))


@program
def pad_strong_array_stays_strong():
  x, i8 = jnp.array([1.0, 2.0]), jnp.array([1, 2], jnp.int8)
  return (jnp.pad(x, 1, constant_values=jnp.asarray(3.0)), jnp.pad(i8, 1, constant_values=1.5),
          jnp.pad(x, 1, mode="mean"), jnp.pad(i8, 1, constant_values=jnp.array([5., 6.])))


@program
def pad_complex_constant_warns():
  wf = _weak_vector(1.0)
  return jnp.pad(wf, 1, constant_values=2j), jnp.pad(jnp.arange(2), 1, constant_values=1 + 2j)


@program
def pad_weak_under_jit():
  return jax.jit(lambda a: jnp.pad(a, 1))(_weak_vector(1.0))


@program
def pad_jaxpr_of_weak_array():
  return str(jax.make_jaxpr(lambda a: jnp.pad(a, 1))(_weak_vector(1.0)))


# --- 2. an integer index into an axis of size 0 ---------------------------------------------------

@program
def index_empty_axis_static_int():
  return jnp.zeros((0, 3))[0]


@program
def index_empty_axis_negative_int():
  return jnp.zeros((0,))[-1]


@program
def index_empty_axis_jit_traced_int():
  return jax.jit(lambda x, i: x[i])(jnp.zeros((0, 3)), 0)


@program
def index_empty_axis_jit_second_axis():
  return jax.jit(lambda x, i: x[1, i])(jnp.zeros((2, 0)), 0)


@program
def index_empty_axis_scalar_array_index():
  return jnp.zeros((0, 3))[jnp.array(0)]


@program
def index_empty_axis_with_new_axis():
  return jnp.zeros((0, 3))[None, 0]


@program
def index_empty_axis_at_set():
  return jnp.zeros((0, 3)).at[0].set(1.0)


@program
def index_empty_axis_jit_at_add():
  return jax.jit(lambda x, i: x.at[i].add(1.0))(jnp.zeros((0, 3)), 0)


@program
def index_empty_axis_at_get_fill():
  return jnp.zeros((0, 3)).at[0].get(mode="fill", fill_value=5.0)


@program
def index_empty_axis_make_jaxpr():
  return str(jax.make_jaxpr(lambda x, i: x[i])(jnp.zeros((0, 3)), 0))


@program
def index_empty_axis_vmap():
  z = jnp.zeros((0, 3))
  return jax.vmap(lambda i: z[i])(jnp.arange(2))


@program
def index_empty_axis_array_indices_are_not_checked():
  z = jnp.zeros((0, 3))
  return z[jnp.array([], jnp.int32)], z[0:1], z[:, 0], z.at[jnp.array([0])].set(1.0)


@program
def index_empty_axis_slices_still_work():
  return jax.jit(lambda x, i: x[:, i])(jnp.zeros((0, 3)), 1)


@program
def take_along_axis_of_empty_axis_gives_zeros():
  z = jnp.zeros((0, 3))
  return (jnp.take_along_axis(z, jnp.zeros((1, 3), jnp.int32), axis=0),
          jnp.take_along_axis(jnp.zeros((3, 0), jnp.int32), jnp.ones((3, 2), jnp.int32), axis=1),
          jnp.take_along_axis(jnp.zeros((0,)), jnp.ones((2,), jnp.int32), axis=None),
          jnp.take_along_axis(z, jnp.zeros((0, 3), jnp.int32), axis=0))


@program
def dynamic_slice_of_empty_axis():
  return lax.dynamic_slice(jnp.zeros((0, 3)), (0, 0), (1, 3))


# --- 3. joining typed PRNG keys -------------------------------------------------------------------

@program
def stack_typed_keys():
  k1, k2 = jax.random.key(0), jax.random.key(1)
  ks = jax.random.split(k1, 3)
  return (jnp.stack([k1, k2]), jnp.stack((k1, k2), axis=-1), jnp.stack([ks, ks], axis=1),
          jnp.stack(ks), jnp.stack([k1, k2], dtype=k1.dtype))


@program
def stack_typed_keys_prints_like_jax():
  k1, k2 = jax.random.key(0), jax.random.key(1)
  out = jnp.stack([k1, k2])
  return str(out), repr(out[1]), out.shape, str(out.dtype)


@program
def concatenate_typed_keys():
  ks = jax.random.split(jax.random.key(0), 3)
  return (jnp.concatenate([ks, ks]), jnp.concatenate([ks, ks], axis=None),
          jnp.concatenate([ks[None], ks[None]], axis=-1), jnp.concat([ks, ks]),
          jnp.concatenate(jnp.stack([ks, ks])))


@program
def hstack_vstack_dstack_append_typed_keys():
  k1, k2 = jax.random.key(0), jax.random.key(1)
  ks = jax.random.split(k1, 3)
  return (jnp.hstack([k1, k2]), jnp.vstack([k1, k2]), jnp.dstack([ks, ks]),
          jnp.column_stack([ks, ks]), jnp.append(ks, k1), jnp.append(ks[None], ks[None], axis=0))


@program
def stacked_keys_draw_like_the_originals():
  k1, k2 = jax.random.key(0), jax.random.key(1)
  keys = jnp.stack([k1, k2])
  return jax.random.uniform(keys[1]), jax.random.uniform(k2)


@program
def stack_typed_keys_under_jit_and_vmap():
  k1, k2 = jax.random.key(0), jax.random.key(1)
  ks = jax.random.split(k1, 3)
  return (jax.jit(lambda a, b: jnp.stack([a, b]))(k1, k2),
          jax.vmap(lambda k: jnp.stack([k, k]))(ks))


@program
def stack_keys_with_integers_is_an_error():
  return jnp.stack([jax.random.key(0), jnp.uint32([0, 1])])


@program
def concatenate_keys_with_integers_is_an_error():
  ks = jax.random.split(jax.random.key(0), 3)
  return jnp.concatenate([jnp.zeros((2, 2), jnp.uint32), ks])


@program
def stack_keys_of_two_implementations_is_an_error():
  return jnp.stack([jax.random.key(0, impl="rbg"), jax.random.key(0)])


@program
def stack_keys_with_a_dtype_is_an_error():
  return jnp.stack([jax.random.key(0), jax.random.key(1)], dtype=jnp.uint32)


@program
def stack_keys_of_different_shapes_is_an_error():
  ks = jax.random.split(jax.random.key(0), 3)
  return jnp.stack([ks, ks[:2]])


@program
def concatenate_keys_of_different_ranks_is_an_error():
  ks = jax.random.split(jax.random.key(0), 3)
  return jnp.concatenate([ks, ks[None]])


@program
def concatenate_zero_dimensional_keys_is_an_error():
  return jnp.concatenate([jax.random.key(0), jax.random.key(1)])


@program
def dstack_keys_of_different_shapes_is_an_error():
  return jnp.dstack([jax.random.key(0), jax.random.split(jax.random.key(0), 3)])


# --- 4. the complex dtype of real inputs ----------------------------------------------------------

_REAL = ("bool", "int8", "int16", "int32", "uint8", "uint32", "float16", "bfloat16", "float32")


@program(x64=True)
def sort_complex_dtype_of_each_real_dtype_x64():
  return {name: str(jnp.sort_complex(jnp.ones(2, name)).dtype)
          for name in _REAL + ("int64", "uint64", "float64")}


@program
def sort_complex_dtype_of_each_real_dtype_x32():
  return {name: str(jnp.sort_complex(jnp.ones(2, name)).dtype) for name in _REAL}


@program(x64=True)
def fft_dtypes_of_integer_inputs_x64():
  return {name: (str(jnp.fft.fft(jnp.ones(4, name)).dtype),
                 str(jnp.fft.rfft(jnp.ones(4, name)).dtype))
          for name in _REAL + ("int64", "float64")}


@program(x64=True)
def roots_of_a_constant_x64():
  return {name: jnp.roots(jnp.ones(1, name)) for name in ("int8", "int32", "int64", "float32",
                                                           "float64")}


# --- 5. lax.complex and lax.conj operand checks ---------------------------------------------------

@program
def lax_complex_float16_is_a_type_error():
  return lax.complex(jnp.ones(2, jnp.float16), jnp.ones(2, jnp.float16))


@program
def lax_complex_bfloat16_under_jit_is_a_type_error():
  x = jnp.ones(2, jnp.bfloat16)
  return jax.jit(lax.complex)(x, x)


@program
def lax_complex_int_second_operand_is_a_type_error():
  return lax.complex(jnp.float32(1), 2)


@program
def lax_complex_mixed_floats_is_a_type_error():
  return lax.complex(jnp.float32(1), jnp.float16(1))


@program
def lax_complex_of_complex_is_a_type_error():
  return lax.complex(jnp.complex64(1), jnp.float32(1))


@program(x64=True)
def lax_complex_float32_with_python_float_x64_is_a_type_error():
  return lax.complex(jnp.float32(1), 2.0)


@program
def lax_complex_valid_operands():
  return (lax.complex(1.0, 2.0), lax.complex(jnp.float32(1), 2.0),
          lax.complex(np.float32(1), np.float64(2)), jax.jit(lax.complex)(jnp.ones(2), jnp.ones(2)),
          str(jax.make_jaxpr(lax.complex)(jnp.ones(2), jnp.ones(2))))


@program
def lax_conj_of_real_types():
  return (lax.conj(1.5), lax.conj(jnp.float32(1)), lax.conj(jnp.asarray(1.0)),
          lax.conj(jnp.asarray(1j)), str(jax.make_jaxpr(lax.conj)(1.0)),
          str(jax.make_jaxpr(lax.conj)(1j)), jax.grad(lambda x: lax.conj(x).real)(1.0))


@program
def lax_conj_of_an_integer_is_a_type_error():
  return lax.conj(jnp.int8(1))


@program
def lax_conj_of_float16_is_a_type_error():
  return lax.conj(jnp.ones(2, jnp.float16))


# --- 6. ravel_pytree keeps weak types -------------------------------------------------------------

def _ravel(tree):
  flat, unravel = submodule("flatten_util").ravel_pytree(tree)
  return flat, unravel(flat)


@program
def ravel_pytree_all_weak_leaves():
  return (_ravel({"a": 1.0, "b": jnp.asarray(2.0), "c": _weak_vector(1.0, 2)}),
          _ravel([1, 2, jnp.asarray(3)]))


@program
def ravel_pytree_mixed_weak_and_strong():
  return _ravel([jnp.asarray(1.0), jnp.ones(2)]), _ravel([1.0, jnp.ones(2, jnp.float16)])


@program
def ravel_pytree_mixed_dtypes():
  return (_ravel([jnp.ones(2, jnp.int32), jnp.ones(2, jnp.float16)]),
          _ravel([jnp.ones(2, jnp.int32), 2.5]),
          _ravel([jnp.array([True]), jnp.array([2], jnp.int8)]),
          _ravel({"x": (1.0, [2, 3.0]), "y": jnp.ones((2, 2), jnp.bfloat16)}))


@program(x64=True)
def ravel_pytree_empty_trees_x64():
  return _ravel({}), _ravel([]), _ravel(None), _ravel([jnp.zeros((0,)), jnp.zeros((0,), jnp.int32)])


@program
def ravel_pytree_unravel_is_dtype_polymorphic_for_one_dtype():
  _, unravel = submodule("flatten_util").ravel_pytree([jnp.ones(2)])
  return unravel(jnp.array([3, 4])), unravel(jnp.ones((2, 1)))


@program
def ravel_pytree_unravel_wrong_dtype_is_a_type_error():
  _, unravel = submodule("flatten_util").ravel_pytree([jnp.ones(2, jnp.int32), 2.5])
  return unravel(jnp.ones(3, jnp.int32))


@program
def ravel_pytree_unravel_wrong_size_is_an_error():
  _, unravel = submodule("flatten_util").ravel_pytree([1.0, 2.0])
  return unravel(jnp.ones(1))


@program
def ravel_pytree_jaxprs():
  ravel = submodule("flatten_util").ravel_pytree
  return (str(jax.make_jaxpr(lambda t: ravel(t)[0])([1.0, jnp.ones(2)])),
          str(jax.make_jaxpr(lambda t: ravel(t)[0])([jnp.ones(2, jnp.int32),
                                                     jnp.ones(2, jnp.float16)])),
          str(jax.make_jaxpr(lambda v: ravel([jnp.ones(2, jnp.int32), 1.0])[1](v))(jnp.ones(3))))


@program
def ravel_pytree_under_jit_and_grad():
  ravel = submodule("flatten_util").ravel_pytree
  return (jax.jit(lambda t: ravel(t)[0])([1.0, 2.0]),
          jax.grad(lambda v: jnp.sum(ravel([v, 2 * v])[0]))(1.0))


# --- 7. scipy.special / nn promotion --------------------------------------------------------------

_INPUTS = (("pyint", 1), ("pyfloat", 0.5), ("pybool", True), ("i32", [1, 2]), ("bool", [True]),
           ("u8", [1]))


def _sweep(fn):
  out = {}
  for name, v in _INPUTS:
    x = jnp.array(v, jnp.uint8 if name == "u8" else None) if isinstance(v, list) else v
    r = fn(x)
    out[name] = (str(r.dtype), bool(r.weak_type))
  return out


@program
def special_unary_promotion():
  sp = submodule("scipy.special")
  return {f.__name__: _sweep(f) for f in (sp.logit, sp.expit, sp.erf, sp.gammaln, sp.digamma,
                                          sp.ndtr, sp.entr, sp.i1)}


@program
def special_rel_entr_and_kl_div_promotion():
  sp = submodule("scipy.special")
  return {"rel_entr": _sweep(lambda x: sp.rel_entr(x, 0.5)),
          "kl_div": _sweep(lambda x: sp.kl_div(x, 0.5)),
          "rel_entr_weak": sp.rel_entr(jnp.asarray(0.5), jnp.asarray(0.25)),
          "xlogy": _sweep(lambda x: sp.xlogy(x, 0.5))}


@program(x64=True)
def special_multigammaln_promotion_x64():
  sp = submodule("scipy.special")
  return (sp.multigammaln(jnp.array([True]), 2), sp.multigammaln(3, 2), sp.multigammaln(3.5, 2),
          sp.multigammaln(jnp.array([3], jnp.int8), 2), sp.multigammaln(jnp.float32(3.), 2.5))


@program
def special_multigammaln_jaxpr():
  sp = submodule("scipy.special")
  return str(jax.make_jaxpr(lambda a: sp.multigammaln(a, 2))(jnp.float32(3.)))


@program
def special_multigammaln_array_d_is_a_type_error():
  sp = submodule("scipy.special")
  return sp.multigammaln(jnp.array([1.], jnp.float16), jnp.array([1.], jnp.float16))


@program
def special_logit_jaxpr_and_grad():
  sp = submodule("scipy.special")
  return (str(jax.make_jaxpr(sp.logit)(jnp.array([1, 2]))), str(jax.make_jaxpr(sp.logit)(1)),
          jax.grad(sp.logit)(0.25), jax.vmap(jax.grad(sp.logit))(jnp.array([0.1, 0.5])))


@program(x64=True)
def bool_squares_to_int32_x64():
  b = jnp.array([True, False])
  return (jnp.square(b), jnp.floor_divide(b, b), jnp.remainder(b, b), jnp.power(b, 2), b ** 2,
          jnp.left_shift(b, b), jax.nn.standardize(b), jax.nn.squareplus(b), jnp.sum(b))


# --- 8. a traced ddof ----------------------------------------------------------------------------

@program
def var_std_nanvar_nanstd_with_traced_ddof():
  x = jnp.array([[1., 2., 4.], [3., 5., 9.]])
  return {fn: (jax.jit(lambda a, d: getattr(jnp, fn)(a, ddof=d))(x, 1),
               jax.jit(lambda a, d: getattr(jnp, fn)(a, axis=1, ddof=d))(x, 1.5),
               jax.jit(lambda a, d: getattr(jnp, fn)(a, ddof=d))(x, 6),
               jax.vmap(lambda d: getattr(jnp, fn)(x, ddof=d))(jnp.arange(3)),
               getattr(jnp, fn)(x, ddof=0.5), getattr(jnp, fn)(x, ddof=jnp.array(1)))
          for fn in ("var", "std", "nanvar", "nanstd")}


@program
def nanvar_nanstd_ddof_gradients_and_nans():
  x = jnp.array([[1., jnp.nan, 4.], [3., 5., 9.]])
  return (jax.grad(lambda d: jnp.nanvar(x, ddof=d))(1.0),
          jax.grad(lambda a: jnp.nanstd(a, ddof=1))(x),
          jax.jit(lambda a, d: jnp.nanvar(a, ddof=d, where=a > 1))(x, 1))


@program
def nanvar_nanstd_jaxprs():
  x = jnp.ones((2, 3))
  return (str(jax.make_jaxpr(lambda a, d: jnp.nanvar(a, ddof=d))(x, 1)),
          str(jax.make_jaxpr(lambda a, d: jnp.nanstd(a, ddof=d))(x, 1)))


# --- 9. jnp.asarray / jnp.array of values of no numeric type --------------------------------------

@program
def asarray_string_with_dtype_is_a_value_error():
  return jnp.asarray("a", jnp.float32)


@program
def array_string_with_int_dtype_is_a_value_error():
  return jnp.array("1.5", jnp.int32)


@program
def asarray_numeric_string_with_dtype_converts():
  return jnp.asarray("1.5", jnp.float32), jnp.array(["1", "2"], jnp.int32)


@program
def asarray_bytes_with_dtype_is_a_value_error():
  return jnp.asarray(b"a", jnp.float32)


@program
def asarray_dict_with_dtype_is_a_type_error():
  return jnp.asarray({"a": 1}, jnp.float32)


@program
def asarray_string_without_dtype_is_a_type_error():
  return jnp.asarray("abc")


@program
def asarray_dict_without_dtype_is_a_type_error():
  return jnp.array({"a": 1})


@program
def asarray_list_of_strings_is_a_type_error():
  return jnp.asarray(["abc", "de"])


@program
def asarray_mixed_list_is_a_type_error():
  return jnp.array([1, "abc"])


@program
def asarray_mixed_list_with_dtype_is_a_value_error():
  return jnp.asarray([1, "a"], jnp.float32)


@program
def asarray_none_is_a_value_error():
  return jnp.asarray(None)


@program
def asarray_list_with_none_is_a_value_error():
  return jnp.array([1, None])


@program
def asarray_object_arrays_with_dtype_convert():
  return (jnp.asarray(np.array([1, 2], dtype=object), jnp.float32),
          jnp.array(np.array([1, 2], dtype=object), jnp.int32),
          jnp.asarray(np.array([None], dtype=object), jnp.float32))


@program
def asarray_object_array_of_strings_with_dtype_is_a_value_error():
  return jnp.asarray(np.array([1, "a"], dtype=object), jnp.float32)


@program
def asarray_ragged_list_of_arrays_is_a_type_error():
  return jnp.array([jnp.ones(2), jnp.ones(3)])


@program
def asarray_list_of_array_and_scalar_is_a_type_error():
  return jnp.array([1.0, jnp.ones(2)])


@program
def asarray_nested_ragged_arrays_is_a_type_error():
  return jnp.array([[jnp.ones(2), jnp.ones(2)], [jnp.ones(2)]])


@program
def asarray_ragged_traced_list_is_a_type_error():
  return jax.jit(lambda a, b: jnp.array([a, b]))(jnp.ones(2), jnp.ones(3))


@program
def asarray_ragged_python_list_is_a_value_error():
  return jnp.array([[1, 2], [3]])


@program
def asarray_list_with_array_and_string_is_a_type_error():
  return jnp.array([jnp.ones(2), "abc"])


# --- 10. jnp.trapezoid ---------------------------------------------------------------------------

_Y = np.arange(6.0, dtype=np.float32).reshape(2, 3)


@program
def trapezoid_values():
  y = jnp.asarray(_Y)
  return (jnp.trapezoid(y), jnp.trapezoid(y, jnp.array([0., 1., 3.])), jnp.trapezoid(y, axis=0),
          jnp.trapezoid(y, jnp.array([[0., 1., 3.], [0., 2., 3.]])), jnp.trapezoid(y, dx=2),
          jnp.trapezoid(y, dx=jnp.array(2.)), jnp.trapezoid(jnp.array([1, 2, 3])),
          jnp.trapezoid(jnp.array([1j, 2.])), jnp.trapezoid(_weak_vector(1.0)))


@program
def trapezoid_x_and_dx_broadcast():
  y = jnp.asarray(_Y)
  return (jnp.trapezoid(y, jnp.ones((1, 2, 3))), jnp.trapezoid(y, dx=jnp.array([1., 2.])),
          jnp.trapezoid(y, dx=jnp.ones((2, 2))), jnp.trapezoid(y, dx=[1., 2.]),
          jnp.trapezoid(y, jnp.array([[0., 1., 2.]])), jnp.trapezoid(y, jnp.array([0., 1.])))


@program
def trapezoid_dx_of_the_axis_length_is_a_shape_error():
  return jnp.trapezoid(jnp.asarray(_Y), dx=jnp.array([1., 2., 3.]))


@program
def trapezoid_x_list_is_a_type_error_at_position_1():
  return jnp.trapezoid(jnp.asarray(_Y), [0., 1., 3.])


@program
def trapezoid_y_list_is_a_type_error():
  return jnp.trapezoid([1., 2., 3.])


@program
def trapezoid_scalar_x_is_a_value_error():
  return jnp.trapezoid(jnp.asarray(_Y), 1.0)


@program
def trapezoid_string_dx_is_a_type_error():
  return jnp.trapezoid(jnp.asarray(_Y), dx="a")


@program
def trapezoid_of_an_empty_axis_is_an_index_error():
  return jnp.trapezoid(jnp.zeros((0,)))


@program
def trapezoid_traced_axis_is_an_error():
  return jax.jit(lambda a, ax: jnp.trapezoid(a, axis=ax))(jnp.asarray(_Y), 0)


@program
def trapezoid_jaxprs():
  y = jnp.ones((2, 3))
  return (str(jax.make_jaxpr(lambda a: jnp.trapezoid(a))(y)),
          str(jax.make_jaxpr(lambda a, b: jnp.trapezoid(a, b))(y, jnp.ones(3))),
          str(jax.make_jaxpr(lambda a, d: jnp.trapezoid(a, dx=d))(y, 2.0)))


@program
def trapezoid_grad_and_vmap():
  return (jax.grad(lambda y: jnp.trapezoid(y, dx=0.5))(jnp.arange(4.)),
          jax.vmap(jnp.trapezoid)(jnp.asarray(_Y)))


# --- jnp.where with a scalar condition: select_n takes it unbroadcast ---------------------------

@program
def where_scalar_condition_jaxprs():
  x = jnp.arange(3.)
  return (str(jax.make_jaxpr(lambda c, x: jnp.where(c, x, 0.))(True, x)),
          str(jax.make_jaxpr(lambda c, x: jnp.where(c, x, jnp.zeros((2, 3))))(True, x)),
          str(jax.make_jaxpr(jax.vmap(lambda c, x: jnp.where(c, x, 0.)))(
              jnp.array([True, False]), jnp.ones((2, 3)))),
          str(jax.make_jaxpr(lambda x: jnp.var(x, 0))(jnp.ones((3, 2)))))


@program
def where_scalar_condition_values_and_grads():
  x = jnp.arange(6.).reshape(2, 3)
  f = lambda c, x: jnp.where(c, jnp.sin(x), x ** 2).sum()
  return (jax.grad(f, 1)(True, x), jax.grad(f, 1)(False, x),
          jax.vmap(lambda c: jnp.where(c, x, -x))(jnp.array([True, False])),
          jax.jit(jax.vmap(jax.grad(lambda x, c: jnp.where(c, x ** 3, x))))(
              jnp.arange(3.), jnp.array([True, False, True])),
          jnp.where(jnp.bool_(True), 1, 2.5), jnp.where(1, jnp.zeros((0, 2)), 1.),
          jnp.where(True, jnp.ones((2,)), jnp.zeros((3, 1))))
