"""What the control-flow primitives share: tracing the user's functions, JAX's type checks and
messages, and the jaxpr transformations behind their rules.

Each primitive (``cond``, ``while``, ``scan``) carries closed jaxprs without consts as
parameters: the values a user's function closes over become leading operands (so closing over
an outer transform's tracers works). The rules transform those jaxprs the same few ways, written
once here:

- ``jvp_jaxpr``: (primals, nonzero tangents) -> (primals, tangents), with a chosen set of output
  tangents instantiated, reporting which output tangents are nonzero;
- ``partial_eval_jaxpr``: split into a known part (known inputs -> known outputs + residuals) and
  an unknown part (residuals + unknown inputs -> unknown outputs), with outputs forced unknown;
- ``fixed_point``: the loops' carries (nonzero tangent, unknown, batched) are found by iterating
  the body's rule until nothing changes.

Derived jaxprs are cached on (jaxpr, pattern), so eager calls reuse their executables.
"""
from __future__ import annotations

import inspect
import weakref
from typing import Callable, Sequence

from ember import dtypes, pytree
from ember.pytree.differences import describe_nodes, structure_differences
from ember.config import config
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.cache import BoundedCache
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Var, hoist_consts
from ember.transforms.jit_rules import PartialEval, partial_eval_jaxpr  # noqa: F401 (re-exported)
from ember.transforms.jvp import jvp_jaxpr as _jvp_jaxpr
from ember.transforms.staging import DebugInfo, trace_to_jaxpr

__all__ = ["Traced", "trace_fun", "operand_avals", "join_consts", "check_carry",
           "check_branch_outputs", "promote_weak_inits", "transformed", "trace_flat", "permute",
           "jvp_jaxpr", "PartialEval", "partial_eval_jaxpr", "fixed_point", "split", "aval_str"]


def split(xs: Sequence, *sizes: int) -> list[list]:
  """``xs`` cut into consecutive pieces of ``sizes``, plus the rest."""
  out, start = [], 0
  for n in sizes:
    out.append(list(xs[start:start + n]))
    start += n
  out.append(list(xs[start:]))
  return out


def aval_str(aval: ShapedArray) -> str:
  """How JAX's messages print a type: ``float32[3]``, ``~float32[]`` when weakly typed."""
  return ("~" if aval.weak_type else "") + aval.str_short(short_dtypes=False)


# --- tracing the user's functions ---------------------------------------------------------------

class Traced:
  """A user function traced for a primitive: a const-free jaxpr whose leading invars stand for
  ``consts`` (what the function closes over), and the function's output tree."""
  __slots__ = ("jaxpr", "consts", "out_tree", "cached", "__weakref__")

  def __init__(self, jaxpr: ClosedJaxpr, consts: list, out_tree):
    self.jaxpr, self.consts, self.out_tree = jaxpr, consts, out_tree
    self.cached = False  # kept for later calls (then derived jaxprs may be cached too)

  @property
  def out_avals(self) -> list[ShapedArray]:
    return self.jaxpr.out_avals


# Per function (weakly held, as JAX does): its traces by input types. A function called again
# with the same types reuses its jaxpr, so eager calls reuse the compiled program; like JAX, a
# changed global it reads is not seen (functions must be pure).
_traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def trace_fun(fun: Callable, in_tree, in_avals: Sequence[ShapedArray], what: str, *,
              owner=None, tag=None) -> Traced:
  """Trace ``fun(*unflatten(in_tree, args))`` at ``in_avals`` for the primitive ``what``.

  ``owner``/``tag`` name the cache entry when ``fun`` is a fresh wrapper of a user function
  (``fori_loop``'s body), so repeated calls still share one trace.
  """
  key = (tag, in_tree, tuple(in_avals), what, config.trace_key, core.axis_env())
  try:
    per_fun = _traces.get(fun if owner is None else owner)
    hit = None if per_fun is None else per_fun.get(key)
  except TypeError:  # not weakly referenceable or not hashable: trace every time
    per_fun = hit = False
  if hit:
    return hit
  out_tree_box = []

  def flat(*xs):
    leaves, tree = pytree.flatten(fun(*pytree.unflatten(in_tree, xs)))
    _check_jax_types(fun, what, leaves, tree)
    out_tree_box.append(tree)
    return leaves

  closed = trace_to_jaxpr(flat, in_avals, DebugInfo(what, fun))
  closed.jaxpr.debug_info = None  # the cache must not keep the function alive
  traced = Traced(*hoist_consts(closed), out_tree_box[0])
  if per_fun is not False and not any(isinstance(c, core.Tracer) for c in traced.consts):
    if per_fun is None:
      per_fun = _traces[fun if owner is None else owner] = {}
    if len(per_fun) > 32:
      per_fun.clear()
    per_fun[key] = traced
    traced.cached = True
  return traced


