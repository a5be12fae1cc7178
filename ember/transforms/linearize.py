"""Reverse mode: linearize = jvp + partial evaluation; vjp = linearize + transposition;
grad = vjp with a cotangent of one.

``LinearizeTrace`` is a staging trace that stages only the equations that depend on its inputs
(the tangents) and evaluates every other one on its parent trace. Running ``jvp`` on top of it
therefore computes the primal outputs (concretely, or on the enclosing trace) and records the
tangent computation as a jaxpr that is linear in its inputs; its consts are the residuals.
``backward_pass`` runs that jaxpr backwards with the primitives' transpose rules.

Example:
    >>> import ember, ember.numpy as jnp
    >>> ember.grad(lambda x: jnp.sin(x) * x)(1.0)
    Array(1.3817732, dtype=float32, weak_type=True)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ember import dtypes, pytree
from ember.pytree.differences import describe_nodes, structure_differences
from ember.core import trace as core
from ember.core.aval import ShapedArray
from ember.core.literals import canonicalize_value
from ember.core.jaxpr import (ClosedJaxpr, Jaxpr, Literal, NameTransform, Var, hoist_consts,
                              literal_value)
from ember.transforms.ad_util import (Zero, UndefinedPrimal, add_tangents, instantiate,
                                      flatten_fun as _flatten_fun, split_aux as _split_aux,
                                      tangent_aval, float0)
from ember.transforms.jvp import jvp_flat
from ember.transforms.staging import DebugInfo, DynamicJaxprTrace, JaxprTracer, trace_to_jaxpr
from ember._src.traceback_util import api_boundary
from ember.transforms.ops import ops

__all__ = ["LinearizeTrace", "linearize_flat", "backward_pass", "linearize", "vjp", "grad",
           "value_and_grad", "linear_transpose"]


class LinearizeTrace(DynamicJaxprTrace):
  """Stages what depends on its inputs; evaluates everything else on the parent trace."""
  __slots__ = ()

  def __repr__(self):
    return "LinearizeTrace"

  def process_primitive(self, prim: core.Primitive, args: tuple, params: dict):
    if not any(type(x) is JaxprTracer and x._trace is self for x in args):
      with core.set_current_trace(self.parent):
        return prim.bind(*args, **params)
    if prim.partial_eval is not None:
      return prim.partial_eval(self, args, params)
    return super().process_primitive(prim, args, params)

  def is_unknown(self, x) -> bool:
    return type(x) is JaxprTracer and x._trace is self

  def stage(self, prim: core.Primitive, args: Sequence, params: dict):
    """Record ``prim`` applied to ``args`` (some of them this trace's tracers)."""
    return DynamicJaxprTrace.process_primitive(self, prim, tuple(args), params)


@core.leak_checked
def linearize_flat(fun: Callable, primals: Sequence):
  """``fun``'s outputs at ``primals`` and its linearization as a closed jaxpr mapping input
  tangents to output tangents (its consts are the residuals)."""
  parent = core.current_trace()
  lin = LinearizeTrace(parent)
  in_avals = [tangent_aval(core.get_aval(p)) for p in primals]
  args = [lin.new_arg(a) for a in in_avals]  # one input per primal, float0 ones unread
  tangents = [Zero(a) if a.dtype == float0 else t for t, a in zip(args, in_avals)]
  try:
    with core.set_current_trace(lin):
      primals_out, tangents_out = jvp_flat(fun, primals, tangents)
    if any(lin.is_unknown(p) for p in primals_out):  # e.g. a custom_vmap function's outputs
      raise ValueError(
          "Linearization failed to produce known values for all output primals. This is "
          "typically caused by attempting to differentiate a function uses an operation that "
          "does not support reverse-mode autodiff.")
    out_avals = [tangent_aval(core.get_aval(p)) for p in primals_out]
    zero_out = [type(t) is Zero for t in tangents_out]
    with core.set_current_trace(lin):
      t_vals = [_zeros(a) if z else t for t, a, z in zip(tangents_out, out_avals, zero_out)]
    closed = lin.to_jaxpr(t_vals)
  finally:
    lin.alive = False
  return primals_out, closed, out_avals


def _zeros(aval: ShapedArray):
  if aval.dtype == float0:
    return np.zeros(aval.shape, float0)
  return instantiate(Zero(aval))


def _is_linear(v, linear: set) -> bool:
  return isinstance(v, Var) and id(v) in linear


_TRANSPOSE = NameTransform("transpose")


def backward_pass(jaxpr: Jaxpr, consts: Sequence, cts_out: Sequence,
                  in_avals: Sequence | None = None, sums: Sequence | None = None) -> list:
  """Cotangents of a linear jaxpr's inputs, given its outputs' cotangents (values or Zero).

  ``in_avals`` (one per input) types the linear inputs for the transpose rules instead of the
  inputs' own avals: a loop's carry is typed by its cotangent (strong where the carry was a weak
  Python scalar), as JAX's scan transpose does. ``sums`` (one per input, or None) are running
  sums the input's cotangents are added to as they are made (a loop's constants), so the
  additions come where JAX's accumulators put them."""
  known = {id(v): c for v, c in zip(jaxpr.constvars, consts)}
  typed = {} if in_avals is None else {id(v): a for v, a in zip(jaxpr.invars, in_avals)}
  linear = {id(v) for v in jaxpr.invars}
  for eqn in jaxpr.eqns:
    if any(_is_linear(v, linear) for v in eqn.invars):
      linear.update(id(v) for v in eqn.outvars)
  cts: dict[int, Any] = {}
  if sums is not None:
    cts.update((id(v), s) for v, s in zip(jaxpr.invars, sums) if s is not None)

  def accumulate(v, ct):
    if type(ct) is Zero or ct is None or not _is_linear(v, linear):
      return
    prev = cts.get(id(v))
    cts[id(v)] = ct if prev is None else add_tangents(prev, ct)

  def read(v):
    if isinstance(v, Literal):
      return literal_value(v)
    if _is_linear(v, linear):
      return UndefinedPrimal(typed.get(id(v), v.aval))
    return known[id(v)]

  # Non-linear equations (primal recomputation, e.g. inside checkpoint) run forwards first.
  for eqn in jaxpr.eqns:
    if not any(_is_linear(v, linear) for v in eqn.invars):
      outs = eqn.primitive.bind(*[read(v) for v in eqn.invars], **eqn.params)
      outs = outs if eqn.primitive.multiple_results else [outs]
      for v, o in zip(eqn.outvars, outs):
        known[id(v)] = o
  for v, ct in zip(jaxpr.outvars, cts_out, strict=True):
    accumulate(v, ct)
  base = core.name_stack()
  try:
    for eqn in reversed(jaxpr.eqns):
      if not any(_is_linear(v, linear) for v in eqn.invars):
        continue
      ct_outs = [cts.pop(id(v), None) for v in eqn.outvars]
      if all(c is None for c in ct_outs):
        continue
      ct_outs = [Zero(v.aval) if c is None else c for c, v in zip(ct_outs, eqn.outvars)]
      rule = eqn.primitive.rule("transpose")
      names = eqn.source_info.name_stack.stack if eqn.source_info is not None else ()
      core.swap_name_stack(base + (_TRANSPOSE,) + names)  # transpose(jvp(scope)), as JAX
      ct_ins = rule(ct_outs if eqn.primitive.multiple_results else ct_outs[0],
                    *[read(v) for v in eqn.invars], **eqn.params)
      for v, ct in zip(eqn.invars, ct_ins):
        accumulate(v, ct)
  finally:
    core.swap_name_stack(base)
  return [cts.get(id(v), Zero(v.aval)) for v in jaxpr.invars]


# --- public API ------------------------------------------------------------------------------

def _check_outputs(leaves, what: str):
  for x in leaves:
    try:
      core.get_aval(x)
    except TypeError:
      raise TypeError(f"{what}: the function must return arrays (a pytree of them), got a value "
                      f"of type {type(x).__name__}: {x!r}") from None


class _VJP:
  """The function returned by ``vjp``: cotangents of the outputs -> cotangents of the inputs.
  A pytree whose leaves are the residuals (as JAX's ``VJP``), so it can leave a ``jit``: first
  the primal inputs the backward pass reads, one per position (``vjp(f, a, a)`` has ``a``
  twice), then the other residuals."""

  def __init__(self, closed, out_tree, out_avals, in_tree, in_avals, n_main, spec=None,
               args_res=None, fun_src="the function"):
    self.fun_src = fun_src  # "f at file:line", for error messages
    self.closed, self.out_tree, self.out_avals = closed, out_tree, out_avals
    self.in_tree, self.in_avals, self.n_main = in_tree, in_avals, n_main
    # spec: per residual, (True, i) for primal input i or (False, j) for the j-th other one
    self.spec = tuple((False, j) for j in range(len(closed.consts))) if spec is None else spec
    self.args_res = args_res  # per primal input, itself where a residual, else None

  def _flatten(self):
    needed = tuple(a is not None for a in self.args_res or ())
    opaque = [c for c, (is_arg, _) in zip(self.closed.consts, self.spec) if not is_arg]
    leaves = [a for a in self.args_res or () if a is not None] + opaque
    return leaves, (self.closed.jaxpr, self.out_tree, tuple(self.out_avals), self.in_tree,
                    tuple(self.in_avals), self.n_main, self.spec, needed, self.fun_src)

  @classmethod
  def _unflatten(cls, aux, leaves):
    jaxpr, out_tree, out_avals, in_tree, in_avals, n_main, spec, needed, src = aux
    it = iter(leaves)
    args_res = [next(it) if n else None for n in needed] if needed else None
    opaque = list(it)
    consts = [args_res[i] if is_arg else opaque[i] for is_arg, i in spec]
    return cls(ClosedJaxpr(jaxpr, consts), out_tree, out_avals, in_tree, in_avals, n_main, spec,
               args_res, src)

  def __call__(self, *cts):
    ct = cts[0] if len(cts) == 1 else cts
    leaves, tree = pytree.flatten(ct)
    if tree != self.out_tree:
      raise ValueError(_vjp_structure_error(self.out_tree, tree, self.fun_src))
    for c, a in zip(leaves, self.out_avals):
      ca = core.get_aval(c)
      if ca.shape != a.shape or (dtypes.is_inexact(a.dtype) and ca.dtype != a.dtype):
        want = a.str_short(short_dtypes=False)
        raise ValueError(
            f"unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{ca.str_short(short_dtypes=False)}, but expected {want} because the corresponding "
            f"output of the differentiated function had JAX type {want}")
    n_aux = len(self.closed.jaxpr.outvars) - self.n_main
    ct_all = list(leaves) + [Zero(a) for a in self.out_avals[self.n_main:]][:n_aux]
    ct_all = [Zero(a) if (isinstance(c, np.ndarray) and c.dtype == float0) else c
              for c, a in zip(ct_all, self.out_avals)]
    ins = backward_pass(self.closed.jaxpr, self.closed.consts, ct_all)
    outs = [_zeros(a) if type(c) is Zero else c for c, a in zip(ins, self.in_avals)]
    return pytree.unflatten(self.in_tree, outs)


def _vjp_structure_error(want, got, fun_src: str) -> str:
  """JAX's message for cotangents of the wrong tree structure: every place where they differ
  from the differentiated function's output, by key path."""
  lines = []
  for path, kind in structure_differences(want, got):
    d1, d2, why = describe_nodes(want, got, path, kind, "a pytree leaf")
    lines.append(f"  * out{path} was {d1} in the original output, but {d2} here, so {why}.")
  return ("unexpected tree structure.\n\nThe argument to a VJP function returned by `jax.vjp` "
          f"must match the pytree\nstructure of the differentiated function {fun_src}.\n\nBut "
          "the tree structures differ:\n" + "\n".join(lines))


def _residual_spec(residuals: Sequence, primals: Sequence) -> tuple[tuple, list]:
  """Which residuals are primal inputs (by identity, as JAX tells them apart): a spec per
  residual, and per primal input the input itself where some residual is it, else None."""
  position = {id(p): i for i, p in enumerate(primals)}  # the last position of a repeated input
  spec, opaque = [], 0
  used = set()
  for r in residuals:
    i = position.get(id(r))
    if i is None:
      spec.append((False, opaque))
      opaque += 1
    else:
      spec.append((True, i))
      used.add(id(r))
  return tuple(spec), [p if id(p) in used else None for p in primals]


@api_boundary
def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
  """``fun(*primals)`` and a function mapping output cotangents to input cotangents.

  ``reduce_axes`` is deprecated in JAX, which refuses it (NotImplementedError); so does ember.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> y, f_vjp = ember.vjp(jnp.sin, 0.0)
      >>> f_vjp(1.0)
      (Array(1., dtype=float32, weak_type=True),)
  """
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to vjp is deprecated")
  leaves, in_tree = pytree.flatten(primals)
  # As JAX, vjp canonicalizes its primals (a Python float becomes a TypedFloat, with a dtype):
  # what the function, its custom rules and an output that is an input see.
  leaves = [canonicalize_value(x) for x in leaves]
  aux_box, out_box = [], []
  flat = _flatten_fun(fun, in_tree, has_aux, aux_box, out_box)
  primals_out, closed, out_avals = linearize_flat(flat, leaves)
  _check_outputs(primals_out, "vjp")
  main, aux = _split_aux(primals_out, aux_box, has_aux)
  n_main = len(main)
  spec, args_res = _residual_spec(closed.consts, leaves)
  pullback = _VJP(closed, out_box[0], out_avals, in_tree,
                  [tangent_aval(core.get_aval(p)) for p in leaves], n_main, spec, args_res,
                  DebugInfo("vjp", fun).func_src)
  out = pytree.unflatten(out_box[0], main)
  return (out, pullback, aux) if has_aux else (out, pullback)


@api_boundary
def linearize(fun: Callable, *primals, has_aux: bool = False):
  """``fun(*primals)`` and its linearization ``f_jvp(*tangents)`` (a linear function).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> y, f_jvp = ember.linearize(jnp.sin, 0.0)
      >>> f_jvp(2.0)
      Array(2., dtype=float32, weak_type=True)
  """
  leaves, in_tree = pytree.flatten(primals)
  aux_box, out_box = [], []
  flat = _flatten_fun(fun, in_tree, has_aux, aux_box, out_box)
  primals_out, closed, out_avals = linearize_flat(flat, leaves)
  main, aux = _split_aux(primals_out, aux_box, has_aux)
  f_jvp = _Linearized(closed, in_tree, out_box[0], len(main))
  out = pytree.unflatten(out_box[0], main)
  return (out, f_jvp, aux) if has_aux else (out, f_jvp)


class _Linearized:
  """The function returned by ``linearize``: input tangents -> output tangents. A pytree whose
  leaves are the residuals (as JAX's ``Partial``)."""

  def __init__(self, closed, in_tree, out_tree, n_main):
    self.closed, self.in_tree, self.out_tree, self.n_main = closed, in_tree, out_tree, n_main

  def __call__(self, *tangents):
    from ember.core.eval import eval_jaxpr
    t_leaves, t_tree = pytree.flatten(tangents)
    if t_tree != self.in_tree:
      raise TypeError(f"linearized function called with tangents of structure {t_tree}, "
                      f"expected {self.in_tree}.")
    outs = eval_jaxpr(self.closed.jaxpr, self.closed.consts, *t_leaves)
    return pytree.unflatten(self.out_tree, outs[:self.n_main])

  def _flatten(self):
    return self.closed.consts, (self.closed.jaxpr, self.in_tree, self.out_tree, self.n_main)

  @classmethod
  def _unflatten(cls, aux, consts):
    jaxpr, *rest = aux
    return cls(ClosedJaxpr(jaxpr, list(consts)), *rest)


for _cls in (_VJP, _Linearized):
  pytree.register_pytree_node(_cls, _cls._flatten, _cls._unflatten)


def linear_transpose(fun: Callable, *primals, reduce_axes=()):
  """The transpose of the linear function ``fun`` at primals of the given shapes/dtypes.

  ``reduce_axes`` is deprecated in JAX, which refuses it (NotImplementedError); so does ember.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> f_t = ember.linear_transpose(lambda x: 2.0 * x, 1.0)
      >>> f_t(3.0)
      (Array(6., dtype=float32, weak_type=True),)
  """
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to transpose is deprecated")
  from ember.transforms.staging import trace_flat
  leaves, in_tree = pytree.flatten(primals)
  out_box = []

  def flat(*xs):
    out = fun(*pytree.unflatten(in_tree, xs))
    o, tree = pytree.flatten(out)
    out_box.append(tree)
    return o

  closed = trace_flat(flat, leaves, "linear_transpose")
  in_avals = [core.get_aval(x) for x in leaves]
  for a in in_avals:
    if not dtypes.is_inexact(a.dtype):
      raise TypeError(f"linear_transpose only supports [float or complex] -> [float or complex], "
                      f"got an input of dtype {a.dtype.name}.")

  def transposed(*cts):
    ct = cts[0] if len(cts) == 1 else cts
    ct_leaves, tree = pytree.flatten(ct)
    if tree != out_box[0]:
      raise TypeError(f"cotangent tree does not match function output, expected {out_box[0]} "
                      f"but got {tree}")
    got = [core.get_aval(c) for c in ct_leaves]
    if any((g.shape, g.dtype) != (a.shape, a.dtype) for g, a in zip(got, closed.out_avals)):
      raise TypeError(f"cotangent type does not match function output, expected "
                      f"{tuple(a.strip_weak_type() for a in closed.out_avals)} but got "
                      f"{ct_leaves}")
    ins = backward_pass(closed.jaxpr, closed.consts, [_as_array(c) for c in ct_leaves])
    return pytree.unflatten(in_tree, [_zeros(a) if type(c) is Zero else c
                                      for c, a in zip(ins, in_avals)])
  return transposed


def _as_array(x):
  """A Python scalar cotangent as the (weakly typed) Array JAX makes of it."""
  if isinstance(x, (bool, int, float, complex)):
    aval = core.get_aval(x)
    return ops.convert(x, aval.dtype, aval.weak_type)
  return x


def _argnums_tuple(argnums, nargs: int, fname: str):
  seq = isinstance(argnums, (tuple, list))
  nums = tuple(argnums) if seq else (argnums,)
  for a in nums:
    if not isinstance(a, (int, np.integer)):
      raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}.")
    if a < -nargs:
      raise ValueError(f"Positional argument indices, e.g. for `static_argnums`, must have value "
                       f"greater than or equal to -len(args) and less than len(args), but got "
                       f"value {a} for len(args) == {nargs}.")
    if a >= nargs and fname == "jacobian":  # (jacfwd / jacrev / hessian: JAX's ValueError)
      raise ValueError(f"argnums={argnums!r} is out of range: the function was called with "
                       f"{nargs} positional arguments, so argnums must be in [-{nargs}, "
                       f"{nargs}).")
    if a >= nargs:
      raise TypeError(f"differentiating with respect to argnums={argnums!r} requires at least "
                      f"{max(nums) + 1} positional arguments to be passed by the caller, but got "
                      f"only {nargs} positional arguments.")
  return tuple(a % nargs for a in nums), seq


