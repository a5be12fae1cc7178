"""A small Wadler/Lindig-style pretty printer, used to print jaxprs the way JAX does.

A document is text, a break (a space or nothing when its group fits the line, a newline plus the
current indentation when it does not), a nest (more indentation for the breaks inside), a group
or a concatenation.

Example:
    >>> doc = group(concat(text("f["), nest(2, concat(brk(""), text("a=1"), brk(), text("b=2"))),
    ...                    brk(""), text("]")))
    >>> format_doc(doc, width=80)
    'f[a=1 b=2]'
"""
from __future__ import annotations

__all__ = ["text", "brk", "nest", "group", "concat", "join", "format_doc"]

_TEXT, _BREAK, _NEST, _GROUP, _CONCAT = range(5)


def text(s: str):
  return (_TEXT, s)


def brk(sep: str = " "):
  return (_BREAK, sep)


def nest(n: int, doc):
  return (_NEST, n, doc)


def group(doc):
  return (_GROUP, doc)


def concat(*docs):
  return (_CONCAT, docs)


def join(sep, docs):
  out = []
  for i, d in enumerate(docs):
    if i:
      out.append(sep)
    out.append(d)
  return (_CONCAT, tuple(out))


def _flat_width(doc, limit: int) -> int:
  """Width of ``doc`` printed flat, stopping early once it exceeds ``limit``."""
  total = 0
  stack = [doc]
  while stack:
    d = stack.pop()
    kind = d[0]
    if kind == _TEXT:
      if "\n" in d[1]:
        return limit + 1
      total += len(d[1])
    elif kind == _BREAK:
      total += len(d[1])
    elif kind == _NEST:
      stack.append(d[2])
    elif kind == _GROUP:
      stack.append(d[1])
    else:
      stack.extend(reversed(d[1]))
    if total > limit:
      return total
  return total


def format_doc(doc, width: int = 80) -> str:
  out: list[str] = []
  col = 0
  stack = [(0, False, doc)]  # (indent, flat, doc)
  while stack:
    indent, flat, d = stack.pop()
    kind = d[0]
    if kind == _TEXT:
      out.append(d[1])
      col += len(d[1])
    elif kind == _BREAK:
      if flat:
        out.append(d[1])
        col += len(d[1])
      else:
        out.append("\n" + " " * indent)
        col = indent
    elif kind == _NEST:
      stack.append((indent + d[1], flat, d[2]))
    elif kind == _GROUP:
      fits = flat or _flat_width(d[1], width - col) <= width - col
      stack.append((indent, fits, d[1]))
    else:
      for child in reversed(d[1]):
        stack.append((indent, flat, child))
  return "".join(out)
