"""Neural-network layers in PyTorch's dialect (``import minigrad.nn as nn``).

Each file holds one family of layers; ``nn.functional`` (``F``) holds their
stateless function forms.
"""

from minigrad.nn import functional, init, utils
from minigrad.nn.parameter import Parameter
from minigrad.nn.module import *  # noqa: F403
from minigrad.nn.containers import *  # noqa: F403
from minigrad.nn.linear import *  # noqa: F403
from minigrad.nn.embedding import *  # noqa: F403
from minigrad.nn.dropout import *  # noqa: F403
from minigrad.nn.activation import *  # noqa: F403
from minigrad.nn.loss import *  # noqa: F403
from minigrad.nn.normalization import *  # noqa: F403
from minigrad.nn.attention import *  # noqa: F403
from minigrad.nn.transformer import *  # noqa: F403
