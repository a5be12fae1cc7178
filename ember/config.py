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

__all__ = ["config", "Config", "enable_x64", "debug_nans", "debug_infs", "numpy_rank_promotion",
           "numpy_dtype_promotion", "default_matmul_precision", "log_compiles", "disable_jit",
           "default_device", "transfer_guard", "transfer_guard_host_to_device",
           "transfer_guard_device_to_device", "transfer_guard_device_to_host",
           "make_user_context", "debug_key_reuse", "enable_checks", "explain_cache_misses",
           "softmax_custom_jvp", "threefry_partitionable", "check_tracer_leaks",
           "default_prng_impl", "enable_custom_prng", "legacy_prng_key", "no_execution",
           "no_tracing", "thread_guard"]


def _env_bool(name: str, default: bool) -> bool:
  value = os.environ.get(name.upper())
  if value is None:
    return default
  return value.strip().lower() in ("1", "true", "yes", "on")


def _from_env(name: str, default: Any) -> Any:
  """The option's value from the environment variable of its upper-cased name, as JAX reads
  them (``JAX_DEBUG_NANS=1``), else ``default``."""
  value = os.environ.get(name.upper())
  if value is None:
    return default
  if isinstance(default, bool):
    return _env_bool(name, default)
  if isinstance(default, (int, float)):
    return type(default)(value)
  return value


def _enum(*allowed, optional: bool = False) -> Callable:
  """A watcher that accepts only ``allowed`` values (and None when ``optional``), with JAX's
  error."""
  def check(name, old, new):
    if new is None and optional:
      return
    if new not in allowed:
      raise ValueError(f"new enum value must be {'None or ' if optional else ''}in "
                       f"{list(allowed)}, got {new} of type {type(new)}.")
  return check


def _only(supported: tuple, why: str) -> Callable:
  """A watcher that refuses values of an option ember implements only as ``supported``."""
  def check(name, old, new):
    if new not in supported:
      raise NotImplementedError(f"ember does not implement {name}={new!r}: {why}")
  return check


def _platform_names(name, old, new):
  """A comma-separated list of platform names (which exist is checked when backends start:
  ``ember.backend.client``)."""
  if new is None or new == "":
    return
  if not isinstance(new, str):
    raise ValueError(f"new string config value must be None or of type str, got {new!r} of type "
                     f"{type(new)}.")


_MATMUL_PRECISIONS = (
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32", "ANY_F8_ANY_F8_F32",
    "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32", "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32",
    "F64_F64_F64")
_TRANSFER_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
TRANSFER_GUARDS = ("jax_transfer_guard", "jax_transfer_guard_host_to_device",
                   "jax_transfer_guard_device_to_device", "jax_transfer_guard_device_to_host")


def _device_or_platform(name, old, new):
  if new is None or isinstance(new, str) or (hasattr(new, "platform") and hasattr(new, "id")):
    return
  raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                   "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
                   f"got: {new!r}")


def _typed(kind: type, what: str, optional: bool = True) -> Callable:
  """A watcher that accepts only values of ``kind`` (and None), with JAX's error."""
  def check(name, old, new):
    if (new is None and optional) or isinstance(new, kind):
      return
    raise ValueError(f"new {what} config value must be None or of type {what}, got {new} of "
                     f"type {type(new)}" + ("." if what == "string" else ""))
  return check


def _default_cache_dir() -> str:
  """ember's persistent compilation cache directory (JAX's default is None: no cache)."""
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
  return os.path.join(base, "ember", "compile")


