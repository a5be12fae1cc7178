"""Registers jaxlib's LAPACK custom-call targets with the CPU client (used by linalg)."""
from __future__ import annotations

_done = False


def register() -> None:
  global _done
  if _done:
    return
  _done = True
  try:
    from jaxlib.cpu import _lapack
    from jaxlib import xla_client as xc
  except ImportError:  # pragma: no cover - jaxlib without LAPACK kernels
    return
  for name, capsule in _lapack.registrations().items():
    xc.register_custom_call_target(name, capsule, platform="cpu",
                                   api_version=1 if name.endswith("_ffi") else 0)
  _lapack.initialize()
