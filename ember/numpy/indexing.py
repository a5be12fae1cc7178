"""NumPy-style indexing of ember arrays: ``x[idx]`` and ``x.at[idx].set(y)``.

An index expression is first normalized into one entry per result-producing piece: new axes,
static slices, static integers, traced integer scalars and integer arrays (boolean masks become
integer arrays through ``nonzero`` on their concrete value). Simple cases then lower to the
primitives JAX emits: ``slice``/``rev``/``squeeze``/``broadcast_in_dim`` for static basic indexing,
``dynamic_slice`` for traced integer scalars, and one ``gather`` (or ``scatter``) otherwise.

Semantics follow JAX: negative indices wrap once; out-of-bounds reads clamp (or fill, with
``mode='fill'``); out-of-bounds updates are dropped.

Example:
    >>> import ember.numpy as jnp
    >>> x = jnp.arange(6).reshape(2, 3)
    >>> x[1, ::-1]
    Array([5, 4, 3], dtype=int32)
    >>> x.at[0, 1].set(10)
    Array([[ 0, 10,  2],
           [ 3,  4,  5]], dtype=int32)
"""
from __future__ import annotations

import operator
import warnings
from typing import Any, NamedTuple

import numpy as np

from ember import dtypes
from ember.backend.array import ArrayImpl, _host_value
from ember.core import errors
from ember.core.trace import Tracer

__all__ = ["ndindex", "index_exp", "s_"]

_ARRAY_TYPES = (ArrayImpl, Tracer)


# --- index normalization ------------------------------------------------------------------------

class _Entry(NamedTuple):
  """One piece of a normalized index.

  kind: 'new' (a new axis), 'slice' (static start/stop/step over one dim), 'int' (a static
  Python integer), 'dyn' (a traced or device integer scalar) or 'arr' (an integer array).
  ``dim`` is the operand dimension the entry consumes (None for 'new').
  """
  kind: str
  dim: int | None
  value: Any = None
  start: int = 0
  step: int = 1
  length: int = 0


class ParsedIndex(NamedTuple):
  shape: tuple[int, ...]        # the operand's shape, with the axes added for 0-d booleans
  bool_axes: tuple[int, ...]    # operand axes added (of size 1) for 0-d boolean indices
  entries: tuple[_Entry, ...]

  @property
  def has_arrays(self) -> bool:
    return any(e.kind == "arr" for e in self.entries)


def _non_tuple_error():
  return TypeError(
      "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
      "`arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
      "for more information.")


def _invalid_index_error(i):
  return IndexError(
      "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or boolean "
      f"arrays are valid indices. Got {i!r}")


def _dtype_error(dt):
  return TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                   f"{np.dtype(dt).name}")


def _concrete(x):
  """The concrete NumPy value of an array-like index, or None for abstract tracers."""
  if isinstance(x, Tracer):
    v = x.to_concrete_value()
    return None if v is None else np.asarray(v)
  if isinstance(x, ArrayImpl):
    return _host_value(x)
  return np.asarray(x)


def _sequence_to_array(seq):
  if any(isinstance(v, _ARRAY_TYPES) for v in _flat_items(seq)):
    import ember.numpy as jnp
    return jnp.asarray(seq)
  arr = np.asarray(seq)
  if arr.size == 0 and arr.dtype == np.float64:  # x[:, []] selects nothing
    arr = arr.astype(np.int32)
  return arr


def _flat_items(seq):
  for v in seq:
    if isinstance(v, (list, tuple)):
      yield from _flat_items(v)
    else:
      yield v


def _static_slice_entry(i: slice, pos: int) -> slice:
  """``i`` with start/stop/step as Python ints (or None); traced entries are an IndexError."""
  parts = []
  for v in (i.start, i.stop, i.step):
    if v is None:
      parts.append(None)
      continue
    if isinstance(v, Tracer) and v.to_concrete_value() is None:
      raise IndexError(f"Slice entries must be static integers. Got {i} at position {pos}")
    try:
      parts.append(operator.index(v))
    except TypeError:
      raise TypeError(f"slice indices must be integers or None or have an __index__ method, "
                      f"got {v!r} in {i} at position {pos}") from None
  if parts[2] == 0:
    raise ValueError("slice step cannot be zero")
  return slice(*parts)


