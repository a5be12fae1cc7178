"""Every config option and every keyword argument of the public transforms does what JAX 0.10.2's
does, or refuses (NotImplementedError naming it) a value ember does not implement.

``CONFIG_CHECKS`` maps each option of ``ember.config`` and ``ARG_CHECKS`` each (transform,
keyword argument) to a behaviour test. The enumeration tests read the options and the transforms'
signatures, so an option or argument added later without a test here fails them: nothing may be
accepted and silently ignored. Checks marked ``xfail`` (strict) document arguments still ignored.
"""
import inspect
import logging
import warnings

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.sharding import NamedSharding, PartitionSpec as P


@pytest.fixture(autouse=True)
def _restore_config():
  before = ember.config.values()
  yield
  for name, value in before.items():
    if ember.config.read(name) != value:
      ember.config.update(name, value)


CONFIG_CHECKS: dict = {}
ARG_CHECKS: dict = {}


def config_check(*names):
  def register(fn):
    for name in names:
      CONFIG_CHECKS[name] = fn
    return fn
  return register


def arg_check(transform: str, *args, xfail: str | None = None):
  def register(fn):
    marked = pytest.mark.xfail(reason=xfail, strict=True)(fn) if xfail else fn
    for arg in args:
      ARG_CHECKS[(transform, arg)] = marked
    return fn
  return register


def _warnings(fn):
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = fn()
  return out, [str(w.message) for w in caught]


# --- config options ------------------------------------------------------------------------------

@config_check("jax_enable_x64")
def _x64():
  assert jnp.arange(2.0).dtype == np.float32
  ember.config.update("jax_enable_x64", True)
  assert jnp.arange(2.0).dtype == np.float64
  f = ember.jit(lambda x: x * 2)  # traces again under the new setting
  assert f(1.0).dtype == np.float64


@config_check("jax_num_cpu_devices")
def _num_cpu_devices():
  n = len(ember.devices())
  ember.config.update("jax_num_cpu_devices", ember.config.jax_num_cpu_devices)
  with pytest.raises(RuntimeError, match="jax_num_cpu_devices must be set before"):
    ember.config.update("jax_num_cpu_devices", n + 1)


@config_check("jax_platforms", "jax_platform_name")
def _platforms():
  for name in ("jax_platforms", "jax_platform_name"):
    ember.config.update(name, "cpu")
    assert ember.default_backend() == "cpu"
    with pytest.raises(RuntimeError, match="Unable to initialize backend 'cuda'"):
      ember.config.update(name, "cuda")
    with pytest.raises(RuntimeError, match="Unable to initialize backend 'tpu'"):
      ember.config.update(name, "cpu,tpu")


@config_check("jax_default_matmul_precision")
def _matmul_precision():
  a = jnp.ones((2, 2))
  ember.config.update("jax_default_matmul_precision", "highest")
  jaxpr = str(ember.make_jaxpr(jnp.dot)(a, a))
  assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in jaxpr
  np.testing.assert_allclose(jnp.dot(a, a), np.full((2, 2), 2.0))
  with pytest.raises(ValueError, match="new enum value must be None or in"):
    ember.config.update("jax_default_matmul_precision", "fastest")


@config_check("jax_disable_jit")
def _disable_jit():
  calls = []
  f = ember.jit(lambda x: calls.append(type(x)) or x + 1)
  f(1.0)
  f(1.0)
  assert len(calls) == 1  # traced once
  ember.config.update("jax_disable_jit", True)
  assert f(1.0) == 2.0 and calls[-1] is float  # the Python function itself, on the values
  with ember.disable_jit(False):
    f(1.0)
  assert len(calls) == 2


@config_check("jax_numpy_rank_promotion")
def _rank_promotion():
  a, b = jnp.ones(3), jnp.ones((2, 3))
  assert (a + b).shape == (2, 3)  # "allow", the default
  ember.config.update("jax_numpy_rank_promotion", "warn")
  out, caught = _warnings(lambda: jnp.multiply(a, b))
  assert out.shape == (2, 3)
  assert caught == ["Following NumPy automatic rank promotion for multiply on shapes (3,) (2, 3). "
                    "Set the jax_numpy_rank_promotion config option to 'allow' to disable this "
                    "warning; for more information, see "
                    "https://docs.jax.dev/en/latest/rank_promotion_warning.html."]
  _, caught = _warnings(lambda: (a + 1.0, a + jnp.float32(1), jnp.ones((1, 3)) + b))
  assert caught == []  # scalars and equal ranks are not rank promotion
  ember.config.update("jax_numpy_rank_promotion", "raise")
  msg = (r"Operands could not be broadcast together for add on shapes \(3,\) \(2, 3\) and with "
         r"the config option jax_numpy_rank_promotion='raise'")
  with pytest.raises(ValueError, match=msg):
    a + b
  with pytest.raises(ValueError, match="for maximum on shapes"):
    jnp.clip(b, a)  # a jnp function traced under "allow" earlier traces again
  with pytest.raises(ValueError, match="for multiply"):
    ember.jit(lambda x, y: x * y)(a, b)
  with pytest.raises(ValueError, match=r"new enum value must be in \['allow', 'warn', 'raise'\]"):
    ember.config.update("jax_numpy_rank_promotion", "sometimes")


def test_rank_promotion_allow_after_raise():
  f = ember.jit(lambda x, y: x + y)
  with ember.numpy_rank_promotion("raise"):
    with pytest.raises(ValueError):
      f(jnp.ones(3), jnp.ones((2, 3)))
  np.testing.assert_array_equal(f(jnp.ones(3), jnp.ones((2, 3))), np.full((2, 3), 2.0))


@config_check("jax_numpy_dtype_promotion")
def _dtype_promotion():
  assert (jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)).dtype == np.float32
  with ember.numpy_dtype_promotion("strict"):
    with pytest.raises(ember.dtypes.TypePromotionError):
      jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)


@config_check("jax_default_prng_impl")
def _prng_impl():
  ember.config.update("jax_default_prng_impl", "threefry2x32")
  np.testing.assert_array_equal(ember.random.key_data(ember.random.key(0)), [0, 0])
  ember.config.update("jax_default_prng_impl", "rbg")
  try:  # raw keys are read, and made, with the default implementation
    np.testing.assert_array_equal(ember.random.PRNGKey(3), [0, 3, 0, 3])
    assert str(ember.random.key(0).dtype) == "key<rbg>"
    np.testing.assert_array_equal(ember.random.bits(ember.random.PRNGKey(0), (2,)),
                                  [1713891541, 3781805453])  # JAX 0.10.2's values
  finally:
    ember.config.update("jax_default_prng_impl", "threefry2x32")
  with pytest.raises(NotImplementedError, match="jax_default_prng_impl='philox4x32'"):
    ember.config.update("jax_default_prng_impl", "philox4x32")
  with pytest.raises(ValueError, match="new enum value must be in"):
    ember.config.update("jax_default_prng_impl", "mersenne")
  assert ember.config.jax_default_prng_impl == "threefry2x32"


