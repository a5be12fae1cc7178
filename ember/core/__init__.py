"""ember's core: abstract values, the jaxpr IR, traces and primitives.

``ShapedArray`` is public here as in ``jax.core``; jaxlib's C++ arrays also look it up under the
name ``jax.core`` when building a bfloat16 array's host value. ``Tracer``, ``Trace``, ``Atom`` (a
jaxpr operand: a ``Var`` or a ``Literal``) and ``DropVar`` are the names JAX 0.10.2's
``jax.core`` still exports that libraries use in ``isinstance`` checks and annotations.
"""
from typing import Union as _Union

from ember.core.aval import ShapedArray  # noqa: F401
from ember.core.jaxpr import DropVar, Literal as _Literal, Var as _Var  # noqa: F401
from ember.core.trace import Trace, Tracer  # noqa: F401

Atom = _Union[_Var, _Literal]
