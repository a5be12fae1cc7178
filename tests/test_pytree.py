"""Pytree behaviour; expected values follow JAX 0.10.2's jax.tree_util / jax.tree."""
import collections
import dataclasses
import functools

import numpy as np
import pytest

from ember import pytree, tree, tree_util as tu
from ember.tree_util import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey

Point = collections.namedtuple("Point", "x y")


# ---------------------------------------------------------------------------------- basics

def test_seed_example():
  params = {"layer1": {"w": np.array([1, 1]), "b": 2}, "layer2": {"w": 3, "b": 4}}
  out = tree.map(lambda x: x * 2, params)
  assert out.keys() == {"layer1", "layer2"}
  np.testing.assert_array_equal(out["layer1"]["w"], [2, 2])
  assert (out["layer1"]["b"], out["layer2"]["w"], out["layer2"]["b"]) == (4, 6, 8)


def test_none_is_an_empty_subtree():
  assert tu.tree_leaves([None, 1, (2, None)]) == [1, 2]
  assert tu.tree_flatten(None)[0] == []
  assert tu.tree_structure(None).num_leaves == 0
  assert tree.map(lambda x: x + 1, [1, None]) == [2, None]
  assert tu.tree_leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]


def test_dict_keys_are_sorted():
  assert tu.tree_leaves({"b": 1, "a": 2, "c": {3: "x", 1: "y"}}) == [2, 1, "y", "x"]
  assert tu.tree_structure({"b": 1, "a": 2}) == tu.tree_structure({"a": 0, "b": 0})


def test_ordered_dict_keeps_insertion_order():
  od = collections.OrderedDict([("b", 1), ("a", 2)])
  assert tu.tree_leaves(od) == [1, 2]
  assert tu.tree_structure(od) != tu.tree_structure(collections.OrderedDict([("a", 1), ("b", 2)]))
  out = tree.map(lambda x: x * 10, od)
  assert type(out) is collections.OrderedDict and list(out.items()) == [("b", 10), ("a", 20)]


def test_defaultdict_is_a_sorted_node():
  dd = collections.defaultdict(list, {"y": 1, "x": 2})
  assert tu.tree_leaves(dd) == [2, 1]
  out = tree.map(lambda x: x + 1, dd)
  assert type(out) is collections.defaultdict and out.default_factory is list
  assert dict(out) == {"x": 3, "y": 2}


def test_namedtuple_is_a_node():
  p = Point(1, (2, 3))
  assert tu.tree_leaves(p) == [1, 2, 3]
  assert tree.map(lambda v: v * 2, Point(1, 2)) == Point(2, 4)
  assert tu.tree_leaves_with_path(Point(1, (2,))) == [
      ((GetAttrKey("x"),), 1), ((GetAttrKey("y"), SequenceKey(0)), 2)]


def test_dataclass_is_a_leaf_unless_registered():
  @dataclasses.dataclass
  class Plain:
    x: int
    y: int
  p = Plain(1, 2)
  assert tu.tree_leaves([p]) == [p]


def test_flatten_unflatten_roundtrip():
  t = {"a": [1, (2, None)], "b": Point(3, {"c": 4})}
  leaves, treedef = tu.tree_flatten(t)
  assert leaves == [1, 2, 3, 4]
  assert tu.tree_unflatten(treedef, leaves) == t
  assert tu.tree_unflatten(treedef, iter([5, 6, 7, 8])) == {
      "a": [5, (6, None)], "b": Point(7, {"c": 8})}
  assert treedef.num_leaves == 4 and tu.tree_structure((1, 2)).num_nodes == 3


def test_internal_fast_helpers():
  leaves, treedef = pytree.flatten({"x": (1, 2), "y": None})
  assert leaves == [1, 2]
  assert pytree.treedef_num_leaves(treedef) == 2
  assert pytree.unflatten(treedef, [3, 4]) == {"x": (3, 4), "y": None}
  assert isinstance(treedef, pytree.PyTreeDef)
  assert hash(treedef) == hash(pytree.flatten({"x": (5, 6), "y": None})[1])
  assert pytree.NAMESPACE == "ember"


