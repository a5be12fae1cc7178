"""``sparsify``: run a function written for dense arrays on sparse (BCOO, BCSR) inputs.

``sparsify(f)(*args)`` traces ``f`` to a jaxpr at the dense shapes of its arguments, then
evaluates that jaxpr equation by equation on *spvalues*: references into a list of buffers
(``SparsifyEnv``) that stand for a dense array (one buffer) or a sparse one (data, indices and,
for BCSR, indptr). An equation with no sparse input is bound as it is; one with a sparse input
applies its primitive's sparse rule, which works on the buffers and returns new spvalues:

- zero-preserving unary ops (``sin``, ``abs``, ``sqrt``, ``neg``, ``convert_element_type``...)
  map the data (non-linear ones first sum repeated indices); ops that would make every entry
  nonzero (``cos``, ``exp``, comparisons...) raise NotImplementedError saying so;
- ``dot_general``, ``broadcast_in_dim``, ``concatenate``, ``reshape``, ``slice``,
  ``dynamic_slice``, ``squeeze``, ``rev``, ``gather``, ``transpose``, ``reduce_sum``,
  ``integer_pow`` and ``conv_general_dilated`` use the BCOO (or BCSR) functions of the same name;
- ``add``, ``sub``, ``mul`` and ``div`` combine sparse and dense operands as JAX does (sparse +
  sparse concatenates entries; sparse * dense multiplies the data);
- ``jit`` and ``custom_jvp_call`` are evaluated inline; ``cond``, ``while`` and ``scan`` rebuild
  their bodies as jaxprs over the buffers and bind themselves again.

With ``use_tracer=True`` the same rules run from a ``SparseTrace`` as ``f`` binds each
primitive (its ``SparseTracer``s carry the spvalues), without tracing a jaxpr first.

The BCOO and BCSR operators (``@``, ``*``, ``+``, ``-``, ``/``, ``**``, comparisons, ``[]``,
``sum``, ``reshape``, ``astype``) are these functions of jnp sparsified, as in JAX.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.sparse import BCOO
    >>> M = BCOO.fromdense(jnp.array([[0., 2.], [3., 0.]]))
    >>> sparsify(lambda m, v: -(jnp.sin(m) @ v))(M, jnp.ones(2)).round(3).tolist()
    [-0.909000039100647, -0.14100000262260437]
"""
from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, literal_value
from ember.experimental.sparse.bcoo import BCOO
from ember.extend.core import primitives as P

__all__ = ["sparsify", "SparsifyEnv", "SparsifyValue", "SparseTracer", "eval_sparse",
           "sparse_rules_bcoo", "sparse_rules_bcsr"]

sparse_rules_bcoo: dict = {}
sparse_rules_bcsr: dict = {}

_ZERO_PRESERVING_LINEAR_UNARY = ["conj", "copy", "imag", "neg", "real"]
_ZERO_PRESERVING_UNARY = ["abs", "asin", "asinh", "atan", "atanh", "bessel_i1e", "expm1",
                          "log1p", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh",
                          "convert_element_type"]
_DENSIFYING = ["acos", "acosh", "bessel_i0e", "cos", "cosh", "eq", "exp", "ge", "gt", "le",
               "lt", "log", "ne", "xor"]


def _prim(name: str):
  return getattr(P, name + "_p")


def _raise_unimplemented(prim) -> None:
  if prim.name in _DENSIFYING:
    raise NotImplementedError(f"sparse rule for {prim} is not implemented because it would "
                              "result in dense output. If this is your intent, use "
                              "sparse.todense() to convert your arguments to dense matrices.")
  raise NotImplementedError(f"sparse rule for {prim} is not implemented.")


# --- the environment of buffers ----------------------------------------------------------------

