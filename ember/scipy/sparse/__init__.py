"""ember.scipy.sparse: mirrors ``jax.scipy.sparse``, which holds one submodule, ``linalg``
(the Krylov solvers ``cg``, ``bicgstab`` and ``gmres``).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy import sparse
    >>> sparse.linalg.gmres(jnp.eye(2), jnp.array([1., 2.]))[0]
    Array([1.0000001, 2.0000002], dtype=float32)
"""
from ember.scipy.sparse import linalg

__all__ = ["linalg"]
