"""Public names beyond the transforms: custom_gradient, closure_convert, linear_call, symbolic
zeros, checkpoint policies (the residuals each saves, seen as the leaves of a vjp function),
checkpoint_name, ensure_compile_time_eval, default_device, clear_caches, make_user_context,
live_arrays, transfer guards, custom_vmap, the stages of jit, the profiler's annotations,
monitoring's listeners and compile events, mesh_utils, multihost_utils and pjit."""
import warnings

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


def _shapes(tree):
  """The shapes of a pytree's leaves, sorted (residual order is an implementation detail)."""
  return sorted(str(tuple(leaf.shape)) for leaf in jax.tree_util.tree_leaves(tree))


# --- custom_gradient -----------------------------------------------------------------------------

@jax.custom_gradient
def _square(x):
  return x ** 2, lambda g: (g * x,)


@jax.custom_gradient
def _prod(x, y):
  return x * y, lambda g: (g * y, 2 * g * x)


@program
def custom_gradient_values_and_grads():
  x = jnp.float32(3.0)
  return (_square(x), jax.grad(_square)(x), jax.value_and_grad(_square)(x),
          jax.jit(jax.grad(_square))(x), jax.vmap(jax.grad(_square))(jnp.arange(3.0)),
          jax.grad(_prod, argnums=(0, 1))(2.0, 3.0))


@program
def custom_gradient_rule_returning_one_value():
  @jax.custom_gradient
  def f(x):
    return jnp.sin(x), lambda g: g * 10.0
  return jax.grad(f)(0.5), jax.grad(lambda x: f(x) * f(x))(0.5)


@program
def custom_gradient_pytree_output_and_closure():
  w = jnp.array([1.0, 2.0])

  @jax.custom_gradient
  def f(x):
    out = {"a": x * w, "b": x.sum()}
    return out, lambda g: (g["a"] * w + g["b"],)
  return jax.grad(lambda x: f(x)["a"].sum() + 3 * f(x)["b"])(jnp.ones(2))


@program
def custom_gradient_printed_jaxprs():
  print(jax.make_jaxpr(_square)(3.0))
  print(jax.make_jaxpr(jax.grad(_square))(3.0))


@program
def custom_gradient_refuses_jvp():
  return jax.jvp(_square, (3.0,), (1.0,))


# --- closure_convert ---------------------------------------------------------------------------

@program
def closure_convert_eager_hoists_nothing():
  w = jnp.float32(2.0)
  converted, consts = jax.closure_convert(lambda x: jnp.sin(w * x) + jnp.arange(3.0), 1.0)
  return consts, converted(1.0, *consts), converted.__name__


@program
def closure_convert_under_jit_and_grad():
  seen = []

  def f(w):
    converted, consts = jax.closure_convert(lambda x: w * x + 1, 1.0)
    seen.append(len(consts))
    print(jax.make_jaxpr(converted)(1.0, *consts))
    return converted(2.0, *consts)
  return jax.jit(f)(2.0), jax.grad(f)(2.0), seen


@program
def closure_convert_keeps_integers_and_batched_constants_inside():
  def count(w, x0):
    return len(jax.closure_convert(lambda x: w * x, x0)[1])
  ints = jax.jit(lambda w: jnp.float32(count(w, 1)))(3)
  batched = jax.vmap(lambda w: jnp.float32(count(w, 1.0)))(jnp.arange(2.0))
  return ints, batched


@program
def closure_convert_with_custom_vjp():
  from functools import partial

  @partial(jax.custom_vjp, nondiff_argnums=(0,))
  def apply(fn, x, *consts):
    return fn(x, *consts)

  def fwd(fn, x, *consts):
    return fn(x, *consts), (x, consts)

  def bwd(fn, res, g):
    x, consts = res
    _, pull = jax.vjp(fn, x, *consts)
    return pull(g)
  apply.defvjp(fwd, bwd)

  def outer(w, x):
    converted, consts = jax.closure_convert(lambda y: w * jnp.sin(y), x)
    return apply(converted, x, *consts)
  return jax.grad(outer, argnums=(0, 1))(3.0, 2.0), jax.jit(jax.grad(outer))(3.0, 2.0)


