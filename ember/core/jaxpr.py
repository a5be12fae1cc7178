"""The IR: a Jaxpr is a typed, first-order program of primitive applications.

    { lambda c1:f32[3]; a:f32[3] b:f32[]. let d:f32[3] = mul a b; e:f32[3] = add d c1 in (e,) }

``constvars`` are bound to ``ClosedJaxpr.consts``; ``invars`` are the arguments; each equation
applies one primitive to variables or literals and binds its results to fresh variables.
Printing follows JAX's format (names a, b, ..., z, ba, bb...; literals as ``1.0:f32[]``).
"""
from __future__ import annotations

import collections
import enum
from typing import Any, NamedTuple

import numpy as np

from ember.core.aval import ShapedArray
from ember.core import pretty as pp

__all__ = ["Var", "DropVar", "Literal", "JaxprEqn", "Jaxpr", "ClosedJaxpr", "pp_jaxpr", "dce",
           "has_effects", "hoist_consts"]


class Var:
  __slots__ = ("aval", "__weakref__")

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"Var({self.aval})"


class DropVar(Var):
  """An output binder whose value nobody reads (printed ``_``)."""
  __slots__ = ()


class Literal:
  """A scalar constant written inline in an equation (``1.0:f32[]``)."""
  __slots__ = ("val", "aval")

  def __init__(self, val, aval: ShapedArray):
    self.val = val
    self.aval = aval

  def __repr__(self):
    return f"Literal({self.val!r})"


def literal_value(lit: "Literal"):
  """A literal's value as an operand: a Python scalar when weakly typed (so it stays weak)."""
  val = lit.val
  if lit.aval.weak_type and not isinstance(val, (bool, int, float, complex)):
    item = np.asarray(val).item()
    kind = lit.aval.dtype.kind
    from ember import dtypes
    py = {"f": float, "c": complex, "i": int}.get(kind)
    if py is not None and dtypes.canonicalize_dtype(py) == lit.aval.dtype:
      return py(item)
  return val


class NameTransform(NamedTuple):
  """A transformation's mark in a name stack: it wraps the scope name after it, as JAX prints
  ``jvp(model)``, ``transpose(jvp(model))``, ``vmap()``."""
  name: str


class NameStack(NamedTuple):
  """The ``named_scope`` names (and transformations) an equation was staged under, outermost
  first. ``str`` joins them by ``/`` as JAX does, each run of transformations wrapping the
  next name: ``(jvp, 'model', 'conv')`` prints ``jvp(model)/conv``."""
  stack: tuple = ()

  def __str__(self):
    parts, pending = [], []
    for entry in self.stack:
      if isinstance(entry, NameTransform):
        pending.append(entry.name)
        continue
      for t in reversed(pending):
        entry = f"{t}({entry})"
      parts.append(entry)
      pending = []
    if pending:
      inner = ""
      for t in reversed(pending):
        inner = f"{t}({inner})"
      parts.append(inner)
    return "/".join(parts)


class SourceInfo(NamedTuple):
  file: str
  line: int
  function: str
  name_stack: NameStack = NameStack()


class JaxprEqn:
  __slots__ = ("primitive", "invars", "outvars", "params", "source_info")

  def __init__(self, primitive, invars, outvars, params, source_info=None):
    self.primitive = primitive
    self.invars = invars
    self.outvars = outvars
    self.params = params
    self.source_info = source_info

  def __repr__(self):
    names = _Names()
    for v in self.outvars:  # named as printed, left to right, as JAX names a lone equation
      names(v)
    return pp.format_doc(_pp_eqn(self, names))


class Jaxpr:
  __slots__ = ("constvars", "invars", "outvars", "eqns", "effects", "debug_info")

  def __init__(self, constvars, invars, outvars, eqns, effects=(), debug_info=None):
    self.constvars = list(constvars)
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.eqns = list(eqns)
    self.effects = effects
    self.debug_info = debug_info

  @property
  def in_avals(self):
    return [v.aval for v in self.invars]

  @property
  def out_avals(self):
    return [v.aval for v in self.outvars]

  def pretty_print(self, width: int = 80) -> str:
    return pp.format_doc(_pp_toplevel(self), width)

  def __str__(self):
    return self.pretty_print()

  __repr__ = __str__


