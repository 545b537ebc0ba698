"""``torch.nn.modules.loss``'s path: the loss layers."""

from minigrad.nn.loss import *  # noqa: F403
from minigrad.nn.loss_composite import *  # noqa: F403
from minigrad.nn.loss_composite import _Loss  # noqa: E402, F401  (subclassed by programs)
