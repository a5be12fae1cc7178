"""lax's structural functions and gather/scatter: values against NumPy (eagerly and under jit),
dtypes and weak types, edge shapes, errors, and printed jaxprs (JAX's output, observed)."""
import re

import numpy as np
import pytest

import ember
from ember import dtypes, lax

DTYPES = ["bool", "int8", "int32", "uint32", "float16", "bfloat16", "float32", "complex64"]
F32 = np.float32


def _arange(shape, dt):
  n = int(np.prod(shape))
  base = np.arange(n).reshape(shape)
  dt = np.dtype(dtypes.bfloat16 if dt == "bfloat16" else dt)
  return (base % 2).astype(dt) if dt == np.bool_ else (base + 1).astype(dt)


def _check(f, args, expected, jit=True, weak=None):
  """f(*args) eagerly (and under jit) equals ``expected`` in value, shape and dtype."""
  outs = [f(*args)] + ([ember.jit(f)(*args)] if jit else [])
  expected = np.asarray(expected)
  for out in outs:
    assert out.shape == expected.shape, (out.shape, expected.shape)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    np.testing.assert_array_equal(np.asarray(out), expected)
    if weak is not None:
      assert out.weak_type == weak
  return outs[0]


def _np_pad(x, value, config):
  for axis, (lo, hi, interior) in enumerate(config):
    d = x.shape[axis]
    size = d + max(d - 1, 0) * interior
    shape = list(x.shape)
    shape[axis] = size
    dilated = np.full(shape, value, x.dtype)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, interior + 1)
    dilated[tuple(idx)] = x
    pad = [(0, 0)] * x.ndim
    pad[axis] = (max(lo, 0), max(hi, 0))
    x = np.pad(dilated, pad, constant_values=np.asarray(value, x.dtype))
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
    x = x[tuple(idx)]
  return x


def _np_dynamic_slice(x, starts, sizes):
  starts = [min(max(s + d if s < 0 else s, 0), d - z) for s, d, z in zip(starts, x.shape, sizes)]
  return x[tuple(slice(s, s + z) for s, z in zip(starts, sizes))], starts


# --- broadcasting and shapes ------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_broadcast_reshape_transpose_rev(dt):
  x = _arange((2, 3), dt)
  _check(lambda a: lax.broadcast_in_dim(a, (4, 2, 3), (1, 2)), (x,), np.broadcast_to(x, (4, 2, 3)))
  _check(lambda a: lax.reshape(a, (3, 2)), (x,), x.reshape(3, 2))
  _check(lambda a: lax.reshape(a, (6,), (1, 0)), (x,), x.T.reshape(6))
  _check(lambda a: lax.transpose(a, (1, 0)), (x,), x.T)
  _check(lambda a: lax.rev(a, (0, 1)), (x,), x[::-1, ::-1])


def test_broadcast_family():
  x = _arange((2, 3), "float32")
  _check(lambda a: lax.broadcast(a, (4,)), (x,), np.broadcast_to(x, (4, 2, 3)))
  _check(lambda a: lax.broadcast_in_dim(a[:1], (4, 3), (0, 1)), (x,), np.repeat(x[:1], 4, 0),
         jit=False)
  _check(lambda a: lax.broadcast_in_dim(a, (3, 4, 2), (2, 0)), (x,),
         np.broadcast_to(x.T[:, None, :], (3, 4, 2)))
  assert lax.broadcast_to_rank(x, 4).shape == (1, 1, 2, 3)
  assert lax.broadcast_to_rank(x, 2).shape == (2, 3)
  _check(lambda a: lax.expand_dims(a, (0, -1)), (x,), x[None, :, :, None])
  out = lax.broadcast_in_dim(1, (2,), ())
  assert out.dtype == np.int32 and out.weak_type
  np.testing.assert_array_equal(out, [1, 1])
  assert lax.broadcast_shapes((2, 1), (3,)) == (2, 3)
  assert lax.broadcast_shapes((0,), (1,)) == (0,)
  msg = "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"
  with pytest.raises(ValueError, match=re.escape(msg)):
    lax.broadcast_shapes((2,), (3,))


def test_identity_shortcuts_return_operand():
  x = ember.device_put(_arange((2, 3), "float32"))
  assert lax.broadcast_in_dim(x, (2, 3), (0, 1)) is x
  assert lax.reshape(x, (2, 3)) is x
  assert lax.reshape(x, (2, 3), (0, 1)) is x
  assert lax.transpose(x, (0, 1)) is x
  assert lax.squeeze(x, ()) is x
  assert lax.concatenate([x], 0) is x