@program
def closure_convert_pytree_arguments():
  converted, consts = jax.closure_convert(lambda d: {"a": d["a"] * 2, "b": d["b"].sum()},
                                          {"a": jnp.ones(2), "b": jnp.arange(3.0)})
  return converted({"a": jnp.ones(2), "b": jnp.arange(3.0)}), consts


# --- linear_call, symbolic zeros ---------------------------------------------------------------

def _lin(x):
  linear_call = submodule("custom_derivatives").linear_call
  return linear_call(lambda r, x: r * x, lambda r, ct: 3 * r * ct, 2.0, x)


@program
def linear_call_values_and_transposes():
  return (_lin(1.0), jax.jvp(_lin, (1.0,), (1.0,)), jax.grad(_lin)(1.0),
          jax.linear_transpose(_lin, 1.0)(1.0), jax.jit(jax.grad(_lin))(1.0))


@program
def linear_call_printed_jaxprs():
  print(jax.make_jaxpr(_lin)(1.0))
  print(jax.make_jaxpr(jax.grad(_lin))(1.0))


@program
def linear_call_has_no_batching_rule():
  return jax.vmap(_lin)(jnp.arange(3.0))


@program
def symbolic_zeros_in_custom_jvp():
  cd = submodule("custom_derivatives")
  seen = []

  @jax.custom_jvp
  def f(x, y):
    return x * y

  def f_jvp(primals, tangents):
    x, y = primals
    xd, yd = tangents
    seen.append([type(t).__name__ for t in tangents])
    t = sum(td * o for td, o in ((xd, y), (yd, x)) if type(td) is not cd.SymbolicZero)
    return x * y, t
  f.defjvp(f_jvp, symbolic_zeros=True)
  return jax.grad(f)(2.0, 3.0), jax.grad(f, argnums=1)(2.0, 3.0), seen


@program
def symbolic_zeros_in_custom_vjp():
  cd = submodule("custom_derivatives")
  seen = []

  @jax.custom_vjp
  def f(x, y):
    return x * y, x + y

  def fwd(x, y):
    seen.append((type(x).__name__, x.perturbed, y.perturbed))
    x, y = cd.custom_vjp_primal_tree_values((x, y))
    return f(x, y), (x, y)

  def bwd(res, cts):
    seen.append([type(c).__name__ for c in cts])
    a, _ = cts
    return a * res[1], cd.SymbolicZero(jax.typeof(res[1]))
  f.defvjp(fwd, bwd, symbolic_zeros=True)
  return jax.grad(lambda x: f(x, 3.0)[0])(2.0), seen


@program
def zero_from_primal_and_symbolic_zero_attributes():
  cd = submodule("custom_derivatives")
  z = cd.SymbolicZero.from_primal_value(jnp.ones((2, 3)))
  zi = cd.SymbolicZero.from_primal_value(jnp.arange(2))
  return (cd.zero_from_primal({"a": jnp.ones(2), "b": 1.0}), z.shape, str(z.dtype),
          str(zi.dtype), repr(cd.CustomVJPPrimal(1.0, True)),
          type(cd.zero_from_primal(jnp.ones(2), symbolic_zeros=True)).__name__)


@program
def custom_derivatives_module_names():
  cd = submodule("custom_derivatives")
  names = ["custom_jvp", "custom_vjp", "custom_gradient", "closure_convert", "linear_call",
           "SymbolicZero", "CustomVJPPrimal", "zero_from_primal",
           "custom_vjp_primal_tree_values", "custom_jvp_call_p", "custom_vjp_call_p"]
  return ([hasattr(cd, n) for n in names], cd.custom_jvp is jax.custom_jvp,
          cd.custom_vjp is jax.custom_vjp, cd.custom_gradient is jax.custom_gradient,
          str(cd.custom_jvp_call_p), str(cd.custom_vjp_call_p))


