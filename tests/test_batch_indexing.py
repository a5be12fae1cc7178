"""Batching rules of gather, the scatter family, dynamic_slice and dynamic_update_slice, and the
jnp indexing built on them.

``vmap(f)`` is compared with a Python loop of ``f`` stacked along the output axis, eagerly and
under jit (``batch_checks.check_batch``), with the batch axis on the operand only, the indices
only, the updates only, and on several of them at once (first, in the middle, last, and on the
index vector's side of the indices). Index values run out of bounds on both sides, so every
mode (clip, fill/drop, promise_in_bounds) and the clamping of the dynamic slices is checked.
Then vmap of vmap, and per-example gradients (vmap of grad against a loop of grads), whose jvp
and transpose rules emit more gathers and scatters to batch. Most checks batch ``jit(f)``: the
rules run the same when vmap batches the jitted jaxpr, and one compilation replaces one per
primitive.
"""
import numpy as np
import pytest
from batch_checks import B, batched, check_batch, check_cases

import ember
import ember.numpy as jnp
from ember import lax

GD, SD = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


def indices(shape, axis, hi, seed=1):
  """int32 indices from -2 to ``hi`` + 1: some out of bounds on both sides."""
  return batched(shape, axis, np.int32, -2, hi + 2, seed)


# --- gather -----------------------------------------------------------------------------------

GATHER = {  # dimension numbers, slice sizes, one example's operand and indices shapes
    "rows": (GD((1,), (0,), (0,)), (1, 3), (5, 3), (4, 1)),
    "windows": (GD((1, 2), (), (0, 1)), (2, 3), (6, 5), (3, 2)),
    "offset_first": (GD((0,), (1,), (1,)), (4, 1), (4, 6), (2, 3, 1)),
    "batching_dims": (GD((2,), (1,), (1,), (0,), (0,)), (1, 1, 4), (3, 5, 4), (3, 2, 1)),
}
# operand only, indices only (on the index vectors' side), both, both elsewhere
GATHER_AXES = [(0, None), (None, -1), (1, 0), (-1, 1)]


GATHER_MODES = [{"mode": "clip"}, {"mode": "fill", "fill_value": -7},
                {"mode": "promise_in_bounds"}]


@pytest.mark.parametrize("name", sorted(GATHER))
def test_gather(name):
  """Each in_axes in one mode (the modes take turns: each is a gather compiled twice)."""
  dn, sizes, x_shape, i_shape = GATHER[name]
  check_cases([(lambda x, i, kw=GATHER_MODES[k % 3]: lax.gather(x, i, dn, sizes, **kw),
                [batched(x_shape, ax[0]), indices(i_shape, ax[1], max(x_shape))], ax)
               for k, ax in enumerate(GATHER_AXES)])


def test_gather_dtypes():
  dn, sizes, x_shape, i_shape = GATHER["windows"]
  f = lambda x, y, i: (lax.gather(x, i, dn, sizes, mode="fill", fill_value=1),
                       lax.gather(y, i, dn, sizes, mode="clip"))
  args = [batched(x_shape, 1, np.int32), batched(x_shape, 1, np.bool_), indices(i_shape, 0, 6)]
  check_batch(ember.jit(f), args, (1, 1, 0), jit=False)


def test_gather_eager():
  dn, sizes, x_shape, i_shape = GATHER["batching_dims"]
  args = [batched(x_shape, 2), indices(i_shape, 0, 5)]
  check_batch(lambda x, i: lax.gather(x, i, dn, sizes, mode="fill", fill_value=0.5), args,
              (2, 0))


def test_gather_flags():
  """Only batched indices can make two examples' windows collide."""
  dn, sizes, _, _ = GATHER["rows"]
  f = lambda x, i: lax.gather(x, i, dn, sizes, unique_indices=True, indices_are_sorted=True)
  x, i = np.zeros((B, 5, 3), np.float32), np.zeros((B, 2, 1), np.int32)
  assert "unique_indices=True" in str(ember.make_jaxpr(ember.vmap(f, (0, None)))(x, i[0]))
  assert "unique_indices=True" in str(ember.make_jaxpr(ember.vmap(f, (0, 0)))(x, i))
  assert "unique_indices=False" in str(ember.make_jaxpr(ember.vmap(f, (None, 0)))(x[0], i))


