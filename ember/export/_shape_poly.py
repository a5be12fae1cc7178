"""Symbolic dimensions: ``symbolic_shape("b, 2*b + 1")`` and the arithmetic on them.

A dimension expression (``_DimExpr``) is a polynomial with integer coefficients over *factors*:
dimension variables (``b``) and the operations ``floordiv``, ``mod``, ``max`` and ``min`` of
expressions. It is kept normalized, so equal polynomials compare equal and a constant result
is a plain ``int``; terms are ordered as JAX orders them (larger terms first, by size, then
names), so expressions print as in JAX (``2*b + 1``, ``a^2*b``, ``- a + 3``).

Comparisons (``>=``, ``>``, ``<=``, ``<``) are decided from bounds: every variable is at least
1, and a ``SymbolicScope``'s constraints (``"b >= 4"``, ``"a <= b"``, ``"c == 2*d"``) narrow
them; when the bounds do not decide, ``InconclusiveDimensionOperation`` is raised, as in JAX.
ember's procedure uses interval bounds plus one constraint at a time, which decides the common
cases (JAX's decision procedure combines constraints further).

ember's ``export`` does not support shape polymorphism yet: the expressions can be made,
printed and compared, but ``ShapeDtypeStruct`` and ``export`` refuse symbolic dimensions with
``NotImplementedError`` (see docs/differences.md).
"""
from __future__ import annotations

import functools
import inspect
import io
import math
import operator
import os
import tokenize
from collections.abc import Sequence
from typing import Any

__all__ = ["InconclusiveDimensionOperation", "SymbolicScope", "symbolic_shape",
           "symbolic_args_specs", "is_symbolic_dim"]

_INCONCLUSIVE_HELP = (
    "This error arises for comparison operations with shapes that\nare non-constant, and the "
    "result of the operation cannot be represented as\na boolean value for all values of the "
    "symbolic dimensions involved.\n\nPlease see https://docs.jax.dev/en/latest/export/"
    "shape_poly.html#comparison-of-symbolic-dimensions-is-partially-supported\nfor more details")


class InconclusiveDimensionOperation(Exception):
  """A comparison or operation on symbolic dimensions whose result depends on their values.

  Example:
      >>> from ember.export import symbolic_shape
      >>> b, = symbolic_shape("b")
      >>> try:
      ...   b >= 2
      ... except InconclusiveDimensionOperation as e:
      ...   print(str(e).splitlines()[0])
      Symbolic dimension comparison 'b' >= '2' is inconclusive.
  """


def _cmp(x, y) -> int:
  return (x > y) - (x < y)


def _cmp_seq(s1, s2, elem_cmp) -> int:
  for a, b in zip(s1, s2):
    c = elem_cmp(a, b)
    if c:
      return c
  return _cmp(len(s1), len(s2))


# --- factors, terms, expressions ------------------------------------------------------------------

class _Factor:
  """A variable, or an operation (floordiv, mod, max, min) of two expressions."""
  __slots__ = ("var", "operation", "operands", "size")

  def __init__(self, var: str | None = None, operation: str | None = None, operands=()):
    self.var, self.operation, self.operands = var, operation, tuple(operands)
    self.size = 1 if var is not None else 1 + sum(_size(o) for o in self.operands)

  def __str__(self):
    if self.var is not None:
      return self.var
    return f"{self.operation}({', '.join(str(o) for o in self.operands)})"

  def key(self) -> tuple:
    return (self.var, self.operation, tuple(_hashable(o) for o in self.operands))

  def cmp(self, other: "_Factor") -> int:
    c = _cmp(self.size, other.size)
    if c:
      return c
    if self.var is not None or other.var is not None:
      return _cmp(self.var or "", other.var or "")
    return _cmp(self.operation, other.operation) or _cmp_seq(
        self.operands, other.operands, lambda a, b: _as_expr(a, None).cmp(_as_expr(b, None)))


def _term_size(factors) -> int:
  return sum(1 + e * f.size for f, e in factors)


