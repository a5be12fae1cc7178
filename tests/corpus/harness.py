"""The differential corpus: small programs in JAX's spelling, run once under JAX 0.10.2 to make
goldens and under ember in the test suite.

The programs never import a framework themselves: they take ``jax``, ``jnp`` and ``lax`` from
``framework()`` (and ``submodule("example_libraries.optimizers")``...) in this module, which ``use`` points at
ember in the test suite and at JAX only in the separate process that makes the goldens
(``tools/make_corpus_goldens.py`` runs this file with JAX's Python), so no test process ever
loads JAX.

A program is a function of no arguments in a module under ``programs/``, decorated with
``@program``. Whatever it returns, prints and warns, or the exception it raises, is turned into a
record of what a user can observe: for arrays their type, dtype, weak type, shape and values; for
containers their kind, key order and contents; strings (printed jaxprs, reprs) as text. The same
harness runs under both frameworks, so the record is made the same way on both sides.

    python tests/corpus/harness.py --framework jax --out DIR programs/autodiff.py ...

``tools/make_corpus_goldens.py`` runs that with JAX's Python and stores the goldens in
``goldens/``; ``tests/test_corpus.py`` compares ember's records with them (``compare``).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import io
import json
import math
import os
import re
import sys
import warnings
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))

# The framework the programs run on (set by ``use``): its top module, numpy and lax.
jax: Any = None
jnp: Any = None
lax: Any = None


def use(framework: str) -> None:
  """Run the programs on ``framework`` ("ember" in the tests; "jax" only for the goldens)."""
  global jax, jnp, lax
  jax = importlib.import_module(framework)
  jnp = importlib.import_module(framework + ".numpy")
  lax = importlib.import_module(framework + ".lax")


def framework() -> tuple:
  """The framework's ``(jax, jnp, lax)``, as programs name them."""
  return jax, jnp, lax


def submodule(name: str):
  """The framework's module ``name`` (as ``"example_libraries.optimizers"``)."""
  return importlib.import_module(f"{jax.__name__}.{name}")

# Config options a program may change; the runner puts them back after every program.
RESTORED_OPTIONS = ("jax_enable_x64", "jax_debug_nans", "jax_debug_infs", "jax_disable_jit",
                    "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion",
                    "jax_default_matmul_precision", "jax_default_prng_impl")

# Default tolerances by dtype name: (rtol, atol).
TOLERANCES = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float32": (1e-5, 1e-6),
              "complex64": (1e-5, 1e-6), "float64": (1e-12, 1e-13), "complex128": (1e-12, 1e-13)}


@dataclasses.dataclass
class Program:
  fn: Callable[[], Any]
  name: str
  x64: bool = False
  rtol: float | None = None
  atol: float | None = None
  phrases: tuple[str, ...] | None = None   # key phrases an error message must contain
  exact_message: bool = False              # the error message must equal JAX's


_registry: list[Program] = []


def program(fn=None, *, x64: bool = False, rtol: float | None = None, atol: float | None = None,
            phrases=None, exact_message: bool = False):
  """Register ``fn`` as a corpus program (usable bare or with options)."""
  def register(f):
    _registry.append(Program(f, f.__name__, x64, rtol, atol,
                             tuple(phrases) if phrases is not None else None, exact_message))
    return f
  return register(fn) if fn is not None else register


# --- describing what a user sees -------------------------------------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _scrub(text: str) -> str:
  """``text`` without what varies between runs: object addresses, and the checkout's directory
  (a message naming a program's file names it relative to tests/corpus)."""
  return _ADDRESS.sub("", text).replace(HERE + os.sep, "")


def _plain(x) -> Any:
  """A JSON-safe scalar: floats as numbers or 'nan'/'inf'/'-inf', complex as [re, im]."""
  if isinstance(x, complex):
    return [_plain(x.real), _plain(x.imag)]
  if isinstance(x, float):
    if math.isnan(x):
      return "nan"
    if math.isinf(x):
      return "inf" if x > 0 else "-inf"
  return x


def _values(arr) -> Any:
  import numpy as np
  a = np.asarray(arr)
  if a.dtype.name == "bfloat16" or a.dtype.kind == "V" or a.dtype.name.startswith("float8"):
    a = a.astype(np.float32)
  flat = [_plain(v) for v in a.ravel().tolist()]
  return flat


def _is_key_array(x) -> bool:
  return "key<" in str(getattr(x, "dtype", ""))


