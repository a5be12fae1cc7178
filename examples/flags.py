"""Command-line flags shared by the example scripts: ``--steps`` and ``--seed``, validated."""
import argparse


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


def parser(doc, steps):
  """An ArgumentParser described by the script's docstring, with ``--steps`` and ``--seed``."""
  p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--steps", type=positive_int, default=steps,
                 help=f"training steps (default {steps})")
  p.add_argument("--seed", type=int, default=0, help="seed of the PRNG key (default 0)")
  return p