# --- scatter ----------------------------------------------------------------------------------

SCATTER = {  # dimension numbers, one example's operand, indices and updates shapes
    "rows": (SD((1,), (0,), (0,)), (5, 3), (4, 1), (4, 3)),
    "window_first": (SD((0,), (1,), (1,)), (4, 6), (2, 3, 1), (4, 2, 3)),
    "batching_dims": (SD((2,), (1,), (1,), (0,), (0,)), (3, 5, 4), (3, 2, 1), (3, 2, 4)),
    "points": (SD((), (0, 1), (0, 1)), (3, 5), (2, 2), (2,)),
}
# operand only, updates only, indices only (on the index vectors' side), all, two
SCATTER_AXES = [(0, None, None), (None, None, 1), (None, -1, None), (1, 0, -1), (-1, 1, None)]


def scatter_args(name, axes, dtype=np.float32):
  _, x_shape, i_shape, u_shape = SCATTER[name]
  return [batched(x_shape, axes[0], dtype), indices(i_shape, axes[1], max(x_shape)),
          batched(u_shape, axes[2], dtype, seed=2)]


@pytest.mark.parametrize("name", sorted(SCATTER))
def test_scatter_add(name):
  """Each in_axes in one mode, the modes taking turns."""
  dn = SCATTER[name][0]
  modes = ["clip", "drop", "promise_in_bounds"]
  check_cases([(lambda x, i, u, m=modes[k % 3]: lax.scatter_add(x, i, u, dn, mode=m),
                scatter_args(name, ax), ax) for k, ax in enumerate(SCATTER_AXES)])


def unique_rows(axis):
  """Per example, 4 distinct in-bounds row indices of a 5-row operand: scatter's winner among
  repeated indices is unspecified, so the plain scatter is checked without repeats."""
  rows = np.stack([np.random.RandomState(k).permutation(5)[:4] for k in range(B)])[..., None]
  return rows.astype(np.int32) if axis is None else np.moveaxis(rows.astype(np.int32), 0, axis)


SCATTER_OPS = {
    "scatter": lambda x, i, u, dn: lax.scatter(x, i, u, dn, mode="promise_in_bounds",
                                               unique_indices=True),
    "scatter_sub": lambda x, i, u, dn: lax.scatter_sub(x, i, u, dn),
    "scatter_mul": lambda x, i, u, dn: lax.scatter_mul(x, i, u, dn, mode="clip"),
    "scatter_min": lambda x, i, u, dn: lax.scatter_min(x, i, u, dn),
    "scatter_max": lambda x, i, u, dn: lax.scatter_max(x, i, u, dn, mode="clip"),
    "scatter_apply": lambda x, i, u, dn: lax.scatter_apply(x, i, lambda v: v * 2 + 1, dn,
                                                           update_shape=(4, 3)),
}


@pytest.mark.parametrize("op", sorted(SCATTER_OPS))
def test_scatter_ops(op):
  dn = SCATTER["rows"][0]
  cases = []
  for ax in [(1, -1, None), (None, 0, 0)]:
    x, _, u = scatter_args("rows", ax)
    cases.append((lambda x, i, u: SCATTER_OPS[op](x, i, u, dn), [x, unique_rows(ax[1]), u], ax))
  check_cases(cases)


def test_scatter_dtypes():
  dn = SCATTER["rows"][0]
  ints, bools = scatter_args("rows", (0, 1, 1), np.int32), scatter_args("rows", (0, 1, 1), bool)
  f = lambda x, u, y, v, i: (lax.scatter(x, i, u, dn, unique_indices=True),
                             lax.scatter_add(x, i, u, dn), lax.scatter_max(y, i, v, dn))
  check_batch(ember.jit(f), [ints[0], ints[2], bools[0], bools[2], unique_rows(1)],
              (0, 1, 0, 1, 1), jit=False)


