"""Short names for pytree utilities, mirroring ``jax.tree``.

Example:
    >>> import numpy as np
    >>> from ember import tree
    >>> tree.map(lambda x: x * 2, {'w': np.array([1, 1]), 'b': 2})
    {'b': 4, 'w': array([2, 2])}
"""
from ember.pytree import (
    tree_all as all,
    tree_broadcast as broadcast,
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)
from ember.pytree.one_level import static, tree_reduce_associative as reduce_associative

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose",
    "unflatten",
]
