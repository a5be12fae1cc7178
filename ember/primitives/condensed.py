"""Reductions to condensed forms on jaxlib's LAPACK kernels: ``hessenberg`` (gehrd: Q^H A Q
upper Hessenberg), ``tridiagonal`` (sytrd/hetrd: the same for a Hermitian A, which gives a
tridiagonal matrix) and ``schur`` (gees: Q^H A Q quasi-upper-triangular, upper-triangular for
complex A).

They share the conventions of ``ember.primitives.factorizations``: leading batch dimensions
looped over by the kernels (so each batch rule only moves the batch axis to the front), NaNs
where LAPACK's ``info`` reports a failure, and JAX's checks in JAX's order (ranks, shapes,
dtypes). Q comes back in Householder form (the reflectors below the condensed matrix and their
scales ``taus``) from ``hessenberg`` and ``tridiagonal``, and as a matrix from ``schur``. None
of them is differentiable, as in JAX. ``schur`` and ``hessenberg`` are CPU-only in JAX; their
lowerings raise JAX's error on any other platform (checked with JAX 0.11.2 on CUDA).
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.backend.lapack import lapack_call
from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive
from ember.primitives.elementwise import lax
from ember.primitives.factorizations import (
    apply_lax, batch_at_front, batch_dims, check_dtypes, check_ranks, ffi_call, nan_unless,
    routine, weak_if_operands_weak)

__all__ = []  # primitives are reached through ember.lax.linalg

_I32 = np.dtype(np.int32)


def _require_cpu(name: str) -> None:
  """JAX lowers ``name`` on CPU only; elsewhere its lowering is missing, with this error."""
  from ember.backend.client import default_backend
  platform = default_backend()
  if platform != "cpu":
    raise NotImplementedError(
        f"MLIR translation rule for primitive '{name}' not found for platform {platform}")


def _nan_unless_ok(ctx, info, *results):
  """``results`` with the matrices whose ``info`` is nonzero replaced by NaNs."""
  return apply_lax(ctx, lambda info, *r: nan_unless(lax.eq(info, np.int32(0)), *r),
                   info, *results)


# --- hessenberg -------------------------------------------------------------------------------

@weak_if_operands_weak
def _hessenberg_abstract_eval(a):
  check_ranks("hessenberg", [a], [2])
  n = a.shape[-1]
  if a.shape[-2] != n:
    raise ValueError("Argument to Hessenberg reduction must have shape [..., n, n], got shape "
                     f"{a.shape}")
  if n == 0:  # JAX fails in MLIR on its (-1,)-shaped taus
    raise ValueError(f"hessenberg requires a nonempty matrix, got shape {a.shape}.")
  check_dtypes("hessenberg", [a])
  return [a.strip_weak_type(), ShapedArray(batch_dims(a) + (n - 1,), a.dtype)]


def _hessenberg_lower(ctx, a):
  """gehrd over rows/columns ``low = 1`` to ``high = n`` (the whole matrix)."""
  _require_cpu("hessenberg")
  batch = batch_dims(a.aval)
  n = a.aval.shape[-1]
  outs = [a.aval, ShapedArray(batch + (n - 1,), a.aval.dtype), ShapedArray(batch, _I32)]
  h, taus, info = ffi_call(ctx, f"lapack_{routine('gehrd', a.aval.dtype)}_ffi", [a], outs,
                           num_batch_dims=len(batch), aliases=[(0, 0)],
                           attrs={"low": "1 : i32", "high": f"{n} : i32"})
  return _nan_unless_ok(ctx, info, h, taus)


hessenberg_p = Primitive("hessenberg", multiple_results=True)
hessenberg_p.def_rules(abstract_eval=_hessenberg_abstract_eval, lower=_hessenberg_lower,
                       batch=batch_at_front(hessenberg_p))
hessenberg_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


# --- tridiagonal ------------------------------------------------------------------------------

@weak_if_operands_weak
def _tridiagonal_abstract_eval(a, *, lower):
  check_ranks("tridiagonal", [a], [2])
  n = a.shape[-1]
  if a.shape[-2] != n or n == 0:
    raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape {a.shape}.")
  check_dtypes("tridiagonal", [a])
  batch, real = batch_dims(a), np.dtype(dtypes.finfo(a.dtype).dtype)
  return [a.strip_weak_type(), ShapedArray(batch + (n,), real),
          ShapedArray(batch + (n - 1,), real), ShapedArray(batch + (n - 1,), a.dtype)]


def _tridiagonal_lower(ctx, a, *, lower):
  """sytrd/hetrd reads the ``lower`` (or upper) triangle; the diagonals come back separately
  too (real, even for complex input)."""
  batch = batch_dims(a.aval)
  outs = list(ctx.avals_out) + [ShapedArray(batch, _I32)]
  *results, info = lapack_call(ctx, routine("sytrd", a.aval.dtype), [a], outs,
                               num_batch_dims=len(batch), aliases=[(0, 0)],
                               config={"uplo": "L" if lower else "U"})
  return _nan_unless_ok(ctx, info, *results)


tridiagonal_p = Primitive("tridiagonal", multiple_results=True)
tridiagonal_p.def_rules(abstract_eval=_tridiagonal_abstract_eval, lower=_tridiagonal_lower,
                        batch=batch_at_front(tridiagonal_p))
tridiagonal_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


# --- schur ------------------------------------------------------------------------------------

@weak_if_operands_weak
def _schur_abstract_eval(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
  check_ranks("schur", [x], [2])
  if x.shape[-1] != x.shape[-2]:
    raise ValueError(f"The input to schur must be a square matrix. Got shape {x.shape}.")
  check_dtypes("schur", [x])
  return [x.strip_weak_type()] * (2 if compute_schur_vectors else 1)


def _schur_lower(ctx, x, *, compute_schur_vectors, sort_eig_vals, select_callable):
  """gees: the Schur form T and the Schur vectors Z (A = Z T Z^H), with the eigenvalues (as
  real and imaginary parts for real input) and the number of selected ones, which are unused;
  eigenvalues are not reordered."""
  _require_cpu("schur")
  if sort_eig_vals:
    raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
  dt, batch = x.aval.dtype, batch_dims(x.aval)
  n_out = 2 if compute_schur_vectors else 1
  if x.aval.shape[-1] == 0:
    return [x] * n_out
  eigvals = ShapedArray(x.aval.shape[:-1], dt)
  info = ShapedArray(batch, _I32)
  outs = [x.aval, x.aval] + [eigvals] * (1 if dtypes.is_complex(dt) else 2) + [info, info]
  t, z, *_, info = lapack_call(ctx, routine("gees", dt), [x], outs, num_batch_dims=len(batch),
                               aliases=[(0, 0)], config={
                                   "mode": "V" if compute_schur_vectors else "N", "sort": "N"})
  return _nan_unless_ok(ctx, info, *[t, z][:n_out])


schur_p = Primitive("schur", multiple_results=True)
schur_p.def_rules(abstract_eval=_schur_abstract_eval, lower=_schur_lower,
                  batch=batch_at_front(schur_p))
schur_p.def_unsupported("jvp", "its derivative is not implemented in JAX either")


# --- rules these primitives do not have -------------------------------------------------------

for _p in (hessenberg_p, tridiagonal_p, schur_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
