"""The tutorial notebooks in docs/notebooks, executed top to bottom as a reader would run them.

Each notebook runs in a fresh IPython kernel started from this interpreter (so it imports this
checkout's ember) with 8 CPU devices. A failing cell is reported by its index and source. Cells
tagged ``raises-exception`` must raise (they show an error as the user sees it), and the
notebooks listed in ``EXPECTED_ERRORS`` must raise exactly those errors, in order. Each notebook
is its own test, so ``pytest -n 2`` runs them in parallel.
"""
import json
import os
import pathlib
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

import ember
import ember.numpy

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "docs" / "notebooks"
TIMEOUT_S = 120  # per cell; each notebook takes a few seconds to ~30 s
EXPECTED_ERRORS = {
    "01_ember_numpy.ipynb": ["TypeError"],
    "02_thinking_in_ember.ipynb": ["TypeError", "TypeError", "NonConcreteBooleanIndexError",
                                   "TracerBoolConversionError", "TypeError"],
    "03_devices_array_api.ipynb": ["ValueError"],
}
# Notebooks that show a feature still being built: expected to fail until it lands.
PENDING = {
    "03_devices_array_api.ipynb": (not hasattr(ember.numpy, "__array_namespace_info__"),
                                   "ember.numpy.__array_namespace_info__ is not built yet"),
}


def _params():
  for path in sorted(NOTEBOOKS.glob("*.ipynb")):
    pending, reason = PENDING.get(path.name, (False, ""))
    yield pytest.param(path, id=path.stem,
                       marks=[pytest.mark.xfail(pending, reason=reason, strict=True)])


@pytest.fixture(scope="module")
def kernel_specs(tmp_path_factory):
  """A kernel spec that runs this interpreter, whatever `python3` kernel is installed."""
  spec_dir = tmp_path_factory.mktemp("kernels") / "ember-tests"
  spec_dir.mkdir()
  spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
          "display_name": "ember tests", "language": "python"}
  (spec_dir / "kernel.json").write_text(json.dumps(spec))
  return KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])


def _error_names(cell):
  return [out.ename for out in cell.get("outputs", []) if out.output_type == "error"]


def _run(path, kernel_specs):
  nb = nbformat.read(path, as_version=4)
  km = KernelManager(kernel_name="ember-tests", kernel_spec_manager=kernel_specs)
  client = nbclient.NotebookClient(nb, km=km, timeout=TIMEOUT_S, resources={
      "metadata": {"path": str(path.parent)}})
  env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
         "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
  with client.setup_kernel(env=env):
    for index, cell in enumerate(nb.cells):
      try:
        client.execute_cell(cell, index)
      except nbclient.exceptions.CellExecutionError as err:
        pytest.fail(f"{path.name}: cell {index} raised {err.ename}: {err.evalue}\n"
                    f"--- cell {index} ---\n{cell.source}", pytrace=False)
  return nb


@pytest.mark.parametrize("path", _params())
def test_notebook_runs(path, kernel_specs):
  nb = _run(path, kernel_specs)
  raised = []
  for index, cell in enumerate(nb.cells):
    if "raises-exception" in cell.metadata.get("tags", []):
      names = _error_names(cell)
      assert names, f"{path.name}: cell {index} is tagged raises-exception but did not raise"
      raised += names
  assert raised == EXPECTED_ERRORS.get(path.name, []), f"{path.name}: errors shown {raised}"
