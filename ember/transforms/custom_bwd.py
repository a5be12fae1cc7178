"""What a ``custom_vjp`` bwd rule returned, checked against the primal arguments as JAX checks it.

The rule returns one cotangent per (non-static) argument, as a tuple (a list of the right length
is taken as one). Each entry is ``None`` (a zero cotangent for the whole argument), a pytree of
the argument's structure whose leaves may be ``None`` or ``SymbolicZero``, or a single value
standing for every leaf below it. A wrong container is a TypeError naming both structures; a
cotangent whose shape (or, inside shard_map, varying mesh axes) differs from its input's is a
ValueError naming the input by path. As in JAX, a dtype difference alone is accepted, and
cotangents of integer or boolean inputs are ignored.

Example:
    >>> import ember, ember.numpy as jnp
    >>> @ember.custom_vjp
    ... def f(x):
    ...   return 2.0 * x
    >>> f.defvjp(lambda x: (f(x), None), lambda _, g: (jnp.ones(2),))
    >>> ember.grad(lambda x: f(x).sum())(jnp.ones(3))
    Traceback (most recent call last):
    ...
    ValueError: Custom VJP bwd rule must produce an output with the same type as the args tuple \
of the primal function, but at output[0] the bwd rule produced an output of type float32[2] \
corresponding to an input of type float32[3], so the shapes do not match
"""
from __future__ import annotations

from ember import pytree
from ember.core import trace as core
from ember.transforms.ad_util import Zero, tangent_aval, float0

__all__ = ["bwd_cotangents"]


def bwd_cotangents(out, in_tree, primal_avals: list, symbolic_zero_type: type) -> list:
  """One cotangent per primal input leaf from the bwd rule's output ``out``: a value, ``None``
  for a zero, or ``Zero(aval)`` for a ``SymbolicZero`` the rule returned.

  Args:
    out: what the user's bwd rule returned.
    in_tree: the structure of the tuple of (non-static) arguments.
    primal_avals: the avals of the primal input leaves.
    symbolic_zero_type: the ``SymbolicZero`` class (defined beside custom_vjp).

  Raises:
    TypeError: ``out`` does not have the structure of the arguments tuple.
    ValueError: a cotangent's shape (or varying mesh axes) differs from its input's.
  """
  if isinstance(out, list) and len(out) == len(pytree.treedef_children(in_tree)):
    out = tuple(out)
  leaves = _leaves_per_input(out, in_tree)
  paths = None
  cts = []
  for i, (ct, p_aval) in enumerate(zip(leaves, primal_avals)):
    want = tangent_aval(p_aval)
    if ct is None or want.dtype == float0:
      cts.append(None)
      continue
    if type(ct) is symbolic_zero_type:
      if (ct.aval.shape, ct.aval.dtype) != (want.shape, want.dtype):
        paths = paths or _paths(in_tree)
        raise ValueError(
            "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does not match "
            "the corresponding input tangent shape/dtype: at output"
            f"{paths[i]} the SymbolicZero had shape/dtype {ct.aval.str_short()} while the "
            f"corresponding input had shape/dtype {p_aval.str_short()}. Consider just returning "
            "a None here instead of a SymbolicZero object.")
      cts.append(Zero(ct.aval))
      continue
    c_aval = core.get_aval(ct)
    if c_aval.shape != want.shape or c_aval.vma != want.vma:
      paths = paths or _paths(in_tree)
      raise ValueError(
          "Custom VJP bwd rule must produce an output with the same type as the args tuple of "
          f"the primal function, but at output{paths[i]} the bwd rule produced an output of "
          f"type {c_aval.str_short()} corresponding to an input of type "
          f"{p_aval.str_short()}{_mismatch(p_aval, c_aval)}")
    cts.append(ct)
  return cts


def _leaves_per_input(out, in_tree) -> list:
  """``out`` spread over the primal input leaves: a ``None`` or a single value stands for every
  leaf of the subtree where it sits."""
  slots = pytree.unflatten(in_tree, [object()] * in_tree.num_leaves)
  leaves: list = []

  def spread(ct, subtree):
    n = len(pytree.tree_leaves(subtree))
    leaves.extend([ct] * n)

  try:
    if not isinstance(out, tuple):
      raise ValueError
    pytree.tree_map(spread, out, slots, is_leaf=lambda x: x is None)
  except ValueError:
    raise TypeError(
        "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
        "as the args tuple of the primal function, and in particular must produce a tuple of "
        "length equal to the number of arguments to the primal function, but got bwd output "
        f"structure {pytree.tree_structure(out)} for primal input structure {in_tree}."
    ) from None
  return leaves


def _paths(in_tree) -> list[str]:
  dummy = pytree.unflatten(in_tree, range(in_tree.num_leaves))
  return [pytree.keystr(path) for path, _ in pytree.tree_flatten_with_path(dummy)[0]]


def _mismatch(want, got) -> str:
  """``, so the dtypes do not match, and the shapes do not match``: what differs, as JAX says."""
  diffs = [what for what, differs in (("dtypes", want.dtype != got.dtype),
                                      ("shapes", want.shape != got.shape),
                                      ("manual axis types", want.vma != got.vma)) if differs]
  said = [f"the {what} do not match" for what in diffs]
  if not said:
    return ""
  if len(said) == 1:
    return ", so " + said[0]
  return ", so " + ", ".join(said[:-1]) + ", and " + said[-1]
