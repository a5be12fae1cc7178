"""shard_map: collectives against their definitions on meshes of 1, 2, 4 and 8 devices, spec
combinations against the unsharded computation, and composition with jit, grad and vmap.

Each collective's result is checked two ways: against NumPy, and against an emulation of the
same per-block program with nested ``vmap`` over the mesh axes (whose collectives are batching
rules, an implementation independent of the cross-device lowering).
"""
import functools

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.sharding import Mesh, NamedSharding, PartitionSpec as P


def mesh_of(shape, names):
  devs = np.array(ember.devices()[:int(np.prod(shape))], dtype=object).reshape(shape)
  return Mesh(devs, names)


def blocks(x, mesh, spec):
  """The per-device blocks of global ``x``, stacked with one leading axis per mesh axis."""
  s = NamedSharding(mesh, spec)
  index = s.devices_indices_map(x.shape)
  out = np.stack([np.asarray(x)[index[d]] for d in mesh.devices.flat])
  return out.reshape(mesh.axis_sizes + out.shape[1:])


def assemble(stacked, mesh, spec, shape):
  """The global value whose device blocks are ``stacked`` (replicated copies must agree)."""
  s = NamedSharding(mesh, spec)
  out = np.full(shape, np.nan, dtype=np.float64)
  flat = np.asarray(stacked).reshape((mesh.size,) + np.shape(stacked)[len(mesh.axis_sizes):])
  for d, blk in zip(mesh.devices.flat, flat):
    idx = s.devices_indices_map(shape)[d]
    if not np.isnan(out[idx]).all():
      np.testing.assert_allclose(out[idx], blk, err_msg="replicated copies differ")
    out[idx] = blk
  return out


def emulate(f, mesh, in_specs, out_spec, *xs):
  """shard_map's meaning, computed with vmap over each mesh axis."""
  g = f
  for name in reversed(mesh.axis_names):
    g = ember.vmap(g, axis_name=name)
  outs = ember.jit(g)(*[blocks(x, mesh, s) for x, s in zip(xs, in_specs)])
  shard = NamedSharding(mesh, out_spec)
  block_shape = outs.shape[len(mesh.axis_sizes):]
  shape = tuple(n * t for n, t in zip(block_shape, shard.tiles(len(block_shape))))
  return assemble(outs, mesh, out_spec, shape)


def check(f, mesh, in_specs, out_spec, *xs, expected=None, check_vma=True, emulated=True):
  got = ember.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_spec,
                        check_vma=check_vma)(*xs)
  if emulated:  # (vmap gathers over one axis name at a time)
    np.testing.assert_allclose(np.asarray(got), emulate(f, mesh, in_specs, out_spec, *xs),
                               rtol=1e-6)
  if expected is not None:
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
  assert got.sharding == NamedSharding(mesh, out_spec)
  return got


SIZES = [1, 2, 4, 8]


@pytest.mark.parametrize("n", SIZES)
def test_psum_pmean_pmax_pmin(n):
  mesh = mesh_of((n,), ("i",))
  x = np.random.RandomState(n).randn(n * 2, 3).astype(np.float32)
  per = x.reshape(n, 2, 3)
  check(lambda b: lax.psum(b, "i"), mesh, (P("i"),), P(), x, expected=per.sum(0))
  check(lambda b: lax.pmean(b, "i"), mesh, (P("i"),), P(), x, expected=per.mean(0))
  check(lambda b: lax.pmax(b, "i"), mesh, (P("i"),), P(), x, expected=per.max(0))
  check(lambda b: lax.pmin(b, "i"), mesh, (P("i"),), P(), x, expected=per.min(0))
  # Positional axes mix an invariant axis with a varying one: only unchecked bodies take them.
  check(lambda b: lax.psum(b, ("i", 0)), mesh, (P("i"),), P(), x, expected=x.sum(0),
        check_vma=False)


@pytest.mark.parametrize("n", SIZES)
def test_all_gather(n):
  mesh = mesh_of((n,), ("i",))
  x = np.arange(n * 2 * 3, dtype=np.float32).reshape(n * 2, 3)
  check(lambda b: lax.all_gather(b, "i", tiled=True), mesh, (P("i"),), P(), x,
        expected=x, check_vma=False)
  check(lambda b: lax.all_gather(b, "i", axis=1), mesh, (P("i"),), P(), x,
        expected=x.reshape(n, 2, 3).transpose(1, 0, 2), check_vma=False)


