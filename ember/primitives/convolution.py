"""Convolution: the ``conv_general_dilated`` primitive.

``conv_general_dilated(lhs, rhs)`` slides the kernel ``rhs`` over the input ``lhs``. Params:
``window_strides``, ``padding`` (one ``(low, high)`` pair per spatial dimension, negative
crops), ``lhs_dilation`` and ``rhs_dilation`` (holes between input / kernel elements),
``dimension_numbers`` (a ``ConvDimensionNumbers``), ``feature_group_count``,
``batch_group_count``, ``precision``, ``preferred_element_type`` and ``out_sharding`` (None).

``ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`` names, by position, where each operand
keeps its dimensions: ``lhs_spec = (batch, feature, spatial...)``, ``rhs_spec = (out feature,
in feature, spatial...)``, ``out_spec = (batch, feature, spatial...)``. In that canonical
layout (lhs ``[N, C, s...]``, rhs ``[O, I, k...]``), with ``lhs_d`` the input dilated and padded:

    out[n, o, x...] = sum_{i, k...} lhs_d[n, g(o) I + i, x s + k r...] rhs[o, i, k...]

where ``g(o)`` is the feature group of output feature ``o`` (``C = G I``, ``O`` a multiple of
``G``). With ``batch_group_count = B`` the batch splits into ``B`` groups instead, each
convolved with its own slice of the output features (the output batch is ``N / B``).

The op lowers to one ``stablehlo.convolution`` (complex operands: three real convolutions, as
JAX does on CPU). It is bilinear: its jvp applies it to each tangent, and each operand's
transpose is another convolution (the "transposed convolution" of the cotangent with the
flipped kernel for the input; a convolution of the input with the cotangent for the kernel),
whose strides and dilations trade places. Batching folds the batch axis into the batch or
feature dimension (or a feature/batch group) of the operands; there is no loop.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ember import dtypes
from ember.core.aval import ShapedArray
from ember.core.trace import Primitive, get_aval
from ember.backend.array import check_size
from ember.backend.lowering import LoweringContext, Value, i64_array
from ember.primitives.elementwise import _real_dtype, _same_dtypes
from ember.primitives.linalg import DotAlgorithmPreset, Precision
from ember.primitives.lower_fun import lower_fun
from ember.transforms import batching
from ember.transforms.ad_util import Zero, bilinear_jvp, is_undefined

__all__ = ["ConvDimensionNumbers", "check_dims", "check_int64", "dilate_shape", "stride_dim",
           "vjp_lhs_padding"]


class ConvDimensionNumbers(NamedTuple):
  """Where the batch, feature and spatial dimensions of each operand are.

  Example:
      >>> ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)).rhs_spec
      (3, 2, 0, 1)
  """
  lhs_spec: tuple[int, ...]
  rhs_spec: tuple[int, ...]
  out_spec: tuple[int, ...]


# --- shape helpers (shared with the windowed reductions) --------------------------------------

def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
  """Sizes after putting ``dilation - 1`` holes between consecutive elements."""
  if any(d < 1 for d in dilation):
    raise TypeError(f"All dilations must be positive, got {tuple(dilation)}.")
  return tuple(0 if s == 0 else 1 + r * (s - 1) for s, r in zip(shape, dilation))


def stride_dim(size: int, window: int, stride: int) -> int:
  """How many windows of ``window`` elements fit in ``size`` at ``stride`` apart."""
  return max((size - window) // stride + 1, 0)


def vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
  """Padding of the transposed convolution that maps an output cotangent (dilated by the
  strides) back onto the input: the window's reach before the first input element, and
  whatever makes the result as long as the (dilated) input. NumPy ints, as JAX computes them."""
  in_d = np.array(dilate_shape(in_shape, lhs_dilation))
  window_d = np.array(dilate_shape(window, rhs_dilation))
  out_d = np.array(dilate_shape(out_shape, strides))
  before = window_d - np.array([lo for lo, _ in padding], dtype=np.int64) - 1
  after = in_d + window_d - 1 - out_d - before
  return list(zip(before, after))


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
  """Padding of the convolution of the input with the output cotangent that yields the
  kernel's cotangent: the forward low padding, and a high padding making the result exactly
  as long as the (dilated) kernel."""
  in_d = dilate_shape(in_shape, lhs_dilation)
  window_d = dilate_shape(window, rhs_dilation)
  out_d = dilate_shape(out_shape, strides)
  return tuple((lo, o - i + w - lo - 1)
               for (lo, _), i, w, o in zip(padding, in_d, window_d, out_d))


def _take(shape: Sequence[int], spec: Sequence[int]) -> tuple[int, ...]:
  return tuple(shape[d] for d in spec)


def _swap_spec(spec: tuple[int, ...]) -> tuple[int, ...]:
  """The spec with its first two roles exchanged (batch <-> feature, out <-> in)."""
  return (spec[1], spec[0]) + spec[2:]


def _merge_axis(x, src: int, dst: int):
  """Fold axis ``src`` of ``x`` into axis ``dst`` (numbered without ``src``) as its major
  part: ``[..., a, ..., b, ...] -> [..., a * b, ...]``."""
  from ember import lax
  shape = list(get_aval(x).shape)
  perm = [d for d in range(len(shape)) if d != src]
  perm.insert(dst, src)
  size = shape.pop(src)
  shape[dst] *= size
  return lax.reshape(x, tuple(shape), tuple(perm))


def _split_axis(x, at: int, major: int):
  """Split axis ``at`` of ``x`` into ``(major, size // major)``."""
  from ember import lax
  shape = list(get_aval(x).shape)
  shape[at:at + 1] = [major, shape[at] // major]
  return lax.reshape(x, tuple(shape))


# --- abstract evaluation ----------------------------------------------------------------------

def _check_groups(lhs: ShapedArray, rhs: ShapedArray, dn: ConvDimensionNumbers,
                  feature_group_count: int, batch_group_count: int) -> None:
  if feature_group_count <= 0:
    raise ValueError("conv_general_dilated feature_group_count must be a positive integer, "
                     f"got {feature_group_count}.")
  c = lhs.shape[dn.lhs_spec[1]]
  o, i = rhs.shape[dn.rhs_spec[0]], rhs.shape[dn.rhs_spec[1]]
  if c % feature_group_count:
    raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                     f"dimension size, but {feature_group_count} does not divide {c}.")
  if c // feature_group_count != i:
    raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                     "feature_group_count must equal the rhs input feature dimension size, but "
                     f"{c} // {feature_group_count} != {i}.")
  if o % feature_group_count:
    raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                     f"multiple of feature_group_count, but {o} is not a multiple of "
                     f"{feature_group_count}.")
  if batch_group_count <= 0:
    raise ValueError("conv_general_dilated batch_group_count must be a positive integer, "
                     f"got {batch_group_count}.")
  n = lhs.shape[dn.lhs_spec[0]]
  if batch_group_count > 1 and n % batch_group_count:
    raise ValueError("conv_general_dilated batch_group_count must divide lhs batch dimension "
                     f"size, but {batch_group_count} does not divide {n}.")
  if o % batch_group_count:
    raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                     f"multiple of batch_group_count, but {o} is not a multiple of "
                     f"{batch_group_count}.")
  if batch_group_count > 1 and feature_group_count > 1:
    raise ValueError("At most one of batch_group_count and feature_group_count may be > 1, got "
                     f"batch_group_count={batch_group_count} and "
                     f"feature_group_count={feature_group_count}")