# The persistent compilation cache's options (ember/backend/compilation_cache.py), JAX's names.
_CACHE_DEFAULTS = {
    "jax_enable_compilation_cache": True,
    "jax_compilation_cache_dir": _default_cache_dir(),  # unlike JAX: on by default
    "jax_persistent_cache_min_compile_time_secs": 0.0,  # JAX: 1.0
    "jax_persistent_cache_min_entry_size_bytes": 0,
    "jax_compilation_cache_max_size": 1 << 30,  # JAX: -1 (no bound)
    "jax_raise_persistent_cache_errors": False,
    "jax_persistent_cache_enable_xla_caches": "xla_gpu_per_fusion_autotune_cache_dir",
    "jax_compilation_cache_include_metadata_in_key": False,
    "jax_compilation_cache_check_contents": False,
    "jax_compilation_cache_expect_pgle": False,
    "jax_remove_custom_partitioning_ptr_from_cache_key": False,
}
_CACHE_CHECKS = {
    "jax_compilation_cache_dir": (_typed(str, "string"),),
    "jax_persistent_cache_enable_xla_caches": (_typed(str, "string"),),
    "jax_persistent_cache_min_compile_time_secs": (_typed((int, float), "float"),),
    "jax_persistent_cache_min_entry_size_bytes": (_typed(int, "int"),),
    "jax_compilation_cache_max_size": (_typed(int, "int"),),
    "jax_compilation_cache_check_contents": (_only(
        (False,), "XLA's CPU compiler does not serialize the same executable twice byte for "
        "byte, so a fresh compile cannot be checked against the cached one."),),
    "jax_compilation_cache_expect_pgle": (_only(
        (False,), "ember has no profile-guided latency estimation (PGLE), so no entry is "
        "PGLE-optimized."),),
}


def _count(name, old, new):
  if isinstance(new, bool) or not isinstance(new, int) or new < 0:
    raise ValueError(f"{name} must be a non-negative int (0 turns it off), got {new!r}.")


_PRNG_IMPLS = ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32")
_LEGACY_PRNG_KEY = ("allow", "warn", "error")


def _legacy_prng_key(name, old, new):
  if new not in _LEGACY_PRNG_KEY:
    raise ValueError(f"{new!r} is not a valid LegacyPrngKeyState")


_TRACEBACK_FILTERING = ("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")

# Checks of options whose other modules do not check them: values outside JAX's are refused as
# JAX refuses them; values JAX accepts but ember does not implement raise NotImplementedError.
_CHECKS: dict[str, tuple[Callable, ...]] = {
    "jax_platforms": (_platform_names,),
    "jax_platform_name": (_platform_names,),
    "jax_numpy_rank_promotion": (_enum("allow", "warn", "raise"),),
    "jax_default_device": (_device_or_platform,),
    **{name: (_enum(*_TRANSFER_GUARD_LEVELS, optional=True),) for name in TRANSFER_GUARDS},
    "jax_default_matmul_precision": (_enum(*_MATMUL_PRECISIONS, optional=True),),
    "jax_default_prng_impl": (_enum(*_PRNG_IMPLS), _only(
        ("threefry2x32", "rbg", "unsafe_rbg"), "ember's PRNG implementations are threefry2x32, "
        "rbg and unsafe_rbg.")),
    "jax_traceback_filtering": (_enum(*_TRACEBACK_FILTERING), _only(
        ("auto", "off", "quiet_remove_frames", "remove_frames"), "ember removes its frames "
        "from tracebacks ('auto', 'quiet_remove_frames', 'remove_frames') but does not mark them "
        "hidden for IPython.")),
    "jax_legacy_prng_key": (_legacy_prng_key,),
    **_CACHE_CHECKS,
    "ember_recompile_warning": (_count,),
    "jax_threefry_partitionable": (_only(
        (True,), "random bits are always drawn with the partitionable counters (JAX 0.10's "
        "default)."),),
}

# The options that change what tracing a function produces: jit caches traces per combination
# of their values (as JAX's jit keys its caches on them), through ``Config.trace_key``.
TRACE_OPTIONS = ("jax_enable_x64", "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion",
                 "jax_default_matmul_precision", "jax_default_prng_impl",
                 "jax_threefry_partitionable", "jax_default_device", "jax_debug_key_reuse",
                 "jax_softmax_custom_jvp", "jax_no_execution")
