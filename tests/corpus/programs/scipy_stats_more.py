"""jax.scipy.stats beyond scipy_edge: the namespace and every distribution's functions and
signatures; the distributions scipy_edge only touches (gumbel_l, gumbel_r, pareto, gennorm,
vonmises, wrapcauchy, truncnorm, binom, nbinom, geom, betabinom, multinomial, dirichlet) at and
beyond the ends of their support, at NaN and at bad parameters, with integer and bool arguments
(dtypes and weak types), gradients and float64; the functions added to the older distributions;
the statistics mode, rankdata and sem; and gaussian_kde (its fields, methods, errors, pytree).

Each program targets one function family so a divergence names its cause; values are computed
eagerly unless a program says otherwise."""
import inspect

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
st = submodule("scipy.stats")

inf, nan = np.inf, np.nan


def f32(*v):
  return jnp.array(v, jnp.float32)


def f64(*v):
  return jnp.array(v, jnp.float64)


def _apply(mod, fns, *args):
  """Every function ``fns`` of ``st.<mod>`` at ``args`` (a failure recorded by its type)."""
  m = getattr(st, mod)
  out = []
  for fn in fns:
    try:
      out.append(getattr(m, fn)(*args))
    except Exception as e:  # a program keeps going; the record shows which call failed
      out.append(f"{mod}.{fn}: {type(e).__name__}")
  return out


def _grads(mod, fn, *args):
  """``jax.grad`` of ``st.<mod>.<fn>`` with respect to every argument, at ``args``."""
  f = getattr(getattr(st, mod), fn)
  return jax.grad(f, argnums=tuple(range(len(args))))(*args)


def _typed_args(mod, fns, *params):
  """Each function at integer, bool and weakly typed arguments: dtypes and weak types."""
  m = getattr(st, mod)
  xs = [1, jnp.array([0, 1, 2]), jnp.array([True, False]), jnp.int8(1)]
  out = []
  for fn in fns:
    for x in xs:
      try:
        out.append(getattr(m, fn)(x, *params))
      except Exception as e:
        out.append(f"{fn}: {type(e).__name__}")
  return out


CONTINUOUS_X = (-inf, -50., -5., -1., 0., 0.5, 1., 5., 50., inf, nan)
QUANTILES = (0., 1e-30, 0.3, 0.5, 1., -0.1, 1.1, nan)


# --- the namespace --------------------------------------------------------------------------------

@program
def stats_public_names():
  return sorted(n for n in dir(st) if not n.startswith("_"))


def _signature(f):
  return [(p.name, repr(p.default), p.kind.name) for p in inspect.signature(f).parameters.values()]


@program
def distribution_functions_and_signatures():
  out = []
  for name in sorted(n for n in dir(st) if not n.startswith("_")):
    m = getattr(st, name)
    if not inspect.ismodule(m):
      continue
    fns = sorted(f for f in dir(m) if not f.startswith("_") and callable(getattr(m, f)))
    out.append([name, [[f, _signature(getattr(m, f))] for f in fns]])
  return out


@program
def statistics_and_kde_signatures():
  kde_methods = sorted(n for n in dir(st.gaussian_kde) if not n.startswith("_"))
  return (_signature(st.mode), _signature(st.rankdata), _signature(st.sem),
          _signature(st.gaussian_kde), kde_methods,
          [[n, _signature(getattr(st.gaussian_kde, n))] for n in kde_methods
           if inspect.isfunction(getattr(st.gaussian_kde, n))])


# --- gumbel_r / gumbel_l --------------------------------------------------------------------------

GUMBEL_FNS = ["logpdf", "pdf", "logcdf", "cdf", "sf", "logsf"]


@program
def gumbel_r_edges():
  return _apply("gumbel_r", GUMBEL_FNS, f32(*CONTINUOUS_X)) + [st.gumbel_r.ppf(f32(*QUANTILES))]


@program
def gumbel_l_edges():
  return _apply("gumbel_l", GUMBEL_FNS, f32(*CONTINUOUS_X)) + [st.gumbel_l.ppf(f32(*QUANTILES))]


@program
def gumbel_bad_scale_and_broadcast():
  x = f32(-1., 0., 2.)
  scale = jnp.array([[1.], [0.], [-1.], [nan]])
  return (_apply("gumbel_r", GUMBEL_FNS + ["ppf"], x / 4 + 0.5, 1., scale)
          + _apply("gumbel_l", GUMBEL_FNS + ["ppf"], x / 4 + 0.5, jnp.array([0., 1., 2.]), scale))


@program
def gumbel_typed_arguments():
  return (_typed_args("gumbel_r", ["logpdf", "cdf", "sf", "logsf"])
          + _typed_args("gumbel_l", ["logpdf", "logcdf", "sf"]) + [st.gumbel_r.ppf(0, 1, 2)])


