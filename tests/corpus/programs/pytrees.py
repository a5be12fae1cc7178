"""Pytrees: jax.tree / tree_util functions, key paths and their reprs, dict key order, None as an
empty node, namedtuples, registered dataclasses and classes, treedef printing and attributes,
structure-mismatch errors, and trees through jit / vmap / grad / device_get."""
import collections
import dataclasses
from typing import NamedTuple

import numpy as np

from harness import framework, program

jax, jnp, lax = framework()
tree_util = jax.tree_util


class Point(NamedTuple):
  x: object
  y: object


@tree_util.register_dataclass
@dataclasses.dataclass
class Params:
  w: object
  b: object
  name: str = dataclasses.field(default="layer", metadata=dict(static=True))


@tree_util.register_pytree_node_class
class Box:
  def __init__(self, value, label):
    self.value = value
    self.label = label

  def tree_flatten(self):
    return (self.value,), self.label

  @classmethod
  def tree_unflatten(cls, aux, children):
    return cls(children[0], aux)

  def __repr__(self):
    return f"Box({self.label})"


class Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b


tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))


class Keyed:
  def __init__(self, left, right):
    self.left, self.right = left, right


tree_util.register_pytree_with_keys(
    Keyed,
    lambda k: (((tree_util.GetAttrKey("left"), k.left), (tree_util.GetAttrKey("right"), k.right)),
               None),
    lambda _, c: Keyed(*c))


@program
def tree_map_dict_sorts_keys():
  tree = {"b": jnp.ones(2), "a": jnp.zeros(2), "c": 1.0}
  out = jax.tree.map(lambda x: x + 1, tree)
  return out, list(out.keys())


@program
def tree_flatten_leaves_and_treedef_str():
  tree = {"z": (1, 2.0), "a": [jnp.arange(3), None], "m": {"q": 3}}
  leaves, treedef = jax.tree.flatten(tree)
  return leaves, str(treedef), treedef.num_leaves, treedef.num_nodes


@program
def tree_unflatten_roundtrip_sorted():
  tree = {"y": [1, 2], "x": (3, {"k": 4, "c": 5})}
  leaves, treedef = jax.tree.flatten(tree)
  back = jax.tree.unflatten(treedef, [v * 10 for v in leaves])
  return back, list(back.keys()), list(back["x"][1].keys())


@program
def tree_leaves_none_is_empty():
  tree = [None, (None, 1), {"a": None, "b": 2}]
  return jax.tree.leaves(tree), str(jax.tree.structure(tree)), jax.tree.structure(None).num_leaves


@program
def tree_map_none_is_leaf():
  tree = {"a": None, "b": 1.0}
  out = jax.tree.map(lambda x: 0.0 if x is None else x * 2, tree, is_leaf=lambda x: x is None)
  return out


@program
def tree_map_multiple_trees():
  a = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}
  b = {"w": jnp.array([3.0, 4.0]), "b": jnp.array(1.5)}
  return jax.tree.map(lambda x, y: x * y, a, b)


@program
def tree_map_mismatched_keys_error():
  jax.tree.map(lambda x, y: x + y, {"a": 1, "b": 2}, {"a": 1, "c": 2})


@program
def tree_map_mismatched_length_error():
  jax.tree.map(lambda x, y: x + y, [1, 2, 3], [1, 2])


@program
def tree_map_list_vs_tuple_error():
  jax.tree.map(lambda x, y: x + y, [1, 2], (1, 2))


@program
def tree_transpose_list_of_dicts():
  outer = jax.tree.structure([0, 0, 0])
  inner = jax.tree.structure({"a": 0, "b": 0})
  tree = [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]
  return jax.tree.transpose(outer, inner, tree)


@program
def tree_util_tree_map_is_leaf_tuples():
  tree = [(1, 2), (3, 4), [5, (6, 7)]]
  return tree_util.tree_map(lambda t: sum(t) if isinstance(t, tuple) else t * 100, tree,
                            is_leaf=lambda t: isinstance(t, tuple))


@program
def flatten_with_path_keystr():
  tree = {"params": {"w": jnp.ones(2), "b": 0.0}, "state": [1, (2, 3)]}
  pairs, treedef = tree_util.tree_flatten_with_path(tree)
  return [(tree_util.keystr(p), v) for p, v in pairs], [repr(p) for p, _ in pairs]


