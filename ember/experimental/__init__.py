"""Experimental APIs (mirrors ``jax.experimental``): ``shard_map`` under its older name."""
