"""jit's public surface: static arguments (by position, negative position and name), partials,
methods and lambdas, nesting, pytree arguments and results, retracing seen through Python side
effects, lowering's public attributes, eval_shape, printed jaxprs of small functions, and the
errors a user meets (concretization, bool conversion, unhashable statics, bad callables)."""
import functools
import re
from functools import partial

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


@program
def static_argnums_positive_and_negative():
  traces = []

  def f(x, n, scale):
    traces.append((n, scale))
    return x * n + scale

  g = jax.jit(f, static_argnums=(1, -1))
  a = g(jnp.arange(3.0), 2, 1.5)
  b = g(jnp.arange(3.0) + 1, 2, 1.5)   # same statics: no retrace
  c = g(jnp.arange(3.0), 3, 1.5)       # new static: retrace
  return a, b, c, traces


@program
def static_argnames_given_by_keyword_and_position():
  traces = []

  def f(x, mode="sum", k=1):
    traces.append((mode, k))
    return x.sum() * k if mode == "sum" else x.max() * k

  g = jax.jit(f, static_argnames=("mode", "k"))
  x = jnp.array([1.0, 4.0, 2.0])
  out = (g(x), g(x, mode="max"), g(x, mode="max", k=2), g(x, "sum", 3), g(x, mode="sum"))
  return out, traces


@program
def static_argnums_infers_argnames():
  traces = []

  def f(x, power):
    traces.append(power)
    return x ** power

  g = jax.jit(f, static_argnums=1)
  return g(jnp.array([2.0, 3.0]), 2), g(jnp.array([2.0, 3.0]), power=2), traces


@program
def jit_of_functools_partial():
  def affine(x, w, b):
    return w * x + b

  f = jax.jit(partial(affine, w=2.0, b=jnp.float32(1.0)))
  g = jax.jit(functools.partial(jnp.sum, axis=0))
  x = jnp.arange(6.0).reshape(2, 3)
  return f(jnp.arange(3.0)), g(x)


@program
def jit_of_partial_with_static_keyword():
  def reduce(x, *, op):
    return op(x)

  f = jax.jit(partial(reduce, op=jnp.max))
  return f(jnp.array([3, 9, 1])), f(jnp.array([-1.0, -2.0]))


@program
def jit_of_bound_method_and_lambda():
  class Scaler:
    def __init__(self, s):
      self.s = s

    def apply(self, x):
      return x * self.s

  m = jax.jit(Scaler(3.0).apply)
  lam = jax.jit(lambda x, y: (x @ y, x.T))
  a = jnp.arange(4.0).reshape(2, 2)
  return m(jnp.arange(3)), lam(a, a)


@program
def jit_static_self_via_partial():
  class Model:
    def __init__(self, depth):
      self.depth = depth

    def __hash__(self):
      return hash(self.depth)

    def __eq__(self, other):
      return isinstance(other, Model) and other.depth == self.depth

    @partial(jax.jit, static_argnums=0)
    def run(self, x):
      for _ in range(self.depth):
        x = jnp.tanh(x)
      return x

  return Model(2).run(jnp.array([0.5, -1.0])), Model(3).run(jnp.array([0.5, -1.0]))


@program
def nested_jit_values_and_jaxpr():
  @jax.jit
  def inner(x):
    return jnp.sin(x) * 2.0

  @jax.jit
  def outer(x, y):
    return inner(x) + inner(y)

  x = jnp.array([0.0, 1.0])
  return outer(x, x + 1), str(jax.make_jaxpr(outer)(x, x))


@program
def pytree_arguments_and_outputs_keep_dict_order():
  @jax.jit
  def f(params, batch):
    out = {"z": params["w"] * batch[0], "a": params["b"] + batch[1], "m": None}
    return out, [batch[1], (params["b"],)]

  params = {"w": jnp.array([1.0, 2.0]), "b": jnp.float32(0.5)}
  out = f(params, (jnp.array([3.0, 4.0]), jnp.array(1)))
  return out, str(jax.tree_util.tree_structure(out))


@program
def none_leaves_pass_through_jit():
  @jax.jit
  def f(a, b):
    return {"sum": a["x"] + 1, "nothing": a["y"]}, b

  return f({"x": jnp.arange(2), "y": None}, None)


@program
def retrace_on_shape_dtype_and_weak_type():
  traces = []

  @jax.jit
  def f(x):
    traces.append((x.shape, str(x.dtype), x.weak_type))
    return x + 1

  f(jnp.ones(2))
  f(jnp.zeros(2))             # cached
  f(jnp.ones(3))              # new shape
  f(jnp.ones(2, jnp.int32))   # new dtype
  f(1.0)                      # weak float scalar
  f(2.0)                      # cached
  f(jnp.float32(1.0))         # strong float scalar
  f(np.ones(2, np.float32))   # numpy input: same aval as the first call
  return traces


