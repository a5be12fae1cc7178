"""The GPU lowerings of the linear algebra primitives: calls of the kernels JAX's GPU plugin
packages register (cuSOLVER, cuSPARSE and MAGMA-or-LAPACK "hybrid" kernels for CUDA; the hip
ones for ROCm), where the CPU lowerings (``factorizations``, ``spectral``, ``condensed``) call
LAPACK.

The kernels' names, operands, results, layouts and attributes are those JAX 0.10.2 lowers to
(``jit(f).trace(x).lower(lowering_platforms=("cuda",))`` prints them), written here in ember's
own emitter:
- typed XLA FFI calls whose attributes go in ``mhlo.backend_config`` (``lower = true``,
  ``algorithm = 1 : ui8``, ``magma = "auto"``);
- matrices column-major (the two minor dimensions swapped in the layout) and the leading batch
  dimensions looped over by the kernel (``num_batch_dims``), as for LAPACK; the rank-one update
  and ``symmetric_product``'s syrk take row-major matrices without a batch;
- a failed factorization (``info`` nonzero) gives NaNs, and pivots come back 1-based, as on CPU;
- ``triangular_solve`` is XLA's own ``stablehlo.triangular_solve`` (cuBLAS inside XLA).
``schur`` and ``hessenberg`` have no GPU kernel in JAX either: they raise JAX's error.

Each rule is registered with ``lowering.register_lowering(prim, platform, rule)``, so a module
lowered for ``"cuda"``/``"rocm"`` uses it (``lowering.platform_override("cuda")`` shows the text
on any machine).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.backend import lowering
    >>> with lowering.platform_override("cuda"):
    ...   text = ember.jit(jnp.linalg.solve).lower(jnp.eye(2), jnp.ones(2)).as_text()
    >>> "cusolver_getrf_ffi" in text, "lapack" in text
    (True, False)
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.backend import lowering
from ember.backend.lapack import _layout
from ember.core.aval import ShapedArray
from ember.primitives import condensed, factorizations as fz, spectral
from ember.primitives.elementwise import lax

__all__ = ["PREFIXES"]

_I32 = np.dtype(np.int32)
PREFIXES = {"cuda": "cu", "rocm": "hip"}  # the kernels' name prefix on each platform


def _row_major(rank: int) -> str:
  order = ", ".join(str(d) for d in range(rank - 1, -1, -1))
  body = f"[{order}]" if rank > 1 else order
  return f"dense<{body}> : tensor<{rank}xindex>" if rank else "dense<> : tensor<0xindex>"


def _attr(value) -> str:
  """An FFI attribute's MLIR text: bools, strings, ``np.uint8``/ints/floats typed."""
  if isinstance(value, (bool, np.bool_)):
    return "true" if value else "false"
  if isinstance(value, str):
    return f'"{value}"'
  if isinstance(value, np.uint8):
    return f"{int(value)} : ui8"
  if isinstance(value, (int, np.integer)):
    return f"{int(value)} : i64"
  return f"{float(value)!r} : f64"


def gpu_call(ctx, target: str, operands, out_avals, *, attrs: dict | None = None,
             aliases=(), batched: bool = True, column_major: bool = True,
             non_batch_dims: int = 2) -> list:
  """Emit a call of the GPU kernel ``target`` and return its results.

  With ``batched`` (the solver kernels), matrices of the operands' largest rank are given
  column-major layouts when ``column_major``, everything else row-major, and the leading
  dimensions but ``non_batch_dims`` are the batch (``num_batch_dims``); otherwise every layout
  is row-major and no batch is declared (the rank-one update, syrk). ``aliases`` are (result,
  operand) pairs.
  """
  top = max(v.aval.ndim for v in operands)

  def layout(rank):
    if batched and column_major and rank == top and rank >= 2:
      return _layout(rank, rank - 2)
    return _row_major(rank)
  alias_attr = ", ".join(
      "#stablehlo.output_operand_alias<output_tuple_indices = "
      f"{'[]' if len(out_avals) == 1 else f'[{r}]'}, operand_index = {o}, "
      "operand_tuple_indices = []>" for r, o in aliases)
  config = ", ".join(f"{k} = {_attr(v)}" for k, v in sorted((attrs or {}).items()))
  fields = {
      "api_version": "1 : i32", "backend_config": '""', "call_target_name": f'"{target}"',
      "called_computations": "[]", "has_side_effect": "false",
      "operand_layouts": "[" + ", ".join(layout(v.aval.ndim) for v in operands) + "]",
      "output_operand_aliases": f"[{alias_attr}]",
      "result_layouts": "[" + ", ".join(layout(a.ndim) for a in out_avals) + "]",
      "mhlo.backend_config": f"{{{config}}}"}
  if batched:
    fields["mhlo.frontend_attributes"] = f'{{num_batch_dims = "{top - non_batch_dims}"}}'
  return ctx.op("stablehlo.custom_call", list(operands), list(out_avals), fields)


