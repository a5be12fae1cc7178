"""More public names JAX 0.10.2 has that ember gained late: the config states at top level
(check_tracer_leaks, default_prng_impl, enable_custom_prng, legacy_prng_key, no_execution,
no_tracing, thread_guard), errors.JaxprTypeError, ad_checkpoint.print_saved_residuals,
interpreters.partial_eval's PartialVal and trace_to_jaxpr_nounits, extend.backend's
clear_backends / register_backend_factory / clear_in_memory_compilation_cache,
AbstractMesh's abstract_device, experimental.jet (Taylor mode), and the Ref family (jax.Ref,
new_ref, freeze, empty_ref, free_ref, jax.ref) used eagerly or inside the function that makes
its Refs."""
import contextlib
import io
import re
import threading

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


# --- config states ----------------------------------------------------------------------------

@program
def config_states_set_their_options():
  seen = []
  for state, value, option in ((jax.check_tracer_leaks, True, "jax_check_tracer_leaks"),
                               (jax.no_tracing, True, "jax_no_tracing"),
                               (jax.no_execution, True, "jax_no_execution"),
                               (jax.thread_guard, True, "jax_thread_guard"),
                               (jax.enable_custom_prng, True, "jax_enable_custom_prng"),
                               (jax.legacy_prng_key, "warn", "jax_legacy_prng_key"),
                               (jax.default_prng_impl, "rbg", "jax_default_prng_impl")):
    before = state.value
    with state(value):
      inside = (state.value, getattr(jax.config, option))
    seen.append((before, inside, state.value))
  with jax.no_tracing():  # a boolean state called without a value turns on
    seen.append(jax.config.jax_no_tracing)
  with jax.thread_guard(1):  # and any value is made a bool
    seen.append(jax.config.jax_thread_guard)
  return seen


@program
def config_state_of_an_enum_needs_a_value():
  return jax.default_prng_impl()


@program
def config_state_refuses_bool():
  return bool(jax.no_tracing)


@program
def config_state_as_a_decorator():
  @jax.default_prng_impl("rbg")
  def make():
    return jax.random.PRNGKey(5)
  return make(), jax.random.PRNGKey(5)


@program
def check_tracer_leaks_raises_for_a_kept_tracer():
  kept = []
  with jax.check_tracer_leaks(True):
    jax.jit(lambda x: kept.append(x) or x * 2)(1.0)
  return kept


@program
def check_tracer_leaks_false_lets_a_kept_tracer_go():
  kept = []
  with jax.check_tracer_leaks(False):
    out = jax.jit(lambda x: kept.append(x) or x * 2)(1.0)
  return out, len(kept)


@program
def default_prng_impl_picks_the_implementation():
  outs = []
  for impl in ("rbg", "unsafe_rbg", "threefry2x32"):
    with jax.default_prng_impl(impl):
      raw = jax.random.PRNGKey(7)
      typed = jax.random.key(7)
      outs.append((raw, str(typed.dtype), jax.random.key_data(typed),
                   jax.random.uniform(raw, (3,)), jax.random.normal(typed, (2,))))
  return outs


@program
def default_prng_impl_refuses_an_unknown_name():
  with jax.default_prng_impl("mersenne"):
    return jax.random.PRNGKey(0)


@program
def legacy_prng_key_error_refuses_raw_keys():
  with jax.legacy_prng_key("error"):
    return jax.random.split(jax.random.PRNGKey(0))


@program
def legacy_prng_key_error_in_a_sampler_under_jit():
  with jax.legacy_prng_key("error"):
    return jax.jit(jax.random.normal)(jax.random.PRNGKey(0))


@program
def legacy_prng_key_error_allows_typed_keys_and_clone():
  k = jax.random.key(3)
  raw = jax.random.PRNGKey(3)
  with jax.legacy_prng_key("error"):
    return (jax.random.PRNGKey(4), jax.random.clone(raw), jax.random.normal(k, (2,)),
            jax.random.key_data(jax.random.split(k)), jax.random.gamma(k, 2.0),
            jax.random.permutation(k, 4), jax.random.categorical(k, jnp.zeros(3)),
            jax.random.bernoulli(k, 0.3, (3,)), jax.random.choice(k, 5, (2,)))


