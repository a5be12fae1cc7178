"""The differential corpus: every program in tests/corpus/programs gives, under ember, the record
JAX 0.10.2 gave (tests/corpus/goldens, made by tools/make_corpus_goldens.py; no JAX needed here)."""
import glob
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
sys.path.insert(0, CORPUS)

import harness  # noqa: E402
from known_divergences import KNOWN  # noqa: E402

harness.use("ember")  # the programs take their framework from the harness

_MODULES = sorted(glob.glob(os.path.join(CORPUS, "programs", "*.py")))
_cache: dict[str, dict] = {}


def _programs(path):
  if path not in _cache:
    _cache[path] = {p.name: p for p in harness.load(path)}
  return _cache[path]


def _goldens(stem: str) -> dict:
  path = os.path.join(CORPUS, "goldens", stem + ".json")
  if not os.path.exists(path):
    return {}  # test_every_program_has_a_golden names the module
  with open(path) as f:
    return json.load(f)["programs"]


def _cases():
  for path in _MODULES:
    stem = os.path.splitext(os.path.basename(path))[0]
    goldens = _goldens(stem)
    for name in goldens:
      yield pytest.param(path, name, goldens[name], id=f"{stem}::{name}")


@pytest.mark.parametrize("path,name,golden", list(_cases()))
def test_program_matches_jax(path, name, golden):
  key = f"{os.path.splitext(os.path.basename(path))[0]}::{name}"
  progs = _programs(path)
  assert name in progs, f"{key} has a golden but no program (regenerate the goldens)"
  diffs = harness.compare(golden, harness.run(progs[name]), progs[name])
  if key in KNOWN:
    if diffs:
      pytest.xfail(KNOWN[key])
    pytest.fail(f"{key} now matches JAX: remove it from tests/corpus/known_divergences.py")
  assert not diffs, f"{key} differs from JAX 0.10.2:\n" + "\n".join(diffs)


def test_every_program_has_a_golden():
  for path in _MODULES:
    stem = os.path.splitext(os.path.basename(path))[0]
    missing = sorted(set(_programs(path)) - set(_goldens(stem)))
    assert not missing, f"{stem}: programs without goldens {missing}; run tools/make_corpus_goldens.py"


def test_known_divergences_name_real_programs():
  names = set()
  for path in _MODULES:
    stem = os.path.splitext(os.path.basename(path))[0]
    names |= {f"{stem}::{n}" for n in _programs(path)}
  assert not set(KNOWN) - names, sorted(set(KNOWN) - names)


def test_harness_compares_values_types_and_errors():
  """The comparison itself: each kind of difference a user could see is reported."""
  p = harness.Program(None, "t")
  arr = {"kind": "Array", "dtype": "float32", "shape": [2], "weak_type": False, "value": [1.0, 2.0]}
  rec = lambda r: {"result": r, "stdout": "", "warnings": []}
  assert harness.compare(rec(arr), rec(dict(arr)), p) == []
  assert harness.compare(rec(arr), rec(dict(arr, value=[1.0, 2.001])), p)
  assert harness.compare(rec(arr), rec(dict(arr, weak_type=True)), p)
  assert harness.compare(rec(arr), rec(dict(arr, dtype="float64")), p)
  assert harness.compare(rec(arr), rec(dict(arr, value=[1.0, "nan"])), p)
  d1 = {"kind": "dict", "items": [["'a'", arr], ["'b'", arr]]}
  d2 = {"kind": "dict", "items": [["'b'", arr], ["'a'", arr]]}
  assert harness.compare(rec(d1), rec(d2), p)
  err = lambda t, m: {"error": {"type": t, "message": m}, "stdout": "", "warnings": []}
  jax_err = err("TypeError", "grad requires real- or complex-valued inputs, but got int32.")
  assert harness.compare(jax_err, err("TypeError", "grad requires real- or complex-valued "
                                      "inputs (dtype), but got int32."), p) == []
  assert harness.compare(jax_err, err("ValueError", "grad requires real- or complex-valued "
                                      "inputs, but got int32."), p)
  assert harness.compare(jax_err, err("TypeError", "something else entirely"), p)
  assert harness.compare(jax_err, rec(arr), p)
