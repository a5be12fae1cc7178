"""``custom_root`` and ``custom_linear_solve``: solvers differentiated implicitly, never through
their iterations.

``custom_linear_solve`` traces ``matvec``, its transpose and the two solves into jaxprs and binds
the ``custom_linear_solve`` primitive (primitives/control_flow/linear_solve.py, where its rules
are). For ``custom_root``, ``f``, ``solve`` and the tangent solve are traced once into jaxprs
whose closed-over values (parameters of ``f``, arrays ``solve`` reads) become explicit arguments
of a ``custom_jvp`` function. Its value is ``solve(f, initial_guess)``; its tangent with respect
to ``f``'s parameters ``m`` at the root ``u*`` is ``-(d_u f)^-1 [d_m f . dm]``: the parameters'
jvp of ``f`` at the solution, passed through ``tangent_solve`` of ``f`` linearized there. The
solver itself is never differentiated (its loop may not be differentiable) and the initial guess
gets no gradient.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import lax
    >>> def newton(f, x):
    ...   for _ in range(20):
    ...     x = x - f(x) / ember.grad(f)(x)
    ...   return x
    >>> def sqrt(a):
    ...   return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> print(sqrt(2.0), ember.grad(sqrt)(2.0))
    1.4142135 0.35355338
"""
from __future__ import annotations

from typing import Any, Callable

from ember import pytree
from ember.core import trace as core
from ember.core.eval import eval_jaxpr
from ember.primitives.control_flow.common import trace_fun
from ember.primitives.control_flow.linear_solve import _LinearSolveTuple, linear_solve_p
from ember.transforms.ad_util import zeros_like_aval

__all__ = ["custom_root", "custom_linear_solve"]


def _check_tree(fun_name: str, expected_name: str, tree, expected, has_aux: bool = False):
  if has_aux:
    children = tree.children()
    if len(children) != 2:
      raise ValueError(f"{fun_name}() produced a pytree with structure {tree}, but a pytree "
                       "tuple with auxiliary output was expected because has_aux was set to "
                       "True.")
    tree = children[0]
  if tree != expected:
    raise TypeError(f"{fun_name}() output pytree structure must match {expected_name}, got "
                    f"{tree} and {expected}.")


def _run(traced, consts, args) -> list:
  return eval_jaxpr(traced.jaxpr.jaxpr, (), *consts, *args)


