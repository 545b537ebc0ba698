"""``torch.nn.modules.normalization``'s path: LayerNorm, RMSNorm, GroupNorm."""

from minigrad.nn.normalization import *