@program
def legacy_prng_key_warn_warns_for_each_raw_key():
  raw = jax.random.PRNGKey(1)
  with jax.legacy_prng_key("warn"):
    return (jax.random.split(raw), jax.random.fold_in(raw, 3), jax.random.uniform(raw),
            jax.random.key_data(raw), jax.random.key_impl(raw))


@program
def legacy_prng_key_refuses_an_unknown_mode():
  with jax.legacy_prng_key("sometimes"):
    return 1


@program
def enable_custom_prng_makes_typed_keys():
  raw = jax.random.PRNGKey(2)
  with jax.enable_custom_prng(True):
    key = jax.random.PRNGKey(2)
    split = jax.random.split(raw)
    folded = jax.random.fold_in(raw, 5)
    sample = jax.random.normal(raw, (2,))
  return (str(key.dtype), key.shape, jax.random.key_data(key), str(split.dtype),
          jax.random.key_data(split), jax.random.key_data(folded), sample)


@program(phrases=("re-tracing function", "for `jit`, but 'no_tracing' is set"))
def no_tracing_serves_cached_calls_and_refuses_new_traces():
  f = jax.jit(lambda x: x * 3 + 1)
  f(1.0)
  x = jnp.ones(2)
  with jax.no_tracing(True):
    print(f(2.0))
    return f(x)


@program(phrases=("re-tracing function", "for `jit`, but 'no_tracing' is set"))
def no_tracing_refuses_make_jaxpr():
  with jax.no_tracing(True):
    return jax.make_jaxpr(lambda x: x * 2)(1.0)


@program(phrases=("re-tracing function", "for `jit`, but 'no_tracing' is set"))
def no_tracing_refuses_eval_shape():
  with jax.no_tracing(True):
    return jax.eval_shape(lambda x: x * 2, 1.0)


@program(phrases=("tried to execute function", "but the no_execution config option is set"))
def no_execution_refuses_a_cached_jitted_call():
  f = jax.jit(lambda x: x * 5)
  f(1.0)
  with jax.no_execution(True):
    return f(2.0)


@program(phrases=("tried to execute function", "but the no_execution config option is set"))
def no_execution_refuses_eager_operations():
  x = jnp.arange(3.0)
  _ = jnp.sin(x)
  with jax.no_execution(True):
    return jnp.sin(x)


@program(phrases=("tried to execute function", "but the no_execution config option is set"))
def no_execution_refuses_a_compiled_call():
  with jax.no_execution(True):
    compiled = jax.jit(lambda x: x * 7).lower(1.0).compile()
    print(type(compiled).__name__)
    return compiled(2.0)


@program
def no_execution_still_traces_and_places():
  with jax.no_execution(True):
    print(jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0))
    placed = jax.device_put(np.float32(3.0))
  f = jax.jit(lambda x: x + 1)
  return placed, f(1.0), jax.jit(lambda x: x * 4)(2.0)


@program
def thread_guard_in_one_process_lets_threads_run():
  f = jax.jit(lambda x: x * 2)
  results = []
  with jax.thread_guard(True):
    results.append(f(1.0))
    t = threading.Thread(target=lambda: results.append(f(3.0)))
    t.start()
    t.join()
  return results


# --- errors.JaxprTypeError --------------------------------------------------------------------

@program
def jaxpr_type_error_is_a_type_error():
  err = jax.errors.JaxprTypeError("bad jaxpr")
  return (issubclass(jax.errors.JaxprTypeError, TypeError), str(err),
          "JaxprTypeError" in dir(jax.errors))


@program
def check_jaxpr_of_well_typed_jaxprs():
  core = submodule("extend.core")
  j = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).jaxpr
  j2 = jax.make_jaxpr(lambda x: jax.jit(lambda y: jnp.cos(y) + x)(x) * 3)(1.0).jaxpr
  j3 = jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x))(2.0).jaxpr
  return (core.check_jaxpr(j), core.check_jaxpr(j2), core.check_jaxpr(j3),
          core.JaxprTypeError is jax.errors.JaxprTypeError)


