"""Shared vocabulary of the autodiff transforms and the primitives' jvp/transpose rules.

- ``Zero(aval)``: a symbolic zero tangent or cotangent (never materialised unless needed).
- ``UndefinedPrimal(aval)``: in a transpose rule, marks the linear input whose cotangent the rule
  must return; every other input is a known value (a residual).

Rule signatures:
    jvp(primals, tangents, **params) -> (primal_out, tangent_out)
        ``tangents[i]`` is a value or a ``Zero``; a rule may return ``Zero(aval)`` as tangent_out.
        For primitives with multiple results, primal_out and tangent_out are lists.
    transpose(ct, *args, **params) -> list (one cotangent per arg; None for non-linear args)
        ``ct`` is a value or a ``Zero`` (a list of them for multiple results).

Example:
    >>> import numpy as np
    >>> from ember.core.aval import ShapedArray
    >>> Zero(ShapedArray((3,), np.dtype("float32")))
    Zero(float32[3])
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ember import dtypes, pytree
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.transforms.ops import ops

__all__ = ["Zero", "UndefinedPrimal", "is_undefined", "instantiate", "zeros_like_aval",
           "add_tangents", "tangent_aval", "bilinear_jvp", "defjvp", "deflinear", "deflinear_unary",
           "standard_jvp_linear", "float0", "flatten_fun", "split_aux"]

float0 = np.dtype([("float0", np.void, 0)])


class Zero:
  """A symbolic zero of abstract value ``aval``."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"Zero({self.aval.str_short(short_dtypes=False)})"


class UndefinedPrimal:
  """The linear input of a transpose rule: only its abstract value is known."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"UndefinedPrimal({self.aval})"


def is_undefined(x) -> bool:
  return type(x) is UndefinedPrimal


def tangent_aval(aval: ShapedArray) -> ShapedArray:
  """Tangents of integer and bool values are float0, as in JAX; others keep the dtype."""
  if dtypes.is_inexact(aval.dtype):
    return aval
  return ShapedArray(aval.shape, float0, False, aval.vma)


def zeros_like_aval(aval: ShapedArray):
  if aval.dtype == float0:
    return np.zeros(aval.shape, float0)
  zero = ops.convert(0, aval.dtype, aval.weak_type)  # zeros keep the weak type
  zeros = ops.broadcast(zero, aval.shape) if aval.shape else zero
  if aval.vma:  # inside shard_map: zeros of a value that varies over mesh axes vary too
    return ops.pvary(zeros, aval.vma.names)
  return zeros


def instantiate(t, aval: ShapedArray | None = None):
  """A materialised value for tangent ``t`` (zeros for a symbolic ``Zero``)."""
  if type(t) is Zero:
    return zeros_like_aval(t.aval if aval is None else aval)
  return t


def _add_any_abstract_eval(x, y):
  if x.shape != y.shape or x.dtype != y.dtype:
    raise TypeError(f"add_any: operands must have one aval, got {x} and {y}")
  return x  # the first operand's type, weak or not, as JAX's add_any


def _add_any_lower(ctx, x, y):
  return ctx.op1("stablehlo.add", [x, y])


# Accumulation of tangents and cotangents (JAX prints it as add_any); any dtype, even float0.
add_any_p = Primitive("add_any")
add_any_p.def_rules(
    abstract_eval=_add_any_abstract_eval, lower=_add_any_lower,
    jvp=lambda primals, tangents: (add_any_p.bind(*primals), add_tangents(*tangents)),
    transpose=lambda ct, x, y: [ct, ct])


def _add_any_batch(axis, vals, dims):
  from ember.transforms.batching import batch_size, matchaxis
  (x, y), (dx, dy) = vals, dims
  if dx == dy:
    return add_any_p.bind(x, y), dx
  d = dx if dx is not None else dy
  size = batch_size(vals, dims)
  return add_any_p.bind(matchaxis(x, dx, d, size), matchaxis(y, dy, d, size)), d


add_any_p.def_rules(batch=_add_any_batch)


def add_tangents(a, b):
  if type(a) is Zero:
    return b
  if type(b) is Zero:
    return a
  return add_any_p.bind(a, b)


def defjvp(prim, *terms: Callable | None, use_ans: bool = False,
           fit: Callable | None = None) -> None:
  """The jvp of ``prim`` as a sum of per-input terms: ``terms[i](t_i, *primals, **params)``
  gives input i's contribution (None: input i is not differentiable); with ``use_ans``, the
  primal output comes before the primals. ``fit(term, shape)`` makes each term the output's
  shape (the elementwise families pass ``broadcast_tangent``: their rank-0 operands broadcast)."""
  def jvp(primals, tangents, **params):
    ans = prim.bind(*primals, **params)
    head = (ans, *primals) if use_ans else primals
    acc = Zero(tangent_aval(get_aval(ans)))
    for fn, t in zip(terms, tangents, strict=True):
      if fn is not None and type(t) is not Zero:
        term = fn(t, *head, **params)
        acc = add_tangents(acc, term if fit is None else fit(term, get_aval(ans).shape))
    return ans, acc
  prim.def_rules(jvp=jvp)


def standard_jvp_linear(prim):
  """The jvp of a primitive linear in all its inputs: apply it to the tangents."""
  def rule(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
      return out, Zero(tangent_aval(get_aval(out)))
    ts = [instantiate(t) for t in tangents]
    return out, prim.bind(*ts, **params)
  return rule


def bilinear_jvp(prim) -> Callable:
  """The jvp of an op linear in each of its two operands (dot_general, convolutions):
  d f(x, y) = f(dx, y) + f(x, dy), with the primal's params."""
  def jvp(primals, tangents, **params):
    (x, y), (tx, ty) = primals, tangents
    out = prim.bind(x, y, **params)
    t = Zero(tangent_aval(get_aval(out)))
    if type(tx) is not Zero:
      t = prim.bind(tx, y, **params)
    if type(ty) is not Zero:
      t = add_tangents(t, prim.bind(x, ty, **params))
    return out, t
  return jvp


