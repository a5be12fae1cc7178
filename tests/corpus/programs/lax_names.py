"""jax.lax's newer public names (JAX 0.10.2): stack/unstack/tile, mulhi, empty, dtype,
broadcast_like, index_take, shape_as_value, rng_uniform, optimization_barrier, tokens, dce_sink,
stage, composite, platform_dependent, conv_general_dilated_patches/_local, ragged_dot(_general),
scaled_dot, DotAlgorithm/AccuracyMode/Tolerance, the accelerator collectives' errors, and the
``lax.X_p`` primitive objects: values, dtypes, weak types, printed jaxprs, transforms, errors."""
import numpy as np

from harness import framework, program

jax, jnp, lax = framework()


def _err(fn):
  """The exception a call raises, as ``(type name, first line)`` (None when it returns)."""
  try:
    fn()
  except Exception as e:  # noqa: BLE001 -- the error is what is compared
    return type(e).__name__, str(e).split("\n")[0][:120]
  return None


# --- stack, unstack, tile -----------------------------------------------------------------------

@program
def stack_values_axes_and_weak_types():
  x = jnp.arange(6.0).reshape(2, 3)
  return (lax.stack([x, 2 * x], axis=1), lax.stack([x, x], axis=-1).shape, lax.stack([1.0, 2.0]),
          lax.stack(x), lax.stack((x,)).shape, lax.stack([jnp.float32(1), 2.0]))


@program
def stack_printed_jaxprs():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a, b: lax.stack([a, b], axis=1))(x, x))
  print(jax.make_jaxpr(lambda a: lax.stack([a, 1.0]))(2.0))
  print(jax.make_jaxpr(jax.grad(lambda a: lax.stack([a, 2 * a]).sum()))(2.0))
  print(jax.make_jaxpr(jax.vmap(lambda a, b: lax.stack([a, b], 1), (0, None)))(x, x[0]))
  print(jax.make_jaxpr(jax.vmap(lambda a, b: lax.stack([a, b], 0), (1, 0)))(x, x.T))


@program
def stack_errors():
  x = jnp.arange(6.0).reshape(2, 3)
  return (_err(lambda: lax.stack([x, x[:1]])), _err(lambda: lax.stack([x, x.astype(jnp.int32)])),
          _err(lambda: lax.stack([x, x], axis=3)), _err(lambda: lax.stack([1, 2.0])))


@program
def unstack_values_jaxprs_and_transforms():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.unstack(a, axis=1))(x))
  print(jax.make_jaxpr(jax.grad(lambda a: lax.unstack(a)[1].sum()))(x))
  print(jax.make_jaxpr(jax.vmap(lambda a: lax.unstack(a, 0)))(x))
  return (lax.unstack(x, 1), lax.unstack(x, -1), lax.unstack(jnp.zeros((0, 3))),
          lax.unstack(np.ones((2, 2), np.float32)), _err(lambda: lax.unstack(1.0)),
          _err(lambda: lax.unstack(x, 2)))


@program
def tile_values_jaxprs_and_transforms():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.tile(a, (2, 1)))(x))
  print(jax.make_jaxpr(jax.grad(lambda a: lax.tile(a, (2, 3)).sum()))(x))
  print(jax.make_jaxpr(jax.vmap(lambda a: lax.tile(a, (2,))))(x))
  return (lax.tile(jnp.arange(3), (2,)), lax.tile(x, (2, 0)).shape, lax.tile(2.0, ()),
          jax.grad(lambda a: (lax.tile(a, (2, 2)) ** 2).sum())(x),
          _err(lambda: lax.tile(x, (2,))), _err(lambda: lax.tile(x, [2, 1, 1])))


# --- mulhi, empty, dtype, broadcast_like, index_take, shape_as_value ------------------------------

