"""``ember.experimental.checkify``: JAX 0.10.2's names, importable; the transform itself is not
implemented.

The error categories are real (``user_checks``, ``nan_checks``... are frozensets of the error
classes, as in JAX), so libraries that name them at import load. ``checkify``, ``check``,
``check_error``, ``debug_check`` and ``init_error`` raise ``NotImplementedError`` when called:
this differs from JAX, as ember cannot yet functionalize checks (see docs/differences.md).

Example:
    >>> from ember.experimental import checkify
    >>> sorted(c.__name__ for c in checkify.all_checks)
    ['DivisionByZeroError', 'FailedCheckError', 'NaNError', 'OOBError']
"""
from __future__ import annotations

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
           "check", "check_error", "checkify", "debug_check", "div_checks", "float_checks",
           "index_checks", "init_error", "nan_checks", "user_checks"]


class JaxException(Exception):
  """The base of the checks' error classes (an ``ErrorCategory`` is one of these classes)."""


class DivisionByZeroError(JaxException):
  """An integer division by zero (``div_checks``)."""


class NaNError(JaxException):
  """A NaN produced by a primitive (``nan_checks``)."""


class OOBError(JaxException):
  """An out-of-bounds index (``index_checks``)."""


class FailedCheckError(JaxException):
  """A ``check`` whose predicate was false (``user_checks``)."""


class JaxRuntimeError(ValueError):
  """What ``check_error`` raises in JAX for a failed check."""


ErrorCategory = type  # a subclass of JaxException, as JAX's ``type[JaxException]``

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


class Error:
  """The error value ``checkify`` returns in JAX; ember never produces one."""


def _unsupported(name: str):
  raise NotImplementedError(
      f"ember.experimental.checkify.{name} is not implemented: ember cannot functionalize "
      "checks yet. Check values outside jit, or return a flag from the jitted function.")


def checkify(f, errors=user_checks):
  """Not implemented: raises ``NotImplementedError``.

  Example:
      >>> from ember.experimental import checkify
      >>> checkify.checkify(abs)
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.experimental.checkify.checkify is not implemented: ember cannot functionalize checks yet. Check values outside jit, or return a flag from the jitted function.
  """
  _unsupported("checkify")


def check(pred, msg, *fmt_args, **fmt_kwargs):
  """Not implemented: raises ``NotImplementedError``.

  Example:
      >>> from ember.experimental import checkify
      >>> checkify.check(True, "never")
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.experimental.checkify.check is not implemented: ember cannot functionalize checks yet. Check values outside jit, or return a flag from the jitted function.
  """
  _unsupported("check")


def debug_check(pred, msg, *fmt_args, **fmt_kwargs):
  """Not implemented: raises ``NotImplementedError``.

  Example:
      >>> from ember.experimental import checkify
      >>> checkify.debug_check(True, "never")
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.experimental.checkify.debug_check is not implemented: ember cannot functionalize checks yet. Check values outside jit, or return a flag from the jitted function.
  """
  _unsupported("debug_check")


def check_error(error):
  """Not implemented: raises ``NotImplementedError``.

  Example:
      >>> from ember.experimental import checkify
      >>> checkify.check_error(None)
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.experimental.checkify.check_error is not implemented: ember cannot functionalize checks yet. Check values outside jit, or return a flag from the jitted function.
  """
  _unsupported("check_error")


def init_error():
  """Not implemented: raises ``NotImplementedError``.

  Example:
      >>> from ember.experimental import checkify
      >>> checkify.init_error()
      Traceback (most recent call last):
      ...
      NotImplementedError: ember.experimental.checkify.init_error is not implemented: ember cannot functionalize checks yet. Check values outside jit, or return a flag from the jitted function.
  """
  _unsupported("init_error")
