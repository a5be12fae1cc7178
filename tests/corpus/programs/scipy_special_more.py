"""The jax.scipy.special functions beyond the gamma/error/Bessel-I core: bernoulli, bessel_jn,
dawsn, erfcx, exp1, expi, expn, fresnel, hyp1f1, hyp2f1, owens_t, sici, spence, sph_harm_y and
wofz. Values across each function's domain and at its edges (0, negative arguments, poles,
region boundaries of the rational approximations, +-inf, nan, huge arguments) in float32 and
float64, the dtypes of integer, bool and half-precision inputs, gradients where JAX defines them
(custom JVPs and plain autodiff), jit and vmap, and the errors for bad arguments.

JAX quirks pinned here on purpose: ``bessel_jn``'s backward recurrence overflows to nan in
float32 with the default ``n_iter=50``; ``expn``'s later matching condition wins (``expn(-1, 2)``
is finite); ``expi(0)`` is nan; ``owens_t`` of float32 arguments is float64 under x64;
``sph_harm_y`` is complex128 under x64 and clips ``n`` to ``n_max``. Arrays given to ``exp1``,
``expi`` and ``expn`` keep away from tiny positive arguments, where JAX's continued fraction
(evaluated for every element) takes forever."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
sp = submodule("scipy.special")

inf, nan = np.inf, np.nan


def f32(*v):
  return jnp.array(v, jnp.float32)


def f64(*v):
  return jnp.array(v, jnp.float64)


# --- bernoulli ---------------------------------------------------------------------------------

@program
def bernoulli_first_terms():
  return sp.bernoulli(0), sp.bernoulli(1), sp.bernoulli(2), sp.bernoulli(3), sp.bernoulli(12)


@program
def bernoulli_many_terms_f32():
  return sp.bernoulli(30)


@program(x64=True)
def bernoulli_f64():
  return sp.bernoulli(24), sp.bernoulli(np.int64(5)), sp.bernoulli(jnp.array(4))


@program
def bernoulli_negative_raises():
  return sp.bernoulli(-1)


@program
def bernoulli_float_raises():
  return sp.bernoulli(3.0)


@program(phrases=("Abstract tracer value encountered where concrete value is expected",))
def bernoulli_traced_raises():
  return jax.jit(sp.bernoulli)(3)


# --- bessel_jn ---------------------------------------------------------------------------------

@program
def bessel_jn_default_n_iter_overflows_f32():
  return sp.bessel_jn(f32(1., 5.), v=2), sp.bessel_jn(1.0, v=0)


@program
def bessel_jn_small_n_iter_f32():
  z = f32(0.5, 1., 2.5, 5., 10., -3.)
  return sp.bessel_jn(z, v=3, n_iter=30)


@program(x64=True)
def bessel_jn_default_f64():
  z = f64(0.1, 0.5, 1., 2.5, 5., 10., 20., -3., 0.)
  return sp.bessel_jn(z, v=4)


@program(x64=True)
def bessel_jn_orders_and_shapes():
  z = jnp.array([[1., 2., 3.], [4., 5., 6.]])
  return (sp.bessel_jn(z, v=1), sp.bessel_jn(2.0, v=-1), sp.bessel_jn(2.0, v=60, n_iter=10),
          sp.bessel_jn(jnp.array([1, 2]), v=1), sp.bessel_jn(3.0, v=2, n_iter=40.5))


@program
def bessel_jn_int_and_half_inputs():
  return (sp.bessel_jn(jnp.array([1, 2], jnp.int32), v=1, n_iter=20),
          sp.bessel_jn(jnp.array([1., 2.], jnp.float16), v=1, n_iter=8))


@program
def bessel_jn_grad_f32():
  g = jax.grad(lambda z: sp.bessel_jn(z, v=1, n_iter=20)[1])
  return jax.vmap(g)(f32(0.5, 1.5, 4.)), jax.grad(lambda z: sp.bessel_jn(z, v=2)[0])(1.5)


@program(x64=True)
def bessel_jn_grad_f64():
  g = jax.grad(lambda z: jnp.sum(sp.bessel_jn(z, v=2)))
  return jax.vmap(g)(f64(0.5, 1.5, 4., 12.))


@program
def bessel_jn_jit_and_vmap():
  f = jax.jit(lambda z: sp.bessel_jn(z, v=2, n_iter=25))
  return f(f32(1., 2.)), jax.vmap(lambda z: sp.bessel_jn(z, v=1, n_iter=25))(f32(0.5, 3.))


@program
def bessel_jn_float_order_raises():
  return sp.bessel_jn(1.0, v=2.0)


@program
def bessel_jn_positional_order_raises():
  return sp.bessel_jn(1.0, 2)


@program(phrases=("Non-hashable static arguments are not supported",))
def bessel_jn_traced_order_raises():
  return jax.jit(lambda v: sp.bessel_jn(1.0, v=v))(2)


@program(phrases=("rem does not accept dtype complex64",))
def bessel_jn_complex64_raises():
  return sp.bessel_jn(jnp.array([1 + 1j], jnp.complex64), v=1)


@program(x64=True)
def bessel_jn_complex128_raises():
  return sp.bessel_jn(jnp.array([1 + 1j]), v=1)


# --- dawsn and erfcx ------------------------------------------------------------------------------

@program
def dawsn_values_f32():
  x = f32(0., -0., 1e-30, 0.5, 1., -1., 2., 3.2, 3.25, -4., 5., 6.2, 6.25, 10., 100., 1e10,
          1e30, inf, -inf, nan)
  return sp.dawsn(x)


@program(x64=True)
def dawsn_values_f64():
  x = f64(0., 1e-300, 0.5, 1., -1., 2., 3.2, 3.25, -4., 5., 6.2, 6.25, 10., 100., 1e10, 1e200,
          1e300, inf, -inf, nan)
  return sp.dawsn(x)


@program
def dawsn_dtypes():
  return (sp.dawsn(1), sp.dawsn(1.0), sp.dawsn(jnp.array([1, 2], jnp.int32)),
          sp.dawsn(jnp.array([True])), sp.dawsn(jnp.array([0.5, 4., 7.], jnp.float16)),
          sp.dawsn(jnp.array([0.5, 4., 7.], jnp.bfloat16)))


@program
def dawsn_grad():
  return jax.vmap(jax.grad(sp.dawsn))(f32(0., 0.5, -1., 4., 10., inf))


@program
def dawsn_complex_raises():
  return sp.dawsn(jnp.array([1j]))


@program
def erfcx_values_f32():
  x = f32(-inf, -10., -5., -1., 0., 1e-10, 0.5, 1., 5., 9.4, 9.42, 10., 30., 1e5, 1e20, 1e30,
          inf, nan)
  return sp.erfcx(x)


@program(x64=True)
def erfcx_values_f64():
  x = f64(-inf, -30., -26., -5., -1., 0., 1e-10, 0.5, 1., 5., 20., 26.6, 26.7, 30., 1e5, 1e20,
          1e160, 1e300, inf, nan)
  return sp.erfcx(x)


@program
def erfcx_dtypes():
  return (sp.erfcx(1), sp.erfcx(jnp.array([1, 2], jnp.int32)),
          sp.erfcx(jnp.array([0.5, 5., 20.], jnp.float16)),
          sp.erfcx(jnp.array([0.5, 5., 20.], jnp.bfloat16)))


@program
def erfcx_complex():
  z = jnp.array([1 + 1j, -1 + 0.5j, 0j, 3 - 2j, -2 - 2j, 10 + 0j], jnp.complex64)
  return sp.erfcx(z)


@program(x64=True)
def erfcx_complex128():
  return sp.erfcx(jnp.array([1 + 1j, -1 + 0.5j, 0j, 3 - 2j, 0.1 + 20j]))


@program
def erfcx_grad():
  return jax.vmap(jax.grad(sp.erfcx))(f32(-1., 0., 1., 5., 20., 1e5))


# --- wofz ----------------------------------------------------------------------------------------

@program
def wofz_complex64():
  z = jnp.array([0j, 1 + 1j, -1 + 1j, 1 - 1j, -1 - 1j, 2j, -2j, 5 + 0.1j, 0.5 - 3j, 10 + 10j,
                 1e3 + 1j, 3 - 0.5j], jnp.complex64)
  return sp.wofz(z)


@program(x64=True)
def wofz_complex128():
  z = jnp.array([0j, 1 + 1j, -1 + 1j, 1 - 1j, -2.5 - 0.5j, 2j, 5 + 0.1j, 0.5 - 3j, 10 + 10j,
                 1e3 + 1j, 20 + 0.01j])
  return sp.wofz(z)


@program
def wofz_real_and_int_inputs():
  return (sp.wofz(f32(0., 1., -2., 5.)), sp.wofz(1), sp.wofz(jnp.array([1, 2], jnp.int32)),
          sp.wofz(jnp.array([0.5], jnp.float16)))


@program
def wofz_grad_of_real_part():
  g = jax.grad(lambda x: jnp.real(sp.wofz(x)))
  h = jax.grad(lambda x: jnp.imag(sp.wofz(x)))
  return jax.vmap(g)(f32(0., 0.5, 2.)), jax.vmap(h)(f32(0., 0.5, 2.))


# --- exponential integrals -------------------------------------------------------------------

@program
def exp1_values_f32():
  x = f32(1e-3, 0.1, 0.5, 1., 1.5, 2., 5., 10., 50., 88., 100., 0., -1., -1e-3, inf, nan)
  return sp.exp1(x)


@program(x64=True)
def exp1_values_f64():
  x = f64(1e-3, 0.1, 0.5, 1., 1.5, 2., 5., 10., 50., 700., 800., 0., -1., inf, nan)
  return sp.exp1(x)


@program
def exp1_dtypes():
  return sp.exp1(1), sp.exp1(2.0), sp.exp1(jnp.array([1, 3], jnp.int32)), sp.exp1(jnp.array([True]))


@program
def expi_values_f32():
  x = f32(-50., -10., -1., -0.1, 0., 0.1, 1., 2., 3., 4., 5., 8., 10., 16., 20., 32., 40., 64.,
          70., 100., inf, -inf, nan)
  return sp.expi(x)


@program(x64=True)
def expi_values_f64():
  x = f64(-700., -50., -1., -0.1, 0., 1e-3, 0.1, 1., 2., 3.5, 6., 12., 24., 50., 100., 700.,
          710., inf, -inf, nan)
  return sp.expi(x)


@program
def expi_dtypes():
  return sp.expi(1), sp.expi(jnp.array([1, 2], jnp.int32)), sp.expi(jnp.array([0.5], jnp.bfloat16))


@program
def expn_values_f32():
  n = jnp.array([0, 1, 2, 0, 1, 2, -1, -1, 1, 3, 5000, 6000, 1, 2, 3, 10, 30, 4, 7])
  x = f32(0., 0., 0., 1., -1., -1., 2., 0.5, inf, nan, 1., 2., 100., 1e-3, 0.5, 0.3, 5., 1.,
          20.)
  return sp.expn(n, x)


@program(x64=True)
def expn_values_f64():
  n = jnp.array([0, 1, 2, 3, 5, 10, 50, 1, 2, 5000, 4, 2])
  x = f64(0.5, 0.5, 0.5, 0.9, 1.5, 3., 2., 30., 700., 10., 0., 1e-3)
  return sp.expn(n, x)


@program
def expn_float_orders_and_broadcast():
  return (sp.expn(f32(1.5, 2., 2.5), f32(1., 1., 3.)),
          sp.expn(jnp.array([[1], [2], [3]]), f32(0.5, 1.5)), sp.expn(2, 1.0))


@program
def exponential_integral_grads():
  ge = jax.vmap(jax.grad(sp.exp1))(f32(0.5, 1., 2., 0.))
  gi = jax.vmap(jax.grad(sp.expi))(f32(-1., 0.5, 1., 2., 0.))
  gn = jax.vmap(jax.grad(sp.expn, argnums=1))(jnp.array([1., 2., 3.]), f32(0.5, 1., 2.))
  return ge, gi, gn


@program(x64=True)
def exponential_integral_grads_f64():
  return (jax.grad(sp.exp1)(f64(1.5)[0]), jax.grad(sp.expi)(f64(-2.5)[0]),
          jax.grad(lambda x: sp.expn(3, x))(f64(0.7)[0]))


@program
def expn_grad_wrt_order():
  return jax.grad(sp.expn, argnums=0)(1.0, 1.0)


@program
def exponential_integrals_jit_and_vmap():
  return (jax.jit(sp.exp1)(f32(0.5, 2.)), jax.jit(sp.expi)(f32(-1., 1.)),
          jax.vmap(sp.expn)(jnp.array([1, 2]), f32(0.5, 2.)))


@program
def exp1_complex_raises():
  return sp.exp1(jnp.array([1j]))


@program
def expi_complex_raises():
  return sp.expi(jnp.array([1j]))


@program
def expn_complex_raises():
  return sp.expn(1, jnp.array([1j]))


# --- sici and fresnel ----------------------------------------------------------------------------

@program
def sici_values_f32():
  x = f32(0., -0., 1e-20, 0.5, 1., -1., 4., 4.001, -6., 8., 10., 100., 1e5, 1e9, 2e9, inf,
          -inf, nan)
  return sp.sici(x)


@program(x64=True)
def sici_values_f64():
  x = f64(0., 1e-300, 0.5, 1., -1., 4., 4.001, -6., 7.999, 8., 10., 100., 1e5, 1e9, 2e9, 1e300,
          inf, -inf, nan)
  return sp.sici(x)


@program
def sici_dtypes():
  return sp.sici(1), sp.sici(jnp.array([1, 2], jnp.int32)), sp.sici(jnp.array([0.5], jnp.float16))


@program
def sici_grads():
  return jax.vmap(jax.jacfwd(sp.sici))(f32(0., 1., -1., 5., 10.)), jax.grad(
      lambda x: sp.sici(x)[1])(2.0)


@program
def sici_complex_raises():
  return sp.sici(jnp.array([1j], jnp.complex64))


@program
def fresnel_values_f32():
  x = f32(0., 0.5, 1., -1., 1.6, 1.601, 2., 5., 10., 100., 1e4, 36974., 4e4, 1e6, inf, -inf,
          nan)
  return sp.fresnel(x)


@program(x64=True)
def fresnel_values_f64():
  x = f64(0., 1e-300, 0.5, 1., -1., 1.6, 1.601, 2., 5., 10., 100., 1e4, 36974., 4e4, 1e6, 1e20,
          inf, -inf, nan)
  return sp.fresnel(x)


@program
def fresnel_dtypes():
  return (sp.fresnel(1), sp.fresnel(jnp.array([1, 3], jnp.int32)),
          sp.fresnel(jnp.array([0.5, 3.], jnp.float16)),
          sp.fresnel(jnp.array([0.5, 3.], jnp.bfloat16)))


@program
def fresnel_grads():
  gs = jax.vmap(jax.grad(lambda x: sp.fresnel(x)[0]))(f32(0., 0.5, -1., 3., 7.25))
  gc = jax.vmap(jax.grad(lambda x: sp.fresnel(x)[1]))(f32(0., 0.5, -1., 3., 7.25))
  return gs, gc


@program
def fresnel_complex_raises():
  return sp.fresnel(jnp.array([1j], jnp.complex64))


# --- spence ----------------------------------------------------------------------------------

@program
def spence_values_f32():
  x = f32(0., 1e-30, 0.1, 0.4, 0.5, 0.9, 1., 1.2, 1.5, 1.6, 2., 2.5, 10., 1e10, 1e30, inf, -1.,
          -0., nan)
  return sp.spence(x)


@program(x64=True)
def spence_values_f64():
  x = f64(0., 1e-300, 0.1, 0.4, 0.5, 0.9, 1., 1.2, 1.5, 1.6, 2., 2.5, 10., 1e10, 1e300, inf,
          -1., nan)
  return sp.spence(x)


@program
def spence_python_scalars_and_lists():
  return sp.spence(2.0), sp.spence([0.5, 3.0])


@program
def spence_grad():
  return jax.vmap(jax.grad(sp.spence))(f32(0., 1., 0.5, 0.4, 1.5, 2., 2.5, 10., 0.2))


@program
def spence_int_raises():
  return sp.spence(jnp.array([1, 2]))


@program
def spence_float16_raises():
  return sp.spence(jnp.array([0.5], jnp.float16))


# --- owens_t ------------------------------------------------------------------------------------

@program
def owens_t_values_f32():
  h = f32(0., 0., 0.5, 1., -1., 2., 0.3, 0.3, 1., 5., 10., 0.1, 3., inf, 1., nan, 1.)
  a = f32(0., 1., 0.5, 1., 0.5, -0.5, 2., 5., 1e3, 2., 0.5, 100., -3., 1., inf, 1., nan)
  return sp.owens_t(h, a)


@program(x64=True)
def owens_t_values_f64():
  h = f64(0., 0., 0.5, 1., -1., 2., 0.3, 0.3, 1., 5., 10., 0.1, 3., inf, 1.)
  a = f64(0., 1., 0.5, 1., 0.5, -0.5, 2., 5., 1e3, 2., 0.5, 100., -3., 1., inf)
  return sp.owens_t(h, a)


@program(x64=True)
def owens_t_float32_args_under_x64():
  return sp.owens_t(f32(0.5, 1.), f32(0.5, 3.)), sp.owens_t(1, 2)


@program
def owens_t_dtypes_and_broadcast():
  return (sp.owens_t(1, 2), sp.owens_t(jnp.array([0.5, 1.], jnp.float16), 0.5),
          sp.owens_t(f32(0.5, 1.), f32(0.25, 2.)[:, None]))


@program
def owens_t_grads():
  g = jax.vmap(jax.grad(sp.owens_t, argnums=(0, 1)))
  return g(f32(0.5, -1., 2., 0.), f32(0.5, 2., -0.3, 1.))


# --- hyp1f1 ------------------------------------------------------------------------------------

@program
def hyp1f1_values_f32():
  a = f32(1., 0.5, 2., -1.5, 1., 3., 0., 2., 1., 2., 0.5, 1., 1.5, -2.)
  b = f32(2., 1.5, 3., 2., 1., 0., 0., 2., 3., 5., 2., 2.5, 4., 3.)
  x = f32(0.5, -2., 10., 1., 3., 1., 0., 2., 150., 120., -50., 99., 0., 4.)
  return sp.hyp1f1(a, b, x)


@program(x64=True)
def hyp1f1_values_f64():
  a = f64(1., 0.5, 2., -1.5, 1., 3., 0., 2., 1., 2., 0.5, 1., 0.1, -3.)
  b = f64(2., 1.5, 3., 2., 1., 0., 0., 2., 3., 5., 2., 2.5, 0.2, 2.)
  x = f64(0.5, -2., 10., 1., 3., 1., 0., 2., 150., 120., -20., 30., 5., 7.)
  return sp.hyp1f1(a, b, x)


@program
def hyp1f1_dtypes_and_broadcast():
  return (sp.hyp1f1(1, 2, 1), sp.hyp1f1(1.0, 2.0, f32(0.5, 1.)),
          sp.hyp1f1(jnp.array([1., 2.], jnp.float16), 2.0, 0.5),
          sp.hyp1f1(f32(1., 2.)[:, None], 3.0, f32(0.5, 1., 2.)))


@program
def hyp1f1_grads():
  g = jax.vmap(jax.grad(sp.hyp1f1, argnums=(0, 1, 2)))
  return g(f32(1., 0.5, 2.), f32(2., 1.5, 3.), f32(0.5, -1., 2.))


@program(x64=True)
def hyp1f1_grads_f64():
  return jax.grad(sp.hyp1f1, argnums=(0, 1, 2))(1.5, 2.5, 0.75)


@program
def hyp1f1_jit_vmap():
  return (jax.jit(sp.hyp1f1)(f32(1., 2.), f32(2., 3.), f32(0.5, 200.)),
          jax.vmap(sp.hyp1f1, in_axes=(None, 0, 0))(1.0, f32(2., 3.), f32(0.5, 1.5)))


@program
def hyp1f1_complex_raises():
  return sp.hyp1f1(1.0, 2.0, jnp.array([1j], jnp.complex64))


# --- hyp2f1 ------------------------------------------------------------------------------------

@program
def hyp2f1_values_f32():
  a = f32(1., 0.5, 1., 2., 1., 0., 1., 1., -2., 1., 1., 2., 0.5, 1., 1., 1.5, 3., -3., 0.3)
  b = f32(2., 0.5, 1., 3., 2., 1., 2., 2., 1., 1.5, 2., 1., 2.5, 1., 2.5, 2., 1., 1., 0.7)
  c = f32(3., 1.5, 2., 1., 0., 1., -1., 3., 3., 1.5, 2., 4., 1., 3., 4.7, 4., 2., 2., 1.2)
  x = f32(0.5, 0.3, -0.5, 0.5, 0.5, 0.5, 0.5, 1., 0.7, 0.5, 0.5, 0.95, 0.2, 0.99, 0.95, 1.,
          0., 2., 0.92)
  return sp.hyp2f1(a, b, c, x)


@program(x64=True)
def hyp2f1_values_f64():
  a = f64(1., 0.5, 1., 2., 1., 1., -2., 1., 2., 0.5, 1., 1., 1.5, -3., 0.3, 1., 2.)
  b = f64(2., 0.5, 1., 3., 2., 2., 1., 1.5, 1., 2.5, 1., 2.5, 2., 1., 0.7, 1., 2.)
  c = f64(3., 1.5, 2., 1., 0., 3., 3., 1.5, 4., 1., 3., 4.7, 4., 2., 1.2, 4., 2.5)
  x = f64(0.5, 0.3, -0.5, 0.5, 0.5, 1., 0.7, 0.5, 0.95, 0.2, 0.99, 0.95, 1., 2., 0.92, 0.93,
          0.91)
  return sp.hyp2f1(a, b, c, x)


@program
def hyp2f1_dtypes_and_broadcast():
  return (sp.hyp2f1(1, 2, 3, 0), sp.hyp2f1(1.0, 2.0, 3.0, f32(0.1, -0.9)),
          sp.hyp2f1(jnp.array([1., 2.], jnp.float16), 2.0, 3.0, 0.5))


@program
def hyp2f1_grads():
  g = jax.vmap(jax.grad(sp.hyp2f1, argnums=(0, 1, 2, 3)))
  return g(f32(1., 0.5, 2.), f32(2., 1.5, 0.5), f32(3., 2.5, 3.5), f32(0.5, -0.3, 0.2))


@program(x64=True)
def hyp2f1_grads_f64():
  return jax.grad(sp.hyp2f1, argnums=(0, 1, 2, 3))(0.5, 1.5, 2.5, 0.3)


@program
def hyp2f1_complex_raises():
  return sp.hyp2f1(1.0, 2.0, 3.0, jnp.array([0.5j], jnp.complex64))


# --- sph_harm_y --------------------------------------------------------------------------------

@program
def sph_harm_y_orders_f32():
  n = jnp.array([0, 1, 1, 1, 2, 2, 2, 3, 3, 4])
  m = jnp.array([0, -1, 0, 1, -2, 1, 2, -3, 2, 4])
  theta = f32(0.3, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.7, 1.1, 1.3)
  phi = f32(0.1, 0.2, 0.3, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.5)
  return sp.sph_harm_y(n, m, theta, phi, n_max=4)


@program(x64=True)
def sph_harm_y_f64_and_f32_under_x64():
  n = jnp.array([0, 1, 2, 3, 5])
  m = jnp.array([0, -1, 2, -3, 4])
  theta = f64(0.3, 0.5, 1.0, 1.5, 2.0)
  phi = f64(0.1, 0.2, 0.3, 1.0, 2.0)
  return (sp.sph_harm_y(n, m, theta, phi, n_max=5),
          sp.sph_harm_y(n, m, theta.astype(jnp.float32), phi.astype(jnp.float32), n_max=5))


@program
def sph_harm_y_edges():
  n = jnp.array([2, 2, 1, 3])
  m = jnp.array([1, 0, 2, 1])
  return (sp.sph_harm_y(n, m, f32(0., np.pi, 0.5, 0.5), f32(0., 0., 0.5, 0.5), n_max=3),
          sp.sph_harm_y(jnp.array([3]), jnp.array([1]), f32(0.5), f32(0.5), n_max=2),
          sp.sph_harm_y(jnp.array([1]), jnp.array([1]), f32(0.5), f32(0.5)),
          sp.sph_harm_y(jnp.array([0]), jnp.array([0]), f32(1.), f32(1.), n_max=0))


@program
def sph_harm_y_scalar_theta_and_broadcast():
  return (sp.sph_harm_y(jnp.array([1, 2]), jnp.array([1, 0]), 0.5, f32(0.5, 0.3), n_max=2),
          sp.sph_harm_y(jnp.array([1]), jnp.array([1]), f32(0.5, 0.7, 0.9), f32(0.5), n_max=2),
          sp.sph_harm_y(jnp.array([1, 2]), jnp.array([1, 1]), jnp.array([1, 2]),
                        jnp.array([1, 2]), n_max=2))


@program
def sph_harm_y_grads():
  def f(theta, phi):
    y = sp.sph_harm_y(jnp.array([2, 3]), jnp.array([1, -2]), theta, phi, n_max=3)
    return jnp.sum(jnp.real(y) + 2 * jnp.imag(y))
  return jax.grad(f, argnums=(0, 1))(f32(0.4, 1.2), f32(0.3, 2.0))


@program
def sph_harm_y_diff_n_raises():
  return sp.sph_harm_y(jnp.array([1]), jnp.array([1]), f32(0.5), f32(0.5), diff_n=1)


@program(phrases=("Abstract tracer value encountered where concrete value is expected",
                  "n_max"))
def sph_harm_y_traced_n_without_n_max_raises():
  f = lambda n: sp.sph_harm_y(n, n, f32(0.5), f32(0.5))
  return jax.jit(f)(jnp.array([1]))


@program
def sph_harm_y_scalar_n_raises():
  return sp.sph_harm_y(1, 1, 0.5, 0.5)


# --- dtypes and weak types across the family --------------------------------------------------

@program(x64=True)
def integer_inputs_under_x64():
  i = jnp.array([1, 2], jnp.int32)
  return (sp.wofz(i), sp.erfcx(i), sp.expn(i, i), sp.hyp1f1(i, i, i), sp.owens_t(i, i),
          sp.wofz(jnp.array([1, 2])), sp.dawsn(jnp.array([1, 2])))


@program
def grads_of_python_scalars_weak_types():
  g = lambda f, n=1: jax.grad(f, argnums=tuple(range(n)))  # noqa: E731
  return (g(sp.erfcx)(0.5), g(sp.dawsn)(0.5), g(sp.exp1)(0.5), g(sp.expi)(0.5),
          g(sp.expn, 2)(2.0, 0.5), g(lambda x: sp.sici(x)[0])(0.5),
          g(lambda x: sp.fresnel(x)[1])(0.5), g(sp.spence)(0.5), g(sp.owens_t, 2)(0.5, 0.7),
          g(lambda x: jnp.real(sp.wofz(x)))(0.5))
