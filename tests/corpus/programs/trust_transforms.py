"""Silent divergences in the transforms (issue 15): what custom rules receive at Python scalars,
forward mode of custom_vjp functions (also under jit), bwd cotangents of the wrong type or
structure, the residual leaves of vjp's function, and jit's cache of static arguments."""
from functools import partial

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _seen(x):
  """What a rule can observe of a value: tracers by their type, values by class and dtype."""
  if isinstance(x, jax.core.Tracer):
    return ["tracer", str(x.dtype), bool(x.aval.weak_type)]
  if isinstance(x, np.ndarray):  # JAX's TypedNdArray is an ndarray subclass
    return ["ndarray", str(x.dtype), list(x.shape)]
  return [type(x).__name__, str(getattr(x, "dtype", None))]


def _logging_jvp(log):
  @jax.custom_jvp
  def f(x, y):
    return x * y

  @f.defjvp
  def f_jvp(primals, tangents):
    log.append(("jvp", [_seen(p) for p in primals], [_seen(t) for t in tangents]))
    x, y = primals
    tx, ty = tangents
    return f(x, y), tx * y + ty * x

  return f


def _logging_vjp(log):
  @jax.custom_vjp
  def g(x, y):
    return x * y

  def fwd(x, y):
    log.append(("fwd", _seen(x), _seen(y)))
    return x * y, (x, y)

  def bwd(res, ct):
    log.append(("bwd", [_seen(r) for r in res], _seen(ct)))
    return ct * res[1], ct * res[0]

  g.defvjp(fwd, bwd)
  return g


# --- 1. what custom rules receive at Python scalars ---------------------------------------------

@program
def custom_jvp_rule_sees_typed_scalars_under_grad():
  log = []
  f = _logging_jvp(log)
  return jax.grad(f)(1.0, 2.0), log


@program
def custom_jvp_rule_primal_dtype_under_grad():
  seen = []

  @jax.custom_jvp
  def f(x):
    return x * 2.0

  @f.defjvp
  def f_jvp(primals, tangents):
    x, = primals
    seen.append((str(x.dtype), x * 3.0))
    return f(x), 2.0 * tangents[0]

  return jax.grad(f)(1.5), seen


@program
def custom_jvp_rule_sees_plain_floats_under_jvp():
  log = []
  f = _logging_jvp(log)
  return jax.jvp(f, (1.0, 2.0), (1.0, 0.5)), log


@program
def custom_jvp_rule_closed_over_scalar_is_typed_under_jvp():
  log = []
  f = _logging_jvp(log)
  return jax.jvp(lambda x: f(x, 2.0), (1.0,), (1.0,)), log


@program
def custom_jvp_rule_under_vjp_and_linearize():
  log = []
  f = _logging_jvp(log)
  out, pull = jax.vjp(f, 1.0, 2.0)
  vjp_log = list(log)
  log.clear()
  y, f_lin = jax.linearize(f, 1.0, 2.0)
  return out, pull(1.0), vjp_log, y, f_lin(1.0, 1.0), log


@program
def custom_jvp_rule_with_int_argument_under_grad():
  log = []

  @jax.custom_jvp
  def f(x, n):
    return x * n

  @f.defjvp
  def f_jvp(primals, tangents):
    log.append(([_seen(p) for p in primals], [_seen(t) for t in tangents]))
    x, n = primals
    return f(x, n), tangents[0] * n

  return jax.grad(f)(1.0, 3), log


@program
def custom_jvp_rule_numpy_arguments_under_grad():
  log = []
  f = _logging_jvp(log)
  return jax.grad(f)(np.float64(1.0), np.float64(2.0)), log


@program
def custom_jvp_rule_unbatched_scalar_under_vmap_of_grad():
  log = []
  f = _logging_jvp(log)
  return jax.vmap(lambda x: jax.grad(f)(x, 2.0))(jnp.ones(2)), log


@program
def custom_jvp_rule_under_jacfwd_and_jacrev():
  log = []
  f = _logging_jvp(log)
  fwd = jax.jacfwd(f)(1.0, 2.0)
  fwd_log = list(log)
  log.clear()
  return fwd, fwd_log, jax.jacrev(f)(1.0, 2.0), log


@program
def custom_vjp_rules_see_typed_scalars_under_grad():
  log = []
  g = _logging_vjp(log)
  return jax.grad(g)(1.0, 2.0), jax.grad(g)(1.0, 2), log


