"""ember.numpy's function vectorizers, all built on ``vmap`` (so the result is one batched
program, not a Python loop): ``vectorize`` (NumPy's, with generalized-ufunc ``signature=`` and
``excluded=``), ``apply_along_axis``, ``apply_over_axes`` and ``frompyfunc`` (a ``ufunc`` from
a Python function of scalars).

Example:
    >>> import ember.numpy as jnp
    >>> rowdot = jnp.vectorize(jnp.dot, signature="(n),(n)->()")
    >>> rowdot(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
"""
from __future__ import annotations

import functools
import re

import numpy as np

from ember.numpy._util import broadcast_shapes, canonicalize_axis, check_arraylike
from ember.numpy.creation import asarray
from ember.numpy.shape_ops import _shape, expand_dims, reshape
from ember.numpy.ufuncs import ufunc
from ember.transforms.batching import vmap

__all__ = ["apply_along_axis", "apply_over_axes", "frompyfunc", "vectorize"]

_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def _parse_signature(signature: str):
  """``'(m,n),(n)->(m)'`` as ``([('m', 'n'), ('n',)], [('m',)])``."""
  if not _SIGNATURE.match(signature):
    raise ValueError(f"not a valid gufunc signature: {signature}")
  ins, outs = signature.split("->")
  parse = lambda side: [tuple(re.findall(r"\w+", group))
                        for group in re.findall(r"\(([^)]*)\)", side)]
  return parse(ins), parse(outs)


class _Vectorized:
  """What ``vectorize`` returns; holds the parsed signature and does the checks."""

  def __init__(self, pyfunc, excluded, signature):
    self.pyfunc, self.excluded, self.signature = pyfunc, frozenset(excluded), signature
    self.core = None if signature is None else _parse_signature(signature)
    functools.update_wrapper(self, pyfunc)

  def _error(self, cls, message: str):
    sep = "" if message.endswith("\n") else " "
    return cls(f"{message}{sep}on vectorized function with excluded={self.excluded!r} and "
               f"signature={self.signature!r}")

  def __call__(self, *args, **kwargs):
    fixed_pos = {i: a for i, a in enumerate(args) if i in self.excluded}
    fixed_kw = {k: v for k, v in kwargs.items() if k in self.excluded}
    names = [k for k in kwargs if k not in self.excluded]
    mapped = [asarray(a) for i, a in enumerate(args) if i not in self.excluded]
    n_positional = len(mapped)
    mapped += [asarray(kwargs[k]) for k in names]

    def call(*values):
      positional = list(values[:n_positional])
      for i in sorted(fixed_pos):
        positional.insert(i, fixed_pos[i])
      return self.pyfunc(*positional, **fixed_kw, **dict(zip(names, values[n_positional:])))

    in_core = [()] * len(mapped) if self.core is None else self.core[0]
    if len(in_core) != len(mapped):
      raise self._error(TypeError, f"wrong number of positional arguments: expected "
                        f"{len(in_core)}, got {len(mapped)}")
    sizes = self._core_sizes(mapped, in_core)
    body = call if self.core is None else functools.partial(self._checked, call, sizes)
    return _map_over_loop_dims(body, mapped, [len(c) for c in in_core])

  def _core_sizes(self, values, in_core) -> dict:
    sizes: dict = {}
    for x, dims in zip(values, in_core):
      shape = _shape(x)
      if len(shape) < len(dims):
        raise self._error(ValueError, f"input with shape {shape} does not have enough "
                          f"dimensions for all core dimensions {dims}")
      for name, size in zip(dims, shape[len(shape) - len(dims):]):
        if sizes.setdefault(name, size) != size:
          raise self._error(ValueError, f"inconsistent size for core dimension {name!r}: "
                            f"{size} vs {sizes[name]}")
    return sizes

  def _checked(self, call, sizes, *values):
    out = call(*values)
    out_core = self.core[1]
    if len(out_core) > 1 and not isinstance(out, tuple):
      raise self._error(TypeError, f"output must be a tuple when multiple outputs are "
                        f"expected, got: {out!r}\n")
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(out_core):
      raise self._error(TypeError, f"wrong number of output arguments: expected "
                        f"{len(out_core)}, got {len(outs)}")
    for x, dims in zip(outs, out_core):
      shape = np.shape(x)
      if len(shape) != len(dims) or any(sizes.setdefault(n, s) != s
                                         for n, s in zip(dims, shape)):
        raise self._error(ValueError, f"output shape {shape} does not match core "
                          f"dimensions {dims}")
    return out


