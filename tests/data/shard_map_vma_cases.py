"""shard_map programs whose printed jaxprs, values and errors tests/test_shard_map_vma.py compares
with JAX 0.10.2's (typing by varying mesh axes, check_vma, gradients inside and outside bodies).

Each case is a function of a namespace holding ``jax``, ``jnp``, ``lax``, ``P`` and two meshes
(``m4``: 4 devices, axis 'i'; ``m42``: 4x2, axes 'x', 'y'; Auto axes), returning a printed jaxpr
(str), arrays, or raising. ``record`` turns what it gives into a JSON-able record.

The framework is named on the command line, so this file imports no array library itself; the
goldens (tests/data/shard_map_vma_goldens.json) were written by running it with JAX 0.10.2's
Python, in its own process (never from the test suite):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python \\
        tests/data/shard_map_vma_cases.py jax tests/data/shard_map_vma_goldens.json
"""
import re

import numpy as np

CASES = {}


def case(fn):
  CASES[fn.__name__] = fn
  return fn


def _jaxpr(ns, body, in_specs, out_specs, *args, mesh=None, check_vma=True):
  f = ns.jax.shard_map(body, mesh=mesh or ns.m4, in_specs=in_specs, out_specs=out_specs,
                       check_vma=check_vma)
  return str(ns.jax.make_jaxpr(ns.jax.jit(f))(*args))


def _run(ns, body, in_specs, out_specs, *args, mesh=None, check_vma=True):
  f = ns.jax.shard_map(body, mesh=mesh or ns.m4, in_specs=in_specs, out_specs=out_specs,
                       check_vma=check_vma)
  return ns.jax.jit(f)(*args)


X = np.arange(8.0, dtype=np.float32)
X16 = np.arange(16.0, dtype=np.float32)
W = np.array([1.0, 2.0], np.float32)
LIN = np.linspace(-1, 1, 8).astype(np.float32)


# --- printed bodies -----------------------------------------------------------------------------

@case
def psum_of_varying(ns):
  return _jaxpr(ns, lambda b: ns.lax.psum(b, "i"), ns.P("i"), ns.P(), X)


@case
def psum_of_invariant_is_pvary_then_psum(ns):
  return _jaxpr(ns, lambda b: ns.lax.psum(b, "i"), ns.P(), ns.P(), X)


@case
def pmean(ns):
  return _jaxpr(ns, lambda b: ns.lax.pmean(b, "i"), ns.P("i"), ns.P(), X)


@case
def pmax_of_invariant(ns):
  return _jaxpr(ns, lambda b: ns.lax.pmax(b, "i"), ns.P(), ns.P(), X)


@case
def all_gather_varies(ns):
  return _jaxpr(ns, lambda b: ns.lax.all_gather(b, "i"), ns.P("i"), ns.P("i"), X)


@case
def all_gather_of_invariant(ns):
  return _jaxpr(ns, lambda b: ns.lax.all_gather(b, "i", tiled=True), ns.P(), ns.P("i"), X)


@case
def all_gather_to_invarying(ns):
  return _jaxpr(ns, lambda b: ns.lax.all_gather(b, "i", tiled=True, to="invarying"), ns.P("i"),
                ns.P(), X)


@case
def ppermute(ns):
  return _jaxpr(ns, lambda b: ns.lax.ppermute(b, "i", [(k, (k + 1) % 4) for k in range(4)]),
                ns.P("i"), ns.P("i"), X)


@case
def axis_index_varies(ns):
  return _jaxpr(ns, lambda b: b * ns.lax.axis_index("i"), ns.P("i"), ns.P("i"), X)


@case
def binop_sharded_and_replicated(ns):
  return _jaxpr(ns, lambda a, b: a + b, (ns.P("i"), ns.P()), ns.P("i"), X, W)


@case
def binop_with_literal(ns):
  return _jaxpr(ns, lambda a, b: a * b + 1.0, (ns.P(), ns.P("i")), ns.P("i"), W, X)


@case
def dot_and_concatenate(ns):
  return _jaxpr(ns, lambda a, b, c: ns.jnp.concatenate([a @ b, c[:, None]], axis=1),
                (ns.P("i"), ns.P(), ns.P("i")), ns.P("i"), np.ones((8, 3), np.float32),
                np.ones((3, 2), np.float32), X)


