"""Devices and placement: committed/uncommitted arrays, device_put, to_device, jit placement."""
import numpy as np
import pytest

import ember
from ember import lax


def test_eight_cpu_devices_from_xla_flags():
  devs = ember.devices()
  assert ember.device_count() == 8 and len(ember.local_devices()) == 8
  assert [d.id for d in devs] == list(range(8))
  assert ember.default_backend() == "cpu"
  assert repr(devs[0]) == "CpuDevice(id=0)"


def test_device_put_commits_and_ops_follow_committed_inputs():
  d1 = ember.devices()[1]
  a = ember.device_put(np.arange(3, dtype=np.float32), d1)
  assert a.device == d1 and a.committed
  b = ember.device_put(np.ones(3, np.float32))
  assert b.device == ember.devices()[0] and not b.committed
  c = lax.add(a, b)
  assert c.device == d1 and c.committed
  np.testing.assert_array_equal(np.asarray(c), [1, 2, 3])
  assert not lax.add(b, 1.0).committed


def test_two_committed_devices_is_a_value_error_naming_both():
  a = ember.device_put(np.ones(2, np.float32), ember.devices()[1])
  b = ember.device_put(np.ones(2, np.float32), ember.devices()[2])
  with pytest.raises(ValueError, match=r"id=1.*id=2"):
    lax.add(a, b)
  with pytest.raises(ValueError, match="incompatible devices"):
    ember.jit(lambda x, y: lax.add(x, y))(a, b)


def test_jit_runs_where_committed_inputs_live():
  d3 = ember.devices()[3]
  a = ember.device_put(np.ones(2, np.float32), d3)
  out = ember.jit(lambda x: lax.mul(x, 2.0))(a)
  assert out.device == d3 and out.committed
  np.testing.assert_array_equal(np.asarray(out), [2, 2])


def test_to_device_moves_data():
  a = ember.device_put(np.arange(4, dtype=np.int32))
  b = a.to_device(ember.devices()[5])
  assert b.device == ember.devices()[5] and b.committed
  np.testing.assert_array_equal(np.asarray(b), np.arange(4))
  with pytest.raises(ValueError, match="Expected a Device"):
    a.to_device("gpu")


def test_sharding_of_single_device_array():
  a = ember.device_put(np.ones(2, np.float32), ember.devices()[2])
  assert repr(a.sharding) == "SingleDeviceSharding(device=CpuDevice(id=2), memory_kind=device)"
  assert a.devices() == {ember.devices()[2]}
  (shard,) = a.addressable_shards
  assert shard.device == ember.devices()[2]
  np.testing.assert_array_equal(np.asarray(shard.data), [1, 1])


def test_late_num_cpu_devices_update_is_refused():
  ember.devices()
  with pytest.raises(RuntimeError, match="before ember's backend is first used"):
    ember.config.update("jax_num_cpu_devices", 3)
  assert ember.device_count() == 8


def test_device_class_is_jaxlibs():
  # JAX 0.10.2: jax.Device is jaxlib's device class, of every device
  assert all(isinstance(d, ember.Device) for d in ember.devices())
  assert ember.Device.__module__ == "jaxlib._jax" and ember.Device.__name__ == "Device"
