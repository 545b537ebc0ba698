"""``torch.nn.modules.padding``'s path: the padding layers."""

from minigrad.nn.padding import *