@pytest.mark.parametrize("n", SIZES)
def test_psum_scatter(n):
  mesh = mesh_of((n,), ("i",))
  x = np.arange(n * n * 2, dtype=np.float32).reshape(n * n, 2)
  per = x.reshape(n, n, 2)  # device k holds per[k]
  check(lambda b: lax.psum_scatter(b, "i", tiled=True), mesh, (P("i"),), P("i"), x,
        expected=per.sum(0))
  check(lambda b: lax.psum_scatter(b, "i", scatter_dimension=0)[None], mesh, (P("i"),), P("i"),
        x, expected=per.sum(0))


@pytest.mark.parametrize("n", SIZES)
def test_ppermute_and_axis_index(n):
  mesh = mesh_of((n,), ("i",))
  x = np.arange(n * 2, dtype=np.float32)
  shift = [(k, (k + 1) % n) for k in range(n)]
  check(lambda b: lax.ppermute(b, "i", shift), mesh, (P("i"),), P("i"), x,
        expected=np.roll(x.reshape(n, 2), 1, axis=0).reshape(-1))
  half = [(k, k + 1) for k in range(n - 1)]  # device 0 receives nothing: zeros
  expected = np.concatenate([np.zeros(2), x[:-2]]) if n > 1 else x
  if n > 1:
    check(lambda b: lax.ppermute(b, "i", half), mesh, (P("i"),), P("i"), x, expected=expected)
  check(lambda b: b * 0 + lax.axis_index("i"), mesh, (P("i"),), P("i"), x,
        expected=np.repeat(np.arange(n), 2))


@pytest.mark.parametrize("n", [2, 4, 8])
def test_all_to_all(n):
  mesh = mesh_of((n,), ("i",))
  x = np.arange(n * n * 3, dtype=np.float32).reshape(n * n, 3)
  got = check(lambda b: lax.all_to_all(b, "i", 0, 1, tiled=True), mesh, (P("i"),), P("i"), x)
  # device j gets block j (rows) from each device, side by side along axis 1
  per = x.reshape(n, n, 1, 3)
  np.testing.assert_allclose(np.asarray(got), per.transpose(1, 2, 0, 3).reshape(n, 3 * n))


def test_collectives_over_two_axes():
  mesh = mesh_of((4, 2), ("x", "y"))
  x = np.random.RandomState(0).randn(8, 4).astype(np.float32)
  blk = blocks(x, mesh, P("x", "y"))  # (4, 2, 2, 2)
  check(lambda b: lax.psum(b, "y"), mesh, (P("x", "y"),), P("x"), x,
        expected=blk.sum(1).reshape(8, 2))
  check(lambda b: lax.psum(b, ("x", "y")), mesh, (P("x", "y"),), P(), x,
        expected=blk.sum((0, 1)))
  check(lambda b: lax.all_gather(b, ("x", "y"), tiled=True), mesh, (P(("x", "y")),), P(), x,
        expected=x, check_vma=False, emulated=False)
  check(lambda b: b * 0 + lax.axis_index("x") * 2 + lax.axis_index("y"), mesh,
        (P(("x", "y")),), P(("x", "y")), x, expected=np.repeat(np.arange(8), 1)[:, None] *
        np.ones((1, 4)))
  check(lambda b: lax.ppermute(b, "x", [(k, (k + 1) % 4) for k in range(4)]), mesh,
        (P("x", "y"),), P("x", "y"), x, expected=np.roll(x, 2, axis=0))


# --- specs ----------------------------------------------------------------------------------

SPECS_2D = [P(), P("x"), P(None, "y"), P("x", "y"), P("y", "x"), P(("x", "y")), P(None, ("y", "x"))]


@pytest.mark.parametrize("spec", SPECS_2D)
@pytest.mark.parametrize("jit", [False, True])
def test_blockwise_body_equals_unsharded(spec, jit):
  """A body with no collectives maps blocks: the result is the unsharded function's."""
  mesh = mesh_of((4, 2), ("x", "y"))
  x = np.arange(64, dtype=np.float32).reshape(8, 8)
  f = ember.shard_map(lambda b: jnp.sin(b) * 2, mesh=mesh, in_specs=spec, out_specs=spec)
  f = ember.jit(f) if jit else f
  out = f(x)
  np.testing.assert_allclose(np.asarray(out), np.sin(x) * 2, rtol=1e-6)
  assert out.sharding == NamedSharding(mesh, spec)


