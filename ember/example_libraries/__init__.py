"""Small libraries written on top of ember, mirroring ``jax.example_libraries``.

``optimizers`` holds first-order optimizers as ``(init_fun, update_fun, get_params)`` triples of
pure functions over pytrees; ``stax`` builds neural networks from ``(init_fun, apply_fun)`` pairs.
Like JAX's, they are meant as readable examples rather than a full library.

Example:
    >>> from ember.example_libraries import optimizers
    >>> opt_init, opt_update, get_params = optimizers.sgd(0.5)
    >>> import ember.numpy as jnp
    >>> get_params(opt_update(0, jnp.array([2.0]), opt_init(jnp.array([1.0]))))
    Array([0.], dtype=float32)
"""