def _classify(i, pos: int):
  """A raw entry: (kind, value, ndims consumed)."""
  if i is None:
    return ("new", None, 0)
  if i is Ellipsis:
    return ("ellipsis", None, 0)
  if isinstance(i, slice):
    return ("slice", _static_slice_entry(i, pos), 1)
  if isinstance(i, (bool, np.bool_)):
    return ("bool0", bool(i), 0)
  if isinstance(i, (int, np.integer)):
    return ("int", operator.index(i), 1)
  if isinstance(i, str):
    raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
  if isinstance(i, (list, tuple)):
    i = _sequence_to_array(i)
    if isinstance(i, np.ndarray) and _tracing():  # staged like a jnp.array(list), as JAX
      from ember.numpy._util import ensure_array
      i = ensure_array(i.astype(dtypes.canonicalize_dtype(i.dtype), copy=False))
  elif hasattr(i, "__jax_array__") and not isinstance(i, _ARRAY_TYPES):
    i = i.__jax_array__()
  if isinstance(i, (float, complex, np.floating, np.complexfloating)):
    raise _dtype_error(dtypes.dtype(i))
  if not isinstance(i, _ARRAY_TYPES + (np.ndarray,)):
    raise _invalid_index_error(i)
  dt = np.dtype(i.dtype)
  if dt == np.bool_:
    if not np.shape(i):
      return ("bool0", i, 0)
    return ("mask", i, len(np.shape(i)))
  if not (np.issubdtype(dt, np.integer)):
    raise _dtype_error(dt)
  if not np.shape(i):
    if isinstance(i, np.ndarray):
      return ("int", int(i), 1)
    return ("dyn", i, 1)
  return ("arr", i, 1)


def _split_index(idx) -> tuple:
  if isinstance(idx, tuple):
    return idx
  if isinstance(idx, list):
    raise _non_tuple_error()
  return (idx,)


def parse_index(idx, shape) -> ParsedIndex:
  """Normalize the index expression ``idx`` for an operand of ``shape``.

  Example:
      >>> parse_index((0, None, slice(1, None)), (3, 4)).entries[1].kind
      'new'
  """
  raw = [_classify(i, pos) for pos, i in enumerate(_split_index(idx))]
  if sum(k == "ellipsis" for k, _, _ in raw) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  ndim = len(shape)
  consumed = sum(n for _, _, n in raw)
  if consumed > ndim:
    raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {consumed} were "
                     "indexed")
  fill = [("slice", slice(None), 1)] * (ndim - consumed)
  if any(k == "ellipsis" for k, _, _ in raw):
    at = next(p for p, (k, _, _) in enumerate(raw) if k == "ellipsis")
    raw = raw[:at] + fill + raw[at + 1:]
  else:
    raw = raw + fill
  return _check_empty_axes(_resolve(raw, tuple(shape)))


def _check_empty_axes(parsed: ParsedIndex) -> ParsedIndex:
  """An integer scalar index (static or traced) into an axis of size 0 is an IndexError, as in
  JAX (XLA cannot slice one element there); with index arrays the scalars join them instead."""
  if not parsed.has_arrays:
    for e in parsed.entries:
      if e.kind in ("int", "dyn") and parsed.shape[e.dim] == 0:
        raise IndexError(f"index is out of bounds for axis {e.dim} with size 0")
  return parsed


def _resolve(raw, shape) -> ParsedIndex:
  entries, bool_axes, out_shape = [], [], []
  d = 0  # operand dimension of the next consuming entry
  for pos, (kind, v, n) in enumerate(raw):
    if kind == "new":
      entries.append(_Entry("new", None))
    elif kind == "bool0":
      truth = v if isinstance(v, bool) else _concrete_bool(v)
      bool_axes.append(len(out_shape))
      out_shape.append(1)
      entries.append(_Entry("arr", len(out_shape) - 1, np.zeros(int(truth), np.int32)))
    elif kind == "mask":
      mask = _concrete_bool(v)
      dims = shape[d:d + n]
      if mask.shape != dims:
        raise IndexError(f"boolean index did not match shape of indexed array in index {pos}: "
                         f"got {mask.shape}, expected {list(dims)}")
      for ax, nz in enumerate(np.nonzero(mask)):
        out_shape.append(shape[d + ax])
        entries.append(_Entry("arr", len(out_shape) - 1, nz.astype(np.int32)))
      d += n
    else:
      size = shape[d]
      out_shape.append(size)
      od = len(out_shape) - 1
      if kind == "slice":
        start, stop, step = v.indices(size)
        length = len(range(start, stop, step))
        entries.append(_Entry("slice", od, stop, start, step, length))
      else:
        entries.append(_Entry(kind, od, v))
      d += 1
  return ParsedIndex(tuple(out_shape), tuple(bool_axes), tuple(entries))


