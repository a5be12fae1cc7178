"""JAX 0.10.2's ``jax.extend.mlir``: jaxlib's StableHLO utilities, the same functions JAX
exports (converting HLO to StableHLO, serializing a module as a portable artifact and back,
refining a module's polymorphic shapes).

Left out: ``lower_with_sharding_in_types``, a helper for JAX's own lowering rules (it takes
JAX's lowering context, which ember's lowering does not have).

Example:
    >>> import ember
    >>> from ember.extend import mlir
    >>> text = ember.jit(lambda x: x + 1).lower(1.0).as_text()
    >>> type(mlir.serialize_portable_artifact(text, "1.0.0")).__name__
    'bytes'
"""
from jaxlib._jax.mlir import (  # noqa: F401
    deserialize_portable_artifact, hlo_to_stablehlo, refine_polymorphic_shapes,
    serialize_portable_artifact)

__all__ = ["deserialize_portable_artifact", "hlo_to_stablehlo", "refine_polymorphic_shapes",
           "serialize_portable_artifact"]


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