@config_check("jax_threefry_partitionable")
def _threefry_partitionable():
  with pytest.raises(NotImplementedError, match="jax_threefry_partitionable=False"):
    ember.config.update("jax_threefry_partitionable", False)
  with pytest.raises(NotImplementedError, match="jax_threefry_partitionable=False"):
    with ember.threefry_partitionable(False):
      pass
  assert ember.config.jax_threefry_partitionable is True


@config_check("jax_enable_checks")
def _enable_checks():  # JAX's extra internal checks: ember has none, results are unchanged
  with ember.enable_checks():
    assert ember.config.jax_enable_checks is True
    assert float(ember.jit(lambda x: x * 2)(3.0)) == 6.0
  assert ember.config.jax_enable_checks is False


@config_check("jax_softmax_custom_jvp")
def _softmax_custom_jvp():
  x = jnp.array([0.5, -1.0, 2.0])
  plain = ember.make_jaxpr(ember.nn.softmax)(x)
  with ember.softmax_custom_jvp():
    staged = ember.make_jaxpr(ember.nn.softmax)(x)
    grad = ember.grad(lambda v: ember.nn.softmax(v)[0])(x)
  assert "custom_jvp_call" in str(staged) and "custom_jvp_call" not in str(plain)
  np.testing.assert_allclose(grad, ember.grad(lambda v: ember.nn.softmax(v)[0])(x), rtol=1e-6)


@config_check("jax_traceback_filtering")
def _traceback_filtering():
  for value in ("off", "remove_frames", "quiet_remove_frames", "auto"):
    ember.config.update("jax_traceback_filtering", value)  # tests/test_tracebacks.py: effects
  with pytest.raises(NotImplementedError, match="jax_traceback_filtering='tracebackhide'"):
    ember.config.update("jax_traceback_filtering", "tracebackhide")
  with pytest.raises(ValueError, match="new enum value must be in"):
    ember.config.update("jax_traceback_filtering", "some")


@config_check("jax_compilation_cache_dir", "jax_enable_compilation_cache",
              "jax_persistent_cache_min_compile_time_secs",
              "jax_persistent_cache_min_entry_size_bytes", "jax_compilation_cache_max_size",
              "jax_raise_persistent_cache_errors", "jax_persistent_cache_enable_xla_caches",
              "jax_compilation_cache_include_metadata_in_key",
              "jax_compilation_cache_check_contents", "jax_compilation_cache_expect_pgle",
              "jax_remove_custom_partitioning_ptr_from_cache_key")
def _compilation_cache():
  # Each option's effect is tested in tests/test_compilation_cache.py; here, what is refused.
  # The GPU caches, metadata (ember's StableHLO carries none) and custom partitioning (ember
  # has none) options change nothing on ember's CPU programs, as in JAX on the CPU.
  with pytest.raises(ValueError, match="new string config value must be None or of type str"):
    ember.config.update("jax_compilation_cache_dir", 3)
  with pytest.raises(ValueError, match="new int config value must be None or of type int"):
    ember.config.update("jax_compilation_cache_max_size", 1.5)
  with pytest.raises(ValueError, match="new float config value must be None or of type float"):
    ember.config.update("jax_persistent_cache_min_compile_time_secs", "1")
  for name in ("jax_compilation_cache_check_contents", "jax_compilation_cache_expect_pgle"):
    with pytest.raises(NotImplementedError, match=f"{name}=True"):
      ember.config.update(name, True)
  import os
  import tempfile
  saved = os.environ.pop("EMBER_CACHE", None)
  try:
    with tempfile.TemporaryDirectory() as path:
      ember.clear_caches()  # each program below compiles afresh
      ember.config.update("jax_compilation_cache_dir", path)
      ember.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)  # never worth it
      assert np.asarray(ember.jit(lambda x: x * 31.25)(np.float32(2.0))) == 62.5
      assert os.listdir(path) == []
      ember.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
      assert np.asarray(ember.jit(lambda x: x * 32.25)(np.float32(2.0))) == 64.5
      assert len(os.listdir(path)) == 1
  finally:
    if saved is not None:
      os.environ["EMBER_CACHE"] = saved


@config_check("jax_debug_key_reuse")
def _debug_key_reuse():
  key = ember.random.key(0)
  ember.random.normal(key)
  ember.random.normal(key)  # the default, False, checks nothing (as in JAX)
  f = ember.jit(lambda k: ember.random.normal(k) + ember.random.normal(k))
  f(ember.random.key(1))
  ember.config.update("jax_debug_key_reuse", None)  # ember's eager-only setting
  try:
    key = ember.random.key(0)
    ember.random.normal(key)
    with pytest.raises(ember.errors.KeyReuseError, match="Previously-consumed key passed to jit"):
      ember.random.normal(key)
    f(ember.random.key(2))  # staged code is not checked
  finally:
    ember.config.update("jax_debug_key_reuse", False)
  for value, raises in ((True, True), (False, False)):
    ember.config.update("jax_debug_key_reuse", value)
    try:
      if raises:
        with pytest.raises(ember.errors.KeyReuseError, match="In jit, argument 0 is already"):
          f(ember.random.key(1))
      else:
        ember.random.normal(key)
    finally:
      ember.config.update("jax_debug_key_reuse", False)


@config_check("jax_check_tracer_leaks")
def _check_tracer_leaks():
  kept = []
  for transform in (ember.jit, ember.vmap, ember.grad):
    with ember.checking_leaks():
      with pytest.raises(Exception, match="(?s)Leaked trace .*is held by"):
        transform(lambda x: kept.append(x) or jnp.sum(x * 2))(jnp.ones(2))
    kept.clear()
  assert not ember.config.jax_check_tracer_leaks
  # no false alarms: the transformations of real programs keep none of their tracers (a cached
  # jaxpr's debug info, a custom_vjp's bwd, a shard_map's outputs once held some)

  @ember.custom_vjp
  def mul(a, b):
    return a * b

  mul.defvjp(lambda a, b: (a * b, (a, b)), lambda r, ct: (r[1] * ct, r[0] * ct))
  loss = lambda w: jnp.sum(lax.scan(lambda c, x: (c * mul(x, w), c), 1.0, jnp.arange(3.0))[0])
  with ember.checking_leaks():
    np.testing.assert_allclose(ember.jit(ember.grad(ember.jit(loss)))(0.5), 0.0, atol=1e-6)
    np.testing.assert_allclose(ember.vmap(ember.grad(lambda x: mul(x, 2.0)))(jnp.ones(2)), 2.0)
    assert ember.make_jaxpr(ember.hessian(lambda x: jnp.sum(x ** 3)))(jnp.ones(2)) is not None


@config_check("jax_log_compiles")
def _log_compiles():
  class Records(logging.Handler):
    def __init__(self):
      super().__init__()
      self.messages = []

    def emit(self, record):
      self.messages.append(record.getMessage())

  handler = Records()
  logging.getLogger("ember").addHandler(handler)
  try:
    ember.jit(lambda x: x * 17)(jnp.arange(5))
    assert handler.messages == []
    with ember.log_compiles():
      ember.jit(lambda x: x * 19)(jnp.arange(5))
    assert any(m.startswith("Finished XLA compilation of jit(<lambda>) in ") for m in
               handler.messages)
    assert any(m.startswith("Finished tracing <lambda> for jit in ") for m in handler.messages)
  finally:
    logging.getLogger("ember").removeHandler(handler)