_trace_keys: dict[tuple, int] = {}
_user_contexts: list = []  # the contexts of make_user_context, whose values key traces too


class Config:
  """The set of named options. Values are plain attributes, cheap to read on hot paths.

  ``trace_key`` is a small int naming the current values of ``TRACE_OPTIONS``; caches of traced
  programs include it in their keys.
  """

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
      "jax_check_tracer_leaks": False,
      # JAX's default (False); None checks eager code only (ember/random/_key_reuse.py).
      "jax_debug_key_reuse": False,
      "jax_log_compiles": False,
      "jax_explain_cache_misses": False,
      "jax_enable_checks": False,  # ember has no extra internal checks to turn on
      "jax_softmax_custom_jvp": False,  # nn.softmax's custom_jvp rule (ember/scipy/_logsumexp.py)
      # ember's own: warn when one jitted function has traced for more than this many
      # signatures (ember/transforms/cache_misses.py); 0 turns the warning off.
      "ember_recompile_warning": 10,
      **_CACHE_DEFAULTS,
      "jax_threefry_partitionable": True,
      "jax_cpu_collectives_implementation": "gloo",
      "jax_default_device": None,
      **{name: None for name in TRANSFER_GUARDS},
      "jax_enable_custom_prng": False,  # PRNGKey, split and fold_in give typed keys
      "jax_legacy_prng_key": "allow",  # raw keys given to random functions: "warn", "error"
      "jax_no_tracing": False,  # tracing a function for jit raises
      "jax_no_execution": False,  # running a compiled program raises
      "jax_thread_guard": False,  # checks multi-process operations: none in one process
  }

  def __init__(self):
    values = {name: _from_env(name, default) for name, default in self._defaults.items()}
    for name, checks in _CHECKS.items():
      for check in checks:
        check(name, self._defaults[name], values[name])
    object.__setattr__(self, "_values", values)
    object.__setattr__(self, "_watchers", {name: list(c) for name, c in _CHECKS.items()})
    object.__setattr__(self, "_trace_key_watchers", [])
    self.__dict__.update(self._values)  # plain attributes: reading an option is a dict lookup
    self._set_trace_key()

  def _set_trace_key(self) -> None:
    context = tuple(self._values[name] for name in TRACE_OPTIONS) + tuple(
        c.value for c in _user_contexts)
    key = _trace_keys.setdefault(context, len(_trace_keys))
    self.__dict__["trace_key"] = key
    for watcher in self._trace_key_watchers:
      watcher(key)

  def watch_trace_key(self, fn: Callable[[int], None]) -> None:
    """Call ``fn(trace_key)`` whenever an option of ``TRACE_OPTIONS`` changes (internal)."""
    self._trace_key_watchers.append(fn)

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
    if name in TRACE_OPTIONS:
      self._set_trace_key()

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


class NoDefault:
  """The default of the option context managers' ``new_val``, meaning "not given" (as JAX's):
  a boolean option is then turned on, any other needs a value.

  Example:
      >>> import ember
      >>> with ember.numpy_rank_promotion():
      ...   pass
      Traceback (most recent call last):
      TypeError: Context manager for numpy_rank_promotion config option requires an argument representing the new value for the config option.
  """

  def __repr__(self):
    return "<ember.config.NoDefault object>"


NO_DEFAULT = NoDefault()


def _given(option: str, new_val, boolean: bool = False):
  """The value a context manager sets: ``new_val``, or True for a boolean option not given."""
  if new_val is NO_DEFAULT:
    if boolean:
      return True
    raise TypeError(f"Context manager for {option} config option requires an argument "
                    "representing the new value for the config option.")
  return bool(new_val) if boolean else new_val


def enable_x64(new_val: Any = NO_DEFAULT):
  """Context manager that turns 64-bit types on (or off) inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.enable_x64():
      ...   print(jnp.arange(3.0).dtype)
      float64
  """
  return config._option("jax_enable_x64", _given("enable_x64", new_val, boolean=True))


