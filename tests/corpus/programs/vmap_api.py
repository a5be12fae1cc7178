"""vmap's public surface: in_axes as ints, None, tuples, dict prefixes and negative axes;
out_axes; axis_size; named axes with collectives; nesting; pytrees; constant outputs; and the
errors for mismatched sizes and bad axis specifications."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


@program
def in_axes_int_none_and_negative():
  f = lambda x, w, b: x @ w + b
  x = jnp.arange(6.0).reshape(3, 2)
  w = jnp.array([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])
  b = jnp.array([1.0, 2.0, 3.0])
  out0 = jax.vmap(f, in_axes=(0, None, None))(x, w, b)
  out1 = jax.vmap(f, in_axes=(-2, None, None))(x, w, b)
  outT = jax.vmap(f, in_axes=(1, None, None))(x.T, w, b)
  return out0, out1, outT


@program
def in_axes_dict_prefix():
  def loss(params, x):
    return jnp.tanh(x @ params["w"] + params["b"]).sum()

  params = {"w": jnp.ones((2, 3)) * 0.5, "b": jnp.array([0.1, 0.2, 0.3])}
  xs = jnp.arange(8.0).reshape(4, 2) / 8
  batched_b = {"w": None, "b": 0}
  per_b = jax.vmap(loss, in_axes=(batched_b, None))(
      {"w": params["w"], "b": jnp.stack([params["b"], -params["b"]])}, xs[0])
  per_x = jax.vmap(loss, in_axes=(None, 0))(params, xs)
  return per_b, per_x


@program
def in_axes_list_is_a_prefix_too():
  f = lambda xs: xs[0] * xs[1]
  return jax.vmap(f, in_axes=([0, None],))([jnp.arange(3.0), jnp.float32(2.0)])


@program
def out_axes_positive_negative_and_none():
  f = lambda x: (x * 2, x.sum(), jnp.float32(7.0))
  x = jnp.arange(6.0).reshape(2, 3)
  a = jax.vmap(f, out_axes=(1, 0, None))(x)
  b = jax.vmap(lambda x: jnp.outer(x, x), out_axes=-1)(x)
  return a, b.shape, b[:, :, 1]


@program
def out_axes_pytree_prefix():
  f = lambda x: {"a": x, "b": (x + 1, x * 0 + 3.0)}
  return jax.vmap(f, out_axes={"a": 0, "b": 1})(jnp.arange(4.0).reshape(2, 2))


@program
def axis_size_with_all_inputs_unbatched():
  f = lambda x: x + 1
  out = jax.vmap(f, in_axes=None, axis_size=3)(jnp.array([1.0, 2.0]))
  const = jax.vmap(lambda: jnp.float32(2.0), axis_size=2)()
  return out, const


@program
def vmap_of_function_returning_python_constant():
  f = lambda x: 3.0
  g = lambda x: (x.sum(), 1)
  return jax.vmap(f)(jnp.ones(4)), jax.vmap(g)(jnp.ones((2, 3)))


@program
def vmap_scalar_output_and_weak_types():
  f = lambda x, y: x * y + 1
  out = jax.vmap(f, in_axes=(0, None))(jnp.arange(3), 2.0)
  out2 = jax.vmap(lambda x: x * 2.0)(jnp.arange(3))
  return out, out2


@program
def axis_name_psum_pmean_pmax():
  def f(x):
    return (x / lax.psum(x, "i"), lax.pmean(x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i"))
  return jax.vmap(f, axis_name="i")(jnp.array([1.0, 3.0, 4.0]))


@program
def axis_name_axis_index_and_all_gather():
  def f(x):
    i = lax.axis_index("batch")
    return x * i, lax.all_gather(x, "batch"), i
  return jax.vmap(f, axis_name="batch")(jnp.array([[1, 2], [3, 4], [5, 6]]))


@program
def all_gather_tiled_and_axis():
  f = lambda x: (lax.all_gather(x, "i", axis=1), lax.all_gather(x, "i", tiled=True))
  a, b = jax.vmap(f, axis_name="i")(jnp.arange(6.0).reshape(3, 2))
  return a, b


@program
def psum_of_python_scalar_counts_axis():
  f = lambda x: x * lax.psum(1, "i")
  return jax.vmap(f, axis_name="i")(jnp.arange(4.0))


@program
def nested_vmap_with_two_axis_names():
  def f(x):
    row = lax.psum(x, "rows")
    col = lax.psum(x, "cols")
    return x - row / 2 - col / 3, lax.axis_index("rows") * 10 + lax.axis_index("cols")
  return jax.vmap(jax.vmap(f, axis_name="cols"), axis_name="rows")(
      jnp.arange(6.0).reshape(2, 3))


@program
def psum_over_tuple_of_axis_names():
  f = lambda x: lax.psum(x, ("a", "b"))
  return jax.vmap(jax.vmap(f, axis_name="b"), axis_name="a")(jnp.arange(6.0).reshape(2, 3))


@program
def nested_vmap_outer_product_and_in_axes_mix():
  f = lambda a, b: a * b
  outer = jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))
  x, y = jnp.arange(3.0), jnp.array([1.0, 10.0])
  cols = jax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(1, 1))(jnp.ones((2, 3)),
                                                               jnp.arange(6.0).reshape(2, 3))
  return outer(x, y), cols


@program
def vmap_over_pytree_arguments_and_outputs():
  def step(state, x):
    return {"count": state["count"] + 1, "total": state["total"] + x}, x * 2

  states = {"count": jnp.zeros(3, jnp.int32), "total": jnp.zeros(3)}
  return jax.vmap(step)(states, jnp.array([1.0, 2.0, 3.0]))


@program
def vmap_of_jit_and_jit_of_vmap():
  f = jax.jit(lambda x, y: jnp.dot(x, y))
  xs = jnp.arange(6.0).reshape(3, 2)
  a = jax.vmap(f, in_axes=(0, None))(xs, jnp.array([1.0, -1.0]))
  b = jax.jit(jax.vmap(f))(xs, xs)
  return a, b


@program
def vmap_jaxpr_of_matvec_and_reduction():
  f = lambda m, v: (m @ v, jnp.sum(v * 2))
  j = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0)))(jnp.ones((2, 3)), jnp.ones((4, 3)))
  return str(j)


@program
def vmap_jaxpr_with_in_axes_one():
  f = lambda x: jnp.sin(x).sum()
  return str(jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((3, 2))))


@program
def vmap_of_indexing_and_dynamic_slice():
  f = lambda x, i: (x[i], lax.dynamic_slice(x, (i,), (2,)))
  xs = jnp.arange(12.0).reshape(3, 4)
  return jax.vmap(f)(xs, jnp.array([0, 3, 1]))


@program
def vmap_of_at_set_and_where():
  def f(x, i):
    y = x.at[i].set(-1.0)
    return jnp.where(y < 0, 0.0, y)
  return jax.vmap(f)(jnp.arange(6.0).reshape(2, 3), jnp.array([2, 0]))


@program
def vmap_of_cond_and_while():
  def f(x):
    y = lax.cond(x > 1, lambda v: v * 10, lambda v: v - 1, x)
    n = lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1, c[1] * 2), (0.0, 1.0))
    return y, n
  return jax.vmap(f)(jnp.array([0.0, 2.0, 3.0]))


@program
def vmap_of_scan_over_time():
  def cumulative(xs):
    return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
  return jax.vmap(cumulative)(jnp.arange(6.0).reshape(2, 3))


@program
def vmap_spmd_axis_name_without_mesh():
  f = lambda x: x * 2
  return jax.vmap(f, spmd_axis_name="data")(jnp.arange(4.0))


@program
def vmap_in_axes_kwargs_are_batched_on_axis_zero():
  f = lambda x, scale: x * scale
  return jax.vmap(f, in_axes=(None,))(jnp.float32(2.0), scale=jnp.array([1.0, 2.0, 3.0]))


# --- errors ----------------------------------------------------------------------------------


@program(phrases=("vmap got inconsistent sizes for array axes to be mapped",))
def mismatched_axis_sizes_error():
  return jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))


@program
def mismatched_axis_sizes_message_lines():
  try:
    jax.vmap(lambda a, b: a * b["k"], in_axes=(0, {"k": 1}))(jnp.ones(2), {"k": jnp.ones((5, 3))})
  except ValueError as e:
    return str(e).splitlines()


@program
def in_axes_structure_mismatch_error():
  return jax.vmap(lambda x, y: x + y, in_axes=(0, 0, 0))(jnp.ones(2), jnp.ones(2))


@program
def in_axes_out_of_range_error():
  return jax.vmap(lambda x: x, in_axes=2)(jnp.ones((2, 3)))


@program
def out_axes_none_for_batched_output_error():
  return jax.vmap(lambda x: x * 2, out_axes=None)(jnp.arange(3.0))


@program
def vmap_of_scalar_argument_error():
  return jax.vmap(lambda x: x)(1.0)


@program
def vmap_with_nothing_to_map_error():
  return jax.vmap(lambda x: x, in_axes=None)(jnp.ones(2))


@program
def unbound_axis_name_error():
  return jax.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(jnp.ones(2))


@program
def in_axes_float_is_rejected():
  return jax.vmap(lambda x: x, in_axes=0.0)(jnp.ones(2))


@program
def vmap_of_non_callable():
  return jax.vmap([1, 2])
