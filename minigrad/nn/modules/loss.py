"""``torch.nn.modules.loss``'s path: the loss layers."""

from minigrad.nn.loss import *
from minigrad.nn.loss import _Loss
from minigrad.nn.loss_composite import *
