"""Bad calls across the public API, for the error sweep (tests/test_error_sweep.py).

Each case is a call with a bad dtype, shape, axis, size, non-callable or tree structure, one
per public function family: jnp elementwise, reductions, shape ops and construction, indexing,
linalg, fft, lax (convolution, dot_general, windows, slicing, dtypes), random samplers,
tree_util and the transforms (jit, grad, vmap and friends). The cases are a fixed list, built
by loops over the families and their bad inputs, so the sweep is deterministic.

A case is ``(fn, names)``: ``fn(ns)`` makes the call through the namespace ``ns`` (``jax``,
``jnp``, ``lax``, ``random``, ``tree_util``: either framework's), and ``names`` are the words
(regular expressions) one of which a good message contains: the argument at fault, by name or
position. Empty ``names``: nothing sensible to ask for (the call may be fine in JAX).

This file imports no array library; tools/make_error_sweep_golden.py runs it under JAX 0.10.2
and records the exception type each case raises in tests/data/error_sweep_golden.json.
"""
import types

import numpy as np

CASES: dict = {}
# Cases that abort the process under JAX 0.10.2 (not run when the goldens are made; ember must
# raise a clean Python exception of any type).
JAX_CRASHES = {"shape_size_overflow_eager", "shape_size_overflow_jit",
               "lax_conv_elements_overflow", "lax_dot_general_elements_overflow_jit",
               "lax_reduce_window_elements_overflow"}

F32 = np.float32
X = np.ones((2, 3), F32)
V = np.arange(4, dtype=F32)
SQ = np.eye(3, dtype=F32)
I32 = np.arange(6, dtype=np.int32).reshape(2, 3)
C64 = np.ones(4, np.complex64)
DATES = np.array(["2020-01-01"], dtype="datetime64[D]")
STRS = np.array(["a", "b"])
BAD_DTYPES = {"datetime": np.dtype("datetime64[s]"), "object": object, "str": str,
              "bytes": np.dtype("S3"), "record": np.dtype([("a", "f4")]), "unknown": "foo"}


def namespace(jax, jnp, lax):
  """The names the cases call, from one framework's modules."""
  return types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, random=jax.random,
                               tree_util=jax.tree_util, key=jax.random.PRNGKey(0))


def add(name: str, fn, names=()) -> None:
  assert name not in CASES, name
  CASES[name] = (fn, tuple(names))


def _f(x):
  return x


def _sum(x):
  return (x * x).sum()


# --- jnp elementwise --------------------------------------------------------------------------

_POS0 = (r"position 0", r"\bx\b", r"argument", r"operand")
_UNARY = ["sin", "exp", "log", "sqrt", "abs", "floor", "negative", "sign", "tanh", "isnan",
          "square", "reciprocal", "rint", "invert", "logical_not", "cbrt"]
_BAD_OPERANDS = {"str": "a", "none": None, "dict": {"a": 1}, "ragged": [[1.0], [1.0, 2.0]],
                 "strings": STRS, "dates": DATES, "objects": np.array([object()])}
for _fn in _UNARY:
  for _k, _v in _BAD_OPERANDS.items():
    add(f"jnp_{_fn}_{_k}", lambda ns, f=_fn, v=_v: getattr(ns.jnp, f)(v), _POS0)
add("jnp_invert_float", lambda ns: ns.jnp.invert(V), ("invert", "float32", "dtype"))

_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "arctan2", "hypot",
           "logical_and", "bitwise_and", "left_shift", "remainder", "floor_divide", "equal",
           "less", "true_divide", "copysign", "nextafter"]
for _fn in _BINARY:
  add(f"jnp_{_fn}_shapes", lambda ns, f=_fn: getattr(ns.jnp, f)(np.arange(4),
                                                                 np.ones(3, np.int32)),
      ("shape", r"\(4,\)"))
  add(f"jnp_{_fn}_str", lambda ns, f=_fn: getattr(ns.jnp, f)(V, "a"), ("position 1", r"\by\b",
                                                                      "argument", "str"))
  add(f"jnp_{_fn}_none", lambda ns, f=_fn: getattr(ns.jnp, f)(None, V), _POS0 + ("None",))
for _fn in ["bitwise_and", "left_shift", "bitwise_or", "right_shift", "gcd", "lcm"]:
  add(f"jnp_{_fn}_floats", lambda ns, f=_fn: getattr(ns.jnp, f)(V, V),
      ("float32", "dtype", "integer"))
add("jnp_where_shapes", lambda ns: ns.jnp.where(V > 0, V, np.ones(3, F32)), ("shape",))
add("jnp_where_one_arg_missing", lambda ns: ns.jnp.where(V > 0, V), ("x", "y", "argument"))
add("jnp_clip_shapes", lambda ns: ns.jnp.clip(V, np.zeros(3, F32), 1.0), ("shape",))
add("jnp_add_out", lambda ns: ns.jnp.add(V, V, out=V), ("out",))
add("jnp_add_where", lambda ns: ns.jnp.add(V, V, where=V > 0), ("where",))
add("jnp_sin_dtype_arg", lambda ns: ns.jnp.sin(V, dtype=F32), ("dtype",))

# --- reductions -------------------------------------------------------------------------------

_REDUCTIONS = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "std", "var", "any",
               "all", "cumsum", "cumprod", "nansum", "nanmax", "median", "ptp", "count_nonzero",
               "average", "logsumexp"]
_BAD_AXES = {"big": 5, "neg": -5, "repeat": (0, 0), "float": 1.5, "str": "a", "tuple_big": (0, 7)}


def _reduction(ns, name):
  if name == "logsumexp":
    return ns.jax.scipy.special.logsumexp
  return getattr(ns.jnp, name)


for _fn in _REDUCTIONS:
  for _k, _a in _BAD_AXES.items():
    add(f"reduce_{_fn}_axis_{_k}", lambda ns, f=_fn, a=_a: _reduction(ns, f)(X, axis=a),
        ("axis",))
for _fn in ["sum", "mean", "cumsum", "prod", "var"]:
  add(f"reduce_{_fn}_dtype_object", lambda ns, f=_fn: getattr(ns.jnp, f)(X, dtype=object),
      ("dtype", "object"))
add("reduce_std_ddof_str", lambda ns: ns.jnp.std(X, ddof="a"), ("ddof",))
add("reduce_sum_where_shape", lambda ns: ns.jnp.sum(X, where=np.ones(5, bool)), ("where", "shape"))
add("reduce_max_empty", lambda ns: ns.jnp.max(np.ones((0,), F32)), ("zero-size", "empty",
                                                                    "identity", "initial"))
add("reduce_average_weights_shape", lambda ns: ns.jnp.average(X, weights=np.ones(5, F32)),
    ("weights", "shape"))
add("reduce_quantile_q_big", lambda ns: ns.jnp.quantile(V, 2.0), ("q", "quantile", "range"))
add("reduce_quantile_method", lambda ns: ns.jnp.quantile(V, 0.5, method="foo"), ("method",))

# --- shape ops and construction ---------------------------------------------------------------

