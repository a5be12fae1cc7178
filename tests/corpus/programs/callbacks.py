"""Host callbacks: debug.print and debug.callback eagerly, under jit, vmap (once per example),
grad (primal values), scan and cond; pure_callback's results, its vmap methods and its refusal
to be differentiated; io_callback. Inside shard_map, pmap and a jit over sharded arguments;
debug.print's format rules, debug.log, debug.breakpoint's debugger. What a user sees includes
what they print."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
io_callback = submodule("experimental").io_callback


def _show(x):
  jax.debug.print("x = {}", x)
  jax.debug.print("sum {s} and {t}", s=x.sum(), t=x * 2)
  return jnp.sin(x)


@program
def debug_print_eager_jit_vmap_grad():
  x = jnp.arange(3.0)
  _show(x)
  a = jax.jit(_show)(x).block_until_ready()
  b = jax.vmap(_show)(x).block_until_ready()
  g = jax.grad(lambda v: _show(v).sum())(x)
  return a, b, g


@program
def debug_print_in_scan_and_cond():
  def step(c, t):
    jax.debug.print("step {} {}", c, t)
    return c + t, c

  total, cs = lax.scan(step, 0.0, jnp.arange(3.0))

  def positive(v):
    jax.debug.print("cond {}", v)
    return v

  return total, cs, jax.jit(lambda x: lax.cond(x > 0, positive, lambda v: -v, x))(2.0)


@program
def debug_callback_sees_numpy_values():
  seen = []

  def look(x):
    jax.debug.callback(lambda v: seen.append((str(v.dtype), v.shape)), x)
    return x

  jax.block_until_ready(jax.jit(look)(jnp.ones((2, 2))))
  return seen


@program
def pure_callback_results_and_vmap_methods():
  x = jnp.arange(3.0)
  s = jax.ShapeDtypeStruct
  a = jax.jit(lambda v: jax.pure_callback(np.cumsum, s((3,), jnp.float32), v))(x)
  b = jax.vmap(lambda v: jax.pure_callback(lambda u: u * 2, s((), jnp.float32), v,
                                           vmap_method="sequential"))(x)
  c = jax.vmap(lambda v: jax.pure_callback(lambda u: u * 3, s((), jnp.float32), v,
                                           vmap_method="expand_dims"))(x)
  d = jax.pure_callback(lambda u: (u.astype(np.int32), u + 1),
                        (s((3,), jnp.int32), s((3,), jnp.float32)), x)
  return a, b, c, d


@program
def pure_callback_is_not_differentiable():
  return jax.grad(lambda x: jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32),
                                              x))(1.0)


@program
def io_callback_under_jit():
  calls = []

  def log(v):
    calls.append(float(v))
    return np.float32(len(calls))

  f = jax.jit(lambda x: io_callback(log, jax.ShapeDtypeStruct((), jnp.float32), x) * 10)
  return f(2.0), f(3.0), calls


# --- inside SPMD programs: shard_map and pmap call back once per device with its block; a jit
# over sharded arguments once, with whole values. Devices call back concurrently, so programs
# that see several calls return the lines sorted.

def _mesh(n=4):
  return jax.sharding.Mesh(np.array(jax.devices()[:n]), ("i",))


def _printed(run):
  """What ``run()`` prints (each line once per device: sorted), and its blocked result."""
  import contextlib
  import io
  out = io.StringIO()
  with contextlib.redirect_stdout(out):
    result = jax.block_until_ready(run())
  return sorted(out.getvalue().splitlines()), result


@program
def shard_map_debug_print_once_per_device():
  P = jax.sharding.PartitionSpec

  def body(b):
    jax.debug.print("block {} sum {s}", b, s=b.sum())
    return b * 2

  f = jax.shard_map(body, mesh=_mesh(), in_specs=P("i"), out_specs=P("i"))
  return _printed(lambda: jax.jit(f)(jnp.arange(8.0))), _printed(lambda: f(jnp.arange(4.0)))


@program
def shard_map_pure_and_io_callbacks_per_block():
  P = jax.sharding.PartitionSpec
  s = jax.ShapeDtypeStruct
  seen = []

  def body(b):
    r = jax.pure_callback(lambda v: v * 10, s(b.shape, b.dtype), b)
    q = io_callback(lambda v: seen.append(v.tolist()) or v.sum(keepdims=True),
                    s((1,), b.dtype), b)
    return r + q

  f = jax.jit(jax.shard_map(body, mesh=_mesh(), in_specs=P("i"), out_specs=P("i")))
  out = jax.block_until_ready(f(jnp.arange(8.0)))
  return out, sorted(seen)


@program
def shard_map_callbacks_in_control_flow_and_vmap():
  P = jax.sharding.PartitionSpec

  def body(b):
    lax.cond(b.sum() > 2, lambda v: jax.debug.print("big {}", v), lambda v: None, b)
    jax.vmap(lambda e: jax.debug.print("element {}", e))(b)

    def step(c, t):
      jax.debug.print("carry {} t {}", c, t)
      return c + t, None

    total, _ = lax.scan(step, b[0] * 0, b)
    return b + total

  f = jax.jit(jax.shard_map(body, mesh=_mesh(), in_specs=P("i"), out_specs=P("i")))
  return _printed(lambda: f(jnp.arange(8.0)))


@program
def shard_map_two_axes_and_grad():
  P = jax.sharding.PartitionSpec
  mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))

  def body(b):
    jax.debug.print("tile {}", b.ravel())
    return jnp.sin(b)

  f = jax.shard_map(body, mesh=mesh, in_specs=P("a", "b"), out_specs=P("a", "b"))
  x = jnp.arange(16.0).reshape(4, 4)
  return (_printed(lambda: jax.jit(f)(x)),
          _printed(lambda: jax.jit(jax.grad(lambda v: f(v).sum()))(x)))


@program
def sharded_jit_calls_back_once_with_whole_values():
  P = jax.sharding.PartitionSpec
  s = jax.ShapeDtypeStruct
  x = jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(_mesh(), P("i")))

  def f(v):
    jax.debug.print("whole {}", v)
    jax.debug.callback(lambda a: print("callback shape", a.shape), v)
    return jax.pure_callback(lambda a: a + 1, s(v.shape, v.dtype), v) * 2

  def g(v):
    return io_callback(lambda a: a[::-1], s(v.shape, v.dtype), v)

  return _printed(lambda: jax.jit(f)(x)), _printed(lambda: jax.jit(g)(x))


@program
def partitioned_debug_print_sees_each_shard():
  P = jax.sharding.PartitionSpec
  x = jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(_mesh(), P("i")))
  f = jax.jit(lambda v: jax.debug.print("shard {}", v, partitioned=True) or v + 1)
  g = jax.jit(lambda v: jax.debug.callback(lambda a: print("local", a), v,
                                           partitioned=True) or v)
  return _printed(lambda: f(x)), _printed(lambda: g(jnp.arange(3.0)))


@program
def pmap_calls_back_once_per_device():
  s = jax.ShapeDtypeStruct

  def body(b):
    jax.debug.print("pmap {}", b)
    return jax.pure_callback(lambda v: v + 100, s(b.shape, b.dtype), b)

  return _printed(lambda: jax.pmap(body)(jnp.arange(8.0).reshape(4, 2)))


# --- debug.print's rules, debug.log, debug.callback's forms, debug.breakpoint ---------------

@program
def debug_print_static_args_and_formats():
  f = jax.jit(lambda x: jax.debug.print("{} {!r} {:.2f} {n}", x, "text", x, n=None) or x)
  f(jnp.float32(1.5)).block_until_ready()
  jax.debug.print("no placeholders:", jnp.arange(3), "and", 7, skip_format_check=True)
  jax.debug.print("braces {{}} stay {}", 1)
  jax.debug.print(ordered=False)("two-call form {x}", x=jnp.ones(2))
  with np.printoptions(precision=2):
    jax.jit(lambda x: jax.debug.print("third {}", x) or x)(jnp.array([1 / 3])).block_until_ready()
  return None


@program
def debug_print_unused_positional_argument():
  jax.debug.print("{}", 1, 2)


@program
def debug_print_unused_keyword_argument():
  jax.debug.print("{a}", a=1, b=2)


@program
def debug_print_missing_argument():
  jax.debug.print("{} {}", 1)


@program
def debug_print_two_call_form_refuses_arguments():
  jax.debug.print(None, 3)


@program
def debug_callback_forms_and_arrays():
  seen = []
  jax.debug.callback(lambda a, tag, *, k: seen.append((type(a).__name__, repr(a), tag, repr(k))),
                     jnp.arange(2), "tag", k=3)
  jax.jit(lambda x: jax.debug.callback(lambda a: seen.append(repr(a)), x) or x)(
      jnp.int32(4)).block_until_ready()
  jax.debug.callback()(lambda a: seen.append(repr(a)), 2.5)
  return seen


@program
def debug_callback_refuses_non_callables():
  jax.debug.callback(3, 1.0)


@program
def callbacks_receive_arrays():
  s = jax.ShapeDtypeStruct
  seen = []

  def look(v):
    seen.append(repr(v))
    return v

  jax.pure_callback(look, s((), jnp.float32), 1.0)
  jax.jit(lambda x: jax.pure_callback(look, s((2,), jnp.int32), x))(jnp.arange(2))
  io_callback(look, s((), jnp.float32), 2.0)
  return seen


@program
def callbacks_refuse_non_array_arguments():
  return jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), "text")


@program
def io_callback_refuses_jvp():
  f = lambda x: io_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x)
  return jax.jvp(f, (1.0,), (1.0,))


@program
def debug_log_goes_to_python_logging():
  import io
  import logging
  out = io.StringIO()
  handler = logging.StreamHandler(out)
  handler.setFormatter(logging.Formatter("%(levelname)s %(filename)s:%(lineno)d %(message)s"))
  root = logging.getLogger()
  root.addHandler(handler)
  try:
    jax.debug.log("eager {}", jnp.arange(2))
    jax.jit(lambda x: jax.debug.log("jit {x}", x=x * 2) or x)(1.0).block_until_ready()
    jax.vmap(lambda x: jax.debug.log("row {}", x))(jnp.arange(2.0))
  finally:
    root.removeHandler(handler)
  return out.getvalue()


@program
def debug_effect_names():
  return str(jax.debug.DebugEffect()), str(jax.debug.OrderedDebugEffect())


@program
def breakpoint_eager_and_under_jit():
  import io
  out = io.StringIO()

  def f(x):
    y = x * 2
    jax.debug.breakpoint(stdin=io.StringIO("p x\np y\npp {'y': y}\nl\nd\nmissing\nc\n"),
                         stdout=out, num_frames=1)
    return y

  f(jnp.float32(1.5))
  print(out.getvalue())
  out.truncate(0)
  out.seek(0)
  jax.jit(f)(jnp.float32(2.5)).block_until_ready()
  print(out.getvalue())


@program
def breakpoint_under_vmap_and_with_token():
  import io
  out = io.StringIO()

  def f(x):
    jax.debug.breakpoint(stdin=io.StringIO("p x\nc\np x\nc\n"), stdout=out, num_frames=1)
    return x

  jax.vmap(f)(jnp.arange(2.0))

  def g(x):
    y = x + 1
    y = jax.debug.breakpoint(token=y, stdin=io.StringIO("p y\nc\n"), stdout=out,
                             num_frames=1)
    return y * 2

  r = jax.jit(g)(1.0)
  print(out.getvalue())
  return r


@program
def breakpoint_token_and_ordered_are_exclusive():
  jax.debug.breakpoint(token=1.0, ordered=True)