# --- checkpoint policies -----------------------------------------------------------------------

def _net(x, w):
  checkpoint_name = submodule("ad_checkpoint").checkpoint_name
  y = checkpoint_name(jnp.sin(x @ w), "y")
  z = jnp.cos(y) * y
  return jnp.sum(z @ w)


def _policies():
  p = jax.checkpoint_policies
  return {"none": None, "nothing": p.nothing_saveable, "everything": p.everything_saveable,
          "dots": p.dots_saveable, "dots_no_batch": p.dots_with_no_batch_dims_saveable,
          "only_y": p.save_only_these_names("y"),
          "all_but_y": p.save_anything_except_these_names("y"),
          "names_but_y": p.save_any_names_but_these("y"),
          "dots_or_y": p.save_from_both_policies(p.dots_saveable, p.save_only_these_names("y")),
          "cos_only": lambda prim, *_, **__: prim.name == "cos"}


@program
def checkpoint_policies_saved_residuals():
  x, w = jnp.ones((2, 3)), jnp.full((3, 3), 0.5)
  out = {}
  for name, policy in _policies().items():
    f = jax.checkpoint(_net, policy=policy)
    _, f_vjp = jax.vjp(f, x, w)
    _, f_lin = jax.linearize(lambda x: f(x, w), x)
    out[name] = (_shapes(f_vjp), _shapes(f_lin))
  return out


@program
def checkpoint_policies_gradients_agree():
  x, w = jnp.ones((2, 3)), jnp.full((3, 3), 0.5)
  out = {}
  for name, policy in _policies().items():
    f = jax.checkpoint(_net, policy=policy)
    out[name] = (jax.grad(f, argnums=(0, 1))(x, w), jax.jit(jax.grad(f))(x, w))
  return out


@program
def checkpoint_policy_on_a_nested_jit():
  def h(x):
    y = jax.jit(lambda a: jnp.sin(a) * 2)(x)
    return jnp.sum(jnp.cos(y))
  out = {}
  for name, policy in _policies().items():
    f = jax.checkpoint(h, policy=policy)
    out[name] = (_shapes(jax.vjp(f, jnp.ones(3))[1]), jax.grad(f)(jnp.ones(3)))
  return out


@program
def checkpoint_policy_sees_every_primal_equation():
  seen = []

  def policy(prim, *avals, **params):
    seen.append((prim.name, tuple(str(a) for a in avals)))
    return False

  f = jax.checkpoint(lambda x, w: jnp.sum(jnp.tanh(x @ w) * jnp.exp(x)), policy=policy)
  jax.vjp(f, jnp.ones((2, 2)), jnp.ones((2, 2)))
  return sorted(set(seen))


@program
def checkpoint_policy_dots_without_batch_dims():
  p = jax.checkpoint_policies
  f = lambda a, b: jnp.sum(jnp.sin(jnp.einsum("bij,bjk->bik", a, b)))  # noqa: E731
  a, b = jnp.ones((2, 3, 3)), jnp.full((2, 3, 3), 2.0)
  return (_shapes(jax.vjp(jax.checkpoint(f, policy=p.dots_saveable), a, b)[1]),
          _shapes(jax.vjp(jax.checkpoint(f, policy=p.dots_with_no_batch_dims_saveable),
                          a, b)[1]))


@program
def checkpoint_policy_must_answer_a_bool():
  f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=lambda *_, **__: 1)
  return jax.grad(f)(1.0)


@program
def checkpoint_policy_reprs():
  p = jax.checkpoint_policies
  return [repr(q) for q in (p.everything_saveable, p.nothing_saveable, p.dots_saveable,
                            p.checkpoint_dots, p.dots_with_no_batch_dims_saveable,
                            p.save_only_these_names("y"), p.save_any_names_but_these("y"),
                            p.save_anything_except_these_names("y"),
                            p.save_from_both_policies(p.dots_saveable, p.nothing_saveable))]


