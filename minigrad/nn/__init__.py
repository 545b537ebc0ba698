"""Neural-network layers in PyTorch's dialect (``import minigrad.nn as nn``).

Each file holds one family of layers; ``nn.functional`` (``F``) holds their
stateless function forms, ``nn.init`` the initialisers and ``nn.utils`` gradient
clipping.
"""

from minigrad.nn import (
    activation_composite,
    functional,
    init,
    loss_composite,
    padding,
    parallel,
    utils,
)
from minigrad.nn.activation import (
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)
from minigrad.nn.activation_composite import *  # noqa: F403  (the names in its __all__)
from minigrad.nn.adaptive import AdaptiveLogSoftmaxWithLoss
from minigrad.nn.attention import MultiheadAttention
from minigrad.nn.containers import Container, ModuleDict, ModuleList, Sequential
from minigrad.nn.dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from minigrad.nn.embedding import Embedding, EmbeddingBag
from minigrad.nn.factory import factory_kwargs
from minigrad.nn.flatten import Flatten, Unflatten
from minigrad.nn.instance_norm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from minigrad.nn.linear import Bilinear, Identity, Linear
from minigrad.nn.linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from minigrad.nn.loss import CrossEntropyLoss, MSELoss, NLLLoss, NLLLoss2d
from minigrad.nn.loss_composite import *  # noqa: F403  (the names in its __all__)
from minigrad.nn.module import Module
from minigrad.nn.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    GroupNorm,
    LayerNorm,
    RMSNorm,
    norm_impl,
)
from minigrad.nn.padding import *  # noqa: F403  (the names in its __all__)
from minigrad.nn.parallel import DataParallel
from minigrad.nn.parameter import Buffer, Parameter
from minigrad.nn.parameter_containers import ParameterDict, ParameterList
from minigrad.nn.transformer import (
    TransformerBlock,
    TransformerEncoder,
    TransformerEncoderLayer,
    generate_square_subsequent_mask,
)
from minigrad.nn.transformer_decoder import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
)
from minigrad.unsupported import module_getattr

# The names of the composite modules come with their own lists.
__all__ = (
    [
        "factory_kwargs",
        "Buffer",
        "AdaptiveLogSoftmaxWithLoss",
        "LinearCrossEntropyLoss",
        "LinearCrossEntropyOptions",
        "EmbeddingBag",
        "Container",
        "NLLLoss2d",
        "AlphaDropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "FeatureAlphaDropout",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "InstanceNorm3d",
        "Bilinear",
        "ParameterDict",
        "ParameterList",
        "BatchNorm3d",
        "GELU",
        "BatchNorm1d",
        "BatchNorm2d",
        "CrossEntropyLoss",
        "Dropout",
        "DataParallel",
        "Embedding",
        "Flatten",
        "Unflatten",
        "Transformer",
        "TransformerDecoder",
        "TransformerDecoderLayer",
        "parallel",
        "GroupNorm",
        "Identity",
        "LayerNorm",
        "LeakyReLU",
        "Linear",
        "LogSoftmax",
        "MSELoss",
        "Module",
        "ModuleDict",
        "ModuleList",
        "MultiheadAttention",
        "NLLLoss",
        "Parameter",
        "RMSNorm",
        "ReLU",
        "Sequential",
        "SiLU",
        "Sigmoid",
        "Softmax",
        "Tanh",
        "TransformerBlock",
        "TransformerEncoder",
        "TransformerEncoderLayer",
        "functional",
        "generate_square_subsequent_mask",
        "init",
        "norm_impl",
        "utils",
    ]
    + activation_composite.__all__
    + loss_composite.__all__
    + padding.__all__
)

from minigrad.nn import modules  # noqa: E402, F401  (torch.nn.modules: import paths, after the names)

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
