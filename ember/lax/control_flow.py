"""Structured control flow: cond, switch, while_loop, fori_loop, scan, map, associative_scan.

Each traces the user's functions once into jaxprs, checks their types with JAX's messages, and
binds the ``cond``, ``while`` or ``scan`` primitive: the branch or loop runs inside one compiled
program, and jit, grad and vmap go through the primitives' rules. Functions are traced once per
input types and reused (like JAX, a changed global they read is not seen: keep them pure).

Example:
    >>> import ember.numpy as jnp
    >>> from ember import lax
    >>> lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0))
    (Array(6., dtype=float32), Array([0., 0., 2., 9.], dtype=float32))
"""
from __future__ import annotations

import builtins
import operator
from typing import Callable, Sequence

import numpy as np

from ember import dtypes, pytree
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Var, dce
from ember.backend.array import abstractify, device_put_value
from ember.lax import elementwise as lax_ew
from ember.lax import structural as lax_st
from ember.primitives.control_flow.common import (aval_str, check_branch_outputs, check_carry,
                                                  join_consts, operand_avals,
                                                  promote_weak_inits, trace_fun)
from ember.primitives.control_flow.cond import cond_p
from ember.primitives.control_flow.scan import scan_p
from ember.primitives.control_flow.while_loop import while_p
from ember._src.traceback_util import api_boundary

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan"]

_missing = object()


def _operands(operands: tuple, operand) -> tuple:
  if operand is _missing:
    return operands
  if operands:
    raise TypeError("if 'operand' keyword is passed then no positional operands can be passed, "
                    f"got operand={operand} and positional operands {operands}")
  return (operand,)


def _branch(index, funs: Sequence[Callable], names: Sequence[str], operands: tuple, what: str):
  """Bind ``cond`` choosing among ``funs`` (JAX's order) by ``index``."""
  leaves, tree = pytree.flatten(operands)
  avals = operand_avals(leaves)
  traced = [trace_fun(f, tree, avals, what) for f in funs]
  order = slice(None, None, -1) if what == "cond" else slice(None)  # cond names true_fun first
  check_branch_outputs(what, funs[order], names[order], traced[order])
  jaxprs, consts = join_consts(traced)
  outs = cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs))
  return pytree.unflatten(traced[0].out_tree, outs)


@api_boundary
def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_missing):
  """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, inside the program.

  Both branches are traced; their outputs must match in tree, shapes and dtypes. A ``pred``
  that is not boolean means ``pred != 0``. Under ``vmap`` with a batched ``pred`` both branches
  run and the results are selected per example, as in JAX.

  Example:
      >>> from ember import lax
      >>> lax.cond(True, lambda x: x + 1, lambda x: x - 1, 10)
      Array(11, dtype=int32, weak_type=True)
  """
  if not (callable(true_fun) and callable(false_fun)):
    raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
  operands = _operands(operands, operand)
  try:
    aval = core.get_aval(pred)
  except TypeError:
    raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}") from None
  if aval.shape:
    raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
  if dtypes.is_complex(aval.dtype):
    raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
  if aval.dtype != np.bool_:
    pred = lax_ew.ne(pred, lax_st.full_like(pred, 0))
  index = lax_ew.convert_element_type(pred, np.int32)
  return _branch(index, (false_fun, true_fun), ("false_fun", "true_fun"), operands, "cond")


@api_boundary
def switch(index, branches: Sequence[Callable], *operands, operand=_missing):
  """``branches[index](*operands)``, with ``index`` clamped into range, inside the program.

  Example:
      >>> from ember import lax
      >>> lax.switch(5, [lambda x: x, lambda x: -x], 2.0)
      Array(-2., dtype=float32, weak_type=True)
  """
  branches = tuple(branches)
  if not all(callable(b) for b in branches):
    raise TypeError("lax.switch: branches argument should be a sequence of callables.")
  operands = _operands(operands, operand)
  if not branches:
    raise ValueError("Empty branch sequence")
  aval = core.get_aval(index)
  if aval.shape:
    raise TypeError(f"Branch index must be scalar, got {index} of shape {aval.shape}.")
  if not dtypes.is_integer(aval.dtype):
    raise TypeError(f"Index type must be an integer, got {index} as {aval.dtype.name}")
  index = lax_ew.convert_element_type(index, np.int32)
  if len(branches) == 1:
    return branches[0](*operands)
  index = lax_ew.clamp(np.int32(0), index, np.int32(len(branches) - 1))
  names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]  # JAX's spelling
  return _branch(index, branches, names, operands, "switch")