@config_check("jax_explain_cache_misses", "ember_recompile_warning")
def _explain_cache_misses():  # the texts: tests/test_cache_misses.py
  seen = []
  handler = logging.Handler()
  handler.emit = lambda record: seen.append(record.getMessage())
  logging.getLogger("ember.jit").addHandler(handler)
  f = ember.jit(lambda x: x + 1)
  try:
    f(jnp.ones(2))
    with ember.explain_cache_misses():
      f(jnp.ones(3))
    f(jnp.ones(4))
  finally:
    logging.getLogger("ember.jit").removeHandler(handler)
  assert len(seen) == 1 and seen[0].startswith("TRACING CACHE MISS at ")
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ember.config._option("ember_recompile_warning", 2):
      for n in range(5, 8):
        f(jnp.ones(n))
  assert [type(w.message) for w in caught] == [ember.errors.RecompileWarning]
  with pytest.raises(ValueError, match="must be a non-negative int"):
    ember.config.update("ember_recompile_warning", "10")


@config_check("jax_cpu_collectives_implementation")
def _collectives():
  for value in ("gloo", "mpi", None):  # used when ember.distributed joins processes
    ember.config.update("jax_cpu_collectives_implementation", value)
  with pytest.raises(ValueError, match="new enum value must be None or in"):
    ember.config.update("jax_cpu_collectives_implementation", "nccl")


@config_check("jax_default_device")
def _default_device():
  last = ember.devices()[-1]
  ember.config.update("jax_default_device", last)
  x = jnp.ones(2)
  assert x.devices() == {last} and not x.committed
  assert (x + 1).devices() == {last} and ember.jit(lambda a: a * 2)(x).devices() == {last}
  ember.config.update("jax_default_device", "cpu")
  assert jnp.ones(2).devices() == {ember.devices()[0]}
  ember.config.update("jax_default_device", "gpu")
  with pytest.raises(RuntimeError, match="Unknown backend: 'gpu' requested"):
    jnp.ones(2)
  ember.config.update("jax_default_device", None)
  with pytest.raises(ValueError, match="must be passed either a Device object"):
    ember.config.update("jax_default_device", 3)
  assert jnp.ones(2).devices() == {ember.devices()[0]}


@config_check("jax_transfer_guard", "jax_transfer_guard_host_to_device",
              "jax_transfer_guard_device_to_device", "jax_transfer_guard_device_to_host")
def _transfer_guards():
  x = jnp.ones(2)
  for name in ("jax_transfer_guard", "jax_transfer_guard_host_to_device"):
    ember.config.update(name, "disallow")
    with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
      x + np.ones(2)
    ember.device_put(np.ones(2))  # explicit: allowed
    # an arange of one bound is an iota on the device, as in JAX (no host copy)
    np.testing.assert_array_equal(np.asarray(jnp.arange(4.0)), [0., 1., 2., 3.])
    ember.config.update(name, "disallow_explicit")
    with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
      ember.device_put(np.ones(2))
    ember.config.update(name, None)
  for name in ("jax_transfer_guard_device_to_device", "jax_transfer_guard_device_to_host"):
    ember.config.update(name, "disallow")  # CPU copies are not guarded transfers, as in JAX
    np.asarray(ember.device_put(x, ember.devices()[1]))
    ember.config.update(name, None)
  with pytest.raises(ValueError, match="new enum value must be None or in"):
    ember.config.update("jax_transfer_guard", "never")
  x + np.ones(2)


@config_check("jax_debug_nans", "jax_debug_infs")
def _debug_nans_infs():
  assert np.isnan(jnp.log(-1.0))  # off: no checks
  ember.config.update("jax_debug_nans", True)
  with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
    jnp.log(-1.0)
  assert jnp.log(0.0) == -np.inf  # infs are not looked for
  ember.config.update("jax_debug_nans", False)
  ember.config.update("jax_debug_infs", True)
  with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in log"):
    jnp.log(0.0)
  assert np.isnan(jnp.log(-1.0))



@config_check("jax_no_tracing")
def _no_tracing():  # tests/test_missing_names2.py has the details
  f = ember.jit(lambda x: x + 1)
  f(1.0)
  ember.config.update("jax_no_tracing", True)
  assert float(f(2.0)) == 3.0  # a cached call does not trace
  with pytest.raises(RuntimeError, match="but 'no_tracing' is set"):
    f(np.ones(2, np.float32))


@config_check("jax_no_execution")
def _no_execution():
  x = jnp.ones(2)
  ember.config.update("jax_no_execution", True)
  with pytest.raises(RuntimeError, match="the no_execution config option is set"):
    x + 1
  assert "add" in str(ember.make_jaxpr(lambda v: v + 1)(x))


@config_check("jax_thread_guard")
def _thread_guard():  # guards multi-process operations: ember runs in one process
  ember.config.update("jax_thread_guard", True)
  assert float(ember.jit(lambda x: x * 2)(2.0)) == 4.0


@config_check("jax_legacy_prng_key")
def _legacy_prng_key():
  ember.config.update("jax_legacy_prng_key", "error")
  with pytest.raises(ValueError, match="Legacy uint32 key array passed as key"):
    ember.random.normal(ember.random.PRNGKey(0))
  ember.config.update("jax_legacy_prng_key", "warn")
  _, caught = _warnings(lambda: ember.random.normal(ember.random.PRNGKey(0)))
  assert len(caught) == 1 and "Legacy uint32 key array" in caught[0]


@config_check("jax_enable_custom_prng")
def _enable_custom_prng():
  ember.config.update("jax_enable_custom_prng", True)
  key = ember.random.PRNGKey(3)
  assert str(key.dtype) == "key<fry>"
  np.testing.assert_array_equal(ember.random.key_data(key), [0, 3])

# --- jax_debug_nans / jax_debug_infs in detail ---------------------------------------------------

@pytest.mark.parametrize("fun, name", [
    (lambda: jnp.log(-1.0), "log"),
    (lambda: jnp.float32(0.0) / 0.0, "div"),
    (lambda: jnp.ones(2) * 0 * jnp.array([np.inf, 1.0]), "mul"),
    (lambda: jnp.sum(jnp.array([np.inf, -np.inf])), "reduce_sum"),
    (lambda: lax.cond(True, jnp.log, jnp.exp, -1.0), "cond"),
    (lambda: ember.vmap(jnp.log)(jnp.array([1.0, -1.0])), "log"),
])
def test_debug_nans_names_the_eager_primitive(fun, name):
  with ember.debug_nans():
    with pytest.raises(FloatingPointError, match=rf"^invalid value \(nan\) encountered in {name}$"):
      fun()


