"""``_backends``: the started backends by platform name, as ``jax._src.xla_bridge._backends``.

It is ``{}`` until the first device operation starts ember's backends, then ``{"cpu": client}``
(and a GPU's, when one started); libraries read it to tell whether it is still time to set the
device count.

Example:
    >>> import ember
    >>> from ember._src import xla_bridge
    >>> _ = ember.devices()
    >>> sorted(xla_bridge._backends)
    ['cpu']
"""
from __future__ import annotations

from ember.backend import client as _client

__all__: list[str] = []


def __getattr__(name: str):
  if name == "_backends":
    return dict(_client.backends()) if _client.is_started() else {}
  raise AttributeError(f"module 'ember._src.xla_bridge' has no attribute '{name}'")
