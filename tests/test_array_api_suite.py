"""The Array API standard's own suite (data-apis/array-api-tests), its quick files only.

The suite is not part of ember: it lives next to the repository, in ``../shared/array-api``
(CI clones the repository beside ``shared/``). When it is there, its runner checks that
ember.numpy has every name the 2024.12 standard asks for, with the standard's signatures. The
full run (over ten minutes) stays out of CI: ``bash ../shared/array-api/run.sh ember.numpy``.
"""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = (ROOT.parent / "shared" / "array-api", Path("/work/shared/array-api"))
SUITE = next((p for p in _CANDIDATES if (p / "run_suite.py").exists()), None)
_REQUIREMENTS = ("hypothesis", "ndindex", "pytest_jsonreport")

pytestmark = [
    pytest.mark.skipif(SUITE is None, reason="the array-api suite (../shared/array-api) is absent"),
    pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in _REQUIREMENTS),
                       reason="the suite's requirements are not installed (pip install "
                              "-e '.[test]')"),
]


def test_names_and_signatures(tmp_path):
  path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
  env = dict(os.environ, PYTHONPATH=path, TMPDIR=str(tmp_path), AAT_WORKERS="1",
             AAT_REPORT=str(tmp_path / "report.json"))
  command = [sys.executable, str(SUITE / "run_suite.py"), "ember.numpy", "test_has_names.py",
             "test_signatures.py"]
  proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                        timeout=300, check=False)
  last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:]
  m = re.fullmatch(r"array-api: (\d+) passed, (\d+) failed, (\d+) skipped", last)
  assert m, f"unexpected runner output:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
  assert int(m.group(2)) == 0 and int(m.group(1)) >= 420, proc.stdout[-6000:]
