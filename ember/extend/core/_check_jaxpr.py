"""``check_jaxpr``: is a jaxpr well typed? (JAX's ``jax.extend.core.check_jaxpr``.)

Every variable is bound once before it is read, and each equation's outputs have the types its
primitive's abstract evaluation gives for its inputs' types (shape and dtype; weak types may
differ). The jaxprs an equation carries (``jit``, control flow, custom rules) are checked too. A
failure raises ``ember.errors.JaxprTypeError`` with JAX's message: what is wrong, the equation,
and the jaxpr.
"""
from __future__ import annotations

from ember.core import jaxpr as _ir
from ember.core import pretty as _pp
from ember.core.jaxpr import DropVar, Jaxpr, Literal, sub_jaxprs
from ember.errors import JaxprTypeError

__all__ = ["check_jaxpr"]


def _namer(jaxpr: Jaxpr):
  """The names variables have when ``jaxpr`` prints (``a``, ``b``...)."""
  names = _ir._Names()
  shared = _ir._shared_jaxprs(jaxpr)
  names.shared = {id(j): name for name, j in shared}
  names.shared_names = {name for name, _ in shared}
  _ir._pp_jaxpr(jaxpr, names, top=True)  # printing names the variables
  return names


def _typematch(a, b) -> bool:
  return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


def _out_avals(eqn) -> list:
  out = eqn.primitive.abstract(tuple(x.aval for x in eqn.invars), eqn.params)
  return list(out) if eqn.primitive.multiple_results else [out]


def _check(jaxpr: Jaxpr, names) -> None:
  env: set = set()

  def write(v, aval=None):
    if isinstance(v, DropVar):
      return
    if id(v) in env:
      raise JaxprTypeError(f"Variable '{names(v)}' already bound")
    if aval is not None and not _typematch(v.aval, aval):
      raise JaxprTypeError(f"Value for variable '{names(v)}' inconsistently typed as "
                           f"{aval.str_short(True)} for let-binder of type {v.aval.str_short(True)}")
    env.add(id(v))

  def read(x):
    if type(x) is not Literal and id(x) not in env:
      raise JaxprTypeError(f"Variable '{names(x)}' not defined")

  for v in [*jaxpr.constvars, *jaxpr.invars]:
    write(v)
  for eqn in jaxpr.eqns:
    try:
      for x in eqn.invars:
        read(x)
      for sub in sub_jaxprs(eqn.params):
        _check(getattr(sub, "jaxpr", sub), names)
      for v, aval in zip(eqn.outvars, _out_avals(eqn), strict=True):
        write(v, aval)
    except JaxprTypeError as e:
      src = eqn.source_info
      where = "unknown" if src is None else f"{src.file}:{src.line} ({src.function})"
      line = _pp.format_doc(_ir._pp_eqn(eqn, names))  # named as in the jaxpr printed below
      raise JaxprTypeError(f"{e.args[0]}\n\nin equation:\n\n{line}\n\nfrom source: "
                           f"{where}") from None
  for x in jaxpr.outvars:
    read(x)


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Check that ``jaxpr`` is well typed; return None, or raise ``JaxprTypeError``.

  Raises:
    JaxprTypeError: a variable read before it is bound or bound twice, or an equation whose
      outputs' types are not what its primitive gives.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend.core import Jaxpr, check_jaxpr
      >>> jaxpr = ember.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).jaxpr
      >>> check_jaxpr(jaxpr)
      >>> check_jaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns[1].invars[:1] + [
      ...     jaxpr.invars[0]], jaxpr.eqns[1:]))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ...
      ember.errors.JaxprTypeError: Variable 'b' not defined
      ...
  """
  names = _namer(jaxpr)
  try:
    _check(jaxpr, names)
  except JaxprTypeError as e:
    raise JaxprTypeError(f"{e.args[0]}\n\nwhile checking jaxpr:\n\n{jaxpr}") from None