def _xj(ns):
  return ns.jnp.asarray(X)


_SHAPES = [
    ("reshape_size", lambda ns: ns.jnp.reshape(_xj(ns), (4, 2)), ("reshape", "shape")),
    ("reshape_two_minus_one", lambda ns: ns.jnp.reshape(_xj(ns), (-1, -1)), ("-1", "shape")),
    ("reshape_float", lambda ns: ns.jnp.reshape(_xj(ns), 2.5), ("shape", "2.5")),
    ("reshape_minus_two", lambda ns: ns.jnp.reshape(_xj(ns), (-2, 3)), ("shape", "-2")),
    ("reshape_order", lambda ns: ns.jnp.reshape(_xj(ns), (3, 2), order="Q"), ("order",)),
    ("transpose_repeat", lambda ns: ns.jnp.transpose(X, (0, 0)), ("axes", "permutation")),
    ("transpose_short", lambda ns: ns.jnp.transpose(X, (0,)), ("axes", "permutation")),
    ("transpose_big", lambda ns: ns.jnp.transpose(X, (0, 5)), ("axes", "axis", "permutation")),
    ("concatenate_ranks", lambda ns: ns.jnp.concatenate([X, V]), ("dimensions", "shape", "rank")),
    ("concatenate_axis", lambda ns: ns.jnp.concatenate([X, X], axis=3), ("axis",)),
    ("concatenate_empty", lambda ns: ns.jnp.concatenate([]), ("at least one", "empty")),
    ("concatenate_scalar", lambda ns: ns.jnp.concatenate([np.float32(1), np.float32(2)]),
     ("zero-dimensional", "scalar", "0-d")),
    ("concatenate_shapes", lambda ns: ns.jnp.concatenate([X, np.ones((3, 2), F32)], axis=0),
     ("shape",)),
    ("stack_shapes", lambda ns: ns.jnp.stack([X, V]), ("shape", "dimensions")),
    ("stack_empty", lambda ns: ns.jnp.stack([]), ("at least one", "empty")),
    ("stack_axis", lambda ns: ns.jnp.stack([X, X], axis=5), ("axis",)),
    ("hstack_ranks", lambda ns: ns.jnp.hstack([X, np.ones((2, 3, 4), F32)]), ("shape", "dim")),
    ("squeeze_not_one", lambda ns: ns.jnp.squeeze(X, 0), ("squeeze", "axis", "size")),
    ("squeeze_axis_big", lambda ns: ns.jnp.squeeze(X, 5), ("axis",)),
    ("expand_dims_big", lambda ns: ns.jnp.expand_dims(X, 5), ("axis",)),
    ("expand_dims_repeat", lambda ns: ns.jnp.expand_dims(X, (0, 0)), ("axis", "repeated")),
    ("split_unequal", lambda ns: ns.jnp.split(V, 3), ("split", "equal", "sections")),
    ("split_float", lambda ns: ns.jnp.split(V, [1.5]), ("indices", "1.5", "integer")),
    ("split_axis", lambda ns: ns.jnp.split(V, 2, axis=3), ("axis",)),
    ("tile_str", lambda ns: ns.jnp.tile(X, "a"), ("reps",)),
    ("repeat_negative", lambda ns: ns.jnp.repeat(X, -1), ("repeats", "negative")),
    ("repeat_mismatch", lambda ns: ns.jnp.repeat(X, np.array([1, 2]), axis=1), ("repeats",
                                                                                 "shape")),
    ("broadcast_to_incompatible", lambda ns: ns.jnp.broadcast_to(X, (3, 3)), ("broadcast",
                                                                             "shape")),
    ("broadcast_to_negative", lambda ns: ns.jnp.broadcast_to(X, (-1, 3)), ("shape", "-1")),
    ("broadcast_to_lower_rank", lambda ns: ns.jnp.broadcast_to(X, (3,)), ("shape", "rank")),
    ("broadcast_shapes", lambda ns: ns.jnp.broadcast_shapes((2, 3), (4,)), ("shape",)),
    ("swapaxes_big", lambda ns: ns.jnp.swapaxes(X, 0, 5), ("axis",)),
    ("moveaxis_big", lambda ns: ns.jnp.moveaxis(X, 0, 5), ("axis", "destination")),
    ("moveaxis_lengths", lambda ns: ns.jnp.moveaxis(X, (0, 1), (0,)), ("source", "destination")),
    ("flip_axis", lambda ns: ns.jnp.flip(X, 5), ("axis",)),
    ("roll_axis", lambda ns: ns.jnp.roll(X, 1, axis=5), ("axis",)),
    ("roll_shift_float", lambda ns: ns.jnp.roll(X, 1.5), ("shift", "integer")),
    ("rot90_axes", lambda ns: ns.jnp.rot90(X, axes=(0, 0)), ("axes",)),
    ("pad_negative", lambda ns: ns.jnp.pad(X, -1), ("pad", "negative")),
    ("pad_rank", lambda ns: ns.jnp.pad(X, ((1, 1),) * 3), ("pad_width", "pad", "shape")),
    ("pad_mode", lambda ns: ns.jnp.pad(X, 1, mode="foo"), ("mode",)),
    ("take_axis", lambda ns: ns.jnp.take(X, 1, axis=5), ("axis",)),
    ("take_mode", lambda ns: ns.jnp.take(X, 1, mode="foo"), ("mode",)),
    ("take_float_index", lambda ns: ns.jnp.take(X, np.array([1.5])), ("indices", "integer")),
    ("ravel_order", lambda ns: ns.jnp.ravel(X, order="Q"), ("order",)),
    ("diagonal_axes", lambda ns: ns.jnp.diagonal(X, axis1=0, axis2=0), ("axis",)),
    ("trace_vector", lambda ns: ns.jnp.trace(V), ("axis", "dim", "2")),
    ("diag_3d", lambda ns: ns.jnp.diag(np.ones((2, 2, 2), F32)), ("1-D", "2-D", "dim", "diag")),
    ("meshgrid_indexing", lambda ns: ns.jnp.meshgrid(V, V, indexing="foo"), ("indexing",)),
    ("zeros_negative", lambda ns: ns.jnp.zeros((-1,)), ("negative", "-1", "shape")),
    ("zeros_float", lambda ns: ns.jnp.zeros(2.5), ("shape", "2.5")),
    ("zeros_str", lambda ns: ns.jnp.zeros("a"), ("shape",)),
    ("ones_bad_dtype", lambda ns: ns.jnp.ones((2,), dtype="foo"), ("foo", "dtype")),
    ("full_str_value", lambda ns: ns.jnp.full((2,), "a"), ("fill_value", "str")),
    ("full_shape_value", lambda ns: ns.jnp.full((2,), np.ones(3, F32)), ("shape", "broadcast")),
    ("eye_negative", lambda ns: ns.jnp.eye(-1), ("negative", "-1", r"\bN\b")),
    ("eye_float", lambda ns: ns.jnp.eye(2.5), (r"\bN\b", "2.5")),
    ("arange_str", lambda ns: ns.jnp.arange("a"), ("start", "str")),
    ("arange_zero_step", lambda ns: ns.jnp.arange(0, 10, 0), ("step", "zero", "division")),
    ("arange_none", lambda ns: ns.jnp.arange(None), ("start", "None")),
    ("linspace_negative", lambda ns: ns.jnp.linspace(0.0, 1.0, -1), ("num", "negative")),
    ("linspace_float_num", lambda ns: ns.jnp.linspace(0.0, 1.0, 2.5), ("num", "integer")),
    ("array_ragged", lambda ns: ns.jnp.array([[1.0], [1.0, 2.0]]), ("shape", "inhomogeneous",
                                                                    "sequence")),
    ("array_object", lambda ns: ns.jnp.array(object()), ("object", "type")),
    ("array_dates", lambda ns: ns.jnp.asarray(DATES), ("datetime64", "dtype")),
    ("array_strings", lambda ns: ns.jnp.asarray(STRS), ("<U1", "dtype", "str")),
    ("size_huge_eager", lambda ns: ns.jnp.ones((10 ** 6, 10 ** 6)), ("shape", "memory",
                                                                     "allocat")),
    ("size_huge_jit_output", lambda ns: ns.jax.jit(lambda: ns.jnp.ones((10 ** 6, 10 ** 6)))(),
     ("shape", "memory", "allocat")),
    ("size_huge_jit_fused", lambda ns: float(ns.jax.jit(
        lambda: ns.jnp.ones((10 ** 6, 10 ** 6)).sum())()), ()),
    ("size_overflow_eager", lambda ns: ns.jnp.ones((10 ** 10, 10 ** 10)), ("shape", "elements")),
    ("size_overflow_jit", lambda ns: ns.jax.jit(
        lambda: ns.jnp.ones((10 ** 10, 10 ** 10)).sum())(), ("shape", "elements")),
]
for _name, _fn, _names in _SHAPES:
  add(f"shape_{_name}", _fn, _names)