# --- loops ------------------------------------------------------------------------------------

@api_boundary
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
  """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``, starting from ``init_val``.

  Forward-mode differentiable (jvp, linearize); reverse mode needs ``scan`` or a ``fori_loop``
  with static bounds, except through a value the body returns unchanged and ``cond_fun`` does
  not read (it becomes a constant of the loop, as in JAX). Under ``vmap`` with a batched
  predicate the loop runs until every example is done, finished examples keeping their values,
  as in JAX.

  Example:
      >>> from ember import lax
      >>> lax.while_loop(lambda x: x < 100, lambda x: x * 3, 1)
      Array(243, dtype=int32, weak_type=True)
  """
  if not (callable(body_fun) and callable(cond_fun)):
    raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
  return _while(cond_fun, body_fun, init_val)


def _while(cond_fun, body_fun, init_val, owner=None):
  leaves, tree = pytree.flatten(init_val)
  avals = operand_avals(leaves)
  cond_t, body_t = _trace_while(cond_fun, body_fun, tree, avals, owner)
  if body_t.out_tree == tree:
    promoted, changed = promote_weak_inits(leaves, avals, body_t.out_avals)
    if changed:
      leaves, avals = promoted, operand_avals(promoted)
      cond_t, body_t = _trace_while(cond_fun, body_fun, tree, avals, owner)
  check_carry("while_loop", body_fun, tree, avals, body_t.out_tree, body_t.out_avals)
  return pytree.unflatten(tree, _bind_while(cond_t, body_t, leaves))


def _forwarded(jaxpr: Jaxpr) -> list:
  """For each output of ``jaxpr``, the index of the input it is (None for anything computed)."""
  position = {v: i for i, v in enumerate(jaxpr.invars)}
  return [position.get(v) if isinstance(v, Var) else None for v in jaxpr.outvars]


def _bind_while(cond_t, body_t, carry) -> list:
  """Bind ``while`` on the traced functions, first making a carry that the body returns
  unchanged and the predicate does not read a constant of the body, as JAX's ``while_loop``
  does (so ``grad`` can see through a value the loop only carries)."""
  body, cond = body_t.jaxpr.jaxpr, cond_t.jaxpr.jaxpr
  n_bc, n_cc = len(body_t.consts), len(cond_t.consts)
  changed = [f != n_bc + i for i, f in enumerate(_forwarded(body))]
  pruned_cond, used = dce(cond, [True], [True] * n_cc + changed)
  still = [u or c for u, c in zip(used[n_cc:], changed)]  # carries that stay carries
  if all(still):
    return while_p.bind(*cond_t.consts, *body_t.consts, *carry, cond_jaxpr=cond_t.jaxpr,
                        body_jaxpr=body_t.jaxpr, cond_nconsts=n_cc, body_nconsts=n_bc)
  c_vars = body.invars[n_bc:]
  body_j = Jaxpr(body.constvars, [v for v, k in zip(c_vars, still) if not k]
                 + body.invars[:n_bc] + [v for v, k in zip(c_vars, still) if k],
                 [v for v, k in zip(body.outvars, still) if k], body.eqns, body.effects,
                 body.debug_info)
  fixed = [x for x, k in zip(carry, still) if not k]
  outs = iter(while_p.bind(
      *cond_t.consts, *fixed, *body_t.consts, *[x for x, k in zip(carry, still) if k],
      cond_jaxpr=ClosedJaxpr(pruned_cond, cond_t.jaxpr.consts),
      body_jaxpr=ClosedJaxpr(body_j, body_t.jaxpr.consts), cond_nconsts=n_cc,
      body_nconsts=len(fixed) + n_bc))
  fixed = iter(fixed)
  return [next(outs) if k else next(fixed) for k in still]


def _trace_while(cond_fun, body_fun, tree, avals, owner):
  tree = pytree.treedef_tuple([tree])  # the functions take the carry as one argument
  cond_t = trace_fun(cond_fun, tree, avals, "while_loop")
  if not cond_t.out_tree.is_leaf():
    raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_t.out_tree}.")
  pred = cond_t.out_avals[0]
  if pred.shape or pred.dtype != np.bool_:
    raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                    f"{cond_t.out_avals}.")
  body_t = trace_fun(body_fun, tree, avals, "while_loop", owner=owner,
                     tag=None if owner is None else "fori_loop")
  return cond_t, body_t