def _prefix(ctx) -> str:
  return PREFIXES[ctx.platform]


def _ok_or_nan(ctx, info, *results, ge: bool = False):
  """``results`` with NaNs for the matrices whose ``info`` is nonzero (negative if ``ge``)."""
  def fix(info, *rs):
    ok = lax.ge(info, np.int32(0)) if ge else lax.eq(info, np.int32(0))
    return fz.nan_unless(ok, *rs)
  return fz.apply_lax(ctx, fix, info, *results)


# --- factorizations -----------------------------------------------------------------------------

def _cholesky(ctx, x):
  info = ShapedArray(fz.batch_dims(x.aval), _I32)
  factor, info = gpu_call(ctx, f"{_prefix(ctx)}solver_potrf_ffi", [x], [x.aval, info],
                          attrs={"lower": True}, aliases=[(0, 0)])
  return _ok_or_nan(ctx, info, factor)[0]


def _lu(ctx, x):
  batch = fz.batch_dims(x.aval)
  m, n = x.aval.shape[-2:]
  outs = [x.aval, ShapedArray(batch + (min(m, n),), _I32), ShapedArray(batch, _I32)]
  lu, pivots, info = gpu_call(ctx, f"{_prefix(ctx)}solver_getrf_ffi", [x], outs,
                              aliases=[(0, 0)])

  def fix(lu, pivots, info):
    pivots = lax.sub(pivots, np.int32(1))
    perm = fz.lu_pivots_to_permutation_p.bind(pivots, permutation_size=m)
    return [fz.nan_unless(lax.ge(info, np.int32(0)), lu)[0], pivots, perm]
  return fz.apply_lax(ctx, fix, lu, pivots, info)


def _pivots_to_permutation(ctx, pivots, *, permutation_size):
  out = ShapedArray(pivots.aval.shape[:-1] + (permutation_size,), _I32)
  return gpu_call(ctx, f"{_prefix(ctx)}_lu_pivots_to_permutation", [pivots], [out],
                  column_major=False, non_batch_dims=1)[0]


def _geqrf(ctx, x):
  taus = ShapedArray(fz.batch_dims(x.aval) + (min(x.aval.shape[-2:]),), x.aval.dtype)
  return gpu_call(ctx, f"{_prefix(ctx)}solver_geqrf_ffi", [x], [x.aval, taus], aliases=[(0, 0)])


def _geqp3(ctx, x, jpvt, magma: str = "auto"):
  taus = ShapedArray(fz.batch_dims(x.aval) + (min(x.aval.shape[-2:]),), x.aval.dtype)
  return gpu_call(ctx, f"{_prefix(ctx)}hybrid_geqp3", [x, jpvt], [x.aval, jpvt.aval, taus],
                  attrs={"magma": magma}, aliases=[(0, 0), (1, 1)])


def _householder_product(ctx, a, taus):
  return gpu_call(ctx, f"{_prefix(ctx)}solver_orgqr_ffi", [a, taus], [a.aval],
                  aliases=[(0, 0)])[0]