def test_pytrees_and_several_outputs():
  mesh = mesh_of((4,), ("i",))
  params = {"w": np.ones((4, 3), np.float32), "b": np.arange(8.0, dtype=np.float32)}

  def f(p, x):
    return {"s": lax.psum(x.sum(), "i"), "y": p["b"] * 2}, p["w"].sum(0)

  out, y = ember.shard_map(f, mesh=mesh, in_specs=({"w": P(), "b": P("i")}, P("i")),
                           out_specs=({"s": P(), "y": P("i")}, P()))(params, jnp.arange(16.0))
  np.testing.assert_allclose(np.asarray(out["s"]), np.arange(16.0).sum())
  np.testing.assert_allclose(np.asarray(out["y"]), params["b"] * 2)
  np.testing.assert_allclose(np.asarray(y), [4.0, 4.0, 4.0])


def test_seed_matmul_runs_as_written():
  mesh = ember.make_mesh((4, 2), ("x", "y"))
  a = jnp.arange(8 * 16.0).reshape(8, 16)
  b = jnp.arange(16 * 4.0).reshape(16, 4)

  @functools.partial(ember.shard_map, mesh=mesh, in_specs=(P("x", "y"), P("y", None)),
                     out_specs=P("x", None))
  def matmul_basic(a_block, b_block):
    return ember.lax.psum(jnp.dot(a_block, b_block), "y")

  c = matmul_basic(a, b)
  np.testing.assert_allclose(np.asarray(c), np.asarray(a) @ np.asarray(b))
  assert c.sharding.spec == P("x", None)
  assert str(c.sharding) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Explicit, "
                             "Explicit)), spec=P('x', None), memory_kind=device)")
  np.testing.assert_allclose(np.asarray(ember.jit(matmul_basic)(a, b)), np.asarray(c))


def test_printed_jaxpr():
  mesh = ember.make_mesh((4, 2), ("x", "y"), axis_types=(ember.sharding.AxisType.Auto,) * 2)
  f = ember.shard_map(lambda a: lax.psum(a * 2, "y"), mesh=mesh, in_specs=P("x", "y"),
                      out_specs=P("x", None))
  assert str(ember.make_jaxpr(f)(jnp.ones((8, 4)))) == """\
{ lambda ; a:f32[8,4]. let
    b:f32[8,2] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2]{V:(x,y)}. let
          d:f32[]{V:(x,y)} = pvary[axes=('x', 'y')] 2.0:f32[]
          e:f32[2,2]{V:(x,y)} = mul c d
          f:f32[2,2]{V:x} = psum_invariant[axes=('y',)] e
        in (f,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', None),)
    ] a
  in (b,) }"""


# --- composition ---------------------------------------------------------------------------

