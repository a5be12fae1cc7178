"""Matrix factorizations and solves on jaxlib's LAPACK kernels: ``cholesky``,
``cholesky_update``, ``triangular_solve``, ``lu``, ``lu_pivots_to_permutation``, ``qr``,
``geqrf`` and ``geqp3`` (QR in Householder form, without and with column pivoting),
``householder_product``, ``ormqr`` (a product with Q in Householder form),
``symmetric_product`` and ``tridiagonal_solve``.

They share:
- operands that are matrices in their two minor dimensions, with any number of leading batch
  dimensions, which the LAPACK kernels loop over themselves (so each batch rule only moves the
  batch axis to the front, except triangular_solve's, which folds an unbatched ``a``'s batch
  into ``b``'s columns or rows);
- dtypes float32, float64, complex64 and complex128;
- a lowering that is one LAPACK custom call (``ember.backend.lapack``; ``ffi_call`` for the
  kernels with typed attributes) followed by lax code
  (written as an ember function and lowered inline) that fixes up its results: a failed
  factorization (LAPACK's ``info``) gives NaNs, as in JAX;
- jvp rules from matrix calculus, written with the matrix helpers below (also used by
  ``ember.primitives.spectral`` and ``ember.primitives.condensed``).
``cholesky_update`` and ``symmetric_product`` have no LAPACK kernel on CPU: their lowerings are
lax code (Givens rotations, a matrix product), as JAX's.
"""
from __future__ import annotations

import functools

import numpy as np

from ember import dtypes
from ember.backend.lapack import _layout, lapack_call, lapack_prefix
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.primitives.elementwise import lax
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, is_undefined, tangent_aval
from ember.transforms.batching import batch_size, bdim_at_front, moveaxis

__all__ = []  # primitives are reached through ember.lax.linalg

_I32 = np.dtype(np.int32)


# --- shared checks and matrix helpers ----------------------------------------------------------

def weak_if_operands_weak(abstract_eval):
  """``abstract_eval`` under JAX's standard weak-type rule for linalg primitives: every output
  (pivots and info included) is weakly typed exactly when every operand is."""
  @functools.wraps(abstract_eval)
  def rule(*avals, **params):
    out = abstract_eval(*avals, **params)
    if not avals or not all(a.weak_type for a in avals):
      return out
    if isinstance(out, (list, tuple)):
      return type(out)(o.update(weak_type=True) for o in out)
    return out.update(weak_type=True)
  return rule


def check_matrix(name: str, x: ShapedArray, *, square: bool = False) -> None:
  """A TypeError unless ``x`` is a (batch of) inexact matrices, square if asked (a
  ValueError), checked in JAX's order: rank, shape, dtype."""
  check_ranks(name, [x], [2])
  if square and x.shape[-1] != x.shape[-2]:
    raise ValueError(f"The input to {name} must be a square matrix. Got shape {x.shape}.")
  check_dtypes(name, [x])


def check_ranks(name: str, avals, ranks, *, exact: bool = False,
                same_batch: bool = True) -> None:
  """JAX's first checks of a linalg primitive's operands: each of rank at least (exactly, if
  ``exact``) ``ranks[i]``, all with one number of batch dimensions (and one batch shape, if
  ``same_batch``)."""
  for i, (a, rank) in enumerate(zip(avals, ranks)):
    if a.ndim < rank:
      raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got "
                      f"shape={a.shape}")
    if exact and a.ndim != rank:
      raise TypeError(f"Input {i} to {name} must have a rank of exactly {rank}, but got "
                      f"shape={a.shape}")
  nbatch = [a.ndim - r for a, r in zip(avals, ranks)]
  if len(set(nbatch)) > 1:
    raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, but "
                    f"got {nbatch} batch dimensions for the inputs.")
  if same_batch and len({a.shape[:n] for a, n in zip(avals, nbatch)}) > 1:
    raise ValueError(f"All inputs to {name} must have the same batch dimensions, got shapes "
                     f"{', '.join(str(a.shape) for a in avals)}.")


def check_dtypes(name: str, avals, *, real_only: bool = False) -> None:
  """JAX's dtype checks of a linalg primitive's operands (made after the shape checks): inexact
  (real if ``real_only``) and all one dtype."""
  kinds = "floating" if real_only else "floating, complexfloating"
  for i, a in enumerate(avals):
    if not (dtypes.is_float(a.dtype) if real_only else dtypes.is_inexact(a.dtype)):
      raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position {i}. Accepted "
                      f"dtypes at position {i} are subtypes of {kinds}.")
  if len({a.dtype for a in avals}) > 1:
    raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                    f"{', '.join(a.dtype.name for a in avals)}.")


_COMPLEX_NAMES = {"orgqr": "ungqr", "ormqr": "unmqr", "syevd": "heevd", "sytrd": "hetrd"}


def routine(name: str, dtype) -> str:
  """The LAPACK routine ``name`` for ``dtype`` (``orgqr`` is ``ungqr``... for complex)."""
  prefix = lapack_prefix(dtype)
  return prefix + (_COMPLEX_NAMES.get(name, name) if prefix in "cz" else name)


def ffi_call(ctx, target: str, operands, out_avals, *, num_batch_dims: int,
             attrs: dict[str, str] | None = None, aliases=()) -> list:
  """Emit a call of jaxlib's CPU kernel ``target`` (its full name, e.g.
  ``"lapack_sgehrd_ffi"``) whose attributes are typed: ``attrs`` maps each to its MLIR text
  (``"1 : i32"``, ``"true"``). Otherwise as ``lapack_call``: column-major matrices, a loop
  over ``num_batch_dims`` leading dimensions, (result, operand) ``aliases``."""
  alias_attr = ", ".join(
      "#stablehlo.output_operand_alias<output_tuple_indices = "
      f"{'[]' if len(out_avals) == 1 else f'[{r}]'}, operand_index = {o}, "
      "operand_tuple_indices = []>" for r, o in aliases)
  layouts = lambda ranks: "[" + ", ".join(_layout(r, num_batch_dims) for r in ranks) + "]"
  config = ", ".join(f"{k} = {v}" for k, v in sorted((attrs or {}).items()))
  return ctx.op("stablehlo.custom_call", list(operands), list(out_avals), {
      "api_version": "1 : i32", "backend_config": '""', "call_target_name": f'"{target}"',
      "called_computations": "[]", "has_side_effect": "false",
      "operand_layouts": layouts([v.aval.ndim for v in operands]),
      "output_operand_aliases": f"[{alias_attr}]",
      "result_layouts": layouts([a.ndim for a in out_avals]),
      "mhlo.backend_config": f"{{{config}}}",
      "mhlo.frontend_attributes": f'{{num_batch_dims = "{num_batch_dims}"}}'})