@program
def mulhi_values_dtypes_and_weak_types():
  return (lax.mulhi(jnp.array([2**31, 5], jnp.uint32), jnp.array([4, 2**31 + 1], jnp.uint32)),
          lax.mulhi(jnp.array([-2**31, 5], jnp.int32), jnp.array([4, -7], jnp.int32)),
          lax.mulhi(jnp.uint8(200), jnp.uint8(200)), lax.mulhi(jnp.int8(-100), jnp.int8(100)),
          lax.mulhi(jnp.int16(-30000), jnp.int16(30000)), lax.mulhi(3, 4),
          lax.mulhi(jnp.int32(2**30), 8))


@program
def mulhi_jaxprs_vmap_jit_and_errors():
  print(jax.make_jaxpr(lax.mulhi)(jnp.uint32(7), jnp.uint32(9)))
  print(jax.make_jaxpr(jax.vmap(lax.mulhi, (0, None)))(jnp.arange(3, dtype=jnp.uint32),
                                                        jnp.uint32(7)))
  u = jnp.arange(3, dtype=jnp.uint32) * 2**30
  return (jax.vmap(lax.mulhi, (0, None))(u, jnp.uint32(7)), jax.jit(lax.mulhi)(u, u),
          _err(lambda: lax.mulhi(jnp.int32(5), jnp.uint32(3))), _err(lambda: lax.mulhi(1.0, 2.0)),
          _err(lambda: lax.mulhi(True, True)),
          _err(lambda: jax.grad(lambda a: lax.mulhi(a, a))(1.0)))


@program
def empty_dtypes_shapes_and_jaxprs():
  print(jax.make_jaxpr(lambda: lax.empty((2, 3), "float32"))())
  print(jax.make_jaxpr(lambda: lax.empty((2,), np.dtype("int32")))())
  print(jax.make_jaxpr(lambda: lax.empty((2,), np.float32))())
  return (lax.empty((2,), jnp.float32), lax.empty(3, "float32"), lax.empty((2,), "float64"),
          lax.empty((2,), None).dtype, jax.jit(lambda: lax.empty((2, 2), jnp.int32))())


@program
def dtype_canonicalizes_and_warns():
  x = jnp.ones(2)
  return (lax.dtype(1), lax.dtype(1.0), lax.dtype(1j), lax.dtype(True), lax.dtype(int),
          lax.dtype(np.float64), lax.dtype("int64"), lax.dtype(np.ones(2)), lax.dtype(x),
          lax.dtype("bfloat16"), lax.dtype(np.uint64), _err(lambda: lax.dtype(None)),
          _err(lambda: lax.dtype([1, 2])), _err(lambda: lax.dtype("foo")))


@program
def broadcast_like_values_jaxprs_and_errors():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.broadcast_like(jnp.ones(3), a))(x))
  print(jax.make_jaxpr(lambda a: lax.broadcast_like(a, a))(x))
  print(jax.make_jaxpr(lambda a: lax.broadcast_like(jnp.ones((1, 3)), a))(x))
  print(jax.make_jaxpr(lambda a: lax.broadcast_like(1.0, a))(x))
  return (lax.broadcast_like(1, x), lax.broadcast_like(jnp.ones(3), x), lax.broadcast_like(x, x),
          _err(lambda: lax.broadcast_like(jnp.ones(2), x)),
          _err(lambda: lax.broadcast_like(x, 1.0)))


@program
def index_take_values_jaxprs_and_grad():
  x = jnp.arange(24.0).reshape(2, 3, 4)
  x2 = jnp.arange(6.0).reshape(2, 3)
  i2 = jnp.array([[0, 1], [1, 2]])
  print(jax.make_jaxpr(lambda a, i: lax.index_take(a, i, (0, 1)))(x2, i2))
  print(jax.make_jaxpr(lambda a, i: lax.index_take(a, i, (2,)))(x, jnp.array([[1, 3]])))
  idx = jnp.array([[0, 1, -1], [1, 2, 7]])
  return (lax.index_take(x2, i2, (0, 1)), lax.index_take(x, idx, (0, 1)),
          lax.index_take(x, idx, (2, 0)), lax.index_take(np.ones((2, 3)), np.array([[0, 1]]), (0,)),
          jax.grad(lambda a: lax.index_take(a, idx, (0, 1)).sum())(x)[:, :, 0])