def _term_cmp(t1, t2) -> int:
  """Terms are tuples of (factor, exponent), largest factor first; () is the constant 1."""
  c = _cmp(_term_size(t1), _term_size(t2))
  if c:
    return c
  return _cmp_seq(t1, t2, lambda a, b: a[0].cmp(b[0]) or _cmp(a[1], b[1]))


def _term_key(term) -> tuple:
  return tuple((f.key(), e) for f, e in term)


def _term_str(term) -> str:
  ordered = sorted(term, key=_Sortable)
  return "*".join(f"{f}^{e}" if e != 1 else str(f) for f, e in ordered)


class _Sortable:
  """A factor pair as a sort key (ascending by ``_Factor.cmp``)."""
  __slots__ = ("pair",)

  def __init__(self, pair):
    self.pair = pair

  def __lt__(self, other):
    return self.pair[0].cmp(other.pair[0]) < 0


def _mul_terms(t1, t2) -> tuple:
  exps: dict = {}
  factors: dict = {}
  for f, e in t1 + t2:
    k = f.key()
    factors[k] = f
    exps[k] = exps.get(k, 0) + e
  pairs = [(factors[k], e) for k, e in exps.items()]
  return _sorted_desc(pairs, lambda a, b: a[0].cmp(b[0]))


def _sorted_desc(items, cmp):
  return tuple(sorted(items, key=functools.cmp_to_key(cmp), reverse=True))