@program
def gumbel_grads():
  # Not logpdf, pdf or ppf: JAX 0.10.2 cannot differentiate them (its xlogy(-1, scale) has an
  # integer constant whose float0 tangent its jvp multiplies: a TypeError); ember can.
  return [_grads(mod, fn, 0.7, 0.2, 1.5) for mod in ("gumbel_r", "gumbel_l")
          for fn in ("logcdf", "cdf", "sf", "logsf")]


@program
def gumbel_grads_in_the_tails():
  g = lambda mod, fn: jax.vmap(jax.grad(getattr(getattr(st, mod), fn)))(f32(-30., -3., 3., 30.))
  return [g(mod, fn) for mod in ("gumbel_r", "gumbel_l") for fn in ("logcdf", "logsf")]


@program(x64=True)
def gumbel_float64():
  x = f64(-40., -3., 0., 3., 40.)
  return (_apply("gumbel_r", GUMBEL_FNS, x) + _apply("gumbel_l", GUMBEL_FNS, x)
          + [st.gumbel_r.ppf(f64(1e-300, 0.5, 1 - 1e-16)), st.gumbel_l.ppf(f64(1e-300, 0.5)),
             st.gumbel_r.logpdf(1, 0, 2)])


# --- pareto ---------------------------------------------------------------------------------------

PARETO_FNS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


@program
def pareto_edges():
  x = f32(-1., 0., 0.5, 1., 1.5, 2., 1e30, inf, nan)
  return (_apply("pareto", PARETO_FNS, x, 3.) + _apply("pareto", PARETO_FNS, x, 2., 0.5, 2.)
          + [st.pareto.ppf(f32(*QUANTILES), 3.), st.pareto.ppf(f32(0.5), 2., 1., 3.)])


@program
def pareto_bad_shape_and_scale():
  x = f32(0.5, 1., 2.)
  return (_apply("pareto", PARETO_FNS + ["ppf"], x, 0.) + _apply("pareto", PARETO_FNS, x, -1.)
          + _apply("pareto", PARETO_FNS, x, 2., 0., 0.)
          + _apply("pareto", PARETO_FNS, x, 2., 0., -1.))


@program
def pareto_typed_arguments_and_grads():
  return (_typed_args("pareto", ["logpdf", "cdf", "logsf"], 2)
          + [_grads("pareto", fn, 2.5, 3., 0.5, 1.5) for fn in PARETO_FNS + ["ppf"]])


@program(x64=True)
def pareto_float64():
  x = f64(1., 1. + 1e-12, 2., 1e300)
  return _apply("pareto", PARETO_FNS, x, 3.) + [st.pareto.ppf(f64(0., 1e-17, 0.5, 1.), 3.)]


# --- gennorm --------------------------------------------------------------------------------------

@program
def gennorm_edges():
  x = f32(*CONTINUOUS_X)
  return (_apply("gennorm", ["logpdf", "pdf", "cdf"], x, 2.)
          + _apply("gennorm", ["logpdf", "cdf"], x, 0.5)
          + _apply("gennorm", ["logpdf", "cdf"], x, 8.))


@program
def gennorm_bad_and_broadcast_beta():
  x = f32(-1., 0., 1.)
  beta = jnp.array([[0.], [-1.], [inf], [nan], [1.]])
  return _apply("gennorm", ["logpdf", "pdf", "cdf"], x, beta)


@program
def gennorm_typed_arguments_and_grads():
  return (_typed_args("gennorm", ["logpdf", "cdf"], 2) + _typed_args("gennorm", ["pdf"], 1.5)
          + [_grads("gennorm", fn, 0.7, 1.5) for fn in ("logpdf", "pdf", "cdf")]
          + [_grads("gennorm", "logpdf", -0.7, 3.)])


@program(x64=True)
def gennorm_float64():
  x = f64(-3., -1e-8, 0., 1e-8, 3.)
  return _apply("gennorm", ["logpdf", "cdf"], x, 1.) + _apply("gennorm", ["cdf"], x, 5.)


# --- vonmises / wrapcauchy ------------------------------------------------------------------------

@program
def vonmises_edges():
  x = f32(-inf, -np.pi, 0., 1., np.pi, 10., inf, nan)
  kappa = jnp.array([[1.], [1e-3], [50.], [1e4], [0.], [-1.], [inf], [nan]])
  return st.vonmises.logpdf(x, kappa), st.vonmises.pdf(x, 2.)


@program
def vonmises_typed_arguments_and_grads():
  return (_typed_args("vonmises", ["logpdf", "pdf"], 2)
          + [_grads("vonmises", "logpdf", 0.5, 2.), _grads("vonmises", "pdf", 0.5, 2.),
             _grads("vonmises", "logpdf", 3., 30.)])


@program(x64=True)
def vonmises_float64():
  return st.vonmises.logpdf(f64(0., 1., np.pi), f64(1e-8, 1., 1e5)), st.vonmises.pdf(0.5, 700.)


@program
def wrapcauchy_edges():
  x = f32(-0.1, 0., 1., np.pi, 2 * np.pi, 7., inf, nan)
  c = jnp.array([[0.5], [1e-6], [0.999], [0.], [1.], [-0.5], [nan]])
  return st.wrapcauchy.logpdf(x, c), st.wrapcauchy.pdf(x, 0.3)