def batch_dims(x: ShapedArray) -> tuple[int, ...]:
  """The leading dimensions of a (batch of) matrices."""
  return x.shape[:x.ndim - 2]


def apply_lax(ctx, fn, *values, multiple_results: bool = True):
  """Lower the ember function ``fn`` applied to lowered ``values`` inline; its results."""
  return lower_fun(fn, multiple_results=multiple_results)(ctx, *values)


def nan_unless(ok, *xs) -> list:
  """Each ``x`` where ``ok`` (a bool per matrix of the batch) holds, NaN elsewhere."""
  outs = []
  for x in xs:
    a = get_aval(x)
    mask = lax.broadcast_in_dim(ok, a.shape, tuple(range(get_aval(ok).ndim)))
    nan = np.array(complex(np.nan, np.nan) if dtypes.is_complex(a.dtype) else np.nan, a.dtype)
    outs.append(lax.select(mask, x, lax.full(a.shape, nan)))
  return outs


def mT(x):
  """The transpose of the two minor dimensions."""
  n = get_aval(x).ndim
  return lax.transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def mH(x):
  """The conjugate transpose of the two minor dimensions."""
  x = mT(x)
  return lax.conj(x) if dtypes.is_complex(get_aval(x).dtype) else x


def matmul(a, b):
  """The matrix product over the minor dimensions of two operands with equal batch dims."""
  nb = get_aval(a).ndim - 2
  batch = tuple(range(nb))
  return lax.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)))


def tri(x, lower: bool, k: int = 0):
  """``x`` with the elements outside the triangle zeroed: below-or-on the ``k``-th diagonal
  (``j <= i + k``) when ``lower``, on-or-above it (``j >= i + k``) otherwise. The mask is
  built for one matrix and broadcast over the batch, as JAX's ``tril``/``triu`` do."""
  a = get_aval(x)
  m, n = a.shape[-2:]
  i = lax.add(lax.broadcasted_iota(_I32, (m, n), 0), np.int32(k if lower else k - 1))
  below = lax.ge(i, lax.broadcasted_iota(_I32, (m, n), 1))
  if a.ndim > 2:
    below = lax.broadcast_in_dim(below, a.shape, (a.ndim - 2, a.ndim - 1))
  zeros = lax.full_like(x, 0)  # (weak when x is, so select keeps x's weak type, as in JAX)
  return lax.select(below, x, zeros) if lower else lax.select(below, zeros, x)


def eye(n: int, dtype, batch: tuple = ()):
  i = lax.broadcasted_iota(_I32, batch + (n, n), len(batch))
  j = lax.broadcasted_iota(_I32, batch + (n, n), len(batch) + 1)
  return lax._convert_element_type(lax.eq(i, j), dtype)


def diagonal(x):
  """The main diagonals of a (batch of) square matrices, as the last axis."""
  a = get_aval(x)
  n = a.shape[-1]
  return lax.reduce_sum(lax.mul(x, eye(n, a.dtype, batch_dims(a))), (a.ndim - 1,))


def diag_matrix(v):
  """Square matrices with ``v``'s last axis on their diagonals."""
  a = get_aval(v)
  n = a.shape[-1]
  return lax.mul(lax.broadcast_in_dim(v, a.shape + (n,), tuple(range(a.ndim))),
                 eye(n, a.dtype, a.shape[:-1]))


def real_of(x):
  """The real part as the same (possibly complex) dtype."""
  dt = get_aval(x).dtype
  return lax._convert_element_type(lax.real(x), dt) if dtypes.is_complex(dt) else x


def zero_tangent(x):
  return Zero(tangent_aval(get_aval(x)))


def batch_at_front(prim: Primitive):
  """The batch rule of ops that loop over leading batch dimensions natively: move every
  operand's batch axis to the front (broadcasting unbatched operands)."""
  def rule(axis, vals, dims, **params):
    size = batch_size(vals, dims)
    out = prim.bind(*[bdim_at_front(v, d, size) for v, d in zip(vals, dims)], **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)
  return rule


# --- cholesky ---------------------------------------------------------------------------------

@weak_if_operands_weak
def _cholesky_abstract_eval(x):
  check_matrix("cholesky", x, square=True)
  return x.strip_weak_type()


def _cholesky_lower(ctx, x):
  """potrf writes the factor into the lower triangle, leaving the upper one as it was (the
  public wrapper zeroes it)."""
  info = ShapedArray(batch_dims(x.aval), _I32)
  factor, info = lapack_call(ctx, routine("potrf", x.aval.dtype), [x], [x.aval, info],
                             num_batch_dims=x.aval.ndim - 2, config={"uplo": "L"},
                             aliases=[(0, 0)])
  return apply_lax(ctx, lambda f, info: nan_unless(lax.eq(info, np.int32(0)), f)[0], factor,
                   info, multiple_results=False)


