"""ember.extend and ember.api_util: jax.extend.core's names (jaxpr IR, trace state, primitive
objects), linear_util's wrapped functions and traces written by a library. Expected values are
JAX 0.10.2's on the same programs (tests/corpus/programs/user_traces.py runs more under both)."""
import warnings

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import api_util
from ember.extend import core as ecore
from ember.extend import linear_util as lu


def test_opaque_trace_state_tells_traces_apart():
  outside = ecore.get_opaque_trace_state(convention="haiku")
  assert outside == ecore.get_opaque_trace_state()
  seen = []

  def f(x):
    seen.append(ecore.get_opaque_trace_state() == ecore.get_opaque_trace_state())
    seen.append(ecore.get_opaque_trace_state() == outside)
    return x

  ember.jit(f)(1.0)
  ember.vmap(f)(jnp.ones(2))
  ember.grad(f)(1.0)
  assert seen == [True, False] * 3  # JAX: equal within one trace, different from outside
  assert ecore.get_opaque_trace_state() != object()


def test_take_current_trace_runs_the_block_eagerly():
  outside = ecore.get_opaque_trace_state()
  seen = []

  def f(x):
    with ecore.take_current_trace() as trace:
      seen.append(type(trace).__name__)
      seen.append(ecore.get_opaque_trace_state() == outside)  # JAX: True (the eval trace)
      with ecore.set_current_trace(trace):
        seen.append(ecore.get_opaque_trace_state() == outside)  # JAX: False
    return x * 2

  assert ember.jit(f)(3.0) == 6.0
  assert seen == ["DynamicJaxprTrace", True, False]


def test_trace_tags_are_all_equal():
  assert ecore.TraceTag() == ecore.TraceTag()
  assert hash(ecore.TraceTag()) == hash(ecore.TraceTag())
  assert ecore.TraceTag() != 1


def test_jaxpr_classes_are_embers():
  closed = ember.make_jaxpr(lambda x: x * 2.0)(1.0)
  assert isinstance(closed, ecore.ClosedJaxpr) and isinstance(closed.jaxpr, ecore.Jaxpr)
  (eqn,) = closed.jaxpr.eqns
  assert isinstance(eqn, ecore.JaxprEqn) and isinstance(eqn.invars[0], ecore.Var)
  assert isinstance(eqn.invars[1], ecore.Literal)
  assert ecore.jaxpr_as_fun(closed)(4.0)[0] == 8.0


def _wrap(f, params=None):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    return lu.wrap_init(f, params)


def test_wrap_init_without_debug_info_warns_as_jax():
  with pytest.warns(DeprecationWarning, match="missing a DebugInfo"):
    lu.wrap_init(abs)


def test_linear_util_transformations_compose_and_store_aux():
  @lu.transformation
  def scale(k, *args):
    out = yield tuple(k * a for a in args), {}
    yield out + 1

  @lu.transformation_with_aux
  def count(*args):
    out = yield args, {}
    yield out, len(args)

  f, aux = count(scale(_wrap(lambda x, y, *, z: x * y + z, {"z": 5}), 2))
  with pytest.raises(lu.StoreException, match="empty"):
    aux()
  assert f.call_wrapped(3, 4) == 6 * 8 + 5 + 1 and aux() == 2
  with pytest.raises(lu.StoreException, match="occupied"):
    f.call_wrapped(3, 4)  # a store is filled once
  assert lu.transformation2(lambda g, x: g(x) * 10, _wrap(abs))().call_wrapped(-3) == 30


def test_linear_util_cache_refills_stores_on_a_hit():
  calls = []

  @lu.cache
  def run(fun, n):
    calls.append(n)
    return fun.call_wrapped(n)

  _, tree = ember.tree.flatten(((1.0,), {}))
  f = lambda x: {"a": x}  # noqa: E731
  for _ in range(2):
    flat, out_tree = api_util.flatten_fun(_wrap(f), tree)
    assert run(flat, 3.0) == [3.0] and out_tree().num_leaves == 1
  assert calls == [3.0]


