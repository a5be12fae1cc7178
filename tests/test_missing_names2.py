"""The second batch of JAX 0.10.2 names ember gained (issue 16): config states at top level,
errors.JaxprTypeError, ad_checkpoint.print_saved_residuals, partial_eval's PartialVal and
trace_to_jaxpr_nounits, extend.backend's backend functions, AbstractMesh(abstract_device=)."""
import threading
import warnings

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import random
from ember.ad_checkpoint import print_saved_residuals
from ember.extend import backend
from ember.interpreters import partial_eval as pe
from ember.sharding import AbstractDevice, AbstractMesh

_LEGACY = "Legacy uint32 key array passed as key to jax.random function"


# --- config states ----------------------------------------------------------------------------

@pytest.mark.parametrize("state,value,option", [
    (ember.check_tracer_leaks, True, "jax_check_tracer_leaks"),
    (ember.no_tracing, True, "jax_no_tracing"),
    (ember.no_execution, True, "jax_no_execution"),
    (ember.thread_guard, True, "jax_thread_guard"),
    (ember.enable_custom_prng, True, "jax_enable_custom_prng"),
    (ember.legacy_prng_key, "error", "jax_legacy_prng_key"),
    (ember.default_prng_impl, "unsafe_rbg", "jax_default_prng_impl"),
])
def test_state_sets_its_option_inside_its_block(state, value, option):
  before = state.value
  assert before == ember.config.read(option)
  with state(value):
    assert state.value == value and ember.config.read(option) == value
  assert state.value == before


def test_boolean_state_defaults_to_true_and_makes_values_bools():
  with ember.no_tracing():
    assert ember.config.jax_no_tracing is True
  with ember.thread_guard(1):
    assert ember.config.jax_thread_guard is True
  assert ember.config.jax_thread_guard is False


def test_enum_state_needs_a_value_and_bool_is_refused():
  with pytest.raises(TypeError, match="requires an argument representing the new value"):
    ember.default_prng_impl()
  with pytest.raises(TypeError, match=r"bool\(\) not supported"):
    bool(ember.no_execution)


def test_state_decorates_a_function():
  @ember.default_prng_impl("rbg")
  def make():
    return random.PRNGKey(5)
  np.testing.assert_array_equal(make(), [0, 5, 0, 5])
  np.testing.assert_array_equal(random.PRNGKey(5), [0, 5])


def test_check_tracer_leaks_raises_for_a_kept_tracer():
  kept = []
  with pytest.raises(Exception, match="Leaked trace"):
    with ember.check_tracer_leaks(True):
      ember.jit(lambda x: kept.append(x) or x * 2)(1.0)
  kept.clear()
  with ember.check_tracer_leaks(False):
    assert float(ember.jit(lambda x: kept.append(x) or x * 2)(1.0)) == 2.0


def test_default_prng_impl_picks_the_key_implementation():
  with ember.default_prng_impl("rbg"):
    np.testing.assert_array_equal(random.PRNGKey(7), [0, 7, 0, 7])
    assert str(random.key(7).dtype) == "key<rbg>"
  with pytest.raises(ValueError, match="new enum value must be in"):
    with ember.default_prng_impl("mersenne"):
      pass
  with pytest.raises(NotImplementedError, match="philox2x32"):
    with ember.default_prng_impl("philox2x32"):
      pass
  assert ember.config.jax_default_prng_impl == "threefry2x32"


def test_legacy_prng_key_error_refuses_raw_keys_only():
  raw, typed = random.PRNGKey(0), random.key(0)
  with ember.legacy_prng_key("error"):
    for draw in (lambda: random.split(raw), lambda: random.fold_in(raw, 1),
                 lambda: random.normal(raw), lambda: random.key_data(raw),
                 lambda: ember.jit(random.normal)(raw)):
      with pytest.raises(ValueError, match=_LEGACY):
        draw()
    np.testing.assert_array_equal(random.clone(raw), [0, 0])  # clone takes raw keys
    np.testing.assert_array_equal(random.PRNGKey(4), [0, 4])
    assert float(random.normal(typed)) == pytest.approx(1.6226422)
    assert random.permutation(typed, 4).shape == (4,)
  with pytest.raises(ValueError, match="'sometimes' is not a valid LegacyPrngKeyState"):
    with ember.legacy_prng_key("sometimes"):
      pass