@program
def shape_as_value_values():
  return (lax.shape_as_value(()), lax.shape_as_value([2, 3]),
          lax.shape_as_value((np.int64(2), 3)), _err(lambda: lax.shape_as_value(5)))


@program
def rng_uniform_shapes_dtypes_and_errors():
  a = lax.rng_uniform(0.0, 1.0, (2, 3))
  b = lax.rng_uniform(jnp.float32(2), jnp.float32(3), (4,))
  c = lax.rng_uniform(0, 10, (5,))
  print(jax.make_jaxpr(lambda: lax.rng_uniform(0, 10, (3,)))())
  print(jax.make_jaxpr(lambda: lax.rng_uniform(0.0, 1.0, ()))())
  return ((a.shape, a.dtype, a.weak_type, bool(((a >= 0) & (a < 1)).all())),
          (b.dtype, b.weak_type, bool(((b >= 2) & (b < 3)).all())),
          (c.dtype, c.weak_type, bool(((c >= 0) & (c < 10)).all())),
          lax.rng_uniform(jnp.uint32(0), jnp.uint32(5), (3,)).dtype,
          lax.rng_uniform(jnp.float16(0), jnp.float16(5), (3,)).dtype,
          _err(lambda: lax.rng_uniform(0.0, 1, (3,))),
          _err(lambda: lax.rng_uniform(jnp.zeros(2), jnp.ones(2), (2,))),
          _err(lambda: lax.rng_uniform(0.0, 1.0, 3)))


@program
def rng_uniform_has_no_transforms():
  return (_err(lambda: jax.vmap(lambda a: lax.rng_uniform(a, 1.0, (2,)))(jnp.zeros(3)))[0],
          _err(lambda: jax.grad(lambda a: lax.rng_uniform(a, 1.0, (2,)).sum())(0.0))[0])


# --- optimization_barrier, tokens, dce_sink, stage ------------------------------------------------

@program
def optimization_barrier_pytrees_and_weak_types():
  x = jnp.arange(6.0).reshape(2, 3)
  return (lax.optimization_barrier(1), lax.optimization_barrier({"a": 1.0, "b": [x, 2]}),
          lax.optimization_barrier(()), lax.optimization_barrier(None),
          jax.jit(lambda a: lax.optimization_barrier((a, a * 2)))(x),
          jax.grad(lambda a: lax.optimization_barrier(a) ** 2)(3.0),
          _err(lambda: lax.optimization_barrier("s")))


@program
def optimization_barrier_printed_jaxprs():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.optimization_barrier({"a": a, "b": 1}))(x))
  print(jax.make_jaxpr(lambda a: lax.optimization_barrier([]))(x))
  print(jax.make_jaxpr(jax.vmap(lambda a, b: lax.optimization_barrier((a, b)), (0, None)))(x, 1.0))
  print(jax.make_jaxpr(jax.grad(lambda a: lax.optimization_barrier((a, jnp.sin(a)))[1]))(1.0))
  print(jax.make_jaxpr(lambda a: jax.jvp(lambda v: lax.optimization_barrier((v, 2.0 * jnp.ones(3))),
                                         (a,), (a,)))(1.0))
  print(jax.make_jaxpr(jax.grad(lambda a: lax.optimization_barrier((a, a * 2))[0]))(1.0))


