"""One pytree node at a time, and the rest of ``jax.tree_util``'s small surface: flattening a
node one level (with or without keys), asking whether a type is a node, the default registry,
the associative (tree-shaped) reduction and ``tree.static``.

A node flattened one level gives its children and its metadata as JAX 0.10.2 gives them: a list
or tuple is its own children (the same object), a dict's children are a tuple in sorted key
order with the sorted keys as metadata, an OrderedDict's and a namedtuple's a list, a custom
node's what its flatten function returned. A leaf raises ``ValueError``.

Example:
    >>> from ember.pytree.one_level import flatten_one_level
    >>> flatten_one_level({'b': 1, 'a': (2, 3)})
    (((2, 3), 1), ('a', 'b'))
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import optree

from ember import pytree
from ember.pytree import (NAMESPACE, DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey,
                          _KEYED_TYPES)

__all__ = ["flatten_one_level", "flatten_one_level_with_keys", "is_tree_node", "default_registry",
           "tree_reduce_associative", "static"]

_Kind = optree.PyTreeKind
_DICTS = frozenset({_Kind.DICT, _Kind.ORDEREDDICT, _Kind.DEFAULTDICT})
_SEQUENCES = frozenset({_Kind.TUPLE, _Kind.LIST, _Kind.DEQUE})
_FIELDS = frozenset({_Kind.NAMEDTUPLE, _Kind.STRUCTSEQUENCE})


def _entry(typ: type):
  """ember's registry entry for ``typ`` (None for a leaf type)."""
  if not isinstance(typ, type):
    return None
  return optree.register_pytree_node.get(typ, namespace=NAMESPACE)


def is_tree_node(typ: type) -> bool:
  """True if ``typ`` is a pytree node type: a built-in container, a namedtuple class or a type
  registered with ember (``register_pytree_node``, ``register_dataclass``...). Not an instance:
  ``is_tree_node([1])`` is False.

  Example:
      >>> from ember import tree_util
      >>> tree_util.is_tree_node(dict), tree_util.is_tree_node(int)
      (True, False)
  """
  return _entry(typ) is not None


def _level(tree):
  """optree's one-level flattening of ``tree`` and its registry entry; ValueError on a leaf."""
  entry = _entry(type(tree))
  if entry is None:
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  return optree.tree_flatten_one_level(tree, none_is_leaf=False, namespace=NAMESPACE), entry


def _metadata(tree, level, kind):
  if kind in (_Kind.DICT, _Kind.ORDEREDDICT):
    return tuple(level.entries)
  if kind is _Kind.DEFAULTDICT:
    return (tree.default_factory, tuple(level.entries))
  if kind in (_Kind.NONE, _Kind.TUPLE, _Kind.LIST):
    return None
  return level.metadata


def _user_flatten(tree, entry):
  """A custom node's (children, aux) from its own flatten function, for a node registered
  without keys (its children then keep the container the function returned)."""
  out = entry.flatten_func(tree)
  return out[0], out[1]


def flatten_one_level(tree: Any) -> tuple[Any, Any]:
  """``(children, metadata)`` of the pytree node ``tree``, one level down.

  Raises:
    ValueError: ``tree`` is a leaf (not a container nor a registered node).

  Example:
      >>> from ember import tree_util
      >>> tree_util.flatten_one_level([1, [2]])
      ([1, [2]], None)
      >>> tree_util.flatten_one_level(1)
      Traceback (most recent call last):
      ...
      ValueError: can't tree-flatten type: <class 'int'>
  """
  level, entry = _level(tree)
  kind = entry.kind
  if kind in (_Kind.TUPLE, _Kind.LIST):
    return tree, None
  if kind is _Kind.NONE:
    return (), None
  if kind is _Kind.DICT:
    return tuple(level.children), tuple(level.entries)
  if kind is _Kind.CUSTOM and entry.type not in _KEYED_TYPES and \
      entry.flatten_func is not pytree._static_flatten:
    return _user_flatten(tree, entry)
  return list(level.children), _metadata(tree, level, kind)


def _key(tree, kind, i: int, entry) -> Any:
  if kind in _DICTS:
    return DictKey(entry)
  if kind in _SEQUENCES:
    return SequenceKey(entry)
  if kind in _FIELDS:
    names = getattr(tree, "_fields", None) or type(tree).__match_args__  # struct sequence
    return GetAttrKey(names[i])
  if type(tree) in _KEYED_TYPES:
    return entry
  return FlattenedIndexKey(i)


