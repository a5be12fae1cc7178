"""Properties that need no oracle, over randomly composed programs (hypothesis).

A program is a chain of steps drawn from a pool of primitives (elementwise, binary with the input,
structural, scans and conds) applied to a vector ``x``; ``loss`` weights and sums its output. For
every program: ``jit(f) == f``; ``vmap(f)(xs)[i] == f(xs[i])``; ``grad`` agrees with central
differences in float64; ``jvp`` and ``vjp`` satisfy ``<vjp(u), v> == <u, jvp(v)>``;
``grad(jit(f)) == jit(grad(f))``; and a data-parallel ``shard_map`` of the loss (inputs split over
devices, outputs psummed) equals the unsharded loss, gradient included.
"""
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
import ember.numpy as jnp
from ember import lax
from ember.sharding import PartitionSpec as P

N = 8  # vector length: divisible by the 4 devices of the data-parallel check


def _cumsum_scan(v):
  return lax.scan(lambda c, a: (c + a, jnp.sin(c) * a), jnp.zeros((), v.dtype), v)[1]


# Each step maps (v, x) to a new v of the same shape; x is the program's input.
STEPS = {
    "sin": lambda v, x: jnp.sin(v),
    "tanh": lambda v, x: jnp.tanh(v),
    "square": lambda v, x: v * v,
    "softplus": lambda v, x: ember.nn.softplus(v),
    "sigmoid": lambda v, x: ember.nn.sigmoid(v),
    "exp_tanh": lambda v, x: jnp.exp(jnp.tanh(v)),
    "log1p_sq": lambda v, x: jnp.log1p(v * v),
    "add_x": lambda v, x: v + x,
    "mul_x": lambda v, x: v * x,
    "sub_const": lambda v, x: v - 0.5,
    "scale": lambda v, x: 1.5 * v,
    "reverse": lambda v, x: v[::-1],
    "roll": lambda v, x: jnp.roll(v, 3),
    "cumsum": lambda v, x: jnp.cumsum(v) / N,
    "transpose": lambda v, x: v.reshape(2, N // 2).T.reshape(N),
    "matvec": lambda v, x: jnp.dot(jnp.reshape(jnp.arange(N * N, dtype=v.dtype) / (N * N),
                                               (N, N)), v),
    "softmax": lambda v, x: ember.nn.softmax(v),
    "where_pos": lambda v, x: jnp.where(x > 0, v, 2 * v),
    "scan": lambda v, x: _cumsum_scan(v),
    "cond": lambda v, x: lax.cond(x[0] > 0, jnp.sin, jnp.cos, v),
    "fori": lambda v, x: lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c) + v, v),
    "checkpoint": lambda v, x: ember.checkpoint(lambda u: jnp.sin(u) * u)(v),
    "logsumexp_bcast": lambda v, x: v - ember.nn.logsumexp(v),
}

programs = st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=5)
inputs = st.lists(st.floats(-2, 2, allow_nan=False, width=32), min_size=N, max_size=N)
# where_pos and cond branch at x == 0, where finite differences straddle a jump.
smooth_inputs = st.lists(st.floats(0.01, 2) | st.floats(-2, -0.01), min_size=N, max_size=N)
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def make(names):
  def f(x):
    v = x
    for n in names:
      v = STEPS[n](v, x)
    return v
  return f


def make_loss(names):
  f = make(names)
  w = np.linspace(-1, 1, N)
  return lambda x: jnp.sum(f(x) * w.astype(x.dtype))


def close(a, b, rtol=2e-5, atol=2e-5):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


@SETTINGS
@given(programs, inputs)
def test_jit_equals_eager(names, xs):
  f, x = make(names), jnp.array(xs, jnp.float32)
  close(ember.jit(f)(x), f(x))


@SETTINGS
@given(programs, st.lists(inputs, min_size=3, max_size=3))
def test_vmap_equals_a_loop(names, rows):
  f, xs = make(names), jnp.array(rows, jnp.float32)
  batched = ember.vmap(f)(xs)
  for i in range(xs.shape[0]):
    close(batched[i], f(xs[i]))


@SETTINGS
@given(programs, smooth_inputs)
def test_grad_matches_central_differences_in_float64(names, xs):
  with ember.enable_x64():
    loss, x = make_loss(names), np.array(xs, np.float64)
    g = np.asarray(ember.grad(loss)(jnp.asarray(x)))
    eps = 1e-6
    fd = np.array([(float(loss(jnp.asarray(x + eps * e))) -
                    float(loss(jnp.asarray(x - eps * e)))) / (2 * eps) for e in np.eye(N)])
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


@SETTINGS
@given(programs, inputs, st.integers(0, 2**31 - 1))
def test_jvp_and_vjp_are_adjoint(names, xs, seed):
  with ember.enable_x64():
    f, x = make(names), jnp.asarray(np.array(xs, np.float64))
    rng = np.random.default_rng(seed)
    u, v = rng.standard_normal(N), rng.standard_normal(N)
    _, jv = ember.jvp(f, (x,), (jnp.asarray(v),))
    _, pull = ember.vjp(f, x)
    (ju,) = pull(jnp.asarray(u))
    np.testing.assert_allclose(np.dot(u, np.asarray(jv)), np.dot(np.asarray(ju), v),
                               rtol=1e-9, atol=1e-9)


@SETTINGS
@given(programs, inputs)
def test_grad_of_jit_equals_jit_of_grad(names, xs):
  loss, x = make_loss(names), jnp.array(xs, jnp.float32)
  close(ember.grad(ember.jit(loss))(x), ember.jit(ember.grad(loss))(x))
  close(ember.grad(ember.jit(loss))(x), ember.grad(loss)(x))


# Steps that mix elements across the vector are not data-parallel; the sharded check uses the rest.
_LOCAL = sorted(n for n in STEPS if n not in ("reverse", "roll", "cumsum", "transpose", "matvec",
                                              "softmax", "scan", "cond", "logsumexp_bcast"))


@SETTINGS
@given(st.lists(st.sampled_from(_LOCAL), min_size=1, max_size=5),
       st.lists(inputs, min_size=4, max_size=4))
def test_data_parallel_shard_map_equals_the_unsharded_loss(names, rows):
  f = make(names)
  xs = jnp.array(rows, jnp.float32)                                    # (4 examples, N)
  w = jnp.linspace(0.5, 1.5, N, dtype=jnp.float32)
  loss = lambda w, xs: jnp.sum(ember.vmap(f)(xs * w))
  mesh = ember.make_mesh((4,), ("d",), devices=ember.devices()[:4])

  @functools.partial(ember.shard_map, mesh=mesh, in_specs=(P(), P("d")), out_specs=P())
  def sharded_loss(w, xs):
    return lax.psum(loss(w, xs), "d")

  close(sharded_loss(w, xs), loss(w, xs), rtol=1e-5, atol=1e-4)
  close(ember.grad(sharded_loss)(w, xs), ember.grad(loss)(w, xs), rtol=1e-5, atol=1e-4)
  close(ember.jit(ember.grad(sharded_loss))(w, xs), ember.grad(loss)(w, xs),
        rtol=1e-5, atol=1e-4)
