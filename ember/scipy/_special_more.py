"""ember.scipy.special's functions beyond the gamma/error/Bessel-I core, mirroring
``jax.scipy.special`` 0.10.2: ``bernoulli``, ``bessel_jn``, ``dawsn``, ``erfcx``, ``exp1``,
``expi``, ``expn``, ``fresnel``, ``hyp1f1``, ``hyp2f1``, ``owens_t``, ``sici``, ``spence``,
``sph_harm_y`` and ``wofz``.

This module is their public face: argument checks, dtype promotion and the errors JAX raises.
The numerics live in ``_special_rational`` (closed-form approximations) and ``_special_series``
(loops), and are JAX's algorithms, so values agree with JAX to rounding, including where JAX's
algorithm is inexact (``bessel_jn``'s fixed ``n_iter``, ``bernoulli``'s 49-term zeta sums,
``hyp1f1`` for large arguments). Integer and boolean inputs are promoted as JAX promotes them;
every result is strongly typed, as in JAX.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.special import exp1, expi
    >>> exp1(jnp.array([0.5, 2.]))
    Array([0.55977356, 0.04890051], dtype=float32)
    >>> expi(jnp.array([-1., 1.]))
    Array([-0.21938425,  1.8951179 ], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.core import trace as core
from ember.core.errors import ConcretizationTypeError
from ember.numpy._util import check_arraylike, promote_dtypes_inexact
from ember.scipy import _special_rational as _rational
from ember.scipy import _special_series as _series
from ember.scipy._util import promote_inexact
from ember.transforms.jit import jit

__all__ = [
    "bernoulli", "bessel_jn", "dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "hyp1f1",
    "hyp2f1", "owens_t", "sici", "spence", "sph_harm_y", "wofz",
]


def _real(name: str, *args, strong: bool = True) -> list:
  """``args`` promoted to one real inexact dtype and broadcast (strongly typed unless
  ``strong`` is false); a ValueError in JAX's words for complex inputs.

  Where JAX attaches a custom JVP to the user's (possibly weakly typed) arguments, the gradient
  of a Python scalar comes back strongly typed; ``strong=False`` keeps that, the kernel then
  strengthening its operands itself."""
  args = promote_inexact(name, *args)
  if dtypes.issubdtype(args[0].dtype, np.complexfloating):
    raise ValueError(f"{name} does not support complex-valued inputs.")
  args = jnp.broadcast_arrays(*args)
  return [lax.convert_element_type(a, a.dtype) for a in args] if strong else list(args)


def _concrete_int(x, convert, context: str):
  if isinstance(x, core.Tracer):
    raise ConcretizationTypeError(x, context)
  return convert(x)


# --- the error-function family -------------------------------------------------------------------

def erfcx(x):
  """The scaled complementary error function ``exp(x**2) * erfc(x)``.

  Accurate for large ``x``, where the naive formula overflows: beyond
  ``sqrt(log(finfo.max))`` an asymptotic series takes over (below it the result may underflow to
  0, as JAX's does). Complex ``x`` gives ``wofz(1j * x)``. Half-precision inputs are computed in
  float32. The gradient is ``2 x erfcx(x) - 2 / sqrt(pi)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import erfcx
      >>> erfcx(jnp.array([-1., 0., 1., 30.]))
      Array([5.00898   , 1.        , 0.42758363, 0.01879589], dtype=float32)
  """
  x, = promote_inexact("erfcx", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _rational.wofz(lax.complex(-lax.imag(x), lax.real(x)))
  return _rational.erfcx(x)


def dawsn(x):
  """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt``.

  Cody, Paciorek & Thacher's rational approximations (half precision computed in float32); the
  gradient is ``1 - 2 x dawsn(x)``.

  Raises:
      ValueError: for complex ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import dawsn
      >>> dawsn(jnp.array([0., 1., -4., 100.]))
      Array([ 0.        ,  0.5380795 , -0.129348  ,  0.00500025], dtype=float32)
  """
  x, = _real("dawsn", x)
  return _rational.dawsn(x)


def wofz(z):
  """The Faddeeva function ``exp(-z**2) * erfc(-1j * z)``, always complex.

  Weideman's 32-term rational series in the upper half plane and the reflection
  ``2 exp(-z**2) - w(-z)`` below it; real and integer inputs are promoted to complex. The
  derivative is ``-2 z w(z) + 2i / sqrt(pi)``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import wofz
      >>> wofz(jnp.array([1 + 1j, 2j]))
      Array([0.30474424+0.20821896j, 0.2553957 +0.j        ], dtype=complex64)
  """
  z, = promote_inexact("wofz", z)  # integers become float32 first, so complex64 (as in JAX)
  return _rational.wofz(lax.convert_element_type(z, dtypes.to_complex_dtype(z.dtype)))


def fresnel(x):
  """The Fresnel integrals ``(S(x), C(x))`` of ``sin`` and ``cos(pi t**2 / 2)`` over [0, x].

  Cephes' approximations (its single-precision ones for float32, which give exactly 0.5 beyond
  x = 36974; half precision is computed in float32). As in Cephes the accuracy is only promised
  on [-10, 10]. The derivatives are ``sin`` and ``cos(pi x**2 / 2)``.

  Raises:
      NotImplementedError: for complex ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import fresnel
      >>> s, c = fresnel(jnp.array([0.5, 1., -1.]))
      >>> s
      Array([ 0.06473243,  0.43825915, -0.43825915], dtype=float32)
      >>> c
      Array([ 0.49234423,  0.7798934 , -0.7798934 ], dtype=float32)
  """
  x, = promote_inexact("fresnel", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
  if x.dtype not in (np.float16, np.float32, np.float64, dtypes.bfloat16):
    raise NotImplementedError(f"Support for {x.dtype} dtype is not implemented yet.")
  return _rational.fresnel(x)


def owens_t(h, a):
  """Owen's T function ``T(h, a) = 1/(2 pi) integral_0^a exp(-h**2 (1+x**2) / 2) / (1+x**2) dx``.

  A 13-point Gauss-Legendre rule (Patefield & Tandy's method T5) for ``|a| <= 1`` and the
  reciprocal relation beyond, with exact values at ``h = 0`` and ``|a| = 1``. As in JAX the
  quadrature's float64 weights promote the result: float32 arguments give float64 under x64,
  and float16 arguments give float32 (float64 under x64).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import owens_t
      >>> owens_t(jnp.array([0., 0.5, 1.]), jnp.array([1., 0.5, 2.]))
      Array([0.125    , 0.0644886, 0.0784682], dtype=float32)
  """
  h, a = promote_inexact("owens_t", h, a)
  return _rational.owens_t(h, a)


# --- sine/cosine, exponential and dilogarithm integrals ----------------------------------------

def sici(x):
  """The sine and cosine integrals ``(Si(x), Ci(x))``.

  ``Si`` is odd; for negative ``x``, ``Ci`` is the real part (``Ci(|x|)``), and nan at -inf.
  The derivatives are ``sin(x) / x`` and ``cos(x) / x``.

  Raises:
      ValueError: for complex ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import sici
      >>> si, ci = sici(jnp.array([1., 10.]))
      >>> si
      Array([0.94608307, 1.6583477 ], dtype=float32)
      >>> ci
      Array([ 0.33740395, -0.04545644], dtype=float32)
  """
  x, = promote_inexact("sici", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
  return _rational.sici(x)


def expn(n, x):
  """The generalized exponential integral ``E_n(x) = integral_1^inf exp(-x t) / t**n dt``.

  ``n`` and ``x`` are promoted to one float dtype and broadcast. As in JAX (Cephes' cases, the
  last applicable winning): nan for ``n < 0`` or ``x < 0`` unless ``x > 1`` (a continued
  fraction answers there), inf at ``x = 0`` for ``n < 2``, ``1 / (n - 1)`` at ``x = 0`` beyond,
  and nan for non-integral ``n`` where the series is used. The derivative in ``x`` is
  ``-E_{n-1}(x)``; ``n`` is not differentiated (its gradient is 0).

  Raises:
      ValueError: for complex arguments.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import expn
      >>> expn(jnp.array([0, 1, 2]), jnp.array([1., 1., 0.5]))
      Array([0.36787945, 0.21938425, 0.32664382], dtype=float32)
  """
  n, x = _real("expn", n, x, strong=False)
  return _series.expn(n, x)


def exp1(x):
  """The exponential integral ``E_1(x) = integral_x^inf exp(-t) / t dt`` (``expn(1, x)``).

  inf at 0, nan for negative ``x``; the derivative is ``-exp(-x) / x``. Unlike JAX, arrays
  holding tiny positive values (1e-20) return promptly.

  Raises:
      ValueError: for complex ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import exp1
      >>> exp1(jnp.array([0., 1., 10.]))
      Array([          inf, 2.1938425e-01, 4.1569692e-06], dtype=float32)
  """
  x, = _real("exp1", x, strong=False)
  return expn(1, x)


def expi(x):
  """The exponential integral ``Ei(x) = -integral_{-x}^inf exp(-t) / t dt``.

  ``-exp1(-x)`` for negative ``x`` and Cephes' rational fits otherwise; nan at 0 and at +-inf,
  as in JAX. The derivative is ``exp(x) / x``.

  Raises:
      ValueError: for complex ``x``.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import expi
      >>> expi(jnp.array([-1., 0., 1., 10.]))
      Array([-2.1938425e-01,            nan,  1.8951179e+00,  2.4922288e+03],      dtype=float32)
  """
  x, = _real("expi", x, strong=False)
  return _series.expi(x)


def spence(x):
  """Spence's function ``integral_1^x log(t) / (1 - t) dt`` for real ``x >= 0``.

  ``spence(0)`` is ``pi**2 / 6`` and negative ``x`` gives nan (SciPy's value there is complex).
  Differentiable by composition, as in JAX.

  Raises:
      TypeError: unless ``x`` is float32 or float64 (integers are not promoted, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import spence
      >>> spence(jnp.array([0., 0.5, 1., 2.]))
      Array([ 1.644934  ,  0.58224034,  0.        , -0.82246685], dtype=float32)
  """
  x = jnp.asarray(x)
  if x.dtype not in (np.float32, np.float64):
    raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
  return _rational.spence(x)


# --- hypergeometric functions ------------------------------------------------------------------

def hyp1f1(a, b, x):
  """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x**k / k!``.

  The Taylor series (at most 250 terms) for ``|x| < 100`` and the asymptotic series beyond, as
  in JAX, which means large ``x`` may overflow (inf) in float32. ``1F1(0; b; x)`` is 1 (also
  for ``b = 0``), ``1F1(a; a; x)`` is ``exp(x)`` and ``b = 0`` gives inf. Differentiable in all
  three arguments (the parameter derivatives by their series).

  Raises:
      ValueError: for complex arguments.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import hyp1f1
      >>> hyp1f1(jnp.array([1., 0.5]), jnp.array([2., 1.5]), jnp.array([0.5, -2.]))
      Array([1.2974426, 0.5981441], dtype=float32)
  """
  a, b, x = _real("hyp1f1", a, b, x)
  return _series.hyp1f1(a, b, x)


def hyp2f1(a, b, c, x):
  """The Gauss hypergeometric function ``2F1(a, b; c; x)`` for real arguments, ``x <= 1``.

  JAX's case analysis: 1 for ``x = 0``, inf for ``x > 1`` and at poles of ``c``, the
  terminating sum for non-positive integer ``a`` or ``b``, Euler's transformation when
  ``c - a - b <= -1``, the digamma form near ``x = 1`` when ``c - a - b`` is an integer, and
  the Taylor series (at most 250 terms) otherwise. Differentiable in all four arguments.

  Raises:
      TypeError: for complex arguments (from ``c % 1``, as in JAX).

  Example:
      >>> from ember.scipy.special import hyp2f1
      >>> hyp2f1(1., 2., 3., 0.5)
      Array(1.5451772, dtype=float32)
  """
  check_arraylike("hyp2f1", a, b, c, x)
  a, b, c, x = promote_inexact("hyp2f1", a, b, c, x)
  a, b, c, x = [lax.convert_element_type(v, v.dtype) for v in jnp.broadcast_arrays(a, b, c, x)]
  return _series.hyp2f1(a, b, c, x)


# --- number sequences, Bessel J and spherical harmonics ---------------------------------------

def bernoulli(n: int):
  """The first ``n + 1`` Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``).

  ``B_m`` for even ``m >= 4`` is ``(-1)**(m/2+1) 2 m! zeta(m) / (2 pi)**m`` with ``zeta(m)``
  summed over its first 49 terms, as in JAX (so ``B_4`` is off by 2.5e-6 relative).

  Raises:
      ValueError: if ``n`` is negative.
      TypeError: if ``n`` is not an integer.
      ConcretizationTypeError: if ``n`` is traced.

  Example:
      >>> from ember.scipy.special import bernoulli
      >>> bernoulli(6)
      Array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333325,
              0.        ,  0.02380952], dtype=float32)
  """
  n = _concrete_int(n, operator.index, "Argument n of bernoulli")
  if n < 0:
    raise ValueError("n must be a non-negative integer.")
  first = jnp.array([1, -1 / 2, 1 / 6])
  if n < 3:
    return first[:n + 1]
  dtype = first.dtype
  m = jnp.arange(4, n + 1, 2, dtype=dtype)
  # 2 m! / (2 pi)^m with its sign, as a running product over m = 4, 6, ...
  scale = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
  zeta = 1 + jnp.sum(jnp.arange(2, 50, dtype=dtype)[:, None] ** -m[None, :], axis=0)
  return jnp.zeros(n + 1, dtype).at[:3].set(first).at[4::2].set(scale * zeta)


def bessel_jn(z, *, v: int, n_iter: int = 50):
  """The Bessel functions of the first kind ``J_0 .. J_v`` of real ``z``, shape ``(v+1, *z.shape)``.

  Miller's backward recurrence from order ``n_iter`` (Zhang & Jin), normalized by
  ``J_0 + 2 (J_2 + J_4 + ...) = 1``, as in JAX: accurate when ``n_iter`` is large enough for
  ``|z|``, but in float32 (and half precision) the default ``n_iter=50`` overflows to nan for
  small ``|z|``, and ``z = 0`` gives nan. ``v`` and ``n_iter`` are static.

  Raises:
      TypeError: if ``v`` is not an integer.
      ValueError: for complex128 ``z`` (complex64 fails in the recurrence, as in JAX).

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import bessel_jn
      >>> bessel_jn(jnp.array([1., 2.5]), v=2, n_iter=30)
      Array([[ 0.76519763, -0.04838378],
             [ 0.44005057,  0.4970941 ],
             [ 0.11490348,  0.44605905]], dtype=float32)
  """
  # Checked before the (static-argument) jit, whose cache does not tell v=2 from v=2.0; a traced
  # v or n_iter reaches it and fails there, as in JAX.
  v = v if isinstance(v, core.Tracer) else operator.index(v)
  n_iter = n_iter if isinstance(n_iter, core.Tracer) else int(n_iter)
  return _bessel_jn(z, v=v, n_iter=n_iter)


@jit(static_argnames=("v", "n_iter"))
def _bessel_jn(z, *, v: int, n_iter: int):
  z, = promote_dtypes_inexact(jnp.asarray(z))
  if z.dtype == np.complex128:
    raise ValueError("complex input not supported.")

  def step(carry, k):
    f0, f1, even_sum = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    return (f1, f, jnp.where(jnp.mod(k, 2) == 0, even_sum + 2.0 * f, even_sum)), f

  zeros = jnp.zeros_like(z)
  init = (zeros, jnp.full_like(z, 1e-16), zeros)
  (_, _, even_sum), j = lax.scan(step, init, lax.iota(z.dtype, n_iter + 1), reverse=True)
  return j[:v + 1] / (even_sum - j[0])


def _normalized_legendre(l_max: int, x):
  """The orthonormal associated Legendre functions ``P_l^m(x)``, shape ``(l_max+1, l_max+1,
  len(x))`` indexed ``[m, l]`` (zero for ``m > l``): the diagonal ``P_m^m`` and its neighbour
  ``P_{m+1}^m`` in closed form, then the rest diagonal by diagonal by the three-term
  recurrence."""
  dtype = x.dtype
  p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype)
  p = p.at[0, 0].set(0.5 / jnp.sqrt(np.pi))
  if l_max == 0:
    return p
  k = jnp.arange(1, l_max + 1, dtype=dtype)
  y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
  diag = (0.5 / jnp.sqrt(np.pi)) * (jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / k))[:, None] * y)
  idx = np.arange(1, l_max + 1)
  p = p.at[idx, idx].set(diag)
  below = [p[0, 0][None]] + [diag]  # P_m^m for m = 0..l_max
  diagonals = [jnp.concatenate(below, 0)]
  f_b = jnp.sqrt(2.0 * jnp.arange(l_max, dtype=dtype) + 3.0)
  diagonals.append((f_b[:, None] * x[None, :]) * diagonals[0][:l_max])
  idx = np.arange(l_max)
  p = p.at[idx, idx + 1].set(diagonals[1])
  for i in range(2, l_max + 1):  # P_{m+i}^m from P_{m+i-1}^m and P_{m+i-2}^m
    m = np.arange(l_max + 1 - i, dtype=dtype)
    l = m + i  # noqa: E741
    c0, c1, c2, c3 = l * l, m * m, 2 * l, (l - 1) * (l - 1)
    d0 = np.sqrt((4 * c0 - 1) / (c0 - c1)).astype(dtype)
    d1 = np.sqrt(((c2 + 1) * (c3 - c1)) / ((c2 - 3) * (c0 - c1))).astype(dtype)
    new = (d0[:, None] * (diagonals[i - 1][:l_max + 1 - i] * x[None, :])
           - d1[:, None] * diagonals[i - 2][:l_max + 1 - i])
    diagonals.append(new)
    idx = np.arange(l_max + 1 - i)
    p = p.at[idx, idx + i].set(new)
  return p


def sph_harm_y(n, m, theta, phi, diff_n: int | None = None, n_max: int | None = None):
  """The spherical harmonics ``Y_n^m(theta, phi)`` (theta the colatitude, phi the longitude).

  As in JAX: ``n`` and ``m`` are 1-D integer arrays, a scalar ``theta`` is taken as ``[theta]``,
  the result has one entry per ``n`` (the other arguments broadcast, out-of-range indices
  clip), degrees above ``n_max`` are clipped to ``n_max`` and orders ``|m| > n`` give 0. The
  result is complex64, or complex128 under x64 whatever the input precision.

  Raises:
      NotImplementedError: if ``diff_n`` is given.
      ConcretizationTypeError: if ``n_max`` (or ``n``, when ``n_max`` is None) is traced.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.special import sph_harm_y
      >>> sph_harm_y(jnp.array([0, 1]), jnp.array([0, 1]), jnp.array([0.3, 0.5]),
      ...            jnp.array([0.1, 0.2]), n_max=1)
      Array([ 0.28209478+0.j        , -0.16233698-0.03290733j], dtype=complex64)
  """
  if diff_n is not None:
    raise NotImplementedError(
        "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
  if jnp.isscalar(theta):
    theta = jnp.array([theta])
  n, m = jnp.asarray(n), jnp.asarray(m)
  if n_max is None:
    n_max = jnp.max(n) if isinstance(n, core.Tracer) else np.max(n)
  n_max = _concrete_int(
      n_max, int, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically "
      "specified to use `sph_harm` within JAX transformations.")
  legendre = _normalized_legendre(n_max, jnp.cos(theta))
  value = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
  angle = abs(m) * phi
  y = lax.complex(value * jnp.cos(angle), value * jnp.sin(angle))
  return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(y), y)
