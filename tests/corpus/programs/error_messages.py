"""Errors that point at the fix: for the common mistakes, the exception type and the information
in its message (the key path of a pytree mismatch and both subtrees, the shapes that disagree and
the operation, the traced function, its argument and line).

Where ember's message is JAX's word for word the program asks for that (``exact_message``);
elsewhere (a class path, a tracer's repr, a quirk of JAX's) it lists the phrases that carry the
information (each checked against JAX's message when the goldens are made)."""
import collections
import dataclasses

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()
tree_util = jax.tree_util
exact = program(exact_message=True)


def _first(a, *rest):
  return a


class Tagged:
  """A custom node whose auxiliary data is its tag."""

  def __init__(self, value, tag):
    self.value, self.tag = value, tag


tree_util.register_pytree_node(Tagged, lambda t: ((t.value,), t.tag),
                               lambda tag, c: Tagged(c[0], tag))


class Row:
  """A custom node with any number of children (keyed by flat index)."""

  def __init__(self, *items):
    self.items = items


tree_util.register_pytree_node(Row, lambda r: (r.items, "row"), lambda _, c: Row(*c))


class Keyed:
  """A custom node registered with keys (its children's key paths are ``.a``, ``.b``)."""

  def __init__(self, a, b):
    self.a, self.b = a, b


tree_util.register_pytree_with_keys(
    Keyed, lambda k: (((tree_util.GetAttrKey("a"), k.a), (tree_util.GetAttrKey("b"), k.b)), None),
    lambda _, c: Keyed(*c))


@tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
  w: object
  b: object


# --- pytree structure mismatches -----------------------------------------------------------

@exact
def tree_map_tuple_lengths_differ():
  return jax.tree.map(_first, (1, 2), (1, 2, 3))


@exact
def tree_map_key_path_of_nested_difference():
  return jax.tree.map(_first, {"x": [1, (2, 3)]}, {"x": [1, (2, 3, 4)]})


@exact
def tree_map_dict_keys_differ():
  return jax.tree.map(_first, {"a": 1, "b": 2}, {"a": 1, "c": 2})


@exact
def tree_map_dict_key_missing():
  return jax.tree.map(_first, {"a": 1, "b": 2}, {"a": 1})


@exact
def tree_map_dict_extra_key():
  return jax.tree.map(_first, {"a": 1}, {"a": 1, "b": 2})


@exact
def tree_map_list_where_tuple():
  return jax.tree.map(_first, [1, 2], (1, 2))


@exact
def tree_map_none_where_leaf():
  return jax.tree.map(_first, {"a": None}, {"a": 1})


@exact
def tree_map_ordereddict_where_dict():
  return jax.tree.map(_first, collections.OrderedDict(a=1), {"a": 1})


@exact
def tree_map_ordereddict_key_order():
  return jax.tree.map(_first, collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2))


@exact
def tree_map_defaultdict_factories_differ():
  return jax.tree.map(_first, collections.defaultdict(list, a=1),
                      collections.defaultdict(int, a=1))


@exact
def tree_map_custom_node_aux_data_differs():
  return jax.tree.map(_first, Tagged(1, "x"), Tagged(1, "y"))


@exact
def tree_map_custom_node_child_count_differs():
  return jax.tree.map(_first, Row(1, 2), Row(1, 2, 3))


@exact
def tree_map_key_path_through_custom_node():
  return jax.tree.map(_first, Row(1, (2, 3)), Row(1, (2,)))


@exact
def tree_map_key_path_through_keyed_node():
  return jax.tree.map(_first, Keyed(1, (2, 3)), Keyed(1, (2,)))


@exact
def tree_map_key_path_through_dataclass():
  return jax.tree.map(_first, Layer(1, (2, 3)), Layer(1, (2,)))


@exact
def tree_map_custom_node_where_list():
  return jax.tree.map(_first, Row(1, 2), [1, 2])


@exact
def tree_map_third_tree_differs():
  return jax.tree.map(lambda a, b, c: a, [1, 2], [1, 2], [1, 2, 3])