def test_api_util_helpers():
  f, dyn = api_util.argnums_partial(_wrap(lambda a, b, c: a * 100 + b * 10 + c), (0, -1),
                                    (1, 2, 3))
  assert dyn == (1, 3) and f.call_wrapped(*dyn) == 123
  with pytest.raises(ValueError, match="Non-hashable static arguments"):
    api_util.argnums_partial(_wrap(len), 0, (1, []))
  _, tree = ember.tree.flatten(((1.0, None, [2.0, 3.0]), {"k": 4.0}))
  assert api_util.donation_vector((2,), ("k",), tree) == (False, True, True, True)
  assert api_util.rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)
  assert api_util.flatten_axes("in_axes", ember.tree.structure(({"a": 1, "b": 2}, 3)),
                               ({"a": 0, "b": None}, 1)) == [0, None, 1]
  assert api_util.safe_map(lambda a, b: a + b, [1, 2], (3, 4)) == [4, 6]
  with pytest.raises(ValueError, match="length"):
    api_util.safe_map(lambda a, b: a, [1], [1, 2])


class _CountTracer(ember.core.Tracer):
  def __init__(self, trace, val):
    super().__init__(trace, ember.typeof(val))
    self.val = val


class _CountTrace(ember.core.Trace):
  """Counts primitives by name and hands each to the trace below."""

  def __init__(self, parent, counts):
    super().__init__()
    self.parent_trace, self.counts = parent, counts

  def process_primitive(self, primitive, tracers, params):
    vals = [t.val if isinstance(t, _CountTracer) and t._trace is self else t for t in tracers]
    self.counts[str(primitive)] = self.counts.get(str(primitive), 0) + 1
    out = primitive.bind_with_trace(self.parent_trace, vals, None, params)
    if primitive.multiple_results:
      return [_CountTracer(self, v) for v in out]
    return _CountTracer(self, out)


def _count(fun, *args):
  counts = {}
  with ecore.take_current_trace() as parent:
    trace = _CountTrace(parent, counts)
    with ecore.set_current_trace(trace):
      out = fun(*[_CountTracer(trace, a) for a in args])
  out = out.val if isinstance(out, _CountTracer) and out._trace is trace else out
  return counts, out


def test_a_library_trace_sees_every_primitive_and_hands_it_down():
  f = lambda x, y: jnp.sin(x) * y + jnp.sin(y)
  counts, out = _count(f, 1.0, 2.0)
  assert counts == {"sin": 2, "mul": 1, "add": 1}
  assert out == pytest.approx(np.sin(1.0) * 2 + np.sin(2.0))
  # under jit (the trace below stages), grad (below it a jvp trace) and vmap
  jitted = ember.jit(lambda x: _count(f, x, 3.0)[1])(1.0)
  assert jitted == pytest.approx(np.sin(1.0) * 3 + np.sin(3.0), rel=1e-6)
  g = ember.grad(lambda x: _count(f, x, 3.0)[1])(1.0)
  assert g == pytest.approx(np.cos(1.0) * 3, rel=1e-6)
  v = ember.vmap(lambda x: _count(f, x, 3.0)[1])(jnp.arange(3.0))
  np.testing.assert_allclose(v, np.sin(np.arange(3.0)) * 3 + np.sin(3.0), rtol=1e-6)
  # a jit inside reaches the library's trace as one jit_p equation
  counts, out = _count(lambda x: ember.jit(lambda y: jnp.cos(y) + 1.0)(x), 0.0)
  assert counts == {"jit": 1} and out == 2.0


def test_primitives_are_embers_own_objects():
  jaxpr = ember.make_jaxpr(lambda x: jnp.sin(x) + ember.jit(jnp.cos)(x))(1.0).jaxpr
  assert [e.primitive for e in jaxpr.eqns] == [ecore.primitives.sin_p, ecore.primitives.jit_p,
                                               ecore.primitives.add_p]
  assert str(ecore.primitives.add_jaxvals_p) == "add_any"


def test_extend_is_not_imported_by_ember():
  import subprocess
  import sys
  code = "import ember, sys; print('ember.extend' in sys.modules, hasattr(ember, 'extend'))"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False", "False"]  # JAX too leaves jax.extend unimported


def _prim(name, impl, abstract=lambda *avals, **_: avals[0]):
  from ember.extend.core import Primitive
  p = Primitive(name)
  p.def_impl(impl)
  p.def_abstract_eval(abstract)
  return p