def _qr(ctx, x, *, pivoting, full_matrices, use_magma):
  """As on CPU: geqrf (geqp3 when pivoting) leaves R above the diagonal and the reflectors
  below; Q is their product over m columns (full) or min(m, n)."""
  batch = fz.batch_dims(x.aval)
  nb = len(batch)
  m, n = x.aval.shape[-2:]
  q_cols = m if full_matrices else min(m, n)
  if pivoting:
    jpvt = ctx.constant(np.zeros((), _I32), ShapedArray(batch + (n,), _I32))
    magma = "auto" if use_magma is None else ("on" if use_magma else "off")
    a, jpvt, taus = _geqp3(ctx, x, jpvt, magma)
  else:
    a, taus = _geqrf(ctx, x)
  zero = np.zeros((), x.aval.dtype)

  def q_input(a):
    if q_cols > n:
      return lax.pad(a, zero, [(0, 0, 0)] * (nb + 1) + [(0, q_cols - n, 0)])
    return lax.slice(a, (0,) * (nb + 2), batch + (m, q_cols))
  q = _householder_product(ctx, fz.apply_lax(ctx, q_input, a, multiple_results=False), taus)

  def r_of(a):
    r = fz.tri(a, lower=False)
    return lax.slice(r, (0,) * (nb + 2), batch + (q_cols, n)) if q_cols < m else r
  r = fz.apply_lax(ctx, r_of, a, multiple_results=False)
  if pivoting:
    return [q, r, fz.apply_lax(ctx, lambda p: lax.sub(p, np.int32(1)), jpvt,
                               multiple_results=False)]
  return [q, r]


def _ormqr(ctx, a, taus, c, *, left, transpose):
  return gpu_call(ctx, f"{_prefix(ctx)}solver_ormqr_ffi", [a, taus, c], [c.aval],
                  attrs={"left": bool(left), "transpose": bool(transpose)},
                  aliases=[(0, 2)])[0]


def _triangular_solve(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                      unit_diagonal):
  """XLA's triangular_solve op (a conjugated, untransposed ``a`` is conjugated first)."""
  complex_ = dtypes.is_complex(a.aval.dtype)
  if conjugate_a and not transpose_a and complex_:
    a = fz.apply_lax(ctx, lax.conj, a, multiple_results=False)
  kind = "NO_TRANSPOSE" if not transpose_a else (
      "ADJOINT" if conjugate_a and complex_ else "TRANSPOSE")
  flag = lambda v: "true" if v else "false"
  attrs = (f"left_side = {flag(left_side)}, lower = {flag(lower)}, "
           f"transpose_a = #stablehlo<transpose {kind}>, unit_diagonal = {flag(unit_diagonal)}")
  return ctx.op1("stablehlo.triangular_solve", [a, b], b.aval, attrs)


def _cholesky_update(ctx, r, w):
  """JAX's CUDA kernel: row-major, no batch; it updates both operands in place."""
  return gpu_call(ctx, f"{_prefix(ctx)}_cholesky_update_ffi", [r, w], [r.aval, w.aval],
                  aliases=[(0, 0), (1, 1)], batched=False)[0]


def _symmetric_product(ctx, a, c, *, alpha, beta):
  """cuSOLVER's syrk: alpha A A^T + beta C (row-major, no batch)."""
  scalar = ShapedArray((), c.aval.dtype)
  alpha_v = ctx.constant(np.asarray(alpha, c.aval.dtype), scalar)
  beta_v = ctx.constant(np.asarray(beta, c.aval.dtype), scalar)
  return gpu_call(ctx, f"{_prefix(ctx)}solver_syrk_ffi", [a, c, alpha_v, beta_v], [c.aval],
                  attrs={"transpose": False}, aliases=[(0, 1)], batched=False)[0]


