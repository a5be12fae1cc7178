"""The jet rules of ember's primitives (``ember/experimental/jet.py`` runs them).

A series is the list ``[c_1, ..., c_K]`` of normalized Taylor coefficients; with the primal
``c_0`` in front (``u = [x] + terms``) the rules below are the classical recurrences of power
series: products are convolutions, and a function with a known derivative solves
``y' = f'(x) x'`` coefficient by coefficient.
"""
from __future__ import annotations

import functools
import math

from ember import lax
from ember import numpy as jnp
from ember.experimental.jet import (
    _chain, _jet_fun, def_comp, def_deriv, deflinear, defzero, jet_jaxpr, jet_rules, zero_series)
from ember.extend.core import primitives as _prims
from ember.transforms.ad_util import add_any_p


def _conv(a: list, b: list, k: int, op=lambda p, q: p * q):
  """Coefficient ``k`` of the product of series ``a`` and ``b`` (``op`` multiplies)."""
  return functools.reduce(lambda s, j: s + op(a[j], b[k - j]), range(1, k + 1), op(a[0], b[k]))


def _series_mul(a: list, b: list) -> list:
  return [_conv(a, b, k) for k in range(len(a))]


# --- zero and linear rules ------------------------------------------------------------------

for _p in (lax.le_p, lax.lt_p, lax.gt_p, lax.ge_p, lax.eq_p, lax.ne_p, lax.not_p, lax.and_p,
           lax.or_p, lax.xor_p, lax.floor_p, lax.ceil_p, lax.round_p, lax.sign_p,
           lax.stop_gradient_p, lax.is_finite_p, lax.shift_left_p, lax.shift_right_arithmetic_p,
           lax.shift_right_logical_p, lax.bitcast_convert_type_p):
  defzero(_p)

for _p in (lax.neg_p, lax.real_p, lax.complex_p, lax.conj_p, lax.imag_p, lax.add_p, add_any_p,
           lax.sub_p, lax.convert_element_type_p, lax.broadcast_in_dim_p, lax.concatenate_p,
           lax.split_p, lax.stack_p, lax.unstack_p, lax.pad_p, lax.reshape_p, lax.squeeze_p,
           lax.rev_p, lax.transpose_p, lax.slice_p, lax.reduce_sum_p, lax.reduce_window_sum_p,
           lax.fft_p, lax.copy_p, lax.cumsum_p):
  deflinear(_p)


def _index_linear(prim, n_linear: int, primals_in, series_in, **params):
  """Linear in the first ``n_linear`` operands; the others (indices) keep their primal values."""
  rest = primals_in[n_linear:]
  primal_out = prim.bind(*primals_in, **params)
  terms = [prim.bind(*ts, *rest, **params) for ts in zip(*series_in[:n_linear])]
  return primal_out, terms


jet_rules[lax.dynamic_slice_p] = functools.partial(_index_linear, lax.dynamic_slice_p, 1)
jet_rules[lax.dynamic_update_slice_p] = functools.partial(
    _index_linear, lax.dynamic_update_slice_p, 2)
jet_rules[lax.gather_p] = functools.partial(_index_linear, lax.gather_p, 1)


def _select_n_rule(primals_in, series_in, **params):
  which, *cases = primals_in
  out = lax.select_n_p.bind(which, *cases, **params)
  terms = [lax.select_n_p.bind(which, *ts, **params) for ts in zip(*series_in[1:])]
  return out, terms


jet_rules[lax.select_n_p] = _select_n_rule


# --- bilinear rules and division ------------------------------------------------------------

def _bilinear_rule(prim, primals_in, series_in, **params):
  x, y = primals_in
  a, b = [x] + series_in[0], [y] + series_in[1]
  op = functools.partial(prim.bind, **params)
  out = op(x, y)
  return out, [_conv(a, b, k, op) for k in range(1, len(a))]


for _p in (lax.mul_p, lax.dot_general_p, lax.conv_general_dilated_p):
  jet_rules[_p] = functools.partial(_bilinear_rule, _p)


