"""User-defined derivatives and gradient control: custom_jvp, custom_vjp, custom_gradient,
closure_convert, stop_gradient (checkpoint is transforms/checkpoint.py).

Each is a primitive carrying a traced jaxpr of the function; the differentiation rules call the
user's rule, and every other transform sees an ordinary call.

Example:
    >>> import ember, ember.numpy as jnp
    >>> @ember.custom_jvp
    ... def f(x):
    ...   return jnp.sin(x)
    >>> @f.defjvp
    ... def f_jvp(primals, tangents):
    ...   return f(primals[0]), 2.0 * tangents[0]
    >>> ember.grad(f)(0.3)
    Array(2., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Callable, Sequence

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.literals import canonicalize_value, is_valid_value
from ember.core.eval import eval_jaxpr
from ember.core.jaxpr import ClosedJaxpr, Jaxpr
from ember.backend import lowering
from ember.transforms.ad_util import (Zero, instantiate, tangent_aval, float0)
from ember.transforms import batching
from ember.transforms.custom_bwd import bwd_cotangents
from ember.transforms.staging import fun_name, trace_to_jaxpr
from ember.core.jaxpr import hoist_consts
from ember._src.traceback_util import api_boundary

__all__ = ["custom_jvp", "custom_vjp", "custom_gradient", "closure_convert", "stop_gradient",
           "SymbolicZero", "CustomVJPPrimal", "zero_from_primal", "custom_vjp_primal_tree_values"]


def _call_impl(*args, call_jaxpr: ClosedJaxpr, **_):
  return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


def _call_lower(ctx, *args, call_jaxpr: ClosedJaxpr, **_):
  consts = [ctx.constant(c, v.aval) for c, v in zip(call_jaxpr.consts,
                                                     call_jaxpr.jaxpr.constvars)]
  return lowering.lower_jaxpr(ctx, call_jaxpr.jaxpr, consts, list(args))


def _trace_flat(fun, args, kwargs, what: str):
  leaves, in_tree = pytree.flatten(args)
  out_box = []

  def flat(*xs):
    out = fun(*pytree.unflatten(in_tree, xs), **kwargs)
    o, tree = pytree.flatten(out)
    out_box.append(tree)
    return o

  closed = trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves])
  closed, consts = hoist_consts(closed)
  return closed, consts, leaves, in_tree, out_box[0]


def _named_like(fn: Callable, user_fn: Callable) -> Callable:
  """``fn`` renamed after the user's rule it wraps: jaxprs print rule params by name, and JAX
  shows the user's (``jvp=f_jvp``, ``fwd=f_fwd``, ``bwd=f_bwd``)."""
  fn.__name__ = fn.__qualname__ = fun_name(user_fn)
  return fn


def _split_nondiff(fun, nondiff_argnums, args, kwargs):
  """Bind keyword arguments positionally; return the non-differentiable arguments by position,
  the differentiable ones, and a function rebuilding the full argument list from the latter."""
  if kwargs:
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    args = bound.args
  nondiff = {i: args[i] for i in nondiff_argnums}
  dyn = [a for i, a in enumerate(args) if i not in nondiff]
  nargs = len(args)  # not the arguments themselves: the rules holding this outlive the trace

  def with_nondiff(d):
    it = iter(d)
    return [nondiff[i] if i in nondiff else next(it) for i in range(nargs)]
  return nondiff, dyn, with_nondiff


def _canonical_args(dyn: list, kind: str) -> list:
  """The differentiable arguments as JAX binds them: each leaf canonicalized (a Python number
  typed, a NumPy value at its canonical dtype), so the function and its rules see ``x.dtype``;
  a leaf that is no JAX value is a TypeError, worded as JAX words it for ``kind``."""
  leaves, tree = pytree.flatten(tuple(dyn))
  for i, x in enumerate(leaves):
    if not isinstance(x, core.Tracer) and not is_valid_value(x):
      if kind == "custom_jvp":
        raise TypeError(
            "Error interpreting argument to custom_jvp_call as a JAX value. The problematic value "
            f"is of type {type(x)} and was passed to custom_jvp_call at position {i}.\n")
      raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")
  return list(pytree.unflatten(tree, [canonicalize_value(x) for x in leaves]))