def test_scatter_eager():
  dn = SCATTER["batching_dims"][0]
  check_batch(lambda x, i, u: lax.scatter_mul(x, i, u, dn, mode="clip"),
              scatter_args("batching_dims", (-1, 1, 0)), (-1, 1, 0))


# --- dynamic_slice and dynamic_update_slice ---------------------------------------------------

X_SHAPE = (4, 5)
START_I = np.array([-3, 1, 7], np.int32)  # per example: from the end, in bounds, clamped
START_J = np.array([9, -1, 2], np.int32)


def starts(axis, values):
  return values if axis is not None else values[1]


def dynamic_slice(x, i, j):
  return lax.dynamic_slice(x, (i, j), (2, 3))


def dynamic_update_slice(x, u, i, j):
  return lax.dynamic_update_slice(x, u, (i, j))


def test_dynamic_slice():
  axes = [(0, None, None), (1, None, None), (-1, 0, None), (None, 0, 0), (0, 0, 0),
          (None, None, 0)]
  check_cases([(dynamic_slice, [batched(X_SHAPE, ax[0]), starts(ax[1], START_I),
                                starts(ax[2], START_J)], ax) for ax in axes])


def test_dynamic_update_slice():
  axes = [(0, None, None, None), (None, 1, None, None), (1, -1, None, None),
          (None, None, 0, 0), (0, 0, 0, None), (-1, None, None, 0), (None, 1, 0, None)]
  check_cases([(dynamic_update_slice, [batched(X_SHAPE, ax[0]), batched((2, 3), ax[1], seed=3),
                                       starts(ax[2], START_I), starts(ax[3], START_J)], ax)
               for ax in axes])


def test_dynamic_slice_lowering_choice():
  """Unbatched start indices keep the dynamic ops; batched ones make a clamping gather or
  scatter."""
  x, u = batched(X_SHAPE, 0), batched((2, 3), 0)
  def jaxpr(f, axes, *args):
    return str(ember.make_jaxpr(ember.vmap(f, axes))(*args))
  only_operand = jaxpr(dynamic_slice, (0, None, None), x, 1, 2)
  assert "dynamic_slice" in only_operand and "gather" not in only_operand
  assert "scatter" not in jaxpr(dynamic_update_slice, (0, 0, None, None), x, u, 1, 2)
  indexed = jaxpr(dynamic_slice, (0, 0, None), x, START_I, 2)
  assert "gather" in indexed and "mode=GatherScatterMode.CLIP" in indexed
  indexed = jaxpr(dynamic_update_slice, (None, None, 0, None), x[0], u[0], START_I, 2)
  assert "scatter" in indexed and "mode=GatherScatterMode.CLIP" in indexed


def test_dynamic_slices_eager():
  x, u = batched(X_SHAPE, 1), batched((2, 3), None, seed=3)
  check_batch(dynamic_update_slice, [x, u, START_I, 2], (1, None, 0, None), jit=False)
  check_batch(dynamic_slice, [x, START_I, 2], (1, 0, None), jit=False)
  scalars = batched((), 0)  # no start indices at all
  check_batch(lambda x: lax.dynamic_slice(x, (), ()), [scalars], 0, jit=False)
  check_batch(lambda x, u: lax.dynamic_update_slice(x, u, ()), [scalars, scalars + 1], (0, 0),
              jit=False)


def test_errors_name_one_example():
  """Bad parameters are reported against one example's shapes, not the batched ones."""
  x, i = np.zeros((B, 5, 4), np.float32), np.zeros((B, 2, 1), np.int32)
  f = lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 9))
  with pytest.raises(TypeError, match=r"index 1 in gather op .* \[0, 4 \+ 1\), got 9"):
    ember.vmap(f)(x, i)
  g = lambda x: lax.dynamic_slice(x, (0, 0), (1, 9))
  with pytest.raises(TypeError, match=r"slice_sizes \(1, 9\) for operand shape \(5, 4\)"):
    ember.vmap(g)(x)


# --- jnp indexing -----------------------------------------------------------------------------

