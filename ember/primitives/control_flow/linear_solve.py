"""The ``custom_linear_solve`` primitive behind ``lax.custom_linear_solve``:
``x = solve(matvec, b)`` differentiated implicitly, never through the solver.

Operands: the closed-over values of the four traced functions (``const_lengths`` says how many
each has), then the leaves of ``b``. ``jaxprs`` holds ``matvec``, ``vecmat`` (its transpose),
``solve`` and ``transpose_solve`` as const-free jaxprs taking those values first (the last two
may be None when no transpose solve was given). Rules:

* jvp: ``a x = b`` gives ``a dx = db - da x``: one more solve of the same system, where
  ``da x`` is matvec's jvp with respect to its closed-over values at ``x``;
* transpose (linear in ``b`` only): the transposed system, ``vecmat`` and ``transpose_solve``
  swapped in, solves for the cotangent of ``b``;
* batching: every operand is batched and each jaxpr vmapped over all its inputs.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import lax
    >>> a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
    >>> solve = lambda mv, b: jnp.linalg.solve(a, b)
    >>> f = lambda b: lax.custom_linear_solve(lambda x: a @ x, b, solve, symmetric=True)
    >>> ember.grad(lambda b: f(b).sum())(jnp.array([1.0, 2.0]))
    Array([0.4, 0.2], dtype=float32)
"""
from __future__ import annotations

from typing import NamedTuple

from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.backend import lowering
from ember.transforms.ad_util import Zero, add_tangents, instantiate, is_undefined
from ember.transforms.batching import batch_jaxpr, bdim_at_front

__all__ = ["linear_solve_p"]


class _LinearSolveTuple(NamedTuple):
  """One entry per traced function of a linear solve (a jaxpr, or a count of its values)."""
  matvec: object
  vecmat: object
  solve: object
  transpose_solve: object

  def transpose(self) -> "_LinearSolveTuple":
    return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


linear_solve_p = core.Primitive("custom_linear_solve", multiple_results=True)


def _split(args, const_lengths: _LinearSolveTuple) -> tuple[_LinearSolveTuple, list]:
  groups, i = [], 0
  for n in const_lengths:
    groups.append(list(args[i:i + n]))
    i += n
  return _LinearSolveTuple(*groups), list(args[i:])


def _run(closed, consts, xs) -> list:
  return eval_jaxpr(closed.jaxpr, closed.consts, *consts, *xs)


def _abstract_eval(*avals, const_lengths, jaxprs):
  return jaxprs.solve.out_avals


def _impl(*args, const_lengths, jaxprs):
  consts, b = _split(args, const_lengths)
  return _run(jaxprs.solve, consts.solve, b)


def _lower(ctx, *args, const_lengths, jaxprs):
  consts, b = _split(args, const_lengths)
  solve = jaxprs.solve
  closed_consts = [ctx.constant(c, v.aval) for c, v in zip(solve.consts, solve.jaxpr.constvars)]
  return lowering.lower_jaxpr(ctx, solve.jaxpr, closed_consts, consts.solve + b)


def _jvp(primals, tangents, *, const_lengths, jaxprs):
  from ember.transforms.jvp import jvp_flat
  params = dict(const_lengths=const_lengths, jaxprs=jaxprs)
  outs = linear_solve_p.bind(*primals, **params)
  consts, b = _split(primals, const_lengths)
  consts_dot, b_dot = _split(tangents, const_lengths)
  x = outs[:len(b)]
  rhs = [instantiate(t) for t in b_dot]
  if any(type(t) is not Zero for t in consts_dot.matvec):  # d(a x) with x held: da x
    zeros = [Zero(core.get_aval(v)) for v in x]
    _, da_x = jvp_flat(lambda *xs: _run(jaxprs.matvec, xs[:len(consts.matvec)],
                                        xs[len(consts.matvec):]),
                       consts.matvec + x, consts_dot.matvec + zeros)
    rhs = [add_tangents(r, -instantiate(d)) for r, d in zip(rhs, da_x)]
  x_dot = linear_solve_p.bind(*[c for group in consts for c in group], *rhs, **params)
  aux_dot = [Zero(core.get_aval(a).update(weak_type=False)) for a in outs[len(b):]]
  return outs, list(x_dot[:len(b)]) + aux_dot


def _transpose(cts, *args, const_lengths, jaxprs):
  if jaxprs.transpose_solve is None:
    raise TypeError("transpose_solve required for backwards mode automatic differentiation of "
                    "custom_linear_solve")
  consts, b = _split(args, const_lengths)
  if any(is_undefined(c) for group in consts for c in group):
    raise NotImplementedError("custom_linear_solve: transposing with respect to the values "
                              "matvec or solve close over is not supported.")
  ct_x = [instantiate(c) for c in cts[:len(b)]]
  ct_b = linear_solve_p.bind(*[c for group in consts.transpose() for c in group], *ct_x,
                             const_lengths=const_lengths.transpose(),
                             jaxprs=jaxprs.transpose())
  return [None] * sum(const_lengths) + list(ct_b[:len(b)])


def _batch(axis, vals, dims, *, const_lengths, jaxprs):
  vals = [bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  consts, b = _split(vals, const_lengths)
  new_jaxprs, new_consts = [], []
  for closed, group in zip(jaxprs, consts):
    if closed is None:
      new_jaxprs.append(None)
      new_consts.append(group)
      continue
    batched, extra, _ = batch_jaxpr(closed, axis.size, [0] * len(closed.in_avals), axis.name,
                                    axis.spmd_name, out_dims_at=[0] * len(closed.out_avals))
    new_jaxprs.append(batched)
    new_consts.append(list(extra) + group)
  outs = linear_solve_p.bind(*[c for group in new_consts for c in group], *b,
                             const_lengths=_LinearSolveTuple(*map(len, new_consts)),
                             jaxprs=_LinearSolveTuple(*new_jaxprs))
  return outs, [0] * len(outs)


linear_solve_p.own_vma = True  # its outputs vary as solve's do
linear_solve_p.def_rules(abstract_eval=_abstract_eval, impl=_impl, lower=_lower, jvp=_jvp,
                         transpose=_transpose)
linear_solve_p.def_rules(batch=_batch, axis_names=core.refers_to_every_axis)