def _runs_eagerly(dyn: list) -> bool:
  """Whether a custom_jvp/custom_vjp function called with ``dyn`` just runs, as in JAX: outside
  every transform, or, when no argument is a tracer, under transforms that hand values that are
  not theirs to the trace below (jvp, linearize, vmap), e.g. a jvp rule calling the function on
  its primals. A staging trace (jit, make_jaxpr) always records the call."""
  trace = core.current_trace()
  if trace is core.EVAL_TRACE:
    return True
  if any(isinstance(x, core.Tracer) for x in pytree.tree_leaves(dyn)):
    return False
  from ember.transforms.jvp import JVPTrace
  from ember.transforms.linearize import LinearizeTrace
  while type(trace) in (JVPTrace, LinearizeTrace, batching.BatchTrace):
    trace = trace.parent
  return trace is core.EVAL_TRACE


def _call_eagerly(fun: Callable, dyn: list):
  """Outside every transform a custom_jvp/custom_vjp function just runs, as in JAX (its outputs
  come back as it returns them, e.g. a Python float); they must still be JAX values."""
  out = fun(*dyn)
  for leaf in pytree.tree_leaves(out):
    core.get_aval(leaf)
  return out


# --- stop_gradient ------------------------------------------------------------------------------

stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_rules(
    abstract_eval=lambda x: x,
    lower=lambda ctx, x: x,
    jvp=lambda primals, tangents: (stop_gradient_p.bind(*primals),
                                   Zero(tangent_aval(core.get_aval(primals[0])))))


stop_gradient_p.def_rules(batch=lambda axis, vals, dims: (stop_gradient_p.bind(*vals), dims[0]))
stop_gradient_p.def_unsupported("transpose", "its jvp gives a zero tangent, so no linear program "
                                "holds it")


def stop_gradient(x):
  """``x`` with zero derivative (on every leaf of a pytree).

  Example:
      >>> import ember
      >>> ember.grad(lambda x: x * ember.lax.stop_gradient(x))(3.0)
      Array(3., dtype=float32, weak_type=True)
  """
  def leaf(v):
    from ember import dtypes
    if not dtypes.is_inexact(core.get_aval(v).dtype):
      return v
    return stop_gradient_p.bind(v)
  return pytree.tree_map(leaf, x)


# --- symbolic zeros -----------------------------------------------------------------------------

class SymbolicZero:
  """A zero tangent or cotangent known without computing it: what a ``custom_jvp`` rule or a
  ``custom_vjp`` bwd defined with ``symbolic_zeros=True`` receives in place of a zero array, and
  may return to say an output's tangent (an input's cotangent) is zero.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.custom_derivatives import SymbolicZero
      >>> z = SymbolicZero.from_primal_value(jnp.ones(2))
      >>> z.shape, z.dtype
      ((2,), dtype('float32'))
  """

  def __init__(self, aval):
    self.aval = aval

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)

  @staticmethod
  def from_primal_value(val) -> "SymbolicZero":
    return SymbolicZero(tangent_aval(core.get_aval(val)))

  def __repr__(self):
    return "SymbolicZero"


def _is_symbolic_zero(x) -> bool:
  return type(x) is SymbolicZero


class CustomVJPPrimal:
  """An argument of a ``custom_vjp`` fwd rule defined with ``symbolic_zeros=True``: the primal
  ``value`` and whether it is ``perturbed`` (has a nonzero tangent).

  Example:
      >>> import ember
      >>> @ember.custom_vjp
      ... def f(x, y):
      ...   return x * y
      >>> def fwd(x, y):
      ...   print(x.perturbed, y.perturbed)
      ...   return x.value * y.value, y.value
      >>> f.defvjp(fwd, lambda y, g: (g * y, None), symbolic_zeros=True)
      >>> ember.grad(f)(2.0, 3.0)
      True False
      Array(3., dtype=float32, weak_type=True)
  """
  __slots__ = ("value", "perturbed")

  def __init__(self, value, perturbed: bool):
    self.value, self.perturbed = value, perturbed

  def __repr__(self):
    return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed!r})"