@case
def cond_in_body(ns):
  return _jaxpr(ns, lambda b: ns.lax.cond(b.sum() > 3, lambda v: v * 2, lambda v: v + 1.0, b),
                ns.P("i"), ns.P("i"), X)


@case
def cond_varying_predicate_invariant_operands(ns):
  return _jaxpr(ns, lambda w, b: ns.lax.cond(b.sum() > 3, lambda v: v * 2, lambda v: v + 1.0, w),
                (ns.P(), ns.P("i")), ns.P("i"), W, X)


@case
def while_in_body(ns):
  return _jaxpr(ns, lambda b: ns.lax.while_loop(lambda c: c[0] < 3,
                                                lambda c: (c[0] + 1, c[1] * 2), (0, b))[1],
                ns.P("i"), ns.P("i"), X)


@case
def scan_with_varying_carry(ns):
  def body(b):
    init = ns.lax.pcast(ns.jnp.zeros(2), "i", to="varying")
    return ns.lax.scan(lambda c, r: (c + r, c * 2), init, b)
  return _jaxpr(ns, body, ns.P("i"), (ns.P("i"), ns.P("i")), X)


@case
def psum_scatter_and_all_to_all(ns):
  def body(b):
    return ns.lax.all_to_all(ns.lax.psum_scatter(b, "i", tiled=True), "i", 0, 0, tiled=True)
  return _jaxpr(ns, body, ns.P(), ns.P("i"), X16)


@case
def pcast_to_varying(ns):
  return _jaxpr(ns, lambda b: ns.lax.pcast(b, "i", to="varying"), ns.P(), ns.P("i"), X)


@case
def two_axes_psum_one(ns):
  return _jaxpr(ns, lambda b: ns.lax.psum(b, "y"), ns.P("x", "y"), ns.P("x"),
                np.ones((8, 4), np.float32), mesh=ns.m42)


@case
def two_axes_psum_both_of_invariant(ns):
  return _jaxpr(ns, lambda b: ns.lax.psum(b, ("x", "y")), ns.P(), ns.P(),
                np.ones((8, 4), np.float32), mesh=ns.m42)


@case
def two_axes_axis_indices(ns):
  return _jaxpr(ns, lambda b: b + ns.lax.axis_index("y") + ns.lax.axis_index("x"), ns.P(),
                ns.P("x", "y"), np.ones((8, 4), np.float32), mesh=ns.m42)


@case
def jit_inside_body(ns):
  return _jaxpr(ns, lambda a, b: ns.jax.jit(lambda u, v: u * v)(a, b), (ns.P("i"), ns.P()),
                ns.P("i"), X, W)


@case
def unchecked_body_has_no_types(ns):
  return _jaxpr(ns, lambda a, b: ns.lax.psum(a + b, "i"), (ns.P("i"), ns.P()), ns.P(), X, W,
                check_vma=False)


# --- values -----------------------------------------------------------------------------------

def _loss(ns, w, x):
  return ns.jnp.sum((x * w) ** 2)


@case
def grad_in_body_of_replicated_param_is_the_full_gradient(ns):
  def body(w, x):
    g = ns.jax.grad(lambda w: _loss(ns, w, x))(w)
    return g, ns.lax.pmean(g, "i"), ns.lax.psum(g, "i")
  return _run(ns, body, (ns.P(), ns.P("i")), ns.P(), W, X.reshape(4, 2))


@case
def grad_outside_of_shard_mapped_loss(ns):
  f = ns.jax.shard_map(lambda w, x: ns.lax.psum(_loss(ns, w, x), "i"), mesh=ns.m4,
                       in_specs=(ns.P(), ns.P("i")), out_specs=ns.P())
  return ns.jax.grad(f, argnums=(0, 1))(W, X.reshape(4, 2))


@case
def typeof_inside_body(ns):
  seen = []

  def body(w, x):
    g = ns.jax.grad(lambda w: _loss(ns, w, x))(w)
    for v in (w, x, g, x * 2):
      t = ns.jax.typeof(v)
      seen.append([repr(t), str(t), sorted(t.mat.varying)])
    return g
  _run(ns, body, (ns.P(), ns.P("i")), ns.P(), W, X.reshape(4, 2))
  return seen


def _grad_check(ns, body, in_spec, out_spec, check_vma):
  f = ns.jax.shard_map(body, mesh=ns.m4, in_specs=in_spec, out_specs=out_spec,
                       check_vma=check_vma)
  val = f(LIN)
  w = np.cos(np.arange(np.size(val))).reshape(np.shape(val)).astype(np.float32)
  return val, ns.jax.jit(ns.jax.grad(lambda x: (f(x) * w).sum()))(LIN)


