"""ember.scipy.cluster.vq: vector quantization, mirroring ``jax.scipy.cluster.vq``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.cluster import vq
    >>> vq.vq(jnp.array([1., 5., 2.5]), jnp.array([0., 5.]))
    (Array([0, 1, 0], dtype=int32), Array([1. , 0. , 2.5], dtype=float32))
"""
from __future__ import annotations

from ember import numpy as jnp
from ember.numpy._util import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
  """Assign each observation to its nearest code in ``code_book`` (Euclidean distance).

  Args:
      obs: the observations, ``(M,)`` (scalars) or ``(M, N)`` (N-vectors).
      code_book: the codes, of ``obs``' rank: ``(K,)`` or ``(K, N)``.
      check_finite: ignored (as in JAX).

  Returns:
      ``(code, dist)``: the index of each observation's nearest code (the first, on ties) and
      the distance to it, of the promoted inexact real dtype.

  Raises:
      ValueError: for arguments of different ranks, or of a rank other than 1 or 2.
      TypeError: for vectors of different lengths, or non-array arguments.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.cluster import vq
      >>> obs = jnp.array([[1., 2.], [3., 4.], [0., 0.]])
      >>> vq.vq(obs, jnp.array([[0., 0.], [4., 4.]]))
      (Array([0, 1, 0], dtype=int32), Array([2.236068, 1.      , 0.      ], dtype=float32))
  """
  check_arraylike("scipy.cluster.vq.vq", obs, code_book)
  obs, code_book = promote_dtypes_inexact(jnp.asarray(obs), jnp.asarray(code_book))
  if obs.ndim != code_book.ndim:
    raise ValueError("Observation and code_book should have the same rank")
  if obs.ndim == 1:
    obs, code_book = obs[..., None], code_book[..., None]
  elif obs.ndim != 2:
    raise ValueError("ndim different than 1 or 2 are not supported")
  if obs.shape[-1] != code_book.shape[-1]:  # as JAX reports it, per observation
    raise TypeError("sub got incompatible shapes for broadcasting: "
                    f"{(1,) + obs.shape[1:]}, {code_book.shape}.")
  dist = jnp.linalg.norm(obs[:, None, :] - code_book[None, :, :], axis=-1)
  code = jnp.argmin(dist, axis=-1)
  return code, jnp.min(dist, axis=-1)
