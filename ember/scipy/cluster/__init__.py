"""ember.scipy.cluster: SciPy's clustering on ember arrays, mirroring ``jax.scipy.cluster``
(which holds the ``vq`` module).

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.cluster import vq
    >>> vq.vq(jnp.array([[0.9], [3.2]]), jnp.array([[1.], [3.]]))[0]
    Array([0, 1], dtype=int32)
"""
from ember.scipy.cluster import vq

__all__ = ["vq"]