def custom_vjp_primal_tree_values(tree):
  """``tree`` with each ``CustomVJPPrimal`` leaf replaced by its value (for fwd rules defined
  with ``symbolic_zeros=True``).

  Example:
      >>> from ember.custom_derivatives import CustomVJPPrimal, custom_vjp_primal_tree_values
      >>> custom_vjp_primal_tree_values({"a": CustomVJPPrimal(1.0, True)})
      {'a': 1.0}
  """
  return pytree.tree_map(lambda x: x.value if type(x) is CustomVJPPrimal else x, tree,
                         is_leaf=lambda x: type(x) is CustomVJPPrimal)


def zero_from_primal(val, symbolic_zeros: bool = False):
  """A zero tangent for each leaf of ``val``: ``SymbolicZero`` objects, or arrays of the
  tangent type (float0 for integers and booleans).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.custom_derivatives import zero_from_primal
      >>> zero_from_primal(jnp.ones(2))
      Array([0., 0.], dtype=float32)
  """
  def zero(x):
    aval = tangent_aval(core.get_aval(x))
    return SymbolicZero(aval) if symbolic_zeros else _materialize(Zero(aval))
  return pytree.tree_map(zero, val)


# --- custom_jvp ---------------------------------------------------------------------------------

custom_jvp_call_p = core.Primitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.own_vma = True  # outputs vary over the mesh axes its jaxpr says


def _materialize(t):
  if type(t) is not Zero:
    return t
  return np.zeros(t.aval.shape, float0) if t.aval.dtype == float0 else instantiate(t)


def _custom_jvp_jvp(primals, tangents, *, call_jaxpr, jvp, name, symbolic_zeros, num_consts):
  consts, primals = primals[:num_consts], primals[num_consts:]
  tangents = tangents[num_consts:]
  ts = list(tangents) if symbolic_zeros else [_materialize(t) for t in tangents]
  return jvp(consts, primals, ts)


def _custom_jvp_transpose(cts, *args, call_jaxpr: ClosedJaxpr, **_):
  """Met in a linear program (a custom_jvp function applied to tangents, as a linear solve in
  another rule's tangent computation): transpose the function itself, as JAX does; its rule
  plays no part."""
  from ember.core.jaxpr import Jaxpr
  from ember.transforms.ad_util import is_undefined
  from ember.transforms.linearize import backward_pass
  j = call_jaxpr.jaxpr
  linear = [is_undefined(x) for x in args]
  res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
  as_linear = Jaxpr(list(j.constvars) + res_vars, [v for v, lin in zip(j.invars, linear) if lin],
                    j.outvars, j.eqns)
  ct_ins = iter(backward_pass(as_linear, [*call_jaxpr.consts,
                                          *[x for x, lin in zip(args, linear) if not lin]],
                              list(cts)))
  return [next(ct_ins) if lin else None for lin in linear]


custom_jvp_call_p.def_rules(
    abstract_eval=lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals,
    impl=_call_impl, lower=_call_lower, jvp=_custom_jvp_jvp, transpose=_custom_jvp_transpose,
    pp_params=lambda p: {"name": p["name"], "call_jaxpr": p["call_jaxpr"], "jvp": p["jvp"],
                         "symbolic_zeros": p["symbolic_zeros"]})


