"""Mutable array references (mirrors ``jax.ref``; ``Ref``, ``new_ref``, ``empty_ref``,
``freeze`` and ``free_ref`` are also at ember's top level).

A ``Ref`` holds an array that ``ref[idx] = value`` (``set``), ``swap`` and ``addupdate`` replace
in place, and that ``ref[idx]`` (``get``) and ``freeze`` read. Writes check shapes and dtypes as
JAX's do: the value must have exactly the shape of ``ref[idx]`` and the Ref's dtype (a Python
scalar is converted).

ember keeps a Ref's value in the Ref itself, so a Ref works eagerly and inside the one
transformation that made it (a ``jit``, ``grad`` or ``vmap`` of a function that creates,
updates and freezes its own Refs computes what JAX computes). Using a Ref inside another
transformation than the one that made it (a Ref made outside a ``jit`` and read or written in it,
or used in a ``scan`` body) raises ``NotImplementedError``: JAX threads such Refs through the
traced program as effects, which ember's jaxprs do not carry. Refs are not arguments or results
of transformed functions, and jaxprs show the values they hold, not ``new_ref``/``swap``
equations.

Example:
    >>> import ember, ember.numpy as jnp
    >>> r = ember.new_ref(jnp.zeros(3))
    >>> r[1] = 5.0
    >>> r[...] += 1.0
    >>> ember.freeze(r)
    Array([1., 6., 1.], dtype=float32)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ember import numpy as jnp
from ember.core import trace as core

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
           "new_ref", "set", "swap"]


class AbstractRef:
  """The type of a ``Ref``: ``Ref{float32[3]}``, around the type of its value (``inner_aval``).

  Example:
      >>> import ember
      >>> ember.new_ref(1.0).aval
      Ref{float32[]}
  """

  def __init__(self, inner_aval, memory_space=None, kind=None):
    if memory_space is not None or kind is not None:
      raise NotImplementedError(
          f"AbstractRef(memory_space={memory_space!r}, kind={kind!r}): ember has one memory "
          "space and one kind of Ref; leave both None.")
    self.inner_aval = inner_aval

  shape = property(lambda self: self.inner_aval.shape)
  dtype = property(lambda self: self.inner_aval.dtype)
  ndim = property(lambda self: len(self.inner_aval.shape))

  def __repr__(self):
    return f"Ref{{{self.inner_aval.str_short(short_dtypes=False)}}}"

  def __eq__(self, other):
    return isinstance(other, AbstractRef) and other.inner_aval == self.inner_aval

  def __hash__(self):
    return hash((AbstractRef, self.inner_aval))


class Ref:
  """A mutable reference to an array (``new_ref`` makes one).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> r = ember.new_ref(jnp.arange(3.0))
      >>> r[0] = 10.0
      >>> r
      Ref([10.,  1.,  2.], dtype=float32)
  """
  __slots__ = ("_value", "_trace")

  def __init__(self, aval, refs):
    del aval, refs
    raise TypeError("ember.Ref cannot be made directly: use ember.new_ref(init_val).")

  @classmethod
  def _make(cls, value) -> "Ref":
    ref = object.__new__(cls)
    ref._value = value
    ref._trace = core.current_trace()  # the transformation whose values it may hold
    return ref

  @property
  def aval(self) -> AbstractRef:
    return AbstractRef(core.get_aval(self._value))

  shape = property(lambda self: tuple(np.shape(self._value)))
  dtype = property(lambda self: self._value.dtype)
  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape)))

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __getitem__(self, idx):
    return get(self, idx)

  def __setitem__(self, idx, value):
    set(self, idx, value)

  def __repr__(self):
    value = self._value
    if isinstance(value, core.Tracer):
      return f"Ref({value!r})"
    text = repr(value)
    return "Ref" + text[len("Array"):] if text.startswith("Array") else f"Ref({text})"

  __str__ = __repr__


# --- reading and writing ----------------------------------------------------------------------

def _value(ref: Ref, what: str):
  """The Ref's value, if the current transformation may use it."""
  if not isinstance(ref, Ref):
    raise TypeError(f"{what} expects a Ref (made by ember.new_ref), got {type(ref).__name__}.")
  if core.current_trace() is not ref._trace:
    raise NotImplementedError(
        f"{what}: this Ref was made outside the transformation now running (or inside another "
        "one). ember keeps a Ref's value in the Ref, so it can be read and written only where "
        "it was made: create the Ref inside the transformed function, or pass its value in and "
        "out as an ordinary argument and result.")
  return ref._value


def _index(idx, shape: tuple):
  """``idx`` (None and ``()`` mean everything), with its integer parts checked against
  ``shape``: an integer out of bounds is an error, as in JAX (NumPy-style indexing would clamp
  it, and iterating over a Ref would never end)."""
  if idx is None or (isinstance(idx, tuple) and not idx):
    return Ellipsis
  parts = idx if isinstance(idx, tuple) else (idx,)
  if Ellipsis not in parts and not any(p is None for p in parts):
    for i, dim in zip(parts, shape):
      if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and not -dim <= i < dim:
        raise ValueError(f"Out of bound indexer: idx={i}, dim={dim}.")
  return idx


def get(ref: Ref, idx=None):
  """``ref[idx]``: the referenced array, or the part of it ``idx`` selects.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.ref.get(ember.new_ref(jnp.arange(3.0)), 2)
      Array(2., dtype=float32)
  """
  whole = _value(ref, "get")
  return whole[_index(idx, np.shape(whole))]


