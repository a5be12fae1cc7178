"""jvp and transpose rules of the structural and indexing primitives.

Every rule is checked in float64: jvp against central finite differences, and the transpose
(through ``ember.vjp``) against the jvp with the inner-product identity
``<ct, jvp(t)> == <vjp(ct), t>``. Edge cases (ties of scatter-max, out-of-bounds windows, the
unsupported cases) are compared with the values JAX gives.
"""
import numpy as np
import pytest

import ember
import ad_checks
from ember import lax
from ember.core.aval import ShapedArray
from ember.primitives import structural as st
from ember.transforms.ad_util import Zero, UndefinedPrimal

pytestmark = pytest.mark.usefixtures("x64")

RNG = np.random.RandomState(0)


def _rand(shape):
  return RNG.randn(*shape)


def check_jvp(f, args, rtol=1e-6, atol=1e-8):
  ad_checks.check_jvp(f, [np.asarray(a, np.float64) for a in args], RNG, rtol, atol)


def check_vjp(f, args):
  ad_checks.check_vjp(f, [np.asarray(a, np.float64) for a in args], RNG)


def check(f, *shapes):
  args = [_rand(s) for s in shapes]
  check_jvp(f, args)
  check_vjp(f, args)


# --- structural primitives --------------------------------------------------------------------

STRUCTURAL = {
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), [(3, 1)]),
    "broadcast_scalar": (lambda x: lax.broadcast_in_dim(x, (2, 3), ()), [()]),
    "broadcast_keep_unit": (lambda x: lax.broadcast_in_dim(x, (1, 3, 2), (0, 1)), [(1, 3)]),
    "reshape": (lambda x: lax.reshape(x, (3, 2)), [(2, 3)]),
    "reshape_dimensions": (lambda x: lax.reshape(x, (2, 12), (2, 0, 1)), [(2, 3, 4)]),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), [(1, 3, 1)]),
    "expand_dims": (lambda x: lax.expand_dims(x, (0, 2)), [(3,)]),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), [(2, 3, 4)]),
    "rev": (lambda x: lax.rev(x, (0, 2)), [(2, 3, 4)]),
    "slice": (lambda x: lax.slice(x, (1, 0), (3, 2)), [(4, 3)]),
    "slice_strided": (lambda x: lax.slice(x, (1, 0), (6, 3), (2, 2)), [(7, 3)]),
    "slice_empty": (lambda x: lax.slice(x, (1, 0), (1, 3), (2, 2)), [(4, 3)]),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), [(4, 5)]),
    "dynamic_slice_clamped": (lambda x: lax.dynamic_slice(x, (3, -1), (2, 2)), [(4, 5)]),
    "dynamic_update_slice": (lambda x, u: lax.dynamic_update_slice(x, u, (1, 2)),
                             [(4, 5), (2, 2)]),
    "dynamic_update_slice_clamped": (lambda x, u: lax.dynamic_update_slice(x, u, (3, 9)),
                                     [(4, 5), (2, 2)]),
    "concatenate": (lambda x, y: lax.concatenate([x, y, x], 1), [(2, 3), (2, 1)]),
    "concatenate_constant": (lambda x: lax.concatenate([np.ones((1, 2)), x], 0), [(3, 2)]),
    "pad": (lambda x, p: lax.pad(x, p, [(1, 2, 1), (0, -1, 0)]), [(3, 2), ()]),
    "pad_negative_interior": (lambda x, p: lax.pad(x, p, [(-1, 2, 2), (1, -1, 0)]),
                              [(3, 2), ()]),
    "pad_constant_value": (lambda x: lax.pad(x, 3.0, [(2, 0, 1)]), [(3,)]),
    "pad_only_value": (lambda p: lax.pad(np.ones((2, 2)), p, [(1, 1, 1), (0, 1, 0)]), [()]),
    "pad_empty_operand": (lambda x, p: lax.pad(x, p, [(1, 2, 3)]), [(0,), ()]),
    "iota_operand": (lambda x: lax.concatenate([x, lax.iota(np.float64, 2)], 0), [(3,)]),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_structural(name):
  f, shapes = STRUCTURAL[name]
  check(f, *shapes)


def test_structural_under_jit():
  f = lambda x, u: lax.pad(lax.dynamic_update_slice(x, u, (1, 0)), 0.5, [(1, 0, 1), (0, 0, 0)])
  check(ember.jit(f), (3, 2), (1, 2))