def _nondiff_positions(fun: Callable, nondiff_argnums, nondiff_argnames) -> tuple[int, ...]:
  """The positions of ``fun``'s non-differentiable arguments, sorted as JAX sorts them: those
  given, and those of the positional-or-keyword parameters ``nondiff_argnames`` names (JAX
  skips other names silently; ember raises, naming them)."""
  nums = {operator.index(i) for i in nondiff_argnums}
  if nondiff_argnames:
    names = (nondiff_argnames,) if isinstance(nondiff_argnames, str) else tuple(nondiff_argnames)
    params = [k for k, p in inspect.signature(fun).parameters.items()
              if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    unknown = [n for n in names if n not in params]
    if unknown:
      raise ValueError(f"nondiff_argnames {unknown} are not positional-or-keyword parameters of "
                       f"{fun_name(fun)} (it has {params}); name those, or use nondiff_argnums.")
    nums.update(params.index(n) for n in names)
  return tuple(sorted(nums))


def _check_callable(fun, what: str) -> None:
  """A TypeError at decoration time for a ``fun`` that is not a function (JAX fails later, with
  an AttributeError from looking up its ``__name__``)."""
  if not callable(fun):
    raise TypeError(f"{what} expects a callable fun to decorate, got {fun!r} of type "
                    f"{type(fun).__name__}.")


class custom_jvp:
  """A function with a user-defined jvp rule (used by forward and reverse mode alike).

  ``f.defjvp(rule)`` with ``rule(primals, tangents) -> (primal_out, tangent_out)``;
  ``f.defjvps(*fns)`` with one ``fn(tangent_i, primal_out, *primals)`` per argument.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.custom_jvp
      ... def f(x):
      ...   return jnp.sin(x)
      >>> @f.defjvp
      ... def f_jvp(primals, tangents):
      ...   return f(*primals), 2.0 * tangents[0]
      >>> f(1.0), ember.grad(f)(1.0)
      (Array(0.84147096, dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
  """

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (),
               nondiff_argnames: Sequence[str] = ()):
    _check_callable(fun, type(self).__name__)
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)
    self.jvp = None
    self.symbolic_zeros = False

  def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
    self.jvp = jvp
    self.symbolic_zeros = symbolic_zeros
    return jvp

  def defjvps(self, *jvps: Callable | None) -> None:
    def jvp(primals, tangents):
      out = self(*primals)
      acc = None
      for fn, t in zip(jvps, tangents):
        if fn is None:
          continue
        term = fn(t, out, *primals)
        acc = term if acc is None else pytree.tree_map(lambda a, b: a + b, acc, term)
      if acc is None:
        acc = pytree.tree_map(lambda o: o * 0, out)
      return out, acc
    self.defjvp(jvp)

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  @api_boundary
  def __call__(self, *args, **kwargs):
    if self.jvp is None:
      raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using "
                           "defjvp.")
    nondiff, dyn, with_nondiff = _split_nondiff(self.fun, self.nondiff_argnums, args, kwargs)
    dyn = _canonical_args(dyn, "custom_jvp")
    if _runs_eagerly(dyn):
      return _call_eagerly(lambda *d: self.fun(*with_nondiff(d)), dyn)

    closed, consts, leaves, in_tree, out_tree = _trace_flat(
        lambda *d: self.fun(*with_nondiff(d)), tuple(dyn), {}, "custom_jvp")
    user_jvp = self.jvp
    n_out = len(closed.out_avals)

    def flat_jvp(c, primals, tangents):
      p_args = pytree.unflatten(in_tree, primals)
      t_args = pytree.unflatten(in_tree, [SymbolicZero(t.aval) if type(t) is Zero else t
                                          for t in tangents])
      nd = [nondiff[i] for i in sorted(nondiff)]
      pair = user_jvp(*nd, tuple(p_args), tuple(t_args))
      rule = f"Custom JVP rule {fun_name(user_jvp)} for function {self.__name__}"
      if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
        raise TypeError(f"{rule} must produce a pair (list or tuple of length two) representing "
                        f"primal and tangent outputs, but got {pair}.")
      out, t_out = pair
      o_leaves, o_tree = pytree.flatten(out)
      t_leaves, t_tree = pytree.flatten(t_out, is_leaf=_is_symbolic_zero)
      t_leaves = [Zero(t.aval) if type(t) is SymbolicZero else t for t in t_leaves]
      if o_tree != t_tree:
        raise TypeError(f"{rule} must produce primal and tangent outputs with equal container "
                        f"(pytree) structures, but got {o_tree} and {t_tree} respectively.")
      if o_tree != out_tree:  # JAX does not check this, and goes on with a wrong output
        raise TypeError(f"{rule} must produce primal outputs with the container (pytree) "
                        f"structure of the function's output {out_tree}, but got {o_tree}.")
      if len(o_leaves) != n_out:
        raise TypeError("custom_jvp rule returned the wrong number of outputs")
      _check_tangent_types(o_leaves, t_leaves)
      return o_leaves, t_leaves

    _named_like(flat_jvp, user_jvp)
    outs = custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=closed, jvp=flat_jvp,
                                  name=self.__name__, symbolic_zeros=self.symbolic_zeros,
                                  num_consts=len(consts))
    return pytree.unflatten(out_tree, outs)