def test_is_leaf():
  t = [(1, 2), [3]]
  assert tu.tree_leaves(t, is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]
  assert tree.map(lambda x: len(x), t, is_leaf=lambda x: isinstance(x, (tuple, list))) == 2


# ------------------------------------------------------------------------------ tree_map errors

def test_tree_map_multiple_trees_and_prefix():
  assert tree.map(lambda a, b: a + b, (1, {"k": 2}), (10, {"k": 20})) == (11, {"k": 22})
  # Later trees may be deeper: the first tree's structure is a prefix of theirs.
  assert tree.map(lambda a, b: (a, b), (1, 2), (1, [3, 4])) == ((1, 1), (2, [3, 4]))
  assert tree.map(lambda a, b: (a, b), (1, None), (1, None)) == ((1, 1), None)


@pytest.mark.parametrize("first,other,where,what", [  # JAX 0.10.2's messages
    ({"a": 1}, [1], "tree_map tree", "different types"),
    ((1, 2), (1, 2, 3), "tree_map tree", "different lengths of tuple"),
    ((1, None), (1, 3), "tree_map tree[1]", "different types"),
    ([1, 2], [1], "tree_map tree", "different lengths of list"),
])
def test_tree_map_mismatch_says_where_and_what(first, other, where, what):
  with pytest.raises(ValueError) as info:
    tree.map(lambda a, b: a, first, other)
  assert str(info.value).startswith(f"pytree structure error: {what} at key path\n    {where}\n")


def test_tree_map_does_not_rewrap_errors_from_f():
  def f(a, b):
    raise ValueError("boom")
  with pytest.raises(ValueError, match="^boom$"):
    tree.map(f, [1], [2])


@pytest.mark.parametrize("n,word", [(2, "few"), (4, "many")])
def test_unflatten_wrong_leaf_count(n, word):
  treedef = tu.tree_structure((1, 2, 3))
  with pytest.raises(ValueError, match=f"^Too {word} leaves for PyTreeDef; expected 3, ") as info:
    tu.tree_unflatten(treedef, list(range(n)))
  assert str(treedef) in str(info.value) and f"got {n}" in str(info.value)


# ---------------------------------------------------------------------------- reduce / all

def test_tree_reduce():
  assert tu.tree_reduce(lambda a, b: a + b, [1, (2, None, 3)]) == 6
  assert tree.reduce(lambda a, b: a + b, [1, 2], 10) == 13
  assert tree.reduce(lambda a, b: a + b, [], 10) == 10
  assert tree.reduce(lambda a, b: a + b, [], initializer=0) == 0
  assert tree.reduce(lambda a, b: a + [b], [(1,), (2,)], [],
                     is_leaf=lambda x: isinstance(x, tuple)) == [(1,), (2,)]
  with pytest.raises(TypeError, match="empty"):
    tree.reduce(lambda a, b: a + b, [])


def test_tree_all():
  assert tu.tree_all([1, True, (1, None)]) is True
  assert tree.all([1, 0]) is False
  assert tree.all([]) is True
  assert tree.all([(0,)], is_leaf=lambda x: isinstance(x, tuple)) is True


# ---------------------------------------------------------------------- transpose / broadcast

def test_tree_transpose():
  outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0))
  assert tu.tree_transpose(outer, inner, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])
  assert tree.transpose(outer, None, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])
  got = tree.transpose(tu.tree_structure({"a": 0, "b": 0}), tu.tree_structure([0, (0,)]),
                       {"a": [1, (2,)], "b": [3, (4,)]})
  assert got == [{"a": 1, "b": 3}, ({"a": 2, "b": 4},)]
  assert tree.transpose(outer, tu.tree_structure(()), [(), ()]) == ()


def test_tree_transpose_mismatch():
  with pytest.raises(TypeError, match="Mismatch"):
    tree.transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
                   [(1, 2, 3), (4, 5, 6)])