def _concrete_bool(v) -> np.ndarray:
  c = _concrete(v)
  if c is None:
    from ember.core.trace import get_aval
    raise errors.NonConcreteBooleanIndexError(_AvalHolder(get_aval(v)))
  return c


class _AvalHolder:
  def __init__(self, aval):
    self.aval = aval

  def _origin_msg(self):
    return ""


# --- index arrays ---------------------------------------------------------------------------------

def _index_dtype(shape) -> np.dtype:
  """The dtype of gather/scatter indices: int32 unless a dimension needs 64 bits (as JAX)."""
  if shape and max(shape) > np.iinfo(np.int32).max:
    return dtypes.canonicalize_dtype(np.int64)
  return np.dtype(np.int32)


def _normalize_index(i, size: int, dt):
  """``i`` (an integer array or scalar) as ``dt`` with negative indices wrapped once."""
  return _as_index_dtype(_wrap_negative(i, size, dt), dt)


def _wrap_negative(i, size: int, dt):
  """``i`` with negative indices wrapped once, in its own dtype where it can hold ``size``.

  Eagerly, NumPy indices are normalized on the host (as ``dt``). While tracing they are staged
  as JAX stages them (constants, with the ``< 0`` test done in NumPy) so that jaxprs match.
  """
  from ember import lax
  if isinstance(i, (int, np.integer)):
    i = int(i)
    return np.array(i + size if i < 0 else i, dt)
  host = isinstance(i, np.ndarray)
  if host:
    i = i.astype(dtypes.canonicalize_dtype(i.dtype), copy=False)
    if not _tracing():
      if i.dtype.kind == "i":
        i = np.where(i < 0, i + size, i)
      return i.astype(dt)
  if dtypes.is_unsigned(i.dtype):
    return i
  convert = (lambda v, t: v.astype(t)) if host else lax.convert_element_type
  # Wrap in the index's own dtype when the size fits it (as JAX), else in ``dt``.
  wrap_dt = i.dtype if size <= np.iinfo(i.dtype).max else dt
  if i.dtype != wrap_dt:
    i = convert(i, wrap_dt)
  # The constants are Python ints (weak) for a weakly typed scalar index, as in JAX.
  weak = not host and i.aval.weak_type and not i.ndim
  zero, n = (0, size) if weak else (np.array(0, wrap_dt), np.array(size, wrap_dt))
  negative = np.less(i, 0) if host else lax.lt(i, zero)
  return lax.select_n(negative, i, lax.add(i, n))


def _as_index_dtype(i, dt):
  from ember import lax
  return i if isinstance(i, np.ndarray) and i.dtype == dt else lax._convert_element_type(i, dt)


def _index_value(i, dt):
  """A scalar index as ``dt`` (lax.dynamic_slice wraps negative values itself)."""
  from ember import lax
  if isinstance(i, (int, np.integer)):
    return np.array(int(i), dt)
  if i.dtype != dt or i.aval.weak_type:
    return lax._convert_element_type(i, dt)
  return i


def _tracing() -> bool:
  from ember.core import trace as core
  return core.current_trace() is not core.EVAL_TRACE


def _broadcast_index(v, shape, dims):
  """``v`` broadcast into ``shape`` with its axes at ``dims``.

  NumPy values are broadcast on the host, except 0-d ones while tracing, which stay literals
  (as in JAX's jaxprs: ``broadcast_in_dim 0:i32[]``).
  """
  from ember import lax
  if isinstance(v, np.ndarray) and (v.ndim or not _tracing()):
    it = iter(v.shape)
    expanded = [next(it) if k in dims else 1 for k in range(len(shape))]
    return np.broadcast_to(v.reshape(expanded), shape)
  if tuple(np.shape(v)) == tuple(shape):
    return v
  return lax.broadcast_in_dim(v, tuple(shape), tuple(dims))


def _strided_iota(start: int, step: int, n: int, dt):
  """``start + step * arange(n)``: a constant eagerly, iota arithmetic while tracing."""
  from ember import lax
  if not _tracing():
    return np.arange(n, dtype=dt) * step + start
  i = lax.iota(dt, n)
  return lax.add(np.array(start, dt), lax.mul(np.array(step, dt), i))


