"""Command-line flags shared by the example scripts, all checked before any work starts.

Each script parses its flags before it imports ember (which takes a couple of seconds), so
``--help`` and a mistyped flag answer at once, and an output path such as ``--plot`` is checked
at parse time: a folder that does not exist fails before training, not after it. Every option's
help shows its default.
"""
import argparse
import importlib.util
import pathlib

# File types matplotlib writes with its default backends.
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")
INSTALL_HINT = "pip install -e '.[examples]'"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
  """Keeps the docstring's layout and appends each option's default to its help text."""

  def _get_help_string(self, action):
    text = action.help or ""
    if action.default not in (None, argparse.SUPPRESS) and "default" not in text:
      text += " (default: %(default)s)"
    return text


def parser(doc, steps=None):
  """An ArgumentParser described by the script's docstring; with ``steps``, also ``--steps`` and
  ``--seed`` (the flags every training example takes)."""
  paragraphs = doc.split("\n\n")
  commands = [t for t in paragraphs[1:2] if t.lstrip().startswith("python ")]
  p = argparse.ArgumentParser(description=paragraphs[0], formatter_class=HelpFormatter,
                              epilog="\n".join(["examples:", *commands]) if commands else None)
  if steps is not None:
    p.add_argument("--steps", type=positive_int, default=steps, help="training steps")
    p.add_argument("--seed", type=int, default=0, help="seed of the PRNG key")
  return p


def add_plot(p, what):
  """Adds ``--plot PATH``, which saves ``what`` to an image file; checked as it is parsed."""
  p.add_argument("--plot", metavar="PATH", type=plot_path,
                 help=f"save {what} to PATH (.png, .pdf, .svg, ...; needs matplotlib) "
                      "(default: no plot)")


def installed(module):
  """Whether ``module`` can be imported, found without importing it."""
  return importlib.util.find_spec(module) is not None


def require(p, module, package):
  """An argparse error with the install command when the script needs ``module`` and it is
  missing."""
  if not installed(module):
    p.error(f"this example needs {package}, which is not installed: pip install {package} "
            f"(or {INSTALL_HINT})")


def positive_int(text):
  """argparse type for a positive integer; anything else is an argparse error naming the flag."""
  try:
    value = int(text)
  except ValueError:
    raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
  if value <= 0:
    raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
  return value


def positive_float(text):
  """argparse type for a positive number."""
  return _number(text, lambda v: v > 0, "a positive number")


def non_negative_float(text):
  """argparse type for a number at least zero."""
  return _number(text, lambda v: v >= 0, "a non-negative number")


def _number(text, ok, what):
  try:
    value = float(text)
  except ValueError:
    value = None
  if value is None or not ok(value):
    raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
  return value


def plot_path(text):
  """argparse type for ``--plot``: an image file that can be written, with matplotlib installed.

  Checked before any work, so a typo in the path costs nothing."""
  if not installed("matplotlib"):
    raise argparse.ArgumentTypeError(
        f"needs matplotlib, which is not installed: pip install matplotlib (or {INSTALL_HINT})")
  path = pathlib.Path(text)
  if path.is_dir():
    raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
  if path.suffix.lower() not in PLOT_SUFFIXES:
    raise argparse.ArgumentTypeError(
        f"must name a file ending in one of {', '.join(PLOT_SUFFIXES)}, got {text!r}")
  if not path.parent.is_dir():
    raise argparse.ArgumentTypeError(f"folder {str(path.parent)!r} does not exist (in {text!r})")
  try:  # the one sure test of writing is to write: append nothing, or create and remove
    if path.exists():
      path.open("ab").close()
    else:
      path.open("xb").close()
      path.unlink()
  except OSError as e:
    raise argparse.ArgumentTypeError(f"cannot write {text!r}: {e.strerror}") from None
  return str(path)
