"""ember.numpy's reductions: sum/prod/max/min/all/any, mean/var/std, arg-reductions,
cumulative reductions, the NaN-ignoring variants, ptp, count_nonzero and average (median
and the quantiles live in ``statistics.py``).

Dtype rules follow JAX: ``sum`` and ``prod`` promote bools and narrow integers to the default
int (uint) dtype, ``mean``/``var``/``std`` of integers are float32, float16 and bfloat16 are
accumulated in float32; ``max``/``min`` of an empty axis need ``initial``. ``axis`` may be None,
an int (negative counts from the end) or a tuple; ``where`` masks elements out.

Example:
    >>> import ember.numpy as jnp
    >>> x = jnp.arange(6).reshape(2, 3)
    >>> jnp.sum(x, axis=0), jnp.mean(x)
    (Array([3, 5, 7], dtype=int32), Array(2.5, dtype=float32))
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from ember import dtypes
from ember import lax
from ember.config import config
from ember.core import trace as core
from ember.numpy._util import (canonicalize_axis, check_arraylike, ensure_array, fold_scalar,
                               index_axis, is_arraylike, promote_dtypes_inexact,
                               promote_dtypes_numeric)
from ember.numpy.creation import broadcast_to, named_jit
from ember.backend.array import ArrayImpl
from ember.transforms.jit import jit as _jit
from ember.numpy.ufuncs import _where
from ember.numpy.ufuncs_logic import logical_not

__all__ = [
    "sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "all", "any", "argmax",
    "argmin", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nancumsum",
    "nancumprod", "ptp", "count_nonzero", "average", "nansum", "nanprod", "nanmax", "nanmin",
    "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin",
]

_REDUCE = {"add": lax.reduce_sum, "mul": lax.reduce_prod, "max": lax.reduce_max,
           "min": lax.reduce_min, "and": lax.reduce_and, "or": lax.reduce_or}
_COMBINE = {"add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min,
            "and": lax.bitwise_and, "or": lax.bitwise_or}


# --- shared helpers ---------------------------------------------------------------------------

def _dt(x) -> np.dtype:
  aval = getattr(x, "aval", None)
  return aval.dtype if aval is not None else dtypes.dtype(x, canonicalize=True)


def _astype(x, dt):
  """``x`` converted to the strong dtype ``dt`` (no equation when it already is)."""
  dt = np.dtype(dt)
  if _dt(x) == dt and not dtypes.is_weakly_typed(x):
    return x
  if type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
    return fold_scalar(x, dt, False)
  return lax._convert_element_type(x, dt)


def _no_out(name: str, out) -> None:
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _check_where(name: str, where):
  if where is None:
    return None
  check_arraylike(name, where)
  where = ensure_array(where)
  if _dt(where) != np.bool_:
    raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                     f"where.dtype=dtype('{_dt(where)}').")
  return where


# Reductions JAX can run over a named (vmap / shard_map) axis, and those it refuses.
_NAMED = frozenset({"sum", "mean", "max", "min", "std", "var", "nansum", "nanmax", "nanmin",
                    "nanmean", "nanstd", "nanvar", "ptp", "count_nonzero"})
_NOT_NAMED = frozenset({"prod", "any", "all"})


def _static_axis(axis, name: str):
  if isinstance(axis, core.Tracer):
    from ember.core.errors import ConcretizationTypeError
    raise ConcretizationTypeError(axis, f"axis argument to jnp.{name}().")
  if isinstance(axis, str):
    if name in _NAMED | _NOT_NAMED:
      _named_axis(axis, name)
    index_axis(axis)  # the others take integer axes only: a TypeError naming axis
  return axis


def _named_axis(axis: str, name: str) -> None:
  """A string ``axis`` names a mapped axis: JAX's errors when it is unbound (NameError) or the
  reduction has no named form (NotImplementedError); ember has no named reductions in
  ``jnp`` yet, so a bound name is a NotImplementedError pointing at ``lax.psum`` and friends."""
  if name in _NOT_NAMED:
    raise NotImplementedError(f"jnp.{name}() has no reduction over a named axis "
                              f"(axis={axis!r}); pass integer axes.")
  if core.axis_size(axis) is None:
    raise NameError(f"jnp.{name}(): axis={axis!r} is not an axis name bound by an enclosing "
                    "vmap(axis_name=...) or shard_map (unbound axis name); pass integer axes.")
  raise NotImplementedError(f"jnp.{name}(axis={axis!r}): ember does not reduce over named axes "
                            "in jnp; use lax.psum, lax.pmax or lax.pmin inside the vmap.")


def _reduction_dims(a, axis) -> tuple[int, ...]:
  """``axis`` (None, an int or a sequence) as sorted-by-position non-negative ints."""
  nd = np.ndim(a)
  if axis is None:
    return tuple(range(nd))
  axes = tuple(axis) if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
  canon = tuple(canonicalize_axis(ax, nd) for ax in axes)
  if len(set(canon)) != len(canon):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return canon


def _promote_integer_dtype(dt) -> np.dtype:
  """bool and narrow ints widen to the default int (uint) dtype, as JAX's sum does."""
  if dtypes.is_bool(dt):
    return dtypes.default_int_dtype()
  if dtypes.is_unsigned(dt):
    default = dtypes.default_uint_dtype()
    return default if dtypes.iinfo(dt).bits < dtypes.iinfo(default).bits else np.dtype(dt)
  if dtypes.is_integer(dt):
    default = dtypes.default_int_dtype()
    return default if dtypes.iinfo(dt).bits < dtypes.iinfo(default).bits else np.dtype(dt)
  return np.dtype(dt)


