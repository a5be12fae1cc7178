"""Every public function should show a runnable example (``>>>``) in its docstring.

The examples themselves run as doctests (``pytest --doctest-modules ember``). This test walks
the public API (every public module) and lists the callables whose docstrings have none. Objects
another library defines and ember re-exports (NumPy's abstract scalar types, ml_dtypes'
``bfloat16`` and ``iinfo``, optree's ``PyTreeSpec``, ``typing`` aliases) are skipped: their
docstrings are that library's. The list may only shrink: ``MAX_WITHOUT_EXAMPLE`` is a ratchet, to
be lowered as examples are added, never raised. Run ``pytest -s tests/test_docstrings.py`` to
print the list.
"""
import functools
import types

import ember
import ember.example_libraries.optimizers
import ember.example_libraries.stax
import ember.experimental.shard_map
import ember.lax.linalg
import ember.nn.initializers
import ember.numpy.fft
import ember.numpy.linalg
import ember.scipy.linalg
import ember.scipy.optimize
import ember.scipy.sparse.linalg
import ember.scipy.special
import ember.scipy.stats
import ember.scipy.cluster.vq
import ember.scipy.fft
import ember.scipy.integrate
import ember.scipy.interpolate
import ember.scipy.ndimage
import ember.scipy.signal
import ember.scipy.spatial.transform
import ember.experimental.mesh_utils
import ember.experimental.multihost_utils
import ember.experimental.pjit
import ember.experimental.ode
import ember.experimental.sparse
import ember.experimental.compilation_cache.compilation_cache
import ember.experimental.key_reuse
import ember.experimental.jet
import ember.ref
import ember.image
import ember.extend.backend
import ember.extend.mlir
import ember.interpreters.partial_eval
import ember.interpreters.xla

MODULES = (
    ember, ember.numpy, ember.numpy.linalg, ember.numpy.fft, ember.lax, ember.lax.linalg,
    ember.random, ember.tree_util, ember.tree, ember.flatten_util, ember.dtypes, ember.ops,
    ember.nn, ember.nn.initializers, ember.scipy.special, ember.scipy.linalg, ember.scipy.stats,
    ember.scipy.optimize, ember.scipy.sparse, ember.scipy.sparse.linalg,
    ember.scipy.cluster, ember.scipy.cluster.vq, ember.scipy.fft, ember.scipy.integrate,
    ember.scipy.interpolate, ember.scipy.ndimage, ember.scipy.signal, ember.scipy.spatial,
    ember.scipy.spatial.transform,
    *(getattr(ember.scipy.stats, name) for name in ember.scipy.stats.__all__),
    ember.sharding, ember.debug, ember.debugger, ember.distributed, ember.dlpack, ember.errors, ember.typing,
    ember.test_util, ember.experimental.shard_map, ember.example_libraries.optimizers,
    ember.example_libraries.stax,
    ember.custom_derivatives, ember.custom_batching, ember.stages, ember.ad_checkpoint,
    ember.monitoring, ember.profiler, ember.experimental.mesh_utils,
    ember.experimental.multihost_utils, ember.experimental.pjit,
    ember.image, ember.experimental.ode, ember.experimental.sparse,
    ember.experimental.compilation_cache.compilation_cache,
    ember.experimental.key_reuse,
    ember.export, ember.ffi,
    ember.extend.backend, ember.extend.mlir, ember.interpreters.partial_eval,
    ember.interpreters.xla,
    ember.experimental.jet, ember.ref,
)
MAX_WITHOUT_EXAMPLE = 0


def public_names(module):
  names = getattr(module, "__all__", None)
  if names is None:
    names = [name for name in dir(module) if not name.startswith("_")]
  return names


def defined_by_ember(obj) -> bool:
  """Whether ember defines ``obj`` (a ``functools.partial`` counts as its function's)."""
  if isinstance(obj, functools.partial):
    obj = obj.func
  return (getattr(obj, "__module__", None) or "").split(".")[0] == "ember"


def callables_without_example():
  missing = []
  for module in MODULES:
    for name in public_names(module):
      obj = getattr(module, name)
      if (callable(obj) and not isinstance(obj, types.ModuleType) and defined_by_ember(obj)
          and ">>>" not in (obj.__doc__ or "")):
        missing.append(f"{module.__name__}.{name}")
  return missing


def test_public_callables_have_examples():
  missing = callables_without_example()
  print(f"{len(missing)} public callables without a >>> example:", *missing, sep="\n  ")
  assert len(missing) <= MAX_WITHOUT_EXAMPLE, (
      f"{len(missing)} public callables lack a >>> example (at most {MAX_WITHOUT_EXAMPLE}): "
      "add one to the new function's docstring.")