@program
def retrace_on_pytree_structure():
  traces = []

  @jax.jit
  def f(d):
    traces.append(tuple(sorted(d)))
    return sum(d.values())

  f({"a": 1.0, "b": 2.0})
  f({"b": 5.0, "a": 3.0})
  f({"a": 1.0, "b": 2.0, "c": 3.0})
  return traces, f({"a": jnp.ones(2), "b": jnp.ones(2)})


@program
def lowered_public_attributes():
  def f(x, y):
    return {"b": x * y, "a": (x.sum(), y)}

  low = jax.jit(f).lower(jnp.ones((2, 3)), 2)
  return str(low.out_info), str(low.in_tree), str(low.out_tree)


@program
def lowered_out_info_of_static_and_keyword_args():
  def f(x, *, k):
    return jnp.tile(x, k)

  low = jax.jit(f, static_argnames="k").lower(jnp.arange(3, dtype=jnp.int8), k=2)
  return repr(low.out_info), str(low.out_tree)


@program
def eval_shape_reprs_and_weak_types():
  def f(x, y, s):
    return x @ y, x.sum(axis=0) * s, s * 2, jnp.zeros(3, jnp.int16)

  out = jax.eval_shape(f, jax.ShapeDtypeStruct((2, 3), jnp.float32),
                       jnp.ones((3, 4), jnp.float32), 1.5)
  return [repr(o) for o in out], [o.weak_type for o in out]


@program
def eval_shape_of_pytree_and_dtype_promotion():
  def f(p):
    return {"y": p["a"] + p["b"], "n": p["a"].astype(jnp.int32)}

  out = jax.eval_shape(f, {"a": jnp.ones(2, jnp.float16), "b": jnp.ones(2, jnp.bfloat16)})
  return {k: (v.shape, str(v.dtype)) for k, v in out.items()}, repr(out["y"])


@program
def shape_dtype_struct_repr_and_eq():
  s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
  t = jax.ShapeDtypeStruct((2, 3), np.dtype("float32"))
  w = jax.ShapeDtypeStruct((), jnp.float32, weak_type=True)
  return repr(s), s == t, repr(w), w.weak_type, s.ndim, s.size, str(s.dtype)


# --- printed jaxprs of small functions -----------------------------------------------------


@program
def jaxpr_elementwise_chain():
  f = lambda x, y: jnp.exp(-x) * jnp.log1p(y) + jnp.sqrt(jnp.abs(x))
  return str(jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3)))


@program
def jaxpr_python_scalar_broadcasting():
  f = lambda x: (x * 2, x + 1.5, 3 - x, x / 2, 2 ** x)
  return str(jax.make_jaxpr(f)(jnp.arange(3.0))), str(jax.make_jaxpr(f)(jnp.arange(3)))


@program
def jaxpr_rank_broadcasting():
  f = lambda a, b: a + b
  return str(jax.make_jaxpr(f)(jnp.ones((2, 1)), jnp.ones(3)))


@program
def jaxpr_reductions():
  f = lambda x: (x.sum(), x.max(axis=0), jnp.mean(x, axis=1), x.argmin(axis=1),
                 jnp.prod(x), jnp.any(x > 0))
  return str(jax.make_jaxpr(f)(jnp.ones((2, 3))))


@program
def jaxpr_matmul_and_einsum():
  f = lambda a, b: (a @ b, jnp.einsum("ij,kj->ik", a, b.T), jnp.dot(a[0], b[:, 0]))
  return str(jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((3, 4))))


@program
def jaxpr_reshape_transpose_squeeze():
  f = lambda x: (x.reshape(3, 2), x.T, jnp.expand_dims(x, 0).squeeze(0), x.ravel(),
                 jnp.moveaxis(x[None], 0, -1))
  return str(jax.make_jaxpr(f)(jnp.ones((2, 3))))


@program
def jaxpr_integer_pow_and_square():
  f = lambda x: (x ** 2, x ** 3, x ** -1, jnp.square(x), x ** 0.5)
  return str(jax.make_jaxpr(f)(jnp.ones(2)))


@program
def jaxpr_where_and_select_n():
  f = lambda p, x, y: (jnp.where(p, x, y), lax.select_n(p, x, y), jnp.where(x > 0, x, 0.0))
  return str(jax.make_jaxpr(f)(jnp.array([True, False]), jnp.ones(2), jnp.zeros(2)))


@program
def jaxpr_convert_element_type():
  f = lambda x: (x.astype(jnp.int32), x.astype(jnp.float16), jnp.float32(x), x + jnp.int8(1))
  return str(jax.make_jaxpr(f)(jnp.ones(2))), str(jax.make_jaxpr(f)(jnp.ones(2, jnp.int8)))