# --- the general plan: one gather or scatter ------------------------------------------------------

class _Plan(NamedTuple):
  """A gather/scatter form of a parsed index.

  ``layout`` lists the result's axes in NumPy order: ('new',), ('win', operand_dim),
  ('batch', j) for the j-th index batch axis. ``indices`` has shape batch_shape + (k,).
  """
  layout: tuple
  batch_shape: tuple
  indices: Any
  index_dims: tuple          # operand dims addressed by the k index components
  collapsed: tuple           # operand dims removed from the result (ints, arrays, strides)
  slice_sizes: tuple
  scalar_only: bool          # no integer arrays: indices are unique and sorted


def _advanced_shape(entries) -> tuple:
  shapes = [np.shape(e.value) for e in entries if e.kind == "arr"]
  try:
    return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
  except ValueError:
    raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                     f"shapes {' '.join(str(tuple(s)) for s in shapes)}") from None


def _together(entries) -> bool:
  """Whether the advanced (integer) indices are adjacent."""
  adv_pos = [p for p, e in enumerate(entries) if e.kind in ("int", "dyn", "arr")]
  return not adv_pos or adv_pos[-1] - adv_pos[0] + 1 == len(adv_pos)


def _broadcast_advanced(wrapped: dict, adv_shape, dt) -> dict:
  """The advanced indices broadcast to their common shape (NumPy ones on the host), then as
  ``dt``: first all broadcasts, then all conversions, as JAX stages them."""
  from ember import lax
  out = {}
  for p, v in wrapped.items():
    if not isinstance(v, np.ndarray) and tuple(np.shape(v)) != tuple(adv_shape):
      n = len(adv_shape)
      v = lax.broadcast_in_dim(v, tuple(adv_shape), tuple(range(n - np.ndim(v), n)))
    out[p] = v
  return {p: _as_index_dtype(v, dt) for p, v in out.items()}


def _layout(entries, adv_shape):
  """NumPy's result axes: the advanced group goes where its first index is, or first if split."""
  adv_pos = [p for p, e in enumerate(entries) if e.kind in ("int", "dyn", "arr")]
  together = _together(entries)
  adv_items = [("adv", j) for j in range(len(adv_shape))]
  layout = [] if together else list(adv_items)
  for p, e in enumerate(entries):
    if e.kind == "new":
      layout.append(("new",))
    elif e.kind == "slice":
      layout.append(("win", e.dim) if e.step == 1 else ("iota", e.dim))
    elif together and p == adv_pos[0]:
      layout.extend(adv_items)
  return layout


def make_plan(parsed: ParsedIndex) -> _Plan:
  """The gather/scatter dimension numbers and start indices of a parsed index."""
  entries, shape = parsed.entries, parsed.shape
  adv_shape = _advanced_shape(entries)
  layout = _layout(entries, adv_shape)
  batch_items = [it for it in layout if it[0] in ("adv", "iota")]
  batch_shape = tuple(adv_shape[it[1]] if it[0] == "adv" else _by_dim(entries, it[1]).length
                      for it in batch_items)
  pos_of_adv = [batch_items.index(("adv", j)) for j in range(len(adv_shape))]
  dt = _index_dtype(shape)
  full = batch_shape + (1,)
  # As JAX: every integer index is wrapped first; then, at the advanced group's place, the
  # advanced ones are broadcast together and converted, or each scalar one at its own place.
  weak_ints = parsed.has_arrays and _tracing()  # static ints broadcast as weak constants
  wrapped = {p: (e.value + shape[e.dim] * (e.value < 0) if e.kind == "int" and weak_ints
                 else _wrap_negative(e.value, shape[e.dim], dt))
             for p, e in enumerate(entries) if e.kind in ("int", "dyn", "arr")}
  group_at = min(wrapped) if parsed.has_arrays and _together(entries) else 0
  parts, index_dims, collapsed, sizes = [], [], [], []  # parts: (value, its batch axes)
  for p, e in enumerate(entries):
    if parsed.has_arrays and p == group_at:
      wrapped = _broadcast_advanced(wrapped, adv_shape, dt)
    if e.kind == "new":
      continue
    if e.kind == "slice":
      if e.step == 1:
        sizes.append(e.length)
        if e.start != 0:
          parts.append((np.array(e.start, dt), ()))
          index_dims.append(e.dim)
        continue
      sizes.append(1)
      collapsed.append(e.dim)
      iota = _strided_iota(e.start, e.step, e.length, dt)
      parts.append((iota, (batch_items.index(("iota", e.dim)),)))
    else:
      sizes.append(1)
      collapsed.append(e.dim)
      v = wrapped[p] if parsed.has_arrays else _as_index_dtype(wrapped[p], dt)
      nd = len(np.shape(v))
      parts.append((v, tuple(pos_of_adv[len(pos_of_adv) - nd:])))
    index_dims.append(e.dim)
  comps = [_broadcast_index(v, full, dims) for v, dims in parts]
  indices = _concat_components(comps, full, dt)
  layout = tuple(("batch", batch_items.index(it)) if it[0] in ("adv", "iota") else it
                 for it in layout)
  return _Plan(layout, batch_shape, indices, tuple(index_dims), tuple(collapsed), tuple(sizes),
               not parsed.has_arrays)