def test_tree_broadcast():
  assert tree.broadcast([1, {"a": 2}], [(3, 4), {"a": [5, 6]}]) == [(1, 1), {"a": [2, 2]}]
  assert tree.broadcast((1, None), (2, None)) == (1, None)
  assert tree.broadcast({"a": 1, "b": None}, {"a": (1, 2), "b": None}) == {
      "a": (1, 1), "b": None}
  with pytest.raises(ValueError, match="prefix_tree"):
    tree.broadcast((1, None), (2, 3))


# ----------------------------------------------------------------------------- key paths

def test_key_reprs_and_strs():
  assert repr(DictKey("a")) == "DictKey(key='a')" and str(DictKey("a")) == "['a']"
  assert repr(SequenceKey(0)) == "SequenceKey(idx=0)" and str(SequenceKey(0)) == "[0]"
  assert repr(GetAttrKey("n")) == "GetAttrKey(name='n')" and str(GetAttrKey("n")) == ".n"
  assert repr(FlattenedIndexKey(3)) == "FlattenedIndexKey(key=3)"
  assert str(FlattenedIndexKey(3)) == "[<flat index 3>]"
  assert str(DictKey(1)) == "[1]" and str(DictKey((1, "a"))) == "[(1, 'a')]"


def test_key_equality_and_fields():
  assert DictKey("a") == DictKey("a") and hash(DictKey("a")) == hash(DictKey("a"))
  assert DictKey(0) != SequenceKey(0)
  assert (DictKey("a").key, SequenceKey(1).idx, GetAttrKey("x").name) == ("a", 1, "x")
  assert FlattenedIndexKey(1).key == 1
  match SequenceKey(4):
    case SequenceKey(idx=i):
      assert i == 4


def test_keystr():
  path = (DictKey("layer1"), SequenceKey(0), GetAttrKey("w"), FlattenedIndexKey(2))
  assert tu.keystr((DictKey("layer1"), DictKey("w"))) == "['layer1']['w']"
  assert tu.keystr(path) == "['layer1'][0].w[<flat index 2>]"
  assert tu.keystr(path, simple=True) == "layer10w2"
  assert tu.keystr(path, simple=True, separator="/") == "layer1/0/w/2"
  assert tu.keystr(path, separator="/") == "['layer1']/[0]/.w/[<flat index 2>]"
  assert tu.keystr(()) == ""


def test_flatten_with_path():
  t = {"b": Point(1, [2, None]), "a": collections.OrderedDict(z=1, y=2),
       "d": collections.defaultdict(list, {"y": 1, "x": 2})}
  pairs, treedef = tu.tree_flatten_with_path(t)
  assert pairs == [
      ((DictKey("a"), DictKey("z")), 1), ((DictKey("a"), DictKey("y")), 2),
      ((DictKey("b"), GetAttrKey("x")), 1),
      ((DictKey("b"), GetAttrKey("y"), SequenceKey(0)), 2),
      ((DictKey("d"), DictKey("x")), 2), ((DictKey("d"), DictKey("y")), 1)]
  assert treedef == tu.tree_structure(t)
  assert all(type(p) is tuple for p, _ in pairs)
  assert tree.leaves_with_path([None, (1,)]) == [((SequenceKey(1), SequenceKey(0)), 1)]
  assert tree.flatten_with_path([(), {}, None])[0] == []


def test_map_with_path():
  out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), {"a": [1, 2]}, {"a": [3, 4]})
  assert out == {"a": [("['a'][0]", 1, 3), ("['a'][1]", 2, 4)]}
  assert tree.map_with_path(lambda p, x: len(p), (1, [2])) == (1, [2])


def test_is_leaf_takes_path():
  pairs, treedef = tu.tree_flatten_with_path(
      [1, {"a": 2}, None], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)
  assert pairs == [((SequenceKey(0),), 1), ((SequenceKey(1),), {"a": 2}),
                   ((SequenceKey(2),), None)]
  assert treedef == tu.tree_structure([0, 0, 0])
  got = tu.tree_map_with_path(
      lambda p, x: tu.keystr(p), [1, {"a": (2, 3)}, None, Point(4, 5)],
      is_leaf=lambda p, x: len(p) == 2 and isinstance(x, tuple), is_leaf_takes_path=True)
  assert got == ["[0]", {"a": "[1]['a']"}, None, Point("[3].x", "[3].y")]


