"""Host callbacks: Python functions called from inside compiled programs.

``pure_callback(f, result_shape_dtypes, *args)`` calls ``f`` on the host with arrays and
returns its results as arrays of the declared shapes and dtypes (a pure function: XLA may skip
it when its results are unused, and ``vmap`` runs it by ``vmap_method``).
``ember.experimental.io_callback`` is the effectful kind with results; ``ember.debug.callback``
and ``ember.debug.print`` are the effectful kind called for their side effects (see
ember/debug.py). All run eagerly at once, and under ``jit`` each time the program runs; inside
``shard_map`` and ``pmap`` once per device with its block, and in a ``jit`` over sharded
arguments once (on the mesh's first device) with whole values, as in JAX (see
ember/primitives/callback.py for how).

Differences from JAX (docs/differences.md): ``ordered=True`` is refused (ember threads no
tokens to order effects), as is ``sharding=``. A callback whose result does not match its
declared type raises a ``TypeError`` saying so (JAX raises an XLA runtime error).

Example:
    >>> import numpy as np, ember, ember.numpy as jnp
    >>> f = lambda x: np.sinc(x)  # a NumPy function, run on the host
    >>> ember.jit(lambda x: ember.pure_callback(f, ember.ShapeDtypeStruct((2,), jnp.float32),
    ...                                          x))(jnp.array([0.0, 0.5]))
    Array([1.        , 0.63661975], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Callable

from ember import pytree
from ember.primitives.callback import (FlatCallback, io_callback_p, pure_callback_p,
                                       result_avals)

__all__ = ["pure_callback", "io_callback"]

_VMAP_METHODS = (None, "sequential", "expand_dims", "broadcast_all")


def _flat_args(name: str, args, kwargs) -> tuple[list, Any]:
  """The leaves of ``(args, kwargs)``, each of which must be a value ember can stage."""
  from ember.core import trace as core
  leaves, in_tree = pytree.flatten((args, kwargs))
  for i, leaf in enumerate(leaves):
    try:
      core.get_aval(leaf)
    except TypeError:
      raise TypeError(f"Error interpreting argument to {name} as a JAX value. The problematic "
                      f"value is of type {type(leaf)} and was passed to {name} at position "
                      f"{i}.") from None
  return leaves, in_tree


def _bind(prim, name: str, callback: Callable, result_shape_dtypes, args, kwargs, **params):
  if not callable(callback):
    raise TypeError(f"callback must be callable, got {callback!r}.")
  leaves, in_tree = _flat_args(name, args, kwargs)
  avals, tree = result_avals(result_shape_dtypes)
  flat = FlatCallback(callback, in_tree, result_tree=tree)
  outs = prim.bind(*leaves, callback=flat, result_avals=avals, sharding=None, **params)
  return pytree.unflatten(tree, outs)


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args, sharding=None,
                  vmap_method: str | None = None, **kwargs):
  """Call ``callback(*args, **kwargs)`` on the host with arrays; returns its results as
  arrays of ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``-likes).

  ``vmap_method`` says how it batches: ``"sequential"`` (once per example, in a ``scan``),
  ``"expand_dims"`` (once, unbatched arguments given a unit leading axis) or
  ``"broadcast_all"`` (once, every argument batched); None refuses ``vmap``. Not
  differentiable (wrap it in ``custom_jvp``).

  Example:
      >>> import numpy as np, ember, ember.numpy as jnp
      >>> ember.pure_callback(np.cumsum, ember.ShapeDtypeStruct((3,), jnp.float32),
      ...                     jnp.ones(3))
      Array([1., 2., 3.], dtype=float32)
  """
  if sharding is not None:
    raise NotImplementedError("pure_callback(sharding=...) is not supported by ember; leave it "
                              "out.")
  if vmap_method not in _VMAP_METHODS:
    raise ValueError(f"vmap_method must be one of {_VMAP_METHODS}, got {vmap_method!r}.")
  return _bind(pure_callback_p, "pure_callback", callback, result_shape_dtypes, args, kwargs,
               vmap_method=vmap_method)


def io_callback(callback: Callable, result_shape_dtypes: Any, *args, sharding=None,
                ordered: bool = False, **kwargs):
  """Call ``callback`` on the host for its side effects and results (never skipped; once per
  example under ``vmap``; not differentiable).

  Example:
      >>> import numpy as np, ember, ember.numpy as jnp
      >>> from ember.experimental import io_callback
      >>> seen = []
      >>> def log(x):
      ...   seen.append(float(x))
      ...   return np.float32(len(seen))
      >>> ember.jit(lambda x: io_callback(log, ember.ShapeDtypeStruct((), jnp.float32), x))(2.0)
      Array(1., dtype=float32)
  """
  if sharding is not None:
    raise NotImplementedError("io_callback(sharding=...) is not supported by ember; leave it "
                              "out.")
  if ordered:
    raise NotImplementedError("io_callback(ordered=True) is not supported by ember (it threads "
                              "no tokens to order effects); leave ordered out.")
  return _bind(io_callback_p, "io_callback", callback, result_shape_dtypes, args, kwargs,
               ordered=False)