@api_boundary
def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
  """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, starting from ``init_val``.

  With bounds known at trace time (Python ints, concrete arrays) this is a ``scan``, so it is
  reverse-differentiable, as in JAX; otherwise a ``while_loop`` (forward mode only).

  Example:
      >>> from ember import lax
      >>> lax.fori_loop(0, 5, lambda i, total: total + i, 0)
      Array(10, dtype=int32, weak_type=True)
  """
  if not callable(body_fun):
    raise TypeError("lax.fori_loop: body_fun argument should be callable.")
  lower, upper = _fori_bounds(lower, upper)
  lo, hi = core.concrete_value(lower), core.concrete_value(upper)
  if lo is not None and hi is not None:
    length = builtins.max(int(hi) - int(lo), 0)
    (_, out), _ = _scan(_fori_scan_body(body_fun), (lower, init_val), None, length, False,
                        1 if unroll is None else unroll, owner=body_fun, tag="fori_loop")
    return out
  if unroll is not None and unroll is not False and unroll != 1:
    raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically "
                     "known.")
  _, _, out = _while(_fori_cond, _fori_while_body(body_fun), (lower, upper, init_val),
                     owner=body_fun)
  return out


def _fori_bounds(lower, upper):
  """Bounds of one dtype: a weakly typed one (a Python int) takes the other's."""
  lo, hi = core.get_aval(lower), core.get_aval(upper)
  if lo.dtype == hi.dtype:
    return lower, upper
  if lo.weak_type and not hi.weak_type:
    return lax_ew.convert_element_type(lower, hi.dtype), upper
  if hi.weak_type and not lo.weak_type:
    return lower, lax_ew.convert_element_type(upper, lo.dtype)
  raise TypeError(f"lower and upper arguments to fori_loop must have equal types, got "
                  f"{lo.dtype.name} and {hi.dtype.name}")


def _fori_scan_body(body_fun):
  def scanned(loop_carry, _):  # the name appears in JAX's carry type messages
    i, x = loop_carry
    return (i + 1, body_fun(i, x)), None
  return scanned


def _fori_cond(loop_carry):
  i, upper, _ = loop_carry
  return i < upper


def _fori_while_body(body_fun):
  def body(loop_carry):
    i, upper, x = loop_carry
    return i + 1, upper, body_fun(i, x)
  return body


@api_boundary
def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
  """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; return the final carry
  and the stacked ``y``s.

  Args:
    f: ``(carry, x) -> (carry, y)``; the carry keeps its tree, shapes and dtypes.
    init: the initial carry (a pytree of arrays).
    xs: a pytree of arrays scanned along axis 0, or None (then ``length`` is required).
    length: the number of iterations (must agree with the xs).
    reverse: scan from the last slice to the first (the ys keep their positions).
    unroll: iterations per trip of the compiled loop (True: all of them).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4), reverse=True)
      (Array(6, dtype=int32), Array([6, 5, 3, 0], dtype=int32, weak_type=True))
  """
  if not callable(f):
    raise TypeError("lax.scan: f argument should be callable.")
  return _scan(f, init, xs, length, reverse, unroll)


def _scan_length(x_leaves, x_avals, length) -> int:
  for x, a in zip(x_leaves, x_avals):
    if not a.shape:
      raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
  lengths = [a.shape[0] for a in x_avals]
  if length is not None:
    length = int(length)
    if any(n != length for n in lengths):
      raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                       f"axis sizes {lengths}.")
    return length
  if not lengths:
    raise ValueError("scan got no values to scan over and `length` not provided.")
  if len(set(lengths)) > 1:
    raise ValueError(f"scan got values with different leading axis sizes: "
                     f"{', '.join(str(n) for n in lengths)}.")
  return lengths[0]


def _unroll(unroll, length: int) -> int:
  if isinstance(unroll, (bool, np.bool_)):
    return builtins.max(length, 1) if unroll else 1
  unroll = operator.index(unroll)
  if unroll < 0:
    raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
  return unroll


