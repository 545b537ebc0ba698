"""``torch.nn.modules.activation``'s path: the activation layers."""

from minigrad.nn.activation import *  # noqa: F403
from minigrad.nn.activation_composite import *  # noqa: F403