class _DimExpr:
  """A symbolic dimension: a polynomial over dimension variables (see the module's docstring).

  Example:
      >>> from ember.export import symbolic_shape
      >>> a, b = symbolic_shape("a, b")
      >>> 2 * a + b * a - 1, (a + 1) * (a - 1), (6 * a) // 3
      (a*b + 2*a - 1, a^2 - 1, 2*a)
  """
  __array_priority__ = 1000
  __slots__ = ("_terms", "_scope", "_hash")

  def __init__(self, terms: dict, scope: "SymbolicScope"):
    # terms: term-key -> (term, coefficient), no zero coefficients
    self._terms = terms
    self._scope = scope
    self._hash = None

  @property
  def scope(self) -> "SymbolicScope":
    return self._scope

  # -- structure
  def _sorted(self) -> tuple:
    pairs = [(t, c) for t, c in self._terms.values()]
    return _sorted_desc(pairs, lambda a, b: _term_cmp(a[0], b[0]) or _cmp(a[1], b[1]))

  def size(self) -> int:
    return sum(1 + abs(c) * _term_size(t) for t, c in self._terms.values()) or 1

  def cmp(self, other: "_DimExpr") -> int:
    c = _cmp(self.size(), other.size())
    if c:
      return c
    return _cmp_seq(self._sorted(), other._sorted(),
                    lambda a, b: _term_cmp(a[0], b[0]) or _cmp(a[1], b[1]))

  def _key(self) -> tuple:
    return tuple(sorted((_term_key(t), c) for t, c in self._terms.values()))

  def get_vars(self) -> set[str]:
    out: set[str] = set()
    for term, _ in self._terms.values():
      for f, _ in term:
        if f.var is not None:
          out.add(f.var)
        for o in f.operands:
          if isinstance(o, _DimExpr):
            out |= o.get_vars()
    return out

  def __str__(self):
    parts = []
    for term, c in self._sorted():
      sign = "+" if c > 0 else "-"
      if not term:
        parts.append(f"{sign} {abs(c)}")
      elif abs(c) == 1:
        parts.append(f"{sign} {_term_str(term)}")
      else:
        parts.append(f"{sign} {abs(c)}*{_term_str(term)}")
    text = " ".join(parts) or "0"
    return text[2:] if text.startswith("+ ") else text
  __repr__ = __str__

  def __hash__(self):
    if self._hash is None:
      self._hash = hash((self._key(), id(self._scope)))
    return self._hash

  # -- arithmetic
  def _combine(self, other, k: int) -> Any:
    other = _as_expr(other, self._scope, "for linear combination")
    if other is NotImplemented:
      return NotImplemented
    terms = dict(self._terms)
    for key, (t, c) in other._terms.items():
      c0 = terms.get(key, (t, 0))[1] + k * c
      if c0:
        terms[key] = (t, c0)
      else:
        terms.pop(key, None)
    return _normalize(terms, self._scope)

  def __add__(self, other):
    return self._combine(other, 1)

  def __radd__(self, other):
    return self._combine(other, 1)

  def __sub__(self, other):
    return self._combine(other, -1)

  def __rsub__(self, other):
    neg = self * -1
    return neg + other if isinstance(neg, _DimExpr) else other + neg

  def __neg__(self):
    return self * -1

  def __mul__(self, other):
    other = _as_expr(other, self._scope, "for multiplication")
    if other is NotImplemented:
      return NotImplemented
    terms: dict = {}
    for t1, c1 in self._terms.values():
      for t2, c2 in other._terms.values():
        t = _mul_terms(t1, t2)
        key = _term_key(t)
        c = terms.get(key, (t, 0))[1] + c1 * c2
        if c:
          terms[key] = (t, c)
        else:
          terms.pop(key, None)
    return _normalize(terms, self._scope)
  __rmul__ = __mul__

  def __pow__(self, power: int):
    power = operator.index(power)
    if power < 0:
      raise InconclusiveDimensionOperation(f"Symbolic dimension cannot be raised to negative "
                                           f"powers: {self} ** {power}.")
    out: Any = 1
    for _ in range(power):
      out = out * self
    return out

  def __floordiv__(self, divisor):
    return self.__divmod__(divisor)[0]

  def __rfloordiv__(self, dividend):
    return _divmod(dividend, self, self._scope)[0]

  def __mod__(self, divisor):
    return self.__divmod__(divisor)[1]

  def __rmod__(self, dividend):
    return _divmod(dividend, self, self._scope)[1]

  def __divmod__(self, divisor):
    return _divmod(self, divisor, self._scope)

  def __rdivmod__(self, dividend):
    return _divmod(dividend, self, self._scope)

  def max(self, other):
    return _max_min("max", self, other, self._scope)

  def rmax(self, other):
    return _max_min("max", other, self, self._scope)

  def min(self, other):
    return _max_min("min", self, other, self._scope)

  def rmin(self, other):
    return _max_min("min", other, self, self._scope)

  def __truediv__(self, other):
    return _as_value_error()

  __rtruediv__ = __truediv__

  # -- comparisons
  def __eq__(self, other):
    if isinstance(other, _DimExpr):
      if other._scope is not self._scope:
        return False
    elif not _is_int(other):
      return False
    diff = self - other
    return isinstance(diff, int) and diff == 0

  def __ne__(self, other):
    return not self.__eq__(other)

  def __ge__(self, other):
    return _decide(self, other, ">=")

  def __gt__(self, other):
    return _decide(self, other, ">")

  def __le__(self, other):
    return _decide(self, other, "<=")

  def __lt__(self, other):
    return _decide(self, other, "<")

  def __bool__(self):
    return self != 0

  def __int__(self):
    raise InconclusiveDimensionOperation(
        f"Symbolic dimension '{self}' used in a context that requires a constant\n"
        + _INCONCLUSIVE_HELP)


_DimExpr.__name__ = _DimExpr.__qualname__ = "_DimExpr"


def _is_int(x) -> bool:
  import numpy as np
  return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _as_value_error():
  raise NotImplementedError("Evaluation rule for 'dim_as_value' is not implemented. It seems "
                            "that you are using shape polymorphism outside jax.export.")


def _hashable(x):
  return x._key() if isinstance(x, _DimExpr) else x


def _size(x) -> int:
  return x.size() if isinstance(x, _DimExpr) else 1


def _constant_terms(k: int) -> dict:
  return {(): ((), k)} if k else {}


