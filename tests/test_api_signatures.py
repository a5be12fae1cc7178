"""Every public JAX 0.10.2 name ember has takes JAX's parameters (jax.numpy and jax.lax have
their own tests: test_numpy_api_surface.py, test_lax_names.py).

The reference is ``tests/data/jax_signatures.json``, written by ``tools/make_surface.py`` under
JAX (with ``tests/data/describe_signatures.py``, as the jax.numpy and jax.lax files are), so this
test needs no JAX. It covers functions and the constructors of classes.

Compatible means that a call JAX accepts binds the same way in ember, and no other call does:
- the same parameters in the same order, of the same kinds (positional-only, positional or
  keyword, ``*args``, keyword-only, ``**kwargs``);
- the same names, except where a caller cannot write the name (positional-only parameters,
  ``*args``, ``**kwargs``);
- a parameter has a default in ember exactly when it has one in JAX, and literal defaults
  (None, numbers, strings, tuples...) are equal; object defaults (functions, classes, sentinels),
  whose reprs name the library, only need to be objects on both sides;
- JAX's parameters named with a leading underscore that have a default are private hooks
  (``clear_backends(_crash=False)``): ember need not take them;
- ember takes a parameter JAX lacks only where ``EXTENSIONS`` lists it, and docs/differences.md
  documents it (an extra argument must not look like JAX's API and do something else).

Names that differ on purpose are in ``SIGNATURE_OK`` (with the reason), names owned by modules
being restructured in ``PENDING``; both lists may only shrink, and a listed name that matches
fails the test. Names ember refuses (``ember._unsupported``) raise when used, so their
signatures are not compared.
"""
import importlib
import inspect
import json
import pathlib
import warnings

import pytest

from ember import _unsupported

ROOT = pathlib.Path(__file__).resolve().parents[1]
_REF = json.loads((ROOT / "tests" / "data" / "jax_signatures.json").read_text())
_SIGNATURES = _REF["signatures"]

# Parameters ember adds to JAX's, as {"module.name": {parameter: the differences.md text naming
# it}}; the page must contain that text. They apply wherever the same ember object stands for
# another JAX name (``jax.experimental.sparse.util.vmap`` is ``ember.vmap``).
EXTENSIONS = {
    "jax.vmap": {"randomness": "randomness="},
}

# Constructors and functions whose parameters differ on purpose, with the reason.
_BUILT_BY_EMBER = "built by ember itself, never by users: its constructor is not API"
SIGNATURE_OK = {
    "jax.stages.Compiled": _BUILT_BY_EMBER + " (jit(f).lower(...).compile())",
    "jax.stages.Lowered": _BUILT_BY_EMBER + " (jit(f).lower(...))",
    "jax.stages.Traced": _BUILT_BY_EMBER + " (jit(f).trace(...))",
    "jax.stages.Wrapped": "JAX's is a typing Protocol, which cannot be instantiated; ember's is "
                          "the ABC its jitted functions register with",
    "jax.experimental.checkify.Error": _BUILT_BY_EMBER + " (checkify's error values)",
    "jax.experimental.sparse.transform.SparseTrace": _BUILT_BY_EMBER + " (sparsify's trace)",
    "jax.interpreters.ad.JVPTrace": _BUILT_BY_EMBER + " (jvp's trace; exported for isinstance)",
    "jax.extend.core.Token": _BUILT_BY_EMBER + " (lax.create_token's value)",
}

# Names owned by modules another change is restructuring (ember/core, ember/transforms,
# ember/primitives, ember/lax) or reworking (ember/backend), with what differs; to be fixed
# there. The list may only shrink.
_PENDING_LAX = "pending: lax restructure"
_PENDING_GPU = "pending: backend rework (GPU support)"
PENDING = {
    "jax.ShapeDtypeStruct": f"{_PENDING_LAX}: manual_axis_type=, is_ref= (ember/core/aval.py)",
    "jax.core.ShapedArray": f"{_PENDING_LAX}: JAX's sharding=, manual_axis_type=, memory_space= "
                            "(keyword-only) for ember's positional vma (ember/core/aval.py)",
    "jax.core.Trace": f"{_PENDING_LAX}: JAX's takes no parent (ember/core/trace.py)",
    "jax.extend.core.Jaxpr": f"{_PENDING_LAX}: effects default () (JAX: frozenset()), no "
                             "is_high= (ember/core/jaxpr.py)",
    "jax.extend.core.JaxprEqn": f"{_PENDING_LAX}: JAX's order is (invars, outvars, primitive, "
                                "params, effs, source_info, ctx) (ember/core/jaxpr.py)",
    "jax.extend.core.Var": f"{_PENDING_LAX}: initial_qdd=, final_qdd= (ember/core/jaxpr.py)",
    "jax.extend.core.set_current_trace": f"{_PENDING_LAX}: check_leaks= (ember/core/trace.py)",
    "jax.dtypes.canonicalize_dtype": f"{_PENDING_LAX}: allow_extended_dtype=False must raise for "
                                     "key dtypes, but ember's core, lax and primitives call "
                                     "dtypes.canonicalize_dtype with them (ember/dtypes.py)",
    "jax.shard_map": f"{_PENDING_LAX}: in_specs defaults to jax.sharding.Infer "
                     "(ember/transforms/shard_map.py)",
    "jax.interpreters.batching.bdim_at_front": f"{_PENDING_LAX}: mesh_axis= "
                                               "(ember/transforms/batching.py)",
    "jax.interpreters.partial_eval.DynamicJaxprTracer": f"{_PENDING_LAX}: JAX's is (trace, aval, "
                                                        "val, line_info=None, parent=None) "
                                                        "(ember/transforms/staging.py)",
    "jax.local_devices": f"{_PENDING_GPU}: host_id= (ember/backend/client.py)",
}