@program
def dce_sink_printed_jaxprs():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.dce_sink((a, 1.0)))(x))
  print(jax.make_jaxpr(lambda a: lax.dce_sink(a, prevent_mlir_dce=True))(x))
  print(jax.make_jaxpr(jax.grad(lambda a: (lax.dce_sink(a), a)[1]))(1.0))
  print(jax.make_jaxpr(jax.vmap(lambda a: (lax.dce_sink(a), a)[1]))(x))
  print(jax.make_jaxpr(lambda a: jax.jvp(lambda v: lax.dce_sink(v), (a,), (a,)))(1.0))
  return lax.dce_sink({"a": x}), jax.jit(lambda a: lax.dce_sink(a, prevent_mlir_dce=True))(x)


@program
def tokens_printed_and_eager():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda: lax.create_token())())
  print(jax.make_jaxpr(lambda a: lax.after_all(lax.create_token(a), lax.create_token()))(1.0))
  print(jax.make_jaxpr(lambda: lax.after_all())())
  print(jax.make_jaxpr(lambda a: lax.optimization_barrier((a, lax.create_token())))(x))
  print(jax.make_jaxpr(jax.vmap(lambda a: (lax.create_token(), a)[1]))(x))
  return (type(lax.create_token(x)).__name__, type(lax.after_all()).__name__,
          type(lax.after_all(lax.create_token(), lax.create_token())).__name__,
          _err(lambda: lax.after_all(x)))


@program
def stage_lifts_constants():
  print(jax.make_jaxpr(lambda v: lax.stage(2.0) + v)(1.0))
  print(jax.make_jaxpr(lambda v: lax.stage(np.arange(3.0)) + v)(1.0))
  print(jax.make_jaxpr(jax.vmap(lambda v: lax.stage(v)))(jnp.ones(3)))
  print(jax.make_jaxpr(jax.grad(lambda v: lax.stage(v)))(1.0))
  return (lax.stage(3.0), lax.stage(np.float32(2)), lax.stage(jnp.ones(2)), lax.stage(True),
          jax.grad(lambda v: lax.stage(v) * v)(3.0), _err(lambda: lax.stage([1, 2])))


# --- composite and platform_dependent ------------------------------------------------------------

@program
def composite_values_and_printed_jaxprs():
  x = jnp.arange(6.0).reshape(2, 3)
  op = lax.composite(lambda v, w: v * 2 + w, name="my.op", version=2)
  print(jax.make_jaxpr(lambda a: op(a, 1.0))(x))
  scaled = lax.composite(lambda v, *, k: v * k, "ns.k")
  print(jax.make_jaxpr(lambda a: scaled(a, k=3))(x))
  attrs = lax.composite(lambda v, *, a, b, c, d, e: v * a, "my.attrs")
  print(jax.make_jaxpr(lambda v: attrs(v, a=2.0, b={"u": [1, 2]}, c=np.arange(3), d="s",
                                       e=None))(1.0))
  two = lax.composite(lambda v, w: (v + w, {"s": v * w}), "ns.two")
  print(jax.make_jaxpr(two)(1.0, jnp.ones(2)))
  print(jax.make_jaxpr(lambda v: lax.composite(lambda u: u + np.arange(3.0), "c.c")(v))(1.0))
  return (op(x, 1.0), jax.jit(lambda a: op(a, 1.0))(x), two(1.0, jnp.ones(2)),
          jax.jit(lambda v: attrs(v, a=2.0, b={"u": [1, 2]}, c=np.arange(3, dtype=np.int32),
                                  d="s", e=None))(1.0),
          attrs(1.0, a=jnp.ones(2), b=True, c=np.float32(1), d=b"x", e=None))


@program
def composite_refuses_transforms_and_tracer_attributes():
  f = lax.composite(lambda v: jnp.sin(v), "ns.s")
  attrs = lax.composite(lambda v, *, a: v * a, "my.op")
  return (_err(lambda: jax.grad(f)(1.0)), _err(lambda: jax.vmap(f)(jnp.ones(2)))[0],
          _err(lambda: jax.jit(lambda v: attrs(v, a=v))(1.0)),
          lax.composite(lambda v: v, "n").__name__)