GRAD_BODIES = {
    "psum_times_block": (lambda ns: lambda b: ns.lax.psum(b, "i") * b, "i", "i"),
    "all_gather_invarying": (lambda ns: lambda b: ns.lax.all_gather(b, "i", tiled=True,
                                                                    to="invarying") * 2, "i", ""),
    "ppermute": (lambda ns: lambda b: ns.lax.ppermute(ns.jnp.sin(b), "i",
                                                      [(k, (k + 1) % 4) for k in range(4)]),
                 "i", "i"),
    "replicated_in_varying_out": (lambda ns: lambda b: ns.jnp.tanh(b) * ns.lax.axis_index("i"),
                                  "", "i"),
    "psum_scatter_of_replicated": (lambda ns: lambda b: ns.lax.psum_scatter(b * b, "i",
                                                                            tiled=True), "", "i"),
    "pmean_of_replicated": (lambda ns: lambda b: ns.lax.pmean(b * b, "i"), "", ""),
    "replicated_out_over_i": (lambda ns: lambda b: ns.jnp.sin(b), "", "i"),
    "scan_with_varying_carry": (lambda ns: lambda b: ns.lax.scan(
        lambda c, r: (c * r, c), ns.lax.pcast(ns.jnp.ones(()), "i", to="varying"), b)[1],
        "i", "i"),
    "cond": (lambda ns: lambda b: ns.lax.cond(b.sum() > 0, lambda v: ns.jnp.sin(v),
                                              lambda v: v * 3, b), "i", "i"),
}


def _grad_case(name, check_vma):
  def fn(ns):
    make, i, o = GRAD_BODIES[name]
    spec = lambda a: ns.P(a) if a else ns.P()  # noqa: E731
    return _grad_check(ns, make(ns), spec(i), spec(o), check_vma)
  fn.__name__ = f"grad_{name}_{'checked' if check_vma else 'unchecked'}"
  return case(fn)


for _name in GRAD_BODIES:
  for _check in (True, False):
    _grad_case(_name, _check)


@case
def compositions(ns):
  jax, jnp, lax, P = ns.jax, ns.jnp, ns.lax, ns.P
  sm = lambda body, i, o: jax.shard_map(body, mesh=ns.m4, in_specs=i, out_specs=o)  # noqa: E731
  w = np.array([0.5, -1.5], np.float32)
  f = sm(lambda w, b: lax.psum(jnp.sin(w * b).sum(), "i"), (P(), P("i")), P())

  @jax.custom_jvp
  def cj(a):
    return jnp.sin(a)
  cj.defjvp(lambda p, t: (cj(p[0]), 2 * t[0]))
  ones2, ones8 = np.ones(2, np.float32), np.ones(8, np.float32)
  return {
      "jit_grad": jax.jit(jax.grad(f, argnums=(0, 1)))(w, LIN),
      "vmap": jax.vmap(f, in_axes=(0, None))(np.stack([w, w * 2]), LIN),
      "jvp": jax.jvp(f, (w, LIN), (ones2, ones8)),
      "vmap_of_grad": jax.vmap(jax.grad(f), in_axes=(0, None))(np.stack([w, w * 2]), LIN),
      "grad_of_grad": jax.grad(lambda w: jax.grad(f)(w, LIN).sum())(w),
      "linearize": jax.linearize(lambda w: f(w, LIN), w)[1](ones2),
      "checkpoint_in_body": sm(lambda w, b: jax.grad(jax.checkpoint(
          lambda w: jnp.sin(w * b).sum()))(w), (P(), P("i")), P())(w, LIN),
      "custom_jvp_in_body": sm(lambda w, b: jax.grad(lambda w: (cj(w) * b).sum())(w),
                               (P(), P("i")), P())(w, LIN),
      "scan_grad_in_body": sm(lambda w, b: jax.grad(lambda w: lax.scan(
          lambda c, r: (c * jnp.cos(r * w[0]), None), lax.pcast(1.0, "i", to="varying"),
          b)[0])(w), (P(), P("i")), P())(w, LIN),
      "vmap_in_body": sm(lambda w, b: jax.vmap(lambda r: lax.psum(r * w, "i"))(
          b.reshape(2, 1)), (P(), P("i")), P())(w, LIN),
      "psum_in_grad_in_body": sm(lambda w, b: jax.grad(
          lambda w: lax.psum(jnp.sin(w * b).sum(), "i"))(w), (P(), P("i")), P())(w, LIN),
      "pmax_pmin": sm(lambda b: lax.pmax(b, "i") + lax.pmin(b, "i"), P("i"), P())(LIN),
      "unchecked_replicated_out_is_device_0s": jax.shard_map(
          lambda b: b, mesh=ns.m4, in_specs=P("i"), out_specs=P(), check_vma=False)(X),
      "unchecked_psum_of_replicated": jax.shard_map(
          lambda b: lax.psum(b, "i"), mesh=ns.m4, in_specs=P(), out_specs=P(),
          check_vma=False)(X),
  }


