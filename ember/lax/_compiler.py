"""lax's operations for the compiler's sake (JAX 0.10.2): ``optimization_barrier``,
``create_token``, ``after_all``, ``dce_sink``, ``stage``, ``composite`` and
``platform_dependent``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import lax
    >>> lax.platform_dependent(2.0, cpu=jnp.sqrt, default=jnp.square)
    Array(1.4142135, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.errors import UnexpectedTracerError
from ember.backend.array import Array
from ember.primitives import ordering
from ember.primitives.composite import HashableArray, composite_p
from ember.primitives.control_flow.common import (check_branch_outputs, join_consts,
                                                  operand_avals, trace_fun)
from ember.primitives.control_flow.cond import cond_p
from ember.primitives.platform import platform_index_p

__all__ = ["optimization_barrier", "create_token", "after_all", "dce_sink", "stage",
           "composite", "platform_dependent"]


def _jax_leaves(tree, fun_name: str) -> tuple[list, object]:
  leaves, treedef = pytree.flatten(tree)
  for i, leaf in enumerate(leaves):
    try:
      core.get_aval(leaf)
    except TypeError:
      raise TypeError(f"Error interpreting argument to {fun_name} as a JAX value. The "
                      f"problematic value is of type {type(leaf)} and was passed to {fun_name} "
                      f"at position {i}.") from None
  return leaves, treedef


def optimization_barrier(operand, /):
  """The identity on a pytree of arrays, which the compiler may not move operations across
  (e.g. to keep a recomputation from being merged with the original).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.optimization_barrier((jnp.float32(1), 2))
      (Array(1., dtype=float32), Array(2, dtype=int32, weak_type=True))
  """
  leaves, treedef = _jax_leaves(operand, "optimization_barrier")
  if not leaves and core.current_trace() is core.EVAL_TRACE:
    return operand
  return pytree.unflatten(treedef, ordering.optimization_barrier_p.bind(*leaves))


def create_token(_=None):
  """A fresh XLA token (its argument, if any, is ignored).

  ember has tokens outside ``jit`` and in printed jaxprs; a compiled program that makes one
  raises ``NotImplementedError`` (see docs/differences.md).

  Example:
      >>> import ember
      >>> from ember import lax
      >>> print(ember.make_jaxpr(lambda: lax.create_token())())
      { lambda ; . let a:Tok = create_token  in (a,) }
  """
  return ordering.create_token_p.bind()


def after_all(*operands):
  """A token ordered after all the tokens ``operands``.

  Example:
      >>> from ember import lax
      >>> type(lax.after_all(lax.create_token(), lax.create_token())).__name__
      'Token'
  """
  return ordering.after_all_p.bind(*operands)


def dce_sink(val, *, prevent_mlir_dce: bool = False) -> None:
  """Mark every leaf of ``val`` as used (dead-code elimination keeps what computes it); returns
  None.

  Example:
      >>> import ember
      >>> from ember import lax
      >>> print(ember.make_jaxpr(lambda x: lax.dce_sink(x))(1.0))
      { lambda ; a:f32[]. let dce_sink[prevent_mlir_dce=False] a in () }
  """
  leaves, _ = _jax_leaves(val, "dce_sink")
  for leaf in leaves:
    ordering.dce_sink_p.bind(leaf, prevent_mlir_dce=prevent_mlir_dce)


def stage(x, /):
  """Lift ``x`` (a Python scalar, NumPy value or array) into the current trace: under
  ``jit``/``make_jaxpr`` it becomes the jaxpr's literal or constvar, with no equation;
  otherwise an ember array.

  Example:
      >>> from ember import lax
      >>> lax.stage(3.0)
      Array(3., dtype=float32, weak_type=True)
  """
  from ember.transforms.staging import DynamicJaxprTrace, JaxprTracer
  if isinstance(x, core.Tracer):
    return x
  try:
    aval = core.get_aval(x)
  except TypeError:
    raise TypeError("Error interpreting argument to stage as a JAX value. The problematic "
                    f"value is of type {type(x)} and was passed to stage at position 0.") from None
  trace = core.current_trace()
  while trace is not None and not isinstance(trace, DynamicJaxprTrace):
    trace = trace.parent
  if trace is not None:
    return JaxprTracer(trace, aval, trace.atom(x))
  if isinstance(x, Array):
    return x
  from ember.backend.array import device_put_value
  return device_put_value(x, aval)


# --- composite --------------------------------------------------------------------------------

def _attribute(key: str, value) -> tuple:
  leaves, treedef = pytree.flatten(value)
  return key, tuple(HashableArray(v) if isinstance(v, np.ndarray) else v for v in leaves), treedef


def composite(decomposition: Callable, name: str, version: int = 0):
  """Wrap ``decomposition`` as one named operation: positional arguments are its inputs,
  keyword arguments its (static) attributes. A compiler that knows ``name`` may replace it;
  otherwise the decomposition runs. It cannot be differentiated or batched (use custom_jvp).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> tangent = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
      >>> tangent(jnp.float32(0.5))
      Array(0.5463025, dtype=float32)
  """
  @functools.wraps(decomposition)
  def composite_call(*args, **kwargs):
    if any(isinstance(v, core.Tracer) for v in kwargs.values()):
      raise UnexpectedTracerError(
          "Found a JAX Tracer as an attribute in the decomposition for the composite op "
          f"'{name}'. This means that the decomposition function closes over a value that is "
          "involved in a JAX transformation. Any values that aren't explicitly known at compile "
          "time must be explicitly passed as arguments to the composite.\n\nNote: If you are "
          "passing jax arrays as attributes, use numpy arrays instead.")
    leaves, tree = pytree.flatten(args)
    attributes = tuple(_attribute(k, v) for k, v in kwargs.items())
    fun = functools.partial(decomposition, **kwargs)
    traced = trace_fun(fun, tree, operand_avals(leaves), "composite", owner=decomposition,
                       tag=("composite", name, attributes))
    outs = composite_p.bind(*traced.consts, *leaves, name=name, attributes=attributes,
                            version=version, jaxpr=traced.jaxpr)
    return pytree.unflatten(traced.out_tree, outs)
  return composite_call


# --- platform_dependent -----------------------------------------------------------------------

def _platform_branches(default, per_platform: dict) -> tuple[list, tuple]:
  """The distinct branches and, for each, the platforms it serves (None: the default)."""
  branches, platforms = [], []
  for platform, branch in per_platform.items():
    if not callable(branch):
      raise TypeError(f"lax.platform_dependent: the '{platform}' branch must be a callable.")
    if platform == "gpu":
      raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    same = next((i for i, b in enumerate(branches) if b == branch), None)
    if same is None:
      branches.append(branch)
      platforms.append([platform])
    else:
      platforms[same].append(platform)
  platforms = [tuple(p) for p in platforms]
  if default is not None:
    if not callable(default):
      raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    branches.append(default)
    platforms.append(None)
  return branches, tuple(platforms)


def platform_dependent(*args, default: Callable | None = None, **per_platform: Callable):
  """``per_platform[p](*args)`` on platform ``p`` (``'cpu'``, ``'cuda'``, ``'rocm'``,
  ``'tpu'``), else ``default(*args)``. Eagerly only the chosen branch runs; staged, all are
  traced into a ``cond`` whose branch is picked when the program is compiled.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember import lax
      >>> lax.platform_dependent(0.0, cpu=jnp.cos, cuda=jnp.sin)
      Array(1., dtype=float32, weak_type=True)
  """
  branches, platforms = _platform_branches(default, per_platform)
  index = platform_index_p.bind(platforms=platforms)
  if core.concrete_value(index) is not None:
    return branches[int(core.concrete_value(index))](*args)
  leaves, tree = pytree.flatten(args)
  avals = operand_avals(leaves)
  traced = [trace_fun(b, tree, avals, "switch") for b in branches]
  names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]
  check_branch_outputs("switch", branches, names, traced)
  jaxprs, consts = join_consts(traced)
  outs = cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs),
                     branches_platforms=platforms)
  return pytree.unflatten(traced[0].out_tree, outs)
