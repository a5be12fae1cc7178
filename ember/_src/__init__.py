"""The few JAX-private module names (``jax._src.X``) that widely used libraries import.

Only what those libraries touch, with JAX 0.10.2's behaviour: ``compiler.backend_compile_and_load``
(every compilation goes through it, so a library may wrap it, as chex's ``restrict_backends``
does), ``xla_bridge._backends`` (the started backends by platform), ``linear_util`` (the
wrapped functions of ``jax.extend.linear_util``) and ``traceback_util`` (``api_boundary`` and
``register_exclusion``, with which flax hides its own frames as ember hides its). Nothing else of
``jax._src`` exists here: the rest differs from JAX by being absent (see
docs/differences.md).
"""
from ember._src import compiler, linear_util, traceback_util, xla_bridge  # noqa: E402,F401