def _cholesky_jvp(primals, tangents):
  """A = L L^H gives L^-1 dA L^-H = L^-1 dL + (L^-1 dL)^H, whose lower triangle (with half
  the diagonal) is the lower-triangular L^-1 dL."""
  (x,), (t,) = primals, tangents
  low = tri(cholesky_p.bind(x), lower=True)
  if type(t) is Zero:
    return low, zero_tangent(low)
  t = trsm(low, t, left_side=False, lower=True, transpose_a=True, conjugate_a=True)
  t = trsm(low, t, left_side=True, lower=True)
  half_diag = lax.mul(t, lax.mul(eye(get_aval(t).shape[-1], get_aval(t).dtype,
                                     batch_dims(get_aval(t))), np.array(0.5, get_aval(t).dtype)))
  phi = lax.add(tri(t, lower=True, k=-1), half_diag)
  return low, matmul(low, phi)


cholesky_p = Primitive("cholesky")
cholesky_p.def_rules(abstract_eval=_cholesky_abstract_eval, lower=_cholesky_lower,
                     jvp=_cholesky_jvp, batch=batch_at_front(cholesky_p))
cholesky_p.def_unsupported("transpose", "it is not linear")


# --- cholesky_update and symmetric_product (lax code on CPU) ----------------------------------

@weak_if_operands_weak
def _cholesky_update_abstract_eval(r, w):
  check_ranks("cholesky_update", [r, w], [2, 1], exact=True)
  if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
    raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                     f"vector of the same size as input. Got shapes {r.shape} and {w.shape} "
                     "instead")
  check_dtypes("cholesky_update", [r, w], real_only=True)
  return r.strip_weak_type()


def _cholesky_update(r, w):
  """The upper factor of R^T R + w w^T: row k of R and the remaining w are rotated (a Givens
  rotation, scaled against overflow) so that w[k] becomes zero."""
  n = get_aval(w).shape[0]
  dt = get_aval(w).dtype
  rows = [lax.index_in_dim(r, k, 0, keepdims=False) for k in range(n)]
  one, zero = np.ones((), dt), np.zeros((), dt)
  for k in range(n):
    x, y = lax.index_in_dim(rows[k], k, 0, False), lax.index_in_dim(w, k, 0, False)
    scale = lax.max(lax.abs(x), lax.abs(y))
    x, y = lax.div(x, scale), lax.div(y, scale)
    inv_norm = lax.rsqrt(lax.add(lax.mul(x, x), lax.mul(y, y)))
    y_zero = lax.eq(lax.index_in_dim(w, k, 0, False), zero)
    c = lax.select(y_zero, one, lax.mul(x, inv_norm))
    s = lax.select(y_zero, zero, lax.neg(lax.mul(y, inv_norm)))
    rows[k], w = (lax.sub(lax.mul(c, rows[k]), lax.mul(s, w)),
                  lax.add(lax.mul(c, w), lax.mul(s, rows[k])))
  return lax.concatenate([lax.expand_dims(row, (0,)) for row in rows], 0) if n else r


cholesky_update_p = Primitive("cholesky_update")
cholesky_update_p.def_rules(abstract_eval=_cholesky_update_abstract_eval,
                            lower=lower_fun(_cholesky_update))
cholesky_update_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")
cholesky_update_p.def_unsupported("batch", "batching is not implemented in JAX either")


@weak_if_operands_weak
def _symmetric_product_abstract_eval(a, c, *, alpha, beta):
  check_ranks("symmetric_product", [a, c], [2, 2])
  if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
    raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                     f"square matrix of shape (n, n). Got shapes {a.shape} and {c.shape}.")
  check_dtypes("symmetric_product", [a, c], real_only=True)
  return c.strip_weak_type()


def _symmetric_product(a, c, *, alpha, beta):
  """alpha A A^T + beta C, all of it (only a GPU kernel would fill one triangle)."""
  dt = get_aval(c).dtype
  prod = lax.dot_general(a, a, (((get_aval(a).ndim - 1,), (get_aval(a).ndim - 1,)),
                                (tuple(range(get_aval(a).ndim - 2)),) * 2),
                         precision=lax.Precision.HIGHEST)
  return lax.add(lax.mul(np.array(alpha, dt), prod), lax.mul(np.array(beta, dt), c))


symmetric_product_p = Primitive("symmetric_product")
symmetric_product_p.def_rules(abstract_eval=_symmetric_product_abstract_eval,
                              lower=lower_fun(_symmetric_product),
                              batch=batch_at_front(symmetric_product_p))
symmetric_product_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


# --- triangular_solve ---------------------------------------------------------------------------

@weak_if_operands_weak
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
  if a.ndim < 2 or b.ndim < 2:
    raise TypeError("triangular_solve requires operands of rank at least 2, got shapes "
                    f"{a.shape} and {b.shape}.")
  if a.shape[-1] != a.shape[-2]:
    raise ValueError("The first input to triangular_solve must be a square matrix. Got shape "
                     f"{a.shape}.")
  if a.ndim != b.ndim:
    raise TypeError("All inputs to triangular_solve must have the same number of batch "
                    f"dimensions, but got {[a.ndim - 2, b.ndim - 2]} batch dimensions for the "
                    "inputs.")
  if a.shape[:-2] != b.shape[:-2]:
    raise ValueError("triangular_solve requires a and b to have the same batch dimensions, got "
                     f"shapes {a.shape} and {b.shape}.")
  common = b.shape[-2] if left_side else b.shape[-1]
  if common != a.shape[-1]:
    raise ValueError("Incompatible shapes for arguments to triangular_solve: "
                     f"{a.shape} and {b.shape}.")
  if a.dtype != b.dtype:
    raise TypeError("triangular_solve requires a and b to have the same dtype, got "
                    f"{a.dtype.name} and {b.dtype.name}.")
  check_matrix("triangular_solve", a)
  return b.strip_weak_type()


