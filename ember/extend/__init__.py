"""``ember.extend``: the parts of ``jax.extend`` that libraries built on JAX import.

``ember.extend.core`` gives ember's jaxpr IR and the current-trace helpers under JAX 0.10.2's
``jax.extend.core`` names, ``ember.extend.linear_util`` JAX's ``WrappedFun`` transformations
(ember/_src/linear_util.py), and ``ember.extend.random`` the PRNG implementations.
"""
from ember.extend import core, linear_util, random  # noqa: F401

__all__ = ["core", "linear_util", "random"]