@program
def custom_vjp_rules_under_vjp_of_scalars():
  log = []
  g = _logging_vjp(log)
  out, pull = jax.vjp(g, 1.0, 2.0)
  return out, pull(1.0), log


@program
def custom_jvp_called_eagerly_runs_the_function():
  seen = []

  @jax.custom_jvp
  def ident(x):
    seen.append(_seen(x))
    return x

  ident.defjvp(lambda p, t: (p[0], t[0]))
  outs = [ident(v) for v in (1.0, 3, True, 1j, np.float64(2.0), np.ones(2), [1.0, 2])]
  return outs, seen


@program
def custom_jvp_called_eagerly_returns_python_arithmetic():
  log = []
  f = _logging_jvp(log)
  return f(1.0, 2.0), f(3, 4), log


@program
def custom_vjp_called_eagerly_runs_the_function():
  seen = []

  @jax.custom_vjp
  def ident(x):
    seen.append(_seen(x))
    return x

  ident.defvjp(lambda x: (x, None), lambda r, g: (g,))
  outs = [ident(v) for v in (1.0, 3, True, np.float64(2.0), jnp.ones(2))]
  return outs, seen


@program
def custom_vjp_eager_int_too_large():
  @jax.custom_vjp
  def ident(x):
    return x

  ident.defvjp(lambda x: (x, None), lambda r, g: (g,))
  return ident(2 ** 40)


@program(exact_message=True)
def custom_jvp_eager_string_argument():
  @jax.custom_jvp
  def ident(x):
    return x

  ident.defjvp(lambda p, t: (p[0], t[0]))
  return ident("a")


@program(exact_message=True)
def custom_vjp_eager_string_argument():
  @jax.custom_vjp
  def ident(x, y):
    return x

  ident.defvjp(lambda x, y: (x, None), lambda r, g: (g, None))
  return ident(1.0, "a")


@program
def vjp_of_identity_returns_typed_scalars():
  outs = [jax.vjp(lambda x: x, v)[0] for v in (1.0, 1, True, 2j)]
  return outs, jax.vjp(lambda x: x, 1.0)[1](2.0)


@program
def vjp_canonicalizes_numpy_primals():
  y, pull = jax.vjp(lambda x, w: x * w, np.ones(2), np.full(2, 3.0))
  return y, pull(jnp.ones(2)), [leaf.dtype for leaf in jax.tree.leaves(pull)]


@program
def vjp_int_too_large():
  return jax.vjp(lambda x: x, 2 ** 40)


@program
def jvp_and_linearize_keep_plain_scalars():
  return jax.jvp(lambda x: x, (1.0,), (1.0,)), jax.linearize(lambda x: x, 1.0)[0]


# --- 2. forward mode of custom_vjp functions ------------------------------------------------------

@jax.custom_vjp
def _sin(x):
  return jnp.sin(x)


_sin.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, ct: (c * ct,))
_JVP_MSG = ("can't apply forward-mode autodiff (jvp) to a custom_vjp function.",)


@program(phrases=_JVP_MSG)
def jvp_of_custom_vjp():
  return jax.jvp(_sin, (1.0,), (1.0,))


@program(phrases=_JVP_MSG)
def jvp_of_jit_of_custom_vjp():
  return jax.jvp(jax.jit(_sin), (1.0,), (1.0,))


@program(phrases=_JVP_MSG)
def jit_of_jvp_of_custom_vjp():
  return jax.jit(lambda x: jax.jvp(_sin, (x,), (x,)))(1.0)


@program(phrases=_JVP_MSG)
def jacfwd_of_custom_vjp():
  return jax.jacfwd(_sin)(1.0)


@program(phrases=_JVP_MSG)
def jacfwd_of_jit_of_custom_vjp():
  return jax.jacfwd(jax.jit(_sin))(jnp.ones(2))


@program(phrases=_JVP_MSG)
def jit_of_jacfwd_of_custom_vjp():
  return jax.jit(jax.jacfwd(_sin))(1.0)


@program
def hessian_of_custom_vjp_with_and_without_jit():
  return (jax.hessian(_sin)(1.0), jax.hessian(jax.jit(_sin))(1.0),
          jax.jit(jax.hessian(_sin))(1.0))


@program
def forward_over_reverse_of_custom_vjp():
  return jax.jvp(jax.grad(jax.jit(_sin)), (1.0,), (1.0,))