@program
def wrapcauchy_typed_arguments_and_grads():
  return (_typed_args("wrapcauchy", ["logpdf", "pdf"], 0.5)
          + [_grads("wrapcauchy", "logpdf", 1., 0.5), _grads("wrapcauchy", "pdf", 2., 0.9)])


# --- truncnorm ------------------------------------------------------------------------------------

TRUNCNORM_FNS = ["logpdf", "pdf", "logcdf", "cdf", "logsf", "sf"]


# The programs mostly pass x as float32[10] and Python floats for the rest, so the jitted functions
# compile once for all of them (a compile of truncnorm takes seconds).

@program
def truncnorm_bounds():
  x = f32(-inf, -3., -1., -0.5, 0., 0.5, 1., 3., inf, nan)
  return (_apply("truncnorm", TRUNCNORM_FNS, x, -1., 1., 0., 1.)
          + _apply("truncnorm", TRUNCNORM_FNS, x, -inf, inf, 0., 1.)
          + _apply("truncnorm", TRUNCNORM_FNS, x, 0., inf, 0., 1.)
          + _apply("truncnorm", TRUNCNORM_FNS, x, -inf, 0.5, 0., 1.))


@program
def truncnorm_tails_and_bad_bounds():
  x = f32(2., 2.5, 3., 5., 8., 9., 20., 30., -2., -3.)
  fns = lambda x, a, b: _apply("truncnorm", TRUNCNORM_FNS, x, a, b, 0., 1.)
  return fns(x, 2., 3.) + fns(-x, -3., -2.) + fns(x, 5., 9.) + fns(x, 1., 1.) + fns(x, 3., 2.)


@program
def truncnorm_loc_scale():
  x = f32(-3., -1., 0., 1., 1.5, 2., 3., 5., 9., nan)
  return (_apply("truncnorm", TRUNCNORM_FNS, x, -1., 2., 1., 2.)
          + _apply("truncnorm", ["logpdf", "logcdf"], x, -1., 2., 0., -1.)
          + _apply("truncnorm", ["logpdf", "logcdf"], x, -1., 2., 0., 0.))


@program
def truncnorm_broadcast_and_typed_arguments():
  return (st.truncnorm.logpdf(f32(0., 1., 2.), jnp.array([[-1.], [0.5]]), 2.),
          st.truncnorm.logpdf(1, -1, 2), st.truncnorm.logpdf(jnp.array([True, False]), -1, 2),
          st.truncnorm.cdf(jnp.array([0, 1, 2]), -1., 2.))


@program
def truncnorm_grads():
  return [_grads("truncnorm", fn, 0.3, -1., 1.5, 0.1, 1.2) for fn in ("logpdf", "logcdf")]


@program
def truncnorm_under_jit_and_vmap():
  x = jnp.linspace(-1., 1., 10)
  return (jax.jit(st.truncnorm.logpdf)(x, -0.5, 2.),
          jax.vmap(st.truncnorm.cdf, in_axes=(0, None, None))(x, -1., 1.))


@program(x64=True)
def truncnorm_float64():
  x = f64(-1., 0., 0.999999, 1., 10., 30., 20., 25., 40., 50.)
  return (_apply("truncnorm", TRUNCNORM_FNS, x, -1., 1.)
          + _apply("truncnorm", TRUNCNORM_FNS, x, 20., 40.))


# --- binom / nbinom / geom / betabinom ------------------------------------------------------------

@program
def binom_edges():
  k = f32(-1., 0., 1., 2.5, 4., 5., 6., inf, nan)
  return (st.binom.logpmf(k, 5., 0.4), st.binom.pmf(k, 5., 0.4), st.binom.logpmf(k, 5., 0.),
          st.binom.logpmf(k, 5., 1.), st.binom.logpmf(k, 0., 0.3), st.binom.logpmf(k, 5., nan),
          st.binom.logpmf(k, 5., 1.5), st.binom.pmf(k, 4., 0.3, 1.))


@program
def binom_typed_arguments_and_grads():
  return (_typed_args("binom", ["logpmf", "pmf"], 5, 0.4)
          + [st.binom.pmf(jnp.array([0, 2, 5]), jnp.array([5, 5, 5]), 0.25)]
          + [_grads("binom", "logpmf", 2., 5., 0.4), _grads("binom", "pmf", 0., 5., 0.4)])


@program(x64=True)
def binom_float64():
  k = f64(0., 10., 500., 1000.)
  return st.binom.logpmf(k, 1000., 0.5), st.binom.pmf(k, 1000., 1e-3)


@program
def nbinom_edges():
  k = f32(-1., 0., 1., 2.5, 5., 100., inf, nan)
  return (st.nbinom.logpmf(k, 3., 0.4), st.nbinom.pmf(k, 3., 0.4), st.nbinom.logpmf(k, 3., 0.),
          st.nbinom.logpmf(k, 3., 1.), st.nbinom.logpmf(k, 0., 0.4),
          st.nbinom.logpmf(k, 2.5, 0.4, 1.),
          st.nbinom.logpmf(k, -1., 0.4))