def custom_root(f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
  """``solve(f, initial_guess)``, differentiable with respect to what ``f`` closes over by
  implicit differentiation (assuming ``f(solution) == 0``).

  ``solve(f, x0)`` returns a root of ``f`` with the structure of ``initial_guess`` (and, with
  ``has_aux``, a second output that is not differentiated); ``tangent_solve(g, y)`` returns ``x``
  with ``g(x) = y`` for ``g`` the linear function ``f`` linearized at the root (for a scalar,
  ``lambda g, y: y / g(1.0)``).

  Example:
      >>> import ember
      >>> from ember import lax
      >>> root = lambda a: lax.custom_root(lambda x: x - a - 1.0, a, lambda f, x: x - f(x),
      ...                                  lambda g, y: y / g(1.0))
      >>> root(2.0), ember.grad(lambda a: root(a) ** 2)(2.0)
      (Array(3., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
  """
  from ember.transforms.custom import custom_jvp
  from ember.transforms.jvp import jvp
  from ember.transforms.linearize import linearize

  guess, guess_tree = pytree.flatten(initial_guess)
  avals = [core.get_aval(x) for x in guess]
  args_tree = pytree.tree_structure((initial_guess,))
  f_tr = trace_fun(f, args_tree, avals, "custom_root")
  _check_tree("f", "initial_guess", f_tr.out_tree, guess_tree)
  solve_tr = trace_fun(lambda x: solve(f, x), args_tree, avals, "custom_root solve")
  _check_tree("solve", "initial_guess", solve_tr.out_tree, guess_tree, has_aux)

  def linearize_and_solve(x, b):
    return tangent_solve(linearize(f, x)[1], b)

  ls_tr = trace_fun(linearize_and_solve, pytree.tree_structure((initial_guess, initial_guess)),
                    avals + avals, "custom_root tangent_solve")
  _check_tree("tangent_solve", "x", ls_tr.out_tree, guess_tree)

  nf, ns, nl, n = len(f_tr.consts), len(solve_tr.consts), len(ls_tr.consts), len(guess)

  def split(args):
    return (args[:nf], args[nf:nf + ns], args[nf + ns:nf + ns + nl], args[nf + ns + nl:])

  @custom_jvp
  def root(*args):
    _, solve_consts, _, x0 = split(args)
    return _run(solve_tr, solve_consts, x0)

  @root.defjvp
  def root_jvp(primals, tangents):
    f_consts, _, ls_consts, _ = split(primals)
    out = root(*primals)
    solution, aux = out[:n], out[n:]
    _, rhs = jvp(lambda *m: _run(f_tr, m, solution), tuple(f_consts),
                 tuple(split(tangents)[0]))
    solution_dot = [-t for t in _run(ls_tr, ls_consts, [*solution, *rhs])]
    return out, solution_dot + [zeros_like_aval(core.get_aval(a)) for a in aux]

  out = root(*f_tr.consts, *solve_tr.consts, *ls_tr.consts, *guess)
  return pytree.unflatten(solve_tr.out_tree, out)


def _check_shapes(fun_name: str, expected_name: str, got: list, want: list) -> None:
  got, want = [tuple(a.shape) for a in got], [tuple(a.shape) for a in want]
  if got != want:
    raise ValueError(f"{fun_name}() output shapes must match {expected_name}, got {got} and "
                     f"{want}")


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable,
                        transpose_solve: Callable | None = None, symmetric: bool = False,
                        has_aux: bool = False):
  """``solve(matvec, b)``, differentiated implicitly assuming its result ``x`` satisfies
  ``matvec(x) == b``: the solver itself (which may loop with ``while_loop``) is never
  differentiated.

  ``transpose_solve(vecmat, b)`` solves the transposed system (``vecmat``, matvec's transpose,
  is derived by autodiff); it is needed for reverse mode unless ``symmetric``, when ``solve``
  serves. With ``has_aux``, both solves return a second, undifferentiated output.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> a = jnp.array([[2.0, 0.0], [0.0, 4.0]])
      >>> f = lambda b: lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, b: b / jnp.diag(a),
      ...                                       symmetric=True)
      >>> f(jnp.ones(2)), ember.grad(lambda b: f(b).sum())(jnp.ones(2))
      (Array([0.5 , 0.25], dtype=float32), Array([0.5 , 0.25], dtype=float32))
  """
  from ember.transforms.linearize import linear_transpose
  if transpose_solve is None and symmetric:
    transpose_solve = solve
  leaves, tree = pytree.flatten(b)
  avals = [core.get_aval(x) for x in leaves]
  args_tree = pytree.tree_structure((b,))

  def traced(fun, name: str, aux: bool):
    tr = trace_fun(fun, args_tree, avals, name)
    _check_tree(name.split()[-1], "b", tr.out_tree, tree, aux)
    _check_shapes(name.split()[-1], "b", tr.out_avals[:len(avals)], avals)
    return tr

  mv = traced(matvec, "custom_linear_solve matvec", False)
  sv = traced(lambda x: solve(matvec, x), "custom_linear_solve solve", has_aux)
  vm = ts = None
  if transpose_solve is not None:
    if symmetric:
      vecmat = matvec
      vm = mv
    else:
      transposed = linear_transpose(matvec, b)
      vecmat = lambda y: transposed(y)[0]  # noqa: E731
      vm = traced(vecmat, "custom_linear_solve vecmat", False)
    ts = traced(lambda x: transpose_solve(vecmat, x), "custom_linear_solve transpose_solve",
                has_aux)
  parts = [mv, vm, sv, ts]
  consts = [[] if t is None else list(t.consts) for t in parts]
  outs = linear_solve_p.bind(
      *[c for group in consts for c in group], *leaves,
      const_lengths=_LinearSolveTuple(*map(len, consts)),
      jaxprs=_LinearSolveTuple(*[None if t is None else t.jaxpr for t in parts]))
  return pytree.unflatten(sv.out_tree, outs)
