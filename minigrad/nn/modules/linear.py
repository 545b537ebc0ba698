"""``torch.nn.modules.linear``'s path: Linear and Identity."""

from minigrad.nn.linear import *
