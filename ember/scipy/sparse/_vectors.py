"""Vectors as pytrees of arrays, for ember.scipy.sparse.linalg's Krylov solvers: their inner
products and norms (reductions over every leaf), linear combinations leaf by leaf, and linear
operators given as functions, matrices or objects with ``@``.

Inner products run at ``Precision.HIGHEST``; sums over leaves are Python sums in leaf order, so
results round as JAX 0.10.2's do.
"""
from __future__ import annotations

import operator
from functools import partial
from typing import Any, Callable

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.backend.array import Array
from ember.lax.elementwise import _convert_element_type
from ember.pytree import tree_leaves, tree_map

__all__ = ["add", "as_operator", "identity", "norm", "safe_normalize", "scale", "sub",
           "vdot_real", "vdot_tree"]

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_vdot = partial(jnp.vdot, precision=lax.Precision.HIGHEST)


def identity(x):
  """The operator that changes nothing (the default preconditioner)."""
  return x


def _vdot_real_leaf(x, y):
  """``Re(x^H y)`` as the real parts' dot plus the imaginary parts' (exact for a Hermitian
  form's ``z^H M z``, the only use)."""
  out = _vdot(x.real, y.real)
  if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
    out += _vdot(x.imag, y.imag)
  return out


def vdot_real(x, y):
  """``Re(x^H y)`` summed over the leaves of two pytrees of one structure."""
  return sum(tree_leaves(tree_map(_vdot_real_leaf, x, y)))


def vdot_tree(x, y):
  """``x^H y`` summed over the leaves of two pytrees of one structure."""
  return sum(tree_leaves(tree_map(_vdot, x, y)))


def norm(x):
  """The 2-norm of a pytree taken as one vector."""
  leaves = tree_leaves(x)
  return jnp.sqrt(sum(map(_vdot_real_leaf, leaves, leaves)))


def scale(alpha, x):
  """``alpha * x`` leaf by leaf."""
  return tree_map(partial(operator.mul, alpha), x)


def add(x, y):
  return tree_map(operator.add, x, y)


def sub(x, y):
  return tree_map(operator.sub, x, y)


def safe_normalize(x, thresh=None):
  """``(x / |x|, |x|)``, or zeros and 0 where ``|x|`` is not above ``thresh`` (by default the
  machine epsilon of the norm's dtype)."""
  size = norm(x)
  dtype, weak_type = dtypes.result_type(*tree_leaves(x), return_weak_type_flag=True)
  if thresh is None:
    thresh = dtypes.finfo(size.dtype).eps
  thresh = thresh.astype(dtype).real
  keep = size > thresh
  divisor = _convert_element_type(size, dtype, weak_type)
  unit = tree_map(lambda leaf: jnp.where(keep, leaf / divisor, 0.0), x)
  return unit, jnp.where(keep, size, 0.0)


def as_operator(a) -> Callable[[Any], Any]:
  """``a`` as a function computing the matrix-vector product: ``a`` itself when callable, a
  square matrix's product, or ``a @ x`` for other objects defining ``@``."""
  if callable(a):
    return a
  if isinstance(a, (np.ndarray, Array)):
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
      raise ValueError(f"linear operator must be a square matrix, but has shape: {a.shape}")
    return partial(_dot, a)
  if hasattr(a, "__matmul__"):
    if (hasattr(a, "shape") and len(a.shape) != 2) or a.shape[0] != a.shape[1]:
      raise ValueError(f"linear operator must be a square matrix, but has shape: {a.shape}")
    return partial(operator.matmul, a)
  raise TypeError(f"linear operator must be either a function or ndarray: {a}")