@case
def more_compositions(ns):
  jax, jnp, lax, P = ns.jax, ns.jnp, ns.lax, ns.P
  sm = lambda body, i, o: jax.shard_map(body, mesh=ns.m4, in_specs=i, out_specs=o)  # noqa: E731
  w = np.array([0.5, -1.5], np.float32)
  f = sm(lambda w, b: lax.psum(jnp.sin(w * b).sum(), "i"), (P(), P("i")), P())
  return {
      "grad_of_checkpoint": jax.grad(lambda w: jax.checkpoint(f)(w, LIN))(w),
      "fori_loop_in_body": sm(lambda w, b: lax.fori_loop(0, 3, lambda i, c: c * w, b),
                              (P(), P("i")), P("i"))(w, LIN),
      "switch_in_body": sm(lambda b: lax.switch(1, [lambda v: v, lambda v: v * 2, lambda v: -v],
                                                b), P("i"), P("i"))(LIN),
      "where_with_scalar": sm(lambda b: jnp.where(b > 0, b, 0.0), P("i"), P("i"))(LIN),
      "grad_of_sharded_input": jax.grad(lambda x: sm(lambda b: lax.psum((b ** 2).sum(), "i"),
                                                     P("i"), P())(x))(LIN),
      "jacrev_in_body": sm(lambda w, b: jax.jacrev(lambda w: jnp.sin(w * b))(w), (P(), P("i")),
                           P("i"))(w, LIN),
      "vjp_in_body": sm(lambda w, b: jax.vjp(lambda w: jnp.sin(w * b), w)[1](b)[0],
                        (P(), P("i")), P())(w, LIN),
  }


# --- errors -----------------------------------------------------------------------------------

@case
def error_custom_vjp_bwd_varies_more_than_its_input(ns):
  jax, jnp, lax, P = ns.jax, ns.jnp, ns.lax, ns.P

  @jax.custom_vjp
  def cv(a, b):
    return jnp.sin(a) * b
  cv.defvjp(lambda a, b: (cv(a, b), (a, b)), lambda r, g: (3 * g * r[1], g * r[0]))
  return jax.shard_map(lambda w, b: jax.grad(lambda w: cv(w, b).sum())(w), mesh=ns.m4,
                       in_specs=(P(), P("i")), out_specs=P())(W, LIN)


@case
def error_fori_loop_carry_becomes_varying(ns):
  return _run(ns, lambda w, b: ns.lax.fori_loop(0, 3, lambda i, c: c * b, w),
              (ns.P(), ns.P("i")), ns.P("i"), W, LIN)


@case
def error_out_specs_replicated_over_varying(ns):
  return _run(ns, lambda b: b * 2, ns.P("i"), ns.P(), X)


@case
def error_out_specs_several_unmentioned_axes(ns):
  return _run(ns, lambda a, b: (a * ns.lax.axis_index("x"), b + 1), (ns.P(), ns.P("x", "y")),
              (ns.P(), ns.P("x")), np.ones((8, 4), np.float32), np.ones((8, 4), np.float32),
              mesh=ns.m42)


@case
def error_out_specs_in_a_dict(ns):
  return _run(ns, lambda b: {"a": b, "c": ns.lax.psum(b, "i"), "d": b}, ns.P("i"),
              {"a": ns.P(), "c": ns.P(), "d": ns.P("i")}, X)


@case
def error_all_gather_is_still_varying(ns):
  return _run(ns, lambda b: ns.lax.all_gather(b, "i", tiled=True), ns.P("i"), ns.P(), X)


