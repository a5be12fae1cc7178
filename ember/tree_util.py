"""Pytree utilities, mirroring ``jax.tree_util``.

Example:
    >>> from ember import tree_util
    >>> tree_util.tree_map(lambda x: x + 1, {'a': 1, 'b': (2, None)})
    {'a': 2, 'b': (3, None)}
"""
from ember.pytree import (
    DictKey, FlattenedIndexKey, GetAttrKey, KeyEntry, KeyPath, Partial, PyTreeDef, SequenceKey,
    all_leaves, build_tree, keystr, register_dataclass, register_pytree_node,
    register_pytree_node_class, register_pytree_with_keys, register_pytree_with_keys_class,
    register_static, tree_all, tree_broadcast, tree_flatten, tree_flatten_with_path,
    tree_leaves, tree_leaves_with_path, tree_map, tree_map_with_path, tree_reduce,
    tree_structure, tree_transpose, tree_unflatten, treedef_children, treedef_is_leaf,
    treedef_tuple,
)
from ember.pytree.one_level import (
    default_registry, flatten_one_level, flatten_one_level_with_keys, is_tree_node,
    tree_reduce_associative,
)

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
    "SequenceKey", "all_leaves", "build_tree", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure", "tree_transpose",
    "tree_unflatten", "treedef_children", "treedef_is_leaf", "treedef_tuple",
    "default_registry", "flatten_one_level", "flatten_one_level_with_keys", "is_tree_node",
    "tree_reduce_associative",
]
