"""``JAXSparse``: what every sparse format shares (shape, ``ndim``, ``size``, the printed form
``BCOO(float32[2, 3], nse=3)``, and stubs for the operations a format may not provide)."""
from __future__ import annotations

import abc
import math
from typing import Sequence

import numpy as np

# ember's tracer classes under the names JAX prints in a traced sparse array's repr
_TRACER_NAMES = {"JaxprTracer": "DynamicJaxprTracer", "LinearizeTracer": "JVPTracer"}


def tracer_prefix(data) -> str | None:
  """The tracer class name JAX shows for a sparse array whose data is ``data``, or None."""
  from ember.core.trace import Tracer
  if not isinstance(data, Tracer):
    return None
  name = type(data).__name__
  return _TRACER_NAMES.get(name, name)


class JAXSparse(abc.ABC):
  """Base class of the sparse array formats (BCOO, BCSR, COO, CSR, CSC).

  Example:
      >>> from ember.experimental import sparse
      >>> import ember.numpy as jnp
      >>> isinstance(sparse.BCOO.fromdense(jnp.eye(2)), sparse.JAXSparse)
      True
  """
  data: object
  shape: tuple[int, ...]

  __hash__ = None

  def __init__(self, args, *, shape: Sequence[int]):
    del args
    self.shape = tuple(int(s) for s in shape)

  @property
  @abc.abstractmethod
  def dtype(self) -> np.dtype: ...

  @property
  @abc.abstractmethod
  def nse(self) -> int: ...

  def __len__(self):
    return self.shape[0]

  @property
  def size(self) -> int:
    return math.prod(self.shape)

  @property
  def ndim(self) -> int:
    return len(self.shape)

  def _repr_extra(self) -> str:
    return f", nse={self.nse}"

  def __repr__(self):
    name = type(self).__name__
    try:
      text = f"{name}({self.dtype}{list(self.shape)}{self._repr_extra()})"
    except Exception:  # noqa: BLE001 (a malformed array still prints)
      text = f"{name}(<invalid>)"
    prefix = tracer_prefix(self.data)
    return text if prefix is None else f"{prefix}[{text}]"

  @abc.abstractmethod
  def tree_flatten(self): ...

  @classmethod
  @abc.abstractmethod
  def tree_unflatten(cls, aux_data, children): ...

  @abc.abstractmethod
  def transpose(self, axes=None): ...

  @abc.abstractmethod
  def todense(self): ...

  @property
  def T(self):
    return self.transpose()

  def block_until_ready(self):
    for buf in self.tree_flatten()[0]:
      buf.block_until_ready()
    return self

  # Operations a format may not provide: JAX's NotImplementedError naming the method.
  def _missing(self, name: str):
    raise NotImplementedError(f"{type(self)}.{name}")

  def sum(self, *args, **kwargs):
    self._missing("sum")

  def __neg__(self):
    self._missing("__neg__")

  def __pos__(self):
    self._missing("__pos__")

  def __matmul__(self, other):
    self._missing("__matmul__")

  def __rmatmul__(self, other):
    self._missing("__rmatmul__")

  def __mul__(self, other):
    self._missing("__mul__")

  def __rmul__(self, other):
    self._missing("__rmul__")

  def __add__(self, other):
    self._missing("__add__")

  def __radd__(self, other):
    self._missing("__radd__")

  def __sub__(self, other):
    self._missing("__sub__")

  def __rsub__(self, other):
    self._missing("__rsub__")

  def __getitem__(self, item):
    self._missing("__getitem__")
