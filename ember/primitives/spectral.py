"""Spectral decompositions on jaxlib's LAPACK kernels: ``eigh`` (Hermitian eigenproblem),
``svd`` and ``eig`` (general eigenproblem).

They share the conventions of ``ember.primitives.factorizations`` (leading batch dimensions
handled by the kernels, NaNs for a failed decomposition, batch rules that move the batch axis
to the front). Their jvps come from first-order perturbation theory: an eigenvalue moves by
the projection of dA on its eigenvectors, an eigenvector by the other eigenvectors weighted by
1 / (gap between eigenvalues). Eigenvectors and singular vectors are only defined up to phase;
the tangents follow LAPACK's normalization, as JAX's do.
"""
from __future__ import annotations

import enum

import numpy as np

from ember import dtypes
from ember.backend.lapack import lapack_call
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.primitives.elementwise import lax
from ember.primitives.factorizations import (
    apply_lax, batch_at_front, batch_dims, check_matrix, diag_matrix, diagonal, eye, lu_solve,
    matmul, mH, nan_unless, real_of, routine, weak_if_operands_weak, zero_tangent)
from ember.transforms.ad_util import Zero

__all__ = ["EigImplementation", "EighImplementation", "SvdAlgorithm"]

_I32 = np.dtype(np.int32)


class EighImplementation(enum.Enum):
  """Algorithms for ``eigh``; on CPU every one runs LAPACK's syevd/heevd.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.lax import linalg
      >>> x = jnp.array([[2., 1.], [1., 2.]])
      >>> linalg.eigh(x, implementation=linalg.EighImplementation.QR)[1]
      Array([1., 3.], dtype=float32)
  """
  QR = "qr"
  JACOBI = "jacobi"
  QDWH = "qdwh"


class EigImplementation(enum.Enum):
  """Algorithms for ``eig``; on CPU ``LAPACK`` (geev) is the one available.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.lax import linalg
      >>> linalg.eig(jnp.array([[2., 0.], [0., 3.]]), compute_left_eigenvectors=False,
      ...            compute_right_eigenvectors=False,
      ...            implementation=linalg.EigImplementation.LAPACK)
      [Array([2.+0.j, 3.+0.j], dtype=complex64)]
  """
  LAPACK = "lapack"
  MAGMA = "magma"
  CUSOLVER = "cusolver"


class SvdAlgorithm(enum.Enum):
  """SVD algorithms: on CPU ``DEFAULT`` is LAPACK's divide and conquer (gesdd) and ``QR`` its
  QR iteration (gesvd); the others are not available.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.lax import linalg
      >>> x = jnp.array([[3., 0.], [0., 4.]])
      >>> linalg.svd(x, compute_uv=False, algorithm=linalg.SvdAlgorithm.QR)
      Array([4., 3.], dtype=float32)
  """
  DEFAULT = "default"
  QR = "QR"
  JACOBI = "Jacobi"
  POLAR = "polar"


def _real_dtype(dt):
  return np.dtype(dtypes.finfo(dt).dtype)


def _pairs(w):
  """For a batch of vectors w: matrices of w[j] and of w[i] at each [i, j]."""
  shape = get_aval(w).shape + (get_aval(w).shape[-1],)
  nd = len(shape)
  return (lax.broadcast_in_dim(w, shape, tuple(range(nd - 2)) + (nd - 1,)),
          lax.broadcast_in_dim(w, shape, tuple(range(nd - 1))))


def _gap_reciprocals(w):
  """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (for a batch of vectors w)."""
  a = get_aval(w)
  wj, wi = _pairs(w)
  i = eye(a.shape[-1], a.dtype, a.shape[:-1])
  return lax.sub(lax.div(lax.full_like(wj, 1), lax.add(i, lax.sub(wj, wi))), i)


def _svd_gap_reciprocals(s):
  """F[i, j] = 1 / (s[j]^2 - s[i]^2), computed as 1 / ((s[j] + s[i]) (s[j] - s[i])) (no
  cancellation between close squares), and 0 wherever that gap is exactly 0 (the diagonal,
  repeated singular values), as JAX's SVD derivative."""
  sj, si = _pairs(s)
  gaps = lax.mul(lax.add(sj, si), lax.sub(sj, si))
  zero = lax.eq(gaps, lax.full_like(gaps, 0))
  ones = lax.full_like(gaps, 1)
  return lax.select(zero, lax.full_like(gaps, 0), lax.div(ones, lax.select(zero, ones, gaps)))