@program(phrases=("Variable", "not defined", "in equation:", "while checking jaxpr:"))
def check_jaxpr_of_a_variable_read_before_it_is_bound():
  core = submodule("extend.core")
  j = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).jaxpr
  return core.check_jaxpr(core.Jaxpr(j.constvars, j.invars, j.outvars, j.eqns[1:],
                                    debug_info=j.debug_info))


@program(phrases=("Variable", "already bound", "in equation:", "while checking jaxpr:"))
def check_jaxpr_of_a_variable_bound_twice():
  core = submodule("extend.core")
  j = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).jaxpr
  return core.check_jaxpr(core.Jaxpr(j.constvars, j.invars, j.outvars, j.eqns + j.eqns[:1],
                                    debug_info=j.debug_info))


# --- ad_checkpoint.print_saved_residuals ------------------------------------------------------

_LOCATION = re.compile(r" from ([^\s:]+):(\d+)(?::\d+)? \((.*)\)$", re.M)


def _residuals(f, *args, **kwargs) -> None:
  """print_saved_residuals' text with each source location as ``line LINE (function)``: JAX
  also prints a column, and the function's qualified name where ember gives its name."""
  buf = io.StringIO()
  with contextlib.redirect_stdout(buf):
    out = submodule("ad_checkpoint").print_saved_residuals(f, *args, **kwargs)
  print(_LOCATION.sub(lambda m: f" from line {m.group(2)} ({m.group(3).rsplit('.', 1)[-1]})",
                      buf.getvalue()), end="")
  print("returns", out)


def _sin_cos(x, y):
  z = jnp.sin(x) * y
  return jnp.sum(jnp.cos(z)) + x[0]


@program
def print_saved_residuals_of_elementwise_functions():
  _residuals(_sin_cos, jnp.ones(3), jnp.ones(3))
  _residuals(lambda x: jnp.exp(x), 1.0)
  _residuals(lambda x: jnp.tanh(x) ** 2, jnp.ones(3))
  _residuals(lambda x, y: x * y, 1.0, jnp.ones((2, 2)))


@program
def print_saved_residuals_names_arguments():
  _residuals(lambda x, y: jnp.dot(x, y), jnp.ones((2, 3)), jnp.ones(3))
  _residuals(lambda p: jnp.sin(p["a"]) * p["b"], {"a": jnp.ones(2), "b": 2.0})
  _residuals(lambda x, *, k: x * k, 2.0, k=3.0)


@program
def print_saved_residuals_of_checkpoint_and_jit():
  _residuals(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), 1.0)
  g = jax.jit(lambda x: jnp.sin(x) * x)
  _residuals(lambda x: g(x) * x, 1.0)
  name = submodule("ad_checkpoint").checkpoint_name
  _residuals(lambda x: jnp.sin(name(jnp.cos(x), "c")), 1.0)


# --- interpreters.partial_eval: PartialVal and trace_to_jaxpr_nounits -------------------------

@program
def partial_val_known_and_unknown():
  pe = submodule("interpreters.partial_eval")
  f32 = submodule("core").ShapedArray((2,), jnp.float32)
  k, u = pe.PartialVal.known(3.0), pe.PartialVal.unknown(f32)
  return (tuple(k), tuple(u), k.is_known(), u.is_known(), k.get_known(), u.get_known(),
          str(k.get_aval()), str(u.get_aval()), isinstance(k, tuple), len(k),
          pe.PartialVal((None, 4.0)).get_known())


def _nounits(f, pvals, n_args, **kw):
  """Run trace_to_jaxpr_nounits and evaluate its jaxpr: the known outputs, the unknown outputs'
  types, and the unknown outputs computed from the residuals and ``n_args``'s unknown values."""
  pe = submodule("interpreters.partial_eval")
  lu = submodule("extend.linear_util")
  api_util = submodule("api_util")
  core = submodule("core")
  fun = lu.wrap_init(f, debug_info=api_util.debug_info("test", f, (1.0,) * n_args, {}))
  jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(fun, pvals, **kw)
  unknown_args = [jnp.full(pv.get_aval().shape, 2.5, pv.get_aval().dtype)
                  for pv in pvals if not pv.is_known()]
  return ([pv.get_known() if pv.is_known() else str(pv.get_aval()) for pv in out_pvals],
          [type(pv).__name__ for pv in out_pvals],
          core.eval_jaxpr(jaxpr, list(consts), *unknown_args), len(jaxpr.invars))


