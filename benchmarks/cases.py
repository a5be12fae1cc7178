"""Benchmark cases, written once against a library handle.

Run as a script, one process per side:

    python benchmarks/cases.py --lib ember   # needs the repo root on PYTHONPATH
    python benchmarks/cases.py --lib jax     # run with an interpreter that has JAX
    python benchmarks/cases.py --lib numpy   # plain NumPy, only cases with a NumPy form

It writes one line per event on stdout, each prefixed with ``PREFIX`` and
followed by a JSON object (``meta``, ``start``, ``result``, ``done``), so
library chatter on stdout cannot corrupt the protocol and a crash part way
still leaves the earlier results readable.

The module is also imported by ``run.py`` for the case table (names, targets,
descriptions). It never imports an array library at module level other than
NumPy: the JAX-like library is chosen at run time with
``importlib.import_module(lib)``, so the same code measures ember and JAX.
"""

import argparse
import faulthandler
import functools
import gc
import importlib
import json
import operator
import os
import platform
import re
import statistics
import sys
import time
import traceback

import numpy as np

PREFIX = "@@EMBER_BENCH@@ "

# ---------------------------------------------------------------------------
# Case registry
# ---------------------------------------------------------------------------


class Case:
    def __init__(self, name, fn, target, has_numpy, unit, desc):
        self.name = name
        self.fn = fn            # fn(L) -> Bench
        self.target = target    # max allowed ember/jax ratio, or None
        self.target_text = describe_target(target)
        self.has_numpy = has_numpy
        self.unit = unit
        self.desc = desc


CASES = {}  # name -> Case, in definition order


def describe_target(target):
    if target is None:
        return "-"
    if target == 1.0:
        return "<= 1.0x (no slower)"
    return "<= %gx" % target


def case(name, target=None, has_numpy=False, unit="us/call", desc=""):
    def register(fn):
        CASES[name] = Case(name, fn, target, has_numpy, unit, desc)
        return fn
    return register


class Bench:
    """What a case hands the timer.

    ``stmt`` is the zero-argument callable that is timed.  ``per`` divides the
    measured time (e.g. by the number of equations) and ``extra`` is recorded
    in the JSON.  ``max_number`` caps the calls per batch (1 for slow
    statements that must not be batched, like tracing).
    """

    def __init__(self, stmt, per=None, extra=None, max_number=None, check=None):
        self.stmt = stmt
        self.per = per
        self.extra = dict(extra or {})
        self.max_number = max_number
        self.check = check  # optional callable run after warm-up, may update extra


class Lib:
    """A handle on one side: ``jax``/``jnp`` are the JAX-like modules, or
    ``None``/``numpy`` for the NumPy side."""

    def __init__(self, name):
        self.name = name
        self.is_numpy = name == "numpy"
        if self.is_numpy:
            self.jax = None
            self.jnp = np
        else:
            self.jax = importlib.import_module(name)
            self.jnp = importlib.import_module(name + ".numpy")

    def version(self):
        mod = np if self.is_numpy else self.jax
        return str(getattr(mod, "__version__", "?"))

    def devices(self):
        if self.is_numpy:
            return "numpy"
        try:
            return str(self.jax.devices())
        except Exception as e:  # noqa: BLE001 - report, don't fail
            return "devices() failed: %s" % short_error(e)


def block_tree(out):
    """Wait for every array in a dict/list/tuple result (same code on all sides)."""
    if isinstance(out, dict):
        for v in out.values():
            block_tree(v)
    elif isinstance(out, (list, tuple)):
        for v in out:
            block_tree(v)
    else:
        out.block_until_ready()
    return out


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------


def seed_fn(jnp, x):
    return jnp.sin(jnp.cos(x)) * jnp.tanh(x)


@case("seed_jit_1000x1000", target=1.1, has_numpy=True,
      desc="jit(sin(cos(x)) * tanh(x)) on ones((1000, 1000), float32), cached call")