def _as_expr(x, scope, when: str = "") -> Any:
  """``x`` (an int or an expression of ``scope``) as an expression."""
  if isinstance(x, _DimExpr):
    if scope is not None and x._scope is not scope:
      raise ValueError(f"Invalid mixing of symbolic scopes {when}.\nExpected  scope {scope}\n"
                       f"and found for '{x}' (unknown) scope {x._scope}\nSee https://docs.jax."
                       "dev/en/latest/export/shape_poly.html#user-specified-symbolic-"
                       "constraints.")
    return x
  import numpy as np
  if isinstance(x, (int, np.integer)):
    return _DimExpr(_constant_terms(operator.index(x)), scope)
  _as_value_error()


def _normalize(terms: dict, scope) -> Any:
  """The expression of ``terms``, or its int when it is constant."""
  if not terms:
    return 0
  if len(terms) == 1 and () in terms:
    return terms[()][1]
  return _DimExpr(terms, scope)


def _factor_expr(factor: _Factor, scope) -> Any:
  term = ((factor, 1),)
  return _normalize({_term_key(term): (term, 1)}, scope)


def _var(name: str, scope: "SymbolicScope") -> Any:
  """The variable ``name`` in ``scope`` (or what the scope's equality constraints make it)."""
  replaced = scope._substitutions.get(name)
  return replaced if replaced is not None else _factor_expr(_Factor(var=name), scope)


def _divmod(dividend, divisor, scope):
  if not isinstance(divisor, _DimExpr) and operator.index(divisor) == 0:
    raise ZeroDivisionError("integer division or modulo by zero")
  if not isinstance(dividend, _DimExpr) and not isinstance(divisor, _DimExpr):
    return divmod(dividend, divisor)
  exact = _exact_quotient(_as_expr(dividend, scope), _as_expr(divisor, scope))
  if exact is not None:
    return exact, 0
  return (_factor_expr(_Factor(operation="floordiv", operands=(dividend, divisor)), scope),
          _factor_expr(_Factor(operation="mod", operands=(dividend, divisor)), scope))