ROWS = np.array([[0, 3], [-1, 2], [2, 2]], np.int32)  # one pair of row indices per example
ALONG_1 = batched((4, 2), 0, np.int32, 0, 5, seed=5)  # in-bounds indices for take_along_axis
ALONG_0 = batched((3, 5), 0, np.int32, 0, 4, seed=6)
# f, one example's args (float data by shape, or index arrays stacked over examples), in_axes
READS = {
    "x[i]": (lambda x, i: x[i], [(4, 5), START_I], (1, 0)),
    "x[i] shared x": (lambda x, i: x[i], [(4, 5), START_I], (None, 0)),
    "x[:, i]": (lambda x, i: x[:, i], [(4, 5), START_J % 5], (-1, 0)),
    "x[rows, 1:]": (lambda x, i: x[i, 1:], [(4, 5), ROWS], (0, None)),
    "x[i, rows]": (lambda x, i, j: x[i, j], [(4, 5), START_I, ROWS], (None, 0, 0)),
    "at.get fill": (lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), [(4, 5), START_J],
                    (0, 0)),
    "dynamic_index_in_dim": (lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False),
                             [(4, 5), START_J], (0, 0)),
}
TAKES = {
    "take": (lambda x, i: jnp.take(x, i, axis=1), [(4, 5), ROWS], (0, 0)),
    "take clip": (lambda x, i: jnp.take(x, i, axis=0, mode="clip"), [(4, 5), ROWS * 3],
                  (-1, 0)),
    "take fill": (lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=0.0),
                  [(4, 5), ROWS * 3], (0, 0)),
    "take_along_axis": (lambda x, i: jnp.take_along_axis(x, i, axis=1), [(4, 5), ALONG_1],
                        (1, 0)),
    "take_along_axis shared": (lambda x, i: jnp.take_along_axis(x, i, axis=0), [(4, 5), ALONG_0],
                               (0, None)),
}
UPDATES = {
    "at.set": (lambda x, i, u: x.at[i].set(u), [(4, 5), START_I, (5,)], (0, 0, 0)),
    "at.add": (lambda x, i, u: x.at[i].add(u), [(4, 5), ROWS, (2, 5)], (None, 0, 1)),
    "at.mul": (lambda x, i, u: x.at[:, i].mul(u), [(4, 5), ROWS, ()], (1, None, None)),
    "at.min": (lambda x, i, u: x.at[i].min(u, mode="drop"), [(4, 5), ROWS, (5,)], (0, None, 0)),
    "at.max": (lambda x, i, u: x.at[i, 1].max(u), [(4, 5), START_I, ()], (None, 0, 0)),
    "dynamic_update_index_in_dim": (lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0),
                                    [(4, 5), (5,), START_I], (0, None, 0)),
}


def user_args(specs, axes):
  """Float data for each shape in ``specs``; each index array (stacked over the examples) with
  its batch axis moved to its in_axes, or its first example where it is not batched."""
  return [batched(spec, ax, seed=k) if isinstance(spec, tuple)
          else spec[0] if ax is None else np.moveaxis(spec, 0, ax)
          for k, (spec, ax) in enumerate(zip(specs, axes))]


@pytest.mark.parametrize("group", [READS, TAKES, UPDATES], ids=["reads", "takes", "updates"])
def test_jnp_indexing(group):
  check_cases([(f, user_args(specs, axes), axes) for f, specs, axes in group.values()])


# --- vmap of vmap -----------------------------------------------------------------------------

def nested(f, inner, outer):
  return ember.vmap(ember.vmap(f, in_axes=inner), in_axes=outer)


def test_nested():
  x = batched((4, 5, 6, 7), 0)             # per example: outer axis 1, inner axis 0 -> (6, 7)
  i = batched((4, 5), 0, np.int32, -2, 9, seed=1)
  u = batched((2, 2), None, seed=2)
  update = lambda x, i, u: x.at[i].add(u)
  check_cases([
      (nested(dynamic_slice, (0, 0, None), (1, 1, None)), [x, i, 2], (0, 0, None)),
      (nested(lambda x, i: x[i], (0, 0), (1, 1)), [x, i], (0, 0)),
      (nested(dynamic_update_slice, (0, None, 0, None), (1, None, 1, None)), [x, u, i, 1],
       (0, None, 0, None)),
      (nested(update, (None, 0, 0), (None, 1, 1)), [x[0, 0, 0], i, x[:, :, :, 0]],
       (None, 0, 0))])


