"""ember.scipy.spatial: SciPy's spatial algorithms on ember arrays, mirroring
``jax.scipy.spatial``, whose one module is ``transform`` (``Rotation``, ``Slerp``).

Example:
    >>> from ember.scipy.spatial.transform import Rotation
    >>> Rotation.identity().as_rotvec()
    Array([0., 0., 0.], dtype=float32)
"""
from ember.scipy.spatial import transform

__all__ = ["transform"]