def test_float32_tangent_dtypes():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  y, ty = ember.jvp(lambda x: lax.slice(lax.transpose(x, (1, 0)), (0, 0), (2, 2)), (x,), (x,))
  assert ty.dtype == np.float32
  np.testing.assert_array_equal(ty, x.T[:2, :2])
  y, pullback = ember.vjp(lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), x)
  (ct,) = pullback(np.ones((4, 2, 3), np.float32))
  assert ct.dtype == np.float32
  np.testing.assert_array_equal(ct, np.full((2, 3), 4, np.float32))


def test_known_values():
  # vjp of a strided slice scatters the cotangent back with zeros between
  _, pullback = ember.vjp(lambda x: lax.slice(x, (1,), (6,), (2,)), np.zeros(7))
  np.testing.assert_array_equal(pullback(np.array([1., 2., 3.]))[0],
                                [0, 1, 0, 2, 0, 3, 0])
  # pad: the padding value's cotangent is the sum of the padded positions' cotangents
  _, pullback = ember.vjp(lambda x, p: lax.pad(x, p, [(1, 1, 1)]), np.zeros(2), 0.0)
  ct_x, ct_p = pullback(np.array([1., 2., 4., 8., 16.]))
  np.testing.assert_array_equal(ct_x, [2, 8])
  assert float(ct_p) == 1 + 4 + 16
  # dynamic_update_slice: the overwritten window gets no operand cotangent
  _, pullback = ember.vjp(lambda x, u: lax.dynamic_update_slice(x, u, (1,)), np.zeros(4),
                          np.zeros(2))
  ct_x, ct_u = pullback(np.array([1., 2., 3., 4.]))
  np.testing.assert_array_equal(ct_x, [1, 0, 0, 4])
  np.testing.assert_array_equal(ct_u, [2, 3])


def test_index_arguments_have_no_tangent():
  x = np.arange(5.0)
  f = lambda x, i: lax.dynamic_slice(x, (i,), (2,))
  y, ty = ember.jvp(f, (x, np.int32(1)), (np.ones(5), np.zeros((), ember.dtypes.float0)))
  np.testing.assert_array_equal(y, [1, 2])
  np.testing.assert_array_equal(ty, [1, 1])
  ct_x, ct_i = ember.vjp(f, x, np.int32(1))[1](np.array([1.0, 2.0]))
  np.testing.assert_array_equal(ct_x, [0, 1, 2, 0, 0])
  assert ct_i.dtype == ember.dtypes.float0


def test_iota_jvp_rule_gives_zero():
  params = dict(dtype=np.dtype(np.float32), shape=(3,), dimension=0, sharding=None)
  out, tangent = st.iota_p.rule("jvp")((), (), **params)
  np.testing.assert_array_equal(out, [0, 1, 2])
  assert type(tangent) is Zero and tangent.aval.shape == (3,)


def test_transpose_rules_pass_symbolic_zeros():
  aval = ShapedArray((2, 3), np.dtype(np.float64))
  ct = Zero(ShapedArray((3, 2), np.dtype(np.float64)))
  (out,) = st.transpose_p.rule("transpose")(ct, UndefinedPrimal(aval), permutation=(1, 0))
  assert type(out) is Zero and out.aval == aval
  outs = st.pad_p.rule("transpose")(Zero(ShapedArray((4, 3), np.dtype(np.float64))),
                                    UndefinedPrimal(aval), np.float64(0),
                                    padding_config=((1, 1, 0), (0, 0, 0)))
  assert type(outs[0]) is Zero and outs[1] is None


def test_linear_transpose_of_structural():
  f = lambda x: lax.rev(lax.reshape(lax.pad(x, 0.0, [(1, 0, 0), (0, 1, 1)]), (24,)), (0,))
  x = _rand((3, 3))
  f_t = ember.linear_transpose(f, x)
  ct = _rand((24,))
  (ct_x,) = f_t(ct)
  np.testing.assert_allclose(np.vdot(ct, np.asarray(f(x))), np.vdot(np.asarray(ct_x), x),
                             rtol=1e-12)


# --- gather -----------------------------------------------------------------------------------

