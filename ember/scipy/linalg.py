"""ember.scipy.linalg: SciPy's linear algebra on ember arrays, mirroring ``jax.scipy.linalg``.

Built on ember.lax.linalg's LAPACK-backed decompositions, so every function works under jit
and vmap, and is differentiable where JAX's is (the Schur, Hessenberg and Householder-based
ones are not; those with while loops, forward mode only). SciPy's ``overwrite_*`` and
``check_finite`` arguments are accepted and ignored, as in JAX. Where SciPy takes a vector or a
matrix right-hand side, so do these functions. The functions live by family:
``_factorizations`` (cholesky, lu, qr, svd, eigh, solves), ``_condensed`` (Schur, Hessenberg,
polar, tridiagonal eigenproblems), ``_matfuncs`` (expm, expm_frechet, sqrtm, funm,
solve_sylvester) and ``_special_matrices`` (toeplitz, hankel, pascal, dft, ...).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import linalg
    >>> linalg.solve_triangular(jnp.array([[2., 0.], [1., 1.]]), jnp.array([2., 3.]), lower=True)
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

from ember.scipy._factorizations import (
    cho_factor, cho_solve, cholesky, det, eigh, inv, lu, lu_factor, lu_solve, qr, solve,
    solve_triangular, svd)
from ember.scipy._condensed import eigh_tridiagonal, hessenberg, polar, qr_multiply, rsf2csf, schur
from ember.scipy._matfuncs import expm, expm_frechet, funm, solve_sylvester, sqrtm
from ember.scipy._special_matrices import (
    block_diag, circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion,
    hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal, toeplitz)

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
    "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]
