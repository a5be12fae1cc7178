"""lax's reductions with a user computation: ``reduce_window`` and ``reduce``.

The computation is traced once per (function, init avals) to a jaxpr. As in JAX, a single
operand whose computation is ``lax.add``, ``lax.max`` or ``lax.min`` (``reduce`` also knows
``lax.mul`` and the bitwise ops) with that monoid's identity as a concrete init value becomes
the dedicated primitive (``reduce_window_sum``, ``reduce_max``...), which reverse-mode
differentiates; any other computation binds the generic ``reduce_window`` / ``reduce``.

Example:
    >>> import numpy as np
    >>> from ember import lax
    >>> x = np.arange(16, dtype=np.float32).reshape(4, 4)
    >>> lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), 'VALID')  # a 2x2 max pool
    Array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import Callable, Sequence

import numpy as np

from ember import dtypes, pytree
from ember.core.cache import BoundedCache
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.lax import elementwise as ew
from ember.lax import reductions as red
from ember.lax.convolution import padtype_to_pads
from ember.primitives import windowed as win
from ember.primitives.convolution import dilate_shape
from ember.primitives.reductions import identity

__all__ = ["reduce_window", "reduce", "reduce_window_shape_tuple", "reduce_window_p",
           "reduce_window_sum_p", "reduce_window_max_p", "reduce_window_min_p",
           "select_and_gather_add_p", "select_and_scatter_add_p", "reduce_p"]

reduce_window_p, reduce_p = win.reduce_window_p, win.reduce_p
reduce_window_sum_p, reduce_window_max_p = win.reduce_window_sum_p, win.reduce_window_max_p
reduce_window_min_p = win.reduce_window_min_p
select_and_gather_add_p = win.select_and_gather_add_p
select_and_scatter_add_p = win.select_and_scatter_add_p


# --- tracing the computation ------------------------------------------------------------------

_jaxprs = BoundedCache(512)


def _trace_computation(name: str, computation: Callable, avals: list[ShapedArray], tree):
  """The computation ``(xs, ys) -> zs`` on pytrees of scalars (structure ``tree``) as a closed
  jaxpr of the flat scalars, and the structure of its result."""
  from ember.transforms.staging import trace_to_jaxpr
  key = (name, computation, tuple(avals), tree)
  try:
    hit = _jaxprs.get(key)
  except TypeError:  # an unhashable callable: trace it every time
    key, hit = None, None
  if hit is not None:
    return hit
  n, box = len(avals), []

  def flat(*args):
    out = computation(pytree.unflatten(tree, args[:n]), pytree.unflatten(tree, args[n:]))
    leaves, out_tree = pytree.flatten(out)
    box.append(out_tree)
    return leaves

  closed = trace_to_jaxpr(flat, avals * 2)
  if any(isinstance(c, core.Tracer) for c in closed.consts):
    raise NotImplementedError(
        f"Reduction computations can't close over Tracers: the computation of {name} uses a "
        "value traced by an enclosing transformation (jit, grad, vmap...). Pass that value as "
        "an operand instead.")
  outs = closed.out_avals
  if len(outs) != n or any(o.shape != () or o.dtype != a.dtype for o, a in zip(outs, avals)):
    want = ", ".join(a.str_short(short_dtypes=True) for a in avals)
    got = ", ".join(o.str_short(short_dtypes=True) for o in outs)
    raise TypeError(f"{name} computation must return {n} scalar(s) of the init values' types "
                    f"({want}), got ({got}).")
  result = (closed, box[0])
  if key is not None:
    _jaxprs[key] = result
  return result


def _flatten_pair(name: str, operands, init_values):
  flat_ops, tree = pytree.flatten(operands)
  flat_inits, init_tree = pytree.flatten(init_values)
  if tree != init_tree:
    raise ValueError(f"Operands must have the same tree structure as init_values: {tree} vs. "
                     f"{init_tree}")
  if len(flat_ops) != len(flat_inits):
    raise ValueError(f"Must have same total number of operands as init_values:  "
                     f"{len(flat_ops)} vs. {len(flat_inits)}")
  if not flat_ops:
    raise ValueError(f"{name} must have at least one operand.")
  return flat_ops, flat_inits, tree


def _monoid(computation: Callable, inits: Sequence, table: dict):
  """The entry of ``table`` (keyed by lax function) when ``computation`` is that function and
  the single init value is a concrete scalar equal to its identity."""
  if len(inits) != 1 or computation not in table:
    return None
  init = inits[0]
  aval = core.get_aval(init)
  val = core.concrete_value(init)
  if aval.shape != () or val is None:
    return None
  kind, prim, int_only = table[computation]
  if int_only and not (dtypes.is_integer(aval.dtype) or aval.dtype == np.bool_):
    return None
  return prim if np.equal(np.asarray(val), identity(kind, aval.dtype)) else None


def _ints(seq, what: str) -> tuple[int, ...]:
  try:
    return tuple(operator.index(d) for d in seq)
  except TypeError:
    raise TypeError(f"{what} must be a sequence of integers, got {seq!r}.") from None


# --- reduce_window ----------------------------------------------------------------------------

_WINDOW_MONOIDS = {ew.add: ("add", reduce_window_sum_p, False),
                   ew.max: ("max", reduce_window_max_p, False),
                   ew.min: ("min", reduce_window_min_p, False)}


def reduce_window(operand, init_value, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding="VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None):
  """Reduce every window of ``operand`` (padded, possibly dilated) with ``computation``.

  Args:
    operand: an array, or a pytree of same-shaped arrays reduced together.
    init_value: a scalar (pytree of scalars, like ``operand``) starting each window's reduction
      and filling the padding.
    computation: ``(acc, x) -> acc`` on pytrees like ``operand`` (an associative operation of
      which ``init_value`` is an identity).
    window_dimensions: the window's size along every dimension.
    window_strides: the step between windows (default ones).
    padding: ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or ``(low, high)`` pairs.
    base_dilation, window_dilation: holes between operand / window elements (default ones).

  Returns:
    A pytree like ``operand`` of the reduced windows.

  Raises:
    TypeError, ValueError: with JAX's messages, for inconsistent window parameters, pytrees or
      dtypes. Reverse-mode differentiation of a custom computation raises ValueError (it is
      forward-mode differentiable, as in JAX).

  Example:
      >>> import numpy as np
      >>> from ember import lax
      >>> x = np.arange(10, dtype=np.float32)
      >>> lax.reduce_window(x, np.float32(1), lax.mul, window_dimensions=(2,))
      Array([ 0.,  2.,  6., 12., 20., 30., 42., 56., 72.], dtype=float32)
  """
  flat_ops, flat_inits, tree = _flatten_pair("reduce_window", operand, init_value)
  window_dimensions = _ints(window_dimensions, "reduce_window window_dimensions")
  ones = (1,) * len(window_dimensions)
  strides = ones if window_strides is None else _ints(window_strides, "window_strides")
  base = ones if base_dilation is None else _ints(base_dilation, "base_dilation")
  wdil = ones if window_dilation is None else _ints(window_dilation, "window_dilation")
  if isinstance(padding, str):
    window = dilate_shape(window_dimensions, wdil)
    padding = padtype_to_pads(core.get_aval(flat_ops[0]).shape, window, strides, padding)
  padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
  params = dict(window_dimensions=window_dimensions, window_strides=strides, padding=padding,
                base_dilation=base, window_dilation=wdil)
  prim = _monoid(computation, flat_inits, _WINDOW_MONOIDS)
  if prim is not None:
    return pytree.unflatten(tree, [prim.bind(flat_ops[0], **params)])
  avals = [core.get_aval(i) for i in flat_inits]
  win.check_window_inits([core.get_aval(x) for x in flat_ops], avals)
  closed, out_tree = _trace_computation("reduce_window", computation, avals, tree)
  if out_tree != tree:
    raise ValueError("reduce_window output must have the same tree structure as the operands "
                     f"{tree} vs. {out_tree}")
  outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=closed.jaxpr,
                              consts=tuple(closed.consts), **params)
  return pytree.unflatten(tree, outs)


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
  """The shape ``reduce_window`` gives for these window parameters.

  Example:
      >>> reduce_window_shape_tuple((4, 5), (2, 2), (2, 2), ((0, 0), (0, 1)))
      (2, 3)
  """
  ones = (1,) * len(window_dimensions)
  return win.window_shape(ShapedArray(tuple(operand_shape), np.dtype(np.float32)),
                          tuple(window_dimensions), tuple(window_strides), tuple(padding),
                          ones if base_dilation is None else tuple(base_dilation),
                          ones if window_dilation is None else tuple(window_dilation))


# --- reduce -----------------------------------------------------------------------------------

_REDUCE_MONOIDS = {ew.add: ("add", red.reduce_sum, False), ew.mul: ("mul", red.reduce_prod, False),
                   ew.max: ("max", red.reduce_max, False), ew.min: ("min", red.reduce_min, False),
                   ew.bitwise_or: ("or", red.reduce_or, True),
                   ew.bitwise_and: ("and", red.reduce_and, True),
                   ew.bitwise_xor: ("xor", red.reduce_xor, True)}


def reduce(operands, init_values, computation: Callable, dimensions: Sequence[int]):
  """Reduce ``dimensions`` of ``operands`` with ``computation``, starting from ``init_values``.

  ``init_values`` and ``computation`` must form a monoid (an identity and an associative
  operation): XLA combines elements in any order. Several operands (a pytree) reduce together,
  e.g. (value, index) pairs for an argmax.

  Example:
      >>> import numpy as np
      >>> from ember import lax
      >>> lax.reduce(np.arange(6, dtype=np.float32).reshape(2, 3), 0., lambda a, b: a + 2 * b,
      ...            (1,))
      Array([ 6., 24.], dtype=float32)
  """
  flat_ops, flat_inits, tree = _flatten_pair("reduce", operands, init_values)
  dimensions = _ints(dimensions, "reduce dimensions")
  reducer = _monoid(computation, flat_inits, _REDUCE_MONOIDS)
  if reducer is not None:
    (x,), (init,) = flat_ops, flat_inits
    weak = dtypes.is_weakly_typed(x) and dtypes.is_weakly_typed(init)
    out = reducer(x, dimensions)
    aval = core.get_aval(out)
    if aval.weak_type != weak:
      out = ew._convert_element_type(out, aval.dtype, weak)
    return pytree.unflatten(tree, [out])
  avals = [core.get_aval(i) for i in flat_inits]
  win.check_reduce_inits([core.get_aval(x) for x in flat_ops], avals)
  closed, out_tree = _trace_computation("reduce", computation, avals, tree)
  outs = reduce_p.bind(*flat_ops, *flat_inits, computation=computation, jaxpr=closed,
                       dimensions=dimensions)
  return pytree.unflatten(out_tree, outs)
