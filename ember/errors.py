"""ember.errors: the exception types, as in ``jax.errors``."""
from jaxlib._jax import JaxRuntimeError  # noqa: F401  (XLA's runtime errors, e.g. a donated buffer)

from ember.core.errors import *  # noqa: F401,F403
from ember.core.errors import __all__ as _core_all

from ember.export._shape_poly import InconclusiveDimensionOperation  # noqa: E402,F401
# ember's own: the warning of a jitted function that keeps recompiling (not in jax.errors)
from ember.transforms.cache_misses import RecompileWarning  # noqa: E402,F401


class JaxprTypeError(TypeError):
  """A jaxpr that is not well typed: a variable used before it is defined or defined twice, or an
  equation whose outputs' types are not what its primitive gives for its inputs' types. Raised by
  ``ember.extend.core.check_jaxpr``, as JAX raises it.

  Example:
      >>> import ember
      >>> issubclass(ember.errors.JaxprTypeError, TypeError)
      True
  """


__all__ = [*_core_all, "JaxRuntimeError", "InconclusiveDimensionOperation", "RecompileWarning",
           "JaxprTypeError"]
