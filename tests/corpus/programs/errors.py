"""Common mistakes: the exception type and the key words of its message, as a user meets them
(shape mismatches, traced values used as Python values, Array immutability, ragged inputs, lax's
strict dtypes, .at[] misuse, wrong keywords)."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


@program
def matmul_mismatched_shapes():
  return jnp.ones((2, 3)) @ jnp.ones((4, 5))


@program
def dot_mismatched_vectors():
  return jnp.dot(jnp.ones(3), jnp.ones(4))


@program
def matmul_under_jit_mismatched():
  return jax.jit(jnp.matmul)(jnp.ones((2, 3)), jnp.ones((2, 3)))


@program
def add_shapes_that_do_not_broadcast():
  return jnp.ones((2, 3)) + jnp.ones((4,))


@program
def add_shapes_under_jit_do_not_broadcast():
  return jax.jit(lambda a, b: a * b)(jnp.ones((3, 2)), jnp.ones((2, 3)))


@program
def reshape_to_wrong_size():
  return jnp.arange(6).reshape(4, 2)


@program
def reshape_two_minus_ones():
  return jnp.arange(6).reshape(-1, -1)


@program
def boolean_mask_under_jit():
  return jax.jit(lambda x: x[x > 0])(jnp.array([1.0, -1.0, 2.0]))


@program
def jnp_where_one_arg_under_jit():
  return jax.jit(lambda x: jnp.where(x > 0))(jnp.array([1.0, -1.0]))


@program
def nonzero_under_jit_without_size():
  return jax.jit(jnp.nonzero)(jnp.array([1, 0, 2]))


@program
def item_assignment_on_array():
  x = jnp.zeros(3)
  x[0] = 1.0
  return x


@program
def float_of_traced_value():
  return jax.jit(lambda x: float(x) + 1)(jnp.array(2.0))


@program
def python_if_on_traced_value():
  def f(x):
    if x > 0:
      return x
    return -x
  return jax.jit(f)(jnp.array(1.0))


@program
def bool_of_traced_value_under_grad():
  def f(x):
    return x if x > 0 else -x
  return jax.grad(f)(1.0)


@program
def int_of_non_scalar():
  return int(jnp.array([1, 2]))


@program
def float_of_non_scalar():
  return float(jnp.ones((2, 2)))


@program
def bool_of_multi_element_array():
  return bool(jnp.array([True, False]))


@program
def ragged_list_to_array():
  return jnp.array([[1, 2], [3]])


@program
def lax_add_mixed_python_scalars():
  return lax.add(1, 1.0)


@program
def lax_add_mixed_array_dtypes():
  return lax.add(jnp.ones(2, jnp.float32), jnp.ones(2, jnp.int32))


@program
def lax_mul_shapes_differ():
  return lax.mul(jnp.ones(2), jnp.ones(3))


@program
def at_set_wrong_update_shape():
  return jnp.zeros(3).at[:2].set(jnp.ones(3))


@program
def at_without_method():
  return jnp.zeros(3).at[0](1.0)


@program
def jnp_function_wrong_keyword():
  return jnp.sum(jnp.ones(3), axes=0)


@program
def jnp_function_axis_out_of_range():
  return jnp.sum(jnp.ones((2, 3)), axis=2)


@program
def concatenate_mismatched_dims():
  return jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])


@program
def stack_different_shapes():
  return jnp.stack([jnp.ones(2), jnp.ones(3)])


@program
def grad_of_non_scalar_output():
  return jax.grad(lambda x: x * 2)(jnp.ones(3))


@program
def grad_of_integer_input():
  return jax.grad(lambda x: x * 2)(3)


@program
def vmap_mismatched_axis_sizes():
  return jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))


@program
def vmap_in_axes_out_of_range():
  return jax.vmap(lambda a: a, in_axes=1)(jnp.ones(3))


@program
def jit_static_argnum_unhashable():
  f = jax.jit(lambda x, n: x * len(n), static_argnums=1)
  return f(jnp.ones(2), [1, 2])


@program(phrases=("returned a value of type", "not a valid JAX type"))
def jit_returns_non_array():
  return jax.jit(lambda x: "text")(1.0)


@program
def jit_argument_not_array():
  return jax.jit(lambda x: x)("text")


@program
def index_with_float():
  return jnp.arange(3)[1.0]


@program
def index_too_many():
  return jnp.arange(3)[0, 1]


@program
def dynamic_slice_size_under_jit():
  return jax.jit(lambda x, n: x[:n])(jnp.arange(5), 2)


@program
def arange_traced_bound():
  return jax.jit(lambda n: jnp.arange(n))(3)


@program
def zeros_traced_shape():
  return jax.jit(lambda n: jnp.zeros(n))(3)


@program
def numpy_array_of_tracer():
  return jax.jit(lambda x: np.asarray(x) + 1)(jnp.ones(2))


@program
def invalid_dtype_name():
  return jnp.zeros(2, dtype="float33")


@program
def cond_branches_disagree():
  return lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), jnp.ones(2))


@program
def scan_carry_type_changes():
  return lax.scan(lambda c, x: (c + x, None), 0, jnp.ones(3))


@program
def tree_map_leaf_error_path():
  return jax.jit(lambda d: d["a"] + d["b"])({"a": jnp.ones(2), "b": jnp.ones(3)})