class SparsifyValue(NamedTuple):
  """A dense or sparse array as references into a ``SparsifyEnv``'s buffers.

  Example:
      >>> SparsifyValue((2, 3), 0).is_dense()
      True
  """
  shape: tuple
  data_ref: int | None
  indices_ref: int | None = None
  indptr_ref: int | None = None
  indices_sorted: bool | None = False
  unique_indices: bool | None = False

  @property
  def ndim(self) -> int:
    return len(self.shape)

  def is_sparse(self) -> bool:
    return self.indices_ref is not None

  def is_dense(self) -> bool:
    return self.indices_ref is None

  def is_bcoo(self) -> bool:
    return self.is_sparse() and self.indptr_ref is None

  def is_bcsr(self) -> bool:
    return self.is_sparse() and self.indptr_ref is not None


class SparsifyEnv:
  """The buffers that the spvalues of one sparsified evaluation refer to.

  Example:
      >>> env = SparsifyEnv()
      >>> env.data(env.dense(1.0))
      Array(1., dtype=float32, weak_type=True)
  """

  def __init__(self, bufs=()):
    self._buffers = list(bufs)

  def _push(self, arr) -> int:
    import ember.numpy as jnp
    self._buffers.append(jnp.asarray(arr))
    return len(self._buffers) - 1

  def data(self, spvalue: SparsifyValue):
    return self._buffers[spvalue.data_ref]

  def indices(self, spvalue: SparsifyValue):
    return self._buffers[spvalue.indices_ref]

  def indptr(self, spvalue: SparsifyValue):
    return self._buffers[spvalue.indptr_ref]

  def dense(self, data) -> SparsifyValue:
    return SparsifyValue(np.shape(data), self._push(data))

  def sparse(self, shape, data=None, indices=None, indptr=None, *, data_ref=None,
             indices_ref=None, indptr_ref=None, indices_sorted=False,
             unique_indices=False) -> SparsifyValue:
    if data is not None:
      data_ref = self._push(data)
    if indices is not None:
      indices_ref = self._push(indices)
    if indptr is not None:
      indptr_ref = self._push(indptr)
    return SparsifyValue(tuple(shape), data_ref, indices_ref, indptr_ref,
                         indices_sorted=indices_sorted, unique_indices=unique_indices)


def _is_sparse_obj(x) -> bool:
  from ember.experimental.sparse.bcsr import BCSR
  return isinstance(x, (BCOO, BCSR))


def _is_spvalue(x) -> bool:
  return isinstance(x, SparsifyValue)


def arrays_to_spvalues(spenv: SparsifyEnv, args: Any) -> Any:
  """A pytree of (sparse) arrays as spvalues in ``spenv``."""
  from ember.experimental.sparse.bcsr import BCSR

  def one(arg):
    if isinstance(arg, BCOO):
      return spenv.sparse(arg.shape, arg.data, arg.indices, indices_sorted=arg.indices_sorted,
                          unique_indices=arg.unique_indices)
    if isinstance(arg, BCSR):
      return spenv.sparse(arg.shape, arg.data, arg.indices, arg.indptr,
                          indices_sorted=arg.indices_sorted, unique_indices=arg.unique_indices)
    return spenv.dense(arg)
  return pytree.tree_map(one, args, is_leaf=_is_sparse_obj)


def spvalues_to_arrays(spenv: SparsifyEnv, spvalues: Any) -> Any:
  """A pytree of spvalues as (sparse) arrays."""
  from ember.experimental.sparse.bcsr import BCSR

  def one(v):
    if v.is_bcoo():
      return BCOO((spenv.data(v), spenv.indices(v)), shape=v.shape,
                  indices_sorted=v.indices_sorted, unique_indices=v.unique_indices)
    if v.is_bcsr():
      return BCSR((spenv.data(v), spenv.indices(v), spenv.indptr(v)), shape=v.shape,
                  indices_sorted=v.indices_sorted, unique_indices=v.unique_indices)
    return spenv.data(v)
  return pytree.tree_map(one, spvalues, is_leaf=_is_spvalue)


def spvalues_to_avals(spenv: SparsifyEnv, spvalues: Any) -> Any:
  """The dense abstract values the spvalues stand for."""
  from ember.core.aval import ShapedArray
  from ember.core.trace import get_aval

  def one(v):
    aval = get_aval(spenv.data(v))
    return ShapedArray(tuple(v.shape), aval.dtype, aval.weak_type)
  return pytree.tree_map(one, spvalues, is_leaf=_is_spvalue)