@program
def platform_dependent_eager_picks_cpu():
  return (lax.platform_dependent(1.0, cpu=jnp.sin, default=jnp.cos),
          lax.platform_dependent(1.0, cuda=jnp.sin, default=jnp.cos),
          lax.platform_dependent(1.0, cpu=jnp.sin),
          lax.platform_dependent(1.0, 2.0, cpu=lambda a, b: a + b, default=lambda a, b: a * b),
          lax.platform_dependent(1, cpu=lambda a: a, default=lambda a: a * 2.0),
          lax.platform_dependent(cpu=lambda: 1, default=lambda: 2),
          _err(lambda: lax.platform_dependent(1.0, gpu=jnp.sin, default=jnp.cos)),
          _err(lambda: lax.platform_dependent(1.0, cuda=jnp.sin)),
          _err(lambda: lax.platform_dependent(1.0, cpu=1.0)))


@program
def platform_dependent_staged_jaxprs_and_transforms():
  x = jnp.arange(6.0).reshape(2, 3)
  print(jax.make_jaxpr(lambda a: lax.platform_dependent(a, cpu=jnp.sin, default=jnp.cos))(x))
  print(jax.make_jaxpr(lambda a: lax.platform_dependent(a, cpu=jnp.sin, cuda=jnp.cos))(x))
  print(jax.make_jaxpr(lambda a: lax.platform_dependent(a, cpu=jnp.sin))(x))
  print(jax.make_jaxpr(lambda a: lax.platform_dependent(a, cuda=jnp.sin, rocm=jnp.sin,
                                                        default=jnp.cos))(x))
  print(jax.make_jaxpr(jax.vmap(lambda a: lax.platform_dependent(a, cpu=jnp.sin,
                                                                 default=jnp.cos)))(x))
  f = lambda a: lax.platform_dependent(a, cpu=jnp.sin, default=jnp.cos)  # noqa: E731
  return (jax.jit(f)(1.0), jax.grad(f)(1.0), jax.jit(jax.grad(f))(1.0), jax.jit(jax.vmap(f))(x),
          _err(lambda: jax.jit(lambda a: lax.platform_dependent(a, cuda=jnp.sin))(1.0)))


# --- patches and local convolutions ---------------------------------------------------------------

@program
def conv_general_dilated_patches_channel_order_and_jaxprs():
  x = jnp.arange(2 * 3 * 4 * 5, dtype=jnp.float32).reshape(2, 3, 4, 5)
  print(jax.make_jaxpr(lambda v: lax.conv_general_dilated_patches(v, (2, 2), (1, 1), "VALID"))(x))
  nhwc = lambda v: lax.conv_general_dilated_patches(  # noqa: E731
      v, (2, 3), (1, 2), "SAME", dimension_numbers=("NHWC", "OIHW", "NHWC"))
  print(jax.make_jaxpr(nhwc)(x))
  p = lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID")
  return (p, nhwc(x)[0, 0, 0, :],
          lax.conv_general_dilated_patches(x.astype(jnp.int32), (2, 2), (1, 1), "VALID").dtype,
          lax.conv_general_dilated_patches(x.astype(jnp.bfloat16), (2, 2), (1, 1), "VALID",
                                           preferred_element_type=jnp.float32).dtype,
          lax.conv_general_dilated_patches(x, (2, 2), (2, 1), [(1, 0), (0, 1)],
                                           rhs_dilation=(1, 2)))