def _scan(f, init, xs, length, reverse, unroll, owner=None, tag=None):
  x_leaves, _ = pytree.flatten(xs)
  x_avals = operand_avals(x_leaves)
  length = _scan_length(x_leaves, x_avals, length)
  unroll = _unroll(unroll, length)
  leaves, init_tree = pytree.flatten(init)
  avals = operand_avals(leaves)
  n_carry = len(leaves)
  in_tree = pytree.flatten((init, xs))[1]
  slices = [a.update(shape=a.shape[1:]) for a in x_avals]
  traced = trace_fun(f, in_tree, avals + slices, "scan", owner=owner, tag=tag)
  carry_tree = _carry_tree(traced)
  if carry_tree == init_tree:
    promoted, changed = promote_weak_inits(leaves, avals, traced.out_avals[:n_carry])
    if changed:
      leaves, avals = promoted, operand_avals(promoted)
      traced = trace_fun(f, in_tree, avals + slices, "scan", owner=owner, tag=tag)
      carry_tree = _carry_tree(traced)
  check_carry("scan", f, init_tree, avals, carry_tree, traced.out_avals[:carry_tree.num_leaves])
  outs = _bind_forwarding(traced, leaves, x_leaves, length=length, reverse=bool(reverse),
                          unroll=unroll)
  ys_tree = traced.out_tree.children()[1]
  return pytree.unflatten(init_tree, outs[:n_carry]), pytree.unflatten(ys_tree, outs[n_carry:])


def _bind_forwarding(traced, carry, xs, **params) -> list:
  """Bind ``scan`` on a traced body, first taking out what the body only forwards, as JAX's
  ``lax.scan`` does: a carry the body returns unchanged becomes a constant of the loop, and an
  output that is a slice of ``xs`` as it is is ``xs`` itself, not a copy made by the loop."""
  closed, consts = traced.jaxpr, list(traced.consts)
  j = closed.jaxpr
  n_consts, n_carry = len(consts), len(carry)
  fwd = _forwarded(j)
  still = [f != n_consts + i for i, f in enumerate(fwd[:n_carry])]  # carries that change
  xs_start = n_consts + n_carry
  from_xs = [f - xs_start if f is not None and f >= xs_start else None for f in fwd[n_carry:]]
  if all(still) and all(f is None for f in from_xs):
    return scan_p.bind(*consts, *carry, *xs, jaxpr=closed, num_consts=n_consts,
                       num_carry=n_carry, **params)
  c_vars, k_vars = j.invars[n_consts:xs_start], j.invars[xs_start:]
  invars = ([v for v, s in zip(c_vars, still) if not s] + j.invars[:n_consts]
            + [v for v, s in zip(c_vars, still) if s] + k_vars)
  outvars = ([v for v, s in zip(j.outvars[:n_carry], still) if s]
             + [v for v, f in zip(j.outvars[n_carry:], from_xs) if f is None])
  body = ClosedJaxpr(Jaxpr(j.constvars, invars, outvars, j.eqns, j.effects, j.debug_info),
                     closed.consts)
  fixed = [c for c, s in zip(carry, still) if not s]
  outs = scan_p.bind(*fixed, *consts, *[c for c, s in zip(carry, still) if s], *xs, jaxpr=body,
                     num_consts=len(fixed) + n_consts, num_carry=sum(still), **params)
  outs = iter(outs)
  fixed = iter(fixed)
  carry_out = [next(outs) if s else next(fixed) for s in still]
  return carry_out + [next(outs) if f is None else _as_array(xs[f]) for f in from_xs]


def _as_array(x):
  """A forwarded operand as an output: a NumPy array goes to the device (as JAX's scan does);
  arrays and tracers are returned as they are."""
  if isinstance(x, np.ndarray):
    return device_put_value(x, abstractify(x))
  return x


def _carry_tree(traced):
  tree = traced.out_tree
  if tree.type not in (tuple, list) or tree.num_children != 2:
    avals = traced.out_avals
    got = aval_str(avals[0]) if tree.is_leaf() else pytree.unflatten(tree, avals)
    raise TypeError(f"scan body output must be a pair, got {got}.")
  return tree.children()[0]


