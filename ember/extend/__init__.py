"""``ember.extend``: the parts of ``jax.extend`` that libraries built on JAX import.

``ember.extend.core`` gives ember's jaxpr IR and the current-trace helpers under JAX 0.10.2's
``jax.extend.core`` names, ``ember.extend.linear_util`` JAX's ``WrappedFun`` transformations
(ember/_src/linear_util.py), ``ember.extend.random`` the PRNG implementations,
``ember.extend.backend`` the PJRT client and its compile options, and ``ember.extend.mlir``
jaxlib's StableHLO serialization.
"""
from ember.extend import backend, core, linear_util, mlir, random  # noqa: F401

__all__ = ["backend", "core", "linear_util", "mlir", "random"]