def _check_window(nspatial: int, window_strides, padding, lhs_dilation, rhs_dilation) -> None:
  if nspatial != len(window_strides):
    raise ValueError("conv_general_dilated window and window_strides must have the same number "
                     f"of dimensions, but got {nspatial} and {len(window_strides)}")
  if any(s <= 0 for s in window_strides):  # (a ValueError, as JAX's verifier gives)
    raise ValueError("conv_general_dilated window_strides must have every element be strictly "
                     f"positive, got {tuple(window_strides)}.")
  for name, dilation in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if len(dilation) != nspatial:
      raise ValueError(f"conv_general_dilated {name} must have one entry per spatial dimension "
                       f"({nspatial}), got {tuple(dilation)}.")
  if len(padding) != nspatial:
    raise TypeError("Wrong number of explicit pads for convolution: expected "
                    f"{nspatial}, got {len(padding)}.")
  for name, values in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                       ("rhs_dilation", rhs_dilation)):  # (JAX: an OverflowError)
    check_int64(f"conv_general_dilated {name}", values, OverflowError)
  check_int64("conv_general_dilated padding", [p for pair in padding for p in pair])


_INT64_MAX = (1 << 63) - 1


def check_int64(what: str, values, error=TypeError) -> None:
  """An ``error`` naming ``what`` if a window parameter does not fit in int64, which is how
  XLA stores it (a larger one would reach the compiler as text it cannot read)."""
  if any(not -_INT64_MAX - 1 <= int(v) <= _INT64_MAX for v in values):
    raise error(f"{what} must hold int64 values (at most 2**63 - 1 in magnitude), got "
                f"{tuple(values)}.")


