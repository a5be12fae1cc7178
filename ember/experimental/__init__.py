"""Experimental APIs (mirrors ``jax.experimental``): ``shard_map`` under its older name,
``checkify`` and ``io_callback``."""
from ember.callback import io_callback  # noqa: F401

__all__ = ["io_callback"]