def test_debug_nans_reruns_a_jitted_function_op_by_op():
  f = ember.jit(lambda x: jnp.log(x) * 0)
  g = ember.jit(lambda x: (jnp.sin(x), f(x) + 1))
  for _ in range(2):  # the second call is served by the C++ dispatcher
    np.testing.assert_array_equal(f(jnp.float32(2.0)), 0.0)
  with ember.debug_nans():
    for _ in range(2):
      with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
        f(jnp.float32(-1.0))
      with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
        g(jnp.float32(-1.0))
    assert f(jnp.float32(2.0)) == 0.0
  assert np.isnan(f(jnp.float32(-1.0)))  # off again: no checks


def test_debug_nans_when_the_rerun_finds_nothing():
  with ember.debug_nans():
    with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in jit\("
                       r"<lambda>\)\. .*de-optimized function.*did not produce invalid values"):
      ember.jit(lambda x: x + 1)(np.float32("nan"))


def test_debug_nans_under_grad_and_jit_of_grad():
  loss = lambda x: jnp.sum(jnp.sqrt(x))  # noqa: E731
  entropy = lambda x: jnp.sum(x * jnp.log(x))  # noqa: E731
  with ember.debug_nans():
    for grad in (ember.grad, lambda f: ember.jit(ember.grad(f))):
      with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in sqrt$"):
        grad(loss)(jnp.array([-1.0, 1.0]))
      with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in mul$"):
        grad(entropy)(jnp.array([0.0, 1.0]))  # 0 * -inf in the forward pass
    np.testing.assert_allclose(ember.grad(loss)(jnp.array([1.0, 4.0])), [0.5, 0.25])


def test_debug_infs_in_jit_and_ints_are_not_checked():
  with ember.debug_infs():
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in exp"):
      ember.jit(lambda x: jnp.exp(x) * 2)(jnp.float32(100.0))
    assert ember.jit(lambda x: x // 0)(1) == -2  # integer division by zero: no float error


def test_debug_nans_disables_donation():
  f = ember.jit(lambda x: jnp.log(x), donate_argnums=0)
  with ember.debug_nans():
    x = jnp.array([-1.0, 1.0])
    with pytest.raises(FloatingPointError, match="encountered in log"):
      f(x)
    assert not x.is_deleted()


# --- donation ------------------------------------------------------------------------------------

def test_donated_arrays_are_deleted_and_reuse_raises():
  f = ember.jit(lambda x, y: (x * 2, y + 1), donate_argnums=0)
  for i in range(3):  # the first call runs in Python, the next ones in jaxlib's C++ dispatcher
    x, y = jnp.full(3, float(i)), jnp.ones(3)
    out = f(x, y)
    np.testing.assert_array_equal(out[0], np.full(3, 2.0 * i))
    np.testing.assert_array_equal(out[1], np.full(3, 2.0))
    assert x.is_deleted() and not y.is_deleted()
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    x + 1
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    repr(x)
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    np.asarray(x)
  with pytest.raises((RuntimeError, ValueError), match="deleted"):
    f(x, y)  # JAX's C++ path raises XLA's ValueError; its Python path RuntimeError
  with pytest.raises(RuntimeError, match="Array has been deleted"):
    ember.jit(lambda a: a * 3)(x)


def test_no_donation_unless_asked():
  x = jnp.ones(3)
  ember.jit(lambda a: a * 2)(x)
  assert not x.is_deleted()
  x = jnp.ones(3)
  np.asarray(x)  # reading an array to the host does not keep it from being donated later
  ember.jit(lambda a: a * 2, donate_argnums=0)(x)
  assert x.is_deleted()


def test_donation_with_host_values_and_scalars():
  f = ember.jit(lambda x: x * 2, donate_argnums=0)
  n = np.ones(3, np.float32)
  np.testing.assert_array_equal(f(n), np.full(3, 2.0))
  np.testing.assert_array_equal(n, np.ones(3))
  for _ in range(3):  # a donated Python scalar never deletes a shared cached buffer
    assert f(2.0) == 4.0
  assert jnp.float32(2.0) + 2.0 == 4.0


def test_unusable_donations_warn_and_stay_alive():
  x = jnp.ones(3)
  out, caught = _warnings(lambda: ember.jit(jnp.sum, donate_argnums=0)(x))
  assert out == 3.0 and not x.is_deleted()
  faq = "https://docs.jax.dev/en/latest/faq.html#buffer-donation"
  assert caught == [f"Some donated buffers were not usable: float32[3].\nSee an explanation at {faq}."]
  x = jnp.ones(3)  # same element count, another dtype: XLA may still reuse it
  out, caught = _warnings(lambda: ember.jit(lambda a: a.astype(jnp.int32), donate_argnums=0)(x))
  assert caught == [] and x.is_deleted()
  np.testing.assert_array_equal(out, [1, 1, 1])


def test_donation_of_pytrees_and_by_name():
  tree = {"a": jnp.ones(3), "b": jnp.ones(2)}
  out, caught = _warnings(lambda: ember.jit(lambda d: d["a"] * 2, donate_argnums=0)(tree))
  assert tree["a"].is_deleted() and not tree["b"].is_deleted()  # "b" is unused: not donated
  assert caught == []
  h = ember.jit(lambda a, b: a + b, donate_argnames="b")
  for call in (lambda x, z: h(x, z), lambda x, z: h(x, b=z)):
    x, z = jnp.ones(3), jnp.ones(3)
    np.testing.assert_array_equal(call(x, z), np.full(3, 2.0))
    assert not x.is_deleted() and z.is_deleted()
  g = ember.jit(lambda a, b: a + b, donate_argnums=1)
  x, z = jnp.ones(3), jnp.ones(3)
  g(x, b=z)  # donate_argnums also names the parameter
  assert z.is_deleted()


def test_donation_argument_errors():
  with pytest.raises(ValueError, match=r"donate_argnums=\(5,\), but only accepts 2 positional"):
    ember.jit(lambda a, b: a, donate_argnums=5)
  with pytest.raises(ValueError, match=r"invalid argnames \{'c'\} in donate_argnames"):
    ember.jit(lambda a, b: a, donate_argnames="c")
  with pytest.raises(ValueError, match="static_argnames and donate_argnames cannot intersect"):
    ember.jit(lambda a, b: a, static_argnums=0, donate_argnums=0)
  with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
    ember.jit(lambda a: a, donate_argnums="a")


def test_donation_under_transforms_and_in_jaxprs():
  f = ember.jit(lambda x: x * 2, donate_argnums=0)
  printed = str(ember.make_jaxpr(lambda a: f(a) + 1)(jnp.ones(3)))
  assert "donated_invars=(True,)" in printed
  assert "donated_invars" not in str(ember.make_jaxpr(ember.jit(lambda a: a * 2))(jnp.ones(3)))
  a = jnp.ones(3)
  np.testing.assert_array_equal(ember.vmap(f)(a), np.full(3, 2.0))
  assert a.is_deleted()  # as in JAX
  a = jnp.ones(3)
  np.testing.assert_array_equal(ember.grad(lambda v: f(v).sum())(a), np.full(3, 2.0))
  assert a.is_deleted()
  a = jnp.ones(3)
  np.testing.assert_array_equal(ember.jit(lambda v: f(v))(a), np.full(3, 2.0))
  assert not a.is_deleted()  # an inner jit's donation is not a top-level one
  square = ember.jit(lambda x: x * x, donate_argnums=0)
  a = jnp.full(3, 3.0)  # the backward pass reads x again: it stays alive (JAX would fail)
  np.testing.assert_array_equal(ember.grad(lambda v: square(v).sum())(a), np.full(3, 6.0))


def test_donation_in_lowered_text():
  f = ember.jit(lambda a, b: (a.sum(), b * 2, a.astype(jnp.int32)), donate_argnums=(0, 1))
  text = f.lower(jnp.ones(3), jnp.ones(3)).as_text()
  assert "{tf.aliasing_output = 1 : i32}" in text and "{jax.buffer_donor = true}" in text
  x, y = jnp.ones(3), jnp.ones(3)
  out = f.lower(x, y).compile()(x, y)
  assert x.is_deleted() and y.is_deleted()
  np.testing.assert_array_equal(out[2], [1, 1, 1])


# --- transforms' keyword arguments ---------------------------------------------------------------

def _sin_sum(x):
  return jnp.sum(jnp.sin(x))


@arg_check("jit", "static_argnums", "static_argnames")
def _jit_static():
  traces = []

  def f(x, n):
    traces.append(n)
    return x * n

  g = ember.jit(f, static_argnums=1)
  assert g(2.0, 3) == 6.0 and g(2.0, 3) == 6.0 and g(2.0, 4) == 8.0
  assert traces == [3, 4]
  h = ember.jit(f, static_argnames="n")
  assert h(2.0, n=5) == 10.0 and traces[-1] == 5


@arg_check("jit", "donate_argnums", "donate_argnames")
def _jit_donate():
  test_donated_arrays_are_deleted_and_reuse_raises()
  test_donation_of_pytrees_and_by_name()


@arg_check("jit", "keep_unused")
def _jit_keep_unused():
  f = lambda a, b: a * 2  # noqa: E731
  assert "keep_unused=True" in str(ember.make_jaxpr(ember.jit(f, keep_unused=True))(1.0, 2.0))
  assert "keep_unused" not in str(ember.make_jaxpr(ember.jit(f))(1.0, 2.0))
  a, b = jnp.ones(3), jnp.ones(4)
  _, caught = _warnings(lambda: ember.jit(f, donate_argnums=(0, 1))(a, b))
  assert caught == [] and a.is_deleted() and not b.is_deleted()  # unused b: pruned, not donated
  a, b = jnp.ones(3), jnp.ones(4)
  _, caught = _warnings(lambda: ember.jit(f, donate_argnums=(0, 1), keep_unused=True)(a, b))
  assert caught and "float32[4]" in caught[0] and not b.is_deleted()


@arg_check("jit", "device", "backend")
def _jit_device_backend():
  d = ember.devices()[-1]
  with pytest.warns(DeprecationWarning, match="backend and device argument on jit is deprecated"):
    f = ember.jit(lambda x: x + 1, device=d)
  out = f(jnp.ones(2))
  assert out.devices() == {d} and out.committed
  with pytest.warns(DeprecationWarning):
    out = ember.jit(lambda x: x + 1, backend="cpu")(1.0)
  assert out.committed and out == 2.0
  with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match="Unknown backend"):
    ember.jit(lambda x: x, backend="gpu")
  with pytest.warns(DeprecationWarning), \
      pytest.raises(ValueError, match="can't specify both a device and a backend"):
    ember.jit(lambda x: x, device=d, backend="cpu")