def _by_dim(entries, dim):
  return next(e for e in entries if e.dim == dim)


def _concat_components(comps, full, dt):
  from ember import lax
  if not comps:
    return np.zeros(full[:-1] + (0,), dt)
  if len(comps) == 1:
    return comps[0]
  if all(isinstance(c, np.ndarray) for c in comps):
    return np.concatenate(comps, axis=-1)
  return lax.concatenate(comps, len(full) - 1)


def _result_shape(plan: _Plan, shape) -> tuple:
  out = []
  for it in plan.layout:
    if it[0] == "new":
      out.append(1)
    elif it[0] == "win":
      out.append(plan.slice_sizes[it[1]])
    else:
      out.append(plan.batch_shape[it[1]])
  return tuple(out)


def _offset_dims(plan: _Plan) -> tuple:
  layout = [it for it in plan.layout if it[0] != "new"]
  return tuple(p for p, it in enumerate(layout) if it[0] == "win")


def _add_new_axes(y, layout):
  """Insert the size-1 axes of ``('new',)`` layout items into ``y``."""
  from ember import lax
  if not any(it[0] == "new" for it in layout):
    return y
  dims = tuple(p for p, it in enumerate(layout) if it[0] != "new")
  shape, it = [], iter(y.shape)
  for item in layout:
    shape.append(1 if item[0] == "new" else next(it))
  return lax.broadcast_in_dim(y, tuple(shape), dims)


# --- modes ----------------------------------------------------------------------------------------

