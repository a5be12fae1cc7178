"""ember.numpy's array assembly and host-side input/output: ``block``, the index-trick objects
``r_``, ``c_``, ``mgrid`` and ``ogrid``, ``fromstring``, ``load`` (``save``/``savez`` are
NumPy's own), the print-option functions, and ``fromiter``/``fromfile``, which raise as in JAX
(they consume their source, so they are not pure).

The printer of ember arrays reads NumPy's print options, so the print-option functions simply
drive NumPy's.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.r_[0:3, 9], jnp.mgrid[0:2, 0:2].shape
    (Array([0, 1, 2, 9], dtype=int32), (2, 2, 2))
"""
from __future__ import annotations

import contextlib
import operator

import numpy as np

from ember import dtypes
from ember.numpy._util import promote_dtypes
from ember.numpy.creation import arange, array, asarray, linspace, meshgrid
from ember.numpy.joining import concatenate, stack
from ember.numpy.shape_ops import _shape, reshape, transpose

__all__ = [
  "block",
  "c_",
  "fromfile",
  "fromiter",
  "fromstring",
  "get_printoptions",
  "load",
  "mgrid",
  "ogrid",
  "printoptions",
  "r_",
  "save",
  "savez",
  "set_printoptions",
]

save = np.save
savez = np.savez


# --- block ----------------------------------------------------------------------------------

def _block_depth(arrays) -> int:
  """How deeply ``arrays`` nests lists (0 for a leaf); raises on tuples, empty lists or
  leaves at mixed depths."""
  if isinstance(arrays, tuple):
    raise ValueError(f"jax.numpy.block does not allow tuples, got {arrays}")  # noqa: TRY004 (as JAX)
  if not isinstance(arrays, list):
    return 0
  if not arrays:
    raise ValueError("jax.numpy.block does not allow empty list arguments")
  depths = {_block_depth(x) for x in arrays}
  if len(depths) != 1:
    raise ValueError("Mismatched list depths in jax.numpy.block")
  return depths.pop() + 1


def _block_assemble(arrays, depth: int, ndim: int):
  """Concatenate the nested lists: the innermost along the last axis, one axis up per level."""
  if depth == 0:
    leaf = asarray(arrays)
    return reshape(leaf, (1,) * (ndim - leaf.ndim) + _shape(leaf))
  parts = [_block_assemble(x, depth - 1, ndim) for x in arrays]
  return concatenate(parts, axis=-depth)


def _max_leaf_ndim(arrays) -> int:
  if isinstance(arrays, list):
    return max(_max_leaf_ndim(x) for x in arrays)
  return np.ndim(arrays)


def block(arrays):
  """An array assembled from nested lists of blocks (NumPy's ``block``): the innermost lists
  join along the last axis, the next level along the second-to-last, and so on.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.block([[jnp.ones((2, 2), int), jnp.zeros((2, 1), int)], [jnp.full((1, 3), 7)]])
      Array([[1, 1, 0],
             [1, 1, 0],
             [7, 7, 7]], dtype=int32)
  """
  depth = _block_depth(arrays)
  if depth == 0:
    return asarray(arrays)
  return _block_assemble(arrays, depth, max(depth, _max_leaf_ndim(arrays)))


# --- r_, c_, mgrid, ogrid -------------------------------------------------------------------

def _slice_values(s: slice):
  """The 1-D array a slice stands for: ``arange``, or ``linspace`` for an imaginary step."""
  start = 0 if s.start is None else s.start
  step = 1 if s.step is None else s.step
  if isinstance(step, complex) or np.iscomplexobj(step):
    return linspace(start, s.stop, int(abs(step)))
  return arange(start, s.stop, step)


def _parse_directive(text: str, axis: int, ndmin: int, trans1d: int):
  """``(axis, ndmin, trans1d, matrix)`` from an ``r_`` string such as '0,2,-1', 'r' or 'c'."""
  if text in ("r", "c"):
    return axis, ndmin, trans1d, text
  try:
    values = [int(v) for v in text.split(",")]
  except ValueError:
    raise ValueError(f"could not understand directive {text!r}") from None
  if len(values) > 3:
    raise ValueError(f"could not understand directive {text!r}")
  values += [ndmin, trans1d][len(values) - 1:]
  return values[0], values[1], values[2], None


def _upgrade(x, ndmin: int, trans1d: int):
  """``x`` with at least ``ndmin`` axes (new ones in front), then, unless ``trans1d`` is -1,
  its axes rotated so that the last one lands at ``trans1d``. For 1-D ``x`` that is NumPy's
  rule; for n-d ``x`` it is JAX's (NumPy keeps the n axes together there)."""
  nd = x.ndim
  if nd >= ndmin:
    return x
  x = reshape(x, (1,) * (ndmin - nd) + _shape(x))
  if trans1d == -1:
    return x
  shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
  order = list(range(ndmin))
  return transpose(x, order[shift:] + order[:shift])


