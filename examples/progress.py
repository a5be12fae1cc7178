"""A progress bar for the examples' training loops: tqdm's when tqdm is installed (it comes with
``pip install -e '.[examples]'``), otherwise a plain line on stderr every few seconds.

The metrics beside the count are always those of the step the count shows: ``advance`` records a
finished step's metrics and counts it in one go, so a redraw can never pair a new count with an
old step's loss.
"""
import sys
import time


class Progress:
  """Counts finished steps out of ``total`` and shows the latest step's metrics."""

  def __init__(self, total, desc="training"):
    self.total, self.desc, self.count = total, desc, 0
    try:
      from tqdm import tqdm
    except ImportError:
      self._bar, self._last_line = None, time.monotonic()
    else:
      self._bar = tqdm(total=total, desc=desc, file=sys.stderr, mininterval=0.5)

  def advance(self, **metrics):
    """Counts one finished step whose metrics are ``metrics`` (floats shown to 4 decimals)."""
    self.count += 1
    text = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in metrics.items())
    if self._bar is not None:
      self._bar.set_postfix_str(text, refresh=False)
      self._bar.update(1)
    elif time.monotonic() - self._last_line > 2.0 or self.count == self.total:
      self._last_line = time.monotonic()
      print(f"{self.desc}: {self.count}/{self.total} {text}", file=sys.stderr, flush=True)

  def write(self, text):
    """Prints a line to stdout without breaking the bar."""
    if self._bar is not None:
      self._bar.write(text, file=sys.stdout)
    else:
      print(text, flush=True)

  def close(self):
    if self._bar is not None:
      self._bar.close()

  def __enter__(self):
    return self

  def __exit__(self, *exc_info):
    self.close()
