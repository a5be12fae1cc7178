"""The example scripts, run as a user runs them: a short training run whose loss must fall; and
their flags: ``--help`` documents every option and its default, and a bad flag or a bad output
path is an argparse error before any work starts (the scripts parse their flags before they
import ember, so those runs take a fraction of a second)."""
import os
import pathlib
import re
import runpy
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCRIPTS = ["quickstart.py", "mlp_digits.py", "per_example_gradients.py", "transformer_lm.py",
           "data_parallel.py"]
PLOTTING = ["mlp_digits.py", "transformer_lm.py", "data_parallel.py"]
PNG = b"\x89PNG\r\n\x1a\n"


def needs_extras():
  """The training runs need the examples' extras (pip install -e '.[examples]')."""
  for module in ("sklearn", "tqdm", "matplotlib"):
    pytest.importorskip(module)


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


def test_quickstart_times_agrees_and_explains():
  needs_extras()
  result = run_example("quickstart.py", "--size", "64", "--repeat", "1")
  assert result.returncode == 0, result.stderr[-3000:]
  assert "eager and jit results agree: True; and agree with NumPy: True" in result.stdout
  assert re.search(r"^ember jit, first call : +[0-9.]+ ms", result.stdout, re.MULTILINE)
  assert "What these numbers are:" in result.stdout and "f32[64,64] = cos a" in result.stdout


def test_mlp_digits_trains_and_plots(tmp_path):
  needs_extras()
  plot = tmp_path / "curves.png"
  result = run_example("mlp_digits.py", "--steps", "20", "--plot", str(plot))
  assert_loss_fell(result)
  assert re.search(r"^test accuracy: [0-9.]+ %$", result.stdout, re.MULTILINE)
  assert plot.read_bytes()[:8] == PNG
  assert "training: 100%" in result.stderr  # the progress bar


def test_per_example_gradients_agree_and_train():
  needs_extras()
  result = run_example("per_example_gradients.py", "--steps", "20", "--batch-size", "32")
  assert_loss_fell(result)
  diff = re.search(r"max \|difference\| ([0-9.e+-]+)", result.stdout)
  assert diff and float(diff.group(1)) < 1e-5


def test_transformer_lm_trains_samples_and_plots(tmp_path):
  needs_extras()
  plot = tmp_path / "loss.png"
  result = run_example("transformer_lm.py", "--steps", "20", "--batch-size", "8", "--depth", "1",
                       "--sample-length", "10", "--plot", str(plot))
  assert_loss_fell(result)
  assert plot.read_bytes()[:8] == PNG
  sample = result.stdout.split("sample:\n", 1)[1]
  assert sample.startswith("Beautiful is") and len(sample.rstrip("\n")) >= len("Beautiful is") + 10


def test_data_parallel_matches_single_device_trains_and_plots(tmp_path):
  needs_extras()
  plot = tmp_path / "losses.png"
  result = run_example("data_parallel.py", "--steps", "20", "--plot", str(plot))
  assert_loss_fell(result)
  assert plot.read_bytes()[:8] == PNG
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
  assert message in run_in_process(name, flags, monkeypatch, capsys)


def help_entries(text):
  """{option: its help text} from argparse's ``--help`` output."""
  entries, name = {}, None
  for line in text.split("\noptions:\n", 1)[1].splitlines():
    if line.startswith("  -"):
      name, _, rest = line.strip().partition("  ")
      entries[name] = rest.strip()
    elif line.startswith("   ") and name:
      entries[name] = (entries[name] + " " + line.strip()).strip()
    else:
      name = None
  return entries


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_documents_every_option_and_its_default(name):
  result = run_example(name, "--help")
  assert result.returncode == 0, result.stderr
  entries = help_entries(result.stdout)
  assert "-h, --help" in entries and len(entries) > 2, result.stdout
  for option, text in entries.items():
    assert text, f"{name}: {option} has no help text"
    assert option == "-h, --help" or "default" in text, f"{name}: {option} shows no default"


@pytest.mark.parametrize("name", SCRIPTS)
def test_unknown_flag_is_an_argparse_error(name):
  result = run_example(name, "--no-such-flag")
  assert result.returncode == 2
  assert "unrecognized arguments: --no-such-flag" in result.stderr and "usage:" in result.stderr
  assert result.stdout == ""  # nothing ran


@pytest.mark.parametrize("name", PLOTTING)
def test_bad_plot_path_fails_before_any_work(name, tmp_path):
  target = tmp_path / "missing" / "plot.png"
  result = run_example(name, "--plot", str(target))
  assert result.returncode == 2
  assert (f"argument --plot: folder {str(target.parent)!r} does not exist" in result.stderr), \
      result.stderr
  assert result.stdout == "" and not target.parent.exists()  # failed at parse time: no training


def run_in_process(name, flags, monkeypatch, capsys):
  """Runs a script as __main__ with ``flags``, expecting an argparse error; returns stderr."""
  monkeypatch.syspath_prepend(str(EXAMPLES))
  monkeypatch.setattr(sys, "argv", [name, *flags])
  with pytest.raises(SystemExit) as exit_info:
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert "usage:" in err
  return err


@pytest.mark.parametrize("flags, message", [
    (["--plot", "{tmp}"], "argument --plot: '{tmp}' is a folder, not a file"),
    (["--plot", "{tmp}/curves.txt"], "argument --plot: must name a file ending in one of .png"),
    (["--plot", "{tmp}/curves"], "argument --plot: must name a file ending in one of .png"),
])
def test_plot_paths_are_checked(flags, message, tmp_path, monkeypatch, capsys):
  flags = [f.format(tmp=tmp_path) for f in flags]
  err = run_in_process("transformer_lm.py", flags, monkeypatch, capsys)
  assert message.format(tmp=tmp_path) in err, err
  assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, flags, missing, message", [
    ("data_parallel.py", ["--plot", "losses.png"], "matplotlib",
     "argument --plot: needs matplotlib, which is not installed: pip install matplotlib"),
    ("mlp_digits.py", ["--steps", "1"], "sklearn",
     "this example needs scikit-learn, which is not installed: pip install scikit-learn"),
])
def test_missing_optional_packages_are_named_up_front(name, flags, missing, message, monkeypatch,
                                                       capsys):
  monkeypatch.syspath_prepend(str(EXAMPLES))
  import flags as flags_module  # the scripts' own `import flags` finds this module
  installed = flags_module.installed
  monkeypatch.setattr(flags_module, "installed", lambda module: module != missing and
                      installed(module))
  assert message in run_in_process(name, flags, monkeypatch, capsys)