def test_squeeze_expand_collapse():
  x = _arange((1, 2, 1, 3), "int32")
  _check(lambda a: lax.squeeze(a, (0, -2)), (x,), x.reshape(2, 3))
  y = _arange((2, 3, 4), "float32")
  _check(lambda a: lax.collapse(a, 1), (y,), y.reshape(2, 12))
  _check(lambda a: lax.collapse(a, 0, 2), (y,), y.reshape(6, 4))
  assert lax.collapse(y, 1, 1).shape == (2, 1, 3, 4)


def test_scalars_and_empty_shapes():
  s = np.float32(3.5)
  _check(lambda a: lax.reshape(a, (1, 1)), (s,), np.full((1, 1), s))
  _check(lambda a: lax.broadcast_in_dim(a, (2, 0), ()), (s,), np.zeros((2, 0), F32))
  _check(lambda a: lax.rev(a, ()), (s,), s)
  _check(lambda a: lax.transpose(a, ()), (s,), s)
  _check(lambda a: lax.pad(a, F32(0), ()), (s,), s)
  _check(lambda a: lax.dynamic_slice(a, (), ()), (s,), s)
  e = np.zeros((0, 3), F32)
  x = _arange((2, 3), "float32")
  _check(lambda a, b: lax.concatenate([a, b, a], 0), (e, x), x)
  _check(lambda a: lax.reshape(a, (3, 0)), (e,), np.zeros((3, 0), F32))
  _check(lambda a: lax.transpose(a, (1, 0)), (e,), e.T)
  _check(lambda a: lax.rev(a, (0, 1)), (e,), e)
  _check(lambda a: lax.slice(a, (1, 1), (1, 3)), (x,), x[1:1, 1:3])
  _check(lambda a: lax.pad(a, F32(7), [(1, 1, 2), (0, -3, 0)]), (e,), np.full((2, 0), 7, F32))
  _check(lambda a: lax.pad(a, F32(7), [(1, 1, 2), (0, 0, 0)]), (e,), np.full((2, 3), 7, F32))
  _check(lambda a: lax.dynamic_slice(a, (1, 2), (0, 2)), (x,), np.zeros((0, 2), F32))
  _check(lambda: lax.iota(np.int32, 0), (), np.zeros(0, np.int32))
  out = lax.pad(1.0, 2.0, ())
  assert out.weak_type and out.dtype == F32


# --- slicing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["bool", "int8", "uint32", "bfloat16", "complex64"])
def test_slice_concatenate_pad(dt):
  x = _arange((4, 5), dt)
  _check(lambda a: lax.slice(a, (1, 0), (4, 5), (2, 3)), (x,), x[1:4:2, 0:5:3])
  _check(lambda a: lax.concatenate([a, a[:2]], 0), (x,), np.concatenate([x, x[:2]], 0))
  pv = np.zeros((), x.dtype)
  config = [(1, -2, 1), (-1, 2, 0)]
  _check(lambda a, v: lax.pad(a, v, config), (x, pv), _np_pad(x, pv, config))


def test_split_values_transforms_and_errors():
  x = np.arange(12, dtype=F32).reshape(3, 4)
  a, b = lax.split(x, (1, 3), axis=1)
  np.testing.assert_array_equal(np.asarray(a), x[:, :1])
  np.testing.assert_array_equal(np.asarray(b), x[:, 1:])
  a, b = ember.jit(lambda v: lax.split(v, (2, 1), axis=-2))(x)
  np.testing.assert_array_equal(np.asarray(b), x[2:])
  # jvp splits the tangent; vjp joins the pieces' cotangents (zeros for unused pieces)
  _, t = ember.jvp(lambda v: lax.split(v, (1, 2))[1], (x[0, :3],), (np.ones(3, F32),))
  np.testing.assert_array_equal(np.asarray(t), np.ones(2, F32))
  g = ember.grad(lambda v: (lax.split(v, (1, 2))[1] ** 2).sum())(x[0, :3])
  np.testing.assert_array_equal(np.asarray(g), [0, 2, 4])
  outs = ember.vmap(lambda v: lax.split(v, (2, 1)), in_axes=1)(x)
  np.testing.assert_array_equal(np.asarray(outs[0]), x[:2].T)
  _raises(ValueError, "Sum of sizes 2 must be equal to dimension 0 of the operand shape [3]",
          lax.split, np.ones(3, F32), (1, 1))
  _raises(ValueError, "Sizes passed to split must be nonnegative, got [-1, 4]",
          lax.split, np.ones(3, F32), (-1, 4))
  assert _jaxpr(lambda v: lax.split(v, (1, 2)), np.ones(3, F32)) == (
      "{ lambda ; a:f32[3]. let\n    b:f32[1] c:f32[2] = split[axis=0 sizes=(1, 2)] a\n"
      "  in (b, c) }")