def _check_tangent_types(primals: list, tangents: list) -> None:
  """A custom JVP rule's tangents must have its primals' tangent types (float0 for integers and
  bools), as JAX checks."""
  strong = lambda a: a.update(weak_type=False)  # noqa: E731
  got = [strong(t.aval if type(t) is Zero else core.get_aval(t)) for t in tangents]
  primal = [strong(core.get_aval(p)) for p in primals]
  want = [strong(tangent_aval(a)) for a in primal]
  if all((w.shape, w.dtype) == (g.shape, g.dtype) for w, g in zip(want, got)):
    return
  head = "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and " \
      "dtypes"
  if len(want) == 1:
    raise TypeError(f"{head}. Expected {want[0].str_short()} (tangent type of "
                    f"{primal[0].str_short()}) but got {got[0].str_short()}.")
  lines = [f"  primal {p.str_short()} with tangent {g.str_short()}, expecting tangent "
           f"{w.str_short()}" for p, w, g in zip(primal, want, got)
           if (w.shape, w.dtype) != (g.shape, g.dtype)]
  raise TypeError(f"{head}, but got:\n" + "\n".join(lines))


# --- custom_vjp ---------------------------------------------------------------------------------

custom_vjp_call_p = core.Primitive("custom_vjp_call", multiple_results=True)
custom_lin_p = core.Primitive("custom_lin", multiple_results=True)
custom_vjp_call_p.own_vma = custom_lin_p.own_vma = True


def _custom_vjp_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, name, symbolic_zeros,
                    num_consts):
  primals = primals[num_consts:]
  tangents = tangents[num_consts:]
  out, res = fwd(primals, tuple(type(t) is not Zero for t in tangents))
  # As in JAX, only nonzero tangents are linear inputs (``in_zeros`` marks the others): bwd
  # still returns a cotangent per primal, and the transpose keeps those of the linear inputs.
  nz = tuple(type(t) is not Zero for t in tangents)
  ts = [t for t in tangents if type(t) is not Zero]
  t_out = custom_lin_p.bind(*res, *ts, num_res=len(res), bwd=bwd, nonzero=nz,
                            in_avals=tuple(tangent_aval(core.get_aval(p)) for p in primals),
                            out_avals=tuple(tangent_aval(core.get_aval(o)) for o in out),
                            symbolic_zeros=symbolic_zeros)
  return out, t_out


def _custom_lin_forward(*args, **params):
  """custom_lin stands for a custom_vjp function's tangent map, which only its transpose (the
  bwd rule) defines: evaluating, compiling or batching it is forward mode, an error in JAX."""
  raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, bwd, nonzero, in_avals, out_avals, **_):
  res = args[:num_res]
  cts = [Zero(a) if type(c) is Zero else c for c, a in zip(cts, out_avals)]
  ct_in = bwd(res, cts)  # it instantiates zeros, or hands them to the user as SymbolicZero
  ct_iter = iter(ct_in)
  out = [None] * num_res
  for nz, a in zip(nonzero, in_avals):
    c = next(ct_iter)
    if nz:
      out.append(Zero(a) if c is None else c)
  return out


custom_vjp_call_p.def_rules(
    abstract_eval=lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals,
    impl=_call_impl, lower=_call_lower, jvp=_custom_vjp_jvp,
    pp_params=lambda p: {"name": p["name"], "bwd": p["bwd"], "call_jaxpr": p["call_jaxpr"],
                         "fwd": p["fwd"], "symbolic_zeros": p["symbolic_zeros"]})
custom_vjp_call_p.def_unsupported("transpose", "its jvp stages custom_lin, whose transpose "
                                  "runs the bwd rule")
custom_lin_p.def_rules(
    abstract_eval=lambda *avals, out_avals, **_: list(out_avals),
    impl=_custom_lin_forward, lower=_custom_lin_forward, batch=_custom_lin_forward,
    jvp=_custom_lin_forward, transpose=_custom_lin_transpose,
    pp_params=lambda p: {"bwd": p["bwd"], "in_zeros": [not nz for nz in p["nonzero"]],
                         "num_res": p["num_res"], "symbolic_zeros": p["symbolic_zeros"]})