def test_user_primitive_rules_through_the_registries():
  from ember.interpreters import ad, batching
  mul = _prim("my_mul", lambda x, y: x * y)
  ad.primitive_jvps[mul] = lambda p, t: (mul.bind(*p), ad.instantiate_zeros(t[0]) * p[1] +
                                         ad.instantiate_zeros(t[1]) * p[0])
  batching.defbroadcasting(mul)
  assert ad.primitive_jvps[mul] is mul.jvp and mul in batching.primitive_batchers
  x, y = jnp.arange(3.0), jnp.array(2.0)
  np.testing.assert_allclose(ember.grad(lambda a: mul.bind(a, y).sum())(x), [2.0, 2.0, 2.0])
  np.testing.assert_allclose(ember.vmap(mul.bind, in_axes=(0, None))(x, y), 2 * x)
  np.testing.assert_allclose(ember.vmap(mul.bind)(x.reshape(3, 1), jnp.ones((3, 2))),
                             np.broadcast_to(x.reshape(3, 1), (3, 2)))
  np.testing.assert_allclose(ember.jit(mul.bind)(x, y), 2 * x)
  # a linear primitive whose transpose reads its inputs (deflinear2)
  scale = _prim("my_scale", lambda x, *, k: k * x)
  ad.deflinear2(scale, lambda ct, x, *, k: [k * ct])
  assert ember.grad(lambda a: scale.bind(a, k=3.0))(1.0) == 3.0
  assert ember.jit(ember.grad(lambda a: scale.bind(a, k=3.0) * a))(2.0) == 12.0


def test_user_primitive_multiple_results_and_refusals():
  from ember.core.aval import ShapedArray
  from ember.extend.core import Primitive
  from ember.interpreters import mlir
  split = Primitive("my_split")
  split.multiple_results = True
  split.def_impl(lambda x: [x + 1, x - 1])
  split.def_abstract_eval(lambda x: [ember.ShapeDtypeStruct(x.shape, x.dtype)] * 2)
  a, b = ember.jit(split.bind)(jnp.ones(2))
  np.testing.assert_allclose(a, 2.0)
  np.testing.assert_allclose(b, 0.0)
  assert isinstance(ember.make_jaxpr(split.bind)(1.0).jaxpr.eqns[0].outvars[0].aval, ShapedArray)
  with pytest.raises(NotImplementedError, match="no rule for vmap"):
    ember.vmap(split.bind)(jnp.ones(2))
  bare = Primitive("no_impl")
  bare.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="def_impl"):
    ember.jit(bare.bind)(1.0)
  with pytest.raises(NotImplementedError, match="lower_fun"):
    mlir.register_lowering(bare, lambda ctx, x: x)
  mlir.register_lowering(bare, mlir.lower_fun(lambda x: x * 4, multiple_results=False))
  assert ember.jit(bare.bind)(1.0) == 4.0


def test_extend_core_helpers_as_jax():
  # Expected values from jax.extend.core 0.10.2.
  aval = ember.core.ShapedArray((2, 3, 4), jnp.float32)
  assert [str(a) for a in (ecore.mapped_aval(3, 1, aval), ecore.unmapped_aval(5, 0, aval),
                           ecore.mapped_aval(3, None, aval), ecore.unmapped_aval(5, 3, aval))] == [
      "float32[2,4]", "float32[5,2,3,4]", "float32[2,3,4]", "float32[2,3,4,5]"]
  with pytest.raises(AssertionError):
    ecore.mapped_aval(2, 1, aval)
  with pytest.raises(TypeError, match="no mapping handler for 3 of type <class 'int'>"):
    ecore.mapped_aval(2, 1, 3)
  f0 = ember.dtypes.float0
  assert ecore.primal_dtype_to_tangent_dtype(jnp.int32) == f0
  assert ecore.primal_dtype_to_tangent_dtype(ember.random.key(0).dtype) == f0
  assert ecore.primal_dtype_to_tangent_dtype(jnp.float32) is jnp.float32
  assert [ecore.valid_jaxtype(x) for x in (1.0, "a", jnp.ones(2), None, [1])] == [
      True, False, True, False, False]
  assert ecore.concrete_or_error(int, 3.5) == 3 and ecore.concrete_or_error(None, 2) == 2
  with pytest.raises(ember.errors.ConcretizationTypeError, match="ctx here"):
    ember.jit(lambda x: ecore.concrete_or_error(int, x, "ctx here"))(1.0)
  assert ecore.gensym()(aval).aval is aval
  jaxpr = ember.make_jaxpr(lambda x: ember.lax.cond(x > 0, jnp.sin, jnp.cos, x)
                           + ember.jit(jnp.sin)(x))(1.0).jaxpr
  assert [type(j).__name__ for j in ecore.subjaxprs(jaxpr)] == ["Jaxpr"] * 3
  eqn = jaxpr.eqns[0]
  new = ecore.new_jaxpr_eqn(eqn.invars, eqn.outvars, eqn.primitive, eqn.params, set())
  assert new.primitive is eqn.primitive and new.outvars == eqn.outvars
  with pytest.raises(NotImplementedError, match="ctx"):
    ecore.new_jaxpr_eqn(eqn.invars, eqn.outvars, eqn.primitive, eqn.params, set(), ctx=1)
  assert np.ndarray in ecore.array_types and np.float32 in ecore.array_types
  assert type(ember.lax.create_token()) is ecore.Token


