"""The few places where jaxlib's API differs between the versions ember runs on.

ember pins jaxlib 0.10.2 (the version its CI tests); it also runs on jaxlib 0.11, the version
of the GPU machines it is checked on. The differences met so far, each handled here once:

- ``array_result_handler(aval, sharding, committed)`` and ``ArrayImpl(aval, sharding, arrays,
  committed)`` take ``_skip_checks=True`` in 0.10 (without it the C++ calls back into a Python
  hook JAX defines, ``ArrayImpl._check_and_rearrange``); 0.11 removed the argument (and the
  hook).
- Host reads: the buffer protocol (``memoryview``) works for CPU buffers only, while
  ``_single_device_array_to_np_array_did_copy()`` works for every platform (but goes through a
  C++ path that imports the ``jax`` package when it can: see ``ember.backend.host_reads``).

Example:
    >>> from ember.backend import _jaxlib_compat
    >>> _jaxlib_compat.JAXLIB_VERSION >= (0, 10)
    True
"""
from __future__ import annotations

import numpy as np
from jaxlib import xla_client as xc
from jaxlib import version as _jaxlib_version

__all__ = ["JAXLIB_VERSION", "jaxlib_version", "parse_version", "result_handler", "make_array",
           "copy_to_numpy"]


def parse_version(text: str) -> tuple[int, ...]:
  """The leading dotted numbers of a version string: ``"0.10.2.dev1"`` -> ``(0, 10, 2)``.

  Example:
      >>> parse_version("0.11.2rc1")
      (0, 11, 2)
  """
  parts = []
  for piece in text.split("."):
    digits = ""
    for ch in piece:
      if not ch.isdigit():
        break
      digits += ch
    if not digits:
      break
    parts.append(int(digits))
    if len(digits) != len(piece):
      break
  if not parts:
    raise ValueError(f"cannot read a version number from {text!r}")
  return tuple(parts)


jaxlib_version = _jaxlib_version.__version__
JAXLIB_VERSION = parse_version(jaxlib_version)

# 0.10 takes ``_skip_checks``; 0.11 removed it (a TypeError there).
_SKIP_CHECKS = {"_skip_checks": True} if JAXLIB_VERSION < (0, 11) else {}


def result_handler(aval, sharding, committed: bool):
  """jaxlib's result handler building ``ArrayImpl``s of ``aval`` laid out by ``sharding``, with
  no Python hook called per result."""
  return xc.array_result_handler(aval, sharding, committed, **_SKIP_CHECKS)


def make_array(aval, sharding, arrays, committed: bool):
  """An ``ArrayImpl`` of ``aval`` assembled from one single-device array per shard."""
  return xc.ArrayImpl(aval, sharding, arrays, committed, **_SKIP_CHECKS)


def copy_to_numpy(x) -> np.ndarray:
  """A NumPy copy of a single-device array's data, on any platform (jaxlib's own read)."""
  return np.asarray(x._single_device_array_to_np_array_did_copy()[0])