def _check_jax_types(fun, what: str, leaves, tree) -> None:
  for i, x in enumerate(leaves):
    try:
      core.get_aval(x)
    except TypeError:
      path = pytree.keystr(pytree.tree_flatten_with_path(tree.unflatten(range(len(leaves))))
                           [0][i][0])
      where = f" at output component {path}" if path else ""
      raise TypeError(f"function {DebugInfo(what, fun).func_src} traced for {what} returned a "
                      f"value of type {type(x)}{where}, which is not a valid JAX type") from None


def operand_avals(leaves: Sequence) -> list[ShapedArray]:
  """The avals of a primitive's operands, with JAX's error for values that are not arrays."""
  avals = []
  for x in leaves:
    try:
      avals.append(core.get_aval(x))
    except TypeError:
      raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type") from None
  return avals


_joins = BoundedCache(256)


def join_consts(traced: Sequence[Traced]) -> tuple[list[ClosedJaxpr], list]:
  """Jaxprs (one per branch) that all take every branch's consts (each distinct value once)
  before their own operands; returns them and the consts."""
  key = tuple(traced)
  hit = _joins.get(key)
  if hit is not None:
    return hit
  consts, index = [], {}
  for t in traced:
    for c in t.consts:
      if id(c) not in index:
        index[id(c)] = len(consts)
        consts.append(c)
  jaxprs = []
  for t in traced:
    j = t.jaxpr.jaxpr
    own = dict(zip([index[id(c)] for c in t.consts], j.invars))
    invars = [own[i] if i in own else Var(core.get_aval(c)) for i, c in enumerate(consts)]
    jaxprs.append(ClosedJaxpr(Jaxpr([], invars + j.invars[len(t.consts):], j.outvars, j.eqns),
                              []))
  out = (jaxprs, consts)
  if all(t.cached for t in traced):
    _joins[key] = out
  return out


# --- JAX's checks and messages ------------------------------------------------------------------

def _structure_detail(t1, t2, name1: Callable, name2: Callable, leaf: str) -> str:
  path, kind = structure_differences(t1, t2)[0]
  d1, d2, why = describe_nodes(t1, t2, path, kind, leaf)
  return f"{name1(path)} is {d1} but {name2(path)} is {d2}, so {why}"


def _type(aval: ShapedArray) -> str:
  return aval.str_short(short_dtypes=False)


def _mismatch(a: ShapedArray, b: ShapedArray) -> str:
  reasons = []
  if a.dtype != b.dtype:
    reasons.append("the dtypes do not match")
  if a.shape != b.shape:
    reasons.append("the shapes do not match")
  if a.vma != b.vma:
    reasons.append("the manual axis types do not match")
  return ", ".join(reasons[:-1]) + ", and " + reasons[-1] if len(reasons) > 1 else reasons[0]


def _differ(a: ShapedArray, b: ShapedArray) -> bool:
  return (a.shape, a.dtype, a.vma) != (b.shape, b.dtype, b.vma)


def _leaf_paths(tree, n: int) -> list[str]:
  return [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(tree.unflatten(range(n)))[0]]


