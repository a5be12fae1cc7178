"""The error types ember raises where JAX raises them (``ember.errors`` re-exports these)."""
from __future__ import annotations

__all__ = [
    "JAXTypeError", "JAXIndexError", "ConcretizationTypeError", "TracerBoolConversionError",
    "TracerIntegerConversionError", "TracerArrayConversionError", "NonConcreteBooleanIndexError",
    "UnexpectedTracerError", "KeyReuseError",
]

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."


class _JAXError:
  """The message, then a line linking JAX's page on the error (as JAX's errors end)."""

  def __init__(self, message: str):
    super().__init__(f"{message}\nSee {_DOCS}{type(self).__name__}")


class JAXTypeError(_JAXError, TypeError):
  """Base class of the TypeErrors about traced values (the tracer conversion errors below, a
  leaked tracer, a reused key).

  Example:
      >>> import ember
      >>> try:
      ...   ember.jit(lambda x: int(x))(1.0)
      ... except ember.errors.JAXTypeError as e:
      ...   print(type(e).__name__)
      ConcretizationTypeError
  """

  def __init__(self, message: str):
    super().__init__(message)


class JAXIndexError(_JAXError, IndexError):
  """Base class of the IndexErrors about traced indices (``NonConcreteBooleanIndexError``).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> try:
      ...   ember.jit(lambda x: x[x > 0])(jnp.arange(3.0))
      ... except ember.errors.JAXIndexError as e:
      ...   print(type(e).__name__)
      NonConcreteBooleanIndexError
  """

  def __init__(self, message: str):
    super().__init__(message)


class ConcretizationTypeError(JAXTypeError):
  """A traced value was used where Python needs a concrete one.

  Example:
      >>> import ember
      >>> ember.jit(lambda x: float(x))(1.0)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.ConcretizationTypeError: Abstract tracer value encountered where ...
  """

  def __init__(self, tracer, context: str = ""):
    aval = getattr(tracer, "aval", None)
    what = f"traced array with shape {_long(aval)}" if aval is not None else str(tracer)
    head = f"Abstract tracer value encountered where concrete value is expected: {what}"
    super().__init__(_lines(head, context, _origin(tracer)) + "\n")  # a blank line, as JAX


class TracerBoolConversionError(ConcretizationTypeError):
  """``bool()`` of a traced array, e.g. ``-x if neg else x`` inside jit.

  Example:
      >>> import ember
      >>> ember.jit(lambda x: x if x > 0 else -x)(1.0)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.TracerBoolConversionError: Attempted boolean conversion of traced ...
  """

  def __init__(self, tracer):
    head = f"Attempted boolean conversion of traced array with shape {_long(tracer.aval)}."
    JAXTypeError.__init__(self, _lines(head, _origin(tracer)))


class TracerIntegerConversionError(JAXTypeError):
  """``int()`` or ``__index__`` of a traced array.

  Example:
      >>> import ember
      >>> ember.jit(lambda n: list(range(n)))(3)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.TracerIntegerConversionError: The __index__() method was called on ...
  """

  def __init__(self, tracer):
    head = f"The __index__() method was called on traced array with shape {_long(tracer.aval)}"
    super().__init__(_lines(head, _origin(tracer)))


class TracerArrayConversionError(JAXTypeError):
  """``np.asarray`` of a traced array.

  Example:
      >>> import ember, numpy as np
      >>> ember.jit(lambda x: np.asarray(x))(1.0)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.TracerArrayConversionError: The numpy.ndarray conversion method ...
  """

  def __init__(self, tracer):
    head = ("The numpy.ndarray conversion method __array__() was called on traced array with "
            f"shape {_long(tracer.aval)}")
    super().__init__(_lines(head, _origin(tracer)))


class NonConcreteBooleanIndexError(JAXIndexError):
  """A boolean mask index whose values are not known while tracing.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> ember.jit(lambda x: x[x > 0])(jnp.arange(3.0))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; ...
  """

  def __init__(self, tracer):
    super().__init__(
        f"Array boolean indices must be concrete; got {_long(tracer.aval)}\n")


class UnexpectedTracerError(JAXTypeError):
  """A tracer escaped the transform that created it (a ``TypeError``, as in JAX).

  Example:
      >>> import ember
      >>> leaked = []
      >>> ember.jit(lambda x: leaked.append(x) or x)(1.0)
      Array(1., dtype=float32, weak_type=True)
      >>> leaked[0] + 1  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function ...
  """

  def __init__(self, msg: str):
    super().__init__(msg)


class KeyReuseError(JAXTypeError):
  """A typed PRNG key was consumed twice (the key reuse checker, ``jax_debug_key_reuse``;
  see ``ember/random/_key_reuse.py``). A ``TypeError``, as in JAX.

  Example:
      >>> import ember
      >>> key = ember.random.key(0)
      >>> with ember.debug_key_reuse(True):
      ...   x = ember.random.normal(key)
      ...   ember.random.uniform(key)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0
      ...
  """

  def __init__(self, message: str):
    super().__init__(message)


def leaked_tracer_message(tracer) -> str:
  """What UnexpectedTracerError says of ``tracer``, which outlived its transformation: its type,
  the function whose trace made it (where known), and how to find the leak."""
  aval = getattr(tracer, "aval", None)
  kind = f"with type {_long(aval)} " if aval is not None else ""
  msg = ("Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
         f"allowing for a reference to an intermediate value {kind}wrapped in a "
         f"{type(tracer).__name__} to escape the scope of the transformation.\nJAX "
         "transformations require that functions explicitly return their outputs, and disallow "
         "saving intermediate values to global state.\n")
  debug = getattr(_made_by(tracer), "debug", None)
  if debug is not None:
    msg += (f"The function being traced when the value leaked was {debug.func_src} traced for "
            f"{debug.traced_for}.\n")
  return msg + ("To catch the leak earlier, try setting the environment variable "
                "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager.")


def _made_by(tracer):
  """The staging trace behind ``tracer`` (itself, or the one its primal or tangent came from)."""
  trace = getattr(tracer, "_trace", None)
  if hasattr(trace, "debug"):
    return trace
  for part in (getattr(tracer, "primal", None), getattr(tracer, "tangent", None)):
    if hasattr(part, "_trace"):
      found = _made_by(part)
      if found is not None:
        return found
  return None


def _long(aval) -> str:
  """``float32[3]``: how JAX's error messages print an abstract value."""
  return aval.str_short(short_dtypes=False) if hasattr(aval, "str_short") else str(aval)


def _lines(*parts: str) -> str:
  """The non-empty ``parts``, one a line."""
  return "\n".join(p for p in parts if p)


def _origin(tracer) -> str:
  explain = getattr(tracer, "_origin_msg", None)
  return explain() if explain is not None else ""