@arg_check("jit", "inline")
def _jit_inline():
  f = lambda x: x + 1  # noqa: E731
  assert "jit[" not in str(ember.make_jaxpr(lambda x: ember.jit(f, inline=True)(x) * 2)(1.0))
  assert "jit[" in str(ember.make_jaxpr(lambda x: ember.jit(f)(x) * 2)(1.0))
  assert ember.jit(f, inline=True)(1.0) == 2.0


@arg_check("jit", "in_shardings", "out_shardings")
def _jit_shardings():
  mesh = ember.make_mesh((2,), ("x",))
  split = NamedSharding(mesh, P("x"))
  out = ember.jit(lambda x: x * 2, out_shardings=split)(jnp.arange(4.0))
  assert out.sharding == split
  np.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
  out = ember.jit(lambda x: x * 2, in_shardings=split, out_shardings=split)(jnp.arange(4.0))
  assert out.sharding == split


@arg_check("jit", "compiler_options")
def _jit_compiler_options():
  f = ember.jit(lambda x: x + 1, compiler_options={"xla_cpu_enable_fast_math": True})
  assert f(1.0) == 2.0
  with pytest.raises(ember.errors.JaxRuntimeError, match="No such compile option: 'bogus'"):
    ember.jit(lambda x: x + 1, compiler_options={"bogus": True})(1.0)
  with pytest.raises(ember.errors.JaxRuntimeError, match="No such compile option: 'bogus'"):
    ember.jit(lambda x: x + 1).lower(1.0).compile(compiler_options={"bogus": 1})
  with pytest.raises(ValueError, match="`compiler_options` can only be passed to top-level"):
    ember.make_jaxpr(f)(1.0)


@arg_check("grad", "argnums")
@arg_check("value_and_grad", "argnums")
def _grad_argnums():
  f = lambda a, b: a * b ** 2  # noqa: E731
  assert ember.grad(f, argnums=1)(3.0, 2.0) == 12.0
  assert ember.grad(f, argnums=(0, 1))(3.0, 2.0) == (4.0, 12.0)
  assert ember.value_and_grad(f, argnums=1)(3.0, 2.0) == (12.0, 12.0)


@arg_check("grad", "has_aux")
@arg_check("value_and_grad", "has_aux")
def _grad_has_aux():
  g, aux = ember.grad(lambda x: (x ** 2, {"half": x / 2}), has_aux=True)(3.0)
  assert g == 6.0 and aux == {"half": 1.5}
  (v, aux), g = ember.value_and_grad(lambda x: (x ** 2, 7), has_aux=True)(3.0)
  assert (v, aux, g) == (9.0, 7, 6.0)


@arg_check("grad", "holomorphic")
@arg_check("value_and_grad", "holomorphic")
def _grad_holomorphic():
  z = jnp.complex64(1 + 2j)
  assert ember.grad(lambda z: z ** 2, holomorphic=True)(z) == 2 * z
  with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
    ember.value_and_grad(lambda x: x ** 2, holomorphic=True)(1.0)


@arg_check("grad", "allow_int")
@arg_check("value_and_grad", "allow_int")
def _grad_allow_int():
  with pytest.raises(TypeError, match="allow_int"):
    ember.grad(lambda n: n * 2.0)(3)
  g = ember.grad(lambda n: n * 2.0, allow_int=True)(3)
  assert g.dtype == ember.dtypes.float0
  _, g = ember.value_and_grad(lambda n: n * 2.0, allow_int=True)(3)
  assert g.dtype == ember.dtypes.float0


