"""``debug.breakpoint``: stop a program where it is and look around in a text debugger.

When ``breakpoint`` is called it records the stack frames above it (leaving out ember's own
unless ``filter_frames=False``): each frame's file, line, source and local variables. Locals
holding traced values become the arguments of a debug callback, so under ``jit`` the debugger
opens each time the program runs and shows their values then (as arrays); under ``vmap`` it
opens once per example. Other locals are shown as they were when the function was traced.

The debugger is JAX's ``jdb`` (prompt ``(jdb) ``), with the same commands and output:

- ``p EXPR`` / ``pp EXPR`` (or just ``EXPR``): evaluate in the current frame's locals and print
  its repr (pretty-printed with ``pp``); an error prints ``*** Error: message``.
- ``u``/``up``, ``d``/``down``: move to the calling / called frame and show where it is.
- ``l``/``list``: show more source around the line; ``w``/``where``/``bt``: the backtrace.
- ``c``/``cont``/``continue``: carry on; ``q``/``quit``/``exit`` (and end of input): exit.

Keyword arguments of ``breakpoint`` other than its own go to the debugger: ``stdin`` and
``stdout`` (file objects) replace the terminal, as in JAX's tests.

Differences from JAX (docs/differences.md): ember has the text debugger only (JAX adds Colab
and web debuggers when those are installed); any ``backend`` name picks it, as JAX does for a
name that is not registered. ``ordered=True`` raises ``NotImplementedError``.

Example:
    >>> import io, ember, ember.numpy as jnp
    >>> def f(x):
    ...   y = x * 2
    ...   ember.debug.breakpoint(stdin=io.StringIO("p y\\nc\\n"), stdout=out)
    ...   return y
    >>> out = io.StringIO()
    >>> _ = ember.jit(f)(jnp.float32(1.5))
    >>> print(out.getvalue().rstrip())
    Entering jdb:
    (jdb) Array(3., dtype=float32)
    (jdb)
"""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import pprint
import sys
import threading
import traceback
from typing import Any

__all__ = ["breakpoint", "DebuggerFrame", "CliDebugger"]


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
  """What the debugger knows of one stack frame (JAX's fields: ``globals`` stays empty).

  Example:
      >>> import sys
      >>> from ember.debugger import DebuggerFrame
      >>> frame = DebuggerFrame.from_frame(sys._getframe())
      >>> frame.lineno > 0, frame.globals
      (True, {})
  """
  filename: str
  locals: dict
  globals: dict
  code_context: Any
  source: list
  lineno: int
  offset: int | None

  @classmethod
  def from_frame(cls, frame) -> "DebuggerFrame":
    """The frame's source (as lines) and where its current line sits in it."""
    lineno = frame.f_lineno
    try:
      lines, start = inspect.getsourcelines(frame)
      source = "".join(lines).split("\n")
      offset = lineno - max(start, 1)
      if offset >= len(source):  # e.g. code from eval(): no usable source
        source, offset = [], None
    except (OSError, TypeError):
      source, offset = [], None
    return cls(frame.f_code.co_filename, dict(frame.f_locals), {}, None, source, lineno,
               offset)


class _CantFlatten:
  __repr__ = lambda self: "<cant_flatten>"


_CANT_FLATTEN = _CantFlatten()


class CliDebugger(cmd.Cmd):
  """The text debugger (``jdb``) over a list of frames, innermost first; ``stdin`` and
  ``stdout`` replace the terminal.

  Example:
      >>> import io, sys
      >>> from ember.debugger import CliDebugger, DebuggerFrame
      >>> a = 41
      >>> frames = [DebuggerFrame.from_frame(sys._getframe())]
      >>> out = io.StringIO()
      >>> CliDebugger(frames, None, stdin=io.StringIO("p a + 1\\nc\\n"), stdout=out).run()
      >>> print(out.getvalue().rstrip())
      Entering jdb:
      (jdb) 42
      (jdb)
  """
  prompt = "(jdb) "

  def __init__(self, frames: list, thread_id, stdin=None, stdout=None,
               completekey: str = "tab"):
    super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
    self.use_rawinput = stdin is None
    self.frames, self.frame_index, self.thread_id = frames, 0, thread_id
    self.intro = "Entering jdb:"

  def _say(self, text: str) -> None:
    print(text, file=self.stdout)

  def evaluate(self, expr: str):
    frame = self.frames[self.frame_index]
    return eval(expr, {}, {**frame.globals, **frame.locals})

  def _show(self, expr: str, render) -> None:
    try:
      self._say(render(self.evaluate(expr)))
    except Exception:
      kind, value = sys.exc_info()[:2]
      self._say("*** " + traceback.format_exception_only(kind, value)[-1].strip())

  def default(self, line):
    self._show(line, repr)

  def do_p(self, arg):
    """p expression
    Evaluate the expression in the current frame and print its repr."""
    self._show(arg, repr)

  def do_pp(self, arg):
    """pp expression
    Evaluate the expression in the current frame and pretty-print it."""
    self._show(arg, pprint.pformat)

  def do_up(self, arg, /):
    """u(p)
    Move up a stack frame (to the caller)."""
    if self.frame_index == len(self.frames) - 1:
      self._say("At topmost frame.")
    else:
      self.frame_index += 1
    self.print_context()
  do_u = do_up

  def do_down(self, arg, /):
    """d(own)
    Move down a stack frame."""
    if self.frame_index == 0:
      self._say("At bottommost frame.")
    else:
      self.frame_index -= 1
    self.print_context()
  do_d = do_down

  def do_list(self, arg):
    """l(ist)
    Show the source around the current line."""
    self.print_context(num_lines=5)
  do_l = do_list

  def do_continue(self, arg):
    """c(ont(inue))
    Continue the program."""
    return True
  do_c = do_cont = do_continue

  def do_quit(self, arg):
    """q(uit) or exit
    Leave the debugger and exit the program."""
    sys.exit(0)
  do_q = do_EOF = do_exit = do_quit

  def do_where(self, arg):
    """w(here)
    Print the stack, most recent frame last ('bt' does the same)."""
    lines = ["Traceback:"]
    for frame in reversed(self.frames):
      lines.append(f'  File "{frame.filename}", line {frame.lineno}')
      lines.append("    <no source>" if frame.offset is None
                   else f"    {frame.source[frame.offset].strip()}")
    self._say("\n".join(lines))
  do_w = do_bt = do_where

  def print_context(self, num_lines: int = 2) -> None:
    frame = self.frames[self.frame_index]
    lines = [f"> {frame.filename}({frame.lineno})"]
    for i, text in enumerate(frame.source):
      if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
        lines.append(f"->  {text}" if i == frame.offset else f"    {text}")
    self._say("\n".join(lines))

  def run(self) -> None:
    while True:
      try:
        self.cmdloop()
        return
      except KeyboardInterrupt:
        print("--KeyboardInterrupt--", file=sys.stdout)