def _check_subset(subset_by_index, n: int):
  if subset_by_index is None:
    return n
  lo, hi = subset_by_index
  if not 0 <= lo < hi <= n:
    raise ValueError(f"subset_by_index must satisfy 0 <= start < end <= {n}, got "
                     f"{subset_by_index}.")
  return hi - lo


def _cpu_subset(subset_by_index, n: int) -> None:
  if subset_by_index is not None and tuple(subset_by_index) != (0, n):
    raise NotImplementedError("subset_by_index not supported on CPU and GPU")


# --- eigh -------------------------------------------------------------------------------------

@weak_if_operands_weak
def _eigh_abstract_eval(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  check_matrix("eigh", x, square=True)
  n = x.shape[-1]
  k = _check_subset(subset_by_index, n)
  batch = batch_dims(x)
  return [ShapedArray(batch + (n, k), x.dtype), ShapedArray(batch + (k,), _real_dtype(x.dtype))]


def _eigh_lower(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  """syevd/heevd reads one triangle and returns the eigenvalues in ascending order (sorted
  either way) with the eigenvectors as columns."""
  _cpu_subset(subset_by_index, x.aval.shape[-1])
  batch = batch_dims(x.aval)
  outs = [x.aval, ShapedArray(batch + x.aval.shape[-1:], _real_dtype(x.aval.dtype)),
          ShapedArray(batch, _I32)]
  v, w, info = lapack_call(ctx, routine("syevd", x.aval.dtype), [x], outs,
                           num_batch_dims=len(batch), aliases=[(0, 0)],
                           config={"mode": "V", "uplo": "L" if lower else "U"})
  return apply_lax(ctx, lambda v, w, info: nan_unless(lax.eq(info, np.int32(0)), v, w),
                   v, w, info)


def _eigh_jvp(primals, tangents, **params):
  """dw = real(diag(V^H dA V)), dV = V (F * V^H dA V) with F the reciprocal eigenvalue gaps.
  As JAX's, the decomposition differentiated is that of (A + A^H) / 2, even when the input was
  not symmetrized (``symmetrize_input=False``)."""
  (x,), (dx,) = primals, tangents
  v, w = eigh_p.bind(lax.div(lax.add(x, mH(x)), np.asarray(2, get_aval(x).dtype)), **params)
  if type(dx) is Zero:
    return [v, w], [zero_tangent(v), zero_tangent(w)]
  vdv = matmul(mH(v), matmul(dx, v))
  f = lax._convert_element_type(_gap_reciprocals(w), get_aval(v).dtype)
  dv = matmul(v, lax.mul(f, vdv))
  return [v, w], [dv, lax.real(diagonal(vdv)) if dtypes.is_complex(get_aval(v).dtype)
                  else diagonal(vdv)]


eigh_p = Primitive("eigh", multiple_results=True)
eigh_p.def_rules(abstract_eval=_eigh_abstract_eval, lower=_eigh_lower, jvp=_eigh_jvp,
                 batch=batch_at_front(eigh_p))
eigh_p.def_unsupported("transpose", "it is not linear")


# --- svd --------------------------------------------------------------------------------------

def _svd_shapes(x, full_matrices: bool, compute_uv: bool):
  """(s, u, vt) shapes of the kernel's results (u and vt are square unless economical)."""
  m, n = x.shape[-2:]
  k = min(m, n)
  batch = batch_dims(x)
  econ = compute_uv and not full_matrices
  return (batch + (k,), batch + (m, k if econ else m), batch + (k if econ else n, n))


@weak_if_operands_weak
def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
  check_matrix("svd", x)
  if full_matrices and subset_by_index is not None:
    raise ValueError("full_matrices and subset_by_index cannot both be set")
  s, u, vt = _svd_shapes(x, full_matrices, compute_uv)
  outs = [ShapedArray(s, _real_dtype(x.dtype))]
  if compute_uv:
    outs += [ShapedArray(u, x.dtype), ShapedArray(vt, x.dtype)]
  return outs


def _eye(shape, dt):
  """Identity matrices (the last two axes, possibly rectangular) broadcast over the batch."""
  rows, cols = (lax.broadcasted_iota(np.int32, shape, len(shape) - k) for k in (2, 1))
  return lax._convert_element_type(lax.eq(rows, cols), dt)


def _svd_lower(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
  if algorithm not in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.QR):
    raise NotImplementedError(f"The SVD algorithm {algorithm} is not available on CPU.")
  _cpu_subset(subset_by_index, min(x.aval.shape[-2:]))
  batch = batch_dims(x.aval)
  s, u, vt = _svd_shapes(x.aval, full_matrices, compute_uv)
  dt = x.aval.dtype
  if 0 in x.aval.shape[-2:]:  # LAPACK rejects empty matrices; their factors are identities
    return apply_lax(ctx, lambda: [lax.full(s, 0, _real_dtype(dt))] + (
        [_eye(u, dt), _eye(vt, dt)] if compute_uv else []))
  outs = [x.aval, ShapedArray(s, _real_dtype(dt)), ShapedArray(u, dt), ShapedArray(vt, dt),
          ShapedArray(batch, _I32)]
  mode = ("A" if full_matrices else "S") if compute_uv else "N"
  name = "gesvd" if algorithm == SvdAlgorithm.QR else "gesdd"
  _, s, u, vt, info = lapack_call(ctx, routine(name, dt), [x], outs, num_batch_dims=len(batch),
                                  aliases=[(0, 0)], config={"mode": mode})
  results = [s, u, vt] if compute_uv else [s]
  return apply_lax(ctx, lambda info, *r: nan_unless(lax.eq(info, np.int32(0)), *r),
                   info, *results)


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
  """With A = U S V^H (economical) and dP = U^H dA V: ds = real(diag(dP));
  dU = U (F * (dP S + S dP^H) + i Im(diag(dP)) / S) + (I - U U^H) dA V / S and
  dV = V (F * (S dP + dP^H S)) + (I - V V^H) dA^H U / S, F the reciprocal gaps of s^2."""
  (x,), (dx,) = primals, tangents
  params = {"subset_by_index": subset_by_index, "algorithm": algorithm}
  if compute_uv and full_matrices:
    raise NotImplementedError(
        "Singular value decomposition JVP not implemented for full matrices")
  outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv, **params)
  if type(dx) is Zero:
    return outs, [zero_tangent(o) for o in outs]
  s, u, vt = svd_p.bind(x, full_matrices=False, compute_uv=True, **params)
  dt = get_aval(x).dtype
  v = mH(vt)
  dp = matmul(mH(u), matmul(dx, v))
  ds = lax.real(diagonal(dp)) if dtypes.is_complex(dt) else diagonal(dp)
  if not compute_uv:
    return [s], [ds]
  s_c = lax._convert_element_type(s, dt)
  f = lax._convert_element_type(_svd_gap_reciprocals(s), dt)
  dps, sdp = _scale(dp, s_c, cols=True), _scale(dp, s_c, cols=False)
  zero = lax.eq(s, np.zeros((), get_aval(s).dtype))
  ones = lax.full_like(s, 1)
  s_inv = lax._convert_element_type(
      lax.select(zero, lax.full_like(s, 0), lax.div(ones, lax.select(zero, ones, s))), dt)
  phase = lax.mul(lax.sub(diagonal(dp), real_of(diagonal(dp))), s_inv)
  du = matmul(u, lax.add(lax.mul(f, lax.add(dps, mH(dps))), diag_matrix(phase)))
  dv = matmul(v, lax.mul(f, lax.add(sdp, mH(sdp))))
  m, n = get_aval(x).shape[-2:]
  if m > n:
    dav = matmul(dx, v)
    du = lax.add(du, _scale(lax.sub(dav, matmul(u, matmul(mH(u), dav))), s_inv, cols=True))
  if n > m:
    dahu = matmul(mH(dx), u)
    dv = lax.add(dv, _scale(lax.sub(dahu, matmul(v, matmul(vt, dahu))), s_inv, cols=True))
  return [s, u, vt], [ds, du, mH(dv)]


def _scale(x, v, *, cols: bool):
  """``x`` with column j (row i if not ``cols``) scaled by ``v[..., j]`` (``v[..., i]``)."""
  a = get_aval(x)
  nb = a.ndim - 2
  dims = tuple(range(nb)) + ((nb + 1,) if cols else (nb,))
  return lax.mul(x, lax.broadcast_in_dim(v, a.shape, dims))


svd_p = Primitive("svd", multiple_results=True)
svd_p.def_rules(abstract_eval=_svd_abstract_eval, lower=_svd_lower, jvp=_svd_jvp,
                batch=batch_at_front(svd_p))
svd_p.def_unsupported("transpose", "it is not linear")


# --- eig --------------------------------------------------------------------------------------

@weak_if_operands_weak
def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
  check_matrix("eig", x, square=True)
  batch = batch_dims(x)
  n = x.shape[-1]
  cdt = dtypes.to_complex_dtype(x.dtype)
  outs = [ShapedArray(batch + (n,), cdt)]
  outs += [ShapedArray(batch + (n, n), cdt)] * (int(compute_left_eigenvectors) +
                                                  int(compute_right_eigenvectors))
  return outs


def _eig_lower(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
               enable_eigvec_derivs, implementation):
  """geev: real inputs give the eigenvalues' real and imaginary parts separately (and complex
  eigenvectors); eigenvectors are normalized to unit norm."""
  if implementation not in (None, EigImplementation.LAPACK):
    raise NotImplementedError(f"eig implementation {implementation} is not available on CPU.")
  dt = x.aval.dtype
  batch = batch_dims(x.aval)
  n = x.aval.shape[-1]
  cdt = dtypes.to_complex_dtype(dt)
  vecs = [ShapedArray(batch + (n, n), cdt)] * 2
  info = ShapedArray(batch, _I32)
  config = {"compute_left": "V" if compute_left_eigenvectors else "N",
            "compute_right": "V" if compute_right_eigenvectors else "N"}
  if dtypes.is_complex(dt):
    outs = [ShapedArray(batch + (n,), dt)] + vecs + [info]
  else:
    outs = [ShapedArray(batch + (n,), dt)] * 2 + vecs + [info]
  res = lapack_call(ctx, routine("geev", dt), [x], outs, num_batch_dims=len(batch),
                    config=config)

  def fix(*res):
    if dtypes.is_complex(dt):
      w, vl, vr, info = res
    else:
      wr, wi, vl, vr, info = res
      w = lax.complex(wr, wi)
    keep = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
    return nan_unless(lax.eq(info, np.int32(0)), *keep)
  return apply_lax(ctx, fix, *res)


_EIGVEC_DERIVS_MSG = (
    "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input "
    "that JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
    "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
    "https://github.com/jax-ml/jax/issues/2748 for discussion.")


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
  """With A V = V diag(w): V^-1 dA V = C gives dw = diag(C) and, for right eigenvectors,
  dV = V (F * C) less the component along V that would change their unit norm."""
  (x,), (dx,) = primals, tangents
  if compute_left_eigenvectors or (compute_right_eigenvectors and not enable_eigvec_derivs):
    if compute_left_eigenvectors and enable_eigvec_derivs:
      raise NotImplementedError("Derivatives of left eigenvectors are not implemented.")
    raise NotImplementedError(_EIGVEC_DERIVS_MSG)
  params = {"enable_eigvec_derivs": enable_eigvec_derivs, "implementation": implementation}
  outs = eig_p.bind(x, compute_left_eigenvectors=False,
                    compute_right_eigenvectors=compute_right_eigenvectors, **params)
  if type(dx) is Zero:
    return outs, [zero_tangent(o) for o in outs]
  w, v = eig_p.bind(x, compute_left_eigenvectors=False, compute_right_eigenvectors=True,
                    **params)
  cdt = get_aval(v).dtype
  dx = lax._convert_element_type(dx, cdt)
  from ember.primitives.factorizations import lu_p
  lu, _, perm = lu_p.bind(v)
  c = lu_solve(lu, perm, matmul(dx, v))
  dw = diagonal(c)
  if not compute_right_eigenvectors:
    return [w], [dw]
  dv = matmul(v, lax.mul(lax._convert_element_type(_gap_reciprocals(w), cdt), c))
  along = real_of(lax.reduce_sum(lax.mul(lax.conj(v), dv), (get_aval(v).ndim - 2,)))
  a = get_aval(v)
  dv = lax.sub(dv, lax.mul(v, lax.broadcast_in_dim(along, a.shape, tuple(range(a.ndim - 2)) +
                                                   (a.ndim - 1,))))
  return [w, v], [dw, dv]


eig_p = Primitive("eig", multiple_results=True)
eig_p.def_rules(abstract_eval=_eig_abstract_eval, lower=_eig_lower, jvp=_eig_jvp,
                batch=batch_at_front(eig_p))
eig_p.def_unsupported("transpose", "it is not linear")