def _seed_jit(L):
    jnp = L.jnp
    if L.is_numpy:
        x = np.ones((1000, 1000), np.float32)
        return Bench(lambda: seed_fn(np, x))
    f = L.jax.jit(lambda x: seed_fn(jnp, x))
    x = jnp.ones((1000, 1000), jnp.float32)
    return Bench(lambda: f(x).block_until_ready())


def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)


def norm_data():
    return np.random.RandomState(1701).rand(10000, 10).astype(np.float32)


@case("norm_eager", target=None, has_numpy=True,
      desc="norm(X) = (X - X.mean(0)) / std, eager, X f32[10000, 10] from RandomState(1701)")
def _norm_eager(L):
    if L.is_numpy:
        X = norm_data()
        return Bench(lambda: norm(X))
    X = L.jnp.asarray(norm_data())
    return Bench(lambda: norm(X).block_until_ready())


@case("norm_jit", target=1.1, has_numpy=True,
      desc="jit(norm)(X), cached call; NumPy column is the same plain norm(X)")
def _norm_jit(L):
    if L.is_numpy:
        X = norm_data()
        return Bench(lambda: norm(X))
    f = L.jax.jit(norm)
    X = L.jnp.asarray(norm_data())
    return Bench(lambda: f(X).block_until_ready())


@case("jit_dispatch_10_leaves", target=1.0, has_numpy=False,
      desc="cached jit call on a dict of 10 f32[4] arrays returning the dict of x + 1")
def _dispatch10(L):
    jnp = L.jnp
    tree = {"k%d" % i: jnp.arange(4, dtype=jnp.float32) + i for i in range(10)}
    f = L.jax.jit(lambda t: {k: v + 1 for k, v in t.items()})
    return Bench(lambda: block_tree(f(tree)))


@case("eager_add_small", target=1.0, has_numpy=True,
      desc="x + y eagerly on two f32[4] arrays")
def _eager_add(L):
    jnp = L.jnp
    x = jnp.arange(4, dtype=jnp.float32)
    y = jnp.ones(4, dtype=jnp.float32)
    if L.is_numpy:
        return Bench(lambda: x + y)
    return Bench(lambda: (x + y).block_until_ready())


@case("jit_dispatch_1000_leaves", target=0.5, has_numpy=False,
      desc="cached jit call on a list of 1000 f32[] arrays returning their sum (one scalar)")
def _dispatch1000(L):
    jnp = L.jnp
    xs = [jnp.asarray(float(i), dtype=jnp.float32) for i in range(1000)]
    f = L.jax.jit(lambda xs: functools.reduce(operator.add, xs))
    return Bench(lambda: f(xs).block_until_ready())


def tree_10k():
    """A 10,000-leaf pytree of dicts, lists and tuples (100 layers of {"w": list of 50,
    "b": tuple of 25 pairs}) with float leaves, so only the pytree machinery is timed."""
    return {"layer%03d" % i: {"w": [float(j) for j in range(50)],
                              "b": tuple((float(j), -float(j)) for j in range(25))}
            for i in range(100)}


def _tree_case(op, desc):
    def build(L):
        tu = L.jax.tree_util
        tree = tree_10k()
        other = tree_10k()
        leaves, treedef = tu.tree_flatten(tree)
        stmts = {
            "flatten": lambda: tu.tree_flatten(tree),
            "leaves": lambda: tu.tree_leaves(tree),
            "structure": lambda: tu.tree_structure(tree),
            "unflatten": lambda: tu.tree_unflatten(treedef, leaves),
            "map": lambda: tu.tree_map(lambda x: x, tree),
            "map2": lambda: tu.tree_map(lambda p, g: p - g, tree, other),
        }
        return Bench(stmts[op])
    case("tree_%s_10k" % op, target=1.0, has_numpy=False, desc=desc)(build)


_tree_case("flatten", "tree_util.tree_flatten of a 10k-leaf dict/list/tuple tree")
_tree_case("leaves", "tree_util.tree_leaves of a 10k-leaf dict/list/tuple tree")
_tree_case("structure", "tree_util.tree_structure of a 10k-leaf dict/list/tuple tree")
_tree_case("unflatten", "tree_util.tree_unflatten of a 10k-leaf treedef")
_tree_case("map", "tree_util.tree_map(lambda x: x, tree) over 10k leaves")
_tree_case("map2", "tree_util.tree_map(lambda p, g: p - g, params, grads) over 10k leaves")