# --- per-example gradients --------------------------------------------------------------------
# vmap(grad(f)) against a loop of grad(f): the jvp and transpose rules' gathers, scatters and
# dynamic slices get batched too.

W = np.linspace(-1, 1, 5).astype(np.float32)
GRAD_READS = {  # f, one example's args, in_axes, argnums
    "x[i]": (lambda x, i: jnp.sum(jnp.sin(x[i]) * W), [(4, 5), START_I], (0, 0), 0),
    "x[i] shared x": (lambda x, i: jnp.sum(jnp.sin(x[i]) * W), [(4, 5), START_I], (None, 0), 0),
    "dynamic_slice": (lambda x, i: jnp.sum(lax.dynamic_slice(x, (i, 1), (2, 3)) ** 2),
                      [(4, 5), START_I], (1, 0), 0),
    "dynamic_slice shared x": (lambda x, i: jnp.sum(lax.dynamic_slice(x, (1, i), (2, 3)) ** 2),
                               [(4, 5), START_J], (None, 0), 0),
    "take fill": (lambda x, i: jnp.sum(jnp.take(x, i, 1, mode="fill", fill_value=0.0) ** 2),
                  [(4, 5), ROWS * 3], (0, 0), 0),
    "take_along_axis": (lambda x, i: jnp.sum(jnp.take_along_axis(x, i, axis=1) ** 3),
                        [(4, 5), ALONG_1], (0, 0), 0),
}
GRAD_UPDATES = {
    "dynamic_update_slice": (
        lambda x, u, i: jnp.sum(jnp.cos(lax.dynamic_update_slice(x, u * u, (i, 1))) * x),
        [(4, 5), (2, 3), START_I], (0, None, 0), (0, 1)),
    "at.set": (lambda x, u, i: jnp.sum(x.at[i].set(u) ** 2), [(4, 5), (5,), START_I],
               (0, 0, 0), (0, 1)),
    "at.add": (lambda x, u, i: jnp.sum(jnp.sin(x.at[i].add(u))), [(4, 5), (2, 5), ROWS],
               (None, 0, 0), (0, 1)),
    "at.max": (lambda x, u, i: jnp.sum(x.at[i].max(u) ** 2), [(4, 5), (2, 5), ROWS],
               (0, 0, None), (0, 1)),
}


@pytest.mark.parametrize("group", [GRAD_READS, GRAD_UPDATES], ids=["reads", "updates"])
def test_per_example_grads(group):
  check_cases([(ember.grad(f, argnums), user_args(specs, axes), axes)
               for f, specs, axes, argnums in group.values()])


def test_vmap_of_jvp():
  def f(x, t, i):
    return ember.jvp(lambda y: lax.dynamic_slice(jnp.sin(y), (i, 0), (2, 5)), (x,), (t,))
  args = [batched((4, 5), 0), batched((4, 5), None, seed=1), START_I]
  check_batch(ember.jit(f), args, (0, None, 0), jit=False)


def test_grad_of_vmap():
  """The batched gather and scatter transpose back to clamping scatters and gathers."""
  def one(x, u, i, j):
    y = dynamic_update_slice(x, u * 2, i, j)
    return jnp.sum(dynamic_slice(y * y, i, j) ** 2) + jnp.sum(jnp.sin(y))

  def batched_loss(x, u):
    return jnp.sum(ember.vmap(one)(x, u, START_I, START_J))

  def loop_loss(x, u):
    return sum(one(x[k], u[k], START_I[k], START_J[k]) for k in range(B))
  args = [batched(X_SHAPE, 0), batched((2, 3), 0, seed=1)]
  got = ember.jit(ember.grad(batched_loss, (0, 1)))(*args)
  want = ember.jit(ember.grad(loop_loss, (0, 1)))(*args)
  for a, b in zip(got, want):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
