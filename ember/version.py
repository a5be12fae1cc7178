"""``ember.version``: the version ember mirrors (JAX's ``jax.version``; libraries compare it to
pick code paths).

Example:
    >>> from ember import version
    >>> version.__version_info__ >= (0, 10)
    True
"""
__version__ = _version = "0.10.2"
__version_info__ = (0, 10, 2)
_minimum_jaxlib_version = "0.10.1"
_minimum_jaxlib_version_info = (0, 10, 1)