@program
def map_with_path_names():
  tree = {"layer1": {"kernel": jnp.ones((2,)), "bias": jnp.zeros((2,))}, "scale": 2.0}
  return jax.tree_util.tree_map_with_path(
      lambda path, x: tree_util.keystr(path) + ":" + str(jnp.shape(x)), tree)


@program
def keystr_simple_and_separator():
  tree = {"a": [1, {"b": 2}]}
  paths = [p for p, _ in tree_util.tree_flatten_with_path(tree)[0]]
  return ([tree_util.keystr(p) for p in paths],
          [tree_util.keystr(p, simple=True, separator="/") for p in paths])


@program
def namedtuple_paths_and_treedef():
  tree = Point(x=jnp.array(1.0), y=(2, 3))
  pairs, treedef = tree_util.tree_flatten_with_path(tree)
  return [tree_util.keystr(p) for p, _ in pairs], [repr(p[0]) for p, _ in pairs], str(treedef)


@program
def namedtuple_tree_map_type_kept():
  out = jax.tree.map(lambda v: v * 2, Point(1.0, jnp.array([1, 2])))
  return out, type(out).__name__


@program
def register_dataclass_static_field():
  p = Params(w=jnp.ones(2), b=jnp.zeros(1), name="dense")
  leaves, treedef = jax.tree.flatten(p)
  out = jax.tree.map(lambda x: x + 1, p)
  return leaves, treedef.num_leaves, out.name, out.w, out.b


@program
def register_dataclass_paths():
  p = Params(w=jnp.ones(2), b=jnp.zeros(1))
  return [tree_util.keystr(k) for k, _ in tree_util.tree_flatten_with_path(p)[0]]


@program
def register_pytree_node_class_aux():
  b = Box(jnp.array([1.0, 2.0]), "lbl")
  out = jax.tree.map(lambda v: v * 3, b)
  leaves, treedef = jax.tree.flatten(b)
  return out.value, out.label, leaves, treedef.num_leaves


@program
def register_pytree_node_paths_flat_index():
  p = Pair(jnp.array(1.0), {"k": 2.0})
  pairs, _ = tree_util.tree_flatten_with_path(p)
  return [tree_util.keystr(k) for k, _ in pairs], [repr(k[0]) for k, _ in pairs]


@program
def register_pytree_with_keys_paths():
  k = Keyed(1.0, [2.0, 3.0])
  pairs, _ = tree_util.tree_flatten_with_path(k)
  out = jax.tree.map(lambda v: v + 1, k)
  return [tree_util.keystr(p) for p, _ in pairs], out.left, out.right


@program
def ordered_dict_keeps_insertion_order():
  od = collections.OrderedDict([("z", 1), ("a", 2)])
  out = jax.tree.map(lambda v: v * 2, od)
  leaves, treedef = jax.tree.flatten(od)
  return type(out).__name__, list(out.items()), leaves, str(treedef)


@program
def defaultdict_sorted_and_type():
  dd = collections.defaultdict(list, {"b": 1, "a": 2})
  out = jax.tree.map(lambda v: v + 1, dd)
  leaves, treedef = jax.tree.flatten(dd)
  return type(out).__name__, sorted(out.items()), list(out.keys()), leaves, str(treedef)


@program
def treedef_children_and_equality():
  t1 = jax.tree.structure({"a": (1, 2), "b": [3]})
  t2 = jax.tree.structure({"a": (5, 6), "b": [7]})
  t3 = jax.tree.structure({"a": (5, 6), "b": (7,)})
  return t1 == t2, t1 == t3, [str(c) for c in t1.children()], t1.num_nodes


@program
def tree_all_and_reduce():
  tree = {"a": 1, "b": [2, 3], "c": (4,)}
  return (tree_util.tree_all({"a": True, "b": [True, 1]}),
          tree_util.tree_all([True, 0]),
          tree_util.tree_reduce(lambda a, b: a + b, tree),
          tree_util.tree_reduce(lambda a, b: a * b, tree, 10))


@program
def tree_reduce_arrays():
  tree = [jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])]
  return jax.tree.reduce(jnp.add, tree), jax.tree.reduce(lambda a, b: a + b.sum(), tree, 0.0)


@program
def jit_returns_sorted_dict():
  @jax.jit
  def f(x):
    return {"zeta": x, "alpha": x * 2, "mid": (x, [x + 1])}
  out = f(jnp.array(1.0))
  return out, list(out.keys())