def _type_diffs(tree, avals1, avals2, sentence: Callable) -> str | None:
  """JAX's list of leaves whose shapes, dtypes or varying mesh axes differ (weak types may
  differ), or None."""
  diffs = [sentence(p, a, b) + f", so {_mismatch(a, b)}"
           for p, a, b in zip(_leaf_paths(tree, len(avals1)), avals1, avals2) if _differ(a, b)]
  if not diffs:
    return None
  if len(diffs) == 1:
    return diffs[0][0].upper() + diffs[0][1:] + "."
  return ";\n".join(f"  * {d}" for d in diffs) + "."


def _pcast_hint(fixes: list[str], loop: bool) -> str:
  """JAX's advice to make a value vary (shard_map), after a type mismatch of varying axes
  (worded for a loop's carry or for cond's branches, as JAX words each)."""
  if not fixes:
    return ""
  if len(fixes) == 1:
    hint = f"This might be fixed by {fixes[0]}.\n"
  elif loop:
    hint = "This might be fixed by:\n" + "\n".join(f"  * {d};\n" for d in fixes[:-1]) + \
        f"  * {fixes[-1]}.\n"
  else:
    hint = "This might be fixed by:\n" + "\n".join(f"  * {d};" for d in fixes[:-1]) + \
        f"\n  * {fixes[-1]}.\n"
  return hint + ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
                 "more information.\n\n")


def _more_axes(a: ShapedArray, b: ShapedArray) -> tuple:
  """The axes ``b`` varies over and ``a`` does not (mesh order)."""
  return tuple(n for n in b.vma.names if n not in a.vma)


def _first_param(fun) -> str:
  try:
    params = list(inspect.signature(fun).parameters)
  except (TypeError, ValueError):
    params = []
  return params[0] if params else "carry"


def check_carry(what: str, fun, in_tree, in_avals, out_tree, out_avals) -> None:
  """The body of ``what`` (scan, while_loop) must return a carry of its input's tree and types."""
  name = _first_param(fun)
  comp = lambda p: f"{name}" if not p else f"component {name}{p}"  # noqa: E731
  if in_tree != out_tree:
    detail = _structure_detail(in_tree, out_tree, lambda p: f"The input carry {comp(p)}",
                               lambda p: "the corresponding component of the carry output",
                               f"a {ShapedArray}")
    raise TypeError(f"{what} body function carry input and carry output must have the same "
                    f"pytree structure, but they differ:\n\n{detail}.\n\nRevise the function so "
                    "that the carry output has the same pytree structure as the carry input.")
  diffs = _type_diffs(in_tree, in_avals, out_avals, lambda p, a, b: (
      f"the input carry {comp(p)} has type {_type(a)} but the corresponding output carry "
      f"component has type {_type(b)}"))
  if diffs:
    fixes = [f"applying `jax.lax.pcast(..., {_more_axes(a, b)}, to='varying')`, to the initial "
             f"carry value corresponding to the input carry {comp(p)}"
             for p, a, b in zip(_leaf_paths(in_tree, len(in_avals)), in_avals, out_avals)
             if _differ(a, b) and _more_axes(a, b)]
    raise TypeError(f"{what} body function carry input and carry output must have equal types, "
                    f"but they differ:\n\n{diffs}\n\n{_pcast_hint(fixes, True)}"
                    "Revise the function so that all output types match the corresponding "
                    "input types.")


def check_branch_outputs(what: str, funs, names, traced: Sequence[Traced]) -> None:
  """Every branch must return the tree and types of the first (weak types may differ)."""
  for f, n, t in zip(funs[1:], names[1:], traced[1:]):
    _check_branch_pair(what, funs[0], names[0], traced[0], f, n, t)