def test_legacy_prng_key_warn_warns_and_returns_the_values():
  raw = random.PRNGKey(0)
  with ember.legacy_prng_key("warn"), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = random.fold_in(raw, 1)
  np.testing.assert_array_equal(out, [928981903, 3453687069])
  assert [w.category for w in caught] == [UserWarning]
  assert _LEGACY in str(caught[0].message)


def test_enable_custom_prng_makes_typed_keys_and_warns_for_raw_ones():
  raw = random.PRNGKey(0)
  with ember.enable_custom_prng(True), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    key = random.PRNGKey(1)
    split = random.split(raw)
  assert str(key.dtype) == "key<fry>" and key.shape == ()
  np.testing.assert_array_equal(random.key_data(key), [0, 1])
  assert str(split.dtype) == "key<fry>"
  np.testing.assert_array_equal(random.key_data(split), random.split(raw))
  assert [w.category for w in caught] == [FutureWarning]


def test_no_tracing_serves_cached_calls_and_refuses_new_traces():
  f = ember.jit(lambda x: x * 3 + 1)
  f(1.0)
  x = jnp.ones(2)
  with ember.no_tracing(True):
    assert float(f(2.0)) == 7.0
    with pytest.raises(RuntimeError, match="for `jit`, but 'no_tracing' is set"):
      f(x)
    with pytest.raises(RuntimeError, match="re-tracing function <lambda> at "):
      ember.make_jaxpr(lambda v: v * 2)(1.0)
  np.testing.assert_array_equal(f(x), [4.0, 4.0])


def test_no_execution_refuses_to_run_programs_but_traces_them():
  f = ember.jit(lambda x: x * 5)
  f(1.0)
  x = jnp.arange(3.0)
  with ember.no_execution(True):
    with pytest.raises(RuntimeError, match="but the no_execution config option is set"):
      f(2.0)
    with pytest.raises(RuntimeError, match="tried to execute function"):
      jnp.sin(x)
    compiled = ember.jit(lambda v: v * 7).lower(1.0).compile()
    with pytest.raises(RuntimeError, match="no_execution"):
      compiled(2.0)
    assert str(ember.make_jaxpr(lambda v: v * 2)(1.0)).count("mul") == 1
    assert float(ember.device_put(np.float32(3.0))) == 3.0
  assert float(f(2.0)) == 10.0
  np.testing.assert_allclose(jnp.sin(x), np.sin(np.arange(3.0)), rtol=1e-6)
  assert float(compiled(2.0)) == 14.0


def test_thread_guard_lets_other_threads_run_in_one_process():
  f = ember.jit(lambda x: x * 2)
  out = []
  with ember.thread_guard(True):
    t = threading.Thread(target=lambda: out.append(float(f(3.0))))
    t.start()
    t.join()
  assert out == [6.0]


# --- errors, print_saved_residuals ------------------------------------------------------------

def test_jaxpr_type_error_is_a_type_error():
  assert issubclass(ember.errors.JaxprTypeError, TypeError)
  assert "JaxprTypeError" in ember.errors.__all__


def test_check_jaxpr_accepts_traced_jaxprs_and_names_what_is_wrong():
  from ember.core.jaxpr import Jaxpr, JaxprEqn, Var
  from ember.extend.core import check_jaxpr
  j = ember.make_jaxpr(lambda x: ember.jit(lambda y: jnp.cos(y) * x)(x) + 1)(1.0).jaxpr
  assert check_jaxpr(j) is None
  with pytest.raises(ember.errors.JaxprTypeError, match=r"(?s)Variable 'b' not defined.*"
                     r"in equation:\n\nc:f32\[\] = add b 1\.0.*while checking jaxpr:"):
    check_jaxpr(Jaxpr(j.constvars, j.invars, j.outvars, j.eqns[1:]))
  with pytest.raises(ember.errors.JaxprTypeError, match="already bound"):
    check_jaxpr(Jaxpr(j.constvars, j.invars, j.outvars, j.eqns + j.eqns[:1]))
  sin = ember.make_jaxpr(jnp.sin)(1.0).jaxpr
  wrong = Var(ember.core.ShapedArray((2,), jnp.float32))
  eqn = JaxprEqn(sin.eqns[0].primitive, sin.eqns[0].invars, [wrong], sin.eqns[0].params)
  with pytest.raises(ember.errors.JaxprTypeError, match=r"Value for variable 'b' "
                     r"inconsistently typed as f32\[\] for let-binder of type f32\[2\]"):
    check_jaxpr(Jaxpr([], sin.invars, [wrong], [eqn]))