class ClosedJaxpr:
  """A Jaxpr with values for its constvars."""
  __slots__ = ("jaxpr", "consts", "__weakref__")

  def __init__(self, jaxpr: Jaxpr, consts):
    assert len(jaxpr.constvars) == len(consts)
    self.jaxpr = jaxpr
    self.consts = list(consts)

  in_avals = property(lambda self: self.jaxpr.in_avals)
  out_avals = property(lambda self: self.jaxpr.out_avals)
  eqns = property(lambda self: self.jaxpr.eqns)
  # the jaxpr's own parts, read through as JAX's ClosedJaxpr does
  constvars = property(lambda self: self.jaxpr.constvars)
  invars = property(lambda self: self.jaxpr.invars)
  outvars = property(lambda self: self.jaxpr.outvars)
  effects = property(lambda self: self.jaxpr.effects)
  debug_info = property(lambda self: self.jaxpr.debug_info)

  def pretty_print(self, width: int = 80) -> str:
    return self.jaxpr.pretty_print(width)

  def __str__(self):
    return self.pretty_print()

  __repr__ = __str__


# --- printing ---------------------------------------------------------------------------------

class _Names:
  """Assigns a, b, ..., z, ba, bb, ... to variables in order of first appearance."""

  def __init__(self):
    self.names: dict[int, str] = {}
    self.keep: list[Any] = []
    self.count = 0
    self.unused: set[int] = set()  # results nobody reads print as ``_``, as in JAX
    self.shared: dict[int, str] = {}  # sub-jaxprs printed once above, by name
    self.shared_names: set[str] = set()

  def __call__(self, v) -> str:
    if isinstance(v, DropVar):
      return "_"
    key = id(v)
    if key in self.unused:
      return "_"
    name = self.names.get(key)
    if name is None:
      name = _alphabetic(self.count)
      self.count += 1
      while name in self.shared_names:  # a shared jaxpr's name is not reused, as in JAX
        name = _alphabetic(self.count)
        self.count += 1
      self.names[key] = name
      self.keep.append(v)
    return name

  def alias(self, v, name: str) -> None:
    if id(v) not in self.names and not isinstance(v, DropVar):
      self.names[id(v)] = name
      self.keep.append(v)


def _alphabetic(n: int) -> str:
  s = ""
  while not s or n:
    n, i = divmod(n, 26)
    s = chr(97 + i) + s
  return s


def pp_literal(lit: Literal) -> str:
  val = lit.val
  if isinstance(val, np.ndarray):
    val = val.item() if val.shape == () else val
  if isinstance(val, (bool, np.bool_)):
    s = "True" if val else "False"
  elif isinstance(val, (float, np.floating)) or lit.aval.dtype.name.startswith(("float",
                                                                              "bfloat")):
    s = repr(float(val))  # (ml_dtypes' bfloat16 and float8s are not np.floating)
  elif isinstance(val, (complex, np.complexfloating)):
    s = repr(complex(val))
  elif isinstance(val, (int, np.integer)):
    s = str(int(val))
  else:
    s = str(val)
  return f"{s}:{lit.aval.str_short(short_dtypes=True)}"


def _pp_atom(x, names: _Names) -> str:
  return pp_literal(x) if isinstance(x, Literal) else names(x)


def _pp_binder(v, names: _Names) -> str:
  return f"{names(v)}:{v.aval.str_short(short_dtypes=True)}"


def pp_param_value(value, names: _Names):
  if isinstance(value, (ClosedJaxpr, Jaxpr)):
    jaxpr = value.jaxpr if isinstance(value, ClosedJaxpr) else value
    shared = names.shared.get(id(jaxpr))
    return pp.text(shared) if shared is not None else _pp_jaxpr(jaxpr, names)
  if isinstance(value, np.dtype):
    return pp.text(value.name)
  if isinstance(value, type) and issubclass(value, np.generic):
    return pp.text(np.dtype(value).name)
  if isinstance(value, enum.IntEnum):  # its number, unless its class prints a name
    return pp.text(str(value) if "__str__" in vars(type(value)) else str(int(value)))
  if isinstance(value, enum.Enum):
    return pp.text(f"{type(value).__name__}.{value.name}")
  if isinstance(value, tuple) and hasattr(value, "_fields"):  # printed by its repr, as JAX's:
    return pp.text(f"{type(value).__name__}("  # the jaxprs inside each with their own names
                   + ", ".join(f"{k}={v}" for k, v in zip(value._fields, value)) + ")")
  if isinstance(value, tuple) and value and all(isinstance(v, (ClosedJaxpr, Jaxpr)) for v in value):
    items = [pp_param_value(v, names) for v in value]  # one per line unless all fit (cond)
    inner = pp.nest(2, pp.concat(pp.brk(""), pp.join(pp.brk(), items)))
    return pp.group(pp.concat(pp.text("("), inner, pp.brk(""), pp.text(")")))
  if callable(value) and hasattr(value, "__name__"):
    return pp.text(value.__name__)
  return pp.text(str(value))