# --- the interpreter ---------------------------------------------------------------------------

def eval_sparse(jaxpr: Jaxpr, consts: Sequence, spvalues: Sequence[SparsifyValue],
                spenv: SparsifyEnv) -> list[SparsifyValue]:
  """Evaluate ``jaxpr`` on spvalues: sparse rules where an input is sparse, the primitive
  itself elsewhere."""
  env: dict = {}

  def read(v):
    return spenv.dense(literal_value(v)) if isinstance(v, Literal) else env[v]

  for v, c in zip(jaxpr.constvars, consts, strict=True):
    env[v] = spenv.dense(c)
  for v, s in zip(jaxpr.invars, spvalues, strict=True):
    env[v] = s
  for eqn in jaxpr.eqns:
    prim, invals = eqn.primitive, [read(v) for v in eqn.invars]
    if any(v.is_bcsr() for v in invals):
      rule = sparse_rules_bcsr.get(prim) or _raise_unimplemented(prim)
      out = rule(spenv, *invals, **eqn.params)
    elif any(v.is_bcoo() for v in invals):
      rule = sparse_rules_bcoo.get(prim) or _raise_unimplemented(prim)
      out = rule(spenv, *invals, **eqn.params)
    else:
      bufs = prim.bind(*(spenv.data(v) for v in invals), **eqn.params)
      bufs = bufs if prim.multiple_results else [bufs]
      out = [None if isinstance(o, DropVar) else spenv.dense(b)
             for b, o in zip(bufs, eqn.outvars)]
    for v, s in zip(eqn.outvars, out, strict=True):
      if not isinstance(v, DropVar):
        env[v] = s
  return [read(v) for v in jaxpr.outvars]


def _trace(fun: Callable, avals: list, name_fun: Callable) -> ClosedJaxpr:
  from ember.transforms.staging import DebugInfo, trace_to_jaxpr
  return trace_to_jaxpr(fun, avals, DebugInfo("sparsify", name_fun))


def sparsify_raw(f: Callable) -> Callable:
  """``f`` as a function of spvalues in an env: ``(spenv, *spvalues, **params) ->
  (out_spvalues, out_tree)``."""
  def wrapped(spenv: SparsifyEnv, *spvalues, **params):
    flat, in_tree = pytree.flatten(spvalues, is_leaf=_is_spvalue)
    avals = spvalues_to_avals(spenv, flat)
    box = []

    def flat_fun(*xs):
      out = f(*pytree.unflatten(in_tree, xs), **params)
      leaves, tree = pytree.flatten(out)
      box.append(tree)
      return leaves
    closed = _trace(flat_fun, avals, f)
    return eval_sparse(closed.jaxpr, closed.consts, flat, spenv), box[0]
  return wrapped


def sparsify(f: Callable, use_tracer: bool = False) -> Callable:
  """Make ``f``, written for dense arrays, accept sparse (BCOO, BCSR) arguments.

  Args:
    f: a function of arrays.
    use_tracer: run ``f`` on ``SparseTracer``s (applying the sparse rules as each primitive is
      bound) rather than tracing it to a jaxpr first and interpreting that; the results are
      the same.

  Raises:
    NotImplementedError: for a primitive with no sparse rule, or one whose output would be
      dense (``cos``, ``exp``...).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental.sparse import BCOO
      >>> M = BCOO.fromdense(jnp.arange(12).reshape(3, 4))
      >>> sparsify(lambda M, v: 2 * M.T @ v)(M, jnp.array([3, 4, 2]))
      Array([ 64,  82, 100, 118], dtype=int32)
  """
  if use_tracer:
    return _sparsify_with_tracer(f)
  f_raw = sparsify_raw(f)

  @functools.wraps(f)
  def wrapped(*args, **params):
    spenv = SparsifyEnv()
    spvalues = arrays_to_spvalues(spenv, args)
    out, out_tree = f_raw(spenv, *spvalues, **params)
    return pytree.unflatten(out_tree, spvalues_to_arrays(spenv, out))
  return wrapped


