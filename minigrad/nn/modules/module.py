"""``torch.nn.modules.module``'s path: Module."""

from minigrad.nn.module import *