def test_slice_helpers():
  x = _arange((3, 4), "int32")
  _check(lambda a: lax.slice(a, (0, 1), (3, 4)), (x,), x[:, 1:])
  _check(lambda a: lax.slice_in_dim(a, -3, -1, axis=-1), (x,), x[:, -3:-1])
  _check(lambda a: lax.slice_in_dim(a, None, None, 2, axis=0), (x,), x[::2])
  _check(lambda a: lax.index_in_dim(a, -1, axis=1), (x,), x[:, -1:])
  _check(lambda a: lax.index_in_dim(a, 1, keepdims=False), (x,), x[1])
  with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
    lax.index_in_dim(x, 4, axis=1)


@pytest.mark.parametrize("config", [[(0, 0, 0), (0, 0, 0)], [(2, 1, 0), (0, 3, 2)],
                                    [(-1, -1, 0), (-2, 1, 1)], [(-3, 0, 3), (1, -5, 1)]])
def test_pad_configs(config):
  x = _arange((3, 4), "float32")
  _check(lambda a: lax.pad(a, F32(-1), config), (x,), _np_pad(x, F32(-1), config))


# --- dynamic slicing --------------------------------------------------------------------------

@pytest.mark.parametrize("starts", [(1, 2), (0, 0), (2, 9), (-1, -2), (-9, 3), (5, -9)])
def test_dynamic_slice_and_update_clamp(starts):
  x = _arange((3, 4), "float32")
  expected, clamped = _np_dynamic_slice(x, starts, (2, 3))
  _check(lambda a: lax.dynamic_slice(a, starts, (2, 3)), (x,), expected, jit=False)
  traced = ember.jit(lambda a, i, j: lax.dynamic_slice(a, (i, j), (2, 3)))
  np.testing.assert_array_equal(traced(x, *starts), expected)
  u = -_arange((2, 3), "float32")
  want = x.copy()
  want[clamped[0]:clamped[0] + 2, clamped[1]:clamped[1] + 3] = u
  _check(lambda a, b: lax.dynamic_update_slice(a, b, starts), (x, u), want, jit=False)
  traced = ember.jit(lambda a, b, i, j: lax.dynamic_update_slice(a, b, (i, j)))
  np.testing.assert_array_equal(traced(x, u, *starts), want)


@pytest.mark.parametrize("idt", ["int8", "int16", "int32", "uint8", "uint32"])
def test_dynamic_slice_index_dtypes(idt):
  x = _arange((5, 6), "int32")
  f = ember.jit(lambda a, i, j: lax.dynamic_slice(a, (i, j), (2, 2)))
  i, j = np.array(3, idt), np.array(4 if idt.startswith("u") else -2, idt)
  np.testing.assert_array_equal(f(x, i, j), x[3:5, 4:6])
  # an array of start indices, eagerly and traced
  idx = np.array([4, 5], idt)
  np.testing.assert_array_equal(lax.dynamic_slice(x, idx, (2, 2)), x[3:5, 4:6])
  np.testing.assert_array_equal(
      ember.jit(lambda a, s: lax.dynamic_slice(a, s, (2, 2)))(x, idx), x[3:5, 4:6])
  np.testing.assert_array_equal(lax.dynamic_slice(x, ember.device_put(idx), (2, 2)), x[3:5, 4:6])


def test_dynamic_slice_x64_indices(x64):
  x = _arange((5, 6), "float32")
  f = ember.jit(lambda a, i: lax.dynamic_slice(a, (i, 1), (2, 2)))
  np.testing.assert_array_equal(f(x, np.int64(-2)), x[3:5, 1:3])
  with pytest.raises(TypeError, match="must be integers of the same type, got: int32, int64"):
    lax.dynamic_slice(x, (np.int32(1), 1), (1, 1))


