"""``ember.export``: functions lowered to StableHLO, serialized, and called again, under the
names of JAX 0.10.2's ``jax.export``.

``export(jit(f))(*args)`` gives an ``Exported``: the function's StableHLO module (a portable
artifact, ``mlir_module_serialized``; ``mlir_module()`` is its text) with its argument and
result structures and abstract values. ``Exported.call`` runs it (eagerly, under ``jit``, under
``grad`` through its exported VJP); ``Exported.serialize(vjp_order=)`` and ``deserialize``
carry it to another process.

Where ember differs from JAX (docs/differences.md): the serialized bytes are ember's own format
(JAX's is a flatbuffer), so ember and JAX cannot read each other's; ember lowers for the CPU
(other platforms only for modules without CPU kernels); shape polymorphism is not supported
(``symbolic_shape`` and the arithmetic and comparison of symbolic dimensions work, but
``export`` and ``ShapeDtypeStruct`` refuse symbolic dimensions with ``NotImplementedError``);
exports over several devices are not supported yet.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember import export
    >>> exp = export.export(ember.jit(lambda x, y: x * y))(jnp.ones(3), 2.0)
    >>> exp.in_avals
    (ShapedArray(float32[3]), ShapedArray(float32[], weak_type=True))
    >>> restored = export.deserialize(exp.serialize(vjp_order=1))
    >>> ember.grad(lambda x: restored.call(x, 2.0).sum())(jnp.ones(3))
    Array([2., 2., 2.], dtype=float32)
"""
from ember.export._exported import (DisabledSafetyCheck, Exported,
                                    maximum_supported_calling_convention_version,
                                    minimum_supported_calling_convention_version)
from ember.export._export import default_export_platform, export
from ember.export._serialization import (deserialize, register_namedtuple_serialization,
                                         register_pytree_node_serialization)
from ember.export._shape_poly import (SymbolicScope, is_symbolic_dim, symbolic_args_specs,
                                      symbolic_shape)

__all__ = ["DisabledSafetyCheck", "Exported", "export", "deserialize",
           "maximum_supported_calling_convention_version",
           "minimum_supported_calling_convention_version", "default_export_platform",
           "symbolic_shape", "symbolic_args_specs", "is_symbolic_dim", "SymbolicScope",
           "register_pytree_node_serialization", "register_namedtuple_serialization"]