GDN = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                 start_index_map=(0,))
SDN = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
IDX = np.array([[1], [3], [1], [7]], np.int32)     # a repeat and an out-of-bounds index
UNIQUE = np.array([[1], [3], [0], [7]], np.int32)  # out of bounds but no repeats


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
def test_gather(mode):
  # out-of-bounds windows: promised away, or filled with a constant (a NaN fill would make the
  # finite differences NaN)
  idx = np.minimum(IDX, 4) if mode == "promise_in_bounds" else IDX
  check(lambda x: lax.gather(x, idx, GDN, (1, 3), mode=mode, fill_value=2.0), (5, 3))


@pytest.mark.parametrize("mode, expected", [
    ("promise_in_bounds", [[0, 0], [1, 1], [0, 0]]),  # as JAX: XLA clamps, the transpose drops
    ("clip", [[0, 0], [1, 1], [1, 1]]),
    ("fill", [[0, 0], [1, 1], [0, 0]])])
def test_gather_grad_out_of_bounds(mode, expected):
  g = ember.grad(lambda x: lax.gather(x, np.array([[1], [7]]), GDN, (1, 2), mode=mode).sum())
  np.testing.assert_array_equal(g(np.ones((3, 2))), expected)


def test_gather_fill_tangent_is_zero_out_of_bounds():
  x = np.arange(6.0).reshape(3, 2)
  y, ty = ember.jvp(lambda x: lax.gather(x, np.array([[2], [5]]), GDN, (1, 2), mode="fill"),
                    (x,), (np.ones_like(x),))
  np.testing.assert_array_equal(y, [[4, 5], [np.nan, np.nan]])
  np.testing.assert_array_equal(ty, [[1, 1], [0, 0]])


def test_gather_batching_dims():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,),
                                  start_index_map=(1,), operand_batching_dims=(0,),
                                  start_indices_batching_dims=(0,))
  idx = np.array([[[0], [2]], [[1], [1]]], np.int32)
  check(lambda x: lax.gather(x, idx, dn, (1, 1)), (2, 3))


def test_numpy_indexing_grad():
  x = _rand((4, 3))
  g = ember.grad(lambda x: x[np.array([0, 2, 0]), 1:].sum())(x)
  expected = np.zeros((4, 3))
  expected[0, 1:] = 2
  expected[2, 1:] = 1
  np.testing.assert_array_equal(g, expected)


# --- scatter-add, scatter-sub -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["scatter_add", "scatter_sub"])
@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_add_sub(name, mode):
  op = getattr(lax, name)
  check(lambda x, u: op(x, IDX, u, SDN, mode=mode), (5, 3), (4, 3))


def test_scatter_add_batching_dims_under_jit():
  dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,),
                                   scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                                   scatter_indices_batching_dims=(0,))
  idx = np.array([[[0], [2]], [[1], [1]]], np.int32)
  check(ember.jit(lambda x, u: lax.scatter_add(x, idx, u, dn)), (2, 3), (2, 2))


def test_numpy_at_add_grad():
  g_x, g_u = ember.grad(lambda x, u: x.at[np.array([1, 1, 2])].add(u).sum() * 1.0,
                        argnums=(0, 1))(np.zeros(4), np.zeros(3))
  np.testing.assert_array_equal(g_x, np.ones(4))
  np.testing.assert_array_equal(g_u, np.ones(3))


# --- scatter ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_unique(mode):
  check(lambda x, u: lax.scatter(x, UNIQUE, u, SDN, unique_indices=True, mode=mode),
        (5, 3), (4, 3))


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_repeated_indices(mode):
  check(lambda x, u: lax.scatter(x, IDX, u, SDN, mode=mode), (5, 3), (4, 3))


def test_scatter_repeated_indices_one_winner():
  """Only the update that won an element gets its tangent (and cotangent)."""
  x, u = np.zeros(3), np.array([1.0, 2.0])
  f = lambda x, u: lax.scatter(x, np.array([[1], [1]]), u, lax.ScatterDimensionNumbers(
      (), (0,), (0,)))
  y, ty = ember.jvp(f, (x, u), (np.ones(3), np.array([10.0, 20.0])))
  winner = int(np.argmax(np.asarray(y)[1] == u))
  assert float(ty[1]) == [10.0, 20.0][winner]
  np.testing.assert_array_equal(np.asarray(ty)[[0, 2]], [1, 1])
  ct_x, ct_u = ember.vjp(f, x, u)[1](np.array([1.0, 2.0, 3.0]))
  np.testing.assert_array_equal(ct_x, [1, 0, 3])
  np.testing.assert_array_equal(ct_u, [2.0 * (winner == 0), 2.0 * (winner == 1)])


