"""Traces written by a library, on JAX's extension API: a Trace/Tracer pair that records each
primitive and hands it to the trace below (bind_with_trace), driven through linear_util's
wrapped functions and api_util.flatten_fun as dm-haiku's to_dot is, at top level and under jit,
eval_shape, grad and vmap; jit_p met and re-run through jaxpr_as_fun; linear_util and api_util
on their own; the primitive objects of extend.core.primitives."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


def _recorder():
  """A recording trace as a library writes one; returns ``record(fun)``: a function returning
  ``(primitive names seen, outputs)``."""
  jax_core = submodule("extend.core")
  lu = submodule("extend.linear_util")
  api_util = submodule("api_util")

  class RecTracer(jax.core.Tracer):
    def __init__(self, trace, val):
      super().__init__(trace, jax.typeof(val))
      self.val = val

  class RecTrace(jax.core.Trace):
    def __init__(self, parent, tag, seen):
      super().__init__()
      self.parent, self.tag, self.seen = parent, tag, seen

    def to_val(self, x):
      return x.val if isinstance(x, RecTracer) and x._trace.tag is self.tag else x

    def process_primitive(self, primitive, tracers, params):
      vals = [self.to_val(t) for t in tracers]
      if primitive is jax_core.primitives.jit_p:
        self.seen.append(f"jit[{params['name']}](")
        fun = lu.wrap_init(jax_core.jaxpr_as_fun(params["jaxpr"]))
        with jax_core.set_current_trace(self.parent):
          outs = interpret(fun, self.tag, self.seen).call_wrapped(*vals)
        self.seen.append(")")
        return [RecTracer(self, v) for v in outs]
      self.seen.append(str(primitive))
      out = primitive.bind_with_trace(self.parent, vals, [jax.typeof(t) for t in tracers],
                                      params)
      if primitive.multiple_results:
        return [RecTracer(self, v) for v in out]
      return RecTracer(self, out)

  @lu.transformation
  def interpret(tag, seen, *in_vals):
    with jax_core.take_current_trace() as parent:
      trace = RecTrace(parent, tag, seen)
      with jax_core.set_current_trace(trace):
        outs = yield [RecTracer(trace, v) for v in in_vals], {}
        yield [trace.to_val(t) for t in outs]

  def record(fun):
    def run(*args):
      seen = []
      leaves, in_tree = jax.tree.flatten((args, {}))
      flat, out_tree = api_util.flatten_fun(lu.wrap_init(fun), in_tree)
      outs = interpret(flat, jax_core.TraceTag(), seen).call_wrapped(*leaves)
      return seen, jax.tree.unflatten(out_tree(), outs)
    return run

  return record


def _model(p, x):
  # lax functions only: JAX's jnp functions are jitted functions of their own, which a user trace
  # sees as jit_p equations, where ember's are not (docs/differences.md)
  h = lax.tanh(lax.add(lax.dot(x, p["w"]), lax.broadcast_in_dim(p["b"], (2, 2), (1,))))
  h = jax.jit(lambda y: lax.mul(y, 2.0))(h)
  return {"out": lax.reduce_sum(lax.integer_pow(h, 2), (0, 1)),
          "mean": lax.div(lax.reduce_sum(h, (0, 1)), 4.0)}


_P = {"w": np.arange(6.0, dtype=np.float32).reshape(3, 2) / 10, "b": np.ones(2, np.float32)}
_X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


@program
def recording_trace_at_top_level():
  return _recorder()(_model)(_P, _X)


@program
def recording_trace_under_jit_and_eval_shape():
  rec = _recorder()(_model)
  seen = []

  def traced(p, x):
    names, out = rec(p, x)
    seen.append(names)
    return out
  out = jax.jit(traced)(_P, _X)
  shapes = jax.eval_shape(traced, _P, _X)
  return seen, out, shapes


@program
def recording_trace_differentiated_and_batched():
  rec = _recorder()(lambda p, x: _model(p, x)["out"])
  grads = jax.grad(lambda p: rec(p, _X)[1])(_P)
  per_row = jax.vmap(lambda x: rec(_P, x[None])[1])(_X)
  return grads, per_row


@program
def recording_trace_around_vjp_and_vmap():
  def inner(p, x):
    def per_row(w, r):
      y, pull = jax.vjp(lambda w: lax.sin(lax.dot(r, w)), w)
      return y, pull(lax.cos(y))[0]
    return jax.vmap(per_row, (None, 0))(p["w"], x)
  return _recorder()(inner)(_P, _X)


@program
def linear_util_transformations():
  lu = submodule("extend.linear_util")

  @lu.transformation
  def scale_args(k, *args):
    out = yield tuple(k * a for a in args), {}
    yield out + 1

  @lu.transformation_with_aux
  def count_args(*args, **kwargs):
    out = yield args, kwargs
    yield out, len(args) + len(kwargs)

  @lu.transformation2
  def add_one(f, *args):
    return f(*args) + 1

  def add_two(f, *args):
    return f(*args) + 2

  base = lu.wrap_init(lambda x, y, *, z=0: x * y + z, {"z": 5})
  f, aux = count_args(scale_args(base, 2))
  g = add_one(base)
  h = lu.transformation2(add_two, base)()
  return (f.call_wrapped(3, 4), aux(), g.call_wrapped(1, 1), h.call_wrapped(1, 1), base.params,
          len(f.transforms), f.__name__)


@program
def linear_util_store_read_before_call():
  lu = submodule("extend.linear_util")

  @lu.transformation_with_aux
  def aux_of(*args):
    out = yield args, {}
    yield out, "aux"
  _, aux = aux_of(lu.wrap_init(lambda: 1))
  return aux()


@program
def api_util_helpers():
  api_util = submodule("api_util")
  lu = submodule("extend.linear_util")
  f, dyn = api_util.argnums_partial(lu.wrap_init(lambda a, b, c: a * 100 + b * 10 + c), (0, 2),
                                    (1, 2, 3))
  leaves, in_tree = jax.tree.flatten(((np.ones(2), {"u": 1.0, "v": (2.0, 3.0)}), {"k": 4.0}))
  flat, out_tree = api_util.flatten_fun(
      lu.wrap_init(lambda a, d, k: [a.sum() + d["u"], d["v"][1] * k]), in_tree)
  return (dyn, f.call_wrapped(*dyn), flat.call_wrapped(*leaves), out_tree().num_leaves,
          api_util.donation_vector((1,), ("k",), in_tree),
          api_util.rebase_donate_argnums((3, 4), (0, 1)),
          api_util.flatten_axes("vmap in_axes", jax.tree.structure(({"a": 1, "b": 2}, 3)),
                                ({"a": 0, "b": None}, 1)),
          str(api_util.shaped_abstractify(np.ones((2, 3), np.int32))))


@program
def primitive_objects_match_jaxpr_equations():
  prims = submodule("extend.core.primitives")

  def f(x, i):
    y = jnp.sin(x) * 2.0 + jnp.exp(x) - x / 3.0
    y = lax.cond(i > 0, jnp.cos, jnp.tanh, y)
    y = lax.fori_loop(0, i, lambda _, c: c * 0.5, y)
    z = lax.scan(lambda c, r: (c + r, c), 0.0, y)[0]
    return jax.jit(jnp.dot)(y, y) + z + y.sum() + y[i] + x.reshape(2, 2).T.max()

  jaxpr = jax.make_jaxpr(f)(jnp.ones(4), 1).jaxpr
  names = ["sin_p", "mul_p", "add_p", "exp_p", "sub_p", "div_p", "cond_p", "while_p", "scan_p",
           "jit_p", "reduce_sum_p", "reduce_max_p", "transpose_p", "reshape_p", "gt_p",
           "dynamic_slice_p", "squeeze_p", "lt_p", "select_n_p", "convert_element_type_p"]
  found = {n: any(e.primitive is getattr(prims, n) for e in jaxpr.eqns) for n in names}
  return found, [str(getattr(prims, n)) for n in names]