@program
def conv_general_dilated_local_values_jaxpr_and_grad():
  y = jnp.arange(1 * 2 * 4 * 5, dtype=jnp.float32).reshape(1, 2, 4, 5)
  w = jnp.arange(3 * 8 * 3 * 4, dtype=jnp.float32).reshape(3, 8, 3, 4) / 100
  print(jax.make_jaxpr(lambda a, b: lax.conv_general_dilated_local(a, b, (1, 1), "VALID",
                                                                   (2, 2)))(y, w))
  w2 = jnp.arange(3 * 4 * 8 * 3, dtype=jnp.float32).reshape(3, 4, 8, 3) / 100
  nhwc = lax.conv_general_dilated_local(jnp.transpose(y, (0, 2, 3, 1)), w2, (1, 1), "VALID",
                                        (2, 2), dimension_numbers=("NHWC", "HWIO", "NHWC"))
  return (lax.conv_general_dilated_local(y, w, (1, 1), "VALID", (2, 2)), nhwc,
          jax.grad(lambda k: lax.conv_general_dilated_local(y, k, (1, 1), "VALID",
                                                            (2, 2)).sum())(w)[0, :, 0, 0],
          _err(lambda: lax.conv_general_dilated_local(y, w, (1, 1), "VALID", (2, 2),
                                                      precision="F32_F32_F32")))


# --- ragged_dot and scaled_dot --------------------------------------------------------------------

def _ragged_operands():
  lhs = jnp.arange(5 * 3, dtype=jnp.float32).reshape(5, 3)
  rhs = jnp.arange(2 * 3 * 4, dtype=jnp.float32).reshape(2, 3, 4)
  return lhs, rhs, jnp.array([2, 3], jnp.int32)


@program
def ragged_dot_group_semantics():
  lhs, rhs, gs = _ragged_operands()
  print(jax.make_jaxpr(lax.ragged_dot)(lhs, rhs, gs))
  return (lax.ragged_dot(lhs, rhs, gs), lax.ragged_dot(lhs, rhs, jnp.array([1, 2], jnp.int32)),
          lax.ragged_dot(lhs, rhs, jnp.array([4, 3], jnp.int32)),
          lax.ragged_dot(lhs, rhs, jnp.array([-1, 3])), lax.ragged_dot(lhs, rhs, jnp.array([0, 0])),
          lax.ragged_dot(lhs.astype(jnp.int32), rhs.astype(jnp.int32), gs),
          lax.ragged_dot(lhs, rhs.astype(jnp.int32), gs),
          lax.ragged_dot(lhs, rhs, gs.astype(jnp.uint32)),
          jax.jit(lax.ragged_dot)(lhs, rhs, gs),
          lax.ragged_dot(lhs.astype(jnp.bfloat16), rhs.astype(jnp.bfloat16), gs,
                         preferred_element_type=jnp.float32))


@program
def ragged_dot_gradients_and_jvp():
  lhs, rhs, gs = _ragged_operands()
  loss = lambda l, r: (lax.ragged_dot(l, r, gs) ** 2).sum()  # noqa: E731
  print(jax.make_jaxpr(jax.grad(lambda l, r: lax.ragged_dot(l, r, gs).sum(), (0, 1)))(lhs, rhs))
  return (jax.grad(loss, (0, 1))(lhs, rhs),
          jax.jvp(lambda l: lax.ragged_dot(l, rhs, gs), (lhs,), (jnp.ones_like(lhs),)),
          jax.jit(jax.grad(loss, 1))(lhs, rhs))


