"""Meshes, PartitionSpecs, NamedShardings, sharded arrays, jit with shardings."""
import pickle

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.backend.sharding import set_default_mesh
from ember.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P


@pytest.fixture
def mesh():
  return ember.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)


def test_partition_spec():
  assert repr(P("x", None)) == "P('x', None)"
  assert repr(P("x")) == "P('x',)" and repr(P()) == "P()"
  assert repr(P(("x", "y"), None)) == "P(('x', 'y'), None)"
  assert P("x") != P("x", None) and P("x") == P("x") and hash(P("x")) == hash(P("x"))
  assert len(P("x", None)) == 2 and P("x", None)[0] == "x" and list(P("a", "b")) == ["a", "b"]
  assert pickle.loads(pickle.dumps(P("x", ("y", "z")))) == P("x", ("y", "z"))
  with pytest.raises(TypeError, match="PartitionSpec entries"):
    P(3)


def test_mesh_and_make_mesh():
  m = ember.make_mesh((4, 2), ("x", "y"))
  assert repr(m) == ("Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), "
                     "axis_types=(Explicit, Explicit))")
  assert str(m) == "Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))"
  assert dict(m.shape) == {"x": 4, "y": 2} and m.size == 8 and m.axis_sizes == (4, 2)
  np.testing.assert_array_equal(m.device_ids, np.arange(8).reshape(4, 2))
  assert m == ember.make_mesh((4, 2), ("x", "y")) and hash(m) == hash(ember.make_mesh((4, 2),
                                                                                      ("x", "y")))
  assert m != ember.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
  small = ember.make_mesh((2,), ("i",), devices=ember.devices()[4:6])
  assert [d.id for d in small.devices.flat] == [4, 5]
  with pytest.raises(ValueError, match=r"Number of devices 8 must be >= the product of "
                                       r"mesh_shape \(4, 4\)"):
    ember.make_mesh((4, 4), ("x", "y"))
  with pytest.raises(ValueError, match="devices.ndim == 2 and len\\(axis_names\\) == 1"):
    Mesh(np.array(ember.devices()).reshape(4, 2), ("x",))
  with pytest.raises(ValueError, match="unique"):
    Mesh(np.array(ember.devices()).reshape(4, 2), ("x", "x"))


def test_named_sharding_layout(mesh):
  s = NamedSharding(mesh, P("x"))
  assert s.shard_shape((8, 4)) == (2, 4) and not s.is_fully_replicated
  assert NamedSharding(mesh, P()).is_fully_replicated
  assert s.num_devices == 8 and s.device_set == set(ember.devices())
  idx = s.devices_indices_map((8, 4))
  assert idx[ember.devices()[3]] == (slice(2, 4), slice(None))
  assert NamedSharding(mesh, P("x")) == NamedSharding(mesh, P("x", None))
  assert repr(s) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
                     "spec=P('x',), memory_kind=device)")
  with pytest.raises(ValueError, match=r"Resource axis: z of P\('z',\) is not found in mesh"):
    NamedSharding(mesh, P("z"))
  with pytest.raises(ember.sharding.DuplicateSpecError, match="duplicate entries for `x`"):
    NamedSharding(mesh, P("x", "x"))
  with pytest.raises(TypeError, match="PartitionSpec"):
    NamedSharding(mesh, ("x",))


@pytest.mark.parametrize("spec", [P("x"), P("y", "x"), P(None, ("x", "y")), P(), P(("y", "x"))])
def test_device_put_round_trip(mesh, spec):
  x = np.arange(64, dtype=np.float32).reshape(8, 8)
  a = ember.device_put(x, NamedSharding(mesh, spec))
  assert a.sharding == NamedSharding(mesh, spec) and a.committed
  np.testing.assert_array_equal(np.asarray(a), x)
  shards = a.addressable_shards
  assert [s.device for s in shards] == list(mesh.devices.flat)
  for i, s in enumerate(shards):
    np.testing.assert_array_equal(np.asarray(s.data), x[s.index])
    data = a.addressable_data(i)  # JAX's shortcut for the i-th shard's data
    assert data.devices() == {s.device}
    np.testing.assert_array_equal(np.asarray(data), x[s.index])
  assert a.devices() == set(ember.devices())
  back = ember.device_put(a, ember.devices()[2])
  assert back.device == ember.devices()[2]
  np.testing.assert_array_equal(np.asarray(back), x)


def test_shard_replica_ids_and_device(mesh):
  a = ember.device_put(jnp.arange(8.0), NamedSharding(mesh, P("x")))
  assert [s.replica_id for s in a.addressable_shards] == [0, 1] * 4
  assert a.device == a.sharding  # several devices: .device is the sharding, as in JAX
  assert a.is_fully_replicated is False


def test_device_put_errors(mesh):
  with pytest.raises(ember.sharding.IndivisibleError,
                     match=r"array axis 0 is partitioned 4 times, but the dimension size is 6"):
    ember.device_put(jnp.ones((6, 4)), NamedSharding(mesh, P("x")))
  with pytest.raises(ValueError, match="rank at least 2"):
    ember.device_put(jnp.ones(8), NamedSharding(mesh, P("x", "y")))