@api_boundary
def map(f: Callable, xs, *, batch_size: int | None = None):
  """``f`` applied to each slice of ``xs`` along axis 0 (a scan), stacking the results.

  With ``batch_size``, ``vmap(f)`` runs on chunks of that many slices (the remainder last).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.map(lambda x: x * 2, jnp.arange(3))
      Array([0, 2, 4], dtype=int32)
  """
  if not batch_size:
    return _scan(_mapped(f), (), xs, None, False, 1, owner=f, tag="map")[1]
  from ember.transforms.batching import vmap
  leaves, tree = pytree.flatten(xs)
  n = _scan_length(leaves, operand_avals(leaves), None)
  n_batches, rest = divmod(n, batch_size)
  if not n_batches:
    return vmap(f)(xs)
  full = n_batches * batch_size
  cut = lambda x, lo, hi: lax_st.slice(x, (lo,) + (0,) * (x.ndim - 1), (hi,) + x.shape[1:])  # noqa: E731
  split = [lax_st.reshape(cut(x, 0, full), (n_batches, batch_size) + x.shape[1:]) for x in leaves]
  tail = [cut(x, full, n) for x in leaves] if rest else None
  ys = _scan(_mapped(vmap(f)), (), pytree.unflatten(tree, split), None, False, 1, owner=f,
             tag=("map", batch_size))[1]
  tail_ys = None if tail is None else vmap(f)(pytree.unflatten(tree, tail))
  ys = pytree.tree_map(lambda y: lax_st.reshape(y, (full,) + y.shape[2:]), ys)
  if tail_ys is None:
    return ys
  return pytree.tree_map(lambda a, b: lax_st.concatenate([a, b], 0), ys, tail_ys)


def _mapped(f):
  return lambda _, x: ((), f(x))


# --- associative_scan ---------------------------------------------------------------------------

@api_boundary
def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
  """All prefix combinations ``fn(...fn(fn(e0, e1), e2)..., ei)`` along ``axis``, computed in
  O(log n) rounds of ``fn`` on whole arrays (``fn`` must be associative and vectorized).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.associative_scan(jnp.add, jnp.arange(5))
      Array([ 0,  1,  3,  6, 10], dtype=int32)
  """
  if not callable(fn):
    raise TypeError("lax.associative_scan: fn argument should be callable.")
  leaves, tree = pytree.flatten(elems)
  leaves = [lax_st._to_array(x) for x in leaves]
  shapes = [x.shape for x in leaves]
  axis = lax_st._canonicalize_axis(axis, len(shapes[0]))
  if any(len(s) <= axis or s[axis] != shapes[0][axis] for s in shapes):
    raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                     f"(saw: {shapes})")
  if reverse:
    leaves = [lax_st.rev(x, (axis,)) for x in leaves]

  def combine(a, b):
    return pytree.flatten(fn(pytree.unflatten(tree, a), pytree.unflatten(tree, b)))[0]

  out = _prefix_scan(combine, leaves, axis)
  if reverse:
    out = [lax_st.rev(x, (axis,)) for x in out]
  return pytree.unflatten(tree, out)


def _prefix_scan(combine, elems, axis):
  """Combine pairs, scan the half as long sequence of pair sums (the odd positions), then fill
  in the even positions from it: O(log n) rounds."""
  n = elems[0].shape[axis]
  if n < 2:
    return elems
  take = lambda x, start, stop=None, stride=1: lax_st.slice_in_dim(  # noqa: E731
      x, start, stop, stride, axis)
  odd = _prefix_scan(combine, combine([take(e, 0, -1, 2) for e in elems],
                                      [take(e, 1, None, 2) for e in elems]), axis)
  before = odd if n % 2 else [take(o, 0, -1) for o in odd]
  even = combine(before, [take(e, 2, None, 2) for e in elems])
  even = [lax_st.concatenate([take(e, 0, 1), r], axis) for e, r in zip(elems, even)]
  return [_interleave(a, b, axis) for a, b in zip(even, odd)]


def _interleave(a, b, axis):
  """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` may have one element more): each
  padded with zeros between its elements, then added (or-ed for booleans), as JAX does."""
  odd_len = a.shape[axis] != b.shape[axis]
  def spread(x, lo, hi):
    config = [(0, 0, 0)] * x.ndim
    config[axis] = (lo, hi, 1)
    return lax_st.pad(x, lax_st.full((), 0, x.dtype), config)
  combine = lax_ew.bitwise_or if a.dtype == np.bool_ else lax_ew.add
  return combine(spread(a, 0, 0 if odd_len else 1), spread(b, 1, 1 if odd_len else 0))