def _three_outputs(x, y):
  a = jnp.sin(x) * 2.0
  return [a * y, jnp.cos(x), y + 1.0]


@program
def trace_to_jaxpr_nounits_splits_known_and_unknown():
  pe = submodule("interpreters.partial_eval")
  f32 = submodule("core").ShapedArray((), jnp.float32)
  known, unknown = pe.PartialVal.known(jnp.float32(1.0)), pe.PartialVal.unknown(f32)
  return (_nounits(_three_outputs, [known, unknown], 2),
          _nounits(_three_outputs, [known, unknown], 2, instantiate=True),
          _nounits(_three_outputs, [unknown, pe.PartialVal.known(jnp.float32(2.0))], 2,
                   instantiate=[False, True, False]),
          _nounits(_three_outputs, [known, known], 2),
          _nounits(_three_outputs, [unknown, unknown], 2))


@program
def trace_to_jaxpr_nounits_of_arrays():
  pe = submodule("interpreters.partial_eval")
  f32 = submodule("core").ShapedArray((3,), jnp.float32)
  w = pe.PartialVal.known(jnp.arange(6.0).reshape(2, 3))
  f = lambda w, x: [jnp.tanh(w @ x), jnp.sum(w, axis=0)]  # noqa: E731
  return _nounits(f, [w, pe.PartialVal.unknown(f32)], 2)


# --- extend.backend -----------------------------------------------------------------------

@program
def clear_backends_forgets_traces():
  backend = submodule("extend.backend")
  traces = []
  f = jax.jit(lambda x: traces.append(1) or x + 1)
  first = f(1.0)
  out = backend.clear_backends()
  second = f(1.0)
  return out, first, second, len(traces), [d.platform for d in jax.devices()]


@program
def register_backend_factory_after_start():
  backend = submodule("extend.backend")
  jax.devices()
  return backend.register_backend_factory("cpu", lambda: None)


@program
def clear_in_memory_compilation_cache_keeps_results():
  backend = submodule("extend.backend")
  f = jax.jit(lambda x: x * 3)
  a = f(2.0)
  out = backend.clear_in_memory_compilation_cache()
  return out, a, f(2.0), jax.jit(lambda x: x * 3).lower(2.0).compile()(4.0)


# --- sharding.AbstractMesh(abstract_device=) --------------------------------------------------

@program
def abstract_mesh_with_an_abstract_device():
  sharding = submodule("sharding")
  device = sharding.AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
  mesh = sharding.AbstractMesh((2,), ("x",), abstract_device=device)
  concrete = jax.make_mesh((1,), ("x",)).abstract_mesh
  return (repr(mesh), repr(mesh.abstract_device), mesh == sharding.AbstractMesh((2,), ("x",)),
          sharding.AbstractMesh((2,), ("x",)).abstract_device,
          concrete == sharding.AbstractMesh((1,), ("x",), axis_types=concrete.axis_types,
                                            abstract_device=concrete.abstract_device),
          repr(sharding.AbstractMesh((2, 2), ("a", "b"), abstract_device=sharding.AbstractDevice(
              "tpu", 4, "tpu"))),
          mesh.abstract_device == device)


# --- experimental.jet -------------------------------------------------------------------------

_X = np.array([0.3, 0.7, 1.2], np.float32)
_SERIES = [np.array(t, np.float32) for t in
           ([1.0, 0.5, -0.2], [0.1, 0.2, 0.3], [0.0, -0.4, 0.2], [0.3, 0.1, 0.0])]


def _jet_of(f, order=4):
  return submodule("experimental.jet").jet(f, (jnp.asarray(_X),), (_SERIES[:order],))


