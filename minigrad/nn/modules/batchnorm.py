"""``torch.nn.modules.batchnorm``'s path: BatchNorm1d and BatchNorm2d."""

from minigrad.nn.normalization import *
