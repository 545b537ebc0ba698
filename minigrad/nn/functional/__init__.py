"""Stateless forms of the layers (``import minigrad.nn.functional as F``)."""

from minigrad.nn.functional.activation import (
    erf,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    tanh,
)
from minigrad.nn.functional.attention import scaled_dot_product_attention
from minigrad.nn.functional.dropout import dropout
from minigrad.nn.functional.linear import embedding, linear, one_hot
from minigrad.nn.functional.loss import cross_entropy, mse_loss, nll_loss
from minigrad.nn.functional.normalization import batch_norm, group_norm, layer_norm, rms_norm
from minigrad.nn.functional.pad import pad
from minigrad.unsupported import module_getattr

__all__ = [
    "batch_norm",
    "cross_entropy",
    "dropout",
    "embedding",
    "erf",
    "gelu",
    "group_norm",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "pad",
    "relu",
    "rms_norm",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "tanh",
]

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