def _mode(mode, default):
  from ember.lax import GatherScatterMode
  if mode is None:
    return default
  if isinstance(mode, GatherScatterMode):
    return mode
  names = {"clip": GatherScatterMode.CLIP, "fill": GatherScatterMode.FILL_OR_DROP,
           "drop": GatherScatterMode.FILL_OR_DROP,
           "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS}
  if isinstance(mode, str) and mode in names:
    return names[mode]
  raise ValueError(f'Unknown gather mode "{mode}"')


# --- reads: x[idx] --------------------------------------------------------------------------------

def _expand_bool_axes(x, parsed: ParsedIndex):
  from ember import lax
  if not parsed.bool_axes:
    return x
  dims = tuple(d for d in range(len(parsed.shape)) if d not in parsed.bool_axes)
  return lax.broadcast_in_dim(x, parsed.shape, dims)


def getitem(x, idx, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None, fill_value=None):
  """``x[idx]`` with NumPy's indexing rules and JAX's out-of-bounds behaviour.

  Example:
      >>> import ember.numpy as jnp
      >>> getitem(jnp.arange(5), (slice(None, None, 2),))
      Array([0, 2, 4], dtype=int32)
  """
  from ember.lax import GatherScatterMode
  if not isinstance(x, _ARRAY_TYPES):
    from ember.numpy._util import ensure_array
    x = ensure_array(x)
  parsed = parse_index(idx, x.shape)
  x = _expand_bool_axes(x, parsed)
  gmode = _mode(mode, GatherScatterMode.PROMISE_IN_BOUNDS)
  entries = parsed.entries
  only_slices = all(e.kind in ("new", "slice") for e in entries)
  if (gmode != GatherScatterMode.FILL_OR_DROP or only_slices) and not parsed.has_arrays:
    if _static_in_bounds(entries, parsed.shape):
      return _static_basic(x, entries, parsed.shape)
    if all(e.step in (1, -1) for e in entries if e.kind == "slice"):
      return _dynamic_basic(x, entries, parsed.shape)
  return _gather(x, parsed, gmode, fill_value, indices_are_sorted, unique_indices)


def _static_in_bounds(entries, shape) -> bool:
  for e in entries:
    if e.kind == "dyn":
      return False
    if e.kind == "int" and not -shape[e.dim] <= e.value < shape[e.dim]:
      return False
  return True


def _static_basic(x, entries, shape):
  from ember import lax
  starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
  rev, squeeze, layout = [], [], []
  for e in entries:
    if e.kind == "new":
      layout.append(("new",))
    elif e.kind == "int":
      i = e.value % shape[e.dim]
      starts[e.dim], limits[e.dim] = i, i + 1
      squeeze.append(e.dim)
    else:
      layout.append(("win", e.dim))
      if e.length == 0:
        starts[e.dim] = limits[e.dim] = 0 if e.step < 0 else e.start
      elif e.step > 0:
        starts[e.dim], limits[e.dim], strides[e.dim] = e.start, max(e.start, e.value), e.step
      else:
        last = e.start + (e.length - 1) * e.step
        starts[e.dim], limits[e.dim], strides[e.dim] = last, e.start + 1, -e.step
        rev.append(e.dim)
  if starts != [0] * len(shape) or limits != list(shape) or strides != [1] * len(shape):
    x = lax.slice(x, tuple(starts), tuple(limits),
                  None if strides == [1] * len(shape) else tuple(strides))
  if rev:
    x = lax.rev(x, tuple(rev))
  if squeeze:
    x = lax.squeeze(x, tuple(squeeze))
  return _add_new_axes(x, layout)


def _dynamic_basic(x, entries, shape):
  """``x[idx]`` for traced integer scalars and slices of step 1 or -1: one ``dynamic_slice``
  (then ``rev``, ``squeeze`` and new axes), as JAX does.

  While tracing the starts are staged as JAX stages them: with several, each is converted to the
  index dtype (a constant folds to a literal) and wrapped if negative by ``dynamic_slice``.
  """
  from ember import lax
  dt = _index_dtype(shape)
  tracing = _tracing()
  starts, sizes, rev, squeeze, layout = [], list(shape), [], [], []
  by_dim = {e.dim: e for e in entries if e.kind != "new"}
  for d in range(len(shape)):
    e = by_dim[d]
    if e.kind == "slice":
      start = e.start if e.step > 0 else e.value + 1  # value is the stop
      starts.append(start if tracing else np.array(start, dt))
      sizes[d] = e.length
      if e.step < 0:
        rev.append(d)
    else:
      starts.append(e.value if tracing else _index_value(e.value, dt))
      sizes[d] = 1
      squeeze.append(d)
  for e in entries:
    if e.kind == "new":
      layout.append(("new",))
    elif e.kind == "slice":
      layout.append(("win", e.dim))
  if tracing and len(starts) > 1:
    starts = [lax._convert_element_type(i, dt) for i in starts]
  x = lax.dynamic_slice(x, tuple(starts), tuple(sizes))
  if rev:
    x = lax.rev(x, tuple(rev))
  if squeeze:
    x = lax.squeeze(x, tuple(squeeze))
  return _add_new_axes(x, layout)


def _gather(x, parsed: ParsedIndex, mode, fill_value, indices_are_sorted, unique_indices):
  from ember import lax
  plan = make_plan(parsed)
  if not plan.index_dims and not plan.collapsed and plan.slice_sizes == tuple(x.shape):
    return _add_new_axes(x, plan.layout)
  out_shape = tuple(s for s, it in zip(_result_shape(plan, x.shape), plan.layout)
                    if it[0] != "new")
  if 0 in out_shape:  # nothing to read (JAX skips the gather too)
    return _add_new_axes(lax.full(out_shape, 0, x.dtype), plan.layout)
  dnums = lax.GatherDimensionNumbers(
      offset_dims=_offset_dims(plan), collapsed_slice_dims=plan.collapsed,
      start_index_map=plan.index_dims)
  out = lax.gather(x, plan.indices, dnums, plan.slice_sizes,
                   indices_are_sorted=bool(indices_are_sorted or plan.scalar_only),
                   unique_indices=bool(unique_indices or plan.scalar_only), mode=mode,
                   fill_value=fill_value)
  return _add_new_axes(out, plan.layout)


# --- updates: x.at[idx].op(y) ---------------------------------------------------------------------

_SCATTER_OPS = ("set", "add", "subtract", "multiply", "min", "max", "divide", "power", "apply")


def _prepare_updates(x, y, target_shape, layout):
  """``y`` cast to ``x``'s dtype, broadcast to ``target_shape`` and without the new axes."""
  from ember import lax
  if isinstance(y, (list, tuple)):
    y = _sequence_to_array(y)
  if hasattr(y, "__jax_array__") and not isinstance(y, _ARRAY_TYPES):
    y = y.__jax_array__()
  dt = x.dtype
  if dtypes.result_type(dt, y) != dt:
    warnings.warn(
        f"scatter inputs have incompatible types: cannot safely cast value from "
        f"dtype={dtypes.dtype(y, canonicalize=True)} to dtype={dt} with "
        "jax_numpy_dtype_promotion=standard. In future JAX releases this will result in an "
        "error.", FutureWarning, stacklevel=4)
  if isinstance(y, _ARRAY_TYPES):
    if y.dtype != dt:
      y = lax._convert_element_type(y, dt)
  else:
    y = np.asarray(y)
    if y.dtype != dt:
      with np.errstate(over="ignore", invalid="ignore"):  # a cast, silent as in JAX
        y = y.astype(dt)
  shape = tuple(np.shape(y))
  if len(shape) > len(target_shape):
    raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={shape} "
                     f"shape={tuple(target_shape)}")
  tail = target_shape[len(target_shape) - len(shape):]
  if any(s not in (1, t) for s, t in zip(shape, tail)):
    name = np.dtype(dt).name
    raise ValueError(
        "Incompatible types for broadcasting: input type="
        f"{name}[{','.join(map(str, shape))}] and requested type="
        f"{name}[{','.join(map(str, target_shape))}]")
  if shape != tuple(target_shape):
    lead = len(target_shape) - len(shape)
    y = lax.broadcast_in_dim(y, tuple(target_shape), tuple(range(lead, len(target_shape))))
  new = tuple(p for p, it in enumerate(layout) if it[0] == "new")
  if new:
    y = lax.squeeze(y, new)
  return y