_DTYPE = ("dtype", "data type")
for _k, _dt in BAD_DTYPES.items():
  add(f"dtype_asarray_{_k}", lambda ns, d=_dt: ns.jnp.asarray(V, dtype=d), _DTYPE)
  add(f"dtype_astype_{_k}", lambda ns, d=_dt: ns.jnp.asarray(V).astype(d), _DTYPE)
  add(f"dtype_zeros_{_k}", lambda ns, d=_dt: ns.jnp.zeros(3, d), _DTYPE)
  add(f"dtype_convert_element_type_{_k}",
      lambda ns, d=_dt: ns.lax.convert_element_type(V, d), _DTYPE)
  add(f"dtype_arange_{_k}", lambda ns, d=_dt: ns.jnp.arange(3, dtype=d), _DTYPE)

# --- indexing ---------------------------------------------------------------------------------

_INDEXES = {
    "out_of_bounds": 10, "second_out_of_bounds": (0, 10), "float": 1.5, "str": "a",
    "too_many": (0, 0, 0), "two_ellipses": (Ellipsis, Ellipsis), "float_list": [1.5],
    "bool_mask_shape": np.array([True, False, True]), "none_then_big": (None, 5),
    "string_array": STRS, "float_array": np.array([1.0]), "dict": {"a": 1},
    "slice_float_step": slice(0, 2, 0.5), "slice_zero_step": slice(None, None, 0),
}
for _k, _i in _INDEXES.items():
  add(f"index_get_{_k}", lambda ns, i=_i: ns.jnp.asarray(X)[i], ("index", "indices", "bound",
                                                                 "axis", "slice"))
for _k in ["float", "str", "too_many", "out_of_bounds_mode"]:
  _i = {"float": 1.5, "str": "a", "too_many": (0, 0, 0), "out_of_bounds_mode": 0}[_k]
  _kw = {"mode": "foo"} if _k == "out_of_bounds_mode" else {}
  add(f"index_at_set_{_k}", lambda ns, i=_i, kw=_kw: ns.jnp.asarray(X).at[i].set(0.0, **kw),
      ("index", "indices", "mode"))
add("index_at_set_shape", lambda ns: ns.jnp.asarray(X).at[0].set(np.ones(5, F32)), ("shape",
                                                                                    "broadcast"))
add("index_at_set_str_value", lambda ns: ns.jnp.asarray(X).at[0].set("a"), ("str", "value", "'a'"))
add("index_at_bad_method", lambda ns: ns.jnp.asarray(X).at[0].frobnicate(1.0), ("frobnicate",))
add("index_take_along_axis_ndim", lambda ns: ns.jnp.take_along_axis(X, np.zeros(3, np.int32),
                                                                    axis=0), ("indices", "dim"))
add("index_take_along_axis_float", lambda ns: ns.jnp.take_along_axis(X, np.zeros((2, 3), F32),
                                                                     axis=0), ("indices",
                                                                               "integer"))
add("index_bool_mask_jit", lambda ns: ns.jax.jit(lambda x: x[x > 0])(V), ("bool", "mask",
                                                                            "shape"))
add("index_traced_slice", lambda ns: ns.jax.jit(lambda x, n: x[:n])(V, 2), ("slice", "index",
                                                                            "concrete"))

# --- linalg -----------------------------------------------------------------------------------