@exact
def tree_util_tree_map_list_lengths_differ():
  return tree_util.tree_map(_first, [1, [2, 3]], [1, [2]])


@exact
def tree_map_with_path_mismatch():
  return tree_util.tree_map_with_path(lambda p, a, b: a, {"a": [1, 2]}, {"a": [1]})


@program
def tree_map_deeper_second_tree_is_fine():
  return jax.tree.map(lambda a, b: (a, b), [1, 2], [1, [2, 3]])


@exact
def tree_broadcast_not_a_prefix():
  return jax.tree.broadcast([1, 2], [1, 2, 3])


@program(phrases=("Too few leaves for PyTreeDef; expected 2, got 1",))
def tree_unflatten_too_few_leaves():
  return jax.tree.unflatten(jax.tree.structure((0, 0)), [1])


@program(phrases=("Too many leaves for PyTreeDef; expected 2",))
def tree_unflatten_too_many_leaves():
  return jax.tree.unflatten(jax.tree.structure((0, 0)), [1, 2, 3])


@program(phrases=("Mismatch\n", "([(*, *), (*, *, *)])\n != \n", "([(*, *), (*, *)])"))
def tree_transpose_inner_structure_differs():
  return tree_util.tree_transpose(tree_util.tree_structure([0, 0]),
                                  tree_util.tree_structure((0, 0)), [(1, 2), (3, 4, 5)])


_VMAP_PREFIX = "vmap in_axes specification must be a tree prefix of the corresponding value; "


@program(phrases=(_VMAP_PREFIX, "pytree structure error: different lengths of tuple at key path\n"
                  "    vmap in_axes[0]\nAt that key path, the prefix pytree vmap in_axes has a "
                  "subtree of type tuple of length 2, but the full pytree has a subtree of the "
                  "same type but of length 1."))
def vmap_in_axes_not_a_prefix():
  return jax.vmap(lambda x: x[0], in_axes=((0, 0),))((jnp.ones(2),))


@program(phrases=(_VMAP_PREFIX, "different pytree metadata at key path\n    vmap in_axes[0]\n",
                  "with metadata\n    ('b',)\n", "with metadata\n    ('a',)\n"))
def vmap_in_axes_dict_keys_differ():
  return jax.vmap(lambda x: x["a"], in_axes=({"b": 0},))({"a": jnp.ones(2)})


@program(phrases=("vmap out_axes specification must be a tree prefix of the corresponding value; ",
                  "different lengths of tuple at key path\n    vmap out_axes\n",
                  "subtree of type tuple of length 3, but the full pytree has a subtree of the "
                  "same type but of length 2."))
def vmap_out_axes_not_a_prefix():
  return jax.vmap(lambda x: (x, x), out_axes=(0, 0, 0))(jnp.ones(2))


@program(phrases=("pytree structure error: different types at key path\n    pmap in_axes[0]",
                  "has a subtree of type\n    <class 'tuple'>\nbut at the same key path the full "
                  "pytree has a subtree of different type\n", "tuple of arguments passed "
                  "positionally to the pmapped function"))
def pmap_in_axes_not_a_prefix():
  return jax.pmap(lambda x: x, in_axes=((0, 0),))(jnp.ones((1, 2)))


# --- control flow: carries and branches ------------------------------------------------------

_STRUCTURE = "so their Python types differ.\n\nRevise the function so that the carry output has " \
    "the same pytree structure as the carry input."


@program(phrases=("scan body function carry input and carry output must have the same pytree "
                  "structure, but they differ:\n\nThe input carry c is a <class 'tuple'> but the "
                  "corresponding component of the carry output is a <class '", _STRUCTURE))
def scan_carry_tuple_becomes_array():
  return lax.scan(lambda c, x: ((c[0] + x), None), (jnp.float32(0),), jnp.ones(3))


@program(phrases=("scan body function carry input and carry output must have the same pytree "
                  "structure", "but the corresponding component of the carry output is a "
                  "<class 'tuple'>", _STRUCTURE))
