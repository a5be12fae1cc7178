"""``ember.extend``: the parts of ``jax.extend`` that libraries built on JAX import.

``ember.extend.core`` gives ember's jaxpr IR and the current-trace helpers under JAX 0.10.2's
``jax.extend.core`` names. ``ember.extend.linear_util`` keeps JAX's names importable, but ember
has no ``WrappedFun``: its functions raise ``NotImplementedError`` when called (see
docs/differences.md).
"""
from ember.extend import core, linear_util  # noqa: F401

__all__ = ["core", "linear_util"]
