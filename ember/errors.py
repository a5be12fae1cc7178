"""ember.errors: the exception types, as in ``jax.errors``."""
from ember.core.errors import *  # noqa: F401,F403
from ember.core.errors import __all__  # noqa: F401
