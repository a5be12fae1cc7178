"""Edge cases of jax.scipy that no other module reaches: special functions at 0, negative
integers (poles), +-inf, nan and huge arguments in float32 and float64, their gradients where JAX
defines them and the errors where it raises; the log-sum-exp family with ``b=``, ``return_sign=``,
``axis`` and ``where=``; stats distributions at and beyond the ends of their support, with
broadcast loc/scale arrays and integer/bool arguments (dtypes and weak types); linalg
factorizations and special matrices with their options; and the signal, fft, integrate,
ndimage and interpolate submodules.

Every program runs eagerly and is small; each targets one function or one theme so a divergence
names its cause. Submodules that a framework may lack are looked up inside the programs, so a
missing one shows as that program's error."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
sp = submodule("scipy.special")
st = submodule("scipy.stats")
la = submodule("scipy.linalg")

inf, nan = np.inf, np.nan


def f32(*v):
  return jnp.array(v, jnp.float32)


def f64(*v):
  return jnp.array(v, jnp.float64)


# --- special: gamma family ----------------------------------------------------------------------

@program
def gammaln_edges_f32():
  x = f32(0., -0., -1., -2.5, -3., inf, -inf, nan, 1e30, 1., 2., 0.5, 1e-30)
  return sp.gammaln(x)


@program(x64=True)
def gammaln_edges_f64():
  x = f64(0., -0., -1., -2.5, -3., inf, -inf, nan, 1e300, 1., 2., 0.5, 1e-300)
  return sp.gammaln(x)


@program
def gamma_and_gammasgn_edges():
  x = f32(0., -0., -1., -2.5, -1.5, inf, -inf, nan, 35., 0.5, 4.)
  return sp.gamma(x), sp.gammasgn(x), sp.loggamma(x)


@program
def digamma_edges_f32():
  x = f32(0., -0., -1., -2., -2.5, inf, -inf, nan, 1e-30, 1e30, 1.)
  return sp.digamma(x)


@program(x64=True)
def digamma_edges_f64():
  x = f64(0., -1., -2.5, inf, -inf, 1e-300, 1e300, 1.)
  return sp.digamma(x)


@program
def polygamma_orders_and_poles():
  n = jnp.array([0, 1, 2, 3, 1, 1, 2], jnp.int32)
  x = f32(2., 2., 2., 0.5, 0., -1., inf)
  return sp.polygamma(n, x), sp.polygamma(1, f32(1., 10., 1e10))


@program
def polygamma_float_order_raises():
  return sp.polygamma(1.0, 2.0)


@program
def polygamma_negative_order():
  return sp.polygamma(jnp.array([-1, 0]), f32(2., 2.))


@program
def zeta_edges():
  x = f32(2., 1., 0.5, 4., 2., 2., inf, 3., nan)
  q = f32(1., 1., 1., 2., 0., -1., 2., inf, 1.)
  return sp.zeta(x, q)


@program
def zeta_without_q():
  return sp.zeta(f32(2., 4.))


@program
def betaln_and_beta_edges():
  a = f32(1., 0., -0.5, 1e10, 2., inf, 0.5)
  b = f32(1., 1., 2., 1e10, 3., 1., 0.5)
  return sp.betaln(a, b), sp.beta(a, b)


@program
def betainc_edges():
  a = f32(1., 2., 0.5, 0., 1., -1., 2., 2.)
  b = f32(1., 3., 0.5, 1., 0., 1., 3., 3.)
  x = f32(0.5, 0., 1., 0.5, 0.5, 0.5, -0.1, 1.1)
  return sp.betainc(a, b, x)


@program
def gammainc_edges():
  a = f32(1., 0., -1., 1., 1., 1., nan, 2., 100., 1e-3)
  x = f32(0., 1., 1., inf, -1., nan, 1., 0.5, 100., 1e-3)
  return sp.gammainc(a, x), sp.gammaincc(a, x)


@program(x64=True)
def gammainc_edges_f64():
  a = f64(1., 0., 1., 1., 0.5, 1000., 1e-10)
  x = f64(0., 1., inf, -1., 1e-300, 1000., 1.)
  return sp.gammainc(a, x), sp.gammaincc(a, x)


@program
def factorial_edges():
  return (sp.factorial(f32(-1., 0., 0.5, 5., 34., 35.)),
          sp.factorial(jnp.array([0, 3, -2], jnp.int32)), sp.factorial(3))


@program
def factorial_exact_raises():
  return sp.factorial(jnp.array([3]), exact=True)


@program
def comb_edges():
  N = f32(5., 5., 5., -1., 0., 10.5, 3.)
  k = f32(2., 6., -1., 1., 0., 2., 3.)
  return sp.comb(N, k), sp.comb(N, k, repetition=True), sp.comb(5, 2)


@program
def poch_edges():
  z = f32(2.5, 0., -1., 1., -2.5, 3.)
  m = f32(3., 0., 2., 0., 1., -1.)
  return sp.poch(z, m)


@program
def multigammaln_edges():
  return (sp.multigammaln(f32(3.5, 10.), 3), sp.multigammaln(2.0, 1),
          sp.multigammaln(f32(1.0), 3))


@program
def multigammaln_nonconcrete_d_raises():
  return jax.jit(lambda d: sp.multigammaln(3.0, d))(2)


# --- special: error function and normal ---------------------------------------------------------

@program
def erf_erfc_edges():
  x = f32(-inf, inf, nan, 0., -0., 10., -10., 1e-20, 4.)
  return sp.erf(x), sp.erfc(x)


@program
def erfinv_edges():
  x = f32(-1., 1., 1.5, -1.5, 0., -0., nan, 0.999999, 1e-10)
  return sp.erfinv(x)


@program(x64=True)
def erfinv_edges_f64():
  return sp.erfinv(f64(-1., 1., 0.5, 1 - 1e-15, -0.999999999, 1e-300))


@program
def ndtr_ndtri_edges():
  x = f32(-inf, inf, nan, 0., -40., 40., -6., 6.)
  p = f32(0., 1., -0.1, 1.1, nan, 0.5, 1e-30, 1 - 1e-7, 1e-40)
  return sp.ndtr(x), sp.ndtri(p)


@program(x64=True)
def ndtri_extremes_f64():
  return sp.ndtri(f64(1e-300, 1e-100, 1e-20, 0.5, 1 - 1e-16, 5e-324))


@program
def log_ndtr_tails_f32():
  x = f32(-inf, -100., -50., -20., -10.5, -10., -9.5, -5., 0., 5., 5.5, 10., 40., inf, nan)
  return sp.log_ndtr(x)


@program(x64=True)
def log_ndtr_tails_f64():
  x = f64(-inf, -1e5, -50., -20.5, -20., -19.5, -5., 0., 7.5, 8.5, 40., inf)
  return sp.log_ndtr(x)


@program
def log_ndtr_series_orders():
  x = f32(-30., -12.)
  return sp.log_ndtr(x, series_order=0), sp.log_ndtr(x, series_order=30)


@program
def log_ndtr_series_order_too_big_raises():
  return sp.log_ndtr(f32(-30.), series_order=31)


@program
def log_ndtr_series_order_negative_raises():
  return sp.log_ndtr(f32(-30.), series_order=-1)


# --- special: x log y family, entropies, logit ---------------------------------------------------

@program
def xlogy_edges():
  x = f32(0., 0., 0., 0., 1., -1., 2., nan, inf)
  y = f32(0., nan, inf, -1., 0., 0., -1., 1., 0.)
  return sp.xlogy(x, y)


@program
def xlog1py_edges():
  x = f32(0., 0., 0., 1., -1., 2., nan)
  y = f32(-1., nan, -2., -1., -1., -2., 0.)
  return sp.xlog1py(x, y)


@program
def xlogy_python_ints_weak():
  return sp.xlogy(0, 0), sp.xlogy(2, 3), sp.xlog1py(1, 0), sp.xlogy(jnp.int32(2), 3.0)


@program
def entr_edges():
  return sp.entr(f32(0., -0., -1., 0.5, 1., inf, nan, -inf, 1e-40))


@program
def rel_entr_and_kl_div_edges():
  p = f32(0., 0., 0., 1., -1., 1., 1., inf, nan, 1.)
  q = f32(0., 1., -1., 0., 1., -1., inf, 1., 1., nan)
  return sp.rel_entr(p, q), sp.kl_div(p, q)


@program
def logit_expit_edges():
  return (sp.logit(f32(0., 1., -0.5, 2., nan, 0.5, 1e-30)),
          sp.expit(f32(-inf, inf, -100., 100., nan, 0., -1e5)))


@program
def boxcox_edges():
  x = f32(0., -1., 1., 2., 2., inf)
  lm = f32(0., 0.5, 0., 1e-20, -2., 1.)
  return sp.boxcox(x, lm), sp.boxcox1p(x - 1, lm)


# --- special: logsumexp ---------------------------------------------------------------------------

@program
def logsumexp_b_negative_and_zero():
  a = f32(1., 2., 3.)
  return (sp.logsumexp(a, b=f32(1., -1., 0.)), sp.logsumexp(a, b=f32(0., 0., 0.)),
          sp.logsumexp(a, b=f32(-1., -1., -1.)), sp.logsumexp(a, b=2.0))


@program
def logsumexp_return_sign():
  a = f32(1., 2., 3.)
  return (sp.logsumexp(a, b=f32(1., -1., 0.), return_sign=True),
          sp.logsumexp(a, b=f32(0., 0., 0.), return_sign=True),
          sp.logsumexp(a, b=f32(-1., -1., -1.), return_sign=True),
          sp.logsumexp(a, return_sign=True))


@program
def logsumexp_infinities():
  return (sp.logsumexp(f32(-inf, -inf)), sp.logsumexp(f32(inf, 0.)), sp.logsumexp(f32(inf, inf)),
          sp.logsumexp(f32(inf, -inf)), sp.logsumexp(f32(nan, 0.)), sp.logsumexp(f32()),
          sp.logsumexp(f32(1e30, 1e30)))


@program
def logsumexp_axis_keepdims():
  a = jnp.arange(24.0).reshape(2, 3, 4) / 4
  return (sp.logsumexp(a, axis=(0, 2)), sp.logsumexp(a, axis=-1, keepdims=True),
          sp.logsumexp(a, axis=None, keepdims=True), sp.logsumexp(a, axis=(0, 2), keepdims=True))


@program
def logsumexp_where_mask():
  a = jnp.arange(6.0).reshape(2, 3)
  w = jnp.array([[True, False, True], [False, False, False]])
  return (sp.logsumexp(a, axis=1, where=w), sp.logsumexp(a, where=w),
          sp.logsumexp(a, axis=0, where=w, b=jnp.full((2, 3), 2.0)))


@program
def logsumexp_b_broadcast_and_int_input():
  a = jnp.array([[1, 2], [3, 4]], jnp.int32)
  return (sp.logsumexp(a), sp.logsumexp(a, axis=0, b=f32(1., 0.5)),
          sp.logsumexp(jnp.array([True, False])))


@program
def logsumexp_complex():
  a = jnp.array([1 + 1j, 2 - 1j], jnp.complex64)
  return sp.logsumexp(a), sp.logsumexp(a, b=f32(1., -1.))


@program(x64=True)
def logsumexp_f64_int_and_weak():
  return (sp.logsumexp(jnp.array([1, 2, 3])), sp.logsumexp(jnp.asarray(2.0)),
          sp.logsumexp(f64(-745., -745.)), sp.logsumexp(f64(1., 1.), b=f64(1., -1.)))


@program
def softmax_special_axis_none():
  a = jnp.arange(6.0).reshape(2, 3)
  return sp.softmax(a), sp.log_softmax(a), sp.softmax(a, axis=0), sp.softmax(f32(-inf, 0., inf))


# --- special: Bessel and functions ember may lack -------------------------------------------------

@program
def bessel_i_edges_f32():
  x = f32(0., -0., -1., 1., 100., -100., inf, -inf, nan, 1000.)
  return sp.i0(x), sp.i0e(x), sp.i1(x), sp.i1e(x)


@program(x64=True)
def bessel_i_edges_f64():
  x = f64(0., -1., 1e-300, 700., -700., 800., inf)
  return sp.i0(x), sp.i0e(x), sp.i1(x), sp.i1e(x)


@program
def spence_values():
  return sp.spence(f32(0., 1., 2., 0.5, -1., inf, nan))


@program
def exp1_and_expi_values():
  x = f32(0., 1., -1., 50., 2.)
  return sp.exp1(x), sp.expi(x), sp.exp1(f32(inf)), sp.expi(f32(-inf))


@program
def expn_values():
  return sp.expn(jnp.array([0, 1, 2, 5, -1]), f32(1., 1., 0., 2., 1.))


@program
def sph_harm_y_values():
  n = jnp.array([0, 1, 2])
  m = jnp.array([0, 1, -1])
  theta = f32(0.3, 0.5, 1.0)
  phi = f32(0.1, 0.2, 0.3)
  return sp.sph_harm_y(n, m, theta, phi, n_max=2)


@program
def erfcx_and_owens_t_values():
  return sp.erfcx(f32(-1., 0., 1., 30.)), sp.owens_t(f32(0.5, 1.), f32(1., 2.))


# --- special: dtypes of non-float inputs -------------------------------------------------------

@program
def special_int_and_bool_inputs():
  i = jnp.array([1, 2, 3], jnp.int32)
  return (sp.gammaln(i), sp.erf(jnp.array([True, False])), sp.expit(jnp.array([1], jnp.int8)),
          sp.digamma(jnp.array([1], jnp.uint8)), sp.i0e(2), sp.entr(1),
          sp.logit(jnp.array([0], jnp.int16)))


@program
def special_half_precision_inputs():
  h = jnp.array([0.5, 2.0, 10.0], jnp.float16)
  b = jnp.array([0.5, 2.0, 10.0], jnp.bfloat16)
  return (sp.gammaln(h), sp.erf(b), sp.logsumexp(b), sp.digamma(h), sp.expit(b), sp.xlogy(h, b))


@program
def ndtr_int_input_raises():
  return sp.ndtr(jnp.array([0, 1], jnp.int32))


@program
def ndtri_float16_raises():
  return sp.ndtri(jnp.array([0.25], jnp.float16))


@program
def ndtri_bfloat16_raises():
  return sp.ndtri(jnp.array([0.25], jnp.bfloat16))


@program
def log_ndtr_bfloat16_raises():
  return sp.log_ndtr(jnp.array([-3.0], jnp.bfloat16))


@program(x64=True)
def special_x64_int_inputs_promote_to_f64():
  i = jnp.array([1, 2], jnp.int64)
  return (sp.gammaln(i), sp.erf(i), sp.xlogy(i, i), sp.i1(jnp.array([1], jnp.int32)),
          sp.gammainc(i, 1.0), sp.betaln(i, jnp.array([1.0], jnp.float32)))


# --- special: gradients ------------------------------------------------------------------------

@program
def grad_gammaln_digamma_edges():
  g = jax.vmap(jax.grad(sp.gammaln))
  h = jax.vmap(jax.grad(sp.digamma))
  x = f32(0., -1., 1., 0.5, -2.5, 1e10)
  return g(x), h(x)


@program
def grad_xlogy_xlog1py_at_zero():
  gx = jax.grad(sp.xlogy, argnums=(0, 1))
  g1 = jax.grad(sp.xlog1py, argnums=(0, 1))
  return (gx(0., 0.), gx(0., 1.), gx(1., 0.), gx(2., 3.), g1(0., -1.), g1(0., 0.), g1(1., -1.))


@program
def grad_entr_rel_entr_kl_div():
  ge = jax.vmap(jax.grad(sp.entr))(f32(0., 0.5, 1., -1.))
  gr = jax.vmap(jax.grad(sp.rel_entr, argnums=(0, 1)))(f32(0., 1., 1.), f32(1., 0., 2.))
  gk = jax.vmap(jax.grad(sp.kl_div, argnums=(0, 1)))(f32(0., 1., 1.), f32(1., 0., 2.))
  return ge, gr, gk


@program
def grad_logsumexp_with_infs_and_b():
  g = jax.grad(sp.logsumexp)
  return (g(f32(-inf, 0.)), g(f32(-inf, -inf)), g(f32(1., 2.)),
          jax.grad(lambda a: sp.logsumexp(a, b=f32(0., 1., 2.)))(f32(1., 2., 3.)),
          jax.grad(lambda b: sp.logsumexp(f32(1., 2.), b=b))(f32(1., 0.)),
          jax.grad(lambda a: sp.logsumexp(a, return_sign=True)[0])(f32(1., 2.)))


@program
def grad_logsumexp_where():
  w = jnp.array([True, False, True])
  return jax.grad(lambda a: sp.logsumexp(a, where=w))(f32(1., 100., 2.))


@program
def grad_log_ndtr_and_ndtri_tails():
  g = jax.vmap(jax.grad(sp.log_ndtr))
  gi = jax.vmap(jax.grad(sp.ndtri))
  return g(f32(-100., -20., -10., 0., 10., 40.)), gi(f32(1e-10, 0.5, 0.9, 1e-30))


@program
def grad_igamma_wrt_a_and_x():
  ga = jax.vmap(jax.grad(sp.gammainc, argnums=(0, 1)))
  gc = jax.vmap(jax.grad(sp.gammaincc, argnums=(0, 1)))
  a = f32(1., 2., 0.5, 10.)
  x = f32(1., 0.5, 2., 10.)
  return ga(a, x), gc(a, x)


@program
def grad_betainc_wrt_x():
  g = jax.vmap(jax.grad(sp.betainc, argnums=2))
  return g(f32(1., 2., 0.5), f32(1., 3., 0.5), f32(0.5, 0.2, 0.9))


@program
def grad_betainc_wrt_a_raises():
  return jax.grad(sp.betainc, argnums=0)(2.0, 3.0, 0.5)


@program
def grad_zeta_wrt_q_and_x():
  gq = jax.grad(sp.zeta, argnums=1)(3.0, 2.0)
  return gq, jax.grad(sp.zeta, argnums=0)(3.0, 2.0)


@program
def grad_polygamma_wrt_x():
  return jax.vmap(jax.grad(lambda x: sp.polygamma(1, x)))(f32(0.5, 1., 3.))


@program
def grad_erf_erfinv_edges():
  return (jax.vmap(jax.grad(sp.erfinv))(f32(0., 0.5, 0.999, 1., -1.)),
          jax.vmap(jax.grad(sp.erf))(f32(0., 5., inf)),
          jax.vmap(jax.grad(sp.erfc))(f32(0., 5., -inf)))


@program
def grad_logit_expit_edges():
  return (jax.vmap(jax.grad(sp.logit))(f32(0., 0.5, 1.)),
          jax.vmap(jax.grad(sp.expit))(f32(-100., 0., 100., inf)))


@program
def grad_bessel_i_at_zero():
  return tuple(jax.vmap(jax.grad(f))(f32(0., 1., -3.)) for f in (sp.i0, sp.i0e, sp.i1, sp.i1e))


@program
def grad_factorial_poch_comb_betaln():
  return (jax.grad(sp.factorial)(3.0), jax.grad(sp.poch, argnums=(0, 1))(2.5, 3.0),
          jax.grad(sp.comb, argnums=(0, 1))(5.0, 2.0), jax.grad(sp.betaln, argnums=(0, 1))(2.0, 3.0),
          jax.grad(lambda a: sp.multigammaln(a, 3))(3.5))


@program(x64=True)
def grad_special_f64():
  return (jax.grad(sp.gammaln)(f64(0.5)[0]), jax.grad(sp.log_ndtr)(f64(-40.)[0]),
          jax.grad(sp.gammainc, argnums=0)(f64(3.)[0], f64(2.)[0]),
          jax.grad(sp.xlogy, argnums=1)(f64(0.)[0], f64(0.)[0]))


# --- stats: normal and friends ----------------------------------------------------------------

@program
def norm_edges():
  x = f32(-inf, inf, nan, 0., -40., 40.)
  return (st.norm.logpdf(x), st.norm.pdf(x), st.norm.cdf(x), st.norm.logcdf(x), st.norm.sf(x),
          st.norm.logsf(x))


@program
def norm_zero_and_negative_scale():
  x = f32(0., 1., -1.)
  return (st.norm.logpdf(x, 0., 0.), st.norm.cdf(x, 0., 0.), st.norm.logpdf(x, 0., -1.),
          st.norm.cdf(x, 0., -1.), st.norm.ppf(f32(0.25), 0., -1.))


@program
def norm_ppf_isf_edges():
  q = f32(0., 1., -0.5, 1.5, nan, 0.5, 1e-30)
  return st.norm.ppf(q, 1., 2.), st.norm.isf(q, 1., 2.)


@program
def norm_loc_scale_broadcast():
  x = jnp.arange(4.0)
  loc = jnp.array([[0.], [1.], [2.]])
  scale = jnp.array([1., 2., 0.5, 3.])
  return st.norm.logpdf(x, loc, scale), st.norm.cdf(x, loc, scale), st.norm.ppf(0.3, loc, scale)


@program
def norm_int_and_weak_arguments():
  return (st.norm.logpdf(1), st.norm.cdf(jnp.array([0, 1], jnp.int32), 0, 1),
          st.norm.pdf(0.0, jnp.int8(1)), st.norm.ppf(0.5))


@program
def norm_cdf_float16_raises():
  return st.norm.cdf(jnp.array([1.0], jnp.float16))


@program
def norm_grad_tails():
  g = jax.vmap(jax.grad(st.norm.logcdf))
  gs = jax.vmap(jax.grad(st.norm.logsf))
  gp = jax.grad(st.norm.logpdf, argnums=(0, 1, 2))
  return g(f32(-60., 0., 60.)), gs(f32(-60., 0., 60.)), gp(1.0, 0.5, 2.0)


@program
def t_edges():
  x = f32(0., 1., -inf, inf, nan, 1.)
  df = f32(1., inf, 3., 3., 3., -1.)
  return st.t.logpdf(x, df), st.t.pdf(x, df, 1., 2.), st.t.logpdf(0., 0.)


@program
def cauchy_edges():
  x = f32(-inf, inf, 0., 1e30, nan)
  return st.cauchy.logpdf(x), st.cauchy.cdf(x, 1., 2.), st.cauchy.pdf(x, 0., 0.)


@program
def cauchy_sf_ppf_logcdf():
  x = f32(-inf, 0., 1., 1e10)
  q = f32(0., 0.25, 0.5, 1.)
  return (st.cauchy.sf(x), st.cauchy.logcdf(x), st.cauchy.logsf(x), st.cauchy.ppf(q),
          st.cauchy.isf(q))


@program
def laplace_edges():
  x = f32(-inf, inf, 0., 2., nan)
  return st.laplace.logpdf(x, 1., 2.), st.laplace.cdf(x, 1., 2.), st.laplace.pdf(x, 0., -1.)


@program
def logistic_edges():
  x = f32(-inf, inf, 0., -200., 200., nan)
  q = f32(0., 1., 0.5, -0.1, 1.1, 0.25)
  return (st.logistic.logpdf(x), st.logistic.cdf(x, 1., 2.), st.logistic.sf(x),
          st.logistic.ppf(q, 1., 2.), st.logistic.isf(q))


@program
def uniform_edges():
  x = f32(-0.5, 0., 0.5, 1., 2., nan)
  q = f32(-0.1, 0., 0.5, 1., 1.1, nan)
  return (st.uniform.logpdf(x), st.uniform.pdf(x, 0., 0.), st.uniform.cdf(x, 1., -1.),
          st.uniform.ppf(q, 2., 3.), st.uniform.pdf(x, jnp.array([[0.], [0.5]]), 1.))


@program
def expon_edges():
  x = f32(-1., 0., -0., 1., inf, nan)
  q = f32(-0.1, 0., 0.5, 1., 1.1)
  return (st.expon.logpdf(x), st.expon.pdf(x, 0.5, 2.), st.expon.cdf(x), st.expon.sf(x),
          st.expon.ppf(q, 1., 2.))


@program
def expon_logcdf_logsf():
  x = f32(-1., 0., 1., 100.)
  return st.expon.logcdf(x), st.expon.logsf(x)


@program
def gamma_dist_edges():
  x = f32(-1., 0., 0., 0., 1., inf)
  a = f32(2., 1., 0.5, 2., 1e-3, 2.)
  return (st.gamma.logpdf(x, a), st.gamma.pdf(x, a, 0., 2.), st.gamma.cdf(x, a), st.gamma.sf(x, a),
          st.gamma.logpdf(1., -1.))


@program
def gamma_dist_logcdf_logsf():
  x = f32(-1., 0., 1., 50.)
  return st.gamma.logcdf(x, 2.), st.gamma.logsf(x, 2.)


@program
def chi2_edges():
  x = f32(-1., 0., 0., 1., inf)
  df = f32(2., 2., 1., 3., 3.)
  return st.chi2.logpdf(x, df), st.chi2.pdf(x, df, 1., 2.), st.chi2.cdf(x, df)


@program
def chi2_sf_logcdf_logsf():
  x = f32(-1., 0., 1., 50.)
  return st.chi2.sf(x, 3.), st.chi2.logcdf(x, 3.), st.chi2.logsf(x, 3.)


@program
def beta_dist_edges():
  x = f32(-0.1, 0., 0., 0., 0.5, 1., 1., 1.1)
  a = f32(2., 1., 0.5, 2., 2., 1., 2., 2.)
  b = f32(2., 1., 2., 2., 2., 0.5, 1., 2.)
  return (st.beta.logpdf(x, a, b), st.beta.pdf(x, a, b), st.beta.cdf(x, a, b),
          st.beta.logpdf(0.5, 2., 2., 0., jnp.array([1., 2.])))


@program
def beta_dist_sf_logcdf_logsf():
  x = f32(-0.1, 0., 0.5, 1., 1.1)
  return st.beta.sf(x, 2., 3.), st.beta.logcdf(x, 2., 3.), st.beta.logsf(x, 2., 3.)


@program
def multivariate_normal_shapes_and_scalars():
  x = jnp.array([[0., 0.], [1., -1.], [2., 0.5]])
  mean = f32(0., 1.)
  cov = jnp.array([[2., 0.5], [0.5, 1.]])
  return (st.multivariate_normal.logpdf(x, mean, cov), st.multivariate_normal.logpdf(x, mean, 2.0),
          st.multivariate_normal.pdf(x[0], mean, cov), st.multivariate_normal.logpdf(1.0, 0.0, 2.0))


@program
def multivariate_normal_batched_cov():
  x = jnp.zeros((2, 3))
  cov = jnp.stack([jnp.eye(3), 2 * jnp.eye(3)])
  return st.multivariate_normal.logpdf(x, jnp.zeros(3), cov)


@program
def multivariate_normal_singular_cov():
  cov = jnp.array([[1., 1.], [1., 1.]])
  return st.multivariate_normal.logpdf(f32(0., 0.), f32(0., 0.), cov)


@program
def multivariate_normal_allow_singular_raises():
  return st.multivariate_normal.logpdf(f32(0., 0.), f32(0., 0.), jnp.eye(2), allow_singular=True)


@program
def multivariate_normal_bad_shapes_raise():
  return st.multivariate_normal.logpdf(f32(0., 0.), f32(0., 0.), jnp.eye(3))


# --- stats: discrete distributions -------------------------------------------------------------

@program
def poisson_edges():
  k = f32(-1., 0., 0., 0.5, 3., 3., inf)
  mu = f32(2., 0., 2., 2., 0., -1., 2.)
  return st.poisson.logpmf(k, mu), st.poisson.pmf(k, mu), st.poisson.cdf(k, mu)


@program
def poisson_int_args_and_loc():
  k = jnp.array([0, 1, 2, 3], jnp.int32)
  return (st.poisson.logpmf(k, 2), st.poisson.pmf(k, 2.0, loc=1), st.poisson.cdf(k, 2, 1),
          st.poisson.pmf(2, 3))


@program
def poisson_entropy():
  return st.poisson.entropy(f32(0.5, 1., 10., 100.))


@program
def bernoulli_edges():
  k = f32(-1., 0., 1., 2., 0.5, 0., 1.)
  p = f32(0.3, 0.3, 0.3, 0.3, 0.3, 0., 1.)
  return (st.bernoulli.logpmf(k, p), st.bernoulli.pmf(k, p), st.bernoulli.cdf(k, p),
          st.bernoulli.logpmf(f32(0., 1.), f32(1., 0.)))


@program
def bernoulli_bool_and_int_args():
  k = jnp.array([True, False])
  return (st.bernoulli.pmf(k, 0.3), st.bernoulli.logpmf(jnp.array([0, 1], jnp.int8), 0.25),
          st.bernoulli.pmf(1, 0.5), st.bernoulli.cdf(jnp.array([0, 1]), 0.3))


@program
def bernoulli_ppf():
  return st.bernoulli.ppf(f32(0., 0.3, 0.7, 1., 1.5), 0.3)


@program
def binom_pmf_edges():
  k = f32(0., 3., 5., 6., -1., 2.5)
  return st.binom.logpmf(k, 5., 0.4), st.binom.pmf(k, 5, jnp.array([[0.], [1.]]))


@program
def geom_pmf_edges():
  return st.geom.logpmf(f32(0., 1., 2., 3.5), 0.3), st.geom.pmf(f32(1., 2.), f32(0., 1.))


@program
def nbinom_pmf_edges():
  return st.nbinom.logpmf(f32(0., 1., 5., -1.), 3., 0.4), st.nbinom.pmf(2, 3, 0.5)


@program
def betabinom_pmf_edges():
  return st.betabinom.logpmf(f32(0., 2., 5., 6.), 5., 2., 3.), st.betabinom.pmf(2, 5, 1., 1.)


@program
def multinomial_pmf():
  x = jnp.array([1, 2, 0])
  p = f32(0.2, 0.5, 0.3)
  return (st.multinomial.logpmf(x, 3, p), st.multinomial.pmf(x, 3, p),
          st.multinomial.logpmf(x, 4, p))


@program
def dirichlet_pdf():
  return (st.dirichlet.logpdf(f32(0.2, 0.3, 0.5), f32(1., 2., 3.)),
          st.dirichlet.pdf(f32(0.2, 0.8), f32(0.5, 0.5)))


# --- stats: distributions ember may lack ---------------------------------------------------------

@program
def truncnorm_functions():
  x = f32(-2., -1., 0., 1., 2.)
  return (st.truncnorm.logpdf(x, -1., 1.), st.truncnorm.cdf(x, -1., 1.),
          st.truncnorm.sf(x, -1., 1.), st.truncnorm.logcdf(x, 0., inf))


@program
def vonmises_pdf():
  return st.vonmises.logpdf(f32(0., np.pi, 4.), 2.), st.vonmises.pdf(0.5, f32(0., 1e-3, 50.))


@program
def pareto_functions():
  x = f32(0.5, 1., 2., inf)
  return st.pareto.logpdf(x, 3.), st.pareto.cdf(x, 3.), st.pareto.sf(x, 3.), st.pareto.ppf(
      f32(0., 0.5, 1.), 3.)


@program
def gennorm_functions():
  x = f32(-1., 0., 2.)
  return st.gennorm.logpdf(x, 2.), st.gennorm.cdf(x, 1.), st.gennorm.pdf(x, 8.)


@program
def wrapcauchy_pdf():
  return st.wrapcauchy.logpdf(f32(0., 1., 2 * np.pi), 0.5), st.wrapcauchy.pdf(1.0, f32(0.1, 0.9))


@program
def stats_grads_of_logpdfs():
  return (jax.grad(st.gamma.logpdf, argnums=(0, 1))(2.0, 3.0),
          jax.grad(st.beta.logpdf, argnums=(0, 1, 2))(0.3, 2.0, 3.0),
          jax.grad(st.t.logpdf, argnums=(0, 1))(1.0, 4.0),
          jax.grad(st.poisson.logpmf, argnums=1)(3.0, 2.0),
          jax.grad(st.uniform.logpdf)(0.5),
          jax.grad(st.logistic.cdf)(0.0))


@program(x64=True)
def stats_f64_tails():
  x = f64(-40., -10., 0., 10., 40.)
  return (st.norm.logcdf(x), st.norm.logsf(x), st.norm.ppf(f64(1e-300, 1 - 1e-16)),
          st.logistic.logpdf(f64(-800., 800.)), st.gamma.cdf(f64(1e-300, 1e3), 2.0),
          st.poisson.logpmf(f64(1000.), 1000.))


# --- linalg ------------------------------------------------------------------------------------

@program(rtol=1e-4)
def expm_edges():
  z = jnp.zeros((3, 3))
  nil = jnp.array([[0., 1., 2.], [0., 0., 3.], [0., 0., 0.]])
  big = jnp.array([[10., 1.], [0., -10.]])
  rot = jnp.array([[0., -np.pi], [np.pi, 0.]])
  return la.expm(z), la.expm(nil), la.expm(big), la.expm(rot)


@program(x64=True)
def expm_f64_and_batch():
  a = jnp.array([[[1., 2.], [3., 4.]], [[0., 0.], [0., 0.]]], jnp.float64)
  return la.expm(a), la.expm(jnp.array([[1.]]))


@program(rtol=1e-4)
def expm_grad_and_complex():
  a = jnp.array([[0.1, 0.2], [0.3, -0.4]])
  g = jax.grad(lambda m: jnp.sum(la.expm(m)))(a)
  c = jnp.array([[0., 1j], [1j, 0.]], jnp.complex64)
  return g, la.expm(c)


@program
def expm_upper_triangular_hint():
  return la.expm(jnp.array([[1., 2.], [0., 3.]]), upper_triangular=True)


@program
def expm_non_square_raises():
  return la.expm(jnp.ones((2, 3)))


@program
def expm_frechet_values():
  a = jnp.array([[1., 2.], [0., 3.]])
  e = jnp.array([[0., 1.], [0., 0.]])
  return la.expm_frechet(a, e)


@program
def sqrtm_values():
  return la.sqrtm(jnp.array([[4., 1.], [0., 9.]]))


@program
def schur_values():
  t, z = la.schur(jnp.array([[1., 2.], [3., 4.]]))
  return jnp.abs(jnp.diag(t))


@program
def polar_values():
  u, p = la.polar(jnp.array([[2., 0.], [0., 3.]]))
  return u, p


@program
def funm_and_hessenberg():
  return (la.funm(jnp.array([[1., 0.], [0., 2.]]), jnp.exp),
          la.hessenberg(jnp.array([[1., 2.], [3., 4.]])))


@program
def lu_rectangular_and_permute_l():
  a = jnp.array([[1., 2., 3.], [4., 5., 6.]])
  b = a.T
  return la.lu(a), la.lu(b), la.lu(b, permute_l=True)


@program
def lu_singular_and_int_input():
  return la.lu(jnp.zeros((2, 2))), la.lu(jnp.array([[1, 2], [3, 4]]))


@program(rtol=1e-4, atol=1e-5)
def lu_factor_solve_trans():
  a = jnp.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]]) + jnp.array([[0., 0.5, 0.], [0., 0., 0.], [0.25, 0., 0.]])
  b = f32(1., 2., 3.)
  lu, piv = la.lu_factor(a)
  return (lu, piv, la.lu_solve((lu, piv), b), la.lu_solve((lu, piv), b, trans=1),
          la.lu_solve((lu, piv), b[:, None], trans=2))


@program
def lu_solve_bad_trans_raises():
  lu, piv = la.lu_factor(jnp.eye(2))
  return la.lu_solve((lu, piv), f32(1., 2.), trans=3)


@program(rtol=1e-4, atol=1e-5)
def cho_factor_solve_lower_and_upper():
  a = jnp.array([[4., 2., 0.], [2., 5., 1.], [0., 1., 3.]])
  b = jnp.array([[1., 0.], [0., 1.], [1., 1.]])
  cl = la.cho_factor(a, lower=True)
  cu = la.cho_factor(a)
  return cl, cu, la.cho_solve(cl, b), la.cho_solve(cu, b[:, 0])


@program
def cholesky_not_positive_definite():
  return la.cholesky(jnp.array([[1., 2.], [2., 1.]])), la.cholesky(jnp.array([[-1.]]))


@program(rtol=1e-4, atol=1e-5)
def solve_triangular_options():
  a = jnp.array([[2., 0., 0.], [1., 3., 0.], [4., 5., 6.]])
  b = f32(1., 2., 3.)
  return (la.solve_triangular(a, b, lower=True), la.solve_triangular(a, b, lower=True, trans="T"),
          la.solve_triangular(a, b, lower=True, trans=2),
          la.solve_triangular(a, b, lower=True, unit_diagonal=True),
          la.solve_triangular(a.T, b), la.solve_triangular(a, jnp.ones((3, 2)), lower=True, trans=1))


@program
def solve_triangular_bad_trans_raises():
  return la.solve_triangular(jnp.eye(2), f32(1., 2.), trans="X")


@program(rtol=1e-4, atol=1e-5)
def solve_assume_a_kinds():
  a = jnp.array([[4., 1.], [1., 3.]])
  b = f32(1., 2.)
  return (la.solve(a, b), la.solve(a, b, assume_a="pos"), la.solve(a, b, assume_a="sym"),
          la.solve(a, b[:, None], assume_a="her"))


@program
def solve_bad_assume_a_raises():
  return la.solve(jnp.eye(2), f32(1., 2.), assume_a="diag")


@program
def block_diag_dtypes_and_shapes():
  return (la.block_diag(jnp.ones((2, 2), jnp.int32), jnp.array([1.5, 2.5]), 7),
          la.block_diag(), la.block_diag(jnp.zeros((0, 2)), jnp.ones((1, 1))),
          la.block_diag(jnp.array([True])))


@program
def block_diag_3d_raises():
  return la.block_diag(jnp.ones((2, 2, 2)))


@program
def toeplitz_hankel_circulant():
  c = f32(1., 2., 3.)
  r = jnp.array([9, 8], jnp.int32)
  cc = jnp.array([1 + 1j, 2, 3], jnp.complex64)
  return (la.toeplitz(c), la.toeplitz(c, r), la.toeplitz(cc), la.hankel(c), la.hankel(c, r),
          la.circulant(c), la.toeplitz(jnp.array([1, 2])))


@program
def toeplitz_batched_input():
  c = jnp.array([[1., 2., 3.], [4., 5., 6.]])
  return la.toeplitz(c), la.circulant(c)


@program
def hilbert_dtype_and_empty():
  return la.hilbert(3), la.hilbert(0), la.hilbert(1)


@program(x64=True)
def hilbert_f64():
  return la.hilbert(4)


@program
def eigh_options():
  a = jnp.array([[2., 1., 0.], [5., 3., 1.], [7., 1., 4.]])
  w1 = la.eigh(a, eigvals_only=True)
  w2 = la.eigh(a, lower=False, eigvals_only=True)
  w3, v3 = la.eigh(jnp.array([[2., 0.], [0., 1.]]))
  return w1, w2, w3, jnp.abs(v3)


@program
def eigh_generalized_raises():
  return la.eigh(jnp.eye(2), jnp.eye(2))


@program
def eigh_subset_by_index():
  return la.eigh(jnp.diag(f32(3., 1., 2.)), eigvals_only=True, subset_by_index=(0, 1))


@program
def svd_options():
  a = jnp.array([[3., 0.], [0., 4.], [0., 0.]])
  u, s, vh = la.svd(a, full_matrices=False)
  return (la.svd(a, compute_uv=False), s, u.shape, vh.shape, la.svd(a)[0].shape,
          la.svd(jnp.array([[1, 2], [3, 4]]), compute_uv=False))


@program
def det_and_inv_edges():
  return (la.det(jnp.zeros((2, 2))), la.det(jnp.array([[1, 2], [3, 4]])), la.det(jnp.zeros((0, 0))),
          la.det(jnp.eye(3)[None] * 2), la.inv(jnp.array([[2., 0.], [0., 4.]])))


@program
def qr_modes():
  a = jnp.array([[3., 1.], [4., 2.], [0., 5.]])
  q, r = la.qr(a, mode="economic")
  r_only = la.qr(a, mode="r")
  return q.shape, r.shape, jnp.abs(r), type(r_only).__name__, len(r_only), la.qr(a)[0].shape


@program
def qr_bad_mode_raises():
  return la.qr(jnp.eye(2), mode="raw")


@program
def special_matrices_ember_may_lack():
  return la.pascal(3), la.companion(f32(1., -3., 2.)), la.dft(2).shape


# --- signal, fft, integrate, ndimage, interpolate -------------------------------------------------

@program
def signal_convolve_modes():
  sig = submodule("scipy.signal")
  x = f32(1., 2., 3., 4.)
  k = f32(1., 0., -1.)
  return (sig.convolve(x, k), sig.convolve(x, k, mode="same"), sig.convolve(x, k, mode="valid"),
          sig.correlate(x, k), sig.correlate(x, k, mode="valid"),
          sig.convolve(x, k, method="fft"))


@program
def signal_convolve2d_boundaries():
  sig = submodule("scipy.signal")
  x = jnp.arange(9.0).reshape(3, 3)
  k = jnp.array([[1., 2.], [0., -1.]])
  return (sig.convolve2d(x, k), sig.convolve2d(x, k, mode="same"),
          sig.correlate2d(x, k, mode="valid"))


@program
def signal_int_inputs_and_bad_mode():
  sig = submodule("scipy.signal")
  out = sig.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1]))
  return out, sig.convolve(f32(1., 2.), f32(1.), mode="bogus")


@program
def fft_dct_types_and_norms():
  fft = submodule("scipy.fft")
  x = f32(1., 2., 3., 4., 5.)
  return (fft.dct(x), fft.dct(x, type=2, norm="ortho"), fft.dct(x, n=8), fft.idct(fft.dct(x)),
          fft.idct(x, norm="ortho"), fft.dctn(jnp.arange(6.0).reshape(2, 3)))


@program
def fft_dct_unsupported_type():
  fft = submodule("scipy.fft")
  return fft.dct(f32(1., 2., 3.), type=1)


@program
def integrate_trapezoid():
  integ = submodule("scipy.integrate")
  y = jnp.arange(12.0).reshape(3, 4) ** 2
  return (integ.trapezoid(y), integ.trapezoid(y, dx=0.5, axis=0),
          integ.trapezoid(f32(1., 2., 3.), x=f32(0., 1., 3.)), integ.trapezoid(jnp.array([1, 2, 3])))


@program
def ndimage_map_coordinates_orders_and_modes():
  nd = submodule("scipy.ndimage")
  img = jnp.arange(12.0).reshape(3, 4)
  coords = [f32(0.5, -1., 2.7, 1.), f32(0.5, 1.5, 4.2, -0.6)]
  return (nd.map_coordinates(img, coords, order=0), nd.map_coordinates(img, coords, order=1),
          nd.map_coordinates(img, coords, order=1, mode="nearest"),
          nd.map_coordinates(img, coords, order=1, mode="wrap"),
          nd.map_coordinates(img, coords, order=1, mode="mirror"),
          nd.map_coordinates(img, coords, order=1, mode="reflect"),
          nd.map_coordinates(img, coords, order=1, mode="constant", cval=-5.))


@program
def ndimage_map_coordinates_order3_raises():
  nd = submodule("scipy.ndimage")
  return nd.map_coordinates(jnp.ones((3, 3)), [f32(1.), f32(1.)], order=3)


@program
def interpolate_regular_grid():
  interp = submodule("scipy.interpolate")
  x = f32(0., 1., 2.)
  y = f32(0., 1., 2., 3.)
  values = x[:, None] * 10 + y[None, :]
  pts = jnp.array([[0.5, 0.5], [1.5, 2.25], [3., 1.], [-1., 0.]])
  f = interp.RegularGridInterpolator((x, y), values)
  g = interp.RegularGridInterpolator((x, y), values, method="nearest", fill_value=None)
  h = interp.RegularGridInterpolator((x, y), values, bounds_error=False, fill_value=-1.)
  return f(pts), g(pts), h(pts)