def test_scatter_apply_jvp_not_implemented():
  dn = lax.ScatterDimensionNumbers((), (0,), (0,))
  with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
    ember.jvp(lambda x: lax.scatter_apply(x, np.array([[1]]), lambda v: v * 2, dn),
              (np.ones(3),), (np.ones(3),))


def test_scatter_transpose_needs_unique_indices():
  f = lambda x: lax.scatter(x, IDX, np.zeros((4, 3)), SDN)
  with pytest.raises(NotImplementedError,
                     match="scatter transpose is only implemented where unique_indices=True"):
    ember.linear_transpose(f, np.ones((5, 3)))(np.ones((5, 3)))


# --- scatter-mul ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_mul_unique(mode):
  check(lambda x, u: lax.scatter_mul(x, UNIQUE, u, SDN, unique_indices=True, mode=mode),
        (5, 3), (4, 3))


def test_scatter_mul_operand_only_with_repeats():
  u = _rand((4, 3))
  check(lambda x: lax.scatter_mul(x, IDX, u, SDN), (5, 3))


def test_scatter_mul_updates_need_unique_indices():
  f = lambda x, u: lax.scatter_mul(x, IDX, u, SDN)
  with pytest.raises(NotImplementedError, match="only implemented if `unique_indices=True`"):
    ember.jvp(f, (np.ones((5, 3)), np.ones((4, 3))), (np.ones((5, 3)), np.ones((4, 3))))


def test_scatter_mul_second_order():
  f = lambda x: lax.scatter_mul(x, UNIQUE, x[1:], SDN, unique_indices=True).sum()
  x = _rand((5, 3))
  hvp = lambda x, v: ember.jvp(ember.grad(f), (x,), (v,))[1]
  v = _rand((5, 3))
  fd = (np.asarray(ember.grad(f)(x + 1e-6 * v)) - np.asarray(ember.grad(f)(x - 1e-6 * v))) / 2e-6
  np.testing.assert_allclose(hvp(x, v), fd, rtol=1e-6, atol=1e-8)


# --- scatter-min, scatter-max -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["scatter_min", "scatter_max"])
@pytest.mark.parametrize("mode", ["drop", "promise_in_bounds"])
def test_scatter_extremal(name, mode):
  op = getattr(lax, name)
  check_jvp(lambda x, u: op(x, IDX, u, SDN, mode=mode), [_rand((5, 3)), _rand((4, 3))])


def test_scatter_max_ties_average_tangents():
  # as JAX: tied contenders (operand and/or updates) share the tangent equally
  dn = lax.ScatterDimensionNumbers((), (0,), (0,))
  idx = np.array([[0], [0], [1], [2]])
  x, u = np.array([1.0, 5.0, 0.0]), np.array([1.0, 1.0, 2.0, -1.0])
  f = lambda x, u: lax.scatter_max(x, idx, u, dn)
  y, ty = ember.jvp(f, (x, u), (np.array([3.0, 5.0, 7.0]), np.array([6.0, 9.0, 11.0, 13.0])))
  np.testing.assert_array_equal(y, [1, 5, 0])
  np.testing.assert_allclose(ty, [(3 + 6 + 9) / 3, 5, 7])
  g_x, g_u = ember.grad(lambda x, u: f(x, u).sum(), argnums=(0, 1))(x, u)
  np.testing.assert_allclose(g_x, [1 / 3, 1, 1])
  np.testing.assert_allclose(g_u, [1 / 3, 1 / 3, 0, 0])


def test_scatter_min_second_order():
  f = lambda x: (lax.scatter_min(x, IDX, x[:4] * 0.5, SDN) ** 2).sum()
  x = _rand((5, 3))
  v = _rand((5, 3))
  hvp = ember.jvp(ember.grad(f), (x,), (v,))[1]
  fd = (np.asarray(ember.grad(f)(x + 1e-6 * v)) - np.asarray(ember.grad(f)(x - 1e-6 * v))) / 2e-6
  np.testing.assert_allclose(hvp, fd, rtol=1e-5, atol=1e-7)