def _upcast_f16(dt) -> np.dtype:
  return np.dtype(np.float32) if np.dtype(dt) in (np.float16, dtypes.bfloat16) else np.dtype(dt)


def _init_value(dt, value):
  """The reduction's identity ``value`` as a NumPy scalar of ``dt`` (clamped for ints)."""
  if dt == np.bool_:
    return np.bool_(value > 0)
  if dtypes.is_integer(dt) and not math.isfinite(value):
    info = dtypes.iinfo(dt)
    return np.asarray(info.min if value < 0 else info.max, dt)[()]
  return np.asarray(value, dt)[()]


def _to_numeric(a):
  return promote_dtypes_numeric(a)[0]


def _to_bool(a):
  if dtypes.is_complex(_dt(a)):
    a = lax.real(a)
  return _astype(a, np.bool_)


def _reduction(a, name: str, op: str, init, *, has_identity=True, preproc=None, bool_op=None,
               upcast_f16=False, axis=None, dtype=None, out=None, keepdims=False,
               initial=None, where=None, promote_integers=False):
  """JAX's generic reduction: promote, mask with ``where``, reduce, fold in ``initial``."""
  _no_out(name, out)
  check_arraylike(name, a)
  a = ensure_array(a)
  where = _check_where(name, where)
  axis = _static_axis(axis, name)
  if initial is None and not has_identity and where is not None:
    raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                     "where mask one has to specify 'initial'")
  a = preproc(a) if preproc else a
  dims = _reduction_dims(a, axis)
  shape = np.shape(a)
  if initial is None and not has_identity and not builtins.all(shape[d] >= 1 for d in dims):
    raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
  if dtype is None:
    result_dt = _dt(a)
    if promote_integers:
      result_dt = _promote_integer_dtype(result_dt)
  else:
    result_dt = dtypes.check_and_canonicalize_user_dtype(dtype, name)
  comp_dt = _upcast_f16(result_dt) if upcast_f16 and dtypes.is_inexact(result_dt) \
      else result_dt
  a = _astype(a, comp_dt)
  op = bool_op if comp_dt == np.bool_ and bool_op else op
  init_val = _init_value(comp_dt, init)
  if where is not None:
    a = _where(where, a, init_val)
  result = _REDUCE[op](a, dims)
  if initial is not None:
    initial_arr = _astype(initial, comp_dt)
    if np.shape(initial_arr) != ():
      raise ValueError(f"initial value must be a scalar. Got array of shape "
                       f"{np.shape(initial_arr)}")
    result = _COMBINE[op](initial_arr, result)
  if keepdims:
    result = lax.expand_dims(result, dims)
  return _astype(result, dtypes.canonicalize_dtype(dtype) if dtype is not None else result_dt)


