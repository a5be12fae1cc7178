"""Host callbacks: Python functions called from inside compiled programs.

``pure_callback(f, result_shape_dtypes, *args)`` calls ``f`` on the host with NumPy arrays and
returns its results as arrays of the declared shapes and dtypes (a pure function: ember may skip
it when its results are unused, and runs it again under ``vmap`` by ``vmap_method``).
``ember.debug.callback`` and ``ember.debug.print`` are the effectful kind, called for their
side effects (see ember/debug.py); ``ember.experimental.io_callback`` is the effectful kind
with results. All run eagerly at once, and under ``jit`` each time the program runs (see
ember/primitives/callback.py for how).

Differences from JAX (docs/differences.md): ``ordered=True`` is refused (ember threads no
tokens to order effects), as are callbacks inside programs compiled for a mesh and
``sharding=``.

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
from ember.primitives.callback import HostCallback, callback_p, result_avals

__all__ = ["pure_callback", "io_callback"]

_VMAP_METHODS = (None, "sequential", "expand_dims", "broadcast_all")


def _bind(callback: Callable, kind: str, result_shape_dtypes, args, kwargs, vmap_method=None):
  if not callable(callback):
    raise TypeError(f"callback must be callable, got {callback!r}.")
  leaves, in_tree = pytree.flatten((args, kwargs))
  if kind == "debug":
    avals, tree = (), pytree.flatten(None)[1]
  else:
    avals, tree = result_avals(result_shape_dtypes)
  host = HostCallback(callback, in_tree, avals, tree, kind, vmap_method)
  outs = callback_p.bind(*leaves, callback=host)
  return None if kind == "debug" else pytree.unflatten(tree, outs)


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args, sharding=None,
                  vmap_method: str | None = None, **kwargs):
  """Call ``callback(*args, **kwargs)`` on the host with NumPy arrays; returns its results as
  arrays of ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``-likes).

  ``vmap_method`` says how it batches: ``"sequential"`` (once per example), ``"expand_dims"``
  (once, unbatched arguments given a unit leading axis) or ``"broadcast_all"`` (once, every
  argument batched); None refuses ``vmap``. Not differentiable (wrap it in ``custom_jvp``).

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
  return _bind(callback, "pure", result_shape_dtypes, args, kwargs, vmap_method)


def io_callback(callback: Callable, result_shape_dtypes: Any, *args, sharding=None,
                ordered: bool = False, **kwargs):
  """Call ``callback`` on the host for its side effects and results (never skipped).

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
  return _bind(callback, "io", result_shape_dtypes, args, kwargs, "sequential")


def debug_callback(callback: Callable, *args, ordered: bool = False, partitioned: bool = False,
                   **kwargs) -> None:
  if ordered:
    raise NotImplementedError("debug.callback/print(ordered=True) is not supported by ember (it "
                              "threads no tokens to order effects); leave ordered out.")
  if partitioned:
    raise NotImplementedError("debug.callback(partitioned=True) is not supported by ember.")
  _bind(callback, "debug", None, args, kwargs)