def _thomas_small(dl, d, du, b):
  """The solve of a tridiagonal system of one or two rows (cuSPARSE needs three or more), by
  Cramer's rule, as plain lax code (columns of ``b`` broadcast)."""
  m = fz.get_aval(d).shape[-1]
  col = lambda v: lax.expand_dims(v, (fz.get_aval(v).ndim,))
  nb = fz.get_aval(d).ndim - 1
  if m == 0:
    return b
  if m == 1:
    return lax.div(b, col(d))
  d0, d1 = (lax.slice_in_dim(d, i, i + 1, axis=nb) for i in (0, 1))
  u0 = lax.slice_in_dim(du, 0, 1, axis=nb)
  l1 = lax.slice_in_dim(dl, 1, 2, axis=nb)
  b0, b1 = (lax.slice_in_dim(b, i, i + 1, axis=nb) for i in (0, 1))
  det = col(lax.sub(lax.mul(d0, d1), lax.mul(u0, l1)))
  x0 = lax.div(lax.sub(lax.mul(col(d1), b0), lax.mul(col(u0), b1)), det)
  x1 = lax.div(lax.sub(lax.mul(col(d0), b1), lax.mul(col(l1), b0)), det)
  return lax.concatenate([x0, x1], nb)


def _tridiagonal_solve(ctx, dl, d, du, b, *, perturb_singular):
  p = _prefix(ctx)
  if perturb_singular:
    return gpu_call(ctx, f"{p}_tridiagonal_solve_perturbed", [dl, d, du, b], [b.aval])[0]
  if d.aval.shape[-1] <= 2:
    return fz.apply_lax(ctx, _thomas_small, dl, d, du, b, multiple_results=False)
  return gpu_call(ctx, f"{p}sparse_gtsv2_ffi", [dl, d, du, b], [b.aval], aliases=[(0, 3)])[0]


# --- spectral decompositions --------------------------------------------------------------------

