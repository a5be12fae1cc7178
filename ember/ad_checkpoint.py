"""Rematerialization (mirrors ``jax.ad_checkpoint``): ``checkpoint``/``remat``, the policies
choosing what reverse mode saves (``checkpoint_policies``), ``checkpoint_name`` to name values
for them, and the answers a policy may give (``Saveable``, ``Recompute``; ``Offloadable`` is
refused by ember's checkpoint, which has no host memory space).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.ad_checkpoint import checkpoint, checkpoint_name, checkpoint_policies
    >>> def f(x):
    ...   y = checkpoint_name(jnp.sin(x), "y")
    ...   return jnp.sin(y)
    >>> g = checkpoint(f, policy=checkpoint_policies.save_only_these_names("y"))
    >>> ember.grad(g)(1.0)
    Array(0.36003947, dtype=float32, weak_type=True)
"""
from ember import pytree
from ember.core.jaxpr import Literal
from ember.transforms.checkpoint import checkpoint, remat  # noqa: F401
from ember.transforms.remat_policies import (  # noqa: F401
    checkpoint_name, checkpoint_policies, Saveable, Recompute, Offloadable)

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies", "Saveable",
           "Recompute", "Offloadable", "print_saved_residuals"]


def _where(eqn) -> str:
  """``file:line (function)`` of the user code that made ``eqn`` (JAX also gives a column)."""
  src = eqn.source_info
  return "unknown" if src is None else f"{src.file}:{src.line} ({src.function})"


def _produced(eqn) -> str:
  if eqn.primitive.name == "name":
    return f"named '{eqn.params['name']}' from {_where(eqn)}"
  if eqn.primitive.name == "jit":
    return f"output of jitted function '{eqn.params['name']}' from {_where(eqn)}"
  return f"output of {eqn.primitive.name} from {_where(eqn)}"


def _saved_residuals(f, args, kwargs) -> list[tuple]:
  """(aval, where it comes from) for each value ``vjp(f, ...)`` keeps for the backward pass:
  literals, constants, arguments (by name), then equation outputs in program order."""
  from ember.transforms.linearize import vjp
  from ember.transforms.staging import arg_names, make_jaxpr
  leaves, tree = pytree.flatten((args, kwargs))

  def flat_f(*flat):
    a, k = pytree.unflatten(tree, flat)
    return f(*a, **k)

  closed, shapes = make_jaxpr(lambda *flat: vjp(flat_f, *flat), return_shape=True)(*leaves)
  jaxpr = closed.jaxpr
  n_res = len(pytree.tree_leaves(shapes[1]))
  res = jaxpr.outvars[len(jaxpr.outvars) - n_res:]
  through = {id(e.outvars[0]): e.invars[0] for e in jaxpr.eqns
             if e.primitive.name == "reduce_precision"}  # look through it, as JAX does
  saved = {id(through.get(id(v), v)) for v in res if type(v) is not Literal}
  names = arg_names(f, args, kwargs)
  out = [(v.aval, "from a literal") for v in res if type(v) is Literal]
  out += [(v.aval, "from a constant") for v in jaxpr.constvars if id(v) in saved]
  out += [(v.aval, f"from the argument {names[i]}" if i < len(names) and names[i] else
           f"from the argument at flattened index {i}")
          for i, v in enumerate(jaxpr.invars) if id(v) in saved]
  out += [(v.aval, _produced(e)) for e in jaxpr.eqns for v in e.outvars if id(v) in saved]
  return out


def print_saved_residuals(f, *args, **kwargs) -> None:
  """Print, one a line, each value reverse-mode differentiation of ``f`` at ``args`` saves for
  the backward pass (its residuals): its type and where it comes from (a literal, a constant,
  an argument by name, or the output of an operation at a source line). As JAX's, but source
  locations give no column, and constant scalars that ember folds into the backward pass (JAX
  keeps some as ``from a literal`` residuals) are not listed.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.ad_checkpoint import print_saved_residuals
      >>> print_saved_residuals(lambda x, y: jnp.sin(x) * y, 1.0, 2.0)  # doctest: +ELLIPSIS
      f32[] from the argument y
      f32[] output of sin from ...
      f32[] output of cos from ...
  """
  for aval, where in _saved_residuals(f, args, kwargs):
    print(f"{aval.str_short(short_dtypes=True)} {where}")