# --- sum, prod, max, min, all, any ------------------------------------------------------------

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
  """Sum of elements over ``axis``. Bools and narrow ints sum as the default int dtype.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.sum(jnp.array([True, True, False])), jnp.sum(jnp.ones((2, 3)), axis=1)
      (Array(2, dtype=int32), Array([3., 3.], dtype=float32))
  """
  return _reduction(a, "sum", "add", 0, preproc=_to_numeric, bool_op="or",
                    upcast_f16=dtype is None, axis=axis, dtype=dtype, out=out,
                    keepdims=keepdims, initial=initial, where=where,
                    promote_integers=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
  """Product of elements over ``axis`` (1 for an empty axis).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.prod(jnp.arange(1, 5))
      Array(24, dtype=int32)
  """
  return _reduction(a, "prod", "mul", 1, preproc=_to_numeric, bool_op="and",
                    upcast_f16=dtype is None, axis=axis, dtype=dtype, out=out,
                    keepdims=keepdims, initial=initial, where=where,
                    promote_integers=promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
  """Maximum over ``axis`` (NaN propagates). An empty axis needs ``initial``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.max(jnp.array([[1, 5], [3, 2]]), axis=0)
      Array([3, 5], dtype=int32)
  """
  return _reduction(a, "max", "max", -np.inf, has_identity=False, axis=axis,
                    out=out, keepdims=keepdims, initial=initial, where=where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
  """Minimum over ``axis`` (NaN propagates). An empty axis needs ``initial``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.min(jnp.array([[1, 5], [3, 2]]), axis=1)
      Array([1, 2], dtype=int32)
  """
  return _reduction(a, "min", "min", np.inf, has_identity=False, axis=axis,
                    out=out, keepdims=keepdims, initial=initial, where=where)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):
  """Whether every element over ``axis`` is true (nonzero).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.all(jnp.array([1, 2, 0]))
      Array(False, dtype=bool)
  """
  return _reduction(a, "all", "and", True, preproc=_to_bool, axis=axis, out=out,
                    keepdims=keepdims, where=where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
  """Whether some element over ``axis`` is true (nonzero).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.any(jnp.array([0, 0, 3]))
      Array(True, dtype=bool)
  """
  return _reduction(a, "any", "or", False, preproc=_to_bool, axis=axis, out=out,
                    keepdims=keepdims, where=where)


# --- mean, var, std ---------------------------------------------------------------------------

def _count(a, axis, keepdims, where, dt):
  """The number of elements each reduction over ``axis`` sees, as dtype ``dt``."""
  if where is None:
    shape = np.shape(a)
    n = math.prod(shape[d] for d in _reduction_dims(a, axis))
    return np.asarray(n, dt)[()]
  return sum(broadcast_to(where, np.shape(a)), axis, dtype=dt, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
  """Arithmetic mean over ``axis`` (float32 for integer inputs; NaN for an empty axis).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.mean(jnp.array([1, 2, 4]))
      Array(2.3333335, dtype=float32)
  """
  check_arraylike("mean", a)
  a = ensure_array(a)
  axis = _static_axis(axis, "mean")
  where = _check_where("mean", where)
  _no_out("mean", out)
  if dtype is None:
    result_dt = dtypes.to_inexact_dtype(_dt(a))
  else:
    result_dt = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
  comp_dt = _upcast_f16(result_dt) if dtypes.is_inexact(result_dt) else result_dt
  normalizer = _count(a, axis, keepdims, where, comp_dt)
  total = sum(a, axis, dtype=comp_dt, keepdims=keepdims, where=where)
  return _astype(lax.div(total, normalizer), result_dt)


def _var_dtypes(a_dt, dtype):
  """(computation dtype, result dtype) of var/std."""
  if dtype is not None:
    if not dtypes.is_complex(dtype) and dtypes.is_complex(a_dt):
      raise ValueError(
          "jax.numpy.var does not yet support real dtype parameters when computing the "
          "variance of an array of complex values. The semantics of numpy.var seem unclear "
          "in this case. Please comment on https://github.com/jax-ml/jax/issues/2283 if this "
          "behavior is important to you.")
    comp = np.dtype(dtype)
    res = comp
  elif not dtypes.is_inexact(a_dt):
    res = comp = dtypes.to_inexact_dtype(a_dt)
  else:
    comp = np.dtype(a_dt)
    res = np.dtype(np.float64 if comp == np.complex128 else np.float32) \
        if dtypes.is_complex(comp) else comp
  return _upcast_f16(comp), np.dtype(res)


def _correction(ddof, correction):
  name, value = ("ddof", ddof) if correction is None else ("correction", correction)
  if not is_arraylike(value) or isinstance(value, (np.ndarray, np.generic)) and \
      value.dtype.kind not in "biuf":
    raise TypeError(f"{name} must be a number (degrees of freedom), got {value!r} of type "
                    f"{type(value).__name__}.")
  if correction is not None and ddof != 0:
    raise ValueError("ddof and correction can't be provided simultaneously.")
  return value


def _var_impl(a, correction, *, axis, dtype, keepdims, where, a_mean):
  comp_dt, res_dt = _var_dtypes(_dt(a), dtype)
  a = _astype(a, comp_dt)
  if a_mean is None:
    a_mean = mean(a, axis, dtype=comp_dt, keepdims=True, where=where)
  else:
    a_mean = _astype(a_mean, comp_dt)
  centered = lax.sub(a, a_mean)
  if dtypes.is_complex(comp_dt):
    centered = lax.real(lax.mul(centered, lax.conj(centered)))
    comp_dt = _dt(centered)
  else:
    centered = lax.square(centered)
  normalizer = _count(a, axis, keepdims, where, comp_dt)
  normalizer = lax.sub(normalizer, _astype(correction, comp_dt))
  result = sum(centered, axis, dtype=comp_dt, keepdims=keepdims, where=where)
  result = _astype(lax.div(result, normalizer), res_dt)
  return _where(lax.gt(normalizer, np.asarray(0, _dt(normalizer))[()]), result, np.nan)


_var_jit = named_jit(_var_impl, "_var", static_argnames=("axis", "dtype", "keepdims"))


def _axis_key(axis):
  """``axis`` hashable (a list becomes a tuple), for jit's static arguments."""
  if isinstance(axis, (list, np.ndarray)):
    return tuple(index_axis(x) for x in axis)
  return axis


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
  """Variance over ``axis``, dividing by ``N - correction`` (``ddof``); NaN when that is not
  positive. Complex inputs give a real variance.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.var(jnp.array([1., 2., 3., 4.])), jnp.var(jnp.array([1., 2., 3., 4.]), ddof=1)
      (Array(1.25, dtype=float32), Array(1.6666666, dtype=float32))
  """
  check_arraylike("var", a)
  where = _check_where("var", where)
  _no_out("var", out)
  corr = _correction(ddof, correction)
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "var")
  return _var_jit(ensure_array(a), corr, axis=_axis_key(_static_axis(axis, "var")), dtype=dt,
                  keepdims=bool(keepdims), where=where, a_mean=mean)


def _std_impl(a, correction, *, axis, dtype, keepdims, where, a_mean):
  return lax.sqrt(_var_jit(a, correction, axis=axis, dtype=dtype, keepdims=keepdims,
                           where=where, a_mean=a_mean))


_std_jit = named_jit(_std_impl, "_std", static_argnames=("axis", "dtype", "keepdims"))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
  """Standard deviation over ``axis`` (the square root of ``var``).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.std(jnp.array([1., 3.]))
      Array(1., dtype=float32)
  """
  check_arraylike("std", a)
  where = _check_where("std", where)
  _no_out("std", out)
  corr = _correction(ddof, correction)
  dt = None
  if dtype is not None:
    dt = dtypes.check_and_canonicalize_user_dtype(dtype, "std")
    if not dtypes.is_inexact(dt):
      raise ValueError(f"dtype argument to jnp.std must be inexact; got {dt}")
  return _std_jit(ensure_array(a), corr, axis=_axis_key(_static_axis(axis, "std")), dtype=dt,
                  keepdims=bool(keepdims), where=where, a_mean=mean)


# --- argmax, argmin ---------------------------------------------------------------------------

def _arg_reduction(name: str, lax_fn, a, axis, out, keepdims):
  _no_out(name, out)
  check_arraylike(name, a)
  a = ensure_array(a)
  axis = _static_axis(axis, name)
  if axis is None:
    dims = tuple(range(np.ndim(a)))
    a = lax.reshape(a, (int(np.size(a)),))
    axis = 0
  else:
    axis = canonicalize_axis(axis, np.ndim(a))
    dims = (axis,)
  if np.shape(a)[axis] == 0:
    raise ValueError(f"attempt to get {name} of an empty sequence")
  result = lax_fn(a, axis, dtypes.default_int_dtype())
  return lax.expand_dims(result, dims) if keepdims else result


def argmax(a, axis=None, out=None, keepdims=None):
  """Index of the maximum over ``axis`` (of the flattened array if None; first on ties,
  NaN counts as the maximum).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argmax(jnp.array([[1, 5], [7, 2]])), jnp.argmax(jnp.array([[1, 5], [7, 2]]), 1)
      (Array(2, dtype=int32), Array([1, 0], dtype=int32))
  """
  return _arg_reduction("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
  """Index of the minimum over ``axis`` (of the flattened array if None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.argmin(jnp.array([3, 1, 2]))
      Array(1, dtype=int32)
  """
  return _arg_reduction("argmin", lax.argmin, a, axis, out, keepdims)


# --- cumulative reductions --------------------------------------------------------------------

def _cumulative(name: str, lax_fn, a, axis, dtype, fill_nan=False, fill_value=0,
                promote_integers=False):
  a = ensure_array(a)
  if axis is None or np.ndim(a) == 0:
    a = lax.reshape(a, (int(np.size(a)),))
  axis = canonicalize_axis(0 if axis is None else axis, np.ndim(a))
  if fill_nan:
    a = _where(lax.ne(a, a), np.asarray(fill_value, _dt(a))[()], a)
  if dtype is None:
    res_dt = _promote_integer_dtype(_dt(a)) if promote_integers or _dt(a) == np.bool_ \
        else _dt(a)
    comp_dt = res_dt
  elif np.dtype(dtype) == np.bool_:
    res_dt = np.dtype(np.bool_)
    if _dt(a) != np.bool_:
      a = lax.ne(a, np.asarray(0, _dt(a))[()])
    comp_dt = _promote_integer_dtype(res_dt)
  else:
    res_dt = comp_dt = dtypes.check_and_canonicalize_user_dtype(dtype, name)
  a = _astype(a, comp_dt)
  return _astype(lax_fn(a, axis), res_dt)


def _cumulative_jit(name, lax_fn, jit_name=None, **kw):
  def impl(a, *, axis, dtype):
    return _cumulative(name, lax_fn, a, axis, dtype, **kw)
  return named_jit(impl, jit_name or name, static_argnames=("axis", "dtype"))


_cumsum_jit = _cumulative_jit("cumsum", lax.cumsum)
_cumprod_jit = _cumulative_jit("cumprod", lax.cumprod)
_nancumsum_jit = _cumulative_jit("nancumsum", lax.cumsum, fill_nan=True, fill_value=0)
_nancumprod_jit = _cumulative_jit("nancumprod", lax.cumprod, fill_nan=True, fill_value=1)
_cumsum_promote_jit = _cumulative_jit("cumulative_sum", lax.cumsum, "_cumsum_with_promotion",
                                      promote_integers=True)
_cumprod_promote_jit = _cumulative_jit("cumulative_prod", lax.cumprod,
                                       "_cumprod_with_promotion", promote_integers=True)


def _cum_call(name, fn, a, axis, dtype, out):
  _no_out(name, out)
  check_arraylike(name, a)
  axis = None if axis is None else index_axis(_static_axis(axis, name))
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, name)
  return fn(a, axis=axis, dtype=dt)


def cumsum(a, axis=None, dtype=None, out=None):
  """Cumulative sum along ``axis`` (of the flattened array if None); bools sum as int32.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cumsum(jnp.array([[1, 2], [3, 4]]), axis=1)
      Array([[1, 3],
             [3, 7]], dtype=int32)
  """
  return _cum_call("cumsum", _cumsum_jit, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
  """Cumulative product along ``axis`` (of the flattened array if None).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cumprod(jnp.array([1, 2, 3]))
      Array([1, 2, 6], dtype=int32)
  """
  return _cum_call("cumprod", _cumprod_jit, a, axis, dtype, out)


def nancumsum(a, axis=None, dtype=None, out=None):
  """Cumulative sum treating NaNs as zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nancumsum(jnp.array([1., jnp.nan, 2.]))
      Array([1., 1., 3.], dtype=float32)
  """
  return _cum_call("nancumsum", _nancumsum_jit, a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
  """Cumulative product treating NaNs as one.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nancumprod(jnp.array([2., jnp.nan, 3.]))
      Array([2., 2., 6.], dtype=float32)
  """
  return _cum_call("nancumprod", _nancumprod_jit, a, axis, dtype, out)


def _cumulative_api(name, fn, x, axis, dtype, include_initial, initial_value):
  check_arraylike(name, x)
  x = ensure_array(x)
  nd = np.ndim(x)
  if nd == 0:
    raise ValueError(f"The input must be non-scalar to take a {name.replace('_', ' ')}, "
                     "however a scalar value or scalar array was given.")
  if axis is None:
    if nd > 1:
      raise ValueError(f"The input array has rank {nd}, however axis was not set to an "
                       "explicit value. The axis argument is only optional for "
                       "one-dimensional arrays.")
    axis = 0
  axis = canonicalize_axis(axis, nd)
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, name)
  out = fn(x, axis=axis, dtype=dt)
  if include_initial:
    shape = list(np.shape(x))
    shape[axis] = 1
    init = lax.full(tuple(shape), np.asarray(initial_value, _dt(out))[()])
    out = lax.concatenate([init, out], axis)
  return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
  """Array-API cumulative sum (integers promote like ``sum``); ``include_initial`` prepends 0.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cumulative_sum(jnp.arange(3), include_initial=True)
      Array([0, 0, 1, 3], dtype=int32)
  """
  return _cumulative_api("cumulative_sum", _cumsum_promote_jit, x, axis, dtype,
                         include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
  """Array-API cumulative product; ``include_initial`` prepends 1.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.cumulative_prod(jnp.arange(1, 4))
      Array([1, 2, 6], dtype=int32)
  """
  return _cumulative_api("cumulative_prod", _cumprod_promote_jit, x, axis, dtype,
                         include_initial, 1)


# --- ptp, count_nonzero, average --------------------------------------------------------------

_ptp_jit = named_jit(lambda a, *, axis, keepdims: lax.sub(max(a, axis, keepdims=keepdims),
                                                          min(a, axis, keepdims=keepdims)),
                     "_ptp", static_argnames=("axis", "keepdims"))


def ptp(a, axis=None, out=None, keepdims=False):
  """Peak to peak (``max - min``) over ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.ptp(jnp.array([[1, 5], [3, 2]]), axis=1)
      Array([4, 1], dtype=int32)
  """
  check_arraylike("ptp", a)
  _no_out("ptp", out)
  return _ptp_jit(a, axis=_axis_key(_static_axis(axis, "ptp")), keepdims=bool(keepdims))


def _count_nonzero(a, *, axis, keepdims):
  return sum(lax.ne(a, np.asarray(0, _dt(a))[()]), axis=axis,
             dtype=dtypes.default_int_dtype(), keepdims=keepdims)


_count_nonzero_jit = named_jit(_count_nonzero, "count_nonzero",
                               static_argnames=("axis", "keepdims"))


def count_nonzero(a, axis=None, keepdims=False):
  """The number of nonzero elements over ``axis``.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.count_nonzero(jnp.array([[0, 1], [2, 0]]), axis=0)
      Array([1, 1], dtype=int32)
  """
  check_arraylike("count_nonzero", a)
  return _count_nonzero_jit(a, axis=_axis_key(_static_axis(axis, "count_nonzero")),
                            keepdims=bool(keepdims))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
  """Weighted average over ``axis``; with ``returned`` also the sum of the weights.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.average(jnp.array([1., 2., 4.]), weights=jnp.array([1., 1., 2.]))
      Array(2.75, dtype=float32)
  """
  axis = _static_axis(axis, "average")
  if weights is None:
    check_arraylike("average", a)
    a, = promote_dtypes_inexact(ensure_array(a))
    avg = mean(a, axis=axis, keepdims=keepdims)
    if not returned:
      return avg
    n = math.prod(np.shape(a)[d] for d in _reduction_dims(a, axis))
    weights_sum = lax.full((), np.asarray(n, _dt(avg))[()])
  else:
    check_arraylike("average", a, weights)
    a, weights = promote_dtypes_inexact(ensure_array(a), ensure_array(weights))
    a_shape, w_shape = np.shape(a), np.shape(weights)
    if a_shape != w_shape:
      if axis is None:
        raise ValueError("Axis must be specified when shapes of a and weights differ.")
      dims = _reduction_dims(a, axis)
      if w_shape != tuple(a_shape[d] for d in dims):
        raise ValueError("Shape of weights must be consistent with shape of a along specified "
                         "axis.")
      new_shape = tuple(s if i in dims else 1 for i, s in enumerate(a_shape))
      order = tuple(int(i) for i in np.argsort(dims))
      weights = lax.reshape(lax.transpose(weights, order) if order != tuple(range(len(order)))
                            else weights, new_shape)
    weights_sum = sum(weights, axis=axis, keepdims=keepdims)
    from ember.numpy.ufuncs import divide, multiply
    avg = divide(sum(multiply(a, weights), axis=axis, keepdims=keepdims), weights_sum)
  if returned:
    if np.shape(avg) != np.shape(weights_sum):
      weights_sum = broadcast_to(weights_sum, np.shape(avg))
    return avg, weights_sum
  return avg


# --- NaN-ignoring reductions ------------------------------------------------------------------

def _nan_reduction(a, name, reduction, init, nan_if_all_nan, axis=None, keepdims=False,
                   where=None, **kwargs):
  a = ensure_array(a)
  if not dtypes.is_inexact(_dt(a)):
    return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
  nan_mask = lax.ne(a, a)
  out = reduction(_where(nan_mask, _init_value(_dt(a), init), a), axis=axis,
                  keepdims=keepdims, where=where, **kwargs)
  if nan_if_all_nan:
    return _where(all(lax.ne(a, a), axis=axis, keepdims=keepdims),
                  np.asarray(np.nan, _dt(a))[()], out)
  return out


def _nan_jit(name, reduction, init, nan_if_all_nan_default, has_dtype=True):
  def impl(a, initial, where, *, axis, dtype, keepdims):
    kwargs = {"dtype": dtype} if has_dtype else {}
    nan_if_all_nan = nan_if_all_nan_default and initial is None
    return _nan_reduction(a, name, reduction, init, nan_if_all_nan, axis=axis,
                          keepdims=keepdims, where=where, initial=initial, **kwargs)
  return named_jit(impl, name, static_argnames=("axis", "dtype", "keepdims"))


_nansum_jit = _nan_jit("nansum", sum, 0, False)
_nanprod_jit = _nan_jit("nanprod", prod, 1, False)
_nanmax_jit = _nan_jit("nanmax", max, -np.inf, True, has_dtype=False)
_nanmin_jit = _nan_jit("nanmin", min, np.inf, True, has_dtype=False)


def _nan_call(name, fn, a, axis, dtype, out, keepdims, initial, where):
  check_arraylike(name, a)
  _no_out(name, out)
  where = _check_where(name, where)
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, name)
  return fn(a, initial, where, axis=_axis_key(_static_axis(axis, name)), dtype=dt,
            keepdims=bool(keepdims))


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  """Sum treating NaNs as zero.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nansum(jnp.array([1., jnp.nan, 2.]))
      Array(3., dtype=float32)
  """
  return _nan_call("nansum", _nansum_jit, a, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  """Product treating NaNs as one.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanprod(jnp.array([2., jnp.nan, 3.]))
      Array(6., dtype=float32)
  """
  return _nan_call("nanprod", _nanprod_jit, a, axis, dtype, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
  """Maximum ignoring NaNs (NaN where every element is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanmax(jnp.array([1., jnp.nan, 3.]))
      Array(3., dtype=float32)
  """
  return _nan_call("nanmax", _nanmax_jit, a, axis, None, out, keepdims, initial, where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
  """Minimum ignoring NaNs (NaN where every element is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanmin(jnp.array([1., jnp.nan, 3.]))
      Array(1., dtype=float32)
  """
  return _nan_call("nanmin", _nanmin_jit, a, axis, None, out, keepdims, initial, where)


def _nanmean(a, where, *, axis, dtype, keepdims):
  if not dtypes.is_inexact(_dt(a)):
    return mean(a, axis, dtype, keepdims=keepdims, where=where)
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(_dt(a))
  normalizer = sum(logical_not(lax.ne(a, a)), axis=axis, dtype=dtype, keepdims=keepdims,
                   where=where)
  total = _nansum_jit(a, None, where, axis=axis, dtype=dtype, keepdims=keepdims)
  return lax.div(total, normalizer)


_nanmean_jit = named_jit(_nanmean, "nanmean", static_argnames=("axis", "dtype", "keepdims"))


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
  """Mean ignoring NaNs (NaN where every element is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanmean(jnp.array([1., jnp.nan, 3.]))
      Array(2., dtype=float32)
  """
  check_arraylike("nanmean", a)
  _no_out("nanmean", out)
  where = _check_where("nanmean", where)
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "nanmean")
  return _nanmean_jit(ensure_array(a), where, axis=_axis_key(_static_axis(axis, "nanmean")),
                      dtype=dt, keepdims=bool(keepdims))


def _nanvar(a, ddof, where, a_mean, *, axis, dtype, keepdims):
  """The NaN-ignoring variance; ``ddof`` is an operand (it may be traced, or a float), subtracted
  from the count with jnp promotion, as in JAX."""
  from ember.numpy.ufuncs import subtract
  comp_dt, res_dt = _var_dtypes(_dt(a), dtype)
  a = _astype(a, comp_dt)
  if a_mean is None:
    a_mean = _nanmean_jit(a, where, axis=axis, dtype=comp_dt, keepdims=True)
  centered = _where(lax.ne(a, a), 0, lax.sub(a, a_mean))
  if dtypes.is_complex(comp_dt):
    centered = lax.real(lax.mul(centered, lax.conj(centered)))
  else:
    centered = lax.square(centered)
  normalizer = sum(logical_not(lax.ne(a, a)), axis=axis, keepdims=keepdims, where=where)
  normalizer = subtract(normalizer, ddof)
  empty = lax.le(normalizer, np.asarray(0, _dt(normalizer))[()])
  result = sum(centered, axis, keepdims=keepdims, where=where)
  result = _where(empty, np.nan, result)
  divisor = _where(empty, 1, normalizer)
  result = lax.div(result, _astype(divisor, _dt(result)))
  return _astype(result, res_dt)


_nanvar_jit = named_jit(_nanvar, "nanvar", static_argnames=("axis", "dtype", "keepdims"))


def _nanstd(a, ddof, where, a_mean, *, axis, dtype, keepdims):
  return lax.sqrt(_nanvar_jit(a, ddof, where, a_mean, axis=axis, dtype=dtype, keepdims=keepdims))


_nanstd_jit = named_jit(_nanstd, "nanstd", static_argnames=("axis", "dtype", "keepdims"))


def _nan_moment(name: str, fn, a, axis, dtype, out, ddof, keepdims, where, mean):
  """``fn`` (the jitted nanvar or nanstd) of ``a`` after checking the arguments as JAX does."""
  check_arraylike(name, a)
  _no_out(name, out)
  where = _check_where(name, where)
  dt = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, name)
  return fn(ensure_array(a), ddof, where, mean, axis=_axis_key(_static_axis(axis, name)),
            dtype=dt, keepdims=bool(keepdims))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
  """Variance ignoring NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanvar(jnp.array([1., jnp.nan, 3.]))
      Array(1., dtype=float32)
  """
  return _nan_moment("nanvar", _nanvar_jit, a, axis, dtype, out, ddof, keepdims, where, mean)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
  """Standard deviation ignoring NaNs.

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanstd(jnp.array([1., jnp.nan, 3.]))
      Array(1., dtype=float32)
  """
  return _nan_moment("nanstd", _nanstd_jit, a, axis, dtype, out, ddof, keepdims, where, mean)


def _nanarg(name, arg_fn, fill):
  def impl(a, *, axis, keepdims):
    if not dtypes.is_inexact(_dt(a)):
      return arg_fn(a, axis=axis, keepdims=keepdims)
    nan_mask = lax.ne(a, a)
    res = arg_fn(_where(nan_mask, fill, a), axis=axis, keepdims=keepdims)
    return _where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)
  return named_jit(impl, name, static_argnames=("axis", "keepdims"))


_nanargmax_jit = _nanarg("_nanargmax", argmax, -np.inf)
_nanargmin_jit = _nanarg("_nanargmin", argmin, np.inf)


def nanargmax(a, axis=None, out=None, keepdims=None):
  """Index of the maximum ignoring NaNs (-1 where every element is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanargmax(jnp.array([jnp.nan, 2., 1.]))
      Array(1, dtype=int32)
  """
  check_arraylike("nanargmax", a)
  _no_out("nanargmax", out)
  return _nanargmax_jit(a, axis=_static_axis(axis, "nanargmax"), keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
  """Index of the minimum ignoring NaNs (-1 where every element is NaN).

  Example:
      >>> import ember.numpy as jnp
      >>> jnp.nanargmin(jnp.array([jnp.nan, 2., 1.]))
      Array(2, dtype=int32)
  """
  check_arraylike("nanargmin", a)
  _no_out("nanargmin", out)
  return _nanargmin_jit(a, axis=_static_axis(axis, "nanargmin"), keepdims=bool(keepdims))


# --- eager calls compile once per signature -----------------------------------------------------

def _eager_jit(fun, static: tuple):
  """``fun`` that, called eagerly on an array, runs as one cached executable (jaxlib's C++
  dispatch, as JAX's jnp reductions do) instead of one per primitive; under a transform, and for
  other inputs or unhashable static arguments (whose errors ``fun`` reports), it is ``fun``."""
  jitted = _jit(fun, static_argnames=static, inline=True)
  state, eval_trace = core._state, core.EVAL_TRACE

  @functools.wraps(fun)
  def wrapper(a, *args, **kwargs):
    if type(a) is ArrayImpl and state.trace is eval_trace and not config.jax_disable_jit:
      try:
        return (jitted._cpp or jitted)(a, *args, **kwargs)
      except ValueError as e:
        if "Non-hashable static arguments" not in str(e):
          raise
    return fun(a, *args, **kwargs)
  return wrapper


sum = _eager_jit(sum, ("axis", "dtype", "keepdims", "promote_integers"))
prod = _eager_jit(prod, ("axis", "dtype", "keepdims", "promote_integers"))
max = _eager_jit(max, ("axis", "keepdims"))
min = _eager_jit(min, ("axis", "keepdims"))
amax, amin = max, min
mean = _eager_jit(mean, ("axis", "dtype", "keepdims"))
all = _eager_jit(all, ("axis", "keepdims"))
any = _eager_jit(any, ("axis", "keepdims"))
argmax = _eager_jit(argmax, ("axis", "keepdims"))
argmin = _eager_jit(argmin, ("axis", "keepdims"))
