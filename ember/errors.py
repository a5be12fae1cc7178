"""ember.errors: the exception types, as in ``jax.errors``."""
from jaxlib._jax import JaxRuntimeError  # noqa: F401  (XLA's runtime errors, e.g. a donated buffer)

from ember.core.errors import *  # noqa: F401,F403
from ember.core.errors import __all__ as _core_all

from ember.export._shape_poly import InconclusiveDimensionOperation  # noqa: E402,F401
# ember's own: the warning of a jitted function that keeps recompiling (not in jax.errors)
from ember.transforms.cache_misses import RecompileWarning  # noqa: E402,F401

__all__ = [*_core_all, "JaxRuntimeError", "InconclusiveDimensionOperation", "RecompileWarning"]
