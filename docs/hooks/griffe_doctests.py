"""A griffe extension for ember's API reference: docstrings as ember writes them, shown as Markdown.

ember's docstrings are Google style with reST touches: runnable examples are doctest blocks
(``>>>`` lines and their printed output, often under an ``Example:`` heading, sometimes bare),
and names are quoted with roles such as :func:`split`. Markdown shows a doctest block as nested
quotes and does not know the roles, so as each object is loaded, before its docstring is parsed,
this extension fences every doctest block as ``pycon`` code and turns roles into inline code.
The source is left as it is.
"""
import re

import griffe

_REST_ROLE = re.compile(r":(?:func|class|meth|mod|attr|obj|data|exc):`~?([^`]+)`")


def fence_doctests(text: str) -> str:
  """Wraps each doctest block (a ``>>>`` line up to the next blank line) in a pycon fence."""
  out, fence_indent = [], None
  for line in text.splitlines():
    stripped = line.lstrip()
    if fence_indent is None and stripped.startswith(">>>"):
      fence_indent = line[:len(line) - len(stripped)]
      out.append(fence_indent + "```pycon")
    elif fence_indent is not None and not stripped:
      out.append(fence_indent + "```")
      fence_indent = None
    out.append(line)
  if fence_indent is not None:
    out.append(fence_indent + "```")
  return "\n".join(out)


class DoctestExamples(griffe.Extension):
  """Fences doctest blocks and turns reST roles into inline code in every docstring."""

  def on_instance(self, *, obj, **kwargs):
    if obj.docstring is not None:
      obj.docstring.value = _REST_ROLE.sub(r"`\1`", fence_doctests(obj.docstring.value))