def _num_grad(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  for i in np.ndindex(x.shape):
    d = np.zeros_like(x)
    d[i] = eps
    g[i] = (f(x + d) - f(x - d)) / (2 * eps)
  return g


GRAD_CASES = {
    "psum_to_replicated": (lambda b: lax.psum(b, "i"), P("i"), P(),
                           lambda x: x.reshape(4, 2).sum(0)),
    "psum_times_block": (lambda b: lax.psum(b, "i") * b, P("i"), P("i"),
                         lambda x: (x.reshape(4, 2).sum(0) * x.reshape(4, 2)).reshape(-1)),
    "all_gather": (lambda b: lax.all_gather(b, "i", tiled=True) * 2, P("i"), P(),
                   lambda x: x * 2),
    "ppermute": (lambda b: lax.ppermute(jnp.sin(b), "i", [(k, (k + 1) % 4) for k in range(4)]),
                 P("i"), P("i"), lambda x: np.roll(np.sin(x).reshape(4, 2), 1, 0).reshape(-1)),
    "replicated_in": (lambda b: jnp.tanh(b) * lax.axis_index("i"), P(), P("i"),
                      lambda x: np.concatenate([np.tanh(x) * k for k in range(4)])),
    "psum_scatter": (lambda b: lax.psum_scatter(b * b, "i", tiled=True), P(), P("i"),
                     lambda x: 4 * x * x),
    "all_gather_invarying": (lambda b: lax.all_gather(b, "i", tiled=True, to="invarying") * 2,
                             P("i"), P(), lambda x: x * 2),
}
# all_gather's result varies (its out_specs=P() needs check_vma=False); the invariant one's
# transpose slices the cotangent, which an unchecked transpose first divides by the copies (the
# same in JAX 0.10.2).
_ONE_MODE = {("all_gather", True), ("all_gather_invarying", False)}


@pytest.mark.parametrize("check_vma", [False, True])
@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_grad_of_shard_map_equals_grad_of_unsharded(case, check_vma):
  if (case, check_vma) in _ONE_MODE:
    pytest.skip("not a valid program in this mode")
  body, in_spec, out_spec, reference = GRAD_CASES[case]
  mesh = mesh_of((4,), ("i",))
  f = ember.shard_map(body, mesh=mesh, in_specs=in_spec, out_specs=out_spec,
                      check_vma=check_vma)
  x = np.linspace(-1, 1, 8).astype(np.float32)
  w = np.cos(np.arange(np.asarray(reference(x)).size)).reshape(np.shape(reference(x)))
  np.testing.assert_allclose(np.asarray(f(x)), reference(x), rtol=1e-5, atol=1e-6)
  g = ember.grad(lambda x: (f(x) * w).sum())(x)
  expected = _num_grad(lambda x: (reference(x) * w).sum(), x)
  np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-3, atol=1e-3)
  g_jit = ember.jit(ember.grad(lambda x: (f(x) * w).sum()))(x)
  np.testing.assert_allclose(np.asarray(g_jit), np.asarray(g), rtol=1e-6)


def test_vmap_of_shard_map():
  mesh = mesh_of((4,), ("i",))
  f = ember.shard_map(lambda b: lax.psum(jnp.sin(b), "i"), mesh=mesh, in_specs=P("i"),
                      out_specs=P())
  xs = np.random.RandomState(1).randn(3, 8).astype(np.float32)
  got = ember.vmap(f)(xs)
  np.testing.assert_allclose(np.asarray(got), [np.asarray(f(x)) for x in xs], rtol=1e-6)
  got1 = ember.vmap(f, in_axes=1)(xs.T.copy())
  np.testing.assert_allclose(np.asarray(got1), np.asarray(got), rtol=1e-6)


def test_shard_map_of_scan_and_jit_inside():
  mesh = mesh_of((2,), ("i",))

  def body(b):
    step = ember.jit(lambda c, r: (c + lax.psum(r, "i"), c.sum()))
    return lax.scan(step, jnp.zeros(3), b)

  x = np.arange(24, dtype=np.float32).reshape(8, 3)
  carry, ys = ember.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=(P(), P("i")),
                              check_vma=False)(x)
  per = x.reshape(2, 4, 3)
  np.testing.assert_allclose(np.asarray(carry), per.sum(0).sum(0))
  running = np.cumsum(per.sum(0), axis=0) - per.sum(0)
  np.testing.assert_allclose(np.asarray(ys), np.tile(running.sum(1), 2))


def test_data_parallel_step_matches_single_device():
  mesh = mesh_of((8,), ("batch",))
  rng = np.random.RandomState(0)
  params = {"w": rng.randn(3, 2).astype(np.float32), "b": np.zeros(2, np.float32)}
  x, y = rng.randn(16, 3).astype(np.float32), rng.randn(16, 2).astype(np.float32)

  def loss(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

  def step(p, x, y):  # the mean over devices of the per-device losses
    g = ember.grad(lambda p: lax.pmean(loss(p, x, y), "batch"))(p)
    return ember.tree.map(lambda a, b: a - 0.1 * b, p, g)

  sharded = ember.jit(ember.shard_map(step, mesh=mesh, in_specs=(P(), P("batch"), P("batch")),
                                      out_specs=P()))
  single = ember.jit(lambda p, x, y: ember.tree.map(lambda a, b: a - 0.1 * b, p,
                                                    ember.grad(loss)(p, x, y)))
  got, want = sharded(params, x, y), single(params, x, y)
  for k in params:
    np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-5, atol=1e-6)


# --- errors -----------------------------------------------------------------------------------

