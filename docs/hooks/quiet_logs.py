"""An MkDocs hook that keeps the build's output to what a reader of it needs.

- mkdocs-jupyter logs two lines per notebook at INFO ("Cache hit: ...", "Copied jupyter file:
  ... to ..."), which bury the build's own lines; they are raised to WARNING here.
- The notebooks' kernels talk to the build over local IPC sockets rather than TCP:
  ``docs/hooks/jupyter/jupyter_nbconvert_config.py`` sets ``KernelManager.transport``, and
  this hook puts that folder first on ``JUPYTER_CONFIG_PATH`` (nbconvert reads it for each
  notebook). Over TCP, ipykernel 7 warns at every kernel start that the traffic is not
  encrypted.

Nothing else is filtered: a warning from any other part of the build is printed and fails
``mkdocs build --strict``.
"""
import logging
import os
import pathlib

NOISY_INFO_LOGGERS = ("mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter")
JUPYTER_CONFIG = pathlib.Path(__file__).resolve().parent / "jupyter"


def on_startup(command, dirty):  # noqa: ARG001 - MkDocs hook signature
  """Quiets the per-notebook INFO lines and points nbconvert at the IPC kernel setting."""
  for name in NOISY_INFO_LOGGERS:
    logging.getLogger(name).setLevel(logging.WARNING)
  paths = [str(JUPYTER_CONFIG)] + [p for p in os.environ.get("JUPYTER_CONFIG_PATH", "").split(
      os.pathsep) if p and p != str(JUPYTER_CONFIG)]
  os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