def test_dynamic_in_dim_helpers():
  x = _arange((3, 4), "float32")
  _check(lambda a: lax.dynamic_slice_in_dim(a, -2, 2, axis=1), (x,), x[:, 2:4])
  np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, -1, 1, False), x[:, -1])
  np.testing.assert_array_equal(
      ember.jit(lambda a, i: lax.dynamic_index_in_dim(a, i))(x, 2), x[2:3])
  want = x.copy()
  want[:, 1] = 0
  np.testing.assert_array_equal(
      lax.dynamic_update_index_in_dim(x, np.zeros(3, F32), 1, 1), want)
  np.testing.assert_array_equal(
      lax.dynamic_update_index_in_dim(x, np.zeros((3, 1), F32), -3, 1), want)
  want = x.copy()
  want[1:3] = 9
  np.testing.assert_array_equal(
      lax.dynamic_update_slice_in_dim(x, np.full((2, 4), 9, F32), 1, 0), want)
  with pytest.raises(ValueError, match="Index -1 is out of bounds for dimension 4 if "
                     "allow_negative_indices=False"):
    lax.dynamic_slice(x, (0, -1), (1, 1), allow_negative_indices=(True, False))


# --- iota and full ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["int8", "int32", "uint32", "float16", "bfloat16", "float32",
                                "complex64"])
def test_iota(dt):
  want_dt = np.dtype(dtypes.bfloat16 if dt == "bfloat16" else dt)
  _check(lambda: lax.iota(dt, 5), (), np.arange(5).astype(want_dt), weak=False)
  want = np.broadcast_to(np.arange(3)[None, :, None], (2, 3, 4)).astype(want_dt)
  _check(lambda: lax.broadcasted_iota(dt, (2, 3, 4), 1), (), want)


def test_full_and_full_like():
  _check(lambda: lax.full((2, 3), 1.5), (), np.full((2, 3), 1.5, F32), weak=True)
  _check(lambda: lax.full((2,), 1.5, np.int32), (), np.ones(2, np.int32), weak=False)
  _check(lambda: lax.full((2,), 300, "int8"), (), np.full(2, 44, np.int8))
  _check(lambda: lax.full((2,), 1.5 + 2j), (), np.full(2, 1.5 + 2j, np.complex64), weak=True)
  _check(lambda: lax.full((2,), 0.5, bool), (), np.ones(2, bool))
  s = lax.full((), 1)
  assert s.shape == () and s.dtype == np.int32 and s.weak_type
  x = _arange((2, 3), "float16")
  _check(lambda a: lax.full_like(a, 2), (x,), np.full((2, 3), 2, np.float16), weak=False)
  _check(lambda a: lax.full_like(a, 2, np.int8, (4,)), (x,), np.full(4, 2, np.int8))
  out = lax.full_like(1.0, 3)
  assert out.dtype == F32 and out.weak_type and float(out) == 3.0
  assert lax.full_like(np.ones(2), 1).dtype == F32
  with pytest.raises(TypeError, match=re.escape("full must be called with scalar fill_value, "
                                                "got fill_value.shape (2,).")):
    lax.full((2,), np.ones(2))


# --- gather -----------------------------------------------------------------------------------

_ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))


@pytest.mark.parametrize("dt,fill", [("float32", np.nan), ("int32", -2**31), ("uint8", 255),
                                     ("bool", True), ("complex64", np.nan)])
def test_gather_modes(dt, fill):
  x = _arange((3, 4), dt)
  idx = np.array([[0], [2], [5], [-1]], np.int32)
  clipped = x[np.clip(idx[:, 0], 0, 2)]
  for mode in (None, "clip", "promise_in_bounds", lax.GatherScatterMode.CLIP):
    _check(lambda a, i: lax.gather(a, i, _ROWS, (1, 4), mode=mode), (x, idx), clipped)
  filled = clipped.copy()
  filled[2:] = fill
  out = _check(lambda a, i: lax.gather(a, i, _ROWS, (1, 4), mode="fill"), (x, idx), filled)
  assert not out.weak_type


