"""``torch.nn.modules.transformer``'s path: the transformer layers."""

from minigrad.nn.transformer import *  # noqa: F403
from minigrad.nn.transformer_decoder import *  # noqa: F403
