"""jax.image, jax.experimental.ode.odeint and jax.random.multinomial.

image: resize with every method and its aliases (nearest, linear/bilinear/trilinear/triangle,
cubic/bicubic/tricubic, cubic-pytorch, lanczos3, lanczos5, area), up and down, with and without
antialias, over one to three spatial dimensions (batch and channel dimensions left alone);
integer, boolean, float16, bfloat16, complex and float64 images (the result dtypes and weak
types); scale_and_translate with scales and translations that move samples past the edges;
gradients with respect to the image, the scale and the translation; jit and vmap; ResizeMethod;
and the errors for a wrong rank, an unknown method and nearest in scale_and_translate.

ode: odeint on scalar, vector and pytree states, with extra arguments and closed-over values,
tolerances, hmax and mxstep; gradients with respect to y0, the times, the arguments and closed-over
values (the adjoint method); jit and vmap; float64; the errors for integer times and non-array
arguments.

multinomial: counts for fixed keys over shapes, batched n and p, dtypes (float, int, float16
probabilities), zero probabilities, large n, raw and typed keys (threefry, rbg and
unsafe_rbg), jit and vmap, and its errors."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
image = submodule("image")
ode = submodule("experimental.ode")

METHODS = ("nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area")
SMOOTH = METHODS[1:]


def _img(*shape, seed=0, dtype=np.float32):
  return jnp.asarray(np.random.RandomState(seed).randn(*shape).astype(dtype))


# --- image: resize ------------------------------------------------------------------------------

@program
def resize_1d_every_method_up_and_down():
  x = _img(9)
  return {m: [image.resize(x, (n,), m) for n in (1, 4, 9, 13, 20)] for m in METHODS}


@program
def resize_2d_every_method_antialias_on_and_off():
  x = _img(7, 9, 3)
  return {f"{m}-{aa}": [image.resize(x, shape, m, antialias=aa)
                        for shape in ((4, 5, 3), (11, 4, 3), (14, 18, 3), (3, 9, 3))]
          for m in METHODS for aa in (True, False)}


@program
def resize_3d_spatial():
  x = _img(4, 5, 6, 2)
  return [image.resize(x, (7, 3, 9, 2), m) for m in METHODS]


@program
def resize_method_aliases_and_enum():
  x = _img(5, 6)
  names = ("bilinear", "trilinear", "triangle", "bicubic", "tricubic", "bicubic-pytorch")
  enums = [image.ResizeMethod.LINEAR, image.ResizeMethod.LANCZOS3, image.ResizeMethod.AREA,
           image.ResizeMethod.CUBIC_PYTORCH, image.ResizeMethod.NEAREST]
  return ([image.resize(x, (8, 4), n) for n in names] +
          [image.resize(x, (8, 4), e) for e in enums])


@program
def resize_method_enum_members():
  R = image.ResizeMethod
  return ([m.name for m in R], [m.value for m in R], repr(R.LINEAR), str(R.CUBIC),
          R.from_string("bicubic-pytorch").name, R(6).name,
          sorted(n for n in dir(image) if not n.startswith("_")))


@program
def resize_integer_and_bool_images():
  x = jnp.arange(20, dtype=jnp.uint8).reshape(4, 5)
  out = {}
  for dt in (jnp.uint8, jnp.int8, jnp.int16, jnp.int32, jnp.uint32, jnp.bool_):
    for m in ("nearest", "linear", "area", "cubic"):
      out[f"{np.dtype(dt).name}-{m}"] = image.resize(x.astype(dt), (7, 3), m)
  return out


@program
def resize_float16_bfloat16_complex():
  x = _img(6, 7)
  out = []
  for m in METHODS:
    out.append(image.resize(x.astype(jnp.float16), (4, 10), m))
    out.append(image.resize(x.astype(jnp.bfloat16), (4, 10), m))
    out.append(image.resize(x + 1j * x[::-1], (9, 3), m))
  return out


@program
def resize_weak_types_and_identity():
  w = lax.broadcast(1.5, (3,))
  wi = lax.broadcast(2, (3,))
  return (image.resize(w, (5,), "linear"), image.resize(w, (5,), "nearest"),
          image.resize(w, (3,), "linear"), image.resize(wi, (3,), "cubic"),
          image.resize(wi, (5,), "lanczos3"), image.resize(jnp.float32(2.0), (), "linear"),
          image.resize(jnp.arange(4), (4,), "linear"), image.resize(2.0, (), "area"))


@program
def resize_numpy_inputs_and_zero_sizes():
  x = np.arange(12.0).reshape(3, 4)
  return (image.resize(x, (5, 2), "linear"), image.resize(np.arange(6), (4,), "nearest"),
          image.resize(x, (0, 4), "cubic"), image.resize(x, (3, 0), "nearest"),
          image.resize(x, [6, np.int32(8)], "area"))


@program
def resize_nearest_index_rounding():
  return [image.resize(jnp.arange(m), (n,), "nearest")
          for m, n in ((2, 41), (2, 47), (3, 7), (7, 3), (10, 3), (11, 7), (13, 6), (5, 55))]


@program
def resize_precision_argument():
  x = _img(5, 6)
  return [image.resize(x, (7, 3), "lanczos3", precision=p)
          for p in (lax.Precision.DEFAULT, lax.Precision.HIGH, lax.Precision.HIGHEST, None)]


@program(x64=True)
def resize_float64_and_int64():
  x = jnp.asarray(np.random.RandomState(1).randn(6, 7))
  return ([image.resize(x, (9, 4), m) for m in METHODS] +
          [image.resize(jnp.arange(12).reshape(3, 4), (5, 2), m) for m in ("nearest", "linear")]
          + [image.resize(lax.broadcast(2, (3,)), (5,), "linear")])


# --- image: scale_and_translate -----------------------------------------------------------------

@program
def scale_and_translate_methods():
  x = _img(7, 9, 2)
  cases = (((1.7, 0.6), (0.3, -1.2)), ((0.3, 2.5), (2.2, -0.4)), ((1.0, 1.0), (1.5, 0.0)),
           ((2.0, 0.5), (-3.0, 1.0)), ((0.51, 3.3), (0.0, 0.7)))
  return {f"{m}-{aa}-{i}": image.scale_and_translate(x, (6, 8, 2), (0, 1), jnp.array(s),
                                                      jnp.array(t), m, antialias=aa)
          for m in SMOOTH for aa in (True, False) for i, (s, t) in enumerate(cases)}


@program
def scale_and_translate_pytorch_cubic_past_the_edges():
  x = jnp.arange(6.0) ** 2
  return [image.scale_and_translate(x, (1,), (0,), jnp.array([1.0]), jnp.array([t]),
                                    "cubic-pytorch", antialias=False)
          for t in (-8.25, -7.0, -6.0, -2.5, -0.25, 0.5, 1.0, 3.25, 3.5, 4.0, 4.5)]


@program
def scale_and_translate_dims_dtypes_and_one_dim():
  x = jnp.arange(20).reshape(4, 5)
  return (image.scale_and_translate(x, (7, 3), (1, 0), jnp.array([0.7, 1.3]),
                                    jnp.array([0.2, 0.1]), "linear"),
          image.scale_and_translate(_img(7, 9, 2), (7, 5, 2), (-2,), jnp.array([0.6]),
                                    jnp.array([0.0]), "lanczos5"),
          image.scale_and_translate(_img(7, 9).astype(jnp.float16), (6, 8), (0, 1),
                                    jnp.array([0.7, 1.3]), jnp.array([0.2, 0.1]), "cubic"),
          image.scale_and_translate(_img(5, 5), (5, 5), (0, 1),
                                    jnp.array([0.7, 1.3], jnp.float16),
                                    jnp.array([0.2, 0.1], jnp.float16), "area"),
          image.scale_and_translate(_img(2, 2), (3, 3), (1,), jnp.ones(1), jnp.ones(1),
                                    "linear"),
          image.scale_and_translate(jnp.ones(3, jnp.int32), (3,), (), jnp.zeros(0),
                                    jnp.zeros(0), "linear"),
          image.scale_and_translate(_img(2, 3), (2, 5), (1,), jnp.array([2]), jnp.array([1]),
                                    "triangle"))


@program
def scale_and_translate_align_corners():
  x = _img(5, 6)
  s = jnp.array([(9 - 1) / (5 - 1), (4 - 1) / (6 - 1)])
  return image.scale_and_translate(x, (9, 4), (0, 1), s, 0.5 * (1 - s), "linear",
                                   antialias=False)


# --- image: derivatives and transforms ----------------------------------------------------------

def _st_loss(m, aa):
  weights = jnp.arange(96.0).reshape(6, 8, 2) / 50

  def loss(x, s, t):
    out = image.scale_and_translate(x, (6, 8, 2), (0, 1), s, t, m, antialias=aa)
    return jnp.sum(jnp.sin(out) * weights)
  return loss


@program(rtol=1e-4, atol=1e-5)
def scale_and_translate_gradients():
  x = _img(7, 9, 2)
  out = {}
  for m in SMOOTH:
    for aa in (True, False):
      for i, (s, t) in enumerate((((1.7, 0.6), (0.3, -1.2)), ((1.0, 1.0), (1.0, 0.0)),
                                  ((2.0, 0.5), (-3.0, 1.0)))):
        out[f"{m}-{aa}-{i}"] = jax.grad(_st_loss(m, aa), argnums=(0, 1, 2))(
            x, jnp.array(s), jnp.array(t))
  return out


@program(x64=True)
def scale_and_translate_gradients_float64():
  x = jnp.asarray(np.random.RandomState(2).randn(7, 9, 2))
  return {m: jax.grad(_st_loss(m, True), argnums=(0, 1, 2))(x, jnp.array([1.3, 0.7]),
                                                           jnp.array([0.25, -0.6]))
          for m in SMOOTH}


@program(rtol=1e-4, atol=1e-5)
def resize_gradients_every_method():
  x = _img(6, 7)
  w = jnp.arange(12.0).reshape(3, 4)
  return {m: jax.grad(lambda x: jnp.sum(image.resize(x, (3, 4), m) ** 2 * w))(x) for m in METHODS}


@program(rtol=1e-4, atol=1e-5)
def resize_jvp_and_vjp_upsampling():
  x = _img(4, 3)
  f = lambda x: image.resize(x, (9, 5), "lanczos3")
  out, vjp = jax.vjp(f, x)
  return (jax.jvp(f, (x,), (jnp.ones_like(x),)), vjp(jnp.ones_like(out)),
          jax.jacfwd(lambda x: image.resize(x, (5,), "cubic"))(jnp.arange(3.0)))


@program
def resize_under_jit_and_vmap():
  x = _img(5, 6, 3)
  return ([jax.jit(lambda x: image.resize(x, (3, 9, 3), m))(x) for m in METHODS] +
          [jax.vmap(lambda x: image.resize(x, (8, 2), m), in_axes=2)(x) for m in METHODS] +
          [jax.jit(image.resize, static_argnums=(1, 2))(x, (2, 2, 3), "area")])


@program
def scale_and_translate_vmap_over_scales():
  x = _img(6, 5)
  scales = jnp.array([[0.5, 1.0], [1.5, 2.0], [0.8, 0.3]])
  f = lambda s: image.scale_and_translate(x, (6, 5), (0, 1), s, jnp.zeros(2), "lanczos3")
  return jax.vmap(f)(scales), jax.jit(jax.vmap(f))(scales)


# --- image: errors ------------------------------------------------------------------------------

@program
def resize_wrong_rank_error():
  return image.resize(jnp.ones((2, 2)), (3,), "linear")


@program
def resize_unknown_method_error():
  return image.resize(jnp.ones((2, 2)), (3, 3), "bogus")


@program
def resize_upper_case_method_error():
  return image.resize(jnp.ones((2, 2)), (3, 3), "LINEAR")


@program
def resize_float_shape_error():
  return image.resize(jnp.ones((2, 2)), (3.0, 3), "linear")


@program
def resize_list_image_error():
  return image.resize([1.0, 2.0], (3,), "linear")


@program
def resize_from_empty_dimension_error():
  return image.resize(jnp.ones((0, 2)), (3, 2), "linear")


@program
def scale_and_translate_nearest_error():
  return image.scale_and_translate(jnp.ones((2, 2)), (3, 3), (0,), jnp.ones(1), jnp.ones(1),
                                   "nearest")


@program
def scale_and_translate_wrong_rank_error():
  return image.scale_and_translate(jnp.ones((2, 2)), (3,), (0,), jnp.ones(1), jnp.ones(1),
                                   "linear")


@program
def scale_and_translate_list_scale_error():
  return image.scale_and_translate(jnp.ones((2, 2)), (3, 2), [0], [1.5], [0.0], "linear")


# --- ode ----------------------------------------------------------------------------------------

def _decay(y, t, k):
  return -k * y


def _lotka_volterra(y, t, a, b):
  prey, pred = y["prey"], y["pred"]
  return {"prey": a * prey - b * prey * pred, "pred": -pred + b * prey * pred}


def _oscillator(y, t):
  return jnp.stack([y[1], -y[0]])


@program(rtol=1e-5, atol=1e-6)
def odeint_scalar_vector_and_pytree_states():
  ts = jnp.linspace(0.0, 2.0, 5)
  return (ode.odeint(_decay, 1.0, ts, 2.0),
          ode.odeint(_decay, jnp.array([1.0, 2.0, -0.5]), ts, 0.5),
          ode.odeint(_oscillator, jnp.array([0.0, 1.0]), jnp.array([0.0, jnp.pi / 2, jnp.pi])),
          ode.odeint(_lotka_volterra, {"prey": jnp.array(1.0), "pred": jnp.array(0.5)}, ts,
                     1.1, 0.4),
          ode.odeint(lambda y, t: (y[1], -jnp.sin(t) * y[0]), (jnp.ones(2), jnp.zeros(2)),
                     jnp.array([0.0, 0.5, 3.0])))


@program(rtol=1e-4, atol=1e-6)
def odeint_time_dependent_and_nonlinear():
  ts = jnp.array([0.0, 0.1, 0.7, 1.5, 4.0])
  return (ode.odeint(lambda y, t: jnp.cos(3.0 * t) * y, jnp.ones(3), ts),
          ode.odeint(lambda y, t: y * (1 - y), jnp.array([0.1, 0.5, 2.0]), ts),
          ode.odeint(lambda y, t: jnp.stack([10.0 * (y[1] - y[0]), y[0] * (28.0 - y[2]) - y[1],
                                             y[0] * y[1] - 8.0 / 3.0 * y[2]]),
                     jnp.array([1.0, 1.0, 1.0]), jnp.linspace(0.0, 0.5, 4)))


@program(rtol=1e-4, atol=1e-6)
def odeint_tolerances_hmax_and_mxstep():
  ts = jnp.linspace(0.0, 3.0, 4)
  f = lambda y, t: -y + jnp.sin(t)
  return (ode.odeint(f, 1.0, ts, rtol=1e-3, atol=1e-3),
          ode.odeint(f, 1.0, ts, rtol=1e-10, atol=1e-10),
          ode.odeint(f, 1.0, ts, hmax=0.05),
          ode.odeint(lambda y, t: -10.0 * y, 1.0, ts, mxstep=3),
          ode.odeint(f, 1.0, jnp.array([0.0, 0.0, 1.0])))


@program(rtol=2e-4, atol=1e-5)
def odeint_gradients_wrt_y0_args_and_times():
  ts = jnp.linspace(0.0, 2.0, 5)
  f = lambda y, t, k: -k * y * jnp.sin(t + 1.0)
  loss = lambda y0, ts, k: jnp.sum(ode.odeint(f, y0, ts, k) ** 2)
  return (jax.grad(loss, argnums=(0, 1, 2))(jnp.array([1.0, -2.0]), ts, 0.7),
          jax.grad(lambda y0: ode.odeint(_decay, y0, ts, 2.0)[-1])(1.0),
          jax.value_and_grad(lambda k: ode.odeint(_decay, 1.0, ts, k)[2])(0.5))


@program(rtol=2e-4, atol=1e-5)
def odeint_gradients_pytree_and_closure():
  ts = jnp.linspace(0.0, 1.5, 4)
  y0 = {"prey": jnp.array(1.0), "pred": jnp.array(0.5)}

  def loss(a, b):
    ys = ode.odeint(_lotka_volterra, y0, ts, a, b)
    return jnp.sum(ys["pred"]) + jnp.sum(ys["prey"] ** 2)

  def closed(k):
    return jnp.sum(ode.odeint(lambda y, t: -k * y + jnp.cos(t), jnp.array([1.0, 3.0]), ts))

  return jax.grad(loss, argnums=(0, 1))(1.1, 0.4), jax.grad(closed)(0.7)


@program(rtol=2e-4, atol=1e-5)
def odeint_under_jit_vmap_and_vjp():
  ts = jnp.linspace(0.0, 1.0, 3)
  f = lambda y, t: jnp.cos(t) * y
  ys, vjp = jax.vjp(lambda y0: ode.odeint(f, y0, ts), jnp.arange(1.0, 3.0))
  return (jax.jit(lambda y0: ode.odeint(f, y0, ts, rtol=1e-6, atol=1e-6))(jnp.ones(3)),
          jax.vmap(lambda y0: ode.odeint(f, y0, ts))(jnp.arange(3.0)),
          jax.vmap(lambda k: ode.odeint(_decay, 1.0, ts, k))(jnp.array([0.5, 1.0, 2.0])),
          ys, vjp(jnp.ones_like(ys)),
          jax.jit(jax.grad(lambda k: ode.odeint(_decay, 2.0, ts, k)[-1]))(1.5))


@program(x64=True)
def odeint_float64():
  ts = jnp.linspace(0.0, 2.0, 5)
  exact = jnp.exp(-2.0 * ts)
  ys = ode.odeint(_decay, 1.0, ts, 2.0)
  return (ys, jnp.max(jnp.abs(ys - exact)) < 1e-7,
          jax.grad(lambda k: ode.odeint(_decay, 1.0, ts, k)[-1])(2.0),
          ode.odeint(_oscillator, jnp.array([0.0, 1.0]), jnp.array([0.0, 1.0, 2.0])))


@program
def odeint_integer_times_error():
  return ode.odeint(lambda y, t: -y, 1.0, jnp.arange(3))


@program
def odeint_string_argument_error():
  return ode.odeint(lambda y, t, s: -y, 1.0, jnp.linspace(0.0, 1.0, 3), "a")


# --- random.multinomial -------------------------------------------------------------------------

@program
def multinomial_basic_shapes():
  k = jax.random.key(0)
  p = jnp.array([0.2, 0.3, 0.5])
  return (jax.random.multinomial(k, 10, p),
          jax.random.multinomial(k, 10.0, p, shape=(4, 3)),
          jax.random.multinomial(k, jnp.array([5, 10]), jnp.array([[0.1, 0.9], [0.5, 0.5]])),
          jax.random.multinomial(k, 30, p, shape=[2, 3]),
          jax.random.multinomial(k, 10, p, shape=(2, 0, 3)))


@program
def multinomial_batched_n_and_p():
  k = jax.random.PRNGKey(3)
  p = jnp.ones((2, 3, 5)) / 5
  return (jax.random.multinomial(k, jnp.array([[3.0], [50.0]]), p, shape=(2, 3, 5)),
          jax.random.multinomial(k, jnp.array([1, 7, 40]), jnp.array([0.6, 0.1, 0.3]),
                                 shape=(3, 3)),
          jax.random.multinomial(jax.random.key(9), 25, jnp.arange(1.0, 7.0) / 21))


@program
def multinomial_dtypes():
  k = jax.random.key(1)
  p = jnp.array([0.2, 0.3, 0.5])
  return (jax.random.multinomial(k, 10, p, dtype=jnp.int32),
          jax.random.multinomial(k, 10, p, dtype=jnp.float16),
          jax.random.multinomial(k, 10, p, shape=(2, 3), dtype=jnp.bfloat16),
          jax.random.multinomial(k, 10, p.astype(jnp.float16)),
          jax.random.multinomial(k, 10, jnp.array([1, 2, 3])),
          jax.random.multinomial(k, 10, p, dtype=jnp.uint8))


@program(x64=True)
def multinomial_float64():
  k = jax.random.key(5)
  return (jax.random.multinomial(k, 100, jnp.array([0.25, 0.25, 0.5])),
          jax.random.multinomial(k, 7, jnp.array([0.1, 0.9], jnp.float32)),
          jax.random.multinomial(k, 12, jnp.array([0.3, 0.7]), dtype=jnp.int64))


@program
def multinomial_edge_probabilities_and_counts():
  k = jax.random.PRNGKey(1)
  return (jax.random.multinomial(k, 100, jnp.array([0.0, 0.3, 0.7, 0.0])),
          jax.random.multinomial(k, 1e6, jnp.array([0.2, 0.3, 0.5])),
          jax.random.multinomial(k, 10, jnp.array([0.5, 0.7])),
          jax.random.multinomial(k, 10, jnp.array([-0.5, 0.7])),
          jax.random.multinomial(k, jnp.nan, jnp.array([0.2, 0.8])),
          jax.random.multinomial(k, 0, jnp.array([0.2, 0.8])),
          jax.random.multinomial(k, 1000, jnp.array([1.0])))


@program
def multinomial_many_keys_and_unroll():
  p = jnp.array([0.05, 0.15, 0.3, 0.5])
  keys = jax.random.split(jax.random.key(42), 4)
  return ([jax.random.multinomial(kk, 20, p) for kk in keys] +
          [jax.random.multinomial(keys[0], 20, p, unroll=u) for u in (2, True)])


@program
def multinomial_other_prng_implementations():
  p = jnp.array([0.2, 0.3, 0.5])
  return [jax.random.multinomial(jax.random.key(3, impl=impl), 40, p, shape=(2, 3))
          for impl in ("rbg", "unsafe_rbg", "threefry2x32")]


@program
def multinomial_under_jit_and_vmap():
  k = jax.random.key(0)
  p = jnp.array([0.2, 0.3, 0.5])
  return (jax.jit(lambda k: jax.random.multinomial(k, 30, p, shape=(2, 3)))(k),
          jax.vmap(lambda k: jax.random.multinomial(k, 30, p))(jax.random.split(k, 3)),
          jax.vmap(lambda n: jax.random.multinomial(k, n, p))(jnp.array([5.0, 50.0])))


@program
def multinomial_list_argument_error():
  return jax.random.multinomial(jax.random.key(0), 10, [0.2, 0.8])


@program
def multinomial_shape_mismatch_error():
  return jax.random.multinomial(jax.random.key(0), 10, jnp.array([0.2, 0.3, 0.5]), shape=(2,))


@program
def multinomial_n_does_not_broadcast_error():
  return jax.random.multinomial(jax.random.key(0), jnp.array([1, 2]), jnp.array([0.2, 0.8]))


@program
def multinomial_scalar_p_error():
  return jax.random.multinomial(jax.random.key(0), 10, 0.5)


@program
def multinomial_bad_key_error():
  return jax.random.multinomial(jnp.array([1, 2]), 10, jnp.array([0.2, 0.8]))