class custom_vjp:
  """A function with a user-defined vjp: ``f.defvjp(fwd, bwd)`` where ``fwd(*args) -> (out,
  residuals)`` and ``bwd(residuals, ct_out) -> tuple of cts, one per (differentiable) arg``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> @ember.custom_vjp
      ... def clip_gradient(x):
      ...   return x
      >>> clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))
      >>> ember.grad(lambda x: 3.0 * clip_gradient(x))(2.0)
      Array(1., dtype=float32, weak_type=True)
  """

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (),
               nondiff_argnames: Sequence[str] = ()):
    _check_callable(fun, type(self).__name__)
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)
    self.fwd = self.bwd = None
    self.symbolic_zeros = False

  def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
    self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  @api_boundary
  def __call__(self, *args, **kwargs):
    if self.fwd is None:
      raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using "
                           "defvjp.")
    nondiff, dyn, with_nondiff = _split_nondiff(self.fun, self.nondiff_argnums, args, kwargs)
    dyn = _canonical_args(dyn, "custom_vjp")
    if _runs_eagerly(dyn):
      return _call_eagerly(lambda *d: self.fun(*with_nondiff(d)), dyn)

    closed, consts, leaves, in_tree, out_tree = _trace_flat(
        lambda *d: self.fun(*with_nondiff(d)), tuple(dyn), {}, "custom_vjp")
    user_fwd, user_bwd = self.fwd, self.bwd
    nd = [nondiff[i] for i in sorted(nondiff)]
    res_tree_box = []
    leaf_avals = [core.get_aval(x) for x in leaves]  # not the leaves: bwd outlives the trace

    symbolic = self.symbolic_zeros

    def flat_fwd(primals, perturbed=None):  # perturbed: per primal, whether its tangent is nonzero
      if symbolic:
        perturbed = (True,) * len(primals) if perturbed is None else perturbed
        primals = [CustomVJPPrimal(p, bool(z)) for p, z in zip(primals, perturbed)]
      pair = user_fwd(*with_nondiff(pytree.unflatten(in_tree, primals)))
      if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
        rule, fn = fun_name(user_fwd), self.__name__
        raise TypeError(
            f"Custom VJP fwd rule {rule} for function {fn} must produce a pair (list or tuple of "
            f"length two) where the first element represents the primal output (equal to those "
            f"of the custom_vjp-decorated function {fn}) and the second element represents "
            f"residuals (i.e. values stored from the forward pass for use on the backward "
            f"pass), but instead of a pair the fwd rule {rule} produced {pair}.")
      out, res = pair
      o_leaves, o_tree = pytree.flatten(out)
      if o_tree != out_tree:
        raise TypeError(f"Custom VJP fwd rule {fun_name(user_fwd)} for function "
                        f"{self.__name__} must produce a pair (output, residuals) whose output "
                        f"has the structure of the function's output {out_tree}; got {o_tree}.")
      r_leaves, r_tree = pytree.flatten(res)
      res_tree_box[:] = [r_tree]
      return o_leaves, r_leaves

    def flat_bwd(res, cts):
      r = pytree.unflatten(res_tree_box[0], res)
      cts = [(SymbolicZero(c.aval) if symbolic else instantiate(c)) if type(c) is Zero else c
             for c in cts]
      ct = pytree.unflatten(out_tree, cts)
      out = user_bwd(*nd, r, ct) if nd else user_bwd(r, ct)
      return bwd_cotangents(out, in_tree, leaf_avals, SymbolicZero)

    _named_like(flat_fwd, user_fwd), _named_like(flat_bwd, user_bwd)
    outs = custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=closed, fwd=flat_fwd,
                                  bwd=flat_bwd, name=self.__name__,
                                  symbolic_zeros=self.symbolic_zeros, num_consts=len(consts))
    return pytree.unflatten(out_tree, outs)


# --- custom_gradient ----------------------------------------------------------------------------

class _Rule:
  """A custom_gradient's vjp rule traced into a jaxpr: a pytree whose leaves are the values it
  closes over, so it can be a custom_vjp residual."""

  def __init__(self, closed: ClosedJaxpr, ct_tree, in_tree):
    self.closed, self.ct_tree, self.in_tree = closed, ct_tree, in_tree

  def __call__(self, ct):
    leaves, tree = pytree.flatten(ct)
    if tree != self.ct_tree:
      raise TypeError(f"custom_gradient rule called with cotangents of structure {tree}, "
                      f"expected {self.ct_tree}.")
    out = pytree.unflatten(self.in_tree, eval_jaxpr(self.closed.jaxpr, self.closed.consts,
                                                    *leaves))
    return (out,) if pytree.treedef_is_leaf(self.in_tree) else out


