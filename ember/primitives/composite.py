"""``composite``: a named operation defined by its decomposition (``lax.composite``).

Params: ``name`` and ``version`` (what a compiler that knows the operation recognises it by),
``attributes`` (the keyword arguments, each as ``(key, leaves, treedef)``) and ``jaxpr`` (the
decomposition, const-free; its consts are the leading operands). It lowers to one
``stablehlo.composite`` whose ``decomposition`` is a private function holding the jaxpr (the
module's ``functions``); XLA inlines it when it does not know the name. ``lower_composite`` is
shared with ``scaled_dot``, which lowers the same way.

As in JAX it has no jvp and no transpose (both raise ``ValueError`` pointing at
``custom_jvp``) and no batching rule.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ember.core.aval import ShapedArray
from ember.core.trace import Primitive
from ember.backend import lowering
from ember.backend.lowering import LoweringContext, Value, dense_attr, element_type

__all__ = ["HashableArray", "composite_p", "lower_composite"]


class HashableArray:
  """A NumPy array kept as a composite attribute: hashed and compared by its contents.

  Example:
      >>> HashableArray(np.arange(2)) == HashableArray(np.arange(2))
      True
  """
  __slots__ = ("val",)

  def __init__(self, val):
    self.val = np.asarray(val)

  def __repr__(self):
    return f"HashableArray({self.val!r})"

  def __hash__(self):
    return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

  def __eq__(self, other):
    return (isinstance(other, HashableArray) and self.val.shape == other.val.shape
            and self.val.dtype == other.val.dtype and np.array_equal(self.val, other.val))


class _TreeDefRepr:
  """A treedef printed as JAX prints one in a jaxpr (``PyTreeDef(*)``)."""
  __slots__ = ("treedef",)

  def __init__(self, treedef):
    self.treedef = treedef

  def __repr__(self):
    text = repr(self.treedef)
    return "PyTreeDef" + text[text.index("("):]


class _Text:
  __slots__ = ("text",)

  def __init__(self, text: str):
    self.text = text

  def __str__(self):
    return self.text


def _composite_pp(params):
  attrs = tuple((k, leaves, _TreeDefRepr(tree)) for k, leaves, tree in params["attributes"])
  return {"attributes": _Text(repr(attrs)), "jaxpr": params["jaxpr"], "name": params["name"],
          "version": params["version"]}


# --- attributes as MLIR text ------------------------------------------------------------------

def _float_attr(x: float) -> str:
  if math.isfinite(x):
    return f"{x!r} : f64" if ("e" in repr(x) or "." in repr(x)) else f"{x!r}.0 : f64"
  return f"0x{np.float64(x).view(np.uint64):016X} : f64"


def _string_attr(s: str) -> str:
  return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}"
                       for c in s) + '"'


def _attr(value, key: str) -> str:
  """``value`` (a composite attribute) as MLIR attribute text."""
  if isinstance(value, (bool, np.bool_)):
    return "true" if value else "false"
  if isinstance(value, int):
    return f"{value} : i64"
  if isinstance(value, float):
    return _float_attr(value)
  if isinstance(value, (str, bytes)):
    return _string_attr(value.decode() if isinstance(value, bytes) else value)
  if isinstance(value, HashableArray):
    value = value.val
  if isinstance(value, (np.ndarray, np.generic)):
    arr = np.asarray(value)
    return dense_attr(arr, ShapedArray(arr.shape, arr.dtype))
  if isinstance(value, np.dtype):
    return element_type(value)
  if isinstance(value, dict):
    return "{" + ", ".join(f"{_key(k)} = {_attr(v, key)}" for k, v in value.items()) + "}"
  if isinstance(value, (list, tuple)):
    return "[" + ", ".join(_attr(v, key) for v in value) + "]"
  raise TypeError(f"composite attribute {key!r}: a value of type {type(value).__name__} cannot "
                  "be an MLIR attribute (use bools, ints, floats, strings, NumPy arrays or "
                  "dtypes, and dicts, lists or tuples of them).")


def _key(k) -> str:
  k = str(k)
  return k if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", k) else _string_attr(k)


def attributes_text(attributes) -> str:
  """The ``composite_attributes`` dictionary of ``(key, leaves, treedef)`` triples (keys whose
  value is None are left out, as JAX leaves them)."""
  items = []
  for k, leaves, tree in attributes:
    value = tree.unflatten(leaves)
    if value is not None:
      items.append(f"{_key(k)} = {_attr(value, k)}")
  return "{" + ", ".join(items) + "}"


# --- lowering ---------------------------------------------------------------------------------

def _symbol(ctx: LoweringContext, name: str) -> str:
  """A module-unique function name for ``name`` (``name``, then ``name_0``, ``name_1``...)."""
  functions = ctx.module_context.setdefault("functions", {})
  base = name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", name) else "composite"
  symbol, i = base, 0
  while symbol in functions:
    symbol, i = f"{base}_{i}", i + 1
  functions[symbol] = None  # reserved; the text follows once the body is lowered
  return symbol


def _function_text(ctx: LoweringContext, symbol: str, closed) -> str:
  body = LoweringContext([], None, "    ")
  body.module_context = ctx.module_context
  args = [Value(f"%arg{i}", a) for i, a in enumerate(closed.in_avals)]
  outs = lowering.lower_jaxpr(body, closed.jaxpr, [], args)
  sig = ", ".join(f"{a.name}: {a.type}" for a in args)
  res = ", ".join(v.type for v in outs)
  ret = (f"    func.return {', '.join(v.name for v in outs)} : {res}" if outs
         else "    func.return")
  lines = "\n".join(body.lines)
  return f"  func.func private @{symbol}({sig}) -> ({res}) {{\n{lines}\n{ret}\n  }}"


def lower_composite(ctx: LoweringContext, name: str, version: int, attrs: str, closed,
                    args) -> list[Value]:
  """Emit ``stablehlo.composite`` named ``name`` whose decomposition is ``closed`` (a
  const-free jaxpr of ``args``); ``attrs`` is its attribute dictionary's text."""
  symbol = _symbol(ctx, name)
  ctx.module_context["functions"][symbol] = _function_text(ctx, symbol, closed)
  fields = [f"name = {_string_attr(name)}", f"decomposition = @{symbol}"]
  if attrs != "{}":
    fields.append(f"composite_attributes = {attrs}")
  if version:
    fields.append(f"version = {int(version)} : i32")
  return ctx.op("stablehlo.composite", list(args), list(ctx.avals_out), ", ".join(fields))


# --- the primitive ----------------------------------------------------------------------------

def _composite_lower(ctx, *args, name, attributes, version, jaxpr):
  return lower_composite(ctx, name, version, attributes_text(attributes), jaxpr, args)


def _composite_jvp(primals, tangents, **params):
  raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to add "
                   "support. See https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _composite_transpose(cts, *args, **params):
  raise ValueError("Transpose rule for composite not implemented. You can use `jax.custom_jvp` "
                   "or `jax.custom_vjp` to add support. See "
                   "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _composite_impl(*args, jaxpr, **_):
  """Eagerly the decomposition runs (so attributes need not be MLIR attributes), as in JAX."""
  from ember.core.eval import eval_jaxpr
  return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


composite_p = Primitive("composite", multiple_results=True)
composite_p.def_rules(abstract_eval=lambda *avals, jaxpr, **_: jaxpr.out_avals,
                      impl=_composite_impl, lower=_composite_lower, jvp=_composite_jvp,
                      transpose=_composite_transpose)
composite_p.def_unsupported("batch", "Batching rule for 'composite' not implemented")
composite_p.def_rules(pp_params=_composite_pp)