def _triangular_solve_lower(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
  """trsm applies op(a) = a, a^T or a^H; a conjugated, untransposed a is conjugated first."""
  complex_ = dtypes.is_complex(a.aval.dtype)
  if conjugate_a and not transpose_a and complex_:
    a = apply_lax(ctx, lax.conj, a, multiple_results=False)
  trans = "N" if not transpose_a else ("C" if conjugate_a and complex_ else "T")
  config = {"side": "L" if left_side else "R", "uplo": "L" if lower else "U",
            "trans_x": trans, "diag": "U" if unit_diagonal else "N"}
  return lapack_call(ctx, routine("trsm", a.aval.dtype), [a, b], [b.aval],
                     num_batch_dims=a.aval.ndim - 2, config=config, aliases=[(0, 1)])[0]


def _op_a(x, transpose_a, conjugate_a):
  if transpose_a:
    x = mT(x)
  return lax.conj(x) if conjugate_a and dtypes.is_complex(get_aval(x).dtype) else x


def _triangular_solve_jvp(primals, tangents, **params):
  """op(a) x = b gives op(a) dx = db - op(da) x, with da restricted to the triangle the solve
  reads (without the diagonal when it is a unit one)."""
  (a, b), (ta, tb) = primals, tangents
  x = triangular_solve_p.bind(a, b, **params)
  if type(ta) is Zero and type(tb) is Zero:
    return x, zero_tangent(x)
  rhs = tb
  if type(ta) is not Zero:
    k = (-1 if params["lower"] else 1) if params["unit_diagonal"] else 0
    op_da = _op_a(tri(ta, params["lower"], k), params["transpose_a"], params["conjugate_a"])
    prod = matmul(op_da, x) if params["left_side"] else matmul(x, op_da)
    rhs = lax.neg(prod) if type(tb) is Zero else lax.sub(tb, prod)
  return x, triangular_solve_p.bind(a, rhs, **params)


def _triangular_solve_transpose(ct, a, b, *, transpose_a, **params):
  """b -> op(a)^-1 b transposes to ct -> op(a)^-T ct: the same solve with transpose_a flipped
  (conjugation stays as it is)."""
  if is_undefined(a):
    raise ValueError("triangular_solve is linear in b only; its transpose needs a known a.")
  if type(ct) is Zero:
    return [None, Zero(b.aval)]
  return [None, triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


def _triangular_solve_batch(axis, vals, dims, *, left_side, **params):
  """An unbatched ``a``: the examples of ``b`` become extra columns (left side) or rows (right
  side) of one solve. Otherwise both move their batch axis to the front."""
  (a, b), (da, db) = vals, dims
  if da is None:
    shape = get_aval(b).shape
    nd = len(shape)
    if left_side:  # b[..., m, n] with its batch axis last: (m, n * batch) columns
      b = moveaxis(b, db, nd - 1)
      s = get_aval(b).shape
      x = triangular_solve_p.bind(a, lax.reshape(b, s[:-2] + (s[-2] * s[-1],)),
                                  left_side=True, **params)
      return lax.reshape(x, s), nd - 1
    b = moveaxis(b, db, nd - 3)  # batch axis before the rows: (batch * m, n)
    s = get_aval(b).shape
    x = triangular_solve_p.bind(a, lax.reshape(b, s[:-3] + (s[-3] * s[-2], s[-1])),
                                left_side=False, **params)
    return lax.reshape(x, s), nd - 3
  size = batch_size(vals, dims)
  return triangular_solve_p.bind(bdim_at_front(a, da, size), bdim_at_front(b, db, size),
                                 left_side=left_side, **params), 0


triangular_solve_p = Primitive("triangular_solve")
triangular_solve_p.def_rules(
    abstract_eval=_triangular_solve_abstract_eval, lower=_triangular_solve_lower,
    jvp=_triangular_solve_jvp, transpose=_triangular_solve_transpose,
    batch=_triangular_solve_batch)


def trsm(a, b, *, left_side: bool, lower: bool, transpose_a: bool = False,
         conjugate_a: bool = False, unit_diagonal: bool = False):
  """``triangular_solve`` with JAX's canonical flags (conjugation only of complex ``a``)."""
  return triangular_solve_p.bind(
      a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
      conjugate_a=conjugate_a and dtypes.is_complex(get_aval(a).dtype),
      unit_diagonal=unit_diagonal)


# --- lu_pivots_to_permutation -----------------------------------------------------------------

@weak_if_operands_weak
def _pivots_abstract_eval(pivots, *, permutation_size: int):
  if pivots.dtype != _I32:
    raise TypeError(f"lu_pivots_to_permutation does not accept dtype {pivots.dtype.name} at "
                    "position 0. Accepted dtypes at position 0 are subtypes of int32.")
  if pivots.ndim < 1:
    raise ValueError("Argument to lu_pivots_to_permutation must have rank >= 1, got shape "
                     f"{pivots.shape}")
  if permutation_size < pivots.shape[-1]:
    raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                     f"dimension of the pivots. Got pivots size {pivots.shape[-1]}")
  return ShapedArray(pivots.shape[:-1] + (permutation_size,), _I32)


def _swap_step(i, pivots, perm):
  """One step of applying the row swaps: swap ``perm[i]`` and ``perm[pivots[i]]``."""
  shape = get_aval(perm).shape
  last = len(shape) - 1
  j = lax.dynamic_slice_in_dim(pivots, i, 1, last, allow_negative_indices=False)
  p_i = lax.dynamic_slice_in_dim(perm, i, 1, last, allow_negative_indices=False)
  iota = lax.broadcasted_iota(_I32, shape, last)
  at_j = lax.eq(iota, lax.broadcast_in_dim(j, shape, tuple(range(len(shape)))))
  zeros = lax.full(shape, np.int32(0))
  p_j = lax.reduce_sum(lax.select(at_j, perm, zeros), (last,))
  p_j = lax.broadcast_in_dim(p_j, shape, tuple(range(last)))
  p_i = lax.broadcast_in_dim(p_i, shape, tuple(range(len(shape))))
  at_i = lax.eq(iota, lax.broadcast_in_dim(i, shape, ()))
  return lax.select(at_i, p_j, lax.select(at_j, p_i, perm))


def _traced_region(ctx, fn, avals):
  """A region whose block runs the ember function ``fn`` on its arguments."""
  from ember.backend import lowering
  from ember.transforms.staging import trace_to_jaxpr  # staging sits above primitives
  closed = trace_to_jaxpr(lambda *xs: list(fn(*xs)), list(avals))

  def body(sub, args):
    consts = [sub.constant(c, v.aval) for c, v in zip(closed.consts, closed.jaxpr.constvars)]
    return lowering.lower_jaxpr(sub, closed.jaxpr, consts, args)
  return ctx.region(avals, body)


def _pivots_to_permutation_lower(ctx, pivots, *, permutation_size: int):
  """A ``stablehlo.while`` over the pivots, each step one swap (for all the batch at once)."""
  shape = pivots.aval.shape
  perm_aval = ShapedArray(shape[:-1] + (permutation_size,), _I32)
  scalar = ShapedArray((), _I32)
  start = ctx.constant(np.int32(0), scalar)
  perm = apply_lax(ctx, lambda: lax.broadcasted_iota(_I32, perm_aval.shape, len(shape) - 1),
                   multiple_results=False)
  if shape[-1] == 0:  # no pivots (an empty matrix): nothing to swap
    return perm
  avals = [scalar, pivots.aval, perm_aval]
  cond = _traced_region(ctx, lambda i, *_: [lax.lt(i, np.int32(shape[-1]))], avals)
  body = _traced_region(
      ctx, lambda i, piv, p: [lax.add(i, np.int32(1)), piv, _swap_step(i, piv, p)], avals)
  return ctx.op("stablehlo.while", [start, pivots, perm], avals, None, [cond, body])[2]


def _int_jvp(prim: Primitive):
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    return out, zero_tangent(out)
  return jvp


lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")
lu_pivots_to_permutation_p.def_rules(
    abstract_eval=_pivots_abstract_eval, lower=_pivots_to_permutation_lower,
    jvp=_int_jvp(lu_pivots_to_permutation_p),
    batch=batch_at_front(lu_pivots_to_permutation_p))


# --- lu ---------------------------------------------------------------------------------------

@weak_if_operands_weak
def _lu_abstract_eval(x):
  check_matrix("lu", x)
  m, n = x.shape[-2:]
  batch = batch_dims(x)
  return [x.strip_weak_type(), ShapedArray(batch + (min(m, n),), _I32),
          ShapedArray(batch + (m,), _I32)]


def _lu_lower(ctx, x):
  """getrf gives 1-based pivots and ``info`` (< 0 for bad arguments, > 0 for an exactly
  singular U, which is still a valid factorization)."""
  batch = batch_dims(x.aval)
  m, n = x.aval.shape[-2:]
  outs = [x.aval, ShapedArray(batch + (min(m, n),), _I32), ShapedArray(batch, _I32)]
  lu, pivots, info = lapack_call(ctx, routine("getrf", x.aval.dtype), [x], outs,
                                 num_batch_dims=len(batch), aliases=[(0, 0)])

  def fix(lu, pivots, info):
    pivots = lax.sub(pivots, np.int32(1))
    perm = lu_pivots_to_permutation_p.bind(pivots, permutation_size=m)
    return [nan_unless(lax.ge(info, np.int32(0)), lu)[0], pivots, perm]
  return apply_lax(ctx, fix, lu, pivots, info)


def permute_rows(x, perm):
  """``x[..., perm, :]`` (one gather, with the batch dimensions as batching dimensions)."""
  a = get_aval(x)
  nb = a.ndim - 2
  batch = tuple(range(nb))
  dn = lax.GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                  start_index_map=(nb,), operand_batching_dims=batch,
                                  start_indices_batching_dims=batch)
  idx = lax.broadcast_in_dim(perm, get_aval(perm).shape + (1,), tuple(range(nb + 1)))
  return lax.gather(x, idx, dn, (1,) * (nb + 1) + (a.shape[-1],), unique_indices=True,
                    mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)