def _exact_quotient(dividend: _DimExpr, divisor: _DimExpr):
  """``dividend / divisor`` when ``divisor`` is one term dividing every term, else None."""
  if len(divisor._terms) != 1:
    return None
  (d_term, d_coeff), = divisor._terms.values()
  d_exps = {f.key(): e for f, e in d_term}
  out: dict = {}
  for term, c in dividend._terms.values():
    if c % d_coeff:
      return None
    exps = {f.key(): (f, e) for f, e in term}
    for k, e in d_exps.items():
      if exps.get(k, (None, 0))[1] < e:
        return None
    rest = tuple((f, e - d_exps.get(k, 0)) for k, (f, e) in exps.items() if e > d_exps.get(k, 0))
    rest = _sorted_desc(rest, lambda a, b: a[0].cmp(b[0]))
    out[_term_key(rest)] = (rest, c // d_coeff)
  return _normalize(out, dividend._scope)


def _max_min(op: str, a, b, scope):
  """``max(a, b)``/``min(a, b)``: one of them when comparing them decides it, else a factor."""
  for x, y in ((a, b), (b, a)):
    try:
      x_ge_y = _decide(x, y, ">=")
    except InconclusiveDimensionOperation:
      continue
    return (x if x_ge_y else y) if op == "max" else (y if x_ge_y else x)
  return _factor_expr(_Factor(operation=op, operands=(a, b)), scope)


# --- bounds and decisions -------------------------------------------------------------------------

_INF = math.inf


def _imul(x, y):
  def m(p, q):
    return 0 if p == 0 or q == 0 else p * q
  products = [m(p, q) for p in x for q in y]
  return (min(products), max(products))


def _factor_bounds(f: _Factor, scope) -> tuple:
  if f.var is not None:
    return scope._var_bounds(f.var)
  a, b = (_bounds(o, scope) for o in f.operands)
  if f.operation == "max":
    return (max(a[0], b[0]), max(a[1], b[1]))
  if f.operation == "min":
    return (min(a[0], b[0]), min(a[1], b[1]))
  if isinstance(f.operands[1], int) and f.operands[1] > 0:
    k = f.operands[1]
    if f.operation == "mod":
      return (0, k - 1)
    return (math.floor(a[0] / k) if a[0] != -_INF else -_INF,
            math.floor(a[1] / k) if a[1] != _INF else _INF)
  return (-_INF, _INF)


def _interval(x, scope) -> tuple:
  """Bounds of ``x`` by interval arithmetic over its factors' bounds."""
  if not isinstance(x, _DimExpr):
    return (x, x)
  lo = hi = 0
  for term, c in x._terms.values():
    t = (1, 1)
    for f, e in term:
      fb = _factor_bounds(f, scope)
      for _ in range(e):
        t = _imul(t, fb)
    t = _imul(t, (c, c))
    lo, hi = lo + t[0], hi + t[1]
  return (lo, hi)


def _bounds(x, scope) -> tuple:
  """Bounds of ``x``, tightened by each constraint ``e >= 0`` of the scope in turn."""
  lo, hi = _interval(x, scope)
  if isinstance(x, _DimExpr):
    for e in scope._nonnegative:
      lo = max(lo, _interval(x - e, scope)[0])
      hi = min(hi, _interval(x + e, scope)[1])
  return lo, hi


def _decide(a, b, op: str) -> bool:
  scope = (a if isinstance(a, _DimExpr) else b)._scope
  bb = _as_expr(b, scope, "for comparison")
  aa = _as_expr(a, scope, "for comparison")
  if bb is NotImplemented or aa is NotImplemented:
    raise TypeError(f"'{op}' not supported between {type(a).__name__} and {type(b).__name__}")
  diff = aa - bb  # decide diff >= 0 (or > 0), flipping for <= and <
  if op in ("<=", "<"):
    diff = -diff
  strict = op in (">", "<")
  lo, hi = _bounds(diff, scope) if isinstance(diff, _DimExpr) else (diff, diff)
  if (lo > 0) if strict else (lo >= 0):
    return True
  if (hi <= 0) if strict else (hi < 0):
    return False
  constraints = scope._constraints_text()
  raise InconclusiveDimensionOperation(
      f"Symbolic dimension comparison '{a}' {op} '{b}' is inconclusive.\n{constraints}"
      + _INCONCLUSIVE_HELP)


# --- scopes ---------------------------------------------------------------------------------------

def _caller_location() -> str:
  """``file:line:col (function)`` of the first frame outside this package."""
  here = os.path.dirname(os.path.abspath(__file__))
  frame = inspect.currentframe()
  while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
    frame = frame.f_back
  if frame is None:
    return "(unknown)"
  info = inspect.getframeinfo(frame, context=0)
  col = getattr(getattr(info, "positions", None), "col_offset", None)
  where = f"{info.filename}:{info.lineno}" + (f":{col}" if col is not None else "")
  return f"{where} ({info.function})"


class SymbolicScope:
  """The scope of a set of dimension variables and the constraints on them.

  Expressions of different scopes do not mix. A constraint is ``"e1 >= e2"``, ``"e1 <= e2"``
  or ``"e1 == e2"`` (the left side a term times a coefficient; it is replaced by the right
  side wherever it appears).

  Example:
      >>> from ember.export import SymbolicScope, symbolic_shape
      >>> scope = SymbolicScope(["a >= 4"])
      >>> a, = symbolic_shape("a", scope=scope)
      >>> a >= 3, a < 4
      (True, False)
  """

  def __init__(self, constraints_str: Sequence[str] = ()):
    if isinstance(constraints_str, str) or not isinstance(constraints_str, Sequence):
      raise ValueError("The symbolic constraints should be a sequence of strings. Got "
                       f"{constraints_str!r}")
    self._location = _caller_location()
    self._constraints_str = tuple(constraints_str)
    self._substitutions: dict[str, Any] = {}
    self._nonnegative: list = []
    for c in self._constraints_str:
      self._add_constraint(c)

  def _add_constraint(self, text: str) -> None:
    for op in ("==", ">=", "<="):
      if op in text:
        lhs_text, rhs_text = text.split(op, 1)
        break
    else:
      raise ValueError("Constraint parsing error: must contain one of '==' or '>=' or '<='")
    lhs = _parse_expr(lhs_text, text, self)
    rhs = _parse_expr(rhs_text, text, self)
    if op == "==":
      self._add_equality(lhs, rhs)
    else:
      diff = lhs - rhs if op == ">=" else rhs - lhs
      if isinstance(diff, _DimExpr):
        self._nonnegative.append(diff)

  def _add_equality(self, lhs, rhs) -> None:
    single = isinstance(lhs, _DimExpr) and len(lhs._terms) == 1
    term, coeff = next(iter(lhs._terms.values())) if single else ((), 0)
    if not single or not term or coeff != 1 or len(term) != 1 or term[0][1] != 1:
      if single and term:  # k * term == rhs: bounds only
        self._nonnegative += [lhs - rhs, rhs - lhs] if isinstance(lhs - rhs, _DimExpr) else []
        return
      raise ValueError("Invalid equality constraint: {e1} == {e2}. The left-hand-side must be "
                       "of the form `term * coefficient`.")
    factor = term[0][0]
    if factor.var is not None:
      self._substitutions[factor.var] = rhs
    else:
      self._nonnegative += [lhs - rhs, rhs - lhs]

  def _var_bounds(self, var: str) -> tuple:
    lo, hi = 1, _INF
    for e in self._nonnegative:  # a constraint k*var + c >= 0 bounds var alone
      if len(e._terms) > 2 or not all(len(t) <= 1 for t, _ in e._terms.values()):
        continue
      pairs = [(t, c) for t, c in e._terms.values() if t]
      if len(pairs) != 1 or pairs[0][0][0][0].var != var or pairs[0][0][0][1] != 1:
        continue
      k, c = pairs[0][1], e._terms.get((), ((), 0))[1]
      if k > 0:
        lo = max(lo, math.ceil(-c / k))
      else:
        hi = min(hi, math.floor(c / -k))
    return lo, hi

  def _constraints_text(self) -> str:
    return f"Using symbolic scope {self}\n" if self._constraints_str else ""

  def __str__(self):
    text = f"{id(self)} created at {self._location}"
    if self._constraints_str:
      text += " with constraints:\n" + "\n".join(f"  {c}" for c in self._constraints_str)
    return text
  __repr__ = __str__


# --- parsing --------------------------------------------------------------------------------------

class _ParseError(Exception):
  pass


class _Parser:
  """A recursive-descent parser of shape specs over Python's tokens."""

  def __init__(self, text: str, scope: SymbolicScope, like=None):
    self.text = text
    self.scope = scope
    self.like = like
    self.tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                   if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT,
                                     tokenize.DEDENT)]
    self.i = 0
    self.dim = 0

  # -- tokens
  def peek(self):
    return self.tokens[self.i]

  def kind(self) -> str:
    t = self.peek()
    return tokenize.tok_name[t.exact_type]

  def offset(self) -> int:
    t = self.peek()
    lines = self.text.splitlines(keepends=True)
    row, col = t.start
    return sum(len(l) for l in lines[:row - 1]) + col

  def fail(self, msg: str):
    where = self.offset() if self.i < len(self.tokens) else len(self.text)
    raise _ParseError(f"in dimension {self.dim}: {msg}. Parsed '{self.text[:where]}', "
                      f"remaining '{self.text[where:]}'")

  def expect(self, *kinds: str):
    if self.kind() not in kinds:
      self.fail(f"expecting one of {{{', '.join(kinds)}}} but found {self.kind()}")
    tok = self.peek()
    self.i += 1
    return tok

  # -- grammar
  def shape(self) -> tuple:
    if self.kind() == "LPAR":  # a tuple's parentheses
      self.i += 1
      dims = self.dims(end="RPAR")
      self.expect("RPAR")
    else:
      dims = self.dims(end="ENDMARKER")
    self.expect("ENDMARKER")
    return dims

  def dims(self, end: str) -> tuple:
    out: list = []
    while self.kind() != end:
      if self.kind() == "ELLIPSIS":
        out.extend(self.ellipsis())
        if self.kind() != end:
          self.expect(end)
        break
      out.append(self.dimension())
      self.dim += 1
      if self.kind() != end:
        self.expect("COMMA")
    return tuple(out)

  def ellipsis(self) -> list:
    if self.like is None:
      self.fail("spec contains ... but no 'like' shape was given")
    self.i += 1
    rest = list(self.like[self.dim:])
    if any(d is None for d in rest):
      self.i -= 1
      self.dim += 1
      self.fail(f"unexpected placeholder for unknown dimension; like={self.like}")
    self.dim += len(rest)
    return rest

  def dimension(self):
    if self.kind() == "NAME" and self.peek().string == "_":
      if self.like is None:
        self.fail("spec contains ... but no 'like' shape was given")
      known = self.like[self.dim] if self.dim < len(self.like) else None
      if known is None:
        self.fail(f"unexpected placeholder for unknown dimension; like={self.like}")
      self.i += 1
      return known
    start = self.i
    e = self.expr()
    if self.like is not None and self.dim < len(self.like):
      known = self.like[self.dim]
      if known is not None and not isinstance(e, _DimExpr) and e != known:
        self.i = start + 1
        self.fail(f"different size {e} for known dimension; like={self.like}")
    return e

  def expr(self):
    if self.kind() == "MINUS":
      self.i += 1
      acc = -self.term()
    else:
      acc = self.term()
    while self.kind() in ("PLUS", "MINUS"):
      sign = 1 if self.expect("PLUS", "MINUS").string == "+" else -1
      acc = acc + sign * self.term()
    return acc

  def term(self):
    acc = self.power()
    while self.kind() == "STAR":
      self.i += 1
      acc = acc * self.power()
    return acc

  def power(self):
    base = self.atom()
    if self.kind() == "CIRCUMFLEX":
      self.i += 1
      base = base ** self.integer()
    return base

  def integer(self) -> int:
    tok = self.expect("NUMBER")
    try:
      return int(tok.string)
    except ValueError:
      self.i -= 1
      self.fail(f"expecting integer, found {tok.string}")

  def atom(self):
    kind = self.kind()
    if kind == "NUMBER":
      return self.integer()
    if kind == "MINUS":
      self.i += 1
      return -self.atom()
    tok = self.expect("NAME", "MINUS", "NUMBER")
    if tok.string in ("floordiv", "mod", "max", "min") and self.kind() == "LPAR":
      self.i += 1
      a = self.expr()
      self.expect("COMMA")
      b = self.expr()
      self.expect("RPAR")
      # kept as written (not simplified), as JAX's parser does
      return _factor_expr(_Factor(operation=tok.string, operands=(a, b)), self.scope)
    if self.kind() not in ("STAR", "PLUS", "MINUS", "COMMA", "RPAR", "ENDMARKER", "CIRCUMFLEX"):
      self.fail(f"expecting one of {{STAR}} but found {self.kind()}")
    return _var(tok.string, self.scope)


