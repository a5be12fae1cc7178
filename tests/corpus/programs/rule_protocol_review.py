"""What the rule-protocol and signature work of this session changed where a user sees it, kept
against JAX 0.10.2: lax's ``out_sharding=`` checks (the empty-mesh sharding accepted, anything
else JAX's TypeError/ValueError), ``custom_jvp``/``custom_vjp(nondiff_argnames=)``,
``checkpoint(concrete=)`` and ``static_argnames=``, the error classes, ``jaxpr_as_fun``'s
currying, a lone equation's printed names and ``AbstractToken``'s text."""
from functools import partial

from harness import framework, program, submodule

jax, jnp, lax = framework()

P = jax.sharding.PartitionSpec
NamedSharding = jax.sharding.NamedSharding


def _err(fn):
  """The exception a call raises, as ``(type name, first line)`` (None when it returns)."""
  try:
    fn()
  except Exception as e:  # noqa: BLE001 -- the error is what is compared
    return type(e).__name__, str(e).split("\n")[0][:160]
  return None


@program
def lax_out_sharding_takes_the_empty_mesh_sharding():
  x = jnp.arange(3.0)
  e = NamedSharding(jax.sharding.AbstractMesh((), ()), P())
  return (lax.dot_general(x, x, (((0,), (0,)), ((), ())), out_sharding=e),
          lax.dot(x, x, out_sharding=e), lax.reduce_sum(x, (0,), out_sharding=e),
          lax.empty((2,), jnp.float32, out_sharding=e).shape,
          lax.reshape(x, (3, 1), out_sharding=e),
          lax.broadcast_in_dim(x, (2, 3), (1,), out_sharding=e))


@program
def lax_out_sharding_rejects_what_is_not_a_sharding():
  x = jnp.arange(3.0)
  return (_err(lambda: lax.reshape(x, (3, 1), out_sharding="garbage")),
          _err(lambda: lax.broadcast_in_dim(x, (2, 3), (1,), out_sharding="garbage")),
          _err(lambda: lax.broadcast(x, (2,), out_sharding="garbage")),
          _err(lambda: lax.broadcasted_iota(jnp.int32, (2, 3), 1, out_sharding="garbage")),
          _err(lambda: lax.reduce_sum(x, (0,), out_sharding="garbage")),
          _err(lambda: lax.conv_general_dilated(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 2)), (1,),
                                                "VALID", out_sharding="garbage")),
          _err(lambda: lax.reshape(x, (3, 1), out_sharding=P(None, None))))


@program
def nondiff_argnames_of_custom_jvp_and_custom_vjp():
  @partial(jax.custom_jvp, nondiff_argnames=("n",))
  def f(x, n):
    return x ** n

  @f.defjvp
  def f_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x, n), n * x ** (n - 1) * t

  @partial(jax.custom_vjp, nondiff_argnames=("n",))
  def g(x, n):
    return x * n

  g.defvjp(lambda x, n: (x * n, None), lambda n, r, ct: (ct * n,))
  h = jax.custom_jvp(lambda a, b, c: a + b + c, nondiff_argnums=(2, 1))
  return (f.nondiff_argnums, jax.grad(f)(2.0, 3), jax.grad(lambda x: f(x, n=3))(2.0),
          g.nondiff_argnums, jax.grad(g)(2.0, 3.0), h.nondiff_argnums)


@program
def checkpoint_concrete_and_static_argnames():
  def f(x, flag=False):
    return jnp.sin(x) if flag else jnp.cos(x)
  g = jax.checkpoint(f, static_argnames="flag")
  return (g(1.0), _err(lambda: g(1.0, flag=True))[0],
          _err(lambda: jax.checkpoint(jnp.sin, concrete=False)),
          _err(lambda: jax.remat(jnp.sin, concrete=True)), jax.remat(jnp.sin)(0.5))


@program
def error_classes_and_a_leaked_tracer():
  leaked = []
  jax.jit(lambda x: leaked.append(x) or x)(1.0)
  try:
    leaked[0] + 1
    caught = None
  except TypeError as e:
    caught = (type(e).__name__, isinstance(e, jax.errors.JAXTypeError))
  return (caught, str(jax.errors.JAXTypeError("boom")), str(jax.errors.JAXIndexError("boom")),
          issubclass(jax.errors.UnexpectedTracerError, TypeError))


@program
def jaxpr_as_fun_curries_and_a_lone_equation_prints():
  core = submodule("extend.core")
  closed = jax.make_jaxpr(lambda x, y: (x * y + x, jnp.sin(y)))(1.0, 2.0)
  f = core.jaxpr_as_fun(closed, 2.0)
  return (type(f).__name__, f(5.0), [str(e) for e in closed.jaxpr.eqns],
          str(jax.make_jaxpr(lambda x: x > 0)(1.0).jaxpr.eqns[0]),
          str(core.AbstractToken()), str(jax.make_jaxpr(lambda: lax.create_token())()))
