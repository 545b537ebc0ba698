"""``torch.nn.modules.transformer``'s path: the transformer layers."""

from minigrad.nn.transformer import *
from minigrad.nn.transformer_decoder import *