def _checked(old, ref_value, value, what: str):
  """``value`` for replacing ``old`` (``ref_value[idx]``): same shape, the Ref's dtype."""
  if isinstance(value, (bool, int, float, complex)):
    value = jnp.asarray(value, ref_value.dtype)
  aval = core.get_aval(value)
  if aval.dtype != ref_value.dtype:
    raise ValueError(f"Invalid dtype for `{what}`. Ref dtype: {ref_value.dtype}. Value dtype: "
                     f"{aval.dtype}. ")
  if tuple(aval.shape) != tuple(np.shape(old)):
    raise ValueError(f"Invalid shape for `{what}`. Ref shape: {tuple(np.shape(ref_value))}. "
                     f"Expected shape: {tuple(np.shape(old))}. Value shape: {tuple(aval.shape)}.")
  return value


def swap(ref: Ref, idx, value, _function_name: str = "ref_swap"):
  """Put ``value`` at ``ref[idx]`` and return what was there.

  Raises:
    ValueError: ``value``'s shape is not that of ``ref[idx]``, or its dtype not the Ref's.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> r = ember.new_ref(jnp.arange(3.0))
      >>> ember.ref.swap(r, 0, jnp.float32(7.0)), r
      (Array(0., dtype=float32), Ref([7., 1., 2.], dtype=float32))
  """
  del _function_name
  whole = _value(ref, "swap")
  idx = _index(idx, np.shape(whole))
  old = whole[idx]
  value = _checked(old, whole, value, "swap")
  ref._value = value if idx is Ellipsis else whole.at[idx].set(value)
  return old


def set(ref: Ref, idx, value) -> None:  # noqa: A001 (JAX's name)
  """``ref[idx] = value``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> r = ember.new_ref(jnp.zeros(2))
      >>> ember.ref.set(r, 1, 3.0); r
      Ref([0., 3.], dtype=float32)
  """
  swap(ref, idx, value)


def addupdate(ref: Ref, idx, x) -> None:
  """``ref[idx] += x`` (``x`` has exactly the shape of ``ref[idx]``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> r = ember.new_ref(jnp.ones(2))
      >>> ember.ref.addupdate(r, ..., jnp.ones(2)); r
      Ref([2., 2.], dtype=float32)
  """
  whole = _value(ref, "addupdate")
  idx = _index(idx, np.shape(whole))
  x = _checked(whole[idx], whole, x, "addupdate")
  ref._value = whole + x if idx is Ellipsis else whole.at[idx].add(x)


# --- making and releasing Refs ----------------------------------------------------------------

def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
  """A new ``Ref`` holding ``init_val`` (an array or scalar; its weak type is kept).

  Raises:
    TypeError: ``init_val`` is not an array or scalar (a list, a Ref).
    NotImplementedError: a ``memory_space`` or ``kind`` (ember's CPU arrays have one memory
      space and one kind of Ref).

  Example:
      >>> import ember
      >>> ember.new_ref(1.0)
      Ref(1., dtype=float32, weak_type=True)
  """
  if memory_space is not None:
    raise NotImplementedError("new_ref(memory_space=...): ember's CPU devices have one memory "
                              "space.")
  if kind is not None:
    raise NotImplementedError(f"new_ref(kind={kind!r}): ember has one kind of Ref.")
  if isinstance(init_val, Ref):
    raise TypeError("new_ref: init_val is already a Ref; give its value (ember.freeze(ref)).")
  try:
    core.get_aval(init_val)
  except TypeError:
    raise TypeError("Error interpreting argument to new_ref as a JAX value. The problematic "
                    f"value is of type {type(init_val)} and was passed to new_ref at position "
                    "0.\n") from None
  value = init_val if isinstance(init_val, core.Tracer) else jnp.asarray(init_val)
  return Ref._make(value)


def empty_ref(ty, memory_space=None) -> Ref:
  """A new ``Ref`` of type ``ty`` (a ``ShapeDtypeStruct`` or an aval) whose contents are
  unspecified (ember fills it with zeros). As in JAX, only inside a transformation.

  Raises:
    NotImplementedError: called eagerly (JAX's error), or with a ``memory_space``.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> def f(x):
      ...   r = ember.empty_ref(ember.ShapeDtypeStruct((2,), jnp.float32))
      ...   r[...] = x
      ...   return ember.freeze(r)
      >>> ember.jit(f)(jnp.ones(2))
      Array([1., 1.], dtype=float32)
  """
  if memory_space is not None:
    raise NotImplementedError("empty_ref(memory_space=...): ember's CPU devices have one memory "
                              "space.")
  if core.current_trace() is core.EVAL_TRACE:
    raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")
  return Ref._make(jnp.zeros(ty.shape, ty.dtype))


def freeze(ref):
  """The array a ``Ref`` holds (an array is returned as it is).

  Example:
      >>> import ember
      >>> ember.freeze(ember.new_ref(2.0))
      Array(2., dtype=float32, weak_type=True)
  """
  if not isinstance(ref, Ref):
    return ref
  return _value(ref, "freeze")


def free_ref(ref) -> tuple:
  """Release a ``Ref``: JAX's hint that it is no longer used. ember's Refs are freed with
  their last Python reference, so this does nothing and returns ``()``, as JAX's does eagerly.

  Example:
      >>> import ember
      >>> ember.free_ref(ember.new_ref(1.0))
      ()
  """
  del ref
  return ()
