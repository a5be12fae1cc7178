"""A mapping from primitives to one kind of rule, stored on the primitives themselves (JAX's
``ad.primitive_jvps`` and the like are dictionaries users assign into)."""
from __future__ import annotations

from typing import Callable


class RuleRegistry:
  """``registry[prim] = rule`` sets ``prim``'s ``kind`` rule; reading gives it back."""

  def __init__(self, kind: str):
    self.kind = kind

  def __setitem__(self, prim, rule: Callable) -> None:
    prim.def_rules(**{self.kind: rule})

  def __getitem__(self, prim) -> Callable:
    rule = getattr(prim, self.kind, None)
    if rule is None:
      raise KeyError(prim)
    return rule

  def __contains__(self, prim) -> bool:
    return getattr(prim, self.kind, None) is not None

  def get(self, prim, default=None):
    return getattr(prim, self.kind, None) or default