_LINALG = [
    ("inv_vector", lambda ns: ns.jnp.linalg.inv(V), ("dim", "square", "shape")),
    ("inv_nonsquare", lambda ns: ns.jnp.linalg.inv(X), ("square", "shape")),
    ("inv_strings", lambda ns: ns.jnp.linalg.inv(STRS), ("dtype", "<U1", "str")),
    ("det_vector", lambda ns: ns.jnp.linalg.det(V), ("dim", "square", "shape")),
    ("det_nonsquare", lambda ns: ns.jnp.linalg.det(X), ("square", "shape")),
    ("solve_shapes", lambda ns: ns.jnp.linalg.solve(SQ, np.ones(2, F32)), ("shape", r"\bb\b")),
    ("solve_nonsquare", lambda ns: ns.jnp.linalg.solve(X, np.ones(2, F32)), ("square",
                                                                              r"\ba\b")),
    ("cholesky_vector", lambda ns: ns.jnp.linalg.cholesky(V), ("dim", "square", "2")),
    ("svd_vector", lambda ns: ns.jnp.linalg.svd(V), ("dim", "2")),
    ("eigh_nonsquare", lambda ns: ns.jnp.linalg.eigh(X), ("square",)),
    ("eigh_uplo", lambda ns: ns.jnp.linalg.eigh(SQ, UPLO="X"), ("UPLO",)),
    ("eig_nonsquare", lambda ns: ns.jnp.linalg.eig(X), ("square",)),
    ("qr_vector", lambda ns: ns.jnp.linalg.qr(V), ("dim", "2")),
    ("qr_mode", lambda ns: ns.jnp.linalg.qr(X, mode="foo"), ("mode",)),
    ("norm_ord", lambda ns: ns.jnp.linalg.norm(X, ord="foo"), ("ord", "norm")),
    ("norm_axis", lambda ns: ns.jnp.linalg.norm(X, axis=5), ("axis",)),
    ("norm_three_axes", lambda ns: ns.jnp.linalg.norm(X, axis=(0, 1, 2)), ("axis",)),
    ("matrix_power_float", lambda ns: ns.jnp.linalg.matrix_power(SQ, 1.5), (r"\bn\b",
                                                                           "integer")),
    ("matrix_power_nonsquare", lambda ns: ns.jnp.linalg.matrix_power(X, 2), ("square",)),
    ("lstsq_shapes", lambda ns: ns.jnp.linalg.lstsq(SQ, np.ones(2, F32)), ("shape", r"\bb\b",
                                                                            "dimensions")),
    ("pinv_vector", lambda ns: ns.jnp.linalg.pinv(V), ("dim", "2")),
    ("slogdet_nonsquare", lambda ns: ns.jnp.linalg.slogdet(X), ("square", "shape")),
    ("slogdet_method", lambda ns: ns.jnp.linalg.slogdet(SQ, method="foo"), ("method",)),
    ("matrix_rank_vector", lambda ns: ns.jnp.linalg.matrix_rank(np.ones((), F32)), ("dim",
                                                                                     "2")),
    ("cross_size", lambda ns: ns.jnp.cross(V, V), ("dimension", "size", "2 or 3")),
    ("tensordot_axes", lambda ns: ns.jnp.tensordot(X, X, axes=([0], [0, 1])), ("axes",)),
    ("tensordot_sizes", lambda ns: ns.jnp.tensordot(X, X, axes=1),
     ("shape", "size", "contract")),
    ("matmul_shapes", lambda ns: ns.jnp.matmul(X, X), ("shape", "size", "dimension")),
    ("matmul_scalar", lambda ns: ns.jnp.matmul(np.float32(1), X), ("scalar", "0-d",
                                                                   "dimension", "at least 1")),
    ("dot_shapes", lambda ns: ns.jnp.dot(X, X), ("shape", "dimension")),
    ("vdot_sizes", lambda ns: ns.jnp.vdot(X, V), ("shape", "size")),
    ("einsum_shapes", lambda ns: ns.jnp.einsum("ij,jk", X, X), ("shape", "size", "operand")),
    ("einsum_output", lambda ns: ns.jnp.einsum("ij->k", X), ("output", "subscript", r"\bk\b")),
    ("einsum_operand_count", lambda ns: ns.jnp.einsum("ij,jk", X), ("operand",)),
    ("einsum_bad_char", lambda ns: ns.jnp.einsum("i$", X), ("subscript", "character", r"\$")),
    ("inner_sizes", lambda ns: ns.jnp.inner(X, V), ("shape", "size", "dimension")),
    ("linalg_multi_dot_one", lambda ns: ns.jnp.linalg.multi_dot([X]), ("at least two",
                                                                    "arrays")),
]
for _name, _fn, _names in _LINALG:
  add(f"linalg_{_name}", _fn, _names)

# --- fft --------------------------------------------------------------------------------------

_FFT = [
    ("fft_axis", lambda ns: ns.jnp.fft.fft(V, axis=5), ("axis",)),
    ("fft_n_zero", lambda ns: ns.jnp.fft.fft(V, n=0), (r"\bn\b", "size", "points")),
    ("fft_n_negative", lambda ns: ns.jnp.fft.fft(V, n=-1), (r"\bn\b", "size", "points")),
    ("fft_n_float", lambda ns: ns.jnp.fft.fft(V, n=2.5), (r"\bn\b", "integer")),
    ("fft_norm", lambda ns: ns.jnp.fft.fft(V, norm="foo"), ("norm",)),
    ("fft_strings", lambda ns: ns.jnp.fft.fft(STRS), ("dtype", "<U1", "str")),
    ("fftn_s_axes", lambda ns: ns.jnp.fft.fftn(X, s=(2,), axes=(0, 1)), (r"\bs\b", "axes")),
    ("fftn_axes_big", lambda ns: ns.jnp.fft.fftn(X, axes=(5,)), ("axis", "axes")),
    ("fftn_axes_repeat", lambda ns: ns.jnp.fft.fftn(X, axes=(0, 0)), ("axes", "repeat",
                                                                      "duplicate")),
    ("rfft_complex", lambda ns: ns.jnp.fft.rfft(C64), ("complex", "real", "dtype")),
    ("irfft_n_zero", lambda ns: ns.jnp.fft.irfft(V, n=0), (r"\bn\b", "size", "points")),
    ("fft2_vector", lambda ns: ns.jnp.fft.fft2(V), ("axes", "axis", "dim")),
    ("ifft_str", lambda ns: ns.jnp.fft.ifft("a"), ("position 0", "str", "argument")),
    ("rfftn_axes_big", lambda ns: ns.jnp.fft.rfftn(X, axes=(5,)), ("axis", "axes")),
    ("fftshift_axes", lambda ns: ns.jnp.fft.fftshift(V, axes=5), ("axis", "axes")),
    ("fftfreq_d_str", lambda ns: ns.jnp.fft.fftfreq(4, d="a"), (r"\bd\b", "str")),
    ("fftfreq_n_float", lambda ns: ns.jnp.fft.fftfreq(2.5), (r"\bn\b", "integer")),
    ("hfft_n_negative", lambda ns: ns.jnp.fft.hfft(V, n=-1), (r"\bn\b", "size", "points")),
    ("lax_fft_type", lambda ns: ns.lax.fft(C64, "foo", (4,)), ("fft_type", "type")),
    ("lax_fft_lengths", lambda ns: ns.lax.fft(C64, "FFT", (5,)), ("fft_lengths", "length",
                                                                  "shape")),
]
for _name, _fn, _names in _FFT:
  add(f"fft_{_name}", _fn, _names)

# --- lax --------------------------------------------------------------------------------------

IMG = np.ones((1, 1, 8, 8), F32)
KER = np.ones((1, 1, 3, 3), F32)


def _conv(ns, strides=(1, 1), padding="VALID", lhs=IMG, rhs=KER, **kw):
  return ns.lax.conv_general_dilated(lhs, rhs, strides, padding, **kw)