@program
def jaxpr_iota_and_arange():
  f = lambda x: (jnp.arange(4) + x, lax.iota(jnp.int32, 3), jnp.eye(2), jnp.linspace(0, 1, 3))
  return str(jax.make_jaxpr(f)(1))


@program
def jaxpr_static_indexing():
  f = lambda x: (x[0], x[1:], x[:, ::2], x[..., -1], x[None, 0])
  return str(jax.make_jaxpr(f)(jnp.ones((3, 4))))


@program
def jaxpr_dynamic_indexing_gather():
  f = lambda x, i, idx: (x[i], x[idx], x[:, idx])
  return str(jax.make_jaxpr(f)(jnp.ones((3, 4)), 1, jnp.array([0, 2])))


@program
def traced_index_with_reversed_slices_and_index_arrays():
  z = jnp.arange(24.0).reshape(2, 3, 4)
  idx = jnp.array([0, 2])
  f = lambda z, i: (z[i, ::-1], z[i, 1::-1, 3:0:-1], z[1, idx, i], z.at[i, idx].add(1.0)[i])
  return (jax.jit(f)(z, 1), jax.jit(f)(z, -1), str(jax.make_jaxpr(f)(z, 1)),
          str(jax.make_jaxpr(f)(z, jnp.int32(1))))


@program
def jaxpr_at_set_and_add_scatter():
  f = lambda x, i: (x.at[i].set(0.0), x.at[jnp.array([0, 0])].add(1.0), x.at[1:].mul(2.0))
  return str(jax.make_jaxpr(f)(jnp.ones(4), 2))


@program
def jaxpr_closed_over_constant():
  c = np.arange(3.0, dtype=np.float32)
  f = lambda x: x * c + jnp.array([1.0, 2.0, 3.0])
  return str(jax.make_jaxpr(f)(jnp.ones(3)))


@program
def jaxpr_with_pytree_input_and_static_argnums():
  f = lambda p, n: p["w"] * n + p["b"]
  j = jax.make_jaxpr(f, static_argnums=1)({"w": jnp.ones(2), "b": 1.0}, 3)
  return str(j), len(j.jaxpr.invars), len(j.jaxpr.outvars), [str(v.aval) for v in j.in_avals]


@program
def jaxpr_long_variable_lists_break_lines():
  def many(*xs):
    return tuple(x * i for i, x in enumerate(xs)) + (sum(xs),)
  xs = [jnp.ones(2)] * 14
  return str(jax.make_jaxpr(many)(*xs)), str(jax.make_jaxpr(jax.jit(many))(*xs[:9]))


@program
def jaxpr_shares_repeated_and_large_subjaxprs():
  inner = jax.jit(lambda x: jnp.sin(x) * 2)
  mid = jax.jit(lambda x: inner(x) + inner(x + 1))
  scale = jax.jit(lambda x: x * 3)

  def body(c, x):
    for _ in range(4):
      c = jnp.tanh(c) * x + 1.0
    return c, c

  def f(x):
    a = mid(x) + mid(x * 2) + scale(x) + scale(x)
    c, ys = lax.scan(body, 0.0, x)
    d = lax.cond(x[0] > 0, lambda v: body(v, v)[0], lambda v: v, x)
    return a, c, ys, d
  return str(jax.make_jaxpr(f)(jnp.ones(3)))


# --- errors ----------------------------------------------------------------------------------


@program(phrases=("Abstract tracer value encountered where concrete value is expected",))
def concretization_error_for_int_of_tracer():
  @jax.jit
  def f(x):
    return jnp.zeros(int(x))
  return f(3)


@program(phrases=("Attempted boolean conversion of traced array",))
def tracer_bool_conversion_error():
  @jax.jit
  def f(x):
    if x > 0:
      return x
    return -x
  return f(1.0)


@program
def tracer_bool_conversion_error_type():
  @jax.jit
  def f(x):
    return x if x.sum() > 0 else -x
  try:
    f(jnp.ones(2))
  except jax.errors.TracerBoolConversionError as e:
    return "TracerBoolConversionError", isinstance(e, jax.errors.ConcretizationTypeError)


@program(phrases=("concrete",))
def concretization_error_in_python_range():
  @jax.jit
  def f(n):
    total = 0
    for i in range(n):
      total += i
    return total
  return f(3)


@program(phrases=("Non-hashable static arguments are not supported",))
def unhashable_static_argument():
  f = jax.jit(lambda x, opts: x * len(opts), static_argnums=1)
  return f(jnp.ones(2), [1, 2])