def describe(obj) -> Any:
  """The record of ``obj``: a JSON-able tree of everything a user can observe of it."""
  import numpy as np
  if isinstance(obj, str):
    return {"kind": "str", "value": _scrub(obj)}
  if obj is None or isinstance(obj, bool):
    return {"kind": type(obj).__name__, "value": obj}
  if isinstance(obj, (int, float, complex)) and type(obj) in (int, float, complex):
    return {"kind": type(obj).__name__, "value": _plain(obj)}
  if isinstance(obj, np.ndarray):
    return {"kind": "ndarray", "dtype": str(obj.dtype), "shape": list(obj.shape),
            "value": _values(obj)}
  if isinstance(obj, np.generic):
    return {"kind": "npscalar", "type": type(obj).__name__, "dtype": str(obj.dtype),
            "value": _values(obj)}
  if _is_key_array(obj):
    return {"kind": "keyarray", "dtype": str(obj.dtype), "shape": list(obj.shape),
            "value": _values(jax.random.key_data(obj))}
  if hasattr(obj, "__array__") and hasattr(obj, "dtype") and hasattr(obj, "weak_type"):
    return {"kind": "Array", "dtype": str(obj.dtype), "shape": list(obj.shape),
            "weak_type": bool(obj.weak_type), "value": _values(obj)}
  if isinstance(obj, tuple) and hasattr(obj, "_fields"):
    return {"kind": "namedtuple", "type": type(obj).__name__,
            "items": [[f, describe(v)] for f, v in zip(obj._fields, obj)]}
  if isinstance(obj, (tuple, list)):
    return {"kind": type(obj).__name__, "items": [describe(v) for v in obj]}
  if isinstance(obj, dict):
    return {"kind": "dict", "items": [[repr(k), describe(v)] for k, v in obj.items()]}
  if isinstance(obj, (int, float, complex)):  # subclasses (e.g. IntEnum): value and type
    value = obj if isinstance(obj, complex) else float(obj)
    return {"kind": "number", "type": type(obj).__name__, "value": _plain(value)}
  if isinstance(obj, type):
    return {"kind": "type", "value": f"{obj.__module__.split('.')[0]}:{obj.__qualname__}"}
  if dataclasses.is_dataclass(obj):
    return {"kind": "dataclass", "type": type(obj).__name__,
            "items": [[f.name, describe(getattr(obj, f.name))] for f in dataclasses.fields(obj)]}
  return {"kind": "object", "type": type(obj).__name__, "repr": _scrub(repr(obj))}


def run(prog: Program) -> dict:
  """Run one program; the record of its result (or error), printed text and warnings."""
  saved = {}
  for name in RESTORED_OPTIONS:
    try:
      saved[name] = getattr(jax.config, name)
    except AttributeError:
      pass
  out = io.StringIO()
  record: dict[str, Any] = {}
  try:
    if prog.x64:
      jax.config.update("jax_enable_x64", True)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
      warnings.simplefilter("always")
      try:
        result = prog.fn()
        record["result"] = describe(result)
      except Exception as e:  # the error is what the user observes
        record["error"] = {"type": type(e).__name__, "message": _scrub(str(e))}
    record["warnings"] = [[w.category.__name__, _scrub(str(w.message))] for w in caught]
  finally:
    for name, value in saved.items():
      if getattr(jax.config, name) != value:
        jax.config.update(name, value)
  record["stdout"] = _scrub(out.getvalue())
  return record


def load(path: str) -> list[Program]:
  """Import a program module from its file; its programs in definition order."""
  name = "corpus_" + os.path.splitext(os.path.basename(path))[0]
  del _registry[:]
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module
  spec.loader.exec_module(module)
  progs = list(_registry)
  del _registry[:]
  names = [p.name for p in progs]
  dup = {n for n in names if names.count(n) > 1}
  if dup:
    raise ValueError(f"{path}: programs defined twice: {sorted(dup)}")
  return progs


# --- comparing a record with its golden -----------------------------------------------------

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _words(text: str) -> set[str]:
  return set(_WORD.findall(text))


def _key_text(message: str) -> str:
  """The part of JAX's message that carries its meaning: its first line, up to 160 chars."""
  line = message.strip().split("\n", 1)[0]
  return line[:160]


def _message_matches(golden: str, got: str, prog: Program) -> str | None:
  if prog.exact_message:
    return None if golden == got else f"message {got!r} != JAX's {golden!r}"
  if prog.phrases is not None:
    missing = [p for p in prog.phrases if p not in got]
    return None if not missing else f"message {got!r} lacks {missing} (JAX: {golden!r})"
  want = _words(_key_text(golden))
  if not want:
    return None
  have = _words(got)
  if len(want & have) / len(want) >= 0.6:
    return None
  return f"message {got!r} shares too few words with JAX's {golden!r}"


def _tolerance(dtype: str, prog: Program) -> tuple[float, float]:
  rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
  return (prog.rtol if prog.rtol is not None else rtol,
          prog.atol if prog.atol is not None else atol)


def _close(want, got, rtol: float, atol: float) -> bool:
  if len(want) != len(got):
    return False
  for w, g in zip(want, got):
    if isinstance(w, list) or isinstance(g, list):  # complex as [re, im]
      if not (isinstance(w, list) and isinstance(g, list) and _close(w, g, rtol, atol)):
        return False
      continue
    if isinstance(w, str) or isinstance(g, str):  # nan / inf
      if w != g:
        return False
      continue
    if isinstance(w, bool) or isinstance(g, bool):
      if w != g:
        return False
      continue
    if abs(w - g) > atol + rtol * abs(w):
      return False
  return True