_LAX = [
    ("conv_pad_2_62", lambda ns: _conv(ns, padding=[(2 ** 62, 2 ** 62), (0, 0)]), ("padding",)),
    ("conv_pad_2_63", lambda ns: _conv(ns, padding=[(2 ** 63, 0), (0, 0)]), ("padding",)),
    ("conv_pad_huge", lambda ns: _conv(ns, padding=[(10 ** 12, 10 ** 12), (0, 0)]),
     ("shape", "memory", "allocat")),
    ("conv_elements_overflow", lambda ns: _conv(ns, padding=[(2 ** 40, 2 ** 40)] * 2),
     ("shape", "elements")),
    ("dot_general_elements_overflow_jit", lambda ns: ns.jax.jit(
        lambda: (ns.jnp.ones((2 ** 32, 1)) @ ns.jnp.ones((1, 2 ** 32))).sum())(),
     ("shape", "elements")),
    ("reduce_window_elements_overflow", lambda ns: ns.lax.reduce_window(
        X, 0.0, ns.lax.add, (1, 1), (1, 1), [(2 ** 40, 2 ** 40)] * 2), ("shape", "elements")),
    ("conv_pad_negative", lambda ns: _conv(ns, padding=[(-10, -10), (0, 0)]), ("padding",)),
    ("conv_pad_float", lambda ns: _conv(ns, padding=[(1.5, 0), (0, 0)]), ("padding",)),
    ("conv_pad_str", lambda ns: _conv(ns, padding="FOO"), ("padding",)),
    ("conv_pad_count", lambda ns: _conv(ns, padding=[(1, 1)]), ("pads", "padding")),
    ("conv_stride_zero", lambda ns: _conv(ns, strides=(0, 1)), ("stride",)),
    ("conv_stride_negative", lambda ns: _conv(ns, strides=(-1, 1)), ("stride",)),
    ("conv_stride_count", lambda ns: _conv(ns, strides=(1,)), ("stride",)),
    ("conv_stride_2_63", lambda ns: _conv(ns, strides=(2 ** 63, 1)), ("stride",)),
    ("conv_rhs_dilation_zero", lambda ns: _conv(ns, rhs_dilation=(0, 1)), ("dilation",)),
    ("conv_rhs_dilation_2_62", lambda ns: _conv(ns, rhs_dilation=(2 ** 62, 1)), ("dilation",)),
    ("conv_lhs_dilation_2_62", lambda ns: _conv(ns, padding=[(0, 0), (0, 0)],
                                                lhs_dilation=(2 ** 62, 1)), ("dilation",)),
    ("conv_lhs_dilation_string_pad", lambda ns: _conv(ns, lhs_dilation=(2, 1)), ("padding",)),
    ("conv_ranks", lambda ns: _conv(ns, rhs=np.ones((1, 3, 3), F32)), ("rank", "ndim",
                                                                        "shape")),
    ("conv_features", lambda ns: _conv(ns, rhs=np.ones((1, 2, 3, 3), F32)), ("feature",)),
    ("conv_group_zero", lambda ns: _conv(ns, feature_group_count=0), ("feature_group_count",)),
    ("conv_dtypes", lambda ns: _conv(ns, rhs=KER.astype(np.int32)), ("dtype",)),
    ("conv_dimension_numbers", lambda ns: _conv(ns, dimension_numbers=("NCHW", "OIHW", "NCXY")),
     ("dimension_numbers", "spec", "NCXY")),
    ("conv_strings", lambda ns: _conv(ns, lhs=np.array(["a"] * 64).reshape(1, 1, 8, 8)),
     ("dtype", "<U1", "str")),
    ("dot_general_contract_size", lambda ns: ns.lax.dot_general(X, X, (((1,), (0,)), ((), ()))),
     ("contracting", "shape")),
    ("dot_general_dims_big", lambda ns: ns.lax.dot_general(X, X, (((5,), (1,)), ((), ()))),
     ("contracting", "dimension", "axis")),
    ("dot_general_batch_size", lambda ns: ns.lax.dot_general(
        X, np.ones((3, 2), F32), (((1,), (0,)), ((0,), (1,)))), ("batch", "shape")),
    ("dot_general_bad_numbers", lambda ns: ns.lax.dot_general(X, X, "foo"),
     ("dimension_numbers", "foo")),
    ("dot_general_dtypes", lambda ns: ns.lax.dot_general(X, I32.T, (((1,), (0,)), ((), ()))),
     ("dtype", "type")),
    ("reduce_window_rank", lambda ns: ns.lax.reduce_window(X, 0.0, ns.lax.add, (2,), (1, 1),
                                                           "VALID"), ("window", "rank")),
    ("reduce_window_stride_zero", lambda ns: ns.lax.reduce_window(X, 0.0, ns.lax.add, (1, 1),
                                                                  (0, 1), "VALID"),
     ("stride",)),
    ("reduce_window_pad_2_62", lambda ns: ns.lax.reduce_window(
        X, 0.0, ns.lax.add, (1, 1), (1, 1), [(2 ** 62, 2 ** 62), (0, 0)]), ("padding",)),
    ("reduce_window_pad_str", lambda ns: ns.lax.reduce_window(X, 0.0, ns.lax.add, (1, 1),
                                                              (1, 1), "FOO"), ("padding",)),
    ("reduce_window_init_shape", lambda ns: ns.lax.reduce_window(X, np.zeros(2, F32),
                                                                 ns.lax.add, (1, 1), (1, 1),
                                                                 "VALID"),
     ("init", "scalar", "shape")),
    ("reduce_window_dilation_2_62", lambda ns: ns.lax.reduce_window(
        X, 0.0, ns.lax.add, (2, 1), (1, 1), "VALID", window_dilation=(2 ** 62, 1)),
     ("dilation",)),
    ("pad_config_len", lambda ns: ns.lax.pad(X, 0.0, [(1, 1, 0)]), ("padding_config", "pad",
                                                                    "rank")),
    ("pad_interior_negative", lambda ns: ns.lax.pad(X, 0.0, [(0, 0, -1), (0, 0, 0)]),
     ("interior", "padding")),
    ("pad_2_62", lambda ns: ns.lax.pad(X, 0.0, [(2 ** 62, 2 ** 62, 0), (0, 0, 0)]),
     ("padding", "pad")),
    ("pad_2_63", lambda ns: ns.lax.pad(X, 0.0, [(2 ** 63, 0, 0), (0, 0, 0)]),
     ("padding", "pad")),
    ("pad_value_shape", lambda ns: ns.lax.pad(X, np.zeros(2, F32), [(0, 0, 0)] * 2),
     ("padding_value", "scalar")),
    ("slice_out_of_bounds", lambda ns: ns.lax.slice(X, (0, 0), (2, 5)), ("limit", "bound",
                                                                         "index")),
    ("slice_rank", lambda ns: ns.lax.slice(X, (0,), (2,)), ("start", "rank")),
    ("slice_stride_zero", lambda ns: ns.lax.slice(X, (0, 0), (2, 2), (0, 1)), ("stride",)),
    ("dynamic_slice_size", lambda ns: ns.lax.dynamic_slice(X, (0, 0), (3, 3)), ("slice_size",
                                                                                "size")),
    ("dynamic_slice_index_count", lambda ns: ns.lax.dynamic_slice(X, (0,), (1, 1)),
     ("indices", "index", "start")),
    ("dynamic_slice_float_index", lambda ns: ns.lax.dynamic_slice(X, (0.5, 0), (1, 1)),
     ("indices", "index", "integer")),
    ("dynamic_update_slice_big", lambda ns: ns.lax.dynamic_update_slice(X, np.ones((3, 3), F32),
                                                                        (0, 0)), ("update",
                                                                                  "shape")),
    ("reshape_size", lambda ns: ns.lax.reshape(X, (5,)), ("reshape", "shape", "size")),
    ("reshape_dimensions", lambda ns: ns.lax.reshape(X, (6,), dimensions=(0, 0)),
     ("dimensions", "permutation")),
    ("broadcast_in_dim_dims", lambda ns: ns.lax.broadcast_in_dim(V, (4, 3), (5,)),
     ("broadcast_dimensions", "dimension")),
    ("broadcast_in_dim_shape", lambda ns: ns.lax.broadcast_in_dim(V, (3, 3), (0,)),
     ("shape", "broadcast")),
    ("transpose_perm", lambda ns: ns.lax.transpose(X, (0, 0)), ("permutation",)),
    ("concatenate_dtypes", lambda ns: ns.lax.concatenate([X, I32], 0), ("dtype",)),
    ("concatenate_dimension", lambda ns: ns.lax.concatenate([X, X], 5), ("dimension", "axis")),
    ("add_dtypes", lambda ns: ns.lax.add(X, I32), ("dtype", "type")),
    ("add_shapes", lambda ns: ns.lax.add(X, V), ("shape", "dimensions")),
    ("reduce_precision_bits", lambda ns: ns.lax.reduce_precision(V, -1, 5), ("exponent_bits",
                                                                            "bits")),
    ("cumsum_axis", lambda ns: ns.lax.cumsum(X, axis=5), ("axis",)),
    ("sort_dimension", lambda ns: ns.lax.sort(X, dimension=5), ("dimension", "axis")),
    ("top_k_big", lambda ns: ns.lax.top_k(V, 10), (r"\bk\b",)),
    ("top_k_negative", lambda ns: ns.lax.top_k(V, -1), (r"\bk\b",)),
    ("iota_bool", lambda ns: ns.lax.iota(np.bool_, 3), ("dtype", "bool")),
    ("full_negative", lambda ns: ns.lax.full((-1,), 0.0), ("shape", "negative", "-1")),
    ("select_shapes", lambda ns: ns.lax.select(V > 0, V, np.ones(3, F32)), ("shape",)),
    ("select_pred_dtype", lambda ns: ns.lax.select(V, V, V), ("pred", "bool", "which")),
    ("clamp_shapes", lambda ns: ns.lax.clamp(np.zeros(3, F32), V, np.ones(4, F32)),
     ("shape", "min", "clamp")),
    ("rev_dims", lambda ns: ns.lax.rev(X, (5,)), ("dimensions", "axis")),
    ("squeeze_not_one", lambda ns: ns.lax.squeeze(X, (0,)), ("dimensions", "squeeze")),
    ("expand_dims_repeat", lambda ns: ns.lax.expand_dims(X, (0, 0)), ("dimensions",
                                                                      "repeated")),
    ("gather_dimension_numbers", lambda ns: ns.lax.gather(X, np.zeros((1, 1), np.int32), "foo",
                                                          (1, 1)), ("dimension_numbers",)),
    ("argmax_axis", lambda ns: ns.lax.argmax(X, 5, np.int32), ("axis",)),
    ("argmax_index_dtype", lambda ns: ns.lax.argmax(X, 0, F32), ("index_dtype", "dtype")),
    ("integer_pow_float", lambda ns: ns.lax.integer_pow(V, 1.5), (r"\by\b", "integer")),
    ("bitcast_width", lambda ns: ns.lax.bitcast_convert_type(V, np.int8), ("bitcast",
                                                                           "width", "dtype")),
]
for _name, _fn, _names in _LAX:
  add(f"lax_{_name}", _fn, _names)

