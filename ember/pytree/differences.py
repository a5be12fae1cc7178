"""How two pytree structures differ, in the words of JAX's messages: every outermost node where
they part (by key path) and what each is there. Used by the control-flow checks (a carry or
branch output of another structure), vjp (cotangents of the wrong structure) and export.

Example:
    >>> from ember import pytree
    >>> from ember.pytree.differences import structure_differences
    >>> t1, t2 = pytree.flatten({"a": (1, 2)})[1], pytree.flatten({"a": (1,)})[1]
    >>> structure_differences(t1, t2)
    [("['a']", 'length')]
"""
from __future__ import annotations

from ember import pytree

__all__ = ["structure_differences", "describe_nodes"]


def _child_keys(spec) -> list[str]:
  one = spec.one_level().unflatten([0] * spec.num_children)
  return [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(one)[0]]


def _node_difference(t1, t2) -> str | None:
  """How two tree structures differ at their roots ("type", "length", "metadata"), or None."""
  if t1.is_leaf() or t2.is_leaf() or t1.type is not t2.type:
    return "type"
  if t1.type in (tuple, list) and t1.num_children != t2.num_children:
    return "length"
  if t1.num_children != t2.num_children or t1.entries() != t2.entries():
    return "metadata"
  return None


def structure_differences(t1, t2, path: str = "") -> list[tuple[str, str]]:
  """(path, kind) of every outermost node where two tree structures differ, in order."""
  if t1 == t2:
    return []
  kind = _node_difference(t1, t2)
  if kind is not None:
    return [(path, kind)]
  out = [d for key, c1, c2 in zip(_child_keys(t1), t1.children(), t2.children())
         for d in structure_differences(c1, c2, path + key)]
  return out or [(path, "metadata")]  # equal shapes, unequal node data (e.g. custom aux data)


def _node_at(spec, path: str):
  if not path:
    return spec
  for key, child in zip(_child_keys(spec), spec.children()):
    if path.startswith(key):
      return _node_at(child, path[len(key):])
  raise AssertionError(path)


def describe_nodes(t1, t2, path: str, kind: str, leaf: str) -> tuple[str, str, str]:
  """How JAX describes the two differing nodes at ``path``: (the first, the second, why)."""
  n1, n2 = _node_at(t1, path), _node_at(t2, path)
  if kind == "type":
    return (leaf if n1.is_leaf() else f"a {n1.type}", leaf if n2.is_leaf() else f"a {n2.type}",
            "their Python types differ")
  if kind == "length":
    name = n1.type.__name__
    return (f"a {name} of length {n1.num_children}", f"a {name} of length {n2.num_children}",
            "the lengths do not match")
  if n1.num_children != n2.num_children:
    children = lambda n: f"{n} child" if n == 1 else f"{n} children"  # noqa: E731
    keys = set(n1.entries()) ^ set(n2.entries())
    return (f"a {n1.type} with {children(n1.num_children)}",
            f"a {n2.type} with {children(n2.num_children)}",
            f"the numbers of children do not match, with the symmetric difference of key sets: "
            f"{keys}")
  return (f"a {n1.type} with pytree metadata {tuple(n1.entries())}",
          f"a {n2.type} with pytree metadata {tuple(n2.entries())}",
          "the pytree node metadata does not match")