# ------------------------------------------------------------------------ treedef helpers

def test_treedef_helpers():
  assert [tu.treedef_is_leaf(tu.tree_structure(x)) for x in [None, 1, (1,), (), {}, [None]]] == [
      True, True, False, True, True, False]
  children = tu.treedef_children(tu.tree_structure({"a": (1, 2), "b": None}))
  assert children == [tu.tree_structure((1, 2)), tu.tree_structure(None)]
  assert tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure((1, 2))]) == (
      tu.tree_structure((1, (1, 2))))
  assert tu.treedef_tuple([]).unflatten([]) == ()


def test_all_leaves():
  assert tu.all_leaves([1, 2]) is True
  assert tu.all_leaves([1, None]) is False
  assert tu.all_leaves([1, (2,)]) is False
  assert tu.all_leaves([(2,)], is_leaf=lambda x: isinstance(x, tuple)) is True


def test_build_tree():
  treedef = tu.tree_structure({"a": 0, "b": (0, [0, None])})
  assert tu.build_tree(treedef, [1, [2, [3, []]]]) == {"a": 1, "b": (2, [3, None])}
  assert tu.build_tree(tu.tree_structure(0), "leaf") == "leaf"
  with pytest.raises(ValueError, match="2 children"):
    tu.build_tree(tu.tree_structure((1, 2)), [1])


# ----------------------------------------------------------------------- custom registration

class Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b


tu.register_pytree_node(Pair, lambda p: ((p.a, p.b), "aux"), lambda aux, ch: Pair(*ch))


class KeyedPair:
  def __init__(self, a, b):
    self.a, self.b = a, b


tu.register_pytree_with_keys(
    KeyedPair, lambda p: (((GetAttrKey("a"), p.a), (DictKey("bee"), p.b)), None),
    lambda aux, ch: KeyedPair(*ch))


@tu.register_pytree_node_class
class Box:
  def __init__(self, a, b):
    self.a, self.b = a, b

  def tree_flatten(self):
    return (self.a, self.b), "meta"

  @classmethod
  def tree_unflatten(cls, aux, children):
    assert aux == "meta"
    return cls(*children)


@tu.register_pytree_with_keys_class
class KeyedBox:
  def __init__(self, a):
    self.a = a

  def tree_flatten_with_keys(self):
    return ((GetAttrKey("a"), self.a),), None

  @classmethod
  def tree_unflatten(cls, aux, children):
    return cls(*children)


def test_register_pytree_node_functions():
  assert tu.tree_leaves(Pair(1, [2])) == [1, 2]
  assert tu.tree_leaves_with_path(Pair(1, [2])) == [
      ((FlattenedIndexKey(0),), 1), ((FlattenedIndexKey(1), SequenceKey(0)), 2)]
  out = tree.map(lambda x: x * 3, Pair(1, 2))
  assert (type(out), out.a, out.b) == (Pair, 3, 6)


def test_register_with_keys_functions():
  assert tu.tree_leaves(KeyedPair(1, [2])) == [1, 2]
  assert tu.tree_leaves_with_path(KeyedPair(1, [2])) == [
      ((GetAttrKey("a"),), 1), ((DictKey("bee"), SequenceKey(0)), 2)]
  assert tree.map(lambda x: x, KeyedPair(1, 2)).b == 2


def test_register_pytree_node_with_keys_func():
  class Both:
    def __init__(self, a, b):
      self.a, self.b = a, b
  tu.register_pytree_node(
      Both, lambda n: ((n.a, n.b), None), lambda aux, ch: Both(*ch),
      lambda n: (((GetAttrKey("a"), n.a), (GetAttrKey("b"), n.b)), None))
  assert tu.tree_leaves(Both(1, 2)) == [1, 2]
  assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Both(1, 2))] == [".a", ".b"]


def test_register_classes():
  assert tu.tree_leaves(Box(3, (4,))) == [3, 4]
  assert tu.tree_leaves_with_path(Box(3, 4))[1] == ((FlattenedIndexKey(1),), 4)
  assert tree.map(lambda x: x + 1, Box(3, 4)).b == 5
  assert tu.tree_leaves_with_path(KeyedBox(3)) == [((GetAttrKey("a"),), 3)]
  assert tree.map(lambda x: x + 1, KeyedBox(3)).a == 4