def debug_nans(new_val: Any = NO_DEFAULT):
  """Context manager that turns ``jax_debug_nans`` on (or off) inside its block: operations
  that produce a nan raise ``FloatingPointError`` naming the primitive.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.debug_nans():
      ...   jnp.log(-1.0)
      Traceback (most recent call last):
      FloatingPointError: invalid value (nan) encountered in log
  """
  return config._option("jax_debug_nans", _given("debug_nans", new_val, boolean=True))


def debug_infs(new_val: Any = NO_DEFAULT):
  """Context manager that turns ``jax_debug_infs`` on (or off) inside its block: operations
  that produce an inf raise ``FloatingPointError`` naming the primitive.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.debug_infs():
      ...   jnp.float32(1.0) / 0.0
      Traceback (most recent call last):
      FloatingPointError: invalid value (inf) encountered in div
  """
  return config._option("jax_debug_infs", _given("debug_infs", new_val, boolean=True))


def debug_key_reuse(new_val: Any = NO_DEFAULT):
  """Context manager that sets ``jax_debug_key_reuse`` inside its block: True checks typed PRNG
  keys for reuse everywhere, in staged (jitted) code too; False (the default, as in JAX)
  nowhere. (``config.update("jax_debug_key_reuse", None)`` checks eager code only.) A reused
  key raises ``KeyReuseError``.

  Example:
      >>> import ember
      >>> f = ember.jit(lambda k: ember.random.normal(k) + ember.random.normal(k))
      >>> with ember.debug_key_reuse(True):
      ...   f(ember.random.key(0))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.core.errors.KeyReuseError: In jit, argument 0 is already consumed.
      ...
  """
  return config._option("jax_debug_key_reuse", _given("debug_key_reuse", new_val, boolean=True))


def numpy_rank_promotion(new_val: str = NO_DEFAULT):
  """Context manager that sets ``jax_numpy_rank_promotion`` (``"allow"``, ``"warn"`` or
  ``"raise"``) inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.numpy_rank_promotion("raise"):
      ...   jnp.ones(3) + jnp.ones((2, 3))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ValueError: Operands could not be broadcast together for add on shapes (3,) (2, 3) ...
  """
  return config._option("jax_numpy_rank_promotion", _given("numpy_rank_promotion", new_val))


def numpy_dtype_promotion(new_val: str = NO_DEFAULT):
  """Context manager that sets ``jax_numpy_dtype_promotion`` (``"standard"`` or ``"strict"``)
  inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.numpy_dtype_promotion("strict"):
      ...   jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ember.dtypes.TypePromotionError: Input dtypes (float32, int32) have no available ...
  """
  return config._option("jax_numpy_dtype_promotion", _given("numpy_dtype_promotion", new_val))


def default_matmul_precision(new_val: str | None = NO_DEFAULT):
  """Context manager that sets ``jax_default_matmul_precision`` inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.default_matmul_precision("highest"):
      ...   print(jnp.ones((2, 2)) @ jnp.ones(2))
      [2. 2.]
  """
  return config._option("jax_default_matmul_precision", _given("default_matmul_precision", new_val))


def checking_leaks():
  """Context manager that turns ``jax_check_tracer_leaks`` on inside its block: a tracer that
  outlives the transformation that made it (kept in a global list, say) raises
  ``Exception: Leaked trace ...`` when that transformation returns.

  Example:
      >>> import ember
      >>> kept = []
      >>> with ember.checking_leaks():
      ...   ember.jit(lambda x: kept.append(x) or x)(1.0)
      Traceback (most recent call last):
      ...
      Exception: Leaked trace DynamicJaxprTrace. Leaked tracer(s):
      ...
  """
  return config._option("jax_check_tracer_leaks", True)