@program(phrases=_JVP_MSG)
def linearize_of_jit_of_custom_vjp():
  return jax.linearize(jax.jit(_sin), 1.0)[1](1.0)


@program(phrases=_JVP_MSG)
def jvp_of_vmap_of_jit_of_custom_vjp():
  return jax.jvp(jax.vmap(jax.jit(_sin)), (jnp.ones(2),), (jnp.ones(2),))


@program(phrases=_JVP_MSG)
def jvp_of_custom_vjp_in_cond_and_scan():
  return jax.jvp(lambda x: lax.scan(lambda c, _: (_sin(c), None), x, None, length=2)[0],
                 (1.0,), (1.0,))


@program(phrases=_JVP_MSG)
def jvp_of_jit_of_custom_gradient():
  f = jax.custom_gradient(lambda x: (x ** 2, lambda g: (g * x,)))
  return jax.jvp(jax.jit(f), (1.0,), (1.0,))


@program
def make_jaxpr_of_jvp_of_custom_vjp():
  return str(jax.make_jaxpr(lambda x: jax.jvp(_sin, (x,), (x,)))(1.0))


@program
def make_jaxpr_of_jvp_of_custom_vjp_zero_tangent():
  @jax.custom_vjp
  def g(x, y):
    return x * y

  g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda r, c: (c, c))
  return str(jax.make_jaxpr(lambda x, y: jax.jvp(lambda a: g(a, y), (x,), (x,)))(1.0, 2.0))


# --- 3. bwd cotangents of the wrong type or structure -------------------------------------------

def _with_bwd(bwd, nargs=1):
  if nargs == 1:
    @jax.custom_vjp
    def f(x):
      return x * 2

    f.defvjp(lambda x: (x * 2, x), bwd)
  else:
    @jax.custom_vjp
    def f(x, y):
      return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), bwd)
  return f


@program(exact_message=True)
def bwd_wrong_shape():
  f = _with_bwd(lambda r, g: (jnp.ones(2),))
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(exact_message=True)
def bwd_wrong_shape_under_jit_and_vjp():
  f = _with_bwd(lambda r, g: (jnp.ones(()),))
  try:
    jax.jit(jax.grad(lambda x: f(x).sum()))(jnp.ones(3))
  except ValueError as e:
    first = str(e)
  return first, jax.vjp(f, jnp.ones(3))[1](jnp.ones(3))


@program(exact_message=True)
def bwd_wrong_shape_and_dtype():
  f = _with_bwd(lambda r, g: (jnp.ones(2, jnp.int32),))
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program
def bwd_wrong_dtype_alone_is_accepted():
  f16 = _with_bwd(lambda r, g: (jnp.ones(3, jnp.float16),))
  i32 = _with_bwd(lambda r, g: (jnp.ones(3, jnp.int32),))
  py = _with_bwd(lambda r, g: (1.0,))
  return (jax.grad(lambda x: f16(x).sum())(jnp.ones(3)),
          jax.grad(lambda x: i32(x).sum())(jnp.ones(3)), jax.grad(py)(1.0))


@program(exact_message=True)
def bwd_python_scalar_for_a_vector():
  f = _with_bwd(lambda r, g: (1.0,))
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(exact_message=True)
def bwd_wrong_shape_second_argument():
  f = _with_bwd(lambda r, g: (g * 1.0, jnp.ones(3)), nargs=2)
  return jax.grad(lambda x: f(x, 2.0))(1.0)


@program(exact_message=True)
def bwd_wrong_shape_nested_path():
  @jax.custom_vjp
  def h(a, b):
    return a * b["x"]

  h.defvjp(lambda a, b: (h(a, b), None), lambda r, g: (g, {"x": jnp.ones(4)}))
  return jax.grad(h, (0, 1))(1.0, {"x": 2.0})


@program(exact_message=True)
def bwd_wrong_shape_with_nondiff_argnums():
  @partial(jax.custom_vjp, nondiff_argnums=(0,))
  def f(n, x):
    return x * n

  f.defvjp(lambda n, x: (x * n, None), lambda n, r, g: (jnp.ones(2),))
  return jax.grad(f, 1)(2.0, 1.0)


@program(exact_message=True)
def bwd_wrong_shape_under_vmap_names_per_example_shapes():
  f = _with_bwd(lambda r, g: (jnp.ones(3),))
  return jax.vmap(jax.grad(lambda x: f(x).sum()))(jnp.ones((2, 2)))


