"""Shared checks of the autodiff rule tests: jvp against central finite differences, and vjp
against jvp through the inner-product identity <ct, jvp(t)> == <vjp(ct), t> (float64)."""
import numpy as np

import ember


def as_list(y):
  return list(y) if isinstance(y, (tuple, list)) else [y]


def finite_difference(f, args, tangents, eps=1e-6):
  plus = f(*[a + eps * t for a, t in zip(args, tangents)])
  minus = f(*[a - eps * t for a, t in zip(args, tangents)])
  return [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(as_list(plus),
                                                                      as_list(minus))]


def jvp_of(f, args, tangents, jit):
  if jit:  # one compiled program, rather than one per primitive of the rule
    return ember.jit(lambda a, t: ember.jvp(f, a, t))(tuple(args), tuple(tangents))
  return ember.jvp(f, tuple(args), tuple(tangents))


def pullback_of(f, args, cts, jit):
  if jit:
    return ember.jit(lambda a, c: ember.vjp(f, *a)[1](c))(tuple(args), cts)
  return ember.vjp(f, *args)[1](cts)


def check_jvp(f, args, rng, rtol=1e-6, atol=1e-8, jit=False):
  """ember.jvp of ``f`` at ``args`` along random tangents matches finite differences."""
  tangents = [rng.randn(*np.shape(a)) for a in args]
  y, ty = jvp_of(f, args, tangents, jit)
  for yi, expected in zip(as_list(y), as_list(f(*args))):
    np.testing.assert_allclose(np.asarray(yi), np.asarray(expected), rtol=1e-12)
  for ti, yi, fd in zip(as_list(ty), as_list(y), finite_difference(f, args, tangents)):
    assert ti.dtype == yi.dtype and ti.shape == yi.shape
    np.testing.assert_allclose(np.asarray(ti), fd, rtol=rtol, atol=atol)


def check_vjp(f, args, rng, jit=False):
  """<ct, jvp(t)> == <vjp(ct), t> for random t and ct."""
  tangents = [rng.randn(*np.shape(a)) for a in args]
  y, ty = jvp_of(f, args, tangents, jit)
  cts = [rng.randn(*np.shape(yi)) for yi in as_list(y)]
  ct_in = pullback_of(f, args, type(y)(cts) if isinstance(y, (tuple, list)) else cts[0], jit)
  assert len(ct_in) == len(args)
  for c, a in zip(ct_in, args):
    assert c.shape == a.shape and c.dtype == a.dtype
  lhs = sum(np.vdot(c, np.asarray(t)) for c, t in zip(cts, as_list(ty)))
  rhs = sum(np.vdot(np.asarray(c), t) for c, t in zip(ct_in, tangents))
  np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)