def make_chain(jnp, n):
    """A fresh function object: n elementwise ops cycling sin / +1.0 / *2.0."""
    def chain(x):
        for i in range(n):
            r = i % 3
            if r == 0:
                x = jnp.sin(x)
            elif r == 1:
                x = x + 1.0
            else:
                x = x * 2.0
        return x
    return chain


@case("trace_per_eqn_1000", target=1.0, has_numpy=False, unit="us/eqn",
      desc="make_jaxpr of a fresh 1000-op elementwise chain, time / len(jaxpr.jaxpr.eqns)")
def _trace(L):
    jax, jnp = L.jax, L.jnp
    x = jnp.ones((16,), jnp.float32)
    n_ops = 1000
    closed = jax.make_jaxpr(make_chain(jnp, n_ops))(x)
    n_eqns = len(closed.jaxpr.eqns)
    if n_eqns <= 0:
        raise RuntimeError("make_jaxpr produced no equations")

    def stmt():
        return jax.make_jaxpr(make_chain(jnp, n_ops))(x)

    return Bench(stmt, per=n_eqns, max_number=1,
                 extra={"eqns": n_eqns, "ops": n_ops})


def _trace_growth_case(n_ops, collector):
    """Tracing must stay linear: the same chain as ``trace_per_eqn_1000`` at another length,
    per equation, so ``trace_per_eqn[_gc]_10000 / ..._1000`` is the growth. With ``collector``
    the garbage collector runs during the trace, as in a user's program (the timer turns it off
    for every other case); its full passes over the live objects are what grows with length."""
    label = "_gc" if collector else ""
    gc_text = "; GC on during the trace" if collector else ""

    def build(L):
        jax, jnp = L.jax, L.jnp
        x = jnp.ones((16,), jnp.float32)
        n_eqns = len(jax.make_jaxpr(make_chain(jnp, n_ops))(x).jaxpr.eqns)
        if n_eqns <= 0:
            raise RuntimeError("make_jaxpr produced no equations")

        def stmt():
            was_on = gc.isenabled()
            if collector:
                gc.enable()
            try:
                return jax.make_jaxpr(make_chain(jnp, n_ops))(x)
            finally:
                if not was_on:
                    gc.disable()

        return Bench(stmt, per=n_eqns, max_number=1,
                     extra={"eqns": n_eqns, "ops": n_ops, "gc": collector})

    name = "trace_per_eqn%s_%d" % (label, n_ops)
    desc = "make_jaxpr of a fresh %d-op elementwise chain, time / eqns%s" % (n_ops, gc_text)
    case(name, target=1.0, has_numpy=False, unit="us/eqn", desc=desc)(build)


_trace_growth_case(10000, collector=False)
_trace_growth_case(1000, collector=True)
_trace_growth_case(10000, collector=True)


def _mlp(L, sizes=(784, 512, 512, 512, 10), batch=128):
    """A 4-layer MLP over a dict-of-dicts parameter pytree, with its data and loss."""
    jax, jnp = L.jax, L.jnp
    rng = np.random.RandomState(0)
    params = {
        "layer%d" % i: {"w": jnp.asarray(rng.randn(m, n).astype(np.float32) / np.sqrt(m)),
                        "b": jnp.zeros((n,), jnp.float32)}
        for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))}
    x = jnp.asarray(rng.randn(batch, sizes[0]).astype(np.float32))
    y = jnp.asarray(rng.randint(0, sizes[-1], size=batch).astype(np.int32))

    def loss(params, x, y):
        h = x
        n = len(params)
        for i in range(n):
            layer = params["layer%d" % i]
            h = jnp.dot(h, layer["w"]) + layer["b"]
            if i < n - 1:
                h = jnp.tanh(h)
        logp = h - jnp.log(jnp.sum(jnp.exp(h), axis=1, keepdims=True))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    return params, x, y, loss