def _parse_expr(text: str, constraint: str, scope: SymbolicScope):
  parser = _Parser(text.strip(), scope)
  try:
    e = parser.expr()
    parser.expect("ENDMARKER")
  except (_ParseError, tokenize.TokenError) as err:
    raise ValueError(f"syntax error in symbolic constraint {constraint!r}: {err}.") from None
  return e


# --- the public functions -------------------------------------------------------------------------

def is_symbolic_dim(p) -> bool:
  """Whether ``p`` is a symbolic dimension (rather than an int).

  Example:
      >>> from ember.export import is_symbolic_dim, symbolic_shape
      >>> is_symbolic_dim(symbolic_shape("b")[0]), is_symbolic_dim(3)
      (True, False)
  """
  return isinstance(p, _DimExpr)


def symbolic_shape(shape_spec: str | None, *, constraints: Sequence[str] = (),
                   scope: SymbolicScope | None = None,
                   like: Sequence[int | None] | None = None) -> tuple:
  """A shape of symbolic dimensions parsed from ``shape_spec``, e.g. ``"b, 2*b + 1, 3"``.

  Dimensions are integer polynomials of variables with ``floordiv``, ``mod``, ``max`` and
  ``min``; ``...`` and ``_`` take the dimensions of ``like`` (None there: unknown). The
  variables belong to ``scope`` (a new one, with ``constraints``, when not given).

  Example:
      >>> from ember.export import symbolic_shape
      >>> symbolic_shape("b, 2*b + 1")
      (b, 2*b + 1)
      >>> symbolic_shape("b, ...", like=(None, 3, 4))
      (b, 3, 4)
  """
  if scope is not None and constraints:
    raise ValueError("Cannot specify both a `scope` and `constraints`.")
  if scope is None:
    scope = SymbolicScope(constraints)
  if shape_spec is None:
    shape_spec = "..."
  if not isinstance(shape_spec, str):
    raise ValueError(f"polymorphic shape spec should be None or a string. Found {shape_spec}.")
  parser = _Parser(shape_spec, scope, tuple(like) if like is not None else None)
  try:
    return parser.shape()
  except (_ParseError, tokenize.TokenError) as err:
    spec = repr(shape_spec) if shape_spec != "..." or like is None else "None"
    raise ValueError(f"syntax error in symbolic shape {spec} {err}.") from None


