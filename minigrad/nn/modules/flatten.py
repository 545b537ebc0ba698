"""``torch.nn.modules.flatten``'s path: Flatten and Unflatten."""

from minigrad.nn.flatten import *