def enable_checks(new_val: Any = NO_DEFAULT):
  """Context manager that sets ``jax_enable_checks`` inside its block. In JAX it turns on
  internal consistency checks (of jaxprs and tracers) that never change a correct program's
  results; ember has no such extra checks, so the option is recorded and changes nothing.

  Example:
      >>> import ember
      >>> with ember.enable_checks(True):
      ...   print(ember.config.jax_enable_checks)
      True
  """
  return config._option("jax_enable_checks", _given("enable_checks", new_val, boolean=True))


def explain_cache_misses(new_val: Any = NO_DEFAULT):
  """Context manager that sets ``jax_explain_cache_misses`` inside its block: with it on, a
  jitted function traced again explains (in a log warning) why its cache missed.

  Example:
      >>> import ember
      >>> with ember.explain_cache_misses():
      ...   print(ember.config.jax_explain_cache_misses)
      True
  """
  return config._option("jax_explain_cache_misses", _given("explain_cache_misses", new_val, boolean=True))


def softmax_custom_jvp(new_val: Any = NO_DEFAULT):
  """Context manager that sets ``jax_softmax_custom_jvp`` inside its block: ``nn.softmax``
  then differentiates through its ``custom_jvp`` rule ``y * (x_dot - sum(y * x_dot))`` rather
  than through its formula (off by default, as in JAX 0.10.2).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.softmax_custom_jvp():
      ...   print(ember.grad(lambda x: ember.nn.softmax(x)[0])(jnp.zeros(2)))
      [ 0.25 -0.25]
  """
  return config._option("jax_softmax_custom_jvp", _given("softmax_custom_jvp", new_val, boolean=True))


def threefry_partitionable(new_val: Any = NO_DEFAULT):
  """Context manager that sets ``jax_threefry_partitionable`` inside its block. ember draws
  random bits with the partitionable counters only (JAX 0.10's default), so False raises
  ``NotImplementedError``.

  Example:
      >>> import ember
      >>> with ember.threefry_partitionable():
      ...   print(ember.config.jax_threefry_partitionable)
      True
  """
  return config._option("jax_threefry_partitionable", _given("threefry_partitionable", new_val, boolean=True))


def log_compiles(new_val: Any = NO_DEFAULT):
  """Context manager that turns ``jax_log_compiles`` on (or off) inside its block: each
  compilation is logged at WARNING level.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.log_compiles():
      ...   _ = ember.jit(lambda x: x * 3)(jnp.arange(7))
  """
  return config._option("jax_log_compiles", _given("log_compiles", new_val, boolean=True))


def disable_jit(disable: bool = True):
  """Context manager that runs jitted functions as plain Python (op by op) inside its block.

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.disable_jit():
      ...   print(ember.jit(lambda x: x + 1)(jnp.ones(2)))
      [2. 2.]
  """
  return config._option("jax_disable_jit", bool(disable))


def default_device(new_val=NO_DEFAULT):
  """Context manager that sets ``jax_default_device``: where arrays made without a device (and
  computations on uncommitted arrays) are placed inside its block. ``new_val`` is a ``Device``,
  a platform name (``"cpu"``: its first device) or None (the first device).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.default_device(ember.devices()[-1]):
      ...   x = jnp.ones(2)
      >>> x.devices() == {ember.devices()[-1]}
      True
  """
  return config._option("jax_default_device", _given("default_device", new_val))


@contextlib.contextmanager
def _options(names, value):
  old = [getattr(config, n) for n in names]
  for n in names:
    config.update(n, value)
  try:
    yield
  finally:
    for n, v in zip(names, old):
      config.update(n, v)


