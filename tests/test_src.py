"""ember._src: the JAX-private names libraries import (chex's restrict_backends and
set_n_cpu_devices), with JAX 0.10.2's behaviour."""
import subprocess
import sys

import ember
from ember._src import compiler, xla_bridge


def test_every_compilation_goes_through_backend_compile_and_load():
  inner = compiler.backend_compile_and_load
  platforms = []

  def spy(backend, *args, **kwargs):
    platforms.append(backend.platform)
    return inner(backend, *args, **kwargs)

  compiler.backend_compile_and_load = spy
  try:
    # (results are compared after counting: comparing them runs eager ops, which compile too)
    one = ember.jit(lambda x: x * 5.4375 + 1)(2.0)
    single = len(platforms)
    mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
    x = ember.device_put(ember.numpy.arange(4.0), ember.sharding.NamedSharding(mesh, ember.P("i")))
    before = len(platforms)
    many = ember.jit(lambda x: x * 7.25 - 2)(x)
    sharded = len(platforms) - before
  finally:
    compiler.backend_compile_and_load = inner
  assert single == 1 and sharded >= 1 and set(platforms) == {"cpu"}
  assert one == 11.875 and list(many) == [-2.0, 5.25, 12.5, 19.75]


def test_a_refusing_wrapper_stops_compilation():
  inner = compiler.backend_compile_and_load

  def refuse(backend, *args, **kwargs):
    raise RuntimeError(f"compiling for {backend.platform} is forbidden")

  compiler.backend_compile_and_load = refuse
  try:
    try:
      ember.jit(lambda x: x * 11.125 + 3)(2.0)
      raised = None
    except RuntimeError as e:
      raised = str(e)
  finally:
    compiler.backend_compile_and_load = inner
  assert raised == "compiling for cpu is forbidden"


def test_backends_are_listed_once_started():
  ember.devices()
  assert list(xla_bridge._backends) == ["cpu"]
  code = ("import ember, sys; from ember._src import xla_bridge as xb; a = dict(xb._backends); "
          "ember.numpy.ones(2); print(sorted(a), sorted(xb._backends))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.strip() == "[] ['cpu']"  # JAX: {} before the first operation