def test_gather_windows_fill_value_and_batching():
  x = _arange((5, 6), "int32")
  idx = np.array([[0, 0], [4, 5], [-1, 2], [3, 4]], np.int8)
  dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                  start_index_map=(0, 1))
  starts = np.stack([np.clip(idx[:, 0], 0, 3), np.clip(idx[:, 1], 0, 3)], 1)
  want = np.stack([x[r:r + 2, c:c + 3] for r, c in starts])
  _check(lambda a, i: lax.gather(a, i, dn, (2, 3), mode="clip"), (x, idx), want)
  want[1:] = -5  # windows at (4, 5), (-1, 2) and (3, 4) do not fit
  _check(lambda a, i: lax.gather(a, i, dn, (2, 3), mode="fill", fill_value=-5), (x, idx), want)
  # operand/indices batching: row b of the operand is indexed by indices[b]
  op = _arange((2, 3, 4), "float32")
  bidx = np.array([[[1], [2]], [[0], [2]]], np.int32)
  bdn = lax.GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(1,),
                                   start_index_map=(1,), operand_batching_dims=(0,),
                                   start_indices_batching_dims=(0,))
  want = np.stack([op[b, bidx[b, :, 0]] for b in range(2)])
  _check(lambda a, i: lax.gather(a, i, bdn, (1, 1, 4)), (op, bidx), want)
  out = lax.gather(x, np.zeros((0, 2), np.int32), dn, (2, 3))
  assert out.shape == (0, 2, 3)


# --- scatter ----------------------------------------------------------------------------------

_SROWS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))


@pytest.mark.parametrize("dt", ["int32", "float32", "bfloat16", "complex64"])
def test_scatter_add_matches_add_at(dt):
  x = _arange((4, 3), dt)
  idx = np.array([[0], [2], [0], [7], [-1]], np.int32)
  upd = _arange((5, 3), dt)
  want = x.copy()
  np.add.at(want, idx[:3, 0], upd[:3])  # out-of-bounds rows are dropped
  _check(lambda a, i, u: lax.scatter_add(a, i, u, _SROWS), (x, idx, upd), want)
  want = x.copy()
  np.add.at(want, np.clip(idx[:, 0], 0, 3), upd)
  _check(lambda a, i, u: lax.scatter_add(a, i, u, _SROWS, mode="clip"), (x, idx, upd), want)


def test_scatter_variants():
  x = _arange((4, 3), "float32")
  idx = np.array([[1], [3], [1], [9]], np.int32)
  upd = np.full((4, 3), 2.5, F32)
  rows = idx[:3, 0]
  for fn, ufunc in ((lax.scatter_mul, np.multiply), (lax.scatter_min, np.minimum),
                    (lax.scatter_max, np.maximum), (lax.scatter_sub, np.subtract)):
    want = x.copy()
    ufunc.at(want, rows, upd[:3])
    _check(lambda a, i, u: fn(a, i, u, _SROWS), (x, idx, upd), want)
  want = x.copy()
  want[[1, 3]] = 2.5
  _check(lambda a, i, u: lax.scatter(a, i, u, _SROWS, unique_indices=False), (x, idx, upd),
         want)
  want = x.copy()
  want[[1, 3]] = 2.5  # index 9 clamps to row 3
  _check(lambda a, i, u: lax.scatter(a, i, u, _SROWS, mode="clip"), (x, idx, upd), want)
  b = np.array([True, False, False])
  one = lax.ScatterDimensionNumbers((), (0,), (0,))
  _check(lambda a: lax.scatter_max(a, np.array([[1]]), np.array([True]), one), (b,),
         [True, True, False])
  got = lax.scatter_apply(np.ones(3, F32), np.array([[0], [2]]),
                          lambda v: lax.mul(v, F32(5)), one, update_shape=(2,))
  np.testing.assert_array_equal(got, [5, 1, 5])
  out = lax.scatter_add(1.0, np.zeros((0,), np.int32), 1.0, lax.ScatterDimensionNumbers((), (), ()))
  assert out.weak_type and float(out) == 2.0


def test_scatter_windows_and_batching():
  x = _arange((5, 6), "int32")
  idx = np.array([[0, 0], [4, 5], [3, 4]], np.int32)
  dn = lax.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                   scatter_dims_to_operand_dims=(0, 1))
  upd = np.full((3, 2, 3), 100, np.int32)
  want = x.copy()
  want[0:2, 0:3] += 100
  want[3:5, 3:6] += 200  # (4, 5) clamps to (3, 3), overlapping (3, 4) -> (3, 3)
  _check(lambda a, i, u: lax.scatter_add(a, i, u, dn, mode="clip"), (x, idx, upd), want)
  op = np.zeros((2, 3), F32)
  bidx = np.array([[[1], [1]], [[0], [2]]], np.int32)
  bdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,),
                                    scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                                    scatter_indices_batching_dims=(0,))
  upd = np.ones((2, 2), F32)
  _check(lambda a, i, u: lax.scatter_add(a, i, u, bdn), (op, bidx, upd),
         np.array([[0, 2, 0], [1, 0, 1]], F32))


