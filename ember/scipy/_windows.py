"""Window functions for ember.scipy.signal's spectral estimators (``stft``, ``istft``, ``csd``,
``welch``), named as in ``scipy.signal.get_window``.

The common windows are computed here with NumPy in float64, periodic (``fftbins=True``, the form
spectral analysis uses: the symmetric window of length ``n + 1`` without its last point). Any other
name SciPy knows is delegated to ``scipy.signal.get_window`` when SciPy is installed, as JAX does;
without SciPy such a name is rejected with SciPy's message.
"""
from __future__ import annotations

import numpy as np

__all__ = ["get_window"]


def _cosine_sum(m: int, coefs) -> np.ndarray:
  """The symmetric generalized cosine window ``sum_k (-1)^k a_k cos(2 pi k n / (m - 1))``."""
  fac = np.linspace(-np.pi, np.pi, m)
  out = np.zeros(m)
  for k, a in enumerate(coefs):
    out += a * np.cos(k * fac)
  return out


def _triang(m: int) -> np.ndarray:
  n = np.arange(1, (m + 1) // 2 + 1)
  half = (2 * n - 1.0) / m if m % 2 == 0 else 2 * n / (m + 1.0)
  return np.concatenate([half, half[::-1][m % 2:]])


def _bartlett(m: int) -> np.ndarray:
  n = np.arange(m)
  return np.where(n <= (m - 1) / 2, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))


def _tukey(m: int, alpha: float = 0.5) -> np.ndarray:
  if alpha <= 0:
    return np.ones(m)
  if alpha >= 1:
    return _cosine_sum(m, (0.5, 0.5))
  n = np.arange(m)
  width = int(np.floor(alpha * (m - 1) / 2.0))
  lo, mid, hi = n[:width + 1], n[width + 1:m - width - 1], n[m - width - 1:]
  return np.concatenate([
      0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * lo / alpha / (m - 1)))), np.ones(mid.shape),
      0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * hi / alpha / (m - 1))))])


def _gaussian(m: int, std: float) -> np.ndarray:
  n = np.arange(m) - (m - 1.0) / 2.0
  return np.exp(-n ** 2 / (2 * std * std))


def _kaiser(m: int, beta: float) -> np.ndarray:
  n = np.arange(m)
  alpha = (m - 1) / 2.0
  return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))


def _cosine(m: int) -> np.ndarray:
  return np.sin(np.pi / m * (np.arange(m) + 0.5))


# name -> (symmetric window of length m >= 2, whether it needs a parameter); aliases as SciPy's.
_WINDOWS = {
    "boxcar": (lambda m: np.ones(m), False),
    "triang": (_triang, False),
    "bartlett": (_bartlett, False),
    "hann": (lambda m: _cosine_sum(m, (0.5, 0.5)), False),
    "hamming": (lambda m: _cosine_sum(m, (0.54, 0.46)), False),
    "blackman": (lambda m: _cosine_sum(m, (0.42, 0.50, 0.08)), False),
    "blackmanharris": (lambda m: _cosine_sum(m, (0.35875, 0.48829, 0.14128, 0.01168)), False),
    "nuttall": (lambda m: _cosine_sum(m, (0.3635819, 0.4891775, 0.1365995, 0.0106411)), False),
    "flattop": (lambda m: _cosine_sum(
        m, (0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368)), False),
    "cosine": (_cosine, False),
    "tukey": (_tukey, False),
    "kaiser": (_kaiser, True),
    "gaussian": (_gaussian, True),
    "general_hamming": (lambda m, a: _cosine_sum(m, (a, 1.0 - a)), True),
}
_ALIASES = {
    "box": "boxcar", "ones": "boxcar", "rect": "boxcar", "rectangular": "boxcar",
    "triangle": "triang", "tri": "triang", "bart": "bartlett", "brt": "bartlett",
    "hann": "hann", "han": "hann", "hamm": "hamming", "ham": "hamming",
    "black": "blackman", "blk": "blackman", "blackharr": "blackmanharris", "bkh": "blackmanharris",
    "nutl": "nuttall", "nut": "nuttall", "flat": "flattop", "flt": "flattop",
    "halfcosine": "cosine", "tuk": "tukey", "ksr": "kaiser", "gauss": "gaussian",
    "gss": "gaussian", "general hamming": "general_hamming", "general_hamming": "general_hamming",
}


def get_window(window, nperseg: int) -> np.ndarray:
  """The periodic window ``window`` (a name, or a tuple of a name and its parameters) of length
  ``nperseg``, as float64.

  Raises:
      ValueError: for a name neither ember nor SciPy knows, or a missing parameter.
  """
  name, *params = window if isinstance(window, tuple) else (window,)
  key = _ALIASES.get(name, name) if isinstance(name, str) else None
  if key not in _WINDOWS:
    try:
      from scipy import signal as osp_signal  # the rarer windows, as JAX gets them
    except ImportError:
      raise ValueError(f"Invalid window name {name!r} in parameter window={window!r}!") from None
    return np.asarray(osp_signal.get_window(window, nperseg), np.float64)
  fun, needs_param = _WINDOWS[key]
  if needs_param and not params:
    raise ValueError(f"{name!r} must have parameters, but window={window!r}!")
  if nperseg <= 1:
    return np.ones(max(nperseg, 0))
  return fun(nperseg + 1, *params)[:-1]