@program
def nbinom_typed_arguments_and_grads():
  return (_typed_args("nbinom", ["logpmf", "pmf"], 3, 0.5)
          + [_grads("nbinom", "logpmf", 2., 3., 0.4), _grads("nbinom", "pmf", 0., 3., 0.4)])


@program
def geom_edges():
  k = f32(-1., 0., 1., 2., 3.5, 100., inf, nan)
  return (st.geom.logpmf(k, 0.3), st.geom.pmf(k, 0.3), st.geom.logpmf(k, 0.), st.geom.logpmf(k, 1.),
          st.geom.logpmf(k, 1.5), st.geom.logpmf(k, -0.5), st.geom.pmf(k, 0.3, 2.))


@program
def geom_typed_arguments_and_grads():
  return (_typed_args("geom", ["logpmf", "pmf"], 0.3)
          + [_grads("geom", "logpmf", 3., 0.3), _grads("geom", "pmf", 1., 0.3)])


@program
def betabinom_edges():
  k = f32(-1., 0., 0.5, 2., 2.9, 5., 6., inf, nan)
  return (st.betabinom.logpmf(k, 5., 2., 3.), st.betabinom.pmf(k, 5., 2., 3.),
          st.betabinom.logpmf(k, 0., 2., 3.), st.betabinom.logpmf(k, 5., 0., 3.),
          st.betabinom.logpmf(k, 5., 2., -1.), st.betabinom.logpmf(k, -1., 2., 3.),
          st.betabinom.pmf(k, 5., 1., 1., 1.), st.betabinom.logpmf(k, 5., 0.5, 0.5))


@program
def betabinom_typed_arguments_and_grads():
  return (_typed_args("betabinom", ["logpmf", "pmf"], 5, 2, 3)
          + [_grads("betabinom", "logpmf", 2., 5., 2., 3.),
             _grads("betabinom", "pmf", 1., 4., 0.5, 1.5)])


@program(x64=True)
def discrete_float64():
  k = f64(0., 1., 7., 30.)
  return st.nbinom.logpmf(k, 10., 0.3), st.geom.logpmf(k + 1, 1e-10), st.binom.pmf(k, 30., 0.2)


@program(x64=True, rtol=1e-6, atol=1e-8)
def betabinom_float64():
  # rtol 1e-6: JAX's float64 betaln is only good to ~1e-7 at moderate arguments (its
  # betabinom.pmf(3, 10, 2, 2) is 0.11188806..., not 16/143 = 0.11188811...); ember's is closer.
  k = f64(0., 1., 7., 30.)
  return st.betabinom.logpmf(k, 30., 1e-3, 2.), st.betabinom.pmf(3, 10, 2, 2)


# --- multinomial / dirichlet ----------------------------------------------------------------------

@program
def multinomial_counts_and_batches():
  p = f32(0.2, 0.5, 0.3)
  return (st.multinomial.logpmf(jnp.array([0, 0, 3]), 3, p),
          st.multinomial.logpmf(jnp.array([3, 0, 0]), jnp.int32(3), p),
          st.multinomial.pmf(jnp.array([1, 1, 1]), 3, f32(0., 0.5, 0.5)),
          st.multinomial.logpmf(jnp.array([[1, 2, 0], [0, 1, 2]]), 3, p),
          st.multinomial.logpmf(jnp.array([[1, 2, 0], [0, 0, 0]]), 3, p),
          st.multinomial.logpmf(jnp.array([True, False]), 1, f32(0.3, 0.7)),
          st.multinomial.logpmf(jnp.array([1, 1]), 2, jnp.array([1, 1])))


@program
def multinomial_float_counts_raise():
  return st.multinomial.logpmf(f32(1., 2., 0.), 3, f32(0.2, 0.5, 0.3))


@program
def multinomial_float_n_raises():
  return st.multinomial.logpmf(jnp.array([1, 2, 0]), 3., f32(0.2, 0.5, 0.3))


@program
def multinomial_list_counts_raise():
  return st.multinomial.pmf([1, 2, 0], 3, f32(0.2, 0.5, 0.3))


@program
def multinomial_grad_and_float64():
  g = jax.grad(st.multinomial.logpmf, argnums=2)(jnp.array([1, 2, 0]), 3, f32(0.2, 0.5, 0.3))
  jax.config.update("jax_enable_x64", True)
  x64 = st.multinomial.logpmf(jnp.array([10, 20, 30]), 60, f64(0.1, 0.3, 0.6))
  return g, x64


