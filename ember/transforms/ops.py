"""The few array operations the transforms build themselves, installed by ``ember.lax``.

Transforms sit below the primitives' families in the import order (pytree -> core -> backend ->
transforms -> primitives -> lax -> numpy), yet they make a handful of arrays of their own: the
zeros of a symbolic-zero cotangent, a batch axis moved or broadcast, a scalar seed converted to
an output's type. Rather than import ``ember.lax`` back inside functions, they call these hooks,
which ``ember/lax/__init__.py`` fills once when ember is imported (as the backend installs the
eager path with ``core.set_default_impl``).

Example:
    >>> import ember
    >>> from ember.transforms.ops import ops
    >>> ops.expand_dims(ember.numpy.ones(2), (0,)).shape
    (1, 2)
"""
from __future__ import annotations

from typing import Callable

__all__ = ["ops", "install"]


class _Ops:
  """The hooks: lax's functions of the same names (``convert`` is lax's
  ``_convert_element_type(x, dtype, weak_type)``; ``broadcast_in_dim(x, shape, dims)`` binds
  the primitive with ``dims`` as given; ``pvary(x, axes)`` marks a value as varying over manual
  mesh axes, ``psum(x, axes)`` sums it over them)."""
  __slots__ = ("convert", "broadcast", "broadcast_in_dim", "transpose", "expand_dims",
               "squeeze", "real", "div", "pvary", "psum")

  def __getattr__(self, name: str):
    if name not in _Ops.__slots__:
      raise AttributeError(name)
    raise RuntimeError(f"ember.transforms.ops.{name} is used before ember.lax installed it; "
                       "import ember first")


ops = _Ops()


def install(**fns: Callable) -> None:
  """Fill the hooks (``ember.lax`` does, at import)."""
  for name, fn in fns.items():
    setattr(ops, name, fn)