def test_gather_scatter_mode_from_any():
  M = lax.GatherScatterMode
  assert M.from_any(None) is M.FILL_OR_DROP and M.from_any("drop") is M.FILL_OR_DROP
  assert M.from_any("clip") is M.CLIP and M.from_any(M.ONE_HOT) is M.ONE_HOT
  assert M.from_any("promise_in_bounds") is M.PROMISE_IN_BOUNDS
  with pytest.raises(ValueError, match='Unknown gather mode "bogus"'):
    M.from_any("bogus")
  assert lax.GatherDimensionNumbers((1,), (0,), (0,)).operand_batching_dims == ()
  assert lax.ScatterDimensionNumbers((1,), (0,), (0,))._fields[-1] == \
      "scatter_indices_batching_dims"


# --- errors -----------------------------------------------------------------------------------

def _raises(exc, msg, f, *args):
  with pytest.raises(exc, match=re.escape(msg)):
    f(*args)


def test_shape_errors():
  x = np.ones((2, 3), F32)
  _raises(TypeError, "cannot reshape array of shape (2, 3) (size 6) into shape (4,) (size 4)",
          lax.reshape, x, (4,))
  _raises(TypeError, "reshape new_sizes must all be positive, got (-1,).", lax.reshape, x, (-1,))
  _raises(TypeError, "broadcast_in_dim operand dimension sizes must either be 1, or be equal "
          "to their corresponding dimensions in the target broadcast shape; got operand of "
          "shape (2, 3), target broadcast shape (2, 4), broadcast_dimensions (0, 1)",
          lax.broadcast_in_dim, x, (2, 4), (0, 1))
  _raises(TypeError, "broadcast_in_dim shape must have every element be nonnegative, got "
          "(-1, 2, 3).", lax.broadcast, x, (-1,))
  _raises(TypeError, "broadcast_in_dim broadcast_dimensions must have length equal to operand "
          "ndim; got broadcast_dimensions (0,) for operand ndim 2.",
          lax.broadcast_in_dim, x, (2, 3), (0,))
  _raises(TypeError, "slice limit_indices must be less than or equal to operand shape, got "
          "limit_indices (3, 3) for operand shape (2, 3).", lax.slice, x, (0, 0), (3, 3))
  _raises(TypeError, "slice start_indices must have every element be nonnegative, got (-1, 0).",
          lax.slice, x, (-1, 0), (1, 3))
  _raises(TypeError, "slice limit_indices must be greater than or equal to start_indices",
          lax.slice, x, (2, 0), (1, 3))
  _raises(TypeError, "slice strides must be positive, got (0, 1)", lax.slice, x, (0, 0), (2, 3),
          (0, 1))
  _raises(TypeError, "transpose permutation isn't a permutation of operand dimensions, got "
          "permutation (0, 0) for operand shape (2, 3).", lax.transpose, x, (0, 0))
  _raises(TypeError, "rev dimensions must have every element be nonnegative, got (-1,).",
          lax.rev, x, (-1,))
  _raises(ValueError, "cannot select an axis to squeeze out which has size not equal to one, "
          "got shape=(2, 3) and dimensions=(0,)", lax.squeeze, x, (0,))
  _raises(ValueError, "axis 3 is out of bounds for array of dimension 2", lax.squeeze, x, (3,))
  _raises(ValueError, "repeated axis in lax.expand_dims: (0, 0)", lax.expand_dims, x, (0, 0))
  _raises(TypeError, "iota does not accept dtype bool. Accepted dtypes are subtypes of integer, "
          "floating, complexfloating.", lax.iota, np.bool_, 3)
  _raises(TypeError, "iota shape must have every element be nonnegative, got (-1,).",
          lax.iota, np.int32, -1)
  _raises(ValueError, "iota dimension must be between 0 and len(shape), got dimension=2 for "
          "shape=(2, 3)", lax.broadcasted_iota, np.int32, (2, 3), 2)
  _raises(TypeError, "Shapes must be 1D sequences of concrete values of integer type, got "
          "(2.0,).", lax.iota, np.int32, 2.0)
  _raises(ValueError, "far more than this machine's memory", lax.full, (2**20, 2**30), 1)