def scan_carry_array_becomes_tuple():
  return lax.scan(lambda c, x: ((c, c), None), jnp.float32(0), jnp.ones(3))


@exact
def scan_carry_shape_changes():
  return lax.scan(lambda c, x: (jnp.stack([c, c]), None), jnp.float32(0), jnp.ones(3))


@exact
def scan_carry_dtype_changes_in_component():
  return lax.scan(lambda c, x: ((c[0], c[1].astype(jnp.int32)), None),
                  (jnp.float32(0), jnp.zeros(2)), jnp.ones(3))


@exact
def cond_branch_dtypes_differ():
  return lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), jnp.ones(2))


@exact
def cond_branch_shapes_differ():
  return lax.cond(True, lambda x: x, lambda x: x[:1], jnp.ones(2))


@exact
def cond_branch_structures_differ():
  return lax.cond(True, lambda x: (x, x), lambda x: x, jnp.ones(2))


@exact
def switch_branch_dict_keys_differ():
  return lax.switch(1, [lambda x: {"a": x}, lambda x: {"b": x}], jnp.ones(2))


@exact
def switch_branch_dtypes_differ():
  return lax.switch(1, [lambda x: x, lambda x: x.astype(jnp.int32)], jnp.ones(2))


@program(phrases=("while_loop body function carry input and carry output must have the same "
                  "pytree structure", "but the corresponding component of the carry output is a "
                  "<class 'tuple'>", _STRUCTURE))
def while_loop_body_structure_changes():
  return lax.while_loop(lambda c: c < 3, lambda c: (c, c), 0)


@exact
def while_loop_body_dtype_changes():
  return lax.while_loop(lambda c: c[0] < 3, lambda c: c.astype(jnp.int32), jnp.zeros(2))


@exact
def while_loop_cond_not_boolean():
  return lax.while_loop(lambda c: c, lambda c: c + 1, 0)


@exact
def fori_loop_carry_dtype_changes():
  return lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), jnp.ones(2))


@program(phrases=("The input carry component loop_carry[1] is a <class '", _STRUCTURE,
                  "but the corresponding component of the carry output is a <class 'tuple'>"))
def fori_loop_carry_structure_changes():
  return lax.fori_loop(0, 3, lambda i, c: (c, c), jnp.ones(2))


# --- autodiff ----------------------------------------------------------------------------------

@exact
def grad_of_vector_output():
  return jax.grad(lambda x: x * 2)(jnp.ones(3))


@exact
def grad_of_tuple_output():
  return jax.grad(lambda x: (x, x))(1.0)


@exact
def grad_of_integer_input():
  return jax.grad(lambda x: x * 2)(3)


@exact
def grad_argnums_integer_input():
  return jax.grad(lambda x, y: x * y, argnums=1)(1.0, 3)


@exact
def vjp_cotangent_leaf_for_tuple():
  _, f_vjp = jax.vjp(lambda x: (x, x), 1.0)
  return f_vjp(1.0)


@exact
def vjp_cotangent_list_for_tuple():
  def pair(x):
    return x, x
  _, f_vjp = jax.vjp(pair, 1.0)
  return f_vjp([1.0, 1.0])


@exact
def vjp_cotangent_key_path_of_difference():
  _, f_vjp = jax.vjp(lambda x: {"a": x, "b": (x, x)}, 1.0)
  return f_vjp({"a": 1.0, "b": (1.0,)})


@exact
def vjp_cotangent_dict_keys_differ():
  _, f_vjp = jax.vjp(lambda x: {"a": x, "b": x}, 1.0)
  return f_vjp({"a": 1.0, "c": 1.0})


@exact
def vjp_cotangent_every_difference_listed():
  def nested(x):
    return [x, (x, x)], x
  _, f_vjp = jax.vjp(nested, 1.0)
  return f_vjp(([1.0, (1.0,)], (1.0,)))


@exact
def vjp_cotangent_shape_differs():
  _, f_vjp = jax.vjp(lambda x: x, jnp.ones(3))
  return f_vjp(jnp.ones(2))


