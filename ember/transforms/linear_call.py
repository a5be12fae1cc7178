"""linear_call: a function linear in some arguments, with its transpose given by the user.

``linear_call(fun, fun_transpose, residual_args, linear_args)`` calls ``fun(residual_args,
linear_args)``; reverse mode transposes it by calling ``fun_transpose(residual_args, ct_out)``
instead of transposing ``fun``'s operations. The ``linear_call`` primitive carries ``fun``'s
jaxpr (``callee``) and a thunk tracing the transpose on demand; its transpose is another
``linear_call`` whose own transpose is the original, so transposing twice gives ``fun`` back.
The residual arguments are not differentiable, and there is no batching rule (as in JAX).

Example:
    >>> import ember
    >>> from ember.custom_derivatives import linear_call
    >>> f = lambda x: linear_call(lambda r, x: r * x, lambda r, ct: 3 * r * ct, 2.0, x)
    >>> f(1.0), ember.grad(f)(1.0)
    (Array(2., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
"""
from __future__ import annotations

from typing import Callable

from ember import pytree
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr
from ember.backend import lowering
from ember.transforms.ad_util import Zero, instantiate, is_undefined, tangent_aval
from ember.core.jaxpr import hoist_consts
from ember.transforms.staging import trace_to_jaxpr

__all__ = ["linear_call", "linear_call_p"]

linear_call_p = core.Primitive("linear_call", multiple_results=True)


def _trace(fun: Callable, res_tree, lin_tree, res_avals, lin_avals):
  """``fun(res, lin)`` as a const-free jaxpr of (consts, res, lin), its consts and out tree."""
  box = []

  def flat(*xs):
    res = pytree.unflatten(res_tree, xs[:len(res_avals)])
    lin = pytree.unflatten(lin_tree, xs[len(res_avals):])
    out, tree = pytree.flatten(fun(res, lin))
    box.append(tree)
    return out

  closed, consts = hoist_consts(trace_to_jaxpr(flat, list(res_avals) + list(lin_avals)))
  return closed, consts, box[0]


def _memoize(thunk: Callable) -> Callable:
  saved = []

  def memoized():
    if not saved:
      saved.append(thunk())
    return saved[0]
  memoized.__qualname__ = "_memoize.<locals>.memoized"  # as JAX's jaxprs print the thunk
  return memoized


def linear_call(fun: Callable, fun_transpose: Callable, residual_args, linear_args):
  """``fun(residual_args, linear_args)``, transposed (in ``vjp``, ``grad``,
  ``linear_transpose``) by ``fun_transpose(residual_args, ct_out)``, which returns the
  cotangent of ``linear_args``. ``fun`` must be linear in ``linear_args``.

  Example:
      >>> import ember
      >>> from ember.custom_derivatives import linear_call
      >>> f = lambda x: linear_call(lambda r, x: r * x, lambda r, ct: r * ct, 2.0, x)
      >>> ember.linear_transpose(f, 1.0)(1.0)
      (Array(2., dtype=float32, weak_type=True),)
  """
  res, res_tree = pytree.flatten(residual_args)
  lin, lin_tree = pytree.flatten(linear_args)
  res_avals = [core.get_aval(x) for x in res]
  lin_avals = [core.get_aval(x) for x in lin]
  callee, consts, out_tree = _trace(fun, res_tree, lin_tree, res_avals, lin_avals)
  ct_avals = [tangent_aval(a) for a in callee.out_avals]

  def transpose_thunk():
    t_closed, t_consts, t_tree = _trace(fun_transpose, res_tree, out_tree, res_avals, ct_avals)
    if t_tree != lin_tree:
      raise TypeError(f"linear_call transpose function must return a cotangent with the "
                      f"structure of linear_args {lin_tree}, got {t_tree}.")
    return t_closed, t_consts

  outs = linear_call_p.bind(*consts, *res, *lin, callee=callee,
                            transpose_thunk=_memoize(transpose_thunk),
                            num_callee_consts=len(consts), num_res=len(res))
  return pytree.unflatten(out_tree, outs)


def _linear_call_impl(*args, callee: ClosedJaxpr, **_):
  return eval_jaxpr(callee.jaxpr, callee.consts, *args)


def _linear_call_lower(ctx, *args, callee: ClosedJaxpr, **_):
  return lowering.lower_jaxpr(ctx, callee.jaxpr, [], list(args))


def _linear_call_jvp(primals, tangents, *, callee, transpose_thunk, num_callee_consts, num_res):
  params = dict(callee=callee, transpose_thunk=transpose_thunk,
                num_callee_consts=num_callee_consts, num_res=num_res)
  n_fixed = num_callee_consts + num_res
  if any(type(t) is not Zero for t in tangents[:n_fixed]):
    raise TypeError("linear_call: the residual arguments are not differentiable; only "
                    "linear_args may depend on the differentiated inputs.")
  outs = linear_call_p.bind(*primals, **params)
  lin_ts = [instantiate(t) for t in tangents[n_fixed:]]
  return outs, linear_call_p.bind(*primals[:n_fixed], *lin_ts, **params)


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
  consts, res = args[:num_callee_consts], args[num_callee_consts:num_callee_consts + num_res]
  lin = args[num_callee_consts + num_res:]
  if any(is_undefined(x) for x in (*consts, *res)):
    raise TypeError("linear_call: the residual arguments are not differentiable.")
  t_closed, t_consts = transpose_thunk()
  cts = [instantiate(c) if type(c) is Zero else c for c in cts]
  held = None if any(isinstance(c, core.Tracer) for c in consts) else list(consts)

  def back():  # transposing the transpose gives the callee back (its consts are kept if known)
    if held is None:
      raise NotImplementedError("linear_call: transposing a transposed linear_call whose "
                                "function closes over traced values is not implemented.")
    return callee, held
  back = _memoize(back)
  back.__qualname__ = "_linear_call_transpose_rule.<locals>.new_transpose_thunk"
  ct_lin = linear_call_p.bind(*t_consts, *res, *cts, callee=t_closed, transpose_thunk=back,
                              num_callee_consts=len(t_consts), num_res=num_res)
  return [None] * (num_callee_consts + num_res) + [
      Zero(x.aval) if type(c) is Zero else c for c, x in zip(ct_lin, lin)]


def _linear_call_pp_params(params: dict) -> dict:
  from ember.transforms.remat_policies import pp_policy  # masks the thunk's address
  return {"callee": params["callee"], "num_callee_consts": params["num_callee_consts"],
          "num_res": params["num_res"],
          "transpose_thunk": pp_policy(params["transpose_thunk"])}


linear_call_p.def_rules(abstract_eval=lambda *avals, callee, **_: callee.out_avals,
                        impl=_linear_call_impl, lower=_linear_call_lower, jvp=_linear_call_jvp,
                        transpose=_linear_call_transpose)
linear_call_p.def_unsupported("batch",
                              "Batching rule for 'linear_call' not implemented (nor in JAX)")
linear_call_p.def_rules(pp_params=_linear_call_pp_params)