def transfer_guard(new_val: str):
  """Context manager that guards every kind of transfer inside its block: ``"allow"``,
  ``"log"`` (log implicit ones), ``"disallow"`` (refuse implicit ones, as ``jnp.ones(3) +
  np.ones(3)`` moving a NumPy array to the device), ``"log_explicit"``, ``"disallow_explicit"``
  (refuse ``device_put`` too). As in JAX on CPU, only host-to-device transfers are checked.

  Example:
      >>> import ember, ember.numpy as jnp, numpy as np
      >>> x = jnp.ones(2)
      >>> with ember.transfer_guard("disallow"):
      ...   x + np.ones(2)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxlib._jax.JaxRuntimeError: INVALID_ARGUMENT: Disallowed host-to-device transfer: ...
  """
  return _options(TRANSFER_GUARDS, new_val)


def transfer_guard_host_to_device(new_val: str = NO_DEFAULT):
  """``transfer_guard`` for host-to-device transfers only.

  Example:
      >>> import ember, numpy as np
      >>> with ember.transfer_guard_host_to_device("disallow"):
      ...   ember.device_put(np.ones(2))  # explicit: allowed
      Array([1., 1.], dtype=float32)
  """
  return _options(("jax_transfer_guard_host_to_device",), _given("transfer_guard_host_to_device", new_val))


def transfer_guard_device_to_device(new_val: str = NO_DEFAULT):
  """``transfer_guard`` for device-to-device transfers only (copies between CPU devices are
  not checked, as in JAX).

  Example:
      >>> import ember
      >>> with ember.transfer_guard_device_to_device("disallow"):
      ...   print(ember.config.jax_transfer_guard_device_to_device)
      disallow
  """
  return _options(("jax_transfer_guard_device_to_device",), _given("transfer_guard_device_to_device", new_val))


def transfer_guard_device_to_host(new_val: str = NO_DEFAULT):
  """``transfer_guard`` for device-to-host transfers only (reading a CPU array is not a
  transfer, as in JAX).

  Example:
      >>> import ember, ember.numpy as jnp
      >>> with ember.transfer_guard_device_to_host("disallow"):
      ...   print(jnp.ones(2))
      [1. 1.]
  """
  return _options(("jax_transfer_guard_device_to_host",), _given("transfer_guard_device_to_host", new_val))


class _UserContext:
  """A context whose value keys jit's caches (``make_user_context``)."""

  def __init__(self, default_value):
    self.value = default_value

  @contextlib.contextmanager
  def __call__(self, new_value):
    old, self.value = self.value, new_value
    config._set_trace_key()
    try:
      yield
    finally:
      self.value = old
      config._set_trace_key()



def make_user_context(default_value=None) -> _UserContext:
  """A context manager factory whose value is part of jit's cache keys: calling a jitted
  function under a new value traces and compiles it again. Values must be hashable.

  Example:
      >>> import ember
      >>> traces = []
      >>> f = ember.jit(lambda x: traces.append(1) or x * 2)
      >>> ctx = ember.make_user_context()
      >>> with ctx(1):
      ...   _ = f(1.0)
      >>> with ctx(2):
      ...   _ = f(1.0)
      >>> len(traces)
      2
  """
  ctx = _UserContext(default_value)
  _user_contexts.append(ctx)
  config._set_trace_key()
  return ctx


# --- options as JAX's top-level State objects -------------------------------------------------

_NO_DEFAULT = object()


class State:
  """A config option as JAX's top-level names give it (``jax.no_tracing``...): calling it with a
  value makes a context manager (also usable as a decorator) that sets the option inside its
  block; ``.value`` reads the option. Boolean options default to True when called without a
  value; the others require one.

  Example:
      >>> import ember
      >>> with ember.no_tracing():
      ...   print(ember.no_tracing.value)
      True
      >>> ember.no_tracing.value
      False
  """

  def __init__(self, option: str, doc: str, example: str, boolean: bool = True):
    self.option = option
    self.__name__ = option[4:]
    self.__doc__ = (f"Context manager for the ``{option}`` config option: {doc}\n\n"
                    f"Example:\n{example}")
    self._boolean = boolean

  def __repr__(self):
    return f"<ember config state {self.__name__}={self.value!r}>"

  def __call__(self, new_val: Any = _NO_DEFAULT):
    if new_val is _NO_DEFAULT:
      if not self._boolean:
        raise TypeError(f"Context manager for {self.__name__} config option requires an "
                        "argument representing the new value for the config option.")
      new_val = True
    return config._option(self.option, bool(new_val) if self._boolean else new_val)

  @property
  def value(self) -> Any:
    return config.read(self.option)

  def __bool__(self):
    raise TypeError("bool() not supported for instances of type 'State' (did you mean to use "
                    "'State.value' instead?)")


