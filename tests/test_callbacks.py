"""Host callbacks beyond the corpus (tests/corpus/programs/callbacks.py holds JAX's output): an
exception raised inside reaches the caller, programs differing only in their callback do not
share an executable, results are checked against their declared types, the shardings of
callbacks in programs over a mesh, jaxprs, debug.log's records, the debugger's commands, and
the refusals."""
import io
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember.experimental import io_callback

S = ember.ShapeDtypeStruct


def test_an_exception_inside_a_callback_reaches_the_caller():
  def bad(x):
    raise RuntimeError("boom in callback")

  with pytest.raises(RuntimeError, match="boom in callback"):
    ember.debug.callback(bad, jnp.ones(2))
  with pytest.raises(Exception, match="boom in callback"):
    ember.block_until_ready(ember.jit(lambda x: ember.pure_callback(bad, S((2,), jnp.float32),
                                                                    x))(jnp.ones(2)))


def test_each_callback_keeps_its_own_program():
  seen = []
  for tag in ("a", "b"):
    f = ember.jit(lambda x, tag=tag: ember.debug.callback(lambda v: seen.append(tag), x) or x)
    ember.block_until_ready(f(jnp.ones(2)))
  assert seen == ["a", "b"]


def test_results_are_checked_and_narrowed_like_jax():
  narrowed = ember.jit(lambda x: ember.pure_callback(lambda v: np.asarray(v, np.float64),
                                                     S((2,), jnp.float32), x))(jnp.ones(2))
  assert narrowed.dtype == jnp.float32
  np.testing.assert_array_equal(narrowed, [1.0, 1.0])
  with pytest.raises(TypeError, match=r"returned an array of shape \(3,\)"):
    ember.pure_callback(lambda v: np.zeros(3, np.float32), S((2,), jnp.float32), jnp.ones(2))
  with pytest.raises(TypeError, match="returned a value of structure"):
    ember.pure_callback(lambda v: [1.0, 2.0], S((2,), jnp.float32), jnp.ones(2))


def test_io_callback_runs_every_time_and_pure_callback_batches_by_method():
  calls = []

  def count(v):
    calls.append(1)
    return np.int32(len(calls))

  f = ember.jit(lambda x: io_callback(count, S((), jnp.int32), x))
  assert [int(f(1.0)) for _ in range(3)] == [1, 2, 3]
  both = ember.vmap(lambda v: ember.pure_callback(lambda u: u * 2, S((), jnp.float32), v,
                                                  vmap_method="broadcast_all"))(jnp.arange(3.0))
  np.testing.assert_array_equal(both, [0.0, 2.0, 4.0])


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: ember.debug.print("{}", jnp.ones(2), ordered=True), NotImplementedError, "ordered"),
    (lambda: ember.debug.breakpoint(ordered=True), NotImplementedError, "ordered"),
    (lambda: io_callback(print, None, ordered=True), NotImplementedError, "ordered"),
    (lambda: ember.pure_callback(print, S((), jnp.float32), 1.0, sharding=object()),
     NotImplementedError, "sharding"),
    (lambda: ember.pure_callback(print, S((), jnp.float32), 1.0, vmap_method="fast"),
     ValueError, "vmap_method must be one of"),
    (lambda: ember.pure_callback(3, S((), jnp.float32), 1.0), TypeError, "must be callable"),
    (lambda: ember.pure_callback(print, (3,), 1.0), TypeError, "shape and dtype"),
    (lambda: ember.debug.print(3), TypeError, "expected str"),
    (lambda: ember.vmap(lambda v: ember.pure_callback(lambda u: u, S((), jnp.float32), v))(
        jnp.ones(2)), NotImplementedError, "vmap_method"),
    (lambda: ember.debug.print("hi", 1, a=2, skip_format_check=True), TypeError,
     "need placeholders"),
    (lambda: ember.vmap(lambda v: io_callback(lambda u: u, S((), jnp.float32), v,
                                              ordered=True))(jnp.ones(2)),
     NotImplementedError, "ordered"),
])
def test_refusals_name_what_is_not_supported(call, exc, phrase):
  with pytest.raises(exc, match=phrase):
    call()


def _mesh(n=4):
  return ember.sharding.Mesh(np.array(ember.devices()[:n]), ("i",))