class _Concatenator:
  """Concatenation of slices, scalars and arrays along an axis, written as indexing."""

  def __init__(self, axis: int, ndmin: int, trans1d: int, name: str):
    self.axis, self.ndmin, self.trans1d, self._name = axis, ndmin, trans1d, name

  def __repr__(self):
    return f"jnp.{self._name}"

  def __len__(self):
    return 0

  def __getitem__(self, key):
    items = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, None
    parts = []
    for i, item in enumerate(items):
      if isinstance(item, str):
        if i:
          raise ValueError("string directive must be placed at the beginning")
        axis, ndmin, trans1d, matrix = _parse_directive(item, axis, ndmin, trans1d)
        continue
      value = _slice_values(item) if isinstance(item, slice) else array(item, copy=False)
      parts.append(_upgrade(value, max(ndmin, 1), trans1d))
    out = concatenate(parts, axis=axis)
    if matrix is not None and out.ndim == 1:  # 'r' and 'c' give a row or a column matrix
      out = reshape(out, (1, -1) if matrix == "r" else (-1, 1))
    return out


#: Row-wise concatenation by indexing: ``r_[1:3, 5, [7, 8]]`` (numpy's ``r_``).
r_ = _Concatenator(0, 1, -1, "r_")
#: Column-wise concatenation by indexing: 1-D pieces become columns (numpy's ``c_``).
c_ = _Concatenator(-1, 2, 0, "c_")


class _Grid:
  """Coordinate grids written as slices: dense (``mgrid``) or broadcastable (``ogrid``)."""

  def __init__(self, sparse: bool, name: str):
    self.sparse, self._name = sparse, name

  def __repr__(self):
    return f"jnp.{self._name}"

  def __getitem__(self, key):
    if isinstance(key, slice):
      return _slice_values(key)
    axes = promote_dtypes(*(_slice_values(k) for k in key))
    if not axes:
      return array([], dtypes.default_int_dtype())
    grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
    return list(grids) if self.sparse else stack(grids)


#: Dense coordinate grids: ``mgrid[0:2, 0:3]`` has shape (2, 2, 3); an imaginary step ``5j``
#: asks for 5 points including the end.
mgrid = _Grid(False, "mgrid")
#: Open (broadcastable) coordinate grids: ``ogrid[0:2, 0:3]`` gives shapes (2, 1) and (1, 3).
ogrid = _Grid(True, "ogrid")


# --- host-side input/output -----------------------------------------------------------------

def _impure(name: str, source: str) -> NotImplementedError:
  return NotImplementedError(
      f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
      f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
      f"instead, although care should be taken if np.{name} is used within a jax "
      f"transformations because of its potential side-effect of consuming the {source} object; "
      "for more information see https://docs.jax.dev/en/latest/notebooks/"
      "Common_Gotchas_in_JAX.html#pure-functions")


def fromiter(*args, **kwargs):
  """Not implemented, as in JAX: use ``jnp.asarray(np.fromiter(...))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fromiter(iter([1, 2]), float)
      Traceback (most recent call last):
      NotImplementedError: jnp.fromiter() is not implemented because it may be non-pure ...
  """
  raise _impure("fromiter", "iterable")


def fromfile(*args, **kwargs):
  """Not implemented, as in JAX: use ``jnp.asarray(np.fromfile(...))``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fromfile("data.bin")
      Traceback (most recent call last):
      NotImplementedError: jnp.fromfile() is not implemented because it may be non-pure ...
  """
  raise _impure("fromfile", "file")


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
  """A 1-D array parsed from text numbers separated by ``sep`` (NumPy's ``fromstring``,
  read on the host).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.fromstring("1 2 3.5", sep=" ")
      Array([1. , 2. , 3.5], dtype=float32)
  """
  return asarray(np.fromstring(string, dtype=dtype, count=operator.index(count), sep=sep))


def load(file, *args, **kwargs):
  """Read an array saved with ``save`` (NumPy's ``load``) as an ember array; ``.npz`` archives
  and other non-array results come back as NumPy gives them. bfloat16 data (stored by NumPy
  as 2-byte void) is read back as bfloat16.

  Example:
      >>> import io, numpy as np, ember.numpy as jnp
      >>> f = io.BytesIO(); jnp.save(f, jnp.arange(3)); _ = f.seek(0)
      >>> jnp.load(f)
      Array([0, 1, 2], dtype=int32)
  """
  out = np.load(file, *args, **kwargs)
  if not isinstance(out, np.ndarray):
    return out
  if out.dtype == np.dtype("V2"):
    out = out.view(dtypes.bfloat16)
  try:
    return asarray(out)
  except (TypeError, ValueError):
    return out


# --- print options --------------------------------------------------------------------------

def get_printoptions():
  """The current print options (NumPy's, which ember arrays print with).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.get_printoptions()["precision"]
      8
  """
  return np.get_printoptions()


def set_printoptions(*args, **kwargs):
  """Set the print options (NumPy's ``set_printoptions``) used to print ember arrays.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.set_printoptions(precision=2); print(jnp.array([1 / 3])); jnp.set_printoptions(precision=8)
      [0.33]
  """
  np.set_printoptions(*args, **kwargs)


@contextlib.contextmanager
def printoptions(*args, **kwargs):
  """A context manager that sets the print options (NumPy's ``printoptions``) inside it.

  Example:
      >>> import ember.numpy as jnp
      >>> with jnp.printoptions(precision=3):
      ...   print(jnp.array([2 / 3]))
      [0.667]
  """
  with np.printoptions(*args, **kwargs) as opts:
    yield opts