@program
def dirichlet_points_and_shapes():
  alpha = f32(1., 2., 3.)
  return (st.dirichlet.logpdf(f32(0.2, 0.3), alpha),
          st.dirichlet.logpdf(jnp.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]]), alpha),
          st.dirichlet.logpdf(f32(0.2, 0.3, 0.6), alpha),
          st.dirichlet.logpdf(f32(0., 0.4, 0.6), alpha),
          st.dirichlet.logpdf(f32(-0.2, 0.6, 0.6), alpha),
          st.dirichlet.pdf(f32(0.5, 0.5), f32(1., 1.)),
          st.dirichlet.logpdf(jnp.array([0.25, 0.75]), jnp.array([2, 3])),
          st.dirichlet.logpdf(f32(0.2, 0.8), f32(0., 1.)))


@program
def dirichlet_two_dimensional_alpha_raises():
  return st.dirichlet.logpdf(f32(0.2, 0.8), jnp.array([[1., 2.]]))


@program
def dirichlet_wrong_length_raises():
  return st.dirichlet.logpdf(f32(0.1, 0.2, 0.3, 0.4), f32(1., 2.))


@program
def dirichlet_scalar_x_raises():
  return st.dirichlet.logpdf(0.5, f32(1., 2.))


@program
def dirichlet_grads_and_float64():
  g = jax.grad(st.dirichlet.logpdf, argnums=(0, 1))(f32(0.2, 0.3, 0.5), f32(1.5, 2., 3.))
  jax.config.update("jax_enable_x64", True)
  return g, st.dirichlet.logpdf(f64(0.2, 0.3, 0.5), f64(1e-3, 2., 300.))


# --- functions added to the older distributions ---------------------------------------------------

@program
def cauchy_added_functions_edges():
  x = f32(-inf, -1e30, -1., 0., 1., 1e30, inf, nan)
  q = f32(-0.5, 0., 0.25, 0.5, 1., 1.5, nan)
  return (_apply("cauchy", ["sf", "logcdf", "logsf"], x, 1., 2.)
          + _apply("cauchy", ["ppf", "isf"], q, 1., 2.)
          + _apply("cauchy", ["sf", "logsf", "ppf"], f32(0.5), 0., jnp.array([0., -1.])))


@program
def cauchy_added_typed_arguments_and_grads():
  return (_typed_args("cauchy", ["sf", "logcdf", "logsf", "ppf", "isf"])
          + [_grads("cauchy", fn, 0.3, 0.1, 2.) for fn in ("sf", "logcdf", "logsf", "ppf", "isf")])


@program
def expon_added_functions():
  x = f32(-inf, -1., 0., 1e-30, 1., 100., inf, nan)
  return (_apply("expon", ["logcdf", "logsf"], x) + _apply("expon", ["logcdf", "logsf"], x, 1., 2.)
          + _apply("expon", ["logcdf", "logsf"], x, 0., -1.)
          + _typed_args("expon", ["logcdf", "logsf"])
          + [_grads("expon", "logcdf", 1.5, 0.5, 2.), _grads("expon", "logsf", 1.5, 0.5, 2.)])


@program
def gamma_added_functions():
  x = f32(-1., 0., 1e-30, 1., 50., inf, nan)
  return (_apply("gamma", ["logcdf", "logsf"], x, 2.)
          + _apply("gamma", ["logcdf", "logsf"], x, 0.5, 1., 2.)
          + _apply("gamma", ["logcdf", "logsf", "sf"], x, -1.) + _typed_args("gamma", ["logsf"], 2)
          + [_grads("gamma", "logcdf", 1.5, 2., 0.5, 2.),
             _grads("gamma", "logsf", 1.5, 2., 0.5, 2.)])


@program
def chi2_added_functions():
  x = f32(-1., 0., 1e-30, 1., 50., inf, nan)
  return (_apply("chi2", ["sf", "logcdf", "logsf"], x, 3.)
          + _apply("chi2", ["sf", "logcdf", "logsf"], x, 1., 1., 2.)
          + _apply("chi2", ["sf", "logcdf"], x, -1.)
          + _typed_args("chi2", ["sf", "logcdf", "logsf"], 3)
          + [_grads("chi2", fn, 1.5, 3., 0.5, 2.) for fn in ("sf", "logcdf", "logsf")])


@program
def beta_added_functions():
  x = f32(-inf, -0.1, 0., 0.3, 1., 1.1, inf, nan)
  return (_apply("beta", ["sf", "logcdf", "logsf"], x, 2., 3.)
          + _apply("beta", ["sf", "logcdf", "logsf"], x, 0.5, 0.5, -1., 2.)
          + _apply("beta", ["sf", "logcdf"], x, -1., 2.)
          + _typed_args("beta", ["sf", "logsf"], 2, 3)
          + [jax.grad(getattr(st.beta, fn), argnums=(0, 3, 4))(0.3, 2., 3., 0., 1.)
             for fn in ("sf", "logcdf", "logsf")])


@program
def beta_added_functions_grad_in_shapes_raises():
  return jax.grad(st.beta.logsf, argnums=1)(0.3, 2., 3.)