def _pp_params(params: dict, names: _Names):
  if not params:
    return pp.text("")
  items = [pp.concat(pp.text(f"{k}="), pp_param_value(v, names)) for k, v in params.items()]
  return pp.group(pp.concat(
      pp.text("["), pp.nest(2, pp.concat(pp.brk(""), pp.join(pp.brk(), items))),
      pp.brk(""), pp.text("]")))


def _pp_eqn(eqn: JaxprEqn, names: _Names):
  prim = eqn.primitive
  pp_params = prim.pp_params
  params = pp_params(eqn.params) if pp_params else dict(sorted(eqn.params.items()))
  sub = params.get("jaxpr") if prim.pp_alias_jaxpr else None
  inner = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
  if isinstance(inner, Jaxpr) and id(inner) not in names.shared:  # shared: own names, above
    if len(inner.invars) == len(eqn.invars):
      for iv, ov in zip(inner.invars, eqn.invars):
        if isinstance(ov, Var):
          names.alias(iv, names(ov))
    if len(inner.outvars) == len(eqn.outvars):
      for iv, ov in zip(inner.outvars, eqn.outvars):
        if isinstance(iv, Var) and iv not in inner.invars:
          names.alias(iv, names(ov))
  ins = [_pp_atom(x, names) for x in eqn.invars]
  lhs = [_pp_binder(v, names) for v in eqn.outvars]
  rhs = [pp.text(prim.name), _pp_params(params, names), pp.text(" "), _pp_vars(ins)]
  if not lhs:
    return pp.concat(*rhs)
  return pp.concat(_pp_vars(lhs), pp.text(" = "), *rhs)


def _pp_vars(items: list[str], sep: str = ""):
  """Variables separated by spaces that break (indented by 2) where a line is full, as JAX."""
  return pp.nest(2, pp.group(pp.join(pp.concat(pp.text(sep), pp.group(pp.brk())),
                                     [pp.text(x) for x in items])))


def _mark_unused(jaxpr: Jaxpr, names: _Names) -> None:
  used = {id(v) for eqn in jaxpr.eqns for v in eqn.invars if isinstance(v, Var)}
  used.update(id(v) for v in jaxpr.outvars if isinstance(v, Var))
  for eqn in jaxpr.eqns:
    for v in eqn.outvars:
      if id(v) not in used and id(v) not in names.names:
        names.unused.add(id(v))
        names.keep.append(v)


def _pp_jaxpr(jaxpr: Jaxpr, names: _Names, top: bool = False):
  if top:  # as JAX: only the printed jaxpr's own unused results print as ``_``
    _mark_unused(jaxpr, names)
  consts = _pp_vars([_pp_binder(v, names) for v in jaxpr.constvars])
  args = _pp_vars([_pp_binder(v, names) for v in jaxpr.invars])
  eqns = pp.concat(pp.brk(), pp.join(pp.brk("; "), [_pp_eqn(e, names) for e in jaxpr.eqns]))
  outs = _pp_vars([_pp_atom(v, names) for v in jaxpr.outvars], sep=",")
  close = ",)" if len(jaxpr.outvars) == 1 else ")"
  body = pp.concat(pp.text("{ lambda "), consts, pp.text("; "), args, pp.text(". let"),
                   pp.nest(2, eqns), pp.brk(), pp.text("in ("), outs, pp.text(close))
  return pp.group(pp.concat(pp.nest(2, body), pp.text(" }")))


def sub_jaxprs(params: dict):
  """The jaxprs an equation's params carry (a call's body, cond's branches...), as Jaxprs."""
  for value in params.values():
    for v in value if isinstance(value, (tuple, list)) else (value,):
      if isinstance(v, (ClosedJaxpr, Jaxpr)):
        yield v.jaxpr if isinstance(v, ClosedJaxpr) else v


# Primitives whose equations stay in a jaxpr whether or not their outputs are used.
EFFECTFUL = frozenset({"debug_callback", "debug_print", "io_callback", "dce_sink", "check"})