def _check_input_dtype(x, holomorphic: bool, allow_int: bool, fname: str):
  for leaf in pytree.tree_leaves(x):
    dt = core.get_aval(leaf).dtype
    if holomorphic:
      if not dtypes.is_complex(dt):
        raise TypeError(f"{fname} with holomorphic=True requires inputs with complex dtype, but "
                        f"got {dt.name}.")
    elif dtypes.is_complex(dt):
      continue  # JAX allows complex inputs without holomorphic (the result is conj-linear)
    elif not dtypes.is_float(dt) and not allow_int:
      raise TypeError(
          f"{fname} requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
          f"np.inexact), but got {dt.name}. If you want to use Boolean- or integer-valued "
          "inputs, use vjp or set allow_int to True.")


def _check_scalar_output(out, holomorphic: bool, fname: str):
  leaves, tree = pytree.flatten(out)
  if len(leaves) != 1 or not pytree.treedef_is_leaf(tree):
    raise TypeError(f"Gradient only defined for scalar-output functions. Output was {out!r}.")
  aval = core.get_aval(leaves[0])
  if aval.shape != ():
    raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                    f"{aval.shape}.")
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"{fname} with holomorphic=True requires outputs with complex dtype, but "
                      f"got {aval.dtype.name}.")
  elif not dtypes.is_float(aval.dtype):
    if dtypes.is_complex(aval.dtype):
      raise TypeError(
          f"{fname} requires real-valued outputs (output dtype that is a sub-dtype of "
          f"np.floating), but got {aval.dtype.name}. For holomorphic differentiation, pass "
          "holomorphic=True. For differentiation of non-holomorphic functions involving complex "
          "outputs, use jax.vjp directly.")
    raise TypeError(
        f"{fname} requires real-valued outputs (output dtype that is a sub-dtype of "
        f"np.floating), but got {aval.dtype.name}. For differentiation of functions with "
        "integer outputs, use jax.vjp directly.")
  return aval