def test_operand_errors():
  x = np.ones((2, 3), F32)
  _raises(TypeError, "lax.concatenate requires arguments to have the same dtypes, got float32, "
          "int32. (Tip: jnp.concatenate is a similar function that does automatic type "
          "promotion on inputs).", lax.concatenate, [x, x.astype(np.int32)], 1)
  _raises(TypeError, "Cannot concatenate arrays with shapes that differ in dimensions other "
          "than the one being concatenated", lax.concatenate, [x, x.T], 1)
  _raises(TypeError, "concatenate dimension out of bounds: dimension -1 for shapes (2, 3), "
          "(2, 3).", lax.concatenate, [x, x], -1)
  _raises(ValueError, "concatenate requires a non-empty sequences of arrays", lax.concatenate,
          [], 0)
  _raises(TypeError, "pad operand and padding_value must be same dtype: got float32 and int32.",
          lax.pad, x, 0, [(0, 0, 0), (0, 0, 0)])
  _raises(ValueError, "Dimension size after padding is not at least 0, got result shape (-1, 3)",
          lax.pad, x, F32(0), [(-3, 0, 0), (0, 0, 0)])
  _raises(ValueError, "interior padding in padding_config must be nonnegative", lax.pad, x,
          F32(0), [(0, 0, -1), (0, 0, 0)])
  _raises(TypeError, "index arguments to dynamic_slice must be integers of the same type, got: "
          "int8, int32", lax.dynamic_slice, x, (np.int8(1), 0), (1, 2))
  _raises(TypeError, "slice slice_sizes must be less than or equal to operand shape, got "
          "slice_sizes (3, 2) for operand shape (2, 3).", lax.dynamic_slice, x, (0, 0), (3, 2))
  _raises(ValueError, "Length of slice indices must match number of operand dimensions (1 vs "
          "(2, 3))", lax.dynamic_slice, x, (1,), (1, 2))
  _raises(TypeError, "lax.dynamic_update_slice requires arguments to have the same dtypes, got "
          "float32, int32.", lax.dynamic_update_slice, x, np.ones((1, 2), np.int32), (0, 1))
  _raises(TypeError, "dynamic_update_slice update shape must be smaller than operand shape",
          lax.dynamic_update_slice, x, np.ones((3, 2), F32), (0, 1))
  idx = np.zeros((2, 1), np.int32)
  _raises(ValueError, "indices must have an integer type", lax.gather, x, idx.astype(F32),
          _ROWS, (1, 3))
  _raises(TypeError, "Gather op can only collapse slice dims with bound 1, but bound is 2 for "
          "index 0 at position 0.", lax.gather, x, idx, _ROWS, (2, 3))
  _raises(TypeError, "lax.scatter requires arguments to have the same dtypes, got float32, "
          "int32.", lax.scatter_add, x, idx, np.ones((2, 3), np.int32), _SROWS)
  _raises(TypeError, "Bounds of the scatter dimensions of updates must be the same as the "
          "bounds of the corresponding dimensions of scatter indices.", lax.scatter, x, idx,
          np.ones((3, 3), F32), _SROWS)
  _raises(TypeError, "add does not accept dtype bool", lax.scatter_add, x.astype(bool), idx,
          np.ones((2, 3), bool), _SROWS)


def test_traced_static_arguments_raise():
  x = np.ones((2, 3), F32)
  msg = ("Shapes must be 1D sequences of concrete values of integer type, got (2, Traced<")
  with pytest.raises(TypeError, match=re.escape(msg)) as e:
    ember.jit(lambda a, n: lax.reshape(a, (2, n)))(x, 3)
  assert "If using `jit`, try using `static_argnums` or applying `jit` to smaller " \
      "subfunctions." in str(e.value)
  with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
    ember.jit(lambda n: lax.full((n,), 1.0))(2)
  with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
    ember.jit(lambda a, n: lax.dynamic_slice(a, (0, 0), (1, n)))(x, 2)
  # concrete NumPy and ember integers are fine as static arguments
  assert lax.reshape(x, (np.int64(3), ember.device_put(np.int32(2)))).shape == (3, 2)


# --- printed jaxprs (JAX 0.10.2's output for the same functions) -------------------------------

def _jaxpr(f, *args):
  return str(ember.make_jaxpr(f)(*args))