@program
def checkpoint_name_printed_and_differentiated():
  checkpoint_name = submodule("ad_checkpoint").checkpoint_name
  print(jax.make_jaxpr(lambda x: checkpoint_name(x * 2, "a"))(1.0))
  print(jax.make_jaxpr(jax.grad(lambda x: checkpoint_name(jnp.sin(x), "a")))(1.0))
  return (jax.vmap(lambda x: checkpoint_name(x * 2, "a"))(jnp.ones(2)),
          checkpoint_name({"a": jnp.ones(2), "b": (jnp.zeros(1),)}, "n"))


@program
def vjp_and_linearize_functions_are_pytrees():
  f = lambda x: jnp.sin(x) * x  # noqa: E731
  _, f_vjp = jax.vjp(f, jnp.ones(3))
  _, f_lin = jax.linearize(f, jnp.ones(3))
  out, f_vjp2 = jax.jit(lambda x: jax.vjp(f, x))(jnp.ones(3))
  return (_shapes(f_vjp), _shapes(f_lin), f_vjp2(jnp.ones(3)),
          jax.jit(lambda g, c: g(c))(f_vjp, jnp.ones(3)))


# --- ensure_compile_time_eval, default_device, caches ---------------------------------------

@program
def ensure_compile_time_eval_inside_jit():
  @jax.jit
  def f(x):
    with jax.ensure_compile_time_eval():
      y = jnp.sin(2.0) + jnp.arange(3.0)
      print(type(y).__name__, y)
      n = int(jnp.sum(jnp.arange(4)))
      z = jnp.sin(x)  # a traced value stays traced
      print(isinstance(z, jax.core.Tracer))
    return x * n + y
  return f(jnp.ones(3))


@program
def ensure_compile_time_eval_printed_jaxpr():
  def g(x):
    with jax.ensure_compile_time_eval():
      n = jnp.int32(3) * 2
      print(int(n))
    return x * n
  print(jax.make_jaxpr(g)(1.0))


@program
def ensure_compile_time_eval_under_grad_and_vmap():
  def h(x):
    with jax.ensure_compile_time_eval():
      return x * 2
  with jax.ensure_compile_time_eval():
    eager = jnp.ones(2) * 3
  return jax.grad(h)(1.0), jax.vmap(h)(jnp.ones(2)), eager


@program
def default_device_context_and_config():
  d = jax.devices()
  out = []
  with jax.default_device(d[3]):
    x = jnp.ones(3)
    out.append((str(x.devices()), x.committed))
    y = jax.jit(lambda a: a + 1)(np.ones(2))
    out.append((str(y.devices()), y.committed))
    out.append(str((x + jnp.ones(3)).devices()))
    out.append(str(jax.device_put(np.ones(2)).devices()))
    out.append(str(jax.config.jax_default_device))
  out.append(str(jnp.zeros(1).devices()))
  jax.config.update("jax_default_device", d[2])
  out.append(str(jnp.zeros(1).devices()))
  jax.config.update("jax_default_device", None)
  with jax.default_device("cpu"):
    out.append(str(jnp.zeros(1).devices()))
  return out


@program
def default_device_refuses_a_number():
  with jax.default_device(3):
    pass


@program
def default_device_unknown_platform():
  with jax.default_device("gpu"):
    return jnp.zeros(1)


@program
def clear_caches_then_rerun():
  traces = []

  @jax.jit
  def f(x):
    traces.append(1)
    return x * 2
  a = f(1.0)
  f(1.0)
  jax.clear_caches()
  b = f(1.0)
  return a, b, len(traces), jax.clear_caches()


@program
def make_user_context_keys_jit_caches():
  traces = []
  ctx = jax.make_user_context(default_value=None)
  g = jax.jit(lambda x: traces.append(1) or x + 1)
  g(1.0)
  with ctx(1):
    g(1.0)
    g(1.0)
  with ctx(2):
    g(1.0)
  with ctx(1):
    out = g(1.0)
  g(1.0)
  return out, len(traces)