# --- random -----------------------------------------------------------------------------------

_RANDOM = [
    ("normal_shape_negative", lambda ns: ns.random.normal(ns.key, (-1,)), ("shape", "-1")),
    ("normal_shape_float", lambda ns: ns.random.normal(ns.key, 2.5), ("shape", "2.5")),
    ("normal_dtype_int", lambda ns: ns.random.normal(ns.key, (2,), dtype=np.int32),
     ("dtype", "float")),
    ("normal_dtype_dates", lambda ns: ns.random.normal(ns.key, (2,), dtype="datetime64"),
     ("dtype",)),
    ("normal_not_a_key", lambda ns: ns.random.normal(np.float32(1.0), (2,)), ("key",)),
    ("normal_key_shape", lambda ns: ns.random.normal(np.ones(3, np.uint32), (2,)), ("key",)),
    ("uniform_minval_shape", lambda ns: ns.random.uniform(ns.key, (2,), minval=np.ones(3, F32)),
     ("shape", "minval")),
    ("uniform_dtype_int", lambda ns: ns.random.uniform(ns.key, (2,), dtype=np.int32),
     ("dtype", "float")),
    ("randint_float_dtype", lambda ns: ns.random.randint(ns.key, (2,), 0, 10, dtype=F32),
     ("dtype", "integer")),
    ("randint_shape_str", lambda ns: ns.random.randint(ns.key, "a", 0, 10), ("shape",)),
    ("split_negative", lambda ns: ns.random.split(ns.key, -1), ("num", "negative", "-1",
                                                                "shape")),
    ("split_float", lambda ns: ns.random.split(ns.key, 2.5), ("num", "2.5", "shape")),
    ("split_not_a_key", lambda ns: ns.random.split(np.float32(1.0)), ("key",)),
    ("prngkey_str", lambda ns: ns.random.PRNGKey("a"), ("seed", "str")),
    ("prngkey_float", lambda ns: ns.random.PRNGKey(1.5), ("seed", "float", "integer")),
    ("prngkey_array", lambda ns: ns.random.PRNGKey(np.ones(3, np.int32)), ("seed", "scalar",
                                                                           "shape")),
    ("key_impl", lambda ns: ns.random.key(0, impl="foo"), ("impl", "foo")),
    ("choice_no_replace", lambda ns: ns.random.choice(ns.key, 3, (5,), replace=False),
     ("replace", "larger", "sample", "shape")),
    ("choice_p_shape", lambda ns: ns.random.choice(ns.key, 3, (2,), p=np.ones(4, F32) / 4),
     (r"\bp\b", "shape", "size")),
    ("categorical_axis", lambda ns: ns.random.categorical(ns.key, X, axis=5), ("axis",)),
    ("permutation_scalar_array", lambda ns: ns.random.permutation(ns.key, np.ones((), F32)),
     (r"\bx\b", "scalar", "1D", "dim")),
    ("permutation_axis", lambda ns: ns.random.permutation(ns.key, X, axis=5), ("axis",)),
    ("bernoulli_p_shape", lambda ns: ns.random.bernoulli(ns.key, np.full(3, 0.5, F32), (2,)),
     ("shape", r"\bp\b")),
    ("gamma_a_shape", lambda ns: ns.random.gamma(ns.key, np.ones(3, F32), (2,)), ("shape",
                                                                                  r"\ba\b")),
    ("fold_in_float", lambda ns: ns.random.fold_in(ns.key, 1.5), ("data", "integer", "float")),
    ("key_data_int", lambda ns: ns.random.key_data(3), ("key", "int")),
    ("truncated_normal_dtype", lambda ns: ns.random.truncated_normal(ns.key, -1.0, 1.0, (2,),
                                                                     dtype=np.int32),
     ("dtype", "float")),
    ("bits_dtype", lambda ns: ns.random.bits(ns.key, (2,), dtype=F32), ("dtype",
                                                                        "unsigned")),
    ("multivariate_cov_shape", lambda ns: ns.random.multivariate_normal(
        ns.key, np.zeros(2, F32), np.eye(3, dtype=F32)), ("cov", "mean", "shape")),
    ("dirichlet_alpha_scalar", lambda ns: ns.random.dirichlet(ns.key, np.float32(1.0)),
     ("alpha", "dim", "1")),
]
for _name, _fn, _names in _RANDOM:
  add(f"random_{_name}", _fn, _names)