def test_print_saved_residuals_lists_arguments_and_outputs(capsys):
  def f(x, y):
    z = jnp.sin(x) * y
    return jnp.sum(jnp.cos(z)) + x[0]
  print_saved_residuals(f, jnp.ones(3), jnp.ones(3))
  lines = capsys.readouterr().out.splitlines()
  assert lines[0] == "f32[3] from the argument y"
  assert [ln.split(" from ")[0] for ln in lines[1:]] == [
      "f32[3] output of sin", "f32[3] output of cos", "f32[3] output of sin"]
  assert all(ln.endswith("(f)") and __file__ in ln for ln in lines[1:])


def test_print_saved_residuals_names_pytree_and_keyword_arguments(capsys):
  print_saved_residuals(lambda x, *, k: x * k, 2.0, k=3.0)
  assert capsys.readouterr().out == "f32[] from the argument x\nf32[] from the argument k\n"
  print_saved_residuals(lambda p: jnp.dot(p["w"], p["x"]), {"w": jnp.ones((2, 3)),
                                                             "x": jnp.ones(3)})
  assert capsys.readouterr().out == ("f32[2,3] from the argument p['w']\n"
                                     "f32[3] from the argument p['x']\n")


def test_print_saved_residuals_of_checkpoint_and_jit(capsys):
  print_saved_residuals(ember.checkpoint(lambda x: jnp.sin(jnp.sin(x))), 1.0)
  assert capsys.readouterr().out == "f32[] from the argument x\n"
  g = ember.jit(lambda x: jnp.sin(x) * x)
  print_saved_residuals(lambda x: g(x) * x, 1.0)
  lines = capsys.readouterr().out.splitlines()
  assert lines[0] == "f32[] from the argument x"
  assert all("output of jitted function '<lambda>' from" in ln for ln in lines[1:])


# --- partial evaluation -----------------------------------------------------------------------

def test_partial_val_known_and_unknown():
  f32 = ember.core.ShapedArray((2,), jnp.float32)
  k, u = pe.PartialVal.known(3.0), pe.PartialVal.unknown(f32)
  assert tuple(k) == (None, 3.0) and tuple(u) == (f32, None)
  assert (k.is_known(), u.is_known(), k.get_known(), u.get_known()) == (True, False, 3.0, None)
  assert str(k.get_aval()) == "~float32[]" and u.get_aval() is f32


def _wrap(f, n):
  from ember import api_util
  from ember.extend import linear_util as lu
  return lu.wrap_init(f, debug_info=api_util.debug_info("test", f, (1.0,) * n, {}))


def test_trace_to_jaxpr_nounits_runs_the_known_part():
  f = lambda x, y: [jnp.sin(x) * 2.0 * y, jnp.cos(x), y + 1.0]  # noqa: E731
  f32 = ember.core.ShapedArray((), jnp.float32)
  x = np.float32(0.7)
  jaxpr, out_pvals, res = pe.trace_to_jaxpr_nounits(
      _wrap(f, 2), [pe.PartialVal.known(jnp.float32(x)), pe.PartialVal.unknown(f32)])
  assert [pv.is_known() for pv in out_pvals] == [False, True, False]
  np.testing.assert_allclose(out_pvals[1].get_known(), np.cos(x), rtol=1e-6)
  assert [str(pv.get_aval()) for pv in out_pvals] == ["float32[]"] * 3
  assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "add"]  # sin and cos ran already
  np.testing.assert_allclose(res[0], np.sin(x) * 2, rtol=1e-6)
  outs = ember.core.eval_jaxpr(jaxpr, list(res), jnp.float32(3.0))
  np.testing.assert_allclose(outs, [np.sin(x) * 2 * 3, 4.0], rtol=1e-6)


