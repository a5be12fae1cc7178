"""Experimental APIs (mirrors ``jax.experimental``): ``shard_map`` under its older name,
``checkify`` and ``io_callback``."""
from ember.callback import io_callback  # noqa: F401

__all__ = ["io_callback"]


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