@case("mlp_value_and_grad_trace_lower", target=1.0, has_numpy=False,
      desc="jit(value_and_grad(loss)).lower(...) of a fresh function (trace + lower, no compile)")
def _mlp_trace(L):
    jax = L.jax
    params, x, y, loss = _mlp(L)

    def stmt():
        f = jax.jit(jax.value_and_grad(lambda p, a, b: loss(p, a, b)))
        return f.lower(params, x, y).as_text()

    return Bench(stmt, max_number=1)


@case("mlp_sgd_step", target=1.1, has_numpy=False,
      desc="steady-state jitted SGD step (grad + tree map update) of the 4-layer MLP")
def _mlp_step(L):
    jax = L.jax
    params, x, y, loss = _mlp(L)

    @jax.jit
    def step(p, a, b):
        g = jax.grad(loss)(p, a, b)
        return jax.tree.map(lambda w, d: w - 0.01 * d, p, g)

    state = {"p": params}

    def stmt():
        state["p"] = step(state["p"], x, y)
        block_tree(state["p"])

    return Bench(stmt)


@case("per_example_grads_mlp", target=1.1, has_numpy=False,
      desc="jit(vmap(grad(loss))) per-example gradients, batch 128, small MLP (64-128-128-10)")
def _per_example(L):
    jax, jnp = L.jax, L.jnp
    params, x, y, loss = _mlp(L, sizes=(64, 128, 128, 10), batch=128)

    def one(p, a, b):  # the loss of one example
        return loss(p, a[None], b[None])

    f = jax.jit(jax.vmap(jax.grad(one), in_axes=(None, 0, 0)))

    def stmt():
        block_tree(f(params, x, y))

    return Bench(stmt)


@case("random_normal_10M_jit", target=1.1, has_numpy=False,
      desc="jit(lambda k: random.normal(k, (10_000_000,))), cached call on a raw key")
def _random_normal(L):
    random = L.jax.random
    f = L.jax.jit(lambda k: random.normal(k, (10_000_000,)))
    key = random.PRNGKey(0)
    return Bench(lambda: f(key).block_until_ready())


@case("random_split_latency", target=1.1, has_numpy=False,
      desc="random.split(key) eagerly on a raw key")
def _random_split(L):
    random = L.jax.random
    key = random.PRNGKey(0)
    return Bench(lambda: random.split(key).block_until_ready())


@case("random_fold_in_latency", target=1.1, has_numpy=False,
      desc="random.fold_in(key, 7) eagerly on a raw key")
def _random_fold_in(L):
    random = L.jax.random
    key = random.PRNGKey(0)
    return Bench(lambda: random.fold_in(key, 7).block_until_ready())


def _rnn(L, hidden=64, steps=1000):
    """A tanh RNN cell scanned over ``steps`` inputs: the function and its arguments."""
    jax, jnp = L.jax, L.jnp
    rng = np.random.RandomState(0)
    w = jnp.asarray(rng.randn(hidden, hidden).astype(np.float32) / np.sqrt(hidden))
    u = jnp.asarray(rng.randn(hidden, hidden).astype(np.float32) / np.sqrt(hidden))
    b = jnp.zeros((hidden,), jnp.float32)
    xs = jnp.asarray(rng.randn(steps, hidden).astype(np.float32))
    h0 = jnp.zeros((hidden,), jnp.float32)

    def rnn(h0, xs, w, u, b, scale=1.0):
        def cell(h, x):
            h = jnp.tanh(jnp.dot(h, w) + jnp.dot(x, u) * scale + b)
            return h, h
        return jax.lax.scan(cell, h0, xs)

    return rnn, (h0, xs, w, u, b)


@case("scan_rnn_1000_steps", target=1.1, has_numpy=False,
      desc="jitted lax.scan of a tanh RNN cell (hidden 64) over 1,000 steps, all states out")
def _scan_rnn(L):
    rnn, args = _rnn(L)
    f = L.jax.jit(rnn)
    return Bench(lambda: block_tree(f(*args)))


@case("fori_loop_10000_updates", target=1.1, has_numpy=False,
      desc="jitted lax.fori_loop of 10,000 updates x = 0.99 * x + 0.01 * sin(x + i) on f32[16]")