def test_eager_ops_on_sharded_arrays(mesh):
  x = np.arange(32, dtype=np.float32).reshape(8, 4)
  a = ember.device_put(x, NamedSharding(mesh, P("x", "y")))
  b = a * 2 + 1
  np.testing.assert_allclose(np.asarray(b), x * 2 + 1)
  assert b.sharding == NamedSharding(mesh, P("x", "y"))
  np.testing.assert_allclose(np.asarray(jnp.sum(a, axis=0)), x.sum(0))
  np.testing.assert_allclose(np.asarray(a @ a.T), x @ x.T, rtol=1e-6)
  c = a + jnp.ones(4)  # an uncommitted single-device operand joins the mesh
  np.testing.assert_allclose(np.asarray(c), x + 1)
  other = ember.device_put(jnp.ones(4), ember.devices()[0])
  with pytest.raises(ValueError, match="incompatible devices"):
    a + other
  assert "Array(" in repr(a) and str(np.asarray(a)[0, 0]) == "0.0"


def test_jit_of_sharded_inputs_and_out_shardings(mesh):
  x = np.arange(32, dtype=np.float32).reshape(8, 4)
  a = ember.device_put(x, NamedSharding(mesh, P("x")))
  f = ember.jit(lambda v: jnp.sin(v) * 3)
  out = f(a)
  np.testing.assert_allclose(np.asarray(out), np.sin(x) * 3, rtol=1e-6)
  assert out.sharding == NamedSharding(mesh, P("x"))
  g = ember.jit(lambda v: v.T * 2, in_shardings=NamedSharding(mesh, P("x")),
                out_shardings=NamedSharding(mesh, P(None, "y")))
  out = g(x)
  assert out.sharding == NamedSharding(mesh, P(None, "y"))
  np.testing.assert_allclose(np.asarray(out), x.T * 2)
  h = ember.jit(lambda u, v: (u + v, u - v), in_shardings=(NamedSharding(mesh, P("x")), None),
                out_shardings=(NamedSharding(mesh, P()), NamedSharding(mesh, P("y"))))
  s, d = h(x, x)
  assert s.sharding.is_fully_replicated and d.sharding.spec == P("y")
  np.testing.assert_allclose(np.asarray(s), 2 * x)
  np.testing.assert_allclose(np.asarray(d), 0 * x)


def test_with_sharding_constraint(mesh):
  s = NamedSharding(mesh, P("x"))
  x = jnp.arange(16.0).reshape(8, 2)
  f = ember.jit(lambda v: lax.with_sharding_constraint(v * 2, s) + 1)
  out = f(x)
  assert out.sharding == s
  np.testing.assert_allclose(np.asarray(out), np.arange(16.0).reshape(8, 2) * 2 + 1)
  assert lax.with_sharding_constraint(x, s).sharding == s
  g = ember.grad(lambda v: (lax.with_sharding_constraint(v, s) ** 2).sum())(x)
  np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(x))
  v = ember.vmap(lambda r: lax.with_sharding_constraint(r * 2, s))(jnp.ones((3, 8, 2)))
  np.testing.assert_allclose(np.asarray(v), 2 * np.ones((3, 8, 2)))
  jaxpr = str(ember.make_jaxpr(lambda v: lax.with_sharding_constraint(v, s))(x))
  assert "sharding_constraint[" in jaxpr and "spec=P('x',)" in jaxpr
  with pytest.raises(TypeError, match="NamedShardings"):
    lax.with_sharding_constraint(x, P("x"))


def test_visualize_array_sharding(mesh, capsys):
  ember.debug.visualize_array_sharding(ember.device_put(jnp.arange(16.0),
                                                        NamedSharding(mesh, P("x"))))
  ember.debug.visualize_array_sharding(ember.device_put(jnp.zeros((4, 4)),
                                                        NamedSharding(mesh, P("y", "x"))))
  out = capsys.readouterr().out.splitlines()
  assert out[:3] == ["┌─────────┬─────────┬─────────┬─────────┐",
                     "│ CPU 0,1 │ CPU 2,3 │ CPU 4,5 │ CPU 6,7 │",
                     "└─────────┴─────────┴─────────┴─────────┘"]
  assert "CPU 0" in out[4] and "CPU 6" in out[4] and "CPU 1" in out[6] and "CPU 7" in out[6]
  assert len(out) == 8


def test_experimental_shard_map_spelling():
  from ember.experimental.shard_map import shard_map
  mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
  f = shard_map(lambda b: lax.psum(b, "i"), mesh, in_specs=P("i"), out_specs=P())
  np.testing.assert_allclose(np.asarray(f(jnp.arange(4.0))), [2.0, 4.0])


def test_set_mesh_globally_and_as_context():
  mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
  assert ember.sharding.get_mesh() is None
  with ember.set_mesh(mesh) as bound:
    assert bound is None and ember.sharding.get_mesh() == mesh
    x = ember.device_put(jnp.arange(4.0), P("i"))  # a bare spec over the mesh set
    assert x.sharding == NamedSharding(mesh, P("i"))
  assert ember.sharding.get_mesh() is None
  ember.set_mesh(mesh)
  try:
    f = ember.shard_map(lambda b: lax.psum(b, "i"), in_specs=P("i"), out_specs=P())
    np.testing.assert_allclose(np.asarray(f(jnp.arange(4.0))), [2.0, 4.0])
  finally:
    set_default_mesh(None)
  with pytest.raises(ValueError, match="needs a mesh"):
    ember.device_put(jnp.arange(4.0), P("i"))
