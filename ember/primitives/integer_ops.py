"""Elementwise integer primitives beyond the core set: ``mulhi``.

``mulhi(x, y)`` is the high half of the double-width product of two integers of one dtype (so
``mulhi(x, y) * 2**bits + (x * y)`` is the exact product), lowered to ``chlo.mulhi``. Like the
other integer ops it is piecewise constant: its tangent is a float0 zero. Rank-0 operands
broadcast; batching uses the elementwise broadcasting rule.
"""
from __future__ import annotations

from ember.core.aval import ShapedArray
from ember.core.trace import NOT_LINEAR, Primitive, get_aval
from ember.primitives.elementwise import (INTEGER, _same_dtypes, broadcast_shapes,
                                          dtype_class, hlo_lowering)
from ember.transforms import batching
from ember.transforms.ad_util import Zero, tangent_aval

__all__ = []  # reached through ember.lax


def _mulhi_abstract_eval(x, y):
  for i, a in enumerate((x, y)):
    if dtype_class(a.dtype) not in INTEGER:
      raise TypeError(f"mulhi does not accept dtype {a.dtype.name} at position {i}. Accepted "
                      f"dtypes at position {i} are subtypes of integer.")
  _same_dtypes("mulhi", (x, y), None)
  shape = broadcast_shapes("mulhi", x, y)
  return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _mulhi_jvp(primals, tangents):
  out = mulhi_p.bind(*primals)
  return out, Zero(tangent_aval(get_aval(out)))


mulhi_p = Primitive("mulhi")
mulhi_p.def_rules(abstract_eval=_mulhi_abstract_eval, lower=hlo_lowering("chlo.mulhi"),
                  jvp=_mulhi_jvp)
mulhi_p.def_rules(batch=batching.broadcast_batcher(mulhi_p))


# --- rules these primitives do not have -------------------------------------------------------

for _p in (mulhi_p,):
  _p.def_unsupported("transpose", NOT_LINEAR)
del _p