class SparseTracer(core.Tracer):
  """A value of a function sparsified with ``use_tracer=True``: a spvalue (dense or sparse
  buffers in its trace's env) standing for an array of the dense shape.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental.sparse import BCOO
      >>> seen = []
      >>> M = BCOO.fromdense(jnp.eye(2))
      >>> _ = sparsify(lambda m: seen.append(type(m).__name__) or m, use_tracer=True)(M)
      >>> seen
      ['SparseTracer']
  """
  __slots__ = ("_spvalue",)

  def __init__(self, trace: "SparseTrace", *, spvalue: SparsifyValue):
    self._trace = trace
    self._spvalue = spvalue

  @property
  def aval(self):
    return spvalues_to_avals(self._trace.spenv, [self._spvalue])[0]

  @property
  def spenv(self) -> SparsifyEnv:
    return self._trace.spenv


class SparseTrace(core.Trace):
  """Applies sparse rules to primitives with a sparse operand, binds the others on the parent."""
  __slots__ = ("spenv",)

  def __init__(self, parent, spenv: SparsifyEnv):
    super().__init__(parent)
    self.spenv = spenv

  def to_sparse_tracer(self, x) -> SparseTracer:
    if isinstance(x, SparseTracer) and x._trace is self:
      return x
    with core.set_current_trace(self.parent):
      spvalue, = arrays_to_spvalues(self.spenv, [x])
    return SparseTracer(self, spvalue=spvalue)

  def process_primitive(self, prim, args, params):
    spvalues = [self.to_sparse_tracer(x)._spvalue for x in args]
    with core.set_current_trace(self.parent):
      if any(v.is_sparse() for v in spvalues):
        rules = sparse_rules_bcsr if any(v.is_bcsr() for v in spvalues) else sparse_rules_bcoo
        rule = rules.get(prim) or _raise_unimplemented(prim)
        out = rule(self.spenv, *spvalues, **params)
      else:
        bufs = prim.bind(*(self.spenv.data(v) for v in spvalues), **params)
        out = arrays_to_spvalues(self.spenv, bufs if prim.multiple_results else [bufs])
    tracers = [SparseTracer(self, spvalue=v) for v in out]
    return tracers if prim.multiple_results else tracers[0]


def _sparsify_with_tracer(f: Callable) -> Callable:
  @functools.wraps(f)
  def wrapped(*args):
    spenv = SparsifyEnv()
    flat, tree = pytree.flatten(args, is_leaf=_is_sparse_obj)
    trace = SparseTrace(core.current_trace(), spenv)
    ins = [SparseTracer(trace, spvalue=v) for v in arrays_to_spvalues(spenv, flat)]
    with core.set_current_trace(trace):
      out = f(*pytree.unflatten(tree, ins))
    out_flat, out_tree = pytree.flatten(out)
    spvalues = [trace.to_sparse_tracer(x)._spvalue for x in out_flat]
    return pytree.unflatten(out_tree, spvalues_to_arrays(spenv, spvalues))
  return wrapped


# --- rules -------------------------------------------------------------------------------------

def _unique(spenv: SparsifyEnv, v: SparsifyValue) -> SparsifyValue:
  """``v`` with repeated indices summed (non-linear maps of the data need each index once)."""
  if v.is_dense() or v.unique_indices:
    return v
  arr = spvalues_to_arrays(spenv, v)
  return arrays_to_spvalues(spenv, arr.sum_duplicates(nse=arr.nse, remove_zeros=False))


def _zero_preserving_unary(prim, linear: bool):
  def rule(spenv, v, **params):
    if not linear:
      v = _unique(spenv, v)
    out = prim.bind(spenv.data(v), **params)
    return (spenv.sparse(v.shape, out, indices_ref=v.indices_ref, indptr_ref=v.indptr_ref,
                         indices_sorted=v.indices_sorted, unique_indices=v.unique_indices),)
  return rule


def _standard(prim, sparse_op: Callable):
  def rule(spenv, *spvalues, **params):
    result = sparse_op(*spvalues_to_arrays(spenv, spvalues), **params)
    return arrays_to_spvalues(spenv, result if prim.multiple_results else [result])
  return rule