def scatter_update(x, idx, y, op: str, *, indices_are_sorted: bool = False,
                   unique_indices: bool = False, mode=None):
  """``x`` with ``x[idx]`` combined with ``y`` by ``op`` (one of set, add, subtract, multiply,
  min, max, divide, power, or apply with ``y`` the function), as ``x.at[idx].<op>(y)``.

  Example:
      >>> import ember.numpy as jnp
      >>> scatter_update(jnp.zeros(3), 1, 5.0, "add")
      Array([0., 5., 0.], dtype=float32)
  """
  from ember import lax
  if op not in _SCATTER_OPS:
    raise ValueError(f"unknown scatter operation {op!r}; expected one of {_SCATTER_OPS}")
  if not isinstance(x, _ARRAY_TYPES):
    from ember.numpy._util import ensure_array
    x = ensure_array(x)
  if op in ("divide", "power"):
    import ember.numpy as jnp
    ones = lax.broadcast_in_dim(np.ones((), x.dtype), tuple(x.shape), ())
    factor = scatter_update(ones, idx, y, "multiply", indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)
    return jnp.divide(x, factor) if op == "divide" else jnp.power(x, factor)
  parsed = parse_index(idx, x.shape)
  operand = _expand_bool_axes(x, parsed)
  plan = make_plan(parsed)
  smode = _mode(mode, lax.GatherScatterMode.FILL_OR_DROP)
  dnums = lax.ScatterDimensionNumbers(
      update_window_dims=_offset_dims(plan), inserted_window_dims=plan.collapsed,
      scatter_dims_to_operand_dims=plan.index_dims)
  kw = dict(indices_are_sorted=bool(indices_are_sorted or plan.scalar_only),
            unique_indices=bool(unique_indices or plan.scalar_only), mode=smode)
  target = _result_shape(plan, parsed.shape)
  if op == "apply":
    out = _scatter_apply(operand, plan, y, dnums, target, kw)
  else:
    updates = _prepare_updates(x, y, target, plan.layout)
    fn = {"set": lax.scatter, "add": lax.scatter_add, "multiply": lax.scatter_mul,
          "min": lax.scatter_min, "max": lax.scatter_max}.get(op)
    if op == "subtract":
      fn = getattr(lax, "scatter_sub", None)
      if fn is None:
        import ember.numpy as jnp
        fn, updates = lax.scatter_add, jnp.negative(updates)
    out = fn(operand, plan.indices, updates, dnums, **kw)
  if parsed.bool_axes:
    out = lax.squeeze(out, parsed.bool_axes)
  return out