def test_trace_to_jaxpr_nounits_instantiates_known_outputs():
  f = lambda x, y: [x * y, jnp.cos(x)]  # noqa: E731
  f32 = ember.core.ShapedArray((), jnp.float32)
  jaxpr, out_pvals, res = pe.trace_to_jaxpr_nounits(
      _wrap(f, 2), [pe.PartialVal.known(jnp.float32(0.0)), pe.PartialVal.unknown(f32)],
      instantiate=[False, True])
  assert not any(pv.is_known() for pv in out_pvals)
  np.testing.assert_allclose(ember.core.eval_jaxpr(jaxpr, list(res), jnp.float32(5.0)),
                             [0.0, 1.0])
  with pytest.raises(ValueError, match="instantiate has 1 entries for 2 outputs"):
    pe.trace_to_jaxpr_nounits(_wrap(f, 2), [pe.PartialVal.unknown(f32)] * 2, instantiate=[True])
  with pytest.raises(TypeError, match=r"pvals\[0\] must be a PartialVal"):
    pe.trace_to_jaxpr_nounits(_wrap(f, 2), [f32, f32])


def test_jaxpr_tracer_cannot_be_made():
  with pytest.raises(NotImplementedError, match="no JaxprTrace"):
    pe.JaxprTracer(None, pe.PartialVal.known(1.0), None)


# --- extend.backend ---------------------------------------------------------------------------

def test_clear_backends_forgets_traces_and_keeps_the_client():
  traces = []
  f = ember.jit(lambda x: traces.append(1) or x + 1)
  assert float(f(1.0)) == 2.0
  devices = ember.devices()
  assert backend.clear_backends() is None
  assert float(f(1.0)) == 2.0 and len(traces) == 2
  assert ember.devices() == devices


def test_register_backend_factory_cannot_add_a_backend():
  ember.devices()
  with pytest.raises(RuntimeError, match="Backend cpu already initialized"):
    backend.register_backend_factory("cpu", lambda: None)
  with pytest.raises(NotImplementedError, match="platform 'tpu'"):
    backend.register_backend_factory("tpu", lambda: None, priority=100)


def test_clear_in_memory_compilation_cache_compiles_again():
  from ember import monitoring
  events = []
  monitoring.register_event_duration_secs_listener(lambda name, d, **kw: events.append(name))
  compiles = lambda: events.count("/jax/core/compile/backend_compile_duration")  # noqa: E731
  f = lambda x: x * 11 + 1  # noqa: E731
  ember.jit(f).lower(1.0).compile()
  first = compiles()
  ember.jit(f).lower(1.0).compile()
  assert compiles() == first  # served from memory
  backend.clear_in_memory_compilation_cache()
  assert float(ember.jit(f).lower(1.0).compile()(2.0)) == 23.0
  assert compiles() == first + 1


# --- AbstractMesh(abstract_device=) -----------------------------------------------------------

def test_abstract_mesh_with_an_abstract_device():
  device = AbstractDevice(device_kind="tpu", num_cores=4, platform="tpu")
  mesh = AbstractMesh((2,), ("x",), abstract_device=device)
  assert repr(mesh) == ("AbstractMesh('x': 2, axis_types=(Auto,), device_kind=tpu, "
                        "num_cores=4, platform=tpu)")
  assert mesh.abstract_device == device
  assert mesh != AbstractMesh((2,), ("x",))
  assert AbstractMesh((2,), ("x",)).abstract_device is None
  concrete = ember.make_mesh((1,), ("x",)).abstract_mesh
  assert concrete.abstract_device == AbstractDevice("cpu", None, "cpu")
  assert concrete == AbstractMesh((1,), ("x",), concrete.axis_types,
                                  abstract_device=concrete.abstract_device)
  with pytest.raises(TypeError, match="abstract_device must be"):
    AbstractMesh((2,), ("x",), abstract_device="cpu")


# --- experimental.jet -------------------------------------------------------------------------

from ember.experimental import jet as jet_mod  # noqa: E402


def _derivatives(f, x, order):
  """f's first ``order`` derivatives at x along direction 1, by nested jvp (float64)."""
  out, g = [], f
  for _ in range(order):
    g = (lambda h: lambda v: ember.jvp(h, (v,), (jnp.ones_like(v),))[1])(g)
    out.append(g(x))
  return out