def _fori_updates(L):
    jax, jnp = L.jax, L.jnp
    f = jax.jit(lambda x: jax.lax.fori_loop(
        0, 10000, lambda i, x: x * 0.99 + 0.01 * jnp.sin(x + i), x))
    x = jnp.ones((16,), jnp.float32)
    return Bench(lambda: f(x).block_until_ready())


@case("scan_compile_time", target=1.0, has_numpy=False,
      desc="jit(rnn).lower(...).compile() of a fresh scan RNN function (a new constant each "
           "time, so no cache can serve it): trace + lower + compile")
def _scan_compile(L):
    rnn, args = _rnn(L)
    count = [0]

    def stmt():
        count[0] += 1
        scale = 1.0 + count[0] * 1e-6
        return L.jax.jit(lambda *a: rnn(*a, scale=scale)).lower(*args).compile()

    return Bench(stmt, max_number=1)


@case("cnn_layer_grad_jit", target=1.1, has_numpy=False,
      desc="jit(grad) of conv 3x3 SAME (NHWC 16x28x28x16 -> 32) + relu + 2x2 max pool, cached call")
def _cnn_layer_grad(L):
    jax, jnp, lax = L.jax, L.jnp, L.jax.lax
    rng = np.random.RandomState(0)
    x = jnp.asarray(rng.randn(16, 28, 28, 16).astype(np.float32))
    w = jnp.asarray(rng.randn(3, 3, 16, 32).astype(np.float32) / 12)

    def loss(w, x):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = lax.reduce_window(jnp.maximum(y, 0.), -jnp.inf, lax.max, (1, 2, 2, 1),
                              (1, 2, 2, 1), "VALID")
        return jnp.sum(y ** 2)

    f = jax.jit(jax.grad(loss))
    return Bench(lambda: f(w, x).block_until_ready())


@case("convolve_1d_eager", target=1.1, has_numpy=True,
      desc="jnp.convolve of 1,000 by 31 floats ('same'), eager call")
def _convolve_1d(L):
    jnp = L.jnp
    rng = np.random.RandomState(0)
    a = jnp.asarray(rng.randn(1000).astype(np.float32))
    v = jnp.asarray(rng.randn(31).astype(np.float32))
    if L.is_numpy:
        return Bench(lambda: jnp.convolve(a, v, "same"))
    return Bench(lambda: jnp.convolve(a, v, "same").block_until_ready())


def _spd(n):
    a = np.random.RandomState(0).randn(n, n).astype(np.float32)
    return a @ a.T + n * np.eye(n, dtype=np.float32)


@case("linalg_solve_256_eager", target=1.1, has_numpy=True,
      desc="jnp.linalg.solve of a 256x256 system with 8 right-hand sides, eager call")
def _linalg_solve(L):
    jnp = L.jnp
    a, b = jnp.asarray(_spd(256)), jnp.asarray(np.ones((256, 8), np.float32))
    if L.is_numpy:
        return Bench(lambda: jnp.linalg.solve(a, b))
    return Bench(lambda: jnp.linalg.solve(a, b).block_until_ready())


@case("linalg_cholesky_grad_jit", target=1.1, has_numpy=False,
      desc="jit(grad(sum of cholesky(x) squared)) on a 128x128 SPD matrix, cached call")
def _cholesky_grad(L):
    jax, jnp = L.jax, L.jnp
    x = jnp.asarray(_spd(128))
    f = jax.jit(jax.grad(lambda x: jnp.sum(jnp.linalg.cholesky(x) ** 2)))
    return Bench(lambda: f(x).block_until_ready())


@case("linalg_svd_batch_jit", target=1.1, has_numpy=True,
      desc="jit(jnp.linalg.svd) of 64 batched 32x32 matrices, cached call")
def _svd_batch(L):
    jax, jnp = L.jax, L.jnp
    x = jnp.asarray(np.random.RandomState(0).randn(64, 32, 32).astype(np.float32))
    if L.is_numpy:
        return Bench(lambda: jnp.linalg.svd(x))
    f = jax.jit(jnp.linalg.svd)
    return Bench(lambda: block_tree(f(x)))