def has_effects(eqn: JaxprEqn) -> bool:
  """Whether ``eqn`` must run even when nothing reads its outputs (a callback, a check, a
  side-effecting foreign call, or a body holding one)."""
  if eqn.primitive.name in EFFECTFUL or eqn.params.get("has_side_effect"):
    return True
  return any(has_effects(e) for j in sub_jaxprs(eqn.params) for e in j.eqns)


def dce(jaxpr: Jaxpr, used_outputs, keep_inputs, rules=None) -> tuple[Jaxpr, list[bool]]:
  """``jaxpr`` without the equations its ``used_outputs`` do not need, nor the unused outputs,
  nor the inputs nothing reads unless ``keep_inputs`` says to keep them (one flag per input);
  returns it and which inputs are read. ``rules`` maps a primitive to its own
  ``rule(used_outputs, eqn) -> (used_inputs, new_eqn or None)``; other equations go when none of
  their outputs is used and they have no effects."""
  used = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    rule = rules.get(eqn.primitive) if rules else None
    if rule is not None:
      used_in, new_eqn = rule([v in used for v in eqn.outvars], eqn)
    elif any(v in used for v in eqn.outvars) or has_effects(eqn):
      used_in, new_eqn = [True] * len(eqn.invars), eqn
    else:
      used_in, new_eqn = (), None
    if new_eqn is not None:
      kept.append(new_eqn)
    used.update(v for v, u in zip(eqn.invars, used_in) if u and type(v) is Var)
  used_inputs = [v in used for v in jaxpr.invars]
  new = Jaxpr(jaxpr.constvars, [v for v, u, k in zip(jaxpr.invars, used_inputs, keep_inputs)
                                if u or k],
              [v for v, u in zip(jaxpr.outvars, used_outputs) if u], kept[::-1],
              jaxpr.effects, jaxpr.debug_info)
  return new, used_inputs


def _shared_jaxprs(top: Jaxpr) -> list[tuple[str, Jaxpr]]:
  """The sub-jaxprs JAX prints once above ``top`` as ``let name = {...} in``, in order.

  As JAX: a sub-jaxpr is shared when the walk over the nesting meets it more than once (the
  same jitted function called twice) or when it has more than ten equations. Its name is that
  of the ``jit`` calling it (``<lambda>`` prints as ``lambda``), or ``jaxpr``; repeated names
  get a count (``f``, ``f1``...).
  """
  counts: dict[int, int] = {}
  found: dict[int, Jaxpr] = {}
  names: dict[int, str] = {}
  queue = collections.deque([top])
  while queue:
    jaxpr = queue.popleft()
    found.setdefault(id(jaxpr), jaxpr)
    big = jaxpr is not top and len(jaxpr.eqns) > 10
    counts[id(jaxpr)] = counts.get(id(jaxpr), 0) + (2 if big else 1)
    for eqn in jaxpr.eqns:
      # Of ember's call primitives only jit names its jaxpr as JAX's does (custom_jvp_call's
      # name is ember's, for printing); jit is the one whose binders alias the caller's.
      name = eqn.params.get("name") if eqn.primitive.pp_alias_jaxpr else None
      for sub in sub_jaxprs(eqn.params):
        queue.append(sub)
        if name is not None:
          names.setdefault(id(sub), str(name).strip("<>"))
  taken: dict[str, int] = {}
  shared = []
  for key, count in counts.items():
    if count == 1:
      continue
    name = names.get(key, "jaxpr")
    seen = taken.get(name, 0)
    taken[name] = seen + 1
    if seen:
      name += str(seen)
      taken[name] = taken.get(name, 0) + 1
    shared.append((name, found[key]))
  return shared


def _pp_toplevel(jaxpr: Jaxpr):
  names = _Names()
  shared = _shared_jaxprs(jaxpr)
  names.shared = {id(j): name for name, j in shared}
  names.shared_names = {name for name, _ in shared}
  docs = [pp.concat(pp.text(f"let {name} = "), _pp_jaxpr(j, names), pp.text(" in"), pp.brk())
          for name, j in shared]
  return pp.concat(*docs, _pp_jaxpr(jaxpr, names, top=True))


def pp_jaxpr(jaxpr: Jaxpr, width: int = 80) -> str:
  return jaxpr.pretty_print(width)


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """Turn a closed jaxpr's constvars into leading invars; return it and the const values."""
  if not closed.consts:
    return closed, []
  j = closed.jaxpr
  hoisted = Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns, j.effects, j.debug_info)
  return ClosedJaxpr(hoisted, []), list(closed.consts)