@program
def bernoulli_ppf_edges():
  q = f32(-0.1, 0., 0.3, 0.7, 0.71, 1., 1.1, nan)
  return (_apply("bernoulli", ["ppf"], q, 0.3) + _apply("bernoulli", ["ppf"], q, 0.)
          + _apply("bernoulli", ["ppf"], q, 1.) + _apply("bernoulli", ["ppf"], q, nan)
          + _apply("bernoulli", ["ppf"], q, 1.5) + _typed_args("bernoulli", ["ppf"], 0.3)
          + [st.bernoulli.ppf(0.5, jnp.array([0.2, 0.8]))])


@program
def poisson_entropy_regimes():
  mu = f32(0., 1e-6, 0.5, 9.99, 10., 50., 99.99, 100., 1e4, 1e8, inf)
  return (st.poisson.entropy(mu), st.poisson.entropy(-1.), st.poisson.entropy(nan),
          st.poisson.entropy(3), st.poisson.entropy(jnp.array([1, 20])),
          st.poisson.entropy(f32(1., 2.), jnp.zeros((3, 1))),
          st.poisson.entropy(jnp.ones((2, 2)) * 5.))


@program
def poisson_entropy_grad():
  return jax.grad(st.poisson.entropy)(3.), jax.grad(st.poisson.entropy)(150.)


@program(x64=True)
def added_functions_float64():
  x = f64(1e-300, 0.5, 30., 700.)
  return (st.expon.logcdf(x), st.expon.logsf(x), st.gamma.logcdf(x, 3.), st.gamma.logsf(x, 3.),
          st.chi2.sf(x, 4.), st.chi2.logsf(x, 4.), st.cauchy.logsf(x),
          st.cauchy.isf(f64(1e-300, 0.5)),
          st.beta.logsf(f64(1e-300, 0.5, 1 - 1e-16), 2., 3.),
          st.poisson.entropy(f64(0.5, 20., 500.)), st.bernoulli.ppf(f64(0.3), 0.7))


# --- the fixed divergences, beyond scipy_edge -----------------------------------------------------

@program
def uniform_nan_and_negative_scale():
  x = f32(-1., 0., 0.5, 1., 2., nan)
  return (st.uniform.logpdf(x, 0., -1.), st.uniform.pdf(x, nan, 1.), st.uniform.cdf(x, 0., -1.),
          st.uniform.cdf(x, nan, 1.), st.uniform.cdf(x, 0., 0.), st.uniform.ppf(f32(0.5), 0., -1.),
          _typed_args("uniform", ["logpdf", "pdf", "cdf", "ppf"]),
          _grads("uniform", "cdf", 0.5, 0., 2.), _grads("uniform", "ppf", 0.5, 0., 2.))


@program
def chi2_logpdf_at_zero_and_grads():
  return (st.chi2.logpdf(f32(0., 0., 0., 1e-30), f32(1., 2., 3., 2.)),
          _grads("chi2", "logpdf", 1.5, 3., 0.5, 2.), _grads("chi2", "cdf", 1.5, 3., 0.5, 2.),
          _typed_args("chi2", ["logpdf", "cdf"], 2))


@program
def bernoulli_fractional_and_typed():
  k = f32(0., 0.25, 0.5, 1., 1.5)
  return (st.bernoulli.logpmf(k, 0.3), st.bernoulli.pmf(k, 0.3, 0.5),
          _typed_args("bernoulli", ["logpmf", "pmf", "cdf"], 0.3),
          _typed_args("bernoulli", ["logpmf"], jnp.float32(0.3)),
          _grads("bernoulli", "logpmf", 0.5, 0.3))


@program
def norm_isf_precision_and_types():
  q = f32(1e-30, 1e-8, 0.025, 0.5, 1., 0.)
  return (st.norm.isf(q), st.norm.isf(q, 1., 2.), st.norm.isf(0.3), st.norm.isf(jnp.float32(0.3)),
          st.norm.ppf(0.3, 1, 2), _grads("norm", "isf", 0.3, 1., 2.))


@program(x64=True)
def norm_isf_ppf_float64():
  return (st.norm.isf(f64(1e-30, 1e-16, 0.3)), st.norm.ppf(jnp.float32(0.3)),
          st.norm.isf(jnp.float32(0.3)), st.norm.ppf(0.5, jnp.float32(1.), 2.))


@program
def norm_ppf_integer_raises():
  return st.norm.ppf(jnp.array([0, 1]))


@program
def norm_isf_bool_raises():
  return st.norm.isf(jnp.array([True, False]))


@program
def older_distributions_typed_arguments():
  return (_typed_args("t", ["logpdf"], 3) + _typed_args("laplace", ["logpdf", "cdf"])
          + _typed_args("logistic", ["logpdf", "cdf", "sf"])
          + _typed_args("norm", ["logpdf", "cdf", "sf"])
          + _typed_args("poisson", ["logpmf", "cdf"], 2) + _typed_args("gamma", ["logpdf", "sf"], 2)
          + _typed_args("beta", ["logpdf", "cdf"], 2, 3))


@program
def multivariate_normal_typed_arguments():
  mvn = st.multivariate_normal
  return (mvn.logpdf(jnp.array([0, 1]), jnp.array([0, 0]), jnp.eye(2, dtype=jnp.int32)),
          mvn.logpdf(1, 0, 2), mvn.pdf(1., 0., 2.),
          mvn.logpdf(jnp.array([True, False]), jnp.zeros(2), 1.))


