"""The primitive objects of JAX 0.10.2's ``jax.extend.core.primitives``, under the same names.

Libraries compare an equation's primitive with them (``eqn.primitive is primitives.jit_p``) or
bind them. Each name is ember's own primitive (``add_jaxvals_p`` is ember's ``add_any``, the name
JAX prints too). JAX's names not listed here (``approx_top_k_p``, ``call_p``, ``closed_call_p``,
``device_put_p``, ``eq_to_p``/``le_to_p``/``lt_to_p``, the ``random_*_p`` key primitives,
``select_and_scatter_p``, the state primitives ``get_p``/``swap_p``) have no ember primitive:
those operations are built from other primitives. They are stubs that raise, with the reason
(``ember/_unsupported.py``).

Example:
    >>> import ember
    >>> from ember.extend.core import primitives
    >>> jaxpr = ember.make_jaxpr(ember.jit(lambda x: x + 1.0))(2.0).jaxpr
    >>> jaxpr.eqns[0].primitive is primitives.jit_p
    True
    >>> primitives.add_p.bind(1.0, 2.0)
    Array(3., dtype=float32, weak_type=True)
"""
# ruff: noqa: F401
from ember.primitives.collectives import (
    all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p
)
from ember.primitives.collectives_more import ragged_all_to_all_p
from ember.primitives.condensed import hessenberg_p, schur_p, tridiagonal_p
from ember.primitives.control_flow.cond import cond_p
from ember.primitives.control_flow.linear_solve import linear_solve_p
from ember.primitives.control_flow.scan import scan_p
from ember.primitives.control_flow.while_loop import while_p
from ember.primitives.convolution import conv_general_dilated_p
from ember.primitives.creation import empty2_p, rng_uniform_p
from ember.primitives.elementwise import (
    abs_p, acos_p, acosh_p, add_p, and_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p, bessel_i0e_p,
    bessel_i1e_p, bitcast_convert_type_p, cbrt_p, ceil_p, clamp_p, clz_p, complex_p, conj_p,
    convert_element_type_p, copy_p, cos_p, cosh_p, digamma_p, div_p, eq_p, erf_inv_p, erf_p, erfc_p,
    exp2_p, exp_p, expm1_p, floor_p, ge_p, gt_p, imag_p, integer_pow_p, is_finite_p, le_p, lgamma_p,
    log1p_p, log_p, logistic_p, lt_p, max_p, min_p, mul_p, ne_p, neg_p, nextafter_p, not_p, or_p,
    polygamma_p, population_count_p, pow_p, real_p, reduce_precision_p, rem_p, round_p, rsqrt_p,
    select_n_p, shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, sign_p, sin_p,
    sinh_p, sqrt_p, square_p, sub_p, tan_p, tanh_p, xor_p
)
from ember.primitives.factorizations import (
    cholesky_p, householder_product_p, lu_p, qr_p, triangular_solve_p, tridiagonal_solve_p
)
from ember.primitives.fft import fft_p
from ember.primitives.incomplete_gamma import igamma_grad_a_p, igamma_p, igammac_p
from ember.primitives.indexing import (
    gather_p, scatter_add_p, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
)
from ember.primitives.linalg import dot_general_p
from ember.primitives.ordering import after_all_p, create_token_p
from ember.primitives.reductions import (
    argmax_p, argmin_p, cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, reduce_and_p,
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p, reduce_xor_p
)
from ember.primitives.rng import rng_bit_generator_p
from ember.primitives.sharding_constraint import sharding_constraint_p
from ember.primitives.sorting import sort_p, top_k_p
from ember.primitives.special import regularized_incomplete_beta_p, zeta_p
from ember.primitives.spectral import eig_p, eigh_p, svd_p
from ember.primitives.structural import (
    broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p, iota_p, pad_p,
    reshape_p, rev_p, slice_p, squeeze_p, transpose_p
)
from ember.primitives.windowed import (
    reduce_p, reduce_window_max_p, reduce_window_min_p, reduce_window_p, reduce_window_sum_p,
    select_and_gather_add_p, select_and_scatter_add_p
)
from ember.random._prng import threefry2x32_p
from ember.transforms.checkpoint import remat_p
from ember.transforms.custom import custom_jvp_call_p, custom_lin_p, custom_vjp_call_p, stop_gradient_p
from ember.transforms.jit import jit_p
from ember.transforms.remat_policies import name_p
from ember.transforms.ad_util import add_any_p as add_jaxvals_p


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
