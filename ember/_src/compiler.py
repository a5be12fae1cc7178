"""``backend_compile_and_load``: the one function every ember compilation calls.

ember's compile paths look it up on this module at each call, so replacing it (as chex's
``restrict_backends`` does with ``jax._src.compiler``) sees or refuses every compilation.
"""
from __future__ import annotations

__all__ = ["backend_compile_and_load"]


def backend_compile_and_load(backend, module, executable_devices, options, host_callbacks=()):
  """Compiles the MLIR ``module`` with the PJRT client ``backend`` for ``executable_devices``
  and loads it; ``host_callbacks`` are the Python functions its custom calls call back.

  Example:
      >>> import ember
      >>> from ember._src import compiler
      >>> seen = []
      >>> inner = compiler.backend_compile_and_load
      >>> def spy(backend, *args, **kwargs):
      ...   seen.append(backend.platform)
      ...   return inner(backend, *args, **kwargs)
      >>> compiler.backend_compile_and_load = spy
      >>> try:
      ...   _ = ember.jit(lambda x: x * 3)(1.0)
      ... finally:
      ...   compiler.backend_compile_and_load = inner
      >>> seen
      ['cpu']
  """
  if host_callbacks:
    return backend.compile_and_load(module, executable_devices, options,
                                    host_callbacks=list(host_callbacks))
  return backend.compile_and_load(module, executable_devices, options)