def check_dims(what: str, dims, cause: str, error=ValueError) -> None:
  """An ``error`` if a size computed from the window parameters (``cause``) overflows int64."""
  if any(d > _INT64_MAX for d in dims):
    raise error(f"{what}: {cause} gives sizes {tuple(dims)}, more than any array dimension "
                "can hold (2**63 - 1); use smaller values.")


def conv_shape(lhs_shape, rhs_shape, strides, padding, batch_group_count: int = 1):
  """The output shape in canonical layout of canonical-layout operand shapes (dilated)."""
  padded = [d + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], padding)]
  check_dims("conv_general_dilated", padded, f"padding={tuple(padding)}")
  if any(d < 0 for d in padded):
    raise ValueError("Negative padding is larger than the size of the corresponding dimension: "
                     f"got padding={tuple(padding)} for lhs_shape[2:]={tuple(lhs_shape[2:])}")
  spatial = tuple(stride_dim(d, k, s) for d, k, s in zip(padded, rhs_shape[2:], strides))
  return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + spatial


def _check_preferred(input_dtype, preferred) -> None:
  """JAX's rule for ``preferred_element_type``: same kind (ints may widen to floats), same
  signedness for signed ints, never narrower."""
  pref = np.dtype(preferred)
  if not (dtypes.is_integer(input_dtype) and dtypes.is_float(pref)):
    kinds = (dtypes.is_integer, dtypes.is_float, dtypes.is_complex)
    if any(kind(input_dtype) and not kind(pref) for kind in kinds):
      raise TypeError("Input type is incompatible with `preferred_element_type`. The compatible "
                      "combinations of (input_type, preferred_element_type) are (integral, "
                      "integral), (integral, floating), (floating, floating), (complex, "
                      "complex.")
    if dtypes.is_signed(input_dtype) and not dtypes.is_signed(pref):
      raise TypeError("`preferred_element_type` must have the same signedness as the original "
                      "type.")
  if pref.itemsize < np.dtype(input_dtype).itemsize:
    raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def _conv_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides, padding,
                        lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type, out_sharding=None):
  if lhs.ndim != rhs.ndim:
    raise ValueError("conv_general_dilated lhs and rhs must have the same number of dimensions, "
                     f"but got {lhs.shape} and {rhs.shape}.")
  if lhs.ndim < 2:
    raise ValueError("conv_general_dilated needs operands with batch (or output feature) and "
                     f"feature dimensions, of rank at least 2, but got {lhs.shape} and "
                     f"{rhs.shape}.")
  dn = dimension_numbers
  _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count)
  _check_window(len(dn.rhs_spec) - 2, window_strides, padding, lhs_dilation, rhs_dilation)
  lhs_c = _take(lhs.shape, dn.lhs_spec)
  rhs_c = _take(rhs.shape, dn.rhs_spec)
  lhs_c = lhs_c[:2] + dilate_shape(lhs_c[2:], lhs_dilation)
  rhs_c = rhs_c[:2] + dilate_shape(rhs_c[2:], rhs_dilation)
  check_dims("conv_general_dilated", lhs_c[2:], f"lhs_dilation={tuple(lhs_dilation)}")
  check_dims("conv_general_dilated", rhs_c[2:], f"rhs_dilation={tuple(rhs_dilation)}")
  out_c = conv_shape(lhs_c, rhs_c, window_strides, padding, batch_group_count)
  shape = tuple(out_c[i] for i in np.argsort(dn.out_spec))
  _same_dtypes("conv_general_dilated", (lhs, rhs), None)
  dt = lhs.dtype
  if preferred_element_type is not None:
    _check_preferred(dt, preferred_element_type)
    dt = np.dtype(preferred_element_type)
  check_size(shape, dt)  # (an element count beyond int64 would reach XLA, which aborts)
  return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