_TREE_MSG = ("Custom VJP bwd rule must produce an output with the same container (pytree) "
             "structure as the args tuple of the primal function, and in particular must produce "
             "a tuple of length equal to the number of arguments to the primal function, but got "
             "bwd output structure",)


@program(phrases=_TREE_MSG + ("(*, *)", "for primal input structure", "(*,)"))
def bwd_too_many_entries():
  f = _with_bwd(lambda r, g: (g, g))
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(phrases=_TREE_MSG + ("(*,)", "for primal input structure", "(*, *)"))
def bwd_too_few_entries():
  f = _with_bwd(lambda r, g: (g,), nargs=2)
  return jax.grad(lambda x: f(x, 2.0))(1.0)


@program(phrases=_TREE_MSG + ("(*)", "for primal input structure", "(*,)"))
def bwd_returns_a_bare_array():
  f = _with_bwd(lambda r, g: g)
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(phrases=_TREE_MSG + ("(None)", "for primal input structure"))
def bwd_returns_none():
  f = _with_bwd(lambda r, g: None)
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(phrases=_TREE_MSG + ("([*, *])", "for primal input structure"))
def bwd_returns_a_list_of_the_wrong_length():
  f = _with_bwd(lambda r, g: [g, g])
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program
def bwd_returns_a_list_of_the_right_length():
  f = _with_bwd(lambda r, g: [g])
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program(phrases=_TREE_MSG + ("{'a': *, 'c': *}", "{'a': *, 'b': *}"))
def bwd_wrong_dict_keys():
  @jax.custom_vjp
  def h(d):
    return d["a"] * d["b"]

  h.defvjp(lambda d: (h(d), d), lambda r, g: ({"a": g, "c": g},))
  return jax.grad(h)({"a": 1.0, "b": 2.0})


@program(phrases=_TREE_MSG + ("((*,),)",))
def bwd_extra_nesting():
  f = _with_bwd(lambda r, g: ((g,),))
  return jax.grad(lambda x: f(x).sum())(jnp.ones(3))


@program
def bwd_one_value_for_a_whole_dict_argument():
  @jax.custom_vjp
  def h(d):
    return d["a"] * d["b"]

  h.defvjp(lambda d: (h(d), d), lambda r, g: (g,))
  return jax.grad(h)({"a": 1.0, "b": 2.0})


@program(exact_message=True)
def bwd_one_value_of_wrong_shape_for_a_dict_argument():
  @jax.custom_vjp
  def h(d):
    return d["a"] * d["b"]

  h.defvjp(lambda d: (h(d), d), lambda r, g: (jnp.ones(2),))
  return jax.grad(h)({"a": 1.0, "b": 2.0})


@program
def bwd_none_leaves_and_none_nodes():
  @jax.custom_vjp
  def h(d):
    return d["a"] * d["b"]

  h.defvjp(lambda d: (h(d), d), lambda r, g: ({"a": g, "b": None},))

  @jax.custom_vjp
  def m(t):
    return t[0] * 2

  m.defvjp(lambda t: (m(t), None), lambda r, g: ((g, None),))
  return jax.grad(h)({"a": 1.0, "b": 2.0}), jax.grad(m)((1.0, None))


@program
def bwd_cotangent_of_an_int_argument_is_ignored():
  @jax.custom_vjp
  def f(x, n):
    return x * n

  f.defvjp(lambda x, n: (f(x, n), (x, n)), lambda r, g: (g * r[1], jnp.ones(3)))
  return jax.grad(f)(1.0, 2)


@program(exact_message=True)
def bwd_symbolic_zero_of_wrong_shape():
  from_aval = jax.custom_derivatives.SymbolicZero

  @jax.custom_vjp
  def k(x, y):
    return x * y

  def fwd(x, y):
    return k(x.value, y.value), None

  k.defvjp(fwd, lambda r, g: (from_aval(jax.core.ShapedArray((2,), jnp.float32)), g),
           symbolic_zeros=True)
  return jax.grad(k)(1.0, 2.0)


@program(exact_message=True)
def custom_gradient_rule_of_wrong_shape():
  f = jax.custom_gradient(lambda x: (x * 2, lambda g: (jnp.ones(2),)))
  return jax.grad(f)(1.0)


# --- 4. the residual leaves of vjp's function ---------------------------------------------------

def _leaves(fn):
  return [(leaf.shape, str(leaf.dtype), np.asarray(leaf).tolist())
          for leaf in jax.tree.leaves(fn)]