def _div_rule(primals_in, series_in):
  x, y = primals_in
  a, b = [x] + series_in[0], [y] + series_in[1]
  q = [lax.div(x, y)]
  for k in range(1, len(a)):
    q.append((a[k] - sum(b[j] * q[k - j] for j in range(1, k + 1))) / y)
  return q[0], q[1:]


jet_rules[lax.div_p] = _div_rule


# --- elementary functions -------------------------------------------------------------------

def _exp_rule(primals_in, series_in, **_):
  x, = primals_in
  u, y = [x] + series_in[0], [lax.exp(x)]
  for k in range(1, len(u)):
    y.append(_chain(u, y, k))
  return y[0], y[1:]


jet_rules[lax.exp_p] = _exp_rule


def _log_rule(primals_in, series_in, **_):
  x, = primals_in
  u, y = [x] + series_in[0], [lax.log(x)]
  for k in range(1, len(u)):
    y.append((u[k] - sum(j * y[j] * u[k - j] for j in range(1, k)) / k) / x)
  return y[0], y[1:]


jet_rules[lax.log_p] = _log_rule


def _sinusoidal_rule(sign: int, funs, index: int, primals_in, series_in, **_):
  """sin/cos (``sign`` -1) or sinh/cosh (+1) together: ``s' = c x'``, ``c' = sign s x'``."""
  x, = primals_in
  u = [x] + series_in[0]
  s, c = [funs[0](x)], [funs[1](x)]
  for k in range(1, len(u)):
    s.append(_chain(u, c, k))
    c.append(sign * _chain(u, s, k))
  y = (s, c)[index]
  return y[0], y[1:]


jet_rules[lax.sin_p] = functools.partial(_sinusoidal_rule, -1, (lax.sin, lax.cos), 0)
jet_rules[lax.cos_p] = functools.partial(_sinusoidal_rule, -1, (lax.sin, lax.cos), 1)
jet_rules[lax.sinh_p] = functools.partial(_sinusoidal_rule, 1, (lax.sinh, lax.cosh), 0)
jet_rules[lax.cosh_p] = functools.partial(_sinusoidal_rule, 1, (lax.sinh, lax.cosh), 1)


def _quadratic_deriv_rule(fun, coeffs, primals_in, series_in, **params):
  """``y = fun(x)`` with ``y' = (c0 + c1 y + c2 y**2) x'`` (tanh: 1 - y**2; logistic: y -
  y**2)."""
  x, = primals_in
  u, y = [x] + series_in[0], [fun(x, **params)]
  c0, c1, c2 = coeffs
  for k in range(1, len(u)):
    d = [c1 * y[m] + c2 * _conv(y, y, m) + (c0 if m == 0 else 0) for m in range(k)]
    y.append(_chain(u, d, k))
  return y[0], y[1:]


jet_rules[lax.tanh_p] = functools.partial(_quadratic_deriv_rule, lax.tanh, (1, 0, -1))
jet_rules[lax.logistic_p] = functools.partial(
    _quadratic_deriv_rule, lambda x, **p: lax.logistic_p.bind(x, **p), (0, 1, -1))


def _sqrt_rule(primals_in, series_in, **_):
  x, = primals_in
  u, y = [x] + series_in[0], [lax.sqrt(x)]
  for k in range(1, len(u)):
    y.append((u[k] - sum(y[j] * y[k - j] for j in range(1, k))) / (2 * y[0]))
  return y[0], y[1:]


jet_rules[lax.sqrt_p] = _sqrt_rule
jet_rules[lax.rsqrt_p] = lambda primals_in, series_in, **_: _div_rule(
    [jnp.ones_like(primals_in[0]), lax.sqrt(primals_in[0])],
    [[jnp.zeros_like(t) for t in series_in[0]], _sqrt_rule(primals_in, series_in)[1]])


def _pow_by_squaring(a: list, n: int) -> list:
  """The series of ``x**n`` (``n >= 1``) by repeated squaring of the series ``a``."""
  result, base = None, a
  while n:
    if n & 1:
      result = base if result is None else _series_mul(result, base)
    n >>= 1
    if n:
      base = _series_mul(base, base)
  return result