@program
def multivariate_normal_list_arguments_raise():
  return st.multivariate_normal.logpdf([0., 1.], [0., 0.], [[1., 0.], [0., 1.]])


# --- bad arguments --------------------------------------------------------------------------------

@program
def list_argument_raises():
  return st.binom.logpmf([1, 2], 5, 0.5)


@program
def list_argument_to_jitted_function_raises():
  return st.truncnorm.logpdf([0.], -1., 1.)


@program
def list_argument_to_betabinom_raises():
  return st.betabinom.pmf([1.], 5., 2., 3.)


@program
def mismatched_shapes_raise():
  return st.pareto.cdf(f32(1., 2., 3.), f32(1., 2.))


# --- mode / rankdata / sem ------------------------------------------------------------------------

@program
def mode_axes_and_ties():
  a = jnp.array([[1., 2., 2.], [1., 3., 3.], [2., 3., 2.]])
  return (st.mode(jnp.array([1, 2, 2, 3, 3])), st.mode(a), st.mode(a, axis=1),
          st.mode(a, axis=None),
          st.mode(a, axis=-1, keepdims=True), st.mode(a, axis=None, keepdims=True), st.mode(3.),
          st.mode(jnp.array([True, False, True])), st.mode(f32(nan, nan, 1.)),
          st.mode(f32(nan, 1., 1.)))


@program
def mode_empty_inputs():
  return (st.mode(jnp.array([])), st.mode(jnp.zeros((0, 3))), st.mode(jnp.zeros((3, 0))),
          st.mode(jnp.zeros((0, 2), jnp.int32), axis=1))


@program
def mode_nan_policy_omit_raises():
  return st.mode(f32(1., 2.), nan_policy="omit")


@program
def mode_nan_policy_raise_raises():
  return st.mode(f32(1., 2.), nan_policy="raise")


@program
def mode_bad_nan_policy_raises():
  return st.mode(f32(1., 2.), nan_policy="ignore")


@program
def mode_axis_out_of_range_raises():
  return st.mode(f32(1., 2.), axis=2)


@program
def mode_list_raises():
  return st.mode([1, 2, 2])


@program
def rankdata_methods():
  a = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5])
  return [st.rankdata(a, m) for m in ("average", "min", "max", "dense", "ordinal")]


@program
def rankdata_axes_nan_and_scalars():
  a = jnp.array([[3., 1., 2.], [2., 2., 1.]])
  return (st.rankdata(a), st.rankdata(a, axis=0), st.rankdata(a, "min", axis=1),
          st.rankdata(a, axis=-1), st.rankdata(f32(1., nan, 2.)), st.rankdata(5.),
          st.rankdata(jnp.array([True, False, True])),
          st.rankdata(jnp.array([[1., nan], [2., 3.]]), axis=1))


@program
def rankdata_unknown_method_raises():
  return st.rankdata(f32(1., 2.), "median")


@program
def rankdata_nan_policy_omit_raises():
  return st.rankdata(f32(1., 2.), nan_policy="omit")


@program
def rankdata_bad_nan_policy_raises():
  return st.rankdata(f32(1., 2.), nan_policy="skip")


@program(x64=True)
def rankdata_and_mode_float64():
  return st.rankdata(jnp.array([2, 1, 2])), st.mode(f64(1., 2., 2.)), st.sem(f64(1., 2., 4.))


@program
def sem_axes_ddof_and_policies():
  a = jnp.array([[1., 2., 4.], [2., 8., 3.]])
  return (st.sem(a), st.sem(a, axis=1), st.sem(a, axis=None), st.sem(a, ddof=0),
          st.sem(a, axis=1, keepdims=True), st.sem(jnp.array([1, 2, 4])), st.sem(f32(1.)),
          st.sem(f32(1., nan, 4.)), st.sem(f32(1., nan, 4., 5.), nan_policy="omit"),
          st.sem(jnp.array([[1., nan], [2., 3.], [4., 6.]]), nan_policy="omit", keepdims=True))


@program
def sem_nan_policy_raise_raises():
  return st.sem(f32(1., 2.), nan_policy="raise")


@program
def sem_scalar_raises():
  return st.sem(3.)


@program
def sem_grad():
  return jax.grad(lambda a: st.sem(a))(f32(1., 2., 4.))


# --- gaussian_kde ---------------------------------------------------------------------------------

DATA = (1., 2., 2.5, 4., 7.)


@program
def kde_fields():
  k = st.gaussian_kde(f32(*DATA))
  return k.d, k.n, k.neff, k.dataset, k.weights, k.covariance, k.inv_cov


@program
def kde_as_dataclass():
  return st.gaussian_kde(f32(*DATA), weights=f32(1., 1., 2., 1., 1.))