@program
def vjp_residual_leaves_repeated_input():
  a = jnp.arange(3.0)
  return (_leaves(jax.vjp(lambda x, y: x * y, a, a)[1]),
          _leaves(jax.vjp(jax.jit(lambda x, y: x * y), a, a)[1]),
          _leaves(jax.vjp(lambda x, y, z: x * y * z, a, a, a)[1]))


@program
def vjp_residual_leaves_inputs_in_argument_order():
  x, w = jnp.ones((2, 3)), jnp.arange(12.0).reshape(3, 4)
  a, b = jnp.arange(3.0), jnp.full(3, 2.0)
  return (_leaves(jax.vjp(lambda x, y: x @ y, x, w)[1]),
          _leaves(jax.vjp(lambda d: d["b"] * d["a"], {"b": a, "a": b})[1]),
          _leaves(jax.vjp(lambda x, y: y * jnp.sin(x) + jnp.cos(y) * x, a, b)[1]))


@program
def vjp_residual_leaves_unused_and_linear_inputs():
  a, b = jnp.arange(3.0), jnp.full(3, 2.0)
  return (_leaves(jax.vjp(lambda x, y: x + y, a, b)[1]),
          _leaves(jax.vjp(lambda x, y: y * y, a, b)[1]),
          _leaves(jax.vjp(lambda x, y: x * y, 1.0, 2.0)[1]),
          _leaves(jax.vjp(lambda x: jnp.sin(jnp.sin(x)), a)[1]))


@program
def vjp_function_through_tree_map_and_jit():
  a, b = jnp.arange(3.0), jnp.full(3, 2.0)
  _, pull = jax.vjp(lambda x, y: x * y, a, a)
  doubled = jax.tree.map(lambda leaf: leaf * 2, pull)
  from_jit = jax.jit(lambda: jax.vjp(lambda x, y: x * jnp.sin(y), a, b)[1])()
  return pull(jnp.ones(3)), doubled(jnp.ones(3)), from_jit(jnp.ones(3)), _leaves(from_jit)


@program
def linearize_residual_leaves_repeated_input():
  a = jnp.arange(3.0)
  return (_leaves(jax.linearize(lambda x, y: x * y, a, a)[1]),
          _leaves(jax.linearize(lambda x, y: x * y, a, jnp.ones(3))[1]))


# --- 5. jit's cache of static arguments -----------------------------------------------------------

def _static_calls(values, argnames=False):
  seen = []

  def f(x, s):
    seen.append((type(s).__name__, repr(s)))
    return x

  if argnames:
    g = jax.jit(f, static_argnames="s")
    outs = [g(1.0, s=v) for v in values]
  else:
    g = jax.jit(f, static_argnums=1)
    outs = [g(1.0, v) for v in values]
  return outs, seen


@program
def jit_static_int_float_bool_are_distinct():
  return _static_calls([2, 2.0, True, 1, 1.0, False, 0, 0.0, 1j])


@program
def jit_static_negative_zero_reuses_positive_zero():
  return _static_calls([0.0, -0.0]), _static_calls([-0.0, 0.0])


@program
def jit_static_numpy_scalars_are_distinct_from_python():
  return _static_calls([np.int32(2), np.int64(2), 2, np.float32(2.0), 2.0])


@program
def jit_static_containers_compare_by_equality():
  return _static_calls([(1, 2), (1.0, 2), (True, 2), frozenset({1}), frozenset({1.0})])


@program
def jit_static_nan_retraces_unless_same_object():
  nan = float("nan")
  return _static_calls([nan, nan]), _static_calls([float("nan"), float("nan")])


@program
def jit_static_argnames_types_are_distinct():
  return _static_calls([2, 2.0, True, 1], argnames=True)


@program
def jit_static_equal_objects_of_other_types_retrace():
  import enum

  class Color(enum.IntEnum):
    RED = 1

  class AlwaysEqual:
    def __hash__(self):
      return 1

    def __eq__(self, other):
      return True

  class Sub(AlwaysEqual):
    pass

  outs, seen = _static_calls([1, Color.RED, AlwaysEqual(), AlwaysEqual(), Sub()])
  return outs, [name for name, _ in seen]


