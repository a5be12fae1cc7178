"""The helper functions of JAX 0.10.2's ``jax.extend.core``, on ember's IR and trace state.

Libraries that write their own interpreters over jaxprs use these: walking the jaxprs held in an
equation's params, building equations and variables, mapping an aval over a batch axis, asking
whether a value can be traced, forcing a concrete value with JAX's error, and (the
``_DO_NOT_USE`` functions) peeking at the transformations in progress.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.extend import core
    >>> aval = ember.core.ShapedArray((2, 3), jnp.float32)
    >>> core.mapped_aval(2, 0, aval), core.unmapped_aval(4, 1, aval)
    (ShapedArray(float32[3]), ShapedArray(float32[2,4,3]))
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from ember import dtypes
from ember.core import trace as _trace
from ember.core.aval import ShapedArray
from ember.core.errors import ConcretizationTypeError
from ember.core.jaxpr import Jaxpr, JaxprEqn, Var, sub_jaxprs

__all__ = ["array_types", "call_impl", "concrete_or_error", "find_top_trace", "gensym",
           "jaxprs_in_params", "mapped_aval", "new_jaxpr_eqn", "nonempty_axis_env_DO_NOT_USE",
           "primal_dtype_to_tangent_dtype", "subjaxprs", "unmapped_aval",
           "unsafe_am_i_under_a_jit_DO_NOT_USE", "unsafe_am_i_under_a_vmap_DO_NOT_USE",
           "unsafe_get_axis_names_DO_NOT_USE", "valid_jaxtype"]

# The Python types whose values are arrays to ember: NumPy arrays and the scalar types of every
# dtype ember computes with (JAX's set also holds its internal TypedNdArray).
array_types: set[type] = ({np.ndarray, np.longlong, np.intc}
                          | {dt.type for dt in dtypes._MLIR_TYPES})


def jaxprs_in_params(params: dict) -> Iterator[Jaxpr]:
  """The jaxprs an equation's params hold (a ``ClosedJaxpr`` gives its ``jaxpr``).

  Example:
      >>> import ember
      >>> from ember.extend import core
      >>> eqn = ember.make_jaxpr(ember.jit(lambda x: x + 1))(1.0).jaxpr.eqns[0]
      >>> [type(j).__name__ for j in core.jaxprs_in_params(eqn.params)]
      ['Jaxpr']
  """
  yield from sub_jaxprs(params)


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
  """The jaxprs held by ``jaxpr``'s equations (not those nested deeper).

  Example:
      >>> import ember
      >>> from ember.extend import core
      >>> jaxpr = ember.make_jaxpr(lambda x: ember.jit(lambda y: y * 2)(x) + 1)(1.0).jaxpr
      >>> len(list(core.subjaxprs(jaxpr)))
      1
  """
  for eqn in jaxpr.eqns:
    yield from jaxprs_in_params(eqn.params)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects, source_info=None,
                  ctx=None) -> JaxprEqn:
  """An equation binding ``primitive`` with ``params`` to ``invars``, defining ``outvars``.

  ember derives an equation's effects from its primitive and keeps no equation context, so
  ``effects`` must be empty and ``ctx`` None.

  Example:
      >>> import ember
      >>> from ember.extend import core
      >>> eqn = ember.make_jaxpr(lambda x: x * 2.0)(1.0).jaxpr.eqns[0]
      >>> core.new_jaxpr_eqn(eqn.invars, eqn.outvars, eqn.primitive, eqn.params, set())
      a:f32[] = mul b 2.0:f32[]
  """
  if effects:
    raise NotImplementedError(
        f"new_jaxpr_eqn(effects={effects!r}): ember derives an equation's effects from its "
        "primitive; pass an empty set.")
  if ctx is not None:
    raise NotImplementedError("new_jaxpr_eqn(ctx=...): ember's equations carry no context; "
                              "pass None.")
  return JaxprEqn(primitive, list(invars), list(outvars), params, source_info)


def gensym() -> Callable[[Any], Var]:
  """A maker of fresh variables: ``gensym()(aval)`` is a new ``Var`` of type ``aval``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend import core
      >>> core.gensym()(ember.core.ShapedArray((2,), jnp.float32)).aval
      ShapedArray(float32[2])
  """
  return Var


def mapped_aval(size: int, axis: int | None, aval):
  """``aval`` without its ``axis`` (of length ``size``): the type of one example of a batch
  mapped over that axis; ``aval`` itself when ``axis`` is None.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend import core
      >>> core.mapped_aval(5, 1, ember.core.ShapedArray((2, 5), jnp.int32))
      ShapedArray(int32[2])
  """
  if not isinstance(aval, ShapedArray):
    raise TypeError(f"no mapping handler for {aval} of type {type(aval)}")
  if axis is None:
    return aval
  assert aval.shape[axis] == size
  return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis: int | None, aval, explicit_mesh_axis=None):
  """``aval`` with a new ``axis`` of length ``size``: the type of a batch of ``size`` values of
  type ``aval``; ``aval`` itself when ``axis`` is None.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend import core
      >>> core.unmapped_aval(5, 0, ember.core.ShapedArray((2,), jnp.int32))
      ShapedArray(int32[5,2])
  """
  if not isinstance(aval, ShapedArray):
    raise TypeError(f"no unmapping handler for {aval} of type {type(aval)}")
  if explicit_mesh_axis is not None:
    raise NotImplementedError(
        f"unmapped_aval(explicit_mesh_axis={explicit_mesh_axis!r}): ember's avals carry no "
        "sharding; pass None.")
  if axis is None:
    return aval
  return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def primal_dtype_to_tangent_dtype(primal_dtype):
  """The dtype of a value's tangents: its own when inexact, else ``float0`` (integers, bools,
  PRNG keys).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.extend import core
      >>> core.primal_dtype_to_tangent_dtype(jnp.int32), core.primal_dtype_to_tangent_dtype(jnp.float16)
      (dtype([('float0', 'V')]), <class 'ember.numpy.float16'>)
  """
  if not dtypes.issubdtype(primal_dtype, np.inexact):  # extended (key) dtypes are not inexact
    return dtypes.float0
  return primal_dtype


def valid_jaxtype(x) -> bool:
  """Whether ``x`` is a value ember can trace (an array, a scalar, a PRNG key...).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.extend import core
      >>> core.valid_jaxtype(jnp.ones(2)), core.valid_jaxtype(1.0), core.valid_jaxtype("a")
      (True, True, False)
  """
  try:
    _trace.get_aval(x)
  except TypeError:
    return False
  return True


def concrete_or_error(force: Callable | None, val, context: str = ""):
  """``force(val)`` (``val`` itself when ``force`` is None) for a concrete ``val``; a traced one
  raises ``ConcretizationTypeError`` with ``context`` in its message.

  Example:
      >>> from ember.extend import core
      >>> core.concrete_or_error(int, 3.5)
      3
  """
  if force is None:
    force = lambda x: x  # noqa: E731
  if isinstance(val, _trace.Tracer):
    concrete = val.to_concrete_value()
    if concrete is None:
      raise ConcretizationTypeError(val, context)
    return force(concrete)
  return force(val)


def call_impl(f, *args, **params):
  """Call a ``linear_util.WrappedFun`` (the impl of JAX's call primitives; ``params`` are the
  primitive's, not the function's).

  Example:
      >>> from ember.extend import core, linear_util as lu
      >>> from ember.api_util import debug_info
      >>> f = lu.wrap_init(lambda x: x + 1, debug_info=debug_info("call", print, (1,), {}))
      >>> core.call_impl(f, 1)
      2
  """
  del params
  return f.call_wrapped(*args)


def find_top_trace(_):
  """The trace in progress (the argument is ignored, as in JAX 0.10.2).

  Example:
      >>> from ember.extend import core
      >>> type(core.find_top_trace(None)).__name__
      'EvalTrace'
  """
  return _trace.current_trace()


def _trace_names() -> list[str]:
  names, t = [], _trace.current_trace()
  while t is not None:
    names.append(type(t).__name__)
    t = t.parent
  return names


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
  """Whether a ``jit`` (or ``make_jaxpr``...) is tracing the code that calls this.

  Example:
      >>> import ember
      >>> from ember.extend import core
      >>> core.unsafe_am_i_under_a_jit_DO_NOT_USE()
      False
  """
  return "DynamicJaxprTrace" in _trace_names()


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
  """Whether a ``vmap`` is tracing the code that calls this.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember.extend import core
      >>> ember.vmap(lambda x: x * core.unsafe_am_i_under_a_vmap_DO_NOT_USE())(jnp.ones(2))
      Array([1., 1.], dtype=float32)
  """
  return "BatchTrace" in _trace_names()


def unsafe_get_axis_names_DO_NOT_USE() -> list:
  """The names of the named axes (``vmap(axis_name=)``, ``shard_map``...) in scope, outermost
  first.

  Example:
      >>> from ember.extend import core
      >>> core.unsafe_get_axis_names_DO_NOT_USE()
      []
  """
  return list(dict.fromkeys(name for name, _ in _trace.axis_env()))


def nonempty_axis_env_DO_NOT_USE() -> bool:
  """Whether any named axis is in scope.

  Example:
      >>> from ember.extend import core
      >>> core.nonempty_axis_env_DO_NOT_USE()
      False
  """
  return bool(_trace.axis_env())