@arg_check("grad", "reduce_axes")
@arg_check("value_and_grad", "reduce_axes")
@arg_check("vjp", "reduce_axes")
@arg_check("linear_transpose", "reduce_axes")
def _reduce_axes():
  for make in (lambda: ember.grad(_sin_sum, reduce_axes=("i",)),
               lambda: ember.value_and_grad(_sin_sum, reduce_axes=("i",))):
    with pytest.raises(NotImplementedError, match="reduce_axes argument to grad is deprecated"):
      make()
  with pytest.raises(NotImplementedError, match="reduce_axes argument to vjp is deprecated"):
    ember.vjp(_sin_sum, jnp.ones(2), reduce_axes=("i",))
  with pytest.raises(NotImplementedError, match="reduce_axes argument to transpose"):
    ember.linear_transpose(lambda x: 2 * x, 1.0, reduce_axes=("i",))
  assert ember.grad(_sin_sum, reduce_axes=())(0.0) == 1.0


@arg_check("vjp", "has_aux")
@arg_check("jvp", "has_aux")
@arg_check("linearize", "has_aux")
def _has_aux():
  f = lambda x: (x * 3, {"aux": x})  # noqa: E731
  y, pullback, aux = ember.vjp(f, 2.0, has_aux=True)
  assert y == 6.0 and pullback(1.0) == (3.0,) and aux["aux"] == 2.0
  y, t, aux = ember.jvp(f, (2.0,), (1.0,), has_aux=True)
  assert (y, t, aux["aux"]) == (6.0, 3.0, 2.0)
  y, f_jvp, aux = ember.linearize(f, 2.0, has_aux=True)
  assert (y, f_jvp(1.0), aux["aux"]) == (6.0, 3.0, 2.0)


@arg_check("vmap", "in_axes", "out_axes")
def _vmap_axes():
  x = jnp.arange(6.0).reshape(2, 3)
  np.testing.assert_array_equal(ember.vmap(jnp.sum, in_axes=1)(x), [3.0, 5.0, 7.0])
  np.testing.assert_array_equal(ember.vmap(lambda r: r * 2, out_axes=1)(x), (x * 2).T)
  np.testing.assert_array_equal(
      ember.vmap(lambda r, s: r + s, in_axes=(0, None))(x, jnp.ones(3)), x + 1)


@arg_check("vmap", "axis_name")
def _vmap_axis_name():
  x = jnp.arange(4.0)
  np.testing.assert_array_equal(ember.vmap(lambda v: lax.psum(v, "i"), axis_name="i")(x),
                                np.full(4, 6.0))


@arg_check("vmap", "axis_size")
def _vmap_axis_size():
  out = ember.vmap(lambda: jnp.float32(1.0), axis_size=3)()
  np.testing.assert_array_equal(out, np.ones(3))


@arg_check("vmap", "spmd_axis_name")
def _vmap_spmd_axis_name():
  mesh = ember.make_mesh((2,), ("x",))
  body = lambda v: lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P(None)))  # noqa: E731
  def spec(closed):
    eqn, = [e for e in closed.eqns if e.primitive.name == "sharding_constraint"]
    return eqn.params["sharding"].spec

  assert spec(ember.make_jaxpr(ember.vmap(body, spmd_axis_name="x"))(jnp.ones((2, 3)))) == P("x")
  assert spec(ember.make_jaxpr(ember.vmap(body, spmd_axis_name="x", out_axes=1))(
      jnp.ones((2, 3)))) == P("x")
  assert spec(ember.make_jaxpr(ember.vmap(body, spmd_axis_name="x", in_axes=1))(
      jnp.ones((3, 2)))) == P(None, "x")
  out = ember.jit(ember.vmap(body, spmd_axis_name="x"))(jnp.ones((2, 3)))
  np.testing.assert_array_equal(out, np.full((2, 3), 2.0))


@arg_check("vmap", "randomness")
def _vmap_randomness():
  key = ember.random.key(0)
  draw = lambda x: x + ember.random.uniform(ember.random.clone(key))  # noqa: E731
  assert len(set(ember.vmap(draw, randomness="same")(jnp.zeros(3)).tolist())) == 1
  np.testing.assert_array_equal(ember.vmap(draw, randomness="different")(jnp.zeros(3)),
                                ember.vmap(ember.random.uniform)(ember.random.split(key, 3)))
  with pytest.raises(RuntimeError, match=r"random\.uniform draws from a key that the vmap"):
    ember.vmap(draw, randomness="error")(jnp.zeros(3))


@arg_check("vmap", "sum_match")
def _vmap_sum_match():
  assert ember.vmap(lambda x: x * 2, out_axes=None, sum_match=True)(jnp.arange(3.0)) == 6.0
  with pytest.raises(ValueError, match="out_axes"):
    ember.vmap(lambda x: x * 2, out_axes=None)(jnp.arange(3.0))


@arg_check("jacfwd", "argnums")
@arg_check("jacrev", "argnums")
@arg_check("jacobian", "argnums")
@arg_check("hessian", "argnums")
def _jacobian_argnums():
  f = lambda a, b: a * b ** 2  # noqa: E731
  for jac in (ember.jacfwd, ember.jacrev, ember.jacobian):
    assert jac(f, argnums=1)(3.0, 2.0) == 12.0
    assert jac(f, argnums=(0, 1))(3.0, 2.0) == (4.0, 12.0)
  assert ember.hessian(f, argnums=1)(3.0, 2.0) == 6.0


@arg_check("jacfwd", "has_aux")
@arg_check("jacrev", "has_aux")
@arg_check("jacobian", "has_aux")
@arg_check("hessian", "has_aux")
def _jacobian_has_aux():
  f = lambda x: (x ** 3, x + 1)  # noqa: E731
  for jac in (ember.jacfwd, ember.jacrev, ember.jacobian):
    assert jac(f, has_aux=True)(2.0) == (12.0, 3.0)
  assert ember.hessian(f, has_aux=True)(2.0) == (12.0, 3.0)


@arg_check("jacfwd", "holomorphic")
@arg_check("jacrev", "holomorphic")
@arg_check("jacobian", "holomorphic")
@arg_check("hessian", "holomorphic")
def _jacobian_holomorphic():
  z = jnp.complex64(1 + 1j)
  for jac in (ember.jacfwd, ember.jacrev, ember.jacobian):
    np.testing.assert_allclose(jac(lambda z: z ** 2, holomorphic=True)(z), 2 * z)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
      jac(lambda x: x ** 2, holomorphic=True)(1.0)
  np.testing.assert_allclose(ember.hessian(lambda z: z ** 3, holomorphic=True)(z), 6 * z)


@arg_check("jacrev", "allow_int", xfail="jacobians.py: the float0 cotangents fail to lower")
@arg_check("jacobian", "allow_int", xfail="jacobians.py: the float0 cotangents fail to lower")
def _jacobian_allow_int():
  with pytest.raises(TypeError, match="allow_int"):
    ember.jacrev(lambda n: n * 2.0)(3)
  jac = ember.jacrev(lambda n: n * 2.0, allow_int=True)(3)  # JAX: int zeros of the input's type
  assert jac == 0 and jac.dtype == np.int32 and jac.weak_type