@program
def custom_jvp_rule_asarray_of_typed_primal_is_weak():
  seen = []

  @jax.custom_jvp
  def f(x):
    return x * 2.0

  @f.defjvp
  def f_jvp(primals, tangents):
    x = jnp.asarray(primals[0])
    seen.append((str(x.dtype), bool(x.weak_type)))
    return f(x), 2.0 * tangents[0]

  return jax.grad(f)(1.5), seen, jnp.array(jax.vjp(lambda x: x, 2.0)[0])


# --- grad of jit: dead code and its residuals go; shared jaxprs' names are not reused --------

def _with_dead_code(x):
  y = jnp.sin(x)  # never used: neither it nor its tangent's residual (cos x) is computed
  z = jnp.cos(x) * 3.0
  return x * 2.0 + z


@program
def grad_of_jit_drops_dead_code_and_its_residuals():
  g = jax.jit(_with_dead_code)
  return (str(jax.make_jaxpr(jax.grad(g))(1.0)),
          str(jax.make_jaxpr(lambda x: jax.linearize(g, x)[1](1.0))(1.0)),
          jax.grad(g)(1.0), jax.jit(jax.grad(g))(0.5))


@program
def jvp_of_jit_skips_the_shared_jaxprs_name():
  g = jax.jit(_with_dead_code)
  return str(jax.make_jaxpr(lambda x: jax.jvp(g, (x,), (1.0,)))(1.0))


@program
def grad_of_jit_with_where_and_scan_dead_code():
  def body(c, x):
    dead = jnp.exp(c)
    return c * x, jnp.tanh(x)

  @jax.jit
  def f(c, xs):
    _ = jnp.log(c)
    carry, ys = jax.lax.scan(body, c, xs)
    return carry + jnp.where(c > 0, ys, 0.).sum()
  xs, c = jnp.arange(1., 4.), jnp.float32(2.0)  # a strong carry (see grad_scan_pytree_carry)
  return (str(jax.make_jaxpr(jax.grad(f))(c, xs)), jax.grad(f, (0, 1))(c, xs))


# --- lax.scan takes out what its body only forwards, as JAX's does ------------------------------

def _forwarding_scan(c, xs):
  """Carry 0 is returned unchanged (a loop constant); ys[0] is the x slice itself."""
  return jax.lax.scan(lambda c, x: ((c[0], c[1] + x * c[0]), (x, x * 2)), c, xs)


@program
def scan_forwarded_carry_and_xs_jaxprs():
  xs = jnp.arange(1., 4.)
  return (str(jax.make_jaxpr(_forwarding_scan)((jnp.float32(2.0), 1.0), xs)),
          str(jax.make_jaxpr(lambda xs: jax.lax.map(lambda x: x, xs))(xs)),
          str(jax.make_jaxpr(lambda c: jax.lax.fori_loop(0, 3, lambda i, c: c, c))(5.0)),
          str(jax.make_jaxpr(jax.vmap(lambda a, xs: _forwarding_scan((a, 1.0), xs)))(
              jnp.arange(2.), jnp.ones((2, 3)))))


@program
def scan_forwarded_values_grads_and_identity():
  xs = jnp.arange(1., 4.)
  g = jax.grad(lambda a, xs: _forwarding_scan((a, 1.0), xs)[0][1]
               + _forwarding_scan((a, 1.0), xs)[1][0].sum(), (0, 1))(jnp.float32(2.0), xs)
  ys = jax.lax.scan(lambda c, x: (c + x, x), 0., xs, reverse=True)
  host = jax.lax.scan(lambda c, x: (c, x), 0., np.arange(3, dtype=np.float64))
  return (_forwarding_scan((2.0, 1.0), xs), g, ys, ys[1] is xs, host, type(host[1]).__name__,
          jax.vmap(lambda a: _forwarding_scan((a, 1.0), xs))(jnp.arange(2.)),
          jax.jit(lambda xs: jax.lax.scan(lambda c, x: (c, (x, c)), 1.0, xs))(xs))


# --- transposed loops: carries typed by their cotangents, sums where JAX adds them ------------