@program
def jit_of_namedtuple_and_dataclass():
  @jax.jit
  def f(pt, p):
    return Point(pt.y, pt.x), Params(p.w * 2, p.b - 1, p.name)
  a, b = f(Point(jnp.array(1.0), jnp.array(2.0)), Params(jnp.ones(2), jnp.ones(1), "n"))
  return a, type(a).__name__, b.w, b.b, b.name


@program
def vmap_over_dict_in_axes():
  params = {"w": jnp.arange(6.0).reshape(3, 2), "b": jnp.array(1.0)}
  f = lambda p, x: p["w"] @ x + p["b"]
  return jax.vmap(f, in_axes=({"w": None, "b": None}, 0))(params, jnp.ones((4, 2)))


@program
def vmap_dict_output_order():
  f = lambda x: {"sq": x ** 2, "id": x, "neg": -x}
  out = jax.vmap(f)(jnp.arange(3.0))
  return out, list(out.keys())


@program
def grad_of_param_dict():
  params = {"w": jnp.array([1.0, -2.0]), "b": jnp.array(0.5), "extra": {"s": 2.0}}
  def loss(p):
    return jnp.sum((p["w"] * p["extra"]["s"] + p["b"]) ** 2)
  g = jax.grad(loss)(params)
  return g, list(g.keys()), jax.tree.structure(g) == jax.tree.structure(params)


@program
def grad_of_namedtuple_and_none():
  def loss(p):
    return p.x * 3.0 + jnp.sum(p.y[0] ** 2)
  return jax.grad(loss)(Point(2.0, (jnp.array([1.0, 2.0]), None)))


@program
def value_and_grad_has_aux_tree():
  def loss(p):
    l = jnp.sum(p["w"] ** 2)
    return l, {"l": l, "n": jnp.size(p["w"])}
  (v, aux), g = jax.value_and_grad(loss, has_aux=True)({"w": jnp.array([1.0, 2.0])})
  return v, aux, g


@program
def device_get_of_tree():
  tree = {"b": jnp.array([1, 2]), "a": (jnp.array(1.5), 3), "c": None}
  out = jax.device_get(tree)
  return out, list(out.keys()), type(out["b"]).__name__


@program
def tree_structure_of_leaf_and_arrays():
  return (str(jax.tree.structure(jnp.ones(3))), str(jax.tree.structure(np.ones(2))),
          str(jax.tree.structure((1, [2], {"x": 3}))), str(jax.tree.structure(Point(1, 2))))


@program
def treedef_unflatten_wrong_count_error():
  treedef = jax.tree.structure([1, 2, 3])
  return treedef.unflatten([1, 2])


@program
def tree_leaves_is_leaf_and_all_leaves():
  tree = {"a": [1, 2], "b": (3, [4, 5])}
  return (jax.tree.leaves(tree, is_leaf=lambda x: isinstance(x, list)),
          tree_util.all_leaves([1, 2.0, jnp.ones(1)]), tree_util.all_leaves([[1]]))


@program
def tree_flatten_up_to_via_map_prefix():
  prefix = {"a": 0, "b": 0}
  full = {"a": [1, 2], "b": {"x": 3, "y": 4}}
  return jax.tree.map(lambda p, sub: jax.tree.leaves(sub), prefix, full,
                      is_leaf=lambda x: x is not prefix and not isinstance(x, dict))


@program
def partial_is_a_pytree():
  import functools
  f = functools.partial(lambda a, b, c: a + b + c, jnp.array(1.0), c=jnp.array(2.0))
  leaves, treedef = jax.tree.flatten(f)
  return leaves, treedef.num_leaves


@program
def dict_with_int_keys_sorted():
  tree = {3: "c", 1: "a", 2: "b"}
  out = jax.tree.map(lambda s: s.upper(), tree)
  paths = [p for p, _ in tree_util.tree_flatten_with_path(tree)[0]]
  return list(out.items()), [tree_util.keystr(p) for p in paths]


@program
def dict_with_mixed_key_types_error():
  return jax.tree.leaves({1: "a", "b": 2})


@program
def treedef_str_of_custom_nodes():
  return (str(jax.tree.structure(Box(1.0, "lbl"))), str(jax.tree.structure(Pair(1, (2, 3)))),
          str(jax.tree.structure(Params(1.0, 2.0, "d"))), str(jax.tree.structure(Keyed(1, None))),
          str(jax.tree.structure([Box(1, "a"), {"p": Pair(1, 2)}])))
