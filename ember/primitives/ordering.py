"""Primitives for the compiler's sake: they compute nothing but order, keep or lift values.

- ``optimization_barrier`` (any number of operands, as many results): the identity, which the
  compiler may not move operations across. Its jvp and transpose put the tangents (or
  cotangents, zeros instantiated) through a barrier of their own, as JAX's do.
- ``create_token`` / ``after_all``: XLA tokens, values of type ``Tok`` that sequence effects.
  ember has tokens eagerly and in printed jaxprs; it does not lower them into compiled programs
  (a ``jit`` that makes one raises ``NotImplementedError``, see docs/differences.md).
- ``dce_sink`` (param ``prevent_mlir_dce``, no results): keeps its operand alive in a jaxpr (dead
  code elimination sees a use). It lowers to nothing. Like JAX, its jvp sinks the primal and the
  tangent, and ``vmap`` drops it.
- ``stage``: lifts a value into the current trace (``lax.stage``). Under ``make_jaxpr``/``jit``
  a constant becomes the jaxpr's literal or constvar, with no equation; eagerly it is an array.
"""
from __future__ import annotations

from ember.core.aval import NO_AXES, ShapedArray
from ember.core.trace import NO_OPERANDS, Primitive, get_aval, register_aval_handler
from ember.transforms import batching
from ember.transforms.ad_util import (Zero, deflinear, float0, instantiate, is_undefined,
                                      tangent_aval)

__all__ = ["AbstractToken", "Token", "abstract_token"]


# --- tokens -----------------------------------------------------------------------------------

class AbstractToken:
  """The type of a token (``Tok`` in a jaxpr): no shape, no dtype, no data.

  Example:
      >>> str(abstract_token), abstract_token.str_short()
      ('AbstractToken()', 'Tok')
  """
  __slots__ = ()
  shape = ()
  ndim = 0
  weak_type = False
  vma = NO_AXES

  def str_short(self, short_dtypes: bool = False) -> str:
    del short_dtypes
    return "Tok"

  def __repr__(self):
    return "AbstractToken()"


abstract_token = AbstractToken()


class Token:
  """A token value (what ``create_token`` and ``after_all`` return outside ``jit``).

  Example:
      >>> from ember import lax
      >>> type(lax.create_token()).__name__
      'Token'
  """
  __slots__ = ()

  def block_until_ready(self) -> "Token":
    return self


register_aval_handler(Token, lambda token: abstract_token)


def _token_out(*avals, **params):
  del avals, params
  return abstract_token


def _unsupported_lowering(prim: Primitive) -> None:
  prim.def_unsupported("lower", "ember does not stage tokens into compiled programs (use it "
                       "outside jit, or in make_jaxpr)")


create_token_p = Primitive("create_token")
create_token_p.def_rules(abstract_eval=_token_out, impl=lambda: Token())
_unsupported_lowering(create_token_p)


def _after_all_abstract_eval(*avals):
  if any(not isinstance(a, AbstractToken) for a in avals):
    raise TypeError("Arguments to after_all must be tokens")
  return abstract_token


def _after_all_impl(*tokens):
  _after_all_abstract_eval(*[get_aval(t) for t in tokens])
  return Token()


after_all_p = Primitive("after_all")
after_all_p.def_rules(abstract_eval=_after_all_abstract_eval, impl=_after_all_impl)
_unsupported_lowering(after_all_p)


# --- optimization_barrier ---------------------------------------------------------------------

def _barrier_abstract_eval(*avals):
  return list(avals)


def _barrier_lower(ctx, *xs):
  if not xs:
    return []
  return ctx.op("stablehlo.optimization_barrier", list(xs), [x.aval for x in xs])


def _instantiated(values, avals) -> dict:
  """``values`` (tangents or cotangents) with zeros made, by position; float0 values (of
  integer inputs) carry no data and are left out."""
  return {i: instantiate(v, a) for i, (v, a) in enumerate(zip(values, avals))
          if tangent_aval(a).dtype != float0}


def _through_barrier(made: dict, avals) -> list:
  """The values ``made`` through one barrier; symbolic zeros where a value was left out."""
  outs = optimization_barrier_p.bind(*made.values())
  result = [Zero(tangent_aval(a)) for a in avals]
  for i, out in zip(made, outs):
    result[i] = out
  return result


def _barrier_jvp(primals, tangents):
  avals = [get_aval(p) for p in primals]
  made = _instantiated(tangents, avals)  # zeros first, then the barriers (JAX's order)
  outs = optimization_barrier_p.bind(*primals)
  return outs, _through_barrier(made, avals)


def _barrier_transpose(cts, *xs):
  avals = [x.aval if is_undefined(x) else get_aval(x) for x in xs]
  outs = _through_barrier(_instantiated(cts, avals), avals)
  return [ct if is_undefined(x) else None for ct, x in zip(outs, xs)]


def _barrier_batch(axis, vals, dims):
  return optimization_barrier_p.bind(*vals), list(dims)


optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.def_rules(abstract_eval=_barrier_abstract_eval, lower=_barrier_lower,
                                 jvp=_barrier_jvp, transpose=_barrier_transpose,
                                 batch=_barrier_batch)


# --- dce_sink ---------------------------------------------------------------------------------

def _dce_sink_jvp(primals, tangents, *, prevent_mlir_dce):
  dce_sink_p.bind(*primals, prevent_mlir_dce=prevent_mlir_dce)
  dce_sink_p.bind(*[instantiate(t) for t in tangents], prevent_mlir_dce=prevent_mlir_dce)
  return [], []


dce_sink_p = Primitive("dce_sink", multiple_results=True)
dce_sink_p.def_rules(abstract_eval=lambda x, *, prevent_mlir_dce: [],
                     impl=lambda x, *, prevent_mlir_dce: [],
                     lower=lambda ctx, x, *, prevent_mlir_dce: [],
                     jvp=_dce_sink_jvp,
                     batch=lambda axis, vals, dims, *, prevent_mlir_dce: ([], []))
dce_sink_p.def_unsupported("transpose", "it has no outputs, so no cotangent reaches it")


# --- stage ------------------------------------------------------------------------------------

def _stage_abstract_eval(x: ShapedArray) -> ShapedArray:
  return x


stage_p = Primitive("stage")
stage_p.def_rules(abstract_eval=_stage_abstract_eval, lower=lambda ctx, x: x,
                  batch=batching.vectorized_batcher(stage_p))
deflinear(stage_p, lambda ct, x: [ct if type(ct) is not Zero else Zero(x.aval)])


# --- rules these primitives do not have -------------------------------------------------------

for _p in (create_token_p, after_all_p):
  for _kind in ("jvp", "transpose", "batch"):
    _p.def_unsupported(_kind, NO_OPERANDS)
del _p
