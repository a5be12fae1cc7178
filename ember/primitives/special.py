"""Special-function primitives: ``zeta`` (Hurwitz zeta) and ``regularized_incomplete_beta``.

Both are elementwise over operands of one floating dtype, sharing the elementwise family's shape
and dtype rules (rank-0 operands broadcast) and its batching rule. ``zeta`` lowers to CHLO's
``chlo.zeta``; the incomplete beta function has no single StableHLO op and lowers through
``lower_fun`` to a continued fraction evaluated in lax (see ``_betainc_impl``).

Derivatives follow JAX: zeta has none (JAX defines none), betainc's is defined only with respect
to ``x`` (the beta density), and asking for ``a`` or ``b`` raises JAX's ValueError. polygamma,
the other two-argument special function, lives with digamma in ``elementwise.py``.
"""
from __future__ import annotations

import numpy as np

from ember import dtypes
from ember.core.trace import NOT_LINEAR, Primitive
from ember.primitives.elementwise import (FLOAT, _defjvp, broadcast_shapes, broadcast_tangent,
                                          hlo_lowering, lax, naryop_abstract_eval)
from ember.primitives.lower_fun import lower_fun
from ember.transforms import batching

__all__ = []  # primitives are reached through ember.lax

# --- zeta -------------------------------------------------------------------------------------

zeta_p = Primitive("zeta")
zeta_p.def_rules(abstract_eval=naryop_abstract_eval("zeta", FLOAT), lower=hlo_lowering("chlo.zeta"),
                 batch=batching.broadcast_batcher(zeta_p))
zeta_p.def_unsupported("jvp", "JAX defines no derivative of zeta; stop its gradient with "
                       "lax.stop_gradient")

# --- regularized_incomplete_beta --------------------------------------------------------------

_BETAINC_STEPS = 200  # pairs of continued-fraction terms; converges well before for a, b < 1e4


def _betainc_fraction(a, b, x):
  """The continued fraction of I_x(a, b) (modified Lentz), accurate for x < (a + 1) / (a + b + 2).

  Returns ``h`` with I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * h.
  """
  dt = x.aval.dtype
  c = lambda v: np.asarray(v, dt)
  tiny = c(np.finfo(dt).tiny * 16)

  def guard(v):
    return lax.select(lax.lt(lax.abs(v), tiny), lax.full_like(v, tiny), v)

  def step(num, state):
    cc, d, h = state
    d = lax.div(c(1), guard(lax.add(c(1), lax.mul(num, d))))
    cc = guard(lax.add(c(1), lax.div(num, cc)))
    return cc, d, lax.mul(h, lax.mul(d, cc))

  def body(m, state):
    m = lax._convert_element_type(m, dt)
    a2m = lax.add(a, lax.mul(c(2), m))
    even = lax.div(lax.mul(lax.mul(m, lax.sub(b, m)), x),
                   lax.mul(lax.sub(a2m, c(1)), a2m))
    odd = lax.neg(lax.div(lax.mul(lax.mul(lax.add(a, m), lax.add(lax.add(a, b), m)), x),
                          lax.mul(a2m, lax.add(a2m, c(1)))))
    return step(odd, step(even, state))

  d0 = lax.div(c(1), guard(lax.sub(c(1), lax.div(lax.mul(lax.add(a, b), x),
                                                  lax.add(a, c(1))))))
  init = (lax.full_like(x, 1), d0, d0)
  _, _, h = lax.fori_loop(1, _BETAINC_STEPS, body, init)
  return h


def _betainc_impl(a, b, x):
  """I_x(a, b) in lax: the continued fraction on whichever of (a, b, x) and (b, a, 1 - x) it
  converges fast for, NaN outside the domain, and the limits at x in {0, 1}, a = 0 or b = 0."""
  dt = x.aval.dtype
  if dt in (np.float16, dtypes.bfloat16):  # in float32, as JAX computes it
    up = [lax._convert_element_type(v, np.float32) for v in (a, b, x)]
    return lax._convert_element_type(_betainc_impl(*up), dt)
  shape = broadcast_shapes("regularized_incomplete_beta", a.aval, b.aval, x.aval)
  a, b, x = (broadcast_tangent(v, shape) for v in (a, b, x))  # size-1 dimensions stretch
  c = lambda v: np.asarray(v, dt)
  flip = lax.gt(x, lax.div(lax.add(a, c(1)), lax.add(lax.add(a, b), c(2))))
  aa, bb = lax.select(flip, b, a), lax.select(flip, a, b)
  xx = lax.select(flip, lax.sub(c(1), x), x)
  safe_x = lax.clamp(c(np.finfo(dt).tiny), xx, c(1 - np.finfo(dt).epsneg))
  log_front = lax.sub(lax.add(lax.mul(aa, lax.log(safe_x)), lax.mul(bb, lax.log1p(
      lax.neg(safe_x)))), lax.add(lax.log(aa), _lbeta(aa, bb)))
  part = lax.mul(lax.exp(log_front), _betainc_fraction(aa, bb, safe_x))
  out = lax.select(flip, lax.sub(c(1), part), part)
  out = lax.select(lax.eq(x, c(0)), lax.full_like(x, 0), out)
  out = lax.select(lax.eq(x, c(1)), lax.full_like(x, 1), out)
  out = lax.select(lax.eq(a, c(0)), lax.full_like(x, 1), out)
  out = lax.select(lax.eq(b, c(0)), lax.full_like(x, 0), out)
  bad = [lax.lt(a, c(0)), lax.lt(b, c(0)), lax.lt(x, c(0)), lax.gt(x, c(1)),
         lax.bitwise_and(lax.eq(a, c(0)), lax.eq(b, c(0)))]
  for cond in bad:
    out = lax.select(cond, lax.full_like(x, np.nan), out)
  return out


def _lbeta(a, b):
  return lax.sub(lax.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(lax.add(a, b)))


def _betainc_ab_jvp(g, a, b, x):
  raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_x_jvp(g, a, b, x):
  """The beta density x^(a-1) (1-x)^(b-1) / B(a, b) times ``g``."""
  one = 1.0  # weak: the density is as weakly typed as the operands
  log_density = lax.sub(lax.add(lax.mul(lax.sub(a, one), lax.log(x)),
                                lax.mul(lax.sub(b, one), lax.log1p(lax.neg(x)))), _lbeta(a, b))
  return lax.mul(g, lax.exp(log_density))


regularized_incomplete_beta_p = Primitive("regularized_incomplete_beta")
regularized_incomplete_beta_p.def_rules(
    abstract_eval=naryop_abstract_eval("regularized_incomplete_beta", FLOAT),
    lower=lower_fun(_betainc_impl),
    batch=batching.broadcast_batcher(regularized_incomplete_beta_p))
_defjvp(regularized_incomplete_beta_p, _betainc_ab_jvp, _betainc_ab_jvp, _betainc_x_jvp)


# --- rules these primitives do not have -------------------------------------------------------

for _p in (zeta_p, regularized_incomplete_beta_p):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