@exact
def vjp_cotangent_dtype_differs():
  _, f_vjp = jax.vjp(lambda x: x, jnp.ones(3))
  return f_vjp(jnp.ones(3, jnp.int32))


@program(phrases=("primal and tangent arguments to jax.jvp must have the same tree structure; "
                  "primals have tree structure ", "whereas tangents have tree structure "))
def jvp_tangent_structure_differs():
  return jax.jvp(lambda x: x, (1.0,), ((1.0, 2.0),))


def _custom_jvp(rule):
  @jax.custom_jvp
  def f(x):
    return x
  f.defjvp(rule)
  return f


@program(phrases=("Custom JVP rule tangent_pair for function f must produce primal and tangent "
                  "outputs with equal container (pytree) structures, but got ",
                  "(*) and ", "((*, *)) respectively."))
def custom_jvp_tangent_structure_differs():
  def tangent_pair(primals, tangents):
    return primals[0], (tangents[0], tangents[0])
  return jax.jvp(_custom_jvp(tangent_pair), (1.0,), (1.0,))


@exact
def custom_jvp_rule_not_a_pair():
  def primal_only(primals, tangents):
    return primals[0]
  return jax.jvp(_custom_jvp(primal_only), (1.0,), (1.0,))


@exact
def custom_jvp_tangent_shape_differs():
  def wide(primals, tangents):
    return primals[0], jnp.ones(3)
  return jax.jvp(_custom_jvp(wide), (1.0,), (1.0,))


@exact
def custom_vjp_fwd_not_a_pair():
  @jax.custom_vjp
  def f(x):
    return x

  def fwd(x):
    return x, None, 3
  f.defvjp(fwd, lambda r, g: (g,))
  return jax.grad(f)(1.0)


@program(phrases=("Custom VJP bwd rule must produce an output with the same container (pytree) "
                  "structure as the args tuple of the primal function", "but got bwd output "
                  "structure ", "((*, *)) for primal input structure ", "((*,))."))
def custom_vjp_bwd_structure_differs():
  @jax.custom_vjp
  def f(x):
    return x
  f.defvjp(lambda x: (x, None), lambda r, g: (g, g))
  return jax.grad(f)(1.0)


@program(phrases=("cotangent tree does not match function output, expected ", "((*, *)) but got ",
                  "(*)"))
def linear_transpose_cotangent_structure():
  return jax.linear_transpose(lambda x: (x, x), 1.0)(1.0)


@exact
def linear_transpose_cotangent_shape():
  return jax.linear_transpose(lambda x: x, jnp.ones(2))(jnp.ones(3))


@exact
def linear_transpose_cotangent_dtype():
  return jax.linear_transpose(lambda x: x, jnp.ones(2, jnp.float16))(jnp.ones(2))


# --- jit shardings that are not a prefix (a one-device mesh, so ember places by them) ---------

def _replicated():
  mesh = jax.sharding.Mesh(jax.devices()[:1], ("x",))
  return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())


@exact
def jit_out_shardings_not_a_prefix():
  s = _replicated()
  return jax.jit(lambda x: (x, x), out_shardings=(s, s, s))(1.0)


@program(phrases=("pjit in_shardings specification must be a tree prefix of the positional "
                  "arguments tuple", "But pjit in_shardings is the wrong length: got a tuple or "
                  "list of length 1 for an args tuple of length 2."))
def jit_in_shardings_wrong_length():
  s = _replicated()
  return jax.jit(lambda x, y: x, in_shardings=(s,))(1.0, 2.0)


@exact
def jit_in_shardings_not_a_prefix():
  s = _replicated()
  return jax.jit(lambda x: x, in_shardings=((s, s),))((1.0, 2.0, 3.0))


@exact
def jit_out_shardings_single_device_not_a_prefix():
  s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
  return jax.jit(lambda x: (x, x), out_shardings=(s, s, s))(1.0)


# --- shapes that disagree --------------------------------------------------------------------

@exact
def matmul_inner_dimensions_differ():
  return jnp.matmul(jnp.ones((3, 4)), jnp.ones((3, 4)))


