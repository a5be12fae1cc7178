"""The persistent compilation cache's directory (mirrors
``jax.experimental.compilation_cache.compilation_cache``).

ember's cache is on by default, in ``$XDG_CACHE_HOME/ember/compile`` (else
``~/.cache/ember/compile``); ``set_cache_dir`` moves it. ``ember/backend/compilation_cache.py``
says what is stored, how entries are keyed and bounded, and what is never cached.

Example:
    >>> import ember, tempfile
    >>> from ember.experimental.compilation_cache import compilation_cache as cc
    >>> old = ember.config.jax_compilation_cache_dir
    >>> path = tempfile.mkdtemp()
    >>> cc.set_cache_dir(path)
    >>> ember.config.jax_compilation_cache_dir == path
    True
    >>> cc.set_cache_dir(old)
"""
from __future__ import annotations

from ember.backend import compilation_cache as _cache
from ember.config import config

__all__ = ["set_cache_dir", "reset_cache"]


def set_cache_dir(path) -> None:
  """Keep compiled executables in the directory ``path`` (``jax_compilation_cache_dir``), so
  that a later process loads them instead of compiling again.

  As in JAX, ``path`` must be a string (or None, which turns the cache off). Unlike JAX, the
  change applies from the next compile on, even after programs were compiled (JAX fixes the
  directory at its first compile until ``reset_cache``).

  The cache is trusted: loading an executable runs the code it holds, so never use a directory
  others can write to.

  Example:
      >>> import ember, tempfile
      >>> from ember.experimental.compilation_cache import compilation_cache as cc
      >>> old = ember.config.jax_compilation_cache_dir
      >>> cc.set_cache_dir(tempfile.mkdtemp())
      >>> cc.set_cache_dir(old)
  """
  config.update("jax_compilation_cache_dir", path)


def reset_cache() -> None:
  """Forget what this process remembers about the cache (the once-per-process
  ``/jax/compilation_cache/tasks_using_cache`` event and error warning, the directory's
  measured size); the entries on disk stay.

  Example:
      >>> from ember.experimental.compilation_cache import compilation_cache as cc
      >>> cc.reset_cache()
  """
  _cache.reset()
