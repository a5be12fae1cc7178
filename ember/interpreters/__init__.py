"""``ember.interpreters``: JAX's registries for a user-defined primitive's rules.

A primitive made with ``ember.extend.core.Primitive`` gets its jvp and transpose rules from
``ember.interpreters.ad`` (``defjvp``, ``deflinear``, ``deflinear2``, ``primitive_jvps``,
``primitive_transposes``), its batching rule from ``ember.interpreters.batching``
(``primitive_batchers``, ``defvectorized``, ``defbroadcasting``) and its lowering from
``ember.interpreters.mlir`` (``lower_fun``), under JAX 0.10.2's names. Each registry stores the
rule on the primitive itself, where ember's transforms read it. ``partial_eval`` traces wrapped
functions to jaxprs and eliminates dead code; ``xla`` runs one primitive now.
"""
from ember.interpreters import ad, batching, mlir, partial_eval, xla  # noqa: F401

__all__ = ["ad", "batching", "mlir", "partial_eval", "xla"]