@arg_check("checkpoint", "prevent_cse")
@arg_check("remat", "prevent_cse")
def _checkpoint_prevent_cse():
  for flag in (True, False):
    printed = str(ember.make_jaxpr(ember.checkpoint(jnp.sin, prevent_cse=flag))(1.0))
    assert f"prevent_cse={flag}" in printed
    np.testing.assert_allclose(ember.grad(ember.remat(jnp.sin, prevent_cse=flag))(1.0),
                               np.cos(1.0), rtol=1e-6)


@arg_check("checkpoint", "policy")
@arg_check("remat", "policy")
def _checkpoint_policy():
  def save_nothing(prim, *args, **params):
    return False

  for remat in (ember.checkpoint, ember.remat):
    try:  # a policy must shape the saved residuals, or be refused
      g = ember.grad(remat(lambda x: jnp.sin(jnp.sin(x)), policy=save_nothing))(1.0)
    except NotImplementedError as e:
      assert "policy" in str(e)
      continue
    np.testing.assert_allclose(g, np.cos(np.sin(1.0)) * np.cos(1.0), rtol=1e-6)
    jaxpr = str(ember.make_jaxpr(ember.grad(remat(jnp.sin, policy=save_nothing)))(1.0))
    assert "policy=" in jaxpr and "policy=None" not in jaxpr


@arg_check("checkpoint", "static_argnums")
@arg_check("remat", "static_argnums")
def _checkpoint_static_argnums():
  def f(n, x):
    for _ in range(n):
      x = jnp.sin(x)
    return x
  g = ember.grad(ember.checkpoint(f, static_argnums=0), argnums=1)(2, 1.0)
  np.testing.assert_allclose(g, np.cos(np.sin(1.0)) * np.cos(1.0), rtol=1e-6)


@arg_check("custom_jvp", "nondiff_argnums")
def _custom_jvp_nondiff():
  f = ember.custom_jvp(lambda n, x: x * n, nondiff_argnums=(0,))
  f.defjvp(lambda n, primals, tangents: (primals[0] * n, tangents[0] * 10 * n))
  assert ember.grad(f, argnums=1)(2.0, 3.0) == 20.0


@arg_check("custom_vjp", "nondiff_argnums")
def _custom_vjp_nondiff():
  f = ember.custom_vjp(lambda n, x: x * n, nondiff_argnums=(0,))
  f.defvjp(lambda n, x: (x * n, None), lambda n, res, ct: (ct * 10 * n,))
  assert ember.grad(f, argnums=1)(2.0, 3.0) == 20.0


@arg_check("custom_jvp", "nondiff_argnames")
def _custom_jvp_nondiff_names():
  def pow_(x, n):
    return x ** n
  f = ember.custom_jvp(pow_, nondiff_argnames=("n",))
  f.defjvp(lambda n, primals, tangents: (f(primals[0], n), 10.0 * n * tangents[0]))
  assert f.nondiff_argnums == (1,)
  assert ember.grad(f)(2.0, 3) == 30.0 and ember.grad(lambda x: f(x, n=3))(2.0) == 30.0
  with pytest.raises(ValueError, match="nondiff_argnames"):
    ember.custom_jvp(pow_, nondiff_argnames=("m",))


@arg_check("custom_vjp", "nondiff_argnames")
def _custom_vjp_nondiff_names():
  def scale(x, n):
    return x * n
  f = ember.custom_vjp(scale, nondiff_argnames=("n",))
  f.defvjp(lambda x, n: (x * n, None), lambda n, res, ct: (ct * 10 * n,))
  assert ember.grad(f)(2.0, 3.0) == 30.0


@arg_check("checkpoint", "concrete")
@arg_check("remat", "concrete")
def _checkpoint_concrete():
  for make in (ember.checkpoint, ember.remat):
    with pytest.raises(NotImplementedError, match="concrete"):
      make(jnp.sin, concrete=False)


@arg_check("checkpoint", "static_argnames")
def _checkpoint_static_argnames():
  # As JAX 0.10.2's checkpoint: accepted, and keyword arguments stay traced.
  def f(x, flag=False):
    return jnp.sin(x) if flag else jnp.cos(x)
  g = ember.checkpoint(f, static_argnames="flag")
  np.testing.assert_allclose(g(1.0), np.cos(1.0), rtol=1e-6)
  with pytest.raises(ember.errors.TracerBoolConversionError):
    g(1.0, flag=True)


@arg_check("custom_jvp.defjvp", "symbolic_zeros")
def _defjvp_symbolic_zeros():
  seen = []

  @ember.custom_jvp
  def f(x, y):
    return x * y

  def f_jvp(primals, tangents):
    seen.append([type(t).__name__ for t in tangents])
    return f(*primals), primals[1] * tangents[0]

  f.defjvp(f_jvp, symbolic_zeros=True)
  ember.jvp(lambda x: f(x, 2.0), (1.0,), (1.0,))
  assert seen[-1][1] == "SymbolicZero"


@arg_check("custom_vjp.defvjp", "symbolic_zeros")
def _defvjp_symbolic_zeros():
  @ember.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    assert x.perturbed and not y.perturbed
    return f(x.value, y.value), y.value

  f.defvjp(fwd, lambda y, ct: (ct * y, None), symbolic_zeros=True)
  assert ember.grad(lambda x: f(x, 2.0))(1.0) == 2.0


@arg_check("make_jaxpr", "static_argnums")
def _make_jaxpr_static():
  closed = ember.make_jaxpr(lambda x, n: x * n, static_argnums=1)(1.0, 3)
  assert len(closed.in_avals) == 1 and "3.0" in str(closed)


@arg_check("make_jaxpr", "axis_env")
def _make_jaxpr_axis_env():
  closed = ember.make_jaxpr(lambda x: lax.psum(x, "i"), axis_env=[("i", 4)])(1.0)
  assert "psum" in str(closed)


@arg_check("make_jaxpr", "return_shape")
def _make_jaxpr_return_shape():
  _, shape = ember.make_jaxpr(lambda x: {"y": x * 2}, return_shape=True)(jnp.ones(3))
  assert shape == {"y": ember.ShapeDtypeStruct((3,), jnp.float32)}


@arg_check("shard_map", "mesh", "in_specs", "out_specs")
def _shard_map_specs():
  mesh = ember.make_mesh((2,), ("x",))
  f = ember.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
  np.testing.assert_array_equal(f(jnp.arange(4.0)), [0.0, 2.0, 4.0, 6.0])
  f = ember.shard_map(lambda b: lax.psum(b.sum(), "x"), mesh=mesh, in_specs=P("x"),
                      out_specs=P())
  assert f(jnp.arange(4.0)) == 6.0


@arg_check("shard_map", "check_vma")
def _shard_map_check_vma():
  mesh = ember.make_mesh((2,), ("x",))
  ident = lambda b: b  # noqa: E731
  with pytest.raises(ValueError, match="out_specs which require replication"):
    ember.shard_map(ident, mesh=mesh, in_specs=P("x"), out_specs=P())(jnp.arange(4.0))
  out = ember.shard_map(ident, mesh=mesh, in_specs=P("x"), out_specs=P(),
                        check_vma=False)(jnp.arange(4.0))
  np.testing.assert_array_equal(out, [0.0, 1.0])  # the first device's block, unchecked