def test_duplicate_registration_raises():
  with pytest.raises(ValueError, match="Pair"):
    tu.register_pytree_node(Pair, lambda p: ((), None), lambda a, c: None)
  with pytest.raises(TypeError, match="callable"):
    tu.register_pytree_node(type("Fresh", (), {}), None, None)


def test_custom_aux_data_in_structure():
  assert tu.tree_structure(Pair(1, 2)) == tu.tree_structure(Pair(5, 6))
  assert tu.tree_structure(Pair(1, 2)) != tu.tree_structure(Box(1, 2))


# ------------------------------------------------------------------------------- dataclasses

def test_register_dataclass_infers_fields():
  @tu.register_dataclass
  @dataclasses.dataclass
  class Params:
    x: int
    y: int = dataclasses.field(metadata=dict(static=True))
    z: int = 0
  p = Params(1, 2)
  assert tu.tree_leaves_with_path(p) == [((GetAttrKey("x"),), 1), ((GetAttrKey("z"),), 0)]
  assert tree.map(lambda v: v * 10, p) == Params(10, 2, 0)
  assert tu.tree_structure(Params(1, 2)) == tu.tree_structure(Params(5, 2))
  assert tu.tree_structure(Params(1, 2)) != tu.tree_structure(Params(1, 3))


def test_register_dataclass_explicit_fields_and_decorator():
  @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["y"])
  @dataclasses.dataclass
  class B:
    x: int
    y: str
  assert tu.tree_leaves(B(1, "s")) == [1]
  assert tree.map(lambda v: v + 1, B(1, "s")) == B(2, "s")


def test_register_dataclass_drop_fields():
  @dataclasses.dataclass
  class Dropped:
    x: int
    y: int = 0
    w: int = dataclasses.field(default=5, init=False)
  tu.register_dataclass(Dropped, data_fields=["x"], meta_fields=[], drop_fields=["y"])
  assert tu.tree_leaves(Dropped(1, 2)) == [1]
  assert tree.map(lambda v: v, Dropped(1, 2)) == Dropped(1, 0)


def test_register_dataclass_non_dataclass():
  class NotDC:
    def __init__(self, x, y):
      self.x, self.y = x, y
  with pytest.raises(TypeError, match="not a dataclass"):
    tu.register_dataclass(NotDC)
  assert tu.register_dataclass(NotDC, data_fields=["x"], meta_fields=["y"]) is NotDC
  assert tu.tree_leaves_with_path(NotDC(1, 2)) == [((GetAttrKey("x"),), 1)]


def test_register_dataclass_errors():
  @dataclasses.dataclass
  class E:
    x: int
    y: int = 0
    w: int = dataclasses.field(default=5, init=False)
  with pytest.raises(ValueError, match="Unexpected: \\['w'\\]"):
    tu.register_dataclass(E, data_fields=["x", "y", "w"], meta_fields=[])
  with pytest.raises(ValueError, match="Missing: \\['y'\\]"):
    tu.register_dataclass(E, data_fields=["x"], meta_fields=[])
  with pytest.raises(ValueError, match="overlap"):
    tu.register_dataclass(E, data_fields=["x", "y"], meta_fields=["y"])
  with pytest.raises(TypeError, match="both"):
    tu.register_dataclass(E, data_fields=["x"])


# ----------------------------------------------------------------------------------- static

def test_register_static():
  @tu.register_static
  class Tag:
    def __init__(self, v):
      self.v = v

    def __hash__(self):
      return hash(self.v)

    def __eq__(self, other):
      return isinstance(other, Tag) and other.v == self.v
  assert tu.tree_leaves([Tag(1), 2]) == [2]
  assert tu.tree_structure([Tag(1)]) == tu.tree_structure([Tag(1)])
  assert tu.tree_structure([Tag(1)]) != tu.tree_structure([Tag(2)])
  assert tree.map(lambda x: x, [Tag(3)])[0].v == 3