pytree.register_pytree_node(
    _Rule, lambda r: (r.closed.consts, (r.closed.jaxpr, r.ct_tree, r.in_tree)),
    lambda aux, consts: _Rule(ClosedJaxpr(aux[0], list(consts)), aux[1], aux[2]))


def custom_gradient(fun: Callable) -> custom_vjp:
  """A ``custom_vjp`` from one function: ``fun(*args)`` returns ``(out, vjp_rule)`` where
  ``vjp_rule(ct_out)`` returns one cotangent per argument (a tuple, or one value for a single
  argument). As in JAX, forward mode (``jvp``) of the result is an error.

  Example:
      >>> import ember
      >>> @ember.custom_gradient
      ... def f(x):
      ...   return x ** 2, lambda g: (g * x,)
      >>> ember.grad(f)(3.0)
      Array(3., dtype=float32, weak_type=True)
  """
  def wrapped_fun(*args, **kwargs):
    return fun(*args, **kwargs)[0]

  def fwd(*args, **kwargs):
    out, rule = fun(*args, **kwargs)
    leaves, out_tree = pytree.flatten(out)
    in_tree_box = []

    def flat_rule(*cts):
      ct_in = rule(pytree.unflatten(out_tree, cts))
      ct_leaves, in_tree = pytree.flatten(ct_in)
      in_tree_box.append(in_tree)
      return ct_leaves

    closed = trace_to_jaxpr(flat_rule, [tangent_aval(core.get_aval(x)) for x in leaves])
    return out, _Rule(closed, out_tree, in_tree_box[0])

  def bwd(rule, ct):
    return rule(ct)

  f = custom_vjp(wrapped_fun)
  f.defvjp(fwd, bwd)
  return f


# --- closure_convert ----------------------------------------------------------------------------

def _maybe_perturbed(x) -> bool:
  """Whether ``x`` may carry a nonzero tangent (so closure_convert must make it an argument)."""
  from ember.transforms.jvp import JVPTracer
  from ember.transforms.staging import JaxprTracer
  if not isinstance(x, core.Tracer):
    return False
  if isinstance(x, JVPTracer) and type(x.tangent) is Zero:
    return _maybe_perturbed(x.primal)
  if isinstance(x, batching.BatchTracer):
    return _maybe_perturbed(x.val)
  if isinstance(x, JaxprTracer):
    return tangent_aval(x.aval).dtype != float0
  return True


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list]:
  """``fun`` with the values it closes over that may be differentiated (tracers of float
  dtype) made explicit: returns ``(converted, consts)`` with ``converted(*args, *consts) ==
  fun(*args)``, for passing closures to ``custom_vjp`` rules and ``custom_root``/
  ``custom_linear_solve``. Other closed-over values stay inside ``converted``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> def f(w):
      ...   converted, consts = ember.closure_convert(lambda x: w * x, 1.0)
      ...   print(len(consts))
      ...   return converted(2.0, *consts)
      >>> ember.jit(f)(3.0)
      1
      Array(6., dtype=float32, weak_type=True)
  """
  leaves, in_tree = pytree.flatten(example_args)
  out_box = []

  def flat(*xs):
    out, tree = pytree.flatten(fun(*pytree.unflatten(in_tree, xs)))
    out_box.append(tree)
    return out

  closed = trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves])
  j = closed.jaxpr
  hoist = [_maybe_perturbed(c) for c in closed.consts]
  kept = ClosedJaxpr(Jaxpr([v for v, h in zip(j.constvars, hoist) if not h],
                           [v for v, h in zip(j.constvars, hoist) if h] + list(j.invars),
                           j.outvars, j.eqns, j.effects, j.debug_info),
                     [c for c, h in zip(closed.consts, hoist) if not h])
  consts = [c for c, h in zip(closed.consts, hoist) if h]
  n_consts, out_tree = len(consts), out_box[0]

  def converted_fun(*args_consts):
    n = len(args_consts) - n_consts
    args, hoisted = args_consts[:n], args_consts[n:]
    a_leaves, a_tree = pytree.flatten(args)
    if a_tree != in_tree:
      raise TypeError(f"closure_convert'ed function called with arguments of structure "
                      f"{a_tree}, expected {in_tree}.")
    return pytree.unflatten(out_tree, eval_jaxpr(kept.jaxpr, kept.consts, *hoisted, *a_leaves))

  converted_fun.__qualname__ = "_closure_convert_for_avals.<locals>.converted_fun"
  return converted_fun, consts