@case("fft_rfft2_jit", target=1.1, has_numpy=True,
      desc="jit(jnp.fft.rfft2) of a 512x512 float32 image, cached call")
def _rfft2(L):
    jax, jnp = L.jax, L.jnp
    x = jnp.asarray(np.random.RandomState(0).randn(512, 512).astype(np.float32))
    if L.is_numpy:
        return Bench(lambda: jnp.fft.rfft2(x))
    f = jax.jit(jnp.fft.rfft2)
    return Bench(lambda: f(x).block_until_ready())


@case("jnp_mean_axis0_eager", target=1.0, has_numpy=True,
      desc="eager jnp.mean(x, axis=0) of a 16x8 float32 array: a typical jnp wrapper's overhead")
def _mean_eager(L):
    x = L.jnp.asarray(np.arange(128, dtype=np.float32).reshape(16, 8))
    if L.is_numpy:
        return Bench(lambda: L.jnp.mean(x, axis=0))
    return Bench(lambda: L.jnp.mean(x, axis=0).block_until_ready())


@case("jnp_200_calls_trace", target=1.0, has_numpy=False,
      desc="make_jaxpr of a fresh function of 200 mixed jnp calls (where, clip, mean, exp, "
           "concatenate, reshape, ...) on a 32x32 array (a new closure each time: no cache)")
def _jnp_trace(L):
    jax, jnp = L.jax, L.jnp
    x = jnp.ones((32, 32), np.float32)

    def make(scale):
        def f(x):
            for i in range(20):
                y = jnp.where(x > 0.5, x, -x)
                y = jnp.clip(y, -1.0, 1.0) + jnp.mean(y, axis=0)
                y = jnp.exp(-jnp.abs(y)) * jnp.sin(y)
                z = jnp.concatenate([y[:16], y[16:]], axis=0).reshape(32, 32)
                x = jnp.tanh(z @ x.T) + jnp.sum(z, axis=1, keepdims=True) * scale
            return x
        return f

    count = [0]

    def stmt():
        count[0] += 1
        return jax.make_jaxpr(make(1e-3 + count[0] * 1e-9))(x)

    return Bench(stmt, max_number=1)


# --- sharded programs (run with --xla-flags=--xla_force_host_platform_device_count=8) ---

def _mesh(L, shape, names):
    if L.jax.device_count() < int(np.prod(shape)):
        raise RuntimeError("needs %d devices: run with "
                           "--xla-flags=--xla_force_host_platform_device_count=8" % np.prod(shape))
    auto = (L.jax.sharding.AxisType.Auto,) * len(names)
    return L.jax.make_mesh(shape, names, axis_types=auto)


def _seed_matmul(L):
    jax, jnp = L.jax, L.jnp
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = _mesh(L, (4, 2), ("x", "y"))

    def matmul_basic(a_block, b_block):
        return jax.lax.psum(jnp.dot(a_block, b_block), "y")

    f = jax.shard_map(matmul_basic, mesh=mesh, in_specs=(P("x", "y"), P("y", None)),
                      out_specs=P("x", None))
    a = jax.device_put(jnp.arange(8 * 16.0).reshape(8, 16), NS(mesh, P("x", "y")))
    b = jax.device_put(jnp.arange(16 * 4.0).reshape(16, 4), NS(mesh, P("y", None)))
    return f, a, b


@case("shard_map_matmul_4x2", target=1.1, has_numpy=False,
      desc="jit of seed 000's shard_map matmul (psum over 'y') on a 4x2 CPU mesh, cached call")
def _shard_map_matmul(L):
    f, a, b = _seed_matmul(L)
    g = L.jax.jit(f)
    return Bench(lambda: g(a, b).block_until_ready())


