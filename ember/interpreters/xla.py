"""JAX 0.10.2's ``jax.interpreters.xla``: ``Backend`` (the type of a PJRT client) and
``apply_primitive`` (run one primitive now, compiled alone, as eager operations do).

Left out: ``canonicalize_dtype_handlers``, JAX's table of how Python values are converted to
arrays, which ember does not consult.

Example:
    >>> from ember.interpreters import xla
    >>> xla.Backend.__name__
    'Client'
"""
from jaxlib._jax import Client as Backend  # noqa: F401

from ember.backend import dispatch as _dispatch

__all__ = ["Backend", "apply_primitive"]


def apply_primitive(prim, *args, **params):
  """Run primitive ``prim`` with ``params`` on concrete ``args`` now, compiled on its own (how
  eager operations run), whatever transformation is tracing.

  Example:
      >>> from ember import lax
      >>> from ember.interpreters import xla
      >>> xla.apply_primitive(lax.sin_p, 0.0, accuracy=None)
      Array(0., dtype=float32, weak_type=True)
  """
  return _dispatch.apply_primitive(prim, *args, **params)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