@exact
def matmul_operator_inner_dimensions_differ():
  return jnp.ones((3, 4)) @ jnp.ones((3, 4))


@exact
def dot_inner_dimensions_differ():
  return jnp.dot(jnp.ones((3, 4)), jnp.ones((3, 4)))


@exact
def matmul_under_jit_inner_dimensions_differ():
  return jax.jit(jnp.matmul)(jnp.ones((3, 4)), jnp.ones((3, 4)))


@exact
def matmul_batch_dimensions_differ():
  return jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5)))


@exact
def add_shapes_do_not_broadcast():
  return jnp.add(jnp.ones(3), jnp.ones(4))


@exact
def add_operator_shapes_do_not_broadcast():
  return jnp.ones(3) + jnp.ones(4)


@exact
def add_under_jit_shapes_do_not_broadcast():
  return jax.jit(jnp.add)(jnp.ones(3), jnp.ones(4))


@exact
def dot_general_contracting_dimensions_differ():
  return lax.dot_general(jnp.ones((3, 4)), jnp.ones((5, 6)), (((1,), (0,)), ((), ())))


@exact
def dot_general_batch_dimensions_differ():
  return lax.dot_general(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 6)), (((2,), (1,)), ((0,), (0,))))


@exact
def lax_add_shapes_differ():
  return lax.add(jnp.ones(3), jnp.ones(4))


@exact
def lax_add_ranks_differ():
  return lax.add(jnp.ones(3), jnp.ones((1, 3)))


@exact
def reshape_to_incompatible_size():
  return jnp.reshape(jnp.ones(6), (4, 2))


@program(phrases=("cannot reshape array of shape (2, 3) (size 6) into shape ", " (size 5)"))
def reshape_method_to_incompatible_size():
  return jnp.ones((2, 3)).reshape(5)


@program
def lax_reshape_to_incompatible_size():
  return lax.reshape(jnp.ones(6), (4, 2))


@exact
def concatenate_other_dimensions_differ():
  return jnp.concatenate([jnp.ones((2, 3)), jnp.ones((3, 4))])


@exact
def concatenate_ranks_differ():
  return jnp.concatenate([jnp.ones((2, 3)), jnp.ones((3,))])


@exact
def lax_concatenate_other_dimensions_differ():
  return lax.concatenate([jnp.ones((2, 3)), jnp.ones((3, 4))], 0)


@exact
def conv_feature_dimensions_differ():
  return lax.conv_general_dilated(jnp.ones((1, 3, 8, 8)), jnp.ones((4, 2, 3, 3)), (1, 1), "SAME")


@exact
def conv_ranks_differ():
  return lax.conv_general_dilated(jnp.ones((1, 3, 8)), jnp.ones((4, 3, 3, 3)), (1, 1), "SAME")


@exact
def conv_strides_length_wrong():
  return lax.conv_general_dilated(jnp.ones((1, 3, 8, 8)), jnp.ones((4, 3, 3, 3)), (1,), "SAME")


@exact
def einsum_label_sizes_differ():
  return jnp.einsum("ij,jk->ik", jnp.ones((3, 4)), jnp.ones((5, 6)))


@exact
def einsum_subscript_rank_wrong():
  return jnp.einsum("ij,jk->ik", jnp.ones((3, 4, 1)), jnp.ones((4, 6)))


@exact
def einsum_operand_count_wrong():
  return jnp.einsum("ij,jk->ik", jnp.ones((3, 4)))


# --- traced values used as Python values ----------------------------------------------------

@exact
def bool_of_tracer_under_jit():
  def f(x):
    if x > 0:
      return x
    return -x
  return jax.jit(f)(1.0)


@exact
def bool_of_tracer_from_keyword_argument():
  def f(x, y):
    if y > 0:
      return x
    return -x
  return jax.jit(f)(1.0, y=2.0)


@program(phrases=("Attempted boolean conversion of traced array with shape bool[].",))
def bool_of_tracer_under_vmap():
  return jax.vmap(lambda x: x if x > 0 else -x)(jnp.ones(2))


