"""Forward-mode differentiation: jvp(f, x, t) = (f(x), df(x)[t]).

A ``JVPTracer`` carries a primal value and its tangent (a value or a symbolic ``Zero``). The trace
applies each primitive's ``jvp`` rule with its parent trace installed; when no operand carries a
nonzero tangent, the primitive is simply bound on the parent.

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.jvp(jnp.sin, (0.0,), (2.0,))
    (Array(0., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, NameTransform, hoist_consts
from ember.transforms.ad_util import (Zero, tangent_aval, instantiate, float0, flatten_fun,
                                      split_aux)
from ember.transforms.staging import trace_to_jaxpr
from ember._src.traceback_util import api_boundary

__all__ = ["JVPTrace", "JVPTracer", "jvp", "jvp_flat"]


class JVPTracer(core.Tracer):
  __slots__ = ("primal", "tangent")

  def __init__(self, trace: "JVPTrace", primal, tangent):
    self._trace = trace
    self.primal = primal
    self.tangent = tangent

  @property
  def aval(self) -> ShapedArray:
    return core.get_aval(self.primal)

  def to_concrete_value(self):
    return core.concrete_value(self.primal)

  def _origin_msg(self) -> str:
    return getattr(self.primal, "_origin_msg", lambda: "")()


class JVPTrace(core.Trace):
  __slots__ = ()

  def __repr__(self):
    return "JVPTrace"

  def unpack(self, x):
    if isinstance(x, JVPTracer) and x._trace is self:
      return x.primal, x.tangent
    return x, Zero(tangent_aval(core.get_aval(x)))

  def process_primitive(self, prim: core.Primitive, args: tuple, params: dict):
    primals, tangents = [], []
    for x in args:
      p, t = self.unpack(x)
      primals.append(p)
      tangents.append(t)
    with core.set_current_trace(self.parent):
      if all(type(t) is Zero for t in tangents):
        return prim.bind(*primals, **params)
      primal_out, tangent_out = prim.rule("jvp")(primals, tangents, **params)
    if prim.multiple_results:
      return [self.wrap(p, t) for p, t in zip(primal_out, tangent_out)]
    return self.wrap(primal_out, tangent_out)

  def wrap(self, primal, tangent):
    if type(tangent) is Zero:
      return primal
    return JVPTracer(self, primal, tangent)


def _check_tangent(primal, tangent, i: int):
  p_aval = core.get_aval(primal)
  t_aval = core.get_aval(tangent) if type(tangent) is not Zero else tangent.aval
  expected = tangent_aval(p_aval)
  if t_aval.shape != p_aval.shape:
    raise ValueError(f"jvp called with different primal and tangent shapes: got primal shape "
                     f"{p_aval.shape} and tangent shape {t_aval.shape} at position {i}.")
  if t_aval.dtype != expected.dtype and not (expected.dtype == float0 and t_aval.dtype == float0):
    raise TypeError(
        f"primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case "
        f"of int/bool primal dtype the tangent dtype must be float0. Got primal dtype "
        f"{p_aval.dtype.name} and so expected tangent dtype {expected.dtype.name}, but got "
        f"tangent dtype {t_aval.dtype.name} instead (at position {i}).")


_JVP = NameTransform("jvp")  # staged equations are named jvp(scope), as in JAX


@core.leak_checked
def jvp_flat(fun: Callable, primals: Sequence, tangents: Sequence):
  """jvp of a function of flat arguments returning a flat list; returns (primals_out,
  tangents_out) with tangents possibly ``Zero``."""
  trace = JVPTrace(core.current_trace())
  ins = [trace.wrap(p, t) for p, t in zip(primals, tangents)]
  with core.set_current_trace(trace), core.extend_name_stack(_JVP):
    outs = fun(*ins)
  primals_out, tangents_out = [], []
  for x in outs:
    p, t = trace.unpack(x)
    primals_out.append(p)
    tangents_out.append(t)
  return primals_out, tangents_out


def _as_tangent_value(t, aval):
  """An output tangent as jvp returns it: zeros made real; a value passed through unchanged
  (a Python or NumPy tangent of an output that is an input stays one, as in JAX)."""
  if type(t) is Zero:
    if aval.dtype == float0:
      return np.zeros(aval.shape, float0)
    return instantiate(t)
  return t


@api_boundary
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
  """Evaluate ``fun`` at ``primals`` and its derivative along ``tangents``.

  Args:
    fun: a function of arrays (pytrees allowed) returning arrays.
    primals, tangents: tuples (or lists) of the arguments and their tangents, same structure.
    has_aux: if True, ``fun`` returns ``(out, aux)`` and aux is returned unchanged.

  Returns:
    ``(primals_out, tangents_out)`` (plus ``aux`` when ``has_aux``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jvp(lambda x: x * x, (3.0,), (1.0,))
      (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
  """
  if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
    raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                    f"{type(primals).__name__} and {type(tangents).__name__}.")
  p_leaves, p_tree = pytree.flatten(tuple(primals))
  t_leaves, t_tree = pytree.flatten(tuple(tangents))
  if p_tree != t_tree:
    raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                    f"structure; primals have tree structure {p_tree} whereas tangents have "
                    f"tree structure {t_tree}.")
  for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
    _check_tangent(p, t, i)
  aux_box, out_box = [], []
  flat_fun = flatten_fun(fun, p_tree, has_aux, aux_box, out_box)
  t_in = [t if not (isinstance(t, np.ndarray) and t.dtype == float0) else
          Zero(tangent_aval(core.get_aval(p))) for p, t in zip(p_leaves, t_leaves)]
  p_out, t_out = jvp_flat(flat_fun, p_leaves, t_in)
  p_main, aux = split_aux(p_out, aux_box, has_aux)  # aux leaves leave as primal values
  t_out = [_as_tangent_value(t, tangent_aval(core.get_aval(p)))
           for p, t in zip(p_main, t_out[:len(p_main)])]
  result = (pytree.unflatten(out_box[0], p_main), pytree.unflatten(out_box[0], t_out))
  return result + (aux,) if has_aux else result


def jvp_jaxpr(closed: ClosedJaxpr, nonzero: Sequence[bool],
              instantiate_out: Sequence[bool] | bool = True):
  """The jvp of a closed jaxpr as a jaxpr of (primals, tangents of the ``nonzero`` inputs) ->
  (primal outputs, tangents of the nonzero outputs), the rule call primitives (jit, cond, scan,
  while, checkpoint...) bind. An output's tangent is nonzero when the jvp makes it so or it is
  instantiated, never when its type is float0. Returns ``((jaxpr, consts), out_nonzero)``."""
  in_avals, n = closed.in_avals, len(closed.in_avals)
  out_t_avals = [tangent_aval(a) for a in closed.out_avals]
  if isinstance(instantiate_out, bool):
    instantiate_out = [instantiate_out] * len(out_t_avals)
  box = []

  def fun(*xs):
    ts = iter(xs[n:])
    tangents = [next(ts) if nz else Zero(tangent_aval(a)) for a, nz in zip(in_avals, nonzero)]
    p_out, t_out = jvp_flat(lambda *a: eval_jaxpr(closed.jaxpr, closed.consts, *a), xs[:n],
                            tangents)
    keep = [(type(t) is not Zero or inst) and a.dtype != float0
            for t, a, inst in zip(t_out, out_t_avals, instantiate_out)]
    box.append(keep)
    return list(p_out) + [instantiate(t, a) for t, a, k in zip(t_out, out_t_avals, keep) if k]

  t_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
  return hoist_consts(trace_to_jaxpr(fun, list(in_avals) + t_avals)), box[0]