@program
def live_arrays_lists_arrays():
  x = jnp.arange(5)
  arrays = jax.live_arrays()
  return type(arrays).__name__, any(a is x for a in arrays), type(arrays[0]).__name__


# --- transfer guards -------------------------------------------------------------------------

@program
def transfer_guard_allows_explicit_and_on_device_work():
  x = jnp.ones(3)
  with jax.transfer_guard("disallow"):
    explicit = jax.device_put(np.ones(2))
    on_device = jax.jit(lambda a: a * 2)(x)
    read = np.asarray(x)
    levels = (jax.config.jax_transfer_guard, jax.config.jax_transfer_guard_host_to_device)
  return explicit, on_device, read, levels, jax.config.jax_transfer_guard


@program
def transfer_guard_disallows_implicit_transfers():
  x = jnp.ones(3)
  with jax.transfer_guard("disallow"):
    x + np.ones(3)


@program
def transfer_guard_host_to_device_disallow_explicit():
  with jax.transfer_guard_host_to_device("disallow_explicit"):
    jax.device_put(np.ones(3))


@program
def transfer_guard_device_to_host_and_device_to_device_on_cpu():
  x = jnp.ones(3)
  with jax.transfer_guard_device_to_host("disallow"):
    a = (np.asarray(x), float(x[0]), x.tolist(), jax.device_get(x))
  with jax.transfer_guard_device_to_device("disallow"):
    b = jax.device_put(x, jax.devices()[1])
  return a, b, jax.config.jax_transfer_guard_device_to_host


@program
def transfer_guard_refuses_unknown_levels():
  with jax.transfer_guard("bogus"):
    pass


# --- custom_vmap ------------------------------------------------------------------------------

def _custom_sin():
  custom_vmap = submodule("custom_batching").custom_vmap

  @custom_vmap
  def f(x, y):
    return jnp.sin(x) * y

  @f.def_vmap
  def f_vmap_rule(axis_size, in_batched, xs, ys):
    print("rule", axis_size, in_batched)
    return jnp.cos(xs) * ys, True
  return f


@program
def custom_vmap_values():
  f = _custom_sin()
  return (f(1.0, 2.0), jax.vmap(f)(jnp.arange(3.0), jnp.ones(3)),
          jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), 2.0),
          jax.jit(jax.vmap(f))(jnp.arange(3.0), jnp.ones(3)),
          jax.vmap(jax.vmap(f))(jnp.ones((2, 3)), jnp.ones((2, 3))))


@program
def custom_vmap_printed_jaxprs():
  f = _custom_sin()
  print(jax.make_jaxpr(jax.vmap(f))(jnp.arange(3.0), jnp.ones(3)))


@program
def custom_vmap_jvp():
  f = _custom_sin()
  return (jax.jvp(f, (1.0, 2.0), (1.0, 0.0)),
          jax.vmap(lambda x, t: jax.jvp(f, (x, 2.0), (t, 1.0)))(jnp.arange(3.0), jnp.ones(3)),
          jax.jvp(jax.vmap(f), (jnp.arange(3.0), jnp.ones(3)), (jnp.ones(3), jnp.zeros(3))))


@program
def custom_vmap_refuses_reverse_mode():
  return jax.grad(_custom_sin())(1.0, 2.0)


@program
def custom_vmap_without_rule():
  custom_vmap = submodule("custom_batching").custom_vmap

  @custom_vmap
  def g(x):
    return x + 1
  return g(1.0)


@program
def custom_vmap_output_batching_tree():
  custom_vmap = submodule("custom_batching").custom_vmap

  @custom_vmap
  def h(x):
    return {"a": x, "b": (x * 2,)}

  @h.def_vmap
  def h_rule(axis_size, in_batched, x):
    return {"a": x, "b": (x * 3,)}, {"a": True, "b": (True,)}
  return jax.vmap(h)(jnp.ones(2))