@program
def ragged_dot_general_modes():
  R = lax.RaggedDotDimensionNumbers
  gs = jnp.array([2, 3], jnp.int32)
  l2 = jnp.arange(4 * 5, dtype=jnp.float32).reshape(4, 5)
  r2 = jnp.arange(5 * 3, dtype=jnp.float32).reshape(5, 3)
  l3 = jnp.arange(5 * 2 * 3, dtype=jnp.float32).reshape(5, 2, 3)
  r3 = jnp.arange(5 * 3 * 4, dtype=jnp.float32).reshape(5, 3, 4)
  lb = jnp.arange(2 * 5 * 3, dtype=jnp.float32).reshape(2, 5, 3)
  rb = jnp.arange(2 * 2 * 3 * 4, dtype=jnp.float32).reshape(2, 2, 3, 4)
  rdn = R((([2], [2]), ([0], [1])), [1], [0])
  return (lax.ragged_dot_general(l2, r2, gs, R((([1], [0]), ([], [])), [1], [])),
          lax.ragged_dot_general(l3, r3, gs, R((([2], [1]), ([0], [0])), [0], [])),
          lax.ragged_dot_general(lb, rb, gs, rdn),
          lax.ragged_dot_general(lb, rb, jnp.array([[2, 3], [1, 1]]), rdn),
          jax.grad(lambda l, r: (lax.ragged_dot_general(l, r, gs, rdn) ** 2).sum(), (0, 1))(lb, rb),
          _err(lambda: jax.grad(lambda l: lax.ragged_dot_general(
              l, r3, gs, R((([2], [1]), ([0], [0])), [0], [])).sum())(l3)))


@program
def ragged_dot_errors_and_config():
  lhs, rhs, gs = _ragged_operands()
  R = lax.RaggedDotDimensionNumbers
  r = R((([1], [1]), ([], [])), [0], [0])
  l2 = jnp.ones((4, 5))
  return (repr(r), r == R((((1,), (1,)), ((), ())), (0,), (0,)),
          hash(r) == hash(R((((1,), (1,)), ((), ())), (0,), (0,))),
          _err(lambda: lax.ragged_dot(lhs, rhs, gs.astype(jnp.float32))),
          _err(lambda: lax.ragged_dot(lhs, rhs, jnp.array([1, 2, 2]))),
          _err(lambda: lax.ragged_dot(lhs, rhs[:, :2], gs)),
          _err(lambda: lax.ragged_dot(1.0, rhs, gs)),
          _err(lambda: lax.ragged_dot(lhs, rhs, [2, 3])),
          _err(lambda: lax.ragged_dot_general(l2, l2.T, gs, R((([1], [0]), ([], [])), [0, 1], []))),
          _err(lambda: lax.ragged_dot_general(l2, l2.T, gs, R((([1], [0]), ([], [])), [1], [0]))),
          _err(lambda: jax.grad(lambda g: lax.ragged_dot(lhs, rhs, g).sum())(gs)))


@program
def scaled_dot_values_jaxprs_and_errors():
  a = jnp.arange(2 * 4 * 8, dtype=jnp.float32).reshape(2, 4, 8) / 10
  b = jnp.arange(2 * 8 * 3, dtype=jnp.float32).reshape(2, 8, 3) / 10
  sa = jnp.ones((2, 4, 2), jnp.float32) * 2
  sb = jnp.ones((2, 4, 3), jnp.float32)
  print(jax.make_jaxpr(lambda u, v: lax.scaled_dot(u, v, lhs_scale=sa, rhs_scale=sb,
                                                   preferred_element_type=jnp.float32))(a, b))
  return (lax.scaled_dot(a, b), lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb),
          lax.scaled_dot(a[0], b[0], preferred_element_type=jnp.float32),
          lax.scaled_dot(a, b, lhs_scale=sa, preferred_element_type=jnp.float16),
          jax.jit(lambda u, v: lax.scaled_dot(u, v, lhs_scale=sa,
                                              preferred_element_type=jnp.float32))(a, b),
          jax.vmap(lambda u, v: lax.scaled_dot(u, v, preferred_element_type=jnp.float32))(a, b),
          _err(lambda: lax.scaled_dot(a, b[:, :4])),
          _err(lambda: lax.scaled_dot(a, b, lhs_scale=jnp.ones((2, 4, 8)))),
          _err(lambda: lax.scaled_dot(a, b, lhs_scale=jnp.ones((2, 4, 3)))),
          _err(lambda: lax.scaled_dot(a[0, 0], b[0, 0])),
          _err(lambda: jax.grad(lambda u: lax.scaled_dot(u, b).sum())(a)))


# --- precision-config objects ---------------------------------------------------------------------