def _integer_pow(spenv, v, *, y):
  if y <= 0:
    raise NotImplementedError(
        f"sparse rule for {P.integer_pow_p} with non-positive exponent {y} is not implemented "
        "because it would result in dense output. If this is your intent, use "
        "sparse.todense() to convert your argument to a dense array.")
  return _zero_preserving_unary(P.integer_pow_p, False)(spenv, v, y=y)


def _transpose(spenv, v, *, permutation):
  from ember.experimental.sparse.bcoo import bcoo_transpose
  permutation = tuple(permutation)
  arr = spvalues_to_arrays(spenv, v)
  out = bcoo_transpose(arr, permutation=permutation)
  nb, ns = arr.n_batch, arr.n_sparse
  same = lambda lo, hi: permutation[lo:hi] == tuple(range(lo, hi))  # noqa: E731
  keep_data = same(0, nb) and same(nb + ns, arr.ndim)
  keep_indices = same(0, nb) and same(nb, nb + ns)
  kwds = dict(indices_sorted=out.indices_sorted, unique_indices=out.unique_indices)
  kwds.update(dict(data_ref=v.data_ref) if keep_data else dict(data=out.data))
  kwds.update(dict(indices_ref=v.indices_ref) if keep_indices else dict(indices=out.indices))
  return (spenv.sparse(out.shape, **kwds),)


def _stack(spenv, *spvalues, axis, broadcast_in_dim, concatenate):
  arrays = spvalues_to_arrays(spenv, spvalues)
  shape = arrays[0].shape
  new_shape = shape[:axis] + (1,) + shape[axis:]
  dims = [d if d < axis else d + 1 for d in range(arrays[0].ndim)]
  expanded = [broadcast_in_dim(x, shape=new_shape, broadcast_dimensions=dims) for x in arrays]
  return arrays_to_spvalues(spenv, [concatenate(expanded, dimension=axis)])


def _add(spenv, x, y):
  from ember import lax
  out_shape = tuple(np.broadcast_shapes(x.shape, y.shape))
  if x.is_sparse() and y.is_sparse():
    if x.shape != y.shape:
      raise NotImplementedError("Addition between sparse matrices of different shapes.")
    if x.indices_ref == y.indices_ref:
      data = lax.add(spenv.data(x), spenv.data(y))
      return (spenv.sparse(x.shape, data, indices_ref=x.indices_ref,
                           indices_sorted=x.indices_sorted, unique_indices=x.unique_indices),)
    xi, yi = spenv.indices(x), spenv.indices(y)
    if xi.ndim != yi.ndim or spenv.data(x).ndim != spenv.data(y).ndim:
      raise NotImplementedError("Addition between sparse matrices with different batch/dense "
                                "dimensions.")
    axis = xi.ndim - 2
    indices = lax.concatenate([xi, yi], axis)
    data = lax.concatenate([spenv.data(x), spenv.data(y)], axis)
    return (spenv.sparse(x.shape, data, indices),)
  if y.is_sparse():
    x, y = y, x
  if y.shape != out_shape:
    raise NotImplementedError(
        "Addition between a sparse array X and a dense array Y is not implemented when the "
        "output shape is larger than Y.shape. This is to prevent silent densification of a "
        "large sparse array. If this is your intent, you can explicitly cast the sparse array "
        "to a dense matrix.")
  xs, ys = spvalues_to_arrays(spenv, (x, y))
  return (spenv.dense(xs.todense() + ys),)


def _sub(spenv, x, y):
  if x.is_sparse() and y.is_sparse():
    return _add(spenv, x, *sparse_rules_bcoo[P.neg_p](spenv, y))
  raise NotImplementedError("Subtraction between sparse and dense array.")