@program
def sequential_vmap_values():
  sequential_vmap = submodule("custom_batching").sequential_vmap
  total = sequential_vmap(lambda x: jnp.sum(x))
  matvec = sequential_vmap(lambda a, b: a @ b)
  return (jax.vmap(total)(jnp.ones((3, 4))),
          jax.vmap(matvec, in_axes=(0, None))(jnp.ones((2, 3, 3)), jnp.ones(3)),
          total(jnp.arange(3.0)))


# --- stages ----------------------------------------------------------------------------------

@program
def stages_objects_and_methods():
  stages = submodule("stages")
  f = jax.jit(lambda x, y: x * 2 + y)
  traced = f.trace(1.0, jnp.ones(2))
  lowered = traced.lower()
  compiled = lowered.compile()
  print(traced.jaxpr)
  return (isinstance(f, stages.Wrapped), isinstance(traced, stages.Traced),
          isinstance(lowered, stages.Lowered), isinstance(compiled, stages.Compiled),
          traced.fun_name, traced.in_avals, traced.out_info, lowered.args_info,
          compiled.args_info, lowered.out_info, compiled(3.0, jnp.ones(2)),
          "flops" in compiled.cost_analysis(), "flops" in lowered.cost_analysis(),
          type(compiled.memory_analysis()).__name__,
          type(compiled.runtime_executable()).__name__, lowered.donate_argnums)


@program
def stages_names():
  stages = submodule("stages")
  return [hasattr(stages, n) for n in ("Wrapped", "Traced", "Lowered", "Compiled",
                                       "CompilerOptions", "ArgInfo")]


# --- profiler, monitoring ---------------------------------------------------------------------

@program
def profiler_annotations():
  profiler = submodule("profiler")
  with profiler.TraceAnnotation("region", a=1):
    x = jnp.ones(3) * 2
  with profiler.StepTraceAnnotation("train", step_num=3):
    y = x + 1

  @profiler.annotate_function
  def f(v):
    return v + 1
  g = profiler.annotate_function(lambda v: v * 3, name="triple", k=2)
  return (x, y, f(1), f.__name__, g(2), type(profiler.device_memory_profile()).__name__,
          isinstance(profiler.TraceAnnotation("a"), profiler.TraceAnnotation))


@program
def profiler_stop_without_start():
  submodule("profiler").stop_trace()


@program
def profiler_trace_writes_a_profile():
  import os
  import tempfile
  profiler = submodule("profiler")
  log_dir = tempfile.mkdtemp()
  with profiler.trace(log_dir):
    (jnp.ones(3) * 2).block_until_ready()
  runs = os.listdir(os.path.join(log_dir, "plugins", "profile"))
  files = os.listdir(os.path.join(log_dir, "plugins", "profile", runs[0]))
  return len(runs), sorted(f.split(".", 1)[1] for f in files)


@program
def monitoring_listeners():
  monitoring = submodule("monitoring")
  seen = []
  ev = lambda name, **kw: seen.append(("event", name, kw))  # noqa: E731
  dur = lambda name, d, **kw: seen.append(("duration", name, d, kw))  # noqa: E731
  span = lambda name, s, e, **kw: seen.append(("span", name, e - s, kw))  # noqa: E731
  scalar = lambda name, v, **kw: seen.append(("scalar", name, v, kw))  # noqa: E731
  monitoring.register_event_listener(ev)
  monitoring.register_event_duration_secs_listener(dur)
  monitoring.register_event_time_span_listener(span)
  monitoring.register_scalar_listener(scalar)
  monitoring.record_event("/my/event", a=1)
  monitoring.record_event_duration_secs("/my/duration", 0.5, b="x")
  monitoring.record_event_time_span("/my/span", 1.0, 3.0)
  monitoring.record_scalar("/my/scalar", 3.0)
  monitoring.unregister_event_listener(ev)
  monitoring.unregister_event_duration_listener(dur)
  monitoring.unregister_event_time_span_listener(span)
  monitoring.unregister_scalar_listener(scalar)
  monitoring.record_event("/not/seen")
  return seen


