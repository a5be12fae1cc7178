"""The example scripts, run as a user runs them: a short training run whose loss must fall, and
flags that argparse must reject with a message naming the flag."""
import os
import pathlib
import re
import runpy
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_example(name, *flags):
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(
      p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
  return subprocess.run([sys.executable, str(EXAMPLES / name), *flags], check=False,
                        capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def printed_loss(stdout, which):
  match = re.search(rf"^{which} loss: ([0-9.]+)$", stdout, re.MULTILINE)
  assert match, f"no '{which} loss:' line in:\n{stdout}"
  return float(match.group(1))


def assert_loss_fell(result):
  assert result.returncode == 0, result.stderr[-3000:]
  assert printed_loss(result.stdout, "final") < printed_loss(result.stdout, "initial")


def test_mlp_digits_trains_and_plots(tmp_path):
  plot = tmp_path / "curves.png"
  result = run_example("mlp_digits.py", "--steps", "20", "--plot", str(plot))
  assert_loss_fell(result)
  assert re.search(r"^test accuracy: [0-9.]+ %$", result.stdout, re.MULTILINE)
  assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_per_example_gradients_agree_and_train():
  result = run_example("per_example_gradients.py", "--steps", "20", "--batch-size", "32")
  assert_loss_fell(result)
  diff = re.search(r"max \|difference\| ([0-9.e+-]+)", result.stdout)
  assert diff and float(diff.group(1)) < 1e-5


def test_transformer_lm_trains_and_samples():
  result = run_example("transformer_lm.py", "--steps", "20", "--batch-size", "8", "--depth", "1",
                       "--sample-length", "10")
  assert_loss_fell(result)
  sample = result.stdout.split("sample:\n", 1)[1]
  assert sample.startswith("Beautiful is") and len(sample.rstrip("\n")) >= len("Beautiful is") + 10


def test_data_parallel_matches_single_device_and_trains():
  result = run_example("data_parallel.py", "--steps", "20")
  assert_loss_fell(result)
  diff = re.search(r"max \|sharded - single-device\| = ([0-9.e+-]+)", result.stdout)
  assert diff and float(diff.group(1)) < 1e-5


@pytest.mark.parametrize("name, flags, message", [
    ("data_parallel.py", ["--batch", "100"],
     "argument --batch: must be a multiple of --devices (8), got 100"),
    ("mlp_digits.py", ["--steps", "0"], "argument --steps: must be a positive integer, got '0'"),
    ("per_example_gradients.py", ["--steps", "ten"],
     "argument --steps: must be a positive integer, got 'ten'"),
    ("transformer_lm.py", ["--learning-rate", "-1"],
     "argument --learning-rate: must be a positive number, got '-1'"),
    ("per_example_gradients.py", ["--noise-multiplier", "-0.5"],
     "argument --noise-multiplier: must be a non-negative number, got '-0.5'"),
    ("transformer_lm.py", ["--width", "30"],
     "argument --width: must be a multiple of --heads (4), got 30"),
])
def test_bad_flags_are_argparse_errors(name, flags, message, monkeypatch, capsys):
  # In-process (the scripts run as __main__ with their own sys.argv), sparing a subprocess each.
  monkeypatch.syspath_prepend(str(EXAMPLES))
  monkeypatch.setattr(sys, "argv", [name, *flags])
  with pytest.raises(SystemExit) as exit_info:
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert message in err and "usage:" in err