check_tracer_leaks = State(
    "jax_check_tracer_leaks", "a tracer that outlives the transformation that made it raises "
    "when that transformation returns (``checking_leaks()`` is ``check_tracer_leaks(True)``).", """\
    >>> import ember
    >>> kept = []
    >>> with ember.check_tracer_leaks(True):
    ...   ember.jit(lambda x: kept.append(x) or x)(1.0)
    Traceback (most recent call last):
    ...
    Exception: Leaked trace DynamicJaxprTrace. Leaked tracer(s):
    ...
""")
default_prng_impl = State(
    "jax_default_prng_impl", "the PRNG implementation of ``random.key`` and ``random.PRNGKey`` "
    "without ``impl``, and of raw keys (threefry2x32, rbg or unsafe_rbg).", """\
    >>> import ember
    >>> with ember.default_prng_impl("rbg"):
    ...   print(ember.random.PRNGKey(7))
    [0 7 0 7]
""", boolean=False)
enable_custom_prng = State(
    "jax_enable_custom_prng", "``random.PRNGKey``, ``split`` and ``fold_in`` give typed keys, "
    "and raw keys given to random functions warn (FutureWarning).", """\
    >>> import ember
    >>> with ember.enable_custom_prng(True):
    ...   print(ember.random.PRNGKey(7).dtype)
    key<fry>
""")
legacy_prng_key = State(
    "jax_legacy_prng_key", "what a raw (uint32) key given to a random function does: "
    "``'allow'``, ``'warn'`` (UserWarning) or ``'error'`` (ValueError).", """\
    >>> import ember
    >>> with ember.legacy_prng_key("error"):
    ...   ember.random.normal(ember.random.PRNGKey(0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: Legacy uint32 key array passed as key to jax.random function. ...
""", boolean=False)
no_tracing = State(
    "jax_no_tracing", "tracing a function for ``jit`` (a cache miss, ``make_jaxpr``, "
    "``eval_shape``, ``lower``) raises RuntimeError.", """\
    >>> import ember
    >>> f = ember.jit(lambda x: x + 1)
    >>> _ = f(1.0)
    >>> with ember.no_tracing():
    ...   print(f(2.0))  # cached: no trace
    3.0
    >>> with ember.no_tracing():
    ...   f(ember.numpy.ones(2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    RuntimeError: re-tracing function <lambda> at ... for `jit`, but 'no_tracing' is set
""")
no_execution = State(
    "jax_no_execution", "running a compiled program (a jitted call, an eager operation) raises "
    "RuntimeError; tracing, lowering and compiling still work.", """\
    >>> import ember
    >>> with ember.no_execution():
    ...   ember.jit(lambda x: x + 1)(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    RuntimeError: JAX tried to execute function ..., but the no_execution config option is set
""")
thread_guard = State(
    "jax_thread_guard", "multi-process operations called from another thread than the one "
    "that set the guard raise. ember runs in one process, so there is nothing to check and "
    "the option changes nothing (as JAX in one process).", """\
    >>> import ember
    >>> with ember.thread_guard(True):
    ...   print(ember.jit(lambda x: x * 2)(2.0))
    4.0
""")

# doctest runs the examples of the states (instances, which it does not look into itself)
__test__ = {s.__name__: s.__doc__ for s in (check_tracer_leaks, default_prng_impl,
                                            enable_custom_prng, legacy_prng_key, no_tracing,
                                            no_execution, thread_guard)}