def _dp_mlp(L):
    jax, jnp = L.jax, L.jnp
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = _mesh(L, (8,), ("batch",))
    rng = np.random.RandomState(0)
    sizes = [64, 128, 128, 10]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) / np.sqrt(m)),
               jnp.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x = jax.device_put(jnp.asarray(rng.randn(256, 64).astype(np.float32)),
                       NS(mesh, P("batch")))
    y = jax.device_put(jnp.asarray(rng.randint(0, 10, 256).astype(np.int32)),
                       NS(mesh, P("batch")))
    params = jax.device_put(params, NS(mesh, P()))

    def loss(params, x, y):
        for w, b in params[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = params[-1]
        logits = x @ w + b
        logp = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True) \
            if hasattr(jax, "nn") else logits
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(params, x, y):
        grads = jax.lax.pmean(jax.grad(loss)(params, x, y), "batch")
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

    f = jax.shard_map(step, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=P())
    return f, params, x, y


@case("data_parallel_mlp_step_8dev", target=1.1, has_numpy=False,
      desc="jit(shard_map) MLP 64-128-128-10 SGD step, batch 256 over 8 CPU devices, pmean'd "
           "grads, cached call")
def _dp_step(L):
    f, params, x, y = _dp_mlp(L)
    g = L.jax.jit(f)
    return Bench(lambda: block_tree(g(params, x, y)))


@case("shard_map_compile_time", target=1.0, has_numpy=False,
      desc="jit(shard_map data-parallel MLP step).lower(...).compile() of a fresh function "
           "(trace + lower + SPMD compile for 8 devices)")
def _dp_compile(L):
    f, params, x, y = _dp_mlp(L)
    count = [0]

    def stmt():
        count[0] += 1
        scale = 1.0 + count[0] * 1e-6
        return L.jax.jit(lambda *a: f(*a)[0][0] * scale).lower(params, x, y).compile()

    return Bench(stmt, max_number=1)


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------


def _batch(stmt, number):
    # timeit-style: one perf_counter pair around `number` calls, GC off.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(number):
            stmt()
        return time.perf_counter() - t0
    finally:
        if gc_was_enabled:
            gc.enable()