def inverse_permutation(perm):
  iota = lax.broadcasted_iota(_I32, get_aval(perm).shape, get_aval(perm).ndim - 1)
  return lax.sort_key_val(perm, iota, dimension=get_aval(perm).ndim - 1)[1]


def lu_solve(lu, perm, b, *, adjoint: bool = False):
  """The solution of A x = b (A^H x = b if ``adjoint``) for b of shape [..., n, k], given
  P A = L U packed in ``lu`` and the permutation ``perm`` (``lu``'s triangles are read
  directly: each triangular solve ignores the other one)."""
  flags = {"left_side": True, "transpose_a": adjoint, "conjugate_a": adjoint}
  if not adjoint:
    y = trsm(lu, permute_rows(b, perm), lower=True, unit_diagonal=True, **flags)
    return trsm(lu, y, lower=False, **flags)
  y = trsm(lu, b, lower=False, **flags)  # A^H = U^H L^H P
  y = trsm(lu, y, lower=True, unit_diagonal=True, **flags)
  return permute_rows(y, inverse_permutation(perm))


def lu_factors(lu):
  """The square unit-lower ``l`` (m x m) and upper ``u`` (n x n) factors packed in ``lu``
  (m x n), each completed with an identity block where the factorization is rectangular."""
  a = get_aval(lu)
  m, n = a.shape[-2:]
  k = min(m, n)
  nb = a.ndim - 2
  zero = np.zeros((), a.dtype)
  low = tri(lax.slice(lu, (0,) * a.ndim, a.shape[:-1] + (k,)), lower=True, k=-1)
  low = lax.add(lax.pad(low, zero, [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)]),
                eye(m, a.dtype, a.shape[:-2]))
  u = tri(lax.slice(lu, (0,) * a.ndim, a.shape[:-2] + (k, n)), lower=False)
  u_eye = lax.pad(eye(n - k, a.dtype, a.shape[:-2]), zero, [(0, 0, 0)] * nb + [(k, 0, 0)] * 2)
  u = lax.add(lax.pad(u, zero, [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)]), u_eye)
  return low, u


