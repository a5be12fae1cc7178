"""The documentation site: it builds strictly, its examples run, its differences page is complete."""
import doctest
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax, random

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_PYCON = re.compile(r"^```pycon\n(.*?)^```", re.MULTILINE | re.DOTALL)
_DEPARTURE = re.compile(r"differences from jax|differs from jax|unlike jax", re.IGNORECASE)


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs not installed")
def test_site_builds_strictly(tmp_path):
  env = {**os.environ, "EMBER_DOCS_EXECUTE": "false",
         "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
  env.pop("NO_MKDOCS_2_WARNING", None)  # the build must be quiet without it (about-docs.md)
  proc = subprocess.run(
      [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
      check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
  problems = [line for line in proc.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
  assert proc.returncode == 0, "\n".join(problems) or proc.stderr[-3000:]
  noise = [line for line in (proc.stdout + proc.stderr).splitlines()
           if line.strip() and not line.startswith("INFO")]
  assert not noise, "the docs build printed more than its INFO lines:\n" + "\n".join(noise[:40])
  assert (tmp_path / "api" / "numpy" / "index.html").exists()
  assert (tmp_path / "api" / "scipy_stats" / "index.html").exists()


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_page_examples_run(page):
  text = (DOCS / page).read_text()
  source = "\n".join(_PYCON.findall(text))
  globs = {"jax": ember, "jnp": jnp, "np": np, "lax": lax, "random": random}
  test = doctest.DocTestParser().get_doctest(source, globs, page, page, 0)
  runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
  runner.run(test)
  assert runner.summarize(verbose=False).failed == 0


def test_differences_page_cites_every_documented_departure():
  page = (DOCS / "differences.md").read_text()
  documented = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "ember").rglob("*.py")
                      if _DEPARTURE.search(path.read_text()))
  missing = [path for path in documented if f"`{path}`" not in page]
  assert not missing, f"docs/differences.md does not cite {missing}"
