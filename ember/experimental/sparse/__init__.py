"""``ember.experimental.sparse``: sparse arrays, mirroring ``jax.experimental.sparse``.

The main format is :class:`BCOO` (batched coordinate): it works under ``jit``, ``vmap`` and
``grad`` and its operators run jnp functions through the :func:`sparsify` transform. :class:`BCSR`
is its compressed-row counterpart; ``COO``, ``CSR`` and ``CSC`` are JAX's older 2-D formats. Each
format's operations are primitives with their own rules (``bcoo_todense_p``,
``bcoo_dot_general_p``...), lowered to gathers, scatter-adds and sorts.

Differences from JAX (docs/differences.md): ``sparsify`` evaluates ``jit`` and ``custom_jvp``
calls inline; ``linalg.lobpcg_standard`` is not provided and ``linalg.spsolve`` is
a ``custom_linear_solve`` over a SciPy host callback; malformed buffers (non-integer indices, COO
and CSR buffers of the wrong shapes) raise TypeError / ValueError where JAX asserts; gradients
JAX cannot take (the rhs of ``bcoo_dot_general`` with dense dimensions, ``coo_matmat`` /
``csr_matmat`` data with ``transpose=True``, which JAX gets wrong) are computed; ``bcoo_fromdense``
of a bool array keeps bool data (JAX's eager path makes it int32).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental import sparse
    >>> M = sparse.BCOO.fromdense(jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.]]))
    >>> M
    BCOO(float32[2, 4], nse=3)
    >>> M.data
    Array([1., 2., 3.], dtype=float32)
    >>> (M.T @ jnp.ones(2)).tolist()
    [3.0, 1.0, 0.0, 2.0]
"""
from ember.experimental.sparse import util  # noqa: F401
from ember.experimental.sparse._base import JAXSparse
from ember.experimental.sparse.util import (
    CuSparseEfficiencyWarning, SparseEfficiencyError, SparseEfficiencyWarning)
from ember.experimental.sparse.bcoo import (
    BCOO, bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_conv_general_dilated, bcoo_dot_general,
    bcoo_dot_general_p, bcoo_dot_general_sampled, bcoo_dot_general_sampled_p,
    bcoo_dynamic_slice, bcoo_extract, bcoo_extract_p, bcoo_fromdense, bcoo_fromdense_p,
    bcoo_gather, bcoo_multiply_dense, bcoo_multiply_sparse, bcoo_reduce_sum, bcoo_reshape,
    bcoo_rev, bcoo_slice, bcoo_sort_indices, bcoo_sort_indices_p, bcoo_spdot_general_p,
    bcoo_squeeze, bcoo_sum_duplicates, bcoo_sum_duplicates_p, bcoo_todense, bcoo_todense_p,
    bcoo_transpose, bcoo_transpose_p, bcoo_update_layout)
from ember.experimental.sparse.bcsr import (
    BCSR, bcsr_broadcast_in_dim, bcsr_concatenate, bcsr_dot_general, bcsr_dot_general_p,
    bcsr_extract, bcsr_extract_p, bcsr_fromdense, bcsr_fromdense_p, bcsr_sum_duplicates,
    bcsr_todense, bcsr_todense_p)
from ember.experimental.sparse.coo import (
    COO, coo_fromdense, coo_fromdense_p, coo_matmat, coo_matmat_p, coo_matvec, coo_matvec_p,
    coo_todense, coo_todense_p)
from ember.experimental.sparse.csr import (
    CSC, CSR, csr_fromdense, csr_fromdense_p, csr_matmat, csr_matmat_p, csr_matvec,
    csr_matvec_p, csr_todense, csr_todense_p)
from ember.experimental.sparse.api import empty, eye, todense, todense_p
from ember.experimental.sparse.transform import SparseTracer, sparsify
from ember.experimental.sparse.ad import grad, jacfwd, jacobian, jacrev, value_and_grad
from ember.experimental.sparse.random import random_bcoo
from ember.experimental.sparse import linalg  # noqa: F401

__all__ = [
    "BCOO", "BCSR", "COO", "CSC", "CSR", "CuSparseEfficiencyWarning", "JAXSparse",
    "SparseEfficiencyError", "SparseEfficiencyWarning", "SparseTracer",
    "bcoo_broadcast_in_dim", "bcoo_concatenate", "bcoo_conv_general_dilated",
    "bcoo_dot_general", "bcoo_dot_general_p", "bcoo_dot_general_sampled",
    "bcoo_dot_general_sampled_p", "bcoo_dynamic_slice", "bcoo_extract", "bcoo_extract_p",
    "bcoo_fromdense", "bcoo_fromdense_p", "bcoo_gather", "bcoo_multiply_dense",
    "bcoo_multiply_sparse", "bcoo_reduce_sum", "bcoo_reshape", "bcoo_rev", "bcoo_slice",
    "bcoo_sort_indices", "bcoo_sort_indices_p", "bcoo_spdot_general_p", "bcoo_squeeze",
    "bcoo_sum_duplicates", "bcoo_sum_duplicates_p", "bcoo_todense", "bcoo_todense_p",
    "bcoo_transpose", "bcoo_transpose_p", "bcoo_update_layout", "bcsr_broadcast_in_dim",
    "bcsr_concatenate", "bcsr_dot_general", "bcsr_dot_general_p", "bcsr_extract",
    "bcsr_extract_p", "bcsr_fromdense", "bcsr_fromdense_p", "bcsr_sum_duplicates",
    "bcsr_todense", "bcsr_todense_p", "coo_fromdense", "coo_fromdense_p", "coo_matmat",
    "coo_matmat_p", "coo_matvec", "coo_matvec_p", "coo_todense", "coo_todense_p",
    "csr_fromdense", "csr_fromdense_p", "csr_matmat", "csr_matmat_p", "csr_matvec",
    "csr_matvec_p", "csr_todense", "csr_todense_p", "empty", "eye", "grad", "jacfwd",
    "jacobian", "jacrev", "random_bcoo", "sparsify", "todense", "todense_p", "value_and_grad"]