@program
def grad_of_scan_with_weak_carries_and_int_counters():
  def f(c, xs):
    return jax.lax.scan(lambda c, x: (c * x, x), c, xs)[0]
  xs = jnp.arange(1., 4.)
  fl = lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * x + i, x)
  g = lambda x: jax.lax.scan(lambda c, xx: ((c[0] + 1, c[1] * xx), c[0]), (0, x),
                             jnp.arange(3.))[0][1]
  return (str(jax.make_jaxpr(lambda c, xs: jax.linearize(lambda c: f(c, xs), c)[1](1.0))(2.0, xs)),
          str(jax.make_jaxpr(jax.grad(f))(2.0, xs)), jax.grad(f)(2.0, xs),
          str(jax.make_jaxpr(jax.grad(fl))(2.0)), jax.grad(fl)(2.0), jax.jit(jax.grad(fl))(2.0),
          str(jax.make_jaxpr(jax.grad(g))(2.0)), jax.grad(g)(2.0))


# --- grad of scan: what depends only on the loop's constants is computed once, not stacked -----

def _rnn_loss(W, h0, xs):
  def body(h, x):
    A = jnp.tanh(W)  # loop-invariant: its residuals (tanh W, 1 - tanh^2 W) are hoisted
    h = jnp.tanh(A @ h + x)
    return h, h.sum()
  return jax.lax.scan(body, h0, xs)[1].sum()


def _scan_out_types(closed):
  return [[str(v.aval) for v in e.outvars] for e in closed.jaxpr.eqns
          if e.primitive.name == "scan"]


@program
def grad_of_scan_hoists_loop_invariant_residuals():
  W, h0, xs = jnp.ones((4, 4)) * 0.1, jnp.ones(4), jnp.ones((5, 4))
  closed = jax.make_jaxpr(jax.grad(_rnn_loss))(W, h0, xs)
  return (_scan_out_types(closed), [e.params["num_consts"] for e in closed.jaxpr.eqns
                                    if e.primitive.name == "scan"],
          jax.grad(_rnn_loss, (0, 1, 2))(W, h0, xs), jax.jit(jax.grad(_rnn_loss))(W, h0, xs))


@program
def grad_of_scan_hoists_a_callback_on_constants():
  def f(W, xs):
    def body(h, x):
      jax.debug.print("w {}", W.sum())
      return jnp.tanh(jnp.tanh(W) @ h + x), ()
    return jax.lax.scan(body, jnp.zeros(2), xs)[0].sum()
  return jax.grad(f)(jnp.ones((2, 2)), jnp.ones((3, 2))), f(jnp.ones((2, 2)), jnp.ones((3, 2)))


# --- lax.while_loop: a carry the body only passes along becomes a constant, as in JAX ----------

def _passes_along(x):
  return jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1], c[2] * 2.0), (0, x, x))


@program
def while_loop_passed_along_carry_is_a_constant():
  n_loop = lambda n, x: jax.lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1]), (0, x))
  return (str(jax.make_jaxpr(_passes_along)(1.0)), _passes_along(1.5),
          str(jax.make_jaxpr(jax.vmap(n_loop))(jnp.arange(3), jnp.ones(3))),
          jax.vmap(n_loop)(jnp.arange(3), jnp.ones(3)),
          str(jax.make_jaxpr(lambda x: jax.lax.while_loop(
              lambda c: c[1] > c[0], lambda c: (c[0] + 1.0, c[1]), (0.0, x)))(3.0)),
          str(jax.make_jaxpr(lambda n: jax.lax.fori_loop(
              0, n, lambda i, c: (c[0] + i, c[1]), (0, 2.0)))(3)))


@program
def grad_through_while_loop_of_a_passed_along_value():
  # JAX differentiates it (the loop only counts); a loop that changes x still cannot be.
  f = lambda x: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]),
                                   (0, x))[1] * jnp.sin(x)
  return jax.grad(f)(1.0), str(jax.make_jaxpr(jax.grad(f))(1.0)), jax.jvp(f, (1.0,), (2.0,))


@program
def grad_through_while_loop_that_changes_the_value_is_an_error():
  return jax.grad(lambda x: jax.lax.while_loop(lambda c: c[0] < 3,
                                               lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1])(1.0)


# --- grad of checkpoint: the primal part inline, one differentiated remat2 recomputing ---------

@program
def grad_of_checkpoint_recomputes_in_one_remat():
  cf = jax.checkpoint(lambda x: jnp.sin(x) * x)
  g = jax.checkpoint(_with_dead_code)
  return (str(jax.make_jaxpr(jax.grad(cf))(0.6)), str(jax.make_jaxpr(jax.grad(g))(1.0)),
          jax.grad(cf)(0.6), jax.jit(jax.grad(cf))(0.6), jax.grad(jax.grad(cf))(0.6),
          jax.vmap(jax.grad(cf))(jnp.arange(3.)))