@pytest.mark.parametrize("name,f", [
    ("sin", jnp.sin), ("cos", jnp.cos), ("exp", jnp.exp), ("log", jnp.log), ("tanh", jnp.tanh),
    ("sqrt", jnp.sqrt), ("rsqrt", ember.lax.rsqrt), ("sigmoid", ember.nn.sigmoid),
    ("erf", ember.lax.erf), ("pow", lambda v: v ** 2.5), ("ipow", lambda v: v ** 5),
    ("negpow", lambda v: v ** -2), ("div", lambda v: jnp.sin(v) / (1 + v * v)),
    ("composite", lambda v: jnp.tanh(jnp.sin(v) * jnp.exp(v)) + jnp.log(v ** 2 + 1) / v),
    ("sinh", jnp.sinh), ("log1p", jnp.log1p),
])
def test_jet_matches_nested_jvp(name, f):
  x = np.array([0.3, 0.7, 1.2])
  with ember.enable_x64():
    y, terms = jet_mod.jet(f, (jnp.asarray(x),), ([jnp.ones(3)] + [jnp.zeros(3)] * 3,))
    want = _derivatives(f, jnp.asarray(x), 4)
    np.testing.assert_allclose(y, f(jnp.asarray(x)), rtol=1e-12)
    np.testing.assert_allclose(np.stack(terms), np.stack(want), rtol=1e-9, atol=1e-9)


def test_jet_of_a_dot_is_leibniz():
  a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 2.0])
  da, db = np.ones((2, 3)), np.array([0.5, 0.0, 1.0])
  y, (y1, y2) = jet_mod.jet(lambda p, q: p @ q, (jnp.asarray(a, jnp.float32),
                                                  jnp.asarray(b, jnp.float32)),
                            ((da, np.zeros((2, 3))), (db, np.zeros(3))))
  np.testing.assert_allclose(y, a @ b, rtol=1e-6)
  np.testing.assert_allclose(y1, da @ b + a @ db, rtol=1e-6)
  np.testing.assert_allclose(y2, 2 * da @ db, rtol=1e-5)


def test_jet2_takes_taylor_coefficients():
  # exp(x + t) = e^x (1 + t + t^2/2 + t^3/6): coefficients, not derivatives
  y, terms = jet_mod.jet2(jnp.exp, (0.0,), ((1.0, 0.0, 0.0),))
  np.testing.assert_allclose(terms, [1.0, 0.5, 1 / 6], rtol=1e-6)


def test_jet_of_custom_jvp_functions_uses_their_primal_function():
  # JAX 0.10.2 fails here with an UnexpectedTracerError; ember differentiates the primal function
  y, (y1, y2) = jet_mod.jet(ember.nn.relu, (0.5,), ((2.0, 3.0),))
  assert (float(y), float(y1), float(y2)) == (0.5, 2.0, 3.0)


def test_jet_of_a_primitive_without_a_rule_raises():
  with pytest.raises(NotImplementedError, match="Jet rule for 'cumlogsumexp' not implemented"):
    jet_mod.jet(ember.lax.cumlogsumexp, (jnp.ones(3),), ((jnp.ones(3),),))
  with pytest.raises(KeyError):  # JAX's lookup raises KeyError: code catching it still works
    jet_mod.jet(jnp.tan, (0.5,), ((1.0,),))


def test_jet_checks_its_inputs():
  with pytest.raises(ValueError, match="inconsistent lengths"):
    jet_mod.jet(lambda v, w: v * w, (1.0, 2.0), ((1.0, 2.0), (1.0,)))
  with pytest.raises(ValueError, match="primal value at position 0 is not an array"):
    jet_mod.jet(lambda v: v, ((1.0, 2.0),), ((1.0,),))
  with pytest.raises(TypeError, match="term 0 for argument 0 has shape"):
    jet_mod.jet(lambda v: v * 2, (jnp.ones(3),), ((jnp.ones(2),),))
  with pytest.raises(ValueError, match="2 primals for 1 series"):
    jet_mod.jet(lambda v: v * 2, (1.0, 2.0), ((1.0,),))