def _compare_desc(want, got, path: str, prog: Program, diffs: list[str]) -> None:
  if want.get("kind") != got.get("kind"):
    diffs.append(f"{path}: {got.get('kind')} where JAX gives {want.get('kind')} "
                 f"(JAX: {_brief(want)}; ember: {_brief(got)})")
    return
  kind = want["kind"]
  for field in ("type", "dtype", "shape", "weak_type"):
    if want.get(field) != got.get(field):
      diffs.append(f"{path}: {field} {got.get(field)!r} where JAX gives {want.get(field)!r}")
  if "items" in want:
    wi, gi = want["items"], got["items"]
    if len(wi) != len(gi):
      diffs.append(f"{path}: {len(gi)} items where JAX gives {len(wi)}")
      return
    for i, (w, g) in enumerate(zip(wi, gi)):
      if kind in ("dict", "namedtuple", "dataclass"):
        if w[0] != g[0]:
          diffs.append(f"{path}: key {i} is {g[0]} where JAX gives {w[0]} (order or name)")
        _compare_desc(w[1], g[1], f"{path}[{w[0]}]", prog, diffs)
      else:
        _compare_desc(w, g, f"{path}[{i}]", prog, diffs)
    return
  if "value" in want:
    if kind in ("Array", "ndarray", "npscalar", "keyarray") or kind in ("float", "complex"):
      dtype = want.get("dtype", "float64" if kind == "float" else "complex128")
      rtol, atol = _tolerance(dtype, prog)
      if kind in ("float", "complex"):
        rtol, atol = (prog.rtol or 1e-6), (prog.atol or 1e-7)
      w, g = want["value"], got["value"]
      if not isinstance(w, list):
        w, g = [w], [g]
      if not _close(w, g, rtol, atol):
        diffs.append(f"{path}: values differ (rtol={rtol}, atol={atol}):\n  JAX:   "
                     f"{_clip(want['value'])}\n  ember: {_clip(got['value'])}")
    elif want["value"] != got["value"]:
      diffs.append(f"{path}: {_clip(got['value'])!r} where JAX gives {_clip(want['value'])!r}")
  if "repr" in want and want["repr"] != got["repr"]:
    diffs.append(f"{path}: repr {got['repr']!r} where JAX gives {want['repr']!r}")


def _clip(v, n: int = 600):
  s = v if isinstance(v, str) else json.dumps(v)
  return s if len(s) <= n else s[:n] + "..."


def _brief(d) -> str:
  return _clip(json.dumps(d), 300)


def compare(golden: dict, record: dict, prog: Program) -> list[str]:
  """The differences a user would see between JAX's record and ember's, as sentences."""
  diffs: list[str] = []
  if "error" in golden or "error" in record:
    if "error" not in record:
      diffs.append(f"JAX raises {golden['error']['type']}: {_clip(golden['error']['message'])}"
                   f"\n  ember returns {_brief(record['result'])}")
    elif "error" not in golden:
      diffs.append(f"ember raises {record['error']['type']}: "
                   f"{_clip(record['error']['message'])}\n  JAX returns {_brief(golden['result'])}")
    else:
      we, ge = golden["error"], record["error"]
      if we["type"] != ge["type"]:
        diffs.append(f"ember raises {ge['type']} where JAX raises {we['type']} "
                     f"(JAX: {_clip(we['message'], 300)!r}; ember: {_clip(ge['message'], 300)!r})")
      else:
        bad = _message_matches(we["message"], ge["message"], prog)
        if bad:
          diffs.append(bad)
  else:
    _compare_desc(golden["result"], record["result"], "result", prog, diffs)
  if golden["stdout"] != record["stdout"]:
    diffs.append(f"printed text differs:\n--- JAX\n{golden['stdout']}--- ember\n"
                 f"{record['stdout']}---")
  wk = [w[0] for w in golden["warnings"]]
  gk = [w[0] for w in record["warnings"]]
  if wk != gk:
    diffs.append(f"warnings {record['warnings']} where JAX warns {golden['warnings']}")
  else:
    for (_, wm), (_, gm) in zip(golden["warnings"], record["warnings"]):
      bad = _message_matches(wm, gm, Program(None, "", phrases=None))
      if bad:
        diffs.append("warning " + bad)
  return diffs


# --- the command line (goldens under JAX; records under either) ---------------------------------

def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("modules", nargs="+", help="program files (programs/*.py)")
  parser.add_argument("--out", required=True, help="folder for one <module>.json per file")
  parser.add_argument("--framework", choices=("jax", "ember"), required=True,
                      help="what the programs run on")
  args = parser.parse_args(argv)
  sys.modules.setdefault("harness", sys.modules[__name__])  # programs register with this module
  os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
  use(args.framework)
  os.makedirs(args.out, exist_ok=True)
  for path in args.modules:
    progs = load(path)
    records = {"jax_version": jax.__version__,
               "programs": {p.name: run(p) for p in progs}}
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(args.out, stem + ".json"), "w") as f:
      json.dump(records, f, indent=1, sort_keys=False)
      f.write("\n")
    print(f"{stem}: {len(progs)} programs")
  return 0


if __name__ == "__main__":
  sys.exit(main())