_debug_lock = threading.Lock()


def _stack(filter_frames: bool, num_frames: int | None) -> list:
  """The frames above ``breakpoint``'s caller's call, innermost first."""
  from ember.core.trace import EMBER_DIR
  frames, f = [], sys._getframe(2)
  while f is not None:
    if not (filter_frames and f.f_code.co_filename.startswith(EMBER_DIR)):
      frames.append(DebuggerFrame.from_frame(f))
    f = f.f_back
  return frames if num_frames is None else frames[:num_frames]


def _split_locals(frames: list) -> tuple[list, list]:
  """The traced leaves of the frames' locals (passed to the program's callback) and, per
  frame, per local: its value, or how to rebuild it from the callback's arguments."""
  from ember import pytree
  from ember.core.trace import Tracer
  traced, plans = [], []
  for frame in frames:
    plan = {}
    for name, value in frame.locals.items():
      try:
        leaves, tree = pytree.flatten(value)
      except Exception:
        plan[name] = ("value", _CANT_FLATTEN)
        continue
      if not any(isinstance(x, Tracer) for x in leaves):
        plan[name] = ("value", value)
        continue
      slots = []
      for x in leaves:
        slots.append(("arg", len(traced)) if isinstance(x, Tracer) else ("value", x))
        traced.extend([x] if isinstance(x, Tracer) else [])
      plan[name] = ("tree", (tree, slots))
    plans.append(plan)
  return traced, plans


def _rebuild(frames: list, plans: list, args) -> list:
  from ember import pytree

  def local(kind, what):
    if kind == "value":
      return what
    tree, slots = what
    return pytree.unflatten(tree, [args[x] if k == "arg" else x for k, x in slots])
  return [dataclasses.replace(frame, locals={n: local(*p) for n, p in plan.items()})
          for frame, plan in zip(frames, plans)]


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None, **kwargs):
  """Stop here in the text debugger (``jdb``, see this module's docstring): at once when
  called eagerly, each time the program runs under ``jit``, once per example under ``vmap``.

  Args:
    backend: the debugger to use; ember has one, the text debugger, which any name selects.
    filter_frames: leave ember's own stack frames out.
    num_frames: how many frames (innermost first) to keep; all by default.
    ordered: refused (ember does not order effects); use ``token``.
    token: an array (or pytree of them) returned unchanged: the breakpoint runs once it is
      computed, and is dropped if the result is unused.
    **kwargs: for the debugger: ``stdin`` and ``stdout`` replace the terminal.

  Returns:
    ``token`` when given, else None.

  Example:
      >>> import io, ember, ember.numpy as jnp
      >>> out = io.StringIO()
      >>> ember.debug.breakpoint(stdin=io.StringIO("p 1 + 1\\nc\\n"), stdout=out)
      >>> print(out.getvalue().rstrip())
      Entering jdb:
      (jdb) 2
      (jdb)
  """
  if token is not None and ordered:
    raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
  if ordered:
    raise NotImplementedError("debug.breakpoint(ordered=True) is not supported by ember (it "
                              "threads no tokens to order effects); pass token= instead.")
  frames = _stack(filter_frames, num_frames)
  traced, plans = _split_locals(frames)

  def enter(*args) -> None:
    thread_id = None if threading.current_thread() is threading.main_thread() \
        else threading.get_ident()
    with _debug_lock:  # callbacks from several devices must not share the terminal
      CliDebugger(_rebuild(frames, plans, args), thread_id, **kwargs).run()

  if token is None:
    from ember import debug
    debug.callback(enter, *traced)
    return None
  return _with_token(enter, token, traced)


def _with_token(enter, token, traced):
  """``token`` passed through a pure callback that enters the debugger first."""
  from ember import lax
  from ember.callback import pure_callback

  def run(value, *args):
    enter(*args)
    return value
  token, traced = lax.stop_gradient((token, traced))
  return pure_callback(run, token, token, *traced)
