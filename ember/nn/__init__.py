"""ember.nn: neural-network functions and initializers, mirroring ``jax.nn``.

Example:
    >>> import ember.numpy as jnp
    >>> from ember import nn
    >>> nn.relu(jnp.array([-1., 2.]))
    Array([0., 2.], dtype=float32)
"""
from ember.nn import initializers
from ember.nn.attention import dot_product_attention
from ember.nn.scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul
from ember.nn.functions import (
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    log_softmax,
    logmeanexp,
    logsumexp,
    mish,
    one_hot,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softmax,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    standardize,
    swish,
    tanh,
)

__all__ = [
    "celu",
    "dot_product_attention",
    "get_scaled_dot_general_config",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "initializers",
    "leaky_relu",
    "log1mexp",
    "log_sigmoid",
    "log_softmax",
    "logmeanexp",
    "logsumexp",
    "mish",
    "one_hot",
    "relu",
    "relu6",
    "scaled_dot_general",
    "scaled_matmul",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
    "swish",
    "tanh",
]