# --- tree_util --------------------------------------------------------------------------------

_TREE = [
    ("unflatten_count", lambda ns: ns.tree_util.tree_unflatten(
        ns.tree_util.tree_structure((1, 2)), [1]), ("leaves",)),
    ("unflatten_not_treedef", lambda ns: ns.tree_util.tree_unflatten("x", [1]), ("treedef",
                                                                                 "PyTreeDef",
                                                                                 "str")),
    ("map_lengths", lambda ns: ns.tree_util.tree_map(lambda a, b: a, [1], [1, 2]),
     ("length", "structure", "tree")),
    ("map_keys", lambda ns: ns.tree_util.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
     ("key", "structure")),
    ("map_types", lambda ns: ns.tree_util.tree_map(lambda a, b: a, (1, 2), [1, 2]),
     ("type", "structure", "tuple", "list")),
    ("map_none", lambda ns: ns.tree_util.tree_map(lambda a, b: a, (1, None), (1, 2)),
     ("None", "structure")),
    ("map_not_callable", lambda ns: ns.tree_util.tree_map(3, [1]), ("callable", "int")),
    ("reduce_empty", lambda ns: ns.tree_util.tree_reduce(lambda a, b: a, []),
     ("initial", "empty")),
    ("transpose_wrong", lambda ns: ns.tree_util.tree_transpose(
        ns.tree_util.tree_structure([0, 0]), ns.tree_util.tree_structure((0, 0)), [(1, 2)]),
     ("structure", "treedef", "transpose")),
    ("keystr_int", lambda ns: ns.tree_util.keystr(3), ("keys", "path", "int")),
    ("register_twice", lambda ns: [ns.tree_util.register_pytree_node(
        _Twice, lambda t: ((), None), lambda a, c: _Twice()) for _ in range(2)],
     ("registered", "_Twice")),
    ("register_not_a_type", lambda ns: ns.tree_util.register_pytree_node(
        3, lambda t: ((), None), lambda a, c: 3), ("type", "int", "3")),
    ("tree_flatten_up_to_bad", lambda ns: ns.tree_util.tree_structure((0, 0)).flatten_up_to(
        [1, 2]), ("tuple", "list", "structure", "type")),
    ("partial_not_callable", lambda ns: ns.tree_util.Partial(3)(), ("callable", "int")),
    ("tree_structure_compare", lambda ns: ns.tree_util.tree_unflatten(
        ns.tree_util.tree_structure([0]), [1, 2, 3]), ("leaves",)),
]
for _fn in ["tree_flatten", "tree_leaves", "tree_structure", "tree_flatten_with_path",
            "tree_all"]:
  _TREE.append((f"{_fn}_is_leaf_int", lambda ns, f=_fn: getattr(ns.tree_util, f)(
      [1, 2], is_leaf=3), ("is_leaf",)))
  _TREE.append((f"{_fn}_is_leaf_str", lambda ns, f=_fn: getattr(ns.tree_util, f)(
      [1, 2], is_leaf="a"), ("is_leaf",)))
for _fn in ["tree_map", "tree_map_with_path", "tree_reduce"]:
  _TREE.append((f"{_fn}_is_leaf_int", lambda ns, f=_fn: getattr(ns.tree_util, f)(
      lambda *a: a[-1], [1, 2], is_leaf=3), ("is_leaf",)))
for _name, _fn, _names in _TREE:
  add(f"tree_{_name}", _fn, _names)


class _Twice:
  pass


# --- transforms -------------------------------------------------------------------------------

