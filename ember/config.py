"""Global configuration: ``ember.config.update(name, value)`` as in JAX.

Example:
    >>> import ember
    >>> ember.config.update("jax_enable_x64", False)
    >>> ember.config.jax_enable_x64
    False
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Callable

__all__ = ["config", "Config", "enable_x64"]


def _env_bool(name: str, default: bool) -> bool:
  value = os.environ.get(name.upper())
  if value is None:
    return default
  return value.strip().lower() in ("1", "true", "yes", "on")


class Config:
  """The set of named options. Values are plain attributes, cheap to read on hot paths."""

  _defaults: dict[str, Any] = {
      "jax_enable_x64": False,
      "jax_num_cpu_devices": -1,
      "jax_platforms": None,
      "jax_platform_name": None,
      "jax_default_matmul_precision": None,
      "jax_disable_jit": False,
      "jax_numpy_rank_promotion": "allow",
      "jax_numpy_dtype_promotion": "standard",
      "jax_default_prng_impl": "threefry2x32",
      "jax_traceback_filtering": "auto",
      "jax_debug_nans": False,
      "jax_debug_infs": False,
      "jax_log_compiles": False,
      "jax_compilation_cache_dir": None,
      "jax_persistent_cache_min_compile_time_secs": 1.0,
      "jax_threefry_partitionable": True,
      "jax_cpu_collectives_implementation": "gloo",
  }

  def __init__(self):
    object.__setattr__(self, "_values", dict(self._defaults))
    object.__setattr__(self, "_watchers", {})
    self._values["jax_enable_x64"] = _env_bool("jax_enable_x64", False)
    self._values["jax_disable_jit"] = _env_bool("jax_disable_jit", False)
    self.__dict__.update(self._values)  # plain attributes: reading an option is a dict lookup

  def __getattr__(self, name: str) -> Any:
    try:
      return self._values[name]
    except KeyError:
      raise AttributeError(f"Unrecognized config option: {name}") from None

  def __setattr__(self, name, value):
    raise AttributeError("Use ember.config.update(name, value) to change an option.")

  def read(self, name: str) -> Any:
    return getattr(self, name)

  def update(self, name: str, value: Any) -> None:
    """Set option ``name`` to ``value``; unknown names raise ``AttributeError``."""
    if name not in self._values:
      known = ", ".join(sorted(self._values))
      raise AttributeError(f"Unrecognized config option: {name!r}. Known options: {known}.")
    old = self._values[name]
    for watcher in self._watchers.get(name, ()):
      watcher(name, old, value)  # a watcher may refuse the change by raising
    self._values[name] = value
    self.__dict__[name] = value

  def watch(self, name: str, fn: Callable[[str, Any, Any], None]) -> None:
    """Call ``fn(name, old, new)`` whenever ``name`` is updated (internal)."""
    self._watchers.setdefault(name, []).append(fn)

  @contextlib.contextmanager
  def _option(self, name: str, value: Any):
    old = getattr(self, name)
    self.update(name, value)
    try:
      yield
    finally:
      self.update(name, old)

  @property
  def x64_enabled(self) -> bool:
    return self._values["jax_enable_x64"]

  def values(self) -> dict[str, Any]:
    return dict(self._values)


config = Config()


def enable_x64(new_val: bool = True):
  """Context manager that turns 64-bit types on (or off) inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.enable_x64():
      ...   print(jnp.arange(3.0).dtype)
      float64
  """
  return config._option("jax_enable_x64", bool(new_val))
