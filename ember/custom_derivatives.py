"""User-defined derivatives (mirrors ``jax.custom_derivatives``): ``custom_jvp`` and
``custom_vjp`` with their symbolic-zero helpers, ``custom_gradient``, ``closure_convert`` and
``linear_call``, and the primitives they bind.

Example:
    >>> import ember
    >>> from ember.custom_derivatives import custom_gradient
    >>> @custom_gradient
    ... def f(x):
    ...   return x * 3.0, lambda g: (g * 10.0,)
    >>> ember.grad(f)(1.0)
    Array(10., dtype=float32, weak_type=True)
"""
from ember.transforms.custom import (  # noqa: F401
    custom_jvp, custom_vjp, custom_gradient, closure_convert, custom_jvp_call_p,
    custom_vjp_call_p, SymbolicZero, CustomVJPPrimal, zero_from_primal,
    custom_vjp_primal_tree_values)
from ember.transforms.linear_call import linear_call  # noqa: F401

__all__ = ["custom_jvp", "custom_vjp", "custom_gradient", "closure_convert", "linear_call",
           "custom_jvp_call_p", "custom_vjp_call_p", "SymbolicZero", "CustomVJPPrimal",
           "zero_from_primal", "custom_vjp_primal_tree_values"]


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