@program
def dot_algorithm_accepted_as_precision():
  a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
  dn = (((1,), (0,)), ((), ()))
  alg = lax.DotAlgorithm(np.float32, np.float32, np.float32)
  print(repr(alg))
  print(jax.make_jaxpr(lambda u: lax.dot_general(u, b, dn, precision=alg))(a))
  print(jax.make_jaxpr(jax.grad(lambda u: lax.dot_general(u, b, dn, precision=alg).sum()))(a))
  return (alg._fields, alg.num_primitive_operations, alg == lax.DotAlgorithm(np.float32, np.float32,
                                                                           np.float32),
          _err(lambda: lax.dot_general(a, b, dn, precision=alg)),
          _err(lambda: lax.dot(a, b, precision=alg)),
          _err(lambda: jnp.matmul(a, b, precision=alg)),
          lax.conv_general_dilated(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2)), (1, 1),
                                   "VALID", precision=alg),
          _err(lambda: lax.DotAlgorithm(np.float32, np.float32)))


@program
def accuracy_mode_and_tolerance():
  a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
  dn = (((1,), (0,)), ((), ()))
  t = lax.Tolerance(atol=1e-3)
  return ([m.name for m in lax.AccuracyMode], [m.value for m in lax.AccuracyMode],
          (t.atol, t.rtol, t.ulps), lax.Tolerance(1, 2, 3).rtol, lax.Tolerance(ulps=2).ulps,
          _err(lambda: lax.Tolerance()), _err(lambda: lax.Tolerance(atol=-1)),
          _err(lambda: lax.dot_general(a, b, dn, precision=lax.Tolerance(atol=1.0)))[0],
          _err(lambda: lax.dot_general(a, b, dn, precision=lax.AccuracyMode.HIGHEST))[0])


# --- accelerator collectives ----------------------------------------------------------------------

@program
def collectives_need_a_bound_axis():
  x = jnp.ones(3)
  z = jnp.zeros(1, jnp.int32)
  return (_err(lambda: lax.pbroadcast(x, "i", 0))[0],
          _err(lambda: jax.make_jaxpr(lambda v: lax.pbroadcast(v, "i", 0))(x))[0],
          _err(lambda: jax.make_jaxpr(lambda v: lax.ragged_all_to_all(
              v, v, z, z, z, z, axis_name="i"))(x)),
          _err(lambda: lax.ragged_all_to_all(1.0, 1.0, 0, 0, 0, 0, axis_name="i")),
          _err(lambda: lax.psend(x, "i", [(0, 1)]))[0],
          _err(lambda: jax.make_jaxpr(lambda v: lax.psend(v, "i", [(0, 1)]))(x)),
          _err(lambda: lax.precv(lax.create_token(), x, "i", [(0, 1)]))[0])


# --- the primitive objects ------------------------------------------------------------------------

@program
def primitive_objects_are_the_jaxprs():
  x = jnp.arange(6.0).reshape(2, 3)
  eqns = jax.make_jaxpr(lambda a: lax.stack([jnp.sin(a), a * 2.0]).sum())(x).jaxpr.eqns
  names = ["abs_p", "add_p", "cond_p", "scan_p", "while_p", "scatter_add_p", "scatter_sub_p",
           "linear_solve_p", "split_p", "stop_gradient_p", "rng_bit_generator_p", "stack_p",
           "unstack_p", "tile_p", "mulhi_p", "optimization_barrier_p", "create_token_p",
           "after_all_p", "dce_sink_p", "stage_p", "rng_uniform_p", "ragged_all_to_all_p",
           "select_and_scatter_add_p", "sharding_constraint_p"]
  return ([e.primitive is getattr(lax, p) for e, p in zip(eqns, ["sin_p", "mul_p", "stack_p",
                                                                   "reduce_sum_p"])],
          [(n, getattr(lax, n).name, getattr(lax, n).multiple_results) for n in names])