@program
def kde_evaluate_pdf_logpdf():
  k = st.gaussian_kde(f32(*DATA))
  x = f32(-10., 0., 2., 5., 30.)
  return k.evaluate(x), k(x), k.pdf(2.), k.logpdf(x), k.logpdf(jnp.array([[0., 1.]])), k.evaluate(3)


@program
def kde_bandwidths_and_weights():
  d = f32(*DATA)
  w = f32(1., 1., 2., 1., 3.)
  return (st.gaussian_kde(d, "silverman").covariance, st.gaussian_kde(d, 0.5).covariance,
          st.gaussian_kde(d, bw_method=lambda kde: 0.25).inv_cov,
          st.gaussian_kde(d, weights=w).neff, st.gaussian_kde(d, weights=w).evaluate(f32(2., 4.)),
          st.gaussian_kde(jnp.array([1, 2, 4])).dataset)


@program(rtol=1e-4, atol=1e-6)
def kde_two_dimensional():
  data = jnp.array([[0., 1., 2., 3., 5.], [1., 0., 2., 5., 3.]])
  k = st.gaussian_kde(data)
  return (k.d, k.n, k.covariance, k.evaluate(jnp.array([[0., 2.], [1., 2.]])),
          k.logpdf(f32(1., 1.)), k.integrate_gaussian(f32(1., 2.), jnp.eye(2)),
          k.integrate_kde(st.gaussian_kde(data + 1.)))


@program
def kde_integrals():
  k = st.gaussian_kde(f32(*DATA))
  other = st.gaussian_kde(f32(0., 1., 5.))
  return (k.integrate_box_1d(0., 3.), k.integrate_box_1d(-inf, inf), k.integrate_box_1d(3., 0.),
          k.integrate_gaussian(1., 2.), k.integrate_gaussian(f32(1.), f32(2.)),
          k.integrate_kde(other), other.integrate_kde(k))


@program
def kde_resample():
  k = st.gaussian_kde(f32(*DATA))
  key = jax.random.key(0)
  w = st.gaussian_kde(f32(*DATA), weights=f32(0., 0., 1., 0., 0.))
  return k.resample(key).shape, k.resample(key, (4,)), w.resample(key, (2, 2))


@program
def kde_pytree_and_transforms():
  k = st.gaussian_kde(f32(*DATA))
  leaves, tree = jax.tree_util.tree_flatten(k)
  rebuilt = jax.tree_util.tree_unflatten(tree, leaves)
  f = jax.jit(lambda kde, x: kde.evaluate(x))
  return (len(leaves), type(rebuilt).__name__, rebuilt.evaluate(2.), f(k, f32(1., 2.)),
          jax.grad(lambda x: k.logpdf(x)[0])(1.5),
          jax.vmap(lambda x: k.pdf(x)[0])(f32(0., 1., 2.)))


@program
def kde_integrate_box_raises():
  return st.gaussian_kde(f32(*DATA)).integrate_box(0., 1.)


@program
def kde_set_bandwidth_raises():
  return st.gaussian_kde(f32(*DATA)).set_bandwidth("scott")


@program
def kde_single_point_raises():
  return st.gaussian_kde(f32(1.))


@program
def kde_bad_bw_method_raises():
  return st.gaussian_kde(f32(*DATA), bw_method="wide")


@program
def kde_weights_of_wrong_length_raise():
  return st.gaussian_kde(f32(*DATA), weights=f32(1., 2.))


@program
def kde_two_dimensional_weights_raise():
  return st.gaussian_kde(f32(*DATA), weights=jnp.ones((5, 1)))


@program
def kde_complex_data_raises():
  return st.gaussian_kde(jnp.array([1., 2., 3.], jnp.complex64))


@program
def kde_complex_points_raise():
  return st.gaussian_kde(f32(*DATA)).evaluate(jnp.array([1j]))


@program
def kde_points_of_wrong_dimension_raise():
  return st.gaussian_kde(jnp.array([[0., 1., 2.], [1., 0., 3.]])).evaluate(f32(1., 2., 3.))


@program
def kde_list_dataset_raises():
  return st.gaussian_kde([1., 2., 3.])


@program
def kde_box_1d_array_limits_raise():
  return st.gaussian_kde(f32(*DATA)).integrate_box_1d(f32(0., 1.), 3.)


@program
def kde_box_1d_in_two_dimensions_raises():
  return st.gaussian_kde(jnp.array([[0., 1., 2.], [1., 0., 3.]])).integrate_box_1d(0., 1.)


@program
def kde_gaussian_of_wrong_dimension_raises():
  return st.gaussian_kde(f32(*DATA)).integrate_gaussian(f32(1., 2.), 1.)


@program
def kde_of_other_dimension_raises():
  k = st.gaussian_kde(f32(*DATA))
  return k.integrate_kde(st.gaussian_kde(jnp.array([[0., 1., 2.], [1., 0., 3.]])))


@program(x64=True)
def kde_float64():
  k = st.gaussian_kde(f64(*DATA))
  return k.covariance, k.evaluate(f64(0., 2.)), k.logpdf(f64(100.)), k.integrate_box_1d(0., 3.)
