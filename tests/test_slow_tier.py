"""The slow tier's list (tests/slow_tests.txt) names tests that exist: a renamed or removed test
must leave it, or the tier would silently shrink."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def slow_test_ids() -> list:
  with open(os.path.join(ROOT, "tests", "slow_tests.txt")) as f:
    return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def test_every_slow_test_exists():
  corpus = {}
  assert len(set(slow_test_ids())) == len(slow_test_ids())
  for nodeid in slow_test_ids():
    path, _, rest = nodeid.partition("::")
    assert os.path.exists(os.path.join(ROOT, path)), nodeid
    if path == "tests/test_corpus.py":  # test_program_matches_jax[MODULE::PROGRAM]
      module, program = rest[rest.index("[") + 1:-1].split("::")
      if module not in corpus:  # the goldens name the programs test_corpus.py runs
        with open(os.path.join(ROOT, "tests", "corpus", "goldens", module + ".json")) as f:
          corpus[module] = set(json.load(f)["programs"])
      assert program in corpus[module], nodeid
    else:
      name = rest.split("[")[0].split("::")[-1].split(".")[-1]
      if name == os.path.splitext(os.path.basename(path))[0]:
        continue  # a module docstring's doctest
      with open(os.path.join(ROOT, path)) as f:
        text = f.read()
      assert f"def {name}" in text or f"class {name}" in text, nodeid