def _lu_jvp(primals, tangents):
  """P A = L U gives L^-1 P dA U^-1 = L^-1 dL + dU U^-1: its strictly lower part is L^-1 dL,
  its upper part dU U^-1 (rectangular factors are completed to square ones)."""
  (x,), (t,) = primals, tangents
  lu, pivots, perm = outs = lu_p.bind(x)
  int_zeros = [zero_tangent(pivots), zero_tangent(perm)]
  if type(t) is Zero:
    return outs, [zero_tangent(lu)] + int_zeros
  low, u = lu_factors(lu)
  la = trsm(low, permute_rows(t, perm), left_side=True, lower=True, unit_diagonal=True)
  lau = trsm(u, la, left_side=False, lower=False)
  lu_dot = lax.add(matmul(low, tri(lau, lower=True, k=-1)), matmul(tri(lau, lower=False), u))
  return outs, [lu_dot] + int_zeros


lu_p = Primitive("lu", multiple_results=True)
lu_p.def_rules(abstract_eval=_lu_abstract_eval, lower=_lu_lower, jvp=_lu_jvp,
               batch=batch_at_front(lu_p))
lu_p.def_unsupported("transpose", "it is not linear")


# --- qr and householder_product ------------------------------------------------------------------

@weak_if_operands_weak
def _qr_abstract_eval(x, *, pivoting, full_matrices, use_magma):
  check_matrix("qr", x)
  m, n = x.shape[-2:]
  batch = batch_dims(x)
  k = m if full_matrices else min(m, n)
  outs = [ShapedArray(batch + (m, k), x.dtype), ShapedArray(batch + (k, n), x.dtype)]
  if pivoting:
    outs.append(ShapedArray(batch + (n,), _I32))
  return outs


def _householder(ctx, a, taus):
  """orgqr/ungqr: the product of the reflectors stored below ``a``'s diagonal."""
  return lapack_call(ctx, routine("orgqr", a.aval.dtype), [a, taus], [a.aval],
                     num_batch_dims=a.aval.ndim - 2, aliases=[(0, 0)])[0]


def _qr_lower(ctx, x, *, pivoting, full_matrices, use_magma):
  """geqrf (geqp3 with pivoting) stores R on and above the diagonal and the reflectors below;
  Q is their product, taken over m columns for full matrices (padding ``a``'s columns) or
  min(m, n) otherwise."""
  batch = batch_dims(x.aval)
  nb = len(batch)
  m, n = x.aval.shape[-2:]
  k = min(m, n)
  if pivoting:
    jpvt = ctx.constant(np.zeros((), _I32), ShapedArray(batch + (n,), _I32))
    a, jpvt, taus = _geqp3_lower(ctx, x, jpvt)
  else:
    a, taus = _geqrf_lower(ctx, x)
  q_cols = m if full_matrices else k
  zero = np.zeros((), x.aval.dtype)

  def q_input(a):
    if q_cols > n:
      return lax.pad(a, zero, [(0, 0, 0)] * (nb + 1) + [(0, q_cols - n, 0)])
    return lax.slice(a, (0,) * (nb + 2), batch + (m, q_cols))
  q = _householder(ctx, apply_lax(ctx, q_input, a, multiple_results=False), taus)

  def r_of(a):
    r = tri(a, lower=False)
    return lax.slice(r, (0,) * (nb + 2), batch + (q_cols, n)) if q_cols < m else r
  r = apply_lax(ctx, r_of, a, multiple_results=False)
  if pivoting:
    return [q, r, apply_lax(ctx, lambda p: lax.sub(p, np.int32(1)), jpvt,
                            multiple_results=False)]
  return [q, r]


def _thin_qr_jvp(q, r, dx):
  """X = QR with Q m x n, R n x n: C = Q^H dX R^-1 = Q^H dQ + dR R^-1, whose first term is
  skew-Hermitian and second upper triangular; for complex inputs the imaginary part of C's
  diagonal goes to the skew part, so that R's diagonal stays real."""
  dx_rinv = trsm(r, dx, left_side=False, lower=False)
  c = matmul(mH(q), dx_rinv)
  low = tri(c, lower=True, k=-1)
  omega = lax.sub(low, mH(low))
  a = get_aval(c)
  if dtypes.is_complex(a.dtype):
    omega = lax.add(omega, lax.mul(eye(a.shape[-1], a.dtype, batch_dims(a)),
                                   lax.sub(c, real_of(c))))
  dq = lax.add(matmul(q, lax.sub(omega, c)), dx_rinv)
  dr = matmul(lax.sub(c, omega), r)
  return dq, dr


def _cols(x, start, stop):
  a = get_aval(x)
  return lax.slice(x, (0,) * (a.ndim - 1) + (start,), a.shape[:-1] + (stop,))


def _rows(x, start, stop):
  a = get_aval(x)
  return lax.slice(x, (0,) * (a.ndim - 2) + (start, 0),
                   a.shape[:-2] + (stop, a.shape[-1]))