@program(rtol=2e-5, atol=1e-5)
def jet_of_elementary_functions():
  fs = (jnp.sin, jnp.cos, jnp.exp, jnp.log, jnp.tanh, jnp.sqrt, lax.rsqrt, jax.nn.sigmoid,
        lax.erf, lax.erfc, jnp.expm1, jnp.log1p, jnp.sinh, jnp.cosh, jnp.arcsinh,
        lambda v: jnp.arctanh(v / 2), lambda v: v ** 2.5, lambda v: v ** 3, lambda v: v ** -3,
        lambda v: v ** 0, jnp.square)
  return [_jet_of(f) for f in fs]


@program(rtol=2e-5, atol=1e-5)
def jet_of_arithmetic_and_composition():
  fs = (lambda v: v * 2 + 1, lambda v: v * v - v, lambda v: v / (1 + v ** 2),
        lambda v: jnp.tanh(jnp.sin(v) * jnp.exp(v)) + jnp.log(v ** 2 + 1) / v,
        lambda v: jnp.abs(v - 0.7), lambda v: jnp.maximum(v, 0.7),
        lambda v: jnp.minimum(v, jnp.flip(v)), lambda v: jnp.where(v > 0.5, jnp.sin(v), v ** 2),
        lambda v: jax.nn.gelu(v, approximate=True))
  return [_jet_of(f, 3) for f in fs]


@program(rtol=2e-5, atol=1e-5)
def jet_of_reductions_and_structure():
  fs = (lambda v: jnp.sum(jnp.sin(v) * v), lambda v: jnp.mean(v ** 3), lambda v: jnp.min(jnp.cos(v)),
        lambda v: jnp.max(v), lambda v: jnp.cumsum(v * v), jax.nn.softmax, jax.nn.logsumexp,
        lambda v: jnp.concatenate([v, jnp.exp(v)]), lambda v: lax.dynamic_slice(v, (1,), (2,)) * v[0],
        lambda v: v[jnp.array([2, 0, 1])] * v, lambda v: (v[:, None] * jnp.ones((1, 2))).reshape(6),
        lambda v: jnp.outer(v, jnp.sin(v)).sum(0), lambda v: (v.reshape(3, 1) @ v.reshape(1, 3)).T.ravel(),
        lambda v: jnp.linalg.norm(v), lambda v: jnp.stack([v, -v]).T)
  return [_jet_of(f, 2) for f in fs]


@program(rtol=2e-5, atol=1e-5)
def jet_of_two_arguments_and_jit():
  jet_mod = submodule("experimental.jet")
  a, b = jnp.ones((2, 3)), jnp.arange(3.0)
  dot = jet_mod.jet(lambda p, q: p @ q, (a, b), ((a, 2 * a), (b, jnp.zeros(3))))
  div = jet_mod.jet(lambda p, q: p / q, (0.5, 1.5), ((1.0, 0.5, 0.25), (0.3, 0.2, 0.1)))
  jitted = jet_mod.jet(jax.jit(lambda v: jnp.exp(v) * v), (jnp.float32(0.5),), ((1.0, 0.0, 0.0),))
  raw = jet_mod.jet2(lambda v: jnp.exp(v) * v, (jnp.asarray(_X),), (_SERIES,))
  return dot, div, jitted, raw


@program
def jet_outputs_without_series_and_pytrees():
  jet_mod = submodule("experimental.jet")
  x = jnp.float32(0.5)
  return (jet_mod.jet(lambda v: jnp.float32(3.0), (x,), ((1.0, 2.0),)),
          jet_mod.jet(lambda v: v > 0, (x,), ((1.0, 2.0),)),
          jet_mod.jet(lambda v: (v * 2, {"a": v}), (x,), ((1.0, 2.0),)),
          jet_mod.jet(lambda v: v * 2, [x], [[1.0, 2.0]]),
          jet_mod.jet(lambda v: v * 2, (0.5,), ((1.0, 2.0),)),
          jet_mod.jet(lambda v: v + 1, (0.5,), ((1.0, 2.0),)),
          jet_mod.jet(lambda v: v * 2, (jnp.ones(3),), ((jnp.ones(3, jnp.int32),),)),
          jet_mod.fact(4))


@program
def jet_terms_of_different_lengths():
  return submodule("experimental.jet").jet(lambda v, w: v * w, (1.0, 2.0), ((1.0, 2.0), (1.0,)))


