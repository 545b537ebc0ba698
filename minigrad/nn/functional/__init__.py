"""Stateless forms of the layers (``import minigrad.nn.functional as F``)."""

from minigrad.nn.functional import activation_composite, loss_composite
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
from minigrad.nn.functional.activation_composite import *  # noqa: F403  (the names in its __all__)
from minigrad.nn.functional.attention import scaled_dot_product_attention
from minigrad.nn.functional.ctc import ctc_loss
from minigrad.nn.functional.distance import (
    cosine_similarity,
    normalize,
    pairwise_distance,
    pdist,
)
from minigrad.nn.functional.dropout import dropout
from minigrad.nn.functional.dropout_variants import (
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from minigrad.nn.functional.embedding_bag import embedding_bag
from minigrad.nn.functional.instance_norm import instance_norm
from minigrad.nn.functional.linear import bilinear, embedding, linear, one_hot
from minigrad.nn.functional.linear_cross_entropy import linear_cross_entropy
from minigrad.nn.functional.loss import cross_entropy, mse_loss, nll_loss
from minigrad.nn.functional.loss_composite import *  # noqa: F403  (the names in its __all__)
from minigrad.nn.functional.multi_head_attention import multi_head_attention_forward
from minigrad.nn.functional.normalization import batch_norm, group_norm, layer_norm, rms_norm
from minigrad.nn.functional.pad import pad
from minigrad.unsupported import module_getattr

# The names of the composite modules come with their own lists.
__all__ = (
    [
        "linear_cross_entropy",
        "ctc_loss",
        "embedding_bag",
        "alpha_dropout",
        "dropout1d",
        "dropout2d",
        "dropout3d",
        "feature_alpha_dropout",
        "instance_norm",
        "bilinear",
        "cosine_similarity",
        "normalize",
        "pairwise_distance",
        "pdist",
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
        "multi_head_attention_forward",
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
    + activation_composite.__all__
    + loss_composite.__all__
)

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