def test_errors():
  mesh = mesh_of((4, 2), ("x", "y"))
  sm = functools.partial(ember.shard_map, mesh=mesh)
  with pytest.raises(ValueError, match="must refer to an axis marked as manual"):
    sm(lambda a: a, in_specs=P("z"), out_specs=P())(jnp.ones(8))
  with pytest.raises(ValueError, match="out_specs refers to 'z'"):
    sm(lambda a: a, in_specs=P("x"), out_specs=P("z"))(jnp.ones(8))
  with pytest.raises(ValueError, match=r"but 4 does not evenly divide 6"):
    sm(lambda a: a, in_specs=P("x"), out_specs=P("x"))(jnp.ones(6))
  with pytest.raises(ValueError, match="has length 3, but the passed args\\[0\\]"):
    sm(lambda a: a, in_specs=P("x", None, None), out_specs=P("x"))(jnp.ones(8))
  with pytest.raises(ValueError, match=r"inferred to be possibly varying over \{x\}"):
    sm(lambda a: a, in_specs=P("x"), out_specs=P())(jnp.ones(8))
  with pytest.raises(NameError, match="unbound axis name: q"):
    sm(lambda a: lax.psum(a, "q"), in_specs=P("x"), out_specs=P("x"))(jnp.ones(8))
  with pytest.raises(ValueError, match="pytree structure error"):
    sm(lambda a: a, in_specs=(P("x"), P("x")), out_specs=P("x"))(jnp.ones(8))
  with pytest.raises(ValueError, match="duplicate entries for `x`"):
    sm(lambda a: a, in_specs=P("x", "x"), out_specs=P("x"))(jnp.ones((8, 8)))


def test_explicit_axes_reject_mismatched_sharded_input():
  mesh = ember.make_mesh((4, 2), ("x", "y"))  # Explicit axes
  x = ember.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("y")))
  f = ember.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
  with pytest.raises(ValueError, match=r"in_specs passed to shard_map: P\('x',\) does not match"):
    f(x)
  auto = ember.make_mesh((4, 2), ("x", "y"), axis_types=(ember.sharding.AxisType.Auto,) * 2)
  y = ember.device_put(jnp.ones((8, 4)), NamedSharding(auto, P("y")))
  g = ember.shard_map(lambda a: a * 2, mesh=auto, in_specs=P("x"), out_specs=P("x"))
  np.testing.assert_allclose(np.asarray(g(y)), 2 * np.ones((8, 4)))  # resharded


def test_check_vma_follows_calls_and_loops():
  mesh = mesh_of((4,), ("i",))
  x = jnp.arange(8.0)

  def body_ok(b):  # a psum inside a jit and a scan makes the result invariant
    total = ember.jit(lambda v: lax.psum(v, "i"))(b)
    return lax.scan(lambda c, r: (c + lax.psum(r, "i"), None), 0.0, b)[0] + total.sum()

  out = ember.shard_map(body_ok, mesh=mesh, in_specs=P("i"), out_specs=P())(x)
  np.testing.assert_allclose(np.asarray(out), 2 * np.arange(8.0).sum())

  def body_bad(b):  # the carry would vary after the first iteration: a type error, as in JAX
    return lax.scan(lambda c, r: (r, c), 0.0, b)[1]

  with pytest.raises(TypeError, match="the manual axis types do not match"):
    ember.shard_map(body_bad, mesh=mesh, in_specs=P("i"), out_specs=P())(x)

  # A device-dependent value inside a cond branch (issue 20): the branches' types differ...
  one_varies = lambda b: lax.cond(True, lambda v: v * lax.axis_index("i"), lambda v: v, b)
  with pytest.raises(TypeError, match="cond branches must have equal output types"):
    ember.shard_map(one_varies, mesh=mesh, in_specs=P(), out_specs=P())(x)
  # ...and when both vary, the output does: out_specs=P() claims a replication it lacks.
  both_vary = lambda b: lax.cond(True, lambda v: v * lax.axis_index("i"),
                                 lambda v: v + lax.axis_index("i"), b)
  with pytest.raises(ValueError, match="replicated across mesh axis 'i'"):
    ember.shard_map(both_vary, mesh=mesh, in_specs=P(), out_specs=P())(x)


def test_in_specs_inferred_from_arguments():
  mesh = mesh_of((4,), ("i",))
  x = ember.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
  f = ember.shard_map(lambda b, c: b * c, mesh=mesh, out_specs=P("i"))
  np.testing.assert_allclose(np.asarray(f(x, 3.0)), 3 * np.arange(8.0))
