"""ember.numpy selection by condition: where, nonzero, flatnonzero, argwhere, extract, compress,
select and piecewise (``searchsorted`` lives in ``sorting.py``).

Functions whose output shape depends on the data (``nonzero``, ``argwhere``, ``extract``...)
need concrete inputs, or a static ``size=`` under ``jit``.

Example:
    >>> import ember.numpy as jnp
    >>> jnp.where(jnp.array([True, False]), 1.0, 2)
    Array([1., 2.], dtype=float32, weak_type=True)
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ember import dtypes
from ember import lax
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import canonicalize_axis, check_arraylike, ensure_array, promote_dtypes
from ember.numpy import _util
from ember.numpy.joining import stack
from ember.numpy.shape_ops import (_broadcast_to, _dtype, _is_array, _ndim, _shape, _wrap, ravel,
                                   reshape)
from ember.numpy.taking import take
from ember.transforms.jit import jit as _jit
from ember.numpy.ufuncs import _where as _where_jit

__all__ = [
    "where", "nonzero", "argwhere", "flatnonzero", "select", "piecewise", "extract", "compress",
]

_range = builtins.range


def _int_array(v) -> "object":
  """A device array of the default int dtype (JAX's index dtype) from a NumPy value."""
  return ensure_array(np.asarray(v, dtype=dtypes.default_int_dtype()))


# --- where ------------------------------------------------------------------------------------

def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  """``x`` where ``condition`` is true, else ``y`` (broadcast and type-promoted).

  With only ``condition`` this is :func:`nonzero` (``size``/``fill_value`` apply there).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.where(jnp.arange(4) > 1, jnp.arange(4), -1)
      Array([-1, -1,  2,  3], dtype=int32)
  """
  if x is None and y is None:
    check_arraylike("where", condition)
    return nonzero(condition, size=size, fill_value=fill_value)
  if size is not None or fill_value is not None:
    raise ValueError("size and fill_value arguments cannot be used in three-term where "
                     "function.")
  check_arraylike("where", condition, x, y)
  return _where_jit(condition, x, y)


# --- nonzero ----------------------------------------------------------------------------------

def _static_size(size, fun_name: str) -> int:
  try:
    return operator.index(size)
  except TypeError:
    raise TypeError(f"{fun_name}: size must be a static integer, got {size!r}") from None


def _nonzero_flat(mask, size: int):
  """The first ``size`` flat positions of True entries (ascending), and how many there are."""
  it = dtypes.default_int_dtype()
  flat = ravel(mask)
  n = _shape(flat)[0]
  idx = lax.broadcasted_iota(it, (n,), 0)
  _, order = lax.sort((lax.bitwise_not(flat), idx), dimension=0, is_stable=True, num_keys=1)
  count = lax.reduce_sum(lax._convert_element_type(flat, it), (0,))
  if size <= n:
    pos = lax.slice(order, (0,), (size,))
  else:
    pos = lax.pad(order, np.zeros((), it), ((0, size - n, 0),))
  return pos, count


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements of ``a``, one int32 array per dimension.

  ``size`` fixes the output length (padding with ``fill_value``, 0 by default, or
  truncating); it is required under ``jit`` since the count depends on the data.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nonzero(jnp.array([[0, 1], [2, 0]]))
      (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
  """
  check_arraylike("nonzero", a)
  shp = _shape(a)
  if not shp:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                     "jnp.atleast_1d(scalar).nonzero() instead.")
  if size is None:
    v = core.concrete_value(a)
    if v is None or isinstance(v, core.Tracer):
      raise ConcretizationTypeError(
          a, "The size argument of jnp.nonzero must be statically specified to use "
          "jnp.nonzero within JAX transformations.")
    host = np.asarray(v)
    if fill_value is None:
      return tuple(_int_array(i) for i in np.nonzero(host))
    size = int(np.count_nonzero(host))
  size = _static_size(size, "nonzero")
  nd = len(shp)
  if fill_value is None:
    fills = (0,) * nd
  elif np.ndim(fill_value) == 0 and not isinstance(fill_value, (list, tuple)):
    fills = (fill_value,) * nd
  else:
    fills = tuple(fill_value)
    if len(fills) != nd:
      raise ValueError(f"fill_value must be a scalar or a tuple of length {nd}; got "
                       f"{fill_value}")
  return _nonzero_jit(a, fills, size=size)


def _nonzero(a, fills, *, size):
  shp = _shape(a)
  mask = a if dtypes.is_bool(_dtype(a)) else lax.ne(a, np.zeros((), _dtype(a)))
  pos, count = _nonzero_flat(mask, size)
  it = dtypes.default_int_dtype()
  valid = lax.lt(lax.broadcasted_iota(it, (size,), 0), count)
  outs = []
  rem = pos
  strides = [math.prod(shp[i + 1:]) for i in _range(len(shp))]
  for d, st in enumerate(strides):
    if st == 0:
      coord = lax.full((size,), 0, it)
    else:
      coord = lax.div(rem, np.array(st, it))
      rem = lax.rem(rem, np.array(st, it))
    fill = lax._convert_element_type(fills[d], it)
    outs.append(lax.select(valid, coord, _broadcast_to(fill, (size,))))
  return tuple(outs)


_nonzero_jit = _jit(_nonzero, static_argnames=("size",))
_nonzero_jit.__name__ = "nonzero"


def flatnonzero(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements of the flattened ``a``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.flatnonzero(jnp.array([[0, 1], [2, 0]]))
      Array([1, 2], dtype=int32)
  """
  check_arraylike("flatnonzero", a)
  return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """Indices of the non-zero elements, one row per element: shape ``(count, a.ndim)``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argwhere(jnp.array([[0, 1], [2, 0]]))
      Array([[0, 1],
             [1, 0]], dtype=int32)
  """
  check_arraylike("argwhere", a)
  if _ndim(a) == 0:
    v = core.concrete_value(a)
    if size is None:
      if v is None or isinstance(v, core.Tracer):
        raise ConcretizationTypeError(
            a, "The size argument of jnp.argwhere must be statically specified to use "
            "jnp.argwhere within JAX transformations.")
      size = 1 if np.asarray(v) != 0 else 0
    return lax.full((_static_size(size, "argwhere"), 0), 0, dtypes.default_int_dtype())
  parts = nonzero(a, size=size, fill_value=fill_value)
  return stack(parts, axis=1) if len(parts) > 1 else reshape(parts[0], (-1, 1))


def extract(condition, arr, *, size=None, fill_value=0):
  """The elements of ``arr`` where ``condition`` is true (flattened).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.extract(jnp.array([True, False, True]), jnp.array([1, 2, 3]))
      Array([1, 3], dtype=int32)
  """
  return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.compress(jnp.array([False, True]), jnp.array([[1, 2], [3, 4]]), axis=0)
      Array([[3, 4]], dtype=int32)
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  check_arraylike("compress", condition, a)
  if _ndim(condition) != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, _ndim(a))
  n = _shape(a)[axis]
  cond = condition
  if not dtypes.is_bool(_dtype(cond)):
    cond = lax.ne(cond, np.zeros((), _dtype(cond)))
  m = _shape(cond)[0]
  if m > n:
    cv = core.concrete_value(cond)
    if cv is None or isinstance(cv, core.Tracer) or np.asarray(cv)[n:].any():
      raise IndexError(f"compress: condition of length {m} is longer than the axis ({n})")
    cond = lax.slice(cond, (0,), (n,))
  (idx,) = nonzero(cond, size=size, fill_value=n if size is not None else None)
  out = take(a, idx, axis=axis, mode="fill", fill_value=fill_value)
  return out


# --- select / piecewise -----------------------------------------------------------------------

def select(condlist, choicelist, default=0):
  """Elementwise, the choice for the first true condition, else ``default``.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.arange(4)
      >>> jnp.select([x < 1, x > 2], [x, -x], 9)
      Array([ 0,  9,  9, -3], dtype=int32)
  """
  condlist, choicelist = list(condlist), list(choicelist)
  if len(condlist) != len(choicelist):
    raise ValueError("condlist must have length equal to choicelist ({} vs {})".format(
        len(condlist), len(choicelist)))
  if not condlist:
    raise ValueError("condlist must be non-empty")
  check_arraylike("select", *condlist, *choicelist, default)
  condlist = [c if dtypes.is_bool(_dtype(c)) else lax.ne(c, np.zeros((), _dtype(c)))
              for c in condlist]
  values = promote_dtypes(default, *choicelist)
  shp = _util.broadcast_shapes(*[_shape(v) for v in values], *[_shape(c) for c in condlist])
  out = _broadcast_to(values[0], shp)
  for cond, choice in zip(condlist[::-1], values[:0:-1]):
    out = lax.select(_broadcast_to(cond, shp), _broadcast_to(choice, shp), out)
  return _wrap(out)


def piecewise(x, condlist, funclist, *args, **kw):
  """Evaluate ``funclist[i]`` (a function or a constant) where ``condlist[i]`` holds; one
  extra function gives the value where no condition holds (later conditions win).

  As in JAX, each function is applied to one element at a time: a ``lax.switch`` on the
  index of the winning condition, vmapped over the elements.

  Example:
      >>> import ember.numpy as jnp
      >>> x = jnp.arange(4.0)
      >>> jnp.piecewise(x, [x < 2], [lambda v: v * 10, lambda v: -v])
      Array([ 0., 10., -2., -3.], dtype=float32)
  """
  from ember.numpy.creation import asarray, zeros_like
  from ember.numpy.joining import concatenate
  from ember.numpy.reductions import argmax, cumsum
  from ember.transforms.batching import vmap
  check_arraylike("piecewise", x)
  x = _wrap(x)
  if (_is_array(condlist) or isinstance(condlist, np.ndarray)) and _ndim(condlist) == 0:
    condlist = [condlist]
  nc, nf = len(condlist), len(funclist)  # an array's first axis indexes the conditions
  if nf == nc + 1:
    funclist = list(funclist[-1:]) + list(funclist[:-1])
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                     f"expected; got {nf}")
  conds = asarray(condlist, dtype=bool)
  index = argmax(cumsum(concatenate([zeros_like(conds[:1]), conds], 0), 0), 0)
  dt = _dtype(x)
  branches = [(lambda v, f=f: asarray(f(v, *args, **kw)).astype(dt)) if callable(f) else
              (lambda v, f=f: asarray(f, dtype=dt)) for f in funclist]
  shp = _util.broadcast_shapes(_shape(index), _shape(x))
  flat = vmap(lambda i, v: lax.switch(i, branches, v))(ravel(_broadcast_to(index, shp)),
                                                       ravel(_broadcast_to(x, shp)))
  return reshape(flat, shp)