def _full_qr_extra_columns(q, dq_thin, n):
  """The tangent of the m - n columns that complete a full Q (m > n). They are a Householder
  completion, which fixes them as a function of the thin Q: with Q_thin = [Q_nn; Q_pn] and
  Z = Q_pn (Q_nn - I)^-1, d Q_extra = dQ Z^H - (Q_thin + Q_extra Z)(dQ_pn - Z dQ_nn)^H
  (the derivation of arXiv:2409.13374 for the completed QR)."""
  m = get_aval(q).shape[-2]
  q_thin, q_extra = _cols(q, 0, n), _cols(q, n, m)
  q_nn, q_pn = _rows(q_thin, 0, n), _rows(q_thin, n, m)
  dq_nn, dq_pn = _rows(dq_thin, 0, n), _rows(dq_thin, n, m)
  a = get_aval(q_nn)
  lu, _, perm = lu_p.bind(lax.sub(q_nn, eye(n, a.dtype, batch_dims(a))))
  z_h = lu_solve(lu, perm, mH(q_pn), adjoint=True)  # Z^H = (Q_nn - I)^-H Q_pn^H
  z = mH(z_h)
  return lax.sub(matmul(dq_thin, z_h),
                 matmul(lax.add(q_thin, matmul(q_extra, z)),
                        mH(lax.sub(dq_pn, matmul(z, dq_nn)))))


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
  (x,), (dx,) = primals, tangents
  outs = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
  q, r = outs[:2]
  extra = [zero_tangent(outs[2])] if pivoting else []
  if type(dx) is Zero:
    return outs, [zero_tangent(q), zero_tangent(r)] + extra
  if pivoting:  # X P = Q R: the tangent's columns are permuted like X's
    dx = mT(permute_rows(mT(dx), outs[2]))
  m, n = get_aval(x).shape[-2:]
  if m < n:  # X = Q [R1 R2]: X1 = Q R1 is square, and R2 = Q^H X2
    dq, dr1 = _thin_qr_jvp(q, _cols(r, 0, m), _cols(dx, 0, m))
    x2 = _cols(mT(permute_rows(mT(x), outs[2])) if pivoting else x, m, n)
    dr2 = lax.add(matmul(mH(dq), x2), matmul(mH(q), _cols(dx, m, n)))
    return outs, [dq, lax.concatenate([dr1, dr2], get_aval(dr1).ndim - 1)] + extra
  if not full_matrices or m == n:
    dq, dr = _thin_qr_jvp(q, r, dx)
    return outs, [dq, dr] + extra
  dq_thin, dr = _thin_qr_jvp(_cols(q, 0, n), _rows(r, 0, n), dx)
  dq = lax.concatenate([dq_thin, _full_qr_extra_columns(q, dq_thin, n)], get_aval(q).ndim - 1)
  zeros = lax.full(batch_dims(get_aval(dr)) + (m - n, n), np.zeros((), get_aval(dr).dtype))
  return outs, [dq, lax.concatenate([dr, zeros], get_aval(dr).ndim - 2)] + extra


qr_p = Primitive("qr", multiple_results=True)
qr_p.def_rules(abstract_eval=_qr_abstract_eval, lower=_qr_lower, jvp=_qr_jvp,
               batch=batch_at_front(qr_p))
qr_p.def_unsupported("transpose", "it is not linear")


@weak_if_operands_weak
def _geqrf_abstract_eval(x):
  check_matrix("geqrf", x)
  return [x.strip_weak_type(), ShapedArray(batch_dims(x) + (min(x.shape[-2:]),), x.dtype)]


def _geqrf_lower(ctx, x):
  taus = ShapedArray(batch_dims(x.aval) + (min(x.aval.shape[-2:]),), x.aval.dtype)
  return lapack_call(ctx, routine("geqrf", x.aval.dtype), [x], [x.aval, taus],
                     num_batch_dims=x.aval.ndim - 2, aliases=[(0, 0)])


# The Householder form of QR (R above the diagonal, the reflectors below, and their scales).
geqrf_p = Primitive("geqrf", multiple_results=True)
geqrf_p.def_rules(abstract_eval=_geqrf_abstract_eval, lower=_geqrf_lower,
                  batch=batch_at_front(geqrf_p))
geqrf_p.def_unsupported("jvp", "JAX defines no derivative for it either; use qr")


@weak_if_operands_weak
def _geqp3_abstract_eval(x, jpvt):
  check_ranks("geqp3", [x, jpvt], [2, 1])
  if jpvt.shape != batch_dims(x) + x.shape[-1:]:
    raise ValueError("geqp3 requires jpvt of shape [..., n] for a of shape [..., m, n], got "
                     f"{x.shape} and {jpvt.shape}.")
  check_dtypes("geqp3", [x])
  if jpvt.dtype != _I32:
    raise TypeError(f"geqp3 requires int32 column pivots jpvt, got {jpvt.dtype.name}.")
  return [x.strip_weak_type(), jpvt.strip_weak_type(),
          ShapedArray(batch_dims(x) + (min(x.shape[-2:]),), x.dtype)]


def _geqp3_lower(ctx, x, jpvt):
  """geqp3: QR with column pivoting; ``jpvt`` marks (nonzero, 1-based) the columns to move to
  the front first and returns the 1-based permutation."""
  taus = ShapedArray(batch_dims(x.aval) + (min(x.aval.shape[-2:]),), x.aval.dtype)
  return lapack_call(ctx, routine("geqp3", x.aval.dtype), [x, jpvt], [x.aval, jpvt.aval, taus],
                     num_batch_dims=x.aval.ndim - 2, aliases=[(0, 0), (1, 1)])


# The Householder form of pivoted QR: (h, jpvt, taus) with LAPACK's 1-based permutation.
geqp3_p = Primitive("geqp3", multiple_results=True)
geqp3_p.def_rules(abstract_eval=_geqp3_abstract_eval, lower=_geqp3_lower,
                  batch=batch_at_front(geqp3_p))
geqp3_p.def_unsupported("jvp", "JAX defines no derivative for it either; use qr")


@weak_if_operands_weak
def _householder_abstract_eval(a, taus):
  check_ranks("householder_product", [a, taus], [2, 1])
  m, n = a.shape[-2:]
  if m < n:
    raise ValueError("The first argument to householder_product must have at least as many "
                     f"rows as columns, got shape {a.shape}")
  if taus.shape[-1] > min(m, n):
    raise ValueError("The second argument to householder_product must not have more rows than "
                     "the minimum of the first argument's rows and columns.")
  check_dtypes("householder_product", [a, taus])
  return a.strip_weak_type()


householder_product_p = Primitive("householder_product")
householder_product_p.def_rules(
    abstract_eval=_householder_abstract_eval,
    lower=lambda ctx, a, taus: _householder(ctx, a, taus),
    batch=batch_at_front(householder_product_p))
householder_product_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