def deflinear(prim, transpose: Callable) -> None:
  """A primitive linear in all of its inputs: jvp applies it to tangents; ``transpose(ct,
  *args, **params)`` gives the cotangents."""
  prim.def_rules(jvp=standard_jvp_linear(prim), transpose=transpose)


def deflinear_unary(prim, transpose_fn: Callable) -> None:
  """A unary linear primitive whose transpose is ``transpose_fn(ct, aval_in, **params)``."""
  def transpose(ct, x, **params):
    if type(ct) is Zero:
      return [Zero(x.aval if is_undefined(x) else get_aval(x))]
    return [transpose_fn(ct, x.aval if is_undefined(x) else get_aval(x), **params)]
  deflinear(prim, transpose)


def flatten_fun(fun, in_tree, has_aux: bool, aux_box: list, out_box: list):
  """``fun`` on flat leaves returning its output leaves, then (with has_aux) the aux leaves;
  the output tree goes to ``out_box``; the aux tree, the aux leaves that are not JAX values and
  the positions of those that are go to ``aux_box``."""
  def flat_fun(*xs):
    out = fun(*pytree.unflatten(in_tree, xs))
    if has_aux:
      if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("expected function with aux output to return a two-element tuple, "
                        f"but got type {type(out)} with value {out!r}")
      out, aux = out
      aux_leaves, aux_tree = pytree.flatten(aux)
      # As in JAX, aux leaves that are not JAX values (any Python object) come back unchanged.
      traced = [i for i, leaf in enumerate(aux_leaves) if _is_jax_value(leaf)]
      kept = [None if i in traced else leaf for i, leaf in enumerate(aux_leaves)]
      aux_box.append((aux_tree, kept, traced))
      leaves, tree = pytree.flatten(out)
      out_box.append(tree)
      return list(leaves) + [aux_leaves[i] for i in traced]
    leaves, tree = pytree.flatten(out)
    out_box.append(tree)
    return leaves
  return flat_fun


def split_aux(primals_out, aux_box, has_aux):
  if not has_aux:
    return primals_out, None
  aux_tree, leaves, traced = aux_box[0]
  n = len(traced)
  main = primals_out[:len(primals_out) - n]
  leaves = list(leaves)
  for i, value in zip(traced, primals_out[len(primals_out) - n:], strict=True):
    leaves[i] = value
  return main, pytree.unflatten(aux_tree, leaves)


def _is_jax_value(x) -> bool:
  try:
    get_aval(x)
  except TypeError:
    return False
  return True