def test_extend_core_trace_state_probes_as_jax():
  seen = []

  def probe(x):
    seen.append((ecore.unsafe_am_i_under_a_jit_DO_NOT_USE(),
                 ecore.unsafe_am_i_under_a_vmap_DO_NOT_USE(),
                 ecore.unsafe_get_axis_names_DO_NOT_USE(), ecore.nonempty_axis_env_DO_NOT_USE()))
    return x
  probe(1.0)
  ember.jit(probe)(1.0)
  ember.vmap(probe)(jnp.ones(2))
  ember.vmap(probe, axis_name="i")(jnp.ones(2))
  ember.grad(probe)(1.0)
  ember.jit(ember.vmap(probe, axis_name="i"))(jnp.ones(2))
  ember.vmap(ember.vmap(probe, axis_name="j"), axis_name="i")(jnp.ones((2, 2)))
  assert seen == [(False, False, [], False), (True, False, [], False), (False, True, [], False),
                  (False, True, ["i"], True), (False, False, [], False), (True, True, ["i"], True),
                  (False, True, ["i", "j"], True)]  # JAX 0.10.2's answers


def test_interpreters_ad_rule_makers_as_jax():
  from ember.interpreters import ad, mlir
  myexp = ecore.Primitive("myexp_t")
  myexp.def_impl(jnp.exp)
  myexp.def_abstract_eval(lambda x: x)
  mlir.register_lowering(myexp, mlir.lower_fun(jnp.exp, multiple_results=False))
  ad.defjvp2(myexp, lambda g, ans, x: g * ans)
  y, t = ember.jvp(myexp.bind, (1.0,), (2.0,))
  np.testing.assert_allclose([float(y), float(t)], [np.e, 2 * np.e], rtol=1e-6)
  np.testing.assert_allclose(float(ember.grad(lambda x: myexp.bind(x) * 2)(0.5)),
                             2 * np.exp(0.5), rtol=1e-6)
  mymul = ecore.Primitive("mymul_t")
  mymul.def_impl(lambda x, y: x * y)
  mymul.def_abstract_eval(lambda x, y: x)
  mlir.register_lowering(mymul, mlir.lower_fun(lambda x, y: x * y, multiple_results=False))
  ad.defbilinear(mymul, lambda ct, x, y: ct * y, lambda ct, x, y: ct * x)
  assert [float(v) for v in ember.jvp(mymul.bind, (3.0, 4.0), (1.0, 10.0))] == [12.0, 34.0]
  assert [float(v) for v in ember.grad(mymul.bind, argnums=(0, 1))(3.0, 4.0)] == [4.0, 3.0]
  np.testing.assert_allclose(float(ember.jit(ember.grad(
      lambda x, y: mymul.bind(x, y) + myexp.bind(x)))(3.0, 4.0)), 4 + np.exp(3.0), rtol=1e-6)
  zero = ad.Zero(ember.core.ShapedArray((), jnp.float32))
  assert float(ad.add_jaxvals(1.0, 2.0)) == 3.0 and ad.add_jaxvals_p.name == "add_any"
  assert ad.add_tangents(zero, 5.0) == 5.0
  assert str(ad.zeros_like_aval(ember.core.ShapedArray((2,), jnp.float32))) == "[0. 0.]"
  with pytest.raises(NotImplementedError, match="Transpose rule .* for 'myexp_t' not implemented"):
    ad.get_primitive_transpose(myexp)
  assert callable(ad.get_primitive_transpose(mymul))
  seen = []
  ember.jvp(lambda x: seen.append(isinstance(x, ad.JVPTracer)) or x, (1.0,), (1.0,))
  assert seen == [True]