@program
def monitoring_unregistering_an_unknown_listener():
  submodule("monitoring").unregister_event_listener(lambda name, **kw: None)


@program
def monitoring_compile_events():
  monitoring = submodule("monitoring")
  seen = []
  listener = lambda name, d, **kw: seen.append((name, kw))  # noqa: E731
  monitoring.register_event_duration_secs_listener(listener)
  try:
    jax.jit(lambda x: x * 7 + 1)(np.float32(2.0))
  finally:
    monitoring.unregister_event_duration_listener(listener)
  return seen


# --- mesh_utils, multihost_utils, pjit ------------------------------------------------------

def _ids(mesh):
  return np.vectorize(lambda d: d.id)(mesh)


@program
def mesh_utils_device_meshes():
  mesh_utils = submodule("experimental.mesh_utils")
  return (_ids(mesh_utils.create_device_mesh((4, 2))),
          _ids(mesh_utils.create_device_mesh([2, 2], devices=jax.devices()[4:])),
          _ids(mesh_utils.create_device_mesh((8,))),
          _ids(mesh_utils.create_device_mesh((2, 2, 2), allow_split_physical_axes=True)),
          _ids(mesh_utils.create_device_mesh((4, 2), contiguous_submeshes=True)),
          _ids(mesh_utils.create_hybrid_device_mesh((4, 2), (1, 1), process_is_granule=True)))


@program
def mesh_utils_wrong_device_count():
  submodule("experimental.mesh_utils").create_device_mesh((3, 2))


@program
def mesh_utils_hybrid_needs_granules():
  submodule("experimental.mesh_utils").create_hybrid_device_mesh((2, 2), (2, 1))


@program
def mesh_utils_hybrid_granule_count():
  submodule("experimental.mesh_utils").create_hybrid_device_mesh((2, 2), (2, 1),
                                                                 process_is_granule=True)


@program
def multihost_utils_single_process():
  mu = submodule("experimental.multihost_utils")
  x = jnp.arange(4.0)
  return (mu.process_allgather(x), mu.process_allgather(x, tiled=True),
          mu.process_allgather({"a": np.float32(1.0), "b": np.ones(2)}),
          mu.broadcast_one_to_all({"a": jnp.ones(2), "b": np.int32(3)}),
          mu.broadcast_one_to_all(np.ones(2), is_source=False),
          mu.sync_global_devices("hi"), mu.assert_equal(jnp.ones(2)),
          mu.reached_preemption_sync_point(1), issubclass(mu.ProcessFailureError, Exception))


@program
def multihost_utils_global_arrays():
  mu = submodule("experimental.multihost_utils")
  P = jax.sharding.PartitionSpec
  mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
  g = mu.host_local_array_to_global_array(np.arange(16.0).reshape(8, 2), mesh, P("x"))
  local = mu.global_array_to_host_local_array(g, mesh, P("x"))
  tree = mu.host_local_array_to_global_array({"a": np.ones((4, 2))}, mesh, {"a": P("x", "y")})
  return (g, g.sharding.spec == P("x"), local, local.sharding.spec == P("x"),
          tree["a"].sharding.spec == P("x", "y"), len(tree["a"].addressable_shards))


@program
def pjit_is_a_deprecated_jit():
  pjit_module = submodule("experimental.pjit")
  P = jax.sharding.PartitionSpec
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pjit = pjit_module.pjit
  mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
  f = pjit(lambda x: x * 2, in_shardings=jax.sharding.NamedSharding(mesh, P("x")),
           out_shardings=jax.sharding.NamedSharding(mesh, P("x", "y")))
  out = f(jnp.ones((8, 2)))
  return ([w.category.__name__ for w in caught], pjit(lambda x: x + 1)(jnp.ones(2)), out,
          out.sharding.spec == P("x", "y"))
