"""ember beside the ``jax`` package in one process: eager ops, jit, bf16 and float8 reads,
sharded arrays and their shards, DLPack, all without importing ``jax``; then a real ``import
jax`` in the same process, which must work.

Run in its own process, with jax importable (tests/test_gpu_platforms.py installs jax 0.10.2
beside ember and runs this with XLA_FLAGS=--xla_force_host_platform_device_count=4, comparing
what it prints). ember itself never imports jax; only this script, after ember's part, does.
"""
import sys
import numpy as np
import ember, ember.numpy as jnp
from ember.sharding import NamedSharding, PartitionSpec as P
x = jnp.arange(4.0)
print("eager", x + 1)
print("jit", ember.jit(lambda a: a * 2)(x))
print("bf16", jnp.ones(3, jnp.bfloat16) * 1.5, np.asarray(jnp.arange(3, dtype=jnp.float8_e4m3fn)))
mesh = ember.make_mesh((4,), ("i",))
s = ember.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
print("sharded", s, ember.device_put(jnp.arange(4, dtype=jnp.bfloat16), NamedSharding(mesh, P("i"))))
print("shards", [sh.data.tolist() for sh in s.addressable_shards])
print("dlpack", np.from_dlpack(x), jnp.from_dlpack(np.arange(3.0)))
print("imported", "jax" in sys.modules)
import jax, jax.numpy as jjnp
js = jax.device_put(jjnp.arange(8.0), jax.sharding.NamedSharding(
    jax.make_mesh((4,), ("i",)), jax.sharding.PartitionSpec("i")))
print("jax", jax.jit(lambda a: a + 1)(jjnp.ones(2)), jjnp.ones(2, jjnp.bfloat16), js,
      js.addressable_shards[1].data)