@case
def error_cond_branch_with_axis_index(ns):  # issue 20: a varying branch output under P()
  return _run(ns, lambda b: ns.lax.cond(True, lambda v: v * ns.lax.axis_index("i"),
                                        lambda v: v, b), ns.P(), ns.P(), W)


@case
def error_cond_both_branches_varying_under_replicated_out(ns):
  return _run(ns, lambda b: ns.lax.cond(True, lambda v: v * ns.lax.axis_index("i"),
                                        lambda v: v + ns.lax.axis_index("i"), b),
              ns.P(), ns.P(), W)


@case
def error_scan_carry_becomes_varying(ns):
  return _run(ns, lambda b: ns.lax.scan(lambda c, r: (c + r, c * 2), 0.0, b), ns.P("i"),
              (ns.P("i"), ns.P("i")), X)


@case
def error_while_carry_becomes_varying(ns):
  return _run(ns, lambda b: ns.lax.while_loop(lambda c: c[0] < 3,
                                              lambda c: (c[0] + 1, c[1] + b),
                                              (0, ns.jnp.zeros(2)))[1],
              ns.P("i"), ns.P("i"), X)


@case
def error_psum_over_varying_and_positional_axes(ns):
  return _run(ns, lambda b: ns.lax.psum(b, ("i", 0)), ns.P("i"), ns.P(), X)


@case
def error_pcast_of_varying(ns):
  return _run(ns, lambda b: ns.lax.pcast(b, "i", to="varying"), ns.P("i"), ns.P("i"), X)


@case
def error_pcast_unknown_target(ns):
  return _run(ns, lambda b: ns.lax.pcast(b, "i", to="foo"), ns.P(), ns.P(), X)


@case
def error_pcast_set_of_names(ns):
  return _run(ns, lambda b: ns.lax.pcast(b, {"i"}, to="varying"), ns.P(), ns.P(), X)


@case
def error_pcast_outside_shard_map(ns):
  return ns.lax.pcast(ns.jnp.ones(2), "i", to="varying")


@case
def error_all_gather_unknown_target(ns):
  return _run(ns, lambda b: ns.lax.all_gather(b, "i", to="foo"), ns.P(), ns.P(), X)


@case
def error_out_spec_longer_than_rank(ns):
  return _run(ns, lambda b: {"a": b.sum(), "c": b[None]}, ns.P("i"),
              {"a": ns.P("i"), "c": ns.P(None, None, "i")}, X)


@case
def error_lax_pvary_is_gone(ns):
  return ns.lax.pvary


# --- records ----------------------------------------------------------------------------------

def _value(x):
  if isinstance(x, dict):
    return {k: _value(v) for k, v in sorted(x.items())}
  if isinstance(x, (tuple, list)):
    return [_value(v) for v in x]
  if isinstance(x, str):
    return x
  return np.asarray(x).tolist()


def record(ns, name: str) -> dict:
  """What case ``name`` gives: {"jaxpr": text}, {"value": nested lists} or {"error": [type,
  message]} (file paths in messages replaced by FILE)."""
  try:
    out = CASES[name](ns)
  except Exception as e:  # noqa: BLE001 (errors are records too)
    return {"error": [type(e).__name__, re.sub(r"at \S+:\d+", "at FILE", str(e))]}
  if isinstance(out, str):
    return {"jaxpr": out}
  return {"value": _value(out)}


def namespace(jax, jnp, lax, P):
  """The namespace the cases read: the framework and two meshes of CPU devices."""
  class NS:
    pass
  ns = NS()
  ns.jax, ns.jnp, ns.lax, ns.P = jax, jnp, lax, P
  auto = jax.sharding.AxisType.Auto
  ns.m4 = jax.make_mesh((4,), ("i",), devices=jax.devices()[:4], axis_types=(auto,))
  ns.m42 = jax.make_mesh((4, 2), ("x", "y"), axis_types=(auto, auto))
  return ns


if __name__ == "__main__":
  import importlib
  import json
  import sys
  name, path = sys.argv[1:3]  # the framework ("jax" for the goldens) and the JSON to write
  fw = importlib.import_module(name)
  _ns = namespace(fw, importlib.import_module(name + ".numpy"),
                  importlib.import_module(name + ".lax"),
                  importlib.import_module(name + ".sharding").PartitionSpec)
  with open(path, "w") as f:
    json.dump({"version": fw.__version__, "cases": {c: record(_ns, c) for c in CASES}}, f,
              indent=1)
    f.write("\n")