_TRANSFORMS = [
    ("jit_int", lambda ns: ns.jax.jit(3), ("callable", "int", "fun")),
    ("jit_static_argnums_str", lambda ns: ns.jax.jit(_f, static_argnums="a")(1.0),
     ("static_argnums",)),
    ("jit_static_argnums_big", lambda ns: ns.jax.jit(_f, static_argnums=5)(1.0), ()),
    ("jit_static_unhashable", lambda ns: ns.jax.jit(_f, static_argnums=0)(np.ones(2)),
     ("hash", "static")),
    ("jit_donate_float", lambda ns: ns.jax.jit(_f, donate_argnums=1.5)(1.0), ("donate_argnums",
                                                                               "1.5")),
    ("jit_static_argnames_int", lambda ns: ns.jax.jit(_f, static_argnames=3)(1.0),
     ("static_argnames",)),
    ("jit_object_arg", lambda ns: ns.jax.jit(_f)(object()), ("object", "argument", r"\bx\b")),
    ("jit_str_arg", lambda ns: ns.jax.jit(_f)("a"), ("str", "argument", r"\bx\b")),
    ("jit_bad_kwarg", lambda ns: ns.jax.jit(_f)(1.0, y=2.0), (r"\by\b", "argument")),
    ("jit_missing_arg", lambda ns: ns.jax.jit(_f)(), (r"\bx\b", "argument")),
    ("jit_bool_of_tracer", lambda ns: ns.jax.jit(lambda x: 1 if x > 0 else 0)(1.0),
     ("bool", "concrete", "tracer")),
    ("jit_int_of_tracer", lambda ns: ns.jax.jit(lambda x: int(x))(1.0),
     ("int", "concrete", "tracer")),
    ("jit_shape_from_tracer", lambda ns: ns.jax.jit(lambda n: ns.jnp.zeros(n))(3),
     ("shape", "concrete", "jit")),
    ("grad_int_fun", lambda ns: ns.jax.grad(3), ("callable", "int", "fun")),
    ("grad_argnums_big", lambda ns: ns.jax.grad(_sum, argnums=3)(V), ("argnums",)),
    ("grad_argnums_float", lambda ns: ns.jax.grad(_sum, argnums=1.5)(V), ("argnums", "1.5")),
    ("grad_nonscalar", lambda ns: ns.jax.grad(lambda x: x * 2)(V), ("scalar", "shape")),
    ("grad_int_input", lambda ns: ns.jax.grad(lambda x: x * 2)(1), ("int", "float", "dtype")),
    ("grad_complex_output", lambda ns: ns.jax.grad(lambda x: x * 1j)(1.0),
     ("holomorphic", "real", "complex")),
    ("grad_has_aux_not_pair", lambda ns: ns.jax.grad(_sum, has_aux=True)(V), ("has_aux",
                                                                               "pair",
                                                                               "tuple")),
    ("value_and_grad_nonscalar", lambda ns: ns.jax.value_and_grad(lambda x: x)(V),
     ("scalar", "shape")),
    ("grad_str_input", lambda ns: ns.jax.grad(_f)("a"), ("str", "argument")),
    ("vmap_int_fun", lambda ns: ns.jax.vmap(3), ("callable", "int", "fun")),
    ("vmap_in_axes_big", lambda ns: ns.jax.vmap(_f, in_axes=5)(V), ("in_axes", "axis")),
    ("vmap_in_axes_len", lambda ns: ns.jax.vmap(_f, in_axes=(0, 0))(V), ("in_axes",)),
    ("vmap_in_axes_str", lambda ns: ns.jax.vmap(_f, in_axes="a")(V), ("in_axes",)),
    ("vmap_in_axes_float", lambda ns: ns.jax.vmap(_f, in_axes=1.5)(V), ("in_axes", "1.5")),
    ("vmap_sizes", lambda ns: ns.jax.vmap(lambda a, b: a + b)(V, np.ones(3, F32)),
     ("size", "axis")),
    ("vmap_out_axes_big", lambda ns: ns.jax.vmap(_f, out_axes=5)(V), ("out_axes", "axis")),
    ("vmap_scalar", lambda ns: ns.jax.vmap(_f)(np.float32(1.0)), ("axis", "rank", "scalar")),
    ("vmap_no_args", lambda ns: ns.jax.vmap(lambda: 1.0)(), ("argument", "axis", "in_axes")),
    ("vmap_in_axes_none_all", lambda ns: ns.jax.vmap(_f, in_axes=None)(V), ("in_axes", "None",
                                                                           "axis")),
    ("vmap_axis_size_mismatch", lambda ns: ns.jax.vmap(_f, axis_size=3)(V), ("axis_size",
                                                                             "size")),
    ("jacfwd_argnums_big", lambda ns: ns.jax.jacfwd(_sum, argnums=3)(V), ("argnums",)),
    ("jacrev_int_fun", lambda ns: ns.jax.jacrev(3)(V), ("callable", "int", "fun")),
    ("jacfwd_int_input", lambda ns: ns.jax.jacfwd(_f)(np.arange(3)), ("int", "float",
                                                                      "dtype")),
    ("hessian_int_fun", lambda ns: ns.jax.hessian(3)(V), ("callable", "int", "fun")),
    ("jvp_list_primals", lambda ns: ns.jax.jvp(_f, [1.0], [1.0]), ("primals", "tuple")),
    ("jvp_shape_mismatch", lambda ns: ns.jax.jvp(_f, (V,), (np.ones(3, F32),)),
     ("shape", "tangent")),
    ("jvp_dtype_mismatch", lambda ns: ns.jax.jvp(_f, (V,), (V.astype(np.float16),)),
     ("dtype", "tangent")),
    ("jvp_count", lambda ns: ns.jax.jvp(_f, (V,), (V, V)), ("primals", "tangents",
                                                            "structure")),
    ("vjp_int_fun", lambda ns: ns.jax.vjp(3, 1.0), ("callable", "int", "fun")),
    ("vjp_cotangent_shape", lambda ns: ns.jax.vjp(_f, V)[1](np.ones(3, F32)),
     ("shape", "cotangent")),
    ("linearize_int_fun", lambda ns: ns.jax.linearize(3, 1.0), ("callable", "int", "fun")),
    ("make_jaxpr_int_fun", lambda ns: ns.jax.make_jaxpr(3), ("callable", "int", "fun")),
    ("eval_shape_int_fun", lambda ns: ns.jax.eval_shape(3, 1.0), ("callable", "int", "fun")),
    ("checkpoint_int_fun", lambda ns: ns.jax.checkpoint(3)(1.0), ("callable", "int", "fun")),
    ("custom_jvp_int_fun", lambda ns: ns.jax.custom_jvp(3)(1.0), ("callable", "int", "fun")),
    ("scan_lengths", lambda ns: ns.lax.scan(lambda c, x: (c, x), 0.0, (V, np.ones(3, F32))),
     ("length", "leading", "axis")),
    ("scan_carry_type", lambda ns: ns.lax.scan(lambda c, x: (c * x, x), np.int32(0), V),
     ("carry", "type")),
    ("scan_int_fun", lambda ns: ns.lax.scan(3, 0.0, V), ("callable", "int", r"\bf\b")),
    ("scan_length_mismatch", lambda ns: ns.lax.scan(lambda c, x: (c, x), 0.0, V, length=3),
     ("length",)),
    ("cond_pred_shape", lambda ns: ns.lax.cond(V > 0, _f, _f, 1.0), ("pred", "scalar")),
    ("cond_branch_types", lambda ns: ns.lax.cond(True, lambda: 1.0, lambda: (1.0, 2.0)),
     ("branch", "output", "structure")),
    ("cond_int_branch", lambda ns: ns.lax.cond(True, 3, _f, 1.0), ("callable", "true_fun",
                                                                   "int")),
    ("fori_loop_float_bound", lambda ns: ns.lax.fori_loop(0, 1.5, lambda i, c: c, 0.0),
     ("upper", "lower", "integer", "type")),
    ("while_loop_cond_shape", lambda ns: ns.lax.while_loop(lambda c: V > c, lambda c: c + 1,
                                                           0.0), ("cond_fun", "scalar",
                                                                  "boolean", "shape")),
    ("while_loop_body_type", lambda ns: ns.lax.while_loop(lambda c: c < 3, lambda c: c + 0.5,
                                                          0), ("body_fun", "carry", "type")),
    ("switch_float_index", lambda ns: ns.lax.switch(1.5, [_f, _f], 1.0), ("index",
                                                                          "integer")),
    ("switch_no_branches", lambda ns: ns.lax.switch(0, [], 1.0), ("branch", "empty")),
    ("map_int_fun", lambda ns: ns.lax.map(3, V), ("callable", "int", r"\bf\b")),
    ("device_put_bad_device", lambda ns: ns.jax.device_put(V, "cpu"), ("device", "cpu",
                                                                       "sharding")),
    ("pmap_int_fun", lambda ns: ns.jax.pmap(3), ("callable", "int", "fun")),
    ("pmap_too_many", lambda ns: ns.jax.pmap(_f)(np.ones((64, 2), F32)), ("device", "size",
                                                                          "64")),
    ("block_until_ready_str", lambda ns: ns.jax.block_until_ready("a"), ()),
]
for _name, _fn, _names in _TRANSFORMS:
  add(f"transform_{_name}", _fn, _names)


def record(ns, name: str) -> dict:
  """What case ``name`` gives: {"error": type name, "mro": its classes' names} or {"ok":
  a short description of the result}."""
  fn = CASES[name][0]
  try:
    out = fn(ns)
  except Exception as e:  # noqa: BLE001 (errors are the records)
    return {"error": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__[1:-2]]}
  shape = getattr(out, "shape", None)
  return {"ok": None if shape is None else [list(shape), str(out.dtype)]}
