"""Neural-network layers in PyTorch's dialect (``import minigrad.nn as nn``).

Each file holds one family of layers; ``nn.functional`` (``F``) holds their
stateless function forms, ``nn.init`` the initialisers and ``nn.utils`` gradient
clipping.
"""

from minigrad.nn import functional, init, parallel, utils
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
from minigrad.nn.activation_composite import (
    CELU,
    ELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU6,
    RReLU,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from minigrad.nn.attention import MultiheadAttention
from minigrad.nn.containers import ModuleDict, ModuleList, Sequential
from minigrad.nn.dropout import Dropout
from minigrad.nn.embedding import Embedding
from minigrad.nn.flatten import Flatten, Unflatten
from minigrad.nn.linear import Identity, Linear
from minigrad.nn.loss import CrossEntropyLoss, MSELoss, NLLLoss
from minigrad.nn.loss_composite import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CosineSimilarity,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PairwiseDistance,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from minigrad.nn.module import Module
from minigrad.nn.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    GroupNorm,
    LayerNorm,
    RMSNorm,
    norm_impl,
)
from minigrad.nn.parallel import DataParallel
from minigrad.nn.parameter import Parameter
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

__all__ = [
    "CELU",
    "ELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU6",
    "SELU",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanhshrink",
    "Threshold",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "CosineSimilarity",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "PairwiseDistance",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
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

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