@weak_if_operands_weak
def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
  check_ranks("ormqr", [a, taus, c], [2, 1, 2])
  m = a.shape[-2]
  if left and c.shape[-2] != m:
    raise ValueError("ormqr with left=True expects c to have the same number of rows as the "
                     f"Householder matrix a. Got a shape {a.shape} and c shape {c.shape}.")
  if not left and c.shape[-1] != m:
    raise ValueError("ormqr with left=False expects c to have the same number of columns as the "
                     f"Householder matrix a has rows. Got a shape {a.shape} and c shape "
                     f"{c.shape}.")
  if taus.shape[-1] > min(a.shape[-2:]):  # LAPACK would reject it (JAX's kernel crashes)
    raise ValueError(f"ormqr takes at most min(m, n) = {min(a.shape[-2:])} reflectors for a of "
                     f"shape {a.shape}, got taus of shape {taus.shape}.")
  check_dtypes("ormqr", [a, taus, c])
  return c.strip_weak_type()


def _ormqr_lower(ctx, a, taus, c, *, left, transpose):
  """ormqr/unmqr: c multiplied by Q (Q^H when ``transpose``) from the left or the right,
  without forming Q."""
  attrs = {"left": "true" if left else "false", "transpose": "true" if transpose else "false"}
  target = f"lapack_{routine('ormqr', a.aval.dtype)}_ffi"
  return ffi_call(ctx, target, [a, taus, c], [c.aval], num_batch_dims=a.aval.ndim - 2,
                  attrs=attrs, aliases=[(0, 2)])[0]


ormqr_p = Primitive("ormqr")
ormqr_p.def_rules(abstract_eval=_ormqr_abstract_eval, lower=_ormqr_lower,
                  batch=batch_at_front(ormqr_p))
ormqr_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


# --- tridiagonal_solve -------------------------------------------------------------------------

@weak_if_operands_weak
def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
  check_ranks("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2], same_batch=False)
  if not dl.shape == d.shape == du.shape:
    raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                    "shape.")
  if dl.shape != b.shape[:-1]:
    raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal "
                    "the dimensions of the diagonal arguments.")
  check_dtypes("tridiagonal_solve", [dl, d, du, b])
  return b.strip_weak_type()


def _tridiagonal_solve_lower(ctx, dl, d, du, b, *, perturb_singular):
  """gtsv (Gaussian elimination with partial pivoting); a singular system gives NaNs. With
  ``perturb_singular``, jaxlib's own kernel instead perturbs tiny pivots (by about
  eps * max |U|), so a singular system gets a finite, huge solution."""
  batch = b.aval.shape[:-2]
  if perturb_singular:
    return ffi_call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], [b.aval],
                    num_batch_dims=len(batch))[0]
  outs = lapack_call(ctx, routine("gtsv", b.aval.dtype), [dl, d, du, b],
                     [dl.aval, d.aval, du.aval, b.aval, ShapedArray(batch, _I32)],
                     num_batch_dims=len(batch), aliases=[(i, i) for i in range(4)])
  return apply_lax(ctx, lambda x, info: nan_unless(lax.eq(info, np.int32(0)), x)[0],
                   outs[3], outs[4], multiple_results=False)


def tridiagonal_matmul(dl, d, du, x):
  """T x for the tridiagonal T with sub-, main and super-diagonals dl, d, du (dl[0] and du[-1]
  are ignored), each of shape x.shape[:-1]."""
  a = get_aval(x)
  nd = a.ndim
  m = a.shape[-2]
  zero = np.zeros((), a.dtype)
  col = a.shape[:-2] + (m, a.shape[-1])

  def scale(v, y):
    return lax.mul(lax.broadcast_in_dim(v, col, tuple(range(nd - 1))), y)
  pad = [(0, 0, 0)] * nd
  down = list(pad)
  down[-2] = (1, -1, 0)  # y[i] = x[i - 1]
  up = list(pad)
  up[-2] = (-1, 1, 0)  # y[i] = x[i + 1]
  out = scale(d, x)
  out = lax.add(out, scale(dl, lax.pad(x, zero, down)))
  return lax.add(out, scale(du, lax.pad(x, zero, up)))


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
  """T x = b gives T dx = db - dT x."""
  dl, d, du, _ = primals
  x = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
  tdl, td, tdu, tb = tangents
  if all(type(t) is Zero for t in tangents):
    return x, zero_tangent(x)
  diags = [lax.full(get_aval(v).shape, np.zeros((), get_aval(v).dtype)) if type(t) is Zero
           else t for t, v in zip((tdl, td, tdu), (dl, d, du))]
  rhs = tb
  if not all(type(t) is Zero for t in (tdl, td, tdu)):
    prod = tridiagonal_matmul(*diags, x)
    rhs = lax.neg(prod) if type(tb) is Zero else lax.sub(tb, prod)
  return x, tridiagonal_solve_p.bind(dl, d, du, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
  """b -> T^-1 b transposes to ct -> T^-T ct; T^T has sub-diagonal du shifted down by one and
  super-diagonal dl shifted up by one."""
  if any(is_undefined(v) for v in (dl, d, du)):
    raise ValueError("tridiagonal_solve is linear in b only; its transpose needs known "
                     "diagonals.")
  if type(ct) is Zero:
    return [None, None, None, Zero(b.aval)]
  nd = get_aval(du).ndim
  zero = np.zeros((), get_aval(du).dtype)
  shift = [(0, 0, 0)] * (nd - 1)
  dl_t = lax.pad(du, zero, shift + [(1, -1, 0)])
  du_t = lax.pad(dl, zero, shift + [(-1, 1, 0)])
  return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                     perturb_singular=perturb_singular)]


tridiagonal_solve_p = Primitive("tridiagonal_solve")
tridiagonal_solve_p.def_rules(
    abstract_eval=_tridiagonal_solve_abstract_eval, lower=_tridiagonal_solve_lower,
    jvp=_tridiagonal_solve_jvp, transpose=_tridiagonal_solve_transpose,
    batch=batch_at_front(tridiagonal_solve_p))


# --- rules these primitives do not have -------------------------------------------------------

for _p in (cholesky_update_p, symmetric_product_p, lu_pivots_to_permutation_p, geqrf_p, geqp3_p,
           householder_product_p, ormqr_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