@program
def jet_primal_that_is_a_pytree():
  return submodule("experimental.jet").jet(lambda v: v, ((1.0, 2.0),), ((1.0,),))


@program
def jet_term_that_is_a_pytree():
  return submodule("experimental.jet").jet(lambda v: v, (1.0,), (((1.0, 1.0),),))


# --- Refs ---------------------------------------------------------------------------------------

@program
def ref_reads_and_writes_eagerly():
  r = jax.new_ref(jnp.arange(3.0))
  seen = [repr(r), str(r), r.shape, r.dtype, r.ndim, r.size, len(r), r[...], r[1], r[1:]]
  r[0] = 10.0
  seen.append(r[...])
  r[...] += 1.0
  seen.append(r[...])
  seen.append(jax.ref.get(r, 1))
  seen.append((jax.ref.set(r, 1, 7.0), r[...]))
  seen.append((jax.ref.swap(r, 2, jnp.float32(9.0)), r[...]))
  seen.append((jax.ref.addupdate(r, ..., jnp.ones(3)), r[...]))
  seen.append((jax.ref.get(r), jax.freeze(r), jax.free_ref(r)))
  m = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
  m[1] = jnp.array([7.0, 8.0, 9.0])
  seen.append((m[1, 2], m[:, 1], m[jnp.array([1, 0])]))
  return seen


@program
def ref_types_and_weak_values():
  r = jax.new_ref(1.0)
  return (repr(r), repr(jax.new_ref(3)), repr(jax.new_ref(np.ones(2, np.float32))),
          isinstance(r, jax.Ref), isinstance(r, jax.Array), repr(r.aval), jax.freeze(jnp.ones(2)),
          jax.free_ref(jnp.ones(2)), isinstance(r.aval, jax.ref.AbstractRef))


@program(phrases=("Invalid shape for `swap`. Ref shape: (2, 3). Expected shape: (3,). Value "
                  "shape: (2,).",))
def ref_write_of_the_wrong_shape():
  m = jax.new_ref(jnp.zeros((2, 3)))
  m[0] = jnp.ones(2)


@program(phrases=("Invalid shape for `swap`. Ref shape: (2, 3). Expected shape: (2, 3). Value "
                  "shape: ().",))
def ref_write_does_not_broadcast():
  m = jax.new_ref(jnp.zeros((2, 3)))
  m[...] = 1.0


@program(exact_message=True)
def ref_write_of_the_wrong_dtype():
  m = jax.new_ref(jnp.zeros(3))
  m[...] = jnp.ones(3, jnp.int32)


@program(phrases=("Invalid shape for `addupdate`. Ref shape: (3,). Expected shape: (3,). Value "
                  "shape: ().",))
def ref_addupdate_does_not_broadcast():
  jax.ref.addupdate(jax.new_ref(jnp.zeros(3)), ..., 1.0)


@program(exact_message=True)
def ref_index_out_of_bounds():
  return jax.new_ref(jnp.zeros(3))[3]


@program(exact_message=True)
def new_ref_of_a_list():
  return jax.new_ref([1.0, 2.0])


@program(exact_message=True)
def empty_ref_eagerly():
  return jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32))


def _accumulate(x):
  c = jax.new_ref(jnp.zeros_like(x))
  for i in range(3):
    c[...] += x * i
  d = jax.new_ref(jnp.sin(x))
  d[...] = d[...] * x
  return jax.freeze(c) * d[...]


@program
def refs_made_inside_transformations():
  x = jnp.array([0.5, 1.5])
  return (_accumulate(x), jax.jit(_accumulate)(x), jax.grad(lambda v: _accumulate(v).sum())(x),
          jax.vmap(_accumulate)(jnp.stack([x, 2 * x])),
          jax.jvp(_accumulate, (x,), (jnp.ones(2),)),
          jax.jit(jax.grad(lambda v: _accumulate(v).sum()))(x))


@program
def empty_ref_inside_jit():
  def f(x):
    d = jax.empty_ref(jax.ShapeDtypeStruct(x.shape, x.dtype))
    d[...] = jnp.sin(x)
    return jax.freeze(d) * 2
  return jax.jit(f)(jnp.array([0.5, 1.5]))