# --- lowering ---------------------------------------------------------------------------------

def _dims_attr(dn: ConvDimensionNumbers) -> str:
  (lb, lf, *ls), (ko, ki, *ks), (ob, of, *os_) = dn
  return (f"#stablehlo.conv<raw input_batch_dimension = {lb}, input_feature_dimension = {lf}, "
          f"input_spatial_dimensions = {list(ls)}, kernel_input_feature_dimension = {ki}, "
          f"kernel_output_feature_dimension = {ko}, kernel_spatial_dimensions = {list(ks)}, "
          f"output_batch_dimension = {ob}, output_feature_dimension = {of}, "
          f"output_spatial_dimensions = {list(os_)}>")


def padding_attr(padding) -> str:
  """A ``dense<[[lo, hi], ...]> : tensor<Nx2xi64>`` attribute."""
  rows = ", ".join(f"[{int(lo)}, {int(hi)}]" for lo, hi in padding)
  return f"dense<[{rows}]> : tensor<{len(padding)}x2xi64>" if padding else \
      "dense<> : tensor<0x2xi64>"


def _precision_config(precision) -> str:
  pair = precision if type(precision) is tuple else (Precision.DEFAULT,) * 2  # not DotAlgorithm
  return "[" + ", ".join(f"#stablehlo<precision {p.name}>" for p in pair) + "]"


def _complex_conv(lhs, rhs, *, preferred_element_type, **params):
  """A complex convolution as three real ones (Gauss's product, as JAX lowers it on CPU):
  (a + bi)(c + di) = (k1 - k3) + (k1 + k2)i with k1 = c(a + b), k2 = a(d - c), k3 = b(c + d)."""
  from ember import lax
  pet = None if preferred_element_type is None else np.dtype(_real_dtype(preferred_element_type))
  def conv(x, y):
    return conv_general_dilated_p.bind(x, y, preferred_element_type=pet, **params)
  a, b, c, d = lax.real(lhs), lax.imag(lhs), lax.real(rhs), lax.imag(rhs)
  k1 = conv(lax.add(a, b), c)
  k2 = conv(a, lax.sub(d, c))
  k3 = conv(b, lax.add(c, d))
  return lax.complex(lax.sub(k1, k3), lax.add(k1, k2))


_complex_conv_lower = lower_fun(_complex_conv)


def _conv_lower(ctx: LoweringContext, lhs: Value, rhs: Value, **params) -> Value:
  if dtypes.is_complex(lhs.aval.dtype):
    return _complex_conv_lower(ctx, lhs, rhs, **params)
  n = len(params["window_strides"])
  attrs = {"batch_group_count": f"{params['batch_group_count']} : i64",
           "dimension_numbers": _dims_attr(params["dimension_numbers"]),
           "feature_group_count": f"{params['feature_group_count']} : i64",
           "lhs_dilation": i64_array(params["lhs_dilation"]),
           "padding": padding_attr(params["padding"]),
           "precision_config": _precision_config(params["precision"]),
           "rhs_dilation": i64_array(params["rhs_dilation"]),
           "window_reversal": f"array<i1: {', '.join(['false'] * n)}>" if n else "array<i1>",
           "window_strides": i64_array(params["window_strides"])}
  return ctx.op1("stablehlo.convolution", [lhs, rhs], ctx.avals_out[0], attrs)