# ---------------------------------------------------------------------------------- Partial

def _f(a, b, c=0):
  return a + b + c


def test_partial_is_a_pytree():
  p = tu.Partial(_f, 1, c=3)
  assert isinstance(p, functools.partial)
  assert p(2) == 6
  assert tu.tree_leaves(p) == [1, 3]
  assert tu.tree_leaves_with_path(p) == [
      ((FlattenedIndexKey(0), SequenceKey(0)), 1), ((FlattenedIndexKey(1), DictKey("c")), 3)]
  q = tree.map(lambda x: x * 10, p)
  assert type(q) is tu.Partial and q.args == (10,) and q.keywords == {"c": 30} and q(2) == 42


def test_partial_func_is_static():
  assert tu.tree_structure(tu.Partial(_f, 1)) == tu.tree_structure(tu.Partial(_f, 2))
  assert tu.tree_structure(tu.Partial(_f, 1)) != tu.tree_structure(tu.Partial(max, 1))
  assert tu.tree_leaves(tu.Partial(_f)) == []


def test_partial_of_partial_keeps_inner_args_static():
  inner = functools.partial(_f, 5)
  p = tu.Partial(inner, 7)
  assert tu.tree_leaves(p) == [7] and p(1) == 13 and p.args == (7,)
  assert p.func.func is _f and p.func.args == (5,)
  nested = tu.Partial(tu.Partial(_f, 5), 7)
  assert tu.tree_leaves(nested) == [7] and nested(1) == 13
  assert tu.tree_structure(tu.Partial(inner, 1)) == tu.tree_structure(tu.Partial(inner, 2))
  other = functools.partial(_f, 5)
  assert tu.tree_structure(tu.Partial(inner, 1)) != tu.tree_structure(tu.Partial(other, 1))


# ------------------------------------------------------------------------------- module APIs

def test_public_namespaces():
  for name in ["map", "leaves", "flatten", "unflatten", "structure", "reduce", "all",
               "transpose", "map_with_path", "flatten_with_path", "leaves_with_path",
               "broadcast"]:
    assert callable(getattr(tree, name)), name
  for name in tu.__all__:
    assert hasattr(tu, name), name
  assert tu.PyTreeDef is pytree.PyTreeDef


def test_unflattened_dicts_have_sorted_keys_as_in_jax():
  d = {"b": 1, "a": {"d": 2, "c": 3}}
  assert list(tree.map(lambda x: x, d)) == ["a", "b"]
  assert list(tree.map(lambda x: x, d)["a"]) == ["c", "d"]
  assert list(tree.unflatten(tree.structure(d), [5, 6, 7])) == ["a", "b"]
  dd = collections.defaultdict(list, {"y": 1, "x": 2})
  out = tree.map(lambda x: x * 10, dd)
  assert type(out) is collections.defaultdict and out.default_factory is list
  assert list(out.items()) == [("x", 20), ("y", 10)]
  od = collections.OrderedDict(b=1, a=2)
  assert list(tree.map(lambda x: x, od)) == ["b", "a"]  # insertion order kept, as in JAX


def test_tree_map_structure_errors_are_jaxs():
  # JAX 0.10.2's messages for mismatches below the root (the corpus has those at the root)
  with pytest.raises(ValueError) as info:
    tu.tree_map(lambda x, y: x + y, {"x": [1, (2, 3)]}, {"x": [1, (2,)]})
  assert str(info.value) == (
      "pytree structure error: different lengths of tuple at key path\n"
      "    tree_map tree['x'][1]\n"
      "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of length "
      "2, but the full pytree has a subtree of the same type but of length 1.")
  with pytest.raises(ValueError) as info:
    tu.tree_map(lambda x, y: x + y, {"x": [1, {"p": 1}]}, {"x": [1, {"q": 1}]})
  assert str(info.value).startswith(
      "pytree structure error: different pytree metadata at key path\n"
      "    tree_map tree['x'][1]\n")
  assert str(info.value).endswith("    - ('p',)\n    ?   ^\n\n    + ('q',)\n    ?   ^\n")