def _eigh(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  """syevd (cuSOLVER sorts the eigenvalues ascending); ``algorithm``: 0 the default, 1 QR,
  2 Jacobi."""
  spectral._cpu_subset(subset_by_index, x.aval.shape[-1])
  impl = spectral.EighImplementation
  if algorithm == impl.QDWH:
    raise NotImplementedError("QDWH implementation is only supported on TPU")
  code = 0 if algorithm is None else (2 if algorithm == impl.JACOBI else 1)
  batch = fz.batch_dims(x.aval)
  outs = [x.aval, ShapedArray(batch + x.aval.shape[-1:], spectral._real_dtype(x.aval.dtype)),
          ShapedArray(batch, _I32)]
  v, w, info = gpu_call(ctx, f"{_prefix(ctx)}solver_syevd_ffi", [x], outs,
                        attrs={"lower": bool(lower), "algorithm": np.uint8(code)},
                        aliases=[(0, 0)])
  return _ok_or_nan(ctx, info, v, w)


def _svd_kernel(platform: str, algorithm, m: int, n: int) -> str:
  """The kernel JAX picks: Jacobi (gesvdj) up to 1024 x 1024 by default, QR (gesvd) above or
  when asked, polar (gesvdp) when asked, divide and conquer (gesdd) on ROCm only."""
  alg = spectral.SvdAlgorithm
  name = getattr(algorithm, "name", None)
  if algorithm is None or algorithm == alg.DEFAULT:
    return "gesvdj" if m <= 1024 and n <= 1024 else "gesvd"
  if algorithm == alg.QR:
    return "gesvd"
  if algorithm == alg.JACOBI:
    return "gesvdj"
  if algorithm == alg.POLAR:
    return "gesvdp"
  if name == "DIVIDE_AND_CONQUER":
    if platform != "rocm":
      raise NotImplementedError("Divide-and-conquer SVD (SvdAlgorithm.DIVIDE_AND_CONQUER) is "
                                "only supported on AMD (ROCm) GPUs, not on NVIDIA CUDA.")
    return "gesdd"
  raise NotImplementedError(f"Unsupported SVD algorithm on GPU: {algorithm!r}")


def _svd(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
  m, n = x.aval.shape[-2:]
  k = min(m, n)
  spectral._cpu_subset(subset_by_index, k)
  dt, batch = x.aval.dtype, fz.batch_dims(x.aval)
  nb = len(batch)
  s_shape, u_shape, vt_shape = spectral._svd_shapes(x.aval, full_matrices, compute_uv)
  if m == 0 or n == 0:  # as on CPU: identities (JAX's empty-SVD rule)
    return fz.apply_lax(ctx, lambda: [lax.full(s_shape, 0, spectral._real_dtype(dt))] + (
        [spectral._eye(u_shape, dt), spectral._eye(vt_shape, dt)] if compute_uv else []))
  kernel = _svd_kernel(ctx.platform, algorithm, m, n)
  s_aval = ShapedArray(s_shape, spectral._real_dtype(dt))
  info = ShapedArray(batch, _I32)
  attrs: dict = {"compute_uv": bool(compute_uv)}
  econ, transposed = not full_matrices, False
  if kernel in ("gesvdj", "gesvdp"):  # U and V always computed; batched Jacobi has no econ
    if kernel == "gesvdj":
      econ = not full_matrices and m > 32 and n > 32
    u_aval = ShapedArray(batch + (m, k if econ else m), dt)
    v_aval = ShapedArray(batch + (n, k if econ else n), dt)
    outs = [x.aval, s_aval, u_aval, v_aval, info]
  else:
    transposed = kernel == "gesvd" and m < n
    attrs["transposed"] = transposed
    u_aval = ShapedArray(u_shape if compute_uv else (), dt)
    vt_aval = ShapedArray(vt_shape if compute_uv else (), dt)
    outs = [x.aval, s_aval, vt_aval, u_aval, info] if transposed else \
        [x.aval, s_aval, u_aval, vt_aval, info]
  attrs["full_matrices"] = not econ
  _, s, u, vt, info_v = gpu_call(ctx, f"{_prefix(ctx)}solver_{kernel}_ffi", [x], outs,
                                 attrs=attrs, aliases=[(0, 0)], column_major=not transposed)
  if transposed:
    u, vt = vt, u
  if not compute_uv:
    return _ok_or_nan(ctx, info_v, s)

  def finish(u, vt):
    if kernel in ("gesvdj", "gesvdp"):  # V comes back: V^H is what svd returns
      vt = fz.mH(vt)
      if not full_matrices and not econ:
        u = lax.slice(u, (0,) * (nb + 2), batch + (m, k))
        vt = lax.slice(vt, (0,) * (nb + 2), batch + (k, n))
    return [u, vt]
  u, vt = fz.apply_lax(ctx, finish, u, vt)
  return _ok_or_nan(ctx, info_v, s, u, vt)


def _eig(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
         enable_eigvec_derivs, implementation):
  """The hybrid kernel (MAGMA when present, else LAPACK on the host: LAPACK's geev results),
  or cuSOLVER's geev when asked (``EigImplementation.CUSOLVER``, right vectors only)."""
  impl = spectral.EigImplementation
  dt, batch, n = x.aval.dtype, fz.batch_dims(x.aval), x.aval.shape[-1]
  cdt = dtypes.to_complex_dtype(dt)
  info = ShapedArray(batch, _I32)
  if implementation == impl.CUSOLVER:
    return _eig_cusolver(ctx, x, compute_left_eigenvectors, compute_right_eigenvectors)
  if implementation == impl.LAPACK:
    raise NotImplementedError(f"eig implementation {implementation} is not available on GPU.")
  magma = "auto" if implementation is None else ("on" if implementation == impl.MAGMA else "off")
  vecs = [ShapedArray(batch + (n, n), cdt)] * 2
  real = not dtypes.is_complex(dt)
  outs = [ShapedArray(batch + (n,), dt)] * (2 if real else 1) + vecs + [info]
  name = f"{_prefix(ctx)}hybrid_eig_{'real' if real else 'comp'}"
  res = gpu_call(ctx, name, [x], outs, attrs={"magma": magma,
                                              "left": bool(compute_left_eigenvectors),
                                              "right": bool(compute_right_eigenvectors)})

  def fix(*res):
    if real:
      wr, wi, vl, vr, info = res
      w = lax.complex(wr, wi)
    else:
      w, vl, vr, info = res
    keep = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
    return fz.nan_unless(lax.eq(info, np.int32(0)), *keep)
  return fz.apply_lax(ctx, fix, *res)


def _eig_cusolver(ctx, x, left: bool, right: bool):
  if ctx.platform != "cuda":
    raise RuntimeError("Nonsymmetric eigendecomposition requires cusolver 11.7.1 or newer")
  if left:
    raise NotImplementedError("Left eigenvectors are not supported by cusolver")
  dt, batch, n = x.aval.dtype, fz.batch_dims(x.aval), x.aval.shape[-1]
  cdt = dtypes.to_complex_dtype(dt)
  mat = ShapedArray(batch + (n, n), dt)
  outs = [mat, ShapedArray(batch + (n,), cdt), mat, mat, ShapedArray(batch, _I32)]
  _, w, _, vr, info = gpu_call(ctx, "cusolver_geev_ffi", [x], outs,
                               attrs={"left": False, "right": bool(right)})

  def fix(w, vr, info):
    if not dtypes.is_complex(dt):
      vr = _unpack_pairs(w, vr)
    return fz.nan_unless(lax.eq(info, np.int32(0)), *([w, vr] if right else [w]))
  return fz.apply_lax(ctx, fix, w, vr, info)


def _unpack_pairs(w, vr):
  """Real geev's eigenvectors as complex ones: a complex-conjugate pair of eigenvalues shares
  two adjacent columns (real part, imaginary part), as in LAPACK."""
  a = fz.get_aval(vr)
  nd = a.ndim
  imag_nonzero = lax.ne(lax.imag(w), lax.full_like(lax.imag(w), 0))
  starts = lax.rem(lax.cumsum(lax._convert_element_type(imag_nonzero, _I32), nd - 2),
                   np.int32(2))
  first = lax.eq(starts, np.int32(1))
  zero = np.zeros((), a.dtype)
  left = lax.pad(vr, zero, [(0, 0, 0)] * (nd - 1) + [(-1, 1, 0)])
  right = lax.pad(vr, zero, [(0, 0, 0)] * (nd - 1) + [(1, -1, 0)])
  dims = tuple(range(nd - 2)) + (nd - 1,)
  real_b = lax.broadcast_in_dim(lax.bitwise_not(imag_nonzero), a.shape, dims)
  first_b = lax.broadcast_in_dim(first, a.shape, dims)
  re = lax.select(lax.bitwise_or(real_b, first_b), vr, right)
  im = lax.select(first_b, left, lax.neg(vr))
  im = lax.select(real_b, lax.full_like(vr, 0), im)
  return lax.complex(re, im)


def _tridiagonal(ctx, a, *, lower):
  outs = list(ctx.avals_out) + [ShapedArray(fz.batch_dims(a.aval), _I32)]
  *results, info = gpu_call(ctx, f"{_prefix(ctx)}solver_sytrd_ffi", [a], outs,
                            attrs={"lower": bool(lower)}, aliases=[(0, 0)])
  return _ok_or_nan(ctx, info, *results)


def _cpu_only(name: str):
  def rule(ctx, *args, **params):
    raise NotImplementedError(
        f"MLIR translation rule for primitive '{name}' not found for platform {ctx.platform}")
  return rule


_RULES = [
    (fz.cholesky_p, _cholesky), (fz.lu_p, _lu),
    (fz.lu_pivots_to_permutation_p, _pivots_to_permutation), (fz.qr_p, _qr),
    (fz.geqrf_p, _geqrf), (fz.geqp3_p, lambda ctx, x, jpvt: _geqp3(ctx, x, jpvt)),
    (fz.householder_product_p, _householder_product), (fz.ormqr_p, _ormqr),
    (fz.triangular_solve_p, _triangular_solve), (fz.tridiagonal_solve_p, _tridiagonal_solve),
    (spectral.eigh_p, _eigh), (spectral.svd_p, _svd), (spectral.eig_p, _eig),
    (condensed.tridiagonal_p, _tridiagonal),
    (condensed.schur_p, _cpu_only("schur")), (condensed.hessenberg_p, _cpu_only("hessenberg")),
]
for _platform in PREFIXES:
  for _prim, _rule in _RULES:
    lowering.register_lowering(_prim, _platform, _rule)
# JAX has CUDA kernels for these two only; on ROCm they keep their lax lowerings.
lowering.register_lowering(fz.cholesky_update_p, "cuda", _cholesky_update)
lowering.register_lowering(fz.symmetric_product_p, "cuda", _symmetric_product)