def symbolic_args_specs(args, shapes_specs, constraints: Sequence[str] = (),
                        scope: SymbolicScope | None = None):
  """``ShapeDtypeStruct``s for ``args`` (a pytree of arrays) with the shapes of
  ``shapes_specs`` (a spec, None for the argument's own shape, or a pytree prefix of such).

  ember's ``ShapeDtypeStruct`` cannot hold symbolic dimensions yet, so specs with variables
  raise ``NotImplementedError``; concrete specs work.

  Example:
      >>> import numpy as np
      >>> from ember.export import symbolic_args_specs
      >>> symbolic_args_specs((np.ones((2, 3), np.float32),), "2, _")
      (ShapeDtypeStruct(shape=(2, 3), dtype=float32),)
  """
  from ember import pytree
  from ember.core.aval import ShapeDtypeStruct
  from ember import dtypes
  if scope is not None and constraints:
    raise ValueError("Cannot specify both a `scope` and `constraints`.")
  if scope is None:
    scope = SymbolicScope(constraints)
  leaves, tree = pytree.flatten(args)
  is_leaf = lambda x: x is None  # noqa: E731
  try:
    specs = pytree.broadcast_prefix(shapes_specs, args, is_leaf=is_leaf)
  except ValueError:
    msg = pytree._structure_error(shapes_specs, args, (), "export.symbolic_args_specs "
                                  "shapes_specs", is_leaf)
    raise ValueError(msg or f"shapes_specs {shapes_specs!r} is not a pytree prefix of the "
                     "arguments.") from None
  out = []
  for leaf, spec in zip(leaves, specs, strict=True):
    shape = tuple(getattr(leaf, "shape", ()))
    dtype = dtypes.canonicalize_dtype(getattr(leaf, "dtype", None) or dtypes.result_type(leaf))
    dims = shape if spec is None else symbolic_shape(spec, scope=scope, like=shape)
    out.append(ShapeDtypeStruct(dims, dtype))
  return pytree.unflatten(tree, out)
