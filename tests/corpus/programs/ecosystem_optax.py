"""What optax's test suite (the ecosystem tier, tools/ecosystem.py) found: ``out_sharding=`` given
the sharding of an unsharded array's type (``jax.typeof(x).sharding``, a NamedSharding over the
empty mesh), as optax's ``tree_utils.tree_random_like`` passes it to the samplers; a
PartitionSpec outside a mesh context; the array-creation functions given a real sharding (they
crashed), whose fills stay weakly typed under ``out_sharding=`` as under no placement."""
from harness import framework, program

jax, jnp, lax = framework()

P = jax.sharding.PartitionSpec
NamedSharding = jax.sharding.NamedSharding
exact = program(exact_message=True)


def _unsharded(x):
  return jax.typeof(x).sharding


@program
def samplers_take_the_sharding_of_an_unsharded_type():
  key = jax.random.key(0)
  s = _unsharded(jnp.zeros(3))
  return (jax.random.normal(key, (3,), out_sharding=s),
          jax.random.uniform(key, (3,), out_sharding=s),
          jax.random.bits(key, (3,), out_sharding=s),
          jax.random.rademacher(key, (3,), out_sharding=s),
          jax.random.normal(key, (3,), jnp.float16, out_sharding=s),
          str(jax.typeof(jax.random.normal(key, (3,), out_sharding=s)).sharding))


@program
def samplers_under_jit_and_specs_of_any_length():
  key = jax.random.key(1)
  empty = jax.sharding.AbstractMesh((), ())
  f = jax.jit(lambda k: jax.random.normal(k, (2, 2), out_sharding=NamedSharding(empty, P())))
  return (f(key),
          jax.random.normal(key, (), out_sharding=NamedSharding(empty, P(None))),
          jax.random.normal(key, (3,), out_sharding=NamedSharding(empty, P(None, None))))


@program
def products_take_the_sharding_of_an_unsharded_type():
  x = jnp.arange(3.0)
  m = jnp.arange(6.0).reshape(2, 3)
  s0, s1 = _unsharded(x.sum()), _unsharded(x)
  return (jnp.dot(x, x, out_sharding=s0), jnp.tensordot(x, x, 1, out_sharding=s0),
          jnp.matmul(m, x, out_sharding=s1), jnp.einsum("ij,j->i", m, x, out_sharding=s1),
          x.reshape((3, 1), out_sharding=_unsharded(m)))


@program
def creation_takes_the_sharding_of_an_unsharded_type():
  x = jnp.arange(3.0)
  s = _unsharded(x)
  out = (jnp.zeros(3, out_sharding=s), jnp.ones_like(x, out_sharding=s),
         jnp.full((3,), 2.0, out_sharding=s), jnp.arange(3, out_sharding=s),
         jnp.asarray([1, 2, 3], out_sharding=s),
         jax.jit(lambda: jnp.zeros(3, out_sharding=s))())
  return out, [str(jax.typeof(a).sharding) for a in out]


@exact
def sampler_partition_spec_outside_a_mesh():
  return jax.random.uniform(jax.random.key(0), (2,), out_sharding=P())


@exact
def creation_partition_spec_outside_a_mesh():
  return jnp.zeros(3, out_sharding=P(None))


@exact
def reshape_partition_spec_outside_a_mesh():
  return jnp.arange(3.0).reshape((3, 1), out_sharding=P(None, None))


@program
def creation_with_a_partition_spec_under_set_mesh():
  mesh = jax.make_mesh((1,), ("i",))
  with jax.set_mesh(mesh):
    out = (jnp.zeros(4, out_sharding=P("i")), jnp.asarray([1.0, 2.0], out_sharding=P("i")),
           jnp.full((2,), 3.0, out_sharding=P("i")),  # weak: out_sharding= is no device=
           jnp.full_like(jnp.asarray(1.0), 3.0, shape=(2,), out_sharding=P("i")),
           jnp.zeros_like(jnp.asarray(1.0), shape=(2,), out_sharding=P("i")))
  return out, [str(a.sharding.spec) for a in out]


@program
def full_on_a_device_is_strongly_typed():
  d = jax.devices()[0]
  return (jnp.full((2,), 3.0, device=d), jnp.full_like(jnp.asarray(1.0), 3.0, shape=(2,), device=d),
          jnp.full((2,), 3.0))


@exact
def creation_with_both_device_and_out_sharding():
  return jnp.zeros(3, device=jax.devices()[0], out_sharding=_unsharded(jnp.zeros(3)))