@exact
def int_of_tracer():
  return jax.jit(lambda x: int(x))(1.0)


@exact
def float_of_tracer():
  return jax.jit(lambda x: float(x))(1.0)


@exact
def tracer_as_list_index():
  return jax.jit(lambda x, i: [1, 2, 3][i])(1.0, 1)


@exact
def range_of_tracer():
  return jax.jit(lambda n: list(range(n)))(3)


@exact
def numpy_asarray_of_tracer():
  return jax.jit(lambda x: np.asarray(x))(jnp.ones(2))


@exact
def numpy_function_under_grad():
  return jax.grad(lambda x: np.sin(np.asarray(x)))(1.0)


_TRACED_ARG = "for jit. This concrete value was not available in Python because it depends on " \
    "the value of the argument n."


@program(phrases=("Shapes must be 1D sequences of concrete values of integer type, got (",
                  "If using `jit`, try using `static_argnums` or applying `jit` to smaller "
                  "subfunctions.\nThe error occurred while tracing the function <lambda> at ",
                  _TRACED_ARG))
def zeros_of_traced_size():
  return jax.jit(lambda n: jnp.zeros(n))(3)


@program(phrases=("Shapes must be 1D sequences of concrete values of integer type, got (2, ",
                  "The error occurred while tracing the function <lambda> at ", _TRACED_ARG))
def zeros_of_traced_dimension():
  return jax.jit(lambda n: jnp.zeros((2, n)))(3)


@program(phrases=("Shapes must be 1D sequences of concrete values of integer type, got (", ", -1).",
                  "The error occurred while tracing the function <lambda> at ", _TRACED_ARG))
def reshape_to_traced_dimension():
  return jax.jit(lambda x, n: x.reshape(n, -1))(jnp.arange(6), 2)


@exact
def arange_of_traced_stop():
  return jax.jit(lambda n: jnp.arange(n))(3)


@program(phrases=("Slice entries must be static integers. Got slice(None, ",
                  ", None) at position 0"))
def slice_with_traced_stop():
  return jax.jit(lambda x, n: x[:n])(jnp.arange(5), 2)


@exact
def item_of_tracer():
  return jax.jit(lambda x: x.item())(jnp.ones(()))


@program(phrases=("Abstract tracer value encountered where concrete value is expected: traced "
                  "array with shape float32[2]\nThe tolist() method was called on traced array "
                  "with shape float32[2].\nThe error occurred while tracing the function <lambda>",
                  "because it depends on the value of the argument x.",
                  "jax.errors.ConcretizationTypeError"))
def tolist_of_tracer():
  return jax.jit(lambda x: x.tolist())(jnp.ones(2))


@program(phrases=("unhashable type: '",))
def hash_of_tracer():
  return jax.jit(lambda x: {x: 1})(1.0)


_LEAK = ("Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
         "allowing for a reference to an intermediate value with type float32[] wrapped in a ",
         " to escape the scope of the transformation.\nJAX transformations require that "
         "functions explicitly return their outputs, and disallow saving intermediate values to "
         "global state.", "To catch the leak earlier, try setting the environment variable "
         "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager.")
_LEAKED_FROM = "The function being traced when the value leaked was <lambda> at "


@program(phrases=_LEAK + (_LEAKED_FROM, " traced for jit.\n"))
def leaked_jit_tracer_used_eagerly():
  store = []
  jax.jit(lambda x: store.append(x) or x)(1.0)
  return store[0] + 1


@program(phrases=_LEAK + (_LEAKED_FROM, " traced for jit.\n"))
def leaked_jit_tracer_used_in_jit():
  store = []
  jax.jit(lambda x: store.append(x) or x)(1.0)
  return jax.jit(lambda y: y + store[0])(1.0)


@program(phrases=_LEAK)
def leaked_grad_tracer_used_in_jit():
  store = []
  jax.grad(lambda x: store.append(x) or x)(1.0)
  return jax.jit(lambda y: y + store[0])(1.0)
