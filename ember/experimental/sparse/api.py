"""Format-independent entry points: ``todense`` (a primitive over any sparse array's buffers),
``empty`` and ``eye``.

``todense_p`` takes the flattened buffers of a sparse (or dense) array and its pytree structure
as the ``tree`` parameter: it differentiates in the data buffer (the cotangent is the dense
cotangent sampled at the stored positions) and batches by vmapping the format's ``todense``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.experimental.sparse import BCOO
    >>> todense(BCOO.fromdense(jnp.array([0., 1.])))
    Array([0., 1.], dtype=float32)
"""
from __future__ import annotations

from typing import Sequence

from ember import pytree
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.experimental.sparse._base import JAXSparse
from ember.primitives.lower_fun import lower_fun
from ember.transforms.ad_util import Zero, is_undefined

__all__ = ["todense", "todense_p", "empty", "eye"]


def todense(arr):
  """The dense form of a sparse array (a dense array passes through).

  Example:
      >>> import ember.numpy as jnp
      >>> todense(jnp.ones(2))
      Array([1., 1.], dtype=float32)
  """
  bufs, tree = pytree.flatten(arr)
  return todense_p.bind(*bufs, tree=tree)


def _todense_impl(*bufs, tree):
  arr = pytree.unflatten(tree, bufs)
  return arr.todense() if isinstance(arr, JAXSparse) else arr


def _todense_abstract_eval(*bufs, tree):
  arr = pytree.unflatten(tree, bufs)
  if isinstance(arr, ShapedArray):
    return arr
  return ShapedArray(tuple(arr.shape), arr.dtype, arr.data.weak_type)


def _todense_jvp(primals, tangents, *, tree):
  from ember.transforms.ad_util import instantiate
  out = todense_p.bind(*primals, tree=tree)
  return out, todense_p.bind(instantiate(tangents[0]), *primals[1:], tree=tree)


def _todense_transpose_rule(ct, *bufs, tree):
  from ember.experimental.sparse._bcoo_prims import bcoo_extract_p
  from ember.experimental.sparse.bcoo import BCOO
  from ember.experimental.sparse.bcsr import BCSR, bcsr_extract
  from ember.experimental.sparse.coo import COO
  if any(is_undefined(b) for b in bufs[1:]):
    raise ValueError("Cannot transpose with respect to sparse indices")
  standin = object()
  obj = pytree.unflatten(tree, [standin] * len(bufs))
  rest = [None] * (len(bufs) - 1)
  if type(ct) is Zero:
    return [Zero(bufs[0].aval), *rest]
  if obj is standin:
    return [ct]
  if isinstance(obj, BCOO):
    return [bcoo_extract_p.bind(bufs[1], ct, assume_unique=True), *rest]
  if isinstance(obj, BCSR):
    return [bcsr_extract(bufs[1], bufs[2], ct), *rest]
  if isinstance(obj, COO):
    return [ct[bufs[1], bufs[2]], *rest]
  raise NotImplementedError(f"todense_transpose for {type(obj)}")


def _todense_batch(axis, vals, dims, *, tree):
  from ember import vmap
  return vmap(lambda *b: _todense_impl(*b, tree=tree), in_axes=tuple(dims))(*vals), 0


todense_p = Primitive("todense")
todense_p.def_rules(abstract_eval=_todense_abstract_eval, impl=_todense_impl,
                    lower=lower_fun(_todense_impl), jvp=_todense_jvp,
                    transpose=_todense_transpose_rule, batch=_todense_batch)


def _formats() -> dict:
  from ember.experimental.sparse.bcoo import BCOO
  from ember.experimental.sparse.bcsr import BCSR
  from ember.experimental.sparse.coo import COO
  from ember.experimental.sparse.csr import CSC, CSR
  return {"bcsr": BCSR, "bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}


def empty(shape: Sequence[int], dtype=None, index_dtype="int32", sparse_format: str = "bcoo",
          **kwds) -> JAXSparse:
  """An all-zero sparse array of ``shape`` (``nse=0`` unless given for BCOO/BCSR).

  Args:
    shape: the array's shape.
    dtype: its dtype (float32 by default).
    index_dtype: the dtype of its index arrays.
    sparse_format: one of 'bcoo', 'bcsr', 'coo', 'csr', 'csc'.
    **kwds: the format's options (``n_batch``, ``n_dense``, ``nse`` for BCOO).

  Example:
      >>> empty((2, 3))
      BCOO(float32[2, 3], nse=0)
  """
  formats = _formats()
  if sparse_format not in formats:
    raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of "
                     f"{list(formats.keys())}")
  return formats[sparse_format]._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype,
                                       **kwds)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, index_dtype="int32",
        sparse_format: str = "bcoo", **kwds) -> JAXSparse:
  """A 2-D sparse array with ones on the ``k``-th diagonal.

  Example:
      >>> eye(3, k=1).todense()
      Array([[0., 1., 0.],
             [0., 0., 1.],
             [0., 0., 0.]], dtype=float32)
  """
  from ember.experimental.sparse.bcoo import concrete_index
  formats = {k_: v for k_, v in _formats().items() if k_ != "bcsr"}
  if sparse_format not in formats:
    raise KeyError(sparse_format)
  M = N if M is None else M
  N, M, k = (concrete_index(v, "") for v in (N, M, k))
  return formats[sparse_format]._eye(M=M, N=N, k=k, dtype=dtype, index_dtype=index_dtype, **kwds)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