@arg_check("shard_map", "axis_names")
def _shard_map_axis_names():
  mesh = ember.make_mesh((2, 2), ("x", "y"))
  f = lambda b: b * 2  # noqa: E731
  out = ember.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                        axis_names={"x", "y"})(jnp.arange(4.0))
  np.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
  with pytest.raises(NotImplementedError, match="axis_names"):
    ember.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                    axis_names={"x"})(jnp.arange(4.0))


@arg_check("pmap", "axis_name", "in_axes", "out_axes")
def _pmap_axes():
  x = jnp.arange(8.0).reshape(2, 4)
  out = ember.pmap(lambda r, w: lax.psum(r * w, "d"), axis_name="d", in_axes=(1, None),
                   out_axes=1)(x, 2.0)
  np.testing.assert_array_equal(out, np.broadcast_to(2 * x.sum(1, keepdims=True), (2, 4)))


@arg_check("pmap", "static_broadcasted_argnums", "axis_size")
def _pmap_static_and_size():
  out = ember.pmap(lambda r, n: r * n, static_broadcasted_argnums=1, axis_size=2)(
      jnp.ones((2, 3)), 4)
  np.testing.assert_array_equal(out, np.full((2, 3), 4.0))
  with pytest.raises(ValueError, match="axis_size=3"):
    ember.pmap(lambda r: r, axis_size=3)(jnp.ones((2, 3)))


@arg_check("pmap", "devices", "backend")
def _pmap_devices_backend():
  devs = ember.devices()[2:4]
  out = ember.pmap(lambda r: r + 1, devices=devs, backend="cpu")(jnp.zeros((2, 3)))
  assert [s.device for s in out.addressable_shards] == devs
  with pytest.raises(RuntimeError, match="Unknown backend: 'gpu'"):
    ember.pmap(lambda r: r, backend="gpu")


@arg_check("pmap", "donate_argnums")
def _pmap_donate():
  y = ember.pmap(lambda r: r)(jnp.ones((2, 3)))  # already laid out as pmap's argument
  np.testing.assert_array_equal(ember.pmap(lambda r: r * 2, donate_argnums=0)(y), 2.0)
  assert y.is_deleted()


@arg_check("device_put", "device", "src")
def _device_put_device():
  d = ember.devices()[1]
  x = ember.device_put(jnp.ones(2), d)
  assert x.devices() == {d} and x.committed
  y = ember.device_put(x, src=d)  # checked like device; no effect on a single process
  assert y is x
  with pytest.raises(ValueError, match="Expected a Device"):
    ember.device_put(x, src="cpu:0")


@arg_check("device_put", "donate", "may_alias")
def _device_put_donate_may_alias():
  x = jnp.ones(3)
  assert ember.device_put(x) is x and ember.device_put(x, may_alias=True) is x
  copied = ember.device_put(x, may_alias=False)
  assert copied is not x and not x.is_deleted()
  np.testing.assert_array_equal(copied, x)
  donated = ember.device_put(x, donate=True)  # JAX on CPU: a new array, the input stays
  assert donated is not x and not x.is_deleted()
  with pytest.raises(ValueError, match="may_alias and donate cannot be True at the same time"):
    ember.device_put(x, donate=True, may_alias=True)
  n = np.ones(3, np.float32)
  y = ember.device_put(n, may_alias=False)
  n[0] = 5.0
  np.testing.assert_array_equal(y, np.ones(3))
  a, b = jnp.ones(2), jnp.zeros(2)
  out = ember.device_put((a, b), may_alias=(False, True))
  assert out[0] is not a and out[1] is b


# --- the enumerations ----------------------------------------------------------------------------

TRANSFORMS = {
    "jit": (ember.jit, {"fun"}),
    "grad": (ember.grad, {"fun"}),
    "value_and_grad": (ember.value_and_grad, {"fun"}),
    "vjp": (ember.vjp, {"fun", "primals"}),
    "jvp": (ember.jvp, {"fun", "primals", "tangents"}),
    "linearize": (ember.linearize, {"fun", "primals"}),
    "vmap": (ember.vmap, {"fun"}),
    "jacfwd": (ember.jacfwd, {"fun"}),
    "jacrev": (ember.jacrev, {"fun"}),
    "jacobian": (ember.jacobian, {"fun"}),
    "hessian": (ember.hessian, {"fun"}),
    "checkpoint": (ember.checkpoint, {"fun"}),
    "remat": (ember.remat, {"fun"}),
    "custom_jvp": (ember.custom_jvp, {"self", "fun"}),
    "custom_vjp": (ember.custom_vjp, {"self", "fun"}),
    "custom_jvp.defjvp": (ember.custom_jvp.defjvp, {"self", "jvp"}),
    "custom_vjp.defvjp": (ember.custom_vjp.defvjp, {"self", "fwd", "bwd"}),
    "make_jaxpr": (ember.make_jaxpr, {"fun"}),
    "eval_shape": (ember.eval_shape, {"fun", "args", "kwargs"}),
    "shard_map": (ember.shard_map, {"f"}),
    "pmap": (ember.pmap, {"fun"}),
    "device_put": (ember.device_put, {"x"}),
    "linear_transpose": (ember.linear_transpose, {"fun", "primals"}),
}


def _options_of(fn, positional):
  target = fn.__init__ if inspect.isclass(fn) else fn
  return [name for name in inspect.signature(target).parameters if name not in positional]


def test_every_config_option_has_a_behaviour_check():
  options = set(ember.config.values())
  assert options == set(CONFIG_CHECKS), (
      f"options without a check: {sorted(options - set(CONFIG_CHECKS))}; checks of options that "
      f"do not exist: {sorted(set(CONFIG_CHECKS) - options)}")


def test_every_transform_argument_has_a_behaviour_check():
  declared = {(t, a) for t, (fn, positional) in TRANSFORMS.items()
              for a in _options_of(fn, positional)}
  assert declared == set(ARG_CHECKS), (
      f"arguments without a check: {sorted(declared - set(ARG_CHECKS))}; checks of arguments "
      f"that do not exist: {sorted(set(ARG_CHECKS) - declared)}")


@pytest.mark.parametrize("name", sorted(CONFIG_CHECKS))
def test_config_option(name):
  CONFIG_CHECKS[name]()


@pytest.mark.parametrize("transform, arg", [
    pytest.param(t, a, marks=getattr(fn, "pytestmark", ()))
    for (t, a), fn in sorted(ARG_CHECKS.items())])
def test_transform_argument(transform, arg):
  ARG_CHECKS[(transform, arg)]()


def test_option_context_managers_take_jax_default():
  # JAX's NoDefault: a boolean option not given is turned on; any other needs a value, with
  # JAX's TypeError at the call.
  with ember.enable_x64():
    assert ember.config.jax_enable_x64
  for make in (ember.default_device, ember.numpy_rank_promotion, ember.default_matmul_precision,
               ember.transfer_guard_host_to_device):
    with pytest.raises(TypeError, match=f"Context manager for {make.__name__} config option "
                       "requires an argument"):
      make()
  assert repr(inspect.signature(ember.debug_nans).parameters["new_val"].default).startswith("<")