def _mul(spenv, x, y):
  from ember import lax
  from ember.experimental.sparse._bcoo_ops import bcoo_multiply_dense, bcoo_multiply_sparse
  if x.is_sparse() and y.is_sparse():
    if x.indices_ref == y.indices_ref and x.unique_indices:
      data = lax.mul(spenv.data(x), spenv.data(y))
      return (spenv.sparse(x.shape, data, indices_ref=x.indices_ref,
                           indices_sorted=x.indices_sorted, unique_indices=True),)
    mat = bcoo_multiply_sparse(*spvalues_to_arrays(spenv, (x, y)))
    return (spenv.sparse(mat.shape, mat.data, mat.indices),)
  if y.is_sparse():
    x, y = y, x
  data = bcoo_multiply_dense(spvalues_to_arrays(spenv, x), spenv.data(y))
  return (spenv.sparse(x.shape, data, indices_ref=x.indices_ref, indices_sorted=x.indices_sorted,
                       unique_indices=x.unique_indices),)


def _div(spenv, x, y):
  from ember.experimental.sparse._bcoo_ops import bcoo_multiply_dense
  if y.is_sparse():
    raise NotImplementedError(
        "Division by a sparse array is not implemented because it would result in dense "
        "output. If this is your intent, use sparse.todense() to convert your arguments to a "
        "dense array.")
  data = bcoo_multiply_dense(spvalues_to_arrays(spenv, x), 1. / spenv.data(y))
  return (spenv.sparse(x.shape, data, indices_ref=x.indices_ref, indices_sorted=x.indices_sorted,
                       unique_indices=x.unique_indices),)


def _reduce_sum(spenv, v, *, axes, out_sharding=None):
  from ember.experimental.sparse._bcoo_ops import bcoo_reduce_sum
  mat = bcoo_reduce_sum(spvalues_to_arrays(spenv, v), axes=axes)
  if mat.shape == ():
    return (spenv.dense(mat.data.sum()),)
  return (spenv.sparse(mat.shape, mat.data, mat.indices),)


def _gather(spenv, operand, start_indices, **params):
  from ember.experimental.sparse._bcoo_ops import bcoo_gather
  mat, idx = spvalues_to_arrays(spenv, (operand, start_indices))
  if not isinstance(mat, BCOO) or not start_indices.is_dense():
    raise NotImplementedError("sparse rule for gather with sparse start indices")
  return arrays_to_spvalues(spenv, (bcoo_gather(mat, idx, **params),))


def _todense_rule(spenv, v, *, tree):
  del tree
  return (spenv.dense(spvalues_to_arrays(spenv, v).todense()),)


# --- rules of primitives carrying jaxprs -------------------------------------------------------

def _inline(jaxpr_param: str):
  """A call (``jit``, ``custom_jvp_call``): its jaxpr evaluated sparsely in place."""
  def rule(spenv, *spvalues, **params):
    closed = params[jaxpr_param]
    return eval_sparse(closed.jaxpr, closed.consts, list(spvalues), spenv)
  return rule


def _sparsify_jaxpr(closed: ClosedJaxpr, spenv: SparsifyEnv, *spvalues):
  """``closed`` rewritten over the flat buffers of its (sparse) arguments: the new jaxpr, the
  pytree of its outputs (arrays and sparse arrays) and the flat buffers."""
  args = spvalues_to_arrays(spenv, spvalues)
  flat, in_tree = pytree.flatten(args)
  box = []

  def fun(*xs):
    inner = SparsifyEnv()
    vals = arrays_to_spvalues(inner, pytree.unflatten(in_tree, xs))
    out = spvalues_to_arrays(inner, eval_sparse(closed.jaxpr, closed.consts, list(vals), inner))
    leaves, tree = pytree.flatten(out)
    box.append(tree)
    return leaves
  from ember.core.trace import get_aval
  new = _trace(fun, [get_aval(x) for x in flat], fun)
  return new, box[0], flat


def _cond(spenv, index, *operands, branches, **params):
  new = [_sparsify_jaxpr(b, spenv, *operands) for b in branches]
  trees = {repr(t) for _, t, _ in new}
  if len(trees) != 1 or len({tuple(map(str, j.out_avals)) for j, _, _ in new}) != 1:
    raise TypeError("sparsified true_fun output and sparsified false_fun output must have "
                    "identical types")
  flat = new[0][2]
  outs = P.cond_p.bind(spenv.data(index), *flat, branches=tuple(j for j, _, _ in new),
                       **params)
  return arrays_to_spvalues(spenv, pytree.unflatten(new[0][1], outs))