def test_jaxpr_printing_matches_jax():
  x = np.ones((2, 3), F32)
  assert _jaxpr(lambda a: lax.broadcast_in_dim(a, (4, 2, 3), (1, 2)), x) == (
      "{ lambda ; a:f32[2,3]. let\n    b:f32[4,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)]"
      " a\n  in (b,) }")
  assert _jaxpr(lambda a: lax.reshape(lax.transpose(a, (1, 0)), (6,), (1, 0)), x) == (
      "{ lambda ; a:f32[2,3]. let\n    b:f32[3,2] = transpose[permutation=(1, 0)] a\n    "
      "c:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] b\n  in (c,) }")
  assert _jaxpr(lambda a: lax.pad(lax.slice(a, (0, 1), (2, 3), (1, 2)), 0.0,
                                  [(1, -1, 2), (0, 0, 0)]), x) == (
      "{ lambda ; a:f32[2,3]. let\n    b:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1)"
      " strides=(1, 2)] a\n    c:f32[4,1] = pad[padding_config=((1, -1, 2), (0, 0, 0))] b "
      "0.0:f32[]\n  in (c,) }")
  assert _jaxpr(lambda a: lax.concatenate([a, lax.full_like(a, 2)], 0), x) == (
      "{ lambda ; a:f32[2,3]. let\n    b:f32[2,3] = broadcast_in_dim 2.0:f32[]\n    "
      "c:f32[4,3] = concatenate[dimension=0] a b\n  in (c,) }")
  assert _jaxpr(lambda: lax.broadcasted_iota(np.int32, (2, 3), 1)) == (
      "{ lambda ; . let\n    a:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) "
      "sharding=None] \n  in (a,) }")


def test_jaxpr_printing_dynamic_slices_match_jax():
  x = np.ones((2, 3), F32)
  assert _jaxpr(lambda a, i: lax.dynamic_slice(a, (i, 0), (1, 2)), x, np.int32(1)) == (
      "{ lambda ; a:f32[2,3] b:i32[]. let\n    c:bool[] = lt b 0:i32[]\n    d:i32[] = add b "
      "2:i32[]\n    e:i32[] = select_n c b d\n    f:f32[1,2] = dynamic_slice[slice_sizes=(1, 2)] "
      "a e 0:i32[]\n  in (f,) }")
  assert _jaxpr(lambda a, i: lax.dynamic_index_in_dim(a, i, axis=1, keepdims=False), x, 1) == (
      "{ lambda ; a:f32[2,3] b:i32[]. let\n    c:f32[2] = jit[\n      name=dynamic_index_in_dim\n"
      "      jaxpr={ lambda ; a:f32[2,3] b:i32[]. let\n          d:bool[] = lt b 0:i32[]\n"
      "          e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
      "          f:i32[] = add e 3:i32[]\n          g:i32[] = select_n d b f\n"
      "          h:f32[2,1] = dynamic_slice[slice_sizes=(2, 1)] a 0:i32[] g\n"
      "          c:f32[2] = squeeze[dimensions=(1,)] h\n        in (c,) }\n    ] a b\n"
      "  in (c,) }")
  assert _jaxpr(lambda a, u: lax.dynamic_update_slice(a, u, (0, -1)), x,
                np.ones((2, 2), F32)) == (
      "{ lambda ; a:f32[2,3] b:f32[2,2]. let\n    c:f32[2,3] = dynamic_update_slice a b 0:i32[] "
      "2:i32[]\n  in (c,) }")


def test_jaxpr_printing_gather_scatter_match_jax():
  x = np.ones((2, 3), F32)
  idx = np.zeros((3, 1), np.int32)
  assert _jaxpr(lambda a, i: lax.gather(a, i, _ROWS, (1, 3), mode="fill"), x, idx) == (
      "{ lambda ; a:f32[2,3] b:i32[3,1]. let\n    c:f32[3,3] = gather[\n      dimension_numbers="
      "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),"
      " operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=nan\n"
      "      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n"
      "      slice_sizes=(1, 3)\n      unique_indices=False\n    ] a b\n  in (c,) }")
  upd = np.ones((3, 3), F32)
  assert _jaxpr(lambda a, i, u: lax.scatter_add(a, i, u, _SROWS, mode="clip"), x, idx, upd) == (
      "{ lambda ; a:f32[2,3] b:i32[3,1] c:f32[3,3]. let\n    d:f32[2,3] = scatter-add[\n"
      "      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), "
      "inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
      "scatter_indices_batching_dims=())\n      indices_are_sorted=False\n"
      "      mode=GatherScatterMode.CLIP\n      unique_indices=False\n      update_consts=()\n"
      "      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }\n"
      "    ] a b c\n  in (d,) }")
