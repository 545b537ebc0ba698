"""``torch.nn.modules.container``'s path: Sequential, ModuleList, ModuleDict."""

from minigrad.nn.containers import *
