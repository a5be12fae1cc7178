"""Key reuse checking (mirrors ``jax.experimental.key_reuse``, which, like this module, defines
no public names: the checker is switched by the ``jax_debug_key_reuse`` option or the
``ember.debug_key_reuse`` context manager, and reports ``ember.errors.KeyReuseError``).

Off by default, as in JAX; unlike JAX, a third setting (None) checks eager code only. See
``ember/random/_key_reuse.py`` for the rules and what is checked where.

Example:
    >>> import ember
    >>> key = ember.random.key(0)
    >>> with ember.debug_key_reuse(True):
    ...   x = ember.random.normal(key)
    ...   y = ember.random.normal(key)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ember.core.errors.KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0
    ...
"""
__all__: list[str] = []
