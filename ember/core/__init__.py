"""ember's core: abstract values, the jaxpr IR, traces and primitives.

``ShapedArray`` is public here as in ``jax.core``; jaxlib's C++ arrays also look it up under the
name ``jax.core`` when building a bfloat16 array's host value. ``Tracer``, ``Trace``, ``Atom`` (a
jaxpr operand: a ``Var`` or a ``Literal``) and ``DropVar`` are the names JAX 0.10.2's
``jax.core`` still exports that libraries use in ``isinstance`` checks and annotations, with
``AbstractValue`` (the base of abstract values), ``ParamDict`` and ``Value`` (annotations),
``eval_jaxpr``, ``eval_context``, ``ensure_compile_time_eval``, ``max_dim`` and ``min_dim``
(ember/core/public.py).
"""
from typing import Any as _Any, Union as _Union

from ember.core.aval import AbstractValue, ShapedArray  # noqa: F401
from ember.core.jaxpr import DropVar, Literal as _Literal, Var as _Var  # noqa: F401
from ember.core.public import eval_context, eval_jaxpr, max_dim, min_dim  # noqa: F401
from ember.core.trace import Trace, Tracer  # noqa: F401

Atom = _Union[_Var, _Literal]
ParamDict = dict[str, _Any]
Value = _Any


def __getattr__(name: str):
  if name == "ensure_compile_time_eval":  # ember.api imports the core: resolve it on use
    from ember.api import ensure_compile_time_eval
    return ensure_compile_time_eval
  raise AttributeError(f"module 'ember.core' has no attribute '{name}'")


def __dir__():
  return sorted(list(globals()) + ["ensure_compile_time_eval"])