def _conv_pp_params(params: dict) -> dict:
  """As JAX prints them: every param, a DotAlgorithmPreset by its bare name."""
  out = dict(sorted(params.items()))
  if isinstance(out["precision"], DotAlgorithmPreset):
    out["precision"] = str(out["precision"])
  return out


conv_general_dilated_p = Primitive("conv_general_dilated")
conv_general_dilated_p.def_rules(abstract_eval=_conv_abstract_eval, lower=_conv_lower)
conv_general_dilated_p.def_rules(pp_params=_conv_pp_params)


# --- autodiff: bilinear -----------------------------------------------------------------------

def _as_dtype(x, dtype):
  from ember import lax
  return x if get_aval(x).dtype == dtype else lax._convert_element_type(x, dtype)


def _transpose_lhs(ct, lhs_aval: ShapedArray, rhs, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                   **params):
  """The input's cotangent: the cotangent convolved with the spatially flipped kernel whose
  in/out feature roles are exchanged. Strides become input dilation and vice versa. Groups of
  the kernel's output features move into its (new) output features, and batch groups become
  feature groups whose output is folded back into the batch."""
  from ember import lax
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  groups = max(feature_group_count, batch_group_count)
  if groups > 1:
    rhs = _merge_axis(_split_axis(rhs, rhs_spec[0], groups), rhs_spec[0], rhs_spec[1])
  pads = vjp_lhs_padding(_take(lhs_aval.shape, lhs_spec[2:]),
                         _take(get_aval(rhs).shape, rhs_spec[2:]), window_strides,
                         _take(get_aval(ct).shape, out_spec[2:]), padding, lhs_dilation,
                         rhs_dilation)
  kernel = _as_dtype(lax.rev(rhs, rhs_spec[2:]), get_aval(ct).dtype)
  out = conv_general_dilated_p.bind(
      ct, kernel, window_strides=lhs_dilation, padding=tuple((int(a), int(b)) for a, b in pads),
      lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
      dimension_numbers=ConvDimensionNumbers(out_spec, _swap_spec(rhs_spec), lhs_spec),
      feature_group_count=groups, batch_group_count=1, **params)
  out = _as_dtype(out, lhs_aval.dtype)
  if batch_group_count > 1:
    out = _merge_axis(_split_axis(out, lhs_spec[1], batch_group_count), lhs_spec[1],
                      lhs_spec[0])
  return out


def _transpose_rhs(ct, lhs, rhs_aval: ShapedArray, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                   **params):
  """The kernel's cotangent: the input convolved with the cotangent, contracting the batch
  (the input's batch and feature dimensions trade roles, as do the cotangent's). Feature
  groups become batch groups and vice versa; the kernel dilation becomes the stride."""
  if get_aval(ct).size == 0:  # no window to correlate with: the kernel got no cotangent
    return Zero(rhs_aval)
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  pads = _vjp_rhs_padding(_take(get_aval(lhs).shape, lhs_spec[2:]),
                          _take(rhs_aval.shape, rhs_spec[2:]), window_strides,
                          _take(get_aval(ct).shape, out_spec[2:]), padding, lhs_dilation,
                          rhs_dilation)
  out = conv_general_dilated_p.bind(
      _as_dtype(lhs, get_aval(ct).dtype), ct, window_strides=rhs_dilation, padding=pads,
      lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
      dimension_numbers=ConvDimensionNumbers(_swap_spec(lhs_spec), _swap_spec(out_spec),
                                             _swap_spec(rhs_spec)),
      feature_group_count=batch_group_count, batch_group_count=feature_group_count, **params)
  return _as_dtype(out, rhs_aval.dtype)