def _check_branch_pair(what, f0, n0, t0, f, n, t) -> None:
  srcs = f"{n0} is {DebugInfo(what, f0).func_src}\n{n} is {DebugInfo(what, f).func_src}"
  at = lambda p: f" at path {p}" if p else ""  # noqa: E731
  if t0.out_tree != t.out_tree:
    detail = _structure_detail(t0.out_tree, t.out_tree, lambda p: f"{n0} output{at(p)}",
                               lambda p: f"{n} output{at(p)}", "a pytree leaf")
    raise TypeError(f"{what} branch outputs must have the same pytree structure, but they "
                    f"differ:\n\n{srcs}\n\n{detail}.\n\nRevise {n0} and/or {n} so that they "
                    "have the same pytree structure.")
  diffs = _type_diffs(t0.out_tree, t0.out_avals, t.out_avals, lambda p, a, b: (
      f"the output of {n0}{at(p)} has type {_type(a)} but the corresponding output of {n} "
      f"has type {_type(b)}"))
  if diffs:
    paths = _leaf_paths(t0.out_tree, len(t0.out_avals))
    fixes = [f"applying `jax.lax.pcast(..., {_more_axes(a, b)}, to='varying')` to the output "
             f"of {name}{at(p)}"
             for p, a0, a1 in zip(paths, t0.out_avals, t.out_avals) if _differ(a0, a1)
             for name, a, b in ((n, a1, a0), (n0, a0, a1)) if _more_axes(a, b)]
    raise TypeError(f"{what} branches must have equal output types but they differ.\n\n{srcs}"
                    f"\n\n{diffs}\n\n{_pcast_hint(fixes, False)}Revise {n0} and/or {n} so "
                    "that all output types match.")


def promote_weak_inits(vals: list, in_avals, out_avals) -> tuple[list, bool]:
  """A weakly typed initial carry whose dtype differs from the body's output takes the promoted
  dtype, as in JAX (``fori_loop(0, n, f, 0.)`` with a float16 body runs in float16)."""
  from ember import lax
  if len(vals) != len(out_avals):
    return vals, False
  out, changed = list(vals), False
  for i, (x, a, b) in enumerate(zip(vals, in_avals, out_avals)):
    if a.weak_type and (a.shape, a.dtype) != (b.shape, b.dtype):
      out[i] = lax._convert_element_type(x, dtypes.result_type(a, b))
      changed = True
  return out, changed


# --- jaxpr transformations for the rules -------------------------------------------------------

# the loops' and branches' transformed jaxprs (jvp, partial eval, transpose, batch), by jaxpr
# and what the rule was given
transformed = BoundedCache(1024)


def trace_flat(fun: Callable, avals: Sequence[ShapedArray]) -> tuple[ClosedJaxpr, list]:
  """``fun`` of flat arguments traced to a const-free jaxpr and the consts it needs first."""
  closed = trace_to_jaxpr(fun, list(avals))
  return hoist_consts(closed)


def permute(closed: ClosedJaxpr, in_order: Sequence[int], out_order: Sequence[int] | None = None
            ) -> ClosedJaxpr:
  """The same computation with its inputs (and outputs) in the given order."""
  j = closed.jaxpr
  outvars = j.outvars if out_order is None else [j.outvars[i] for i in out_order]
  return ClosedJaxpr(Jaxpr([], [j.invars[i] for i in in_order], outvars, j.eqns), [])


def fixed_point(flags: list[bool], step: Callable[[list[bool]], Sequence[bool]]) -> list[bool]:
  """Grow ``flags`` (one per loop carry) by ``step``'s per-carry outputs until stable."""
  while True:
    new = [f or s for f, s in zip(flags, step(flags))]
    if new == flags:
      return flags
    flags = new


def jvp_jaxpr(closed: ClosedJaxpr, nonzero: Sequence[bool], instantiate_out: Sequence[bool]):
  """``transforms.jvp.jvp_jaxpr``, cached: ``((jaxpr, consts), out_nonzero)``."""
  return transformed.memo(("jvp", closed, tuple(nonzero), tuple(instantiate_out)),
                          lambda: _jvp_jaxpr(closed, nonzero, instantiate_out))