def _one_like(aval: ShapedArray, out):
  """A scalar one of ``aval``'s dtype and weak type, as JAX seeds the backward pass: an Array,
  or when ``out`` is being staged, a tracer of that jaxpr standing for the literal 1."""
  if not isinstance(out, core.Tracer):
    return ops.convert(1, aval.dtype, aval.weak_type)
  if type(out) is JaxprTracer:
    one = complex(1) if dtypes.is_complex(aval.dtype) else 1.0 if dtypes.is_inexact(aval.dtype) \
        else 1
    value = one if aval.weak_type else np.ones((), aval.dtype)
    return JaxprTracer(out._trace, aval, Literal(value, aval))
  if aval.weak_type:
    py = complex if dtypes.is_complex(aval.dtype) else float
    if dtypes.canonicalize_dtype(py) == aval.dtype:
      return py(1)
    return ops.convert(1, aval.dtype, True)
  return np.ones((), aval.dtype)


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False, reduce_axes=()):
  """A function returning ``(fun(*args), grad(fun)(*args))``.

  ``reduce_axes`` is deprecated in JAX, which refuses it (NotImplementedError); so does ember.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.value_and_grad(lambda x: x ** 2)(3.0)
      (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
  """
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to grad is deprecated")
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun!r}: the fun argument of grad / "
                    "value_and_grad must be a function.")
  fname = "grad"  # JAX's messages say grad for value_and_grad too

  @api_boundary
  def value_and_grad_f(*args, **kwargs):
    nums, seq = _argnums_tuple(argnums, len(args), fname)
    diff = tuple(args[i] for i in nums)
    _check_input_dtype(diff, holomorphic, allow_int, fname)

    def partial_fun(*d):
      full = list(args)
      for i, v in zip(nums, d):
        full[i] = v
      return fun(*full, **kwargs)

    if has_aux:
      ans, pullback, aux = vjp(partial_fun, *diff, has_aux=True)
    else:
      ans, pullback = vjp(partial_fun, *diff)
    aval = _check_scalar_output(ans, holomorphic, fname)
    ct = _one_like(aval.update(vma=()), pytree.tree_leaves(ans)[0])
    if aval.vma:  # inside shard_map the seed varies as the output does (JAX's pvary)
      ct = ops.pvary(ct, aval.vma.names)
    grads = pullback(ct)
    g = grads if seq else grads[0]
    return ((ans, aux), g) if has_aux else (ans, g)

  return value_and_grad_f


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()):
  """The gradient of the scalar function ``fun`` with respect to argument(s) ``argnums``.

  ``reduce_axes`` is deprecated in JAX, which refuses it (NotImplementedError); so does ember.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.grad(lambda x: jnp.sin(x) * x)(1.0)
      Array(1.3817732, dtype=float32, weak_type=True)
  """
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to grad is deprecated")
  vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

  @api_boundary
  def grad_f(*args, **kwargs):
    out = vg(*args, **kwargs)
    if has_aux:
      (_, aux), g = out
      return g, aux
    return out[1]

  try:
    import functools
    grad_f = functools.wraps(fun)(grad_f)
  except (AttributeError, TypeError):
    pass
  return grad_f


def transpose_jaxpr(closed: ClosedJaxpr, linear: tuple[bool, ...], ct_zero: tuple[bool, ...]):
  """The transpose of a closed jaxpr linear in the ``linear`` inputs, as a jaxpr of (the other
  inputs, the cotangents of the outputs not in ``ct_zero``) -> cotangents of the linear inputs:
  the rule call primitives bind. Returns ``(jaxpr, consts)``."""
  j = closed.jaxpr
  res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
  lin_vars = [v for v, lin in zip(j.invars, linear) if lin]
  as_linear = Jaxpr(res_vars, lin_vars, j.outvars, j.eqns)
  res_avals = [v.aval for v in res_vars]
  ct_avals = [a for a, z in zip(closed.out_avals, ct_zero) if not z]

  def fun(*xs):
    res, cts = xs[:len(res_avals)], iter(xs[len(res_avals):])
    ct_all = [Zero(tangent_aval(a)) if z else next(cts)
              for a, z in zip(closed.out_avals, ct_zero)]
    ins = backward_pass(as_linear, res, ct_all)
    return [instantiate(c, v.aval) for c, v in zip(ins, lin_vars)]

  t_closed = trace_to_jaxpr(fun, res_avals + ct_avals)
  return hoist_consts(t_closed)
