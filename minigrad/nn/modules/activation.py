"""``torch.nn.modules.activation``'s path: the activation layers."""

from minigrad.nn.activation import *
from minigrad.nn.activation_composite import *