def _integer_pow_rule(primals_in, series_in, *, y):
  x, = primals_in
  if y == 0:
    return lax.integer_pow(x, 0), zero_series
  v = _pow_by_squaring([x] + series_in[0], abs(y))
  if y > 0:
    return lax.integer_pow(x, y), v[1:]
  ones = [jnp.ones_like(v[0])] + [jnp.zeros_like(t) for t in v[1:]]
  _, terms = _div_rule([ones[0], v[0]], [ones[1:], v[1:]])
  return lax.integer_pow(x, y), terms


jet_rules[lax.integer_pow_p] = _integer_pow_rule


def _pow_rule(primals_in, series_in, **_):
  return _jet_fun(lambda x, y: lax.exp(y * lax.log(x)), list(primals_in), list(series_in))


jet_rules[lax.pow_p] = _pow_rule

def_deriv(lax.erf_p, lambda x: (2 / math.sqrt(math.pi)) * lax.exp(-lax.square(x)))
def_comp(lax.expm1_p, lambda x: lax.exp(x) - 1)
def_comp(lax.log1p_p, lambda x: lax.log(1 + x))
def_comp(lax.square_p, lambda x: x * x)
def_comp(lax.asinh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) + 1)))
def_comp(lax.acosh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) - 1)))
def_comp(lax.atanh_p, lambda x: 0.5 * lax.log(lax.div(1 + x, 1 - x)))
def_comp(lax.erfc_p, lambda x: 1 - lax.erf(x))
def_comp(lax.rem_p, lambda x, y: x - y * lax.floor(x / y))
def_comp(lax.clamp_p, lambda a, x, b: lax.min(lax.max(a, x), b))


# --- piecewise rules: abs, max, min, reductions ---------------------------------------------

def _abs_rule(primals_in, series_in, **_):
  x, = primals_in
  sign = jnp.where(x < 0, -1, 1).astype(jnp.result_type(x))
  return lax.abs(x), [sign * t for t in series_in[0]]


jet_rules[lax.abs_p] = _abs_rule


def _choose_rule(prim, primals_in, series_in):
  """max/min: the series of the chosen operand; where they tie, the mean of both."""
  x, y = primals_in
  out = prim.bind(x, y)
  wins = x > y if prim is lax.max_p else x < y
  terms = [jnp.where(wins, a, jnp.where(x == y, (a + b) / 2, b))
           for a, b in zip(*series_in)]
  return out, terms


jet_rules[lax.max_p] = functools.partial(_choose_rule, lax.max_p)
jet_rules[lax.min_p] = functools.partial(_choose_rule, lax.min_p)


def _reduce_choose_rule(prim, primals_in, series_in, *, axes, **params):
  """reduce_max/min: the mean of the series over the positions that attain the result."""
  x, = primals_in
  out = prim.bind(x, axes=axes, **params)
  kept = [d for d in range(x.ndim) if d not in axes]
  at = (x == lax.broadcast_in_dim(out, x.shape, kept)).astype(jnp.result_type(x))
  count = jnp.sum(at, axis=axes)
  return out, [jnp.sum(t * at, axis=axes) / count for t in series_in[0]]


jet_rules[lax.reduce_max_p] = functools.partial(_reduce_choose_rule, lax.reduce_max_p)
jet_rules[lax.reduce_min_p] = functools.partial(_reduce_choose_rule, lax.reduce_min_p)


# --- calls ------------------------------------------------------------------------------------

def _call_rule(key: str, primals_in, series_in, **params):
  """A call (``jit``, a custom_jvp/custom_vjp function): its jaxpr, run with jet."""
  closed = params[key]
  jaxpr, consts = (closed.jaxpr, closed.consts) if hasattr(closed, "consts") else (closed, ())
  outs, out_series = jet_jaxpr(jaxpr, consts, primals_in, series_in, len(series_in[0]))
  return outs, out_series


jet_rules[_prims.jit_p] = functools.partial(_call_rule, "jaxpr")
jet_rules[_prims.custom_jvp_call_p] = functools.partial(_call_rule, "call_jaxpr")
jet_rules[_prims.custom_vjp_call_p] = functools.partial(_call_rule, "call_jaxpr")