def flatten_one_level_with_keys(tree: Any) -> tuple[Any, Any]:
  """``(((key, child), ...), metadata)`` of the pytree node ``tree``: ``flatten_one_level``
  with each child's key (``DictKey``, ``SequenceKey``, ``GetAttrKey`` or, for a custom node
  registered without keys, ``FlattenedIndexKey``).

  Where JAX 0.10.2 names every field of a namedtuple after its first one, ember gives each
  child its own field's key.

  Raises:
    ValueError: ``tree`` is a leaf.

  Example:
      >>> from ember import tree_util
      >>> tree_util.flatten_one_level_with_keys({'a': 1, 'b': 2})
      (((DictKey(key='a'), 1), (DictKey(key='b'), 2)), ('a', 'b'))
  """
  level, entry = _level(tree)
  kind = entry.kind
  pairs = [(_key(tree, kind, i, e), child)
           for i, (e, child) in enumerate(zip(level.entries, level.children))]
  if kind in (_Kind.NONE, _Kind.TUPLE, _Kind.LIST, _Kind.DICT):
    pairs = tuple(pairs)
  if kind is _Kind.CUSTOM and type(tree) not in _KEYED_TYPES and \
      entry.flatten_func is not pytree._static_flatten:
    return pairs, _user_flatten(tree, entry)[1]
  return pairs, _metadata(tree, level, kind)


def _halves(items: list, operation: Callable) -> Any:
  """``operation`` over ``items`` as a balanced tree: the first ``n // 2`` items, then the
  rest (JAX's pairing, which a non-commutative ``operation`` can see)."""
  if len(items) == 1:
    return items[0]
  half = len(items) // 2
  return operation(_halves(items[:half], operation), _halves(items[half:], operation))


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                            identity: Any = pytree._UNSPECIFIED,
                            is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Reduce the leaves of ``tree`` with the associative ``operation``, pairing them as a
  balanced tree (logarithmic depth) rather than left to right. ``identity`` is returned for a
  tree without leaves (and is required then).

  Raises:
    TypeError: ``tree`` has no leaves and no ``identity`` was given.

  Example:
      >>> import operator
      >>> from ember import tree_util
      >>> tree_util.tree_reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]])
      21
      >>> tree_util.tree_reduce_associative(lambda a, b: (a, b), [0, 1, 2])
      (0, (1, 2))
  """
  leaves = pytree.tree_leaves(tree, is_leaf)
  if not leaves:
    if identity is pytree._UNSPECIFIED:
      raise TypeError("Must specify identity for parallel reduction of empty sequence.")
    return identity
  return _halves(leaves, operation)


def static(**kwargs) -> dataclasses.Field:
  """A ``dataclasses.field`` marked ``static`` (its metadata gets ``static=True``, which the
  given ``metadata`` may override): ``register_dataclass`` then keeps the field in the treedef
  rather than as a leaf. Takes ``dataclasses.field``'s keyword arguments.

  Example:
      >>> import dataclasses
      >>> from ember import tree, tree_util
      >>> @tree_util.register_dataclass
      ... @dataclasses.dataclass
      ... class Op:
      ...   x: float
      ...   name: str = tree.static(default="add")
      >>> tree.leaves(Op(1.0))
      [1.0]
  """
  metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
  return dataclasses.field(metadata=metadata, **kwargs)


class PyTreeRegistry:
  """The registry of pytree node types, as JAX's ``tree_util.default_registry`` offers it. Its
  methods are ember's tree functions: a type registered here is a node everywhere in ember.

  Example:
      >>> from ember import tree_util
      >>> tree_util.default_registry.flatten({'a': 1, 'b': [2, None]})[0]
      [1, 2]
  """

  def flatten(self, tree, leaf_predicate: Callable[[Any], bool] | None = None):
    """``(leaves, treedef)``, as ``tree_flatten``."""
    return pytree.tree_flatten(tree, leaf_predicate)

  def flatten_with_path(self, tree, leaf_predicate: Callable[..., bool] | None = None):
    """``([(key_path, leaf), ...], treedef)``, as ``tree_flatten_with_path``."""
    return pytree.tree_flatten_with_path(tree, leaf_predicate)

  def flatten_one_level(self, tree):
    """``flatten_one_level``, but None (not an error) for a leaf."""
    return None if _entry(type(tree)) is None else flatten_one_level(tree)

  def flatten_one_level_with_keys(self, tree):
    """``flatten_one_level_with_keys``, but None (not an error) for a leaf."""
    return None if _entry(type(tree)) is None else flatten_one_level_with_keys(tree)

  def is_node(self, type: type) -> bool:  # noqa: A002 (JAX's parameter name)
    """``is_tree_node``."""
    return is_tree_node(type)

  def register_node(self, type, to_iterable, from_iterable,  # noqa: A002 (JAX's name)
                    to_iterable_with_keys=None):
    """``register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)``."""
    pytree.register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

  def register_dataclass_node(self, type, data_fields: Sequence[str],  # noqa: A002
                              meta_fields: Sequence[str], /):
    """``register_dataclass(type, data_fields, meta_fields)``."""
    pytree.register_dataclass(type, data_fields, meta_fields)


default_registry = PyTreeRegistry()
