"""Sparse linear algebra (``jax.experimental.sparse.linalg``): ``spsolve`` solves a CSR system
on the host with SciPy (as JAX does on CPU); ``lobpcg_standard`` is not provided.

Example:
    >>> import ember.numpy as jnp
    >>> spsolve(jnp.array([2., 4.]), jnp.array([0, 1]), jnp.array([0, 1, 2]), jnp.array([2., 2.]))
    Array([1. , 0.5], dtype=float32)
"""
from __future__ import annotations

import numpy as np

__all__ = ["spsolve", "lobpcg_standard"]


def _check(data, indices, indptr, b, reorder) -> None:
  from ember import dtypes
  if data.dtype != b.dtype:
    raise ValueError(f"data types do not match: data.dtype={data.dtype} b.dtype={b.dtype}")
  if not (dtypes.is_integer(indices.dtype) and dtypes.is_integer(indptr.dtype)):
    raise ValueError("index arrays must be integer typed; got "
                     f"indices.dtype={indices.dtype} indptr.dtype={indptr.dtype}")
  if not data.ndim == indices.ndim == indptr.ndim == b.ndim == 1:
    raise ValueError("Arrays must be one-dimensional. Got data.shape="
                     f"{data.shape} indices.shape={indices.shape} indptr.shape={indptr.shape} "
                     f"b.shape={b.shape}")
  if indptr.size != b.size + 1 or data.shape != indices.shape:
    raise ValueError(f"Invalid CSR buffer sizes: data.shape={data.shape} "
                     f"indices.shape={indices.shape} indptr.shape={indptr.shape}")
  if reorder not in (0, 1, 2, 3):
    raise ValueError(f"reorder={reorder} not valid, must be one of [1, 2, 3, 4]")


def _host_solve(transpose, data, indices, indptr, b):
  import scipy.sparse
  import scipy.sparse.linalg
  a = scipy.sparse.csr_matrix((np.asarray(data), np.asarray(indices), np.asarray(indptr)),
                              shape=(b.size, b.size))
  return np.asarray(scipy.sparse.linalg.spsolve(a.T if transpose else a,
                                                np.asarray(b))).astype(b.dtype)


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
  """The solution ``x`` of ``A @ x = b`` for the square CSR matrix ``A = (data, indices,
  indptr)``, solved on the host by ``scipy.sparse.linalg.spsolve`` (``tol`` and ``reorder``
  only matter to JAX's GPU solver). A ``custom_linear_solve``, so differentiable in ``b`` and
  ``data`` in both modes (reverse mode solves with ``A.T``).

  Example:
      >>> import ember.numpy as jnp
      >>> spsolve(jnp.array([1., 1.]), jnp.array([1, 0]), jnp.array([0, 1, 2]),
      ...         jnp.array([3., 4.]))
      Array([4., 3.], dtype=float32)
  """
  import functools
  import ember
  import ember.numpy as jnp
  from ember import lax
  from ember.experimental.sparse.csr import csr_matvec_p
  data, indices, indptr, b = map(jnp.asarray, (data, indices, indptr, b))
  _check(data, indices, indptr, b, reorder)
  n = b.size

  def host(transpose, rhs):
    out = ember.ShapeDtypeStruct(rhs.shape, rhs.dtype)
    fn = functools.partial(_host_solve, transpose)
    return ember.pure_callback(fn, out, lax.stop_gradient(data), indices, indptr, rhs,
                               vmap_method="sequential")

  def matvec(x):
    return csr_matvec_p.bind(data, indices, indptr, x, shape=(n, n), transpose=False)
  return lax.custom_linear_solve(matvec, b, lambda _, rhs: host(False, rhs),
                                 lambda _, rhs: host(True, rhs))


def lobpcg_standard(A, X, m=100, tol=None):
  """JAX's LOBPCG eigensolver, which ember does not provide.

  Example:
      >>> lobpcg_standard(None, None)
      Traceback (most recent call last):
      NotImplementedError: ember.experimental.sparse.linalg.lobpcg_standard is not provided
  """
  raise NotImplementedError("ember.experimental.sparse.linalg.lobpcg_standard is not provided")


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