def test_jet_rules_can_be_added():
  prim = ember.extend.core.Primitive("cube_test")
  prim.def_impl(lambda x: x * x * x)
  prim.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="cube_test"):
    jet_mod.jet(prim.bind, (2.0,), ((1.0,),))
  jet_mod.def_deriv(prim, lambda x: 3 * x * x)
  try:
    y, (y1, y2) = jet_mod.jet(prim.bind, (2.0,), ((1.0, 0.0),))
    assert (float(y), float(y1)) == (8.0, 12.0)
    np.testing.assert_allclose(y2, 12.0, rtol=1e-5)
    jet_mod.defzero(prim)
    assert jet_mod.jet(prim.bind, (2.0,), ((1.0,),))[1][0] == 0.0
    jet_mod.deflinear(prim)  # wrong for a cube, but applied term by term as asked
    assert float(jet_mod.jet(prim.bind, (2.0,), ((2.0,),))[1][0]) == 8.0
    jet_mod.def_comp(prim, lambda x: x * x * x)
    assert float(jet_mod.jet(prim.bind, (2.0,), ((1.0,),))[1][0]) == 12.0
  finally:
    jet_mod.jet_rules.pop(prim, None)


# --- Refs ---------------------------------------------------------------------------------------

def test_ref_reads_and_writes_in_place():
  r = ember.new_ref(jnp.arange(3.0))
  r[0] = 10.0
  r[...] += 1.0
  np.testing.assert_array_equal(r[...], [11.0, 2.0, 3.0])
  assert float(ember.ref.swap(r, 2, jnp.float32(9.0))) == 3.0
  ember.ref.addupdate(r, 1, jnp.float32(5.0))
  np.testing.assert_array_equal(ember.freeze(r), [11.0, 7.0, 9.0])
  assert repr(r) == "Ref([11.,  7.,  9.], dtype=float32)" and repr(r.aval) == "Ref{float32[3]}"
  assert (r.shape, r.ndim, r.size, len(r)) == ((3,), 1, 3, 3)
  assert isinstance(r, ember.Ref) and not isinstance(r, ember.Array)
  assert ember.free_ref(r) == ()


def test_ref_writes_check_shape_dtype_and_bounds():
  m = ember.new_ref(jnp.zeros((2, 3)))
  with pytest.raises(ValueError, match=r"Invalid shape for `swap`. Ref shape: \(2, 3\). "
                     r"Expected shape: \(3,\). Value shape: \(2,\)."):
    m[0] = jnp.ones(2)
  with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32. Value "
                     "dtype: int32."):
    m[0] = jnp.ones(3, jnp.int32)
  m[0, 1] = 4  # a Python scalar takes the Ref's dtype
  assert m[0, 1].dtype == np.float32 and float(m[0, 1]) == 4.0
  with pytest.raises(ValueError, match=r"Out of bound indexer: idx=2, dim=2."):
    m[2]
  with pytest.raises(TypeError, match="Error interpreting argument to new_ref"):
    ember.new_ref([1.0])
  with pytest.raises(NotImplementedError, match="memory_space"):
    ember.new_ref(1.0, memory_space="any")
  with pytest.raises(NotImplementedError, match="Evaluation rule for 'empty_ref'"):
    ember.empty_ref(ember.ShapeDtypeStruct((2,), jnp.float32))


def test_refs_made_inside_a_transformation_work_there():
  def f(x):
    c = ember.new_ref(jnp.zeros_like(x))
    for i in range(3):
      c[...] += x * i
    return ember.freeze(c) * x
  x = jnp.array([0.5, 1.5])
  np.testing.assert_allclose(ember.jit(f)(x), 3 * x * x)
  np.testing.assert_allclose(ember.grad(lambda v: f(v).sum())(x), 6 * x)
  np.testing.assert_allclose(ember.vmap(f)(jnp.stack([x, x])), np.stack([3 * x * x] * 2))


def test_a_ref_used_in_another_transformation_is_refused():
  r = ember.new_ref(jnp.zeros(2))

  def mutate(x):
    r[...] += x
    return x
  with pytest.raises(NotImplementedError, match="made outside the transformation"):
    ember.jit(mutate)(jnp.ones(2))

  def loop(x):
    c = ember.new_ref(x)
    ember.lax.fori_loop(0, 2, lambda i, v: c[...] + v, x)
    return ember.freeze(c)
  with pytest.raises(NotImplementedError, match="made outside the transformation"):
    ember.jit(loop)(jnp.ones(2))
  with pytest.raises(TypeError, match="is of type <class 'ember.ref.Ref'>"):
    ember.jit(lambda rr: rr[...])(r)
  np.testing.assert_array_equal(r[...], [0.0, 0.0])  # nothing was written
