"""lax's accelerator collectives of JAX 0.10.2: ``pbroadcast``, ``ragged_all_to_all``,
``psend`` and ``precv``.

``pbroadcast`` works under ``vmap(..., axis_name=)``; compiled over a mesh it needs XLA's
CollectiveBroadcast, which the CPU backend lacks (JAX raises there too), as does
``ragged_all_to_all``. ``psend``/``precv`` (sends and receives ordered by XLA tokens) are not
provided: they raise ``NotImplementedError`` (see docs/differences.md).

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import lax
    >>> ember.vmap(lambda x: lax.pbroadcast(x, 'i', 2), axis_name='i')(jnp.arange(3.0))
    Array([2., 2., 2.], dtype=float32)
"""
from __future__ import annotations

from ember import pytree
from ember.core import trace as core
from ember.lax.parallel import _check_bound, _vary
from ember.primitives.collectives import as_names, named_axes
from ember.primitives.collectives_more import pbroadcast_p, ragged_all_to_all_p

__all__ = ["pbroadcast", "ragged_all_to_all", "psend", "precv"]


def pbroadcast(x, axis_name, source):
  """Every lane of ``axis_name`` gets lane ``source``'s ``x`` (each leaf of a pytree).

  Raises:
    NameError: for an unbound axis name (NotImplementedError outside any transformation).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> ember.vmap(lambda x: lax.pbroadcast(x, 'i', 0), axis_name='i')(jnp.arange(2.0))
      Array([0., 0.], dtype=float32)
  """
  names = as_names(axis_name)
  if core.current_trace() is core.EVAL_TRACE and _unbound(names):
    raise NotImplementedError("Evaluation rule for 'pbroadcast' not implemented (call it under "
                              "vmap(..., axis_name=) or shard_map)")
  _check_bound(names, "pbroadcast")
  leaves, tree = pytree.flatten(x)
  return pytree.unflatten(tree, [pbroadcast_p.bind(_vary(leaf, names), axis_name=axis_name,
                                                   source=source) for leaf in leaves])


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                      *, axis_name, axis_index_groups=None):
  """Send slices ``operand[input_offsets[i]:][:send_sizes[i]]`` to the lanes of ``axis_name``,
  each written into that lane's ``output`` (see JAX's documentation for the offsets). ember
  traces it (inside ``shard_map``) but, like JAX on CPU, cannot compile it.

  Raises:
    NameError: for an unbound axis name (RuntimeError outside any transformation).
    NotImplementedError: under ``vmap`` and when compiled on CPU.

  Example:
      >>> import ember
      >>> from ember import lax
      >>> try:
      ...   lax.ragged_all_to_all(1.0, 1.0, 0, 0, 0, 0, axis_name='i')
      ... except RuntimeError as e:
      ...   print(str(e)[:43])
      ragged_all_to_all must be used within a map
  """
  names = as_names(axis_name)
  if core.current_trace() is core.EVAL_TRACE and _unbound(names):
    raise RuntimeError("ragged_all_to_all must be used within a mapped context like vmap or "
                       "shard_map.")
  _check_bound(names, "ragged_all_to_all")
  groups = None if axis_index_groups is None else tuple(map(tuple, axis_index_groups))
  return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes, output_offsets,
                                  recv_sizes, axis_name=names, axis_index_groups=groups)


def _unbound(names) -> bool:
  return any(core.axis_size(n) is None for n in named_axes(names))


def _no_tokens(name: str):
  raise NotImplementedError(
      f"lax.{name} is not supported by ember: it orders sends and receives with XLA tokens "
      "inside compiled programs (JAX 0.10.2 runs it only on GPUs, under shard_map).")


def psend(x, axis_name, perm):
  """Not supported by ember (raises ``NotImplementedError``): JAX's send over ``axis_name``,
  returning a token for ``precv``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> try:
      ...   ember.vmap(lambda x: lax.psend(x, 'i', [(0, 1)]), axis_name='i')(jnp.ones(2))
      ... except NotImplementedError as e:
      ...   print(str(e)[:36])
      lax.psend is not supported by ember:
  """
  _check_bound(as_names(axis_name), "psend")
  _no_tokens("psend")


def precv(token, out_shape, axis_name, perm):
  """Not supported by ember (raises ``NotImplementedError``): JAX's receive over
  ``axis_name``, ordered after ``token``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> from ember import lax
      >>> try:
      ...   ember.vmap(lambda x: lax.precv(lax.create_token(), x, 'i', [(0, 1)]),
      ...              axis_name='i')(jnp.ones(2))
      ... except NotImplementedError as e:
      ...   print(str(e)[:36])
      lax.precv is not supported by ember:
  """
  _no_tokens("precv")