def _scatter_apply(operand, plan, func, dnums, target, kw):
  from ember import lax
  update_shape = tuple(s for s, it in zip(target, plan.layout) if it[0] != "new")
  scatter_apply = getattr(lax, "scatter_apply", None)
  if scatter_apply is not None:
    return scatter_apply(operand, plan.indices, func, dnums, update_shape=update_shape, **kw)
  # Fallback: read, apply, write (applies ``func`` once per distinct index).
  gdnums = lax.GatherDimensionNumbers(
      offset_dims=dnums.update_window_dims, collapsed_slice_dims=dnums.inserted_window_dims,
      start_index_map=dnums.scatter_dims_to_operand_dims)
  vals = lax.gather(operand, plan.indices, gdnums, plan.slice_sizes,
                    indices_are_sorted=kw["indices_are_sorted"],
                    unique_indices=kw["unique_indices"], mode=lax.GatherScatterMode.CLIP)
  return lax.scatter(operand, plan.indices, func(vals), dnums, **kw)


# --- the .at property -----------------------------------------------------------------------------

class _IndexUpdateHelper:
  """``x.at``: index it to get an updater, as in ``x.at[idx].set(y)``."""
  __slots__ = ("array",)

  def __init__(self, array):
    self.array = array

  def __getitem__(self, index):
    return _IndexUpdateRef(self.array, index)

  def __repr__(self):
    return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
  """``x.at[idx]``: functional versions of ``x[idx] = y``, ``x[idx] += y``, etc.

  Out-of-bounds indices are dropped for updates (``mode='drop'``) and clamped for ``get``;
  negative indices wrap.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.zeros(3).at[1].add(2.0)
      Array([0., 2., 0.], dtype=float32)
  """
  __slots__ = ("array", "index")

  def __init__(self, array, index):
    self.array = array
    self.index = index

  def __repr__(self):
    return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

  def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
          out_sharding=None):
    """``x[idx]``, with ``mode='fill'`` reading ``fill_value`` out of bounds."""
    from ember.numpy._util import check_out_sharding
    check_out_sharding("get", out_sharding)
    return getitem(self.array, self.index, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode, fill_value=fill_value)

  def _update(self, op, values, indices_are_sorted, unique_indices, mode):
    return scatter_update(self.array, self.index, values, op,
                          indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices, mode=mode)

  def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] = values``."""
    return self._update("set", values, indices_are_sorted, unique_indices, mode)

  def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] = func(x[idx])`` (``func`` is applied once per occurrence of an index)."""
    return self._update("apply", func, indices_are_sorted, unique_indices, mode)

  def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] += values`` (repeated indices accumulate)."""
    return self._update("add", values, indices_are_sorted, unique_indices, mode)

  def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] -= values``."""
    return self._update("subtract", values, indices_are_sorted, unique_indices, mode)

  def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] *= values``."""
    return self._update("multiply", values, indices_are_sorted, unique_indices, mode)

  mul = multiply

  def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] /= values`` (integer arrays give a floating result, as ``x / y``)."""
    return self._update("divide", values, indices_are_sorted, unique_indices, mode)

  def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] **= values``."""
    return self._update("power", values, indices_are_sorted, unique_indices, mode)

  def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] = minimum(x[idx], values)``."""
    return self._update("min", values, indices_are_sorted, unique_indices, mode)

  def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """``x[idx] = maximum(x[idx], values)``."""
    return self._update("max", values, indices_are_sorted, unique_indices, mode)


# --- public helpers -------------------------------------------------------------------------------

class _IndexExpression:
  """``s_[1:2, None]`` builds index tuples as written (``index_exp`` always gives a tuple)."""

  def __init__(self, maketuple: bool):
    self.maketuple = maketuple

  def __getitem__(self, item):
    if self.maketuple and not isinstance(item, tuple):
      return (item,)
    return item


index_exp = _IndexExpression(maketuple=True)
s_ = _IndexExpression(maketuple=False)


def ndindex(*shape):
  """Iterate over all index tuples of an array of ``shape`` (as ``numpy.ndindex``).

  Example:
      >>> list(ndindex(2, 1))
      [(0, 0), (1, 0)]
  """
  if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
    shape = tuple(shape[0])
  return np.ndindex(*[operator.index(s) for s in shape])