def _conv_transpose(ct, lhs, rhs, **params):
  """Exactly one operand is linear (undefined); its cotangent is a convolution."""
  if is_undefined(lhs):
    ct_lhs = Zero(lhs.aval) if type(ct) is Zero else _transpose_lhs(ct, lhs.aval, rhs, **params)
    return [ct_lhs, None]
  ct_rhs = Zero(rhs.aval) if type(ct) is Zero else _transpose_rhs(ct, lhs, rhs.aval, **params)
  return [None, ct_rhs]


conv_general_dilated_p.def_rules(jvp=bilinear_jvp(conv_general_dilated_p),
                                 transpose=_conv_transpose)


# --- batching ---------------------------------------------------------------------------------

def _fold_into_groups(x, bdim: int, dim: int, groups: int):
  """Fold the batch axis ``bdim`` of ``x`` into its dimension ``dim`` (numbered without the
  batch axis) inside each of ``groups`` groups: ``[G, n] -> [G, size * n]``, examples major."""
  if groups == 1:
    return _merge_axis(x, bdim, dim)
  x = _split_axis(x, dim + (bdim <= dim), groups)
  x = _merge_axis(x, bdim + (dim < bdim), dim + 1)
  return _merge_axis(x, dim, dim)


def _unfold_from_groups(x, dim: int, groups: int, size: int):
  """The inverse on the output: ``[G, size * n]`` at ``dim`` -> a batch axis at ``dim``, then
  ``[G, n]``."""
  if groups == 1:
    return _split_axis(x, dim, size)
  x = _split_axis(_split_axis(x, dim, groups), dim + 1, size)
  return _merge_axis(x, dim, dim + 1)


def _empty_batch(vals, dims, params):
  """A batch of no examples: zeros of the right shape (the folds would divide by zero)."""
  from ember import lax
  one = [get_aval(v) for v in vals]
  one = [a if d is None else ShapedArray(a.shape[:d] + a.shape[d + 1:], a.dtype)
         for a, d in zip(one, dims)]
  out = conv_general_dilated_p.abstract(tuple(one), params)
  return lax.full((0,) + out.shape, 0, out.dtype)


def _conv_batch(axis, vals, dims, **params):
  """Fold the vmapped axis into the convolution. Both operands batched: each example is a
  feature group (or, with batch groups, a batch group) of one grouped convolution. Input only:
  more batch rows (inside each batch group). Kernel only: more output features (inside each
  group). The result's axis is split back out of the output batch or feature dimension."""
  (lhs, rhs), (ld, rd) = vals, dims
  lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
  fgc, bgc = params["feature_group_count"], params["batch_group_count"]
  size = batching.batch_size(vals, dims)
  if size == 0:
    return _empty_batch(vals, dims, params), 0
  if ld is not None and rd is not None:
    if bgc > 1:
      lhs, groups = _merge_axis(lhs, ld, lhs_spec[0]), {"batch_group_count": bgc * size}
    else:
      lhs, groups = _merge_axis(lhs, ld, lhs_spec[1]), {"feature_group_count": fgc * size}
    out = conv_general_dilated_p.bind(lhs, _merge_axis(rhs, rd, rhs_spec[0]),
                                      **{**params, **groups})
    return _split_axis(out, out_spec[1], size), out_spec[1]
  if ld is not None:
    out = conv_general_dilated_p.bind(_fold_into_groups(lhs, ld, lhs_spec[0], bgc), rhs,
                                      **params)
    return _split_axis(out, out_spec[0], size), out_spec[0]
  groups = max(fgc, bgc)
  out = conv_general_dilated_p.bind(lhs, _fold_into_groups(rhs, rd, rhs_spec[0], groups),
                                    **params)
  return _unfold_from_groups(out, out_spec[1], groups, size), out_spec[1]


conv_general_dilated_p.def_rules(batch=_conv_batch)