def test_callbacks_in_mesh_programs_carry_jaxs_shardings():
  # as JAX 0.10.2 lowers them: inside shard_map an empty mesh (every device calls back with its
  # block), in a jit over sharded arguments a maximal sharding on device 0 (one call)
  body = lambda b: ember.debug.print("{}", b) or ember.pure_callback(
      lambda v: v, S(b.shape, b.dtype), b)
  f = ember.jit(ember.shard_map(body, mesh=_mesh(), in_specs=ember.P("i"),
                                out_specs=ember.P("i")))
  text = f.lower(jnp.arange(8.0)).as_text()
  assert "sdy.mesh @empty_mesh = <[]>" in text
  assert "sdy.sharding = #sdy.sharding_per_value<[<@empty_mesh, []>]>" in text
  assert "sdy.sharding = #sdy.sharding_per_value<[<@empty_mesh, [{}]>]>" in text
  x = ember.device_put(jnp.arange(8.0), ember.NamedSharding(_mesh(), ember.P("i")))
  text = ember.jit(body).lower(x).as_text()
  assert "sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>" in text
  assert text.count("#sdy.sharding_per_value<[<@maximal_mesh_0, []>]>") == 2
  single = ember.jit(body).lower(jnp.arange(8.0)).as_text()
  assert "sdy.sharding" not in single and "operand_layouts = [dense<0> : tensor<1xindex>]" \
      in single


def test_partitioned_callbacks_use_xlas_partitioned_target():
  f = ember.jit(lambda v: ember.debug.callback(print, v, partitioned=True))
  assert "xla_ffi_partitioned_python_cpu_callback" in f.lower(jnp.ones(2)).as_text()


def test_ember_ops_inside_callbacks_on_xla_threads_do_not_crash():
  # a callback on one of XLA's threads that compiles (here: an eager multiply) once crashed
  # the process when that thread's temporary Python state was torn down; run it apart
  script = textwrap.dedent("""
      import numpy as np, ember, ember.numpy as jnp
      S = ember.ShapeDtypeStruct
      mesh = ember.sharding.Mesh(np.array(ember.devices()[:4]), ("i",))
      f = ember.jit(ember.shard_map(
          lambda b: ember.pure_callback(lambda v: jnp.cos(v * 3), S(b.shape, b.dtype), b),
          mesh=mesh, in_specs=ember.P("i"), out_specs=ember.P("i")))
      print([round(float(v), 3) for v in f(jnp.arange(8.0))])
  """)
  env = dict(os.environ, EMBER_CACHE="0",
             XLA_FLAGS="--xla_force_host_platform_device_count=8")
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  proc = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True,
                        text=True, timeout=300, check=False)
  assert proc.returncode == 0, proc.stderr[-2000:]
  assert proc.stdout.strip() == str([round(float(v), 3) for v in np.cos(np.arange(8.0) * 3)])


def test_jaxprs_show_jaxs_primitives_and_params():
  def f(x):
    ember.debug.print("x={} {}", x, "s")
    ember.debug.callback(lambda a: None, x)
    return ember.pure_callback(np.sin, S((), jnp.float32), x) + io_callback(
        np.cos, S((), jnp.float32), x)

  text = str(ember.make_jaxpr(f)(1.0))
  for piece in ("debug_print[", "fmt=x={} {}", "has_placeholders=True", "logging_record=None",
                "static_args=((1, 's'),)", "debug_callback[", "effect=Debug",
                "partitioned=False", "pure_callback[",
                "callback=_FlatCallback(callback_func=<ufunc 'sin'>", "vmap_method=None",
                "io_callback[", "ordered=False", "result_avals=(ShapedArray(float32[]),)"):
    assert piece in text, piece
  seq = ember.make_jaxpr(ember.vmap(lambda v: ember.pure_callback(
      lambda u: u, S((), jnp.float32), v, vmap_method="sequential")))(jnp.ones(2))
  assert "scan[" in str(seq)


def test_debug_log_records_the_callers_line(caplog):
  with caplog.at_level(logging.INFO, logger="ember.debug"):
    ember.jit(lambda x: ember.debug.log("value {}", x) or x)(2.0).block_until_ready()
  (record,) = [r for r in caplog.records if r.name == "ember.debug"]
  assert record.levelno == logging.INFO and record.getMessage() == "value 2.0"
  assert record.filename == "test_callbacks.py"


def test_debugger_commands_match_jdb():
  out = io.StringIO()

  def f(x):
    y = x + 1
    ember.debug.breakpoint(stdin=io.StringIO("y\nup\ndown\nd\nw\nhelp c\n\nc\n"), stdout=out,
                           num_frames=2, backend="web")
    return y

  ember.jit(f)(jnp.float32(1.0)).block_until_ready()
  text = out.getvalue()
  assert text.startswith("Entering jdb:\n(jdb) Array(2., dtype=float32)\n")
  assert "At bottommost frame." in text and "Traceback:\n  File " in text
  assert "Continue the program." in text
  with pytest.raises(SystemExit):  # end of input quits, as in JAX
    ember.debug.breakpoint(stdin=io.StringIO(""), stdout=io.StringIO())