def _while(spenv, *spvalues, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
  cond_consts = spvalues[:cond_nconsts]
  body_consts = spvalues[cond_nconsts:cond_nconsts + body_nconsts]
  init = spvalues[cond_nconsts + body_nconsts:]
  cond_new, _, _ = _sparsify_jaxpr(cond_jaxpr, spenv, *cond_consts, *init)
  body_new, out_tree, _ = _sparsify_jaxpr(body_jaxpr, spenv, *body_consts, *init)
  flat = lambda vs: pytree.flatten(spvalues_to_arrays(spenv, vs))[0]  # noqa: E731
  cc, bc, iv = flat(cond_consts), flat(body_consts), flat(init)
  outs = P.while_p.bind(*cc, *bc, *iv, cond_jaxpr=cond_new, cond_nconsts=len(cc),
                        body_jaxpr=body_new, body_nconsts=len(bc))
  return arrays_to_spvalues(spenv, pytree.unflatten(out_tree, outs))


def _scan(spenv, *spvalues, jaxpr, num_consts, num_carry, **params):
  consts, carry = spvalues[:num_consts], spvalues[num_consts:num_consts + num_carry]
  if spvalues[num_consts + num_carry:]:
    raise NotImplementedError("sparse rule for scan with x values.")
  new, out_tree, _ = _sparsify_jaxpr(jaxpr, spenv, *consts, *carry)
  flat_consts = pytree.flatten(spvalues_to_arrays(spenv, consts))[0]
  flat_carry, carry_tree = pytree.flatten(spvalues_to_arrays(spenv, carry))
  outs = P.scan_p.bind(*flat_consts, *flat_carry, jaxpr=new, num_consts=len(flat_consts),
                       num_carry=len(flat_carry), **params)
  out = pytree.unflatten(out_tree, outs)
  return arrays_to_spvalues(spenv, out)


def _conv(spenv, lhs, rhs, **params):
  from ember.experimental.sparse._bcoo_ops import bcoo_conv_general_dilated
  kept = ("window_strides", "padding", "lhs_dilation", "rhs_dilation", "dimension_numbers",
          "feature_group_count", "batch_group_count", "precision", "preferred_element_type")
  out = bcoo_conv_general_dilated(*spvalues_to_arrays(spenv, (lhs, rhs)),
                                  **{k: v for k, v in params.items() if k in kept})
  return arrays_to_spvalues(spenv, [out])


def _install_rules() -> None:
  from ember.experimental.sparse import _bcoo_ops as ops
  from ember.experimental.sparse import bcsr
  from ember.experimental.sparse.api import todense_p
  from ember.experimental.sparse.bcoo import bcoo_dot_general
  for name in _ZERO_PRESERVING_UNARY + _ZERO_PRESERVING_LINEAR_UNARY:
    rule = _zero_preserving_unary(_prim(name), linear=name in _ZERO_PRESERVING_LINEAR_UNARY)
    sparse_rules_bcoo[_prim(name)] = sparse_rules_bcsr[_prim(name)] = rule
  standard = {
      "broadcast_in_dim": ops.bcoo_broadcast_in_dim,
      "concatenate": lambda *a, **k: ops.bcoo_concatenate(a, **k),
      "dot_general": bcoo_dot_general,
      "dynamic_slice": lambda *a, **k: ops.bcoo_dynamic_slice(a[0], a[1:], **k),
      "reshape": ops.bcoo_reshape, "rev": ops.bcoo_rev, "slice": ops.bcoo_slice,
      "squeeze": ops.bcoo_squeeze}
  for name, fn in standard.items():
    sparse_rules_bcoo[_prim(name)] = _standard(_prim(name), fn)
  for name, fn in {"dot_general": bcsr.bcsr_dot_general,
                   "broadcast_in_dim": bcsr.bcsr_broadcast_in_dim,
                   "concatenate": lambda *a, **k: bcsr.bcsr_concatenate(a, **k)}.items():
    sparse_rules_bcsr[_prim(name)] = _standard(_prim(name), fn)
  sparse_rules_bcoo.update({
      P.integer_pow_p: _integer_pow, P.transpose_p: _transpose, P.add_p: _add, P.sub_p: _sub,
      P.mul_p: _mul, P.div_p: _div, P.reduce_sum_p: _reduce_sum, P.gather_p: _gather,
      P.conv_general_dilated_p: _conv, P.jit_p: _inline("jaxpr"),
      P.custom_jvp_call_p: _inline("call_jaxpr"), P.cond_p: _cond, P.while_p: _while,
      P.scan_p: _scan, todense_p: _todense_rule})
  sparse_rules_bcsr.update({P.integer_pow_p: _integer_pow, P.jit_p: _inline("jaxpr"),
                            P.custom_jvp_call_p: _inline("call_jaxpr"),
                            todense_p: _todense_rule})
  try:
    from ember.primitives.stacking import stack_p
  except ImportError:  # lax.stack is not a primitive in this checkout
    return
  sparse_rules_bcoo[stack_p] = functools.partial(
      _stack, broadcast_in_dim=ops.bcoo_broadcast_in_dim, concatenate=ops.bcoo_concatenate)
  sparse_rules_bcsr[stack_p] = functools.partial(
      _stack, broadcast_in_dim=bcsr.bcsr_broadcast_in_dim, concatenate=bcsr.bcsr_concatenate)


# --- operators of the sparse classes -----------------------------------------------------------

def _swap(f):
  return lambda a, b: f(b, a)


def _rewriting_take(arr, idx, indices_are_sorted=False, unique_indices=False, mode=None,
                    fill_value=None):
  take = functools.partial(_dense_getitem, idx=idx, indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode, fill_value=fill_value)
  result = sparsify(take)(arr)
  if isinstance(arr, BCOO) and not isinstance(result, BCOO) and np.size(result) == 0:
    result = BCOO.fromdense(result)
  return result


def _dense_getitem(x, *, idx, indices_are_sorted, unique_indices, mode, fill_value):
  if mode is None and fill_value is None and not indices_are_sorted and not unique_indices:
    return x[idx]
  return x.at[idx].get(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode, fill_value=fill_value)


def _install_methods() -> None:
  import ember.numpy as jnp
  from ember.experimental.sparse.bcsr import BCSR
  methods = {
      "astype": lambda self, *a, **k: sparsify(lambda x: x.astype(*a, **k))(self),
      "reshape": lambda self, *a, **k: sparsify(lambda x: x.reshape(*a, **k))(self),
      "sum": lambda self, *a, **k: sparsify(lambda x: x.sum(*a, **k))(self),
      "__abs__": sparsify(jnp.abs), "__neg__": sparsify(jnp.negative),
      "__pos__": sparsify(jnp.positive), "__matmul__": sparsify(jnp.matmul),
      "__rmatmul__": sparsify(_swap(jnp.matmul)), "__mul__": sparsify(jnp.multiply),
      "__rmul__": sparsify(_swap(jnp.multiply)), "__truediv__": sparsify(jnp.divide),
      "__rtruediv__": sparsify(_swap(jnp.divide)), "__add__": sparsify(jnp.add),
      "__radd__": sparsify(_swap(jnp.add)), "__sub__": sparsify(jnp.subtract),
      "__rsub__": sparsify(_swap(jnp.subtract)),
      "__pow__": lambda x, y: sparsify(lambda x: jnp.power(x, y))(x),
      "__rpow__": sparsify(_swap(jnp.power)), "__getitem__": _rewriting_take,
      "__iter__": lambda arr: iter(arr[i] for i in range(arr.shape[0])),
      "__gt__": sparsify(jnp.greater), "__ge__": sparsify(jnp.greater_equal),
      "__lt__": sparsify(jnp.less), "__le__": sparsify(jnp.less_equal),
      "__eq__": sparsify(jnp.equal), "__ne__": sparsify(jnp.not_equal)}
  for name, impl in methods.items():
    setattr(BCOO, name, impl)
  for name in ("__matmul__", "__rmatmul__", "__getitem__"):
    setattr(BCSR, name, methods[name])
  BCOO.__hash__ = None


_install_rules()
_install_methods()


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