def calibrate(bench, min_time, warmup=2):
    """Warm up (compile included), then pick the calls per batch (1, 2, 5,
    10, 20, 50, ...) so that one batch lasts at least ``min_time`` seconds."""
    stmt = bench.stmt
    for _ in range(warmup):
        stmt()
    if bench.max_number == 1:
        return 1
    steps = (1, 2, 5)
    k = 0
    while True:
        number = steps[k % 3] * 10 ** (k // 3)
        if bench.max_number and number >= bench.max_number:
            return bench.max_number
        if _batch(stmt, number) >= min_time:
            return number
        k += 1


def short_error(e):
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    if len(first) > 300:
        first = first[:297] + "..."
    return "%s: %s" % (type(e).__name__, first) if first else type(e).__name__


class Worker:
    """Runs cases for one side, one step at a time, so that run.py can
    interleave the sides batch by batch:

        setup(name)  -> build the case, warm up, calibrate   ("ready" event)
        batch(name)  -> time one batch                       ("batch" event)
        end(name)    -> median of the batch means etc.       ("result" event)

    Every step returns an event dict; a failing step returns a "result" event
    with an "error" and forgets the case.
    """

    def __init__(self, lib, min_time):
        self.lib_name = lib
        self.min_time = min_time
        self.active = {}  # name -> [Case, Bench, number, [batch means s], t0]
        self.meta = {"event": "meta", "lib": lib, "python": sys.version.split()[0],
                     "executable": sys.executable, "platform": platform.platform(),
                     "pid": os.getpid()}
        t0 = time.perf_counter()
        try:
            self.L = Lib(lib)
            self.meta.update(version=self.L.version(), devices=self.L.devices(),
                             import_s=time.perf_counter() - t0)
            self.import_error = None
        except Exception as e:  # noqa: BLE001 - reported as every case's error
            self.L = None
            self.import_error = "import failed: " + short_error(e)
            self.meta.update(error=self.import_error)

    def _fail(self, name, e, msg=None):
        self.active.pop(name, None)
        rec = {"event": "result", "case": name,
               "error": msg or short_error(e)}
        if e is not None:
            rec["traceback"] = traceback.format_exc(limit=8)[-4000:]
        return rec

    def setup(self, name):
        c = CASES.get(name)
        if c is None:
            return self._fail(name, None, "unknown case")
        if self.L is None:
            return self._fail(name, None, self.import_error)
        if self.L.is_numpy and not c.has_numpy:
            return self._fail(name, None, "no numpy form")
        t0 = time.perf_counter()
        try:
            bench = c.fn(self.L)
            number = calibrate(bench, self.min_time)
        except Exception as e:  # noqa: BLE001
            return self._fail(name, e)
        self.active[name] = [c, bench, number, [], t0]
        return {"event": "ready", "case": name, "number": number}

    def batch(self, name):
        if name not in self.active:
            return self._fail(name, None, "batch before setup")
        c, bench, number, means, _ = self.active[name]
        gc.collect()
        try:
            t = _batch(bench.stmt, number)
        except Exception as e:  # noqa: BLE001
            return self._fail(name, e)
        means.append(t / number)
        return {"event": "batch", "case": name,
                "us": t / number * 1e6 / (bench.per or 1)}

    def end(self, name):
        if name not in self.active:
            return self._fail(name, None, "end before setup")
        c, bench, number, means, t0 = self.active.pop(name)
        if not means:
            return self._fail(name, None, "no batch was timed")
        per = bench.per or 1
        means_us = [m * 1e6 / per for m in means]
        rec = {"event": "result", "case": name, "unit": c.unit,
               "us": statistics.median(means_us), "min_us": min(means_us),
               "max_us": max(means_us), "batch_means_us": means_us,
               "number": number, "repeat": len(means_us),
               "case_s": time.perf_counter() - t0}
        rec.update(bench.extra)
        del bench
        gc.collect()
        return rec


# ---------------------------------------------------------------------------
# Script entry point
# ---------------------------------------------------------------------------


def emit(obj):
    sys.stdout.write(PREFIX + json.dumps(obj) + "\n")
    sys.stdout.flush()


def select(only=None, names=None, lib=None):
    out = []
    for c in CASES.values():
        if names is not None and c.name not in names:
            continue
        if only and not re.search(only, c.name):
            continue
        if lib == "numpy" and not c.has_numpy:
            continue
        out.append(c)
    return out


def serve(worker):
    """Answer one JSON command per stdin line: {"op": "setup"|"batch"|"end",
    "case": NAME} or {"op": "quit"}."""
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        try:
            cmd = json.loads(line)
        except ValueError:
            continue
        op = cmd.get("op")
        if op == "quit":
            return
        name = cmd.get("case")
        if op == "setup":
            emit({"event": "start", "case": name})
            emit(worker.setup(name))
        elif op == "batch":
            emit(worker.batch(name))
        elif op == "end":
            emit(worker.end(name))
        else:
            emit({"event": "error", "error": "unknown op %r" % op})


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", required=True, help="ember, jax or numpy")
    p.add_argument("--only", default=None, help="regex on case names")
    p.add_argument("--cases", default=None, help="comma-separated exact case names")
    p.add_argument("--repeat", type=int, default=7, help="timed batches per case")
    p.add_argument("--min-time", type=float, default=0.1,
                   help="seconds a batch should last at least")
    p.add_argument("--serve", action="store_true",
                   help="take setup/batch/end commands on stdin (used by run.py)")
    p.add_argument("--list", action="store_true", help="list cases and exit")
    args = p.parse_args(argv)
    faulthandler.enable()  # a crash leaves a Python traceback on stderr

    names = set(args.cases.split(",")) if args.cases else None
    cases = select(args.only, names, args.lib)
    if args.list:
        for c in cases:
            print("%-26s %s" % (c.name, c.desc))
        return 0

    worker = Worker(args.lib, args.min_time)
    emit(worker.meta)
    if args.serve:
        serve(worker)
        return 0
    for c in cases:
        emit({"event": "start", "case": c.name})
        ev = worker.setup(c.name)
        for _ in range(args.repeat):
            if ev["event"] == "result":
                break
            ev = worker.batch(c.name)
        if ev["event"] != "result":
            ev = worker.end(c.name)
        emit(ev)
    emit({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