def _compatible_params(params):
  """What a caller sees of a parameter list: ``(name or None, kind, default)`` per parameter,
  with unwritable names and object defaults blurred."""
  out = []
  for name, kind, default in params:
    if name.startswith("_") and default is not None:
      continue  # a private hook of JAX's (ignored on both sides)
    if kind in ("POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD"):
      name = None
    if default is not None and "<" in default:
      default = "<object>"
    out.append((name, kind, default))
  return out


def _params(obj):
  return [(p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default))
          for p in inspect.signature(obj).parameters.values()]


def _ember_module(jax_module: str):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
      return importlib.import_module("ember" + jax_module[len("jax"):])
    except ImportError:
      return None


def _lookup(qualified: str):
  module, _, name = qualified.rpartition(".")
  return getattr(_ember_module(module), name)


def _extension_params(obj) -> dict:
  """The parameters ``EXTENSIONS`` allows ``obj`` beyond JAX's."""
  for qualified, params in EXTENSIONS.items():
    if _lookup(qualified) is obj:
      return params
  return {}


def _without_extensions(obj, ours):
  extra = _extension_params(obj)
  return [p for p in ours if p[0] not in extra]


def _compared():
  """``{"module.name": (ember's object, its params, JAX's params)}`` for every name both have."""
  out = {}
  for module_name, names in _SIGNATURES.items():
    module = _ember_module(module_name)
    if module is None:
      continue
    for name, info in names.items():
      qualified = f"{module_name}.{name}"
      obj = getattr(module, name, None)
      if obj is None or _unsupported.is_unsupported(obj):
        continue
      try:
        ours = _params(obj)
      except (TypeError, ValueError):
        ours = None  # no signature Python can read (a builtin type)
      out[qualified] = (obj, ours, [tuple(p) for p in info["params"]])
  return out


def _mismatches() -> dict[str, str]:
  bad = {}
  for qualified, (obj, ours, theirs) in _compared().items():
    if ours is None:
      bad[qualified] = f"ember's has no signature; jax {theirs}"
      continue
    mine = _without_extensions(obj, ours)
    if _compatible_params(mine) != _compatible_params(theirs):
      bad[qualified] = f"ember {ours} != jax {theirs}"
  return bad


@pytest.fixture(scope="module")
def mismatches():
  return _mismatches()


def test_reference_covers_the_modules_users_import():
  assert {"jax", "jax.random", "jax.nn", "jax.scipy.special", "jax.tree_util",
          "jax.experimental.sparse", "jax.example_libraries.optimizers"} <= set(_SIGNATURES)
  assert "jax.numpy" not in _SIGNATURES  # tests/test_numpy_api_surface.py
  assert len(_compared()) > 1000


def test_signatures_are_compatible(mismatches):
  unexpected = {n: d for n, d in mismatches.items() if n not in SIGNATURE_OK and n not in PENDING}
  assert unexpected == {}, "\n".join(f"{n}: {d}" for n, d in sorted(unexpected.items()))


def test_listed_differences_still_differ(mismatches):
  fixed = sorted((set(SIGNATURE_OK) | set(PENDING)) - set(mismatches))
  assert fixed == [], "these now match JAX: drop them from SIGNATURE_OK / PENDING"


def test_extensions_are_documented():
  page = (ROOT / "docs" / "differences.md").read_text()
  undocumented = [(n, p) for n, params in EXTENSIONS.items() for p, text in params.items()
                  if text not in page]
  assert undocumented == []


def test_compatibility_ignores_what_callers_cannot_see():
  theirs = [("f", "POSITIONAL_ONLY", None), ("kw", "VAR_KEYWORD", None),
            ("_hook", "KEYWORD_ONLY", "None")]
  assert _compatible_params([("g", "POSITIONAL_ONLY", None), ("kwargs", "VAR_KEYWORD", None)]
                            ) == _compatible_params(theirs)
  assert _compatible_params([("x", "POSITIONAL_OR_KEYWORD", "None")]) != _compatible_params(
      [("x", "POSITIONAL_OR_KEYWORD", "<class 'jax.numpy.int32'>")])
  assert _compatible_params([("x", "POSITIONAL_OR_KEYWORD", None)]) != _compatible_params(
      [("y", "POSITIONAL_OR_KEYWORD", None)])