@program
def jit_of_non_callable():
  return jax.jit(3)


@program
def jit_called_with_too_many_arguments():
  f = jax.jit(lambda x, y: x + y)
  return f(1.0, 2.0, 3.0)


@program
def jit_called_with_missing_argument():
  f = jax.jit(lambda x, y: x + y)
  return f(1.0)


@program
def jit_called_with_unknown_keyword():
  def f(x, y=1.0):
    return x + y
  return jax.jit(f)(1.0, z=2.0)


@program
def static_argnums_out_of_range_at_call():
  f = jax.jit(lambda x: x * 2, static_argnums=(3,))
  return f(jnp.ones(2))


@program
def jit_of_string_argument():
  return jax.jit(lambda x: x)("hello")


@program
def jit_keyword_arguments_are_dynamic():
  traces = []

  @jax.jit
  def f(x, *, scale):
    traces.append(scale.shape)
    return x * scale

  return f(jnp.ones(2), scale=2.0), f(jnp.ones(2), scale=3.0), len(traces)


@program
def name_stacks_of_scopes_and_transforms():
  def f(x):
    with jax.named_scope("outer"):
      return jnp.sin(x).sum()

  def g(x):
    with jax.named_scope("s"):
      return jax.grad(f)(x)

  def stacks(closed):
    return [(e.primitive.name, str(e.source_info.name_stack)) for e in closed.jaxpr.eqns]

  x = jnp.ones(2)
  named = jax.named_call(lambda v: v + 1, name="adder")
  inner = jax.jit(jnp.cos)
  return (stacks(jax.make_jaxpr(jax.grad(f))(x)),
          stacks(jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 2)))),
          stacks(jax.make_jaxpr(lambda v: jax.jvp(f, (v,), (v,)))(x)),
          stacks(jax.make_jaxpr(g)(x)),
          stacks(jax.make_jaxpr(named)(1.0)),
          stacks(jax.make_jaxpr(lambda v: jax.named_scope("s")(inner)(v))(1.0)),
          jax.version.__version_info__ >= (0, 10))


@program
def one_trace_shared_by_every_jit_of_a_function():
  traces = []

  def f(x):
    traces.append(x.shape)
    return x * 2

  counts = []
  for _ in range(3):
    jax.jit(f)(jnp.ones(3))  # a new wrapper each time: traced once
  counts.append(len(traces))
  jax.eval_shape(f, jnp.ones(3))
  jax.make_jaxpr(f)(jnp.ones(3))
  jax.jit(f).lower(jnp.ones(3))
  jax.jit(f, donate_argnums=0)(jnp.ones(3))
  counts.append(len(traces))
  jax.jit(jax.grad(lambda x: jax.jit(f)(x).sum()))(jnp.ones(3))
  jax.vmap(jax.jit(f))(jnp.ones((2, 3)))
  counts.append(len(traces))
  jax.jit(f)(jnp.ones(4))
  jax.jit(f, static_argnums=0)(np.ones(3).tobytes())  # other static arguments: its own trace
  counts.append(len(traces))
  return counts


@program
def eval_shape_and_make_jaxpr_report_as_jit():
  def f(x):
    if x > 0:
      return x
    return -x

  msgs = []
  for run in (lambda: jax.eval_shape(f, 1.0), lambda: jax.make_jaxpr(f)(1.0),
              lambda: jax.eval_shape(lambda x: x, "text")):
    try:
      run()
    except Exception as e:
      msgs.append((type(e).__name__, re.sub(" at 0x[0-9a-f]+", "", str(e)).split("\n")[:2]))
  return msgs


@program
def types_carry_an_unsplit_sharding_and_jitted_functions_their_type_name():
  AbstractMesh = jax.sharding.AbstractMesh
  P = jax.sharding.PartitionSpec
  x = jnp.ones((2, 3))
  seen = []
  jax.jit(lambda v: seen.append(repr(jax.typeof(v).sharding)) or v)(x)
  mesh = AbstractMesh((2, 3), ("x", "y"))
  s = jax.sharding.NamedSharding(mesh, P("x"))
  errors = []
  for attr in ("devices", "device_ids"):
    try:
      getattr(mesh, attr)
    except ValueError as e:
      errors.append(str(e))
  try:
    s.device_set
  except ValueError as e:
    errors.append(str(e))
  return (repr(jax.typeof(x).sharding), jax.typeof(x).sharding.is_fully_replicated,
          repr(jax.typeof(1.0).sharding), seen, repr(mesh), str(mesh), mesh.size,
          mesh.shape_tuple, repr(s), s.is_fully_replicated, s.memory_kind, errors,
          type(jax.jit(jnp.sin)).__name__, AbstractMesh((), ()) == AbstractMesh((), ()))