def _map_over_loop_dims(body, values, core_ndims):
  """``body`` mapped with nested ``vmap`` over the broadcast loop (non-core) dimensions.

  An argument is mapped along a loop dimension only where it has that dimension's full size;
  where it broadcasts (size 1 or missing) the axis is dropped and the argument is held fixed.
  """
  loops = [_shape(x)[:len(_shape(x)) - k] for x, k in zip(values, core_ndims)]
  loop_shape = broadcast_shapes(*loops)
  n = len(loop_shape)
  padded = [(1,) * (n - len(s)) + tuple(s) for s in loops]
  is_mapped = [[s[d] == loop_shape[d] for d in range(n)] for s in padded]
  squeezed = [reshape(x, tuple(s[d] for d in range(n) if m[d]) + _shape(x)[len(loop) :])
              for x, s, m, loop in zip(values, padded, is_mapped, loops)]
  f = body
  for d in reversed(range(n)):
    f = vmap(f, in_axes=tuple(0 if m[d] else None for m in is_mapped))
  return f(*squeezed)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
  """``pyfunc`` made to broadcast over leading (loop) dimensions, as NumPy's ``vectorize``.

  ``signature`` (e.g. ``'(m,n),(n)->(m)'``) gives the core dimensions ``pyfunc`` works on
  for each input and output; without one every input element is a scalar. ``excluded`` names
  positions or keywords of arguments passed through unchanged. The loop runs as ``vmap``, so
  ``pyfunc`` must be traceable; keyword arguments that are not excluded are mapped too.

  Example:
      >>> import ember.numpy as jnp
      >>> clipped = jnp.vectorize(lambda x, lo: jnp.maximum(x, lo), excluded={1})
      >>> clipped(jnp.array([[-1, 2], [3, -4]]), 0)
      Array([[0, 2],
             [3, 0]], dtype=int32)
  """
  return _Vectorized(pyfunc, excluded, signature)


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
  """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``; the dimensions of its
  result take the place of ``axis``. Extra ``args``/``kwargs`` go to ``func1d`` unchanged.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.apply_along_axis(lambda v: v[-1] - v[0], 1, jnp.array([[1, 5, 9], [2, 2, 8]]))
      Array([8, 6], dtype=int32)
  """
  check_arraylike("apply_along_axis", arr)
  arr = asarray(arr)
  nd = len(_shape(arr))
  axis = canonicalize_axis(axis, nd)
  f = lambda v: func1d(v, *args, **kwargs)
  for i in range(1, nd - axis):  # dimensions after axis: their results go last
    f = vmap(f, in_axes=i, out_axes=-1)
  for _ in range(axis):  # dimensions before axis: their results go first
    f = vmap(f, in_axes=0, out_axes=0)
  return f(arr)


def apply_over_axes(func, a, axes):
  """``func(a, axis)`` applied in turn for each axis of ``axes``, keeping the rank (a result
  with one axis fewer gets it back with size 1).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.apply_over_axes(jnp.sum, jnp.arange(6).reshape(2, 3), [0, 1])
      Array([[15]], dtype=int32)
  """
  check_arraylike("apply_over_axes", a)
  a = asarray(a)
  for axis in axes:
    out = func(a, axis)
    if out.ndim == a.ndim - 1:
      out = expand_dims(out, axis)
    elif out.ndim != a.ndim:
      raise ValueError("function is not returning an array of the correct shape")
    a = out
  return a


def frompyfunc(func, /, nin: int, nout: int, *, identity=None):
  """A :class:`ufunc` from ``func``, a function of ``nin`` scalars returning ``nout`` values;
  calls are vectorized, and binary ones get ``reduce``, ``accumulate`` and ``outer``.

  Example:
      >>> import ember.numpy as jnp
      >>> hyp = jnp.frompyfunc(lambda a, b: jnp.sqrt(a * a + b * b), 2, 1)
      >>> hyp(jnp.array([3.0, 5.0]), 4.0), hyp.outer(jnp.array([3.0]), jnp.array([4.0, 0.0]))
      (Array([5.       , 6.4031243], dtype=float32), Array([[5., 3.]], dtype=float32))
  """
  name = getattr(func, "__name__", "frompyfunc")
  return ufunc(vectorize(func), name, nin, nout, identity=identity)