# --- batching ----------------------------------------------------------------------------------
# Each batches its jaxpr with the batch axis of every batched input moved to the front and every
# output batched at the front; the user's rules (jvp, fwd/bwd) are vmapped the same way.

def _front(vals, dims):
  return ([batching.moveaxis(v, d, 0) if d is not None else v for v, d in zip(vals, dims)],
          [None if d is None else 0 for d in dims])


def _batch_call(axis, closed, dims):
  return batching.batch_jaxpr(closed, axis.size, dims, axis.name, axis.spmd_name,
                              out_dims_at=[0] * len(closed.out_avals))


def _per_example_float0(t, d):
  """float0 tangents carry no data: hand vmap an unbatched one of the per-example shape."""
  if isinstance(t, np.ndarray) and t.dtype == float0:
    return np.zeros(t.shape[1:] if d is not None else t.shape, float0), None
  return t, d


def _custom_jvp_batch(axis, vals, dims, *, call_jaxpr, jvp, name, symbolic_zeros, num_consts):
  vals, dims = _front(vals, dims)
  batched, consts, out_dims = _batch_call(axis, call_jaxpr, dims)
  c_dims, p_dims = dims[:num_consts], dims[num_consts:]
  n_new = len(consts)

  def batched_jvp(c, primals, tangents):
    tangents = [_materialize(t) for t in tangents]  # zeros do not cross vmap symbolically
    pairs = [_per_example_float0(t, d) for t, d in zip(tangents, p_dims)]
    tangents, t_dims = [p[0] for p in pairs], [p[1] for p in pairs]
    body = lambda c_, p_, t_: tuple(jvp(c_, p_, t_))  # noqa: E731
    return batching.vmap(body, in_axes=(list(c_dims), list(p_dims), t_dims), out_axes=0,
                         axis_name=axis.name, axis_size=axis.size)(
                             list(c[n_new:]), list(primals), tangents)

  _named_like(batched_jvp, jvp)
  outs = custom_jvp_call_p.bind(*consts, *vals, call_jaxpr=batched, jvp=batched_jvp, name=name,
                                symbolic_zeros=symbolic_zeros, num_consts=n_new + num_consts)
  return outs, out_dims


def _custom_vjp_batch(axis, vals, dims, *, call_jaxpr, fwd, bwd, name, symbolic_zeros,
                      num_consts):
  vals, dims = _front(vals, dims)
  batched, consts, out_dims = _batch_call(axis, call_jaxpr, dims)
  p_dims = dims[num_consts:]
  lanes = dict(axis_name=axis.name, axis_size=axis.size)

  def batched_fwd(primals, perturbed=None):
    return batching.vmap(lambda *p: tuple(fwd(list(p), perturbed)), in_axes=tuple(p_dims),
                         out_axes=0, **lanes)(*primals)

  def batched_bwd(res, cts):
    cts = [instantiate(c) if type(c) is Zero else c for c in cts]
    ct_in = batching.vmap(lambda r, c: list(bwd(r, c)), in_axes=(0, 0), out_axes=0,
                          **lanes)(list(res), list(cts))
    # Inputs the same for every example get the sum of the examples' cotangents.
    return [c if c is None or d is not None else c.sum(0) for c, d in zip(ct_in, p_dims)]

  _named_like(batched_fwd, fwd), _named_like(batched_bwd, bwd)
  outs = custom_vjp_call_p.bind(*consts, *vals, call_jaxpr=batched, fwd=batched_fwd,
                                bwd=batched_bwd, name=name, symbolic_zeros=symbolic_zeros,
                                num_consts=len(consts) + num_consts)
  return outs, out_dims


custom_jvp_call_p.def_rules(batch=_custom_jvp_batch, axis_names=core.refers_to_every_axis)
custom_vjp_call_p.def_rules(batch=_custom_vjp_batch, axis_names=core.refers_to_every_axis)
