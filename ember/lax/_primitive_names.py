"""The primitive objects ``jax.lax`` exposes as ``lax.<name>_p``, under JAX 0.10.2's names.

Each is the very primitive ember's functions bind, so ``eqn.primitive is lax.sin_p`` holds for
an equation of a traced jaxpr, and its ``name`` prints as JAX's (``scatter_add_p.name`` is
``'scatter-add'``, ``linear_solve_p.name`` is ``'custom_linear_solve'``). JAX names without an
ember primitive are left out: see ``NOT_PROVIDED``.

Example:
    >>> import ember
    >>> from ember import lax
    >>> eqn = ember.make_jaxpr(lax.sin)(1.0).jaxpr.eqns[0]
    >>> eqn.primitive is lax.sin_p, lax.scatter_add_p.name
    (True, 'scatter-add')
"""
# ruff: noqa: F401
from ember.primitives.collectives_more import ragged_all_to_all_p
from ember.primitives.control_flow.cond import cond_p
from ember.primitives.control_flow.linear_solve import linear_solve_p
from ember.primitives.control_flow.scan import scan_p
from ember.primitives.control_flow.while_loop import while_p
from ember.primitives.creation import rng_uniform_p
from ember.primitives.elementwise import (
    abs_p, acos_p, acosh_p, add_p, and_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p, bessel_i0e_p,
    bessel_i1e_p, bitcast_convert_type_p, cbrt_p, ceil_p, clamp_p, clz_p, complex_p, conj_p,
    convert_element_type_p, cos_p, cosh_p, digamma_p, div_p, eq_p, erf_inv_p, erf_p, erfc_p,
    exp2_p, exp_p, expm1_p, floor_p, ge_p, gt_p, imag_p, integer_pow_p, is_finite_p, le_p,
    lgamma_p, log1p_p, log_p, logistic_p, lt_p, max_p, min_p, mul_p, ne_p, neg_p, nextafter_p,
    not_p, or_p, population_count_p, pow_p, real_p, reduce_precision_p, rem_p, round_p, rsqrt_p,
    select_n_p, shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, sign_p, sin_p,
    sinh_p, sqrt_p, square_p, sub_p, tan_p, tanh_p, xor_p
)
from ember.primitives.indexing import (
    gather_p, scatter_add_p, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p,
    scatter_sub_p
)
from ember.primitives.integer_ops import mulhi_p
from ember.primitives.ordering import (after_all_p, create_token_p, dce_sink_p,
                                       optimization_barrier_p, stage_p)
from ember.primitives.rng import rng_bit_generator_p
from ember.primitives.sharding_constraint import sharding_constraint_p
from ember.primitives.stacking import stack_p, tile_p, unstack_p
from ember.primitives.structural import (
    broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p, iota_p, pad_p,
    reshape_p, rev_p, slice_p, split_p, squeeze_p, transpose_p
)
from ember.primitives.windowed import select_and_scatter_add_p
from ember.transforms.custom import stop_gradient_p

# jax.lax names that ember does not provide, and why. The test of the public names
# (tests/test_lax_names.py) reads this: every other name of JAX 0.10.2's jax.lax exists here.
NOT_PROVIDED = {
    "approx_top_k_p": "ember's approx_max_k/approx_min_k are exact (top_k and sort), as JAX's "
                      "CPU fallback is; they bind no approx_top_k primitive",
    "device_put_p": "ember's device_put transfers eagerly and stages no primitive",
    "eq_to_p": "a primitive of JAX's shape polymorphism, which ember does not have",
    "le_to_p": "a primitive of JAX's shape polymorphism, which ember does not have",
    "lt_to_p": "a primitive of JAX's shape polymorphism, which ember does not have",
    "select_and_scatter_p": "JAX's general select_and_scatter has no public function; ember's "
                            "max/min pooling gradients use select_and_scatter_add_p",
    "_deprecations": "JAX's private table of deprecated names",
}

__all__ = sorted(name for name in dir() if name.endswith("_p"))
