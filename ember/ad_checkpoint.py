"""Rematerialization (mirrors ``jax.ad_checkpoint``): ``checkpoint``/``remat``, the policies
choosing what reverse mode saves (``checkpoint_policies``), ``checkpoint_name`` to name values
for them, and the answers a policy may give (``Saveable``, ``Recompute``; ``Offloadable`` is
refused by ember's checkpoint, which has no host memory space).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.ad_checkpoint import checkpoint, checkpoint_name, checkpoint_policies
    >>> def f(x):
    ...   y = checkpoint_name(jnp.sin(x), "y")
    ...   return jnp.sin(y)
    >>> g = checkpoint(f, policy=checkpoint_policies.save_only_these_names("y"))
    >>> ember.grad(g)(1.0)
    Array(0.36003947, dtype=float32, weak_type=True)
"""
from ember.transforms.custom import checkpoint, remat  # noqa: F401
from ember.transforms.remat_policies import (  # noqa: F401
    checkpoint_name, checkpoint_policies, Saveable, Recompute, Offloadable)

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies", "Saveable",
           "Recompute", "Offloadable"]
