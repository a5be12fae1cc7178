"""nbconvert settings for the docs build (docs/hooks/quiet_logs.py puts this folder on
JUPYTER_CONFIG_PATH): notebook kernels talk to the build over IPC sockets, not TCP.

The socket paths must be absolute: the kernel starts in the notebook's folder and the build
runs in the repository root, so a relative path (the default) names two different files.
"""
import os
import tempfile

c = get_config()  # noqa: F821 - defined by traitlets when it runs a config file
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"ember-docs-kernel-{os.getpid()}")
